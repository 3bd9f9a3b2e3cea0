"""``evpsim falseconc``: Tang et al. (2020)'s false conclusion probing."""

from __future__ import annotations

from .._format import formatter, interval, number, rate, render
from ..estimators.targets import as_target
from ..io.results import curve_symbol
from ..studies.falseconc import falseconc
from ..truths.mctheta import TRUTH_METHODS
from .common import (Timer, add_B_arg, add_curve_args, add_estimator_arg, add_mc_args,
                     add_output_args, add_subcommand, add_truth_args, budgets_from_args,
                     check_outputs, default, estimator_notes, integer, note_idle_workers, pair,
                     refuse_unused, refuse_unused_estimator_options, save_outputs, select_ns,
                     truth_from_args)

HELP = "how often estimates fall below the true EVP (Tang 2020, Fig. 3)"


def add_truth_method_args(parser, func):
    """``--truth-method`` and ``--truth-replicates`` (also used by ``compare``)."""
    g = parser.add_argument_group("truth")
    g.add_argument("--truth-method", choices=TRUTH_METHODS, default=default(func, "truth_method"),
                   help="compare with the exact EVP, or with a Monte Carlo estimate of it "
                        "(Tang et al., Dodge et al.) (default: %(default)s)")
    g.add_argument("--truth-replicates", type=integer, default=default(func, "truth_replicates"),
                   help="replicates of a Monte Carlo truth (default: %(default)s)")


def refuse_unused_truth_options(args):
    """``--truth-replicates`` needs a Monte Carlo truth (also used by ``compare``)."""
    if args.truth_method != "mc":
        refuse_unused(args, ("truth_replicates",), "applies to a Monte Carlo truth: add "
                                                   "--truth-method mc, or drop it")


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
    add_curve_args(p)
    add_truth_method_args(p, falseconc)
    add_mc_args(p, falseconc)
    p.add_argument("--python-replicates", type=integer, default=None, metavar="M",
                   help="searches for estimators written in Python (default: as many as "
                        "--replicates, fewer for slow ones; the first of the run's searches)")
    p.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the metric's range, for estimators that use it (kde)")
    add_output_args(p)
    p.set_defaults(run=run)
    return p


def _table(ds, ns):
    """Lines of the table: theta in its own layout, then each estimator's rates."""
    names = [str(e) for e in ds["estimator"].values]
    has_ties = bool((ds["tie_count"] > 0).any())
    rows = ds.sel(n=ns)
    sym = curve_symbol(ds)
    theta = formatter(rows[sym].values)
    headers = ["n", sym]
    cells = [[str(n) for n in ns], [theta(x) for x in rows[sym].values]]
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
    refuse_unused_truth_options(args)
    refuse_unused_estimator_options(args)
    note_idle_workers(args)
    truth = truth_from_args(args)
    with Timer() as t:
        ds = falseconc(truth, args.B, estimators=args.estimators, curve=args.curve,
                       ns=budgets_from_args(args, args.B), replicates=args.replicates,
                       seed=args.seed, truth_method=args.truth_method,
                       truth_replicates=args.truth_replicates, workers=args.workers,
                       progress=not args.quiet, chunk_size=args.chunk_size,
                       python_replicates=args.python_replicates, bounds=args.bounds)
    ds.attrs["seconds"] = round(t.seconds, 3)
    a = ds.attrs
    sym = curve_symbol(ds)
    target = as_target(str(ds["curve"].values))
    print(f"truth: {truth.description}")
    how = f"exact {sym}_n" if args.truth_method == "exact" else \
        f"Monte Carlo theta_n from {a['truth_replicates']:,} simulated maxima"
    print(f"B = {args.B}; {a['replicates']:,} simulated searches (seed {a['seed']}); "
          f"compared with the {how}; {a['numba_threads']} threads, {t.seconds:.2f} s")
    print(f"below = fraction of searches whose estimate is below {sym}_n, the "
          f"{target.description} (0.5: no preference for negative errors); Clopper-Pearson "
          f"95% intervals")
    if (ds["tie_count"] > 0).any():
        print(f"tie = fraction with |estimate - {sym}_n| <= {number(a['tie_tolerance'], 2)}")
    for name, note in estimator_notes(ds, "searches").items():
        print(f"{name}: {note}")
    print()
    print("\n".join(_table(ds, select_ns(args.B, args.all, ds["n"].values))))
    last = ds.sel(n=ds["n"].values[-1])
    at = "B" if int(last["n"]) == args.B else str(int(last["n"]))
    print(f"\nat n = {at}: " + "; ".join(
        f"{e} below {rate(float(last['below'].sel(estimator=e)), 3)}"
        for e in ds["estimator"].values))
    from ..report import plot_falseconc

    save_outputs(args, ds, plot_falseconc)
    return 0
