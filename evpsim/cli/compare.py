"""``evpsim compare``: two models' EVP curves, and how often estimators rank them wrongly."""

from __future__ import annotations

import argparse

import numpy as np
import xarray as xr

from .._format import formatter, interval, rate, render
from ..estimators.family import get_estimator
from ..estimators.targets import as_target
from ..studies.compare import compare_curves, comparison_errors
from .common import (Timer, UserError, add_curve_args, add_estimator_arg, add_mc_args,
                     add_output_args, add_subcommand, budgets_from_args, check_outputs, default,
                     estimator_notes, integer, note_idle_workers, pair, refuse_unused,
                     refuse_unused_estimator_options, save_outputs, select_ns, spans)
from .falseconc import add_truth_method_args, refuse_unused_truth_options

HELP = "two models' EVP curves; how often estimators rank them wrongly"


def budgets(text):
    """argparse type of ``--B``: ``N`` (curves mode) or ``LO:HI`` (a range, inclusive)."""
    lo, sep, hi = text.partition(":")
    if not sep:
        return integer(text)
    lo, hi = integer(lo), integer(hi)
    if lo > hi:
        raise argparse.ArgumentTypeError(f"{text!r}: a range LO:HI needs LO <= HI")
    return range(lo, hi + 1)


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "compare", HELP, description=(
            "Compare models A and B through paired simulated searches of B trials each. "
            "With one budget (--B 25): for every n <= B, the true EVP curves, each "
            "estimator's average estimate and spread, the budgets where the averaged "
            "estimates order A and B opposite to the truth (Tang et al. 2020, Figs. 1-2), "
            "and the rate of wrongly ranked pairs. With a range (--B 15:30): for each B, the "
            "rate at which each estimator ranks A and B opposite to the truth at n = B "
            "(Dodge et al. 2021, Fig. 2), or at every n <= B with --every-n. Output states "
            "at every budget which model is truly better and by how much; ties are "
            "counted separately. The truth of real results (file:PATH) is the exact EVP of "
            "their empirical distribution; --pool draws each search without replacement "
            "from the real scores, as Dodge et al. did."),
        examples=["evpsim compare --a kde:reuters-mlp --b kde:reuters-lstm --B 25 "
                  "--labels MLP,LSTM",
                  "evpsim compare --a data:reuters-mlp --b data:reuters-lstm --B 15:30 --pool "
                  "--labels MLP,LSTM"])
    g = p.add_argument_group("models")
    g.add_argument("--a", required=True, metavar="TRUTH",
                   help="model A: a truth (see 'evpsim list'), e.g. kde:reuters-mlp, or real "
                        "results file:PATH")
    g.add_argument("--b", required=True, metavar="TRUTH", help="model B, as --a")
    g.add_argument("--labels", metavar="A,B", help="names of the two models in the output")
    g.add_argument("--column", help="column of CSV score files (name or 0-based index)")
    g.add_argument("--pool", action="store_true",
                   help="draw each search without replacement from the real scores of "
                        "file: models (B at most the number of scores)")
    p.add_argument("--B", type=budgets, default=default(compare_curves, "B"), metavar="B|LO:HI",
                   help="trials per search: one budget (curves for every n <= B) or a range "
                        "LO:HI of budgets (error rates at n = B) (default: %(default)s)")
    p.add_argument("--every-n", action="store_true",
                   help="with a range of budgets: error rates at every n <= B, not only n = B")
    add_estimator_arg(p)
    add_curve_args(p)
    add_truth_method_args(p, compare_curves)
    add_mc_args(p, compare_curves)
    p.add_argument("--python-replicates", type=integer, default=None, metavar="M",
                   help="pairs for estimators written in Python (default: as many as "
                        "--replicates, fewer for slow ones; the first of the run's pairs)")
    p.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the metric's range, for estimators that use it (kde)")
    add_output_args(p)
    p.set_defaults(run=run, argument_flags={"Bs": "B"})  # comparison_errors' Bs is --B
    return p


def _truth_columns(ds):
    """Headers, cells and least widths of the truth's columns, a row per entry of ``ds``.

    theta A and theta B share a layout (they are read against each other);
    A - B has its own, signed.
    """
    sym = "tau" if "tau_a" in ds else "theta"
    a, b, d = ds[f"{sym}_a"].values, ds[f"{sym}_b"].values, ds[f"{sym}_diff"].values
    theta = formatter([a, b])
    diff = formatter(d, sign=True)
    headers = [f"{sym} A", f"{sym} B", "truly better", "A - B"]
    cells = [[theta(x) for x in a], [theta(x) for x in b], [str(x) for x in ds["better"].values],
             [diff(x) for x in d]]
    width = max(12, len(ds["label_a"].item()), len(ds["label_b"].item())) + 1
    return headers, cells, [9, 9, width, 10]


def _rate_columns(ds, key, header):
    """Headers, cells and least widths of ``|``, a rate with its interval, and ties."""
    values, lower, upper = (ds[k].values for k in (key, key + "_lower", key + "_upper"))
    cis = [interval(lo, hi, rate) if np.isfinite(v) else ""
           for v, lo, hi in zip(values, lower, upper)]
    return (["|", header, "95% CI", "tie"],
            [["|"] * len(values), [rate(v) for v in values], cis,
             [rate(v) for v in ds["tie"].values]],
            [1, 6, 16, 6])


def _print_header(ds, seconds):
    a = ds.attrs
    print(f"A = {ds['label_a'].item()}: {ds['truth_a_description'].item()}")
    print(f"B = {ds['label_b'].item()}: {ds['truth_b_description'].item()}")
    truth = "exact EVP" if a["truth_method"] == "exact" else \
        f"Monte Carlo EVP from {a['truth_replicates']:,} simulated maxima"
    if str(ds["curve"].values) != "mean":
        truth = f"exact {as_target(str(ds['curve'].values)).description}"
    print(f"{a['replicates']:,} pairs of searches, {a['sampling']} (seed {a['seed']}); "
          f"truth: {truth}; {a['numba_threads']} threads, {seconds:.2f} s")
    for name, note in estimator_notes(ds, "pairs").items():
        print(f"{name}: {note}")
    if "theta_diff_se" in ds:
        z = np.abs(ds["theta_diff"] - ds["exact_theta_diff"]) / ds["theta_diff_se"]
        sure = np.abs(ds["theta_diff"]) / ds["theta_diff_se"]
        print(f"Monte Carlo truth vs exact: largest |difference| / SE = {float(z.max()):.2f}; "
              f"smallest |theta_A - theta_B| / SE = {float(sure.min()):.1f} (the truly better "
              f"model is certain where this exceeds ~4)")


def _print_curves(ds, show_all):
    B = int(ds["B"])
    ns = select_ns(B, show_all or ds.sizes["n"] <= 30, ds["n"].values)
    rows = ds.sel(n=ns)
    target = as_target(str(ds["curve"].values))
    print(f"searches of B = {B} trials; {target.symbol} = true {target.description}\n")
    headers, cells, widths = _truth_columns(rows)
    print("\n".join(render(["n", *headers], [[str(n) for n in ns], *cells], gap=1,
                           widths=[4, *widths])))
    summary = []
    for name in ds["estimator"].values:
        est = get_estimator(str(name))
        sub = rows.sel(estimator=name)
        print(f"\n{name}: {est.description}")
        mean = formatter([sub["mean_a"].values, sub["mean_b"].values])
        sd = formatter([sub["sd_a"].values, sub["sd_b"].values], digits=3, spread=False)
        orders = []
        for diff, se, rev in zip(sub["mean_diff"].values, sub["mean_diff_se"].values,
                                 sub["reversed"].values):
            order = "A > B" if diff > 0 else ("B > A" if diff < 0 else "A = B")
            if rev:
                order += " WRONG" + ("?" if abs(diff) < 3 * se else "")
            orders.append(order)
        rate_headers, rate_cells, rate_widths = _rate_columns(sub, "wrong", "wrong")
        print("\n".join(render(
            ["n", "mean A", "(sd)", "mean B", "(sd)", "averaged order", *rate_headers],
            [[str(n) for n in ns], [mean(x) for x in sub["mean_a"].values],
             [sd(x) for x in sub["sd_a"].values], [mean(x) for x in sub["mean_b"].values],
             [sd(x) for x in sub["sd_b"].values], orders, *rate_cells],
            gap=1, widths=[4, 9, 8, 9, 8, 15, *rate_widths])))
        full = ds.sel(estimator=name)
        rev = ds["n"].values[full["reversed"].values.astype(bool)]
        summary.append(f"{name}: " + (f"averaged estimates order the models opposite to the "
                                      f"truth at n = {spans(rev.tolist())}" if rev.size
                                      else "averaged estimates order the models as the truth "
                                           "at every n"))
    print("\nwrong = fraction of pairs of searches whose estimates rank A and B opposite to the "
          "truth; WRONG = the averaged estimates do ('?': within 3 Monte Carlo SE)")
    print("\n".join(summary))


def _print_errors(ds, show_all):
    every_n = "n" in ds.dims
    names = [str(e) for e in ds["estimator"].values]
    print("rate at which each estimator ranks A and B opposite to the truth at n = B; "
          "tie = tied estimates; Clopper-Pearson 95% intervals\n")
    Bs = ds["B"].values
    at = ds.sel(n=xr.DataArray(Bs, dims="B")) if every_n else ds
    headers, cells, widths = _truth_columns(at)
    headers, cells, widths = ["B", *headers], [[str(B) for B in Bs], *cells], [4, *widths]
    for name in names:
        more = _rate_columns(at.sel(estimator=name), "wrong", f"{name} wrong")
        headers, cells, widths = headers + more[0], cells + more[1], widths + more[2]
    print("\n".join(render(headers, cells, gap=1, widths=widths)))
    if every_n:
        ns = select_ns(int(ds["B"].max()), show_all)
        for name in names:
            print(f"\n{name}: rate of wrong rankings at budget n (columns) in searches of B "
                  f"trials (rows); truly better at n: " + ", ".join(
                      f"{n}: {ds['better'].sel(n=n).item()}" for n in ns))
            wrong = ds["wrong"].sel(estimator=name, n=ns).transpose("n", "B")
            print("\n".join(render(
                ["B", *(f"n={n}" for n in ns)],
                [[str(B) for B in Bs], *([rate(v) if np.isfinite(v) else "" for v in col]
                                         for col in wrong.values)],
                gap=1, widths=[4] + [7] * len(ns))))


def run(args):
    check_outputs(args)
    labels = None
    if args.labels is not None:
        labels = tuple(s.strip() for s in args.labels.split(","))
        if len(labels) != 2:
            raise UserError(f"--labels {args.labels!r}: give two names separated by a comma")
    curves_mode = isinstance(args.B, int)
    if curves_mode and args.every_n:
        raise UserError("--every-n applies to a range of budgets (--B LO:HI); one budget "
                        "already gives every n <= B")
    ns = budgets_from_args(args, args.B) if curves_mode else None
    if not curves_mode and (args.ns is not None or args.n_max is not None):
        raise UserError("--n and --n-max apply to one budget (--B N); a range of budgets "
                        "(--B LO:HI) compares at n = B (or at every n <= B with --every-n)")
    if not curves_mode and not args.every_n:
        refuse_unused(args, ("all",), "applies to tables over n: one budget (--B N), or a "
                                      "range with --every-n; a range alone prints a row per B")
    refuse_unused_truth_options(args)
    refuse_unused_estimator_options(args)
    note_idle_workers(args)
    common = dict(estimators=args.estimators, curve=args.curve, pool=args.pool, labels=labels,
                  column=args.column, replicates=args.replicates, seed=args.seed,
                  truth_method=args.truth_method, truth_replicates=args.truth_replicates,
                  workers=args.workers, progress=not args.quiet, chunk_size=args.chunk_size,
                  python_replicates=args.python_replicates, bounds=args.bounds)
    with Timer() as t:
        if curves_mode:
            ds = compare_curves(args.a, args.b, args.B, ns=ns, **common)
        else:
            ds = comparison_errors(args.a, args.b, args.B, every_n=args.every_n, **common)
    ds.attrs["seconds"] = round(t.seconds, 3)
    _print_header(ds, t.seconds)
    if curves_mode:
        _print_curves(ds, args.all)
    else:
        _print_errors(ds, args.all)
    from ..report import plot_compare_curves, plot_comparison_errors

    save_outputs(args, ds, plot_compare_curves if curves_mode else plot_comparison_errors)
    return 0
