"""The notebooks run top to bottom (small sizes) and are committed executed; building them
writes elsewhere than the committed notebooks."""

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

HERE = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))
sys.path.insert(0, str(HERE))
import build  # noqa: E402  (notebooks/build.py, not a package)


def test_every_source_has_an_executed_notebook():
    sources = {p.stem for p in (HERE / "src").glob("*.py")}
    assert sources and sources == {p.stem for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code and all(c.get("execution_count") for c in code), f"{path.name} not executed"


def test_build_writes_into_its_output_folder_never_over_the_committed_notebooks(
        tmp_path, monkeypatch, capsys):
    ran_in = []
    monkeypatch.setattr(build, "execute", lambda nb, quick, cwd: ran_in.append(cwd) or nb)
    committed = {p: p.read_bytes() for p in NOTEBOOKS}
    build.main(["leaderboard", "--quick", "--out", str(tmp_path / "nb")])
    written = tmp_path / "nb" / "leaderboard.ipynb"
    assert ran_in == [written.parent] and f"built {written}" in capsys.readouterr().err
    assert [c.cell_type for c in nbformat.read(written, as_version=4).cells][:1] == ["markdown"]
    assert {p: p.read_bytes() for p in NOTEBOOKS} == committed
    assert build.BUILD == HERE / "_build"   # the default, ignored by git
    for out in (str(HERE), str(HERE / "src" / "..")):
        with pytest.raises(SystemExit, match="folder of the committed notebooks"):
            build.main(["--out", out])
    with pytest.raises(SystemExit):
        build.main(["nope", "--out", str(tmp_path)])
    assert "no source notebooks/src/nope.py; choose from" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.ipynb"))


@pytest.mark.slow  # about a minute each; CI runs them with the other slow tests
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    build.execute(nb, quick=True, cwd=tmp_path)  # raises CellExecutionError on a failing cell
