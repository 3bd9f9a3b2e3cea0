"""Intervals that hold: which confidence interval for theta_n covers at every n?

Tang et al. (2020) showed that percentile-bootstrap intervals of the EVP
curve cover far less than they claim as n approaches B, and the
distribution-free bands hold but are several times wider. Every resampled
estimate is at most the sample maximum, so near n = B an interval must
reach beyond it, using tail information. This study sets the candidates
of :mod:`evpsim.intervals` of kind ``resampling`` (``studentized``,
``smoothed``, ``gpd-tail``, ``m-out-of-n``) beside ``percentile``,
``basic``, ``bca`` and the ``ld-equal-tailed`` band, for U and V, on 14
truths of every kind evpsim knows (:data:`TRUTHS`: the truncated normals,
Tang's pair, the bag, KDE fits of the papers' searches in both
constructions and the shipped searches as empirical truths, the
scikit-learn pools among them), at B = 25, 50 and 100, n on a log grid up
to 2B (beyond B for V), each cell (truth, B) a run of the sweep battery
``intervals`` (:func:`evpsim.studies.interval_study.cell`).

The goal: a coverage estimate of at least 0.93 in every cell at B = 50
and 100 (M >= 1,000 searches a cell) with median width at most twice the
percentile interval's. ``summary.md`` says which method reaches it, and if
none, how close each came and the best trade-off (a ``--quick`` run names
none: its sizes decide nothing); ``intervals.md`` holds the full tables.
Cells *surely* below 0.93 (the Clopper-Pearson upper bound below it) are
counted first, those whose estimate is below it beside them.

The full run takes about 2 hours on two cores (see ``summary.md``); with
``$EVPSIM_STUDY_STORE`` naming a folder, its finished cells are kept there as
they come in, and a run with the same grid resumes from them (:class:`evpsim.engine.sweeps.Store`).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np

from .. import _validate as check
from ..io.results import write_netcdf
from ..studies.interval_study import (BASELINES, CANDIDATES, GOAL_COVERAGE, GOAL_WIDTH, summarise,
                                      verdict)
from .summary import Claim

TITLE = "Intervals that hold: confidence intervals for the EVP curve at every n"
#: what the summary calls a run without --quick
FULL_SIZE = ("full size (14 truths of every kind, B = 25, 50, 100; M = 1,000 searches and "
             "R = 1,000 resamples a cell)")
BS = (25, 50, 100)
SEED = 2025
#: the sweep options of the full and quick runs
SIZES = {False: dict(samples=1000, resamples=1000, width_samples=250, oracle_samples=20_000),
         True: dict(samples=40, resamples=100, width_samples=6, oracle_samples=1000)}
#: the full run's truths: every kind evpsim knows, in 14 (the papers' four parametric
#: truths; KDE fits of the Reuters, SST-2 and SST-5 searches, Tang et al.'s construction
#: and the centered one; the shipped searches as their own truths: bimodal, tied, large
#: pools). All 37 of the leaderboard would take about 8 hours on two cores.
TRUTHS = ("normal", "tang-small", "tang-big", "bag", "kde:reuters-lstm",
          "kde:reuters-mlp-centered", "kde:sst2-elmo-centered", "kde:sst5-cnn-centered",
          "data:reuters-mlp", "data:reuters-lstm", "data:mnli-deberta-base", "data:sklearn-mlp",
          "data:sklearn-hgb", "data:sklearn-svm")
#: the quick run's grid: a truth of each kind, two budgets
QUICK = dict(truths=("normal", "tang-small", "data:reuters-mlp"), Bs=(12, 24))


def data_files():
    """No search files beyond the shipped ones."""
    return []


#: the environment variable naming a checkpoint folder of the study's cells
STORE_ENV = "EVPSIM_STUDY_STORE"


def study_grid(truths, Bs, sizes, seed=SEED):
    """The :class:`~evpsim.engine.sweeps.Grid` of the study: the ``intervals`` battery on every
    truth and B."""
    from ..engine.sweeps import Grid

    options = {**sizes, "ci_methods": list(BASELINES + CANDIDATES)}
    return Grid.make("intervals", {"dist": list(truths), "B": list(Bs)}, options, seed)


def study(truths, Bs, sizes, *, seed=SEED, progress=False, store=None):
    """The study's cells, combined: :func:`evpsim.sweep` of :func:`study_grid`
    (checkpointed in ``store``, if given)."""
    from ..engine.sweeps import sweep

    return sweep(None, grid=study_grid(truths, Bs, sizes, seed), progress=progress,
                 store=store)


@contextmanager
def _store_named(store):
    """Errors of the checkpoint store ``store`` (from :data:`STORE_ENV`, if not None)
    name the variable, not a store argument the user never saw."""
    try:
        yield
    except check.InvalidArgument as err:
        if store is None or err.argument != "store":
            raise
        raise check.InvalidArgument(STORE_ENV, f"the environment variable {STORE_ENV}: "
                                               f"{err}") from None


def _percent(v):
    return "-" if not np.isfinite(v) else f"{100 * v:.1f}%"


def _ratio(v):
    return "-" if not np.isfinite(v) else f"{v:.2f}"


def table(summary, part):
    """A markdown table of :func:`~evpsim.studies.interval_study.summarise`'s numbers."""
    head = ["B", "estimator", "CI method", "cells", "min coverage [95% CP]", "worst cell",
            f"cells surely < {GOAL_COVERAGE:g}", f"cells with estimate < {GOAL_COVERAGE:g}",
            "miss below",
            "miss above", "width / percentile", "width / LD", "width / oracle"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for B in summary["B"].values:
        for e in summary["estimator"].values:
            for m in summary["ci_method"].values:
                s = summary.sel(B=B, estimator=e, ci_method=m)
                if int(s["cells"]) == 0:
                    continue
                cov = (f"{float(s['min_coverage']):.3f} [{float(s['min_coverage_lower']):.3f}, "
                       f"{float(s['min_coverage_upper']):.3f}]")
                lines.append("| " + " | ".join([
                    str(B), str(e), str(m), str(int(s["cells"])), cov,
                    f"{s['worst_dist'].item()}, n = {int(s['worst_n'])}",
                    _percent(float(s["surely_below_goal"])), _percent(float(s["below_goal"])),
                    _percent(float(s["miss_below"])), _percent(float(s["miss_above"])),
                    _ratio(float(s["width_vs_percentile"])), _ratio(float(s["width_vs_ld"])),
                    _ratio(float(s["width_vs_oracle"]))]) + " |")
    return "\n".join(lines)


def _closeness(summary, Bs):
    """Per candidate, over the goal's B and both estimators: lowest coverage, its cell,
    the largest shares of cells surely below the goal and with an estimate below it, the
    largest median width relative to percentile."""
    s = summary.sel(B=list(Bs))
    out = {}
    for m in summary["ci_method"].values:
        sm = s.sel(ci_method=m)
        flat = sm["min_coverage"].values.ravel()
        k = int(np.nanargmin(flat))
        idx = np.unravel_index(k, sm["min_coverage"].shape)
        at = {d: sm[d].values[i] for d, i in zip(sm["min_coverage"].dims, idx)}
        where = sm.isel({d: i for d, i in zip(sm["min_coverage"].dims, idx)})
        out[str(m)] = dict(
            min_coverage=float(flat[k]), lower=float(where["min_coverage_lower"]),
            upper=float(where["min_coverage_upper"]), B=int(at["B"]),
            estimator=str(at["estimator"]), dist=str(where["worst_dist"].item()),
            n=int(where["worst_n"]), surely=float(sm["surely_below_goal"].max()),
            below=float(sm["below_goal"].max()),
            width=float(sm["width_vs_percentile"].max()),
            oracle=float(sm["width_vs_oracle"].max()))
    return out


def compact(summary, close, Bs):
    """The summary's table: a row per method, over the goal's B and both estimators."""
    s = summary.sel(B=list(Bs))
    head = ["CI method", "lowest coverage [95% CP]", "where",
            f"cells surely < {GOAL_COVERAGE:g}", f"cells with estimate < {GOAL_COVERAGE:g}",
            "miss below", "miss above", "width / percentile", "width / LD", "width / oracle",
            "goal"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    met = verdict(summary, Bs)
    for m, c in close.items():
        sm = s.sel(ci_method=m)
        lines.append("| " + " | ".join([
            m, f"{c['min_coverage']:.3f} [{c['lower']:.3f}, {c['upper']:.3f}]",
            f"{c['estimator']}, {c['dist']}, B = {c['B']}, n = {c['n']}",
            _percent(c["surely"]), _percent(c["below"]),
            _percent(float(sm["miss_below"].mean())), _percent(float(sm["miss_above"].mean())),
            _ratio(float(sm["width_vs_percentile"].max())), _ratio(float(sm["width_vs_ld"].max())),
            _ratio(float(sm["width_vs_oracle"].max())),
            "met" if bool(met.sel(ci_method=m)) else "not met"]) + " |")
    return "\n".join(lines)


def best_tradeoff(close):
    """The candidate with the highest lowest coverage among those within the width goal
    (else the one with the smallest width), and why."""
    cands = {m: c for m, c in close.items() if m in CANDIDATES}
    narrow = {m: c for m, c in cands.items() if c["width"] <= GOAL_WIDTH}
    pool = narrow or cands
    key = (lambda m: pool[m]["min_coverage"]) if narrow else (lambda m: -pool[m]["width"])
    return max(pool, key=key), bool(narrow)


def _claims(report, within, Bs, quick=False):
    """The goal's and the best trade-off's claims; a ``quick`` run's verdicts are
    inconclusive and its best trade-off is only "at these sizes"."""
    met = verdict(within, Bs)
    close = _closeness(within, Bs)
    winners = [str(m) for m in met["ci_method"].values if bool(met.sel(ci_method=m))]
    goal = (f"a coverage estimate >= {GOAL_COVERAGE:g} in every cell (truth, n <= B) at B = "
            f"{' and '.join(map(str, Bs))}, for U and V, with median width <= "
            f"{GOAL_WIDTH:g}x the percentile interval's")
    detail = "; ".join(
        f"{m}: lowest {c['min_coverage']:.3f} [{c['lower']:.3f}, {c['upper']:.3f}] "
        f"({c['estimator']}, {c['dist']}, B = {c['B']}, n = {c['n']}), surely below "
        f"{GOAL_COVERAGE:g} in up to {_percent(c['surely'])} of cells (estimate below it in up "
        f"to {_percent(c['below'])}), median width up to {c['width']:.2f}x percentile "
        f"({c['oracle']:.2f}x oracle)"
        for m, c in close.items())
    sizes = "at these sizes, which decide nothing: " if quick else ""
    report.claims.append(Claim(
        f"A CI method reaches the goal: {goal}",
        "before the study: none known (percentile fails near n = B; bands are too wide)",
        sizes + (("reached by " + ", ".join(winners)) if winners
                 else f"no method reaches it. {detail}"),
        "inconclusive" if quick else ("agrees" if winners else "differs"),
        "the lowest coverage is over every truth run, n <= B and both estimators; surely below: "
        "the Clopper-Pearson upper bound is below it; widths are the median over cells of "
        "each cell's median width relative to the percentile interval's"))
    best, within_width = best_tradeoff(close)
    c = close[best]
    report.claims.append(Claim(
        "The best trade-off among the candidates",
        "the study's question: name it with numbers if none reaches the goal",
        sizes + f"{best}: lowest coverage {c['min_coverage']:.3f} ({c['dist']}, B = {c['B']}, "
        f"n = {c['n']}), median width up to {c['width']:.2f}x percentile"
        + ("" if within_width else " (no candidate is within the width goal: the narrowest)"),
        "inconclusive" if quick else ("agrees" if best in winners else "partly"),
        f"highest lowest coverage among the candidates with median width <= {GOAL_WIDTH:g}x "
        f"percentile"))
    return best


def _run_study(report, truths, Bs, sizes):
    """The study's Dataset, its cells kept in the checkpoint store that
    ``$EVPSIM_STUDY_STORE`` (:data:`STORE_ENV`) names, if any.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Told the step, and whether to show progress.
    truths, Bs, sizes
        The grid and sizes (:data:`TRUTHS`, :data:`BS`, :data:`SIZES`, or :data:`QUICK`'s).

    Returns
    -------
    xarray.Dataset
        As :func:`study` returns it.
    """
    store = os.environ.get(STORE_ENV) or None
    if store is not None:  # checked before the first progress line
        from ..engine.sweeps import Store

        with _store_named(store):
            Store(store, study_grid(truths, Bs, sizes))
    report.step(f"{len(truths)} truths x B = {', '.join(map(str, Bs))}: every method's "
                f"coverage, widths and the oracle's")
    with _store_named(store):
        return study(truths, Bs, sizes, progress=report.verbose, store=store)


def _tables(within, beyond, truths, Bs, sizes):
    """The text of ``intervals.md``: every method's table, within B and beyond it.

    Parameters
    ----------
    within, beyond : xarray.Dataset
        :func:`summarise` of the study at n <= B and at B < n <= 2B.
    truths, Bs, sizes
        The grid and sizes the study ran.

    Returns
    -------
    str
        The markdown.
    """
    text = ["# Intervals that hold: the tables", "",
            f"Every truth ({len(truths)}), B = {', '.join(map(str, Bs))}, U and V; M = "
            f"{sizes['samples']:,} searches and R = {sizes['resamples']:,} resamples a cell; "
            f"median widths over the first {sizes['width_samples']:,} searches; the oracle "
            f"interval from {sizes['oracle_samples']:,}. A cell is one truth and one n; "
            f"coverage of 95% intervals with Clopper-Pearson 95% bounds; 'surely' below "
            f"{GOAL_COVERAGE:g}: the upper bound is below it; 'with estimate' below it: the "
            f"coverage estimate is; misses: the share of intervals "
            f"entirely below / above theta_n, averaged over cells; widths: the median over "
            f"cells of each cell's median width relative to the reference's.", "",
            "## n <= B", "", table(within, "within"), "",
            "## B < n <= 2B (V; the methods that reach beyond the sample maximum)", "",
            table(beyond.sel(estimator=["V"]), "beyond"), ""]
    return "\n".join(text)


def _notes(report, ds, truths, Bs, sizes, goal_Bs, quick):
    """The notes of the summary: sizes, cells read from the checkpoint store, widths.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the notes.
    ds : xarray.Dataset
        The study's result.
    truths, Bs, sizes
        The grid and sizes the study ran.
    goal_Bs : list of int
        The budgets the goal is judged at.
    quick : bool
        Reduced sizes.
    """
    report.notes.append(
        f"Sizes: {len(truths)} truths, B = {', '.join(map(str, Bs))}; M = {sizes['samples']:,} "
        f"searches and R = {sizes['resamples']:,} resamples a cell; n on the leaderboard's log "
        f"grid up to 2B. The goal is judged at B = {' and '.join(map(str, goal_Bs))}."
        + (" Reduced sizes (--quick): the verdicts rest on a few searches." if quick else ""))
    computed, total = int(ds.attrs["cells_computed"]), ds.sizes["dist"] * ds.sizes["B"]
    if computed < total:
        report.notes.append(f"{total - computed} of {total} cells were read from the checkpoint "
                            f"store (${STORE_ENV}), computed by an earlier run: the run time "
                            f"above is this run's alone.")
    report.notes.append("Widths are medians over searches (the first ones of each cell, their "
                        "intervals rebuilt by bootstrap_intervals with resamples of its own), "
                        "so one huge interval does not move them; intervals.md has every "
                        "method's table, intervals.nc every number.")


def run(report, out, files, quick=False):
    """Run the study, write ``intervals.nc``, the tables and the figures; append claims.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` runs :data:`QUICK`'s
    grid at reduced sizes.
    """
    from ..report import plot_interval_study

    truths = QUICK["truths"] if quick else TRUTHS
    Bs = QUICK["Bs"] if quick else BS
    sizes = SIZES[quick]
    ds = _run_study(report, truths, Bs, sizes)
    within, beyond = summarise(ds, "within"), summarise(ds, "beyond")
    goal_Bs = Bs[-2:]
    best = _claims(report, within, goal_Bs, quick)
    report.sections.append((
        f"Every method at B = {' and '.join(map(str, goal_Bs))} (n <= B, U and V)",
        compact(within, _closeness(within, goal_Bs), goal_Bs) + "\n\nCells surely below "
        f"{GOAL_COVERAGE:g}: the Clopper-Pearson upper bound of the coverage is below it; with "
        f"estimate below {GOAL_COVERAGE:g}: the coverage estimate is (both the largest share "
        "over B and estimator). Widths: the largest, "
        "over B and estimator, of the median over cells of each cell's median width relative "
        "to the reference's. Misses: share of intervals entirely below / above theta_n, "
        "averaged over cells, B and estimators. Full tables (every B, and n beyond B): "
        "`intervals.md`."))
    report.step("writing files")
    write_netcdf(ds, out / "intervals.nc")
    (out / "intervals.md").write_text(_tables(within, beyond, truths, Bs, sizes))
    plot_interval_study(ds, out / "coverage.png", out / "width.png",
                        best=None if quick else best)
    report.files += ["intervals.nc", "intervals.md", "coverage.png", "width.png"]
    _notes(report, ds, truths, Bs, sizes, goal_Bs, quick)
