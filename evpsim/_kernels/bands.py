"""Exact simultaneous coverage of bounds on uniform order statistics.

``order_statistic_coverage(lo, hi)`` is ``P(lo_i <= U_(i) <= hi_i for every
i)`` for the order statistics of n i.i.d. uniforms. A Poisson process of
rate n on [0, 1], conditioned on n points, is the uniform sample (Moscovich
& Nadler 2017): its count N(t) is walked across the sorted bounds, where
``U_(i) >= lo_i`` means ``N(lo_i) <= i - 1`` and ``U_(i) <= hi_i`` means
``N(hi_i) >= i``; between bounds the count grows by a Poisson increment,
a convolution with a short kernel. All terms are non-negative, so nothing
cancels; the kernel is cut where its terms fall below 1e-18 of its
largest.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS

_CUT = 1e-18


@njit(**_OPTS)
def _poisson_kernel(lam, out):
    """Poisson(lam) pmf on 0..m into ``out``; returns m (the cut support)."""
    if lam <= 0.0:
        out[0] = 1.0
        return 0
    mode = int(lam)
    # log pmf at the mode, then ratios outwards from it
    log_mode = -lam + mode * math.log(lam) - math.lgamma(mode + 1.0)
    top = min(out.shape[0] - 1, mode)
    out[top] = math.exp(log_mode) if top == mode else 0.0
    if top < mode:  # the mode lies beyond the counts kept: walk down from it
        v = log_mode
        for k in range(mode, top, -1):
            v -= math.log(lam / k)
        out[top] = math.exp(v)
    for k in range(top - 1, -1, -1):
        out[k] = out[k + 1] * (k + 1) / lam
    peak = out[top]
    m = top
    while m + 1 < out.shape[0]:
        nxt = out[m] * lam / (m + 1)
        if nxt < _CUT * peak and m >= mode:
            break
        out[m + 1] = nxt
        m += 1
    return m


@njit(**_OPTS)
def order_statistic_coverage(lo, hi):
    """``P(lo[i] <= U_(i+1) <= hi[i], i = 0..n-1)`` for n uniform order statistics.

    Parameters
    ----------
    lo, hi : (n,) arrays
        Non-decreasing bounds in [0, 1] with ``lo <= hi``.

    Returns
    -------
    float
    """
    n = lo.shape[0]
    # events: (position, +i for a lower bound of U_(i), -i for an upper bound)
    pos = np.empty(2 * n)
    tag = np.empty(2 * n, dtype=np.int64)
    for i in range(n):
        pos[i] = lo[i]
        tag[i] = i + 1
        pos[n + i] = hi[i]
        tag[n + i] = -(i + 1)
    order = np.argsort(pos, kind="mergesort")
    p = np.zeros(n + 1)
    q = np.empty(n + 1)
    kern = np.empty(n + 1)
    p[0] = 1.0
    t = 0.0
    for e in range(2 * n + 1):
        if e < 2 * n:
            s = pos[order[e]]
        else:
            s = 1.0
        lam = n * (s - t)
        if lam > 0.0:
            m = _poisson_kernel(lam, kern)
            for j in range(n + 1):
                acc = 0.0
                for d in range(min(j, m) + 1):
                    acc += p[j - d] * kern[d]
                q[j] = acc
            for j in range(n + 1):
                p[j] = q[j]
            t = s
        if e < 2 * n:
            g = tag[order[e]]
            if g > 0:  # N(lo_i) <= i - 1
                for j in range(g, n + 1):
                    p[j] = 0.0
            else:  # N(hi_i) >= i
                for j in range(-g):
                    p[j] = 0.0
    # condition on n points in all: divide by P(Poisson(n) = n)
    return p[n] / math.exp(-n + n * math.log(n) - math.lgamma(n + 1.0))
