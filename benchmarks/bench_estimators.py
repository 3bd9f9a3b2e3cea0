"""Benchmark of every kind of estimator: cost per simulated search at B = 50.

One ``evpsim.bias`` run (Monte Carlo, every n = 1..B) of each estimator on
the truncated normal N(0.6, 0.07^2) on [0, 1], B = 50, beside the obvious
alternative where one exists. Prints one markdown table:

* the numba L-statistic path: U, V, W (mean curve) and ``quantile``
  (median curve);
* a numba ``func=`` estimator (``normal-fit``: mean + SD x sqrt(2 ln n),
  registered here), which the kernels call per sample and n;
* the Python estimators: ``naive`` (NumPy, the batch at once), ``kde``
  (a KDE fit per sample) and ``opda-parametric`` (opda's fit per sample).

Each run's replicates are chosen for it so that the run takes about
``--seconds`` (default 3 s), from the time of a calibration run; the table
gives the replicates, the run's median wall and CPU time over ``--repeat``
runs (default 3) and the cost per search (wall / replicates, the search's
simulation and the moments included). Python estimators run on every
search of the run (``python_replicates`` = replicates).

The alternative is the same estimates computed one sample at a time, as
one would without evpsim: opda's ``EmpiricalDistribution(ys)`` and its
``u_tuning_curve``, ``v_tuning_curve``, ``quantile_tuning_curve`` and
``naive_tuning_curve``; W's weights applied to each sorted sample with
NumPy; the ``func=`` estimator's plain Python function; opda's
``NoisyQuadraticDistribution.fit`` called directly. It runs on the bias
run's own first searches (drawn again from the same streams: opda's fit
takes 2 to 10 s depending on the sample, so the two must see the same
ones), estimation only (no simulation, no moments), so the ratio
alternative / evpsim understates evpsim's advantage. Each alternative's
estimates are checked against evpsim's on the same samples.

JIT warm-up is reported on its own: for each estimator, the first run in
this process minus a second identical one (numba loads its kernels from
the cache, or compiles them if the cache is empty; a ``func=`` estimator
compiles its kernel in every new process).

Run: ``python benchmarks/bench_estimators.py [--seconds 3] [--repeat 3]
[--quick]`` (``--quick``: a smoke run of tiny sizes).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
import warnings

import numba
import numpy as np
from opda.nonparametric import EmpiricalDistribution
from opda.parametric import NoisyQuadraticDistribution

import evpsim
from evpsim.estimators import Context
from evpsim.engine.streams import bias_streams
from evpsim.estimators.targets import as_target

B = 50
TRUTH = "normal"
BOUNDS = (0.0, 1.0)
NS = np.arange(1, B + 1)
#: (estimator, curve, searches of its calibration runs, samples its alternative runs on:
#: None for all of the timed run's searches; unused where there is no alternative)
CASES = [("U", "mean", 20_000, 2000), ("V", "mean", 20_000, 2000),
         ("W", "mean", 20_000, 2000), ("quantile", "median", 20_000, 2000),
         ("normal-fit", "mean", 20_000, 100), ("naive", "mean", 2000, 2000),
         ("kde", "mean", 20, None), ("opda-parametric", "mean", 2, None)]
#: fewest replicates of a timed run
MIN_REPLICATES = 2


def normal_fit(sorted_sample, n):
    """Mean + SD x sqrt(2 ln n): a normal fit's rough expected best of n."""
    m = sorted_sample.size
    mean = sorted_sample.sum() / m
    sd = math.sqrt(((sorted_sample - mean) ** 2).sum() / (m - 1))
    return mean + sd * math.sqrt(2.0 * math.log(n))


def timed(fn):
    """Wall seconds of one call."""
    w0 = time.perf_counter()
    fn()
    return time.perf_counter() - w0


def median_times(fn, repeat):
    """Median wall and CPU seconds of ``repeat`` calls, and the last call's result."""
    runs, out = [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        runs.append((time.perf_counter() - w0, time.process_time() - c0))
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs), out


def nice(x):
    """The largest of 1, 2, 5 x 10^k at most ``x`` (at least MIN_REPLICATES)."""
    if x < MIN_REPLICATES:
        return MIN_REPLICATES
    k = 10 ** math.floor(math.log10(x))
    return max(MIN_REPLICATES, max(m * k for m in (1, 2, 5) if m * k <= x))


def bias_run(name, curve, replicates):
    """One Monte Carlo bias run of estimator ``name`` at B = 50, every n."""
    return lambda: evpsim.bias(TRUTH, B, estimators=name, curve=curve, method="mc",
                               replicates=replicates, python_replicates=replicates,
                               bounds=BOUNDS)


def _opda_direct(ys):
    dist = NoisyQuadraticDistribution.fit(ys, constraints={"convex": False},
                                          generator=np.random.default_rng(0))
    return dist.average_tuning_curve(NS)


def alternative(name):
    """(description, f(one sample) -> curve at NS) of the one-sample-at-a-time way."""
    w_weights = evpsim.estimator_weights("W", B)
    return {
        "U": ("opda `EmpiricalDistribution(ys).u_tuning_curve`",
              lambda ys: EmpiricalDistribution(ys).u_tuning_curve(NS)),
        "V": ("opda `EmpiricalDistribution(ys).v_tuning_curve`",
              lambda ys: EmpiricalDistribution(ys).v_tuning_curve(NS)),
        "W": ("NumPy per sample: `W @ np.sort(ys)`", lambda ys: w_weights @ np.sort(ys)),
        "quantile": ("opda `EmpiricalDistribution(ys).quantile_tuning_curve`",
                     lambda ys: EmpiricalDistribution(ys).quantile_tuning_curve(NS, q=0.5)),
        "normal-fit": ("the same function in plain Python, per n",
                       lambda ys: np.array([normal_fit(np.sort(ys), int(n)) for n in NS])),
        "naive": ("opda `EmpiricalDistribution(ys).naive_tuning_curve`",
                  lambda ys: EmpiricalDistribution(ys).naive_tuning_curve(NS)),
        "opda-parametric": ("opda `NoisyQuadraticDistribution.fit`, `average_tuning_curve`",
                            _opda_direct),
    }.get(name)


def run_alternative(name, curve, samples, repeat):
    """Median wall and CPU seconds per sample of the alternative, and its largest
    difference from evpsim's estimates of the same samples."""
    desc, fn = alternative(name)
    wall, cpu, theirs = median_times(lambda: np.array([fn(ys) for ys in samples]), repeat)
    ours = evpsim.get_estimator(name).estimates(samples, NS, Context(as_target(curve), BOUNDS))
    return desc, wall / len(samples), cpu / len(samples), float(np.abs(ours - theirs).max())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0,
                   help="the wall time each timed bias run is sized for (default 3)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs, median reported")
    p.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    args = p.parse_args(argv)
    if args.quick:
        args.seconds, args.repeat = 0.2, 1
    warnings.simplefilter("ignore", RuntimeWarning)  # opda on tied samples
    load = os.getloadavg()[0]
    t_reg = timed(lambda: evpsim.register_estimator(
        "normal-fit", func=normal_fit, description="mean + SD x sqrt(2 ln n)"))
    truth = evpsim.make_truth(TRUTH)
    rows, warmups = [], []
    for name, curve, calib, alt_m in CASES:
        if args.quick:
            calib = max(MIN_REPLICATES, calib // 20)
        first = timed(bias_run(name, curve, calib))
        second = timed(bias_run(name, curve, calib))
        warmups.append(f"{name} {max(first - second, 0.0):.2f} s")
        reps = nice(args.seconds * calib / second)
        wall, cpu, _ = median_times(bias_run(name, curve, reps), args.repeat)
        row = dict(name=name, kind=evpsim.get_estimator(name).kind, curve=curve, reps=reps,
                   wall=wall, cpu=cpu, per=wall / reps)
        if alternative(name) is not None:
            m = reps if alt_m is None else max(2, alt_m // 20) if args.quick else alt_m
            # the first m searches of the bias run (seed 0, the bias battery's streams)
            samples = truth.sample(m * B, seed=0, stream=bias_streams()).reshape(m, B)
            row["alt"] = run_alternative(name, curve, samples, args.repeat)
        rows.append(row)
    print(f"{'--quick: tiny sizes; ' if args.quick else ''}evpsim {evpsim.__version__}, "
          f"numba {numba.__version__}, {numba.get_num_threads()} numba threads on "
          f"{os.cpu_count()} CPUs; load average at start {load:.2f}. Truth: "
          f"{truth.description}; B = {B}, every n = 1..{B}; bias runs Monte Carlo only, "
          f"each sized for about {args.seconds:g} s, median of {args.repeat}.\n")
    print(f"JIT warm-up, first minus second calibration run in this process (numba cache as "
          f"it stands): {', '.join(warmups)}; registering the `func=` estimator (compiles "
          f"it): {t_reg:.2f} s\n")
    print("| estimator | kind | curve | bias run: searches | wall s | CPU s | per search | "
          "alternative (one sample at a time, estimation only) | per sample | ratio | "
          "max abs diff |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for r in rows:
        alt = ["none", "", "", ""]
        if "alt" in r:
            desc, per_w, _, diff = r["alt"]
            alt = [desc, _per(per_w), f"{per_w / r['per']:.1f}x", f"{diff:.1e}"]
        print(f"| {r['name']} | {r['kind']} | {r['curve']} | {r['reps']:,} | {r['wall']:.2f} "
              f"| {r['cpu']:.2f} | {_per(r['per'])} | " + " | ".join(alt) + " |")
    print("\nper search = the run's wall time / its searches (drawing each search of B = 50 "
          "and accumulating the moments included); per sample = the alternative's wall time "
          "per sample, estimates at every n only, on the run's first searches (opda-parametric: "
          "all of them; the others: up to 2,000); ratio = per sample / per search; max abs diff: "
          "between the alternative's estimates and evpsim's on those samples. CPU counts every "
          "thread of this process.")


def _per(seconds):
    """A time per search in the unit that suits it."""
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-4:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


if __name__ == "__main__":
    main()
