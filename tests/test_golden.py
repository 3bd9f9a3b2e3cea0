"""Results are bit-identical to those recorded before the engine's speed work.

Every sampling kernel runs once on a small case; each result's data
variables must equal, bit for bit, the values stored in
``tests/data/golden.npz`` (recorded with ``python tests/test_golden.py``
at commit 8c79c7f, before the kernels lost ``parallel=True``).
"""

from pathlib import Path

import numpy as np
import pytest

import evpsim

GOLDEN = Path(__file__).parent / "data" / "golden.npz"


def _bootstrap():
    xs = evpsim.make_truth("normal").sample(30, seed=3)
    ivs = evpsim.bootstrap_intervals(xs, ["U", "V", "W"], resamples=2000, seed=5,
                                     distribution=True)
    return ivs


def _top_half_mean(xs, n):
    # a general (non-L-statistic) estimator: mean of the best ceil(n / 2) scores
    k = (n + 1) // 2
    return xs[xs.shape[0] - k:].mean()


def _midpoint_interval(boots, est, jack, level):
    # a user CI method: the bootstrap distribution's range, shrunk about its middle
    lo, hi = boots.min(), boots.max()
    mid = 0.5 * (lo + hi)
    return mid - level * (mid - lo), mid + level * (hi - mid)


def _with_user_methods(run):
    def case():
        evpsim.register_estimator("golden-top", func=_top_half_mean)
        evpsim.register_ci_method("golden-mid", func=_midpoint_interval)
        try:
            return run()
        finally:
            evpsim.unregister_estimator("golden-top")
            evpsim.unregister_ci_method("golden-mid")
    return case


CASES = {
    "bias": lambda: evpsim.bias("normal", 30, method="mc", replicates=50_000, seed=1),
    "bias-pool": lambda: evpsim.bias("data:reuters-mlp", 20, method="both",
                                     replicates=20_000, seed=2),
    "bias-kde": lambda: evpsim.bias("kde:sst5-cnn", 25, method="exact"),
    "coverage": lambda: evpsim.coverage("tang-big", 20, replicates=120, resamples=500,
                                        seed=4),
    "coverage-ns": lambda: evpsim.coverage("normal", 40, ci_methods=["percentile", "bca"],
                                           replicates=60, resamples=400, seed=6, ns=[5, 20]),
    "falseconc": lambda: evpsim.falseconc("tang-small", 30, replicates=30_000, seed=7,
                                          truth_method="mc", truth_replicates=40_000),
    "compare": lambda: evpsim.compare_curves("tang-small", "tang-big", 20, replicates=20_000,
                                             seed=8),
    "compare-pool": lambda: evpsim.comparison_errors("data:reuters-mlp", "data:reuters-lstm",
                                                     [10, 20], pool=True, replicates=10_000,
                                                     seed=9),
    "bootstrap": _bootstrap,
    "curve": lambda: evpsim.curve({"a": evpsim.make_truth("normal").sample(25, seed=11),
                                   "b": evpsim.make_truth("tang-big").sample(25, seed=12)},
                                  estimators=["V", "U"],
                                  ci_methods=["percentile", "ld-equal-tailed"],
                                  resamples=1000, seed=13, bounds=(0.0, 1.0)),
    "user-bias": _with_user_methods(
        lambda: evpsim.bias("normal", 20, estimators=["V", "golden-top"], method="mc",
                            replicates=20_000, seed=14)),
    "user-coverage": _with_user_methods(
        lambda: evpsim.coverage("normal", 15, estimators=["V"],
                                ci_methods=["percentile", "golden-mid"], replicates=50,
                                resamples=300, seed=15)),
}
#: cases that compile a user's function (the slow run)
USER = {"user-bias", "user-coverage"}


def _arrays(result):
    if isinstance(result, dict):
        items = result.items()
    else:
        items = ((k, v.values) for k, v in result.data_vars.items())
    return {k: np.asarray(v) for k, v in items if np.asarray(v).dtype.kind in "fiub"}


def record():
    """Write the golden file from the current code."""
    out = {}
    for name, make in CASES.items():
        for var, arr in _arrays(make()).items():
            out[f"{name}/{var}"] = arr
    np.savez_compressed(GOLDEN, **out)
    print(f"{GOLDEN}: {len(out)} arrays")


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in USER else n
                                  for n in sorted(CASES)])
def test_bit_identical(name, golden):
    got = _arrays(CASES[name]())
    want = {k.split("/", 1)[1]: v for k, v in golden.items() if k.startswith(name + "/")}
    assert want, f"no golden values for {name}"
    assert sorted(got) == sorted(want)
    for var, arr in want.items():
        assert got[var].shape == arr.shape, var
        # bitwise: the same float64 values, NaNs in the same places
        assert np.array_equal(got[var], arr, equal_nan=arr.dtype.kind == "f"), f"{name}/{var}"


if __name__ == "__main__":
    record()
