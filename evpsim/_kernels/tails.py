"""Models of the score distribution that reach beyond the sample maximum.

Two fitted distributions F-hat of one sorted sample ``x_(1) <= ... <= x_(B)``,
each with its exact expected maximum ``theta_n(F-hat)`` (and the standard
deviation of the best of n), and samples drawn from it:

*Semiparametric, generalized Pareto tail* (peaks over threshold: Balkema &
de Haan 1974; Pickands 1975; Davison & Smith 1990). Below the threshold
``u = x_(B-k)`` the empirical distribution (mass 1/B on each of the B - k
lowest scores); above it, mass k/B spread as a generalized Pareto
distribution GPD(xi, sigma) of the excess over u, fitted to the k
exceedances by the estimator of Zhang & Stephens (2009), which exists for
every sample and every shape, unlike the maximum likelihood estimator for
xi < -1/2 (Smith 1985). k is chosen from the data: the k in
``[K_MIN, min(B/2, K_MAX)]`` whose fit its k exceedances reject least by
the Kolmogorov-Smirnov statistic ``sqrt(k) D_k`` (threshold choice by a
goodness-of-fit test, as Choulakian & Stephens 2001 propose; the distance
``D_k`` alone, as Clauset, Shalizi & Newman 2009 minimise it, shrinks
with k under a good fit and so favours the largest k). Scores are
bounded, so the shape is kept in ``[XI_LOW, XI_HIGH]``: -1 is a density
bounded away from 0 at the upper end, and below 1/2 the best score has a
variance. With n draws, J ~ Binomial(n, k/B) of them fall in the tail,
and given J = j the best is ``u + sigma Z_j``, Z_j the largest of j standard
GPD variables, whose first two moments are ratios of gamma functions::

    E[Z_j] = (j B(j, 1 - xi) - 1) / xi,
    E[Z_j^2] = (j B(j, 1 - 2 xi) - 2 j B(j, 1 - xi) + 1) / xi^2,

so theta_n and the SD of the best of n are exact finite sums, with no
quadrature.

*Adaptive Gaussian kernel mixture* (the smoothed bootstrap's F-hat):
``F_h(x) = (1/B) sum_i Phi((x - x_(i)) / h_i)`` with Abramson's (1982)
square-root law for the local bandwidths, ``h_i = h0 (f0(x_i) / g)^-1/2``,
``f0`` a pilot kernel density estimate with Silverman's (1986, eq. 3.31)
rule-of-thumb bandwidth h0 and g the geometric mean of the ``f0(x_i)``:
isolated points, the top scores among them, get wide kernels, so the
mixture's tail beyond the sample maximum is set by how far apart the top
scores lie. Its theta_n is an integral over a grid (Simpson's rule).

References
----------
.. [1] A. A. Balkema and L. de Haan, "Residual life time at great age",
       Ann. Probab. 2 (1974). J. Pickands, "Statistical inference using
       extreme order statistics", Ann. Statist. 3 (1975).
.. [2] A. C. Davison and R. L. Smith, "Models for exceedances over high
       thresholds", J. R. Statist. Soc. B 52 (1990).
.. [3] J. Zhang and M. A. Stephens, "A new and efficient estimation method
       for the generalized Pareto distribution", Technometrics 51 (2009).
.. [4] V. Choulakian and M. A. Stephens, "Goodness-of-fit tests for the
       generalized Pareto distribution", Technometrics 43 (2001). A.
       Clauset, C. R. Shalizi and M. E. J. Newman, "Power-law distributions
       in empirical data", SIAM Review 51 (2009).
.. [5] R. L. Smith, "Maximum likelihood estimation in a class of
       nonregular cases", Biometrika 72 (1985).
.. [6] I. S. Abramson, "On bandwidth variation in kernel estimates - a
       square root law", Ann. Statist. 10 (1982). B. W. Silverman,
       Density Estimation for Statistics and Data Analysis (1986).
"""

import math

import numpy as np
from numba import njit

from .lanes import four_powers
from .options import OPTS as _OPTS
from .rng import below, normal_state, rng_uniform, uniform_state
from .sampling import sort_inplace

#: the range of the fitted tail's shape
XI_LOW, XI_HIGH = -1.0, 0.45
#: the exceedances of the fitted tail: at least K_MIN, at most min(B / 2, K_MAX)
K_MIN, K_MAX = 5, 100
#: shapes nearer 0 than this are moved to it (the GPD's CDF, quantiles and tail terms divide by
#: the shape)
_XI_ZERO = 1e-6
#: Simpson nodes of the kernel mixture's integrals (odd), and its reach in bandwidths
_GRID, _REACH = 1025, 8.0
#: binomial probabilities below this (relative to 1) are left out of the tail sums
_PMF_CUT = 1e-17
#: the most lattice cells above the threshold over which rounding's effect on the tail's
#: mean is summed (beyond, the tail is smooth over a cell and rounding adds nothing)
LATTICE_CELLS = 256
#: the tail's scale sigma, in lattice steps, from which the lattice is fine beside it:
#: rounding's effect on the tail's mean is then taken from the cells near u and an
#: Euler-Maclaurin end term, not summed over the cells (:func:`fine_lattice`)
FINE_CELLS = 16
#: the most ``jmax (-xi step / sigma)^(-1/xi)`` may be for a lattice to be fine beside a
#: tail with an end: the best of the most tail draws is then spread over enough cells
#: below it (:func:`fine_lattice`)
END_SHARE = 0.02


# --- the generalized Pareto tail ---------------------------------------------------

@njit(**_OPTS)
def zhang_stephens(ys, k):
    """GPD fit ``(xi, sigma)`` of the k ascending excesses ``ys[:k] >= 0``.

    The estimator of Zhang & Stephens (2009): for ``theta = -xi / sigma``
    the profile likelihood has the closed form ``k (log(theta / kappa) +
    kappa - 1)`` with ``kappa = -mean(log(1 - theta y))``; theta is its
    likelihood-weighted mean over their grid of ``20 + sqrt(k)`` values
    (all below ``1 / max y``), and then ``xi = -kappa``, ``sigma =
    kappa / theta``. The grid's scale is the first quartile of the excesses
    (the smallest positive one when ties put it at 0). Returns ``(0, 0)``
    when every excess is 0.
    """
    top = ys[k - 1]
    if not top > 0.0:
        return 0.0, 0.0
    quart = ys[int(math.floor(k / 4.0 + 0.5)) - 1]
    i = 0
    while not quart > 0.0:
        quart = ys[i]
        i += 1
    m = 20 + int(math.sqrt(k))
    thetas = np.empty(m)
    logs = np.empty(m)
    best = -np.inf
    for j in range(m):
        th = 1.0 / top + (1.0 - math.sqrt(m / (j + 0.5))) / (3.0 * quart)
        s = 0.0
        for i in range(k):
            s += math.log1p(-th * ys[i])
        kappa = -s / k
        thetas[j] = th
        logs[j] = k * (math.log(th / kappa) + kappa - 1.0) if th * kappa > 0.0 else -np.inf
        best = max(best, logs[j])
    num = 0.0
    den = 0.0
    for j in range(m):
        w = math.exp(logs[j] - best)
        num += w * thetas[j]
        den += w
    th = num / den
    s = 0.0
    for i in range(k):
        s += math.log1p(-th * ys[i])
    kappa = -s / k
    if th == 0.0 or kappa == 0.0:  # the exponential tail
        mean = 0.0
        for i in range(k):
            mean += ys[i]
        return 0.0, mean / k
    return -kappa, kappa / th


@njit(**_OPTS)
def fit_tail(xs, k, ys, top=np.inf):
    """The GPD tail above ``u = xs[B - k - 1]`` fitted to the k top scores.

    ``ys`` (at least k long) receives the excesses. Returns ``(xi,
    sigma)``: a shape outside ``[XI_LOW, XI_HIGH]`` is moved to the nearer
    end, with sigma then set so that the fitted mean excess ``sigma / (1 -
    xi)`` is the excesses' mean; a shape within ``_XI_ZERO`` of 0 moves to
    ``_XI_ZERO``. sigma is 0 when the top k + 1 scores are tied. With a
    finite ``top`` (the best score the metric allows), a fit whose upper
    end ``u - sigma / xi`` (infinite for ``xi >= 0``) lies beyond it is
    replaced by :func:`fit_to_endpoint`'s, whose end is ``top``.
    """
    B = xs.shape[0]
    u = xs[B - k - 1]
    for i in range(k):
        ys[i] = xs[B - k + i] - u
    xi, sigma = zhang_stephens(ys, k)
    if not XI_LOW <= xi <= XI_HIGH:
        xi = min(max(xi, XI_LOW), XI_HIGH)
        mean = 0.0
        for i in range(k):
            mean += ys[i]
        sigma = mean / k * (1.0 - xi)
    if top < np.inf and sigma > 0.0 and (xi >= 0.0 or u - sigma / xi > top):
        return fit_to_endpoint(ys, k, top - u)
    if abs(xi) < _XI_ZERO:
        xi = _XI_ZERO
    return xi, sigma


@njit(**_OPTS)
def fit_to_endpoint(ys, k, end):
    """The GPD fit ``(xi, sigma)`` of the k excesses ``ys[:k]`` whose upper end is ``end``.

    With the end fixed, ``sigma = -xi end`` and the excess over ``end`` is
    Beta(1, c) with ``c = -1 / xi``: the likelihood's maximum is at ``c =
    -k / sum log(1 - y / end)``, in closed form. A shape below ``XI_LOW``
    (an excess at the end itself, say) moves to it, one within
    ``_XI_ZERO`` of 0 to ``-_XI_ZERO``; ``end <= 0`` leaves no room above
    the threshold, and sigma is 0.
    """
    if not end > 0.0:
        return XI_LOW, 0.0
    s = 0.0
    for i in range(k):
        s += math.log1p(-min(ys[i] / end, 1.0))
    xi = max(s / k, XI_LOW)  # -1 / c
    xi = min(xi, -_XI_ZERO)
    return xi, -xi * end


@njit(**_OPTS)
def gpd_cdf(y, xi, sigma):
    """CDF of GPD(xi, sigma) at the excess ``y >= 0``."""
    if not sigma > 0.0:
        return 1.0
    z = 1.0 + xi * y / sigma
    return 1.0 - z ** (-1.0 / xi) if z > 0.0 else 1.0


@njit(**_OPTS)
def tail_tied(xs):
    """True when no tail can be fitted to the ascending sample ``xs``.

    The top ``min(B // 2, K_MAX) + 1`` scores are tied: every candidate
    tail's excesses are 0, so every fit has scale 0 and its resamples have
    no spread.
    """
    B = xs.shape[0]
    top = min(B // 2, K_MAX) + 1
    return B >= top and xs[B - top] == xs[B - 1]


@njit(**_OPTS)
def tail_threshold(xs, ys, top=np.inf):
    """The number k of top scores the tail is fitted to, chosen from the data.

    Every k in ``[K_MIN, min(B // 2, K_MAX)]`` is fitted (with its upper
    end at most ``top``, :func:`fit_tail`); the k whose fit has the
    smallest Kolmogorov-Smirnov statistic ``sqrt(k) D_k`` against its k
    excesses wins (the largest p-value); fits without a positive excess are
    skipped (``K_MIN`` if every one is). ``B >= 2 K_MIN`` is needed.
    """
    B = xs.shape[0]
    best = np.inf
    chosen = K_MIN
    for k in range(K_MIN, min(B // 2, K_MAX) + 1):
        xi, sigma = fit_tail(xs, k, ys, top)
        if not sigma > 0.0:
            continue
        d = 0.0
        for i in range(k):
            g = gpd_cdf(ys[i], xi, sigma)
            d = max(d, abs(g - (i + 1.0) / k), abs(g - i / k))
        d *= math.sqrt(k)
        if d < best:
            best = d
            chosen = k
    return chosen


@njit(**_OPTS)
def gpd_max_moments(xi, jmax, m1, m2, second=True):
    """``m1[j] = E[Z_j]``, ``m2[j] = E[Z_j^2]`` for the largest Z_j of j standard
    GPD(xi, 1) variables, j = 0..jmax (``Z_0 = 0``).

    With ``A_j = j B(j, 1 - xi) = prod_{i <= j} i / (i - xi)``, ``E[Z_j] = (A_j -
    1) / xi`` and ``E[Z_j^2] = 2 R_j``, ``R_j = ((A2_j - 1) / (2 xi) - E[Z_j]) / xi``
    (A2 likewise with 2 xi): both differences cancel near xi = 0, so they are taken
    by their own recurrences, which follow from ``A_j (j - xi) = j A_(j-1)``::

        E[Z_j] = (j E[Z_(j-1)] + 1) / (j - xi),
        R_j = (j R_(j-1) + E[Z_j]) / (j - 2 xi):

    every term positive for ``xi < 1/2``, no function call, no cancellation
    whatever xi (0 too), each value within about ``j`` roundings of the exact
    one. With ``second`` False, ``m2`` is left alone.
    """
    m1[0] = 0.0
    m2[0] = 0.0
    e1 = 0.0
    r = 0.0
    for j in range(1, jmax + 1):
        e1 = (j * e1 + 1.0) / (j - xi)
        m1[j] = e1
        if second:
            r = (j * r + e1) / (j - 2.0 * xi)
            m2[j] = 2.0 * r


@njit(**_OPTS)
def binomial_bands(ns, p):
    """The Binomial(n, p) probabilities of j = 1..n tail draws, for every n of ``ns``.

    Probabilities below ``_PMF_CUT`` of the largest are left out, so only a
    band around ``n p`` is kept, walked out from the mode by the ratios
    ``pmf(j + 1) / pmf(j) = (n - j) p / ((j + 1) (1 - p))``. Returns
    ``(first, count, values, start)``: row a holds j = ``first[a] ..
    first[a] + count[a] - 1`` at ``values[start[a]:start[a + 1]]``.
    """
    N = ns.shape[0]
    odds = p / (1.0 - p)
    first = np.zeros(N, dtype=np.int64)
    count = np.zeros(N, dtype=np.int64)
    start = np.zeros(N + 1, dtype=np.int64)
    for a in range(N):  # the band's ends
        n = ns[a]
        mode = min(max(int((n + 1) * p), 1), n)
        v = 1.0
        lo = mode
        while lo > 1 and v * lo / ((n - lo + 1) * odds) > _PMF_CUT:
            v *= lo / ((n - lo + 1) * odds)
            lo -= 1
        v = 1.0
        hi = mode
        while hi < n and v * (n - hi) * odds / (hi + 1) > _PMF_CUT:
            v *= (n - hi) * odds / (hi + 1)
            hi += 1
        first[a] = lo
        count[a] = hi - lo + 1
        start[a + 1] = start[a] + count[a]
    values = np.empty(start[N])
    lp, lq = math.log(p), math.log1p(-p)
    for a in range(N):
        n = ns[a]
        j = first[a]
        v = math.exp(math.lgamma(n + 1.0) - math.lgamma(j + 1.0) - math.lgamma(n - j + 1.0)
                     + j * lp + (n - j) * lq)
        for t in range(count[a]):
            values[start[a] + t] = v
            v *= (n - j - t) * odds / (j + t + 1)
    return first, count, values, start


@njit(**_OPTS)
def band_columns(ns, p):
    """:func:`binomial_bands` laid out by the number j of tail draws, for sums over j.

    Returns ``(lo, rows, values, start)``: column ``c`` holds the
    probabilities of ``j = lo + c`` tail draws for the budgets ``a`` in
    ``rows[0, c] <= a < rows[1, c]``, at ``values[start[c]:start[c + 1]]``; the
    last j is ``lo + rows.shape[1] - 1``. A budget in that range whose band
    does not hold j (none, where the budgets ascend: the bands' ends then
    ascend with them) gets 0.

    :func:`band_sums` adds, for each budget, the terms of its band in the
    order of j, as a sum along the band does, so the result is the same to
    the bit: a zero's term (the values summed are finite) leaves every sum
    but -0 unchanged, and none here is -0 (they start at +0, or at a theta_n
    made of such sums). Its loop runs over budgets in a column, contiguous
    and independent: it vectorises, where each budget's own sum is one
    chain of dependent additions.
    """
    first, count, values, start = binomial_bands(ns, p)
    N = ns.shape[0]
    lo = first.min()
    hi = 0
    for a in range(N):
        hi = max(hi, first[a] + count[a])
    J = hi - lo
    rows = np.empty((2, J), dtype=np.int64)
    rows[0, :] = N
    rows[1, :] = 0
    for a in range(N):
        for j in range(first[a] - lo, first[a] + count[a] - lo):
            rows[0, j] = min(rows[0, j], a)
            rows[1, j] = max(rows[1, j], a + 1)
    cstart = np.zeros(J + 1, dtype=np.int64)
    for c in range(J):
        rows[0, c] = min(rows[0, c], rows[1, c])  # a j in no band: no rows
        cstart[c + 1] = cstart[c] + rows[1, c] - rows[0, c]
    cvalues = np.zeros(cstart[J])
    for a in range(N):
        for t in range(count[a]):
            c = first[a] + t - lo
            cvalues[cstart[c] + a - rows[0, c]] = values[start[a] + t]
    return lo, rows, cvalues, cstart


@njit(**_OPTS)
def band_sums(columns, x, out):
    """``out[a] += sum_j P_a(j) x[j]`` for every budget a, the terms in the order of j
    (:func:`band_columns`: the same bits as a sum along each band)."""
    lo, rows, values, start = columns
    for c in range(rows.shape[1]):
        xj = x[lo + c]
        part = out[rows[0, c]:rows[1, c]]
        col = values[start[c]:start[c + 1]]
        for i in range(part.shape[0]):
            part[i] += col[i] * xj


@njit(**_OPTS)
def band_sums2(columns, x, y, out_x, out_y):
    """:func:`band_sums` of ``x`` into ``out_x`` and of ``y`` into ``out_y``, in one pass."""
    lo, rows, values, start = columns
    for c in range(rows.shape[1]):
        xj = x[lo + c]
        yj = y[lo + c]
        px = out_x[rows[0, c]:rows[1, c]]
        py = out_y[rows[0, c]:rows[1, c]]
        col = values[start[c]:start[c + 1]]
        for i in range(px.shape[0]):
            px[i] += col[i] * xj
            py[i] += col[i] * yj


@njit(**_OPTS)
def semiparametric_moments(xs, k, xi, sigma, vwt, vend, bands, m1, m2, mean, sd, with_sd=True):
    """theta_n and the SD of the best of n of the semiparametric model, every n.

    Parameters
    ----------
    xs : (B,) array
        The ascending sample.
    k, xi, sigma
        The tail: the k top scores above ``u = xs[B - k - 1]``, GPD(xi, sigma).
    vwt : (B, N) array
        V's weights ``(i/B)^n - ((i-1)/B)^n`` at the N budgets, transposed:
        the body's share of each of its points.
    vend : (B,) int array
        How many leading entries of each row of ``vwt`` to read (the rest
        are too small to matter).
    bands : tuple
        :func:`band_columns` of the budgets with ``p = k / B``.
    m1, m2 : arrays of at least ``max(n) + 1``
        Scratch for :func:`gpd_max_moments`.
    mean, sd : (N,) arrays
        Receive theta_n and the SD; with ``with_sd`` False, ``sd`` is left
        alone and only what theta_n needs is computed (the same bits).
    with_sd : bool
        Compute the SD too.
    """
    B = xs.shape[0]
    u = xs[B - k - 1]
    gpd_max_moments(xi, bands[0] + bands[1].shape[1] - 1, m1, m2, with_sd)
    N = vwt.shape[1]
    b1 = np.zeros(N)
    b2 = np.zeros(N)
    for i in range(B - k):
        # the budget innermost, over a row's slice from 0: vectorised, nothing reassociated
        d = xs[i] - u
        row = vwt[i]
        if with_sd:
            dd = d * d
            for a in range(vend[i]):
                b1[a] += row[a] * d
                b2[a] += row[a] * dd
        else:
            for a in range(vend[i]):
                b1[a] += row[a] * d
    t1 = np.zeros(N)
    t2 = np.zeros(N)
    if with_sd:
        band_sums2(bands, m1, m2, t1, t2)
    else:
        band_sums(bands, m1, t1)
    for a in range(N):
        e1 = b1[a] + sigma * t1[a]
        mean[a] = u + e1
        if with_sd:
            sd[a] = math.sqrt(max(b2[a] + sigma * sigma * t2[a] - e1 * e1, 0.0))


@njit(**_OPTS)
def draw_semiparametric(st, xs, k, xi, sigma, counts, out):
    """An ascending sample of B draws from the semiparametric model, without sorting.

    The draws that fall in the body are counted on its B - k points and
    laid out in order (``counts``, (B,) int scratch); the J in the tail
    are ``u`` plus the GPD quantiles of J ascending uniforms, made from
    normalised sums of J + 1 exponentials (Devroye 1986, section V.2).
    """
    B = xs.shape[0]
    body = (B - k) / B
    counts[:B - k] = 0
    J = 0
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]  # the state in scalars (see .rng)
    for _ in range(B):
        v, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        if v < body:
            counts[below(v / body, B - k)] += 1
        else:
            J += 1
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3
    t = 0
    for i in range(B - k):
        for _ in range(counts[i]):
            out[t] = xs[i]
            t += 1
    if J == 0:
        return
    total = 0.0
    for j in range(J + 1):
        e = -math.log(rng_uniform(st))
        total += e
        if j < J:
            out[t + j] = total
    u = xs[B - k - 1]
    for j in range(J):
        # the GPD quantile of the ascending uniform w = sum / total
        out[t + j] = u + sigma * math.expm1(-xi * math.log1p(-out[t + j] / total)) / xi


# --- the tail on a lattice -----------------------------------------------------------

@njit(**_OPTS)
def lattice_corrections(u, xi, sigma, step, origin, jmax, m1, scratch, corr):
    """``corr[j] = E[snap(u + sigma Z_j)] - E[u + sigma Z_j]``, j = 0..jmax: what rounding
    the best of j tail draws to the lattice ``origin + i * step`` adds to its mean.

    With ``p0 = snap(u)``, the cells' upper edges ``e_m = p0 + (m - 1/2) step`` and
    ``S_j(x) = P(u + sigma Z_j > x) = 1 - G((x - u) / sigma)^j`` (G the GPD's CDF),
    ``E[snap(X)] = p0 + step sum_m S_j(e_m)`` and ``E[X] = u + integral_u^inf S_j =
    u + sigma m1[j]`` (:func:`gpd_max_moments`). Where the lattice is fine beside the
    tail (:func:`fine_lattice`), the cells near u and an Euler-Maclaurin end term
    (:func:`fine_corrections`), else the sum over the cells (:func:`cell_corrections`).
    ``scratch`` is (3, 4 + 2 LATTICE_CELLS), the latter's.
    """
    p0 = origin + np.rint((u - origin) / step) * step
    q = p0 if p0 >= u else p0 + step
    if fine_lattice(xi, sigma, step, jmax):
        fine_corrections(u, xi, sigma, step, p0, q, jmax, corr)
    else:
        cell_corrections(u, xi, sigma, step, p0, q, jmax, m1, scratch, corr)


@njit(**_OPTS)
def fine_lattice(xi, sigma, step, jmax):
    """True where :func:`fine_corrections` stands in for the sum over the cells: the
    tail's scale sigma spans at least :data:`FINE_CELLS` steps and, where the tail has
    an end (``xi < 0``), the best of ``jmax`` draws is spread over enough cells below
    it, ``jmax (-xi step / sigma)^(-1/xi) <= END_SHARE``."""
    if not sigma >= FINE_CELLS * step:
        return False
    return xi >= 0.0 or jmax * math.exp(-math.log(-xi * step / sigma) / xi) <= END_SHARE


@njit(**_OPTS)
def cell_corrections(u, xi, sigma, step, p0, q, jmax, m1, scratch, corr):
    """:func:`lattice_corrections` summed over the cells (``p0 = snap(u)``, ``q`` the
    first lattice point at or above u).

    The sum runs over the cells until ``S_j`` is below 1e-15 for every j, over at
    most :data:`LATTICE_CELLS` cells; the rest of it, where ``j (1 - G) < 0.01`` at
    the last cell's end ``x``, is the integral of ``S_j`` beyond ``x`` (the midpoint
    rule, right where ``S_j`` is smooth over a cell), ``sigma (j w^(1 - 1/xi) / (1 -
    xi) - j (j - 1) / 2 w^(1 - 2/xi) / (2 - xi))`` with ``w = 1 + xi (x - u) / sigma``
    (two terms of ``1 - G^j``'s expansion in ``1 - G``). Where ``j (1 - G)`` is larger
    (a lattice fine beside a long tail), the mean is ``u + integral_u^inf S_j``
    instead, the integral up to the same end by Simpson's rule on half-cells and the
    rest of sum and integral left out: they cancel where ``S_j`` is smooth over a
    cell, as it is on such a lattice. ``scratch`` is (3, 4 + 2 LATTICE_CELLS): the
    points, the sum's weights and the sum's and integral's.
    """
    xs_, we, ws = scratch[0], scratch[1], scratch[2]
    # the integral's first piece [u, q] and its cells [q + (m - 1) step, q + m step]
    # (Simpson), and the edges: the first between u and q where q > p0, the others the
    # cells' midpoints
    xs_[0], ws[0], we[0] = u, -(q - u) / 6.0, 0.0
    xs_[1], ws[1], we[1] = 0.5 * (u + q), -4.0 * (q - u) / 6.0, 0.0
    xs_[2], ws[2], we[2] = q, -(q - u) / 6.0 - step / 6.0, 0.0
    t = 3
    if q > p0:
        xs_[t], ws[t], we[t] = gpd_cdf(p0 + 0.5 * step - u, xi, sigma), step, step
        t += 1
    converged = False
    for m in range(1, (xs_.shape[0] - 4) // 2 + 1):
        g = gpd_cdf(q + (m - 0.5) * step - u, xi, sigma)
        xs_[t], ws[t], we[t] = g, step - 4.0 * step / 6.0, step
        xs_[t + 1], ws[t + 1], we[t + 1] = q + m * step, -2.0 * step / 6.0, 0.0
        t += 2
        if jmax * (1.0 - g) < 1e-15:
            converged = True
            break
    ws[t - 1] += step / 6.0  # the last cell's right end is no other cell's left
    end = xs_[t - 1]
    rest = 1.0 - gpd_cdf(end - u, xi, sigma)
    w = 1.0 + xi * (end - u) / sigma
    r1 = sigma * math.exp((1.0 - 1.0 / xi) * math.log(w)) / (1.0 - xi) if w > 0.0 else 0.0
    r2 = sigma * math.exp((1.0 - 2.0 / xi) * math.log(w)) / (2.0 - xi) if w > 0.0 else 0.0
    tot_e = 0.0
    tot_s = 0.0
    # G at each point (the edges' is there already) where Simpson's rule is used; the
    # sum over the edges needs only the points of nonzero weight
    needs_simpson = not converged and jmax * rest >= 0.01
    ge, wc = np.empty(t), np.empty(t)
    e = 0
    for i in range(t):
        tot_e += we[i]
        tot_s += ws[i]
        if we[i] == 0.0 and needs_simpson:
            xs_[i] = gpd_cdf(xs_[i] - u, xi, sigma)
        if we[i] != 0.0:
            ge[e], wc[e] = xs_[i], we[i]
            e += 1
    # the edges' sum up to the first j where j * rest reaches 0.01, Simpson's rule from
    # there on (j * rest grows with j), its powers started at that j - 1
    first = jmax + 1
    if needs_simpson:
        first = 1
        while first * rest < 0.01:
            first += 1
    sums = np.empty(first - 1)
    _powers_dots(ge, wc, np.ones(e), e, sums)
    corr[0] = 0.0
    for j in range(1, first):
        tot = tot_e - sums[j - 1]
        if converged:
            corr[j] = p0 - u + tot - sigma * m1[j]
        else:
            corr[j] = p0 - u + tot + j * r1 - 0.5 * j * (j - 1) * r2 - sigma * m1[j]
    if first > jmax:
        return
    pw = np.empty(t)
    for i in range(t):
        pw[i] = xs_[i] ** (first - 1)
    sums = np.empty(jmax + 1 - first)
    _powers_dots(xs_, ws, pw, t, sums)
    for j in range(first, jmax + 1):
        corr[j] = p0 - u + tot_s - sums[j - first]


@njit(**_OPTS)
def fine_corrections(u, xi, sigma, step, p0, q, jmax, corr):
    """:func:`lattice_corrections` on a lattice fine beside the tail (:func:`fine_lattice`),
    from the cells near u and an Euler-Maclaurin end term.

    With ``a = q + step`` (a lattice point at least a step above u), the edges
    beyond a are the midpoints of the cells ``[a + (m - 1) step, a + m step]``, over
    which ``S_j`` is smooth, and the midpoint rule's Euler-Maclaurin expansion gives
    their sum times ``step`` less the integral of ``S_j`` beyond a: ``step^2 / 24
    S_j'(a) - 7 step^4 / 5760 S_j'''(a)``, the terms at the far end vanishing. The
    mean's integral beyond a cancels, so ``corr[j]`` is ``p0 - u`` plus ``step`` times
    the edges below a, less Simpson's rule for the integral of ``S_j`` over ``[u, q]``
    and ``[q, a]``, plus those two terms: six values of G, whatever the tail's length.
    Left out is the far end's own term where the tail is bounded (``S_j`` is not
    smooth at its end for ``xi < -1/3``), which :func:`fine_lattice` keeps small: up
    to about ``0.042 jmax (-xi step / sigma)^(-1/xi)`` steps (the most at xi = -1),
    below 1e-3 of a step where this path is taken; tests/test_lattice_tail.py holds
    the path to 1e-3 of a step of the sum over two million cells.
    """
    a = q + step
    c2, c4 = step * step / 24.0, 7.0 * step ** 4 / 5760.0
    # Simpson's rule on [u, q] and on [q, a], negated, the cell's midpoint q + step / 2
    # (an edge) also carrying the sum's step; the edge below q where q > p0
    w0, w1 = -(q - u) / 6.0, -4.0 * (q - u) / 6.0
    w2, w3, w4 = -(q - u) / 6.0 - step / 6.0, step - 4.0 * step / 6.0, -step / 6.0
    we = step if q > p0 else 0.0
    g0, g1 = gpd_cdf(0.0, xi, sigma), gpd_cdf(0.5 * (q - u), xi, sigma)
    g2, g3 = gpd_cdf(q - u, xi, sigma), gpd_cdf(q + 0.5 * step - u, xi, sigma)
    g4 = gpd_cdf(a - u, xi, sigma)
    ge = gpd_cdf(p0 + 0.5 * step - u, xi, sigma) if q > p0 else 0.0
    tot = w0 + w1 + w2 + w3 + w4 + we
    # the GPD's density at a and its first two derivatives
    z = 1.0 + xi * (a - u) / sigma
    d0 = math.exp((-1.0 / xi - 1.0) * math.log(z)) / sigma if z > 0.0 else 0.0
    d1 = -(1.0 + xi) / sigma * d0 / z if z > 0.0 else 0.0
    d2 = (1.0 + xi) * (1.0 + 2.0 * xi) / (sigma * sigma) * d0 / (z * z) if z > 0.0 else 0.0
    h0 = h1 = h2 = h3 = h4 = he = 1.0  # the powers G^j at the points
    a1, a2, a3 = 1.0, 0.0, 0.0  # G(a)^(j - 1), ^(j - 2), ^(j - 3) (0 before j reaches it)
    corr[0] = 0.0
    for j in range(1, jmax + 1):
        h0 *= g0
        h1 *= g1
        h2 *= g2
        h3 *= g3
        h4 *= g4
        he *= ge
        local = tot - (w0 * h0 + w1 * h1 + w2 * h2 + w3 * h3 + w4 * h4 + we * he)
        s1 = -j * a1 * d0
        s3 = -j * ((j - 1) * (j - 2) * a3 * d0 ** 3 + 3.0 * (j - 1) * a2 * d0 * d1 + a1 * d2)
        corr[j] = p0 - u + local + c2 * s1 - c4 * s3
        a3, a2, a1 = a2, a1, a1 * g4


@njit(**_OPTS)
def _powers_dots(g, w, pw, t, out):
    """``out[q]``: :func:`_powers_dot` called ``len(out)`` times in turn, the same bits.

    Four calls are made in one pass over the points, their four running
    sums each in one vector register (:func:`.lanes.four_powers`); the points
    beyond the last whole block of four go to the first sum, as in
    :func:`_powers_dot`.
    """
    J = out.shape[0]
    sums = np.empty(16)
    q = 0
    while q + 4 <= J:
        four_powers(g, w, pw, t // 4, sums)
        for i in range(t - t % 4, t):
            p = pw[i]
            for s in range(4):
                p *= g[i]
                sums[4 * s] += w[i] * p
            pw[i] = p
        for s in range(4):
            out[q + s] = (sums[4 * s] + sums[4 * s + 1]) + (sums[4 * s + 2] + sums[4 * s + 3])
        q += 4
    while q < J:
        out[q] = _powers_dot(g, w, pw, t)
        q += 1


@njit(**_OPTS)
def _powers_dot(g, w, pw, t):
    """``sum_i w[i] pw[i]`` over the first ``t`` points after ``pw[i] *= g[i]``.

    Four running sums in a fixed order: the sum is not one chain of
    dependent additions, and its rounding is the same on every CPU.
    """
    a0 = a1 = a2 = a3 = 0.0
    i = 0
    while i + 4 <= t:
        pw[i] *= g[i]
        pw[i + 1] *= g[i + 1]
        pw[i + 2] *= g[i + 2]
        pw[i + 3] *= g[i + 3]
        a0 += w[i] * pw[i]
        a1 += w[i + 1] * pw[i + 1]
        a2 += w[i + 2] * pw[i + 2]
        a3 += w[i + 3] * pw[i + 3]
        i += 4
    while i < t:
        pw[i] *= g[i]
        a0 += w[i] * pw[i]
        i += 1
    return (a0 + a1) + (a2 + a3)


@njit(**_OPTS)
def lattice_theta(xs, k, xi, sigma, step, origin, vwt, vend, bands, m1, m2, scratch, mean):
    """theta_n of the semiparametric model's draws rounded to the lattice ``origin + i
    step``, every n (``mean``).

    The model's theta_n (:func:`semiparametric_moments`) plus what rounding adds: on
    the body, each point's move to its lattice point; in the tail, for each number j
    of tail draws, :func:`lattice_corrections`, whose scratch ``scratch`` is.
    """
    B = xs.shape[0]
    semiparametric_moments(xs, k, xi, sigma, vwt, vend, bands, m1, m2, mean, mean, False)
    corr = m2  # the second moments are not needed here
    lattice_corrections(xs[B - k - 1], xi, sigma, step, origin, bands[0] + bands[1].shape[1] - 1,
                        m1, scratch, corr)
    for i in range(B - k):
        d = origin + np.rint((xs[i] - origin) / step) * step - xs[i]
        row = vwt[i]
        for a in range(vend[i]):
            mean[a] += row[a] * d
    band_sums(bands, corr, mean)


# --- the adaptive kernel mixture -----------------------------------------------------

@njit(**_OPTS)
def _normal_pdf(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


@njit(**_OPTS)
def adaptive_bandwidths(xs, h):
    """Abramson's local bandwidths ``h`` (B,) of the ascending sample ``xs``.

    The pilot bandwidth is Silverman's rule of thumb ``0.9 min(sd, IQR /
    1.349) B^(-1/5)`` (the SD alone when the quartiles tie); a sample
    without spread gets bandwidth 0.
    """
    B = xs.shape[0]
    mean = 0.0
    for i in range(B):
        mean += xs[i]
    mean /= B
    var = 0.0
    for i in range(B):
        var += (xs[i] - mean) ** 2
    sd = math.sqrt(var / (B - 1))
    iqr = (sorted_quantile(xs, 0.75) - sorted_quantile(xs, 0.25)) / 1.349
    spread = min(sd, iqr) if iqr > 0.0 else sd
    h0 = 0.9 * spread * B ** -0.2
    if not h0 > 0.0:
        h[:] = 0.0
        return
    logmean = 0.0
    for i in range(B):
        f = 0.0
        for j in range(B):
            f += _normal_pdf((xs[i] - xs[j]) / h0)
        h[i] = f / (B * h0)
        logmean += math.log(h[i])
    g = math.exp(logmean / B)
    for i in range(B):
        h[i] = h0 * math.sqrt(g / h[i])


@njit(**_OPTS)
def sorted_quantile(a, p):
    """Linear (type 7) quantile of the ascending array ``a``."""
    pos = p * (a.shape[0] - 1)
    j = int(pos)
    if j + 1 >= a.shape[0]:
        return a[-1]
    return a[j] + (pos - j) * (a[j + 1] - a[j])


@njit(**_OPTS)
def mixture_theta(xs, h, ns, out):
    """theta_n of the kernel mixture ``(1/B) sum N(x_i, h_i^2)`` at every n of ``ns``.

    ``theta_n = b - integral_a^b F(x)^n dx`` over ``[a, b]`` reaching
    ``_REACH`` bandwidths beyond every kernel, by Simpson's rule on
    ``_GRID`` nodes.
    """
    B = xs.shape[0]
    a = np.inf
    b = -np.inf
    for i in range(B):
        a = min(a, xs[i] - _REACH * h[i])
        b = max(b, xs[i] + _REACH * h[i])
    if not b > a:  # no spread: a point mass
        for j in range(ns.shape[0]):
            out[j] = xs[0]
        return
    step = (b - a) / (_GRID - 1)
    cdf = np.empty(_GRID)
    for g in range(_GRID):
        x = a + g * step
        s = 0.0
        for i in range(B):
            s += math.erfc(-(x - xs[i]) / (h[i] * math.sqrt(2.0)))
        cdf[g] = min(0.5 * s / B, 1.0)
    for j in range(ns.shape[0]):
        n = ns[j]
        s = 0.0
        for g in range(_GRID):
            w = 1.0 if g == 0 or g == _GRID - 1 else (4.0 if g % 2 else 2.0)
            s += w * cdf[g] ** n
        out[j] = b - s * step / 3.0


@njit(**_OPTS)
def draw_mixture(st, xs, h, out):
    """An ascending sample of ``len(out)`` draws from the kernel mixture."""
    B = xs.shape[0]
    s0, s1, s2, s3 = st[0], st[1], st[2], st[3]  # the state in scalars (see .rng)
    for i in range(out.shape[0]):
        u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        z, s0, s1, s2, s3 = normal_state(s0, s1, s2, s3)
        j = below(u, B)
        out[i] = xs[j] + h[j] * z
    st[0], st[1], st[2], st[3] = s0, s1, s2, s3
    sort_inplace(out)
