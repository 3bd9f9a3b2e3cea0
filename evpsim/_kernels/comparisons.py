"""Monte Carlo kernels of the false-conclusion and model-comparison batteries.

* :func:`sign_counts_chunks`: per estimate row, how often ``est < theta`` and
  ``est == theta`` (within a tolerance), Tang et al. (2020)'s false
  conclusion probing;
* :func:`pair_counts_chunks`: paired searches of two models A and B, how
  often ``est_A > est_B`` and ``est_A == est_B``, optionally with power sums
  of each model's estimates (Tang et al. Figs. 1-2, Dodge et al. 2021 §4);
* :func:`running_max_chunks`: power sums of the running maximum of i.i.d.
  draws, a Monte Carlo truth ``E[max of n draws]`` for every n at once.

Besides the truths' samplers (:mod:`.sampling`), samples may come from a
finite pool of scores, ascending in ``table_x``: without replacement
(``kind == KIND_POOL``, a partial Fisher-Yates shuffle of the indices) or
with replacement (``kind == KIND_RESAMPLE``, uniform indices: the law of the
empirical truth's sampler, without its binary search).

Chunk ``j`` of a run draws from stream ``stream0 + j``; callers give
unrelated experiments of one seed disjoint stream ranges (see
:data:`STREAM_TRUTH`). Estimates are L-statistics (``func is None``, the
weights ``wts`` transposed to (B, R)) or a general jitted ``func(xs, n)``
evaluated at ``ns[k]`` (numba prunes the unused branch at compile time).
"""

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from .moments import _accumulate_powers
from .options import OPTS as _OPTS
from .rng import rng_below, rng_init, rng_uniform
from .sampling import KIND_TRUNCNORM, _discrete_index, draw_into, draw_sorted, sort_inplace

KIND_POOL = 2
KIND_RESAMPLE = 3
STREAM_TRUTH = 1 << 62  # first stream of Monte Carlo truths (replicates use B << 32)


@njit(inline="always", **_OPTS)
def _index(st, kind, i, N, table_c, perm):
    """Table index of draw ``i`` of a sample (not for the truncated normal)."""
    if kind == KIND_POOL:  # partial Fisher-Yates shuffle of the indices
        j = i + rng_below(st, N - i)
        k = perm[j]
        perm[j] = perm[i]
        perm[i] = k
        return k
    if kind == KIND_RESAMPLE:
        return rng_below(st, N)
    return _discrete_index(rng_uniform(st), table_c)


@njit(**_OPTS)
def workspace(kind, table_x, B):
    """Per-chunk work arrays of :func:`draw_table_sorted`.

    ``perm`` (the pool's index permutation), ``counts`` and ``bits`` (a
    bitmap of the drawn table indices). The bitmap is used when scanning its
    words costs less than sorting: ``4 * words <= B**2``; otherwise
    ``bits`` is empty and samples are sorted.
    """
    N = table_x.shape[0]
    words = (N + 63) // 64
    use_bits = kind != KIND_TRUNCNORM and 4 * words <= B * B
    return (np.arange(N), np.zeros(N if use_bits else 0, dtype=np.int64),
            np.zeros(words if use_bits else 0, dtype=np.uint64))


@njit(**_OPTS)
def draw_table_sorted(st, xs, kind, params, table_x, table_c, perm, counts, bits):
    """Ascending sample into ``xs`` from any sampler kind.

    Tables (discrete truths, pools) are sampled by index. With a bitmap the
    sample comes out sorted by walking the set bits of the drawn indices
    (``table_x`` is ascending), O(B + N / 64) instead of a sort; discrete
    truths then give exactly the samples of :func:`.sampling.draw_sorted`.
    """
    B = xs.shape[0]
    N = table_x.shape[0]
    if kind == KIND_TRUNCNORM:
        draw_sorted(st, xs, kind, params, table_x, table_c)
    elif bits.shape[0] == 0:
        for i in range(B):
            xs[i] = table_x[_index(st, kind, i, N, table_c, perm)]
        sort_inplace(xs)
    else:
        for i in range(B):
            k = _index(st, kind, i, N, table_c, perm)
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
                    xs[pos] = v
                    pos += 1
                counts[k] = 0
            bits[w] = 0


@njit(**_OPTS)
def _estimates(xs, wts, func, ns, est):
    """``est[k]``: row k's estimate from the ascending sample ``xs``."""
    if func is None:
        # est = ws @ xs with the row index innermost (vectorises, no reassociation)
        R = est.shape[0]
        for k in range(R):
            est[k] = 0.0
        for i in range(xs.shape[0]):
            xi = xs[i]
            for k in range(R):
                est[k] += wts[i, k] * xi
    else:
        for k in range(est.shape[0]):
            est[k] = func(xs, ns[k])


@njit(parallel=True, **_OPTS)
def sign_counts_chunks(seed, stream0, chunk0, nchunks, chunk_size, replicates, B,
                       kind, params, table_x, table_c, wts, func, ns, thetas, tol):
    """Counts of ``est < theta`` and ``|est - theta| <= tol``, one row per chunk.

    Returns
    -------
    (nchunks, R, 2) int64 array
        ``[below, tie]`` for each of the ``R = len(thetas)`` rows.
    """
    R = thetas.shape[0]
    out = np.zeros((nchunks, R, 2), dtype=np.int64)
    for c in prange(nchunks):
        j = chunk0 + c
        reps = min(chunk_size, replicates - j * chunk_size)
        st = rng_init(seed, stream0 + j)
        # per-chunk copies: threads that share no array never contend for a
        # reference count
        pr, tx, tc, w, rns = params.copy(), table_x.copy(), table_c.copy(), wts.copy(), ns.copy()
        perm, cnt, bits = workspace(kind, tx, B)
        xs = np.empty(B)
        est = np.empty(R)
        acc = np.zeros((R, 2), dtype=np.int64)
        for _ in range(reps):
            draw_table_sorted(st, xs, kind, pr, tx, tc, perm, cnt, bits)
            _estimates(xs, w, func, rns, est)
            for k in range(R):
                d = est[k] - thetas[k]
                if abs(d) <= tol:
                    acc[k, 1] += 1
                elif d < 0.0:
                    acc[k, 0] += 1
        out[c] = acc
    return out


@njit(parallel=True, **_OPTS)
def pair_counts_chunks(seed, stream0, chunk0, nchunks, chunk_size, replicates, B,
                       kind_a, params_a, tx_a, tc_a, kind_b, params_b, tx_b, tc_b,
                       wts, func, ns, tol, centers_a, centers_b, moments):
    """Paired searches of models A and B (A's sample, then B's, per replicate).

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
    out = np.zeros((nchunks, R, width))
    for c in prange(nchunks):
        j = chunk0 + c
        reps = min(chunk_size, replicates - j * chunk_size)
        st = rng_init(seed, stream0 + j)
        # per-chunk copies, as in sign_counts_chunks
        pra, txa, tca = params_a.copy(), tx_a.copy(), tc_a.copy()
        prb, txb, tcb = params_b.copy(), tx_b.copy(), tc_b.copy()
        w, rns = wts.copy(), ns.copy()
        perm_a, cnt_a, bits_a = workspace(kind_a, txa, B)
        perm_b, cnt_b, bits_b = workspace(kind_b, txb, B)
        xa = np.empty(B)
        xb = np.empty(B)
        ea = np.empty(R)
        eb = np.empty(R)
        counts = np.zeros((R, 2))
        pa = np.zeros((R, 4))
        pb = np.zeros((R, 4))
        for _ in range(reps):
            draw_table_sorted(st, xa, kind_a, pra, txa, tca, perm_a, cnt_a, bits_a)
            draw_table_sorted(st, xb, kind_b, prb, txb, tcb, perm_b, cnt_b, bits_b)
            _estimates(xa, w, func, rns, ea)
            _estimates(xb, w, func, rns, eb)
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
        out[c, :, 0:2] = counts
        if moments:
            out[c, :, 2:6] = pa
            out[c, :, 6:10] = pb
    return out


@njit(parallel=True, **_OPTS)
def running_max_chunks(seed, stream0, chunk0, nchunks, chunk_size, replicates, B,
                       kind, params, table_x, table_c, centers):
    """Power sums of ``max(x_1..x_n) - centers[n-1]`` for n = 1..B.

    Each replicate is one sequence of B i.i.d. draws from the truth's
    sampler; its running maximum is a draw of the maximum of n for every n.

    Returns
    -------
    (nchunks, B, 4) float64 array
    """
    out = np.zeros((nchunks, B, 4))
    for c in prange(nchunks):
        j = chunk0 + c
        reps = min(chunk_size, replicates - j * chunk_size)
        st = rng_init(seed, stream0 + j)
        xs = np.empty(B)
        acc = np.zeros((B, 4))
        for _ in range(reps):
            draw_into(st, xs, kind, params, table_x, table_c)
            m = -np.inf
            for n in range(B):
                if xs[n] > m:
                    m = xs[n]
                _accumulate_powers(acc, n, m - centers[n])
        out[c] = acc
    return out
