"""What the ``evpsim`` command says and does before its work starts.

Ctrl-C while the command starts: one line and exit status 130.

``import evpsim`` takes about a second (numpy, numba, xarray), and the
command's own handling of Ctrl-C (:func:`evpsim.cli.main`) starts only
after it. :func:`guard` runs first thing in ``evpsim/__init__.py``: when
this process is the ``evpsim`` command (the console script, or ``python -m
evpsim``), Ctrl-C until :func:`release` prints ``evpsim: interrupted`` and
exits with status 130 instead of a traceback of the import. A program that
imports evpsim is left alone. Standard library only: nothing heavy may run
before it.

The process ends at once (``os._exit``): an exception raised inside an
import can be caught and turned into another by an extension module's
initialisation (numpy's reports an ``ImportError`` with the traceback), and
nothing has been written yet that would need cleaning up.

The first run after an install compiles the numba kernels it needs, which
takes longer than the run itself: :func:`compile_notice` says so at once,
only while numba's cache holds none of them (:func:`kernels_cached`), and
then, while they compile, which one every few seconds.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

__all__ = ["guard", "guarding", "release", "is_command", "end_now", "kernels_cached",
           "compile_notice"]

#: measured with an empty NUMBA_CACHE_DIR on 2 cores shared with other work (load
#: average 15-18): the main job (bias, normal, B = 30) 41 s against 10.7 s once cached,
#: curve on the Reuters MLP 130 s against 9.8 s; 15-19 s for the main job on idle cores
COMPILE_NOTICE = ("evpsim: compiling the numba kernels for their first use (once per "
                  "install; later runs load them from numba's cache): 15-40 s for most "
                  "commands on 2 cores, about 2 minutes for curve's intervals, longer on a "
                  "busy machine")


def is_command():
    """True when this process is the ``evpsim`` command."""
    argv = getattr(sys, "orig_argv", [])
    return Path(sys.argv[0]).name == "evpsim" or argv[1:3] == ["-m", "evpsim"]


def _interrupted(signum, frame):
    sys.stderr.write("evpsim: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def guard():
    """Quiet Ctrl-C while the command imports (nothing in any other process)."""
    if (is_command() and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        signal.signal(signal.SIGINT, _interrupted)


def guarding():
    """True while :func:`guard` holds Ctrl-C: a ``KeyboardInterrupt`` raised meanwhile
    is raised by code, not by the user (whose Ctrl-C ends the command at once)."""
    return signal.getsignal(signal.SIGINT) is _interrupted


def release():
    """Give Ctrl-C back to Python (a ``KeyboardInterrupt``), once the command handles it."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is _interrupted):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def kernels_cached():
    """True when numba's cache holds an index of some kernel of ``evpsim._kernels`` no
    older than its source (numba's own staleness test compares the source's time
    stamp; an index older than the source is stale).

    Looks where numba would (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
    source, else the user-wide cache) without compiling anything; True when it
    cannot tell, so that no notice is printed in vain.
    """
    try:
        from numba.core.caching import CacheImpl

        def probe():
            """A stand-in function: the locators read its first line number only."""

        for source in sorted((Path(__file__).parent / "_kernels").glob("*.py")):
            for cls in CacheImpl._locator_classes:
                locator = cls.from_function(probe, str(source))
                if locator is not None:
                    break
            else:
                continue
            stamp = source.stat().st_mtime
            if any(index.stat().st_mtime >= stamp for index in
                   Path(locator.get_cache_path()).glob(f"{source.stem}.*.nbi")):
                return True
        return False
    except Exception:  # a numba without these internals: say nothing
        return True


#: seconds between two lines saying which kernel is compiling
COMPILE_TICK = 10.0


def compile_notice():
    """Print :data:`COMPILE_NOTICE` to standard error when no kernel is cached yet, then,
    while kernels compile, a line every :data:`COMPILE_TICK` seconds saying how many and
    which one (:class:`_Compiling`)."""
    if not kernels_cached():
        print(COMPILE_NOTICE, file=sys.stderr, flush=True)
        _Compiling().start()


class _Compiling:
    """Listens to numba's compilations (its ``numba:compile`` events, which fire only
    when a kernel is not in the cache) and, from a thread of its own, says every
    :data:`COMPILE_TICK` seconds while one runs how many have compiled and which one is
    compiling: the first run of a command is otherwise silent for minutes."""

    def __init__(self):
        import time

        self.clock = time.monotonic
        self.started = self.clock()
        self.lock = threading.Lock()
        self.done, self.running = 0, []  # kernels compiled, names of those compiling

    def start(self):
        from numba.core import event

        listener = self

        class Listener(event.Listener):
            def on_start(self, ev):
                with listener.lock:
                    listener.running.append(ev.data["dispatcher"].py_func.__name__)

            def on_end(self, ev):
                with listener.lock:
                    name = ev.data["dispatcher"].py_func.__name__
                    if name in listener.running:
                        listener.running.remove(name)
                    listener.done += 1

        event.register("numba:compile", Listener())
        threading.Thread(target=self._say, daemon=True, name="evpsim-compiling").start()

    def _say(self):
        import time

        while True:
            time.sleep(COMPILE_TICK)
            with self.lock:
                if not self.running:
                    continue
                line = (f"evpsim: compiling {self.running[0]} ({self.done} kernel"
                        f"{'' if self.done == 1 else 's'} compiled, "
                        f"{self.clock() - self.started:.0f} s so far)")
            print(line, file=sys.stderr, flush=True)


def end_now(status):
    """End the ``evpsim`` command at once with ``status`` (in any other process, return it).

    For a command interrupted by Ctrl-C or SIGTERM, once its files are
    cleaned up: a kernel call cannot be interrupted, and the interpreter's
    exit would wait for the calls still running on other threads, for
    minutes on a long run. A command that ran worker processes (loaded
    joblib's loky, or made semaphores that multiprocessing's resource
    tracker watches, as a sweep's queues do) exits as usual: its own threads
    are idle, and the exit handlers stop the workers and release their
    semaphores, which the tracker would otherwise report as leaked.
    """
    workers = {"joblib.externals.loky", "multiprocessing.resource_tracker"}
    if is_command() and not workers.intersection(sys.modules):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status
