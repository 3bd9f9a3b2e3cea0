"""Intervals that hold: which confidence interval covers at every n, for both curves?

Tang et al. (2020) showed that percentile-bootstrap intervals of the EVP
curve cover far less than they claim as n approaches B, and the
distribution-free bands hold but are several times wider. Every resampled
estimate is at most the sample maximum, so near n = B an interval must
reach beyond it, using tail information. This study sets the candidates
of :mod:`evpsim.intervals` (:data:`~evpsim.studies.interval_study.CANDIDATES`:
the resampling kind's ``studentized``, ``smoothed``, ``gpd-tail`` and
``gpd-tail-lattice`` for the mean curve, the ``order-statistic`` kind for the
median curve) beside ``percentile``, ``basic``, ``bca`` and the
``ld-equal-tailed`` band, for the mean curve (U and V) and the median curve
(``quantile``), on every truth evpsim knows and the lattice versions of its
KDE truths (:func:`~evpsim.studies.interval_study.study_truths`), at B = 25,
50 and 100, n on a log grid up to 2B (beyond B for V), each cell (truth, B,
curve) a run of the sweep battery ``intervals``
(:func:`evpsim.studies.interval_study.cell`).

The goal (:func:`evpsim.studies.interval_study.goal`): for n <= B at B = 25,
50 and 100, on both curves and both groups of truths, no cell surely below
0.93 (the Clopper-Pearson upper bound below it) and every coverage estimate
at least 0.93; for V beyond B, every estimate at least 0.90; median width at
most 1.5 times the oracle interval's and twice the percentile interval's.
``summary.md`` sets every method's numbers side by side, says which method
meets it per curve, and where each falls short (a ``--quick`` run decides
nothing); ``intervals.md`` holds the full tables.

The cells run on the sweep engine, in this process, on local workers or on
a dask cluster, and are kept in a checkpoint store (``--store DIR``, or the
folder ``$EVPSIM_STUDY_STORE`` names) as they come in: a run with the same
grid resumes from them (:class:`evpsim.engine.sweeps.Store`).
"""

from __future__ import annotations

import os
import platform
from contextlib import contextmanager

import numpy as np

from .. import _validate as check
from ..io.results import write_netcdf
from ..studies.interval_study import (BASELINES, BEYOND, CANDIDATES, CURVES, ESTIMATORS,
                                      GOAL_BEYOND, GOAL_COVERAGE, GOAL_ORACLE,
                                      GOAL_ORACLE_BEYOND, TRUTH_GROUPS, goal, of_curve,
                                      study_truths, summarise, wide_cells,
                                      worst_cells)
from .summary import Claim

TITLE = "Intervals that hold: confidence intervals for the mean and median curves at every n"
BS = (25, 50, 100)
SEED = 2025
#: the sweep options of the full and quick runs. The full run's M = 500 searches a cell
#: (not 1,000) halves its cost, to about four hours on two cores for its 492 cells; a
#: cell surely below the goal still shows at a coverage of about 0.90
SIZES = {False: dict(samples=500, resamples=1000, width_samples=100, oracle_samples=20_000),
         True: dict(samples=40, resamples=100, width_samples=6, oracle_samples=1000)}
#: what the summary calls a run without --quick
FULL_SIZE = (f"full size (every truth evpsim knows, and the lattice versions of its KDE truths "
             f"where evpsim has lattice truths; B = 25, 50, 100, mean and median curves; M = "
             f"{SIZES[False]['samples']:,} searches a cell)")
#: the quick run's grid: a truth of each kind (a search with failed trials among them, and a
#: lattice one, when lattice truths are registered), two budgets
QUICK = dict(truths=("normal", "tang-small", "data:reuters-mlp",
                     "failed:0.1:data:reuters-mlp"), Bs=(12, 24),
             lattice="lattice:1/100:kde:reuters-lstm")
#: this study takes where its cells run and a checkpoint store (see :func:`run`)
SWEEPS = True
#: the environment variable naming a checkpoint folder of the study's cells
STORE_ENV = "EVPSIM_STUDY_STORE"
#: the names of the groups of truths in tables: after a count, and in a column of their own
GROUP_NAMES = {"base": "truths", "lattice": "lattice truths", "capped": "rare tied tops",
               "failed": "searches with failed trials"}
GROUP_COLUMN = {"base": "evpsim's", "lattice": "lattice", "capped": "rare tied top",
                "failed": "failed trials"}


def data_files():
    """No search files beyond the shipped ones."""
    return []


def quick_truths():
    """The quick run's truths: :data:`QUICK`'s, and its lattice truth when the prefix
    ``lattice`` is registered."""
    from ..truths.distributions import list_truths

    lattice = (QUICK["lattice"],) if "lattice:..." in list_truths() else ()
    return QUICK["truths"] + lattice


def study_grid(truths, Bs, sizes, seed=SEED, curves=CURVES):
    """The :class:`~evpsim.engine.sweeps.Grid` of the study: the ``intervals`` battery on every
    truth, B and curve."""
    from ..engine.sweeps import Grid

    options = {**sizes, "ci_methods": list(BASELINES + CANDIDATES)}
    return Grid.make("intervals", {"dist": list(truths), "B": list(Bs), "curve": list(curves)},
                     options, seed)


def study(truths, Bs, sizes, *, seed=SEED, curves=CURVES, progress=False, store=None,
          backend="process", workers=1, scheduler=None):
    """The study's cells, combined: :func:`evpsim.sweep` of :func:`study_grid`
    (checkpointed in ``store``, if given; ``backend``, ``workers`` and ``scheduler``
    as :func:`evpsim.sweep` takes them)."""
    from ..engine.sweeps import sweep

    return sweep(None, grid=study_grid(truths, Bs, sizes, seed, curves), progress=progress,
                 store=store, backend=backend, workers=workers, scheduler=scheduler)


@contextmanager
def _store_named(store, from_env):
    """Errors of the checkpoint store ``store`` name the environment variable
    :data:`STORE_ENV` when it came from there (``from_env``), not a store argument the
    user never saw."""
    try:
        yield
    except check.InvalidArgument as err:
        if store is None or not from_env or err.argument != "store":
            raise
        raise check.InvalidArgument(STORE_ENV, f"the environment variable {STORE_ENV}: "
                                               f"{err}") from None


def _percent(v):
    return "-" if not np.isfinite(v) else f"{100 * v:.1f}%"


def _ratio(v):
    return "-" if not np.isfinite(v) else f"{v:.2f}"


def table(summary):
    """A markdown table of :func:`~evpsim.studies.interval_study.summarise`'s numbers, a row
    per group of truths, curve, B, estimator and method that has cells."""
    head = ["truths", "curve", "B", "estimator", "CI method", "cells", "min coverage [95% CP]",
            "worst cell", f"cells surely < {GOAL_COVERAGE:g}",
            f"cells with estimate < {GOAL_COVERAGE:g}", "miss below", "miss above",
            "width / percentile", "width / LD", "width / oracle (median)",
            "width / oracle (widest cell)", "cells wider than the goal"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in summary["truths"].values:
        for curve in summary["curve"].values:
            for B in summary["B"].values:
                for e in summary["estimator"].values:
                    for m in summary["ci_method"].values:
                        s = summary.sel(truths=g, curve=curve, B=B, estimator=e, ci_method=m)
                        if int(s["cells"]) == 0:
                            continue
                        lines.append("| " + " | ".join(
                            [GROUP_COLUMN[str(g)], str(curve), str(B), str(e), str(m)]
                            + _row(s)) + " |")
    return "\n".join(lines)


def _row(s):
    """The numbers of one row of :func:`table`."""
    cov = (f"{float(s['min_coverage']):.3f} [{float(s['min_coverage_lower']):.3f}, "
           f"{float(s['min_coverage_upper']):.3f}]")
    return [str(int(s["cells"])), cov, f"{s['worst_dist'].item()}, n = {int(s['worst_n'])}",
            _percent(float(s["surely_below_goal"])), _percent(float(s["below_goal"])),
            _percent(float(s["miss_below"])), _percent(float(s["miss_above"])),
            _ratio(float(s["width_vs_percentile"])), _ratio(float(s["width_vs_ld"])),
            _ratio(float(s["width_vs_oracle"])), _widest_text(s),
            _percent(float(s["wide_cells"]))]


def _widest_text(s):
    """The widest cell of one summary row: its ratio to the oracle's, truth and n."""
    ratio = float(s["max_width_vs_oracle"])
    if not np.isfinite(ratio):
        return "-"
    return f"{ratio:.2f} ({s['widest_dist'].item()}, n = {int(s['widest_n'])})"


def _count(s, share):
    """Cells counted by ``share`` (a share of each row's cells), summed over rows."""
    return int(np.round(float((s[share] * s["cells"]).sum())))


def _coverage_text(s, share="below_goal"):
    """One column of the goal table: the lowest estimate over ``s`` with its bounds, and
    how many of its cells are surely below the goal and below it (``share``)."""
    cells = int(s["cells"].sum())
    if cells == 0:
        return "does not bound it"
    flat = s["min_coverage"].values.ravel()
    k = int(np.nanargmin(flat))
    at = np.unravel_index(k, s["min_coverage"].shape)
    pick = dict(zip(s["min_coverage"].dims, at))
    lo = float(s["min_coverage_lower"].isel(pick))
    hi = float(s["min_coverage_upper"].isel(pick))
    surely = "" if share != "below_goal" else f"{_count(s, 'surely_below_goal')} / "
    return f"{flat[k]:.3f} [{lo:.3f}, {hi:.3f}]; {surely}{_count(s, share)} of {cells}"


def _widths_text(within, method, var, Bs):
    """The largest median width ratio ``var`` of ``method`` on each curve it bounds (over B,
    estimator and group of truths), ``mean; median``."""
    out = []
    for curve in within["curve"].values:
        s = of_curve(within, str(curve), Bs).sel(ci_method=method)
        out.append(_ratio(float(s[var].max())) if int(s["cells"].sum()) else "-")
    return "; ".join(out)


def _widest_of(summary, method, curve, Bs, estimators=None):
    """The widest cell of ``method`` on ``curve`` over B, estimator and group: its ratio to
    the oracle's, truth, B and n, and how many cells are wider than the goal."""
    s = of_curve(summary, curve, Bs, estimators).sel(ci_method=method)
    if int(s["cells"].sum()) == 0:
        return "-"
    flat = s["max_width_vs_oracle"].values.ravel()
    if not np.isfinite(flat).any():
        return "-"
    k = int(np.nanargmax(flat))
    where = s.isel(dict(zip(s["max_width_vs_oracle"].dims,
                            np.unravel_index(k, s["max_width_vs_oracle"].shape))))
    return (f"{flat[k]:.2f} ({where['widest_dist'].item()}, B = {int(where['B'])}, n = "
            f"{int(where['widest_n'])}); {_count(s, 'wide_cells')} of {int(s['cells'].sum())} "
            f"wider")


def goal_table(within, beyond, Bs, quick, counts, curve):
    """The summary's table for one curve: a row per method that bounds it, the goal's
    criteria side by side.

    Parameters
    ----------
    within, beyond, Bs
        As :func:`~evpsim.studies.interval_study.goal` takes them.
    quick : bool
        Reduced sizes: the goal column says "inconclusive".
    counts : dict
        Truths run per group (``{"base": 37, "lattice": 45, ...}``).
    curve : str
        The curve.

    Returns
    -------
    str
        The markdown table.
    """
    checks = goal(within, beyond, Bs)
    groups = [str(g) for g in within["truths"].values]
    beyond_of = BEYOND[curve]
    head = (["CI method"] + [f"n <= B, {counts[g]} {GROUP_NAMES[g]}" for g in groups]
            + ([f"V, B < n <= 2B (goal >= {GOAL_BEYOND:g})"] if beyond_of else [])
            + [f"widest cell / oracle, n <= B (goal <= {GOAL_ORACLE:g})"]
            + ([f"widest cell / oracle, B < n <= 2B (goal <= {GOAL_ORACLE_BEYOND:g})"]
               if beyond_of else [])
            + ["width / oracle, median over cells", "width / percentile, median over cells",
               "goal"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in [str(m) for m in within["ci_method"].values]:
        if not bool(checks["bounds"].sel(ci_method=m, curve=curve)) and int(
                of_curve(within, curve, Bs).sel(ci_method=m)["cells"].sum()) == 0:
            continue
        row = [m] + [_coverage_text(of_curve(within, curve, Bs).sel(ci_method=m, truths=g))
                     for g in groups]
        if beyond_of:
            row.append(_coverage_text(of_curve(beyond, curve, Bs, beyond_of).sel(ci_method=m),
                                      "below_beyond_goal"))
        row.append(_widest_of(within, m, curve, Bs))
        if beyond_of:
            row.append(_widest_of(beyond, m, curve, Bs, beyond_of))
        s = of_curve(within, curve, Bs).sel(ci_method=m)
        row += [_ratio(float(s["width_vs_oracle"].max())),
                _ratio(float(s["width_vs_percentile"].max())),
                _goal_word(checks.sel(ci_method=m, curve=curve), quick)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


#: the goal's criteria, as the goal table names those that fail
CRITERIA = {"bounds": "does not bound it everywhere",
            "none_surely_below": f"cells surely < {GOAL_COVERAGE:g}",
            "covers": f"estimates < {GOAL_COVERAGE:g}",
            "covers_beyond": f"V beyond B < {GOAL_BEYOND:g}",
            "oracle_width": f"cells wider than {GOAL_ORACLE:g}x oracle (n <= B) or "
                            f"{GOAL_ORACLE_BEYOND:g}x (beyond)"}


def _failed(checks):
    """The names of the criteria ``checks`` (one method and curve of :func:`goal`) fails."""
    return [text for var, text in CRITERIA.items() if not bool(checks[var])]


def _goal_word(checks, quick):
    """``met``, ``not met (what fails)`` or, at ``quick`` sizes, ``inconclusive``."""
    if not bool(checks["bounds"]):
        return "-"
    if quick:
        return "inconclusive (--quick)"
    failed = _failed(checks)
    return "met" if not failed else "not met: " + ", ".join(failed)


def _closeness(within, beyond, Bs):
    """Per curve and method that bounds it, over the goal's B, its estimators and every
    group of truths: the lowest coverage, its bounds and cell, the cells surely below
    the goal and below it, V's lowest beyond B, the width ratios (the largest median
    over cells, and the widest cell's).

    Returns
    -------
    dict
        ``{curve: {method: dict}}``.
    """
    out = {}
    for curve in [str(c) for c in within["curve"].values]:
        s = of_curve(within, curve, Bs)
        out[curve] = {}
        for m in [str(m) for m in s["ci_method"].values]:
            sm = s.sel(ci_method=m)
            if int(sm["cells"].sum()) == 0:
                continue
            flat = sm["min_coverage"].values.ravel()
            k = int(np.nanargmin(flat))
            where = sm.isel(dict(zip(sm["min_coverage"].dims,
                                     np.unravel_index(k, sm["min_coverage"].shape))))
            c = dict(min_coverage=float(flat[k]), lower=float(where["min_coverage_lower"]),
                     upper=float(where["min_coverage_upper"]), B=int(where["B"]),
                     estimator=str(where["estimator"].item()),
                     dist=str(where["worst_dist"].item()), n=int(where["worst_n"]),
                     cells=int(sm["cells"].sum()), surely=_count(sm, "surely_below_goal"),
                     below=_count(sm, "below_goal"), wide=_count(sm, "wide_cells"),
                     width=float(sm["width_vs_percentile"].max()),
                     oracle=float(sm["width_vs_oracle"].max()),
                     widest=float(sm["max_width_vs_oracle"].max()), beyond=np.nan)
            if BEYOND[curve]:
                b = of_curve(beyond, curve, Bs, BEYOND[curve]).sel(ci_method=m)
                c["beyond"] = float(b["min_coverage"].min())
            out[curve][m] = c
    return out


def _describe(m, c):
    """How close method ``m`` came (``c``: its :func:`_closeness` entry), in words."""
    beyond = "" if not np.isfinite(c["beyond"]) else f"; V beyond B lowest {c['beyond']:.3f}"
    return (f"{m}: lowest {c['min_coverage']:.3f} [{c['lower']:.3f}, {c['upper']:.3f}] "
            f"({c['estimator']}, {c['dist']}, B = {c['B']}, n = {c['n']}), surely below "
            f"{GOAL_COVERAGE:g} in {c['surely']} of {c['cells']} cells, estimate below it in "
            f"{c['below']}{beyond}; median width up to {c['oracle']:.2f}x oracle "
            f"({c['width']:.2f}x percentile), its widest cell {c['widest']:.2f}x oracle, "
            f"{c['wide']} cells wider than {GOAL_ORACLE:g}x")


def best_tradeoff(close):
    """Among the candidates of one curve (``close``: :func:`_closeness` of it), the one
    nearest the goal: the fewest cells that fail it (n <= B; surely below
    :data:`GOAL_COVERAGE`, plus wider than :data:`GOAL_ORACLE` times the oracle's), then
    the highest lowest coverage."""
    cands = {m: c for m, c in close.items() if m in CANDIDATES}
    return min(cands, key=lambda m: (cands[m]["surely"] + cands[m]["wide"],
                                     -cands[m]["min_coverage"]))


def _goal_text(Bs, curve):
    """The goal for ``curve``, in words."""
    beyond = (f"; every estimate >= {GOAL_BEYOND:g} for {', '.join(BEYOND[curve])} beyond B "
              f"up to 2B" if BEYOND[curve] else "")
    return (f"for n <= B at B = {', '.join(map(str, Bs))}, {', '.join(ESTIMATORS[curve])}, "
            f"every truth run: no cell surely below {GOAL_COVERAGE:g} and every "
            f"coverage estimate >= {GOAL_COVERAGE:g}{beyond}; in every cell a median width "
            f"<= {GOAL_ORACLE:g}x the oracle interval's for n <= B"
            + (f", <= {GOAL_ORACLE_BEYOND:g}x beyond" if BEYOND[curve] else ""))


def _claims(report, within, beyond, Bs, quick=False):
    """Per curve, the goal's and the best trade-off's claims; a ``quick`` run's verdicts
    are inconclusive and its numbers only "at these sizes".

    Returns
    -------
    dict
        ``{curve: the best trade-off}``.
    """
    met = goal(within, beyond, Bs)["met"]
    close = _closeness(within, beyond, Bs)
    sizes = "at these sizes, which decide nothing: " if quick else ""
    best = {}
    for curve, methods in close.items():
        winners = [m for m in methods if bool(met.sel(ci_method=m, curve=curve))]
        detail = "; ".join(_describe(m, c) for m, c in methods.items())
        report.claims.append(Claim(
            f"A CI method reaches the goal for the {curve} curve: {_goal_text(Bs, curve)}",
            "before the study: none known (percentile fails near n = B; bands are too wide)",
            sizes + (("reached by " + ", ".join(winners)) if winners
                     else f"no method reaches it. {detail}"),
            "inconclusive" if quick else ("agrees" if winners else "differs"),
            "the lowest coverage is over every truth run, n <= B and the curve's estimators; "
            "surely below: the Clopper-Pearson upper bound is below it; widths: each cell's "
            "median width relative to the oracle interval's, the widest cell and the largest "
            "median over cells (over B, estimator and group of truths); the goal tables and "
            "'Where the goal fails' below give every method's numbers"))
        if not any(m in CANDIDATES for m in methods):
            continue
        best[curve] = best_tradeoff(methods)
        report.claims.append(Claim(
            f"The best trade-off among the candidates for the {curve} curve",
            "the study's question: name it with numbers if none reaches the goal",
            sizes + _describe(best[curve], methods[best[curve]]),
            "inconclusive" if quick else ("agrees" if best[curve] in winners else "partly"),
            f"among the candidates, the fewest cells that fail the goal at n <= B (surely "
            f"below {GOAL_COVERAGE:g}, plus wider than {GOAL_ORACLE:g}x the oracle interval's), "
            f"then the highest lowest coverage"))
    return best


def failures(ds, within, beyond, Bs, methods, count):
    """Markdown: per method of ``methods`` and curve it bounds, the criteria it fails,
    where it is wider than the width goal (by span of n) and its ``count`` worst cells,
    each with why (where its intervals miss theta).

    Parameters
    ----------
    ds : xarray.Dataset
        The study's cells combined.
    within, beyond : xarray.Dataset
        :func:`summarise` of ``ds`` at n <= B and beyond B.
    Bs : sequence of int
        The budgets the goal is judged at.
    methods : sequence of str
        The methods listed.
    count : int
        Cells listed per method and curve.

    Returns
    -------
    str
    """
    checks = goal(within, beyond, Bs)
    lines = []
    for m in methods:
        for curve in [str(c) for c in ds["curve"].values]:
            chk = checks.sel(ci_method=m, curve=curve)
            if not bool(chk["bounds"]):
                continue
            failed = _failed(chk)
            lines.append(f"- **{m}, {curve} curve**: "
                         + ("meets every criterion" if not failed else
                            "fails: " + ", ".join(failed)) + ".")
            if not bool(chk["oracle_width"]):
                lines.append("  - wider than the goal allows, by n (cells wider / cells, the "
                             "median width over the oracle interval's): " + "; ".join(
                                 f"{w['span']}: {w['wide']} / {w['cells']}, {w['median']:.2f}x"
                                 for w in wide_cells(ds, m, curve, Bs)))
            for w in worst_cells(ds, m, curve, Bs, count):
                why = ("mostly too low: the interval ends below the true value"
                       if w["miss_below"] > w["miss_above"] else
                       "mostly too high: the interval starts above the true value")
                lines.append(f"  - {w['dist']}, B = {w['B']}, n = {w['n']} ({w['estimator']}): "
                             f"coverage {w['coverage']:.3f} [{w['lower']:.3f}, "
                             f"{w['upper']:.3f}] (goal {w['goal']:g}); misses below "
                             f"{_percent(w['miss_below'])}, above {_percent(w['miss_above'])}: "
                             f"{why}")
    return "\n".join(lines)


def _run_study(report, truths, Bs, sizes, where):
    """The study's Dataset, its cells kept in the checkpoint store ``where["store"]``, else
    the one ``$EVPSIM_STUDY_STORE`` (:data:`STORE_ENV`) names, if any.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Told the step, and whether to show progress.
    truths, Bs, sizes
        The grid and sizes (:func:`study_truths`, :data:`BS`, :data:`SIZES`, or the quick
        run's).
    where : dict
        ``backend``, ``workers``, ``scheduler`` and ``store`` (None: the environment's).

    Returns
    -------
    xarray.Dataset
        As :func:`study` returns it.
    """
    from ..engine.sweeps import Store

    store, from_env = where.get("store"), False
    if store is None:
        store, from_env = os.environ.get(STORE_ENV) or None, True
    with _store_named(store, from_env):
        grid = study_grid(truths, Bs, sizes)
        if store is not None:  # checked before the first progress line
            Store(store, grid)
    report.step(f"{len(truths)} truths x B = {', '.join(map(str, Bs))} x {len(CURVES)} "
                f"curves: every method's coverage, widths and the oracle's")
    with _store_named(store, from_env):
        return study(truths, Bs, sizes, progress=report.verbose, store=store,
                     backend=where.get("backend", "process"), workers=where.get("workers", 1),
                     scheduler=where.get("scheduler"))


def _tables(ds, within, beyond, Bs, sizes):
    """The text of ``intervals.md``: every method's table, within B and beyond it, and
    where each falls short.

    Parameters
    ----------
    ds : xarray.Dataset
        The study's cells combined.
    within, beyond : xarray.Dataset
        :func:`summarise` of the study at n <= B and at B < n <= 2B.
    Bs : sequence of int
        The budgets the goal is judged at.
    sizes : dict
        The sizes the study ran.

    Returns
    -------
    str
        The markdown.
    """
    text = ["# Intervals that hold: the tables", "",
            f"Every truth ({ds.sizes['dist']}), B = {', '.join(map(str, ds['B'].values))}, the "
            f"mean curve (U and V) and the median curve (quantile); M = {sizes['samples']:,} "
            f"searches and R = {sizes['resamples']:,} resamples a cell; median widths over "
            f"the first {sizes['width_samples']:,} searches; the oracle interval from "
            f"{sizes['oracle_samples']:,}. A cell is one truth and one n; coverage of 95% "
            f"intervals with Clopper-Pearson 95% bounds; 'surely' below {GOAL_COVERAGE:g}: the "
            f"upper bound is below it; 'with estimate' below it: the coverage estimate is; "
            f"misses: the share of intervals entirely below / above the true value, averaged "
            f"over cells; widths: the median over cells of each cell's median width relative "
            f"to the reference's.", "",
            "## n <= B", "", table(within), "",
            "## B < n <= 2B (V; the methods that reach beyond the sample maximum)", "",
            table(beyond.sel(estimator=["V"])), "",
            f"## Where the goal fails (B = {', '.join(map(str, Bs))})", "",
            failures(ds, within, beyond, Bs, [str(m) for m in ds["ci_method"].values], 5), ""]
    return "\n".join(text)


def machine():
    """Where this process runs: the CPU model and its logical cores, read now."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{model or platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def _where_text(ds, where):
    """Where the cells ran, in words (this run's, as :func:`evpsim.sweep` reports it)."""
    backend = ds.attrs.get("backend", "process")
    if int(ds.attrs["cells_computed"]) == 0:
        return "all read from the checkpoint store"
    if backend == "dask":
        return (f"on the dask cluster at {where['scheduler']}" if where.get("scheduler")
                else f"on a local dask cluster of {int(ds.attrs['workers'])} workers")
    if backend == "local":
        return f"on {int(ds.attrs['workers'])} local worker processes"
    return "in this process"


def _by_chance(within, Bs, samples):
    """What an exact interval would show: how many cells of each curve would have a
    coverage estimate below the goal by chance alone, at ``samples`` searches a cell."""
    from scipy.stats import binom

    chance = float(binom.cdf(np.ceil(GOAL_COVERAGE * samples) - 1, samples, 0.95))
    counts = []
    for curve in [str(c) for c in within["curve"].values]:
        cells = int(of_curve(within, curve, Bs)["cells"].sum(("truths", "B", "estimator")).max())
        counts.append(f"about {chance * cells:.1f} of the {cells:,} cells of the {curve} curve")
    return (f"An interval covering exactly 0.95 in every cell has a coverage estimate below "
            f"{GOAL_COVERAGE:g} in a cell with probability {100 * chance:.2f}% at M = "
            f"{samples:,} searches: {' and '.join(counts)} by chance alone, so estimates "
            f"below {GOAL_COVERAGE:g} in that many cells are what an exact interval shows "
            f"too; the cells surely below it are not.")


def _notes(report, ds, sizes, goal_Bs, quick, where):
    """The notes of the summary: sizes, where the run ran, cells read from the store, widths.

    Parameters
    ----------
    report : evpsim.reproduce.summary.Report
        Receives the notes.
    ds : xarray.Dataset
        The study's result.
    sizes : dict
        The sizes the study ran.
    goal_Bs : list of int
        The budgets the goal is judged at.
    quick : bool
        Reduced sizes.
    where : dict
        Where the cells ran (as :func:`run` takes it).
    """
    report.notes.append(
        f"Sizes: {ds.sizes['dist']} truths, B = {', '.join(map(str, ds['B'].values))}, the mean "
        f"and median curves; M = {sizes['samples']:,} searches and R = {sizes['resamples']:,} "
        f"resamples a cell; n on the leaderboard's log grid up to 2B. The goal is judged at "
        f"B = {', '.join(map(str, goal_Bs))}."
        + (" Reduced sizes (--quick): the verdicts rest on a few searches." if quick else ""))
    report.notes.append(f"Ran on {machine()}; the cells {_where_text(ds, where)}; the run time "
                        f"above is the wall time of the whole run.")
    computed, total = int(ds.attrs["cells_computed"]), int(np.prod(
        [ds.sizes[a] for a in ("dist", "B", "curve")]))
    if computed < total:
        report.notes.append(f"{total - computed} of {total} cells were read from the checkpoint "
                            f"store, computed by an earlier run: the run time above is this "
                            f"run's alone.")
    report.notes.append("Widths are medians over searches (the first ones of each cell, their "
                        "intervals rebuilt by bootstrap_intervals with resamples of its own), "
                        "so one huge interval does not move them; intervals.md has every "
                        "method's table, intervals.nc every number.")


def run(report, out, files, quick=False, where=None):
    """Run the study, write ``intervals.nc``, the tables and the figures; append claims.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` runs :data:`QUICK`'s
    grid at reduced sizes; ``where`` (:data:`SWEEPS`) says where the cells run
    and where they are kept: ``backend``, ``workers``, ``scheduler`` as
    :func:`evpsim.sweep` takes them, and ``store`` (default the folder
    ``$EVPSIM_STUDY_STORE`` names, else none).
    """
    from ..report import plot_interval_study
    from ..studies.interval_study import truth_group

    where = where or {}
    truths = quick_truths() if quick else study_truths()
    Bs = QUICK["Bs"] if quick else BS
    sizes = SIZES[quick]
    ds = _run_study(report, truths, Bs, sizes, where)
    within, beyond = summarise(ds, "within"), summarise(ds, "beyond")
    goal_Bs = list(Bs)
    counts = {g: sum(truth_group(t) == g for t in truths) for g in TRUTH_GROUPS}
    best = _claims(report, within, beyond, goal_Bs, quick)
    legend = ("Each coverage column: the lowest coverage estimate over its cells (truth, n; "
              "every B judged and every estimator of the curve) with its Clopper-Pearson 95% "
              f"bounds; then cells surely below {GOAL_COVERAGE:g} (upper bound below it) / "
              f"cells with estimate below it, of the cells (beyond B: cells with estimate "
              f"below {GOAL_BEYOND:g}). Widths: each cell's median width relative to the "
              f"oracle interval's (the estimator's true sampling law): the widest cell, with "
              f"how many cells are wider than the goal allows; and the largest, over B, "
              f"estimator and group of truths, of the median over cells, beside the percentile "
              f"interval's (not a goal: percentile collapses near n = B). Full tables (every "
              f"B, and n beyond B): `intervals.md`. " + _by_chance(within, goal_Bs,
                                                                  sizes["samples"]))
    for curve in CURVES:
        report.sections.append((
            f"The {curve} curve: every method side by side, the goal at B = "
            f"{', '.join(map(str, goal_Bs))}",
            goal_table(within, beyond, goal_Bs, quick, counts, curve) + "\n\n" + legend))
    report.sections.append((
        "Where the goal fails" + (" (at these sizes, which decide nothing)" if quick else ""),
        "The criteria each candidate fails; where it fails the width goal, its cells wider "
        "than the goal allows by span of n; and its three worst cells (lowest coverage "
        "relative to its goal), with the share of intervals entirely below / above the true "
        "value (why it misses):\n\n"
        + failures(ds, within, beyond, goal_Bs, list(CANDIDATES), 3)))
    report.step("writing files")
    write_netcdf(ds, out / "intervals.nc")
    (out / "intervals.md").write_text(_tables(ds, within, beyond, goal_Bs, sizes))
    for curve in CURVES:
        plot_interval_study(ds.sel(curve=curve), out / f"coverage_{curve}.png",
                            out / f"width_{curve}.png", best=None if quick else best.get(curve))
        report.files += [f"coverage_{curve}.png", f"width_{curve}.png"]
    report.files[:0] = ["intervals.nc", "intervals.md"]
    _notes(report, ds, sizes, goal_Bs, quick, where)
