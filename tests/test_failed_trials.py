"""Failed trials count: a trial that ran but gave no score counts at the worst score.

Every rule on small synthetic files: JSON Lines with empty learning curves and
NaN or null scores, CSV files whose state column says a trial failed, plain
text with ``nan``; the worst score from the scores, from bounds, with
minimize; ``failed="drop"`` and a given score; the reading line; the command
line of ``curve`` and ``fit-kde``; standard input; the self-check's words for
KDE mass lost at a bound.
"""

import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import evpsim
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.cli import main
from evpsim.io.records import DIVERGED, EMPTY_CURVE, NOT_NUMBER
from evpsim.io.search import describe_reading
from evpsim.io.searchfiles import read_searches
from evpsim.io.trials import RUNNING


def _jsonl(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def curves(tmp_path):
    """opda-like learning curves: 5 runs with checkpoints, 2 without, 1 all NaN or null,
    1 whose last checkpoint is NaN."""
    rows = [{"lc": [{"acc": a} for a in run]} for run in
            ([0.2, 0.5], [0.3, 0.6], [], [0.1, 0.4], [0.7], [], [0.35])]
    rows.insert(3, '{"lc": [{"acc": NaN}, {"acc": null}]}')
    rows.append('{"lc": [{"acc": 0.45}, {"acc": NaN}]}')
    return _jsonl(tmp_path, "runs.jsonl", rows)


# --- which records are failed trials ------------------------------------------------------

def test_empty_and_nan_learning_curves_count_at_the_lowest_score(curves):
    # with no range known (bounds="none"), at the lowest score observed
    s, = read_searches(curves, field="lc.acc", reduce="max", bounds="none")
    assert s.scores.tolist() == [0.5, 0.6, 0.35, 0.35, 0.4, 0.7, 0.35, 0.35, 0.45]
    assert s.failed == {EMPTY_CURVE: 3} and s.dropped == {}
    assert (s.failed_score, s.failed_basis) == (0.35, "the lowest observed")
    assert s.records == 9
    assert describe_reading(s) == ("; 3 failed (empty learning curve) counted at the worst "
                                   "score 0.35 (the lowest observed)")
    # a curve whose last checkpoint is NaN, reduced by its last: a run that diverged
    s, = read_searches(curves, field="lc.acc", reduce="last", bounds="none")
    assert s.scores.tolist() == [0.5, 0.6, 0.35, 0.35, 0.4, 0.7, 0.35, 0.35, 0.35]
    assert s.failed == {EMPTY_CURVE: 3, DIVERGED: 1}
    assert describe_reading(s) == ("; 4 failed (3 empty learning curve; 1 NaN, infinite or "
                                   "null (diverged)) counted at the worst score 0.35 (the "
                                   "lowest observed)")


def test_failed_trials_count_at_the_worst_end_of_the_scores_lattice(curves):
    """Scores in [0, 1] on a lattice of step 1/N (here 1/20) are taken as an accuracy's:
    failed trials count at 0 (at 1 for losses); scores off every lattice, or beyond [0, 1],
    at the worst observed."""
    s, = read_searches(curves, field="lc.acc", reduce="max")
    assert s.scores.tolist() == [0.5, 0.6, 0.0, 0.0, 0.4, 0.7, 0.0, 0.35, 0.45]
    assert (s.failed_score, s.failed_basis) == (
        0.0, "the lower end of [0, 1], the range of scores on a lattice of step 1/20")
    s, = read_searches(curves, field="lc.acc", reduce="max", minimize=True)
    assert s.failed_score == 1.0 and s.failed_basis.startswith("the upper end of [0, 1]")
    for scores in ("0.7\n1.5\nnan\n0.9\n", "0.71234567\n0.9\nnan\n0.8311\n"):
        path = curves.parent / "off.txt"
        path.write_text(scores)
        s, = read_searches(path)
        assert s.failed_basis == "the lowest observed"

def test_null_and_nan_scores_are_failed_text_is_not(tmp_path):
    path = _jsonl(tmp_path, "r.jsonl", [{"acc": 0.6}, {"acc": None}, '{"acc": NaN}',
                                        {"acc": "oops"}, {"acc": 0.8}, {"loss": 1}])
    s, = read_searches(path, field="acc")
    assert s.scores.tolist() == [0.6, 0.6, 0.6, 0.8]
    assert s.failed == {DIVERGED: 2}
    # what cannot be read stays a drop, counted by reason
    assert s.dropped == {NOT_NUMBER: 1, "field missing": 1}


def test_plain_text_nan_is_a_failed_trial(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("0.7\nnan\n0.9\nNaN\nabc\n0.8\n")
    s, = read_searches(path, bounds="none")
    assert s.scores.tolist() == [0.7, 0.7, 0.9, 0.7, 0.8]
    assert s.failed == {DIVERGED: 2} and s.dropped == {NOT_NUMBER: 1}


@pytest.mark.parametrize("column, fail", [("state", "FAIL"), ("State", "failed"),
                                          ("status", "TrialState.FAIL"), ("STATUS", "Error")])
def test_csv_state_column_marks_failed_trials(tmp_path, column, fail):
    path = tmp_path / "optuna.csv"
    path.write_text(f"number,value,{column}\n0,0.61,COMPLETE\n1,,{fail}\n2,0.72,COMPLETE\n"
                    f"3,,RUNNING\n4,0.55,{fail}\n")
    s, = read_searches(path, column="value", bounds="none")
    # a failed row without a value is a failed trial; a running trial is dropped and counted
    # as such; a failed row with a value keeps it
    assert s.scores.tolist() == [0.61, 0.55, 0.72, 0.55]
    assert s.failed == {f"{column} {fail}, no score": 1}
    assert s.dropped == {RUNNING: 1}
    assert s.diverged_kept == {f"{column} {fail}": 1}
    assert f"kept 1 run marked {column} {fail}, scored by the value it recorded" \
        in describe_reading(s)
    # diverged="drop" leaves out every flagged row, with or without a value
    s, = read_searches(path, column="value", diverged="drop")
    assert s.scores.tolist() == [0.61, 0.72]
    assert s.dropped == {f"flagged as diverged ({column} {fail})": 2, RUNNING: 1}
    assert s.failed == {}


def test_json_state_field_marks_failed_trials(tmp_path):
    path = _jsonl(tmp_path, "mlflow.jsonl", [{"status": "FINISHED", "acc": 0.5},
                                             {"status": "FAILED"}, {"status": "FINISHED",
                                                                    "acc": 0.7}])
    s, = read_searches(path, field="acc")
    assert s.scores.tolist() == [0.5, 0.5, 0.7]
    assert s.failed == {"status FAILED, no score": 1} and s.dropped == {}


# --- the score they count at ----------------------------------------------------------------

def test_bounds_give_the_worst_score(curves):
    s, = read_searches(curves, field="lc.acc", reduce="max", bounds=(0, 1))
    assert s.scores.tolist() == [0.5, 0.6, 0.0, 0.0, 0.4, 0.7, 0.0, 0.35, 0.45]
    assert s.failed_basis == "the lower end of bounds"
    assert "3 failed (empty learning curve) counted at the worst score 0 (the lower end of " \
           "bounds)" in describe_reading(s)


def test_minimize_counts_them_at_the_highest(tmp_path):
    path = tmp_path / "loss.txt"
    path.write_text("2.5\nnan\n1.5\ninf\n")
    s, = read_searches(path, minimize=True)
    assert s.scores.tolist() == [2.5, 2.5, 1.5, 2.5]
    assert s.failed_basis == "the highest observed"
    s, = read_searches(path, minimize=True, bounds=(0, 10))
    assert s.scores.tolist() == [2.5, 10.0, 1.5, 10.0]
    assert s.failed_basis == "the upper end of bounds"


def test_drop_leaves_them_out_and_says_the_curve_is_conditional(curves):
    s, = read_searches(curves, field="lc.acc", reduce="max", failed="drop")
    assert s.scores.tolist() == [0.5, 0.6, 0.4, 0.7, 0.35, 0.45]
    assert s.failed == s.dropped == {EMPTY_CURVE: 3}
    assert s.failed_score is None and s.failed_basis == ""
    assert describe_reading(s).endswith("the curve is conditional on success (3 failed trials "
                                        "dropped)")


def test_a_given_score(curves):
    s, = read_searches(curves, field="lc.acc", reduce="max", failed=0.1)
    assert s.scores.tolist() == [0.5, 0.6, 0.1, 0.1, 0.4, 0.7, 0.1, 0.35, 0.45]
    assert "counted at 0.1 (given)" in describe_reading(s)
    s, = read_searches(curves, field="lc.acc", reduce="max", failed=np.float32(1),
                       bounds=(0, 1))
    assert s.failed_score == 1.0


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(failed=2.0, bounds=(0, 1)), InvalidArgument,
     "failed 2 lies outside bounds (0, 1): a failed trial counts at a score the metric can "
     "take"),
    (dict(failed="best"), InvalidArgument, "failed must be one of worst, drop, got 'best'"),
    (dict(failed=True), InvalidType, "failed must be 'worst', 'drop' or a score, got True"),
    (dict(failed=float("nan")), InvalidArgument, "failed must be a finite number"),
    (dict(failed=1e80), InvalidArgument, "failed must lie within +-1e+70"),
])
def test_bad_failed_values(curves, kwargs, exc, words):
    with pytest.raises(exc) as info:
        read_searches(curves, field="lc.acc", reduce="max", **kwargs)
    assert info.value.argument == "failed" and words in str(info.value)


def test_bounds_must_contain_the_scores_read(curves):
    with pytest.raises(InvalidArgument, match=r"bounds \(0, 0.5\) must contain the scores "
                                              r"\[0.35, 0.7\]") as info:
        read_searches(curves, field="lc.acc", reduce="max", bounds=(0, 0.5))
    assert info.value.argument == "bounds"


def test_a_search_whose_every_trial_failed(tmp_path):
    path = tmp_path / "all.txt"
    path.write_text("nan\nnan\nnan\n")
    with pytest.raises(InvalidArgument, match=r"'.*all.txt': all 3 of its trials failed, so "
                                              r"no score was observed to count failed trials "
                                              r"at: give bounds=\(lo, hi\) \(the worst score "
                                              r"is then its lower end\), or "
                                              r"failed=SCORE$") as info:
        read_searches(path)
    assert info.value.argument == "failed"
    s, = read_searches(path, bounds=(0, 1))
    assert s.scores.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(InvalidArgument, match="holds no scores: 3 records read, all dropped"):
        read_searches(path, failed="drop")


def test_models_of_a_file_have_their_own_worst(tmp_path):
    path = _jsonl(tmp_path, "two.jsonl", [{"model": "a", "acc": 0.5}, {"model": "b", "acc": 0.2},
                                          {"model": "a", "acc": None}, {"model": "b", "acc": 0.3},
                                          {"model": "a", "acc": 0.6}, {"model": "b"}])
    a, b = read_searches(path, field="acc", group="model")
    assert a.scores.tolist() == [0.5, 0.5, 0.6] and a.failed == {DIVERGED: 1}
    assert b.scores.tolist() == [0.2, 0.3] and b.failed == {} and b.dropped == {
        "field missing": 1}


def test_curve_of_searches_counts_them():
    """V at n = 1 is the mean of every trial, the failed ones at the worst score."""
    rows = [0.3, 0.5, None, 0.7, None]
    buf = "".join(json.dumps({"acc": x}) + "\n" for x in rows)
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "r.jsonl")
        path.write_text(buf)
        counted = evpsim.curve(read_searches(path, field="acc"), ci_methods="percentile",
                               resamples=50)
        dropped = evpsim.curve(read_searches(path, field="acc", failed="drop"),
                               ci_methods="percentile", resamples=50)
    assert float(counted["estimate"].sel(n=1, estimator="V")[0]) == pytest.approx(
        np.mean([0.3, 0.5, 0.3, 0.7, 0.3]))
    assert float(dropped["estimate"].sel(n=1, estimator="V")[0]) == pytest.approx(0.5)
    assert int(counted["B"][0]) == 5 and int(dropped["B"][0]) == 3


# --- the command line -------------------------------------------------------------------------

def test_curve_header_says_how_failed_trials_count(capsys, curves):
    base = ["curve", curves, "--field", "lc.acc", "--reduce", "max", "--ci-methods",
            "percentile", "--resamples", "100", "--labels", "net"]
    # accuracies in [0, 1] on a lattice (of step 1/20): the range is taken as [0, 1], so the
    # failed trials count at 0, and the header says where the range comes from
    status, out, err = _cli(capsys, *base)
    assert status == 0, err
    first = out.splitlines()[0]
    assert first == ("net: 9 trials from runs.jsonl (lc.acc), in [0, 0.7]; 3 failed (empty "
                     "learning curve) counted at the worst score 0 (the lower end of [0, 1], the "
                     "range of scores on a lattice of step 1/20)")
    assert "range: [0, 1] taken as the metric's, as every score lies there on a lattice of " \
           "step 1/20" in out
    v1 = np.mean([0.5, 0.6, 0.0, 0.0, 0.4, 0.7, 0.0, 0.35, 0.45])
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["1"])
    assert float(row.split()[1]) == pytest.approx(v1, abs=5e-5)
    # no range: at the lowest score observed
    status, out, err = _cli(capsys, *base, "--bounds", "none")
    assert status == 0, err
    first = out.splitlines()[0]
    assert first == ("net: 9 trials from runs.jsonl (lc.acc), in [0.35, 0.7]; 3 failed (empty "
                     "learning curve) counted at the worst score 0.35 (the lowest observed)")
    assert "range: " not in out
    v1 = np.mean([0.5, 0.6, 0.35, 0.35, 0.4, 0.7, 0.35, 0.35, 0.45])
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["1"])
    assert float(row.split()[1]) == pytest.approx(v1, abs=5e-5)

    status, out, err = _cli(capsys, *base, "--failed", "drop")
    assert status == 0, err
    first = out.splitlines()[0]
    assert first == ("net: 6 scores from runs.jsonl (lc.acc), in [0.35, 0.7]; dropped 3 of 9 "
                     "records: 3 empty learning curve; the curve is conditional on success (3 "
                     "failed trials dropped)")

    status, out, err = _cli(capsys, *base, "--failed", "0.1", "--bounds", "0,1")
    assert status == 0, err
    assert "3 failed (empty learning curve) counted at 0.1 (given)" in out.splitlines()[0]

    status, out, err = _cli(capsys, *base, "--bounds", "0,1")
    assert status == 0, err
    assert "counted at the worst score 0 (the lower end of bounds)" in out.splitlines()[0]


def test_curve_refuses_bad_failed_values(capsys, curves):
    base = ["curve", curves, "--field", "lc.acc", "--reduce", "max", "--resamples", "100"]
    status, out, err = _cli(capsys, *base, "--failed", "2", "--bounds", "0,1")
    assert status == 2 and out == ""
    assert "--failed 2 lies outside bounds (0, 1)" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as info:
        _cli(capsys, *base, "--failed", "best")
    assert info.value.code == 2
    assert "'best' is neither worst nor drop nor a score" in capsys.readouterr().err


def test_curve_minimize(capsys, tmp_path):
    path = tmp_path / "loss.txt"
    path.write_text("0.9\nnan\n0.4\n0.6\nnan\n")
    status, out, err = _cli(capsys, "curve", path, "--minimize", "--ci-methods", "percentile",
                            "--resamples", "100", "--bounds", "none")
    assert status == 0, err
    assert "2 failed (NaN, infinite or null (diverged)) counted at the worst score 0.9 (the " \
           "highest observed)" in out.splitlines()[0]
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["1"])
    assert float(row.split()[1]) == pytest.approx(np.mean([0.9, 0.9, 0.4, 0.6, 0.9]), abs=5e-5)
    # losses in [0, 1] on a lattice (of step 1/10): the worst is the range's upper end, 1
    status, out, err = _cli(capsys, "curve", path, "--minimize", "--ci-methods", "percentile",
                            "--resamples", "100")
    assert "2 failed (NaN, infinite or null (diverged)) counted at the worst score 1 (the " \
           "upper end of [0, 1], the range of scores on a lattice of step 1/10)" in \
        out.splitlines()[0]
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["1"])
    assert float(row.split()[1]) == pytest.approx(np.mean([0.9, 1.0, 0.4, 0.6, 1.0]), abs=5e-5)


def test_fit_kde_counts_failed_trials_and_describes_mass_lost(capsys, tmp_path):
    # a quarter of the runs fail; counted at the lower bound, they pile up at 0 and the
    # centered KDE loses mass there
    rng = np.random.default_rng(3)
    xs = rng.normal(0.8, 0.03, 30)
    path = tmp_path / "runs.txt"
    path.write_text("".join(f"{float(x)!r}\n" for x in xs) + "nan\n" * 10)
    out_nc = tmp_path / "fit.nc"
    status, out, err = _cli(capsys, "fit-kde", path, "--name", "runs", "--construction",
                            "centered", "--bounds", "0,1", "--out", out_nc)
    assert status == 0, err
    assert "  scores: 40 from runs.txt" in out
    assert "  read: 10 failed (NaN, infinite or null (diverged)) counted at the worst score 0 " \
           "(the lower end of bounds)" in out
    fit = evpsim.load_kde(out_nc)
    assert fit is not None
    lost = next(ln for ln in out.splitlines() if "mass lost at the bounds" in ln)
    assert re.search(r"of its mass fell (below 0|outside \[0, 1\] \(\d+\.\d% below 0, "
                     r"\d+\.\d% above 1\)), spilled by scores piled up near the bound", lost)
    assert "--construction tang2020" in lost and "--failed drop" in lost
    status, out, err = _cli(capsys, "fit-kde", path, "--name", "runs", "--construction",
                            "centered", "--bounds", "0,1", "--out", out_nc, "--failed", "drop")
    assert status == 0, err
    assert "  scores: 30 from runs.txt" in out and "mass lost" not in out
    assert "the fit is conditional on success (10 failed trials dropped)" in out


def test_curve_check_says_failed_trials_at_a_bound_can_be_left_out(capsys, tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "runs.txt"
    path.write_text("".join(f"{float(x)!r}\n" for x in rng.normal(0.8, 0.03, 30)) + "nan\n" * 10)
    small = ["--ci-methods", "percentile", "--resamples", "50", "--check-replicates", "20",
             "--check-resamples", "50", "--quiet", "--bounds", "0,1"]
    status, out, err = _cli(capsys, "curve", path, "--check", *small)
    assert status == 0, err
    assert "warning: the KDE the self-check simulates from lost mass at the bounds: " in out
    assert "if the failed trials counted at the worst score pile up there, --failed drop " \
           "leaves them out (the curve is then conditional on success)" in out
    status, out, err = _cli(capsys, "curve", path, "--check", "--failed", "drop", *small)
    assert status == 0, err
    assert "lost mass" not in out and "--failed drop" not in out


# --- standard input -------------------------------------------------------------------------

def _stdin_cli(text, *argv):
    return subprocess.run([sys.executable, "-m", "evpsim", *map(str, argv)], input=text,
                          capture_output=True, text=True, timeout=600)


def test_curve_reads_standard_input():
    scores = "0.61\n0.72\n# a comment\n0.55\nnan\n0.68\n"
    res = _stdin_cli(scores, "curve", "-", "--ci-methods", "percentile", "--resamples", "100")
    assert res.returncode == 0, res.stderr
    first = res.stdout.splitlines()[0]
    assert first == ("stdin: 5 trials from stdin, in [0, 0.72]; 1 failed (NaN, infinite or "
                     "null (diverged)) counted at the worst score 0 (the lower end of [0, 1], "
                     "the range of scores on a lattice of step 1/100)")
    csv = "lr,acc\n0.1,0.5\n0.01,0.7\n0.001,0.6\n"
    res = _stdin_cli(csv, "curve", "-", "--column", "acc", "--ci-methods", "percentile",
                     "--resamples", "100")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("stdin: 3 scores from stdin (acc), in [0.5, 0.7]")
    # a CSV with several columns needs --column; JSON Lines needs --field
    res = _stdin_cli(csv, "curve", "-")
    assert res.returncode == 2 and res.stdout == ""
    assert "--column" in res.stderr and "standard input has 2 columns" in res.stderr
    res = _stdin_cli('{"acc": 0.5}\n{"acc": 0.6}\n', "curve", "-")
    assert res.returncode == 2 and "standard input is JSON Lines" in res.stderr
    assert "--field" in res.stderr
    res = _stdin_cli(scores, "curve", "-", "-")
    assert res.returncode == 2
    assert "standard input ('-') more than once" in res.stderr


def test_read_searches_reads_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"0.5\t1\n0.6\t2\n0.7\t3\n")))
    s, = read_searches("-", column=0)
    assert (s.label, s.source) == ("stdin", "stdin") and s.scores.tolist() == [0.5, 0.6, 0.7]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe0.5\n")))
    with pytest.raises(InvalidArgument, match="standard input: not text"):
        read_searches("-")


# --- KDE mass lost at a bound ---------------------------------------------------------------

def test_self_check_describes_mass_lost_at_a_bound():
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.normal(0.8, 0.03, 40), np.zeros(10)])
    ds = evpsim.self_check(xs, bounds=(0, 1), replicates=20, resamples=50, ci_methods="percentile")
    dropped = float(ds["check_mass_dropped"].item())
    below = float(ds["check_mass_dropped_below"].item())
    # ten kernels centred on 0 spill about half their mass below it
    assert below == pytest.approx(dropped, abs=1e-3) and 0.05 < below < 0.11
    warning = next(w for w in evpsim.studies.selfcheck.fit_warnings(ds) if "lost mass" in w)
    assert warning.startswith(f"the KDE the self-check simulates from lost mass at the bounds: "
                              f"{below:.1%} of its mass fell below 0, spilled by scores piled "
                              f"up near the bound")
    assert "unlike your scores" not in warning
    # losses: the worst end is the upper one
    ds = evpsim.self_check(1 - xs, bounds=(0, 1), minimize=True, replicates=20, resamples=50,
                           ci_methods="percentile")
    assert float(ds["check_mass_dropped_below"].item()) < 1e-3
    assert "fell above 1" in " ".join(evpsim.studies.selfcheck.fit_warnings(ds))
