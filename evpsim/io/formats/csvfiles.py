"""CSV: one trial per row, the score in one column (``.csv``; ``.tsv`` is tab-separated).

The first row is a header unless every field of it is a number, in which
case it is data and a column can only be named by its 0-based index: no
number is ever taken for a header. A column named as a trial's state (any
case of :data:`~evpsim.io.trials.STATE_FIELDS`) gives each row its state,
and a ``model`` column holding several names is refused unless ``group``
reads them apart. A W&B runs-table export (headed by
:data:`WANDB_COLUMNS`) gives its trials' durations in ``Runtime``.
"""

from __future__ import annotations

import csv

from ... import _validate as check
from ..records import COLUMN_MISSING, MODEL_FIELD, Record, too_many_models
from ..trials import STATE_FIELDS, state_flag, state_kind
from .durations import duration, time_keys
from .plaintext import content_lines, text_score

__all__ = ["CSV_SUFFIXES", "WANDB_COLUMNS", "WANDB_TIME", "csv_records", "implied_time"]

CSV_SUFFIXES = (".csv", ".tsv")
#: the columns that make a CSV file a W&B runs-table export, and the one of its trials'
#: durations (seconds), taken as the time field when none is given
WANDB_COLUMNS = ("Name", "State", "Runtime")
WANDB_TIME = "Runtime"


def csv_records(f, column, group, time_field, strict, run_field=None):
    """The records of a CSV file ``f`` (:class:`~evpsim.io.records.File`) and the name of
    the scores' column (see the module's docstring for the header rule).

    ``column``, ``group``, ``time_field`` and ``run_field`` are as in
    :func:`evpsim.read_searches`; ``strict`` says a reader of one model's
    scores is asking (in the message of a file holding several models).
    """
    lines = content_lines(f.text)
    if not lines:
        return [], "" if column is None else str(column)
    try:
        rows = list(csv.reader([ln for _, ln in lines], delimiter=f.delimiter))
    except csv.Error as err:
        raise check.InvalidArgument("path", f"{f.name} is not readable as CSV ({err})") from None
    first = [h.strip() for h in rows[0]]
    header = None if all(_is_number_text(h) for h in first) else first
    width = len(first)
    if column is None:
        if width != 1:
            raise check.InvalidArgument("column", f"{f.name} has {width} columns"
                                                  + (f" {header}" if header else "")
                                                  + ": choose one with column")
        col = 0
    else:
        col = _csv_index(f, header, width, column, "column")
    keys = [(attr, _csv_index(f, header, width, key, name), key, name, what)
            for attr, key, name, what in (("group", group, "group", "model"),
                                          ("run", run_field, "run_field", "run"))
            if key is not None]
    time_cols = None if time_field is None else [_csv_index(f, header, width, key, "time_field")
                                                 for key in time_keys(time_field)]
    state_col = next((i for i, name in enumerate(header or ()) if name.lower() in STATE_FIELDS),
                     None)
    body = list(zip([i for i, _ in lines], rows))[0 if header is None else 1:]
    if group is None and header is not None and MODEL_FIELD in header[:col] + header[col + 1:]:
        at = header.index(MODEL_FIELD)
        names = list(dict.fromkeys(row[at].strip() for _, row in body
                                   if at < len(row) and row[at].strip()))
        if len(names) > 1:
            raise too_many_models(f, names, "column", strict)
    records = []
    for line, row in body:
        record = Record(line)
        records.append(record)
        for attr, at, key, name, what in keys:
            value = row[at].strip() if at < len(row) else ""
            if not value:
                raise check.InvalidArgument(name, f"{f.name} line {line}: no {key!r}, so the "
                                                  f"row's {what} is unknown")
            setattr(record, attr, value)
        if time_cols is not None:
            record.duration = duration([row[i] if i < len(row) else None for i in time_cols],
                                       f"{f.name} line {line}", *_time_named(f, time_field))
        if state_col is not None and state_col < len(row):
            record.flag = state_flag([(header[state_col], row[state_col])])
            record.state = state_kind(row[state_col])
        if col >= len(row):
            record.drop(COLUMN_MISSING, f"missing column "
                                        f"{column if column is not None else 0!r}")
        else:
            text_score(record, row[col], f.name)
    metric = header[col] if header is not None else "" if column is None else str(column)
    return records, metric


def _csv_index(f, header, width, key, argument):
    """The 0-based index of a column given by header name or index.

    A name that heads several columns is refused, naming their positions:
    which one holds the scores cannot be guessed (columns of the same name
    that no option asks for are never looked at).
    """
    if header is not None and str(key) in header:
        at = [i for i, name in enumerate(header) if name == str(key)]
        if len(at) > 1:
            raise check.InvalidArgument(argument, f"{argument} {str(key)!r} is ambiguous: "
                                                  f"{f.name} has {len(at)} columns of that "
                                                  f"name, at 0-based positions "
                                                  f"{', '.join(map(str, at))}; give the "
                                                  f"position of the one you mean")
        return at[0]
    if str(key).isdigit() and int(key) < width:
        return int(key)
    known = f"columns: {header}" if header else \
        f"it has no header row, so give a 0-based index below {width}"
    raise check.InvalidArgument(argument, f"{f.name} has no column {key!r}; {known}")


def _time_named(f, time_field):
    """How a message names the time column, and the argument it blames: the file itself
    when the column is W&B's ``Runtime``, taken without a time field given."""
    if f.implied_time:
        return (f"{time_field} (a W&B runs export's run time, read as the trial's duration)",
                None, "path")
    return time_field, None, "time_field"


def implied_time(f):
    """W&B's ``Runtime`` when ``f`` is a CSV file headed as a W&B runs-table export (see
    :data:`WANDB_COLUMNS`), else ``""``."""
    if f.fmt != "csv":
        return ""
    first = next((ln for _, ln in content_lines(f.text)), "")
    header = {h.strip() for h in next(csv.reader([first], delimiter=f.delimiter), [])}
    return WANDB_TIME if set(WANDB_COLUMNS) <= header else ""


def _is_number_text(text):
    """Whether ``text`` reads as a number (``float`` takes it)."""
    try:
        float(text)
    except ValueError:
        return False
    return True
