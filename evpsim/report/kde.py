"""Figures of KDE truths: a fit over its scores, the pools used as truths, and
how well KDE truths predict a pool's coverage and curve.
"""

from __future__ import annotations

import numpy as np

from .drawing import COLORS, color_of, pyplot, save_figure

__all__ = ["plot_kde", "plot_kde_validity", "plot_score_distributions"]


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
    plt = pyplot()
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

    plt = pyplot()
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
    plt = pyplot()
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
