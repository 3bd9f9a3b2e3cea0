"""The Python estimators (naive, kde, opda-parametric), the quantile plug-in against
opda, and the exact moments of the best of n (naive's mean and variance)."""

import itertools
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import logsumexp

import evpsim
from evpsim.estimators import Context
from evpsim.truths.exact import max_moments, order_statistic_moments
from evpsim.truths.kde import CV_FALLBACK, fit_kde, fit_kde_cv, load_kde, loo_log_likelihood
from evpsim.estimators.python_builtins import OPDA_EXTRA
from evpsim.estimators.targets import MEAN, as_target


def samples_with_and_without_ties(seed, count):
    """Samples of several sizes; every other one rounded to two digits (ties)."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        xs = rng.beta(6, 3, size=int(rng.integers(2, 60)))
        yield np.round(xs, 2) if k % 2 else xs


# --- registration ------------------------------------------------------------------------

def test_the_python_builtins_are_registered_with_what_they_can_do():
    for name, extrapolates in (("naive", False), ("kde", True), ("opda-parametric", True)):
        est = evpsim.get_estimator(name)
        assert est.builtin and est.kind == "python"
        assert est.targets == ("mean", "quantile")
        assert est.extrapolates is extrapolates
        assert est.source
    assert "opda extra" in evpsim.get_estimator("opda-parametric").source
    assert evpsim.list_estimators()[:4] == ["U", "V", "W", "quantile"]


def test_naive_refuses_budgets_beyond_the_trials_run_and_says_why():
    with pytest.raises(ValueError, match=r"naive does not estimate beyond the B = 3 trials "
                                         r"run \(n = 4 asked for\): the best of the first n "
                                         r"needs n trials; estimators that extrapolate: V, "
                                         r"quantile, kde, opda-parametric"):
        evpsim.estimate([0.7, 0.9, 0.8], "naive", ns=[1, 4])


# --- naive ---------------------------------------------------------------------------------

def test_naive_equals_opdas_naive_tuning_curve():
    opda = pytest.importorskip("opda.nonparametric")
    for xs in samples_with_and_without_ties(1, 40):
        ns = np.arange(1, xs.size + 1)
        want = opda.EmpiricalDistribution(xs).naive_tuning_curve(ns)
        for curve in ("mean", "median", "quantile:0.9"):  # one number for every target
            np.testing.assert_array_equal(evpsim.estimate(xs, "naive", curve=curve), want)


def test_naive_runs_a_batch_as_it_runs_each_search():
    rng = np.random.default_rng(2)
    samples = rng.random((7, 12))
    ns = np.array([12, 1, 5])
    got = evpsim.get_estimator("naive").estimates(samples, ns)
    want = [[xs[:n].max() for n in ns] for xs in samples]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("spec", ["normal", "tang-small", "discrete"])
def test_naive_is_unbiased_and_its_variance_is_exact(spec):
    """Over simulated searches, naive's mean is within a few SE of theta_n (its exact
    bias is 0) and its variance within a few SE of the exact variance of the best of n."""
    truth = evpsim.Discrete([0.1, 0.4, 0.45, 0.9], [0.3, 0.1, 0.4, 0.2]) \
        if spec == "discrete" else evpsim.make_truth(spec)
    R, B = 100_000, 20
    ns = np.array([1, 2, 7, 20])
    samples = truth.sample(R * B, seed=11).reshape(R, B)
    est = evpsim.get_estimator("naive").estimates(samples, ns)
    means, variances = max_moments(truth, ns)
    np.testing.assert_array_equal(means, truth.theta(ns))  # exact bias 0
    dev = est - means
    mean_se = np.sqrt(variances / R)
    assert np.all(np.abs(dev.mean(axis=0)) < 5 * mean_se), (dev.mean(axis=0), mean_se)
    var_mc = np.var(est, axis=0, ddof=1)
    var_se = np.sqrt((np.mean((dev - dev.mean(axis=0)) ** 4, axis=0) - var_mc ** 2) / R)
    assert np.all(np.abs(var_mc - variances) < 5 * var_se), (var_mc, variances, var_se)


# --- exact moments of the best of n --------------------------------------------------------

def test_max_moments_equal_enumeration_in_exact_arithmetic():
    support = [Fraction(1, 10), Fraction(2, 5), Fraction(9, 20), Fraction(9, 10)]
    pmf = [Fraction(3, 10), Fraction(1, 10), Fraction(2, 5), Fraction(1, 5)]
    truth = evpsim.Discrete([float(s) for s in support], [float(p) for p in pmf])
    ns = [1, 2, 3, 4, 5]
    means, variances = max_moments(truth, ns)
    for k, n in enumerate(ns):
        m1 = m2 = Fraction(0)
        for idx in itertools.product(range(len(support)), repeat=n):
            p = Fraction(1)
            for i in idx:
                p *= pmf[i]
            best = max(support[i] for i in idx)
            m1 += p * best
            m2 += p * best * best
        assert means[k] == pytest.approx(float(m1), abs=1e-15)
        assert variances[k] == pytest.approx(float(m2 - m1 * m1), abs=1e-15)


@pytest.mark.parametrize("spec", ["normal", "tang-big", "bag"])
def test_max_moments_equal_the_top_order_statistic_of_n(spec):
    """Var(max of n) is Cov(X_(n:n), X_(n:n)) of the order-statistic moments."""
    truth = evpsim.make_truth(spec)
    ns = [1, 2, 9, 30]
    means, variances = max_moments(truth, ns)
    for k, n in enumerate(ns):
        mu, sigma = order_statistic_moments(truth, n)
        assert means[k] == pytest.approx(mu[-1], abs=1e-13)
        assert variances[k] == pytest.approx(sigma[-1, -1], abs=1e-13)


def test_max_moments_of_the_truncated_normal_hold_under_a_finer_rule():
    ns = [1, 3, 50, 1000, 10**6]
    for args in ((0.6, 0.07, 0.0, 1.0), (0.25, 0.2, 0.0, 0.75)):
        coarse = max_moments(evpsim.TruncatedNormal(*args), ns)
        fine = max_moments(evpsim.TruncatedNormal(*args, panels=48, order=12), ns)
        np.testing.assert_allclose(coarse[0], fine[0], rtol=0, atol=1e-11)
        np.testing.assert_allclose(coarse[1], fine[1], rtol=0, atol=1e-11)


def test_max_moments_monte_carlo_for_the_truncated_normal():
    truth = evpsim.make_truth("normal")
    R, n = 200_000, 10
    best = truth.sample(R * n, seed=5).reshape(R, n).max(axis=1)
    (mean,), (var,) = max_moments(truth, [n])
    assert abs(best.mean() - mean) < 5 * np.sqrt(var / R)
    var_se = np.sqrt((np.mean((best - best.mean()) ** 4) - var ** 2) / R)
    assert abs(best.var(ddof=1) - var) < 5 * var_se


def test_max_moments_refuse_bad_budgets():
    with pytest.raises(TypeError, match="ns must be budgets"):
        max_moments("normal", None)
    with pytest.raises(ValueError, match="every n must be at least 1, got 0"):
        max_moments("normal", [0, 3])


# --- the quantile plug-in against opda -----------------------------------------------------

def test_quantile_equals_opdas_empirical_quantile_tuning_curve():
    """Equal to 1e-12 but where ``q**(1/n)`` is exactly a step ``k/B`` of the ECDF of a
    sample with ties: there opda's CDF, cumulated over the distinct scores, rounds
    otherwise than the L-statistic's (which cannot see the ties), and either of the
    two order statistics the step lies between may come out (both are q-quantiles)."""
    opda = pytest.importorskip("opda.nonparametric")
    steps = 0
    for k, xs in enumerate(samples_with_and_without_ties(3, 200)):
        q = (0.05, 0.25, 0.5, 0.8, 0.95)[k % 5]
        ns = np.array([1, 2, 3, xs.size, 2 * xs.size, 1000])
        got = evpsim.estimate(xs, "quantile", ns, curve=f"quantile:{q}")
        want = opda.EmpiricalDistribution(xs).quantile_tuning_curve(ns, q=q)
        at = q ** (1.0 / ns) * xs.size
        on_step = (np.abs(at - np.round(at)) < 1e-9) & (np.unique(xs).size < xs.size)
        np.testing.assert_allclose(got[~on_step], want[~on_step], rtol=0, atol=1e-12)
        ordered = np.sort(xs)
        for g, w, j in zip(got[on_step], want[on_step], np.round(at[on_step]).astype(int)):
            assert {g, w} <= {ordered[j - 1], ordered[j]}
            steps += g != w
    assert steps == 2  # the exception is rare: 2 budgets of 1,200 here


# --- kde -----------------------------------------------------------------------------------

def by_hand(xs, ns, curve, bounds=None):
    """The estimate as a user would compute it: fit, load, take the curve."""
    truth = load_kde(fit_kde_cv(xs, construction="centered", bounds=bounds))
    return as_target(curve).exact(truth, ns)


@pytest.mark.parametrize("curve", ["mean", "median", "quantile:0.8"])
def test_kde_equals_fitting_the_kde_by_hand(curve):
    rng = np.random.default_rng(4)
    ns = np.array([1, 5, 30, 100, 5000])
    for bounds in (None, (0.0, 1.0)):
        xs = rng.beta(6, 3, size=30)
        got = evpsim.estimate(xs, "kde", ns, curve=curve, bounds=bounds)
        np.testing.assert_array_equal(got, by_hand(xs, ns, curve, bounds))
        assert np.all(np.diff(got) >= 0)


def test_kde_of_tied_scores_uses_the_normal_reference_rule():
    xs = np.array([0.5] * 10 + [0.6] * 10 + [0.7] * 10)
    assert fit_kde_cv(xs).attrs["bandwidth_rule"] == CV_FALLBACK
    ns = np.array([1, 30])
    want = load_kde(fit_kde(xs, bandwidth="normal-reference", construction="centered")) \
        .theta(ns)
    np.testing.assert_array_equal(evpsim.estimate(xs, "kde", ns), want)


def test_kde_of_a_sample_it_cannot_fit_is_nan_and_the_others_are_kept():
    samples = np.array([[0.5, 0.5, 0.5, 0.5], [0.6, 0.7, 0.65, 0.8]])
    ns = np.array([1, 4])
    got = evpsim.get_estimator("kde").estimates(samples, ns, Context(MEAN, (0.0, 1.0)))
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got[1], by_hand(samples[1], ns, "mean", (0.0, 1.0)))


def test_kde_estimates_the_median_curve_beyond_the_trials_run():
    xs = np.random.default_rng(8).beta(6, 3, size=12)
    got = evpsim.estimate(xs, "kde", ns=[1, 10, 100], curve="median", bounds=(0, 1))
    np.testing.assert_array_equal(got, by_hand(xs, [1, 10, 100], "median", (0, 1)))
    assert got[0] < got[1] < got[2] <= 1.0


def test_the_leave_one_out_cutoff_leaves_every_sum_as_the_full_one():
    """The kernel stops each row where its terms are exactly 0: even at bandwidths
    where most terms underflow, the likelihood equals the full logsumexp."""
    xs = np.random.default_rng(9).normal(0.7, 0.05, 80)
    hs = np.geomspace(1e-4, 1.0, 9)
    d = xs[:, None] - xs[None, :]
    np.fill_diagonal(d, np.inf)
    full = [np.sum(logsumexp(-0.5 * (d / h) ** 2, axis=1)) for h in hs]
    full = np.array(full) - xs.size * (np.log(hs) + 0.5 * np.log(2 * np.pi)
                                       + np.log(xs.size - 1))
    np.testing.assert_allclose(loo_log_likelihood(xs, hs), full, rtol=1e-12)


# --- opda-parametric -----------------------------------------------------------------------

def opda_directly(xs, ns):
    """opda's mean and median curves of its noisy-quadratic fit to ``xs`` (one fit)."""
    from opda.parametric import NoisyQuadraticDistribution

    dist = NoisyQuadraticDistribution.fit(xs, constraints={"convex": False},
                                          generator=np.random.default_rng(0))
    return {"mean": dist.average_tuning_curve(ns),
            "median": dist.quantile_tuning_curve(ns, q=0.5)}


def test_opda_parametric_equals_opda_called_directly():
    pytest.importorskip("opda.parametric")
    xs = np.random.default_rng(12).beta(6, 3, size=20)
    ns = np.array([1, 5, 20, 100])
    np.testing.assert_array_equal(evpsim.estimate(xs, "opda-parametric", ns),
                                  opda_directly(xs, ns)["mean"])


@pytest.mark.slow
def test_opda_parametric_equals_opda_on_searches_of_fifty():
    pytest.importorskip("opda.parametric")
    truth = evpsim.make_truth("normal")
    ns = np.array([1, 10, 50, 200])
    samples = truth.sample(3 * 50, seed=13).reshape(3, 50)
    want = [opda_directly(xs, ns) for xs in samples]
    for curve in ("mean", "median"):
        got = evpsim.get_estimator("opda-parametric").estimates(
            samples, ns, Context(as_target(curve)))
        np.testing.assert_array_equal(got, [w[curve] for w in want])


class _Fitted:
    """A stand-in for opda's fit: its curves are the sample's mean, or infinite."""

    def __init__(self, level):
        self.level = level

    def average_tuning_curve(self, ns):
        return np.full(len(ns), self.level)

    def quantile_tuning_curve(self, ns, q):
        return np.full(len(ns), self.level)


def test_opda_parametric_failures_are_nan_not_exceptions(monkeypatch):
    parametric = pytest.importorskip("opda.parametric")

    def fit(ys, constraints, generator):
        if ys[0] < 0.2:
            raise RuntimeError("the optimiser failed")
        return _Fitted(np.inf if ys[0] > 0.8 else float(np.mean(ys)))

    monkeypatch.setattr(parametric.NoisyQuadraticDistribution, "fit", fit)
    samples = np.array([[0.5, 0.6, 0.7], [0.1, 0.6, 0.7], [0.9, 0.6, 0.7], [0.4, 0.6, 0.5]])
    ns = np.array([1, 10])
    got = evpsim.get_estimator("opda-parametric").estimates(samples, ns)
    np.testing.assert_array_equal(got, [[0.6, 0.6], [np.nan] * 2, [np.nan] * 2, [0.5, 0.5]])


def test_opda_parametric_of_a_sample_opda_refuses_is_nan():
    pytest.importorskip("opda.parametric")
    got = evpsim.get_estimator("opda-parametric").estimates(
        np.array([[0.5, np.nan, 0.6, 0.7]]), np.array([1, 2]))
    assert np.isnan(got).all()


def test_opda_parametric_without_opda_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "opda.parametric", None)  # import raises ImportError
    with pytest.raises(ImportError, match=r"the estimator opda-parametric needs opda: "
                                          r"pip install \"evpsim-toolkit\[opda\]\""):
        evpsim.estimate([0.5, 0.6, 0.7], "opda-parametric")
    assert OPDA_EXTRA == 'pip install "evpsim-toolkit[opda]"'
