"""Command-line interface: ``python -m evpsim SUBCOMMAND`` or ``evpsim SUBCOMMAND``.

Each subcommand lives in its own module with ``add_parser(subparsers)``
(which sets ``run``) and ``run(args) -> exit status``. User errors print one
line and exit with status 2; set ``EVPSIM_DEBUG=1`` for the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .. import __version__
from .common import UserError

SUBCOMMANDS = ["bias", "listing", "fit_kde", "falseconc", "compare", "coverage", "reproduce"]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="evpsim",
        description="How much to trust expected-validation-performance curves: exact truths, "
                    "Monte Carlo over simulated hyperparameter searches, and the batteries "
                    "that measure EVP estimators.")
    parser.add_argument("--version", action="version", version=f"evpsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f".{name}", __name__).add_parser(sub)
    return parser


def main(argv=None):
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (UserError, ValueError, TypeError, OSError) as err:
        if os.environ.get("EVPSIM_DEBUG"):
            raise
        print(f"evpsim {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evpsim {args.command}: interrupted", file=sys.stderr)
        return 130
