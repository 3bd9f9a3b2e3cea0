"""``evpsim.curve``: curves of one's own scores against opda and allentune, intervals,
comparisons, budgets, losses, durations, and the figure."""

from math import comb
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, DATA_MISSING

import evpsim

opda_np = pytest.importorskip("opda.nonparametric")


def _scores(name, k=None):
    if not (DATA / name).is_file():
        pytest.skip(DATA_MISSING)
    xs = np.loadtxt(DATA / name)
    return xs if k is None else xs[:k]


def allentune_curve(scores, with_replacement=True):
    """allentune's ``samplemax``, rewritten: the pmf of the maximum of n draws is the
    difference of the CDF (i/N)^n (with replacement) or C(i, n)/C(N, n) (without) at
    consecutive sorted scores; it gives the mean and SD of the maximum."""
    xs = np.sort(np.asarray(scores, dtype=float))
    N = xs.size
    means, sds = [], []
    for n in range(1, N + 1):
        if with_replacement:
            cdf = np.array([(i / N) ** n for i in range(1, N + 1)])
        else:
            cdf = np.array([comb(i, n) / comb(N, n) for i in range(1, N + 1)])
        pdf = np.diff(np.concatenate([[0.0], cdf]))
        mean = float(pdf @ xs)
        means.append(mean)
        sds.append(np.sqrt(pdf @ (xs - mean) ** 2))
    return np.array(means), np.array(sds)


@pytest.mark.parametrize("name,k", [("reuters_mlp_f1.txt", None), ("sst2_bcn_glove_acc.txt", None),
                                    ("mnli_deberta_base_acc.txt", 300)])
@pytest.mark.parametrize("minimize", [False, True])
def test_V_and_U_equal_opda(name, k, minimize):
    xs = _scores(name, k)
    ds = evpsim.curve(xs, estimators="U,V", ci_methods="percentile", resamples=2,
                      minimize=minimize)
    ns = np.arange(1, xs.size + 1)
    dist = opda_np.EmpiricalDistribution(xs)
    for est, ref in (("V", dist.v_tuning_curve(ns, minimize=minimize)),
                     ("U", dist.u_tuning_curve(ns, minimize=minimize))):
        ours = ds["estimate"].sel(model="model", estimator=est).values
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["reuters_mlp_f1.txt", "sst2_lstm_glove_acc.txt"])
def test_V_U_and_sd_equal_allentune(name):
    xs = _scores(name)
    ds = evpsim.curve(xs, estimators="U,V", resamples=2)
    mean_v, sd_v = allentune_curve(xs, True)
    mean_u, _ = allentune_curve(xs, False)
    sel = ds.sel(model="model")
    np.testing.assert_allclose(sel["estimate"].sel(estimator="V"), mean_v, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sel["estimate"].sel(estimator="U"), mean_u, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sel["sd"], sd_v, rtol=0, atol=1e-12)


def test_intervals_are_bootstrap_intervals():
    xs = _scores("reuters_mlp_f1.txt")
    ds = evpsim.curve(xs, estimators="U,V,W", ci_methods="percentile,bca,ks", bounds=(0, 1),
                      resamples=500, seed=3)
    ref = evpsim.bootstrap_intervals(xs, "U,V,W", ci_methods="percentile,bca,ks",
                                     bounds=(0, 1), resamples=500, seed=3)
    for key in ("lower", "upper"):
        np.testing.assert_array_equal(ds[key].sel(model="model").values, ref[key].values)


def test_models_padded_and_not_extrapolated():
    a, b = _scores("sst2_bcn_glove_acc.txt"), _scores("reuters_mlp_f1.txt")
    ds = evpsim.curve({"glove": a, "mlp": b}, resamples=200)
    assert ds.sizes["n"] == b.size
    glove = ds["estimate"].sel(model="glove", estimator="V")
    assert np.isfinite(glove[: a.size]).all() and np.isnan(glove[a.size:]).all()
    assert np.isnan(ds["lower"].sel(model="glove")[..., a.size:]).all()
    diff = ds["difference"].isel(pair=0).sel(estimator="V")
    assert np.isfinite(diff[: a.size]).all() and np.isnan(diff[a.size:]).all()
    assert list(ds["B"].values) == [a.size, b.size]


def test_comparison_of_clearly_separated_models():
    rng = np.random.default_rng(5)
    low, high = rng.normal(0.6, 0.02, 40), rng.normal(0.8, 0.02, 60)
    ds = evpsim.curve({"low": low, "high": high}, ci_methods="percentile", resamples=1000)
    sub = ds.isel(pair=0).sel(estimator="V")
    assert str(sub["model_a"].values) == "low"
    assert (sub["ahead"][:40] == "high").all()
    assert (sub["share_ahead"][:40] == 0).all()
    assert (sub["difference_upper"].sel(ci_method="percentile")[:40] < 0).all()
    est = ds["estimate"].sel(estimator="V")
    np.testing.assert_allclose(sub["difference"][:40],
                               est.sel(model="low")[:40] - est.sel(model="high")[:40])


def test_share_ahead_of_identical_models_is_near_half():
    xs = _scores("reuters_mlp_f1.txt")
    ds = evpsim.curve({"a": xs, "b": xs}, resamples=4000)
    p = ds["share_ahead"].isel(pair=0).sel(estimator="V").values
    assert (ds["ahead"].values == "tie").all()
    # recentred on a difference of 0, the median difference moves to 0: half on each side
    assert np.abs(p - 0.5).max() <= 1 / 4000


def test_share_ahead_never_contradicts_ahead():
    # Reuters at n = 22: the raw bootstrap share had MLP ahead (0.533) while the
    # estimates put the LSTM ahead; recentred, the two agree at every n
    ds = evpsim.curve({"MLP": _scores("reuters_mlp_f1.txt"),
                       "LSTM": _scores("reuters_lstm_f1.txt")}, estimators="U,V,W",
                      resamples=4000)
    share, ahead = ds["share_ahead"].isel(pair=0).values, ds["ahead"].isel(pair=0).values
    live = ahead != ""
    assert live.sum() == 3 * 145
    assert (share[ahead == "MLP"] >= 0.5).all() and (share[ahead == "LSTM"] <= 0.5).all()
    assert (share[live] > 0.5).any() and (share[live] < 0.5).any()


def test_share_ahead_recentres_on_the_estimate():
    rng = np.random.default_rng(3)
    d = rng.normal(0.02, 0.01, size=(1001, 4))   # raw share of the first side: about 0.98
    est = np.array([-0.001, 0.0, 0.001, 0.02])
    got = evpsim.curves.share_ahead(d, est)
    # an odd number of distinct differences: the centre is the median, and the share a count
    shifted = d + est - np.median(d, axis=0)
    np.testing.assert_allclose(got, (shifted > 0).mean(axis=0)
                               + 0.5 * (shifted == 0).mean(axis=0), rtol=0, atol=1e-15)
    assert got[0] < 0.5 < got[2] and got[1] == 0.5 and got[3] > 0.95


def test_share_ahead_is_below_half_exactly_when_behind():
    # an even number of resamples: the plain median (0) shifted to -0.01 left two of
    # four differences above 0, a share of exactly 1/2 for the model behind
    d = np.array([[-1.0], [-0.1], [0.1], [1.0]])
    share = evpsim.curves.share_ahead
    assert share(d, np.array([-0.01]))[0] < 0.5
    assert share(d, np.array([0.0]))[0] == 0.5
    assert share(d, np.array([0.01]))[0] > 0.5
    # lumpy differences (a lattice, ties everywhere), tiny and exact-zero estimates
    rng = np.random.default_rng(4)
    d = rng.integers(0, 5, size=(1000, 400)) * 0.1
    est = rng.normal(0, 0.05, 400)
    est[:20], est[20:30], est[30:40] = 0.0, 1e-12, -1e-12
    got = share(d, est)
    np.testing.assert_array_equal(np.sign(got - 0.5), np.sign(est))


def test_share_ahead_reports_its_monte_carlo_error_on_a_lumpy_bootstrap():
    # scores on a lattice of 0.01, B = 10: U's bootstrap differences at n = 7 are lumpy;
    # b is ahead by 8e-5. The seeds' spread must agree with the reported error.
    rng = np.random.default_rng(6)
    a, b = np.round(rng.normal(0.8, 0.03, 10), 2), np.round(rng.normal(0.8, 0.03, 10), 2)
    shares, ses = [], []
    for seed in range(8):
        ds = evpsim.curve({"a": a, "b": b}, estimators="U", ci_methods="percentile",
                          resamples=10_000, seed=seed)
        sub = ds.isel(pair=0).sel(estimator="U", n=7)
        assert -1e-4 < float(sub["difference"]) < 0 and str(sub["ahead"].values) == "b"
        shares.append(float(sub["share_ahead"]))
        ses.append(float(sub["share_ahead_se"]))
    assert max(shares) < 0.5
    assert max(ses) < 0.01
    assert np.std(shares, ddof=1) < 2 * np.sqrt(np.mean(np.square(ses)))


def test_minimize_mirrors_maximize():
    xs = _scores("sst2_bcn_glove_acc.txt")
    up = evpsim.curve({"a": xs, "b": xs[::-1][:30]}, resamples=300, ci_methods="percentile,dkw",
                      bounds=(0, 1), target=0.8)
    down = evpsim.curve({"a": -xs, "b": -xs[::-1][:30]}, resamples=300,
                        ci_methods="percentile,dkw", bounds=(-1, 0), minimize=True, target=-0.8)
    np.testing.assert_allclose(down["estimate"], -up["estimate"], atol=1e-15)
    np.testing.assert_allclose(down["lower"], -up["upper"], atol=1e-15)
    np.testing.assert_allclose(down["upper"], -up["lower"], atol=1e-15)
    np.testing.assert_allclose(down["difference"], -up["difference"], atol=1e-15)
    np.testing.assert_array_equal(down["share_ahead"], up["share_ahead"])
    assert bool(down["minimize"]) and not bool(up["minimize"])
    np.testing.assert_array_equal(down["budget"], up["budget"])
    np.testing.assert_array_equal(down["budget_interval"], up["budget_interval"])
    assert float(down["best_observed"].sel(model="a")) == -xs.max()
    # the SD of the best of n is the SD of the lowest loss, not of the highest
    np.testing.assert_allclose(down["sd"], up["sd"], atol=1e-15)


def test_budgets():
    xs = np.array([0.70, 0.90, 0.80])
    ds = evpsim.curve(xs, target=0.85, resamples=200, ci_methods="percentile")
    assert float(ds["budget"].sel(model="model", estimator="V")) == \
        evpsim.budget_to_reach(xs, 0.85)
    far = evpsim.curve(xs, target=0.95, resamples=200)
    assert np.isnan(far["budget"]).all() and np.isnan(far["budget_interval"]).all()
    lower = ds["lower"].sel(model="model", estimator="V", ci_method="percentile").values
    b = ds["budget_interval"].sel(model="model", estimator="V", ci_method="percentile")
    first = np.flatnonzero(lower >= 0.85)
    assert (np.isnan(b) and first.size == 0) or int(b) == first[0] + 1


def test_durations_give_expected_time():
    xs = _scores("sst2_bcn_glove_acc.txt")
    ds = evpsim.curve({"a": xs, "b": xs[:20]}, durations={"a": [60.0, 120.0], "b": 30.0},
                      resamples=50)
    t = ds["expected_time"]
    assert float(t.sel(model="a", n=10)) == 900.0
    assert float(t.sel(model="b", n=20)) == 600.0 and np.isnan(t.sel(model="b", n=21))


def test_dataframe_columns_named_in_curve_read_as_read_frame_reads_them():
    pd = pytest.importorskip("pandas")
    from evpsim.io.frames import read_frame

    rng = np.random.default_rng(11)
    n = 40
    states = rng.choice(["done", "failed", "PRUNED", "running"], size=n, p=[0.7, 0.1, 0.1, 0.1])
    df = pd.DataFrame({"acc": np.where(states == "failed", np.nan, rng.uniform(0.5, 0.9, n)),
                       "arch": np.where(np.arange(n) % 2, "cnn", "mlp"), "st": states,
                       "secs": rng.uniform(10, 100, n)})
    columns = dict(score="acc", group="arch", state="st", time="secs")
    ds = evpsim.curve(df, **columns, ci_methods="percentile", resamples=50)
    searches = read_frame(df, **columns)
    by_hand = evpsim.curve(searches, ci_methods="percentile", resamples=50)
    np.testing.assert_array_equal(ds["estimate"].values, by_hand["estimate"].values)
    np.testing.assert_array_equal(ds["mean_duration"].values, by_hand["mean_duration"].values)
    assert list(ds["model"].values) == ["mlp", "cnn"] and ds.attrs["metric"] == "acc"
    # the named state column's rules: failed at the worst score, running dropped and counted
    for s in searches:
        rows = df[df["arch"] == s.label]
        assert s.failed == ({"st failed, no score": int((rows["st"] == "failed").sum())}
                            if (rows["st"] == "failed").any() else {})
        assert s.dropped == {"still running": int((rows["st"] == "running").sum())}
        assert s.scores.size == int((rows["st"] != "running").sum())
    # bounds: the failed trials count at the low end, as read_frame (and --bounds) count them
    low = evpsim.curve(df, **columns, bounds=(0, 1), ci_methods="percentile", resamples=50)
    np.testing.assert_array_equal(low["estimate"].values, evpsim.curve(
        read_frame(df, **columns, bounds=(0, 1)), ci_methods="percentile",
        resamples=50)["estimate"].values)
    assert any(s.failed for s in searches)
    assert list(low["worst_observed"].values) == [0.0 if s.failed else s.scores.min()
                                                  for s in searches]


def test_searches_carry_labels_and_metric():
    class Search:  # the attributes curve reads from evpsim.read_searches' results
        def __init__(self, label, scores):
            self.label, self.scores, self.metric = label, scores, "dev F1"
            self.durations, self.source, self.records, self.dropped = None, "f", 3, {}

    ds = evpsim.curve([Search("x", [0.1, 0.2]), Search("y", [0.3, 0.2])], resamples=20)
    assert list(ds["model"].values) == ["x", "y"] and ds.attrs["metric"] == "dev F1"


def test_plot_curve(tmp_path):
    xs = _scores("sst2_bcn_glove_acc.txt")
    ds = evpsim.curve({"a": xs, "b": xs[:20]}, durations=[60.0, 30.0], resamples=50,
                      metric="dev accuracy")
    fig = evpsim.plot_curve(ds, tmp_path / "c.svg", x="time", log_x=True)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "expected best dev accuracy"
    assert ax.get_xscale() == "log" and "minutes" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "best observed"]
    assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="ci_method must be one of"):
        evpsim.plot_curve(ds, ci_method="bca")


# --- the command ---------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parent / "data"


def run_cli(capsys, *argv):
    from evpsim.cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_allentune_file_with_two_models_and_durations(capsys, tmp_path):
    import xarray as xr

    status, out, err = run_cli(
        capsys, "curve", FIXTURES / "results.jsonl", "--field", "best_validation_accuracy",
        "--group", "model", "--time-field", "training_duration", "--resamples", "500",
        "--target", "0.79", "--x-axis", "time", "--out", tmp_path / "c.nc",
        "--plot", tmp_path / "c.pdf", "--all")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("mlp: 10 trials from results.jsonl (best_validation_accuracy)")
    assert lines[0].endswith("; 1 failed (NaN, infinite or null (diverged)) counted at the "
                             "worst score 0 (the lower end of [0, 1], the range of scores on a "
                             "lattice of step 1/10,000)")
    assert lines[1].endswith("dropped 1 of 8 records: 1 field missing")
    assert "mlp vs reg_lstm (V), n up to 7" in out and "budget to reach 0.79:" in out
    ds = xr.load_dataset(tmp_path / "c.nc")
    searches = evpsim.read_searches(FIXTURES / "results.jsonl",
                                    field="best_validation_accuracy", group="model",
                                    time_field="training_duration")
    for s in searches:
        mean = float(ds["mean_duration"].sel(model=s.label))
        assert mean == pytest.approx(np.mean(s.durations), rel=1e-12)
        ref = evpsim.evp_curve(s.scores)
        np.testing.assert_allclose(ds["estimate"].sel(model=s.label, estimator="V")
                                   .values[: s.scores.size], ref["evp"], atol=1e-15)
    # "1 day, 2:03:04.5" is one of reg_lstm's durations
    assert 93784.5 in searches[1].durations
    assert (tmp_path / "c.pdf").read_bytes().startswith(b"%PDF")


def test_cli_opda_file_with_empty_learning_curves(capsys):
    status, out, err = run_cli(
        capsys, "curve", FIXTURES / "alexnet_tuning.results.jsonl", "--field",
        "learning_curve.top_1", "--reduce", "max", "--resamples", "200", "--labels", "alexnet")
    assert status == 0, err
    assert out.splitlines()[0].startswith(
        "alexnet: 12 trials from alexnet_tuning.results.jsonl")
    assert out.splitlines()[0].endswith(
        "3 failed (empty learning curve) counted at the worst score 0.002506 (the lowest "
        "observed); kept 1 diverged run (nan_train_loss), scored by its checkpoints before "
        "diverging")


def test_cli_plain_and_csv_files(capsys):
    status, out, err = run_cli(capsys, "curve", FIXTURES / "reuters.csv", "--column", "dev_f1",
                               "--resamples", "200")
    assert status == 2 and "holds 2 models" in err  # never pooled
    status, out, err = run_cli(capsys, "curve", FIXTURES / "reuters.csv", "--column", "dev_f1",
                               "--group", "model", "--select", "reg_lstm", "--resamples", "200")
    assert status == 0, err
    assert out.splitlines()[0].endswith("dropped 1 of 8 records: 1 empty cell")
    status, out, err = run_cli(capsys, "curve", FIXTURES / "mlp.txt", "data:reuters-mlp",
                               "--resamples", "200", "--ci-methods", "percentile,ks",
                               "--bounds", "0,1")
    assert status == 0, err
    assert out.splitlines()[1].startswith("reuters-mlp: 145 scores from reuters-mlp.txt")
    assert "mlp vs reuters-mlp (V)" in out
    # its F1 is printed to four decimals: a lattice, named after the lines read
    assert out.splitlines()[3] == ("reuters-mlp: scores on a lattice of step 1/10,000 (77 "
                                   "distinct of 145); 9 of the best 13 tied")


def test_lattice_named_in_the_header_and_the_reading_table(capsys):
    from evpsim.report.tables import reading_table

    status, out, err = run_cli(capsys, "curve", "data:reuters-lstm", "data:mnli-deberta-base",
                               "--resamples", "200", "--ci-methods", "percentile")
    assert status == 0, err
    lines = out.splitlines()
    # the LSTM's F1 is not rounded: no lattice; MultiNLI's accuracy is on 9,815 examples
    assert lines[2] == ("mnli-deberta-base: scores on a lattice of step 1/9,815 (438 distinct "
                        "of 1,024); 25 of the best 32 tied")
    assert lines[3].startswith("expected best score after n trials")
    assert "reuters-lstm: scores on a lattice" not in out
    searches = evpsim.read_searches([evpsim.search_path("reuters-lstm"),
                                     evpsim.search_path("mnli-deberta-base")])
    table = reading_table(searches)
    assert table.headers[-1] == "lattice"
    assert table.columns[-1].cells == ("none", "1/9,815; 25 of the best 32 tied")
    assert any(n.startswith("lattice: the step of the grid") for n in table.legend_lines)
    # as losses, the ties are counted among the lowest scores
    low = reading_table(searches, minimize=True).columns[-1].cells[1]
    counts = np.round(searches[1].scores * 9815).astype(int)
    lowest = np.sort(counts)[:32]
    tied = sum(int(np.count_nonzero(counts == c) > 1) for c in lowest)
    assert low == f"1/9,815; {tied} of the best 32 tied" and tied != 25


def test_cli_check(capsys):
    status, out, err = run_cli(capsys, "curve", "data:reuters-mlp", "--check",
                               "--ci-methods", "percentile",
                               "--check-replicates", "200", "--check-resamples", "300",
                               "--resamples", "300", "--quiet")
    assert status == 0, err
    assert "self-check: 200 searches of each model's B simulated from the centered KDE of its " \
           "scores on [0, 1] (bandwidth: cv), 300 resamples each" in out
    assert "warning: at n >= " in out and "ld-equal-tailed" in out
    assert ("  reuters-mlp: the KDE's draws snapped to its scores' lattice of step 1/10,000, "
            "its exact EVP taken on that lattice, so the coverage below includes what ties "
            "do to the intervals") in out.splitlines()
    assert "Monte Carlo error only" in out and "kde-validity" in out
    # the fit table: the KDE's theta_1 beside the mean, theta_B beside the best observed
    xs = _scores("reuters_mlp_f1.txt")
    row = next(ln for ln in out.splitlines() if ln.startswith("  reuters-mlp  "))
    cells = row.split()
    assert cells[2] == "(cv)" and float(cells[4]) == pytest.approx(xs.mean(), abs=1e-4)
    assert float(cells[6]) == pytest.approx(xs.max(), abs=1e-4)
    assert "the KDE the self-check simulates from is unlike" not in out


def test_check_warns_when_the_kde_is_unlike_the_scores(capsys, tmp_path):
    # a bimodal search (a quarter of the runs at chance): the normal-reference
    # bandwidth spreads 20% of the KDE's mass past [0, 1] and its best of B far
    # beyond the best observed; the cross-validated bandwidth fits
    xs = evpsim.read_searches(evpsim.search_path("sklearn-mlp"),
                              field="best_validation_accuracy")[0].scores[:441]
    path = tmp_path / "bimodal.txt"
    path.write_text("\n".join(map(repr, xs.tolist())))
    small = ["--check-replicates", "20", "--check-resamples", "50", "--resamples", "100",
             "--quiet"]
    status, out, err = run_cli(capsys, "curve", path, "--check", "--check-bandwidth",
                               "normal-reference", *small)
    assert status == 0, err
    warning = next(ln for ln in out.splitlines() if "unlike your scores" in ln)
    assert "only <0.1% of its searches have a best as low as your best observed" in warning
    lost = next(ln for ln in out.splitlines() if "lost mass at the bounds" in ln)
    assert "% of its mass fell outside [0, 1] (" in lost and "% below 0, " in lost
    assert "to keep the mass lost at a bound: --check-construction tang2020" in out
    # no failed trial was counted, so nothing to leave out
    assert "a smaller --check-bandwidth" in out and "--failed drop" not in out
    status, out, err = run_cli(capsys, "curve", path, "--check", *small)
    assert status == 0, err
    assert "unlike your scores" not in out
    ds = evpsim.self_check(xs, replicates=20, resamples=50, bandwidth="normal-reference")
    assert ds["check_unlike"].item() and ds["check_mass_dropped"].item() > 0.15
    assert ds["check_best_quantile"].item() < 1e-3


def test_check_bandwidth_and_construction(capsys):
    small = ["--check-replicates", "20", "--check-resamples", "50", "--resamples", "100",
             "--quiet"]
    status, out, err = run_cli(capsys, "curve", "data:reuters-mlp", "--check",
                               "--check-bandwidth", "0.004", "--check-construction", "tang2020",
                               *small)
    assert status == 0, err
    assert "from the tang2020 KDE of its scores (bandwidth: given (0.004))" in out
    assert "0.004 (given)" in out and "understated" not in out
    for argv, words in [(["--check-bandwidth", "wide"],
                         "--check-bandwidth: 'wide' is neither a rule"),
                        (["--check-bandwidth", "-1"], "--check-bandwidth"),
                        (["--check-bandwidth", "0"], "--check-bandwidth"),
                        (["--check-construction", "tang"], "--check-construction"),
                        (["--check-construction", "tang2020", "--ci-methods", "ks",
                          "--bounds", "0,1"], "cannot check the band method(s) ks; use "
                                              "--check-construction centered")]:
        try:
            status, out, err = run_cli(capsys, "curve", "data:reuters-mlp", "--check", *argv,
                                       *small)
        except SystemExit as stop:  # argparse's own checks
            status, (out, err) = stop.code, capsys.readouterr()
        assert status == 2 and words in err and out == "", (argv, err)


def test_table_rows_follow_1_2_5_and_show_crossings_and_budgets(capsys):
    from evpsim.report.tables import table_ns

    assert table_ns(441) == [1, 2, 3, 5, 10, 20, 50, 100, 200, 441]
    assert table_ns(12) == list(range(1, 13))
    assert table_ns(100, extra=[0, 37, 100, 150]) == [1, 2, 3, 5, 10, 20, 37, 50, 100]
    status, out, err = run_cli(capsys, "curve", "data:reuters-mlp", "data:reuters-lstm",
                               "--resamples", "200", "--target", "0.8")
    assert status == 0, err
    ds = evpsim.curve(evpsim.read_searches([evpsim.search_path("reuters-mlp"),
                                            evpsim.search_path("reuters-lstm")]),
                      resamples=200, target=0.8)
    ahead = ds["ahead"].isel(pair=0).sel(estimator="V").values[:145]
    crossings = [n + 1 for n in range(1, 145) if ahead[n] != ahead[n - 1]]
    assert crossings  # the curves cross (near n = 22)
    shown = [int(ln.split()[0]) for ln in out.split("reuters-mlp vs reuters-lstm")[1]
             .splitlines()[4:] if ln.strip() and ln.split()[0].isdigit()]
    budgets = {int(v) for v in ds["budget"].values.ravel() if v == v}
    assert set(crossings) <= set(shown) and budgets <= set(shown)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 1.0, 1e5, 1e9, -1.0])
def test_tables_keep_columns_apart_at_any_scale(capsys, tmp_path, scale):
    xs = _scores("sst2_bcn_glove_acc.txt")[:30] * scale
    path = tmp_path / "s.txt"
    path.write_text("\n".join(map(repr, xs.tolist())))
    argv = ["curve", path, path, "--labels", "a,b", "--resamples", "200",
            "--ci-methods", "percentile,basic", "--all"]
    if scale < 0:
        argv.append("--minimize")
    status, out, err = run_cli(capsys, *argv)
    assert status == 0, err
    ds = evpsim.curve({"a": xs, "b": xs}, resamples=200, ci_methods="percentile,basic",
                      minimize=scale < 0)
    table = out.split("\na (B = 30)\n")[1].split("\n\n")[0].splitlines()
    # the distribution-free bound needs the worst score: 0 is assumed for scores, none
    # for losses
    bound = scale > 0
    assert table[0].split() == ["n", "V", "sd", "of", "best", "(plug-in)", "V", "percentile",
                                "V", "basic"] + (
        ["95%", "lower", "bound,", "any", "F"] if bound else [])
    for n, line in enumerate(table[1:], start=1):
        cells = line.replace("[", " ").replace("]", " ").replace(",", " ").split()
        assert int(cells[0]) == n
        values = [float(c) for c in cells[1:]]
        s = ds.sel(model="a", n=n, estimator="V")
        want = [float(s["estimate"]), float(s["sd"]),
                *(float(s[k].sel(ci_method=m)) for m in ("percentile", "basic")
                  for k in ("lower", "upper"))] + ([float(s["free_bound"])] if bound else [])
        # four significant digits of the column's largest magnitude, at least
        np.testing.assert_allclose(values, want, rtol=0, atol=5e-5 * abs(scale),
                                   err_msg=line)


def test_cli_out_records_provenance(capsys, tmp_path):
    import xarray as xr

    status, out, err = run_cli(
        capsys, "curve", FIXTURES / "results.jsonl", "--field", "best_validation_accuracy",
        "--group", "model", "--time-field", "training_duration", "--resamples", "100",
        "--out", tmp_path / "c.nc", "--check", "--check-replicates", "20",
        "--check-resamples", "40", "--quiet", "--bounds", "0,1")
    assert status == 0, err
    ds = xr.load_dataset(tmp_path / "c.nc")
    a = ds.attrs
    assert a["evpsim_version"] == evpsim.__version__ and "curve" in a["command"]
    assert a["input_paths"].endswith("results.jsonl") and a["input_group"] == "model"
    assert a["input_field"] == "best_validation_accuracy"
    assert a["input_time_field"] == "training_duration"
    assert ds["minimize"].dtype == bool and not bool(ds["minimize"])
    assert float(ds["bounds_lo"]) == 0 and float(ds["bounds_hi"]) == 1
    assert np.isnan(float(ds["target"]))
    # mlp's null score is a failed trial, counted at the lower end of --bounds
    assert a["input_failed"] == "worst" and a["input_diverged"] == "keep"
    assert ds["dropped"].sel(model="mlp", drop_reason="field missing") == 0
    assert ds["dropped"].sel(model="reg_lstm", drop_reason="field missing") == 1
    assert list(ds["records"].values) == [10, 8]
    assert a["check_construction"] == "centered" and a["check_bandwidth_asked"] == "cv"
    for var in ("check_best_quantile", "check_mass_dropped", "check_sample_mean"):
        assert ds[var].dims == ("model",)
    assert ds["check_unlike"].dtype == bool


def test_cli_time_column_and_budget_times(capsys):
    status, out, err = run_cli(
        capsys, "curve", FIXTURES / "results.jsonl", "--field", "best_validation_accuracy",
        "--group", "model", "--time-field", "training_duration", "--resamples", "100",
        "--target", "0.79", "--all")
    assert status == 0, err
    searches = evpsim.read_searches(FIXTURES / "results.jsonl", field="best_validation_accuracy",
                                    group="model", time_field="training_duration")
    mean = np.nanmean(searches[0].durations)
    head = out.split("mlp (B = 10)\n")[1].splitlines()
    unit = head[0].split()[1:3]
    assert unit[0] == "time"
    length = {"(s)": 1, "(min)": 60, "(h)": 3600, "(days)": 86400}[unit[1]]
    for n, line in enumerate(head[1:10], start=1):
        cell = line.split()[1]
        decimals = len(cell.split(".")[1]) if "." in cell else 0
        assert abs(float(cell) - n * mean / length) <= 0.5 * 10.0 ** -decimals
    assert "budget to reach 0.79:" in out and "(~" in out


def test_plot_shades_every_ci_method(tmp_path):
    ds = evpsim.curve({"a": _scores("sst2_bcn_glove_acc.txt")}, resamples=50,
                      ci_methods="percentile,basic,ks", bounds=(0, 1))
    fig = evpsim.plot_curve(ds)
    assert [ax.get_title().split("; shaded: ")[1] for ax in fig.axes] == [
        "95% percentile interval", "95% basic interval", "95% ks interval"]
    for ax in fig.axes:
        assert len(ax.collections) == 1  # the model's interval, shaded
    one = evpsim.plot_curve(ds, ci_method="basic")
    assert len(one.axes) == 1 and "basic" in one.axes[0].get_title()


@pytest.mark.parametrize("argv, words", [
    (["--x-axis", "time", "--plot", "c.png"], "--x-axis time needs --time-field"),
    (["--select", "a"], "--select needs --group"),
    (["--ci-methods", "ks", "--bounds", "none"], "--bounds: band methods (ks) need"),
    (["--level", "1.5"], "--level"),
    (["--estimators", "Q"], "unknown estimator"),
])
def test_cli_bad_options(capsys, argv, words):
    status, out, err = run_cli(capsys, "curve", FIXTURES / "mlp.txt", *argv)
    assert status == 2 and words in err and out == ""


def test_band_difference_is_bonferroni_of_both_bands():
    a, b = _scores("sst2_bcn_glove_acc.txt"), _scores("sst2_lstm_glove_acc.txt")[:40]
    ds = evpsim.curve({"a": a, "b": b}, ci_methods="ld-equal-tailed,percentile",
                      bounds=(0, 1), resamples=100, level=0.9)
    ivs = [evpsim.bootstrap_intervals(x, ci_methods="ld-equal-tailed", bounds=(0, 1),
                                      level=0.95).sel(estimator="V", ci_method="ld-equal-tailed")
           for x in (a, b)]
    sub = ds.isel(pair=0).sel(estimator="V", ci_method="ld-equal-tailed")
    np.testing.assert_allclose(sub["difference_lower"][:40],
                               ivs[0]["lower"][:40] - ivs[1]["upper"], atol=1e-15)
    np.testing.assert_allclose(sub["difference_upper"][:40],
                               ivs[0]["upper"][:40] - ivs[1]["lower"], atol=1e-15)
    assert np.isnan(sub["difference_lower"][40:]).all()


def test_default_interval_is_gpd_tail_bounded_where_it_applies(capsys, tmp_path):
    # gpd-tail-bounded for the mean curve: gpd-tail, bit for bit, on scores on no lattice
    # and no range known; its lattice tail on scores on one, which gives the range [0, 1]
    # (accuracies on 100 examples); percentile below its minimum B, said in a line of its
    # own; order-statistic for a quantile curve, whatever B
    from evpsim.intervals.family import CURVE_CI_METHOD

    assert CURVE_CI_METHOD == "gpd-tail-bounded"
    rng = np.random.default_rng(3)
    xs = rng.beta(8, 3, 30)
    ds = evpsim.curve(xs, resamples=200)
    kinds = {str(m): str(k) for m, k in zip(*(ds[c].values
                                              for c in ("ci_method", "ci_method_kind")))}
    assert kinds == {"gpd-tail-bounded": "resampling"}
    assert str(ds["bounds_from"].values) == "none"
    plain = evpsim.curve(xs, resamples=200, ci_methods="gpd-tail")
    for end in ("lower", "upper"):  # off a lattice, no range: gpd-tail's intervals, renamed
        assert np.array_equal(ds[end].values, plain[end].values)
    on = np.round(xs, 2)  # accuracies on 100 examples: the tail fitted on the lattice
    with_range = evpsim.curve(on, resamples=200)
    assert str(with_range["bounds_from"].values) == "lattice 1/100"
    assert not np.array_equal(with_range["upper"].values,
                              evpsim.curve(on, resamples=200, ci_methods="gpd-tail")["upper"]
                              .values)
    assert evpsim.curve(xs, resamples=200, curve="median")["ci_method"].values.tolist() == \
        ["order-statistic"]
    assert evpsim.curve(xs[:9], resamples=200)["ci_method"].values.tolist() == ["percentile"]
    path = tmp_path / "nine.txt"
    path.write_text("\n".join(map(repr, xs[:9].tolist())))
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "200")
    assert status == 0, err
    assert "percentile: in place of gpd-tail-bounded, the default, which needs B >= 10 " \
           "trials (the smallest B here is 9)" in out
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "200", "--curve", "median")
    assert "95% intervals from order-statistic" in out
    assert "in place of" not in out
    path.write_text("\n".join(map(repr, xs.tolist())))
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "200")
    assert "95% intervals from gpd-tail-bounded with 200 resamples" in out
    assert "in place of" not in out and "range: " not in out
    path.write_text("\n".join(map(repr, on.tolist())))
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "200")
    assert ("range: [0, 1] taken as the metric's, as every score lies there on a lattice of "
            "step 1/100") in out


def test_warns_when_an_interval_leaves_the_scores_range(capsys, tmp_path):
    # accuracies near 1 with a long upper tail: without --bounds the default's upper limits
    # pass 1, which the warning says; with --bounds 0,1 they are cut and nothing is said
    xs = 1.0 - np.random.default_rng(4).pareto(3.0, 40) * 0.01
    xs = xs[(xs > 0) & (xs < 1)]
    path = tmp_path / "acc.txt"
    path.write_text("\n".join(map(repr, xs.tolist())))
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "400")
    assert status == 0, err
    ds = evpsim.curve(xs, resamples=400)
    assert float(ds["upper"].max()) > 1.0
    assert "warning: some gpd-tail-bounded limits lie outside [0, 1], where every score is; " \
           "if the metric cannot leave that range, give --bounds 0,1 to cut them" in out
    status, out, err = run_cli(capsys, "curve", path, "--resamples", "400", "--bounds", "0,1")
    assert "warning: some" not in out
    assert float(evpsim.curve(xs, resamples=400, bounds=(0, 1))["upper"].max()) <= 1.0


def test_sd_of_tied_scores_is_exactly_zero():
    # moments about the best score: no cancellation leaves a spurious spread
    ds = evpsim.evp_curve(np.full(20, 0.8123))
    assert (ds["sd"].values == 0).all()
    xs = _scores("reuters_mlp_f1.txt")
    _, sds = allentune_curve(xs)
    np.testing.assert_allclose(evpsim.evp_curve(xs)["sd"].values, sds, rtol=1e-9, atol=1e-15)
