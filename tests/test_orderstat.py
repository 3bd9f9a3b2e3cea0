"""The order-statistic CI method: exact binomial intervals for a quantile curve.

* its ranks against a direct binomial search, its exact coverage for a
  continuous F against the coverage study's (normal truth, B = 25 and 50),
  and at least it on a discretized KDE (ties only widen the interval);
* its ends are the sample's order statistics, a fitted tail's upper end
  (at least the best score) only where none reaches far enough, which
  ``curve``'s header says with the first such n;
* ``curve --curve median`` uses it by default, the mean curve keeps its own default;
  what it cannot do is refused or said.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

import evpsim
from evpsim.estimators.targets import MEAN, as_target
from evpsim.intervals.family import CURVE_CI_METHOD, curve_ci_method
from evpsim.intervals.orderstat import binomial_coverage, ranks

LEVEL = 0.95
ALPHA = 0.5 * (1.0 - LEVEL)
#: standard errors of tolerance on a coverage rate: a two-sided chance of about 7e-6
#: per cell
Z = 4.5


def _brute_ranks(B, p):
    """l and u by a plain search over the binomial tails (every k's at once)."""
    ks = np.arange(B + 1)
    l = int(ks[(ks == 0) | (binom.cdf(ks - 1, B, p) <= ALPHA)].max())
    ups = ks[1:][binom.sf(ks[1:] - 1, B, p) <= ALPHA]
    return l, (int(ups.min()) if ups.size else B + 1)


@pytest.mark.parametrize("B", [2, 7, 25, 50, 200])
@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
def test_ranks_are_the_tightest_with_each_tail_at_most_alpha(B, q):
    ns = np.arange(1, 2 * B + 1)
    ps = q ** (1.0 / ns)
    ls, us = ranks(B, ps, LEVEL)
    for p, l, u in zip(ps, ls, us):
        assert (l, u) == _brute_ranks(B, p)
        cover = binomial_coverage(B, p, l, u)
        if 0 < l and u <= B:
            assert cover >= LEVEL  # the guarantee, for every continuous F
            assert binom.cdf(l - 1, B, p) <= ALPHA and binom.sf(u - 1, B, p) <= ALPHA


def test_median_switches_to_the_tail_where_the_best_score_is_not_high_enough():
    # u > B exactly where p^B > alpha/2, p = 0.5^(1/n): n > B log 2 / log(40)
    for B in (10, 25, 50, 100):
        ns = np.arange(1, B + 1)
        us = ranks(B, 0.5 ** (1.0 / ns), LEVEL)[1]
        first = int(ns[us > B].min())
        assert first == math.floor(B * math.log(2) / math.log(1 / ALPHA)) + 1


def _exact_cells(B):
    """The budgets where both ends are order statistics, and their exact coverage."""
    ns = np.arange(1, B + 1)
    ps = 0.5 ** (1.0 / ns)
    ls, us = ranks(B, ps, LEVEL)
    keep = us <= B
    return ns[keep], binomial_coverage(B, ps[keep], ls[keep], us[keep])


@pytest.mark.parametrize("B", [25, 50])
def test_coverage_study_matches_the_exact_binomial_coverage(B):
    # a continuous truth: the simulated coverage of the order-statistic part is the
    # exact binomial coverage (whatever F), within a few standard errors
    ns, exact = _exact_cells(B)
    R = 4000
    ds = evpsim.coverage("normal", B, estimators="quantile", ci_methods="order-statistic",
                         curve="median", replicates=R, ns=ns, seed=11)
    got = ds["coverage"].sel(ci_method="order-statistic", estimator="quantile").values
    se = np.sqrt(exact * (1 - exact) / R)
    assert np.all(exact >= LEVEL)
    np.testing.assert_array_less(np.abs(got - exact), Z * se)


@pytest.mark.parametrize("B", [25, 50])
def test_coverage_on_a_kde_truth_is_at_least_the_exact_coverage(B):
    # a discretized KDE has ties, which only widen [x_(l), x_(u)]: at least the
    # continuous guarantee
    ns, exact = _exact_cells(B)
    R = 4000
    ds = evpsim.coverage("kde:sst2-glove", B, estimators="quantile",
                         ci_methods="order-statistic", curve="median", replicates=R, ns=ns,
                         seed=12)
    got = ds["coverage"].sel(ci_method="order-statistic", estimator="quantile").values
    se = np.sqrt(exact * (1 - exact) / R)
    assert np.all(got >= exact - Z * se)


def test_ends_are_order_statistics_and_the_tail_only_beyond_them():
    xs = np.random.default_rng(5).beta(8, 3, 40)
    ys = np.sort(xs)
    B = xs.size
    ds = evpsim.bootstrap_intervals(xs, "quantile", ci_methods="order-statistic",
                                    curve="median", resamples=500, ns=np.arange(1, 2 * B + 1))
    iv = ds.sel(estimator="quantile", ci_method="order-statistic")
    ns = iv["n"].values
    ls, us = ranks(B, 0.5 ** (1.0 / ns), LEVEL)
    np.testing.assert_array_equal(iv["lower"].values, ys[ls - 1])
    inside = us <= B
    np.testing.assert_array_equal(iv["upper"].values[inside], ys[us[inside] - 1])
    assert (~inside).sum() > B  # the tail's part at n > 0.19 B
    assert np.all(iv["upper"].values[~inside] >= ys[-1])
    # the same for every estimator (it does not use it), and without bounds nothing is cut
    both = evpsim.bootstrap_intervals(xs, "quantile,naive", ci_methods="order-statistic",
                                      curve="median", resamples=500)
    np.testing.assert_array_equal(both["upper"].sel(estimator="naive"),
                                  both["upper"].sel(estimator="quantile"))


def test_bounds_cut_the_tail_and_a_low_quantile_has_no_lower_order_statistic():
    xs = np.random.default_rng(6).beta(8, 3, 12)
    ds = evpsim.bootstrap_intervals(xs, "quantile", ci_methods="order-statistic",
                                    curve="quantile:0.05", resamples=300, bounds=(0, 1))
    iv = ds.sel(estimator="quantile", ci_method="order-statistic")
    # p = 0.05 at n = 1: P(S = 0) = 0.95^12 = 0.54 > alpha/2, so l = 0 and the lower end
    # is the metric's low end
    assert float(iv["lower"].sel(n=1)) == 0.0
    assert float(iv["upper"].max()) <= 1.0


def test_curve_defaults_and_header(capsys, tmp_path):
    assert curve_ci_method(as_target("median"), 30)[0] == "order-statistic"
    assert curve_ci_method(as_target("quantile:0.9"), 5)[0] == "order-statistic"
    assert curve_ci_method(MEAN, 30) == (CURVE_CI_METHOD, "")
    xs = np.random.default_rng(7).beta(8, 3, 50)
    path = tmp_path / "scores.txt"
    path.write_text("\n".join(map(repr, xs.tolist())))
    from evpsim.cli import main

    assert main(["curve", str(path), "--curve", "median", "--resamples", "300"]) == 0
    out = capsys.readouterr().out
    assert "95% intervals from order-statistic (exact binomial intervals between order " \
           "statistics; a fitted tail's 300 resamples, seed 0, where none reaches far " \
           "enough)" in out
    # 0.5^(50/10) = 0.031 > 0.025 >= 0.5^(50/9) = 0.021: the tail from n = 10 on
    assert "order-statistic: n >= 10 (B = 50): no order statistic reaches far enough (it " \
           "would pass the best score), so the end on the best scores' side comes from a " \
           "generalized Pareto tail fitted to them; the other end stays an order statistic" \
           in out
    # losses: the tail gives the lower limits, at most the lowest loss, from n = 10 on
    loss = evpsim.curve(1.0 - xs, curve="median", minimize=True, resamples=300)
    lower = loss["lower"].sel(ci_method="order-statistic").values[0, 0]
    assert np.all(lower[9:] <= (1.0 - xs).min()) and np.all(lower[:9] >= (1.0 - xs).min())
    assert main(["curve", str(path), "--resamples", "300"]) == 0
    out = capsys.readouterr().out
    assert f"95% intervals from {CURVE_CI_METHOD}" in out and "order-statistic" not in out


def test_what_it_cannot_do_is_refused_or_said(capsys, tmp_path):
    with pytest.raises(ValueError, match="ci_methods: order-statistic bound the quantile "
                                         "curve only, not the mean curve"):
        evpsim.bootstrap_intervals([0.1, 0.2, 0.3], ci_methods="order-statistic")
    # too few scores for a tail: no upper end where it is needed, and a line says why
    xs = np.random.default_rng(8).beta(8, 3, 8)
    path = tmp_path / "eight.txt"
    path.write_text("\n".join(map(repr, xs.tolist())))
    from evpsim.cli import main

    assert main(["curve", str(path), "--curve", "median", "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "order-statistic: n >= 2 (B = 8): no order statistic reaches far enough" in out
    assert "order-statistic: no upper limit for eight where the order statistics run out: " \
           "its tail needs B >= 10 scores (B = 8)" in out
    ds = evpsim.curve(xs, curve="median", resamples=100)
    upper = ds["upper"].sel(ci_method="order-statistic").values[0, 0]
    assert np.isfinite(upper[:1]).all() and np.isnan(upper[1:]).all()
    # tied best scores: no tail either
    tied = np.concatenate([np.linspace(0.5, 0.6, 14), np.full(20, 0.7)])
    iv = evpsim.bootstrap_intervals(tied, "quantile", ci_methods="order-statistic",
                                    curve="median", resamples=100)
    up = iv["upper"].sel(estimator="quantile", ci_method="order-statistic").values
    assert np.isfinite(up[:6]).all() and np.isnan(up[-1])
