"""The calibrated kind: gpd-tail's interval at levels calibrated through its fitted model.

* the calibration's budgets and their log-n map; its levels from known
  prepivots and errors (the quantiles, the fast double bootstrap's
  positions, the caps);
* at the nominal levels the interval is gpd-tail's, bit for bit (the same
  pivots); the threaded intervals equal the kernel's serial ones, and
  coverage is bit-identical for every thread count;
* the calibration measures what it claims: gpd-tail's coverage in the
  world of its fitted model, as the coverage battery measures it on a
  truth drawn from that model (where gpd-tail undercovers, and the
  calibrated end moves out);
* what it cannot do is refused in one line (``tests/test_bad_input.py``), or said.
"""

from __future__ import annotations

import numpy as np
import pytest

import evpsim
from evpsim._kernels import calibrated as C
from evpsim._kernels import resampling as R
from evpsim._kernels.tails import draw_semiparametric
from evpsim.estimators import resolve_estimators
from evpsim.intervals import calibrated as P

from conftest import outputs_by_thread_count

METHODS = "gpd-tail-calibrated,gpd-tail-fdb"
LEVEL = 0.95
A = 0.5 * (1 - LEVEL)


@pytest.fixture(scope="module")
def sample():
    return np.sort(evpsim.make_truth("normal").sample(40, seed=11))


def test_calibration_budgets_span_the_budgets_in_log_n():
    ns = np.arange(1, 201)
    idx, lo, hi, w = P.calibration_budgets(ns)
    # up to CALIBRATION_BUDGETS: the smallest budgets, spread in log n, round to the same
    assert 20 <= idx.size <= P.CALIBRATION_BUDGETS and ns[idx[0]] == 1 and ns[idx[-1]] == 200
    assert np.all(np.diff(ns[idx]) > 0)
    # the map reproduces log n from the calibration's budgets
    logs = np.log(ns[idx].astype(float))
    np.testing.assert_allclose((1 - w) * logs[lo] + w * logs[hi], np.log(ns), atol=1e-12)
    # few budgets, in any order: each is its own
    idx, lo, hi, w = P.calibration_budgets([50, 1, 7])
    assert idx.tolist() == [1, 2, 0] and np.all(w == 0) and lo.tolist() == [2, 0, 1]


def _levels(code, tvals, inner):
    S, K = tvals.shape
    out = np.empty((K, 2))
    N = np.arange(K)
    C.calibrated_levels(code, tvals, inner, LEVEL, N, N, np.zeros(K), 1, out)
    return out


def test_prepivot_levels_are_the_quantiles_of_the_prepivots_within_their_caps():
    rng = np.random.default_rng(0)
    u = np.column_stack([rng.uniform(size=999),            # calibrated already
                         rng.uniform(0.02, 1, size=999) ** 0.3,  # misses above: level up
                         np.full(999, 0.5)])               # never misses: the caps
    u[5, 0] = np.nan  # a sample without a tail is skipped
    out = _levels(C.PREPIVOT, np.zeros_like(u), u)
    np.testing.assert_allclose(out[0], np.nanquantile(u[:, 0], [1 - A, A]), atol=1e-12)
    assert out[1, 0] == pytest.approx(min(np.quantile(u[:, 1], 1 - A), 1 - C.TAIL_LOW * A))
    assert out[1, 0] > 1 - A
    assert out[2].tolist() == [1 - C.TAIL_HIGH * A, C.TAIL_HIGH * A]


def test_fast_double_levels_place_the_errors_quantiles_among_the_pivots():
    rng = np.random.default_rng(1)
    t = rng.standard_normal((2000, 1))
    inner = 0.8 * rng.standard_normal((2000, 1))  # pivots too narrow: both levels widen
    out = _levels(C.FAST_DOUBLE, t, inner)
    q = np.quantile(t[:, 0], [1 - A, A])
    want = [(np.sum(inner < x) + 0.5) / 2001 for x in q]
    np.testing.assert_allclose(out[0], np.clip(want, [1 - 2 * A, 0.1 * A],
                                               [1 - 0.1 * A, 2 * A]), atol=1e-12)
    assert out[0, 0] > 1 - A and out[0, 1] < A


def test_at_the_nominal_levels_the_interval_is_gpd_tails(sample):
    ests = resolve_estimators("U,V")
    ns = np.arange(1, 41)
    tabs = P.tables(ests, 40, ns, [R.GPD_TAIL])
    st = R.rng_init(3, 7)
    want = np.empty((1, tabs.wt.shape[1], 2))
    R.sample_intervals(st, sample, tabs, np.array([R.GPD_TAIL]), 300, LEVEL, -np.inf,
                         np.inf, want)
    seed = R.method_seed(st, R.GPD_TAIL)
    params, ref = R.setup(R.GPD_TAIL, sample, tabs, seed, 0.0, 0.0)
    piv = np.empty((tabs.wt.shape[1], 300))
    R.pivots(R.GPD_TAIL, seed, sample, tabs, params, ref, 0,
             R.blocks(R.GPD_TAIL, tabs, 300), piv)
    nominal = np.tile([1 - A, A], (tabs.wt.shape[1], 1))
    got = np.empty((tabs.wt.shape[1], 2))
    C.finish_calibrated(sample, tabs, ref, piv, nominal, -np.inf, np.inf, got)
    np.testing.assert_allclose(got, want[0], rtol=1e-13, atol=1e-13)


def test_threaded_intervals_equal_the_kernels_own(sample):
    ests = resolve_estimators("V")
    ns = np.arange(1, 81)
    prepared = P.calibration_tables(ests, 40, ns)
    codes = [C.PREPIVOT, C.FAST_DOUBLE]
    threaded = P.sample_intervals(sample, prepared, codes, 200, LEVEL, 3, 7)
    for g, code in enumerate(codes):
        one = np.empty((prepared[0].wt.shape[1], 2))
        C.sample_calibrated(R.rng_init(3, 7), sample, prepared[0], *prepared[1:], code,
                            *P._sizes(code), 200, LEVEL, -np.inf, np.inf, one)
        assert np.array_equal(one, threaded[g])
    # a method's intervals do not depend on the other run beside it
    alone = P.sample_intervals(sample, prepared, [C.FAST_DOUBLE], 200, LEVEL, 3, 7)
    assert np.array_equal(alone[0], threaded[1])


def test_coverage_is_bit_identical_for_thread_counts():
    script = ("import evpsim, hashlib; ds = evpsim.coverage('normal', 12, estimators='U,V', "
              f"ci_methods='{METHODS}', replicates=6, resamples=100); "
              "print(hashlib.sha256(ds['mean_width'].values.tobytes()).hexdigest())")
    assert len(outputs_by_thread_count(script)) == 1


@pytest.fixture(scope="module")
def heavy(tmp_path_factory):
    """A sample of 25 whose fitted tail is heavy (shape 0.33), its fitted model, and a
    file of 100,000 draws from that model: a truth on which gpd-tail undercovers."""
    B = 25
    xs = np.sort(evpsim.make_truth("normal").sample(B, seed=3))
    ctabs = P.tables(resolve_estimators("V"), B, np.array([B]), [R.GPD_TAIL])
    params, _ = R.setup(R.GPD_TAIL, xs, ctabs, np.uint64(0), 0.0, 0.0)  # no lattice: step 0
    st, y, counts = R.rng_init(99, 0), np.empty(B), np.empty(B, dtype=np.int64)
    draws = []
    for _ in range(4000):
        draw_semiparametric(st, xs, int(params[0]), params[1], params[2], counts, y)
        draws.append(y.copy())
    path = tmp_path_factory.mktemp("heavy") / "model.txt"
    np.savetxt(path, np.concatenate(draws))
    return xs, ctabs, params, path


def test_the_calibration_measures_gpd_tails_coverage_in_the_fitted_models_world(heavy):
    """The prepivots' share within ``[a, 1 - a]`` is gpd-tail's coverage of theta_n(F-hat)
    on samples drawn from F-hat: the same, within 4 standard errors of the difference, as
    the coverage battery measures on a truth of 100,000 draws from F-hat; below the level
    there, and the calibrated upper end lies above gpd-tail's."""
    xs, ctabs, params, path = heavy
    S = 400
    theta = np.empty(1)
    C.model_theta(xs, params, ctabs, theta)
    tvals, u = np.empty((S, 1)), np.empty((S, 1))
    C.calibration_block(C.PREPIVOT, 5, xs, params, theta, ctabs, 100, 0, S, tvals, u)
    estimated = float(np.mean((u > A) & (u < 1 - A)))
    M = 600
    ds = evpsim.coverage(f"file:{path}", 25, estimators="V", ci_methods="gpd-tail",
                         replicates=M, resamples=400, ns=[25], seed=1)
    measured = float(ds["coverage"].sel(ci_method="gpd-tail", estimator="V", n=25))
    se = np.sqrt(estimated * (1 - estimated) / S + measured * (1 - measured) / M)
    assert abs(estimated - measured) < 4 * se, (estimated, measured)
    assert measured < LEVEL - 2 * np.sqrt(LEVEL * (1 - LEVEL) / M)
    # the upper end misses too often there: its calibrated level is below a, the end higher
    assert np.quantile(u[:, 0], A) < A
    ds = evpsim.bootstrap_intervals(xs, "V", ci_methods="gpd-tail,gpd-tail-calibrated",
                                    resamples=1000, ns=[25])
    up = ds["upper"].sel(estimator="V", n=25)
    assert float(up.sel(ci_method="gpd-tail-calibrated")) > float(up.sel(ci_method="gpd-tail"))


def test_curve_names_the_method_and_its_assumption(tmp_path, capsys):
    scores = tmp_path / "s.txt"
    np.savetxt(scores, evpsim.make_truth("normal").sample(30, seed=2))
    from evpsim.cli import main

    assert main(["curve", str(scores), "--ci-methods", "gpd-tail-fdb", "--resamples",
                 "200"]) == 0
    out = capsys.readouterr().out
    assert "intervals from gpd-tail-fdb with 200 resamples (seed 0)" in out
    assert "gpd-tail-fdb: its upper limits rest on a generalized Pareto tail" in out


def test_tied_tops_give_no_interval_and_say_why():
    ds = evpsim.curve([0.5] + [0.7] * 11, ci_methods="gpd-tail-calibrated", resamples=100)
    assert bool(ds["upper"].isnull().all())
    assert evpsim.intervals.family.no_interval("gpd-tail-calibrated", np.array(
        [0.5] + [0.7] * 11)) == "its 11 best scores are tied, leaving no tail to fit"
