"""Scores on a lattice: accuracies on a finite validation set, and other rounded scores.

An accuracy on N validation examples is a multiple of 1/N; a score printed
to four decimals is a multiple of 1/10,000. Such scores lie on a lattice
``origin + j * step`` and tie, most of all at the top, where a few
excellent configurations reach the same count of correct examples.
:func:`find_lattice` finds the coarsest lattice that holds every score to
floating-point precision, and how many of the best scores are tied; ``curve``
names it in its header, and the self-check simulates its truth on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validate as check
from .._kernels.lattice import CHANCE, EPS64, MAX_MULTIPLE, denominator, lattice_of

__all__ = ["Lattice", "find_lattice", "grid", "top_ties", "step_text", "unit_scale", "UNIT",
           "MAX_MULTIPLE", "CHANCE"]

#: the range taken for scores that lie in it on a lattice of step 1/N: an accuracy on N
#: examples, an F1 or a share printed to a few decimals
UNIT = (0.0, 1.0)

#: the floating-point precision of a step of 1/N
_EPS = EPS64


@dataclass(frozen=True)
class Lattice:
    """The lattice ``origin + j * step`` every score lies on, and the ties at the top.

    Attributes
    ----------
    step : float
        The lattice's step: the largest that holds every score.
    origin : float
        A lattice point (the smallest score).
    denominator : int or None
        N where the step is 1/N (to floating-point precision), else None.
    distinct : int
        Distinct scores.
    size : int
        Scores.
    top : int
        The best scores (highest; lowest for losses) whose ties are counted (:func:`top_ties`).
    tied : int
        How many of them share their value with another score.

    Examples
    --------
    >>> lat = Lattice(0.05, 0.35, 20, 5, 6, 5, 2)
    >>> lat.describe()
    'scores on a lattice of step 1/20 (5 distinct of 6); 2 of the best 5 tied'
    >>> lat.snap([0.41, 0.5249]).round(12)
    array([0.4, 0.5])
    """

    step: float
    origin: float
    denominator: int | None
    distinct: int
    size: int
    top: int
    tied: int

    @property
    def step_text(self):
        """The step as text (:func:`step_text`)."""
        return step_text(self.step)

    def snap(self, values):
        """The lattice points nearest ``values``."""
        values = np.asarray(values, dtype=float)
        return self.origin + np.round((values - self.origin) / self.step) * self.step

    def cells(self, lo, hi):
        """The lattice points within ``[lo, hi]`` and their cells' edges, cut at ``lo``
        and ``hi``: ``(points, edges)``, ``edges`` one longer.

        A draw of a distribution on ``[lo, hi]`` rounded to the nearest lattice point
        falls on a point's cell, the half-steps on either side of it; the mass of the
        cells beyond the first and the last points (rounding to points outside
        ``[lo, hi]``) goes to those points.

        Examples
        --------
        >>> points, edges = grid(0.25).cells(0.1, 0.8)
        >>> points.tolist(), edges.tolist()
        ([0.25, 0.5, 0.75], [0.1, 0.375, 0.625, 0.8])
        """
        first, last = self._span(lo, hi)
        points = self.origin + np.arange(first, last + 1) * self.step
        return points, np.concatenate([[lo], 0.5 * (points[:-1] + points[1:]), [hi]])

    def count(self, lo, hi):
        """How many lattice points lie within ``[lo, hi]``."""
        first, last = self._span(lo, hi)
        return max(0, last - first + 1)

    def _span(self, lo, hi):
        """The indices j of the first and last lattice points within ``[lo, hi]``."""
        return (math.ceil((lo - self.origin) / self.step - 1e-9),
                math.floor((hi - self.origin) / self.step + 1e-9))

    def describe(self):
        """``scores on a lattice of step 1/9,815 (438 distinct of 1,024); 25 of the best 32
        tied``."""
        return (f"scores on a lattice of step {self.step_text} ({self.distinct:,} distinct of "
                f"{self.size:,}); {self.tied} of the best {self.top} tied")


def step_text(step):
    """A lattice's step as text: ``1/9,815`` where it is 1/N for N up to a million, else
    its value.

    Examples
    --------
    >>> step_text(1 / 9815), step_text(0.3), step_text(1.0), step_text(1e-13)
    ('1/9,815', '0.3', '1', '1e-13')
    """
    denominator = _denominator(step)
    if denominator is not None and 1 < denominator <= 1_000_000:
        return f"1/{denominator:,}"
    return f"{step:.4g}"


def _denominator(step, eps=_EPS):
    """N where ``step`` is 1/N to within rounding (machine epsilon ``eps``), else None."""
    return int(denominator(step, eps)) or None


def grid(step, origin=0.0):
    """The lattice ``origin + j * step`` (its step exactly 1/N where it is 1/N to within
    rounding), without scores.

    Examples
    --------
    >>> grid(0.01).denominator, grid(0.3).denominator
    (100, None)
    """
    denominator = _denominator(step)
    if denominator is not None:
        step = 1.0 / denominator
    return Lattice(step, float(origin), denominator, 0, 0, 0, 0)


def top_ties(scores, top=None):
    """How many of the best scores share their value with another score.

    Parameters
    ----------
    scores : array_like of float
        The scores (larger is better), already snapped to their lattice
        where they have one.
    top : int, optional
        How many of the best scores to look at; default ``ceil(sqrt(B))``
        (at least 5, at most B): a tail fitted to the best scores rests on
        about that many.

    Returns
    -------
    (int, int)
        ``top`` and how many of those scores are tied with another score
        (of the whole sample).

    Examples
    --------
    >>> top_ties([0.1, 0.2, 0.3, 0.5, 0.5, 0.7, 0.8, 0.8, 0.8])
    (5, 4)
    """
    xs = np.sort(np.asarray(scores, dtype=float))
    if top is None:
        top = max(5, math.ceil(math.sqrt(xs.size)))
    top = min(int(top), xs.size)
    values, counts = np.unique(xs, return_counts=True)
    repeated = values[counts > 1]
    return top, int(np.count_nonzero(np.isin(xs[xs.size - top:], repeated)))


def find_lattice(scores, minimize=False):
    """The coarsest lattice that holds every score, or None.

    The step is the largest ``d / m`` (``d`` the smallest gap between
    distinct scores, ``m`` = 1, 2, ..., :data:`MAX_MULTIPLE`) of which every
    gap between neighbouring distinct scores is a whole multiple, to
    floating-point precision: within 16 machine epsilons times the largest
    score in magnitude, the epsilon of float32 where every score is a
    float32 number (a score stored in single precision), else float64's.
    The step is refined by least squares over all gaps before the check.
    A lattice is reported only where continuous scores would fit it by
    chance less than once in a million (:data:`CHANCE`: each gap beyond the
    smallest fits with probability about ``2 tol / step``): float64 scores
    of step 1/10,000 need three distinct values, float32 ones a dozen or
    so. Fewer than three distinct scores have no lattice to find.

    Parameters
    ----------
    scores : array_like of float
        The scores (finite).
    minimize : bool
        The scores are losses: the ties are counted among the lowest.

    Returns
    -------
    Lattice or None

    Examples
    --------
    >>> lat = find_lattice(np.array([7, 12, 12, 13, 15, 15]) / 20)
    >>> lat.step_text, lat.tied
    ('1/20', 4)
    >>> find_lattice(np.random.default_rng(0).random(100)) is None
    True
    """
    xs = check.scores(scores, min_size=1)
    step, origin, distinct = lattice_of(np.sort(xs))
    if not step > 0:
        return None
    lattice = grid(step, origin)
    snapped = lattice.snap(xs)
    top, tied = top_ties(-snapped if minimize else snapped)
    return Lattice(lattice.step, lattice.origin, lattice.denominator, int(distinct), xs.size,
                   top, tied)


def unit_scale(scores):
    """The lattice that makes the scores an accuracy-like share, or None.

    Scores that all lie in [0, 1] on a lattice of step 1/N (an accuracy on
    N examples is a multiple of 1/N; a share printed to four decimals, of
    1/10,000) are taken to be bounded by :data:`UNIT`: ``curve`` then knows
    the worst and the best score possible without being told.

    Parameters
    ----------
    scores : array_like of float
        The scores (finite).

    Returns
    -------
    Lattice or None
        The scores' lattice (its ``denominator`` N), where every score is a
        multiple of 1/N in [0, 1]; else None.

    Examples
    --------
    >>> unit_scale(np.array([130, 131, 133, 140]) / 143).step_text
    '1/143'
    >>> unit_scale(np.array([0.2, 0.35, 1.05])) is None  # beyond 1
    True
    >>> unit_scale(np.random.default_rng(0).random(50)) is None  # on no lattice
    True
    """
    xs = np.asarray(scores, dtype=float)
    if xs.size == 0 or xs.min() < UNIT[0] or xs.max() > UNIT[1]:
        return None
    lattice = find_lattice(xs)
    if lattice is None or lattice.denominator is None:
        return None
    k = lattice.origin * lattice.denominator
    return lattice if abs(k - round(k)) <= 1e-9 * max(1.0, abs(k)) else None
