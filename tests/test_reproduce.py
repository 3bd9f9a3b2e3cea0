"""One-command reproductions: files written, claims computed from the run."""

import pytest

from evpsim.cli import main
from evpsim.reproduce import reproduce
from evpsim.results import read_netcdf


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


VERDICTS = {"agrees", "partly", "differs"}


def _check_report(report, folder):
    """Every file written, one table row per claim, every verdict computed."""
    for f in report.files:
        assert (folder / f).stat().st_size > 0
    text = (folder / "summary.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert len(rows) == len(report.claims) + 1  # the header, then one row per claim
    assert all(c.verdict in VERDICTS and c.evpsim for c in report.claims)
    assert "reduced sizes (--quick)" in text
    return {c.claim: c for c in report.claims}


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


def test_reproduce_registry_has_the_papers():
    from evpsim.reproduce import PAPERS

    assert {"dodge2019", "dodge2021", "tang2020"} <= set(PAPERS)
