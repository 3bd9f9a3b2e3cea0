"""Quantiles of many values by selection, not sorting.

Floyd-Rivest pivots with branch-free partitions (:func:`select_inplace`),
the needed ranks placed by divide and conquer (:func:`place_ranks`). The
quantiles use the Hyndman-Fan type 7 ("linear") definition of
``scipy.stats.bootstrap``, evaluated with the same floating-point
operations as ``scipy.stats.quantile``. :func:`quantiles_of` leaves the
values alone: from ``_FILTER_FROM`` values on, one pass over them finds the
few candidates for the ranks (:func:`_filter_ranks`). The kinds of CI
method read their intervals off these quantiles of R resamples'
estimates.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .sampling import insertion_sort

_FILTER_FROM = 2048  # estimates from which quantiles filter candidates first (quantiles_of)
_SAMPLE = 256  # the strided sample that bounds the candidates


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
    ``4 len(ps)`` and ``2 R + _SAMPLE + 2 len(ps)`` (:func:`quantiles_scratch`).
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


@njit(**_OPTS)
def quantiles_scratch(R, nps):
    """Scratch ``(ranks, work)`` of :func:`quantiles_of` for R values and ``nps``
    probabilities."""
    return np.empty(4 * nps, dtype=np.int64), np.empty(2 * R + _SAMPLE + 2 * nps)
