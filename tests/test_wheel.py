"""The wheel works anywhere: built, installed in a fresh virtual environment in
an empty folder far from the repository (no ``../shared`` beside it, no
``EVPSIM_DATA``), and every kind of command a new user runs first.

A plugin package, built as a wheel and installed beside evpsim's, adds its
estimator and CI method to the commands, and a broken one is one warning
line (:mod:`evpsim.plugins`).

Slow (they install the dependencies into new environments and compile the
kernels cold): CI runs them with the other slow tests. evpsim's wheel is
built once for both.
"""

import os
import shutil
import subprocess
import sys
import textwrap
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


def _clean_env():
    """This process's environment without what points at the checkout or its settings."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("EVPSIM_", "PYTHON", "VIRTUAL_ENV", "NUMBA_CACHE"))}


def _venv(env_dir, env):
    """A fresh virtual environment in ``env_dir``; its scripts folder, put first on
    ``env``'s PATH."""
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return bin_dir


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """evpsim's wheel, built (with its sdist) once for the tests of this module."""
    pytest.importorskip("build")
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], dist, _clean_env())
    assert next(dist.glob("evpsim_toolkit-*.tar.gz"))
    return next(dist.glob("evpsim_toolkit-*.whl"))


@pytest.mark.slow
def test_wheel_installs_and_runs_far_from_the_repository(tmp_path, wheel):
    env = _clean_env()
    env_dir = tmp_path / "venv"
    bin_dir = _venv(env_dir, env)
    python = bin_dir / "python"
    env["MPLBACKEND"] = "Agg"
    # the notebooks' kernel, and opda as the notebooks extra brings it (estimators_beyond_B)
    _run([python, "-m", "pip", "install", "--quiet", str(wheel), "nbclient", "nbformat",
          "ipykernel", "opda>=0.8"], tmp_path, env)

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


#: a plugin package (pyproject.toml and its module): a Python estimator and a CI method
PLUGIN = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "evpsim-plugin-demo"
        version = "0.1"
        dependencies = ["numpy"]

        [tool.setuptools]
        py-modules = ["evpsim_plugin_demo"]

        [project.entry-points."evpsim.estimators"]
        demo = "evpsim_plugin_demo:estimators"

        [project.entry-points."evpsim.ci_methods"]
        demo = "evpsim_plugin_demo:CI_METHODS"
        """,
    "evpsim_plugin_demo.py": """
        import numpy as np


        def best_so_far(scores, ns):
            return np.maximum.accumulate(scores)[np.minimum(ns, len(scores)) - 1]


        def estimators():
            return [{"name": "demo-best", "python": best_so_far,
                     "description": "the best of the first n trials"}]


        def wide_dkw(B, level):
            eps = 2 * np.sqrt(np.log(2 / (1 - level)) / (2 * B))
            ecdf = np.arange(B + 1) / B
            return np.clip(ecdf - eps, 0, 1), np.clip(ecdf + eps, 0, 1)


        CI_METHODS = {"name": "demo-dkw2", "band": wide_dkw,
                      "description": "a DKW band twice as wide"}
        """,
}
#: a plugin whose module cannot be imported
BROKEN_PLUGIN = {
    "pyproject.toml": PLUGIN["pyproject.toml"].replace("demo", "broken"),
    "evpsim_plugin_broken.py": "import evpsim_missing_dependency\n",
}


def _plugin_wheel(files, src, dist, env):
    """Write a plugin package into ``src`` and build its wheel into ``dist``."""
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(textwrap.dedent(text))
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(src)], src, env)
    return next(dist.glob(f"{src.name.replace('-', '_')}-*.whl"))


@pytest.mark.slow
def test_plugin_installed_beside_the_wheel_adds_an_estimator_and_a_ci_method(tmp_path, wheel):
    env = _clean_env()
    dist = tmp_path / "dist"
    demo = _plugin_wheel(PLUGIN, tmp_path / "evpsim-plugin-demo", dist, env)
    broken = _plugin_wheel(BROKEN_PLUGIN, tmp_path / "evpsim-plugin-broken", dist, env)
    bin_dir = _venv(tmp_path / "venv", env)
    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", str(wheel), str(demo)],
         tmp_path, env)
    work = tmp_path / "empty"
    work.mkdir()

    def evpsim(command, **extra):
        res = subprocess.run([bin_dir / "evpsim", *command.split()], cwd=work,
                             env={**env, **extra}, capture_output=True, text=True,
                             timeout=1800)
        assert res.returncode == 0, f"{command}:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
        return res.stdout, res.stderr

    out, err = evpsim("list")
    assert err == ""
    assert "  demo-best        python       mean" in out
    plugin = "evpsim-plugin-demo 0.1 (plugin)"
    for name in ("demo-best", "demo-dkw2"):
        row = next(ln for ln in out.splitlines() if ln.startswith(f"  {name} "))
        assert row.endswith(plugin), row
    # the batteries' stderr holds progress lines only
    out, err = evpsim("bias --dist normal --B 10 --estimators demo-best,V --replicates 2000 "
                      "--method mc")
    assert "\ndemo-best: the best of the first n trials\n" in out and "Warning" not in err
    out, err = evpsim("coverage --dist normal --B 10 --ci-methods demo-dkw2 "
                      "--replicates 200")
    assert "covered at every n at once: demo-dkw2 1.000" in out and "Warning" not in err

    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", str(broken)], tmp_path, env)
    out, err = evpsim("list")
    assert err.splitlines() == [
        "evpsim.plugins:0: PluginWarning: evpsim plugin evpsim-plugin-broken 0.1 not loaded: "
        "evpsim.estimators entry point 'broken': importing evpsim_plugin_broken:estimators "
        "failed: ModuleNotFoundError: No module named 'evpsim_missing_dependency'"], err
    assert "  demo-best " in out
    out, err = evpsim("list", EVPSIM_NO_PLUGINS="1")
    assert err == "" and "demo-best" not in out and "  V " in out
