"""Samplers of the ground truths and of pools of scores, and sorting of short samples.

A :class:`Sampler` is the one value every sampling kernel takes: a
``(kind, params, table_x, table_c)`` named tuple, made by its constructors:

* :meth:`Sampler.truncnorm` (``KIND_TRUNCNORM``): ``params = (mu, sigma, a,
  b, case, alpha)`` with ``a, b`` the standardised bounds and ``case`` the
  rejection sampler chosen for its acceptance rate (Robert 1995);
* :meth:`Sampler.discrete` (``KIND_DISCRETE``): ``table_x`` the ascending
  support, ``table_c`` the cumulative probabilities (last entry exactly 1)
  and ``params`` a guide table (Chen & Asau 1974): ``params[j]`` is the
  first index whose cumulative probability exceeds ``j / len(params)``, so
  the search for a uniform ``u`` starts next to its answer (O(1) on
  average);
* :meth:`Sampler.pool` (``KIND_POOL``) and :meth:`Sampler.resample`
  (``KIND_RESAMPLE``): a finite pool of real scores, ascending in
  ``table_x``, drawn without replacement (a partial Fisher-Yates shuffle,
  :mod:`.comparisons`) or with replacement (uniform indices: the law of
  the empirical truth, without its table search).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import normal_state, rng_init, rng_normal, rng_uniform, uniform_state

KIND_TRUNCNORM, KIND_DISCRETE, KIND_POOL, KIND_RESAMPLE = 0, 1, 2, 3
CASE_NORMAL, CASE_UNIFORM, CASE_EXP_RIGHT, CASE_EXP_LEFT = 0, 1, 2, 3


def _floats(values):
    return np.ascontiguousarray(values, dtype=np.float64)


class Sampler(NamedTuple):
    """What a kernel draws from; build it with the constructors below."""

    kind: int
    params: np.ndarray
    table_x: np.ndarray
    table_c: np.ndarray

    @classmethod
    def truncnorm(cls, mu, sigma, a, b, case, alpha):
        """Normal(mu, sigma) truncated to standardised bounds ``[a, b]``."""
        return cls(KIND_TRUNCNORM, _floats([mu, sigma, a, b, case, alpha]),
                   np.zeros(1), np.ones(1))

    @classmethod
    def discrete(cls, support, cdf):
        """Ascending ``support`` with cumulative probabilities ``cdf``."""
        tc = _floats(cdf).copy()
        tc[-1] = 1.0
        guide = np.searchsorted(tc, np.arange(tc.size) / tc.size, side="right")
        return cls(KIND_DISCRETE, _floats(guide), _floats(support).copy(), tc)

    @classmethod
    def pool(cls, scores):
        """Searches drawn without replacement from ``scores``."""
        return cls(KIND_POOL, np.zeros(6), _floats(np.sort(scores)), np.ones(1))

    @classmethod
    def resample(cls, scores):
        """Searches drawn with replacement from ``scores``."""
        return cls(KIND_RESAMPLE, np.zeros(6), _floats(np.sort(scores)), np.ones(1))


@njit(**_OPTS)
def _std_truncnorm(st, a, b, case, alpha):
    if case == CASE_NORMAL:
        while True:
            z = rng_normal(st)
            if a <= z <= b:
                return z
    elif case == CASE_UNIFORM:
        if a > 0.0:
            c2 = a * a
        elif b < 0.0:
            c2 = b * b
        else:
            c2 = 0.0
        while True:
            z = a + (b - a) * rng_uniform(st)
            if rng_uniform(st) <= math.exp(0.5 * (c2 - z * z)):
                return z
    elif case == CASE_EXP_RIGHT:
        while True:
            z = a - math.log(rng_uniform(st)) / alpha
            if z <= b and rng_uniform(st) <= math.exp(-0.5 * (z - alpha) ** 2):
                return z
    else:  # CASE_EXP_LEFT: mirror image of the right tail
        while True:
            z = -b - math.log(rng_uniform(st)) / alpha
            if z <= -a and rng_uniform(st) <= math.exp(-0.5 * (z - alpha) ** 2):
                return -z


@njit(**_OPTS)
def _discrete_index(u, guide, table_c):
    k = int(guide[int(u * guide.shape[0])])
    while table_c[k] <= u:
        k += 1
    return k


@njit(**_OPTS)
def draw_into(st, xs, sampler):
    """Fill ``xs`` with i.i.d. draws from a truth's :class:`Sampler`.

    The branch on ``kind`` sits outside the loop, and the generator runs on
    the state copied into scalars (see :func:`.rng.next_state`).
    """
    kind, params, table_x, table_c = sampler
    if kind == KIND_TRUNCNORM:
        mu, sigma, a, b = params[0], params[1], params[2], params[3]
        case, alpha = int(params[4]), params[5]
        # clip against the last-bit rounding of mu + sigma * z
        lo, hi = mu + sigma * a, mu + sigma * b
        if case == CASE_NORMAL:  # the common case, kept free of the switch
            s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
            for i in range(xs.shape[0]):
                z, s0, s1, s2, s3 = normal_state(s0, s1, s2, s3)
                while z < a or z > b:
                    z, s0, s1, s2, s3 = normal_state(s0, s1, s2, s3)
                xs[i] = min(max(mu + sigma * z, lo), hi)
            st[0], st[1], st[2], st[3] = s0, s1, s2, s3
        else:
            for i in range(xs.shape[0]):
                x = mu + sigma * _std_truncnorm(st, a, b, case, alpha)
                xs[i] = min(max(x, lo), hi)
    else:
        s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
        for i in range(xs.shape[0]):
            u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
            xs[i] = table_x[_discrete_index(u, params, table_c)]
        st[0], st[1], st[2], st[3] = s0, s1, s2, s3


@njit(**_OPTS)
def heap_sort(xs):
    """Ascending in-place heapsort, for samples longer than 64.

    Written here rather than ``np.sort``, whose quicksort takes about 2 s
    of a first run's compilation; sorted values do not depend on the
    algorithm. One loop builds the heap, then takes its top to the end.
    """
    n = xs.shape[0]
    start = n // 2
    end = n
    while end > 1:
        if start > 0:
            start -= 1
        else:
            end -= 1
            v = xs[end]
            xs[end] = xs[0]
            xs[0] = v
        root = start
        v = xs[root]
        while True:
            child = 2 * root + 1
            if child >= end:
                break
            if child + 1 < end and xs[child + 1] > xs[child]:
                child += 1
            if xs[child] <= v:
                break
            xs[root] = xs[child]
            root = child
        xs[root] = v


@njit(**_OPTS)
def insertion_sort(xs, n):
    """Sort ``xs[:n]`` ascending in place, for short arrays of any dtype."""
    for i in range(1, n):
        v = xs[i]
        j = i - 1
        while j >= 0 and xs[j] > v:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = v


@njit(**_OPTS)
def sort_inplace(xs):
    """Ascending in-place sort: insertion sort for short arrays."""
    n = xs.shape[0]
    if n > 64:
        heap_sort(xs)
    else:
        insertion_sort(xs, n)


@njit(**_OPTS)
def sorting_network(B):
    """Comparator pairs of Batcher's odd-even merge sort for ``B`` values.

    ``B`` is padded to the next power of two (the padding holds +inf).
    Returns a (P, 2) int array; applied in order by :func:`network_sort`
    they sort any input without data-dependent branches, about three times
    faster than insertion sort for B = 30 (mispredicted branches dominate
    insertion sort on random data).
    """
    n = 1
    while n < B:
        n *= 2
    count = 0
    for sweep in range(2):
        out = np.empty((max(count, 1), 2), dtype=np.int64)
        count = 0
        p = 1
        while p < n:
            k = p
            while k >= 1:
                j = k % p
                while j <= n - 1 - k:
                    for i in range(min(k, n - j - k)):
                        if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                            if sweep == 1:
                                out[count, 0] = i + j
                                out[count, 1] = i + j + k
                            count += 1
                    j += 2 * k
                k //= 2
            p *= 2
    return out[:count]


@njit(inline="always", **_OPTS)
def network_sort(xs, buf, pairs):
    """Sort ``xs`` through ``buf`` (length a power of two >= len(xs))."""
    B = xs.shape[0]
    for i in range(B):
        buf[i] = xs[i]
    for i in range(B, buf.shape[0]):
        buf[i] = np.inf
    for q in range(pairs.shape[0]):
        i = pairs[q, 0]
        j = pairs[q, 1]
        a = buf[i]
        b = buf[j]
        buf[i] = min(a, b)
        buf[j] = max(a, b)
    for i in range(B):
        xs[i] = buf[i]


@njit(**_OPTS)
def sort_workspace(B):
    """Comparator pairs and buffer for :func:`sort_sample` of ``B`` values."""
    if B > 64:
        return np.empty((0, 2), dtype=np.int64), np.empty(B)
    padded = 1
    while padded < B:
        padded *= 2
    return sorting_network(B), np.empty(padded)


@njit(inline="always", **_OPTS)
def sort_sample(xs, buf, pairs):
    """Sort in place: the sorting network for B <= 64, else :func:`heap_sort`."""
    if xs.shape[0] <= 64:
        network_sort(xs, buf, pairs)
    else:
        heap_sort(xs)


@njit(**_OPTS)
def draw_sorted(st, xs, sampler):
    """Fill ``xs`` with an ascending i.i.d. sample from the truth."""
    draw_into(st, xs, sampler)
    sort_inplace(xs)


@njit(**_OPTS)
def sample_block(seed, stream, size, sampler):
    """``size`` i.i.d. draws (unsorted) from stream ``(seed, stream)``."""
    st = rng_init(seed, stream)
    out = np.empty(size)
    draw_into(st, out, sampler)
    return out
