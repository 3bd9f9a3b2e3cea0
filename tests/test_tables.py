"""``evpsim curve --table``: the printed tables as CSV, LaTeX, Markdown and JSON, with the
numbers as printed; bad file names refused before any work, nothing written."""

import csv
import json
import re
from pathlib import Path

import pytest

from evpsim.report.tables import Column, Table, write_tables

FIXTURES = Path(__file__).parent / "data"
#: an allentune file of two models with durations and a failed trial: every kind of table
#: (curves with a time column, the difference, budgets with times, the self-check)
RUN = [FIXTURES / "results.jsonl", "--field", "best_validation_accuracy", "--group", "model",
       "--time-field", "training_duration", "--bounds", "0,1", "--target", "0.79",
       "--resamples", "200", "--check", "--check-replicates", "64", "--check-resamples", "100",
       "--quiet"]
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]\d+)?")


def run_cli(capsys, *argv):
    from evpsim.cli import main

    status = main(["curve", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def numbers(text):
    return NUMBER.findall(text)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """``(stdout, {suffix: path})``: one run per format (each run prints the same)."""
    from evpsim.cli import main

    folder = tmp_path_factory.mktemp("tables")
    printed, paths = set(), {}
    for suffix in (".csv", ".tex", ".md", ".json"):
        paths[suffix] = folder / f"tables{suffix}"
        with pytest.MonkeyPatch.context() as mp:
            import io
            import sys

            buf = io.StringIO()
            mp.setattr(sys, "stdout", buf)
            assert main(["curve", *map(str, RUN), "--table", str(paths[suffix])]) == 0
        printed.add(untimed(buf.getvalue().replace(str(paths[suffix]), "FILE")))
    assert len(printed) == 1, "the printed output depends on --table's format"
    return printed.pop(), paths


def untimed(out):
    """``out`` with its timings (``; 0.12 s``) blanked."""
    return re.sub(r"; \d+\.\d+ s\b", "; T s", out)


def printed_rows(out):
    """The numbers of every printed line that has some."""
    return [numbers(line) for line in out.splitlines() if numbers(line)]


def assert_printed(cells, out, model):
    """``cells``, the numbers of a row, are those of a printed line; a row without any
    is a budget not reached, printed as words."""
    if cells:
        assert cells in printed_rows(out), (model, cells)
    else:
        assert f"  {model} (V): estimate not within B;" in out, model


def csv_blocks(path):
    blocks, block = [], []
    for row in csv.reader(path.read_text().splitlines()):
        if not row:
            blocks.append(block)
            block = []
        else:
            block.append(row)
    return blocks + [block]


#: the titles of the tables of RUN, as printed: the curves, their difference, the budgets,
#: and the self-check's fit, coverage and ranking errors (every block titled apart)
TITLES = ["mlp (B = 10)", "reg_lstm (B = 7)", "mlp vs reg_lstm (V)", "budget to reach 0.79",
          "each KDE beside the scores it was fitted to", "self-check of mlp (B = 10)",
          "self-check of reg_lstm (B = 7)", "ranking errors: mlp vs reg_lstm"]
#: the rows of every table but the ranking errors' (printed as one line)
ROWS = 10 + 7 + 7 + 2 + 2 + 10 + 7


def assert_ranking_printed(rows, out):
    """The ranking errors' rows ``[[n, V], ...]`` are the printed line of the pair."""
    line = "  mlp vs reg_lstm (V): " + ", ".join(f"n={n}: {v}" for n, v in rows)
    assert line in out.splitlines(), line


def test_csv_holds_the_printed_numbers_a_block_per_table(written):
    out, paths = written
    blocks = csv_blocks(paths[".csv"])
    titles = [b[0][0] for b in blocks]
    assert titles == TITLES
    assert blocks[0][1][:3] == ["n", "time (min)", "V"]
    assert "V percentile lower" in blocks[0][1] and "V percentile upper" in blocks[0][1]
    rows = 0
    for block in blocks[:-1]:
        for row in block[2:]:
            assert_printed(numbers(",".join(c for c in row if c)), out, row[0])
            rows += 1
    assert rows == ROWS
    assert_ranking_printed(blocks[-1][2:], out)
    # a table of the self-check: coverage, its lower and upper bound, as printed
    assert blocks[5][1] == ["n", "KDE theta", "V percentile", "V percentile lower",
                            "V percentile upper", "width / oracle"]


def test_latex_is_booktabs_with_the_printed_numbers(written):
    out, paths = written
    tex = paths[".tex"].read_text()
    assert tex.count(r"\begin{tabular}") == 8 and tex.count(r"\toprule") == 8
    assert tex.count(r"\midrule") == 8 and tex.count(r"\bottomrule") == 8
    body = re.findall(r"\\midrule\n(.*?)\\bottomrule", tex, re.S)
    rows = [r for b in body[:-1] for r in b.splitlines()]
    assert len(rows) == ROWS
    assert_ranking_printed([r.removesuffix(r" \\").split(" & ")
                            for r in body[-1].splitlines()], out)
    for row in rows:
        assert row.endswith(r" \\")
        assert_printed(numbers(row.replace("$-$", "-")), out, row.split(" & ")[0]
                       .replace(r"\_", "_"))


def test_markdown_tables_hold_the_printed_rows(written):
    out, paths = written
    md = paths[".md"].read_text()
    printed = [line.split() for line in out.splitlines()]
    rows = [r for r in md.splitlines() if r.startswith("| ") and not r.startswith("| ---")
            and not r.startswith("| :--")]
    data = [r for r in rows if r.split("|")[1].strip()[:1].isdigit()
            or r.split("|")[1].strip() in ("mlp", "reg_lstm")]
    ranking = data[-7:]  # printed as a line, not a table
    assert_ranking_printed([[c.strip() for c in r.strip("|").split("|")] for r in ranking], out)
    data = data[:-7]
    assert len(data) == ROWS
    for r in data:
        cells = [c.strip() for c in r.strip("|").split("|")]
        if cells[0] in ("mlp", "reg_lstm"):  # the budgets: printed as sentences
            assert_printed(numbers(" ".join(cells)), out, cells[0])
        else:  # the same cells, in the same order, as the printed table's row
            assert " ".join(cells).split() in printed, r


def test_json_numbers_are_the_printed_ones(written):
    out, paths = written
    doc = json.loads(paths[".json"].read_text())
    tables = doc["tables"]
    assert [t["table"] for t in tables] == ["curve", "curve", "difference", "budget", "fit",
                                            "check", "check", "ranking"]
    assert [t["title"] for t in tables] == TITLES
    lines = [[float(x) for x in row] for row in printed_rows(out)]
    fit = tables[4]  # its bandwidths and shares are text: its numbers among a printed line's
    for row in fit["rows"]:
        assert any({row[h] for h in ("KDE theta_1", "mean", "KDE theta_B", "best observed")}
                   <= set(line) for line in lines), row
    assert_ranking_printed([[str(r["n"]).removesuffix(".0"), f"{r['V']:.3f}"]
                            for r in tables[-1]["rows"]], out)
    for t in tables[:4] + tables[5:-1]:
        for row in t["rows"]:
            flat = []
            for header in t["columns"]:
                v = row[header]
                if isinstance(v, dict):
                    flat += [x for x in v.values() if x is not None]
                elif isinstance(v, (int, float)):
                    flat.append(float(v))
            if flat or t["table"] != "budget":
                assert flat in lines, (t["title"], row)
            else:
                assert_printed([], out, row["model"])
    first = tables[0]["rows"][0]
    assert set(first["V percentile"]) == {"lower", "upper"}


def test_printed_output_is_the_same_with_and_without_table(written, capsys):
    out, _ = written
    status, plain, err = run_cli(capsys, *RUN)
    assert status == 0, err
    assert untimed(plain) + "wrote FILE\n" == out


@pytest.mark.parametrize("flag,name,words", [
    ("--table", "tables.xlsx", "--table 'tables.xlsx': expected a file ending in .csv, .tex, "
                               ".md, .json"),
    ("--table", "no/such/folder/t.csv", "folder 'no/such/folder' does not exist"),
    ("--table", ".", "--table '.' is a folder, not a file"),
    ("--html", "report.pdf", "--html 'report.pdf': expected a file ending in .html, .htm"),
    ("--html", "no/such/folder/r.html", "folder 'no/such/folder' does not exist"),
])
def test_bad_output_names_are_one_line_errors_and_nothing_is_written(
        capsys, tmp_path, monkeypatch, flag, name, words):
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli(capsys, "data:reuters-mlp", "--resamples", "50", "--out",
                               "c.nc", flag, name)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and words in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_leaves_no_file(capsys, tmp_path, monkeypatch):
    """The outputs are written all or none: --html failing takes --out and --table along."""
    import evpsim.report.html as html

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html, "html_report", broken)
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli(capsys, "data:reuters-mlp", "--resamples", "50", "--out",
                               "c.nc", "--table", "t.csv", "--html", "r.html")
    assert status == 2 and "no space left on the disk" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_text_is_escaped_for_latex_and_markdown(tmp_path):
    t = Table("curve", "run_1 | 50% & more", (
        Column("model", ("a_b|c",), numeric=False, align="<"),
        Column("V", ("-0.5",)), Column("V ld", (("-1.25", "-"),), ("lower", "upper"))),
        ("a note",))
    write_tables([t], tmp_path / "t.tex")
    write_tables([t], tmp_path / "t.md")
    write_tables([t], tmp_path / "t.csv")
    tex = (tmp_path / "t.tex").read_text()
    assert r"run\_1 | 50\% \& more" in tex and r"a\_b|c & $-$0.5 & [$-$1.25, --] \\" in tex
    assert "% a note" in tex
    md = (tmp_path / "t.md").read_text()
    assert r"| a_b\|c | -0.5 | [-1.25, -] |" in md
    assert (tmp_path / "t.csv").read_text().splitlines()[1:] == [
        "model,V,V ld lower,V ld upper", "a_b|c,-0.5,-1.25,"]


def test_what_was_read_shows_the_sampler_and_pruned_trials_where_recorded():
    from dataclasses import dataclass, field

    import numpy as np

    from evpsim.io.search import Search
    from evpsim.report.tables import reading_table

    @dataclass(frozen=True, eq=False)
    class Study(Search):  # a search as the readers of tools that record these give it
        pruned: dict = field(default_factory=dict)
        sampler: str = ""

    plain = Search("cnn", np.array([0.4, 0.5, 0.6]), None, "results.jsonl", "acc", 5,
                   {"field missing": 1}, failed={"empty learning curve": 1}, failed_score=0.4)
    study = Study("mlp", np.array([0.7, 0.8]), None, "sqlite:///study.db", "value", 4, {},
                  pruned={"pruned": 2}, sampler="RandomSampler")
    t = reading_table([plain, study])
    assert t.headers == ["model", "read from", "records", "trials", "failed", "pruned",
                         "dropped", "sampler", "lattice"]
    assert t.rows == [["cnn", "results.jsonl", "5", "3", "1", "-", "1", "-",
                       "1/10; 0 of the best 3 tied"],
                      ["mlp", "sqlite:///study.db", "4", "2", "0", "2", "0", "RandomSampler",
                       "none"]]


def test_a_legend_line_explains_only_what_its_table_holds():
    """What was read explains '-' (not recorded) and 'none' (no lattice) only where a cell
    holds them; a curve table's SD heading always."""
    from dataclasses import dataclass, field

    import numpy as np

    from evpsim.io.searchfiles import Search
    from evpsim.report.tables import SD_HEADER, model_table, reading_table

    @dataclass(frozen=True, eq=False)
    class Study(Search):
        pruned: dict = field(default_factory=dict)
        sampler: str = ""

    lattice = np.array([0.1, 0.2, 0.3, 0.4, 0.6])  # on a grid of 1/10
    plain = Search("cnn", lattice, None, "results.jsonl", "acc", 5, {})
    study = Study("mlp", np.array([0.71234, 0.8123, 0.5]), None, "sqlite:///study.db",
                  "value", 3, {}, pruned={"pruned": 1}, sampler="RandomSampler")
    assert [k for k, _ in reading_table([plain]).legend] == ["-", "lattice"]
    assert [k for k, _ in reading_table([study]).legend] == ["lattice", "none"]
    assert [k for k, _ in reading_table([plain, study]).legend] == ["-", "lattice", "none"]
    ds = __import__("evpsim").curve({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.4, 0.3]},
                                    estimators="V,U", ci_methods="percentile", resamples=50)
    table = model_table(ds, "a", [1, 2, 3])
    assert table.headers.count(SD_HEADER) == 1 and [k for k, _ in table.legend] == [SD_HEADER]
    assert table.legend_lines[0].startswith(f"{SD_HEADER}: the SD of the best of n scores")
