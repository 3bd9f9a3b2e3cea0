"""Every estimator in ``curve``: Python estimators bootstrapped on the resamples
themselves, curves beyond B (``n_max``), and ``--import`` of a user's module.

The strongest check: a Python estimator that reimplements U sees exactly the
resamples the L-statistic kernels see, so its bootstrap estimates and every
bootstrap interval equal U's to rounding.
"""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import evpsim
from evpsim._validate import InvalidArgument
from evpsim.io.shipped import read_results
from evpsim.estimators.weights import weights_u

ROOT = Path(__file__).resolve().parents[1]
LEVEL = 0.95


def u_again(scores, ns):
    """U computed in Python from its weights: the L-statistic, not through the kernels."""
    xs = np.sort(scores)
    return weights_u(xs.size, ns) @ xs


@pytest.fixture
def u_py():
    evpsim.register_estimator("u-py", python=u_again, description="U, in Python")
    yield "u-py"
    evpsim.unregister_estimator("u-py")


@pytest.mark.parametrize("B", [7, 31, 145])  # odd B; the kernels' B <= 64 and B > 64 paths
def test_python_u_gives_us_bootstrap(u_py, B):
    xs = np.random.default_rng(B).normal(0.7, 0.05, size=B)
    ds = evpsim.bootstrap_intervals(xs, f"U,{u_py}", ci_methods="percentile,basic,bca",
                                    resamples=1500, seed=3, stream=2, distribution=True)
    u, p = ds.sel(estimator="U"), ds.sel(estimator=u_py)
    np.testing.assert_allclose(p["bootstrap_distribution"], u["bootstrap_distribution"],
                               rtol=0, atol=1e-13)
    for var in ("estimate", "lower", "upper"):
        np.testing.assert_allclose(p[var], u[var], rtol=0, atol=1e-13)
    assert ds["resamples_used"].values.tolist() == [1500, 1500]
    assert int(ds["failed_resamples"].sum()) == 0


def test_python_u_percentile_is_the_quantile_of_its_resamples(u_py):
    """The percentile interval against numpy's quantile of U on resamples drawn as the
    bootstrap draws them (B uniform indices into the sorted sample)."""
    from evpsim._kernels.resamples import resample_indices

    xs = np.sort(np.random.default_rng(5).uniform(size=20))
    idx = np.empty((400, 20), dtype=np.int64)
    resample_indices(0, 0, idx)
    assert idx.min() >= 0 and idx.max() < 20
    # the draws are uniform: every point drawn about R times in all
    counts = np.bincount(idx.ravel(), minlength=20)
    assert abs(counts - 400).max() < 5 * np.sqrt(400)
    boots = np.array([u_again(xs[i], np.arange(1, 21)) for i in idx])
    want = np.quantile(boots, [0.025, 0.975], axis=0)
    ds = evpsim.bootstrap_intervals(xs, u_py, ci_methods="percentile", resamples=400)
    got = ds.sel(estimator=u_py, ci_method="percentile")
    np.testing.assert_allclose(got["lower"], want[0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(got["upper"], want[1], rtol=0, atol=1e-14)


def test_curve_python_u_equals_u(u_py):
    scores = {"A": np.random.default_rng(1).normal(0.7, 0.05, 40),
              "B": np.random.default_rng(2).normal(0.71, 0.05, 35)}
    ds = evpsim.curve(scores, estimators=f"U,{u_py}", ci_methods="percentile,bca",
                      resamples=800)
    u, p = ds.sel(estimator="U"), ds.sel(estimator=u_py)
    for var in ("estimate", "lower", "upper", "difference", "difference_lower",
                "difference_upper", "share_ahead"):
        np.testing.assert_allclose(p[var], u[var], rtol=0, atol=1e-12, err_msg=var)


def test_python_estimator_failures_left_out_and_counted():
    """An estimator that fails on some resamples: its intervals come from the others."""
    def fussy(scores, ns):
        if scores[0] == scores.max():  # fails where the first point drawn is the best
            raise ValueError("no")
        return np.full(ns.size, np.mean(scores))

    evpsim.register_estimator("fussy", python=fussy)
    try:
        xs = np.array([0.6, 0.8, 0.7, 0.9, 0.75, 0.65, 0.85, 0.72])
        ds = evpsim.bootstrap_intervals(xs, "fussy", ci_methods="percentile", resamples=500,
                                        distribution=True)
        boot = ds["bootstrap_distribution"].sel(estimator="fussy").values
        bad = ~np.isfinite(boot[:, 0])
        assert 0 < bad.sum() < 500
        assert (ds["failed_resamples"].values == bad.sum()).all()
        want = np.quantile(boot[~bad, 0], [0.025, 0.975])
        iv = ds.sel(estimator="fussy", ci_method="percentile", n=1)
        np.testing.assert_allclose([iv["lower"], iv["upper"]], want, rtol=0, atol=1e-15)
    finally:
        evpsim.unregister_estimator("fussy")


def test_resampling_methods_stay_lstatistic_only(u_py):
    xs = np.random.default_rng(0).normal(size=30)
    with pytest.raises(InvalidArgument, match="ci_methods: gpd-tail reweights resamples "
                                              "through an L-statistic's weights, and u-py is "
                                              "not one: add a bootstrap method"):
        evpsim.curve(xs, estimators=f"V,{u_py}", ci_methods="gpd-tail", resamples=100)
    ds = evpsim.curve(xs, estimators=f"V,{u_py}", resamples=200)  # default: percentile beside
    assert ds["ci_method"].values.tolist() == ["gpd-tail-bounded", "percentile"]
    assert ds["applies"].values.tolist() == [[True, True], [False, True]]
    assert np.isnan(ds["lower"].sel(estimator=u_py, ci_method="gpd-tail-bounded")).all()
    assert np.isfinite(ds["lower"].sel(estimator=u_py, ci_method="percentile")).all()


def test_v_beyond_b_against_the_closed_form():
    """V at n > B is the expected best of n draws from the ECDF:
    sum_i x_(i) ((i/B)^n - ((i-1)/B)^n); its SD the same distribution's."""
    xs = np.sort(read_results(["data:reuters-mlp"])[0].scores)
    B = xs.size
    ns = np.array([1, B, B + 1, 2 * B, 5 * B])
    i = np.arange(1, B + 1)
    w = (i[None, :] / B) ** ns[:, None] - ((i[None, :] - 1) / B) ** ns[:, None]
    mean = w @ xs
    sd = np.sqrt(w @ xs**2 - mean**2)
    ds = evpsim.curve(xs, estimators="V,U", ci_methods="percentile,ld-equal-tailed",
                      bounds=(0, 1), resamples=1000, n_max=5 * B).sel(model="model")
    assert ds.sizes["n"] == 5 * B and int(ds["n_max"]) == 5 * B
    np.testing.assert_allclose(ds["estimate"].sel(estimator="V", n=ns), mean, rtol=1e-12)
    np.testing.assert_allclose(ds["sd"].sel(n=ns), sd, rtol=1e-6, atol=1e-9)
    # U stops at B; V's intervals go on, the percentile one below the best score observed
    assert np.isnan(ds["estimate"].sel(estimator="U", n=B + 1))
    assert np.isnan(ds["lower"].sel(estimator="U", n=B + 1)).all()
    beyond = ds.sel(estimator="V", n=ns[2:])
    assert np.isfinite(beyond["lower"]).all() and np.isfinite(beyond["upper"]).all()
    assert (beyond["upper"].sel(ci_method="percentile") <= xs[-1]).all()
    assert (beyond["lower"] <= beyond["estimate"]).all()
    # the same resamples as the curve up to B: its values there do not change
    base = evpsim.curve(xs, estimators="V,U", ci_methods="percentile,ld-equal-tailed",
                        bounds=(0, 1), resamples=1000).sel(model="model")
    for var in ("estimate", "lower", "upper", "free_bound"):
        np.testing.assert_array_equal(ds[var].sel(n=slice(1, B)), base[var], err_msg=var)
    assert np.isfinite(ds["free_bound"]).all()
    assert (np.diff(ds["free_bound"].values) >= 0).all()


def test_n_max_refused_where_it_cannot_apply():
    xs = np.linspace(0.5, 0.9, 20)
    with pytest.raises(InvalidArgument, match=r"n_max must lie in B..100 B = 20..2,000 \(it "
                                              r"extends the curves beyond the B = 20 trials "
                                              r"run\), got 19"):
        evpsim.curve(xs, n_max=19)
    t0 = time.perf_counter()
    with pytest.raises(InvalidArgument, match="n_max must lie in B..100 B"):
        evpsim.curve(xs, n_max=10**30)
    assert time.perf_counter() - t0 < 5
    with pytest.raises(InvalidArgument, match="U does not estimate beyond the B = 20 trials "
                                              "run.*estimators that extrapolate: V, quantile"):
        evpsim.curve(xs, estimators="U,W", n_max=40)


@pytest.mark.slow  # six of opda's fits: about 45 s
def test_opda_parametric_in_curve():
    """opda's fit as opda gives it, on the scores and on each resample, beyond B too."""
    from opda.parametric import NoisyQuadraticDistribution
    from evpsim._kernels.resamples import resample_indices

    xs = np.random.default_rng(4).normal(0.8, 0.03, size=10)
    ns = np.arange(1, 21)

    def opda_curve(sample):
        dist = NoisyQuadraticDistribution.fit(sample, constraints={"convex": False},
                                              generator=np.random.default_rng(0))
        return dist.average_tuning_curve(ns)

    # two resamples, each an opda fit here and in evpsim (the fits are this test's time):
    # the percentile ends are interpolated between the two, as between any number
    ds = evpsim.curve(xs, estimators="opda-parametric", ci_methods="percentile", resamples=2,
                      n_max=20)
    got = ds.sel(model="model", estimator="opda-parametric")
    np.testing.assert_allclose(got["estimate"], opda_curve(xs), rtol=1e-12)
    idx = np.empty((2, 10), dtype=np.int64)
    resample_indices(0, 0, idx)
    boots = np.array([opda_curve(np.sort(xs)[i]) for i in idx])
    want = np.quantile(boots, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(got["lower"].sel(ci_method="percentile"), want[0], rtol=1e-10)
    np.testing.assert_allclose(got["upper"].sel(ci_method="percentile"), want[1], rtol=1e-10)
    assert int(ds["resamples_used"].item()) == 2


# --- the command line ------------------------------------------------------------------

MODULE = '''
    import numpy as np
    import evpsim
    from evpsim.estimators.weights import weights_u

    def u_again(scores, ns):
        xs = np.sort(scores)
        return weights_u(xs.size, ns) @ xs

    evpsim.register_estimator("my-python-estimator", python=u_again, description="U again")
'''


def _run(args, tmp_path, env_extra=None, timeout=600):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           **(env_extra or {})}
    env.pop("EVPSIM_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "evpsim", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _row(lines, n):
    """The cells of the first table row of budget n."""
    return next(ln.split() for ln in lines if ln.split()[:1] == [str(n)])


def test_import_a_module_and_run_its_estimator_in_curve(tmp_path):
    """The command of the done-when line: both curves, with intervals, and the Python
    estimator's percentile interval equal to U's through the L-statistic kernels."""
    (tmp_path / "mymodule.py").write_text(textwrap.dedent(MODULE))
    out = _run(["curve", "data:reuters-mlp", "--import", "mymodule", "--estimators",
                "V,my-python-estimator", "--resamples", "2000", "--quiet"], tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    head = next(ln for ln in lines if ln.split()[:1] == ["n"])
    assert "V gpd-tail-bounded" in head and "my-python-estimator percentile" in head
    assert "gpd-tail-bounded,percentile: percentile runs my-python-estimator on each " \
           "resample: the default, gpd-tail-bounded, works for L-statistics only" in out.stdout
    assert "my-python-estimator (python estimator): percentile from the estimator run on " \
           "each of 2,000 resamples" in out.stdout
    xs = read_results(["data:reuters-mlp"])[0].scores
    u = evpsim.bootstrap_intervals(xs, "U", ci_methods="percentile", resamples=2000)
    B = xs.size
    for n in (1, 10, B):
        cells = _row(lines, n)
        v, mine = float(cells[1]), float(cells[2])
        assert v == pytest.approx(evpsim.estimate(xs, "V", ns=[n])[0], abs=5e-5)
        assert mine == pytest.approx(evpsim.estimate(xs, "U", ns=[n])[0], abs=5e-5)
        lo, hi = (float(c.strip("[],")) for c in cells[-3:-1])  # my-python-estimator's
        iv = u.sel(estimator="U", ci_method="percentile", n=n)
        assert (lo, hi) == (pytest.approx(float(iv["lower"]), abs=5e-5),
                            pytest.approx(float(iv["upper"]), abs=5e-5))


def test_import_from_the_environment_and_n_max(tmp_path):
    (tmp_path / "mymodule.py").write_text(textwrap.dedent(MODULE))
    out = _run(["curve", "data:reuters-mlp", "--estimators", "V,my-python-estimator",
                "--ci-methods", "percentile", "--resamples", "200", "--n-max", "300",
                "--quiet"], tmp_path, {"EVPSIM_IMPORT": "json, mymodule"})
    assert out.returncode == 0, out.stderr
    assert "curves extended to n = 300 (--n-max); my-python-estimator stops at B" \
        in out.stdout
    cells = _row(out.stdout.splitlines(), 300)
    assert cells[2] == "-" and cells[-3:-1] == ["[-,", "-]"]


@pytest.mark.parametrize("body, env, message", [
    (None, None, "--import missing: cannot import missing: no module named 'missing' (in the "
                 "current folder or on PYTHONPATH)"),
    ("raise RuntimeError('broken\\nhere')", None,
     "--import broken: module broken raised RuntimeError: broken here"),
    ("import sys; sys.exit(3)", None, "--import exits: module exits called sys.exit(3)"),
    ("import sys; sys.exit(3)", "exits", "EVPSIM_IMPORT=exits: module exits called sys.exit(3)"),
])
def test_import_errors_are_one_line(tmp_path, body, env, message):
    name = message.split()[1].rstrip(":") if env is None else env
    if body is not None:
        (tmp_path / f"{name}.py").write_text(body)
    args = ["list"] + ([] if env else ["--import", name])
    out = _run(args, tmp_path, {"EVPSIM_IMPORT": env} if env else None, timeout=120)
    assert out.returncode == 2
    assert out.stderr == f"evpsim list: error: {message}\n"
    assert out.stdout == ""


def test_import_name_checked(tmp_path):
    out = _run(["bias", "--import", "not-a-name"], tmp_path, timeout=120)
    assert out.returncode == 2
    assert out.stderr == ("evpsim bias: error: --import not-a-name: 'not-a-name' is not a "
                          "module name (dotted Python identifiers, e.g. mymodule or "
                          "mypackage.estimators)\n")


@pytest.mark.parametrize("args, message", [
    (["curve", "data:reuters-mlp", "--n-max", "100"],
     "--n-max must lie in B..100 B = 145..14,500"),
    (["curve", "data:reuters-mlp", "--n-max", "1e30"], "--n-max must lie in B..100 B"),
    (["curve", "data:reuters-mlp", "--estimators", "U", "--n-max", "200"],
     "--estimators: U does not estimate beyond the B = 145 trials run"),
    (["curve", "data:reuters-mlp", "--n-max", "200", "--check"],
     "--check measures coverage up to each model's B: run it without --n-max"),
    (["curve", "data:reuters-mlp", "--estimators", "V,kde", "--check"],
     "--check simulates the intervals of L-statistics only, not of kde"),
    (["curve", "data:reuters-mlp", "--estimators", "kde", "--ci-methods", "gpd-tail"],
     "--ci-methods: gpd-tail reweights resamples through an L-statistic's weights, and kde "
     "is not one"),
    (["curve", "data:reuters-mlp", "--estimators", "kde", "--python-resamples", "1"],
     "--python-resamples must be at least 2"),
    (["bias", "--n", "5,5,3"], "--n lists n = 5 twice: give each budget once"),
    (["bias", "--n-max", "1000000000000000"], "--n-max must lie in B..100 B = 30..3,000"),
    (["coverage", "--estimators", "V", "--n", "1,6000"],
     "--n: every n must be at most 100 B = 5,000 (B = 50 trials run), got 6,000"),
])
def test_budget_and_estimator_options_refused_in_one_line(tmp_path, args, message):
    t0 = time.perf_counter()
    out = _run(args + ["--quiet"], tmp_path, timeout=120)
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith(f"evpsim {args[0]}: error: {message}")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert time.perf_counter() - t0 < 60  # refused before any work


def test_docs_claim_python_estimators_run_in_every_battery_but_coverage(u_py):
    """docs/guide/estimators.md: a registered Python estimator runs in every battery but
    coverage, and in curve."""
    text = " ".join((ROOT / "docs" / "guide" / "estimators.md").read_text().split())
    assert ("then runs in `curve` and in every battery but `coverage`, beside the built-in "
            "estimators and on the same searches") in text
    xs = np.random.default_rng(0).normal(0.7, 0.05, 12)
    ds = evpsim.curve(xs, estimators=u_py, resamples=50)   # percentile alone by default
    assert ds["ci_method"].values.tolist() == ["percentile"]
    assert np.isfinite(ds["lower"]).all()
    assert np.isfinite(evpsim.bias("normal", B=8, estimators=u_py, replicates=50,
                                   method="mc")["bias"]).all()
    assert np.isfinite(evpsim.falseconc("normal", B=8, estimators=u_py,
                                        replicates=50)["below"]).all()
    with pytest.raises(InvalidArgument, match="coverage simulates the intervals of "
                                              "L-statistics only, and u-py"):
        evpsim.coverage("normal", B=8, estimators=u_py, replicates=50, resamples=50)
