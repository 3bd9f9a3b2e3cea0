"""``evpsim reproduce intervals``: every CI method's coverage and widths on
truths with known theta, the goal's verdict and the best trade-off."""

import numpy as np
import xarray as xr

from evpsim import interval_study as study
from evpsim.studies.leaderboard import budgets
from evpsim.reproduce import PAPERS, reproduce
from evpsim.reproduce import intervals as ri
from evpsim.io.results import read_netcdf
from evpsim.truths import make_truth


def test_quick_run_writes_every_file_and_claim(tmp_path):
    assert PAPERS["intervals"] == "intervals"
    report = reproduce("intervals", tmp_path, quick=True)
    assert set(report.files) == {"intervals.nc", "intervals.md", "coverage.png", "width.png",
                                 "summary.md"}
    for f in report.files:
        assert (tmp_path / f).stat().st_size > 0
    text = (tmp_path / "summary.md").read_text()
    assert [c.claim.split(":")[0] for c in report.claims] == [
        "A CI method reaches the goal", "The best trade-off among the candidates"]
    assert all(c.evpsim in text for c in report.claims)
    # a quick run decides nothing, says so first, and names no winner but "at these sizes"
    assert text.splitlines()[0].endswith("(--quick: reduced sizes, which decide nothing; run "
                                         "without --quick to decide)")
    assert all(c.verdict == "inconclusive" and c.evpsim.startswith("at these sizes")
               for c in report.claims)
    assert "cells surely < 0.93 | cells with estimate < 0.93" in text
    ds = read_netcdf(tmp_path / "intervals.nc")
    assert list(ds["dist"].values) == list(ri.QUICK["truths"])
    assert list(ds["B"].values) == list(ri.QUICK["Bs"])
    assert list(ds["ci_method"].values) == list(study.BASELINES + study.CANDIDATES)
    # each B's cells are its own budgets up to 2B; U is not defined beyond B, V is
    for B in ri.QUICK["Bs"]:
        ns = budgets(B)
        assert ns.max() <= 2 * B and (ns > B).any()
        cov = ds["coverage"].sel(B=B, ci_method="gpd-tail")
        assert cov.sel(estimator="U", n=ns[ns > B]).isnull().all()
        assert np.isfinite(cov.sel(estimator="V", n=ns)).all()
        assert np.isfinite(cov.sel(estimator="U", n=ns[ns <= B])).all()
    # the percentile interval never reaches above the sample maximum: at n = B it misses
    # far more often than 5% on every truth (Tang et al. 2020), and mostly from below
    last = ds.sel(B=24, n=24, estimator="V", ci_method="percentile")
    assert (last["coverage"] < 0.8).all()
    assert (last["miss_below"] > last["miss_above"]).all()
    # the LD band holds at every n at once: it covers in every cell
    ld = ds["coverage"].sel(ci_method="ld-equal-tailed").where(ds["n"] <= ds["B"])
    assert int(ld.count()) > 0 and float(ld.min()) >= 0.9


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


def _fake(cov, width):
    """A study Dataset of one B with the given coverage and width per (method, n)."""
    meths = list(study.BASELINES + ("gpd-tail",))
    n = np.array([1, 5, 10])
    shape = (1, 1, 2, len(meths), n.size)
    c = np.broadcast_to(np.array([cov.get(m, 0.95) for m in meths])[:, None],
                        shape).astype(float)
    w = np.broadcast_to(np.array([width.get(m, 1.0) for m in meths])[:, None],
                        shape).astype(float)
    dims = ("dist", "B", "estimator", "ci_method", "n")
    return xr.Dataset(
        {"coverage": (dims, c), "coverage_lower": (dims, c - 0.01),
         "coverage_upper": (dims, c + 0.01), "miss_below": (dims, 1 - c),
         "miss_above": (dims, 0 * c), "median_width": (dims, w),
         "oracle_width": (("dist", "B", "estimator", "n"), np.ones(shape[:3] + (n.size,)))},
        coords={"dist": ["t"], "B": [10], "estimator": ["U", "V"], "ci_method": meths, "n": n})


def test_verdict_needs_both_coverage_and_width():
    s = study.summarise(_fake({"percentile": 0.5, "gpd-tail": 0.94}, {"gpd-tail": 1.9}))
    met = study.verdict(s, [10])
    assert bool(met.sel(ci_method="gpd-tail")) and not bool(met.sel(ci_method="percentile"))
    s = study.summarise(_fake({"gpd-tail": 0.94}, {"gpd-tail": 2.1}))
    assert not bool(study.verdict(s, [10]).sel(ci_method="gpd-tail"))
    s = study.summarise(_fake({"gpd-tail": 0.92}, {"gpd-tail": 1.5}))
    assert not bool(study.verdict(s, [10]).sel(ci_method="gpd-tail"))
    assert float(s["width_vs_percentile"].sel(ci_method="gpd-tail").max()) == 1.5
    assert float(s["below_goal"].sel(ci_method="gpd-tail").max()) == 1.0
    # estimates of 0.92 whose upper bounds reach 0.93 are below it, but not surely
    assert float(s["surely_below_goal"].sel(ci_method="gpd-tail").max()) == 0.0
    assert float(s["surely_below_goal"].sel(ci_method="percentile").max()) == 0.0
    s = study.summarise(_fake({"gpd-tail": 0.90}, {}))
    assert float(s["surely_below_goal"].sel(ci_method="gpd-tail").max()) == 1.0
