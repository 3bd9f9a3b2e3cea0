"""Command-line interface: ``python -m evpsim SUBCOMMAND`` or ``evpsim SUBCOMMAND``.

Each subcommand lives in its own module with ``add_parser(subparsers)``
(which sets ``run``) and ``run(args) -> exit status``. User errors print one
line and exit with status 2; set ``EVPSIM_DEBUG=1`` for the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys

from .._validate import InvalidArgument
from .._version import __version__
from .common import UserError

SUBCOMMANDS = [
    "curve", "bias", "listing", "fit_kde", "falseconc", "compare", "coverage", "reproduce"]


class Parser(argparse.ArgumentParser):
    """argparse, with errors on one line and negative numbers such as ``-1e3`` as values.

    A usage error prints ``evpsim SUBCOMMAND: error: MESSAGE`` on stderr
    and exits with status 2, like every other user error.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse takes '-1e300' and '-inf' for options unless told otherwise
        self._negative_number_matcher = re.compile(
            r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-inf(inity)?$", re.IGNORECASE)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    parser = Parser(
        prog="evpsim",
        description="How much to trust expected-validation-performance curves: exact truths, "
                    "Monte Carlo over simulated hyperparameter searches, and the batteries "
                    "that measure EVP estimators.")
    parser.add_argument("--version", action="version", version=f"evpsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f".{name}", __name__).add_parser(sub)
    return parser


def _subparser(parser, command):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    return parser  # pragma: no cover


class Terminated(BaseException):
    """SIGTERM, raised so that files being written are removed on the way out."""


def _terminate(signum, frame):
    raise Terminated


def flag_message(err, subparser):
    """The library's message, its argument's name replaced by the subcommand's flag.

    ``replicates must be at least 2`` becomes ``--replicates must be at
    least 2``; an argument without a flag keeps the library's words. A
    subcommand whose flag stands for a library argument of another name
    says so with the default ``argument_flags = {library name: dest}``.
    """
    text, name = str(err), err.argument
    dest = (subparser.get_default("argument_flags") or {}).get(name, name)
    for action in subparser._actions:
        if action.dest == dest and action.option_strings:
            flag = max(action.option_strings, key=len)
            return flag + text[len(name):] if text.startswith(name) else f"{flag}: {text}"
    return text


def main(argv=None):
    """Entry point; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "run", None):
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser.error(f"choose a command: {', '.join(commands.choices)}")
    if extra:
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.run(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (UserError, ValueError, TypeError, OSError, MemoryError) as err:
        if os.environ.get("EVPSIM_DEBUG"):
            raise
        text = flag_message(err, _subparser(parser, args.command)) \
            if isinstance(err, InvalidArgument) else str(err)
        if isinstance(err, MemoryError):
            text = "out of memory; reduce the sizes of the request"
        # one line, whatever the message
        text = "; ".join(ln.strip() for ln in text.splitlines() if ln.strip()) \
            or type(err).__name__
        print(f"evpsim {args.command}: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evpsim {args.command}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"evpsim {args.command}: terminated", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)
