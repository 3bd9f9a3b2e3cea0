"""Confidence intervals: Clopper-Pearson for rates, and CI methods for EVP.

:func:`clopper_pearson` gives the exact binomial interval used for every
rate evpsim records (coverage, false-conclusion and ranking-error rates).

The registry of *CI methods* for the expected maximum ``theta_n`` mirrors
the estimators' (:mod:`evpsim.estimators`). A method is of one of two kinds:

``bootstrap``
    An interval from the R bootstrap estimates of an estimator:
    ``percentile`` (Efron 1982; the method of Tang et al. 2020), ``basic``
    (reverse percentile) and ``bca`` (bias-corrected and accelerated), all
    as defined by ``scipy.stats.bootstrap``. Users add their own with a
    numba-compilable ``func(boots, estimate, jackknife, level) -> (lower,
    upper)``.
``band``
    Distribution-free: a simultaneous confidence band ``L <= F <= U`` for
    the CDF of the scores, which have a known range ``[lo, hi]``, turned
    into ``hi - int U^n <= theta_n <= hi - int L^n`` (a larger CDF means a
    smaller expected maximum; Lourie et al. 2024). The intervals hold for
    every n at once with probability at least ``level``, whatever the
    estimator: they do not use it. Built-ins ``dkw`` (Dvoretzky-Kiefer-
    Wolfowitz with Massart's constant) and ``ks`` (exact Kolmogorov-Smirnov
    critical value); users add bands with ``band(B, level) -> (lower,
    upper)``, the CDF bounds on each of the B + 1 gaps between the order
    statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from ._kernels import bootstrap as _K
from .registry import Registry, jit_function

__all__ = [
    "clopper_pearson",
    "CIMethod",
    "register_ci_method",
    "unregister_ci_method",
    "get_ci_method",
    "list_ci_methods",
    "resolve_ci_methods",
    "dkw_band",
    "ks_band",
]


def clopper_pearson(k, n, level=0.95):
    """Clopper-Pearson (exact binomial) confidence interval for ``k / n``.

    Parameters
    ----------
    k : array_like of int
        Successes, ``0 <= k <= n``.
    n : array_like of int
        Trials, at least 1.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    lower, upper : ndarray
        Bounds with the shape of ``k`` broadcast against ``n``.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 10)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.3085)
    """
    k = np.asarray(k)
    n = np.asarray(n)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if np.any(n < 1):
        raise ValueError("n must be at least 1")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("k must lie in 0..n")
    alpha = 1 - level
    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return lower, upper


def validate_level(level, name="level"):
    """Return ``level`` as a float in (0, 1) or raise ``ValueError``."""
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)) \
            or not 0 < level < 1:
        raise ValueError(f"{name} must be a number in (0, 1), got {level!r}")
    return float(level)


# --- distribution-free bands -------------------------------------------------------

def _constant_band(B, epsilon):
    ecdf = np.arange(B + 1) / B
    return np.clip(ecdf - epsilon, 0.0, 1.0), np.clip(ecdf + epsilon, 0.0, 1.0)


def dkw_band(B, level):
    """DKW band ``ECDF +- sqrt(log(2 / alpha) / (2 B))`` (Massart 1990).

    Parameters
    ----------
    B : int
        Sample size.
    level : float
        Simultaneous coverage, in (0, 1).

    Returns
    -------
    lower, upper : (B + 1,) arrays
        CDF bounds on ``[x_(i), x_(i+1))``, i = 0..B.

    Notes
    -----
    Massart's inequality ``P(sup |F_B - F| > eps) <= 2 exp(-2 B eps^2)``
    holds for every F, continuous or not, so the band covers with
    probability at least ``level`` (a little more in practice).

    Examples
    --------
    >>> lower, upper = dkw_band(50, 0.95)
    >>> round(float(upper[0]), 4)
    0.1921
    """
    return _constant_band(B, math.sqrt(math.log(2.0 / (1.0 - level)) / (2.0 * B)))


def ks_band(B, level):
    """Kolmogorov-Smirnov band ``ECDF +- d``, ``d`` the exact critical value.

    ``d`` is the ``level`` quantile of the two-sided KS statistic for sample
    size B (``scipy.stats.kstwo``): coverage exactly ``level`` for a
    continuous F, at least ``level`` for a discrete one. Same layout as
    :func:`dkw_band`.

    Examples
    --------
    >>> lower, upper = ks_band(50, 0.95)
    >>> round(float(upper[0]), 4)
    0.1884
    """
    return _constant_band(B, float(stats.kstwo(B).ppf(level)))


# --- the registry ---------------------------------------------------------------------

KINDS = ("bootstrap", "band")


@dataclass(frozen=True)
class CIMethod:
    """A registered confidence-interval method for ``theta_n``.

    Attributes
    ----------
    name : str
        Identifier on the command line and ``method`` coordinate.
    description : str
        One line saying what it is.
    kind : {"bootstrap", "band"}
        See the module docstring.
    code : int
        Kernel code of a bootstrap method (``USER`` for user functions);
        -1 for bands.
    func : numba dispatcher or None
        User bootstrap method ``func(boots, estimate, jackknife, level)``.
    band : callable or None
        ``band(B, level) -> (lower, upper)`` of a band method.
    builtin : bool
        True for the methods evpsim ships.
    """

    name: str
    description: str
    kind: str
    code: int = -1
    func: Callable | None = None
    band: Callable | None = None
    builtin: bool = False

    def band_arrays(self, B, level):
        """Validated ``(lower, upper)`` CDF bounds of a band method."""
        if self.kind != "band":
            raise TypeError(f"CI method {self.name!r} is not a band")
        lower, upper = (np.asarray(a, dtype=float) for a in self.band(B, level))
        if lower.shape != (B + 1,) or upper.shape != (B + 1,):
            raise ValueError(f"band {self.name!r} for B={B} returned shapes {lower.shape}, "
                             f"{upper.shape}; expected ({B + 1},) each")
        if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
                and np.all((0 <= lower) & (lower <= upper) & (upper <= 1))):
            raise ValueError(f"band {self.name!r} must satisfy 0 <= lower <= upper <= 1")
        return lower, upper


_REGISTRY = Registry("CI method", CIMethod)


def register_ci_method(name, *, func=None, band=None, description="", overwrite=False):
    """Register a CI method so that the coverage battery and the CLI can run it.

    Parameters
    ----------
    name : str
        Identifier (letters, digits, ``_``, ``-``; no commas).
    func : callable, optional
        A bootstrap method: ``func(boots, estimate, jackknife, level) ->
        (lower, upper)``, where ``boots`` holds the R bootstrap estimates
        (a scratch copy the function may reorder), ``estimate`` is the
        sample's estimate, ``jackknife`` its B leave-one-out estimates and
        ``level`` the two-sided confidence level. Compiled with
        ``numba.njit`` unless it already is a numba dispatcher.
    band : callable, optional
        A band method: ``band(B, level) -> (lower, upper)``, arrays of
        length B + 1 bounding the CDF on ``[x_(i), x_(i+1))``, i = 0..B
        (``x_(0)`` and ``x_(B+1)`` the known bounds of the scores), holding
        simultaneously with probability at least ``level``. Exactly one of
        ``func`` and ``band`` must be given.
    description : str, optional
        One line for tables and ``evpsim list``.
    overwrite : bool, optional
        Replace an existing method of the same name (never a built-in).

    Returns
    -------
    CIMethod
        The registered method.

    Examples
    --------
    A normal-approximation interval, estimate +- z * bootstrap SD:

    >>> import math
    >>> import numpy as np
    >>> import evpsim
    >>> def normal(boots, estimate, jackknife, level):
    ...     z = 1.959963984540054 if level == 0.95 else math.nan
    ...     sd = np.std(boots) * math.sqrt(boots.size / (boots.size - 1))
    ...     return estimate - z * sd, estimate + z * sd
    >>> m = evpsim.register_ci_method("normal", func=normal,
    ...                               description="estimate +- z * bootstrap SD")
    >>> m.kind
    'bootstrap'
    >>> evpsim.unregister_ci_method("normal")
    """
    if (func is None) == (band is None):
        raise ValueError("give exactly one of func= and band=")
    if func is not None:
        func = jit_function(func, "(boots, estimate, jackknife, level) -> (lower, upper)")
    if band is not None and not callable(band):
        raise TypeError("band must be a callable (B, level) -> (lower, upper)")
    method = (CIMethod(name, description or name, "bootstrap", _K.USER, func=func)
              if func is not None else CIMethod(name, description or name, "band", band=band))
    return _REGISTRY.add(method, overwrite=overwrite)


def unregister_ci_method(name):
    """Remove a user-registered CI method."""
    _REGISTRY.remove(name)


def get_ci_method(name):
    """Look up a registered CI method by name (raises ``ValueError``)."""
    return _REGISTRY.get(name)


def list_ci_methods():
    """``{name: description}`` of every registered CI method, built-ins first."""
    return {k: m.description for k, m in _REGISTRY.items()}


def resolve_ci_methods(methods):
    """Normalise ``None`` (every method) / ``"a,b"`` / a sequence into CIMethods."""
    try:
        return _REGISTRY.resolve(methods, _REGISTRY.names())
    except ValueError as err:
        raise ValueError(f"methods: {err}") from None


for _name, _code, _desc in [
    ("percentile", _K.PERCENTILE, "percentile bootstrap (Efron 1982; Tang et al. 2020)"),
    ("basic", _K.BASIC, "basic (reverse percentile) bootstrap: 2 * estimate - quantiles"),
    ("bca", _K.BCA, "bias-corrected and accelerated bootstrap (jackknife acceleration)"),
]:
    _REGISTRY.add(CIMethod(_name, _desc, "bootstrap", _code, builtin=True))
for _name, _fn, _desc in [
    ("dkw", dkw_band, "distribution-free: DKW band on the CDF, known score range"),
    ("ks", ks_band, "distribution-free: exact Kolmogorov-Smirnov band on the CDF, known range"),
]:
    _REGISTRY.add(CIMethod(_name, _desc, "band", band=_fn, builtin=True))
