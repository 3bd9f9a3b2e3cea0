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
    (["bias", "--B", "1"], "--B must be at least 2, got 1"),
    (["bias", "--estimators", "U,X"], "--estimators: unknown estimator 'X'"),
    (["bias", "--dist", "file:/no/such/file.txt"], "no such file"),
    (["bias", "--dist", "normal", "--sigma", "-1"], "--sigma must lie in (0, inf), got -1.0"),
    (["bias", "--dist", "weird"], "unknown truth 'weird'"),
    (["bias", "--out", "/no/such/dir/r.nc"], "does not exist"),
    (["bias", "--out", "r.txt"], "expected a file ending in .nc"),
    (["bias", "--seed", "-1"], "--seed must be at least 0, got -1"),
])
def test_user_errors_print_one_line_and_exit_2(argv, message, capsys):
    assert main(argv + ["--replicates", "1000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("evpsim bias: error: ")
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_library_errors_name_the_flag(capsys):
    assert main(["bias", "--replicates", "1"]) == 2
    assert capsys.readouterr().err.strip() == \
        "evpsim bias: error: --replicates must be at least 2, got 1"


def test_few_replicates_are_not_checked_against_exact(capsys):
    assert main(["bias", "--dist", "normal", "--B", "5", "--replicates", "500", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Monte Carlo vs exact: not checked; 500 replicates are too few" in text
    assert "largest |MC - exact| / SE" not in text


def test_nan_scores_in_file(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text("0.5\n0.6\nnan\n")
    assert main(["bias", "--dist", f"file:{f}", "--B", "3", "--method", "exact"]) == 2
    assert "line 3" in capsys.readouterr().err


def test_no_partial_output_when_a_run_fails(tmp_path):
    out = tmp_path / "r.nc"
    assert main(["bias", "--B", "1", "--out", str(out)]) == 2
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_outputs_are_checked_before_any_work(tmp_path, capsys):
    out = tmp_path / "r.nc"
    status = main(["bias", "--B", "5", "--replicates", "1000", "--quiet", "--out", str(out),
                   "--plot", str(tmp_path / "missing" / "r.png")])
    assert status == 2
    err = capsys.readouterr()
    assert "--plot" in err.err and "does not exist" in err.err
    assert "truth:" not in err.out  # nothing was computed
    assert list(tmp_path.iterdir()) == []
    assert main(["bias", "--B", "5", "--quiet", "--out", str(out), "--plot", str(out)]) == 2
    assert list(tmp_path.iterdir()) == []


def test_file_truth_from_csv_without_header(tmp_path, capsys):
    f = tmp_path / "runs.csv"
    f.write_text("0.5,0.71\n0.6,0.74\n0.55,0.69\n0.52,0.80\n")
    assert main(["bias", "--dist", f"file:{f}", "--column", "1", "--B", "3",
                 "--method", "exact"]) == 0
    assert "empirical distribution of 4 scores (4 distinct)" in capsys.readouterr().out


def test_coverage_command_selects_ci_methods(tmp_path, capsys):
    args = ["coverage", "--dist", "normal", "--B", "6", "--estimators", "V", "--replicates",
            "16", "--resamples", "100", "--quiet"]
    new, old = tmp_path / "new.nc", tmp_path / "old.nc"
    assert main(args + ["--ci-methods", "percentile,dkw", "--out", str(new)]) == 0
    assert main(args + ["--methods", "percentile,dkw", "--out", str(old)]) == 0  # the alias
    text = capsys.readouterr().out
    assert "percentile" in text and "dkw" in text and "bca" not in text
    ds, ds_old = read_netcdf(new), read_netcdf(old)
    assert ds["ci_method"].values.tolist() == ["percentile", "dkw"]
    assert ds["ci_method_kind"].values.tolist() == ["bootstrap", "band"]
    assert ds["coverage"].dims == ("estimator", "ci_method", "n")
    assert ds.sel(ci_method="dkw")["coverage"].dims == ("estimator", "n")
    assert ds["truth"].item() == "normal" and int(ds["B"]) == 6
    assert ds["coverage"].equals(ds_old["coverage"])


def test_compare_command_names_both_models(tmp_path, capsys):
    out = tmp_path / "c.nc"
    assert main(["compare", "--a", "tang-small", "--b", "tang-big", "--B", "5",
                 "--replicates", "2000", "--quiet", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "A = tang-small: truncated normal N(0.5, 0.1^2) on [0, 0.6]" in text
    assert "B = tang-big: truncated normal N(0.25, 0.2^2) on [0, 0.75]" in text
    ds = read_netcdf(out)
    assert ds["label_a"].item() == "tang-small" and ds["truth_b"].item() == "tang-big"
    assert int(ds["B"]) == 5


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bias", "--replicates", "lots"])
    assert exc.value.code == 2


@pytest.mark.parametrize("command",
                         [c for c in build_parser()._subparsers._group_actions[0].choices])
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


def test_module_entry_point_without_command_prints_overview():
    res = subprocess.run([sys.executable, "-m", "evpsim"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == ""
    assert "evpsim COMMAND --help" in res.stdout and "\n  curve " in res.stdout
