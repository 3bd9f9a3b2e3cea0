"""The coverage battery: do bootstrap intervals for theta_n contain it?

Tang et al. (2020, section 4.2-4.3, Fig. 4) drew M = 1000 samples of size
B = 50 from a ground truth, built 95% percentile-bootstrap intervals for
the expected maximum theta_n from R = 5000 resamples, and found empirical
coverage falling to about 0.7 by n = 20. :func:`coverage` repeats that for
every n, every estimator and every CI method of :mod:`evpsim.intervals` in
one pass, and :func:`bootstrap_intervals` gives the same intervals for a
researcher's own scores.
"""

from __future__ import annotations


import numpy as np
import xarray as xr

from ._kernels import bootstrap as K
from .bias import validate_B
from .estimators import resolve_estimators, validate_scores
from .intervals import clopper_pearson, resolve_ci_methods, validate_level
from .montecarlo import ChunkKernel, ChunkPlan, Progress, run_chunked
from .results import provenance
from .truths import make_truth

__all__ = ["coverage", "bootstrap_intervals", "COVERAGE_CHUNK"]

#: samples per chunk: each does R resamples, so far fewer than the bias battery's
COVERAGE_CHUNK = 8
#: level of the Clopper-Pearson bounds on every coverage rate
CP_LEVEL = 0.95


def _validate_resamples(resamples):
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) \
            or resamples < 2:
        raise ValueError(f"resamples must be an integer >= 2, got {resamples!r}")
    return int(resamples)


def _validate_bounds(bounds, lo, hi, what):
    """``(lo, hi)`` of the scores: ``bounds`` if given (it must contain
    ``[lo, hi]``, the range ``what`` occupies), else ``(lo, hi)``."""
    if bounds is None:
        return float(lo), float(hi)
    try:
        blo, bhi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (lo, hi) of numbers, got {bounds!r}") from None
    if not (np.isfinite(blo) and np.isfinite(bhi) and blo < bhi):
        raise ValueError(f"bounds must be finite with lo < hi, got {bounds!r}")
    if blo > lo or bhi < hi:
        raise ValueError(f"bounds ({blo:g}, {bhi:g}) must contain {what} "
                         f"[{lo:g}, {hi:g}], or the band intervals are invalid")
    return blo, bhi


def _tables(ests, B):
    """Cumulative weights (B + 1, K) and jackknife weights (K, B - 1) of the
    K = E * B columns (estimator-major).

    The jackknife of budget n uses the estimator for samples of size B - 1
    at budget ``min(n, B - 1)``: U is undefined at n = B on B - 1 points,
    and its natural extension (the sample maximum) is U at n = B - 1.
    """
    ws = np.concatenate([e.weight_matrix(B) for e in ests])
    ptab = np.zeros((B + 1, ws.shape[0]))
    ptab[1:] = np.cumsum(ws, axis=1).T
    rows = np.minimum(np.arange(B), B - 2)
    jws = np.concatenate([e.weight_matrix(B - 1)[rows] for e in ests])
    return np.ascontiguousarray(ptab), np.ascontiguousarray(jws)


def _split_methods(methods):
    boot = [m for m in methods if m.kind == "bootstrap"]
    builtin = [m for m in boot if m.func is None]
    user = [m for m in boot if m.func is not None]
    bands = [m for m in methods if m.kind == "band"]
    return builtin, user, bands


def _check_lstatistics(ests):
    general = [e.name for e in ests if not e.is_lstatistic]
    if general:
        raise ValueError(f"estimators: the coverage battery needs L-statistics; "
                         f"{', '.join(general)} is a general (non-linear) estimator")


def coverage(truth="normal", B=50, *, estimators=None, methods=None, level=0.95,
             replicates=1000, resamples=5000, seed=0, bounds=None, workers=1,
             progress=False, chunk_size=COVERAGE_CHUNK):
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
        L-statistic estimators (default the built-ins U, V, W).
    methods : str or sequence, optional
        CI methods (default every registered one; see
        :func:`evpsim.list_ci_methods`).
    level : float
        Two-sided confidence level of the intervals, in (0, 1).
    replicates : int
        M, the number of samples.
    resamples : int
        R, bootstrap resamples per sample (at least 2).
    seed : int
        Seed; sample ``i`` and its resamples use the random stream
        ``(seed, i)``.
    bounds : (float, float), optional
        Known range of the scores for band methods; it must contain the
        truth's support, which is the default.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.
    chunk_size : int
        Samples per chunk. Counts do not depend on it; width sums may move
        in the last bit.

    Returns
    -------
    xarray.Dataset
        Dims ``estimator``, ``method``, ``n``, with

        * ``coverage``: fraction of samples whose interval contains theta_n,
          with Clopper-Pearson 95% bounds ``coverage_lower`` and
          ``coverage_upper``;
        * ``miss_below`` / ``miss_above``: fraction of intervals lying
          entirely below / above theta_n;
        * ``undefined``: fraction of intervals that could not be formed
          (BCa when the jackknife estimates are all equal or every
          bootstrap estimate lies on one side of the estimate, as in
          ``scipy.stats.bootstrap``); the four fractions sum to one;
        * ``mean_width``: mean width of the defined intervals;
        * ``coverage_all`` (estimator, method): fraction of samples whose
          intervals contain theta_n for every n at once;
        * ``theta`` (n): the exact expected maximum.

        Band methods do not use the estimator: their rows are the same for
        every estimator. Coordinate ``method_kind`` says which is which.
        Select methods with ``ds.sel({"method": "bca"})``: ``method=`` is
        an argument of ``sel`` itself.

    Raises
    ------
    ValueError
        For B < 2, a level outside (0, 1), resamples < 2, unknown or
        repeated estimator or method names, a general (non-L-statistic)
        estimator, or bounds that do not contain the truth's support.

    Notes
    -----
    Each resample is a vector of multinomial counts over the sorted sample,
    and every budget of every estimator is read off a table of cumulative
    weights (see :mod:`evpsim._kernels.bootstrap`), so estimators must be
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

    A user's bootstrap method is compiled into its own parallel kernel on
    first use in each process (about 20 s); built-in methods are cached.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.coverage("normal", B=10, estimators="V", methods="percentile,dkw",
    ...                      replicates=40, resamples=200)
    >>> sorted(ds["coverage"].dims)
    ['estimator', 'method', 'n']
    >>> bool((ds["coverage"].sel({"method": "dkw"}) >= 0.9).all())
    True
    """
    truth = make_truth(truth)
    B = validate_B(B)
    level = validate_level(level)
    resamples = _validate_resamples(resamples)
    ests = resolve_estimators(estimators)
    _check_lstatistics(ests)
    meths = resolve_ci_methods(methods)
    builtin, user, bands = _split_methods(meths)
    lo, hi = _validate_bounds(bounds, truth.lo, truth.hi, "the truth's support")
    plan = ChunkPlan(replicates, seed, chunk_size)

    ns = np.arange(1, B + 1)
    theta = truth.theta(ns)
    E, M = len(ests), len(meths)
    tables = _tables(ests, B) if builtin or user else None
    jobs = []  # (indices of the methods, kernel)
    boot_args = (B, *truth.sampler, *tables, theta, resamples, level) if tables else ()
    if builtin:
        codes = np.array([m.code for m in builtin], dtype=np.int64)
        jobs.append(([meths.index(m) for m in builtin],
                     ChunkKernel(K.coverage_boot_chunks, plan, (*boot_args, codes))))
    for m in user:
        jobs.append(([meths.index(m)],
                     ChunkKernel(K.coverage_user_chunks, plan, (*boot_args, m.func))))
    if bands:
        arrays = [m.band_arrays(B, level) for m in bands]
        jobs.append(([meths.index(m) for m in bands], ChunkKernel(
            K.coverage_band_chunks, plan,
            (B, *truth.sampler, lo, hi, np.array([a[0] for a in arrays]),
             np.array([a[1] for a in arrays]), theta))))

    tallies = np.zeros((M, E, B + 1, K.NSLOTS))
    bar = Progress(f"coverage ({plan.replicates:,} samples of B={B}, {resamples:,} resamples)",
                   plan.replicates * len(jobs), enabled=progress)
    for j, (rows, kern) in enumerate(jobs):
        part = run_chunked(kern, plan, workers=workers,
                           progress=lambda done, o=j * plan.replicates: bar.update(o + done))
        tallies[rows] = part  # band tallies (E = 1) broadcast over the estimators
    bar.close()
    return _dataset(tallies, theta, ests, meths, plan, truth, B, level, resamples,
                    (lo, hi) if bands else None, workers)


def _dataset(tallies, theta, ests, meths, plan, truth, B, level, resamples, bounds, workers):
    """Rates with Clopper-Pearson bounds from the (M, E, B + 1, 4) tallies."""
    Mrep = plan.replicates
    per_n = np.moveaxis(tallies[:, :, :B, :], 0, 1)  # (E, M, B, 4)
    hits = per_n[..., K.HIT]
    below, above = per_n[..., K.BELOW], per_n[..., K.ABOVE]
    defined = hits + below + above
    lower, upper = clopper_pearson(hits.astype(np.int64), Mrep, CP_LEVEL)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_width = np.where(defined > 0, per_n[..., K.WIDTH] / defined, np.nan)
    dims = ("estimator", "method", "n")
    names = [e.name for e in ests]
    mnames = [m.name for m in meths]
    ds = xr.Dataset(coords={"estimator": names, "method": mnames, "n": np.arange(1, B + 1),
                            "method_kind": ("method", [m.kind for m in meths])})
    ds["theta"] = ("n", theta, {"long_name": "exact expected maximum of n draws"})
    ds["coverage"] = (dims, hits / Mrep,
                      {"long_name": f"fraction of {level:g} intervals containing theta_n"})
    ds["coverage_lower"] = (dims, lower, {"long_name": "Clopper-Pearson lower bound of coverage",
                                          "level": CP_LEVEL})
    ds["coverage_upper"] = (dims, upper, {"long_name": "Clopper-Pearson upper bound of coverage",
                                          "level": CP_LEVEL})
    ds["miss_below"] = (dims, below / Mrep,
                        {"long_name": "fraction of intervals entirely below theta_n"})
    ds["miss_above"] = (dims, above / Mrep,
                        {"long_name": "fraction of intervals entirely above theta_n"})
    ds["undefined"] = (dims, 1.0 - defined / Mrep,
                       {"long_name": "fraction of intervals that could not be formed (NaN)"})
    ds["mean_width"] = (dims, mean_width, {"long_name": "mean width of the defined intervals"})
    ds["coverage_all"] = (("estimator", "method"), tallies[:, :, B, K.HIT].T / Mrep,
                          {"long_name": "fraction of samples covered at every n at once"})
    ds.attrs.update(provenance(
        experiment="coverage", B=B, estimators=names, methods=mnames, level=level,
        replicates=Mrep, resamples=resamples, seed=plan.seed, chunk_size=plan.chunk_size,
        workers=int(workers), coverage_ci_level=CP_LEVEL,
        bounds_lo=bounds[0] if bounds else None, bounds_hi=bounds[1] if bounds else None,
        **truth.attrs()))
    return ds


def bootstrap_intervals(scores, estimators="V", *, methods=None, level=0.95, resamples=5000,
                        seed=0, bounds=None, distribution=False):
    """Confidence intervals for theta_n, n = 1..B, from one's own scores.

    The same constructions that :func:`coverage` evaluates.

    Parameters
    ----------
    scores : array_like of float
        The B >= 2 validation scores of a search, in any order.
    estimators : str or sequence
        L-statistic estimators (default ``"V"``).
    methods : str or sequence, optional
        CI methods. Default: every bootstrap method, plus every band method
        when ``bounds`` is given.
    level : float
        Two-sided confidence level, in (0, 1).
    resamples : int
        Bootstrap resamples (at least 2).
    seed : int
        Seed of the resamples (stream ``(seed, 0)``).
    bounds : (float, float), optional
        Known range of the scores (e.g. ``(0, 1)`` for accuracy); needed by
        band methods and must contain every score.
    distribution : bool
        Also return the bootstrap distribution (variable
        ``bootstrap_distribution``, dims ``resample, estimator, n``).

    Returns
    -------
    xarray.Dataset
        ``lower``, ``upper`` (estimator, method, n) and ``estimate``
        (estimator, n).

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.bootstrap_intervals([0.71, 0.74, 0.69, 0.80, 0.77, 0.75],
    ...                                 methods="percentile", resamples=1000)
    >>> iv = ds.sel({"estimator": "V", "method": "percentile", "n": 1})
    >>> bool(iv["lower"] < iv["estimate"] < iv["upper"])
    True
    """
    xs = np.sort(validate_scores(scores))
    B = xs.size
    level = validate_level(level)
    resamples = _validate_resamples(resamples)
    seed = ChunkPlan(1, seed).seed  # validates the seed
    ests = resolve_estimators(estimators)
    _check_lstatistics(ests)
    if methods is None:
        meths = [m for m in resolve_ci_methods(None) if m.kind == "bootstrap" or bounds is not None]
    else:
        meths = resolve_ci_methods(methods)
    builtin, user, bands = _split_methods(meths)
    if bands and bounds is None:
        raise ValueError(f"bounds: band methods ({', '.join(m.name for m in bands)}) need the "
                         f"known range of the scores, bounds=(lo, hi)")
    if bands:
        lo, hi = _validate_bounds(bounds, xs[0], xs[-1], "every score")
    E = len(ests)
    names = [e.name for e in ests]
    ptab, jws = _tables(ests, B)
    lower = np.full((E, len(meths), B), np.nan)
    upper = np.full_like(lower, np.nan)
    boot = None
    if builtin or user:
        codes = np.array([m.code for m in builtin], dtype=np.int64)
        boot, est, jack, ivs = K.bootstrap_one(xs, seed, ptab, jws, resamples, level,
                                               codes, bool(user))
        for g, m in enumerate(builtin):
            lower[:, meths.index(m)] = ivs[g, :, 0].reshape(E, B)
            upper[:, meths.index(m)] = ivs[g, :, 1].reshape(E, B)
        for m in user:
            iv = np.empty((E * B, 2))
            K.user_intervals(m.func, boot, est, jack, level, iv)
            lower[:, meths.index(m)] = iv[:, 0].reshape(E, B)
            upper[:, meths.index(m)] = iv[:, 1].reshape(E, B)
    else:
        est = np.empty(E * B)
        K.sample_estimates(xs, ptab, est)
    if bands:
        ivs = np.empty((len(bands), B, 2))
        arrays = [m.band_arrays(B, level) for m in bands]
        K.band_intervals(xs, lo, hi, np.array([a[0] for a in arrays]),
                         np.array([a[1] for a in arrays]), ivs)
        for g, m in enumerate(bands):
            lower[:, meths.index(m)] = ivs[g, :, 0]
            upper[:, meths.index(m)] = ivs[g, :, 1]
    dims = ("estimator", "method", "n")
    ds = xr.Dataset(coords={"estimator": names, "method": [m.name for m in meths],
                            "n": np.arange(1, B + 1),
                            "method_kind": ("method", [m.kind for m in meths])})
    ds["estimate"] = (("estimator", "n"), np.asarray(est).reshape(E, B))
    ds["lower"] = (dims, lower, {"long_name": f"lower end of the {level:g} interval"})
    ds["upper"] = (dims, upper, {"long_name": f"upper end of the {level:g} interval"})
    if distribution:
        if boot is None:
            raise ValueError("distribution=True needs a bootstrap method")
        ds["bootstrap_distribution"] = (("resample", "estimator", "n"),
                                        boot.T.reshape(resamples, E, B))
    ds.attrs.update(level=level, resamples=resamples, seed=int(seed), B=B)
    return ds
