"""``evpsim compare``: two models' EVP curves, and how often estimators rank them wrongly."""

from __future__ import annotations

import argparse

import numpy as np

from ..batteries.compare import compare_curves, comparison_errors
from ..estimators import get_estimator
from .common import (Timer, UserError, add_estimator_arg, add_mc_args, add_output_args,
                     add_subcommand, check_outputs, default, fmt, integer, save_outputs,
                     select_ns, spans)
from .falseconc import add_truth_method_args

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
    add_truth_method_args(p, compare_curves)
    add_mc_args(p, compare_curves)
    add_output_args(p)
    p.set_defaults(run=run, argument_flags={"Bs": "B"})  # comparison_errors' Bs is --B
    return p


def _truth_cols(ds, key, label_width):
    sub = ds.sel(key)
    return (f" {fmt(float(sub['theta_a']), 9)} {fmt(float(sub['theta_b']), 9)}  "
            f"{str(sub['better'].item()):>{label_width}} {float(sub['theta_diff']):>+10.4f}")


def _label_width(ds):
    return max(12, len(ds["label_a"].item()), len(ds["label_b"].item()))


def _truth_head(label_width):
    return (f" {'theta ' + 'A':>9} {'theta ' + 'B':>9}  {'truly better':>{label_width}} "
            f"{'A - B':>10}")


def _rate(sub, key):
    v = float(sub[key])
    if not np.isfinite(v):
        return f"{'-':>6} {'':>17}"
    return f"{v:>6.4f} [{float(sub[key + '_lower']):.4f}, {float(sub[key + '_upper']):.4f}]"


def _print_header(ds, seconds):
    a = ds.attrs
    print(f"A = {ds['label_a'].item()}: {ds['truth_a_description'].item()}")
    print(f"B = {ds['label_b'].item()}: {ds['truth_b_description'].item()}")
    truth = "exact EVP" if a["truth_method"] == "exact" else \
        f"Monte Carlo EVP from {a['truth_replicates']:,} simulated maxima"
    print(f"{a['replicates']:,} pairs of searches, {a['sampling']} (seed {a['seed']}); "
          f"truth: {truth}; {a['numba_threads']} threads, {seconds:.2f} s")
    if "theta_diff_se" in ds:
        z = np.abs(ds["theta_diff"] - ds["exact_theta_diff"]) / ds["theta_diff_se"]
        sure = np.abs(ds["theta_diff"]) / ds["theta_diff_se"]
        print(f"Monte Carlo truth vs exact: largest |difference| / SE = {float(z.max()):.2f}; "
              f"smallest |theta_A - theta_B| / SE = {float(sure.min()):.1f} (the truly better "
              f"model is certain where this exceeds ~4)")


def _print_curves(ds, show_all):
    B = int(ds["B"])
    lw = _label_width(ds)
    ns = select_ns(B, show_all or B <= 30)
    print(f"searches of B = {B} trials; theta = true expected maximum of n trials")
    print(f"\n{'n':>4}" + _truth_head(lw))
    for n in ns:
        print(f"{n:>4}" + _truth_cols(ds, {"n": n}, lw))
    summary = []
    for name in ds["estimator"].values:
        est = get_estimator(str(name))
        sub = ds.sel(estimator=name)
        print(f"\n{name}: {est.description}")
        print(f"{'n':>4} {'mean A':>9} {'(sd)':>8} {'mean B':>9} {'(sd)':>8} "
              f"{'averaged order':>15} | {'wrong':>6} {'95% CI':>17} {'tie':>6}")
        for n in ns:
            s = sub.sel(n=n)
            diff, se = float(s["mean_diff"]), float(s["mean_diff_se"])
            order = "A > B" if diff > 0 else ("B > A" if diff < 0 else "A = B")
            if int(s["reversed"]):
                order += " WRONG" + ("?" if abs(diff) < 3 * se else "")
            print(f"{n:>4} {fmt(float(s['mean_a']), 9)} {float(s['sd_a']):>8.4f} "
                  f"{fmt(float(s['mean_b']), 9)} {float(s['sd_b']):>8.4f} {order:>15} | "
                  f"{_rate(s, 'wrong')} {float(s['tie']):>6.4f}")
        rev = ds["n"].values[sub["reversed"].values.astype(bool)]
        summary.append(f"{name}: " + (f"averaged estimates order the models opposite to the "
                                      f"truth at n = {spans(rev.tolist())}" if rev.size
                                      else "averaged estimates order the models as the truth "
                                           "at every n"))
    print("\nwrong = fraction of pairs of searches whose estimates rank A and B opposite to the "
          "truth; WRONG = the averaged estimates do ('?': within 3 Monte Carlo SE)")
    print("\n".join(summary))


def _print_errors(ds, show_all):
    lw = _label_width(ds)
    every_n = "n" in ds.dims
    names = [str(e) for e in ds["estimator"].values]
    print("rate at which each estimator ranks A and B opposite to the truth at n = B; "
          "tie = tied estimates; Clopper-Pearson 95% intervals")
    head = f"\n{'B':>4}" + _truth_head(lw)
    for name in names:
        head += f" | {name + ' wrong':>7} {'95% CI':>16} {'tie':>6}"
    print(head)
    for B in ds["B"].values:
        at = {"B": B, "n": B} if every_n else {"B": B}
        row = f"{B:>4}" + _truth_cols(ds, at, lw)
        for name in names:
            s = ds.sel(estimator=name, **at)
            row += f" | {_rate(s, 'wrong')} {float(s['tie']):>6.4f}"
        print(row)
    if every_n:
        ns = select_ns(int(ds["B"].max()), show_all)
        for name in names:
            print(f"\n{name}: rate of wrong rankings at budget n (columns) in searches of B "
                  f"trials (rows); truly better at n: " + ", ".join(
                      f"{n}: {ds['better'].sel(n=n).item()}" for n in ns))
            print(f"{'B':>4} " + " ".join(f"{'n=' + str(n):>7}" for n in ns))
            for B in ds["B"].values:
                vals = ds["wrong"].sel(estimator=name, B=B, n=ns).values
                print(f"{B:>4} " + " ".join(f"{v:>7.4f}" if np.isfinite(v) else f"{'':>7}"
                                            for v in vals))


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
    common = dict(estimators=args.estimators, pool=args.pool, labels=labels, column=args.column,
                  replicates=args.replicates, seed=args.seed, truth_method=args.truth_method,
                  truth_replicates=args.truth_replicates, workers=args.workers,
                  progress=not args.quiet, chunk_size=args.chunk_size)
    with Timer() as t:
        if curves_mode:
            ds = compare_curves(args.a, args.b, args.B, **common)
        else:
            ds = comparison_errors(args.a, args.b, args.B, every_n=args.every_n, **common)
    ds.attrs["seconds"] = round(t.seconds, 3)
    _print_header(ds, t.seconds)
    if curves_mode:
        _print_curves(ds, args.all)
    else:
        _print_errors(ds, args.all)
    from ..plots import plot_compare_curves, plot_comparison_errors

    save_outputs(args, ds, plot_compare_curves if curves_mode else plot_comparison_errors)
    return 0
