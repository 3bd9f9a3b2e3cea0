"""Counter-based seeding and the xoshiro256** generator for numba kernels.

Chunk ``j`` of a run with seed ``s`` draws from the stream ``(s, j)``: its
xoshiro256** state (Blackman & Vigna 2018) is four SplitMix64 outputs of a
mix of ``s`` and ``j``, so a chunk's numbers do not depend on which thread
or process runs it. Normals come from Marsaglia's polar method.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TWO53 = 1.0 / 9007199254740992.0


@njit(inline="always", **_OPTS)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always", **_OPTS)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(**_OPTS)
def rng_init(seed, stream):
    """xoshiro256** state for ``(seed, stream)``; both below 2**63."""
    st = np.empty(4, dtype=np.uint64)
    x = _mix64(np.uint64(seed) + _GOLDEN) ^ (np.uint64(stream) * np.uint64(0xD1B54A32D192ED03))
    for i in range(4):
        x = x + _GOLDEN
        st[i] = _mix64(x)
    return st


@njit(inline="always", **_OPTS)
def rng_next(st):
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3
    return result


@njit(inline="always", **_OPTS)
def rng_uniform(st):
    """Uniform double in the open interval (0, 1)."""
    return (float(rng_next(st) >> np.uint64(11)) + 0.5) * _TWO53


@njit(inline="always", **_OPTS)
def rng_below(st, k):
    """Uniform integer in 0..k-1 (k < 2**53)."""
    return min(int(rng_uniform(st) * k), k - 1)


@njit(inline="always", **_OPTS)
def rng_normal(st):
    """Standard normal by Marsaglia's polar method (the spare is discarded,
    which keeps the state a plain integer array)."""
    while True:
        u = 2.0 * rng_uniform(st) - 1.0
        v = 2.0 * rng_uniform(st) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * math.log(s) / s)
