"""Ctrl-C while the ``evpsim`` command starts: one line and exit status 130.

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
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

__all__ = ["guard", "release", "is_command", "end_now"]


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


def release():
    """Give Ctrl-C back to Python (a ``KeyboardInterrupt``), once the command handles it."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is _interrupted):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def end_now(status):
    """End the ``evpsim`` command at once with ``status`` (in any other process, return it).

    For a command interrupted by Ctrl-C or SIGTERM, once its files are
    cleaned up: a kernel call cannot be interrupted, and the interpreter's
    exit would wait for the calls still running on other threads, for
    minutes on a long run. A command that ran worker processes (loaded
    joblib's loky) exits as usual: its own threads are idle, and loky's
    exit handlers stop the workers and release their semaphores.
    """
    if is_command() and "joblib.externals.loky" not in sys.modules:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status
