"""Intervals that know the scores' scale: a floor of failed trials, a top, valid bounds.

The method :data:`BOUNDED` (``gpd-tail-bounded``) is ``gpd-tail-lattice``
(:mod:`.resampling`) told the range ``[lo, hi]`` a score can take:

* *The top.* The tail's upper end is kept at or below ``hi``
  (:func:`.tails.fit_tail`), so the model puts no mass beyond the best
  score possible.
* *The floor.* Trials that failed count at the worst score, ``lo``: a
  point mass, not part of a tail. With m of the B scores at ``lo`` (m >
  0), the scores are a mixture: a failure with probability pi, else a
  draw from the successes' distribution G, whose curve is ``theta^G_k``.
  The best of n trials is ``lo`` when all n fail, else the best of the
  k that succeed, so (:func:`mixture_curve`)

      theta_n = pi^n lo + sum_{k=1..n} C(n, k) (1 - pi)^k pi^(n-k) theta^G_k.

  theta_n falls as pi grows and rises with every ``theta^G_k``. pi gets
  its exact Clopper-Pearson interval from m of B (:func:`clopper_pearson`),
  ``theta^G_k`` the tail method's interval for V from the B - m
  successes at every k = 1..n, each at level ``sqrt(level)``; both hold
  at once with probability ``level`` (the failure count and the
  successes, given their number, are independent), and then theta_n lies
  between the curve of the largest pi with the successes' lower ends and
  that of the smallest pi with their upper ends. Without a score at
  ``lo`` the method is the tail method on the whole sample, top kept.
* *Valid bounds.* The two-sided Learned-Miller-DeStefano band at the same
  level bounds theta_n at every n, whatever the distribution
  (:func:`.bands.band_intervals`); an end beyond the band's is cut to
  it, and where the tail cannot be fitted (fewer than ``2 K_MIN``
  successes, or their best all tied off a lattice) the band's interval
  is the method's.

Every end lies in ``[lo, hi]``.
"""

import math

import numpy as np
from numba import njit

from .bands import band_intervals
from .options import OPTS as _OPTS
from .quantiles import quantiles_by_selection
from .resampling import (GPD_LATTICE, GPD_TAIL, TINY, Tables, blocks, effective, estimates,
                         finish, method_seed, pivots, setup, total_resamples)
from .rng import chunk_bounds, rng_beta, rng_init
from .sampling import draw_sorted
from .tails import K_MIN, binomial_bands, tail_tied
from .tallies import NSLOTS, tally

#: the method's code, beside the resampling methods' (0-4) and the calibration's (8, 9)
BOUNDED = 5


@njit(**_OPTS)
def floor_count(xs, lo):
    """How many of the ascending scores ``xs`` lie at the floor ``lo``."""
    m = 0
    while m < xs.shape[0] and xs[m] <= lo:
        m += 1
    return m


@njit(**_OPTS)
def v_tables(s, nmax):
    """:class:`~.resampling.Tables` of V at every budget 1..``nmax`` for samples of ``s``."""
    wt = np.empty((s, nmax))
    for n in range(1, nmax + 1):
        prev = 0.0
        for i in range(s):
            cur = ((i + 1.0) / s) ** n
            wt[i, n - 1] = cur - prev
            prev = cur
    wend = np.zeros((s, 1), dtype=np.int64)
    vend = np.zeros(s, dtype=np.int64)
    for i in range(s):
        last = 0
        for c in range(nmax):
            if abs(wt[i, c]) > TINY:
                last = c + 1
        wend[i, 0] = last
        vend[i] = last
    ns = np.arange(1, nmax + 1)
    return Tables(wt, wend, ns - 1, ns, wt, vend, np.zeros(0, dtype=np.int64),
                  np.zeros((0, nmax)), np.zeros(0), np.zeros(1, dtype=np.int64))


@njit(**_OPTS)
def mixture_draws(floor, a, b, est, sd, piv, ns, st, out):
    """Draws ``out`` (N, R) of theta_n at the budgets ``ns``, one per resample r: the
    mixture's curve at a failure share drawn from Beta(a, b) (generator ``st``), with
    the successes' curve drawn from its bootstrap-t distribution, ``est[k - 1] -
    sd[k - 1] piv[k - 1, r]`` at every k.
    """
    nmax = est.shape[0]
    g = np.empty(nmax)
    for r in range(out.shape[1]):
        pi = rng_beta(st, a, b)
        for k in range(nmax):
            g[k] = est[k] - sd[k] * piv[k, r] if sd[k] > 0.0 else est[k]
        first, count, values, start = binomial_bands(ns, 1.0 - pi)
        for j in range(ns.shape[0]):
            total = math.exp(ns[j] * math.log(pi)) * floor
            for t in range(count[j]):
                total += values[start[j] + t] * g[first[j] + t - 1]
            out[j, r] = total


@njit(**_OPTS)
def bounded_setup(st, xs, tabs, lo, hi):
    """The fit of :data:`BOUNDED` to the ascending sample ``xs``.

    Returns ``(m, target, gtabs, code, seed, params, ref)``: the scores at
    the floor ``lo``, the sample the tail is fitted to (the successes when
    m > 0, else ``xs``), its tables (V at every budget up to the largest of
    ``tabs`` for the successes, else ``tabs``), the tail method it is on
    that sample (:func:`.resampling.effective`: the lattice tail, or the
    tail; -1 where no tail can be fitted), the seed of its streams (that
    method's own from the generator ``st``, so that without a floor, a top
    or a band to cut the method draws what ``gpd-tail-lattice`` draws), and
    its fit.
    """
    m = floor_count(xs, lo) if lo > -np.inf else 0
    target = xs[m:]
    gtabs = v_tables(target.shape[0], tabs.ns.max()) if m > 0 else tabs
    code, step, origin = effective(GPD_LATTICE, target)
    seed = method_seed(st, code)
    N = gtabs.ns.shape[0]
    if target.shape[0] < 2 * K_MIN or (code == GPD_TAIL and tail_tied(target)):
        return m, target, gtabs, -1, seed, np.empty(0), np.zeros((2, N))
    params, ref = setup(code, target, gtabs, seed, step, origin, hi)
    return m, target, gtabs, code, seed, params, ref


@njit(**_OPTS)
def bounded_finish(xs, tabs, m, target, gtabs, code, params, ref, piv, seed, level, lo, hi,
                   band_lo, band_hi, out):
    """The intervals ``out`` (K, 2) of :data:`BOUNDED` for every column of ``tabs``, from
    the pivots ``piv`` of its tail method (reordered in place).

    ``band_lo``, ``band_hi`` (B + 1,) are the LD band's CDF bounds at
    ``level`` (empty without known bounds: no cut).
    """
    K = tabs.wt.shape[1]
    nmax = tabs.ns.max()
    cut = band_lo.shape[0] == xs.shape[0] + 1
    biv = np.empty((1, nmax, 2))
    if cut:
        band_intervals(xs, lo, hi, band_lo.reshape((1, -1)), band_hi.reshape((1, -1)), biv)
    if code < 0:  # no tail: the band's interval, or none
        for c in range(K):
            n = tabs.ns[tabs.col[c]]
            out[c, 0] = biv[0, n - 1, 0] if cut else np.nan
            out[c, 1] = biv[0, n - 1, 1] if cut else np.nan
        return
    if m == 0:
        finish(code, target, gtabs, params, ref, piv, level, lo, hi, out)
    else:
        est = np.empty(nmax)
        estimates(gtabs, target, est)
        N, s = tabs.ns.shape[0], target.shape[0]
        draws = np.empty((N, piv.shape[1]))
        ps = np.empty(1)
        q = np.empty(1)
        ranks = np.empty(2, dtype=np.int64)
        qs = np.empty((N, 2))
        st = rng_init(seed, (BOUNDED << 40) + (1 << 38))
        for side in range(2):  # the share's laws whose quantiles are Clopper-Pearson's ends
            mixture_draws(lo, m + 1 - side, s + side, est, ref[1], piv, tabs.ns, st, draws)
            ps[0] = 0.5 * (1.0 - level) if side == 0 else 0.5 * (1.0 + level)
            for j in range(N):
                quantiles_by_selection(draws[j], ps, q, ranks)
                qs[j, side] = q[0]
        for c in range(K):
            out[c, 0] = qs[tabs.col[c], 0]
            out[c, 1] = qs[tabs.col[c], 1]
    for c in range(K):
        n = tabs.ns[tabs.col[c]]
        a, b = out[c, 0], out[c, 1]
        if cut:
            a = max(a, biv[0, n - 1, 0])
            b = min(b, biv[0, n - 1, 1])
        out[c, 0] = min(max(a, lo), hi)
        out[c, 1] = min(max(b, out[c, 0]), hi)


@njit(**_OPTS)
def bounded_intervals(st, xs, tabs, resamples, level, lo, hi, band_lo, band_hi, out):
    """Intervals ``out`` (K, 2) of :data:`BOUNDED` for one ascending sample, its streams
    derived from the generator ``st`` (left as it was)."""
    m, target, gtabs, code, seed, params, ref = bounded_setup(st, xs, tabs, lo, hi)
    piv = np.empty((gtabs.wt.shape[1], total_resamples(max(code, 0), gtabs, resamples)))
    if code >= 0:
        pivots(code, seed, target, gtabs, params, ref, 0, blocks(code, gtabs, resamples), piv)
    bounded_finish(xs, tabs, m, target, gtabs, code, params, ref, piv, seed, level, lo, hi,
                   band_lo, band_hi, out)


@njit(**_OPTS)
def coverage_bounded_chunks(span, B, sampler, tabs, thetas, resamples, level, lo, hi, band_lo,
                            band_hi):
    """Coverage tallies (nchunks, 1, E, N + 1, NSLOTS) of :data:`BOUNDED`, on the samples
    every kind sees: replicate i from stream ``(seed, stream0 + i)``
    (:func:`.resampling.coverage_resampling_chunks`)."""
    K = tabs.wt.shape[1]
    N = thetas.shape[0]
    E = K // N
    out = np.zeros((span.nchunks, 1, E, N + 1, NSLOTS))
    xs = np.empty(B)
    ivs = np.empty((1, K, 2))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            bounded_intervals(st, xs, tabs, resamples, level, lo, hi, band_lo, band_hi, ivs[0])
            tally(out[c], ivs, thetas, E, N)
    return out
