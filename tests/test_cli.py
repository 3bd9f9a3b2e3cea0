"""Command line: the bias battery end to end, help, user errors, and every command's
tables read back at any scale of the scores."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from evpsim.cli import SUBCOMMANDS, build_parser, main
from evpsim.io.results import read_netcdf


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


def test_bias_tables_print_each_column_in_one_layout_in_every_block(capsys):
    # U's exact bias is 0 and its MC bias tiny; V's and W's are not: every block's column
    # must still print in one layout (it printed '0' in U's block, '0.00000' in V's)
    assert main(["bias", "--dist", "normal", "--B", "10", "--replicates", "20000",
                 "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.split()[:3] == ["n", "theta", "mean"]]
    assert len(heads) == 3
    layouts = [set() for _ in lines[heads[0] + 1].split()]

    def layout(token):
        return "e" if "e" in token else len(token.partition(".")[2])

    for i in heads:
        for row in lines[i + 1:i + 11]:
            for k, token in enumerate(row.split()[1:], 1):
                if token not in ("-", "0") or k == 3:
                    layouts[k].add(layout(token))
    assert all(len(found) == 1 for found in layouts[1:]), layouts


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


# --- tables at any scale ---------------------------------------------------------------------
# Each command runs on scores of 1e-9, of 1e9, far from zero (1e5 + 0.6: digits that
# used to fuse) and negative (losses); its printed tables, split by whitespace, give back
# the Dataset's values to the printed precision, and every nonzero value with two
# significant digits at least (no 0.0000 for a value of 1e-10).

SCALES = {"tiny": (1e-9, 0.0), "huge": (1e9, 3e9), "offset": (1.0, 1e5), "losses": (-1e3, 0.0)}


def _score_file(folder, scale, seed=0, name="scores.txt"):
    """A search's 40 scores (N(0.6, 0.07)), times ``scale[0]`` plus ``scale[1]``."""
    rng = np.random.default_rng(seed)
    path = folder / name
    np.savetxt(path, rng.normal(0.6, 0.07, 40) * scale[0] + scale[1], fmt="%.17g")
    return str(path)


def _tables(text):
    """The tables of ``text``: for each, its rows as lists of tokens.

    A table is a header line whose first word is ``n`` or ``B`` (not a line
    ``B = ...``) and the lines after it that begin with an integer; brackets,
    commas, ``/`` and ``|`` separate tokens.
    """
    tables, rows = [], None
    for line in text.splitlines():
        tokens = line.translate(str.maketrans("[],/|", "     ")).split()
        if tokens and tokens[0] in ("n", "B") and "=" not in line:
            rows = []
            tables.append(rows)
        elif rows is not None and tokens and tokens[0].isdigit():
            rows.append(tokens)
        else:
            rows = None
    return [t for t in tables if t]


def _precision(token):
    """Half a unit in the last place of a printed number."""
    mantissa, _, exponent = token.partition("e")
    return 0.5 * 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2]))


def _assert_prints(tokens, values, noise=0.0, digits=2):
    """Each token prints its value to its own precision, with ``digits`` significant
    digits at least; values within ``noise`` of zero may print as 0."""
    assert len(tokens) == len(values)
    for token, value in zip(tokens, np.asarray(values, dtype=float).ravel()):
        if not np.isfinite(value):
            assert token == "-"
            continue
        x = float(token)
        if abs(value) <= noise:
            assert x == 0 or abs(x - value) <= _precision(token) * (1 + 1e-9), (token, value)
            continue
        assert abs(x - value) <= _precision(token) * (1 + 1e-9) + 1e-300, (token, value)
        assert abs(x - value) <= 0.5 * 10.0 ** (1 - digits) * abs(value), (token, value)


def _assert_increasing(tokens):
    """theta_n grows with n: so must its printed values (digits enough to tell them apart)."""
    values = [float(t) for t in tokens]
    assert all(a < b for a, b in zip(values, values[1:])), tokens


def _tokens(row):
    """The tokens of ``row`` that are numbers (or ``-``, printed for NaN), not labels."""
    return [t for t in row if t == "-" or _is_number(t)]


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


def _run(capsys, folder, *argv):
    """Run ``evpsim ARGV --quiet --out FILE``: the Dataset written and the tables printed."""
    out = folder / "out.nc"
    assert main([*argv, "--quiet", "--out", str(out)]) == 0
    return read_netcdf(out), _tables(capsys.readouterr().out)


@pytest.mark.parametrize("scale", SCALES)
def test_bias_table_at_any_scale(scale, tmp_path, capsys):
    path = _score_file(tmp_path, SCALES[scale])
    ds, tables = _run(capsys, tmp_path, "bias", "--dist", f"file:{path}", "--B", "8",
                      "--replicates", "4000", "--all")
    assert len(tables) == 3 and all(len(t) == 8 for t in tables)
    tol = 1e-12 * float(np.abs(ds["theta"]).max())
    names = ["theta", "exact_mean", "exact_bias", "bias", "bias_se", "exact_variance",
             "variance", "variance_se", "exact_mse", "mse", "mse_se"]
    for table, est in zip(tables, ds["estimator"].values):
        rows = [_tokens(row) for row in table]
        assert all(len(r) == 1 + len(names) for r in rows)  # no column ran into another
        sub = ds.sel(estimator=est)
        _assert_prints([r[1] for r in rows], sub["theta"].values, digits=4)
        _assert_increasing([r[1] for r in rows])
        for j, name in enumerate(names[1:], start=2):
            power = 2 if "variance" in name or "mse" in name else 1
            se = name.endswith("_se")
            _assert_prints([r[j] for r in rows], sub[name].values, noise=tol ** power,
                           digits=1 if se else 2)


@pytest.mark.parametrize("scale", SCALES)
def test_falseconc_table_at_any_scale(scale, tmp_path, capsys):
    path = _score_file(tmp_path, SCALES[scale])
    ds, (table,) = _run(capsys, tmp_path, "falseconc", "--dist", f"file:{path}", "--B", "8",
                        "--replicates", "4000", "--all")
    rows = [_tokens(row) for row in table]
    assert all(len(r) == 2 + 3 * ds.sizes["estimator"] for r in rows)
    _assert_prints([r[1] for r in rows], ds["theta"].values, digits=4)
    _assert_increasing([r[1] for r in rows])
    for k, est in enumerate(ds["estimator"].values):
        for j, name in enumerate(["below", "below_lower", "below_upper"]):
            tokens = [r[2 + 3 * k + j] for r in rows]
            assert all(abs(float(t) - v) <= 5e-5 for t, v in
                       zip(tokens, ds[name].sel(estimator=est).values))


@pytest.mark.parametrize("scale", SCALES)
def test_coverage_tables_at_any_scale(scale, tmp_path, capsys):
    path = _score_file(tmp_path, SCALES[scale])
    ds, tables = _run(capsys, tmp_path, "coverage", "--dist", f"file:{path}", "--B", "6",
                      "--estimators", "V", "--ci-methods", "percentile,dkw", "--replicates",
                      "40", "--resamples", "100", "--all")
    ds = ds.sel(estimator="V")
    assert len(tables) == 4  # coverage, misses: of the bootstrap method, then of the band
    for (cov, miss), method in zip([tables[:2], tables[2:]], ["percentile", "dkw"]):
        c = ds.sel(ci_method=method)
        for table in (cov, miss):
            rows = [_tokens(row) for row in table]
            assert all(len(r) == 5 for r in rows)
            _assert_prints([r[1] for r in rows], c["theta"].values, digits=4)
            _assert_increasing([r[1] for r in rows])
        _assert_prints([_tokens(r)[4] for r in miss], c["mean_width"].values)
        assert all(abs(float(_tokens(r)[2]) - v) <= 5e-4
                   for r, v in zip(cov, c["coverage"].values))


@pytest.mark.parametrize("scale", SCALES)
def test_compare_tables_at_any_scale(scale, tmp_path, capsys):
    a = _score_file(tmp_path, SCALES[scale], seed=1, name="a.txt")
    b = _score_file(tmp_path, SCALES[scale], seed=2, name="b.txt")
    models = ["--a", f"file:{a}", "--b", f"file:{b}", "--labels", "A,B", "--replicates", "2000"]
    ds, (truth, *tables) = _run(capsys, tmp_path, "compare", *models, "--B", "6")
    rows = [_tokens(row) for row in truth]
    assert all(len(r) == 4 for r in rows)
    for j, name in enumerate(["theta_a", "theta_b", "theta_diff"], start=1):
        _assert_prints([r[j] for r in rows], ds[name].values, digits=4 if j < 3 else 2)
    _assert_increasing([r[1] for r in rows])
    for table, est in zip(tables, ds["estimator"].values):
        rows = [_tokens(row) for row in table]
        assert all(len(r) == 9 for r in rows)
        sub = ds.sel(estimator=est)
        for j, name in enumerate(["mean_a", "sd_a", "mean_b", "sd_b"], start=1):
            _assert_prints([r[j] for r in rows], sub[name].values)

    ds, (table,) = _run(capsys, tmp_path, "compare", *models, "--B", "4:6")
    rows = [_tokens(row) for row in table]
    assert all(len(r) == 4 + 4 * ds.sizes["estimator"] for r in rows)
    for j, name in enumerate(["theta_a", "theta_b", "theta_diff"], start=1):
        _assert_prints([r[j] for r in rows], ds[name].values, digits=4 if j < 3 else 2)


@pytest.mark.parametrize("scale", SCALES)
def test_fit_kde_numbers_at_any_scale(scale, tmp_path, capsys):
    path, out = _score_file(tmp_path, SCALES[scale]), tmp_path / "k.nc"
    assert main(["fit-kde", path, "--name", "k", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    a = read_netcdf(out).attrs
    (bandwidth,) = re.findall(r"bandwidth: (\S+)", text)
    lo, hi = re.search(r"in \[(\S+), (\S+)\]", text).groups()
    _assert_prints([bandwidth, lo, hi], [a["bandwidth"], a["scores_min"], a["scores_max"]],
                   digits=6)


def test_first_run_says_it_compiles_the_kernels_and_a_second_does_not(tmp_path):
    from evpsim._startup import COMPILE_NOTICE

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    command = [sys.executable, "-m", "evpsim", "bias", "--dist", "tang-small", "--B", "4",
               "--method", "exact", "--estimators", "V"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == second.returncode == 0
    assert first.stderr.splitlines()[0] == COMPILE_NOTICE
    assert COMPILE_NOTICE not in second.stderr
    assert second.stdout.splitlines()[2:] == first.stdout.splitlines()[2:]  # but the time
