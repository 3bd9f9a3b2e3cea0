"""evpsim: how much to trust expected-validation-performance (EVP) curves.

Exact ground truths, numba Monte Carlo over simulated hyperparameter
searches, and the batteries that measure EVP estimators: bias, variance and
MSE; false conclusions; model comparisons; confidence-interval coverage.
"""

from . import _startup

_startup.guard()  # Ctrl-C while the evpsim command imports: one line, not a traceback

from ._version import __version__
from .bands import ld_band
from .batteries.bias import bias
from .batteries.compare import compare_curves, comparison_errors
from .batteries.coverage import coverage
from .batteries.falseconc import falseconc
from .curves import budget_to_reach, curve, evp_curve
from .datasets import list_searches, search_path
from .estimators import (
    Estimator,
    estimate,
    estimator_weights,
    get_estimator,
    list_estimators,
    register_estimator,
    unregister_estimator,
)
from .exact import lstatistic_moments, order_statistic_means, order_statistic_moments
from .intervals import (
    bootstrap_intervals, get_ci_method, list_ci_methods, register_ci_method, unregister_ci_method,
)
from .kde import fit_kde, kde_bandwidth, list_kde_fits, load_kde
from .mctheta import monte_carlo_theta
from .plots import plot_curve
from .searchfiles import Search, read_scores, read_searches
from .selfcheck import check_warnings, self_check
from .summaries import clopper_pearson
from .sweeps import sweep
from .truths import (
    Discrete,
    Truth,
    TruncatedNormal,
    empirical,
    list_truths,
    make_truth,
)

__all__ = [
    "__version__",
    "Estimator", "estimate", "estimator_weights", "get_estimator", "list_estimators",
    "register_estimator", "unregister_estimator",
    "Truth", "TruncatedNormal", "Discrete", "empirical", "make_truth", "list_truths",
    "read_scores", "read_searches", "Search",
    "order_statistic_means", "order_statistic_moments", "lstatistic_moments",
    "curve", "self_check", "check_warnings", "plot_curve", "list_searches", "search_path",
    "evp_curve", "budget_to_reach",
    "bias", "falseconc", "monte_carlo_theta", "compare_curves", "comparison_errors",
    "coverage", "bootstrap_intervals", "sweep",
    "clopper_pearson", "get_ci_method", "list_ci_methods", "register_ci_method",
    "unregister_ci_method", "ld_band",
    "fit_kde", "kde_bandwidth", "load_kde", "list_kde_fits",
]

from .plugins import load_plugins as _load_plugins

_load_plugins()  # estimators and CI methods of installed packages (evpsim.plugins)
