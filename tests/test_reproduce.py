"""One-command reproductions: files written, claims computed from the run, with the
real search results and, as on a fresh install, without them."""

import shutil

import numpy as np
import pytest

from evpsim.cli import main
from evpsim.reproduce import reproduce
from evpsim.reproduce.tang2020 import about_verdict
from evpsim.io.results import read_netcdf


def test_dodge2019_reproduction(tmp_path, data_dir):
    report = reproduce("dodge2019", tmp_path, data=data_dir, quick=True)
    for f in report.files:
        assert (tmp_path / f).stat().st_size > 0
    text = (tmp_path / "summary.md").read_text()
    assert text.count("\n| Fig.") == len(report.claims) >= 7
    fig2 = read_netcdf(tmp_path / "dodge2019_fig2.nc")
    assert set(fig2["model"].values) == {"GloVe", "ELMo frozen", "ELMo fine-tuned"}
    # the time-budget ordering of Fig. 2 holds on the paper's own BCN runs
    fig2_claims = [c for c in report.claims if c.claim.startswith("Fig. 2")]
    assert all(c.verdict == "agrees" for c in fig2_claims)


def test_reproduce_cli_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "nobody2000", "--out", str(tmp_path)])
    assert main(["reproduce", "dodge2019", "--out", str(tmp_path),
                 "--data", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


VERDICTS = {"agrees", "partly", "differs", "inconclusive"}


def _check_report(report, folder):
    """Every file written, one table row per claim, every verdict computed."""
    for f in report.files:
        assert (folder / f).stat().st_size > 0
    text = (folder / "summary.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert len(rows) == len(report.claims) + 1  # the header, then one row per claim
    assert all(c.verdict in VERDICTS and c.evpsim for c in report.claims)
    assert "reduced sizes (--quick)" in text
    assert "decide nothing" in text.splitlines()[0]  # a quick run's first line says so
    return {c.claim: c for c in report.claims}


@pytest.mark.slow  # the reproduction's quick run: about 40 s (the README's runs by default)
def test_tang2020_reproduction(tmp_path, data_dir):
    report = reproduce("tang2020", tmp_path, data=data_dir, quick=True)
    claims = _check_report(report, tmp_path)
    assert {f"tang2020_fig{k}.nc" for k in (2, 3, 4, 5)} <= set(report.files)
    # Table 2: the Reuters fits are Tang et al.'s; GloVe and ELMo are stand-ins
    table2 = {c.claim.split(": ")[1]: c.verdict for c in claims.values()
              if c.claim.startswith("Table 2")}
    assert table2 == {"MLP KDE": "agrees", "LSTM KDE": "agrees", "GloVe KDE": "differs",
                      "ELMo KDE": "differs"}
    # Fig. 2: averaged V (and W) in the wrong order exactly at n = 20..25, U never
    fig2 = read_netcdf(tmp_path / "tang2020_fig2.nc")
    rev = fig2["reversed"].sum("n")
    assert int(rev.sel(estimator="U")) == 0
    assert fig2["n"].values[fig2["reversed"].sel(estimator="V").values == 1].tolist() == \
        list(range(20, 26))
    # Fig. 3: V prefers negative errors, U stays near one half
    fig3 = read_netcdf(tmp_path / "tang2020_fig3.nc")
    assert fig3["below"].dims == ("truth", "estimator", "n")
    assert (fig3["below"].sel(estimator="V", n=50) > 0.65).all()
    assert (abs(fig3["below"].sel(estimator="U") - 0.5) < 0.1).all()
    assert float(abs(fig3["below_mc_truth"] - fig3["below"]).max()) < 0.02
    # Fig. 4: coverage falls with n, far below 0.95 by n = 50
    fig4 = read_netcdf(tmp_path / "tang2020_fig4.nc")
    pct = fig4["coverage"].sel(estimator="V", ci_method="percentile")
    assert (pct.sel(n=1) > 0.8).all() and (pct.sel(n=50) < 0.7).all()
    # "about 0.7 by n = 20": 100 samples give intervals wider than 0.7 +- 0.05, so the
    # quick run can never agree; it says what its intervals decide, as the full run does
    at20 = fig4.sel(estimator="V", ci_method="percentile", n=20)
    about = claims["Fig. 4: coverage falls to about 0.7 by n = 20"]
    assert about.verdict == about_verdict(at20["coverage_lower"], at20["coverage_upper"])
    assert (at20["coverage_upper"] - at20["coverage_lower"] > 0.1).all()
    assert about.verdict != "agrees"
    fig5 = read_netcdf(tmp_path / "tang2020_fig5.nc")
    assert abs(float(fig5["bandwidth"].sel(truth="MLP")) - 0.004875) < 1e-6


def test_dodge2021_reproduction(tmp_path, data_dir):
    report = reproduce("dodge2021", tmp_path, data=data_dir, quick=True)
    claims = _check_report(report, tmp_path)
    fig1_claims = [c for c in report.claims if c.claim.startswith("Fig. 1")]
    assert len(fig1_claims) == 3 and all(c.verdict == "agrees" for c in fig1_claims)
    fig1 = read_netcdf(tmp_path / "dodge2021_fig1.nc")
    assert fig1.attrs["max_abs_z"] < 5  # Monte Carlo agrees with the exact moments
    mse = fig1["exact_mse"].sel(n=slice(2, None))
    assert (mse.idxmin("estimator") == "V").all()
    # with the public SST-5 runs LBoE is truly better at every n = B, and U errs least
    fig2 = read_netcdf(tmp_path / "dodge2021_fig2.nc")
    assert set(fig2["better"].values.tolist()) == {"LBoE"}
    wrong = fig2["wrong"].sel(B=15)
    assert float(wrong.sel(estimator="U")) < float(wrong.sel(estimator="V")) < \
        float(wrong.sel(estimator="W"))
    assert claims["Fig. 2 / §4.2: U leads to incorrect conclusions more often than V or W"
                  ].verdict == "differs"
    # Fig. 3: LBoE's EVP exceeds the CNN's from n = 4 on, for every estimator
    fig3 = read_netcdf(tmp_path / "dodge2021_fig3.nc")
    ahead = fig3["evp"].sel(model="LBoE") > fig3["evp"].sel(model="CNN")
    assert (fig3["n"].where(ahead).min("n") == 4).all()
    assert all(ahead.sel(n=slice(4, None)).all("n").values)


def _data_section(folder):
    text = (folder / "summary.md").read_text()
    return text.split("\n## Data\n")[1].split("\n## ")[0]


def _check_substitutions(report, folder, missing, err):
    """The files not found are the ``missing`` ones; the summary's data section says for
    each what was done instead and where the runs are public; stderr says it too."""
    assert [f for f, path in report.data.items() if path is None] == missing
    data = _data_section(folder)
    for name in report.data:
        assert f"- `{name}`: " in data
    for name in missing:
        assert report.instead[name]
        assert all(what in data for what in report.instead[name])
        assert f"`{name}` is `results/" in data
    assert "github.com/dodgejesse/reproducibility" in data and "--data DIR" in data
    said = {line.split("not found; ", 1)[1] for line in err.splitlines() if "not found; " in line}
    assert said == {what for name in missing for what in report.instead[name]}


@pytest.fixture
def no_data(monkeypatch):
    """A fresh install: no data folder named, none in the environment."""
    monkeypatch.delenv("EVPSIM_DATA", raising=False)


def test_dodge2019_without_data(tmp_path, no_data, capsys):
    report = reproduce("dodge2019", tmp_path, data=None, quick=True, verbose=True)
    claims = _check_report(report, tmp_path)
    assert report.files == ["dodge2019_fig1.nc", "dodge2019_fig1.png", "dodge2019_fig2.nc",
                            "dodge2019_fig2.png", "summary.md"]
    _check_substitutions(report, tmp_path, list(report.data), capsys.readouterr().err)
    assert len(claims) == 7 and all("judged on the KDE fits kde:" in c.why
                                    for c in claims.values())
    # the fits' exact theta_n stand in for the runs, n = 1..runs, with the SD of the maximum
    fig1 = read_netcdf(tmp_path / "dodge2019_fig1.nc")
    assert fig1["kde_fit"].values.tolist() == ["sst5-linear-centered", "sst5-cnn-centered"]
    assert fig1.sizes["n"] == 100 and (fig1["sd"].diff("n") < 0).all()
    fig2 = read_netcdf(tmp_path / "dodge2019_fig2.nc")
    assert (fig2["evp"] <= 1).all() and (fig2["evp"].diff("n") > 0).all()
    assert all(c.verdict == "agrees" for c in claims.values() if c.claim.startswith("Fig. 2"))
    assert np.isfinite(fig2["budget_trials"].sel(model="ELMo fine-tuned")).all()


def test_dodge2021_without_data(tmp_path, no_data, capsys):
    report = reproduce("dodge2021", tmp_path, data=None, quick=True, verbose=True)
    _check_report(report, tmp_path)
    assert "dodge2021_fig3.nc" not in report.files
    _check_substitutions(report, tmp_path, ["sst5_cnn_acc.txt", "sst5_boe_acc.txt"],
                         capsys.readouterr().err)
    data = _data_section(tmp_path)
    assert "kde:sst5-cnn, kde:sst5-boe" in data and "Fig. 3 is skipped" in data
    # Fig. 2 on the fits: i.i.d. draws (a KDE has no pool); no claim about Fig. 3
    fig2 = read_netcdf(tmp_path / "dodge2021_fig2.nc")
    assert "i.i.d." in fig2.attrs["sampling"]
    assert set(fig2["better"].values.tolist()) == {"LBoE"}
    assert not any("Fig. 3" in c.claim for c in report.claims)
    assert all("judged on the KDE fits" in c.why for c in report.claims
               if c.claim.startswith("Fig. 2"))


@pytest.mark.slow  # the reproduction's quick run on its stand-ins: about 30 s
def test_tang2020_without_data(tmp_path, no_data, capsys):
    report = reproduce("tang2020", tmp_path, data=None, quick=True, verbose=True)
    claims = _check_report(report, tmp_path)
    _check_substitutions(report, tmp_path, ["sst2_lstm_glove_acc.txt",
                                            "sst2_lstm_elmo_frozen_acc.txt"],
                         capsys.readouterr().err)
    data = _data_section(tmp_path)
    assert "- `reuters_mlp_f1.txt`: the copy shipped with evpsim (`data:reuters-mlp`)" in data
    assert {f"tang2020_fig5_{t}.png" for t in ("MLP", "LSTM", "GloVe", "ELMo")} <= \
        set(report.files)
    # the stand-ins' fits are drawn without their runs, whose scores are NaN
    fig5 = read_netcdf(tmp_path / "tang2020_fig5.nc")
    runs = fig5["scores"].count("run")
    assert runs.values.tolist() == [145, 152, 0, 0]
    # nothing else needs the runs: the claims are those of a run with them
    assert len(claims) == 13


def test_data_folder_partial_and_quick_from_environment(tmp_path, data_dir, monkeypatch,
                                                          capsys):
    """$EVPSIM_DATA holding only the SST-5 runs: Fig. 1 on the runs, Fig. 2 on the fits;
    $EVPSIM_QUICK=1 switches --quick on."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("sst5_linear_acc.txt", "sst5_cnn_acc.txt"):
        shutil.copy(data_dir / name, folder / name)
    monkeypatch.setenv("EVPSIM_DATA", str(folder))
    monkeypatch.setenv("EVPSIM_QUICK", "1")
    assert main(["reproduce", "dodge2019", "--out", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    assert "reduced sizes (--quick)" in (out / "summary.md").read_text()
    data = _data_section(out)
    assert f"- `sst5_cnn_acc.txt`: read from the data folder (`{folder / 'sst5_cnn_acc.txt'}`)" \
        in data
    assert f"- `sst2_bcn_glove_acc.txt`: not in the data folder `{folder}`. Fig. 2" in data
    said = [ln for ln in capsys.readouterr().err.splitlines() if "not found; " in ln]
    assert len(said) == 1 and "sst2_bcn_glove_acc.txt, sst2_bcn_elmo_frozen_acc.txt, " \
        "sst2_bcn_elmo_finetuned_acc.txt not found; Fig. 2" in said[0]
    assert "kde_fit" not in read_netcdf(out / "dodge2019_fig1.nc").coords
    assert "kde_fit" in read_netcdf(out / "dodge2019_fig2.nc").coords


def test_reproduce_help_names_no_folder_beside_the_checkout(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = capsys.readouterr().out
    assert "shared" not in text and "$EVPSIM_DATA" in text and "EVPSIM_QUICK=1" in text


def test_reproduce_registry_has_the_papers():
    from evpsim.reproduce import PAPERS

    assert {"dodge2019", "dodge2021", "tang2020"} <= set(PAPERS)
