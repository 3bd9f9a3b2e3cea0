"""``evpsim fit-kde``: fit a discretized KDE ground truth to real scores."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._format import interval, number
from ..io.formats.jsonlines import REDUCTIONS
from ..io.search import describe_reading
from ..studies.selfcheck import FIT_DROPPED, mass_lost
from ..truths.kde import CONSTRUCTIONS, RULES, check_name, fit_kde, load_kde, mass_outside
from .common import (UserError, add_failed_args, add_subcommand, check_outputs, default, integer,
                     pair, paragraph, save_outputs)

HELP = "fit a KDE ground truth to the scores of a real search"


def _bandwidth(text):
    """argparse type: a rule name or a positive number."""
    if text in RULES:
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a rule ({', '.join(RULES)}) nor a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive bandwidth")
    return value


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "fit-kde", HELP, description=(
            "Fit a discretized Gaussian KDE to the scores of a real search (Tang et al. 2020, "
            "section 4.1) and write it as netCDF, for use as a ground truth: --dist "
            "kde:FILE.nc. Interval masses are exact differences of the Gaussian mixture's "
            "CDF."),
        notes=[paragraph("Your own scores: a file with one score per line, a CSV file with "
                         "--column NAME, or JSON Lines such as allentune's results.jsonl with "
                         "--field best_validation_accuracy --group model --select MODEL.")],
        examples=["evpsim fit-kde data:reuters-lstm --name my-lstm --construction centered "
                  "--bounds 0,1 --out my-lstm.nc",
                  "evpsim bias --dist kde:my-lstm.nc --B 50 --method exact"])
    p.add_argument("input", metavar="INPUT",
                   help="scores: one per line, a CSV file (--column), or JSON Lines such as "
                        "allentune's results.jsonl or opda's learning curves (--field); "
                        "data:NAME for a search shipped with evpsim (see 'evpsim list')")
    p.add_argument("--name", required=True, help="name of the fit (letters, digits, . _ -)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--column", help="column of a CSV file (name or 0-based index)")
    src.add_argument("--field", help="key of JSON Lines records; a dotted path reaches nested "
                                     "objects and lists (e.g. best_validation_accuracy, "
                                     "learning_curve.top_1, learning_curves.matched.*.1)")
    p.add_argument("--group", metavar="FIELD",
                   help="field (JSON Lines) or column (CSV) naming the model, for a file holding "
                        "several (allentune: model); fit one with --select")
    p.add_argument("--select", metavar="VALUE", help="the model to fit: a value of --group")
    p.add_argument("--reduce", choices=REDUCTIONS,
                   help="one score per trial from a --field holding a learning curve: its best, "
                        "worst or last checkpoint")
    add_failed_args(p)
    p.add_argument("--minimize", action="store_true",
                   help="the scores are losses: the worst score, at which failed trials count, "
                        "is the highest")
    p.add_argument("--bandwidth", type=_bandwidth, default=default(fit_kde, "bandwidth"),
                   metavar="RULE",
                   help=f"{', '.join(RULES)}, or a number (default: %(default)s); cv "
                        "maximises the leave-one-out likelihood of the scores")
    p.add_argument("--construction", choices=CONSTRUCTIONS,
                   default=default(fit_kde, "construction"),
                   help="masses at the intervals' left edges on Tang et al.'s unclipped grid, "
                        "or at bin centres on a grid clipped to --bounds (default: %(default)s)")
    p.add_argument("--bins", type=integer, default=default(fit_kde, "bins"),
                   help="number of grid intervals (default: %(default)s)")
    p.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the metric's range, e.g. 0,1 (centered construction only)")
    p.add_argument("--model", help="what was tuned, for the description (e.g. 'SST-2 LSTM')")
    p.add_argument("--metric", help="the metric, for the description (e.g. 'dev accuracy')")
    p.add_argument("--out", action="store_once", metavar="FILE.nc", help="where to write the fit (default: NAME.nc)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw the discretized density over the scores' histogram")
    p.set_defaults(run=run)
    return p


def run(args):
    check_name(args.name)  # before it names the default output file
    if args.out is None:
        args.out = f"{args.name}.nc"
    check_outputs(args)
    from ..io.shipped import read_results

    searches = read_results([args.input], column=args.column, field=args.field,
                            group=args.group, select=args.select, reduce=args.reduce,
                            diverged=args.diverged, failed=args.failed, bounds=args.bounds,
                            minimize=args.minimize)
    path = Path(searches[0].source)
    if len(searches) > 1:
        raise UserError(f"{path.name!r} holds {len(searches)} models "
                        f"({', '.join(s.label for s in searches)}): fit-kde fits one; choose it "
                        f"with --select")
    search = searches[0]
    scores = search.scores
    model = args.model
    if model is None and args.group is not None:
        model = search.label  # the selected model, for the description
    fit = fit_kde(scores, bandwidth=args.bandwidth, construction=args.construction,
                  bins=args.bins, bounds=args.bounds, name=args.name, model=model,
                  metric=args.metric, source=path.name)
    truth = load_kde(fit)
    a = fit.attrs
    theta = truth.theta([1, scores.size])
    print(f"fit {a['name']}: {a['description']}")
    print(f"  scores: {a['runs']} from {path.name}"
          + (f" ({args.group} {search.label})" if args.group else "")
          + f", in {interval(a['scores_min'], a['scores_max'], number)}")
    read = describe_reading(search, "the fit")
    if read:
        print(f"  read: {read.removeprefix('; ')}")
    print(f"  bandwidth: {number(a['bandwidth'])} ({a['bandwidth_rule']})")
    print(f"  grid: {a['bins']} intervals on {interval(a['grid_lo'], a['grid_hi'], number)}; "
          f"KDE mass outside it (dropped): {number(a['mass_outside_grid'], 3)}")
    if args.bounds is not None and a["mass_outside_grid"] > FIT_DROPPED:
        below, above = mass_outside(fit, scores)
        print(f"  mass lost at the bounds: {mass_lost(below, above, *args.bounds)}, spilled by "
              f"scores piled up near the bound (such as failed trials counted at the worst "
              f"score, or runs at chance level); renormalised, the KDE holds fewer scores there "
              f"than the search. To keep it: --construction tang2020 (not clipped to the range) "
              f"or a smaller --bandwidth"
              + ("; --failed drop leaves the failed trials out (the fit is then of the trials "
                 "that succeeded)" if search.failed and search.failed_score is not None else ""))
    print(f"  exact theta_1 = {number(theta[0])}, theta_{scores.size} = {number(theta[1])}")
    from ..report import plot_kde

    save_outputs(args, fit, lambda ds, path: plot_kde(ds, scores, path))
    print(f"use the fit as --dist kde:{args.out}")
    return 0
