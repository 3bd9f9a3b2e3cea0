"""The threads that run numba kernels: numba's thread count, one pool per process.

Kernels are compiled serial, with ``nogil=True``, and run side by side on
Python threads: compiling a ``parallel=True`` kernel took twice as long and
loading one started numba's threading layer, while the work splits into
pieces (chunks of replicates, blocks of resamples) as easily in Python.
Each piece's result depends only on the piece, so results do not depend on
the thread count. The count is numba's, so ``NUMBA_NUM_THREADS`` and
:func:`numba.set_num_threads` set it as before.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["thread_count", "map_threads", "ranges", "shutdown"]

_LOCK = threading.Lock()
_POOL = {"pool": None, "pid": None}


def thread_count():
    """Threads a kernel call may use: :func:`numba.get_num_threads`."""
    import numba

    return int(numba.get_num_threads())


def _pool():
    import numba

    with _LOCK:
        if _POOL["pool"] is None or _POOL["pid"] != os.getpid():
            # a pool inherited through fork has no threads: start a new one
            _POOL.update(pool=ThreadPoolExecutor(numba.config.NUMBA_NUM_THREADS,
                                                 thread_name_prefix="evpsim"),
                         pid=os.getpid())
        return _POOL["pool"]


def shutdown():
    """End the pool's threads once they are idle, dropping work not yet started.

    The ``evpsim`` command calls it on its way out. A Ctrl-C that lands while
    the pool starts a thread can leave that thread unknown to the exit hook
    of ``concurrent.futures``, which then never wakes it, and the
    interpreter would wait for it for ever; shutting the pool down wakes
    every thread of its queue. A later :func:`map_threads` starts a new pool.
    """
    with _LOCK:
        pool, pid = _POOL["pool"], _POOL["pid"]
        _POOL.update(pool=None, pid=None)
    if pool is not None and pid == os.getpid():
        pool.shutdown(wait=False, cancel_futures=True)


def _run_group(func, group, stop=None):
    results = []
    for item in group:
        if stop is not None and stop.is_set():  # the caller was interrupted: drop the rest
            return results
        results.append(func(item))
    return results


def map_threads(func, items):
    """``[func(item) for item in items]``, the items shared over the threads.

    Parameters
    ----------
    func : callable
        Typically a kernel call; it must release the GIL to run in parallel.
    items : iterable
        Its arguments.

    Returns
    -------
    list
        The results, in the order of ``items``.
    """
    items = list(items)
    size = min(thread_count(), len(items))
    main = threading.current_thread() is threading.main_thread()
    if not items or threading.current_thread().name.startswith("evpsim") or \
            (size <= 1 and not main):
        return _run_group(func, items)
    # one contiguous group of items per thread; the main thread waits, so that Ctrl-C
    # or SIGTERM is heard at once, not when a kernel call returns
    size = max(size, 1)
    n = len(items)
    groups = [items[n * g // size:n * (g + 1) // size] for g in range(size)]
    stop = threading.Event()
    futures = [_pool().submit(_run_group, func, group, stop) for group in groups]
    try:
        return [result for future in futures for result in future.result()]
    except BaseException:
        stop.set()  # the running calls end as they will; no group starts another
        for future in futures:
            future.cancel()
        raise


def ranges(n):
    """``0..n - 1`` cut into one contiguous ``(start, stop)`` range per thread."""
    parts = max(1, min(thread_count(), n))
    return [(n * p // parts, n * (p + 1) // parts) for p in range(parts)]
