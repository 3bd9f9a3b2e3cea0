"""The wheel works anywhere: built, installed in a fresh virtual environment in
an empty folder far from the repository (no ``../shared`` beside it, no
``EVPSIM_DATA``), and every kind of command a new user runs first.

Slow (it installs the dependencies into a new environment and compiles the
kernels cold): CI runs it with the other slow tests.
"""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
#: commands run in the empty folder, in order (later ones use earlier files), each with
#: a line its output must contain
COMMANDS = [
    ("evpsim", "example:"),
    ("evpsim bias --dist normal --B 30", "Monte Carlo vs exact: largest"),
    ("evpsim list", "mnli-deberta-v3-base"),
    ("evpsim fit-kde data:reuters-lstm --name my-lstm --construction centered --bounds 0,1 "
     "--out my-lstm.nc", "wrote my-lstm.nc"),
    ("evpsim bias --dist kde:my-lstm.nc --B 20 --method exact", "truth: centered KDE"),
    ("evpsim curve data:reuters-mlp data:reuters-lstm --labels MLP,LSTM --bounds 0,1 "
     "--target 0.8 --plot curves.png", "wrote curves.png"),
    ("evpsim reproduce dodge2019 --quick --out repro-dodge2019", "summary.md"),
    ("evpsim reproduce dodge2021 --quick --out repro-dodge2021", "summary.md"),
    ("evpsim reproduce tang2020 --quick --out repro-tang2020", "summary.md"),
]
NOTEBOOK_RUNNER = """
import sys
import nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=1800, kernel_name="python3").execute()
    print("ran", path)
"""


def _run(args, cwd, env, timeout=1800):
    res = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert res.returncode == 0, f"{' '.join(map(str, args))} exited {res.returncode}:\n" \
                                f"{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res.stdout + res.stderr


@pytest.mark.slow
def test_wheel_installs_and_runs_far_from_the_repository(tmp_path):
    pytest.importorskip("build")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("EVPSIM_", "PYTHON", "VIRTUAL_ENV", "NUMBA_CACHE"))}
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], tmp_path, env)
    wheel = next(dist.glob("evpsim_toolkit-*.whl"))
    assert next(dist.glob("evpsim_toolkit-*.tar.gz"))

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    _run([python, "-m", "pip", "install", "--quiet", str(wheel), "nbclient", "nbformat",
          "ipykernel"], tmp_path, env)

    work = tmp_path / "empty"
    work.mkdir()
    # the installed package is the wheel's, not the checkout's, and sees no shared/ data
    where = _run([python, "-c", "import evpsim, pathlib; print(pathlib.Path(evpsim.__file__)"
                                ".resolve().parent)"], work, env).strip()
    assert Path(where).is_relative_to(env_dir), where
    assert not any((p / "shared").exists() for p in Path(where).parents)

    for command, expected in COMMANDS:
        args = command.split()
        out = _run([bin_dir / args[0], *args[1:]], work, env)
        assert expected in out, f"{command}:\n{out[-3000:]}"
    for paper in ("dodge2019", "dodge2021", "tang2020"):
        text = (work / f"repro-{paper}" / "summary.md").read_text()
        assert "reduced sizes" in text
    assert (work / "curves.png").stat().st_size > 0

    copies = []
    for path in NOTEBOOKS:
        shutil.copy(path, work / path.name)
        copies.append(path.name)
    env["EVPSIM_QUICK"] = "1"
    out = _run([python, "-c", NOTEBOOK_RUNNER, *copies], work, env)
    assert out.count("ran ") == len(NOTEBOOKS)
