"""``evpsim falseconc``: Tang et al. (2020)'s false conclusion probing."""

from __future__ import annotations

from ..batteries.falseconc import falseconc
from ..mctheta import TRUTH_METHODS
from .common import (Timer, add_B_arg, add_estimator_arg, add_mc_args, add_output_args,
                     add_subcommand, add_truth_args, check_outputs, default, fmt, integer,
                     save_outputs, select_ns, truth_from_args)

HELP = "how often estimates fall below the true EVP (Tang 2020, Fig. 3)"


def add_truth_method_args(parser, func):
    """``--truth-method`` and ``--truth-replicates`` (also used by ``compare``)."""
    g = parser.add_argument_group("truth")
    g.add_argument("--truth-method", choices=TRUTH_METHODS, default=default(func, "truth_method"),
                   help="compare with the exact EVP, or with a Monte Carlo estimate of it "
                        "(Tang et al., Dodge et al.) (default: %(default)s)")
    g.add_argument("--truth-replicates", type=integer, default=default(func, "truth_replicates"),
                   help="replicates of a Monte Carlo truth (default: %(default)s)")


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "falseconc", HELP, description=(
            "False conclusion probing (Tang et al. 2020, section 4.2): for n = 1..B, the "
            "fraction of simulated searches of B trials whose estimate lies below the true "
            "expected maximum theta_n, for every estimator. An estimator unbiased in sign "
            "sits near 0.5. Ties (estimate equal to theta_n) are counted separately; every "
            "rate has a Clopper-Pearson interval."),
        examples=["evpsim falseconc --dist kde:reuters-lstm --B 50 --plot falseconc.png"])
    add_truth_args(p)
    add_B_arg(p, falseconc)
    add_estimator_arg(p)
    add_truth_method_args(p, falseconc)
    add_mc_args(p, falseconc)
    add_output_args(p)
    p.set_defaults(run=run)
    return p


def _table(ds, ns):
    names = [str(e) for e in ds["estimator"].values]
    has_ties = bool((ds["tie_count"] > 0).any())
    head = f"{'n':>4} {'theta':>8}"
    for name in names:
        head += f" | {name + ' below':>8} {'95% CI':>15}"
        if has_ties:
            head += f" {'tie':>6}"
    lines = [head]
    for n in ns:
        row = f"{n:>4} {fmt(float(ds['theta'].sel(n=n)), 8)}"
        for name in names:
            sub = ds.sel(estimator=name, n=n)
            row += (f" | {float(sub['below']):>8.4f} "
                    f"[{float(sub['below_lower']):.4f}, {float(sub['below_upper']):.4f}]")
            if has_ties:
                row += f" {float(sub['tie']):>6.4f}"
        lines.append(row)
    return lines


def run(args):
    check_outputs(args)
    truth = truth_from_args(args)
    with Timer() as t:
        ds = falseconc(truth, args.B, estimators=args.estimators, replicates=args.replicates,
                       seed=args.seed, truth_method=args.truth_method,
                       truth_replicates=args.truth_replicates, workers=args.workers,
                       progress=not args.quiet, chunk_size=args.chunk_size)
    ds.attrs["seconds"] = round(t.seconds, 3)
    a = ds.attrs
    print(f"truth: {truth.description}")
    how = "exact theta_n" if args.truth_method == "exact" else \
        f"Monte Carlo theta_n from {a['truth_replicates']:,} simulated maxima"
    print(f"B = {args.B}; {a['replicates']:,} simulated searches (seed {a['seed']}); "
          f"compared with the {how}; {a['numba_threads']} threads, {t.seconds:.2f} s")
    print("below = fraction of searches whose estimate is below theta_n (0.5: no preference "
          "for negative errors); Clopper-Pearson 95% intervals")
    if (ds["tie_count"] > 0).any():
        print(f"tie = fraction with |estimate - theta_n| <= {a['tie_tolerance']:.2g}")
    print()
    print("\n".join(_table(ds, select_ns(args.B, args.all))))
    last = ds.sel(n=args.B)
    print("\nat n = B: " + "; ".join(
        f"{e} below {float(last['below'].sel(estimator=e)):.3f}" for e in ds["estimator"].values))
    from ..plots import plot_falseconc

    save_outputs(args, ds, plot_falseconc)
    return 0
