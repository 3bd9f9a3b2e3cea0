"""What a user reads says one thing: no tracker words, quick runs that decide nothing,
verdicts that match the test's power."""

import re
from pathlib import Path

import numpy as np
import pytest

from evpsim.report.leaderboard import QUICK_NOTE
from evpsim.reproduce import Report
from evpsim.reproduce.tang2020 import about_verdict

ROOT = Path(__file__).resolve().parents[1]
#: a tracker's word for a numbered ticket: "issue 25", "issues 21 to 26", "Issue #3"
TRACKER = re.compile(r"\b[Ii]ssues? #?\d+")
#: what a user reads: the package (its output, help and docstrings), the docs, the README,
#: the changelog, the benchmarks and their pages, the notebooks
USER_FACING = (["README.md", "CHANGELOG.md"]
               + [f"{folder}/**/*.{ext}" for folder in ("evpsim", "docs", "benchmarks",
                                                          "notebooks")
                  for ext in ("py", "md", "ipynb", "txt", "rst")])


def test_no_tracker_words_in_anything_a_user_reads():
    files = {p for pattern in USER_FACING for p in ROOT.glob(pattern)
             if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts}
    assert len(files) > 100
    found = [f"{p.relative_to(ROOT)}:{k}: {line.strip()[:100]}"
             for p in sorted(files) for k, line in enumerate(p.read_text().splitlines(), 1)
             if TRACKER.search(line)]
    assert not found, "tracker words (say what changed, not its ticket):\n" + "\n".join(found)


def test_the_tracker_pattern_finds_what_it_should():
    for text in ("(issue 25)", "issues 21 to 26", "Issue #3", "issue 23's goals"):
        assert TRACKER.search(text), text
    for text in ("the issue of a periodical", "tissue 5", "an issue"):
        assert not TRACKER.search(text), text


def test_a_quick_reproduction_says_on_its_first_line_that_it_decides_nothing():
    quick = Report("tang2020", "A title", quick=True).markdown().splitlines()
    full = Report("tang2020", "A title").markdown().splitlines()
    assert quick[0] == f"# A title {QUICK_NOTE}" and "decide nothing" in quick[0]
    assert full[0] == "# A title"


@pytest.mark.parametrize("lower, upper, verdict", [
    ([0.66, 0.68], [0.72, 0.74], "agrees"),   # every interval inside 0.7 +- 0.05
    ([0.30, 0.80], [0.40, 0.90], "differs"),  # every one outside
    ([0.66, 0.30], [0.72, 0.40], "partly"),   # one surely inside, one surely outside
    ([0.60, 0.66], [0.80, 0.72], "inconclusive"),  # one straddles an edge: cannot tell
    ([0.60, 0.30], [0.80, 0.40], "inconclusive"),
])
def test_about_verdict(lower, upper, verdict):
    assert about_verdict(lower, upper) == verdict


def test_about_verdict_at_two_sizes_never_contradicts():
    """Intervals of a larger run inside a smaller run's: the smaller run's verdict is
    the larger's or inconclusive, never the opposite word."""
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(3000):
        truth = rng.uniform(0.55, 0.85, size=4)
        wide, narrow = rng.uniform(0.02, 0.12), rng.uniform(0.0, 0.02)
        small = about_verdict(truth - wide, truth + wide)
        large = about_verdict(truth - narrow, truth + narrow)
        seen.add((small, large))
        assert small in (large, "inconclusive"), (truth, wide, narrow, small, large)
    assert {("inconclusive", "agrees"), ("inconclusive", "partly")} <= seen


def test_the_first_figures_shade_curves_default_interval():
    """The front page's and the gallery's first figure is the one the gallery says was
    drawn by a ``curve`` command that names no CI method (so curve's default)."""
    from evpsim.intervals.family import CURVE_CI_METHOD

    docs = ROOT / "docs"
    first = {page: re.search(r"figures/([\w.-]+\.png)", (docs / page).read_text()).group(1)
             for page in ("index.md", "gallery.md")}
    assert first["index.md"] == first["gallery.md"], first
    gallery = (docs / "gallery.md").read_text()
    block = gallery[gallery.index(f"figures/{first['gallery.md']}"):].split("```")[0]
    command = re.search(r"`(evpsim curve [^`]+)`", block).group(1)
    assert "--ci-methods" not in command and "--plot-ci-method" not in command, command
    assert CURVE_CI_METHOD in block and (docs / "figures" / first["index.md"]).is_file()
