"""Figures in the style of the papers, drawn from result Datasets.

Every function takes a Dataset produced by a battery and a file path, and
writes the figure atomically (a temporary file renamed into place).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

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
    """Save ``fig`` to ``path`` atomically and close it."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix,
                               dir=path.parent if str(path.parent) else ".")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=130, bbox_inches="tight")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        _pyplot().close(fig)
    return path


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
        if q == "mean":
            ax.plot(ns, ds["theta"].values, color="black", ls="--", lw=1.2, label="true EVP")
        ax.set_ylabel(labels[q])
        ax.grid(alpha=0.3)
    axes[0].legend(frameon=False, ncol=4, fontsize=9)
    axes[-1].set_xlabel("n (budget)")
    src = {"exact": "exact", "mc": "Monte Carlo (±2 SE)", "both": "exact"}[ds.attrs.get("method", "exact")]
    fig.suptitle(f"{ds.attrs.get('truth_description', '')}\nB = {int(ds.attrs['B'])}, {src}",
                 fontsize=10)
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
