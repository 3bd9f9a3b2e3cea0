"""Bad input on the readers of the tracking tools' stores: a clear answer, nothing created.

The battery of ``tests/test_bad_input.py`` (its conventions and case
classes), extended to ``optuna:STORAGE``, ``mlflow:TRACKING_URI``, folders of
TensorBoard runs and the readers' Python API: stores that do not exist, are
no store of the tool, are locked or read-only, hold no trials, whose every
trial failed or was pruned, with NaN or infinite metrics, unicode and
duplicate names, options that do not apply, tracking servers that do not
answer. Every store is written by the tool itself (Optuna's storages,
MLflow's client, TensorBoard's ``summary.Writer``); the files that are no
store are written by other programs (``sqlite3``, plain text).

* API cases (``API``): the exception type and distinctive words of its
  one-line message, nothing changed in the stores' folder.
* CLI cases (``CLI``): ``evpsim curve`` in-process, exit status 2, exactly
  one line on stderr with the expected words, no traceback, nothing written
  in the working folder or the stores' folder (hidden entries included:
  MLflow's ``.trash``, SQLite's journals).
* Reads that must be right (``test_silent_*``): what a store holds, counted
  by the rules, equal to what the tool's own API gives.

``python tests/test_bad_input_readers.py`` prints the classes with their
counts.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import shutil
import socket
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from battery import Cases, assert_refused, tree

import evpsim
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.cli import main
from evpsim.io.frames import read_frame
from evpsim.io.shipped import read_results

optuna = pytest.importorskip("optuna")
mlflow = pytest.importorskip("mlflow")
tensorboard = pytest.importorskip("tensorboard.summary")
optuna.logging.set_verbosity(optuna.logging.ERROR)

CLASSES = {
    "missing": "stores that do not exist, or named by nothing",
    "notstore": "files that are no store of the tool (not a database, empty, another "
                "program's, the other tool's, not a journal)",
    "locked": "stores another program holds locked (read-only ones are read: a silent "
              "check)",
    "empty": "stores, studies and experiments that hold no trial",
    "failed": "every trial failed or was pruned",
    "scores": "NaN, infinite and huge metrics",
    "names": "unicode and duplicate names of studies, experiments and runs",
    "usage": "options that do not apply, a field not given",
    "network": "tracking servers that do not answer, refuse or do not resolve",
    "api": "the Python API: wrong objects, DataFrame columns, old attribute paths",
    "silent": "reads that must be right",
}

#: the CLI's small sizes (the percentile bootstrap needs no GPD fit)
FAST = ["--ci-methods", "percentile", "--resamples", "20", "--quiet"]


# --- the stores, written by the tools --------------------------------------------------------

def _objective(trial):
    """x in [0, 1]: below 0.2 the trial fails, above 0.8 it is pruned after reporting."""
    x = trial.suggest_float("x", 0.0, 1.0)
    if x < 0.2:
        raise ValueError("diverged")
    trial.report(0.5 + 0.2 * x, 0)
    if x > 0.8:
        raise optuna.TrialPruned()
    return 0.5 + 0.3 * x


def _journal(path):
    """An Optuna journal storage (quicker to make than a SQLite one)."""
    return optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))


def _optuna_stores(folder):
    """study.db: "mlp" (failed, pruned, an infinite and a NaN value), "empty", "allfail",
    "allpruned" (pruned before reporting), a unicode name; journals: other.log (another
    "mlp", and a study without trials), idle.log (one study, without trials), empty.log
    (no study)."""
    folder.mkdir()
    url = f"sqlite:///{folder}/study.db"
    mlp = optuna.create_study(study_name="mlp", storage=url, direction="maximize",
                              sampler=optuna.samplers.RandomSampler(seed=1))
    mlp.optimize(_objective, n_trials=16, catch=(ValueError,))
    mlp.enqueue_trial({"x": 0.5})
    mlp.optimize(lambda t: (t.set_user_attr("f1", 1e100), float("inf"))[1], n_trials=1)
    mlp.optimize(lambda t: (t.suggest_float("x", 0, 1), float("nan"))[1], n_trials=1)
    optuna.create_study(study_name="empty", storage=url)
    fail = optuna.create_study(study_name="allfail", storage=url, direction="maximize")
    fail.optimize(lambda t: 1 / 0, n_trials=4, catch=(ZeroDivisionError,))
    pruned = optuna.create_study(study_name="allpruned", storage=url, direction="maximize")

    def _pruned(t):
        raise optuna.TrialPruned()

    pruned.optimize(_pruned, n_trials=4)
    uni = optuna.create_study(study_name="ünïcødé 研究", storage=url, direction="maximize",
                              sampler=optuna.samplers.RandomSampler(seed=2))
    uni.optimize(lambda t: t.suggest_float("x", 0.4, 0.9), n_trials=5)
    other = optuna.create_study(study_name="mlp", storage=_journal(folder / "other.log"),
                                direction="maximize", sampler=optuna.samplers.RandomSampler())
    other.optimize(lambda t: t.suggest_float("x", 0.4, 0.9), n_trials=4)
    optuna.create_study(study_name="idle", storage=_journal(folder / "other.log"))
    optuna.create_study(study_name="idle", storage=_journal(folder / "idle.log"))
    _journal(folder / "empty.log")
    (folder / "folder.db").mkdir()


def _mlflow_store(folder):
    """mlflow.db (MLflow's database store): experiment "svm" (a run logging +inf, one -inf,
    one NaN, one FAILED without the metric, a history with a NaN step first, a metric of
    1e100), "empty", "allfailed" (every run logged a NaN and failed), a unicode name;
    mlruns/ (a folder store) with an experiment and no run."""
    import logging

    for name in ("mlflow", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)
    folder.mkdir()
    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{folder}/mlflow.db")
    svm = client.create_experiment("svm")
    for i, acc in enumerate([0.5, 0.6, math.inf, 0.7, -math.inf, math.nan, None, 0.65]):
        run = client.create_run(svm).info.run_id
        client.log_param(run, "C", str(i))
        if acc is not None:
            client.log_metric(run, "acc", acc)
        client.log_metric(run, "loss", 1.0 - 0.1 * i)
        if i == 7:
            client.log_metric(run, "big", 1e100)
        if i == 1:  # a history: NaN at step 0, then 0.55 and 0.6
            for step, value in enumerate([math.nan, 0.55]):
                client.log_metric(run, "curve", value, step=step)
        elif acc is not None:
            client.log_metric(run, "curve", acc, step=0)
        client.set_terminated(run, status="FAILED" if acc is None else "FINISHED")
    client.create_experiment("empty")
    failed = client.create_experiment("allfailed")
    for _ in range(3):  # each diverged: a NaN loss, then the run failed
        run = client.create_run(failed).info.run_id
        client.log_metric(run, "acc", math.nan)
        client.set_terminated(run, status="FAILED")
    uni = client.create_experiment("ünïcødé 実験")
    for acc in (0.5, 0.7, 0.6):
        run = client.create_run(uni).info.run_id
        client.log_metric(run, "acc", acc)
        client.set_terminated(run)
    allowed = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    try:
        mlflow.tracking.MlflowClient(
            tracking_uri=(folder / "mlruns").as_uri()).create_experiment("idle")
    finally:
        if allowed is None:
            del os.environ["MLFLOW_ALLOW_FILE_STORE"]
        else:
            os.environ["MLFLOW_ALLOW_FILE_STORE"] = allowed
    (folder / "emptyruns").mkdir()
    return client


def _tensorboard_logs(folder):
    """logs/: five runs of val/acc (a NaN step, an infinite one); allnan/: three runs whose
    every step is NaN; a/logs and b/logs: two folders of one name."""
    rng = np.random.default_rng(4)
    steps = {"logs": [[0.5, 0.6, 0.55], [0.6, math.nan, 0.7], [0.4, 0.45, math.inf],
                      [0.62, 0.64, 0.6], [0.5, 0.52, 0.51]],
             "allnan": [[math.nan] * 3] * 3,
             "a/logs": [list(rng.uniform(0.5, 0.7, 2)) for _ in range(3)],
             "b/logs": [list(rng.uniform(0.5, 0.7, 2)) for _ in range(3)]}
    for name, runs in steps.items():
        for r, values in enumerate(runs):
            writer = tensorboard.Writer(str(folder / name / f"run{r}"))
            for step, value in enumerate(values):
                writer.add_scalar("val/acc", float(value), step=step,
                                  wall_time=1000.0 + 10 * step)
            writer.close()
    (folder / "nologs").mkdir()
    return steps


def _other_files(folder):
    """Files that are no store: written by other programs."""
    folder.mkdir()
    (folder / "notdb.db").write_text("a note, not a database\n")
    (folder / "zero.db").write_bytes(b"")
    with sqlite3.connect(folder / "foreign.db") as db:
        db.execute("CREATE TABLE inventory (item TEXT, count INTEGER)")
    (folder / "notes.log").write_text("a log of notes\nnot JSON\n")
    (folder / "good.txt").write_text("0.61\n0.64\n0.65\n0.70\n")
    (folder / "runs.csv").write_text("acc,t\n0.5,10\n0.6,12\n0.7,11\n")
    (folder / "wandb.csv").write_text("Name,State,Runtime,acc\na,finished,10,0.5\n"
                                      "b,finished,ten,0.6\nc,finished,12,0.7\n")


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    """Every store and file of the cases, in one folder that no case may change."""
    root = tmp_path_factory.mktemp("stores")
    _optuna_stores(root / "optuna")
    client = _mlflow_store(root / "mlflow")
    steps = _tensorboard_logs(root / "tb")
    _other_files(root / "files")
    (root / "locked").mkdir()
    for store in ("optuna/study.db", "mlflow/mlflow.db"):
        shutil.copy(root / store, root / "locked" / Path(store).name)
    return {"root": root, "client": client, "steps": steps}


@pytest.fixture(scope="module")
def locks(s):
    """The copies in locked/ held locked by another connection, as a program writing to
    them would."""
    held = []
    for name in ("study.db", "mlflow.db"):
        db = sqlite3.connect(s["root"] / "locked" / name, isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        held.append(db)
    yield
    for db in held:
        db.rollback()
        db.close()


@pytest.fixture(scope="module")
def closed_port():
    """A local port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- CLI cases -------------------------------------------------------------------------------

CASES = Cases(CLASSES)
CLI, API = CASES.cli, CASES.api


def C(cls, name, argv, *words):
    """``evpsim curve ARGV`` (``{o}``, ``{m}``, ``{t}``, ``{f}``, ``{l}``: the folders of the
    Optuna, MLflow and TensorBoard stores, the other files and the locked copies) is
    refused in one line holding ``words``."""
    CASES.refused(cls, name, argv, *words)


FIELD = "--field metrics.acc"
TB = "--field val/acc --reduce max"
# stores that do not exist, or named by nothing
C("missing", "optuna-file", "optuna:{o}/missing.db", "optuna:", "missing.db' does not exist")
C("missing", "optuna-url", "optuna:sqlite:///{o}/missing.db", "missing.db' does not exist")
C("missing", "optuna-journal", "optuna:{o}/missing.log", "missing.log' does not exist")
C("missing", "optuna-folder", "optuna:{o}/folder.db", "folder.db' is a folder, not a database")
C("missing", "optuna-bare", "optuna:", "'optuna:' names no storage: give optuna:STORAGE, "
                                       "such as optuna:study.db")
C("missing", "mlflow-bare", "mlflow:", "'mlflow:' names no tracking store: give "
                                       "mlflow:TRACKING_URI")
C("missing", "mlflow-db", f"mlflow:sqlite:///{{m}}/missing.db {FIELD}",
  "missing.db' does not exist")
C("missing", "mlflow-folder", f"mlflow:{{m}}/nofolder {FIELD}", "nofolder' does not exist")
C("missing", "mlflow-file-as-folder", f"mlflow:{{f}}/good.txt {FIELD}",
  "good.txt' is a file, not an mlruns folder")
C("missing", "tensorboard-folder", f"{{t}}/gone {TB}", "cannot read scores: no such file '",
  "tb/gone'")
# files that are no store of the tool
C("notstore", "optuna-not-a-database", "optuna:{f}/notdb.db",
  "notdb.db' is not a SQLite database (file is not a database), so not an Optuna storage")
C("notstore", "optuna-zero-bytes", "optuna:{f}/zero.db",
  "zero.db' is an empty SQLite database (0 bytes), not an Optuna storage")
C("notstore", "optuna-other-program", "optuna:{f}/foreign.db",
  "foreign.db' is not an Optuna storage: it holds another program's tables (inventory)")
C("notstore", "optuna-mlflow-store", "optuna:{m}/mlflow.db",
  "mlflow.db' is an MLflow tracking store, not an Optuna storage: read it as "
  "mlflow:sqlite:///")
C("notstore", "optuna-mlflow-store-url", "optuna:sqlite:///{m}/mlflow.db",
  "is an MLflow tracking store, not an Optuna storage")
C("notstore", "optuna-not-a-journal", "optuna:{f}/notes.log",
  "notes.log' is not an Optuna journal file (its lines are not JSON)")
C("notstore", "mlflow-not-a-database", f"mlflow:sqlite:///{{f}}/notdb.db {FIELD}",
  "notdb.db' is not a SQLite database (file is not a database), so not an MLflow tracking "
  "store")
C("notstore", "mlflow-zero-bytes", f"mlflow:sqlite:///{{f}}/zero.db {FIELD}",
  "zero.db' is an empty SQLite database (0 bytes), not an MLflow tracking store")
C("notstore", "mlflow-other-program", f"mlflow:sqlite:///{{f}}/foreign.db {FIELD}",
  "not an MLflow tracking store: it holds another program's tables (inventory)")
C("notstore", "mlflow-optuna-store", f"mlflow:sqlite:///{{o}}/study.db {FIELD}",
  "study.db' is an Optuna storage, not an MLflow tracking store: read it as "
  "optuna:sqlite:///")
C("notstore", "mlflow-empty-folder", f"mlflow:{{m}}/emptyruns {FIELD}",
  "emptyruns' holds no MLflow experiment")
C("notstore", "mlflow-tensorboard-folder", f"mlflow:{{t}}/logs {FIELD}",
  "logs' holds no MLflow experiment")
C("notstore", "tensorboard-empty-folder", f"{{t}}/nologs {TB}",
  "nologs' is a folder, not a file, and holds neither Ray Tune trials", "nor TensorBoard runs")
# locked stores
C("locked", "optuna", "optuna:{l}/study.db",
  "study.db' is locked by another program (SQLite: database is locked): read it once that "
  "program is done")
C("locked", "mlflow", f"mlflow:sqlite:///{{l}}/mlflow.db {FIELD}",
  "mlflow.db' is locked by another program")
# stores, studies and experiments without trials
C("empty", "optuna-study", "optuna:{o}/study.db --study empty",
  "empty (optuna:", "holds no trial; a search needs at least 2 scores")
C("empty", "optuna-every-study", "optuna:{o}/idle.log",
  "idle.log holds no trial: its studies ('idle') ran none")
C("empty", "optuna-no-study", "optuna:{o}/empty.log", "empty.log holds no study")
C("empty", "mlflow-experiment", f"mlflow:sqlite:///{{m}}/mlflow.db --experiment empty {FIELD}",
  "experiment 'empty' of mlflow:", "holds no run")
C("empty", "mlflow-folder-without-runs", f"mlflow:{{m}}/mlruns {FIELD}", "mlruns holds no run")
C("empty", "mlflow-experiment-no-field", "mlflow:sqlite:///{m}/mlflow.db --experiment empty",
  "--experiment: experiment 'empty' of mlflow:", "holds no run")
C("empty", "tensorboard-tag-nowhere", "{t}/logs --field val/loss --reduce max",
  "--field 'val/loss' is in no run", "the fields seen: val/acc")
# every trial failed or was pruned
C("failed", "optuna-every-trial-failed", "optuna:{o}/study.db --study allfail",
  "allfail (optuna:", "all 4 of its trials failed, so no score was observed",
  "give --bounds LO,HI")
C("failed", "optuna-every-trial-pruned", "optuna:{o}/study.db --study allpruned",
  "all 4 of its trials failed")
C("failed", "optuna-every-trial-pruned-dropped",
  "optuna:{o}/study.db --study allpruned --pruned drop",
  "holds no scores: 4 records read, all dropped (4 pruned")
C("failed", "mlflow-every-run-failed",
  f"mlflow:sqlite:///{{m}}/mlflow.db --experiment allfailed {FIELD}",
  "all 3 of its trials failed")
C("failed", "mlflow-every-run-failed-dropped",
  f"mlflow:sqlite:///{{m}}/mlflow.db --experiment allfailed {FIELD} --diverged drop",
  "holds no scores: 3 records read, all dropped (3 flagged as diverged (status FAILED)")
C("failed", "tensorboard-every-step-nan", f"{{t}}/allnan {TB}", "all 3 of its trials failed")
# NaN, infinite and huge metrics
C("scores", "mlflow-huge-metric",
  "mlflow:sqlite:///{m}/mlflow.db --experiment svm --field metrics.big",
  "metrics.big is 1e+100, beyond +-1e+70")
C("scores", "optuna-huge-user-attribute",
  "optuna:{o}/study.db --study mlp --field user_attrs.f1",
  "user_attrs.f1 is 1e+100, beyond +-1e+70")
# unicode and duplicate names
C("names", "optuna-study-twice", "optuna:{o}/study.db --study mlp,mlp",
  "--study names 'mlp' twice: name each once")
C("names", "optuna-one-name-two-storages",
  "optuna:{o}/study.db optuna:{o}/other.log --study mlp",
  "error: two models are both labelled 'mlp' (from optuna:",
  "other.log): name them apart with --labels NAME,NAME")
C("names", "optuna-unicode-unknown", "optuna:{o}/study.db --study 研究",
  "--study '研究' is not in", "'ünïcødé 研究'")
C("names", "mlflow-experiment-twice",
  f"mlflow:sqlite:///{{m}}/mlflow.db --experiment svm,svm {FIELD}",
  "--experiment names 'svm' twice: name each once")
C("names", "mlflow-unicode-unknown",
  f"mlflow:sqlite:///{{m}}/mlflow.db --experiment 実験 {FIELD}",
  "--experiment '実験' is not in", "'ünïcødé 実験'")
C("names", "tensorboard-two-folders-one-name", f"{{t}}/a/logs {{t}}/b/logs {TB}",
  "error: two models are both labelled 'logs' (from", "name them apart with --labels")
C("names", "labels-given-twice", f"{{t}}/a/logs {{t}}/b/logs {TB} --labels x,x",
  "--labels: two models are both labelled 'x': give each its own")
# options that do not apply, a field not given
C("usage", "optuna-column", "optuna:{o}/study.db --study mlp --column value",
  "--column applies to score files, not to Optuna storages such as 'optuna:")
C("usage", "optuna-time-reduce", "optuna:{o}/study.db --study mlp --time-reduce sum",
  "--time-reduce applies to score files, not to Optuna storages")
C("usage", "mlflow-pruned", f"mlflow:sqlite:///{{m}}/mlflow.db --experiment svm {FIELD} "
                            f"--pruned drop",
  "--pruned applies to trials recorded as pruned (an Optuna study's, or a CSV or JSON Lines "
  "file's state column), and mlflow:sqlite:///", "records no such state: drop it")
C("usage", "tensorboard-pruned", f"{{t}}/logs {TB} --pruned worst",
  "--pruned applies to trials recorded as pruned", "logs records no such state")
C("usage", "text-pruned", "{f}/good.txt --pruned drop",
  "--pruned applies to trials recorded as pruned", "good.txt records no such state")
C("usage", "csv-without-state-pruned", "{f}/runs.csv --column acc --pruned last",
  "--pruned applies to trials recorded as pruned", "runs.csv records no such state")
C("usage", "csv-time-reduce", "{f}/runs.csv --column acc --time-field t --time-reduce sum",
  "--time-reduce applies to JSON Lines time fields, and", "runs.csv' holds none (a CSV cell "
                                                          "holds one time)")
C("usage", "mlflow-no-field", "mlflow:sqlite:///{m}/mlflow.db --experiment svm",
  "--field must name the score, metrics.KEY: the runs of experiment 'svm' of mlflow:",
  "logged metrics.acc, metrics.big, metrics.curve, metrics.loss (params: params.C)")
C("usage", "mlflow-no-field-every-experiment", "mlflow:sqlite:///{m}/mlflow.db",
  "--field must name the score, metrics.KEY: the runs of the 3 experiments")
C("usage", "mlflow-field-a-param", "mlflow:sqlite:///{m}/mlflow.db --field params.C",
  "--field must be metrics.KEY for MLflow runs, got 'params.C'")
C("usage", "wandb-runtime-not-a-duration", "{f}/wandb.csv --column acc",
  "error: '", "wandb.csv' line 3: Runtime (a W&B runs export's run time, read as the "
  "trial's duration) is 'ten', not a duration")
# tracking servers
C("network", "mlflow-connection-refused", "mlflow:http://127.0.0.1:{port} " + FIELD,
  "nothing answers there (connection refused): is the tracking server running?")
C("network", "mlflow-host-unknown", "mlflow:http://no-such-host.invalid:5000 " + FIELD,
  "its host name is unknown (it does not resolve)")


@pytest.mark.parametrize("argv, words", CLI)
def test_cli_bad_input(s, locks, closed_port, tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    root = s["root"]
    folders = {k: root / v for k, v in (("o", "optuna"), ("m", "mlflow"), ("t", "tb"),
                                        ("f", "files"), ("l", "locked"))}
    args = ["curve", *shlex.split(argv.format(port=closed_port, **folders)), *FAST]
    line = assert_refused(args, capsys, tmp_path, root)
    for w in words:
        assert w in line, f"{w!r} not in {line!r}"


def test_a_server_that_does_not_answer_is_an_error_within_seconds(s, tmp_path, monkeypatch,
                                                                  capsys):
    """A tracking server that takes the connection and never answers: an error after the
    reader's timeout (1 s here, 5 s by default), not minutes of waiting."""
    from evpsim.io.trackers import mlflow_runs

    monkeypatch.setattr(mlflow_runs, "TIMEOUT", 1)
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_TIMEOUT", raising=False)
    monkeypatch.chdir(tmp_path)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    taken = []

    def take():  # every connection, never a byte back
        with contextlib.suppress(OSError):  # the socket closed at the end
            while True:
                taken.append(server.accept())

    threading.Thread(target=take, daemon=True).start()
    try:
        start = time.monotonic()
        status = main(["curve", f"mlflow:http://127.0.0.1:{server.getsockname()[1]}",
                       "--field", "metrics.acc", *FAST])
        took = time.monotonic() - start
    finally:
        server.close()
    out, err = capsys.readouterr()
    assert status == 2 and len(err.splitlines()) == 1, err
    assert "no MLflow tracking server answered within 1 s: is it running? (set " \
           "MLFLOW_HTTP_REQUEST_TIMEOUT to wait longer)" in err
    assert taken and took < 10  # asked (the server took the connection), and not waited on
    assert "MLFLOW_HTTP_REQUEST_TIMEOUT" not in os.environ  # the setting is the reader's alone


# --- API cases -------------------------------------------------------------------------------

A = CASES.raises


def _read_study(study):
    from evpsim.io.trackers.optuna_studies import read_study

    return read_study(study)


def _read_optuna(storage, **options):
    from evpsim.io.trackers.optuna_studies import read_optuna

    return read_optuna(storage, **options)


def _read_mlflow(uri, **options):
    from evpsim.io.trackers.mlflow_runs import read_mlflow

    return read_mlflow(uri, **options)


def _frame(columns, rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


A("api", "read-study-of-a-name", lambda r: _read_study("mlp"), InvalidType,
  "study must be an optuna.Study, got str 'mlp': read a storage with read_optuna(STORAGE)")
A("api", "read-study-of-a-storage-url", lambda r: _read_study(f"sqlite:///{r}/optuna/study.db"),
  InvalidType, "study must be an optuna.Study, got str")
A("missing", "read-optuna-empty", lambda r: _read_optuna(""), InvalidArgument,
  "'optuna:' names no storage")
A("names", "read-optuna-studies-twice",
  lambda r: _read_optuna(f"{r}/optuna/study.db", studies=["mlp", "mlp"]), InvalidArgument,
  "studies names 'mlp' twice")
A("usage", "read-mlflow-no-field",
  lambda r: _read_mlflow(f"sqlite:///{r}/mlflow/mlflow.db", experiments="ünïcødé 実験"),
  InvalidArgument, "field must name the score, metrics.KEY: the runs of experiment "
                   "'ünïcødé 実験'", "logged metrics.acc (params: none)")
A("usage", "read-results-column-on-optuna",
  lambda r: read_results([f"optuna:{r}/optuna/study.db"], column="value"), InvalidArgument,
  "column applies to score files, not to Optuna storages")
A("usage", "read-results-pruned-on-tensorboard",
  lambda r: read_results([f"{r}/tb/logs"], field="val/acc", reduce="max", pruned="drop"),
  InvalidArgument, "pruned applies to trials recorded as pruned")
A("api", "frame-two-score-columns-of-one-name",
  lambda r: read_frame(_frame(["acc", "acc"], [[0.5, 0.9], [0.6, 0.8]]), score="acc"),
  InvalidArgument, "score 'acc' is ambiguous: the DataFrame has 2 columns of that name, at "
                   "0-based positions 0, 1")
A("api", "curve-frame-two-state-columns",
  lambda r: evpsim.curve(_frame(["value", "state", "state"],
                                [[0.5, "COMPLETE", "FAIL"], [0.6, "COMPLETE", "COMPLETE"]])),
  InvalidArgument, "state 'state' is ambiguous")
A("api", "frame-integer-column-unknown",
  lambda r: read_frame(_frame([0, 1], [[0.5, 0.1], [0.6, 0.2]]), score=2), InvalidArgument,
  "score 2 is not a column of the DataFrame; its columns: 0, 1")
A("api", "old-attribute-path-unknown", lambda r: evpsim.no_such_module, AttributeError,
  "module 'evpsim' has no attribute 'no_such_module'")


@pytest.mark.parametrize("fn, exc, words", API)
def test_api_bad_input(s, fn, exc, words):
    root = s["root"]
    before = tree(root)
    with pytest.raises(exc) as info:
        fn(root)
    message = str(info.value)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert "\n" not in message
    if exc is not AttributeError:  # the library's own error, naming its argument
        assert isinstance(info.value, InvalidArgument) and info.value.argument
    assert tree(root) == before


# --- reads that must be right ----------------------------------------------------------------

_silent = CASES.result


@_silent
def test_silent_mlflow_infinite_metric_is_a_failed_trial(s):
    """MLflow's database keeps +-inf as +-1.797e308: read back as infinite, those runs are
    failed trials (diverged), counted at the worst score; the store is not refused."""
    client, root = s["client"], s["root"]
    experiment = client.get_experiment_by_name("svm").experiment_id
    runs = client.search_runs([experiment], order_by=["attributes.start_time ASC"])
    stored = [r.data.metrics.get("acc") for r in runs]
    assert sum(abs(v) == 1.7976931348623157e308 for v in stored if v is not None) == 2
    finite = [v for v in stored if v is not None and abs(v) < 1e300 and not math.isnan(v)]
    search, = read_results([f"mlflow:sqlite:///{root}/mlflow/mlflow.db"], experiments="svm",
                           field="metrics.acc", bounds="none")  # counted at the lowest
    worst = min(finite)
    assert search.scores.tolist() == [worst if v is None or not abs(v) < 1e300 or math.isnan(v)
                                      else v for v in stored]
    assert search.failed == {"NaN, infinite or null (diverged)": 3,
                             "status FAILED, no score": 1}
    assert search.failed_score == worst


@_silent
def test_silent_mlflow_history_skips_nan_steps_in_any_order(s):
    """A history whose first step is NaN: its max is that of the finite steps (Python's
    max of [nan, x] is nan, of [x, nan] x); an infinite step is skipped alike."""
    root = s["root"]
    search, = read_results([f"mlflow:sqlite:///{root}/mlflow/mlflow.db"], experiments="svm",
                           field="metrics.curve", reduce="max", bounds="none")
    client = s["client"]
    experiment = client.get_experiment_by_name("svm").experiment_id
    runs = client.search_runs([experiment], order_by=["attributes.start_time ASC"])
    by_hand = []
    for r in runs:
        steps = [m.value for m in client.get_metric_history(r.info.run_id, "curve")]
        finite = [v for v in steps if math.isfinite(v) and abs(v) < 1e300]
        by_hand.append(max(finite) if finite else None)
    assert by_hand[1] == 0.55
    worst = min(v for v in by_hand if v is not None)
    assert search.scores.tolist() == [worst if v is None else v for v in by_hand]


@_silent
def test_silent_optuna_infinite_value_is_a_failed_trial(s):
    root = s["root"]
    study = optuna.load_study(study_name="mlp", storage=f"sqlite:///{root}/optuna/study.db")
    states = [t.state.name for t in study.get_trials()]
    values = [t.value for t in study.get_trials()]
    assert math.inf in values and "FAIL" in states and "PRUNED" in states
    search, = read_results([f"optuna:{root}/optuna/study.db"], studies="mlp")
    assert search.failed["NaN, infinite or null (diverged)"] == 1
    assert search.failed["state FAIL, no score"] == states.count("FAIL")
    assert search.scores.size == len(values)
    assert np.isfinite(search.scores).all()


@_silent
def test_silent_tensorboard_nan_and_infinite_steps_are_skipped(s):
    root = s["root"]
    search, = read_results([f"{root}/tb/logs"], field="val/acc", reduce="max")
    # TensorBoard keeps scalars as 32-bit floats
    by_hand = [max(np.float32(v) for v in run if math.isfinite(v)) for run in s["steps"]["logs"]]
    np.testing.assert_array_equal(search.scores, np.array(by_hand, dtype=float))


@_silent
def test_silent_read_only_stores_are_read_and_left_alone(s, tmp_path):
    """Copies of the stores made read-only (as a non-root user cannot write them) read as
    the originals, and nothing in their folder changes: no journal, no lock, no table."""
    root = s["root"]
    ro = tmp_path / "ro"
    ro.mkdir()
    for store in ("optuna/study.db", "optuna/other.log", "mlflow/mlflow.db"):
        shutil.copy(root / store, ro)
        (ro / Path(store).name).chmod(0o444)
    ro.chmod(0o555)
    before = tree(ro)
    try:
        for source, original, options in (
                (f"optuna:{ro}/study.db", f"optuna:{root}/optuna/study.db", {"studies": "mlp"}),
                (f"optuna:{ro}/other.log", f"optuna:{root}/optuna/other.log", {}),
                (f"mlflow:sqlite:///{ro}/mlflow.db", f"mlflow:sqlite:///{root}/mlflow/mlflow.db",
                 {"experiments": "svm", "field": "metrics.acc"})):
            got, = read_results([source], **options)
            want, = read_results([original], **options)
            assert got.scores.tolist() == want.scores.tolist() and got.label == want.label
        assert tree(ro) == before
    finally:
        ro.chmod(0o755)


@_silent
def test_silent_unicode_names_read_and_labelled(s, tmp_path, capsys):
    root = s["root"]
    study = optuna.load_study(study_name="ünïcødé 研究",
                              storage=f"sqlite:///{root}/optuna/study.db")
    assert main(["curve", f"optuna:{root}/optuna/study.db", "--study", "ünïcødé 研究",
                 *FAST[:-1], "--out", str(tmp_path / "curve.nc")]) == 0
    assert capsys.readouterr().out.startswith("ünïcødé 研究: 5 scores from optuna:")
    search, = read_results([f"optuna:{root}/optuna/study.db"], studies="ünïcødé 研究")
    assert search.label == "ünïcødé 研究"
    assert search.scores.tolist() == [t.value for t in study.get_trials()]
    search, = read_results([f"mlflow:sqlite:///{root}/mlflow/mlflow.db"],
                           experiments="ünïcødé 実験", field="metrics.acc")
    assert search.label == "ünïcødé 実験" and search.scores.tolist() == [0.5, 0.7, 0.6]


@_silent
def test_silent_every_study_means_every_study_with_trials(s):
    """Without --study, the studies that ran no trial are left out (as experiments without
    runs are), not read as a search 'holding 1 score'."""
    root = s["root"]
    labels = [x.label for x in read_results([f"optuna:{root}/optuna/other.log"])]
    assert labels == ["mlp"]
    with pytest.raises(InvalidArgument, match="all 4 of its trials failed"):
        read_results([f"optuna:{root}/optuna/study.db"])  # allfail is among them


@_silent
def test_silent_dataframe_with_integer_column_names():
    import pandas as pd

    frame = pd.DataFrame({0: [0.5, None, 0.6, 0.65], 1: ["COMPLETE", "FAIL", "COMPLETE",
                                                         "COMPLETE"]})
    search, = read_frame(frame, score=0, state=1, bounds="none")
    assert search.scores.tolist() == [0.5, 0.5, 0.6, 0.65]
    assert search.failed == {"1 FAIL, no score": 1}
    ds = evpsim.curve(pd.DataFrame({7: [0.5, 0.7, 0.6, 0.65]}), ci_methods="percentile",
                      resamples=20)
    assert ds["estimate"].sel(estimator="V").values.size == 4


@_silent
def test_silent_old_module_paths_are_attributes():
    """``evpsim.kde`` and ``evpsim.targets`` after a bare ``import evpsim``, in a fresh
    process: the modules at their new homes."""
    import subprocess
    import sys

    code = ("import evpsim\n"
            "assert evpsim.kde.__name__ == 'evpsim.truths.kde', evpsim.kde\n"
            "assert evpsim.targets.__name__ == 'evpsim.estimators.targets'\n"
            "assert evpsim.kde.fit_kde is evpsim.fit_kde\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]


# --- the battery's size and classes ------------------------------------------------------

#: cases checked by single tests above: a tracking server that does not answer
EXTRA = Counter({"network": 1})


def test_battery_size():
    CASES.check_size(80, EXTRA)


if __name__ == "__main__":  # python tests/test_bad_input_readers.py: the classes and counts
    CASES.print_counts(9, f"{len(CASES.silent)} reads that must be right, 1 server that "
                          "does not answer", EXTRA)
