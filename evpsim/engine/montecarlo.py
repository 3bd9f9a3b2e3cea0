"""The engine kit every battery runs on: options, jobs, and one runner.

A battery validates its arguments, builds :class:`Job` objects (a numba
kernel of :mod:`evpsim._kernels` with its arrays and the first stream of
its random-stream family, :mod:`evpsim.engine.streams`) and hands them to
:func:`run` with the run's :class:`MonteCarlo` options; it gets back one
array of summed partial results per job and shapes them into a Dataset.

Determinism (Crane 2018): the replicates are split into chunks of a fixed
size whose count depends only on the replicate count. Chunk ``j`` draws
from the random stream ``(seed, stream0 + j)``, each chunk returns partial
sums, and the partial sums are added in chunk order. The result is
therefore bit-identical for any number of numba threads and for any split
of the chunks over worker processes.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from .. import _validate as check
from .._kernels.rng import Span
from .streams import MAX_CHUNKS
from .threads import map_threads, thread_count

__all__ = ["CHUNK_SIZE", "MonteCarlo", "Job", "run", "run_looks", "Progress"]

#: replicates per chunk of the batteries that do not set their own
CHUNK_SIZE = 4096


@dataclass(frozen=True)
class MonteCarlo:
    """Validated options of one Monte Carlo run.

    Parameters
    ----------
    replicates : int
        Total number of replicates (at least 2).
    seed : int
        Seed of the run, in ``0 .. 2**63 - 1``.
    chunk_size : int
        Replicates per chunk (the last chunk may be shorter); part of what
        a seed means.
    workers : int
        Worker processes (joblib); results do not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.
    """

    replicates: int
    seed: int = 0
    chunk_size: int = CHUNK_SIZE
    workers: int = 1
    progress: bool = False

    def __post_init__(self):
        replicates = check.replicates(self.replicates)
        chunk_size = check.integer(self.chunk_size, "chunk_size", minimum=1, maximum=2**31)
        object.__setattr__(self, "replicates", replicates)
        object.__setattr__(self, "seed", check.seed(self.seed))
        object.__setattr__(self, "chunk_size", chunk_size)
        object.__setattr__(self, "workers", check.integer(self.workers, "workers", minimum=1,
                                                          maximum=1024))
        object.__setattr__(self, "progress", check.boolean(self.progress, "progress"))
        if self.nchunks > MAX_CHUNKS:
            raise check.InvalidArgument(
                "replicates", f"replicates = {replicates:,} in chunks of {chunk_size:,} makes "
                              f"{self.nchunks:,} chunks, more than the {MAX_CHUNKS:,} random "
                              f"streams a run has; use fewer replicates or larger chunks")

    def with_replicates(self, replicates):
        """The same options for another number of replicates."""
        return dataclasses.replace(self, replicates=replicates, progress=False)

    @property
    def nchunks(self):
        """Number of chunks."""
        return -(-self.replicates // self.chunk_size)

    @property
    def batches(self):
        """Number of kernel calls a job makes by default (at most one worker each)."""
        return -(-self.nchunks // _batch_chunks(self))

    def spans(self, stream0, batch_chunks, first=0, stop=None):
        """The :class:`~evpsim._kernels.rng.Span` of each batch of chunks ``first`` up to
        ``stop`` (default every chunk), in order."""
        stop = self.nchunks if stop is None else stop
        for c0 in range(first, stop, batch_chunks):
            yield Span(self.seed, stream0, c0, min(batch_chunks, stop - c0),
                       self.chunk_size, self.replicates)


@dataclass(frozen=True, eq=False)
class Job:
    """One chunked kernel call: ``kernel(span, *args)`` over every chunk.

    Calling it with a span runs the kernel on the span's chunks, shared
    over the threads (:mod:`evpsim.engine.threads`).

    Parameters
    ----------
    kernel : numba dispatcher
        A chunked kernel of :mod:`evpsim._kernels`: its first argument is a
        :class:`~evpsim._kernels.rng.Span` and it returns an array whose
        first axis runs over the span's chunks.
    args : tuple
        The kernel's other arguments.
    stream0 : int
        First stream of the job's random-stream family (:mod:`evpsim.engine.streams`).
    """

    kernel: object
    args: tuple
    stream0: int = 0

    def __call__(self, span):
        kernel = _runner(self.kernel, self.args)
        parts = map_threads(lambda part: kernel(part, *self.args), span.split(thread_count()))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def __reduce__(self):
        # a worker process finds the kernel by name, compiled or loaded from
        # the cache once per process, and each user function once per process
        return _rebuild_job, (self.kernel.py_func.__module__, self.kernel.py_func.__name__,
                              tuple(_portable(a) for a in self.args), self.stream0)


def _is_dispatcher(arg):
    from numba.core.registry import CPUDispatcher

    return isinstance(arg, CPUDispatcher)


def _portable(arg):
    return _DispatcherRef.of(arg) if _is_dispatcher(arg) else arg


#: kernel -> its twin compiled without numba's cache, for users' functions
_UNCACHED = {}


def _runner(kernel, args):
    """``kernel``, or its uncached twin when an argument is a user's function.

    A cached specialisation on a user's function would pickle that function
    into the kernel's cache index, and every later process that cannot
    import the function's module would then fail to read the index, for any
    arguments.
    """
    if not any(_is_dispatcher(a) for a in args):
        return kernel
    twin = _UNCACHED.get(kernel)
    if twin is None:
        import numba

        twin = _UNCACHED[kernel] = numba.njit(**kernel.targetoptions)(kernel.py_func)
    return twin


def _rebuild_job(module, name, args, stream0):
    import importlib

    kernel = getattr(importlib.import_module(module), name)
    return Job(kernel, tuple(a.get() if isinstance(a, _DispatcherRef) else a for a in args),
               stream0)


#: a worker's user functions, compiled once per process: key -> dispatcher
_WORKER_FUNCS = {}


@dataclass(frozen=True)
class _DispatcherRef:
    """A user's numba function on its way to a worker process.

    ``key`` names the parent's dispatcher (process, object, code), so that
    a worker compiles each user function once, whatever the number of
    tasks that carry it.
    """

    key: tuple
    py_func: object
    options: dict

    @classmethod
    def of(cls, dispatcher):
        import os

        code = dispatcher.py_func.__code__
        key = (os.getpid(), id(dispatcher), dispatcher.py_func.__qualname__,
               hash((code.co_code, repr(code.co_consts))))
        return cls(key, dispatcher.py_func, dict(dispatcher.targetoptions))

    def get(self):
        found = _WORKER_FUNCS.get(self.key)
        if found is None:
            import numba

            found = _WORKER_FUNCS[self.key] = numba.njit(**self.options)(self.py_func)
        return found


class Progress:
    """Progress line on stderr, shown once a run has taken ``delay`` seconds.

    The time left is estimated from the rate of the units finished after
    the first ``warmup`` reports, whose time includes the start-up
    (compilation, worker processes) rather than the work, and from the
    units still to do: units finished before the run (``initial``, e.g. a
    resumed sweep's kept cells) count as done but not in the rate. Until
    that rate exists the line shows ``~    ? s left``.

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
    stream : file, optional
        Where to write (default ``sys.stderr``).
    initial : int
        Units already finished when the run starts.
    warmup : int
        Reports that include start-up time (e.g. one per worker process).
    clock : callable, optional
        Seconds as a float (default :func:`time.perf_counter`).
    tick : float, optional
        Redraw the line at least this often (seconds), from a thread of its
        own, even while no unit finishes (default: only when one does).
    upto : bool
        The run may stop before ``total``: the time left is an upper bound
        ("at most ~12.0 s left").

    Examples
    --------
    >>> import io
    >>> ticks = iter([0.0, 10.0, 11.0, 12.0])  # a 10 s start-up, then 1 s a unit
    >>> out = io.StringIO()
    >>> bar = Progress("run", 5, delay=0, stream=out, clock=lambda: next(ticks))
    >>> bar.update(1); bar.update(2); bar.update(3)
    >>> for line in out.getvalue().split("\\r")[1:]:
    ...     print(line.rstrip())
    run:  20.0%  (1/5)    10.0 s elapsed, ~    ? s left
    run:  40.0%  (2/5)    11.0 s elapsed, ~  3.0 s left
    run:  60.0%  (3/5)    12.0 s elapsed, ~  2.0 s left
    """

    def __init__(self, label, total, *, enabled=True, delay=1.5, stream=None, initial=0,
                 warmup=1, clock=None, tick=None, upto=False):
        self.label, self.total, self.enabled, self.delay = label, total, enabled, delay
        self.stream = stream or sys.stderr
        self.clock = clock or time.perf_counter
        self.start = self.clock()
        self.shown = False
        self.reports = 0
        self.warmup = max(1, warmup)
        self.done = initial
        self.upto = upto
        self._last, self._width = self.start, 0
        #: (time, units done) at the end of the warm-up: the rate is measured from there
        self.mark = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        if enabled and tick is not None:
            threading.Thread(target=self._redraw, args=(tick,), daemon=True).start()

    def update(self, done):
        """Report ``done`` units finished."""
        if not self.enabled:
            return
        with self._lock:
            now = self.clock()
            self.done = done
            self.reports += 1
            if self.reports == self.warmup:
                self.mark = (now, done)
            self._draw(now)

    def _redraw(self, tick):
        while not self._closed.wait(tick):
            with self._lock:
                if not self._closed.is_set():
                    self._draw(self.clock(), moved=False)

    def _draw(self, now, moved=True):
        elapsed = now - self.start
        if elapsed < self.delay and self.done < self.total:
            return
        if not self.shown and self.done >= self.total:
            return  # finished before the delay: stay quiet
        frac = self.done / self.total if self.total else 1.0
        eta = self._left(now if moved else self._last)
        if eta is not None and not moved:  # the clock ran on since the last unit
            eta = max(0.0, eta - (now - self._last))
        self._last = now if moved else self._last
        left = f"~{eta:5.1f} s left" if eta is not None else f"~{'?':>5} s left"
        text = (f"{self.label}: {100 * frac:5.1f}%  ({self.done:,}/{self.total:,})  "
                f"{elapsed:6.1f} s elapsed, {'at most ' if self.upto else ''}{left} ")
        self._width = len(text)
        self.stream.write("\r" + text)
        self.stream.flush()
        self.shown = True

    def message(self, line):
        """Write ``line`` on a line of its own, above the progress line if it is shown."""
        with self._lock:
            self.stream.write(("\r" + " " * self._width + "\r" if self.shown else "") + line
                              + "\n")
            self.stream.flush()
            self.shown = False

    def _left(self, now):
        """Seconds left at time ``now``, from the rate since the warm-up; None before
        there is one."""
        if self.mark is None:
            return None
        then, done_then = self.mark
        if self.done <= done_then or now <= then:
            return None
        return (self.total - self.done) * (now - then) / (self.done - done_then)

    def close(self):
        """End the progress line."""
        with self._lock:
            self._closed.set()
            if self.shown:
                self.stream.write("\n")
                self.stream.flush()
                self.shown = False


def _batch_chunks(options):
    # enough chunks per call to keep the threads busy, few enough for
    # a progress line every second or so on long runs
    return max(8, min(64, -(-options.nchunks // (4 * options.workers))))


def _check_picklable(job):
    """Refuse, by name, a Python estimator that cannot be sent to worker processes
    (joblib pickles the job; its own error names no estimator)."""
    from joblib.externals.loky.backend.reduction import dumps  # what the workers get

    for est in getattr(job, "estimators", ()):
        try:
            dumps(est)
        except Exception as err:
            raise not_picklable(f"estimator {est.name!r}", err) from None


def not_picklable(what, err):
    """The error of an estimator or CI method (``what``, named) that cannot be sent to
    worker processes: pickling it raised ``err``."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return check.InvalidArgument(
        "workers", f"workers: {what} cannot be sent to worker processes "
                   f"({type(err).__name__}{': ' + text if text else ''}); run it with "
                   f"workers=1, or make its function picklable (defined at module "
                   f"level, holding no lock, open file or generator)")


def _run_job(job, options, batch_chunks, report, first=0, stop=None, total=None):
    """``total`` (None: nothing) plus the job's partial results of chunks ``first`` up
    to ``stop``, added one chunk at a time in chunk order."""
    spans = options.spans(job.stream0, batch_chunks, first, stop)
    if options.workers == 1 and getattr(job, "ticks", False):
        # a Python estimator's job reports every search: it may take seconds each
        results = (job(span, tick=lambda k, s=span: report(
            min(s.chunk0 * options.chunk_size + k, options.replicates))) for span in spans)
    elif options.workers == 1:
        results = (job(span) for span in spans)
    else:
        from joblib import Parallel, delayed

        _check_picklable(job)
        results = Parallel(n_jobs=options.workers, return_as="generator")(
            delayed(job)(span) for span in spans)
    for span, part in zip(options.spans(job.stream0, batch_chunks, first, stop), results):
        for c in range(span.nchunks):
            total = part[c].copy() if total is None else total + part[c]
        report(min((span.chunk0 + span.nchunks) * options.chunk_size, options.replicates))
    return total


def run_looks(jobs, options, looks, decide, *, bar=None, batch_chunks=None):
    """Run every job up to each look in turn, until ``decide`` stops the run.

    The jobs run side by side, a segment of chunks between two looks at a
    time, so that at every look each job's sum covers the same
    replicates. The sums are added a chunk at a time in chunk order, so
    the result at a look is bit-identical to that of :func:`run` for that
    many replicates, whatever the threads, workers and batches; where the
    run stops depends only on the looks and on those sums.

    Parameters
    ----------
    jobs : sequence of Job
        The kernel calls of one battery run.
    options : MonteCarlo
        Replicates (the most the run may do), seed, chunk size, workers and
        progress.
    looks : sequence of int
        Replicate counts at which ``decide`` is asked, ascending, each a
        multiple of the chunk size below ``options.replicates``; the run
        ends at ``options.replicates`` in any case.
    decide : callable
        ``decide(sums, replicates)``, with each job's sums over the first
        ``replicates``: True stops the run there.
    bar : Progress, optional
        The progress line, in units of one job's replicate (default one
        labelled ``coverage`` if ``options.progress``).
    batch_chunks : int, optional
        Chunks per kernel call (default as :func:`run`'s; never across a
        look).

    Returns
    -------
    (list of ndarray, int)
        Each job's sum over the replicates run, and their number.
    """
    size = options.chunk_size
    cuts = [m // size for m in looks if 0 < m < options.replicates]
    if any(m % size for m in looks) or cuts != sorted(set(cuts)):
        raise check.InvalidArgument("looks", f"looks must ascend in multiples of the chunk "
                                             f"size {size}, got {list(looks)}")
    batch_chunks = batch_chunks or _batch_chunks(options)
    bar = bar or Progress("coverage", options.replicates * len(jobs), enabled=options.progress)
    sums = [None] * len(jobs)
    first, done = 0, 0
    try:
        for stop in [*cuts, options.nchunks]:
            for j, job in enumerate(jobs):
                base = done * len(jobs) + j * (min(stop * size, options.replicates) - done)
                sums[j] = _run_job(job, options, batch_chunks,
                                   lambda m, b=base, d=done: bar.update(b + m - d), first, stop,
                                   sums[j])
            first, done = stop, min(stop * size, options.replicates)
            if stop < options.nchunks and decide(sums, done):
                break
    finally:
        bar.close()
    return sums, done


def run(jobs, options, label, *, batch_chunks=None):
    """Run every job over all chunks; their partial sums, added in chunk order.

    Parameters
    ----------
    jobs : sequence of Job
        The kernel calls of one battery run.
    options : MonteCarlo
        Replicates, seed, chunk size, workers and progress.
    label : str
        What runs, for the progress line.
    batch_chunks : int, optional
        Chunks per kernel call (memory and progress granularity only: the
        result does not depend on it).

    Returns
    -------
    list of ndarray
        For each job, the sum over chunks of its kernel's partial results.
    """
    batch_chunks = batch_chunks or _batch_chunks(options)
    bar = Progress(label, options.replicates * len(jobs), enabled=options.progress)
    out = []
    try:
        for j, job in enumerate(jobs):
            offset = j * options.replicates
            out.append(_run_job(job, options, batch_chunks,
                                lambda done, o=offset: bar.update(o + done)))
    finally:
        bar.close()
    return out
