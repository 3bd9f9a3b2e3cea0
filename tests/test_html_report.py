"""``evpsim curve --html``: one self-contained page, opened in a real browser (headless
Chromium driven by Playwright): it renders without console errors or requests, every
figure loads, its tables hold the numbers of ``--table``'s CSV, it fits a 1,280 px
window (two models, two estimators, the self-check and a long metric name: the page
scrolls down only), its tables are tables, every legend line explains a heading or a
cell of its table, and the command it names, pasted into a shell, makes the same report.

The browser is the system's Chromium (Debian's ``chromium`` package); Playwright's own
browsers are never downloaded. Without a Chromium the browser tests are skipped, unless
:data:`REQUIRED_ENV` is set (as ``.ci/run`` does), when they fail.

The screenshot of the docs' gallery is taken by the same machinery:
``python tests/test_html_report.py report.html docs/figures/curve_report.png``.
"""

import csv
import os
import re
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "data"
#: set (to anything but empty or 0), a missing browser fails the tests rather than skips them
REQUIRED_ENV = "EVPSIM_BROWSER_REQUIRED"
#: the system's Chromium, where Debian installs it
CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")
#: Chromium's flags: headless, as root (no sandbox), and quiet (no network of its own)
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
#: a metric's name as long as a paper's, with spaces and a quote a shell must keep
METRIC = "dev F1 (macro-averaged over the five held-out folds, the paper's main metric)"
#: two models with durations, a failed trial, two estimators, a target and the self-check
#: (its early stop: every verdict of one model settled before its last search): every
#: section, and the widest lines of each
RUN = [FIXTURES / "results.jsonl", "--field", "best_validation_accuracy", "--group", "model",
       "--time-field", "training_duration", "--bounds", "0,1", "--target", "0.79",
       "--estimators", "V,U", "--metric", METRIC,
       "--resamples", "200", "--check", "--check-replicates", "256", "--check-resamples", "100",
       "--quiet"]
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]\d+)?")
#: the window the page must fit: a laptop's
WIDTH = 1280


def _required():
    return os.environ.get(REQUIRED_ENV, "").strip() not in ("", "0")


def _missing(why):
    if _required():
        pytest.fail(f"{why}, and {REQUIRED_ENV} is set: the browser tests must run here")
    pytest.skip(why)


@pytest.fixture(scope="module")
def chromium():
    """The path of the system's Chromium."""
    found = next((p for p in map(shutil.which, CHROMIUM) if p), None)
    if found is None:
        _missing("no Chromium found (apt-get install chromium)")
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        _missing("Playwright is not installed (pip install 'evpsim-toolkit[browser]')")
    return found


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """``(report.html, tables.csv, stdout)`` of one run in a folder of its own (its
    Dataset in result.nc beside), the outputs named as a user would, relative to it."""
    import io
    import sys

    from evpsim.cli import main

    folder = tmp_path_factory.mktemp("report")
    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stdout", buf)
        mp.chdir(folder)
        status = main(["curve", *map(str, RUN), "--html", "report.html", "--table",
                       "tables.csv", "--out", "result.nc"])
    assert status == 0
    return folder / "report.html", folder / "tables.csv", buf.getvalue()


@pytest.fixture(scope="module")
def opened(chromium, report):
    """What the browser saw: console messages, page errors, requests, images, tables."""
    return _seen(chromium, report[0])


def _seen(chromium, html):
    """What the browser saw of the page ``html``: console messages, page errors, requests,
    images, tables, headings, widths, legends, the command and a screenshot."""
    from playwright.sync_api import sync_playwright

    seen = {"console": [], "errors": [], "requests": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.on("console", lambda m: seen["console"].append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.on("request", lambda r: seen["requests"].append(r.url))
            page.goto(html.as_uri(), wait_until="load")
            seen["images"] = page.evaluate(
                "Array.from(document.images).map(i => [i.complete, i.naturalWidth, "
                "i.naturalHeight, i.src.slice(0, 22)])")
            seen["tables"] = page.evaluate(
                "Array.from(document.querySelectorAll('table')).map(t => ["
                "t.dataset.table, t.caption.innerText, "
                "Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map("
                "c => c.innerText))])")
            seen["headings"] = page.evaluate(
                "Array.from(document.querySelectorAll('h2')).map(h => h.innerText)")
            seen["width"] = page.evaluate(
                "[document.documentElement.scrollWidth, window.innerWidth, "
                "document.documentElement.clientWidth]")
            seen["wide"] = page.evaluate(
                f"Array.from(document.querySelectorAll('body *')).filter(e => "
                f"e.getBoundingClientRect().right > {WIDTH}).map(e => e.tagName)")
            seen["pre"] = page.evaluate("document.querySelectorAll('pre').length")
            # each table with its legend: (key, [legend keys], [headings], [cells])
            seen["legends"] = page.evaluate(
                "Array.from(document.querySelectorAll('div.table')).map(d => ["
                "d.dataset.table, "
                "Array.from(d.querySelectorAll('p.legend')).map(p => [p.dataset.key, "
                "p.innerText]), "
                "Array.from(d.querySelectorAll('th')).map(c => c.innerText), "
                "Array.from(d.querySelectorAll('td')).map(c => c.innerText)])")
            seen["command"] = page.evaluate(
                "Array.from(document.querySelectorAll('dt')).find(d => d.innerText == "
                "'command').nextElementSibling.innerText")
            shot = html.with_name("report.png")
            page.screenshot(path=str(shot), full_page=True)
            seen["screenshot"] = shot
        finally:
            browser.close()
    return seen


def test_report_renders_without_console_errors_or_network(opened, report):
    html, _, _ = report
    assert opened["errors"] == []
    assert [m for m in opened["console"] if m.startswith(("error", "warning"))] == []
    # the page loads nothing but itself: figures are data URIs, the style inline
    assert [u for u in opened["requests"] if not u.startswith("data:")] == [html.as_uri()]
    assert opened["headings"] == ["What was read", "The curves", "Tables", "Self-check",
                                  "Provenance"]


def test_every_figure_has_loaded(opened):
    images = opened["images"]
    assert len(images) == 2  # the curves, the self-check's coverage
    for complete, width, height, src in images:
        assert complete and width > 0 and height > 0
        assert src == "data:image/png;base64,"


def test_the_tables_hold_the_numbers_of_the_csv(opened, report):
    _, table, _ = report
    blocks, block = [], []
    for row in csv.reader(table.read_text().splitlines()):
        if row:
            block.append(row)
        else:
            blocks.append(block)
            block = []
    blocks.append(block)
    shown = [t for t in opened["tables"] if t[0] != "reading"]
    # the printed order: the curves, the differences, the budgets; the self-check's fit,
    # coverage and ranking errors (the coverage tables after its figure in the page)
    order = ["curve", "curve", "difference", "difference", "budget", "fit", "check",
             "check", "ranking"]
    assert sorted(t[0] for t in shown) == sorted(order)
    assert len({b[0][0] for b in blocks}) == len(blocks), "two blocks of the same title"
    by_title = {t[1]: t for t in shown}
    assert [by_title[b[0][0]][0] for b in blocks] == order
    shown = [by_title[b[0][0]] for b in blocks]
    for (key, title, rows), block in zip(shown, blocks):
        assert len(rows) == len(block) - 2, title
        for cells, row in zip(rows, block[2:]):
            assert NUMBER.findall(" ".join(cells)) == \
                NUMBER.findall(" ".join(c for c in row if c)), (title, cells, row)


def test_what_was_read_counts_the_failed_trial(opened):
    reading = next(t for t in opened["tables"] if t[0] == "reading")
    assert reading[1] == "the searches read"
    rows = {r[0]: r for r in reading[2]}
    # model, read from, records, trials, failed, pruned, dropped, sampler
    assert rows["mlp"][1:5] == ["results.jsonl", "10", "10", "1"]
    assert rows["mlp"][7] == "-"  # a JSON Lines file records no sampler


def test_the_report_is_one_file_that_names_its_command(report):
    """Without a browser too: no script, no address to load, the command that made it."""
    html, _, out = report
    text = html.read_text()
    assert "<script" not in text and "http://" not in text and "https://" not in text
    assert "Content-Security-Policy" in text
    assert f"evpsim curve {RUN[0]}" in text and "--html" in text  # the provenance
    assert "wrote report.html" in out


def test_the_page_fits_the_window_and_scrolls_down_only(opened):
    """Nothing wider than the window: no preformatted line, no table running off it."""
    scroll, inner, client = opened["width"]
    assert scroll == client == inner == WIDTH, opened["width"]
    assert opened["wide"] == []


def test_the_tables_are_tables(opened):
    """The self-check's fit, coverage and ranking errors are tables, no block of
    monospace text anywhere."""
    assert opened["pre"] == 0
    keys = [t[0] for t in opened["tables"]]
    assert {"reading", "curve", "difference", "budget", "fit", "check", "ranking"} <= set(keys)


def _cell_parts(cell):
    """A cell and its parts: an interval's ends, an estimate beside its interval."""
    return {cell, *(p for p in re.split(r"[\[\],]\s*|\s+", cell) if p)}


def test_every_legend_line_explains_something_in_its_table(opened):
    explained = []
    for key, legend, headings, cells in opened["legends"]:
        present = set(headings).union(*map(_cell_parts, cells))
        for name, line in legend:
            assert name in present, f"{key}: the legend explains {name!r}, not in the table"
            assert line.startswith(f"{name}: ")
            explained.append((key, name))
    # the legends of this report: the SD's heading, the budgets not reached, the fit's
    # quantile, the reading's sampler not recorded and its lattice
    assert {("curve", "sd of best (plug-in)"), ("budget", "-"), ("fit", "quantile"),
            ("reading", "-"), ("reading", "lattice"), ("reading", "none")} <= set(explained)


def _untimed(text):
    """A report's text without what differs between two runs of its command: the times
    taken, the date it was written."""
    text = re.sub(r"\b\d+(\.\d+)? (s|min)\b", "T s", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "DATE", text)


def test_the_command_it_names_pastes_into_a_shell_and_makes_the_same_report(
        opened, report, tmp_path):
    """The provenance's command, as the browser shows it, run by a shell in another
    folder: the same report (times and date aside), the metric's name and its quote
    intact."""
    import subprocess
    import sys

    html, _, _ = report
    command = opened["command"]
    assert command.startswith("evpsim curve ") and METRIC in subprocess.run(
        ["bash", "-c", f"printf '%s\\n' {command.removeprefix('evpsim ')}"],
        capture_output=True, text=True, check=True).stdout.splitlines()
    # the evpsim of this checkout, as the shell's own evpsim command
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    shell = f'evpsim() {{ "{sys.executable}" -m evpsim "$@"; }}\n{command}\n'
    ran = subprocess.run(["bash", "-c", shell], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=900)
    assert ran.returncode == 0, ran.stderr
    assert _untimed((tmp_path / "report.html").read_text()) == _untimed(html.read_text())


def test_a_screenshot_is_taken(opened):
    assert opened["screenshot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert opened["screenshot"].stat().st_size > 10_000


def screenshot(html, png, chromium="/usr/bin/chromium", height=1500):
    """Save the top ``height`` pixels of report ``html``, 1200 wide, as ``png``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": height})
            page.goto(Path(html).resolve().as_uri(), wait_until="load")
            page.screenshot(path=str(png))
        finally:
            browser.close()


if __name__ == "__main__":
    import sys

    screenshot(*sys.argv[1:3])


def test_the_figure_shows_the_bound_and_the_self_check(report, tmp_path):
    """--plot's figure: the curves with each model's bound dashed, the self-check's
    coverage below, a linear x axis below B = 100 and a log one from there."""
    from evpsim.io.results import read_netcdf
    from evpsim.report.curvefigure import plot_check_coverage, plot_curve_figure

    ds = read_netcdf(report[0].with_name("result.nc"))
    fig = plot_curve_figure(ds, tmp_path / "c.png")
    top, *below = fig.axes  # a coverage panel per estimator
    assert [ax.get_title() for ax in below] == [
        "self-check: coverage of V percentile intervals",
        "self-check: coverage of U percentile intervals"]
    assert top.get_xscale() == below[0].get_xscale() == "linear"  # B = 10
    dashed = [ln for ln in top.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 2  # a bound per model
    assert list(dashed[0].get_ydata()) == list(ds["free_bound"].sel(model="mlp").values)
    assert "95% lower bound, any F" in [t.get_text() for t in top.get_legend().get_texts()]
    assert len(plot_curve_figure(ds, check=False).axes) == 1
    assert plot_curve_figure(ds, log_x=True).axes[0].get_xscale() == "log"
    wide = ds.assign_coords(B=ds["B"] * 0 + 100)
    assert plot_check_coverage(wide).axes[0].get_xscale() == "log"
    assert (tmp_path / "c.png").stat().st_size > 0


# --- curve --runs --html: searches run several times --------------------------------------

@pytest.fixture(scope="module")
def runs_report(tmp_path_factory):
    """``(report.html, stdout)`` of ``curve --runs`` on an Optuna journal of TPE and random
    search, 4 seeds each, written by Optuna."""
    import io
    import sys

    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    from evpsim.cli import main

    folder = tmp_path_factory.mktemp("runs_report")
    storage = optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend(str(folder / "runs.log")))
    for name, sampler, seeds in (("tpe", optuna.samplers.TPESampler, range(4)),
                                 ("random", optuna.samplers.RandomSampler, range(4, 8))):
        for seed in seeds:
            study = optuna.create_study(study_name=f"{name}-{seed}", storage=storage,
                                        direction="maximize", sampler=sampler(seed=seed))
            study.set_user_attr("sampler", sampler.__name__)
            study.optimize(lambda t: 1 - (t.suggest_float("x", 0, 1) - 0.3) ** 2, n_trials=8)
    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stdout", buf)
        mp.chdir(folder)
        status = main(["curve", "optuna:runs.log", "--study", "tpe-*,random-*", "--runs",
                       "--labels", "TPE,random", "--resamples", "500", "--metric", METRIC,
                       "--html", "runs.html", "--table", "runs.csv", "--quiet"])
    assert status == 0
    return folder / "runs.html", buf.getvalue()


def test_the_report_of_runs_renders_its_curves_and_tables(chromium, runs_report):
    html, out = runs_report
    seen = _seen(chromium, html)
    assert seen["errors"] == []
    assert [m for m in seen["console"] if m.startswith(("error", "warning"))] == []
    assert [u for u in seen["requests"] if not u.startswith("data:")] == [html.as_uri()]
    assert seen["headings"] == ["What was read", "The curves", "Tables", "Provenance"]
    assert len(seen["images"]) == 1 and all(i[0] and i[1] > 0 for i in seen["images"])
    scroll, inner, client = seen["width"]
    assert scroll == client == inner == WIDTH and seen["wide"] == []
    tables = {t[1]: t for t in seen["tables"]}
    assert [t[0] for t in seen["tables"]] == ["reading", "curve", "curve", "difference"]
    reading = tables["the searches read"][2]
    assert [r[0] for r in reading] == [f"TPE: tpe-{s}" for s in range(4)] + \
        [f"random: random-{s}" for s in range(4, 8)]
    assert {r[7] for r in reading} == {"TPESampler", "RandomSampler"}
    random = tables["random (4 runs, n up to 8; 32 trials pooled)"][2]
    assert len(random) == 8 and len(random[0]) == 5  # n, mean, its interval, V, V's
    # the tables hold the numbers the terminal printed
    difference = tables["TPE vs random (mean curves)"][2]
    printed = out.split("Neither share is the probability")[1].splitlines()[2:10]
    assert [NUMBER.findall(" ".join(r)) for r in difference] == \
        [NUMBER.findall(line) for line in printed]
    for key, legend, headings, cells in seen["legends"]:
        present = set(headings).union(*map(_cell_parts, cells))
        assert all(name in present for name, _ in legend), key
    text = html.read_text()
    assert "assumes: the mean curve across runs of TPE, random" in text
    assert "ahead of" in text and "by the mean curves from n = " in text
