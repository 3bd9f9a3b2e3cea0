"""Confidence intervals for EVP: the CI methods, and intervals from one's own scores.

:func:`bootstrap_intervals` builds every registered interval for the
expected maximum from a researcher's own scores; the coverage battery
(:mod:`evpsim.studies.coverage`) measures how often the same
constructions cover the truth.

The registry of *CI methods* for the expected maximum ``theta_n`` mirrors
the estimators' (:mod:`evpsim.estimators`). A method is of one of three kinds:

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
    estimator: they do not use it. Built-ins, from :mod:`evpsim.intervals.bands`:
    ``dkw`` (Dvoretzky-Kiefer-Wolfowitz with Massart's constant), ``ks``
    (exact Kolmogorov-Smirnov critical value), and the Learned-Miller-
    DeStefano bands ``ld-equal-tailed`` and ``ld-highest-density``
    (calibrated exactly; narrower than DKW and KS near the ends of the
    distribution). Users add bands with ``band(B, level) -> (lower,
    upper)``, the CDF bounds on each of the B + 1 gaps between the order
    statistics.
``resampling``
    Methods that draw resamples of their own from each sample, so that
    near n = B, where every ordinary bootstrap estimate is at most the
    sample maximum, their upper limits can reach beyond it (see
    :mod:`evpsim._kernels.resampling`): ``studentized`` (the bootstrap-t),
    ``smoothed`` (an adaptive kernel mixture's bootstrap), ``gpd-tail``
    (a generalized Pareto tail fitted to the top scores) and
    ``m-out-of-n`` (the ratio-preserving m-out-of-n bootstrap, m chosen
    by Bickel & Sakov's rule). Built-in only, for the mean curve; slower
    than the ordinary bootstrap, so the batteries run them only when
    named (:func:`default_ci_methods`). Their upper limits rest on what
    each assumes about the tail (``CIMethod.assumes``): no upper limit
    holds without such an assumption or the metric's bound (Bahadur &
    Savage 1956).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import _validate as check
from .._kernels import bootstrap as _K
from .._kernels import resampling as _R
from ..engine.registry import Registry, jit_function
from ..engine.threads import map_threads, ranges
from ..estimators.family import Context, resolve_estimators
from ..estimators.pyrun import search_counts
from ..estimators.targets import MEAN, as_target
from .bands import dkw_band, ks_band, ld_band, ld_upper_band
from .resampling import memory as procedure_memory
from .resampling import sample_intervals
from .resampling import tables as procedure_tables

__all__ = [
    "bootstrap_intervals",
    "CIMethod",
    "register_ci_method",
    "unregister_ci_method",
    "get_ci_method",
    "list_ci_methods",
    "resolve_ci_methods",
    "default_ci_methods",
    "free_lower_bound",
]


# --- the registry ---------------------------------------------------------------------

@dataclass(frozen=True)
class CIMethod:
    """A registered confidence-interval method for ``theta_n``.

    Attributes
    ----------
    name : str
        Identifier on the command line and ``ci_method`` coordinate.
    description : str
        One line saying what it is.
    kind : {"bootstrap", "band", "resampling"}
        See the module docstring.
    code : int
        Kernel code of a bootstrap method (``USER`` for user functions) or
        of a resampling method (:mod:`evpsim._kernels.resampling`); -1 for
        bands.
    func : numba dispatcher or None
        User bootstrap method ``func(boots, estimate, jackknife, level)``.
    band : callable or None
        ``band(B, level) -> (lower, upper)`` of a band method.
    builtin : bool
        True for the methods evpsim ships.
    source : str
        Where it comes from (a paper, a package; a plugin's: :mod:`evpsim.plugins`).
    assumes : str
        What its upper limits rest on, in a phrase (``""``: nothing beyond
        the metric's known range, as for bands).
    minimum_B : int
        The smallest sample it takes.
    """

    name: str
    description: str
    kind: str
    code: int = -1
    func: Callable | None = None
    band: Callable | None = None
    builtin: bool = False
    source: str = ""
    assumes: str = ""
    minimum_B: int = 2

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


_REGISTRY = Registry("CI method", CIMethod, "ci_methods")


def register_ci_method(name, *, func=None, band=None, description="", source="",
                       overwrite=False):
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
        ``numba.njit`` unless it already is a numba dispatcher, after trial
        calls (compiled with bounds checking) at levels 0.95 and 0.9 that
        must return two numbers, ``lower <= upper`` (NaN marks an interval
        that cannot be formed).
    band : callable, optional
        A band method: ``band(B, level) -> (lower, upper)``, arrays of
        length B + 1 bounding the CDF on ``[x_(i), x_(i+1))``, i = 0..B
        (``x_(0)`` and ``x_(B+1)`` the known bounds of the scores), holding
        simultaneously with probability at least ``level``; tried as
        ``band(5, 0.95)``. Exactly one of ``func`` and ``band`` must be
        given. A method that fails its trial raises ``ValueError`` and is
        not registered.
    description : str, optional
        One line for tables and ``evpsim list``.
    source : str, optional
        Where it comes from (a paper, a package), for ``evpsim list``.
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
        raise check.InvalidArgument("func", "give exactly one of func= and band=")
    if band is not None and not callable(band):
        raise check.InvalidType("band", "band must be a callable (B, level) -> (lower, upper)")
    description = check.string(description, "description", empty=True)
    source = check.string(source, "source", empty=True)
    overwrite = check.boolean(overwrite, "overwrite")
    _REGISTRY.check_new(name, overwrite=overwrite)
    if func is not None:
        boots, jack = np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.6, 0.65, 0.7])
        func = jit_function(func, "(boots, estimate, jackknife, level) -> (lower, upper)",
                            [(f"4 resamples at level {lv}", (boots.copy(), 0.65, jack, lv))
                             for lv in (0.95, 0.9)], _pair_problem)
    method = (CIMethod(name, description or name, "bootstrap", _K.USER, func=func,
                       source=source) if func is not None else
              CIMethod(name, description or name, "band", band=band, source=source))
    if band is not None:
        try:
            method.band_arrays(5, 0.95)
        except (Exception, SystemExit) as err:
            raise check.InvalidArgument("band", f"band(5, 0.95) fails: {err}") from None
    return _REGISTRY.add(method, overwrite=overwrite)


def _pair_problem(value):
    """What is wrong with an interval returned by a user's function, if anything.

    NaN ends are allowed (an interval that cannot be formed counts as
    undefined); a lower end above the upper one is not.
    """
    if not (isinstance(value, tuple) and len(value) == 2):
        return "not a pair"
    if not all(isinstance(v, (float, int, np.floating, np.integer))
               and not isinstance(v, (bool, np.bool_)) for v in value):
        return "not two numbers"
    if value[0] > value[1]:
        return "lower above upper"
    return None


def unregister_ci_method(name):
    """Remove a user-registered CI method."""
    _REGISTRY.remove(name)


def get_ci_method(name):
    """Look up a registered CI method by name (raises ``ValueError``)."""
    return _REGISTRY.get(name)


def list_ci_methods():
    """``{name: description}`` of every registered CI method, built-ins first."""
    return {k: m.description for k, m in _REGISTRY.items()}


def default_ci_methods():
    """Names of the methods the batteries run by default: all but the (slow) resampling ones."""
    return [k for k, m in _REGISTRY.items() if m.kind != "resampling"]


def resolve_ci_methods(ci_methods):
    """Normalise ``None`` (:func:`default_ci_methods`) / ``"a,b"`` / a sequence into
    CIMethods."""
    return _REGISTRY.resolve(ci_methods, default_ci_methods())


_CAPPED = ("the ordinary bootstrap: never beyond the best score observed, so it undercovers "
           "near n = B (gpd-tail reaches beyond it: 'evpsim reproduce intervals')")
for _name, _code, _desc in [
    ("percentile", _K.PERCENTILE, "percentile bootstrap (Efron 1982; Tang et al. 2020)"),
    ("basic", _K.BASIC, "basic (reverse percentile) bootstrap: 2 * estimate - quantiles"),
    ("bca", _K.BCA, "bias-corrected and accelerated bootstrap (jackknife acceleration)"),
]:
    _REGISTRY.add(CIMethod(_name, _desc, "bootstrap", _code, builtin=True, assumes=_CAPPED))
for _name, _code, _desc, _source, _assumes, _min_B in [
    ("studentized", _R.STUDENTIZED,
     "bootstrap-t: pivot scaled by the SD of the best of n draws from the (re)sample",
     "Efron 1982; Hall 1988", "a pivot whose law the ordinary bootstrap gets right", 2),
    ("smoothed", _R.SMOOTHED,
     "smoothed bootstrap from an adaptive Gaussian kernel mixture (local bandwidths, "
     "Abramson's square-root law), root centred on the mixture's theta_n",
     "Silverman & Young 1987; Abramson 1982",
     "the kernels' Gaussian tails beyond the best scores", 2),
    ("gpd-tail", _R.GPD_TAIL,
     "semiparametric bootstrap-t: empirical body, generalized Pareto tail over a "
     "data-driven threshold, its fitting error carried into the pivot",
     "Davison & Smith 1990; Zhang & Stephens 2009; Choulakian & Stephens 2001; Harris 1989",
     "a generalized Pareto tail fitted to the best scores", 10),
    ("m-out-of-n", _R.M_OUT_OF_N,
     "m-out-of-n bootstrap keeping n/B, m by Bickel & Sakov's rule, rate estimated",
     "Bickel, Goetze & van Zwet 1997; Bickel & Sakov 2008; Bertail, Politis & Romano 1999",
     "a rate of convergence estimated from resamples of fewer points", 2),
]:
    _REGISTRY.add(CIMethod(_name, _desc, "resampling", _code, builtin=True, source=_source,
                           assumes=_assumes, minimum_B=_min_B))
for _name, _fn, _desc in [
    ("dkw", dkw_band, "distribution-free: DKW band on the CDF, known score range"),
    ("ks", ks_band, "distribution-free: exact Kolmogorov-Smirnov band on the CDF, known range"),
    ("ld-equal-tailed", functools.partial(ld_band, kind="equal-tailed"),
     "distribution-free: Learned-Miller-DeStefano band, equal-tailed Beta intervals"),
    ("ld-highest-density", functools.partial(ld_band, kind="highest-density"),
     "distribution-free: Learned-Miller-DeStefano band, highest-density Beta intervals"),
]:
    _REGISTRY.add(CIMethod(_name, _desc, "band", band=_fn, builtin=True))


# --- intervals from one's own scores ---------------------------------------------------

def weight_tables(ests, B, ns=None, target=MEAN):
    """Cumulative weights (B + 1, K) and jackknife weights (K, B - 1) of the
    K = E * N columns (estimator-major) of the bootstrap kernels, for the
    N budgets ``ns`` (default all of 1..B) of the curve ``target``.

    The jackknife of budget n <= B uses the estimator for samples of size
    B - 1 at budget ``min(n, B - 1)``: U is undefined at n = B on B - 1
    points, and its natural extension (the sample maximum) is U at n = B -
    1. Budgets beyond B (estimators that extrapolate) use n itself.
    """
    ns = np.arange(1, B + 1) if ns is None else np.asarray(ns, dtype=np.int64)
    check.check_memory(4 * 8 * len(ests) * (B + 1) * max(B, ns.size),
                       f"the weight tables of {len(ests)} estimators for B = {B:,}", "B")
    ws = np.concatenate([e.weight_rows(B, ns, target) for e in ests])
    ptab = np.zeros((B + 1, ws.shape[0]))
    ptab[1:] = np.cumsum(ws, axis=1).T
    jack_ns = np.where(ns <= B, np.minimum(ns, B - 1), ns)
    jws = np.concatenate([e.weight_rows(B - 1, jack_ns, target) for e in ests])
    return np.ascontiguousarray(ptab), np.ascontiguousarray(jws)


def split_ci_methods(methods):
    """``(built-in bootstrap, user bootstrap, band, resampling)`` methods, in their order."""
    boot = [m for m in methods if m.kind == "bootstrap"]
    builtin = [m for m in boot if m.func is None]
    user = [m for m in boot if m.func is not None]
    bands = [m for m in methods if m.kind == "band"]
    return builtin, user, bands, [m for m in methods if m.kind == "resampling"]


def check_resampling(methods, target, B):
    """Refuse resampling methods for a quantile curve or a sample below their minimum."""
    if not methods:
        return
    names = ", ".join(m.name for m in methods)
    if target.kind != "mean":
        raise check.InvalidArgument(
            "ci_methods", f"ci_methods: {names} bound the mean curve only, not the "
                          f"{target.name} curve")
    small = [m for m in methods if B < m.minimum_B]
    if small:
        raise check.InvalidArgument(
            "ci_methods", f"ci_methods: {small[0].name} needs B >= {small[0].minimum_B}, "
                          f"got B = {B}")


#: the interval of ``curve`` and ``self_check`` when none is named: the best trade-off of
#: 'evpsim reproduce intervals' (a coverage estimate below 0.93 in at most 5.6% of its cells
#: at B = 50 and 100, at 1.2-1.3 times the percentile interval's median width), and where it
#: does not apply, the percentile bootstrap
CURVE_CI_METHOD, CURVE_FALLBACK = "gpd-tail", "percentile"


def curve_ci_method(target, B, estimators=()):
    """The interval of ``curve`` when none is named, and why it is not the usual one.

    Parameters
    ----------
    target : Target
        The curve.
    B : int
        The smallest number of trials among the models.
    estimators : sequence of Estimator
        The estimators: one that is not an L-statistic adds the percentile
        bootstrap, which runs it on each resample (and replaces the default
        when none is an L-statistic).

    Returns
    -------
    (str, str)
        The methods' names (comma-separated), and ``""`` or the reason the
        percentile bootstrap stands in for, or beside,
        :data:`CURVE_CI_METHOD` (a quantile curve, too few trials for its
        tail, or an estimator it cannot run).
    """
    method = _REGISTRY.get(CURVE_CI_METHOD)
    if target.kind != "mean":
        return CURVE_FALLBACK, (f"{CURVE_CI_METHOD}, the default for the mean curve, does not "
                                f"bound the {target.description}")
    if B < method.minimum_B:
        return CURVE_FALLBACK, (f"{CURVE_CI_METHOD}, the default, needs B >= "
                                f"{method.minimum_B} trials (B = {B})")
    general = [e.name for e in estimators if not e.is_lstatistic]
    if general:
        both = len(general) < len(estimators)  # L-statistics keep the default
        return f"{CURVE_CI_METHOD},{CURVE_FALLBACK}" if both else CURVE_FALLBACK, (
            f"{CURVE_CI_METHOD}, the default, reweights resamples through an L-statistic's "
            f"weights, and {', '.join(general)} {'is' if len(general) == 1 else 'are'} not "
            f"one: {CURVE_FALLBACK} runs {'it' if len(general) == 1 else 'them'} on each "
            f"resample")
    return CURVE_CI_METHOD, ""


def interval_estimators(estimators, target=MEAN, B=None, ns=None):
    """Resolve ``estimators`` for :func:`bootstrap_intervals` (any kind), refusing (with
    B and ``ns``) those that do not estimate ``target`` there."""
    ests = resolve_estimators(estimators, target)
    if B is not None:
        for e in ests:
            e.check_use(B, ns, target)
    return ests


def lstatistic_estimators(estimators, target=MEAN, B=None, ns=None):
    """Resolve ``estimators`` for the coverage battery, refusing those that are not
    L-statistics, and (with B and ``ns``) those that do not estimate ``target`` there."""
    ests = interval_estimators(estimators, target, B, ns)
    general = [e for e in ests if not e.is_lstatistic]
    if general:
        names = ", ".join(f"{e.name} (a {e.kind} estimator)" for e in general)
        raise check.InvalidArgument(
            "estimators", f"estimators: coverage simulates the intervals of L-statistics only, "
                          f"and {names} {'is' if len(general) == 1 else 'are'} not: it would "
                          f"run on every resample of every simulated search; its intervals on "
                          f"your own scores come from curve")
    return ests


def bootstrap_memory(E, B, resamples, copies=1):
    """Bytes of the bootstrap arrays of ``copies`` samples in flight."""
    return copies * 8 * E * B * (resamples + 2 * B + 8)


def band_bounds(bands, B, level):
    """Lower and upper CDF bounds (nband, B + 1) of band methods."""
    arrays = [m.band_arrays(B, level) for m in bands]
    return np.array([a[0] for a in arrays]), np.array([a[1] for a in arrays])


def interval_coords(ests, meths, ns):
    """Coordinates of interval results: estimator, ci_method (with its kind), n (``ns``)."""
    return {"estimator": [e.name for e in ests], "ci_method": [m.name for m in meths],
            "n": ns,
            "ci_method_kind": ("ci_method", [m.kind for m in meths])}


def _bootstrap_one(xs, seed, stream, ptab, jws, resamples, level, codes, jackknife):
    """Bootstrap distribution and built-in intervals of one sorted sample.

    The results of :func:`evpsim._kernels.bootstrap.bootstrap_intervals`
    with the resamples of stream ``(seed, stream)``; its blocks of
    resamples, then its columns, are shared over the threads.

    Returns
    -------
    boot (K, R), est (K,), jack (K, B), intervals (M, K, 2)
    """
    est, jack, need_q, packed, starts, cuts, states = _K.bootstrap_setup(
        xs, seed, stream, ptab, jws, resamples, codes, jackknife)
    K = ptab.shape[1]
    boot = np.empty((K, resamples))
    ivs = np.full((codes.shape[0], K, 2), np.nan)
    map_threads(lambda span: _K.bootstrap_blocks(xs, states, packed, starts, cuts, *span, boot),
                ranges(states.shape[0]))
    if codes.shape[0]:
        map_threads(lambda span: _K.bootstrap_columns(*span, boot, est, jack, level, codes,
                                                      need_q, ivs), ranges(K))
    return boot, est, jack, ivs


def bootstrap_intervals(scores, estimators="V", *, ci_methods=None, level=0.95, resamples=5000,
                        seed=0, stream=0, bounds=None, distribution=False, curve="mean",
                        ns=None, python_resamples=None, progress=False):
    """Confidence intervals for theta_n (or tau_q(n)), n = 1..B, from one's own scores.

    The same constructions that :func:`evpsim.coverage` evaluates.

    Parameters
    ----------
    scores : array_like of float
        The B >= 2 validation scores of a search, in the order the trials
        ran (only estimators of the run order, such as ``naive``, care).
    estimators : str or sequence
        Estimators (default ``"V"``). L-statistics run in the bootstrap
        kernels; any other estimator (a Python or numba function) runs on
        the scores and on each of its resamples (see Notes).
    ci_methods : str or sequence, optional
        CI methods. Default: every bootstrap method, plus every band method
        when ``bounds`` is given (resampling methods only when named).
        Resampling methods reweight their own resamples, so they apply to
        L-statistics only; bands do not use the estimator at all.
    level : float
        Two-sided confidence level, in (0, 1).
    resamples : int
        Bootstrap resamples (at least 2).
    seed : int
        Seed of the resamples.
    stream : int
        Random stream of the resamples, ``(seed, stream)``: independent
        bootstraps of several models under one seed use different streams.
    bounds : (float, float), optional
        Known range of the scores (e.g. ``(0, 1)`` for accuracy); needed by
        band methods, cuts the resampling methods' intervals, and must
        contain every score.
    distribution : bool
        Also return the bootstrap distribution (variable
        ``bootstrap_distribution``, dims ``resample, estimator, n``).
    curve : str or Target
        The curve estimated: ``"mean"`` (default), ``"median"`` or
        ``"quantile:Q"`` (see :mod:`evpsim.estimators.targets`); the estimators must
        estimate it (``quantile`` for a quantile curve).
    ns : sequence of int, optional
        The budgets (default 1..B; beyond B for estimators that
        extrapolate, as in :func:`evpsim.coverage`).
    python_resamples : int or dict, optional
        Resamples of the estimators that are not L-statistics (one count,
        or ``{name: count}``): by default ``resamples``, capped for slow
        ones at their :attr:`~evpsim.estimators.Estimator.max_replicates`
        (kde 2,000, opda-parametric 100); never more than ``resamples``.
    progress : bool
        A progress line on stderr while slow estimators run on their
        resamples.

    Returns
    -------
    xarray.Dataset
        ``lower``, ``upper`` (estimator, ci_method, n) and ``estimate``
        (estimator, n); scalar coordinate ``curve``; coordinates
        ``applies`` (estimator, ci_method: whether the method runs for
        the estimator; NaN limits where not), ``estimator_kind`` and
        ``resamples_used`` (estimator); ``failed_resamples`` (estimator,
        n): resamples on which the estimator failed (raised or returned
        NaN), left out of its intervals.

    Notes
    -----
    An estimator that is not an L-statistic runs on the first
    ``resamples_used`` resamples of stream ``(seed, stream)`` themselves:
    the same draws whose multiplicities the L-statistic kernels use, each
    resample's points in the order drawn, so that a Python estimator and
    an L-statistic see the same resamples, and one that computes an
    L-statistic gives its bootstrap estimates to rounding. Its intervals
    come from the same code (percentile, basic and BCa as in
    ``scipy.stats.bootstrap``; BCa and users' bootstrap methods also run
    it on the B leave-one-out samples).

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.bootstrap_intervals([0.71, 0.74, 0.69, 0.80, 0.77, 0.75],
    ...                                 ci_methods="percentile", resamples=1000)
    >>> iv = ds.sel(estimator="V", ci_method="percentile", n=1)
    >>> bool(iv["lower"] < iv["estimate"] < iv["upper"])
    True
    """
    import xarray as xr

    order = check.scores(scores)
    xs = np.sort(order)
    B = xs.size
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed = check.seed(seed)
    stream = check.integer(stream, "stream", minimum=0, maximum=2**62 - 1)
    distribution = check.boolean(distribution, "distribution")
    progress = check.boolean(progress, "progress")
    target = as_target(curve)
    ns = np.arange(1, B + 1) if ns is None else np.unique(check.ns(ns, np.inf))
    ests = interval_estimators(estimators, target, B, ns)
    N = ns.size
    if ci_methods is None:
        meths = [m for m in resolve_ci_methods(None) if m.kind == "bootstrap" or bounds is not None]
    else:
        meths = resolve_ci_methods(ci_methods)
    builtin, user, bands, resampling = split_ci_methods(meths)
    check_resampling(resampling, target, B)
    applies = ci_applies(ests, meths)
    if bands and bounds is None:
        raise check.InvalidArgument(
            "bounds", f"bounds: band methods ({', '.join(m.name for m in bands)}) need the "
                      f"known range of the scores, bounds=(lo, hi)")
    if bounds is not None:
        lo, hi = check.bounds(bounds, xs[0], xs[-1], "every score")
    if distribution and not (builtin or user):
        raise check.InvalidArgument("distribution", "distribution=True needs a bootstrap method")
    E = len(ests)
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    general = [k for k, e in enumerate(ests) if not e.is_lstatistic]
    counts = search_counts(ests, resamples, python_resamples, "python_resamples") \
        if builtin or user else np.zeros(E, dtype=np.int64)
    rcodes = [m.code for m in resampling]
    L = len(lstats)
    check.check_memory(bootstrap_memory(E, max(B, N), resamples) + 8 * E * B * N
                       + procedure_memory(L, B, N, rcodes, resamples, copies=1),
                       f"{resamples:,} resamples of {E} x {N:,} estimates",
                       "resamples" if resamples > 2 * B else "scores")
    lower = np.full((E, len(meths), N), np.nan)
    upper = np.full_like(lower, np.nan)
    est = np.full((E, N), np.nan)
    boot = np.full((resamples, E, N), np.nan) if distribution else None
    failed = np.zeros((E, N), dtype=np.int64)
    boot_cols = [meths.index(m) for m in builtin + user]
    codes = np.array([m.code for m in builtin], dtype=np.int64)
    if lstats:
        lests = [ests[k] for k in lstats]
        ptab, jws = weight_tables(lests, B, ns, target)
        if builtin or user:
            lboot, lest, jack, ivs = _bootstrap_one(xs, seed, stream, ptab, jws, resamples,
                                                    level, codes, bool(user))
            for m in user:
                iv = np.empty((L * N, 2))
                _K.user_intervals(m.func, lboot, lest, jack, level, iv)
                ivs = np.concatenate([ivs, iv[None]])
            lower[np.ix_(lstats, boot_cols)] = np.moveaxis(ivs[..., 0].reshape(-1, L, N), 0, 1)
            upper[np.ix_(lstats, boot_cols)] = np.moveaxis(ivs[..., 1].reshape(-1, L, N), 0, 1)
            if distribution:
                boot[:, lstats] = lboot.T.reshape(resamples, L, N)
        else:
            lest = np.empty(L * N)
            _K.sample_estimates(xs, ptab, lest)
        est[lstats] = np.asarray(lest).reshape(L, N)
        if resampling:
            ivs = sample_intervals(xs, procedure_tables(lests, B, ns, rcodes), rcodes,
                                   resamples, level, seed, stream,
                                   None if bounds is None else (lo, hi))
            cols = [meths.index(m) for m in resampling]
            lower[np.ix_(lstats, cols)] = np.moveaxis(ivs[..., 0].reshape(-1, L, N), 0, 1)
            upper[np.ix_(lstats, cols)] = np.moveaxis(ivs[..., 1].reshape(-1, L, N), 0, 1)
    context = Context(target, None if bounds is None else (lo, hi))
    for k in general:
        e, R = ests[k], int(counts[k])
        est[k], gboot, jack = _general_runs(e, order, xs, ns, context, R, seed, stream,
                                            need_jack=bool(user) or _K.BCA in codes,
                                            progress=progress)
        failed[k] = (~np.isfinite(gboot)).sum(axis=0)
        ivs = _finite_intervals(gboot.T, est[k], jack, level, codes, user)
        lower[k, boot_cols], upper[k, boot_cols] = ivs[..., 0], ivs[..., 1]
        if distribution:
            boot[:R, k] = gboot
    if bands:
        if target.kind == "quantile":
            ivs = np.empty((len(bands), N, 2))
            _K.band_quantile_intervals(xs, lo, hi, *band_bounds(bands, B, level),
                                       target.q ** (1.0 / ns), ivs)
        else:
            ivs = np.empty((len(bands), int(ns.max()), 2))
            _K.band_intervals(xs, lo, hi, *band_bounds(bands, B, level), ivs)
            ivs = ivs[:, ns - 1]
        for g, m in enumerate(bands):
            lower[:, meths.index(m)] = ivs[g, :, 0]
            upper[:, meths.index(m)] = ivs[g, :, 1]
    dims = ("estimator", "ci_method", "n")
    ds = xr.Dataset(coords={**interval_coords(ests, meths, ns), "B": B,
                            "curve": target.name})
    ds.coords["applies"] = (("estimator", "ci_method"), applies, {
        "long_name": "the method runs for the estimator (resampling methods: L-statistics "
                     "only)"})
    ds.coords["estimator_kind"] = ("estimator", [e.kind for e in ests])
    ds.coords["resamples_used"] = ("estimator", counts, {"long_name": "bootstrap resamples the estimator ran on"})
    ds["estimate"] = (("estimator", "n"), est)
    ds["lower"] = (dims, lower, {"long_name": f"lower end of the {level:g} interval"})
    ds["upper"] = (dims, upper, {"long_name": f"upper end of the {level:g} interval"})
    ds["failed_resamples"] = (("estimator", "n"), failed, {
        "long_name": "resamples on which the estimator failed, left out of its intervals"})
    if distribution:
        ds["bootstrap_distribution"] = (("resample", "estimator", "n"), boot, {
            "long_name": "bootstrap estimates (NaN: beyond the estimator's resamples_used, "
                         "or failed)"})
    ds.attrs.update(level=level, resamples=resamples, seed=int(seed))
    return ds


def ci_applies(ests, meths):
    """(E, M) whether each method runs for each estimator; refuses an estimator that no
    method applies to.

    Resampling methods reweight resamples of their own through an
    estimator's weights: L-statistics only. Bootstrap methods run any
    estimator on the resamples; bands do not use the estimator.
    """
    applies = np.array([[e.is_lstatistic or m.kind != "resampling" for m in meths]
                        for e in ests], dtype=bool).reshape(len(ests), len(meths))
    bare = [e.name for e, row in zip(ests, applies) if meths and not row.any()]
    if bare:
        names = ", ".join(m.name for m in meths)
        raise check.InvalidArgument(
            "ci_methods", f"ci_methods: {names} reweight{'s' if len(meths) == 1 else ''} "
                          f"resamples through an L-statistic's weights, and {', '.join(bare)} "
                          f"{'is not one' if len(bare) == 1 else 'are not'}: add a bootstrap "
                          f"method (percentile, basic, bca), which runs any estimator on each "
                          f"resample")
    return applies


def _general_runs(estimator, order, xs, ns, context, R, seed, stream, need_jack, progress):
    """A non-L-statistic estimator on the sample, its first R resamples and (``need_jack``)
    its leave-one-out samples: ``(estimate (N,), boot (R, N), jack (N, B))``.

    The resamples are those of :func:`_bootstrap_one` (stream ``(seed, stream)``),
    each in the order its points were drawn; the sample in the order given.
    """
    from ..engine.montecarlo import Progress

    B, N = xs.size, ns.size
    est = estimator.estimates(order, ns, context)[0]
    idx = np.empty((R, B), dtype=np.int64)
    _K.resample_indices(seed, stream, idx)
    step = 1 if estimator.max_replicates is not None else max(1, R // 20)
    bar = Progress(f"{estimator.name} on {R:,} resamples", R, enabled=progress)
    boot = np.empty((R, N))
    for r0 in range(0, R, step):
        boot[r0:r0 + step] = estimator.estimates(xs[idx[r0:r0 + step]], ns, context)
        bar.update(min(r0 + step, R))
    bar.close()
    jack = np.zeros((N, B))
    if need_jack:  # leave-one-out at n <= B uses budget min(n, B - 1), as weight_tables
        jack_ns = np.where(ns <= B, np.minimum(ns, B - 1), ns)
        loo = np.array([np.delete(order, i) for i in range(B)])
        jack = estimator.estimates(loo, jack_ns, context).T
    return est, boot, np.ascontiguousarray(jack)


def _finite_intervals(boot, est, jack, level, codes, user):
    """Intervals (M + U, K, 2) of the built-in methods ``codes`` and the user methods
    ``user`` from bootstrap estimates (K, R) that may hold NaN (failed resamples):
    each column from its finite estimates (NaN with fewer than 2)."""
    K = boot.shape[0]
    M = codes.shape[0]
    out = np.full((M + len(user), K, 2), np.nan)
    need_q = bool(np.isin(codes, [_K.PERCENTILE, _K.BASIC]).any())
    ok = np.isfinite(boot)
    whole = np.flatnonzero(ok.all(axis=1))
    groups = [(whole, boot[whole])] + [(np.array([k]), boot[k, ok[k]][None])
                                       for k in np.flatnonzero(~ok.all(axis=1))
                                       if ok[k].sum() >= 2]
    for cols, b in groups:
        if cols.size == 0:
            continue
        b = np.ascontiguousarray(b)
        e, j = np.ascontiguousarray(est[cols]), np.ascontiguousarray(jack[cols])
        if M:
            ivs = np.full((M, cols.size, 2), np.nan)
            _K.bootstrap_columns(0, cols.size, b, e, j, level, codes, need_q, ivs)
            out[:M, cols] = ivs
        for g, m in enumerate(user):
            iv = np.empty((cols.size, 2))
            _K.user_intervals(m.func, b, e, j, level, iv)
            out[M + g, cols] = iv
    return out


def free_lower_bound(scores, lo, *, level=0.95, curve="mean", n_max=None):
    """A one-sided lower bound on theta_n (or tau_q(n)), n = 1..B, that holds whatever
    the distribution: the lower ends of the intervals of the one-sided LD band
    (:func:`evpsim.intervals.bands.ld_upper_band`), at every n at once with probability at
    least ``level``.

    No upper limit holds without an assumption about the tail or the
    metric's upper end; a lower limit needs only the lower end ``lo`` of
    the scores (through the first gap, ``x_(1) - lo``, whose weight
    vanishes as n grows).

    Parameters
    ----------
    scores : array_like of float
        The B >= 1 scores.
    lo : float
        A number no score can fall below (the metric's lower end).
    level : float
        One-sided confidence level, in (0, 1).
    curve : str or Target
        ``"mean"``, ``"median"`` or ``"quantile:Q"``.
    n_max : int, optional
        Bound n = 1..``n_max`` (default B): the band bounds the CDF, and
        so the curve at every n.

    Returns
    -------
    (B,) array, or (n_max,)

    Examples
    --------
    >>> b = free_lower_bound([0.71, 0.74, 0.69, 0.80, 0.77, 0.75], 0.0)
    >>> bool(b[-1] < 0.80) and bool(np.all(np.diff(b) >= 0))
    True
    """
    xs = np.sort(check.scores(scores, min_size=1))
    lo = check.number(lo, "lo", high=xs[0], open_high=False)
    level = check.level(level)
    target = as_target(curve)
    B = xs.size
    top = B if n_max is None else check.integer(n_max, "n_max", minimum=1)
    lowers, uppers = np.zeros((1, B + 1)), ld_upper_band(B, level)[None]
    out = np.empty((1, top, 2))
    if target.kind == "quantile":
        _K.band_quantile_intervals(xs, lo, xs[-1], lowers, uppers,
                                   target.q ** (1.0 / np.arange(1, top + 1)), out)
    else:
        _K.band_intervals(xs, lo, xs[-1], lowers, uppers, out)
    return out[0, :, 0]
