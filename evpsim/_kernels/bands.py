"""Kernels of the distribution-free CDF bands: their exact coverage, and the intervals
of a curve they give.

``order_statistic_coverage(lo, hi)`` is ``P(lo_i <= U_(i) <= hi_i for every
i)`` for the order statistics of n i.i.d. uniforms. A Poisson process of
rate n on [0, 1], conditioned on n points, is the uniform sample (Moscovich
& Nadler 2017): its count N(t) is walked across the sorted bounds, where
``U_(i) >= lo_i`` means ``N(lo_i) <= i - 1`` and ``U_(i) <= hi_i`` means
``N(hi_i) >= i``; between bounds the count grows by a Poisson increment,
a convolution with a short kernel. All terms are non-negative, so nothing
cancels; the kernel is cut where its terms fall below 1e-18 of its
largest.

A band bounds the CDF on each gap between the sorted scores, and so bounds
every budget's expected maximum (:func:`band_intervals`) and quantile
(:func:`band_quantile_intervals`); :func:`coverage_band_chunks` tallies
their coverage on simulated searches.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import chunk_bounds, rng_init
from .sampling import draw_sorted
from .tallies import NSLOTS, tally

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


@njit(**_OPTS)
def band_intervals(xs, lo, hi, lowers, uppers, out):
    """Intervals for every budget from simultaneous CDF bands.

    With ``L_i <= F(x) <= U_i`` on ``[x_(i), x_(i+1))`` (``x_(0) = lo``,
    ``x_(B+1) = hi``) and ``theta_n = hi - integral F(x)^n dx``,

        hi - sum_i gap_i U_i^n  <=  theta_n  <=  hi - sum_i gap_i L_i^n.

    Parameters
    ----------
    xs : (B,) array
        The ascending sample, inside ``[lo, hi]``.
    lo, hi : float
        Known bounds of the scores.
    lowers, uppers : (nband, B + 1) arrays
        CDF bounds of each band on each of the B + 1 gaps.
    out : (nband, N, 2) array
        Receives the intervals for n = 1..N (N may exceed B: the bounds
        hold for every n).
    """
    B = xs.shape[0]
    gaps = np.empty(B + 1)
    gaps[0] = xs[0] - lo
    for i in range(1, B):
        gaps[i] = xs[i] - xs[i - 1]
    gaps[B] = hi - xs[B - 1]
    pl = np.empty(B + 1)
    pu = np.empty(B + 1)
    for b in range(lowers.shape[0]):
        pl[:] = 1.0
        pu[:] = 1.0
        for n in range(out.shape[1]):
            sl = 0.0
            su = 0.0
            for i in range(B + 1):
                pl[i] *= lowers[b, i]
                pu[i] *= uppers[b, i]
                sl += gaps[i] * pl[i]
                su += gaps[i] * pu[i]
            out[b, n, 0] = hi - su
            out[b, n, 1] = hi - sl


@njit(**_OPTS)
def band_quantile_intervals(xs, lo, hi, lowers, uppers, ps, out):
    """Intervals for quantiles ``F^-1(p)`` from simultaneous CDF bands.

    With ``L_i <= F(x) <= U_i`` on ``[x_(i), x_(i+1))`` (``x_(0) = lo``),
    the quantile ``inf {x : F(x) >= p}`` lies between the left ends of the
    first gaps where ``U_i >= p`` and where ``L_i >= p`` (``hi`` if none):
    for the quantile curve, ``p = q**(1/n)``.

    Parameters
    ----------
    xs : (B,) array
        The ascending sample, inside ``[lo, hi]``.
    lo, hi : float
        Known bounds of the scores.
    lowers, uppers : (nband, B + 1) arrays
        CDF bounds of each band on each of the B + 1 gaps.
    ps : (N,) array
        Probabilities.
    out : (nband, N, 2) array
        Receives the intervals.
    """
    B = xs.shape[0]
    for b in range(lowers.shape[0]):
        for j in range(ps.shape[0]):
            p = ps[j]
            left = hi
            right = hi
            for i in range(B + 1):
                start = lo if i == 0 else xs[i - 1]
                if left == hi and uppers[b, i] >= p:
                    left = start
                if lowers[b, i] >= p:
                    right = start
                    break
            out[b, j, 0] = left
            out[b, j, 1] = right


@njit(**_OPTS)
def coverage_band_chunks(span, B, sampler, lo, hi, lowers, uppers, thetas, index, ps):
    """Coverage tallies (:func:`.tallies.tally`, E = 1) of CDF-band intervals, one block
    per chunk of replicates.

    ``index`` holds the N budgets' positions ``n - 1`` (any n: the bands
    bound the curve beyond B too); for a quantile curve, ``ps`` holds the
    N probabilities ``q**(1/n)`` (empty for the mean curve). Draws each
    replicate's sample from the same stream, so the samples are those the
    bootstrap kernel sees.
    """
    nb = lowers.shape[0]
    N = index.shape[0]
    top = 0
    for j in range(N):
        top = max(top, index[j] + 1)
    out = np.zeros((span.nchunks, nb, 1, N + 1, NSLOTS))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        xs = np.empty(B)
        every = np.empty((nb, top, 2))
        ivs = np.empty((nb, N, 2))
        acc = out[c]
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            if ps.shape[0] > 0:
                band_quantile_intervals(xs, lo, hi, lowers, uppers, ps, ivs)
            else:
                band_intervals(xs, lo, hi, lowers, uppers, every)
                for g in range(nb):
                    for j in range(N):
                        ivs[g, j, 0] = every[g, index[j], 0]
                        ivs[g, j, 1] = every[g, index[j], 1]
            tally(acc, ivs, thetas, 1, N)
    return out
