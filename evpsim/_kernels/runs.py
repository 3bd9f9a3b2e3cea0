"""Simulated runs of a search, trial by trial, and their best-so-far curves.

A *run* is one search with its own seed; its best-so-far curve at budget n
is the best score among its first n trials. Two searches are simulated:

* :data:`RANDOM`: random search, trials drawn i.i.d. from a truth's
  :class:`~.sampling.Sampler` (as every battery draws searches);
* :data:`LOCAL`: a (1+1) local search with restarts over a fixed pool of
  ``G x G`` configurations on a torus, ``pool[y * G + x]`` the true score
  of configuration (x, y). The first trial is a uniformly drawn
  configuration; each later one is, with probability ``restart``, another
  uniformly drawn configuration and otherwise a neighbour of the
  incumbent (a step of at most ``radius`` in each coordinate, never zero
  in both, wrapping around), every neighbour equally likely. (The grid
  side must be below ``2**20``.) A trial
  observes its configuration's score plus normal noise of standard
  deviation ``noise`` (the training noise); the incumbent is the
  configuration of the best observation so far.

``params`` holds ``(G, restart, radius, noise)`` (unused by random
search). A run is drawn from the generator state given, so a chunk's runs
depend only on its stream.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import below, chunk_bounds, chunk_stream, normal_state, uniform_state
from .sampling import draw_into, insertion_sort

RANDOM, LOCAL = 0, 1


@njit(**_OPTS)
def _uniform_cell(v, G):
    """The configuration (x, y) of a uniform double ``v``: x from its leading digits in
    base G, y from the next (53 bits hold both for any grid of up to 2**20 a side)."""
    a = v * G
    x = min(int(a), G - 1)
    return x, min(int((a - x) * G), G - 1)


@njit(**_OPTS)
def _local_search(st, out, pool, params):
    """One run of the local search: ``out[t]`` the best observation of trials 0..t.

    The incumbent is kept as its coordinates and the neighbours as a table
    of steps, so that a trial costs no integer division (six of them took
    three quarters of its time).
    """
    G = int(params[0])
    restart, radius, noise = params[1], int(params[2]), params[3]
    side = 2 * radius + 1
    steps = side * side - 1
    dxs, dys = np.empty(steps, dtype=np.int64), np.empty(steps, dtype=np.int64)
    j = 0
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            if dx != 0 or dy != 0:
                dxs[j], dys[j] = dx, dy
                j += 1
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
    u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
    ix, iy = _uniform_cell(u, G)
    z, s0, s1, s2, s3 = normal_state(s0, s1, s2, s3)
    best = pool[iy * G + ix] + noise * z
    out[0] = best
    for t in range(1, out.shape[0]):
        u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        v, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        if u < restart:
            x, y = _uniform_cell(v, G)
        else:
            j = below(v, steps)
            x, y = ix + dxs[j], iy + dys[j]
            x += G if x < 0 else (-G if x >= G else 0)
            y += G if y < 0 else (-G if y >= G else 0)
        z, s0, s1, s2, s3 = normal_state(s0, s1, s2, s3)
        obs = pool[y * G + x] + noise * z
        if obs > best:
            best = obs
            ix, iy = x, y
        out[t] = best
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3


@njit(**_OPTS)
def run_into(st, out, kind, sampler, pool, params):
    """One run's best-so-far curve into ``out`` (its length is the run's trials)."""
    if kind == RANDOM:
        draw_into(st, out, sampler)
        for t in range(1, out.shape[0]):
            out[t] = max(out[t], out[t - 1])
    else:
        _local_search(st, out, pool, params)


@njit(**_OPTS)
def runs_at(st, K, B, kind, sampler, pool, params, ns, buf, values):
    """K runs of B trials: ``values[r, j]`` run r's best-so-far at budget ``ns[j]``."""
    for r in range(K):
        run_into(st, buf, kind, sampler, pool, params)
        for j in range(ns.shape[0]):
            values[r, j] = buf[ns[j] - 1]


@njit(**_OPTS)
def _bin(v, lo, hi, nbins):
    """Histogram slot of ``v`` among ``nbins`` equal bins from ``lo`` to ``hi``: 0 below
    ``lo``, ``nbins + 1`` above ``hi``, the last bin holding ``hi`` itself (a discrete
    truth's top atom)."""
    if v < lo:
        return 0
    if v > hi:
        return nbins + 1
    return min(int(math.floor((v - lo) / ((hi - lo) / nbins))), nbins - 1) + 1


@njit(**_OPTS)
def truth_chunks(span, B, kind, sampler, pool, params, ns, centers, edges, nbins):
    """Per chunk, single runs' best-so-far curves summarised at every budget.

    Row j of a chunk's result holds, for budget ``ns[j]``: the sums of
    ``d`` and ``d**2`` with ``d = value - centers[j]``, then the counts of a
    histogram of ``nbins`` equal bins from ``edges[j, 0]`` to ``edges[j, 1]``
    (both included) with a slot below and one above (``nbins + 2`` counts).

    Returns
    -------
    (chunks, len(ns), nbins + 4) float64 array
    """
    J = ns.shape[0]
    out = np.zeros((span.nchunks, J, nbins + 4))
    buf = np.empty(B)
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        for _ in range(reps):
            run_into(st, buf, kind, sampler, pool, params)
            for j in range(J):
                v = buf[ns[j] - 1]
                d = v - centers[j]
                out[c, j, 0] += d
                out[c, j, 1] += d * d
                out[c, j, 2 + _bin(v, edges[j, 0], edges[j, 1], nbins)] += 1.0
    return out


@njit(**_OPTS)
def sorted_median(v, k):
    """Median of ``v[:k]``, sorted ascending."""
    return 0.5 * (v[(k - 1) // 2] + v[k // 2])


@njit(**_OPTS)
def estimate_chunks(span, B, kind, sampler, pool, params, ns, ks):
    """Per replicate, the mean and the median over the first k of ``max(ks)`` runs.

    Returns
    -------
    (chunks, chunk_size, 2, len(ks), len(ns)) float64 array
        ``[c, i, 0]`` the means and ``[c, i, 1]`` the medians of replicate
        i of chunk c; NaN past the last replicate.
    """
    J, nk = ns.shape[0], ks.shape[0]
    K = 0
    for q in range(nk):
        K = max(K, ks[q])
    out = np.full((span.nchunks, span.chunk_size, 2, nk, J), np.nan)
    values = np.empty((K, J))
    buf = np.empty(B)
    col = np.empty(K)
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        for i in range(reps):
            runs_at(st, K, B, kind, sampler, pool, params, ns, buf, values)
            for q in range(nk):
                k = ks[q]
                for j in range(J):
                    s = 0.0
                    for r in range(k):
                        col[r] = values[r, j]
                        s += values[r, j]
                    insertion_sort(col, k)
                    out[c, i, 0, q, j] = s / k
                    out[c, i, 1, q, j] = sorted_median(col, k)
    return out
