"""Ray Tune experiments: a folder of trials, one model, read from the files Ray Tune
writes (Ray itself is not needed).

A trial is a folder holding ``params.json`` (its configuration); its
results are the lines of its ``result.json`` (one JSON object per reported
iteration), or the rows of its ``progress.csv`` when that file is missing.
The score is a reported key reduced over the iterations (``reduce``: the
best, the worst or the last); the last iteration's ``time_total_s`` is the
trial's duration.

A trial with an ``error.txt`` or ``error.pkl`` (Ray Tune's ``ERROR``)
failed: one that reported the key before it stopped is kept at what it
reported, one that did not is a failed trial (the ``diverged`` and
``failed`` rules). A trial with no result and no error has not reported
yet: it is dropped and counted as still running.

The search algorithm: Ray Tune's default, ``BasicVariantGenerator``
(random and grid search), saves its state as ``basic-variant-state-*.json``
in the experiment folder; other search algorithms save
``searcher-state-*.pkl``, named here as not random search.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from ... import _validate as check
from ..trials import NOT_RECORDED
from ._common import Trials, key_and_reduce, searches, trial

__all__ = ["read_raytune", "is_experiment"]

#: the file that makes a folder a trial
PARAMS = "params.json"
#: the files of a trial that errored
ERRORS = ("error.txt", "error.pkl")
#: the key of a trial's running time, in seconds
TIME = "time_total_s"


def is_experiment(folder):
    """Whether ``folder`` holds Ray Tune trials (folders with ``params.json``)."""
    return any(p.is_file() for p in Path(folder).glob(f"*/{PARAMS}"))


def read_raytune(folder, *, field=None, reduce=None, pruned="last", failed="worst",
                 diverged="keep", bounds=None, minimize=False):
    """Read a Ray Tune experiment folder as one model, labelled by the folder's name.

    Parameters
    ----------
    folder : str or path
        The experiment's folder (``~/ray_results/NAME``).
    field : str
        The reported key of the score (``accuracy``).
    reduce : {"max", "min", "last"}
        How a trial's reports of ``field`` become one score.
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`.

    Returns
    -------
    list of Search
        One, with ``sampler`` set from the searcher's saved state.

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a folder with no
        trials, a missing ``field`` or ``reduce``, a key that no trial
        reported (listing the keys seen), the rules' errors.
    """
    folder = Path(folder)
    where = f"the Ray Tune experiment {str(folder)!r}"
    trials = sorted(p.parent for p in folder.glob(f"*/{PARAMS}") if p.is_file())
    if not trials:
        raise check.InvalidArgument("path", f"{str(folder)!r} holds no Ray Tune trial (no "
                                            f"folder with a {PARAMS})")
    rows = [_results(t) for t in trials]
    key_and_reduce(field, reduce, {k for results in rows for row in results for k in row},
                   where, trials="Ray Tune trial", often="once per iteration")
    records = []
    for number, (path, results) in enumerate(zip(trials, rows), start=1):
        errored = any((path / name).is_file() for name in ERRORS)
        state = "ERROR" if errored else "TERMINATED" if results else "RUNNING"
        values = [row[field] for row in results if field in row]
        duration = _number(results[-1].get(TIME)) if results else math.nan
        records.append(trial(number, values or None, state, duration=duration, field=field,
                             reduce=reduce, key="status",
                             missing=f"{path.name} reported no {field!r}"))
    model = Trials(folder.resolve().name, str(folder), field, records,
                   sampler=_searcher(folder))
    return searches([model], failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)


def _results(path):
    """A trial's reports: the objects of ``result.json``, else the rows of ``progress.csv``
    (numbers where the text is one)."""
    lines = path / "result.json"
    if lines.is_file():
        text = check.text_file(lines) if lines.stat().st_size else ""
        out = []
        for line in text.splitlines():
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                raise check.InvalidArgument("path", f"{str(lines)!r} holds a line that is not "
                                                    f"JSON") from None
            if isinstance(row, dict):
                out.append(row)
        return out
    table = path / "progress.csv"
    if not table.is_file() or not table.stat().st_size:
        return []
    rows = csv.DictReader(check.text_file(table).splitlines())
    return [{k: _cell(v) for k, v in row.items() if v not in ("", None)} for row in rows]


def _cell(text):
    """A CSV cell as a number where it is one."""
    try:
        return float(text)
    except ValueError:
        return text


def _number(value):
    """A reported value as a float (NaN when it is none)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _searcher(folder):
    """The search algorithm its saved state names, else not recorded."""
    if any(folder.glob("basic-variant-state-*.json")):
        return "BasicVariantGenerator"
    if any(folder.glob("searcher-state-*.pkl")):
        return "a search algorithm other than BasicVariantGenerator"
    return NOT_RECORDED
