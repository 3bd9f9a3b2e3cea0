"""Command-line interface: ``python -m evpsim SUBCOMMAND`` or ``evpsim SUBCOMMAND``.

Each subcommand lives in its own module with ``HELP`` (its line in the
overview), ``add_parser(subparsers)`` (which sets ``run`` and returns the
parser) and ``run(args) -> exit status``. ``evpsim`` alone prints an
overview. User errors print one line and exit with status 2; set
``EVPSIM_DEBUG=1`` for the traceback. Every subcommand first imports the
modules of ``--import`` and of the environment variable ``EVPSIM_IMPORT``
(:func:`evpsim.cli.common.import_user_modules`), so that estimators and CI
methods registered there can be named.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys

from .._startup import compile_notice, end_now, release
from .._validate import InvalidArgument, os_reason
from .._version import __version__
from ..engine.threads import shutdown as shutdown_threads
from .common import GIVEN, UserError, epilog, import_user_modules, paragraph

#: subcommand modules in the overview's groups
GROUPS = {
    "your own search results:": ["curve", "fit_kde"],
    "batteries (how EVP estimators behave on simulated searches):":
        ["bias", "coverage", "falseconc", "compare", "sweep", "leaderboard"],
    "papers and shipped data:": ["reproduce", "listing"],
}
SUBCOMMANDS = [module for modules in GROUPS.values() for module in modules]
#: the overview's first command: runs in an empty folder on a fresh install
FIRST_COMMAND = "evpsim curve data:reuters-mlp data:reuters-lstm --labels MLP,LSTM"


class _StoreOnce(argparse._StoreAction):
    """``store``, for an option that names one thing (an output file): given twice, it is
    refused, where ``store`` would keep the last and silently drop the first."""


#: the actions whose options are noted when given (see :func:`.common.given`)
_NOTED_ACTIONS = (None, "store", "store_const", "store_true", "store_false", "append",
                  "append_const", "count", "extend", "store_once")
_noting_classes = {}


def _noting(cls):
    """``cls``, also noting in the parsed arguments that its option was given."""
    if cls not in _noting_classes:
        def __call__(self, parser, namespace, values, option_string=None):
            flag = max(self.option_strings, key=len) if self.option_strings else None
            given = vars(namespace).setdefault(GIVEN, {})
            if issubclass(cls, _StoreOnce) and self.dest in given:
                parser.error(f"argument {flag}: given twice ({getattr(namespace, self.dest)!r} "
                             f"and {values!r}): give it once")
            cls.__call__(self, parser, namespace, values, option_string)
            if option_string is not None:
                given[self.dest] = flag

        _noting_classes[cls] = type(f"Noting{cls.__name__}", (cls,), {"__call__": __call__})
    return _noting_classes[cls]


class Parser(argparse.ArgumentParser):
    """argparse, with errors on one line and negative numbers such as ``-1e3`` as values.

    A usage error prints ``evpsim SUBCOMMAND: error: MESSAGE`` on stderr
    and exits with status 2, like every other user error. The options given
    on the command line, not left at their defaults, are noted in the
    parsed arguments (:func:`.common.given`).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse takes '-1e300', '-inf' and '-1,0' (--bounds) for options unless told
        # otherwise: a negative number, maybe followed by more after commas
        number = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf(inity)?"
        self._negative_number_matcher = re.compile(
            rf"^-({number})(,\s*-?({number}))*$", re.IGNORECASE)
        self.register("action", "store_once", _StoreOnce)
        for name in _NOTED_ACTIONS:
            self.register("action", name, _noting(self._registry_get("action", name)))

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    """The ``evpsim`` parser; its description and epilog are the overview."""
    parser = Parser(prog="evpsim", usage="%(prog)s [-h] [--version] COMMAND ...",
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"evpsim {__version__}")
    # the commands are listed, grouped, in the description, not by argparse
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="evpsim",
                                help=argparse.SUPPRESS)
    lines = [paragraph(f"evpsim {__version__}: expected validation performance (EVP) curves, "
                       f"the expected best score after n hyperparameter trials, and how far "
                       f"to trust them."), ""]
    for title, modules in GROUPS.items():
        lines.append(title)
        for name in modules:
            module = importlib.import_module(f".{name}", __name__)
            command = module.add_parser(sub).prog.rpartition(" ")[2]
            lines.append(f"  {command:<11} {module.HELP}")
    parser.description = "\n".join(lines)
    parser.epilog = epilog([FIRST_COMMAND], [
        "data:NAME names a search shipped with evpsim ('evpsim list' shows them);\n"
        "'evpsim COMMAND --help' shows a command's options and examples."])
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


#: an argument in the library's spelling inside a message: ``group='model'``,
#: ``bounds=(lo, hi)``, ``distribution=True``, ``lo=1``
_SPELLED = re.compile(r"(?<![\w.-])([a-z_]+)=(\([^()]*\)|'[^']*'|True\b|[\w.+-]*\w)")


def _flags(subparser):
    """``{library argument: flag}`` of a subcommand (its longest option string).

    A flag stands for the library argument of its own name, or for the one
    that the subcommand's default ``argument_flags = {library name: dest}``
    maps to its dest.
    """
    by_dest = {action.dest: max(action.option_strings, key=len)
               for action in subparser._actions if action.option_strings}
    names = {dest: dest for dest in by_dest}
    names.update({name: dest for name, dest in
                  (subparser.get_default("argument_flags") or {}).items()})
    return {name: by_dest[dest] for name, dest in names.items() if dest in by_dest}


def _flag_value(value):
    """A Python value as a command line writes it: ``(lo, hi)`` as ``LO,HI``."""
    if value.startswith("("):
        parts = [p.strip() for p in value[1:-1].split(",")]
        return ",".join(p.upper() if p.isidentifier() else p for p in parts)
    return value.strip("'")


def flag_message(err, subparser):
    """The library's message in the subcommand's flags.

    The argument's name opening the message becomes its flag:
    ``replicates must be at least 2`` becomes ``--replicates must be at
    least 2``; an argument without a flag keeps the library's words. Every
    argument written in the library's spelling inside the message
    (``name=value``, the convention of the library's messages) becomes the
    flag's: ``pass group='model'`` becomes ``pass --group model``,
    ``bounds=(lo, hi)`` becomes ``--bounds LO,HI``, ``distribution=True``
    becomes ``--distribution``. A subcommand whose flag stands for a
    library argument of another name says so with the default
    ``argument_flags = {library name: dest}``.
    """
    text, name = str(err), err.argument
    flags = _flags(subparser)

    def spelled(match):
        flag = flags.get(match.group(1))
        if flag is None:
            return match.group(0)
        value = match.group(2)
        return flag if value == "True" else f"{flag} {_flag_value(value)}"

    flag = flags.get(name)
    if flag is not None:
        text = flag + text[len(name):] if text.startswith(name) else f"{flag}: {text}"
    return _SPELLED.sub(spelled, text)


def main(argv=None):
    """Entry point; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "run", None):
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        print(f"{parser.description}\n\n{parser.epilog}")
        return 0
    if extra:
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    from ..io.results import command_line

    command_line(["evpsim", *(sys.argv[1:] if argv is None else argv)])
    previous = signal.signal(signal.SIGTERM, _terminate)
    release()  # from here on, Ctrl-C is a KeyboardInterrupt handled below
    if args.command != "list":
        compile_notice()
    try:
        import_user_modules(args.imports, os.environ)
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
        elif isinstance(err, OSError):  # not the system's "[Errno 28] ..." text
            text = (f"{os.fsdecode(err.filename)!r}: " if err.filename else "") + os_reason(err)
        # one line, whatever the message
        text = "; ".join(ln.strip() for ln in text.splitlines() if ln.strip()) \
            or type(err).__name__
        print(f"evpsim {args.command}: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evpsim {args.command}: interrupted", file=sys.stderr)
        interrupted = 130
    except Terminated:
        print(f"evpsim {args.command}: terminated", file=sys.stderr)
        interrupted = 143
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutdown_threads()
    # not waiting for the kernel calls still running on other threads
    return end_now(interrupted)
