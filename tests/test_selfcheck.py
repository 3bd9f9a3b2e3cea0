"""The self-check: coverage of the user's interval method on a KDE of the user's scores."""

import numpy as np
import pytest
from conftest import DATA, DATA_MISSING

import evpsim
from evpsim._format import spans
from evpsim.selfcheck import metric_range

if not DATA.is_dir():
    pytest.skip(DATA_MISSING, allow_module_level=True)
GLOVE = np.loadtxt(DATA / "sst2_bcn_glove_acc.txt")
LSTM = np.loadtxt(DATA / "sst2_lstm_glove_acc.txt")
SMALL = dict(replicates=300, resamples=400, seed=1)


def test_equals_the_coverage_battery_on_the_fitted_kde():
    ds = evpsim.self_check(GLOVE, ci_methods="percentile,ks", bounds=(0, 1), **SMALL)
    fit = evpsim.fit_kde(GLOVE, construction="centered", bounds=(0, 1), bandwidth="cv")
    ref = evpsim.coverage(evpsim.load_kde(fit), GLOVE.size, estimators="V",
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
    assert lines[0].endswith("of 300 simulated searches from a distribution like yours "
                             f"(n = {int(np.argmin(cov.values)) + 1})")


def test_band_method_passes():
    ds = evpsim.self_check(GLOVE, ci_methods="ks", bounds=(0, 1), **SMALL)
    assert evpsim.check_warnings(ds) == []
    assert float(ds["check_coverage_all"].sel(model="model", estimator="V",
                                              ci_method="ks")) > 0.9


def test_two_models_rank_errors_equal_compare_curves():
    ds = evpsim.self_check({"bcn": GLOVE, "lstm": LSTM[:40]}, **SMALL)
    assert list(ds["model_a"].values) == ["bcn"] and list(ds["model_b"].values) == ["lstm"]
    truths = [evpsim.load_kde(evpsim.fit_kde(x, construction="centered", bounds=(0, 1),
                                             bandwidth="cv")) for x in (GLOVE, LSTM[:40])]
    ref = evpsim.compare_curves(truths[0], truths[1], 40, estimators="V",
                                replicates=SMALL["replicates"], seed=SMALL["seed"])
    got = ds["check_wrong"].isel(pair=0).sel(estimator="V")
    np.testing.assert_array_equal(got[:40], ref["wrong"].sel(estimator="V"))
    assert np.isnan(got[40:]).all()
    assert np.isnan(ds["check_coverage"].sel(model="lstm")[..., 40:]).all()


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
