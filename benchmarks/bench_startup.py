"""Where users wait: first runs, start-up, the papers, a user's own estimator.

Run with ``python benchmarks/bench_startup.py [--repeat N] [--before DIR]``.
Prints a markdown table, each row beside its goal; with ``--before`` (a
checkout of an earlier commit, e.g. ``git worktree add /tmp/before REV``)
every command also runs against that code, side by side in the same run.

* Cold: each command in a fresh process with an empty ``NUMBA_CACHE_DIR``
  (nothing compiled yet, as after an install).
* Warm: the median of ``--repeat`` later runs on the cache the cold run left.
* The main job against the floor under it: its first and later runs
  beside ``python -c "import numpy, numba, xarray"`` (goals: first run at
  most 10 s, later runs at most 1.5 times the imports), and the fixed
  cost of numba's first cached function in a process.
* Compile time per kernel for the main job: numba's compile events in one
  cold process, each function's own time (callees excluded).
* ``reproduce tang2020`` at the paper's sizes on a warm cache: the whole
  command, and each figure's computation timed in the same run.
* A user's ``func=`` estimator: ``register_estimator`` and the first
  ``bias`` call in a fresh process whose library kernels are cached (a
  user's function is compiled in every process).

The alternative a user would otherwise wait for is Tang et al.'s own code
(about 24 h for Fig. 4 on this machine, measured before this project; not
rerun here).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PY = sys.executable
MAIN = ["bias", "--dist", "normal", "--B", "30"]
# each subcommand's first command in the README or the overview (smaller
# sizes where that is a long run)
COMMANDS = {
    "bias": MAIN,
    "coverage": ["coverage", "--dist", "normal", "--B", "50", "--estimators", "V"],
    "falseconc": ["falseconc", "--dist", "kde:reuters-lstm", "--B", "50"],
    "compare": ["compare", "--a", "kde:reuters-mlp", "--b", "kde:reuters-lstm", "--B", "25"],
    "curve": ["curve", "data:reuters-mlp", "data:reuters-lstm", "--labels", "MLP,LSTM"],
    "fit-kde": ["fit-kde", "data:reuters-lstm", "--name", "my-lstm", "--construction",
                "centered", "--bounds", "0,1", "--out", "{tmp}/my-lstm.nc"],
    "sweep": ["sweep", "coverage", "--dist", "normal,kde:reuters-lstm", "--B", "10,20",
              "--estimators", "V", "--ci-methods", "percentile", "--replicates", "200",
              "--resamples", "500", "--out", "{tmp}/sweep.nc"],
    "reproduce": ["reproduce", "dodge2019", "--out", "{tmp}/repro"],
    "list": ["list"],
}
BOOTSTRAP = """
import evpsim
xs = evpsim.make_truth("normal").sample(50, seed=1)
evpsim.bootstrap_intervals(xs, "U,V,W", ci_methods="percentile,basic,bca")
"""
USER_FUNC = """
import time
t0 = time.perf_counter()
import evpsim
t1 = time.perf_counter()

def top_half_mean(xs, n):
    k = (n + 1) // 2
    return xs[xs.shape[0] - k:].mean()

evpsim.register_estimator("top-half", func=top_half_mean)
t2 = time.perf_counter()
evpsim.bias("normal", 30, estimators=["V", "top-half"], method="mc", replicates=100_000)
t3 = time.perf_counter()
import sys
print(t1 - t0, t2 - t1, t3 - t2, file=sys.stderr)
"""
COMPILE_EVENTS = """
import collections, json, sys, time
from numba.core import event
own, stack = collections.defaultdict(float), []

class Listener(event.Listener):
    def on_start(self, ev):
        now = time.perf_counter()
        if stack:
            own[stack[-1][0]] += now - stack[-1][1]
        f = ev.data["dispatcher"].py_func
        stack.append([f.__module__.replace("evpsim._kernels.", "") + "." + f.__name__, now])

    def on_end(self, ev):
        now = time.perf_counter()
        name, start = stack.pop()
        own[name] += now - start
        if stack:
            stack[-1][1] = now

event.register("numba:compile", Listener())
from evpsim.cli import main
main(sys.argv[1:])
print(json.dumps(own), file=sys.stderr)
"""
IMPORTS = "import numpy, numba, xarray"
#: numba's fixed cost: the first cached function a process loads
NUMBA_FIRST = """
import pathlib, sys, time
source = pathlib.Path("tiny_kernel.py")
if not source.exists():  # rewritten, its cache would be stale
    source.write_text("from numba import njit\\n@njit(cache=True)\\n"
                      "def add_one(x):\\n    return x + 1\\n")
sys.path.insert(0, ".")
import numba
t0 = time.perf_counter()
import tiny_kernel
tiny_kernel.add_one(1)
print(time.perf_counter() - t0, file=sys.stderr)
"""
TANG = """
import json, sys, time
import evpsim.reproduce.tang2020 as T
times = {}
for name in ("_fig1", "_fig2", "_fig3", "_fig4", "_fig5"):
    def timed(*args, _f=getattr(T, name), _name=name, **kwargs):
        t0 = time.perf_counter()
        out = _f(*args, **kwargs)
        times[_name] = time.perf_counter() - t0
        return out
    setattr(T, name, timed)
from evpsim.cli import main
main(["reproduce", "tang2020", "--out", sys.argv[1]])
print(json.dumps(times), file=sys.stderr)
"""


def run(argv, cache, tmp, code=None):
    """Wall seconds of one process; its stderr. ``code``: evpsim's checkout."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("EVPSIM_QUICK", None)
    if code:
        env["PYTHONPATH"] = code
    argv = [a.replace("{tmp}", tmp) for a in argv]
    t0 = time.perf_counter()
    res = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp)
    wall = time.perf_counter() - t0
    if res.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{res.stderr}")
    return wall, res.stderr


def cold_and_warm(argv, repeat, code=None):
    cache, tmp = tempfile.mkdtemp(prefix="evpsim-cache-"), tempfile.mkdtemp(prefix="evpsim-")
    try:
        cold, _ = run(argv, cache, tmp, code)
        warm = statistics.median(run(argv, cache, tmp, code)[0] for _ in range(repeat))
    finally:
        shutil.rmtree(cache)
        shutil.rmtree(tmp)
    return cold, warm


def verdict(value, goal):
    return f"goal <= {goal:g} s: {'met' if value <= goal else 'not met'}"


def commands(repeat, before):
    """The first and later runs of every subcommand and of ``bootstrap_intervals``."""
    rows = []
    runs = {**{name: [PY, "-m", "evpsim", *cmd] for name, cmd in COMMANDS.items()},
            "bootstrap_intervals": [PY, "-c", BOOTSTRAP]}
    for name, argv in runs.items():
        print(f"  {name} ...", file=sys.stderr, flush=True)
        cold, warm = cold_and_warm(argv, repeat)
        old = cold_and_warm(argv, repeat, before) if before else None
        goal = 8 if name == "bias" else 10
        note = verdict(cold, goal)
        if name == "bias":
            note += f"; warm: {verdict(warm, 1.2)}"
        what = (f"`evpsim {' '.join(COMMANDS[name])}`".replace("{tmp}/", "")
                if name in COMMANDS else
                "`bootstrap_intervals` of 50 scores, U,V,W x percentile,basic,bca, R = 5,000")
        rows.append((what, cold, warm, old, note))
    print("| first run of | cold s | warm s (median) | "
          + ("before: cold s | before: warm s | " if before else "") + "goal |")
    print("|---|---:|---:|" + ("---:|---:|" if before else "") + "---|")
    for what, cold, warm, old, note in rows:
        was = f"{old[0]:.1f} | {old[1]:.2f} | " if old else ""
        print(f"| {what} | {cold:.1f} | {warm:.2f} | {was}{note} |")


def main_job(repeat, cache, tmp, before):
    """The main job's first and later runs beside the imports it cannot avoid."""
    imports = statistics.median(run([PY, "-c", IMPORTS], cache, tmp)[0]
                                for _ in range(repeat + 2))
    argv = [PY, "-m", "evpsim", *MAIN]
    for code, label in ((None, ""), (before, "before: ")) if before else ((None, ""),):
        cold, warm = cold_and_warm(argv, repeat, code)
        note = "" if code else (f" (goal <= 10 s: {'met' if cold <= 10 else 'not met'})")
        ratio = warm / imports
        goal = "" if code else f" (goal <= 1.5x: {'met' if ratio <= 1.5 else 'not met'})"
        print(f"\n{label}The main job, `evpsim {' '.join(MAIN)}`: first run {cold:.1f} s{note}; "
              f"later runs {warm:.2f} s (median of {repeat}), {ratio:.2f}x `{IMPORTS}` alone "
              f"({imports:.2f} s, median of {repeat + 2}){goal}.")
    run([PY, "-c", NUMBA_FIRST], cache, tmp)
    first = statistics.median(float(run([PY, "-c", NUMBA_FIRST], cache, tmp)[1].split()[-1])
                              for _ in range(repeat))
    print(f"\nnumba's fixed cost in a process: loading its first cached function (a 3-line "
          f"kernel) takes {first:.2f} s (median of {repeat}), part of every run of the main "
          f"job.")


def compile_times(cache, tmp):
    """numba's compile time per function of the main job, cold."""
    _, err = run([PY, "-c", COMPILE_EVENTS, *MAIN], cache, tmp)
    own = json.loads(err.strip().splitlines()[-1])
    top = sorted(own.items(), key=lambda kv: -kv[1])
    print(f"\nCompilation of the main job, cold: {sum(own.values()):.1f} s in {len(own)} "
          f"functions; the ten longest (own time, callees excluded): "
          + ", ".join(f"{k} {v:.2f} s" for k, v in top[:10]) + ".")


def user_function(cache, tmp, before):
    """A user's ``func=`` estimator, first use, library kernels cached."""
    for code, label in ((None, ""), (before, "before: ")) if before else ((None, ""),):
        run([PY, "-c", USER_FUNC], cache, tmp, code)  # caches the library kernels
        _, err = run([PY, "-c", USER_FUNC], cache, tmp, code)
        imp, reg, first = map(float, err.strip().splitlines()[-1].split())
        print(f"\n{label}A user's `func=` estimator, first use in a new process (library "
              f"kernels cached): `register_estimator` {reg:.2f} s + first `bias` call "
              f"(100,000 searches of B = 30, V and the user's estimator) {first:.2f} s = "
              f"{reg + first:.2f} s after `import evpsim` ({imp:.2f} s)"
              + ("." if label else f"; {verdict(reg + first, 5)}."))


def tang(cache, tmp, before):
    """``reproduce tang2020`` at the paper's sizes, warm, and each figure's computation."""
    for code, label in ((None, ""), (before, "before: ")) if before else ((None, ""),):
        own_cache = tempfile.mkdtemp(prefix="evpsim-cache-", dir=tmp) if code else cache
        out = "full-before" if code else "full"
        run([PY, "-m", "evpsim", "reproduce", "tang2020", "--quick", "--out", "quick"],
            own_cache, tmp, code)
        wall, err = run([PY, "-c", TANG, out], own_cache, tmp, code)
        figs = json.loads(err.strip().splitlines()[-1])
        goals = "" if code else f" ({verdict(wall, 15)})"
        print(f"\n{label}`evpsim reproduce tang2020` at the paper's sizes, warm cache: "
              f"{wall:.1f} s{goals}; Fig. 4's computation (four truths, B = 50, M = 1,000, "
              f"R = 5,000, U, V, W, every CI method) {figs['_fig4']:.1f} s"
              + ("" if code else f" ({verdict(figs['_fig4'], 8)})")
              + f"; Fig. 3 {figs['_fig3']:.1f} s, Fig. 1 {figs['_fig1']:.1f} s, Fig. 2 "
              f"{figs['_fig2']:.1f} s, Fig. 5 {figs['_fig5']:.1f} s; the rest (start-up, "
              f"plots, files) {wall - sum(figs.values()):.1f} s.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="warm runs per command (median)")
    ap.add_argument("--before", metavar="DIR", help="an earlier checkout to time beside")
    ap.add_argument("--only", choices=["commands", "main", "compile", "func", "tang"],
                    help="run one part (default: all)")
    args = ap.parse_args()
    before = os.path.abspath(args.before) if args.before else None
    import evpsim
    import numba

    print(f"evpsim {evpsim.__version__}, numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} numba threads on {os.cpu_count()} CPUs; load "
          f"average at start {os.getloadavg()[0]:.2f}; dask "
          f"{'installed' if _has('dask') else 'not installed'}\n")
    if args.only in (None, "commands"):
        commands(args.repeat, before)
    cache, tmp = tempfile.mkdtemp(prefix="evpsim-cache-"), tempfile.mkdtemp(prefix="evpsim-")
    try:
        if args.only in (None, "main"):
            main_job(args.repeat, cache, tmp, before)
        if args.only in (None, "compile"):
            compile_times(cache, tmp)
        if args.only in (None, "func"):
            user_function(cache, tmp, before)
        if args.only in (None, "tang"):
            tang(cache, tmp, before)
    finally:
        shutil.rmtree(cache)
        shutil.rmtree(tmp)


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    main()
