"""Argument groups, output saving and table formatting shared by subcommands.

Defaults and choices come from the library (a function's signature, its
module's constants), never repeated here; values are parsed here and
validated by the library, whose messages name the argument and are mapped
to the flag by :func:`evpsim.cli.main`.
"""

from __future__ import annotations

import argparse
import inspect
import os
import textwrap
import time

from .._format import spans
from ..io.results import ENGINE
from ..io.results import FIGURE_SUFFIXES as FIGURES
from ..io.results import NETCDF_SUFFIXES as NETCDF
from ..io.results import atomic_write_all, check_output
from ..io.trials import NO_BOUNDS
from ..truths.distributions import list_truths, make_truth

__all__ = ["UserError", "GIVEN", "given", "refuse_unused", "refuse_unused_estimator_options",
           "refuse_unused_resamples", "note_idle_workers", "integer", "number", "default",
           "add_subcommand", "paragraph", "import_user_modules", "IMPORT_ENV",
           "epilog", "ci_methods_note", "add_truth_args", "truth_from_args",
           "add_estimator_arg", "add_mc_args", "add_output_args", "check_outputs",
           "add_curve_args", "budgets_from_args", "quick_from_args", "add_where_args", "where_from_args",
           "estimator_notes", "add_failed_args", "name_or_number",
           "save_outputs", "select_ns", "spans", "Timer"]

#: width of help text: argparse's on an 80-column terminal
HELP_WIDTH = 78
#: most budgets ``--n-max`` asks for (each is computed, kept and printable with ``--all``);
#: a few larger budgets go in ``--n``
MAX_BUDGETS = 100_000


class UserError(Exception):
    """An error in the user's input: printed as one line, exit status 2."""


#: the parsed arguments' ``{dest: flag}`` of the options given on the command line
GIVEN = "given_options"


def given(args, *dests):
    """``{dest: flag}`` of those of ``dests`` given on the command line (not defaults)."""
    noted = getattr(args, GIVEN, {})
    return {d: noted[d] for d in dests if d in noted}


def refuse_unused(args, dests, why):
    """Refuse an option of ``dests`` given on the command line where it would do nothing.

    The message is the option's flag followed by ``why``, which says what
    the option applies to and what to do, e.g. ``applies to the self-check:
    add --check, or drop it``.
    """
    for flag in given(args, *dests).values():
        raise UserError(f"{flag} {why}")


def integer(text):
    """argparse type: an integer, also written ``1e6`` or ``1_000_000``.

    Parsed exactly (``9223372036854775807`` and ``1e30`` are those
    integers, not the nearest floats). Only the form is checked here; the
    library checks the range.
    """
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not value.is_finite() or value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    if value.adjusted() > 30:  # keep messages short: no integer flag goes that far
        raise argparse.ArgumentTypeError(f"{text!r} is far too large")
    return int(value)


def integers(text):
    """argparse type: comma-separated integers (``10,20,50``)."""
    return [integer(part) for part in text.split(",")]


def number(text):
    """argparse type: a real number (range checked by the library)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def pair(text):
    """argparse type: ``LO,HI``."""
    try:
        lo, hi = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LO,HI (e.g. 0,1)") from None
    return lo, hi


def pair_or_none(text):
    """argparse type: ``LO,HI``, or ``none`` (any case) for no range at all.

    Examples
    --------
    >>> pair_or_none("0,1"), pair_or_none("None")
    ((0.0, 1.0), 'none')
    """
    if text.strip().lower() == NO_BOUNDS:
        return NO_BOUNDS
    try:
        return pair(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither LO,HI (e.g. 0,1) nor "
                                         f"{NO_BOUNDS}") from None


def name_or_number(names, named, number="a number"):
    """argparse type: one of ``names``, or a number (its range checked by the library).

    ``named`` and ``number`` say what the two kinds are, for the message.

    Examples
    --------
    >>> name_or_number(("worst", "drop"), "worst nor drop", "a score")("0.1")
    0.1
    """
    def parse(text):
        if text in names:
            return text
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is neither {named} nor "
                                             f"{number}") from None
    return parse


def add_failed_args(parser):
    """``--failed`` and ``--diverged``: what becomes of trials that failed or diverged.

    Their defaults are :func:`evpsim.read_searches`'; ``--bounds`` and
    ``--minimize``, which set the worst score, are the command's own.
    """
    from ..io.searchfiles import read_searches
    from ..io.trials import DIVERGED_RULES, FAILED_RULES

    rule = name_or_number(FAILED_RULES, " nor ".join(FAILED_RULES), "a score")
    parser.add_argument("--failed", type=rule, default=default(read_searches, "failed"),
                        metavar="worst|drop|VALUE",
                        help="trials that ran but gave no score (an empty learning curve, a "
                             "NaN or null score, a run flagged as diverged or failed without "
                             "one): count them at the worst score (the lower end of --bounds, "
                             "else the lowest observed; with --minimize, the upper end or the "
                             "highest), drop them (the curve is then conditional on success), "
                             "or count them at VALUE (default: %(default)s)")
    parser.add_argument("--diverged", choices=DIVERGED_RULES,
                        default=default(read_searches, "diverged"),
                        help="trials flagged as diverged (opda's nan_train_loss) or failed (a "
                             "state or status column saying FAIL): keep them, scored by their "
                             "checkpoints before diverging, or as failed trials (--failed) "
                             "when they have none; or drop every one of them (default: "
                             "%(default)s)")


def default(func, name):
    """The default of argument ``name`` of library function ``func``."""
    return inspect.signature(func).parameters[name].default


def paragraph(text):
    """``text`` wrapped to the width of help, never inside a hyphenated name."""
    return textwrap.fill(text, HELP_WIDTH, break_on_hyphens=False)


def epilog(examples, notes=()):
    """Help text ending with ``example:`` (or ``examples:``) and a line per command.

    Parameters
    ----------
    examples : list of str
        Command lines, each beginning with ``evpsim``, that run as shown in
        an empty folder (an example may use files an earlier one writes).
    notes : sequence of str
        Blocks printed as they are before the examples (see
        :func:`paragraph`).

    Examples
    --------
    >>> print(epilog(["evpsim list"]))
    example:
      evpsim list
    """
    head = "examples:" if len(examples) > 1 else "example:"
    return "\n\n".join([*notes, "\n".join([head, *(f"  {cmd}" for cmd in examples)])])


#: the environment variable naming modules to import before every command, comma-separated
IMPORT_ENV = "EVPSIM_IMPORT"


def add_subcommand(subparsers, name, help, description, examples, notes=()):
    """Add subcommand ``name``, its ``--help`` ending with its examples, and ``--import``.

    ``description`` is a paragraph; ``examples`` and ``notes`` are as in
    :func:`epilog`. The help formatter prints both as given, so that the
    examples' lines stay whole.
    """
    p = subparsers.add_parser(name, help=help, description=paragraph(description),
                              epilog=epilog(examples, notes),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--import", action="append", dest="imports", default=[], metavar="MODULE",
                   help=f"import this Python module first (repeatable; also the environment "
                        f"variable {IMPORT_ENV}, comma-separated), so that the estimators and "
                        f"CI methods it registers can be named; from the current folder or "
                        f"PYTHONPATH")
    return p


def import_user_modules(flags, environ):
    """Import the modules of ``--import`` (``flags``) and of ``EVPSIM_IMPORT`` in
    ``environ``, those of the variable first; a module that cannot be imported, raises or
    exits is a :class:`UserError` naming it and where it was named."""
    import importlib
    import os
    import sys

    named = [(m.strip(), f"{IMPORT_ENV}={environ[IMPORT_ENV]}")
             for m in environ.get(IMPORT_ENV, "").split(",") if m.strip()]
    named += [(m.strip(), f"--import {m}") for m in flags]
    if os.getcwd() not in sys.path:  # the console script does not look in the current folder
        sys.path.append(os.getcwd())
    for module, where in named:
        if not module or not all(part.isidentifier() for part in module.split(".")):
            raise UserError(f"{where}: {module!r} is not a module name (dotted Python "
                            f"identifiers, e.g. mymodule or mypackage.estimators)")
        try:
            importlib.import_module(module)
        except KeyboardInterrupt:
            raise
        except SystemExit as err:
            raise UserError(f"{where}: module {module} called sys.exit({err.code!r})") \
                from None
        except ModuleNotFoundError as err:
            missing = f"no module named {err.name!r}" if err.name else str(err)
            raise UserError(f"{where}: cannot import {module}: {missing} (in the current "
                            f"folder or on PYTHONPATH)") from None
        except BaseException as err:
            text = " ".join(str(err).split())
            raise UserError(f"{where}: module {module} raised {type(err).__name__}"
                            + (f": {text}" if text else "")) from None


def ci_methods_note():
    """The CI methods and what each is, a line each, for ``--help``."""
    from ..intervals.family import list_ci_methods

    methods = list_ci_methods()
    width = max(map(len, methods))
    return "\n".join(["CI methods (--ci-methods):"] + [
        textwrap.fill(f"  {name:<{width}}  {desc}", HELP_WIDTH, break_on_hyphens=False,
                      subsequent_indent=" " * (width + 4))
        for name, desc in methods.items()])


def add_truth_args(parser, flag="--dist", default="normal"):
    """``--dist`` and the truncated-normal and CSV options."""
    names = ", ".join(list_truths())
    parser.add_argument(flag, default=default, metavar="TRUTH",
                        help=f"ground truth: {names} (default: %(default)s)")
    g = parser.add_argument_group("truncated normal (--dist normal)")
    g.add_argument("--mu", type=number, help="mean of the normal (default 0.6)")
    g.add_argument("--sigma", type=number, help="standard deviation (default 0.07)")
    g.add_argument("--lo", type=number, help="lower truncation bound (default 0)")
    g.add_argument("--hi", type=number, help="upper truncation bound (default 1)")
    parser.add_argument("--column", help="column of a CSV score file (name or 0-based index); "
                                         "file: truths only")


def truth_from_args(args, attr="dist"):
    """Build the truth named by ``args.<attr>``."""
    return make_truth(getattr(args, attr), mu=args.mu, sigma=args.sigma, lo=args.lo,
                      hi=args.hi, column=args.column)


def add_estimator_arg(parser):
    parser.add_argument("--estimators", default=None, metavar="LIST",
                        help="comma-separated estimator names (default: the built-ins "
                             "U,V,W; see 'evpsim list')")


def add_curve_args(parser, budgets=True):
    """``--curve`` and, with ``budgets``, ``--n`` / ``--n-max`` (budgets beyond B)."""
    from ..estimators.targets import TARGET_HELP

    parser.add_argument("--curve", default="mean", metavar="CURVE",
                        help=f"the curve the estimators are judged against: {TARGET_HELP} "
                             f"(default: %(default)s)")
    if budgets:
        g = parser.add_mutually_exclusive_group()
        g.add_argument("--n", type=integers, default=None, metavar="LIST", dest="ns",
                       help="comma-separated budgets (default: 1..B); beyond B for "
                            "estimators that extrapolate")
        g.add_argument("--n-max", type=integer, default=None, metavar="N",
                       help="budgets 1..N, N >= B (beyond B for estimators that extrapolate)")


def budgets_from_args(args, B):
    """The budgets of ``--n`` or ``--n-max`` (None: the battery's default, 1..B).

    Checked here, before any list is built: ``--n-max`` at most
    :data:`MAX_BUDGETS` budgets and :data:`evpsim._validate.BEYOND` times B,
    every ``--n`` listed once.
    """
    from .. import _validate as check

    if getattr(args, "n_max", None) is not None:
        top = check.integer(args.n_max, "n_max", minimum=1)
        if top > check.BEYOND * B:
            check.n_max(top, B, "n_max")
        if top > MAX_BUDGETS:
            raise check.InvalidArgument("n_max", f"n_max must be at most {MAX_BUDGETS:,} (each "
                                                 f"budget 1..N is computed and kept; give a "
                                                 f"few larger ones with --n), got {top:,}")
        return list(range(1, top + 1))
    ns = getattr(args, "ns", None)
    return None if ns is None else check.budgets(ns, B).tolist()


#: set to 1, switches --quick on (tests run the documented commands at reduced sizes)
QUICK_ENV = "EVPSIM_QUICK"


def quick_from_args(args):
    """``--quick``, or the environment variable :data:`QUICK_ENV` set to 1.

    Any other value than 1, 0 or empty is an error rather than a silent
    full-size run.
    """
    value = os.environ.get(QUICK_ENV, "")
    if value.strip() not in ("", "0", "1"):
        raise UserError(f"the environment variable {QUICK_ENV} must be 1 (quick sizes) or 0, "
                        f"got {value!r}")
    return args.quick or value.strip() == "1"


def refuse_unused_estimator_options(args):
    """``--python-replicates`` and ``--bounds`` need an estimator written in Python among
    the run's (L-statistics run on every search and use no score range)."""
    from ..estimators.family import get_estimator, list_estimators, resolve_estimators
    from ..estimators.targets import as_target

    if not given(args, "python_replicates", "bounds"):
        return
    ests = resolve_estimators(args.estimators, as_target(args.curve or "mean"))
    if any(e.kind == "python" for e in ests):
        return
    python = [n for n in list_estimators() if get_estimator(n).kind == "python"]
    refuse_unused(args, ("python_replicates", "bounds"),
                  f"applies to estimators written in Python ({', '.join(python)}); the "
                  f"estimators here ({','.join(e.name for e in ests)}) are not: add one to "
                  f"--estimators, or drop it")


def refuse_unused_resamples(args, dests):
    """Options of ``dests`` (resample counts) need a bootstrap or resampling CI method
    among ``--ci-methods`` (default: some)."""
    from ..intervals.family import KINDS, resolve_ci_methods

    if args.ci_methods is None or not given(args, *dests):
        return
    if not any(KINDS[m.kind].resamples for m in resolve_ci_methods(args.ci_methods)):
        refuse_unused(args, dests, f"applies to bootstrap, resampling, order-statistic and "
                                   f"calibrated CI methods; "
                                   f"--ci-methods {args.ci_methods} resamples nothing: add "
                                   f"one, or drop it")


def add_where_args(group):
    """``--workers``, ``--cluster``, ``--scheduler``: where a sweep's cells run."""
    where = group.add_mutually_exclusive_group()
    where.add_argument("--workers", type=integer, default=1,
                       help="local worker processes (default: 1, in this process)")
    where.add_argument("--cluster", type=integer, metavar="N",
                       help="a local dask.distributed cluster of N single-threaded workers")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask scheduler, e.g. tcp://host:8786")


def where_from_args(args):
    """``(backend, workers)`` of :func:`evpsim.sweep` from :func:`add_where_args`' flags."""
    from .. import _validate as check

    if args.cluster is not None:
        check.integer(args.cluster, "cluster", minimum=1)
    backend = "dask" if args.cluster is not None or args.scheduler is not None else \
        "local" if args.workers > 1 else "process"
    return backend, args.workers if args.cluster is None else args.cluster


def estimator_notes(ds, unit="searches"):
    """``{estimator: what its reader must know}``: fewer searches than the run's, failures.

    For results with per-estimator ``replicates`` and ``failures`` (Python
    estimators run on the first of the run's searches and may fail on
    some); estimators that ran like every other have no entry.
    """
    out = {}
    for e in ds["estimator"].values:
        sub = ds.sel(estimator=e)
        notes = []
        if "replicates" in sub.coords and int(sub["replicates"]) != ds.attrs["replicates"]:
            notes.append(f"over the first {int(sub['replicates']):,} {unit} only "
                         f"({sub['kind'].item()} estimator)")
        if "failures" in ds and int(sub["failures"].max()) > 0:
            bad = sub["failures"].values
            where = sub["failures"].dims[-1]
            notes.append(f"failed on up to {int(bad.max()):,} of {int(sub['replicates']):,} "
                         f"{unit} ({where} = {spans(sub[where].values[bad > 0])}), left out")
        if notes:
            out[str(e)] = "; ".join(notes)
    return out


def note_idle_workers(args, replicates=None, chunk_size=None, what="replicates"):
    """One line on stderr when ``--workers`` starts more worker processes than the
    Monte Carlo run has batches of chunks to give them (an error would be too harsh:
    the result is the same). ``replicates`` and ``chunk_size`` default to the flags'
    (``what`` the replicates are, for the line)."""
    import sys

    from ..engine.montecarlo import MonteCarlo

    if args.workers <= 1:
        return
    replicates = args.replicates if replicates is None else replicates
    chunk_size = args.chunk_size if chunk_size is None else chunk_size
    batches = MonteCarlo(replicates, args.seed, chunk_size, args.workers).batches
    if batches < args.workers:
        print(f"note: --workers {args.workers}: the {replicates:,} {what} make "
              f"{batches} batch{'es' if batches > 1 else ''} of chunks, so at most {batches} "
              f"worker{'s' if batches > 1 else ''} compute{'' if batches > 1 else 's'}; the "
              f"others only start up", file=sys.stderr)


def add_B_arg(parser, func, what="trials per search"):
    """``--B`` with the library function's default."""
    parser.add_argument("--B", type=integer, default=default(func, "B"),
                        help=f"{what} (default: %(default)s)")


def add_mc_args(parser, func):
    """Replicates, seed, workers and chunk size, with ``func``'s defaults."""
    g = parser.add_argument_group("Monte Carlo")
    g.add_argument("--replicates", type=integer, default=default(func, "replicates"),
                   help="simulated searches (default: %(default)s)")
    g.add_argument("--seed", type=integer, default=default(func, "seed"),
                   help="seed (default: %(default)s)")
    g.add_argument("--workers", type=integer, default=default(func, "workers"),
                   help="worker processes; results do not depend on it; each pays a start-up "
                        "of a few seconds, so use them for runs of a minute or more "
                        "(default: %(default)s)")
    g.add_argument("--chunk-size", type=integer, default=default(func, "chunk_size"),
                   help="replicates per chunk; part of what a seed means (default: %(default)s)")


def add_output_args(parser, selection=True):
    """``--out``, ``--plot``, ``--quiet`` and, with ``selection``, ``--all``."""
    g = parser.add_argument_group("output")
    g.add_argument("--out", action="store_once", metavar="FILE.nc",
                   help="write the result Dataset as netCDF")
    g.add_argument("--plot", action="store_once", metavar="FILE.png",
                   help="draw the figure to this file (.png, .pdf or .svg)")
    if selection:
        g.add_argument("--all", action="store_true", help="print every n, not a selection")
    g.add_argument("--quiet", action="store_true", help="no progress line")


def check_outputs(args):
    """Fail before any work if an output cannot be written."""
    from pathlib import Path

    paths = {}
    for name, suffixes in (("out", NETCDF), ("plot", FIGURES)):
        path = getattr(args, name, None)
        if path is not None:  # an empty --out "" is an error, not "no output"
            paths[name] = check_output(path, suffixes, name).resolve()
    if len(paths) == 2 and paths["out"] == paths["plot"]:
        raise UserError(f"--out and --plot name the same file {str(Path(args.out))!r}")


def save_outputs(args, ds, plot_fn, extra=()):
    """Write ``--out``, ``--plot`` and the ``(path, write)`` items of ``extra`` (a
    command's own outputs, see :func:`evpsim.io.results.atomic_write_all`) all or
    nothing, and say so."""
    items = []
    if getattr(args, "out", None):
        items.append((args.out, lambda tmp: ds.to_netcdf(tmp, engine=ENGINE)))
    if getattr(args, "plot", None):
        items.append((args.plot, lambda tmp: plot_fn(ds, tmp)))
    for path in atomic_write_all([*items, *extra]):
        print(f"wrote {path}")


def select_ns(B, show_all=False, ns=None):
    """A readable selection of budgets: 1, 2, multiples of a step, B.

    With ``ns`` (the budgets a result holds, maybe beyond B), a selection
    of those, B among them when it is one.
    """
    if ns is not None:
        ns = [int(n) for n in ns]
        if show_all or len(ns) <= 12:
            return ns
        top = ns[-1]
        keep = set(select_ns(top)) | ({B} if B in ns else set())
        return [n for n in ns if n in keep] or ns
    if show_all or B <= 12:
        return list(range(1, B + 1))
    step = max(1, int(round(B / 6 / 5)) * 5) if B >= 30 else max(1, B // 6)
    picks = {1, 2, B} | set(range(step, B, step))
    return sorted(picks)


class Timer:
    """Context manager measuring wall time in ``.seconds``."""

    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False
