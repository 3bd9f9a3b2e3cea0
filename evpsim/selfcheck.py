"""The self-check: would intervals built this way have covered the truth for data like yours?

Tang et al. (2020) showed that percentile-bootstrap intervals for the
expected maximum cover far less often than they claim, and how badly
depends on the shape of the score distribution, on B and on n. The
self-check asks that question of each user's own data: fit the centered
discretized KDE (:func:`evpsim.fit_kde`) to each model's scores, take it
as a ground truth whose EVP is known exactly, simulate searches of the
user's B from it, build the same intervals on each and count how often they
cover (:func:`evpsim.coverage`); where there are several models, also how
often searches of their size rank each pair the wrong way round
(:func:`evpsim.compare_curves`). The answer is about distributions *like*
the user's, not a guarantee about the unknown truth.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import xarray as xr

from . import _validate as check
from ._format import spans
from .batteries.compare import compare_curves
from .batteries.coverage import coverage
from .curves import as_models
from .kde import fit_kde, load_kde

__all__ = ["self_check", "check_warnings", "metric_range", "SHORTFALL"]

#: coverage this far below the level draws a warning
SHORTFALL = 0.05


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


def self_check(scores, *, labels=None, estimators="V", ci_methods="percentile", level=0.95,
               bounds=None, minimize=False, replicates=1000, resamples=2000, seed=0,
               workers=1, progress=False):
    """Coverage of your interval method on distributions like your scores.

    Parameters
    ----------
    scores : array_like, mapping, sequence, or searches
        As in :func:`evpsim.curve`.
    labels : sequence of str, optional
        Model names (see :func:`evpsim.curve`).
    estimators, ci_methods, level
        The intervals to check, as in :func:`evpsim.curve`.
    bounds : (float, float), optional
        The metric's range; the KDE is clipped to it. Default ``(0, 1)`` or
        ``(0, 100)``, whichever holds every score (else an error).
    minimize : bool
        The scores are losses (checked as curves of the expected minimum).
    replicates : int
        M, simulated searches per model (and pairs per comparison).
    resamples : int
        R, bootstrap resamples per simulated search.
    seed : int
        Seed of the simulations.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.

    Returns
    -------
    xarray.Dataset
        Dims ``model``, ``estimator``, ``ci_method``, ``n`` (as in
        :func:`evpsim.curve`): ``check_coverage`` with Clopper-Pearson 95%
        bounds ``check_coverage_lower``/``check_coverage_upper``,
        ``check_coverage_all`` (every n at once) and ``check_theta`` (model,
        n: the exact EVP of the fitted KDE); with two or more models,
        ``check_wrong`` (pair, estimator, n) with bounds: the rate at which
        one search of each model, of the smaller B, ranks the pair opposite
        to the KDEs' exact curves. Coordinate ``check_bandwidth`` (model).

    Examples
    --------
    >>> import numpy as np, evpsim
    >>> x = np.random.default_rng(0).beta(8, 3, size=30)
    >>> ds = evpsim.self_check(x, replicates=50, resamples=200)
    >>> ds["check_coverage"].dims
    ('model', 'estimator', 'ci_method', 'n')
    """
    models = as_models(scores, labels)
    minimize = check.boolean(minimize, "minimize")
    sign = -1.0 if minimize else 1.0
    every = np.concatenate([m.scores for m in models])
    lo, hi = check.bounds(bounds, every.min(), every.max(), "every score") \
        if bounds is not None else metric_range(every)
    flipped = (lo, hi) if sign > 0 else (-hi, -lo)
    truths, parts, bandwidths = [], [], []
    for k, model in enumerate(models):
        fit = fit_kde(sign * model.scores, construction="centered", bounds=flipped,
                      name=f"model-{k + 1}", model=model.label, source=model.source or None)
        truth = load_kde(fit)
        truths.append(truth)
        bandwidths.append(fit.attrs["bandwidth"])
        cov = coverage(truth, model.scores.size, estimators=estimators, ci_methods=ci_methods,
                       level=level, replicates=replicates, resamples=resamples, seed=seed,
                       bounds=flipped, workers=workers, progress=progress)
        part = xr.Dataset({f"check_{v}": cov[v] for v in
                           ("coverage", "coverage_lower", "coverage_upper", "coverage_all")})
        part["check_theta"] = sign * cov["theta"]
        parts.append(part.drop_vars([c for c in part.coords if c not in
                                     ("estimator", "ci_method", "n", "ci_method_kind")]))
    ds = xr.concat(parts, dim="model", join="outer").assign_coords(
        model=[m.label for m in models], check_bandwidth=("model", bandwidths))
    if len(models) > 1:
        ds = ds.merge(_ranking_errors(models, truths, estimators, replicates, seed, workers,
                                      progress), join="left")
    ds.attrs.update(check_replicates=replicates, check_resamples=resamples, check_seed=seed,
                    check_bounds=[lo, hi], check_level=level,
                    check_truth="centered discretized Gaussian KDE (normal-reference "
                                "bandwidth) of each model's scores, clipped to the bounds")
    return ds


def _ranking_errors(models, truths, estimators, replicates, seed, workers, progress):
    pairs = list(combinations(range(len(models)), 2))
    rows = []
    for a, b in pairs:
        B = min(models[a].scores.size, models[b].scores.size)
        cmp = compare_curves(truths[a], truths[b], B, estimators=estimators,
                             replicates=replicates, seed=seed, workers=workers,
                             progress=progress)
        rows.append(xr.Dataset({f"check_{v}": cmp[v] for v in
                                ("wrong", "wrong_lower", "wrong_upper")})
                    .drop_vars([c for c in cmp.coords if c not in ("estimator", "n")]))
    return xr.concat(rows, dim="pair", join="outer").assign_coords(
        model_a=("pair", [models[a].label for a, _ in pairs]),
        model_b=("pair", [models[b].label for _, b in pairs]))


def check_warnings(ds, shortfall=SHORTFALL):
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
    level = float(ds.attrs["check_level"])
    M = int(ds.attrs["check_replicates"])
    out = []
    for model in ds["model"].values:
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
                out.append(
                    f"{who}at {where}, {level:.0%} intervals built this way ({kind}) covered the "
                    f"truth in as few as {cov[worst]:.0%} "
                    f"[{float(sub['check_coverage_lower'][worst]):.0%}, "
                    f"{float(sub['check_coverage_upper'][worst]):.0%}] of {M:,} simulated "
                    f"searches from a distribution like yours (n = {int(sub['n'][worst])})")
    return out
