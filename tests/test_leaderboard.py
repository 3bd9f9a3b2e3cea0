"""The leaderboard: cells equal the battery runs they stand for; tables, figures, resume."""

import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr

import evpsim
from evpsim.intervals.family import CURVE_CI_METHOD
from evpsim.studies.leaderboard import budgets, cell, default_estimators, leaderboard
from evpsim.report.leaderboard import (QUICK_NOTE, estimator_table, interval_table, summary,
                                       write_report)

SMALL = dict(replicates=3000, coverage_replicates=60, resamples=150,
             python_replicates={"kde": 10}, seed=4)


def test_budgets_reach_twice_B_on_a_log_grid():
    for B in (10, 25, 50, 100):
        ns = budgets(B)
        assert ns[0] == 1 and ns[-1] == 2 * B and B in ns
        assert np.all(np.diff(ns) > 0) and np.all(ns[1:] / ns[:-1] <= 2.01)
    assert "opda-parametric" not in default_estimators() and "kde" in default_estimators()


def test_a_cell_equals_the_battery_runs_it_stands_for():
    ds = cell("tang-big", 12, "mean", estimators="U,V,naive,kde", ci_methods="percentile,ks",
              **SMALL)
    ns = budgets(12)
    inside, beyond = ns[ns <= 12], ns[ns > 12]
    b_in = evpsim.bias("tang-big", 12, estimators="U,V,naive,kde", ns=inside, method="both",
                       replicates=3000, python_replicates={"kde": 10}, bounds=(0, 1), seed=4)
    b_out = evpsim.bias("tang-big", 12, estimators="V,kde", ns=beyond, method="both",
                        replicates=3000, python_replicates={"kde": 10}, bounds=(0, 1), seed=4)
    for name in ("U", "V", "naive"):  # exact moments
        np.testing.assert_array_equal(ds["rmse"].sel(estimator=name, n=inside),
                                      np.sqrt(b_in["exact_mse"].sel(estimator=name)))
        np.testing.assert_array_equal(ds["mc_rmse"].sel(estimator=name, n=inside),
                                      np.sqrt(b_in["mse"].sel(estimator=name)))
    np.testing.assert_array_equal(ds["rmse"].sel(estimator="kde", n=beyond),
                                  np.sqrt(b_out["mse"].sel(estimator="kde")))
    np.testing.assert_array_equal(ds["bias"].sel(estimator="V", n=beyond),
                                  b_out["exact_bias"].sel(estimator="V"))
    assert ds["exact"].sel(estimator="kde").values.sum() == 0
    assert np.isnan(ds["rmse"].sel(estimator="U", n=beyond)).all()
    c_in = evpsim.coverage("tang-big", 12, estimators="U,V", ci_methods="percentile,ks",
                           ns=inside, replicates=60, resamples=150, bounds=(0, 1), seed=4)
    np.testing.assert_array_equal(ds["coverage"].sel(estimator=["U", "V"], n=inside),
                                  c_in["coverage"])
    assert np.isnan(ds["coverage"].sel(estimator="kde")).all()
    assert ds["replicates"].sel(estimator="kde").item() == 10


def test_exact_and_monte_carlo_rmse_agree_within_their_standard_errors():
    ds = cell("kde:reuters-mlp-centered", 25, "median", estimators="quantile,naive",
              ci_methods="percentile", replicates=100_000, coverage_replicates=40, resamples=100,
              seed=2)
    exact = ds["exact"].values
    z = (ds["rmse"] - ds["mc_rmse"]) / ds["mc_rmse_se"]
    assert exact.sum() > 10 and np.nanmax(np.abs(z.values[exact])) < 4.5


def test_samples_is_a_deprecated_name_of_coverage_replicates(tmp_path, capsys):
    from evpsim.cli import main

    small = dict(estimators="U,V", ci_methods="percentile", replicates=2000, resamples=50)
    now = cell("tang-small", 6, "mean", coverage_replicates=20, **small)
    with pytest.warns(DeprecationWarning, match="'samples' is now 'coverage_replicates'"):
        old = cell("tang-small", 6, "mean", samples=20, **small)
    assert old["coverage"].equals(now["coverage"]) and old.attrs["coverage_replicates"] == 20
    with pytest.raises(ValueError, match="give coverage_replicates only"):
        cell("tang-small", 6, "mean", samples=20, coverage_replicates=30, **small)
    with pytest.warns(DeprecationWarning):
        ds = leaderboard(truths=["tang-small"], Bs=[6], curves=["mean"], samples=20,
                         store=tmp_path / "py", **small)
    assert ds.attrs["option_coverage_replicates"] == 20
    argv = ["leaderboard", "--truths", "tang-small", "--B", "6", "--curves", "mean",
            "--estimators", "U,V", "--ci-methods", "percentile", "--replicates", "2000",
            "--resamples", "50", "--quiet"]
    assert main(argv + ["--samples", "20", "--out", str(tmp_path / "old")]) == 0
    assert ("--samples is deprecated; use --coverage-replicates"
            in capsys.readouterr().err)
    assert main(argv + ["--coverage-replicates", "20", "--out", str(tmp_path / "new")]) == 0
    assert "deprecated" not in capsys.readouterr().err
    a = xr.load_dataset(tmp_path / "old" / "leaderboard.nc")
    b = xr.load_dataset(tmp_path / "new" / "leaderboard.nc")
    assert a.attrs["option_coverage_replicates"] == 20 and a["coverage"].equals(b["coverage"])
    assert main(argv + ["--samples", "20", "--coverage-replicates", "20",
                        "--out", str(tmp_path / "both")]) == 2
    assert "give --coverage-replicates only" in capsys.readouterr().err
    assert not (tmp_path / "both").exists()


def test_a_small_leaderboard_and_its_report(tmp_path):
    ds = leaderboard(truths=["normal", "data:reuters-mlp"], Bs=[10], curves=["mean", "median"],
                     estimators="U,V,quantile,naive", ci_methods="percentile,ld-equal-tailed",
                     size="quick", store=tmp_path / "cells")
    assert dict(ds.sizes)["dist"] == 2 and set(ds["curve"].values) == {"mean", "median"}
    rows = estimator_table(ds, "mean", 10)
    assert rows[0].startswith("| estimator | runs on | median RMSE / V")
    v = next(r for r in rows if r.startswith("| V |"))
    assert "| exact | 1.000 | 1.000 |" in v
    assert any(r.startswith("| V | ld-equal-tailed | 1.000") for r in interval_table(ds, "mean",
                                                                                   10))
    text = "\n".join(summary(ds))
    assert "## The median curve (reference estimator: quantile)" in text
    files = write_report(ds, tmp_path / "out")
    assert {f.name for f in files} == {"leaderboard.nc", "leaderboard.md", "summary.md",
                                        "rmse-mean.png", "coverage-mean.png", "rmse-median.png",
                                        "coverage-median.png"}
    back = xr.load_dataset(tmp_path / "out" / "leaderboard.nc")
    np.testing.assert_array_equal(back["rmse"], ds["rmse"])
    again = leaderboard(truths=["normal", "data:reuters-mlp"], Bs=[10], curves=["mean", "median"],
                        estimators="U,V,quantile,naive", ci_methods="percentile,ld-equal-tailed",
                        size="quick", store=tmp_path / "cells")
    assert again.attrs["cells_computed"] == 0
    np.testing.assert_array_equal(again["coverage"], ds["coverage"])


def test_a_user_estimator_enters_the_leaderboard():
    def mean_of_top_two(scores, ns):
        top = np.sort(scores)[-2:].mean()
        return np.full(ns.size, top)

    evpsim.register_estimator("top2", python=mean_of_top_two, extrapolates=True)
    try:
        ds = leaderboard(truths=["normal"], Bs=[10], curves=["mean"], estimators="V,top2",
                         ci_methods="percentile", size="quick")
    finally:
        evpsim.unregister_estimator("top2")
    assert ds["kind"].sel(estimator="top2").item() == "python"
    assert np.isfinite(ds["rmse"].sel(estimator="top2")).sum() > 5


@pytest.mark.slow
def test_the_quick_command_resumes_after_a_kill(tmp_path):
    cmd = [sys.executable, "-m", "evpsim", "leaderboard", "--quick", "--truths",
           "normal,tang-small,data:reuters-mlp", "--quiet"]
    whole = subprocess.run(cmd + ["--out", str(tmp_path / "whole")], capture_output=True,
                           text=True, timeout=1200)
    assert whole.returncode == 0, whole.stderr
    proc = subprocess.Popen(cmd + ["--out", str(tmp_path / "cut")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    cells = tmp_path / "cut" / "cells"
    deadline = time.time() + 600
    while time.time() < deadline and len(list(cells.glob("*.nc"))) < 3:
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (143, -signal.SIGTERM), err
    kept = len(list(cells.glob("*.nc")))
    assert 3 <= kept < 12
    again = subprocess.run(cmd + ["--out", str(tmp_path / "cut")], capture_output=True,
                           text=True, timeout=1200)
    assert again.returncode == 0, again.stderr
    assert f"{12 - kept} cells computed" in again.stdout
    a = xr.load_dataset(tmp_path / "whole" / "leaderboard.nc")
    b = xr.load_dataset(tmp_path / "cut" / "leaderboard.nc")
    for var in ("rmse", "coverage", "mean_width"):
        np.testing.assert_array_equal(a[var], b[var])
    assert (tmp_path / "cut" / "summary.md").read_text().startswith("# Leaderboard: summary")


def test_the_default_ci_methods_include_every_kind(capsys):
    """The leaderboard runs the resampling and betting methods too (curve's default among
    them), and its help says so."""
    from evpsim.cli import main
    from evpsim.intervals import default_ci_methods as battery_default, get_ci_method
    from evpsim.studies.leaderboard import default_ci_methods

    names = default_ci_methods()
    assert {get_ci_method(m).kind for m in names} == {"bootstrap", "resampling", "band",
                                                      "betting", "order-statistic"}
    assert CURVE_CI_METHOD in names and set(battery_default()) < set(names)
    with pytest.raises(SystemExit):
        main(["leaderboard", "--help"])
    # argparse wraps lines after hyphens too: joined back
    help_text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert "the bootstrap, resampling, band, betting and order-statistic kinds" in help_text
    assert f"{CURVE_CI_METHOD}, curve's default" in help_text


def _row_counts(cell):
    """``"k of N"`` -> (k, N); ``"-"`` -> (0, 0)."""
    if cell == "-":
        return 0, 0
    k, n = re.fullmatch(r"(\d+) of (\d+)", cell).groups()
    return int(k), int(n)


def test_table_and_summary_count_the_same_cells_surely_below(tmp_path):
    """One small run with the default CI methods: the table's and the summary's counts of
    cells surely below 0.93 (and of estimates below it) are the Dataset's."""
    ds = leaderboard(truths=["normal", "data:reuters-mlp"], Bs=[10], curves=["mean", "median"],
                     estimators="V,quantile", size="quick", replicates=500, samples=30,
                     resamples=60, store=tmp_path / "cells")
    gpd = ds["coverage"].sel(ci_method="gpd-tail", estimator="V")
    assert np.isfinite(gpd.sel(curve="mean")).any()
    assert np.isnan(ds["coverage"].sel(ci_method="gpd-tail", curve="median")).all()
    summary_text = "\n".join(summary(ds))
    assert summary_text.splitlines()[0] == f"# Leaderboard: summary {QUICK_NOTE}"
    seen = 0
    for curve in ("mean", "median"):
        sub = ds.sel(curve=curve, B=10)
        rows = interval_table(ds, curve, 10)
        assert "cells surely below 0.93 (CP upper bound)" in rows[0]
        section = summary_text.split(f"## The {curve} curve")[1].split("\n## ")[0]
        said = {m[0]: (m[1], m[2]) for m in re.findall(
            r"  - (\S+ \S+): coverage surely below 0.93 \(its Clopper-Pearson upper bound "
            r"below it\) in (\d+ of \d+) cells; estimate below 0.93 in (\d+)", section)}
        assert len(said) == len(rows) - 2
        for row in rows[2:]:
            cells = [c.strip() for c in row.strip("|").split("|")]
            est, meth = cells[0], cells[1]
            (s_in, n_in), (s_out, n_out) = _row_counts(cells[3]), _row_counts(cells[4])
            (e_in, _), (e_out, _) = _row_counts(cells[5]), _row_counts(cells[6])
            cov = sub["coverage"].sel(estimator=est, ci_method=meth)
            upper = sub["coverage_upper"].sel(estimator=est, ci_method=meth)
            have = np.isfinite(cov.values)
            assert s_in + s_out == int((upper.values[have] < 0.93).sum())
            assert e_in + e_out == int((cov.values[have] < 0.93).sum())
            assert n_in + n_out == int(have.sum())
            sure_of, point = said[f"{est} {meth}"]
            assert sure_of == f"{s_in + s_out} of {n_in + n_out}" and int(point) == e_in + e_out
            seen += s_in + s_out
    assert seen > 0  # percentile at n near B is surely below 0.93 even from 30 samples


def test_a_ci_method_named_for_a_grid_it_bounds_nowhere_is_refused(tmp_path):
    for kwargs in (dict(curves=["median"], Bs=[10]), dict(curves=["mean"], Bs=[5])):
        with pytest.raises(ValueError, match=r"^ci_methods: gpd-tail bounds the mean curve "
                                             r"only, at B >= 10, and no cell of this grid is "
                                             r"one$"):
            leaderboard(truths=["normal"], estimators="V", ci_methods="percentile,gpd-tail",
                        size="quick", store=tmp_path / "cells", **kwargs)
        assert not (tmp_path / "cells").exists()
