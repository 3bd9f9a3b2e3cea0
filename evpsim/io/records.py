"""What a reader holds of a trial: its record, the file it came from, why it was dropped.

Every reader (a score file's format in :mod:`evpsim.io.formats`, a tracking
tool's in :mod:`evpsim.io.trackers`) makes one :class:`Record` per trial:
its score, or why it has none, in the words of the counts users see
(:data:`FIELD_MISSING`, :data:`DIVERGED` ...). The rules of
:mod:`evpsim.io.trials` then say which records are failed trials, and
:mod:`evpsim.io.search` makes one model's records a search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .. import _validate as check

__all__ = ["Record", "File", "MISSING", "FIELD_MISSING", "COLUMN_MISSING", "EMPTY_CELL",
           "EMPTY_CURVE", "DIVERGED", "NOT_NUMBER", "NOT_JSON", "NOT_OBJECT", "FLAGGED",
           "MODEL_FIELD", "show", "is_number", "too_many_models"]

#: the field (JSON Lines) or column (CSV) naming the model, as allentune writes it
MODEL_FIELD = "model"

# reasons for dropping a record, in the words of the counts users see
FIELD_MISSING = "field missing"
COLUMN_MISSING = "column missing"
EMPTY_CELL = "empty cell"
EMPTY_CURVE = "empty learning curve"
DIVERGED = "NaN, infinite or null (diverged)"
NOT_NUMBER = "not a number"
NOT_JSON = "not JSON"
NOT_OBJECT = "not a JSON object"
FLAGGED = "flagged as diverged"

MISSING = object()  # what a dotted path reaches when the record lacks it


@dataclass
class Record:
    """One trial of a file: its score, or why it was dropped."""

    line: int
    score: float | None = None
    reason: str = ""        # why the record was dropped
    detail: str = ""        # "line N: ...", for messages
    argument: str = "path"  # the argument a strict reader blames
    group: object = None    # the group value, once read
    run: object = None      # the run-field value (which run of its search), once read
    duration: float = math.nan
    flag: str = ""          # the flag marking the run as diverged or failed, if any
    failed: str = ""        # why the trial failed, when it is counted at the worst score
    state: str | None = None  # the kind of its recorded state (trials.state_kind), if any

    def drop(self, reason, detail, argument="path"):
        self.reason, self.detail, self.argument = reason, f"line {self.line}: {detail}", argument


@dataclass
class File:
    """A file read, with its format."""

    path: Path
    name: str    # repr(str(path)), as messages show it
    text: str
    fmt: str     # "text", "csv" or "jsonl"
    delimiter: str = ","  # of a CSV file
    field: str | None = None       # the score's field (JSON Lines)
    column: str | int | None = None  # the score's column (CSV)
    implied_time: str = ""  # the durations' column when no time field is given (W&B's)


def show(value):
    """``repr(value)``, cut to 80 characters for a message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_number(value):
    """Whether ``value`` is an int or a float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def too_many_models(f, names, where, strict):
    """The error for a file whose ``model`` field or column holds several names."""
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    # a strict read (a file: truth, a reproduction) takes one model; read_searches splits
    how = "give a file holding one model's scores" if strict else \
        "pass group='model' to read them apart"
    return check.InvalidArgument("group", f"{f.name} holds {len(names)} models in its "
                                          f"{MODEL_FIELD!r} {where} ({shown}), which are never "
                                          f"pooled: {how}")
