"""Intervals that know the scale: ``gpd-tail-bounded``, ``betting``, the tail's end, and the
truths with failed trials (``failed:``) or a rare tied top (``cap:``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

import evpsim
from evpsim._kernels import betting as BT
from evpsim._kernels import bounded as BD
from evpsim._kernels import tails as T
from evpsim._kernels.rng import rng_beta, rng_gamma, rng_init
from evpsim._validate import InvalidArgument
from evpsim.engine.summaries import clopper_pearson
from evpsim.io.shipped import shipped_scores
from conftest import outputs_by_thread_count

make_truth = evpsim.make_truth


# --- the tail's end ----------------------------------------------------------------------

def test_fit_to_endpoint_is_the_likelihoods_maximum():
    """With the end fixed, the closed form maximises the GPD likelihood over xi (sigma =
    -xi end), as a numerical search finds it."""
    rng = np.random.default_rng(0)
    end = 0.3
    ys = np.sort(end * rng.beta(1.0, 2.5, 40))
    xi, sigma = T.fit_to_endpoint(ys, ys.size, end)
    assert sigma == pytest.approx(-xi * end)

    def nll(x):
        return -np.sum(stats.genpareto.logpdf(ys, x, scale=-x * end))

    best = optimize.minimize_scalar(nll, bounds=(-0.99, -1e-4), method="bounded",
                                    options={"xatol": 1e-10})
    assert xi == pytest.approx(best.x, abs=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_a_tail_with_a_top_never_ends_above_it(seed):
    """fit_tail with a top: the fitted end is at most the top, and the fit is the
    unconstrained one wherever that one ends below it."""
    rng = np.random.default_rng(seed)
    xs = np.sort(np.concatenate([rng.normal(0.8, 0.05, 60), [0.97, 0.99]]).clip(0, 1))
    ys = np.empty(xs.size)
    for k in (5, 12, 30):
        free = T.fit_tail(xs, k, ys)
        kept = T.fit_tail(xs, k, ys, 1.0)
        u = xs[xs.size - k - 1]
        end = u - kept[1] / kept[0] if kept[0] < 0 else math.inf
        assert end <= 1.0 + 1e-12
        free_end = u - free[1] / free[0] if free[0] < 0 else math.inf
        if free_end <= 1.0:
            assert kept == free


def test_a_score_at_the_top_itself_gives_a_uniform_tail():
    """An excess at the end (an accuracy of 1.0) puts the shape at its lower end, -1: the
    fit exists, ends at the top, and draws never pass it."""
    xs = np.sort(np.r_[np.linspace(0.5, 0.95, 40), 1.0])
    ys = np.empty(xs.size)
    xi, sigma = T.fit_to_endpoint(xs[-10:] - xs[-11], 10, 1.0 - xs[-11])
    assert xi == T.XI_LOW and sigma == pytest.approx(1.0 - xs[-11])
    k = T.tail_threshold(xs, ys, 1.0)
    xi, sigma = T.fit_tail(xs, k, ys, 1.0)
    assert xs[-k - 1] - sigma / xi <= 1.0 + 1e-12


# --- gpd-tail-bounded ----------------------------------------------------------------------

def test_without_bounds_it_is_gpd_tail_lattice_bit_for_bit():
    """No floor, no top, no band: the same resamples and intervals as gpd-tail-lattice, on a
    lattice (the MLP) and off one (the LSTM)."""
    for name in ("reuters-mlp", "reuters-lstm"):
        ds = evpsim.bootstrap_intervals(shipped_scores(name), "U,V",
                                        ci_methods="gpd-tail-lattice,gpd-tail-bounded",
                                        resamples=300, ns=[1, 3, 20, 100])
        for end in ("lower", "upper"):
            a = ds[end].sel(ci_method="gpd-tail-lattice").values
            b = ds[end].sel(ci_method="gpd-tail-bounded").values
            assert np.array_equal(a, b), name


def _failed_sample(m, seed=1, size=26):
    rng = np.random.default_rng(seed)
    return np.r_[np.round(rng.uniform(0.85, 0.93, size) * 360) / 360, np.zeros(m)]


@pytest.mark.parametrize("m", [0, 1, 4, 12])
def test_every_end_lies_in_the_range_and_within_the_band(m):
    """With bounds, every end of the mean curve's intervals (U, V, and V beyond B) lies in
    [lo, hi] and within the two-sided LD band's interval of the same level."""
    xs = _failed_sample(m)
    B = xs.size
    ns = np.arange(1, 2 * B + 1)
    ds = evpsim.bootstrap_intervals(xs, "V", ci_methods="gpd-tail-bounded,ld-equal-tailed",
                                    resamples=400, bounds=(0, 1), ns=ns)
    lo, hi = (ds[e].sel(estimator="V") for e in ("lower", "upper"))
    band = ds.sel(estimator="V", ci_method="ld-equal-tailed")
    got = ds.sel(estimator="V", ci_method="gpd-tail-bounded")
    assert bool((got["lower"] >= 0).all() and (got["upper"] <= 1).all())
    assert bool((got["lower"] <= got["upper"]).all())
    assert bool((got["lower"] >= band["lower"] - 1e-12).all())
    assert bool((got["upper"] <= band["upper"] + 1e-12).all())
    assert lo.notnull().all() and hi.notnull().all()


def test_failed_trials_leave_n_1_near_the_percentile_width():
    """26 scores in [0.85, 0.93] and 4 failed at 0: gpd-tail-lattice's n = 1 interval
    reaches down to near 0 (the failed trials read as a tail); gpd-tail-bounded's is within
    1.5 times the percentile interval's width and its lower end above the printed
    distribution-free bound."""
    xs = _failed_sample(4)
    ds = evpsim.bootstrap_intervals(xs, "V", ci_methods="percentile,gpd-tail-lattice,"
                                    "gpd-tail-bounded", resamples=2000, bounds=(0, 1), ns=[1])
    iv = ds.sel(estimator="V", n=1)
    width = (iv["upper"] - iv["lower"]).to_series()
    assert float(iv["lower"].sel(ci_method="gpd-tail-lattice")) < 0.1
    assert width["gpd-tail-bounded"] < 1.5 * width["percentile"]
    free = evpsim.intervals.family.free_lower_bound(xs, 0.0)[0]
    assert float(iv["lower"].sel(ci_method="gpd-tail-bounded")) > free


def test_the_mixture_draws_follow_the_closed_form():
    """With the successes' curve fixed (no spread) and the failure share nearly fixed (a
    Beta law of tiny spread), every draw is theta_n of the mixture: pi^n f + sum_k C(n, k)
    (1 - pi)^k pi^(n - k) theta^G_k."""
    g = np.sort(np.random.default_rng(2).uniform(0.6, 0.9, 30))
    theta_g = evpsim.get_estimator("V").apply(g, np.arange(1, 41))
    pi, f, ns = 0.2, 0.05, np.array([1, 2, 5, 17, 40])
    draws = np.empty((ns.size, 50))
    BD.mixture_draws(f, 1e7 * pi, 1e7 * (1 - pi), theta_g, np.zeros(40), np.zeros((40, 50)),
                     ns, rng_init(0, 0), draws)
    for j, n in enumerate(ns):
        ks = np.arange(1, n + 1)
        exact = pi ** n * f + np.sum(special.comb(n, ks) * (1 - pi) ** ks * pi ** (n - ks)
                                     * theta_g[ks - 1])
        assert np.allclose(draws[j], exact, atol=3e-4), n


def test_beta_and_gamma_draws_have_their_laws():
    """rng_gamma and rng_beta pass a Kolmogorov-Smirnov test against scipy's laws, small
    shapes (below 1) included."""
    st = rng_init(11, 0)
    for a in (0.5, 2.5):
        draws = np.array([rng_gamma(st, a) for _ in range(4000)])
        assert stats.kstest(draws, stats.gamma(a).cdf).pvalue > 1e-3
    draws = np.array([rng_beta(st, 1.5, 20.5) for _ in range(4000)])
    assert stats.kstest(draws, stats.beta(1.5, 20.5).cdf).pvalue > 1e-3


def test_coverage_is_bit_identical_for_thread_counts():
    script = (
        "import evpsim, hashlib\n"
        "ds = evpsim.coverage('failed:0.1:data:reuters-mlp', 30, estimators='V', "
        "ci_methods='gpd-tail-bounded,betting', replicates=12, resamples=64, bounds=(0, 1), "
        "ns=[1, 5, 30, 60])\n"
        "print(hashlib.sha256(ds['coverage'].values.tobytes() + "
        "ds['mean_width'].values.tobytes()).hexdigest())\n")
    assert len(outputs_by_thread_count(script)) == 1


def test_the_coverage_battery_tallies_the_kernels_intervals():
    """The coverage battery's tallies are those of the method's kernel run on each
    replicate's sample, drawn from stream (seed, i), its resamples from that stream after
    the draws, and the band's bounds at the level."""
    from evpsim._kernels.sampling import draw_sorted
    from evpsim.intervals.resampling import band_bounds, tables

    truth, B, ns, reps = make_truth("failed:0.2:data:reuters-lstm"), 30, np.array([1, 4, 30]), 6
    ds = evpsim.coverage(truth, B, estimators="V", ci_methods="gpd-tail-bounded",
                         replicates=reps, resamples=64, bounds=(0, 1), ns=ns, seed=5)
    tabs = tables(evpsim.estimators.resolve_estimators("V"), B, ns, [BD.BOUNDED])
    theta, hits = truth.theta(ns), np.zeros(ns.size)
    for i in range(reps):
        st, xs, out = rng_init(5, i), np.empty(B), np.empty((ns.size, 2))
        draw_sorted(st, xs, truth.sampler)
        BD.bounded_intervals(st, xs, tabs, 64, 0.95, 0.0, 1.0, *band_bounds(B, 0.95, (0, 1)),
                             out)
        hits += (out[:, 0] <= theta) & (theta <= out[:, 1])
    got = ds["coverage"].sel(estimator="V", ci_method="gpd-tail-bounded").values * reps
    assert np.array_equal(np.rint(got), hits)


@pytest.mark.slow
def test_covers_a_search_with_failed_trials():
    """failed:0.1:data:reuters-mlp at B = 50 (a failure count of 0 has probability 0.5%):
    gpd-tail-bounded's coverage is not surely below 0.93 at any n, where gpd-tail-lattice
    is at n = 1 (its interval reaching into the floor and its lower end far below)."""
    ds = evpsim.coverage("failed:0.1:data:reuters-mlp", 50, estimators="V",
                         ci_methods="gpd-tail-bounded", replicates=300, resamples=500,
                         bounds=(0, 1), ns=[1, 2, 5, 20, 50])
    hits = np.rint(ds["coverage"].sel(estimator="V", ci_method="gpd-tail-bounded").values * 300)
    upper = clopper_pearson(hits.astype(int), 300, 0.99)[1]
    assert (upper >= 0.93).all(), ds["coverage"].values


# --- betting ---------------------------------------------------------------------------------

def test_betting_holds_a_constant_sample_and_contains_the_mean():
    """All scores equal: the interval contains them; otherwise it contains the sample mean
    (at n = 1) and lies in [lo, hi]."""
    out = np.empty((1, 2))
    BT.betting_curve(rng_init(0, 0), np.full(20, 0.7), 0.0, 1.0, np.array([1]), 0.95, out)
    assert out[0, 0] <= 0.7 <= out[0, 1]
    xs = np.sort(np.random.default_rng(1).uniform(2.0, 6.0, 40))
    out = np.empty((3, 2))
    BT.betting_curve(rng_init(0, 0), xs, 0.0, 10.0, np.array([1, 4, 41]), 0.95, out)
    assert out[0, 0] <= xs.mean() <= out[0, 1]
    assert (out >= 0).all() and (out <= 10).all()
    assert tuple(out[2]) == (0.0, 10.0)  # no block of 41 among 40 scores


def test_betting_covers_a_law_the_sample_rarely_sees():
    """Scores at 0.95 but 4% at 0: a sample of 25 holds no 0 a third of the time, yet the
    betting interval for the mean at n = 1 covers (it assumes only the range)."""
    truth = evpsim.Discrete([0.0, 0.95], [0.04, 0.96])
    ds = evpsim.coverage(truth, 25, estimators="V", ci_methods="betting,percentile",
                         replicates=200, bounds=(0, 1), ns=[1], resamples=200)
    cov = ds["coverage"].sel(estimator="V", n=1)
    assert float(cov.sel(ci_method="betting")) >= 0.95
    assert float(cov.sel(ci_method="percentile")) < 0.8


# --- the truths ------------------------------------------------------------------------------

def test_failed_truth_is_the_mixture_of_its_curve():
    """theta_n of failed:PI:SPEC is the mixture's closed form in PI and SPEC's curve."""
    base = make_truth("data:reuters-mlp")
    truth = make_truth("failed:0.2:data:reuters-mlp")
    ns = np.arange(1, 61)
    theta_g = base.theta(ns)
    for n in (1, 3, 10, 60):
        ks = np.arange(1, n + 1)
        exact = np.sum(special.comb(n, ks) * 0.8 ** ks * 0.2 ** (n - ks) * theta_g[ks - 1])
        assert truth.theta([n])[0] == pytest.approx(exact, rel=1e-12)
    assert truth.support[0] == 0.0 and truth.pmf[0] == pytest.approx(0.2)


def test_capped_truth_ties_its_best_in_one_atom():
    truth = make_truth("cap:0.01:lattice:1/500:kde:sst2-elmo")
    base = make_truth("lattice:1/500:kde:sst2-elmo")
    assert 0.01 <= truth.pmf[-1] < 0.015
    assert np.array_equal(truth.support, base.support[:truth.support.size])
    assert truth.pmf.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("spec, words", [
    ("failed:1.5:data:reuters-mlp", "pi must lie in (0, 1)"),
    ("failed:x:data:reuters-mlp", "pi must be a number"),
    ("failed:0.1:normal", "no finite support"),
    ("failed:0.1", "needs pi and a truth"),
    ("cap:0.6:data:reuters-mlp", "mass must lie in (0, 0.5)"),
])
def test_bad_truth_specs_are_refused(spec, words):
    with pytest.raises(InvalidArgument, match=words.replace("(", r"\(").replace(")", r"\)")):
        make_truth(spec)


# --- the scale found from the scores -----------------------------------------------------------

def _accuracies(seed, size=30, n=143):
    """Accuracies on a dev set of n examples, near the top: the case where ends passed 1."""
    rng = np.random.default_rng(seed)
    return np.clip(np.round(rng.normal(0.95, 0.04, size) * n), 0, n) / n


@pytest.mark.parametrize("curve, methods", [
    ("mean", None), ("mean", "percentile,basic,bca"), ("median", None)])
def test_no_end_lies_outside_the_scale_found_from_a_lattice(curve, methods):
    """Accuracies on 1/143, run as a user runs them (no bounds): the range is taken as [0, 1],
    said in bounds_from, and no end of any interval passes it at any n, the curves
    extended to 100 budgets included."""
    for seed in range(3):
        ds = evpsim.curve(_accuracies(seed), ci_methods=methods, curve=curve, resamples=500,
                          n_max=100)
        assert str(ds["bounds_from"].values) == "lattice 1/143"
        assert (float(ds["bounds_lo"]), float(ds["bounds_hi"])) == (0.0, 1.0)
        assert bool((ds["upper"] <= 1).all()) and bool((ds["lower"] >= 0).all())
        assert int(ds["upper"].count()) > 0
    # without the range, the same intervals pass 1 (the test can fail)
    ds = evpsim.curve(_accuracies(0), ci_methods=methods, curve=curve, resamples=500,
                      n_max=100, bounds="none")
    assert str(ds["bounds_from"].values) == "none" and np.isnan(float(ds["bounds_hi"]))
    assert bool((ds["upper"] > 1).any())
