"""The calibrated kind: gpd-tail's interval at a level calibrated through its fitted model.

``gpd-tail-calibrated`` (prepivoting: Beran 1987; Hall 1986) and
``gpd-tail-fdb`` (the fast double bootstrap: Davidson & MacKinnon 2007)
draw samples of B from the semiparametric model gpd-tail fits to the
data, whose theta_n is exact, run gpd-tail on each, and find, for each
end and budget, the one-sided nominal level at which its ends miss that
theta_n as often as the level allows; the data's interval is gpd-tail's
(the same pivots) at those levels (:mod:`evpsim._kernels.calibrated`).
The calibration runs at up to :data:`CALIBRATION_BUDGETS` budgets spread
evenly in log n (all of them when there are no more), its levels
interpolated in log n between them. This module builds what the kernels
read (:func:`calibration_tables`), runs them on one sample, the
calibration's samples shared over the threads (:func:`sample_intervals`),
and holds the kind (:data:`CALIBRATED`).
"""

from __future__ import annotations

import numpy as np

from .._kernels import calibrated as _C
from .._kernels import resampling as _R
from .._kernels.rng import rng_init
from ..engine.montecarlo import Job
from ..engine.streams import coverage_streams
from ..engine.threads import map_threads, ranges
from .resampling import ResamplingKind, no_tail, tables
from .resampling import memory as resampling_memory

__all__ = ["calibration_budgets", "calibration_tables", "sample_intervals", "CALIBRATED"]

#: the most budgets the levels are calibrated at
CALIBRATION_BUDGETS = 24


def calibration_budgets(ns):
    """Indices of the budgets ``ns`` the levels are calibrated at, and the map of every
    budget to them: ``(idx, lo, hi, w)``, budget a's level ``(1 - w[a]) p[lo[a]] + w[a]
    p[hi[a]]`` of the levels p at ``ns[idx]``, linear in log n.

    Up to :data:`CALIBRATION_BUDGETS` budgets, evenly spread in log n from the
    smallest to the largest (every budget when there are no more; fewer where
    the small budgets nearest the marks coincide).

    Examples
    --------
    >>> idx, lo, hi, w = calibration_budgets(np.arange(1, 1001))
    >>> len(idx), int(idx[0]), int(idx[-1])
    (23, 0, 999)
    >>> idx, lo, hi, w = calibration_budgets([1, 5, 10])
    >>> idx.tolist(), w.tolist()
    ([0, 1, 2], [0.0, 0.0, 0.0])
    """
    ns = np.asarray(ns, dtype=np.int64)
    order = np.argsort(ns, kind="stable")
    logs = np.log(ns[order].astype(float))
    if ns.size <= CALIBRATION_BUDGETS:
        chosen = order
    else:
        marks = np.linspace(logs[0], logs[-1], CALIBRATION_BUDGETS)
        chosen = order[np.unique(np.searchsorted(logs, marks - 1e-9).clip(0, ns.size - 1))]
    clogs = np.log(ns[chosen].astype(float))
    at = np.interp(np.log(ns.astype(float)), clogs, np.arange(chosen.size, dtype=float))
    lo = np.floor(at).astype(np.int64)
    hi = np.minimum(lo + 1, chosen.size - 1)
    return chosen.astype(np.int64), lo, hi, at - lo


def calibration_tables(ests, B, ns):
    """``(tabs, ctabs, lo, hi, w)``: gpd-tail's tables at the budgets ``ns``, and at the
    calibration's budgets with the map between them (:func:`calibration_budgets`)."""
    idx, lo, hi, w = calibration_budgets(ns)
    codes = [_R.GPD_TAIL]
    return (tables(ests, B, ns, codes), tables(ests, B, np.asarray(ns)[idx], codes), lo, hi,
            w)


def _sizes(code):
    """Calibration samples and pivots on each, of the method ``code``."""
    return _C.SAMPLES[code], _C.INNER[code]


def memory(E, B, N, codes, resamples=0, copies=0):
    """Bytes of the tables of E estimators at N budgets, and of the pivots and
    calibration arrays of ``copies`` samples in flight."""
    Nc = min(N, CALIBRATION_BUDGETS)
    cal = max((2 * _sizes(c)[0] + _sizes(c)[1]) for c in codes) * 8 * E * Nc if codes else 0
    return (resampling_memory(E, B, N, [_R.GPD_TAIL], resamples, copies)
            + resampling_memory(E, B, Nc, [_R.GPD_TAIL]) + copies * cal)


def sample_intervals(xs, prepared, codes, resamples, level, seed, stream, bounds=None):
    """Intervals (M, K, 2) of the calibrated methods ``codes`` for the ascending sample
    ``xs``, from the generator of stream ``(seed, stream)``: gpd-tail's pivots (its
    blocks shared over the threads) and the calibration's samples (shared likewise), at
    every budget of ``prepared`` (:func:`calibration_tables`); NaN where gpd-tail has no
    tail (:func:`~evpsim.intervals.resampling.no_tail`)."""
    tabs, ctabs, ilo, ihi, iw = prepared
    lo, hi = (-np.inf, np.inf) if bounds is None else bounds
    st = rng_init(seed, stream)
    K, Kc = tabs.wt.shape[1], ctabs.wt.shape[1]
    out = np.full((len(codes), K, 2), np.nan)
    if _R.tail_tied(xs):
        return out
    gseed = _R.method_seed(st, _R.GPD_TAIL)
    params, ref = _R.setup(_R.GPD_TAIL, xs, tabs, gseed, 0.0, 0.0)  # no lattice: step 0
    piv = np.empty((K, resamples))
    map_threads(lambda span: _R.pivots(_R.GPD_TAIL, gseed, xs, tabs, params, ref, *span, piv),
                ranges(_R.blocks(_R.GPD_TAIL, tabs, resamples)))
    theta = np.empty(ctabs.ns.size)
    _C.model_theta(xs, params, ctabs, theta)
    for g, code in enumerate(codes):
        samples, inner = _sizes(code)
        tvals, draws = np.empty((samples, Kc)), np.empty((samples, Kc))
        cseed = _R.method_seed(st, _C.STREAM_CODES[code])
        map_threads(lambda span, c=code, s=cseed, r=inner, t=tvals, d=draws:
                    _C.calibration_block(c, s, xs, params, theta, ctabs, r, *span, t, d),
                    ranges(samples))
        levels = np.empty((K, 2))
        _C.calibrated_levels(code, tvals, draws, level, ilo, ihi, iw, K // ilo.size, levels)
        _C.finish_calibrated(xs, tabs, ref, piv, levels, lo, hi, out[g])
    return out


class CalibratedKind(ResamplingKind):
    """gpd-tail at calibrated levels: as the resampling kind, the mean curve only, through
    an L-statistic's weights, slow, so run only when named."""

    name = "calibrated"

    def builtins(self):
        """``gpd-tail-calibrated`` and ``gpd-tail-fdb``."""
        fields = ("name", "code", "description", "source", "assumes", "minimum_B")
        assumes = ("a generalized Pareto tail fitted to the best scores, and gpd-tail's "
                   "coverage under that fit being its coverage under the truth")
        return [dict(zip(fields, row)) for row in [
            ("gpd-tail-calibrated", _C.PREPIVOT,
             f"gpd-tail at each end's level calibrated by prepivoting: its coverage measured "
             f"on {_C.SAMPLES[_C.PREPIVOT]} samples of its fitted model ({_C.INNER[_C.PREPIVOT]} "
             f"pivots each)", "Beran 1987; Hall 1986", assumes, 10),
            ("gpd-tail-fdb", _C.FAST_DOUBLE,
             f"gpd-tail at each end's level calibrated by the fast double bootstrap: "
             f"{_C.SAMPLES[_C.FAST_DOUBLE]:,} samples of its fitted model, one pivot each",
             "Davidson & MacKinnon 2007", assumes, 10)]]

    def memory(self, methods, setup, copies, width):
        """The tables of the L-statistics, the pivots and the calibration's arrays of
        ``copies`` samples."""
        return memory(len(setup.lstatistics), setup.B, setup.ns.size, [m.code for m in methods],
                      setup.resamples, copies)

    def prepare(self, methods, setup):
        """:func:`calibration_tables` of the L-statistics (None without them)."""
        lstats = [setup.ests[k] for k in setup.lstatistics]
        return calibration_tables(lstats, setup.B, setup.ns) if lstats else None

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The L-statistics' intervals on one sample (cut to its bounds, if known)."""
        if prepared is None:
            return
        ivs = sample_intervals(sample.xs, prepared, [m.code for m in methods], setup.resamples,
                               setup.level, sample.seed, sample.stream, sample.bounds)
        limits.put(setup.lstatistics, cols, ivs)

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job for every method, intervals cut to ``bounds``."""
        codes = np.array([m.code for m in methods], dtype=np.int64)
        sizes = np.array([_sizes(c) for c in codes], dtype=np.int64).reshape(-1, 2)
        return [(Job(_C.coverage_calibrated_chunks,
                     (setup.B, sampler, *prepared, theta, codes,
                      np.ascontiguousarray(sizes[:, 0]), np.ascontiguousarray(sizes[:, 1]),
                      setup.resamples, setup.level, *bounds), coverage_streams()), methods)]

    def no_interval(self, method, xs):
        """gpd-tail's missing tail (:func:`~evpsim.intervals.resampling.no_tail`)."""
        return no_tail(xs)

    def notes(self, method, B, target, ns, level):
        """How the levels were calibrated, and their caps.

        Examples
        --------
        >>> from evpsim.intervals.family import interval_notes
        >>> from evpsim.estimators.targets import MEAN
        >>> note = interval_notes("gpd-tail-fdb", 50, MEAN, np.arange(1, 51), 0.95)
        >>> import textwrap
        >>> print(textwrap.fill(note, 80))
        each end's level calibrated on 1,000 samples of the fitted model at 19 budgets
        (interpolated in log n between them), its tail probability kept within 0.25%-5%
        (gpd-tail's: 2.5%)
        """
        a = 0.5 * (1.0 - level)
        return (f"each end's level calibrated on {_sizes(method.code)[0]:,} samples of the "
                f"fitted model at {calibration_budgets(ns)[0].size} budgets (interpolated in "
                f"log n between them), its tail probability kept within "
                f"{_C.TAIL_LOW * a:.2%}-{_C.TAIL_HIGH * a:.0%} (gpd-tail's: {a:.1%})")


#: the calibrated kind
CALIBRATED = CalibratedKind()
