"""Where a sweep's cells run: in this process, in local worker processes, or
on a dask.distributed cluster.

Every backend hands each finished cell back to this process, which keeps it
in the checkpoint store at once. Worker processes live for the whole sweep,
so each loads the compiled kernels (numba's on-disk cache) once, not once
per cell, and runs its cells on one numba thread: the workers, not the
threads, share the machine. Results do not depend on the backend: a cell's
streams come from its seed alone.

SIGINT and SIGTERM stop a sweep wherever it is (:class:`Signals`): this
process waits for the workers' cells in a loop of its own, which polls them
and the signals, and stops the workers on the way out (local ones killed,
a cluster's cells dropped).
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

from ... import _validate as check

__all__ = ["BACKENDS", "check_backend", "open_backend", "Runner", "Signals", "compute_cell"]

BACKENDS = ("process", "local", "dask")
#: seconds between two looks at the workers' cells and at the signals
POLL = 0.05
#: seconds to wait for a dask scheduler to answer, and for its first worker
CONNECT_TIMEOUT = 10
#: thread counts of the numerical libraries in local worker processes: one, as numba's
SINGLE_THREADED = {var: "1" for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                        "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                                        "NUMEXPR_NUM_THREADS")}


def compute_cell(battery, identity, options, seed, threads=None):
    """One cell's Dataset, on ``threads`` numba threads (default: all)."""
    if threads is not None:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return battery.call(identity, options, seed)


class Signals:
    """SIGINT and SIGTERM stop the sweep, even where their exception is lost.

    Python runs a signal's handler in the main thread between two
    bytecodes, wherever they are: also inside a weakref callback or a
    ``__del__`` method, where the exception the handler raises is printed
    ("Exception ignored in ...") and dropped. Inside this context each
    handler notes its signal before calling the program's own (which
    raises ``KeyboardInterrupt``, or the command line's ``Terminated``),
    and :meth:`check`, called between cells and while waiting for them,
    calls the handler again. Once a signal has come, exceptions lost that
    way are not printed: the signal's own, and the complaints of objects
    it interrupted half made (their finalizers run on the way out). Inside
    :meth:`held` (a cell being saved) the handler waits for its end. A
    signal whose handling is not a Python function (SIGTERM's default: the
    process ends) is left alone, and so is every signal outside the main
    thread.
    """

    def __enter__(self):
        self.caught = None
        self.stopped = False
        self.holding = False
        self.previous = {}
        self.unraisable = sys.unraisablehook
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                handler = signal.getsignal(signum)
                if callable(handler):
                    self.previous[signum] = handler
                    signal.signal(signum, self._note)
            sys.unraisablehook = self._lost
        return self

    def _note(self, signum, frame):
        self.caught = signum
        self.stopped = True
        if not self.holding:
            self.previous[signum](signum, frame)

    @contextmanager
    def held(self):
        """A block that a signal does not interrupt: its exception comes at the end."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        self.check()

    def _lost(self, unraisable):
        # once a signal came, a lost exception is its own (raised again by check()) or
        # the complaint of an object it interrupted; before, it is shown as usual
        if not self.stopped:
            self.unraisable(unraisable)

    def check(self):
        """Raise the exception of a signal whose first one was lost."""
        if self.caught is not None:
            signum, self.caught = self.caught, None
            self.previous[signum](signum, None)

    def __exit__(self, kind, error, trace):
        if self.stopped and error is not None and not isinstance(error, Exception):
            # the frames the signal interrupted hold objects it left half made (a file
            # being opened), whose finalizers would complain later: they go now, unheard
            error.__traceback__ = trace = None  # noqa: F841 (the local reference goes too)
            gc.collect()
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        sys.unraisablehook = self.unraisable
        return False


def _distributed():
    """The dask.distributed module, or an error saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise check.InvalidArgument(
            "scheduler", "the dask backend needs dask.distributed: pip install "
                         "'evpsim-toolkit[dask]'") from None
    return distributed


def _address(scheduler):
    """A dask scheduler's address, checked for its form (without connecting)."""
    remedy = "give the address of a running dask scheduler, e.g. tcp://HOST:8786"
    if not isinstance(scheduler, str):
        raise check.InvalidType("scheduler", f"scheduler must be an address such as "
                                             f"tcp://HOST:8786, got {scheduler!r}")
    if not scheduler.strip():
        raise check.InvalidArgument("scheduler", f"scheduler is empty: {remedy}")
    from distributed.comm.addressing import get_address_host_port

    try:
        host, port = get_address_host_port(scheduler.strip())
    except ValueError as err:
        reason = str(err)
    else:
        reason = "no host" if not host else None if 0 < port < 65536 else \
            f"port {port} is not in 1..65535"
    if reason:
        raise check.InvalidArgument("scheduler", f"scheduler {scheduler!r} is not a scheduler "
                                                 f"address ({reason}); {remedy}")
    return scheduler.strip()


def check_backend(backend, workers, scheduler):
    """Check where the cells are to run, before anything starts.

    Returns
    -------
    tuple
        ``(backend, workers, scheduler)``, validated.
    """
    if backend not in BACKENDS:
        raise check.InvalidArgument("backend", f"unknown backend {backend!r}; known: "
                                               f"{', '.join(BACKENDS)}")
    workers = check.integer(workers, "workers", minimum=1, maximum=1024)
    if backend == "dask":
        _distributed()
    if scheduler is not None:
        if backend != "dask":
            raise check.InvalidArgument("scheduler", f"a scheduler is for the dask backend, "
                                                     f"not {backend!r}")
        scheduler = _address(scheduler)
    return backend, workers, scheduler


class _InProcess:
    """Cells computed in this process, on every numba thread."""

    workers = slots = 1

    def __init__(self):
        self.queued = []

    def start(self, work, cell):
        self.queued.append((work, cell))

    def collect(self):
        work, cell = self.queued.pop(0)
        return [(cell, work(cell, None))]


class _LocalWorkers:
    """Worker processes of this machine, each computing the cells it reads
    from a queue on one numba thread (and one thread of BLAS and OpenMP).

    They start with ``spawn`` (no copy of this process's threads), ignore
    Ctrl-C (the sweep stops them), and die with this process.
    """

    def __init__(self, workers):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.workers = self.slots = workers
        self.tasks, self.results = context.Queue(), context.Queue()
        self.processes = [context.Process(target=_serve, args=(self.tasks, self.results),
                                          name=f"evpsim-sweep-{i}", daemon=True)
                          for i in range(workers)]
        with _environment(SINGLE_THREADED):  # what a spawned process starts with
            for process in self.processes:
                process.start()

    def start(self, work, cell):
        self.tasks.put((work, cell))

    def collect(self):
        import queue

        try:
            cell, result, error = self.results.get(timeout=POLL)
        except queue.Empty:
            dead = [p for p in self.processes if not p.is_alive()]
            if dead:
                raise ChildProcessError(f"a sweep worker process ended unexpectedly (exit "
                                        f"status {dead[0].exitcode}); run the sweep again to "
                                        f"compute the missing cells")
            return []
        if error is not None:
            raise error
        return [(cell, result)]

    def stop(self, at_once):
        """End the workers: at once (killed), or once they have read every cell."""
        if at_once:
            for process in self.processes:
                process.kill()
        else:
            for _ in self.processes:
                self.tasks.put(None)
        for process in self.processes:
            process.join()
        self.tasks.cancel_join_thread()  # cells never read are dropped


class _DaskWorkers:
    """The workers of a dask cluster, through a client."""

    def __init__(self, client):
        threads = [w["nthreads"] for w in client.scheduler_info()["workers"].values()]
        self.client, self.workers, self.slots = client, len(threads), sum(threads)
        self.running = {}

    def start(self, work, cell):
        self.running[self.client.submit(work, cell, 1, pure=False)] = cell

    def collect(self):
        finished = [future for future in self.running if future.done()]
        if not finished:
            time.sleep(POLL)
        return [(self.running.pop(future), future.result()) for future in finished]


class Runner:
    """Started workers (or this process) that run a sweep's cells.

    Attributes
    ----------
    workers : int
        Worker processes (1: this process).
    slots : int
        Cells that run at once.
    """

    def __init__(self, workers):
        self._workers = workers
        self.workers, self.slots = workers.workers, workers.slots

    def run(self, cells, work, done, signals):
        """Run ``work(cell, threads)`` for every cell; call ``done(cell, result)``
        here, as each finishes.

        At most :attr:`slots` cells are handed out at a time, the next as
        one finishes, so that the cells start in order and a stopped sweep
        leaves no queue of cells behind.

        Parameters
        ----------
        cells : list
            The cells still to run, in the order to start them.
        work : callable
            ``work(cell, threads) -> Dataset``, numba threads ``None`` for
            all; picklable for worker processes.
        done : callable
            Called in this process with each cell and its result, in the
            order they finish.
        signals : Signals
            Checked between cells and while waiting for them.
        """
        waiting = iter(cells)
        running = 0
        for cell in itertools.islice(waiting, self.slots):
            self._workers.start(work, cell)
            running += 1
        while running:
            signals.check()
            for cell, result in self._workers.collect():
                running -= 1
                done(cell, result)
                for following in itertools.islice(waiting, 1):
                    self._workers.start(work, following)
                    running += 1


def _serve(tasks, results):
    """A local worker process: computes the cells read from ``tasks`` until None."""
    import pickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for work, cell in iter(tasks.get, None):
        try:
            results.put((cell, work(cell, 1), None))
        except Exception as err:
            try:  # the error goes back to the sweep as it is, if it can be
                pickle.loads(pickle.dumps(err))
            except Exception:
                err = RuntimeError(f"{type(err).__name__}: {err}")
            results.put((cell, None, err))


@contextmanager
def _environment(values):
    """``os.environ`` with ``values`` set, for the processes started inside."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value


@contextmanager
def open_backend(backend, workers, scheduler):
    """Start the workers of a checked backend (:func:`check_backend`).

    Yields
    ------
    Runner
        In this process, on ``workers`` local worker processes, or on a
        dask cluster: the one at ``scheduler``, else a local one of
        ``workers`` single-threaded workers. Leaving the context stops the
        workers this started; on an error or a signal, at once.
    """
    if backend == "process":
        yield Runner(_InProcess())
    elif backend == "local":
        pool = _LocalWorkers(workers)
        try:
            yield Runner(pool)
        except BaseException:
            pool.stop(at_once=True)
            raise
        pool.stop(at_once=False)
    else:
        with _dask_client(scheduler, workers) as client:
            yield Runner(_DaskWorkers(client))


@contextmanager
def _dask_client(scheduler, workers):
    """A client of the cluster at ``scheduler`` (once it has a worker), or of
    a local cluster of ``workers`` single-threaded worker processes; closing
    the client drops its cells still on the cluster."""
    from distributed import Client, LocalCluster

    if scheduler is None:
        # the workers' log (cells dropped, heartbeats lost when a signal stops the sweep)
        # is not for the user: a cell's error comes back with the cell
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address="127.0.0.1:0",
                          silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s")
    except OSError as err:
        raise check.InvalidArgument(
            "scheduler", f"scheduler {scheduler!r}: cannot connect ({err}); is a dask "
                         f"scheduler running there ('dask scheduler' starts one)?") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise check.InvalidArgument(
                "scheduler", f"scheduler {scheduler!r} has no workers after "
                             f"{CONNECT_TIMEOUT} s; start some with 'dask worker "
                             f"{scheduler} --nthreads 1'") from None
        yield client
