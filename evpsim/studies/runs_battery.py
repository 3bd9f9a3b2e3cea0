"""Which interval across runs holds with 5, 10 or 20 runs? The runs battery's cells.

An adaptive search's curve is estimated from k runs (seeds): the mean or
the median over runs of each run's best score among its first n trials
(:mod:`evpsim.intervals.runs`). This battery measures every interval
across runs on simulated runs whose true curves are known, two searches
per truth (:data:`SEARCHES`):

* ``random``: random search, trials i.i.d. from the truth; the mean
  best-so-far curve is the truth's exact ``theta_n`` and the median one its
  exact ``tau_0.5(n)``;
* ``local``: a (1+1) local search with restarts (:mod:`evpsim._kernels.runs`)
  over a pool of ``GRID x GRID`` configurations on a torus, their true scores
  the truth's quantiles at ``(i + 1/2) / GRID**2`` laid out by the ranks of a
  fixed smooth landscape with several peaks (:func:`landscape`), so that a
  configuration drawn uniformly scores like a draw from the truth (up to the
  pool's discreteness) and neighbours score alike; a trial sees its
  configuration's score plus normal noise of :data:`NOISE` times the pool's
  standard deviation; it restarts with probability :data:`RESTART` and
  otherwise steps at most :data:`RADIUS` cells from the incumbent. Its true
  curves are Monte Carlo values from ``truth_samples`` runs (their standard
  errors are in the cell).

A cell is one truth and one run length B (:func:`cell`, the sweep battery
``runs``). Within it, for both searches, every budget n of a log grid up to
B (:func:`budgets`), ``ks`` runs per estimate (5, 10 and 20 by default,
the first k of the same 20 runs), every method of both curves:

* coverage with Clopper-Pearson bounds, misses below and above, undefined
  and unbounded intervals, over ``replicates`` sets of runs;
* the median width relative to the *oracle* interval, the true sampling
  law of the estimate (the distance between the 2.5% and 97.5% quantiles of
  ``estimate - truth`` over ``oracle_samples`` sets of runs), and the mean
  width;
* the estimates' mean error with its standard error (a check: the mean of k
  runs of random search is unbiased for ``theta_n``).

:func:`summarise` reduces the cells to a table per search, curve, method and
k; :func:`goal` checks the goal per method and curve; :func:`choose` picks
each curve's default.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .. import _validate as check

__all__ = ["cell", "summarise", "goal", "choose", "landscape", "pool_scores", "budgets",
           "SEARCHES", "KS", "GRID", "RESTART", "RADIUS", "NOISE", "GOAL_COVERAGE",
           "GOAL_ORACLE", "LEVEL"]

#: the searches simulated in every cell
SEARCHES = ("random", "local")
#: runs per estimate
KS = (5, 10, 20)
#: the local search: grid side, restart probability, step radius, and noise in units of
#: the pool's standard deviation
GRID, RESTART, RADIUS, NOISE = 64, 0.1, 4, 0.1
#: the landscape's peaks on the unit torus: centre x, centre y, width, height
PEAKS = ((0.20, 0.30, 0.10, 1.00), (0.70, 0.75, 0.08, 0.90), (0.75, 0.20, 0.12, 0.80),
         (0.35, 0.80, 0.06, 0.85), (0.50, 0.50, 0.25, 0.50))
#: the goal: coverage estimates of at least GOAL_COVERAGE (and no cell surely below it),
#: median width at most GOAL_ORACLE times the oracle interval's
GOAL_COVERAGE, GOAL_ORACLE = 0.93, 1.5
#: the level of the intervals and of the Clopper-Pearson bounds
LEVEL = 0.95
#: the histograms of log(width / oracle width): bins, lowest log ratio, bin width
HISTOGRAM = (240, -np.log(20.0), 2.0 * np.log(20.0) / 240)
#: replicates per chunk of the coverage, oracle and truth jobs
CHUNKS = {"coverage": 16, "oracle": 256, "truth": 4096}
#: bins of the two passes of the Monte Carlo truth's histograms
TRUTH_BINS = 4096


def budgets(B):
    """The budgets of a cell: a log grid from 1 to B (steps of at most 1.42, rounded).

    Examples
    --------
    >>> budgets(50).tolist()
    [1, 2, 3, 4, 5, 7, 10, 14, 19, 26, 36, 50]
    """
    B = check.B(B)
    grid = np.round(np.geomspace(1, B, int(np.ceil(np.log(B) / np.log(1.42))) + 1))
    return np.unique(np.concatenate([grid, [B]])).astype(np.int64)


def landscape(G=GRID):
    """The local search's landscape on the ``G x G`` torus: a sum of :data:`PEAKS`.

    Returns
    -------
    (G * G,) array
        Its value at configuration ``y * G + x``, the point ``((x + 1/2) / G,
        (y + 1/2) / G)``.
    """
    c = (np.arange(G) + 0.5) / G
    x, y = np.meshgrid(c, c)
    f = np.zeros((G, G))
    for cx, cy, width, height in PEAKS:
        dx = np.abs(x - cx)
        dy = np.abs(y - cy)
        d2 = np.minimum(dx, 1 - dx) ** 2 + np.minimum(dy, 1 - dy) ** 2
        f += height * np.exp(-0.5 * d2 / width**2)
    return f.ravel()


def pool_scores(truth, G=GRID):
    """The true scores of the local search's configurations: the truth's quantiles at
    ``(i + 1/2) / G**2``, the i-th lowest at the landscape's i-th lowest point."""
    P = G * G
    ps = (np.arange(P) + 0.5) / P
    scores = np.empty(P)
    scores[np.argsort(landscape(G), kind="stable")] = truth.quantile(ps, 1.0 - ps)
    return scores


def _simulation(truth, B, search):
    """The kernels' arguments of ``search`` on ``truth``: ``(B, kind, sampler, pool,
    params)``."""
    from .._kernels.runs import LOCAL, RANDOM

    if search == "random":
        return (B, RANDOM, truth.sampler, np.zeros(1), np.zeros(4))
    pool = pool_scores(truth)
    params = np.array([GRID, RESTART, RADIUS, NOISE * float(np.std(pool))])
    return (B, LOCAL, truth.sampler, pool, params)


def cell(dist, B, *, seed=0, ks=KS, ci_methods=None, replicates=2000, resamples=1000,
         oracle_samples=20_000, truth_samples=2**21, check_samples=2**18, workers=1,
         progress=False):
    """One cell of the runs battery: both searches on one truth, runs of B trials.

    Parameters
    ----------
    dist : str or Truth
        The truth.
    B : int
        Trials per run (the largest budget).
    seed : int
        Seed of every part of the cell.
    ks : sequence of int
        Runs per estimate (each at least 2).
    ci_methods : sequence of str, optional
        Methods across runs (default all of
        :data:`evpsim.intervals.runs.RUN_CI_METHODS`).
    replicates : int
        Sets of runs behind each coverage.
    resamples : int
        Bootstrap resamples of the runs per set and k.
    oracle_samples : int
        Sets of runs behind the oracle interval's width.
    truth_samples : int
        Runs behind the local search's Monte Carlo curves.
    check_samples : int
        Runs behind the random search's Monte Carlo curves, a check of
        the exact ones (and of the code that makes the local search's).
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Progress lines on stderr.

    Returns
    -------
    xarray.Dataset
        Dims ``search``, ``curve``, ``ci_method``, ``k``, ``n``:
        ``coverage`` with ``coverage_lower``/``coverage_upper``,
        ``miss_below``, ``miss_above``, ``undefined``, ``unbounded``,
        ``mean_width`` (of the bounded intervals), ``width_vs_oracle``
        (median width over the oracle's); ``oracle_width`` (search,
        curve, k, n); ``truth_value`` and ``truth_se`` (search, curve, n:
        the curves measured against, exact for random search, with standard
        error 0); ``truth_mc`` and ``truth_mc_se`` (the Monte Carlo curves
        of both searches); ``error_mean`` and ``error_mean_se`` (search,
        curve, k, n: the estimates' mean error). NaN where a method does
        not bound a curve. Scalar coordinates of the truth and ``B``.
    """
    from ..intervals import resolve_run_methods
    from ..truths.distributions import make_truth

    truth = make_truth(dist)
    B = check.B(B)
    ks = _ks(ks)
    methods = resolve_run_methods([m.name for m in _all_methods()] if ci_methods is None
                                  else ci_methods)
    sizes = {name: check.replicates(value, name) for name, value in
             (("replicates", replicates), ("oracle_samples", oracle_samples),
              ("truth_samples", truth_samples), ("check_samples", check_samples))}
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed = check.seed(seed)
    ns = budgets(B)
    exact = np.array([truth.theta(ns), truth.tau(0.5, ns)])
    parts = [_search_part(truth, B, s, search, ns, ks, methods, exact, sizes, resamples, seed,
                          workers, progress) for s, search in enumerate(SEARCHES)]
    ds = xr.concat(parts, dim="search", coords="minimal", compat="override")
    ds = ds.assign_coords(search=list(SEARCHES), **truth.coords(), B=B)
    ds.attrs = _attrs(parts[0].attrs, sizes, resamples, seed, ks, workers)
    return ds


def _all_methods():
    from ..intervals import RUN_CI_METHODS

    return RUN_CI_METHODS


def _ks(ks):
    """``ks`` as a sorted int array of distinct run counts, each at least 2."""
    if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__"):
        ks = [ks]
    out = sorted({check.integer(k, "ks", minimum=2, maximum=10_000) for k in ks})
    if not out:
        raise check.InvalidArgument("ks", "ks: give at least one number of runs")
    return np.array(out, dtype=np.int64)


def _attrs(first, sizes, resamples, seed, ks, workers):
    """The cell's provenance."""
    from ..io.results import provenance

    return provenance(experiment="runs battery cell", searches=list(SEARCHES), ks=ks.tolist(),
                      level=LEVEL, resamples=resamples, seed=seed, workers=workers,
                      local_search=f"grid {GRID} x {GRID}, restart {RESTART}, radius {RADIUS}, "
                                   f"noise {NOISE} x the pool's sd",
                      **sizes)


def _search_part(truth, B, s, search, ns, ks, methods, exact, sizes, resamples, seed,
                 workers, progress):
    """One search's part of :func:`cell`."""
    from ..engine.montecarlo import MonteCarlo, run
    from ..engine.streams import runs_streams
    from ..intervals import coverage_job, unpack_tallies

    sim = _simulation(truth, B, search)
    options = {part: MonteCarlo(sizes[size], seed, CHUNKS[part], workers, progress)
               for part, size in (("coverage", "replicates"), ("oracle", "oracle_samples"),
                                  ("truth", "truth_samples" if search == "local" else
                                   "check_samples"))}
    mc, mc_se = _mc_truth(sim, _value_range(truth, sim), ns, options["truth"],
                          runs_streams(s, 2))
    truths = exact if search == "random" else mc
    oracle = _oracle(sim, ns, ks, truths, options["oracle"], runs_streams(s, 1))
    job = coverage_job(*sim, ns, ks, LEVEL, resamples, truths, oracle, HISTOGRAM,
                       runs_streams(s, 0))
    total, = run([job], options["coverage"], f"runs battery, {search} search")
    tallies, hists, errors = unpack_tallies(total, ks.size, ns.size, HISTOGRAM[0])
    ds = _coverage_dataset(tallies, hists, methods, ks, ns, sizes["replicates"])
    M = sizes["replicates"]
    err = errors[..., 0] / M
    ds["error_mean"] = (("curve", "k", "n"), err,
                        {"long_name": "mean of estimate - truth over the sets of runs"})
    ds["error_mean_se"] = (("curve", "k", "n"),
                           np.sqrt(np.maximum(errors[..., 1] / M - err**2, 0.0) / (M - 1)),
                           {"long_name": "its Monte Carlo standard error"})
    ds["oracle_width"] = (("curve", "k", "n"), oracle, {
        "long_name": f"width of the oracle {LEVEL:g} interval: quantiles of estimate - truth "
                     f"over {sizes['oracle_samples']:,} sets of runs"})
    se = np.zeros_like(mc_se) if search == "random" else mc_se
    ds["truth_value"] = (("curve", "n"), truths, {"long_name": "the true curves (mean, "
                                                               "median best-so-far)"})
    ds["truth_se"] = (("curve", "n"), se, {"long_name": "Monte Carlo standard error of "
                                                        "truth_value (0: exact)"})
    ds["truth_mc"] = (("curve", "n"), mc, {"long_name": f"Monte Carlo curves from "
                                                        f"{options['truth'].replicates:,} "
                                                        f"runs"})
    ds["truth_mc_se"] = (("curve", "n"), mc_se, {"long_name": "their standard errors"})
    return ds



def _value_range(truth, sim):
    """A range holding every best-so-far value of the simulated runs: the truth's support
    for random search, the pool's range widened by nine standard deviations of the
    noise for the local search (a value beyond, with a chance below 1e-18, would still
    be counted, in a histogram's end slot)."""
    from .._kernels.runs import RANDOM

    pool, noise = sim[3], sim[4][3]
    if sim[1] == RANDOM:
        return float(truth.lo), float(truth.hi)
    return float(pool.min() - 9 * noise), float(pool.max() + 9 * noise)


def _mc_truth(sim, span, ns, options, stream0):
    """The mean and median best-so-far curves of single runs, by Monte Carlo, with their
    standard errors: (2, J) arrays.

    Two passes over the same runs (the same streams): the first sums around the middle
    of ``span`` (the range of the values) and counts the values in equal bins over it;
    the second sums around the first's mean and counts them in equal bins over the
    first's bins that hold the quantiles ``1/2 -+ 4 / (2 sqrt M)``. The median is read
    off the second histogram (linear within a bin of a ``TRUTH_BINS``-th of a
    ``TRUTH_BINS``-th of ``span``); its standard error is half the distance between the
    quantiles ``1/2 -+ 1 / (2 sqrt M)`` (the ranks one binomial standard deviation from
    the middle), the mean's ``sd / sqrt M``.
    """
    from .._kernels.runs import truth_chunks
    from ..engine.montecarlo import Job, run

    M, J, nb = options.replicates, ns.size, TRUTH_BINS
    centers = np.full(J, 0.5 * (span[0] + span[1]))
    edges = np.tile(np.array(span, dtype=float), (J, 1))
    out = []
    for label in ("pass 1", "pass 2"):
        job = Job(truth_chunks, (*sim, ns, centers, edges, nb), stream0)
        total, = run([job], options, f"Monte Carlo curves, {label}")
        out.append(total)
        if label == "pass 1":
            centers = centers + total[:, 0] / M
            delta = 0.5 / np.sqrt(M)
            edges = np.array([_bracket(total[j, 2:], edges[j], 0.5 - 4 * delta,
                                       0.5 + 4 * delta) for j in range(J)])
    total = out[1]
    shift = total[:, 0] / M
    var = np.maximum(total[:, 1] / M - shift**2, 0.0) * M / (M - 1)
    med = np.array([_quantile(total[j, 2:], edges[j], 0.5) for j in range(J)])
    spread = np.array([_quantile(total[j, 2:], edges[j], 0.5 + delta)
                       - _quantile(total[j, 2:], edges[j], 0.5 - delta) for j in range(J)])
    return np.array([centers + shift, med]), np.array([np.sqrt(var / M), 0.5 * spread])


def _quantile(counts, edge, p):
    """The p-quantile of the values counted in ``counts`` (a slot below ``edge[0]``, equal
    bins up to ``edge[1]``, a slot above), linear within its bin."""
    nb = counts.size - 2
    target = p * counts.sum()
    cum = np.cumsum(counts)
    b = int(np.searchsorted(cum, target, side="left"))
    if b == 0 or b > nb:
        raise RuntimeError("the quantile lies outside the histogram's range")
    width = (edge[1] - edge[0]) / nb
    return edge[0] + width * (b - 1 + (target - cum[b - 1]) / counts[b])


def _bracket(counts, edge, p_lo, p_hi):
    """The span of the bins holding the quantiles ``p_lo`` and ``p_hi``, widened by a bin
    on each side."""
    nb = counts.size - 2
    width = (edge[1] - edge[0]) / nb
    lo, hi = (_quantile(counts, edge, p) for p in (p_lo, p_hi))
    first = max(np.floor((lo - edge[0]) / width) - 1, 0)
    last = min(np.floor((hi - edge[0]) / width) + 2, nb)
    return edge[0] + width * first, edge[0] + width * last


def _oracle(sim, ns, ks, truths, options, stream0):
    """The oracle intervals' widths (2, len(ks), len(ns)): the 97.5% minus the 2.5%
    quantile of ``estimate - truth`` over the sets of runs of ``options``."""
    from .._kernels.runs import estimate_chunks
    from ..engine.montecarlo import Job

    job = Job(estimate_chunks, (*sim, ns, ks), stream0)
    parts = [job(span) for span in options.spans(stream0, 64)]
    est = np.concatenate([p.reshape(-1, *p.shape[2:]) for p in parts])[:options.replicates]
    alpha = 0.5 * (1.0 - LEVEL)
    q = np.quantile(est - truths[None, :, None, :], [alpha, 1.0 - alpha], axis=0)
    return q[1] - q[0]


def _coverage_dataset(tallies, hists, methods, ks, ns, M):
    """The coverage variables (curve, ci_method, k, n) of one search from the tallies of
    :func:`evpsim.intervals.coverage_job` (:func:`evpsim.intervals.unpack_tallies`)."""
    from ..engine.summaries import add_rate
    from ..intervals import RUN_CURVES

    shape = (len(RUN_CURVES), len(methods), ks.size, ns.size)
    t = {name: np.zeros(shape) for name in tallies}
    ratio = np.full(shape, np.nan)
    bounds = np.zeros(shape[:2], dtype=bool)
    for c, curve in enumerate(RUN_CURVES):
        for i, m in enumerate(methods):
            if curve in m.rows:
                bounds[c, i] = True
                for name in tallies:
                    t[name][c, i] = tallies[name][m.rows[curve]]
                ratio[c, i] = np.apply_along_axis(_median_ratio, -1, hists[m.rows[curve]])
    where = np.broadcast_to(bounds[:, :, None, None], shape)
    dims = ("curve", "ci_method", "k", "n")
    ds = xr.Dataset(coords={"curve": list(RUN_CURVES), "ci_method": [m.name for m in methods],
                            "k": ks, "n": ns,
                            "bounds_curve": (("curve", "ci_method"), bounds)})
    add_rate(ds, "coverage", t["hit"].astype(np.int64), M, LEVEL, dims,
             f"{LEVEL:g} intervals across runs containing the true curve", where=where)
    for key, text in (("below", "entirely below the true curve"),
                      ("above", "entirely above the true curve"),
                      ("undefined", "that could not be formed"),
                      ("unbounded", "with an infinite end")):
        ds["miss_" + key if key in ("below", "above") else key] = (
            dims, np.where(where, t[key] / M, np.nan), {"long_name": f"fraction of intervals "
                                                                     f"{text}"})
    finite = t["hit"] + t["below"] + t["above"] - t["unbounded"]
    with np.errstate(invalid="ignore", divide="ignore"):
        ds["mean_width"] = (dims, np.where(where & (finite > 0), t["width"] / finite, np.nan),
                            {"long_name": "mean width of the bounded intervals"})
    ds["width_vs_oracle"] = (dims, ratio, {
        "long_name": "median width of the intervals (unbounded ones included) over the "
                     "oracle interval's width"})
    return ds


def _median_ratio(counts):
    """The median of the width ratios counted in a histogram of their logs (0 and inf in
    its end slots); NaN without any."""
    nbins, log_lo, step = HISTOGRAM
    total = counts.sum()
    if total == 0:
        return np.nan
    cum = np.cumsum(counts)
    b = int(np.searchsorted(cum, 0.5 * total, side="left"))
    if b == 0:
        return float(np.exp(log_lo))
    if b > nbins:
        return np.inf
    return float(np.exp(log_lo + step * (b - 1 + (0.5 * total - cum[b - 1]) / counts[b])))


# --- the battery's tables ----------------------------------------------------------------

def _simultaneous_upper(coverage, M, cells):
    """Clopper-Pearson upper bounds of ``coverage`` (M sets of runs each) at the level
    that makes them simultaneous over ``cells`` cells at :data:`LEVEL` (Bonferroni)."""
    from ..engine.summaries import clopper_pearson

    hits = np.round(np.nan_to_num(coverage) * M).astype(np.int64)
    _, upper = clopper_pearson(hits, M, 1.0 - (1.0 - LEVEL) / max(cells, 1))
    return np.where(np.isfinite(coverage), upper, np.nan)


def summarise(ds):
    """Per group of truths, search, curve, method and k, over the cells (truth, B, n).

    Parameters
    ----------
    ds : xarray.Dataset
        The battery's cells combined (dims ``dist``, ``B``, ``search``,
        ``curve``, ``ci_method``, ``k``, ``n``), as :func:`evpsim.sweep`
        returns them.

    Returns
    -------
    xarray.Dataset
        Dims ``truths`` (``base``, ``lattice``: the groups of
        :func:`evpsim.studies.interval_study.truth_group` the cells have),
        ``search``, ``curve``, ``ci_method``, ``k``: ``cells``;
        ``min_coverage`` with its Clopper-Pearson bounds and where it is
        (``worst_dist``, ``worst_n``); ``surely_below`` (cells whose
        Clopper-Pearson upper bound, simultaneous over the cells of the
        method and curve in every group, search and k, is below
        :data:`GOAL_COVERAGE`), ``below_goal`` (cells whose estimate is),
        ``truths_held`` (truths none of whose cells is surely below, of
        ``truths_run``);
        ``miss_below``, ``miss_above`` (means over cells), ``undefined``
        and ``unbounded`` (largest over cells); ``width_median`` (median
        over cells of the median width over the oracle interval's),
        ``width_worst_n`` (median over truths of that ratio at each
        truth's worst n) and ``width_worst`` (largest over cells). NaN (0
        cells) where a method does not bound a curve.
    """
    from .interval_study import TRUTH_GROUPS, truth_group

    groups = np.array([truth_group(d) for d in ds["dist"].values])
    have = [g for g in TRUTH_GROUPS if (groups == g).any()]
    M = int(ds.attrs.get("option_replicates", ds.attrs.get("replicates")))
    upper = xr.full_like(ds["coverage"], np.nan)
    for curve in ds["curve"].values:
        for m in ds["ci_method"].values:
            cov = ds["coverage"].sel(curve=curve, ci_method=m)
            upper.loc[{"curve": curve, "ci_method": m}] = _simultaneous_upper(
                cov.values, M, int(cov.notnull().sum()))
    parts = [_summarise_group(ds.isel(dist=np.flatnonzero(groups == g)),
                              upper.isel(dist=np.flatnonzero(groups == g))) for g in have]
    out = xr.concat(parts, dim="truths", coords="minimal", compat="override")
    return out.assign_coords(truths=have)


def _summarise_group(ds, upper):
    """:func:`summarise` over the truths of one group."""
    c = ds.stack(cell=("dist", "B", "n"))
    cov = c["coverage"]
    have = cov.notnull()
    worst = cov.fillna(np.inf).argmin("cell")
    out = xr.Dataset()
    out["cells"] = have.sum("cell")
    out["min_coverage"] = cov.min("cell")
    for bound in ("lower", "upper"):
        out[f"min_coverage_{bound}"] = c[f"coverage_{bound}"].isel(cell=worst)
    out["worst_dist"] = xr.DataArray(c["dist"].values[worst.values], dims=worst.dims)
    out["worst_n"] = xr.DataArray(c["n"].values[worst.values], dims=worst.dims)
    u = upper.stack(cell=("dist", "B", "n"))
    out["surely_below"] = (u < GOAL_COVERAGE).where(have).sum("cell")
    run = ds["coverage"].notnull().any(("B", "n"))
    out["truths_run"] = run.sum("dist")
    out["truths_held"] = (~(upper < GOAL_COVERAGE).any(("B", "n")) & run).sum("dist")
    out["below_goal"] = (cov < GOAL_COVERAGE).where(have).sum("cell")
    out["miss_below"] = c["miss_below"].mean("cell")
    out["miss_above"] = c["miss_above"].mean("cell")
    out["undefined"] = c["undefined"].max("cell")
    out["unbounded"] = c["unbounded"].max("cell")
    ratio = ds["width_vs_oracle"]
    out["width_median"] = ratio.stack(cell=("dist", "B", "n")).median("cell")
    out["width_worst_n"] = ratio.max(("B", "n")).median("dist")
    out["width_worst"] = ratio.stack(cell=("dist", "B", "n")).max("cell")
    for var, text in (
            ("min_coverage", "lowest coverage over the cells"),
            ("surely_below", f"cells whose simultaneous Clopper-Pearson upper bound is below "
                             f"{GOAL_COVERAGE:g}"),
            ("below_goal", f"cells whose coverage estimate is below {GOAL_COVERAGE:g}"),
            ("truths_held", "truths none of whose cells is surely below the goal"),
            ("width_median", "median over cells of the median width over the oracle's"),
            ("width_worst_n", "median over truths of the width ratio at each truth's worst n"),
            ("width_worst", "largest width ratio over the cells")):
        out[var].attrs["long_name"] = text
    keep = ("search", "curve", "ci_method", "k")
    return out.drop_vars([v for v in out.coords if v not in keep])


def goal(summary):
    """The goal, criterion by criterion, per method and curve.

    Returns
    -------
    xarray.Dataset
        Boolean, dims ``ci_method``, ``curve``: ``bounds`` (the method
        bounds the curve), ``none_surely_below`` (no cell's simultaneous
        upper bound below :data:`GOAL_COVERAGE`, every group, search and
        k), ``covers`` (every coverage estimate at least
        :data:`GOAL_COVERAGE`), ``oracle_width`` (``width_worst_n`` at most
        :data:`GOAL_ORACLE` everywhere) and ``met`` (bounds, none surely
        below, oracle width).
    """
    over = ("truths", "search", "k")
    out = xr.Dataset()
    out["bounds"] = (summary["cells"] > 0).all(over)
    out["none_surely_below"] = (summary["surely_below"] == 0).all(over) & out["bounds"]
    out["covers"] = (summary["min_coverage"] >= GOAL_COVERAGE).all(over) & out["bounds"]
    out["oracle_width"] = (summary["width_worst_n"] <= GOAL_ORACLE).all(over) & out["bounds"]
    out["met"] = out["bounds"] & out["none_surely_below"] & out["oracle_width"]
    return out.transpose("ci_method", "curve")


def choose(summary):
    """Each curve's default method, and why.

    Coverage first: the narrowest (largest ``width_median`` over groups,
    searches and k) among the methods that meet the goal (:func:`goal`);
    without one, the narrowest among those with no cell surely below
    :data:`GOAL_COVERAGE`; without one, the method with the highest lowest
    coverage among those within the width goal, else overall.

    Returns
    -------
    dict
        ``{curve: (method, reason)}``.
    """
    checks = goal(summary)
    over = ("truths", "search", "k")
    out = {}
    for curve in [str(c) for c in summary["curve"].values]:
        s = summary.sel(curve=curve)
        chk = checks.sel(curve=curve)
        names = [str(m) for m in s["ci_method"].values if bool(chk["bounds"].sel(ci_method=m))]
        width = {m: float(s["width_median"].sel(ci_method=m).max(over)) for m in names}
        low = {m: float(s["min_coverage"].sel(ci_method=m).min(over)) for m in names}
        for var, reason in (("met", "the narrowest of the methods that meet the goal"),
                            ("none_surely_below", "no method meets the goal: the narrowest "
                                                  "of those that meet its coverage")):
            pool = [m for m in names if bool(chk[var].sel(ci_method=m))]
            if pool:
                out[curve] = (min(pool, key=width.get), f"{reason} ({', '.join(pool)})")
                break
        else:
            narrow = [m for m in names if bool(chk["oracle_width"].sel(ci_method=m))]
            out[curve] = (max(narrow or names, key=low.get),
                          "no method meets the goal or its coverage: the highest lowest "
                          "coverage among " + ("those within the width goal" if narrow
                                               else "all"))
    return out
