"""Result Datasets: provenance attributes and safe netCDF writing."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["provenance", "write_netcdf", "read_netcdf", "ENGINE"]

ENGINE = "h5netcdf"


def _versions():
    import numba
    import scipy
    import xarray

    from . import __version__

    return {
        "evpsim_version": __version__,
        "numpy_version": np.__version__,
        "numba_version": numba.__version__,
        "scipy_version": scipy.__version__,
        "xarray_version": xarray.__version__,
        "python_version": platform.python_version(),
    }


def provenance(**extra):
    """Attributes recording how a result was made.

    Package versions, thread count, creation time (UTC) and the command
    line, plus ``extra`` (seed, replicate counts, truth description ...).
    Values that netCDF cannot hold (None, bool) are converted to strings.
    """
    import numba

    attrs = {
        **_versions(),
        "numba_threads": int(numba.get_num_threads()),
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]) if sys.argv else "",
        "platform": platform.platform(),
    }
    for k, v in extra.items():
        if v is None or isinstance(v, bool):
            v = str(v)
        elif isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        attrs[k] = v
    return attrs


def write_netcdf(ds, path):
    """Write ``ds`` to ``path`` atomically: the file appears whole or not at all.

    The Dataset is written to a temporary file in the same folder and
    renamed over ``path``.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine=ENGINE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_netcdf(path):
    """Open a result written by :func:`write_netcdf` (loaded into memory)."""
    import xarray as xr

    with xr.open_dataset(path, engine=ENGINE) as ds:
        return ds.load()
