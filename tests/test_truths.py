"""Ground truths: exact theta, samplers, parsing and errors."""

import numpy as np
import pytest
from scipy import stats

import evpsim
from evpsim.io.searchfiles import read_scores
from evpsim.truths import TruncatedNormal, bag, make_truth


@pytest.mark.parametrize("spec", ["normal", "tang-small", "tang-big"])
def test_truncnorm_theta_matches_adaptive_quadrature(spec):
    t = make_truth(spec)
    ns = np.array([1, 2, 5, 30, 100, 1000])
    np.testing.assert_allclose(t.theta(ns), t.theta_quad(ns), rtol=0, atol=1e-11)


@pytest.mark.parametrize("mu, sigma, lo, hi", [
    (0.6, 0.07, 0.0, 1.0),     # Dodge et al.'s truth: both bounds far out
    (0.0, 1.0, -0.5, 0.5),     # cut near the centre
    (-3.0, 0.1, 0.0, 1.0),     # the upper tail alone (a > 0): 30 SD out
    (3.0, 0.1, 0.0, 1.0),      # the lower tail alone (b < 0)
    (0.5, 100.0, 0.0, 1.0),    # nearly uniform
    (0.99, 0.002, 0.0, 1.0),   # mass against the upper bound
])
def test_truncnorm_functions_match_scipy(mu, sigma, lo, hi):
    # evpsim's CDF, survival function and quantiles (scipy.special only)
    # against scipy.stats.truncnorm, in the body and far into both tails
    t = TruncatedNormal(mu, sigma, lo, hi)
    ref = stats.truncnorm(t.a, t.b, loc=mu, scale=sigma)
    xs = np.concatenate([[lo - 1.0, lo, hi, hi + 1.0], ref.ppf(np.geomspace(1e-16, 0.5, 40)),
                         ref.isf(np.geomspace(1e-16, 0.5, 40))])
    # what rounding allows either: near a bound, the larger normal tail area's
    # rounding (ndtr's, a few ulps) over the mass; anywhere, the density times
    # the rounding of x and of x - mu
    mass = stats.norm.sf(t.a) - stats.norm.sf(t.b) if t.a > 0 else \
        stats.norm.cdf(t.b) - stats.norm.cdf(t.a)
    edge = max(min(stats.norm.cdf(v), stats.norm.sf(v)) for v in (t.a, t.b))

    def rounding(x):
        return 64 * np.finfo(float).eps * edge / mass \
            + 4.0 * ref.pdf(x) * (np.spacing(np.abs(x)) + np.spacing(np.abs(x - mu)))

    for got, want in ((t.cdf(xs), ref.cdf(xs)), (t.sf(xs), ref.sf(xs))):
        assert np.all(np.abs(got - want) <= 1e-9 * np.abs(want) + rounding(xs))
    # quantiles: in the body as scipy's; in the tails (where scipy's isf is
    # off by up to 1e-10 for Dodge et al.'s truth) back through the CDF
    body = np.linspace(0.001, 0.999, 50)
    np.testing.assert_allclose(t.quantile(body), ref.ppf(body), rtol=1e-12,
                               atol=1e-12 * (hi - lo))
    ps = np.geomspace(1e-15, 0.5, 60)
    for x, back in ((t.quantile(ps), t.cdf), (t.quantile(1.0 - ps, tails=ps), t.sf)):
        assert np.all((lo <= x) & (x <= hi))
        assert np.all(np.abs(back(x) - ps) <= 1e-9 * ps + rounding(x))


def test_truncnorm_theta_one_is_the_mean():
    for spec in ["normal", "tang-small", "tang-big"]:
        t = make_truth(spec)
        ref = stats.truncnorm(t.a, t.b, loc=t.mu, scale=t.sigma)
        assert t.theta([1])[0] == pytest.approx(ref.mean(), abs=1e-12)


def test_discrete_theta_matches_definition():
    rng = np.random.default_rng(3)
    xs, ps = rng.random(50), rng.random(50)
    t = evpsim.Discrete(xs, ps)
    order = np.argsort(xs)
    s, p = xs[order], ps[order] / ps.sum()
    F = np.cumsum(p)
    Fm = np.concatenate([[0.0], F[:-1]])
    for n in (1, 3, 17):
        assert t.theta([n])[0] == pytest.approx(np.sum(s * (F**n - Fm**n)), abs=1e-13)


@pytest.mark.parametrize("params", [
    (0.6, 0.07, 0.0, 1.0),    # normal rejection
    (0.5, 0.1, 0.0, 0.6),     # tang-small
    (0.0, 1.0, 3.0, 3.2),     # narrow tail interval: uniform proposal
    (0.0, 1.0, 4.0, 9.0),     # right tail: exponential proposal
    (0.0, 1.0, -7.0, -5.0),   # left tail: mirrored exponential
    (0.0, 1.0, -0.1, 0.1),    # narrow central interval
])
def test_sampler_follows_the_truncated_normal(params):
    t = TruncatedNormal(*params)
    xs = t.sample(200_000, seed=11)
    assert xs.min() >= t.lo and xs.max() <= t.hi
    res = stats.kstest(xs, t.cdf)
    assert res.pvalue > 1e-3, res


def test_discrete_sampler_frequencies():
    t = evpsim.Discrete([0.1, 0.5, 0.9], [0.2, 0.5, 0.3])
    xs = t.sample(300_000, seed=1)
    counts = np.array([(xs == v).sum() for v in t.support])
    res = stats.chisquare(counts, 300_000 * t.pmf)
    assert res.pvalue > 1e-3


def test_samples_depend_only_on_seed_and_stream():
    t = make_truth("normal")
    a = t.sample(1000, seed=5, stream=2)
    np.testing.assert_array_equal(a, t.sample(1000, seed=5, stream=2))
    assert not np.array_equal(a, t.sample(1000, seed=5, stream=3))
    assert not np.array_equal(a, t.sample(1000, seed=6, stream=2))


def test_bag_is_reproducible_and_like_the_papers():
    b1, b2 = bag(), bag()
    np.testing.assert_array_equal(b1.support, b2.support)
    # the paper's bag had 9,536 unique values of 10,000; expected ~9,516
    assert 9400 < b1.support.size < 9650
    assert b1.pmf.sum() == pytest.approx(1.0)


def test_empirical_truth_from_file(data_dir):
    t = make_truth(f"file:{data_dir / 'reuters_mlp_f1.txt'}")
    xs = np.loadtxt(data_dir / "reuters_mlp_f1.txt")
    assert t.theta([1])[0] == pytest.approx(xs.mean(), abs=1e-12)
    assert t.theta([10_000])[0] == pytest.approx(xs.max(), abs=1e-6)
    assert t.support.size == np.unique(xs).size


def test_read_scores_csv(tmp_path):
    f = tmp_path / "runs.csv"
    f.write_text("lr,acc\n0.1,0.5\n0.2,0.7\n")
    np.testing.assert_array_equal(read_scores(f, column="acc"), [0.5, 0.7])
    np.testing.assert_array_equal(read_scores(f, column="1"), [0.5, 0.7])
    with pytest.raises(ValueError, match="choose one with column"):
        read_scores(f)
    with pytest.raises(ValueError, match="no column 'f1'"):
        read_scores(f, column="f1")


@pytest.mark.parametrize("text, message", [
    ("", "holds no scores"),
    ("# only a comment\n\n", "holds no scores"),
    ("0.5\nabc\n", "line 2: 'abc' is not a number"),
    ("0.5\nnan\n", "line 2: score is 'nan'"),
])
def test_read_scores_errors(tmp_path, text, message):
    f = tmp_path / "s.txt"
    f.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_scores(f)


def test_file_truth_needs_two_scores(tmp_path):
    f = tmp_path / "one.txt"
    f.write_text("0.5\n")
    with pytest.raises(ValueError, match="at least 2"):
        make_truth(f"file:{f}")


@pytest.mark.parametrize("kwargs, message", [
    ({"sigma": 0.0}, r"sigma must lie in \(0, inf\)"),
    ({"lo": 1.0, "hi": 0.0}, "lo must be below hi"),
    ({"mu": float("nan")}, "mu must be a finite number"),
    ({"mu": 50.0, "sigma": 0.01}, "no usable mass"),
])
def test_impossible_truth_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_truth("normal", **kwargs)


def test_unknown_truth_and_misplaced_options():
    with pytest.raises(ValueError, match="unknown truth 'gauss'"):
        make_truth("gauss")
    with pytest.raises(ValueError, match="apply only to the 'normal' truth"):
        make_truth("bag", mu=0.3)
    with pytest.raises(ValueError, match="needs an argument"):
        make_truth("file:")


def test_discrete_errors():
    with pytest.raises(ValueError, match="non-negative"):
        evpsim.Discrete([0.1, 0.2], [0.5, -0.1])
    with pytest.raises(ValueError, match="sums to zero"):
        evpsim.Discrete([0.1, 0.2], [0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        evpsim.Discrete([0.1, 0.2], [1.0])


def test_file_truth_reads_json_lines_by_field(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"acc": 0.5, "lr": 1}\n{"acc": 0.7, "lr": 2}\n{"acc": 0.6, "lr": 3}\n')
    truth = make_truth(f"file:{path}", column="acc")
    np.testing.assert_array_equal(truth.theta([1]), [0.6])
