"""Scores of hyperparameter searches, read from the files researchers have.

Every score file evpsim reads goes through this module. Three formats:

* plain text, one score per line (blank lines and ``#`` comments skipped);
* CSV (``.csv``; ``.tsv`` is tab-separated), one trial per row, the score
  in one column;
* JSON Lines (``.jsonl``, ``.ndjson``), one trial per line, the score in a
  field reached by a dotted path. This covers allentune's ``results.jsonl``
  (keys flattened by pandas, such as ``model.encoder.type``; several models
  told apart by the ``model`` field; ``training_duration`` written by
  AllenNLP as ``H:MM:SS.ffffff``) and opda's learning curves (a list of
  checkpoints per trial, reduced to one score by their max, min or last).

:func:`read_searches` reads one or more files into one :class:`Search` per
model. A trial that ran but gave no score (an empty learning curve, a NaN or
null score, a run flagged as diverged or failed without one) is a *failed*
trial: by default it counts at the worst score, since it is a trial the
search spent. Records that cannot be read (missing fields, text that is not
a number, lines that are not JSON) are dropped and counted by reason. It
never pools the models of a file. The path ``-`` reads standard input.
:func:`read_scores` and :func:`read_jsonl_scores` are the
strict readers behind ``file:PATH`` truths and the reproductions: there,
every record must hold a finite score.
"""

from __future__ import annotations

import csv
import datetime
import json
import math
import os
import re
from dataclasses import dataclass
from dataclasses import field as _field
from pathlib import Path

import numpy as np

from .. import _validate as check
from .._format import number
from .trials import apply_states, describe_sampler, pruned_kept, pruned_rule, state_kind

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

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv", ".tsv")
#: ways to make one score of a learning curve (a field holding a list)
REDUCTIONS = ("max", "min", "last")
#: the field (JSON Lines) or column (CSV) naming the model, as allentune writes it
MODEL_FIELD = "model"
#: ways to make one duration of a time field holding a list (one per checkpoint)
TIME_REDUCTIONS = ("last", "sum", "max")
#: a search needs two scores (a standard error needs two)
MIN_SCORES = 2
#: JSON Lines fields whose value ``true`` flags a run that diverged (opda's results files)
DIVERGED_FLAGS = ("nan_train_loss",)
#: what becomes of a flagged record (see :func:`read_searches`)
DIVERGED_RULES = ("keep", "drop")
#: what becomes of a failed trial, besides a score to count it at (see :func:`read_searches`)
FAILED_RULES = ("worst", "drop")
#: CSV columns and JSON Lines fields (any case) holding a trial's state (Optuna: state;
#: W&B: State; MLflow, Ray Tune: status)
STATE_FIELDS = ("state", "status")
#: the columns that make a CSV file a W&B runs-table export, and the one of its trials'
#: durations (seconds), taken as the time field when none is given
WANDB_COLUMNS = ("Name", "State", "Runtime")
WANDB_TIME = "Runtime"
#: states (any case, after an optional ``TrialState.``) of a trial that failed
FAILED_STATES = ("fail", "failed", "error", "crashed", "killed")
#: the path that names standard input
STDIN = "-"

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
# reasons for which a record without a score is a failed trial; the other reasons
# (text that is not a number, a line that is not JSON ...) are records that cannot be read
FAILED_REASONS = (EMPTY_CURVE, DIVERGED)
# reasons that make a flagged record (diverged, a failed state) a failed trial too
NO_SCORE = (FIELD_MISSING, COLUMN_MISSING, EMPTY_CELL)

_MISSING = object()  # what a dotted path reaches when the record lacks it
_INDEX = re.compile(r"-?\d+")
# str(datetime.timedelta): "0:03:24", "0:03:24.374862", "1 day, 2:03:04.500000"; pandas'
# str(Timedelta): "0 days 00:10:00", "1 days 02:03:04.500000"
_TIMEDELTA = re.compile(r"(?:(\d+) days?,? )?(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)")
# ISO 8601 durations of days and times: "PT10M", "P1DT2H3M4.5S" (not "P" or "PT" alone)
_ISO_DURATION = re.compile(r"P(?=\d|T\d)(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?",
                           re.IGNORECASE)
_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


@dataclass(frozen=True, eq=False)
class Search:
    """One model's trials read from a results file.

    Attributes
    ----------
    label : str
        The model's name: given, the file's stem, or the value of the group
        field (``stem/value`` when several files are grouped).
    scores : ndarray of float
        The kept scores, in file order.
    durations : ndarray of float or None
        Seconds per kept trial (NaN where the record had none), or None when
        no ``time_field`` was given.
    source : str
        The file's name (not its full path).
    metric : str
        The field or column holding the scores (``""`` for plain text).
    records : int
        Records (lines, rows) read for this model, kept and dropped.
    dropped : dict
        ``{reason: count}`` of the dropped records, reasons in plain words
        (``"field missing"``, ``"empty learning curve"``, ``"NaN, infinite
        or null (diverged)"`` ...), in the order first met; only nonzero
        counts.
    durations_missing : int
        Kept trials without a duration (NaN in ``durations``).
    diverged_kept : dict
        ``{flag: count}`` of the kept trials flagged as diverged (see
        :data:`DIVERGED_FLAGS`; scored by their checkpoints before
        diverging) or with a failed state (``"state FAIL"``; scored by the
        value they recorded); only nonzero counts.
    failed : dict
        ``{reason: count}`` of the failed trials (records of trials that
        ran but gave no score), counted at ``failed_score`` among the
        scores or, when ``failed_score`` is None, dropped (and counted in
        ``dropped`` too); only nonzero counts.
    failed_score : float or None
        The score the failed trials count at, or None when they are dropped.
    failed_basis : str
        Where ``failed_score`` comes from: ``"the lowest observed"``,
        ``"the highest observed"``, ``"the lower end of bounds"``,
        ``"the upper end of bounds"`` or ``"given"`` (``""`` when dropped).
    pruned : int or None
        Pruned trials counted at the score they reached, their last
        intermediate value (see :mod:`evpsim.io.trials`); pruned trials made
        failed or dropped are counted in ``failed`` or ``dropped`` as
        ``"pruned"``. None where nothing records whether a trial was pruned
        (a file without a state column, a tool without a pruned state).
    sampler : str
        How the search drew its trials, where the tool records it (Optuna's
        ``RandomSampler``, Ray Tune's ``BasicVariantGenerator`` ...), or
        ``"not recorded"``; ``""`` for a file, which records none.
    minimize : bool or None
        The direction the tool recorded (an Optuna study's), or None.
    implied_time : str
        The column taken as the trials' durations without a time field
        being given: ``"Runtime"`` of a W&B runs-table export (see
        :data:`WANDB_COLUMNS`); ``""`` otherwise.
    """

    label: str
    scores: np.ndarray
    durations: np.ndarray | None
    source: str
    metric: str
    records: int
    dropped: dict
    durations_missing: int = 0
    diverged_kept: dict = _field(default_factory=dict)
    failed: dict = _field(default_factory=dict)
    failed_score: float | None = None
    failed_basis: str = ""
    pruned: int | None = None
    sampler: str = ""
    minimize: bool | None = None
    implied_time: str = ""


@dataclass
class _Record:
    """One trial of a file: its score, or why it was dropped."""

    line: int
    score: float | None = None
    reason: str = ""        # why the record was dropped
    detail: str = ""        # "line N: ...", for messages
    argument: str = "path"  # the argument a strict reader blames
    group: object = None    # the group value, once read
    duration: float = math.nan
    flag: str = ""          # the flag marking the run as diverged or failed, if any
    failed: str = ""        # why the trial failed, when it is counted at the worst score
    state: str | None = None  # the kind of its recorded state (trials.state_kind), if any

    def drop(self, reason, detail, argument="path"):
        self.reason, self.detail, self.argument = reason, f"line {self.line}: {detail}", argument


@dataclass
class _File:
    """A file read, with its format."""

    path: Path
    name: str    # repr(str(path)), as messages show it
    text: str
    fmt: str     # "text", "csv" or "jsonl"
    delimiter: str = ","  # of a CSV file
    field: str | None = None       # the score's field (JSON Lines)
    column: str | int | None = None  # the score's column (CSV)
    implied_time: str = ""  # the durations' column when no time field is given (W&B's)


def describe_dropped(dropped):
    """``{reason: count}`` as words: ``"2 field missing; 1 not JSON"``.

    Examples
    --------
    >>> describe_dropped({"empty learning curve": 3, "not JSON": 1})
    '3 empty learning curve; 1 not JSON'
    """
    return "; ".join(f"{count} {reason}" for reason, count in dropped.items())


def describe_reading(search, what="the curve"):
    """What reading counted, left out or kept unusually, as ``"; ..."`` clauses (``""`` if
    nothing).

    Failed trials and the score they count at (or, dropped, that the scores
    are then conditional on a trial succeeding), dropped records by reason,
    kept trials flagged as diverged or failed, pruned trials counted at the
    score they reached, kept trials without a duration (left out of the mean
    duration behind an expected wall-clock axis), and the sampler where the
    tool recorded one (with a warning when it is not random search, which
    the curve assumes): what a line describing the model must say. ``what`` names what
    is made of the scores (``"the curve"``, ``"the fit"``), which dropped
    failed trials make conditional on success.

    Examples
    --------
    >>> s = Search("cnn", np.array([0.4, 0.5, 0.6, 0.4]), np.array([60.0, np.nan, 90.0, 5.0]),
    ...            "results.jsonl", "acc", 6, {"field missing": 2}, durations_missing=1,
    ...            diverged_kept={"nan_train_loss": 1}, failed={"empty learning curve": 1},
    ...            failed_score=0.4, failed_basis="the lowest observed")
    >>> for note in describe_reading(s).split("; ")[1:]:
    ...     print(note)
    1 failed (empty learning curve) counted at the worst score 0.4 (the lowest observed)
    dropped 2 of 6 records: 2 field missing
    kept 1 diverged run (nan_train_loss), scored by its checkpoints before diverging
    1 of 4 kept trials has no duration: the expected wall-clock uses the mean of the other 3
    >>> from dataclasses import replace
    >>> s = replace(s, dropped={}, failed={}, diverged_kept={}, durations_missing=0, pruned=2,
    ...             sampler="TPESampler")
    >>> for note in describe_reading(s).split("; ")[1:]:
    ...     print(note)
    2 pruned trials counted at their last intermediate value
    sampler TPESampler: warning: not random search, which the curve assumes (independent draws)
    """
    notes = []
    k = sum(search.failed.values())
    if k and search.failed_score is not None:
        why = describe_dropped(search.failed) if len(search.failed) > 1 else \
            next(iter(search.failed))
        worst = "" if search.failed_basis == "given" else "the worst score "
        notes.append(f"{k} failed ({why}) counted at {worst}{number(search.failed_score)} "
                     f"({search.failed_basis})")
    if search.dropped:
        notes.append(f"dropped {sum(search.dropped.values())} of {search.records} records: "
                     f"{describe_dropped(search.dropped)}")
    if k and search.failed_score is None:
        notes.append(f"{what} is conditional on success ({k} failed trial"
                     f"{'' if k == 1 else 's'} dropped)")
    for flag, count in search.diverged_kept.items():
        one = count == 1
        notes.append(f"kept {count} diverged run{'' if one else 's'} ({flag}), scored by "
                     f"{'its' if one else 'their'} checkpoints before diverging"
                     if flag in DIVERGED_FLAGS else
                     f"kept {count} run{'' if one else 's'} marked {flag}, scored by the "
                     f"value {'it' if one else 'they'} recorded")
    if search.pruned:
        one = search.pruned == 1
        notes.append(f"{search.pruned} pruned trial{'' if one else 's'} counted at "
                     f"{'its' if one else 'their'} last intermediate value")
    if search.implied_time:
        notes.append(f"durations from its {search.implied_time} column, as a W&B runs export "
                     f"records them")
    if search.durations_missing:
        k, size = search.durations_missing, search.scores.size
        notes.append(f"{k} of {size} kept trials {'has' if k == 1 else 'have'} no duration: "
                     f"the expected wall-clock uses the mean of the other {size - k}")
    if search.sampler:
        notes.append(describe_sampler(search.sampler))
    return "".join(f"; {note}" for note in notes)


def read_searches(paths, *, column=None, field=None, group=None, select=None, reduce=None,
                  time_field=None, labels=None, diverged="keep", failed="worst", bounds=None,
                  minimize=False, pruned="last", time_reduce=None):
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
    bounds : (float, float), optional
        The metric's range (e.g. ``(0, 1)``); its lower end (upper, with
        ``minimize``) is the worst score. It must contain every score read.
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

    Returns
    -------
    list of Search
        One per model: the files in the order given, the models of a file
        in the order they first appear. Failed trials counted at a score
        are among the scores, in file order.

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
                               pruned=pruned, time_reduce=time_reduce)
    files = [_read_text(item, _format(item, fd, col), field=fd, column=col)
             for item, fd, col in zip(options.items, options.fields, options.columns)]
    _check_applicable(files, group=group, reduce=reduce, time_field=time_field)
    if time_field is None:
        for f in files:
            f.implied_time = _implied_time(f)
    found = _selected([_split_models(f, options) for f in files], options.select, group)
    bounds = _bounds(bounds, [r for _, _, _, records in found for r in records], options.failed)
    counted = [_count_failed(f, records, group, value, options.failed, bounds, options.minimize)
               for f, _, value, records in found]
    for f, _, value, records in found:
        _enough(f, records, group, value)
    names = _labels(found, options.labels, group, several=len(files) > 1)
    return [_search(label, f, metric, records, time_field is not None or bool(f.implied_time),
                    *count)
            for label, (f, metric, _, records), count in zip(names, found, counted)]


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


def _reading_options(paths, *, column, field, group, select, reduce, time_field, labels,
                     diverged, failed, minimize, pruned, time_reduce):
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
            _parts(value, "field")
    for value, name in ((group, "group"), (time_field, "time_field")):
        if value is not None:
            _parts(value, name)
    if reduce is not None:
        check.choice(reduce, "reduce", REDUCTIONS)
    diverged = check.choice(diverged, "diverged", DIVERGED_RULES)
    failed = _failed_rule(failed)
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
    return _Reading(items, columns, fields, group, select, reduce, time_field, labels,
                    diverged, failed, minimize, pruned, time_reduce)


def _implied_time(f):
    """W&B's ``Runtime`` when ``f`` is a CSV file headed as a W&B runs-table export (see
    :data:`WANDB_COLUMNS`), else ``""``."""
    if f.fmt != "csv":
        return ""
    first = next((ln for ln in f.text.splitlines()
                  if ln.strip() and not ln.lstrip().startswith("#")), "")
    header = {h.strip() for h in next(csv.reader([first], delimiter=f.delimiter), [])}
    return WANDB_TIME if set(WANDB_COLUMNS) <= header else ""


def _split_models(f, options):
    """The records of one file, split by model, the rules of trial states applied and
    flagged records dropped by the ``diverged`` rule.

    Returns
    -------
    (_File, str, dict)
        The file, the metric read, and ``{group value: records}`` in the
        order the models first appear.
    """
    records, metric = _records(f, column=f.column, field=f.field, group=options.group,
                               reduce=options.reduce,
                               time_field=options.time_field or f.implied_time or None,
                               strict=False, time_reduce=options.time_reduce)
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
    _parts(field, "field")
    f = _read_text(path, "jsonl")
    records, _ = _records(f, field=field, strict=True)
    return _strict(f, records)


# --- arguments ---------------------------------------------------------------------------

def _parts(value, name):
    """A dotted path's parts; the argument's check."""
    if not isinstance(value, str) or not value:
        raise check.InvalidArgument(name, f"{name} must be a non-empty key, got {value!r}")
    parts = value.split(".")
    if not all(parts):
        raise check.InvalidArgument(name, f"{name} {value!r} has an empty part (two dots, or a "
                                          f"dot at an end)")
    return parts


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
        return _File(Path(path), repr(str(path)), text, fmt,
                     delimiter="\t" if _suffix(path) == ".tsv" else ",", **options)
    text = _stdin_text()
    first = next((ln for ln in text.splitlines()
                  if ln.strip() and not ln.lstrip().startswith("#")), "")
    if fmt == "text":  # no option tells the format, and there is no suffix: the first line
        fmt = "jsonl" if first.lstrip().startswith("{") else \
            "csv" if any(c in first for c in ",\t") else "text"
    return _File(Path("stdin"), "standard input", text, fmt,
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


def _check_applicable(files, *, group, reduce, time_field):
    """Refuse an option that applies to none of the files, or to a plain-text file."""
    for name, fmt, what in (("field", "jsonl", "JSON Lines files"),
                            ("reduce", "jsonl", "JSON Lines fields"),
                            ("column", "csv", "CSV files")):
        given = [f for f in files if (reduce if name == "reduce" else getattr(f, name))
                 is not None]
        if given and fmt not in {f.fmt for f in given}:
            raise check.InvalidArgument(name, f"{name} applies to {what}, and "
                                              f"{_file_list(given)} holds none")
    for f in files:
        if f.fmt == "jsonl" and f.field is None:
            raise check.InvalidArgument("field", f"field must name the score's key: {f.name} is "
                                                 f"JSON Lines")
        for value, name in ((group, "group"), (time_field, "time_field")):
            if value is not None and f.fmt == "text":
                raise check.InvalidArgument(name, f"{name} applies to JSON Lines and CSV files, "
                                                  f"not to plain text such as {f.name}")


# --- reading the records of a file --------------------------------------------------------

def _records(f, *, column=None, field=None, group=None, reduce=None, time_field=None, strict,
             time_reduce=None):
    """The file's records and the name of the score's field or column."""
    if f.fmt == "jsonl":
        return _jsonl_records(f, field, group, reduce, time_field, strict, time_reduce), field
    lines = [(i + 1, ln) for i, ln in enumerate(f.text.splitlines())
             if ln.strip() and not ln.lstrip().startswith("#")]
    if f.fmt == "csv":
        return _csv_records(f, lines, column, group, time_field, strict)
    records = []
    for line, text in lines:
        record = _Record(line)
        _text_score(record, text, f.name)
        records.append(record)
    return records, ""


def _strict(f, records):
    """The scores, or the first dropped record's problem as an error."""
    for record in records:
        if record.score is None:
            raise check.InvalidArgument(record.argument, f"{f.name} {record.detail}")
    if not records:
        raise check.InvalidArgument("path", f"{f.name} holds no scores")
    return np.array([r.score for r in records])


def _text_score(record, raw, name):
    """The score of a line of text or a CSV cell."""
    text = raw.strip()
    if not text:
        record.drop(EMPTY_CELL, "the score's cell is empty")
        return
    try:
        value = float(text)
    except ValueError:
        hint = " (CSV fields are separated by commas; tab-separated files end in .tsv)" \
            if any(c in text for c in ";\t") else ""
        record.drop(NOT_NUMBER, f"{text!r} is not a number{hint}")
        return
    if not math.isfinite(value):
        record.drop(DIVERGED, f"score is {text!r}, not a finite number")
        return
    record.score = check.file_score(value, f"{name} line {record.line}", "score", repr(text))


def _too_many_models(f, names, where, strict):
    """The error for a file whose ``model`` field or column holds several names."""
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    # a strict read (a file: truth, a reproduction) takes one model; read_searches splits
    how = "give a file holding one model's scores" if strict else \
        "pass group='model' to read them apart"
    return check.InvalidArgument("group", f"{f.name} holds {len(names)} models in its "
                                          f"{MODEL_FIELD!r} {where} ({shown}), which are never "
                                          f"pooled: {how}")


def _keys(obj):
    keys = list(obj)
    return ", ".join(keys[:40]) + (", ..." if len(keys) > 40 else "") if keys else "none"


def _jsonl_records(f, field, group, reduce, time_field, strict, time_reduce=None):
    parts = _parts(field, "field")
    group_parts = _parts(group, "group") if group is not None else None
    time_parts = None if time_field is None else [_parts(key, "time_field")
                                                  for key in _time_keys(time_field)]
    records, first, models = [], None, {}
    # does some record have the field (beyond an empty list), the group, the time?
    seen = {"field": False, "group": False, "time_field": False}
    for line, text in enumerate(f.text.splitlines(), start=1):
        if not text.strip():
            continue
        record = _Record(line)
        records.append(record)
        obj = _json_object(record, text)
        if obj is None:
            if group is not None:  # the record cannot be counted against any model
                raise check.InvalidArgument("path", f"{f.name} {record.detail}, so its "
                                                    f"{group!r} is unknown: repair or remove "
                                                    f"the line")
            continue
        first = obj if first is None else first
        if group is None and isinstance(obj.get(MODEL_FIELD), str):
            models[obj[MODEL_FIELD]] = True
        if group is not None:
            record.group = _lookup(obj, group_parts)
            seen["group"] |= record.group is not _MISSING
        if time_parts is not None:
            values = [_lookup(obj, parts) for parts in time_parts]
            seen["time_field"] |= all(value is not _MISSING for value in values)
            record.duration = _duration(values, f"{f.name} line {line}", time_field, time_reduce)
        value = _lookup(obj, parts)
        seen["field"] |= value is not _MISSING and value != []
        _json_score(record, value, field, reduce, f.name, keys=obj)
        record.flag = next((flag for flag in DIVERGED_FLAGS if obj.get(flag) is True), "") \
            or _state_flag(obj.items())
        record.state = next((state_kind(v) for k, v in obj.items()
                             if isinstance(k, str) and k.lower() in STATE_FIELDS), None)
    if len(models) > 1:
        raise _too_many_models(f, list(models), "field", strict)
    # a key that no record has is a typo; one that some records lack is counted
    for name, value, asked in (("field", field, any(r.reason == FIELD_MISSING for r in records)),
                               ("group", group, group is not None),
                               ("time_field", time_field, time_field is not None)):
        if asked and first is not None and not seen[name]:
            raise check.InvalidArgument(name, f"{name} {value!r} is in no record of {f.name}; "
                                              f"the first record's keys: {_keys(first)}")
    if group is not None:
        for record in records:
            record.group = _group_name(record, group, f.name)
    return records


def _json_object(record, text):
    """The JSON object of a line, or None (the record dropped, saying why)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        record.drop(NOT_JSON, f"not JSON ({err.msg})")
        return None
    except RecursionError:
        record.drop(NOT_JSON, "JSON nested too deeply")
        return None
    if not isinstance(obj, dict):
        record.drop(NOT_OBJECT, f"the line is a JSON {_JSON_TYPES.get(type(obj))}, not an "
                                f"object")
        return None
    return obj


def _group_name(record, group, name):
    """The model a record belongs to: its group value as a string."""
    value = record.group
    if value is _MISSING or value is None or isinstance(value, (dict, list)):
        shown = "missing" if value is _MISSING else _show(value)
        raise check.InvalidArgument("group", f"{name} line {record.line}: {group!r} is {shown}, "
                                             f"so the record's model is unknown")
    return value if isinstance(value, str) else json.dumps(value)


def _lookup(node, parts):
    """The value at a dotted path (see :func:`read_searches`), or ``_MISSING``.

    At an array not indexed by an integer the rest of the path is mapped
    over the elements (objects only, unless the part is ``*``), giving a
    list; an element that lacks it is None there.
    """
    if not parts:
        return node
    if isinstance(node, dict):
        for cut in range(len(parts), 0, -1):
            key = ".".join(parts[:cut])
            if key in node:
                found = _lookup(node[key], parts[cut:])
                if found is not _MISSING:
                    return found
        return _MISSING
    if isinstance(node, list):
        head = parts[0]
        if _INDEX.fullmatch(head):
            i = int(head)
            return _lookup(node[i], parts[1:]) if -len(node) <= i < len(node) else _MISSING
        rest = parts[1:] if head == "*" else parts
        items = [_lookup(item, rest) if head == "*" or isinstance(item, dict) else _MISSING
                 for item in node]
        if items and all(item is _MISSING for item in items):
            return _MISSING
        return [None if item is _MISSING else item for item in items]
    return _MISSING


def _show(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_score(record, value, field, reduce, name, keys):
    """The score of a JSON record, or why it is dropped."""
    where = f"{name} line {record.line}"
    if value is _MISSING:
        record.drop(FIELD_MISSING, f"no field {field!r}; keys: {_keys(keys)}", "field")
    elif isinstance(value, list):
        if reduce is None:
            raise check.InvalidArgument("reduce", f"reduce is needed: {where}: {field} holds a "
                                                  f"list of {len(value)} checkpoints (a learning "
                                                  f"curve); choose max, min or last")
        _reduce(record, value, field, reduce, where)
    elif reduce is not None and value is not None:
        raise check.InvalidArgument("reduce", f"reduce applies to a field holding a list (a "
                                              f"learning curve), but {where}: {field} is "
                                              f"{_show(value)}")
    elif value is None or (isinstance(value, float) and not math.isfinite(value)):
        record.drop(DIVERGED, f"{field} is {value!r}, not a finite number")
    elif not _is_number(value):
        record.drop(NOT_NUMBER, f"{field} is {_show(value)}, not a finite number")
    else:
        record.score = check.file_score(value, where, field)


def _reduce(record, values, field, how, where):
    """One score from a learning curve: its max, min or last checkpoint."""
    points = []
    for value in values:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            points.append(math.nan)
        elif not _is_number(value):
            hint = f"; reach into lists with '*' (e.g. {field}.*.1)" \
                if isinstance(value, list) else ""
            record.drop(NOT_NUMBER, f"{field} holds {_show(value)} where a number should "
                                    f"be{hint}")
            return
        else:
            points.append(check.file_score(value, where, f"a checkpoint of {field}"))
    if all(math.isnan(p) for p in points):
        record.drop(EMPTY_CURVE, f"{field} has no finite checkpoint ({len(points)} in all)")
    elif how == "last":
        if math.isnan(points[-1]):
            record.drop(DIVERGED, f"the last checkpoint of {field} is NaN or null")
        else:
            record.score = points[-1]
    else:
        record.score = float(np.nanmax(points) if how == "max" else np.nanmin(points))


def _seconds(value, where, what, how=None):
    """A duration in seconds: a number, AllenNLP's ``str(timedelta)``, pandas'
    ``str(Timedelta)`` or ISO 8601's ``PnDTnHnMnS``, or a list of them reduced by ``how``
    (see ``time_reduce``); NaN when missing."""
    if value is _MISSING or value is None:
        return math.nan
    if isinstance(value, list):
        if how is None:
            raise check.InvalidArgument("time_reduce", f"time_reduce is needed: {where}: {what} "
                                                       f"holds a list of {len(value)} times (one "
                                                       f"per checkpoint); choose "
                                                       f"{', '.join(TIME_REDUCTIONS)}")
        times = [_seconds(v, where, what) for v in value]
        if not times or all(math.isnan(t) for t in times):
            return math.nan
        return float(times[-1] if how == "last" else np.nansum(times) if how == "sum"
                     else np.nanmax(times))
    number = value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return math.nan
        match = _TIMEDELTA.fullmatch(text) or _ISO_DURATION.fullmatch(text)
        if match:
            days, hours, minutes, seconds = match.groups()
            return (int(days or 0) * 86400 + int(hours or 0) * 3600 + int(minutes or 0) * 60
                    + float(seconds or 0))
        try:
            number = float(text)
        except ValueError:
            number = None
    if _is_number(number) and math.isnan(number):
        return math.nan
    if not _is_number(number) or not 0 <= number < math.inf:
        raise check.InvalidArgument("time_field", f"{where}: {what} is {_show(value)}, not a "
                                                  f"duration (seconds, H:MM:SS[.ffffff] after "
                                                  f"'N days, ' or 'N days ' beyond a day, or "
                                                  f"ISO 8601's PnDTnHnMnS)")
    return float(number)


def _time_keys(time_field):
    """The keys of a time field: one (a duration), or two timestamps (``START,END``)."""
    return [key.strip() for key in str(time_field).split(",")] if "," in str(time_field) \
        else [time_field]


def _duration(values, where, what, how=None):
    """Seconds of a duration (one value, see :func:`_seconds`) or between two timestamps."""
    if len(values) == 1:
        return _seconds(values[0], where, what, how)
    if len(values) != 2:
        raise check.InvalidArgument("time_field", f"time_field {what!r} names {len(values)} "
                                                  f"fields: give one (a duration) or two "
                                                  f"(START,END timestamps)")
    start, end = (_instant(v, where, what) for v in values)
    if end < start:
        raise check.InvalidArgument("time_field", f"{where}: {what} ends before it starts")
    return end - start


def _instant(value, where, what):
    """A timestamp in seconds: a number (Unix time) or ISO 8601 text; NaN when missing."""
    if value is _MISSING or value is None or (isinstance(value, str) and not value.strip()):
        return math.nan
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        try:
            return datetime.datetime.fromisoformat(re.sub(r"Z$", "+00:00", text)).timestamp()
        except ValueError:
            pass
    raise check.InvalidArgument("time_field", f"{where}: {what} holds {_show(value)}, not a "
                                              f"timestamp (Unix seconds, or ISO 8601 such as "
                                              f"2026-11-20T10:00:00Z)")


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


def _csv_records(f, lines, column, group, time_field, strict):
    """Records of a CSV file (see :func:`read_scores` for the header rule)."""
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
    group_col = None if group is None else _csv_index(f, header, width, group, "group")
    time_cols = None if time_field is None else [_csv_index(f, header, width, key, "time_field")
                                                 for key in _time_keys(time_field)]
    state_col = next((i for i, name in enumerate(header or ()) if name.lower() in STATE_FIELDS),
                     None)
    body = list(zip([i for i, _ in lines], rows))[0 if header is None else 1:]
    if group is None and header is not None and MODEL_FIELD in header[:col] + header[col + 1:]:
        at = header.index(MODEL_FIELD)
        names = list(dict.fromkeys(row[at].strip() for _, row in body
                                   if at < len(row) and row[at].strip()))
        if len(names) > 1:
            raise _too_many_models(f, names, "column", strict)
    records = []
    for line, row in body:
        record = _Record(line)
        records.append(record)
        if group_col is not None:
            record.group = row[group_col].strip() if group_col < len(row) else ""
            if not record.group:
                raise check.InvalidArgument("group", f"{f.name} line {line}: no {group!r}, so "
                                                     f"the row's model is unknown")
        if time_cols is not None:
            record.duration = _duration([row[i] if i < len(row) else None for i in time_cols],
                                        f"{f.name} line {line}", time_field)
        if state_col is not None and state_col < len(row):
            record.flag = _state_flag([(header[state_col], row[state_col])])
            record.state = state_kind(row[state_col])
        if col >= len(row):
            record.drop(COLUMN_MISSING, f"missing column "
                                        f"{column if column is not None else 0!r}")
        else:
            _text_score(record, row[col], f.name)
    metric = header[col] if header is not None else "" if column is None else str(column)
    return records, metric


def _state_flag(items, *, named=False):
    """``"state FAIL"`` when one of ``(key, value)`` is a state field saying the trial
    failed (see :data:`STATE_FIELDS`; any key when ``named``: a field named as the
    trials' state), else ``""``."""
    for key, value in items:
        if isinstance(key, str) and (named or key.lower() in STATE_FIELDS) \
                and isinstance(value, str):
            state = value.strip()
            bare = state.lower().removeprefix("trialstate.")
            if bare in FAILED_STATES:
                return f"{key} {state}"
    return ""


def _is_number_text(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- failed trials -------------------------------------------------------------------------

def _failed_rule(failed):
    """``failed``: ``"worst"``, ``"drop"``, or a finite score."""
    if isinstance(failed, str):
        return check.choice(failed, "failed", FAILED_RULES)
    if isinstance(failed, (bool, np.bool_)) or not isinstance(failed, (int, float, np.number)):
        raise check.InvalidType("failed", f"failed must be 'worst', 'drop' or a score, got "
                                          f"{failed!r}")
    value = check.number(failed, "failed")
    if abs(value) > check.MAX_SCORE:
        raise check.InvalidArgument("failed", f"failed must lie within +-{check.MAX_SCORE:.0e}, "
                                              f"got {failed!r}")
    return value


def _bounds(bounds, records, failed):
    """``bounds`` checked against every score read, and a ``failed`` score within them."""
    if bounds is None:
        return None
    scores = [r.score for r in records if r.score is not None]
    lo, hi = check.bounds(bounds, min(scores, default=math.inf), max(scores, default=-math.inf),
                          "the scores")
    if not isinstance(failed, str) and not lo <= failed <= hi:
        raise check.InvalidArgument("failed", f"failed {failed:g} lies outside bounds ({lo:g}, "
                                              f"{hi:g}): a failed trial counts at a score the "
                                              f"metric can take")
    return lo, hi


def diverged_rule(record, diverged):
    """Drop a record flagged as diverged or failed when ``diverged`` is ``"drop"``."""
    if record.flag and diverged == "drop" and (record.score is not None or _failure(record)):
        record.score = None
        record.drop(f"{FLAGGED} ({record.flag})",
                    f"{record.flag} is true (the run diverged)"
                    if record.flag in DIVERGED_FLAGS else f"{record.flag} (the run failed)")


def _failure(record):
    """Why a record is a failed trial (a trial that ran but gave no score), or ``""``."""
    if record.score is not None or record.reason.startswith(FLAGGED):
        return ""
    if record.reason in FAILED_REASONS:
        return record.reason
    if record.failed:  # made a failed trial by its state (a pruned trial, trials.apply_states)
        return record.failed
    return f"{record.flag}, no score" if record.flag and record.reason in NO_SCORE else ""


def _count_failed(f, records, group, value, failed, bounds, minimize):
    """Count a model's failed trials by ``failed``: ``(counts, score, basis)``.

    Each failed record is given the score it counts at, or left dropped.
    """
    failures = [(r, _failure(r)) for r in records]
    failures = [(r, why) for r, why in failures if why]
    if not failures:
        return {}, None, ""
    if failed == "drop":
        score, basis = None, ""
    elif failed != "worst":
        score, basis = failed, "given"
    elif bounds is not None:
        score, basis = (bounds[1], "the upper end of bounds") if minimize else \
            (bounds[0], "the lower end of bounds")
    else:
        observed = [r.score for r in records if r.score is not None]
        if not observed:
            who = f.name if group is None else f"{f.name} ({group} {value!r})"
            every = "its only trial" if len(records) == 1 else \
                f"all {len(records)} of its trials"
            raise check.InvalidArgument("failed", f"{who}: {every} failed, so no score was "
                                                  f"observed to count failed trials at: give "
                                                  f"bounds=(lo, hi) (the worst score is then "
                                                  f"its {'upper' if minimize else 'lower'} "
                                                  f"end), or failed=SCORE")
        score, basis = (max(observed), "the highest observed") if minimize else \
            (min(observed), "the lowest observed")
    counts = {}
    for record, why in failures:
        counts[why] = counts.get(why, 0) + 1
        record.score, record.failed = score, why
    return counts, score, basis


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


def _enough(f, records, group, value):
    """Refuse a model left with fewer than :data:`MIN_SCORES` scores, saying why."""
    kept = sum(r.score is not None for r in records)
    if kept >= MIN_SCORES:
        return
    who = f.name if group is None else f"{f.name} ({group} {value!r})"
    dropped = [r for r in records if r.score is None]
    if not dropped:
        raise check.InvalidArgument("path", f"{who} holds 1 score; a search needs at least "
                                            f"{MIN_SCORES}")
    why = f"{describe_dropped(_counts(dropped))}; first, {dropped[0].detail}"
    read = f"{len(records)} record{'s' if len(records) > 1 else ''}"
    if not kept:
        raise check.InvalidArgument("path", f"{who} holds no scores: {read} read, all dropped "
                                            f"({why})")
    raise check.InvalidArgument("path", f"{who} holds 1 score of {read}, too few for a search "
                                        f"(at least {MIN_SCORES}); {len(dropped)} dropped "
                                        f"({why})")


def _counts(dropped):
    counts = {}
    for record in dropped:
        counts[record.reason] = counts.get(record.reason, 0) + 1
    return counts


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


def _search(label, f, metric, records, timed, failed, failed_score, failed_basis):
    kept = [r for r in records if r.score is not None]
    durations = np.array([r.duration for r in kept]) if timed else None
    flagged = {}
    for r in kept:
        if r.flag and not r.failed:
            flagged[r.flag] = flagged.get(r.flag, 0) + 1
    return Search(label=label, scores=np.array([r.score for r in kept]), durations=durations,
                  source=f.path.name, metric=metric, records=len(records),
                  dropped=_counts([r for r in records if r.score is None]),
                  durations_missing=int(np.isnan(durations).sum()) if timed else 0,
                  diverged_kept=flagged, failed=failed, failed_score=failed_score,
                  failed_basis=failed_basis, pruned=pruned_kept(records),
                  implied_time=f.implied_time)
