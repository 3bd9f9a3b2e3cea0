"""Benchmark of the bias battery: evpsim's numba engine vs plain NumPy/SciPy.

Run with ``python benchmarks/bench_bias.py``. Prints a markdown table.

* JIT warm-up: the first call in a process with an empty numba cache
  (compilation), reported separately from the warm timings.
* Monte Carlo: replicates x B per second for B = 30 and 50, estimators
  U, V, W for every n, 1,000,000 replicates (best of 3 warm runs).
* Baseline: the obvious NumPy/SciPy code for the same job
  (``scipy.stats.truncnorm.rvs``, ``np.sort``, a matrix product, power sums),
  timed on fewer replicates because it is slow; throughputs are compared.
* Exact method for B = 30 and 50.
* The CLI command ``python -m evpsim bias --dist normal --B 30``: first run
  with an empty cache, then a later run.
* Worker processes: the same command on 100,000 and 4,000,000 replicates
  (Monte Carlo only) with ``--workers 1`` and ``--workers 2``, warm cache:
  what a worker's start-up costs, and when it pays.
"""

import os
import subprocess
import sys
import tempfile
import time

CACHE = tempfile.mkdtemp(prefix="evpsim-bench-cache-")
os.environ["NUMBA_CACHE_DIR"] = CACHE  # cold cache: the first call compiles

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import evpsim  # noqa: E402


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def numpy_baseline(truth, B, M, seed=0):
    """The bias battery in plain NumPy/SciPy: sample, sort, matmul, sums."""
    rng = np.random.default_rng(seed)
    W = np.concatenate([evpsim.estimator_weights(e, B) for e in "UVW"])
    theta = np.tile(truth.theta(np.arange(1, B + 1)), 3)
    sums = np.zeros((W.shape[0], 4))
    for start in range(0, M, 50_000):
        m = min(50_000, M - start)
        xs = stats.truncnorm.rvs(truth.a, truth.b, loc=truth.mu, scale=truth.sigma,
                                 size=(m, B), random_state=rng)
        xs.sort(axis=1)
        d = xs @ W.T - theta
        d2 = d * d
        sums += np.stack([d.sum(0), d2.sum(0), (d2 * d).sum(0), (d2 * d2).sum(0)], axis=1)
    return sums


CLI = [sys.executable, "-m", "evpsim", "bias", "--dist", "normal", "--B", "30", "--quiet"]


def _wall(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def cli_times():
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="evpsim-cli-cache-"))
    out = [_wall(CLI, env) for _ in range(3)]
    workers = {}
    for reps in (100_000, 4_000_000):
        for w in (1, 2):
            cmd = CLI + ["--method", "mc", "--replicates", str(reps), "--workers", str(w)]
            workers[reps, w] = min(_wall(cmd, env) for _ in range(2))
    return out[0], min(out[1:]), workers


def main():
    import numba

    truth = evpsim.make_truth("normal")
    rows = []
    t0 = time.perf_counter()
    evpsim.bias(truth, B=30, replicates=10_000)
    warm = time.perf_counter() - t0
    rows.append(("JIT warm-up (first call, empty cache, compiles every kernel)",
                 f"{warm:.2f} s", ""))
    M = 1_000_000
    for B in (30, 50):
        t_mc = best_of(lambda: evpsim.bias(truth, B=B, method="mc", replicates=M))
        Mb = 100_000
        t_np = best_of(lambda: numpy_baseline(truth, B, Mb), repeat=1)
        rate_mc, rate_np = M * B / t_mc, Mb * B / t_np
        rows.append((f"Monte Carlo, B={B}, U/V/W, all n, {M:,} replicates",
                     f"{t_mc:.2f} s ({rate_mc / 1e6:.1f} M draws/s)",
                     f"NumPy/SciPy: {Mb * B / t_np / 1e6:.2f} M draws/s "
                     f"({t_np * M / Mb:.1f} s per {M:,}); ratio {rate_mc / rate_np:.0f}x"))
    for B in (30, 50):
        t_ex = best_of(lambda: evpsim.bias(truth, B=B, method="exact"))
        rows.append((f"exact method, B={B}, U/V/W, all n", f"{t_ex:.3f} s", ""))
    first, later, workers = cli_times()
    rows.append(("CLI `python -m evpsim bias --dist normal --B 30` (1M replicates + exact), "
                 "first run", f"{first:.1f} s wall", "compiles and caches the kernels"))
    rows.append(("same command, later runs", f"{later:.1f} s wall", "cached kernels"))
    for reps in (100_000, 4_000_000):
        one, two = workers[reps, 1], workers[reps, 2]
        rows.append((f"CLI, {reps:,} replicates, `--method mc --workers 2`", f"{two:.1f} s wall",
                     f"`--workers 1`: {one:.1f} s; workers / in-process {two / one:.2f}"))
    print(f"machine: {os.cpu_count()} cores, numba threads {numba.get_num_threads()}, "
          f"numpy {np.__version__}, numba {numba.__version__}\n")
    print("| what | evpsim | baseline / note |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")


if __name__ == "__main__":
    main()
