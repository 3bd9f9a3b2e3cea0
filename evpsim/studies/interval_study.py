"""Which confidence interval holds at every n, for the mean and the median curve? The cells.

The intervals study (``evpsim reproduce intervals``) sets every
candidate CI method (:data:`CANDIDATES`: the tail methods of the resampling
kind, which reach beyond the sample maximum, the betting kind, valid at
every B, and the order-statistic kind for a quantile curve) beside the
percentile, basic and BCa bootstraps and the LD band (:data:`BASELINES`),
on every truth evpsim knows, their lattice versions, lattice truths whose
best scores tie in one rare atom, and the shipped searches with failed
trials at the metric's floor (:func:`study_truths`), at B = 25, 50, 100, for
the mean curve (estimators U and V) and the median curve (estimator
``quantile``). A *cell* is one truth,
one B and one curve (:func:`cell`, the sweep battery ``intervals``); within
it, every n of the leaderboard's log grid up to 2B
(:func:`evpsim.studies.leaderboard.budgets`; beyond B for V only), and
every method that bounds the cell's curve at its B (the kinds say which
curves they bound):

* coverage, misses below and above, with Clopper-Pearson bounds, from the
  coverage battery (:func:`evpsim.coverage`, ``samples`` searches, the
  metric's range as bounds, :func:`evpsim.studies.leaderboard.metric_bounds`);
* the *median* width of each method's intervals over the first
  ``width_samples`` of those searches, the intervals rebuilt on the same
  samples by :func:`evpsim.bootstrap_intervals` (with resamples of its
  own, as the coverage battery keeps only the mean width);
* the width of the *oracle* interval, the true sampling law of the
  estimator: the distance between the 2.5% and 97.5% quantiles of
  ``est - theta_n`` (``tau_q(n)`` for the median curve) over
  ``oracle_samples`` searches (an interval ``[est - q_97.5, est - q_2.5]``
  covers exactly 95%).

:func:`summarise` reduces cells to a table per method, curve, estimator, B
and group of truths (:func:`truth_group`: evpsim's own truths, their
lattice versions, the rare tied tops, the failed trials); :func:`goal`
checks the study's goal, criterion by criterion: for n <= B, no cell
*surely* below :data:`GOAL_COVERAGE` (its Clopper-Pearson upper bound below
it) and every coverage estimate at least :data:`GOAL_COVERAGE`, at every B
judged, for every estimator of the curve and every group of truths; for V
beyond B, every estimate at least :data:`GOAL_BEYOND`; in every cell (truth,
B, n), a median width at most :data:`GOAL_ORACLE` times the oracle
interval's for n <= B and :data:`GOAL_ORACLE_BEYOND` times it beyond. The
width relative to the percentile interval is reported beside, not judged:
percentile collapses at n = B. :func:`worst_cells` lists where a method
falls short of the coverage goal, :func:`wide_cells` at which n it is wider than the
width goal allows.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .. import _validate as check

__all__ = ["cell", "summarise", "goal", "verdict", "worst_cells", "wide_cells", "study_truths",
           "distinct_laws", "truth_group", "curve_methods", "of_curve", "BASELINES",
           "CANDIDATES", "CURVES", "ESTIMATORS", "BEYOND", "LATTICE_STEPS", "FAILED_SHARES",
           "TOP_MASSES", "GOAL_COVERAGE", "GOAL_BEYOND", "GOAL_ORACLE", "GOAL_ORACLE_BEYOND",
           "TRUTH_GROUPS"]

#: the methods every candidate is set beside, and the reference of every width
BASELINES = ("percentile", "basic", "bca", "ld-equal-tailed")
#: the candidates, for whichever curve each bounds (its kind says): the tail methods of
#: the resampling kind, which reach beyond the sample maximum (the mean curve), the
#: betting kind (the mean curve, valid at every B) and the order-statistic kind (a
#: quantile curve); a new candidate is one more name here. Left out, for their cost
#: against what an earlier full run showed: studentized (0.558 at worst), smoothed
#: (0.768), gpd-tail (0.356 on lattice truths; gpd-tail-lattice is it, bit for bit, off a
#: lattice), m-out-of-n (0.405 on 14 truths) and the calibrated kind (20-35 times
#: gpd-tail's cost; below gpd-tail wherever it misses)
CANDIDATES = ("gpd-tail-lattice", "gpd-tail-bounded", "betting", "order-statistic")
#: the curves, and the estimators of each at n <= B and beyond B (up to 2B)
CURVES = ("mean", "median")
ESTIMATORS = {"mean": ("U", "V"), "median": ("quantile",)}
BEYOND = {"mean": ("V",), "median": ()}
#: the grids of the lattice versions of the KDE truths (``lattice:STEP:kde:NAME``)
LATTICE_STEPS = ("1/100", "1/500", "1/2000")
#: the shares of failed trials at the floor in the shipped searches (``failed:PI:data:...``)
FAILED_SHARES = ("0.03", "0.1", "0.3")
#: the masses of the rare tied tops (``cap:MASS:lattice:STEP:kde:NAME``), and the lattice
#: truths they tie: three fits whose tops differ in shape, on a grid of 1/500 or 1/2,000
TOP_MASSES = ("0.005", "0.01", "0.02")
CAPPED = ("lattice:1/500:kde:sst2-elmo", "lattice:1/500:kde:reuters-lstm",
          "lattice:1/2000:kde:mnli-deberta-base")
#: the goal: coverage estimates of at least GOAL_COVERAGE for n <= B (and no cell surely
#: below it), at least GOAL_BEYOND for V beyond B; in every cell a median width at most
#: GOAL_ORACLE times the oracle interval's for n <= B, GOAL_ORACLE_BEYOND beyond
GOAL_COVERAGE, GOAL_BEYOND, GOAL_ORACLE, GOAL_ORACLE_BEYOND = 0.93, 0.90, 1.5, 2.0
#: the groups of truths the goal is judged on separately (:func:`truth_group`)
TRUTH_GROUPS = ("base", "lattice", "capped", "failed")
#: the level of the intervals
LEVEL = 0.95


def truth_group(spec):
    """``"failed"`` for a truth with failed trials at the floor (``failed:...``),
    ``"capped"`` for one with a rare tied top (``cap:...``), ``"lattice"`` for a truth on
    a grid (``lattice:...``), else ``"base"``.

    Examples
    --------
    >>> [truth_group(t) for t in ("normal", "lattice:1/100:kde:sst5-cnn",
    ...                           "cap:0.01:lattice:1/500:kde:sst2-elmo", "failed:0.1:data:x")]
    ['base', 'lattice', 'capped', 'failed']
    """
    spec = str(spec)
    for prefix, group in (("failed:", "failed"), ("cap:", "capped"), ("lattice:", "lattice")):
        if spec.startswith(prefix):
            return group
    return "base"


def study_truths():
    """Every truth evpsim knows, their lattice versions, rare tied tops and failed trials.

    The truths of :func:`evpsim.studies.leaderboard.leaderboard_truths`;
    then ``lattice:STEP:kde:NAME`` for every KDE truth among them and every
    step of :data:`LATTICE_STEPS` (those not among them already, and those
    whose law is an earlier one's: :func:`distinct_laws`), when the truth
    prefix ``lattice`` is registered
    (:func:`evpsim.truths.register_truth_prefix`); ``cap:MASS:SPEC`` for
    every mass of :data:`TOP_MASSES` and lattice truth of :data:`CAPPED`;
    and ``failed:PI:data:NAME`` for every share of :data:`FAILED_SHARES` and
    every shipped search (:mod:`evpsim.truths.variants`).

    Returns
    -------
    list of str
        Truth specs.
    """
    from ..truths.distributions import list_truths
    from .leaderboard import leaderboard_truths

    base = leaderboard_truths()
    known = list_truths()
    failed = ([f"failed:{pi}:{t}" for pi in FAILED_SHARES for t in base if t.startswith("data:")]
              if "failed:..." in known else [])
    if "lattice:..." not in known:
        return base + failed
    kdes = [t for t in base if t.startswith("kde:")]
    lattice = [f"lattice:{step}:{t}" for step in LATTICE_STEPS for t in kdes]
    capped = ([f"cap:{mass}:{t}" for mass in TOP_MASSES for t in CAPPED]
              if "cap:..." in known else [])
    return base + distinct_laws([t for t in lattice if t not in base]) + distinct_laws(capped) \
        + failed


def distinct_laws(specs):
    """``specs`` without those whose truth is, support and masses bit for bit, an earlier
    one's.

    A KDE fit and its centered twin differ mostly in where their grids of
    points sit, which rounding to a coarser lattice erases: most of their
    lattice versions are one law, and kept twice they would count its cells
    twice. Truths without a finite support are all kept.

    Parameters
    ----------
    specs : list of str
        Truth specs, in order.

    Returns
    -------
    list of str
        The specs kept, in order.
    """
    from ..truths.distributions import make_truth

    seen, kept = [], []
    for spec in specs:
        truth = make_truth(spec)
        support = getattr(truth, "support", None)
        if support is not None:
            if any(np.array_equal(support, s) and np.array_equal(truth.pmf, p) for s, p in seen):
                continue
            seen.append((support, truth.pmf))
        kept.append(spec)
    return kept


def curve_methods(methods, curve, B):
    """The names among ``methods`` (CIMethod) that bound ``curve`` at B (each kind says
    which curves its methods bound, from their smallest B)."""
    from ..estimators.targets import as_target
    from .leaderboard import bounds_curve

    target = as_target(curve)
    return [m.name for m in methods if bounds_curve(m, target, B)]


def cell(dist, B, curve="mean", *, seed=0, ci_methods=BASELINES + CANDIDATES, samples=1000,
         resamples=1000, width_samples=250, oracle_samples=20_000):
    """One cell of the study: every method that bounds ``curve`` on one truth and one B.

    Parameters
    ----------
    dist : str or Truth
        The truth.
    B : int
        Trials per search.
    curve : {"mean", "median"}
        The curve: the mean curve (estimators U and V, V beyond B) or the
        median curve (estimator ``quantile``), :data:`ESTIMATORS`.
    seed : int
        Seed of the coverage battery, whose searches the widths reuse.
    ci_methods : sequence of str
        The CI methods (``percentile`` and ``ld-equal-tailed`` among them:
        the widths' references); those that do not bound ``curve`` at B
        have NaN in this cell.
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
        Dims ``estimator`` (those of the curve), ``ci_method``, ``n``:
        ``coverage`` with ``coverage_lower``/``coverage_upper``,
        ``miss_below``, ``miss_above``, ``undefined``, ``mean_width``,
        ``median_width``; ``oracle_width`` (estimator, n); ``truth_value``
        (n, the exact curve); NaN beyond B but for V. Scalar coordinates
        of the truth, ``B``, ``bounds_lo``, ``bounds_hi``.
    """
    from ..intervals.family import resolve_ci_methods
    from ..truths.distributions import make_truth
    from .coverage import coverage
    from .leaderboard import budgets, metric_bounds
    from .oracle import oracle_widths

    truth = make_truth(dist)
    B = check.B(B)
    curve = check.choice(curve, "curve", CURVES)
    asked = resolve_ci_methods(list(ci_methods))
    for ref in ("percentile", "ld-equal-tailed"):
        if ref not in [m.name for m in asked]:
            raise check.InvalidArgument("ci_methods", f"ci_methods: the study's widths are "
                                                      f"relative to {ref}; include it")
    meths = curve_methods(asked, curve, B)
    samples = check.replicates(samples, "samples")
    resamples = check.integer(resamples, "resamples", minimum=2)
    width_samples = check.integer(width_samples, "width_samples", minimum=1, maximum=samples)
    oracle_samples = check.replicates(oracle_samples, "oracle_samples")
    bounds = metric_bounds(truth)
    ns = budgets(B)
    parts = []
    for chosen, part_ns in ((list(ESTIMATORS[curve]), ns[ns <= B]),
                            (list(BEYOND[curve]), ns[ns > B])):
        if not chosen:
            continue
        cov = coverage(truth, B, estimators=chosen, ci_methods=meths, replicates=samples,
                       resamples=resamples, seed=seed, bounds=bounds, ns=part_ns, curve=curve)
        symbol = "theta" if curve == "mean" else "tau"
        cov = cov[["coverage", "coverage_lower", "coverage_upper", "miss_below", "miss_above",
                   "undefined", "mean_width", symbol]].rename({symbol: "truth_value"})
        cov["median_width"] = _median_widths(truth, B, chosen, meths, part_ns, width_samples,
                                             resamples, seed, bounds, curve)
        cov["oracle_width"] = (("estimator", "n"), oracle_widths(
            truth, B, chosen, part_ns, oracle_samples, seed, curve, LEVEL))
        parts.append(cov.drop_vars([c for c in ("curve", "target", "ci_method_kind")
                                    if c in cov.coords]))
    ds = xr.concat(parts, dim="n", join="outer", data_vars="all", coords="minimal",
                   compat="override")
    ds = ds.reindex(estimator=list(ESTIMATORS[curve]), ci_method=[m.name for m in asked])
    ds.coords["ci_method_kind"] = ("ci_method", [m.kind for m in asked])
    ds["truth_value"] = ds["truth_value"].assign_attrs(
        long_name="exact " + ("mean" if curve == "mean" else "median") + " curve")
    ds["median_width"].attrs["long_name"] = (f"median width of the intervals over the first "
                                             f"{width_samples} searches")
    ds["oracle_width"].attrs["long_name"] = (f"width of the oracle {LEVEL:g} interval: "
                                             f"quantiles of est - truth over "
                                             f"{oracle_samples:,} searches")
    ds.attrs = {**parts[0].attrs, "experiment": "intervals study cell",
                "width_samples": width_samples, "oracle_samples": oracle_samples}
    return ds


def _median_widths(truth, B, ests, meths, ns, count, resamples, seed, bounds, curve):
    """(estimator, ci_method, n): median width over the coverage battery's first searches.

    Search i of the coverage battery is drawn first from stream ``(seed,
    i)``, so the sampler's draws of that stream, sorted, are the search.
    """
    from ..intervals.family import bootstrap_intervals

    widths = []
    for i in range(count):
        xs = truth.sample(B, seed=seed, stream=i)
        iv = bootstrap_intervals(xs, ests, ci_methods=meths, level=LEVEL, resamples=resamples,
                                 seed=seed, stream=i, bounds=bounds, ns=ns, curve=curve)
        widths.append((iv["upper"] - iv["lower"]).values)
    return (("estimator", "ci_method", "n"), np.median(widths, axis=0))


# --- the study's tables ----------------------------------------------------------------------

def _cells(ds, where):
    """Stack dims ``dist`` and ``n`` into ``cell``, keeping the n selected by ``where``
    (a function of n and B) where the cells have values."""
    inside = where(ds["n"], ds["B"])
    return ds.where(inside).stack(cell=("dist", "n"))


def summarise(ds, part="within"):
    """Per method, curve, estimator, B and group of truths, over the cells (truth, n) of
    ``part``.

    Parameters
    ----------
    ds : xarray.Dataset
        The study's cells combined (dims ``dist``, ``B``, ``curve``,
        ``estimator``, ``ci_method``, ``n``).
    part : {"within", "beyond"}
        n up to B, or beyond B (V only).

    Returns
    -------
    xarray.Dataset
        Dims ``truths`` (the groups of :func:`truth_group` the study has),
        ``B``, ``curve``, ``estimator``, ``ci_method``: ``min_coverage``
        with its Clopper-Pearson bounds (``min_coverage_lower``/``_upper``)
        and where it is (``worst_dist``, ``worst_n``);
        ``surely_below_goal`` (share of cells whose Clopper-Pearson upper
        bound is below :data:`GOAL_COVERAGE`), ``below_goal`` (share whose
        estimate is; ``below_beyond_goal``: below :data:`GOAL_BEYOND`),
        ``miss_below`` and ``miss_above`` (mean over cells),
        ``cells``; the median over cells of the median width relative
        to the percentile interval's (``width_vs_percentile``), to the LD
        band's (``width_vs_ld``) and to the oracle interval's
        (``width_vs_oracle``); the largest ratio to the oracle's over the
        cells (``max_width_vs_oracle``) and where it is (``widest_dist``,
        ``widest_n``), and the share of cells whose ratio is above the
        goal's (``wide_cells``: :data:`GOAL_ORACLE` within B,
        :data:`GOAL_ORACLE_BEYOND` beyond). NaN (and 0 cells) where a method
        does not bound a curve or an estimator is not of it.
    """
    part = check.choice(part, "part", ("within", "beyond"))
    groups = np.array([truth_group(d) for d in ds["dist"].values])
    have = [g for g in TRUTH_GROUPS if (groups == g).any()]
    out = xr.concat([_summarise_group(ds.isel(dist=np.flatnonzero(groups == g)), part)
                     for g in have], dim="truths", coords="minimal", compat="override")
    return out.assign_coords(truths=have)


def _summarise_group(ds, part):
    """:func:`summarise` over the truths of ``ds`` (one group)."""
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
        out["below_beyond_goal"] = (cov < GOAL_BEYOND).where(have).sum("cell") / cells
        out["surely_below_goal"] = (c["coverage_upper"] < GOAL_COVERAGE).where(have).sum(
            "cell") / cells
    out["miss_below"] = c["miss_below"].mean("cell")
    out["miss_above"] = c["miss_above"].mean("cell")
    width = c["median_width"]
    for name, ref in (("percentile", width.sel(ci_method="percentile")),
                      ("ld", width.sel(ci_method="ld-equal-tailed")),
                      ("oracle", c["oracle_width"])):
        ratio = _ratio(width, ref)
        out[f"width_vs_{name}"] = ratio.median("cell")
    widest = ratio.fillna(-np.inf).argmax("cell")
    out["max_width_vs_oracle"] = ratio.max("cell")
    out["widest_dist"] = xr.DataArray(c["dist"].values[widest.values], dims=widest.dims)
    out["widest_n"] = xr.DataArray(c["n"].values[widest.values], dims=widest.dims)
    limit = GOAL_ORACLE if part == "within" else GOAL_ORACLE_BEYOND
    with np.errstate(invalid="ignore"):
        out["wide_cells"] = (ratio > limit).where(ratio.notnull()).sum("cell") / cells
    for var, text in (("min_coverage", "lowest coverage over the cells"),
                      ("below_goal", f"share of cells whose coverage estimate is below "
                                     f"{GOAL_COVERAGE:g}"),
                      ("below_beyond_goal", f"share of cells whose coverage estimate is "
                                            f"below {GOAL_BEYOND:g}"),
                      ("surely_below_goal", f"share of cells whose Clopper-Pearson upper bound "
                                            f"is below {GOAL_COVERAGE:g}"),
                      ("width_vs_percentile", "median over cells of the median width relative "
                                              "to the percentile interval's"),
                      ("width_vs_ld", "median over cells of the median width relative to the "
                                      "LD band's"),
                      ("width_vs_oracle", "median over cells of the median width relative to "
                                          "the oracle interval's"),
                      ("max_width_vs_oracle", "largest median width relative to the oracle "
                                              "interval's over the cells"),
                      ("wide_cells", f"share of cells whose median width is above "
                                     f"{limit:g} times the oracle interval's")):
        out[var].attrs["long_name"] = text
    keep = ("B", "curve", "estimator", "ci_method")
    return out.drop_vars([v for v in out.coords if v not in keep])


def of_curve(summary, curve, Bs, estimators=None):
    """``summary`` (of :func:`summarise`) at the budgets ``Bs``, the curve ``curve`` and
    ``estimators`` (default the curve's, :data:`ESTIMATORS`)."""
    return summary.sel(B=list(Bs), curve=curve,
                       estimator=list(ESTIMATORS[curve] if estimators is None else estimators))


def goal(within, beyond, Bs):
    """The goal, criterion by criterion, per method and curve, at every B of ``Bs``.

    Parameters
    ----------
    within, beyond : xarray.Dataset
        :func:`summarise` of the study at n <= B and at B < n <= 2B.
    Bs : sequence of int
        The budgets the goal is judged at.

    Returns
    -------
    xarray.Dataset
        Boolean, dims ``ci_method``, ``curve``: ``bounds`` (the method has
        cells of the curve at every B and in every group of truths),
        ``none_surely_below`` (no cell n <= B whose Clopper-Pearson upper
        bound is below :data:`GOAL_COVERAGE`), ``covers`` (every estimate
        n <= B at least :data:`GOAL_COVERAGE`), ``covers_beyond`` (every
        estimate of the estimators of :data:`BEYOND` beyond B at least
        :data:`GOAL_BEYOND`; true for a curve without them),
        ``oracle_width`` (in every cell, median width at most
        :data:`GOAL_ORACLE` times the oracle's for n <= B, and
        :data:`GOAL_ORACLE_BEYOND` times it beyond B), and ``met``: all of
        them.
    """
    rows = []
    for curve in [str(c) for c in within["curve"].values]:
        s = of_curve(within, curve, Bs)
        over = ("truths", "B", "estimator")
        row = xr.Dataset()
        row["bounds"] = (s["cells"] > 0).all(over)
        row["none_surely_below"] = (s["surely_below_goal"] == 0).all(over)
        row["covers"] = (s["min_coverage"] >= GOAL_COVERAGE).all(over)
        row["oracle_width"] = (s["max_width_vs_oracle"] <= GOAL_ORACLE).all(over)
        if BEYOND[curve]:
            b = of_curve(beyond, curve, Bs, BEYOND[curve])
            row["covers_beyond"] = ((b["min_coverage"] >= GOAL_BEYOND)
                                    & (b["cells"] > 0)).all(over)
            row["oracle_width"] = row["oracle_width"] & (
                b["max_width_vs_oracle"] <= GOAL_ORACLE_BEYOND).all(over)
        else:
            row["covers_beyond"] = xr.ones_like(row["bounds"])
        rows.append(row.drop_vars([v for v in row.coords if v != "ci_method"]))
    out = xr.concat(rows, dim="curve").assign_coords(curve=[str(c) for c in within["curve"].values])
    out["met"] = out["bounds"]
    for var in ("none_surely_below", "covers", "covers_beyond", "oracle_width"):
        out["met"] = out["met"] & out[var]
    return out.transpose("ci_method", "curve")


def verdict(within, beyond, Bs):
    """Which methods reach the goal (:func:`goal`), per curve.

    Returns
    -------
    xarray.DataArray
        Boolean (ci_method, curve).
    """
    return goal(within, beyond, Bs)["met"]


def worst_cells(ds, method, curve, Bs, count=5):
    """The lowest coverage estimates of ``method`` on ``curve`` at the budgets ``Bs``.

    Parameters
    ----------
    ds : xarray.Dataset
        The study's cells combined.
    method, curve : str
        The CI method and the curve.
    Bs : sequence of int
        The budgets judged.
    count : int
        How many cells.

    Returns
    -------
    list of dict
        Lowest coverage first: ``dist``, ``B``, ``n``, ``estimator``,
        ``coverage``, ``lower``, ``upper``, ``miss_below``, ``miss_above``,
        ``beyond`` (n > B) and ``goal`` (the estimate's goal there:
        :data:`GOAL_BEYOND` beyond B, else :data:`GOAL_COVERAGE`), the
        cells below their goal only.
    """
    sub = ds.sel(B=list(Bs), curve=curve, ci_method=method,
                 estimator=list(ESTIMATORS[curve]))
    cols = ["coverage", "coverage_lower", "coverage_upper", "miss_below", "miss_above"]
    table = sub[cols].reset_coords(drop=True).to_dataframe().dropna(subset=["coverage"])
    table = table.reset_index()
    table["beyond"] = table["n"] > table["B"]
    table = table[~table["beyond"] | table["estimator"].isin(BEYOND[curve])]
    table["goal"] = np.where(table["beyond"], GOAL_BEYOND, GOAL_COVERAGE)
    table = table[table["coverage"] < table["goal"]]
    table = table.assign(short=table["coverage"] - table["goal"]).sort_values(
        ["short", "dist", "B", "n"], kind="stable")
    return [dict(dist=str(r.dist), B=int(r.B), n=int(r.n), estimator=str(r.estimator),
                 coverage=float(r.coverage), lower=float(r.coverage_lower),
                 upper=float(r.coverage_upper), miss_below=float(r.miss_below),
                 miss_above=float(r.miss_above), beyond=bool(r.beyond), goal=float(r.goal))
            for r in table.head(count).itertuples()]


#: the spans of n :func:`wide_cells` counts over: (label, lowest n / B excluded, highest
#: n / B included), n = 1 on its own (theta_1 is the mean; its bounds None)
SPANS = (("n = 1", None, None), ("1 < n <= B/4", 0.0, 0.25), ("B/4 < n <= B/2", 0.25, 0.5),
         ("B/2 < n <= B", 0.5, 1.0), ("B < n <= 2B", 1.0, 2.0))


def _ratio(width, ref):
    """``width / ref`` where ``ref`` is positive, NaN elsewhere (no ratio to a width of 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (width / ref).where(ref > 0)


def wide_cells(ds, method, curve, Bs):
    """Where ``method`` is wider than the width goal on ``curve``: per span of n
    (:data:`SPANS`), its cells wider than :data:`GOAL_ORACLE` times the oracle interval's
    (:data:`GOAL_ORACLE_BEYOND` beyond B, for the estimators of :data:`BEYOND`) and the
    median ratio there.

    Parameters
    ----------
    ds, method, curve, Bs
        As :func:`worst_cells` takes them.

    Returns
    -------
    list of dict
        One per span with cells: ``span``, ``cells`` (truth, B, n, estimator with a
        ratio), ``wide`` (of them, wider than the goal), ``median`` (the median ratio
        over the span's cells), ``limit``; cells whose oracle width is 0 have no ratio.
    """
    sub = ds.sel(B=list(Bs), curve=curve, ci_method=method, estimator=list(ESTIMATORS[curve]))
    ratio = _ratio(sub["median_width"], sub["oracle_width"])
    table = ratio.rename("ratio").reset_coords(drop=True).to_dataframe().dropna().reset_index()
    share = table["n"] / table["B"]
    out = []
    for label, low, high in SPANS:
        if low is None:
            keep = table["n"] == 1
        else:
            keep = (table["n"] > 1) & (share > low) & (share <= high)
        beyond = low is not None and low >= 1.0
        if beyond:
            keep &= table["estimator"].isin(BEYOND[curve])
        rows = table[keep]
        if rows.empty:
            continue
        limit = GOAL_ORACLE_BEYOND if beyond else GOAL_ORACLE
        out.append(dict(span=label, cells=len(rows), wide=int((rows["ratio"] > limit).sum()),
                        median=float(rows["ratio"].median()), limit=limit))
    return out
