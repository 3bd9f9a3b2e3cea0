"""Confidence intervals for EVP: the CI-method family, and intervals from one's own scores.

:func:`bootstrap_intervals` builds every registered interval for the
expected maximum from a researcher's own scores; the coverage battery
(:mod:`evpsim.studies.coverage`) measures how often the same
constructions cover the truth.

The registry of *CI methods* for the expected maximum ``theta_n`` mirrors
the estimators' (:mod:`evpsim.estimators`). A method is of one of five kinds, each a
module of :mod:`evpsim.intervals` implementing the one interface of
:mod:`evpsim.intervals.kind` (:data:`KINDS`); studies and curves ask this
family (:func:`plan_intervals`, :func:`bootstrap_intervals`), never a kind:

``bootstrap`` (:mod:`evpsim.intervals.bootstrap`)
    An interval from the R bootstrap estimates of an estimator:
    ``percentile`` (Efron 1982; the method of Tang et al. 2020), ``basic``
    (reverse percentile) and ``bca`` (bias-corrected and accelerated), all
    as defined by ``scipy.stats.bootstrap``. Users add their own with a
    numba-compilable ``func(boots, estimate, jackknife, level) -> (lower,
    upper)``.
``band`` (:mod:`evpsim.intervals.bands`)
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
``resampling`` (:mod:`evpsim.intervals.resampling`)
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
``order-statistic`` (:mod:`evpsim.intervals.orderstat`)
    For a quantile curve only: the exact, distribution-free binomial
    interval for the ``q^(1/n)``-quantile between two order statistics
    (coverage at least ``level`` for every continuous F), and a fitted
    generalized Pareto tail's upper end where no order statistic lies high
    enough. The same for every estimator; ``curve``'s default for a
    quantile curve.
``calibrated`` (:mod:`evpsim.intervals.calibrated`)
    ``gpd-tail``'s interval at levels calibrated through the model it fits:
    its coverage of that model's exact theta_n measured on samples drawn
    from it, each end's level then set so that it would miss as often as
    the level allows; by prepivoting (``gpd-tail-calibrated``) or the fast
    double bootstrap (``gpd-tail-fdb``). For the mean curve; slow, so run
    only when named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import _validate as check
from .._kernels.tallies import ABOVE, BELOW, HIT, NSLOTS, WIDTH
from ..engine.registry import Registry
from ..estimators.family import resolve_estimators
from ..estimators.pyrun import search_counts
from ..estimators.targets import MEAN, as_target
from .bands import BAND, band_arrays, curve_intervals, ld_upper_band
from .betting import BETTING
from .bootstrap import BOOTSTRAP
from .calibrated import CALIBRATED
from .kind import Limits, Sample, Setup
from .orderstat import ORDERSTAT
from .resampling import RESAMPLING

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

#: every kind of CI method, by name, in the order their methods are registered and run
KINDS = {k.name: k for k in (BOOTSTRAP, RESAMPLING, BAND, ORDERSTAT, CALIBRATED, BETTING)}

#: slots of the coverage tallies (method, estimator, n + 1, slot): intervals covering
#: the truth, lying below it, above it, and the sum of the defined intervals' widths
TALLY = dict(hit=HIT, below=BELOW, above=ABOVE, width=WIDTH, slots=NSLOTS)


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
    kind : {"bootstrap", "band", "resampling", "order-statistic", "calibrated"}
        See the module docstring (:data:`KINDS`).
    code : int
        Kernel code of a bootstrap method (``USER`` for user functions), of
        a resampling method (:mod:`evpsim._kernels.resampling`) or of a
        calibrated one (:mod:`evpsim._kernels.calibrated`); -1 for bands.
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
    off_lattice : str
        The method it is, bit for bit, on scores that lie on no lattice
        (``""``: itself everywhere); a check that simulates from a truth on a
        grid runs that one for such scores.
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
    off_lattice: str = ""

    def band_arrays(self, B, level):
        """Validated ``(lower, upper)`` CDF bounds of a band method."""
        if self.kind != "band":
            raise TypeError(f"CI method {self.name!r} is not a band")
        return band_arrays(self.name, self.band, B, level)


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
    kind = BOOTSTRAP if func is not None else BAND
    fields = kind.user(name, func if func is not None else band)
    return _REGISTRY.add(CIMethod(name, description or name, kind.name, source=source, **fields),
                         overwrite=overwrite)


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
    return [k for k, m in _REGISTRY.items() if KINDS[m.kind].by_default]


def resolve_ci_methods(ci_methods):
    """Normalise ``None`` (:func:`default_ci_methods`) / ``"a,b"`` / a sequence into
    CIMethods."""
    return _REGISTRY.resolve(ci_methods, default_ci_methods())


for _kind in KINDS.values():
    for _fields in _kind.builtins():
        _REGISTRY.add(CIMethod(kind=_kind.name, builtin=True, **_fields))


# --- asking the kinds --------------------------------------------------------------------

def _by_kind(methods):
    """``[(kind, its methods in their order), ...]`` over every kind of :data:`KINDS`."""
    return [(kind, [m for m in methods if m.kind == name]) for name, kind in KINDS.items()]


def check_ci_methods(methods, target, B):
    """Refuse methods that cannot bound the curve ``target`` (their kind's
    :attr:`~evpsim.intervals.kind.Kind.curves`) or take fewer than B scores
    (:attr:`CIMethod.minimum_B`)."""
    for kind, ms in _by_kind(methods):
        if ms and kind.curves is not None and target.kind not in kind.curves:
            raise check.InvalidArgument(
                "ci_methods", f"ci_methods: {', '.join(m.name for m in ms)} bound the "
                              f"{' and '.join(kind.curves)} curve only, not the {target.name} "
                              f"curve")
    small = [m for m in methods if B < m.minimum_B]
    if small:
        raise check.InvalidArgument(
            "ci_methods", f"ci_methods: {small[0].name} needs B >= {small[0].minimum_B}, "
                          f"got B = {B}")


def coverage_runs(ci_methods):
    """Kernel runs (jobs) of a coverage run of ``ci_methods``: its progress units per
    sample."""
    return sum(kind.coverage_runs(ms) for kind, ms in _by_kind(resolve_ci_methods(ci_methods))
               if ms)


def interval_notes(ci_method, B, target, ns, level):
    """What a reader must know of the method ``ci_method``'s (a name) intervals for
    samples of B at the budgets ``ns`` of the curve ``target`` and the two-sided
    ``level`` (e.g. ``order-statistic``'s budgets where a fitted tail gives the upper
    end), or ``""``."""
    method = _REGISTRY.get(ci_method)
    return KINDS[method.kind].notes(method, B, target, np.asarray(ns), level)


def no_interval(ci_method, xs):
    """Why the method ``ci_method`` (a name) gives no interval for the ascending sample
    ``xs`` (e.g. ``gpd-tail`` when its best scores are tied), or ``""``."""
    method = _REGISTRY.get(ci_method)
    return KINDS[method.kind].no_interval(method, xs)


# --- the family, prepared for a study or a sample -----------------------------------------

#: the interval of ``curve`` and ``self_check`` when none is named: gpd-tail-lattice told
#: the metric's range (its tail ends at the best score possible, failed trials at the worst
#: are a point mass, its ends within the LD band's), and gpd-tail-lattice bit for bit where
#: the range is unknown ('evpsim reproduce intervals'); where it does not apply, the
#: percentile bootstrap
CURVE_CI_METHOD, CURVE_FALLBACK = "gpd-tail-bounded", "percentile"
#: the interval of ``curve`` and ``self_check`` for a quantile curve when none is named
CURVE_QUANTILE_CI_METHOD = "order-statistic"


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
        :data:`CURVE_CI_METHOD` (too few trials for its tail, or an
        estimator it cannot run); for a quantile curve,
        :data:`CURVE_QUANTILE_CI_METHOD` and ``""``.
    """
    method = _REGISTRY.get(CURVE_CI_METHOD)
    if target.kind != "mean":
        return CURVE_QUANTILE_CI_METHOD, ""
    if B < method.minimum_B:
        return CURVE_FALLBACK, (f"in place of {CURVE_CI_METHOD}, the default, which needs B "
                                f">= {method.minimum_B} trials (the smallest B here is {B})")
    general = [e.name for e in estimators if not e.is_lstatistic]
    if general:
        both = len(general) < len(estimators)  # L-statistics keep the default
        names = ", ".join(general)
        return f"{CURVE_CI_METHOD},{CURVE_FALLBACK}" if both else CURVE_FALLBACK, (
            f"{CURVE_FALLBACK} runs {names} on each resample: the default, {CURVE_CI_METHOD}, "
            f"works for L-statistics only (it reweights resamples through their weights), and "
            + (f"{names} is not one" if len(general) == 1 else f"none of {names} is")
            + (f"; the L-statistics keep {CURVE_CI_METHOD}" if both else ""))
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
    return _refuse_general(interval_estimators(estimators, target, B, ns))


def _refuse_general(ests):
    """``ests``, unless one is not an L-statistic: a coverage study simulates the
    intervals of L-statistics only."""
    general = [e for e in ests if not e.is_lstatistic]
    if general:
        names = ", ".join(f"{e.name} (a {e.kind} estimator)" for e in general)
        raise check.InvalidArgument(
            "estimators", f"estimators: coverage simulates the intervals of L-statistics only, "
                          f"and {names} {'is' if len(general) == 1 else 'are'} not: it would "
                          f"run on every resample of every simulated search; its intervals on "
                          f"your own scores come from curve")
    return ests


def interval_coords(ests, meths, ns):
    """Coordinates of interval results: estimator, ci_method (with its kind), n (``ns``)."""
    return {"estimator": [e.name for e in ests], "ci_method": [m.name for m in meths],
            "n": ns,
            "ci_method_kind": ("ci_method", [m.kind for m in meths])}



def ci_applies(ests, meths):
    """(E, M) whether each method runs for each estimator; refuses an estimator that no
    method applies to.

    Resampling methods reweight resamples of their own through an
    estimator's weights: L-statistics only. Bootstrap methods run any
    estimator on the resamples; bands do not use the estimator.
    """
    applies = np.array([[KINDS[m.kind].applies(e) for m in meths] for e in ests],
                       dtype=bool).reshape(len(ests), len(meths))
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


@dataclass(frozen=True)
class IntervalPlan:
    """CI methods prepared for a study's estimators, curve, B and budgets.

    Made by :func:`plan_intervals`. It hands each kind of
    :data:`KINDS` its own methods: a study or a curve asks the plan, never
    a kind, for memory, coordinates and intervals.

    Attributes
    ----------
    setup : Setup
        The estimators, the curve, B, the budgets, the level and the
        resamples.
    methods : list of CIMethod
        The methods, in the order of the results.
    applies : (E, M) bool array
        Whether each method runs for each estimator (:func:`ci_applies`).
    """

    setup: Setup
    methods: list
    applies: np.ndarray

    @property
    def _parts(self):
        """``[(kind, its methods, their indices), ...]`` over every kind."""
        return [(kind, ms, [self.methods.index(m) for m in ms])
                for kind, ms in _by_kind(self.methods)]

    @property
    def ests(self):
        """The estimators (list of Estimator)."""
        return self.setup.ests

    def methods_of_kinds(self, attribute):
        """Names of the methods whose kind has ``attribute`` (a flag of
        :class:`~evpsim.intervals.kind.Kind`) set."""
        return [m.name for kind, ms, _ in self._parts if getattr(kind, attribute) for m in ms]

    def memory(self, copies, width):
        """Bytes every kind's arrays take with ``copies`` samples in flight (``width``:
        the widest of B and the budgets)."""
        return sum(kind.memory(ms, self.setup, copies, width) for kind, ms, _ in self._parts)

    def coords(self):
        """The coordinates estimator, ci_method (with its kind) and n of the results."""
        return interval_coords(self.setup.ests, self.methods, self.setup.ns)

    def coverage_jobs(self, sampler, theta, bounds):
        """The engine's jobs tallying coverage of ``theta`` (N,) on samples of
        ``sampler``, intervals cut to ``bounds``; and each job's method indices."""
        jobs, rows = [], []
        for kind, ms, _ in self._parts:
            if ms:
                for job, which in kind.coverage_jobs(ms, self.setup, kind.prepare(ms, self.setup),
                                                     sampler, theta, bounds):
                    jobs.append(job)
                    rows.append([self.methods.index(m) for m in which])
        return jobs, rows

    def check_coverage_memory(self, workers):
        """Refuse a coverage run whose resamples, on every thread of each of ``workers``
        processes, cannot fit in memory (methods that draw none need no check)."""
        if not self.methods_of_kinds("resamples"):
            return
        import numba

        threads = numba.get_num_threads() * workers
        E, B, resamples = len(self.ests), self.setup.B, self.setup.resamples
        check.check_memory(self.memory(threads, B),
                           f"{resamples:,} resamples of {E} x {B:,} estimates on {threads} "
                           f"threads", "resamples" if resamples > 2 * B else "B")

    def intervals(self, sample, distribution):
        """:class:`~evpsim.intervals.kind.Limits` of one :class:`~evpsim.intervals.kind.Sample`
        (with the bootstrap distribution if ``distribution``)."""
        E, M, N = len(self.ests), len(self.methods), self.setup.ns.size
        limits = Limits(np.full((E, M, N), np.nan), np.full((E, M, N), np.nan),
                        np.full((E, N), np.nan), np.zeros((E, N), dtype=np.int64),
                        np.full((self.setup.resamples, E, N), np.nan) if distribution else None)
        for kind, ms, cols in self._parts:
            if ms or kind.estimates:
                kind.intervals(ms, self.setup, kind.prepare(ms, self.setup), sample, limits,
                               cols)
        if sample.bounds is not None:  # theta lies within the metric's range: so do the ends
            lo, hi = sample.bounds
            np.clip(limits.lower, lo, hi, out=limits.lower)
            np.clip(limits.upper, lo, hi, out=limits.upper)
        return limits


def plan_intervals(estimators, ci_methods, target, B, ns, *, level=0.95, resamples=2,
                   lstatistics_only=False):
    """Resolve and check estimators and CI methods once, for a study or a sample.

    Parameters
    ----------
    estimators : str or sequence or None
        Estimators (:func:`evpsim.estimators.resolve_estimators`).
    ci_methods : str or sequence or None
        CI methods (:func:`resolve_ci_methods`).
    target, B, ns, level, resamples
        The curve, the size of the sample(s), the budgets, the two-sided
        confidence level and the resamples per sample
        (:class:`~evpsim.intervals.kind.Setup`).
    lstatistics_only : bool
        Refuse estimators that are not L-statistics (a coverage study
        simulates their intervals only).

    Returns
    -------
    IntervalPlan
    """
    methods = resolve_ci_methods(ci_methods)
    check_ci_methods(methods, target, B)
    ests = resolve_estimators(estimators, target)
    for e in ests:  # as interval_estimators, after the methods' own checks
        e.check_use(B, ns, target)
    if lstatistics_only:
        _refuse_general(ests)
    return IntervalPlan(Setup(ests, target, B, ns, level, resamples), methods,
                        ci_applies(ests, methods))


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
    order = check.scores(scores)
    xs = np.sort(order)
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed = check.seed(seed)
    stream = check.integer(stream, "stream", minimum=0, maximum=2**62 - 1)
    distribution = check.boolean(distribution, "distribution")
    progress = check.boolean(progress, "progress")
    target = as_target(curve)
    ns = np.arange(1, xs.size + 1) if ns is None else np.unique(check.ns(ns, np.inf))
    plan = plan_intervals(estimators, _own_methods(ci_methods, bounds), target, xs.size, ns,
                          level=level, resamples=resamples)
    bounds = _own_bounds(plan, bounds, xs)
    if distribution and not plan.methods_of_kinds("estimates"):
        raise check.InvalidArgument("distribution", "distribution=True needs a bootstrap method")
    counts = search_counts(plan.ests, resamples, python_resamples, "python_resamples") \
        if plan.methods_of_kinds("estimates") else np.zeros(len(plan.ests), dtype=np.int64)
    E, B, N = len(plan.ests), xs.size, ns.size
    check.check_memory(plan.memory(1, max(B, N)) + 8 * E * B * N,
                       f"{resamples:,} resamples of {E} x {N:,} estimates",
                       "resamples" if resamples > 2 * B else "scores")
    limits = plan.intervals(Sample(order, xs, seed, stream, bounds, counts, progress),
                            distribution)
    return _interval_dataset(plan, limits, counts, seed)


def _own_methods(ci_methods, bounds):
    """The methods of :func:`bootstrap_intervals`: those named, or by default every
    default method whose kind needs no known range, and with ``bounds`` every one.

    Parameters
    ----------
    ci_methods : str or sequence or None
        The methods asked for.
    bounds : (float, float) or None
        The known range of the scores, if given.

    Returns
    -------
    str or sequence
        What :func:`resolve_ci_methods` resolves.
    """
    if ci_methods is not None:
        return ci_methods
    return [m.name for m in resolve_ci_methods(None)
            if bounds is not None or not KINDS[m.kind].needs_bounds]


def _own_bounds(plan, bounds, xs):
    """The known range of the scores, checked against the ascending sample ``xs``.

    Parameters
    ----------
    plan : IntervalPlan
        Its methods that need a known range refuse ``bounds=None``.
    bounds : (float, float) or None
        The range given.
    xs : (B,) array
        The sample, ascending: the range must contain it.

    Returns
    -------
    (float, float) or None
    """
    bands = plan.methods_of_kinds("needs_bounds")
    if bands and bounds is None:
        kinds = {m.kind for m in plan.methods if m.name in bands}
        what = "band methods" if kinds == {"band"} else \
            "methods that assume only the scores' range"
        raise check.InvalidArgument(
            "bounds", f"bounds: {what} ({', '.join(bands)}) need the "
                      f"known range of the scores, bounds=(lo, hi)")
    if bounds is None:
        return None
    lo, hi = check.bounds(bounds, xs[0], xs[-1], "every score")
    return lo, hi


def _interval_dataset(plan, limits, counts, seed):
    """The dataset of :func:`bootstrap_intervals`.

    Parameters
    ----------
    plan : IntervalPlan
        The estimators, methods, budgets, level and resamples.
    limits : Limits
        The sample's intervals, estimates, failures and bootstrap distribution.
    counts : (E,) int array
        Resamples each estimator ran on.
    seed : int
        Seed of the resamples.

    Returns
    -------
    xarray.Dataset
    """
    import xarray as xr

    setup = plan.setup
    dims = ("estimator", "ci_method", "n")
    ds = xr.Dataset(coords={**plan.coords(), "B": setup.B, "curve": setup.target.name})
    ds.coords["applies"] = (("estimator", "ci_method"), plan.applies, {
        "long_name": "the method runs for the estimator (resampling methods: L-statistics "
                     "only)"})
    ds.coords["estimator_kind"] = ("estimator", [e.kind for e in setup.ests])
    ds.coords["resamples_used"] = ("estimator", counts, {
        "long_name": "bootstrap resamples the estimator ran on"})
    ds["estimate"] = (("estimator", "n"), limits.estimate)
    ds["lower"] = (dims, limits.lower, {"long_name": f"lower end of the {setup.level:g} interval"})
    ds["upper"] = (dims, limits.upper, {"long_name": f"upper end of the {setup.level:g} interval"})
    ds["failed_resamples"] = (("estimator", "n"), limits.failed, {
        "long_name": "resamples on which the estimator failed, left out of its intervals"})
    if limits.boot is not None:
        ds["bootstrap_distribution"] = (("resample", "estimator", "n"), limits.boot, {
            "long_name": "bootstrap estimates (NaN: beyond the estimator's resamples_used, "
                         "or failed)"})
    ds.attrs.update(level=setup.level, resamples=setup.resamples, seed=int(seed))
    return ds


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
    return curve_intervals(xs, lo, xs[-1], lowers, uppers, target,
                           np.arange(1, top + 1))[0, :, 0]
