"""The leaderboard's tables: each estimator's RMSE against the reference's, and each
CI method's coverage, as markdown rows, for one curve and B.

A cell is *surely below* :data:`SHORT` when the Clopper-Pearson upper bound
of its coverage is below it; the share whose coverage *estimate* is below it
stands beside it, labelled so (:func:`below_short`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["REFERENCE", "SHORT", "below_short", "curve_cells", "estimator_table",
           "interval_table", "reference_of", "relative_rmse"]

#: the estimator others are measured against, per kind of curve
REFERENCE = {"mean": "V", "quantile": "quantile"}
#: coverage below this is a failing cell (surely so when its Clopper-Pearson upper bound is)
SHORT = 0.93


def below_short(cov, upper):
    """Cells below :data:`SHORT`: surely (upper bound below it), by estimate, and in all.

    Parameters
    ----------
    cov, upper : array_like
        Coverage estimates and their Clopper-Pearson upper bounds (NaN: no
        value).

    Returns
    -------
    (int, int, int)
        Cells whose upper bound is below :data:`SHORT`, cells whose
        estimate is, and cells with a value.

    Examples
    --------
    >>> below_short([0.80, 0.92, 0.95, float("nan")], [0.90, 0.95, 0.97, float("nan")])
    (1, 2, 3)
    """
    cov, upper = np.asarray(cov, dtype=float), np.asarray(upper, dtype=float)
    have = np.isfinite(cov)
    return (int(np.sum(upper[have] < SHORT)), int(np.sum(cov[have] < SHORT)),
            int(have.sum()))


def _k_of(k, cells):
    return f"{k} of {cells}" if cells else "-"


def reference_of(curve):
    """The estimator of :data:`REFERENCE` for ``curve`` (``"mean"`` or a quantile curve)."""
    return REFERENCE["mean" if str(curve) == "mean" else "quantile"]


def curve_cells(ds, curve, B):
    """The (dist, estimator, n) values of one curve and B, at the cell's own budgets."""
    sub = ds.sel(curve=curve, B=B)
    own = np.isfinite(sub["truth_value"]).any("dist").values
    return sub.sel(n=sub["n"].values[own])


def relative_rmse(sub, ref):
    """RMSE of every estimator relative to the reference's, cell by cell."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sub["rmse"] / sub["rmse"].sel(estimator=ref)


def estimator_table(ds, curve, B):
    """Markdown rows: each estimator's RMSE relative to the reference, wins, worst cell.

    Relative RMSE is summarised by its median over the (truth, n) cells
    where both have values, within B and beyond it; a win is a cell where
    the estimator's RMSE is the lowest; the worst cell is its largest
    relative RMSE.
    """
    sub = curve_cells(ds, curve, B)
    ref = reference_of(curve)
    rel = relative_rmse(sub, ref)
    ns = sub["n"].values
    # a win: the lowest RMSE of the cell (ties, such as U = V = W at n = 1, win for all)
    lowest = sub["rmse"].min("estimator")
    have = np.isfinite(lowest)
    rows = [f"| estimator | runs on | median RMSE / {ref}, n <= B | median RMSE / {ref}, "
            f"B < n <= 2B | wins | worst cell (RMSE / {ref}) |",
            "|---|---|---:|---:|---:|---|"]
    for name in sub["estimator"].values:
        r = rel.sel(estimator=name)
        if not np.isfinite(r).any():
            continue
        inside = r.sel(n=ns[ns <= B]).values
        beyond = r.sel(n=ns[ns > B]).values
        wins = int((sub["rmse"].sel(estimator=name) <= lowest * (1 + 1e-9)).sum())
        total = int(have.sum())
        worst = r.where(np.isfinite(r), -np.inf)
        at = np.unravel_index(int(np.argmax(worst.values)), worst.shape)
        dist, n = str(worst["dist"].values[at[0]]), int(worst["n"].values[at[1]])
        reps = int(np.nanmax(sub["replicates"].sel(estimator=name).values)) \
            if "replicates" in sub.coords else 0
        known = np.isfinite(sub["rmse"].sel(estimator=name).values)
        how = ("exact" if bool(np.all(sub["exact"].sel(estimator=name).values[known] > 0))
               else f"{reps:,} searches")
        rows.append(f"| {name} | {how} | {_median(inside)} | {_median(beyond)} | "
                    f"{wins}/{total} | {float(worst.values[at]):.3g} ({dist}, n = {n}) |")
    return rows


def _median(values):
    values = values[np.isfinite(values)]
    return f"{np.median(values):.3f}" if values.size else "-"


def interval_table(ds, curve, B):
    """Markdown rows: per estimator and CI method, the coverage over cells.

    Minimum coverage with its Clopper-Pearson 95% bounds, the share of
    cells surely below :data:`SHORT` (upper bound below it) and, beside
    it, the share whose estimate is below it (:func:`below_short`), and
    the median width relative to the percentile interval's of the same
    estimator and cell.
    """
    sub = curve_cells(ds, curve, B)
    if "coverage" not in sub:
        return []
    ns = sub["n"].values
    rows = [f"| estimator | CI method | min coverage [95% CP] (cell) | cells surely below "
            f"{SHORT} (CP upper bound), n <= B | same, n > B | cells with estimate below "
            f"{SHORT}, n <= B | same, n > B | median width / percentile |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for est in sub["estimator"].values:
        cov_e = sub["coverage"].sel(estimator=est)
        if not np.isfinite(cov_e).any():
            continue
        for m in sub["ci_method"].values:
            cov = cov_e.sel(ci_method=m)
            if not np.isfinite(cov).any():
                continue
            at = np.unravel_index(int(np.nanargmin(cov.values)), cov.shape)
            lo = float(sub["coverage_lower"].sel(estimator=est, ci_method=m).values[at])
            hi = float(sub["coverage_upper"].sel(estimator=est, ci_method=m).values[at])
            where = f"{cov['dist'].values[at[0]]}, n = {int(cov['n'].values[at[1]])}"
            upper = sub["coverage_upper"].sel(estimator=est, ci_method=m)
            counts = [below_short(cov.sel(n=part), upper.sel(n=part))
                      for part in (ns[ns <= B], ns[ns > B])]
            width = "-"
            if "percentile" in sub["ci_method"].values:
                with np.errstate(invalid="ignore", divide="ignore"):
                    ratio = (sub["mean_width"].sel(estimator=est, ci_method=m)
                             / sub["mean_width"].sel(estimator=est, ci_method="percentile"))
                width = _median(ratio.values.ravel())
            rows.append(f"| {est} | {m} | {float(cov.values[at]):.3f} [{lo:.3f}, {hi:.3f}] "
                        f"({where}) | {_k_of(counts[0][0], counts[0][2])} | "
                        f"{_k_of(counts[1][0], counts[1][2])} | "
                        f"{_k_of(counts[0][1], counts[0][2])} | "
                        f"{_k_of(counts[1][1], counts[1][2])} | {width} |")
    return rows

