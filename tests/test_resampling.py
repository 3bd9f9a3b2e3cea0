"""CI methods of kind "resampling": their tail models, kernels, and use in the batteries."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import evpsim
from evpsim import procedures as P
from evpsim._kernels import resampling as R
from evpsim._kernels import subsample as S
from evpsim._kernels import tails as T
from evpsim.estimators import resolve_estimators
from evpsim.engine.summaries import clopper_pearson
from evpsim.estimators.weights import weights_v
from conftest import outputs_by_thread_count

NEW = "studentized,smoothed,gpd-tail,m-out-of-n"
LEVEL = 1 - 1e-6  # Clopper-Pearson level of the statistical assertions


# --- the generalized Pareto tail ------------------------------------------------------

@pytest.mark.parametrize("xi", [-0.8, -0.3, 0.2])
def test_zhang_stephens_recovers_the_shape_and_scale(xi):
    """Over 300 fits of 400 GPD(xi, 2) excesses the mean estimates lie within 4 standard
    errors of the truth, give or take the estimator's bias (about a quarter of its SD at
    this size: 0.015 in xi, 0.03 in sigma)."""
    fits = np.array([T.zhang_stephens(np.sort(stats.genpareto.rvs(
        xi, scale=2.0, size=400, random_state=seed)), 400) for seed in range(300)])
    se = fits.std(axis=0, ddof=1) / math.sqrt(300)
    assert abs(fits[:, 0].mean() - xi) < 4 * se[0] + 0.015
    assert abs(fits[:, 1].mean() - 2.0) < 4 * se[1] + 0.03


def test_zhang_stephens_on_ties_and_zeros():
    assert T.zhang_stephens(np.zeros(6), 6) == (0.0, 0.0)
    xi, sigma = T.zhang_stephens(np.array([0.0, 0.0, 0.0, 0.1, 0.1, 0.3]), 6)
    assert np.isfinite(xi) and sigma > 0


def test_fit_tail_keeps_the_shape_in_range():
    xs = np.concatenate([np.linspace(0, 1, 40), [1.0, 1.0, 1.0, 1.0, 9.0]])
    ys = np.empty(xs.size)
    xi, sigma = T.fit_tail(xs, 5, ys)
    assert T.XI_LOW <= xi <= T.XI_HIGH
    # moved to the end of the range, the fit keeps the excesses' mean
    if xi == T.XI_HIGH:
        assert sigma / (1 - xi) == pytest.approx(ys[:5].mean())


def test_gpd_max_moments_match_quadrature():
    m1, m2 = np.empty(31), np.empty(31)
    for xi in (-1.0, -0.4, 1e-6, 0.3):
        T.gpd_max_moments(xi, 30, m1, m2)
        for j in (1, 2, 7, 30):
            dist = stats.genpareto(xi)
            # the largest of j: density j G^(j-1) g
            f = lambda z, p: z ** p * j * dist.cdf(z) ** (j - 1) * dist.pdf(z)  # noqa: E731
            top = np.inf if xi > 0 else dist.ppf(1.0)
            assert m1[j] == pytest.approx(integrate.quad(f, 0, top, args=(1,), limit=200)[0],
                                          rel=1e-7)
            assert m2[j] == pytest.approx(integrate.quad(f, 0, top, args=(2,), limit=200)[0],
                                          rel=1e-6)


@pytest.mark.parametrize("xi", [-1.0, -0.7, -0.3, -1e-6, 0.0, 1e-9, 1e-6, 1e-3, 0.3, 0.45])
def test_gpd_max_moments_are_the_gamma_ratios_exactly(xi):
    """``E[Z_j] = (A_j - 1) / xi`` and ``E[Z_j^2] = (A2_j - 2 A_j + 1) / xi^2``, ``A_j =
    prod_{i <= j} i / (i - xi)`` (A2 with 2 xi), in rational arithmetic at the double
    xi (at xi = 0 their limits, the harmonic numbers and twice the sums of H_i / i):
    within 2e-14 relative up to j = 300, near xi = 0 as well (the recurrences cancel
    nothing)."""
    from fractions import Fraction

    J = 300
    m1, m2 = np.empty(J + 1), np.empty(J + 1)
    T.gpd_max_moments(xi, J, m1, m2)
    x = Fraction(xi)
    a = a2 = Fraction(1)
    h = h2 = Fraction(0)
    for j in range(1, J + 1):
        if x == 0:
            h += Fraction(1, j)
            h2 += h / j
            e1, e2 = h, 2 * h2
        else:
            a *= j / (j - x)
            a2 *= j / (j - 2 * x)
            e1, e2 = (a - 1) / x, (a2 - 2 * a + 1) / (x * x)
        if j in (1, 2, 3, 7, 30, 100, 300):
            assert abs(Fraction(m1[j]) - e1) <= Fraction(2, 10 ** 14) * e1, j
            assert abs(Fraction(m2[j]) - e2) <= Fraction(2, 10 ** 14) * e2, j


def test_binomial_bands_hold_the_binomial_pmf():
    ns = np.array([1, 3, 50, 400])
    first, count, values, start = T.binomial_bands(ns, 0.17)
    for a, n in enumerate(ns):
        js = np.arange(first[a], first[a] + count[a])
        np.testing.assert_allclose(values[start[a]:start[a + 1]], stats.binom.pmf(js, n, 0.17),
                                   rtol=1e-11)
        assert values[start[a]:start[a + 1]].sum() == pytest.approx(1 - 0.83 ** n, abs=1e-12)


@pytest.mark.parametrize("ns", [np.arange(1, 146), np.array([1, 3, 50, 400]),
                                np.array([40, 2, 7, 1, 300])])
@pytest.mark.parametrize("p", [0.03, 0.2, 0.5, 0.9])
def test_band_sums_add_along_each_band_to_the_bit(ns, p):
    """Sums over the bands laid out by j (:func:`band_columns`, :func:`band_sums`) equal
    the sums along each budget's band term by term, bit for bit: budgets ascending,
    sparse (j in no band) and unordered (a budget in a column's range whose band misses
    its j); the columns hold every probability of the bands once."""
    first, count, values, start = T.binomial_bands(ns, p)
    cols = T.band_columns(ns, p)
    lo, rows, cvalues, cstart = cols
    assert lo == first.min() and lo + rows.shape[1] == (first + count).max()
    assert np.count_nonzero(cvalues) == np.count_nonzero(values)
    assert cvalues.sum() == pytest.approx(values.sum(), rel=1e-14)
    x, y = np.random.default_rng(6).normal(size=(2, ns.max() + 1))
    along_x, along_y = np.zeros(ns.size), np.zeros(ns.size)
    for a in range(ns.size):
        for t in range(count[a]):
            along_x[a] += values[start[a] + t] * x[first[a] + t]
            along_y[a] += values[start[a] + t] * y[first[a] + t]
    got_x, got_y, both_x, both_y = (np.zeros(ns.size) for _ in range(4))
    T.band_sums(cols, x, got_x)
    T.band_sums(cols, y, got_y)
    T.band_sums2(cols, x, y, both_x, both_y)
    for got in (got_x, both_x):
        assert np.array_equal(got, along_x)
    for got in (got_y, both_y):
        assert np.array_equal(got, along_y)


def _semiparametric_cdf(xs, k, xi, sigma):
    B = xs.size
    u = xs[B - k - 1]

    def cdf(x):
        if x < u:
            return np.searchsorted(xs[:B - k], x, side="right") / B
        return (B - k) / B + k / B * stats.genpareto.cdf(x - u, xi, scale=sigma)
    return cdf


def test_semiparametric_moments_equal_the_integral_of_the_model():
    """theta_n = top - int F^n and E[M^2] from the model's CDF, by quadrature."""
    rng = np.random.default_rng(3)
    xs = np.sort(rng.normal(0.6, 0.07, 40))
    ns = np.array([1, 2, 10, 40, 80])
    k, xi, sigma = 9, -0.35, 0.03
    mean, sd = np.empty(ns.size), np.empty(ns.size)
    m1, m2 = np.empty(81), np.empty(81)
    T.semiparametric_moments(xs, k, xi, sigma, np.ascontiguousarray(weights_v(40, ns).T),
                             np.full(40, ns.size), T.band_columns(ns, k / 40), m1, m2, mean,
                             sd)
    cdf = _semiparametric_cdf(xs, k, xi, sigma)
    top = xs[40 - k - 1] + sigma / -xi
    lo = xs[0]
    points = list(xs)
    for a, n in enumerate(ns):
        # the scores are positive: E[M] = top - int_lo^top F^n + 0, E[M^2] = int 2x (1 - F^n)
        theta = top - integrate.quad(lambda x: cdf(x) ** n, lo, top, points=points,
                                     limit=400)[0]
        second = lo ** 2 + integrate.quad(lambda x: 2 * x * (1 - cdf(x) ** n), lo, top,
                                          points=points, limit=400)[0]
        assert mean[a] == pytest.approx(theta, abs=1e-9)
        assert sd[a] == pytest.approx(math.sqrt(second - theta ** 2), rel=1e-6)


def test_draws_follow_the_semiparametric_model():
    """700 samples of 30, each ascending; pooled, their ECDF lies within the DKW band
    (level 1 - 1e-6) of the model's CDF."""
    xs = np.sort(np.random.default_rng(4).normal(size=30))
    st, counts, out = R.rng_init(5, 0), np.empty(30, dtype=np.int64), np.empty(30)
    pooled = []
    for _ in range(700):
        T.draw_semiparametric(st, xs, 8, -0.2, 0.5, counts, out)
        assert np.all(np.diff(out) >= 0)
        pooled.append(out.copy())
    pooled = np.sort(np.concatenate(pooled))
    cdf = _semiparametric_cdf(xs, 8, -0.2, 0.5)
    grid = np.linspace(xs[0], xs[-1] + 1.5, 60)
    ecdf = np.searchsorted(pooled, grid, side="right") / pooled.size
    assert np.max(np.abs(ecdf - [cdf(g) for g in grid])) < math.sqrt(
        math.log(2 / 1e-6) / (2 * pooled.size))


def test_tail_threshold_lies_in_its_range_and_skips_tied_tops():
    rng = np.random.default_rng(6)
    ys = np.empty(100)
    for B in (10, 25, 100):
        k = T.tail_threshold(np.sort(rng.normal(size=B)), ys)
        assert T.K_MIN <= k <= min(B // 2, T.K_MAX)
    tied = np.concatenate([np.sort(rng.normal(size=20)), np.full(8, 5.0)])
    assert T.tail_threshold(tied, ys) >= 8  # k <= 7 leaves only tied excesses


# --- the adaptive kernel mixture ------------------------------------------------------

def test_adaptive_bandwidths_follow_abramson():
    xs = np.sort(np.random.default_rng(7).gamma(2.0, size=60))
    h = np.empty(60)
    T.adaptive_bandwidths(xs, h)
    iqr = np.subtract(*np.quantile(xs, [0.75, 0.25]))
    h0 = 0.9 * min(xs.std(ddof=1), iqr / 1.349) * 60 ** -0.2
    pilot = stats.norm.pdf((xs[:, None] - xs[None, :]) / h0).mean(axis=1) / h0
    np.testing.assert_allclose(h, h0 * np.sqrt(stats.gmean(pilot) / pilot), rtol=1e-12)
    assert h[-1] > np.median(h)  # the isolated top gets a wide kernel
    T.adaptive_bandwidths(np.ones(5), h[:5])
    assert np.all(h[:5] == 0)


def test_mixture_theta_is_the_mixtures_expected_maximum():
    xs = np.array([0.2, 0.5, 0.55, 0.9])
    h = np.array([0.05, 0.02, 0.03, 0.1])
    ns = np.array([1, 3, 20])
    out = np.empty(3)
    T.mixture_theta(xs, h, ns, out)
    cdf = lambda x: stats.norm.cdf((x - xs) / h).mean()  # noqa: E731
    for a, n in enumerate(ns):
        # F is 0 below -1 and 1 above 2 to 1e-20: E[max] = 2 - int_{-1}^2 F^n
        ref = 2.0 - integrate.quad(lambda x: cdf(x) ** n, -1, 2, points=list(xs), limit=400)[0]
        assert out[a] == pytest.approx(ref, abs=1e-9)
    T.mixture_theta(np.full(3, 0.7), np.zeros(3), ns, out)
    assert np.all(out == 0.7)


# --- m out of n ------------------------------------------------------------------------

def test_sizes_and_rate():
    assert S.sizes(50).tolist() == [50, 38, 29, 22, 16, 12, 9]
    assert S.sizes(3).tolist() == [3]
    ms = np.array([100, 50, 25, 12])
    assert S.rate_exponent(ms, 3.0 * ms ** -0.8) == pytest.approx(0.8)
    assert S.rate_exponent(ms, np.zeros(4)) == 0.5
    assert S.rate_exponent(ms, ms ** 5.0) == 0.0


@pytest.mark.parametrize("sizes", [(50, 50), (7, 300), (300, 7)])
def test_ks_distance_equals_scipy(sizes):
    rng = np.random.default_rng(sum(sizes))
    a = np.sort(rng.integers(0, 6, sizes[0]).astype(float))
    b = np.sort(rng.normal(2, 2, sizes[1]).round())
    assert S.ks_distance(a, b) == pytest.approx(stats.ks_2samp(a, b).statistic, abs=1e-15)


def test_interpolated_weights_are_exact_at_integer_budgets():
    ests = resolve_estimators("U,V")
    got = P._interpolated(ests, 9, np.array([1.0, 3.0, 3.5, 9.0]))
    np.testing.assert_allclose(got[5], weights_v(9, [3]).ravel())
    np.testing.assert_allclose(got[6], 0.5 * weights_v(9, [3, 4]).sum(axis=0))
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


# --- the methods -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample():
    return np.sort(evpsim.make_truth("normal").sample(40, seed=11))


def test_threaded_intervals_equal_the_kernels_own(sample):
    ests = resolve_estimators("U,V")
    codes = [R.STUDENTIZED, R.SMOOTHED, R.GPD_TAIL, R.M_OUT_OF_N]
    tabs = P.tables(ests, 40, np.arange(1, 41), codes)
    one = np.empty((4, 80, 2))
    R.sample_intervals(R.rng_init(3, 7), sample, tabs, np.array(codes), 300, 0.9, -np.inf,
                       np.inf, one)
    assert np.array_equal(one, P.sample_intervals(sample, tabs, codes, 300, 0.9, 3, 7))
    # a method's intervals do not depend on the others run beside it
    alone = P.sample_intervals(sample, tabs, [R.GPD_TAIL], 300, 0.9, 3, 7)
    assert np.array_equal(alone[0], one[2])


def test_bootstrap_intervals_of_resampling_methods(sample):
    ds = evpsim.bootstrap_intervals(sample, "U,V", ci_methods=NEW, resamples=400, seed=2,
                                    bounds=(0, 1))
    lo, hi = ds["lower"], ds["upper"]
    assert bool((lo <= hi).all()) and bool((lo >= 0).all()) and bool((hi <= 1).all())
    # the tail methods reach beyond the sample maximum at n = B, as no bootstrap can
    top = ds.sel(n=40, estimator="V")["upper"]
    assert float(top.sel(ci_method="gpd-tail")) > sample[-1]
    assert float(top.sel(ci_method="smoothed")) > sample[-1]
    # cut to the bounds
    tight = evpsim.bootstrap_intervals(sample, "V", ci_methods="gpd-tail", resamples=400,
                                       seed=2, bounds=(0, sample[-1]))
    assert float(tight["upper"].max()) == sample[-1]


def test_coverage_counts_do_not_depend_on_chunking_methods_or_budgets():
    args = dict(truth="tang-small", B=20, estimators="V", replicates=24, resamples=200, seed=4)
    full = evpsim.coverage(**args, ci_methods=NEW, chunk_size=5)
    part = evpsim.coverage(**args, ci_methods="m-out-of-n,gpd-tail", chunk_size=8,
                           ns=[3, 20, 37])
    for m in ("m-out-of-n", "gpd-tail"):
        a = full["coverage"].sel(ci_method=m, n=[3, 20])
        assert np.array_equal(a.values, part["coverage"].sel(ci_method=m, n=[3, 20]).values)
    assert int(part["n"].max()) == 37  # beyond B for V


def test_coverage_is_bit_identical_for_thread_counts():
    script = ("import evpsim, hashlib; ds = evpsim.coverage('normal', 12, estimators='U,V', "
              f"ci_methods='{NEW}', replicates=10, resamples=100); "
              "print(hashlib.sha256(ds['mean_width'].values.tobytes()).hexdigest())")
    assert len(outputs_by_thread_count(script)) == 1


def test_resampling_methods_cover_a_smooth_functional_near_nominal():
    """At n = 1 (the mean) of the truncated normal every method is consistent: the
    Clopper-Pearson bounds (level 1 - 1e-6) of its coverage at M = 600 reach 0.92 and
    0.98."""
    ds = evpsim.coverage("normal", 40, estimators="V", ci_methods=NEW, replicates=600,
                         resamples=500, ns=[1], seed=9)
    hits = np.round(ds["coverage"].sel(n=1, estimator="V").values * 600).astype(int)
    lower, upper = clopper_pearson(hits, 600, LEVEL)
    assert np.all(upper >= 0.92) and np.all(lower <= 0.98), dict(zip(ds["ci_method"].values,
                                                                     hits))


def test_defaults_leave_resampling_methods_out():
    assert "gpd-tail" not in evpsim.coverage("normal", 5, replicates=4, resamples=10)["ci_method"]
    meths = evpsim.list_ci_methods()
    assert all(m in meths for m in NEW.split(","))
    assert evpsim.intervals.get_ci_method("gpd-tail").assumes


@pytest.mark.parametrize("call, message", [
    (lambda: evpsim.coverage("normal", 20, ci_methods="gpd-tail", curve="median",
                             estimators="quantile", replicates=4),
     "gpd-tail bound the mean curve only"),
    (lambda: evpsim.coverage("normal", 9, ci_methods="gpd-tail", replicates=4),
     "gpd-tail needs B >= 10, got B = 9"),
    (lambda: evpsim.bootstrap_intervals(np.arange(8.0), ci_methods="smoothed,gpd-tail"),
     "gpd-tail needs B >= 10, got B = 8"),
])
def test_refusals(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bootstrap_intervals_at_chosen_budgets_equal_the_full_run(sample):
    methods = "percentile,bca,ld-equal-tailed,gpd-tail,m-out-of-n"
    full = evpsim.bootstrap_intervals(sample, "U,V", ci_methods=methods, resamples=300,
                                      bounds=(0, 1))
    some = evpsim.bootstrap_intervals(sample, "V", ci_methods=methods, resamples=300,
                                      bounds=(0, 1), ns=[40, 2, 7, 80])
    assert some["n"].values.tolist() == [2, 7, 40, 80]
    for var in ("lower", "upper", "estimate"):
        np.testing.assert_array_equal(some[var].sel(n=[2, 7, 40]).values,
                                      full[var].sel(estimator=["V"], n=[2, 7, 40]).values)
    assert float(some["upper"].sel(estimator="V", n=80, ci_method="gpd-tail")) > sample[-1]
    with pytest.raises(ValueError, match="U does not estimate beyond the B = 40"):
        evpsim.bootstrap_intervals(sample, "U", ci_methods="percentile", ns=[41])
