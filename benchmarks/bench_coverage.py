"""Benchmark of the coverage battery against a loop over ``scipy.stats.bootstrap``.

Tang et al. (2020)'s configuration: B = 50, M = 1000 samples, R = 5000
bootstrap resamples, every n = 1..50, one truth (the default truncated
normal). Prints a markdown table:

* the JIT warm-up (loading or compiling the kernels) on its own;
* warm wall and CPU times of evpsim (fastest of ``--repeat`` runs) for
  V x percentile, for U, V, W x percentile, basic, BCa, and for the
  distribution-free bands;
* ``scipy.stats.bootstrap`` for V x percentile on a reduced number of
  samples, extrapolated per sample to M = 1000: once with one call per
  sample and a vector-valued statistic (all n at once, scipy at its best)
  and once with one call per (sample, n), as a per-n study is usually
  written.

CPU time is the process's (all threads): with other work on the machine
the wall times grow but CPU times stay put. Run:
``python benchmarks/bench_coverage.py [--scipy-samples 20]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np
from scipy import stats

import evpsim

B, M, R = 50, 1000, 5000
TRUTH = "normal"


def timed(fn, repeat=1):
    """Wall and CPU seconds of the fastest of ``repeat`` calls, and its result."""
    best = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        run = (time.perf_counter() - w0, time.process_time() - c0, out)
        best = run if best is None or run[0] < best[0] else best
    return best


def scipy_statistic(ns):
    """V at budgets ``ns`` (vector-valued when several), for samples of any size."""
    ws = {m: evpsim.estimator_weights("V", m) for m in (B, B - 1)}

    def stat(data, axis=-1):
        m = data.shape[-1]
        w = ws[m][np.minimum(ns, m) - 1]
        est = np.sort(data, axis=-1) @ w.T
        return np.moveaxis(est, -1, 0) if len(ns) > 1 else est[..., 0]

    return stat


def scipy_loop(samples, theta, per_n, seed=0):
    """Coverage counts of scipy percentile intervals for V at every n."""
    rng = np.random.default_rng(seed)
    ns = np.arange(1, B + 1)
    hits = np.zeros(B)
    for x in samples:
        if per_n:
            for n in ns:
                ci = stats.bootstrap((x,), scipy_statistic([n]), n_resamples=R, rng=rng,
                                     method="percentile", vectorized=True).confidence_interval
                hits[n - 1] += ci.low <= theta[n - 1] <= ci.high
        else:
            ci = stats.bootstrap((x,), scipy_statistic(ns), n_resamples=R, rng=rng,
                                 method="percentile", vectorized=True).confidence_interval
            hits += (ci.low <= theta) & (theta <= ci.high)
    return hits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scipy-samples", type=int, default=20,
                        help="samples for the vector-valued scipy loop (default 20)")
    parser.add_argument("--scipy-per-n-samples", type=int, default=2,
                        help="samples for the per-n scipy loop (default 2)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="evpsim runs per row; the fastest is reported (default 2)")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    truth = evpsim.make_truth(TRUTH)
    theta = truth.theta(np.arange(1, B + 1))
    wall_jit, _, _ = timed(lambda: evpsim.coverage(truth, 10, replicates=16, resamples=64))
    kw = dict(replicates=M, resamples=R, seed=0)
    rows = []
    w, c, v = timed(lambda: evpsim.coverage(truth, B, estimators="V", ci_methods="percentile",
                                            **kw), args.repeat)
    rows.append(("evpsim: V x percentile", w, c, "budget 3 s"))
    w, c, _ = timed(lambda: evpsim.coverage(truth, B, estimators="U,V,W",
                                            ci_methods="percentile,basic,bca", **kw), args.repeat)
    rows.append(("evpsim: U,V,W x percentile,basic,bca", w, c, "budget 20 s"))
    w, c, _ = timed(lambda: evpsim.coverage(truth, B, estimators="V", ci_methods="dkw,ks", **kw),
                    args.repeat)
    rows.append(("evpsim: dkw, ks bands (no resampling)", w, c, ""))
    v_wall = rows[0][1]

    samples = [truth.sample(B, seed=0, stream=i) for i in range(args.scipy_samples)]
    w, c, hits = timed(lambda: scipy_loop(samples, theta, per_n=False))
    scale = M / args.scipy_samples
    rows.append((f"scipy: V x percentile, 1 call per sample, all n "
                 f"({args.scipy_samples} samples x {scale:g})", w * scale, c * scale,
                 f"ratio {w * scale / v_wall:.0f}x"))
    few = samples[:args.scipy_per_n_samples]
    w, c, _ = timed(lambda: scipy_loop(few, theta, per_n=True))
    scale = M / len(few)
    rows.append((f"scipy: V x percentile, 1 call per (sample, n) "
                 f"({len(few)} samples x {scale:g})", w * scale, c * scale,
                 f"ratio {w * scale / v_wall:.0f}x"))

    print(f"B = {B}, M = {M:,} samples, R = {R:,} resamples, every n; truth: "
          f"{truth.description}; {numba.get_num_threads()} numba threads on "
          f"{os.cpu_count()} CPUs; load average at start {load:.2f}\n")
    print(f"JIT warm-up (load or compile the kernels): {wall_jit:.2f} s\n")
    print("| run | wall s | CPU s | note |")
    print("|---|---:|---:|---|")
    for name, w, c, note in rows:
        print(f"| {name} | {w:.2f} | {c:.2f} | {note} |")
    cov = v["coverage"].sel(estimator="V", ci_method="percentile")
    print(f"\nV percentile coverage, evpsim (M = {M}): n=1 {float(cov.sel(n=1)):.3f}, "
          f"n=10 {float(cov.sel(n=10)):.3f}, n=20 {float(cov.sel(n=20)):.3f}, "
          f"n=50 {float(cov.sel(n=50)):.3f}; scipy ({args.scipy_samples} samples): "
          f"n=1 {hits[0] / len(samples):.3f}, n=20 {hits[19] / len(samples):.3f}")
    print("scipy rows: time for the reduced number of samples times M / samples "
          "(extrapolated per sample); ratio = scipy wall / evpsim V x percentile wall.")


if __name__ == "__main__":
    main()
