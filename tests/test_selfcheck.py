"""The self-check: coverage of the user's interval method on a KDE of the user's scores."""

import numpy as np
import pytest
from conftest import DATA, DATA_MISSING

import evpsim
from evpsim._format import spans
from evpsim.io.lattice import find_lattice
from evpsim.studies.selfcheck import metric_range
from evpsim.truths.kde import snap_kde

if not DATA.is_dir():
    pytest.skip(DATA_MISSING, allow_module_level=True)
GLOVE = np.loadtxt(DATA / "sst2_bcn_glove_acc.txt")
LSTM = np.loadtxt(DATA / "sst2_lstm_glove_acc.txt")
SMALL = dict(replicates=300, resamples=400, seed=1)


def _truth(xs):
    """The self-check's truth, built by hand: the centered cv KDE, snapped to the
    scores' lattice (the SST-2 accuracies lie on one of step 1/872)."""
    fit = evpsim.fit_kde(xs, construction="centered", bounds=(0, 1), bandwidth="cv")
    return evpsim.load_kde(snap_kde(fit, xs, find_lattice(xs))), fit


def test_equals_the_coverage_battery_on_the_fitted_kde():
    ds = evpsim.self_check(GLOVE, ci_methods="percentile,ks", bounds=(0, 1), **SMALL)
    truth, fit = _truth(GLOVE)
    ref = evpsim.coverage(truth, GLOVE.size, estimators="V",
                          ci_methods="percentile,ks", bounds=(0, 1), **SMALL)
    for key in ("coverage", "coverage_lower", "coverage_upper", "coverage_all"):
        np.testing.assert_array_equal(ds[f"check_{key}"].sel(model="model").values,
                                      ref[key].values)
    np.testing.assert_array_equal(ds["check_theta"].sel(model="model"), ref["theta"])
    assert float(ds["check_bandwidth"].sel(model="model")) == fit.attrs["bandwidth"]


def test_percentile_failure_is_reported_in_plain_words():
    ds = evpsim.self_check(GLOVE, ci_methods="percentile", **SMALL)
    cov = ds["check_coverage"].sel(model="model", estimator="V", ci_method="percentile")
    # Tang et al.'s finding on a distribution like theirs: far below 95% at n = B
    assert float(ds["check_coverage_upper"].sel(model="model", estimator="V",
                                                ci_method="percentile", n=50)) < 0.8
    lines = evpsim.check_warnings(ds)
    assert len(lines) == 1
    bad = np.flatnonzero(cov.values < 0.9) + 1
    where = f"n >= {bad[0]}" if bad.size == 51 - bad[0] else f"n = {spans(bad)}"
    worst = cov.values.min()
    assert lines[0].startswith(f"at {where}, 95% intervals built this way (percentile "
                               f"bootstrap of V) covered the truth in as few as {worst:.0%} [")
    assert lines[0].endswith("of 300 simulated searches from a distribution like yours, "
                             f"the fewest at n = {int(np.argmin(cov.values)) + 1}")


def test_band_method_covers_and_is_said_to_be_wide():
    """The KS band covers at every n at once; its intervals are several times the oracle
    interval's width, and the self-check says so, at the n where they are."""
    from evpsim.studies.selfcheck import coverage_warnings, width_warnings

    ds = evpsim.self_check(GLOVE, ci_methods="ks", bounds=(0, 1), **SMALL)
    assert coverage_warnings(ds) == []
    assert float(ds["check_coverage_all"].sel(model="model", estimator="V",
                                              ci_method="ks")) > 0.9
    ratio = ds["check_width_vs_oracle"].sel(model="model", estimator="V", ci_method="ks")
    wide = ratio["n"].values[ratio.values > 3]
    assert wide.size > 0
    lines = width_warnings(ds)
    assert lines == evpsim.check_warnings(ds)
    assert len(lines) == 1 and lines[0].startswith(f"at n = {spans(wide)}, ks intervals of V "
                                                   f"were on average up to ")


def test_width_is_set_beside_the_oracle_interval_of_the_kde():
    """check_width_vs_oracle is the coverage run's mean width over the width of the
    interval between the 2.5% and 97.5% quantiles of V - theta on the KDE's searches."""
    from evpsim.studies.oracle import oracle_widths
    from evpsim.studies.selfcheck import ORACLE_SEARCHES

    ds = evpsim.self_check(GLOVE, ci_methods="percentile", bounds=(0, 1), **SMALL)
    truth, _ = _truth(GLOVE)
    ref = evpsim.coverage(truth, GLOVE.size, estimators="V", ci_methods="percentile",
                          bounds=(0, 1), **SMALL)
    oracle = oracle_widths(truth, GLOVE.size, ["V"], ref["n"].values, ORACLE_SEARCHES,
                           SMALL["seed"])[0]
    got = ds["check_width_vs_oracle"].sel(model="model", estimator="V", ci_method="percentile")
    np.testing.assert_allclose(got, ref["mean_width"].sel(estimator="V",
                                                          ci_method="percentile") / oracle)
    # percentile is narrow: about the oracle's width at n = 1, narrower near n = B
    assert 0.8 < float(got.sel(n=1)) < 1.2 and float(got.sel(n=GLOVE.size)) < 1


def test_two_models_rank_errors_equal_compare_curves():
    ds = evpsim.self_check({"bcn": GLOVE, "lstm": LSTM[:40]}, **SMALL)
    assert list(ds["model_a"].values) == ["bcn"] and list(ds["model_b"].values) == ["lstm"]
    truths = [_truth(x)[0] for x in (GLOVE, LSTM[:40])]
    ref = evpsim.compare_curves(truths[0], truths[1], 40, estimators="V",
                                replicates=SMALL["replicates"], seed=SMALL["seed"])
    got = ds["check_wrong"].isel(pair=0).sel(estimator="V")
    np.testing.assert_array_equal(got[:40], ref["wrong"].sel(estimator="V"))
    assert np.isnan(got[40:]).all()
    assert np.isnan(ds["check_coverage"].sel(model="lstm")[..., 40:]).all()


def test_lattice_scores_are_checked_on_a_lattice_truth():
    # accuracies on SST-2's 872 dev examples: the truth keeps their lattice (its
    # support every point of the grid over the KDE's range), continuous scores'
    # truth is the KDE's own
    cont = np.random.default_rng(5).beta(8, 3, size=50)
    ds = evpsim.self_check({"glove": GLOVE, "cont": cont}, ci_methods="percentile",
                           replicates=64, resamples=100)
    steps = ds["check_lattice_step"].values
    assert steps[0] == 1 / 872 and np.isnan(steps[1])
    assert "snapped" in ds.attrs["check_truth"]
    truth = _truth(GLOVE)[0]
    grid = truth.support * 872
    np.testing.assert_allclose(grid, np.round(grid), rtol=0, atol=1e-9)
    assert np.all(np.diff(np.round(grid)) == 1)
    np.testing.assert_array_equal(ds["check_theta"].sel(model="glove"),
                                  truth.theta(np.arange(1, 51)))
    plain = evpsim.load_kde(evpsim.fit_kde(cont, construction="centered", bounds=(0, 1),
                                           bandwidth="cv"))
    np.testing.assert_array_equal(ds["check_theta"].sel(model="cont"),
                                  plain.theta(np.arange(1, 51)))
    # the best observed is a support point: its quantile in the truth's best of B
    # counts its own mass
    cdf = np.cumsum(truth.pmf)
    at = int(np.argmin(np.abs(truth.support - GLOVE.max())))
    assert float(ds["check_best_quantile"].sel(model="glove")) == pytest.approx(
        cdf[at] ** GLOVE.size, rel=1e-12)


def test_lattice_method_is_checked_as_it_runs_on_the_scores():
    """The KDE's draws lie on its grid, a lattice to ``gpd-tail-lattice``; on scores that
    lie on none the method is ``gpd-tail``, and so is its check (under its own name).
    On lattice scores the check runs it on the lattice."""
    cont = np.random.default_rng(5).beta(8, 3, size=30)
    sizes = dict(replicates=40, resamples=200, seed=2)
    both = evpsim.self_check({"glove": GLOVE[:30], "cont": cont},
                             ci_methods="gpd-tail,gpd-tail-lattice", **sizes)
    cov = both["check_coverage"]
    np.testing.assert_array_equal(cov.sel(model="cont", ci_method="gpd-tail-lattice"),
                                  cov.sel(model="cont", ci_method="gpd-tail"))
    assert not np.array_equal(cov.sel(model="glove", ci_method="gpd-tail-lattice"),
                              cov.sel(model="glove", ci_method="gpd-tail"))
    alone = evpsim.self_check(cont, ci_methods="gpd-tail-lattice", **sizes)
    np.testing.assert_array_equal(alone["check_coverage"].sel(model="model").values,
                                  cov.sel(model="cont", ci_method=["gpd-tail-lattice"]).values)


def test_minimize_checks_the_mirrored_problem():
    up = evpsim.self_check(GLOVE, bounds=(0, 1), **SMALL)
    down = evpsim.self_check(1 - GLOVE, bounds=(0, 1), minimize=True, **SMALL)
    # 1 - x on [0, 1] is the mirror image of x: same KDE up to rounding, same coverage
    np.testing.assert_allclose(down["check_theta"], 1 - up["check_theta"], atol=1e-9)
    np.testing.assert_array_equal(down["check_coverage"], up["check_coverage"])


def test_metric_range():
    assert metric_range([0.2, 0.9]) == (0.0, 1.0)
    assert metric_range([41.3, 38.0]) == (0.0, 100.0)
    with pytest.raises(ValueError, match=r"bounds: the scores span \[-3, 2\]"):
        metric_range([-3.0, 2.0])
    with pytest.raises(ValueError, match="bounds"):
        evpsim.self_check([-3.0, 2.0, 1.0], **SMALL)


def test_stopping_rule_stops_once_settled_and_not_before():
    from evpsim.studies.selfcheck import Settled

    rule = Settled(1000, 0.95)
    assert rule.stops == [64, 128, 256, 512] and rule.cp_level == pytest.approx(0.9875)
    lo, hi = evpsim.clopper_pearson(np.arange(257), 256, rule.cp_level)
    clear = np.flatnonzero((lo >= 0.9) | (hi < 0.9))  # counts whose verdict is settled
    open_ = np.setdiff1d(np.arange(257), clear)
    assert {230, 231} <= set(open_)  # counts on either side of the line: never settled
    assert rule(np.array([[clear[[0, -1]]]], dtype=float), 256)
    assert not rule(np.array([[[clear[-1], open_[0]]]], dtype=float), 256)
    assert not rule(np.array([[clear[[0, -1]]]], dtype=float), 200)  # not a look
    assert Settled(1000, 0.95, early=False).stops == []


def test_check_stops_where_settled_and_equals_the_shorter_run():
    # ks covers in (nearly) every search: settled at the first look
    ds = evpsim.self_check(GLOVE, ci_methods="ks", bounds=(0, 1), replicates=1000, seed=1)
    assert int(ds["check_searches"].item()) == 64
    ref = evpsim.self_check(GLOVE, ci_methods="ks", bounds=(0, 1), replicates=64, seed=1,
                            stop=False)
    np.testing.assert_array_equal(ds["check_coverage"], ref["check_coverage"])
    assert ds.attrs["check_stop"].startswith("stopping at 64, 128, 256 or 512 searches")
    # percentile falls through the 90% line near n = 13: some n is never settled
    ds = evpsim.self_check(GLOVE, ci_methods="percentile", replicates=200, resamples=300,
                           seed=1)
    assert int(ds["check_searches"].item()) == 200
    assert int(ds["check_resamples"].item()) == 300


def test_resamples_by_B_and_method():
    from evpsim.studies.selfcheck import check_resamples

    assert check_resamples(50, "percentile") == check_resamples(900, "percentile,ks") == 2000
    assert check_resamples(200, "gpd-tail") == 500
    assert check_resamples(201, "percentile,gpd-tail") == 250


def test_result_does_not_depend_on_threads_or_workers():
    import numba

    args = dict(ci_methods="gpd-tail", bounds=(0, 1), replicates=160, resamples=64, seed=3)
    data = {"bcn": GLOVE, "lstm": LSTM[:40]}
    ref = evpsim.self_check(data, **args)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = evpsim.self_check(data, **args)
    finally:
        numba.set_num_threads(before)
    two = evpsim.self_check(data, workers=2, **args)
    for ds in (one, two):
        for key in ("check_coverage", "check_searches", "check_wrong"):
            np.testing.assert_array_equal(ds[key], ref[key])


def test_progress_announces_then_names_each_model(capsys):
    evpsim.self_check({"bcn": GLOVE, "lstm": LSTM[:40]}, ci_methods="percentile",
                      replicates=96, resamples=64, progress=True)
    err = capsys.readouterr().err.replace("\r", "\n")
    lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
    first = next(i for i, ln in enumerate(lines) if ln.startswith("self-check: "))
    assert lines[first].startswith(
        "self-check: up to 96 searches of each model's B simulated from the centered KDE of "
        "its scores (bcn: B = 50, 64 resamples each; lstm: B = 40, 64 resamples each), "
        "checking percentile intervals of V; it stops at 64 searches once every n's verdict "
        "is settled; estimated time ")
    assert "(from a timed pilot of " in lines[first]
    bars = [ln for ln in lines if ln.startswith("self-check ")]
    assert not [ln for ln in lines[:first] if ln.startswith("self-check ")]  # line first
    assert any(ln.startswith("self-check 1/2: bcn:") for ln in bars)
    assert any(ln.startswith("self-check 2/2: lstm:") for ln in bars)
    assert all("at most ~" in ln for ln in bars)


def test_progress_redraws_while_nothing_finishes():
    import io
    import time

    from evpsim.engine.montecarlo import Progress

    out = io.StringIO()
    bar = Progress("run", 4, delay=0, stream=out, tick=0.02)
    bar.update(1)
    time.sleep(0.3)
    bar.close()
    draws = [ln for ln in out.getvalue().split("\r") if ln.startswith("run:")]
    assert len(draws) > 3 and all("(1/4)" in ln for ln in draws)
