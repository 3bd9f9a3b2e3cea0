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
MLflow records no sampler, and no pruned run. A database store keeps an
infinite metric as the largest float (``1.797e308``): it is read back as
infinite, a run that diverged (a failed trial).

A tracking server is given :data:`TIMEOUT` seconds to answer each request
(``MLFLOW_HTTP_REQUEST_TIMEOUT``, if set, instead), and is asked once: one
that does not answer is an error within seconds, not minutes.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
from pathlib import Path

from ... import _validate as check
from ..trials import NOT_RECORDED
from ._common import (Trials, matched, need, no_field, no_location, not_open, searches,
                      sqlite_store, trial)

__all__ = ["read_mlflow", "PREFIX"]

#: how a command line names an MLflow tracking store
PREFIX = "mlflow:"
#: the reductions of a metric's history (see ``reduce``)
HISTORY = ("max", "min", "last")
#: what a run's score or group can be read from
KINDS = ("metrics", "params", "tags")
#: seconds a tracking server is given to answer a request
TIMEOUT = 5
#: how a database store keeps an infinite metric
STORED_INFINITY = sys.float_info.max


def read_mlflow(uri, *, experiments=None, field=None, group=None, reduce=None, pruned="last",
                failed="worst", diverged="keep", bounds=None, minimize=False, run_field=None):
    """Read the runs of an MLflow tracking store, one model per experiment.

    Parameters
    ----------
    uri : str
        The tracking URI (see the module's docstring).
    experiments : str or list of str, optional
        The experiments to read, by name or glob pattern (``"tpe-*"``)
        (default: every experiment that has runs).
    field : str
        The score: ``"metrics.KEY"``, the metric's last value (or, with
        ``reduce``, its history's max, min or last). Missing, the error
        lists the metrics and params the runs logged.
    group : str, optional
        ``"params.KEY"`` or ``"tags.KEY"``: one model per value in each
        experiment, labelled by the value (``experiment/value`` when
        several experiments are read).
    reduce : {"max", "min", "last"}, optional
        Reduce the metric's whole history (every logged step) instead of
        taking its last value.
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`.
    run_field : str, optional
        ``"params.KEY"`` or ``"tags.KEY"`` naming the run of its model's
        search each MLflow run belongs to (a seed): one search per value
        in each model, its runs oldest first (:attr:`Search.run`). A run
        without it is refused.

    Returns
    -------
    list of Search
        One per experiment, or per value of ``group`` in each (with
        ``run_field``, one per run of each, labelled by the model).

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a store that does not
        exist, does not open or holds no MLflow experiment (``path``: a
        file that is not a SQLite database, another program's, one another
        program holds locked, a folder without experiments), a tracking
        server that does not answer, an experiment not in it or named twice
        (``experiments``, listing those that are), a missing field or a
        field or group that no run has (listing those seen), the rules'
        errors; MLflow not installed.
    """
    mlflow = need("mlflow", "mlflow", "an MLflow tracking store")
    where = f"{PREFIX}{uri}"
    field = None if field is None else _key(field, "field", ("metrics",))
    group = None if group is None else _key(group, "group", ("params", "tags"))
    run_field = None if run_field is None else _key(run_field, "run_field", ("params", "tags"))
    if reduce is not None:
        check.choice(reduce, "reduce", HISTORY)
    with _quiet(uri), _no_trash_left(uri):
        client = _client(mlflow, uri, where)
        try:
            every = client.search_experiments()
        except Exception as err:  # the store's own errors
            raise _unreadable(where, uri, err) from None
        try:
            chosen = _chosen(client, every, experiments, where)
            if field is None:
                raise _no_metric(client, chosen, where)
            models = []
            for experiment in chosen:
                models += _models(client, experiment, field, (group, run_field), reduce,
                                  where, several=len(chosen) > 1)
        except mlflow.exceptions.MlflowException as err:  # a server that stops answering
            raise _unreadable(where, uri, err) from None
    return searches(models, failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)


def _chosen(client, every, experiments, where):
    """The experiments named (each once), or every experiment that has runs."""
    if experiments is None:
        chosen = [e for e in every if _runs(client, e.experiment_id, 1)]
        if not chosen:
            raise check.InvalidArgument("path", f"{where} holds no run")
        return chosen
    known = [e.name for e in every]
    names = matched([experiments] if isinstance(experiments, str) else list(experiments),
                    known, "experiments", where)
    return [next(e for e in every if e.name == name) for name in names]


def _no_metric(client, chosen, where):
    """The error for a missing ``field``: the metrics and params the runs logged."""
    runs = [r for e in chosen for r in _runs(client, e.experiment_id)]
    one = len(chosen) == 1
    whose = f"experiment {chosen[0].name!r}" if one else f"the {len(chosen)} experiments"
    if not runs:
        return check.InvalidArgument("experiments", f"{whose} of {where} hold"
                                                    f"{'s' if one else ''} no run")
    seen = {kind: sorted({f"{kind}.{k}" for r in runs for k in getattr(r.data, kind)})
            for kind in ("metrics", "params")}
    return check.InvalidArgument("field", f"field must name the score, metrics.KEY: the runs "
                                          f"of {whose} of {where} logged "
                                          f"{', '.join(seen['metrics'][:40]) or 'no metric'} "
                                          f"(params: {', '.join(seen['params'][:40]) or 'none'})")


def _unreadable(where, uri, err):
    """The error for a store whose experiments cannot be listed: a tracking server that
    does not answer, or the store's own error."""
    text = str(err)
    if uri.startswith(("http://", "https://")):
        if "timed out" in text or "Timeout" in text:
            wait = os.environ.get("MLFLOW_HTTP_REQUEST_TIMEOUT", TIMEOUT)
            return check.InvalidArgument("path", f"{where}: no MLflow tracking server answered "
                                                 f"within {wait} s: is it running? (set "
                                                 f"MLFLOW_HTTP_REQUEST_TIMEOUT to wait longer)")
        if "refused" in text:
            return check.InvalidArgument("path", f"{where}: nothing answers there (connection "
                                                 f"refused): is the tracking server running?")
        if "resolve" in text or "not known" in text:
            return check.InvalidArgument("path", f"{where}: its host name is unknown (it does "
                                                 f"not resolve): is the tracking URI right?")
    return not_open(where, err, "an MLflow tracking store")


def _key(value, name, kinds):
    """``KIND.KEY`` checked: a kind of ``kinds`` and a key."""
    value = check.string(value, name)
    if value.split(".", 1)[0] not in kinds or "." not in value:
        allowed = " or ".join(f"{k}.KEY" for k in kinds)
        raise check.InvalidArgument(name, f"{name} must be {allowed} for MLflow runs, got "
                                          f"{value!r}")
    return tuple(value.split(".", 1))


@contextlib.contextmanager
def _quiet(uri):
    """MLflow's and its database's info logs silenced; a legacy folder allowed; a tracking
    server asked once, given :data:`TIMEOUT` seconds (unless the user set them)."""
    loggers = [logging.getLogger(name) for name in ("mlflow", "alembic")]
    levels = [lg.level for lg in loggers]
    settings = {"MLFLOW_ALLOW_FILE_STORE": "true",  # read an old mlruns folder as it is
                "MLFLOW_HTTP_REQUEST_TIMEOUT": os.environ.get("MLFLOW_HTTP_REQUEST_TIMEOUT",
                                                              str(TIMEOUT)),
                "MLFLOW_HTTP_REQUEST_MAX_RETRIES": os.environ.get(
                    "MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")}
    before = {name: os.environ.get(name) for name in settings}
    for lg in loggers:
        lg.setLevel(logging.WARNING)
    os.environ.update(settings)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _no_trash_left(uri):
    """An mlruns folder left as it was: MLflow makes its ``.trash`` folder when it opens
    one without it, which is taken away again (when still empty)."""
    folder = _folder(uri)
    trash = None if folder is None else folder / ".trash"
    made = trash is not None and folder.is_dir() and not trash.exists()
    try:
        yield
    finally:
        if made and trash.is_dir() and not any(trash.iterdir()):
            trash.rmdir()


def _folder(uri):
    """The mlruns folder a tracking URI names, or None for a database or a server."""
    if isinstance(uri, str) and uri and ("://" not in uri or uri.startswith("file:")):
        return Path(uri.removeprefix("file://"))
    return None


def _client(mlflow, uri, where):
    """The client of a store that exists (a SQLite file holding MLflow's tables, a folder
    of experiments); MLflow would create them."""
    if uri == "":
        raise no_location(PREFIX, "tracking store", "TRACKING_URI",
                          ("sqlite:///mlflow.db", "mlruns", "http://localhost:5000"))
    uri = check.string(uri, "path")
    if uri.startswith("sqlite:"):
        sqlite_store(Path(uri.split("://", 1)[-1].split("?", 1)[0].removeprefix("/")), where,
                     "mlflow")
    elif _folder(uri) is not None:
        path = _folder(uri)
        if not path.is_dir():
            what = "is a file, not an mlruns folder" if path.exists() else "does not exist"
            raise check.InvalidArgument("path", f"{where}: {str(path)!r} {what}")
        if not any((p / "meta.yaml").is_file() for p in path.iterdir() if p.is_dir()):
            raise check.InvalidArgument("path", f"{where}: {str(path)!r} holds no MLflow "
                                                f"experiment (an mlruns folder holds a folder "
                                                f"with a meta.yaml per experiment)")
        uri = path.resolve().as_uri()
    try:
        return mlflow.tracking.MlflowClient(tracking_uri=uri)
    except Exception as err:  # the store's own errors
        raise not_open(where, err, "an MLflow tracking store") from None


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


def _models(client, experiment, field, keys, reduce, where, several):
    """An experiment's runs as models: one, or one per value of ``group``; with
    ``run_field``, each model's trials a search per value of it (``keys``: ``(group,
    run_field)``)."""
    runs = _runs(client, experiment.experiment_id)
    label = f"experiment {experiment.name!r} of {where}"
    if not runs:
        raise check.InvalidArgument("experiments", f"{label} holds no run")
    named = (("group", keys[0], "model"), ("run_field", keys[1], "run"))
    for key, name in ((field, "field"), *((key, name) for name, key, _ in named)):
        if key is not None and not any(_value(r, *key) is not None for r in runs):
            seen = {f"{kind}.{k}" for r in runs for kind in KINDS
                    for k in getattr(r.data, kind)}
            raise no_field(".".join(key), seen, label, argument=name, trials="run")
    by = {}
    for number, run in enumerate(runs):
        values = []
        for name, key, what in named:
            value = "" if key is None else _value(run, *key)
            if value is None:
                raise check.InvalidArgument(name, f"run {run.info.run_id} of {label} has no "
                                                  f"{'.'.join(key)}, so its {what} is unknown")
            values.append(value)
        by.setdefault(tuple(values), []).append(_record(client, run, number, field, reduce))
    return [Trials(experiment.name if keys[0] is None else
                   f"{experiment.name}/{value}" if several else value,
                   where, ".".join(field), records, sampler=NOT_RECORDED, run=run)
            for (value, run), records in by.items()]


def _record(client, run, number, field, reduce):
    """A run's record: its metric (its history, for ``reduce``), status and duration."""
    info = run.info
    score = _value(run, *field)
    if reduce is not None and score is not None:
        history = client.get_metric_history(info.run_id, field[1])
        score = [_metric(m.value) for m in sorted(history, key=lambda m: (m.step, m.timestamp))]
    elif score is not None:
        score = _metric(score)
    duration = (info.end_time - info.start_time) / 1000 \
        if info.end_time is not None and info.start_time is not None else float("nan")
    return trial(number + 1, score, info.status, duration=duration, field=".".join(field),
                 reduce=reduce, key="status",
                 missing=f"run {info.run_id} ({info.status}) has no {'.'.join(field)}")


def _metric(value):
    """A metric as logged: infinite where a database store keeps infinity as the largest
    float."""
    return math.copysign(math.inf, value) if abs(value) == STORED_INFINITY else value
