"""Bad input on searches run several times (``evpsim curve --runs``, ``evpsim.read_runs``,
``evpsim.runs_curve``) and on single runs of adaptive searches: a clear answer, nothing
created.

The battery of ``tests/test_bad_input.py`` (its conventions), extended to runs: glob
patterns that match nothing or overlap, runs of different searches mixed, a search of one
run, a run field that some trials lack or no trial has, sources whose format has no run
identity (plain text with a run field, a study with a run field, a shipped search,
standard input), ``--assume-random`` where no study is adaptive, and the options that do
nothing with ``--runs`` or with a single adaptive study alone. Every Optuna and MLflow
store is written by the tool itself.

* CLI cases (``CLI``): ``evpsim curve`` in-process, exit status 2, exactly one line on
  stderr naming the flag, no traceback, nothing written in the working folder or the
  stores' folder (an ``--out`` asked for included).
* API cases (``API``): the exception type and distinctive words of its one-line message,
  the argument named.
* Results that must be right (``test_silent_*``).

``python tests/test_bad_input_runs.py`` prints the classes with their counts.
"""

from __future__ import annotations

import os
import shlex

import pytest
from battery import Cases, assert_refused, tree

import evpsim
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.cli import main
from evpsim.io.searchfiles import read_searches

optuna = pytest.importorskip("optuna")
mlflow = pytest.importorskip("mlflow")
optuna.logging.set_verbosity(optuna.logging.ERROR)

CLASSES = {
    "glob": "glob patterns of studies, experiments and paths that match nothing or overlap",
    "mixed": "runs of different searches in one search (different samplers)",
    "count": "a search of one run, labels that do not name each search once",
    "field": "a run field some trials lack, no trial has, or that is the group too",
    "format": "sources whose format has no run identity (plain text, studies, shipped "
              "searches, standard input) given a run field or as runs",
    "assume": "--assume-random where no study is adaptive, or with --runs",
    "usage": "options that do nothing with --runs, or with single adaptive studies alone",
    "api": "the Python API: read_runs, runs_curve, read_searches and the readers",
    "silent": "results that must be right",
}

#: the CLI's small sizes
FAST = ["--resamples", "20", "--quiet"]


# --- the stores, written by the tools --------------------------------------------------------

def _objective(trial):
    return trial.suggest_float("x", 0.4, 0.9)


def _stores(root):
    """runs.db: tpe-0 .. tpe-2 (TPESampler), random-3 .. random-5 (RandomSampler), mixed-0
    (TPESampler) and mixed-1 (RandomSampler), each saying its sampler, and "exp[1]" (a
    name with glob characters); mlruns/: experiment "sweep" with params.seed, one run
    without it; files: text, CSV and JSON Lines files."""
    root.mkdir()
    url = f"sqlite:///{root}/runs.db"
    for name, sampler, seed in ([("tpe", optuna.samplers.TPESampler, s) for s in range(3)]
                                + [("random", optuna.samplers.RandomSampler, s)
                                   for s in range(3, 6)]
                                + [("mixed", optuna.samplers.TPESampler, 0),
                                   ("mixed", optuna.samplers.RandomSampler, 1)]):
        study = optuna.create_study(study_name=f"{name}-{seed}", storage=url,
                                    direction="maximize", sampler=sampler(seed=seed))
        study.set_user_attr("sampler", sampler.__name__)
        study.optimize(_objective, n_trials=5)
    literal = optuna.create_study(study_name="exp[1]", storage=url, direction="maximize",
                                  sampler=optuna.samplers.RandomSampler(seed=9))
    literal.optimize(_objective, n_trials=4)
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    client = mlflow.tracking.MlflowClient(tracking_uri=(root / "mlruns").as_uri())
    sweep = client.create_experiment("sweep")
    for i in range(7):
        rid = client.create_run(sweep).info.run_id
        if i != 5:
            client.log_param(rid, "seed", str(i % 2))
        client.log_metric(rid, "acc", 0.5 + 0.05 * i)
        client.set_terminated(rid)
    (root / "good.txt").write_text("0.61\n0.64\n0.65\n0.70\n")
    rows = [(s, seed, 0.5 + 0.01 * ((3 * i + seed) % 7)) for s in ("a", "b")
            for seed in range(3) for i in range(4)]
    (root / "runs.csv").write_text("sampler,seed,acc\n" + "".join(
        f"{s},{seed},{acc}\n" for s, seed, acc in rows))
    (root / "holes.csv").write_text("seed,acc\n0,0.5\n0,0.6\n,0.7\n1,0.55\n1,0.65\n")
    (root / "oneseed.csv").write_text("seed,acc\n0,0.5\n0,0.6\n0,0.7\n")
    (root / "runs.jsonl").write_text('{"seed": 0, "acc": 0.5}\n{"seed": 0, "acc": 0.6}\n'
                                     '{"acc": 0.7}\n{"seed": 1, "acc": 0.55}\n')
    (root / "listed.jsonl").write_text('{"seed": [0, 1], "acc": 0.5}\n'
                                       '{"seed": 1, "acc": 0.6}\n')
    (root / "logs").mkdir()
    return url


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    """The stores and files of the cases, in one folder that no case may change."""
    root = tmp_path_factory.mktemp("runs") / "stores"
    allowed = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    try:
        url = _stores(root)
    finally:
        if allowed is None:
            os.environ.pop("MLFLOW_ALLOW_FILE_STORE", None)
        else:
            os.environ["MLFLOW_ALLOW_FILE_STORE"] = allowed
    return {"root": root, "url": url}


# --- CLI cases -------------------------------------------------------------------------------

CASES = Cases(CLASSES)
CLI, API = CASES.cli, CASES.api


def C(cls, name, argv, *words):
    """``evpsim curve ARGV`` (``{o}``: the Optuna storage ``optuna:sqlite:///...``,
    ``{m}``: the MLflow store ``mlflow:file:...``, ``{r}``: the folder of files) is refused
    in one line holding ``words``."""
    CASES.refused(cls, name, argv, *words)


RUNS = "--runs --out x.nc"
C("glob", "study-matches-nothing", f"{{o}} --study 'sgd-*' {RUNS}",
  "--study 'sgd-*' matches nothing in optuna:sqlite:///", "there: 'tpe-0', 'tpe-1'")
C("glob", "second-study-matches-nothing", f"{{o}} --study 'tpe-*,sgd-*' {RUNS}",
  "--study 'sgd-*' matches nothing")
C("glob", "study-unknown", f"{{o}} --study sgd-0 {RUNS}", "--study 'sgd-0' is not in optuna:")
C("glob", "studies-overlap", f"{{o}} --study 'tpe-*,tpe-1' {RUNS}",
  "--study: 'tpe-1' is named by both 'tpe-*' and 'tpe-1': name each once")
C("glob", "study-glob-without-runs-matches-nothing", "{o} --study 'sgd-*'",
  "--study 'sgd-*' matches nothing")
C("glob", "path-matches-nothing", f"'{{r}}/tpe-*.txt' {RUNS}",
  "tpe-*.txt' matches no file or folder")
C("glob", "experiment-matches-nothing",
  f"{{m}} --experiment 'adam-*' --field metrics.acc {RUNS}",
  "--experiment 'adam-*' matches nothing in mlflow:")
C("glob", "folder-of-nothing", f"{{r}}/logs --field acc --reduce max {RUNS}",
  "logs' is a folder, not a file, and holds neither Ray Tune trials")
C("mixed", "two-samplers", f"{{o}} --study 'mixed-*' {RUNS}",
  "--runs: studies 'mixed-*' of optuna:", "mixes runs of different searches (TPESampler: "
  "mixed-0; RandomSampler: mixed-1): the runs of a search share its sampler")
C("mixed", "two-samplers-beside-a-good-search", f"{{o}} --study 'tpe-*,mixed-*' {RUNS}",
  "studies 'mixed-*'", "mixes runs of different searches")
C("count", "one-study", f"{{o}} --study 'tpe-*,random-3' {RUNS}",
  "--runs: studies 'random-3' of optuna:", "names 1 run (random-3), and a search's curve "
  "across runs needs at least 2 (seeds): name a search's studies with a glob (--study tpe-*)")
C("count", "one-file", f"{{r}}/good.txt {RUNS}", "--runs: ", "good.txt names 1 run",
  "give a glob of its files or folders (quoted: 'runs/tpe-*'), or name the column or field "
  "of its runs with --run-field NAME")
C("count", "one-run-field-value", f"{{r}}/oneseed.csv --column acc --run-field seed {RUNS}",
  "--runs: oneseed of ", "oneseed.csv names 1 run (0)")
C("count", "labels-too-few", f"{{o}} --study 'tpe-*,random-*' --labels TPE {RUNS}",
  "--labels has 1 names for 2 searches (tpe-*, random-*): give one per search")
C("count", "labels-twice", f"{{o}} --study 'tpe-*,random-*' --labels A,A {RUNS}",
  "--labels: two searches are both labelled 'A'")
C("field", "csv-cell-empty", f"{{r}}/holes.csv --column acc --run-field seed {RUNS}",
  "--run-field: ", "holes.csv' line 4: no 'seed', so the row's run is unknown")
C("field", "jsonl-field-missing", f"{{r}}/runs.jsonl --field acc --run-field seed {RUNS}",
  "--run-field: ", "runs.jsonl' line 3: 'seed' is missing, so the record's run is unknown")
C("field", "jsonl-field-a-list", f"{{r}}/listed.jsonl --field acc --run-field seed {RUNS}",
  "line 1: 'seed' is [0, 1], so the record's run is unknown")
C("field", "csv-no-such-column", f"{{r}}/runs.csv --column acc --run-field sed {RUNS}",
  "--run-field: ", "runs.csv' has no column 'sed'; columns: ['sampler', 'seed', 'acc']")
C("field", "jsonl-no-such-field", f"{{r}}/runs.jsonl --field acc --run-field sed {RUNS}",
  "--run-field 'sed' is in no record of")
C("field", "mlflow-run-without-it",
  f"{{m}} --experiment sweep --field metrics.acc --run-field params.seed {RUNS}",
  "--run-field: run ", "of experiment 'sweep' of mlflow:", "has no params.seed, so its run is "
  "unknown")
C("field", "mlflow-no-run-has-it",
  f"{{m}} --experiment sweep --field metrics.acc --run-field params.lr {RUNS}",
  "--run-field 'params.lr' is in no run of experiment 'sweep'")
C("field", "mlflow-metric", f"{{m}} --field metrics.acc --run-field metrics.acc {RUNS}",
  "--run-field must be params.KEY or tags.KEY for MLflow runs, got 'metrics.acc'")
C("field", "run-field-is-the-group",
  f"{{r}}/runs.csv --column acc --group seed --run-field seed {RUNS}",
  "--run-field 'seed' is the group too")
C("field", "run-field-without-runs", "{r}/runs.csv --column acc --run-field seed",
  "--run-field names each trial's run of a search, with --runs: add --runs, or drop it")
C("format", "text-file", f"'{{r}}/good.txt' --run-field seed {RUNS}",
  "--run-field applies to JSON Lines and CSV files, not to plain text such as")
C("format", "optuna-study", f"{{o}} --study 'tpe-*' --run-field seed {RUNS}",
  "--run-field applies to score files and MLflow runs, not to Optuna storages such as",
  "a study is a run; name a search's studies with a glob (--study tpe-*)")
C("format", "shipped-search", f"data:reuters-mlp {RUNS}",
  "'data:reuters-mlp' holds one search run once: give each search's runs as studies, "
  "experiments or files")
C("format", "standard-input", f"- {RUNS}", "'-' holds one search run once")
C("format", "group-without-run-field", f"{{r}}/runs.csv --column acc --group sampler {RUNS}",
  "--group with runs needs --run-field FIELD")
C("assume", "random-study", "{o} --study random-3 --assume-random",
  "--assume-random applies to a study whose sampler adapts each trial to the earlier ones",
  "(samplers recorded: random-3: RandomSampler): drop it")
C("assume", "a-file", "{r}/good.txt --assume-random", "samplers recorded: good: none")
C("assume", "with-runs", f"{{o}} --study 'tpe-*' --assume-random {RUNS}",
  "--assume-random applies to a single study of an adaptive sampler: with --runs")
C("usage", "check", f"{{o}} --study 'tpe-*' --check {RUNS}",
  "--check simulates searches of i.i.d. trials from a KDE of the scores, which runs of an "
  "adaptive search are not")
C("usage", "target", f"{{o}} --study 'tpe-*' --target 0.8 {RUNS}",
  "--target applies to V's curve, not to curves across runs")
C("usage", "estimators", f"{{o}} --study 'tpe-*' --estimators U {RUNS}",
  "--estimators applies to V's curve")
C("usage", "n-max", f"{{o}} --study 'tpe-*' --n-max 50 {RUNS}",
  "--n-max applies to V's curve: a curve across runs stops at the shortest run")
C("usage", "time-field", f"{{r}}/runs.csv --column acc --run-field seed --time-field seed "
                         f"{RUNS}", "--time-field applies to the time axis of V's curve")
C("usage", "quantile-curve", f"{{o}} --study 'tpe-*' --curve quantile:0.9 {RUNS}",
  "--curve quantile:0.9: with --runs, the curve across runs is mean or median")
C("usage", "time-axis", f"{{o}} --study 'tpe-*' --x-axis time --plot x.png {RUNS}",
  "--x-axis time: curves across runs are drawn against trials")
C("usage", "plot-ci-method", f"{{o}} --study 'tpe-*' --plot x.png --plot-ci-method "
                             f"student-t {RUNS}", "--plot-ci-method applies to V's figure")
C("usage", "select", f"{{r}}/runs.csv --column acc --group sampler --run-field seed "
                     f"--select a {RUNS}", "--select applies to the models of one search each")
C("usage", "ci-method-of-v", f"{{o}} --study 'tpe-*' --ci-methods gpd-tail {RUNS}",
  "--ci-methods: unknown CI method across runs 'gpd-tail'; known: student-t")
C("usage", "minimize-a-maximising-study", f"{{o}} --study 'tpe-*' --minimize {RUNS}",
  "--minimize is given, but tpe-0, tpe-1, tpe-2 maximise the score as recorded")
C("usage", "adaptive-alone-check", "{o} --study tpe-0 --check --out x.nc",
  "--check applies to V's curve, and every search read is one run of an adaptive search")
C("usage", "adaptive-alone-ci-methods", "{o} --study tpe-0 --ci-methods percentile",
  "--ci-methods applies to V's curve")
C("usage", "adaptive-time-axis", "{o} --study tpe-0,random-3 --x-axis time --plot x.png",
  "--x-axis time applies to V's curve, and tpe-0 is one run of an adaptive search")


@pytest.mark.parametrize("argv, words", CLI)
def test_cli_bad_input(s, tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    root = s["root"]
    folders = {"o": f"optuna:{s['url']}", "m": f"mlflow:{(root / 'mlruns').as_uri()}",
               "r": str(root)}
    args = ["curve", *shlex.split(argv.format(**folders)), *FAST]
    line = assert_refused(args, capsys, tmp_path, root)
    for w in words:
        assert w in line, f"{w!r} not in {line!r}"


# --- API cases -------------------------------------------------------------------------------

A = CASES.raises


def _study(s, name):
    return optuna.load_study(study_name=name, storage=s["url"])


A("api", "read-runs-of-nothing", lambda s: evpsim.read_runs([]), InvalidArgument,
  "path names no results: give at least one")
A("count", "read-runs-one-study",
  lambda s: evpsim.read_runs(f"optuna:{s['url']}", studies="tpe-1"), InvalidArgument,
  "runs: studies 'tpe-1' of optuna:", "names 1 run (tpe-1)",
  "name a search's studies with a glob (studies='tpe-*')")
A("mixed", "read-runs-two-samplers",
  lambda s: evpsim.read_runs(f"optuna:{s['url']}", studies=["mixed-*"]), InvalidArgument,
  "mixes runs of different searches")
A("glob", "read-optuna-overlapping-globs",
  lambda s: evpsim.read_runs(f"optuna:{s['url']}", studies=["*-1", "tpe-*"]),
  InvalidArgument, "studies: 'tpe-1' is named by both '*-1' and 'tpe-*'")
A("api", "read-runs-studies-of-a-file",
  lambda s: evpsim.read_runs(str(s["root"] / "good.txt"), studies="tpe-*"), InvalidArgument,
  "studies applies to Optuna storages, and none is given")
A("api", "read-runs-study-not-a-string",
  lambda s: evpsim.read_runs(f"optuna:{s['url']}", studies=[3]), InvalidType, "studies")
A("api", "read-runs-select",
  lambda s: evpsim.read_runs(str(s["root"] / "runs.csv"), column="acc", group="sampler",
                             run_field="seed", select=["a"]), InvalidArgument,
  "select applies to the models of one search each")
A("count", "read-runs-labels",
  lambda s: evpsim.read_runs(str(s["root"] / "runs.csv"), column="acc", group="sampler",
                             run_field="seed", labels=["A", "B", "C"]), InvalidArgument,
  "labels has 3 names for 2 searches (a, b): give one per search")
A("field", "read-searches-run-field-is-group",
  lambda s: read_searches(s["root"] / "runs.csv", column="acc", group="seed",
                          run_field="seed"), InvalidArgument,
  "run_field 'seed' is the group too")
A("field", "read-searches-run-field-on-text",
  lambda s: read_searches(s["root"] / "good.txt", run_field="seed"), InvalidArgument,
  "run_field applies to JSON Lines and CSV files, not to plain text")
A("api", "runs-curve-one-study",
  lambda s: evpsim.runs_curve({"TPE": [_study(s, "tpe-0")]}), InvalidArgument,
  "runs['TPE']: an interval across runs needs at least 2 runs, got 1")
A("api", "runs-curve-random-search-unknown",
  lambda s: evpsim.runs_curve({"TPE": [_study(s, "tpe-0"), _study(s, "tpe-1")]},
                              random_search="random"), InvalidArgument,
  "random_search: 'random' is no search's label; labels: TPE")
A("api", "runs-curve-bounds-too-narrow",
  lambda s: evpsim.runs_curve({"TPE": [_study(s, "tpe-0"), _study(s, "tpe-1")]},
                              bounds=(0.5, 0.6)), InvalidArgument, "bounds")


@pytest.mark.parametrize("fn, exc, words", API)
def test_api_bad_input(s, fn, exc, words):
    before = tree(s["root"])
    with pytest.raises(exc) as info:
        fn(s)
    message = str(info.value)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert "\n" not in message
    assert isinstance(info.value, (InvalidArgument, InvalidType)) and info.value.argument
    assert tree(s["root"]) == before


# --- results that must be right --------------------------------------------------------------

_silent = CASES.result


@_silent
def test_silent_a_study_named_with_glob_characters_is_itself(s):
    from evpsim.io.trackers.optuna_studies import read_optuna

    assert [x.label for x in read_optuna(s["url"], studies="exp[1]")] == ["exp[1]"]
    with pytest.raises(InvalidArgument, match=r"names 1 run \(exp\[1\]\)"):
        evpsim.read_runs(f"optuna:{s['url']}", studies=["exp[1]", "random-*"])


@_silent
def test_silent_runs_of_different_lengths_are_said(s, tmp_path, capsys):
    path = tmp_path / "lengths.csv"
    path.write_text("seed,acc\n" + "".join(f"{seed},{0.5 + 0.01 * i}\n" for seed, m in
                                           ((0, 6), (1, 4), (2, 5)) for i in range(m)))
    assert main(["curve", str(path), "--column", "acc", "--run-field", "seed", "--runs",
                 *FAST]) == 0
    out = capsys.readouterr().out
    assert "lengths: its 3 runs differ in length (4 to 6 trials): its curves stop at the " \
           "shortest run, n = 4" in out
    assert "lengths (3 runs, n up to 4)" in out


@_silent
def test_silent_the_intervals_across_runs_stay_within_the_metrics_range(s):
    """Accuracies on a lattice: the student-t interval of few runs would pass 1 at small n;
    cut to [0, 1], as the curve's intervals are."""
    runs = [[0.2, 0.9, 0.95], [0.95, 0.96, 0.97], [0.1, 0.5, 0.97]]
    ds = evpsim.runs_curve({"A": runs, "B": [[0.9, 0.91, 0.92], [0.5, 0.6, 0.9]]})
    assert str(ds["bounds_from"].values).startswith("lattice")
    assert float(ds["upper"].max()) <= 1.0 and float(ds["lower"].min()) >= 0.0
    raw = evpsim.runs_curve({"A": runs, "B": [[0.9, 0.91, 0.92], [0.5, 0.6, 0.9]]},
                            bounds="none")
    assert float(raw["upper"].max()) > 1.0  # what the cut keeps from being printed
    assert float(ds["difference_upper"].max()) <= 1.0


@_silent
def test_silent_failed_trials_count_at_the_worst_score_of_their_own_run(s, tmp_path):
    path = tmp_path / "failed.jsonl"
    path.write_text("".join(f'{{"seed": {seed}, "acc": {acc}}}\n' for seed, acc in
                            ((0, 0.6), (0, "null"), (0, 0.7), (1, 0.5), (1, "null"),
                             (1, 0.8))))
    search, = evpsim.read_runs(str(path), field="acc", run_field="seed")
    assert [r.scores.tolist() for r in search.runs] == [[0.6, 0.6, 0.7], [0.5, 0.5, 0.8]]
    assert [r.failed_basis for r in search.runs] == ["the lowest observed"] * 2


@_silent
def test_silent_a_single_grid_study_keeps_vs_curve(tmp_path, capsys):
    """A grid is not random search, but does not adapt either: V's curve with the warning,
    not the observed best so far."""
    url = f"sqlite:///{tmp_path}/grid.db"
    grid = optuna.create_study(study_name="grid", storage=url, direction="maximize",
                               sampler=optuna.samplers.GridSampler({"x": [0.4, 0.5, 0.6, 0.7]}))
    grid.optimize(_objective, n_trials=4)
    assert main(["curve", f"optuna:{url}", *FAST, "--ci-methods", "percentile"]) == 0
    out = capsys.readouterr().out
    assert "sampler GridSampler: warning: not random search" in out
    assert "observed best so far" not in out


# --- the battery's size and classes ------------------------------------------------------

def test_battery_size():
    CASES.check_size(60)


if __name__ == "__main__":  # python tests/test_bad_input_runs.py: the classes and counts
    CASES.print_counts(7, f"{len(CASES.silent)} results that must be right")
