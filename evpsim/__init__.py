"""evpsim: how much to trust expected-validation-performance (EVP) curves.

Exact ground truths, numba Monte Carlo over simulated hyperparameter
searches, and the batteries that measure EVP estimators: bias, variance and
MSE; false conclusions; bootstrap confidence-interval coverage.
"""

__version__ = "0.1.0"

from .estimators import (  # noqa: E402
    Estimator,
    estimate,
    estimator_weights,
    get_estimator,
    list_estimators,
    register_estimator,
    unregister_estimator,
)
from .truths import (  # noqa: E402
    Discrete,
    Truth,
    TruncatedNormal,
    empirical,
    list_truths,
    make_truth,
    read_scores,
)
from .exact import lstatistic_moments, order_statistic_moments  # noqa: E402
from .bias import bias  # noqa: E402
from .intervals import (  # noqa: E402
    clopper_pearson, get_ci_method, list_ci_methods, register_ci_method, unregister_ci_method,
)
from .coverage import bootstrap_intervals, coverage  # noqa: E402
from .falseconc import falseconc, monte_carlo_theta  # noqa: E402
from .compare import compare_curves, comparison_errors  # noqa: E402
from . import kde  # noqa: E402
from .kde import fit_kde, kde_bandwidth, list_kde_fits, load_kde  # noqa: E402

__all__ = [
    "__version__",
    "Estimator", "estimate", "estimator_weights", "get_estimator", "list_estimators",
    "register_estimator", "unregister_estimator",
    "Truth", "TruncatedNormal", "Discrete", "empirical", "make_truth", "list_truths",
    "read_scores",
    "order_statistic_moments", "lstatistic_moments",
    "bias",
    "clopper_pearson", "get_ci_method", "list_ci_methods", "register_ci_method",
    "unregister_ci_method", "coverage", "bootstrap_intervals",
    "falseconc", "monte_carlo_theta", "compare_curves", "comparison_errors",
    "kde", "fit_kde", "kde_bandwidth", "load_kde", "list_kde_fits",
]
