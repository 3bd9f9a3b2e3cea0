"""Dodge et al. (2021), "Expected validation performance and estimation of a
random variable's maximum": the U, V, W estimators compared.

* Fig. 1: mean, variance and MSE of U, V and W on the bag of §3.1
  (B = 30), exactly and by Monte Carlo side by side.
* Fig. 2: how often each estimator at n = B ranks the SST-5 CNN and
  bag-of-embeddings (LBoE) models wrongly, B = 15..30, searches drawn
  without replacement from the 100 real runs of each (§4).
* Fig. 3: the U, V and W curves of both models at B = 100 (Appendix A).

The paper's truths were Monte Carlo averages (50,000 maxima per n) and its
moments came from 10,000 simulated searches; evpsim's truths and moments
are exact, with a Monte Carlo run beside them. Its bag is redrawn from the
same recipe, so it is a different bag of the same kind.

evpsim does not ship the SST-5 runs (they state no licence). Without them
(no ``--data`` folder holding them) Fig. 2 draws i.i.d. searches from their
committed KDE fits ``kde:sst5-cnn`` and ``kde:sst5-boe`` instead, and Fig. 3,
which needs the runs themselves, is skipped.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._format import spans
from ..curves.curve import evp_curve
from ..io.results import provenance, write_netcdf
from ..io.searchfiles import read_scores
from ..studies.bias import bias
from ..studies.compare import comparison_errors
from ..truths.distributions import TruncatedNormal, make_truth
from ..truths.mctheta import monte_carlo_theta
from .summary import Claim

TITLE = ("Dodge et al. (2021), Expected Validation Performance and Estimation of a Random "
         "Variable's Maximum")
#: what the summary calls a run without --quick
FULL_SIZE = "the paper's sizes"
FILES = {"CNN": "sst5_cnn_acc.txt", "LBoE": "sst5_boe_acc.txt"}
#: their committed KDE fits, which stand in for the runs when they are not found
FITS = {"CNN": "sst5-cnn", "LBoE": "sst5-boe"}
ESTIMATORS = ["U", "V", "W"]
B_BAG = 30
BS = range(15, 31)
#: the paper's sizes: searches behind Fig. 1, maxima per n of its Monte Carlo
#: truth, pairs of searches per B in Fig. 2
PAPER = {"searches": 10_000, "truth_maxima": 50_000, "pairs": 50_000}
#: best validation accuracy of each model in the paper's Tables 2-3
PAPER_BEST = {"CNN": 0.413, "LBoE": 0.427}
#: the paper's bag (§3.1): unique values and maximum of 10,000 of 100,000 draws
PAPER_BAG = {"unique": 9536, "max": 0.854, "population": 100_000, "size": 10_000}
SIZES = {False: {"searches": 1_000_000, "pairs": 50_000},
         True: {"searches": 20_000, "pairs": 5_000}}
SEED = 2021


def data_files():
    """Names of the search results this reproduction reads."""
    return list(FILES.values())


def _bag_claim(truth):
    """The bag's unique values and maximum beside the paper's, with the
    sampling distributions the recipe implies (drawing with replacement)."""
    N, k = PAPER_BAG["population"], PAPER_BAG["size"]
    q = 1.0 - 1.0 / N
    mean = N * (1 - q**k)  # occupancy: distinct population draws in the bag
    sd = np.sqrt(N * (N - 1) * (1 - 2.0 / N) ** k + N * q**k - N**2 * q ** (2 * k))
    # the bag's maximum is the largest of ~`mean` distinct truncated-normal draws
    cdf_max = float(TruncatedNormal().cdf(np.array([PAPER_BAG["max"]]))[0] ** mean)
    unique = int(truth.support.size)
    z = (PAPER_BAG["unique"] - mean) / sd
    ok = abs(z) <= 3 and 0.005 <= cdf_max <= 0.995
    return Claim(
        "§3.1: the bag of 10,000 of 100,000 truncated-normal draws",
        f"{PAPER_BAG['unique']:,} unique values, maximum {PAPER_BAG['max']}",
        f"{unique:,} unique, maximum {truth.hi:.3f}; drawing with replacement gives "
        f"{mean:,.0f} ± {sd:.0f} unique (paper's count: z = {z:+.1f}) and puts the paper's "
        f"maximum at the {cdf_max:.0%} point of the maximum's distribution",
        "agrees" if ok else "differs",
        "evpsim redraws the bag (seed 2021): a different bag of the same recipe")


def _fig1(report, quick):
    """Bias, variance and MSE of U, V, W on the bag; claims from exact values."""
    truth = make_truth("bag")
    ds = bias(truth, B=B_BAG, estimators=ESTIMATORS, method="both",
              replicates=SIZES[quick]["searches"], seed=SEED)
    report.claims.append(_bag_claim(truth))
    ex = {q: ds[f"exact_{q}"] for q in ("bias", "variance", "mse")}
    ns = ds["n"].values
    scale = float(ds["theta"].max())
    _fig1_claims(report, ex, ns, tol=1e-12 * scale)
    theta_mc, theta_se = monte_carlo_theta(truth, B_BAG, replicates=PAPER["truth_maxima"],
                                           seed=SEED)
    ds["paper_mc_theta"] = ("n", theta_mc, {
        "long_name": f"Monte Carlo truth from {PAPER['truth_maxima']:,} maxima (the paper's way)"})
    ds["paper_mc_theta_se"] = ("n", theta_se, {"long_name": "its standard error"})
    err = float(np.abs(theta_mc - ds["theta"].values).max())
    report.notes.append(
        f"Fig. 1: evpsim's Monte Carlo ({SIZES[quick]['searches']:,} searches; the paper "
        f"used {PAPER['searches']:,}) agrees with the exact moments: max |z| = "
        f"{ds.attrs['max_abs_z']:.2f} over every estimator, n and quantity. A Monte Carlo "
        f"truth from {PAPER['truth_maxima']:,} maxima per n, as in the paper, errs by up to "
        f"{err:.1e} (SE up to {theta_se.max():.1e}); V's bias at n = {ns[-1]} is "
        f"{float(ex['bias'].sel(estimator='V', n=ns[-1])):.1e}.")
    return ds


def _order(values, tol):
    """Whether W <= V <= U at every n, and whether both gaps grow with n.

    Parameters
    ----------
    values : xarray.DataArray
        One quantity (bias, variance), dims ``estimator`` (U, V, W) and ``n``.
    tol : float
        Differences this small count as ties.

    Returns
    -------
    (bool, str)
        Whether both hold, and the words that say which does.
    """
    u, v, w = (values.sel(estimator=e).values for e in ESTIMATORS)
    ordered = bool(np.all(w <= v + tol) and np.all(v <= u + tol))
    growing = all(bool(np.all(np.diff(gap) >= -tol)) for gap in (u - v, v - w))
    words = (f"order {'holds' if ordered else 'fails'} at every n, gaps "
             f"{'grow' if growing else 'do not always grow'} with n")
    return ordered and growing, words


def _fig1_claims(report, ex, ns, tol):
    """Fig. 1's claims on bias, variance and MSE, from the exact values.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the claims.
    ex : dict
        ``"bias"``, ``"variance"``, ``"mse"`` -> the exact values, dims
        ``estimator`` and ``n``.
    ns : numpy.ndarray
        The budgets.
    tol : float
        Differences this small count as ties.
    """
    u_bias = float(np.abs(ex["bias"].sel(estimator="U")).max())
    holds, words = _order(ex["bias"], tol)
    report.claims.append(Claim(
        "Fig. 1 (top): Bias(W) <= Bias(V) <= Bias(U) = 0, the gaps growing with n",
        "holds", f"exact: {words}; max abs Bias(U) = {u_bias:.1e}; at n = {ns[-1]} Bias(V) = "
        f"{float(ex['bias'].sel(estimator='V', n=ns[-1])):.4f}, Bias(W) = "
        f"{float(ex['bias'].sel(estimator='W', n=ns[-1])):.4f}",
        "agrees" if holds and u_bias <= tol else "differs",
        f"evpsim's values are exact (the paper's: {PAPER['searches']:,} simulated searches)"))
    holds, words = _order(ex["variance"], tol)
    report.claims.append(Claim(
        "Fig. 1 (middle): Var(W) <= Var(V) <= Var(U), the gaps growing with n", "holds",
        f"exact: {words}; at n = {ns[-1]} Var = " + ", ".join(
            f"{e} {float(ex['variance'].sel(estimator=e, n=ns[-1])):.2e}" for e in ESTIMATORS),
        "agrees" if holds else "differs", ""))
    mse = ex["mse"].values
    best = mse.min(axis=0)
    v_best = ns[mse[1] <= best + tol]
    all_equal_1 = float(np.ptp(mse[:, 0])) <= tol
    report.claims.append(Claim(
        "Fig. 1 (bottom): V has the lowest MSE", "V lowest",
        f"exact: V lowest at n = {spans(v_best.tolist()) or 'none'}"
        + (" (all three equal the sample mean's MSE at n = 1)" if all_equal_1 else "")
        + "; at n = " + f"{ns[-1]}: " + ", ".join(
            f"{e} {float(ex['mse'].sel(estimator=e, n=ns[-1])):.2e}" for e in ESTIMATORS),
        "agrees" if np.array_equal(v_best, ns) else (
            "partly" if v_best.size >= ns.size / 2 else "differs"), ""))


def _missing(files):
    """The runs of :data:`FILES` that were not found."""
    return [f for f in FILES.values() if files[f] is None]


def _fig2(report, files, scores, quick):
    """Incorrect-conclusion rates at n = B for B = 15..30: searches of the runs
    without replacement, as the paper drew them, or, without the runs
    (``scores`` None), i.i.d. draws from their committed KDE fits (a KDE has no
    pool)."""
    ds, fits = _fig2_rates(report, files, scores, quick)
    better = ", ".join(sorted(set(ds["better"].values.tolist())))
    _fig2_claims(report, ds, better, *_fig2_basis(ds, better, scores, fits))
    return ds


def _fig2_rates(report, files, scores, quick):
    """Fig. 2's comparison of the two models, with the rate the paper called its
    incorrect conclusion.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Told when the KDE fits stand in for missing runs.
    files : dict
        The search files found.
    scores : dict or None
        The runs' scores per model; None: they were not found.
    quick : bool
        Reduced sizes.

    Returns
    -------
    (xarray.Dataset, str or None)
        The result of :func:`~evpsim.studies.compare.comparison_errors` with
        ``cnn_below``, and the KDE fits it ran on (None: the runs).
    """
    fits = None
    if scores is None:
        specs = [f"kde:{FITS[m]}" for m in FILES]
        fits = ", ".join(specs)
        report.substitute(_missing(files), f"Fig. 2 runs on the committed KDE fits {fits} of "
                                           "the runs, drawing i.i.d. scores: a KDE has no pool "
                                           "of runs to draw without replacement from.")
    else:
        specs = [f"file:{files[f]}" for f in FILES.values()]
    ds = comparison_errors(*specs, Bs=BS, estimators=ESTIMATORS, pool=scores is not None,
                           labels=tuple(FILES), replicates=SIZES[quick]["pairs"], seed=SEED)
    M = ds.attrs["replicates"]
    # Dodge et al. counted "est(CNN) < est(LBoE)" as the incorrect conclusion
    ds["cnn_below"] = ds["b_higher_count"] / M
    ds["cnn_below"].attrs["long_name"] = ("rate of est(CNN) < est(LBoE): the paper's "
                                          "'incorrect conclusion'")
    return ds, fits


def _fig2_basis(ds, better, scores, fits):
    """What Fig. 2's claims are judged on, in words.

    Parameters
    ----------
    ds : xarray.Dataset
        As :func:`_fig2_rates` returns it.
    better : str
        The model the truth makes better (or the models, where it changes with B).
    scores : dict or None
        The runs' scores per model; None: the KDE fits stood in.
    fits : str or None
        The KDE fits, when they stood in.

    Returns
    -------
    (str, str, str, str)
        The words that say the claims rest on the fits ("" on the runs),
        what the truth is of, what makes the better model, and how the
        searches were drawn.
    """
    Bs = ds["B"].values
    if scores is None:
        judged = f"judged on the KDE fits {fits} of the public runs, not the runs; "
        truth_of = "the fits"
        theta = ", ".join(f"{m} {float(ds[f'theta_{k}'].sel(B=Bs[-1])):.3f}"
                          for m, k in zip(FILES, "ab"))
        truth = (f"{judged}the fits make {better} the better model (theta_{Bs[-1]}: {theta}); "
                 "ranking errors are judged against the exact EVP of each fit")
        how = ("each search drawing B i.i.d. scores from a KDE fit (the paper drew B of the 100 "
               "runs without replacement; a KDE has no pool); the truth is each fit's exact "
               "EVP, for which U is unbiased.")
    else:
        judged, truth_of = "", "the public runs"
        truth = (f"the public SST-5 runs make {better} the better model (best runs: "
                 + ", ".join(f"{m} {s.max():.3f}" for m, s in scores.items())
                 + "); ranking errors are judged against the exact EVP of each pool")
        how = ("each search drawing B of the 100 runs without replacement, as the paper did; the "
               "truth is the exact EVP of each pool's empirical distribution, under which U is "
               "only approximately unbiased for searches without replacement.")
    return judged, truth_of, truth, how


def _fig2_claims(report, ds, better, judged, truth_of, truth, how):
    """Fig. 2's two claims, and a note of its sizes and draws.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the claims and the note.
    ds : xarray.Dataset
        As :func:`_fig2_rates` returns it.
    better : str
        As :func:`_fig2_basis` takes it.
    judged, truth_of, truth, how : str
        As :func:`_fig2_basis` returns them.
    """
    M = ds.attrs["replicates"]
    Bs = ds["B"].values
    rates = ds["cnn_below"]
    others = rates.sel(estimator=["V", "W"]).max("estimator")
    u_most = int((rates.sel(estimator="U") > others).sum())
    at = [Bs[0], Bs[-1]]
    cells = "; ".join(f"B = {b}: " + ", ".join(
        f"{e} {float(rates.sel(estimator=e, B=b)):.4f}" for e in ESTIMATORS) for b in at)
    report.claims.append(Claim(
        "Fig. 2, as measured: the rate at which est(CNN) < est(LBoE) at n = B is highest "
        "for U, B = 15..30", "U highest (read as U's incorrect conclusions)",
        f"{cells}; U highest at {u_most} of {Bs.size} budgets",
        "agrees" if u_most == Bs.size else ("partly" if 2 * u_most >= Bs.size else "differs"),
        f"{judged}but here the exact EVP of {truth_of} says {better} is truly better at every "
        "n = B, so these are correct rankings (see next row); U ties more often (equal sample "
        "maxima), and ties count as neither"))
    wrong = ds["wrong"]
    u_rate, v_rate, w_rate = (wrong.sel(estimator=e).values for e in ESTIMATORS)
    u_fewest = int(np.sum((u_rate <= v_rate) & (u_rate <= w_rate)))
    u_most = int(np.sum((u_rate > v_rate) & (u_rate > w_rate)))
    cells = "; ".join(f"B = {b}: " + ", ".join(
        f"{e} {float(wrong.sel(estimator=e, B=b)):.4f} "
        f"[{float(ds['wrong_lower'].sel(estimator=e, B=b)):.4f}, "
        f"{float(ds['wrong_upper'].sel(estimator=e, B=b)):.4f}]" for e in ESTIMATORS)
        for b in at)
    report.claims.append(Claim(
        "Fig. 2 / §4.2: U leads to incorrect conclusions more often than V or W",
        "U errs most", f"rate of ranking opposite to the exact truth: {cells}; U errs most "
        f"at {u_most} and least (or tied) at {u_fewest} of {Bs.size} budgets",
        "agrees" if u_most == Bs.size else ("partly" if u_most else "differs"),
        f"{truth}, not against the paper's assumption that the CNN is better"))
    report.notes.append(f"Fig. 2: {M:,} pairs of searches per B (the paper: "
                        f"{PAPER['pairs']:,}), {how}")


def _fig3(report, scores):
    """U, V and W curves of both models at B = 100."""
    ds = xr.concat([xr.concat([evp_curve(s, e, name=m) for e in ESTIMATORS], dim="estimator")
                    .expand_dims(model=[m]) for m, s in scores.items()], dim="model")
    ds = ds.assign_coords(estimator=ESTIMATORS)
    ds.attrs = provenance(experiment="dodge2021 fig3", estimators=ESTIMATORS,
                          B=int(ds["n"].max()))
    evp = ds["evp"]
    ns = ds["n"].values
    cnn_ahead = {e: ns[(evp.sel(model="CNN", estimator=e) > evp.sel(model="LBoE", estimator=e))
                       .values] for e in ESTIMATORS}
    holds = all(a.size == ns.size for a in cnn_ahead.values())
    report.claims.append(Claim(
        "Fn. 3 / Fig. 3: for all three estimators the CNN has the higher expected performance "
        f"at every n <= B = {ns[-1]}", "CNN ahead at every n",
        "CNN ahead at n = " + "; ".join(f"{e}: {spans(a.tolist()) or 'none'}"
                                        for e, a in cnn_ahead.items())
        + f"; best runs: CNN {scores['CNN'].max():.3f}, "
        f"LBoE {scores['LBoE'].max():.3f}",
        "agrees" if holds else "differs",
        "the public runs (dodgejesse/reproducibility) put LBoE ahead from a few trials on, "
        "consistent with the paper's own Tables 2-3 (best " + ", ".join(
            f"{m} {v}" for m, v in PAPER_BEST.items()) + "), not with its text"))
    spread = evp.max("estimator") - evp.min("estimator")
    rise = evp.sel(estimator="U").max("n") - evp.sel(estimator="U").min("n")
    rel = (spread.max("n") / rise).values
    report.claims.append(Claim(
        f"Fig. 3: with B = {ns[-1]} the three estimators are very similar",
        "very similar", "max over n of max - min of U, V, W: " + ", ".join(
            f"{m} {float(spread.sel(model=m).max()):.4f} ({r:.1%} of its curve's rise)"
            for m, r in zip(ds["model"].values, rel)),
        "agrees" if np.all(rel < 0.05) else "differs", ""))
    return ds


def run(report, out, files, quick=False):
    """Compute, plot and save Figs. 1-3; append claims to ``report``.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` reduces the Monte Carlo sizes.
    """
    from ..report import plot_bias, plot_comparison_errors, plot_estimator_curves

    scores = None if _missing(files) else {m: read_scores(files[f]) for m, f in FILES.items()}
    figs = [("dodge2021_fig1", _fig1(report, quick), plot_bias),
            ("dodge2021_fig2", _fig2(report, files, scores, quick), plot_comparison_errors)]
    if scores is None:
        report.substitute(_missing(files), "Fig. 3 is skipped: it shows U, V and W computed "
                                           "on the runs themselves, and a KDE fit has only its "
                                           "exact EVP, no runs to estimate from.")
    else:
        figs.append(("dodge2021_fig3", _fig3(report, scores), lambda ds, path:
                     plot_estimator_curves(ds, path, title=f"SST-5 CNN vs LBoE, B = "
                                           f"{int(ds['n'].max())} runs each",
                                           metric="validation accuracy")))
    for name, ds, plot in figs:
        write_netcdf(ds, out / f"{name}.nc")
        plot(ds, out / f"{name}.png")
        report.files += [f"{name}.nc", f"{name}.png"]
