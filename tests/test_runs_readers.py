"""Searches run several times (seeds), read where the tools wrote them: each tool writes its
runs with its own API, ``evpsim curve --runs`` (or :func:`evpsim.read_runs`) reads them,
and every estimate is the one computed by hand from the runs read back with the tool's own
API (failed, pruned and unfinished trials by their rules), to 1e-12.

Optuna's TPESampler and RandomSampler, 8 seeds each, in SQLite (the command the task of
curves across runs is done by: ``--study 'tpe-*,random-*' --runs``); a single TPE study,
its observed best so far; MLflow experiments as runs and a run field (``params.seed``);
folders of TensorBoard runs, their trials in the order they started; copies of the
committed Ray Tune experiment; CSV and JSON Lines files with a run column.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from scipy import stats

import evpsim
from evpsim.cli import main

optuna = pytest.importorskip("optuna")
optuna.logging.set_verbosity(optuna.logging.ERROR)

DATA = Path(__file__).resolve().parent / "data"
SEEDS = 8
TRIALS = 12


def v_curve(scores):
    """Dodge et al.'s V estimate at every n, from its definition."""
    xs = np.sort(np.asarray(scores, dtype=float))
    B = xs.size
    k = np.arange(B + 1) / B
    return np.array([((k[1:] ** n - k[:-1] ** n) * xs).sum() for n in range(1, B + 1)])


def objective(trial):
    """A peak at (0.3, 0.7); x above 0.93 fails, y below 0.06 is pruned after a report."""
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    if x > 0.93:
        raise ValueError("the loss became NaN")
    score = 1.0 - (x - 0.3) ** 2 - (y - 0.7) ** 2
    trial.report(score - 0.1, 0)
    if y < 0.06:
        raise optuna.TrialPruned()
    return score


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """runs.db: studies tpe-0 .. tpe-7 (TPESampler) and random-8 .. random-15
    (RandomSampler), each saying its sampler; tpe-3 has a trial still running."""
    folder = tmp_path_factory.mktemp("runs")
    url = f"sqlite:///{folder}/runs.db"
    for name, sampler, seeds in (("tpe", optuna.samplers.TPESampler, range(SEEDS)),
                                 ("random", optuna.samplers.RandomSampler,
                                  range(SEEDS, 2 * SEEDS))):
        for seed in seeds:
            study = optuna.create_study(study_name=f"{name}-{seed}", storage=url,
                                        direction="maximize", sampler=sampler(seed=seed))
            study.set_user_attr("sampler", sampler.__name__)
            study.optimize(objective, n_trials=TRIALS, catch=(ValueError,))
            if seed == 3:
                study.ask()
    return {"url": url, "folder": folder}


def by_hand(url, name):
    """A study's scores by the rules, in trial order, read with Optuna's API: a pruned trial
    at its last intermediate value, a failed one at the lowest score of its run, a running
    one left out."""
    states = optuna.trial.TrialState
    scores = []
    for t in optuna.load_study(study_name=name, storage=url).get_trials():
        if t.state == states.COMPLETE:
            scores.append(t.value)
        elif t.state == states.PRUNED:
            scores.append(t.intermediate_values[max(t.intermediate_values)])
        elif t.state == states.FAIL:
            scores.append(None)
    worst = min(x for x in scores if x is not None)
    return [worst if x is None else x for x in scores]


def names(prefix):
    seeds = range(SEEDS) if prefix == "tpe" else range(SEEDS, 2 * SEEDS)
    return [f"{prefix}-{s}" for s in seeds]


def run(capsys, tmp_path, *argv, out="curve.nc"):
    """``evpsim curve ARGV --out`` in-process: its output lines and the Dataset it wrote."""
    path = tmp_path / out
    status = main(["curve", *map(str, argv), "--quiet", "--out", str(path)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        return captured.out.splitlines(), ds.load()


@pytest.fixture(scope="module")
def done(store, tmp_path_factory):
    """``evpsim curve optuna:sqlite:///runs.db --study 'tpe-*,random-*' --runs --labels
    TPE,random``, as the task of curves across runs states it: its lines and Dataset."""
    tmp = tmp_path_factory.mktemp("done")
    out = tmp / "runs.nc"
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = main(["curve", f"optuna:{store['url']}", "--study", "tpe-*,random-*", "--runs",
                       "--labels", "TPE,random", "--out", str(out)])
    assert status == 0
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        return text.getvalue().splitlines(), ds.load()


def test_each_estimate_is_the_mean_over_runs_of_the_best_of_each_runs_first_n_trials(store,
                                                                                        done):
    _, ds = done
    for label, prefix in (("TPE", "tpe"), ("random", "random")):
        runs = [by_hand(store["url"], name) for name in names(prefix)]
        assert all(len(r) == TRIALS for r in runs)  # tpe-3's running trial left out
        for n in range(1, TRIALS + 1):
            best = [max(r[:n]) for r in runs]
            assert float(ds["estimate"].sel(model=label, curve="mean", n=n)) == \
                pytest.approx(sum(best) / len(best), rel=0, abs=1e-12)
            middle = sorted(best)[SEEDS // 2 - 1:SEEDS // 2 + 1]
            assert float(ds["estimate"].sel(model=label, curve="median", n=n)) == \
                pytest.approx(sum(middle) / 2, rel=0, abs=1e-12)
        assert ds["run_name"].sel(model=label).values.tolist() == names(prefix)
    assert ds["sampler"].values.tolist() == ["TPESampler", "RandomSampler"]


def test_the_random_runs_give_vs_pooled_curve(store, done):
    _, ds = done
    pooled = [x for name in names("random") for x in by_hand(store["url"], name)]
    np.testing.assert_allclose(ds["pooled_estimate"].sel(model="random", curve="mean"),
                               v_curve(pooled)[:TRIALS], rtol=0, atol=1e-12)
    assert bool(ds["pooled_estimate"].sel(model="TPE").isnull().all())
    assert ds["random_search"].values.tolist() == [False, True]


def test_the_difference_its_interval_and_the_budget_from_which_tpe_is_ahead(store, done):
    lines, ds = done
    a = np.array([np.maximum.accumulate(by_hand(store["url"], n)) for n in names("tpe")])
    b = np.array([np.maximum.accumulate(by_hand(store["url"], n)) for n in names("random")])
    mean = ds.sel(curve="mean").isel(pair=0)
    assert (str(mean["model_a"].values), str(mean["model_b"].values)) == ("TPE", "random")
    gap = a.mean(axis=0) - b.mean(axis=0)
    np.testing.assert_allclose(mean["difference"], gap, rtol=0, atol=1e-12)
    welch = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    np.testing.assert_allclose(mean["difference_lower"], welch.low, rtol=1e-10)
    leader = "TPE" if gap[-1] > 0 else "random"
    side = np.sign(gap[-1]) * gap > 0
    first = TRIALS - np.cumprod(side[::-1]).sum() + 1
    assert str(mean["leader"].values) == leader and int(mean["ahead_from"]) == first
    printed = [ln for ln in lines if ln.startswith(f"{leader} ahead of ")]
    other = "random" if leader == "TPE" else "TPE"
    assert len(printed) == 1
    assert printed[0].startswith(f"{leader} ahead of {other} by the mean curves from n = "
                                 f"{first} to {TRIALS}, the last n both ran; over the "
                                 f"resamples of the runs, 95% of that budget lies from n = ")


def test_the_printed_lines_say_what_each_curve_rests_on(done):
    lines, _ = done
    assert lines[0].startswith(f"TPE: {SEEDS} runs of ")
    assert "studies tpe-0, tpe-1, ..., tpe-7" in lines[0]
    assert lines[0].endswith("; sampler TPESampler (adaptive: each trial depends on the "
                             "earlier ones)")
    assert "  tpe-3: " in "\n".join(lines) and "1 still running" in "\n".join(lines)
    random = next(ln for ln in lines if ln.startswith("random: "))
    assert random.endswith("sampler RandomSampler (random search)")
    assert any(ln.startswith("mean over each search's runs of the best value among the first "
                             "n trials; 95% intervals across runs from student-t; differences "
                             "by Welch's t") for ln in lines)
    assert "assumes: the mean curve across runs of TPE, random and their student-t intervals: " \
           "only that the runs are independent (different seeds); the trials within a run " \
           "may depend on the earlier ones" in lines
    assert any(ln.startswith(f"assumes: the curve of random's {SEEDS * TRIALS} pooled trials "
                             f"(V with ") and ln.endswith("that they are i.i.d. draws (random "
                                                          "search): valid there only, and "
                                                          "tighter") for ln in lines)
    table = lines.index(f"random ({SEEDS} runs, n up to {TRIALS}; {SEEDS * TRIALS} trials "
                        f"pooled)")
    assert lines[table + 1].split()[:5] == ["n", "mean", "of", "runs", "student-t"]
    assert "Neither share is the probability that TPE is better: the first describes the " \
           "resampling, the second these runs." in lines


def test_the_python_entry_point_gives_the_same_curves(store, done):
    _, cli = done
    searches = evpsim.read_runs(f"optuna:{store['url']}", studies=["tpe-*", "random-*"],
                                labels=["TPE", "random"])
    assert [s.label for s in searches] == ["TPE", "random"]
    assert [s.random_search for s in searches] == [False, True]
    ds = evpsim.runs_curve(searches)
    np.testing.assert_array_equal(ds["estimate"], cli["estimate"])
    np.testing.assert_array_equal(ds["difference_lower"], cli["difference_lower"])
    # Optuna's studies as they are
    studies = {p: [optuna.load_study(study_name=n, storage=store["url"]) for n in names(p)]
               for p in ("tpe", "random")}
    direct = evpsim.runs_curve(studies, random_search="random")
    np.testing.assert_allclose(direct["estimate"].values, ds["estimate"].values, rtol=0,
                               atol=1e-12)


def test_median_curve(capsys, tmp_path, store):
    lines, ds = run(capsys, tmp_path, f"optuna:{store['url']}", "--study", "tpe-*,random-*",
                    "--runs", "--curve", "median", "--resamples", "500")
    assert any(ln.startswith("median over each search's runs") for ln in lines)
    assert any("order-statistic" in ln for ln in lines if ln.startswith("assumes:"))
    assert any(ln.startswith("tpe-* vs random-* (median curves), n up to 12: 95% intervals for "
                             "the difference: the percentile interval of 500 differences")
               for ln in lines)
    assert not any("note: the mean curve's interval" in ln for ln in lines)


def test_a_single_tpe_study_gets_its_observed_best_so_far(capsys, tmp_path, store):
    lines, ds = run(capsys, tmp_path, f"optuna:{store['url']}", "--study", "tpe-0")
    scores = by_hand(store["url"], "tpe-0")
    np.testing.assert_array_equal(ds["observed_best"].sel(observed_model="tpe-0"),
                                  np.maximum.accumulate(scores))
    assert "estimate" not in ds
    assert lines[0].endswith("sampler TPESampler (adaptive: each trial depends on the earlier "
                             "ones)")
    assert lines[1].startswith("tpe-0: its observed best so far, one run with no interval and "
                               "no V curve: TPESampler adapts each trial to the earlier ones")
    assert "--runs (a study per seed, named by a glob: --study 'tpe-0-*')" in lines[1]
    assert "--assume-random" in lines[1]
    # on request, V's curve with the warning
    lines, ds = run(capsys, tmp_path, f"optuna:{store['url']}", "--study", "tpe-0",
                    "--assume-random", "--ci-methods", "percentile", "--resamples", "20",
                    out="v.nc")
    assert "sampler TPESampler: warning: not random search, which the curve assumes" in lines[0]
    np.testing.assert_allclose(ds["estimate"].sel(model="tpe-0", estimator="V"),
                               v_curve(scores), rtol=0, atol=1e-12)


def test_a_random_study_beside_a_single_tpe_study(capsys, tmp_path, store):
    lines, ds = run(capsys, tmp_path, f"optuna:{store['url']}", "--study", "tpe-0,random-8",
                    "--ci-methods", "percentile", "--resamples", "20",
                    "--plot", tmp_path / "f.png")
    assert ds["model"].values.tolist() == ["random-8"]
    assert ds["observed_model"].values.tolist() == ["tpe-0"]
    np.testing.assert_allclose(ds["estimate"].sel(model="random-8", estimator="V"),
                               v_curve(by_hand(store["url"], "random-8")), rtol=0, atol=1e-12)
    assert any("it is not compared with random-8" in ln for ln in lines)
    assert "tpe-0 (one run of TPESampler, B = 12)" in lines
    assert (tmp_path / "f.png").stat().st_size > 10_000


def test_outputs_carry_the_curves_across_runs(capsys, tmp_path, store):
    table, page, figure = tmp_path / "t.json", tmp_path / "r.html", tmp_path / "r.png"
    lines, ds = run(capsys, tmp_path, f"optuna:{store['url']}", "--study", "tpe-*,random-*",
                    "--runs", "--labels", "TPE,random", "--resamples", "500",
                    "--table", table, "--html", page, "--plot", figure)
    tables = json.loads(table.read_text())["tables"]
    assert [t["title"] for t in tables] == [
        f"TPE ({SEEDS} runs, n up to {TRIALS})",
        f"random ({SEEDS} runs, n up to {TRIALS}; {SEEDS * TRIALS} trials pooled)",
        "TPE vs random (mean curves)"]
    text = page.read_text()
    assert "TPE vs random (mean curves)" in text and "assumes: the mean curve" in text
    assert "TPE ahead of random" in text or "random ahead of TPE" in text
    assert figure.stat().st_size > 10_000
    assert ds.attrs["input_study"] == "tpe-*,random-*"


# --- MLflow ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mlflow_store(tmp_path_factory):
    """An mlruns folder: experiments adam-0 .. adam-2 (5 runs each, one FAILED without the
    metric) and one experiment "sweep" with params.optimizer and params.seed."""
    mlflow = pytest.importorskip("mlflow")
    import logging

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    folder = tmp_path_factory.mktemp("mlflow")
    allowed = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    try:
        client = mlflow.tracking.MlflowClient(tracking_uri=(folder / "mlruns").as_uri())
        rng = np.random.default_rng(3)
        start = 1_764_000_000_000
        for seed in range(3):
            experiment = client.create_experiment(f"adam-{seed}")
            for i in range(5):
                rid = client.create_run(experiment, start_time=start).info.run_id
                start += 60_000
                if i == 2 and seed == 1:
                    client.set_terminated(rid, status="FAILED", end_time=start)
                    continue
                client.log_metric(rid, "acc", float(rng.uniform(0.5, 0.9)))
                client.set_terminated(rid, end_time=start)
        sweep = client.create_experiment("sweep")
        for optimizer in ("adam", "sgd"):
            for seed in range(3):
                for i in range(4):
                    rid = client.create_run(sweep, start_time=start).info.run_id
                    start += 60_000
                    client.log_param(rid, "optimizer", optimizer)
                    client.log_param(rid, "seed", str(seed))
                    client.log_metric(rid, "acc", float(rng.uniform(0.5, 0.9)))
                    client.set_terminated(rid, end_time=start)
    finally:
        if allowed is None:
            del os.environ["MLFLOW_ALLOW_FILE_STORE"]
        else:
            os.environ["MLFLOW_ALLOW_FILE_STORE"] = allowed
    return {"uri": (folder / "mlruns").as_uri(), "client": client}


def mlflow_by_hand(store, experiment, **params):
    """An experiment's runs' scores, oldest first, read with MLflow's client (a failed run
    without the metric at the lowest score)."""
    client = store["client"]
    eid = client.get_experiment_by_name(experiment).experiment_id
    runs = client.search_runs([eid], order_by=["attributes.start_time ASC"])
    scores = [r.data.metrics.get("acc") for r in runs
              if all(r.data.params.get(k) == v for k, v in params.items())]
    worst = min(x for x in scores if x is not None)
    return [worst if x is None else x for x in scores]


def test_mlflow_experiments_are_runs(capsys, tmp_path, mlflow_store):
    lines, ds = run(capsys, tmp_path, f"mlflow:{mlflow_store['uri']}", "--experiment",
                    "adam-*", "--field", "metrics.acc", "--runs", "--resamples", "200")
    runs = [np.maximum.accumulate(mlflow_by_hand(mlflow_store, f"adam-{s}")) for s in range(3)]
    np.testing.assert_allclose(ds["estimate"].sel(model="adam-*", curve="mean"),
                               np.mean(runs, axis=0), rtol=0, atol=1e-12)
    assert lines[0].startswith("adam-*: 3 runs of 5 trials from mlflow:")
    assert "experiments adam-0, adam-1, adam-2" in lines[0]
    assert "  adam-1: 1 failed (status FAILED, no score) counted at the worst score" in lines[1]
    assert "sampler not recorded" in lines[0] and "assumes random search" not in lines[0]


def test_mlflow_run_field_tells_the_runs_of_each_model_apart(capsys, tmp_path, mlflow_store):
    lines, ds = run(capsys, tmp_path, f"mlflow:{mlflow_store['uri']}", "--experiment", "sweep",
                    "--field", "metrics.acc", "--group", "params.optimizer", "--run-field",
                    "params.seed", "--runs", "--resamples", "200")
    assert ds["model"].values.tolist() == ["adam", "sgd"]
    for optimizer in ("adam", "sgd"):
        runs = [np.maximum.accumulate(mlflow_by_hand(mlflow_store, "sweep", optimizer=optimizer,
                                                     seed=str(s))) for s in range(3)]
        np.testing.assert_allclose(ds["estimate"].sel(model=optimizer, curve="mean"),
                                   np.mean(runs, axis=0), rtol=0, atol=1e-12)
    assert ds["run_name"].sel(model="sgd").values.tolist() == ["0", "1", "2"]
    assert "params.seed 0, 1, 2" in lines[0]


# --- TensorBoard and Ray Tune folders ---------------------------------------------------------

def test_tensorboard_folders_are_runs_their_trials_in_the_order_they_started(capsys, tmp_path):
    tensorboard = pytest.importorskip("tensorboard.summary")
    rng = np.random.default_rng(9)
    runs = {}
    for seed in range(3):
        order = rng.permutation(5)  # folder names that do not sort in the order they ran
        values = []
        for i in range(5):
            value = float(rng.uniform(0.5, 0.9))
            values.append(value)
            writer = tensorboard.Writer(str(tmp_path / "logs" / f"tpe-{seed}" /
                                            f"trial-{'edcba'[order[i]]}"))
            writer.add_scalar("val/acc", value, step=0, wall_time=1000.0 + 100 * i)
            writer.close()
        runs[seed] = values
    lines, ds = run(capsys, tmp_path, str(tmp_path / "logs" / "tpe-*"), "--field", "val/acc",
                    "--reduce", "max", "--runs", "--resamples", "200")
    # TensorBoard keeps 32-bit floats
    hand = np.mean([np.maximum.accumulate(np.float32(v).astype(float)) for v in runs.values()],
                   axis=0)
    np.testing.assert_allclose(ds["estimate"].sel(model="tpe-*", curve="mean"), hand, rtol=0,
                               atol=1e-12)
    assert ds["run_name"].values[0].tolist()[0].endswith("tpe-0")


def test_raytune_experiment_folders_are_runs_of_random_search(capsys, tmp_path):
    for seed in range(2):
        shutil.copytree(DATA / "raytune" / "experiment", tmp_path / "ray" / f"basic-{seed}")
    lines, ds = run(capsys, tmp_path, str(tmp_path / "ray" / "basic-*"), "--field", "accuracy",
                    "--reduce", "max", "--runs", "--resamples", "200")
    trials = sorted((DATA / "raytune" / "experiment").glob("*/result.json"))
    scores = [max(json.loads(ln)["accuracy"] for ln in t.read_text().splitlines()
                  if "accuracy" in json.loads(ln)) for t in trials]
    np.testing.assert_allclose(ds["estimate"].sel(model="basic-*", curve="mean"),
                               np.maximum.accumulate(scores), rtol=0, atol=1e-12)
    assert bool(ds["random_search"].sel(model="basic-*"))
    assert "sampler BasicVariantGenerator (random search)" in lines[0]


# --- files with a run column ------------------------------------------------------------------

def test_csv_and_jsonl_run_field(capsys, tmp_path):
    rng = np.random.default_rng(4)
    rows = [{"sampler": s, "seed": seed, "acc": round(float(rng.uniform(0.4, 0.9)), 6)}
            for s in ("tpe", "random") for seed in range(4) for _ in range(6)]
    csv = tmp_path / "trials.csv"
    csv.write_text("sampler,seed,acc\n" + "".join(f"{r['sampler']},{r['seed']},{r['acc']}\n"
                                                  for r in rows))
    jsonl = tmp_path / "trials.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for path, how in ((csv, ["--column", "acc"]), (jsonl, ["--field", "acc"])):
        lines, ds = run(capsys, tmp_path, path, *how, "--group", "sampler", "--run-field",
                        "seed", "--runs", "--resamples", "200", out=f"{path.suffix}.nc")
        for sampler in ("tpe", "random"):
            runs = [[r["acc"] for r in rows if r["sampler"] == sampler and r["seed"] == seed]
                    for seed in range(4)]
            np.testing.assert_allclose(
                ds["estimate"].sel(model=sampler, curve="mean"),
                np.mean([np.maximum.accumulate(r) for r in runs], axis=0), rtol=0, atol=1e-12)
        assert lines[0].startswith("tpe: 4 runs of 6 trials from ")
        assert "seed 0, 1, 2, 3" in lines[0]


def test_read_runs_of_files_one_run_per_file(tmp_path):
    for seed in range(3):
        (tmp_path / f"tpe-{seed}.txt").write_text("".join(f"{0.5 + 0.01 * ((seed + i) % 7)}\n"
                                                          for i in range(5)))
    search, = evpsim.read_runs(str(tmp_path / "tpe-*.txt"))
    assert search.label == "tpe-*.txt" and len(search.runs) == 3
    assert [r.scores.tolist() for r in search.runs] == [
        [0.5 + 0.01 * ((seed + i) % 7) for i in range(5)] for seed in range(3)]
    assert math.isnan(float(evpsim.runs_curve(search)["pooled_estimate"].max()))
