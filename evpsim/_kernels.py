"""Every numba kernel of evpsim, and only here.

Random numbers come from xoshiro256** (Blackman & Vigna 2018) with a state
derived by SplitMix64 from ``(seed, chunk index)``, so the stream of a chunk
does not depend on which thread or process runs it. Normals come from
Marsaglia's polar method; truncated normals by one of four rejection
samplers chosen per truth for acceptance rate (Robert 1995).

Sampler specifications are passed as ``(kind, params, table_x, table_c)``:

* ``kind == 0``: truncated normal, ``params = (mu, sigma, a, b, case,
  alpha)`` with ``a, b`` the standardised bounds;
* ``kind == 1``: discrete, ``table_x`` the ascending support and
  ``table_c`` the cumulative probabilities (last entry exactly 1).
"""

import math

import numpy as np
from numba import njit, prange

_OPTS = dict(cache=True, nogil=True)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TWO53 = 1.0 / 9007199254740992.0

KIND_TRUNCNORM = 0
KIND_DISCRETE = 1
CASE_NORMAL, CASE_UNIFORM, CASE_EXP_RIGHT, CASE_EXP_LEFT = 0, 1, 2, 3


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


@njit(inline="always", **_OPTS)
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


@njit(inline="always", **_OPTS)
def _discrete_index(u, table_c):
    lo, hi = 0, table_c.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if table_c[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(**_OPTS)
def draw_into(st, xs, kind, params, table_x, table_c):
    """Fill ``xs`` with i.i.d. draws from the truth's sampler specification.

    The branch on ``kind`` sits outside the loop and the loop body calls
    nothing that takes arrays other than the state: numba reference-counts
    array arguments on every call, which would otherwise double the cost.
    """
    if kind == KIND_TRUNCNORM:
        mu, sigma, a, b = params[0], params[1], params[2], params[3]
        case, alpha = int(params[4]), params[5]
        # clip against the last-bit rounding of mu + sigma * z
        lo, hi = mu + sigma * a, mu + sigma * b
        if case == CASE_NORMAL:  # the common case, kept free of the switch
            for i in range(xs.shape[0]):
                z = rng_normal(st)
                while z < a or z > b:
                    z = rng_normal(st)
                xs[i] = min(max(mu + sigma * z, lo), hi)
        else:
            for i in range(xs.shape[0]):
                x = mu + sigma * _std_truncnorm(st, a, b, case, alpha)
                xs[i] = min(max(x, lo), hi)
    else:
        for i in range(xs.shape[0]):
            xs[i] = table_x[_discrete_index(rng_uniform(st), table_c)]


@njit(**_OPTS)
def sort_inplace(xs):
    """Ascending in-place sort: insertion sort for short arrays."""
    n = xs.shape[0]
    if n > 64:
        xs[:] = np.sort(xs)
        return
    for i in range(1, n):
        v = xs[i]
        j = i - 1
        while j >= 0 and xs[j] > v:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = v


@njit(**_OPTS)
def draw_sorted(st, xs, kind, params, table_x, table_c):
    """Fill ``xs`` with an ascending i.i.d. sample from the truth."""
    draw_into(st, xs, kind, params, table_x, table_c)
    sort_inplace(xs)


@njit(**_OPTS)
def sample_block(seed, stream, size, kind, params, table_x, table_c):
    """``size`` i.i.d. draws (unsorted) from stream ``(seed, stream)``."""
    st = rng_init(seed, stream)
    out = np.empty(size)
    draw_into(st, out, kind, params, table_x, table_c)
    return out


@njit(inline="always", **_OPTS)
def _accumulate_powers(acc, k, d):
    d2 = d * d
    acc[k, 0] += d
    acc[k, 1] += d2
    acc[k, 2] += d2 * d
    acc[k, 3] += d2 * d2


@njit(parallel=True, **_OPTS)
def bias_lstat_chunks(seed, chunk0, nchunks, chunk_size, replicates, B,
                      kind, params, table_x, table_c, wts, thetas):
    """Power sums of ``est - theta`` for L-statistics, one row per chunk.

    Parameters
    ----------
    wts : (B, R) array
        Weight rows (every estimator and budget), transposed.
    thetas : (R,) array
        Exact theta for each row; sums are accumulated around it.

    Returns
    -------
    (nchunks, R, 4) array
        ``sum d, sum d^2, sum d^3, sum d^4`` over the chunk's replicates.
    """
    R = wts.shape[1]
    out = np.zeros((nchunks, R, 4))
    for c in prange(nchunks):
        j = chunk0 + c
        reps = min(chunk_size, replicates - j * chunk_size)
        st = rng_init(seed, j)
        xs = np.empty(B)
        acc = np.zeros((R, 4))
        est = np.empty(R)
        for _ in range(reps):
            draw_sorted(st, xs, kind, params, table_x, table_c)
            # est = ws @ xs with the row index innermost, so that the loop
            # vectorises without reassociating any sum
            for k in range(R):
                est[k] = -thetas[k]
            for i in range(B):
                xi = xs[i]
                for k in range(R):
                    est[k] += wts[i, k] * xi
            for k in range(R):
                _accumulate_powers(acc, k, est[k])
        out[c] = acc
    return out


@njit(parallel=True, **_OPTS)
def bias_general_chunks(seed, chunk0, nchunks, chunk_size, replicates, B,
                        kind, params, table_x, table_c, func, ns, thetas):
    """As :func:`bias_lstat_chunks` for a general estimator ``func(xs, n)``.

    Uses the same streams, so it sees exactly the same samples.
    """
    R = ns.shape[0]
    out = np.zeros((nchunks, R, 4))
    for c in prange(nchunks):
        j = chunk0 + c
        reps = min(chunk_size, replicates - j * chunk_size)
        st = rng_init(seed, j)
        xs = np.empty(B)
        acc = np.zeros((R, 4))
        for _ in range(reps):
            draw_sorted(st, xs, kind, params, table_x, table_c)
            for k in range(R):
                _accumulate_powers(acc, k, func(xs, ns[k]) - thetas[k])
        out[c] = acc
    return out


# ---------------------------------------------------------------------------
# exact order-statistic moments
# ---------------------------------------------------------------------------

@njit(**_OPTS)
def binom_pmf_all(B, f, s, out):
    """``out[a] = P(Bin(B, f) = a)`` for a = 0..B, with ``s = 1 - f``.

    ``s`` is passed separately so that it keeps full relative precision
    when ``f`` is close to one.
    """
    if f <= 0.0:
        out[:] = 0.0
        out[0] = 1.0
        return
    if s <= 0.0:
        out[:] = 0.0
        out[B] = 1.0
        return
    lf = math.log(f)
    ls = math.log(s)
    lgb = math.lgamma(B + 1.0)
    for a in range(B + 1):
        out[a] = math.exp(lgb - math.lgamma(a + 1.0) - math.lgamma(B - a + 1.0)
                          + a * lf + (B - a) * ls)


@njit(**_OPTS)
def _upper_tail(pmf, B, out):
    """``out[i] = P(C >= i)`` for i = 0..B from the pmf of C."""
    acc = 0.0
    for a in range(B, -1, -1):
        acc += pmf[a]
        out[a] = acc


@njit(**_OPTS)
def order_stat_tails(B, fs, ss):
    """``A[q, i-1] = P(X_(i:B) <= x_q)`` for each node with CDF ``fs[q]``."""
    K = fs.shape[0]
    A = np.empty((K, B))
    pmf = np.empty(B + 1)
    tail = np.empty(B + 1)
    for q in range(K):
        binom_pmf_all(B, fs[q], ss[q], pmf)
        _upper_tail(pmf, B, tail)
        A[q, :] = tail[1:]
    return A


@njit(**_OPTS)
def _pairs_block(B, fx, sx, fy, sy, wt, start, stop, out):
    pmf_x = np.empty(B + 1)
    pmf_y = np.empty(B + 1)
    ax = np.empty(B + 1)
    ay = np.empty(B + 1)
    dpmf = np.empty(B + 1)
    dsf = np.empty(B + 2)
    run = np.empty(B + 1)
    for k in range(start, stop):
        w = wt[k]
        binom_pmf_all(B, fx[k], sx[k], pmf_x)
        binom_pmf_all(B, fy[k], sy[k], pmf_y)
        _upper_tail(pmf_x, B, ax)
        _upper_tail(pmf_y, B, ay)
        # D = C(y) - C(x) given C(x) = a is Bin(B - a, p), p = (S_x - S_y) / S_x
        if sx[k] > 0.0:
            p = (sx[k] - sy[k]) / sx[k]
            q = sy[k] / sx[k]
        else:
            p = 0.0
            q = 1.0
        dpmf[:] = 0.0
        dpmf[0] = 1.0
        run[:] = 0.0
        for a in range(B, -1, -1):
            m = B - a
            if m > 0:  # Bin(m - 1, p) -> Bin(m, p)
                for d in range(m, 0, -1):
                    dpmf[d] = q * dpmf[d] + p * dpmf[d - 1]
                dpmf[0] = q * dpmf[0]
            acc = 0.0
            dsf[m + 1] = 0.0
            for d in range(m, -1, -1):
                acc += dpmf[d]
                dsf[d] = acc
            ba = pmf_x[a]
            # run[j] accumulates P(C(x) >= a, C(y) >= j)
            for j in range(1, a + 1):
                run[j] += ba
            for j in range(a + 1, B + 1):
                run[j] += ba * dsf[j - a]
            if a >= 1:
                axa = ax[a]
                for j in range(1, B + 1):
                    out[a - 1, j - 1] += w * (run[j] - axa * ay[j])


@njit(parallel=True, **_OPTS)
def order_stat_pair_sums(B, fx, sx, fy, sy, wt, nblocks):
    """Half of the order statistics' covariance matrix from node pairs.

    For node pairs ``x <= y`` with CDF values ``fx, fy`` (survival
    ``sx, sy``) and quadrature weights ``wt``, returns
    ``S[i, j] = sum_k wt_k Cov(1[X_(i) <= x_k], 1[X_(j) <= y_k])``;
    the covariance matrix is ``S + S.T``. Pairs are split into ``nblocks``
    fixed blocks reduced in order, so the result does not depend on the
    number of threads.
    """
    P = fx.shape[0]
    parts = np.zeros((nblocks, B, B))
    for b in prange(nblocks):
        start = (P * b) // nblocks
        stop = (P * (b + 1)) // nblocks
        _pairs_block(B, fx, sx, fy, sy, wt, start, stop, parts[b])
    total = np.zeros((B, B))
    for b in range(nblocks):
        total += parts[b]
    return total


@njit(**_OPTS)
def _transition(B, p, q, out):
    """``out[a0, a] = P(Bin(B - a0, p) = a - a0)``: the count process's step."""
    out[:, :] = 0.0
    dpmf = np.zeros(B + 1)
    dpmf[0] = 1.0
    for m in range(0, B + 1):
        if m > 0:
            for d in range(m, 0, -1):
                dpmf[d] = q * dpmf[d] + p * dpmf[d - 1]
            dpmf[0] = q * dpmf[0]
        a0 = B - m
        for d in range(m + 1):
            out[a0, a0 + d] = dpmf[d]


@njit(**_OPTS)
def order_stat_chain_sums(B, h, fs, ss):
    """Half of the order statistics' covariance matrix for ordered nodes.

    For ascending nodes ``x_1 < ... < x_K`` with weights ``h`` (CDF ``fs``,
    survival ``ss``) returns
    ``S[i, j] = sum_{k <= l} h_k h_l c_kl Cov(1[C_k >= i], 1[C_l >= j])``
    with ``c_kl = 1/2`` on the diagonal, so that the covariance matrix is
    ``S + S.T``. The count ``C(x)`` is a Markov chain in ``x``, so
    ``H_l(i, a) = sum_{k <= l} h_k c_kl P(C_k >= i, C_l = a)`` follows from
    ``H_{l-1}`` by one transition: O(K B^3) work instead of O(K^2 B^2).
    """
    K = fs.shape[0]
    H = np.zeros((B, B + 1))
    Hn = np.empty((B, B + 1))
    T = np.zeros((B, B))
    pi = np.empty((B + 1, B + 1))
    pmf = np.empty(B + 1)
    tail = np.empty(B + 1)
    cum_a = np.zeros(B)  # sum_{k <= l} h_k c_kl P(C_k >= i)
    prev_s = 1.0
    for l in range(K):
        if prev_s > 0.0:
            p = (prev_s - ss[l]) / prev_s
            q = ss[l] / prev_s
        else:
            p, q = 0.0, 1.0
        _transition(B, p, q, pi)
        for i in range(B):
            for a in range(B + 1):
                acc = 0.0
                for a0 in range(a + 1):
                    acc += H[i, a0] * pi[a0, a]
                Hn[i, a] = acc
        H[:, :] = Hn
        binom_pmf_all(B, fs[l], ss[l], pmf)
        _upper_tail(pmf, B, tail)
        half = 0.5 * h[l]
        # node l enters its own diagonal term with half weight, later ones
        # with full weight: add one half before and one after using it
        for step in range(2):
            for i in range(B):
                for a in range(i + 1, B + 1):
                    H[i, a] += half * pmf[a]
                cum_a[i] += half * tail[i + 1]
            if step == 0:
                for i in range(B):
                    acc = 0.0
                    for j in range(B, 0, -1):  # sum over a >= j of H[i, a]
                        acc += H[i, j]
                        T[i, j - 1] += h[l] * (acc - cum_a[i] * tail[j])
        prev_s = ss[l]
    return T
