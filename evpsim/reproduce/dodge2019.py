"""Dodge et al. (2019), "Show your work": EVP curves, time budgets, targets.

* Fig. 1 style: expected validation accuracy of SST-5 logistic regression
  (the linear bag-of-words model) and CNN against the number of trials,
  shaded +/- 1 SD within the observed range; the budget for the CNN to
  reach 0.395.
* Fig. 2 style: BCN with GloVe, frozen ELMo and fine-tuned ELMo on SST-2
  against training time, each trial costing the paper's average training
  duration (1624 s, 6815 s, 16071 s); which model is best at which time.
* Budgets to reach target accuracies, in trials and hours.

The public SST-5 runs are the 100-trial searches of Dodge et al. (2021), not
the 50-trial searches of the 2019 paper, so the Fig. 1 claims are checked
against different runs; the BCN runs are the paper's own (50 each).

evpsim does not ship these runs (they state no licence). Without them (no
``--data`` folder holding them) a figure is drawn from the committed KDE
fits of the same runs instead: the exact expected maximum theta_n of each
fit for n up to its runs, with the exact SD of the maximum of n draws from
the fit, and the budgets read off theta_n. The fits are the ``-centered``
ones, clipped to accuracies in [0, 1]: Tang et al.'s construction puts 6.7%
of the fine-tuned ELMo fit's mass above an accuracy of 1 (theta_50 = 1.07).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..curves.curve import evp_curve, first_reaching
from ..io.results import provenance, write_netcdf
from ..io.searchfiles import read_scores
from ..truths.kde import load_kde
from .summary import Claim

TITLE = "Dodge et al. (2019), Show Your Work: expected validation performance"
#: what the summary calls a run without --quick
FULL_SIZE = "the paper's sizes"
DURATIONS = {"GloVe": 1624.0, "ELMo frozen": 6815.0, "ELMo fine-tuned": 16071.0}
#: label -> (search file, its committed KDE fit)
SST5 = {"LR": ("sst5_linear_acc.txt", "sst5-linear-centered"),
        "CNN": ("sst5_cnn_acc.txt", "sst5-cnn-centered")}
BCN = {"GloVe": ("sst2_bcn_glove_acc.txt", "sst2-bcn-glove-centered"),
       "ELMo frozen": ("sst2_bcn_elmo_frozen_acc.txt", "sst2-bcn-elmo-frozen-centered"),
       "ELMo fine-tuned": ("sst2_bcn_elmo_finetuned_acc.txt",
                           "sst2-bcn-elmo-finetuned-centered")}
HOUR = 3600.0


def data_files():
    """Names of the search results this reproduction reads."""
    return [f for f, _ in (*SST5.values(), *BCN.values())]


def _fit_curve(name, label):
    """What :func:`evp_curve` gives for runs, exactly for a committed KDE fit.

    ``evp`` is the fit's theta_n for n = 1..runs, ``sd`` the exact SD of the
    maximum of n draws from the fit (P(max <= x_k) = F_k^n), and
    ``lower``/``upper`` ``evp -/+ sd`` within the fit's support.
    """
    truth = load_kde(name)
    ns = np.arange(1, int(truth.fit["runs"]) + 1)
    theta = truth.theta(ns)
    cdf = np.minimum(np.cumsum(truth.pmf), 1.0)
    mass = np.diff(cdf[None, :] ** ns[:, None], axis=1, prepend=0.0)  # P(max = x_k)
    sd = np.sqrt(np.einsum("nk,nk->n", mass, (truth.support[None, :] - theta[:, None]) ** 2))
    return xr.Dataset(
        {"evp": ("n", theta, {"long_name": "exact expected maximum of n draws from the fit"}),
         "sd": ("n", sd, {"long_name": "exact SD of the maximum of n draws from the fit"}),
         "lower": ("n", np.maximum(theta - sd, truth.lo),
                   {"long_name": "evp - sd, within the fit's support"}),
         "upper": ("n", np.minimum(theta + sd, truth.hi),
                   {"long_name": "evp + sd, within the fit's support"})},
        coords={"n": ns}, attrs={"estimator": "exact theta_n", "B": ns.size, "model": label})


def _curves(report, files, models, figure):
    """The models' curves from their runs or, when a run is missing, all from their fits.

    Returns the curves, concatenated along ``model``, and ``""``, or with
    the fits the words that say so in each claim.
    """
    missing = [f for f, _ in models.values() if files[f] is None]
    if not missing:
        curves = [evp_curve(read_scores(files[f]), name=m).expand_dims(model=[m])
                  for m, (f, _) in models.items()]
        return xr.concat(curves, dim="model", join="outer"), ""
    fits = [fit for _, fit in models.values()]
    names = ", ".join(f"kde:{fit}" for fit in fits)
    report.substitute(missing, f"{figure}: on the committed KDE fits {names} of the runs "
                               "instead (their exact theta_n, and the exact SD of the maximum "
                               "of n draws from each).")
    curves = [_fit_curve(fit, m).expand_dims(model=[m]) for m, fit in zip(models, fits)]
    ds = xr.concat(curves, dim="model", join="outer").assign_coords(kde_fit=("model", fits))
    return ds, f"judged on the KDE fits {names} (exact theta_n), not the runs"


def _why(*parts):
    """A claim's "why it differs": its non-empty parts."""
    return "; ".join(p for p in parts if p)


def _best_at(fig2, seconds):
    """The model with the highest expected accuracy at a time budget."""
    best, value = None, -np.inf
    for m, dur in DURATIONS.items():
        n = int(seconds // dur)
        if n < 1:
            continue
        evp = fig2["evp"].sel(model=m).dropna("n")
        v = float(evp.sel(n=min(n, int(evp["n"].max()))))
        if v > value:
            best, value = m, v
    return best


def _budget(fig, model, target):
    """Smallest n whose expected accuracy reaches ``target`` (NaN: none does)."""
    return first_reaching(fig["evp"].sel(model=model).values, target)


def _fig1(report, files):
    """Fig. 1 (SST-5): the curves of LR and the CNN, and the claims about them.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the claims.
    files : dict
        The search files found (see :func:`data_files`).

    Returns
    -------
    xarray.Dataset
        The curves, with provenance.
    """
    fig1, basis = _curves(report, files, SST5, "Fig. 1")
    fig1.attrs.update(provenance(experiment="dodge2019 fig1",
                                 estimator=fig1.attrs["estimator"]))
    lr, cnn = (fig1["evp"].sel(model=m).dropna("n") for m in ("LR", "CNN"))
    ns = np.intersect1d(lr["n"], cnn["n"])
    lr_ahead = ns[(lr.sel(n=ns) > cnn.sel(n=ns)).values]
    cross = ("LR ahead for n in " + f"{lr_ahead.min()}..{lr_ahead.max()}") if lr_ahead.size \
        else f"CNN ahead at every n = 1..{ns.max()}"
    report.claims.append(Claim(
        "Fig. 1: LR has the higher expected accuracy for budgets up to ~10 trials, the CNN "
        "for larger budgets", "crossover near n = 10", cross,
        "agrees" if lr_ahead.size and 5 <= lr_ahead.max() <= 20 else "differs",
        _why(basis, "public SST-5 runs are the 100-trial searches of Dodge et al. 2021, not the "
                    "paper's 50 trials" + ("" if lr_ahead.size
                                           else "; their linear model is never ahead"))))
    sd_lr, sd_cnn = (fig1["sd"].sel(model=m, n=ns).values for m in ("LR", "CNN"))
    frac = float(np.mean(sd_lr < sd_cnn))
    report.claims.append(Claim(
        "Fig. 1: LR has lower variance at every budget", "all n",
        f"LR's SD lower at {frac:.0%} of n = 1..{ns.max()}",
        "agrees" if frac == 1 else ("partly" if frac >= 0.5 else "differs"),
        _why(basis, "" if frac == 1 else "different runs (see above)")))
    n395 = _budget(fig1, "CNN", 0.395)
    report.claims.append(Claim(
        "Fig. 1: budget for the CNN's expected accuracy to reach 0.395", "16 trials",
        "not reached" if np.isnan(n395) else f"{int(n395)} trials",
        "agrees" if n395 == 16 else "differs",
        _why(basis, "" if n395 == 16 else "different runs: the 2021 search's CNN is stronger")))
    return fig1


def _fig2(report, files):
    """Fig. 2 (BCN variants): the curves against time, the best variant at four budgets,
    and the budgets that reach target accuracies.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the claims and a note of the budgets.
    files : dict
        The search files found (see :func:`data_files`).

    Returns
    -------
    xarray.Dataset
        The curves, with durations, provenance and the budgets.
    """
    fig2, basis = _curves(report, files, BCN, "Fig. 2 and the budgets")
    fig2["duration"] = ("model", [DURATIONS[m] for m in fig2["model"].values],
                        {"units": "s", "long_name": "average training duration per trial"})
    fig2.attrs.update(provenance(experiment="dodge2019 fig2",
                                 estimator=fig2.attrs["estimator"]))
    checks = [("< 2 hours (1.5 h)", 1.5 * HOUR, "GloVe"),
              ("6 hours", 6 * HOUR, "ELMo frozen"), ("1 day", 24 * HOUR, "ELMo frozen"),
              ("the largest budget (50 fine-tuned trials, 9.3 days)", 50 * 16071.0,
               "ELMo fine-tuned")]
    for label, secs, expected in checks:
        best = _best_at(fig2, secs)
        report.claims.append(Claim(
            f"Fig. 2: best BCN variant at {label}", expected, str(best),
            "agrees" if best == expected else "differs",
            _why(basis, "" if best == expected
                 else "evpsim reads the public runs with the paper's durations")))
    return _budgets(report, fig2, basis)


def _budgets(report, fig2, basis):
    """The trials and hours each BCN variant needs to reach 0.85 ... 0.92, noted in
    ``report``.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the note.
    fig2 : xarray.Dataset
        Fig. 2's curves, with durations.
    basis : str
        ``""``, or the words that say the curves rest on KDE fits (:func:`_curves`).

    Returns
    -------
    xarray.Dataset
        ``fig2`` with ``budget_trials`` and ``budget_hours`` over a ``target`` coordinate.
    """
    targets = [0.85, 0.88, 0.90, 0.92]
    rows = np.array([[_budget(fig2, m, t) for t in targets] for m in BCN])
    fig2["budget_trials"] = (("model", "target"), rows,
                             {"long_name": "smallest n whose expected accuracy reaches target"})
    fig2["budget_hours"] = (("model", "target"), rows * fig2["duration"].values[:, None] / HOUR,
                            {"units": "h"})
    fig2 = fig2.assign_coords(target=targets)
    cells = [f"{m}: " + ", ".join(
        f"{t:.2f} in {'-' if np.isnan(r) else f'{int(r)} ({r * DURATIONS[m] / HOUR:.1f} h)'}"
        for t, r in zip(targets, row)) for m, row in zip(BCN, rows)]
    report.notes.append(f"Budgets to reach a target accuracy (trials, hours), "
                        f"{basis or 'V estimator'}: "
                        + "; ".join(cells) + ". '-' means even all 50 trials fall short.")
    return fig2


def run(report, out, files, quick=False):
    """Compute, plot and save everything; append claims to ``report``.

    The protocol of :mod:`evpsim.reproduce`. ``quick`` is unused: every number
    here is exact or computed from the runs in full.
    """
    from ..report import plot_evp_curves, plot_evp_time

    fig1 = _fig1(report, files)
    fig2 = _fig2(report, files)
    for name, ds, plot in (("dodge2019_fig1", fig1, plot_evp_curves),
                           ("dodge2019_fig2", fig2, plot_evp_time)):
        write_netcdf(ds, out / f"{name}.nc")
        plot(ds, out / f"{name}.png", log_x=True, metric="validation accuracy")
        report.files += [f"{name}.nc", f"{name}.png"]
