"""False conclusion probing (Tang et al. 2020, §4.2 and Fig. 3).

For each budget n the battery measures how often an estimator falls below
the true expected maximum ``theta_n``: an estimator unbiased in sign sits
near one half, a negatively biased one well above it. Ties
(``est == theta_n`` to within :data:`TIE_RTOL` of the truth's scale) are
counted separately; every rate carries a Clopper-Pearson interval.

The truth is exact by default. ``truth_method="mc"`` replaces it by a
Monte Carlo estimate from many simulated maxima, as Tang et al. (2020) and
Dodge et al. (2021) did, so the two can be compared
(:func:`monte_carlo_theta`).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ._kernels import comparisons as K
from .bias import summarise_power_sums, validate_B
from .estimators import resolve_estimators
from .intervals import clopper_pearson
from .montecarlo import CHUNK_SIZE, ChunkKernel, ChunkPlan, Progress, run_chunked
from .results import provenance
from .truths import make_truth

__all__ = ["falseconc", "monte_carlo_theta", "TIE_RTOL"]

TIE_RTOL = 1e-12
TRUTH_METHODS = ("exact", "mc")


def tie_tolerance(*truths):
    """Absolute tolerance under which two values count as tied.

    ``TIE_RTOL`` times the largest magnitude in the truths' supports: far
    above the rounding error of an estimate, far below any real difference
    between two scores.
    """
    return TIE_RTOL * max(max(abs(t.lo), abs(t.hi)) for t in truths)


def replicate_stream(B):
    """First random stream of the replicates of searches of size ``B``.

    Runs for different B use disjoint streams, and the same B gives the same
    samples in :func:`falseconc`, :func:`evpsim.compare_curves` and
    :func:`evpsim.comparison_errors`.
    """
    return int(B) << 32


def estimator_jobs(ests, B, ns):
    """Group estimate rows into kernel calls.

    Returns a list of ``(estimator indices, wts, func, row_ns)``: one call for
    all L-statistics (``wts`` their weight rows for budgets ``ns``,
    transposed to (B, R)), one per general estimator (``func``). Rows run
    over the estimators of a call, then over ``ns``.
    """
    jobs = []
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    if lstats:
        ws = np.concatenate([ests[k].weight_matrix(B)[ns - 1] for k in lstats])
        jobs.append((lstats, np.ascontiguousarray(ws.T), None, np.tile(ns, len(lstats))))
    for k, e in enumerate(ests):
        if not e.is_lstatistic:
            jobs.append(([k], np.zeros((1, 1)), e.func, ns.copy()))
    return jobs


def validate_mc_args(replicates, seed, chunk_size, truth_method, truth_replicates, level):
    """Shared checks of the Monte Carlo arguments; returns the ChunkPlan."""
    if truth_method not in TRUTH_METHODS:
        raise ValueError(f"truth_method must be one of {TRUTH_METHODS}, got {truth_method!r}")
    if isinstance(truth_replicates, bool) or not isinstance(truth_replicates, (int, np.integer)) \
            or truth_replicates < 2:
        raise ValueError(f"truth_replicates must be an integer >= 2, got {truth_replicates!r}")
    if not isinstance(level, (float, int)) or not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    return ChunkPlan(replicates, seed, chunk_size)


def monte_carlo_theta(truth, B, *, replicates=1_000_000, seed=0, stream=0, workers=1,
                      chunk_size=CHUNK_SIZE):
    """Monte Carlo estimate of ``theta_n`` for n = 1..B, with standard errors.

    Each replicate draws B scores i.i.d. from the truth; the running maximum
    of the first n is a draw of the maximum of n, so one pass serves every n
    (as Dodge et al. 2021 §3.1 averaged maxima of simulated draws).

    Parameters
    ----------
    truth : str or Truth
        Ground truth (:func:`evpsim.make_truth`).
    B : int
        Largest budget (at least 1).
    replicates : int
        Simulated sequences of B draws (at least 2).
    seed : int
        Seed.
    stream : int
        Index of this run among the Monte Carlo truths of one seed
        (0..1023); different indices give independent estimates.
    workers : int
        Worker processes; the result does not depend on it.
    chunk_size : int
        Replicates per chunk.

    Returns
    -------
    theta, se : ndarray of shape (B,)
        Estimates and their standard errors.

    Examples
    --------
    >>> import evpsim
    >>> theta, se = evpsim.monte_carlo_theta("normal", 5, replicates=20_000)
    >>> bool(abs(theta - evpsim.make_truth("normal").theta(range(1, 6))).max() < 5 * se.max())
    True
    """
    truth = make_truth(truth)
    B = validate_B(B, minimum=1)
    if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)) \
            or not 0 <= stream < 1024:
        raise ValueError(f"stream must be an integer in 0..1023, got {stream!r}")
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) \
            or replicates < 2:
        raise ValueError(f"replicates must be an integer >= 2, got {replicates!r}")
    plan = ChunkPlan(int(replicates), int(seed), int(chunk_size))
    centers = truth.theta(np.arange(1, B + 1))  # accumulate around it: no cancellation
    kern = ChunkKernel(K.running_max_chunks, plan, (B, *truth.sampler, centers),
                       stream=K.STREAM_TRUTH + (int(stream) << 40))
    summ = summarise_power_sums(run_chunked(kern, plan, workers=workers), plan.replicates)
    return centers + summ["bias"], summ["bias_se"]


def falseconc(truth="normal", B=50, *, estimators=None, replicates=200_000, seed=0,
              truth_method="exact", truth_replicates=1_000_000, level=0.95, workers=1,
              progress=False, chunk_size=CHUNK_SIZE):
    """False conclusion probing: how often each estimate falls below the truth.

    Tang et al. (2020, §4.2, Fig. 3): for n = 1..B, the fraction of
    simulated searches of B trials whose estimate is below ``theta_n``.

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.make_truth`).
    B : int
        Trials per simulated search (at least 2).
    estimators : str or sequence, optional
        Estimator names (default the built-ins U, V, W).
    replicates : int
        Simulated searches (the default gives Clopper-Pearson intervals
        about ±0.002 wide around one half).
    seed : int
        Seed of the run.
    truth_method : {"exact", "mc"}
        Compare with the exact ``theta_n``, or with a Monte Carlo estimate
        from ``truth_replicates`` simulated maxima (Tang et al. used
        1,000,000).
    truth_replicates : int
        Replicates of the Monte Carlo truth.
    level : float
        Level of the Clopper-Pearson intervals.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.
    chunk_size : int
        Replicates per chunk (part of what a seed means).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``n``. Rates ``below`` (``est < theta``, to
        within the tie tolerance) with Clopper-Pearson bounds
        ``below_lower``, ``below_upper``; ``tie`` (``|est - theta| <= tol``)
        and ``above``, each with bounds; integer counts ``below_count``,
        ``tie_count``, ``above_count``; ``theta`` (n), the truth compared
        with; with ``truth_method="mc"`` also ``theta_se`` and the exact
        ``exact_theta``. Attribute ``tie_tolerance`` holds ``tol``.

    References
    ----------
    .. [1] R. Tang, J. Lee, J. Xin, X. Liu, Y. Yu and J. Lin, "Showing Your Work
           Doesn't Always Work", ACL 2020, §4.2 and Figs. 1-3.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.falseconc("normal", B=10, replicates=20_000)
    >>> bool(ds["below"].sel(estimator="V", n=10) > ds["below"].sel(estimator="U", n=10))
    True
    """
    truth = make_truth(truth)
    B = validate_B(B)
    ests = resolve_estimators(estimators)
    plan = validate_mc_args(replicates, seed, chunk_size, truth_method, truth_replicates, level)
    ns = np.arange(1, B + 1)
    exact_theta = truth.theta(ns)
    theta, theta_se = exact_theta, None
    if truth_method == "mc":
        theta, theta_se = monte_carlo_theta(truth, B, replicates=truth_replicates, seed=seed,
                                            workers=workers, chunk_size=chunk_size)
    tol = tie_tolerance(truth)
    jobs = estimator_jobs(ests, B, ns)
    counts = np.empty((len(ests), B, 2), dtype=np.int64)
    bar = Progress(f"false conclusions ({plan.replicates:,} searches of B={B})",
                   plan.replicates * len(jobs), enabled=progress)
    for j, (rows, wts, func, row_ns) in enumerate(jobs):
        kern = ChunkKernel(K.sign_counts_chunks, plan,
                           (B, *truth.sampler, wts, func, row_ns, np.tile(theta, len(rows)), tol),
                           stream=replicate_stream(B))
        part = run_chunked(kern, plan, workers=workers,
                           progress=lambda done, o=j * plan.replicates: bar.update(o + done))
        counts[rows] = part.reshape(len(rows), B, 2)
    bar.close()
    names = [e.name for e in ests]
    ds = xr.Dataset(coords={"estimator": names, "n": ns})
    ds["theta"] = ("n", theta, {"long_name": "expected maximum of n draws compared with "
                                             f"({truth_method})"})
    if theta_se is not None:
        ds["theta_se"] = ("n", theta_se, {"long_name": "Monte Carlo standard error of theta"})
        ds["exact_theta"] = ("n", exact_theta, {"long_name": "exact expected maximum of n draws"})
    M = plan.replicates
    below, tie = counts[..., 0], counts[..., 1]
    dims = ("estimator", "n")
    for key, k, what in (("below", below, "estimate < theta"), ("tie", tie, "estimate == theta"),
                         ("above", M - below - tie, "estimate > theta")):
        lo, hi = clopper_pearson(k, M, level)
        ds[key] = (dims, k / M, {"long_name": f"rate of {what}"})
        ds[f"{key}_lower"] = (dims, lo, {"long_name": f"Clopper-Pearson {level:g} lower bound"})
        ds[f"{key}_upper"] = (dims, hi, {"long_name": f"Clopper-Pearson {level:g} upper bound"})
        ds[f"{key}_count"] = (dims, k, {"long_name": f"searches with {what}"})
    ds.attrs.update(provenance(
        experiment="falseconc", B=B, estimators=names, seed=int(seed), replicates=M,
        chunk_size=plan.chunk_size, workers=int(workers), level=float(level),
        truth_method=truth_method,
        truth_replicates=int(truth_replicates) if truth_method == "mc" else 0,
        tie_tolerance=tol, **truth.attrs()))
    return ds
