"""Bootstrap confidence intervals for the expected maximum, and their coverage.

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
passes over it. Once the rows left of a chunk are all tiny (as
``P_n(k) = (k/B)^n`` is for V at large n and small k) and no estimate is
near zero, the terms left cannot change an estimate's bits and are
skipped (see :func:`tiny_bound`), which also keeps most subnormal numbers
out of the sums.

Quantiles of the R bootstrap estimates come from selection, not sorting:
Floyd-Rivest pivots with branch-free partitions, the needed ranks placed
by divide and conquer. They use the Hyndman-Fan type 7 ("linear")
definition of ``scipy.stats.bootstrap``, evaluated with the same
floating-point operations as ``scipy.stats.quantile``; BCa's bias
correction and acceleration follow ``scipy.stats.bootstrap`` too.

Replicate ``i`` (a simulated search) draws its sample and then its
resamples from the random stream ``(seed, i)``, so a replicate's numbers
depend neither on the thread count nor on the chunking, and every method
and estimator sees the same samples and resamples. One sample's bootstrap
runs in blocks of resamples that any thread can draw
(:func:`bootstrap_setup`, :func:`bootstrap_blocks`), with the same results.

Built-in interval methods are integer codes (:data:`PERCENTILE`,
:data:`BASIC`, :data:`BCA`) handled by cached kernels; a user's method, a
numba function ``f(boots, estimate, jackknife, level) -> (lower, upper)``
(code :data:`USER`), runs in kernels compiled for it
(:func:`coverage_user_chunks`, :func:`user_intervals`). Distribution-free
CDF bands are handled by :func:`band_intervals`.
"""

import math

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .options import OPTS as _OPTS
from .rng import chunk_bounds, next_state, rng_init, rng_next
from .sampling import draw_sorted, insertion_sort

PERCENTILE, BASIC, BCA, USER = 0, 1, 2, 3
# slots of the per-chunk tallies
HIT, BELOW, ABOVE, WIDTH = 0, 1, 2, 3
NSLOTS = 4
_BLOCK = 64  # resamples per block of estimates
_GROUP = 8  # terms per pass over a resample's estimates (four pairs)
# most columns and bytes per chunk of the table (half a 2 MB L2 cache)
_CHUNK, _CHUNK_BYTES = 112, 1 << 20
_PASS = 16  # the cost of a pass over a chunk's estimates, in columns
_TINY = 2.0 ** -100  # cumulative weights this small may be skipped (tiny_bound)
_FILTER_FROM = 2048  # estimates from which quantiles filter candidates first (quantiles_of)
_SAMPLE = 256  # the strided sample that bounds the candidates
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
# kernels specialised on a user's function cannot be cached
_NOCACHE = {**_OPTS, "cache": False}


# --- normal distribution ----------------------------------------------------

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
# Acklam's rational approximation of the normal quantile
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)


@njit(**_OPTS)
def ndtr(x):
    """Standard normal CDF."""
    return 0.5 * math.erfc(-x / _SQRT2)


@njit(**_OPTS)
def ndtri(p):
    """Standard normal quantile: Acklam's approximation refined by one
    Halley step (relative error near 1e-15); ``-inf``/``inf`` at 0/1, NaN
    outside [0, 1]."""
    if not 0.0 <= p <= 1.0:
        return np.nan
    if p == 0.0:
        return -np.inf
    if p == 1.0:
        return np.inf
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        x = ((((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5])
             / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0))
    elif p > 1.0 - 0.02425:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -((((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5])
              / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0))
    else:
        q = p - 0.5
        r = q * q
        x = ((((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
             / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0))
    # Halley refinement against the tail that keeps relative precision
    if p < 0.5:
        e = 0.5 * math.erfc(-x / _SQRT2) - p
    else:
        e = (1.0 - p) - 0.5 * math.erfc(x / _SQRT2)
    u = e * _SQRT2PI * math.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


# --- selection and quantiles --------------------------------------------------

@njit(**_OPTS)
def _partition_less(a, lo, hi, pivot):
    """Branch-free Lomuto partition: ``a[lo:j] < pivot <= a[j:hi]``; returns j.

    Each entry is swapped with the first one not yet known to be smaller,
    and the boundary advances by the comparison's outcome, so the loop has
    no data-dependent branch to mispredict.
    """
    j = lo
    for i in range(lo, hi):
        v = a[i]
        a[i] = a[j]
        a[j] = v
        j += v < pivot
    return j


@njit(**_OPTS)
def _partition_leq(a, lo, hi, pivot):
    """As :func:`_partition_less` with ``a[lo:j] <= pivot < a[j:hi]``."""
    j = lo
    for i in range(lo, hi):
        v = a[i]
        a[i] = a[j]
        a[j] = v
        j += v <= pivot
    return j


@njit(**_OPTS)
def _narrow(a, lo, hi, k, pivot):
    """Partition ``a[lo:hi]`` around ``pivot`` (one of its entries) and
    return the part that holds rank ``k``. When nothing is below the pivot,
    a second pass splits off the entries equal to it, so that ties cannot
    stall the selection."""
    j = _partition_less(a, lo, hi, pivot)
    if k < j:
        return lo, j
    if j > lo:
        return j, hi
    j = _partition_leq(a, lo, hi, pivot)
    if k < j:
        return k, k + 1  # a[lo:j] all equal the pivot
    return j, hi


@njit(**_OPTS)
def _quickselect(a, lo, hi, k):
    """Quickselect with a median-of-three pivot on ``a[lo:hi]``."""
    while hi - lo > 1:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi - 1]
        lo, hi = _narrow(a, lo, hi, k, max(min(x, y), min(max(x, y), z)))


@njit(**_OPTS)
def select_inplace(a, lo, hi, k):
    """Rearrange ``a[lo:hi]`` so that ``a[k]`` is its element of rank ``k - lo``.

    Afterwards ``a[lo:k] <= a[k] <= a[k+1:hi]``. Floyd & Rivest's (1975)
    pivot choice: the element of the right rank in a small sample around
    position k (selected first), so that one pass over the array is usually
    enough; with branch-free partitions.
    """
    while hi - lo > 600:
        n = hi - lo
        i = k - lo + 1
        z = math.log(n)
        s = 0.5 * math.exp(2.0 * z / 3.0)
        sd = 0.5 * math.sqrt(z * s * (n - s) / n)
        if 2 * i < n:
            sd = -sd
        elif 2 * i == n:
            sd = 0.0
        new_lo = max(lo, int(k - i * s / n + sd))
        new_hi = min(hi - 1, int(k + (n - i) * s / n + sd)) + 1
        _quickselect(a, new_lo, new_hi, k)
        lo, hi = _narrow(a, lo, hi, k, a[k])
    _quickselect(a, lo, hi, k)


@njit(**_OPTS)
def _hf7(p, R):
    """Indices ``j, j+1`` and weight ``g`` of the linear (type 7) quantile,
    with the operations of ``scipy.stats.quantile(method="linear")``."""
    m = 1.0 - p
    jg = p * R + m
    jp1 = math.floor(jg)
    g = jg - jp1
    j = jp1 - 1.0
    if j < 0.0:
        g = 0.0
    j = min(max(j, 0.0), R - 1.0)
    jp1 = min(max(jp1, 0.0), R - 1.0)
    return int(j), int(jp1), g


@njit(**_OPTS)
def place_ranks(a, ranks, nr):
    """Partially order ``a`` so that ``a[r]`` holds its element of rank r for
    every r in ``ranks[:nr]`` (ascending, unique).

    Divide and conquer: in each part of the array the needed rank nearest
    its middle is selected first, which splits the part in two. For the two
    tails of an interval the array is passed over about twice, and the
    ranks within a tail cost little more.
    """
    stack = np.empty((nr + 1, 4), dtype=np.int64)  # (lo, hi, first rank, end rank)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, a.shape[0], 0, nr
    top = 1
    while top > 0:
        top -= 1
        lo, hi, i0, i1 = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if i0 >= i1:
            continue
        mid = (lo + hi) >> 1
        best = i0
        for i in range(i0 + 1, i1):
            if abs(ranks[i] - mid) < abs(ranks[best] - mid):
                best = i
        r = ranks[best]
        select_inplace(a, lo, hi, r)
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = lo, r, i0, best
        stack[top + 1, 0], stack[top + 1, 1] = r + 1, hi
        stack[top + 1, 2], stack[top + 1, 3] = best + 1, i1
        top += 2


@njit(**_OPTS)
def _needed_ranks(ps, R, ranks):
    """The sorted distinct ranks that the linear quantiles at ``ps`` (NaN
    skipped) of R values read, into ``ranks``; returns their count."""
    nr = 0
    for q in range(ps.shape[0]):
        if ps[q] == ps[q]:
            j, jp1, _ = _hf7(ps[q], float(R))
            ranks[nr] = j
            ranks[nr + 1] = jp1
            nr += 2
    return _sort_unique(ranks, nr)


@njit(**_OPTS)
def _sort_unique(v, n):
    """Sort ``v[:n]`` and keep its distinct values at the front; returns their count."""
    insertion_sort(v, n)
    nu = 0
    for i in range(n):
        if nu == 0 or v[i] != v[nu - 1]:
            v[nu] = v[i]
            nu += 1
    return nu


@njit(**_OPTS)
def quantiles_by_selection(a, ps, out, ranks):
    """Linear-interpolation quantiles of ``a`` at probabilities ``ps``.

    ``a`` is reordered in place (partially); NaN probabilities give NaN.
    ``ranks`` is scratch space of length ``2 * len(ps)``.
    """
    R = a.shape[0]
    place_ranks(a, ranks, _needed_ranks(ps, R, ranks))
    for q in range(ps.shape[0]):
        if ps[q] == ps[q]:
            j, jp1, g = _hf7(ps[q], float(R))
            out[q] = (1.0 - g) * a[j] + g * a[jp1]
        else:
            out[q] = np.nan


@njit(**_OPTS)
def _sample_rank(r, R, side):
    """Rank in the strided sample of :func:`_filter_ranks` whose value lies
    beyond rank ``r`` of R values on ``side`` (-1 below, +1 above) but for a
    chance below 1e-4: four standard deviations and two ranks of margin;
    -1 or ``_SAMPLE`` when that is beyond the sample."""
    p = (r + 0.5) / R
    c = p * _SAMPLE
    m = 4.0 * math.sqrt(_SAMPLE * p * (1.0 - p)) + 2.0
    if side < 0:
        return max(int(math.floor(c - m)), -1)
    return min(int(math.ceil(c + m)), _SAMPLE)


@njit(**_OPTS)
def _filter_ranks(a, ranks, nu, vals, work):
    """``vals[i]``, the element of rank ``ranks[i]`` of ``a``, by one pass.

    The ranks below R / 2 and the others form two groups. For each, bounds
    ``[lo, hi]`` that hold all of its ranks (but for a small chance) come
    from a strided sample of ``a`` (:func:`_group_bounds`); one branch-free
    pass copies the elements within each group's bounds into ``work`` and
    counts those below (:func:`_copy_within`), and the ranks are then
    placed among those few (:func:`_place_groups`). Returns False, with
    nothing found, when the bounds missed (or ``a`` holds a NaN); the
    caller then selects on the whole array. ``a`` is left unchanged;
    ``work`` holds at least ``2 R + _SAMPLE`` floats.
    """
    R = a.shape[0]
    for j in range(R):
        if a[j] != a[j]:
            return False
    split, bounds = _group_bounds(a, ranks, nu, work)
    counts = _copy_within(a, bounds, work)
    return _place_groups(ranks, nu, split, counts, work[:R], work[R:2 * R], vals)


@njit(**_OPTS)
def _group_bounds(a, ranks, nu, work):
    """The groups' bounds from a strided sample of ``a`` (:func:`_filter_ranks`).

    Parameters
    ----------
    a : (R,) float array
        The values, without NaN.
    ranks : (nu,) int array
        The ranks wanted, ascending.
    nu : int
        How many of ``ranks`` are used.
    work : float array
        Scratch space; the sample goes to ``work[2 R:2 R + _SAMPLE]``.

    Returns
    -------
    split : int
        The first of ``ranks`` in the upper group (ranks from R / 2).
    bounds : (4,) float array
        ``lo, hi`` of the lower group, then of the upper group (``inf,
        -inf`` for an empty group; infinite where the sample cannot bound
        a rank).
    """
    R = a.shape[0]
    sample = work[2 * R:2 * R + _SAMPLE]
    for j in range(_SAMPLE):
        sample[j] = a[(j * R) // _SAMPLE]
    split = 0
    while split < nu and ranks[split] < R // 2:
        split += 1
    want = np.empty(4, dtype=np.int64)  # sample ranks of lo, hi of both groups
    for g in range(2):
        i0, i1 = (0, split) if g == 0 else (split, nu)
        if i0 == i1:
            want[2 * g], want[2 * g + 1] = _SAMPLE, -1  # empty: lo = inf, hi = -inf
        else:
            want[2 * g] = _sample_rank(ranks[i0], R, -1)
            want[2 * g + 1] = _sample_rank(ranks[i1 - 1], R, 1)
    srk = np.empty(4, dtype=np.int64)
    ns = 0
    for g in range(4):
        if 0 <= want[g] < _SAMPLE:
            srk[ns] = want[g]
            ns += 1
    place_ranks(sample, srk, _sort_unique(srk, ns))
    bounds = np.empty(4)
    for g in range(4):
        q = want[g]
        bounds[g] = -np.inf if q < 0 else (np.inf if q >= _SAMPLE else sample[q])
    return split, bounds


@njit(**_OPTS)
def _copy_within(a, bounds, work):
    """One branch-free pass copying the elements of ``a`` within each group's bounds.

    Parameters
    ----------
    a : (R,) float array
        The values.
    bounds : (4,) float array
        ``lo, hi`` of both groups (:func:`_group_bounds`).
    work : float array
        The lower group's elements go to ``work[:R]``, the upper group's to
        ``work[R:2 R]``.

    Returns
    -------
    (4,) int array
        ``n1, n2``, the elements within each group's bounds, and ``b1,
        b2``, those below them.
    """
    R = a.shape[0]
    lo1, hi1, lo2, hi2 = bounds[0], bounds[1], bounds[2], bounds[3]
    buf1 = work[:R]
    buf2 = work[R:2 * R]
    n1 = 0
    n2 = 0
    b1 = 0
    b2 = 0
    if lo1 == -np.inf and hi2 == np.inf:  # two tails (percentile, basic)
        for j in range(R):
            v = a[j]
            buf1[n1] = v
            n1 += v <= hi1
            buf2[n2] = v
            n2 += v >= lo2
        b2 = R - n2
    else:
        for j in range(R):
            v = a[j]
            buf1[n1] = v
            n1 += (v >= lo1) & (v <= hi1)
            b1 += v < lo1
            buf2[n2] = v
            n2 += (v >= lo2) & (v <= hi2)
            b2 += v < lo2
    counts = np.empty(4, dtype=np.int64)
    counts[0], counts[1], counts[2], counts[3] = n1, n2, b1, b2
    return counts


@njit(**_OPTS)
def _place_groups(ranks, nu, split, counts, buf1, buf2, vals):
    """Place each group's ranks among its copied elements (:func:`_filter_ranks`).

    Parameters
    ----------
    ranks : (nu,) int array
        The ranks wanted, ascending.
    nu : int
        How many of ``ranks`` are used.
    split : int
        The first of ``ranks`` in the upper group.
    counts : (4,) int array
        ``n1, n2, b1, b2`` of :func:`_copy_within`.
    buf1, buf2 : float arrays
        The lower and the upper group's elements (reordered in place).
    vals : (nu,) float array
        Receives the elements of the ranks.

    Returns
    -------
    bool
        False, with nothing found, when a group's bounds missed its ranks.
    """
    n1, n2, b1, b2 = counts[0], counts[1], counts[2], counts[3]
    rk = np.empty(nu, dtype=np.int64)
    for g in range(2):
        i0, i1 = (0, split) if g == 0 else (split, nu)
        if i0 == i1:
            continue
        b, n = (b1, n1) if g == 0 else (b2, n2)
        if not (b <= ranks[i0] and ranks[i1 - 1] < b + n):
            return False
    for g in range(2):
        i0, i1 = (0, split) if g == 0 else (split, nu)
        if i0 == i1:
            continue
        b, n = (b1, n1) if g == 0 else (b2, n2)
        part = buf1[:n] if g == 0 else buf2[:n]
        for i in range(i0, i1):
            rk[i - i0] = ranks[i] - b
        place_ranks(part, rk, i1 - i0)
        for i in range(i0, i1):
            vals[i] = part[ranks[i] - b]
    return True


@njit(**_OPTS)
def quantiles_of(a, ps, out, ranks, work):
    """:func:`quantiles_by_selection` of ``a`` without changing it.

    From ``_FILTER_FROM`` values on, the ranks are found by
    :func:`_filter_ranks`, one pass over ``a`` and selection among a few
    hundred; below, or if that fails, by selection on a copy. The values
    are those of the same ranks, so the quantiles are the same.
    ``ranks`` (int) and ``work`` (float) are scratch of lengths at least
    ``4 len(ps)`` and ``2 R + _SAMPLE + 2 len(ps)``.
    """
    R = a.shape[0]
    nu = _needed_ranks(ps, R, ranks)
    vals = work[2 * R + _SAMPLE:2 * R + _SAMPLE + nu]
    if not (R >= _FILTER_FROM and _filter_ranks(a, ranks, nu, vals, work)):
        buf = work[:R]
        for j in range(R):
            buf[j] = a[j]
        place_ranks(buf, ranks, nu)
        for i in range(nu):
            vals[i] = buf[ranks[i]]
    for q in range(ps.shape[0]):
        if ps[q] == ps[q]:
            j, jp1, g = _hf7(ps[q], float(R))
            vj = vjp1 = np.nan
            for i in range(nu):
                if ranks[i] == j:
                    vj = vals[i]
                if ranks[i] == jp1:
                    vjp1 = vals[i]
            out[q] = (1.0 - g) * vj + g * vjp1
        else:
            out[q] = np.nan


# --- estimates of a sample, its resamples and its jackknife samples ------------

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


@njit(**_OPTS)
def acceleration(jack):
    """BCa acceleration from jackknife estimates (Efron & Tibshirani 1993,
    eq. 14.15, as in ``scipy.stats.bootstrap``); NaN when they are all equal."""
    B = jack.shape[0]
    mean = 0.0
    for i in range(B):
        mean += jack[i]
    mean /= B
    s2 = 0.0
    s3 = 0.0
    for i in range(B):
        u = (B - 1) * (mean - jack[i])
        s2 += u * u
        s3 += u * u * u
    num = s3 / B**3
    den = s2 / B**2
    if den == 0.0:
        return np.nan
    return num / 6.0 / den**1.5


# --- intervals of one sample -----------------------------------------------------
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
def _block_scratch(B, starts):
    """Scratch arrays of :func:`_block_estimates`."""
    width = 0
    for c in range(starts.shape[0] - 1):
        width = max(width, _padded(starts[c + 1] - starts[c]))
    counts = np.zeros(B, dtype=np.int64)
    drawn = np.empty(B, dtype=np.int64)
    cums = np.empty(B, dtype=np.int64)
    gaps = np.empty((_BLOCK, B + _GROUP))
    rows = np.empty((_BLOCK, B + _GROUP), dtype=np.int64)
    ts = np.empty(_BLOCK, dtype=np.int64)
    tops = np.empty(_BLOCK)
    tile = np.empty(_BLOCK * width)
    return counts, drawn, cums, gaps, rows, ts, tops, tile


@njit(**_OPTS)
def _block_estimates(st, xs, packed, starts, cuts, r0, nb, boot, counts, drawn, cums, gaps,
                     rows, ts, tops, tile):
    """Draw resamples ``r0:r0 + nb`` (at most ``_BLOCK``) from ``st`` and
    write their estimates into ``boot``, one chunk of columns at a time.

    ``starts`` comes from :func:`column_chunks`, ``packed`` and ``cuts``
    from :func:`pack_columns`; the rest is scratch from
    :func:`_block_scratch`.
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


@njit(**_OPTS)
def _sample_part(xs, ptab, jws, codes, jackknife, est, jack):
    """The sample's estimates and, if needed, its jackknife estimates;
    returns whether percentile-type quantiles are needed."""
    need_q = False
    need_jack = jackknife
    for m in range(codes.shape[0]):
        need_q = need_q or codes[m] == PERCENTILE or codes[m] == BASIC
        need_jack = need_jack or codes[m] == BCA
    sample_estimates(xs, ptab, est)
    if need_jack:
        jackknife_estimates(xs, jws, jack)
    return need_q


@njit(**_OPTS)
def _prepare(xs, ptab, jws, codes, jackknife, est, jack):
    """:func:`_sample_part`, then the weight table packed in chunks of columns.

    Returns ``need_q, packed, starts, cuts``.
    """
    need_q = _sample_part(xs, ptab, jws, codes, jackknife, est, jack)
    starts = column_chunks(ptab)
    packed, cuts = pack_columns(ptab, starts)
    return need_q, packed, starts, cuts


@njit(**_OPTS)
def _column_intervals(k, boot, est, jack, level, codes, need_q, work, ps, qs, ranks, out):
    """Intervals ``out[:, k]`` of column ``k`` for the built-in methods.

    ``work`` (2 R + _SAMPLE + 8,), ``ps``, ``qs`` (4,) and ``ranks`` (16,)
    are scratch.
    """
    R = boot.shape[1]
    alpha = 0.5 * (1.0 - level)
    z_lo = ndtri(alpha)
    z_hi = -z_lo
    e = est[k]
    buf = boot[k]
    ps[:] = np.nan
    if need_q:
        ps[0] = alpha
        ps[1] = 1.0 - alpha
    for m in range(codes.shape[0]):
        if codes[m] == BCA:
            below = 0
            at_or_below = 0
            for r in range(R):
                below += buf[r] < e
                at_or_below += buf[r] <= e
            z0 = ndtri((below + at_or_below) / (2.0 * R))
            a = acceleration(jack[k])
            n1 = z0 + z_lo
            n2 = z0 + z_hi
            ps[2] = ndtr(z0 + n1 / (1.0 - a * n1))
            ps[3] = ndtr(z0 + n2 / (1.0 - a * n2))
    quantiles_of(buf, ps, qs, ranks, work)
    for m in range(codes.shape[0]):
        c = codes[m]
        if c == PERCENTILE:
            out[m, k, 0] = qs[0]
            out[m, k, 1] = qs[1]
        elif c == BASIC:
            out[m, k, 0] = 2.0 * e - qs[1]
            out[m, k, 1] = 2.0 * e - qs[0]
        elif c == BCA:
            out[m, k, 0] = qs[2]
            out[m, k, 1] = qs[3]


@njit(**_OPTS)
def bootstrap_intervals(st, xs, ptab, jws, resamples, level, codes, jackknife,
                        boot, est, jack, out):
    """Bootstrap intervals of every column and method for one sorted sample.

    Parameters
    ----------
    st : xoshiro state
        Stream of the resamples.
    xs : (B,) array
        The ascending sample.
    ptab, jws : arrays
        Cumulative weights (B + 1, K) and jackknife weights (K, B - 1) of
        the K columns (estimator x budget).
    resamples : int
        R, the number of bootstrap resamples.
    level : float
        Two-sided confidence level.
    codes : (M,) int array
        Built-in methods (see the module constants); rows of other codes
        are left alone.
    jackknife : bool
        Compute the jackknife estimates even without BCa (for user methods).
    boot : (K, R) array
        Receives the bootstrap estimates.
    est : (K,) array
        Receives the sample's estimates.
    jack : (K, B) array
        Receives the jackknife estimates (with BCa or ``jackknife``).
    out : (M, K, 2) array
        Receives the interval endpoints.

    See Also
    --------
    bootstrap_setup : The same results for one sample, shared over threads.
    """
    B = xs.shape[0]
    K = est.shape[0]
    need_q, packed, starts, cuts = _prepare(xs, ptab, jws, codes, jackknife, est, jack)
    scratch = _block_scratch(B, starts)
    for r0 in range(0, resamples, _BLOCK):
        _block_estimates(st, xs, packed, starts, cuts, r0, min(_BLOCK, resamples - r0), boot,
                         *scratch)
    if codes.shape[0] > 0:
        bootstrap_columns(0, K, boot, est, jack, level, codes, need_q, out)


@njit(**_NOCACHE)
def user_intervals(func, boot, est, jack, level, out):
    """Intervals ``out`` (K, 2) of a user method ``func(boots, estimate,
    jackknife, level)`` from the arrays :func:`bootstrap_intervals` fills.

    Not cached: numba compiles it anew for each function.
    """
    buf = np.empty(boot.shape[1])
    for k in range(boot.shape[0]):
        for r in range(buf.shape[0]):
            buf[r] = boot[k, r]
        lo, hi = func(buf, est[k], jack[k], level)
        out[k, 0] = lo
        out[k, 1] = hi


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


# --- coverage tallies ---------------------------------------------------------------

@njit(**_OPTS)
def _tally(acc, ivs, thetas, E, N):
    """Add one replicate's intervals (M, E * N, 2) at N budgets to ``acc`` (M, E, N + 1, 4).

    Rows ``n < N`` hold hits, misses below/above and the width sum of the
    n-th budget (theta ``thetas[n]``); row ``N`` slot ``HIT`` counts samples
    covered at every budget.
    """
    for m in range(ivs.shape[0]):
        for e in range(E):
            all_n = 1.0
            for n in range(N):
                k = e * N + n
                lo = ivs[m, k, 0]
                hi = ivs[m, k, 1]
                th = thetas[n]
                if lo <= th <= hi:
                    acc[m, e, n, HIT] += 1.0
                elif hi < th:
                    acc[m, e, n, BELOW] += 1.0
                    all_n = 0.0
                elif lo > th:
                    acc[m, e, n, ABOVE] += 1.0
                    all_n = 0.0
                else:  # undefined (NaN) interval
                    all_n = 0.0
                if lo == lo and hi == hi:
                    acc[m, e, n, WIDTH] += hi - lo
            acc[m, e, N, HIT] += all_n


@njit(**_OPTS)
def coverage_boot_chunks(span, B, sampler, ptab, jws, thetas, resamples, level, codes):
    """Coverage tallies of built-in bootstrap intervals, one block per chunk.

    ``thetas`` is the exact theta_n at the N budgets computed (all of
    1..B, or a selection); the K = E * N columns of the weight tables
    ``ptab`` (B + 1, K) and ``jws`` (K, B - 1) run over estimators, then
    those budgets.

    Returns
    -------
    (nchunks, M, E, N + 1, 4) array
        See :func:`_tally`.
    """
    K = ptab.shape[1]
    N = thetas.shape[0]
    E = K // N
    M = codes.shape[0]
    out = np.zeros((span.nchunks, M, E, N + 1, NSLOTS))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        xs = np.empty(B)
        boot = np.empty((K, resamples))
        est = np.empty(K)
        jack = np.zeros((K, B))
        ivs = np.empty((M, K, 2))
        acc = out[c]
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            bootstrap_intervals(st, xs, ptab, jws, resamples, level, codes, False,
                                boot, est, jack, ivs)
            _tally(acc, ivs, thetas, E, N)
    return out


@njit(**_NOCACHE)
def coverage_user_chunks(span, B, sampler, ptab, jws, thetas, resamples, level, func):
    """As :func:`coverage_boot_chunks` for one user method ``func`` (M = 1).

    Same streams, so the same samples and resamples.
    """
    K = ptab.shape[1]
    N = thetas.shape[0]
    E = K // N
    out = np.zeros((span.nchunks, 1, E, N + 1, NSLOTS))
    no_codes = np.empty(0, dtype=np.int64)
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        xs = np.empty(B)
        boot = np.empty((K, resamples))
        est = np.empty(K)
        jack = np.zeros((K, B))
        ivs = np.empty((1, K, 2))
        acc = out[c]
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            bootstrap_intervals(st, xs, ptab, jws, resamples, level, no_codes, True,
                                boot, est, jack, ivs)
            user_intervals(func, boot, est, jack, level, ivs[0])
            _tally(acc, ivs, thetas, E, N)
    return out


@njit(**_OPTS)
def coverage_band_chunks(span, B, sampler, lo, hi, lowers, uppers, thetas, index, ps):
    """As :func:`coverage_boot_chunks` for CDF-band intervals (E = 1).

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
            _tally(acc, ivs, thetas, 1, N)
    return out


@njit(**_OPTS)
def bootstrap_setup(xs, seed, stream, ptab, jws, resamples, codes, jackknife):
    """The serial part of :func:`bootstrap_intervals` for one given sample.

    Computes the sample's estimates (and jackknife estimates), packs the
    weight table, and runs stream ``(seed, stream)`` through the draws of
    every resample, noting its state at the start of each block of
    ``_BLOCK`` resamples, so that :func:`bootstrap_blocks` can draw the
    blocks in any order, on any thread, and give the resamples
    :func:`bootstrap_intervals` would.

    Returns
    -------
    est (K,), jack (K, B), need_q, packed, starts, cuts, states (blocks, 4)
    """
    B = xs.shape[0]
    K = ptab.shape[1]
    st = rng_init(seed, stream)
    est = np.empty(K)
    jack = np.zeros((K, B))
    need_q, packed, starts, cuts = _prepare(xs, ptab, jws, codes, jackknife, est, jack)
    nblocks = (resamples + _BLOCK - 1) // _BLOCK
    states = np.empty((nblocks, 4), dtype=np.uint64)
    for b in range(nblocks):
        for i in range(4):
            states[b, i] = st[i]
        for _ in range(min(_BLOCK, resamples - b * _BLOCK) * ((B + 1) >> 1)):
            rng_next(st)  # a resample takes ceil(B / 2) draws (multinomial_counts)
    return est, jack, need_q, packed, starts, cuts, states


@njit(**_OPTS)
def bootstrap_blocks(xs, states, packed, starts, cuts, b0, b1, boot):
    """Estimates of the resamples of blocks ``b0:b1`` into ``boot`` (K, R)."""
    resamples = boot.shape[1]
    scratch = _block_scratch(xs.shape[0], starts)
    for b in range(b0, b1):
        r0 = b * _BLOCK
        _block_estimates(states[b].copy(), xs, packed, starts, cuts, r0,
                         min(_BLOCK, resamples - r0), boot, *scratch)


@njit(**_OPTS)
def bootstrap_columns(k0, k1, boot, est, jack, level, codes, need_q, out):
    """Intervals ``out[:, k]`` of the built-in methods for columns ``k0:k1``."""
    work = np.empty(2 * boot.shape[1] + _SAMPLE + 8)
    ps = np.empty(4)
    qs = np.empty(4)
    ranks = np.empty(16, dtype=np.int64)
    for k in range(k0, k1):
        _column_intervals(k, boot, est, jack, level, codes, need_q, work, ps, qs, ranks, out)
