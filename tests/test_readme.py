"""The README is a contract: its commands run and print what it shows, and its
Python snippets run as doctests.

Every fenced block whose lines start with ``$ `` holds commands, each followed
by the output the README shows for it. The commands run in one empty folder
(files the README's earlier commands write are there, as for a reader going
top to bottom), with ``EVPSIM_QUICK=1`` so that reproductions run at reduced
size, and must exit 0 (2 where the README shows an error message). The lines
shown must appear in the output (stdout and stderr, without progress lines) in
the same order, the first line shown being the first line printed; ``...``
stands for lines left out, and run times (with the spaces that pad them) and thread counts are not
compared.
The install commands of "Set up and run" are covered elsewhere: the wheel test
installs the package, and ``.ci/run`` is the test command itself.
"""

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from evpsim.report.leaderboard import QUICK_NOTE

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)
#: what varies from run to run: wall times and thread counts; and what a --quick run (the
#: commands run with EVPSIM_QUICK=1) adds to a summary's title
VOLATILE = [(re.compile(r" *\b\d+(\.\d+)? (s|min)\b"), " T s"),
            (re.compile(r"\b\d+ threads?\b"), "N threads"),
            (re.compile(" " + re.escape(QUICK_NOTE)), "")]
#: commands of "Set up and run" that the test suite runs in other ways
INSTALLS = re.compile(r"^python -m pip install ")


def _commands():
    """``(command, expected output lines)`` of every ``$`` line in a fenced block."""
    out = []
    for block in FENCE.findall(README.read_text()):
        lines = block.rstrip("\n").split("\n")
        if not lines[0].startswith("$ "):
            continue
        for line in lines:
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                out[-1][1].append(line)
    return out


def _setup_commands():
    """The indented commands of "Set up and run": ``install && command``."""
    text = README.read_text().split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    return [ln.strip() for ln in text.splitlines() if ln.startswith("    python ")]


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


COMMANDS = _commands()


@pytest.fixture(scope="module")
def reader_folder(tmp_path_factory):
    """One empty folder for the whole README, as for a reader going top to bottom."""
    return tmp_path_factory.mktemp("reader")


def test_readme_shows_commands():
    names = {shlex.split(c)[1] for c, _ in COMMANDS if shlex.split(c)[0] == "evpsim"}
    assert {"curve", "bias", "reproduce"} <= names  # the three examples of the front page
    setup = _setup_commands()
    assert len(setup) == 2 and all(INSTALLS.match(c) for c in setup)


@pytest.mark.parametrize("command, expected", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command(command, expected, reader_folder):
    args = shlex.split(command)
    assert args[0] == "evpsim", f"README command {command!r} is not an evpsim command"
    env = {**os.environ, "EVPSIM_QUICK": "1", "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}
    res = subprocess.run([sys.executable, "-m", "evpsim", *args[1:]], cwd=reader_folder,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    output = res.stdout.decode()  # as bytes: text mode would turn progress's \r into \n
    # an example of an error shows the message; any other command must succeed
    status = 2 if expected and re.match(r"evpsim \S+: error: ", expected[0]) else 0
    assert res.returncode == status, f"exit {res.returncode}:\n{output[-3000:]}"
    missing = _missing(expected, _screen(output))
    assert missing is None, f"README line not printed: {missing!r}\n--- printed:\n{output}"


def test_readme_is_a_front_page():
    """At most 250 lines, and every page it links to exists."""
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    links = re.findall(r"\]\(((?:docs/|notebooks/)[^)#]+)", text)
    assert len(links) >= 10
    for link in links:
        assert (README.parent / link).exists(), f"README links to a missing page: {link}"


def test_main_job_of_set_up_and_run_is_a_tested_command():
    """The first command's run part is one of the commands run above."""
    run = _setup_commands()[0].split(" && ", 1)[1]
    assert run.startswith("python -m evpsim ")
    assert run.replace("python -m evpsim", "evpsim", 1) in [c for c, _ in COMMANDS]


def test_readme_python_snippets(tmp_path, monkeypatch):
    """Every ``>>>`` snippet in the README, as one doctest session."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(README), module_relative=False, optionflags=flags,
                              raise_on_error=False, report=True)
    assert result.attempted >= 3, "the README's Python snippets are not doctests"
    assert result.failed == 0
