"""``evpsim reproduce kde-validity``: KDE truths fitted to subsets of real searches
set beside the searches themselves."""

import numpy as np
import pytest

from evpsim.io.shipped import shipped_scores
from evpsim.reproduce import PAPERS, reproduce
from evpsim.reproduce import kde_validity as kv
from evpsim.io.results import read_netcdf
from evpsim.truths import empirical


def test_quick_run_writes_every_file_and_claim(tmp_path):
    assert PAPERS["kde-validity"] == "kde_validity"
    report = reproduce("kde-validity", tmp_path, quick=True)
    assert set(report.files) == {"kde_validity.nc", "kde_validity.png", "summary.md"}
    for f in report.files:
        assert (tmp_path / f).stat().st_size > 0
    text = (tmp_path / "summary.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert len(rows) == len(report.claims) + 1 == len(kv.ERRORS) * len(kv.KDES) + 2
    assert all(c.verdict in {"agrees", "partly", "differs", "inconclusive"}
               for c in report.claims)
    # with 4 subsets no interval is narrow enough to say "agrees"
    assert not any(c.verdict == "agrees" for c in report.claims[:-1])
    assert all("(80% power), the error that matters being" in c.evpsim
               for c in report.claims[:-1])
    assert all(c.evpsim in text for c in report.claims)
    ds = read_netcdf(tmp_path / "kde_validity.nc")
    assert {"pool", "B", "subset", "construction", "n", "estimator", "statistic"} <= set(ds.dims)
    assert list(ds["pool"].values) == list(kv.POOLS) and list(ds["B"].values) == list(kv.BS)
    assert ds.sizes["subset"] == kv.SIZES[True]["subsets"]
    assert ds["coverage_error"].dims == ("pool", "B", "subset", "construction", "estimator", "n")
    # the errors are the KDEs' predictions minus the pools' values
    np.testing.assert_allclose(ds["theta_error"], ds["kde_theta"] - ds["pool_theta"])
    np.testing.assert_allclose(ds["pool_theta"].sel(pool="sklearn-hgb"),
                               empirical(shipped_scores("sklearn-hgb")).theta(np.array(kv.NS)))
    # the subsets are B distinct trials of the pool
    idx = ds["subset_trials"].sel(pool="sklearn-svm", B=50, subset=0).values
    assert np.unique(idx[idx >= 0]).size == 50
    assert np.isfinite(ds["theta_error_summary"].sel(statistic="mean")).all()


def test_a_kde_of_every_trial_predicts_theta():
    """Sanity of the comparison: with no sampling error, a KDE of a unimodal pool
    gets theta_n nearly right."""
    scores = shipped_scores("sklearn-hgb")
    pool = empirical(scores).theta(np.array(kv.NS))
    for label in ("tang2020", "centered"):
        err = kv._fit(scores, label).theta(np.array(kv.NS)) - pool
        assert np.all(np.abs(err) < 0.01), (label, err)
    # and on a subset of the pool, the same comparison shows the sampling error
    sub = scores[np.random.default_rng(0).choice(scores.size, 50, replace=False)]
    err = kv._fit(sub, "centered-cv").theta(np.array(kv.NS)) - pool
    assert np.all(np.abs(err) < 0.1)


def test_summary_intervals_carry_the_shared_reference_error():
    import xarray as xr
    from scipy import stats

    rng = np.random.default_rng(3)
    values = rng.normal(0.02, 0.05, size=(2, 40))
    err = xr.DataArray(values, dims=("pool", "subset"), coords={"pool": ["a", "b"]},
                       attrs={"long_name": "error"})
    plain = kv._summary(err)
    half = float(plain.sel(pool="a", statistic="mean_upper") - plain.sel(pool="a",
                                                                        statistic="mean"))
    assert half == pytest.approx(stats.t.ppf(0.975, 39) * values[0].std(ddof=1) / np.sqrt(40))
    se = xr.DataArray([0.01, 0.0], dims="pool", coords={"pool": ["a", "b"]})
    wide = kv._summary(err, se)
    widened = float(wide.sel(pool="a", statistic="mean_upper") - wide.sel(pool="a",
                                                                         statistic="mean"))
    assert widened == pytest.approx(np.hypot(half, 1.959963984540054 * 0.01))
    assert float(wide.sel(pool="b", statistic="mean_lower")) == pytest.approx(
        float(plain.sel(pool="b", statistic="mean_lower")))
    # averaged over pools, the shared errors add in quadrature
    over = kv._over_pools(err, se)
    per_subset = values.mean(axis=0)
    t_half = stats.t.ppf(0.975, 39) * per_subset.std(ddof=1) / np.sqrt(40)
    assert float(over.sel(statistic="mean_upper") - over.sel(statistic="mean")) == \
        pytest.approx(np.hypot(t_half, 1.959963984540054 * 0.01 / 2))


def _interval(mean, half):
    import xarray as xr

    return xr.DataArray([mean, mean - half, mean + half, mean, mean, mean], dims="statistic",
                        coords={"statistic": kv.STATISTICS})


def test_an_interval_containing_0_agrees_only_when_the_test_has_power():
    """Few subsets give wide intervals that contain 0: inconclusive, not agrees."""
    from scipy import stats

    material = kv.MATERIAL["theta_error"]
    factor = 1 + stats.norm.ppf(kv.POWER) / stats.norm.ppf(0.975)
    assert kv.detectable(_interval(0.001, 0.004)) == pytest.approx(0.004 * factor)
    assert kv._verdict(_interval(0.001, 0.004), material) == "agrees"
    assert kv._verdict(_interval(0.001, 0.05), material) == "inconclusive"
    assert kv._verdict(_interval(0.03, 0.01), material) == "differs"
    # the power is what a simulated test finds: an interval of that half-width around
    # a mean error of `detectable` excludes 0 in about 80% of repetitions
    rng = np.random.default_rng(21)
    se, S = 0.002, 200_000
    means = rng.normal(kv.detectable(_interval(0.0, 1.96 * se)), se, S)
    assert np.mean(means - 1.959963984540054 * se > 0) == pytest.approx(kv.POWER, abs=0.005)
