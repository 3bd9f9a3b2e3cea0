"""Which confidence interval for theta_n holds at every n? The cells of the study.

The intervals study (``evpsim reproduce intervals``) sets every
candidate CI method (the resampling kinds, which reach beyond the sample maximum) beside the percentile, basic and BCa bootstraps and the
LD band, for the estimators U and V, on every truth evpsim knows, at
B = 25, 50, 100. A *cell* is one truth and one B (:func:`cell`, the sweep
battery ``intervals``); within it, every n of the leaderboard's log grid
up to 2B (:func:`evpsim.studies.leaderboard.budgets`; beyond B for V only):

* coverage, misses below and above, with Clopper-Pearson bounds, from the
  coverage battery (:func:`evpsim.coverage`, ``samples`` searches, the
  metric's range as bounds, :func:`evpsim.studies.leaderboard.metric_bounds`);
* the *median* width of each method's intervals over the first
  ``width_samples`` of those searches, the intervals rebuilt on the same
  samples by :func:`evpsim.bootstrap_intervals` (with resamples of its
  own, as the coverage battery keeps only the mean width);
* the width of the *oracle* interval, the true sampling law of the
  estimator: the distance between the 2.5% and 97.5% quantiles of
  ``est - theta_n`` over ``oracle_samples`` searches (an interval
  ``[est - q_97.5, est - q_2.5]`` covers exactly 95%).

:func:`summarise` reduces cells to a table per method, estimator and B;
:func:`verdict` checks the study's goal: a coverage estimate of at least
:data:`GOAL_COVERAGE` in every cell at the largest two B with median width
at most :data:`GOAL_WIDTH` times the percentile interval's. A cell is
*surely* below :data:`GOAL_COVERAGE` when its Clopper-Pearson upper bound
is; the tables count those first, the cells whose estimate is below it
beside them.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .. import _validate as check

__all__ = ["cell", "summarise", "verdict", "BASELINES", "CANDIDATES", "ESTIMATORS",
           "GOAL_COVERAGE", "GOAL_WIDTH"]

#: the methods every candidate is set beside, and the reference of every width
BASELINES = ("percentile", "basic", "bca", "ld-equal-tailed")
#: the candidates: the CI methods that reach beyond the sample maximum (kind resampling)
CANDIDATES = ("studentized", "smoothed", "gpd-tail", "m-out-of-n")
ESTIMATORS = ("U", "V")
#: the goal: this coverage in every cell, and median width at most this times percentile's
GOAL_COVERAGE, GOAL_WIDTH = 0.93, 2.0
#: the level of the intervals
LEVEL = 0.95


def cell(dist, B, *, seed=0, ci_methods=BASELINES + CANDIDATES, samples=1000, resamples=1000,
         width_samples=250, oracle_samples=20_000):
    """One cell of the study: every method on one truth and one B.

    Parameters
    ----------
    dist : str or Truth
        The truth.
    B : int
        Trials per search.
    seed : int
        Seed of the coverage battery, whose searches the widths reuse.
    ci_methods : sequence of str
        The CI methods (``percentile`` and ``ld-equal-tailed`` among them:
        the widths' references).
    samples, resamples : int
        Searches and resamples of the coverage battery.
    width_samples : int
        The first searches whose median widths are measured (at most
        ``samples``).
    oracle_samples : int
        Searches behind the oracle interval's width.

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` (U, V), ``ci_method``, ``n``: ``coverage`` with
        ``coverage_lower``/``coverage_upper``, ``miss_below``,
        ``miss_above``, ``undefined``, ``mean_width``, ``median_width``;
        ``oracle_width`` (estimator, n); ``theta`` (n); NaN for U beyond
        B. Scalar coordinates of the truth, ``B``, ``bounds_lo``,
        ``bounds_hi``.
    """
    from ..intervals.family import resolve_ci_methods
    from ..truths.distributions import make_truth
    from .coverage import coverage
    from .leaderboard import budgets, metric_bounds

    truth = make_truth(dist)
    B = check.B(B)
    meths = [m.name for m in resolve_ci_methods(list(ci_methods))]
    for ref in ("percentile", "ld-equal-tailed"):
        if ref not in meths:
            raise check.InvalidArgument("ci_methods", f"ci_methods: the study's widths are "
                                                      f"relative to {ref}; include it")
    samples = check.replicates(samples, "samples")
    resamples = check.integer(resamples, "resamples", minimum=2)
    width_samples = check.integer(width_samples, "width_samples", minimum=1, maximum=samples)
    oracle_samples = check.replicates(oracle_samples, "oracle_samples")
    bounds = metric_bounds(truth)
    ns = budgets(B)
    parts = []
    for chosen, part_ns in ((list(ESTIMATORS), ns[ns <= B]), (["V"], ns[ns > B])):
        cov = coverage(truth, B, estimators=chosen, ci_methods=meths, replicates=samples,
                       resamples=resamples, seed=seed, bounds=bounds, ns=part_ns)
        cov = cov[["coverage", "coverage_lower", "coverage_upper", "miss_below", "miss_above",
                   "undefined", "mean_width", "theta"]]
        cov["median_width"] = _median_widths(truth, B, chosen, meths, part_ns, width_samples,
                                             resamples, seed, bounds)
        cov["oracle_width"] = _oracle_widths(truth, B, chosen, part_ns, oracle_samples, seed)
        parts.append(cov)
    ds = xr.concat(parts, dim="n", join="outer", data_vars="all", coords="minimal",
                   compat="override")
    ds = ds.reindex(estimator=list(ESTIMATORS))
    ds["median_width"].attrs["long_name"] = (f"median width of the intervals over the first "
                                             f"{width_samples} searches")
    ds["oracle_width"].attrs["long_name"] = (f"width of the oracle {LEVEL:g} interval: "
                                             f"quantiles of est - theta_n over "
                                             f"{oracle_samples:,} searches")
    ds.attrs = {**parts[0].attrs, "experiment": "intervals study cell",
                "width_samples": width_samples, "oracle_samples": oracle_samples}
    return ds


def _median_widths(truth, B, ests, meths, ns, count, resamples, seed, bounds):
    """(estimator, ci_method, n): median width over the coverage battery's first searches.

    Search i of the coverage battery is drawn first from stream ``(seed,
    i)``, so the sampler's draws of that stream, sorted, are the search.
    """
    from ..intervals.family import bootstrap_intervals

    widths = []
    for i in range(count):
        xs = truth.sample(B, seed=seed, stream=i)
        iv = bootstrap_intervals(xs, ests, ci_methods=meths, level=LEVEL, resamples=resamples,
                                 seed=seed, stream=i, bounds=bounds, ns=ns)
        widths.append((iv["upper"] - iv["lower"]).values)
    return (("estimator", "ci_method", "n"), np.median(widths, axis=0))


def _oracle_widths(truth, B, ests, ns, count, seed):
    """(estimator, n): the 97.5% minus the 2.5% quantile of ``est - theta_n``, over
    searches drawn from the stream of searches of B trials (:mod:`evpsim.engine.streams`)."""
    from ..engine.streams import search_streams
    from ..estimators.family import resolve_estimators

    xs = np.sort(truth.sample(count * B, seed=seed, stream=search_streams(B)).reshape(count, B),
                 axis=1)
    theta = truth.theta(ns)
    alpha = 0.5 * (1.0 - LEVEL)
    out = []
    for e in resolve_estimators(ests):
        q = np.quantile(xs @ e.weight_rows(B, ns).T - theta, [alpha, 1.0 - alpha], axis=0)
        out.append(q[1] - q[0])
    return (("estimator", "n"), np.array(out))


# --- the study's tables ----------------------------------------------------------------------

def _cells(ds, where):
    """Stack dims ``dist`` and ``n`` into ``cell``, keeping the n selected by ``where``
    (a function of n and B) where the cells have values."""
    inside = where(ds["n"], ds["B"])
    return ds.where(inside).stack(cell=("dist", "n"))


def summarise(ds, part="within"):
    """Per method, estimator and B, over the cells (truth, n) of ``part``.

    Parameters
    ----------
    ds : xarray.Dataset
        The study's cells combined (dims ``dist``, ``B``, ``estimator``,
        ``ci_method``, ``n``).
    part : {"within", "beyond"}
        n up to B, or beyond B (V only).

    Returns
    -------
    xarray.Dataset
        Dims ``B``, ``estimator``, ``ci_method``: ``min_coverage`` with its
        Clopper-Pearson bounds (``min_coverage_lower``/``_upper``) and
        where it is (``worst_dist``, ``worst_n``); ``surely_below_goal``
        (share of cells whose Clopper-Pearson upper bound is below
        :data:`GOAL_COVERAGE`), ``below_goal`` (share whose estimate is),
        ``miss_below`` and ``miss_above`` (mean over cells), ``cells``;
        and the median over cells of the median width relative to the
        percentile interval's (``width_vs_percentile``), to the LD band's
        (``width_vs_ld``) and to the oracle interval's
        (``width_vs_oracle``).
    """
    part = check.choice(part, "part", ("within", "beyond"))
    where = (lambda n, B: n <= B) if part == "within" else (lambda n, B: n > B)
    c = _cells(ds, where)
    cov = c["coverage"]
    have = cov.notnull()
    cells = have.sum("cell")
    worst = cov.fillna(np.inf).argmin("cell")
    pick = {"cell": worst}
    out = xr.Dataset()
    out["cells"] = cells
    out["min_coverage"] = cov.min("cell")
    out["min_coverage_lower"] = c["coverage_lower"].isel(pick)
    out["min_coverage_upper"] = c["coverage_upper"].isel(pick)
    out["worst_dist"] = xr.DataArray(c["dist"].values[worst.values], dims=worst.dims)
    out["worst_n"] = xr.DataArray(c["n"].values[worst.values], dims=worst.dims)
    with np.errstate(invalid="ignore"):
        out["below_goal"] = (cov < GOAL_COVERAGE).where(have).sum("cell") / cells
        out["surely_below_goal"] = (c["coverage_upper"] < GOAL_COVERAGE).where(have).sum(
            "cell") / cells
    out["miss_below"] = c["miss_below"].mean("cell")
    out["miss_above"] = c["miss_above"].mean("cell")
    width = c["median_width"]
    for name, ref in (("percentile", width.sel(ci_method="percentile")),
                      ("ld", width.sel(ci_method="ld-equal-tailed")),
                      ("oracle", c["oracle_width"])):
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = (width / ref).where(ref > 0)
        out[f"width_vs_{name}"] = ratio.median("cell")
    for var, text in (("min_coverage", "lowest coverage over the cells"),
                      ("below_goal", f"share of cells whose coverage estimate is below "
                                     f"{GOAL_COVERAGE:g}"),
                      ("surely_below_goal", f"share of cells whose Clopper-Pearson upper bound "
                                            f"is below {GOAL_COVERAGE:g}"),
                      ("width_vs_percentile", "median over cells of the median width relative "
                                              "to the percentile interval's"),
                      ("width_vs_ld", "median over cells of the median width relative to the "
                                      "LD band's"),
                      ("width_vs_oracle", "median over cells of the median width relative to "
                                          "the oracle interval's")):
        out[var].attrs["long_name"] = text
    return out.drop_vars([v for v in out.coords if v not in ("B", "estimator", "ci_method")])


def verdict(summary, Bs):
    """Which methods reach the goal at every B of ``Bs``, for both estimators.

    Returns
    -------
    xarray.DataArray
        Boolean (ci_method): a coverage estimate of at least
        :data:`GOAL_COVERAGE` in every cell and median width at most :data:`GOAL_WIDTH` times the
        percentile interval's, at each B of ``Bs`` and for each estimator.
    """
    s = summary.sel(B=list(Bs))
    ok = (s["min_coverage"] >= GOAL_COVERAGE) & (s["width_vs_percentile"] <= GOAL_WIDTH)
    return ok.all(("B", "estimator"))
