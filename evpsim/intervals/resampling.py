"""The resampling kind: CI methods that draw their own resamples, for the mean curve.

``studentized`` (the bootstrap-t), ``smoothed`` (an adaptive kernel
mixture's bootstrap), ``gpd-tail`` (a generalized Pareto tail fitted to
the top scores), ``gpd-tail-lattice`` (the same for scores on a lattice)
and ``m-out-of-n`` (Bickel & Sakov's m) run in
:mod:`evpsim._kernels.resampling`: near n = B, where every ordinary
bootstrap estimate is at most the sample maximum, their upper limits can
reach beyond it, resting on what each assumes about the tail. This module
builds what the kernels read about the estimators and budgets
(:func:`tables`), runs them on one sample, its resamples shared over the
threads (:func:`sample_intervals`), and holds the kind (:data:`RESAMPLING`).
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from .._kernels import bounded as _BD
from .._kernels import resampling as _R
from .._kernels.rng import rng_init
from .._kernels.subsample import sizes
from ..engine.montecarlo import Job
from ..engine.streams import coverage_streams
from ..engine.threads import map_threads, ranges
from ..estimators.weights import weights_v
from .bands import ld_band
from .kind import Kind

__all__ = ["tables", "sample_intervals", "memory", "no_tail", "RESAMPLING"]


def memory(E, B, N, codes, resamples=0, copies=0):
    """Bytes of the :func:`tables` of E estimators at N budgets for the methods
    ``codes``, and of the pivots of ``copies`` samples in flight."""
    J = sizes(B).size if _R.M_OUT_OF_N in codes else 1
    tabs = 8 * (E * N + N) * B + (8 * E * N * int(sizes(B).sum()) if J > 1 else 0)
    return tabs + copies * 8 * E * N * resamples * J


def tables(ests, B, ns, codes):
    """The kernels' :class:`~evpsim._kernels.resampling.Tables`.

    Parameters
    ----------
    ests : list of Estimator
        L-statistic estimators of the mean curve.
    B : int
        Sample size.
    ns : array_like of int
        The budgets (columns: every estimator at every budget).
    codes : sequence of int
        The methods to run (the m-out-of-n tables are built only for it).
    """
    ns = np.asarray(ns, dtype=np.int64)
    check.check_memory(memory(len(ests), B, ns.size, codes),
                       f"the tables of {len(ests)} estimators at {ns.size:,} budgets, B = {B:,}",
                       "B")
    wt = np.ascontiguousarray(np.concatenate([e.weight_rows(B, ns) for e in ests]).T)
    vwt = np.ascontiguousarray(weights_v(B, ns).T)
    col = np.tile(np.arange(ns.size, dtype=np.int64), len(ests))
    if _R.M_OUT_OF_N in codes:
        ms = sizes(B)
        mn = np.maximum(1.0, ns[None, :] * ms[:, None] / B)
        parts = [_interpolated(ests, m, budgets).T for m, budgets in zip(ms, mn)]
        mwt = np.concatenate([p.ravel() for p in parts])
        moff = np.concatenate([[0], np.cumsum([p.size for p in parts])]).astype(np.int64)
    else:
        ms, mn = np.zeros(0, dtype=np.int64), np.zeros((0, ns.size))
        mwt, moff = np.zeros(0), np.zeros(1, dtype=np.int64)
    return _R.Tables(wt, _ends(wt, len(ests)), col, ns, vwt, _ends(vwt, 1)[:, 0], ms,
                     np.ascontiguousarray(mn), mwt, moff)


def _ends(at, E):
    """(B, E): for each row of ``at`` (B, E N) and block of N columns, one past the last
    column whose weight exceeds the kernels' ``TINY``."""
    big = np.abs(at.reshape(at.shape[0], E, -1)) > _R.TINY
    last = big.shape[2] - np.argmax(big[:, :, ::-1], axis=2)
    return np.where(big.any(axis=2), last, 0).astype(np.int64)


def _interpolated(ests, m, budgets):
    """(K, m) weights of every estimator at the real budgets ``budgets`` for samples of
    m: linear in the budget between the integer budgets on either side."""
    lo = np.floor(budgets).astype(np.int64)
    hi = np.ceil(budgets).astype(np.int64)
    frac = (budgets - lo)[:, None]
    return np.concatenate([(1.0 - frac) * e.weight_rows(m, lo) + frac * e.weight_rows(m, hi)
                           for e in ests])


def no_tail(xs):
    """Why ``gpd-tail`` has no interval for the ascending sample ``xs``, or ``""``.

    Its tail is fitted to the excesses of the top k scores over the next,
    for k up to ``min(B // 2, K_MAX)``: when the top ``min(B // 2, K_MAX) +
    1`` scores are tied, every excess is 0 and there is no tail (its scale
    would be 0, and resamples without spread give pivots of +-inf).

    Examples
    --------
    >>> no_tail(np.array([0.5] + [0.7] * 11))
    'its 11 best scores are tied, leaving no tail to fit'
    >>> no_tail(np.linspace(0, 1, 12))
    ''
    """
    if not _R.tail_tied(xs):
        return ""
    tied = int(np.count_nonzero(xs == xs[-1]))
    return f"its {tied} best scores are tied, leaving no tail to fit"


def band_bounds(B, level, bounds):
    """The LD band's CDF bounds ``(lower, upper)`` (B + 1,) at ``level`` that cut
    ``gpd-tail-bounded``'s ends, or two empty arrays without both ends of ``bounds``."""
    if bounds is None or not np.all(np.isfinite(bounds)):
        return np.zeros(0), np.zeros(0)
    return ld_band(B, level)


def sample_intervals(xs, tabs, codes, resamples, level, seed, stream, bounds=None):
    """Intervals (M, K, 2) of the methods ``codes`` for the ascending sample ``xs``.

    The results of :func:`evpsim._kernels.resampling.sample_intervals` (and
    :func:`evpsim._kernels.bounded.bounded_intervals`) for the generator of
    stream ``(seed, stream)``, each method's blocks of resamples shared over
    the threads. ``bounds`` cuts the ends. ``gpd-tail`` gives NaN where it
    has no tail to fit (:func:`no_tail`), and so does ``gpd-tail-lattice``
    where the sample lies on no lattice.
    """
    lo, hi = (-np.inf, np.inf) if bounds is None else bounds
    st = rng_init(seed, stream)
    K = tabs.wt.shape[1]
    out = np.empty((len(codes), K, 2))
    for g, given in enumerate(codes):
        if given == _BD.BOUNDED:
            _bounded(st, xs, tabs, resamples, level, lo, hi, out[g])
            continue
        code, step, origin = _R.effective(given, xs)
        if code == _R.GPD_TAIL and _R.tail_tied(xs):
            out[g] = np.nan
            continue
        mseed = _R.method_seed(st, code)
        params, ref = _R.setup(code, xs, tabs, mseed, step, origin)
        piv = np.empty((K, _R.total_resamples(code, tabs, resamples)))
        map_threads(lambda span, c=code, p=params, r=ref, s=mseed, out=piv:
                    _R.pivots(c, s, xs, tabs, p, r, *span, out),
                    ranges(_R.blocks(code, tabs, resamples)))
        _R.finish(code, xs, tabs, params, ref, piv, level, lo, hi, out[g])
    return out


def _bounded(st, xs, tabs, resamples, level, lo, hi, out):
    """``gpd-tail-bounded``'s intervals ``out`` (K, 2) of the ascending sample ``xs``, the
    blocks of its tail's resamples shared over the threads."""
    band_lo, band_hi = band_bounds(xs.size, level, (lo, hi))
    m, target, gtabs, code, seed, params, ref = _BD.bounded_setup(st, xs, tabs, lo, hi)
    piv = np.empty((gtabs.wt.shape[1], resamples if code >= 0 else 0))
    if code >= 0:
        map_threads(lambda span: _R.pivots(code, seed, target, gtabs, params, ref, *span, piv),
                    ranges(_R.blocks(code, gtabs, resamples)))
    _BD.bounded_finish(xs, tabs, m, target, gtabs, code, params, ref, piv, seed, level, lo,
                       hi, band_lo, band_hi, out)


class ResamplingKind(Kind):
    """Methods that reweight resamples of their own through an L-statistic's weights:
    the mean curve only, slow, so run only when named."""

    name = "resampling"
    by_default = False
    resamples = True
    refits = True
    curves = ("mean",)

    def builtins(self):
        """``studentized``, ``smoothed``, ``gpd-tail``, ``gpd-tail-lattice`` and
        ``m-out-of-n``."""
        fields = ("name", "code", "description", "source", "assumes", "minimum_B")
        off = {"gpd-tail-lattice": "gpd-tail"}
        return [dict(zip(fields, row), off_lattice=off.get(row[0], "")) for row in [
            ("studentized", _R.STUDENTIZED,
             "bootstrap-t: pivot scaled by the SD of the best of n draws from the (re)sample",
             "Efron 1982; Hall 1988", "a pivot whose law the ordinary bootstrap gets right",
             2),
            ("smoothed", _R.SMOOTHED,
             "smoothed bootstrap from an adaptive Gaussian kernel mixture (local bandwidths, "
             "Abramson's square-root law), root centred on the mixture's theta_n",
             "Silverman & Young 1987; Abramson 1982",
             "the kernels' Gaussian tails beyond the best scores", 2),
            ("gpd-tail", _R.GPD_TAIL,
             "semiparametric bootstrap-t: empirical body, generalized Pareto tail over a "
             "data-driven threshold, its fitting error carried into the pivot",
             "Davison & Smith 1990; Zhang & Stephens 2009; Choulakian & Stephens 2001; "
             "Harris 1989",
             "a generalized Pareto tail fitted to the best scores", 10),
            ("gpd-tail-lattice", _R.GPD_LATTICE,
             "gpd-tail for scores on a lattice (found in the sample): the tail fitted to the "
             "scores jittered within their lattice cells, the model's draws and theta_n "
             "rounded to the lattice; gpd-tail where the scores lie on none",
             "Davison & Smith 1990; Zhang & Stephens 2009; Harris 1989",
             "a generalized Pareto tail fitted to the best scores, rounded to their lattice",
             10),
            ("gpd-tail-bounded", _BD.BOUNDED,
             "gpd-tail-lattice told the scores' range: the tail's end at most the best score "
             "possible; trials at the worst score (failed) a point mass, its share bounded "
             "exactly, the successes' curve by the tail; ends cut to the LD band's",
             "Davison & Smith 1990; Clopper & Pearson 1934; Learned-Miller & DeStefano 2008",
             "a generalized Pareto tail fitted to the best successful scores, its end within "
             "the metric's range where one is known", 10),
            ("m-out-of-n", _R.M_OUT_OF_N,
             "m-out-of-n bootstrap keeping n/B, m by Bickel & Sakov's rule, rate estimated",
             "Bickel, Goetze & van Zwet 1997; Bickel & Sakov 2008; Bertail, Politis & Romano "
             "1999",
             "a rate of convergence estimated from resamples of fewer points", 2)]]

    def applies(self, estimator):
        """L-statistics only: the resamples are reweighted through their weights."""
        return estimator.is_lstatistic

    def memory(self, methods, setup, copies, width):
        """The tables of the L-statistics, and the pivots of ``copies`` samples."""
        return memory(len(setup.lstatistics), setup.B, setup.ns.size, [m.code for m in methods],
                      setup.resamples, copies)

    def prepare(self, methods, setup):
        """The kernels' tables of the L-statistics, and the methods' codes (None without
        L-statistics)."""
        codes = np.array([m.code for m in methods], dtype=np.int64)
        lstats = [setup.ests[k] for k in setup.lstatistics]
        return (tables(lstats, setup.B, setup.ns, codes), codes) if lstats else None

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The L-statistics' intervals on one sample (cut to its bounds, if known)."""
        if prepared is None:
            return
        ivs = sample_intervals(sample.xs, prepared[0], [m.code for m in methods],
                               setup.resamples, setup.level,
                               sample.seed, sample.stream, sample.bounds)
        limits.put(setup.lstatistics, cols, ivs)

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job for the methods but ``gpd-tail-bounded`` and one for it, intervals cut
        to ``bounds``."""
        tabs, codes = prepared
        rest = [m for m in methods if m.code != _BD.BOUNDED]
        jobs = [(Job(_R.coverage_resampling_chunks,
                     (setup.B, sampler, tabs, theta, np.array([m.code for m in rest]),
                      setup.resamples, setup.level, *bounds), coverage_streams()), rest)] \
            if rest else []
        if len(rest) < len(methods):
            jobs.append((Job(_BD.coverage_bounded_chunks,
                             (setup.B, sampler, tabs, theta, setup.resamples, setup.level,
                              *bounds, *band_bounds(setup.B, setup.level, bounds)),
                             coverage_streams()),
                         [m for m in methods if m.code == _BD.BOUNDED]))
        return jobs

    def coverage_runs(self, methods):
        """A job for the methods but ``gpd-tail-bounded``, and one for it."""
        bounded = any(m.code == _BD.BOUNDED for m in methods)
        return int(len(methods) > bounded) + int(bounded)

    def no_interval(self, method, xs):
        """``gpd-tail``'s missing tail (:func:`no_tail`), and ``gpd-tail-lattice``'s and
        ``gpd-tail-bounded``'s where the scores lie on no lattice (with a known range,
        ``gpd-tail-bounded`` has the LD band's interval there)."""
        code = _R.GPD_LATTICE if method.code == _BD.BOUNDED else method.code
        tail = code in (_R.GPD_TAIL, _R.GPD_LATTICE)
        return no_tail(xs) if tail and _R.effective(code, xs)[0] == _R.GPD_TAIL else ""


#: the resampling kind
RESAMPLING = ResamplingKind()
