"""``evpsim sweep``: grids of battery runs, the same numbers wherever and however they run."""

import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr

import evpsim
from evpsim.cli import main
from evpsim.sweeps import Grid, load_toml, sweep

#: attributes that say when and how a result was made, not what it holds
RUN_ATTRS = ("created_utc", "command")
COVERAGE = {"dist": ["normal", "tang-small", "kde:reuters-lstm"], "B": [5, 8, 10, 12]}
COVERAGE_OPTIONS = {"estimators": "U,V", "ci_methods": "percentile,dkw", "replicates": 40,
                    "resamples": 100}


def assert_same(a, b):
    """Identical Datasets, apart from the attributes of when and how they were made."""
    a, b = a.copy(), b.copy()
    for ds in (a, b):
        for key in RUN_ATTRS:
            ds.attrs.pop(key, None)
    xr.testing.assert_identical(a, b)


@pytest.fixture(scope="module")
def in_process():
    return sweep("coverage", COVERAGE, options=COVERAGE_OPTIONS, seed=3)


def test_a_sweep_has_the_grid_as_dimensions(in_process):
    ds = in_process
    assert ds["coverage"].dims == ("dist", "B", "estimator", "ci_method", "n")
    assert ds["dist"].values.tolist() == COVERAGE["dist"]
    assert ds["B"].values.tolist() == COVERAGE["B"]
    assert ds["n"].values.tolist() == list(range(1, 13))
    # n is padded where B is smaller, and only there
    assert np.isnan(ds["coverage"].sel(B=5, n=6)).all()
    assert np.isfinite(ds["coverage"].sel(B=5, n=5)).all()
    # each truth's description is a coordinate along dist
    assert ds["truth_description"].dims == ("dist",)
    assert "Reuters LSTM" in str(ds["truth_description"].sel(dist="kde:reuters-lstm").item())
    assert ds.attrs["battery"] == "coverage" and ds.attrs["seed"] == 3
    assert ds.attrs["option_resamples"] == 100


def test_each_cell_equals_the_battery_alone_with_the_same_seed(in_process):
    for dist, B in [("kde:reuters-lstm", 8), ("normal", 12)]:
        alone = evpsim.coverage(dist, B, seed=3, **COVERAGE_OPTIONS)
        cell = in_process.sel(dist=dist, B=B, n=alone["n"])
        for var in alone.data_vars:
            assert np.array_equal(cell[var].values, alone[var].values, equal_nan=True), var


def test_a_cell_does_not_depend_on_its_grid():
    options = {"method": "mc", "estimators": "V", "replicates": 2000}
    big = sweep("bias", {"dist": ["normal", "tang-big"], "B": [6, 4]}, options=options, seed=9)
    small = sweep("bias", {"dist": ["tang-big"], "B": [4]}, options=options, seed=9)
    assert np.array_equal(big["mean"].sel(dist="tang-big", B=4, n=[1, 2, 3, 4]),
                          small["mean"].sel(dist="tang-big", B=4))
    other = sweep("bias", {"dist": ["tang-big"], "B": [4]}, options=options, seed=10)
    assert not np.array_equal(other["mean"], small["mean"])


def test_the_same_numbers_on_joblib_processes(in_process, tmp_path):
    processes = sweep("coverage", COVERAGE, options=COVERAGE_OPTIONS, seed=3, backend="joblib",
                      workers=2, store=tmp_path / "joblib")
    assert_same(in_process, processes)


@pytest.mark.slow  # starts a LocalCluster of two worker processes
def test_the_same_numbers_on_a_dask_local_cluster(in_process, tmp_path):
    pytest.importorskip("distributed")
    cluster = sweep("coverage", COVERAGE, options=COVERAGE_OPTIONS, seed=3, backend="dask",
                    workers=2, store=tmp_path / "dask")
    assert_same(in_process, cluster)


SWEEP_ARGS = ["sweep", "coverage", "--dist", ",".join(COVERAGE["dist"]), "--B", "10,20,25,30",
              "--estimators", "V", "--ci-methods", "percentile", "--replicates", "150",
              "--resamples", "400", "--seed", "4"]


@pytest.mark.slow  # two sweeps in subprocesses, one killed
def test_killed_half_way_and_resumed_gives_the_uninterrupted_result(tmp_path):
    store = tmp_path / "cells"
    cmd = [sys.executable, "-m", "evpsim", *SWEEP_ARGS, "--store", str(store), "--quiet",
           "--out", str(tmp_path / "resumed.nc")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if len(list(store.glob("cell-*.nc"))) >= 4:
            proc.send_signal(signal.SIGTERM)
            break
        time.sleep(0.02)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    kept = {p.name: p.stat().st_mtime_ns for p in store.glob("cell-*.nc")}
    assert 4 <= len(kept) < 12
    assert not [p for p in store.iterdir() if p.name.startswith(".")]  # nothing half-written
    assert not (tmp_path / "resumed.nc").exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # the kept cells were not computed again
    assert all(store.joinpath(name).stat().st_mtime_ns == t for name, t in kept.items())
    assert len(list(store.glob("cell-*.nc"))) == 12
    assert main([*SWEEP_ARGS, "--store", str(tmp_path / "whole"), "--quiet",
                 "--out", str(tmp_path / "whole.nc")]) == 0
    assert_same(evpsim.results.read_netcdf(tmp_path / "whole.nc"),
                evpsim.results.read_netcdf(tmp_path / "resumed.nc"))


def test_a_store_of_another_grid_or_seed_is_refused(tmp_path, capsys):
    base = ["sweep", "bias", "--dist", "normal", "--B", "5", "--method", "exact",
            "--store", str(tmp_path / "s"), "--quiet"]
    assert main(base) == 0
    capsys.readouterr()
    assert main(base + ["--seed", "1"]) == 2
    assert "holds cells of another sweep (its seed differ" in capsys.readouterr().err
    assert main(base[:5] + ["5,6"] + base[6:]) == 2
    assert "its axes differ" in capsys.readouterr().err
    assert main(base) == 0  # the same grid reuses the store


def test_cli_table_first_cell_command_and_figure(tmp_path, capsys):
    out, fig = tmp_path / "s.nc", tmp_path / "s.png"
    assert main(["sweep", "falseconc", "--dist", "normal,kde:reuters-mlp", "--B", "10:20:5",
                 "--estimators", "U,V", "--replicates", "2000", "--out", str(out),
                 "--plot", str(fig), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "falseconc sweep: 6 cells (2 dist x 3 B); seed 0; process" in text
    assert "below at n = B" in text and text.count("kde:reuters-mlp") >= 3
    assert f"checkpoints in {out}.cells" in text
    command = text.split("the first cell alone: ")[1].splitlines()[0]
    assert command.startswith("evpsim falseconc --dist normal --B 10 --estimators U,V ")
    assert fig.stat().st_size > 10_000
    ds = evpsim.results.read_netcdf(out)
    assert command.endswith("--seed 0")
    assert main(command.split()[1:] + ["--out", str(tmp_path / "one.nc"), "--quiet"]) == 0
    one = evpsim.results.read_netcdf(tmp_path / "one.nc")
    assert np.array_equal(one["below"].values,
                          ds["below"].sel(dist="normal", B=10, n=one["n"]).values)


def test_compare_sweeps_and_toml_grids(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text('battery = "compare"\nseed = 2\na = ["kde:reuters-mlp"]\n'
                    'b = ["kde:reuters-lstm", "tang-small"]\nB = [10, 20]\n'
                    '[options]\nestimators = "V"\nreplicates = 500\n')
    g = load_toml(grid)
    assert g.battery.name == "compare" and g.seed == 2 and len(g.cells()) == 4
    assert main(["sweep", "compare", "--grid", str(grid), "--store", str(tmp_path / "c"),
                 "--out", str(tmp_path / "c.nc"), "--quiet"]) == 0
    assert "wrong at n = B" in capsys.readouterr().out
    ds = evpsim.results.read_netcdf(tmp_path / "c.nc")
    assert ds["wrong"].dims == ("a", "b", "B", "estimator")
    assert ds["truth_b_description"].dims == ("b",)


@pytest.mark.parametrize("battery, axes, options, message", [
    ("nope", {"dist": ["normal"], "B": [5]}, {}, "unknown battery 'nope'"),
    ("bias", {"B": [5]}, {}, "missing: dist"),
    ("bias", {"dist": ["normal"], "B": [5], "n": [1]}, {}, "unknown: n"),
    ("bias", {"dist": [], "B": [5]}, {}, "dist: the grid axis has no values"),
    ("bias", {"dist": ["normal", "normal"], "B": [5]}, {}, "'normal' is listed twice"),
    ("bias", {"dist": ["normal"], "B": [1]}, {}, "B must be at least 2"),
    ("bias", {"dist": ["nope"], "B": [5]}, {}, "unknown truth 'nope'"),
    ("bias", {"dist": ["normal"], "B": [5]}, {"resamples": 9}, "resamples is not an option"),
])
def test_bad_grids(battery, axes, options, message):
    with pytest.raises(ValueError, match=message):
        Grid.make(battery, axes, options)


@pytest.mark.parametrize("text, message", [
    ("battery = ", "is not valid TOML"),
    ('dist = ["normal"]\nB = [5]\n', "names no battery"),
    ('battery = "bias"\ndist = ["normal"]\nB = [5]\noptions = 3\n', "options must be a table"),
])
def test_bad_toml(tmp_path, text, message):
    path = tmp_path / "g.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_toml(path)
    with pytest.raises(ValueError, match="No such file"):
        load_toml(tmp_path / "missing.toml")


@pytest.mark.slow  # waits for the connection to time out (10 s)
def test_no_scheduler_there(tmp_path, capsys):
    pytest.importorskip("distributed")
    assert main(["sweep", "bias", "--dist", "normal", "--B", "5", "--method", "exact",
                 "--scheduler", "tcp://127.0.0.1:9", "--store", str(tmp_path / "s"),
                 "--quiet"]) == 2
    assert "--scheduler 'tcp://127.0.0.1:9': cannot connect" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["nope", "--dist", "normal", "--B", "5"], "invalid choice: 'nope'"),
    (["bias", "--dist", "", "--B", "5"], "--dist: values must be non-empty names"),
    (["bias", "--dist", "normal", "--B", ""], "argument --B: '' is not an integer"),
    (["bias", "--dist", "nope", "--B", "5"], "unknown truth 'nope'"),
    (["bias", "--B", "5"], "missing: dist"),
    (["coverage", "--dist", "normal", "--B", "5", "--method", "exact"],
     "--method is not an option of a coverage sweep"),
    (["bias", "--grid", "bad.toml"], "--grid file 'bad.toml' is not valid TOML"),
    (["bias", "--grid", "bad.toml", "--seed", "1"], "drop --seed"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text("battery = \n")
    try:
        status = main(["sweep", *args, "--quiet"])
    except SystemExit as exit_:  # argparse's errors
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("evpsim sweep: error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "sweep-bias.cells").exists()  # refused before any work
