"""Monte Carlo kernels of the bias battery: power sums of estimation errors."""

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .rng import chunk_bounds, chunk_stream
from .sampling import draw_into, sort_sample, sort_workspace


@njit(inline="always", **_OPTS)
def _accumulate_powers(acc, k, d):
    d2 = d * d
    acc[k, 0] += d
    acc[k, 1] += d2
    acc[k, 2] += d2 * d
    acc[k, 3] += d2 * d2


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
    """
    R = wts.shape[1]
    out = np.zeros((span.nchunks, R, 6))
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        xs = np.empty(B)
        acc = out[c]
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
    return out


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
