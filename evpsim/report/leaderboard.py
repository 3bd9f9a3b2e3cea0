"""The leaderboard's report: tables, figures and a summary from its Dataset.

:func:`write_report` turns a result of :func:`evpsim.studies.leaderboard.leaderboard`
into ``leaderboard.nc`` (the Dataset), ``leaderboard.md`` (per curve and B:
each estimator's RMSE relative to the reference over truths and n, its
wins and worst cell; each CI method's minimum coverage, share of cells
surely below 0.93 (:func:`below_short`) and median width relative to the
percentile interval), figures (relative RMSE as a truth x n heatmap per B;
coverage against n/B per CI method) and ``summary.md`` (what holds, with
intervals, and where no estimator does well), written all or nothing.

A cell is *surely below* 0.93 when the Clopper-Pearson upper bound of its
coverage is below 0.93; the share whose coverage *estimate* is below 0.93
stands beside it, labelled so, in the table and the summary alike.
"""

from __future__ import annotations

import numpy as np

__all__ = ["estimator_table", "interval_table", "summary", "write_report", "below_short",
           "REFERENCE", "SHORT", "QUICK_NOTE"]

#: the estimator others are measured against, per kind of curve
REFERENCE = {"mean": "V", "quantile": "quantile"}
#: coverage below this is a failing cell (surely so when its Clopper-Pearson upper bound is)
SHORT = 0.93
#: what the first line of a --quick run's summary says (the leaderboard's, a reproduction's)
QUICK_NOTE = "(--quick: reduced sizes, which decide nothing; run without --quick to decide)"


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


def _reference(curve):
    return REFERENCE["mean" if str(curve) == "mean" else "quantile"]


def _cells(ds, curve, B):
    """The (dist, estimator, n) values of one curve and B, at the cell's own budgets."""
    sub = ds.sel(curve=curve, B=B)
    own = np.isfinite(sub["truth_value"]).any("dist").values
    return sub.sel(n=sub["n"].values[own])


def _relative(sub, ref):
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
    sub = _cells(ds, curve, B)
    ref = _reference(curve)
    rel = _relative(sub, ref)
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
    sub = _cells(ds, curve, B)
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


def summary(ds):
    """Plain statements of what the leaderboard found, with their intervals.

    The first line of a ``--quick`` run's summary says that its sizes
    decide nothing, and its statements name no estimator but "at these
    sizes".
    """
    quick = ds.attrs.get("leaderboard_size") == "quick"
    lines = ["# Leaderboard: summary" + (f" {QUICK_NOTE}" if quick else ""), "",
             f"{ds.sizes['dist']} truths, B in {{{', '.join(map(str, ds['B'].values))}}}, "
             f"curves {', '.join(map(str, ds['curve'].values))}; seed {ds.attrs.get('seed')}, "
             f"run size {ds.attrs.get('leaderboard_size', '?')} (bias: "
             f"{ds.attrs.get('option_replicates')} searches, exact where known; coverage: "
             f"{ds.attrs.get('option_coverage_replicates')} samples x {ds.attrs.get('option_resamples')} "
             f"resamples per cell).", ""]
    for curve in ds["curve"].values:
        ref = _reference(curve)
        lines.append(f"## The {curve} curve (reference estimator: {ref})")
        lines.append("")
        for B in ds["B"].values:
            sub = _cells(ds, curve, B)
            rel = _relative(sub, ref)
            ns = sub["n"].values
            best = []
            for name in sub["estimator"].values:
                if name == ref:
                    continue
                r = rel.sel(estimator=name, n=ns[ns <= B]).values.ravel()
                r = r[np.isfinite(r)]
                if r.size:
                    best.append((float(np.median(r)), float(np.mean(r < 1)), str(name)))
            if best:
                med, share, name = min(best)
                lead = (f"{name} has the lowest median RMSE relative to {ref} ({med:.3f})"
                        if med < 1 else f"no estimator has a median RMSE below {ref}'s; the "
                                        f"closest is {name} ({med:.3f})")
                lines.append(f"- B = {B}: at n <= B{', at these sizes' if quick else ''}, "
                             f"{lead}; it beats {ref} in {share:.0%} of (truth, n) cells.")
            lines += _interval_statements(sub, B)
            lines += _nobody(sub, B)
        lines.append("")
    return lines


def _interval_statements(sub, B):
    if "coverage" not in sub:
        return []
    out = []
    for est in sub["estimator"].values:
        for m in sub["ci_method"].values:
            cov = sub["coverage"].sel(estimator=est, ci_method=m)
            if not np.isfinite(cov).any():
                continue
            upper = sub["coverage_upper"].sel(estimator=est, ci_method=m)
            sure, point, cells = below_short(cov, upper)
            out.append(f"  - {est} {m}: coverage surely below {SHORT} (its Clopper-Pearson "
                       f"upper bound below it) in {sure} of {cells} cells; estimate below "
                       f"{SHORT} in {point}; lowest estimate {float(cov.min()):.3f}.")
    return out


def _nobody(sub, B):
    """Cells where every estimator's bias exceeds twice its SD: systematically off."""
    off = (np.abs(sub["bias"]) > 2 * sub["sd"]) | ~np.isfinite(sub["rmse"])
    every = off.all("estimator") & np.isfinite(sub["rmse"]).any("estimator")
    if not bool(every.any()):
        return ["  - every (truth, n) cell has an estimator whose bias is within twice its "
                "SD."]
    where = every.sum("dist")
    ns = [int(n) for n, k in zip(sub["n"].values, where.values) if k]
    return [f"  - no estimator does well (every one's bias exceeds twice its SD) at n = "
            f"{', '.join(map(str, ns))} in {int(every.sum())} (truth, n) cells, "
            + ("all beyond B." if min(ns) > B else "some within B.")]


def write_report(ds, out):
    """Write ``leaderboard.nc``, ``leaderboard.md``, ``summary.md`` and figures into ``out``.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.studies.leaderboard.leaderboard`.
    out : str or Path
        A folder (created if missing).

    Returns
    -------
    list of Path
        The files written.
    """
    from pathlib import Path

    from ..io.results import ENGINE, atomic_write_all
    from .plots import plot_leaderboard_coverage, plot_leaderboard_rmse

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md = ["# Leaderboard", ""]
    for curve in ds["curve"].values:
        for B in ds["B"].values:
            md += [f"## {curve} curve, B = {B}", "", "### Estimators", ""]
            md += estimator_table(ds, curve, B)
            rows = interval_table(ds, curve, B)
            if rows:
                md += ["", "### Intervals", ""] + rows
            md.append("")
    text = "\n".join(md) + "\n"
    items = [(out / "leaderboard.nc", lambda tmp: ds.to_netcdf(tmp, engine=ENGINE)),
             (out / "leaderboard.md", lambda tmp: Path(tmp).write_text(text)),
             (out / "summary.md", lambda tmp: Path(tmp).write_text("\n".join(summary(ds))
                                                                     + "\n"))]
    for curve in ds["curve"].values:
        tag = str(curve).replace(":", "-")
        items.append((out / f"rmse-{tag}.png",
                      lambda tmp, c=curve: plot_leaderboard_rmse(ds, c, _reference(c), tmp)))
        if "coverage" in ds:
            items.append((out / f"coverage-{tag}.png",
                          lambda tmp, c=curve: plot_leaderboard_coverage(ds, c, tmp)))
    return atomic_write_all(items)
