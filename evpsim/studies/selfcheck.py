"""The self-check: would intervals built this way have covered the truth for data like yours?

Tang et al. (2020) showed that percentile-bootstrap intervals for the
expected maximum cover far less often than they claim, and how badly
depends on the shape of the score distribution, on B and on n. The
self-check asks that question of each user's own data: fit the centered
discretized KDE (:func:`evpsim.fit_kde`) to each model's scores (its
draws snapped to the lattice the scores lie on, where they lie on one:
accuracies on a finite validation set tie, and the check must see what
ties do to the intervals), take it as a ground truth whose EVP is known
exactly, simulate searches of the user's B from it, build the same
intervals on each and count how often they cover (:func:`evpsim.coverage`);
where there are several models, also how often searches of their size rank
each pair the wrong way round
(:func:`evpsim.compare_curves`). The answer is about distributions *like*
the user's, not a guarantee about the unknown truth.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import xarray as xr

from .. import _validate as check
from .._format import duration, spans
from ..estimators.targets import Target, as_target
from ..intervals.family import curve_ci_method, plan_intervals, resolve_ci_methods
from ..io.lattice import find_lattice
from ..io.models import as_models
from ..io.trials import NO_BOUNDS
from ..truths.kde import fit_kde, fit_kde_cv, load_kde, mass_outside, snap_kde
from .compare import compare_curves
from .coverage import COVERAGE_CHUNK, CP_LEVEL, coverage
from .oracle import oracle_widths

__all__ = ["self_check", "check_arguments", "check_replicates", "check_warnings",
           "coverage_warnings", "fit_table", "fit_warnings",
           "model_error", "check_resamples", "Settled",
           "metric_range", "SHORTFALL"]

#: coverage this far below the level draws a warning
SHORTFALL = 0.05
#: searches of the KDE behind the oracle interval's width, and the width beyond which the
#: self-check warns (times the oracle's)
ORACLE_SEARCHES, WIDE = 5000, 3.0
#: the first look of the stopping rule (simulated searches); the next ones double it
FIRST_LOOK = 64
#: the most searches a self-check simulates per model: the Monte Carlo error of a
#: coverage of 95% is then +-0.0004 (95%), far below any verdict's margin
MAX_REPLICATES = 1_000_000
#: the longest a self-check may take by its timed pilot's estimate (seconds): a day
MAX_SECONDS = 86_400
#: resamples per simulated search of bootstrap and band methods, and of the resampling
#: methods (which refit a model to every resample) up to B = RESAMPLING_B[0], then beyond
RESAMPLES, RESAMPLING_RESAMPLES, RESAMPLING_B = 2000, (500, 250), 200


def check_resamples(B, ci_methods):
    """Resamples per simulated search of a self-check of searches of B trials.

    ``RESAMPLES`` (2,000) where only bootstrap and band methods are
    checked; with a method that refits a model to each resample (gpd-tail
    and the other resampling methods, at 10-15 times the bootstrap's cost
    per resample; order-statistic's tail), 500 up to B = 200 and 250 beyond, where a resample costs
    about B^2: enough that the self-check's verdicts on the Reuters and
    opda searches of ``benchmarks/bench_curve.py`` matched those at 2,000.

    Parameters
    ----------
    B : int
        Trials per search.
    ci_methods : str or sequence
        The CI methods checked.

    Returns
    -------
    int

    Examples
    --------
    >>> check_resamples(145, "percentile"), check_resamples(145, "gpd-tail")
    (2000, 500)
    >>> check_resamples(441, "percentile,gpd-tail")
    250
    """
    from ..intervals.family import KINDS

    if not any(KINDS[m.kind].refits for m in resolve_ci_methods(ci_methods)):
        return RESAMPLES
    return RESAMPLING_RESAMPLES[0] if B <= RESAMPLING_B else RESAMPLING_RESAMPLES[1]


class Settled:
    """The self-check's stopping rule: stop once every n's verdict is settled.

    The verdict of each (estimator, CI method, n) is whether coverage is
    below ``level - shortfall`` (the warning of :func:`coverage_warnings`).
    It is settled at a look when the two-sided Clopper-Pearson interval of
    the coverage, at level ``1 - (1 - CP_LEVEL) / K``, lies on one side of
    that line: the 5% error is split (Bonferroni) over the K looks at which
    the run may stop, ``FIRST_LOOK`` = 64 simulated searches and each
    doubling of it below ``replicates``, so that for each n the chance
    that some look settles its verdict on the wrong side of the true
    coverage stays below 5%. The run stops at the first look where every verdict is settled,
    and otherwise runs all ``replicates``; its verdicts are then those of
    the point estimates, as without the rule.

    The looks depend only on ``replicates`` and the decision only on the
    counts there, so where a run stops does not depend on threads or
    workers.

    Parameters
    ----------
    replicates : int
        The most searches simulated.
    level : float
        The intervals' level.
    shortfall : float
        The verdict's line lies this far below ``level``.
    pilot : sequence of int
        Extra looks (searches, multiples of the chunk size) at which
        nothing is decided: the self-check times its pilot there.
    on_pilot : callable, optional
        Called with the searches done at each pilot look.
    early : bool
        False: no look stops the run (every search is simulated).

    Examples
    --------
    >>> rule = Settled(1000, 0.95)
    >>> rule.looks, rule.stops, round(rule.cp_level, 4)
    ([64, 128, 256, 512], [64, 128, 256, 512], 0.9875)
    >>> import numpy as np
    >>> rule(np.array([[[250., 251.]]]), 256)  # 97.7%, 98.0% of 256: both above 90%
    True
    >>> rule(np.array([[[250., 236.]]]), 256)  # 92.2% of 256: not settled
    False
    """

    def __init__(self, replicates, level, shortfall=SHORTFALL, pilot=(), on_pilot=None,
                 early=True):
        self.line, self.replicates = level - shortfall, replicates
        self.stops = []
        m = FIRST_LOOK
        while early and m < replicates:
            self.stops.append(m)
            m *= 2
        self.cp_level = 1.0 - (1.0 - CP_LEVEL) / max(1, len(self.stops))
        self.pilot, self.on_pilot = pilot, on_pilot
        self.looks = sorted(set(self.stops) | {m for m in pilot if m < replicates})

    def __call__(self, hits, m):
        """True if every verdict is settled after ``m`` searches with ``hits`` covered."""
        from ..engine.summaries import clopper_pearson

        if m in self.pilot and self.on_pilot is not None:
            self.on_pilot(m)
        if m not in self.stops:
            return False
        lower, upper = clopper_pearson(hits.astype(np.int64), m, self.cp_level)
        return bool(np.all((upper < self.line) | (lower >= self.line)))

    def describe(self):
        """The rule in a sentence."""
        if not self.stops:
            return f"all {self.replicates:,} searches simulated (no early stop)"
        return (f"stopping at {spans_of(self.stops)} searches once every n's verdict "
                f"(coverage below {self.line:.0%} or not) is settled by Clopper-Pearson "
                f"{self.cp_level:.2%} bounds ({CP_LEVEL:.0%} split over {len(self.stops)} "
                f"looks)")


def _jobs(ci_methods):
    """Kernel runs (progress units per search) of a coverage run of these methods."""
    from ..intervals.family import coverage_runs

    return coverage_runs(ci_methods)


class _Pilot:
    """Times the first model's first searches, then announces the self-check.

    The rate is measured between two looks, after the first batch of
    chunks (whose time includes loading the kernels and starting workers),
    and scaled to every model by ``R * B^2``, what a search's resamples
    cost.
    """

    def __init__(self, models, sizes, rule, construction, estimators, ci_methods, workers,
                 bar):
        from ..engine.threads import thread_count

        self.models, self.sizes, self.main, self.bar = models, sizes, rule, bar
        self.what = (construction, estimators, ci_methods)
        self.first = thread_count() * workers * COVERAGE_CHUNK
        self.marks = {}

    def rule(self, level, stop):
        """The stopping rule, with the pilot's looks; the line is written at once when
        there are too few searches for a pilot."""
        if 2 * self.first >= self.main.replicates:
            self.bar.message(announcement(self.models, self.sizes, self.main, *self.what))
            return self.main
        self.bar.delay = float("inf")  # the announcement comes first
        return Settled(self.main.replicates, level, pilot=(self.first, 2 * self.first),
                       on_pilot=self.mark, early=stop)

    def mark(self, m):
        self.marks[m] = time.perf_counter()
        if len(self.marks) < 2:
            return
        (m0, t0), (m1, t1) = sorted(self.marks.items())
        rate = (t1 - t0) / (m1 - m0)
        costs = np.array([r * float(x.scores.size) ** 2 for r, x in zip(self.sizes,
                                                                           self.models)])
        per = rate * costs / costs[0]
        M = self.main.replicates
        low = float(per.sum() * min(self.main.stops[0], M)) if self.main.stops else None
        high = float(per.sum() * M)
        if high > MAX_SECONDS:
            raise check.InvalidArgument(
                "replicates", f"replicates: {M:,} searches of each model would take about "
                              f"{duration(high)} by a timed pilot of {m1} searches, more "
                              f"than a day; at most "
                              f"{max(FIRST_LOOK, int(M * MAX_SECONDS / high)):,} fit in one")
        self.bar.message(announcement(self.models, self.sizes, self.main, *self.what,
                                      (low, high), m1))
        self.bar.delay = 0.0


def announcement(models, sizes, rule, construction, estimators, ci_methods, seconds=None,
                 pilot=None):
    """The line a self-check prints before it simulates: what, and how long.

    Parameters
    ----------
    models : sequence
        The models (``label``, ``scores``).
    sizes : sequence of int
        Resamples per simulated search of each model.
    rule : Settled
        The stopping rule.
    construction, estimators, ci_methods
        What is checked.
    seconds : (float or None, float), optional
        The estimated time if the run stops at its first look (None
        without early stopping) and if it runs every search; None: too
        few searches to time a pilot, and no estimate.
    pilot : int, optional
        Searches of the timed pilot.

    Returns
    -------
    str
    """
    each = "; ".join(f"{m.label}: B = {m.scores.size}, {r:,} resamples each"
                     for m, r in zip(models, sizes))
    low, high = seconds or (None, None)
    when = (f"; estimated time {duration(low)} to {duration(high)} (from a timed pilot "
            f"of {pilot} searches)" if low is not None
            else f"; estimated time {duration(high)} (from a timed pilot of {pilot} searches)"
            if high is not None else "")
    stops = (f"; it stops at {spans_of(rule.stops)} searches once every n's verdict is "
             f"settled" if rule.stops else "")
    def names(x):
        return x if isinstance(x, str) else ", ".join(map(str, x))

    return (f"self-check: up to {rule.replicates:,} searches of each model's B simulated from "
            f"the {construction} KDE of its scores ({each}), checking {names(ci_methods)} intervals "
            f"of {names(estimators)}{stops}{when}")


def spans_of(ms):
    """``64, 128, 256 or 512``."""
    text = [f"{m:,}" for m in ms]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " or " + text[-1]


def metric_range(scores):
    """The metric's range guessed from its scores: ``(0, 1)`` or ``(0, 100)``.

    Raises ``InvalidArgument("bounds")`` when the scores fit neither.
    """
    lo, hi = float(np.min(scores)), float(np.max(scores))
    for rng in ((0.0, 1.0), (0.0, 100.0)):
        if rng[0] <= lo and hi <= rng[1]:
            return rng
    raise check.InvalidArgument(
        "bounds", f"bounds: the scores span [{lo:g}, {hi:g}], neither a fraction nor a "
                  f"percentage; give the metric's range, e.g. bounds=(lo, hi)")


#: the self-check's default truth: what evpsim's kde-validity study found predicts best
CONSTRUCTION, BANDWIDTH = "centered", "cv"
#: a fit is unlike the data when the best observed score lies in either tail of this
#: size of the KDE's own distribution of the best of B, or when it dropped this much mass
FIT_TAIL, FIT_DROPPED = 0.01, 0.01
#: the least mass lost at one bound that words about lost mass name
MASS_SHOWN = 0.001
#: the error of KDE truths as models of real searches, measured by 'evpsim reproduce
#: kde-validity' (percentile coverage of V at n = 20, KDE minus real search, 95% intervals)
MODEL_ERROR = {
    ("centered", "cv"): "KDEs of this kind (centered, cv) overstated the real coverage of V's "
                        "percentile intervals at n = 20 by 3.3 [2.5, 4.2] points at B = 50 and "
                        "0.8 [0.0, 1.5] at B = 100",
    ("tang2020", "normal-reference"): "KDEs of this kind (Tang et al.'s) understated the real "
                                      "coverage of V's percentile intervals at n = 20 by 5.4 "
                                      "[4.6, 6.2] points at B = 50",
}


def model_error(ds):
    """Where the self-check's model error was measured, in a sentence."""
    key = (ds.attrs["check_construction"], ds.attrs["check_bandwidth_asked"])
    found = MODEL_ERROR.get(key, "the error of KDE truths as models of real searches was "
                                 "measured for other KDE constructions")
    return f"{found} ('evpsim reproduce kde-validity')"


def self_check(scores, *, labels=None, estimators=None, ci_methods=None, level=0.95,
               bounds=None, minimize=False, replicates=1000, resamples=None, seed=0,
               bandwidth=BANDWIDTH, construction=CONSTRUCTION, workers=1, progress=False,
               curve="mean", stop=True):
    """Coverage of your interval method on distributions like your scores.

    Parameters
    ----------
    scores : array_like, mapping, sequence, or searches
        As in :func:`evpsim.curve`.
    labels : sequence of str, optional
        Model names (see :func:`evpsim.curve`).
    estimators, ci_methods, level
        The intervals to check, as in :func:`evpsim.curve` (whose default
        interval is checked when none is named).
    bounds : (float, float) or "none", optional
        The metric's range; the centered KDE is clipped to it, and the
        intervals simulated know it, as :func:`evpsim.curve`'s do. Default
        ``(0, 1)`` or ``(0, 100)``, whichever holds every score (else an
        error); ``"none"``: that guess for the KDE, and intervals that do
        not know the range, as :func:`evpsim.curve` with ``bounds="none"``.
    minimize : bool
        The scores are losses (checked as curves of the expected minimum).
    replicates : int
        M, the most searches simulated per model (and the pairs per
        comparison).
    resamples : int, optional
        R, bootstrap resamples per simulated search (default by B and the
        methods: :func:`check_resamples`).
    seed : int
        Seed of the simulations.
    bandwidth : {"cv", "normal-reference", "scott", "silverman"} or float
        The KDE's bandwidth (see :func:`evpsim.fit_kde`). Default ``"cv"``,
        the leave-one-out choice, which evpsim's kde-validity study found
        to predict real searches best; where cross-validation finds no best
        bandwidth (many tied scores), the normal-reference rule is used and
        ``check_bandwidth_rule`` says so.
    construction : {"centered", "tang2020"}
        The KDE's construction (see :func:`evpsim.fit_kde`); ``"tang2020"``
        is not clipped to the bounds, so it cannot check band methods.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        On stderr: before the simulations, a line saying what they are and
        their estimated time (from a timed pilot: the first searches of
        the first model); then a progress line naming the model, redrawn
        at least every 5 s.
    curve : str or Target
        The curve of the intervals checked, as in :func:`evpsim.curve`.
    stop : bool
        Stop simulating a model once every n's verdict is settled
        (:class:`Settled`); False simulates all ``replicates``.

    Returns
    -------
    xarray.Dataset
        Dims ``model``, ``estimator``, ``ci_method``, ``n`` (as in
        :func:`evpsim.curve`): ``check_coverage`` (of ``check_searches``
        (model) searches of ``check_resamples`` (model) resamples each) with
        Clopper-Pearson 95%
        bounds ``check_coverage_lower``/``check_coverage_upper`` (Monte
        Carlo error only, not the KDE's own error as a model of the
        truth), ``check_coverage_all`` (every n at once) and
        ``check_theta`` (model, n: the exact EVP of the fitted KDE;
        ``check_tau``, its exact quantile curve, for a quantile curve); with
        two or more models, ``check_wrong`` (pair, estimator, n) with
        bounds: the rate at which one search of each model, of the smaller
        B, ranks the pair opposite to the KDEs' exact curves. How each KDE
        fits its scores (model): coordinates ``check_bandwidth`` and
        ``check_bandwidth_rule``; ``check_lattice_step``: where the scores
        lie on a lattice (:func:`evpsim.io.lattice.find_lattice`), its step,
        to which the KDE's draws were snapped
        (:func:`evpsim.truths.kde.snap_kde`: a discrete truth on the
        lattice, its exact EVP that of the snapped draws), else NaN;
        ``check_fit_theta`` (model, fit_n: the
        KDE's theta at n = 1 and n = B) to set beside ``check_sample_mean``
        and ``check_best_observed``,
        ``check_best_quantile`` (the share of the KDE's searches of B
        trials whose best is at most the best observed: below
        :data:`FIT_TAIL` or above 1 minus it, the KDE's best of B is unlike
        yours), ``check_mass_dropped`` (KDE mass
        outside the bounds, dropped before renormalising; the part below
        their lower end in ``check_mass_dropped_below``) and
        ``check_unlike`` (True where :func:`fit_warnings` warns).

    Examples
    --------
    >>> import numpy as np, evpsim
    >>> x = np.random.default_rng(0).beta(8, 3, size=30)
    >>> ds = evpsim.self_check(x, replicates=50, resamples=200)
    >>> ds["check_coverage"].dims
    ('model', 'estimator', 'ci_method', 'n')
    >>> str(ds["check_bandwidth_rule"].item()), bool(ds["check_unlike"].item())
    ('cv', False)
    """
    run = _check_run(scores, labels=labels, estimators=estimators, ci_methods=ci_methods,
                     level=level, bounds=bounds, minimize=minimize, replicates=replicates,
                     resamples=resamples, seed=seed, bandwidth=bandwidth,
                     construction=construction, workers=workers, progress=progress,
                     curve=curve, stop=stop)
    models = run.models
    fits = [_on_lattice(_fit(run.sign * model.scores, run.bandwidth, run.construction,
                             run.flipped, k, model), run.sign * model.scores)
            for k, model in enumerate(models)]
    truths = [load_kde(fit) for fit in fits]
    parts, done = [], []
    for k, truth in enumerate(truths):
        cov = _model_coverage(run, k, truth, "lattice_step" in fits[k].attrs)
        done.append(int(cov.attrs["replicates"]))
        parts.append(_coverage_part(run, cov, truth, models[k].scores.size))
    ds = xr.concat(parts, dim="model", join="outer")
    ds["check_searches"] = ("model", done, {"long_name": "searches simulated (the run stops "
                                                         "once every verdict is settled)"})
    ds["check_resamples"] = ("model", run.sizes,
                             {"long_name": "resamples per simulated search"})
    ds = ds.assign_coords(
        model=[m.label for m in models],
        check_bandwidth=("model", [f.attrs["bandwidth"] for f in fits]),
        check_bandwidth_rule=("model", [f.attrs["bandwidth_rule"] for f in fits]),
        check_lattice_step=("model", [f.attrs.get("lattice_step", np.nan) for f in fits], {
            "long_name": "step of the lattice the KDE's draws were snapped to (NaN: none)"}))
    ds = ds.merge(_fit_diagnostics(models, truths, fits, run.sign))
    if len(models) > 1:
        ds = ds.merge(_ranking_errors(models, truths, run.estimators, run.replicates, seed,
                                      workers, run.progress, run.target), join="left")
    ds.attrs.update(_check_attrs(run))
    return ds


@dataclass(frozen=True)
class _CheckRun:
    """The checked arguments of :func:`self_check` and what they imply."""

    models: list
    kind: Target  # the curve asked for
    target: Target  # the same curve, larger being better
    sign: float  # -1.0 for losses: the scores times sign are larger-is-better
    estimators: object
    ci_methods: object
    level: float
    bandwidth: object
    construction: str
    bounds: tuple  # the metric's range, in the scores' own direction
    flipped: tuple  # the same, larger being better
    cut: bool  # the intervals know the range (not with bounds="none")
    replicates: int
    sizes: list  # resamples per simulated search of each model
    seed: int
    workers: int
    stop: bool
    progress: bool


def _check_run(scores, *, labels, estimators, ci_methods, level, bounds, minimize, replicates,
               resamples, seed, bandwidth, construction, workers, progress, curve, stop):
    """Check the arguments of :func:`self_check`, in the order its errors name them, and
    fill in the defaults that depend on the models (the interval :func:`evpsim.curve`
    would use, the metric's range, the resamples).

    Returns
    -------
    _CheckRun
    """
    models = as_models(scores, labels)
    minimize = check.boolean(minimize, "minimize")
    kind = as_target(curve)
    if ci_methods is None:
        ci_methods = curve_ci_method(kind, min(m.scores.size for m in models))[0]
    bandwidth, construction = kde_options(ci_methods, bandwidth, construction)
    # as in curve(): larger is better inside, so the Q-quantile of the lowest loss
    # is the (1 - Q)-quantile of the best negated loss
    target = Target("quantile", 1.0 - kind.q) if minimize and kind.kind == "quantile" \
        else kind
    if estimators is None:
        estimators = "V" if kind.kind == "mean" else "quantile"
    sign = -1.0 if minimize else 1.0
    every = np.concatenate([m.scores for m in models])
    cut = not (isinstance(bounds, str) and bounds == NO_BOUNDS)
    lo, hi = check.bounds(bounds, every.min(), every.max(), "every score") \
        if bounds is not None and cut else metric_range(every)
    flipped = (lo, hi) if sign > 0 else (-hi, -lo)
    replicates = check_replicates(replicates)
    stop, progress = check.boolean(stop, "stop"), check.boolean(progress, "progress")
    if resamples is not None:
        resamples = check.integer(resamples, "resamples", minimum=2)
    sizes = [check_resamples(m.scores.size, ci_methods) if resamples is None else resamples
             for m in models]
    workers = check.integer(workers, "workers", minimum=1, maximum=1024)
    for m, size in zip(models, sizes):  # the coverage runs' own checks, before any of them
        B = m.scores.size
        plan_intervals(estimators, ci_methods, target, B, np.arange(1, B + 1), level=level,
                       resamples=size, lstatistics_only=True).check_coverage_memory(workers)
    return _CheckRun(models, kind, target, sign, estimators, ci_methods, level, bandwidth,
                     construction, (lo, hi), flipped, cut, replicates, sizes, seed, workers,
                     stop, progress)


def check_arguments(scores, **options):
    """Check the arguments of :func:`self_check` (``options``, its keywords) as it does,
    without simulating anything: what fails here fails there, before any work.

    Raises
    ------
    evpsim.InvalidArgument
        Naming the argument, as :func:`self_check` would.
    """
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(self_check).parameters.items()
                if k != "scores"}
    _check_run(scores, **{**defaults, **options})


def _model_coverage(run, k, truth, on_lattice):
    """The coverage run of model k on its KDE ``truth``, with its progress line (the
    first model's announced by a timed pilot) and its stopping rule.

    The KDE's draws lie on its grid; where the model's scores lie on no lattice
    (``on_lattice`` false), a method that takes the lattice into account runs as it
    does on those scores (its ``off_lattice`` method), under its own name.

    Returns
    -------
    xarray.Dataset
        The result of :func:`evpsim.coverage`.
    """
    model = run.models[k]
    bar = False
    rule = Settled(run.replicates, run.level, early=run.stop)
    if run.progress:
        from ..engine.montecarlo import Progress

        bar = Progress(f"self-check {k + 1}/{len(run.models)}: {model.label}",
                       run.replicates * _jobs(run.ci_methods), tick=5.0, upto=run.stop,
                       delay=0.0)  # after the first model: at once
        if k == 0:
            rule = _Pilot(run.models, run.sizes, rule, run.construction, run.estimators,
                          run.ci_methods, run.workers, bar).rule(run.level, run.stop)
    methods = resolve_ci_methods(run.ci_methods)
    names = [m.name for m in methods]
    ran = names if on_lattice else [m.off_lattice or m.name for m in methods]
    cov = coverage(truth, model.scores.size, estimators=run.estimators,
                   ci_methods=list(dict.fromkeys(ran)), level=run.level,
                   replicates=run.replicates, resamples=run.sizes[k], seed=run.seed,
                   bounds=run.flipped if run.construction == "centered" and run.cut else None,
                   workers=run.workers, progress=bar, curve=run.target, stop=rule)
    return cov if ran == names else cov.sel(ci_method=ran).assign_coords(ci_method=names)


def _coverage_part(run, cov, truth, B):
    """One model's ``check_*`` variables from its coverage run on ``truth`` with
    searches of B, in the scores' own direction; the intervals' mean width beside the
    oracle interval's (:func:`evpsim.studies.oracle.oracle_widths`, from
    :data:`ORACLE_SEARCHES` searches)."""
    part = xr.Dataset({f"check_{v}": cov[v] for v in
                       ("coverage", "coverage_lower", "coverage_upper", "coverage_all")})
    part[f"check_{run.target.symbol}"] = run.sign * cov[run.target.symbol]
    oracle = oracle_widths(truth, B, list(cov["estimator"].values), cov["n"].values,
                           ORACLE_SEARCHES, run.seed, run.target, run.level)
    part["check_oracle_width"] = (("estimator", "n"), oracle, {
        "long_name": f"width of the oracle {run.level:g} interval on the KDE: quantiles of "
                     f"est - truth over {ORACLE_SEARCHES:,} searches"})
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = cov["mean_width"] / part["check_oracle_width"].where(
            part["check_oracle_width"] > 0)
    part["check_width_vs_oracle"] = ratio.assign_attrs(
        long_name="mean width of the intervals over the simulated searches relative to the "
                  "oracle interval's")
    return part.drop_vars([c for c in part.coords if c not in
                           ("estimator", "ci_method", "n", "ci_method_kind")])


def _check_attrs(run):
    """What was checked, and how: the ``check_*`` attributes."""
    rule = run.bandwidth if isinstance(run.bandwidth, str) else f"given ({run.bandwidth:g})"
    construction = run.construction
    return dict(check_curve=run.kind.name, check_replicates=run.replicates,
                check_stop=Settled(run.replicates, run.level, early=run.stop).describe(),
                check_seed=run.seed,
                check_bounds=list(run.bounds), check_level=run.level,
                check_construction=construction, check_bandwidth_asked=rule,
                check_truth=f"{construction} discretized Gaussian KDE of each model's "
                            f"scores ({rule} bandwidth)"
                            + (", clipped to the bounds" if construction == "centered"
                               else "")
                            + "; where a model's scores lie on a lattice, the KDE's draws "
                              "snapped to it (check_lattice_step)")


def check_replicates(value, name="replicates"):
    """The self-check's most searches per model, checked: 2 to :data:`MAX_REPLICATES`."""
    value = check.replicates(value, name)
    if value > MAX_REPLICATES:
        raise check.InvalidArgument(name, f"{name} must be at most {MAX_REPLICATES:,} (the "
                                          f"Monte Carlo error of a coverage near 95% is then "
                                          f"+-0.0004: more searches change no verdict), got "
                                          f"{value:,}")
    return value


def kde_options(ci_methods, bandwidth, construction):
    """The self-check's KDE options, checked: ``(bandwidth, construction)``.

    Callers that do other work first (the ``curve`` command) check them
    before it.
    """
    from ..truths.kde import CONSTRUCTIONS, RULES

    if isinstance(bandwidth, str):
        check.choice(bandwidth, "bandwidth", RULES)
    else:
        bandwidth = check.number(bandwidth, "bandwidth", low=0)
    construction = check.choice(construction, "construction", CONSTRUCTIONS)
    if construction == "tang2020" and ci_methods is not None:  # the default is no band
        bands = [m.name for m in resolve_ci_methods(ci_methods) if m.kind == "band"]
        if bands:
            raise check.InvalidArgument(
                "construction", f"construction 'tang2020' is not clipped to the metric's "
                                f"range, so it cannot check the band method(s) "
                                f"{', '.join(bands)}; use construction='centered'")
    return bandwidth, construction


def _fit(xs, bandwidth, construction, bounds, k, model):
    """The KDE of one model's scores; cv falls back to the rule where it finds no maximum."""
    options = dict(construction=construction, name=f"model-{k + 1}", model=model.label,
                   source=model.source or None,
                   bounds=bounds if construction == "centered" else None)
    if bandwidth == "cv":
        return fit_kde_cv(xs, **options)
    return fit_kde(xs, bandwidth=bandwidth, **options)


def _on_lattice(fit, xs):
    """The fit, its draws snapped to the lattice of the scores ``xs`` (larger is better)
    where they lie on one (:func:`evpsim.truths.kde.snap_kde`), else as it is."""
    lattice = find_lattice(xs)
    snapped = snap_kde(fit, xs, lattice) if lattice is not None else None
    return fit if snapped is None else snapped


def _fit_diagnostics(models, truths, fits, sign):
    """Per model: how the KDE's mean and best of B compare with the scores'."""
    mean, best, quantile, dropped, below, thetas = [], [], [], [], [], []
    for model, truth, fit in zip(models, truths, fits):
        xs = sign * model.scores
        support = fit["x"].values
        cdf = np.minimum(np.cumsum(fit["pmf"].values), 1.0)
        # on a lattice, the best observed is a support point up to rounding
        at = np.searchsorted(support, xs.max() + 0.5 * fit.attrs.get("lattice_step", 0.0),
                             side="right")
        quantile.append(float(cdf[at - 1] ** xs.size) if at > 0 else 0.0)
        mean.append(sign * float(xs.mean()))
        best.append(sign * float(xs.max()))
        dropped.append(float(fit.attrs["mass_outside_grid"]))
        below.append(mass_outside(fit, xs)[0 if sign > 0 else 1])
        thetas.append(sign * truth.theta([1, xs.size]))
    quantile, dropped = np.array(quantile), np.array(dropped)
    unlike = (quantile < FIT_TAIL) | (quantile > 1.0 - FIT_TAIL) | (dropped > FIT_DROPPED)
    return xr.Dataset({
        "check_fit_theta": (("model", "fit_n"), np.array(thetas), {
            "long_name": "exact EVP of the KDE at n = 1 and n = B"}),
        "check_sample_mean": ("model", mean, {"long_name": "mean of the scores"}),
        "check_best_observed": ("model", best, {"long_name": "best observed score"}),
        "check_best_quantile": ("model", quantile, {
            "long_name": "share of the KDE's searches of B trials whose best is at most the "
                         "best observed (in the direction of better scores)"}),
        "check_mass_dropped": ("model", dropped, {
            "long_name": "KDE mass outside the bounds or grid, dropped before renormalising"}),
        "check_mass_dropped_below": ("model", below, {
            "long_name": "the part of check_mass_dropped below the bounds' lower end"}),
        "check_unlike": ("model", unlike, {
            "long_name": f"the KDE is unlike the scores: best observed in a {FIT_TAIL:g} tail "
                         f"of the KDE's best of B, or over {FIT_DROPPED:.0%} of its mass "
                         f"dropped"})})


def fit_table(ds):
    """A table, a row per model, of how each KDE compares with its scores.

    Columns: the bandwidth and its rule; the KDE's theta_1 beside the
    scores' mean; its theta_B beside the best observed score and where
    that score falls in the KDE's distribution of the best of B
    (``check_best_quantile``, in a tail of :data:`FIT_TAIL`: unlike, as
    :func:`fit_warnings` says); the mass dropped outside the bounds.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`self_check` (or :func:`evpsim.curve` merged with
        one).

    Returns
    -------
    evpsim.report.tables.Table
    """
    from .._format import formatter, number
    from ..report.tables import Column, Table

    firsts, lasts = ds["check_fit_theta"].values.T
    means, bests = ds["check_sample_mean"].values, ds["check_best_observed"].values
    score = formatter(np.concatenate([firsts, lasts, means, bests]))
    cells = {"model": [str(m) for m in ds["model"].values],
             "bandwidth": [f"{number(h, 3)} ({r})" for h, r in
                           zip(ds["check_bandwidth"].values, ds["check_bandwidth_rule"].values)],
             "KDE theta_1": [score(v) for v in firsts], "mean": [score(v) for v in means],
             "KDE theta_B": [score(v) for v in lasts], "best observed": [score(v) for v in bests],
             "quantile": [_percent(q) for q in ds["check_best_quantile"].values],
             "mass dropped": [_percent(m) for m in ds["check_mass_dropped"].values]}
    # the bandwidth names its rule and the shares are percentages: text, for JSON
    columns = tuple(Column(h, tuple(c), numeric=h in ("KDE theta_1", "mean", "KDE theta_B",
                                                      "best observed"),
                           align="<" if h in ("model", "bandwidth") else ">")
                    for h, c in cells.items())
    return Table("fit", "each KDE beside the scores it was fitted to", columns, legend=(
        ("quantile", f"share of the KDE's searches of B trials whose best is at most the best "
                     f"observed; below {FIT_TAIL:.0%} or above {1 - FIT_TAIL:.0%}, unlike "
                     f"your search, and a warning says so"),))


def _percent(x):
    """A share as a percentage, never rounded to 0% or 100% when it is not."""
    if 0 < x < 0.001:
        return "<0.1%"
    if 0.999 < x < 1:
        return ">99.9%"
    return f"{x:.1%}"


def mass_lost(below, above, lo, hi):
    """Where a KDE clipped to ``[lo, hi]`` lost mass, in words.

    Parameters
    ----------
    below, above : float or None
        The mass lost below ``lo`` and above ``hi``; ``below`` None when
        the split is unknown (``above`` is then the whole). A side below
        :data:`MASS_SHOWN` goes unnamed when the other is not.
    lo, hi : float
        The metric's range.

    Examples
    --------
    >>> mass_lost(0.026, 0.00001, 0, 1)
    '2.6% of its mass fell below 0'
    >>> mass_lost(0.02, 0.004, 0, 1)
    '2.4% of its mass fell outside [0, 1] (2.0% below 0, 0.4% above 1)'
    """
    if below is None:
        return f"{_percent(above)} of its mass fell outside [{lo:g}, {hi:g}]"
    if min(below, above) >= MASS_SHOWN:
        return (f"{_percent(below + above)} of its mass fell outside [{lo:g}, {hi:g}] "
                f"({_percent(below)} below {lo:g}, {_percent(above)} above {hi:g})")
    return f"{_percent(below)} of its mass fell below {lo:g}" if below > above else \
        f"{_percent(above)} of its mass fell above {hi:g}"


def fit_warnings(ds):
    """Plain-language warnings where a model's KDE is unlike its scores.

    A KDE is unlike the scores when the best observed score lies in the
    outer 1% on either side of the KDE's own distribution of the best of B
    (a KDE whose upper tail runs far beyond the scores, or stops short of
    them), or when over 1% of its mass was lost at the metric's bounds
    (the kernels of scores piled up near a bound, such as failed trials
    counted at the worst score or runs at chance level, spill past it; the
    KDE, renormalised, then holds fewer scores there than the search). The
    coverage the self-check reports is then measured on searches unlike
    the user's.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`self_check`.

    Returns
    -------
    list of str
    """
    out = []
    if "check_unlike" not in ds:  # a self-check of an earlier version
        return out
    lo, hi = ds.attrs["check_bounds"]
    for model in ds["model"].values:
        s = ds.sel(model=model)
        if not bool(s["check_unlike"]):
            continue
        who = f"{model}: " if ds.sizes["model"] > 1 else ""
        q = float(s["check_best_quantile"])
        if q < FIT_TAIL or q > 1.0 - FIT_TAIL:
            why = (f"its best of B runs higher than yours: only {_percent(q)} of its searches "
                   f"have a best as low as your best observed" if q < FIT_TAIL else
                   f"its best of B runs lower than yours: {_percent(q)} of its searches have "
                   f"a best below your best observed")
            out.append(f"{who}the KDE the self-check simulates from is unlike your scores "
                       f"({why}), so the coverage reported for it may be off for your search")
        dropped = float(s["check_mass_dropped"])
        if dropped > FIT_DROPPED:
            # a self-check of an earlier version did not split the mass by side
            below = float(s["check_mass_dropped_below"]) if "check_mass_dropped_below" in s \
                else None
            above = dropped if below is None else dropped - below
            out.append(f"{who}the KDE the self-check simulates from lost mass at the bounds: "
                       f"{mass_lost(below, above, lo, hi)}, spilled by scores piled "
                       f"up near the bound (such as failed trials counted at the worst score, "
                       f"or runs at chance level); renormalised, it holds fewer scores there "
                       f"than your search, so the coverage reported for it may be off")
    return out


def _ranking_errors(models, truths, estimators, replicates, seed, workers, progress, target):
    pairs = list(combinations(range(len(models)), 2))
    rows = []
    for a, b in pairs:
        B = min(models[a].scores.size, models[b].scores.size)
        cmp = compare_curves(truths[a], truths[b], B, estimators=estimators,
                             replicates=replicates, seed=seed, workers=workers,
                             progress=progress, curve=target)
        rows.append(xr.Dataset({f"check_{v}": cmp[v] for v in
                                ("wrong", "wrong_lower", "wrong_upper")})
                    .drop_vars([c for c in cmp.coords if c not in ("estimator", "n")]))
    return xr.concat(rows, dim="pair", join="outer").assign_coords(
        model_a=("pair", [models[a].label for a, _ in pairs]),
        model_b=("pair", [models[b].label for _, b in pairs]))


def check_warnings(ds, shortfall=SHORTFALL):
    """Plain-language warnings: KDEs unlike the scores, coverage that fell short, and
    intervals far wider than they need be.

    The lines of :func:`fit_warnings`, then those of :func:`coverage_warnings` and of
    :func:`width_warnings`.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`self_check` (or :func:`evpsim.curve` merged with
        one).
    shortfall : float
        Tolerated shortfall below the level.

    Returns
    -------
    list of str
    """
    return (fit_warnings(_checked(ds)) + coverage_warnings(ds, shortfall)
            + width_warnings(ds))


def _checked(ds):
    """``ds``, if it is a result of :func:`self_check`."""
    if not isinstance(ds, xr.Dataset) or "check_coverage" not in ds \
            or "check_level" not in ds.attrs:
        raise check.InvalidType("ds", f"ds must be a result of evpsim.self_check, got "
                                      f"{type(ds).__name__}"
                                      + (" without check_coverage"
                                         if isinstance(ds, xr.Dataset) else ""))
    return ds


def coverage_warnings(ds, shortfall=SHORTFALL):
    """Plain-language warnings where the self-check's coverage fell short.

    One line per model, estimator and CI method whose coverage fell more
    than ``shortfall`` below the level at some n, naming those n and the
    lowest coverage with its Clopper-Pearson bounds.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`self_check` (or :func:`evpsim.curve` merged with
        one).
    shortfall : float
        Tolerated shortfall below the level.

    Returns
    -------
    list of str
    """
    _checked(ds)
    shortfall = check.number(shortfall, "shortfall", low=0, high=1, open_low=False)
    level = float(ds.attrs["check_level"])
    out = []
    for model in ds["model"].values:
        M = int(ds["check_searches"].sel(model=model)) if "check_searches" in ds \
            else int(ds.attrs["check_replicates"])
        for est in ds["estimator"].values:
            for meth in ds["ci_method"].values:
                sub = ds.sel(model=model, estimator=est, ci_method=meth)
                cov = sub["check_coverage"].values
                bad = np.flatnonzero(cov < level - shortfall)
                if bad.size == 0:
                    continue
                worst = bad[np.argmin(cov[bad])]
                ns = sub["n"].values[bad]
                last = sub["n"].values[np.isfinite(cov)][-1]
                if ns[-1] == last and ns.size == last - ns[0] + 1:
                    where = "every n" if ns[0] == 1 else f"n >= {ns[0]}"
                else:
                    where = f"n = {spans(ns)}"
                who = f"{model}: " if ds.sizes["model"] > 1 else ""
                kind = f"{meth} band" if str(sub["ci_method_kind"].values) == "band" \
                    else f"{meth} bootstrap of {est}"
                # one n short: it is the lowest; else say where the lowest is
                lowest = "" if ns.size == 1 else f", the fewest at n = {int(sub['n'][worst])}"
                out.append(
                    f"{who}at {where}, {level:.0%} intervals built this way ({kind}) covered the "
                    f"truth in {'only' if ns.size == 1 else 'as few as'} {cov[worst]:.0%} "
                    f"[{float(sub['check_coverage_lower'][worst]):.0%}, "
                    f"{float(sub['check_coverage_upper'][worst]):.0%}] of {M:,} simulated "
                    f"searches from a distribution like yours{lowest}")
    return out


def width_warnings(ds, wide=WIDE):
    """Plain-language warnings where the self-check's intervals were far wider than the
    oracle interval.

    One line per model, estimator and CI method whose mean width over the
    simulated searches was more than ``wide`` times the oracle interval's
    (the width an interval that knew the estimator's true law would have) at
    some n, naming those n and the widest.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`self_check` (or :func:`evpsim.curve` merged with
        one); one without ``check_width_vs_oracle`` (an earlier version's)
        has no such lines.
    wide : float
        The ratio beyond which to warn.

    Returns
    -------
    list of str
    """
    _checked(ds)
    if "check_width_vs_oracle" not in ds:
        return []
    out = []
    for model in ds["model"].values:
        for est in ds["estimator"].values:
            for meth in ds["ci_method"].values:
                ratio = ds["check_width_vs_oracle"].sel(model=model, estimator=est,
                                                        ci_method=meth)
                values = ratio.values
                bad = np.flatnonzero(values > wide)
                if bad.size == 0:
                    continue
                worst = bad[np.argmax(values[bad])]
                who = f"{model}: " if ds.sizes["model"] > 1 else ""
                # one n too wide: it is the widest; else say where the widest is
                widest = "" if bad.size == 1 else f" (the widest at n = {int(ratio['n'][worst])})"
                out.append(f"{who}at n = {spans(ratio['n'].values[bad])}, {meth} intervals of "
                           f"{est} were on average {'' if bad.size == 1 else 'up to '}"
                           f"{values[worst]:.1f} times as wide as the oracle interval{widest}, "
                           f"which knows the estimator's true spread on a distribution like "
                           f"yours")
    return out
