"""Results are bit-identical to those recorded before the engine's speed work.

Every sampling kernel runs once on a small case; each result's data
variables must equal, bit for bit on the CPU and versions they were
recorded with (the golden policy below), the values stored in
``tests/data/golden.npz``. The values were first recorded at commit 8c79c7f,
before the kernels lost ``parallel=True``; they were recorded again in a
new environment (numpy 2.4, scipy 1.17) from the code of 2dcf539, which
the old values had certified, because numpy's and scipy's own routines
(matrix products, the truncated normal's CDF) round differently from one
release to the next: the new values differ from the old by at most 2.2e-16
(3.5e-15 for curve's sd), no count changed. curve's sd alone was recorded
again at 2026-11-25's fix, which takes the moments about the best score:
the old values carried the variance's cancellation, up to 1.9e-13 relative
(4.3e-15 absolute) from the exact values computed in rational arithmetic,
the new ones 5.9e-16. Every array was recorded again at fa6b529, whose
truncated normal computes its CDF from scipy.special instead of
scipy.stats.truncnorm: exact theta_n moved by at most 6.1e-16 relative
(4.4e-16 absolute), the Monte Carlo moments taken about it by at most
5.5e-14 of each variable's largest magnitude, no count and no other case
changed (28 of 130 arrays differ); the variables added since 2dcf539
(``failures``, ``free_bound``) were recorded with them.

The file stores the environment it was recorded in: the versions of
numpy, scipy, numba and llvmlite, and the CPU as they see it. numpy picks
its SIMD loops at run time by the CPU's features, and numba compiles for
the CPU it runs on, so the same code and versions round differently on an
AVX2 and an AVX-512 machine. The fingerprint therefore holds the host CPU's
name and features (LLVM's, as numba reads them), the CPU and features numba
compiles for (``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` override them)
and the SIMD paths numpy dispatches to (``NPY_DISABLE_CPU_FEATURES`` turns
them off).

The golden policy: where the fingerprint equals the recorded one, the
comparison is bitwise. Anywhere else (another CPU, other versions), the
kernels' own determinism cannot be told apart from the libraries' rounding,
and the test checks what still holds: every count equal, every value within
1e-13 of the recorded one (relative to its variable's largest magnitude when
that exceeds 1; the scores of every case lie in [0, 1]); standardised
differences ``z_*``, which divide by standard errors as small as 1e-19,
within 1e-4. A kernel that went wrong would miss by far more.
``test_another_cpu_takes_the_tolerance_path`` proves this path on an AVX-512
machine: one case runs in a subprocess with numpy's, numba's and OpenBLAS's
AVX-512 paths turned off.

Every array was recorded again, with the CPU in the fingerprint, on an AMD
EPYC with AVX-512 (LLVM's ``znver4``), from the code of 63aa0d0. The
values before, recorded on an AVX2 machine, are reproduced bit for bit on
the EPYC with the AVX-512 paths turned off; with them on, 59 of the 137
arrays (in every case but ``falseconc``) differ from them by at most 5.0e-16
of their variable's scale (8.2e-6 for ``z_*``), and no count changed. In
``bias`` and ``bias-kde`` the differences are numpy's: turning off numba's
AVX-512 code alone changes no bit, turning off numpy's alone changes 8 of
10 and 4 of 5 arrays. Record the values again with
``python tests/test_golden.py``.
"""

from pathlib import Path

import numpy as np
import pytest

import evpsim

GOLDEN = Path(__file__).parent / "data" / "golden.npz"


def _bootstrap():
    xs = evpsim.make_truth("normal").sample(30, seed=3)
    ivs = evpsim.bootstrap_intervals(xs, ["U", "V", "W"], resamples=2000, seed=5,
                                     distribution=True)
    return ivs


def _top_half_mean(xs, n):
    # a general (non-L-statistic) estimator: mean of the best ceil(n / 2) scores
    k = (n + 1) // 2
    return xs[xs.shape[0] - k:].mean()


def _midpoint_interval(boots, est, jack, level):
    # a user CI method: the bootstrap distribution's range, shrunk about its middle
    lo, hi = boots.min(), boots.max()
    mid = 0.5 * (lo + hi)
    return mid - level * (mid - lo), mid + level * (hi - mid)


def _with_user_methods(run):
    def case():
        evpsim.register_estimator("golden-top", func=_top_half_mean)
        evpsim.register_ci_method("golden-mid", func=_midpoint_interval)
        try:
            return run()
        finally:
            evpsim.unregister_estimator("golden-top")
            evpsim.unregister_ci_method("golden-mid")
    return case


CASES = {
    "bias": lambda: evpsim.bias("normal", 30, method="mc", replicates=50_000, seed=1),
    "bias-pool": lambda: evpsim.bias("data:reuters-mlp", 20, method="both",
                                     replicates=20_000, seed=2),
    "bias-kde": lambda: evpsim.bias("kde:sst5-cnn", 25, method="exact"),
    "coverage": lambda: evpsim.coverage("tang-big", 20, replicates=120, resamples=500,
                                        seed=4),
    "coverage-ns": lambda: evpsim.coverage("normal", 40, ci_methods=["percentile", "bca"],
                                           replicates=60, resamples=400, seed=6, ns=[5, 20]),
    "falseconc": lambda: evpsim.falseconc("tang-small", 30, replicates=30_000, seed=7,
                                          truth_method="mc", truth_replicates=40_000),
    "compare": lambda: evpsim.compare_curves("tang-small", "tang-big", 20, replicates=20_000,
                                             seed=8),
    "compare-pool": lambda: evpsim.comparison_errors("data:reuters-mlp", "data:reuters-lstm",
                                                     [10, 20], pool=True, replicates=10_000,
                                                     seed=9),
    "bootstrap": _bootstrap,
    "curve": lambda: evpsim.curve({"a": evpsim.make_truth("normal").sample(25, seed=11),
                                   "b": evpsim.make_truth("tang-big").sample(25, seed=12)},
                                  estimators=["V", "U"],
                                  ci_methods=["percentile", "ld-equal-tailed"],
                                  resamples=1000, seed=13, bounds=(0.0, 1.0)),
    "user-bias": _with_user_methods(
        lambda: evpsim.bias("normal", 20, estimators=["V", "golden-top"], method="mc",
                            replicates=20_000, seed=14)),
    "user-coverage": _with_user_methods(
        lambda: evpsim.coverage("normal", 15, estimators=["V"],
                                ci_methods=["percentile", "golden-mid"], replicates=50,
                                resamples=300, seed=15)),
}
#: cases that compile a user's function (the slow run)
USER = {"user-bias", "user-coverage"}


def _arrays(result):
    if isinstance(result, dict):
        items = result.items()
    else:
        items = ((k, v.values) for k, v in result.data_vars.items())
    return {k: np.asarray(v) for k, v in items if np.asarray(v).dtype.kind in "fiub"}


def environment():
    """What the recorded values depend on: the libraries' versions and the CPU they see."""
    import platform

    import llvmlite
    import numba
    import scipy

    return np.array([f"numpy {np.__version__}", f"scipy {scipy.__version__}",
                     f"numba {numba.__version__}", f"llvmlite {llvmlite.__version__}",
                     f"machine {platform.machine()}", *cpu_fingerprint()])


def _numpy_simd():
    """numpy's SIMD ``(baseline, dispatch targets, features found)``, as
    ``np.show_runtime`` reads them."""
    try:
        from numpy._core import _multiarray_umath as simd
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath as simd
    return simd.__cpu_baseline__, simd.__cpu_dispatch__, simd.__cpu_features__


def cpu_fingerprint():
    """The CPU as numpy and numba see it: three lines of the environment.

    The host CPU's name and features (LLVM's); the CPU and features numba compiles
    for, which it also keys its on-disk cache by; numpy's baseline and the SIMD
    targets it dispatches to (those it was built with that the CPU has).
    """
    import llvmlite.binding as ll
    from numba.core.registry import cpu_target

    host = ll.get_host_cpu_features()
    _, target, features = cpu_target.target_context.codegen().magic_tuple()
    baseline, dispatch, found = _numpy_simd()
    return [f"cpu {ll.get_host_cpu_name()}: " + " ".join(sorted(k for k, v in host.items() if v)),
            f"numba compiles for {target}: "
            + " ".join(sorted(f[1:] for f in features.split(",") if f.startswith("+"))),
            f"numpy baseline {' '.join(baseline)}, dispatches to "
            + " ".join(f for f in dispatch if found.get(f))]


def record():
    """Write the golden file from the current code, with its environment."""
    out = {"_environment": environment()}
    for name, make in CASES.items():
        for var, arr in _arrays(make()).items():
            out[f"{name}/{var}"] = arr
    np.savez_compressed(GOLDEN, **out)
    print(f"{GOLDEN}: {len(out) - 1} arrays")


def load():
    """The golden file's arrays by name."""
    with np.load(GOLDEN) as f:
        return {k: f[k] for k in f.files}


@pytest.fixture(scope="module")
def golden():
    return load()


def _same_environment(golden):
    return np.array_equal(golden["_environment"], environment())


def _tolerance(want, var):
    """How far a float variable may move in another environment (see the docstring)."""
    if var.startswith("z_"):
        return 1e-4
    finite = want[~np.isnan(want)]
    return 1e-13 * max(float(np.abs(finite).max()) if finite.size else 0.0, 1.0)


def _agree(got, want, var):
    """Equal counts, and values equal to rounding of the libraries (see the docstring)."""
    if want.dtype.kind != "f":
        return np.array_equal(got, want)
    if np.array_equal(got, want, equal_nan=True):
        return True
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    finite = ~np.isnan(want)
    return bool(np.all(np.abs(got[finite] - want[finite]) <= _tolerance(want, var)))


def recorded(golden, name):
    """One case's recorded variables, by variable name."""
    return {k.split("/", 1)[1]: v for k, v in golden.items() if k.startswith(name + "/")}


def mismatches(got, want, bitwise):
    """The recorded variables that ``got`` does not reproduce, bit for bit or within the
    tolerance of another environment: ``{variable: why}``."""
    bad = {}
    for var, arr in want.items():
        if got[var].shape != arr.shape:
            bad[var] = f"shape {got[var].shape}, recorded {arr.shape}"
        elif bitwise and not np.array_equal(got[var], arr, equal_nan=arr.dtype.kind == "f"):
            bad[var] = "not bit-identical"
        elif not bitwise and not _agree(got[var], arr, var):
            bad[var] = "beyond the tolerance of another environment"
    return bad


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in USER else n
                                  for n in sorted(CASES)])
def test_bit_identical(name, golden):
    got = _arrays(CASES[name]())
    want = recorded(golden, name)
    assert want, f"no golden values for {name}"
    # every recorded variable is there (variables added since are not compared)
    assert set(want) <= set(got), sorted(set(want) - set(got))
    bad = mismatches(got, want, _same_environment(golden))
    assert not bad, f"{name}: " + "; ".join(f"{var} ({why})" for var, why in bad.items())


def test_tolerance_of_another_environment_can_fail():
    want = np.array([0.5, 0.25, np.nan])
    assert _agree(want + np.array([1e-16, -2e-17, 0.0]), want, "mean")
    assert not _agree(want + 1e-12, want, "mean")
    assert not _agree(np.array([0.5, 0.25, 0.0]), want, "mean")
    assert not _agree(np.array([3, 4]), np.array([3, 5]), "count")


def _beyond_tolerance(got, want):
    """``got`` with one element of every recorded variable that has one moved ten times its
    tolerance (at the largest recorded magnitude), a count by one, a flag flipped; and the
    names of the variables moved."""
    out, moved = dict(got), []
    for var, arr in want.items():
        kind = arr.dtype.kind
        if arr.size == 0 or (kind == "f" and np.isnan(arr).all()):
            continue
        out[var] = got[var].copy()
        if kind == "f":
            out[var].flat[np.nanargmax(np.abs(arr))] += 10 * _tolerance(arr, var)
        elif kind == "b":
            out[var].flat[0] = not out[var].flat[0]
        else:
            out[var].flat[0] += 1
        moved.append(var)
    return out, moved


#: run in a subprocess: one case compared with the golden values, as JSON
ANOTHER_CPU = """
import json, sys
sys.path.insert(0, sys.argv[1])
import test_golden as G
golden, name = G.load(), sys.argv[2]
got, want = G._arrays(G.CASES[name]()), G.recorded(golden, name)
bitwise = G._same_environment(golden)
perturbed, moved = G._beyond_tolerance(got, want)
print(json.dumps({"environment": [str(e) for e in G.environment()], "bitwise": bitwise,
                  "compared": sorted(want), "mismatches": G.mismatches(got, want, bitwise),
                  "moved": sorted(moved),
                  "caught": sorted(G.mismatches(perturbed, want, bitwise))}))
"""


def _without_avx512():
    """Environment variables that turn off numpy's, numba's and OpenBLAS's AVX-512 paths,
    or None on a CPU without AVX-512."""
    import llvmlite.binding as ll

    _, dispatch, found = _numpy_simd()
    numpy_off = [f for f in dispatch if found.get(f) and (f.startswith("AVX512") or f == "X86_V4")]
    host = ll.get_host_cpu_features()
    wide = {k for k, v in host.items() if v and ("avx512" in k or k.startswith("avx10"))}
    if not numpy_off and not wide:
        return None
    features = ",".join(("+" if v and k not in wide else "-") + k for k, v in sorted(host.items()))
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(numpy_off), "NUMBA_CPU_NAME": "haswell",
            "NUMBA_CPU_FEATURES": features, "OPENBLAS_CORETYPE": "Haswell"}


def test_another_cpu_takes_the_tolerance_path():
    """One case with the AVX-512 paths off: a fingerprint of its own, the comparison
    within the tolerance, and beyond it when the values move ten times the tolerance.

    numba keys its on-disk cache by the CPU name and features it compiles for
    (``magic_tuple``), so the subprocess compiles, or loads, kernels for its own
    target, never those cached for this CPU.
    """
    import json
    import os
    import subprocess
    import sys

    off = _without_avx512()
    if off is None:
        pytest.skip("this CPU has no AVX-512 paths to turn off")
    res = subprocess.run([sys.executable, "-c", ANOTHER_CPU, str(Path(__file__).parent), "bias"],
                         env={**os.environ, **off}, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    run = json.loads(res.stdout.strip().splitlines()[-1])
    here = [str(e) for e in environment()]
    assert run["environment"] != here
    numba_line, numpy_line = run["environment"][-2], run["environment"][-1]
    assert numba_line.startswith("numba compiles for haswell:") and "avx512" not in numba_line
    assert "AVX512" not in numpy_line and "X86_V4" not in numpy_line
    assert not run["bitwise"]
    assert run["compared"] and run["mismatches"] == {}
    # every variable moved beyond the tolerance is caught
    assert run["moved"] and run["caught"] == run["moved"]


if __name__ == "__main__":
    record()
