"""``evpsim coverage``: coverage of confidence intervals for the expected maximum."""

from __future__ import annotations

from .._format import formatter, interval
from .._format import number as in_prose
from .._format import rate, render
from ..estimators.family import get_estimator
from ..estimators.targets import as_target
from ..io.results import curve_symbol
from ..studies.coverage import CP_LEVEL, coverage
from .common import (Timer, add_B_arg, add_curve_args, add_estimator_arg, add_mc_args,
                     add_output_args, add_subcommand, add_truth_args, budgets_from_args,
                     check_outputs, ci_methods_note, default, given, integer, note_idle_workers,
                     number, pair, refuse_unused, refuse_unused_resamples, save_outputs, select_ns,
                     truth_from_args)

HELP = "coverage of intervals for the EVP (Tang et al. 2020, Fig. 4)"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "coverage", HELP, description=(
            "For M samples of size B from a ground truth, build two-sided intervals for the "
            "expected maximum theta_n, n = 1..B, with every estimator and CI method (bootstrap "
            "methods from R resamples each), and report how often they contain the exact "
            "theta_n, with Clopper-Pearson 95% bounds, and on which side they miss. "
            "Defaults are Tang et al. (2020)'s: B = 50, M = 1000, R = 5000."),
        notes=[ci_methods_note()],
        examples=["evpsim coverage --dist normal --B 50 --estimators V --replicates 200 "
                  "--resamples 1000 --plot coverage.png",
                  "evpsim coverage --dist data:sklearn-mlp --B 100 --n 10,20,50 "
                  "--ci-methods percentile --replicates 200 --resamples 1000"])
    add_truth_args(p)
    add_B_arg(p, coverage, "sample size")
    add_estimator_arg(p)
    p.add_argument("--ci-methods", "--methods", dest="ci_methods", default=None, metavar="LIST",
                   help="comma-separated CI methods (default: all; see below)")
    p.add_argument("--level", type=number, default=default(coverage, "level"),
                   help="two-sided confidence level of the intervals (default: %(default)s)")
    p.add_argument("--resamples", type=integer, default=default(coverage, "resamples"),
                   help="bootstrap resamples per sample, R (default: %(default)s)")
    p.add_argument("--bounds", type=pair, default=None, metavar="LO,HI",
                   help="known range of the scores for the distribution-free methods; must "
                        "contain the truth's support (default: the truth's support)")
    add_curve_args(p)
    add_mc_args(p, coverage)
    p.set_defaults(run=run)
    add_output_args(p)
    return p


def _tables(ds, methods, ns, width):
    """Coverage with CP bounds, then misses and mean widths, of ``methods`` in ``ds``
    (one estimator's rows), and the rate of covering every n at once.

    theta has a layout of its own (:func:`evpsim._format.formatter`), the
    mean widths that of ``width``, shared by every table so that methods
    compare; rates are fixed point.
    """
    rows = ds.sel(n=ns)
    sym = curve_symbol(ds)
    theta = formatter(rows[sym].values)
    first = [[str(n) for n in ns], [theta(x) for x in rows[sym].values]]
    cov, miss = [], []
    for m in methods:
        c = rows.sel(ci_method=m)
        cov.append([f"{rate(v, 3)} [{rate(lo, 3)},{rate(hi, 3)}]" for v, lo, hi in zip(
            c["coverage"].values, c["coverage_lower"].values, c["coverage_upper"].values)])
        miss.append([f"{rate(b, 3)}/{rate(a, 3)} {width(w)}" for b, a, w in zip(
            c["miss_below"].values, c["miss_above"].values, c["mean_width"].values)])
    # typical scale: n, theta, then columns of w characters, the first two spaces further
    w = max(19, max(len(m) for m in methods)) + 2
    widths = [4, 7, w + 1] + [w - 1] * (len(methods) - 1)
    headers = ["n", sym, *methods]
    simul = "  ".join(f"{m} {rate(float(ds['coverage_all'].sel(ci_method=m)), 3)}"
                      for m in methods)
    return ([f"coverage [Clopper-Pearson {CP_LEVEL:.0%} bounds]"]
            + render(headers, first + cov, gap=1, widths=widths)
            + ["", "miss below/above, mean width"]
            + render(headers, first + miss, gap=1, widths=widths)
            + [f"covered at every n at once: {simul}"])


#: why a CI method may give no interval for a sample
NO_INTERVAL = {"bca": "the jackknife estimates are all equal, or every bootstrap estimate lies "
                      "on one side of the estimate",
               "gpd-tail": "their best scores are tied, leaving no tail to fit",
               "gpd-tail-lattice": "they lie on no lattice and their best scores are tied, "
                                   "leaving no tail to fit",
               "gpd-tail-bounded": "they lie on no lattice and their best scores are tied, "
                                   "leaving no tail to fit, and no range is known for the LD "
                                   "band to stand in"}


def _no_interval_lines(ds):
    """A line per CI method that gave no interval for some samples: how many, and why."""
    M = ds.attrs["replicates"]
    lines = []
    for m in ds["ci_method"].values:
        count = int(round(float(ds["undefined"].sel(ci_method=m).max()) * M))
        if count:
            why = NO_INTERVAL.get(str(m))
            lines.append(f"{m}: no interval for up to {count:,} of {M:,} samples"
                         + (f" ({why})" if why else "")
                         + "; counted as not covering (the 'undefined' variable)")
    return lines


def refuse_unused_options(args):
    """``--resamples`` needs a method that resamples, ``--bounds`` one that uses the
    score range, ``--estimators`` one that is not a band (also used by ``sweep
    coverage``)."""
    from ..intervals.family import resolve_ci_methods

    refuse_unused_resamples(args, ("resamples",))
    if args.ci_methods is None or not given(args, "bounds", "estimators"):
        return
    kinds = {m.kind for m in resolve_ci_methods(args.ci_methods)}
    if not kinds & {"band", "resampling", "order-statistic", "calibrated"}:
        refuse_unused(args, ("bounds",), f"applies to band, resampling, order-statistic and "
                                         f"calibrated CI methods (the score range they use); "
                                         f"--ci-methods "
                                         f"{args.ci_methods} has none: add one, or drop it")
    if kinds == {"band"}:
        refuse_unused(args, ("estimators",), f"applies to bootstrap and resampling CI methods; "
                                             f"--ci-methods {args.ci_methods} are bands, the "
                                             f"same for every estimator: add one, or drop it")


def run(args):
    check_outputs(args)
    refuse_unused_options(args)
    if args.ns is not None:
        refuse_unused(args, ("all",), "applies to the default budgets; --n prints every "
                                      "budget it lists: drop it")
    note_idle_workers(args)
    truth = truth_from_args(args)
    with Timer() as t:
        ds = coverage(truth, args.B, estimators=args.estimators, ci_methods=args.ci_methods,
                      level=args.level, replicates=args.replicates, resamples=args.resamples,
                      seed=args.seed, bounds=args.bounds, ns=budgets_from_args(args, args.B),
                      curve=args.curve, workers=args.workers, progress=not args.quiet,
                      chunk_size=args.chunk_size)
    ds.attrs["seconds"] = round(t.seconds, 3)
    a = ds.attrs
    print(f"truth: {truth.description}")
    print(f"B = {int(ds['B'])}; {a['replicates']:,} samples x {a['resamples']:,} bootstrap "
          f"resamples; "
          f"level {a['level']:g}; seed {a['seed']}; {a['numba_threads']} threads, "
          f"{t.seconds:.2f} s")
    kinds = dict(zip(ds["ci_method"].values.tolist(), ds["ci_method_kind"].values.tolist()))
    # every kind but bands gives each estimator intervals of its own
    own = [m for m, k in kinds.items() if k != "band"]
    bands = [m for m, k in kinds.items() if k == "band"]
    names = [str(e) for e in ds["estimator"].values]
    sym = curve_symbol(ds)
    print(f"coverage = fraction of two-sided {a['level']:g} intervals containing the exact "
          f"{sym}_n, the {as_target(str(ds['curve'].values)).description}; miss below/above "
          f"= interval entirely below/above it")
    ns = ds["n"].values.tolist() if args.ns else \
        select_ns(int(ds["B"]), args.all, ds["n"].values)
    width = formatter(ds["mean_width"].sel(n=ns).values)
    for name in names if own else []:
        print(f"\n{name}: {get_estimator(name).description}")
        print("\n".join(_tables(ds.sel(estimator=name), own, ns, width)))
    if bands:
        bounds = interval(float(ds["bounds_lo"]), float(ds["bounds_hi"]), in_prose)
        print(f"\ndistribution-free bands: simultaneous over n, from the sample and the score "
              f"range {bounds} alone, the same for every estimator")
        print("\n".join(_tables(ds.sel(estimator=names[0]), bands, ns, width)))
    lines = _no_interval_lines(ds)
    if lines:
        print()
        print("\n".join(lines))
    from ..report import plot_coverage

    save_outputs(args, ds, plot_coverage)
    return 0
