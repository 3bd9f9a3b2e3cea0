"""Lattice truths: a truth's draws rounded to a grid, as accuracies on a finite set are.

``make_truth("lattice:STEP:SPEC")`` is the truth ``SPEC`` with every draw
rounded to the nearest point of the lattice ``j * STEP`` (``STEP`` written
``1/N`` or as a decimal): a discrete truth on the lattice, whose exact
theta_n is that of the rounded draws, so every study measures what ties
do to an estimator or an interval. ``lattice:1/500:kde:sst2-elmo-centered``
is an SST-2 search's KDE truth as accuracies on a dev set of 500 examples.

How the lattice points get their masses:

* a KDE truth (``kde:...``): the Gaussian mixture's mass on each point's
  cell (:func:`evpsim.truths.kde.snap_kde`) where the scores it was fitted
  to ship with evpsim (the Reuters and DeBERTa searches), else its CDF
  interpolated between the fit's grid edges
  (:func:`evpsim.truths.kde.snap_kde_grid`); the cells are cut at the
  grid's ends;
* another truth with a CDF (the truncated normals): the CDF's mass on each
  cell, cut at the truth's range likewise;
* a discrete truth (``data:``, ``file:``, ``bag``): each support point
  moves to its nearest lattice point.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from ..io.lattice import grid
from ..io.shipped import SEARCHES, shipped_scores
from .distributions import Discrete, make_truth, register_truth_prefix
from .kde import MAX_LATTICE_POINTS, KDETruth, kde_fit, snap_kde, snap_kde_grid

__all__ = ["lattice_truth", "PREFIX"]

PREFIX = "lattice:"
#: a lattice truth needs this many lattice points within its truth's range
MIN_POINTS = 3


def lattice_truth(step, truth):
    """The truth ``truth`` with its draws rounded to the lattice ``j * step``.

    Parameters
    ----------
    step : str or float
        The lattice's step: ``"1/N"`` or a positive decimal (``"0.01"``,
        ``0.01``). Between 3 and :data:`~evpsim.truths.kde.MAX_LATTICE_POINTS`
        lattice points must lie within the truth's range.
    truth : str or Truth
        A truth or its spec (``"kde:reuters-lstm"``, ``"normal"``, ...); a
        Truth without a spec must be discrete or have a CDF.

    Returns
    -------
    Discrete
        Named ``lattice:STEP:SPEC`` (``make_truth`` makes it again from
        that name when ``truth`` was a spec).

    Examples
    --------
    >>> t = lattice_truth("1/100", "kde:reuters-lstm-centered")
    >>> t.name, t.support.size
    ('lattice:1/100:kde:reuters-lstm-centered', 101)
    >>> t.theta([1, 50]).round(4)
    array([0.3479, 0.8838])
    """
    value = check.lattice_step(step)
    lattice = grid(value)
    base = make_truth(truth)
    spec = truth if isinstance(truth, str) else base.name
    text = f"1/{lattice.denominator}" if lattice.denominator else repr(lattice.step)
    check.lattice_points(lattice.count(base.lo, base.hi), text,
                         f"{spec}'s range [{base.lo:.4g}, {base.hi:.4g}]", minimum=MIN_POINTS,
                         maximum=MAX_LATTICE_POINTS)
    name = f"{PREFIX}{text}:{spec}"
    description = f"{base.description}, rounded to a lattice of step {lattice.step_text}"
    if isinstance(base, KDETruth) and spec.startswith("kde:"):
        fit = kde_fit(spec[len("kde:"):])
        scores = _fitted_scores(fit)
        snapped = (snap_kde(fit, scores, lattice) if scores is not None
                   else snap_kde_grid(fit, lattice))
        out = KDETruth(snapped)
        out.name, out.description = name, description
        return out
    if isinstance(base, Discrete):
        return Discrete(lattice.snap(base.support), base.pmf, name=name, description=description)
    if not callable(getattr(base, "cdf", None)):
        raise check.InvalidArgument("truth", f"{name}: {spec} has neither a CDF nor a finite "
                                             f"support to round to a lattice")
    points, edges = lattice.cells(base.lo, base.hi)
    return Discrete(points, np.maximum(np.diff(base.cdf(edges)), 0.0), name=name,
                    description=description)


def _fitted_scores(fit):
    """The scores a KDE fit was fitted to, where they ship with evpsim, else None."""
    for name, (_, original, _, _) in SEARCHES.items():
        if original is not None and original == fit.attrs.get("source"):
            xs = shipped_scores(name)
            if (xs.size == int(fit.attrs["runs"]) and xs.min() == fit.attrs["scores_min"]
                    and xs.max() == fit.attrs["scores_max"]):
                return xs
    return None


def _lattice_truth(arg, **_):
    step, sep, spec = arg.partition(":")
    if not sep or not spec:
        raise check.InvalidArgument("truth", f"truth {PREFIX}{arg} needs a step and a truth: "
                                             f"lattice:STEP:SPEC, e.g. "
                                             f"lattice:1/100:kde:reuters-lstm")
    return lattice_truth(step, spec)


register_truth_prefix(PREFIX[:-1], _lattice_truth,
                      "the truth SPEC's draws rounded to the nearest multiple of STEP (1/N or "
                      "a decimal): lattice:STEP:SPEC, e.g. lattice:1/100:kde:reuters-lstm")
