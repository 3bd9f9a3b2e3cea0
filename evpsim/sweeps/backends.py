"""Where a sweep's cells run: in this process, in local worker processes
(joblib), or on a dask.distributed cluster (joblib's dask backend).

Every backend hands each finished cell back to this process, which keeps it
in the checkpoint store at once. Worker processes live for the whole sweep,
so each loads the compiled kernels (numba's on-disk cache) once, not once
per cell, and runs its cells on one numba thread: the workers, not the
threads, share the machine. Results do not depend on the backend: a cell's
streams come from its seed alone.
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import _validate as check

__all__ = ["BACKENDS", "run_cells"]

BACKENDS = ("process", "joblib", "dask")


def compute_cell(battery, identity, options, seed, threads=None):
    """One cell's Dataset, on ``threads`` numba threads (default: all)."""
    if threads is not None:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return battery.call(identity, options, seed)


@contextmanager
def _dask_client(scheduler, workers):
    """A client of the cluster at ``scheduler``, or of a local cluster of
    ``workers`` single-threaded worker processes."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise check.InvalidArgument(
            "scheduler", "the dask backend needs dask.distributed: pip install "
                         "'evpsim-toolkit[dask]'") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as err:
            raise check.InvalidArgument("scheduler", f"scheduler {scheduler!r}: cannot "
                                                     f"connect ({err})") from None
        with client:
            yield client
    else:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
            yield client


def run_cells(cells, work, done, *, backend="process", workers=1, scheduler=None):
    """Run ``work(cell, threads)`` for every cell; call ``done(cell, result)``
    here, as each finishes.

    Parameters
    ----------
    cells : list
        The cells still to run.
    work : callable
        ``work(cell, threads) -> Dataset``; picklable for the process and
        dask backends.
    done : callable
        Called in this process with each cell and its result, in the order
        they finish.
    backend : {"process", "joblib", "dask"}
        In this process; ``workers`` local processes through joblib; a dask
        cluster through joblib's dask backend.
    workers : int
        Local worker processes (joblib), or workers of the local dask
        cluster when no ``scheduler`` is given.
    scheduler : str, optional
        Address of a running dask scheduler (``tcp://host:8786``).
    """
    if backend not in BACKENDS:
        raise check.InvalidArgument("backend", f"unknown backend {backend!r}; known: "
                                               f"{', '.join(BACKENDS)}")
    workers = check.integer(workers, "workers", minimum=1)
    if backend == "process":
        for cell in cells:
            done(cell, work(cell, None))
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = [delayed(_tagged)(work, cell) for cell in cells]
    if backend == "joblib":
        for cell, result in Parallel(n_jobs=workers, backend="loky",
                                     return_as="generator_unordered")(tasks):
            done(cell, result)
        return
    with _dask_client(scheduler, workers) as client:
        n_jobs = max(1, sum(w["nthreads"] for w in client.scheduler_info()["workers"].values()))
        with parallel_config(backend="dask"):
            for cell, result in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks):
                done(cell, result)


def _tagged(work, cell):
    """``(cell, work(cell, 1))``: results come back in the order cells finish."""
    return cell, work(cell, 1)
