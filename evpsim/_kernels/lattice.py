"""Scores on a lattice: finding its step, snapping to it, jittering within its cells.

:func:`lattice_of` finds the coarsest lattice ``origin + j * step`` that
holds every score of an ascending sample to floating-point precision
(:func:`evpsim.io.lattice.find_lattice` describes the rule and calls it);
a CI method that respects the lattice (``gpd-tail-lattice``) calls it on
every sample, so it lives here, among the kernels. :func:`snap` rounds to
the lattice, :func:`jitter` spreads each score uniformly over its cell.
"""

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import rng_uniform
from .sampling import insertion_sort

#: the step is searched among the smallest gap between distinct scores divided by
#: 1, 2, ..., MAX_MULTIPLE
MAX_MULTIPLE = 1000
#: a lattice needs this many distinct scores: any two lie on one
MIN_DISTINCT = 3
#: a difference fits the lattice when it is within this many machine epsilons (of the
#: scores' precision, float32 or float64) times the largest score in magnitude
ULPS = 16
EPS64 = float(np.finfo(np.float64).eps)
EPS32 = float(np.finfo(np.float32).eps)
#: differences checked before all of them, to reject a candidate step quickly
FIRST = 32
#: the most a lattice may be the chance fit of continuous scores: ``MAX_MULTIPLE`` steps
#: tried, each gap beyond the smallest a whole multiple of one by chance with probability
#: about ``2 tol / step``
CHANCE = 1e-6


@njit(**_OPTS)
def denominator(step, eps):
    """N where ``step`` is 1/N to within rounding (machine epsilon ``eps``), else 0."""
    d = round(1.0 / step)
    if d >= 1 and abs(d * step - 1.0) <= ULPS * eps * d:
        return d
    return 0


@njit(**_OPTS)
def _fits(gaps, count, m, smallest, tol):
    """The least-squares step of the first ``count`` gaps as multiples of ``smallest / m``,
    or 0 when one of them is not a whole multiple of it within ``tol``."""
    num = 0.0
    den = 0.0
    for i in range(count):
        w = np.rint(gaps[i] * (m / smallest))
        num += w * gaps[i]
        den += w * w
    step = num / den
    for i in range(count):
        if abs(gaps[i] - np.rint(gaps[i] * (m / smallest)) * step) > tol:
            return 0.0
    return step


@njit(**_OPTS)
def lattice_of(xs):
    """``(step, origin, distinct)`` of the lattice of the ascending scores ``xs``, or
    ``(0, 0, distinct)`` when they lie on none.

    The tolerance is ``ULPS`` machine epsilons (float32's where every score
    is a float32 number) times the largest score in magnitude; gaps within
    it join two scores into one lattice point. The step is the largest
    ``smallest gap / m`` (m = 1..``MAX_MULTIPLE``) of which every gap is a
    whole multiple, refined by least squares, kept only where continuous
    scores would fit it by chance less than ``CHANCE``, and made exactly
    1/N where it is 1/N to within rounding.
    """
    B = xs.shape[0]
    single = True
    big = 0.0
    for i in range(B):
        if np.float64(np.float32(xs[i])) != xs[i]:
            single = False
        big = max(big, abs(xs[i]))
    eps = EPS32 if single else EPS64
    tol = ULPS * eps * big
    gaps = np.empty(max(B - 1, 0))
    g = 0
    smallest = np.inf
    for i in range(1, B):
        d = xs[i] - xs[i - 1]
        if d > tol:
            gaps[g] = d
            smallest = min(smallest, d)
            g += 1
    if g < MIN_DISTINCT - 1:
        return 0.0, 0.0, g + 1
    step = 0.0
    for m in range(1, MAX_MULTIPLE + 1):
        # a quick rejection on a few gaps first
        if _fits(gaps, min(g, FIRST), m, smallest, tol) > 0.0:
            step = _fits(gaps, g, m, smallest, tol)
            if step > 0.0:
                break
    if not step > 0.0 or MAX_MULTIPLE * min(1.0, 2.0 * tol / step) ** (g - 1) > CHANCE:
        return 0.0, 0.0, g + 1
    d = denominator(step, eps)
    if d > 0:
        step = 1.0 / d
    return step, xs[0], g + 1


@njit(**_OPTS)
def snap(xs, step, origin):
    """``xs`` moved in place to their nearest lattice points (order kept: snapping is
    monotone)."""
    for i in range(xs.shape[0]):
        xs[i] = origin + np.rint((xs[i] - origin) / step) * step


@njit(**_OPTS)
def jitter(st, xs, step, out):
    """``out``: each of the ascending lattice scores ``xs`` spread uniformly over its cell
    ``[x - step/2, x + step/2)``, ascending.

    Only tied scores can change places, so an insertion sort takes time
    linear in B beside the squares of the sizes of the groups of ties.
    """
    for i in range(xs.shape[0]):
        out[i] = xs[i] + step * (rng_uniform(st) - 0.5)
    insertion_sort(out, out.shape[0])
