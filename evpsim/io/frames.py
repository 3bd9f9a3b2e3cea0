"""A search's trials held in a pandas DataFrame, one trial per row.

:func:`read_frame` reads the scores, models, states and durations of a
DataFrame's columns by the rules of score files (the failed, diverged and
pruned rules, unfinished trials dropped and counted), so that Optuna's
``study.trials_dataframe()``, a W&B runs table (``api.runs(...)`` made a
DataFrame) or one's own table of trials gives :func:`evpsim.curve` what a
file would.
"""

from __future__ import annotations

import math
import numbers

from .. import _validate as check
from .formats.durations import seconds
from .trackers._common import Trials, searches, trial
from .trials import STATE_FIELDS

__all__ = ["read_frame", "is_frame"]

#: the columns of Optuna's ``trials_dataframe()`` taken when none is named
OPTUNA_SCORE = "value"
OPTUNA_TIME = "duration"


def is_frame(value):
    """Whether ``value`` is a pandas DataFrame (without importing pandas)."""
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns") \
        and hasattr(value, "itertuples")


def read_frame(frame, *, score=None, group=None, state=None, time=None, label="model",
               pruned="last", failed="worst", diverged="keep", bounds=None, minimize=False):
    """Read a DataFrame of trials, one model per value of ``group`` (or one).

    Parameters
    ----------
    frame : pandas.DataFrame
        One trial per row, in the search's order.
    score : str, optional
        The column of the scores (default: ``value``, as Optuna's
        ``trials_dataframe()`` names it, else the only numeric column).
    group : str, optional
        The column naming each row's model.
    state : str, optional
        The column of the trials' states (default: a column named
        ``state``, ``State`` or ``status`` if there is one): failed states
        follow the ``diverged`` and ``failed`` rules, pruned ones ``pruned``,
        unfinished ones are dropped and counted (see
        :func:`~evpsim.io.searchfiles.read_searches`).
    time : str, optional
        The column of the trials' durations: seconds, ``Timedelta``, or
        text as a score file's time field (default: Optuna's ``duration``
        column when it holds Timedeltas).
    label : str
        The model's label without ``group``.
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`.

    Returns
    -------
    list of Search
        One per value of ``group``, in the order they first appear (or one).

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument` for a column that is not
        the DataFrame's, or that several of its columns are named (by their
        labels as text: ``1`` and ``"1"`` are one name), naming the
        argument; a score that is not a number; the rules' errors.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"value": [0.5, 0.7, None, 0.6, 0.65],
    ...                    "state": ["COMPLETE", "COMPLETE", "FAIL", "PRUNED", "RUNNING"]})
    >>> s, = read_frame(df)
    >>> s.scores, s.failed, s.pruned, s.dropped
    (array([0.5, 0.7, 0. , 0.6]), {'state FAIL, no score': 1}, 1, {'still running': 1})

    The failed trial counts at 0: every score lies in [0, 1] on a lattice
    of step 1/10, so [0, 1] is taken as the metric's range; with a range
    given, at its lower end:

    >>> s, = read_frame(df, bounds=(0.4, 1.0))
    >>> s.scores
    array([0.5, 0.7, 0.4, 0.6])
    """
    if not is_frame(frame):
        raise check.InvalidType("scores", f"read_frame reads a pandas DataFrame, got "
                                          f"{type(frame).__name__}")
    columns = [str(c) for c in frame.columns]
    score = _score_column(frame, columns) if score is None else _column(score, columns, "score")
    group = None if group is None else _column(group, columns, "group")
    if state is None:
        state = next((c for c in columns if c.lower() in STATE_FIELDS), None)
    state = None if state is None else _column(state, columns, "state")
    if time is None and OPTUNA_TIME in columns and str(
            frame.iloc[:, columns.index(OPTUNA_TIME)].dtype).startswith("timedelta"):
        time = OPTUNA_TIME
    time = None if time is None else _column(time, columns, "time")
    cells = {name: frame.iloc[:, columns.index(name)].tolist()
             for name in (score, group, state, time) if name is not None}
    models = {}
    for number in range(1, len(frame) + 1):
        row = {name: values[number - 1] for name, values in cells.items()}
        value = row[score]
        value = None if value is None or _missing(value) else value
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise check.InvalidArgument("score", f"score column {score!r} holds {value!r} at "
                                                 f"row {number}, not a number")
        name = label if group is None else str(row[group])
        models.setdefault(name, []).append(trial(
            number, None if value is None else float(value),
            str(row[state]) if state is not None and not _missing(row[state]) else "",
            duration=math.nan if time is None else _duration(row[time], number, time),
            field=score, key=state or "state", missing=f"row {number} has no {score}"))
    if not models:
        raise check.InvalidArgument("scores", "the DataFrame has no rows")
    return searches([Trials(name, "a DataFrame", score, records, sampler="",
                            timed=time is not None, pruning=state is not None)
                     for name, records in models.items()],
                    pruned=pruned, failed=failed, diverged=diverged, bounds=bounds,
                    minimize=minimize)


def _column(name, columns, argument):
    """The column ``name`` (any label, as text) of ``columns``, the frame's column labels
    as text; one that several columns bear is refused, as the CSV reader refuses it."""
    at = [i for i, c in enumerate(columns) if c == str(name)]
    if not at:
        raise check.InvalidArgument(argument, f"{argument} {name!r} is not a column of the "
                                              f"DataFrame; its columns: {', '.join(columns)}")
    if len(at) > 1:
        raise check.InvalidArgument(argument, f"{argument} {name!r} is ambiguous: the "
                                              f"DataFrame has {len(at)} columns of that name, "
                                              f"at 0-based positions "
                                              f"{', '.join(map(str, at))}; rename them apart")
    return str(name)


def _score_column(frame, columns):
    """Optuna's ``value``, else the only numeric column."""
    if OPTUNA_SCORE in columns:
        return _column(OPTUNA_SCORE, columns, "score")
    numeric = [c for i, c in enumerate(columns) if frame.iloc[:, i].dtype.kind in "fiu"]
    if len(numeric) != 1:
        raise check.InvalidArgument("score", f"score must name the column of the scores: the "
                                             f"DataFrame's columns: {', '.join(columns)}")
    return _column(numeric[0], columns, "score")


def _missing(value):
    """A missing cell: None, NaN, pandas' NA or NaT."""
    try:
        return bool(value != value) or value is None
    except (TypeError, ValueError):
        return False


def _duration(value, number, column):
    """Seconds of a Timedelta, a number or a duration's text."""
    if hasattr(value, "total_seconds"):
        return math.nan if _missing(value) else value.total_seconds()
    return seconds(None if _missing(value) else value, f"row {number}", column)
