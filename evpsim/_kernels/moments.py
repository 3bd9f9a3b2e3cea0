"""Monte Carlo kernels of the bias battery: power sums of estimation errors."""

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import chunk_bounds, chunk_stream, vbroadcast, vload, vmax, vmin, vstore
from .sampling import draw_into, sort_sample, sort_workspace

#: largest B that :func:`bias_lstat_chunks` runs four searches at a time
MAX_B_FOUR = 64


@njit(inline="always", **_OPTS)
def _accumulate_powers(acc, k, d):
    d2 = d * d
    acc[k, 0] += d
    acc[k, 1] += d2
    acc[k, 2] += d2 * d
    acc[k, 3] += d2 * d2


@njit(**_OPTS)
def _padded4(n):
    return (n + 3) & -4


@njit(**_OPTS)
def _control_blocks(controls, Rp):
    """How each block of four rows reads its control: the offset ``k - controls[k]``
    shared by the four (vector path), -1 for no control in the block, -2 for
    any other block (row by row)."""
    R = controls.shape[0]
    modes = np.empty(Rp // 4, dtype=np.int64)
    for b in range(Rp // 4):
        k0 = 4 * b
        c0 = controls[k0] if k0 < R else -1
        none = True
        same = c0 >= 0
        for k in range(k0, k0 + 4):
            c = controls[k] if k < R else -1
            none = none and c < 0
            same = same and c >= 0 and c == c0 + (k - k0)
        modes[b] = -1 if none else (k0 - c0 if same else -2)
    return modes


@njit(**_OPTS)
def _network_sort4(X, pairs):
    """Sort four samples at once with the comparators ``pairs`` of
    :func:`.sampling.sorting_network`: ``X[4 i + s]`` is value i of sample
    s, the padding +inf. Each lane does what :func:`.sampling.network_sort`
    does to one sample."""
    for q in range(pairs.shape[0]):
        i = 4 * pairs[q, 0]
        j = 4 * pairs[q, 1]
        a = vload(X, i)
        b = vload(X, j)
        vstore(X, i, vmin(a, b))
        vstore(X, j, vmax(a, b))


@njit(**_OPTS)
def _nonzero_spans(W, B, Rp):
    """For each block of eight rows of ``W`` (B, Rp) flattened (the last
    block may have four), the first and the end of the samples' indices i
    where some row has a nonzero weight (U's rows are zero below rank n).
    A zero weight's term ``0 * x`` leaves a sum alone (but for the sign of
    a zero sum, which no power sum can tell), so the terms outside are
    skipped."""
    nb = (Rp + 7) // 8
    spans = np.zeros((nb, 2), dtype=np.int64)
    for b in range(nb):
        first, end = B, 0
        for k in range(8 * b, min(8 * b + 8, Rp)):
            for i in range(B):
                if W[i * Rp + k] != 0.0:
                    first = min(first, i)
                    end = max(end, i + 1)
        spans[b, 0] = first
        spans[b, 1] = max(end, first)
    return spans


@njit(**_OPTS)
def _estimates4(X, W, negth, spans, E):
    """``E[s Rp + k] = -theta_k + w[0, k] x_s(0) + w[1, k] x_s(1) + ...`` for
    the four sorted samples of ``X`` (as :func:`_network_sort4` lays them
    out), summed in that order as the scalar loop does; ``W`` is (B, Rp)
    flattened, ``spans`` from :func:`_nonzero_spans`. Four samples by eight
    rows stay in registers over i."""
    Rp = negth.shape[0]
    k = 0
    while k + 8 <= Rp:
        t0 = vload(negth, k)
        t1 = vload(negth, k + 4)
        a0, a1, b0, b1, c0, c1, d0, d1 = t0, t1, t0, t1, t0, t1, t0, t1
        for i in range(spans[k >> 3, 0], spans[k >> 3, 1]):
            w0 = vload(W, i * Rp + k)
            w1 = vload(W, i * Rp + k + 4)
            x = vbroadcast(X, 4 * i)
            a0 = a0 + w0 * x
            a1 = a1 + w1 * x
            x = vbroadcast(X, 4 * i + 1)
            b0 = b0 + w0 * x
            b1 = b1 + w1 * x
            x = vbroadcast(X, 4 * i + 2)
            c0 = c0 + w0 * x
            c1 = c1 + w1 * x
            x = vbroadcast(X, 4 * i + 3)
            d0 = d0 + w0 * x
            d1 = d1 + w1 * x
        vstore(E, k, a0)
        vstore(E, k + 4, a1)
        vstore(E, Rp + k, b0)
        vstore(E, Rp + k + 4, b1)
        vstore(E, 2 * Rp + k, c0)
        vstore(E, 2 * Rp + k + 4, c1)
        vstore(E, 3 * Rp + k, d0)
        vstore(E, 3 * Rp + k + 4, d1)
        k += 8
    if k < Rp:
        a0 = vload(negth, k)
        b0, c0, d0 = a0, a0, a0
        for i in range(spans[k >> 3, 0], spans[k >> 3, 1]):
            w0 = vload(W, i * Rp + k)
            a0 = a0 + w0 * vbroadcast(X, 4 * i)
            b0 = b0 + w0 * vbroadcast(X, 4 * i + 1)
            c0 = c0 + w0 * vbroadcast(X, 4 * i + 2)
            d0 = d0 + w0 * vbroadcast(X, 4 * i + 3)
        vstore(E, k, a0)
        vstore(E, Rp + k, b0)
        vstore(E, 2 * Rp + k, c0)
        vstore(E, 3 * Rp + k, d0)


@njit(**_OPTS)
def _accumulate4(E, m, A, controls, modes):
    """Add the power sums of the first ``m`` samples' rows ``E`` (in sample
    order) to ``A`` (6, Rp) flattened, as :func:`_accumulate_powers` and the
    control sums of :func:`bias_lstat_chunks`' scalar loop do, four rows at
    a time with the sums in registers."""
    Rp = modes.shape[0] * 4
    for b in range(modes.shape[0]):
        k = 4 * b
        s1 = vload(A, k)
        s2 = vload(A, Rp + k)
        s3 = vload(A, 2 * Rp + k)
        s4 = vload(A, 3 * Rp + k)
        for s in range(m):
            d = vload(E, s * Rp + k)
            d2 = d * d
            s1 = s1 + d
            s2 = s2 + d2
            s3 = s3 + d2 * d
            s4 = s4 + d2 * d2
        vstore(A, k, s1)
        vstore(A, Rp + k, s2)
        vstore(A, 2 * Rp + k, s3)
        vstore(A, 3 * Rp + k, s4)
        off = modes[b]
        if off == -1:
            continue
        if off == -2:  # rows with different controls, one at a time
            for kk in range(k, k + 4):
                if kk < controls.shape[0] and controls[kk] >= 0:
                    for s in range(m):
                        diff = E[s * Rp + kk] - E[s * Rp + controls[kk]]
                        A[4 * Rp + kk] += diff
                        A[5 * Rp + kk] += diff * diff
            continue
        s5 = vload(A, 4 * Rp + k)
        s6 = vload(A, 5 * Rp + k)
        for s in range(m):
            diff = vload(E, s * Rp + k) - vload(E, s * Rp + k - off)
            s5 = s5 + diff
            s6 = s6 + diff * diff
        vstore(A, 4 * Rp + k, s5)
        vstore(A, 5 * Rp + k, s6)


@njit(**_OPTS)
def _bias_chunk_scalar(st, reps, B, sampler, wts, thetas, controls, acc):
    """One chunk of :func:`bias_lstat_chunks` a search at a time (any B)."""
    R = wts.shape[1]
    xs = np.empty(B)
    est = np.empty(R)
    pairs, buf = sort_workspace(B)
    for _ in range(reps):
        draw_into(st, xs, sampler)
        sort_sample(xs, buf, pairs)
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
            if controls[k] >= 0:
                diff = est[k] - est[controls[k]]
                acc[k, 4] += diff
                acc[k, 5] += diff * diff


@njit(**_OPTS)
def bias_lstat_chunks(span, B, sampler, wts, thetas, controls):
    """Power sums of ``est - theta`` for L-statistics, one row per chunk.

    Parameters
    ----------
    span : Span
        The chunks to run (:class:`.rng.Span`).
    B : int
        Trials per search.
    sampler : Sampler
        The truth (:class:`.sampling.Sampler`).
    wts : (B, R) array
        Weight rows (every estimator and budget), transposed.
    thetas : (R,) array
        Exact theta for each row; sums are accumulated around it.
    controls : (R,) int array
        Row of a control variate with known mean theta (U at the same n),
        or -1. For rows with a control, ``c = est - est[control]`` is
        accumulated too: its mean is the bias, with far smaller variance.

    Returns
    -------
    (nchunks, R, 6) array
        ``sum d, sum d^2, sum d^3, sum d^4, sum c, sum c^2`` over the
        chunk's replicates (``c = 0`` for rows without a control).

    The searches run four at a time (sorted together by the sorting
    network, their estimates and sums four rows by four samples in SIMD
    registers), for B up to :data:`MAX_B_FOUR`; each estimate and each sum
    takes the same operations in the same order as one search at a time
    would, so the results are those of :func:`bias_lstat_chunks_scalar`
    (any B), bit for bit. The callers choose between the two, so that a
    process compiles only the kernel it runs.
    """
    if B > MAX_B_FOUR:
        raise ValueError("bias_lstat_chunks: B above MAX_B_FOUR; use bias_lstat_chunks_scalar")
    R = wts.shape[1]
    out = np.zeros((span.nchunks, R, 6))
    Rp = _padded4(R)
    W = np.zeros(B * Rp)
    negth = np.zeros(Rp)
    for k in range(R):
        negth[k] = -thetas[k]
        for i in range(B):
            W[i * Rp + k] = wts[i, k]
    modes = _control_blocks(controls, Rp)
    spans = _nonzero_spans(W, B, Rp)
    pairs, buf = sort_workspace(B)
    Bp = buf.shape[0]
    xs = np.empty(4 * B)
    X = np.zeros(4 * Bp)
    E = np.zeros(4 * Rp)
    A = np.empty(6 * Rp)
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        for k in range(6 * Rp):
            A[k] = 0.0
        for r0 in range(0, reps, 4):
            m = min(4, reps - r0)
            # the m searches' draws in one call: the stream's next m * B values
            draw_into(st, xs[:m * B], sampler)
            for s in range(m):
                for i in range(B):
                    X[4 * i + s] = xs[s * B + i]
            for i in range(4 * B, 4 * Bp):
                X[i] = np.inf
            _network_sort4(X, pairs)
            _estimates4(X, W, negth, spans, E)
            _accumulate4(E, m, A, controls, modes)
        for k in range(R):
            for j in range(6):
                out[c, k, j] = A[j * Rp + k]
    return out


@njit(**_OPTS)
def bias_lstat_chunks_scalar(span, B, sampler, wts, thetas, controls):
    """:func:`bias_lstat_chunks` one search at a time, for any B."""
    out = np.zeros((span.nchunks, wts.shape[1], 6))
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        _bias_chunk_scalar(chunk_stream(span, c), reps, B, sampler, wts, thetas, controls, out[c])
    return out


def bias_lstat_kernel(B):
    """The kernel of :func:`bias_lstat_chunks`' results for searches of B trials."""
    return bias_lstat_chunks if B <= MAX_B_FOUR else bias_lstat_chunks_scalar


@njit(**_OPTS)
def bias_general_chunks(span, B, sampler, func, ns, thetas):
    """As :func:`bias_lstat_chunks` for a general estimator ``func(xs, n)``.

    Uses the same streams, so it sees exactly the same samples.
    """
    R = ns.shape[0]
    out = np.zeros((span.nchunks, R, 4))
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        xs = np.empty(B)
        acc = out[c]
        pairs, buf = sort_workspace(B)
        for _ in range(reps):
            draw_into(st, xs, sampler)
            sort_sample(xs, buf, pairs)
            for k in range(R):
                _accumulate_powers(acc, k, func(xs, ns[k]) - thetas[k])
    return out
