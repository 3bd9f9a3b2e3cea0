"""The coverage battery: do intervals for theta_n contain it?

Tang et al. (2020, section 4.2-4.3, Fig. 4) drew M = 1000 samples of size
B = 50 from a ground truth, built 95% percentile-bootstrap intervals for
the expected maximum theta_n from R = 5000 resamples, and found empirical
coverage falling to about 0.7 by n = 20. :func:`coverage` repeats that for
every n, every estimator and every CI method of :mod:`evpsim.intervals` in
one pass (:func:`evpsim.bootstrap_intervals` gives the same intervals for
a researcher's own scores).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .. import _validate as check
from ..engine.montecarlo import MonteCarlo, Progress, run, run_looks
from ..engine.summaries import add_rate
from ..estimators.targets import as_target
from ..intervals.family import TALLY, plan_intervals
from ..io.results import provenance
from ..truths.distributions import make_truth

__all__ = ["coverage", "COVERAGE_CHUNK", "CP_LEVEL"]

#: samples per chunk: each does R resamples, so far fewer than the bias battery's
COVERAGE_CHUNK = 8
#: level of the Clopper-Pearson bounds on every coverage rate
CP_LEVEL = 0.95


def coverage(truth="normal", B=50, *, estimators=None, ci_methods=None, level=0.95,
             replicates=1000, resamples=5000, seed=0, bounds=None, ns=None, curve="mean",
             workers=1, progress=False, chunk_size=COVERAGE_CHUNK, stop=None):
    """Coverage of confidence intervals for theta_n, for every n, estimator and method.

    For each of ``replicates`` samples of size B from the truth, every
    bootstrap method builds a two-sided interval at ``level`` for every
    budget n = 1..B from ``resamples`` bootstrap resamples of each
    estimator, every band method builds one from the sample alone, and each
    is checked against the exact theta_n.

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.truths.make_truth`).
    B : int
        Size of each sample (trials per search), at least 2.
    estimators : str or sequence, optional
        L-statistic estimators (default U, V, W for the mean curve,
        ``quantile`` for a quantile curve).
    ci_methods : str or sequence, optional
        CI methods (default every registered one but the slow resampling
        methods, which run when named; see :func:`evpsim.list_ci_methods`).
    level : float
        Two-sided confidence level of the intervals, in (0, 1).
    replicates : int
        M, the number of samples.
    resamples : int
        R, bootstrap resamples per sample (at least 2).
    seed : int
        Seed; sample ``i`` and its resamples use the random stream
        ``(seed, i)``, whatever the truth and B: runs at one seed on
        different truths draw from the same random numbers, so their
        coverages are correlated (give each truth its own seed to compare
        truths as independent experiments); every estimator and CI method
        sees the same samples, so comparisons between them are paired.
    bounds : (float, float), optional
        Known range of the scores for band methods, to which the
        resampling methods' intervals are also cut; it must contain the
        truth's support, which is the default.
    ns : sequence of int, optional
        The budgets to compute (default 1..B; beyond B for estimators that
        extrapolate, where band methods bound the curve too). The samples
        and resamples are those of the full run, so each budget's counts
        are its counts there. Fewer budgets save the estimates and
        quantiles of the others, not the resampling.
    curve : str or Target
        The curve the intervals are for: ``"mean"`` (theta_n), ``"median"``
        or ``"quantile:Q"`` (tau_Q(n), the band methods bounding it through
        the quantiles of their CDF bounds); see :mod:`evpsim.estimators.targets`.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool or Progress
        Show a progress line on stderr for runs longer than ~1.5 s (or
        report to this :class:`~evpsim.engine.montecarlo.Progress`, in samples per
        job).
    chunk_size : int
        Samples per chunk. Counts do not depend on it; width sums may move
        in the last bit.
    stop : object, optional
        Stop early: ``stop.looks`` holds sample counts (multiples of
        ``chunk_size``) at which ``stop(hits, m)`` is called with the
        covered counts (estimator, ci_method, n) of the first ``m``
        samples; True ends the run there, and the result is then that of
        ``replicates=m`` (see :func:`evpsim.engine.montecarlo.run_looks`).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator``, ``ci_method``, ``n``, with

        * ``coverage``: fraction of samples whose interval contains theta_n,
          with Clopper-Pearson 95% bounds ``coverage_lower`` and
          ``coverage_upper``;
        * ``miss_below`` / ``miss_above``: fraction of intervals lying
          entirely below / above theta_n;
        * ``undefined``: fraction of intervals that could not be formed
          (BCa when the jackknife estimates are all equal or every
          bootstrap estimate lies on one side of the estimate, as in
          ``scipy.stats.bootstrap``; ``gpd-tail`` when a sample's best
          scores are tied, leaving no tail to fit); such a sample counts
          as not covered, at that n and in ``coverage_all``; the four
          fractions sum to one;
        * ``mean_width``: mean width of the defined intervals;
        * ``coverage_all`` (estimator, ci_method): fraction of samples whose
          intervals contain theta_n for every n computed at once;
        * ``theta`` (n): the exact expected maximum, or ``tau`` (n) the
          exact quantile curve, as scalar coordinate ``curve`` says.

        Band methods do not use the estimator: their rows are the same for
        every estimator. Coordinate ``ci_method_kind`` says which is which.
        Scalar coordinates ``truth``, ``truth_description``, ``truth_lo``,
        ``truth_hi``, ``B`` and the band methods' score range ``bounds_lo``,
        ``bounds_hi`` (NaN without band methods) identify the run, so
        results of several truths or sizes combine with
        ``xr.concat(results, dim="truth", coords="different")``.

    Raises
    ------
    ValueError
        For B < 2, a level outside (0, 1), resamples < 2, unknown or
        repeated estimator or CI method names, a general (non-L-statistic)
        estimator, bounds that do not contain the truth's support, or a
        request whose bootstrap arrays do not fit in memory.

    Notes
    -----
    Each resample is a vector of multinomial counts over the sorted sample,
    and every budget of every estimator is read off a table of cumulative
    weights (see :mod:`evpsim._kernels.resamples`), so estimators must be
    L-statistics; general ones are rejected.

    BCa's acceleration comes from the jackknife of each budget's estimator
    on the B samples of size B - 1; at n = B it uses budget B - 1 (the
    largest a sample of size B - 1 supports for U). As in
    ``scipy.stats.bootstrap``, BCa intervals are undefined (NaN) when the
    jackknife estimates are all equal, e.g. U at n = B with a tied maximum.

    Band methods hold for every n at once and for every distribution with
    the given range, so per n they are conservative, often covering in
    every sample, and wide: nothing in a sample excludes mass between its
    maximum and the upper bound.

    Resampling methods draw R resamples of their own from each sample (the
    m-out-of-n bootstrap splits them over its resample sizes), from
    streams derived from the replicate's; see
    :mod:`evpsim._kernels.resampling`.

    A user's bootstrap method is compiled into its own kernel on first use
    in each process (about 5 s); built-in methods are cached.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.coverage("normal", B=10, estimators="V", ci_methods="percentile,dkw",
    ...                      replicates=40, resamples=200)
    >>> sorted(ds["coverage"].dims)
    ['ci_method', 'estimator', 'n']
    >>> bool((ds["coverage"].sel(ci_method="dkw") >= 0.9).all())
    True
    """
    truth = make_truth(truth)
    B = check.B(B)
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    target = as_target(curve)
    ns = np.arange(1, B + 1) if ns is None else np.unique(check.ns(ns, np.inf))
    plan = plan_intervals(estimators, ci_methods, target, B, ns, level=level,
                          resamples=resamples, lstatistics_only=True)
    lo, hi = check.bounds(bounds, truth.lo, truth.hi, "the truth's support")
    bar = progress if isinstance(progress, Progress) else None
    options = MonteCarlo(replicates, seed, chunk_size, workers, bar is not None or progress)
    plan.check_coverage_memory(options.workers)
    theta = target.exact(truth, ns)
    jobs, rows = plan.coverage_jobs(truth.sampler, theta, (lo, hi))
    bands = plan.methods_of_kinds("needs_bounds")
    coords = {**plan.coords(), **truth.coords(), "B": B, **_ranges((lo, hi) if bands else None),
              "curve": target.name}
    tallies, options = _tally(jobs, rows, (len(plan.methods), len(plan.ests), ns.size + 1),
                              options, stop, bar, f"coverage ({options.replicates:,} samples "
                                                  f"of B={B}, {resamples:,} resamples)")
    return _dataset(tallies, theta, plan.setup, plan.methods, coords, options)


def _tally(jobs, rows, shape, options, stop, bar, label):
    """Run the coverage jobs: their tallies in the methods' order, and the options of
    the samples run (fewer than asked for when ``stop`` ends the run early).

    Parameters
    ----------
    jobs, rows : list
        The jobs, and each job's method indices (:meth:`IntervalPlan.coverage_jobs
        <evpsim.intervals.family.IntervalPlan.coverage_jobs>`).
    shape : (int, int, int)
        Methods, estimators and budgets + 1 of the tallies.
    options : MonteCarlo
        The run's options.
    stop : object or None
        See :func:`coverage`.
    bar : Progress or None
        A progress line to report to.
    label : str
        What the progress line says.

    Returns
    -------
    tallies : (M, E, N + 1, slots) array
    options : MonteCarlo
    """
    def gather(parts):
        tallies = np.zeros((*shape, TALLY["slots"]))
        for idx, part in zip(rows, parts):
            tallies[idx] = part  # band tallies (E = 1) broadcast over the estimators
        return tallies

    if stop is None and bar is None:
        return gather(run(jobs, options, label)), options
    N = shape[2] - 1
    parts, done = run_looks(
        jobs, options, stop.looks if stop is not None else (),
        lambda sums, m: stop(np.moveaxis(gather(sums)[:, :, :N, TALLY["hit"]], 0, 1), m),
        bar=bar)
    return gather(parts), options.with_replicates(done)


def _ranges(bounds):
    """Scalar coordinates of the band methods' score range (NaN without band methods):
    a coordinate like the truth's, it survives ``xr.concat``."""
    nan = float("nan")
    return {"bounds_lo": ((), bounds[0] if bounds else nan, {"long_name": "score range "
                                                              "of the band methods, lower"}),
            "bounds_hi": ((), bounds[1] if bounds else nan, {"long_name": "score range "
                                                              "of the band methods, upper"})}


def _dataset(tallies, theta, setup, meths, coords, options):
    """Rates with Clopper-Pearson bounds from the (M, E, N + 1, 4) tallies.

    Parameters
    ----------
    tallies : (M, E, N + 1, 4) array
        Counts of the intervals covering, below and above, and width sums,
        at every budget and (last) at every budget at once.
    theta : (N,) array
        The exact curve.
    setup : Setup
        The estimators, curve, budgets, level and resamples.
    meths : list of CIMethod
        The methods.
    coords : dict
        The dataset's coordinates.
    options : MonteCarlo
        The run's options (the samples run).

    Returns
    -------
    xarray.Dataset
    """
    ests, level, target = setup.ests, setup.level, setup.target
    Mrep = options.replicates
    N = setup.ns.size
    per_n = np.moveaxis(tallies[:, :, :N, :], 0, 1)  # (E, M, N, 4)
    hits = per_n[..., TALLY["hit"]]
    below, above = per_n[..., TALLY["below"]], per_n[..., TALLY["above"]]
    defined = hits + below + above
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_width = np.where(defined > 0, per_n[..., TALLY["width"]] / defined, np.nan)
    dims = ("estimator", "ci_method", "n")
    ds = xr.Dataset(coords=coords)
    sym = target.symbol
    ds[sym] = ("n", theta, {"long_name": f"exact {target.description}"})
    add_rate(ds, "coverage", hits.astype(np.int64), Mrep, CP_LEVEL, dims,
             f"{level:g} intervals containing {sym}_n")
    ds["miss_below"] = (dims, below / Mrep,
                        {"long_name": f"fraction of intervals entirely below {sym}_n"})
    ds["miss_above"] = (dims, above / Mrep,
                        {"long_name": f"fraction of intervals entirely above {sym}_n"})
    ds["undefined"] = (dims, 1.0 - defined / Mrep,
                       {"long_name": "fraction of intervals that could not be formed (NaN)"})
    ds["mean_width"] = (dims, mean_width, {"long_name": "mean width of the defined intervals"})
    ds["coverage_all"] = (("estimator", "ci_method"), tallies[:, :, N, TALLY["hit"]].T / Mrep,
                          {"long_name": "fraction of samples covered at every n computed "
                                        "at once"})
    ds.attrs.update(provenance(
        experiment="coverage", estimators=[e.name for e in ests], curve=target.name,
        ci_methods=[m.name for m in meths], level=level, replicates=Mrep,
        resamples=setup.resamples, seed=options.seed, chunk_size=options.chunk_size,
        workers=options.workers, coverage_ci_level=CP_LEVEL))
    return ds
