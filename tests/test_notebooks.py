"""The notebooks run top to bottom (small sizes) and are committed executed."""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

HERE = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))


def test_every_source_has_an_executed_notebook():
    sources = {p.stem for p in (HERE / "src").glob("*.py")}
    assert sources and sources == {p.stem for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code and all(c.get("execution_count") for c in code), f"{path.name} not executed"


@pytest.mark.slow  # about a minute each; CI runs them with the other slow tests
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path):
    import sys

    sys.path.insert(0, str(HERE))
    from build import execute

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    execute(nb, quick=True, cwd=tmp_path)  # raises CellExecutionError on any failing cell
