"""The scikit-learn searches of ``kde_fits/sklearn_searches.py``: reproducible trial by trial."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from evpsim.io.shipped import package_data
from evpsim.io.records import DIVERGED
from evpsim.io.searchfiles import read_searches

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "kde_fits" / "sklearn_searches.py"
SEARCHES = package_data("searches")
#: per family, trials whose fits take well under a second: early, late, and (for the
#: MLP) both learning and diverged ones
QUICK = {"mlp": [1, 17, 1691], "hgb": [2, 14, 1607], "svm": [0, 7, 1500]}


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("sklearn_searches", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rebuilt(script):
    """``{family: records}`` of the :data:`QUICK` trials, run on 1 and on 2 workers."""
    assert set(QUICK) == set(script.FAMILIES)
    return {jobs: {family: script.run_trials(family, trials, n_jobs=jobs)
                   for family, trials in QUICK.items()}
            for jobs in (1, 2)}


def _without_duration(record):
    return {k: v for k, v in record.items() if k != "training_duration"}


def test_records_do_not_depend_on_workers(rebuilt):
    for family, trials in QUICK.items():
        one, two = rebuilt[1][family], rebuilt[2][family]
        assert [r["trial"] for r in one] == trials
        assert [_without_duration(r) for r in one] == [_without_duration(r) for r in two]
        for record in one:
            assert record["family"] == family
            assert 0 <= record["best_validation_accuracy"] <= 1 and record["failure"] is None
            assert record["training_duration"] >= 0
            json.dumps(record, allow_nan=False)


def test_trials_do_not_depend_on_their_slice(script, rebuilt):
    alone = script.run_trials("svm", [7])
    assert _without_duration(alone[0]) == _without_duration(rebuilt[1]["svm"][1])
    other_seed = script.run_trials("svm", [7], seed=script.SEED + 1)
    assert other_seed[0]["C"] != alone[0]["C"]


@pytest.mark.parametrize("family", sorted(QUICK))
def test_rebuild_matches_committed_file(rebuilt, family):
    path = SEARCHES / f"sklearn-{family}.jsonl"
    if not path.is_file():
        pytest.skip(f"{path.name} is not built yet (python kde_fits/sklearn_searches.py)")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["trial"] for r in lines] == list(range(len(lines)))
    for record in rebuilt[1][family]:
        assert _without_duration(record) == _without_duration(lines[record["trial"]])


class _Diverges:
    def fit(self, x, y):
        raise ValueError("Solver produced non-finite parameter weights.")


def test_failed_trials_are_recorded_and_read_as_diverged(script, monkeypatch, tmp_path):
    monkeypatch.setitem(script.FAMILIES, "broken", (99, lambda rng, seed: ({"x": 1}, _Diverges())))
    broken = script.run_trials("broken", [3])
    assert broken[0]["best_validation_accuracy"] is None
    assert broken[0]["failure"] == "ValueError: Solver produced non-finite parameter weights."
    path = tmp_path / "mixed.jsonl"
    script._write_jsonl(broken + script.run_trials("svm", [0, 7]), path)
    [search] = read_searches(path, field="best_validation_accuracy",
                             time_field="training_duration")
    assert search.records == 3 and len(search.scores) == 3  # counted at the worst score
    assert search.failed == {DIVERGED: 1} and search.dropped == {}


def test_command_line_writes_sorted_files(script, tmp_path, capsys):
    assert script.main(["--trials", "3", "--families", "svm", "--jobs", "1",
                        "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sklearn-svm.jsonl"]
    lines = [json.loads(line) for line in (tmp_path / "sklearn-svm.jsonl").read_text()
             .splitlines()]
    assert [r["trial"] for r in lines] == [0, 1, 2]
    assert "3/3 trials" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        script.main(["--families", "svm,nope"])
