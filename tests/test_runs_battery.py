"""Intervals across runs and the runs battery: every interval recomputed by hand from the
same resamples, the simulated runs against exact curves, determinism, bad input."""

import math
import textwrap

import numpy as np
import pytest
from scipy import stats

import evpsim
from conftest import outputs_by_thread_count
from evpsim._kernels.acrossruns import draw_counts
from evpsim._kernels.rng import rng_init
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.intervals import runs as ir
from evpsim.studies import runs_battery as rb

ALL = [m.name for m in ir.RUN_CI_METHODS]


@pytest.fixture(scope="module")
def runs():
    """Eight runs of 6 trials (larger is better), as 8 best-so-far curves."""
    rng = np.random.default_rng(3)
    raw = [rng.beta(5, 2, size=6) for _ in range(8)]
    return raw, np.array(ir.best_so_far(raw))


def test_best_so_far_by_hand():
    assert [c.tolist() for c in ir.best_so_far([[0.3, 0.5, 0.4], [0.6, 0.2]])] == \
        [[0.3, 0.5, 0.5], [0.6, 0.6]]
    assert [c.tolist() for c in ir.best_so_far([[3, 1, 2], [2, 5]], minimize=True)] == \
        [[3, 1, 1], [2, 2]]


def test_estimates_are_the_mean_and_median_over_runs_of_each_runs_best(runs):
    raw, x = runs
    ds = ir.run_intervals(x, resamples=50)
    for n in range(1, 7):
        best = [max(r[:n]) for r in raw]  # the best of each run's first n trials
        assert ds["estimate"].sel(curve="mean", n=n) == pytest.approx(sum(best) / len(best),
                                                                       rel=1e-14)
        assert ds["estimate"].sel(curve="median", n=n) == pytest.approx(float(np.median(best)),
                                                                         rel=1e-14)


def _counts(seed, stream, R, k):
    counts = np.empty((R, k), dtype=np.int64)
    draw_counts(rng_init(seed, stream), counts)
    return counts


def test_every_interval_by_hand_from_the_same_resamples(runs):
    """The kernels' intervals equal a plain numpy computation on the resamples they drew."""
    _, x = runs
    k, R, level = x.shape[0], 400, 0.9
    ds = ir.run_intervals(x, ci_methods=ALL, resamples=R, level=level, seed=5, stream=2)
    counts = _counts(5, 2, R, k)
    assert (counts.sum(axis=1) == k).all()
    alpha = (1 - level) / 2
    for j in range(x.shape[1]):
        col = x[:, j]
        m, s = col.mean(), col.std(ddof=1)
        se = s / math.sqrt(k)
        means = counts @ col / k
        samples = [np.repeat(col, c) for c in counts]
        meds = np.array([np.median(v) for v in samples])
        sds = np.array([v.std(ddof=1) for v in samples])
        got = {(c if name == "percentile" else "") + name:
               (float(ds["lower"].sel(curve=c, ci_method=name).isel(n=j)),
                float(ds["upper"].sel(curve=c, ci_method=name).isel(n=j)))
               for c in ("mean", "median") for name in ALL
               if bool(ds["bounds_curve"].sel(curve=c, ci_method=name))}
        np.testing.assert_allclose(ds["bootstrap_distribution"].isel(n=j).values,
                                   np.c_[means, meds], rtol=1e-13)
        tq = stats.t.ppf(1 - alpha, k - 1)
        assert got["student-t"] == pytest.approx((m - tq * se, m + tq * se), rel=1e-12)
        ts = (means - m) / (sds / math.sqrt(k))
        lo_t, hi_t = np.quantile(ts, [alpha, 1 - alpha])
        assert got["bootstrap-t"] == pytest.approx((m - hi_t * se, m - lo_t * se), rel=1e-9)
        tail = stats.norm.cdf(-math.sqrt(k / (k - 1)) * tq)
        assert got["expanded-percentile"] == pytest.approx(
            tuple(np.quantile(means, [tail, 1 - tail])), rel=1e-12)
        d = col - m
        a = (d ** 3).sum() / (6 * ((d ** 2).sum()) ** 1.5)  # the jackknife's acceleration
        tol = 1e-12 * np.abs(d).max()
        z0 = stats.norm.ppf(((means < m - tol).sum() + 0.5 * (np.abs(means - m) <= tol).sum())
                            / R)
        z = stats.norm.ppf(alpha)
        ps = stats.norm.cdf([z0 + (z0 + z) / (1 - a * (z0 + z)),
                             z0 + (z0 - z) / (1 - a * (z0 - z))])
        assert got["bca"] == pytest.approx(tuple(np.quantile(means, ps)), rel=1e-9)
        v = np.sort(col)
        d_, w, _ = ir.order_index(k, level)
        assert got["order-statistic"] == (v[d_ - 1], v[k - d_])
        assert got["order-statistic-interpolated"] == pytest.approx(
            ((1 - w) * v[d_ - 1] + w * v[d_], (1 - w) * v[k - d_] + w * v[k - d_ - 1]),
            rel=1e-14)
        assert got["meanpercentile"] == pytest.approx(
            tuple(np.quantile(means, [alpha, 1 - alpha])), rel=1e-12)
        assert got["medianpercentile"] == pytest.approx(
            tuple(np.quantile(meds, [alpha, 1 - alpha])), rel=1e-12)


@pytest.mark.parametrize("k, d, cover", [(5, 1, 1 - 2 / 32), (10, 2, 1 - 2 * 11 / 1024),
                                         (20, 6, 0.9586105346679688)])
def test_the_order_statistic_is_the_binomials(k, d, cover):
    got_d, weight, got_cover = ir.order_index(k, 0.95)
    assert (got_d, got_cover) == (d, pytest.approx(cover, rel=1e-12))
    assert got_cover == pytest.approx(stats.binom.cdf(k - d, k, 0.5)
                                      - stats.binom.cdf(d - 1, k, 0.5), rel=1e-12)
    # Hettmansperger and Sheather: no narrower pair at k = 5, a weight in (0, 1) above
    assert (weight == 0) == (k == 5) and 0 <= weight < 1


def test_equal_runs_give_a_point_and_resamples_of_equal_runs_an_unbounded_t():
    x = np.array([[0.5, 0.7], [0.5, 0.8], [0.5, 0.9]])
    ds = ir.run_intervals(x, ci_methods="student-t,bootstrap-t", resamples=300)
    at1 = ds.sel(curve="mean", n=1)
    assert at1["lower"].values.tolist() == at1["upper"].values.tolist() == [0.5, 0.5]
    # three runs: a resample repeats one run with chance 1/9, beyond the 2.5% tails
    at2 = ds.sel(curve="mean", n=2, ci_method="bootstrap-t")
    assert float(at2["lower"]) == -np.inf and float(at2["upper"]) == np.inf


def test_results_do_not_depend_on_the_order_of_the_runs_but_on_the_resamples(runs):
    _, x = runs
    a = ir.run_intervals(x, ci_methods="student-t,order-statistic", resamples=100)
    b = ir.run_intervals(x[::-1], ci_methods="student-t,order-statistic", resamples=100)
    np.testing.assert_allclose(a["lower"].sel(ci_method="order-statistic"),
                               b["lower"].sel(ci_method="order-statistic"), rtol=0)
    np.testing.assert_allclose(a["upper"].sel(ci_method="student-t"),
                               b["upper"].sel(ci_method="student-t"), rtol=1e-14)


@pytest.mark.parametrize("call, kind, words", [
    (lambda: ir.best_so_far([[0.5, 0.6], []]), InvalidArgument, "runs: run 1 needs at least 1"),
    (lambda: ir.best_so_far([[0.5, 0.6]]), InvalidArgument, "at least 2 runs, got 1"),
    (lambda: ir.best_so_far([0.5, 0.6, 0.7]), InvalidArgument, "one sequence of 3 numbers"),
    (lambda: ir.best_so_far([[0.5, np.nan], [0.6]]), InvalidArgument,
     "runs: run 0 contains 1 NaN"),
    (lambda: ir.best_so_far([[0.5], ["a"]]), InvalidType, "runs: run 1 must be numbers"),
    (lambda: ir.best_so_far("0.5,0.6"), InvalidType, "runs must be a sequence of runs"),
    (lambda: ir.best_so_far([[0.5], [0.6]], minimize="yes"), InvalidType, "minimize"),
    (lambda: ir.run_intervals([[0.5, 0.6]]), InvalidArgument, "at least 2 runs, got 1"),
    (lambda: ir.run_intervals([[0.5, np.inf], [0.6, 0.7]]), InvalidArgument, "values contains"),
    (lambda: ir.run_intervals([0.5, 0.6]), InvalidArgument, "values must be a (runs, budgets)"),
    (lambda: ir.run_intervals([[0.5], [0.6]], ci_methods="t"), InvalidArgument,
     "unknown CI method across runs 't'"),
    (lambda: ir.run_intervals([[0.5], [0.6]], ci_methods="bca,bca"), InvalidArgument,
     "listed twice"),
    (lambda: ir.run_intervals([[0.5], [0.6]], level=1.0), InvalidArgument, "level"),
    (lambda: ir.run_intervals([[0.5], [0.6]], resamples=1), InvalidArgument, "resamples"),
    (lambda: rb.cell("normal", 10, ks=[1, 5]), InvalidArgument, "ks must be at least 2"),
    (lambda: rb.cell("normal", 1), InvalidArgument, "B must be at least 2"),
    (lambda: rb.cell("nope", 10), InvalidArgument, "unknown truth 'nope'"),
    (lambda: rb.cell("normal", 10, replicates=1), InvalidArgument, "replicates"),
    (lambda: rb.cell("normal", 10, truth_samples=0), InvalidArgument, "truth_samples"),
])
def test_bad_input_is_refused_in_one_line_naming_the_argument(call, kind, words):
    with pytest.raises(kind) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value)


# --- the battery ---------------------------------------------------------------------------

SMALL = dict(ks=(5, 10), replicates=64, resamples=200, oracle_samples=2000,
             truth_samples=2**15, check_samples=2**16)


@pytest.fixture(scope="module")
def small():
    return rb.cell("tang-small", 12, seed=4, **SMALL)


def test_random_search_runs_have_the_exact_curves(small):
    """The Monte Carlo mean of single runs of random search, and the mean over k runs,
    are the truth's exact theta_n within a few standard errors; its median curve too."""
    rnd = small.sel(search="random")
    exact = evpsim.make_truth("tang-small").theta(rb.budgets(12))
    np.testing.assert_array_equal(rnd["truth_value"].sel(curve="mean"), exact)
    mean = rnd.sel(curve="mean")
    assert float(np.abs((mean["truth_mc"] - exact) / mean["truth_mc_se"]).max()) < 4.5
    assert float(np.abs(mean["error_mean"] / mean["error_mean_se"]).max()) < 4.5
    med = rnd.sel(curve="median")
    assert float(np.abs((med["truth_mc"] - med["truth_value"]) / med["truth_mc_se"]).max()) < 4.5


def test_the_local_search_first_trial_scores_the_pool_on_average(small):
    """Its first trial is a uniformly drawn configuration plus noise of mean 0."""
    local = small.sel(search="local", curve="mean", n=1)
    pool = rb.pool_scores(evpsim.make_truth("tang-small"))
    assert abs(float(local["truth_mc"]) - pool.mean()) < 4.5 * float(local["truth_mc_se"])
    assert float(local["truth_se"]) == float(local["truth_mc_se"]) > 0


def test_the_local_search_overtakes_random_search():
    """Slower at first (its steps stay near the incumbent), it is ahead by n = 50."""
    from evpsim.engine.montecarlo import MonteCarlo

    truth = evpsim.make_truth("tang-small")
    sim = rb._simulation(truth, 50, "local")
    mc, se = rb._mc_truth(sim, rb._value_range(truth, sim), np.array([2, 50]),
                          MonteCarlo(2**14, 0, 4096), 0)
    exact = truth.theta([2, 50])
    assert mc[0, 0] < exact[0] - 5 * se[0, 0] and mc[0, 1] > exact[1] + 5 * se[0, 1]


def test_the_pool_is_the_truths_quantiles_laid_out_by_the_landscape():
    truth = evpsim.make_truth("normal")
    pool = rb.pool_scores(truth, G=8)
    ps = (np.arange(64) + 0.5) / 64
    np.testing.assert_array_equal(np.sort(pool), truth.quantile(ps, 1 - ps))
    assert np.argmax(pool) == np.argmax(rb.landscape(8))
    assert np.array_equal(np.argsort(pool, kind="stable"),
                          np.argsort(rb.landscape(8), kind="stable"))


def test_cell_layout_and_rates(small):
    assert dict(small["coverage"].sizes) == {"search": 2, "curve": 2, "ci_method": len(ALL),
                                             "k": 2, "n": rb.budgets(12).size}
    on = small["bounds_curve"]
    cov = small["coverage"]
    assert bool((cov.notnull() == on).all())
    total = (small["coverage"] + small["miss_below"] + small["miss_above"]
             + small["undefined"]).where(on)
    np.testing.assert_allclose(total.values[np.isfinite(total.values)], 1.0)
    assert bool((small["coverage_lower"] <= cov).where(on).all())
    assert small.attrs["replicates"] == 64 and small["truth"].item() == "tang-small"


def test_the_sweep_cell_is_the_battery_run_alone(small):
    ds = evpsim.sweep("runs", {"dist": ["tang-small"], "B": [12]}, seed=4, options=SMALL)
    one = ds.sel(dist="tang-small", B=12)
    for var in ("coverage", "width_vs_oracle", "oracle_width", "truth_mc", "error_mean"):
        np.testing.assert_array_equal(one[var].values, small[var].values)
    s = rb.summarise(ds)
    assert set(rb.choose(s)) == {"mean", "median"}


def test_the_battery_is_bit_identical_for_thread_counts():
    script = textwrap.dedent("""
        import hashlib
        from evpsim.studies.runs_battery import cell
        ds = cell("kde:reuters-lstm", 10, ks=(5,), replicates=40, resamples=100,
                  oracle_samples=600, truth_samples=2**13, check_samples=2**13, seed=3)
        keys = ["coverage", "width_vs_oracle", "mean_width", "truth_mc", "truth_mc_se",
                "oracle_width", "error_mean"]
        print(hashlib.sha256(b"".join(ds[k].values.tobytes() for k in keys)).hexdigest())
    """)
    assert len(outputs_by_thread_count(script)) == 1


@pytest.mark.slow  # about a minute: the order-statistic interval's exact coverage
def test_the_order_statistic_interval_covers_what_the_binomial_says():
    """For a continuous law the median's order-statistic interval covers exactly
    P(d <= Bin(k, 1/2) <= k - d): the battery's coverage agrees at every n and k, for
    random search and for the local search (whose noise makes its law continuous)."""
    ds = rb.cell("normal", 20, seed=8, ci_methods=["order-statistic"], replicates=3000,
                 resamples=20, oracle_samples=2000, truth_samples=2**20, check_samples=2**12)
    for k in rb.KS:
        exact = ir.order_index(k, 0.95)[2]
        got = ds["coverage"].sel(curve="median", ci_method="order-statistic", k=k)
        hits = np.round(got.values * 3000).astype(int)
        lo, hi = stats.binom.interval(1 - 1e-4, 3000, exact)
        assert ((hits >= lo) & (hits <= hi)).all(), (k, got.values, exact)


# --- the full run, shipped -------------------------------------------------------------------

SHIPPED = __import__("pathlib").Path(__file__).resolve().parents[1] / "docs" / "runs" / \
    "runs_battery"


def _rows(text, section):
    """The table rows of a section of the shipped summary, as lists of cells."""
    part = text.split(section, 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in part.splitlines()
            if line.startswith("| ") and not line.startswith("|---")]


def test_the_defaults_are_the_full_runs_choice():
    text = (SHIPPED / "summary.md").read_text()
    assert "Run at full size" in text.splitlines()[2]
    claims = {row[0]: row for row in _rows(text, "| claim |")}
    for curve, method in ir.DEFAULTS.items():
        assert claims[f"The default interval for the {curve} curve"][2].startswith(f"{method}:")


def test_what_runs_notes_says_of_the_mean_curve_is_the_full_runs():
    import re

    from evpsim.curves.runs import MEAN_CAUTION

    text = (SHIPPED / "summary.md").read_text()
    quoted = re.findall(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", MEAN_CAUTION)
    assert len(quoted) == 2 and all(q in text for q in quoted)
    table = {(r[0], r[1]): r for r in _rows(text, "## Every method side by side")}
    assert table[("mean", "student-t")][6].startswith("random 39/82")
    assert table[("median", "order-statistic")][6] == "; ".join(
        ["random 82/82, local 82/82"] * 3)
