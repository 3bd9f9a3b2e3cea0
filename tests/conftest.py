"""Shared test fixtures: where the real search results live."""

import os
from pathlib import Path

import pytest

#: ../shared/data beside the repository (override with EVPSIM_SHARED_DATA)
DATA = Path(os.environ.get("EVPSIM_SHARED_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir():
    if not DATA.is_dir():
        pytest.skip(f"real search results not found at {DATA}")
    return DATA


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
