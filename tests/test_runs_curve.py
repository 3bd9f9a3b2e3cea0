"""``evpsim.runs_curve``: a search run with several seeds, its curves computed by hand, two
searches compared, losses, runs of different lengths, the pooled curve of random search."""

import numpy as np
import pytest
from scipy import stats

import evpsim
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.curves.runs import runs_notes


def _runs(seed, k, B, shift=0.0, lengths=None):
    rng = np.random.default_rng(seed)
    lengths = lengths or [B] * k
    return [list(rng.normal(0.6 + shift, 0.05, size=m)) for m in lengths]


@pytest.fixture(scope="module")
def two():
    """An adaptive search (5 random trials, then draws near a good region) and random
    search, 8 seeds each."""
    rng = np.random.default_rng(7)
    adaptive = [list(np.r_[rng.normal(0.6, 0.05, 5), rng.normal(0.69, 0.02, 25)])
                for _ in range(8)]
    random = _runs(8, 8, 30)
    return {"TPE": adaptive, "random": random}


@pytest.fixture(scope="module")
def ds(two):
    return evpsim.runs_curve(two, random_search="random", resamples=2000, seed=3)


def test_each_estimate_is_the_mean_over_runs_of_the_best_of_each_runs_first_n_trials(two, ds):
    for label, runs in two.items():
        for n in range(1, 31):
            best = [max(run[:n]) for run in runs]
            assert float(ds["estimate"].sel(model=label, curve="mean", n=n)) == \
                pytest.approx(sum(best) / len(best), rel=1e-14)
            middle = sorted(best)[3:5]
            assert float(ds["estimate"].sel(model=label, curve="median", n=n)) == \
                pytest.approx(sum(middle) / 2, rel=1e-14)
            assert ds["best_so_far"].sel(model=label, n=n).values.tolist() == best


def test_default_intervals_are_student_t_and_the_order_statistic(two, ds):
    runs = two["random"]
    best = np.array([np.maximum.accumulate(r) for r in runs])
    m, se = best.mean(axis=0), best.std(axis=0, ddof=1) / np.sqrt(8)
    t = stats.t.ppf(0.975, 7)
    iv = ds.sel(model="random", curve="mean", ci_method="student-t")
    np.testing.assert_allclose(iv["lower"], m - t * se, rtol=1e-12)
    np.testing.assert_allclose(iv["upper"], m + t * se, rtol=1e-12)
    v = np.sort(best, axis=0)
    iv = ds.sel(model="random", curve="median", ci_method="order-statistic")
    np.testing.assert_array_equal(iv["lower"], v[0])  # [x_(2), x_(7)] would hold 0.9297
    np.testing.assert_array_equal(iv["upper"], v[7])


def test_the_comparison(two, ds):
    a = np.array([np.maximum.accumulate(r) for r in two["TPE"]])
    b = np.array([np.maximum.accumulate(r) for r in two["random"]])
    assert ds["model_a"].item() == "TPE" and ds["model_b"].item() == "random"
    diff = ds["difference"].sel(curve="mean").isel(pair=0)
    np.testing.assert_allclose(diff, a.mean(axis=0) - b.mean(axis=0), rtol=1e-12)
    welch = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    np.testing.assert_allclose(ds["difference_lower"].sel(curve="mean").isel(pair=0),
                               welch.low, rtol=1e-10)
    np.testing.assert_allclose(ds["difference_upper"].sel(curve="mean").isel(pair=0),
                               welch.high, rtol=1e-10)
    pairs = (a[:, None, :] > b[None, :, :]).mean((0, 1)) + \
        0.5 * (a[:, None, :] == b[None, :, :]).mean((0, 1))
    np.testing.assert_allclose(ds["share_runs_ahead"].isel(pair=0), pairs)
    gap = a.mean(axis=0) - b.mean(axis=0)
    share = ds["share_ahead"].sel(curve="mean").isel(pair=0).values
    assert ((share > 0.5) == (gap > 0)).all()
    # the leader, and the budget from which it stays ahead
    assert ds["leader"].sel(curve="mean").item() == "TPE"
    ahead = gap > 0
    first = 30 - np.cumprod(ahead[::-1]).sum() + 1
    assert int(ds["ahead_from"].sel(curve="mean").item()) == first
    lo, hi = (float(ds[f"ahead_from_{e}"].sel(curve="mean").item()) for e in ("lower", "upper"))
    assert 1 <= lo <= first <= hi
    sure = float(ds["surely_ahead_from"].sel(curve="mean").item())
    low = ds["difference_lower"].sel(curve="mean").isel(pair=0).values
    assert sure == 30 - np.cumprod((low > 0)[::-1]).sum() + 1 and sure >= first


def test_random_search_gets_vs_pooled_curve_too(two, ds):
    pooled = np.concatenate(two["random"])
    one = evpsim.curve(pooled, estimators="V", resamples=2000, seed=3)
    mean = ds.sel(curve="mean", model="random")
    np.testing.assert_allclose(mean["pooled_estimate"],
                               one["estimate"].sel(estimator="V").isel(model=0, n=slice(0, 30)))
    np.testing.assert_allclose(mean["pooled_lower"],
                               one["lower"].isel(model=0, estimator=0, ci_method=0,
                                                 n=slice(0, 30)))
    assert bool(ds["pooled_estimate"].sel(model="TPE").isnull().all())
    assert str(mean["pooled_method"].values) == str(one["ci_method"].values[0])
    assert "valid for random search only" in ds["pooled_estimate"].attrs["long_name"]
    # the median curve of the pooled trials: the quantile estimator, as evpsim.curve draws it
    med = evpsim.curve(pooled, curve="median", resamples=2000, seed=3)
    np.testing.assert_allclose(ds["pooled_estimate"].sel(model="random", curve="median"),
                               med["estimate"].isel(model=0, estimator=0, n=slice(0, 30)))
    assert str(ds["pooled_estimator"].sel(curve="median").values) == "quantile"
    # the pooled interval is the tighter one
    width_v = mean["pooled_upper"] - mean["pooled_lower"]
    width_t = (mean["upper"] - mean["lower"]).sel(ci_method="student-t")
    assert float((width_v / width_t).median()) < 1
    notes = runs_notes(ds)
    assert "assumes: the curve of random's 240 pooled trials (V with gpd-tail-bounded; " \
           "quantile with order-statistic): that they are i.i.d. draws (random search): valid " \
           "there only, and tighter" in notes


def test_losses_are_the_mirror_of_scores(two):
    losses = {k: [[-x for x in r] for r in v] for k, v in two.items()}
    up = evpsim.runs_curve(two, resamples=300, ci_methods="student-t,percentile,order-statistic")
    down = evpsim.runs_curve(losses, minimize=True, resamples=300,
                             ci_methods="student-t,percentile,order-statistic")
    np.testing.assert_allclose(down["estimate"], -up["estimate"], rtol=1e-14)
    np.testing.assert_allclose(down["lower"], -up["upper"], rtol=1e-14)
    np.testing.assert_allclose(down["difference"], -up["difference"], rtol=1e-14)
    np.testing.assert_allclose(down["difference_upper"], -up["difference_lower"], rtol=1e-12)
    np.testing.assert_array_equal(down["share_ahead"], up["share_ahead"])
    assert (down["leader"] == up["leader"]).all()
    np.testing.assert_array_equal(down["ahead_from"], up["ahead_from"])


def test_runs_of_different_lengths_stop_at_the_shortest():
    runs = _runs(2, 5, 0, lengths=[20, 18, 20, 25, 20])
    ds = evpsim.runs_curve({"A": runs, "B": _runs(3, 5, 12)}, resamples=200)
    assert ds.sizes["n"] == 18
    assert int(ds["shortest"].sel(model="A")) == 18 and int(ds["longest"].sel(model="A")) == 25
    assert bool(ds["estimate"].sel(model="B", n=13).isnull().all())
    assert bool(ds["difference"].sel(n=13).isnull().all())
    assert float(ds["best_so_far"].sel(model="A", run=1, n=18)) == max(runs[1])
    notes = runs_notes(ds)
    assert "A: its 5 runs differ in length (18 to 25 trials): its curves stop at the " \
           "shortest run, n = 18" in notes
    assert any("with 5 runs the widest order-statistic interval, [min, max], holds 0.9375"
               in n for n in notes)


@pytest.mark.parametrize("call, kind, words", [
    (lambda: evpsim.runs_curve({"A": [[0.5, 0.6], []]}), InvalidArgument,
     "runs['A']: run 1 needs at least 1"),
    (lambda: evpsim.runs_curve({"A": [[0.5, 0.6]]}), InvalidArgument, "at least 2 runs, got 1"),
    (lambda: evpsim.runs_curve([[0.5, float("nan")], [0.6]]), InvalidArgument,
     "runs['model']: run 0 contains 1 NaN"),
    (lambda: evpsim.runs_curve({}), InvalidArgument, "runs: the mapping holds no search"),
    (lambda: evpsim.runs_curve([[0.5], [0.6]], labels=["a", "b"]), InvalidArgument,
     "labels: 2 given for 1 search(es)"),
    (lambda: evpsim.runs_curve({"A": [[0.5], [0.6]]}, random_search="B"), InvalidArgument,
     "random_search: 'B' is no search's label"),
    (lambda: evpsim.runs_curve([[0.5], [0.6]], ci_methods="gpd-tail"), InvalidArgument,
     "unknown CI method across runs"),
    (lambda: evpsim.runs_curve([[0.5], [0.6]], minimize=1), InvalidType, "minimize"),
    (lambda: evpsim.runs_curve([[0.5], [0.6]], level=95), InvalidArgument, "level"),
    (lambda: evpsim.runs_curve([0.5, 0.6, 0.7]), InvalidArgument, "(one run?)"),
])
def test_bad_input(call, kind, words):
    with pytest.raises(kind) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow  # about half a minute: 600 pairs of searches
def test_the_difference_interval_of_the_mean_curves_covers():
    """Welch's interval of the difference of the mean curves of random search on two truths
    covers theta_a(n) - theta_b(n) (exact) at least 0.93 of the time at k = 5 and 10 runs
    (Clopper-Pearson 99.9%)."""
    a, b = evpsim.make_truth("normal"), evpsim.make_truth("tang-small")
    ns = np.array([1, 3, 10, 30])
    truth = a.theta(ns) - b.theta(ns)
    M = 600
    for k in (5, 10):
        hits = np.zeros(ns.size, dtype=int)
        for i in range(M):
            runs = {label: t.sample(k * 30, seed=11, stream=2 * (k * M + i) + j).reshape(k, 30)
                    for j, (label, t) in enumerate((("a", a), ("b", b)))}
            ds = evpsim.runs_curve(runs, resamples=20, ci_methods="student-t")
            lo = ds["difference_lower"].sel(curve="mean", n=ns).isel(pair=0).values
            hi = ds["difference_upper"].sel(curve="mean", n=ns).isel(pair=0).values
            hits += (lo <= truth) & (truth <= hi)
        upper = evpsim.clopper_pearson(hits, M, 0.999)[1]
        assert (upper >= 0.93).all(), (k, hits / M)


@pytest.mark.slow  # about twenty seconds: the study at reduced sizes
def test_the_quick_study_writes_its_files_and_decides_nothing(tmp_path):
    from evpsim.reproduce import PAPERS, reproduce

    assert PAPERS["runs"] == "runs"
    report = reproduce("runs", tmp_path, quick=True)
    assert set(report.files) == {"runs.nc", "runs.md", "summary.md"}
    text = (tmp_path / "summary.md").read_text()
    assert text.splitlines()[0].endswith("run without --quick to decide)")
    assert [c.verdict for c in report.claims[:4]] == ["inconclusive"] * 4
    table = text.split("## Every method side by side")[1].split("\n\n")[1].splitlines()
    assert len(table) == 2 + 5 + 3  # the mean curve's five methods, the median's three
    ds = evpsim.io.results.read_netcdf(tmp_path / "runs.nc")
    assert dict(ds["coverage"].sizes) == {"dist": 2, "B": 1, "search": 2, "curve": 2,
                                          "ci_method": 7, "k": 3, "n": 7}
