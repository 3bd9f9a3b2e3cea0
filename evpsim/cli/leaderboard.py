"""``evpsim leaderboard``: which estimator and which interval, over every truth, B and n."""

from __future__ import annotations

import sys

from ..io.results import check_output_folder
from . import Terminated
from .common import (QUICK_ENV, Timer, UserError, add_subcommand, add_where_args, integer,
                     integers, quick_from_args, where_from_args)
from .sweep import names

HELP = "rank every estimator and interval over every truth, budget and n"
#: what the resampling CI methods add to a run: CPU time of the default --quick run with
#: and without them, side by side in one process, twice each (wall times, on a shared
#: machine, were too noisy to say more)
RESAMPLING_COST = ("a --quick run took 1.5-1.6 times the CPU time of one without them (24-26 s "
                   "against 16 s; full sizes not measured)")


def add_parser(subparsers):
    from ..studies.leaderboard import BUDGETS

    p = add_subcommand(
        subparsers, "leaderboard", HELP, description=(
            "Run every registered estimator (the slow ones when asked) and every registered CI "
            "method, the resampling ones included (they bound the mean curve only), on every "
            "truth evpsim knows (the truncated normals, the bag, every committed "
            "KDE fit, every shipped search as its own truth), B in "
            f"{{{', '.join(map(str, BUDGETS))}}}, n on a log grid up to 2B (beyond B for "
            "estimators that extrapolate), for the mean and the median curve. Per cell: "
            "bias, SD and RMSE (exact for L-statistics and estimators with known moments, "
            "Monte Carlo with standard errors otherwise) and the coverage and width of every "
            "interval. Writes DIR/leaderboard.nc, leaderboard.md (tables per curve and B), "
            "summary.md and figures. Cells are checkpointed in DIR/cells: a run stopped and "
            "started again resumes."),
        examples=["evpsim leaderboard --quick --out leaderboard-quick",
                  "evpsim leaderboard --out leaderboard --workers 2"])
    p.add_argument("--out", action="store_once", required=True, metavar="DIR", help="output folder")
    _add_grid_args(p.add_argument_group("the grid"))
    _add_size_args(p.add_argument_group("sizes"))
    add_where_args(p.add_argument_group("where cells run"))
    p.add_argument("--quiet", action="store_true", help="no progress line")
    # the cells' messages name B, truth and curve: the flags --B, --truths, --curves
    p.set_defaults(run=run, argument_flags={"Bs": "Bs", "B": "Bs", "truths": "truths",
                                            "truth": "truths", "dist": "truths",
                                            "curve": "curves"})
    return p


def _add_grid_args(g):
    """The group "the grid": truths, budgets, curves, estimators, CI methods.

    Parameters
    ----------
    g : argparse._ArgumentGroup
        The group, of the parser of ``evpsim leaderboard``.
    """
    from ..intervals.family import CURVE_CI_METHOD
    from ..studies.leaderboard import BUDGETS, CURVES, QUICK

    g.add_argument("--truths", type=names, metavar="LIST",
                   help="truth specs (default: every truth evpsim knows; --quick: "
                        f"{','.join(QUICK['truths'])})")
    g.add_argument("--B", type=integers, metavar="LIST", dest="Bs",
                   help=f"budgets (default: {','.join(map(str, BUDGETS))}; --quick: "
                        f"{','.join(map(str, QUICK['Bs']))})")
    g.add_argument("--curves", type=names, metavar="LIST", default=list(CURVES),
                   help=f"curves (default: {','.join(CURVES)})")
    g.add_argument("--estimators", metavar="LIST",
                   help="estimators (default: every registered one but the slow "
                        "opda-parametric; 'all' for every one; your own registered or "
                        "plugin estimators by name)")
    g.add_argument("--ci-methods", metavar="LIST",
                   help=f"CI methods (default: every registered one, so {CURVE_CI_METHOD}, "
                        "curve's default, is among them: the bootstrap, resampling, band, "
                        "betting and order-statistic kinds (the calibrated kind only when named); "
                        "order-statistic, curve's default for a "
                        "quantile curve, bounds the quantile curves only; the resampling ones "
                        "bound the mean curve only, and cost: "
                        f"{RESAMPLING_COST}; name fewer to save it, e.g. "
                        f"percentile,{CURVE_CI_METHOD},ld-equal-tailed)")


def _add_size_args(s):
    """The group "sizes": --quick, the Monte Carlo sizes and the seed.

    Parameters
    ----------
    s : argparse._ArgumentGroup
        The group, of the parser of ``evpsim leaderboard``.
    """
    from ..studies.leaderboard import SIZES

    full, quick = SIZES["full"], SIZES["quick"]
    s.add_argument("--quick", action="store_true",
                   help=f"a small grid and sizes, in a few minutes (also on with "
                        f"{QUICK_ENV}=1): {quick['replicates']:,} searches, "
                        f"{quick['coverage_replicates']} coverage samples x "
                        f"{quick['resamples']} resamples")
    s.add_argument("--replicates", type=integer,
                   help=f"Monte Carlo searches of the bias battery (default: "
                        f"{full['replicates']:,})")
    s.add_argument("--coverage-replicates", type=integer, metavar="M",
                   help=f"samples of the coverage battery per cell (default: "
                        f"{full['coverage_replicates']:,})")
    s.add_argument("--samples", type=integer, dest="samples",
                   help="deprecated name of --coverage-replicates")
    s.add_argument("--resamples", type=integer,
                   help=f"bootstrap resamples (default: {full['resamples']:,})")
    s.add_argument("--python-replicates", type=integer, metavar="M",
                   help="searches of every Python estimator (default: kde "
                        f"{full['python_replicates']['kde']}, opda-parametric "
                        f"{full['python_replicates']['opda-parametric']}, others as "
                        "--replicates)")
    s.add_argument("--seed", type=integer, default=0, help="seed of every cell (default: 0)")


def run(args):
    from ..report.leaderboard import estimator_table, write_report
    from ..studies.leaderboard import leaderboard

    out = check_output_folder(args.out)
    quick = quick_from_args(args)
    if args.samples is not None:
        print("evpsim leaderboard: --samples is deprecated; use --coverage-replicates",
              file=sys.stderr)
        if args.coverage_replicates is not None:
            raise UserError("give --coverage-replicates only (--samples is its deprecated name)")
        args.coverage_replicates = args.samples
    sizes = {k: getattr(args, k) for k in ("replicates", "coverage_replicates", "resamples",
                                            "python_replicates") if getattr(args, k) is not None}
    backend, workers = where_from_args(args)
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with Timer() as t:
            ds = leaderboard(truths=args.truths, Bs=args.Bs, curves=args.curves,
                             estimators=args.estimators, ci_methods=args.ci_methods,
                             size="quick" if quick else "full", seed=args.seed,
                             store=out / "cells", backend=backend, workers=workers,
                             scheduler=args.scheduler, progress=not args.quiet, **sizes)
    except (ValueError, TypeError):  # refused before any cell: leave nothing behind
        if made and not any(out.iterdir()):
            out.rmdir()
        raise
    except (KeyboardInterrupt, Terminated):
        if (out / "cells").is_dir():
            print(f"evpsim leaderboard: the finished cells are kept in {str(out / 'cells')!r}; "
                  f"run the same command again to resume", file=sys.stderr)
        raise
    print(f"leaderboard: {ds.sizes['dist']} truths x B in "
          f"{{{', '.join(map(str, ds['B'].values))}}} x curves "
          f"{', '.join(map(str, ds['curve'].values))}; {ds.attrs['cells_computed']} cells "
          f"computed, the rest kept in {out / 'cells'}; {t.seconds:.1f} s")
    for curve in ds["curve"].values:
        for B in ds["B"].values:
            print(f"\n{curve} curve, B = {B}")
            print("\n".join(estimator_table(ds, curve, B)))
    for path in write_report(ds, out):
        print(f"wrote {path}")
    return 0
