"""Scores of hyperparameter searches, read from the files researchers have.

Every score file evpsim reads goes through this module, which tells each
file's format and reads it by the module of that format
(:mod:`evpsim.io.formats`):

* plain text, one score per line (blank lines and ``#`` comments skipped:
  :mod:`~evpsim.io.formats.plaintext`);
* CSV (``.csv``; ``.tsv`` is tab-separated), one trial per row, the score
  in one column (:mod:`~evpsim.io.formats.csvfiles`);
* JSON Lines (``.jsonl``, ``.ndjson``), one trial per line, the score in a
  field reached by a dotted path: allentune's ``results.jsonl`` and opda's
  learning curves among them (:mod:`~evpsim.io.formats.jsonlines`).

:func:`read_searches` reads one or more files into one
:class:`~evpsim.io.search.Search` per model. A trial that ran but gave no
score (an empty learning curve, a NaN or null score, a run flagged as
diverged or failed without one) is a *failed* trial: by default it counts
at the worst score, since it is a trial the search spent (the rules are
:mod:`evpsim.io.trials`'). Records that cannot be read (missing fields,
text that is not a number, lines that are not JSON) are dropped and
counted by reason. It never pools the models of a file. The path ``-``
reads standard input. :func:`read_scores` and :func:`read_jsonl_scores`
are the strict readers behind ``file:PATH`` truths and the reproductions:
there, every record must hold a finite score.

The names of the modules it reads with (:class:`~evpsim.io.search.Search`,
:func:`~evpsim.io.search.describe_reading`, the rules' and formats'
constants) are importable from here too, as before they had modules of
their own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _validate as check
from .formats.csvfiles import CSV_SUFFIXES, WANDB_COLUMNS, csv_records, implied_time
from .formats.durations import TIME_REDUCTIONS
from .formats.jsonlines import JSONL_SUFFIXES, REDUCTIONS, jsonl_records, path_parts
from .formats.plaintext import content_lines, text_records
from .records import MODEL_FIELD, File
from .search import Search, describe_dropped, describe_reading, enough, make_search
from .trials import (DIVERGED_FLAGS, DIVERGED_RULES, FAILED_RULES, FAILED_STATES, STATE_FIELDS,
                     apply_states, check_bounds, count_failed, diverged_rule, failed_rule,
                     pruned_rule)

__all__ = [
    "Search",
    "read_searches",
    "read_scores",
    "read_jsonl_scores",
    "describe_dropped",
    "describe_reading",
    "REDUCTIONS",
    "TIME_REDUCTIONS",
    "MODEL_FIELD",
    "DIVERGED_FLAGS",
    "DIVERGED_RULES",
    "FAILED_RULES",
    "STATE_FIELDS",
    "FAILED_STATES",
    "WANDB_COLUMNS",
]

#: the path that names standard input
STDIN = "-"


def read_searches(paths, *, column=None, field=None, group=None, select=None, reduce=None,
                  time_field=None, labels=None, diverged="keep", failed="worst", bounds=None,
                  minimize=False, pruned="last", time_reduce=None, run_field=None):
    """Read the trials of one or more hyperparameter searches, one model each.

    The format of each file comes from its suffix: ``.jsonl`` or
    ``.ndjson`` is JSON Lines, ``.csv`` or ``.tsv`` is CSV, and any other
    file is JSON Lines when ``field`` is given, CSV when ``column`` is
    given, else plain text (one score per line; blank lines and ``#``
    comments skipped). Each file is one model unless ``group`` splits it.
    The path ``"-"`` reads standard input, labelled ``stdin``: plain text,
    or JSON Lines when ``field`` is given or its first line is a JSON
    object, or CSV when ``column`` is given or its first line holds commas
    (tabs: tab-separated).

    A *failed* trial is the record of a trial that ran but gave no score: a
    NaN, infinite or null score (a run that diverged), an empty or all-NaN
    learning curve, or a record flagged as diverged or failed (below) whose
    score is missing or empty. A failed trial is a trial the search spent:
    by default (``failed="worst"``) it counts at the worst score, the lower
    end of ``bounds`` if given, else the lowest score observed for its model
    (with ``minimize``, the upper end or the highest); ``failed=VALUE``
    counts it at that score; ``failed="drop"`` leaves it out, which makes
    every estimate conditional on a trial succeeding. Failed trials are
    counted by reason in :attr:`Search.failed` either way.

    Records that cannot be read are dropped and counted by reason in
    :attr:`Search.dropped`: a missing field or cell, a value that is not a
    number, a line that is not JSON or not a JSON object. A model left with
    fewer than 2 scores is an error that says what was dropped.

    Records flagged as diverged (a true ``nan_train_loss``, as opda's
    results files write it: see :data:`DIVERGED_FLAGS`) or failed (a CSV
    column or top-level JSON field named as in :data:`STATE_FIELDS`, in any
    case, holding one of :data:`FAILED_STATES`, as Optuna's ``FAIL``, W&B's
    ``failed`` or MLflow's ``FAILED``) follow the ``diverged`` rule. Kept,
    one that still gives a score (a learning curve's checkpoints before the
    loss became NaN) counts with it, in :attr:`Search.diverged_kept`, and
    one without is a failed trial; dropped, every flagged record is left
    out, counted in :attr:`Search.dropped` as ``"flagged as diverged
    (FLAG)"``. The same state field tells trials that were pruned (Optuna's
    ``PRUNED``: see ``pruned``) and trials not finished (``RUNNING``,
    ``WAITING``, W&B's ``running``), which are dropped and counted.

    Parameters
    ----------
    paths : str, path, or a list of them
        The files.
    column : str or int, or a list of them, optional
        The CSV column of the scores, by header name or 0-based index
        (needed when there are several columns); a list gives one per path
        (None for files without). The first row is a header unless every
        field of it is a number. A name heading several columns is refused.
    field : str, or a list of str, optional
        The JSON Lines field of the scores, a dotted path; a list gives one
        per path (None for files without), so that files of different
        formats are read together. At an object the
        longest key matching the path's next parts is tried first, so that
        allentune's flattened keys (``model.encoder.type``) work as well as
        nested objects (``metrics.accuracy``); at an array an integer part
        indexes it (``-1`` is the last element) and ``*``, or any other key,
        maps the rest of the path over its elements: opda's
        ``learning_curve.top_1`` is the list of every checkpoint's
        ``top_1``, and ``learning_curves.matched.*.1`` the accuracies of
        ``[step, accuracy]`` pairs.
    group : str, optional
        The field (JSON Lines) or column (CSV) whose value names the model,
        such as allentune's ``"model"``; models in the order they first
        appear. Without it, JSON Lines records whose ``model`` field holds
        several names are refused: models are never pooled silently.
    select : str or list of str, optional
        Keep only these values of ``group`` (which must be given).
    reduce : {"max", "min", "last"}, optional
        How a field holding a list (a learning curve) becomes one score:
        the best or worst checkpoint, ignoring NaN and null ones, or the
        last checkpoint (a NaN there is a run that diverged). Required for
        such fields, refused for single values. A curve that is empty or all
        NaN drops its record as an empty learning curve.
    time_field : str, optional
        The field (dotted path, JSON Lines) or column (CSV) holding each
        trial's duration: seconds, AllenNLP's ``str(timedelta)`` form
        (``H:MM:SS``, ``H:MM:SS.ffffff``, ``1 day, 2:03:04.5``), pandas'
        (``0 days 00:10:00``) or ISO 8601's (``PT10M``); or two fields
        ``START,END`` holding timestamps (Unix seconds, or ISO 8601 such as
        Optuna's ``datetime_start,datetime_complete``), the duration
        between them. A record without one has a NaN duration, counted in
        :attr:`Search.durations_missing`. Without it, a CSV file headed as
        a W&B runs-table export (``Name``, ``State`` and ``Runtime``
        columns) takes its ``Runtime`` (seconds), said in
        :attr:`Search.implied_time`.
    labels : str or list of str, optional
        One label per resulting model, replacing the file stems or group
        values.
    diverged : {"keep", "drop"}
        What becomes of a record flagged as diverged or failed. ``"keep"``
        (the default) keeps it: a trial that diverged is a trial the search
        ran and paid for; its reduced checkpoints, if any, are the score it
        yielded, and without them it is a failed trial (see ``failed``), so
        the curve stays the expected best of n trials of *this* search.
        ``"drop"`` leaves out every flagged record, which describes a search
        that never diverges, with a B smaller than the trials run.
    failed : {"worst", "drop"} or float
        What a failed trial counts as: the worst score (the default), no
        score (dropped), or the score given, which must lie within
        ``bounds``.
    bounds : (float, float) or "none", optional
        The metric's range (e.g. ``(0, 1)``); its lower end (upper, with
        ``minimize``) is the worst score. It must contain every score read.
        Not given, a model whose scores all lie in [0, 1] on a lattice of
        step 1/N (an accuracy on N examples) counts its failed trials at the
        worst end of [0, 1] (:func:`evpsim.io.lattice.unit_scale`), and any
        other at its worst score observed; ``"none"`` takes no range from
        the scores.
    minimize : bool
        The scores are losses: the worst score is the highest.
    pruned : {"last", "worst", "drop"}
        What becomes of a record whose state says the trial was pruned:
        counted at its score, the last intermediate value it reached (the
        default; Optuna's exports record it as the value), made a failed
        trial (``failed`` says at which score), or dropped (see
        :mod:`evpsim.io.trials`); counted in :attr:`Search.pruned`,
        :attr:`Search.failed` or :attr:`Search.dropped`.
    time_reduce : {"last", "sum", "max"}, optional
        How a time field holding a list (a duration or a running time per
        checkpoint, as opda's ``learning_curve.time``) becomes one
        duration: the last checkpoint's (a running total), their sum
        (durations per checkpoint) or the largest. Required for such
        fields.
    run_field : str, optional
        The field (JSON Lines) or column (CSV) whose value names the run
        of its model's search each record belongs to (a seed): each model
        is then read as one search per value, its records in file order
        (:attr:`Search.run`), every run counting its failed trials by the
        rules above on its own. A record without it is refused.

    Returns
    -------
    list of Search
        One per model (with ``run_field``, one per run of each model, in
        the order they first appear, labelled by the model): the files in
        the order given, the models of a file in the order they first
        appear. Failed trials counted at a score are among the scores, in
        file order.

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`, whose ``argument`` names
        the parameter at fault, for an unreadable file; an unknown column, or
        a field, group or time field that no record has (the message lists
        the first record's keys); a file holding several models without
        ``group``; an unknown ``select`` value; a list without ``reduce`` or
        ``reduce`` on a single value; a malformed duration; a score beyond
        ``+-1e70``; a model with fewer than 2 scores; labels that are too
        few, too many or repeated; a per-path list of the wrong length; an
        ambiguous CSV column name; ``failed`` neither a rule nor a number
        within ``bounds``; ``bounds`` that do not contain every score; a
        model whose every trial failed, with ``failed="worst"`` and no
        ``bounds``; ``"-"`` given twice, or when standard input is a
        terminal. Messages name the file and the line.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> rows = [{"model": "cnn", "best_validation_accuracy": 0.41},
    ...         {"model": "cnn", "best_validation_accuracy": None},
    ...         {"model": "lstm", "best_validation_accuracy": 0.44},
    ...         {"model": "cnn", "best_validation_accuracy": 0.43},
    ...         {"model": "lstm", "best_validation_accuracy": 0.39}]
    >>> path = Path(tmp.name, "results.jsonl")
    >>> _ = path.write_text("".join(json.dumps(r) + "\\n" for r in rows))
    >>> for s in read_searches(path, field="best_validation_accuracy", group="model"):
    ...     print(s.label, s.scores, s.records, s.dropped)
    cnn [0.41 0.41 0.43] 3 {}
    lstm [0.44 0.39] 2 {}
    >>> curves = [{"learning_curve": [{"top_1": 0.2}, {"top_1": 0.5}, {"top_1": 0.4}]},
    ...           {"learning_curve": []},
    ...           {"learning_curve": [{"top_1": 0.3}, {"top_1": 0.6}]}]
    >>> path = Path(tmp.name, "alexnet.jsonl")
    >>> _ = path.write_text("".join(json.dumps(r) + "\\n" for r in curves))
    >>> s, = read_searches(path, field="learning_curve.top_1", reduce="max")
    >>> s.label, s.scores, s.failed, s.failed_score
    ('alexnet', array([0.5, 0.5, 0.6]), {'empty learning curve': 1}, 0.5)
    >>> s, = read_searches(path, field="learning_curve.top_1", reduce="max", bounds=(0, 1))
    >>> s.scores, s.failed_basis
    (array([0.5, 0. , 0.6]), 'the lower end of bounds')
    >>> s, = read_searches(path, field="learning_curve.top_1", reduce="max", failed="drop")
    >>> s.scores, s.dropped
    (array([0.5, 0.6]), {'empty learning curve': 1})
    >>> tmp.cleanup()
    """
    options = _reading_options(paths, column=column, field=field, group=group, select=select,
                               reduce=reduce, time_field=time_field, labels=labels,
                               diverged=diverged, failed=failed, minimize=minimize,
                               pruned=pruned, time_reduce=time_reduce, run_field=run_field)
    files = [_read_text(item, _format(item, fd, col), field=fd, column=col)
             for item, fd, col in zip(options.items, options.fields, options.columns)]
    _check_applicable(files, group=group, reduce=reduce, time_field=time_field,
                      time_reduce=time_reduce, run_field=run_field)
    if time_field is None:
        for f in files:
            f.implied_time = implied_time(f)
    found = _selected([_split_models(f, options) for f in files], options.select, group)
    # each model's runs (one, without run_field): (model's index, run value, records)
    units = [(k, run, records) for k, (_, _, _, every) in enumerate(found)
             for run, records in _split_runs(every, options.run_field)]
    bounds = check_bounds(bounds, [r for _, _, records in units for r in records],
                          options.failed)
    whose = [_whose(group, found[k][2], options.run_field, run) for k, run, _ in units]
    counted = [count_failed(found[k][0], records, *who, options.failed, bounds,
                            options.minimize) for (k, _, records), who in zip(units, whose)]
    for (k, _, records), who in zip(units, whose):
        enough(found[k][0], records, *who)
    names = _labels(found, options.labels, group, several=len(files) > 1)
    return [make_search(names[k], found[k][0], found[k][1], records,
                        time_field is not None or bool(found[k][0].implied_time), *count,
                        run="" if run is None else run)
            for (k, run, records), count in zip(units, counted)]


@dataclass(frozen=True)
class _Reading:
    """The checked arguments of :func:`read_searches`: the paths, with a column and a
    field per path, and the rules every file is read by."""

    items: list
    columns: list
    fields: list
    group: str | None
    select: list | None
    reduce: str | None
    time_field: str | None
    labels: list | None
    diverged: str
    failed: object
    minimize: bool
    pruned: str
    time_reduce: str | None
    run_field: str | None


def _reading_options(paths, *, column, field, group, select, reduce, time_field, labels,
                     diverged, failed, minimize, pruned, time_reduce, run_field):
    """Check the arguments of :func:`read_searches` (in the order its errors name them)
    before any file is opened.

    Returns
    -------
    _Reading
    """
    items = list(paths) if isinstance(paths, (list, tuple)) else [paths]
    if not items:
        raise check.InvalidArgument("path", "path names no file: give at least one")
    columns = [None if c is None else _column_key(c) for c in _per_path(column, items, "column")]
    fields = _per_path(field, items, "field")
    for value in fields:
        if value is not None:
            path_parts(value, "field")
    for value, name in ((group, "group"), (time_field, "time_field"), (run_field, "run_field")):
        if value is not None:
            path_parts(value, name)
    if reduce is not None:
        check.choice(reduce, "reduce", REDUCTIONS)
    diverged = check.choice(diverged, "diverged", DIVERGED_RULES)
    failed = failed_rule(failed)
    pruned = pruned_rule(pruned)
    if time_reduce is not None:
        check.choice(time_reduce, "time_reduce", TIME_REDUCTIONS)
        if time_field is None:
            raise check.InvalidArgument("time_reduce", "time_reduce needs time_field=FIELD, the "
                                                        "field of the times it reduces")
    minimize = check.boolean(minimize, "minimize")
    select = _names(select, "select")
    labels = _names(labels, "labels")
    if select is not None and group is None:
        raise check.InvalidArgument("select", "select needs group=FIELD, the field naming each "
                                              "record's model (e.g. group='model')")
    if sum(_is_stdin(item) for item in items) > 1:
        raise check.InvalidArgument("path", f"path names standard input ({STDIN!r}) more than "
                                            f"once: it can be read once")
    if run_field is not None and run_field == group:
        raise check.InvalidArgument("run_field", f"run_field {run_field!r} is the group too: "
                                                 f"the group names each record's model, the "
                                                 f"run field its run of that model's search")
    return _Reading(items, columns, fields, group, select, reduce, time_field, labels,
                    diverged, failed, minimize, pruned, time_reduce, run_field)


def _split_models(f, options):
    """The records of one file, split by model, the rules of trial states applied and
    flagged records dropped by the ``diverged`` rule.

    Returns
    -------
    (File, str, dict)
        The file, the metric read, and ``{group value: records}`` in the
        order the models first appear.
    """
    records, metric = _records(f, column=f.column, field=f.field, group=options.group,
                               reduce=options.reduce,
                               time_field=options.time_field or f.implied_time or None,
                               strict=False, time_reduce=options.time_reduce,
                               run_field=options.run_field)
    if not records:
        raise check.InvalidArgument("path", f"{f.name} holds no scores")
    apply_states(records, options.pruned)
    models = {}
    for record in records:
        diverged_rule(record, options.diverged)
        models.setdefault(record.group, []).append(record)
    return f, metric, models


def read_scores(path, *, column=None):
    """Read validation scores from a text file.

    One score per line, or a CSV file (``.csv``, ``.tsv``, or any file
    when ``column`` is given). Blank lines and lines starting with ``#``
    are skipped. Strict: every line must hold a finite score (use
    :func:`read_searches` to drop and count the lines that do not).

    The header rule of CSV files: the first row is a header unless every
    field of it is a number, in which case it is data and ``column`` can
    only be a 0-based index. No number is ever taken for a header.

    Parameters
    ----------
    path : str or Path
        The file.
    column : str or int, optional
        A CSV column, by header name or 0-based index (needed when there
        are several columns).

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        If the file is missing, not a regular file, not UTF-8 text, empty,
        or holds a non-numeric, infinite, NaN or huge (beyond
        ``+-``:data:`evpsim._validate.MAX_SCORE`) score (the message names
        the line); if a CSV file's ``model`` column names several models.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "runs.csv")
    >>> _ = path.write_text("lr,acc\\n0.1,0.52\\n0.01,0.71\\n")
    >>> read_scores(path, column="acc")
    array([0.52, 0.71])
    >>> tmp.cleanup()
    """
    if column is not None:
        column = _column_key(column)
    f = _read_text(path, "csv" if _suffix(path) in CSV_SUFFIXES or column is not None
                   else "text")
    records, _ = _records(f, column=column, strict=True)
    return _strict(f, records)


def read_jsonl_scores(path, field):
    """Read scores from JSON Lines, one object per line; strict.

    Parameters
    ----------
    path : str or path
        A JSON Lines file such as allentune's ``results.jsonl``. Blank lines
        are skipped.
    field : str
        The key holding the score, a dotted path as in
        :func:`read_searches` (``"metrics.best_validation_accuracy"``). It
        must hold a single number: learning curves need
        :func:`read_searches` and its ``reduce``.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        If the file is missing or empty, a line is not a JSON object, its
        field is missing, not a finite number or beyond ``+-1e70`` (the
        message names the line), or its ``model`` field names several
        models.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "results.jsonl")
    >>> _ = path.write_text('{"metrics": {"acc": 0.5}}\\n{"metrics": {"acc": 0.75}}\\n')
    >>> read_jsonl_scores(path, "metrics.acc")
    array([0.5 , 0.75])
    >>> tmp.cleanup()
    """
    path_parts(field, "field")
    f = _read_text(path, "jsonl")
    records, _ = _records(f, field=field, strict=True)
    return _strict(f, records)


# --- arguments ---------------------------------------------------------------------------

def _column_key(value):
    """A CSV column: a header name or a 0-based index (numpy integers too)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, int, np.integer)):
        raise check.InvalidType("column", f"column must be a column's name or 0-based index, "
                                          f"got {value!r}")
    return value if isinstance(value, str) else int(value)


def _names(value, name):
    """``select`` or ``labels``: None, or a list of non-empty strings."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise check.InvalidArgument(name, f"{name} must be a string or a non-empty list of "
                                          f"strings, got {value!r}")
    for item in items:
        check.string(item, name)
    return list(items)


def _suffix(path):
    """The lower-case suffix of a path ("" for what is no path, refused when read)."""
    return Path(path).suffix.lower() if isinstance(path, (str, os.PathLike)) else ""


def _format(path, field, column):
    """``"jsonl"``, ``"csv"`` or ``"text"``, from the suffix or the options given."""
    suffix = _suffix(path)
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in CSV_SUFFIXES:
        return "csv"
    return "jsonl" if field is not None else "csv" if column is not None else "text"


def _is_stdin(path):
    return isinstance(path, str) and path == STDIN


def _read_text(path, fmt, **options):
    if not _is_stdin(path):
        text = check.text_file(path)
        return File(Path(path), repr(str(path)), text, fmt,
                    delimiter="\t" if _suffix(path) == ".tsv" else ",", **options)
    text = _stdin_text()
    first = next((ln for _, ln in content_lines(text)), "")
    if fmt == "text":  # no option tells the format, and there is no suffix: the first line
        fmt = "jsonl" if first.lstrip().startswith("{") else \
            "csv" if any(c in first for c in ",\t") else "text"
    return File(Path("stdin"), "standard input", text, fmt,
                delimiter="\t" if "\t" in first else ",", **options)


def _stdin_text():
    """The text piped to standard input."""
    import sys

    stream = sys.stdin
    if stream is None or stream.closed:
        raise check.InvalidArgument("path", f"path {STDIN!r} reads standard input, which is "
                                            f"closed here: name a file of scores")
    if stream.isatty():  # reading would wait for the user to type the scores
        raise check.InvalidArgument("path", f"path {STDIN!r} reads standard input, which is a "
                                            f"terminal here: pipe the scores in (e.g. "
                                            f"'evpsim curve - < scores.txt') or name a file")
    data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise check.InvalidArgument("path", "cannot read scores from standard input: not "
                                            "text (UTF-8)") from None


def _per_path(value, items, name):
    """An option given once or per path, as one value per path."""
    if not isinstance(value, list):
        return [value] * len(items)
    if len(value) != len(items):
        raise check.InvalidArgument(name, f"{name} has {len(value)} entries for {len(items)} "
                                          f"path(s): give one per path (None for a file "
                                          f"without), or a single {name} for all")
    return value


def _file_list(files):
    return ", ".join(f.name for f in files)


def _check_applicable(files, *, group, reduce, time_field, time_reduce, run_field):
    """Refuse an option that applies to none of the files, or to a plain-text file."""
    shared = {"reduce": reduce, "time_reduce": time_reduce}  # the others are per file
    for name, fmt, what in (("field", "jsonl", "JSON Lines files"),
                            ("reduce", "jsonl", "JSON Lines fields"),
                            ("time_reduce", "jsonl", "JSON Lines time fields"),
                            ("column", "csv", "CSV files")):
        given = [f for f in files if (shared[name] if name in shared else getattr(f, name))
                 is not None]
        if given and fmt not in {f.fmt for f in given}:
            why = " (a CSV cell holds one time)" if name == "time_reduce" else ""
            raise check.InvalidArgument(name, f"{name} applies to {what}, and "
                                              f"{_file_list(given)} holds none{why}")
    for f in files:
        if f.fmt == "jsonl" and f.field is None:
            raise check.InvalidArgument("field", f"field must name the score's key: {f.name} is "
                                                 f"JSON Lines")
        for value, name in ((group, "group"), (time_field, "time_field"),
                            (run_field, "run_field")):
            if value is not None and f.fmt == "text":
                raise check.InvalidArgument(name, f"{name} applies to JSON Lines and CSV files, "
                                                  f"not to plain text such as {f.name}")


# --- reading the records of a file --------------------------------------------------------

def _records(f, *, column=None, field=None, group=None, reduce=None, time_field=None, strict,
             time_reduce=None, run_field=None):
    """The file's records and the name of the score's field or column, read by its format's
    module."""
    if f.fmt == "jsonl":
        return jsonl_records(f, field, group, reduce, time_field, strict, time_reduce,
                             run_field), field
    if f.fmt == "csv":
        return csv_records(f, column, group, time_field, strict, run_field)
    return text_records(f), ""


def _strict(f, records):
    """The scores, or the first dropped record's problem as an error."""
    for record in records:
        if record.score is None:
            raise check.InvalidArgument(record.argument, f"{f.name} {record.detail}")
    if not records:
        raise check.InvalidArgument("path", f"{f.name} holds no scores")
    return np.array([r.score for r in records])


# --- models --------------------------------------------------------------------------------

def _selected(split, select, group):
    """``(file, metric, group value, records)`` of each model kept by ``select``."""
    if select is not None:
        every = list(dict.fromkeys(value for _, _, models in split for value in models))
        unknown = [value for value in select if value not in every]
        if unknown:
            raise check.InvalidArgument("select", f"select {unknown[0]!r} is not a value of "
                                                  f"{group!r} in "
                                                  f"{_file_list(f for f, _, _ in split)}; its "
                                                  f"values: {', '.join(every)}")
        for f, _, models in split:
            if not any(value in models for value in select):
                raise check.InvalidArgument("select", f"{f.name} holds none of the selected "
                                                      f"{group!r} values ({', '.join(select)}); "
                                                      f"its values: {', '.join(models)}")
    return [(f, metric, value, records) for f, metric, models in split
            for value, records in models.items() if select is None or value in select]


def _split_runs(records, run_field):
    """``[(run value, records)]`` of one model's records, the runs in the order they first
    appear; ``[(None, records)]`` without ``run_field``."""
    if run_field is None:
        return [(None, records)]
    runs = {}
    for record in records:
        runs.setdefault(record.run, []).append(record)
    return list(runs.items())


def _whose(group, value, run_field, run):
    """``(group, value)`` naming a model's records in a message (see
    :func:`~evpsim.io.search.enough`), or one run of them: ``file (seed '3')``, ``file
    (model 'cnn', seed '3')``."""
    if run_field is None:
        return group, value
    if group is None:
        return run_field, run
    return f"{group} {value!r}, {run_field}", run


def _labels(found, labels, group, several):
    """The models' labels: given, or from the file stems and group values; never repeated."""
    if labels is not None:
        if len(labels) != len(found):
            names = ", ".join(_default_label(f, v, group, several) for f, _, v, _ in found)
            raise check.InvalidArgument("labels", f"labels has {len(labels)} name"
                                                  f"{'s' if len(labels) != 1 else ''} for "
                                                  f"{len(found)} model"
                                                  f"{'s' if len(found) != 1 else ''} ({names}): "
                                                  f"give one per model")
        out, argument = labels, "labels"
    else:
        out = [_default_label(f, v, group, several) for f, _, v, _ in found]
        argument = "path"
    seen = {}
    for label, (f, _, _, _) in zip(out, found):
        if label in seen:
            hint = "give each model its own" if argument == "labels" else \
                f"{seen[label].name} and {f.name}; name them with labels"
            raise check.InvalidArgument(argument, f"two models are both labelled {label!r}: "
                                                  f"{hint}")
        seen[label] = f
    return out


def _default_label(f, value, group, several):
    if group is None:
        return f.path.stem
    return f"{f.path.stem}/{value}" if several else value
