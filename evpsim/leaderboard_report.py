"""The leaderboard's report: tables, figures and a summary from its Dataset.

:func:`write_report` turns a result of :func:`evpsim.leaderboard.leaderboard`
into ``leaderboard.nc`` (the Dataset), ``leaderboard.md`` (per curve and B:
each estimator's RMSE relative to the reference over truths and n, its
wins and worst cell; each CI method's minimum coverage, share of cells
below 0.93 and median width relative to the percentile interval), figures
(relative RMSE as a truth x n heatmap per B; coverage against n/B per CI
method) and ``summary.md`` (what holds, with intervals, and where no
estimator does well), written all or nothing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["estimator_table", "interval_table", "summary", "write_report", "REFERENCE",
           "SHORT"]

#: the estimator others are measured against, per kind of curve
REFERENCE = {"mean": "V", "quantile": "quantile"}
#: coverage below this is a failing cell
SHORT = 0.93


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
    cells below :data:`SHORT` (as estimates; see the bounds), and the
    median width relative to the percentile interval's of the same
    estimator and cell.
    """
    sub = _cells(ds, curve, B)
    if "coverage" not in sub:
        return []
    ns = sub["n"].values
    rows = ["| estimator | CI method | min coverage [95% CP] (cell) | cells below 0.93, n <= B "
            "| cells below 0.93, n > B | median width / percentile |",
            "|---|---|---|---:|---:|---:|"]
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
            share = []
            for part in (ns[ns <= B], ns[ns > B]):
                c = cov.sel(n=part).values
                c = c[np.isfinite(c)]
                share.append(f"{np.mean(c < SHORT):.0%} of {c.size}" if c.size else "-")
            width = "-"
            if "percentile" in sub["ci_method"].values:
                with np.errstate(invalid="ignore", divide="ignore"):
                    ratio = (sub["mean_width"].sel(estimator=est, ci_method=m)
                             / sub["mean_width"].sel(estimator=est, ci_method="percentile"))
                width = _median(ratio.values.ravel())
            rows.append(f"| {est} | {m} | {float(cov.values[at]):.3f} [{lo:.3f}, {hi:.3f}] "
                        f"({where}) | {share[0]} | {share[1]} | {width} |")
    return rows


def summary(ds):
    """Plain statements of what the leaderboard found, with their intervals."""
    lines = ["# Leaderboard: summary", "",
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
                lines.append(f"- B = {B}: at n <= B, {lead}; it beats {ref} in "
                             f"{share:.0%} of (truth, n) cells.")
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
            sure = int((upper < SHORT).sum())
            cells = int(np.isfinite(cov).sum())
            lo = float(cov.min())
            if sure == 0 and lo >= SHORT:
                out.append(f"  - {est} {m}: coverage at least {lo:.3f} in every one of "
                           f"{cells} cells.")
            elif sure:
                out.append(f"  - {est} {m}: in {sure} of {cells} cells coverage is below "
                           f"{SHORT} even at its Clopper-Pearson upper bound (lowest "
                           f"{lo:.3f}).")
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
        A result of :func:`evpsim.leaderboard.leaderboard`.
    out : str or Path
        A folder (created if missing).

    Returns
    -------
    list of Path
        The files written.
    """
    from pathlib import Path

    from .plots import plot_leaderboard_coverage, plot_leaderboard_rmse
    from .results import ENGINE, atomic_write_all

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
