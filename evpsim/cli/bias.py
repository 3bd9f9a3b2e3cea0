"""``evpsim bias``: mean, bias, variance and MSE of the estimators."""

from __future__ import annotations

import numpy as np

from .._format import formatter, render
from ..estimators.family import get_estimator
from ..estimators.targets import as_target
from ..io.results import curve_symbol
from ..studies.bias import METHODS, MIN_CHECK_REPLICATES, QUANTITIES, bias
from .common import (Timer, add_B_arg, add_curve_args, add_estimator_arg, add_mc_args,
                     add_output_args, add_subcommand, add_truth_args, budgets_from_args,
                     check_outputs, default, estimator_notes, integer, note_idle_workers, pair,
                     refuse_unused, refuse_unused_estimator_options, save_outputs, select_ns,
                     truth_from_args)

HELP = "bias, variance and MSE of EVP estimators, exact and Monte Carlo"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "bias", HELP, description=(
            "Mean, bias, variance and MSE of the EVP estimators for every budget n = 1..B, "
            "for B-trial searches from a ground truth: exactly (from the order statistics' "
            "moments), by Monte Carlo, or both with their agreement checked."),
        examples=["evpsim bias --dist normal --B 30 --method exact",
                  "evpsim bias --dist kde:reuters-lstm --B 50 --replicates 100000 "
                  "--out bias.nc --plot bias.png"])
    add_truth_args(p)
    add_B_arg(p, bias)
    add_estimator_arg(p)
    add_curve_args(p)
    p.add_argument("--method", choices=METHODS, default=default(bias, "method"),
                   help="exact moments, Monte Carlo, or both (default: %(default)s)")
    add_mc_args(p, bias)
    p.add_argument("--python-replicates", type=integer, default=None, metavar="M",
                   help="searches for estimators written in Python (default: as many as "
                        "--replicates, fewer for slow ones such as kde and opda-parametric; "
                        "the first of the run's searches, so comparisons stay paired)")
    p.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the metric's range, for estimators that use it (kde)")
    add_output_args(p)
    p.set_defaults(run=run)
    return p


#: each quantity's power of the scores' unit (a variance is in squared units)
POWERS = {"bias": 1, "variance": 2, "mse": 2}
#: exact zeros come out of floating point as noise this small relative to the scores
NOISE = 1e-12


def _columns(ds):
    """``(header, variable, key)`` of every column after n, theta and the mean.

    The key names the column's formatter: the exact and Monte Carlo values
    of a quantity share one.
    """
    method = ds.attrs["method"]
    exact = "exact_" if method == "both" else ""
    cols = []
    for q in POWERS:
        if method != "mc":
            cols.append((f"{q} exact", exact + q, q))
        if method != "exact":
            cols += [(f"{q} MC", q, q), ("(SE)", q + "_se", q + "_se")]
    return cols


def _mean(ds):
    """The exact mean where an estimator has one, else the Monte Carlo mean."""
    if ds.attrs["method"] == "mc":
        return ds["mean"]
    exact = ds["exact_mean" if ds.attrs["method"] == "both" else "mean"]
    return exact.where(np.isfinite(exact), ds["mean"])


def _formats(ds, ns):
    """``{key: formatter}`` of every column key (:func:`_columns`), from every estimator's
    values at budgets ``ns``: one layout per column in every estimator's block.

    theta and the mean share one, and so do the exact and Monte Carlo values
    of a quantity, so that they read side by side. Values within
    :data:`NOISE` of zero relative to the scores (to their square for
    variances) are exact zeros and print as such, at any scale.
    """
    sub = ds.sel(n=ns)
    sym = curve_symbol(ds)
    tol = NOISE * float(np.abs(ds[sym]).max())
    cols = [(sub[var], key) for _, var, key in _columns(ds)]
    fmts = {"theta": formatter([sub[sym].values, _mean(sub).values])}
    for key in dict.fromkeys(k for _, k in cols):
        q = key.removesuffix("_se")
        se = key != q  # standard errors: two significant digits
        fmts[key] = formatter([values.values for values, k in cols if k == key],
                              digits=2 if se else 4, spread=not se, zero=tol ** POWERS[q])
    return fmts


def _estimator_table(ds, name, ns, fmts):
    """Lines of estimator ``name``'s table at budgets ``ns``, in the layouts ``fmts``
    (:func:`_formats`)."""
    sub = ds.sel(estimator=name, n=ns)
    sym = curve_symbol(ds)
    cols = [(sym, sub[sym], "theta"), ("mean", _mean(sub), "theta")]
    cols += [(head, sub[var], key) for head, var, key in _columns(ds)]
    cells = [[str(n) for n in ns]] + [[fmts[key](float(x)) for x in values.values]
                                      for _, values, key in cols]
    widths = [4, 8, 8] + [9 if head == "(SE)" else 11 for head, _, _ in cols[2:]]
    return render(["n"] + [head for head, _, _ in cols], cells, gap=1, widths=widths)


#: options of the Monte Carlo run, which --method exact does not make (--seed, which
#: scripts pass to every command, is let through)
MC_OPTIONS = ("replicates", "python_replicates", "workers", "chunk_size")


def refuse_unused_options(args, method, mc_options=MC_OPTIONS):
    """Refuse options that do nothing with ``method`` or the estimators (also used by
    ``sweep bias``, whose cells run as this command)."""
    if method == "exact":
        refuse_unused(args, mc_options, "applies to Monte Carlo: --method exact simulates "
                                        "nothing; use --method mc or both, or drop it")
    refuse_unused_estimator_options(args)


def run(args):
    check_outputs(args)
    refuse_unused_options(args, args.method)
    note_idle_workers(args)
    truth = truth_from_args(args)
    with Timer() as t:
        ds = bias(truth, args.B, estimators=args.estimators, curve=args.curve,
                  ns=budgets_from_args(args, args.B), method=args.method,
                  replicates=args.replicates, seed=args.seed, workers=args.workers,
                  progress=not args.quiet, chunk_size=args.chunk_size,
                  python_replicates=args.python_replicates, bounds=args.bounds)
    ds.attrs["seconds"] = round(t.seconds, 3)
    a = ds.attrs
    how = {"exact": "exact moments",
           "mc": f"Monte Carlo over {a['replicates']:,} simulated searches (seed {a['seed']})",
           "both": f"exact moments and Monte Carlo over {a['replicates']:,} simulated searches "
                   f"(seed {a['seed']})"}[args.method]
    print(f"truth: {truth.description}")
    print(f"B = {args.B}; {how}; {a['numba_threads']} threads, {t.seconds:.2f} s")
    target = as_target(str(ds["curve"].values))
    print(f"{target.symbol} = exact {target.description}; mean, bias, variance, MSE of each "
          f"estimator of {target.symbol}")
    ns = select_ns(args.B, args.all, ds["n"].values)
    notes = estimator_notes(ds) if args.method != "exact" else {}
    fmts = _formats(ds, ns)
    for name in ds["estimator"].values:
        est = get_estimator(str(name))
        note = f" [{notes[str(name)]}]" if str(name) in notes else ""
        print(f"\n{name}: {est.description}{note}")
        print("\n".join(_estimator_table(ds, str(name), ns, fmts)))
    if "max_abs_z" in a:
        count = int(np.isfinite(ds["z_bias"]).sum()) * len(QUANTITIES)
        if np.isfinite(a["max_abs_z"]):
            print(f"\nMonte Carlo vs exact: largest |MC - exact| / SE = {a['max_abs_z']:.2f} "
                  f"over {count} comparisons (a correct engine stays below about 4)")
        elif a["replicates"] < MIN_CHECK_REPLICATES:
            print(f"\nMonte Carlo vs exact: not checked; {a['replicates']:,} replicates are too "
                  f"few for trustworthy standard errors (the check needs "
                  f"{MIN_CHECK_REPLICATES:,})")
        elif not np.isfinite(ds["exact_bias"]).any():
            print("\nMonte Carlo vs exact: not checked; no estimator has exact values "
                  "(general estimators)")
        else:
            print("\nMonte Carlo vs exact: not checked; every estimate is exact (the truth is "
                  "a single value), so no standard error is above zero")
    from ..report import plot_bias

    save_outputs(args, ds, plot_bias)
    return 0
