"""Intervals across runs: which one holds for the curves of an adaptive search, from few seeds?

The curve of an adaptive search (TPE, Bayesian optimisation, Hyperband) is
estimated from k runs with different seeds, the mean or the median over runs
of each run's best score among its first n trials. This study measures
every interval across runs of :mod:`evpsim.intervals.runs` (Student-t,
bootstrap-t, percentile, expanded percentile and BCa for the mean curve;
order-statistic, its interpolation and percentile for the median curve) at
k = 5, 10 and 20 runs, on runs of random search from every truth evpsim
knows (and the lattice versions of its KDE truths), whose exact curves are
known, and on runs of a local search over a pool of configurations scored
by each truth, whose curves come from two million simulated seeds: each
truth a cell of the sweep battery ``runs``
(:func:`evpsim.studies.runs_battery.cell`).

The goal (:func:`evpsim.studies.runs_battery.goal`): for both searches, every
truth and every n of the cell's log grid, at k = 5, 10 and 20, no cell whose
coverage is surely below 0.93 (its Clopper-Pearson upper bound, simultaneous
over the method's cells, below it), and a width at each truth's worst n of
at most 1.5 times the oracle interval's (the median over truths).
``summary.md`` sets the methods side by side, names each curve's default
(:func:`evpsim.studies.runs_battery.choose`) and says where each method falls
short; ``runs.md`` holds every group's table, ``runs.nc`` every number.
"""

from __future__ import annotations

import numpy as np

from ..io.results import write_netcdf
from ..studies.runs_battery import (GOAL_COVERAGE, GOAL_ORACLE, KS, SEARCHES, choose, goal,
                                    summarise)
from .summary import Claim

TITLE = "Intervals across runs: the curves of adaptive searches from 5, 10 or 20 seeds"
SEED = 2026
#: the length of the runs (the largest budget of the cells)
B = {False: 50, True: 12}
#: the battery's options of the full and quick runs
SIZES = {False: dict(replicates=2000, resamples=1000, oracle_samples=20_000,
                     truth_samples=2**21, check_samples=2**18),
         True: dict(replicates=40, resamples=100, oracle_samples=1000, truth_samples=2**14,
                    check_samples=2**12)}
#: what the summary calls a run without --quick
FULL_SIZE = (f"full size (every truth evpsim knows and the lattice versions of its KDE truths; "
             f"runs of B = {B[False]} trials of random search and of a local search; k = 5, "
             f"10, 20 runs; {SIZES[False]['replicates']:,} sets of runs a cell)")
#: the quick run's truths
QUICK = ("normal", "data:reuters-mlp")
#: this study takes where its cells run and a checkpoint store
SWEEPS = True
#: the curves' words in the tables
CURVE_WORDS = {"mean": "mean curve", "median": "median curve"}


def data_files():
    """No search files beyond the shipped ones."""
    return []


def study_grid(truths, B, sizes, seed=SEED):
    """The :class:`~evpsim.engine.sweeps.Grid` of the study: the ``runs`` battery on every
    truth, runs of B trials."""
    from ..engine.sweeps import Grid

    return Grid.make("runs", {"dist": list(truths), "B": [B]}, {**sizes, "ks": list(KS)},
                     seed)


def _cov(s):
    """The lowest coverage of ``s`` (one method, curve and k of :func:`summarise`, over
    groups and searches) with its bounds and cell."""
    flat = s["min_coverage"].values.ravel()
    i = int(np.nanargmin(flat))
    at = s.isel(dict(zip(s["min_coverage"].dims,
                         np.unravel_index(i, s["min_coverage"].shape))))
    return (f"{flat[i]:.3f} [{float(at['min_coverage_lower']):.3f}, "
            f"{float(at['min_coverage_upper']):.3f}] ({at['worst_dist'].item()}, "
            f"{at['search'].item()}, n = {int(at['worst_n'])})")


def _cells(s):
    """``surely below / estimate below of cells`` summed over groups and searches."""
    return (f"{int(s['surely_below'].sum())} / {int(s['below_goal'].sum())} of "
            f"{int(s['cells'].sum())}")


def goal_table(summary, quick):
    """The summary's table: a row per curve and method that bounds it, per k its lowest
    coverage, its cells below the goal and its width at the worst n, then the goal."""
    checks = goal(summary)
    head = (["curve", "CI method"]
            + [f"k = {k}: lowest coverage [95% CP] (truth, search, n)" for k in KS]
            + ["cells surely < / with estimate < " + f"{GOAL_COVERAGE:g} (k = "
               + ", ".join(map(str, KS)) + ")",
               "truths where it holds (k = " + ", ".join(map(str, KS)) + ")",
               "width / oracle at the worst n (k = " + ", ".join(map(str, KS)) + ")", "goal"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for curve in [str(c) for c in summary["curve"].values]:
        for m in [str(m) for m in summary["ci_method"].values]:
            chk = checks.sel(ci_method=m, curve=curve)
            if not bool(chk["bounds"]):
                continue
            s = summary.sel(curve=curve, ci_method=m)
            row = [curve, m] + [_cov(s.sel(k=k)) for k in KS]
            row.append("; ".join(_cells(s.sel(k=k)) for k in KS))
            row.append("; ".join(_held(s.sel(k=k)) for k in KS))
            row.append("; ".join(f"{float(s['width_worst_n'].sel(k=k).max()):.2f}" for k in KS))
            row.append(_verdict(chk, quick))
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _held(s):
    """Per search, the truths none of whose cells is surely below the goal, of the truths
    run (summed over groups)."""
    held, run = s["truths_held"].sum("truths"), s["truths_run"].sum("truths")
    return ", ".join(f"{x} {int(held.sel(search=x))}/{int(run.sel(search=x))}"
                     for x in SEARCHES)


def _verdict(chk, quick):
    """``met`` or ``not met: ...`` (``inconclusive`` at quick sizes)."""
    if quick:
        return "inconclusive (--quick)"
    failed = [text for var, text in (("none_surely_below", f"cells surely < {GOAL_COVERAGE:g}"),
                                     ("oracle_width", f"width > {GOAL_ORACLE:g}x oracle"))
              if not bool(chk[var])]
    return "met" if not failed else "not met: " + ", ".join(failed)


def full_table(summary):
    """Markdown: every group of truths, search, curve, method and k."""
    head = ["truths", "search", "curve", "CI method", "k", "cells", "lowest coverage [95% CP]",
            "worst cell", "surely < goal", "estimate < goal", "miss below", "miss above",
            "undefined (most)", "unbounded (most)", "width / oracle: median", "at worst n",
            "largest"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for idx in np.ndindex(*[summary.sizes[d] for d in ("truths", "search", "curve",
                                                        "ci_method", "k")]):
        s = summary.isel(dict(zip(("truths", "search", "curve", "ci_method", "k"), idx)))
        if int(s["cells"]) == 0:
            continue
        lines.append("| " + " | ".join([
            str(s[d].item()) for d in ("truths", "search", "curve", "ci_method", "k")] + [
            str(int(s["cells"])),
            f"{float(s['min_coverage']):.3f} [{float(s['min_coverage_lower']):.3f}, "
            f"{float(s['min_coverage_upper']):.3f}]",
            f"{s['worst_dist'].item()}, n = {int(s['worst_n'])}",
            str(int(s["surely_below"])), str(int(s["below_goal"])),
            f"{100 * float(s['miss_below']):.1f}%", f"{100 * float(s['miss_above']):.1f}%",
            f"{100 * float(s['undefined']):.1f}%", f"{100 * float(s['unbounded']):.1f}%",
            f"{float(s['width_median']):.2f}", f"{float(s['width_worst_n']):.2f}",
            f"{float(s['width_worst']):.2f}"]) + " |")
    return "\n".join(lines)


def worst_cells(ds, method, curve, count):
    """The ``count`` lowest coverage estimates of ``method`` on ``curve``, each with its
    bounds, misses below and above: markdown lines."""
    sub = ds.sel(curve=curve, ci_method=method)
    table = sub[["coverage", "coverage_lower", "coverage_upper", "miss_below", "miss_above"]]
    table = table.reset_coords(drop=True).to_dataframe().dropna(subset=["coverage"])
    table = table.reset_index().sort_values(["coverage", "dist", "search", "k", "n"],
                                            kind="stable").head(count)
    lines = []
    for r in table.itertuples():
        why = ("too low: the interval ends below the true value" if r.miss_below > r.miss_above
               else "too high: the interval starts above the true value")
        lines.append(f"  - {r.dist}, {r.search} search, k = {r.k}, n = {r.n}: coverage "
                     f"{r.coverage:.3f} [{r.coverage_lower:.3f}, {r.coverage_upper:.3f}]; "
                     f"misses below {100 * r.miss_below:.1f}%, above "
                     f"{100 * r.miss_above:.1f}%: mostly {why}")
    return lines


def _median_check(ds):
    """Random search's Monte Carlo median curve against the exact ``tau_0.5(n)``.

    On a continuous truth the largest ``|z|`` with the Monte Carlo standard
    error. On a discrete truth the medians are support points: where the
    Monte Carlo's is another point than the exact one, the exact CDF of the
    best of n at the point between them, ``F(x)**n``, must lie near 1/2
    (within a few of the Monte Carlo CDF's standard errors, ``0.5 / sqrt(M)``):
    the largest such distance in those units.

    Returns
    -------
    (float, float, int, int)
        The continuous truths' largest ``|z|``, the discrete truths' largest
        distance, the cells where the points differ, and the discrete cells.
    """
    from ..truths.distributions import make_truth

    rnd = ds.sel(search="random", curve="median")
    se_cdf = 0.5 / np.sqrt(float(ds.attrs["option_check_samples"]))
    z_cont, far, differ, cells = 0.0, 0.0, 0, 0
    for dist in ds["dist"].values:
        truth = make_truth(str(dist))
        mc = rnd["truth_mc"].sel(dist=dist).values.ravel()
        exact = rnd["truth_value"].sel(dist=dist).values.ravel()
        ns = np.broadcast_to(rnd["n"].values, rnd["truth_mc"].sel(dist=dist).shape).ravel()
        support = getattr(truth, "support", None)
        if support is None:
            se = rnd["truth_mc_se"].sel(dist=dist).values.ravel()
            z_cont = max(z_cont, float(np.nanmax(np.abs(mc - exact) / se)))
            continue
        cdf = np.cumsum(truth.pmf)
        cells += int(np.isfinite(mc).sum())
        for m, e, n in zip(mc, exact, ns):
            # the support points nearest to them (the Monte Carlo's lies within a bin of its
            # histogram of its point)
            i, j = sorted(int(np.argmin(np.abs(support - v))) for v in (m, e))
            if i == j:
                continue
            differ += 1
            far = max(far, abs(cdf[i] ** n - 0.5) / se_cdf)  # the CDF at the lower point
    return z_cont, far, differ, cells


def checks_text(ds):
    """The Monte Carlo's checks, in words, and whether they pass.

    Returns
    -------
    (str, bool)
    """
    rnd, local = ds.sel(search="random"), ds.sel(search="local")
    mean = rnd.sel(curve="mean")
    z_truth = np.abs((mean["truth_mc"] - mean["truth_value"]) / mean["truth_mc_se"])
    with np.errstate(invalid="ignore", divide="ignore"):
        z_err = np.abs(mean["error_mean"] / mean["error_mean_se"])
    z_cont, far, differ, cells = _median_check(ds)
    rel = (local["truth_se"] / local["oracle_width"].min("k")).max()
    ok = max(float(z_truth.max()), float(z_err.max()), z_cont, far) < 5
    text = (f"random search, the mean curve: the Monte Carlo curve of "
            f"{int(ds.attrs['option_check_samples']):,} runs against the exact theta_n, largest "
            f"|z| {float(z_truth.max()):.2f} over {int(z_truth.notnull().sum())} cells; the mean "
            f"of k runs against theta_n, largest |z| {float(z_err.max()):.2f} over "
            f"{int(z_err.notnull().sum())}; the median curve against tau_0.5(n): largest |z| "
            f"{z_cont:.2f} on the continuous truths; on the discrete ones the same support "
            f"point in {cells - differ} of {cells} cells, and where not, the exact CDF of the "
            f"best of n lies {far:.2f} standard errors from 1/2 at most; the local search's "
            f"true curves: largest standard error {100 * float(rel):.3f}% of the oracle "
            f"interval's width at its cell")
    return text, ok


def _goal_words(curve):
    return (f"for the {CURVE_WORDS[curve]}, at k = {', '.join(map(str, KS))} runs, both searches "
            f"({', '.join(SEARCHES)}), every truth and n: no cell surely below "
            f"{GOAL_COVERAGE:g} (simultaneous Clopper-Pearson bounds) and width at each truth's "
            f"worst n <= {GOAL_ORACLE:g}x the oracle interval's (median over truths)")


def _claims(report, ds, summary, quick):
    """The goal per curve, the default chosen, and the Monte Carlo's checks."""
    checks = goal(summary)
    chosen = choose(summary)
    sizes = "at these sizes, which decide nothing: " if quick else ""
    for curve in [str(c) for c in summary["curve"].values]:
        s = summary.sel(curve=curve)
        names = [str(m) for m in s["ci_method"].values
                 if bool(checks["bounds"].sel(ci_method=m, curve=curve))]
        met = [m for m in names if bool(checks["met"].sel(ci_method=m, curve=curve))]
        report.claims.append(Claim(
            f"An interval across runs reaches the goal {_goal_words(curve)}",
            "the goal set before the study; HPO benchmarks report the mean incumbent curve "
            "with its standard error (Student-t), rliable a stratified percentile bootstrap",
            sizes + ("reached by " + ", ".join(met) if met else "no method reaches it")
            + "; lowest coverage at k = 5: " + "; ".join(
                f"{m} {_cov(s.sel(ci_method=m, k=KS[0]))}" for m in names),
            "inconclusive" if quick else ("agrees" if met else "differs"),
            "the goal table below gives every method's numbers at every k"))
        best, why = chosen[curve]
        c = s.sel(ci_method=best)
        report.claims.append(Claim(
            f"The default interval for the {CURVE_WORDS[curve]}",
            "chosen from the table",
            sizes + f"{best}: " + "; ".join(
                f"k = {k}: lowest {_cov(c.sel(k=k))}, width at the worst n "
                f"{float(c['width_worst_n'].sel(k=k).max()):.2f}x the oracle's" for k in KS),
            "inconclusive" if quick else ("agrees" if best in met else "partly"), why))
    text, ok = checks_text(ds)
    report.claims.append(Claim(
        "The battery's Monte Carlo matches the exact curves of random search, and the local "
        "search's curves are known far more precisely than the coverage needs",
        "exact theta_n and tau_0.5(n) of every truth", text,
        "agrees" if ok else "differs", "|z| below 5 counts as agreement"))
    return chosen


def run(report, out, files, quick=False, where=None):
    """Run the study, write ``runs.nc`` and ``runs.md``; append claims and tables.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` runs :data:`QUICK`'s
    truths at reduced sizes; ``where`` (:data:`SWEEPS`) says where the cells
    run (``backend``, ``workers``, ``scheduler``) and the checkpoint folder
    ``store``.
    """
    from ..engine.sweeps import sweep
    from ..studies.interval_study import study_truths

    where = where or {}
    truths = QUICK if quick else study_truths()
    sizes = SIZES[quick]
    report.step(f"{len(truths)} truths, runs of B = {B[quick]}: every interval across runs")
    ds = sweep(None, grid=study_grid(truths, B[quick], sizes), progress=report.verbose,
               store=where.get("store"), backend=where.get("backend", "process"),
               workers=where.get("workers", 1), scheduler=where.get("scheduler"))
    summary = summarise(ds)
    chosen = _claims(report, ds, summary, quick)
    report.sections.append((
        "Every method side by side", goal_table(summary, quick) + "\n\nEach coverage: the "
        "lowest estimate over both searches, every truth and every n, with its Clopper-Pearson "
        f"95% bounds; cells surely below {GOAL_COVERAGE:g}: those whose upper bound, "
        "simultaneous over the method's cells (Bonferroni), is below it; width: the median "
        "over truths of the median width relative to the oracle interval's at each truth's "
        "worst n, the largest over searches and groups of truths. Full tables: `runs.md`."))
    lines = []
    for curve, (best, _) in chosen.items():
        names = [str(m) for m in summary["ci_method"].values
                 if bool(goal(summary)["bounds"].sel(ci_method=m, curve=curve))]
        for m in names:
            lines.append(f"- **{m}, {CURVE_WORDS[curve]}**" + (" (the default)" if m == best
                                                                else "") + ":")
            lines += worst_cells(ds, m, curve, 3)
    report.sections.append(("The lowest cells", "Each method's three lowest coverage "
                            "estimates, with the share of intervals entirely below / above "
                            "the true value:\n\n" + "\n".join(lines)))
    report.step("writing files")
    write_netcdf(ds, out / "runs.nc")
    (out / "runs.md").write_text(
        "# Intervals across runs: the tables\n\nEvery group of truths, search, curve, "
        "method and k; cells are (truth, n).\n\n" + full_table(summary) + "\n")
    report.files[:0] = ["runs.nc", "runs.md"]
    _notes(report, ds, sizes, quick)


def _notes(report, ds, sizes, quick):
    """Sizes, the local search, where it ran."""
    from .intervals import machine

    report.notes.append(
        f"Sizes: {ds.sizes['dist']} truths, runs of B = {int(ds['B'].values[0])} trials, n on "
        f"a log grid ({', '.join(map(str, ds['n'].values))}); k = "
        f"{', '.join(map(str, ds['k'].values))} runs, the first k of the same "
        f"{max(KS)} runs of each set; {sizes['replicates']:,} sets of runs and "
        f"{sizes['resamples']:,} bootstrap resamples a cell; oracle from "
        f"{sizes['oracle_samples']:,} sets; the local search's curves from "
        f"{sizes['truth_samples']:,} runs." + (" Reduced sizes (--quick)." if quick else ""))
    report.notes.append(f"The local search: {_local_words()}")
    computed, total = int(ds.attrs["cells_computed"]), ds.sizes["dist"]
    where = (f"{computed} of its {total} cells computed on {int(ds.attrs['workers'])} worker "
             f"process(es) ({ds.attrs['backend']})" if computed else "no cell computed")
    report.notes.append(f"Ran on {machine()}; {where}, "
                        + ("the run time above is the wall time of the whole run." if
                           computed == total else
                           f"{total - computed} read from the checkpoint store, computed by an "
                           f"earlier run: the run time above is this run's alone."))


def _local_words():
    from ..studies.runs_battery import GRID, NOISE, RADIUS, RESTART

    return (f"a (1+1) local search with restarts on a {GRID} x {GRID} torus of configurations "
            f"whose true scores are the truth's quantiles laid out by a fixed landscape of five "
            f"peaks; each trial restarts at a uniformly drawn configuration with probability "
            f"{RESTART:g}, else steps at most {RADIUS} cells from the incumbent (the best "
            f"observation so far), and observes its configuration's score plus normal noise of "
            f"{NOISE:g} times the pool's standard deviation.")
