"""Chunking, seeding, progress and reductions for Monte Carlo batteries.

Determinism (Crane 2018): the replicates are split into chunks of a fixed
size whose count depends only on the replicate count. Chunk ``j`` draws
from the random stream ``(seed, j)``, each chunk returns partial sums, and
the partial sums are added in chunk order. The result is therefore
bit-identical for any number of numba threads and for any split of the
chunks over worker processes.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

__all__ = ["ChunkPlan", "ChunkKernel", "run_chunked", "Progress"]

CHUNK_SIZE = 4096


@dataclass(frozen=True)
class ChunkPlan:
    """How ``replicates`` are split into fixed-size chunks.

    Parameters
    ----------
    replicates : int
        Total number of replicates (at least 1).
    seed : int
        Seed of the run; chunk ``j`` uses stream ``(seed, j)``.
    chunk_size : int
        Replicates per chunk (the last chunk may be shorter).
    """

    replicates: int
    seed: int = 0
    chunk_size: int = CHUNK_SIZE

    def __post_init__(self):
        for name in ("replicates", "chunk_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be an integer in 0..2**63-1, got {self.seed!r}")

    @property
    def nchunks(self):
        """Number of chunks."""
        return -(-self.replicates // self.chunk_size)

    def batches(self, batch_chunks):
        """``(first chunk, number of chunks)`` for consecutive batches."""
        for c0 in range(0, self.nchunks, batch_chunks):
            yield c0, min(batch_chunks, self.nchunks - c0)


@dataclass(frozen=True)
class ChunkKernel:
    """A numba chunk kernel bound to its plan and arrays, picklable for workers.

    Calling it with ``(first_chunk, nchunks)`` runs
    ``fn(seed, [stream,] first_chunk, nchunks, chunk_size, replicates, *args)``,
    the signature every chunked kernel in :mod:`evpsim._kernels` shares
    (``stream`` offsets the random streams of kernels that need several
    independent families of streams under one seed).
    """

    fn: object
    plan: ChunkPlan
    args: tuple
    stream: int | None = None

    def __call__(self, c0, nc):
        head = (self.plan.seed,) if self.stream is None else (self.plan.seed, self.stream)
        return self.fn(*head, c0, nc, self.plan.chunk_size, self.plan.replicates, *self.args)


class Progress:
    """Progress line on stderr, shown once a run has taken ``delay`` seconds.

    Parameters
    ----------
    label : str
        What is running.
    total : int
        Units of work (e.g. replicates).
    enabled : bool
        False silences it (the Python API's default).
    delay : float
        Seconds before the first line is drawn.
    """

    def __init__(self, label, total, *, enabled=True, delay=1.5, stream=None):
        self.label, self.total, self.enabled, self.delay = label, total, enabled, delay
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.shown = False

    def update(self, done):
        """Report ``done`` units finished."""
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay and done < self.total:
            return
        if not self.shown and done >= self.total:
            return  # finished before the delay: stay quiet
        frac = done / self.total if self.total else 1.0
        eta = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        self.stream.write(f"\r{self.label}: {100 * frac:5.1f}%  ({done:,}/{self.total:,})  "
                          f"{elapsed:6.1f} s elapsed, ~{eta:5.1f} s left ")
        self.stream.flush()
        self.shown = True

    def close(self):
        """End the progress line."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _batch_size(plan, workers):
    # enough chunks per call to keep the threads busy, few enough for
    # a progress line every second or so on long runs
    return max(8, min(64, -(-plan.nchunks // (4 * max(1, workers)))))


def run_chunked(kernel, plan, *, workers=1, progress=None, batch_chunks=None):
    """Run ``kernel(c0, nc) -> (nc, ...) partial sums`` over all chunks.

    Parameters
    ----------
    kernel : callable
        ``kernel(first_chunk, nchunks)`` returning an array whose first axis
        runs over those chunks. With ``workers > 1`` it must be picklable.
    plan : ChunkPlan
    workers : int
        Worker processes (joblib). Results do not depend on it.
    progress : callable, optional
        Called with the number of replicates done after each batch.
    batch_chunks : int, optional
        Chunks per kernel call (memory and progress granularity only).

    Returns
    -------
    ndarray
        The partial sums added in chunk order.
    """
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    batch_chunks = batch_chunks or _batch_size(plan, workers)
    batches = list(plan.batches(batch_chunks))
    if workers == 1:
        results = (kernel(c0, nc) for c0, nc in batches)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=workers, return_as="generator")(
            delayed(kernel)(c0, nc) for c0, nc in batches)
    total = None
    for (c0, nc), part in zip(batches, results):
        for c in range(nc):
            total = part[c].copy() if total is None else total + part[c]
        if progress is not None:
            progress(min((c0 + nc) * plan.chunk_size, plan.replicates))
    return total
