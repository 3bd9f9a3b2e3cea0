"""Module paths of earlier versions, kept working: each old path is the module now at its new home.

``import evpsim.kde`` gives :mod:`evpsim.truths.kde` itself (the same module
object, so that patching one patches the other), through a finder that
:func:`install` puts first on :data:`sys.meta_path`; ``evpsim.kde`` after a
bare ``import evpsim`` gives it too (:func:`attribute`). Only the paths in
:data:`MOVED` are served; the new homes are where the code is read and
documented. ``evpsim.estimators``, ``evpsim.intervals``, ``evpsim.truths``
and ``evpsim.curves`` need no entry: they are packages now, which hand on
the public names of the modules they were.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install", "attribute"]

#: old module path -> the module's home now
MOVED = {
    "evpsim.bands": "evpsim.intervals.bands",
    "evpsim.batteries": "evpsim.studies",
    "evpsim.batteries.bias": "evpsim.studies.bias",
    "evpsim.batteries.compare": "evpsim.studies.compare",
    "evpsim.batteries.coverage": "evpsim.studies.coverage",
    "evpsim.batteries.falseconc": "evpsim.studies.falseconc",
    "evpsim.datasets": "evpsim.io.shipped",
    "evpsim.exact": "evpsim.truths.exact",
    "evpsim.interval_study": "evpsim.studies.interval_study",
    "evpsim.kde": "evpsim.truths.kde",
    "evpsim.leaderboard": "evpsim.studies.leaderboard",
    "evpsim.leaderboard_report": "evpsim.report.leaderboard",
    "evpsim.mctheta": "evpsim.truths.mctheta",
    "evpsim.montecarlo": "evpsim.engine.montecarlo",
    "evpsim.plots": "evpsim.report",
    "evpsim.procedures": "evpsim.intervals.resampling",
    "evpsim.pyrun": "evpsim.estimators.pyrun",
    "evpsim.python_estimators": "evpsim.estimators.python_builtins",
    "evpsim.registry": "evpsim.engine.registry",
    "evpsim.results": "evpsim.io.results",
    "evpsim.searchfiles": "evpsim.io.searchfiles",
    "evpsim.selfcheck": "evpsim.studies.selfcheck",
    "evpsim.streams": "evpsim.engine.streams",
    "evpsim.summaries": "evpsim.engine.summaries",
    "evpsim.sweeps": "evpsim.engine.sweeps",
    "evpsim.sweeps.backends": "evpsim.engine.sweeps.backends",
    "evpsim.sweeps.combine": "evpsim.engine.sweeps.combine",
    "evpsim.sweeps.grid": "evpsim.engine.sweeps.grid",
    "evpsim.sweeps.store": "evpsim.engine.sweeps.store",
    "evpsim.targets": "evpsim.estimators.targets",
    "evpsim.threads": "evpsim.engine.threads",
    "evpsim.weights": "evpsim.estimators.weights",
}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads it as the module at its new home."""

    def __init__(self):
        self._specs = {}  # the modules' own specs, by their names

    def find_spec(self, name, path=None, target=None):
        if name not in MOVED:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        self._specs.setdefault(module.__name__, module.__spec__)
        return module

    def exec_module(self, module):
        """Nothing to run (the module ran at its new home); give the module back its
        own spec, which the import system has just set to the old path's."""
        module.__spec__ = self._specs[module.__name__]


def install():
    """Serve the old paths (once per process)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def attribute(package, name):
    """The module that the old path ``package.name`` names, for the package's module
    ``__getattr__`` (``evpsim.kde`` after ``import evpsim``).

    Raises
    ------
    AttributeError
        When ``package.name`` is no old path, as for any attribute missing.
    """
    if f"{package}.{name}" not in MOVED:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return importlib.import_module(f"{package}.{name}")
