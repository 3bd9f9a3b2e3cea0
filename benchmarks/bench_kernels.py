"""Kernel throughput against the machine's peak.

What it measures, on this machine:

* the peak: fused multiply-adds per second that numba reaches here, from
  12 independent chains of 4-lane multiply-adds (enough in flight that the
  FMA pipes' throughput, not one chain's latency, bounds them), on one
  thread and on every numba thread; beside it, for comparison, a single
  ``fastmath`` sum of products, which LLVM splits into only a few
  accumulators, so that their latency bounds it;
* the coverage battery of V x percentile (truncated normal, B = 50,
  M = 1,000 samples, R = 5,000 resamples, every n): the whole run, and
  its nominal work, B weighted sums of B terms per resample (V at every
  n): M R B^2 multiply-adds, as a rate and a share of the peak; then
  where one sample's time goes (one thread, R resamples):
  drawing the resamples' multinomial counts and terms, the estimates, and
  the quantiles of the percentile interval at every n;
* the bias battery's Monte Carlo (truncated normal, B = 30, 10^6 searches,
  U, V, W at every n): the whole run and its nominal work, 3 B^2
  multiply-adds per search;
* whether the hot loops vectorise: numba's assembly of each, compiled
  afresh in a subprocess (cached code cannot be inspected), its
  double-precision arithmetic counted as 8-lane (zmm), 4-lane (ymm),
  2-lane (xmm) and scalar instructions.

With ``--against REV`` the whole runs are also timed for another commit,
from a temporary git worktree, each in its own process and alternated with
this tree's (``--repeat`` rounds, medians), so that both sit side by side
in one run.

Run: ``python benchmarks/bench_kernels.py [--against REV] [--repeat 3]``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

ROOT = Path(__file__).resolve().parents[1]
COV = dict(B=50, M=1000, R=5000)
BIAS = dict(B=30, M=1_000_000)


#: the peak's independent multiply-add chains, and the lanes of each (one ymm register)
CHAINS, LANES = 12, 4


@intrinsic
def _fma_chains(typingctx, iters, c, d):
    """``CHAINS`` independent chains of ``LANES``-lane multiply-adds ``a = a * c + d``, each
    ``iters`` long; the sum of their lanes.

    Written in LLVM IR because numba has no vector type: the accumulators are explicit
    4-lane vectors, which LLVM keeps in registers, so nothing but the FMA pipes' throughput
    bounds the loop (a chain waits for its previous multiply-add, 4 cycles, while the
    others issue).
    """
    def codegen(context, builder, signature, args):
        n, c, d = args
        vec = ir.VectorType(ir.DoubleType(), LANES)
        i32 = ir.IntType(32)

        def splat(v):
            one = builder.insert_element(ir.Constant(vec, ir.Undefined), v, i32(0))
            return builder.shuffle_vector(one, ir.Constant(vec, ir.Undefined),
                                          ir.Constant(ir.VectorType(i32, LANES), [0] * LANES))

        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, [vec] * 3),
                                             f"llvm.fmuladd.v{LANES}f64")
        cv, dv = splat(c), splat(d)
        accs = []
        for k in range(CHAINS):
            acc = cgutils.alloca_once(builder, vec)
            builder.store(ir.Constant(vec, [float(k * LANES + i) for i in range(LANES)]), acc)
            accs.append(acc)
        with cgutils.for_range(builder, n):
            for acc in accs:
                builder.store(builder.call(fma, [builder.load(acc), cv, dv]), acc)
        total = builder.load(accs[0])
        for acc in accs[1:]:
            total = builder.fadd(total, builder.load(acc))
        out = builder.extract_element(total, i32(0))
        for i in range(1, LANES):
            out = builder.fadd(out, builder.extract_element(total, i32(i)))
        return out

    return types.float64(iters, c, d), codegen


@njit(cache=False)
def _chains(iters, c):
    return _fma_chains(iters, c, 1e-3)


@njit(parallel=True, cache=False)
def _chains_parallel(iters, out):
    for t in prange(out.shape[0]):
        out[t] = _fma_chains(iters, 0.999 - 1e-6 * t, 1e-3)


@njit(fastmath=True, cache=False)
def _fused_sum(x, c, iters):
    """A fastmath sum of products over an array that stays in L1: LLVM reassociates it
    into a few vector accumulators (four 8-lane ones in its assembly on an AVX-512 Zen 4),
    whose latency bounds it."""
    s = 0.0
    for _ in range(iters):
        for i in range(x.shape[0]):
            s += x[i] * c
        c = c * 0.9999999
    return s


def peak(calls=200):
    """Multiply-adds per second numba reaches: the independent chains on one thread and on
    every numba thread, and the single fused sum on one thread.

    Each call lasts about a millisecond and the fastest of ``calls`` counts, so that a call
    the scheduler interrupted (the machine may be shared) does not.
    """
    per_call = CHAINS * LANES
    _chains(10, 0.999)
    iters = _calibrated(lambda k: _chains(k, 0.999))
    one = per_call * iters / min(_timed(lambda: _chains(iters, 0.999)) for _ in range(calls))
    threads = numba.get_num_threads()
    out = np.empty(threads)
    _chains_parallel(10, out)
    every = threads * per_call * iters / min(_timed(lambda: _chains_parallel(iters, out))
                                             for _ in range(calls))
    x = np.random.default_rng(0).random(1024)
    _fused_sum(x, 1.0, 10)
    sweeps = _calibrated(lambda k: _fused_sum(x, 1.0, k))
    fused = x.size * sweeps / min(_timed(lambda: _fused_sum(x, 1.0, sweeps))
                                  for _ in range(calls))
    return one, every, threads, fused


def _calibrated(run, seconds=1e-3):
    """An iteration count for which ``run(count)`` takes about ``seconds``."""
    k = 1000
    while (t := min(_timed(lambda: run(k)) for _ in range(5))) < seconds / 10:
        k *= 10
    return max(int(k * seconds / t), 1)


def cpu_mhz():
    """The clock /proc/cpuinfo reports, in GHz, or None."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1]) / 1000
    return None


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def whole_runs():
    """Wall and CPU seconds (every thread's) of the coverage run and of the bias Monte Carlo,
    after a warm-up."""
    import evpsim

    truth = evpsim.make_truth("normal")
    # the warm-up at the timed sizes but few samples: caches, thread pool, first-touch memory
    evpsim.coverage(truth, COV["B"], estimators="V", ci_methods="percentile", replicates=20,
                    resamples=COV["R"], seed=1)
    evpsim.bias(truth, B=BIAS["B"], method="mc", replicates=20_000, seed=1)
    out = {}
    for key, run in (("coverage", lambda: evpsim.coverage(
                          truth, COV["B"], estimators="V", ci_methods="percentile",
                          replicates=COV["M"], resamples=COV["R"], seed=0)),
                     ("bias", lambda: evpsim.bias(truth, B=BIAS["B"], method="mc",
                                                  replicates=BIAS["M"]))):
        cpu = time.process_time()
        out[key] = _timed(run)
        out[f"{key} cpu"] = time.process_time() - cpu
    return out


def coverage_phases(repeat=3):
    """One sample's time on one thread: drawing the terms, the estimates, the quantiles."""
    import evpsim
    from evpsim._kernels import bootstrap as K
    from evpsim._kernels.rng import rng_init
    from evpsim.estimators import get_estimator
    from evpsim.intervals.bootstrap import weight_tables

    B, R = COV["B"], COV["R"]
    xs = np.sort(evpsim.make_truth("normal").sample(B, seed=1))
    ptab, jws = weight_tables([get_estimator("V")], B)
    K_ = ptab.shape[1]
    codes = np.array([K.PERCENTILE], dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    boot, est, jack = np.empty((K_, R)), np.empty(K_), np.empty((K_, B))
    out = np.empty((1, K_, 2))

    def full(c):
        return lambda: K.bootstrap_intervals(rng_init(1, 2), xs, ptab, jws, R, 0.95, c, False,
                                             boot, est, jack, out)

    draws = _draws_only(B)
    with _one_thread():
        full(codes)()
        t_all = min(_timed(full(codes)) for _ in range(repeat))
        t_est = min(_timed(full(none)) for _ in range(repeat))
        terms = draws(xs, R)
        t_draw = min(_timed(lambda: draws(xs, R)) for _ in range(repeat))
    return {"draws": t_draw, "estimates": t_est - t_draw, "quantiles": t_all - t_est,
            "total": t_all, "terms": terms / R}


def _draws_only(B):
    from evpsim._kernels.resamples import _draw_terms64
    from evpsim._kernels.rng import rng_init

    @njit(cache=False)
    def draws(xs, R):
        st = rng_init(1, 2)
        counts = np.zeros(B, dtype=np.int64)
        gaps = np.empty(B + 8)
        rows = np.empty(B + 8, dtype=np.int64)
        s0, s1, s2, s3 = st[0], st[1], st[2], st[3]
        total = 0
        for _ in range(R):
            t, top, s0, s1, s2, s3 = _draw_terms64(s0, s1, s2, s3, xs, counts, gaps, rows)
            total += t
        return total

    return draws


class _one_thread:
    def __enter__(self):
        self.n = numba.get_num_threads()
        numba.set_num_threads(1)

    def __exit__(self, *exc):
        numba.set_num_threads(self.n)


#: the hot loops, as module.function of evpsim._kernels, with what each does
HOT = {
    "resamples.tile_estimates": "coverage: a block of resamples' estimates at every n",
    "quantiles._filter_ranks": "coverage: the quantiles' filtering pass",
    "resamples._draw_terms64": "coverage: a resample's counts and terms (the random stream)",
    "moments._network_sort4": "bias: four searches sorted at once",
    "moments._estimates4": "bias: four searches' estimates",
    "moments._accumulate4": "bias: power sums of four searches",
    "resampling.estimates": "resampling methods (gpd-tail): weighted sums of a resample",
    "comparisons.sign_counts_chunks": "falseconc: searches drawn, estimated, compared",
}
ASM = """
import json, re, sys
import evpsim
from evpsim._kernels import comparisons, moments, quantiles, resamples, resampling
xs = evpsim.make_truth("normal").sample(50, seed=1)
evpsim.bootstrap_intervals(xs, "U,V,W", ci_methods="percentile,bca", resamples=3000, seed=2)
evpsim.bias("normal", 30, method="mc", replicates=1000)
evpsim.curve({"a": xs}, ci_methods=["gpd-tail"], resamples=200, seed=3)
evpsim.falseconc("normal", 20, replicates=1000)
ops = r"(?:v?(?:add|sub|mul|div|min|max|sqrt)|vfn?m(?:add|sub)\\d{3})"
counts = {}
for name in json.loads(sys.argv[1]):
    module, func = name.split(".")
    disp = getattr(globals()[module], func)
    asm = "".join(disp.inspect_asm(sig) for sig in disp.signatures)
    lines = [line for line in asm.splitlines() if re.match(r"\\s+" + ops + r"[ps]d\\s", line)]
    packed = [line for line in lines if re.match(r"\\s+" + ops + r"pd\\s", line)]
    zmm = sum("%zmm" in line for line in packed)
    ymm = sum("%ymm" in line for line in packed)
    fma = sum("fm" in line.split()[0] for line in lines)
    counts[name] = [zmm, ymm, len(packed) - zmm - ymm, len(lines) - len(packed), fma]
print(json.dumps(counts))
"""


def vectorisation():
    """Double-precision arithmetic in the assembly of each hot loop, compiled afresh."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", ASM, json.dumps(list(HOT))], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _other(rev, rounds):
    """Whole-run times of commit ``rev`` and of this tree, alternated, ``rounds`` each."""
    ours, theirs = [], []
    with tempfile.TemporaryDirectory(prefix="evpsim-bench-rev-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                       check=True, capture_output=True)
        try:
            for _ in range(rounds):
                for path, sink in ((tree, theirs), (ROOT, ours)):
                    env = {**os.environ, "PYTHONPATH": str(path)}
                    res = subprocess.run([sys.executable, __file__, "--whole-only"], env=env,
                                         check=True, capture_output=True, text=True)
                    sink.append(json.loads(res.stdout.strip().splitlines()[-1]))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           check=False, capture_output=True)
    med = lambda runs, k: statistics.median(r[k] for r in runs)  # noqa: E731
    return ({k: med(ours, k) for k in ours[0]}, {k: med(theirs, k) for k in theirs[0]})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV",
                        help="also time the whole runs of this commit, alternated")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds of the whole runs (medians) and of the phases (fastest)")
    parser.add_argument("--whole-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.whole_only:
        print(json.dumps(whole_runs()))
        return

    import evpsim

    load = os.getloadavg()[0]
    one, allt, threads, fused = peak()
    if args.against:
        ours, theirs = _other(args.against, args.repeat)
    else:
        runs = [whole_runs() for _ in range(args.repeat)]
        ours, theirs = {k: statistics.median(r[k] for r in runs) for k in runs[0]}, None
    phases = coverage_phases(args.repeat)
    asm = vectorisation()

    cov_fma = COV["M"] * COV["R"] * COV["B"] ** 2
    bias_fma = BIAS["M"] * 3 * BIAS["B"] ** 2
    print(f"evpsim {evpsim.__version__}, numba {numba.__version__}, {threads} numba threads on "
          f"{os.cpu_count()} CPUs; load average at start {load:.2f}.\n")
    ghz = cpu_mhz()
    print(f"Peak multiply-adds numba reaches here ({CHAINS} independent chains of {LANES}-lane "
          f"multiply-adds, fastest of 200 calls of about 1 ms): {one / 1e9:.1f} G/s on one "
          f"thread, {allt / 1e9:.1f} G/s on {threads}; at 8 a cycle (two 4-lane FMA pipes), "
          f"one thread's is a clock of {one / 8e9:.2f} GHz"
          + (f" (/proc/cpuinfo says {ghz:.2f} GHz)" if ghz else "") + ". A single fastmath sum "
          f"of products in L1, bound by the latency of its few accumulators, reaches "
          f"{fused / 1e9:.1f} G/s on one thread ({fused / one:.0%} of the peak).\n")
    head = ("| run | nominal multiply-adds | wall s | G/s | share of numba's peak | CPU s | "
            "G/s per CPU s | its share of one thread's peak |")
    if theirs:
        head += f" `{args.against}` wall s | its G/s | speed-up |"
    print(head)
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if theirs else ""))
    for key, name, fma in (("coverage", f"coverage, V x percentile, B = {COV['B']}, "
                                        f"M = {COV['M']:,}, R = {COV['R']:,}", cov_fma),
                           ("bias", f"bias Monte Carlo, U, V, W, B = {BIAS['B']}, "
                                    f"{BIAS['M']:,} searches", bias_fma)):
        w, cpu = ours[key], ours[f"{key} cpu"]
        row = (f"| {name} | {fma / 1e9:.1f} G | {w:.2f} | {fma / w / 1e9:.2f} | "
               f"{fma / w / allt:.1%} | {cpu:.2f} | {fma / cpu / 1e9:.2f} | "
               f"{fma / cpu / one:.1%} |")
        if theirs:
            t = theirs[key]
            row += f" {t:.2f} | {fma / t / 1e9:.2f} | {t / w:.2f}x |"
        print(row)
    total = phases["total"]
    done = COV["R"] * phases["terms"] * COV["B"] / phases["estimates"]
    print(f"\nOne sample of the coverage run on one thread (R = {COV['R']:,}, V at every n): "
          f"{total * 1e3:.1f} ms; drawing the resamples' counts and terms "
          f"{phases['draws'] * 1e3:.1f} ms ({phases['draws'] / total:.0%}), the estimates "
          f"{phases['estimates'] * 1e3:.1f} ms ({phases['estimates'] / total:.0%}: "
          f"{phases['terms']:.1f} terms per resample (the points drawn, padded to whole "
          f"groups of 8), each a multiply-add at every n: {done / 1e9:.2f} G/s, "
          f"{done / one:.0%} of one thread's numba peak), the percentile quantiles at every n "
          f"{phases['quantiles'] * 1e3:.1f} ms ({phases['quantiles'] / total:.0%}).")
    print("\nnominal multiply-adds: the work counted in full (coverage: B weighted sums of B "
          "terms per resample, V at every n; bias: three estimators' B sums of B per search); "
          "the kernels do fewer (zero and negligible weights are skipped). Whole runs: median "
          f"of {args.repeat} after a warm-up"
          + (f", each in a fresh process, alternated with `{args.against}`'s" if theirs else "")
          + "; CPU s is every thread's CPU time, which time spent waiting for a shared "
          "machine's cores does not inflate.")
    print("\nDo the hot loops vectorise? numba's assembly of each, compiled afresh in a "
          "subprocess; double-precision arithmetic instructions (add, sub, mul, div, min, max, "
          "sqrt, FMA) by width:\n")
    print("| kernel | what it does | 8-lane (zmm) | 4-lane (ymm) | 2-lane (xmm) | scalar | "
          "of which FMA |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, what in HOT.items():
        print(f"| `{name}` | {what} | " + " | ".join(str(c) for c in asm[name]) + " |")


if __name__ == "__main__":
    main()
