"""Tang et al. (2020), "Showing your work doesn't always work".

On the discretized-KDE truths of their section 4.1 (``kde:reuters-mlp``,
``kde:reuters-lstm`` and the public stand-ins ``kde:sst2-glove``,
``kde:sst2-elmo``), with searches of B = 50 trials:

* Fig. 1: true and averaged estimated budget-quality curves, MLP vs LSTM
  and GloVe vs ELMo;
* Fig. 2: the failure case at B = 25, where the averaged V curves put the
  MLP above the LSTM for n = 20..25;
* Fig. 3: the false conclusion probe, the rate of estimates below the
  truth for n = 1..50;
* Fig. 4: coverage of 95% bootstrap intervals, M = 1000 samples and
  R = 5000 resamples, for every n, estimator and CI method;
* Fig. 5 and Table 2: the KDE fits over the runs' histograms.

Tang et al. computed each truth by Monte Carlo (1,000,000 iterations) and
their rates from 5,000 samples; evpsim's truths are exact and its rates use
more samples (the probe is also rerun against a Monte Carlo truth to show
what that changes). Their GloVe and ELMo runs are not public: the stand-ins
are Dodge et al. (2019)'s SST-2 LSTM searches (50 runs each).

Only Fig. 5's histograms need the runs themselves; everything else runs on
the committed fits. The Reuters runs ship with evpsim; the SST-2 stand-ins
do not (they state no licence), and without them (no ``--data`` folder
holding them) their fits are drawn without a histogram.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._format import spans
from ..io.results import provenance, read_netcdf, write_netcdf
from ..io.searchfiles import read_scores
from ..studies.compare import compare_curves
from ..studies.coverage import coverage
from ..studies.falseconc import falseconc_against
from ..truths.kde import kde_dirs, load_kde
from .summary import Claim

TITLE = "Tang et al. (2020), Showing Your Work Doesn't Always Work"
#: what the summary calls a run without --quick
FULL_SIZE = "the paper's sizes"
#: label -> committed KDE fit (Tang et al.'s construction)
MODELS = {"MLP": "reuters-mlp", "LSTM": "reuters-lstm", "GloVe": "sst2-glove",
          "ELMo": "sst2-elmo"}
#: Table 2: runs, bandwidth, support of each fit
TABLE2 = {"MLP": (145, 0.0049, (0.72, 0.82)), "LSTM": (152, 0.059, (-0.18, 1.08)),
          "GloVe": (114, 0.018, (0.46, 0.97)), "ELMo": (84, 0.041, (0.39, 0.99))}
STAND_INS = ("GloVe", "ELMo")
PAIRS = {"reuters": ("MLP", "LSTM"), "sst2": ("GloVe", "ELMo")}
ESTIMATORS = ["U", "V", "W"]
B = 50
B_FAILURE = 25
#: Fig. 2: budgets at which the paper's averaged V curves are in the wrong order
FAILURE_NS = np.arange(20, 26)
#: the paper's sizes: samples behind Figs. 1-3, Monte Carlo truth iterations
PAPER = {"samples": 5_000, "truth_iterations": 1_000_000, "coverage": 1000, "resamples": 5000}
SIZES = {False: {"curves": 200_000, "probe": 1_000_000, "coverage": 1000, "resamples": 5000},
         True: {"curves": 20_000, "probe": 20_000, "coverage": 100, "resamples": 500}}
SEED = 2020
#: Fig. 4's claim: coverage "about 0.7 by n = 20"
COVERAGE_N, COVERAGE_PAPER, COVERAGE_ABOUT = 20, 0.7, 0.05
#: Fig. 4's "quickly": significantly below 0.95 by this n
QUICKLY_N = 10


def about_verdict(lower, upper, value=COVERAGE_PAPER, about=COVERAGE_ABOUT):
    """The verdict on "about ``value``" from 95% intervals, one per truth, as the test's
    power allows.

    A truth agrees when its interval ``[lower, upper]`` lies inside
    ``value ± about``, differs when it lies outside, and is undecided
    otherwise. The claim agrees (differs) when every truth does, is partly
    true when some truth surely agrees and another surely differs, and is
    ``"inconclusive"`` otherwise: the undecided truths could go either way,
    so a run at other sizes, whose intervals fall inside these, never
    contradicts the verdict.

    Examples
    --------
    >>> about_verdict([0.68, 0.69], [0.72, 0.71])
    'agrees'
    >>> about_verdict([0.60, 0.40], [0.80, 0.50])
    'inconclusive'
    >>> about_verdict([0.68, 0.40], [0.72, 0.50])
    'partly'
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    return _combine((lower >= value - about) & (upper <= value + about),
                    (upper < value - about) | (lower > value + about))


def _quickly(first, lower):
    """The verdict on "quickly below 0.95": agrees when every truth's coverage is
    significantly below 0.95 by n = :data:`QUICKLY_N` (``first``: the first such n, or
    None); differs where a truth's lower bound there (``lower``) is still at least 0.95;
    else inconclusive (too few samples to tell)."""
    return _combine([f is not None and f <= QUICKLY_N for f in first.values()],
                    np.asarray(lower) >= 0.95)


def _combine(yes, no):
    """A claim's verdict from its truths' decisions: agrees (differs) when every truth
    surely agrees (differs), partly when some surely agree and others surely differ,
    else inconclusive (an undecided truth could go either way)."""
    yes, no = np.asarray(yes, dtype=bool), np.asarray(no, dtype=bool)
    if yes.all():
        return "agrees"
    if no.all():
        return "differs"
    return "partly" if yes.any() and no.any() else "inconclusive"


def _budgets(ns):
    """Budgets as text, ``"20-25"``, or ``"none"``."""
    return spans(np.asarray(ns).tolist()) or "none"


def _committed_fit(name):
    """The committed fit ``name`` as a Dataset (the first of :func:`kde_dirs` holding it)."""
    path = next(p for p in (d / f"{name}.nc" for d in kde_dirs()) if p.is_file())
    return read_netcdf(path)


def data_files():
    """Names of the search results this reproduction reads: the committed fits' sources."""
    return [_committed_fit(name).attrs["source"] for name in MODELS.values()]


def _by_truth(results, experiment):
    """Per-truth results concatenated along ``truth``; the truths' attributes
    become coordinates, the shared ones stay."""
    labels = list(results)
    ds = xr.concat([results[t] for t in labels], dim="truth", coords="different",
                   compat="equals", join="outer", combine_attrs="drop_conflicts")
    ds = ds.assign_coords(truth=labels,
                          truth_spec=("truth", [f"kde:{MODELS[t]}" for t in labels]))
    ds.attrs.update(provenance(experiment=experiment))
    return ds


def _fig5(report, files, fits):
    """Table 2 and Fig. 5: the fits, their parameters and the runs (None where not found)."""
    sources = {t: fit.attrs["source"] for t, fit in fits.items()}
    scores = {t: None if files[src] is None else read_scores(files[src])
              for t, src in sources.items()}
    for t, s in scores.items():
        if s is None:
            report.substitute([sources[t]], f"Fig. 5 ({t}): the committed KDE fit kde:{MODELS[t]} "
                                            "is drawn without the runs' histogram, and "
                                            "tang2020_fig5.nc holds NaN for its scores.")
    labels = list(fits)
    runs = max(int(fits[t].attrs["runs"]) if s is None else s.size for t, s in scores.items())
    ds = xr.Dataset(coords={"truth": labels, "bin": np.arange(fits[labels[0]].sizes["x"]),
                            "edge": np.arange(fits[labels[0]].sizes["edge"]),
                            "run": np.arange(runs)})
    ds["support"] = (("truth", "bin"), np.stack([f["x"].values for f in fits.values()]),
                     {"long_name": "support point (mass at the interval's left edge)"})
    ds["pmf"] = (("truth", "bin"), np.stack([f["pmf"].values for f in fits.values()]))
    ds["edges"] = (("truth", "edge"), np.stack([f["edges"].values for f in fits.values()]))
    padded = [np.full(runs, np.nan) if s is None
              else np.pad(s, (0, runs - s.size), constant_values=np.nan) for s in scores.values()]
    ds["scores"] = (("truth", "run"), np.stack(padded),
                    {"long_name": "the runs' validation scores (NaN pads)"})
    for key in ("bandwidth", "runs", "grid_lo", "grid_hi"):
        ds[key] = ("truth", [fits[t].attrs[key] for t in labels])
    for k, key in enumerate(("paper_runs", "paper_bandwidth")):
        ds[key] = ("truth", [TABLE2[t][k] for t in labels], {"long_name": "Tang et al. Table 2"})
    ds["paper_support_lo"] = ("truth", [TABLE2[t][2][0] for t in labels])
    ds["paper_support_hi"] = ("truth", [TABLE2[t][2][1] for t in labels])
    ds.attrs.update(provenance(experiment="tang2020 fig5", construction="tang2020"))
    for t in labels:
        fit = fits[t].attrs
        p_runs, p_bw, (p_lo, p_hi) = TABLE2[t]
        same = (fit["runs"] == p_runs and float(f"{fit['bandwidth']:.2g}") == p_bw
                and round(fit["grid_lo"], 2) == p_lo and round(fit["grid_hi"], 2) == p_hi)
        report.claims.append(Claim(
            f"Table 2 / Fig. 5: {t} KDE", f"{p_runs} runs, bw {p_bw}, support [{p_lo}, {p_hi}]",
            f"{fit['runs']} runs, bw {fit['bandwidth']:.4f}, support "
            f"[{fit['grid_lo']:.4f}, {fit['grid_hi']:.4f}], {fit['bins']} bins",
            "agrees" if same else "differs",
            f"stand-in: Tang et al.'s {t} runs are not public; {fit['source']} is "
            "Dodge et al. 2019's SST-2 LSTM search" if t in STAND_INS else ""))
    return ds, scores


def _fig1(report, truths, sizes):
    """True and averaged curves of both pairs at B = 50."""
    out = {}
    se_paper = 0.0
    for key, (a, b) in PAIRS.items():
        ds = compare_curves(truths[a], truths[b], B=B, estimators=ESTIMATORS, labels=(a, b),
                            replicates=sizes["curves"], seed=SEED)
        out[key] = ds
        sd = max(float(ds[f"sd_{m}"].sel(estimator="V").max()) for m in "ab")
        se_paper = max(se_paper, sd / np.sqrt(PAPER["samples"]))
    better = out["reuters"]["better"].values
    ns = out["reuters"]["n"].values
    lstm_from = ns[better == "LSTM"]
    switch = lstm_from.size and better[0] == "MLP" and np.all(better[lstm_from[0] - 1:] == "LSTM")
    report.claims.append(Claim(
        "Fig. 1 (Reuters): the LSTM is harder to tune but better after some effort",
        "MLP ahead at small n, LSTM at large n",
        f"exact truths: MLP ahead at n = {_budgets(ns[better == 'MLP'])}, LSTM at n = "
        f"{_budgets(lstm_from)}", "agrees" if switch else "differs", ""))
    better = out["sst2"]["better"].values
    elmo = ns[better == "ELMo"]
    report.claims.append(Claim(
        "Fig. 1 (SST-2): ELMo attains better accuracy than GloVe with the same number of trials",
        "ELMo ahead at every n", f"exact truths: ELMo ahead at n = {_budgets(elmo)}",
        "agrees" if elmo.size == ns.size else "differs",
        "stand-ins: Dodge et al. 2019's LSTM+GloVe and LSTM+frozen ELMo runs (50 each), "
        "not Tang et al.'s 114 and 84"))
    se_run = max(float(ds[f"mean_{m}_se"].sel(estimator="V").max()) for ds in out.values()
                 for m in "ab")
    report.claims.append(Claim(
        "Fig. 1: the averaged (V) curves are precise (standard error < 0.001)",
        f"SE < 0.001 with {PAPER['samples']:,} samples",
        f"largest SE of V at {PAPER['samples']:,} samples: {se_paper:.5f} (this run, "
        f"{sizes['curves']:,} samples: {se_run:.5f})",
        "agrees" if se_paper < 0.001 else "differs", ""))
    return out


def _fig2(report, truths, sizes):
    """The failure case: averaged estimates in the wrong order at B = 25."""
    a, b = PAIRS["reuters"]
    ds = compare_curves(truths[a], truths[b], B=B_FAILURE, estimators=ESTIMATORS, labels=(a, b),
                        replicates=sizes["curves"], seed=SEED)
    ns = ds["n"].values
    rev = {e: ns[ds["reversed"].sel(estimator=e).values.astype(bool)] for e in ESTIMATORS}
    v_rev = rev["V"]
    verdict = "agrees" if np.array_equal(v_rev, FAILURE_NS) else (
        "partly" if np.intersect1d(v_rev, FAILURE_NS).size else "differs")
    report.claims.append(Claim(
        f"Fig. 2: at B = {B_FAILURE} the averaged V estimates put the MLP above the LSTM, "
        "which is truly better", f"n = {_budgets(FAILURE_NS)}",
        f"n = {_budgets(v_rev)} (LSTM truly better at n = "
        f"{_budgets(ns[ds['better'].values == 'LSTM'])})", verdict, ""))
    wrong = ds["wrong"].sel(n=B_FAILURE)
    report.notes.append(
        f"Fig. 2: averaged estimates in the wrong order at n = U: {_budgets(rev['U'])}; "
        f"V: {_budgets(rev['V'])}; W: {_budgets(rev['W'])}. A single pair of searches ranks "
        f"the models wrongly at n = {B_FAILURE} with rate "
        + ", ".join(f"{e} {float(wrong.sel(estimator=e)):.3f}" for e in ESTIMATORS) + ".")
    return ds


def _fig3(report, truths, sizes):
    """False conclusion probe on the four truths, exact and Monte Carlo truths."""
    ds = _fig3_probe(truths, sizes)
    _fig3_claims(report, ds, truths, sizes)
    return ds


def _fig3_probe(truths, sizes):
    """The rates at which U, V and W fall below the exact truth and Tang et al.'s Monte
    Carlo truth, a truth at a time.

    Parameters
    ----------
    truths : dict
        Label -> truth.
    sizes : dict
        The run's sizes (:data:`SIZES`).

    Returns
    -------
    xarray.Dataset
        The false-conclusion rates along ``truth``, with ``below_mc_truth``
        and ``mc_theta_se``.
    """
    # each truth's searches compared with the exact truth and, in the same
    # pass, with Tang et al.'s Monte Carlo truth
    both = {t: falseconc_against(tr, B, ("exact", "mc"), estimators=ESTIMATORS,
                                 replicates=sizes["probe"], seed=SEED,
                                 truth_replicates=PAPER["truth_iterations"])
            for t, tr in truths.items()}
    ds = _by_truth({t: exact for t, (exact, _) in both.items()}, "tang2020 fig3: falseconc")
    mc = xr.concat([mc[["below", "theta_se"]] for _, mc in both.values()],
                   dim="truth", coords="different", compat="equals", join="outer")
    ds["below_mc_truth"] = (("truth", "estimator", "n"), mc["below"].values, {
        "long_name": f"rate of estimate < a Monte Carlo truth from "
                     f"{PAPER['truth_iterations']:,} maxima (Tang et al.'s way)"})
    ds["mc_theta_se"] = (("truth", "n"), mc["theta_se"].values)
    return ds


def _fig3_claims(report, ds, truths, sizes):
    """Fig. 3's three claims, and a note on the Monte Carlo truths.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the claims and the note.
    ds : xarray.Dataset
        As :func:`_fig3_probe` returns it.
    truths : dict
        Label -> truth.
    sizes : dict
        The run's sizes (:data:`SIZES`).
    """
    v = ds.sel(estimator="V")
    last = v.sel(n=B)
    cells = ", ".join(f"{t} {float(last['below'].sel(truth=t)):.3f} "
                      f"[{float(last['below_lower'].sel(truth=t)):.3f}, "
                      f"{float(last['below_upper'].sel(truth=t)):.3f}]" for t in truths)
    rising = bool((last["below"] > v["below"].sel(n=10)).all() and (last["below_lower"] > 0.5)
                  .all())
    report.claims.append(Claim(
        "Fig. 3: V quickly prefers negative errors as n increases",
        "rate of V < theta rises well above 0.5",
        "at n = 10: " + ", ".join(f"{t} {float(v['below'].sel(truth=t, n=10)):.3f}"
                                   for t in truths) + f"; at n = {B}: {cells}",
        "agrees" if rising else "differs",
        f"exact truths and {sizes['probe']:,} samples (the paper: Monte Carlo truths, "
        f"{PAPER['samples']:,} samples)"))
    mean_rate = v["below"].sel(n=slice(2, None)).mean("n")
    worst = str(mean_rate.idxmax("truth").item())
    own = [t for t in truths if t not in STAND_INS]
    worst_own = str(mean_rate.sel(truth=own).idxmax("truth").item())
    report.claims.append(Claim(
        "Fig. 3: the MLP fares worse than the other models", "MLP highest",
        f"mean over n = 2..{B} of V's rate: " + ", ".join(
            f"{t} {float(mean_rate.sel(truth=t)):.3f}" for t in truths),
        "agrees" if worst == "MLP" else ("partly" if worst_own == "MLP" else "differs"),
        "" if worst == "MLP" else "the MLP is worse than the LSTM (Tang et al.'s own runs) but "
        "not than the GloVe/ELMo stand-ins, whose runs differ from the paper's"
        if worst_own == "MLP" else "the MLP is not worse even than the LSTM here"))
    u = ds.sel(estimator="U", n=slice(2, None))
    contains = (u["below_lower"] <= 0.5) & (u["below_upper"] >= 0.5)
    lo, hi = float(u["below"].min()), float(u["below"].max())
    report.claims.append(Claim(
        "§4.2: the unbiased estimator U prefers neither under- nor overestimates",
        "rate 0.5", f"U's rate over n = 2..{B} and the four truths: {lo:.3f}..{hi:.3f}; "
        f"0.5 inside the 95% interval at {float(contains.mean()):.0%} of them",
        "agrees" if bool(contains.all()) else ("partly" if max(0.5 - lo, hi - 0.5) < 0.1
                                               else "differs"),
        "unbiased means a mean error of zero, not a median of zero: on skewed truths U's "
        "median sits off theta_n"))
    shift = float(np.abs(ds["below_mc_truth"] - ds["below"]).max())
    report.notes.append(
        f"Fig. 3: against Monte Carlo truths from {PAPER['truth_iterations']:,} maxima (Tang "
        f"et al.'s way; SE of theta_n up to {float(ds['mc_theta_se'].max()):.1e}) the same "
        f"samples give rates that differ from the exact-truth rates by at most {shift:.4f}.")


def _fig4(report, truths, sizes):
    """Coverage of bootstrap intervals on the four truths."""
    cov = {t: coverage(tr, B=B, estimators=ESTIMATORS, replicates=sizes["coverage"],
                       resamples=sizes["resamples"], seed=SEED) for t, tr in truths.items()}
    ds = _by_truth(cov, "tang2020 fig4: coverage")
    pct = ds.sel(ci_method="percentile", estimator="V")
    ns = ds["n"].values
    first_low = {t: ns[(pct["coverage_upper"].sel(truth=t) < 0.95).values] for t in truths}
    first = {t: int(f[0]) if f.size else None for t, f in first_low.items()}
    report.claims.append(Claim(
        "Fig. 4: percentile-bootstrap intervals for V quickly fall below the nominal 0.95",
        "quickly", "coverage significantly below 0.95 from n = " + ", ".join(
            f"{t} {first[t] if first[t] else 'never'}" for t in truths)
        + " (at n = 1: " + ", ".join(f"{t} {float(pct['coverage'].sel(truth=t, n=1)):.3f}"
                                      for t in truths) + ")",
        _quickly(first, pct.sel(n=QUICKLY_N)["coverage_lower"].sel(truth=list(truths)).values),
        f"M = {sizes['coverage']:,} samples, R = {sizes['resamples']:,} resamples (the "
        f"paper: {PAPER['coverage']:,}, {PAPER['resamples']:,})"))
    at = pct.sel(n=COVERAGE_N).sel(truth=list(truths))
    report.claims.append(Claim(
        f"Fig. 4: coverage falls to about {COVERAGE_PAPER} by n = {COVERAGE_N}",
        f"about {COVERAGE_PAPER}", f"V, percentile, n = {COVERAGE_N}: " + ", ".join(
            f"{t} {float(at['coverage'].sel(truth=t)):.3f} "
            f"[{float(at['coverage_lower'].sel(truth=t)):.3f}, "
            f"{float(at['coverage_upper'].sel(truth=t)):.3f}]" for t in truths),
        about_verdict(at["coverage_lower"].values, at["coverage_upper"].values),
        f"'about' read as within ±{COVERAGE_ABOUT}: a truth agrees when its 95% interval lies "
        f"inside {COVERAGE_PAPER} ± {COVERAGE_ABOUT}, differs when it lies outside; "
        f"inconclusive: some interval straddles an edge, so M = {sizes['coverage']:,} samples "
        "cannot tell; the paper does not say which truths "
        "Fig. 4 used (evpsim runs all four); exact truths (the paper: Monte Carlo); "
        "GloVe/ELMo are stand-ins"))
    v = ds.sel(estimator="V")
    cells = []
    for m in ds["ci_method"].values:
        vals = [v["coverage"].sel(ci_method=m, n=n) for n in (COVERAGE_N, B)]
        width = v["mean_width"].sel(ci_method=m, n=B)
        cells.append(f"{m} " + " / ".join(f"{float(x.min()):.2f}-{float(x.max()):.2f}"
                                           for x in vals)
                     + f", width {float(width.min()):.3f}-{float(width.max()):.3f}")
    report.notes.append(
        f"Fig. 4, every CI method for V (range over the four truths of the coverage at n = "
        f"{COVERAGE_N} / n = {B}, and of the mean width at n = {B}): " + "; ".join(cells)
        + ". Band methods hold for every n at once and need the known score range.")
    return ds, cov


def run(report, out, files, quick=False):
    """Compute, plot and save Figs. 1-5; append claims to ``report``.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` reduces the Monte Carlo sizes.
    """
    from ..report import plot_compare_curves, plot_coverage, plot_kde, plot_rate_by_truth

    sizes = SIZES[quick]
    fits = {t: _committed_fit(name) for t, name in MODELS.items()}
    truths = {t: load_kde(fit) for t, fit in fits.items()}
    report.step("Fig. 5: the KDE fits")
    fig5, scores = _fig5(report, files, fits)
    report.step("Fig. 1: budget-quality curves")
    fig1 = _fig1(report, truths, sizes)
    report.step("Fig. 2: the failure case at B = 25")
    fig2 = _fig2(report, truths, sizes)
    report.step("Fig. 3: the false-conclusion probe")
    fig3 = _fig3(report, truths, sizes)
    report.step("Fig. 4: bootstrap coverage (the longest part)")
    fig4, cov = _fig4(report, truths, sizes)
    report.step("writing files")
    if quick:
        report.notes.append("Reduced sizes: the verdicts above rest on small samples.")

    def save(name, ds, *plots):
        write_netcdf(ds, out / f"{name}.nc")
        report.files.append(f"{name}.nc")
        for png, plot in plots:
            plot(out / f"{png}.png")
            report.files.append(f"{png}.png")

    for key, ds in fig1.items():
        save(f"tang2020_fig1_{key}", ds,
             (f"tang2020_fig1_{key}", lambda p, ds=ds: plot_compare_curves(ds, p)))
    save("tang2020_fig2", fig2, ("tang2020_fig2", lambda p: plot_compare_curves(fig2, p)))
    save("tang2020_fig3", fig3, ("tang2020_fig3", lambda p: plot_rate_by_truth(
        fig3, "below", p, ylabel="P(estimate < true EVP)", reference=0.5,
        title=f"False conclusion probe: B = {B}, {sizes['probe']:,} searches per truth, "
              "Clopper-Pearson 95% bands")))
    save("tang2020_fig4", fig4,
         ("tang2020_fig4", lambda p: plot_rate_by_truth(
             fig4.sel(ci_method="percentile"), "coverage", p,
             ylabel="empirical coverage", reference=float(fig4.attrs["level"]),
             title=f"Percentile bootstrap: B = {B}, M = {sizes['coverage']:,} samples, "
                   f"R = {sizes['resamples']:,} resamples, Clopper-Pearson 95% bands")),
         *((f"tang2020_fig4_{t}", lambda p, t=t: plot_coverage(cov[t], p))
           for t in truths))
    save("tang2020_fig5", fig5,
         *((f"tang2020_fig5_{t}", lambda p, t=t: plot_kde(fits[t], scores[t], p))
           for t in fits))
