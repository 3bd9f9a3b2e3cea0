"""``evpsim falseconc``: Tang et al. (2020)'s false conclusion probing."""

from __future__ import annotations

from .._format import formatter, interval, number, rate, render
from ..batteries.falseconc import falseconc
from ..mctheta import TRUTH_METHODS
from .common import (Timer, add_B_arg, add_estimator_arg, add_mc_args, add_output_args,
                     add_subcommand, add_truth_args, check_outputs, default, integer,
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
    """Lines of the table: theta in its own layout, then each estimator's rates."""
    names = [str(e) for e in ds["estimator"].values]
    has_ties = bool((ds["tie_count"] > 0).any())
    rows = ds.sel(n=ns)
    theta = formatter(rows["theta"].values)
    headers = ["n", "theta"]
    cells = [[str(n) for n in ns], [theta(x) for x in rows["theta"].values]]
    widths = [4, 8]
    for name in names:
        sub = rows.sel(estimator=name)
        headers += ["|", f"{name} below", "95% CI"]
        cells += [["|"] * len(ns), [rate(x) for x in sub["below"].values],
                  [interval(lo, hi, rate) for lo, hi in zip(sub["below_lower"].values,
                                                             sub["below_upper"].values)]]
        widths += [1, 8, 15]
        if has_ties:
            headers.append("tie")
            cells.append([rate(x) for x in sub["tie"].values])
            widths.append(6)
    return render(headers, cells, gap=1, widths=widths)


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
        print(f"tie = fraction with |estimate - theta_n| <= {number(a['tie_tolerance'], 2)}")
    print()
    print("\n".join(_table(ds, select_ns(args.B, args.all))))
    last = ds.sel(n=args.B)
    print("\nat n = B: " + "; ".join(f"{e} below {rate(float(last['below'].sel(estimator=e)), 3)}"
                                     for e in ds["estimator"].values))
    from ..plots import plot_falseconc

    save_outputs(args, ds, plot_falseconc)
    return 0
