"""Confidence intervals across runs: the mean and median best-so-far curves of k runs.

k runs of a search give, at each budget n, k independent best-so-far values
(a column of ``x``, one row per run). Every interval of both curves is
computed from the same bootstrap resamples of the runs, multinomial counts
over the k rows (:func:`.bootstrap.multinomial_counts`), the same for every
budget, so a resample is a resample of whole runs, curves and all.

Methods (rows of the result, :data:`METHODS`; :data:`CURVE_OF` says which
curve each bounds, 0 the mean and 1 the median):

* the mean curve: Student-t (``mean +- t_{k-1} s / sqrt(k)``); bootstrap-t
  (quantiles of the resamples' t statistics; a resample whose runs are all
  equal has t = +-inf, or 0 at the mean); percentile; expanded percentile
  (Hesterberg 2015: percentile at the tail probability ``Phi(-sqrt(k / (k -
  1)) t_{k-1})``, which widens it by the factor the t interval has over the
  normal one); BCa (acceleration from the jackknife of the mean, bias
  correction from the share of resample means below the mean, ties
  counting half: with few runs a resample repeats the sample's mean with
  a probability of several percent);
* the median curve: the order-statistic interval ``[x_(d), x_(k+1-d)]``
  (exact binomial coverage for any continuous law, at least that with
  ties), its interpolation by Hettmansperger and Sheather (1986) between
  ``x_(d)`` and ``x_(d+1)`` towards the level, and the percentile interval
  of the resample medians.

Constants per number of runs (``consts``, see
:func:`evpsim.intervals.runs.run_constants`): the t quantile, the expanded
percentile's tail probability, the order statistic d and the
interpolation weight.
"""

import math

import numpy as np
from numba import njit

from .bootstrap import ndtr, ndtri
from .options import OPTS as _OPTS
from .quantiles import quantiles_by_selection
from .resamples import multinomial_counts
from .rng import chunk_bounds, chunk_stream, rng_init
from .runs import runs_at, sorted_median

(STUDENT_T, BOOTSTRAP_T, PERCENTILE, EXPANDED, BCA, ORDER_STATISTIC, INTERPOLATED,
 MEDIAN_PERCENTILE) = range(8)
#: the methods' names, in their rows' order
METHODS = ("student-t", "bootstrap-t", "percentile", "expanded-percentile", "bca",
           "order-statistic", "order-statistic-interpolated", "percentile")
#: the curve each row bounds: 0 the mean, 1 the median
CURVE_OF = np.array([0, 0, 0, 0, 0, 1, 1, 1], dtype=np.int64)
NMETHODS = 8
#: columns of ``consts``
T_QUANTILE, EXPANDED_TAIL, ORDER_INDEX, INTERPOLATION = range(4)
#: a t statistic beyond this is an unbounded end (a resample of equal runs)
_T_CAP = 1e12
# slots of the coverage tallies
HIT, BELOW, ABOVE, UNDEFINED, UNBOUNDED, WIDTH = range(6)
NSLOTS = 6


@njit(**_OPTS)
def _resampled(d, k, counts, perm, v, ref, tol, means, ts, meds):
    """One budget's resamples: their means less the sample mean (``d`` the runs'
    deviations from it), t statistics about ``ref`` (the sample's own mean of ``d``,
    0 but for rounding) and medians (``v`` the sorted values, ``perm`` the runs in
    that order)."""
    lo_rank, hi_rank = (k - 1) // 2, k // 2
    root = math.sqrt(k)
    for b in range(counts.shape[0]):
        s1 = 0.0
        s2 = 0.0
        for r in range(k):
            c = counts[b, r]
            s1 += c * d[r]
            s2 += c * d[r] * d[r]
        mean = s1 / k
        var = max(s2 - s1 * mean, 0.0) / (k - 1)
        means[b] = mean
        if var > 0.0:
            ts[b] = min(max((mean - ref) * root / math.sqrt(var), -_T_CAP), _T_CAP)
        else:
            ts[b] = 0.0 if abs(mean - ref) <= tol else (_T_CAP if mean > ref else -_T_CAP)
        cum = 0
        low = np.nan
        for i in range(k):
            cum += counts[b, perm[i]]
            if cum > lo_rank and low != low:
                low = v[i]
            if cum > hi_rank:
                meds[b] = 0.5 * (low + v[i])
                break


@njit(**_OPTS)
def _unbounded(q):
    """A quantile of t statistics at the cap: an unbounded end."""
    return math.copysign(np.inf, q) if abs(q) >= _T_CAP else q


@njit(**_OPTS)
def _mean_intervals(m, se, skew, level, tq, tail, means, ts, below, ties, ps, qs, ranks, out,
                    j):
    """Rows 0-4 of ``out[:, j]``: the mean curve's intervals at one budget."""
    alpha = 0.5 * (1.0 - level)
    R = means.shape[0]
    out[STUDENT_T, j, 0], out[STUDENT_T, j, 1] = m - tq * se, m + tq * se
    ps[0], ps[1] = alpha, 1.0 - alpha
    quantiles_by_selection(ts, ps[:2], qs, ranks)
    out[BOOTSTRAP_T, j, 0] = m - _unbounded(qs[1]) * se if se > 0 else m
    out[BOOTSTRAP_T, j, 1] = m - _unbounded(qs[0]) * se if se > 0 else m
    z0 = ndtri((below + 0.5 * ties) / R)
    zl = ndtri(alpha)
    p1 = ndtr(z0 + (z0 + zl) / (1.0 - skew * (z0 + zl)))
    p2 = ndtr(z0 + (z0 - zl) / (1.0 - skew * (z0 - zl)))
    ps[2], ps[3] = tail, 1.0 - tail
    ps[4], ps[5] = p1, p2
    quantiles_by_selection(means, ps, qs, ranks)
    out[PERCENTILE, j, 0], out[PERCENTILE, j, 1] = qs[0] + m, qs[1] + m
    out[EXPANDED, j, 0], out[EXPANDED, j, 1] = qs[2] + m, qs[3] + m
    if p1 == p1 and p2 == p2 and se > 0:
        out[BCA, j, 0], out[BCA, j, 1] = qs[4] + m, qs[5] + m
    else:
        out[BCA, j, 0], out[BCA, j, 1] = np.nan, np.nan


@njit(**_OPTS)
def _median_intervals(v, k, level, order, lam, meds, ps, qs, ranks, out, j):
    """Rows 5-7 of ``out[:, j]``: the median curve's intervals at one budget."""
    alpha = 0.5 * (1.0 - level)
    lo, hi = order - 1, k - order
    out[ORDER_STATISTIC, j, 0], out[ORDER_STATISTIC, j, 1] = v[lo], v[hi]
    out[INTERPOLATED, j, 0] = (1.0 - lam) * v[lo] + lam * v[min(lo + 1, hi)]
    out[INTERPOLATED, j, 1] = (1.0 - lam) * v[hi] + lam * v[max(hi - 1, lo)]
    ps[0], ps[1] = alpha, 1.0 - alpha
    quantiles_by_selection(meds, ps[:2], qs, ranks)
    out[MEDIAN_PERCENTILE, j, 0], out[MEDIAN_PERCENTILE, j, 1] = qs[0], qs[1]


@njit(**_OPTS)
def intervals_of(x, k, counts, level, const, est, out, boot, keep):
    """Every method's interval at every budget from the first k runs of ``x``.

    Parameters
    ----------
    x : (K, J) array
        Best-so-far values, a row per run (K >= k), a column per budget.
    k : int
        Runs used (at least 2).
    counts : (R, k) int array
        The resamples' multinomial counts of the runs.
    level : float
        Two-sided level.
    const : (4,) array
        The constants of k runs (module docstring).
    est : (2, J) array
        Receives the mean and the median of the runs.
    out : (NMETHODS, J, 2) array
        Receives the intervals (NaN: undefined; +-inf: unbounded).
    boot : (R, 2, J) array
        With ``keep``, receives the resample means and medians.
    keep : bool
        Fill ``boot``.
    """
    J = x.shape[1]
    R = counts.shape[0]
    d, v = np.empty(k), np.empty(k)
    perm = np.empty(k, dtype=np.int64)
    means, ts, meds = np.empty(R), np.empty(R), np.empty(R)
    ps, qs = np.empty(6), np.empty(6)
    ranks = np.empty(12, dtype=np.int64)
    tq, tail = const[T_QUANTILE], const[EXPANDED_TAIL]
    order, lam = int(const[ORDER_INDEX]), const[INTERPOLATION]
    for j in range(J):
        s = 0.0
        for r in range(k):
            s += x[r, j]
        m = s / k
        ref = 0.0
        s2 = 0.0
        s3 = 0.0
        scale = 0.0
        for r in range(k):
            d[r] = x[r, j] - m
            ref += d[r]
            s2 += d[r] * d[r]
            s3 += d[r] * d[r] * d[r]
            scale = max(scale, abs(d[r]))
            perm[r] = r
        ref /= k  # the sample's own mean about m, summed as the resamples' are
        _sort_by(x, j, perm, k, v)
        est[0, j], est[1, j] = m, sorted_median(v, k)
        se = math.sqrt(s2 / (k - 1) / k)
        skew = s3 / (6.0 * s2 ** 1.5) if s2 > 0 else 0.0
        _resampled(d, k, counts, perm, v, ref, 1e-12 * scale, means, ts, meds)
        below, ties = 0, 0
        for b in range(R):
            if abs(means[b] - ref) <= 1e-12 * scale:
                ties += 1
            elif means[b] < ref:
                below += 1
        if keep:
            for b in range(R):
                boot[b, 0, j] = means[b] + m
                boot[b, 1, j] = meds[b]
        _mean_intervals(m, se, skew, level, tq, tail, means, ts, below, ties, ps, qs, ranks,
                        out, j)
        _median_intervals(v, k, level, order, lam, meds, ps, qs, ranks, out, j)


@njit(**_OPTS)
def _sort_by(x, j, perm, k, v):
    """``perm[:k]`` the runs in ascending order of column j of ``x``, ``v`` their values."""
    for i in range(1, k):
        p = perm[i]
        a = x[p, j]
        h = i - 1
        while h >= 0 and x[perm[h], j] > a:
            perm[h + 1] = perm[h]
            h -= 1
        perm[h + 1] = p
    for i in range(k):
        v[i] = x[perm[i], j]


@njit(**_OPTS)
def draw_counts(st, counts):
    """Each row of ``counts`` (R, k) the multinomial counts of one resample of k runs."""
    for b in range(counts.shape[0]):
        multinomial_counts(st, counts[b])


@njit(**_OPTS)
def runs_intervals(x, seed, stream, resamples, level, const):
    """The intervals of the k runs of ``x`` (k, J), resampled from stream ``(seed, stream)``.

    Returns
    -------
    est : (2, J) array
        The mean and median curves.
    out : (NMETHODS, J, 2) array
        Every method's interval.
    boot : (resamples, 2, J) array
        The resample means and medians, resample by resample.
    """
    k, J = x.shape
    st = rng_init(seed, stream)
    counts = np.empty((resamples, k), dtype=np.int64)
    draw_counts(st, counts)
    est = np.empty((2, J))
    out = np.empty((NMETHODS, J, 2))
    boot = np.empty((resamples, 2, J))
    intervals_of(x, k, counts, level, const, est, out, boot, True)
    return est, out, boot


@njit(**_OPTS)
def _tally(acc, hist, q, out, truths, oracle, nbins, log_lo, step):
    """Add one replicate's intervals (k-th entry q of the ks) to the tallies."""
    J = out.shape[1]
    for m in range(NMETHODS):
        c = CURVE_OF[m]
        for j in range(J):
            lo, hi, t = out[m, j, 0], out[m, j, 1], truths[c, j]
            if lo != lo or hi != hi:
                acc[m, q, j, UNDEFINED] += 1.0
                continue
            if hi < t:
                acc[m, q, j, BELOW] += 1.0
            elif lo > t:
                acc[m, q, j, ABOVE] += 1.0
            else:
                acc[m, q, j, HIT] += 1.0
            w = hi - lo
            if not math.isfinite(w):
                acc[m, q, j, UNBOUNDED] += 1.0
                hist[m, q, j, nbins + 1] += 1.0
                continue
            acc[m, q, j, WIDTH] += w
            o = oracle[c, q, j]
            if o > 0.0:
                b = math.floor((math.log(w / o) - log_lo) / step) if w > 0.0 else -1.0
                hist[m, q, j, 0 if b < 0 else (nbins + 1 if b >= nbins else int(b) + 1)] += 1.0


@njit(**_OPTS)
def coverage_chunks(span, B, kind, sampler, pool, params, ns, ks, consts, level, resamples,
                    truths, oracle, nbins, log_lo, step):
    """Per chunk, the coverage tallies of every method at every k and budget.

    Each replicate simulates ``max(ks)`` runs (:func:`.runs.runs_at`); the
    first k of them are the runs of its estimate at k runs, resampled with
    counts drawn after the runs, from the chunk's stream.

    Returns
    -------
    (chunks, size) float64 array
        Per chunk, flattened in this order: the tallies (NMETHODS, len(ks),
        len(ns), NSLOTS): covered, interval below, above, undefined,
        unbounded, sum of finite widths; the histograms (NMETHODS, len(ks),
        len(ns), nbins + 2) of ``log(width / oracle)`` in ``nbins`` bins of
        ``step`` from ``log_lo`` (a slot below, one above; unbounded widths
        above); the sums (2, len(ks), len(ns), 2) of ``e`` and ``e**2``,
        ``e = estimate - truth``, of the mean and the median.
    """
    J, nk = ns.shape[0], ks.shape[0]
    K = 0
    for q in range(nk):
        K = max(K, ks[q])
    n_acc, n_hist = NMETHODS * nk * J * NSLOTS, NMETHODS * nk * J * (nbins + 2)
    res = np.zeros((span.nchunks, n_acc + n_hist + 4 * nk * J))
    values = np.empty((K, J))
    buf = np.empty(B)
    est = np.empty((2, J))
    out = np.empty((NMETHODS, J, 2))
    boot = np.empty((1, 2, J))
    for c in range(span.nchunks):
        acc = res[c, :n_acc].reshape((NMETHODS, nk, J, NSLOTS))
        hist = res[c, n_acc:n_acc + n_hist].reshape((NMETHODS, nk, J, nbins + 2))
        esum = res[c, n_acc + n_hist:].reshape((2, nk, J, 2))
        _, reps = chunk_bounds(span, c)
        st = chunk_stream(span, c)
        for _ in range(reps):
            runs_at(st, K, B, kind, sampler, pool, params, ns, buf, values)
            for q in range(nk):
                counts = np.empty((resamples, ks[q]), dtype=np.int64)
                draw_counts(st, counts)
                intervals_of(values, ks[q], counts, level, consts[q], est, out, boot, False)
                _tally(acc, hist, q, out, truths, oracle, nbins, log_lo, step)
                for cv in range(2):
                    for j in range(J):
                        e = est[cv, j] - truths[cv, j]
                        esum[cv, q, j, 0] += e
                        esum[cv, q, j, 1] += e * e
    return res
