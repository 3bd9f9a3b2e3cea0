"""Benchmark of ``evpsim sweep``: the same 24-cell grid in-process, on two
local worker processes and on a two-worker dask.distributed LocalCluster.

The grid: the coverage battery (V, percentile; M samples, R resamples) for
four truths x six budgets. In-process, each cell uses every numba thread;
the workers run one cell each on one thread. The distributed runs include
starting their workers (which load the compiled kernels from numba's cache
once each) and shipping every cell back; the "overhead" column is a run's
wall time over the in-process one, minus one. The JIT warm-up (a one-cell
sweep in this process) is reported on its own. Every run's Dataset is
checked to be the same. Run:
``python benchmarks/bench_sweep.py [--replicates 1000] [--resamples 5000]``
(Tang et al.'s M and R).
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import xarray as xr

import evpsim

TRUTHS = ["normal", "tang-small", "kde:reuters-lstm", "kde:reuters-mlp"]
BS = [10, 20, 30, 40, 50, 60]


def timed(fn):
    """Wall seconds of one call, and its result."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replicates", type=int, default=1000)
    p.add_argument("--resamples", type=int, default=5000)
    args = p.parse_args()
    options = {"estimators": "V", "ci_methods": "percentile", "replicates": args.replicates,
               "resamples": args.resamples}
    axes = {"dist": TRUTHS, "B": BS}
    load = os.getloadavg()[0]
    warm, _ = timed(lambda: evpsim.sweep("coverage", {"dist": ["normal"], "B": [5]},
                                         options=dict(options, replicates=8, resamples=20)))
    runs = {}
    for label, kw in [("in-process (2 numba threads)", {}),
                      ("local, 2 worker processes x 1 thread", {"backend": "local",
                                                                "workers": 2}),
                      ("dask.distributed LocalCluster, 2 workers x 1 thread",
                       {"backend": "dask", "workers": 2})]:
        runs[label] = timed(lambda kw=kw: evpsim.sweep("coverage", axes, options=options,
                                                       seed=1, **kw))
    from dask.distributed import Client, LocalCluster

    def start_and_stop():
        with LocalCluster(n_workers=2, threads_per_worker=1,
                          dashboard_address="127.0.0.1:0") as cluster, Client(cluster):
            pass

    startup, _ = timed(start_and_stop)
    base_label = next(iter(runs))
    base, reference = runs[base_label]
    for label, (_, ds) in runs.items():
        xr.testing.assert_equal(reference, ds)
    print(f"evpsim {evpsim.__version__}, {numba.get_num_threads()} numba threads on "
          f"{os.cpu_count()} CPUs; load average at start {load:.2f}; 24 cells: coverage of V "
          f"(percentile), M = {args.replicates:,}, R = {args.resamples:,}, truths "
          f"{', '.join(TRUTHS)} x B = {', '.join(map(str, BS))}\n")
    print(f"JIT warm-up (a one-cell sweep in this process, compile or cache load): "
          f"{warm:.2f} s\n")
    print("| run | wall s | overhead vs in-process | goal |")
    print("|---|---:|---:|---|")
    for label, (wall, _) in runs.items():
        over = "" if label == base_label else f"{100 * (wall / base - 1):+.1f}%"
        goal = "" if label == base_label else "at most +15%"
        print(f"| {label} | {wall:.2f} | {over} | {goal} |")
    print(f"\nStarting and stopping the two-worker LocalCluster alone takes {startup:.2f} s. "
          f"Every run's Dataset is the same (checked). Load average at the end "
          f"{os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
