"""``evpsim curve --runs``: searches run several times, and single runs of adaptive searches.

With ``--runs`` each result is one search run with several seeds
(:func:`evpsim.read_runs`): the curves across runs of
:func:`evpsim.runs_curve` are printed, with the curve of a random search's
pooled trials and the difference of each pair of searches. Without it, a
study whose sampler adapts each trial to the earlier ones (TPE, CMA-ES ...)
gets its observed best so far, one run with no interval, unless
``--assume-random`` asks for V's curve anyway.
"""

from __future__ import annotations

from dataclasses import replace

from .._format import numbers
from ..curves.runs import observed_curves, runs_curve, runs_notes
from ..intervals import RUN_CURVES
from ..io.search import describe_reading
from ..io.trials import describe_sampler, direction, is_adaptive
from ..report.runs import ahead_lines, observed_tables, plot_observed_figure, \
    plot_runs_figure, runs_caption, runs_tables
from ..report.tables import reading_table, write_tables
from .common import Timer, UserError, given, refuse_unused, save_outputs

__all__ = ["add_runs_args", "run_runs", "split_adaptive", "observed_lines", "print_observed",
           "run_observed", "given_runs_options", "RUNS_REFUSED", "OBSERVED_REFUSED"]

#: options of V's curves that do nothing with --runs, and why
RUNS_REFUSED = {
    "check": "simulates searches of i.i.d. trials from a KDE of the scores, which runs of "
             "an adaptive search are not; the intervals across runs were measured on "
             "simulated runs by the runs battery ('evpsim reproduce runs'): drop it",
    "target": "applies to V's curve, not to curves across runs: drop it",
    "estimators": "applies to V's curve: a curve across runs is the mean or median of the "
                  "runs' best so far (--curve): drop it",
    "n_max": "applies to V's curve: a curve across runs stops at the shortest run: drop it",
    "python_resamples": "applies to V's curve: drop it",
    "time_field": "applies to the time axis of V's curve: curves across runs are drawn "
                  "against trials: drop it",
    "plot_ci_method": "applies to V's figure: the figure of runs shades every interval "
                      "across runs: drop it",
    "assume_random": "applies to a single study of an adaptive sampler: with --runs, the "
                     "runs of a search are the unit, and the curve of a random search's "
                     "pooled trials is drawn where its runs record random search: drop it",
}
#: options of V's curves that do nothing where every search read is one run of an adaptive
#: search, its observed best so far alone
OBSERVED_REFUSED = ("check", "target", "estimators", "n_max", "python_resamples",
                    "ci_methods", "plot_ci_method")


def add_runs_args(group):
    """``--runs``, ``--run-field`` and ``--assume-random`` in ``group``."""
    group.add_argument("--runs", action="store_true",
                       help="each result is one search run with several seeds: its runs are "
                            "the studies a --study name or glob ('tpe-*') names, the "
                            "experiments of an --experiment glob, the values of --run-field, "
                            "or the files or folders of a quoted glob ('ray/tpe-*'), each "
                            "one ordered sequence of trials; prints the mean (--curve median: "
                            "median) of the runs' best-so-far curves with intervals across "
                            "runs, the curve of a random search's pooled trials, and each "
                            "pair's difference")
    group.add_argument("--run-field", metavar="FIELD",
                       help="with --runs: the CSV column, JSON Lines field or MLflow "
                            "params.KEY or tags.KEY naming each trial's run (a seed)")
    group.add_argument("--assume-random", action="store_true",
                       help="draw V's curve of a study whose sampler adapts each trial to "
                            "the earlier ones (TPE, CMA-ES ...) as if its trials were "
                            "independent draws (default: its observed best so far, one run "
                            "with no interval)")


def _refuse(args):
    """Refuse, before any work, the options that do nothing with ``--runs``, and a
    curve or time axis it does not draw."""
    for dest, why in RUNS_REFUSED.items():
        refuse_unused(args, (dest,), why)
    if args.curve not in RUN_CURVES:
        raise UserError(f"--curve {args.curve}: with --runs, the curve across runs is "
                        f"{' or '.join(RUN_CURVES)}")
    if args.x_axis == "time":
        raise UserError("--x-axis time: curves across runs are drawn against trials: drop it")


def run_runs(args, inputs, scale_lines):
    """``evpsim curve --runs``: read the runs, print their curves, write the outputs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``evpsim curve``.
    inputs : dict
        How the results were read, as attributes of ``--out``.
    scale_lines : callable
        The lines saying where the metric's range came from, of a Dataset.
    """
    from ..io.runs import read_runs
    from .tracker_args import split, tracker_options

    _refuse(args)
    options = tracker_options(args)
    searches = read_runs(args.results, studies=options["studies"],
                         experiments=options["experiments"], run_field=args.run_field,
                         labels=split(args.labels), column=args.column, field=args.field,
                         group=args.group, select=split(args.select), reduce=args.reduce,
                         diverged=args.diverged, failed=args.failed, bounds=args.bounds,
                         minimize=args.minimize, pruned=options["pruned"],
                         time_reduce=args.time_reduce)
    runs = [r for s in searches for r in s.runs]
    minimize = direction(runs, args.minimize)
    with Timer() as t:
        ds = runs_curve(searches, ci_methods=args.ci_methods, level=args.level,
                        resamples=args.resamples, seed=args.seed, minimize=minimize,
                        bounds=args.bounds)
    metric = args.metric or (runs[0].metric if len({r.metric for r in runs}) == 1 else "") \
        or "score"
    ds.attrs.update(metric=metric, curve=args.curve, **inputs)
    summary = [line for s in searches for line in _describe(s, args.run_field)]
    summary.append(_header(ds, args.curve, t.seconds))
    summary += scale_lines(ds) + runs_notes(ds, args.curve)
    print("\n".join(summary))
    tables = runs_tables(ds, args.curve, args.all)
    for table in tables:
        print()
        print("\n".join((table.title,) if table.key == "curve" else table.notes))
        print("\n".join(table.lines()))
    ahead = ahead_lines(ds, args.curve)
    if ahead:
        print()
        print("\n".join(ahead))
    reading = reading_table([replace(r, label=f"{s.label}: {name}") for s in searches
                             for r, name in zip(s.runs, s.names)], minimize)
    save_outputs(args, ds, lambda d, path: plot_runs_figure(d, path, curve=args.curve,
                                                            log_x=args.log_x),
                 _report_outputs(args, ds, reading, summary + ahead, tables,
                                 lambda: plot_runs_figure(ds, curve=args.curve,
                                                          log_x=args.log_x),
                                 runs_caption(ds, args.curve)))
    return 0


def _describe(search, run_field):
    """A search's line (its runs, where they were read, their range and sampler), and a
    line per run whose reading counted, dropped or kept trials unusually."""
    runs = search.runs
    sizes = sorted({r.scores.size for r in runs})
    trials = f"{sizes[0]} trials" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]} trials"
    sources = list(dict.fromkeys(r.source for r in runs))
    source = sources[0] if len(sources) == 1 else search.given
    names = search.names
    shown = ", ".join(names if len(names) <= 4 else names[:2] + ["..."] + names[-1:])
    kind = (f"{run_field} " if runs[0].run else "studies " if source.startswith("optuna:")
            else "experiments " if source.startswith("mlflow:") else "")
    lo, hi = numbers([min(r.scores.min() for r in runs), max(r.scores.max() for r in runs)])
    metric = f" ({runs[0].metric})" if runs[0].metric else ""
    line = (f"{search.label}: {len(runs)} runs of {trials} from {source}{metric}: {kind}"
            f"{shown}, in [{lo}, {hi}]")
    if search.sampler:
        line += f"; {describe_sampler(search.sampler, 'runs')}"
    lines = [line]
    for name, run in zip(names, runs):
        notes = describe_reading(replace(run, sampler=""), curve="runs")
        if notes:
            lines.append(f"  {name}: {notes.removeprefix('; ')}")
    return lines


def _header(ds, curve, seconds):
    """What the curves are and how their intervals were made."""
    a = ds.attrs
    best = "lowest" if a["minimize"] == "True" else "best"
    methods = [str(m) for m, b in zip(ds["ci_method"].values,
                                      ds["bounds_curve"].sel(curve=curve).values) if b]
    parts = [f"{curve} over each search's runs of the {best} {a['metric']} among the first n "
             f"trials; {a['level']:.0%} intervals across runs from {', '.join(methods)}"]
    if ds.sizes.get("pair", 0):
        how = {"welch": "Welch's t",
               "percentile": f"the percentile interval of {a['resamples']:,} resamples of the "
                             f"runs"}[str(ds["difference_method"].sel(curve=curve).values)]
        parts.append(f"differences by {how}, the shares ahead from {a['resamples']:,} "
                     f"resamples of the runs (seed {a['seed']})")
    pooled = [str(m) for m, r in zip(ds["model"].values, ds["random_search"].values) if r]
    if pooled:
        parts.append(f"the pooled trials of {', '.join(pooled)} by "
                     f"{ds['pooled_estimator'].sel(curve=curve).values} with "
                     f"{ds['pooled_method'].sel(curve=curve).values}")
    return "; ".join(parts) + f"; {seconds:.2f} s"


def _report_outputs(args, ds, reading, summary, tables, figure, caption):
    """``[(path, write)]`` of ``--table`` and ``--html``, for :func:`save_outputs`."""
    from pathlib import Path

    from ..report.html import html_report

    items = []
    if args.table is not None:
        items.append((args.table, lambda tmp: write_tables(tables, tmp)))
    if args.html is not None:
        def html(tmp):
            Path(tmp).write_text(html_report(ds, reading=reading, summary=summary,
                                             tables=tables, curve_figure=figure(),
                                             curve_caption=caption), encoding="utf-8")

        items.append((args.html, html))
    return items


# --- single runs of adaptive searches ------------------------------------------------------

def split_adaptive(args, searches):
    """``(the searches V's curve is drawn for, the single runs of adaptive searches)``:
    every search with ``--assume-random`` (refused where no search read is adaptive)."""
    adaptive = [s for s in searches if is_adaptive(s.sampler)]
    if args.assume_random:
        if not adaptive:
            samplers = "; ".join(f"{s.label}: {s.sampler or 'none'}" for s in searches)
            raise UserError(f"--assume-random applies to a study whose sampler adapts each "
                            f"trial to the earlier ones (TPE, CMA-ES ...), and none is read "
                            f"(samplers recorded: {samplers}): drop it")
        return searches, []
    if adaptive and args.x_axis == "time":
        raise UserError(f"--x-axis time applies to V's curve, and {adaptive[0].label} is one "
                        f"run of an adaptive search, its observed best so far drawn against "
                        f"trials: drop it, or give --assume-random for V's curve")
    return [s for s in searches if not is_adaptive(s.sampler)], adaptive


def observed_lines(adaptive, others):
    """A line per single run of an adaptive search: why it gets its observed best so far
    alone, and how to get a curve with intervals."""
    lines = []
    for s in adaptive:
        compared = (f"; it is not compared with {', '.join(o.label for o in others)}"
                    if others else "")
        how = (f" (a study per seed, named by a glob: --study '{s.label}-*')"
               if s.source.startswith("optuna:") else "")
        lines.append(f"{s.label}: its observed best so far, one run with no interval and no V "
                     f"curve: {s.sampler} adapts each trial to the earlier ones, so its trials "
                     f"are no independent draws to resample{compared}; run the search with 5 "
                     f"to 20 seeds and read them with --runs{how} for its curve with intervals "
                     f"across runs, or give --assume-random for V's curve as if they were "
                     f"independent")
    return lines


def print_observed(args, adaptive):
    """The observed best so far of single runs of adaptive searches beside V's curves:
    ``(their Dataset or None, their tables)``, the tables printed."""
    if not adaptive:
        return None, []
    obs = observed_curves(adaptive, minimize=bool(args.minimize))
    tables = observed_tables(obs, args.all)
    for table in tables:
        print(f"\n{table.title}")
        print("\n".join(table.lines()))
    return obs, tables


def run_observed(args, adaptive, describe, inputs):
    """``evpsim curve`` where every search read is one run of an adaptive search: their
    observed best-so-far curves alone.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``evpsim curve``.
    adaptive : list of Search
        The runs.
    describe : callable
        A search's line, given the search and what is drawn of it.
    inputs : dict
        How the results were read, as attributes of ``--out``.
    """
    for dest in OBSERVED_REFUSED:
        refuse_unused(args, (dest,), f"applies to V's curve, and every search read is one run "
                                     f"of an adaptive search (its observed best so far): "
                                     f"drop it, or give --assume-random for V's curve")
    if args.x_axis == "time":
        raise UserError("--x-axis time applies to V's curve, and every search read is one run "
                        "of an adaptive search: drop it")
    summary = [describe(s, "observed") for s in adaptive] + observed_lines(adaptive, [])
    print("\n".join(summary))
    obs, tables = print_observed(args, adaptive)
    metrics = {s.metric for s in adaptive}
    obs.attrs.update(metric=args.metric or (metrics.pop() if len(metrics) == 1 else "")
                     or "score", **inputs)
    reading = reading_table(adaptive, bool(args.minimize))
    caption = "each run's observed best so far, a step at each trial that improved on it"
    save_outputs(args, obs, lambda d, path: plot_observed_figure(d, path, log_x=args.log_x),
                 _report_outputs(args, obs, reading, summary, tables,
                                 lambda: plot_observed_figure(obs, log_x=args.log_x),
                                 caption))
    return 0


def given_runs_options(args):
    """The flags of runs given without ``--runs``, refused: ``--run-field`` needs it."""
    if not args.runs and given(args, "run_field"):
        raise UserError("--run-field names each trial's run of a search, with --runs: add "
                        "--runs, or drop it")

