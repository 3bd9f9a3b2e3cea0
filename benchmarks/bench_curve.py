"""Benchmark of ``evpsim.curve``, its distribution-free bands and the self-check.

What a researcher runs on their own scores, beside the obvious alternative.
Prints one markdown table:

* the JIT warm-up on its own: the first call of ``evpsim.curve`` and of
  ``evpsim.self_check`` in a fresh process minus a second call there, on
  small inputs (they use the same kernels as large ones), with how many
  kernels numba loaded from its cache and how many functions it compiled
  (``--cold``: an empty temporary cache, so everything compiles);
* ``evpsim.curve`` on the first 1,000 MultiNLI DeBERTa-base accuracies,
  R = 10,000 resamples, V, percentile, every n (goal: at most 2 s warm),
  beside ``scipy.stats.bootstrap`` with a vectorized statistic giving V at
  every n at once (scipy at its best), on the same scores and R; the
  default interval, gpd-tail-bounded, on the same scores and R, beside
  percentile (these accuracies lie in [0, 1] on a lattice of step 1/9,815,
  so ``curve`` takes (0, 1) as their range and the default fits
  gpd-tail-lattice's tail there, its end at most 1, with no score at the
  floor; goal: at most 5 s warm); the median curve
  (``curve="median"``) with its default interval, order-statistic, beside
  percentile on the median curve (goal: at most 5 s); and, beside the
  default (with their cost relative to percentile's in the note),
  gpd-tail (the continuous tail) and the calibrated kind's
  gpd-tail-calibrated and gpd-tail-fdb (no goal), all on the same scores
  and R;
* the bands on the first 50 Reuters MLP F1 scores, bounds (0, 1):
  ``curve(..., ci_methods=band)`` for ``dkw``, ``ks``, ``ld-equal-tailed``
  and ``ld-highest-density`` beside opda's
  ``EmpiricalDistribution.confidence_bands`` and its tuning-curve bounds
  at every n. Both libraries calibrate an LD band once per process and
  cache it (evpsim exactly, per (B, level); opda by simulating 100,000
  samples, per (B, level, generator)): the first call and later calls are
  separate rows. The LD bands again on the 1,000 MultiNLI scores (evpsim
  only, unless ``--opda-large``: opda takes minutes there);
* ``evpsim.self_check`` (M = 1,000 simulated searches, R = 2,000
  resamples, V) of percentile on the 50 SST-2 BCN GloVe accuracies,
  beside a loop over ``scipy.stats.bootstrap`` on searches drawn from the
  same centered KDE, timed on ``--scipy-samples`` of them and extrapolated
  per search to M; and of the default, gpd-tail-bounded, beside
  percentile's;
* the command ``python -m evpsim curve FILE --check --bounds 0,1`` on that
  file, as a subprocess, warm: median of ``--cli-runs`` runs after one
  unmeasured run, with ``--ci-methods percentile`` (goal: at most 10 s)
  and with the default gpd-tail-bounded (goal: at most 60 s, a check that
  stays worth waiting for);
* the self-check as ``evpsim curve A B --check`` runs it (default sizes:
  at most 1,000 searches, stopping once every verdict is settled;
  resamples by B), of the default gpd-tail-bounded beside percentile's,
  timed side by side in one run, on the Reuters MLP and LSTM searches
  (goal: the default at most 3x percentile's; neither search has a score
  at the floor, so the default is gpd-tail-lattice's tail with its end at
  most 1: on the MLP's lattice of step 1/10,000, and on the lattice of the
  grid the LSTM's KDE draws from, which its simulated searches lie on)
  and, given ``--opda DIR`` (a folder
  holding opda's ``convnext-convnext-tiny_tuning.results.jsonl`` and
  ``alexnet-alexnet_tuning.results.jsonl``), on those two searches (goal:
  the default under 2 minutes); each with its verdicts (coverage below 90%
  at some n, or not), and with ``--full-size`` beside those of the check
  at the earlier fixed sizes (M = 1,000, R = 2,000, every search: 17
  minutes on the opda pair). ``--self-check-only`` runs this part alone.

evpsim and opda rows are the fastest of ``--repeat`` warm runs; ``--quick``
uses tiny sizes (a smoke run; the goals do not apply). CPU time is the
process's (all threads) plus that of finished child processes (opda's
worker pool, the CLI): with other work on the machine the wall times grow
but CPU times stay put. Run:
``python benchmarks/bench_curve.py [--repeat 3] [--cold] [--quick]``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numba
import numpy as np
from opda.nonparametric import EmpiricalDistribution
from scipy import stats

import evpsim
from evpsim import bands
from evpsim._kernels.lattice import lattice_of
from evpsim.intervals.family import CURVE_CI_METHOD, CURVE_QUANTILE_CI_METHOD
from evpsim.studies.selfcheck import RESAMPLES, SHORTFALL, coverage_warnings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CURVE_FILE = "mnli_deberta_base_acc.txt"
BANDS_FILE = "reuters_mlp_f1.txt"
CHECK_FILE = "sst2_bcn_glove_acc.txt"
BANDS = ("dkw", "ks", "ld-equal-tailed", "ld-highest-density")
LEVEL = 0.95
BOUNDS = (0.0, 1.0)
CHECK_DEFAULTS = {"replicates": inspect.signature(evpsim.self_check).parameters["replicates"]
                  .default, "resamples": RESAMPLES}
FULL = {"curve_B": 1000, "curve_R": 10_000, "band_B": 50, "band_large_B": 1000,
        "check_M": CHECK_DEFAULTS["replicates"], "check_R": CHECK_DEFAULTS["resamples"]}
QUICK = {"curve_B": 100, "curve_R": 1000, "band_B": 20, "band_large_B": 100, "check_M": 20,
         "check_R": 200}
GOALS = {"curve": 2.0, "cli": 10.0, "curve_default": 5.0, "cli_default": 60.0,
         "curve_median": 5.0}
#: the mean curve's default interval
DEFAULT = CURVE_CI_METHOD
#: the median curve's default interval
MEDIAN_DEFAULT = CURVE_QUANTILE_CI_METHOD
#: intervals for the mean curve timed beside the default
MEAN_EXTRA = ("gpd-tail", "gpd-tail-calibrated", "gpd-tail-fdb")
#: the self-check of the default interval: at most this many times percentile's on the
#: Reuters pair, and at most this many seconds on the opda pair
CHECK_RATIO, CHECK_OPDA = 3.0, 120.0
#: opda's searches, as paths inside a checkout of opda (nicholaslourie/opda)
OPDA_FILES = {"ConvNeXt": "data/convnext/convnext-tiny_tuning.results.jsonl",
              "AlexNet": "data/alexnet/alexnet_tuning.results.jsonl"}


def timed(fn, repeat=1):
    """Wall and CPU seconds of the fastest of ``repeat`` calls, and its result.

    CPU counts every thread of this process and the finished child processes.
    """
    best = None
    for _ in range(repeat):
        t0 = os.times()
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        w, c, t1 = time.perf_counter() - w0, time.process_time() - c0, os.times()
        c += (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
        best = (w, c, out) if best is None or w < best[0] else best
    return best


def read_scores(data, name, count):
    """The first ``count`` scores of ``data / name`` (exits with a message if absent)."""
    path = Path(data) / name
    if not path.is_file():
        sys.exit(f"bench_curve.py: {path} not found; give the folder of the shared score "
                 f"files with --data DIR")
    xs = np.loadtxt(path, ndmin=1)
    if xs.size < count:
        sys.exit(f"bench_curve.py: {path} holds {xs.size} scores, {count} needed")
    return xs[:count]


def v_statistic(B):
    """V at every n = 1..B at once, for ``scipy.stats.bootstrap(vectorized=True)``."""
    w = evpsim.estimator_weights("V", B)

    def stat(data, axis=-1):
        return np.moveaxis(np.sort(data, axis=-1) @ w.T, -1, 0)

    return stat


def scipy_curve(xs, resamples, batch, seed=0):
    """Percentile intervals for V at every n by one ``scipy.stats.bootstrap`` call."""
    ci = stats.bootstrap((xs,), v_statistic(xs.size), n_resamples=resamples, batch=batch,
                         method="percentile", confidence_level=LEVEL, vectorized=True,
                         rng=np.random.default_rng(seed)).confidence_interval
    return ci.low, ci.high


def opda_bands(xs, method, generator):
    """Lower and upper tuning-curve bounds at every n from opda's CDF band."""
    ns = np.arange(1, xs.size + 1)
    with warnings.catch_warnings():  # ties: opda warns that coverage is then conservative
        warnings.simplefilter("ignore", RuntimeWarning)
        lo_cdf, _, hi_cdf = EmpiricalDistribution.confidence_bands(
            xs, LEVEL, a=BOUNDS[0], b=BOUNDS[1], method=method.replace("-", "_"),
            generator=generator)
    return hi_cdf.average_tuning_curve(ns), lo_cdf.average_tuning_curve(ns)


def curve_rows(xs, R, repeat, batch, quick):
    """Table rows of ``evpsim.curve`` on the scores ``xs`` with ``R`` resamples.

    V with percentile beside ``scipy.stats.bootstrap``; with the default
    (:data:`DEFAULT`) beside percentile, and gpd-tail and the calibrated
    kind's methods beside the default; the median curve with its default interval
    beside percentile on the same curve. Returns ``rows``, ``gap`` (the
    largest difference between evpsim's and scipy's percentile bounds),
    ``missing`` (per method, the budgets n without an interval) and
    ``step`` (the lattice of the scores, 0 for none).
    """
    B, rows, missing = xs.size, [], {}
    head = f"`curve`, {B:,} scores, R = {R:,}"

    def run(method, curve="mean"):
        """Time ``curve`` with ``method`` (None: the default) and note its missing n."""
        w, c, ds = timed(lambda: evpsim.curve(xs, ci_methods=method, resamples=R, curve=curve),
                         repeat)
        for m in ds["ci_method"].values:
            missing[f"{m} ({curve})"] = int(np.isnan(ds["lower"].sel(ci_method=m)).sum())
        return w, c, ds

    w, c, ds = run("percentile")
    sw, sc, (slo, shi) = timed(lambda: scipy_curve(xs, R, batch))
    rows.append((f"{head}, V, percentile, every n", w, c,
                 "`scipy.stats.bootstrap`, vectorized V at every n", sw, sc, sw / w,
                 goal("curve", w, quick)))
    iv = ds.sel(model="model", estimator="V", ci_method="percentile")
    gap = max(np.abs(iv["lower"].values - slo).max(), np.abs(iv["upper"].values - shi).max())
    gw, gc, _ = run(None)
    rows.append((f"{head}, V, {DEFAULT} (the default), every n", gw, gc,
                 f"evpsim percentile, the row above (ratio: its cost relative to {DEFAULT}'s)",
                 w, c, w / gw, goal("curve_default", gw, quick)))
    pw, pc, _ = run("percentile", "median")
    mw, mc, _ = run(None, "median")
    rows.append((f"{head}, median curve (estimator quantile), {MEDIAN_DEFAULT} (its default), "
                 f"every n", mw, mc, f"evpsim percentile on the median curve (ratio: its cost "
                 f"relative to {MEDIAN_DEFAULT}'s)", pw, pc, pw / mw,
                 goal("curve_median", mw, quick)))
    for method in MEAN_EXTRA:
        ew, ec, _ = run(method)
        rows.append((f"{head}, V, {method}, every n", ew, ec,
                     f"evpsim {DEFAULT}, the default's row (ratio: its cost relative to "
                     f"{method}'s)", gw, gc, gw / ew, f"{ratio_text(ew / w)} percentile's wall"))
    return {"rows": rows, "gap": gap, "missing": missing, "step": lattice_of(np.sort(xs))[0]}


def band_rows(ys, method, repeat, with_opda, gaps):
    """Table rows for one band on scores ``ys``, evpsim beside opda.

    An LD band gets two rows: the first call in a process (evpsim's
    calibration cache cleared before each run; opda given a new generator,
    which it keys its cache on) and later calls (calibration cached). Sets
    ``gaps[method, B]`` to the largest difference between the bounds.
    """
    B, rows = ys.size, []
    skipped = "opda: skipped, takes minutes (--opda-large)"

    def ev():
        return evpsim.curve(ys, ci_methods=method, bounds=BOUNDS)

    def ev_first():
        bands._ld_bounds.cache_clear()  # calibrate again, as a new process would
        return ev()

    def opda(generator):
        """Time opda; ``generator()`` gives the generator of each run."""
        if not with_opda:
            return np.nan, np.nan, None
        return timed(lambda: opda_bands(ys, method, generator()), repeat)

    gen, later, alt = None, "every call", "opda"
    if method.startswith("ld-"):
        w, c, _ = timed(ev_first, repeat)
        ow, oc, _ = opda(lambda: np.random.default_rng(0))  # a new one each run
        rows.append((f"`curve` {method}, {B:,} scores, every n: first call (calibrates)", w, c,
                     "opda, new generator (simulates)" if with_opda else skipped,
                     ow, oc, ow / w, ""))
        gen, later = np.random.default_rng(0), "later calls (calibration cached)"
        alt = "opda, same generator (cached)"
        if with_opda:
            opda_bands(ys, method, gen)  # opda calibrates here; the timed calls reuse it
    w, c, ds = timed(ev, repeat)
    ow, oc, got = opda(lambda: gen)
    rows.append((f"`curve` {method}, {B:,} scores, every n: {later}", w, c,
                 alt if with_opda else skipped, ow, oc, ow / w, ""))
    if got is not None:
        iv = ds.sel(model="model", estimator="V", ci_method=method)
        gaps[method, B] = max(np.abs(iv["lower"].values - got[0]).max(),
                              np.abs(iv["upper"].values - got[1]).max())
    return rows


def scipy_check(samples, theta, resamples, seed=0):
    """Coverage counts at every n of scipy percentile intervals for V, one call per search."""
    rng = np.random.default_rng(seed)
    stat = v_statistic(samples[0].size)
    hits = np.zeros(theta.size)
    for x in samples:
        ci = stats.bootstrap((x,), stat, n_resamples=resamples, rng=rng, method="percentile",
                             confidence_level=LEVEL, vectorized=True).confidence_interval
        hits += (ci.low <= theta) & (theta <= ci.high)
    return hits


def kernel_cache_counts():
    """Kernels numba loaded from its cache and functions it compiled, in evpsim's modules.

    Counts signatures of the dispatchers held by evpsim's modules: a kernel
    loaded from the cache brings the functions it calls along, while with
    an empty cache each of those functions compiles (and counts) itself.
    """
    seen = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("evpsim"):
            for obj in vars(mod).values():
                if isinstance(obj, numba.core.registry.CPUDispatcher):
                    seen[id(obj)] = obj
    hits = sum(sum(d.stats.cache_hits.values()) for d in seen.values())
    misses = sum(sum(d.stats.cache_misses.values()) for d in seen.values())
    return hits, misses


def small_calls(data):
    """Small calls of ``curve`` and ``self_check``: they load or compile every kernel."""
    xs = read_scores(data, CURVE_FILE, 20)
    ys = read_scores(data, CHECK_FILE, 10)
    return {"curve": lambda: evpsim.curve(xs, resamples=64),
            "self_check": lambda: evpsim.self_check(ys, replicates=8, resamples=32)}


def first_calls(data):
    """In a fresh process: first minus second call of :func:`small_calls` (JSON)."""
    out = {}
    for name, fn in small_calls(data).items():
        first, warm = timed(fn), timed(fn)
        out[name] = [first[0] - warm[0], first[1] - warm[1]]
    out["cache"] = kernel_cache_counts()
    print(json.dumps(out))


def warmup_subprocess(data, cold):
    """Run :func:`first_calls` in a fresh interpreter; ``cold``: empty numba cache."""
    env = dict(os.environ)
    cache = tempfile.mkdtemp(prefix="evpsim-bench-cache-") if cold else None
    if cold:
        env["NUMBA_CACHE_DIR"] = cache
    cmd = [sys.executable, __file__, "--first-calls", "--data", str(data)]
    try:
        t0 = time.perf_counter()
        res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        total = time.perf_counter() - t0
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)
    return json.loads(res.stdout.strip().splitlines()[-1]), total


def cli_runs(cmd, runs):
    """Median-wall run (wall, CPU) of ``runs`` warm runs of ``cmd``, after one unmeasured."""
    with tempfile.TemporaryDirectory(prefix="evpsim-bench-cli-") as cwd:
        def once():
            return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)

        once()
        times = sorted(timed(once)[:2] for _ in range(runs))
    return times[len(times) // 2]


def ratio_text(ratio):
    """``ratio`` as ``12x``, ``1.3x`` or ``0.029x`` (empty for NaN)."""
    if np.isnan(ratio):
        return ""
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2g}x"


def goal(kind, wall, quick):
    """The goal's text and whether ``wall`` meets it."""
    if quick:
        return f"goal <= {GOALS[kind]:g} s (n/a with --quick)"
    return f"goal <= {GOALS[kind]:g} s: {'met' if wall <= GOALS[kind] else 'MISSED'}"


def verdicts(ds):
    """Each model's verdict: ``ok``, or where its coverage fell below the line."""
    lines = coverage_warnings(ds)
    out = []
    for model in ds["model"].values:
        who = f"{model}: " if ds.sizes["model"] > 1 else ""
        found = [re.match(r"(at .*?), \d+% intervals", ln[len(who):]).group(1)
                 for ln in lines if ln.startswith(who + "at ")]
        out.append(f"{model} {'; '.join(found) if found else 'ok'}")
    return ", ".join(out)


def check_pairs(data, opda):
    """The pairs of searches of the side-by-side self-check: ``(name, searches)``.

    opda's searches are read with their failed runs dropped (B = 441 and 463,
    the sizes the goal names); counted at the worst score, ConvNeXt has
    B = 512 and its check costs about a third more.
    """
    pairs = [("Reuters MLP, LSTM", evpsim.read_searches(
        [evpsim.search_path("reuters-mlp"), evpsim.search_path("reuters-lstm")],
        labels=["MLP", "LSTM"]))]
    if opda is not None:
        pairs.append(("opda ConvNeXt, AlexNet", evpsim.read_searches(
            [opda / f for f in OPDA_FILES.values()], field="learning_curve.top_1",
            reduce="max", labels=list(OPDA_FILES), failed="drop")))
    return pairs


def self_check_section(pairs, full_size, quick):
    """The default self-check beside percentile's, timed side by side, with verdicts."""
    small = dict(replicates=64, resamples=100) if quick else {}
    rows = []
    for name, searches in pairs:
        Bs = ", ".join(f"{s.label} {s.scores.size}" for s in searches)
        runs = {}
        for method in (DEFAULT, "percentile"):  # one after the other, in one run
            runs[method] = timed(lambda: evpsim.self_check(
                searches, ci_methods=method, bounds=BOUNDS, seed=0, **small))
        if full_size:
            full = {m: timed(lambda: evpsim.self_check(
                searches, ci_methods=m, bounds=BOUNDS, seed=0, stop=False,
                resamples=small.get("resamples", RESAMPLES), **(
                    {"replicates": small["replicates"]} if quick else {})))
                for m in (DEFAULT, "percentile")}
        base = runs["percentile"][0]
        for method, (w, c, ds) in runs.items():
            sizes = ", ".join(f"{m} {int(d):,} x R {int(r):,}" for m, d, r in zip(
                ds["model"].values, ds["check_searches"].values, ds["check_resamples"].values))
            if method == DEFAULT:
                limit = (f"<= {CHECK_RATIO:g}x percentile's" if name.startswith("Reuters")
                         else f"<= {CHECK_OPDA:g} s")
                met = w <= CHECK_RATIO * base if name.startswith("Reuters") else w <= CHECK_OPDA
                note = f"goal {limit}: {'met' if met else 'MISSED'}"
            else:
                note = ""
            was = (f"{verdicts(full[method][2])} ({full[method][0]:.0f} s)" if full_size
                   else "(--full-size)")
            ratio = f"{ratio_text(w / base)} ({ratio_text(c / runs['percentile'][1])})"
            rows.append((f"{name} (B: {Bs}), {method}", sizes, w, c, ratio, verdicts(ds),
                         was, note + (" (n/a with --quick)" if quick and note else "")))
    print(f"\nThe self-check (`evpsim.self_check` as `curve --check` runs it: at most 1,000 "
          f"searches, stopping once every n's verdict is settled, resamples by B; bounds "
          f"(0, 1), seed 0), the default {DEFAULT} and percentile one after the other in this "
          f"run; verdict: where coverage fell more than {SHORTFALL:g} below 95% (ok: nowhere); "
          f"before: the check at fixed sizes (M = 1,000, R = 2,000, every search).\n")
    print("| searches, CI method | searches x resamples per model | wall s | CPU s "
          "| / percentile's wall (CPU) | verdict | verdict before (its wall) | goal |")
    print("|---|---|---:|---:|---:|---|---|---|")
    for name, sizes, w, c, ratio, verdict, was, note in rows:
        print(f"| {name} | {sizes} | {w:.1f} | {c:.1f} | {ratio} | {verdict} "
              f"| {was} | {note} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA,
                        help=f"folder of the shared score files (default {DATA})")
    parser.add_argument("--repeat", type=int, default=3,
                        help="warm runs per evpsim and opda row; the fastest is reported "
                             "(default 3)")
    parser.add_argument("--scipy-samples", type=int, default=10,
                        help="simulated searches for the scipy self-check loop (default 10)")
    parser.add_argument("--scipy-batch", type=int, default=None,
                        help="resamples per batch of the scipy curve (default: all at once)")
    parser.add_argument("--cli-runs", type=int, default=3,
                        help="measured runs of the CLI command; the median is reported "
                             "(default 3)")
    parser.add_argument("--cold", action="store_true",
                        help="JIT warm-up with an empty temporary numba cache (compiles all)")
    parser.add_argument("--opda-large", action="store_true",
                        help="also time opda's LD bands on 1,000 scores (minutes)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, for a smoke run (goals do not apply)")
    parser.add_argument("--opda", type=Path, metavar="DIR",
                        help="a checkout of opda (its data/convnext and data/alexnet results "
                             "files): also self-check that pair")
    parser.add_argument("--full-size", action="store_true",
                        help="also run the self-check at the earlier fixed sizes (M = 1,000, "
                             "R = 2,000, every search) for its verdicts (17 minutes on the "
                             "opda pair)")
    parser.add_argument("--self-check-only", action="store_true",
                        help="run the side-by-side self-check part alone")
    parser.add_argument("--first-calls", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.self_check_only:
        print(f"evpsim {evpsim.__version__}, {numba.get_num_threads()} numba threads on "
              f"{os.cpu_count()} CPUs; load average at start {os.getloadavg()[0]:.2f}.")
        pairs = check_pairs(args.data, args.opda)
        evpsim.self_check(pairs[0][1], ci_methods=f"{DEFAULT},percentile", replicates=16,
                          resamples=64)  # warm-up: the kernels loaded once
        self_check_section(pairs, args.full_size, args.quick)
        return
    sz = QUICK if args.quick else FULL
    if args.first_calls:
        first_calls(args.data)
        return

    xs = read_scores(args.data, CURVE_FILE, max(sz["curve_B"], sz["band_large_B"]))
    band_xs = read_scores(args.data, BANDS_FILE, sz["band_B"])
    check_xs = read_scores(args.data, CHECK_FILE, 50)
    load = os.getloadavg()[0]
    repeat, rows = args.repeat, []

    # this process's own warm-up; it also fills the numba cache for the subprocesses
    for fn in small_calls(args.data).values():
        fn()
    evpsim.curve(band_xs[:10], ci_methods=",".join(BANDS), bounds=BOUNDS)
    evpsim.curve(xs[:40], ci_methods=",".join(("percentile", DEFAULT) + MEAN_EXTRA),
                 resamples=64)
    evpsim.curve(xs[:40], ci_methods=f"{MEDIAN_DEFAULT},percentile", curve="median",
                 resamples=64)
    jit, jit_total = warmup_subprocess(args.data, args.cold)

    B, R = sz["curve_B"], sz["curve_R"]
    curve_out = curve_rows(xs[:B], R, repeat, args.scipy_batch, args.quick)
    rows += curve_out["rows"]

    # bands: evpsim vs opda
    band_gaps = {}
    for m in BANDS:
        rows += band_rows(band_xs, m, repeat, True, band_gaps)
    for m in ("ld-equal-tailed", "ld-highest-density"):
        rows += band_rows(xs[:sz["band_large_B"]], m, repeat, args.opda_large, band_gaps)

    # self-check: evpsim vs a loop over scipy.stats.bootstrap on KDE draws
    M, Rc, nb = sz["check_M"], sz["check_R"], check_xs.size
    w, c, chk = timed(lambda: evpsim.self_check(check_xs, ci_methods="percentile", replicates=M,
                                                resamples=Rc, stop=False), repeat)

    def kde_truth():
        fit = evpsim.fit_kde(check_xs, construction="centered", bounds=BOUNDS)
        truth = evpsim.load_kde(fit)
        return truth, truth.theta(np.arange(1, nb + 1))

    fw, fc, (truth, theta) = timed(kde_truth)
    k = min(args.scipy_samples, M)
    samples = [truth.sample(nb, seed=0, stream=i) for i in range(k)]
    lw, lc, hits = timed(lambda: scipy_check(samples, theta, Rc))
    sw, sc = fw + lw * M / k, fc + lc * M / k
    rows.append((f"`self_check`, {nb} scores, M = {M:,} (every search), R = {Rc:,}, V, "
                 f"percentile", w, c,
                 f"KDE fit + `scipy.stats.bootstrap` loop ({k} searches x {M / k:g})", sw, sc,
                 sw / w, "the bulk of `--check --ci-methods percentile`"))
    gw, gc, _ = timed(lambda: evpsim.self_check(check_xs, replicates=M, resamples=Rc,
                                                stop=False))
    rows.append((f"`self_check`, {nb} scores, M = {M:,} (every search), R = {Rc:,}, V, "
                 f"{DEFAULT} (the default)",
                 gw, gc, "evpsim percentile, the row above (ratio: its cost relative to "
                 f"{DEFAULT}'s)", w, c, w / gw, "the bulk of `--check`"))

    # the CLI
    for extra, kind in ((["--ci-methods", "percentile"], "cli"), ([], "cli_default")):
        cmd = [sys.executable, "-m", "evpsim", "curve", str(args.data / CHECK_FILE), "--check",
               "--bounds", "0,1", *extra]
        if args.quick:
            cmd += ["--resamples", str(R), "--check-replicates", str(M), "--check-resamples",
                    str(Rc)]
        w, c = cli_runs(cmd, args.cli_runs)
        rows.append(((f"`python -m evpsim curve {CHECK_FILE} --check --bounds 0,1"
                      f"{' ' + ' '.join(extra) if extra else ''}`"
                      f"{' (tiny sizes)' if args.quick else ''}, median of {args.cli_runs}"), w,
                     c, "", np.nan, np.nan, np.nan, goal(kind, w, args.quick)))

    hits_n, misses_n = jit["cache"]
    state = ("empty temporary cache (--cold)" if args.cold else
             "the numba cache as this run left it")
    print(f"{'--quick: tiny sizes, goals do not apply; ' if args.quick else ''}evpsim "
          f"{evpsim.__version__}, {numba.get_num_threads()} numba threads on {os.cpu_count()} "
          f"CPUs; load average at start {load:.2f}. Scores: `curve` and the LD bands on "
          f"{max(B, sz['band_large_B']):,}: the first of {CURVE_FILE}; the bands on "
          f"{sz['band_B']}: the first of {BANDS_FILE}; the self-check and the CLI: "
          f"{CHECK_FILE} ({nb}); bounds (0, 1), level {LEVEL}.\n")
    print(f"JIT warm-up, first minus second call in a fresh process ({state}; numba loaded "
          f"{hits_n} kernels from its cache and compiled {misses_n} functions): `curve` on "
          f"20 scores, R = 64: {jit['curve'][0]:.2f} s wall ({jit['curve'][1]:.2f} s CPU); "
          f"`self_check` on 10 scores, M = 8, R = 32: {jit['self_check'][0]:.2f} s wall "
          f"({jit['self_check'][1]:.2f} s CPU); the whole subprocess, start-up and imports "
          f"included: {jit_total:.1f} s\n")
    print("| run | evpsim wall s | evpsim CPU s | alternative | wall s | CPU s "
          "| ratio | goal / note |")
    print("|---|---:|---:|---|---:|---:|---:|---|")

    def num(v):
        return "" if np.isnan(v) else f"{v:.3f}"

    for name, w, c, alt, aw, ac, ratio, note in rows:
        print(f"| {name} | {num(w)} | {num(c)} | {alt} | {num(aw)} | {num(ac)} "
              f"| {ratio_text(ratio)} | {note} |")
    cov = chk["check_coverage"].sel(model="model", estimator="V", ci_method="percentile")
    step = curve_out["step"]
    lattice_text = (f"The {B:,} `curve` scores lie on a lattice of step 1/{1 / step:,.0f}, "
                    f"where {DEFAULT} fits gpd-tail-lattice's tail" if step > 0 else
                    f"The {B:,} `curve` scores lie on no lattice: {DEFAULT} fits gpd-tail's "
                    f"continuous tail there")
    gaps_text = ", ".join(f"{m} {k}" for m, k in curve_out["missing"].items())
    batching = ("all in one batch" if args.scipy_batch is None else
                f"in batches of {args.scipy_batch:,}")
    print(f"\nratio = alternative wall / evpsim wall; CPU includes every thread and finished "
          f"child processes. scipy curve: one call on the same scores, {R:,} resamples "
          f"{batching}, full size (nothing extrapolated); its intervals differ from "
          f"evpsim's by at most {curve_out['gap']:.1e} (Monte Carlo). {lattice_text}; "
          f"budgets n without an interval: {gaps_text}. opda: "
          f"`EmpiricalDistribution.confidence_bands(ys, {LEVEL}, a=0, b=1, method=..., "
          f"generator=...)` (n_jobs = CPUs for the LD calibration), then "
          f"`average_tuning_curve` of the upper and lower CDF bands for every n; evpsim's "
          f"first-call rows clear its in-process LD calibration cache before each run; max "
          f"|evpsim - opda| of the bounds: "
          + ", ".join(f"{m} (B = {b}) {g:.1e}" for (m, b), g in band_gaps.items())
          + " (opda's LD calibration is simulated).")
    print(f"scipy self-check: KDE fit and exact theta once, then one vectorized "
          f"`scipy.stats.bootstrap` call per simulated search, timed on {k} searches and "
          f"scaled by {M / k:g} (extrapolated per search). Coverage at n = 1, 10, {nb}: "
          f"evpsim (M = {M:,}) {float(cov.sel(n=1)):.3f}, {float(cov.sel(n=10)):.3f}, "
          f"{float(cov.sel(n=nb)):.3f}; scipy ({k} searches) {hits[0] / k:.2f}, "
          f"{hits[9] / k:.2f}, {hits[nb - 1] / k:.2f}. CLI: whole command, warm numba cache, "
          f"median of {args.cli_runs} after one unmeasured run.")
    self_check_section(check_pairs(args.data, args.opda), args.full_size, args.quick)


if __name__ == "__main__":
    main()
