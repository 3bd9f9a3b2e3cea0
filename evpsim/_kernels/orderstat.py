"""Intervals for a quantile between two order statistics, and their coverage.

For a continuous F and its p-quantile ``xi_p``, the count S of the B
scores at or below ``xi_p`` is Binomial(B, p), and ``x_(l) <= xi_p <=
x_(u)`` exactly when ``l <= S <= u - 1``: the interval ``[x_(l), x_(u)]``
covers with a probability that depends on (B, p, l, u) alone (Thompson
1936; David & Nagaraja 2003, section 7.1). The ranks l and u are chosen
by the caller (:mod:`evpsim.intervals.orderstat`); ``l = 0`` stands for no
lower order statistic (the lower end is the metric's bound, or -inf) and
``u = B + 1`` for none above: there the upper end comes from the
generalized Pareto tail of :mod:`.tails`, fitted to the best scores.

The tail's upper end is a bootstrap-t end from the parametric bootstrap
predictive distribution (Harris 1989), as the ``gpd-tail`` method of
:mod:`.resampling` draws it: per resample, ``y1 ~ F-hat``, ``F1`` refitted
to ``y1`` (same k), ``y2 ~ F1``, ``F2`` refitted to ``y2``, pivot ``(Q(F2,
p) - Q(F1, p)) / sigma(F2)`` (Q the model's quantile, sigma its tail's
scale), upper end ``Q(F-hat, p) - sigma(F-hat) q_{a/2}(pivot)``: the
tail's fitting error enters twice, and its scale is studentized. (A basic
interval of the same draws, root ``Q(F2, p) - Q(F1, p)``, and a
single-level studentized one, both narrower, fell to 0.90 and 0.92 on the
truncated normal at B = 50.)

References
----------
.. [1] W. R. Thompson, "On confidence ranges for the median and other
       expectation distributions for populations of unknown distribution
       form", Ann. Math. Statist. 7 (1936).
.. [2] H. A. David and H. N. Nagaraja, Order Statistics, 3rd ed. (2003).
.. [3] I. R. Harris, "Predictive fit for natural exponential families",
       Biometrika 76 (1989).
"""

import math

import numpy as np
from numba import njit

from .lattice import lattice_of
from .options import OPTS as _OPTS
from .quantiles import quantiles_by_selection
from .rng import chunk_bounds, rng_init
from .sampling import draw_sorted
from .tallies import NSLOTS, tally
from .tails import K_MIN, draw_semiparametric, fit_tail, tail_threshold, tail_tied


@njit(**_OPTS)
def model_quantile(xs, k, xi, sigma, p):
    """``inf {x : F(x) >= p}`` of the semiparametric model fitted to ``xs`` (ascending):
    mass 1/B on each of the B - k lowest scores, k/B as GPD(xi, sigma) over
    ``u = xs[B - k - 1]``."""
    B = xs.shape[0]
    tail = 1.0 - p
    if tail >= k / B:
        return xs[min(max(int(math.ceil(p * B - 1e-12)) - 1, 0), B - k - 1)]
    return xs[B - k - 1] + sigma * math.expm1(-xi * math.log(tail * B / k)) / xi


@njit(**_OPTS)
def has_tail(xs):
    """Whether a tail can be fitted to the ascending sample ``xs``: at least
    ``2 K_MIN`` scores, the best of them not all tied (:func:`.tails.tail_tied`)."""
    return xs.shape[0] >= 2 * K_MIN and not tail_tied(xs)


@njit(**_OPTS)
def tail_uppers(st, xs, ps, need, resamples, level, out, top=np.inf):
    """Upper ends ``out[j]`` from the fitted tail at the probabilities ``ps[j]`` where
    ``need[j]``, from ``resamples`` draws of generator ``st`` (see the module notes); the
    tail's end at most ``top`` (:func:`.tails.fit_tail`).

    NaN where no tail can be fitted (:func:`has_tail`).
    """
    B = xs.shape[0]
    N = ps.shape[0]
    if not has_tail(xs):
        for j in range(N):
            if need[j]:
                out[j] = np.nan
        return
    ys = np.empty(B)
    k = tail_threshold(xs, ys, top)
    xi, sigma = fit_tail(xs, k, ys, top)
    rows = np.cumsum(need) - 1  # the pivots of the probabilities that need the tail
    roots = np.empty((rows[N - 1] + 1, resamples))
    counts = np.empty(B, dtype=np.int64)
    y1, y2 = np.empty(B), np.empty(B)
    for r in range(resamples):
        draw_semiparametric(st, xs, k, xi, sigma, counts, y1)
        xi1, sigma1 = fit_tail(y1, k, ys, top)
        draw_semiparametric(st, y1, k, xi1, sigma1, counts, y2)
        xi2, sigma2 = fit_tail(y2, k, ys, top)
        for j in range(N):
            if need[j]:
                d = (model_quantile(y2, k, xi2, sigma2, ps[j])
                     - model_quantile(y1, k, xi1, sigma1, ps[j]))
                roots[rows[j], r] = d / sigma2 if sigma2 > 0.0 else 0.0
    probs = np.empty(1)
    probs[0] = 0.5 * (1.0 - level)
    q = np.empty(1)
    ranks = np.empty(2, dtype=np.int64)
    for j in range(N):
        if need[j]:
            quantiles_by_selection(roots[rows[j]], probs, q, ranks)
            out[j] = model_quantile(xs, k, xi, sigma, ps[j]) - sigma * q[0]


@njit(**_OPTS)
def orderstat_intervals(st, xs, ls, us, ps, resamples, level, lo, hi, out):
    """Intervals ``out`` (N, 2) for the ``ps[j]``-quantiles of the ascending sample
    ``xs``: ``[x_(ls[j]), x_(us[j])]`` (ranks from 1); where ``us[j] > B``, the
    tail's upper end (its tail ending at ``hi`` or below), or the best score if
    higher; ``lo`` where ``ls[j] = 0``. Where the scores lie on a lattice
    (:func:`.lattice.lattice_of`), so do the quantiles, and a tail's upper end moves
    up to the lattice point at or above it. Ends are cut to ``[lo, hi]``."""
    B = xs.shape[0]
    N = ps.shape[0]
    need = us > B
    upper = np.empty(N)
    if need.any():
        tail_uppers(st, xs, ps, need, resamples, level, upper, hi)
        step, origin, _ = lattice_of(xs)
        if step > 0.0:
            for j in range(N):
                if need[j] and upper[j] == upper[j]:  # a tail's end, not its absence (NaN)
                    upper[j] = origin + math.ceil((upper[j] - origin) / step - 1e-9) * step
    for j in range(N):
        lower = xs[ls[j] - 1] if ls[j] > 0 else lo
        # where no order statistic is high enough, neither is the best score
        up = xs[us[j] - 1] if not need[j] else (
            max(upper[j], xs[B - 1]) if upper[j] == upper[j] else np.nan)
        out[j, 0] = min(max(lower, lo), hi)
        out[j, 1] = min(max(up, out[j, 0]), hi) if up == up else np.nan


@njit(**_OPTS)
def coverage_orderstat_chunks(span, B, sampler, ls, us, ps, thetas, resamples, level, lo, hi):
    """Coverage tallies (nchunks, 1, 1, N + 1, NSLOTS) of the order-statistic intervals
    (E = 1: they use no estimator), on the samples every kind sees: replicate i from
    stream ``(seed, stream0 + i)``, its tail resamples from the same generator after."""
    N = ps.shape[0]
    out = np.zeros((span.nchunks, 1, 1, N + 1, NSLOTS))
    xs = np.empty(B)
    ivs = np.empty((1, N, 2))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            orderstat_intervals(st, xs, ls, us, ps, resamples, level, lo, hi, ivs[0])
            tally(out[c], ivs, thetas, 1, N)
    return out
