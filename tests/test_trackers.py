"""Results where researchers keep them: each tool writes a real search with its own API,
`evpsim curve` reads it, and its V curve is the V estimate of the scores read by hand with
the tool's own API (failed, pruned and unfinished trials by their rules), to 1e-12; the
header counts what the rules did.

Optuna studies (RandomSampler, failed, pruned, running and waiting trials) in SQLite and a
journal file; an MLflow tracking store in SQLite; TensorBoard runs written by
``tensorboard.summary.Writer``; a W&B runs-table export and Optuna's
``trials_dataframe()`` as CSV; the committed Ray Tune experiment (tests/data/raytune, made
by a real Ray Tune run: make_raytune.py); opda's per-checkpoint times. Bad input: one line,
exit status 2, nothing written.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shlex
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import evpsim
from evpsim._validate import InvalidArgument
from evpsim.cli import main
from evpsim.io.searchfiles import read_searches
from evpsim.io.frames import read_frame
from evpsim.io.shipped import read_results

optuna = pytest.importorskip("optuna")
optuna.logging.set_verbosity(optuna.logging.ERROR)

DATA = Path(__file__).resolve().parent / "data"
RAY = DATA / "raytune" / "experiment"
#: the CLI's small sizes: the percentile bootstrap needs no GPD fit
FAST = ["--ci-methods", "percentile", "--resamples", "20", "--quiet"]


def v_curve(scores):
    """Dodge et al.'s V estimate at every n, from its definition."""
    xs = np.sort(np.asarray(scores, dtype=float))
    B = xs.size
    k = np.arange(B + 1) / B
    return np.array([((k[1:] ** n - k[:-1] ** n) * xs).sum() for n in range(1, B + 1)])


def run_curve(capsys, tmp_path, *argv):
    """``evpsim curve ARGV`` in-process: its output lines and the Dataset it wrote."""
    out = tmp_path / "curve.nc"
    status = main(["curve", *map(str, argv), *FAST, "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        return captured.out.splitlines(), ds.load()


def estimates(ds, model):
    return ds["estimate"].sel(model=model, estimator="V").values[:int(ds["B"].sel(model=model))]


def refused(capsys, tmp_path, monkeypatch, argv, *words, watched=()):
    """``evpsim curve ARGV`` refused: exit status 2, one line naming ``words``, nothing
    written in the working folder or ``watched``."""
    monkeypatch.chdir(tmp_path)
    folders = [tmp_path, *watched]
    before = [_tree(f) for f in folders]
    status = main(["curve", *shlex.split(argv), "--quiet"])
    out, err = capsys.readouterr()
    assert status == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("evpsim curve: error: "), err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    assert [_tree(f) for f in folders] == before
    return lines[0]


def _tree(root):
    """Every file under ``root`` with its size and modification time."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) if p.is_file() else ()
            for p in Path(root).rglob("*")}


# --- Optuna --------------------------------------------------------------------------------

def objective(trial):
    """A search whose small learning rates fail and whose large ones are pruned."""
    lr = trial.suggest_float("lr", 0.0, 1.0)
    if lr < 0.15:
        raise ValueError("the loss became NaN")
    for step in range(3):
        trial.report(0.5 + 0.3 * lr * (step + 1) / 3, step)
        if step == 1 and lr > 0.85:
            raise optuna.TrialPruned()
    trial.set_user_attr("f1", 0.4 + 0.2 * lr)
    return 0.5 + 0.3 * lr


@pytest.fixture(scope="module")
def storage(tmp_path_factory):
    """A SQLite storage: study "mlp" (RandomSampler: failed, pruned, a running and a
    waiting trial) and study "grid" (GridSampler); a journal file with study "loss"
    (minimised)."""
    folder = tmp_path_factory.mktemp("optuna")
    url = f"sqlite:///{folder}/study.db"
    study = optuna.create_study(study_name="mlp", storage=url, direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=3))
    study.set_user_attr("sampler", "RandomSampler")
    study.optimize(objective, n_trials=24, catch=(ValueError,))
    study.ask()  # running
    study.enqueue_trial({"lr": 0.5})  # waiting
    grid = optuna.create_study(study_name="grid", storage=url, direction="maximize",
                               sampler=optuna.samplers.GridSampler({"lr": [0.3, 0.5, 0.7]}))
    grid.optimize(objective, n_trials=3)
    journal = folder / "journal.log"
    backend = optuna.storages.journal.JournalFileBackend(str(journal))
    loss = optuna.create_study(study_name="loss", direction="minimize",
                               storage=optuna.storages.JournalStorage(backend),
                               sampler=optuna.samplers.RandomSampler(seed=4))
    loss.optimize(lambda t: (t.suggest_float("x", -1, 1) ** 2 if t.number % 5 else
                             float("nan")), n_trials=12)  # NaN: Optuna fails the trial
    return {"url": url, "db": folder / "study.db", "journal": journal, "folder": folder}


def by_hand(study, pruned="last", minimize=False):
    """The scores of a study by the rules, read with Optuna's API."""
    states = optuna.trial.TrialState
    scores, failed = [], 0
    for t in study.get_trials():
        if t.state == states.COMPLETE:
            scores.append(t.value)
        elif t.state == states.PRUNED and pruned == "last":
            scores.append(t.intermediate_values[max(t.intermediate_values)])
        elif t.state == states.FAIL or (t.state == states.PRUNED and pruned == "worst"):
            scores.append(None)
            failed += 1
    observed = [x for x in scores if x is not None and math.isfinite(x)]
    worst = max(observed) if minimize else min(observed)
    return [worst if x is None or not math.isfinite(x) else x for x in scores], failed


def test_optuna_study_curve_is_v_of_the_scores_by_the_rules(capsys, tmp_path, storage):
    study = optuna.load_study(study_name="mlp", storage=storage["url"])
    counts = {s: sum(t.state.name == s for t in study.get_trials())
              for s in ("COMPLETE", "FAIL", "PRUNED", "RUNNING", "WAITING")}
    assert counts["FAIL"] >= 2 and counts["PRUNED"] >= 2 and counts["COMPLETE"] >= 10
    assert counts["RUNNING"] == counts["WAITING"] == 1
    lines, ds = run_curve(capsys, tmp_path, f"optuna:{storage['url']}", "--study", "mlp")
    scores, failed = by_hand(study)
    np.testing.assert_allclose(estimates(ds, "mlp"), v_curve(scores), rtol=0, atol=1e-12)
    p, f, total = counts["PRUNED"], counts["FAIL"], sum(counts.values())
    assert lines[0].startswith(f"mlp: {len(scores)} trials from optuna:{storage['url']} (value)")
    assert f"{f} failed (state FAIL, no score) counted at the worst score" in lines[0]
    assert f"dropped 2 of {total} records: 1 still running; 1 waiting to run" in lines[0]
    assert f"{p} pruned trials counted at their last intermediate value" in lines[0]
    assert "sampler RandomSampler (random search)" in lines[0]
    assert float(ds["mean_duration"].sel(model="mlp")) > 0  # from datetime_start/complete


@pytest.mark.parametrize("rule", ["worst", "drop"])
def test_optuna_pruned_rules(storage, rule):
    study = optuna.load_study(study_name="mlp", storage=storage["url"])
    s, = read_results([f"optuna:{storage['url']}"], studies="mlp", pruned=rule)
    p = sum(t.state.name == "PRUNED" for t in study.get_trials())
    if rule == "worst":
        scores, failed = by_hand(study, pruned="worst")
        np.testing.assert_array_equal(s.scores, scores)
        assert s.failed["pruned"] == p and s.pruned == 0
    else:
        scores, _ = by_hand(study, pruned="drop")
        np.testing.assert_array_equal(s.scores, scores)
        assert s.dropped["pruned"] == p and "pruned" not in s.failed and s.pruned == 0


def test_optuna_every_study_user_attribute_and_sampler_traces(capsys, tmp_path, storage):
    lines, ds = run_curve(capsys, tmp_path, f"optuna:{storage['db']}", "--field",
                          "user_attrs.f1", "--failed", "drop", "--pruned", "drop")
    assert list(ds["model"].values) == ["mlp", "grid"]  # every study, in the storage's order
    study = optuna.load_study(study_name="mlp", storage=storage["url"])
    f1 = [t.user_attrs["f1"] for t in study.get_trials() if t.state.name == "COMPLETE"]
    np.testing.assert_allclose(estimates(ds, "mlp"), v_curve(f1), rtol=0, atol=1e-12)
    grid = next(line for line in lines if line.startswith("grid:"))
    assert "sampler GridSampler: warning: not random search" in grid


def test_optuna_journal_minimising_study_implies_minimize(capsys, tmp_path, storage):
    lines, ds = run_curve(capsys, tmp_path, f"optuna:{storage['journal']}")
    assert bool(ds["minimize"])
    backend = optuna.storages.journal.JournalFileBackend(str(storage["journal"]))
    study = optuna.load_study(study_name="loss", storage=optuna.storages.JournalStorage(backend))
    scores, failed = by_hand(study, minimize=True)  # failed at the highest
    assert failed == 3
    np.testing.assert_allclose(ds["estimate"].sel(model="loss", estimator="V").values,
                               -v_curve(-np.array(scores)), rtol=0, atol=1e-12)
    assert f"3 failed (state FAIL, no score) counted at the worst score {max(scores):g}" \
        in lines[0]
    assert "sampler not recorded: the curve assumes random search" in lines[0]


def test_optuna_study_and_dataframe_in_python(storage):
    study = optuna.load_study(study_name="mlp", storage=storage["url"])
    scores, _ = by_hand(study)
    ds = evpsim.curve(study, ci_methods="percentile", resamples=20)
    np.testing.assert_allclose(ds["estimate"].sel(estimator="V").values[0], v_curve(scores),
                               rtol=0, atol=1e-12)
    frame = study.trials_dataframe()
    ds = evpsim.curve(frame, ci_methods="percentile", resamples=20)
    np.testing.assert_allclose(ds["estimate"].sel(estimator="V").values[0], v_curve(scores),
                               rtol=0, atol=1e-12)
    s, = read_frame(frame)
    assert s.pruned == sum(frame["state"] == "PRUNED") and s.dropped == {
        "still running": 1, "waiting to run": 1}
    backend = optuna.storages.journal.JournalFileBackend(str(storage["journal"]))
    loss = optuna.load_study(study_name="loss", storage=optuna.storages.JournalStorage(backend))
    assert bool(evpsim.curve(loss, ci_methods="percentile", resamples=20)["minimize"])


def test_optuna_csv_export_with_pandas_durations(capsys, tmp_path, storage):
    """Optuna's trials_dataframe() as CSV: PRUNED rows are pruned trials, RUNNING ones are
    dropped, and the durations (``0 days 00:00:00.012345``) are read."""
    study = optuna.load_study(study_name="mlp", storage=storage["url"])
    path = tmp_path / "trials.csv"
    study.trials_dataframe().to_csv(path, index=False)
    assert "0 days 00:00:00." in path.read_text()
    lines, ds = run_curve(capsys, tmp_path, path, "--column", "value", "--time-field",
                          "duration")
    scores, _ = by_hand(study)
    np.testing.assert_allclose(estimates(ds, "trials"), v_curve(scores), rtol=0, atol=1e-12)
    assert "pruned trials counted at their last intermediate value" in lines[0]
    assert "1 still running; 1 waiting to run" in lines[0]
    assert "kept trials have no duration" not in lines[0]
    by_duration, = read_searches(path, column="value", time_field="duration")
    by_times, = read_searches(path, column="value", time_field="datetime_start,datetime_complete")
    np.testing.assert_allclose(by_times.durations, by_duration.durations, rtol=0, atol=1e-6)
    frame = study.trials_dataframe()
    kept = frame[frame["state"].isin(["COMPLETE", "FAIL", "PRUNED"])]
    np.testing.assert_allclose(by_times.durations, kept["duration"].dt.total_seconds(), rtol=0,
                               atol=1e-6)


def test_optuna_bad_input(capsys, tmp_path, monkeypatch, storage):
    folder = storage["folder"]
    url = f"optuna:{storage['url']}"
    refused(capsys, tmp_path, monkeypatch, f"{url} --study mlp,nope", "--study 'nope' is not in",
            "there: 'mlp', 'grid'", watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"{url} --field user_attrs.acc",
            "--field 'user_attrs.acc' is in no trial", "the fields seen: user_attrs.f1, value",
            watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"{url} optuna:{storage['journal']}",
            "loss minimises and mlp, grid maximise", watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"{url} --study mlp --minimize",
            "--minimize is given, but mlp maximises", watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"optuna:sqlite:///{folder}/missing.db",
            "missing.db' does not exist", watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"optuna:{DATA / 'mlp.txt'}",
            "is not an Optuna journal file (its lines are not JSON)", watched=[DATA])
    monkeypatch.setitem(__import__("sys").modules, "optuna", None)
    refused(capsys, tmp_path, monkeypatch, f"{url}", "needs optuna, evpsim's 'optuna' extra",
            "pip install optuna")


# --- MLflow --------------------------------------------------------------------------------

def make_mlflow_store(folder, uri):
    """An MLflow store: experiment "search", 12 runs of two models (params.model); one
    FAILED without the metric, one KILLED with it, one still running."""
    mlflow = pytest.importorskip("mlflow")
    import logging

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    experiment = client.create_experiment("search")
    rng = np.random.default_rng(5)
    for i in range(12):
        run = client.create_run(experiment, run_name=f"trial-{i}")
        rid = run.info.run_id
        client.log_param(rid, "model", "cnn" if i % 2 else "mlp")
        status = {3: "FAILED", 6: "KILLED", 9: None}.get(i, "FINISHED")
        if status != "FAILED":
            for step in range(3):
                client.log_metric(rid, "acc", float(rng.uniform(0.5, 0.9)), step=step)
        if status is not None:
            client.set_terminated(rid, status=status)
    return {"uri": uri, "client": client, "folder": folder, "experiment": experiment}


@pytest.fixture(scope="module")
def mlflow_store(tmp_path_factory):
    """The store in a legacy mlruns folder (a database store takes some 10 s to create:
    test_mlflow_database_store)."""
    folder = tmp_path_factory.mktemp("mlflow")
    allowed = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    try:
        return make_mlflow_store(folder, (folder / "mlruns").as_uri())
    finally:
        if allowed is None:
            del os.environ["MLFLOW_ALLOW_FILE_STORE"]
        else:
            os.environ["MLFLOW_ALLOW_FILE_STORE"] = allowed


def mlflow_by_hand(store, model=None):
    runs = store["client"].search_runs([store["experiment"]],
                                       order_by=["attributes.start_time ASC"])
    scores = []
    for r in runs:
        if model is not None and r.data.params["model"] != model:
            continue
        if r.info.status in ("FINISHED", "KILLED"):  # KILLED logged the metric: kept
            scores.append(r.data.metrics["acc"])
        elif r.info.status == "FAILED":
            scores.append(None)
    worst = min(x for x in scores if x is not None)
    return [worst if x is None else x for x in scores]


def test_mlflow_curve_is_v_of_the_runs_by_the_rules(capsys, tmp_path, mlflow_store):
    lines, ds = run_curve(capsys, tmp_path, f"mlflow:{mlflow_store['uri']}", "--experiment",
                          "search", "--field", "metrics.acc")
    np.testing.assert_allclose(estimates(ds, "search"), v_curve(mlflow_by_hand(mlflow_store)),
                               rtol=0, atol=1e-12)
    assert lines[0].startswith("search: 11 trials from mlflow:")
    assert "1 failed (status FAILED, no score) counted at the worst score" in lines[0]
    assert "dropped 1 of 12 records: 1 still running" in lines[0]
    assert "kept 1 run marked status KILLED, scored by the value it recorded" in lines[0]
    lines, ds = run_curve(capsys, tmp_path, f"mlflow:{mlflow_store['uri']}", "--field",
                          "metrics.acc", "--group", "params.model")
    for model in ("mlp", "cnn"):
        np.testing.assert_allclose(estimates(ds, model),
                                   v_curve(mlflow_by_hand(mlflow_store, model)), rtol=0,
                                   atol=1e-12)


def test_mlflow_metric_history_reduced(mlflow_store):
    client = mlflow_store["client"]
    s, = read_results([f"mlflow:{mlflow_store['uri']}"], field="metrics.acc", reduce="max",
                      diverged="drop")
    runs = client.search_runs([mlflow_store["experiment"]],
                              order_by=["attributes.start_time ASC"])
    best = [max(m.value for m in client.get_metric_history(r.info.run_id, "acc"))
            for r in runs if r.info.status == "FINISHED"]
    np.testing.assert_array_equal(s.scores, best)
    assert s.dropped == {"flagged as diverged (status FAILED)": 1,
                         "flagged as diverged (status KILLED)": 1, "still running": 1}


@pytest.mark.slow
def test_mlflow_database_store(capsys, tmp_path):
    store = make_mlflow_store(tmp_path, f"sqlite:///{tmp_path}/mlflow.db")
    lines, ds = run_curve(capsys, tmp_path, f"mlflow:{store['uri']}", "--field", "metrics.acc",
                          "--experiment", "search")
    np.testing.assert_allclose(estimates(ds, "search"), v_curve(mlflow_by_hand(store)), rtol=0,
                               atol=1e-12)


def test_mlflow_bad_input(capsys, tmp_path, monkeypatch, mlflow_store, storage):
    uri = f"mlflow:{mlflow_store['uri']}"
    folder = mlflow_store["folder"]
    refused(capsys, tmp_path, monkeypatch, f"{uri} --field metrics.acc --experiment nope",
            "--experiment 'nope' is not in", "there: 'search', 'Default'", watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"{uri} --field metrics.loss",
            "--field 'metrics.loss' is in no run", "metrics.acc, params.model",
            watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"mlflow:sqlite:///{storage['db']} --field "
                                           f"metrics.acc", "is an Optuna storage, not an MLflow "
                                                          "tracking store: read it as optuna:",
            watched=[storage["folder"]])
    refused(capsys, tmp_path, monkeypatch, f"mlflow:sqlite:///{folder}/none.db --field "
                                           f"metrics.acc", "none.db' does not exist",
            watched=[folder])
    refused(capsys, tmp_path, monkeypatch, f"mlflow:{folder}/none --field metrics.acc",
            "none' does not exist", watched=[folder])


# --- TensorBoard ---------------------------------------------------------------------------

def test_tensorboard_runs_curve_is_v_of_the_tags(capsys, tmp_path):
    tensorboard = pytest.importorskip("tensorboard.summary")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util.tensor_util import make_ndarray

    logs = tmp_path / "logs"
    rng = np.random.default_rng(6)
    for r in range(7):
        writer = tensorboard.Writer(str(logs / f"lr{r}"))
        for step in range(4):
            value = float("nan") if (r == 4 and step == 3) else float(rng.uniform(0.5, 0.9))
            writer.add_scalar("val/acc" if r != 5 else "val/loss", value, step=step,
                              wall_time=1000.0 + 30 * step + r)
        writer.close()
    lines, ds = run_curve(capsys, tmp_path, logs, "--field", "val/acc", "--reduce", "max")
    hand = []
    for r in range(7):
        events = EventAccumulator(str(logs / f"lr{r}"), size_guidance={"tensors": 0})
        events.Reload()
        if "val/acc" in events.Tags()["tensors"]:
            hand.append(np.nanmax([float(make_ndarray(e.tensor_proto))
                                   for e in events.Tensors("val/acc")]))
    np.testing.assert_allclose(estimates(ds, "logs"), v_curve(hand), rtol=0, atol=1e-12)
    assert "dropped 1 of 7 records: 1 field missing" in lines[0]
    assert float(ds["mean_duration"].sel(model="logs")) == 90.0  # first event to last


def test_tensorboard_bad_input(capsys, tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    refused(capsys, tmp_path, monkeypatch, f"{tmp_path / 'empty'} --field acc --reduce max",
            "holds neither Ray Tune trials", "nor TensorBoard runs")


# --- W&B and any CSV with a state column ---------------------------------------------------

WANDB_STATES = ["finished"] * 9 + ["failed", "crashed", "running", "killed"]


def wandb_export(path, drop=()):
    """A W&B runs-table export (less the columns ``drop``) at ``path``: its rows."""
    rng = np.random.default_rng(7)
    rows = []
    for i, state in enumerate(WANDB_STATES):
        acc = "" if state in ("failed", "running") else f"{rng.uniform(0.6, 0.9):.6f}"
        rows.append({"Name": f"run-{i}", "State": state, "Notes": "-", "User": "me",
                     "Tags": "", "Created": f"2026-11-20T10:{i:02d}:00.000Z",
                     "Runtime": str(60 + i), "Sweep": "abc123", "lr": f"{0.01 * (i + 1):g}",
                     "val_acc": acc})
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[k for k in rows[0] if k not in drop],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def test_wandb_export_states_and_runtime(capsys, tmp_path):
    states = WANDB_STATES
    path = tmp_path / "wandb_export.csv"
    rows = wandb_export(path)
    lines, ds = run_curve(capsys, tmp_path, path, "--column", "val_acc", "--time-field",
                          "Runtime")
    kept = [float(r["val_acc"]) for r in rows if r["val_acc"]]
    # the failed run without a score, at the worst: 0, as the accuracies (on a lattice of
    # 1/N in [0, 1]) give the range [0, 1]
    hand = kept + [0.0]
    np.testing.assert_allclose(estimates(ds, "wandb_export"), v_curve(hand), rtol=0,
                               atol=1e-12)
    assert "1 failed (State failed, no score) counted at the worst score 0 (the lower end of " \
           "[0, 1]" in lines[0]
    assert "dropped 1 of 13 records: 1 still running" in lines[0]
    assert "kept 1 run marked State crashed" in lines[0]
    assert "kept 1 run marked State killed" in lines[0]
    runtimes = [60 + i for i, s in enumerate(states) if s != "running"]
    assert float(ds["mean_duration"].sel(model="wandb_export")) == pytest.approx(
        np.mean(runtimes), rel=1e-12)
    assert "durations from its Runtime column" not in lines[0]  # named: nothing implied


def test_wandb_export_runtime_is_the_time_without_a_time_field(capsys, tmp_path):
    path = tmp_path / "wandb_export.csv"
    wandb_export(path)
    lines, ds = run_curve(capsys, tmp_path, path, "--column", "val_acc")
    _, named = run_curve(capsys, tmp_path, path, "--column", "val_acc", "--time-field",
                         "Runtime")
    assert lines[0].endswith("; durations from its Runtime column, as a W&B runs export "
                             "records them")
    np.testing.assert_array_equal(ds["expected_time"].values, named["expected_time"].values)
    assert float(ds["mean_duration"].sel(model="wandb_export")) == pytest.approx(
        np.mean([60 + i for i, s in enumerate(WANDB_STATES) if s != "running"]), rel=1e-12)
    main(["curve", str(path), "--column", "val_acc", *FAST, "--x-axis", "time",
          "--plot", str(tmp_path / "time.png")])
    assert (tmp_path / "time.png").stat().st_size > 0, capsys.readouterr().err
    # a CSV without W&B's Name column is not recognised as its export: no time
    other = tmp_path / "runs.csv"
    wandb_export(other, drop=("Name",))
    s, = read_searches(other, column="val_acc")
    assert s.durations is None and s.implied_time == ""


# --- Ray Tune ------------------------------------------------------------------------------

def ray_by_hand(reduce):
    scores, errored = [], 0
    for trial in sorted(p for p in RAY.iterdir() if (p / "params.json").is_file()):
        rows = [json.loads(line) for line in (trial / "result.json").read_text().splitlines()]
        accs = [row["accuracy"] for row in rows]
        scores.append(max(accs) if reduce == "max" else accs[-1])
        errored += (trial / "error.txt").is_file()
    return scores, errored


def test_raytune_committed_experiment(capsys, tmp_path):
    lines, ds = run_curve(capsys, tmp_path, RAY, "--field", "accuracy", "--reduce", "max")
    scores, errored = ray_by_hand("max")
    assert errored >= 1
    np.testing.assert_allclose(estimates(ds, "experiment"), v_curve(scores), rtol=0,
                               atol=1e-12)
    assert f"kept {errored} run marked status ERROR, scored by the value it recorded" \
        in lines[0]
    assert "sampler BasicVariantGenerator (random search)" in lines[0]
    assert "time (s)" in "\n".join(lines)  # time_total_s: the table's time column
    main(["curve", str(RAY), "--field", "accuracy", "--reduce", "max", *FAST, "--x-axis", "time",
          "--plot", str(tmp_path / "time.png")])  # no --time-field: the trials carry times
    assert (tmp_path / "time.png").stat().st_size > 0, capsys.readouterr().err
    s, = read_results([RAY], field="accuracy", reduce="last", diverged="drop")
    assert s.scores.size == len(scores) - errored and s.dropped == {
        "flagged as diverged (status ERROR)": errored}
    assert s.pruned is None  # Ray Tune records no pruned state: a stopped trial is TERMINATED


def test_raytune_bad_input(capsys, tmp_path, monkeypatch):
    refused(capsys, tmp_path, monkeypatch, f"{RAY} --field acc --reduce max",
            "--field 'acc' is in no trial", "accuracy, checkpoint_dir_name", watched=[RAY])
    refused(capsys, tmp_path, monkeypatch, f"{RAY} --field accuracy",
            "--reduce is needed", watched=[RAY])
    refused(capsys, tmp_path, monkeypatch, f"{RAY} --field accuracy --reduce max --study x",
            "--study applies to Optuna storages, and none is given", watched=[RAY])
    refused(capsys, tmp_path, monkeypatch, f"{RAY} --field accuracy --reduce max --time-field t",
            "--time-field applies to score files, not to Ray Tune experiments",
            watched=[RAY])


# --- durations -----------------------------------------------------------------------------

def test_per_checkpoint_times_reduced(tmp_path):
    path = DATA / "alexnet_tuning.results.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for how, fn in (("last", lambda t: t[-1]), ("sum", sum), ("max", max)):
        s, = read_searches(path, field="learning_curve.top_1", reduce="max", failed="drop",
                           time_field="learning_curve.time", time_reduce=how)
        times = [fn([c["time"] for c in r["learning_curve"]]) for r in records
                 if r["learning_curve"]]
        np.testing.assert_allclose(s.durations, times, rtol=1e-12)
    with pytest.raises(InvalidArgument, match="time_reduce is needed"):
        read_searches(path, field="learning_curve.top_1", reduce="max",
                      time_field="learning_curve.time")


def test_pandas_and_iso_durations(tmp_path):
    forms = {"0 days 00:10:00": 600, "1 days 02:03:04.500000": 93784.5, "PT10M": 600,
             "P1DT2H3M4.5S": 93784.5, "PT0.25S": 0.25}
    path = tmp_path / "t.csv"
    path.write_text("acc,t\n" + "".join(f"0.{i + 1},{t}\n" for i, t in enumerate(forms)))
    s, = read_searches(path, column="acc", time_field="t")
    np.testing.assert_array_equal(s.durations, list(forms.values()))


def test_timestamps_and_their_errors(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"acc": 0.5, "t0": "2026-11-20T10:00:00Z", "t1": "2026-11-20T10:02:30Z"}\n'
                    '{"acc": 0.6, "t0": 1000, "t1": 1090.5}\n'
                    '{"acc": 0.7, "t0": "2026-11-20 10:00:00", "t1": null}\n')
    s, = read_searches(path, field="acc", time_field="t0,t1")
    np.testing.assert_array_equal(s.durations[:2], [150.0, 90.5])
    assert math.isnan(s.durations[2]) and s.durations_missing == 1
    with pytest.raises(InvalidArgument, match="line 1: t1,t0 ends before it starts"):
        read_searches(path, field="acc", time_field="t1,t0")
    path.write_text('{"acc": 0.5, "t0": "soon", "t1": 2}\n{"acc": 0.6, "t0": 1, "t1": 2}\n')
    with pytest.raises(InvalidArgument, match="t0,t1 holds 'soon', not a timestamp"):
        read_searches(path, field="acc", time_field="t0,t1")


def test_fixture_script_is_committed_beside_the_experiment():
    assert (DATA / "raytune" / "make_raytune.py").is_file()
    size = sum(p.stat().st_size for p in RAY.rglob("*") if p.is_file())
    assert size < 64_000, size
    assert not list(RAY.rglob("*.pkl")) and os.listdir(RAY)
