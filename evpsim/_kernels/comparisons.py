"""Monte Carlo kernels of the false-conclusion and model-comparison batteries.

* :func:`sign_counts_chunks`: per estimate row, how often ``est < theta`` and
  ``est == theta`` (within a tolerance), Tang et al. (2020)'s false
  conclusion probing;
* :func:`pair_counts_chunks`: paired searches of two models A and B, how
  often ``est_A > est_B`` and ``est_A == est_B``, optionally with power sums
  of each model's estimates (Tang et al. Figs. 1-2, Dodge et al. 2021 §4);
* :func:`running_max_chunks`: power sums of the running maximum of i.i.d.
  draws, a Monte Carlo truth ``E[max of n draws]`` for every n at once.

Samples come from any :class:`.sampling.Sampler`, pools of real scores
included, in blocks of :data:`BLOCK`, one loop per sampler kind, sorted by a
bitmap of their table indices or by :func:`.sampling.sort_sample`.

Chunk ``j`` of a run draws from stream ``span.stream0 + j``
(:mod:`evpsim.engine.streams` gives unrelated experiments of one seed disjoint
stream ranges). Estimates are L-statistics (``func is None``, the weights
``wts`` transposed to (B, R)) or a general jitted ``func(xs, n)`` evaluated
at ``ns[k]`` (numba prunes the unused branch at compile time).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .moments import _accumulate_powers
from .options import OPTS as _OPTS
from .rng import below, chunk_bounds, chunk_stream, uniform_state
from .sampling import (KIND_POOL, KIND_RESAMPLE, KIND_TRUNCNORM, Sampler, _discrete_index,
                       draw_into, sort_sample, sort_workspace)

BLOCK = 64  # searches drawn at a time


@njit(**_OPTS)
def workspace(sampler, B):
    """Per-chunk work arrays of :func:`draw_block`.

    ``X`` (BLOCK, B) for the samples and ``idx`` for their table indices;
    ``perm`` (the pool's index permutation); ``counts`` and ``bits`` (a
    bitmap of a sample's table indices), used when scanning the bitmap's
    words costs less than sorting, ``4 * words <= B**2``, and empty
    otherwise; ``pairs`` and ``buf`` of :func:`.sampling.sort_sample`.
    """
    N = sampler.table_x.shape[0]
    words = (N + 63) // 64
    use_bits = sampler.kind != KIND_TRUNCNORM and 4 * words <= B * B
    pairs, buf = sort_workspace(B)
    return (np.empty((BLOCK, B)), np.empty((BLOCK, B), dtype=np.int64), np.arange(N),
            np.zeros(N if use_bits else 0, dtype=np.int64),
            np.zeros(words if use_bits else 0, dtype=np.uint64), pairs, buf)


@njit(**_OPTS)
def _draw_indices(st, idx, m, kind, params, table_c, perm, N):
    """Table indices of ``m`` samples into the rows of ``idx``.

    One loop per kind, and the generator on the state copied into scalars
    (see :func:`.rng.next_state`).
    """
    B = idx.shape[1]
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
    if kind == KIND_POOL:  # partial Fisher-Yates shuffle of the indices
        for r in range(m):
            for i in range(B):
                u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                j = i + below(u, N - i)
                k = perm[j]
                perm[j] = perm[i]
                perm[i] = k
                idx[r, i] = k
    elif kind == KIND_RESAMPLE:
        for r in range(m):
            for i in range(B):
                u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                idx[r, i] = below(u, N)
    else:
        for r in range(m):
            for i in range(B):
                u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                idx[r, i] = _discrete_index(u, params, table_c)
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3


@njit(**_OPTS)
def draw_block(st, m, sampler, ws):
    """``m`` ascending samples into the first rows of ``ws[0]``.

    Tables (discrete truths, pools) are sampled by index. With a bitmap a
    sample comes out sorted by walking the set bits of its indices
    (``table_x`` is ascending), O(B + N / 64) instead of a sort. Discrete
    truths give exactly the samples of :func:`.sampling.draw_sorted`.
    """
    X, idx, perm, counts, bits, pairs, buf = ws
    kind, params, table_x, table_c = sampler
    if kind == KIND_TRUNCNORM:
        for r in range(m):
            xs = X[r]
            draw_into(st, xs, sampler)
            sort_sample(xs, buf, pairs)
        return
    _draw_indices(st, idx, m, kind, params, table_c, perm, table_x.shape[0])
    B = X.shape[1]
    if bits.shape[0] == 0:
        for r in range(m):
            xs = X[r]
            for i in range(B):
                xs[i] = table_x[idx[r, i]]
            sort_sample(xs, buf, pairs)
        return
    for r in range(m):
        for i in range(B):
            k = idx[r, i]
            counts[k] += 1
            bits[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
        pos = 0
        for w in range(bits.shape[0]):
            word = bits[w]
            while word:
                k = w * 64 + trailing_zeros(word)
                word &= word - np.uint64(1)
                v = table_x[k]
                for _ in range(counts[k]):
                    X[r, pos] = v
                    pos += 1
                counts[k] = 0
            bits[w] = 0


@njit(inline="always", **_OPTS)
def _copy(sampler):
    """A sampler whose arrays belong to one thread."""
    return Sampler(sampler.kind, sampler.params.copy(), sampler.table_x.copy(),
                   sampler.table_c.copy())


@njit(inline="always", **_OPTS)
def _estimates(X, r, wts, func, ns, est):
    """``est[k]``: row k's estimate from the ascending sample ``X[r]``.

    Inlined, and L-statistics read ``X`` in place: a call taking arrays in
    the per-search loop would cost reference counting on every search.
    """
    if func is None:
        # est = ws @ xs with the row index innermost (vectorises, no reassociation)
        R = est.shape[0]
        for k in range(R):
            est[k] = 0.0
        for i in range(X.shape[1]):
            xi = X[r, i]
            for k in range(R):
                est[k] += wts[i, k] * xi
    else:
        xs = X[r]
        for k in range(est.shape[0]):
            est[k] = func(xs, ns[k])


@njit(**_OPTS)
def sign_counts_chunks(span, B, sampler, wts, func, ns, thetas, tol):
    """Counts of ``est < theta`` and ``|est - theta| <= tol``, one row per chunk.

    ``thetas`` is ``(S, R)``: each estimate row is compared with ``S``
    truths (the exact curve and a Monte Carlo one, say) in the same pass.

    Returns
    -------
    (nchunks, S, R, 2) int64 array
        ``[below, tie]`` against each truth, for each of the ``R`` estimate
        rows.
    """
    S, R = thetas.shape
    out = np.zeros((span.nchunks, S, R, 2), dtype=np.int64)
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        # per-chunk copies: threads that share no array never contend for a
        # reference count
        smp = _copy(sampler)
        w, rns = wts.copy(), ns.copy()
        ws = workspace(smp, B)
        X = ws[0]
        est = np.empty(R)
        for b0 in range(0, reps, BLOCK):
            m = min(BLOCK, reps - b0)
            draw_block(st, m, smp, ws)
            for r in range(m):
                _estimates(X, r, w, func, rns, est)
                for s in range(S):
                    acc = out[c, s]
                    for k in range(R):
                        d = est[k] - thetas[s, k]
                        if abs(d) <= tol:
                            acc[k, 1] += 1
                        elif d < 0.0:
                            acc[k, 0] += 1
    return out


@njit(**_OPTS)
def pair_counts_chunks(span, B, sampler_a, sampler_b, wts, func, ns, tol, centers_a, centers_b,
                       moments):
    """Paired searches of models A and B (blocks of A's samples, then B's).

    Returns
    -------
    (nchunks, R, 2) or (nchunks, R, 10) float64 array
        ``[#(est_A - est_B > tol), #(|est_A - est_B| <= tol)]``: integer
        counts, exact in float64 below 2**53. With ``moments``, followed by
        the power sums ``sum d^p, p = 1..4`` of ``d = est_A - centers_a``
        and then of ``est_B - centers_b``.
    """
    R = ns.shape[0]
    width = 10 if moments else 2
    out = np.zeros((span.nchunks, R, width))
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        # per-chunk copies, as in sign_counts_chunks
        sa, sb = _copy(sampler_a), _copy(sampler_b)
        w, rns = wts.copy(), ns.copy()
        ws_a = workspace(sa, B)
        ws_b = workspace(sb, B)
        Xa, Xb = ws_a[0], ws_b[0]
        ea = np.empty(R)
        eb = np.empty(R)
        counts = np.zeros((R, 2))
        pa = np.zeros((R, 4))
        pb = np.zeros((R, 4))
        for b0 in range(0, reps, BLOCK):
            m = min(BLOCK, reps - b0)
            draw_block(st, m, sa, ws_a)
            draw_block(st, m, sb, ws_b)
            for r in range(m):
                _estimates(Xa, r, w, func, rns, ea)
                _estimates(Xb, r, w, func, rns, eb)
                for k in range(R):
                    d = ea[k] - eb[k]
                    if abs(d) <= tol:
                        counts[k, 1] += 1.0
                    elif d > 0.0:
                        counts[k, 0] += 1.0
                if moments:
                    for k in range(R):
                        _accumulate_powers(pa, k, ea[k] - centers_a[k])
                        _accumulate_powers(pb, k, eb[k] - centers_b[k])
        for k in range(R):
            for j in range(2):
                out[c, k, j] = counts[k, j]
            if moments:
                for j in range(4):
                    out[c, k, 2 + j] = pa[k, j]
                    out[c, k, 6 + j] = pb[k, j]
    return out


@njit(**_OPTS)
def running_max_chunks(span, B, sampler, centers):
    """Power sums of ``max(x_1..x_n) - centers[n-1]`` for n = 1..B.

    Each replicate is one sequence of B i.i.d. draws from the truth's
    sampler; its running maximum is a draw of the maximum of n for every n.

    Returns
    -------
    (nchunks, B, 4) float64 array
    """
    out = np.zeros((span.nchunks, B, 4))
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        xs = np.empty(B)
        acc = out[c]
        for _ in range(reps):
            draw_into(st, xs, sampler)
            m = -np.inf
            for n in range(B):
                if xs[n] > m:
                    m = xs[n]
                _accumulate_powers(acc, n, m - centers[n])
    return out
