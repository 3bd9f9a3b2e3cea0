"""``evpsim sweep``: one battery over a grid of truths and budgets, on one machine or many."""

from __future__ import annotations

import argparse
import shlex
import sys

from . import Terminated
from .common import (Timer, UserError, add_output_args, add_subcommand, add_where_args,
                     check_outputs, default, integer, number, pair,
                     refuse_unused_estimator_options, save_outputs, where_from_args)

HELP = "a battery over a grid of truths x B, checkpointed, on local workers or dask"


def _sweep_defaults(option):
    """``option``'s sweep default per battery, for ``--help``."""
    from ..engine.sweeps.grid import BATTERIES

    return "; ".join(f"{name} {value:,}" if isinstance(value, int) else f"{name} {value}"
                     for name, b in BATTERIES.items()
                     for value in [b.options.get(option)] if option in b.options)


def budgets(text):
    """argparse type of ``--B``: comma-separated budgets or ranges ``LO:HI[:STEP]``."""
    values = []
    for part in text.split(","):
        lo, sep, rest = part.partition(":")
        if not sep:
            values.append(integer(part))
            continue
        hi, _, step = rest.partition(":")
        lo, hi, step = integer(lo), integer(hi), integer(step) if step else 1
        if lo > hi or step < 1:
            raise argparse.ArgumentTypeError(f"{part!r}: a range LO:HI[:STEP] needs LO <= HI "
                                             f"and STEP >= 1")
        values.extend(range(lo, hi + 1, step))
    return values


def names(text):
    """argparse type of a comma-separated list of truths."""
    return [part.strip() for part in text.split(",")]


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "sweep", HELP, description=(
            "Run one battery (bias, coverage, falseconc or compare) for every cell of a grid: "
            "every truth in --dist (compare: every --a x --b) at every B in --B. Each finished "
            "cell is kept in a checkpoint store, so a sweep stopped at any point and run again "
            "with the same arguments computes only the missing cells (Ctrl-C or SIGTERM stops "
            "it at once and prints the command that resumes it). Cells run in this "
            "process, on --workers local processes, or on a dask.distributed cluster "
            "(--scheduler ADDRESS, or --cluster N local workers). Every cell runs its battery "
            "with --seed, so a cell's numbers depend only on the seed and the cell itself, "
            "wherever and whenever it runs: the battery command with the cell's truth, B, "
            "options and the same --seed reproduces it exactly (the sweep prints the first "
            "cell's)."),
        notes=["On several machines: start 'dask scheduler' on one, 'dask worker "
               "tcp://HOST:8786 --nthreads 1' on each, and pass --scheduler tcp://HOST:8786. "
               "Install the extra first: pip install 'evpsim-toolkit[dask]'."],
        examples=["evpsim sweep coverage --dist normal,kde:reuters-lstm --B 10,20 "
                  "--estimators V --ci-methods percentile --replicates 100 --resamples 500 "
                  "--out coverage-sweep.nc",
                  "evpsim sweep bias --dist normal,tang-small --B 10:30:10 --method exact"])
    from ..engine.sweeps.grid import BATTERIES

    p.add_argument("battery", choices=list(BATTERIES), metavar="BATTERY",
                   help=", ".join(BATTERIES))
    g = p.add_argument_group("the grid")
    g.add_argument("--dist", type=names, metavar="LIST", help="truths (not for compare)")
    g.add_argument("--a", type=names, metavar="LIST", help="first models (compare)")
    g.add_argument("--b", type=names, metavar="LIST", help="second models (compare)")
    g.add_argument("--B", type=budgets, metavar="LIST",
                   help="budgets: e.g. 10,20,50 or 10:50:10 (LO:HI:STEP, inclusive)")
    g.add_argument("--grid", metavar="FILE.toml",
                   help="the grid, options and seed from a TOML file instead of the flags")
    _add_option_args(p.add_argument_group("options shared by every cell"))
    r = p.add_argument_group("where cells run, and what is kept")
    add_where_args(r)
    r.add_argument("--store", metavar="DIR",
                   help="checkpoint folder (default: FILE.nc.cells beside --out, else "
                        "sweep-BATTERY-HASH.cells, HASH naming the grid, options and seed)")
    p.set_defaults(run=run, argument_flags={"Bs": "B"})  # a compare cell's Bs is --B
    add_output_args(p, selection=False)
    return p


def _add_option_args(o):
    """The group "options shared by every cell": the battery's options.

    Parameters
    ----------
    o : argparse._ArgumentGroup
        The group, of the parser of ``evpsim sweep``.
    """
    o.add_argument("--estimators", metavar="LIST",
                   help="estimators (default: U, V, W; quantile for a quantile curve)")
    o.add_argument("--curve", metavar="CURVE",
                   help="the curve judged against: mean (default), median or quantile:Q "
                        "(the leaderboard and intervals batteries: their cells' axis, a "
                        "list)")
    o.add_argument("--python-replicates", type=integer, metavar="M",
                   help="searches for estimators written in Python (default: as many as "
                        "--replicates, fewer for slow ones)")
    o.add_argument("--ci-methods", metavar="LIST", help="CI methods (coverage; default: all)")
    o.add_argument("--replicates", type=integer, help=f"simulated searches per cell (default: "
                                                       f"{_sweep_defaults('replicates')})")
    o.add_argument("--resamples", type=integer, help=f"bootstrap resamples (default: "
                                                      f"{_sweep_defaults('resamples')})")
    o.add_argument("--level", type=number, help=f"confidence level (default: "
                                                 f"{_sweep_defaults('level')})")
    o.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the known range of the scores: for band methods (coverage; default: "
                        "each truth's support) and estimators that use it (kde)")
    o.add_argument("--method", choices=["exact", "mc", "both"],
                   help=f"exact, Monte Carlo or both (default: {_sweep_defaults('method')})")
    o.add_argument("--pool", action="store_true", help="compare: draw without replacement")
    o.add_argument("--seed", type=integer, help="the seed of every cell (default: 0)")


def _grid(args):
    """The grid from the flags or the TOML file."""
    from ..engine.sweeps import BATTERIES, Grid, load_toml, sweep

    flags = {"dist": args.dist, "a": args.a, "b": args.b, "B": args.B}
    options = {k: getattr(args, k) for k in ("estimators", "curve", "ci_methods", "replicates",
                                              "python_replicates", "resamples", "level",
                                              "bounds", "method")
               if getattr(args, k) is not None}
    if args.pool:
        options["pool"] = True
    if args.grid:
        given = [_flag(k) for k, v in {**flags, **options, "seed": args.seed}.items()
                 if v is not None]
        if given:
            raise UserError(f"--grid holds the whole grid, its options and seed; drop "
                            f"{', '.join(given)}")
        grid = load_toml(args.grid)
        if grid.battery.name != args.battery:
            raise UserError(f"--grid {args.grid!r} is a {grid.battery.name} sweep, not "
                            f"{args.battery}")
        return grid
    axes = {k: v for k, v in flags.items() if v is not None}
    if "curve" in BATTERIES[args.battery].axes:  # the curve is a cell axis: --curve A,B
        axes["curve"] = options.pop("curve", "mean").split(",")
    seed = default(sweep, "seed") if args.seed is None else args.seed
    return Grid.make(args.battery, axes, options, seed)


def _table(ds, grid):
    """Each cell's headline per estimator (and CI method)."""
    from ..engine.sweeps.combine import headline

    head = headline(ds, grid.battery)
    value = head["value"]
    axes = list(grid.battery.axes)
    cols = [d for d in value.dims if d not in axes]
    flat = value.stack(column=cols) if cols else value.expand_dims(column=[""])
    heads = ["/".join(map(str, c)) if isinstance(c, tuple) else str(c)
             for c in flat["column"].values]
    width = max(len(str(v)) for a in axes for v in ds[a].values) + 2
    lines = [f"{grid.battery.headline} at {head['at']}",
             "".join(f"{a:<{width}}" for a in axes) + "".join(f"{h:>14}" for h in heads)]
    for cell in grid.cells():
        where = {a: cell[a] for a in axes}
        lines.append("".join(f"{str(v):<{width}}" for v in where.values())
                     + "".join(f"{x:>14.4f}" for x in flat.sel(where).values))
    return lines


def _flag(name):
    """The flag of a sweep's axis or option."""
    return name if name in ("battery", "format") else f"--{name.replace('_', '-')}"


def _option_words(options, defaults=None):
    """Flags of a sweep's options, leaving out those equal to ``defaults``."""
    words = []
    for key, value in options.items():
        if value is None or (defaults is not None and value == defaults.get(key)):
            continue
        flag = _flag(key)
        if isinstance(value, bool):
            words += [flag] if value else []
            continue
        text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        # argparse reads a value starting with '-' (bounds -1,2) as a flag of its own
        words += [f"{flag}={text}"] if text.startswith("-") else [flag, text]
    return words


def _budgets_text(values):
    """``--B`` of a list of budgets: ``LO:HI:STEP`` when evenly spaced, else a list."""
    steps = {b - a for a, b in zip(values, values[1:])}
    if len(values) > 2 and len(steps) == 1 and steps.pop() > 0:
        return f"{values[0]}:{values[-1]}:{values[1] - values[0]}"
    return ",".join(map(str, values))


#: a bias sweep's options that only Monte Carlo uses: left out of an exact cell's command
SIMULATED = ("replicates", "python_replicates")


def cell_command(grid, identity):
    """The battery command that reproduces one cell of ``grid``: its truth(s)
    and B, every option of the sweep that the cell uses, and its seed."""
    if grid.battery.name == "compare":
        words = ["compare", "--a", identity["a"], "--b", identity["b"],
                 "--B", f"{identity['B']}:{identity['B']}"]
    else:
        words = [grid.battery.name, "--dist", identity["dist"], "--B", str(identity["B"])]
    options = grid.options
    if grid.battery.name == "bias" and options["method"] == "exact":
        options = {k: v for k, v in options.items() if k not in SIMULATED}
    return "evpsim " + shlex.join(words + _option_words(options) + ["--seed", str(grid.seed)])


def sweep_command(args, grid, store):
    """The ``evpsim sweep`` command of ``args`` with the checkpoint folder ``store``."""
    words = ["sweep", grid.battery.name]
    if args.grid:
        words += ["--grid", args.grid]
    else:
        words += [w for axis, values in grid.axes.items()
                  for w in (f"--{axis}", _budgets_text(values) if axis == "B" else
                            ",".join(values))]
        words += _option_words(grid.options, grid.battery.options) + ["--seed", str(grid.seed)]
    if args.cluster is not None:
        words += ["--cluster", str(args.cluster)]
    elif args.scheduler is not None:
        words += ["--scheduler", args.scheduler]
    elif args.workers != 1:
        words += ["--workers", str(args.workers)]
    words += ["--store", str(store)]
    words += [w for flag in ("out", "plot") if getattr(args, flag) is not None
              for w in (f"--{flag}", getattr(args, flag))]
    return "evpsim " + shlex.join(words + (["--quiet"] if args.quiet else []))


def _refuse_unused(args):
    """The battery command's refusals of options that would do nothing: a sweep's cells
    run as that command (:func:`cell_command`)."""
    from ..engine.sweeps.grid import BATTERIES
    from . import bias, coverage

    if args.battery == "bias":
        bias.refuse_unused_options(args, args.method or BATTERIES["bias"].options["method"],
                                   SIMULATED)
    elif args.battery == "coverage":
        coverage.refuse_unused_options(args)
    else:
        refuse_unused_estimator_options(args)


def run(args):
    from ..engine.sweeps import Store, StoreMismatch, sweep
    from ..engine.sweeps.backends import check_backend

    check_outputs(args)
    _refuse_unused(args)
    grid = _grid(args)
    if args.store is not None:
        store = args.store
    else:
        store = f"{args.out}.cells" if args.out else \
            f"sweep-{grid.battery.name}-{grid.digest()}.cells"
    try:
        kept = Store(store, grid)
    except StoreMismatch as err:
        fresh = f"{str(store).rstrip('/')}-{grid.digest()}"  # beside it, named by the grid
        raise UserError(f"--store {store!r} holds the cells of another sweep "
                        f"({err.describe(_flag)}); to start afresh in a new store: "
                        f"{sweep_command(args, grid, fresh)}") from None
    backend, workers = where_from_args(args)
    cells = grid.cells()
    todo = len(cells) - len(kept.finished(cells))
    check_backend(backend, workers, args.scheduler)  # --workers in range, before the note
    if backend == "local" and 0 < todo < workers:
        print(f"note: --workers {workers}: {todo} cell{'s' if todo > 1 else ''} to compute, so "
              f"{todo} worker process{'es' if todo > 1 else ''}", file=sys.stderr)
    try:
        with Timer() as t:
            ds = sweep(None, grid=grid, store=store, backend=backend, workers=workers,
                       scheduler=args.scheduler, progress=not args.quiet)
    except (KeyboardInterrupt, Terminated):
        if kept.created:
            print(f"evpsim sweep: {len(kept.finished(cells))} of {len(cells)} cells are kept "
                  f"in {str(store)!r}; to resume: {sweep_command(args, grid, store)}",
                  file=sys.stderr)
        raise
    from_store = len(cells) - ds.attrs["cells_computed"]
    where = backend if backend == "process" else \
        f"{backend}, {ds.attrs['workers']} worker{'s' if ds.attrs['workers'] != 1 else ''}"
    print(f"{grid.battery.name} sweep: {len(cells)} cells "
          f"({' x '.join(f'{len(v)} {a}' for a, v in grid.axes.items())}); seed {grid.seed}; "
          + (f"{where}; " if ds.attrs["cells_computed"] else "")
          + (f"{from_store} from the store; " if from_store else "")
          + f"{t.seconds:.2f} s")
    print(f"checkpoints in {store} (run the same command again to resume or reuse)")
    print("\n".join(_table(ds, grid)))
    print(f"the first cell alone: {cell_command(grid, cells[0])}")
    from ..report import plot_sweep

    save_outputs(args, ds, plot_sweep)
    return 0
