"""Bad input: a clear answer, nothing lost, never a silent wrong number.

A battery of user errors through the Python API and the command line. The
command line runs in-process (``evpsim.cli.main``), one subprocess aside
(SIGTERM).

* API cases (``API``): the exception type (``InvalidArgument``, a
  ``ValueError``; ``InvalidType``, also a ``TypeError``) and distinctive
  words of its message; the registries of estimators and CI methods are
  unchanged afterwards (a refused registration registers nothing).
* CLI cases (``CLI``): exit status 2, exactly one line on stderr starting
  ``evpsim CMD: error:`` with the expected words, no traceback, nothing
  written (the input folder, the working folder and every output folder
  are unchanged, hidden ``.part`` files included).
* Silent wrong results: runs that compute, with small sizes, checking that
  what they print or return is right (``test_silent_*``).

Every case carries its class (``CLASSES``); ``test_battery_size`` checks
that there are at least 150 and that every class is represented, and
``python tests/test_bad_input.py`` prints the classes with their counts.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import evpsim
import evpsim.reproduce.dodge2019
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.cli import main
from evpsim.studies.leaderboard import leaderboard as _leaderboard
from evpsim.io.results import atomic_write_all

from battery import assert_refused, tree

CLASSES = {
    "type": "wrong types (bool, str, None, list, float where int)",
    "range": "out of range (0, negative, too big)",
    "scores": "NaN, infinite and huge (beyond +-1e70) scores",
    "short": "empty or short inputs (fewer than 2 scores, B < 2)",
    "budget": "budgets n outside 1..B",
    "unknown": "unknown names (estimators, CI methods, truths, KDE fits, papers, commands)",
    "truth": "impossible truth parameters (sigma <= 0, lo >= hi, no mass, flat sigma)",
    "size": "size guards (memory, random streams)",
    "file": "malformed or unusable score files",
    "jsonl": "JSON Lines",
    "output": "outputs (folders, suffixes, writability, all or nothing)",
    "register": "registrations of estimators and CI methods",
    "usage": "command-line usage (flags, values, combinations)",
    "silent": "silent wrong results",
    "estimator": "Python estimators that raise, return NaN or cannot be pickled",
    "plugin": "broken plugins (raising, calling sys.exit, registering a broken estimator)",
    "env": "environment variables (missing folders, values other than allowed)",
    "degenerate": "degenerate data under gpd-tail (ties, tiny scales)",
    "signal": "SIGTERM and Ctrl-C during long runs",
}


# --- the input files ---------------------------------------------------------------

FILES = {
    "good.txt": b"0.61\n0.64\n0.65\n0.70\n0.72\n",
    "mostlylow.txt": b"0.1\n0.1\n0.1\n0.9\n",  # its best a quarter of the mass
    "empty.txt": b"",
    "comments.txt": b"# a comment\n\n# another\n",
    "nonnum.txt": b"0.5\nabc\n0.7\n",
    "nan.txt": b"0.5\nnan\n0.7\n",
    "inf.txt": b"0.5\n-inf\n",
    "huge.txt": b"0.5\n1e300\n",
    "one.txt": b"0.5\n",
    "equal.txt": b"0.5\n0.5\n0.5\n",
    "close.txt": b"0.5\n0.5000000000000001\n0.5\n",
    "tiny.txt": b"1e-300\n2e-300\n",
    "binary.txt": bytes(range(256)),
    "two.csv": b"trial,f1\n1,0.5\n2,0.6\n3,0.7\n",
    "headerless.csv": b"0.5,0.71\n0.6,0.74\n0.55,0.69\n",
    "ragged.csv": b"trial,f1\n1,0.5\n2\n",
    "semicolon.csv": b"0.5;0.6\n0.7;0.8\n",
    "good.jsonl": b'{"acc": 0.5}\n{"acc": 0.6}\n{"acc": 0.7}\n',
    "notjson.jsonl": b'{"acc": 0.5}\nnot json\n',
    "nofield.jsonl": b'{"acc": 0.5}\n{"loss": 0.6}\n',
    "strfield.jsonl": b'{"acc": 0.5}\n{"acc": "0.6"}\n',
    "boolfield.jsonl": b'{"acc": true}\n',
    "list.jsonl": b"[0.5]\n",
    "nanfield.jsonl": b'{"acc": NaN}\n',
    "hugefield.jsonl": b'{"acc": 1e300}\n',
    "bigint.jsonl": b'{"acc": 1' + b"0" * 400 + b"}\n",
    "blank.jsonl": b"\n\n",
    "nested.jsonl": b'{"m": {"acc": 0.5}}\n{"m": {"acc": 0.6}}\n',
    "models.jsonl": b'{"model": "a", "acc": 0.5}\n{"model": "b", "acc": 0.6}\n'
                    b'{"model": "a", "acc": 0.7}\n{"model": "b", "acc": 0.8}\n',
    "curve.jsonl": b'{"curve": [0.5, 0.6]}\n{"curve": [0.7, NaN]}\n{"curve": []}\n',
    "duration.jsonl": b'{"acc": 0.5, "t": "0:01:00"}\n{"acc": 0.6, "t": "an hour"}\n',
    "fake.nc": b"this is not netCDF\n",
    "dup.csv": b"acc,lr,acc\n0.5,0.1,0.9\n0.6,0.2,0.8\n0.7,0.3,0.7\n",
    "dupgroup.csv": b"model,acc,model\na,0.5,x\nb,0.6,y\na,0.7,x\nb,0.8,y\n",
    "duptime.csv": b"acc,t,t\n0.5,10,20\n0.6,11,21\n0.7,12,22\n",
    "subnormal.txt": b"5e-324\n1e-323\n1.5e-323\n",
    "opda.jsonl": b'{"nan_train_loss": false, "lc": [{"top_1": 0.5}, {"top_1": 0.6}]}\n'
                  b'{"nan_train_loss": true, "lc": [{"top_1": 0.01}]}\n'
                  b'{"nan_train_loss": true, "lc": []}\n'
                  b'{"nan_train_loss": false, "lc": [{"top_1": 0.7}]}\n',
    "nonfraction.txt": b"-3\n2\n1\n",
    "diverged.jsonl": b'{"nan_train_loss": true, "lc": [{"top_1": 0.01}]}\n'
                      b'{"nan_train_loss": true, "lc": [{"top_1": 0.02}, {"top_1": NaN}]}\n'
                      b'{"nan_train_loss": false, "lc": [{"top_1": 0.7}]}\n',
    "tiny4.txt": b"1e-300\n2e-300\n3e-300\n1.5e-300\n",
    "subnormal4.txt": b"5e-324\n1e-323\n1.5e-323\n2e-323\n",
    "tiedtop.txt": b"0.5\n" + b"0.7\n" * 11,
    "constant12.txt": b"0.5\n" * 12,
    "times.jsonl": b'{"acc": 0.5, "t": [1, 2]}\n{"acc": 0.6, "t": [3]}\n',
    "hugetime.jsonl": b'{"acc": 0.5, "t": 1e308}\n{"acc": 0.6, "t": 1e308}\n'
                      b'{"acc": 0.7, "t": 10}\n',
    "ptime.jsonl": b'{"acc": 0.5, "t": "PT1M"}\n{"acc": 0.6, "t": "P"}\n',
    "pttime.jsonl": b'{"acc": 0.5, "t": "PT"}\n{"acc": 0.6, "t": "PT1M"}\n',
    # a model's name (a group's value) holding a line break, and TeX that cannot be drawn
    "newline.jsonl": b'{"m": "a", "acc": 0.5}\n{"m": "x\\ny", "acc": 0.6}\n'
                     b'{"m": "a", "acc": 0.7}\n{"m": "x\\ny", "acc": 0.8}\n',
    "tex.jsonl": b'{"m": "a", "acc": 0.5}\n{"m": "$x^$", "acc": 0.6}\n'
                 b'{"m": "a", "acc": 0.7}\n{"m": "$x^$", "acc": 0.8}\n',
}


def _make_inputs(folder):
    folder.mkdir(exist_ok=True)
    for name, content in FILES.items():
        (folder / name).write_bytes(content)
    (folder / "folder").mkdir()
    (folder / "folder.nc").mkdir()
    (folder / "outdir").mkdir()
    (folder / "report.html").mkdir()  # a folder where --html expects a file
    os.mkfifo(folder / "pipe.csv")
    (folder / "outdir" / "keep.txt").write_text("keep me\n")
    os.mkfifo(folder / "fifo")
    os.mkfifo(folder / "pipe.nc")
    import xarray as xr

    xr.Dataset({"a": ("x", [1.0, 2.0])}).to_netcdf(folder / "notfit.nc", engine="h5netcdf")
    fit = (Path(evpsim.__file__).parent / "data" / "kde_fits" / "reuters-lstm.nc").read_bytes()
    (folder / "truncated.nc").write_bytes(fit[:3000])
    (folder / "empty.nc").write_bytes(b"")
    (folder / "fits").mkdir()  # EVPSIM_KDE_DIR with a damaged fit in it
    (folder / "fits" / "broken.nc").write_bytes(FILES["fake.nc"])
    return folder


def _unwritable_folder(base):
    """A folder that cannot be written, even by root; None if there is none."""
    if os.geteuid() != 0:
        ro = base / "readonly"
        ro.mkdir()
        ro.chmod(0o555)
        return ro
    for candidate in ("/sys", "/proc/self"):  # root cannot create files in these
        try:
            Path(candidate, ".evpsim-probe.nc").touch()
        except OSError:
            return Path(candidate)
        Path(candidate, ".evpsim-probe.nc").unlink()
    return None


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    """The input files (module-wide, never modified by a case)."""
    return _make_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def ro(tmp_path_factory):
    return _unwritable_folder(tmp_path_factory.mktemp("ro"))


# --- API cases ---------------------------------------------------------------------

IA, IT = InvalidArgument, InvalidType
S3 = [0.1, 0.2, 0.3]
API = []
KIND = {}  # case id -> class


def A(cls, name, fn, exc, *words):
    KIND[f"{cls}-{name}"] = cls
    API.append(pytest.param(fn, exc, words, id=f"{cls}-{name}"))


def _frame():
    import pandas as pd

    return pd.DataFrame({"acc": [0.5, 0.7, 0.6], "state": ["COMPLETE"] * 3})


def _bad_numba(xs, n):
    return xs.no_such_attribute


def _off_by_one(xs, n):
    return xs[n]  # n = B reads past the end


def _boot_outside(boots, estimate, jackknife, level):
    return boots[10], boots[11]


def _reversed_interval(boots, estimate, jackknife, level):
    return estimate + 1.0, estimate - 1.0


# estimate
A("type", "estimate-ns-str", lambda d: evpsim.estimate(S3, "U", ns=["2"]), IT,
  "ns must be an integer, got '2'")
A("type", "estimate-ns-bool", lambda d: evpsim.estimate(S3, "U", ns=[True]), IT,
  "ns must be an integer, got True")
A("type", "estimate-ns-float", lambda d: evpsim.estimate(S3, "U", ns=[2.5]), IA,
  "ns must be an integer, got 2.5")
A("type", "estimate-ns-string", lambda d: evpsim.estimate(S3, "U", ns="3"), IT,
  "ns must be integers, got '3'")
A("budget", "estimate-n0", lambda d: evpsim.estimate(S3, "U", ns=[0]), IA,
  "every n must be at least 1, got 0")
A("budget", "estimate-n-above-B", lambda d: evpsim.estimate(S3, "U", ns=[4]), IA,
  "U does not estimate beyond the B = 3 trials run (n = 4 asked for)")
A("budget", "estimate-ns-empty", lambda d: evpsim.estimate(S3, "U", ns=[]), IA,
  "ns must be a non-empty 1-D sequence")
A("budget", "estimate-ns-2d", lambda d: evpsim.estimate(S3, "U", ns=[[1, 2]]), IA,
  "ns must be a non-empty 1-D sequence")
A("budget", "estimate-ns-nan", lambda d: evpsim.estimate(S3, "U", ns=[np.nan]), IA,
  "ns must be an integer, got nan")
A("type", "estimate-numeric-strings", lambda d: evpsim.estimate(["0.1", "0.2"], "U"), IT,
  "scores must be numbers, got strings")
A("type", "estimate-string", lambda d: evpsim.estimate("0.1,0.2", "U"), IT,
  "scores must be numbers, got a string")
A("type", "estimate-None", lambda d: evpsim.estimate(None, "U"), IT,
  "scores must be numbers, found a value of type NoneType")
A("type", "estimate-None-inside", lambda d: evpsim.estimate([0.1, None], "U"), IT,
  "found a value of type NoneType")
A("type", "estimate-bool-inside", lambda d: evpsim.estimate([0.1, True], "U"), IT,
  "scores must be numbers, found a value of type bool")
A("type", "estimate-bool-array", lambda d: evpsim.estimate(np.array([True, False]), "U"), IT,
  "scores must be numbers, got booleans")
A("type", "estimate-complex", lambda d: evpsim.estimate([0.1, 0.2 + 1j], "U"), IT,
  "got complex numbers")
A("type", "estimate-2d", lambda d: evpsim.estimate([[0.1, 0.2]], "U"), IA,
  "scores must be one-dimensional, got shape (1, 2)")
A("type", "estimate-scalar", lambda d: evpsim.estimate(0.5, "U"), IA,
  "scores must be one-dimensional, got shape ()")
A("scores", "estimate-1e308", lambda d: evpsim.estimate([1e308, -1e308], "U"), IA,
  "scores has a value of magnitude 1e+308 at index 0", "+-1e+70")
A("scores", "estimate-1e71", lambda d: evpsim.estimate([0.5, 1e71, 3e75], "U"), IA,
  "magnitude 1e+71 at index 1")
A("scores", "estimate-nan", lambda d: evpsim.estimate([0.1, np.nan], "U"), IA,
  "scores contains 1 NaN or infinite value(s), first at index 1")
A("scores", "estimate-inf", lambda d: evpsim.estimate([np.inf, 0.1, -np.inf], "V"), IA,
  "scores contains 2 NaN or infinite value(s), first at index 0")
A("short", "estimate-one", lambda d: evpsim.estimate([0.1], "U"), IA,
  "scores needs at least 2 values, got 1")
A("short", "estimate-empty", lambda d: evpsim.estimate([], "U"), IA,
  "scores needs at least 2 values, got 0")
A("unknown", "estimate-estimator", lambda d: evpsim.estimate(S3, "X"), IA,
  "unknown estimator 'X'; known: U, V, W")
A("unknown", "estimate-estimator-None", lambda d: evpsim.estimate(S3, None), IA,
  "unknown estimator None")
# estimator_weights
A("size", "weights-B-100000", lambda d: evpsim.estimator_weights("U", 100_000), IA,
  "the 100,000 x 100,000 weight matrix needs about", "reduce B")
A("range", "weights-B0", lambda d: evpsim.estimator_weights("U", 0), IA,
  "B must be at least 1, got 0")
A("range", "weights-B-negative", lambda d: evpsim.estimator_weights("V", -3), IA,
  "B must be at least 1, got -3")
A("type", "weights-B-float", lambda d: evpsim.estimator_weights("U", 2.5), IA,
  "B must be an integer, got 2.5")
A("type", "weights-B-bool", lambda d: evpsim.estimator_weights("U", True), IT,
  "B must be an integer, got True")
A("type", "weights-B-str", lambda d: evpsim.estimator_weights("U", "5"), IT,
  "B must be an integer, got '5'")
A("type", "weights-B-None", lambda d: evpsim.estimator_weights("W", None), IT,
  "B must be an integer, got None")
A("type", "weights-B-inf", lambda d: evpsim.estimator_weights("U", float("inf")), IA,
  "B must be an integer, got inf")
A("unknown", "weights-name", lambda d: evpsim.estimator_weights("Q", 5), IA,
  "unknown estimator 'Q'")
# evp_curve, budget_to_reach
A("budget", "evp-curve-n", lambda d: evpsim.evp_curve([0.1, 0.2], "V", ns=[3]), IA,
  "every n must lie in 1..B = 1..2, got 3")
A("type", "evp-curve-name", lambda d: evpsim.evp_curve([0.1, 0.2], name=3), IT,
  "name must be a string, got 3")
A("type", "evp-curve-string", lambda d: evpsim.evp_curve("abc"), IT, "scores must be numbers")
A("type", "budget-target-str", lambda d: evpsim.budget_to_reach(S3, "0.5"), IT,
  "target must be a number, got '0.5'")
A("type", "budget-target-None", lambda d: evpsim.budget_to_reach(S3, None), IT,
  "target must be a number, got None")
A("type", "budget-target-bool", lambda d: evpsim.budget_to_reach(S3, True), IT,
  "target must be a number, got True")
A("scores", "budget-target-nan", lambda d: evpsim.budget_to_reach(S3, float("nan")), IA,
  "target must be a finite number, got nan")
A("short", "budget-one-score", lambda d: evpsim.budget_to_reach([0.1], 0.1), IA,
  "scores needs at least 2 values, got 1")
# curve, self_check, plot_curve, shipped searches
A("scores", "curve-nan", lambda d: evpsim.curve([0.1, float("nan"), 0.3]), IA,
  "scores contains 1 NaN or infinite value(s), first at index 1")
A("short", "curve-one-score", lambda d: evpsim.curve([0.1]), IA,
  "scores needs at least 2 values, got 1")
A("short", "curve-model-one-score", lambda d: evpsim.curve({"a": S3, "b": [0.2]}), IA,
  "scores of 'b' needs at least 2 values, got 1")
A("usage", "curve-labels-count", lambda d: evpsim.curve({"a": S3, "b": S3}, labels=["x"]), IA,
  "labels: 1 given for 2 model(s)")
A("usage", "curve-labels-same", lambda d: evpsim.curve([S3, S3], labels=["x", "x"]), IA,
  "labels must differ")
A("type", "curve-label-number", lambda d: evpsim.curve([S3, S3], labels=[1, 2]), IT,
  "labels must be a string")
A("unknown", "curve-estimator", lambda d: evpsim.curve(S3, estimators="Q"), IA,
  "unknown estimator 'Q'")
A("unknown", "curve-ci-method", lambda d: evpsim.curve(S3, ci_methods="nope"), IA,
  "unknown CI method 'nope'")
A("usage", "curve-band-no-bounds", lambda d: evpsim.curve(S3, ci_methods="ks", bounds="none"),
  IA, "band methods (ks) need the known range")
A("range", "curve-bounds-narrow", lambda d: evpsim.curve(S3, ci_methods="ks", bounds=(0.15, 1)),
  IA, "bounds (0.15, 1) must contain every score [0.1, 0.3]")
A("range", "curve-level", lambda d: evpsim.curve(S3, level=1.0), IA, "level must lie in (0, 1)")
A("range", "curve-resamples", lambda d: evpsim.curve(S3, resamples=1), IA,
  "resamples must be at least 2")
A("type", "curve-minimize", lambda d: evpsim.curve(S3, minimize="yes"), IT,
  "minimize must be True or False")
A("type", "curve-target", lambda d: evpsim.curve(S3, target="0.5"), IT,
  "target must be a number, got '0.5'")
A("range", "curve-negative-duration", lambda d: evpsim.curve(S3, durations=[[-1.0, 2.0]]), IA,
  "model 'model' has a negative duration")
A("unknown", "curve-durations-model", lambda d: evpsim.curve({"a": S3}, durations={"b": 3.0}),
  IA, "durations for unknown model(s) ['b']")
A("type", "curve-metric", lambda d: evpsim.curve(S3, metric=3), IT, "metric must be a string")
A("usage", "curve-column-not-a-frame", lambda d: evpsim.curve(S3, score="acc"), IA,
  "score names a column of a pandas DataFrame of trials, and scores is a list")
A("usage", "curve-column-of-a-mapping", lambda d: evpsim.curve({"a": S3}, time="secs"), IA,
  "time names a column of a pandas DataFrame of trials, and scores is a dict")
A("unknown", "curve-frame-column", lambda d: evpsim.curve(_frame(), group="arch"), IA,
  "group 'arch' is not a column of the DataFrame; its columns: acc, state")
A("range", "self-check-no-range", lambda d: evpsim.self_check([-3.0, 2.0, 1.0]), IA,
  "the scores span [-3, 2], neither a fraction nor a percentage")
A("range", "self-check-replicates", lambda d: evpsim.self_check(S3, replicates=1), IA,
  "replicates must be at least 2")
A("usage", "plot-curve-time", lambda d: evpsim.plot_curve(evpsim.curve(S3, resamples=10),
                                                          x="time"), IA,
  "x='time' needs durations")
A("unknown", "plot-curve-estimator", lambda d: evpsim.plot_curve(
    evpsim.curve(S3, resamples=10), estimator="U"), IA, "estimator must be one of V, got 'U'")
A("unknown", "shipped-search", lambda d: evpsim.search_path("nope"), IA,
  "no shipped search 'nope'; shipped: reuters-mlp, reuters-lstm")
# bias
A("type", "bias-replicates-100.5", lambda d: evpsim.bias(B=5, replicates=100.5), IA,
  "replicates must be an integer, got 100.5")
A("type", "bias-replicates-bool", lambda d: evpsim.bias(B=5, replicates=True), IT,
  "replicates must be an integer, got True")
A("type", "bias-replicates-str", lambda d: evpsim.bias(B=5, replicates="1000"), IT,
  "replicates must be an integer, got '1000'")
A("type", "bias-B-float", lambda d: evpsim.bias(B=2.5), IA, "B must be an integer, got 2.5")
A("short", "bias-replicates-1", lambda d: evpsim.bias(B=5, replicates=1), IA,
  "replicates must be at least 2, got 1")
A("short", "bias-B-1", lambda d: evpsim.bias(B=1), IA, "B must be at least 2, got 1")
A("size", "bias-replicates-1e15", lambda d: evpsim.bias(B=5, replicates=10**15), IA,
  "replicates = 1,000,000,000,000,000 in chunks of 4,096", "random streams")
A("size", "bias-replicates-2**60", lambda d: evpsim.bias(B=5, replicates=2**60), IA,
  "replicates must be at most 9,007,199,254,740,992")
A("size", "bias-B-100000", lambda d: evpsim.bias(B=100_000), IA,
  "B = 100,000 (12 matrices of 100,000 x 100,000) needs about", "reduce B")
A("unknown", "bias-method", lambda d: evpsim.bias(B=5, method="both "), IA,
  "method must be one of both, exact, mc, got 'both '")
A("range", "bias-seed-negative", lambda d: evpsim.bias(B=5, seed=-1), IA,
  "seed must be at least 0, got -1")
A("range", "bias-seed-2**64", lambda d: evpsim.bias(B=5, seed=2**64), IA,
  "seed must be at most 9,223,372,036,854,775,807")
A("type", "bias-seed-float", lambda d: evpsim.bias(B=5, seed=1.5), IA,
  "seed must be an integer, got 1.5")
A("range", "bias-workers-0", lambda d: evpsim.bias(B=5, workers=0), IA,
  "workers must be at least 1, got 0")
A("range", "bias-chunk-0", lambda d: evpsim.bias(B=5, chunk_size=0), IA,
  "chunk_size must be at least 1, got 0")
A("type", "bias-progress", lambda d: evpsim.bias(B=5, progress="yes"), IT,
  "progress must be True or False, got 'yes'")
A("unknown", "bias-estimators-twice", lambda d: evpsim.bias(B=5, estimators="U,U"), IA,
  "estimators: estimator listed twice in ['U', 'U']")
A("short", "bias-estimators-none", lambda d: evpsim.bias(B=5, estimators=[]), IA,
  "estimators: no estimator names given")
A("type", "bias-estimators-int", lambda d: evpsim.bias(B=5, estimators=5), IT,
  "estimators must be a name, a comma-separated string of names or a list of names")
A("unknown", "bias-truth", lambda d: evpsim.bias("nrmal", B=5), IA,
  "unknown truth 'nrmal'; known: normal, tang-small, tang-big, bag, file:..., data:..., kde:...")
A("type", "bias-truth-None", lambda d: evpsim.bias(None, B=5), IA,
  "truth must be a non-empty string or a Truth, got None")
A("unknown", "bias-kde", lambda d: evpsim.bias("kde:nonexistent", B=5), IA,
  "unknown KDE fit 'nonexistent'; committed fits: ")
A("range", "lattice-coarse", lambda d: evpsim.make_truth("lattice:0.6:normal"), IA,
  "step 0.6 is too coarse: 2 lattice points within normal's range [0, 1], at least 3 needed")
A("range", "lattice-fine", lambda d: evpsim.make_truth("lattice:1/1000000:normal"), IA,
  "step 1/1000000 is too fine: 1,000,001 lattice points within normal's range [0, 1], at "
  "most 100,000")
A("type", "lattice-step-word", lambda d: evpsim.lattice_truth("a hundredth", "normal"), IA,
  "step must be 1/N (N a positive whole number) or a positive decimal such as 0.01, got "
  "'a hundredth'")
A("type", "lattice-step-None", lambda d: evpsim.lattice_truth(None, "normal"), IT,
  "step must be 1/N or a positive decimal, got None")
A("range", "lattice-step-zero", lambda d: evpsim.lattice_truth(0, "normal"), IA,
  "step must be a positive step, got 0")
A("short", "lattice-no-truth", lambda d: evpsim.make_truth("lattice:1/100"), IA,
  "truth lattice:1/100 needs a step and a truth: lattice:STEP:SPEC, e.g. "
  "lattice:1/100:kde:reuters-lstm")
# falseconc
A("unknown", "falseconc-truth-method", lambda d: evpsim.falseconc(B=5, truth_method="MC"),
  IA, "truth_method must be one of exact, mc, got 'MC'")
A("short", "falseconc-truth-replicates", lambda d: evpsim.falseconc(B=5, truth_replicates=1),
  IA, "truth_replicates must be at least 2, got 1")
A("range", "falseconc-level-1", lambda d: evpsim.falseconc(B=5, level=1.0), IA,
  "level must lie in (0, 1), got 1.0")
A("type", "falseconc-level-str", lambda d: evpsim.falseconc(B=5, level="0.95"), IT,
  "level must be a number, got '0.95'")
A("range", "falseconc-level-nan", lambda d: evpsim.falseconc(B=5, level=float("nan")), IA,
  "level must be a finite number, got nan")
A("size", "falseconc-B-100000", lambda d: evpsim.falseconc(B=100_000), IA,
  "the weights of 3 estimators for B = 100,000 needs about")
# compare_curves, comparison_errors
A("usage", "compare-labels-same",
  lambda d: evpsim.compare_curves("tang-small", "tang-big", B=5, labels=("a", "a")), IA,
  "labels must be two different non-empty strings, got ('a', 'a')")
A("type", "compare-labels-str",
  lambda d: evpsim.compare_curves("tang-small", "tang-big", B=5, labels="ab"), IA,
  "labels must be two different non-empty strings, got 'ab'")
A("usage", "compare-pool-truths",
  lambda d: evpsim.compare_curves("tang-small", "tang-big", B=5, pool=True), IA,
  "pool sampling draws from real results: give a as 'file:PATH', 'data:NAME' or an array of scores")
A("type", "compare-pool-str",
  lambda d: evpsim.compare_curves("tang-small", "tang-big", B=5, pool="yes"), IT,
  "pool must be True or False, got 'yes'")
A("usage", "compare-column-truths",
  lambda d: evpsim.compare_curves("tang-small", "tang-big", B=5, column="x"), IA,
  "column applies only to file: models")
A("range", "compare-pool-too-small",
  lambda d: evpsim.compare_curves(S3, [0.2, 0.3, 0.4], B=5, pool=True), IA,
  "B = 5 exceeds the pool of 3 scores of A")
A("type", "compare-model-None", lambda d: evpsim.compare_curves(None, "tang-big", B=5), IT,
  "a must be a truth spec, a Truth or an array of scores, got NoneType")
A("scores", "compare-model-nan",
  lambda d: evpsim.compare_curves([0.1, float("nan")], "tang-big", B=5), IA,
  "a contains 1 NaN or infinite value(s), first at index 1")
A("short", "compare-B-1", lambda d: evpsim.compare_curves("tang-small", "tang-big", B=1), IA,
  "B must be at least 2, got 1")
A("range", "errors-Bs-decreasing",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=[5, 4]), IA,
  "Bs must be strictly increasing, got [5, 4]")
A("short", "errors-Bs-empty",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=[]), IA, "Bs is empty")
A("type", "errors-Bs-str",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs="5"), IT,
  "Bs must be an integer or a sequence of integers, got '5'")
A("short", "errors-Bs-1",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=[1, 2]), IA,
  "Bs must be at least 2, got 1")
A("type", "errors-Bs-bool",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=[True, 3]), IT,
  "Bs must be an integer or a sequence of integers")
A("type", "errors-Bs-None",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=None), IT,
  "Bs must be an integer or a sequence of integers, got None")
A("type", "errors-every-n",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=[3, 4], every_n="no"), IT,
  "every_n must be True or False, got 'no'")
A("size", "errors-Bs-100000",
  lambda d: evpsim.comparison_errors("tang-small", "tang-big", Bs=range(2, 100_001)), IA,
  "the weights of 3 estimators for budgets up to B = 100,000 needs about")
# coverage, bootstrap_intervals
A("short", "coverage-resamples-1",
  lambda d: evpsim.coverage(B=5, replicates=16, resamples=1), IA,
  "resamples must be at least 2, got 1")
A("size", "coverage-resamples-1e12",
  lambda d: evpsim.coverage(B=5, replicates=16, resamples=10**12), IA,
  "1,000,000,000,000 resamples of 3 x 5 estimates on", "reduce resamples")
A("size", "coverage-B-100000",
  lambda d: evpsim.coverage(B=100_000, replicates=16, resamples=50), IA,
  "50 resamples of 3 x 100,000 estimates", "reduce B")
A("unknown", "coverage-ci-method",
  lambda d: evpsim.coverage(B=5, replicates=16, resamples=50, ci_methods="foo"), IA,
  "unknown CI method 'foo'; known: percentile, basic, bca, studentized, "
  "smoothed, gpd-tail, gpd-tail-lattice, gpd-tail-bounded, m-out-of-n, dkw, ks, "
  "ld-equal-tailed, ld-highest-density, order-statistic, gpd-tail-calibrated, gpd-tail-fdb, "
  "betting")
A("range", "coverage-calibrated-median",
  lambda d: evpsim.coverage("normal", 20, ci_methods="gpd-tail-calibrated", curve="median",
                            estimators="quantile", replicates=4), IA,
  "ci_methods: gpd-tail-calibrated bound the mean curve only, not the quantile:0.5 curve")
A("short", "coverage-fdb-B-9",
  lambda d: evpsim.coverage("normal", 9, ci_methods="gpd-tail-fdb", replicates=4), IA,
  "ci_methods: gpd-tail-fdb needs B >= 10, got B = 9")
A("estimator", "curve-fdb-python-estimator",
  lambda d: evpsim.curve(np.arange(20.0), estimators="naive", ci_methods="gpd-tail-fdb"), IA,
  "ci_methods: gpd-tail-fdb reweights resamples through an L-statistic's weights")
A("range", "coverage-orderstat-mean",
  lambda d: evpsim.coverage(B=20, replicates=16, ci_methods="order-statistic"), IA,
  "ci_methods: order-statistic bound the quantile curve only, not the mean curve")
A("range", "intervals-orderstat-mean",
  lambda d: evpsim.bootstrap_intervals(S3 * 4, ci_methods="order-statistic"), IA,
  "ci_methods: order-statistic bound the quantile curve only, not the mean curve")
A("range", "coverage-bounds-inside",
  lambda d: evpsim.coverage(B=5, replicates=16, ci_methods="dkw", bounds=(0.2, 0.9)), IA,
  "bounds (0.2, 0.9) must contain the truth's support [0, 1]")
A("range", "coverage-bounds-reversed",
  lambda d: evpsim.coverage(B=5, replicates=16, ci_methods="dkw", bounds=(1, 0)), IA,
  "bounds must be finite with lo < hi, got (1, 0)")
A("scores", "coverage-bounds-inf",
  lambda d: evpsim.coverage(B=5, replicates=16, ci_methods="dkw", bounds=(0, np.inf)), IA,
  "bounds must be finite with lo < hi")
A("type", "coverage-bounds-str",
  lambda d: evpsim.coverage(B=5, replicates=16, ci_methods="dkw", bounds="0,1"), IT,
  "bounds must be a pair (lo, hi) of numbers, got '0,1'")
A("type", "coverage-bounds-triple",
  lambda d: evpsim.coverage(B=5, replicates=16, ci_methods="dkw", bounds=(0, 1, 2)), IA,
  "bounds must be a pair (lo, hi) of numbers, got (0, 1, 2)")
A("range", "coverage-level-95", lambda d: evpsim.coverage(B=5, replicates=16, level=95), IA,
  "level must lie in (0, 1), got 95")
A("short", "coverage-replicates-1", lambda d: evpsim.coverage(B=5, replicates=1), IA,
  "replicates must be at least 2, got 1")
A("type", "coverage-resamples-float",
  lambda d: evpsim.coverage(B=5, replicates=16, resamples=50.5), IA,
  "resamples must be an integer, got 50.5")
A("short", "intervals-resamples-1", lambda d: evpsim.bootstrap_intervals(S3, resamples=1),
  IA, "resamples must be at least 2, got 1")
A("size", "intervals-resamples-1e12",
  lambda d: evpsim.bootstrap_intervals(S3, resamples=10**12), IA,
  "1,000,000,000,000 resamples of 1 x 3 estimates needs about", "reduce resamples")
A("usage", "intervals-band-no-bounds",
  lambda d: evpsim.bootstrap_intervals(S3, ci_methods="dkw"), IA,
  "bounds: band methods (dkw) need the known range of the scores")
A("range", "intervals-bounds-inside",
  lambda d: evpsim.bootstrap_intervals(S3, ci_methods="dkw", bounds=(0.15, 1)), IA,
  "bounds (0.15, 1) must contain every score [0.1, 0.3]")
A("range", "intervals-level", lambda d: evpsim.bootstrap_intervals(S3, level=1.5), IA,
  "level must lie in (0, 1), got 1.5")
A("short", "intervals-one-score", lambda d: evpsim.bootstrap_intervals([0.1]), IA,
  "scores needs at least 2 values, got 1")
A("unknown", "intervals-estimator", lambda d: evpsim.bootstrap_intervals(S3, estimators="X"),
  IA, "unknown estimator 'X'")
A("type", "intervals-distribution",
  lambda d: evpsim.bootstrap_intervals(S3, distribution="yes"), IT,
  "distribution must be True or False, got 'yes'")
A("usage", "intervals-distribution-bands",
  lambda d: evpsim.bootstrap_intervals(S3, distribution=True, ci_methods="dkw",
                                       bounds=(0, 1)), IA,
  "distribution=True needs a bootstrap method")
A("range", "intervals-seed", lambda d: evpsim.bootstrap_intervals(S3, seed=-5), IA,
  "seed must be at least 0, got -5")
A("unknown", "intervals-ci-twice",
  lambda d: evpsim.bootstrap_intervals(S3, ci_methods=["percentile", "percentile"]), IA,
  "ci_methods: CI method listed twice")
# monte_carlo_theta
A("range", "mctheta-B-0", lambda d: evpsim.monte_carlo_theta("normal", 0), IA,
  "B must be at least 1, got 0")
A("short", "mctheta-replicates-1",
  lambda d: evpsim.monte_carlo_theta("normal", 5, replicates=1), IA,
  "replicates must be at least 2, got 1")
A("range", "mctheta-stream-negative",
  lambda d: evpsim.monte_carlo_theta("normal", 5, replicates=100, stream=-1), IA,
  "stream must be at least 0, got -1")
A("range", "mctheta-stream-5000",
  lambda d: evpsim.monte_carlo_theta("normal", 5, replicates=100, stream=5000), IA,
  "stream must be at most 1,023, got 5,000")
A("size", "mctheta-B-1e7", lambda d: evpsim.monte_carlo_theta("normal", 10**7), IA,
  "theta for 10,000,000 budgets needs about")
A("unknown", "mctheta-truth", lambda d: evpsim.monte_carlo_theta("nope", 5), IA,
  "unknown truth 'nope'")
# make_truth, TruncatedNormal, Discrete, empirical
A("truth", "failed-share-one", lambda d: evpsim.make_truth("failed:1:data:reuters-mlp"), IA,
  "pi must lie in (0, 1), got 1")
A("truth", "cap-everything", lambda d: evpsim.capped_truth(0.3, f"file:{d}/mostlylow.txt"),
  IA, "would merge into one")
A("usage", "curve-bounds-word", lambda d: evpsim.curve(S3, bounds="auto"), IT,
  "bounds must be a pair (lo, hi) of numbers, got 'auto'")
A("truth", "sigma-0", lambda d: evpsim.make_truth("normal", sigma=0), IA,
  "sigma must lie in (0, inf), got 0")
A("truth", "sigma-negative", lambda d: evpsim.make_truth("normal", sigma=-1), IA,
  "sigma must lie in (0, inf), got -1")
A("truth", "lo-above-hi", lambda d: evpsim.make_truth("normal", lo=1, hi=0), IA,
  "lo must be below hi, got lo=1, hi=0")
A("truth", "lo-equals-hi", lambda d: evpsim.make_truth("normal", lo=0.5, hi=0.5), IA,
  "lo must be below hi, got lo=0.5, hi=0.5")
A("truth", "no-mass", lambda d: evpsim.make_truth("normal", mu=100, sigma=0.01), IA,
  "N(100, 0.01^2) has no usable mass on [0, 1]")
A("truth", "flat-sigma", lambda d: evpsim.make_truth("normal", mu=0.5, sigma=1e12), IA,
  "sigma = 1e+12 is more than 1000 times the width of [0, 1]")
A("truth", "narrow-sigma", lambda d: evpsim.make_truth("normal", mu=0.5, sigma=1e-300), IA,
  "sigma = 1e-300 on [0, 1] gives the truncated normal a spread of 1e-300, below 1.11e-13",
  "near 0.5 floating-point numbers are 1.11e-16 apart")
A("truth", "narrow-sigma-far-out",
  lambda d: evpsim.make_truth("normal", mu=1e10, sigma=1e-7, lo=0, hi=2e10), IA,
  "spread of 1e-07, below 0.00191 (near 1e+10 floating-point numbers are 1.91e-06 apart)")
A("truth", "tiny-scale",
  lambda d: evpsim.make_truth("normal", mu=0, sigma=1e-75, lo=-1e-75, hi=1e-75), IA,
  "below 1e-70 (fourth powers of it underflow)")
A("scores", "mu-nan", lambda d: evpsim.make_truth("normal", mu=float("nan")), IA,
  "mu must be a finite number, got nan")
A("scores", "lo-inf", lambda d: evpsim.make_truth("normal", lo=-float("inf")), IA,
  "lo must be a finite number, got -inf")
A("scores", "lo-hi-1e300", lambda d: evpsim.make_truth("normal", lo=-1e300, hi=1e300), IA,
  "lo must lie in [-1e+70, 1e+70], got -1e+300")
A("type", "mu-str", lambda d: evpsim.make_truth("normal", mu="0.5"), IT,
  "mu must be a number, got '0.5'")
A("type", "mu-bool", lambda d: evpsim.make_truth("normal", mu=True), IT,
  "mu must be a number, got True")
A("usage", "mu-on-tang", lambda d: evpsim.make_truth("tang-small", mu=0.5), IA,
  "mu apply only to the 'normal' truth, not to 'tang-small'")
A("usage", "column-on-normal", lambda d: evpsim.make_truth("normal", column="x"), IA,
  "column applies only to file: truths, not to 'normal'")
A("unknown", "truth-prefix", lambda d: evpsim.make_truth("weird:thing"), IA,
  "unknown truth 'weird:thing'")
A("type", "truth-list", lambda d: evpsim.make_truth(["normal"]), IA,
  "truth must be a non-empty string or a Truth, got ['normal']")
A("short", "truth-file-empty-arg", lambda d: evpsim.make_truth("file:"), IA,
  "truth 'file:' needs an argument after 'file:'")
A("file", "truth-file-device", lambda d: evpsim.make_truth("file:/dev/null"), IA,
  "'/dev/null' is not a regular file (a pipe, socket or device)")
A("range", "normal-panels-0", lambda d: evpsim.TruncatedNormal(panels=0), IA,
  "panels must be at least 1, got 0")
A("range", "normal-order-0", lambda d: evpsim.TruncatedNormal(order=0), IA,
  "order must be at least 1, got 0")
A("type", "normal-panels-float", lambda d: evpsim.TruncatedNormal(panels=2.5), IA,
  "panels must be an integer, got 2.5")
A("type", "normal-name", lambda d: evpsim.TruncatedNormal(name=5), IT,
  "name must be a string, got 5")
A("type", "normal-sigma-None", lambda d: evpsim.TruncatedNormal(0.6, None), IT,
  "sigma must be a number, got None")
A("truth", "discrete-pmf-shape", lambda d: evpsim.Discrete([0.1, 0.2], [0.5]), IA,
  "pmf has shape (1,), support has (2,)")
A("truth", "discrete-pmf-negative", lambda d: evpsim.Discrete([0.1, 0.2], [-0.5, 1.5]), IA,
  "pmf must be finite and non-negative, got -0.5 at index 0")
A("truth", "discrete-pmf-zero", lambda d: evpsim.Discrete([0.1, 0.2], [0, 0]), IA,
  "pmf sums to zero")
A("type", "discrete-pmf-strings", lambda d: evpsim.Discrete([0.1, 0.2], ["0.5", "0.5"]), IT,
  "pmf must be numbers, got strings")
A("type", "discrete-pmf-bool", lambda d: evpsim.Discrete([0.1, 0.2], [True, False]), IT,
  "pmf must be numbers, found a value of type bool")
A("type", "discrete-pmf-None", lambda d: evpsim.Discrete([0.1, 0.2], None), IT,
  "pmf must be numbers")
A("scores", "discrete-pmf-nan", lambda d: evpsim.Discrete([0.1, 0.2], [np.nan, 1]), IA,
  "pmf contains 1 NaN or infinite value(s)")
A("scores", "discrete-pmf-1e308", lambda d: evpsim.Discrete([0.1, 0.2], [1e308, 1e308]), IA,
  "pmf has a value of magnitude 1e+308")
A("type", "discrete-name", lambda d: evpsim.Discrete([0.1, 0.2], [1, 1], name=None), IT,
  "name must be a string, got None")
A("short", "discrete-empty", lambda d: evpsim.Discrete([], []), IA,
  "support needs at least 1 values, got 0")
A("short", "empirical-empty", lambda d: evpsim.empirical([]), IA,
  "scores needs at least 1 values, got 0")
A("type", "empirical-string", lambda d: evpsim.empirical("0.5"), IT,
  "scores must be numbers, got a string")
A("scores", "empirical-inf", lambda d: evpsim.empirical([np.inf]), IA,
  "scores contains 1 NaN or infinite value(s)")
A("scores", "empirical-1e100", lambda d: evpsim.empirical([1e100, 2e100, 3e100]), IA,
  "scores has a value of magnitude 1e+100 at index 0")  # fourth powers overflow (NaN SEs)
# read_scores
A("file", "read-empty", lambda d: evpsim.read_scores(d / "empty.txt"), IA, "holds no scores")
A("file", "read-comments", lambda d: evpsim.read_scores(d / "comments.txt"), IA,
  "holds no scores")
A("file", "read-nonnumeric", lambda d: evpsim.read_scores(d / "nonnum.txt"), IA,
  "line 2: 'abc' is not a number")
A("scores", "read-nan-line", lambda d: evpsim.read_scores(d / "nan.txt"), IA,
  "line 2: score is 'nan', not a finite number")
A("scores", "read-huge-line", lambda d: evpsim.read_scores(d / "huge.txt"), IA,
  "line 2: score is '1e300', beyond +-1e+70")
A("file", "read-csv-columns", lambda d: evpsim.read_scores(d / "two.csv"), IA,
  "has 2 columns ['trial', 'f1']: choose one with column")
A("file", "read-csv-no-column", lambda d: evpsim.read_scores(d / "two.csv", column="acc"), IA,
  "has no column 'acc'; columns: ['trial', 'f1']")
A("file", "read-csv-index", lambda d: evpsim.read_scores(d / "two.csv", column=5), IA,
  "has no column 5")
A("file", "read-headerless-name",
  lambda d: evpsim.read_scores(d / "headerless.csv", column="f1"), IA,
  "has no column 'f1'; it has no header row, so give a 0-based index below 2")
A("file", "read-ragged", lambda d: evpsim.read_scores(d / "ragged.csv", column="f1"), IA,
  "line 3: missing column 'f1'")
A("file", "read-semicolon", lambda d: evpsim.read_scores(d / "semicolon.csv"), IA,
  "line 2: '0.7;0.8' is not a number (CSV fields are separated by commas")
A("file", "read-binary", lambda d: evpsim.read_scores(d / "binary.txt"), IA,
  "not a text file (UTF-8)")
A("file", "read-folder", lambda d: evpsim.read_scores(d / "folder"), IA,
  "is a folder, not a file")
A("file", "read-fifo", lambda d: evpsim.read_scores(d / "fifo"), IA,
  "is not a regular file (a pipe, socket or device)")
A("file", "read-missing", lambda d: evpsim.read_scores(d / "missing.txt"), IA,
  "cannot read scores: no such file")
A("type", "read-None", lambda d: evpsim.read_scores(None), IT,
  "path must be a file name or path, got None")
A("type", "read-int", lambda d: evpsim.read_scores(5), IT,
  "path must be a file name or path, got 5")
A("file", "read-empty-path", lambda d: evpsim.read_scores(""), IA,
  "path is empty: name a file of scores")
# read_searches
A("jsonl", "searches-pooled", lambda d: evpsim.read_searches(d / "models.jsonl", field="acc"),
  IA, "models.jsonl' holds 2 models in its 'model' field (a, b), which are never pooled",
  "pass group='model'")
A("unknown", "searches-select",
  lambda d: evpsim.read_searches(d / "models.jsonl", field="acc", group="model", select="c"),
  IA, "select 'c' is not a value of 'model' in", "its values: a, b")
A("usage", "searches-select-no-group",
  lambda d: evpsim.read_searches(d / "models.jsonl", field="acc", select="a"), IA,
  "select needs group")
A("jsonl", "searches-curve-no-reduce",
  lambda d: evpsim.read_searches(d / "curve.jsonl", field="curve"), IA,
  "reduce is needed: ", "curve.jsonl' line 1: curve holds a list of 2 checkpoints")
A("jsonl", "searches-reduce-scalar",
  lambda d: evpsim.read_searches(d / "good.jsonl", field="acc", reduce="max"), IA,
  "reduce applies to a field holding a list", "good.jsonl' line 1: acc is 0.5")
A("unknown", "searches-reduce-choice",
  lambda d: evpsim.read_searches(d / "curve.jsonl", field="curve", reduce="mean"), IA,
  "reduce must be one of max, min, last, got 'mean'")
A("short", "searches-curve-too-few",
  lambda d: evpsim.read_searches(d / "curve.jsonl", field="curve", reduce="last",
                                 failed="drop"), IA,
  "curve.jsonl' holds 1 score of 3 records", "1 NaN, infinite or null (diverged); "
  "1 empty learning curve; first, line 2: the last checkpoint of curve is NaN")
A("jsonl", "searches-field-typo",
  lambda d: evpsim.read_searches(d / "good.jsonl", field="accuracy"), IA,
  "field 'accuracy' is in no record of", "good.jsonl'; the first record's keys: acc")
A("jsonl", "searches-bad-duration",
  lambda d: evpsim.read_searches(d / "duration.jsonl", field="acc", time_field="t"), IA,
  "duration.jsonl' line 2: t is 'an hour', not a duration")
A("usage", "searches-field-on-csv",
  lambda d: evpsim.read_searches(d / "two.csv", field="f1"), IA,
  "field applies to JSON Lines files", "two.csv' holds none")
A("usage", "searches-group-plain-text",
  lambda d: evpsim.read_searches(d / "good.txt", group="model"), IA,
  "group applies to JSON Lines and CSV files, not to plain text such as")
A("usage", "searches-labels-count",
  lambda d: evpsim.read_searches(d / "good.txt", labels=["a", "b"]), IA,
  "labels has 2 names for 1 model (good): give one per model")
A("usage", "searches-same-label",
  lambda d: evpsim.read_searches([d / "good.txt", d / "good.txt"]), IA,
  "two models are both labelled 'good'", "name them with labels")
A("short", "searches-no-files", lambda d: evpsim.read_searches([]), IA,
  "path names no file")
A("type", "searches-None", lambda d: evpsim.read_searches(None), IT,
  "path must be a file name or path, got None")
# kde_bandwidth, fit_kde, load_kde
A("short", "bandwidth-equal", lambda d: evpsim.kde_bandwidth([0.5, 0.5]), IA,
  "all 2 scores equal 0.5: the bandwidth would be 0")
A("short", "bandwidth-one", lambda d: evpsim.kde_bandwidth([0.5]), IA,
  "scores needs at least 2 values, got 1")
A("unknown", "bandwidth-rule", lambda d: evpsim.kde_bandwidth(S3, rule="foo"), IA,
  "rule must be one of normal-reference, scott, silverman, cv, got 'foo'")
A("scores", "bandwidth-underflow", lambda d: evpsim.kde_bandwidth([1e-300, 2e-300]), IA,
  "too little for a bandwidth (it underflows to 0)")
A("range", "fit-bins-1", lambda d: evpsim.fit_kde(S3, bins=1), IA,
  "bins must be at least 2, got 1")
A("size", "fit-bins-1e9", lambda d: evpsim.fit_kde(S3, bins=10**9), IA,
  "1,000,000,000 bins for 3 scores needs about", "reduce bins")
A("range", "fit-bandwidth-0", lambda d: evpsim.fit_kde(S3, bandwidth=0), IA,
  "bandwidth must lie in (0, inf), got 0")
A("range", "fit-bandwidth-negative", lambda d: evpsim.fit_kde(S3, bandwidth=-1), IA,
  "bandwidth must lie in (0, inf), got -1")
A("unknown", "fit-bandwidth-rule", lambda d: evpsim.fit_kde(S3, bandwidth="foo"), IA,
  "bandwidth must be one of normal-reference, scott, silverman, cv, got 'foo'")
A("scores", "fit-bandwidth-inf", lambda d: evpsim.fit_kde(S3, bandwidth=float("inf")), IA,
  "bandwidth must be a finite number, got inf")
A("type", "fit-bandwidth-bool", lambda d: evpsim.fit_kde(S3, bandwidth=True), IT,
  "bandwidth must be a number, got True")
A("scores", "fit-bandwidth-1e300", lambda d: evpsim.fit_kde(S3, bandwidth=1e300, bins=4), IA,
  "bandwidth 1e+300 stretches the grid", "choose a smaller bandwidth")
A("scores", "fit-grid-resolution", lambda d: evpsim.fit_kde([0.5, 0.5 + 1e-15, 0.5]), IA,
  "511 intervals on", "narrower than floating-point resolution")
A("unknown", "fit-construction", lambda d: evpsim.fit_kde(S3, construction="x"), IA,
  "construction must be one of tang2020, centered, got 'x'")
A("usage", "fit-bounds-tang2020", lambda d: evpsim.fit_kde(S3, bounds=(0, 1)), IA,
  "bounds apply only to the 'centered' construction")
A("range", "fit-bounds-inside",
  lambda d: evpsim.fit_kde(S3, construction="centered", bounds=(0.15, 1)), IA,
  "bounds (0.15, 1) must contain the scores [0.1, 0.3]")
A("type", "fit-name-space", lambda d: evpsim.fit_kde(S3, name="bad name"), IA,
  "name must be letters, digits, '.', '_' or '-', got 'bad name'")
A("type", "fit-name-None", lambda d: evpsim.fit_kde(S3, name=None), IA,
  "name must be letters, digits, '.', '_' or '-', got None")
A("type", "fit-model-int", lambda d: evpsim.fit_kde(S3, model=5), IT,
  "model must be a string, got int")
A("short", "fit-equal", lambda d: evpsim.fit_kde([0.5, 0.5]), IA,
  "all 2 scores equal 0.5")
A("unknown", "load-kde-name", lambda d: evpsim.load_kde("nope"), IA,
  "unknown KDE fit 'nope'; committed fits:")
A("file", "load-kde-missing", lambda d: evpsim.load_kde(d / "missing.nc"), IA,
  "no KDE fit file")
A("file", "load-kde-not-netcdf", lambda d: evpsim.load_kde(d / "fake.nc"), IA,
  "cannot read KDE fit", "fake.nc': not a netCDF file")
A("file", "load-kde-not-a-fit", lambda d: evpsim.load_kde(d / "notfit.nc"), IA,
  "notfit.nc' is not a KDE fit written by evpsim fit-kde (it has no pmf, x, name, "
  "description)")
# a damaged fit: evpsim's sentence alone, never HDF5's text in brackets
A("file", "load-kde-truncated", lambda d: evpsim.load_kde(d / "truncated.nc"), IA,
  "cannot read KDE fit", "truncated.nc': truncated (3,000 of ")
A("file", "load-kde-empty", lambda d: evpsim.load_kde(d / "empty.nc"), IA,
  "empty.nc': the file is empty")
A("file", "load-kde-folder", lambda d: evpsim.load_kde(d / "folder.nc"), IA,
  "is a folder, not a fit file")
A("type", "load-kde-int", lambda d: evpsim.load_kde(5), IT,
  "spec must be a name, a path or a Dataset, got int")
A("type", "load-kde-None", lambda d: evpsim.load_kde(None), IT,
  "spec must be a name, a path or a Dataset, got NoneType")
# clopper_pearson
A("range", "cp-k-above-n", lambda d: evpsim.clopper_pearson(5, 3), IA, "k must lie in 0..n")
A("range", "cp-k-negative", lambda d: evpsim.clopper_pearson(-1, 3), IA,
  "k must be at least 0, got -1")
A("range", "cp-n-0", lambda d: evpsim.clopper_pearson(1, 0), IA, "n must be at least 1, got 0")
A("range", "cp-level-1", lambda d: evpsim.clopper_pearson(1, 3, level=1), IA,
  "level must lie in (0, 1), got 1")
A("type", "cp-k-str", lambda d: evpsim.clopper_pearson("1", 3), IT,
  "k must be integers, got '1'")
A("type", "cp-k-float", lambda d: evpsim.clopper_pearson(1.5, 3), IA,
  "k must be integers, got 1.5")
A("type", "cp-k-bool", lambda d: evpsim.clopper_pearson(True, 3), IT,
  "k must be integers, got booleans")
A("type", "cp-k-bool-in-list", lambda d: evpsim.clopper_pearson([True, 2], 3), IT,
  "k must be an integer, got True")
A("type", "cp-n-float", lambda d: evpsim.clopper_pearson(1, 3.5), IA,
  "n must be integers, got 3.5")
A("type", "cp-k-nan", lambda d: evpsim.clopper_pearson(np.nan, 3), IA,
  "k must be integers, got nan")
A("type", "cp-k-None", lambda d: evpsim.clopper_pearson(None, 3), IT,
  "k must be an integer, got None")
A("usage", "cp-shapes", lambda d: evpsim.clopper_pearson([1, 2], [3, 4, 5]), IA,
  "k of shape (2,) and n of shape (3,) do not broadcast together")
# Truth.theta, Truth.sample, exact moments
NORMAL = evpsim.TruncatedNormal()
A("budget", "theta-0", lambda d: NORMAL.theta([0]), IA, "every n must be at least 1")
A("budget", "theta-negative", lambda d: NORMAL.theta(-1), IA, "got -1")
A("budget", "theta-empty", lambda d: NORMAL.theta([]), IA, "ns must be a non-empty")
A("type", "theta-str", lambda d: NORMAL.theta(["3"]), IT, "ns must be an integer, got '3'")
A("type", "theta-float", lambda d: NORMAL.theta([2.5]), IA, "ns must be an integer, got 2.5")
A("type", "theta-None", lambda d: NORMAL.theta(None), IT, "ns must be budgets")
A("range", "sample-negative", lambda d: NORMAL.sample(-1), IA,
  "size must be at least 0, got -1")
A("type", "sample-float", lambda d: NORMAL.sample(2.5), IA, "size must be an integer, got 2.5")
A("type", "sample-str", lambda d: NORMAL.sample("3"), IT, "size must be an integer, got '3'")
A("type", "sample-bool", lambda d: NORMAL.sample(True), IT, "size must be an integer, got True")
A("size", "sample-1e13", lambda d: NORMAL.sample(10**13), IA,
  "10,000,000,000,000 draws needs about", "reduce size")
A("range", "sample-seed", lambda d: NORMAL.sample(3, seed=-1), IA,
  "seed must be at least 0, got -1")
A("range", "sample-stream", lambda d: NORMAL.sample(3, stream=-1), IA,
  "stream must be at least 0, got -1")
A("range", "moments-B-0", lambda d: evpsim.order_statistic_moments("normal", 0), IA,
  "B must be a positive integer, got 0")
A("size", "moments-B-1e6", lambda d: evpsim.order_statistic_moments("normal", 10**6), IA,
  "the 1,000,000 x 1,000,000 covariance of the order statistics needs about")
A("unknown", "moments-truth", lambda d: evpsim.order_statistic_moments("nope", 5), IA,
  "unknown truth 'nope'")
A("type", "lmoments-shape",
  lambda d: evpsim.lstatistic_moments("normal", 3, [np.ones((3, 4))]), IA,
  "weights must be finite (R, 3) arrays, got one of shape (3, 4)")
# registries
A("unknown", "get-estimator", lambda d: evpsim.get_estimator("nope"), IA,
  "unknown estimator 'nope'; known: U, V, W")
A("unknown", "get-ci-method", lambda d: evpsim.get_ci_method("nope"), IA,
  "unknown CI method 'nope'; known: percentile, basic, bca, studentized, "
  "smoothed, gpd-tail, gpd-tail-lattice, gpd-tail-bounded, m-out-of-n, dkw, ks, "
  "ld-equal-tailed, ld-highest-density, order-statistic, gpd-tail-calibrated, gpd-tail-fdb, "
  "betting")
A("register", "unregister-builtin", lambda d: evpsim.unregister_estimator("U"), IA,
  "cannot unregister built-in estimator 'U'")
A("register", "unregister-builtin-ci", lambda d: evpsim.unregister_ci_method("dkw"), IA,
  "cannot unregister built-in CI method 'dkw'")
A("unknown", "unregister-unknown", lambda d: evpsim.unregister_estimator("nope"), IA,
  "unknown estimator 'nope'")
# register_estimator: each refusal registers nothing (checked for every API case)
EYE = np.eye
A("register", "est-func-numba", lambda d: evpsim.register_estimator("bad", func=_bad_numba),
  IA, "func cannot run as (sorted_sample, n) -> float in numba (n = 1 of a sample of 3)",
  "no_such_attribute")
A("register", "est-func-str",
  lambda d: evpsim.register_estimator("bad", func=lambda xs, n: "x"), IA,
  "func must return float; on n = 1 of a sample of 3 it returned 'x'")
A("register", "est-func-tuple",
  lambda d: evpsim.register_estimator("bad", func=lambda xs, n: (xs[0], xs[1])), IA,
  "it returned (0.25, 0.5) (a tuple, not a number)")
A("register", "est-func-bool",
  lambda d: evpsim.register_estimator("bad", func=lambda xs, n: xs[0] > 0), IA,
  "it returned True (a bool, not a number)")
A("register", "est-func-nan",
  lambda d: evpsim.register_estimator("bad", func=lambda xs, n: np.nan), IA,
  "it returned nan (not finite)")
A("register", "est-func-arity",
  lambda d: evpsim.register_estimator("bad", func=lambda xs: xs[0]), IA,
  "func cannot run as (sorted_sample, n) -> float in numba")
A("register", "est-func-index",
  lambda d: evpsim.register_estimator("bad", func=_off_by_one), IA,
  "(n = 3 of a sample of 3): index is out of bounds")
A("register", "est-func-not-callable", lambda d: evpsim.register_estimator("bad", func=5), IT,
  "func must be a callable (sorted_sample, n) -> float")
A("register", "est-weights-shape",
  lambda d: evpsim.register_estimator("bad", weights=lambda B: np.ones((B, B + 1))), IA,
  "weights(2) fails: weights of estimator 'bad' for B=2 have shape (2, 3), expected (2, 2)")
A("register", "est-weights-one-B",
  lambda d: evpsim.register_estimator("bad", weights=lambda B: EYE(3)), IA,
  "weights(2) fails", "have shape (3, 3), expected (2, 2)")
A("register", "est-weights-nan",
  lambda d: evpsim.register_estimator("bad", weights=lambda B: np.full((B, B), np.nan)), IA,
  "weights(2) fails: weights of estimator 'bad' are not finite")
A("register", "est-weights-raises",
  lambda d: evpsim.register_estimator("bad", weights=lambda B: 1 / 0), IA,
  "weights(2) fails: division by zero")
A("register", "est-weights-strings",
  lambda d: evpsim.register_estimator("bad", weights=lambda B: [["a"] * B] * B), IA,
  "could not convert string to float")
A("register", "est-weights-not-callable", lambda d: evpsim.register_estimator("bad", weights=5),
  IT, "weights must be a callable B -> (B, B) array")
A("register", "est-neither", lambda d: evpsim.register_estimator("bad"), IA,
  "give exactly one of weights=, func= and python=")
A("register", "est-both",
  lambda d: evpsim.register_estimator("bad", weights=EYE, func=lambda xs, n: 0.0), IA,
  "give exactly one of weights=, func= and python=")
A("register", "est-python-shape",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: xs[:2]), IA,
  "python must be f(scores, ns) -> array of len(ns); on a sample of 5 at n = 1, 2, 5 it "
  "returned shape (2,), expected (3,)")
A("register", "est-python-batched-shape",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: xs[:, :1], batched=True), IA,
  "returned shape (1, 1), expected (1, 3)")
A("register", "est-python-nan",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: np.full(ns.size, np.nan)),
  IA, "python must return finite estimates; on a sample of 5 at n = 1, 2, 5 it returned [nan")
A("register", "est-python-raises",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: 1 / 0), IA,
  "it raised ZeroDivisionError: division by zero")
A("register", "est-python-beyond",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: np.sort(xs)[ns - 1],
                                      extrapolates=True), IA,
  "on a sample of 5 at n = 1, 2, 5, 10 it raised IndexError")
A("register", "est-python-not-callable", lambda d: evpsim.register_estimator("bad", python=3),
  IT, "python must be a callable f(scores, ns) -> curve")
A("register", "est-python-targets",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: xs[ns - 1], targets="mode"),
  IA, "targets must be 'mean', 'quantile' or both, got ('mode',)")
A("register", "est-weights-extrapolate",
  lambda d: evpsim.register_estimator("bad", weights=EYE, extrapolates=True), IA,
  "extrapolates: weights(B) give budgets up to B only")
A("unknown", "bias-curve", lambda d: evpsim.bias("normal", 5, curve="mode", method="exact"),
  IA, "curve must be mean (expected best of n), median, or quantile:Q with Q in (0, 1); got "
      "'mode'")
A("range", "bias-curve-q", lambda d: evpsim.bias("normal", 5, curve="quantile:1.5"), IA,
  "curve 'quantile:1.5': the quantile must be a number in (0, 1)")
A("budget", "bias-U-beyond", lambda d: evpsim.bias("normal", 5, estimators="U", ns=[6],
                                                  method="exact"), IA,
  "U does not estimate beyond the B = 5 trials run (n = 6 asked for)")
A("budget", "coverage-naive", lambda d: evpsim.coverage("normal", 5, estimators="naive"), IA,
  "coverage simulates the intervals of L-statistics only, and naive (a python estimator) is "
  "not")
A("usage", "bias-V-median", lambda d: evpsim.bias("normal", 5, estimators="V", curve="median",
                                                 method="exact"), IA,
  "V estimates the mean curve, not the quantile curves (quantile:0.5)")
A("range", "bias-python-replicates",
  lambda d: evpsim.bias("normal", 5, estimators="naive", python_replicates=1), IA,
  "python_replicates must be at least 2")
A("register", "est-builtin-name", lambda d: evpsim.register_estimator("U", weights=EYE), IA,
  "an estimator named 'U' is already registered")
A("register", "est-builtin-overwrite",
  lambda d: evpsim.register_estimator("U", weights=EYE, overwrite=True), IA,
  "an estimator named 'U' is already registered")
A("register", "est-comma-name", lambda d: evpsim.register_estimator("a,b", weights=EYE), IA,
  "estimator name must be a non-empty string of letters, digits, '_' or '-', got 'a,b'")
A("register", "est-None-name", lambda d: evpsim.register_estimator(None, weights=EYE), IA,
  "got None")
A("type", "est-overwrite-str",
  lambda d: evpsim.register_estimator("ok", weights=EYE, overwrite="yes"), IT,
  "overwrite must be True or False, got 'yes'")
A("type", "est-description-int",
  lambda d: evpsim.register_estimator("ok", weights=EYE, description=5), IT,
  "description must be a string, got 5")
# register_ci_method
A("register", "ci-func-numba",
  lambda d: evpsim.register_ci_method("bad", func=lambda b, e, j, lv: b.nope), IA,
  "func cannot run as (boots, estimate, jackknife, level) -> (lower, upper) in numba")
A("register", "ci-func-scalar",
  lambda d: evpsim.register_ci_method("bad", func=lambda b, e, j, lv: e), IA,
  "func must return (lower, upper)", "returned 0.65 (not a pair)")
A("register", "ci-func-triple",
  lambda d: evpsim.register_ci_method("bad", func=lambda b, e, j, lv: (e, e, e)), IA,
  "(not a pair)")
A("register", "ci-func-strings",
  lambda d: evpsim.register_ci_method("bad", func=lambda b, e, j, lv: ("a", "b")), IA,
  "returned ('a', 'b') (not two numbers)")
A("register", "ci-func-bools",
  lambda d: evpsim.register_ci_method("bad", func=lambda b, e, j, lv: (True, False)), IA,
  "returned (True, False) (not two numbers)")
A("register", "ci-func-reversed",
  lambda d: evpsim.register_ci_method("bad", func=_reversed_interval), IA,
  "it returned (1.65", "(lower above upper)")
A("register", "ci-func-index",
  lambda d: evpsim.register_ci_method("bad", func=_boot_outside), IA,
  "index is out of bounds")
A("register", "ci-band-shape",
  lambda d: evpsim.register_ci_method("bad", band=lambda B, lv: (np.zeros(B), np.ones(B))),
  IA, "band(5, 0.95) fails: band 'bad' for B=5 returned shapes (5,), (5,); expected (6,)")
A("register", "ci-band-reversed",
  lambda d: evpsim.register_ci_method(
      "bad", band=lambda B, lv: (np.ones(B + 1), np.zeros(B + 1))), IA,
  "band 'bad' must satisfy 0 <= lower <= upper <= 1")
A("register", "ci-band-above-1",
  lambda d: evpsim.register_ci_method(
      "bad", band=lambda B, lv: (np.zeros(B + 1), np.full(B + 1, 2.0))), IA,
  "must satisfy 0 <= lower <= upper <= 1")
A("register", "ci-band-nan",
  lambda d: evpsim.register_ci_method(
      "bad", band=lambda B, lv: (np.full(B + 1, np.nan), np.ones(B + 1))), IA,
  "must satisfy 0 <= lower <= upper <= 1")
A("register", "ci-band-int", lambda d: evpsim.register_ci_method("bad", band=lambda B, lv: 5),
  IA, "band(5, 0.95) fails: 'int' object is not iterable")
A("register", "ci-band-not-callable", lambda d: evpsim.register_ci_method("bad", band=5), IT,
  "band must be a callable (B, level) -> (lower, upper)")
A("register", "ci-neither", lambda d: evpsim.register_ci_method("bad"), IA,
  "give exactly one of func= and band=")
A("register", "ci-builtin-name",
  lambda d: evpsim.register_ci_method("percentile", band=evpsim.intervals.bands.dkw_band), IA,
  "a CI method named 'percentile' is already registered")
A("type", "ci-overwrite-str",
  lambda d: evpsim.register_ci_method("ok", band=evpsim.intervals.bands.dkw_band, overwrite=1), IT,
  "overwrite must be True or False, got 1")
# sweep (API): refused before the store (under d) is created
SW = {"dist": ["normal", "tang-small"], "B": [5, 10]}


def _sweep(d, battery="bias", axes=SW, **kwargs):
    kwargs.setdefault("options", {"method": "exact"} if battery == "bias" else {})
    return evpsim.sweep(battery, axes, store=kwargs.pop("store", d / "cells"), **kwargs)


A("usage", "sweep-scheduler-empty", lambda d: _sweep(d, backend="dask", scheduler=""), IA,
  "scheduler is empty: give the address of a running dask scheduler")
A("usage", "sweep-scheduler-blank", lambda d: _sweep(d, backend="dask", scheduler="  "), IA,
  "scheduler is empty")
A("type", "sweep-scheduler-int", lambda d: _sweep(d, backend="dask", scheduler=8786), IT,
  "scheduler must be an address such as tcp://HOST:8786, got 8786")
A("usage", "sweep-scheduler-not-dask", lambda d: _sweep(d, scheduler="tcp://h:8786"), IA,
  "a scheduler is for the dask backend, not 'process'")
A("usage", "sweep-scheduler-scheme",
  lambda d: _sweep(d, backend="dask", scheduler="http://127.0.0.1:8786"), IA,
  "scheduler 'http://127.0.0.1:8786' is not a scheduler address (unknown address scheme")
A("output", "sweep-store-empty", lambda d: _sweep(d, store=""), IA,
  "store is empty: name a folder")
A("type", "sweep-store-int", lambda d: _sweep(d, store=3), IT,
  "store must be a folder name or path, got 3")
A("output", "sweep-store-file", lambda d: _sweep(d, store=d / "good.txt"), IA,
  "good.txt' is a file, not a folder")
A("output", "sweep-store-under-file", lambda d: _sweep(d, store=d / "good.txt" / "cells"), IA,
  "its folder", "good.txt' is a file")
A("output", "sweep-store-not-a-store", lambda d: _sweep(d, store=d / "outdir"), IA,
  "exists and is not a sweep's store (no grid.json)")
A("unknown", "sweep-backend", lambda d: _sweep(d, backend="joblib"), IA,
  "unknown backend 'joblib'; known: process, local, dask")
A("range", "sweep-workers-0", lambda d: _sweep(d, backend="local", workers=0), IA,
  "workers must be at least 1, got 0")
A("unknown", "sweep-estimator", lambda d: _sweep(d, options={"estimators": "X"}), IA,
  "unknown estimator 'X'")
A("range", "sweep-level", lambda d: _sweep(d, "coverage", options={"level": 2}), IA,
  "level must lie in (0, 1), got 2")
A("size", "sweep-B-100000", lambda d: _sweep(d, axes={"dist": ["normal"], "B": [5, 100_000]}),
  IA, "reduce B")
A("range", "sweep-bounds-inside",
  lambda d: _sweep(d, "coverage", options={"ci_methods": "dkw", "bounds": [0.2, 0.8]}), IA,
  "must contain the truth's support")
A("usage", "sweep-pool-truths", lambda d: _sweep(d, "compare", {"a": ["tang-small"],
                                                               "b": ["tang-big"], "B": [5]},
                                                 options={"pool": True}), IA,
  "pool sampling draws from real results")
A("file", "sweep-grid-binary", lambda d: evpsim.engine.sweeps.load_toml(d / "binary.txt"), IA,
  "binary.txt' is not a text file (UTF-8): give a TOML grid file")
# reproduce (API)
A("unknown", "reproduce-paper", lambda d: evpsim.reproduce.reproduce("nope", d / "r"), IA,
  "unknown paper 'nope'; known: dodge2019, dodge2021, tang2020")
A("type", "reproduce-out-None", lambda d: evpsim.reproduce.reproduce("dodge2019", None), IT,
  "out must be a folder name or path, got None")
A("type", "reproduce-quick-str",
  lambda d: evpsim.reproduce.reproduce("dodge2019", d / "r", quick="yes"), IT,
  "quick must be True or False, got 'yes'")
A("usage", "reproduce-workers-unused",
  lambda d: evpsim.reproduce.reproduce("dodge2019", d / "r", workers=2), IA,
  "workers applies to papers whose cells run on the sweep engine (intervals); dodge2019 "
  "runs none")
A("usage", "reproduce-workers-and-scheduler",
  lambda d: evpsim.reproduce.reproduce("intervals", d / "r", workers=2,
                                       scheduler="tcp://h:8786"), IA,
  "workers, scheduler and cluster are exclusive: give one")
A("type", "reproduce-store-int",
  lambda d: evpsim.reproduce.reproduce("intervals", d / "r", quick=True, store=3), IT,
  "store must be a folder name or path, got 3")


# masked arrays: their hidden values were used as data; refused, naming the first
MASKED = np.ma.masked_array([0.5, 0.6, 0.7, 99.0], mask=[0, 0, 0, 1])
MASK_WORDS = "is a masked array with 1 masked value(s), first at index 3"
A("scores", "masked-estimate", lambda d: evpsim.estimate(MASKED, "V"), IA, "scores " + MASK_WORDS,
  "neither uses masked values nor drops them silently", ".compressed()")
A("scores", "masked-curve", lambda d: evpsim.curve(MASKED), IA, "scores " + MASK_WORDS)
A("scores", "masked-curve-dict", lambda d: evpsim.curve({"a": MASKED, "b": S3}), IA,
  "scores of 'a' " + MASK_WORDS)
A("scores", "masked-curve-list", lambda d: evpsim.curve([S3, MASKED]), IA,
  "scores of 'model 2' " + MASK_WORDS)
A("scores", "masked-evp-curve", lambda d: evpsim.evp_curve(MASKED), IA, MASK_WORDS)
A("scores", "masked-budget", lambda d: evpsim.budget_to_reach(MASKED, 0.6), IA, MASK_WORDS)
A("scores", "masked-intervals", lambda d: evpsim.bootstrap_intervals(MASKED), IA, MASK_WORDS)
A("scores", "masked-self-check", lambda d: evpsim.self_check(MASKED), IA, MASK_WORDS)
A("scores", "masked-fit-kde", lambda d: evpsim.fit_kde(MASKED, name="x"), IA, MASK_WORDS)
A("scores", "masked-bandwidth", lambda d: evpsim.kde_bandwidth(MASKED), IA, MASK_WORDS)
A("scores", "masked-empirical", lambda d: evpsim.empirical(MASKED), IA, MASK_WORDS)
A("scores", "masked-support", lambda d: evpsim.Discrete(MASKED, [1, 1, 1, 1]), IA,
  "support " + MASK_WORDS)
A("scores", "masked-pmf", lambda d: evpsim.Discrete(S3, np.ma.masked_array([1, 1, 1],
                                                                           mask=[0, 1, 0])), IA,
  "pmf is a masked array with 1 masked value(s), first at index 1")
A("budget", "masked-ns", lambda d: evpsim.estimate(S3, "V", ns=np.ma.masked_array([1, 9],
                                                                                   mask=[0, 1])),
  IA, "ns is a masked array with 1 masked value(s), first at index 1")
A("budget", "masked-theta-ns", lambda d: evpsim.make_truth("normal").theta(
    np.ma.masked_array([1, 2], mask=[1, 0])), IA, "ns is a masked array", "first at index 0")
A("scores", "masked-2d-counts", lambda d: evpsim.clopper_pearson(
    np.ma.masked_array([[1, 2]], mask=[[0, 1]]), 10), IA,
  "k is a masked array with 1 masked value(s), first at index (0, 1)")
A("scores", "masked-lstatistic", lambda d: evpsim.lstatistic_moments(
    evpsim.empirical([0.1, 0.2]), 2, [np.ma.masked_array([[0.5, 0.5]], mask=[[0, 1]])]), IA,
  "weights is a masked array with 1 masked value(s), first at index (0, 1)")
# truths whose values span less than 1e-70: three subnormals gave theta = 0, "a single value"
A("truth", "subnormal-empirical", lambda d: evpsim.empirical([5e-324, 1e-323, 1.5e-323]), IA,
  "support (the truth's distinct values) spans 9.88e-324, from 4.94e-324 to 1.48e-323, below "
  "1e-70, where variances and standard errors underflow to 0", "multiply them by 1e300")
A("truth", "subnormal-discrete", lambda d: evpsim.Discrete([1e-320, 0.0], [1, 1]), IA,
  "support (the truth's distinct values) spans 1e-320")
A("truth", "subnormal-file", lambda d: evpsim.make_truth(f"file:{d / 'subnormal.txt'}"), IA,
  "spans 9.88e-324")
A("truth", "tiny-spread-empirical", lambda d: evpsim.empirical([1e-300, 2e-300]), IA,
  "spans 1e-300, from 1e-300 to 2e-300, below 1e-70")
A("truth", "tiny-spread-bias", lambda d: evpsim.bias(evpsim.empirical([0.0, 1e-75]), B=3), IA,
  "spans 1e-75")
# CSV columns of the same name: the first was used silently; refused, naming positions
A("file", "dup-column-read-scores", lambda d: evpsim.read_scores(d / "dup.csv", column="acc"),
  IA, "column 'acc' is ambiguous:", "dup.csv' has 2 columns of that name, at 0-based "
  "positions 0, 2; give the position of the one you mean")
A("file", "dup-column-searches", lambda d: evpsim.read_searches(d / "dup.csv", column="acc"),
  IA, "column 'acc' is ambiguous", "positions 0, 2")
A("file", "dup-group", lambda d: evpsim.read_searches(d / "dupgroup.csv", column="acc",
                                                      group="model"), IA,
  "group 'model' is ambiguous", "positions 0, 2")
A("file", "dup-time-field", lambda d: evpsim.read_searches(d / "duptime.csv", column="acc",
                                                           time_field="t"), IA,
  "time_field 't' is ambiguous", "positions 1, 2")
A("file", "dup-column-truth", lambda d: evpsim.make_truth(f"file:{d / 'dup.csv'}",
                                                          column="acc"), IA,
  "column 'acc' is ambiguous")
# reading options given per path, diverged runs, shipped searches
A("usage", "searches-field-list-length",
  lambda d: evpsim.read_searches([d / "good.jsonl"], field=["acc", "acc"]), IA,
  "field has 2 entries for 1 path(s): give one per path (None for a file without)")
A("usage", "searches-column-list-length",
  lambda d: evpsim.read_searches([d / "two.csv", d / "good.txt"], column=["f1"]), IA,
  "column has 1 entries for 2 path(s)")
A("type", "searches-field-list-item",
  lambda d: evpsim.read_searches([d / "good.jsonl"], field=[3]), IA,
  "field must be a non-empty key, got 3")
A("type", "searches-column-bool", lambda d: evpsim.read_searches(d / "two.csv",
                                                                 column=np.bool_(True)), IT,
  "column must be a column's name or 0-based index, got np.True_")
A("unknown", "searches-diverged", lambda d: evpsim.read_searches(d / "opda.jsonl",
                                                                 field="lc.top_1", reduce="max",
                                                                 diverged="ignore"), IA,
  "diverged must be one of keep, drop, got 'ignore'")
A("type", "searches-diverged-bool", lambda d: evpsim.read_searches(d / "opda.jsonl",
                                                                   field="lc.top_1",
                                                                   reduce="max",
                                                                   diverged=True), IA,
  "diverged must be one of keep, drop, got True")
A("short", "searches-diverged-dropped", lambda d: evpsim.read_searches(
    d / "diverged.jsonl", field="lc.top_1", reduce="max", diverged="drop"), IA,
  "diverged.jsonl' holds 1 score of 3 records, too few for a search (at least 2); 2 dropped "
  "(2 flagged as diverged (nan_train_loss); first, line 1: nan_train_loss is true (the run "
  "diverged))")
A("unknown", "shipped-search-close", lambda d: evpsim.search_path("reuters-mpl"), IA,
  "no shipped search 'reuters-mpl' (did you mean 'reuters-mlp'?); shipped: reuters-mlp")
A("unknown", "read-results-shipped", lambda d: evpsim.io.shipped.read_results(["data:sklearn-mpl"]),
  IA, "no shipped search 'sklearn-mpl' (did you mean 'sklearn-mlp'?)")
A("usage", "read-results-field", lambda d: evpsim.io.shipped.read_results(
    ["data:sklearn-svm", "data:reuters-mlp"], field="best_validation_accuracy"), IA,
  "field applies to your own files; a shipped search is read with its own field "
  "(data:sklearn-svm: best_validation_accuracy, data:reuters-mlp: one score per line)")
A("usage", "read-results-column", lambda d: evpsim.io.shipped.read_results(
    ["data:reuters-mlp"], column=0), IA, "column applies to your own files")
# Python's own errors that leaked: empty containers, wrong kinds, numpy values, folders
A("short", "curve-empty-mapping", lambda d: evpsim.curve({}), IA,
  "scores is an empty mapping: give {label: scores} for at least one model")
A("short", "self-check-empty-mapping", lambda d: evpsim.self_check({}), IA,
  "scores is an empty mapping")
A("type", "curve-labels-int", lambda d: evpsim.curve(S3, labels=5), IT,
  "labels must be a string or a list of strings, got 5")
A("type", "curve-durations-int", lambda d: evpsim.curve(S3, durations=5), IT,
  "durations must be a mapping by label or a sequence with one entry per model, got 5")
A("type", "curve-durations-str", lambda d: evpsim.curve(S3, durations="60"), IT,
  "durations must be a mapping by label or a sequence", "got '60'")
A("type", "curve-durations-words", lambda d: evpsim.curve(S3, durations=["an hour"]), IT,
  "durations of model 'model' must be seconds (numbers), got 'an hour'")
A("type", "check-warnings-int", lambda d: evpsim.check_warnings(3), IT,
  "ds must be a result of evpsim.self_check, got int")
A("type", "check-warnings-curve", lambda d: evpsim.check_warnings(
    evpsim.curve(S3, resamples=10)), IT, "got Dataset without check_coverage")
A("type", "plot-curve-dict", lambda d: evpsim.plot_curve({"estimator": "V"}), IT,
  "ds must be the Dataset that evpsim.curve returns, got dict")
A("type", "plot-curve-path-first", lambda d: evpsim.plot_curve("curve.png"), IT,
  "ds must be the Dataset that evpsim.curve returns, got str")
A("usage", "plot-curve-bias-result", lambda d: evpsim.plot_curve(
    evpsim.bias(B=3, method="exact")), IA,
  "ds is not a result of evpsim.curve: it has no model, ci_method, estimate")
A("output", "plot-curve-folder", lambda d: evpsim.plot_curve(
    evpsim.curve(S3, resamples=10), d / "folder"), IA, "path", "folder' is a folder, not a file")
A("output", "plot-curve-suffix", lambda d: evpsim.plot_curve(
    evpsim.curve(S3, resamples=10), d / "curve.part"), IA,
  "curve.part': expected a file ending in .png, .pdf, .svg")
A("output", "plot-curve-missing-folder", lambda d: evpsim.plot_curve(
    evpsim.curve(S3, resamples=10), d / "missing" / "c.png"), IA, "does not exist")
A("output", "atomic-write-folder", lambda d: evpsim.io.results.atomic_write(
    d / "folder", lambda tmp: None), IA, "folder': it is a folder, not a file")
A("output", "write-netcdf-folder", lambda d: evpsim.io.results.write_netcdf(
    evpsim.bias(B=3, method="exact"), d / "folder.nc"), IA, "folder.nc': it is a folder")
A("type", "ns-generator", lambda d: evpsim.evp_curve(S3, ns=(n for n in (1, 2))), IT,
  "ns must be a budget or a sequence of budgets (a list, a range or an array), got a generator")
A("type", "ns-set", lambda d: evpsim.make_truth("normal").theta({1, 2}), IT,
  "ns must be a budget or a sequence of budgets", "got a set")
A("type", "sweep-options-list", lambda d: evpsim.sweep("bias", {"dist": ["normal"], "B": [3]},
                                                       options=[("method", "exact")]), IT,
  "options must map option names to values, got list")


# budgets: duplicates and huge values (a traceback, and a list that never ends)
A("budget", "bias-ns-twice", lambda d: evpsim.bias(B=5, ns=[3, 3], method="exact"), IA,
  "ns lists n = 3 twice: give each budget once")
A("budget", "falseconc-ns-thrice", lambda d: evpsim.falseconc(B=5, ns=[2, 2, 2]), IA,
  "ns lists n = 2 3 times")
A("budget", "compare-ns-twice", lambda d: evpsim.compare_curves(
    "tang-small", "tang-big", B=5, ns=[1, 1]), IA, "ns lists n = 1 twice")
A("budget", "estimate-n-1e30", lambda d: evpsim.estimate(S3, "V", ns=[10**30]), IA,
  "every n must be at most 10,000,000 (larger budgets are refused), "
  "got 1,000,000,000,000,000,000,000,000,000,000")
A("budget", "estimate-n-1e30-float", lambda d: evpsim.estimate(S3, "V", ns=[1e30]), IA,
  "every n must be at most 10,000,000")
A("budget", "theta-n-2**70", lambda d: NORMAL.theta([1, 2**70]), IA,
  "every n must be at most 10,000,000")
A("budget", "curve-n-1e8", lambda d: evpsim.bias(B=5, ns=[1, 10**8], estimators="V",
                                                 method="exact"), IA,
  "every n must be at most 10,000,000")
# a Python estimator that fails on the scores given: estimate said nothing (all NaN)
A("estimator", "estimate-kde-constant", lambda d: evpsim.estimate([0.5, 0.5, 0.5], "kde"), IA,
  "estimator 'kde' gives no estimate for these scores at n = 1, 2, 3: it returned NaN")
A("estimator", "estimate-raises", lambda d: _with_estimator(
    "fails-short", _fails_on_short, lambda: evpsim.estimate(S3, "fails-short")), IA,
  "estimator 'fails-short' gives no estimate for these scores at n = 1, 2, 3: it raised "
  "ValueError: needs 4 scores")
A("estimator", "estimate-nan", lambda d: _with_estimator(
    "nan-short", _nan_on_short, lambda: evpsim.estimate(S3, "nan-short")), IA,
  "estimator 'nan-short' gives no estimate", "it returned [nan, nan, nan]")
A("estimator", "estimate-shape", lambda d: _with_estimator(
    "shape-short", _shape_on_short, lambda: evpsim.estimate(S3, "shape-short")), IA,
  "it returned shape (1,), expected (3,)")
A("estimator", "estimate-sys-exit", lambda d: _with_estimator(
    "exit-short", _exit_on_short, lambda: evpsim.estimate(S3, "exit-short")), IA,
  "it raised SystemExit: 3")
A("estimator", "register-sys-exit",
  lambda d: evpsim.register_estimator("bad", python=lambda xs, ns: sys.exit(2)), IA,
  "it raised SystemExit: 2")
A("estimator", "bias-exact-no-moments", lambda d: evpsim.bias(B=5, estimators="kde,V",
                                                              method="exact"), IA,
  "method: 'exact' needs exact moments, and kde has none", "use method='both'")
A("estimator", "bias-exact-no-moments-two", lambda d: evpsim.bias(
    B=5, estimators="kde,opda-parametric", method="exact"), IA,
  "kde, opda-parametric have none")
A("estimator", "bias-unpicklable-workers", lambda d: _with_estimator(
    "locked", _locked, lambda: evpsim.bias(B=5, estimators="locked", replicates=64,
                                           chunk_size=32, workers=2)), IA,
  "workers: estimator 'locked' cannot be sent to worker processes (TypeError: cannot pickle "
  "'_thread.lock' object); run it with workers=1")
# a string or bytes where a list of names is taken: never split into letters
A("type", "ci-methods-bytes", lambda d: evpsim.bootstrap_intervals(S3, ci_methods=b"bca"), IT,
  "ci_methods must be a name, a comma-separated string of names or a list of names, got b'bca'")
A("type", "estimators-dict", lambda d: evpsim.bias(B=5, estimators={"U": 1}), IT,
  "estimators must be a name", "got {'U': 1}")
A("unknown", "leaderboard-truths-str", lambda d: _leaderboard(
    truths="nrmal", Bs=5, size="quick", store=d / "lb"), IA, "unknown truth 'nrmal'")
A("unknown", "leaderboard-curves-str", lambda d: _leaderboard(
    truths="normal", Bs=5, curves="mode", size="quick", store=d / "lb"), IA,
  "curve must be mean (expected best of n), median, or quantile:Q", "got 'mode'")
A("range", "leaderboard-cell-samples", lambda d: _leaderboard(
    truths="normal", Bs=5, size="quick", coverage_replicates=1, store=d / "lb"), IA,
  "coverage_replicates must be at least 2, got 1")
A("range", "leaderboard-cell-gpd-B", lambda d: _leaderboard(
    truths="normal", Bs=5, size="quick", ci_methods="gpd-tail", store=d / "lb"), IA,
  "ci_methods: gpd-tail bounds the mean curve only, at B >= 10, and no cell of this grid is one")
# degenerate data: scores spanning less than 1e-70 gave SD 0 and zero-width intervals
A("degenerate", "curve-tiny-spread", lambda d: evpsim.curve([1e-300, 2e-300, 3e-300]), IA,
  "the range of the scores spans 2e-300, from 1e-300 to 3e-300, below 1e-70",
  "multiply them by 1e300")
A("degenerate", "curve-subnormal", lambda d: evpsim.curve([5e-324, 1e-323, 2e-323]), IA,
  "spans 1.48e-323")
A("degenerate", "curve-tiny-model", lambda d: evpsim.curve({"a": S3, "b": [0.0, 1e-75]}), IA,
  "the range of the scores of 'b' spans 1e-75")
A("degenerate", "self-check-tiny", lambda d: evpsim.self_check([1e-300, 2e-300, 3e-300]), IA,
  "spans 2e-300")
A("range", "curve-quantile-1", lambda d: evpsim.curve(S3, curve="quantile:1"), IA,
  "curve 'quantile:1': the quantile must be a number in (0, 1)")
A("range", "coverage-quantile-0", lambda d: evpsim.coverage(B=5, curve="quantile:0"), IA,
  "the quantile must be a number in (0, 1)")
A("range", "estimate-quantile-nan", lambda d: evpsim.estimate(S3, "quantile",
                                                             curve="quantile:nan"), IA,
  "the quantile must be a number in (0, 1)")


def _with_estimator(name, python, call):
    """``call()`` with the Python estimator ``python`` registered as ``name``."""
    evpsim.register_estimator(name, python=python)
    try:
        return call()
    finally:
        evpsim.unregister_estimator(name)


def _fails_on_short(xs, ns):  # passes the trial on 5 scores, raises on 3
    if len(xs) < 4:
        raise ValueError("needs 4 scores")
    return np.sort(xs)[np.minimum(ns, len(xs)) - 1]


def _nan_on_short(xs, ns):
    return np.sort(xs)[np.minimum(ns, len(xs)) - 1] if len(xs) > 3 else np.full(ns.size, np.nan)


def _shape_on_short(xs, ns):
    return np.sort(xs)[np.minimum(ns, len(xs)) - 1] if len(xs) > 3 else np.zeros(1)


def _exit_on_short(xs, ns):
    if len(xs) < 4:
        sys.exit(3)
    return np.sort(xs)[np.minimum(ns, len(xs)) - 1]


def _best_so_far_locked(lock, xs, ns):
    with lock:
        return np.maximum.accumulate(xs)[ns - 1]


#: holds a lock: cannot be sent to worker processes
_locked = functools.partial(_best_so_far_locked, threading.Lock())


# the report's surface: names a table cannot print, durations, the self-check's sizes,
# a quantile as typed, estimators a sweep's workers cannot receive
A("usage", "curve-name-newline", lambda d: evpsim.curve({"a\nb": S3}), IA,
  "model name 'a\\nb' holds a line break or another control character, which would break "
  "the tables' rows (name the models with labels=LIST)")
A("usage", "curve-labels-tab", lambda d: evpsim.curve([S3], labels=["a\tb"]), IA,
  "labels: model name 'a\\tb' holds a line break")
A("range", "curve-duration-1e308", lambda d: evpsim.curve(S3, durations=[[1e308, 1.0, 2.0]]),
  IA, "model 'model' has a duration of 1e+308 s, beyond 1e+09 s (32 years): durations are "
      "seconds")
A("range", "curve-quantile-as-typed", lambda d: evpsim.curve(S3, curve="quantile:1.0000001"),
  IA, "curve 'quantile:1.0000001': the quantile must be a number in (0, 1)")
A("size", "self-check-replicates-1e9", lambda d: evpsim.self_check(S3, replicates=10**9), IA,
  "replicates must be at most 1,000,000 (the Monte Carlo error of a coverage near 95% is "
  "then +-0.0004: more searches change no verdict), got 1,000,000,000")
A("size", "self-check-resamples-memory", lambda d: evpsim.self_check(S3 * 4, resamples=10**12),
  IA, "1,000,000,000,000 resamples of 1 x 12 estimates", "reduce resamples")
A("estimator", "sweep-unpicklable-workers", lambda d: _with_estimator(
    "locked", _locked, lambda: evpsim.sweep("bias", {"dist": ["normal"], "B": [5, 6]},
                                            options={"estimators": "locked",
                                                     "replicates": 64},
                                            backend="local", workers=2)), IA,
  "workers: estimator 'locked' cannot be sent to worker processes (TypeError: cannot pickle "
  "'_thread.lock' object); run it with workers=1")


def _registries():
    return evpsim.list_estimators(), list(evpsim.list_ci_methods())


@pytest.mark.parametrize("fn, exc, words", API)
def test_api_bad_input(d, fn, exc, words):
    before = _registries()
    files = tree(d)
    with pytest.raises(exc) as info:
        fn(d)
    message = str(info.value)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert isinstance(info.value, InvalidArgument)  # the library's own error, naming ...
    assert isinstance(info.value.argument, str) and info.value.argument  # ... its argument
    assert "\n" not in message
    assert _registries() == before  # a refused registration registers nothing
    assert tree(d) == files


def _clipped_max(xs, n):
    return xs[-1]


#: cases checked by single tests below: two general-estimator refusals; an interrupted
#: write and two SIGTERMs (the command, the library's writer) that leave nothing behind;
#: Ctrl-C while the command starts; long runs ending at once on a signal
EXTRA = Counter({"register": 2, "output": 3, "usage": 1, "plugin": 3})


def test_general_estimator_refused_where_intervals_need_weights():
    """A general (non-linear) estimator has no weights: refused by name by coverage and
    the resampling methods (the bootstrap methods run it on each resample)."""
    evpsim.register_estimator("clipmax", func=_clipped_max)
    try:
        with pytest.raises(InvalidArgument, match=r"estimators: coverage simulates the intervals "
                                                  r"of L-statistics only, and clipmax \(a numba"):
            evpsim.coverage(B=5, estimators="U,clipmax", replicates=16, resamples=50)
        with pytest.raises(InvalidArgument, match="gpd-tail reweights resamples through an "
                                                  "L-statistic's weights, and clipmax is not"):
            evpsim.bootstrap_intervals(S3 * 4, estimators="clipmax", ci_methods="gpd-tail")
    finally:
        evpsim.unregister_estimator("clipmax")


# --- CLI cases ---------------------------------------------------------------------

#: small sizes put before each case's own flags (a later flag wins)
BASE = {
    "bias": "--B 5 --replicates 2000 --quiet",
    "falseconc": "--B 5 --replicates 2000 --quiet",
    "coverage": "--B 5 --replicates 16 --resamples 50 --quiet",
    "compare": "--replicates 2000 --quiet",
    "curve": "--resamples 50 --check-replicates 16 --check-resamples 50 --quiet",
}
#: flags of BASE that would do nothing in some cases, and are then left out (an option
#: that would do nothing is refused): (command, flags, is the case such a case?)
UNUSED_BASE = [
    ("bias", ("--replicates",), lambda args: "exact" in args),
    ("curve", ("--check-replicates", "--check-resamples"), lambda args: "--check" not in args),
    ("coverage", ("--resamples",), lambda args: "dkw" in args and "percentile" not in args),
    ("curve", ("--check-resamples",), lambda args: "dkw" in args and "percentile" not in args),
]


def _base(command, args):
    """The BASE flags of ``command`` that do something in the case ``args``."""
    words = shlex.split(BASE[command])
    for cmd, flags, unused in UNUSED_BASE:
        if cmd == command and unused(args):
            for flag in flags:
                if flag in words:
                    del words[words.index(flag):words.index(flag) + 2]
    return words
CLI = []


def C(cls, name, argv, *words):
    KIND[f"cli-{cls}-{name}"] = cls
    CLI.append(pytest.param(argv, words, id=f"cli-{cls}-{name}"))


TS = "--a tang-small --b tang-big"
# bias
C("short", "bias-B-1", "bias --B 1", "--B must be at least 2, got 1")
C("short", "bias-B-0", "bias --B 0", "--B must be at least 2, got 0")
C("range", "bias-B-negative", "bias --B -5", "--B must be at least 2, got -5")
C("type", "bias-B-float", "bias --B 2.5", "argument --B: '2.5' is not an integer")
C("type", "bias-B-word", "bias --B x", "argument --B: 'x' is not an integer")
C("size", "bias-B-100000", "bias --B 100000",
  "--B = 100,000 (12 matrices of 100,000 x 100,000) needs about", "reduce B")
C("short", "bias-replicates-1", "bias --replicates 1", "--replicates must be at least 2, got 1")
C("short", "bias-replicates-0", "bias --replicates 0", "--replicates must be at least 2, got 0")
C("range", "bias-replicates-negative", "bias --replicates -3",
  "--replicates must be at least 2, got -3")
C("type", "bias-replicates-float", "bias --replicates 100.5",
  "argument --replicates: '100.5' is not an integer")
C("type", "bias-replicates-word", "bias --replicates lots", "'lots' is not an integer")
C("size", "bias-replicates-1e15", "bias --replicates 1e15",
  "--replicates = 1,000,000,000,000,000 in chunks of 4,096 makes", "random streams")
C("size", "bias-replicates-1e17", "bias --replicates 1e17",
  "--replicates must be at most 9,007,199,254,740,992")
C("range", "bias-seed-negative", "bias --seed -1", "--seed must be at least 0, got -1")
C("range", "bias-seed-1e30", "bias --seed 1e30",
  "--seed must be at most 9,223,372,036,854,775,807, got 1,000,000,000,000,000,000,000,000,000,000")
C("range", "bias-chunk-0", "bias --chunk-size 0", "--chunk-size must be at least 1, got 0")
C("range", "bias-chunk-1e12", "bias --chunk-size 1e12", "--chunk-size must be at most")
C("range", "bias-workers-0", "bias --workers 0", "--workers must be at least 1, got 0")
C("range", "bias-workers-1e6", "bias --workers 1e6", "--workers must be at most 1,024")
C("unknown", "bias-method", "bias --method foo",
  "argument --method: invalid choice: 'foo'")
C("unknown", "bias-estimator", "bias --estimators U,X",
  "--estimators: unknown estimator 'X'; known: U, V, W")
C("short", "bias-estimators-empty", "bias --estimators ''",
  "--estimators: empty estimator name in ''")
C("unknown", "bias-estimators-twice", "bias --estimators U,U",
  "--estimators: estimator listed twice")
C("short", "bias-estimators-gap", "bias --estimators U,,V", "empty estimator name in 'U,,V'")
C("unknown", "bias-truth", "bias --dist weird", "unknown truth 'weird'; known: normal")
C("range", "coverage-lattice-coarse", "coverage --dist lattice:1/1:normal",
  "step 1/1 is too coarse: 2 lattice points within normal's range [0, 1], at least 3 needed")
C("short", "bias-truth-empty", "bias --dist ''", "truth must be a non-empty string")
C("short", "bias-file-prefix-only", "bias --dist file:", "needs an argument after 'file:'")
C("short", "bias-kde-prefix-only", "bias --dist kde:", "needs an argument after 'kde:'")
C("unknown", "bias-kde-name", "bias --dist kde:nope", "unknown KDE fit 'nope'; committed fits:")
C("file", "bias-kde-missing", "bias --dist kde:{d}/missing.nc", "no KDE fit file")
C("file", "bias-kde-not-netcdf", "bias --dist kde:{d}/fake.nc",
  "cannot read KDE fit '", "fake.nc': not a netCDF file")
C("file", "bias-kde-not-a-fit", "bias --dist kde:{d}/notfit.nc",
  "notfit.nc' is not a KDE fit written by evpsim fit-kde (it has no pmf, x, name, "
  "description)")
C("file", "bias-kde-truncated", "bias --dist kde:{d}/truncated.nc",
  "cannot read KDE fit '", "truncated.nc': truncated (3,000 of ")
if Path("/proc/self").is_dir():  # a folder that takes no new files: not "No such file"
    C("output", "bias-out-proc", "bias --method exact --out /proc/self/x.nc",
      "--out '/proc/self/x.nc': folder '/proc/self' is not writable: it takes no new files")
C("file", "bias-kde-folder", "bias --dist kde:{d}/folder.nc", "is a folder, not a fit file")
C("truth", "bias-sigma-0", "bias --sigma 0", "--sigma must lie in (0, inf), got 0.0")
C("truth", "bias-sigma-negative", "bias --sigma -1", "--sigma must lie in (0, inf), got -1.0")
C("truth", "bias-sigma-flat", "bias --mu 0.5 --sigma 1e12",
  "--sigma = 1e+12 is more than 1000 times the width of [0, 1]")
C("truth", "bias-lo-above-hi", "bias --lo 1 --hi 0", "--lo must be below hi, got --lo 1, --hi 0")
C("truth", "bias-lo-equals-hi", "bias --lo 0.5 --hi 0.5", "--lo must be below hi")
C("truth", "bias-sigma-narrow", "bias --mu 1e10 --sigma 1e-7 --lo 0 --hi 2e10",
  "--sigma = 1e-07 on [0, 2e+10] gives the truncated normal a spread of 1e-07")
C("range", "bias-seed-max", "bias --seed 9223372036854775808",
  "--seed must be at most 9,223,372,036,854,775,807, got 9,223,372,036,854,775,808")
C("range", "bias-seed-exponent", "bias --seed 1e19",
  "--seed must be at most 9,223,372,036,854,775,807, got 10,000,000,000,000,000,000")
C("type", "bias-replicates-googol", "bias --replicates 1e100",
  "argument --replicates: '1e100' is far too large")
C("type", "bias-replicates-nan", "bias --replicates nan",
  "argument --replicates: 'nan' is not an integer")
C("truth", "bias-no-mass", "bias --mu 5 --sigma 0.01",
  "--mu: N(5, 0.01^2) has no usable mass on [0, 1]")
C("scores", "bias-mu-nan", "bias --mu nan", "--mu must be a finite number, got nan")
C("scores", "bias-lo-minus-inf", "bias --lo -inf", "--lo must be a finite number, got -inf")
C("scores", "bias-hi-inf", "bias --hi inf", "--hi must be a finite number, got inf")
C("scores", "bias-lo-1e300", "bias --lo -1e300 --hi 1e300",
  "--lo must lie in [-1e+70, 1e+70], got -1e+300")
C("type", "bias-mu-word", "bias --mu abc", "argument --mu: 'abc' is not a number")
C("usage", "bias-sigma-on-tang", "bias --dist tang-small --sigma 1",
  "--sigma apply only to the 'normal' truth, not to 'tang-small'")
C("usage", "bias-column-on-normal", "bias --column f1",
  "--column applies only to file: truths, not to 'normal'")
C("file", "bias-file-missing", "bias --dist file:{d}/missing.txt",
  "cannot read scores: no such file")
C("file", "bias-file-folder", "bias --dist file:{d}/folder",
  "cannot read scores:", "is a folder, not a file")
C("file", "bias-file-fifo", "bias --dist file:{d}/fifo",
  "is not a regular file (a pipe, socket or device)")
C("file", "bias-file-empty", "bias --dist file:{d}/empty.txt", "empty.txt' holds no scores")
C("file", "bias-file-comments", "bias --dist file:{d}/comments.txt", "holds no scores")
C("file", "bias-file-nonnumeric", "bias --dist file:{d}/nonnum.txt",
  "nonnum.txt' line 2: 'abc' is not a number")
C("scores", "bias-file-nan", "bias --dist file:{d}/nan.txt",
  "nan.txt' line 2: score is 'nan', not a finite number")
C("scores", "bias-file-inf", "bias --dist file:{d}/inf.txt",
  "line 2: score is '-inf', not a finite number")
C("scores", "bias-file-huge", "bias --dist file:{d}/huge.txt",
  "huge.txt' line 2: score is '1e300', beyond +-1e+70")
C("short", "bias-file-one", "bias --dist file:{d}/one.txt",
  "holds 1 score; an empirical truth needs at least 2")
C("file", "bias-file-binary", "bias --dist file:{d}/binary.txt", "not a text file (UTF-8)")
C("file", "bias-csv-no-column", "bias --dist file:{d}/two.csv",
  "--column:", "has 2 columns ['trial', 'f1']: choose one with column")
C("file", "bias-csv-unknown-column", "bias --dist file:{d}/two.csv --column acc",
  "has no column 'acc'; columns: ['trial', 'f1']")
C("file", "bias-csv-index-too-big", "bias --dist file:{d}/two.csv --column 7",
  "has no column '7'")
C("file", "bias-headerless-name", "bias --dist file:{d}/headerless.csv --column f1",
  "has no column 'f1'; it has no header row, so give a 0-based index below 2")
C("file", "bias-csv-ragged", "bias --dist file:{d}/ragged.csv --column f1",
  "line 3: missing column 'f1'")
C("output", "bias-out-folder", "bias --out {d}/folder", "--out", "is a folder, not a file")
C("output", "bias-out-folder-nc", "bias --out {d}/folder.nc", "is a folder, not a file")
C("output", "bias-out-missing-parent", "bias --out missing/r.nc",
  "--out 'missing/r.nc': folder 'missing' does not exist")
C("output", "bias-out-suffix", "bias --out r.txt",
  "--out 'r.txt': expected a file ending in .nc, .nc4, .netcdf")
C("output", "bias-out-empty", "bias --out ''", "--out is empty: name a file")
C("output", "bias-out-fifo", "bias --out {d}/pipe.nc", "exists and is not a regular file")
C("output", "bias-out-unwritable", "bias --out {ro}/r.nc", "is not writable")
C("output", "bias-plot-suffix", "bias --plot r.txt",
  "--plot 'r.txt': expected a file ending in .png, .pdf, .svg")
C("output", "bias-good-out-bad-plot", "bias --out r.nc --plot missing/r.png",
  "--plot 'missing/r.png': folder 'missing' does not exist")
C("output", "bias-good-out-unwritable-plot", "bias --out r.nc --plot {ro}/r.png",
  "--plot", "is not writable")
C("output", "bias-out-plot-same-nc", "bias --out r.nc --plot r.nc",
  "--plot 'r.nc': expected a file ending in .png")
C("output", "bias-out-plot-same-png", "bias --out r.png --plot r.png",
  "--out 'r.png': expected a file ending in .nc")
C("usage", "bias-unknown-flag", "bias --frobnicate", "unrecognized arguments: --frobnicate")
C("unknown", "bias-curve-mode", "bias --curve mode",
  "--curve must be mean (expected best of n), median, or quantile:Q")
C("range", "bias-curve-q", "bias --curve quantile:0", "the quantile must be a number in (0, 1)")
C("budget", "bias-n-max-0", "bias --n-max 0", "--n-max must be at least 1, got 0")
C("budget", "bias-W-beyond", "bias --B 10 --estimators W --n 5,11",
  "--estimators: W does not estimate beyond the B = 10 trials run")
C("usage", "bias-n-and-n-max", "bias --n 1,2 --n-max 5",
  "argument --n-max: not allowed with argument --n")
C("usage", "falseconc-V-median", "falseconc --estimators V --curve median",
  "--estimators: V estimates the mean curve, not the quantile curves")
C("usage", "falseconc-mc-median", "falseconc --curve median --truth-method mc",
  "--truth-method: 'mc' simulates the mean curve")
C("range", "bias-python-replicates-1", "bias --estimators naive --python-replicates 1",
  "--python-replicates must be at least 2")
C("usage", "compare-range-n", "compare --a normal --b tang-big --B 10:12 --n 5",
  "--n and --n-max apply to one budget")
C("usage", "coverage-naive", "coverage --estimators naive",
  "coverage simulates the intervals of L-statistics only, and naive (a python estimator) is not")
C("usage", "curve-V-median", "curve data:reuters-mlp --curve median --estimators V",
  "--estimators: V estimates the mean curve, not the quantile curves")
C("usage", "bias-extra-argument", "bias extra", "unrecognized arguments: extra")
C("usage", "bias-missing-value", "bias --B", "argument --B: expected one argument")
# falseconc
C("short", "falseconc-B-1", "falseconc --B 1", "--B must be at least 2, got 1")
C("unknown", "falseconc-truth-method", "falseconc --truth-method MC",
  "argument --truth-method: invalid choice: 'MC'")
C("short", "falseconc-truth-replicates", "falseconc --truth-method mc --truth-replicates 1",
  "--truth-replicates must be at least 2, got 1")
C("usage", "falseconc-no-level-flag", "falseconc --level 0.5",
  "unrecognized arguments: --level 0.5")
C("short", "falseconc-replicates-0", "falseconc --replicates 0",
  "--replicates must be at least 2, got 0")
C("file", "falseconc-headerless-no-column", "falseconc --dist file:{d}/headerless.csv",
  "has 2 columns: choose one with column")
C("size", "falseconc-B-100000", "falseconc --B 100000",
  "--B: the weights of 3 estimators for B = 100,000 needs about")
C("unknown", "falseconc-kde", "falseconc --dist kde:nope", "unknown KDE fit 'nope'")
C("unknown", "falseconc-estimator", "falseconc --estimators Q", "unknown estimator 'Q'")
C("output", "falseconc-plot-suffix", "falseconc --out r.nc --plot r.svgz",
  "--plot 'r.svgz': expected a file ending in .png, .pdf, .svg")
# compare
C("usage", "compare-missing-b", "compare --a tang-small",
  "the following arguments are required: --b")
C("range", "compare-range-reversed", f"compare {TS} --B 5:3",
  "argument --B: '5:3': a range LO:HI needs LO <= HI")
C("short", "compare-B-1", f"compare {TS} --B 1", "--B must be at least 2, got 1")
C("short", "compare-range-from-1", f"compare {TS} --B 1:3", "--B must be at least 2, got 1")
C("type", "compare-range-word", f"compare {TS} --B x:3", "'x' is not an integer")
C("usage", "compare-every-n-one-B", f"compare {TS} --B 5 --every-n",
  "--every-n applies to a range of budgets")
C("usage", "compare-labels-one", f"compare {TS} --B 5 --labels one",
  "--labels 'one': give two names separated by a comma")
C("usage", "compare-labels-same", f"compare {TS} --B 5 --labels a,a",
  "--labels must be two different non-empty strings, got ('a', 'a')")
C("usage", "compare-labels-empty", f"compare {TS} --B 5 --labels ,b",
  "--labels must be two different non-empty strings, got ('', 'b')")
C("usage", "compare-pool-truths", f"compare {TS} --B 5 --pool",
  "--pool sampling draws from real results")
C("usage", "compare-column-truths", f"compare {TS} --B 5 --column x",
  "--column applies only to file: models")
C("range", "compare-pool-too-small",
  "compare --a file:{d}/good.txt --b file:{d}/good.txt --B 9 --pool",
  "--B = 9 exceeds the pool of 5 scores")
C("file", "compare-csv-no-column", "compare --a file:{d}/two.csv --b tang-big --B 5",
  "has 2 columns ['trial', 'f1']")
C("file", "compare-file-missing", "compare --a file:{d}/missing.txt --b tang-big --B 5",
  "no such file")
C("unknown", "compare-truth", "compare --a tang-small --b weird --B 5", "unknown truth 'weird'")
C("short", "compare-truth-empty", "compare --a '' --b tang-big --B 5",
  "truth must be a non-empty string")
C("unknown", "compare-truth-method", f"compare {TS} --B 5 --truth-method MC",
  "invalid choice: 'MC'")
C("short", "compare-truth-replicates", f"compare {TS} --B 5 --truth-method mc "
  "--truth-replicates 1", "--truth-replicates must be at least 2, got 1")
C("unknown", "compare-estimator", f"compare {TS} --B 5 --estimators U,Z",
  "--estimators: unknown estimator 'Z'")
C("usage", "compare-no-mu-flag", f"compare {TS} --B 5 --mu 0.5",
  "unrecognized arguments: --mu 0.5")
C("size", "compare-B-100000", f"compare {TS} --B 100000",
  "--B: the weights of 3 estimators for B = 100,000 needs about")
C("size", "compare-range-100000", f"compare {TS} --B 2:100000",
  "--B: the weights of 3 estimators for budgets up to B = 100,000 needs about")
C("output", "compare-plot-suffix", f"compare {TS} --B 5 --out r.nc --plot r.txt",
  "--plot 'r.txt': expected a file ending in")
# coverage
C("range", "coverage-level-1.5", "coverage --level 1.5", "--level must lie in (0, 1), got 1.5")
C("range", "coverage-level-0", "coverage --level 0", "--level must lie in (0, 1), got 0.0")
C("scores", "coverage-level-nan", "coverage --level nan", "--level must be a finite number")
C("short", "coverage-resamples-1", "coverage --resamples 1",
  "--resamples must be at least 2, got 1")
C("size", "coverage-resamples-1e12", "coverage --resamples 1e12",
  "--resamples: 1,000,000,000,000 resamples of 3 x 5 estimates on", "reduce resamples")
C("size", "coverage-B-100000", "coverage --B 100000",
  "--B: 50 resamples of 3 x 100,000 estimates", "reduce B")
C("unknown", "coverage-ci-method", "coverage --ci-methods foo",
  "--ci-methods: unknown CI method 'foo'; known: percentile, basic, bca, studentized, "
  "smoothed, gpd-tail, gpd-tail-lattice, gpd-tail-bounded, m-out-of-n, dkw, ks, "
  "ld-equal-tailed, ld-highest-density, order-statistic, gpd-tail-calibrated, gpd-tail-fdb, "
  "betting")
C("unknown", "coverage-ci-twice", "coverage --ci-methods percentile,percentile",
  "--ci-methods: CI method listed twice")
C("range", "coverage-bounds-inside", "coverage --ci-methods dkw --bounds 0.2,0.8",
  "--bounds (0.2, 0.8) must contain the truth's support [0, 1]")
C("range", "coverage-bounds-reversed", "coverage --bounds 1,0",
  "--bounds must be finite with lo < hi, got (1.0, 0.0)")
C("type", "coverage-bounds-words", "coverage --bounds a,b",
  "argument --bounds: 'a,b' is not LO,HI (e.g. 0,1)")
C("scores", "coverage-bounds-inf", "coverage --bounds 0,inf", "--bounds must be finite")
C("unknown", "coverage-estimator", "coverage --estimators X", "unknown estimator 'X'")
C("short", "coverage-replicates-1", "coverage --replicates 1",
  "--replicates must be at least 2, got 1")
C("short", "coverage-B-1", "coverage --B 1", "--B must be at least 2, got 1")
C("short", "coverage-file-one", "coverage --dist file:{d}/one.txt", "holds 1 score")
C("jsonl", "bias-file-jsonl-no-column", "bias --dist file:{d}/good.jsonl",
  "--column: '", "good.jsonl' is JSON Lines: name the score's field")
# curve
C("file", "curve-missing", "curve {d}/missing.txt", "no such file")
C("file", "curve-empty", "curve {d}/empty.txt", "empty.txt")
C("short", "curve-one-score", "curve {d}/one.txt", "one.txt")
C("file", "curve-nonnumeric-only", "curve {d}/comments.txt", "comments.txt")
C("jsonl", "curve-jsonl-no-field", "curve {d}/good.jsonl", "--field")
C("jsonl", "curve-pooled-models", "curve {d}/models.jsonl --field acc",
  "holds 2 models", "--group model")
C("jsonl", "curve-list-no-reduce", "curve {d}/curve.jsonl --field curve", "--reduce",
  "choose max, min or last")
C("jsonl", "curve-bad-duration", "curve {d}/duration.jsonl --field acc --time-field t",
  "'an hour'", "not a duration")
C("usage", "curve-time-axis", "curve {d}/good.txt --x-axis time --plot c.png",
  "--x-axis time needs --time-field")
C("usage", "curve-orderstat-mean", "curve {d}/good.txt --ci-methods order-statistic",
  "--ci-methods: order-statistic bound the quantile curve only, not the mean curve")
C("usage", "curve-select-no-group", "curve {d}/good.txt --select a", "--select needs --group")
# results where the tracking tools keep them (tests/test_trackers.py: what the tools wrote)
C("file", "curve-optuna-missing", "curve optuna:sqlite:///{d}/missing.db",
  "optuna:sqlite:///", "missing.db' does not exist")
C("file", "curve-optuna-not-storage", "curve optuna:{d}/good.txt",
  "good.txt does not open as an Optuna storage")
C("file", "curve-mlflow-missing", "curve mlflow:{d}/nofolder --field metrics.acc",
  "nofolder' does not exist")
C("file", "curve-mlflow-not-store", "curve mlflow:sqlite:///{d}/good.txt --field metrics.acc",
  "good.txt' is not a SQLite database (file is not a database), so not an MLflow tracking "
  "store")
C("file", "curve-empty-folder", "curve {d}/folder",
  "is a folder, not a file, and holds neither Ray Tune trials")
C("usage", "curve-study-no-optuna", "curve {d}/good.txt --study a",
  "--study applies to Optuna storages, and none is given")
C("usage", "curve-experiment-no-mlflow", "curve {d}/good.txt --experiment a",
  "--experiment applies to MLflow tracking stores, and none is given")
C("usage", "curve-pruned", "curve {d}/good.txt --pruned half", "--pruned: invalid choice")
C("usage", "curve-time-reduce-no-time", "curve {d}/good.jsonl --field acc --time-reduce last",
  "--time-reduce needs --time-field FIELD")
C("jsonl", "curve-time-list", "curve {d}/times.jsonl --field acc --time-field t",
  "--time-reduce is needed", "holds a list of 2 times")
C("usage", "curve-band-no-bounds", "curve {d}/good.txt --ci-methods ks --bounds none",
  "--bounds", "band methods (ks) need")
C("unknown", "curve-estimator", "curve {d}/good.txt --estimators Q", "unknown estimator 'Q'")
C("unknown", "curve-shipped", "curve data:nope", "no shipped search 'nope'")
C("range", "curve-level", "curve {d}/good.txt --level 0", "--level must lie in (0, 1)")
C("range", "curve-check-range", "curve {d}/two.csv --column f1 --check --check-replicates 1",
  "--check-replicates must be at least 2")
C("range", "curve-check-bounds", "curve {d}/good.txt --check --bounds 1,2", "--bounds")
C("output", "curve-out-suffix", "curve {d}/good.txt --out {d}/x.txt", "--out")
C("output", "curve-plot-suffix", "curve {d}/good.txt --plot {d}/x.gif", "--plot")
# fit-kde
FK = "fit-kde {d}/good.txt --name x"
C("usage", "fit-missing-name", "fit-kde {d}/good.txt",
  "the following arguments are required: --name")
C("usage", "fit-missing-input", "fit-kde --name x",
  "the following arguments are required: INPUT")
C("type", "fit-name-space", "fit-kde {d}/good.txt --name 'bad name'",
  "--name must be letters, digits, '.', '_' or '-', got 'bad name'")
C("type", "fit-name-slash", "fit-kde {d}/good.txt --name a/b",
  "--name must be letters, digits", "got 'a/b'")
C("range", "fit-bandwidth-negative", f"{FK} --bandwidth -1",
  "argument --bandwidth: '-1' is not a positive bandwidth")
C("range", "fit-bandwidth-0", f"{FK} --bandwidth 0", "'0' is not a positive bandwidth")
C("unknown", "fit-bandwidth-word", f"{FK} --bandwidth foo",
  "'foo' is neither a rule (normal-reference, scott, silverman, cv) nor a number")
C("scores", "fit-bandwidth-1e300", f"{FK} --bandwidth 1e300",
  "--bandwidth 1e+300 stretches the grid")
C("range", "fit-bins-1", f"{FK} --bins 1", "--bins must be at least 2, got 1")
C("type", "fit-bins-float", f"{FK} --bins 2.5", "argument --bins: '2.5' is not an integer")
C("size", "fit-bins-1e8", f"{FK} --bins 100000000",
  "--bins: 100,000,000 bins for 5 scores needs about", "reduce bins")
C("usage", "fit-bounds-tang2020", f"{FK} --bounds 0,1",
  "--bounds apply only to the 'centered' construction")
C("range", "fit-bounds-reversed", f"{FK} --construction centered --bounds 1,0",
  "--bounds must be finite with lo < hi")
C("range", "fit-bounds-inside", f"{FK} --construction centered --bounds 0.65,1",
  "--bounds (0.65, 1) must contain the scores [0.61, 0.72]")
C("unknown", "fit-construction", f"{FK} --construction foo",
  "argument --construction: invalid choice: 'foo'")
C("file", "fit-input-missing", "fit-kde {d}/missing.txt --name x", "no such file")
C("file", "fit-input-folder", "fit-kde {d}/folder --name x", "is a folder, not a file")
C("file", "fit-input-fifo", "fit-kde {d}/fifo --name x", "is not a regular file")
C("file", "fit-input-binary", "fit-kde {d}/binary.txt --name x", "not a text file (UTF-8)")
C("file", "fit-input-empty", "fit-kde {d}/empty.txt --name x", "holds no scores")
C("scores", "fit-input-huge", "fit-kde {d}/huge.txt --name x",
  "line 2: score is '1e300', beyond +-1e+70")
C("short", "fit-input-one", "fit-kde {d}/one.txt --name x",
  "one.txt' holds 1 score; a search needs at least 2")
C("short", "fit-input-equal", "fit-kde {d}/equal.txt --name x",
  "all 3 scores equal 0.5: the bandwidth would be 0")
C("scores", "fit-input-close", "fit-kde {d}/close.txt --name x",
  "narrower than floating-point resolution")
C("scores", "fit-input-tiny", "fit-kde {d}/tiny.txt --name x",
  "too little for a bandwidth (it underflows to 0)")
C("jsonl", "fit-jsonl-no-field", "fit-kde {d}/good.jsonl --name x",
  "--field must name the score's key: ", "good.jsonl' is JSON Lines")
C("jsonl", "fit-jsonl-not-json", "fit-kde {d}/notjson.jsonl --name x --field acc",
  "notjson.jsonl' holds 1 score of 2 records, too few for a search (at least 2); 1 dropped "
  "(1 not JSON; first, line 2: not JSON (Expecting value))")
C("jsonl", "fit-jsonl-missing-field", "fit-kde {d}/nofield.jsonl --name x --field acc",
  "1 field missing; first, line 2: no field 'acc'; keys: loss")
C("jsonl", "fit-jsonl-string-field", "fit-kde {d}/strfield.jsonl --name x --field acc",
  "1 not a number; first, line 2: acc is '0.6', not a finite number")
C("jsonl", "fit-jsonl-bool-field", "fit-kde {d}/boolfield.jsonl --name x --field acc",
  "line 1: acc is True, not a finite number")
C("jsonl", "fit-jsonl-list", "fit-kde {d}/list.jsonl --name x --field acc",
  "list.jsonl' holds no scores: 1 record read, all dropped (1 not a JSON object; first, "
  "line 1: the line is a JSON array, not an object)")
C("jsonl", "fit-jsonl-nan", "fit-kde {d}/nanfield.jsonl --name x --field acc",
  "--failed: ", "nanfield.jsonl': its only trial failed, so no score was observed to count "
  "failed trials at: give --bounds LO,HI (the worst score is then its lower end), or --failed "
  "SCORE")
C("jsonl", "fit-jsonl-nan-dropped",
  "fit-kde {d}/nanfield.jsonl --name x --field acc --failed drop",
  "1 NaN, infinite or null (diverged); first, line 1: acc is nan, not a finite number")
C("jsonl", "fit-jsonl-huge", "fit-kde {d}/hugefield.jsonl --name x --field acc",
  "line 1: acc is 1e+300, beyond +-1e+70")
C("jsonl", "fit-jsonl-bigint", "fit-kde {d}/bigint.jsonl --name x --field acc",
  "line 1: acc is 1000", "beyond +-1e+70")
C("jsonl", "fit-jsonl-blank", "fit-kde {d}/blank.jsonl --name x --field acc",
  "blank.jsonl' holds no scores")
C("jsonl", "fit-jsonl-object", "fit-kde {d}/nested.jsonl --name x --field m",
  "line 1: m is {'acc': 0.5}, not a finite number")
C("jsonl", "fit-jsonl-deep-path", "fit-kde {d}/nested.jsonl --name x --field m.acc.x",
  "--field 'm.acc.x' is in no record of", "nested.jsonl'; the first record's keys: m")
C("jsonl", "fit-jsonl-empty-field", "fit-kde {d}/nested.jsonl --name x --field ''",
  "--field must be a non-empty key, got ''")
C("jsonl", "fit-jsonl-models", "fit-kde {d}/models.jsonl --name x --field acc",
  "--group: ", "models.jsonl' holds 2 models in its 'model' field (a, b)",
  "pass --group model to read them apart")
C("usage", "fit-jsonl-models-unselected",
  "fit-kde {d}/models.jsonl --name x --field acc --group model",
  "'models.jsonl' holds 2 models (a, b): fit-kde fits one; choose it with --select")
C("unknown", "fit-jsonl-select", "fit-kde {d}/models.jsonl --name x --field acc --group model "
  "--select c", "--select 'c' is not a value of 'model'", "its values: a, b")
C("usage", "fit-select-no-group", "fit-kde {d}/models.jsonl --name x --field acc --select a",
  "--select needs --group FIELD, the field naming each record's model (e.g. --group model)")
C("jsonl", "fit-jsonl-curve", "fit-kde {d}/curve.jsonl --name x --field curve",
  "--reduce is needed: ", "curve holds a list of 2 checkpoints")
C("unknown", "fit-reduce-choice", "fit-kde {d}/curve.jsonl --name x --field curve --reduce mean",
  "argument --reduce: invalid choice: 'mean'")
C("usage", "fit-group-plain-text", f"{FK} --group model",
  "--group applies to JSON Lines and CSV files, not to plain text")
C("usage", "fit-column-and-field", f"{FK} --column 0 --field acc",
  "argument --field: not allowed with argument --column")
C("output", "fit-out-suffix", f"{FK} --out x.txt", "--out 'x.txt': expected a file ending in .nc")
C("output", "fit-out-folder", f"{FK} --out {{d}}/folder.nc", "is a folder, not a file")
C("output", "fit-out-missing-parent", f"{FK} --out missing/x.nc",
  "folder 'missing' does not exist")
C("output", "fit-plot-suffix", f"{FK} --plot x.nc", "--plot 'x.nc': expected a file ending in")
C("output", "fit-good-out-bad-plot", f"{FK} --out x.nc --plot missing/x.png",
  "--plot 'missing/x.png': folder 'missing' does not exist")
C("output", "fit-out-unwritable", f"{FK} --out {{ro}}/x.nc", "is not writable")
# list
C("usage", "list-unknown-flag", "list --foo", "unrecognized arguments: --foo")
C("usage", "list-extra-argument", "list extra", "unrecognized arguments: extra")
# reproduce (none of these runs a reproduction)
C("unknown", "reproduce-paper", "reproduce nopaper --out r",
  "argument paper: invalid choice: 'nopaper'")
C("usage", "reproduce-missing-out", "reproduce dodge2019",
  "the following arguments are required: --out")
C("output", "reproduce-out-file", "reproduce dodge2019 --out {d}/good.txt",
  "is a file, not a folder")
C("output", "reproduce-out-missing-parent", "reproduce dodge2019 --out missing/r",
  "--out 'missing/r': folder 'missing' does not exist")
C("output", "reproduce-out-empty", "reproduce dodge2019 --out ''",
  "--out must be a folder name or path, got ''")
C("file", "reproduce-data-missing", "reproduce dodge2019 --out r --data {d}/nodata",
  "--data: search results folder", "does not exist")
C("file", "reproduce-data-file", "reproduce dodge2019 --out r --data {d}/good.txt",
  "is a file, not a folder")
# columns of the same name, in every command that reads a CSV column
C("file", "curve-dup-column", "curve {d}/dup.csv --column acc",
  "--column 'acc' is ambiguous: ", "dup.csv' has 2 columns of that name, at 0-based positions "
  "0, 2; give the position of the one you mean")
C("file", "curve-dup-group", "curve {d}/dupgroup.csv --column acc --group model",
  "--group 'model' is ambiguous", "positions 0, 2")
C("file", "curve-dup-time", "curve {d}/duptime.csv --column acc --time-field t",
  "--time-field 't' is ambiguous", "positions 1, 2")
C("file", "fit-dup-column", "fit-kde {d}/dup.csv --name x --column acc",
  "--column 'acc' is ambiguous")
C("file", "bias-dup-column", "bias --dist file:{d}/dup.csv --column acc",
  "--column 'acc' is ambiguous")
C("file", "falseconc-dup-column", "falseconc --dist file:{d}/dup.csv --column acc",
  "--column 'acc' is ambiguous")
C("file", "coverage-dup-column", "coverage --dist file:{d}/dup.csv --column acc",
  "--column 'acc' is ambiguous")
C("file", "compare-dup-column", "compare --a file:{d}/dup.csv --b tang-big --B 3 --column acc",
  "--column 'acc' is ambiguous")
# truths whose values span less than 1e-70 (subnormal scores)
C("truth", "bias-subnormal", "bias --dist file:{d}/subnormal.txt",
  "support (the truth's distinct values) spans 9.88e-324", "multiply them by 1e300")
C("truth", "bias-subnormal-exact", "bias --dist file:{d}/subnormal.txt --method exact",
  "spans 9.88e-324")
C("truth", "bias-tiny-spread", "bias --dist file:{d}/tiny.txt", "spans 1e-300")
C("truth", "falseconc-subnormal", "falseconc --dist file:{d}/subnormal.txt", "spans 9.88e-324")
C("truth", "coverage-subnormal", "coverage --dist file:{d}/subnormal.txt", "spans 9.88e-324")
C("truth", "compare-subnormal", "compare --a file:{d}/subnormal.txt --b tang-big --B 3",
  "spans 9.88e-324")
# shipped searches: a typo names the closest, and blames the results, not another flag
C("unknown", "fit-shipped-typo", "fit-kde data:reuters-mpl --name x",
  "no shipped search 'reuters-mpl' (did you mean 'reuters-mlp'?); shipped: reuters-mlp")
C("unknown", "curve-shipped-typo", "curve data:reuters-mlp data:reuters-lstn",
  "no shipped search 'reuters-lstn' (did you mean 'reuters-lstm'?)")
C("unknown", "bias-shipped-typo", "bias --dist data:sklearn-mpl",
  "no shipped search 'sklearn-mpl' (did you mean 'sklearn-mlp'?)")
C("unknown", "compare-shipped-typo", "compare --a data:reuters-mlp --b data:reuters-lsmt --B 3",
  "no shipped search 'reuters-lsmt' (did you mean 'reuters-lstm'?)")
C("unknown", "fit-shipped-unlike", "fit-kde data:zzz --name x",
  "no shipped search 'zzz'; shipped:")
C("usage", "curve-shipped-field", "curve data:sklearn-svm --field acc",
  "--field applies to your own files; a shipped search is read with its own field "
  "(data:sklearn-svm: best_validation_accuracy)")
C("usage", "curve-shipped-column", "curve data:reuters-mlp --column 0",
  "--column applies to your own files", "(data:reuters-mlp: one score per line)")
C("usage", "fit-shipped-field", "fit-kde data:sklearn-hgb --name x --field acc",
  "--field applies to your own files")
# runs flagged as diverged: the rule is a choice
C("unknown", "curve-diverged", "curve {d}/opda.jsonl --field lc.top_1 --reduce max "
  "--diverged ignore", "argument --diverged: invalid choice: 'ignore' (choose from 'keep', 'drop')")
C("unknown", "fit-diverged", "fit-kde {d}/opda.jsonl --name x --field lc.top_1 --reduce max "
  "--diverged no", "argument --diverged: invalid choice: 'no'")
C("short", "curve-diverged-dropped", "curve {d}/diverged.jsonl --field lc.top_1 --reduce max "
  "--diverged drop", "holds 1 score of 3 records", "2 flagged as diverged (nan_train_loss)")
# messages in flag spelling, never Python's
C("usage", "curve-band-flag-spelling", "curve {d}/good.txt --ci-methods dkw --bounds none",
  "--bounds: band methods (dkw) need the known range of the scores, --bounds LO,HI")
C("usage", "curve-check-range-flag-spelling", "curve {d}/nonfraction.txt --check",
  "--bounds: the scores span [-3, 2], neither a fraction nor a percentage; give the metric's "
  "range, e.g. --bounds LO,HI")
C("usage", "curve-pooled-flag-spelling", "curve {d}/models.jsonl --field acc",
  "pass --group model to read them apart")
C("usage", "fit-select-flag-spelling", "fit-kde {d}/models.jsonl --name x --field acc "
  "--select b", "(e.g. --group model)")
C("jsonl", "bias-file-models", "bias --dist file:{d}/models.jsonl --column acc",
  "models.jsonl' holds 2 models in its 'model' field (a, b), which are never pooled: give a "
  "file holding one model's scores")
C("truth", "bias-lo-flag-spelling", "bias --lo 2 --hi 1", "got --lo 2, --hi 1")
# sweep: refused before anything is made (no store, in the working folder or elsewhere)
SB = "sweep bias --dist normal,tang-small --B 5,10 --method exact"
SC = "sweep coverage --dist normal --B 5"
C("usage", "sweep-scheduler-empty", f"{SB} --scheduler ''",
  "--scheduler is empty: give the address of a running dask scheduler, e.g. tcp://HOST:8786")
C("usage", "sweep-scheduler-no-port", f"{SB} --scheduler foo",
  "--scheduler 'foo' is not a scheduler address (missing port number", "tcp://HOST:8786")
C("usage", "sweep-scheduler-scheme", f"{SB} --scheduler http://127.0.0.1:8786",
  "(unknown address scheme 'http'")
C("range", "sweep-scheduler-port", f"{SB} --scheduler tcp://127.0.0.1:99999",
  "(port 99999 is not in 1..65535)")
C("usage", "sweep-scheduler-no-host", f"{SB} --scheduler tcp://:8786", "(no host)")
C("usage", "sweep-scheduler-bad-port", f"{SB} --scheduler tcp://host:port",
  "--scheduler 'tcp://host:port' is not a scheduler address")
C("output", "sweep-store-empty", f"{SB} --store ''", "--store is empty: name a folder")
C("output", "sweep-store-file", f"{SB} --store {{d}}/good.txt", "is a file, not a folder")
C("output", "sweep-store-under-file", f"{SB} --store {{d}}/good.txt/cells",
  "its folder", "good.txt' is a file")
C("output", "sweep-store-missing-parent", f"{SB} --store missing/cells",
  "--store 'missing/cells': its folder 'missing' does not exist")
C("output", "sweep-store-not-a-store", f"{SB} --store {{d}}/outdir",
  "exists and is not a sweep's store (no grid.json)")
C("output", "sweep-out-suffix", f"{SB} --out x.txt", "--out 'x.txt': expected a file ending")
C("output", "sweep-plot-suffix", f"{SB} --plot x.nc", "--plot 'x.nc': expected a file ending")
C("file", "sweep-grid-binary", "sweep bias --grid {d}/binary.txt",
  "--grid file", "binary.txt' is not a text file (UTF-8): give a TOML grid file")
C("file", "sweep-grid-not-toml", "sweep bias --grid {d}/good.txt", "is not valid TOML")
C("file", "sweep-grid-missing", "sweep bias --grid {d}/missing.toml",
  "missing.toml': no such file or directory")
C("file", "sweep-grid-folder", "sweep bias --grid {d}/folder", "folder': it is a folder")
C("usage", "sweep-grid-and-flags", "sweep bias --grid {d}/good.txt --seed 1", "drop --seed")
C("unknown", "sweep-battery", "sweep nope --dist normal --B 5", "invalid choice: 'nope'")
C("unknown", "sweep-truth", "sweep bias --dist nope --B 5", "unknown truth 'nope'")
C("short", "sweep-truth-file-one", "sweep bias --dist file:{d}/one.txt --B 5", "holds 1 score")
C("short", "sweep-dist-empty-name", "sweep bias --dist normal,,tang-small --B 5",
  "--dist: values must be non-empty names")
C("usage", "sweep-dist-twice", "sweep bias --dist normal,normal --B 5",
  "'normal' is listed twice")
C("usage", "sweep-dist-for-compare", "sweep compare --dist normal --B 5",
  "the compare battery's axes are a, b, B")
C("short", "sweep-B-1", "sweep bias --dist normal --B 1,5", "--B must be at least 2, got 1")
C("budget", "sweep-B-range-reversed", "sweep bias --dist normal --B 9:3",
  "a range LO:HI[:STEP] needs LO <= HI")
C("type", "sweep-B-word", "sweep bias --dist normal --B x", "'x' is not an integer")
C("unknown", "sweep-estimator", f"{SB} --estimators X", "--estimators: unknown estimator 'X'")
C("short", "sweep-estimators-empty", f"{SB} --estimators ''", "empty estimator name")
C("unknown", "sweep-estimators-twice", f"{SB} --estimators U,U", "estimator listed twice")
C("short", "sweep-replicates-1", "sweep bias --dist normal --B 5 --replicates 1",
  "--replicates must be at least 2, got 1")
C("size", "sweep-replicates-1e17", "sweep bias --dist normal --B 5 --replicates 1e17",
  "--replicates must be at most")
C("size", "sweep-B-100000", "sweep bias --dist normal --B 5,100000", "reduce B")
C("range", "sweep-seed-negative", f"{SB} --seed -1", "--seed must be at least 0, got -1")
C("range", "sweep-workers-0", f"{SB} --workers 0", "--workers must be at least 1, got 0")
C("range", "sweep-workers-1e4", f"{SB} --workers 10000", "--workers must be at most 1,024")
C("range", "sweep-cluster-0", f"{SB} --cluster 0", "--cluster must be at least 1, got 0")
C("usage", "sweep-workers-and-cluster", f"{SB} --workers 2 --cluster 2",
  "argument --cluster: not allowed with argument --workers")
C("usage", "sweep-method-on-coverage", f"{SC} --method exact",
  "--method is not an option of a coverage sweep")
C("usage", "sweep-resamples-on-bias", f"{SB} --resamples 100",
  "--resamples is not an option of a bias sweep")
C("range", "sweep-level", f"{SC} --level 1.5", "--level must lie in (0, 1), got 1.5")
C("scores", "sweep-level-nan", f"{SC} --level nan", "--level must be a finite number")
C("short", "sweep-resamples-1", f"{SC} --resamples 1", "--resamples must be at least 2")
C("size", "sweep-resamples-1e12", f"{SC} --resamples 1e12", "reduce resamples")
C("unknown", "sweep-ci-method", f"{SC} --ci-methods foo", "unknown CI method 'foo'")
C("unknown", "sweep-ci-twice", f"{SC} --ci-methods percentile,percentile",
  "CI method listed twice")
C("range", "sweep-bounds-inside", f"{SC} --ci-methods dkw --bounds 0.2,0.8",
  "--bounds (0.2, 0.8) must contain the truth's support")
C("range", "sweep-bounds-reversed", f"{SC} --bounds 1,0", "--bounds must be finite with lo < hi")
C("size", "sweep-falseconc-B-100000", "sweep falseconc --dist normal --B 100000", "reduce B")
C("unknown", "sweep-falseconc-estimator", "sweep falseconc --dist normal --B 5 --estimators Q",
  "unknown estimator 'Q'")
C("usage", "sweep-compare-pool-truths", "sweep compare --a tang-small --b tang-big --B 5 --pool",
  "--pool sampling draws from real results")
C("range", "sweep-compare-pool-too-small",
  "sweep compare --a file:{d}/good.txt --b data:reuters-mlp --B 3,10 --pool",
  "B = 10 exceeds the pool of 5 scores")
C("size", "sweep-compare-B-100000", "sweep compare --a tang-small --b tang-big --B 100000",
  "reduce")
# budgets: duplicates (a traceback) and huge values (a list that never ends, SIGTERM unheard)
C("budget", "bias-n-twice", "bias --n 3,3", "--n lists n = 3 twice: give each budget once")
C("budget", "falseconc-n-twice", "falseconc --n 2,1,2", "--n lists n = 2 twice")
C("budget", "compare-n-twice", f"compare {TS} --B 5 --n 2,2", "--n lists n = 2 twice")
C("budget", "coverage-n-twice", "coverage --n 2,2", "--n lists n = 2 twice")
C("budget", "bias-n-1e30", "bias --n 1e30",
  "--n: every n must be at most 10,000,000 (larger budgets are refused)")
C("budget", "coverage-n-1e15", "coverage --estimators V --n 1e15",
  "--n: every n must be at most 10,000,000")
C("budget", "compare-n-1e15", f"compare {TS} --B 5 --estimators V --n 1e15",
  "--n: every n must be at most 10,000,000")
C("budget", "bias-n-max-1e30", "bias --n-max 1e30",
  "--n-max must lie in B..100 B = 5..500 (it extends the curves beyond the B = 5 trials "
  "run), got 1,000,000,000,000,000,000,000,000,000,000")
C("budget", "falseconc-n-max-1e6", "falseconc --estimators V --n-max 1e6",
  "--n-max must lie in B..100 B")
C("range", "coverage-curve-q-1", "coverage --curve quantile:1",
  "--curve 'quantile:1': the quantile must be a number in (0, 1)")
C("range", "falseconc-curve-q-negative", "falseconc --curve quantile:-0.5",
  "the quantile must be a number in (0, 1)")
C("range", "curve-curve-q-2", "curve {d}/good.txt --curve quantile:2",
  "--curve 'quantile:2': the quantile must be a number in (0, 1)")
C("estimator", "bias-exact-kde", "bias --method exact --estimators kde,V",
  "--method: 'exact' needs exact moments, and kde has none", "use --method both")
C("estimator", "estimators-kde-coverage", "coverage --estimators kde",
  "coverage simulates the intervals of L-statistics only, and kde (a python estimator) is not")
# degenerate data: scores spanning less than 1e-70 (bias refused them; curve printed SD 0)
C("degenerate", "curve-tiny", "curve {d}/tiny4.txt",
  "the range of the scores spans 2e-300, from 1e-300 to 3e-300, below 1e-70")
C("degenerate", "curve-subnormal", "curve {d}/subnormal4.txt", "spans 1.48e-323")
C("degenerate", "curve-tiny-check", "curve {d}/tiny4.txt --check --bounds 0,1",
  "spans 2e-300")
# the leaderboard: nothing made (no DIR, no DIR/cells) when an argument is refused
LB = "leaderboard --quick --quiet --truths normal --B 5 --out"
C("output", "leaderboard-out-empty", "leaderboard --quick --out ''",
  "--out must be a folder name or path, got ''")
C("output", "leaderboard-out-file", "leaderboard --quick --out {d}/good.txt",
  "is a file, not a folder")
C("output", "leaderboard-out-missing-parent", "leaderboard --quick --out missing/lb",
  "--out 'missing/lb': folder 'missing' does not exist")
C("output", "leaderboard-out-unwritable", "leaderboard --quick --out {ro}/lb", "is not writable")
C("output", "leaderboard-gpd-B", f"{LB} lb --ci-methods gpd-tail",
  "--ci-methods: gpd-tail bounds the mean curve only, at B >= 10, and no cell of this grid is one")
C("output", "leaderboard-gpd-B-existing", f"{LB} {{d}}/outdir --ci-methods gpd-tail",
  "gpd-tail bounds the mean curve only, at B >= 10")
C("output", "leaderboard-samples-1", f"{LB} lb --coverage-replicates 1", "--coverage-replicates must be at least 2, got 1")
C("output", "leaderboard-resamples-1", f"{LB} {{d}}/outdir --resamples 1",
  "--resamples must be at least 2, got 1")
C("usage", "leaderboard-B-1", "leaderboard --quick --out lb --B 1",
  "--B must be at least 2, got 1")
C("unknown", "leaderboard-truth", "leaderboard --quick --out lb --truths nrmal",
  "--truths: unknown truth 'nrmal'")
C("unknown", "leaderboard-curve", "leaderboard --quick --out lb --curves mode",
  "--curves must be mean (expected best of n), median, or quantile:Q")
C("range", "leaderboard-workers-0", f"{LB} lb --workers 0", "--workers must be at least 1, got 0")
# the command's own output folder, not a store the user never named
C("output", "reproduce-out-unwritable", "reproduce dodge2019 --out {ro}/r", "is not writable")
# options that would do nothing where they are given: refused, naming the option and
# what it applies to (they were ignored without a word)
C("usage", "curve-check-replicates-no-check", "curve {d}/good.txt --check-replicates 50",
  "--check-replicates applies to the self-check: add --check, or drop it")
C("usage", "curve-check-bandwidth-no-check", "curve {d}/good.txt --check-bandwidth scott",
  "--check-bandwidth applies to the self-check: add --check")
C("usage", "curve-check-construction-no-check",
  "curve {d}/good.txt --check-construction tang2020", "--check-construction applies to the "
                                                     "self-check")
C("usage", "curve-workers-no-check", "curve {d}/good.txt --workers 2",
  "--workers applies to the self-check: add --check, or drop it")
C("usage", "curve-check-resamples-bands", "curve {d}/good.txt --check --ci-methods dkw "
  "--bounds 0,1 --check-resamples 30", "--check-resamples applies to bootstrap, "
                                       "resampling, order-statistic and calibrated CI methods; "
                                       "--ci-methods dkw resamples nothing")
C("usage", "curve-plot-ci-method-no-plot", "curve {d}/good.txt --plot-ci-method none",
  "--plot-ci-method applies to the figure: add --plot FILE.png (or --html FILE.html), or "
  "drop it")
C("usage", "curve-log-x-no-plot", "curve {d}/good.txt --log-x", "--log-x applies to the figure")
C("usage", "curve-linear-x-no-plot", "curve {d}/good.txt --linear-x",
  "--linear-x applies to the figure")
C("usage", "curve-log-and-linear-x", "curve {d}/good.txt --log-x --linear-x --plot c.png",
  "argument --linear-x: not allowed with argument --log-x")
C("usage", "curve-x-axis-no-plot", "curve {d}/good.txt --x-axis n",
  "--x-axis applies to the figure")
C("usage", "bias-exact-replicates", "bias --method exact --replicates 500",
  "--replicates applies to Monte Carlo: --method exact simulates nothing; use --method mc "
  "or both, or drop it")
C("usage", "bias-exact-workers", "bias --method exact --workers 2",
  "--workers applies to Monte Carlo")
C("usage", "bias-exact-chunk-size", "bias --method exact --chunk-size 64",
  "--chunk-size applies to Monte Carlo")
C("usage", "bias-python-replicates-no-python", "bias --python-replicates 10",
  "--python-replicates applies to estimators written in Python (naive, kde, opda-parametric); "
  "the estimators here (U,V,W) are not: add one to --estimators, or drop it")
C("usage", "bias-bounds-no-python", "bias --estimators V --bounds 0,1",
  "--bounds applies to estimators written in Python", "the estimators here (V) are not")
C("usage", "falseconc-python-replicates-no-python", "falseconc --python-replicates 10",
  "--python-replicates applies to estimators written in Python")
C("usage", "falseconc-truth-replicates-exact", "falseconc --truth-replicates 1000",
  "--truth-replicates applies to a Monte Carlo truth: add --truth-method mc, or drop it")
C("usage", "compare-truth-replicates-exact", f"compare {TS} --B 5 --truth-replicates 1000",
  "--truth-replicates applies to a Monte Carlo truth")
C("usage", "compare-bounds-no-python", f"compare {TS} --B 5 --bounds 0,1",
  "--bounds applies to estimators written in Python")
C("usage", "compare-all-range", f"compare {TS} --B 5:6 --all",
  "--all applies to tables over n: one budget (--B N), or a range with --every-n")
C("usage", "coverage-resamples-bands", "coverage --ci-methods dkw,ld-equal-tailed --resamples 99",
  "--resamples applies to bootstrap, resampling, order-statistic and calibrated CI methods; "
  "--ci-methods "
  "dkw,ld-equal-tailed resamples nothing: add one, or drop it")
C("usage", "coverage-bounds-bootstrap", "coverage --ci-methods percentile --bounds 0,1",
  "--bounds applies to band, resampling, order-statistic and calibrated CI methods (the "
  "score range "
  "they use); "
  "--ci-methods percentile has none")
C("usage", "coverage-estimators-bands", "coverage --ci-methods dkw --estimators V",
  "--estimators applies to bootstrap and resampling CI methods; --ci-methods dkw are bands, "
  "the same for every estimator")
C("usage", "coverage-all-n", "coverage --ci-methods percentile --n 2,5 --all",
  "--all applies to the default budgets; --n prints every budget it lists")
C("usage", "sweep-bias-exact-replicates", "sweep bias --dist normal --B 5 --method exact "
  "--replicates 100", "--replicates applies to Monte Carlo: --method exact simulates nothing")
C("usage", "sweep-bias-bounds-no-python", "sweep bias --dist normal --B 5 --bounds 0,1",
  "--bounds applies to estimators written in Python")
C("usage", "sweep-coverage-resamples-bands", "sweep coverage --dist normal --B 5 "
  "--ci-methods dkw --resamples 10", "--resamples applies to bootstrap, resampling, "
                                     "order-statistic and calibrated CI methods")
C("usage", "reproduce-data-unused", "reproduce intervals --quick --data {d} --out r",
  "--data applies to papers that read search files; reproduce intervals reads none: drop it")
C("usage", "reproduce-workers-unused", "reproduce dodge2019 --workers 2 --out r",
  "--workers applies to papers whose cells run on the sweep engine (intervals); dodge2019 "
  "runs none")
C("usage", "reproduce-store-unused", "reproduce tang2020 --store {d}/cells --out r",
  "--store applies to papers whose cells run on the sweep engine")
C("range", "reproduce-workers-0", "reproduce intervals --quick --workers 0 --out r",
  "--workers must be at least 1, got 0")
C("range", "reproduce-cluster-0", "reproduce intervals --quick --cluster 0 --out r",
  "--cluster must be at least 1, got 0")
C("usage", "reproduce-workers-and-cluster", "reproduce intervals --quick --workers 2 "
  "--cluster 2 --out r", "argument --cluster: not allowed with argument --workers")
C("usage", "reproduce-scheduler-address", "reproduce intervals --quick --scheduler nowhere "
  "--out r", "--scheduler 'nowhere' is not a scheduler address")
C("output", "reproduce-store-file", "reproduce intervals --quick --store {d}/good.txt --out r",
  "--store '", "good.txt' is a file, not a folder")
# the command itself
C("usage", "no-command-unknown-flag", "--foo", "unrecognized arguments: --foo")
C("unknown", "unknown-command", "frobnicate", "argument COMMAND: invalid choice: 'frobnicate'")

# --table and --html: refused before any work, nothing written (--table's file neither)
C("output", "curve-table-unwritable", "curve {d}/good.txt --table {ro}/t.csv",
  "--table '", "is not writable")
C("output", "curve-html-unwritable", "curve {d}/good.txt --html {ro}/r.html",
  "--html '", "is not writable")
C("output", "curve-table-fine-html-unwritable", "curve {d}/good.txt --table t.csv --html "
  "{ro}/r.html", "--html '", "is not writable")
C("output", "curve-table-folder", "curve {d}/good.txt --table {d}/folder",
  "folder' is a folder, not a file")
C("output", "curve-html-folder", "curve {d}/good.txt --html {d}/report.html",
  "report.html' is a folder, not a file")
C("output", "curve-table-suffix", "curve {d}/good.txt --table t.xlsx",
  "--table 't.xlsx': expected a file ending in .csv, .tex, .md, .json")
C("output", "curve-table-no-suffix", "curve {d}/good.txt --table tables",
  "--table 'tables': expected a file ending in .csv, .tex, .md, .json")
C("output", "curve-html-suffix", "curve {d}/good.txt --html r.pdf",
  "--html 'r.pdf': expected a file ending in .html, .htm")
C("output", "curve-table-no-folder", "curve {d}/good.txt --table {d}/nofolder/t.csv",
  "nofolder' does not exist")
C("output", "curve-html-no-folder", "curve {d}/good.txt --html {d}/nofolder/r.html",
  "nofolder' does not exist")
C("output", "curve-html-empty", "curve {d}/good.txt --html ''", "--html is empty: name a file")
C("output", "curve-table-fifo", "curve {d}/good.txt --table {d}/pipe.csv",
  "pipe.csv' exists and is not a regular file")
C("output", "curve-table-twice", "curve {d}/good.txt --table a.csv --table b.csv",
  "argument --table: given twice ('a.csv' and 'b.csv'): give it once")
C("output", "curve-html-twice", "curve {d}/good.txt --html a.html --html a.html",
  "argument --html: given twice ('a.html' and 'a.html'): give it once")
C("output", "curve-out-twice", "curve {d}/good.txt --out a.nc --out b.nc",
  "argument --out: given twice")
C("output", "curve-plot-twice", "curve {d}/good.txt --plot a.png --plot=b.png",
  "argument --plot: given twice ('a.png' and 'b.png')")
C("output", "bias-out-twice", "bias --out a.nc --out a.nc", "argument --out: given twice")
C("output", "fit-out-twice", f"{FK} --out a.nc --out b.nc", "argument --out: given twice")
# names a table cannot print or the figure cannot draw: refused before the work, by flag
C("usage", "curve-metric-tex", "curve {d}/good.txt --metric '$x^$' --plot c.png",
  "--metric '$x^$' cannot be drawn in the figure: matplotlib reads text between two $ signs "
  "as TeX math, which fails here (Expected more, found end of text); write \\$ for a dollar "
  "sign")
C("usage", "curve-labels-tex", "curve {d}/good.txt --labels '$x_{{1$' --html r.html",
  "--labels '$x_{1$' cannot be drawn in the figure", "(Expected end_group, found end of text)")
C("usage", "curve-group-tex", "curve {d}/tex.jsonl --field acc --group m --plot c.png",
  "the model's name read from tex.jsonl '$x^$' cannot be drawn in the figure",
  "name the models with --labels")
C("usage", "curve-metric-newline", "curve {d}/good.txt --metric 'dev\nF1'",
  "--metric 'dev\\nF1' holds a line break or another control character, which would break "
  "the tables' rows")
C("usage", "curve-labels-newline", "curve {d}/good.txt --labels 'a\nb'",
  "--labels 'a\\nb' holds a line break")
C("usage", "curve-group-newline", "curve {d}/newline.jsonl --field acc --group m",
  "model name 'x\\ny' holds a line break or another control character, which would break "
  "the tables' rows (read from newline.jsonl; name the models with --labels LIST)")
# the other flags of curve: refused before the work, in the flag's own words
C("usage", "curve-bounds-one-negative", "curve {d}/good.txt --bounds -1",
  "argument --bounds: '-1' is neither LO,HI (e.g. 0,1) nor none")
C("range", "curve-bounds-negative-outside", "curve {d}/good.txt --bounds -1,-0.5",
  "--bounds", "must contain the scores")
C("usage", "curve-bounds-word", "curve {d}/good.txt --bounds auto",
  "argument --bounds: 'auto' is neither LO,HI (e.g. 0,1) nor none")
C("usage", "curve-betting-no-range", "curve {d}/good.txt --ci-methods betting --bounds none",
  "--bounds: methods that assume only the scores' range (betting) need the known range")
C("usage", "curve-betting-median", "curve {d}/good.txt --ci-methods betting --curve median",
  "betting bound the mean curve only")
C("truth", "coverage-failed-share", "coverage --dist failed:2:data:reuters-mlp --B 10",
  "pi must lie in (0, 1), got 2")
C("truth", "coverage-failed-continuous", "coverage --dist failed:0.1:normal --B 10",
  "normal has no finite support")
C("truth", "coverage-cap-mass", "coverage --dist cap:0.7:data:reuters-mlp --B 10",
  "mass must lie in (0, 0.5), got 0.7")
C("usage", "curve-check-full-no-check", "curve {d}/good.txt --check-full",
  "--check-full applies to the self-check: add --check, or drop it")
C("usage", "curve-python-resamples-no-python", "curve {d}/good.txt --python-resamples 10",
  "--python-resamples applies to estimators that are not L-statistics (naive, kde, "
  "opda-parametric), which run on each resample; the estimators here (V) are L-statistics: "
  "add one to --estimators, or drop it")
C("usage", "curve-python-resamples-quantile", "curve {d}/good.txt --curve median "
  "--python-resamples 10", "the estimators here (quantile) are L-statistics")
C("size", "curve-check-resamples-1e12", "curve {d}/good.txt --check --bounds 0,1 "
  "--check-resamples 1e12", "--check-resamples: 1,000,000,000,000 resamples of 1 x 5 "
                            "estimates", "reduce --check-resamples")
C("size", "curve-check-replicates-1e9", "curve {d}/good.txt --check --check-full --bounds 0,1 "
  "--check-replicates 1e9", "--check-replicates must be at most 1,000,000 (the Monte Carlo "
                            "error of a coverage near 95% is then +-0.0004: more searches "
                            "change no verdict), got 1,000,000,000")
C("range", "curve-quantile-as-typed", "curve {d}/good.txt --curve quantile:1.0000001",
  "--curve 'quantile:1.0000001': the quantile must be a number in (0, 1)")
C("range", "curve-duration-1e308", "curve {d}/hugetime.jsonl --field acc --time-field t",
  "--time-field: model 'hugetime' has a duration of 1e+308 s, beyond 1e+09 s (32 years): "
  "durations are seconds")
C("jsonl", "curve-duration-P", "curve {d}/ptime.jsonl --field acc --time-field t",
  "line 2: t is 'P', not a duration")
C("jsonl", "curve-duration-PT", "curve {d}/pttime.jsonl --field acc --time-field t",
  "line 1: t is 'PT', not a duration")
C("plugin", "curve-import-missing", "curve {d}/good.txt --import nosuchmodule_xyz",
  "--import nosuchmodule_xyz: cannot import nosuchmodule_xyz: no module named "
  "'nosuchmodule_xyz' (in the current folder or on PYTHONPATH)")


@pytest.mark.parametrize("argv, words", CLI)
def test_cli_bad_input(d, ro, tmp_path, monkeypatch, capsys, argv, words):
    if "{ro}" in argv and ro is None:
        pytest.skip("no folder here that this user (root) cannot write to")
    monkeypatch.chdir(tmp_path)
    args = shlex.split(argv.format(d=d, ro=ro))
    command = args[0] if args and not args[0].startswith("-") else None
    known = {"curve", "bias", "falseconc", "compare", "coverage", "fit-kde", "list", "reproduce",
             "sweep", "leaderboard"}
    if command in BASE:
        args = [command, *_base(command, args), *args[1:]]
    watched = [tmp_path, d] + ([ro] if ro is not None and os.geteuid() != 0 else [])
    prefix = f"evpsim {command}: error: " if command in known else "evpsim: error: "
    line = assert_refused(args, capsys, *watched, prefix=prefix)
    for w in words:
        assert w in line, f"{w!r} not in {line!r}"


#: environment variables: (variable, value, command, words); a folder that is not there
#: was ignored (the shipped KDE fits used instead), or blamed on a flag not given
ENV = [
    ("EVPSIM_KDE_DIR", "{d}/nofolder", "bias --B 5 --method exact --dist kde:reuters-mlp",
     "the environment variable EVPSIM_KDE_DIR names '{d}/nofolder', which does not exist"),
    ("EVPSIM_KDE_DIR", "{d}/good.txt", "list", "EVPSIM_KDE_DIR names '{d}/good.txt', which is "
                                               "not a folder"),
    ("EVPSIM_DATA", "{d}/nofolder", "reproduce dodge2019 --out r",
     "the environment variable EVPSIM_DATA: search results folder '{d}/nofolder' does not "
     "exist"),
    ("EVPSIM_QUICK", "yes", "reproduce dodge2019 --out r",
     "the environment variable EVPSIM_QUICK must be 1 (quick sizes) or 0, got 'yes'"),
    ("EVPSIM_QUICK", "true", "leaderboard --out lb", "EVPSIM_QUICK must be 1"),
    # refused before the study's first progress line (the test wants one line on stderr)
    ("EVPSIM_STUDY_STORE", "{d}/good.txt", "reproduce intervals --quick --out r",
     "the environment variable EVPSIM_STUDY_STORE: store '{d}/good.txt' is a file, not a "
     "folder"),
    ("EVPSIM_STUDY_STORE", "{d}/nofolder/cells", "reproduce intervals --quick --out r",
     "EVPSIM_STUDY_STORE: store '{d}/nofolder/cells': its folder '{d}/nofolder' does not "
     "exist"),
    # a damaged KDE fit: one sentence naming the file and what is wrong, no HDF5 text
    ("EVPSIM_KDE_DIR", "{d}/fits", "list", "cannot read KDE fit '{d}/fits/broken.nc': "
                                            "not a netCDF file"),
]


@pytest.mark.parametrize("variable, value, argv, words", ENV,
                         ids=[f"{v}-{c.split()[0]}-{x}" for v, x, c, _ in ENV])
def test_environment_variable_errors_name_the_variable(d, tmp_path, monkeypatch, capsys,
                                                       variable, value, argv, words):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value.format(d=d))
    before = tree(d), tree(tmp_path)
    assert main(shlex.split(argv)) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evpsim {argv.split()[0]}: error: "), err
    assert words.format(d=d) in lines[0], lines[0]
    assert "--data" not in lines[0] and "Traceback" not in err
    assert (tree(d), tree(tmp_path)) == before


def _plugin(site, package, code):
    """Install (as pip would) a plugin ``package`` whose module is ``code``."""
    module = package.replace("-", "_")
    (site / f"{module}.py").write_text(code)
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[evpsim.estimators]\nx = {module}:ESTIMATORS\n")


def test_every_command_survives_a_plugin_that_exits_or_breaks(tmp_path):
    """Three plugins: one calls sys.exit on import, one registers an estimator that
    fails its trial, one an estimator that calls sys.exit on the scores of a battery.
    Commands went silent (exit status 0, no output) at the first; now each broken plugin
    is one line naming it and the commands carry on."""
    _plugin(tmp_path, "evpsim-plugin-exits", "import sys\nsys.exit(0)\n")
    _plugin(tmp_path, "evpsim-plugin-shape", "ESTIMATORS = {'name': 'shape', "
                                             "'python': lambda xs, ns: xs}\n")
    _plugin(tmp_path, "evpsim-plugin-quits", "import sys\nimport numpy as np\n"
                                             "def best(xs, ns):\n"
                                             "    if len(xs) != 5: sys.exit(4)\n"
                                             "    return np.sort(xs)[np.minimum(ns, 5) - 1]\n"
                                             "ESTIMATORS = {'name': 'quits', 'python': best}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    env.pop("EVPSIM_NO_PLUGINS", None)

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "evpsim", *argv], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)

    res = run("list")
    assert res.returncode == 0 and "quits" in res.stdout, res.stderr
    warned = res.stderr.splitlines()
    assert len(warned) == 2, res.stderr
    assert "evpsim plugin evpsim-plugin-exits 0.1 not loaded: evpsim.estimators entry point " \
           "'x': importing evpsim_plugin_exits:ESTIMATORS failed: SystemExit: sys.exit(0) " \
           "called" in warned[0]
    assert "evpsim plugin evpsim-plugin-shape 0.1 not loaded" in warned[1]
    assert "returned shape (5,), expected (3,)" in warned[1]
    res = run("bias", "--B", "3", "--estimators", "quits,V", "--replicates", "64", "--quiet")
    assert res.returncode == 0, res.stderr
    assert "failed on up to 64 of 64 searches" in res.stdout, res.stdout
    res = run("curve", "data:reuters-mlp", "--resamples", "50", "--ci-methods", "percentile")
    assert res.returncode == 0 and "reuters-mlp: 145 scores" in res.stdout, res.stderr


# --- outputs: all or nothing ---------------------------------------------------------------

def test_output_interrupted_while_writing_leaves_nothing(tmp_path):
    """A failure (or SIGTERM, Ctrl-C) while writing the second of two files
    leaves neither, nor any hidden temporary file."""
    def ok(tmp):
        Path(tmp).write_text("done")

    def interrupted(tmp):
        Path(tmp).write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write_all([(tmp_path / "a.nc", ok), (tmp_path / "b.png", interrupted)])
    assert list(tmp_path.iterdir()) == []


def _signalled(tmp_path, argv, marker, sig=signal.SIGTERM, delay=0.0):
    """Run ``evpsim argv`` in ``tmp_path``; once ``marker`` shows on stdout or stderr
    (and ``delay`` seconds more), send ``sig``. Returns the exit status, the seconds
    from the signal to the exit, and stderr."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "evpsim", *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    readers = [threading.Thread(target=lambda f=f: seen.extend(iter(f.readline, "")),
                                daemon=True) for f in (proc.stdout, proc.stderr)]
    for reader in readers:
        reader.start()
    started = time.monotonic()
    try:
        # (text mode reads a progress line's carriage return as a line end)
        while not any(marker in line for line in seen) and time.monotonic() - started < 300:
            assert proc.poll() is None, "".join(seen)
            time.sleep(0.1)
        assert any(marker in line for line in seen), "the run never started"
        time.sleep(delay)
        proc.send_signal(sig)
        sent = time.monotonic()
        status = proc.wait(timeout=60)
        seconds = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for reader in readers:
        reader.join(timeout=10)
    return status, seconds, "".join(seen)


def test_sigterm_leaves_no_output(tmp_path):
    """SIGTERM during a long run: exit status 143, no result, no .part file."""
    # the progress line shows once the Monte Carlo loop has run 1.5 s
    status, _, err = _signalled(tmp_path, ["bias", "--B", "30", "--replicates", "1e9", "--out",
                                           "X.nc", "--plot", "X.png"], "Monte Carlo")
    assert status in (143, -signal.SIGTERM)
    assert "Traceback" not in err
    if status == 143:
        assert "evpsim bias: terminated" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no X.nc, X.png, .part files


#: long runs, each signalled while a kernel runs: (argv, marker, signal, status, words);
#: a kernel call cannot be interrupted, and the command waited for the calls running on
#: other threads (curve --check: more than a minute) before it exited
LONG_RUNS = [
    (["coverage", "--B", "30", "--replicates", "1e6", "--out", "X.nc", "--plot", "X.png"],
     "elapsed", signal.SIGTERM, 143, "evpsim coverage: terminated"),
    (["curve", "data:reuters-mlp", "--check", "--check-replicates", "1e5", "--check-resamples",
      "500", "--out", "X.nc"], "reuters-mlp: 145 scores", signal.SIGTERM, 143,
     "evpsim curve: terminated"),
    (["falseconc", "--B", "30", "--replicates", "1e9", "--out", "X.nc"], "elapsed",
     signal.SIGINT, 130, "evpsim falseconc: interrupted"),
]
EXTRA["signal"] = len(LONG_RUNS)


@pytest.mark.parametrize("argv, marker, sig, expected, words", LONG_RUNS,
                         ids=[f"{a[0]}-{s.name}" for a, _, s, _, _ in LONG_RUNS])
def test_long_runs_end_at_once_on_a_signal(tmp_path, argv, marker, sig, expected, words):
    """SIGTERM or Ctrl-C a second into a long run: the command ends within seconds, says
    so in one line, and leaves no file behind."""
    status, seconds, out = _signalled(tmp_path, argv, marker, sig, delay=1.0)
    assert status == expected, out[-2000:]
    assert seconds < 10, f"{seconds:.1f} s to end after the signal"
    assert words in out and "Traceback" not in out and "Warning" not in out, out[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_library_writer_leaves_no_part_file_on_sigterm(tmp_path):
    """SIGTERM while the library (not the command) writes a file: no hidden .part
    file, and the process still dies of the signal."""
    script = ("import sys, time\n"
              "from pathlib import Path\n"
              "from evpsim.io.results import atomic_write\n"
              "def slow(tmp):\n"
              "    Path(tmp).write_text('half')\n"
              "    print('writing', flush=True)\n"
              "    time.sleep(120)\n"
              "atomic_write(Path(sys.argv[1]) / 'r.nc', slow)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n", proc.stderr.read()
        assert [p.name for p in tmp_path.iterdir()][0].endswith(".part.nc")
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert status == -signal.SIGTERM
    assert "Traceback" not in proc.stderr.read()
    assert list(tmp_path.iterdir()) == []


def _importing(pid):
    """True once the process has loaded numpy: evpsim's import is under way."""
    try:
        return "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("how, delay", [("script", 0.0), ("module", 0.0), ("module", 0.3)])
def test_ctrl_c_while_the_command_starts_prints_one_line(tmp_path, how, delay):
    """Ctrl-C during ``import evpsim`` (about a second; ``delay`` seconds after numpy
    has loaded): exit status 130 and one line, no traceback of the import (numpy's
    initialisation turned an exception raised there into an ImportError); after
    start-up the command's own line."""
    evpsim_script = Path(sys.executable).with_name("evpsim")
    if how == "script" and not evpsim_script.is_file():
        pytest.skip("the evpsim console script is not installed beside this Python")
    argv = [str(evpsim_script)] if how == "script" else [sys.executable, "-m", "evpsim"]
    proc = subprocess.Popen(argv + ["bias", "--B", "30", "--replicates", "1e9", "--quiet"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        started = time.monotonic()
        while not _importing(proc.pid) and time.monotonic() - started < 60:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert status == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.splitlines() in (["evpsim: interrupted"], ["evpsim bias: interrupted"]), err
    assert list(tmp_path.iterdir()) == []


# --- silent wrong results -----------------------------------------------------------------

SILENT = []  # names of the checks below, for the count


def _silent(fn):
    SILENT.append(fn.__name__)
    return fn


@_silent
def test_silent_few_replicates_print_no_check(capsys):
    """100 replicates: standard errors too rough for a |MC - exact| / SE line."""
    assert main(["bias", "--B", "5", "--replicates", "100", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "not checked; 100 replicates are too few" in out
    assert "largest |MC - exact| / SE" not in out


@_silent
def test_silent_two_replicates_print_no_check(capsys):
    assert main(["bias", "--B", "5", "--replicates", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "not checked; 2 replicates are too few" in out
    assert "largest |MC - exact| / SE" not in out


@_silent
def test_silent_point_mass_truth_says_why_unchecked(tmp_path, capsys):
    """Equal scores: every estimate is exact; the check line must not blame
    the replicate count."""
    f = tmp_path / "equal.txt"
    f.write_text("0.5\n0.5\n0.5\n")
    assert main(["bias", "--dist", f"file:{f}", "--B", "3", "--replicates", "2000",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "not checked; every estimate is exact (the truth is a single value)" in out
    assert "replicates are too few" not in out


@_silent
def test_silent_headerless_csv_keeps_every_score(tmp_path, capsys):
    """The first row of a CSV without a header is data, never a header."""
    f = tmp_path / "runs.csv"
    f.write_text("0.5,0.71\n0.6,0.74\n0.55,0.69\n0.52,0.80\n")
    assert evpsim.read_scores(f, column=1).tolist() == [0.71, 0.74, 0.69, 0.80]
    assert evpsim.read_scores(f, column="1").tolist() == [0.71, 0.74, 0.69, 0.80]
    assert main(["bias", "--dist", f"file:{f}", "--column", "1", "--B", "3",
                 "--method", "exact"]) == 0
    assert "empirical distribution of 4 scores (4 distinct)" in capsys.readouterr().out
    one = tmp_path / "one_column.csv"
    one.write_text("0.71\n0.74\n0.69\n")
    assert evpsim.read_scores(one).tolist() == [0.71, 0.74, 0.69]


@_silent
def test_silent_byte_order_mark_is_not_a_bad_first_score(tmp_path):
    f = tmp_path / "excel.csv"
    f.write_bytes("\ufeffacc\n0.71\n0.74\n".encode("utf-8"))
    assert evpsim.read_scores(f, column="acc").tolist() == [0.71, 0.74]
    g = tmp_path / "bom.txt"
    g.write_bytes("\ufeff0.71\n0.74\n".encode("utf-8"))
    assert evpsim.read_scores(g).tolist() == [0.71, 0.74]


@_silent
def test_silent_largest_allowed_scores_give_finite_numbers():
    """Scores up to +-1e70 are accepted, and every number computed from them
    (fourth powers in the standard errors included) is finite."""
    big = [1e70, -1e70, 0.5e70]
    assert np.isfinite(evpsim.estimate(big, "U")).all()
    assert np.isfinite(evpsim.evp_curve(big)["sd"]).all()
    ds = evpsim.bias(evpsim.empirical(big), B=3, replicates=2000)
    for var in ("bias", "variance", "mse", "bias_se", "variance_se", "mse_se", "exact_mse"):
        assert np.isfinite(ds[var]).all(), var
    assert np.isfinite(ds.attrs["max_abs_z"])


@_silent
def test_silent_integral_floats_are_integers_everywhere():
    """One rule for counts: 5.0 is 5, 5.5 is refused (B, replicates, ns)."""
    assert evpsim.estimator_weights("U", 5.0).shape == (5, 5)
    assert evpsim.estimate(S3, "U", ns=[2.0]).tolist() == evpsim.estimate(S3, "U", ns=[2]).tolist()
    assert evpsim.bias(B=5.0, replicates=2000.0, method="mc").attrs["replicates"] == 2000
    for bad in (5.5, True, "5"):
        with pytest.raises(InvalidArgument, match=r"^B must be an integer"):
            evpsim.estimator_weights("U", bad)


@_silent
def test_silent_command_line_integers_are_exact(capsys):
    """The largest seed is accepted: integers are not read through a float
    (which turned 2**63 - 1 into 2**63)."""
    assert main(["bias", "--B", "3", "--replicates", "1000", "--method", "mc", "--quiet",
                 "--seed", "9223372036854775807"]) == 0
    assert "(seed 9223372036854775807)" in capsys.readouterr().out


@_silent
def test_silent_reproduce_failure_keeps_existing_folder_intact(tmp_path, capsys):
    out = tmp_path / "existing"
    out.mkdir()
    (out / "mine.txt").write_text("mine\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "sst5_linear_acc.txt").write_text("0.5\nabc\n")
    for name in evpsim.reproduce.dodge2019.data_files()[1:]:
        (empty / name).write_text("0.5\n0.6\n")
    assert main(["reproduce", "dodge2019", "--out", str(out), "--data", str(empty)]) == 2
    assert "line 2: 'abc' is not a number" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "existing"]


@_silent
def test_silent_diverged_runs_are_counted_and_follow_the_rule(d, capsys):
    """Runs flagged as diverged (opda's nan_train_loss) that still have a learning
    curve: kept by default and said so (one without is a failed trial, counted at the
    worst score), or dropped with --diverged drop and counted."""
    kept, = evpsim.read_searches(d / "opda.jsonl", field="lc.top_1", reduce="max")
    # at 0: the other scores lie in [0, 1] on a lattice (of step 1/100)
    assert kept.scores.tolist() == [0.6, 0.01, 0.0, 0.7]
    assert kept.diverged_kept == {"nan_train_loss": 1}
    assert kept.dropped == {} and kept.failed == {"empty learning curve": 1}
    dropped, = evpsim.read_searches(d / "opda.jsonl", field="lc.top_1", reduce="max",
                                    diverged="drop")
    assert dropped.scores.tolist() == [0.6, 0.7] and dropped.diverged_kept == {}
    assert dropped.dropped == {"flagged as diverged (nan_train_loss)": 2}
    base = ["curve", str(d / "opda.jsonl"), "--field", "lc.top_1", "--reduce", "max",
            "--resamples", "50"]
    assert main(base) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("opda: 4 trials from opda.jsonl (lc.top_1)")
    assert line.endswith("; 1 failed (empty learning curve) counted at the worst score 0 (the "
                         "lower end of [0, 1], the range of scores on a lattice of step 1/100); "
                         "kept 1 diverged run (nan_train_loss), scored by its checkpoints "
                         "before diverging")
    assert main(base + ["--diverged", "drop"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("opda: 2 scores from opda.jsonl")
    assert line.endswith("dropped 2 of 4 records: 2 flagged as diverged (nan_train_loss)")


@_silent
def test_silent_missing_durations_are_reported(tmp_path, capsys):
    """Trials without a duration were left out of the time axis unsaid."""
    f = tmp_path / "timed.csv"
    f.write_text("acc,t\n0.5,60\n0.6,\n0.7,nan\n0.8,120\n")
    s, = evpsim.read_searches(f, column="acc", time_field="t")
    assert s.durations_missing == 2 and np.isnan(s.durations).sum() == 2
    assert main(["curve", str(f), "--column", "acc", "--time-field", "t", "--resamples",
                 "50"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.endswith("; 2 of 4 kept trials have no duration: the expected wall-clock uses "
                         "the mean of the other 2")
    ds = evpsim.curve(s, resamples=50)
    assert ds["mean_duration"].values.tolist() == [90.0]


@_silent
def test_silent_shipped_searches_of_two_formats_read_together(capsys):
    """Each shipped search brings its own field: a text file and a JSON Lines file (read
    here; percentile's intervals, the cheapest, as the intervals are not what is tested)."""
    assert main(["curve", "data:reuters-mlp", "data:sklearn-svm", "--resamples", "50",
                 "--ci-methods", "percentile"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("reuters-mlp: 145 scores from reuters-mlp.txt")
    assert lines[1].startswith("sklearn-svm: 2000 scores from sklearn-svm.jsonl "
                               "(best_validation_accuracy)")
    mlp, svm = evpsim.io.shipped.read_results(["data:reuters-mlp", "data:sklearn-svm"])
    np.testing.assert_array_equal(mlp.scores, evpsim.io.shipped.shipped_scores("reuters-mlp"))
    np.testing.assert_array_equal(svm.scores, evpsim.io.shipped.shipped_scores("sklearn-svm"))


@_silent
def test_silent_a_column_of_a_repeated_name_is_read_by_position(d):
    """The refused name's columns stay reachable by position, each its own."""
    assert evpsim.read_scores(d / "dup.csv", column=0).tolist() == [0.5, 0.6, 0.7]
    assert evpsim.read_scores(d / "dup.csv", column=2).tolist() == [0.9, 0.8, 0.7]
    assert evpsim.read_scores(d / "dup.csv", column=np.int64(2)).tolist() == [0.9, 0.8, 0.7]
    assert evpsim.read_scores(d / "dup.csv", column="lr").tolist() == [0.1, 0.2, 0.3]


@_silent
def test_silent_masked_arrays_without_masked_entries_are_their_data():
    plain = [0.61, 0.64, 0.65, 0.70]
    masked = np.ma.masked_array(plain, mask=False)
    assert evpsim.estimate(masked, "U").tolist() == evpsim.estimate(plain, "U").tolist()
    np.testing.assert_array_equal(evpsim.empirical(masked).theta([1, 2, 3]),
                                  evpsim.empirical(plain).theta([1, 2, 3]))
    with pytest.raises(InvalidArgument, match="masked"):  # a masked entry is refused
        evpsim.estimate(np.ma.masked_array(plain, mask=[0, 1, 0, 0]), "U")


@_silent
def test_silent_numpy_integers_are_integers_everywhere():
    """numpy integers where integers are taken give what Python's give."""
    grid = {"dist": ["normal"], "B": [4]}
    a = evpsim.sweep("bias", grid, options={"method": "mc", "replicates": 2000})
    b = evpsim.sweep("bias", {"dist": ["normal"], "B": np.array([4])}, seed=np.int64(0),
                     options={"method": "mc", "replicates": np.int64(2000)})
    np.testing.assert_array_equal(a["mean"], b["mean"])
    c = evpsim.curve(S3, resamples=np.int64(100), seed=np.uint8(3), labels=np.array(["m"]))
    e = evpsim.curve(S3, resamples=100, seed=3, labels="m")
    np.testing.assert_array_equal(c["lower"], e["lower"])
    assert c.attrs["resamples"] == 100 and type(c.attrs["seed"]) is int
    assert evpsim.estimate(S3, "U", ns=range(1, 3)).tolist() == \
        evpsim.estimate(S3, "U", ns=[1, 2]).tolist()


@_silent
def test_silent_band_range_survives_combining_truths():
    """bounds_lo/hi were attributes, dropped by xr.concat of two truths' results."""
    import xarray as xr

    runs = [evpsim.coverage(t, 5, estimators="V", ci_methods="dkw", replicates=16, bounds=b)
            for t, b in (("tang-small", (0, 1)), ("tang-big", (-1, 2)))]
    both = xr.concat(runs, dim="truth", coords="different", compat="equals",
                     combine_attrs="drop_conflicts")
    assert both["bounds_lo"].values.tolist() == [0.0, -1.0]
    assert both["bounds_hi"].values.tolist() == [1.0, 2.0]
    assert np.isnan(float(evpsim.coverage("normal", 5, estimators="V",
                                          ci_methods="percentile", replicates=16,
                                          resamples=20)["bounds_lo"]))


@_silent
def test_silent_gpd_tail_without_a_tail_says_why(d, capsys):
    """All scores but one tied at the top: no tail to fit. The interval was [-inf, inf]
    (printed [-, -]) with no word; now NaN, and the header says why."""
    ds = evpsim.curve([0.5] + [0.7] * 11, ci_methods="gpd-tail,percentile", resamples=200)
    gpd = ds.sel(ci_method="gpd-tail")
    assert np.isnan(gpd["lower"]).all() and np.isnan(gpd["upper"]).all()
    pct = ds.sel(ci_method="percentile")
    assert np.isfinite(pct["lower"]).all() and np.isfinite(pct["upper"]).all()
    assert main(["curve", str(d / "tiedtop.txt"), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "gpd-tail-bounded: no interval for tiedtop: its 11 best scores are tied, leaving " \
           "no tail to fit; --ci-methods percentile gives one" in out
    assert main(["curve", str(d / "constant12.txt"), "--resamples", "200"]) == 0
    assert "its 12 best scores are tied" in capsys.readouterr().out
    # the other way round (one best score above tied ones) has a tail, and an interval
    ds = evpsim.curve([0.5] * 11 + [0.7], ci_methods="gpd-tail", resamples=200)
    assert np.isfinite(ds["lower"]).all() and np.isfinite(ds["upper"]).all()


@_silent
def test_silent_gpd_tail_without_a_tail_never_covers_in_the_coverage_battery(d, capsys):
    """Samples of 12 from 0.5 and 0.7 (11 in 12): all but about 1 in 10,000 have their 7
    best scores tied, leaving no tail. The battery built an interval for them anyway
    (coverage 0.86, none undefined); now none, counted as not covering and said."""
    truth = f"file:{d / 'tiedtop.txt'}"
    ds = evpsim.coverage(truth, B=12, estimators="V", ci_methods="gpd-tail,percentile",
                         replicates=40, resamples=100, ns=[1, 12])
    gpd, pct = ds.sel(ci_method="gpd-tail"), ds.sel(ci_method="percentile")
    assert (gpd["undefined"] >= 0.9).all() and (pct["undefined"] == 0).all()
    assert (gpd["coverage"] <= 1 - gpd["undefined"]).all()
    parts = gpd["coverage"] + gpd["miss_below"] + gpd["miss_above"] + gpd["undefined"]
    np.testing.assert_allclose(parts, 1.0)
    assert float(gpd["coverage_all"].max()) <= 1 - float(gpd["undefined"].max())
    assert main(["coverage", "--dist", truth, "--B", "12", "--estimators", "V", "--ci-methods",
                 "gpd-tail,percentile", "--replicates", "40", "--resamples", "100", "--n",
                 "1,12", "--quiet"]) == 0
    out = capsys.readouterr().out
    missing = round(float(gpd["undefined"].max()) * 40)
    assert f"gpd-tail: no interval for up to {missing} of 40 samples (their best scores are " \
           f"tied, leaving no tail to fit); counted as not covering" in out, out
    assert "percentile: no interval" not in out
    assert out.count("gpd-tail") >= 3, out  # the tables show the resampling method too


@_silent
def test_silent_idle_workers_are_noted(capsys):
    """--workers beyond the run's batches of chunks: the extra workers only start up,
    which was not said; a note on stderr now (the result is the same: no error)."""
    argv = ["coverage", "--B", "5", "--estimators", "V", "--ci-methods", "percentile",
            "--replicates", "16", "--resamples", "50", "--quiet"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert err == "note: --workers 2: the 16 replicates make 1 batch of chunks, so at most " \
                  "1 worker computes; the others only start up\n", err


@_silent
def test_silent_degenerate_scores_under_gpd_tail_give_finite_intervals():
    """Two values, lattice-valued and 1e+-60 scales: finite intervals containing the
    estimate, scaling with the scores."""
    rng = np.random.default_rng(0)
    base = rng.random(20)
    cases = {"two values": [0.5] * 6 + [0.7] * 6, "lattice": rng.integers(0, 5, 30) / 4,
             "large": base * 1e60, "small": base * 1e-60}
    runs = {}
    for name, xs in cases.items():
        ds = evpsim.curve(xs, ci_methods="gpd-tail", resamples=200)
        lo, hi, est = (ds[v].values.ravel() for v in ("lower", "upper", "estimate"))
        assert np.isfinite(lo).all() and np.isfinite(hi).all(), name
        assert (lo <= est).all() and (est <= hi).all(), name
        runs[name] = lo
    np.testing.assert_allclose(runs["large"] * 1e-120, runs["small"], rtol=1e-9)


@_silent
def test_silent_a_failing_python_estimator_is_counted_in_a_battery():
    """In a battery a failure is counted, never a silent NaN row."""
    evpsim.register_estimator("fails-short", python=_fails_on_short)
    try:
        ds = evpsim.bias(B=3, estimators="fails-short,V", replicates=64, method="mc")
    finally:
        evpsim.unregister_estimator("fails-short")
    assert int(ds["failures"].sel(estimator="fails-short").max()) == 64
    assert np.isfinite(ds["mean"].sel(estimator="V")).all()


# --- --import of a module that cannot be imported ---------------------------------------

#: modules named by --import: (module, its code, the error's words)
IMPORTS = [
    ("raising_mod", "raise RuntimeError('no GPU found')",
     "--import raising_mod: module raising_mod raised RuntimeError: no GPU found"),
    ("exiting_mod", "import sys\nsys.exit(3)",
     "--import exiting_mod: module exiting_mod called sys.exit(3)"),
    ("silent_exit_mod", "import sys\nsys.exit()",
     "--import silent_exit_mod: module silent_exit_mod called sys.exit(None)"),
    ("syntax_mod", "def broken(:\n",
     "--import syntax_mod: module syntax_mod raised SyntaxError: invalid syntax"),
    ("missing_dep_mod", "import nosuchpackage_xyz",
     "--import missing_dep_mod: cannot import missing_dep_mod: no module named "
     "'nosuchpackage_xyz'"),
]
EXTRA["plugin"] += len(IMPORTS)


@pytest.mark.parametrize("module, code, words", IMPORTS, ids=[m for m, _, _ in IMPORTS])
def test_import_of_a_module_that_fails_is_one_line(tmp_path, monkeypatch, capsys, module,
                                                   code, words):
    """A module of --import that raises, exits or cannot be found: exit status 2, one
    line naming the module and what it did, nothing written (no bytecode either)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / f"{module}.py").write_text(code)
    monkeypatch.syspath_prepend(str(mods))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = tree(tmp_path)
    status = main(["curve", "data:reuters-mlp", "--import", module, "--out", "r.nc"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.splitlines() == [f"evpsim curve: error: {words}"] or (
        len(err.splitlines()) == 1 and words in err), err
    assert tree(tmp_path) == before
    sys.modules.pop(module, None)


# --- outputs: both or neither, through the renames ------------------------------------------

def test_a_rename_failing_takes_back_the_files_renamed_before(tmp_path, monkeypatch):
    """The second of two renames fails (its target became a folder meanwhile): the
    first file, renamed already, is taken back and the file it replaced restored."""
    (tmp_path / "t.csv").write_text("the old tables\n")

    def table(tmp):
        Path(tmp).write_text("new tables\n")

    def report(tmp):  # the target turns into a folder while the report is written
        Path(tmp).write_text("<html>")
        (tmp_path / "r.html").mkdir()

    with pytest.raises(IsADirectoryError, match="r.html"):
        atomic_write_all([(tmp_path / "t.csv", table), (tmp_path / "r.html", report)])
    assert (tmp_path / "t.csv").read_text() == "the old tables\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "t.csv"]  # no .part


def test_ctrl_c_between_two_renames_leaves_neither(tmp_path, monkeypatch):
    """Ctrl-C after the first of two renames: neither file, nothing hidden left."""
    import evpsim.io.results as results

    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(src, dst)

    monkeypatch.setattr(results.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_all([(tmp_path / "t.csv", lambda tmp: Path(tmp).write_text("t")),
                          (tmp_path / "r.html", lambda tmp: Path(tmp).write_text("r"))])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("failure", ["folder", "ctrl-c"])
def test_curve_writes_table_and_html_both_or_neither(tmp_path, monkeypatch, capsys, failure):
    """--html failing as it is renamed into place (a folder appeared there), or Ctrl-C
    while it is written: --table's file, written first, is not left behind."""
    import evpsim.report.html as html

    real = html.html_report

    def report(*args, **kwargs):
        if failure == "ctrl-c":
            raise KeyboardInterrupt
        (tmp_path / "r.html").mkdir()
        return real(*args, **kwargs)

    monkeypatch.setattr(html, "html_report", report)
    monkeypatch.chdir(tmp_path)
    status = main(["curve", "data:reuters-mlp", "--resamples", "50", "--quiet", "--table",
                   "t.csv", "--html", "r.html"])
    out, err = capsys.readouterr()
    assert (status, err.splitlines()) == ((2, ["evpsim curve: error: 'r.html': it is a "
                                               "folder"])
                                          if failure == "folder" else
                                          (130, ["evpsim curve: interrupted"])), err
    assert "wrote" not in out and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == (["r.html"] if failure == "folder"
                                                          else [])


EXTRA["output"] += 4


# --- the silent wrong results of the report -------------------------------------------------

def _printed_table(out, first):
    """The rows (lists of cells) of the printed table whose header starts with ``first``."""
    lines = out.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.split()[:1] == [first])
    rows = []
    for line in lines[start + 1:]:
        if not line.strip() or not line.split()[0].isdigit():
            break
        rows.append(re.findall(r"\[[^]]*\]|\S+", line))
    return rows


@_silent
@pytest.mark.parametrize("scores", ["0.5 + k 1e-12", "1e15 + k"])
def test_silent_close_scores_print_apart(tmp_path, capsys, scores):
    """Scores 0.5 + k 1e-12, and integers near 1e15: every estimate and both ends of
    each interval printed as one number (0.5000, 1.000e+15); now each n's estimate
    differs from the next's as printed, the ends of each interval differ, and so do the
    ends of the range read."""
    k = np.arange(30)
    xs = 0.5 + k * 1e-12 if scores.startswith("0.5") else 1e15 + k
    path = tmp_path / "s.txt"
    np.savetxt(path, xs, fmt="%.17g")
    assert main(["curve", str(path), "--resamples", "200", "--quiet",
                 "--ci-methods", "percentile"]) == 0
    out = capsys.readouterr().out
    lo, hi = re.search(r"in \[(\S+), (\S+)\]", out).groups()
    assert lo != hi and abs(float(hi) - xs.max()) < 0.1 * (xs.max() - xs.min()), (lo, hi)
    rows = _printed_table(out, "n")
    estimates = [float(r[1]) for r in rows]
    assert estimates == sorted(estimates) and estimates[0] < estimates[-1], estimates
    for row in rows:
        low, high = row[3].strip("[]").split(", ")
        assert float(low) < float(high), row


@_silent
def test_silent_a_quantile_near_1_is_the_one_asked_for(capsys):
    """quantile:0.999999999 was read back as quantile:1 and refused; it runs, and says
    which quantile it is."""
    assert main(["curve", "data:reuters-mlp", "--curve", "quantile:0.999999999",
                 "--resamples", "50", "--quiet"]) == 0
    assert "0.999999999-quantile of the best score after n trials" in capsys.readouterr().out


@_silent
def test_silent_negative_bounds_parse(capsys):
    """--bounds -1,0 was 'expected one argument' (only --bounds=-1,0 parsed)."""
    assert main(["curve", "data:reuters-mlp", "--bounds", "-1,1", "--resamples", "50",
                 "--quiet"]) == 0
    assert "no score is below -1 (from --bounds)" in capsys.readouterr().out


@_silent
def test_silent_the_self_check_blocks_of_table_are_titled_apart(tmp_path, capsys):
    """--table's CSV titled the self-check's coverage block as the curve's block."""
    path = tmp_path / "t.csv"
    assert main(["curve", "data:reuters-mlp", "--resamples", "50", "--quiet", "--check",
                 "--check-replicates", "16", "--check-resamples", "50", "--ci-methods",
                 "percentile", "--table", str(path)]) == 0
    text = path.read_text()
    titles = [block.splitlines()[0] for block in text.split("\n\n")]
    assert titles == ["reuters-mlp (B = 145)", "each KDE beside the scores it was fitted to",
                      "self-check of reuters-mlp (B = 145)"], titles


@_silent
def test_silent_an_estimator_that_raises_on_the_scores_says_why(capsys):
    """An estimator raising on a model's scores gave a column of - and no reason."""
    def picky(xs, ns):
        if len(xs) == 145:
            raise ValueError("no convergence on these scores")
        return np.sort(xs)[np.minimum(ns, len(xs)) - 1]

    evpsim.register_estimator("picky", python=picky)
    try:
        assert main(["curve", "data:reuters-mlp", "data:reuters-lstm", "--estimators",
                     "V,picky", "--resamples", "20", "--quiet"]) == 0
    finally:
        evpsim.unregister_estimator("picky")
    out = capsys.readouterr().out
    line = "  picky gave no estimate on reuters-mlp's scores: it raised ValueError: no " \
           "convergence on these scores"
    assert out.splitlines().count(line) == 1, out
    assert "picky gave no estimate on reuters-lstm" not in out


@_silent
def test_silent_valid_tex_is_drawn(tmp_path, capsys):
    """TeX that matplotlib can draw ($F_1$) is drawn, not refused."""
    assert main(["curve", "data:reuters-mlp", "--metric", "dev $F_1$", "--resamples", "20",
                 "--quiet", "--plot", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 0


@_silent
def test_silent_a_slow_estimator_says_so_under_quiet(monkeypatch, capsys):
    """opda-parametric ran 8 minutes without a word under --quiet: an estimator run on
    every resample for long says what runs and about how long, --quiet or not (the
    threshold lowered here, naive being fast)."""
    import evpsim.cli.curve as curve_cli

    monkeypatch.setattr(curve_cli, "SLOW", 0.0)
    assert main(["curve", "data:reuters-mlp", "--estimators", "V,naive", "--resamples", "30",
                 "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        "note: naive runs on the scores and on each of 30 resamples of every model: about "), err
    assert err[0].endswith("; --python-resamples sets the resamples")


@_silent
def test_silent_self_check_workers_beyond_its_batches_are_noted(capsys):
    """--workers beyond the self-check's batches of searches: a note, as the batteries'."""
    assert main(["curve", "data:reuters-mlp", "--resamples", "20", "--quiet", "--check",
                 "--ci-methods", "percentile", "--check-replicates", "16",
                 "--check-resamples", "20", "--workers", "3"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: --workers 3: the 16 searches of the self-check make 1 batch "
                          "of chunks, so at most 1 worker computes"), err


@_silent
def test_silent_sweep_workers_are_capped_at_the_cells(tmp_path, capsys):
    """--workers 24 started 24 processes for a handful of cells without a word: as many
    as the cells, and a note."""
    assert main(["sweep", "bias", "--dist", "normal", "--B", "5,6", "--method", "exact",
                 "--workers", "24", "--quiet", "--store", str(tmp_path / "cells")]) == 0
    out, err = capsys.readouterr()
    assert err == "note: --workers 24: 2 cells to compute, so 2 worker processes\n"
    assert "local, 2 workers" in out


def test_a_plugin_raising_keyboardinterrupt_is_a_broken_plugin(tmp_path):
    """A plugin whose import raises KeyboardInterrupt (no Ctrl-C: the command holds
    those while it starts): one warning naming it, the command runs, no traceback."""
    _plugin(tmp_path, "evpsim-plugin-interrupts", "raise KeyboardInterrupt\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    env.pop("EVPSIM_NO_PLUGINS", None)
    res = subprocess.run([sys.executable, "-m", "evpsim", "list"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.splitlines() == [
        "evpsim.plugins:0: PluginWarning: evpsim plugin evpsim-plugin-interrupts 0.1 not "
        "loaded: evpsim.estimators entry point 'x': importing "
        "evpsim_plugin_interrupts:ESTIMATORS failed: KeyboardInterrupt"], res.stderr


EXTRA["plugin"] += 1


# --- the battery's size and classes -------------------------------------------------------

def _classes(params):
    return Counter(KIND[p.id] for p in params)


def test_battery_size():
    counts = _classes(API) + _classes(CLI) + Counter({"silent": len(SILENT), "env": len(ENV)}) \
        + EXTRA
    assert set(counts) == set(CLASSES), set(CLASSES) ^ set(counts)
    assert sum(counts.values()) >= 150
    ids = [p.id for p in API + CLI]
    assert len(ids) == len(set(ids))


if __name__ == "__main__":  # python tests/test_bad_input.py: the classes and their counts
    counts = _classes(API) + _classes(CLI) + Counter({"silent": len(SILENT), "env": len(ENV)}) \
        + EXTRA
    for key, text in CLASSES.items():
        print(f"{counts[key]:4d}  {key:9s} {text}")
    print(f"{sum(counts.values()):4d}  total ({len(API) + 2} API, {len(CLI)} CLI, "
          f"{len(SILENT)} silent-result checks, 1 interrupted write, 2 SIGTERM runs, "
          f"{len(LONG_RUNS)} long runs signalled, "
          f"1 Ctrl-C at start-up)")
