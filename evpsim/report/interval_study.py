"""Figures of the intervals study: coverage and width of every CI method against n / B, one
pair of figures per curve."""

from __future__ import annotations

import numpy as np

from .drawing import pyplot, save_figure

__all__ = ["plot_interval_study"]


def plot_interval_study(ds, coverage_path, width_path, *, best=None):
    """The intervals study on one curve: coverage and width against n / B, a panel per CI
    method that bounds the curve.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.reproduce.intervals.study` at one curve
        (``.sel(curve=...)``: dims ``dist``, ``B``, ``estimator``,
        ``ci_method``, ``n``); the estimators and methods without values
        there (another curve's) are left out.
    coverage_path, width_path : str or path
        Figure files: coverage (a thin line per truth, B by colour, the lowest
        over truths bold; V and quantile solid, U dashed) and median width
        relative to the oracle interval's (median over truths, the solid
        estimator's 10% to 90% shaded and its widest truth dotted).
    best : str, optional
        A CI method whose panel title is marked as the best trade-off.
    """
    plt = pyplot()
    have = ds["coverage"].notnull()
    ds = ds.sel(estimator=have.any([d for d in have.dims if d != "estimator"]),
                ci_method=have.any([d for d in have.dims if d != "ci_method"]))
    meths = [str(m) for m in ds["ci_method"].values]
    curve = f"{ds['curve'].item()} curve: " if "curve" in ds.coords else ""
    cols = 4
    rows = -(-len(meths) // cols)
    for path, var in ((coverage_path, "coverage"), (width_path, "median_width")):
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.0 * rows), squeeze=False,
                                 sharex=True, sharey=var == "coverage")
        for ax, m in zip(axes.ravel(), meths):
            _draw_method(ax, ds, m, var, m + (" (best trade-off)" if m == best else ""))
        _finish(fig, axes, len(meths), var, curve)
        save_figure(fig, path)
    return coverage_path, width_path


#: a colour per B, in order
PALETTE = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a"]


def _draw_method(ax, ds, method, var, title):
    """One CI method's panel: a line per B and estimator (U dashed, others solid), the
    reference lines, and ``title``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel.
    ds : xarray.Dataset
        As :func:`plot_interval_study` takes it.
    method : str
        The CI method.
    var : {"coverage", "median_width"}
        What the panel draws.
    title : str
        The panel's title.
    """
    for k, B in enumerate(int(b) for b in ds["B"].values):
        color = PALETTE[k % len(PALETTE)]
        for est in [str(e) for e in ds["estimator"].values]:
            style = "--" if est == "U" else "-"
            sub = ds.sel(B=B, estimator=est, ci_method=method)
            x = sub["n"].values / B
            if var == "coverage":
                _coverage_lines(ax, x, sub["coverage"].values, style, color, f"B = {B} ({est})")
            else:
                ref = ds["oracle_width"].sel(B=B, estimator=est)
                with np.errstate(invalid="ignore", divide="ignore"):
                    ratio = (sub["median_width"] / ref.where(ref > 0)).values
                _width_lines(ax, x, ratio, style, color, f"B = {B} ({est})", shade=style == "-")
    if var == "coverage":
        ax.axhline(0.95, color="black", lw=0.8, ls=":")
        ax.axhline(0.93, color="black", lw=0.8, ls="--")
        ax.set_ylim(0.2, 1.01)
    else:
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", lw=0.8, ls=":")
        ax.axhline(1.5, color="black", lw=0.8, ls="--")
        ax.axhline(2.0, color="black", lw=0.8, ls="-.")
    ax.axvline(1.0, color="grey", lw=0.6)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)


def _coverage_lines(ax, x, y, style, color, label):
    """Coverage of every truth (thin) and the lowest over truths (bold) against ``x``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel.
    x : numpy.ndarray
        n / B.
    y : numpy.ndarray
        Coverage, dims (truth, n); NaN at budgets this B does not reach.
    style, color, label
        The lines' style and colour, and the bold line's label.
    """
    ok = np.isfinite(y).any(axis=0)  # this B's budgets (and U's, <= B)
    for row in y[:, ok]:
        ax.plot(x[ok], row, style, color=color, lw=0.4, alpha=0.25)
    ax.plot(x[ok], np.nanmin(y[:, ok], axis=0), style, color=color, lw=1.6, label=label)


def _width_lines(ax, x, ratio, style, color, label, shade):
    """The median over truths of the width relative to the oracle interval's; with
    ``shade``, its 10% to 90% range shaded and the widest truth's dotted.

    Parameters
    ----------
    ax, x, style, color, label
        As :func:`_coverage_lines` takes them.
    ratio : numpy.ndarray
        Width over the oracle interval's, dims (truth, n).
    shade : bool
        Shade the range over truths and draw the widest.
    """
    ok = np.isfinite(ratio).any(axis=0)
    lo, mid, hi = np.nanquantile(ratio[:, ok], [0.1, 0.5, 0.9], axis=0)
    ax.plot(x[ok], mid, style, color=color, lw=1.4, label=label)
    if shade:
        ax.fill_between(x[ok], lo, hi, color=color, alpha=0.12, lw=0)
        ax.plot(x[ok], np.nanmax(ratio[:, ok], axis=0), ":", color=color, lw=0.8)


def _finish(fig, axes, used, var, curve):
    """Hide the panels beyond the ``used`` ones; axis labels, legend and title.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    axes : numpy.ndarray
        Its panels, dims (row, column).
    used : int
        Panels drawn (one per CI method).
    var : {"coverage", "median_width"}
        What the figure draws.
    curve : str
        The curve, opening the title (e.g. ``"median curve: "``), or ``""``.
    """
    for ax in axes.ravel()[used:]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("n / B")
    for ax in axes[:, 0]:
        ax.set_ylabel("coverage (lowest over truths bold)" if var == "coverage" else
                      "median width / oracle's")
    axes[0][0].legend(frameon=False, fontsize=7)
    what = ("coverage of 95% intervals, every truth (thin), the lowest (bold); dashed "
            "line: 0.93" if var == "coverage" else
            "median width relative to the oracle interval's: median over truths, solid "
            "lines shaded 10% to 90%, the widest truth dotted; dashed: 1.5x, dash-dot: 2x")
    fig.suptitle(curve + what, fontsize=10)
    fig.tight_layout()
