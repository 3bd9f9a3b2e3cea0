"""Confidence intervals for the mean of bounded scores by betting, valid at every sample size.

Waudby-Smith and Ramdas (2024) bound the mean ``mu`` of variables in
[0, 1] by betting against each candidate value m: a gambler who stakes a
share ``lambda_i`` of their capital on ``z_i - m`` holds

    K+(m) = prod_i (1 + lambda_i (z_i - m)),   K-(m) = prod_i (1 - lambda_i (z_i - m)),

and at the true mean both are nonnegative martingales of mean 1, so by
Ville's inequality the hedged capital ``K(m) = (K+(m) + K-(m)) / 2`` reaches
``1 / alpha`` with probability at most alpha. The interval is every m whose
capital stays below it. The stakes are predictable: ``lambda_i =
sqrt(2 log(2 / alpha) / (n sigma_{i-1}^2))`` from the variance of the
scores before i (started at 1/4), capped at ``1 / (2 m)`` for K+ and ``1 /
(2 (1 - m))`` for K- (their "predictable plug-in" for a sample of fixed size
n). Its width is near the best a valid interval can have, with no
assumption beyond the range.

For the expected maximum theta_n, the maxima of ``floor(B / n)`` disjoint
blocks of n scores are independent draws whose mean is theta_n, so the
same interval bounds it, at every n at once only in the sense that each n
holds on its own. The order of the scores matters to the predictable
stakes; the capital is averaged over several random orders (an average of
such capitals is a capital too), drawn from the caller's generator.

References
----------
.. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random
       variables by betting", J. R. Statist. Soc. B 86 (2024).
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import below, chunk_bounds, rng_init, rng_uniform
from .sampling import draw_sorted
from .tallies import NSLOTS, tally

#: candidate means on a grid over [0, 1] before the edges are refined by bisection
GRID = 400
#: bisection steps at each edge
REFINE = 30
#: random orders the capital is averaged over
ORDERS = 8


@njit(**_OPTS)
def _capital(zs, count, m, log_bet):
    """The hedged capital ``(K+(m) + K-(m)) / 2`` of the first ``count`` values ``zs``."""
    up = 1.0
    down = 1.0
    mean = 0.5
    var = 0.25
    for i in range(count):
        lam = math.sqrt(log_bet / (count * var))
        up *= 1.0 + min(lam, 0.5 / m if m > 0.0 else np.inf) * (zs[i] - m)
        down *= 1.0 - min(lam, 0.5 / (1.0 - m) if m < 1.0 else np.inf) * (zs[i] - m)
        d = zs[i] - mean
        var = (var * (i + 1.0) + d * d) / (i + 2.0)
        mean = (mean * (i + 1.0) + zs[i]) / (i + 2.0)
    return 0.5 * (up + down)


@njit(**_OPTS)
def _mean_capital(blocks, counts, m, log_bet):
    """The capital at m averaged over the orders (rows of ``blocks``)."""
    total = 0.0
    for o in range(blocks.shape[0]):
        total += _capital(blocks[o], counts[o], m, log_bet)
    return total / blocks.shape[0]


@njit(**_OPTS)
def betting_interval(blocks, counts, level):
    """The betting interval ``(lower, upper)`` in [0, 1] for the mean of the values in
    each row of ``blocks`` (its first ``counts[o]``), the capital averaged over rows.

    The candidates whose capital stays below ``1 / (1 - level)`` form an
    interval; its ends are found on a grid, then by bisection.
    """
    alpha = 1.0 - level
    log_bet = 2.0 * math.log(2.0 / alpha)
    bar = 1.0 / alpha
    first, last = -1, -1
    for g in range(GRID + 1):
        if _mean_capital(blocks, counts, g / GRID, log_bet) < bar:
            if first < 0:
                first = g
            last = g
    if first < 0:  # no candidate survives (cannot happen at the true mean but by chance)
        return np.nan, np.nan
    ends = np.empty(2)
    for side in range(2):
        inside = (first if side == 0 else last) / GRID
        outside = max(inside - 1.0 / GRID, 0.0) if side == 0 else min(inside + 1.0 / GRID, 1.0)
        if outside == inside:
            ends[side] = inside
            continue
        for _ in range(REFINE):
            mid = 0.5 * (inside + outside)
            if _mean_capital(blocks, counts, mid, log_bet) < bar:
                inside = mid
            else:
                outside = mid
        ends[side] = inside
    return ends[0], ends[1]


@njit(**_OPTS)
def betting_curve(st, xs, lo, hi, ns, level, out):
    """Intervals ``out`` (N, 2) for theta_n at the budgets ``ns`` of the scores ``xs`` in
    ``[lo, hi]``: the betting interval of the maxima of ``floor(B / n)`` disjoint blocks
    of n, in :data:`ORDERS` random orders from the generator ``st``; ``[lo, hi]`` where
    n > B (no block)."""
    B = xs.shape[0]
    span = hi - lo
    order = np.empty((ORDERS, B), dtype=np.int64)
    for o in range(ORDERS):  # Fisher-Yates
        for i in range(B):
            order[o, i] = i
        for i in range(B - 1, 0, -1):
            j = below(rng_uniform(st), i + 1)
            order[o, i], order[o, j] = order[o, j], order[o, i]
    blocks = np.empty((ORDERS, B))
    counts = np.empty(ORDERS, dtype=np.int64)
    for a in range(ns.shape[0]):
        n = ns[a]
        nb = B // n
        if nb == 0:
            out[a, 0], out[a, 1] = lo, hi
            continue
        for o in range(ORDERS):
            counts[o] = nb
            for b in range(nb):
                best = -np.inf
                for t in range(n):
                    best = max(best, xs[order[o, b * n + t]])
                blocks[o, b] = (best - lo) / span
        low, high = betting_interval(blocks, counts, level)
        out[a, 0] = lo + span * low
        out[a, 1] = lo + span * high


@njit(**_OPTS)
def coverage_betting_chunks(span, B, sampler, lo, hi, ns, thetas, level):
    """Coverage tallies (nchunks, 1, 1, N + 1, NSLOTS) of the betting intervals (E = 1:
    they use no estimator), on the samples every kind sees: replicate i from stream
    ``(seed, stream0 + i)``, its orders from the same generator after."""
    N = ns.shape[0]
    out = np.zeros((span.nchunks, 1, 1, N + 1, NSLOTS))
    xs = np.empty(B)
    ivs = np.empty((1, N, 2))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            betting_curve(st, xs, lo, hi, ns, level, ivs[0])
            tally(out[c], ivs, thetas, 1, N)
    return out
