"""Argument groups, output saving and table formatting shared by subcommands."""

from __future__ import annotations

import argparse
import time

import numpy as np

from ..montecarlo import CHUNK_SIZE
from ..results import write_netcdf
from ..truths import list_truths, make_truth


class UserError(Exception):
    """An error in the user's input: printed as one line, exit status 2."""


def positive_int(text):
    """argparse type: an integer >= 1 (accepts 1e6 and 1_000_000)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(value)


def nonneg_int(text):
    """argparse type: an integer >= 0."""
    if text.strip() == "0":
        return 0
    return positive_int(text)


def add_truth_args(parser, flag="--dist", default="normal"):
    """``--dist`` and the truncated-normal and CSV options."""
    names = ", ".join(list_truths())
    parser.add_argument(flag, default=default, metavar="TRUTH",
                        help=f"ground truth: {names} (default: %(default)s)")
    g = parser.add_argument_group("truncated normal (--dist normal)")
    g.add_argument("--mu", type=float, help="mean of the normal (default 0.6)")
    g.add_argument("--sigma", type=float, help="standard deviation (default 0.07)")
    g.add_argument("--lo", type=float, help="lower truncation bound (default 0)")
    g.add_argument("--hi", type=float, help="upper truncation bound (default 1)")
    parser.add_argument("--column", help="column of a CSV score file (name or 0-based index)")


def truth_from_args(args, attr="dist"):
    """Build the truth named by ``args.<attr>``."""
    return make_truth(getattr(args, attr), mu=args.mu, sigma=args.sigma, lo=args.lo,
                      hi=args.hi, column=args.column)


def add_estimator_arg(parser):
    parser.add_argument("--estimators", default=None, metavar="LIST",
                        help="comma-separated estimator names (default: the built-ins "
                             "U,V,W; see 'evpsim list')")


def add_mc_args(parser, replicates):
    g = parser.add_argument_group("Monte Carlo")
    g.add_argument("--replicates", type=positive_int, default=replicates,
                   help="simulated searches (default: %(default)s)")
    g.add_argument("--seed", type=nonneg_int, default=0, help="seed (default: %(default)s)")
    g.add_argument("--workers", type=positive_int, default=1,
                   help="worker processes; results do not depend on it (default: 1)")
    g.add_argument("--chunk-size", type=positive_int, default=CHUNK_SIZE,
                   help="replicates per chunk; part of what a seed means (default: %(default)s)")


def add_output_args(parser):
    g = parser.add_argument_group("output")
    g.add_argument("--out", metavar="FILE.nc", help="write the result Dataset as netCDF")
    g.add_argument("--plot", metavar="FILE.png", help="draw the figure to this file")
    g.add_argument("--all", action="store_true", help="print every n, not a selection")
    g.add_argument("--quiet", action="store_true", help="no progress line")


def check_outputs(args):
    """Fail before any work if an output cannot be written."""
    from pathlib import Path

    for name, suffixes in (("out", (".nc", ".nc4", ".netcdf")),
                           ("plot", (".png", ".pdf", ".svg"))):
        path = getattr(args, name, None)
        if not path:
            continue
        p = Path(path)
        if p.suffix.lower() not in suffixes:
            raise UserError(f"--{name} {path!r}: expected a file ending in {', '.join(suffixes)}")
        folder = p.parent if str(p.parent) else Path(".")
        if not folder.is_dir():
            raise UserError(f"--{name} {path!r}: folder {str(folder)!r} does not exist")


def save_outputs(args, ds, plot_fn):
    """Write ``--out`` and ``--plot`` (each atomically) and say so."""
    if getattr(args, "out", None):
        write_netcdf(ds, args.out)
        print(f"wrote {args.out}")
    if getattr(args, "plot", None):
        plot_fn(ds, args.plot)
        print(f"wrote {args.plot}")


def select_ns(B, show_all=False):
    """A readable selection of budgets: 1, 2, multiples of a step, B."""
    if show_all or B <= 12:
        return list(range(1, B + 1))
    step = max(1, int(round(B / 6 / 5)) * 5) if B >= 30 else max(1, B // 6)
    picks = {1, 2, B} | set(range(step, B, step))
    return sorted(picks)


def fmt(x, width=10, digits=4, zero_below=1e-13):
    """Fixed-width number: plain for moderate magnitudes, else scientific.

    Magnitudes below ``zero_below`` (rounding noise of exact values) print
    as ``0``.
    """
    if x is None or not np.isfinite(x):
        return "-".rjust(width)
    ax = abs(x)
    if ax < zero_below:
        return "0".rjust(width)
    if ax != 0 and (ax < 0.1 or ax >= 1e5):
        s = f"{x:.{digits - 1}e}"
    else:
        s = f"{x:.{digits}f}" if ax < 10 else f"{x:.{max(digits - 2, 0)}f}"
    return s.rjust(width)


class Timer:
    """Context manager measuring wall time in ``.seconds``."""

    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False


def spans(ns):
    """``[20, 21, 22, 25]`` -> ``"20-22, 25"``."""
    out = []
    for n in ns:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)
