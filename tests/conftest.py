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
