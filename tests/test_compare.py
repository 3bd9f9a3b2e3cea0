"""Comparing two models (``compare_curves``, ``comparison_errors``, ``evpsim compare``)."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import pytest

import evpsim
from evpsim.cli import main
from evpsim.truths.exact import lstatistic_moments
from evpsim.io.results import read_netcdf
from evpsim.engine.summaries import clopper_pearson
from evpsim.truths import Discrete
from conftest import outputs_by_thread_count

LEVEL = 1 - 1e-6  # Clopper-Pearson level of the statistical assertions
TOL = 1e-12


def assert_rate_in_ci(count, M, p):
    lo, hi = clopper_pearson(count, M, LEVEL)
    assert np.all((lo <= p + 1e-12) & (p - 1e-12 <= hi)), (count / M, p)


def with_replacement(truth, B):
    """Ascending samples of size B from a discrete truth, with probabilities."""
    from scipy.stats import multinomial

    for counts in itertools.product(range(B + 1), repeat=truth.support.size):
        if sum(counts) == B:
            yield np.repeat(truth.support, counts), float(multinomial.pmf(counts, B, truth.pmf))


def without_replacement(pool, B):
    """Ascending samples of B distinct entries of a pool, each subset equally likely."""
    subsets = list(itertools.combinations(range(len(pool)), B))
    for idx in subsets:
        yield np.sort(np.asarray(pool)[list(idx)]), 1.0 / len(subsets)


def exact_pair_rates(outcomes_a, outcomes_b, name):
    """P(est_A > est_B) and P(tie) for every n, by enumerating both models' samples."""
    ea = [(evpsim.estimate(xs, name), p) for xs, p in outcomes_a]
    eb = [(evpsim.estimate(xs, name), p) for xs, p in outcomes_b]
    higher = sum(pa * pb * (a - b > TOL) for a, pa in ea for b, pb in eb)
    tie = sum(pa * pb * (np.abs(a - b) <= TOL) for a, pa in ea for b, pb in eb)
    return higher, tie


# --- exact answers by enumeration ----------------------------------------------------------

def test_pair_rates_match_enumeration_with_replacement():
    # shared support points make tied maxima common
    ta = Discrete([0.2, 0.5, 0.9], [0.3, 0.5, 0.2])
    tb = Discrete([0.2, 0.5, 0.7], [0.2, 0.5, 0.3])
    B, M = 4, 40_000
    ds = evpsim.comparison_errors(ta, tb, [B], every_n=True, replicates=M, seed=4,
                                  chunk_size=1000)
    for name in "UVW":
        higher, tie = exact_pair_rates(with_replacement(ta, B), with_replacement(tb, B), name)
        sub = ds.sel(estimator=name, B=B)
        assert_rate_in_ci(sub["a_higher_count"].values, M, higher)
        assert_rate_in_ci(sub["tie_count"].values, M, tie)
    assert float(ds["tie"].sel(estimator="U", B=B, n=B)) > 0.05


def test_pair_rates_match_enumeration_from_a_pool():
    pool_a = [0.2, 0.5, 0.5, 0.9, 0.3, 0.6]
    pool_b = [0.2, 0.6, 0.5, 0.7, 0.4, 0.45]
    B, M = 3, 40_000
    ds = evpsim.comparison_errors(pool_a, pool_b, [B], every_n=True, pool=True,
                                  replicates=M, seed=8)
    for name in "UVW":
        higher, tie = exact_pair_rates(without_replacement(pool_a, B),
                                       without_replacement(pool_b, B), name)
        sub = ds.sel(estimator=name, B=B)
        assert_rate_in_ci(sub["a_higher_count"].values, M, higher)
        assert_rate_in_ci(sub["tie_count"].values, M, tie)
    # the truth is the exact EVP of each pool's empirical distribution
    ns = np.arange(1, B + 1)
    assert np.allclose(ds["theta_a"], evpsim.empirical(pool_a).theta(ns))
    # with B equal to the pool size every search sees the whole pool
    full = evpsim.comparison_errors(pool_a, pool_b, [6], pool=True, replicates=2_000)
    assert set(np.unique(full["a_higher_count"] + full["tie_count"])) <= {0, 2_000}


@pytest.mark.parametrize("kind", ["discrete", "pool", "resample"])
def test_bitmap_and_sort_paths_draw_the_same_samples(kind):
    from evpsim._kernels import comparisons as K
    from evpsim._kernels.rng import rng_init
    from evpsim._kernels.sampling import KIND_DISCRETE, Sampler, draw_sorted

    code = {"discrete": KIND_DISCRETE, "pool": K.KIND_POOL, "resample": K.KIND_RESAMPLE}[kind]
    rng = np.random.default_rng(0)
    truth = Discrete(np.round(rng.random(150), 3), rng.random(150))
    _, params, table, tc = truth.sampler  # ascending table; params: the guide table
    sampler = Sampler(code, params, table, tc)
    B, m = 12, 50
    with_bits = K.workspace(sampler, B)
    X, idx, perm, counts, bits, pairs, buf = K.workspace(sampler, B)
    with_sort = (X, idx, perm, counts[:0], bits[:0], pairs, buf)
    assert with_bits[4].size == 3  # bitmap words
    st1, st2, st3 = rng_init(1, 2), rng_init(1, 2), rng_init(1, 2)
    for _ in range(4):
        K.draw_block(st1, m, sampler, with_bits)
        K.draw_block(st2, m, sampler, with_sort)
        x1, x2 = with_bits[0][:m], with_sort[0][:m]
        assert np.array_equal(x1, x2) and np.all(np.diff(x1, axis=1) >= 0)
        for row in x1:
            if code == KIND_DISCRETE:  # exactly the truths' own sampler
                xs = np.empty(B)
                draw_sorted(st3, xs, sampler)
                assert np.array_equal(row, xs)
    if code == K.KIND_POOL:
        assert all(np.unique(r).size == B for r in with_bits[1][:m])
    # the bitmap is used only where it is cheaper than sorting
    assert K.workspace(sampler, 3)[4].size == 0


# --- Tang et al. (2020), Figs. 1-2 -------------------------------------------------------------

def test_tang_failure_case_at_b25():
    ds = evpsim.compare_curves("kde:reuters-mlp", "kde:reuters-lstm", 25, replicates=20_000,
                               labels=("MLP", "LSTM"))
    ns = ds["n"].values
    # the truth: the LSTM overtakes the MLP at n = 20
    assert list(ds["better"].values) == ["MLP"] * 19 + ["LSTM"] * 6
    assert (ds["theta_diff"].sel(n=slice(20, 25)) < 0).all()
    # averaged V (and W) order them the other way from n = 20 to 25; U never does
    for name in "VW":
        assert ns[ds["reversed"].sel(estimator=name).values.astype(bool)].tolist() == \
            list(range(20, 26))
    assert not ds["reversed"].sel(estimator="U").any()
    # the Monte Carlo means and spreads agree with the exact moments
    truths = [evpsim.make_truth(s) for s in ("kde:reuters-mlp", "kde:reuters-lstm")]
    for key, truth in zip("ab", truths):
        ws = [evpsim.estimator_weights(e, 25) for e in "UVW"]
        means, variances = lstatistic_moments(truth, 25, ws)
        z = (ds[f"mean_{key}"].values - np.array(means)) / ds[f"mean_{key}_se"].values
        assert np.abs(z).max() < 5
        assert np.allclose(ds[f"sd_{key}"].values, np.sqrt(variances), rtol=0.03)


def test_same_searches_in_both_experiments():
    kw = dict(replicates=5_000, seed=3)
    curves = evpsim.compare_curves("tang-small", "tang-big", 12, **kw)
    errors = evpsim.comparison_errors("tang-small", "tang-big", [10, 12], every_n=True, **kw)
    diag = evpsim.comparison_errors("tang-small", "tang-big", [10, 12], **kw)
    assert np.array_equal(curves["a_higher_count"].values,
                          errors["a_higher_count"].sel(B=12).values)
    assert np.array_equal(diag["wrong"].sel(B=10), errors["wrong"].sel(B=10, n=10))
    assert np.isnan(errors["wrong"].sel(B=10, n=12)).all()
    assert (errors["a_higher_count"].sel(B=10, n=12) == 0).all()


# --- Dodge et al. (2021), §4 and Fig. 2, on the public SST-5 results ---------------------------

def test_sst5_boe_truly_better_from_n4(data_dir):
    cnn = evpsim.make_truth(f"file:{data_dir / 'sst5_cnn_acc.txt'}")
    boe = evpsim.make_truth(f"file:{data_dir / 'sst5_boe_acc.txt'}")
    ns = np.arange(1, 101)
    diff = boe.theta(ns) - cnn.theta(ns)
    # the opposite of Dodge et al. 2021 §4 for their runs: BoE is better from n = 4 on
    assert (diff[:3] < 0).all() and (diff[3:] > 0).all()


def test_sst5_error_rates_pool(data_dir):
    a, b = (f"file:{data_dir / f}" for f in ("sst5_cnn_acc.txt", "sst5_boe_acc.txt"))
    ds = evpsim.comparison_errors(a, b, range(15, 31), pool=True, labels=("CNN", "BoE"),
                                  replicates=10_000, seed=0)
    assert ds["wrong"].dims == ("estimator", "B")
    assert set(ds["better"].values) == {"BoE"}
    assert (ds["theta_diff"] < 0).all()
    for name in "UVW":
        w = ds["wrong"].sel(estimator=name)
        assert float(ds["wrong_lower"].sel(estimator=name, B=15)) > \
            float(ds["wrong_upper"].sel(estimator=name, B=30))
        assert float(w.sel(B=30)) < 0.005
    # what these data show at B = 15: U errs least, W most (CP intervals apart);
    # U's sample maxima tie, V's and W's estimates do not
    at15 = ds.sel(B=15)
    lower, upper = at15["wrong_lower"], at15["wrong_upper"]
    assert float(upper.sel(estimator="U")) < float(lower.sel(estimator="V"))
    assert float(upper.sel(estimator="V")) < float(lower.sel(estimator="W"))
    assert float(at15["tie"].sel(estimator="U")) > 0 and float(at15["tie"].sel(estimator="V")) == 0


def test_exact_and_monte_carlo_truths_agree(data_dir):
    a, b = (f"file:{data_dir / f}" for f in ("sst5_cnn_acc.txt", "sst5_boe_acc.txt"))
    kw = dict(Bs=range(15, 31), pool=True, replicates=5_000, seed=1)
    exact = evpsim.comparison_errors(a, b, **kw)
    mc = evpsim.comparison_errors(a, b, truth_method="mc", truth_replicates=200_000, **kw)
    z = (mc["theta_diff"] - mc["exact_theta_diff"]) / mc["theta_diff_se"]
    assert float(abs(z).max()) < 5
    assert np.array_equal(mc["truth_sign"], exact["truth_sign"])
    # same searches and the same direction of the truth: the same rates
    assert np.array_equal(mc["wrong"], exact["wrong"])


@pytest.mark.slow
def test_sst5_full_size(data_dir):
    a, b = (f"file:{data_dir / f}" for f in ("sst5_cnn_acc.txt", "sst5_boe_acc.txt"))
    for pool in (True, False):
        ds = evpsim.comparison_errors(a, b, range(15, 31), pool=pool, replicates=50_000)
        assert (ds["wrong"].sel(estimator="U") < ds["wrong"].sel(estimator="W")).all()


# --- general estimators, workers and threads ------------------------------------------------

@pytest.mark.slow  # compiles a kernel for a user func= estimator (10-25 s); CI runs it with -m slow
def test_general_estimator_matches_u_at_n_equals_b():
    def sample_max(xs, n):
        return xs[-1]

    evpsim.register_estimator("maxonly2", func=sample_max, description="sample maximum")
    try:
        ds = evpsim.comparison_errors("tang-small", "tang-big", [6], estimators="U,maxonly2",
                                      replicates=3_000)
    finally:
        evpsim.unregister_estimator("maxonly2")
    counts = ds["a_higher_count"].sel(B=6).values
    assert counts[0] == counts[1]


def test_workers_do_not_change_results():
    kw = dict(Bs=[8, 9], replicates=6_000, chunk_size=500, seed=2)
    one = evpsim.comparison_errors("tang-small", "tang-big", workers=1, **kw)
    two = evpsim.comparison_errors("tang-small", "tang-big", workers=2, **kw)
    assert np.array_equal(one["a_higher_count"], two["a_higher_count"])


def test_bit_identical_for_thread_counts():
    script = textwrap.dedent("""
        import hashlib, evpsim
        ds = evpsim.compare_curves("kde:reuters-mlp", "kde:reuters-lstm", 10,
                                   replicates=20_000, chunk_size=1_000, seed=9)
        keys = ["a_higher_count", "tie_count", "mean_a", "sd_a", "mean_b", "sd_b"]
        print(hashlib.sha256(b"".join(ds[k].values.tobytes() for k in keys)).hexdigest())
    """)
    assert len(outputs_by_thread_count(script)) == 1


# --- validation and the command line --------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, message", [
    ({"Bs": [20, 15]}, ValueError, "Bs must be strictly increasing"),
    ({"Bs": []}, ValueError, "Bs is empty"),
    ({"Bs": [1, 5]}, ValueError, "Bs must be at least 2"),
    ({"every_n": "yes"}, TypeError, "every_n must be True or False"),
    ({"pool": True}, ValueError, "pool sampling draws from real results: give a"),
    ({"labels": ("X", "X")}, ValueError, "labels must be two different"),
    ({"truth_method": "bag"}, ValueError, "truth_method must be one of"),
    ({"a": 3.0}, TypeError, "a must be a truth spec"),
])
def test_validation(kwargs, error, message):
    args = {"a": "tang-small", "b": "tang-big", "Bs": [5], **kwargs}
    with pytest.raises(error, match=message):
        evpsim.comparison_errors(args.pop("a"), args.pop("b"), **args)


def test_pool_larger_than_b_is_an_error():
    with pytest.raises(ValueError, match="B = 7 exceeds the pool of 6 scores of A"):
        evpsim.compare_curves(np.arange(6.0), np.arange(8.0), 7, pool=True)


def test_cli_curves(tmp_path, capsys):
    out, fig = tmp_path / "c.nc", tmp_path / "c.png"
    assert main(["compare", "--a", "tang-small", "--b", "tang-big", "--B", "20",
                 "--replicates", "3000", "--labels", "small,big", "--out", str(out),
                 "--plot", str(fig), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "truly better" in text and "A = small" in text and "averaged estimates" in text
    ds = read_netcdf(out)
    assert ds["mean_a"].dims == ("estimator", "n") and ds["B"].item() == 20
    assert list(ds["better"].values) == ["small"] * 14 + ["big"] * 6
    assert fig.stat().st_size > 0


def test_cli_range(tmp_path, capsys, data_dir):
    out, fig = tmp_path / "e.nc", tmp_path / "e.png"
    argv = ["compare", "--a", f"file:{data_dir / 'sst5_cnn_acc.txt'}",
            "--b", f"file:{data_dir / 'sst5_boe_acc.txt'}", "--B", "15:18", "--pool",
            "--every-n", "--replicates", "2000", "--out", str(out), "--plot", str(fig),
            "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "without replacement from the pool" in text and "U wrong" in text
    assert read_netcdf(out)["wrong"].dims == ("estimator", "B", "n")
    assert fig.stat().st_size > 0


@pytest.mark.parametrize("argv, message", [
    (["--B", "30:15"], "'30:15': a range LO:HI needs LO <= HI"),
    (["--B", "a:3"], "'a' is not an integer"),
    (["--B", "101", "--pool"], "B = 101 exceeds the pool of 100 scores"),
    (["--B", "25", "--every-n"], "--every-n applies to a range of budgets"),
    (["--labels", "CNN"], "give two names separated by a comma"),
])
def test_cli_errors(argv, message, capsys, data_dir):
    base = ["compare", "--a", f"file:{data_dir / 'sst5_cnn_acc.txt'}",
            "--b", f"file:{data_dir / 'sst5_boe_acc.txt'}", "--quiet"]
    try:
        status = main(base + argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    assert message in capsys.readouterr().err
