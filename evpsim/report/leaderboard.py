"""The leaderboard's report: tables (from :mod:`.leaderboard_tables`), figures and a
summary from its Dataset.

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

from .drawing import MODEL_COLORS, pyplot, save_figure
from .leaderboard_tables import (REFERENCE, SHORT, below_short, curve_cells, estimator_table,
                                 interval_table, reference_of, relative_rmse)

__all__ = ["estimator_table", "interval_table", "summary", "write_report", "below_short",
           "plot_leaderboard_rmse", "plot_leaderboard_coverage", "REFERENCE", "SHORT",
           "QUICK_NOTE"]

#: what the first line of a --quick run's summary says (the leaderboard's, a reproduction's)
QUICK_NOTE = "(--quick: reduced sizes, which decide nothing; run without --quick to decide)"


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
        ref = reference_of(curve)
        lines.append(f"## The {curve} curve (reference estimator: {ref})")
        lines.append("")
        for B in ds["B"].values:
            sub = curve_cells(ds, curve, B)
            rel = relative_rmse(sub, ref)
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
                      lambda tmp, c=curve: plot_leaderboard_rmse(ds, c, reference_of(c), tmp)))
        if "coverage" in ds:
            items.append((out / f"coverage-{tag}.png",
                          lambda tmp, c=curve: plot_leaderboard_coverage(ds, c, tmp)))
    return atomic_write_all(items)


def plot_leaderboard_rmse(ds, curve, reference, path):
    """Each estimator's RMSE relative to the reference, truth x n, a panel per B.

    Rows are the estimators other than ``reference``, columns the budgets
    B; colour is log2 of the RMSE ratio (blue: better than the reference,
    red: worse; clipped at 1/4 and 4), the dashed line marks n = B.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.studies.leaderboard.leaderboard`.
    curve : str
        The curve (a value of ``ds["curve"]``).
    reference : str
        The estimator in the denominator.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = pyplot()
    sub = ds.sel(curve=curve)
    names = [str(e) for e in sub["estimator"].values if str(e) != reference
             and np.isfinite(sub["rmse"].sel(estimator=e)).any()]
    Bs = [int(b) for b in sub["B"].values]
    fig, axes = plt.subplots(max(len(names), 1), len(Bs), squeeze=False, layout="constrained",
                             figsize=(3.6 * len(Bs), (0.16 * sub.sizes["dist"] + 0.9)
                                      * max(len(names), 1) + 0.6), sharey=True)
    image = None
    for i, name in enumerate(names):
        for j, B in enumerate(Bs):
            cell = sub.sel(B=B)
            ns = cell["n"].values[np.isfinite(cell["truth_value"]).any("dist").values]
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = (cell["rmse"].sel(estimator=name, n=ns)
                         / cell["rmse"].sel(estimator=reference, n=ns)).values
            ax = axes[i, j]
            image = ax.imshow(np.log2(ratio), aspect="auto", cmap="RdBu_r", vmin=-2, vmax=2,
                              interpolation="nearest")
            ax.set_xticks(range(ns.size), [str(n) for n in ns], fontsize=6, rotation=90)
            ax.axvline(int(np.searchsorted(ns, B)) + 0.5, color="black", lw=0.8, ls="--")
            ax.set_title(f"{name}, B = {B}", fontsize=9)
            if j == 0:
                ax.set_yticks(range(cell.sizes["dist"]),
                              [str(d) for d in cell["dist"].values], fontsize=6)
    for ax in axes[-1]:
        ax.set_xlabel("n")
    if image is not None:
        bar = fig.colorbar(image, ax=axes, shrink=0.6)
        bar.set_ticks([-2, -1, 0, 1, 2], labels=["1/4", "1/2", "1", "2", "4"])
        bar.set_label(f"RMSE / RMSE of {reference}")
    fig.suptitle(f"{curve} curve: RMSE relative to {reference} (blue: better)", fontsize=10)
    return save_figure(fig, path)


def plot_leaderboard_coverage(ds, curve, path):
    """Coverage against n / B, a panel per CI method, a line per truth and B.

    The reference estimator's intervals (V for the mean curve, the quantile
    plug-in for a quantile curve; band methods are the same for every
    estimator), with the nominal level dashed.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.studies.leaderboard.leaderboard`.
    curve : str
        The curve (a value of ``ds["curve"]``).
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = pyplot()
    sub = ds.sel(curve=curve, estimator=reference_of(curve))
    meths = [str(m) for m in sub["ci_method"].values
             if np.isfinite(sub["coverage"].sel(ci_method=m)).any()]
    cols = min(4, len(meths))
    rows = -(-len(meths) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(3.4 * cols, 3.0 * rows),
                             sharex=True, sharey=True)
    level = 0.95
    for ax, m in zip(axes.ravel(), meths):
        for k, B in enumerate(sub["B"].values):
            cov = sub["coverage"].sel(ci_method=m, B=B)
            cov = cov.sel(n=cov["n"].values[np.isfinite(cov).any("dist").values])
            x = cov["n"].values / B
            for d in cov["dist"].values:
                ax.plot(x, cov.sel(dist=d).values, color=MODEL_COLORS[k % len(MODEL_COLORS)],
                        lw=0.6, alpha=0.35)
            ax.plot(x, cov.median("dist").values, color=MODEL_COLORS[k % len(MODEL_COLORS)],
                    lw=1.8, label=f"B = {B} (median over truths)")
        ax.axhline(level, color="black", ls="--", lw=1)
        ax.axvline(1.0, color="grey", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_title(m, fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(meths):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("n / B")
    for ax in axes[:, 0]:
        ax.set_ylabel("coverage")
    axes[0, 0].legend(frameon=False, fontsize=7)
    fig.suptitle(f"{curve} curve: coverage of {reference_of(curve)}'s intervals, a faint line per "
                 f"truth", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
