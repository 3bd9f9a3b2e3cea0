"""The figure of ``evpsim curve``: the curves with the distribution-free bound and, when
the self-check ran, its coverage against n.

Built on :func:`evpsim.report.curves.plot_curve`, whose panels (a panel per
CI method) stay as they are; the bound is drawn into each of them and the
self-check's coverage gets a row of panels below.
"""

from __future__ import annotations

import numpy as np

from ..io.results import atomic_write
from .curves import CURVE_STYLE, plot_curve
from .drawing import MODEL_COLORS

__all__ = ["plot_curve_figure", "plot_check_coverage", "figure_caption", "auto_log_x",
           "LOG_X_FROM"]

#: the x axis is log-scaled by default when the largest B is at least this
LOG_X_FROM = 100
#: height (inches) of the row of coverage panels
COVERAGE_HEIGHT = 3.4


def auto_log_x(ds, log_x=None):
    """``log_x``, or when None, whether the largest B of ``ds`` is at least
    :data:`LOG_X_FROM` (on a linear axis, the first few budgets, where a curve rises
    most, take a sliver of the width)."""
    return bool(int(ds["B"].max()) >= LOG_X_FROM) if log_x is None else bool(log_x)


def _draw_bound(fig, ds, estimator):
    """Each model's distribution-free bound, dashed in its colour, on every panel."""
    if "free_bound" not in ds or not np.isfinite(float(ds["free_bound_worst"])):
        return
    from matplotlib.lines import Line2D

    side = "upper" if bool(ds["minimize"]) else "lower"
    label = f"{float(ds.attrs['level']):.0%} {side} bound, any F"
    for ax in fig.axes:
        curves = {line.get_label(): line for line in ax.get_lines()}
        for model in ds["model"].values:
            line = curves.get(str(model))
            if line is None:
                continue
            B = int(ds["B"].sel(model=model))
            bound = ds["free_bound"].sel(model=model).values[:B]
            ax.plot(line.get_xdata(), bound, color=line.get_color(), lw=1.0, ls="--")
        legend = ax.get_legend()
        handles = list(legend.legend_handles) + [Line2D([], [], color="#555555", lw=1.0,
                                                        ls="--")]
        labels = [t.get_text() for t in legend.get_texts()] + [label]
        ax.legend(handles, labels, frameon=False)


def figure_caption(ds, ci_method=None):
    """What :func:`plot_curve_figure` (``check=False``) draws, in a sentence: only what
    it draws (no shading with ``ci_method`` "none", no bound where there is none)."""
    parts = ["the estimated curve of each model"]
    if ci_method != "none":
        parts.append("its interval shaded")
    if "free_bound" in ds and np.isfinite(float(ds["free_bound_worst"])):
        parts.append("the distribution-free bound dashed")
    best = "lowest" if bool(ds["minimize"]) else "best"
    parts.append(f"the {best} score observed dotted")
    if "observed_best" in ds:
        parts.append("the single run of each adaptive search as its observed best so far, "
                     "dash-dotted")
    return ", ".join(parts)


def _check_panels(ds):
    """``[(estimator, ci_method)]`` of the coverage panels."""
    return [(str(e), str(m)) for e in ds["estimator"].values for m in ds["ci_method"].values]


def _draw_coverage(axes, ds, log_x):
    """Each model's coverage against n, with its Clopper-Pearson band and the nominal
    level, a panel per estimator and CI method."""
    level = float(ds.attrs["level"])
    panels = _check_panels(ds)
    several = ds.sizes["estimator"] > 1
    for k, (ax, (e, m)) in enumerate(zip(axes, panels)):
        handles = []  # matplotlib's own legend leaves out a model named _x
        for j, model in enumerate(ds["model"].values):
            sub = ds.sel(model=model, estimator=e, ci_method=m)
            sub = sub.isel(n=slice(0, int(sub["B"])))
            c = MODEL_COLORS[j % len(MODEL_COLORS)]
            ns = sub["n"].values
            ax.fill_between(ns, sub["check_coverage_lower"].values,
                            sub["check_coverage_upper"].values, color=c, alpha=0.2, lw=0)
            handles += ax.plot(ns, sub["check_coverage"].values, color=c, lw=1.5)
        handles.append(ax.axhline(level, color="black", ls="--", lw=1.0))
        ax.set_title(f"self-check: coverage of {e + ' ' if several else ''}{m} intervals")
        ax.set_xlabel("hyperparameter trials (n)")
        if log_x:
            ax.set_xscale("log")
        if k == 0:
            ax.set_ylabel("coverage (Clopper-Pearson 95%)")
        ax.set_ylim(max(0.0, float(ds["check_coverage_lower"].min()) - 0.03), 1.01)
        ax.grid(alpha=0.3)
        ax.legend(handles, [*map(str, ds["model"].values), f"nominal {level:.0%}"],
                  frameon=False, loc="lower right")


def _plain_log_ticks(fig):
    """Log-scaled x axes labelled 1, 10, 100 rather than powers of ten."""
    from matplotlib.ticker import FuncFormatter

    for ax in fig.axes:
        if ax.get_xscale() == "log":
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _save(fig, path):
    _plain_log_ticks(fig)
    if path is not None:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=200, bbox_inches="tight"))
    return fig


def plot_curve_figure(ds, path=None, *, x="n", log_x=None, ci_method=None, check=True):
    """The curves of :func:`evpsim.report.curves.plot_curve` with each model's
    distribution-free bound dashed and, with ``check`` and the self-check's results in
    ``ds``, a row of coverage panels below.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.curve`, with the self-check's variables
        (``check_coverage`` ...) merged in when it ran, and the observed
        best so far of single runs of adaptive searches
        (:func:`evpsim.curves.runs.observed_curves`), drawn on every curve
        panel, where ``evpsim curve`` read some.
    path : str or path, optional
        Figure file (.png, .pdf or .svg), written atomically.
    x : {"n", "time"}
        Trials, or expected wall-clock (needs durations).
    log_x : bool, optional
        Log-scaled x axes; default (None): where the largest B is at least
        :data:`LOG_X_FROM`.
    ci_method : str, optional
        As :func:`evpsim.report.curves.plot_curve`'s (default: a panel per
        CI method).
    check : bool
        Draw the self-check's coverage, when ``ds`` holds it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    log_x = auto_log_x(ds, log_x)
    estimator = str(ds["estimator"].values[0])
    fig = plot_curve(ds, None, estimator=estimator, ci_method=ci_method, x=x, log_x=log_x)
    _draw_bound(fig, ds, estimator)
    if "observed_best" in ds:  # the single runs of adaptive searches, beside the curves
        from .runs import draw_observed

        draw_observed(fig.axes, ds, first_color=ds.sizes["model"])
    if not (check and "check_coverage" in ds):
        return _save(fig, path)
    panels = _check_panels(ds)
    top = list(fig.axes)
    width, height = fig.get_size_inches()
    grid = fig.add_gridspec(2, 1, height_ratios=(height, COVERAGE_HEIGHT))
    upper = grid[0].subgridspec(1, len(top))
    lower = grid[1].subgridspec(1, len(panels))
    for k, ax in enumerate(top):
        ax.set_subplotspec(upper[0, k])
    fig.set_size_inches(max(width, 5.2 * len(panels)), height + COVERAGE_HEIGHT)
    with matplotlib.rc_context(CURVE_STYLE):
        axes = [fig.add_subplot(lower[0, k]) for k in range(len(panels))]
        for ax in axes[1:]:
            ax.sharey(axes[0])
        _draw_coverage(axes, ds, log_x)
    fig.tight_layout()
    return _save(fig, path)


def plot_check_coverage(ds, path=None, *, log_x=None):
    """The self-check's coverage against n, a panel per estimator and CI method, a line
    per model with its Clopper-Pearson 95% band, and the nominal level.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.curve` with the self-check's variables
        merged in (``evpsim curve --check --out``).
    path : str or path, optional
        Figure file (.png, .pdf or .svg), written atomically.
    log_x : bool, optional
        As in :func:`plot_curve_figure`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib
    from matplotlib.figure import Figure

    panels = _check_panels(ds)
    with matplotlib.rc_context(CURVE_STYLE):
        fig = Figure(figsize=(7.0 if len(panels) == 1 else 5.2 * len(panels), 4.0))
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        _draw_coverage(axes, ds, auto_log_x(ds, log_x))
        fig.tight_layout()
    return _save(fig, path)
