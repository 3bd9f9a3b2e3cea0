"""The bootstrap kind: intervals from the R bootstrap estimates of an estimator.

``percentile`` (Efron 1982; the method of Tang et al. 2020), ``basic``
(reverse percentile) and ``bca`` (bias-corrected and accelerated), all as
defined by ``scipy.stats.bootstrap``, and users' numba-compilable
``func(boots, estimate, jackknife, level) -> (lower, upper)``. L-statistics
run in :mod:`evpsim._kernels.bootstrap`, read off tables of cumulative
weights (:func:`weight_tables`); any other estimator runs on the sample and
on each of its resamples. Every bootstrap estimate is at most the sample
maximum, so the upper limits never reach beyond it.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from .._kernels import bootstrap as _K
from .._kernels.resamples import resample_indices, sample_estimates
from ..engine.montecarlo import Job
from ..engine.registry import jit_function
from ..engine.streams import coverage_streams
from ..engine.threads import map_threads, ranges
from ..estimators.family import Context
from ..estimators.targets import MEAN
from .kind import Kind

__all__ = ["BOOTSTRAP", "weight_tables", "bootstrap_memory"]

_CAPPED = ("the ordinary bootstrap: never beyond the best score observed, so it undercovers "
           "near n = B (gpd-tail reaches beyond it: 'evpsim reproduce intervals')")


def weight_tables(ests, B, ns=None, target=MEAN):
    """Cumulative weights (B + 1, K) and jackknife weights (K, B - 1) of the
    K = E * N columns (estimator-major) of the bootstrap kernels, for the
    N budgets ``ns`` (default all of 1..B) of the curve ``target``.

    The jackknife of budget n <= B uses the estimator for samples of size
    B - 1 at budget ``min(n, B - 1)``: U is undefined at n = B on B - 1
    points, and its natural extension (the sample maximum) is U at n = B -
    1. Budgets beyond B (estimators that extrapolate) use n itself.
    """
    ns = np.arange(1, B + 1) if ns is None else np.asarray(ns, dtype=np.int64)
    check.check_memory(4 * 8 * len(ests) * (B + 1) * max(B, ns.size),
                       f"the weight tables of {len(ests)} estimators for B = {B:,}", "B")
    ws = np.concatenate([e.weight_rows(B, ns, target) for e in ests])
    ptab = np.zeros((B + 1, ws.shape[0]))
    ptab[1:] = np.cumsum(ws, axis=1).T
    jack_ns = np.where(ns <= B, np.minimum(ns, B - 1), ns)
    jws = np.concatenate([e.weight_rows(B - 1, jack_ns, target) for e in ests])
    return np.ascontiguousarray(ptab), np.ascontiguousarray(jws)


def bootstrap_memory(E, B, resamples, copies=1):
    """Bytes of the bootstrap arrays of ``copies`` samples in flight."""
    return copies * 8 * E * B * (resamples + 2 * B + 8)


def _pair_problem(value):
    """What is wrong with an interval returned by a user's function, if anything.

    NaN ends are allowed (an interval that cannot be formed counts as
    undefined); a lower end above the upper one is not.
    """
    if not (isinstance(value, tuple) and len(value) == 2):
        return "not a pair"
    if not all(isinstance(v, (float, int, np.floating, np.integer))
               and not isinstance(v, (bool, np.bool_)) for v in value):
        return "not two numbers"
    if value[0] > value[1]:
        return "lower above upper"
    return None


def _bootstrap_one(xs, seed, stream, ptab, jws, resamples, level, codes, jackknife):
    """Bootstrap distribution and built-in intervals of one sorted sample.

    The results of :func:`evpsim._kernels.bootstrap.bootstrap_intervals`
    with the resamples of stream ``(seed, stream)``; its blocks of
    resamples, then its columns, are shared over the threads.

    Returns
    -------
    boot (K, R), est (K,), jack (K, B), intervals (M, K, 2)
    """
    est, jack, need_q, packed, starts, cuts, states = _K.bootstrap_setup(
        xs, seed, stream, ptab, jws, resamples, codes, jackknife)
    K = ptab.shape[1]
    boot = np.empty((K, resamples))
    ivs = np.full((codes.shape[0], K, 2), np.nan)
    map_threads(lambda span: _K.bootstrap_blocks(xs, states, packed, starts, cuts, *span, boot),
                ranges(states.shape[0]))
    if codes.shape[0]:
        map_threads(lambda span: _K.bootstrap_columns(*span, boot, est, jack, level, codes,
                                                      need_q, ivs), ranges(K))
    return boot, est, jack, ivs


def _general_runs(estimator, order, xs, ns, context, R, seed, stream, need_jack, progress):
    """A non-L-statistic estimator on the sample, its first R resamples and (``need_jack``)
    its leave-one-out samples: ``(estimate (N,), boot (R, N), jack (N, B))``.

    The resamples are those of :func:`_bootstrap_one` (stream ``(seed, stream)``),
    each in the order its points were drawn; the sample in the order given.
    """
    from ..engine.montecarlo import Progress

    B, N = xs.size, ns.size
    est = estimator.estimates(order, ns, context)[0]
    idx = np.empty((R, B), dtype=np.int64)
    resample_indices(seed, stream, idx)
    step = 1 if estimator.max_replicates is not None else max(1, R // 20)
    bar = Progress(f"{estimator.name} on {R:,} resamples", R, enabled=progress)
    boot = np.empty((R, N))
    for r0 in range(0, R, step):
        boot[r0:r0 + step] = estimator.estimates(xs[idx[r0:r0 + step]], ns, context)
        bar.update(min(r0 + step, R))
    bar.close()
    jack = np.zeros((N, B))
    if need_jack:  # leave-one-out at n <= B uses budget min(n, B - 1), as weight_tables
        jack_ns = np.where(ns <= B, np.minimum(ns, B - 1), ns)
        loo = np.array([np.delete(order, i) for i in range(B)])
        jack = estimator.estimates(loo, jack_ns, context).T
    return est, boot, np.ascontiguousarray(jack)


def _finite_intervals(boot, est, jack, level, codes, user):
    """Intervals (M + U, K, 2) of the built-in methods ``codes`` and the user methods
    ``user`` from bootstrap estimates (K, R) that may hold NaN (failed resamples):
    each column from its finite estimates (NaN with fewer than 2)."""
    K = boot.shape[0]
    M = codes.shape[0]
    out = np.full((M + len(user), K, 2), np.nan)
    need_q = bool(np.isin(codes, [_K.PERCENTILE, _K.BASIC]).any())
    ok = np.isfinite(boot)
    whole = np.flatnonzero(ok.all(axis=1))
    groups = [(whole, boot[whole])] + [(np.array([k]), boot[k, ok[k]][None])
                                       for k in np.flatnonzero(~ok.all(axis=1))
                                       if ok[k].sum() >= 2]
    for cols, b in groups:
        if cols.size == 0:
            continue
        b = np.ascontiguousarray(b)
        e, j = np.ascontiguousarray(est[cols]), np.ascontiguousarray(jack[cols])
        if M:
            ivs = np.full((M, cols.size, 2), np.nan)
            _K.bootstrap_columns(0, cols.size, b, e, j, level, codes, need_q, ivs)
            out[:M, cols] = ivs
        for g, m in enumerate(user):
            iv = np.empty((cols.size, 2))
            _K.user_intervals(m.func, b, e, j, level, iv)
            out[M + g, cols] = iv
    return out


def _split(methods):
    """The built-in methods' kernel codes, and the user methods."""
    return (np.array([m.code for m in methods if m.func is None], dtype=np.int64),
            [m for m in methods if m.func is not None])


class BootstrapKind(Kind):
    """The ordinary bootstrap's methods: built-in (``percentile``, ``basic``, ``bca``)
    and users' functions; they run any estimator, and give the estimates."""

    name = "bootstrap"
    resamples = True
    estimates = True

    def builtins(self):
        """``percentile``, ``basic`` and ``bca``."""
        return [dict(name=name, description=desc, code=code, assumes=_CAPPED)
                for name, code, desc in [
                    ("percentile", _K.PERCENTILE,
                     "percentile bootstrap (Efron 1982; Tang et al. 2020)"),
                    ("basic", _K.BASIC,
                     "basic (reverse percentile) bootstrap: 2 * estimate - quantiles"),
                    ("bca", _K.BCA,
                     "bias-corrected and accelerated bootstrap (jackknife acceleration)")]]

    def user(self, name, func):
        """The fields of the user's method ``name``, ``func(boots, estimate, jackknife, level)``,
        compiled after trial calls at levels 0.95 and 0.9."""
        boots, jack = np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.6, 0.65, 0.7])
        func = jit_function(func, "(boots, estimate, jackknife, level) -> (lower, upper)",
                            [(f"4 resamples at level {lv}", (boots.copy(), 0.65, jack, lv))
                             for lv in (0.95, 0.9)], _pair_problem)
        return dict(code=_K.USER, func=func)

    def memory(self, methods, setup, copies, width):
        """The bootstrap arrays of every estimator, ``copies`` samples in flight."""
        return bootstrap_memory(len(setup.ests), width, setup.resamples, copies)

    def prepare(self, methods, setup):
        """The weight tables of the L-statistics (None without any)."""
        lstats = [setup.ests[k] for k in setup.lstatistics]
        return weight_tables(lstats, setup.B, setup.ns, setup.target) if lstats else None

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The methods' intervals, and every estimator's estimate, on one sample."""
        codes, user = _split(methods)
        # the kernels give the built-in methods' intervals, then the user methods'
        cols = ([c for c, m in zip(cols, methods) if m.func is None]
                + [c for c, m in zip(cols, methods) if m.func is not None])
        if prepared is not None:
            self._lstatistic_intervals(codes, user, setup, prepared, sample, limits, cols)
        general = [k for k, e in enumerate(setup.ests) if not e.is_lstatistic]
        context = Context(setup.target, sample.bounds)
        for k in general:
            R = int(sample.counts[k])
            limits.estimate[k], gboot, jack = _general_runs(
                setup.ests[k], sample.order, sample.xs, setup.ns, context, R, sample.seed,
                sample.stream, need_jack=bool(user) or _K.BCA in codes,
                progress=sample.progress)
            limits.failed[k] = (~np.isfinite(gboot)).sum(axis=0)
            ivs = _finite_intervals(gboot.T, limits.estimate[k], jack, setup.level, codes, user)
            limits.lower[k, cols], limits.upper[k, cols] = ivs[..., 0], ivs[..., 1]
            if limits.boot is not None:
                limits.boot[:R, k] = gboot

    @staticmethod
    def _lstatistic_intervals(codes, user, setup, prepared, sample, limits, cols):
        """The L-statistics' intervals and estimates, from the bootstrap kernels."""
        lstats, N = setup.lstatistics, setup.ns.size
        ptab, jws = prepared
        xs, level = sample.xs, setup.level
        if not (codes.size or user):
            lest = np.empty(len(lstats) * N)
            sample_estimates(xs, ptab, lest)
        else:
            lboot, lest, jack, ivs = _bootstrap_one(xs, sample.seed, sample.stream, ptab, jws,
                                                    setup.resamples, level, codes, bool(user))
            for m in user:
                iv = np.empty((len(lstats) * N, 2))
                _K.user_intervals(m.func, lboot, lest, jack, level, iv)
                ivs = np.concatenate([ivs, iv[None]])
            limits.put(lstats, cols, ivs)
            if limits.boot is not None:
                limits.boot[:, lstats] = lboot.T.reshape(setup.resamples, len(lstats), N)
        limits.estimate[lstats] = np.asarray(lest).reshape(len(lstats), N)

    def coverage_runs(self, methods):
        """One for the built-in methods, and one for each user method."""
        codes, user = _split(methods)
        return bool(codes.size) + len(user)

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job for the built-in methods, and one for each user method."""
        codes, user = _split(methods)
        args = (setup.B, sampler, *prepared, theta, setup.resamples, setup.level)
        jobs = []
        if codes.size:
            jobs.append((Job(_K.coverage_boot_chunks, (*args, codes), coverage_streams()),
                         [m for m in methods if m.func is None]))
        for m in user:
            jobs.append((Job(_K.coverage_user_chunks, (*args, m.func), coverage_streams()),
                         [m]))
        return jobs


#: the bootstrap kind
BOOTSTRAP = BootstrapKind()
