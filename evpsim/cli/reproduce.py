"""``evpsim reproduce PAPER --out DIR``: one-command reproductions."""

from ..reproduce import PAPERS, reproduce

HELP = "reproduce a paper's simulations, figures and a claims summary"


def add_parser(subparsers):
    p = subparsers.add_parser(
        "reproduce", help=HELP, description=(
            "Run everything behind a paper's figures; write netCDF of every number, the "
            "figures, and DIR/summary.md setting each claim beside evpsim's number."),
        epilog="example: evpsim reproduce dodge2019 --out repro/dodge2019")
    p.add_argument("paper", choices=sorted(PAPERS), help="which paper")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--data", metavar="DIR",
                   help="folder of the real search results (default: $EVPSIM_DATA or "
                        "../shared/data beside the repository)")
    p.add_argument("--quick", action="store_true", help="reduced sizes (for tests)")
    p.set_defaults(run=run)
    return p


def run(args):
    report = reproduce(args.paper, args.out, data=args.data, quick=args.quick, verbose=True)
    print(report.markdown())
    print(f"wrote {len(report.files)} files to {args.out}")
    return 0
