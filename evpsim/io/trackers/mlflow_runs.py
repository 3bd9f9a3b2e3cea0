"""MLflow runs: ``mlflow:TRACKING_URI``, one model per experiment (or per value of a run's
parameter), through MLflow's client.

A tracking URI is a database (``sqlite:///mlflow.db``), a tracking
server (``http://host:5000``) or a legacy ``mlruns`` folder. Runs are
searched with :meth:`mlflow.tracking.MlflowClient.search_runs`, oldest
first; nothing is written to the store (a SQLite file that does not exist,
or that holds no MLflow tables, is refused before MLflow would create them).

What each run status makes of a run: ``FINISHED`` is scored; ``FAILED``
and ``KILLED`` are failed states (a run that logged the metric before it
stopped is kept at that value, one that did not is a failed trial, as the
``diverged`` and ``failed`` rules say); ``RUNNING`` and ``SCHEDULED`` are
dropped and counted. The start and end times give each run's duration.
MLflow records no sampler.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from pathlib import Path

from ... import _validate as check
from ..trials import NOT_RECORDED
from ._common import Trials, need, no_field, not_open, searches, trial, unknown_name

__all__ = ["read_mlflow", "PREFIX"]

#: how a command line names an MLflow tracking store
PREFIX = "mlflow:"
#: the reductions of a metric's history (see ``reduce``)
HISTORY = ("max", "min", "last")
#: what a run's score or group can be read from
KINDS = ("metrics", "params", "tags")


def read_mlflow(uri, *, experiments=None, field=None, group=None, reduce=None, pruned="last",
                failed="worst", diverged="keep", bounds=None, minimize=False):
    """Read the runs of an MLflow tracking store, one model per experiment.

    Parameters
    ----------
    uri : str
        The tracking URI (see the module's docstring).
    experiments : str or list of str, optional
        The experiments to read, by name (default: every experiment that
        has runs).
    field : str
        The score: ``"metrics.KEY"``, the metric's last value (or, with
        ``reduce``, its history's max, min or last).
    group : str, optional
        ``"params.KEY"`` or ``"tags.KEY"``: one model per value in each
        experiment, labelled by the value (``experiment/value`` when
        several experiments are read).
    reduce : {"max", "min", "last"}, optional
        Reduce the metric's whole history (every logged step) instead of
        taking its last value.
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`.

    Returns
    -------
    list of Search
        One per experiment, or per value of ``group`` in each.

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a store that does not
        exist or does not open (``path``), an experiment not in it
        (``experiments``, listing those that are), a field or group that no
        run has (listing those seen), the rules' errors; MLflow not
        installed.
    """
    mlflow = need("mlflow", "mlflow", "an MLflow tracking store")
    where = f"{PREFIX}{uri}"
    field = _key(field, "field", ("metrics",))
    group = None if group is None else _key(group, "group", ("params", "tags"))
    if reduce is not None:
        check.choice(reduce, "reduce", HISTORY)
    with _quiet(uri):
        client = _client(mlflow, uri, where)
        try:
            every = client.search_experiments()
        except Exception as err:  # the store's own errors
            raise not_open(where, err, "an MLflow tracking store") from None
        known = [e.name for e in every]
        if experiments is None:
            chosen = [e for e in every if _runs(client, e.experiment_id, 1)]
            if not chosen:
                raise check.InvalidArgument("path", f"{where} holds no run")
        else:
            names = [experiments] if isinstance(experiments, str) else list(experiments)
            for name in names:
                if name not in known:
                    raise unknown_name("experiments", name, known, where)
            chosen = [next(e for e in every if e.name == name) for name in names]
        models = []
        for experiment in chosen:
            models += _models(client, experiment, field, group, reduce, where,
                              several=len(chosen) > 1)
    return searches(models, failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)


def _key(value, name, kinds):
    """``KIND.KEY`` checked: a kind of ``kinds`` and a key."""
    value = check.string(value, name) if value is not None else None
    if value is None or value.split(".", 1)[0] not in kinds or "." not in value:
        allowed = " or ".join(f"{k}.KEY" for k in kinds)
        raise check.InvalidArgument(name, f"{name} must be {allowed} for MLflow runs, got "
                                          f"{value!r}")
    return tuple(value.split(".", 1))


@contextlib.contextmanager
def _quiet(uri):
    """MLflow's and its database's info logs silenced; a legacy folder allowed."""
    loggers = [logging.getLogger(name) for name in ("mlflow", "alembic")]
    levels = [lg.level for lg in loggers]
    before = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    for lg in loggers:
        lg.setLevel(logging.WARNING)
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # read an old mlruns folder as it is
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        if before is None:
            os.environ.pop("MLFLOW_ALLOW_FILE_STORE", None)
        else:
            os.environ["MLFLOW_ALLOW_FILE_STORE"] = before


def _client(mlflow, uri, where):
    """The client of a store that exists (a SQLite file holding MLflow's tables, a folder)."""
    uri = check.string(uri, "path")
    path = None
    if uri.startswith("sqlite:"):
        path = Path(uri.split("://", 1)[-1].split("?", 1)[0].removeprefix("/"))
        _sqlite_store(path, where)
    elif "://" not in uri or uri.startswith("file:"):
        path = Path(uri.removeprefix("file://"))
        if not path.is_dir():
            what = "is a file, not an mlruns folder" if path.exists() else "does not exist"
            raise check.InvalidArgument("path", f"{where}: {str(path)!r} {what}")
        uri = path.resolve().as_uri()
    try:
        return mlflow.tracking.MlflowClient(tracking_uri=uri)
    except Exception as err:  # the store's own errors
        raise not_open(where, err, "an MLflow tracking store") from None


def _sqlite_store(path, where):
    """Refuse a SQLite file that is not there or holds no MLflow tables (MLflow would
    create them)."""
    if not path.is_file():
        what = "is a folder, not a database" if path.is_dir() else "does not exist"
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} {what}")
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro",
                                                uri=True)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error as err:
        raise not_open(where, err, "an MLflow tracking store") from None
    if not {"experiments", "runs"} <= tables:
        raise check.InvalidArgument("path", f"{where} is not an MLflow tracking store (it "
                                            f"holds no experiments table)")


def _runs(client, experiment_id, limit=None):
    """An experiment's active runs, oldest first (``limit``: at most that many)."""
    runs, token = [], None
    while True:
        page = client.search_runs([experiment_id], max_results=limit or 1000, page_token=token,
                                  order_by=["attributes.start_time ASC"])
        runs += list(page)
        token = page.token
        if not token or (limit and len(runs) >= limit):
            return runs


def _value(run, kind, key):
    return getattr(run.data, kind).get(key)


def _models(client, experiment, field, group, reduce, where, several):
    """An experiment's runs as models: one, or one per value of ``group``."""
    runs = _runs(client, experiment.experiment_id)
    label = f"experiment {experiment.name!r} of {where}"
    if not runs:
        raise check.InvalidArgument("experiments", f"{label} holds no run")
    for key, name in ((field, "field"), (group, "group")):
        if key is not None and not any(_value(r, *key) is not None for r in runs):
            seen = {f"{kind}.{k}" for r in runs for kind in KINDS
                    for k in getattr(r.data, kind)}
            raise no_field(".".join(key), seen, label, argument=name, trials="run")
    by = {}
    for number, run in enumerate(runs):
        value = "" if group is None else _value(run, *group)
        if value is None:
            raise check.InvalidArgument("group", f"run {run.info.run_id} of {label} has no "
                                                 f"{'.'.join(group)}, so its model is unknown")
        by.setdefault(value, []).append(_record(client, run, number, field, reduce))
    return [Trials(experiment.name if group is None else
                   f"{experiment.name}/{value}" if several else value,
                   where, ".".join(field), records, sampler=NOT_RECORDED)
            for value, records in by.items()]


def _record(client, run, number, field, reduce):
    """A run's record: its metric (reduced over its history with ``reduce``), status and
    duration."""
    info = run.info
    if reduce is None or _value(run, *field) is None:
        score = _value(run, *field)
    else:
        history = [m.value for m in sorted(client.get_metric_history(info.run_id, field[1]),
                                           key=lambda m: (m.step, m.timestamp))]
        score = history[-1] if reduce == "last" else max(history) if reduce == "max" \
            else min(history)
    duration = (info.end_time - info.start_time) / 1000 \
        if info.end_time is not None and info.start_time is not None else float("nan")
    return trial(number + 1, score, info.status, duration=duration, field=".".join(field),
                 key="status", missing=f"run {info.run_id} ({info.status}) has no "
                                       f"{'.'.join(field)}")
