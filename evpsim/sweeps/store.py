"""The checkpoint store of a sweep: one netCDF file per finished cell.

A store is a folder holding ``grid.json`` (the grid it was made for) and a
file per cell, each written whole or not at all, so a sweep stopped at any
point (Ctrl-C, SIGTERM, a lost worker) keeps every cell it finished and
loses none half-written. Run again with the same grid, it computes only the
cells missing; a store made for another grid or seed is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import _validate as check
from ..results import atomic_write, new_mode, read_netcdf, write_netcdf

__all__ = ["Store"]

MANIFEST = "grid.json"


def cell_key(identity):
    """A short file name for a cell, from its identity."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


class Store:
    """A folder of finished cells for one grid.

    Parameters
    ----------
    path : str or Path
        The folder; created (with its manifest) if missing.
    grid : Grid
        The sweep; an existing folder must have been made for the same
        battery, axes, options and seed.
    """

    def __init__(self, path, grid):
        self.path = Path(path)
        spec = json.loads(json.dumps(grid.spec()))  # as it reads back from the file
        manifest = self.path / MANIFEST
        if manifest.is_file():
            try:
                stored = json.loads(manifest.read_text())
            except (OSError, ValueError) as err:
                raise check.InvalidArgument("store", f"store {str(self.path)!r}: cannot read "
                                                     f"{MANIFEST} ({err})") from None
            if stored != spec:
                differ = [k for k in spec if stored.get(k) != spec[k]] or ["format"]
                raise check.InvalidArgument(
                    "store", f"store {str(self.path)!r} holds cells of another sweep (its "
                             f"{', '.join(differ)} differ); give a new store or delete it")
        elif self.path.exists() and any(self.path.iterdir()):
            raise check.InvalidArgument("store", f"store {str(self.path)!r} exists and is not "
                                                 f"a sweep's store (no {MANIFEST})")
        else:
            try:
                self.path.mkdir(parents=False, exist_ok=True)
                os.chmod(self.path, new_mode(0o777))
            except OSError as err:
                raise check.InvalidArgument("store", f"store {str(self.path)!r}: cannot create "
                                                     f"it ({err.strerror})") from None
            atomic_write(manifest, lambda tmp: Path(tmp).write_text(json.dumps(spec, indent=1)))

    def _file(self, identity):
        return self.path / f"cell-{cell_key(identity)}.nc"

    def has(self, identity):
        """Whether the cell is finished."""
        return self._file(identity).is_file()

    def save(self, identity, ds):
        """Keep a finished cell."""
        write_netcdf(ds, self._file(identity))

    def load(self, identity):
        """A finished cell's Dataset."""
        return read_netcdf(self._file(identity))
