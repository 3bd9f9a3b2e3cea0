"""``evpsim curve``: EVP curves of your own search results, and whether to trust them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import _validate as check
from .._format import duration, numbers, spans
from ..curves.curve import inside_target, curve, interval_notes
from ..estimators.family import get_estimator, list_estimators, resolve_estimators
from ..estimators.targets import as_target
from ..intervals.family import (CURVE_CI_METHOD, CURVE_FALLBACK, CURVE_QUANTILE_CI_METHOD,
                                KINDS, curve_ci_method, no_interval)
from ..io.lattice import find_lattice, step_text
from ..io.results import check_output
from ..io.search import describe_reading
from ..io.trials import NO_BOUNDS, direction
from ..report.curvefigure import (LOG_X_FROM, figure_caption, plot_check_coverage,
                                  plot_curve_figure)
from ..report.tables import (TABLE_SUFFIXES, bound_header, budget_lines, check_tables,
                             curve_tables, ranking_lines, ranking_tables, reading_table,
                             write_tables)
from ..studies.coverage import COVERAGE_CHUNK
from ..studies.selfcheck import (FIT_DROPPED, RESAMPLES, RESAMPLING_B, RESAMPLING_RESAMPLES,
                                 SHORTFALL, WIDE, check_arguments, check_replicates,
                                 coverage_warnings, fit_table, fit_warnings, kde_options,
                                 metric_range, model_error, self_check, width_warnings)
from .common import (Timer, UserError, add_failed_args, add_output_args, add_subcommand,
                     check_outputs, ci_methods_note, default, integer, name_or_number,
                     note_idle_workers)
from .common import number as real
from .common import (given, pair_or_none, paragraph, refuse_unused, refuse_unused_resamples,
                     save_outputs)
from .curve_runs import (add_runs_args, given_runs_options, observed_lines, print_observed,
                         run_observed, run_runs, split_adaptive)
from .tracker_args import (SOURCES_HELP, TRACKER_FLAGS, add_tracker_args, split,
                           tracker_inputs, tracker_options)

HELP = "EVP curves of your searches, with intervals and a self-check"
#: endings of ``--html``
HTML_SUFFIXES = (".html", ".htm")


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "curve", HELP, description=(
            "Read the validation scores of one or more hyperparameter searches and print, for "
            "every budget n up to each model's B, the estimated expected best score, the SD of "
            "the best of n, and confidence intervals; for two or more models, which is ahead, "
            "an interval for the difference and the share of bootstrap differences in which one "
            "is ahead; "
            "with --target, the budget that reaches a score; with --check, how often intervals "
            "built this way covered the truth in searches simulated from a KDE fitted to your "
            "scores, and how like your scores that KDE is. Tables show n = 1, 2, 3, 5, 10, 20, "
            "50, ..., B and the budgets where two models change places or a target is "
            "reached (--all: every n). Everything printed is an estimate from your data."),
        notes=[ci_methods_note(), paragraph(
            "Your own files: scores.txt with one score per line ('-' reads them from standard "
            "input); allentune's results.jsonl with --field best_validation_accuracy --group "
            "model --time-field training_duration; learning curves with e.g. --field "
            "learning_curve.top_1 --reduce max. A trial that ran but gave no score counts at "
            "the worst score (--failed).")],
        examples=["evpsim curve data:reuters-mlp data:reuters-lstm --labels MLP,LSTM "
                  "--bounds 0,1 --plot curves.png",
                  "evpsim curve data:reuters-lstm --bounds 0,1 --target 0.8 --check "
                  "--check-replicates 200 --check-resamples 500"])
    _add_reading_args(p)
    _add_curve_args(p)
    _add_check_args(p)
    _add_figure_args(p)
    add_output_args(p)
    _add_report_args(p)
    p.set_defaults(run=run, argument_flags={"estimators": "estimators", "paths": "results",
                                            "n_max": "n_max",
                                            "python_resamples": "python_resamples",
                                            "path": "results",
                                            "bandwidth": "check_bandwidth",
                                            "construction": "check_construction",
                                            "durations": "time_field",
                                            "replicates": "check_replicates",
                                            **TRACKER_FLAGS})
    return p


def _add_reading_args(p):
    """The score files and how to read them: RESULTS and the group "reading the results".

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``evpsim curve``.
    """
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="score files: one score per line, CSV (--column), or JSON Lines "
                        "(--field); one model per file unless --group splits it; "
                        "data:NAME for a search shipped with evpsim (see 'evpsim list'); - for "
                        f"standard input; {SOURCES_HELP}")
    g = p.add_argument_group("reading the results")
    g.add_argument("--column", help="CSV column of the score (name or 0-based index)")
    g.add_argument("--field", help="JSON Lines key of the score; a dotted path reaches nested "
                                   "objects and maps over lists (learning_curve.top_1); of a "
                                   "tracker: value, values_K or user_attrs.KEY (Optuna), "
                                   "metrics.KEY (MLflow), a reported key (Ray Tune), a tag "
                                   "(TensorBoard)")
    g.add_argument("--reduce", choices=("max", "min", "last"),
                   help="reduce a per-trial list of checkpoints to one score (also a Ray Tune "
                        "trial's reports, a TensorBoard tag's steps, an MLflow metric's "
                        "history)")
    g.add_argument("--group", metavar="FIELD",
                   help="field or column naming the model of each record (allentune: model; "
                        "MLflow: params.KEY)")
    g.add_argument("--select", metavar="LIST", help="comma-separated models of --group to keep")
    g.add_argument("--time-field", metavar="FIELD",
                   help="per-trial duration: seconds, H:MM:SS as AllenNLP writes it, pandas' "
                        "'0 days 00:10:00' or ISO 8601's PT10M; or START,END timestamps "
                        "(Optuna's CSV: datetime_start,datetime_complete) (default: a W&B "
                        "runs export's Runtime)")
    add_failed_args(g)
    g.add_argument("--labels", metavar="LIST", help="comma-separated model names, one per model")
    g.add_argument("--minimize", action="store_true",
                   help="the scores are losses: curves of the expected minimum (implied by "
                        "a minimising Optuna study)")
    g.add_argument("--metric", help="the metric's name, for tables and the y axis "
                                    "(default: the field or column)")
    add_tracker_args(g)
    add_runs_args(g)


def _add_curve_args(p):
    """The group "curves and intervals": estimators, curve, CI methods, level, resamples,
    seed, bounds, target.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``evpsim curve``.
    """
    c = p.add_argument_group("curves and intervals")
    c.add_argument("--estimators", default=None, metavar="LIST",
                   help="comma-separated estimators (default: V for the mean curve, quantile "
                        "for a quantile curve; U, W, naive, kde, opda-parametric and your own "
                        "too: the bootstrap methods run a Python estimator on each resample, "
                        f"and {CURVE_FALLBACK} joins the default {CURVE_CI_METHOD} for it; "
                        "see 'evpsim list')")
    c.add_argument("--n-max", type=integer, default=None, metavar="N",
                   help="extend the curves of the estimators that extrapolate (V, quantile, "
                        "kde, opda-parametric) to n = N, from B to 100 B; the others stop at "
                        "B")
    c.add_argument("--python-resamples", type=integer, default=None, metavar="M",
                   help="bootstrap resamples of the Python estimators (default: --resamples, "
                        "at most 2,000 for kde and 100 for opda-parametric, the slow ones)")
    c.add_argument("--curve", default="mean", metavar="CURVE",
                   help="mean (the expected best score, default), median, or quantile:Q (the "
                        "Q-quantile of the best score of n trials)")
    c.add_argument("--ci-methods", "--methods", dest="ci_methods", metavar="LIST",
                   help=f"comma-separated CI methods (default: {CURVE_CI_METHOD} for the mean "
                        f"curve, a generalized Pareto tail fitted to the best scores, on their "
                        f"lattice where they lie on one: see 'evpsim reproduce intervals'; "
                        f"{CURVE_FALLBACK} with fewer than 10 trials; "
                        f"{CURVE_QUANTILE_CI_METHOD} for a quantile curve; see below)")
    c.add_argument("--level", type=real, default=default(curve, "level"),
                   help="two-sided confidence level (default: %(default)s)")
    c.add_argument("--resamples", type=integer, default=default(curve, "resamples"),
                   help="bootstrap resamples per model (default: %(default)s)")
    c.add_argument("--seed", type=integer, default=default(curve, "seed"),
                   help="seed (default: %(default)s)")
    c.add_argument("--bounds", type=pair_or_none, metavar="LO,HI",
                   help="the metric's range (e.g. 0,1): the worst and best scores possible. "
                        "No interval ends outside it; band methods need it; failed trials "
                        "count at its worst end. Default: 0,1 where every score lies in [0, 1] "
                        "on a lattice of step 1/N (an accuracy on N examples), else none "
                        "(the self-check then guesses 0,1 or 0,100 for its KDE); 'none': no "
                        "range")
    c.add_argument("--target", type=real,
                   help="a score to reach: report the smallest budget that reaches it")


def _add_check_args(p):
    """The group "self-check": --check and its sizes, bandwidth, construction and workers.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``evpsim curve``.
    """
    k = p.add_argument_group("self-check")
    k.add_argument("--check", action="store_true",
                   help="simulate searches of your B from a KDE fitted to your scores and "
                        "report how often these intervals covered its exact curve")
    k.add_argument("--check-replicates", type=integer, default=default(self_check, "replicates"),
                   help="the most searches simulated per model: the check stops at 64, 128, "
                        "256, ... once every n's verdict (coverage below the level less "
                        f"{SHORTFALL:g}, or not) is settled by Clopper-Pearson bounds "
                        "(default: %(default)s)")
    k.add_argument("--check-resamples", type=integer,
                   help=f"bootstrap resamples per simulated search (default: {RESAMPLES:,}; "
                        f"with a resampling method such as gpd-tail, "
                        f"{RESAMPLING_RESAMPLES[0]:,} up to B = {RESAMPLING_B} and "
                        f"{RESAMPLING_RESAMPLES[1]:,} beyond)")
    k.add_argument("--check-full", action="store_true",
                   help="simulate every one of --check-replicates searches, without stopping "
                        "once the verdicts are settled")
    k.add_argument("--check-bandwidth", type=_check_bandwidth,
                   default=default(self_check, "bandwidth"), metavar="RULE|NUMBER",
                   help="the KDE's bandwidth: cv (leave-one-out, what evpsim's kde-validity "
                        "study found best), normal-reference, scott, silverman, or a number "
                        "(default: %(default)s)")
    k.add_argument("--check-construction", choices=("centered", "tang2020"),
                   default=default(self_check, "construction"),
                   help="the KDE's construction: centered (clipped to --bounds) or tang2020 "
                        "(Tang et al.'s, unclipped) (default: %(default)s)")
    k.add_argument("--workers", type=integer, default=default(self_check, "workers"),
                   help="worker processes of the self-check (default: %(default)s)")


def _add_figure_args(p):
    """The group "figure": the x axis, its scale and the CI method shaded.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``evpsim curve``.
    """
    f = p.add_argument_group("figure")
    f.add_argument("--x-axis", choices=("n", "time"), default="n",
                   help="trials, or expected wall-clock (needs --time-field, or the times a "
                        "tracker or a W&B runs export records) (default: n)")
    scale = f.add_mutually_exclusive_group()
    scale.add_argument("--log-x", action="store_const", const=True, default=None,
                       help=f"log-scaled x axis (default where the largest B is {LOG_X_FROM} "
                            f"or more)")
    scale.add_argument("--linear-x", dest="log_x", action="store_const", const=False,
                       help="linear x axis (default where every B is below "
                            f"{LOG_X_FROM})")
    f.add_argument("--plot-ci-method", metavar="NAME",
                   help="shade this CI method only, or none (default: every CI method, a "
                        "panel each)")


def _add_report_args(parser):
    """``--table`` and ``--html``: the tables as a file, and a report a browser opens."""
    g = parser.add_argument_group("report")
    g.add_argument("--table", action="store_once", metavar="FILE.csv|.tex|.md|.json",
                   help="write the printed tables to this file: CSV (a block per table), "
                        "LaTeX (booktabs tabulars, to \\input), Markdown or JSON")
    g.add_argument("--html", action="store_once", metavar="FILE.html",
                   help="write a report to this file, one self-contained page a browser "
                        "opens offline: what was read, the figure, the tables, the "
                        "self-check and how the result was made")


def _check_report_outputs(args):
    """Fail before any work if ``--table`` or ``--html`` cannot be written."""
    if args.table is not None:
        check_output(args.table, TABLE_SUFFIXES, "table")
    if args.html is not None:
        check_output(args.html, HTML_SUFFIXES, "html")


def _check_names(args, searches=None):
    """Refuse, before any work, a metric's or a model's name that a table cannot print (a
    control character such as a line break, in a flag: the library refuses those read)
    or the figure cannot draw (TeX math between $ signs that matplotlib cannot parse,
    which it says only when saving the figure): those of the flags, and with
    ``searches`` those read."""
    import unicodedata

    from ..report.drawing import math_error

    if searches is None:
        for text, flag in ((args.metric, "--metric"), (args.labels, "--labels")):
            if text is not None and any(unicodedata.category(c) == "Cc" for c in text):
                raise UserError(f"{flag} {text!r} holds a line break or another control "
                                f"character, which would break the tables' rows")
    if args.plot is None and args.html is None:
        return
    dollar = "write \\$ for a dollar sign"
    if searches is None:
        named = [(args.metric, "--metric", dollar)] if args.metric else []
        named += [(label, "--labels", dollar) for label in split(args.labels) or []]
    else:  # the names the files gave, where the flags gave none
        named = [] if args.metric else [
            (s.metric, f"the metric's name read from {s.source}", "name it with --metric")
            for s in searches]
        named += [] if args.labels else [
            (s.label, f"the model's name read from {s.source}", "name the models with --labels")
            for s in searches]
    for text, where, remedy in named:
        why = math_error(text)
        if why is not None:
            raise UserError(f"{where} {text!r} cannot be drawn in the figure: matplotlib "
                            f"reads text between two $ signs as TeX math, which fails here "
                            f"({why}); {remedy}")


def _read(args):
    from ..io.shipped import read_results

    select = split(args.select)
    if select is not None and args.group is None:
        raise UserError("--select needs --group")
    searches = read_results(args.results, column=args.column, field=args.field,
                            group=args.group, select=select, reduce=args.reduce,
                            time_field=args.time_field, labels=split(args.labels),
                            diverged=args.diverged, failed=args.failed, bounds=args.bounds,
                            minimize=args.minimize, **tracker_options(args))
    args.minimize = direction(searches, args.minimize)  # a minimising study's, say
    return searches


def _describe(search, curve="V"):
    """A model's line: its trials, where they were read, their range and what reading
    made of them (``curve``: what is drawn of them, see
    :func:`~evpsim.io.search.describe_reading`)."""
    xs = search.scores
    counted = search.failed and search.failed_score is not None
    lo, hi = numbers([xs.min(), xs.max()])
    line = (f"{search.label}: {xs.size} {'trials' if counted else 'scores'} from {search.source}"
            + (f" ({search.metric})" if search.metric else "") + f", in [{lo}, {hi}]")
    return line + describe_reading(search, curve=curve)


def _lattice_lines(searches, minimize):
    """A line per model whose scores lie on a lattice: its step and the ties at the top."""
    found = [(s.label, find_lattice(s.scores, minimize)) for s in searches]
    return [f"{label}: {lattice.describe()}" for label, lattice in found if lattice]


def _bound_lines(ds):
    """What the distribution-free bound is, and what each method's upper limits rest on."""
    side = "upper" if bool(ds["minimize"]) else "lower"
    worst = float(ds["free_bound_worst"])
    if np.isfinite(worst):
        given = ("assumed: no score is negative; set --bounds" if bool(ds["free_bound_assumed"])
                 else "from --bounds" if str(ds["bounds_from"].values) == "given"
                 else "from the range of scores on a lattice, above")
        lines = [f"{bound_header(ds)}: one-sided, distribution-free (one-sided LD band): it "
                 f"holds at every n at once whatever the distribution; it assumes only that no "
                 f"score is {'below' if side == 'lower' else 'above'} {worst:g} ({given})"]
    else:
        lines = [f"no distribution-free {side} bound: it needs the worst score possible; give "
                 f"the metric's range with --bounds"]
    optimistic = "lower" if side == "upper" else "upper"
    for m, kind, assumes in zip(ds["ci_method"].values, ds["ci_method_kind"].values,
                                ds["ci_method_assumes"].values):
        if assumes:
            lines.append(f"{m}: its {optimistic} limits rest on {assumes}"
                         if kind in ("resampling", "calibrated") else f"{m}: {assumes}")
    return lines


def _scale_lines(ds):
    """The metric's range where it was found from the scores, not given: what it is, why,
    and how to give another or none."""
    found = str(ds["bounds_from"].values)
    if not found.startswith("lattice "):
        return []
    return [f"range: [{float(ds['bounds_lo']):g}, {float(ds['bounds_hi']):g}] taken as the "
            f"metric's, as every score lies there on a lattice of step "
            f"{found[len('lattice '):]} (an accuracy on N examples is a multiple of 1/N); "
            f"--bounds LO,HI gives another range, --bounds none takes none"]


def _beyond_free_lines(ds):
    """Warnings where a method's pessimistic end lies beyond the distribution-free bound
    printed beside it: that end claims less than a bound that holds whatever the
    distribution, so it rests on an assumption the bound does not need."""
    if not bool(ds["free_bound"].notnull().any()):
        return []
    minimize = bool(ds["minimize"])
    end, side = ("upper", "above") if minimize else ("lower", "below")
    lines = []
    for m in ds["ci_method"].values:
        if str(ds["ci_method_kind"].sel(ci_method=m).values) == "band":
            continue
        ends = ds[end].sel(ci_method=m)
        past = (ends > ds["free_bound"]) if minimize else (ends < ds["free_bound"])
        past = past & ends.notnull()
        if not bool(past.any()):
            continue
        where = past.any([d for d in past.dims if d != "n"])
        ns = ds["n"].values[where.values]
        lines.append(f"warning: {m}'s {end} limits at n = {spans(ns)} lie {side} the "
                     f"distribution-free bound beside them, which holds whatever the "
                     f"distribution: there the bound is the better answer")
    return lines


def _range_lines(ds, scores):
    """Warnings where, without ``--bounds``, a method's limits leave the range that every
    score lies in (0 to 1, or 0 to 100): an accuracy's interval past 1 cannot be right."""
    if np.isfinite(float(ds["bounds_lo"])):
        return []
    try:
        lo, hi = metric_range(scores)
    except check.InvalidArgument:
        return []
    lines = []
    for m in ds["ci_method"].values:
        out = ((ds["lower"].sel(ci_method=m) < lo) | (ds["upper"].sel(ci_method=m) > hi))
        if bool(out.any()):
            lines.append(f"warning: some {m} limits lie outside [{lo:g}, {hi:g}], where every "
                         f"score is; if the metric cannot leave that range, give --bounds "
                         f"{lo:g},{hi:g} to cut them")
    return lines


def _no_tail_lines(ds, searches):
    """Why ``gpd-tail``'s column (and ``gpd-tail-lattice``'s, off a lattice) is empty for a
    model whose top scores are tied, and why
    ``order-statistic`` has no limit on the best scores' side where it needs its tail."""
    sign = -1.0 if bool(ds["minimize"]) else 1.0
    optimistic = "lower" if sign < 0 else "upper"
    lines = []
    for model, s in zip(ds["model"].values, searches):
        xs = np.sort(sign * s.scores)
        for tail in ("gpd-tail", "gpd-tail-lattice", "gpd-tail-bounded"):
            if tail in ds["ci_method"].values and no_interval(tail, xs) and bool(
                    ds[optimistic].sel(model=model, ci_method=tail).isnull().any()):
                lines.append(f"{tail}: no interval for {model}: {no_interval(tail, xs)}; "
                             f"--ci-methods percentile gives one")
        if "order-statistic" in ds["ci_method"].values and no_interval("order-statistic", xs) \
                and bool(ds[optimistic].sel(model=model, ci_method="order-statistic").isnull()
                         .any()):
            lines.append(f"order-statistic: no {optimistic} limit for {model} where the order "
                         f"statistics run out: {no_interval('order-statistic', xs)}")
    return lines


def _check_blocks(ds, show_all, seconds):
    """The self-check's report: lines and tables (its fit, its coverage and, with two or
    more models, its ranking errors), in the order printed (:func:`_text`)."""
    a = ds.attrs
    lo, hi = a["check_bounds"]
    boot = any(KINDS[k].resamples for k in ds["ci_method_kind"].values.tolist())
    where = f" on [{lo:g}, {hi:g}]" if a["check_construction"] == "centered" else ""
    done, sizes = ds["check_searches"].values, ds["check_resamples"].values
    models = [str(m) for m in ds["model"].values]
    searches = (f"{done[0]:,} searches" if (done == done[0]).all()
                else f"up to {done.max():,} searches")
    resamples = (f", {sizes[0]:,} resamples each" if (sizes == sizes[0]).all()
                 else " (resamples each: " + ", ".join(f"{m} {r:,}" for m, r in
                                                       zip(models, sizes)) + ")")
    full = a["check_replicates"]
    ran = "; ".join(f"{m}: {'all ' if d == full else ''}{d:,}"
                    + (" (every verdict settled)" if d < full else "")
                    for m, d in zip(models, done))
    return [f"self-check: {searches} of each model's B simulated from "
            f"the {a['check_construction']} KDE of its scores{where} (bandwidth: "
            f"{a['check_bandwidth_asked']})"
            + (resamples if boot else "")
            + f"; {seconds:.1f} s",
            f"  {a['check_stop']}; searches simulated: {ran}",
            *_check_lattice_lines(ds), fit_table(ds), *check_tables(ds, show_all),
            *ranking_tables(ds, show_all)]


def _text(blocks):
    """The lines printed of a report's lines and tables: the self-check's fit table under
    its title and legend, its coverage tables and its ranking errors each under the line
    that says what they are."""
    lines = []
    for k, block in enumerate(blocks):
        if isinstance(block, str):
            lines.append(block)
            continue
        first = k == 0 or getattr(blocks[k - 1], "key", None) != block.key
        if block.key == "fit":
            lines.append(f"{block.title} ({'; '.join(block.legend_lines)}):")
            lines += block.lines(indent=2)
        elif block.key == "check":
            lines += [f"{block.notes[0]}:"] if first else []
            lines += [f"  {block.title}", *block.lines(indent=4)]
        else:  # ranking errors
            lines += [block.notes[0]] if first else []
            lines += ranking_lines(block)
    return lines


def _check_lattice_lines(ds):
    """The self-check's truths snapped to their scores' lattice, a line per model."""
    if "check_lattice_step" not in ds.coords:  # a self-check of an earlier version
        return []
    return [f"  {model}: the KDE's draws snapped to its scores' lattice of step "
            f"{step_text(float(step))}, its exact EVP taken on that lattice, so the coverage "
            f"below includes what ties do to the intervals"
            for model, step in zip(ds["model"].values, ds["check_lattice_step"].values)
            if np.isfinite(step)]


def _check_bandwidth(text):
    """argparse type of ``--check-bandwidth``: a rule's name or a positive number."""
    from ..truths.kde import RULES

    return name_or_number(RULES, f"a rule ({', '.join(RULES)})")(text)


def _inputs(args):
    """How the results were read, as attributes of ``--out``."""
    given = {"paths": args.results, "field": args.field, "column": args.column,
             "reduce": args.reduce, "group": args.group, "select": args.select,
             "time_field": args.time_field, "labels": args.labels, "failed": str(args.failed),
             "diverged": args.diverged}
    return {f"input_{k}": ", ".join(v) if isinstance(v, list) else v
            for k, v in given.items() if v is not None} | tracker_inputs(args)


def _header(ds, seconds):
    a = ds.attrs
    kinds = dict(zip(ds["ci_method"].values.tolist(), ds["ci_method_kind"].values.tolist()))
    how = []
    if "bootstrap" in kinds.values():
        how.append(f"{a['resamples']:,} bootstrap resamples (seed {a['seed']})")
    drawn = [m for m, k in kinds.items() if k in ("resampling", "calibrated")]
    if drawn:
        how.append(f"{', '.join(drawn)} with {a['resamples']:,} resamples (seed {a['seed']})")
    exact = [m for m, k in kinds.items() if k == "order-statistic"]
    if exact:
        how.append(f"{', '.join(exact)} (exact binomial intervals between order statistics; "
                   f"a fitted tail's {a['resamples']:,} resamples, seed {a['seed']}, where "
                   f"none reaches far enough)")
    bands = [m for m, k in kinds.items() if k == "band"]
    if bands:
        how.append(f"the {', '.join(bands)} band{'s' if len(bands) > 1 else ''} on the "
                   f"score range [{float(ds['bounds_lo']):g}, {float(ds['bounds_hi']):g}]")
    best = "lowest" if bool(ds["minimize"]) else "best"
    return (f"{_what(ds)} {best} {a['metric']} after n trials; {a['level']:.0%} intervals from "
            f"{' and '.join(how)}; {seconds:.2f} s")


def _estimator_lines(ds, searches):
    """What a reader must know of estimators that are not L-statistics and of budgets
    beyond B: the resamples each ran on, failures (on a model's scores, why), methods
    that do not apply, curves that stop at B."""
    a = ds.attrs
    lines = []
    boot = [m for m, k in zip(ds["ci_method"].values, ds["ci_method_kind"].values)
            if k == "bootstrap"]
    for e, kind, used in zip(ds["estimator"].values, ds["estimator_kind"].values,
                             ds["resamples_used"].values):
        if kind == "L-statistic":
            continue
        est = get_estimator(str(e))
        line = f"{e} ({kind} estimator)"
        if boot:
            line += (f": {', '.join(boot)} from the estimator run on each of {int(used):,} "
                     f"resamples (the first of the {a['resamples']:,} above, seed {a['seed']})")
            if int(used) < a["resamples"]:
                line += (f"; fewer as it is slow (its default cap, "
                         f"{est.max_replicates:,}; --python-resamples to choose)"
                         if est.max_replicates is not None and int(used) == est.max_replicates
                         else " (--python-resamples)")
        lines.append(line)
        lines += _failure_lines(ds, est, searches)
        failed = ds["failed_resamples"].sel(estimator=e)
        if int(failed.max()) > 0:
            lines.append(f"  {e} failed on up to {int(failed.max()):,} of its {int(used):,} "
                         f"resamples (raised or returned NaN), left out of its intervals")
        skipped = [str(m) for m in ds["ci_method"].values
                   if not bool(ds["applies"].sel(estimator=e, ci_method=m))]
        if skipped:
            lines.append(f"  {', '.join(skipped)}: not for {e} (reweights resamples through an "
                         f"L-statistic's weights)")
    top = int(ds["n_max"])
    if top:
        stop = [str(e) for e in ds["estimator"].values if not get_estimator(str(e)).extrapolates]
        lines.append(f"curves extended to n = {top} (--n-max)"
                     + (f"; {', '.join(stop)} stop{'s' if len(stop) == 1 else ''} at B: "
                        + "; ".join(f"{e}: {get_estimator(e).beyond or 'no estimate beyond B'}"
                                    for e in stop) if stop else "")
                     + "; beyond B the ordinary bootstrap's limits stay below the best score "
                       "observed")
    return lines


def _failure_lines(ds, est, searches):
    """Why ``est`` gave no estimate on a model's scores at some n up to its B, a line
    per such model (its cells print as -)."""
    sign = -1.0 if bool(ds["minimize"]) else 1.0
    inside = inside_target(as_target(str(ds["curve"].values)), bool(ds["minimize"]))
    lines = []
    for model, s in zip(ds["model"].values, searches):
        B = s.scores.size
        if np.isfinite(ds["estimate"].sel(model=model, estimator=est.name).values[:B]).all():
            continue
        why = est.failure(sign * s.scores, np.arange(1, B + 1), inside)
        lines.append(f"  {est.name} gave no estimate on {model}'s scores: "
                     f"{why or 'it failed when the curve ran, not when run again'}")
    return lines


def _what(ds):
    """``expected``, ``median`` or ``0.9-quantile of the``: what the curve is of the best."""
    target = as_target(str(ds["curve"].values))
    if target.kind == "mean":
        return "expected"
    return "median" if target.q == 0.5 else f"{target.q!r}-quantile of the"


#: options of the self-check and of the figure: without --check, --plot they would do nothing
CHECK_OPTIONS = ("check_replicates", "check_resamples", "check_full", "check_bandwidth",
                 "check_construction", "workers")
FIGURE_OPTIONS = ("plot_ci_method", "x_axis", "log_x")


def _refuse_unused(args):
    """Refuse an option given where it would do nothing."""
    if not args.check:
        refuse_unused(args, CHECK_OPTIONS, "applies to the self-check: add --check, or drop it")
    else:
        refuse_unused_resamples(args, ("check_resamples",))
    if args.plot is None and args.html is None:
        refuse_unused(args, FIGURE_OPTIONS, "applies to the figure: add --plot FILE.png (or "
                                            "--html FILE.html), or drop it")
    if given(args, "python_resamples"):
        target = as_target(args.curve)
        ests = resolve_estimators(args.estimators or ("V" if target.kind == "mean"
                                                      else "quantile"), target)
        if all(e.is_lstatistic for e in ests):
            general = [n for n in list_estimators() if not get_estimator(n).is_lstatistic]
            refuse_unused(args, ("python_resamples",),
                          f"applies to estimators that are not L-statistics "
                          f"({', '.join(general)}), which run on each resample; the "
                          f"estimators here ({','.join(e.name for e in ests)}) are "
                          f"L-statistics: add one to --estimators, or drop it")


def run(args):
    check_outputs(args)
    _check_report_outputs(args)
    given_runs_options(args)
    if args.runs:
        _check_names(args)
        return run_runs(args, _inputs(args), _scale_lines)
    _check_before_work(args)
    searches, adaptive = split_adaptive(args, _read(args))
    _check_names(args, searches + adaptive)
    if not searches:
        return run_observed(args, adaptive, _describe, _inputs(args))
    if args.x_axis == "time" and any(s.durations is None for s in searches):
        raise UserError("--x-axis time needs --time-field (a tracker's results and a W&B runs "
                        "export carry times)")
    target = as_target(args.curve)
    if args.check:
        general = [e.name for e in resolve_estimators(args.estimators, target)
                   if not e.is_lstatistic]
        if general:
            raise UserError(f"--check simulates the intervals of L-statistics only, not of "
                            f"{', '.join(general)}: run it with --estimators of L-statistics")
    fallback = ""
    if args.ci_methods is None:
        args.ci_methods, fallback = curve_ci_method(
            target, min(s.scores.size for s in searches),
            resolve_estimators(args.estimators or ("V" if target.kind == "mean" else "quantile"),
                               target))
    if args.check:
        _check_self_check(args, searches)
    _note_slow_estimators(args, searches, target)
    with Timer() as t:
        ds = curve(searches, estimators=args.estimators, curve=args.curve,
                   ci_methods=args.ci_methods,
                   level=args.level, resamples=args.resamples, seed=args.seed,
                   bounds=args.bounds, minimize=args.minimize, target=args.target,
                   metric=args.metric, n_max=args.n_max,
                   python_resamples=args.python_resamples, progress=not args.quiet)
    if args.plot_ci_method is not None:
        check.choice(args.plot_ci_method, "plot_ci_method",
                     [str(m) for m in ds["ci_method"].values] + ["none"])
    ds.attrs.update(_inputs(args))
    summary = [_describe(s) for s in searches] + [_describe(s, "observed") for s in adaptive]
    summary += _lattice_lines(searches, args.minimize)
    summary.append(_header(ds, t.seconds))
    if fallback:
        summary.append(f"{args.ci_methods}: {fallback}")
    summary += _estimator_lines(ds, searches)
    summary += _scale_lines(ds)
    summary += _range_lines(ds, np.concatenate([s.scores for s in searches]))
    summary += _beyond_free_lines(ds)
    summary += _no_tail_lines(ds, searches)
    summary += interval_notes(ds)
    summary += _bound_lines(ds)
    summary += observed_lines(adaptive, searches)
    print("\n".join(summary))
    tables = _print_tables(ds, args, titled=ds.sizes["model"] > 1 or bool(adaptive))
    obs, observed = print_observed(args, adaptive)
    tables += observed
    checked = []
    if args.check:
        ds, checked = _self_check(args, searches, ds)
    if obs is not None:
        ds = ds.merge(obs)
    save_outputs(args, ds, lambda d, path: plot_curve_figure(
        d, path, x=args.x_axis, log_x=args.log_x, ci_method=args.plot_ci_method),
        _report_outputs(args, ds, searches + adaptive, summary, tables, checked))
    return 0


def _check_before_work(args):
    """Refuse, before any work, what the self-check and the other options cannot do, and
    names the tables or the figure cannot show."""
    if args.check and args.n_max is not None:
        raise UserError("--check measures coverage up to each model's B: run it without "
                        "--n-max")
    if args.check:  # before any work, and named by their own flags
        check_replicates(args.check_replicates, "check_replicates")
        if args.check_resamples is not None:
            check.integer(args.check_resamples, "check_resamples", minimum=2)
        kde_options(args.ci_methods, args.check_bandwidth, args.check_construction)
    _refuse_unused(args)
    _check_names(args)


def _print_tables(ds, args, titled):
    """Print the tables of ``ds`` (the curves under their titles where ``titled``, and the
    budgets that reach ``--target``); return them."""
    tables = curve_tables(ds, args.all)
    for table in tables:
        if table.key == "curve" and titled:
            print(f"\n{table.title}")
        elif table.key == "difference":
            print()
            print("\n".join(table.notes))
        if table.key != "budget":
            print("\n".join(table.lines()))
    if args.target is not None:
        print()
        print("\n".join(budget_lines(ds)))
    return tables


def _report_outputs(args, ds, searches, summary, tables, checked):
    """``[(path, write)]`` of ``--table`` and ``--html``, for :func:`save_outputs`."""
    from ..report.html import html_report

    checks = [b for b in checked if not isinstance(b, str)]
    items = []
    if args.table is not None:
        items.append((args.table, lambda tmp: write_tables(tables + checks, tmp)))
    if args.html is not None:
        def html(tmp):
            figure = dict(x=args.x_axis, log_x=args.log_x)
            text = html_report(
                ds, reading=reading_table(searches, args.minimize), summary=summary,
                tables=tables,
                curve_figure=plot_curve_figure(ds, ci_method=args.plot_ci_method,
                                               check=False, **figure),
                curve_caption=figure_caption(ds, args.plot_ci_method),
                check_summary=checked,
                check_figure=plot_check_coverage(ds, log_x=args.log_x) if checked else None)
            Path(tmp).write_text(text, encoding="utf-8")

        items.append((args.html, html))
    return items


#: seconds of estimators run on resamples beyond which a line says so, --quiet or not
SLOW = 10.0


def _note_slow_estimators(args, searches, target):
    """A line on stderr, --quiet or not, for each estimator that runs on every resample
    (one that is not an L-statistic, under a bootstrap method) and would take more than
    :data:`SLOW` seconds there: what runs, and about how long, by a timed run on the
    first model's scores (run times grow about as B)."""
    import sys
    import time

    from ..intervals.family import resolve_ci_methods
    from ..estimators.pyrun import search_counts

    ests = [e for e in resolve_estimators(args.estimators or ("V" if target.kind == "mean"
                                                              else "quantile"), target)
            if not e.is_lstatistic]
    if not ests or not any(m.kind == "bootstrap" for m in resolve_ci_methods(args.ci_methods)):
        return
    first = searches[0]
    sign = -1.0 if args.minimize else 1.0
    inside = inside_target(target, args.minimize)
    scale = sum(s.scores.size for s in searches) / first.scores.size
    for est, count in zip(ests, search_counts(ests, args.resamples, args.python_resamples,
                                              "python_resamples")):
        start = time.perf_counter()
        est.apply(np.sort(sign * first.scores), np.arange(1, first.scores.size + 1), inside)
        took = time.perf_counter() - start
        total = took * (count + 1) * scale
        if total > SLOW:
            print(f"note: {est.name} runs on the scores and on each of {count:,} resamples "
                  f"of every model: about {duration(total)} (one run on {first.label}'s "
                  f"scores took {took:.2g} s); --python-resamples sets the resamples",
                  file=sys.stderr, flush=True)


def _check_self_check(args, searches):
    """The self-check's arguments checked as it will check them (the memory its
    resamples need among them), before any work; a note where --workers starts more
    processes than its searches make batches for."""
    try:
        check_arguments(searches, **_self_check_options(args))
    except check.InvalidArgument as err:
        if err.argument != "resamples":  # --resamples is the curve's own
            raise
        raise UserError("--check-resamples: " + str(err).replace(
            "reduce resamples", "reduce --check-resamples")) from None
    note_idle_workers(args, args.check_replicates, COVERAGE_CHUNK, "searches of the self-check")


def _self_check_options(args):
    """The keywords of :func:`evpsim.self_check` from the flags."""
    return dict(estimators=args.estimators, curve=args.curve, ci_methods=args.ci_methods,
                level=args.level, bounds=args.bounds, minimize=args.minimize,
                replicates=args.check_replicates, resamples=args.check_resamples,
                seed=args.seed, bandwidth=args.check_bandwidth,
                construction=args.check_construction, workers=args.workers,
                stop=not args.check_full)


def _self_check(args, searches, ds):
    """Run and print the self-check: ``(ds with its results merged in, the lines printed
    but its coverage tables)``."""
    options = _self_check_options(args)
    # the range the curve's intervals knew, found from the scores or none, as given or not
    options["bounds"] = (NO_BOUNDS if str(ds["bounds_from"].values) == "none"
                         else (float(ds["bounds_lo"]), float(ds["bounds_hi"])))
    with Timer() as tc:
        chk = self_check(searches, progress=not args.quiet, **options)
    ds = ds.merge(chk, join="exact", compat="no_conflicts", combine_attrs="no_conflicts")
    ds.attrs.update(chk.attrs)
    blocks = _check_blocks(ds, args.all, tc.seconds)
    lines = []
    unlike, short, wide = fit_warnings(ds), coverage_warnings(ds), width_warnings(ds)
    for w in unlike + short + wide:
        lines.append(f"warning: {w}")
    if (ds["check_mass_dropped"] > FIT_DROPPED).any():
        counted = any(s.failed and s.failed_score is not None for s in searches)
        lines.append("to keep the mass lost at a bound: --check-construction tang2020 (not "
                     "clipped to the range) or a smaller --check-bandwidth"
                     + ("; if the failed trials counted at the worst score pile up there, "
                        "--failed drop leaves them out (the curve is then conditional on "
                        "success)" if counted else ""))
    elif unlike:
        lines.append("the KDE's bandwidth and construction can be chosen: --check-bandwidth, "
                     "--check-construction")
    level = ds.attrs["level"]
    if not short:
        lines.append(f"ok: coverage stayed within {SHORTFALL:g} of {level:.0%} at every n"
                     + (f", and the intervals within {WIDE:g} times the oracle's width"
                        if not wide else ""))
    elif "band" not in ds["ci_method_kind"].values.tolist():
        lines.append("distribution-free bands hold at every n whatever the distribution: try "
                     "--ci-methods ld-equal-tailed --bounds LO,HI")
    lines.append(f"note: the coverage bounds cover Monte Carlo error only, not the KDE's error "
                 f"as a model of your search; {model_error(ds)}")
    blocks += lines
    print()
    print("\n".join(_text(blocks)))
    return ds, blocks
