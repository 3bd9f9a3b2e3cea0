"""Shared test fixtures: where the real search results live."""

import os
import signal
from pathlib import Path

import pytest

#: the environment variable naming the folder of real search results
DATA_ENV = "EVPSIM_SHARED_DATA"
#: ../shared/data beside the repository, unless $EVPSIM_SHARED_DATA names another folder
DATA = Path(os.environ.get(DATA_ENV, Path(__file__).resolve().parents[2] / "shared" / "data"))
#: why a test that needs them is skipped, in one line: where they were looked for, and how
#: to provide them
DATA_MISSING = (f"real search results not found at {DATA}: put the project's shared/data "
                f"folder there, or set {DATA_ENV} to the folder holding it")
#: the mark of a test that needs them
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=DATA_MISSING)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Run the tests on one worker process per core (pytest-xdist, of the ``test`` extra).

    Only when the command names no ``-n``: ``-n 0`` runs them in this process, as does
    ``-p no:xdist`` or an environment without pytest-xdist. Each worker takes whole files
    (``--dist loadfile``) and runs a file's tests in their order: a page's commands read
    the files its earlier commands wrote, and what a file's tests share (a built store,
    a wheel, the site) is built once. A default set here rather than in ``addopts``
    leaves ``-p no:xdist`` usable. It runs before xdist's own hook, which turns ``auto``
    into the number of cores.
    """
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "loadfile"


def pytest_configure(config):
    """Start from the signal dispositions a terminal gives a program.

    A run started in the background of a non-interactive shell ignores SIGINT, and
    every command the tests start would inherit that: the tests that send Ctrl-C or
    SIGTERM to a command would find it deaf, testing the harness, not evpsim.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture(scope="session")
def data_dir():
    if not DATA.is_dir():
        pytest.skip(DATA_MISSING)
    return DATA


@pytest.fixture
def tiny_intervals(monkeypatch):
    """``reproduce intervals --quick`` at the smallest sizes that run every step (the
    normal truth, B = 12, 10 searches a cell): for tests of how the command runs, where
    its numbers are not checked (tests/test_interval_study.py checks the quick run's)."""
    from evpsim.reproduce import intervals

    monkeypatch.setitem(intervals.QUICK, "truths", ("normal",))
    monkeypatch.setitem(intervals.QUICK, "Bs", (12,))
    monkeypatch.setitem(intervals.SIZES, True, dict(samples=10, resamples=20, width_samples=2,
                                                    oracle_samples=200))


def outputs_by_thread_count(script, counts=("1", "2")):
    """Run ``python -c script`` once per NUMBA_NUM_THREADS value; the set of stdouts.

    A deterministic battery prints the same digest of its results for every
    thread count, so the set has one element.
    """
    import subprocess
    import sys

    out = set()
    for threads in counts:
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True)
        out.add(res.stdout.strip())
    return out

