"""Every kind of estimator in every battery: paired searches, curves, budgets beyond B.

The Python path (:mod:`evpsim.estimators.pyrun`) must see exactly the searches the
numba kernels see; a Python re-implementation of V is the witness: its
sums equal V's to rounding and its counts equal V's exactly.
"""

import numpy as np
import pytest

import evpsim
from evpsim._kernels.rng import Span
from evpsim._kernels.searches import search_chunks
from evpsim.engine.streams import bias_streams


def _python_v(samples, ns):
    xs = np.sort(samples, axis=1)
    return xs @ evpsim.get_estimator("V").weight_rows(xs.shape[1], ns).T


@pytest.fixture
def python_v():
    evpsim.register_estimator("pyV", python=_python_v, batched=True, extrapolates=True)
    yield "pyV"
    evpsim.unregister_estimator("pyV")


@pytest.mark.parametrize("truth", ["normal", "kde:reuters-lstm", "data:reuters-mlp"])
def test_python_estimators_see_the_searches_the_kernels_see(truth, python_v):
    kw = dict(estimators=f"V,{python_v}", replicates=6000, seed=3, chunk_size=1000)
    b = evpsim.bias(truth, 15, ns=[1, 7, 15, 30], method="mc", **kw)
    for q in ("variance", "mse"):
        np.testing.assert_allclose(b[q].sel(estimator=python_v), b[q].sel(estimator="V"),
                                   rtol=1e-12, atol=1e-18)
    f = evpsim.falseconc(truth, 15, ns=[1, 7, 15, 30], **kw)
    for key in ("below_count", "tie_count"):
        np.testing.assert_array_equal(f[key].sel(estimator=python_v), f[key].sel(estimator="V"))
    c = evpsim.compare_curves(truth, "tang-big", 15, ns=[1, 7, 15, 30], **kw)
    for key in ("a_higher_count", "tie_count", "b_higher_count"):
        np.testing.assert_array_equal(c[key].sel(estimator=python_v), c[key].sel(estimator="V"))
    np.testing.assert_allclose(c["mean_a"].sel(estimator=python_v), c["mean_a"].sel(estimator="V"),
                               rtol=1e-12)


def test_fewer_searches_are_the_first_of_the_run(python_v):
    full = evpsim.bias("normal", 10, estimators=python_v, replicates=3000, method="mc",
                       chunk_size=1000, seed=5)
    some = evpsim.bias("normal", 10, estimators=f"V,{python_v}", replicates=3000, method="mc",
                       chunk_size=1000, seed=5, python_replicates=1500)
    first = evpsim.bias("normal", 10, estimators="V", replicates=1500, method="mc",
                        chunk_size=1000, seed=5)
    assert some["replicates"].values.tolist() == [3000, 1500]
    np.testing.assert_allclose(some["mse"].sel(estimator=python_v), first["mse"].sel(
        estimator="V"), rtol=1e-12)
    assert not np.allclose(some["mse"].sel(estimator=python_v), full["mse"].sel(
        estimator=python_v), rtol=1e-6)


def test_failures_are_counted_per_cell_and_left_out():
    def picky(scores, ns):  # fails where the search's first trial is its best
        if scores[0] == scores.max():
            raise RuntimeError("no fit")
        return np.maximum.accumulate(scores)[ns - 1]

    evpsim.register_estimator("picky", python=picky)
    try:
        ds = evpsim.bias("tang-small", 8, estimators="picky", replicates=2000, method="mc",
                         chunk_size=500, seed=2)
        f = evpsim.falseconc("tang-small", 8, estimators="picky", replicates=2000,
                             chunk_size=500, seed=2)
    finally:
        evpsim.unregister_estimator("picky")
    span = Span(2, bias_streams(), 0, 4, 500, 2000)
    xs = search_chunks(span, 8, evpsim.make_truth("tang-small").sampler)
    failed = xs[:, 0] == xs.max(axis=1)
    assert 100 < failed.sum() < 600
    assert (ds["failures"].values == failed.sum()).all()
    kept = np.maximum.accumulate(xs[~failed], axis=1)
    theta = ds["theta"].values
    np.testing.assert_allclose(ds["bias"].values[0], kept.mean(axis=0) - theta, rtol=1e-10)
    assert (f["failures"].values > 0).all()
    total = f["below_count"] + f["tie_count"] + f["above_count"] + f["failures"]
    assert (total == 2000).all()


@pytest.mark.parametrize("curve, estimators", [("mean", "V"), ("median", "quantile"),
                                               ("quantile:0.9", "quantile")])
def test_monte_carlo_beyond_B_agrees_with_exact(curve, estimators):
    ds = evpsim.bias("tang-big", 12, estimators=estimators, curve=curve, ns=[1, 6, 12, 18, 24, 48],
                     replicates=100_000, seed=4)
    assert ds["n"].values.max() == 48 and str(ds["curve"].values) == curve.replace(
        "median", "quantile:0.5")
    z = np.abs(ds["z_bias"].values)
    assert np.nanmax(z) < 4.5 and np.isfinite(z).all()
    assert float(ds.attrs["max_abs_z"]) < 4.5


def test_naive_is_unbiased_for_the_mean_curve():
    ds = evpsim.bias("kde:sst5-cnn", 20, estimators="U,naive", replicates=200_000, seed=6)
    sub = ds.sel(estimator="naive")
    np.testing.assert_allclose(sub["exact_bias"], 0.0, atol=1e-12)
    assert np.abs(sub["bias"] / sub["bias_se"]).max() < 4.5
    assert np.abs(sub["z_variance"]).max() < 4.5
    # the best of the first n uses n of the B trials: far more variable than U
    assert (sub["exact_variance"][1:] > ds["exact_variance"].sel(estimator="U")[1:]).all()


def test_quantile_intervals_and_bands_for_the_median_curve_beyond_B():
    ds = evpsim.coverage("normal", 20, curve="median", ci_methods="percentile,ld-equal-tailed",
                         ns=[1, 10, 20, 40], replicates=300, resamples=500, seed=1)
    assert "tau" in ds and "theta" not in ds
    band = ds["coverage"].sel(estimator="quantile", ci_method="ld-equal-tailed")
    assert (ds["coverage_upper"].sel(ci_method="ld-equal-tailed") >= 0.95).all()
    assert float(band.min()) >= 0.95  # simultaneous bands: at least nominal at every n
    # percentile intervals of the largest order statistic cannot reach beyond it
    perc = ds["coverage"].sel(estimator="quantile", ci_method="percentile")
    assert float(perc.sel(n=40)) < 0.8


def test_an_estimator_must_estimate_the_curve_and_the_budgets():
    with pytest.raises(ValueError, match="V estimates the mean curve, not the quantile curves"):
        evpsim.bias("normal", 10, estimators="V", curve="median", method="exact")
    with pytest.raises(ValueError, match="quantile estimates the quantile curves, not the mean"):
        evpsim.falseconc("normal", 10, estimators="quantile", replicates=100)
    with pytest.raises(ValueError, match="naive does not estimate beyond the B = 10"):
        evpsim.compare_curves("normal", "tang-big", 10, estimators="naive", ns=[5, 11],
                              replicates=100)
    with pytest.raises(ValueError, match="truth_method: 'mc' simulates the mean curve"):
        evpsim.falseconc("normal", 10, curve="median", truth_method="mc", replicates=100)
    with pytest.raises(ValueError, match="curve must be"):
        evpsim.bias("normal", 10, curve="mode", method="exact")


def test_commands_take_the_curve_and_budgets(capsys):
    from evpsim.cli import main

    assert main(["bias", "--B", "10", "--curve", "median", "--n-max", "20", "--method",
                 "exact", "--all"]) == 0
    out = capsys.readouterr().out
    assert "tau = exact median of the best score of n trials" in out
    assert out.splitlines()[-1].split()[0] == "20"
    assert main(["falseconc", "--B", "10", "--estimators", "U,naive", "--replicates", "2000",
                 "--python-replicates", "500", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "naive: over the first 500 searches only" in out
    assert main(["bias", "--B", "10", "--estimators", "W", "--n", "5,11"]) == 2
    assert "W does not estimate beyond the B = 10 trials run" in capsys.readouterr().err


@pytest.mark.slow  # two worker processes start: up to a minute on a busy machine
def test_a_users_estimator_travels_to_the_sweeps_worker_processes():
    def best_two(scores, ns):  # defined here: cloudpickle sends it by value
        return np.minimum(np.maximum.accumulate(scores)[ns - 1], np.sort(scores)[-2:].mean())

    evpsim.register_estimator("best-two-sweep", python=best_two)
    try:
        kw = dict(options={"estimators": "V,best-two-sweep", "method": "mc",
                           "replicates": 2000})
        here = evpsim.sweep("bias", {"dist": ["normal", "tang-small"], "B": [6]}, **kw)
        there = evpsim.sweep("bias", {"dist": ["normal", "tang-small"], "B": [6]},
                             backend="local", workers=2, **kw)
    finally:
        evpsim.unregister_estimator("best-two-sweep")
    np.testing.assert_array_equal(here["mse"], there["mse"])
    assert np.isfinite(there["mse"].sel(estimator="best-two-sweep")).all()
