"""Bootstrap confidence intervals for the expected maximum, and their coverage.

One sample's bootstrap: its R resamples' estimates (drawn and estimated
in :mod:`.resamples`), then each column's (estimator x budget) interval
from their quantiles (:mod:`.quantiles`). The quantiles use the
Hyndman-Fan type 7 ("linear") definition of ``scipy.stats.bootstrap``;
BCa's bias correction and acceleration follow ``scipy.stats.bootstrap``
too.

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
CDF bands are handled by :mod:`.bands`.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .quantiles import quantiles_of, quantiles_scratch
from .resamples import (BLOCK, block_estimates, block_scratch, column_chunks, jackknife_estimates,
                        pack_columns, sample_estimates)
from .rng import chunk_bounds, rng_init, rng_next
from .sampling import draw_sorted
from .tallies import NSLOTS, tally

PERCENTILE, BASIC, BCA, USER = 0, 1, 2, 3
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

    ``ranks`` and ``work`` (:func:`.quantiles.quantiles_scratch` of R values
    and 4 probabilities), ``ps`` and ``qs`` (4,) are scratch.
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
    scratch = block_scratch(B, starts)
    for r0 in range(0, resamples, BLOCK):
        block_estimates(st, xs, packed, starts, cuts, r0, min(BLOCK, resamples - r0), boot,
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


# --- coverage on simulated searches ------------------------------------------------

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
        See :func:`.tallies.tally`.
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
            tally(acc, ivs, thetas, E, N)
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
            tally(acc, ivs, thetas, E, N)
    return out


@njit(**_OPTS)
def bootstrap_setup(xs, seed, stream, ptab, jws, resamples, codes, jackknife):
    """The serial part of :func:`bootstrap_intervals` for one given sample.

    Computes the sample's estimates (and jackknife estimates), packs the
    weight table, and runs stream ``(seed, stream)`` through the draws of
    every resample, noting its state at the start of each block of
    ``BLOCK`` resamples, so that :func:`bootstrap_blocks` can draw the
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
    nblocks = (resamples + BLOCK - 1) // BLOCK
    states = np.empty((nblocks, 4), dtype=np.uint64)
    for b in range(nblocks):
        for i in range(4):
            states[b, i] = st[i]
        for _ in range(min(BLOCK, resamples - b * BLOCK) * ((B + 1) >> 1)):
            rng_next(st)  # a resample takes ceil(B / 2) draws (multinomial_counts)
    return est, jack, need_q, packed, starts, cuts, states


@njit(**_OPTS)
def bootstrap_blocks(xs, states, packed, starts, cuts, b0, b1, boot):
    """Estimates of the resamples of blocks ``b0:b1`` into ``boot`` (K, R)."""
    resamples = boot.shape[1]
    scratch = block_scratch(xs.shape[0], starts)
    for b in range(b0, b1):
        r0 = b * BLOCK
        block_estimates(states[b].copy(), xs, packed, starts, cuts, r0,
                         min(BLOCK, resamples - r0), boot, *scratch)


@njit(**_OPTS)
def bootstrap_columns(k0, k1, boot, est, jack, level, codes, need_q, out):
    """Intervals ``out[:, k]`` of the built-in methods for columns ``k0:k1``."""
    ranks, work = quantiles_scratch(boot.shape[1], 4)
    ps = np.empty(4)
    qs = np.empty(4)
    for k in range(k0, k1):
        _column_intervals(k, boot, est, jack, level, codes, need_q, work, ps, qs, ranks, out)
