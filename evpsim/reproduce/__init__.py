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
did in the :class:`Report`; no folder is ever guessed.
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
          "kde-validity": "kde_validity", "intervals": "intervals"}


def reproduce(paper, out, *, data=None, quick=False, verbose=False):
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

    Returns
    -------
    Report
        Claims, files and run time; also written as ``out/summary.md``.
    """
    if not isinstance(paper, str) or paper not in PAPERS:
        raise InvalidArgument("paper", f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    quick, verbose = check.boolean(quick, "quick"), check.boolean(verbose, "verbose")
    out = check_output_folder(out)
    folder = user_data_dir(data)
    module = importlib.import_module(f".{PAPERS[paper]}", __name__)
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
        module.run(report, work, files, quick=quick)
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
