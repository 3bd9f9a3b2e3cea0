"""Python estimators on the engine: the same simulated searches, chunk by chunk.

An estimator written in Python (``kind == "python"``, see
:mod:`evpsim.estimators`) cannot run inside a numba kernel. A
:class:`PythonJob` draws the searches of each chunk with the chunk's own
random stream, exactly as the battery's kernels draw them
(:mod:`evpsim._kernels.searches`), hands them to the estimators in the
order their trials ran, and reduces the estimates to the same kind of
per-chunk partial results a kernel returns. :func:`evpsim.engine.montecarlo.run`
runs it like any job: in process, in joblib workers or on a dask cluster,
with progress, and the partial results added in chunk order, so the result
does not depend on the number of workers, and comparisons with the numba
estimators are paired, search for search.

A sample on which an estimator fails (it raised, or returned NaN) is
counted per estimator and budget; the reductions skip it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as check
from .family import Context

__all__ = ["PythonJob", "BiasSums", "SignCounts", "PairCounts", "search_counts"]


def search_counts(ests, replicates, asked=None, name="python_replicates"):
    """Searches (or resamples) each estimator runs on.

    All of the battery's for the numba path; for a Python estimator,
    ``asked`` if given (one count for all, or a mapping from estimator name
    to count; names not in it keep their default), else its
    ``max_replicates`` cap; never more than the battery's. ``name`` is the
    argument ``asked`` came from, for its messages (``curve`` caps its
    bootstrap resamples the same way, with ``python_resamples``).
    """
    check.replicates(replicates)
    if isinstance(asked, dict):
        asked = {str(k): check.replicates(v, f"{name}[{k!r}]") for k, v in asked.items()}
    elif asked is not None:
        asked = check.replicates(asked, name)
    out = []
    for e in ests:
        cap = asked.get(e.name, e.max_replicates) if isinstance(asked, dict) else \
            asked if asked is not None else e.max_replicates
        out.append(replicates if e.kind != "python" or cap is None else min(cap, replicates))
    return np.array(out, dtype=np.int64)


@dataclass(frozen=True)
class BiasSums:
    """Reduction of the bias battery: per estimator and budget, over the chunk's
    searches where the estimator succeeded, ``[count, sum d, sum d^2, sum d^3,
    sum d^4]`` of ``d = estimate - centers``."""

    centers: np.ndarray
    width = 5

    def __call__(self, est):
        ok = np.isfinite(est)                      # (E, m, R)
        d = np.where(ok, est - self.centers, 0.0)
        d2 = d * d
        return np.stack([ok.sum(axis=1), d.sum(axis=1), d2.sum(axis=1),
                         (d2 * d).sum(axis=1), (d2 * d2).sum(axis=1)], axis=-1)


@dataclass(frozen=True)
class SignCounts:
    """Reduction of the false-conclusion battery: per estimator and budget,
    ``[below, tie]`` against each of ``S`` truths in turn (``est < centers[s]
    - tol``, ``|est - centers[s]| <= tol``), then failures (NaN).

    ``centers`` is ``(S, R)``, a row of truths per budget."""

    centers: np.ndarray
    tol: float

    @property
    def width(self):
        return 2 * self.centers.shape[0] + 1

    def __call__(self, est):
        failed = ~np.isfinite(est)
        parts = []
        for centers in self.centers:
            d = np.where(failed, 0.0, est - centers)
            tie = (np.abs(d) <= self.tol) & ~failed
            below = (d < 0.0) & ~tie & ~failed
            parts += [below.sum(axis=1), tie.sum(axis=1)]
        parts.append(failed.sum(axis=1))
        return np.stack(parts, axis=-1).astype(float)


@dataclass(frozen=True)
class PairCounts:
    """Reduction of the comparison batteries: per estimator and budget, over the
    pairs where both estimates exist, ``[a_higher, tie, failed]`` and, with
    ``moments``, the power sums of each model's estimates around its center
    (as :func:`evpsim._kernels.comparisons.pair_counts_chunks`)."""

    centers_a: np.ndarray
    centers_b: np.ndarray
    tol: float
    moments: bool

    @property
    def width(self):
        return 11 if self.moments else 3

    def __call__(self, est_a, est_b):
        ok = np.isfinite(est_a) & np.isfinite(est_b)
        d = np.where(ok, est_a - est_b, 0.0)
        tie = (np.abs(d) <= self.tol) & ok
        parts = [((d > 0.0) & ~tie).sum(axis=1), tie.sum(axis=1)]
        if self.moments:
            for est, centers in ((est_a, self.centers_a), (est_b, self.centers_b)):
                e = np.where(ok, est - centers, 0.0)
                e2 = e * e
                parts += [e.sum(axis=1), e2.sum(axis=1), (e2 * e).sum(axis=1),
                          (e2 * e2).sum(axis=1)]
        parts.append((~ok).sum(axis=1))
        return np.stack(parts, axis=-1).astype(float)


@dataclass(frozen=True, eq=False)
class PythonJob:
    """Python estimators over the searches of one stream family, reduced per chunk.

    Parameters
    ----------
    B : int
        Trials per search.
    samplers : tuple of Sampler
        The truth's sampler (:attr:`evpsim.Truth.sampler`), or two models'
        samplers for paired searches (blocks of A's searches, then B's).
    estimators : sequence of Estimator
        Python estimators (``kind == "python"``).
    ns : (R,) int array
        Budgets.
    context : Context
        The target and the metric's range, passed to the estimators.
    reduce : callable
        ``reduce(estimates)`` of the ``(E, m, R)`` estimates of one chunk's
        ``m`` searches (for paired searches ``reduce(est_a, est_b)``),
        returning an ``(E, R, width)`` array (:class:`BiasSums`,
        :class:`SignCounts`, :class:`PairCounts`).
    stream0 : int
        First stream of the job's family (:mod:`evpsim.engine.streams`).
    """

    B: int
    samplers: tuple
    estimators: tuple
    ns: np.ndarray
    context: Context
    reduce: object
    stream0: int = 0
    #: :func:`evpsim.engine.montecarlo.run` passes ``tick`` to jobs that take it
    ticks = True

    def __call__(self, span, tick=None):
        """Partial results ``(nchunks, E, R, width)`` of the span's chunks.

        ``tick(k)`` is called after each of the span's searches (``k`` of
        them done), in process only, for the progress line of slow
        estimators.
        """
        from .._kernels.rng import chunk_bounds
        from .._kernels.searches import pair_chunks, search_chunks

        samples = pair_chunks(span, self.B, *self.samplers) if len(self.samplers) == 2 else \
            search_chunks(span, self.B, self.samplers[0])[None]
        out, row = [], 0
        for c in range(span.nchunks):
            reps = chunk_bounds(span, c)[1]
            ests = [np.stack([self._estimates(e, side[row:row + reps], row, tick if k == 0
                                              else None) for e in self.estimators])
                    for k, side in enumerate(samples)]
            out.append(self.reduce(*ests))
            row += reps
        return np.stack(out)

    def _estimates(self, estimator, chunk, row0, tick):
        if tick is None or estimator.max_replicates is None:  # fast: the chunk at once
            return estimator.estimates(chunk, self.ns, self.context)
        rows = []
        for k in range(chunk.shape[0]):
            rows.append(estimator.estimates(chunk[k:k + 1], self.ns, self.context))
            tick(row0 + k + 1)
        return np.concatenate(rows)
