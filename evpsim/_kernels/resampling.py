"""CI methods that draw their own resamples of each sample, and their coverage.

The bootstrap kernels (:mod:`.bootstrap`) share one ordinary bootstrap
distribution among percentile, basic and BCa. The methods here each need
resamples of their own: of another size, or from a fitted distribution
F-hat that reaches beyond the sample maximum. Each is an integer code:

:data:`STUDENTIZED`
    The bootstrap-t (Efron 1982; Hall 1988, section 3): pivot
    ``(T* - theta_n(F_B)) / s*``, s the SD of the best of n draws from the
    (re)sample's empirical distribution (Dodge et al. 2019, section 3.3),
    a scale set by the top spacings at large n; interval
    ``[est - s q_{1-a/2}, est - s q_{a/2}]``.
:data:`SMOOTHED`
    The smoothed bootstrap (Silverman & Young 1987; Hall, DiCiccio &
    Romano 1989) from Abramson's adaptive kernel mixture
    (:mod:`.tails`): root ``T* - theta_n(F_h)``, interval
    ``[est - q_{1-a/2}, est - q_{a/2}]``; the isolated top scores get wide
    kernels, which set how far beyond the maximum the resamples reach.
:data:`GPD_TAIL`
    The semiparametric bootstrap with a generalized Pareto tail
    (:mod:`.tails`), studentized by the model's SD of the best of n, with
    the tail's estimation error carried into the pivot by drawing each
    resample from a model refitted to a draw of the fitted one (the
    parametric bootstrap predictive distribution, Harris 1989): per
    resample, ``y1 ~ F-hat``, ``F1`` refitted to ``y1`` (same k),
    ``y2 ~ F1``, ``F2`` refitted to ``y2``, pivot ``(T(y2) -
    theta_n(F1)) / sd_n(F2)``; interval ``[est - sd_n(F-hat) q_{1-a/2},
    est - sd_n(F-hat) q_{a/2}]``.
:data:`GPD_LATTICE`
    :data:`GPD_TAIL` for scores on a lattice (:mod:`.lattice`), which it
    finds in each sample: the tail is fitted to the sample jittered
    uniformly within its lattice cells, and the model's draws are rounded
    back to the lattice, as the scores were. Per resample, ``y1 ~ F-hat``
    rounded, ``F1`` refitted to it jittered anew, ``y2 ~ F1`` rounded,
    ``F2`` refitted to it jittered; pivot ``(T(y2) - theta_n(F1 on the
    lattice)) / sd_n(F2)``, the centre the theta_n of F1's rounded draws
    (:func:`.tails.lattice_theta`: exact, or within 1e-3 of a step on a
    lattice fine beside the tail). The jitter of the sample comes
    from a stream of its own, those of the resamples from theirs. Where a
    sample lies on no lattice, the method is :data:`GPD_TAIL`, bit for bit.
:data:`M_OUT_OF_N`
    The ratio-preserving m-out-of-n bootstrap with m and the rate chosen
    from the data (:mod:`.subsample`), R resamples at each size tried.

Every method sees the sample its caller gives it; its resamples come from
streams derived from the caller's generator and the method's code, a
block of :data:`BLOCK` resamples per stream, so that a method's interval
depends neither on the other methods run beside it nor on how blocks are
shared over threads. Upper limits can exceed the sample maximum; given
the metric's bounds, intervals are cut to them (theta_n lies within).

References
----------
.. [1] B. Efron, The Jackknife, the Bootstrap and Other Resampling Plans
       (1982). P. Hall, "Theoretical comparison of bootstrap confidence
       intervals", Ann. Statist. 16 (1988).
.. [2] B. W. Silverman and G. A. Young, "The bootstrap: to smooth or not to
       smooth?", Biometrika 74 (1987). P. Hall, T. J. DiCiccio and J. P.
       Romano, "On smoothing and the bootstrap", Ann. Statist. 17 (1989).
.. [3] I. R. Harris, "Predictive fit for natural exponential families",
       Biometrika 76 (1989).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .quantiles import quantiles_by_selection
from .resamples import multinomial_counts
from .tallies import tally
from .options import OPTS as _OPTS
from .rng import chunk_bounds, rng_init, rng_next
from .sampling import draw_sorted
from .subsample import column_interval
from .lattice import jitter, lattice_of, snap
from .tails import (LATTICE_CELLS, adaptive_bandwidths, band_columns, draw_mixture,
                    draw_semiparametric, fit_tail, lattice_theta, mixture_theta,
                    semiparametric_moments, tail_threshold, tail_tied)

STUDENTIZED, SMOOTHED, GPD_TAIL, M_OUT_OF_N, GPD_LATTICE = 0, 1, 2, 3, 4
#: the parameters of the tail (k, xi, sigma and the most its draws may reach), and of the
#: lattice tail before its jittered sample (the step and origin follow)
_TAIL_PARAMS, _LATTICE_PARAMS = 4, 6
#: resamples per random stream
BLOCK = 64
#: weights of at most this size are left out of the products (they cannot move a double)
TINY = 2.0 ** -100


class Tables(NamedTuple):
    """What the methods need about the estimators and budgets, for samples of size B.

    Columns (K of them) run over estimators, then the N budgets.

    Attributes
    ----------
    wt : (B, K) array
        Each column's estimator weights, a column each.
    wend : (B, E) int array
        For each row of ``wt`` and each estimator's block of N columns, how
        many leading columns hold a weight above ``TINY``: beyond, every
        weight is below it and cannot move an estimate.
    col : (K,) int array
        Each column's budget, as an index into ``ns``.
    ns : (N,) int array
        The budgets.
    vwt : (B, N) array
        V's weights at the budgets, a column each (theta_n of an empirical
        distribution, the SD of its best of n, the semiparametric model's
        body).
    vend : (B,) int array
        As ``wend``, for ``vwt``.
    ms : (J,) int array
        The m-out-of-n resample sizes (empty without that method).
    mn : (J, N) array
        Its budgets ``max(1, n m / B)`` at each size.
    mwt, moff : flat array, (J + 1,) int array
        Its weights: size ``ms[j]``'s (m, K) table at ``mwt[moff[j]:moff[j + 1]]``.
    """

    wt: np.ndarray
    wend: np.ndarray
    col: np.ndarray
    ns: np.ndarray
    vwt: np.ndarray
    vend: np.ndarray
    ms: np.ndarray
    mn: np.ndarray
    mwt: np.ndarray
    moff: np.ndarray


# --- small pieces ----------------------------------------------------------------------

@njit(**_OPTS)
def matvec(at, y, out):
    """``out = at.T @ y`` for ``at`` (m, K): the column index innermost, so that the
    loop vectorises without reassociating any sum."""
    out[:] = 0.0
    for i in range(y.shape[0]):
        yi = y[i]
        row = at[i]
        for c in range(out.shape[0]):
            out[c] += row[c] * yi


@njit(**_OPTS)
def estimates(tabs, y, out):
    """Every column's estimate of the ascending sample ``y`` (size B), row i of the
    weights read only up to ``tabs.wend`` (the rest cannot move a double)."""
    N = tabs.ns.shape[0]
    out[:] = 0.0
    for i in range(y.shape[0]):
        yi = y[i]
        for e in range(tabs.wend.shape[1]):
            # slices from 0, so that the loop vectorises
            row = tabs.wt[i, e * N:(e + 1) * N]
            part = out[e * N:(e + 1) * N]
            for c in range(tabs.wend[i, e]):
                part[c] += row[c] * yi


@njit(**_OPTS)
def plugin_moments(tabs, y, mean, sd):
    """theta_n and the SD of the best of n of the empirical distribution of the
    ascending ``y``, from its moments about its maximum (which keeps the variance's
    digits: near n = B the best lies within a few top spacings of it)."""
    N = mean.shape[0]
    top = y[-1]
    mean[:] = 0.0
    sd[:] = 0.0
    for i in range(y.shape[0]):
        z = y[i] - top
        zz = z * z
        row = tabs.vwt[i]
        for a in range(tabs.vend[i]):
            mean[a] += row[a] * z
            sd[a] += row[a] * zz
    for a in range(N):
        sd[a] = math.sqrt(max(sd[a] - mean[a] * mean[a], 0.0))
        mean[a] += top


@njit(**_OPTS)
def _ratio(num, den):
    """``num / den``, with 0 / 0 = 0 (a resample with nothing to scale)."""
    if den > 0.0:
        return num / den
    return 0.0 if num == 0.0 else math.copysign(np.inf, num)


@njit(**_OPTS)
def _expand(counts, xs, y):
    """The ascending resample of ``xs`` with multiplicities ``counts``, into ``y``."""
    t = 0
    for i in range(counts.shape[0]):
        for _ in range(counts[i]):
            y[t] = xs[i]
            t += 1


@njit(**_OPTS)
def method_seed(st, code):
    """The seed of a method's streams: the next output of a copy of ``st``."""
    return (rng_next(st.copy()) >> np.uint64(1)) ^ np.uint64(code)


@njit(**_OPTS)
def total_resamples(code, tabs, resamples):
    """Resamples a method draws: ``resamples`` (m-out-of-n: at each of its sizes)."""
    return resamples * tabs.ms.shape[0] if code == M_OUT_OF_N else resamples


@njit(**_OPTS)
def blocks(code, tabs, resamples):
    """The number of blocks of :data:`BLOCK` resamples a method draws."""
    return (total_resamples(code, tabs, resamples) + BLOCK - 1) // BLOCK


# --- setup, pivots and intervals of each method ----------------------------------------

@njit(**_OPTS)
def effective(code, xs):
    """``(code, step, origin)``: ``gpd-tail-lattice`` is ``gpd-tail`` where the sample
    ``xs`` lies on no lattice (step 0)."""
    if code != GPD_LATTICE:
        return code, 0.0, 0.0
    step, origin, _ = lattice_of(xs)
    return (GPD_LATTICE if step > 0.0 else GPD_TAIL), step, origin


@njit(**_OPTS)
def setup(code, xs, tabs, seed, step, origin, ceiling=np.inf):
    """The fit of a method to the sample: ``(params, ref)``.

    ``ref`` (2, N) holds the reference theta_n and scale of the pivot's
    centre and interval; ``params`` whatever the method's resamples need
    (the bandwidths; k, xi, sigma of the tail and the most its draws may
    reach, ``ceiling``, and for the lattice tail its step, origin and
    jittered sample; the m-out-of-n centres). A finite ``ceiling`` keeps the
    tail's end at or below it (:func:`.tails.fit_tail`); on a lattice,
    below ``ceiling`` plus half a step, which rounds to ``ceiling``. The lattice
    tail's jitter draws from stream ``(seed, code * 2**40 + 2**39)``,
    beyond every block's.
    """
    B = xs.shape[0]
    N = tabs.ns.shape[0]
    ref = np.zeros((2, N))
    if code == GPD_LATTICE:
        params = np.empty(_LATTICE_PARAMS + B)
        xc = params[_LATTICE_PARAMS:]
        jitter(rng_init(seed, (code << 40) + (1 << 39)), xs, step, xc)
        params[3] = ceiling + 0.5 * step
        params[0], params[1], params[2] = _fit_gpd(xc, tabs, ref, params[3])
        params[4], params[5] = step, origin
        return params, ref
    if code == STUDENTIZED:
        plugin_moments(tabs, xs, ref[0], ref[1])
        return np.empty(0), ref
    if code == SMOOTHED:
        h = np.empty(B)
        adaptive_bandwidths(xs, h)
        mixture_theta(xs, h, tabs.ns, ref[0])
        return h, ref
    if code == GPD_TAIL:
        params = np.empty(_TAIL_PARAMS)
        params[3] = ceiling
        params[0], params[1], params[2] = _fit_gpd(xs, tabs, ref, ceiling)
        return params, ref
    # M_OUT_OF_N: theta_n'(F_B) at every size and budget (V at the real budget n')
    J = tabs.ms.shape[0]
    centres = np.empty(J * N)
    for j in range(J):
        for a in range(N):
            n = tabs.mn[j, a]
            s = 0.0
            prev = 0.0
            for i in range(B):
                cur = ((i + 1.0) / B) ** n
                s += xs[i] * (cur - prev)
                prev = cur
            centres[j * N + a] = s
    return centres, ref


@njit(**_OPTS)
def _fit_gpd(xs, tabs, ref, ceiling):
    """``(k, xi, sigma)`` of the tail fitted to ``xs``, its end at most ``ceiling``; its
    theta_n and SD into ``ref``."""
    B = xs.shape[0]
    ys = np.empty(B)
    k = tail_threshold(xs, ys, ceiling)
    xi, sigma = fit_tail(xs, k, ys, ceiling)
    top = tabs.ns.max()
    m1, m2 = np.empty(top + 1), np.empty(top + 1)
    semiparametric_moments(xs, k, xi, sigma, tabs.vwt, tabs.vend, band_columns(tabs.ns, k / B),
                           m1, m2, ref[0], ref[1])
    return k, xi, sigma


@njit(**_OPTS)
def pivots(code, seed, xs, tabs, params, ref, b0, b1, out):
    """Pivots (or roots) ``out[:, r]`` of the resamples r of blocks ``b0:b1``.

    Block b draws from stream ``(seed, code * 2**40 + b)``; ``out`` is
    (K, :func:`total_resamples`).
    """
    for b in range(b0, b1):
        st = rng_init(seed, (code << 40) + b)
        r0, r1 = b * BLOCK, min((b + 1) * BLOCK, out.shape[1])
        if code == STUDENTIZED:
            _studentized_block(st, xs, tabs, ref, r0, r1, out)
        elif code == SMOOTHED:
            _smoothed_block(st, xs, tabs, params, ref, r0, r1, out)
        elif code == GPD_TAIL:
            _gpd_block(st, xs, tabs, params, r0, r1, out)
        elif code == GPD_LATTICE:  # the tail fitted to the jittered sample
            _gpd_block(st, params[_LATTICE_PARAMS:], tabs, params[:_LATTICE_PARAMS], r0, r1,
                       out)
        else:
            _subsample_block(st, xs, tabs, params, r0, r1, out)


@njit(**_OPTS)
def _studentized_block(st, xs, tabs, ref, r0, r1, out):
    B, K, N = xs.shape[0], tabs.wt.shape[1], tabs.ns.shape[0]
    counts = np.empty(B, dtype=np.int64)
    y, est, mean, sd = np.empty(B), np.empty(K), np.empty(N), np.empty(N)
    for r in range(r0, r1):
        multinomial_counts(st, counts)
        _expand(counts, xs, y)
        estimates(tabs, y, est)
        plugin_moments(tabs, y, mean, sd)
        for c in range(K):
            a = tabs.col[c]
            out[c, r] = _ratio(est[c] - ref[0, a], sd[a])


@njit(**_OPTS)
def _smoothed_block(st, xs, tabs, bandwidths, ref, r0, r1, out):
    y, est = np.empty(xs.shape[0]), np.empty(tabs.wt.shape[1])
    for r in range(r0, r1):
        draw_mixture(st, xs, bandwidths, y)
        estimates(tabs, y, est)
        for c in range(est.shape[0]):
            out[c, r] = est[c] - ref[0, tabs.col[c]]


@njit(**_OPTS)
def _gpd_block(st, xs, tabs, params, r0, r1, out):
    """gpd-tail's pivots; on a lattice (``params`` longer than k, xi, sigma and ceiling: the
    step and origin follow, and ``xs`` is the jittered sample), each draw is rounded to it
    and jittered anew before its refit, and theta_n(F1) taken on the lattice."""
    B, K, N = xs.shape[0], tabs.wt.shape[1], tabs.ns.shape[0]
    k, xi, sigma, ceiling = int(params[0]), params[1], params[2], params[3]
    lattice = params.shape[0] > _TAIL_PARAMS
    step, origin = (params[4], params[5]) if lattice else (0.0, 0.0)
    bands = band_columns(tabs.ns, k / B)
    top = tabs.ns.max()
    m1, m2 = np.empty(top + 1), np.empty(top + 1)
    scratch = np.empty((3, 4 + 2 * LATTICE_CELLS if lattice else 0))
    y1, y2, ys, est = np.empty(B), np.empty(B), np.empty(B), np.empty(K)
    c1, c2 = (np.empty(B), np.empty(B)) if lattice else (y1, y2)
    counts = np.empty(B, dtype=np.int64)
    theta1, mean, sd = np.empty(N), np.empty(N), np.empty(N)
    for r in range(r0, r1):
        draw_semiparametric(st, xs, k, xi, sigma, counts, y1)
        if lattice:
            _rejitter(st, y1, step, origin, c1)
        xi1, sigma1 = fit_tail(c1, k, ys, ceiling)
        if lattice:
            lattice_theta(c1, k, xi1, sigma1, step, origin, tabs.vwt, tabs.vend, bands, m1, m2,
                          scratch, theta1)
        else:
            semiparametric_moments(c1, k, xi1, sigma1, tabs.vwt, tabs.vend, bands, m1, m2,
                                   theta1, sd, False)
        draw_semiparametric(st, c1, k, xi1, sigma1, counts, y2)
        if lattice:
            _rejitter(st, y2, step, origin, c2)
        xi2, sigma2 = fit_tail(c2, k, ys, ceiling)
        semiparametric_moments(c2, k, xi2, sigma2, tabs.vwt, tabs.vend, bands, m1, m2, mean, sd)
        estimates(tabs, y2, est)
        for c in range(K):
            a = tabs.col[c]
            out[c, r] = _ratio(est[c] - theta1[a], sd[a])


@njit(**_OPTS)
def _rejitter(st, y, step, origin, out):
    """``y`` rounded to the lattice in place, and jittered anew within its cells into
    ``out``."""
    snap(y, step, origin)
    jitter(st, y, step, out)


@njit(**_OPTS)
def _subsample_block(st, xs, tabs, centres, r0, r1, out):
    B, K, N = xs.shape[0], tabs.wt.shape[1], tabs.ns.shape[0]
    per = out.shape[1] // tabs.ms.shape[0]
    counts, y, est = np.empty(B, dtype=np.int64), np.empty(B), np.empty(K)
    for r in range(r0, r1):
        j = r // per
        m = tabs.ms[j]
        _subsample(st, xs, m, counts, y[:m])
        matvec(tabs.mwt[tabs.moff[j]:tabs.moff[j + 1]].reshape((m, K)), y[:m], est)
        for c in range(K):
            out[c, r] = est[c] - centres[j * N + tabs.col[c]]


@njit(**_OPTS)
def _subsample(st, xs, m, counts, y):
    """An ascending resample of m of the B points ``xs``, with replacement, into ``y``."""
    B = xs.shape[0]
    counts[:] = 0
    for _ in range(m):
        u = rng_next(st)
        counts[((u >> np.uint64(32)) * np.uint64(B)) >> np.uint64(32)] += 1
    _expand(counts, xs, y)


@njit(**_OPTS)
def finish(code, xs, tabs, params, ref, piv, level, lo, hi, out):
    """The intervals ``out`` (K, 2) from the pivots ``piv`` (reordered in place).

    Ends beyond ``[lo, hi]`` (the metric's bounds, or infinities) are cut
    to them.
    """
    K = tabs.wt.shape[1]
    est = np.empty(K)
    estimates(tabs, xs, est)
    alpha = 0.5 * (1.0 - level)
    if code == M_OUT_OF_N:
        J = tabs.ms.shape[0]
        per = piv.shape[1] // J
        roots = np.empty((J, per))
        scratch = np.empty((2, per))
        for c in range(K):
            for j in range(J):
                roots[j] = piv[c, j * per:(j + 1) * per]
            column_interval(roots, tabs.ms, xs.shape[0], est[c], level, scratch, out[c])
    else:
        ps = np.empty(2)
        ps[0], ps[1] = alpha, 1.0 - alpha
        qs = np.empty(2)
        ranks = np.empty(4, dtype=np.int64)
        for c in range(K):
            quantiles_by_selection(piv[c], ps, qs, ranks)
            s = 1.0 if code == SMOOTHED else ref[1, tabs.col[c]]
            out[c, 0] = est[c] - (s * qs[1] if s > 0.0 else 0.0)
            out[c, 1] = est[c] - (s * qs[0] if s > 0.0 else 0.0)
    for c in range(K):
        out[c, 0] = min(max(out[c, 0], lo), hi)
        out[c, 1] = min(max(out[c, 1], lo), hi)


@njit(**_OPTS)
def sample_intervals(st, xs, tabs, codes, resamples, level, lo, hi, out):
    """Intervals ``out`` (M, K, 2) of every method ``codes`` for one ascending sample,
    their streams derived from the generator ``st`` (left as it was).

    ``gpd-tail`` gives NaN where no tail can be fitted (:func:`.tails.tail_tied`).
    """
    K = tabs.wt.shape[1]
    for g in range(codes.shape[0]):
        code, step, origin = effective(codes[g], xs)
        if code == GPD_TAIL and tail_tied(xs):  # no tail: no interval, never a covering one
            out[g] = np.nan
            continue
        seed = method_seed(st, code)
        params, ref = setup(code, xs, tabs, seed, step, origin)
        piv = np.empty((K, total_resamples(code, tabs, resamples)))
        pivots(code, seed, xs, tabs, params, ref, 0, blocks(code, tabs, resamples), piv)
        finish(code, xs, tabs, params, ref, piv, level, lo, hi, out[g])


# --- coverage ----------------------------------------------------------------------------

@njit(**_OPTS)
def coverage_resampling_chunks(span, B, sampler, tabs, thetas, codes, resamples, level, lo, hi):
    """Coverage tallies of the methods ``codes``, a replicate at a time.

    Replicate i draws its sample from stream ``(seed, stream0 + i)`` as the
    bootstrap and band kernels do (:func:`.bootstrap.coverage_boot_chunks`),
    so every method of every kind sees the same samples; ``thetas`` holds
    the truth at the N budgets of ``tabs``.

    Returns
    -------
    (nchunks, M, E, N + 1, 4) array
        See :func:`.tallies.tally`.
    """
    K = tabs.wt.shape[1]
    N = thetas.shape[0]
    E = K // N
    M = codes.shape[0]
    out = np.zeros((span.nchunks, M, E, N + 1, 4))
    for c in range(span.nchunks):
        first, reps = chunk_bounds(span, c)
        xs = np.empty(B)
        ivs = np.empty((M, K, 2))
        for t in range(reps):
            st = rng_init(span.seed, span.stream0 + first + t)
            draw_sorted(st, xs, sampler)
            sample_intervals(st, xs, tabs, codes, resamples, level, lo, hi, ivs)
            tally(out[c], ivs, thetas, E, N)
    return out
