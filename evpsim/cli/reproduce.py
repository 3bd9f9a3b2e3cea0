"""``evpsim reproduce PAPER --out DIR``: one-command reproductions."""

import sys
from pathlib import Path

from ..reproduce import PAPERS, reproduce
from . import Terminated
from .common import QUICK_ENV, UserError, add_subcommand, add_where_args, quick_from_args

HELP = "reproduce a paper's simulations, figures and a claims summary"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "reproduce", HELP, description=(
            "Run everything behind a paper's figures; write netCDF of every number, the "
            "figures, and DIR/summary.md setting each claim beside evpsim's number."),
        examples=["evpsim reproduce dodge2019 --out repro-dodge2019",
                  "evpsim reproduce intervals --out repro-intervals --workers 2 "
                  "--store intervals-cells"])
    p.add_argument("paper", choices=sorted(PAPERS), help="which paper")
    p.add_argument("--out", action="store_once", required=True, metavar="DIR", help="output folder")
    p.add_argument("--data", metavar="DIR",
                   help="folder of the original search files that evpsim may not ship, e.g. "
                        "the SST runs (default: $EVPSIM_DATA); without it the shipped data "
                        "and the committed KDE fits are used, and summary.md in the --out "
                        "folder says what was substituted or skipped")
    p.add_argument("--quick", action="store_true",
                   help=f"reduced sizes, for tests; also on when the environment variable "
                        f"{QUICK_ENV}=1")
    where = p.add_argument_group(
        "where cells run (intervals, whose cells run on the sweep engine)")
    add_where_args(where)
    where.add_argument("--store", metavar="DIR",
                       help="checkpoint folder of the cells (default: the folder "
                            "$EVPSIM_STUDY_STORE names, else none): each finished cell is "
                            "kept there, and the same command run again resumes from them")
    p.set_defaults(run=run)
    return p


def run(args):
    import importlib

    if args.data is not None and not importlib.import_module(
            f"..reproduce.{PAPERS[args.paper]}", __package__).data_files():
        raise UserError(f"--data applies to papers that read search files; reproduce "
                        f"{args.paper} reads none: drop it")
    quick = quick_from_args(args)
    try:
        report = reproduce(args.paper, args.out, data=args.data, quick=quick, verbose=True,
                           workers=args.workers, scheduler=args.scheduler,
                           cluster=args.cluster, store=args.store)
    except (KeyboardInterrupt, Terminated):
        if args.store is not None and Path(args.store).is_dir():
            kept = len(list(Path(args.store).glob("cell-*.nc")))
            print(f"evpsim reproduce: {kept} finished cells are kept in {args.store!r}; run "
                  f"the same command again to resume", file=sys.stderr)
        raise
    print(report.markdown())
    print(f"wrote {len(report.files)} files to {args.out}")
    return 0
