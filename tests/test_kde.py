"""Discretized-KDE ground truths: fitting, committed fits, ``kde:`` truths, ``fit-kde``."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, needs_data
from scipy import integrate, stats

import evpsim
from evpsim.cli import main
from evpsim.io.shipped import package_data
from evpsim.truths.kde import (
    fit_kde,
    kde_bandwidth,
    list_kde_fits,
    load_kde,
)
from evpsim.io.results import read_netcdf
from evpsim.io.searchfiles import read_jsonl_scores, read_scores
from evpsim.truths import Discrete, make_truth

REPO = Path(__file__).resolve().parent.parent
FITS = package_data("kde_fits")
BUILD = REPO / "kde_fits" / "build.py"


def _scores(seed=0, size=40):
    return np.round(np.random.default_rng(seed).normal(0.8, 0.05, size), 4)


# --- bandwidths and grids against Tang et al. Table 2 -------------------------------------

@pytest.mark.parametrize("name, bw, lo, hi", [
    ("reuters-mlp", 0.004875, 0.72, 0.82),
    ("reuters-lstm", 0.059233, -0.18, 1.08),
])
def test_committed_fits_match_tang_table2(name, bw, lo, hi):
    fit = read_netcdf(FITS / f"{name}.nc")
    a = fit.attrs
    assert a["bandwidth"] == pytest.approx(bw, abs=1e-6)
    assert a["bandwidth_rule"] == "normal-reference"
    assert (round(a["grid_lo"], 2), round(a["grid_hi"], 2)) == (lo, hi)
    assert a["bins"] == 511 and fit.sizes["x"] == 511 and fit.sizes["edge"] == 512
    assert a["construction"] == "tang2020"


@needs_data
def test_bandwidth_from_raw_scores():
    for name, bandwidth in [("reuters_mlp_f1.txt", 0.004875), ("reuters_lstm_f1.txt", 0.059233)]:
        assert kde_bandwidth(read_scores(DATA / name)) == pytest.approx(bandwidth, abs=1e-6)


def test_bandwidth_rules():
    xs = _scores()
    sd = np.std(xs, ddof=1)
    iqr = np.subtract(*np.percentile(xs, [75, 25])) / 1.349
    base = min(sd, iqr) * xs.size ** -0.2
    assert kde_bandwidth(xs) == pytest.approx((4 / 3) ** 0.2 * base, rel=1e-14)
    assert kde_bandwidth(xs, "scott") == pytest.approx(1.059 * base, rel=1e-14)
    assert kde_bandwidth(xs, "silverman") == pytest.approx(0.9 * base, rel=1e-14)
    # a zero IQR falls back to the standard deviation (statsmodels' rule)
    tied = np.array([0.5] * 8 + [0.4, 0.9])
    assert kde_bandwidth(tied) == pytest.approx(
        (4 / 3) ** 0.2 * np.std(tied, ddof=1) * 10 ** -0.2, rel=1e-14)
    assert fit_kde(xs, bandwidth=0.01).attrs["bandwidth"] == 0.01
    assert fit_kde(xs, bandwidth=0.01).attrs["bandwidth_rule"] == "given"


# --- the constructions ---------------------------------------------------------------------

def test_tang2020_masses_by_quadrature():
    """Interval masses equal the integrated mixture density, at the left edges."""
    xs = _scores(1, 25)
    fit = fit_kde(xs, bins=40)
    bw = fit.attrs["bandwidth"]
    grid = np.linspace(xs.min() - 3 * bw, xs.max() + 3 * bw, 41)
    np.testing.assert_array_equal(fit["x"].values, grid[:-1])
    np.testing.assert_allclose(fit["edges"].values, grid, rtol=0, atol=0)

    def density(t):
        return stats.norm.pdf(t, loc=xs, scale=bw).mean()

    raw = np.array([integrate.quad(density, a, b, epsabs=1e-15, epsrel=1e-13)[0]
                    for a, b in itertools.pairwise(grid)])
    np.testing.assert_allclose(fit["pmf"].values, raw / raw.sum(), rtol=1e-10, atol=1e-16)
    assert fit.attrs["mass_outside_grid"] == pytest.approx(1 - raw.sum(), rel=1e-6)


def test_masses_sum_to_one_in_every_committed_fit():
    paths = sorted(FITS.glob("*.nc"))
    assert len(paths) >= 26
    for path in paths:
        fit = read_netcdf(path)
        pmf = fit["pmf"].values
        assert math.isclose(pmf.sum(), 1.0, abs_tol=1e-12), path.name
        assert np.all(pmf > 0) and np.all(np.diff(fit["x"].values) > 0), path.name
        assert fit.attrs["name"] == path.stem


def test_centered_with_bounds_puts_no_mass_outside():
    fit = read_netcdf(FITS / "reuters-lstm-centered.nc")
    xs, edges = fit["x"].values, fit["edges"].values
    assert fit.attrs["construction"] == "centered"
    assert edges[0] == 0.0 and edges[-1] == 1.0
    assert xs.min() > 0 and xs.max() < 1
    np.testing.assert_allclose(xs, 0.5 * (edges[:-1] + edges[1:]), rtol=1e-15)
    tang = read_netcdf(FITS / "reuters-lstm.nc")
    below = float(tang["pmf"].values[tang["x"].values < 0].sum())
    assert 0.035 < below < 0.05  # Tang et al.'s LSTM truth: about 4% below F1 = 0
    # bounds hugging the data clip the grid on both sides
    data = _scores(2, 30)
    lo, hi = data.min() - 1e-3, data.max() + 1e-3
    fit = fit_kde(data, construction="centered", bounds=(lo, hi), bins=64)
    assert fit["x"].values.min() > lo and fit["x"].values.max() < hi
    assert fit["edges"].values[0] == lo and fit["edges"].values[-1] == hi
    assert fit["pmf"].sum() == pytest.approx(1.0, abs=1e-14)


# --- exact theta of a KDE truth --------------------------------------------------------------

def test_kde_truth_is_discrete():
    truth = make_truth("kde:reuters-lstm")
    assert isinstance(truth, Discrete)
    assert truth.name == "kde:reuters-lstm"
    assert truth.description == "Tang2020 KDE of 152 Reuters LSTM dev F1 (bw 0.0592)"
    assert truth.params()["kde_bandwidth"] == pytest.approx(0.059233, abs=1e-6)


def test_theta_brute_force_and_simulation():
    fit = read_netcdf(FITS / "reuters-lstm.nc")
    s, p = fit["x"].values, fit["pmf"].values
    ns = np.arange(1, 51)
    F = np.cumsum(p)
    F /= F[-1]
    Fprev = np.concatenate([[0.0], F[:-1]])
    brute = np.array([np.sum(s * (F**n - Fprev**n)) for n in ns])
    theta = make_truth("kde:reuters-lstm").theta(ns)
    np.testing.assert_allclose(theta, brute, rtol=0, atol=1e-12)
    # an independent simulation with NumPy's generator
    rng = np.random.default_rng(20200)
    n, M = 10, 200_000
    maxima = rng.choice(s, p=p, size=(M, n)).max(axis=1)
    se = maxima.std(ddof=1) / math.sqrt(M)
    assert abs(maxima.mean() - theta[n - 1]) < 4 * se


def test_bias_monte_carlo_agrees_with_exact():
    ds = evpsim.bias("kde:reuters-lstm", B=50, replicates=200_000, seed=3)
    assert ds.attrs["max_abs_z"] < 4.5
    assert ds["truth"].item() == "kde:reuters-lstm"


# --- the committed files are reproducible ------------------------------------------------------

def _close(a, b):
    if isinstance(a, (float, np.floating)):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15) or (a == b)
    return a == b


@needs_data
def test_rebuild_reproduces_committed_fits(tmp_path):
    spec = importlib.util.spec_from_file_location("kde_fits_build", BUILD)
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    written = build.build(DATA, tmp_path)
    names = sorted(p.name for p in written if p.suffix == ".nc")
    assert names == sorted(p.name for p in FITS.glob("*.nc"))
    required = {"reuters-mlp", "reuters-lstm", "sst2-glove", "sst2-elmo", "sst5-cnn", "sst5-boe",
                "sst5-linear", "sst5-lstm", "sst2-bcn-glove", "sst2-bcn-elmo-frozen",
                "sst2-bcn-elmo-finetuned", "mnli-deberta-base", "mnli-deberta-v3-base"}
    assert {f"{n}.nc" for n in required} <= set(names)
    for name in names:
        new, old = read_netcdf(tmp_path / name), read_netcdf(FITS / name)
        assert set(new.variables) == set(old.variables), name
        for var in new.variables:
            np.testing.assert_allclose(new[var].values, old[var].values, rtol=1e-12, atol=1e-15,
                                       err_msg=f"{name}: {var}")
        assert set(new.attrs) == set(old.attrs), name
        bad = [k for k in new.attrs if not _close(new.attrs[k], old.attrs[k])]
        assert not bad, f"{name}: attributes {bad} differ"
    assert (tmp_path / "README.md").read_text() == (FITS / "README.md").read_text()


# --- loading -------------------------------------------------------------------------------------

def test_list_kde_fits_and_env_dir(tmp_path, monkeypatch):
    fits = list_kde_fits()
    assert fits["kde:reuters-lstm"] == "Tang2020 KDE of 152 Reuters LSTM dev F1 (bw 0.0592)"
    fit = fit_kde(_scores(), name="custom", bins=32)
    evpsim.io.results.write_netcdf(fit, tmp_path / "custom.nc")
    monkeypatch.setenv("EVPSIM_KDE_DIR", str(tmp_path))
    assert "kde:custom" in list_kde_fits() and "kde:reuters-lstm" in list_kde_fits()
    np.testing.assert_array_equal(make_truth("kde:custom").pmf, fit["pmf"].values)


def test_load_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown KDE fit 'nope'; committed fits: .*reuters-lstm"):
        load_kde("nope")
    with pytest.raises(ValueError, match="no KDE fit file"):
        load_kde(str(tmp_path / "missing.nc"))
    import xarray as xr

    path = tmp_path / "other.nc"
    evpsim.io.results.write_netcdf(xr.Dataset({"a": ("n", [1.0])}), path)
    with pytest.raises(ValueError, match="is not a KDE fit written by evpsim fit-kde"):
        load_kde(str(path))
    with pytest.raises(ValueError, match="column applies only to file: truths"):
        make_truth("kde:reuters-lstm", column="x")


@pytest.mark.parametrize("kwargs, message", [
    ({"construction": "middle"}, "construction must be one of tang2020, centered"),
    ({"bins": 1}, "bins must be at least 2"),
    ({"bandwidth": "wide"}, "bandwidth must be one of normal-reference"),
    ({"bandwidth": -0.1}, r"bandwidth must lie in \(0, inf\)"),
    ({"bounds": (0, 1)}, "bounds apply only to the 'centered' construction"),
    ({"construction": "centered", "bounds": (0.9, 1)},
     r"bounds \(0.9, 1\) must contain the scores"),
    ({"construction": "centered", "bounds": (1, 0)}, "lo < hi"),
    ({"name": "a b"}, "name must be letters"),
])
def test_fit_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fit_kde(_scores(), **kwargs)


def test_score_count_errors():
    with pytest.raises(ValueError, match="scores needs at least 2 values, got 1"):
        fit_kde([0.5])
    with pytest.raises(ValueError, match="all 3 scores equal 0.5: the bandwidth would be 0"):
        fit_kde([0.5, 0.5, 0.5])


# --- the fit-kde command ---------------------------------------------------------------------

def test_fit_kde_round_trip(tmp_path, capsys):
    xs = _scores(4, 60)
    src = tmp_path / "scores.txt"
    src.write_text("\n".join(map(str, xs)) + "\n")
    out, png = tmp_path / "mine.nc", tmp_path / "mine.png"
    status = main(["fit-kde", str(src), "--name", "mine", "--construction", "centered",
                   "--bounds", "0,1", "--metric", "dev accuracy", "--out", str(out),
                   "--plot", str(png)])
    assert status == 0
    text = capsys.readouterr().out
    assert "centered KDE of 60 dev accuracy on [0, 1]" in text and f"kde:{out}" in text
    assert png.stat().st_size > 0
    truth = make_truth(f"kde:{out}")
    expected = fit_kde(xs, construction="centered", bounds=(0, 1), name="mine",
                       metric="dev accuracy")
    np.testing.assert_array_equal(truth.support, expected["x"].values)
    np.testing.assert_array_equal(truth.pmf, expected["pmf"].values)
    assert main(["bias", "--dist", f"kde:{out}", "--B", "5", "--method", "exact", "--quiet"]) == 0
    assert "centered KDE of 60" in capsys.readouterr().out


def test_fit_kde_jsonl_and_csv(tmp_path, monkeypatch):
    xs = _scores(5, 12)
    jsonl = tmp_path / "results.jsonl"
    jsonl.write_text("".join(json.dumps({"trial": i, "metrics": {"best_validation_accuracy": x}})
                             + "\n" for i, x in enumerate(xs)))
    np.testing.assert_array_equal(read_jsonl_scores(jsonl, "metrics.best_validation_accuracy"), xs)
    csv = tmp_path / "runs.csv"
    csv.write_text("lr,acc\n" + "".join(f"0.1,{x}\n" for x in xs))
    monkeypatch.chdir(tmp_path)
    assert main(["fit-kde", str(jsonl), "--name", "j", "--field",
                 "metrics.best_validation_accuracy"]) == 0
    assert main(["fit-kde", str(csv), "--name", "c", "--column", "acc"]) == 0
    np.testing.assert_array_equal(read_netcdf("j.nc")["pmf"].values,
                                  read_netcdf("c.nc")["pmf"].values)


@pytest.mark.parametrize("content, extra, message", [
    ("abc\ndef\n", [], "line 1: 'abc' is not a number"),
    ("# only a comment\n", [], "holds no scores"),
    ("0.5\n", [], "holds 1 score; a search needs at least 2"),
    ("0.5\n0.5\n0.5\n", [], "all 3 scores equal 0.5: the bandwidth would be 0"),
    ('{"acc": 0.5}\n{"loss": 1}\n', ["--field", "acc"], "line 2: no field 'acc'; keys: loss"),
    ('{"acc": null}\n', ["--field", "acc", "--failed", "drop"],
     "line 1: acc is None, not a finite number"),
    ('{"acc": null}\n', ["--field", "acc"], "--failed: 'TMP/in.txt': its only trial failed, so "
     "no score was observed to count failed trials at: give --bounds LO,HI (the worst score is "
     "then its lower end), or --failed SCORE"),
    ("0.5\n0.7\n", ["--bounds", "0,1"], "bounds apply only to the 'centered' construction"),
])
def test_fit_kde_errors(tmp_path, capsys, content, extra, message):
    src = tmp_path / "in.txt"
    src.write_text(content)
    status = main(["fit-kde", str(src), "--name", "x", "--out", str(tmp_path / "x.nc"), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("evpsim fit-kde: error: ")
    assert message.replace("TMP", str(tmp_path)) in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x.nc").exists()


def test_jsonl_needs_field(tmp_path, capsys):
    src = tmp_path / "results.jsonl"
    src.write_text('{"acc": 0.5}\n')
    assert main(["fit-kde", str(src), "--name", "x", "--out", str(tmp_path / "x.nc")]) == 2
    assert "--field must name the score's key: " in capsys.readouterr().err


def test_unknown_kde_name_in_cli(capsys):
    assert main(["bias", "--dist", "kde:nope", "--B", "5", "--method", "exact"]) == 2
    err = capsys.readouterr().err
    assert "unknown KDE fit 'nope'" in err and err.count("\n") == 1


def test_list_prints_committed_fits(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "kde:reuters-lstm" in out
    assert "Tang2020 KDE of 152 Reuters LSTM dev F1 (bw 0.0592)" in out
    assert "kde:mnli-deberta-v3-base-centered" in out


# --- cross-validated bandwidth ---------------------------------------------------------------

def test_loo_log_likelihood_equals_the_definition():
    xs = np.random.default_rng(5).normal(0.7, 0.05, 600)  # more than one block of rows
    hs = [0.004, 0.02]
    brute = [sum(np.log(np.mean(stats.norm.pdf(xs[i], np.delete(xs, i), h)))
                 for i in range(xs.size)) for h in hs]
    np.testing.assert_allclose(evpsim.truths.kde.loo_log_likelihood(xs, hs), brute, rtol=1e-10)


def test_cv_bandwidth_is_a_maximum_and_near_the_normal_reference_for_normal_data():
    xs = np.random.default_rng(6).normal(0.7, 0.05, 400)
    h = evpsim.truths.kde.cv_bandwidth(xs)
    ll = evpsim.truths.kde.loo_log_likelihood(xs, [h * 0.97, h, h * 1.03])
    assert ll[1] >= ll[0] and ll[1] >= ll[2]
    # for normal scores the likelihood's optimum and the normal reference are close
    assert 0.6 < h / kde_bandwidth(xs) < 1.4


def test_cv_bandwidth_refuses_heavily_tied_scores():
    with pytest.raises(ValueError, match="keeps growing as the bandwidth shrinks"):
        evpsim.truths.kde.cv_bandwidth([0.5] * 10 + [0.6] * 10 + [0.7] * 10)


def test_fit_kde_cli_with_cv_bandwidth(tmp_path, capsys):
    out = tmp_path / "cv.nc"
    assert main(["fit-kde", "data:reuters-mlp", "--name", "cv", "--bandwidth", "cv",
                 "--out", str(out)]) == 0
    fit = read_netcdf(out)
    assert fit.attrs["bandwidth_rule"] == "cv"
    expected = evpsim.truths.kde.cv_bandwidth(read_scores(evpsim.search_path("reuters-mlp")))
    assert fit.attrs["bandwidth"] == pytest.approx(expected, rel=1e-12)
    assert "(cv)" in capsys.readouterr().out


def test_snap_kde_is_the_kde_rounded_to_the_lattice():
    # an accuracy on 40 examples: the exact masses of the lattice cells equal those of
    # a very fine discretization of the same KDE, each support point rounded to the
    # lattice (the draws of the KDE, snapped)
    from evpsim.io.lattice import find_lattice
    from evpsim.truths.kde import snap_kde

    xs = np.array([21, 25, 27, 27, 29, 30, 31, 31, 31, 33]) / 40
    lattice = find_lattice(xs)
    for construction, bounds in (("centered", (0, 1)), ("tang2020", None)):
        fit = fit_kde(xs, construction=construction, bounds=bounds, bandwidth=0.05, bins=64)
        snapped = snap_kde(fit, xs, lattice)
        grid = snapped["x"].values * 40
        np.testing.assert_allclose(grid, np.round(grid), rtol=0, atol=1e-9)
        assert snapped["x"].values.min() >= fit.attrs["grid_lo"] - 1e-12
        assert snapped["x"].values.max() <= fit.attrs["grid_hi"] + 1e-12
        assert snapped.attrs["lattice_step"] == 1 / 40
        assert snapped.attrs["description"].endswith("snapped to a lattice of step 1/40")
        fine = fit_kde(xs, construction="centered", bounds=(fit.attrs["grid_lo"],
                                                           fit.attrs["grid_hi"]),
                       bandwidth=0.05, bins=400_000)
        rounded = Discrete(lattice.snap(fine["x"].values), fine["pmf"].values)
        truth = load_kde(snapped)
        ns = [1, 10, 100]
        # the fine grid's midpoints sit within 1e-6 of the true values: a cell's mass
        # moves by at most a kernel's density times that
        np.testing.assert_allclose(truth.theta(ns), rounded.theta(ns), rtol=0, atol=1e-5)
        np.testing.assert_allclose(truth.pmf, np.interp(truth.support, rounded.support,
                                                        rounded.pmf), rtol=0, atol=1e-5)
        assert truth.params()["kde_lattice_step"] == 1 / 40


def test_snap_kde_keeps_no_lattice_far_finer_than_the_kde():
    from evpsim.io.lattice import find_lattice
    from evpsim.truths.kde import MAX_LATTICE_POINTS, snap_kde

    xs = np.array([123457, 223456, 223456, 323451, 400000, 400001, 400003]) / 10**6
    fit = fit_kde(xs, construction="centered", bounds=(0, 1), bins=64)
    lattice = find_lattice(xs)
    assert lattice.step_text == "1/1,000,000"
    assert (fit.attrs["grid_hi"] - fit.attrs["grid_lo"]) * 10**6 > MAX_LATTICE_POINTS
    assert snap_kde(fit, xs, lattice) is None
