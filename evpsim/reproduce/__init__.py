"""One-command reproductions of the papers' simulations.

``reproduce(paper, out)`` runs everything behind a paper's figures, writes
netCDF of every number and PNG of every figure into ``out``, and a
``summary.md`` that sets each claim of the paper beside evpsim's number.
Papers are modules of this package registered in :data:`PAPERS`; each has
``TITLE``, ``FULL_SIZE`` (what the summary calls a run without ``quick``),
``data_files()`` (the original names of the search files it reads) and
``run(report, out, files, quick)``, where ``files`` maps each of those
names to where it was found: the user's data folder (``data=DIR``,
``--data DIR`` or ``$EVPSIM_DATA``), else the copies shipped with evpsim,
else None. A reproduction runs whatever it can without a file (on the
committed KDE fit of the runs, or skipping a figure) and records what it
did in the :class:`Report`; no folder is ever guessed. A module whose cells
run on the sweep engine says so (``SWEEPS = True``) and its ``run`` also
takes ``where``: the backend, workers, scheduler and checkpoint store.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from .. import _validate as check
from .._validate import InvalidArgument
from ..io.results import check_output_folder, new_mode
from ..io.shipped import find_search_file, user_data_dir
from .summary import Claim, Report

__all__ = ["PAPERS", "reproduce", "Claim", "Report"]

#: paper key -> module name in this package
PAPERS = {"dodge2019": "dodge2019", "dodge2021": "dodge2021", "tang2020": "tang2020",
          "kde-validity": "kde_validity", "intervals": "intervals", "runs": "runs"}


def reproduce(paper, out, *, data=None, quick=False, verbose=False, workers=1, scheduler=None,
              cluster=None, store=None):
    """Reproduce a paper's simulations into folder ``out``.

    Parameters
    ----------
    paper : str
        One of :data:`PAPERS`.
    out : str or Path
        Output folder (created if missing; its parent must exist). The
        files are written all or nothing: into a hidden temporary folder,
        moved into ``out`` when every one is done.
    data : str or Path, optional
        Folder of the original search files that evpsim may not ship (the
        SST runs), default ``$EVPSIM_DATA`` (see
        :func:`evpsim.io.shipped.user_data_dir`). Files not there are taken
        from the copies shipped with evpsim; files not shipped either are
        replaced by their committed KDE fits, or the figures needing them
        skipped, as ``summary.md`` says.
    quick : bool
        Reduced sizes, for tests.
    verbose : bool
        Say on stderr which figure is being computed, and each substitution
        or skip for want of a search file.
    workers : int
        Local worker processes its cells run on (1: this process).
    scheduler : str, optional
        Address of a running dask scheduler its cells run on.
    cluster : int, optional
        Run its cells on a local dask cluster of this many workers.
    store : str or Path, optional
        Checkpoint folder of its cells: a run again with the same grid
        resumes from them. ``workers``, ``scheduler``, ``cluster`` and
        ``store`` apply to the papers whose cells run on the sweep engine
        (``intervals``, ``runs``).

    Returns
    -------
    Report
        Claims, files and run time; also written as ``out/summary.md``.
    """
    if not isinstance(paper, str) or paper not in PAPERS:
        raise InvalidArgument("paper", f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    quick, verbose = check.boolean(quick, "quick"), check.boolean(verbose, "verbose")
    module = importlib.import_module(f".{PAPERS[paper]}", __name__)
    where = _where(paper, module, workers, scheduler, cluster, store)
    out = check_output_folder(out)
    folder = user_data_dir(data)
    files = {name: find_search_file(name, folder) for name in module.data_files()}
    report = Report(paper, module.TITLE, quick=quick, full_size=module.FULL_SIZE,
                    verbose=verbose, data=files, data_folder=folder)
    # everything goes to a hidden folder beside (or in) out, moved into
    # place at the end: a failure or an interruption leaves nothing behind
    created = not out.exists()
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".part",
                                     dir=out.parent if created else out))
    except OSError as err:
        where = out.parent if created else out
        raise InvalidArgument("out", f"out {str(out)!r}: folder {str(where)!r} is not "
                                     f"writable: {check.os_reason(err, True)}") from None
    try:
        t0 = time.perf_counter()
        module.run(report, work, files, quick=quick,
                   **({"where": where} if getattr(module, "SWEEPS", False) else {}))
        report.seconds = time.perf_counter() - t0
        report.files.append("summary.md")
        report.write(work)
        if created:
            os.chmod(work, new_mode(0o777))
            os.replace(work, out)
        else:
            for f in work.iterdir():
                os.replace(f, out / f.name)
            work.rmdir()
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return report


def _where(paper, module, workers, scheduler, cluster, store):
    """Where ``paper``'s cells run and are kept, checked: ``{backend, workers, scheduler,
    store}``, for :func:`evpsim.engine.sweeps.sweep`.

    Papers whose module does not run on the sweep engine take none of them; the store
    is checked by the paper, with its grid.
    """
    from ..engine.sweeps.backends import check_backend

    asked = {"workers": workers != 1, "scheduler": scheduler is not None,
             "cluster": cluster is not None, "store": store is not None}
    if not getattr(module, "SWEEPS", False):
        name = next((k for k, v in asked.items() if v), None)
        if name is not None:
            raise InvalidArgument(name, f"{name} applies to papers whose cells run on the "
                                        f"sweep engine (intervals); {paper} runs none")
        return {}
    if sum((asked["workers"], asked["scheduler"], asked["cluster"])) > 1:
        raise InvalidArgument("workers", "workers, scheduler and cluster are exclusive: give "
                                         "one")
    if cluster is not None:
        backend, workers = "dask", check.integer(cluster, "cluster", minimum=1)
    elif scheduler is not None:
        backend = "dask"
    else:
        backend = "local" if check.integer(workers, "workers", minimum=1) > 1 else "process"
    backend, workers, scheduler = check_backend(backend, workers, scheduler)
    return dict(backend=backend, workers=workers, scheduler=scheduler, store=store)
