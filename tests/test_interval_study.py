"""``evpsim reproduce intervals``: every CI method's coverage and widths on
truths with known theta, the goal's verdict and the best trade-off."""

import numpy as np
import pytest
import xarray as xr

from evpsim import interval_study as study
from evpsim.studies.leaderboard import budgets
from evpsim.reproduce import PAPERS, reproduce
from evpsim.reproduce import intervals as ri
from evpsim.io.results import read_netcdf
from evpsim.truths import make_truth
from evpsim.truths.distributions import _PREFIXES


@pytest.fixture
def lattice_registered(monkeypatch):
    """The truth prefix ``lattice`` registered: the real one where evpsim has it, else a
    stand-in that names a KDE truth under a lattice spec (enough for the study's grouping
    and tables, not for its numbers)."""
    if "lattice" not in _PREFIXES:
        monkeypatch.setitem(_PREFIXES, "lattice", (
            lambda arg, **_: make_truth(arg.split(":", 1)[1]), "stand-in lattice truths"))


@pytest.mark.slow  # the study's whole quick run, every truth and B: about a minute
def test_quick_run_writes_every_file_and_claim(tmp_path, lattice_registered):
    assert PAPERS["intervals"] == "intervals"
    report = reproduce("intervals", tmp_path, quick=True)
    assert set(report.files) == {"intervals.nc", "intervals.md", "coverage_mean.png",
                                 "width_mean.png", "coverage_median.png", "width_median.png",
                                 "summary.md"}
    for f in report.files:
        assert (tmp_path / f).stat().st_size > 0
    text = (tmp_path / "summary.md").read_text()
    assert [c.claim.split(":")[0] for c in report.claims] == [
        "A CI method reaches the goal for the mean curve",
        "The best trade-off among the candidates for the mean curve",
        "A CI method reaches the goal for the median curve",
        "The best trade-off among the candidates for the median curve"]
    assert all(c.evpsim in text for c in report.claims)
    # a quick run decides nothing, says so first, and names no winner but "at these sizes"
    assert text.splitlines()[0].endswith("(--quick: reduced sizes, which decide nothing; run "
                                         "without --quick to decide)")
    assert all(c.verdict == "inconclusive" and c.evpsim.startswith("at these sizes")
               for c in report.claims)
    # a goal table per curve: a row per method that bounds it, the criteria side by side,
    # the groups of truths apart
    def goal_rows(curve):
        table = text.split(f"## The {curve} curve: every method side by side")[1].split(
            "\n\n")[1].splitlines()
        head = [h.strip() for h in table[0].strip("|").split("|")]
        return head, {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")]
                      for r in table[2:]}

    head, rows = goal_rows("mean")
    assert head == ["CI method", "n <= B, 3 truths", "n <= B, 1 lattice truths",
                    "n <= B, 1 searches with failed trials", "V, B < n <= 2B (goal >= 0.9)",
                    "widest cell / oracle, n <= B (goal <= 1.5)",
                    "widest cell / oracle, B < n <= 2B (goal <= 2)",
                    "width / oracle, median over cells", "width / percentile, median over cells",
                    "goal"]
    mean_methods = [m for m in study.BASELINES + study.CANDIDATES if m != "order-statistic"]
    assert list(rows) == mean_methods
    assert rows["percentile"][-1] == "inconclusive (--quick)"
    assert rows["gpd-tail-bounded"][5].endswith("wider")  # "3.61 (truth, B, n); k of N wider"
    head, rows = goal_rows("median")
    assert head[1:4] == ["n <= B, 3 truths", "n <= B, 1 lattice truths",
                         "n <= B, 1 searches with failed trials"]
    assert "V, B < n <= 2B (goal >= 0.9)" not in head
    assert list(rows) == list(study.BASELINES) + ["order-statistic"]
    assert "## Where the goal fails (at these sizes, which decide nothing)" in text
    # how many cells an exact 95% interval would have below 0.93 by chance, at these M
    from scipy.stats import binom

    M = ri.SIZES[True]["samples"]
    chance = binom.cdf(np.ceil(0.93 * M) - 1, M, 0.95)
    assert (f"has a coverage estimate below 0.93 in a cell with probability {100 * chance:.2f}% "
            f"at M = {M:,} searches" in text)
    ds = read_netcdf(tmp_path / "intervals.nc")
    assert list(ds["dist"].values) == list(ri.quick_truths())
    assert ri.quick_truths()[-1].startswith("lattice:")
    assert list(ds["B"].values) == list(ri.QUICK["Bs"])
    assert list(ds["curve"].values) == ["mean", "median"]
    assert list(ds["ci_method"].values) == list(study.BASELINES + study.CANDIDATES)
    # each curve has its estimators and the methods that bound it, and nothing else
    mean, median = ds.sel(curve="mean"), ds.sel(curve="median")
    assert median["coverage"].sel(estimator=["U", "V"]).isnull().all()
    assert mean["coverage"].sel(estimator="quantile").isnull().all()
    assert mean["coverage"].sel(ci_method="order-statistic").isnull().all()
    assert median["coverage"].sel(ci_method=["gpd-tail-bounded", "betting"]).isnull().all()
    # each B's cells are its own budgets up to 2B; U is not defined beyond B, V is; the
    # median curve's quantile estimator stops at B
    for B in ri.QUICK["Bs"]:
        ns = budgets(B)
        assert ns.max() <= 2 * B and (ns > B).any()
        cov = mean["coverage"].sel(B=B, ci_method="gpd-tail-bounded")
        assert cov.sel(estimator="U", n=ns[ns > B]).isnull().all()
        assert np.isfinite(cov.sel(estimator="V", n=ns)).all()
        assert np.isfinite(cov.sel(estimator="U", n=ns[ns <= B])).all()
        orders = median["coverage"].sel(B=B, ci_method="order-statistic", estimator="quantile")
        assert np.isfinite(orders.sel(n=ns[ns <= B])).all()
        assert orders.sel(n=ns[ns > B]).isnull().all()
        # the oracle interval of the median curve is the quantile estimator's own
        assert np.isfinite(median["oracle_width"].sel(B=B, estimator="quantile",
                                                      n=ns[ns <= B])).all()
    # the percentile interval never reaches above the sample maximum: at n = B it misses
    # far more often than 5% on every truth (Tang et al. 2020), and mostly from below
    last = mean.sel(B=24, n=24, estimator="V", ci_method="percentile")
    assert (last["coverage"] < 0.8).all()
    assert (last["miss_below"] > last["miss_above"]).all()
    # the LD band holds at every n at once: it covers in every cell, on both curves
    ld = ds["coverage"].sel(ci_method="ld-equal-tailed").where(ds["n"] <= ds["B"])
    assert int(ld.count()) > 0 and float(ld.min()) >= 0.9


@pytest.mark.slow  # every KDE truth fitted and put on its lattice: about 35 s
def test_study_truths_add_lattice_versions_of_the_kde_truths_when_registered(monkeypatch):
    from evpsim.studies.leaderboard import leaderboard_truths

    base = leaderboard_truths()
    failed = [f"failed:{pi}:{t}" for pi in study.FAILED_SHARES for t in base
              if t.startswith("data:")]
    real = _PREFIXES["lattice"]
    monkeypatch.delitem(_PREFIXES, "lattice")
    assert study.study_truths() == base + failed
    assert all(study.truth_group(t) == "base" for t in base)
    assert all(study.truth_group(t) == "failed" for t in failed)
    # a stand-in whose lattice versions are their KDE truths, the same at every step: the
    # first step's are kept
    monkeypatch.setitem(_PREFIXES, "lattice", (
        lambda arg, **_: make_truth(arg.split(":", 1)[1]), "stand-in lattice truths"))
    truths = study.study_truths()
    kdes = [t for t in base if t.startswith("kde:")]
    assert truths[:len(base)] == base and truths[-len(failed):] == failed
    assert truths[len(base):len(base) + len(kdes)] == [f"lattice:1/100:{k}" for k in kdes]
    # the real ones: a centered twin whose rounded law is its fit's is left out; the rare
    # tied tops follow, three masses on three lattice truths, each a law of its own
    monkeypatch.setitem(_PREFIXES, "lattice", real)
    truths = study.study_truths()
    lattice = [t for t in truths if study.truth_group(t) == "lattice"]
    capped = [t for t in truths if study.truth_group(t) == "capped"]
    assert "lattice:1/100:kde:reuters-mlp" in lattice
    assert "lattice:1/100:kde:reuters-mlp-centered" not in lattice
    assert "lattice:1/100:kde:reuters-lstm-centered" in lattice  # cut at [0, 1]: its own law
    assert len(capped) == len(study.TOP_MASSES) * len(study.CAPPED) == 9
    for group in (lattice, capped):
        laws = [make_truth(t) for t in group]
        assert not any(np.array_equal(a.support, b.support) and np.array_equal(a.pmf, b.pmf)
                       for i, a in enumerate(laws) for b in laws[:i])
    for t in capped:  # the top atom holds about its mass
        mass = float(t.split(":")[1])
        assert mass <= make_truth(t).pmf[-1] < 1.5 * mass


def test_distinct_laws_keeps_the_first_of_equal_laws_and_every_continuous_truth():
    assert study.distinct_laws(["normal", "normal", "data:reuters-mlp", "data:reuters-mlp",
                                "lattice:1/100:kde:sst5-cnn",
                                "lattice:1/100:kde:sst5-cnn-centered"]) == [
        "normal", "normal", "data:reuters-mlp", "lattice:1/100:kde:sst5-cnn"]


def test_a_study_run_again_on_its_store_computes_nothing(tmp_path):
    sizes = dict(samples=8, resamples=20, width_samples=2, oracle_samples=200)
    first = ri.study(["normal"], [12], sizes, store=tmp_path / "cells")
    assert first.attrs["cells_computed"] == 2  # one per curve
    again = ri.study(["normal"], [12], sizes, store=tmp_path / "cells")
    assert again.attrs["cells_computed"] == 0
    xr.testing.assert_identical(first["coverage"], again["coverage"])


def test_oracle_width_is_the_sampling_law_of_v():
    """At n = 1, V is the sample mean: its oracle 95% width is 2 z_0.975 sigma / sqrt(B)."""
    truth = make_truth("normal")
    B = 30
    ds = study.cell(truth, B, ci_methods=["percentile", "ld-equal-tailed"], samples=20,
                    resamples=50, width_samples=2, oracle_samples=40_000)
    sigma = truth.sample(400_000, seed=5).std()
    expected = 2 * 1.959964 * sigma / np.sqrt(B)
    # the quantile of 40,000 draws: a relative SE of about 0.6% on the width
    got = float(ds["oracle_width"].sel(estimator="V", n=1))
    assert abs(got / expected - 1) < 0.03
    # and the study's widths are the intervals' own: percentile's at n = 1 is close too
    perc = float(ds["median_width"].sel(estimator="V", ci_method="percentile", n=1))
    assert 0.7 < perc / expected < 1.2


def test_oracle_width_of_the_median_curve_is_the_sampling_law_of_the_sample_median():
    """At n = 1 on B = 31 scores, the quantile estimator is the sample median (the 16th
    score): its oracle width is that of the sample median's law, drawn here independently."""
    truth = make_truth("normal")
    B = 31
    ds = study.cell(truth, B, "median", ci_methods=["percentile", "ld-equal-tailed",
                                                    "order-statistic"],
                    samples=20, resamples=50, width_samples=2, oracle_samples=40_000)
    assert list(ds["estimator"].values) == ["quantile"]
    assert ds["coverage"].sel(ci_method="order-statistic").notnull().any()
    got = float(ds["oracle_width"].sel(estimator="quantile", n=1))
    medians = np.median(truth.sample(40_000 * B, seed=7).reshape(40_000, B), axis=1)
    lo, hi = np.quantile(medians, [0.025, 0.975])
    # two independent estimates of one width from 40,000 searches each: about 1% apart
    assert abs(got / (hi - lo) - 1) < 0.05


def _fake(cov, width, beyond=None, lattice=None, bound=0.01):
    """A study Dataset of one B (10), the mean curve and two truths (one a lattice truth):
    per method, coverage ``cov`` at n <= B (``lattice`` on the lattice truth), ``beyond``
    at n > B (default ``cov``), Clopper-Pearson bounds ``bound`` either side, median width
    ``width`` (the oracle's and percentile's: 1)."""
    meths = list(study.BASELINES + ("gpd-tail",))
    n = np.array([1, 5, 10, 14, 20])
    beyond, lattice = beyond or {}, lattice or {}
    c = np.empty((2, 1, 1, 2, len(meths), n.size))
    for k, m in enumerate(meths):
        for t, where in enumerate((cov, lattice if m in lattice else cov)):
            c[t, 0, 0, :, k] = np.where(n <= 10, where.get(m, 0.95),
                                        beyond.get(m, where.get(m, 0.95)))
    w = np.broadcast_to(np.array([width.get(m, 1.0) for m in meths])[:, None], c.shape)
    dims = ("dist", "B", "curve", "estimator", "ci_method", "n")
    return xr.Dataset(
        {"coverage": (dims, c), "coverage_lower": (dims, c - bound),
         "coverage_upper": (dims, c + bound), "miss_below": (dims, 1 - c),
         "miss_above": (dims, 0 * c), "median_width": (dims, w.astype(float)),
         "oracle_width": (("dist", "B", "curve", "estimator", "n"), np.ones((2, 1, 1, 2, 5)))},
        coords={"dist": ["t", "lattice:1/100:kde:t"], "B": [10], "curve": ["mean"],
                "estimator": ["U", "V"], "ci_method": meths, "n": n})


def _goal(ds):
    return study.goal(study.summarise(ds, "within"), study.summarise(ds, "beyond"), [10])


def test_the_goal_needs_every_criterion():
    g = _goal(_fake({"percentile": 0.5, "gpd-tail": 0.94}, {"gpd-tail": 1.4}))
    assert list(g["curve"].values) == ["mean"]
    assert bool(g["met"].sel(ci_method="gpd-tail", curve="mean"))
    assert not bool(g["met"].sel(ci_method="percentile", curve="mean"))
    assert bool(study.verdict(study.summarise(_fake({"gpd-tail": 0.94}, {"gpd-tail": 1.4})),
                              study.summarise(_fake({"gpd-tail": 0.94}, {"gpd-tail": 1.4}),
                                              "beyond"), [10]).sel(ci_method="gpd-tail"))
    # wider than 1.5x the oracle's: the width is judged, the percentile's is not
    g = _goal(_fake({"gpd-tail": 0.94}, {"gpd-tail": 1.6})).sel(ci_method="gpd-tail")
    assert not bool(g["met"]) and not bool(g["oracle_width"])
    assert "percentile_width" not in g
    # one cell wider than the goal is enough: the widest n is judged, not the median over n
    ds = _fake({"gpd-tail": 0.94}, {"gpd-tail": 1.0})
    ds["median_width"].loc[dict(ci_method="gpd-tail", n=10)] = 1.6
    assert not bool(_goal(ds).sel(ci_method="gpd-tail")["oracle_width"])
    s = study.summarise(ds).sel(ci_method="gpd-tail", truths="base", B=10, curve="mean",
                                estimator="V")
    assert float(s["max_width_vs_oracle"]) == 1.6 and int(s["widest_n"]) == 10
    assert float(s["width_vs_oracle"]) == 1.0 and float(s["wide_cells"]) == 1 / 3
    # beyond B, up to 2x the oracle's is allowed
    ds = _fake({"gpd-tail": 0.94}, {"gpd-tail": 1.0})
    ds["median_width"].loc[dict(ci_method="gpd-tail", n=20)] = 1.9
    assert bool(_goal(ds).sel(ci_method="gpd-tail")["oracle_width"])
    ds["median_width"].loc[dict(ci_method="gpd-tail", n=20)] = 2.1
    assert not bool(_goal(ds).sel(ci_method="gpd-tail")["oracle_width"])
    # estimates of 0.92 whose upper bounds reach 0.93 are below it, but not surely
    g = _goal(_fake({"gpd-tail": 0.92}, {})).sel(ci_method="gpd-tail")
    assert not bool(g["covers"]) and bool(g["none_surely_below"]) and not bool(g["met"])
    g = _goal(_fake({"gpd-tail": 0.90}, {})).sel(ci_method="gpd-tail")
    assert not bool(g["none_surely_below"])
    # beyond B only 0.90 is asked of V: 0.91 holds, 0.89 fails
    g = _goal(_fake({"gpd-tail": 0.94}, {}, beyond={"gpd-tail": 0.91}))
    assert bool(g["met"].sel(ci_method="gpd-tail", curve="mean"))
    g = _goal(_fake({"gpd-tail": 0.94}, {}, beyond={"gpd-tail": 0.89})).sel(ci_method="gpd-tail")
    assert not bool(g["covers_beyond"]) and bool(g["covers"]) and not bool(g["met"])
    # the lattice truths count as much as the others
    g = _goal(_fake({"gpd-tail": 0.94}, {}, lattice={"gpd-tail": 0.92})).sel(ci_method="gpd-tail")
    assert not bool(g["covers"]) and not bool(g["met"])


def test_summaries_keep_lattice_truths_apart():
    ds = _fake({"gpd-tail": 0.94}, {"gpd-tail": 1.5}, lattice={"gpd-tail": 0.90}, bound=0.05)
    s = study.summarise(ds)
    assert list(s["truths"].values) == ["base", "lattice"]
    gpd = s.sel(ci_method="gpd-tail", B=10, curve="mean", estimator="V")
    assert float(gpd["min_coverage"].sel(truths="base")) == 0.94
    assert float(gpd["min_coverage"].sel(truths="lattice")) == 0.90
    assert float(gpd["below_goal"].sel(truths="lattice")) == 1.0
    assert float(gpd["surely_below_goal"].sel(truths="lattice")) == 0.0  # its bound 0.95 reaches 0.93
    assert float(gpd["width_vs_percentile"].sel(truths="base")) == 1.5
    assert int(gpd["cells"].sel(truths="base")) == 3  # n = 1, 5, 10


def test_worst_cells_are_the_lowest_below_their_goal():
    ds = _fake({"gpd-tail": 0.94}, {}, beyond={"gpd-tail": 0.91}, lattice={"gpd-tail": 0.92})
    cov = ds["coverage"].values
    cov[1, 0, 0, :, -1, 1] = 0.80  # the lattice truth at n = 5, both estimators
    cov[0, 0, 0, 1, -1, 4] = 0.85  # V beyond B on the other truth: below 0.90
    worst = study.worst_cells(ds, "gpd-tail", "mean", [10], count=10)
    assert [(w["dist"], w["n"], w["estimator"]) for w in worst[:3]] == [
        ("lattice:1/100:kde:t", 5, "U"), ("lattice:1/100:kde:t", 5, "V"), ("t", 20, "V")]
    assert worst[2]["beyond"] and worst[2]["goal"] == 0.9 and worst[0]["goal"] == 0.93
    # the lattice truth's other cells (0.92) follow; U beyond B is not the study's
    assert all(w["coverage"] == 0.92 for w in worst[3:]) and len(worst) == 3 + 4
    assert study.worst_cells(ds, "percentile", "mean", [10]) == []


def test_wide_cells_counts_cells_wider_than_the_goal_by_span_of_n():
    ds = _fake({}, {})
    w = ds["median_width"].values.copy()
    k = list(ds["ci_method"].values).index("gpd-tail")
    w[0, 0, 0, :, k, 2] = 1.8  # n = B on the first truth, both estimators: above 1.5
    w[1, 0, 0, :, k, 3] = 2.5  # n = 14 on the lattice truth: above 2 (V's; U's is not judged)
    ds["median_width"] = (ds["median_width"].dims, w)
    oracle = ds["oracle_width"].values.copy()
    oracle[1, 0, 0, :, 1] = 0.0  # no ratio where the oracle's width is 0
    ds["oracle_width"] = (ds["oracle_width"].dims, oracle)
    got = {c["span"]: (c["cells"], c["wide"], c["median"], c["limit"])
           for c in study.wide_cells(ds, "gpd-tail", "mean", [10])}
    # B = 10, n = 1, 5, 10, 14, 20: no n in (1, B/4]
    assert got == {"n = 1": (4, 0, 1.0, 1.5), "B/4 < n <= B/2": (2, 0, 1.0, 1.5),
                   "B/2 < n <= B": (4, 2, 1.4, 1.5), "B < n <= 2B": (4, 1, 1.0, 2.0)}

@pytest.mark.slow  # the command three times on worker processes: about 45 s
def test_the_command_runs_on_workers_and_resumes_from_its_store(tmp_path, tiny_intervals,
                                                                capsys):
    """``reproduce intervals --workers 2 --store DIR``: the summary says where it ran; run
    again on the same store, it reads every cell and gets the same numbers."""
    import os

    from evpsim.cli import main

    store = tmp_path / "cells"
    for out in ("first", "again"):
        assert main(["reproduce", "intervals", "--quick", "--workers", "2", "--store",
                     str(store), "--out", str(tmp_path / out)]) == 0
    capsys.readouterr()
    first, again = ((tmp_path / o / "summary.md").read_text() for o in ("first", "again"))
    cells = 2 * len(ri.quick_truths())  # both curves
    assert f"{os.cpu_count()} cores; the cells on 2 local worker processes" in first
    assert "read from the checkpoint store" not in first
    assert f"{cells} of {cells} cells were read from the checkpoint store" in again
    assert "the cells all read from the checkpoint store" in again
    a, b = (read_netcdf(tmp_path / o / "intervals.nc") for o in ("first", "again"))
    xr.testing.assert_identical(a["coverage"], b["coverage"])


def test_an_interrupted_run_keeps_its_cells_and_says_so(tmp_path):
    """SIGINT during ``reproduce intervals --store DIR``: the finished cells stay in the
    store, nothing else is written, and the message says how to resume."""
    import signal
    import subprocess
    import sys
    import time

    store, out = tmp_path / "cells", tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "evpsim", "reproduce", "intervals", "--quick",
                             "--store", str(store), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not list(store.glob("cell-*.nc")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    kept = len(list(store.glob("cell-*.nc")))
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err
    assert err.splitlines()[-2:] == [
        f"evpsim reproduce: {kept} finished cells are kept in {str(store)!r}; run the same "
        f"command again to resume", "evpsim reproduce: interrupted"]
    assert kept >= 1 and not out.exists()
