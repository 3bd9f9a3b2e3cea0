"""Figures of the batteries: bias, false conclusions, comparisons, coverage, sweeps.

Each draws a result of its battery (:func:`evpsim.bias`, :func:`evpsim.falseconc`,
:func:`evpsim.compare_curves`, :func:`evpsim.comparison_errors`,
:func:`evpsim.coverage`, :func:`evpsim.sweep`) in the style of the papers, and
writes it atomically.
"""

from __future__ import annotations

import numpy as np

from ..io.results import curve_symbol
from .drawing import color_of, estimator_panels, pyplot, rate_band, run_title, save_figure

__all__ = ["plot_bias", "plot_compare_curves", "plot_comparison_errors", "plot_coverage",
           "plot_falseconc", "plot_rate_by_truth", "plot_sweep", "METHOD_COLORS",
           "SPARE_COLORS", "BAND_DASHES"]


def _quantity(ds, q):
    """Exact values where available, else Monte Carlo (with SE or None)."""
    if f"exact_{q}" in ds:
        ex = ds[f"exact_{q}"]
        mc = ds[q]
        return ex.where(np.isfinite(ex), mc), ds.get(f"{q}_se")
    return ds[q], ds.get(f"{q}_se")


def plot_bias(ds, path):
    """Dodge et al. (2021) Fig. 1: mean with the true curve, variance, MSE."""
    plt = pyplot()
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
    fig.suptitle(f"{run_title(ds)}, {src}", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_falseconc(ds, path):
    """Tang et al. (2020) Fig. 3: rate of estimates below the truth against n.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.falseconc`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ns = ds["n"].values
    for k, name in enumerate(ds["estimator"].values):
        sub = ds.sel(estimator=name)
        c = color_of(str(name), k)
        rate_band(ax, ns, sub, "below", c, str(name))
        if int(sub["tie_count"].sum()):
            ax.plot(ns, sub["tie"].values, color=c, lw=1.0, ls=":", label=f"{name} ties")
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.set_xlabel("n (budget)")
    ax.set_ylabel("P(estimate < true EVP)" if curve_symbol(ds) == "theta" else
                  "P(estimate < true quantile curve)")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9)
    a = ds.attrs
    ax.set_title(f"{run_title(ds)}, {int(a['replicates']):,} searches, Clopper-Pearson 95% "
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
    plt = pyplot()
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
        rate_band(bottom, ns, sub, "wrong", c, str(name))
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

    plt = pyplot()
    Bs = ds["B"].values
    if "n" in ds.dims:
        ds = ds.sel(n=xr.DataArray(Bs, dims="B", coords={"B": Bs}))
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k, name in enumerate(ds["estimator"].values):
        rate_band(ax, Bs, ds.sel(estimator=name), "wrong", color_of(str(name), k), str(name),
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
    plt = pyplot()
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
    fig.suptitle(f"{run_title(ds)}, {int(a['replicates']):,} samples, "
                 f"{int(a['resamples']):,} resamples", fontsize=10)
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False,
               fontsize=8, ncol=min(len(labels), 4 if len(names) > 1 else 2))
    return save_figure(fig, path)


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
    fig, axes, names = estimator_panels(ds)
    ns = ds["n"].values
    for ax, name in zip(axes[0], names):
        for k, truth in enumerate(ds["truth"].values):
            rate_band(ax, ns, ds.sel(estimator=name, truth=truth), var, color_of(str(truth), k),
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
    fig, axes, names = estimator_panels(ds)
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
