"""Bootstrap CI coverage (``coverage``, ``bootstrap_intervals``, ``evpsim coverage``)."""

from __future__ import annotations

import math
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import special, stats

import evpsim
from evpsim._kernels import bootstrap as K
from evpsim._kernels import quantiles as Q
from evpsim._kernels import resamples as RS
from evpsim._kernels.bands import band_intervals
from evpsim._kernels.rng import rng_init
from evpsim.cli import main
from evpsim.estimators import resolve_estimators
from evpsim.intervals.bands import dkw_band, ks_band
from evpsim.intervals.bootstrap import _bootstrap_one, weight_tables
from evpsim.io.results import read_netcdf
from evpsim.engine.summaries import clopper_pearson
from conftest import outputs_by_thread_count

LEVEL = 1 - 1e-6  # Clopper-Pearson level of the statistical assertions


def ptab_of(names, B):
    return weight_tables(resolve_estimators(names), B)[0]


def evpsim_statistic(names, n, B):
    """The estimator at budget n as a scipy statistic, with evpsim's arithmetic.

    Samples of size B - 1 (scipy's jackknife) use budget min(n, B - 1), as
    evpsim does.
    """
    tabs = {m: ptab_of(names, m) for m in (B, B - 1)}

    def stat(data, axis=-1):
        xs = np.sort(data, axis=-1)
        m = xs.shape[-1]
        flat = xs.reshape(-1, m)
        out = np.empty(flat.shape[0])
        est = np.empty(m)
        for i, row in enumerate(flat):
            RS.sample_estimates(row, tabs[m], est)
            out[i] = est[min(n, m) - 1]
        return out.reshape(xs.shape[:-1])

    return stat


# --- kernels -----------------------------------------------------------------------------

def test_selection_places_every_rank():
    rng = np.random.default_rng(1)
    for trial in range(400):
        n = int(rng.integers(1, 2500))  # beyond 600 exercises Floyd-Rivest sampling
        a = [rng.random(n), rng.integers(0, 4, n).astype(float), np.sort(rng.random(n)),
             np.ones(n)][trial % 4]
        lo = int(rng.integers(0, n))
        hi = int(rng.integers(lo + 1, n + 1))
        k = int(rng.integers(lo, hi))
        b = a.copy()
        Q.select_inplace(b, lo, hi, k)
        ref = np.sort(a[lo:hi])
        assert b[k] == ref[k - lo]
        assert np.all(b[lo:k] <= b[k]) and np.all(b[k + 1:hi] >= b[k])
        assert np.array_equal(np.sort(b[lo:hi]), ref)
        assert np.array_equal(b[:lo], a[:lo]) and np.array_equal(b[hi:], a[hi:])


def test_quantiles_equal_scipy_quantile_exactly():
    rng = np.random.default_rng(2)
    out, ranks = np.empty(4), np.empty(8, dtype=np.int64)
    for trial in range(600):
        # long arrays take the bracketing path, which sorted input defeats
        R = int(rng.integers(1, 1500) if trial % 3 else rng.integers(2048, 7000))
        a = [rng.random(R), rng.integers(0, 5, R).astype(float), np.sort(rng.random(R)),
             rng.integers(0, 500, R) / 7][trial % 4]
        ps = rng.random(4)
        ps[trial % 4] = [np.nan, 0.0, 1.0, ps[(trial + 1) % 4]][trial % 4]
        b = a.copy()
        Q.quantiles_by_selection(b, ps, out, ranks)
        for q in range(4):
            if np.isnan(ps[q]):
                assert np.isnan(out[q])
            else:
                assert out[q] == stats.quantile(a, ps[q])


def test_ndtri_and_ndtr_match_scipy():
    ps = np.concatenate([np.logspace(-300, -2, 300), np.linspace(0.01, 0.99, 301),
                         1 - np.logspace(-15, -2, 100)])
    mine = np.array([K.ndtri(p) for p in ps])
    ref = special.ndtri(ps)
    np.testing.assert_allclose(mine, ref, rtol=1e-13, atol=1e-15)
    assert K.ndtri(0.0) == -np.inf and K.ndtri(1.0) == np.inf and np.isnan(K.ndtri(1.5))
    xs = np.linspace(-30, 8, 500)
    np.testing.assert_allclose([K.ndtr(x) for x in xs], special.ndtr(xs), rtol=1e-12)


@pytest.mark.parametrize("names", ["U,V,W"])
def test_resample_estimates_equal_the_expanded_resample(names):
    rng = np.random.default_rng(3)
    B = 13
    ptab = ptab_of(names, B)
    ws = np.concatenate([e.weight_matrix(B) for e in resolve_estimators(names)])
    xs = np.sort(rng.random(B))
    xs[4] = xs[5]  # a tie
    out = np.empty(ws.shape[0])
    scratch = np.empty(B, dtype=np.int64), np.empty(B, dtype=np.int64)
    for _ in range(200):
        counts = rng.multinomial(B, np.full(B, 1 / B))
        RS.resample_estimates(xs, counts, ptab, out, *scratch)
        np.testing.assert_allclose(out, ws @ np.repeat(xs, counts), rtol=0, atol=1e-14)
    RS.sample_estimates(xs, ptab, out)
    np.testing.assert_allclose(out, ws @ xs, rtol=0, atol=1e-14)


def test_blocked_estimates_equal_one_resample_at_a_time():
    # chunks of columns, blocks of resamples, threads and the skipping of
    # negligible terms (taken at scale 1, refused at 1e-300) change no bit
    rng = np.random.default_rng(10)
    B, R = 300, 70
    ptab, jws = weight_tables(resolve_estimators("U,V,W"), B)
    E = ptab.shape[1]
    counts, out = np.empty(B, dtype=np.int64), np.empty(E)
    scratch = np.empty(B, dtype=np.int64), np.empty(B, dtype=np.int64)
    for scale in (1.0, 1e-300):
        xs = np.sort(rng.normal(size=B)) * scale
        boot = np.empty((E, R))
        K.bootstrap_intervals(rng_init(4, 2), xs, ptab, jws, R, 0.95, np.array([0]), False,
                              boot, np.empty(E), np.zeros((E, B)), np.empty((1, E, 2)))
        par = _bootstrap_one(xs, 4, 2, ptab, jws, R, 0.95, np.array([0]), False)[0]
        assert np.array_equal(par, boot)
        st = rng_init(4, 2)
        for r in range(R):
            RS.multinomial_counts(st, counts)
            RS.resample_estimates(xs, counts, ptab, out, *scratch)
            assert np.array_equal(boot[:, r], out), (scale, r)


def test_jackknife_estimates_leave_one_out():
    rng = np.random.default_rng(4)
    B = 9
    ests = resolve_estimators("U,V,W")
    _, jws = weight_tables(ests, B)
    xs = np.sort(rng.random(B))
    jack = np.empty((jws.shape[0], B))
    RS.jackknife_estimates(xs, jws, jack)
    rows = np.minimum(np.arange(B), B - 2)  # budget n uses min(n, B - 1)
    wj = np.concatenate([e.weight_matrix(B - 1)[rows] for e in ests])
    for i in range(B):
        np.testing.assert_allclose(jack[:, i], wj @ np.delete(xs, i), rtol=0, atol=1e-14)


def test_multinomial_counts_are_uniform():
    st = rng_init(5, 0)
    B, R = 7, 20_000
    counts = np.empty(B, dtype=np.int64)
    total = np.zeros(B)
    for _ in range(R):
        RS.multinomial_counts(st, counts)
        assert counts.sum() == B
        total += counts
    # each count is Binomial(B, 1/B); the total over R resamples has SD sqrt(R B p (1-p))
    sd = math.sqrt(R * B * (1 / B) * (1 - 1 / B))
    assert np.all(np.abs(total - R) < 5 * sd)


# --- against scipy.stats.bootstrap -------------------------------------------------------

def test_endpoints_identical_to_scipy_on_a_shared_bootstrap_distribution():
    rng = np.random.default_rng(5)
    B = 12
    for rep in range(2):
        x = rng.normal(0.6, 0.07, B)
        ds = evpsim.bootstrap_intervals(x, "U,V,W", ci_methods="percentile,basic,bca",
                                        resamples=999, seed=rep, distribution=True)
        for e in "UVW":
            for n in range(1, B + 1):
                dist = ds["bootstrap_distribution"].sel(estimator=e, n=n).values
                shared = SimpleNamespace(bootstrap_distribution=dist)
                for m in ("percentile", "basic", "bca"):
                    res = stats.bootstrap((x,), evpsim_statistic(e, n, B), n_resamples=0,
                                          method=m, vectorized=True, bootstrap_result=shared)
                    iv = ds.sel({"estimator": e, "n": n, "ci_method": m})
                    got = [float(iv["lower"]), float(iv["upper"])]
                    want = [res.confidence_interval.low, res.confidence_interval.high]
                    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0,
                                               err_msg=f"{e} n={n} {m}")


def test_coverage_equals_a_scipy_loop_within_monte_carlo_error():
    # the same samples (sample i is stream (seed, i)); independent resamples
    B, M, R, seed, ns = 10, 300, 400, 11, (1, 4, 10)
    truth = evpsim.make_truth("tang-small")
    ds = evpsim.coverage(truth, B, estimators="V", ci_methods="percentile,basic,bca",
                         replicates=M, resamples=R, seed=seed)
    theta = truth.theta(np.arange(1, B + 1))
    ws = {m: evpsim.estimator_weights("V", m) for m in (B, B - 1)}
    rng = np.random.default_rng(0)
    samples = [truth.sample(B, seed=seed, stream=i) for i in range(M)]
    for n in ns:
        def stat(data, axis=-1):
            m = data.shape[-1]
            return np.sort(data, axis=-1) @ ws[m][min(n, m) - 1]

        hits = {m: 0 for m in ("percentile", "basic", "bca")}
        for x in samples:
            res = stats.bootstrap((x,), stat, n_resamples=R, method="bca", vectorized=True,
                                  rng=rng)
            for m in hits:
                ci = (res if m == "bca" else stats.bootstrap(
                    (x,), stat, n_resamples=0, method=m, vectorized=True,
                    bootstrap_result=res)).confidence_interval
                hits[m] += bool(ci.low <= theta[n - 1] <= ci.high)
        for m, h in hits.items():
            ours = float(ds["coverage"].sel({"estimator": "V", "ci_method": m, "n": n}))
            theirs = h / M
            # the SE of a difference of independent rates bounds that of paired ones
            se = math.sqrt((ours * (1 - ours) + theirs * (1 - theirs)) / M)
            assert abs(ours - theirs) <= 4 * se + 1e-12, (n, m, ours, theirs)


# --- the coverage battery ----------------------------------------------------------------

@pytest.fixture(scope="module")
def tang_run():
    # Tang et al.'s experiment at reduced size
    return evpsim.coverage("normal", 50, estimators="U,V,W",
                           ci_methods="percentile,basic,bca,dkw,ks",
                           replicates=300, resamples=1000, seed=3)


def test_tang_finding_for_v_percentile(tang_run):
    v = tang_run["coverage"].sel({"estimator": "V", "ci_method": "percentile"})
    M = tang_run.attrs["replicates"]
    lo, hi = clopper_pearson(round(float(v.sel(n=1)) * M), M, LEVEL)
    assert lo <= 0.95 <= hi  # nominal at n = 1 (the mean)
    assert float(tang_run["coverage_upper"].sel({"estimator": "V", "ci_method": "percentile",
                                                 "n": 20})) < 0.9
    # V's misses are nearly all below theta (it is biased low)
    miss = tang_run.sel({"estimator": "V", "ci_method": "percentile", "n": slice(10, 50)})
    assert float(miss["miss_above"].sum()) < 0.05 * float(miss["miss_below"].sum())


def test_rates_are_consistent(tang_run):
    ds = tang_run
    total = ds["coverage"] + ds["miss_below"] + ds["miss_above"] + ds["undefined"]
    np.testing.assert_allclose(total, 1.0, atol=1e-12)
    assert float(ds["undefined"].min()) >= 0
    M = ds.attrs["replicates"]
    k = np.rint(ds["coverage"].values * M).astype(int)
    lo, hi = clopper_pearson(k, M, 0.95)
    np.testing.assert_array_equal(ds["coverage_lower"], lo)
    np.testing.assert_array_equal(ds["coverage_upper"], hi)
    ci = stats.binomtest(int(k[1, 0, 4]), M).proportion_ci(0.95, method="exact")
    np.testing.assert_allclose([lo[1, 0, 4], hi[1, 0, 4]], [ci.low, ci.high], rtol=1e-10)
    # simultaneous coverage cannot exceed the coverage at any single n
    assert np.all(ds["coverage_all"] <= ds["coverage"].min("n") + 1e-12)
    # band methods do not use the estimator
    bands = ds.sel({"ci_method": ["dkw", "ks"]})
    for var in ("coverage", "mean_width"):
        assert np.array_equal(bands[var].sel(estimator="U"), bands[var].sel(estimator="W"))
    assert list(ds["ci_method_kind"].values) == ["bootstrap"] * 3 + ["band"] * 2
    for key in ("level", "replicates", "resamples", "seed", "numba_threads", "evpsim_version"):
        assert key in ds.attrs
    for key in ("truth", "truth_description", "truth_lo", "truth_hi", "B", "bounds_lo",
                "bounds_hi"):
        assert key in ds.coords and ds[key].ndim == 0


@pytest.mark.parametrize("truth", ["normal", "tang-big", "bag"])
def test_band_methods_reach_nominal_coverage(truth):
    level = 0.8  # a level low enough for a miss to be seen
    ds = evpsim.coverage(truth, 30, estimators="V", ci_methods="dkw,ks", level=level,
                         replicates=3000, seed=7)
    M = ds.attrs["replicates"]
    for m in ("dkw", "ks"):
        # simultaneous over n, so every n and all n at once reach the level
        k_all = round(float(ds["coverage_all"].sel({"estimator": "V", "ci_method": m})) * M)
        assert clopper_pearson(k_all, M, LEVEL)[1] >= level
        assert np.all(ds["coverage_upper"].sel({"estimator": "V", "ci_method": m}) >= level)


def test_band_intervals_integrate_the_band():
    rng = np.random.default_rng(8)
    B, lo, hi = 20, 0.0, 1.0
    xs = np.sort(rng.beta(5, 2, B))
    lower, upper = ks_band(B, 0.9)
    ivs = np.empty((1, B, 2))
    band_intervals(xs, lo, hi, lower[None], upper[None], ivs)
    edges = np.concatenate([[lo], xs, [hi]])
    for n in (1, 5, B):
        # theta = hi - int F^n: a larger CDF gives a smaller expected maximum
        assert ivs[0, n - 1, 0] == pytest.approx(hi - np.sum(np.diff(edges) * upper**n), abs=1e-14)
        assert ivs[0, n - 1, 1] == pytest.approx(hi - np.sum(np.diff(edges) * lower**n), abs=1e-14)
    # the ECDF lies inside the band, so V (its expected maximum) lies inside the interval
    v = evpsim.estimate(xs, "V")
    assert np.all(ivs[0, :, 0] <= v + 1e-12) and np.all(v <= ivs[0, :, 1] + 1e-12)


def test_dkw_and_ks_bands():
    lower, upper = dkw_band(50, 0.95)
    eps = math.sqrt(math.log(40) / 100)
    np.testing.assert_allclose(upper[:5], np.arange(5) / 50 + eps)
    assert lower[0] == 0 and upper[-1] == 1
    kl, ku = ks_band(50, 0.95)
    assert np.all(ku <= upper) and np.all(kl >= lower)  # the exact band is narrower


def test_bit_identical_for_thread_counts():
    script = textwrap.dedent("""
        import hashlib, evpsim
        ds = evpsim.coverage("tang-big", 12, ci_methods="percentile,basic,bca,ks",
                             replicates=60, resamples=300, seed=4)
        keys = ["coverage", "miss_below", "miss_above", "mean_width", "coverage_all"]
        print(hashlib.sha256(b"".join(ds[k].values.tobytes() for k in keys)).hexdigest())
    """)
    assert len(outputs_by_thread_count(script)) == 1


def test_bootstrap_intervals_bit_identical_for_thread_counts():
    script = textwrap.dedent("""
        import hashlib, numpy as np, evpsim
        x = np.random.default_rng(11).normal(0.6, 0.07, 300)
        ds = evpsim.bootstrap_intervals(x, "U,V,W", ci_methods="percentile,basic,bca",
                                        resamples=300, seed=5, distribution=True)
        keys = ["lower", "upper", "estimate", "bootstrap_distribution"]
        print(hashlib.sha256(b"".join(ds[k].values.tobytes() for k in keys)).hexdigest())
    """)
    assert len(outputs_by_thread_count(script)) == 1


def test_counts_do_not_depend_on_chunking_or_workers():
    kw = dict(estimators="U,W", ci_methods="percentile,bca,dkw", replicates=45, resamples=200,
              seed=6)
    a = evpsim.coverage("tang-small", 9, chunk_size=8, **kw)
    b = evpsim.coverage("tang-small", 9, chunk_size=5, workers=2, **kw)
    for var in ("coverage", "miss_below", "miss_above", "coverage_all"):
        assert np.array_equal(a[var], b[var])
    np.testing.assert_allclose(a["mean_width"], b["mean_width"], rtol=1e-13)


def test_selected_budgets_count_as_in_the_full_run():
    kw = dict(estimators="U,V", ci_methods="percentile,bca,ks", replicates=40, resamples=150,
              seed=8)
    full = evpsim.coverage("tang-small", 12, **kw)
    some = evpsim.coverage("tang-small", 12, ns=[12, 3, 7, 3], **kw)
    assert some["n"].values.tolist() == [3, 7, 12]
    for var in ("coverage", "miss_below", "miss_above", "undefined", "mean_width", "theta"):
        assert np.array_equal(some[var], full[var].sel(n=[3, 7, 12]), equal_nan=True), var
    # covered at all three budgets: at least as often as at all twelve
    assert (some["coverage_all"] >= full["coverage_all"]).all()
    with pytest.raises(ValueError, match=r"U does not estimate beyond the B = 12 trials run "
                                         r"\(n = 13 asked for\)"):
        evpsim.coverage("tang-small", 12, ns=[1, 13], **kw)


def test_user_methods():
    def normal(boots, estimate, jackknife, level):
        z = 1.959963984540054
        sd = np.std(boots) * math.sqrt(boots.size / (boots.size - 1))
        return estimate - z * sd, estimate + z * sd

    evpsim.register_ci_method("normal-test", func=normal, description="estimate +- z SD")
    evpsim.register_ci_method("dkw-copy", band=dkw_band)
    try:
        x = np.random.default_rng(9).normal(0.6, 0.07, 15)
        ds = evpsim.bootstrap_intervals(x, "V", ci_methods="normal-test,percentile,dkw-copy,dkw",
                                        resamples=500, bounds=(0, 1), distribution=True)
        for n in (1, 15):
            boots = ds["bootstrap_distribution"].sel(estimator="V", n=n).values
            est = float(ds["estimate"].sel(estimator="V", n=n))
            want = np.array(normal(boots, est, None, 0.95))
            got = ds[["lower", "upper"]].sel({"estimator": "V", "ci_method": "normal-test", "n": n})
            np.testing.assert_allclose([float(got["lower"]), float(got["upper"])], want,
                                       rtol=1e-12)
        sel = ds.sel(estimator="V")
        assert np.array_equal(sel["lower"].sel({"ci_method": "dkw-copy"}),
                              sel["lower"].sel({"ci_method": "dkw"}))
        cov = evpsim.coverage("tang-small", 8, estimators="V", ci_methods="dkw-copy,dkw",
                              replicates=50)
        assert np.array_equal(cov["coverage"].sel({"ci_method": "dkw-copy"}),
                              cov["coverage"].sel({"ci_method": "dkw"}))
        with pytest.raises(ValueError, match="already registered"):
            evpsim.register_ci_method("normal-test", func=normal)
    finally:
        evpsim.unregister_ci_method("normal-test")
        evpsim.unregister_ci_method("dkw-copy")
    assert "normal-test" not in evpsim.list_ci_methods()


@pytest.mark.slow
def test_user_method_in_the_battery():
    # compiles a parallel kernel for the function (about 20 s)
    def percentile_again(boots, estimate, jackknife, level):
        a = 0.5 * (1 - level)
        return np.quantile(boots, a), np.quantile(boots, 1 - a)

    evpsim.register_ci_method("pct-again", func=percentile_again)
    try:
        ds = evpsim.coverage("tang-small", 10, estimators="U,V", ci_methods="pct-again,percentile",
                             replicates=40, resamples=300)
        assert np.array_equal(ds["coverage"].sel({"ci_method": "pct-again"}),
                              ds["coverage"].sel({"ci_method": "percentile"}))
    finally:
        evpsim.unregister_ci_method("pct-again")


@pytest.mark.parametrize("kwargs, error, message", [
    ({"B": 1}, ValueError, "B must be at least 2"),
    ({"level": 1.0}, ValueError, r"level must lie in \(0, 1\)"),
    ({"level": "0.9"}, ValueError, "level must be a number"),
    ({"resamples": 1}, ValueError, "resamples must be at least 2"),
    ({"ci_methods": "percentile,wild"}, ValueError, "unknown CI method 'wild'"),
    ({"ci_methods": "bca,bca"}, ValueError, "ci_methods: CI method listed twice"),
    ({"ci_methods": "bca,"}, ValueError, "ci_methods: empty CI method name"),
    ({"estimators": "V,Z"}, ValueError, "unknown estimator 'Z'"),
    ({"bounds": (0.1, 1.0)}, ValueError, r"bounds \(0.1, 1\) must contain the truth's support"),
    ({"bounds": (1.0, 0.0)}, ValueError, "bounds must be finite with lo < hi"),
    ({"replicates": 0}, ValueError, "replicates must be at least 2"),
])
def test_validation(kwargs, error, message):
    args = {"truth": "normal", "B": 5, "replicates": 10, "resamples": 50, **kwargs}
    with pytest.raises(error, match=message):
        evpsim.coverage(args.pop("truth"), args.pop("B"), **args)


def test_general_estimators_are_rejected():
    evpsim.register_estimator("maxonly", func=lambda xs, n: xs[-1])
    try:
        with pytest.raises(ValueError, match="coverage simulates the intervals of L-statistics only, and maxonly "):
            evpsim.coverage("normal", 5, estimators="V,maxonly", replicates=5, resamples=10)
    finally:
        evpsim.unregister_estimator("maxonly")


def test_bootstrap_intervals_validation():
    with pytest.raises(ValueError, match="bounds: band methods \\(ks\\) need"):
        evpsim.bootstrap_intervals([0.1, 0.2, 0.3], ci_methods="ks")
    with pytest.raises(ValueError, match="must contain every score"):
        evpsim.bootstrap_intervals([0.1, 0.2, 0.3], ci_methods="ks", bounds=(0.15, 1))
    with pytest.raises(ValueError, match="seed must be at least 0"):
        evpsim.bootstrap_intervals([0.1, 0.2, 0.3], seed=-1)
    ds = evpsim.bootstrap_intervals([0.1, 0.2, 0.3], resamples=50)
    assert list(ds["ci_method"].values) == ["percentile", "basic", "bca"]


def test_register_errors():
    with pytest.raises(ValueError, match="give exactly one of func= and band="):
        evpsim.register_ci_method("x")
    with pytest.raises(ValueError, match="CI method name must be"):
        evpsim.register_ci_method("a,b", band=dkw_band)
    with pytest.raises(TypeError, match="band must be a callable"):
        evpsim.register_ci_method("x", band=3)
    with pytest.raises(ValueError, match="cannot unregister built-in"):
        evpsim.unregister_ci_method("bca")
    # a band is tried once (B = 5) at registration, so a wrong shape is refused there
    try:
        with pytest.raises(ValueError, match=r"expected \(6,\) each"):
            evpsim.register_ci_method("bad-band",
                                      band=lambda B, level: (np.zeros(B), np.ones(B)))
    finally:
        if "bad-band" in evpsim.list_ci_methods():
            evpsim.unregister_ci_method("bad-band")
    assert "bad-band" not in evpsim.list_ci_methods()


# --- command line ----------------------------------------------------------------------------

def test_cli_writes_dataset_and_plot(tmp_path, capsys):
    out, fig = tmp_path / "c.nc", tmp_path / "c.png"
    argv = ["coverage", "--dist", "tang-small", "--B", "12", "--estimators", "V,U",
            "--methods", "percentile,bca,ks", "--replicates", "40", "--resamples", "200",
            "--out", str(out), "--plot", str(fig), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "40 samples x 200 bootstrap resamples" in text
    assert "coverage [Clopper-Pearson 95% bounds]" in text and "miss below/above" in text
    assert "distribution-free bands:" in text and "covered at every n at once" in text
    ds = read_netcdf(out)
    assert ds["coverage"].dims == ("estimator", "ci_method", "n")
    assert ds.attrs["resamples"] == 200 and fig.stat().st_size > 10_000
    assert main(argv[:-5] + ["--all", "--quiet"]) == 0
    assert len(capsys.readouterr().out.splitlines()) > 2 * 2 * 12
    assert main(argv[:-5] + ["--n", "6,2", "--quiet"]) == 0
    rows = [ln.split()[0] for ln in capsys.readouterr().out.splitlines() if ln[:4].strip()
            in ("2", "6")]
    assert rows == ["2", "6"] * (2 + 1) * 2  # (2 estimators' bootstrap + bands) x 2 tables


def test_cli_prints_a_table_for_resampling_methods(tmp_path, capsys):
    out = tmp_path / "g.nc"
    argv = ["coverage", "--dist", "normal", "--B", "20", "--estimators", "V", "--ci-methods",
            "gpd-tail", "--replicates", "20", "--resamples", "50", "--n", "1,20", "--quiet",
            "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    ds = read_netcdf(out)
    assert ds["ci_method_kind"].values.tolist() == ["resampling"]
    lines = text.splitlines()
    head = lines.index("coverage [Clopper-Pearson 95% bounds]")
    assert lines[head + 1].split() == ["n", "theta", "gpd-tail"]
    printed = [float(ln.split()[2]) for ln in lines[head + 2:head + 4]]
    assert printed == [round(float(v), 3) for v in
                       ds["coverage"].sel(estimator="V", ci_method="gpd-tail", n=[1, 20])]
    assert "covered at every n at once: gpd-tail" in text


@pytest.mark.parametrize("argv, message", [
    (["--methods", "percentile,nope"], "unknown CI method 'nope'"),
    (["--level", "95"], "--level must lie in (0, 1)"),
    (["--bounds", "0.5"], "argument --bounds: '0.5' is not LO,HI"),
    (["--bounds", "0.2,1"], "must contain the truth's support"),
    (["--B", "1"], "B must be at least 2"),
    (["--out", "c.txt"], "expected a file ending in .nc"),
    (["--n", "0,5"], "--n: every n must be at least 1"),
    (["--n", "5,x"], "argument --n: 'x' is not an integer"),
])
def test_cli_errors(argv, message, capsys):
    try:
        status = main(["coverage", "--replicates", "5", "--resamples", "10"] + argv)
        from_argparse = False
    except SystemExit as exc:  # argparse's own errors: the usage, then one error line
        status, from_argparse = exc.code, True
    assert status == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("evpsim coverage: error: ") and message in lines[-1]
    assert from_argparse or len(lines) == 1
