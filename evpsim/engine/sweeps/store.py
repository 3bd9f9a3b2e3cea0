"""The checkpoint store of a sweep: one netCDF file per finished cell.

A store is a folder holding ``grid.json`` (the grid it was made for) and a
file per cell, each written whole or not at all, so a sweep stopped at any
point (Ctrl-C, SIGTERM, a lost worker) keeps every cell it finished and
loses none half-written. Run again with the same grid, it computes only the
cells missing; a store made for another grid or seed is refused, saying
what differs.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ... import _validate as check
from ...io.results import UnreadableFile, atomic_write, new_mode, read_netcdf, write_netcdf

__all__ = ["Store", "StoreMismatch", "cell_key"]

MANIFEST = "grid.json"


def cell_key(identity):
    """A short file name for a cell, from its identity."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


class StoreMismatch(check.InvalidArgument):
    """A store made for another sweep.

    Attributes
    ----------
    path : Path
        The store.
    differences : list of (str, object, object)
        What differs: the battery, an axis, an option or the seed, with its
        value in the store and in this sweep (None where one has none).
    """

    def __init__(self, path, differences):
        self.path, self.differences = path, differences
        super().__init__("store", f"store {str(path)!r} holds the cells of another sweep "
                                  f"({self.describe()}); give another store, or delete this "
                                  f"one to start afresh")

    def describe(self, spell=str):
        """The differences, e.g. ``seed 1 there, 0 here; B 5,6 there, 5 here``, each
        name written ``spell(name)``."""
        def shown(value):
            if value is None:
                return "default"
            return ",".join(map(str, value)) if isinstance(value, list) else str(value)

        return "; ".join(f"{spell(name)} {shown(there)} there, {shown(here)} here"
                         for name, there, here in self.differences)


def _flat(spec):
    """A grid's spec as one mapping: battery, seed, each axis and each option."""
    return {"battery": spec.get("battery"), **spec.get("axes", {}), **spec.get("options", {}),
            "seed": spec.get("seed")}


class Store:
    """A folder of finished cells for one grid.

    Opening a store checks it and creates nothing: :meth:`create` makes the
    folder and its manifest when the first cell is about to run.

    Parameters
    ----------
    path : str or Path
        The folder, existing (made for the same battery, axes, options and
        seed) or new (its parent folder must exist).
    grid : Grid
        The sweep.

    Raises
    ------
    StoreMismatch
        When the folder is the store of another sweep.
    """

    def __init__(self, path, grid):
        if not isinstance(path, (str, os.PathLike)):
            raise check.InvalidType("store", f"store must be a folder name or path, got "
                                             f"{path!r}")
        if not str(path):
            raise check.InvalidArgument("store", "store is empty: name a folder for the "
                                                 "finished cells")
        self.path = Path(path)
        self.spec = json.loads(json.dumps(grid.spec()))  # as it reads back from the file
        where = f"store {str(self.path)!r}"
        if self.path.is_dir():
            manifest = self.path / MANIFEST
            if manifest.is_file():
                self._compare(manifest)
            elif any(self.path.iterdir()):
                raise check.InvalidArgument("store", f"{where} exists and is not a sweep's "
                                                     f"store (no {MANIFEST}); give a new or "
                                                     f"empty folder")
            return
        if self.path.exists():
            raise check.InvalidArgument("store", f"{where} is a file, not a folder")
        parent = self.path.parent
        if not parent.is_dir():
            raise check.InvalidArgument(
                "store", f"{where}: its folder {str(parent)!r} " + ("is a file"
                                                         if parent.exists() else
                                                         "does not exist"))
        if not os.access(parent, os.W_OK | os.X_OK):
            raise check.InvalidArgument("store", f"{where}: folder {str(parent)!r} is not "
                                                 f"writable")

    def _compare(self, manifest):
        try:
            stored = json.loads(manifest.read_text())
        except (OSError, ValueError) as err:
            raise check.InvalidArgument("store", f"store {str(self.path)!r}: cannot read "
                                                 f"{MANIFEST} ({err}); delete the store to "
                                                 f"start afresh") from None
        if stored == self.spec:
            return
        there = _flat(stored) if isinstance(stored, dict) else {}
        here = _flat(self.spec)
        differences = [(k, there.get(k), here.get(k)) for k in {**there, **here}
                       if there.get(k) != here.get(k)]
        raise StoreMismatch(self.path, differences or [("format", MANIFEST, "this version's")])

    @property
    def created(self):
        """Whether the store exists (with its manifest)."""
        return (self.path / MANIFEST).is_file()

    def create(self):
        """Make the folder and its manifest, unless they exist."""
        if self.created:
            return
        try:
            self.path.mkdir(exist_ok=True)
            os.chmod(self.path, new_mode(0o777))
        except OSError as err:
            raise check.InvalidArgument("store", f"store {str(self.path)!r}: cannot create it: "
                                                 f"{check.os_reason(err)}") from None
        atomic_write(self.path / MANIFEST,
                     lambda tmp: Path(tmp).write_text(json.dumps(self.spec, indent=1)))

    def _file(self, identity):
        return self.path / f"cell-{cell_key(identity)}.nc"

    def finished(self, cells):
        """The cells of ``cells`` kept in the store."""
        return [c for c in cells if self._file(c).is_file()]

    def save(self, identity, ds):
        """Keep a finished cell."""
        write_netcdf(ds, self._file(identity))

    def load(self, identity):
        """A finished cell's Dataset."""
        path = self._file(identity)
        try:
            return read_netcdf(path)
        except UnreadableFile as err:
            cell = ", ".join(f"{k} {v}" for k, v in identity.items() if k != "battery")
            raise check.InvalidArgument(
                "store", f"store {str(self.path)!r}: the file {path.name!r} of the cell {cell} "
                         f"cannot be read: {err.reason}; delete that file and run again to "
                         f"compute the cell anew") from None
