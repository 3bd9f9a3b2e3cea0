"""``evpsim curve``: EVP curves of your own search results, and whether to trust them."""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from ..curves import curve
from ..searchfiles import describe_dropped, read_searches
from ..selfcheck import check_warnings, self_check
from .common import (Timer, UserError, add_output_args, add_subcommand, check_outputs,
                     ci_methods_note, default, integer, number, pair, paragraph, save_outputs,
                     select_ns)

HELP = "EVP curves of your searches, with intervals and a self-check"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "curve", HELP, description=(
            "Read the validation scores of one or more hyperparameter searches and print, for "
            "every budget n up to each model's B, the estimated expected best score, the SD of "
            "the best of n, and confidence intervals; for two or more models, which is ahead, "
            "an interval for the difference and the bootstrap probability that one is ahead; "
            "with --target, the budget that reaches a score; with --check, how often intervals "
            "built this way covered the truth in searches simulated from a distribution like "
            "yours. Everything printed is an estimate from your data."),
        notes=[ci_methods_note(), paragraph(
            "Your own files: scores.txt with one score per line; allentune's results.jsonl "
            "with --field best_validation_accuracy --group model --time-field "
            "training_duration; learning curves with e.g. --field learning_curve.top_1 "
            "--reduce max.")],
        examples=["evpsim curve data:reuters-mlp data:reuters-lstm --labels MLP,LSTM "
                  "--bounds 0,1 --plot curves.png",
                  "evpsim curve data:reuters-lstm --bounds 0,1 --target 0.8 --check "
                  "--check-replicates 200"])
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="score files: one score per line, CSV (--column), or JSON Lines "
                        "(--field); one model per file unless --group splits it; "
                        "data:NAME for a search shipped with evpsim (see 'evpsim list')")
    g = p.add_argument_group("reading the results")
    g.add_argument("--column", help="CSV column of the score (name or 0-based index)")
    g.add_argument("--field", help="JSON Lines key of the score; a dotted path reaches nested "
                                   "objects and maps over lists (learning_curve.top_1)")
    g.add_argument("--reduce", choices=("max", "min", "last"),
                   help="reduce a per-trial list of checkpoints to one score")
    g.add_argument("--group", metavar="FIELD",
                   help="field or column naming the model of each record (allentune: model)")
    g.add_argument("--select", metavar="LIST", help="comma-separated models of --group to keep")
    g.add_argument("--time-field", metavar="FIELD",
                   help="per-trial duration: seconds, or H:MM:SS as AllenNLP writes it")
    g.add_argument("--labels", metavar="LIST", help="comma-separated model names, one per model")
    g.add_argument("--minimize", action="store_true",
                   help="the scores are losses: curves of the expected minimum")
    g.add_argument("--metric", help="the metric's name, for tables and the y axis "
                                    "(default: the field or column)")
    c = p.add_argument_group("curves and intervals")
    c.add_argument("--estimators", default=default(curve, "estimators"), metavar="LIST",
                   help="comma-separated estimators (default: %(default)s; U and W too)")
    c.add_argument("--ci-methods", "--methods", dest="ci_methods",
                   default=default(curve, "ci_methods"), metavar="LIST",
                   help="comma-separated CI methods (default: %(default)s; see below)")
    c.add_argument("--level", type=number, default=default(curve, "level"),
                   help="two-sided confidence level (default: %(default)s)")
    c.add_argument("--resamples", type=integer, default=default(curve, "resamples"),
                   help="bootstrap resamples per model (default: %(default)s)")
    c.add_argument("--seed", type=integer, default=default(curve, "seed"),
                   help="seed (default: %(default)s)")
    c.add_argument("--bounds", type=pair, metavar="LO,HI",
                   help="the metric's range (e.g. 0,1): needed by band methods; the self-check "
                        "guesses 0,1 or 0,100 without it")
    c.add_argument("--target", type=number,
                   help="a score to reach: report the smallest budget that reaches it")
    k = p.add_argument_group("self-check")
    k.add_argument("--check", action="store_true",
                   help="simulate searches of your B from a KDE fitted to your scores and "
                        "report how often these intervals covered its exact curve")
    k.add_argument("--check-replicates", type=integer, default=default(self_check, "replicates"),
                   help="simulated searches per model (default: %(default)s)")
    k.add_argument("--check-resamples", type=integer, default=default(self_check, "resamples"),
                   help="bootstrap resamples per simulated search (default: %(default)s)")
    k.add_argument("--workers", type=integer, default=default(self_check, "workers"),
                   help="worker processes of the self-check (default: %(default)s)")
    f = p.add_argument_group("figure")
    f.add_argument("--x-axis", choices=("n", "time"), default="n",
                   help="trials, or expected wall-clock (needs --time-field) (default: n)")
    f.add_argument("--log-x", action="store_true", help="log-scaled x axis")
    add_output_args(p)
    p.set_defaults(run=run, argument_flags={"estimators": "estimators", "paths": "results",
                                            "path": "results"})
    return p


def _split(text):
    return None if text is None else [t.strip() for t in text.split(",")]


def _read(args):
    from ..datasets import default_field, resolve_results

    select = _split(args.select)
    if select is not None and args.group is None:
        raise UserError("--select needs --group")
    field = args.field if args.field is not None else default_field(args.results)
    return read_searches(resolve_results(args.results), column=args.column, field=field,
                         group=args.group, select=select, reduce=args.reduce,
                         time_field=args.time_field, labels=_split(args.labels))


def _describe(search):
    xs = search.scores
    line = (f"{search.label}: {xs.size} scores from {search.source}"
            + (f" ({search.metric})" if search.metric else "")
            + f", in [{xs.min():.6g}, {xs.max():.6g}]")
    if search.dropped:
        line += (f"; dropped {sum(search.dropped.values())} of {search.records} records: "
                 f"{describe_dropped(search.dropped)}")
    return line


def _decimals(ds):
    """Decimals that show scores of this magnitude to about four significant digits."""
    top = float(np.nanmax(np.abs(ds["best_observed"].values)))
    return int(np.clip(3 - np.floor(np.log10(top)) if top > 0 else 4, 0, 8))


def _number(x, width, decimals):
    return "-".rjust(width) if not np.isfinite(x) else f"{x:{width}.{decimals}f}"


def _model_table(sub, ns, d):
    """Estimates, SD and intervals of one model, a row per n, ``d`` decimals."""
    ests = [str(e) for e in sub["estimator"].values]
    meths = [str(m) for m in sub["ci_method"].values]
    w = d + 6
    cell = 2 * w + 6
    head = f"{'n':>5}" + "".join(f"{e:>{w}}" for e in ests) + f"{'sd':>{w}}"
    head += "".join(f"{e + ' ' + m:>{cell}}" for e in ests for m in meths)
    rows = [head]
    for n in ns:
        s = sub.sel(n=n)
        row = f"{n:>5}" + "".join(_number(float(s["estimate"].sel(estimator=e)), w, d)
                                  for e in ests)
        row += _number(float(s["sd"]), w, d)
        for e in ests:
            for m in meths:
                iv = s.sel(estimator=e, ci_method=m)
                row += (f"[{_number(float(iv['lower']), 0, d)}, "
                        f"{_number(float(iv['upper']), 0, d)}]").rjust(cell)
        rows.append(row)
    return rows


def _pair_table(ds, p, est, ns, level, d):
    sub = ds.isel(pair=p).sel(estimator=est)
    a, b = str(sub["model_a"].values), str(sub["model_b"].values)
    meths = [str(m) for m in ds["ci_method"].values]
    label = max(5, *(len(str(m)) for m in ds["model"].values)) + 2
    w = max(d + 7, len(a + b) + 4)
    cell = max(2 * d + 14, max(len(m) for m in meths) + 2)
    head = (f"{'n':>5}  {'ahead':<{label}}{a + ' - ' + b:>{w}}"
            + "".join(f"{m:>{cell}}" for m in meths) + f"  P({a} ahead)")
    rows = [head]
    for n in ns:
        s = sub.sel(n=n)
        ivs = "".join(f"[{_number(float(s['difference_lower'].sel(ci_method=m)), 0, d)}, "
                      f"{_number(float(s['difference_upper'].sel(ci_method=m)), 0, d)}]"
                      .rjust(cell) for m in meths)
        rows.append(f"{n:>5}  {str(s['ahead'].values):<{label}}"
                    f"{_number(float(s['difference']), w, d)}{ivs}"
                    f"{float(s['p_ahead']):{len(a) + 11}.3f}")
    return rows


def _pair_B(ds, p):
    """The budgets a pair of models shares: the smaller of their B."""
    pair = ds.isel(pair=p)
    return int(min(ds["B"].sel(model=str(pair[k].values)) for k in ("model_a", "model_b")))


def _budget_lines(ds):
    target = ds.attrs["target"]
    lines = [f"budget to reach {target:g}:"]

    def when(v):
        return "not within B" if v != v else f"n = {int(v)}"

    for model in ds["model"].values:
        for est in ds["estimator"].values:
            s = ds.sel(model=model, estimator=est)
            ivs = "; ".join(f"{m} interval's pessimistic end: "
                            f"{when(float(s['budget_interval'].sel(ci_method=m)))}"
                            for m in ds["ci_method"].values)
            lines.append(f"  {model} ({est}): estimate {when(float(s['budget']))}; {ivs}")
    return lines


def _check_lines(ds, ns_of, seconds, d):
    a = ds.attrs
    lo, hi = a["check_bounds"]
    boot = "bootstrap" in ds["ci_method_kind"].values.tolist()
    lines = [f"self-check: {a['check_replicates']:,} searches of each model's B simulated from "
             f"the centered KDE of its scores on [{lo:g}, {hi:g}]"
             + (f", {a['check_resamples']:,} resamples each" if boot else "")
             + f"; {seconds:.1f} s",
             "coverage of the intervals [Clopper-Pearson 95% bounds] at the KDE's exact curve:"]
    cols = [(str(e), str(m)) for e in ds["estimator"].values for m in ds["ci_method"].values]
    for model in ds["model"].values:
        sub = ds.sel(model=model)
        B = int(sub["B"])
        lines.append(f"  {model} (B = {B})")
        lines.append(f"{'n':>7}{'KDE theta':>11}" + "".join(f"{e + ' ' + m:>24}" for e, m in cols))
        for n in ns_of(B):
            s = sub.sel(n=n)
            row = f"{n:>7}{_number(float(s['check_theta']), 11, d)}"
            for e, m in cols:
                c = s.sel(estimator=e, ci_method=m)
                row += (f"{float(c['check_coverage']):.3f} [{float(c['check_coverage_lower']):.3f}"
                        f", {float(c['check_coverage_upper']):.3f}]").rjust(24)
            lines.append(row)
    if "check_wrong" in ds:
        lines.append("ranking errors: how often one search of each (the smaller B) ranks the "
                     "pair opposite to the KDEs' exact curves")
        for p in range(ds.sizes["pair"]):
            sub = ds.isel(pair=p)
            a_, b_ = str(sub["model_a"].values), str(sub["model_b"].values)
            nn = _pair_B(ds, p)
            for est in ds["estimator"].values:
                w = sub.sel(estimator=est)
                cells = ", ".join(f"n={n}: {float(w['check_wrong'].sel(n=n)):.3f}"
                                  for n in ns_of(nn))
                lines.append(f"  {a_} vs {b_} ({est}): {cells}")
    return lines


def run(args):
    check_outputs(args)
    if args.x_axis == "time" and args.time_field is None:
        raise UserError("--x-axis time needs --time-field")
    if args.check:  # before any work, and named by their own flags
        check.replicates(args.check_replicates, "check_replicates")
        check.integer(args.check_resamples, "check_resamples", minimum=2)
    searches = _read(args)
    with Timer() as t:
        ds = curve(searches, estimators=args.estimators, ci_methods=args.ci_methods,
                   level=args.level, resamples=args.resamples, seed=args.seed,
                   bounds=args.bounds, minimize=args.minimize, target=args.target,
                   metric=args.metric)
    for s in searches:
        print(_describe(s))
    a = ds.attrs
    kinds = dict(zip(ds["ci_method"].values.tolist(), ds["ci_method_kind"].values.tolist()))
    how = []
    if "bootstrap" in kinds.values():
        how.append(f"{a['resamples']:,} bootstrap resamples (seed {a['seed']})")
    bands = [m for m, k in kinds.items() if k == "band"]
    if bands:
        lo, hi = a["bounds"]
        how.append(f"the {', '.join(bands)} band{'s' if len(bands) > 1 else ''} on the "
                   f"score range [{lo:g}, {hi:g}]")
    best = "lowest" if args.minimize else "best"
    print(f"expected {best} {a['metric']} after n trials; {a['level']:.0%} intervals from "
          f"{' and '.join(how)}; {t.seconds:.2f} s")
    d = _decimals(ds)
    for model in ds["model"].values:
        sub = ds.sel(model=model)
        B = int(sub["B"])
        if ds.sizes["model"] > 1:
            print(f"\n{model} (B = {B})")
        print("\n".join(_model_table(sub, select_ns(B, args.all), d)))
    diff_how = (["bootstrap methods: percentile interval of the bootstrap differences"]
                if "bootstrap" in kinds.values() else []) + \
        ([f"bands: both models' {1 - (1 - a['level']) / 2:.1%} bands combined"] if bands else [])
    for p in range(ds.sizes.get("pair", 0)):
        sub = ds.isel(pair=p)
        nn = _pair_B(ds, p)
        for est in ds["estimator"].values:
            print(f"\n{sub['model_a'].values} vs {sub['model_b'].values} ({est}), n up to {nn}: "
                  f"{a['level']:.0%} intervals for the difference ({'; '.join(diff_how)}); "
                  f"P(ahead) from {a['resamples']:,} bootstrap differences")
            print("\n".join(_pair_table(ds, p, str(est), select_ns(nn, args.all), a["level"],
                                         d)))
    if args.target is not None:
        print()
        print("\n".join(_budget_lines(ds)))
    if args.check:
        with Timer() as tc:
            chk = self_check(searches, estimators=args.estimators, ci_methods=args.ci_methods,
                             level=args.level, bounds=args.bounds, minimize=args.minimize,
                             replicates=args.check_replicates, resamples=args.check_resamples,
                             seed=args.seed, workers=args.workers, progress=not args.quiet)
        ds = ds.merge(chk, join="exact", compat="no_conflicts", combine_attrs="no_conflicts")
        ds.attrs.update(chk.attrs)
        print()
        print("\n".join(_check_lines(ds, lambda B: select_ns(B, args.all), tc.seconds, d)))
        warnings = check_warnings(ds)
        for w in warnings:
            print(f"warning: {w}")
        if not warnings:
            print(f"ok: coverage stayed within 0.05 of {a['level']:.0%} at every n")
        elif not bands:
            print("distribution-free bands hold at every n whatever the distribution: try "
                  "--ci-methods ld-equal-tailed --bounds LO,HI")
    from ..plots import plot_curve

    save_outputs(args, ds, lambda d, path: plot_curve(d, path, x=args.x_axis,
                                                     log_x=args.log_x))
    return 0
