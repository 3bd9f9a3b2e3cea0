"""Result Datasets: provenance, and output files written whole or not at all.

Every file evpsim writes (netCDF results, figures, reproduction summaries)
goes through :func:`atomic_write`: the content is written to a hidden
temporary file beside the target and renamed over it, so a reader never
sees half a file, an interruption (Ctrl-C, SIGTERM) leaves nothing behind,
and the file gets the permissions the user's umask gives new files. SIGTERM
kills a Python process without unwinding it, so while files are written a
handler turns it into an exception (unless the program has its own), and
once the temporary files are removed the signal ends the process as it
would have.
:func:`check_output` tells before any work is done whether a path can be
written at all.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shlex
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .. import _validate as check
from .._version import __version__

__all__ = ["provenance", "write_netcdf", "read_netcdf", "UnreadableFile", "atomic_write", "atomic_write_all",
           "new_mode", "check_output", "check_output_folder", "ENGINE", "NETCDF_SUFFIXES", "FIGURE_SUFFIXES"]

ENGINE = "h5netcdf"
#: endings of the files evpsim writes: results and figures
NETCDF_SUFFIXES = (".nc", ".nc4", ".netcdf")
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


def _versions():
    import numba
    import scipy
    import xarray

    return {
        "evpsim_version": __version__,
        "numpy_version": np.__version__,
        "numba_version": numba.__version__,
        "scipy_version": scipy.__version__,
        "xarray_version": xarray.__version__,
        "python_version": platform.python_version(),
    }


#: the command line being run, when the ``evpsim`` command runs (see :func:`command_line`)
_COMMAND = []


def command_line(words):
    """Record the command being run, for :func:`provenance`.

    ``evpsim.cli.main`` records ``evpsim`` and its arguments, so that a
    result written by the command names the command, also when ``main`` is
    called from Python (a test, a notebook) rather than from a shell.
    """
    _COMMAND[:] = [str(w) for w in words]


def provenance(**extra):
    """Attributes recording how a result was made.

    Package versions, thread count, creation time (UTC) and the command
    line, plus ``extra`` (seed, replicate counts, truth parameters ...).
    Values that netCDF cannot hold are converted to strings: None and
    bools as they print, lists joined by commas, mappings as JSON.
    """
    import numba

    attrs = {
        **_versions(),
        "numba_threads": int(numba.get_num_threads()),
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        # quoted as a shell reads it back: pasted, it runs the same command
        "command": shlex.join(_COMMAND) if _COMMAND else
        shlex.join([Path(sys.argv[0]).name] + sys.argv[1:]) if sys.argv else "",
        "platform": platform.platform(),
    }
    for k, v in extra.items():
        if v is None or isinstance(v, bool):
            v = str(v)
        elif isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        elif isinstance(v, dict):
            import json

            v = json.dumps(v, sort_keys=True, default=str)
        attrs[k] = v
    return attrs


def curve_symbol(ds):
    """The variable holding the exact curve a battery's result measures against:
    ``"tau"`` for a quantile curve, else ``"theta"``."""
    return "tau" if "tau" in ds.variables else "theta"


def new_mode(base):
    """The permissions a new file (``base`` 0o666) or folder (0o777) gets under the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def check_output(path, suffixes, name):
    """Raise unless ``path`` can be written as a new or replaced file.

    The folder is tested by creating (and removing) a hidden temporary file
    in it, the way :func:`atomic_write` will write.

    Parameters
    ----------
    path : str or Path
        Where a result will go.
    suffixes : tuple of str
        Accepted file endings (lower case, with the dot).
    name : str
        The argument's name, for the message.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise check.InvalidType(name, f"{name} must be a file name or path, got {path!r}")
    if not str(path):
        raise check.InvalidArgument(name, f"{name} is empty: name a file")
    p = Path(path)
    if p.is_dir():
        raise check.InvalidArgument(name, f"{name} {str(path)!r} is a folder, not a file")
    if p.suffix.lower() not in suffixes:
        raise check.InvalidArgument(name, f"{name} {str(path)!r}: expected a file ending in "
                                          f"{', '.join(suffixes)}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise check.InvalidArgument(name, f"{name} {str(path)!r}: folder {str(folder)!r} "
                                          f"does not exist")
    if p.exists() and not p.is_file():
        raise check.InvalidArgument(name, f"{name} {str(path)!r} exists and is not a regular "
                                          f"file")
    # try it: permissions alone do not tell (root, read-only file systems)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.stem}.", suffix=f".part{p.suffix}",
                                     dir=folder)
    except OSError as err:
        raise check.InvalidArgument(name, f"{name} {str(path)!r}: folder {str(folder)!r} "
                                          f"is not writable: {check.os_reason(err, True)}"
                                    ) from None
    os.close(fd)
    os.unlink(probe)
    return p


def check_output_folder(path, name="out"):
    """Raise unless ``path`` names a folder that exists or can be made, and be written in.

    Nothing is left behind: the test creates (and removes) a hidden
    temporary folder where the output will go.

    Parameters
    ----------
    path : str or Path
        The output folder.
    name : str
        The argument's name, for the message.

    Returns
    -------
    Path
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise check.InvalidType(name, f"{name} must be a folder name or path, got {path!r}")
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise check.InvalidArgument(name, f"{name} {str(out)!r} is a file, not a folder")
    where = out if out.is_dir() else out.parent
    if not where.is_dir():
        raise check.InvalidArgument(name, f"{name} {str(out)!r}: folder {str(where)!r} does "
                                          f"not exist")
    try:
        probe = tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".part", dir=where)
    except OSError as err:
        raise check.InvalidArgument(name, f"{name} {str(out)!r}: folder {str(where)!r} is not "
                                          f"writable: {check.os_reason(err, True)}") from None
    os.rmdir(probe)
    return out


def atomic_write(path, write):
    """Create ``path`` whole or not at all: ``write(tmp)`` fills a temporary file.

    Parameters
    ----------
    path : str or Path
        The target; its folder must exist.
    write : callable
        ``write(tmp_path)`` writes the content to ``tmp_path``, a hidden
        file beside ``path`` that ends in ``path``'s suffix.

    Returns
    -------
    Path
        ``path``.
    """
    return atomic_write_all([(path, write)])[0]


def atomic_write_all(items):
    """Write several files, all or none: each to a temporary file, then all renamed.

    A file a rename replaces is kept (a hard link beside it) until every
    rename is done: should a later one fail (the target turned into a
    folder meanwhile, Ctrl-C, SIGTERM), the files renamed before it are
    taken back, and those they replaced restored.

    Parameters
    ----------
    items : sequence of (path, write)
        As in :func:`atomic_write`.

    Returns
    -------
    list of Path
    """
    temps = []
    placed = []  # (path, the file it replaced kept aside, or None) of the renames done
    terminated = []
    try:
        with _sigterm_raises(terminated):
            for path, write in items:
                path = Path(path)
                folder = path.parent if str(path.parent) else Path(".")
                if not folder.is_dir():
                    raise check.InvalidArgument("path", f"cannot write {str(path)!r}: folder "
                                                        f"{str(folder)!r} does not exist")
                if path.is_dir():
                    raise check.InvalidArgument("path", f"cannot write {str(path)!r}: it is a "
                                                        f"folder, not a file")
                fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.",
                                           suffix=f".part{path.suffix}", dir=folder)
                os.close(fd)
                temps.append((tmp, path))
                write(tmp)
                os.chmod(tmp, new_mode(0o666))
            for tmp, path in temps:
                kept = _keep(path)
                try:
                    os.replace(tmp, path)
                except BaseException as err:
                    if kept is not None:
                        os.unlink(kept)
                    if isinstance(err, OSError):  # the target named, not the hidden file
                        raise OSError(err.errno, err.strerror, str(path)) from None
                    raise
                placed.append((path, kept))
        if terminated:  # the signal's exception was swallowed on its way: die anyway
            raise _Terminated
    except BaseException:
        for path, kept in reversed(placed):
            if kept is None:
                path.unlink(missing_ok=True)
            else:
                os.replace(kept, path)
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        if terminated:  # die of the signal, as the process would have
            signal.raise_signal(signal.SIGTERM)
        raise
    for _, kept in placed:
        if kept is not None:
            os.unlink(kept)
    return [path for _, path in temps]


def _keep(path):
    """A hidden hard link (a copy where links are not allowed) of the file ``path``
    beside it, to restore it from; None where there is no file to keep."""
    if not path.is_file():
        return None
    fd, kept = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".old{path.suffix}",
                                dir=path.parent if str(path.parent) else ".")
    os.close(fd)
    try:
        os.unlink(kept)
        os.link(path, kept)
    except OSError:
        import shutil

        shutil.copy2(path, kept)
    return kept


class _Terminated(BaseException):
    """SIGTERM arrived while files were written (see :func:`_sigterm_raises`)."""


@contextmanager
def _sigterm_raises(arrived):
    """SIGTERM raises :class:`_Terminated` meanwhile, if its action is the default.

    The default action kills the process on the spot, leaving temporary
    files behind; a handler the program installed itself (the command
    line's) is left alone, as is a thread other than the main one, which
    cannot set handlers. The signal is also appended to ``arrived``: code
    the exception passes through (an extension module) may turn it into
    another. On the way out the default action is restored.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def handler(signum, frame):
        arrived.append(signum)
        raise _Terminated

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def write_netcdf(ds, path):
    """Write ``ds`` to ``path`` as netCDF, atomically (:func:`atomic_write`).

    Text is written at the width it has: a fixed width of text read from another file
    (kept in a variable's encoding, and carried by :func:`xarray.combine_by_coords` and
    :func:`xarray.concat` from their first part) would cut longer labels short.
    """
    ds = ds.copy()
    for var in ds.variables.values():
        kept = var.encoding.get("dtype")
        if kept is not None and np.dtype(kept).kind in "SU":
            var.encoding.pop("dtype")
    return atomic_write(path, lambda tmp: ds.to_netcdf(tmp, engine=ENGINE))


class UnreadableFile(check.InvalidArgument):
    """A netCDF file that cannot be read; ``reason`` says why in a few words."""

    def __init__(self, path, reason):
        super().__init__("path", f"cannot read {str(path)!r}: {reason}")
        self.path, self.reason = path, reason

    def __reduce__(self):
        return type(self), (self.path, self.reason)


#: the first bytes of a netCDF-4 (HDF5) file and of a classic netCDF file
_SIGNATURES = (b"\x89HDF\r\n\x1a\n", b"CDF")


def _unreadable(path, err):
    """Why the netCDF file ``path`` could not be opened (``err``), in a few words."""
    import re

    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as why:
        return check.os_reason(why)
    if size == 0:
        return "the file is empty"
    if not head.startswith(_SIGNATURES):
        return "not a netCDF file"
    found = re.search(r"\beof = (\d+).*\bstored_eof = (\d+)", str(err))
    if found:
        return f"truncated ({int(found[1]):,} of {int(found[2]):,} bytes)"
    return "damaged, or not a netCDF file evpsim wrote"


def read_netcdf(path):
    """Open a result written by :func:`write_netcdf` (loaded into memory).

    Raises
    ------
    UnreadableFile
        A ``ValueError`` saying in a few words why the file cannot be read
        (empty, not netCDF, truncated, damaged, not readable), never the
        netCDF library's own text.
    """
    import xarray as xr

    try:
        with xr.open_dataset(path, engine=ENGINE) as ds:
            return ds.load()
    except (OSError, ValueError, KeyError) as err:
        raise UnreadableFile(path, _unreadable(path, err)) from None
