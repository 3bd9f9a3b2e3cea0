"""The layout's rules, read from the imports of every module.

Batteries are peers over the engine kit; the command line and the
reproductions are thin layers on top that nothing below imports; nothing
takes names from the package's face (``evpsim/__init__.py``); score files are
read in one place; and ``import evpsim`` stays light.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))

# the reader of imports, shared with tests/test_layout.py and the docs' picture
from evpsim_architecture import PACKAGE  # noqa: E402
from evpsim_architecture import modules  # noqa: E402
from evpsim_architecture import is_module as _is_module  # noqa: E402
from evpsim_architecture import module_name as _module_name  # noqa: E402

MODULES = modules()


def test_the_tree_is_read():
    assert {"evpsim.studies.bias", "evpsim.studies.coverage", "evpsim.cli.bias",
            "evpsim.engine.montecarlo", "evpsim._validate"} <= set(MODULES)


#: the four batteries among the studies (the leaderboard, the intervals study and the
#: self-check are made of them)
BATTERIES = [f"evpsim.studies.{b}" for b in ("bias", "compare", "coverage", "falseconc")]


@pytest.mark.parametrize("module", BATTERIES)
def test_no_battery_imports_another(module):
    others = {m for m, _ in MODULES[module]
              if m.startswith("evpsim.studies.") and m != module}
    assert not others, f"{module} imports the batteries {others}"


@pytest.mark.parametrize("module", sorted(
    m for m in MODULES if not m.startswith("evpsim.cli") and m != "evpsim.__main__"))
def test_nothing_outside_the_cli_imports_it(module):
    """(``python -m evpsim``, the entry point, runs it.)"""
    bad = {m for m, _ in MODULES[module] if m == "evpsim.cli" or m.startswith("evpsim.cli.")}
    assert not bad, f"{module} imports {bad}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith(
    ("evpsim.cli", "evpsim.reproduce"))))
def test_only_the_cli_imports_the_reproductions(module):
    bad = {m for m, _ in MODULES[module] if m.startswith("evpsim.reproduce")}
    assert not bad, f"{module} imports {bad}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "evpsim"))
def test_no_module_takes_names_from_the_package_face(module):
    bad = [(m, names) for m, names in MODULES[module] if m == "evpsim"]
    assert not bad, f"{module} imports from evpsim/__init__.py: {bad}"


def test_kernels_import_nothing_of_the_package_above_them():
    for module, imports in MODULES.items():
        if module.startswith("evpsim._kernels"):
            bad = {m for m, _ in imports
                   if m.startswith("evpsim") and not m.startswith("evpsim._kernels")}
            assert not bad, f"{module} imports {bad}"


#: the CI-method kernels, and the modules of the kinds of CI method: only the family
#: (evpsim.intervals) imports them
CI_KINDS = ("evpsim._kernels.bootstrap", "evpsim._kernels.resamples", "evpsim._kernels.quantiles",
            "evpsim._kernels.tallies", "evpsim._kernels.resampling", "evpsim._kernels.bands",
            "evpsim._kernels.tails", "evpsim._kernels.calibrated", "evpsim.intervals.bootstrap",
            "evpsim.intervals.bands", "evpsim.intervals.resampling",
            "evpsim.intervals.calibrated", "evpsim.intervals.kind", "evpsim._kernels.acrossruns",
            "evpsim.intervals.runs")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith(
    ("evpsim.intervals", "evpsim._kernels"))))
def test_only_the_interval_family_imports_a_ci_kind(module):
    """Studies, curves and the command line ask the family for intervals, so that a new
    kind of CI method touches evpsim/intervals/ alone."""
    bad = {m for m, _ in MODULES[module] if m in CI_KINDS}
    assert not bad, f"{module} imports the CI-method kind or kernel {bad}"


def test_the_ci_kinds_are_known():
    assert set(CI_KINDS) <= set(MODULES)


def test_score_files_are_read_in_one_place():
    """evpsim.io.searchfiles opens every score file and reads it by the module of its
    format (evpsim.io.formats), and evpsim.io.trackers reads what the tracking tools
    write: no other module parses CSV or calls the file checks of _validate."""
    readers = {"evpsim.io.searchfiles", "evpsim._validate"}
    assert {"evpsim.io.formats.plaintext", "evpsim.io.formats.csvfiles",
            "evpsim.io.formats.jsonlines"} <= set(MODULES)
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        if module in readers or module.startswith(("evpsim.io.trackers.",
                                                   "evpsim.io.formats.")):
            continue
        tree = ast.parse(path.read_text())
        used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        used |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        checks = used & {"text_file", "file_score"}
        assert not checks, f"{module} reads a score file itself: it calls {checks}"
        if module != "evpsim.report.tables":  # which writes the tables as CSV, reads none
            assert "csv" not in {m for m, _ in MODULES[module]}, f"{module} imports csv"


def test_import_evpsim_does_not_import_matplotlib():
    code = "import sys, evpsim; print(sorted(m for m in sys.modules if m.startswith('matplotlib')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_exported_functions_do_not_shadow_modules():
    import evpsim

    for name in evpsim.__all__:
        obj = getattr(evpsim, name)
        if callable(obj) and not isinstance(obj, type):
            assert not _is_module(f"evpsim.{name}"), \
                f"evpsim.{name} is a function and also a module evpsim/{name}.py"


def test_no_module_looks_for_data_beside_the_checkout():
    """Package data comes through importlib.resources, user data only from a folder the
    user names: no code path builds a path to the project's ``shared/`` folder or
    climbs out of the package (``Path.parents``)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) and \
                isinstance(node.value, str) else None
            if text == "shared" or (text and "shared/data" in text and
                                             not _is_docstring(tree, node)):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {text!r}")
            if isinstance(node, ast.Attribute) and node.attr == "parents":
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: .parents")
    assert not offenders, offenders


def _is_docstring(tree, node):
    return any(isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and
               isinstance(n.body[0], ast.Expr) and n.body[0].value is node
               for n in ast.walk(tree))
