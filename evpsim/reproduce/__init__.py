"""One-command reproductions of the papers' simulations.

``reproduce(paper, out)`` runs everything behind a paper's figures, writes
netCDF of every number and PNG of every figure into ``out``, and a
``summary.md`` that sets each claim of the paper beside evpsim's number.
Papers are modules of this package registered in :data:`PAPERS`.
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

from .._validate import InvalidArgument
from .summary import Claim, Report

__all__ = ["PAPERS", "reproduce", "data_dir", "Claim", "Report"]

#: paper key -> module name in this package
PAPERS = {"dodge2019": "dodge2019", "dodge2021": "dodge2021", "tang2020": "tang2020"}


def data_dir(path=None):
    """Folder of the real search results.

    ``path`` if given, else ``$EVPSIM_DATA``, else ``../shared/data`` beside
    the repository that holds this package.
    """
    candidates = [path, os.environ.get("EVPSIM_DATA"),
                  Path(__file__).resolve().parents[3] / "shared" / "data"]
    for c in candidates:
        if c is not None:
            folder = Path(c)
            if not folder.is_dir():
                raise InvalidArgument("data", f"search results folder {str(folder)!r} does not "
                                              f"exist (give data=DIR or set EVPSIM_DATA)")
            return folder
    raise InvalidArgument("data", "no search results folder (give data=DIR)")  # pragma: no cover


def reproduce(paper, out, *, data=None, quick=False, verbose=False):
    """Reproduce a paper's simulations into folder ``out``.

    Parameters
    ----------
    paper : str
        One of :data:`PAPERS`.
    out : str or Path
        Output folder (created if missing).
    data : str or Path, optional
        Folder of the real search results (see :func:`data_dir`).
    quick : bool
        Reduced sizes, for tests.
    verbose : bool
        Say on stderr which figure is being computed.

    Returns
    -------
    Report
        Claims, files and run time; also written as ``out/summary.md``.
    """
    if paper not in PAPERS:
        raise InvalidArgument("paper", f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    folder = data_dir(data)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidArgument("out", f"out {str(out)!r} is a file, not a folder")
    if not out.exists() and not out.parent.is_dir():
        raise InvalidArgument("out", f"out {str(out)!r}: folder {str(out.parent)!r} does "
                                     f"not exist")
    out.mkdir(exist_ok=True)
    if not os.access(out, os.W_OK | os.X_OK):
        raise InvalidArgument("out", f"out {str(out)!r} is not writable")
    module = importlib.import_module(f".{PAPERS[paper]}", __name__)
    report = Report(paper, module.TITLE, quick=quick, verbose=verbose)
    t0 = time.perf_counter()
    module.run(report, out, folder, quick=quick)
    report.seconds = time.perf_counter() - t0
    report.files.append("summary.md")
    report.write(out)
    return report
