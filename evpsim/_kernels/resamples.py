"""The bootstrap resamples of a sorted sample, and an L-statistic's estimates on them.

A bootstrap resample of a sorted sample ``x_(1) <= ... <= x_(B)`` is given
by multinomial counts ``c_1..c_B`` (summing to B): its sorted values are
``x_(i)`` repeated ``c_i`` times, so no resample is ever sorted. An
L-statistic with weights ``w[n, r]`` of that resample is

    sum_i x_(i) (P_n(cum_i) - P_n(cum_{i-1})),   cum_i = c_1 + ... + c_i,

with ``P_n(k) = sum_{r <= k} w[n, r]`` the cumulative weights. Summed by
parts over the points drawn at least once (about 63% of them),

    est_n = x_last P_n(B) - sum_{drawn i but the last} P_n(cum_i) (x_next(i) - x_(i)),

one contiguous row of the table ``P[cum, :]`` per drawn point gives every
budget of every estimator at once. The table is read a chunk of columns
at a time, small enough to stay in cache while a block of resamples
passes over it (:func:`block_estimates`). Once the rows left of a chunk
are all tiny (as ``P_n(k) = (k/B)^n`` is for V at large n and small k)
and no estimate is near zero, the terms left cannot change an estimate's
bits and are skipped (see :func:`tiny_bound`), which also keeps most
subnormal numbers out of the sums.

The draws (:func:`multinomial_counts`) take B uniform indices from the
stream's generator; :func:`resample_indices` gives the same draws as
indices, for estimators that run on each resample. The sample's own
estimates and its jackknife (leave-one-out) estimates are here too.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .options import OPTS as _OPTS
from .rng import next_state, rng_init

BLOCK = 64  # resamples per block of estimates
_GROUP = 8  # terms per pass over a resample's estimates (four pairs)
# most columns and bytes per chunk of the table (half a 2 MB L2 cache)
_CHUNK, _CHUNK_BYTES = 112, 1 << 20
_PASS = 16  # the cost of a pass over a chunk's estimates, in columns
_TINY = 2.0 ** -100  # cumulative weights this small may be skipped (tiny_bound)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(**_OPTS)
def _count_draws(s0, s1, s2, s3, counts):
    """Multinomial counts of B uniform indices into ``counts`` (zeroed first),
    from the generator state ``s0..s3`` (see :func:`.rng.next_state`);
    returns the state."""
    B = counts.shape[0]
    ub = np.uint64(B)
    for i in range(B):
        counts[i] = 0
    for _ in range(B >> 1):
        x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
        counts[((x >> _U32) * ub) >> _U32] += 1
        counts[((x & _MASK32) * ub) >> _U32] += 1
    if B & 1:
        x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
        counts[((x >> _U32) * ub) >> _U32] += 1
    return s0, s1, s2, s3


@njit(**_OPTS)
def multinomial_counts(st, counts):
    """Multinomial(B; 1/B, ..., 1/B) counts from B uniform indices.

    Each 64-bit draw gives two indices by Lemire's multiply-shift on its
    32-bit halves (non-uniformity below B / 2**32).
    """
    st[0], st[1], st[2], st[3] = _count_draws(st[0], st[1], st[2], st[3], counts)


@njit(**_OPTS)
def resample_indices(seed, stream, out):
    """The points drawn by the first ``R`` resamples of stream ``(seed, stream)``.

    Row r of ``out`` (R, B) receives the B indices (into the ascending
    sample) that resample r draws, in the order they are drawn: the draws
    of :func:`multinomial_counts` whose counts the bootstrap kernels use,
    so an estimator run on ``xs[out[r]]`` sees exactly the multiset of
    their resample r.
    """
    R, B = out.shape
    ub = np.uint64(B)
    s = rng_init(seed, stream)
    s0, s1, s2, s3 = s[0], s[1], s[2], s[3]
    for r in range(R):
        for j in range(B >> 1):
            x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
            out[r, 2 * j] = ((x >> _U32) * ub) >> _U32
            out[r, 2 * j + 1] = ((x & _MASK32) * ub) >> _U32
        if B & 1:
            x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
            out[r, B - 1] = ((x >> _U32) * ub) >> _U32


@njit(**_OPTS)
def compact_counts(counts, drawn, cums):
    """Indices ``drawn[:m]`` of the points drawn at least once and their
    cumulative counts ``cums[:m]``; returns m."""
    # without a branch: a zero count's entry is overwritten by the next one
    m = 0
    cum = 0
    for i in range(counts.shape[0]):
        cum += counts[i]
        drawn[m] = i
        cums[m] = cum
        m += counts[i] > 0
    return m


@njit(**_OPTS)
def _pad_terms(gaps, rows, T):
    """Dummy terms (gap 0, row 0) after the ``T`` terms, up to a multiple of
    ``_GROUP``; returns that multiple. A dummy pair subtracts exactly zero."""
    Tp = (T + _GROUP - 1) // _GROUP * _GROUP
    for j in range(T, Tp):
        gaps[j] = 0.0
        rows[j] = 0
    return Tp


@njit(**_OPTS)
def counts_terms(xs, counts, drawn, cums, gaps, rows):
    """The terms of the resample with multiplicities ``counts``, from the top.

    Term j (j = 0 for the top pair of drawn points) has the gap ``gaps[j] =
    x_next - x`` between consecutive drawn points and the row ``rows[j]``,
    the lower point's cumulative count (see the module docstring), padded
    by :func:`_pad_terms`. Returns ``(padded term count, top drawn point)``.
    ``drawn`` and ``cums`` (B,) are scratch.
    """
    m = compact_counts(counts, drawn, cums)
    for t in range(m - 1):
        j = m - 2 - t
        gaps[j] = xs[drawn[t + 1]] - xs[drawn[t]]
        rows[j] = cums[t]
    return _pad_terms(gaps, rows, m - 1), xs[drawn[m - 1]]


@njit(**_OPTS)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(**_OPTS)
def _draw_terms64(s0, s1, s2, s3, xs, counts, gaps, rows):
    """:func:`multinomial_counts` and :func:`counts_terms` in one, for B <= 64.

    The same draws and terms; the points drawn are the set bits of one
    word, visited in ascending order. ``counts`` must be zero on entry and
    is zero again on return. Returns ``(padded term count, top drawn point,
    s0, s1, s2, s3)``.
    """
    B = xs.shape[0]
    ub = np.uint64(B)
    one = np.uint64(1)
    mask = np.uint64(0)
    for _ in range(B >> 1):
        x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
        i = ((x >> _U32) * ub) >> _U32
        k = ((x & _MASK32) * ub) >> _U32
        counts[i] += 1
        counts[k] += 1
        mask |= (one << i) | (one << k)
    if B & 1:
        x, s0, s1, s2, s3 = next_state(s0, s1, s2, s3)
        i = ((x >> _U32) * ub) >> _U32
        counts[i] += 1
        mask |= one << i
    m = _popcount(mask)
    prev = trailing_zeros(mask)
    mask &= mask - one
    cum = counts[prev]
    counts[prev] = 0
    j = m - 2
    while mask:
        i = trailing_zeros(mask)
        mask &= mask - one
        gaps[j] = xs[i] - xs[prev]
        rows[j] = cum
        j -= 1
        cum += counts[i]
        counts[i] = 0
        prev = i
    return _pad_terms(gaps, rows, m - 1), xs[prev], s0, s1, s2, s3


@njit(**_OPTS)
def _all_at_least(out, w, bound):
    """Whether every ``|out[k]| >= bound``, k < w (False with a NaN)."""
    for k in range(w):
        if not abs(out[k]) >= bound:
            return False
    return True


@njit(**_OPTS)
def tile_estimates(tab, w, tops, gaps, rows, ts, nb, tile, cut, bound):
    """Estimates of ``nb`` resamples for every column of ``tab``.

    Parameters
    ----------
    tab : (B + 1, wp) array
        Cumulative weights of ``wp`` columns (any block of columns of the
        table: a column's estimates depend on that column alone); the
        first ``w`` are checked for skipping.
    tops, gaps, rows, ts : arrays
        Each resample's top drawn point, terms and padded term count
        (:func:`counts_terms`).
    tile : (nb * wp,) array
        Receives resample r's estimates at ``r * wp``.
    cut, bound : int, float
        Rows up to ``cut`` are tiny (:func:`tiny_rows`); once the terms
        left are all there and every estimate is at least ``bound``
        (:func:`tiny_bound`), they cannot change an estimate and are
        skipped. ``cut <= 0`` computes every term.

    Each estimate is ``top * P[B] - (term pair) - (term pair) - ...``, pairs
    from the top, each pair ``gap * P[row] + gap * P[row]`` rounded as if
    alone, so that a resample sharing the sample's top points and their
    cumulative counts groups them alike (with U's weights, zero below rank
    n, it then ties with the sample's estimate exactly). The loops run over
    the columns (SIMD), four pairs per pass, the first fused with the top.
    """
    wp = tab.shape[1]
    ptop = tab[tab.shape[0] - 1]
    for r in range(nb):
        out = tile[r * wp:(r + 1) * wp]
        top = tops[r]
        T = ts[r]
        d = gaps[r]
        rr = rows[r]
        if T == 0:
            for k in range(wp):
                out[k] = top * ptop[k]
            continue
        d1, d2, d3, d4, d5, d6, d7, d8 = d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
        p1, p2, p3, p4 = tab[rr[0]], tab[rr[1]], tab[rr[2]], tab[rr[3]]
        p5, p6, p7, p8 = tab[rr[4]], tab[rr[5]], tab[rr[6]], tab[rr[7]]
        for k in range(wp):
            v = top * ptop[k] - (d1 * p1[k] + d2 * p2[k])
            v = v - (d3 * p3[k] + d4 * p4[k])
            v = v - (d5 * p5[k] + d6 * p6[k])
            out[k] = v - (d7 * p7[k] + d8 * p8[k])
        j = _GROUP
        while j < T:
            if rr[j] <= cut and _all_at_least(out, w, bound):
                break
            d1, d2, d3, d4 = d[j], d[j + 1], d[j + 2], d[j + 3]
            d5, d6, d7, d8 = d[j + 4], d[j + 5], d[j + 6], d[j + 7]
            p1, p2, p3, p4 = tab[rr[j]], tab[rr[j + 1]], tab[rr[j + 2]], tab[rr[j + 3]]
            p5, p6, p7, p8 = tab[rr[j + 4]], tab[rr[j + 5]], tab[rr[j + 6]], tab[rr[j + 7]]
            for k in range(wp):
                v = out[k] - (d1 * p1[k] + d2 * p2[k])
                v = v - (d3 * p3[k] + d4 * p4[k])
                v = v - (d5 * p5[k] + d6 * p6[k])
                out[k] = v - (d7 * p7[k] + d8 * p8[k])
            j += _GROUP


@njit(**_OPTS)
def tiny_bound(xs):
    """The magnitude from which no term with cumulative weights at most
    ``_TINY`` in magnitude changes an estimate of sample ``xs``.

    Such a term (a pair of them, as subtracted) has gaps at most the
    sample's range r, so it is at most ``A = 4 r _TINY + 2**-1000`` even
    after rounding. With ``2**e <= |v| < 2**(e + 1)``, subtracting from v
    anything below ``2**(e - 54)``, half the smaller spacing of the floats
    around v, rounds back to v; and ``|v| >= A 2**55`` makes every such
    term at most ``|v| 2**-55 < 2**(e - 54)``. As v then never changes,
    every remaining term leaves it alone.
    """
    return (4.0 * _TINY * (xs[-1] - xs[0]) + 2.0 ** -1000) * 2.0 ** 55


@njit(**_OPTS)
def tiny_rows(tab, k0, k1):
    """The last row r with every entry of ``tab[:r + 1, k0:k1]`` at most
    ``_TINY`` in magnitude (-1 if there is none)."""
    for i in range(tab.shape[0]):
        for j in range(k0, k1):
            if not abs(tab[i, j]) <= _TINY:
                return i - 1
    return tab.shape[0] - 1


@njit(**_OPTS)
def resample_estimates(xs, counts, ptab, out, drawn, cums):
    """Every column of ``ptab`` evaluated on the resample given by ``counts``.

    Parameters
    ----------
    xs : (B,) array
        The ascending sample.
    counts : (B,) int array
        Multiplicity of each ``xs[i]`` in the resample (summing to B).
    ptab : (B + 1, K) array
        Cumulative weights, ``ptab[k, col] = sum_{r <= k} w[col, r]``.
    out : (K,) array
        Receives the K estimates.
    drawn, cums : (B,) int arrays
        Scratch: indices of the points drawn and the cumulative counts.
    """
    B = xs.shape[0]
    gaps = np.empty((1, B + _GROUP))
    rows = np.empty((1, B + _GROUP), dtype=np.int64)
    ts = np.empty(1, dtype=np.int64)
    tops = np.empty(1)
    ts[0], tops[0] = counts_terms(xs, counts, drawn, cums, gaps[0], rows[0])
    tile_estimates(ptab, ptab.shape[1], tops, gaps, rows, ts, 1, out, -1, 0.0)


@njit(**_OPTS)
def sample_estimates(xs, ptab, out):
    """The sample's own estimates: :func:`resample_estimates` with every
    count 1, so that a resample that equals the sample in the points an
    estimator weights (common for U at large n) ties with it exactly."""
    B = xs.shape[0]
    resample_estimates(xs, np.ones(B, dtype=np.int64), ptab, out,
                       np.empty(B, dtype=np.int64), np.empty(B, dtype=np.int64))


@njit(**_OPTS)
def jackknife_estimates(xs, jws, out):
    """Leave-one-out estimates ``out[k, i]`` (sample without ``xs[i]``).

    ``jws`` is (K, B - 1): the weights for samples of size B - 1. Leaving out
    ``xs[i]`` shifts the later points down one rank, so with the prefix
    sums ``sum_{r < i} jws[k, r] xs[r]`` and suffix sums
    ``sum_{r >= i} jws[k, r] xs[r + 1]`` every leave-one-out estimate costs
    O(1).
    """
    K, B = out.shape
    for k in range(K):
        suffix = 0.0
        for i in range(B - 1, -1, -1):
            out[k, i] = suffix
            if i > 0:
                suffix += jws[k, i - 1] * xs[i]
        prefix = 0.0
        for i in range(B):
            out[k, i] += prefix
            if i < B - 1:
                prefix += jws[k, i] * xs[i]


# --- a block of resamples' estimates, a chunk of columns at a time -----------------
#
# The resamples are drawn a block at a time and turned into their terms;
# then the table's columns are taken a chunk at a time, packed contiguously
# (each chunk padded to a multiple of 4 columns, whole SIMD vectors), so
# that a chunk stays in cache while every resample of the block reads its
# rows. The block's estimates of a chunk are transposed into ``boot``, so
# that each column's R estimates are contiguous for the selection.

@njit(**_OPTS)
def column_chunks(ptab):
    """First columns of the chunks of ``ptab`` (B + 1, K), and K.

    The columns of each estimator (B of them when K is a multiple of B)
    are split evenly into chunks of at most ``_CHUNK`` columns and
    ``_CHUNK_BYTES``; a table that fits in ``_CHUNK_BYTES`` stays whole
    unless its chunks' :func:`tiny_rows` make up for their extra passes.
    """
    B1, K = ptab.shape
    span = B1 - 1 if K % (B1 - 1) == 0 else K
    n = max((span + _CHUNK - 1) // _CHUNK, (8 * B1 * span + _CHUNK_BYTES - 1) // _CHUNK_BYTES)
    width = (span + n - 1) // n
    per = (span + width - 1) // width
    starts = np.empty(K // span * per + 1, dtype=np.int64)
    for e in range(K // span):
        for j in range(per):
            starts[e * per + j] = e * span + j * width
    starts[-1] = K
    if 8 * B1 * K > _CHUNK_BYTES or starts.shape[0] == 2:
        return starts
    split = 0
    for c in range(starts.shape[0] - 1):
        k0, k1 = starts[c], starts[c + 1]
        split += (B1 - 1 - tiny_rows(ptab, k0, k1)) * (k1 - k0 + _PASS)
    if split < (B1 - 1 - tiny_rows(ptab, 0, K)) * (K + _PASS):
        return starts
    whole = np.empty(2, dtype=np.int64)
    whole[0] = 0
    whole[1] = K
    return whole


@njit(**_OPTS)
def _padded(w):
    """Columns of a chunk of ``w`` columns in the packed table (a multiple of 4)."""
    return (w + 3) & -4


@njit(**_OPTS)
def column_chunk(packed, B1, starts, c):
    """First column, column count w and (B + 1, padded w) table of chunk ``c``."""
    off = 0
    for j in range(c):
        off += _padded(starts[j + 1] - starts[j])
    k0, k1 = starts[c], starts[c + 1]
    wp = _padded(k1 - k0)
    return k0, k1 - k0, packed[B1 * off:B1 * (off + wp)].reshape((B1, wp))


@njit(**_OPTS)
def pack_columns(ptab, starts):
    """The chunks of columns of ``ptab`` (B + 1, K) starting at ``starts``
    (see :func:`column_chunks`), each a C-ordered (B + 1, wp) table padded
    with zero columns, one after the other in a flat array (see
    :func:`column_chunk`); and the :func:`tiny_rows` of each chunk."""
    B1, K = ptab.shape
    total = 0
    for c in range(starts.shape[0] - 1):
        total += _padded(starts[c + 1] - starts[c])
    packed = np.zeros(B1 * total)
    cuts = np.empty(starts.shape[0] - 1, dtype=np.int64)
    for c in range(cuts.shape[0]):
        k0, w, tab = column_chunk(packed, B1, starts, c)
        for i in range(B1):
            for j in range(w):
                tab[i, j] = ptab[i, k0 + j]
        cuts[c] = tiny_rows(tab, 0, w)
    return packed, cuts


@njit(**_OPTS)
def block_scratch(B, starts):
    """Scratch arrays of :func:`block_estimates`."""
    width = 0
    for c in range(starts.shape[0] - 1):
        width = max(width, _padded(starts[c + 1] - starts[c]))
    counts = np.zeros(B, dtype=np.int64)
    drawn = np.empty(B, dtype=np.int64)
    cums = np.empty(B, dtype=np.int64)
    gaps = np.empty((BLOCK, B + _GROUP))
    rows = np.empty((BLOCK, B + _GROUP), dtype=np.int64)
    ts = np.empty(BLOCK, dtype=np.int64)
    tops = np.empty(BLOCK)
    tile = np.empty(BLOCK * width)
    return counts, drawn, cums, gaps, rows, ts, tops, tile


@njit(**_OPTS)
def block_estimates(st, xs, packed, starts, cuts, r0, nb, boot, counts, drawn, cums, gaps,
                     rows, ts, tops, tile):
    """Draw resamples ``r0:r0 + nb`` (at most ``BLOCK``) from ``st`` and
    write their estimates into ``boot``, one chunk of columns at a time.

    ``starts`` comes from :func:`column_chunks`, ``packed`` and ``cuts``
    from :func:`pack_columns`; the rest is scratch from
    :func:`block_scratch`.
    """
    B = xs.shape[0]
    bound = tiny_bound(xs)
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
    if B <= 64:
        for r in range(nb):
            ts[r], tops[r], s0, s1, s2, s3 = _draw_terms64(s0, s1, s2, s3, xs, counts, gaps[r],
                                                          rows[r])
    else:
        for r in range(nb):
            s0, s1, s2, s3 = _count_draws(s0, s1, s2, s3, counts)
            ts[r], tops[r] = counts_terms(xs, counts, drawn, cums, gaps[r], rows[r])
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3
    for c in range(cuts.shape[0]):
        k0, w, tab = column_chunk(packed, B + 1, starts, c)
        wp = tab.shape[1]
        tile_estimates(tab, w, tops, gaps, rows, ts, nb, tile, cuts[c], bound)
        for k in range(w):
            for r in range(nb):
                boot[k0 + k, r0 + r] = tile[r * wp + k]
