"""Simultaneous CDF bands: the exact coverage recursion and the LD calibration."""

import math

import numpy as np
import pytest
from scipy import stats

from evpsim._kernels.bands import order_statistic_coverage
from evpsim.intervals.bands import ld_band


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
    from evpsim.intervals.bands import ks_band

    for kind in ("equal-tailed", "highest-density"):
        lower, upper = ld_band(50, 0.95, kind)
        ks_lower, ks_upper = ks_band(50, 0.95)
        assert upper[0] < ks_upper[0] and lower[-1] > ks_lower[-1]


def test_highest_density_intervals_are_the_shortest():
    """At one pointwise level, HDI intervals are no wider than equal-tailed ones."""
    from evpsim.intervals.bands import _pointwise

    et = _pointwise(30, 0.99, "equal-tailed")
    hd = _pointwise(30, 0.99, "highest-density")
    assert np.all(hd[1] - hd[0] <= et[1] - et[0] + 1e-12)
    a = np.arange(1, 31)
    covered = stats.beta.cdf(hd[1], a, 31 - a) - stats.beta.cdf(hd[0], a, 31 - a)
    np.testing.assert_allclose(covered, 0.99, atol=1e-10)


# --- against opda (Lourie et al. 2024), which calibrates the LD bands by simulation ---------

#: opda's method names for evpsim's built-in band CI methods
OPDA_METHODS = {"dkw": "dkw", "ks": "ks", "ld-equal-tailed": "ld_equal_tailed",
                "ld-highest-density": "ld_highest_density"}
#: seed-to-seed SD of opda's LD interval ends for the 50 scores of ``_opda_scores`` at level
#: 0.95, the largest over n = 1..50 and both ends: measured over 20 (equal-tailed) and
#: 10 (highest-density) seeds, 100 onwards, with opda 0.8.0
OPDA_SEED_SD = {"ld-equal-tailed": 1.9e-4, "ld-highest-density": 1.6e-4}


def _opda_scores(data_dir):
    return np.loadtxt(data_dir / "reuters_mlp_f1.txt")[:50]


def _opda_intervals(scores, method, seed):
    """opda's 0.95 intervals for the expected maximum at n = 1..B, scores in [0, 1]."""
    import warnings

    from opda.nonparametric import EmpiricalDistribution

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # tied scores: coverage at least 0.95
        lower_cdf, _, upper_cdf = EmpiricalDistribution.confidence_bands(
            scores, 0.95, a=0.0, b=1.0, generator=np.random.default_rng(seed),
            method=OPDA_METHODS[method], n_jobs=1)
    ns = np.arange(1, scores.size + 1)
    # the upper CDF bound gives the lower bound on the expected maximum
    return upper_cdf.average_tuning_curve(ns), lower_cdf.average_tuning_curve(ns)


def _evpsim_intervals(scores, method):
    import evpsim

    iv = evpsim.bootstrap_intervals(scores, "V", ci_methods=method, bounds=(0, 1)).sel(
        estimator="V", ci_method=method)
    return iv["lower"].values, iv["upper"].values


@pytest.mark.parametrize("method", ["dkw", "ks"])
def test_dkw_and_ks_intervals_equal_opdas(data_dir, method):
    pytest.importorskip("opda")
    scores = _opda_scores(data_dir)
    ours, theirs = _evpsim_intervals(scores, method), _opda_intervals(scores, method, 0)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["ld-equal-tailed", "ld-highest-density"])
def test_ld_intervals_agree_with_opda_within_its_calibration_noise(data_dir, method):
    """opda's band moves with its seed; evpsim's exact band must sit inside that noise."""
    pytest.importorskip("opda")
    scores = _opda_scores(data_dir)
    ours = np.array(_evpsim_intervals(scores, method))
    theirs = np.array(_opda_intervals(scores, method, 0))
    assert np.abs(ours - theirs).max() <= 4 * OPDA_SEED_SD[method]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["ld-equal-tailed", "ld-highest-density"])
def test_opda_seed_spread_is_the_one_measured(data_dir, method):
    """The tolerance above rests on OPDA_SEED_SD: opda's spread over six other seeds."""
    pytest.importorskip("opda")
    scores = _opda_scores(data_dir)
    runs = np.array([_opda_intervals(scores, method, seed) for seed in range(1, 7)])
    sd = runs.std(axis=0, ddof=1).max()
    assert OPDA_SEED_SD[method] / 3 <= sd <= 3 * OPDA_SEED_SD[method]
    assert np.abs(runs - np.array(_evpsim_intervals(scores, method))).max() \
        <= 4 * OPDA_SEED_SD[method]


# --- in the coverage battery ------------------------------------------------------------

@pytest.mark.parametrize("truth", ["normal", "tang-big"])
def test_ld_methods_cover_every_n_at_once(truth):
    """Simultaneous coverage of the whole curve at least the level (continuous truths),
    with intervals narrower than KS's at n = B, where the band's upper end decides."""
    import evpsim
    from evpsim.engine.summaries import clopper_pearson

    level = 0.8
    methods = ["ld-equal-tailed", "ld-highest-density", "ks"]
    ds = evpsim.coverage(truth, 30, estimators="V", ci_methods=methods, level=level,
                         replicates=3000, seed=11).sel(estimator="V")
    M = ds.attrs["replicates"]
    for m in methods[:2]:
        k_all = round(float(ds["coverage_all"].sel(ci_method=m)) * M)
        assert clopper_pearson(k_all, M, 1 - 1e-6)[1] >= level
        width = ds["mean_width"].sel(ci_method=m, n=30)
        assert width < ds["mean_width"].sel(ci_method="ks", n=30)


def test_ld_methods_by_name_on_the_command_line(tmp_path, capsys):
    from evpsim.cli import main
    from evpsim.io.results import read_netcdf

    out = tmp_path / "ld.nc"
    methods = "percentile,ld-equal-tailed,ld-highest-density"
    assert main(["coverage", "--B", "8", "--estimators", "U,V", "--replicates", "16",
                 "--resamples", "50", "--ci-methods", methods, "--quiet", "--out",
                 str(out)]) == 0
    text = capsys.readouterr().out
    # bands are printed once, after the estimators: their intervals do not use them
    simul = [ln for ln in text.splitlines() if ln.startswith("covered at every n at once")]
    assert ["ld-equal-tailed" in ln for ln in simul] == [False, False, True]
    ds = read_netcdf(out)
    assert ds["ci_method"].values.tolist() == methods.split(",")
    one = ds.sel(ci_method="ld-highest-density")
    assert one["ci_method_kind"].item() == "band" and one["coverage"].dims == ("estimator", "n")
