"""``evpsim bias``: mean, bias, variance and MSE of the estimators."""

from __future__ import annotations

import numpy as np

from ..batteries.bias import METHODS, MIN_CHECK_REPLICATES, QUANTITIES, bias
from ..estimators import get_estimator
from .common import (Timer, add_B_arg, add_estimator_arg, add_mc_args, add_output_args,
                     add_subcommand, add_truth_args, check_outputs, default, fmt, save_outputs,
                     select_ns, truth_from_args)

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
    p.add_argument("--method", choices=METHODS, default=default(bias, "method"),
                   help="exact moments, Monte Carlo, or both (default: %(default)s)")
    add_mc_args(p, bias)
    add_output_args(p)
    p.set_defaults(run=run)
    return p


def _estimator_table(ds, name, ns):
    sub = ds.sel(estimator=name)
    has_exact = "exact_mean" in ds or ds.attrs["method"] == "exact"
    has_mc = ds.attrs["method"] != "exact"
    ex = {q: sub[("exact_" if ds.attrs["method"] == "both" else "") + q] for q in QUANTITIES} \
        if has_exact else None
    head = f"{'n':>4} {'theta':>8} {'mean':>8}"
    for q in ("bias", "variance", "mse"):
        if has_exact:
            head += f" {q + ' exact':>11}"
        if has_mc:
            head += f" {q + ' MC':>11} {'(SE)':>9}"
    lines = [head]
    for n in ns:
        row = f"{n:>4} {fmt(float(ds['theta'].sel(n=n)), 8)}"
        mean = ex["mean"] if ex is not None and np.isfinite(float(ex["mean"].sel(n=n))) \
            else sub["mean"]
        row += f" {fmt(float(mean.sel(n=n)), 8)}"
        for q in ("bias", "variance", "mse"):
            if has_exact:
                row += f" {fmt(float(ex[q].sel(n=n)), 11)}"
            if has_mc:
                row += (f" {fmt(float(sub[q].sel(n=n)), 11)} "
                        f"{fmt(float(sub[q + '_se'].sel(n=n)), 9, 2)}")
        lines.append(row)
    return lines


def run(args):
    check_outputs(args)
    truth = truth_from_args(args)
    with Timer() as t:
        ds = bias(truth, args.B, estimators=args.estimators, method=args.method,
                  replicates=args.replicates, seed=args.seed, workers=args.workers,
                  progress=not args.quiet, chunk_size=args.chunk_size)
    ds.attrs["seconds"] = round(t.seconds, 3)
    a = ds.attrs
    how = {"exact": "exact moments",
           "mc": f"Monte Carlo over {a['replicates']:,} simulated searches (seed {a['seed']})",
           "both": f"exact moments and Monte Carlo over {a['replicates']:,} simulated searches "
                   f"(seed {a['seed']})"}[args.method]
    print(f"truth: {truth.description}")
    print(f"B = {args.B}; {how}; {a['numba_threads']} threads, {t.seconds:.2f} s")
    print("theta = exact expected maximum of n draws; mean, bias, variance, MSE of each "
          "estimator of theta")
    ns = select_ns(args.B, args.all)
    for name in ds["estimator"].values:
        est = get_estimator(str(name))
        print(f"\n{name}: {est.description}")
        print("\n".join(_estimator_table(ds, str(name), ns)))
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
    from ..plots import plot_bias

    save_outputs(args, ds, plot_bias)
    return 0
