"""What every figure shares: colours, pyplot, the run's title, rates with bands, saving.

Every figure function of :mod:`evpsim.report` takes a Dataset and a file
path, and writes the figure atomically (a temporary file renamed into
place) through :func:`save_figure`.
"""

from __future__ import annotations

import numpy as np

from ..io.results import atomic_write

__all__ = ["COLORS", "MODEL_COLORS", "color_of", "estimator_panels", "math_error", "pyplot",
           "rate_band", "run_title", "save_figure", "time_unit"]

COLORS = {"U": "#1b9e77", "V": "#d95f02", "W": "#7570b3"}

#: colours of the models in EVP figures, in order
MODEL_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                "#17becf"]


def pyplot():
    """:mod:`matplotlib.pyplot` on the Agg backend (imported on first use: ``import evpsim``
    stays light)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def math_error(text):
    """Why matplotlib cannot draw ``text``, or None when it can.

    Between two unescaped ``$`` signs matplotlib reads TeX math (``$F_1$``
    draws F with a subscript 1), and math it cannot parse (``$x^$``,
    ``$x_{1$``) fails only when the figure is saved, after the work: this
    tells before it. Text with one ``$``, or with ``\\$``, is drawn as it is.

    Examples
    --------
    >>> math_error("dev $F_1$") is None, math_error("cost in $") is None
    (True, True)
    >>> math_error("$x^$")
    'Expected more, found end of text'
    >>> math_error("$x_{1$")
    'Expected end_group, found end of text'
    """
    import re

    from matplotlib import cbook
    from matplotlib.mathtext import MathTextParser

    if not cbook.is_math_text(text):
        return None
    try:
        MathTextParser("path").parse(text, dpi=72)
    except ValueError as err:  # the parser's last line, without its class and position
        why = re.sub(r"^\w+: ", "", str(err).strip().splitlines()[-1])
        why = re.sub(r"\s*\(at char \d+\).*$", "", why)
        # a list of every alternative the parser would have taken says nothing
        return "Expected more, " + why.rpartition("}, ")[2] if why.startswith("Expected {") \
            else why
    return None


def color_of(name, k):
    """A stable colour per estimator name."""
    palette = ["#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
    return COLORS.get(name, palette[k % len(palette)])


def save_figure(fig, path):
    """Save ``fig`` to ``path`` atomically (:func:`evpsim.io.results.atomic_write`) and close it."""
    try:
        return atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=130, bbox_inches="tight"))
    finally:
        pyplot().close(fig)


def run_title(ds):
    """The truth's description and B, from the result's scalar coordinates."""
    desc = ds["truth_description"].item() if "truth_description" in ds.coords \
        and ds["truth_description"].ndim == 0 else ""
    return f"{desc}\nB = {int(ds['B'])}"


def rate_band(ax, x, ds, key, color, label, **kw):
    """A rate with its Clopper-Pearson band."""
    ax.plot(x, ds[key].values, color=color, lw=1.6, label=label, **kw)
    ax.fill_between(x, ds[f"{key}_lower"].values, ds[f"{key}_upper"].values, color=color,
                    alpha=0.2, lw=0)


def time_unit(seconds):
    """The unit, and its length in seconds, for an axis of wall-clock times."""
    top = float(np.nanmax(seconds))
    for unit, length in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if top >= 2 * length:
            return unit, length
    return "seconds", 1.0


def estimator_panels(ds):
    """A figure with one panel per estimator of ``ds``, sharing the y axis:
    ``(fig, axes (1, E), names)``."""
    names = [str(e) for e in ds["estimator"].values]
    fig, axes = pyplot().subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True,
                                  squeeze=False)
    return fig, axes, names
