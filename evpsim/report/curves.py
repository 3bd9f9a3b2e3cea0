"""Figures of a researcher's own curves: EVP against trials or time, a panel per
CI method or per estimator.

:func:`plot_curve` draws a result of :func:`evpsim.curve`; the others draw
:func:`evpsim.curves.evp_curve` results as Dodge et al. (2019, 2021) did.
"""

from __future__ import annotations

from .. import _validate as check
from ..io.results import FIGURE_SUFFIXES, atomic_write, check_output
from .drawing import MODEL_COLORS, color_of, estimator_panels, save_figure, time_unit

__all__ = ["plot_curve", "plot_estimator_curves", "plot_evp_curves", "plot_evp_time",
           "CURVE_STYLE", "CURVE_VARIABLES"]


#: text sizes of the EVP figures: readable when the figure is printed 7 in wide
CURVE_STYLE = {"font.size": 11, "axes.labelsize": 12, "axes.titlesize": 12,
               "legend.fontsize": 10, "xtick.labelsize": 10, "ytick.labelsize": 10}


def _evp_figure(rows, *, xlabel, ylabel, log_x, title=None, title_size=None,
                best_label="best observed", panels=None):
    """EVP panels in :data:`CURVE_STYLE`: a curve per model, its band shaded, its best
    observed score dotted.

    ``rows`` holds ``(label, x, y, lower, upper, best)`` per model; ``lower``
    and ``upper`` may be None (no shading), ``best`` None (no line). With
    ``panels``, a list of ``(title, rows)``, one panel each, side by side
    and sharing the y axis (``rows`` and ``title`` are then unused).
    Returns a :class:`matplotlib.figure.Figure`, not attached to pyplot.
    """
    import matplotlib
    from matplotlib.figure import Figure

    panels = panels or [(title, rows)]
    with matplotlib.rc_context(CURVE_STYLE):
        fig = Figure(figsize=(7.0 if len(panels) == 1 else 5.2 * len(panels), 4.3))
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        for k, (ax, (head, panel)) in enumerate(zip(axes, panels)):
            _draw_models(ax, panel, xlabel=xlabel, ylabel=ylabel if k == 0 else None,
                         log_x=log_x, title=head, title_size=title_size,
                         best_label=best_label)
        fig.tight_layout()
    return fig


def _draw_models(ax, rows, *, xlabel, ylabel, log_x, title, title_size, best_label):
    """The lines, bands, legend and labels of :func:`_evp_figure` on ``ax``."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    handles, labels = [], []
    for k, (label, x, y, lower, upper, best) in enumerate(rows):
        c = MODEL_COLORS[k % len(MODEL_COLORS)]
        # the legend is built here: matplotlib's own leaves out labels starting with _
        handles += ax.plot(x, y, color=c, lw=2.0, label=label)
        labels.append(label)
        if lower is not None:
            ax.fill_between(x, lower, upper, color=c, alpha=0.2, lw=0)
        if best is not None:
            ax.plot([x[0], x[-1]], [best, best], color=c, lw=1.0, ls=":")
    if any(row[5] is not None for row in rows):
        handles.append(Line2D([], [], color="#555555", lw=1.0, ls=":"))
        labels.append(best_label)
    if log_x:
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(_wrapped(ylabel))
    ax.legend(handles, labels, frameon=False)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=title_size)


#: the longest line of an axis label, in characters (a metric's name may be a sentence)
LABEL_WIDTH = 45


def _wrapped(label):
    """An axis label on lines of at most :data:`LABEL_WIDTH` characters, broken between
    words; one with TeX math ($...$) as it is, which a line break would split."""
    import textwrap

    if "$" in label:
        return label
    return "\n".join(textwrap.wrap(label, LABEL_WIDTH, break_long_words=False,
                                    break_on_hyphens=False)) or label


def _models_of(ds):
    """``ds`` with a ``model`` dim (one :func:`evpsim.evp_curve` result has none)."""
    if "model" in ds.dims:
        return ds
    return ds.expand_dims(model=[ds.attrs.get("model") or "model"])


def _plot_evp_models(ds, path, x_of, xlabel, shade, log_x, metric, title=None):
    """One :func:`evpsim.evp_curve` curve per model against ``x_of(sub)``."""
    ds = _models_of(ds)
    rows = []
    for model in ds["model"].values:
        sub = ds.sel(model=model).dropna("n")
        rows.append((str(model), x_of(sub), sub["evp"].values,
                     sub["lower"].values if shade else None,
                     sub["upper"].values if shade else None, None))
    return save_figure(_evp_figure(rows, xlabel=xlabel, ylabel=f"expected best {metric}",
                                   log_x=log_x, title=title, title_size=10), path)


def plot_evp_curves(ds, path, *, log_x=False, metric="score"):
    """Dodge et al. (2019) Fig. 1: EVP against trials, +/- 1 SD within range.

    Parameters
    ----------
    ds : xarray.Dataset
        :func:`evpsim.evp_curve` results, one or concatenated along ``model``.
    path : str or path
        Figure file (.png, .pdf or .svg).
    log_x : bool
        Log-scaled trials axis (the paper's choice).
    metric : str
        The metric's name, for the y label.
    """
    est = ds.attrs.get("estimator", "V")
    return _plot_evp_models(
        ds, path, lambda sub: sub["n"].values, "hyperparameter trials (n)", True, log_x,
        metric, title=f"estimator {est}; shading ±1 SD of the best of n, within the observed "
                      f"range")


def plot_evp_time(ds, path, *, log_x=False, metric="score"):
    """Dodge et al. (2019) Fig. 2: EVP against expected training time.

    As :func:`plot_evp_curves`, with x = n times the model's mean duration
    per trial (variable ``duration``, seconds).
    """
    unit, length = time_unit(ds["duration"].values * ds.sizes["n"])
    return _plot_evp_models(
        ds, path, lambda sub: sub["n"].values * float(sub["duration"]) / length,
        f"expected training time ({unit}; n x mean duration)", False, log_x, metric)


#: what :func:`plot_curve` reads from a result of :func:`evpsim.curve`
CURVE_VARIABLES = ("model", "estimator", "ci_method", "n", "B", "estimate", "lower", "upper",
                   "best_observed", "minimize")


def _check_curve_arguments(ds, path):
    """Refuse what is not a result of :func:`evpsim.curve`, and a path no figure can take."""
    import xarray as xr

    if not isinstance(ds, xr.Dataset):
        raise check.InvalidType("ds", f"ds must be the Dataset that evpsim.curve returns, got "
                                      f"{type(ds).__name__}")
    missing = [name for name in CURVE_VARIABLES if name not in ds.variables]
    if missing or "level" not in ds.attrs:
        raise check.InvalidArgument("ds", f"ds is not a result of evpsim.curve: it has no "
                                          f"{', '.join(missing or ['level attribute'])}")
    if path is not None:
        check_output(path, FIGURE_SUFFIXES, "path")


def plot_curve(ds, path=None, *, estimator=None, ci_method=None, x="n", log_x=False,
               title=None):
    """Each model's EVP curve with its intervals shaded, a panel per CI method.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.curve`.
    path : str or path, optional
        Figure file (.png, .pdf or .svg), written atomically.
    estimator : str, optional
        The estimator drawn (default the first).
    ci_method : str, optional
        The interval shaded, in one panel; default every CI method of
        ``ds``, a panel each; ``"none"`` for one panel without shading.
    x : {"n", "time"}
        Trials, or expected wall-clock (needs durations).
    log_x : bool
        Log-scaled x axis.
    title : str, optional
        Title of a single panel (default: the estimator and the interval).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (not attached to pyplot; it displays in notebooks).

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.curve([0.71, 0.74, 0.69, 0.80, 0.77], resamples=200,
    ...                   ci_methods="percentile,basic")
    >>> fig = plot_curve(ds)
    >>> [ax.get_title() for ax in fig.axes]
    ['estimator V; shaded: 95% percentile interval', 'estimator V; shaded: 95% basic interval']
    """
    _check_curve_arguments(ds, path)
    estimator = check.choice(estimator if estimator is not None else
                             str(ds["estimator"].values[0]), "estimator",
                             [str(e) for e in ds["estimator"].values])
    methods = [str(m) for m in ds["ci_method"].values]
    if ci_method is not None:
        methods = [check.choice(ci_method, "ci_method", methods + ["none"])]
    x = check.choice(x, "x", ("n", "time"))
    if x == "time" and "expected_time" not in ds:
        raise check.InvalidArgument("x", "x='time' needs durations (a time field)")
    level = float(ds.attrs["level"])
    metric = ds.attrs.get("metric", "score")
    best = "lowest" if bool(ds["minimize"]) else "best"
    if x == "time":
        unit, length = time_unit(ds["expected_time"].values)
        xlabel = f"expected wall-clock ({unit}; n x mean duration per trial)"
    else:
        xlabel = "hyperparameter trials (n)"
    panels = []
    for method in methods:
        rows = []
        for model in ds["model"].values:
            sub = ds.sel(model=model, estimator=estimator)
            sub = sub.isel(n=slice(0, int(sub["B"])))
            xs = sub["expected_time"].values / length if x == "time" else sub["n"].values
            iv = None if method == "none" else sub.sel(ci_method=method)
            rows.append((str(model), xs, sub["estimate"].values,
                         None if iv is None else iv["lower"].values,
                         None if iv is None else iv["upper"].values,
                         float(sub["best_observed"])))
        shading = "" if method == "none" else f"; shaded: {level:.0%} {method} interval"
        head = title if title is not None and len(methods) == 1 else \
            f"estimator {estimator}{shading}"
        panels.append((head, rows))
    fig = _evp_figure(None, xlabel=xlabel, ylabel=f"expected {best} {metric}", log_x=log_x,
                      best_label=f"{best} observed", panels=panels)
    if path is not None:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=200, bbox_inches="tight"))
    return fig


def plot_estimator_curves(ds, path, *, title="", metric="score"):
    """Dodge et al. (2021) Fig. 3: EVP curves of several models, a panel per estimator.

    Parameters
    ----------
    ds : xarray.Dataset
        Dims ``estimator``, ``model`` and ``n`` holding ``evp`` (e.g.
        :func:`evpsim.curves.evp_curve` results concatenated along both).
    path : str or path
        Figure file (.png, .pdf or .svg).
    title : str
        Figure title.
    metric : str
        The metric's name, for the y label.
    """
    ds = _models_of(ds)
    fig, axes, names = estimator_panels(ds)
    for ax, name in zip(axes[0], names):
        for k, model in enumerate(ds["model"].values):
            sub = ds.sel(estimator=name, model=model).dropna("n")
            ax.plot(sub["n"], sub["evp"], color=color_of(str(model), k + 3), lw=1.8,
                    label=str(model))
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_xlabel("n (budget)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"expected best {metric}")
    axes[0][-1].legend(frameon=False, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
