"""The documentation (``docs/``) is a contract, as the README is.

* The site builds with warnings as errors (``sphinx-build -W --keep-going``),
  the notebooks rendered from their stored outputs, never executed.
* Every command shown in a page runs and prints what the page shows, by
  ``tests/test_readme.py``'s rules: a fenced block whose lines start with
  ``$ `` holds commands, each followed by the lines it must print in that
  order (the first shown being the first printed; ``...`` for lines left
  out; run times and thread counts not compared); the commands of a page run
  in one empty folder, top to bottom, with ``EVPSIM_QUICK=1``, and exit 0 (2
  where the page shows an error message). A page may have the reader save a
  script (a ``python`` block after its name, ```NAME.py```) and run it
  (``$ python NAME.py``), as the examples of reading an HPO tool's results
  make the tool write them; a path under ``tests/data/`` that a command
  names is there, as in a checkout. A block the README shows word for
  word is tested once, by the README's test (unless a later command of the
  page needs the files it writes). These run with the slow tests (``-m
  slow``, as CI does): a few minutes.
* Every page's ``>>>`` snippets run as one doctest session (in a fresh
  process, so that registrations do not leak between pages); slow tests too.
* Every name of ``evpsim.__all__`` has its entry in the API reference.
* The output-schema reference matches small real runs of every Dataset
  evpsim writes, with its default options (every variant, and the
  reproductions, with the slow tests), and every name in it says what it
  means.
* What the pages claim about names, options and installs holds: every
  ``evpsim.X`` they name exists, getting-started's table names a function
  for every command, every ``--option`` is one of the command it follows (or
  of some command, or of another program named here), and every install
  command names something pip can install today (a checkout, a built wheel,
  or a third-party dependency).
* ``CITATION.cff`` is valid CFF 1.2.0 (against the format's own JSON schema,
  ``docs/_ext/cff-1.2.0.schema.json``), ``CHANGELOG.md`` follows Keep a
  Changelog, and every extra an install command names exists.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
sys.path.insert(0, str(DOCS / "_ext"))

import evpsim_schema  # noqa: E402
from evpsim.report.leaderboard import QUICK_NOTE  # noqa: E402

FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)
#: what varies from run to run: wall times and thread counts; what a --quick run adds to a
#: summary's title (as tests/test_readme.py)
VOLATILE = [(re.compile(r"\b\d+(\.\d+)? (s|min)\b"), "T s"),
            (re.compile(r"\b\d+ threads?\b"), "N threads"),
            (re.compile(" " + re.escape(QUICK_NOTE)), "")]
PAGES = sorted(p for p in DOCS.rglob("*.md")
               if not p.relative_to(DOCS).parts[0].startswith(("_", "notebooks")))


def _blocks(text):
    """``[(command, expected lines)]`` of every ``$`` line in a fenced block of ``text``."""
    out = []
    for block in FENCE.findall(text):
        lines = block.rstrip("\n").split("\n")
        if not lines[0].startswith("$ "):
            continue
        for line in lines:
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                out[-1][1].append(line)
    return out


def _normal(line):
    line = line.rstrip()
    for pattern, repl in VOLATILE:
        line = pattern.sub(repl, line)
    return line


def _screen(output):
    """The output without progress lines (redrawn with carriage returns on stderr)."""
    return [ln for ln in output.split("\n") if "\r" not in ln]


def _missing(expected, printed):
    """The first expected line not found in order in ``printed`` (None if all are)."""
    printed = [_normal(ln) for ln in printed]
    shown = [_normal(ln) for ln in expected]
    if not shown:
        return None
    if shown[0] != "..." and (not printed or printed[0] != shown[0]):
        return f"first line: expected {shown[0]!r}, got {printed[0] if printed else None!r}"
    k = 0
    for line in shown:
        if line == "...":
            continue
        while k < len(printed) and printed[k] != line:
            k += 1
        if k == len(printed):
            return line
        k += 1
    return None


def _readme_blocks():
    return {(c, tuple(_normal(x) for x in e)) for c, e in _blocks(README.read_text())}


def _page_commands():
    """Every page's commands; ``in_readme`` for those the README's test runs already.

    A command the README shows word for word is left to it unless a later
    command of the page is not: that one may read the files it writes.
    """
    readme = _readme_blocks()
    cases = []
    for page in PAGES:
        blocks = _blocks(page.read_text())
        shown = [(c, tuple(_normal(x) for x in e)) in readme for c, e in blocks]
        last_own = max((i for i, r in enumerate(shown) if not r), default=-1)
        for i, (command, expected) in enumerate(blocks):
            in_readme = shown[i] and i > last_own
            name = page.relative_to(DOCS).as_posix()
            cases.append(pytest.param(name, command, expected, in_readme,
                                      id=f"{page.relative_to(DOCS)}: {command}"))
    return cases


COMMANDS = _page_commands()


# --------------------------------------------------------------------------- the build

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The HTML site, built as CI builds it: warnings are errors."""
    out = tmp_path_factory.mktemp("site") / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q",
                          "-b", "html", str(DOCS), str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, f"sphinx-build failed:\n{res.stdout[-3000:]}\n{res.stderr[-6000:]}"
    return out


def test_site_builds_without_warnings(site):
    assert (site / "index.html").is_file()


def test_every_public_name_is_in_the_api_reference(site):
    import evpsim

    api = (DOCS / "reference" / "api.rst").read_text()
    listed = set(re.findall(r"^   (?:evpsim\.)?([A-Za-z_][\w.]*)$", api, re.M))
    missing = [n for n in evpsim.__all__ if n != "__version__" and n not in listed]
    assert not missing, f"not in docs/reference/api.rst: {missing}"
    assert "evpsim.__version__" in api
    pages = site / "reference" / "generated"
    unbuilt = [n for n in evpsim.__all__ if n != "__version__"
               and not (pages / f"evpsim.{n}.html").is_file()]
    assert not unbuilt, f"no API page built for {unbuilt}"
    html = (pages / "evpsim.curve.html").read_text()
    assert "Parameters" in html and "Returns" in html  # numpydoc sections rendered


def test_notebooks_are_rendered_with_their_outputs(site):
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for nb in notebooks:
        page = site / "notebooks" / f"{nb.stem}.html"
        assert page.is_file(), f"{nb.name} not rendered"
        assert "<img" in page.read_text(), f"{nb.name} rendered without its figures"
    index = (site / "notebooks" / "index.html").read_text()
    assert all(f"{nb.stem}.html" in index for nb in notebooks)


def test_pages_of_the_site(site):
    """The command help, the schema, the benchmarks and the changelog are in the site."""
    text = {p: (site / p).read_text() for p in ("reference/cli.html", "reference/schema.html",
                                                "benchmarks.html", "changelog.html",
                                                "citing.html", "gallery.html")}
    from evpsim_docs import subcommands

    missing = [c for c in subcommands() if f'id="cli-{c}"' not in text["reference/cli.html"]]
    assert not missing, f"no help shown for {missing}"
    schema = text["reference/schema.html"]
    assert schema.count("<table") >= 4 * len(evpsim_schema.load()) // 2  # rendered tables
    assert "max_abs_z" in schema and "| name |" not in schema
    assert "bench_compare.py" in text["benchmarks.html"]  # benchmarks/RESULTS.md included
    assert "Unreleased" in text["changelog.html"]
    assert "10.18653/v1/2020.acl-main.246" in text["citing.html"]


def test_gallery_shows_every_figure():
    gallery = (DOCS / "gallery.md").read_text()
    figures = sorted(p.name for p in (DOCS / "figures").glob("*.png"))
    assert figures
    missing = [f for f in figures if f"figures/{f}" not in gallery]
    assert not missing, f"docs/figures not in the gallery: {missing}"


def test_the_intervals_pages_numbers_are_the_full_runs():
    """The intervals page's table of the full run is the one the study wrote, row by row,
    in the summary shipped beside it (``docs/runs/intervals``), and every coverage with
    its bounds quoted in that section or in the README's findings on it is there too."""
    run = DOCS / "runs" / "intervals"
    shipped = (run / "summary.md").read_text() + (run / "intervals.md").read_text()
    page = (DOCS / "guide" / "intervals.md").read_text()
    section = page[page.index("\n## The full run\n"):].split("\n## ", 2)[1]
    rows = [line for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("|---")]
    assert len(rows) >= 6, section[:500]
    assert [r for r in rows if r not in shipped] == []
    readme = README.read_text()
    findings = readme[readme.index("In the full study of intervals"):].split("\n![", 1)[0]
    quoted = re.findall(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", section + findings)
    assert quoted and [q for q in quoted if q not in shipped] == []


# --------------------------------------------------------------------------- commands

@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """One empty folder per page, as for a reader going top to bottom.

    """
    made = {}

    def folder(page):
        if page not in made:
            made[page] = tmp_path_factory.mktemp(re.sub(r"\W", "-", page))
        return made[page]

    return folder


def test_pages_show_commands():
    pages = {page for page, *_ in (c.values for c in COMMANDS)}
    assert {"getting-started.md", "guide/your-results.md", "guide/bias.md", "guide/coverage.md",
            "guide/falseconc.md", "guide/compare.md", "guide/truths.md", "guide/sweeps.md",
            "guide/reproduce.md", "guide/estimators.md", "guide/reading.md"} <= pages


@pytest.mark.slow  # every command of every page: about three minutes (the README's run by default)
@pytest.mark.parametrize("page, command, expected, in_readme", COMMANDS)
def test_docs_command(page, command, expected, in_readme, folders):
    args = shlex.split(command)
    modules = _module_files(page)
    script = args[0] == "python" and len(args) == 2 and args[1].removesuffix(".py") in modules
    assert args[0] == "evpsim" or script, \
        f"{page}: {command!r} is neither an evpsim command nor a script the page shows"
    if in_readme:
        pytest.skip("shown word for word in the README: tests/test_readme.py runs it")
    env = {**os.environ, "EVPSIM_QUICK": "1", "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}
    for name, code in modules.items():  # what the page has the reader write
        (folders(page) / f"{name}.py").write_text(code)
    _checkout_data(args, folders(page))
    program = [sys.executable, args[1]] if script else [sys.executable, "-m", "evpsim", *args[1:]]
    res = subprocess.run(program, cwd=folders(page),
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    output = res.stdout.decode()  # as bytes: text mode would turn progress's \r into \n
    status = 2 if expected and re.match(r"evpsim \S+: error: ", expected[0]) else 0
    assert res.returncode == status, f"exit {res.returncode}:\n{output[-3000:]}"
    missing = _missing(expected, _screen(output))
    assert missing is None, f"{page}: line not printed: {missing!r}\n--- printed:\n{output}"


def _checkout_data(args, folder):
    """Copy into ``folder`` what ``args`` name under the checkout's ``tests/data/``."""
    import shutil

    for arg in args:
        source = ROOT / arg
        if arg.startswith("tests/data/") and source.exists() and not (folder / arg).exists():
            (folder / arg).parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, folder / arg)
            else:
                shutil.copyfile(source, folder / arg)


def _module_files(page):
    """The modules a page has the reader save: a ```python block after "`NAME.py`"."""
    text = (DOCS / page).read_text()
    return dict(re.findall(r"`(\w+)\.py`(?:(?!```).)*?```python\n(.*?)```", text, re.S))


def test_a_page_module_is_found():
    assert "best_two" in _module_files("guide/your-results.md")["mymodule"]
    scripts = {"make_optuna", "make_mlflow", "make_tensorboard", "make_wandb"}
    assert scripts <= set(_module_files("guide/reading.md"))


def test_a_block_shown_in_the_readme_is_the_readmes():
    """The blocks left to the README's test are really there, with the same lines."""
    readme = _readme_blocks()
    for param in COMMANDS:
        page, command, expected, in_readme = param.values
        if in_readme:
            assert (command, tuple(_normal(x) for x in expected)) in readme


SNIPPET_PAGES = [p for p in PAGES if ">>> " in p.read_text()]
DOCTEST = """
import doctest, sys
flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
r = doctest.testfile(sys.argv[1], module_relative=False, optionflags=flags, report=True)
print(f"attempted {r.attempted} failed {r.failed}")
sys.exit(1 if r.failed or not r.attempted else 0)
"""


@pytest.mark.slow  # every page's doctests: about two minutes
@pytest.mark.parametrize("page", SNIPPET_PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_docs_python_snippets(page, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    res = subprocess.run([sys.executable, "-c", DOCTEST, str(page)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, f"{page.name}:\n{res.stdout[-6000:]}\n{res.stderr[-3000:]}"


def test_snippets_are_doctests():
    assert len(SNIPPET_PAGES) >= 4
    for page in SNIPPET_PAGES:
        assert "```pycon" in page.read_text(), f"{page.name}: snippets belong in pycon blocks"


# --------------------------------------------------------------------------- the schema

def _compare(kind, label, made, documented):
    """What differs between a real run's structure and the documented one."""
    if label not in documented:
        return [f"{kind} [{label}]: not in schema.json"]
    diffs = []
    for section in evpsim_schema.SECTIONS:
        got, doc = made[section], documented[label][section]
        if got != doc:
            names_got = set(got) if not isinstance(got, list) else set(got)
            names_doc = set(doc) if not isinstance(doc, list) else set(doc)
            for name in sorted(names_got - names_doc):
                diffs.append(f"{kind} [{label}] {section}: {name} is not documented")
            for name in sorted(names_doc - names_got):
                diffs.append(f"{kind} [{label}] {section}: {name} is documented, not made")
            if isinstance(got, dict):
                for name in sorted(names_got & names_doc):
                    if got[name] != doc[name]:
                        diffs.append(f"{kind} [{label}] {section}: {name} is {got[name]}, "
                                     f"documented as {doc[name]}")
    return diffs


HOW = ("regenerate docs/reference/schema.json with 'python docs/_ext/evpsim_schema.py' "
       "(--reproductions for the papers' files) and describe new names in "
       "docs/reference/schema_notes.yaml")


def _check_batteries(first):
    documented = evpsim_schema.load()
    made = evpsim_schema.generate(first=first)
    diffs = []
    for kind, variants in made.items():
        if kind not in documented:
            diffs.append(f"{kind}: not in schema.json")
            continue
        for label, structure in variants.items():
            diffs += _compare(kind, label, structure, documented[kind])
        if not first:
            diffs += [f"{kind} [{label}]: documented, no longer made"
                      for label in documented[kind] if label not in variants]
    assert not diffs, "\n".join(diffs[:60]) + f"\n{HOW}"


def test_schema_matches_real_runs():
    """Each Dataset of the batteries, curve, sweeps, leaderboard and fits, run with its defaults."""
    _check_batteries(first=True)


@pytest.mark.slow  # every variant (options that add or change names): about a minute
def test_schema_of_every_variant_matches_real_runs():
    _check_batteries(first=False)


@pytest.mark.slow  # the four reproductions at reduced size: about two minutes
def test_schema_of_the_reproductions_matches_real_runs():
    from conftest import DATA

    documented = evpsim_schema.load()
    data = DATA if DATA.is_dir() else None
    made = evpsim_schema.generate(reproductions=True, data=data,
                                  only=list(evpsim_schema.REPRODUCTIONS))
    diffs = []
    for kind, variants in made.items():
        for label, structure in variants.items():
            diffs += _compare(kind, label, structure, documented.get(kind, {}))
    missing = set(evpsim_schema.REPRODUCTIONS) - set(made)
    if data is None:  # dodge2021_fig3 needs the SST runs
        missing -= {k for k, v in documented.items() if set(v) == {"--data DIR"}}
    diffs += [f"{kind}: no run made it" for kind in sorted(missing)]
    assert not diffs, "\n".join(diffs[:60]) + f"\n{HOW}"


def test_every_documented_name_has_a_meaning():
    schema, notes = evpsim_schema.load(), evpsim_schema.notes()
    missing = evpsim_schema.undocumented(schema, notes)
    assert not missing, ("no meaning in docs/reference/schema_notes.yaml nor a long_name: "
                         + ", ".join(f"{k} {s} {n}" for k, s, n in missing))
    stale = evpsim_schema.stale_notes(schema, notes)
    assert not stale, "notes on names no run has: " + ", ".join(
        f"{k} {s} {n}" for k, s, n in stale)


def test_the_schema_page_shows_every_dataset():
    page = (DOCS / "reference" / "schema.md").read_text()
    shown = set(re.findall(r"^```\{evpsim-schema\} (\S+)$", page, re.M))
    assert set(evpsim_schema.load()) <= shown
    assert set(evpsim_schema.REPRODUCTIONS) <= set(evpsim_schema.load())
    assert set(evpsim_schema.battery_order()) <= set(evpsim_schema.load())


# --------------------------------------------------------------------------- metadata

def test_citation_cff_is_valid_cff_1_2_0():
    import jsonschema
    import yaml

    import evpsim

    schema = json.loads((DOCS / "_ext" / "cff-1.2.0.schema.json").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    # YAML reads dates as dates; the schema wants their ISO strings
    cff = json.loads(json.dumps(cff, default=str))
    jsonschema.validate(cff, schema)
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == evpsim.__version__
    titles = {r["title"]: r for r in cff["references"]}
    assert set(titles) == {
        "Show Your Work: Improved Reporting of Experimental Results",
        "Showing Your Work Doesn't Always Work",
        "Expected Validation Performance and Estimation of a Random Variable's Maximum"}
    assert [titles[t]["year"] for t in sorted(titles)] == [2021, 2019, 2020]


def test_changelog_keeps_a_changelog():
    import evpsim

    text = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert versions and versions[0] == ("Unreleased", "")
    released = [(v, d) for v, d in versions[1:]]
    assert released and all(d for _, d in released), "each release has its date"
    assert released[-1][0] == "0.1.0"
    assert evpsim.__version__ in [v for v, _ in released]
    kinds = set(re.findall(r"^### (\w+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_extras_named_by_install_commands_exist():
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                 ["optional-dependencies"])
    texts = [p.read_text() for p in PAGES] + [README.read_text()]
    named = {e for t in texts for group in re.findall(r'pip install [^\n`]*?\[([\w,-]+)\]', t)
             for e in group.split(",")}
    assert {"docs", "notebooks", "test"} <= named
    assert named <= extras, f"install commands name extras pyproject lacks: {named - extras}"


def test_the_test_extra_installs_the_docs_and_notebooks_have_jupyter():
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    docs = " ".join(optional["docs"])
    for package in ("sphinx", "pydata-sphinx-theme", "numpydoc", "myst-nb"):
        assert package in docs
    assert "evpsim-toolkit[docs]" in optional["test"]
    assert any(r.startswith("jupyter") for r in optional["notebooks"])


def test_version_command():
    import evpsim

    res = subprocess.run([sys.executable, "-m", "evpsim", "--version"], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.strip() == f"evpsim {evpsim.__version__}"


# --- claims the pages make about names, options and installs ---------------------------------

CLAIM_PAGES = PAGES + [README, ROOT / "notebooks" / "README.md"]


def _resolve(dotted):
    """The object a dotted ``evpsim.X.Y`` name stands for (attribute or submodule), or None."""
    import importlib

    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 2):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            return None
    return obj


def test_every_evpsim_name_in_the_pages_exists():
    # entry-point groups ("evpsim.estimators" in quotes) are names of pyproject, not Python
    pattern = re.compile(r'(?<![\w/."-])evpsim(?:\.[A-Za-z_]\w*)+')
    named = {m for page in CLAIM_PAGES for m in pattern.findall(page.read_text())}
    assert len(named) > 20
    missing = sorted(n for n in named if _resolve(n) is None)
    assert not missing, f"the pages name what evpsim lacks: {missing}"


def test_getting_started_names_a_function_for_every_command():
    from evpsim.cli import build_parser

    text = (DOCS / "getting-started.md").read_text()
    rows = dict(re.findall(r"^\s*\| `evpsim ([\w-]+)` \| (.+) \|$", text, re.M))
    commands = set(_subparsers(build_parser()))
    assert set(rows) == commands
    for command, functions in rows.items():
        for name in re.findall(r"`(evpsim\.[\w.]+)`", functions):
            assert callable(_resolve(name)), f"{command}: {name} is not a function"


def _subparsers(parser):
    import argparse

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


#: options the pages give to other programs than evpsim, and which
OTHER_OPTIONS = {"--keep-going": "sphinx-build", "--nworkers": "dask worker",
                 "--nthreads": "dask worker", "--x-axis-time": "allentune",
                 "--against": "benchmarks/bench_kernels.py", "--only": "benchmarks/bench_startup.py",
                 "--opda": "benchmarks/bench_curve.py", "--full-size": "benchmarks/bench_curve.py"}


def test_every_option_in_the_pages_exists():
    from evpsim.cli import build_parser

    parser = build_parser()
    top = {o for a in parser._actions for o in a.option_strings}
    own = {name: {o for a in sub._actions for o in a.option_strings} | top
           for name, sub in _subparsers(parser).items()}
    anywhere = set().union(*own.values())
    for script, tool in OTHER_OPTIONS.items():
        if tool.startswith("benchmarks/"):
            assert f'"{script}"' in (ROOT / tool).read_text(), f"{tool} has no {script}"
    option = re.compile(r"(?<![\w-])--[a-z][\w-]*")
    for page in CLAIM_PAGES:
        text = page.read_text()
        for line in re.findall(r"(?:^\$ |`)(evpsim [\w-]+[^`\n]*)", text, re.M):
            command = line.split()[1]
            if command in own:
                wrong = set(option.findall(line)) - own[command]
                assert not wrong, f"{page.name}: 'evpsim {command}' has no {sorted(wrong)}"
        unknown = set(option.findall(text)) - anywhere - set(OTHER_OPTIONS)
        assert not unknown, f"{page.name} names options no command has: {sorted(unknown)}"


def test_install_commands_name_what_pip_can_install_today():
    import evpsim

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    third_party = {re.split(r"[<>=\[; ]", r)[0] for r in project["dependencies"]}
    third_party |= {re.split(r"[<>=\[; ]", r)[0] for group in
                    project["optional-dependencies"].values() for r in group}
    wheel = f"dist/evpsim_toolkit-{evpsim.__version__}-py3-none-any.whl"
    targets = [(page.name, t) for page in CLAIM_PAGES for t in
               re.findall(r'pip install ((?:-e )?"[^"]+"|(?:-e )?[^\s`"&)]+)', page.read_text())]
    assert len(targets) > 10
    for page, target in targets:
        bare = target.strip('"')
        # the distribution is not on the package index: a checkout or a built wheel
        ok = (bare in ("-e .", "...") or re.fullmatch(r'-e "?\.\[[\w,-]+\]"?', target)
              or re.fullmatch(re.escape(wheel) + r"(\[[\w,-]+\])?", bare)
              or bare in third_party - {project["name"]})
        assert ok, f"{page}: 'pip install {target}' names nothing pip can install today"
