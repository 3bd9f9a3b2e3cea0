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


# --- sentences of curve and its report, each read once ------------------------------------

def _repeats(text):
    """The budgets ``n = K`` a sentence names twice (a sentence that repeats itself)."""
    found = re.findall(r"n = \d+", text)
    return sorted({n for n in found if found.count(n) > 1})


def test_the_default_intervals_stand_in_reads_in_one_pass():
    """Why percentile stands in for the default: what runs, then why, with no clause a
    reader must take apart ("the intervals here, as gpd-tail-lattice, the default,
    reweights ... and trimmed-best is not one" read as one clause)."""
    from evpsim.estimators.family import get_estimator
    from evpsim.estimators.targets import MEAN
    from evpsim.intervals.family import CURVE_CI_METHOD as DEFAULT
    from evpsim.intervals.family import curve_ci_method, get_ci_method

    least = get_ci_method(DEFAULT).minimum_B
    small = curve_ci_method(MEAN, least - 1)
    assert small == ("percentile", f"in place of {DEFAULT}, the default, which needs B >= "
                                   f"{least} trials (the smallest B here is {least - 1})")
    V, naive, kde = (get_estimator(e) for e in ("V", "naive", "kde"))
    assert curve_ci_method(MEAN, 50, [V, naive]) == (
        f"{DEFAULT},percentile",
        f"percentile runs naive on each resample: the default, {DEFAULT}, works for "
        f"L-statistics only (it reweights resamples through their weights), and naive is not "
        f"one; the L-statistics keep {DEFAULT}")
    assert curve_ci_method(MEAN, 50, [naive, kde]) == (
        "percentile",
        f"percentile runs naive, kde on each resample: the default, {DEFAULT}, works "
        f"for L-statistics only (it reweights resamples through their weights), and none of "
        f"naive, kde is")
    for _, why in (small, curve_ci_method(MEAN, 50, [V, naive])):
        assert ", as " not in why and "here, as" not in why


def _shortfall(covered, level=0.95):
    """A self-check's result with these coverages at n = 1.. (one model, V, percentile)."""
    import xarray as xr

    cov = np.array(covered, dtype=float)[None, None, None, :]
    dims = ("model", "estimator", "ci_method", "n")
    coords = {"model": ["m"], "estimator": ["V"], "ci_method": ["percentile"],
              "n": np.arange(1, cov.shape[-1] + 1),
              "ci_method_kind": ("ci_method", ["bootstrap"])}
    return xr.Dataset({"check_coverage": (dims, cov), "check_coverage_lower": (dims, cov - .05),
                       "check_coverage_upper": (dims, cov + .05),
                       "check_searches": ("model", [256])}, coords=coords,
                      attrs={"check_level": level, "check_replicates": 256})


def test_a_coverage_warning_names_each_budget_once():
    from evpsim.studies.selfcheck import coverage_warnings

    one, = coverage_warnings(_shortfall([0.45, 0.95, 0.96]))
    assert one == ("at n = 1, 95% intervals built this way (percentile bootstrap of V) covered "
                   "the truth in only 45% [40%, 50%] of 256 simulated searches from a "
                   "distribution like yours")
    every, = coverage_warnings(_shortfall([0.8, 0.7, 0.6]))
    assert every.startswith("at every n, 95% intervals") and "as few as 60%" in every
    assert every.endswith("like yours, the fewest at n = 3")
    for line in (one, every):
        assert _repeats(line) == [], line


def test_the_sd_column_says_whose_it_is():
    """One SD beside two estimators: its heading says it is the plug-in distribution's
    (the same for every estimator), and its legend line says so in words."""
    import evpsim
    from evpsim.report.tables import SD_HEADER, model_table

    ds = evpsim.curve([0.61, 0.64, 0.65, 0.70, 0.72], estimators="V,U",
                      ci_methods="percentile", resamples=50)
    table = model_table(ds, "model", [1, 2, 5])
    assert table.headers[:4] == ["n", "V", "U", SD_HEADER] and "plug-in" in SD_HEADER
    assert "the same whichever estimator" in table.legend_lines[0]


def test_the_kde_legend_and_its_warning_cut_at_one_threshold():
    """The fit table's legend names the share at which a KDE is unlike the scores, and the
    warning fires at that share: below it, and not just above it."""
    import evpsim
    from evpsim.studies.selfcheck import FIT_TAIL, fit_table, fit_warnings

    x = np.random.default_rng(0).beta(8, 3, size=30)
    ds = evpsim.self_check(x, replicates=50, resamples=100)
    legend = dict(fit_table(ds).legend)["quantile"]
    low, high = (float(v) / 100 for v in re.findall(r"below (\d+)% or above (\d+)%",
                                                    legend)[0])
    assert (low, high) == (FIT_TAIL, 1 - FIT_TAIL)
    for q, warned in ((low * 0.9, True), (low * 1.1, False), (1 - low * 0.9, True)):
        near = ds.assign(check_best_quantile=("model", [q]),
                         check_unlike=("model", [q < FIT_TAIL or q > 1 - FIT_TAIL]))
        assert bool(fit_warnings(near)) == warned, q
