"""Figures in the style of the papers, drawn from result Datasets.

Every function takes a Dataset produced by a battery and a file path, and
writes the figure atomically (a temporary file renamed into place).
"""

from __future__ import annotations

import numpy as np

from .results import atomic_write

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
    """Save ``fig`` to ``path`` atomically (:func:`evpsim.results.atomic_write`) and close it."""
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
            ax.plot(ns, ds["theta"].values, color="black", ls="--", lw=1.2, label="true EVP")
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
        A fit from :func:`evpsim.kde.fit_kde`; each interval's mass is drawn
        as a density over the interval.
    scores : array_like of float
        The scores the KDE was fitted to.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    edges, pmf = fit["edges"].values, fit["pmf"].values
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
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
    ax.set_ylabel("P(estimate < true EVP)")
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
        top.plot(ns, ds["theta_a"].values, color="black", lw=1.2, label=f"true {la}")
        top.plot(ns, ds["theta_b"].values, color="black", lw=1.2, ls="--", label=f"true {lb}")
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
                 "dkw": "#666666", "ks": "#e7298a"}


def plot_coverage(ds, path):
    """Tang et al. (2020) Fig. 4: coverage against n, a panel per estimator.

    Each CI method's coverage is drawn with its Clopper-Pearson band, and
    the nominal level as a dashed line.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.coverage`.
    path : str or path
        Figure file (.png, .pdf or .svg).
    """
    plt = _pyplot()
    names = [str(e) for e in ds["estimator"].values]
    methods = [str(m) for m in ds["ci_method"].values]
    level = float(ds.attrs["level"])
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True,
                             squeeze=False)
    ns = ds["n"].values
    low = min(float(ds["coverage_lower"].min()), level) - 0.03
    kinds = dict(zip(methods, ds["ci_method_kind"].values.tolist()))
    dashes = iter([(0, (6, 2)), (0, (2, 2)), (0, (6, 2, 2, 2))] * len(methods))
    styles = {m: next(dashes) if kinds[m] == "band" else "-" for m in methods}
    for ax, name in zip(axes[0], names):
        for k, m in enumerate(methods):
            sub = ds.sel(estimator=name, ci_method=m)
            c = METHOD_COLORS.get(m, color_of(m, k))
            ax.fill_between(ns, sub["coverage_lower"], sub["coverage_upper"], color=c,
                            alpha=0.2, lw=0)
            ax.plot(ns, sub["coverage"], color=c, lw=1.5, ls=styles[m],
                    label=m + (" (band)" if kinds[m] == "band" else ""))
        ax.axhline(level, color="black", ls="--", lw=1.0, label=f"nominal {level:g}")
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_xlabel("n (budget)")
        ax.set_ylim(max(0.0, low), 1.01)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("empirical coverage (Clopper-Pearson 95%)")
    axes[0][-1].legend(frameon=False, fontsize=8, loc="lower left")
    a = ds.attrs
    fig.suptitle(f"{_run_title(ds)}, {int(a['replicates']):,} samples, "
                 f"{int(a['resamples']):,} resamples", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def _plot_evp_models(ds, path, x_of, xlabel, shade, title=None):
    """One EVP curve per ``model`` of ``ds`` against ``x_of(sub)`` (log scale)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, model in enumerate(ds["model"].values):
        sub = ds.sel(model=model).dropna("n")
        c = color_of(str(model), k + 3)
        x = x_of(sub)
        ax.plot(x, sub["evp"], color=c, lw=1.8, label=str(model))
        if shade:
            ax.fill_between(x, sub["lower"], sub["upper"], color=c, alpha=0.18, lw=0)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("expected validation accuracy")
    ax.legend(frameon=False)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_evp_curves(ds, path):
    """Dodge et al. (2019) Fig. 1: EVP against trials, +/- 1 SD within range."""
    return _plot_evp_models(
        ds, path, lambda sub: sub["n"].values, "hyperparameter assignments (n)", shade=True,
        title="expected best validation score (V), shading ±1 SD within the observed range")


def plot_evp_time(ds, path):
    """Dodge et al. (2019) Fig. 2: EVP against training time (log scale)."""
    return _plot_evp_models(
        ds, path, lambda sub: sub["n"].values * float(sub["duration"]) / 3600.0,
        "training time (hours; trials x average duration)", shade=False)


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
    plt = _pyplot()
    names = [str(e) for e in ds["estimator"].values]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True,
                             squeeze=False)
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


def plot_estimator_curves(ds, path, *, title=""):
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
    """
    plt = _pyplot()
    names = [str(e) for e in ds["estimator"].values]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True,
                             squeeze=False)
    for ax, name in zip(axes[0], names):
        for k, model in enumerate(ds["model"].values):
            sub = ds.sel(estimator=name, model=model).dropna("n")
            ax.plot(sub["n"], sub["evp"], color=color_of(str(model), k + 3), lw=1.8,
                    label=str(model))
        ax.set_title(f"estimator {name}", fontsize=10)
        ax.set_xlabel("n (budget)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("expected validation accuracy")
    axes[0][-1].legend(frameon=False, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
