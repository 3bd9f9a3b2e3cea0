"""Simultaneous CDF bands: the exact coverage recursion and the LD calibration."""

import math

import numpy as np
import pytest
from scipy import stats

from evpsim._kernels.bands import order_statistic_coverage
from evpsim.bands import ld_band


def _binomial_coverage(lo, hi):
    """The same probability by the binomial recursion (Noe 1972), in plain Python."""
    n = lo.size
    events = sorted([(x, i + 1) for i, x in enumerate(lo)] + [(x, -(i + 1)) for i, x in
                                                               enumerate(hi)])
    p = np.zeros(n + 1)
    p[0], t = 1.0, 0.0
    for s, tag in events + [(1.0, 0)]:
        if s > t:
            pr = (s - t) / (1 - t)
            q = np.zeros(n + 1)
            for j in range(n + 1):
                r = n - j
                q[j:] += p[j] * stats.binom.pmf(np.arange(r + 1), r, pr)
            p, t = q, s
        if tag > 0:
            p[tag:] = 0.0
        elif tag < 0:
            p[:-tag] = 0.0
    return p[n]


def _random_bounds(rng, n):
    lo = np.maximum.accumulate(np.sort(rng.uniform(0, 0.6, n)) * np.linspace(0.2, 1, n))
    hi = np.minimum(1.0, np.maximum.accumulate(lo + rng.uniform(0.2, 0.5, n)))
    return lo, hi


@pytest.mark.parametrize("n, seed", [(1, 0), (2, 1), (7, 2), (15, 3), (40, 4)])
def test_poisson_walk_equals_the_binomial_recursion(n, seed):
    lo, hi = _random_bounds(np.random.default_rng(seed), n)
    assert order_statistic_coverage(lo, hi) == pytest.approx(_binomial_coverage(lo, hi),
                                                             rel=1e-12, abs=1e-15)


def test_coverage_agrees_with_simulated_uniforms():
    rng = np.random.default_rng(7)
    lo, hi = _random_bounds(rng, 6)
    M = 400_000
    us = np.sort(rng.random((M, 6)), axis=1)
    p_mc = ((us >= lo) & (us <= hi)).all(axis=1).mean()
    exact = order_statistic_coverage(lo, hi)
    assert abs(p_mc - exact) < 4 * math.sqrt(exact * (1 - exact) / M)


@pytest.mark.parametrize("n", [5, 20, 100])
def test_ks_band_covers_exactly_its_level(n):
    """scipy's kstwo is exact for these n: the recursion must reproduce it."""
    d = stats.kstwo(n).ppf(0.9)
    i = np.arange(1, n + 1)
    lo, hi = np.clip(i / n - d, 0, 1), np.clip((i - 1) / n + d, 0, 1)
    assert order_statistic_coverage(lo, hi) == pytest.approx(stats.kstwo(n).cdf(d), abs=1e-12)


@pytest.mark.parametrize("kind", ["equal-tailed", "highest-density"])
@pytest.mark.parametrize("B, level", [(2, 0.95), (10, 0.9), (50, 0.95), (120, 0.99)])
def test_ld_bands_cover_exactly_their_level(kind, B, level):
    lower, upper = ld_band(B, level, kind)
    assert lower.shape == upper.shape == (B + 1,)
    assert lower[0] == 0.0 and upper[-1] == 1.0
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) >= 0)
    assert np.all(lower[1:] <= upper[:-1])
    assert order_statistic_coverage(lower[1:], upper[:-1]) == pytest.approx(level, abs=1e-10)


def test_ld_bands_are_narrower_than_ks_at_the_ends():
    from evpsim.bands import ks_band

    for kind in ("equal-tailed", "highest-density"):
        lower, upper = ld_band(50, 0.95, kind)
        ks_lower, ks_upper = ks_band(50, 0.95)
        assert upper[0] < ks_upper[0] and lower[-1] > ks_lower[-1]


def test_highest_density_intervals_are_the_shortest():
    """At one pointwise level, HDI intervals are no wider than equal-tailed ones."""
    from evpsim.bands import _pointwise

    et = _pointwise(30, 0.99, "equal-tailed")
    hd = _pointwise(30, 0.99, "highest-density")
    assert np.all(hd[1] - hd[0] <= et[1] - et[0] + 1e-12)
    a = np.arange(1, 31)
    covered = stats.beta.cdf(hd[1], a, 31 - a) - stats.beta.cdf(hd[0], a, 31 - a)
    np.testing.assert_allclose(covered, 0.99, atol=1e-10)
