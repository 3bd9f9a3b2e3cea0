"""The gpd-tail interval at a level calibrated through its own fitted model.

``gpd-tail`` (:mod:`.resampling`) builds a bootstrap-t interval from a
semiparametric model F-hat fitted to the sample (empirical body,
generalized Pareto tail, :mod:`.tails`), whose theta_n is known exactly.
Its coverage can fall short of the nominal level (few tail points, a
model refitted to draws of itself). The methods here measure that
shortfall in the world of F-hat and correct for it, each end on its own:
S samples of B are drawn from F-hat; on each, the gpd-tail method runs
as it runs on the data (its own threshold, fit and pivots), and its
studentized error ``t_s = (T(y_s) - theta_n(F-hat)) / sd_n(F_s)`` is set
against the pivots it would use. The one-sided nominal levels at which
gpd-tail's ends would miss theta_n(F-hat) in ``(1 - level) / 2`` of the
samples each are the calibrated levels, and the data's interval is
gpd-tail's interval (the same pivots, drawn from the same streams) at
those levels.

:data:`PREPIVOT`
    Beran's (1987) prepivoting, Hall's (1986) calibration of the level:
    on each sample, ``u_s = G_s(t_s)``, G_s the distribution of the R_in
    pivots gpd-tail draws from F_s (mid-ranks, ``(below + ties / 2 +
    1/2) / (R_in + 1)``, so that u is uniform when t_s is one more pivot);
    gpd-tail's lower end covers at the one-sided level p exactly when
    ``u_s <= p``, so the calibrated levels are the ``a`` and ``1 - a``
    quantiles of the u_s (``a = (1 - level) / 2``).
:data:`FAST_DOUBLE`
    The fast double bootstrap (Davidson & MacKinnon 2007): one pivot
    ``t**_s`` per sample, drawn from F_s as gpd-tail draws its own, and
    the levels ``p = G**(Q_t(1 - a))`` and ``G**(Q_t(a))``, G** the
    distribution of the t**_s (mid-ranks), Q_t the quantiles of the t_s:
    the level at which a pivot law like the samples' would put its
    quantile where the samples' errors put theirs. It assumes t_s and
    the pivots of its sample independent, and needs one inner pivot per
    sample, not R_in.

The calibration runs at a few budgets (the caller's ``ctabs``), its
levels interpolated in log n between them (``imap``). Each level is kept
within ``[TAIL_LOW a, TAIL_HIGH a]`` of its end (the tail probability
of each end at most ``TAIL_HIGH`` and at least ``TAIL_LOW`` times the
nominal one): the samples resolve neither tail much further. Sample s of
the calibration draws from stream ``(seed, s)``, ``seed`` derived from the
caller's generator and the method's :data:`STREAM_CODES`, so that its
levels depend neither on the threads nor on the other methods.

References
----------
.. [1] P. Hall, "On the bootstrap and confidence intervals", Ann.
       Statist. 14 (1986).
.. [2] R. Beran, "Prepivoting to reduce level error of confidence sets",
       Biometrika 74 (1987).
.. [3] R. Davidson and J. G. MacKinnon, "Improving the reliability of
       bootstrap tests with the fast double bootstrap", Comput. Statist.
       Data Anal. 51 (2007).
"""

import numpy as np
from numba import njit

from .quantiles import quantiles_by_selection
from .tallies import tally
from .options import OPTS as _OPTS
from .resampling import (_TAIL_PARAMS, GPD_TAIL, _gpd_block, _ratio, blocks, estimates,
                         method_seed, pivots, setup)
from .rng import chunk_bounds, rng_init
from .sampling import draw_sorted
from .tails import (band_columns, draw_semiparametric, fit_tail, semiparametric_moments,
                    tail_threshold, tail_tied)

PREPIVOT, FAST_DOUBLE = 0, 1
#: the calibration's stream codes, apart from the resampling methods' (0-3)
STREAM_CODES = (8, 9)
#: calibration samples of each method, and the pivots drawn on each (read by the caller)
SAMPLES = (200, 1000)
INNER = (40, 1)
#: each end's calibrated tail probability lies in [TAIL_LOW a, TAIL_HIGH a]
TAIL_LOW, TAIL_HIGH = 0.1, 2.0


@njit(**_OPTS)
def model_theta(xs, params, ctabs, theta):
    """theta_n ``theta`` (Nc,) of the model ``params`` (k, xi, sigma) fitted to ``xs``,
    at the budgets of ``ctabs``."""
    k = int(params[0])
    top = ctabs.ns.max()
    m1, m2 = np.empty(top + 1), np.empty(top + 1)
    sd = np.empty(theta.shape[0])
    semiparametric_moments(xs, k, params[1], params[2], ctabs.vwt, ctabs.vend,
                           band_columns(ctabs.ns, k / xs.shape[0]), m1, m2, theta, sd, False)


@njit(**_OPTS)
def _position(values, x):
    """Mid-rank position of ``x`` among ``values`` (NaN skipped): ``(below + ties / 2 +
    1/2) / (count + 1)``; NaN when no value is a number."""
    below = 0.0
    ties = 0.0
    count = 0
    for v in values:
        if v == v:
            count += 1
            if v < x:
                below += 1.0
            elif v == x:
                ties += 1.0
    return (below + 0.5 * ties + 0.5) / (count + 1.0) if count > 0 else np.nan


@njit(**_OPTS)
def calibration_block(code, seed, xs, params, theta, ctabs, inner_pivots, s0, s1, tvals,
                      inner):
    """Samples ``s0:s1`` of the calibration: ``tvals[s]`` (Kc,) their studentized errors,
    ``inner[s]`` (Kc,) their prepivots u_s among ``inner_pivots`` pivots
    (:data:`PREPIVOT`) or one pivot each (:data:`FAST_DOUBLE`); NaN for a sample whose
    best scores are tied (no tail)."""
    B = xs.shape[0]
    Kc, Nc = ctabs.wt.shape[1], ctabs.ns.shape[0]
    k, xi, sigma = int(params[0]), params[1], params[2]
    top = ctabs.ns.max()
    m1, m2 = np.empty(top + 1), np.empty(top + 1)
    y, ys, est = np.empty(B), np.empty(B), np.empty(Kc)
    counts = np.empty(B, dtype=np.int64)
    mean, sd = np.empty(Nc), np.empty(Nc)
    fit = np.empty(_TAIL_PARAMS)
    fit[3] = np.inf  # gpd-tail's: no end to the tail
    piv = np.empty((Kc, inner_pivots))
    for s in range(s0, s1):
        st = rng_init(seed, s)
        draw_semiparametric(st, xs, k, xi, sigma, counts, y)
        if tail_tied(y):
            tvals[s] = np.nan
            inner[s] = np.nan
            continue
        ks = tail_threshold(y, ys)
        xis, sigmas = fit_tail(y, ks, ys)
        semiparametric_moments(y, ks, xis, sigmas, ctabs.vwt, ctabs.vend,
                               band_columns(ctabs.ns, ks / B), m1, m2, mean, sd)
        estimates(ctabs, y, est)
        fit[0], fit[1], fit[2] = ks, xis, sigmas
        _gpd_block(st, y, ctabs, fit, 0, piv.shape[1], piv)
        for c in range(Kc):
            a = ctabs.col[c]
            tvals[s, c] = _ratio(est[c] - theta[a], sd[a])
            inner[s, c] = _position(piv[c], tvals[s, c]) if code == PREPIVOT else piv[c, 0]


@njit(**_OPTS)
def _finite(values, out):
    """The numbers among ``values`` copied to the front of ``out``; their count."""
    m = 0
    for v in values:
        if v == v:
            out[m] = v
            m += 1
    return m


@njit(**_OPTS)
def calibrated_levels(code, tvals, inner, level, imap_lo, imap_hi, imap_w, E, levels):
    """One-sided levels ``levels`` (E N, 2) of the lower and upper ends of every column.

    The calibration's levels at its Nc budgets (columns of ``tvals`` and
    ``inner``, (S, E Nc)), kept within ``[TAIL_LOW a, TAIL_HIGH a]`` of
    their ends, are interpolated to budget a of the N as ``(1 - w) p[lo] + w
    p[hi]`` (``imap_*``, (N,)). ``levels[:, 0]`` is the probability whose
    pivot quantile sets the lower end (near ``1 - a``), ``levels[:, 1]``
    the upper end's (near ``a``).
    """
    S, Kc = tvals.shape
    Nc = Kc // E
    N = imap_lo.shape[0]
    a = 0.5 * (1.0 - level)
    cal = np.empty((Kc, 2))
    work, spare = np.empty(S), np.empty(S)
    ps, qs = np.empty(2), np.empty(2)
    ranks = np.empty(4, dtype=np.int64)
    ps[0], ps[1] = 1.0 - a, a
    for c in range(Kc):
        cal[c, 0], cal[c, 1] = 1.0 - a, a
        if code == PREPIVOT:
            m = _finite(inner[:, c], work)
            if m > 0:
                quantiles_by_selection(work[:m], ps, cal[c], ranks)
        else:
            m = _finite(tvals[:, c], work)
            if m > 0:
                quantiles_by_selection(work[:m], ps, qs, ranks)
                m2 = _finite(inner[:, c], spare)
                cal[c, 0] = _position(spare[:m2], qs[0])
                cal[c, 1] = _position(spare[:m2], qs[1])
        cal[c, 0] = min(max(cal[c, 0], 1.0 - TAIL_HIGH * a), 1.0 - TAIL_LOW * a)
        cal[c, 1] = min(max(cal[c, 1], TAIL_LOW * a), TAIL_HIGH * a)
    for e in range(E):
        for n in range(N):
            w = imap_w[n]
            for side in range(2):
                levels[e * N + n, side] = ((1.0 - w) * cal[e * Nc + imap_lo[n], side]
                                           + w * cal[e * Nc + imap_hi[n], side])


@njit(**_OPTS)
def finish_calibrated(xs, tabs, ref, piv, levels, lo, hi, out):
    """gpd-tail's intervals ``out`` (K, 2) from its pivots ``piv`` (reordered in place) at
    the one-sided ``levels`` (K, 2) of each column, ends cut to ``[lo, hi]``."""
    K = tabs.wt.shape[1]
    est = np.empty(K)
    estimates(tabs, xs, est)
    qs = np.empty(2)
    ranks = np.empty(4, dtype=np.int64)
    for c in range(K):
        quantiles_by_selection(piv[c], levels[c], qs, ranks)
        s = ref[1, tabs.col[c]]
        out[c, 0] = min(max(est[c] - (s * qs[0] if s > 0.0 else 0.0), lo), hi)
        out[c, 1] = min(max(est[c] - (s * qs[1] if s > 0.0 else 0.0), lo), hi)


@njit(**_OPTS)
def sample_calibrated(st, xs, tabs, ctabs, imap_lo, imap_hi, imap_w, code, samples,
                      inner_pivots, resamples, level, lo, hi, out):
    """The calibrated intervals ``out`` (K, 2) of one ascending sample, serially, from
    ``samples`` calibration samples of ``inner_pivots`` pivots each, their streams derived
    from the generator ``st`` (left as it was); NaN where no tail can be fitted."""
    if tail_tied(xs):
        out[:] = np.nan
        return
    K, Kc = tabs.wt.shape[1], ctabs.wt.shape[1]
    seed = method_seed(st, GPD_TAIL)
    params, ref = setup(GPD_TAIL, xs, tabs, seed, 0.0, 0.0)  # no lattice: step 0
    piv = np.empty((K, resamples))
    pivots(GPD_TAIL, seed, xs, tabs, params, ref, 0,
           blocks(GPD_TAIL, tabs, resamples), piv)
    theta = np.empty(ctabs.ns.shape[0])
    model_theta(xs, params, ctabs, theta)
    tvals, inner = np.empty((samples, Kc)), np.empty((samples, Kc))
    calibration_block(code, method_seed(st, STREAM_CODES[code]), xs, params, theta, ctabs,
                      inner_pivots, 0, samples, tvals, inner)
    levels = np.empty((K, 2))
    calibrated_levels(code, tvals, inner, level, imap_lo, imap_hi, imap_w, K // imap_lo.shape[0],
                      levels)
    finish_calibrated(xs, tabs, ref, piv, levels, lo, hi, out)


@njit(**_OPTS)
def coverage_calibrated_chunks(span, B, sampler, tabs, ctabs, imap_lo, imap_hi, imap_w, thetas,
                               codes, samples, inner_pivots, resamples, level, lo, hi):
    """Coverage tallies (nchunks, M, E, N + 1, 4) of the calibrated methods ``codes`` (each
    with its ``samples[g]`` and ``inner_pivots[g]``), on the samples every kind sees
    (replicate i from stream ``(seed, stream0 + i)``)."""
    K = tabs.wt.shape[1]
    N = thetas.shape[0]
    E = K // N
    M = codes.shape[0]
    out = np.zeros((span.nchunks, M, E, N + 1, 4))
    xs = np.empty(B)
    ivs = np.empty((M, K, 2))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            for g in range(M):
                sample_calibrated(st, xs, tabs, ctabs, imap_lo, imap_hi, imap_w, codes[g],
                                  samples[g], inner_pivots[g], resamples, level, lo, hi, ivs[g])
            tally(out[c], ivs, thetas, E, N)
    return out
