"""Simulated searches in the order their trials ran, for estimators written in Python.

The batteries' kernels draw each search and sort it at once. An estimator
written in Python (:mod:`evpsim.estimators.pyrun`) gets the same searches as arrays,
each row in the order its trials were drawn (so that ``naive``, the best of
the first n, sees the order): :func:`search_chunks` draws exactly as
:func:`.comparisons.draw_block` does, and so as the bias battery's
:func:`.sampling.draw_into` does for truncated normals and discrete truths
(they consume the stream identically), and :func:`pair_chunks` as
:func:`.comparisons.pair_counts_chunks` does, blocks of A's searches then
B's.
"""

import numpy as np
from numba import njit

from .comparisons import BLOCK, _copy, _draw_indices, workspace
from .options import OPTS as _OPTS
from .rng import chunk_bounds, chunk_stream
from .sampling import KIND_TRUNCNORM, draw_into


@njit(**_OPTS)
def _draw_ordered(st, m, sampler, ws, out, row0):
    """``m`` searches, in draw order, into rows ``row0..`` of ``out`` (as draw_block draws)."""
    X, idx, perm = ws[0], ws[1], ws[2]
    kind, params, table_x, table_c = sampler
    B = out.shape[1]
    if kind == KIND_TRUNCNORM:
        for r in range(m):
            draw_into(st, X[r], sampler)
            for i in range(B):
                out[row0 + r, i] = X[r, i]
        return
    _draw_indices(st, idx, m, kind, params, table_c, perm, table_x.shape[0])
    for r in range(m):
        for i in range(B):
            out[row0 + r, i] = table_x[idx[r, i]]


@njit(**_OPTS)
def search_chunks(span, B, sampler):
    """Every search of the span's chunks, rows in chunk order, trials in draw order.

    Returns
    -------
    (replicates of the span, B) float64 array
    """
    first, _ = chunk_bounds(span, 0)
    last, reps = chunk_bounds(span, span.nchunks - 1)
    out = np.empty((last + reps - first, B))
    row = 0
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        smp = _copy(sampler)
        ws = workspace(smp, B)
        for b0 in range(0, reps, BLOCK):
            m = min(BLOCK, reps - b0)
            _draw_ordered(st, m, smp, ws, out, row)
            row += m
    return out


@njit(**_OPTS)
def pair_chunks(span, B, sampler_a, sampler_b):
    """Paired searches of models A and B, as :func:`.comparisons.pair_counts_chunks` draws.

    Returns
    -------
    (2, replicates of the span, B) float64 array
        A's searches, then B's, trials in draw order.
    """
    first, _ = chunk_bounds(span, 0)
    last, reps = chunk_bounds(span, span.nchunks - 1)
    out = np.empty((2, last + reps - first, B))
    row = 0
    for c in range(span.nchunks):
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        sa, sb = _copy(sampler_a), _copy(sampler_b)
        ws_a, ws_b = workspace(sa, B), workspace(sb, B)
        for b0 in range(0, reps, BLOCK):
            m = min(BLOCK, reps - b0)
            _draw_ordered(st, m, sa, ws_a, out[0], row)
            _draw_ordered(st, m, sb, ws_b, out[1], row)
            row += m
    return out
