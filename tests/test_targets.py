"""Targets: the mean curve and the quantile curves, exact for every truth and n."""

from fractions import Fraction

import numpy as np
import pytest

import evpsim
from evpsim.estimators.targets import MEAN, Target, as_target


def _brute_tau(values, q, n):
    """tau_q(n) of the empirical distribution of ``values`` in exact arithmetic,
    and whether q lies exactly on a step of F^n (there floating point decides).

    The best of n draws is at most v with probability F(v)^n, F counted
    exactly; tau is the smallest value v with q <= F(v)^n.
    """
    values = sorted(values)
    B = len(values)
    qf = Fraction(str(q))  # the decimal q, as a user means it
    steps = {Fraction(sum(1 for w in values if w <= v), B) ** n for v in values}
    for v in values:
        if qf <= Fraction(sum(1 for w in values if w <= v), B) ** n:
            return v, qf in steps
    return values[-1], False


def test_quantile_curve_of_a_discrete_truth_against_exact_arithmetic():
    rng = np.random.default_rng(7)
    ties = 0
    for _ in range(40):
        B = int(rng.integers(2, 25))
        xs = np.round(rng.normal(0.7, 0.1, B), 2)   # tied scores
        truth = evpsim.empirical(xs)
        ns = np.arange(1, 3 * B + 1)
        for q in (0.1, 0.5, 0.8):
            got = truth.tau(q, ns)
            for n, value in zip(ns, got):
                want, on_step = _brute_tau(xs.tolist(), q, int(n))
                if on_step:  # F^n = q exactly: the rounding of the CDF decides (as opda's)
                    ties += 1
                    assert value in xs
                else:
                    assert value == want, (B, q, n)
    assert ties < 100


def test_quantile_curve_equals_opdas_empirical_distribution():
    opda = pytest.importorskip("opda.nonparametric")
    rng = np.random.default_rng(0)
    for _ in range(300):
        B = int(rng.integers(2, 80))
        xs = np.round(rng.normal(size=B), int(rng.integers(1, 4)))
        ns = np.arange(1, 3 * B)
        for q in (0.1, 0.25, 0.5, 0.75, 0.9):
            np.testing.assert_array_equal(
                evpsim.empirical(xs).tau(q, ns),
                opda.EmpiricalDistribution(xs).quantile_tuning_curve(ns, q=q))


@pytest.mark.parametrize("truth", ["normal", "tang-small", "tang-big"])
def test_quantile_curve_of_a_truncated_normal_inverts_the_cdf(truth):
    t = evpsim.make_truth(truth)
    ns = np.array([1, 2, 5, 30, 100, 1000, 10**6])
    for q in (0.05, 0.5, 0.95):
        tau = t.tau(q, ns)
        assert np.all(np.diff(tau) > 0) and t.lo < tau[0] and tau[-1] < t.hi
        # F(tau)^n = q; in the upper tail through the survival function
        np.testing.assert_allclose(-np.expm1(ns * np.log1p(-t.sf(tau))), 1 - q, rtol=1e-7)


def test_median_of_the_best_of_n_by_monte_carlo():
    t = evpsim.make_truth("normal")
    n = 7
    draws = t.sample(7 * 200_000, seed=3).reshape(-1, n).max(axis=1)
    tau = t.tau(0.5, [n])[0]
    share = np.mean(draws <= tau)
    assert abs(share - 0.5) < 4 * np.sqrt(0.25 / draws.size)


def test_targets_by_name():
    assert as_target("mean") is MEAN and as_target("MEDIAN") == Target("quantile", 0.5)
    assert as_target("quantile:0.9").name == "quantile:0.9"
    assert as_target(Target("quantile", 0.2)).q == 0.2
    t = evpsim.make_truth("normal")
    np.testing.assert_array_equal(as_target("mean").exact(t, [1, 5]), t.theta([1, 5]))
    np.testing.assert_array_equal(as_target("median").exact(t, [1, 5]), t.tau(0.5, [1, 5]))
    for bad in ("quantile:1", "quantile:0", "quantile:x", "quantile:", "mode", "quantile:nan"):
        with pytest.raises(ValueError, match="curve"):
            as_target(bad)
    with pytest.raises(TypeError, match="curve must be a string"):
        as_target(0.5)
    with pytest.raises(ValueError, match="q"):
        t.tau(1.5, [1])
