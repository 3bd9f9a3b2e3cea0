"""evpsim: how much to trust expected-validation-performance (EVP) curves.

Exact ground truths, numba Monte Carlo over simulated hyperparameter
searches, and the studies that measure EVP estimators: bias, variance and
MSE; false conclusions; model comparisons; confidence-interval coverage.
"""

from . import _startup

_startup.guard()  # Ctrl-C while the evpsim command imports: one line, not a traceback

from ._version import __version__
from .curves.curve import budget_to_reach, curve, evp_curve
from .curves.runs import runs_curve
from .engine.summaries import clopper_pearson
from .engine.sweeps import sweep
from .estimators.family import (Estimator, estimate, estimator_weights, get_estimator,
                                list_estimators, register_estimator, unregister_estimator)
from .intervals import ld_band
from .intervals.family import (bootstrap_intervals, get_ci_method, list_ci_methods,
                               register_ci_method, unregister_ci_method)
from .io.runs import SearchRuns, read_runs
from .io.search import Search
from .io.searchfiles import read_scores, read_searches
from .io.shipped import list_searches, search_path
from .report.curves import plot_curve
from .studies.bias import bias
from .studies.compare import compare_curves, comparison_errors
from .studies.coverage import coverage
from .studies.falseconc import falseconc
from .studies.selfcheck import check_warnings, self_check
from .truths.distributions import (Discrete, TruncatedNormal, Truth, empirical, list_truths,
                                   make_truth)
from .truths.exact import lstatistic_moments, order_statistic_means, order_statistic_moments
from .truths.kde import fit_kde, kde_bandwidth, list_kde_fits, load_kde
from .truths.lattice import lattice_truth
from .truths.mctheta import monte_carlo_theta
from .truths.variants import capped_truth, failed_truth

__all__ = [
    "__version__",
    "Estimator", "estimate", "estimator_weights", "get_estimator", "list_estimators",
    "register_estimator", "unregister_estimator",
    "Truth", "TruncatedNormal", "Discrete", "empirical", "make_truth", "list_truths",
    "read_scores", "read_searches", "Search", "read_runs", "SearchRuns",
    "order_statistic_means", "order_statistic_moments", "lstatistic_moments",
    "curve", "self_check", "check_warnings", "plot_curve", "list_searches", "search_path",
    "evp_curve", "budget_to_reach", "runs_curve",
    "bias", "falseconc", "monte_carlo_theta", "compare_curves", "comparison_errors",
    "coverage", "bootstrap_intervals", "sweep",
    "clopper_pearson", "get_ci_method", "list_ci_methods", "register_ci_method",
    "unregister_ci_method", "ld_band",
    "fit_kde", "kde_bandwidth", "load_kde", "list_kde_fits", "lattice_truth", "failed_truth",
    "capped_truth",
]

from . import _moved
from .plugins import load_plugins as _load_plugins

_moved.install()  # the module paths of earlier versions (evpsim.kde, evpsim.batteries, ...)


def __getattr__(name):
    """``evpsim.kde`` and the other modules of earlier versions, as attributes."""
    return _moved.attribute(__name__, name)


_load_plugins()  # estimators and CI methods of installed packages (evpsim.plugins)
