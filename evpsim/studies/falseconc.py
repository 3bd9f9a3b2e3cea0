"""False conclusion probing (Tang et al. 2020, §4.2 and Fig. 3).

For each budget n the battery measures how often an estimator falls below
the true expected maximum ``theta_n``: an estimator unbiased in sign sits
near one half, a negatively biased one well above it. Ties (``est ==
theta_n`` to within :data:`evpsim.truths.distributions.TIE_RTOL` of the truth's scale)
are counted separately; every rate carries a Clopper-Pearson interval.

The truth is exact by default. ``truth_method="mc"`` replaces it by a
Monte Carlo estimate from many simulated maxima, as Tang et al. (2020) and
Dodge et al. (2021) did, so the two can be compared
(:func:`evpsim.monte_carlo_theta`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import xarray as xr

from .. import _validate as check
from .._kernels import comparisons as K
from ..engine.montecarlo import CHUNK_SIZE, Job, MonteCarlo, run
from ..engine.streams import search_streams, truth_streams
from ..engine.summaries import add_rate
from ..estimators.family import Context, check_rows_memory, estimate_rows, estimators_at
from ..estimators.pyrun import PythonJob, SignCounts, search_counts
from ..estimators.targets import as_target
from ..io.results import provenance
from ..truths.distributions import make_truth, tie_tolerance
from ..truths.mctheta import TRUTH_METHODS, theta_by_simulation

__all__ = ["falseconc", "falseconc_against"]


def falseconc(truth="normal", B=50, *, estimators=None, curve="mean", ns=None,
              replicates=200_000, seed=0, truth_method="exact", truth_replicates=1_000_000,
              level=0.95, workers=1, progress=False, chunk_size=CHUNK_SIZE,
              python_replicates=None, bounds=None):
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
        Estimator names (default U, V, W for the mean curve, ``quantile``
        for a quantile curve).
    curve : str or Target
        The curve compared with: ``"mean"`` (theta_n), ``"median"`` or
        ``"quantile:Q"`` (tau_Q(n)); see :mod:`evpsim.estimators.targets`. An estimator
        median-unbiased for it sits near one half.
    ns : sequence of int, optional
        Budgets (default 1..B); beyond B for estimators that extrapolate.
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
    python_replicates : int, optional
        Searches for estimators written in Python (see
        :func:`evpsim.bias`).
    bounds : (float, float), optional
        The metric's known range, for estimators that use it (``kde``).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``n``; scalar coordinates ``truth``,
        ``truth_description``, ``truth_lo``, ``truth_hi`` and ``B``. Rates
        ``below`` (``est < theta``, to within the tie tolerance) with
        Clopper-Pearson bounds ``below_lower``, ``below_upper``; ``tie`` (``|est - theta| <= tol``)
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
    return falseconc_against(truth, B, (truth_method,), estimators=estimators, curve=curve,
                             ns=ns, replicates=replicates, seed=seed,
                             truth_replicates=truth_replicates, level=level, workers=workers,
                             progress=progress, chunk_size=chunk_size,
                             python_replicates=python_replicates, bounds=bounds)[0]


def falseconc_against(truth, B, truth_methods, *, estimators=None, curve="mean", ns=None,
                      replicates=200_000, seed=0, truth_replicates=1_000_000, level=0.95,
                      workers=1, progress=False, chunk_size=CHUNK_SIZE,
                      python_replicates=None, bounds=None):
    """:func:`falseconc` against several truths, from the same searches.

    One pass over the simulated searches compares every estimate with the
    truth of each method in ``truth_methods``, so that the rates differ by
    the truth alone (Tang et al.'s Monte Carlo truth beside the exact one)
    and the searches are drawn once.

    Parameters
    ----------
    truth_methods : sequence of {"exact", "mc"}
        The truths to compare with, one result each.
    truth, B, estimators, curve, ns, replicates, seed, truth_replicates, level, workers,
    progress, chunk_size, python_replicates, bounds
        As for :func:`falseconc`.

    Returns
    -------
    list of xarray.Dataset
        What :func:`falseconc` returns with each truth method, in order.
    """
    truth = make_truth(truth)
    B = check.B(B)
    target = as_target(curve)
    ests, ns = estimators_at(estimators, target, B, ns)
    check_rows_memory(ests, B, ns.size)
    methods = [check.choice(m, "truth_method", TRUTH_METHODS) for m in truth_methods]
    if "mc" in methods and target.kind != "mean":
        raise check.InvalidArgument("truth_method", "truth_method: 'mc' simulates the mean "
                                                    "curve; a quantile curve is compared with "
                                                    "its exact values")
    truth_replicates = check.replicates(truth_replicates, "truth_replicates")
    level = check.level(level)
    options = MonteCarlo(replicates, seed, chunk_size, workers, progress)
    counts_of = search_counts(ests, replicates, python_replicates)
    if bounds is not None:
        bounds = check.bounds(bounds, truth.lo, truth.hi, "the truth's support")
    exact_theta = target.exact(truth, ns)
    thetas, ses = _truths(truth, ns, methods, exact_theta, options, truth_replicates)
    tol = tie_tolerance(truth)
    counts = _sign_counts(truth, B, target, ests, ns, thetas, tol, options, counts_of, bounds)
    return [_dataset(truth, B, target, ests, ns, counts_of, counts[..., [2 * s, 2 * s + 1, -1]],
                     method, thetas[s], ses[s], exact_theta, level, options, truth_replicates,
                     tol)
            for s, method in enumerate(methods)]


def _truths(truth, ns, methods, exact_theta, options, truth_replicates):
    """The curve of each truth method at the budgets ``ns``, and its standard error.

    Returns
    -------
    thetas : ndarray
        (method, n): the exact curve, or for ``"mc"`` the average of
        ``truth_replicates`` simulated maxima (Tang et al.'s truth).
    ses : list
        Per method, the Monte Carlo standard errors (n), or None for an
        exact truth.
    """
    thetas, ses = [], []
    for method in methods:
        theta, theta_se = exact_theta, None
        if method == "mc":
            theta, theta_se = theta_by_simulation(truth, int(ns.max()),
                                                  options.with_replicates(truth_replicates),
                                                  truth_streams(0))
            theta, theta_se = theta[ns - 1], theta_se[ns - 1]
        thetas.append(theta)
        ses.append(theta_se)
    return np.array(thetas), ses


def _sign_counts(truth, B, target, ests, ns, thetas, tol, options, counts_of, bounds):
    """How often each estimate lies below each truth, or ties it, on the same searches.

    The numba-path estimators run in kernels; the Python estimators, grouped
    by the number of searches ``counts_of`` they run on, on the first of
    the same searches.

    Returns
    -------
    ndarray of int64
        (estimator, n, 2 S + 1): ``[below, tie]`` against each of the S
        truths in ``thetas``, then the searches on which the estimator
        failed.
    """
    S = len(thetas)
    groups = estimate_rows(ests, B, ns, target)
    jobs = [Job(K.sign_counts_chunks, (B, truth.sampler, g.wts, g.func, g.ns,
                                       np.tile(thetas, len(g.indices)), tol), search_streams(B))
            for g in groups]
    # [below, tie] against each truth, then failures
    counts = np.zeros((len(ests), ns.size, 2 * S + 1), dtype=np.int64)
    label = f"false conclusions ({options.replicates:,} searches of B={B})"
    for g, part in zip(groups, run(jobs, options, label) if jobs else []):
        part = part.reshape(S, len(g.indices), ns.size, 2).transpose(1, 2, 0, 3)
        counts[g.indices, :, :2 * S] = part.reshape(len(g.indices), ns.size, 2 * S)
    python = [k for k, e in enumerate(ests) if e.kind == "python"]
    for M in sorted({int(counts_of[k]) for k in python}, reverse=True):
        group = [k for k in python if counts_of[k] == M]
        job = PythonJob(B, (truth.sampler,), tuple(ests[k] for k in group), ns,
                        Context(target, bounds), SignCounts(thetas, tol), search_streams(B))
        part, = run([job], dataclasses.replace(options, replicates=M),
                    f"{', '.join(ests[k].name for k in group)} ({M:,} searches of B={B})")
        counts[group] = part.astype(np.int64)
    return counts


def _dataset(truth, B, target, ests, ns, counts_of, counts, truth_method, theta, theta_se,
             exact_theta, level, options, truth_replicates, tol):
    """The result of :func:`falseconc` from ``[below, tie, failed]`` counts
    ``(estimator, n, 3)`` against one truth."""
    names = [e.name for e in ests]
    sym = target.symbol
    ds = xr.Dataset(coords={"estimator": names, "n": ns, **truth.coords(), "B": B,
                            "curve": target.name,
                            "kind": ("estimator", [e.kind for e in ests]),
                            "replicates": ("estimator", counts_of)})
    ds[sym] = ("n", theta, {"long_name": f"{target.description}, compared with "
                                         f"({truth_method})"})
    if theta_se is not None:
        ds["theta_se"] = ("n", theta_se, {"long_name": "Monte Carlo standard error of theta"})
        ds["exact_theta"] = ("n", exact_theta, {"long_name": "exact expected maximum of n draws"})
    below, tie, failed = counts[..., 0], counts[..., 1], counts[..., 2]
    M = counts_of[:, None] - failed
    dims = ("estimator", "n")
    for key, k, what in (("below", below, f"estimate < {sym}"),
                         ("tie", tie, f"estimate == {sym}"),
                         ("above", M - below - tie, f"estimate > {sym}")):
        add_rate(ds, key, k, np.maximum(M, 1), level, dims, what, where=M > 0)
        ds[f"{key}_count"] = (dims, k, {"long_name": f"searches with {what}"})
    ds["failures"] = (dims, failed, {"long_name": "searches on which the estimator failed "
                                                  "(left out of the rates)"})
    ds.attrs.update(provenance(
        experiment="falseconc", estimators=names, curve=target.name, seed=options.seed,
        replicates=options.replicates,
        chunk_size=options.chunk_size, workers=options.workers, level=level,
        truth_method=truth_method,
        truth_replicates=truth_replicates if truth_method == "mc" else 0,
        tie_tolerance=tol))
    return ds
