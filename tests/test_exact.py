"""Exact order-statistic moments against independent computations."""

import itertools

import numpy as np
import pytest
from scipy import integrate, stats

import evpsim
from evpsim._kernels import orderstats as K
from evpsim.truths.exact import order_statistic_means, order_statistic_moments


def _scipy_truncnorm(truth):
    """scipy's truncated normal with the parameters of ``truth``: an independent reference."""
    return stats.truncnorm(truth.a, truth.b, loc=truth.mu, scale=truth.sigma)


def enumerate_moments(support, pmf, B):
    """Order-statistic moments by listing every B-tuple (tiny cases only)."""
    mu = np.zeros(B)
    second = np.zeros((B, B))
    for idx in itertools.product(range(len(support)), repeat=B):
        p = np.prod([pmf[i] for i in idx])
        xs = np.sort([support[i] for i in idx])
        mu += p * xs
        second += p * np.outer(xs, xs)
    return mu, second - np.outer(mu, mu)


def test_discrete_moments_equal_enumeration():
    support, pmf = [0.1, 0.4, 0.45, 0.9], [0.3, 0.1, 0.4, 0.2]
    B = 5
    mu, sigma = order_statistic_moments(evpsim.Discrete(support, pmf), B)
    mu_e, sigma_e = enumerate_moments(support, pmf, B)
    np.testing.assert_allclose(mu, mu_e, atol=1e-14)
    np.testing.assert_allclose(sigma, sigma_e, atol=1e-14)


def test_chain_and_pair_sums_agree():
    """The Markov-chain walk equals the explicit sum over node pairs."""
    rng = np.random.default_rng(0)
    truth = evpsim.Discrete(rng.normal(size=40), rng.random(40))
    q = truth.quadrature()
    B = 9
    chain = K.order_stat_chain_sums(B, q.h, q.F, q.S)
    ki, li = np.triu_indices(q.F.size)
    w = q.h[ki] * q.h[li] * np.where(ki == li, 0.5, 1.0)
    pairs = np.zeros((B, B))
    K.order_stat_pair_block(B, q.F[ki], q.S[ki], q.F[li], q.S[li], w, 0, w.size, pairs)
    np.testing.assert_allclose(chain, pairs, atol=1e-14)


def order_stat_moments_by_quad(dist, lo, hi, B, i):
    """E[X_(i)] and Var[X_(i)] from the order statistic's density (scipy quad)."""
    def dens(x):
        F = dist.cdf(x)
        return stats.beta.pdf(F, i, B - i + 1) * dist.pdf(x)

    m1 = integrate.quad(lambda x: x * dens(x), lo, hi, epsabs=1e-14, epsrel=1e-13, limit=400)[0]
    m2 = integrate.quad(lambda x: (x - m1) ** 2 * dens(x), lo, hi, epsabs=1e-15,
                        epsrel=1e-13, limit=400)[0]
    return m1, m2


@pytest.mark.parametrize("spec", ["normal", "tang-small", "tang-big"])
def test_continuous_moments_match_order_statistic_densities(spec):
    truth = evpsim.make_truth(spec)
    B = 30
    mu, sigma = order_statistic_moments(truth, B)
    for i in (1, 7, 15, 29, 30):
        m1, var = order_stat_moments_by_quad(_scipy_truncnorm(truth), truth.lo, truth.hi, B, i)
        assert mu[i - 1] == pytest.approx(m1, abs=1e-10)
        assert sigma[i - 1, i - 1] == pytest.approx(var, abs=1e-10)


@pytest.mark.parametrize("spec", ["normal", "tang-small", "tang-big"])
@pytest.mark.parametrize("B", [30, pytest.param(100, marks=pytest.mark.slow)])
def test_quadrature_has_converged(spec, B):
    """Doubling the panels and nodes changes no estimator moment by 1e-11."""
    ws = [evpsim.estimator_weights(e, B) for e in "UVW"]
    t0 = evpsim.make_truth(spec)
    t1 = evpsim.TruncatedNormal(t0.mu, t0.sigma, t0.lo, t0.hi, panels=48, order=12)
    m0, v0 = evpsim.lstatistic_moments(t0, B, ws)
    m1, v1 = evpsim.lstatistic_moments(t1, B, ws)
    assert np.abs(np.concatenate(m0) - np.concatenate(m1)).max() < 1e-11
    assert np.abs(np.concatenate(v0) - np.concatenate(v1)).max() < 1e-11


@pytest.mark.parametrize("spec", ["normal", "tang-small", "bag"])
def test_u_is_exactly_unbiased(spec):
    ds = evpsim.bias(spec, B=30, method="exact")
    assert float(np.abs(ds["bias"].sel(estimator="U")).max()) < 1e-9


def test_exact_bias_ordering_and_mse_identity():
    """Dodge et al. 2021 Thm 1: Bias(W) <= Bias(V) <= Bias(U) = 0."""
    ds = evpsim.bias("normal", B=30, method="exact")
    b = ds["bias"]
    assert np.all(b.sel(estimator="W") <= b.sel(estimator="V") + 1e-15)
    assert np.all(b.sel(estimator="V") <= b.sel(estimator="U") + 1e-15)
    np.testing.assert_allclose(ds["mse"], ds["variance"] + ds["bias"] ** 2, rtol=1e-12)
    # at n = 1 every estimator is the sample mean: variance sigma^2 / B
    truth = evpsim.make_truth("normal")
    np.testing.assert_allclose(ds["variance"].sel(n=1), _scipy_truncnorm(truth).var() / 30,
                               rtol=1e-10)


@pytest.mark.parametrize("spec", ["normal", "tang-big", "kde:reuters-lstm", "bag"])
def test_means_alone_equal_the_moments_means(spec):
    for B in (1, 7, 60):
        assert np.array_equal(order_statistic_means(spec, B), order_statistic_moments(spec, B)[0])
    with pytest.raises(ValueError, match="B must be a positive integer, got 0"):
        order_statistic_means(spec, 0)


def test_order_statistic_moments_rejects_bad_B():
    with pytest.raises(ValueError, match="positive integer"):
        order_statistic_moments(evpsim.make_truth("normal"), 0)
