"""Figures in the style of the papers, drawn from result Datasets.

Every function takes a Dataset produced by a battery and a file path, and
writes the figure atomically (a temporary file renamed into place).
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from ..io.results import FIGURE_SUFFIXES, atomic_write, check_output, curve_symbol

COLORS = {"U": "#1b9e77", "V": "#d95f02", "W": "#7570b3"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def color_of(name, k):
    """A stable colour per estimator name."""
    palette = ["#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
    return COLORS.get(name, palette[k % len(palette)])


def save_figure(fig, path):
    """Save ``fig`` to ``path`` atomically (:func:`evpsim.io.results.atomic_write`) and close it."""
    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=130, bbox_inches="tight"))
    finally:
        _pyplot().close(fig)


def _run_title(ds):
    """The truth's description and B, from the result's scalar coordinates."""
    desc = ds["truth_description"].item() if "truth_description" in ds.coords \
        and ds["truth_description"].ndim == 0 else ""
    return f"{desc}\nB = {int(ds['B'])}"


def _quantity(ds, q):
    """Exact values where available, else Monte Carlo (with SE or None)."""
    if f"exact_{q}" in ds:
        ex = ds[f"exact_{q}"]
        mc = ds[q]
        return ex.where(np.isfinite(ex), mc), ds.get(f"{q}_se")
    return ds[q], ds.get(f"{q}_se")


def plot_bias(ds, path):
    """Dodge et al. (2021) Fig. 1: mean with the true curve, variance, MSE."""
    plt = _pyplot()
    fig, axes = plt.subplots(3, 1, figsize=(6.4, 8.6), sharex=True)
    ns = ds["n"].values
    labels = {"mean": "expected value", "variance": "variance", "mse": "MSE"}
    for ax, q in zip(axes, ("mean", "variance", "mse")):
        vals, ses = _quantity(ds, q)
        for k, name in enumerate(ds["estimator"].values):
            y = vals.sel(estimator=name).values
            c = color_of(str(name), k)
            ax.plot(ns, y, color=c, label=str(name), lw=1.6)
            if ses is not None and "exact_mean" not in ds:
                se = ses.sel(estimator=name).values
                ax.fill_between(ns, y - 2 * se, y + 2 * se, color=c, alpha=0.2, lw=0)
            elif "exact_mean" in ds:  # Monte Carlo beside exact: the engine checked
                step = max(1, len(ns) // 10)
                ax.plot(ns[::step], ds[q].sel(estimator=name).values[::step], "o", ms=4,
                        mfc="none", color=c)
        if q == "mean":
            sym = curve_symbol(ds)
            ax.plot(ns, ds[sym].values, color="black", ls="--", lw=1.2,
                    label="true EVP" if sym == "theta" else "true quantile curve")
        ax.set_ylabel(labels[q])
        ax.grid(alpha=0.3)
    axes[0].legend(frameon=False, ncol=4, fontsize=9)
    axes[-1].set_xlabel("n (budget)")
    src = {"exact": "exact", "mc": "Monte Carlo (±2 SE)",
           "both": "lines exact, circles Monte Carlo"}[ds.attrs.get("method", "exact")]
    fig.suptitle(f"{_run_title(ds)}, {src}", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_kde(fit, scores, path):
    """Tang et al. (2020) Fig. 5: a discretized KDE over the scores' histogram.

    Parameters
    ----------
    fit : xarray.Dataset
        A fit from :func:`evpsim.truths.kde.fit_kde`; each interval's mass is drawn
        as a density over the interval.
    scores : array_like of float or None
        The scores the KDE was fitted to, drawn as a histogram; None draws
        the KDE alone.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    edges, pmf = fit["edges"].values, fit["pmf"].values
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    if scores is not None:
        ax.hist(np.asarray(scores, dtype=float), bins="auto", density=True, color="#bbbbbb",
                edgecolor="white", label=f"{fit.attrs['runs']} runs")
    ax.stairs(pmf / np.diff(edges), edges, color=COLORS["U"], lw=1.6,
              label=f"KDE ({fit.attrs['bins']} bins, bw {fit.attrs['bandwidth']:.3g})")
    ax.set_xlabel(fit.attrs.get("metric") or "score")
    ax.set_ylabel("density")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9)
    ax.set_title(fit.attrs["description"], fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def _band(ax, x, ds, key, color, label, **kw):
    """A rate with its Clopper-Pearson band."""
    ax.plot(x, ds[key].values, color=color, lw=1.6, label=label, **kw)
    ax.fill_between(x, ds[f"{key}_lower"].values, ds[f"{key}_upper"].values, color=color,
                    alpha=0.2, lw=0)


def plot_falseconc(ds, path):
    """Tang et al. (2020) Fig. 3: rate of estimates below the truth against n.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.falseconc`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ns = ds["n"].values
    for k, name in enumerate(ds["estimator"].values):
        sub = ds.sel(estimator=name)
        c = color_of(str(name), k)
        _band(ax, ns, sub, "below", c, str(name))
        if int(sub["tie_count"].sum()):
            ax.plot(ns, sub["tie"].values, color=c, lw=1.0, ls=":", label=f"{name} ties")
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.set_xlabel("n (budget)")
    ax.set_ylabel("P(estimate < true EVP)" if curve_symbol(ds) == "theta" else
                  "P(estimate < true quantile curve)")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9)
    a = ds.attrs
    ax.set_title(f"{_run_title(ds)}, {int(a['replicates']):,} searches, Clopper-Pearson 95% "
                 f"bands", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_compare_curves(ds, path):
    """Tang et al. (2020) Figs. 1-2: true and averaged estimated curves of two models.

    Top row: per estimator, the true EVP of both models (black) and the
    estimator's average (colour; A solid, B dashed), budgets where the
    averages order the models opposite to the truth shaded. Bottom row: the
    rate at which single pairs of searches rank the models wrongly.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.compare_curves`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    names = ds["estimator"].values
    fig, axes = plt.subplots(2, len(names), figsize=(4.0 * len(names), 6.4), sharex=True,
                             sharey="row", squeeze=False, gridspec_kw={"height_ratios": [2, 1]})
    ns = ds["n"].values
    la, lb = ds["label_a"].item(), ds["label_b"].item()
    for k, name in enumerate(names):
        sub = ds.sel(estimator=name)
        c = color_of(str(name), k)
        top, bottom = axes[0, k], axes[1, k]
        sym = "tau" if "tau_a" in ds else "theta"
        top.plot(ns, ds[f"{sym}_a"].values, color="black", lw=1.2, label=f"true {la}")
        top.plot(ns, ds[f"{sym}_b"].values, color="black", lw=1.2, ls="--", label=f"true {lb}")
        top.plot(ns, sub["mean_a"].values, color=c, lw=1.6, label=f"{name}, {la}")
        top.plot(ns, sub["mean_b"].values, color=c, lw=1.6, ls="--", label=f"{name}, {lb}")
        for n in ns[sub["reversed"].values.astype(bool)]:
            top.axvspan(n - 0.5, n + 0.5, color="#d62728", alpha=0.12, lw=0)
        top.set_title(f"{name} (shaded: averages in the wrong order)", fontsize=9)
        top.legend(frameon=False, fontsize=8)
        top.grid(alpha=0.3)
        _band(bottom, ns, sub, "wrong", c, str(name))
        bottom.set_xlabel("n (budget)")
        bottom.grid(alpha=0.3)
    axes[0, 0].set_ylabel("expected best score")
    axes[1, 0].set_ylabel("P(pair ranked wrongly)")
    a = ds.attrs
    fig.suptitle(f"{la} vs {lb}: searches of B = {int(ds['B'])}, {a['sampling']}, "
                 f"{int(a['replicates']):,} pairs", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_comparison_errors(ds, path):
    """Dodge et al. (2021) Fig. 2: rate of wrong rankings at n = B against B.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.comparison_errors` (with ``every_n`` the
        values at n = B are drawn).
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    import xarray as xr

    plt = _pyplot()
    Bs = ds["B"].values
    if "n" in ds.dims:
        ds = ds.sel(n=xr.DataArray(Bs, dims="B", coords={"B": Bs}))
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k, name in enumerate(ds["estimator"].values):
        _band(ax, Bs, ds.sel(estimator=name), "wrong", color_of(str(name), k), str(name),
              marker="o", ms=3)
    better = sorted(set(str(v) for v in ds["better"].values))
    a = ds.attrs
    ax.set_xlabel("B (trials per search; estimate at n = B)")
    ax.set_ylabel("P(models ranked opposite to the truth)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9)
    ax.set_title(f"{ds['label_a'].item()} vs {ds['label_b'].item()} ({a['sampling']}, "
                 f"{int(a['replicates']):,} pairs per B)\ntruly better at n = B: "
                 f"{', '.join(better)}", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


METHOD_COLORS = {"percentile": "#d95f02", "basic": "#7570b3", "bca": "#1b9e77",
                 "dkw": "#666666", "ks": "#e7298a", "ld-equal-tailed": "#1f78b4",
                 "ld-highest-density": "#e6ab02"}
#: colours of user CI methods, none of them a built-in's
SPARE_COLORS = ["#66a61e", "#a6761d", "#17becf", "#d62728", "#bcbd22", "#8c564b"]
BAND_DASHES = [(0, (6, 2)), (0, (2, 2)), (0, (6, 2, 2, 2)), (0, (1, 1)), (0, (8, 2, 1, 2))]


def plot_coverage(ds, path):
    """Tang et al. (2020) Fig. 4: coverage, and mean width, against n, a column per estimator.

    The top row draws each CI method's coverage with its Clopper-Pearson
    band and the nominal level as a dashed line; the bottom row the mean
    width of its intervals (log scale: distribution-free bands are several
    times wider than bootstrap intervals; ``basic`` intervals are as wide as
    ``percentile`` ones, and hide them). Bootstrap methods are solid lines,
    bands dashed; one legend below the panels names them all.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.coverage`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    names = [str(e) for e in ds["estimator"].values]
    methods = [str(m) for m in ds["ci_method"].values]
    level = float(ds.attrs["level"])
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 6.6), sharex=True,
                             sharey="row", squeeze=False, height_ratios=(3, 2))
    ns = ds["n"].values
    low = min(float(ds["coverage_lower"].min()), level) - 0.03
    kinds = dict(zip(methods, ds["ci_method_kind"].values.tolist()))
    spare = iter(SPARE_COLORS * len(methods))
    colors = {m: METHOD_COLORS.get(m) or next(spare) for m in methods}
    dashes = iter(BAND_DASHES * len(methods))
    styles = {m: next(dashes) if kinds[m] == "band" else "-" for m in methods}
    for (ax, ax_w), name in zip(axes.T, names):
        for m in methods:
            sub = ds.sel(estimator=name, ci_method=m)
            ax.fill_between(ns, sub["coverage_lower"], sub["coverage_upper"], color=colors[m],
                            alpha=0.2, lw=0)
            ax.plot(ns, sub["coverage"], color=colors[m], lw=1.5, ls=styles[m],
                    label=m + (" (band)" if kinds[m] == "band" else ""))
            ax_w.plot(ns, sub["mean_width"], color=colors[m], lw=1.5, ls=styles[m])
        ax.axhline(level, color="black", ls="--", lw=1.0, label=f"nominal {level:g}")
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_ylim(max(0.0, low), 1.01)
        ax_w.set_yscale("log")
        ax_w.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax_w.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax_w.yaxis.set_minor_formatter(NullFormatter())
        ax_w.set_xlabel("n (budget)")
        for a in (ax, ax_w):
            a.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("empirical coverage (Clopper-Pearson 95%)")
    axes[1][0].set_ylabel("mean interval width")
    handles, labels = axes[0][0].get_legend_handles_labels()
    a = ds.attrs
    fig.suptitle(f"{_run_title(ds)}, {int(a['replicates']):,} samples, "
                 f"{int(a['resamples']):,} resamples", fontsize=10)
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False,
               fontsize=8, ncol=min(len(labels), 4 if len(names) > 1 else 2))
    return save_figure(fig, path)


def _time_unit(seconds):
    """The unit, and its length in seconds, for an axis of wall-clock times."""
    top = float(np.nanmax(seconds))
    for unit, length in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if top >= 2 * length:
            return unit, length
    return "seconds", 1.0


#: colours of the models in EVP figures, in order
MODEL_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                "#17becf"]


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

    for k, (label, x, y, lower, upper, best) in enumerate(rows):
        c = MODEL_COLORS[k % len(MODEL_COLORS)]
        ax.plot(x, y, color=c, lw=2.0, label=label)
        if lower is not None:
            ax.fill_between(x, lower, upper, color=c, alpha=0.2, lw=0)
        if best is not None:
            ax.plot([x[0], x[-1]], [best, best], color=c, lw=1.0, ls=":")
    handles, labels = ax.get_legend_handles_labels()
    if any(row[5] is not None for row in rows):
        handles.append(Line2D([], [], color="#555555", lw=1.0, ls=":"))
        labels.append(best_label)
    if log_x:
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.legend(handles, labels, frameon=False)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=title_size)


#: text sizes of the EVP figures: readable when the figure is printed 7 in wide
CURVE_STYLE = {"font.size": 11, "axes.labelsize": 12, "axes.titlesize": 12,
               "legend.fontsize": 10, "xtick.labelsize": 10, "ytick.labelsize": 10}


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
    unit, length = _time_unit(ds["duration"].values * ds.sizes["n"])
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
        unit, length = _time_unit(ds["expected_time"].values)
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


def _estimator_panels(ds):
    """A figure with one panel per estimator of ``ds``, sharing the y axis:
    ``(fig, axes (1, E), names)``."""
    names = [str(e) for e in ds["estimator"].values]
    fig, axes = _pyplot().subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True,
                                   squeeze=False)
    return fig, axes, names


def plot_rate_by_truth(ds, var, path, *, ylabel, reference=None, title=""):
    """Tang et al. (2020) Figs. 3-4: a rate against n, a panel per estimator,
    a line per ground truth with its Clopper-Pearson band.

    Parameters
    ----------
    ds : xarray.Dataset
        Dims ``truth``, ``estimator`` and ``n`` holding ``var`` and its
        bounds ``var_lower``, ``var_upper`` (e.g. results of
        :func:`evpsim.falseconc` or one method of :func:`evpsim.coverage`,
        concatenated along ``truth``).
    var : str
        The rate to draw, e.g. ``"below"`` or ``"coverage"``.
    path : str or path
        Figure file (.png, .pdf or .svg).
    ylabel : str
        Label of the rate's axis.
    reference : float, optional
        Drawn as a dashed line (one half, the nominal level).
    title : str
        Figure title.
    """
    fig, axes, names = _estimator_panels(ds)
    ns = ds["n"].values
    for ax, name in zip(axes[0], names):
        for k, truth in enumerate(ds["truth"].values):
            _band(ax, ns, ds.sel(estimator=name, truth=truth), var, color_of(str(truth), k),
                  str(truth))
        if reference is not None:
            ax.axhline(reference, color="black", lw=0.8, ls="--")
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_xlabel("n (budget)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(frameon=False, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


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
    fig, axes, names = _estimator_panels(ds)
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


def plot_score_distributions(searches, path, *, n_max=100, metric="validation accuracy"):
    """Each search's scores (histogram, top) and the exact EVP of its empirical
    distribution (bottom): the shape of a pool used as a truth.

    Parameters
    ----------
    searches : dict
        Label -> array of scores.
    path : str or Path
        Image file to write.
    n_max : int
        The largest budget n on the EVP row.
    metric : str
        The score's name, for the axes.
    """
    from ..truths.distributions import empirical

    plt = _pyplot()
    labels = list(searches)
    fig, axes = plt.subplots(2, len(labels), figsize=(3.6 * len(labels), 5.6), squeeze=False)
    ns = np.arange(1, n_max + 1)
    for k, label in enumerate(labels):
        xs = np.asarray(searches[label], dtype=float)
        top, bottom = axes[0, k], axes[1, k]
        top.hist(xs, bins=50, color=color_of(label, k), alpha=0.8)
        top.set(title=f"{label}: {xs.size:,} trials", xlabel=metric,
                ylabel="trials" if k == 0 else None)
        theta = empirical(xs).theta(ns)
        bottom.plot(ns, theta, color=color_of(label, k))
        bottom.axhline(xs.max(), color="grey", ls=":", lw=1, label="best trial")
        bottom.set(xscale="log", xlabel="n (trials)",
                   ylabel=f"expected best {metric}" if k == 0 else None)
        bottom.grid(alpha=0.3)
        bottom.legend(frameon=False, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, path)


def plot_kde_validity(ds, path, *, n=20, estimator="V"):
    """Prediction errors of KDE truths: coverage and theta_n, boxes per pool.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.reproduce.kde_validity.validity`: dims
        ``pool``, ``B``, ``subset``, ``construction``, ``estimator``, ``n``
        holding ``coverage_error`` and ``theta_error``.
    path : str or path
        Figure file (.png, .pdf or .svg).
    n : int
        The budget drawn.
    estimator : str
        The estimator whose coverage error is drawn.
    """
    plt = _pyplot()
    Bs = [int(b) for b in ds["B"].values]
    pools = [str(p) for p in ds["pool"].values]
    labels = [str(c) for c in ds["construction"].values]
    rows = (("coverage_error", {"estimator": estimator}, 100.0,
             f"coverage error of {estimator} (points)"),
            ("theta_error", {}, 1.0, "theta_n error"))
    fig, axes = plt.subplots(2, len(Bs), figsize=(4.6 * len(Bs), 7.2), squeeze=False)
    width = 0.8 / len(labels)
    for r, (var, sel, scale, ylabel) in enumerate(rows):
        for ax, B in zip(axes[r], Bs):
            err = ds[var].sel(B=B, n=n, **sel)
            for k, label in enumerate(labels):
                data = [scale * err.sel(pool=p, construction=label).values for p in pools]
                data = [d[np.isfinite(d)] for d in data]
                where = np.arange(len(pools)) + (k - (len(labels) - 1) / 2) * width
                box = ax.boxplot(data, positions=where, widths=0.9 * width, patch_artist=True,
                                 manage_ticks=False, showfliers=True)
                for patch in box["boxes"]:
                    patch.set_facecolor(color_of(label, k))
                    patch.set_alpha(0.6)
                ax.plot([], [], "s", color=color_of(label, k), alpha=0.6, label=label)
            ax.axhline(0, color="black", lw=0.8, ls="--")
            ax.set_xticks(np.arange(len(pools)))
            ax.set_xticklabels(pools, fontsize=8)
            ax.set_title(f"B = {B}, n = {n}", fontsize=10)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3, axis="y")
    axes[0][-1].legend(frameon=False, fontsize=8)
    fig.suptitle(f"KDE truth minus pool, over {ds.sizes['subset']} subsets of B trials",
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_sweep(ds, path):
    """A sweep's headline against B: a panel per estimator, a line per truth
    (per pair of models for ``compare``; line style per CI method), with
    Clopper-Pearson bands where the battery gives them.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.sweep`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    from ..engine.sweeps import BATTERIES
    from ..engine.sweeps.combine import headline

    battery = BATTERIES[ds.attrs["battery"]]
    head = headline(ds, battery)
    value = head["value"]
    lines = [a for a in battery.axes if a != "B"]
    stacked = value.stack(line=lines)
    bands = {k: head[k].stack(line=lines) for k in ("lower", "upper") if k in head}
    methods = [str(m) for m in ds["ci_method"].values] if "ci_method" in value.dims else [None]
    styles = ["-", "--", ":", "-."]
    fig, axes, names = _estimator_panels(ds)
    Bs = ds["B"].values
    for ax, name in zip(axes[0], names):
        for k, line in enumerate(stacked["line"].values):
            label = " vs ".join(map(str, line)) if isinstance(line, tuple) else str(line)
            for m, method in enumerate(methods):
                where = {"estimator": name, **({"ci_method": method} if method else {})}
                y = stacked.sel(line=line, **where).values
                ax.plot(Bs, y, marker="o", ms=3, ls=styles[m % len(styles)],
                        color=color_of(label, k),
                        label=label + (f" ({method})" if method and len(methods) > 1 else ""))
                if bands:
                    lo, hi = (bands[k].sel(line=line, **where).values for k in ("lower", "upper"))
                    ax.fill_between(Bs, lo, hi, color=color_of(label, k), alpha=0.15, lw=0)
        if battery.name == "coverage":
            ax.axhline(float(ds.attrs.get("option_level", 0.95)), color="black", lw=0.8,
                       ls="--")
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_xlabel("B (trials per search)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"{battery.headline} at {head['at']}")
    handles, labels = axes[0][0].get_legend_handles_labels()
    rows = -(-len(labels) // 4)
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), frameon=False,
               fontsize=8)
    fig.suptitle(f"sweep of the {battery.name} battery, seed {ds.attrs['seed']}", fontsize=10)
    fig.tight_layout(rect=(0, 0.06 * rows, 1, 1))
    return save_figure(fig, path)


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
    plt = _pyplot()
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
    from .leaderboard import _reference

    plt = _pyplot()
    sub = ds.sel(curve=curve, estimator=_reference(curve))
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
    fig.suptitle(f"{curve} curve: coverage of {_reference(curve)}'s intervals, a faint line per "
                 f"truth", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_interval_study(ds, coverage_path, width_path, *, best=None):
    """The intervals study: coverage and width against n / B, a panel per CI method.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.reproduce.intervals.study` (dims ``dist``,
        ``B``, ``estimator``, ``ci_method``, ``n``).
    coverage_path, width_path : str or path
        Figure files: coverage (a thin line per truth, B by colour, the lowest
        over truths bold; V solid, U dashed) and median width relative to the
        percentile interval's (median over truths, 10% to 90% shaded).
    best : str, optional
        A CI method whose panel title is marked as the best trade-off.
    """
    plt = _pyplot()
    meths = [str(m) for m in ds["ci_method"].values]
    Bs = [int(b) for b in ds["B"].values]
    palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a"]
    cols = 4
    rows = -(-len(meths) // cols)
    for path, var in ((coverage_path, "coverage"), (width_path, "median_width")):
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.0 * rows), squeeze=False,
                                 sharex=True, sharey=var == "coverage")
        for ax, m in zip(axes.ravel(), meths):
            for k, B in enumerate(Bs):
                color = palette[k % len(palette)]
                for est, style in (("V", "-"), ("U", "--")):
                    sub = ds.sel(B=B, estimator=est, ci_method=m)
                    x = sub["n"].values / B
                    if var == "coverage":
                        y = sub["coverage"].values
                        ok = np.isfinite(y).any(axis=0)  # this B's budgets (and U's, <= B)
                        for row in y[:, ok]:
                            ax.plot(x[ok], row, style, color=color, lw=0.4, alpha=0.25)
                        ax.plot(x[ok], np.nanmin(y[:, ok], axis=0), style, color=color, lw=1.6,
                                label=f"B = {B} ({est})")
                    else:
                        ref = ds["median_width"].sel(B=B, estimator=est, ci_method="percentile")
                        with np.errstate(invalid="ignore", divide="ignore"):
                            ratio = (sub["median_width"] / ref).values
                        ok = np.isfinite(ratio).any(axis=0)
                        lo, mid, hi = np.nanquantile(ratio[:, ok], [0.1, 0.5, 0.9], axis=0)
                        ax.plot(x[ok], mid, style, color=color, lw=1.4, label=f"B = {B} ({est})")
                        if est == "V":
                            ax.fill_between(x[ok], lo, hi, color=color, alpha=0.12, lw=0)
            if var == "coverage":
                ax.axhline(0.95, color="black", lw=0.8, ls=":")
                ax.axhline(0.93, color="black", lw=0.8, ls="--")
                ax.set_ylim(0.2, 1.01)
            else:
                ax.set_yscale("log")
                ax.axhline(1.0, color="black", lw=0.8, ls=":")
                ax.axhline(2.0, color="black", lw=0.8, ls="--")
            ax.axvline(1.0, color="grey", lw=0.6)
            ax.set_title(m + (" (best trade-off)" if m == best else ""), fontsize=9)
            ax.grid(alpha=0.3)
        for ax in axes.ravel()[len(meths):]:
            ax.axis("off")
        for ax in axes[-1]:
            ax.set_xlabel("n / B")
        for ax in axes[:, 0]:
            ax.set_ylabel("coverage (lowest over truths bold)" if var == "coverage" else
                          "median width / percentile's")
        axes[0][0].legend(frameon=False, fontsize=7)
        what = ("coverage of 95% intervals, every truth (thin), the lowest (bold); dashed "
                "line: 0.93" if var == "coverage" else
                "median width relative to the percentile interval's: median over truths, V "
                "shaded 10% to 90%; dashed line: 2x")
        fig.suptitle(what, fontsize=10)
        fig.tight_layout()
        save_figure(fig, path)
    return coverage_path, width_path
