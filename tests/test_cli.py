"""Command line: the bias battery end to end, help, and user errors."""

import subprocess
import sys

import pytest

from evpsim.cli import SUBCOMMANDS, build_parser, main
from evpsim.results import read_netcdf


def test_bias_command_writes_dataset_and_plot(tmp_path, capsys):
    out, png = tmp_path / "r.nc", tmp_path / "r.png"
    status = main(["bias", "--dist", "normal", "--B", "30", "--replicates", "100000",
                   "--out", str(out), "--plot", str(png), "--quiet"])
    assert status == 0
    text = capsys.readouterr().out
    assert "truncated normal N(0.6, 0.07^2) on [0, 1]" in text
    assert "largest |MC - exact| / SE" in text
    ds = read_netcdf(out)
    assert {"U", "V", "W"} <= set(ds["estimator"].values)
    assert list(ds["n"].values) == list(range(1, 31))
    for var in ("theta", "mean", "bias", "variance", "mse", "mean_se", "bias_se",
                "variance_se", "mse_se", "exact_bias", "exact_variance"):
        assert var in ds
    assert ds.attrs["seed"] == 0 and ds.attrs["replicates"] == 100_000
    assert "evpsim_version" in ds.attrs and "command" in ds.attrs
    assert png.stat().st_size > 10_000


def test_bias_exact_only_and_all_rows(capsys):
    assert main(["bias", "--dist", "tang-small", "--B", "14", "--method", "exact", "--all"]) == 0
    text = capsys.readouterr().out
    rows = [ln for ln in text.splitlines() if ln.strip().startswith("14 ")]
    assert len(rows) == 3  # one per estimator
    assert "bias exact" in text and "bias MC" not in text


def test_file_truth_from_csv(tmp_path, capsys):
    f = tmp_path / "runs.csv"
    f.write_text("trial,f1\n" + "".join(f"{i},{0.5 + 0.01 * (i % 7)}\n" for i in range(30)))
    assert main(["bias", "--dist", f"file:{f}", "--column", "f1", "--B", "10",
                 "--method", "exact"]) == 0
    assert "empirical distribution of 30 scores (7 distinct)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["bias", "--B", "1"], "B must be at least 2"),
    (["bias", "--estimators", "U,X"], "unknown estimator 'X'"),
    (["bias", "--dist", "file:/no/such/file.txt"], "no such file"),
    (["bias", "--dist", "normal", "--sigma", "-1"], "sigma must be positive"),
    (["bias", "--dist", "weird"], "unknown truth 'weird'"),
    (["bias", "--out", "/no/such/dir/r.nc"], "does not exist"),
    (["bias", "--out", "r.txt"], "expected a file ending in .nc"),
])
def test_user_errors_print_one_line_and_exit_2(argv, message, capsys):
    assert main(argv + ["--replicates", "1000"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_nan_scores_in_file(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text("0.5\n0.6\nnan\n")
    assert main(["bias", "--dist", f"file:{f}", "--B", "3", "--method", "exact"]) == 2
    assert "line 3" in capsys.readouterr().err


def test_no_partial_output_when_a_run_fails(tmp_path):
    out = tmp_path / "r.nc"
    assert main(["bias", "--B", "1", "--out", str(out)]) == 2
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bias", "--replicates", "lots"])
    assert exc.value.code == 2


@pytest.mark.parametrize("command", [c for c in build_parser()._subparsers._group_actions[0].choices])
def test_every_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "usage: evpsim" in capsys.readouterr().out


def test_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "evpsim", "list"], capture_output=True, text=True)
    assert res.returncode == 0
    assert "tang-small" in res.stdout and "W" in res.stdout
    assert SUBCOMMANDS
