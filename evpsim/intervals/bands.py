"""Simultaneous confidence bands for the CDF of the scores, from B of them.

A band ``L_i <= F(x) <= U_i`` on each gap ``[x_(i), x_(i+1))`` between the
order statistics (``i = 0..B``) holds for every x at once with probability
at least ``level``; :mod:`evpsim.intervals` turns it into intervals for the
expected maximum at every n. Four bands:

``dkw``
    ``ECDF +- sqrt(log(2 / alpha) / (2 B))`` (Dvoretzky-Kiefer-Wolfowitz
    with Massart's constant): valid for every F, slightly conservative.
``ks``
    ``ECDF +- d``, d the exact two-sided Kolmogorov-Smirnov critical value.
``ld-equal-tailed``, ``ld-highest-density``
    Learned-Miller and DeStefano (2008) [1]_: ``F(x_(i)) = U_(i)``, the i-th
    order statistic of B uniforms, is Beta(i, B + 1 - i); take for each i
    the equal-tailed (or highest-density) interval of that Beta at one
    pointwise level c, with c raised until the B intervals hold at once
    with probability ``level``. The band is then narrow where the order
    statistics are precise, near the ends, where DKW and KS are widest.

The LD bands are calibrated deterministically: the simultaneous coverage
of bounds on uniform order statistics is computed exactly
(:func:`evpsim._kernels.bands.order_statistic_coverage`), and c is found
by Brent's method to 1e-12, so the band depends only on (B, level).
opda (Lourie et al. 2024 [2]_) calibrates the same bands by simulating 100,000
samples, which leaves about 1e-4 of seed-to-seed noise in them.

References
----------
.. [1] E. Learned-Miller and J. DeStefano, "A probabilistic upper bound on
       differential entropy", IEEE Trans. Inf. Theory 54 (2008).
.. [2] N. Lourie, K. Cho and H. He, "Show Your Work with Confidence:
       Confidence Bands for Tuning Curves", NAACL 2024.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import _validate as check
from .._kernels import bands as _K
from ..engine.montecarlo import Job
from ..engine.streams import coverage_streams
from .kind import Kind

__all__ = ["dkw_band", "ks_band", "ld_band", "ld_upper_band", "LD_KINDS", "BAND"]

#: the two pointwise intervals of the LD bands
LD_KINDS = ("equal-tailed", "highest-density")
_TOL = 1e-12


def _constant_band(B, epsilon):
    ecdf = np.arange(B + 1) / B
    return np.clip(ecdf - epsilon, 0.0, 1.0), np.clip(ecdf + epsilon, 0.0, 1.0)


def dkw_band(B, level):
    """DKW band ``ECDF +- sqrt(log(2 / alpha) / (2 B))`` (Massart 1990).

    Parameters
    ----------
    B : int
        Sample size.
    level : float
        Simultaneous coverage, in (0, 1).

    Returns
    -------
    lower, upper : (B + 1,) arrays
        CDF bounds on ``[x_(i), x_(i+1))``, i = 0..B.

    Notes
    -----
    Massart's inequality ``P(sup |F_B - F| > eps) <= 2 exp(-2 B eps^2)``
    holds for every F, continuous or not, so the band covers with
    probability at least ``level`` (a little more in practice).

    Examples
    --------
    >>> lower, upper = dkw_band(50, 0.95)
    >>> round(float(upper[0]), 4)
    0.1921
    """
    return _constant_band(B, math.sqrt(math.log(2.0 / (1.0 - level)) / (2.0 * B)))


def ks_band(B, level):
    """Kolmogorov-Smirnov band ``ECDF +- d``, ``d`` the exact critical value.

    ``d`` is the ``level`` quantile of the two-sided KS statistic for sample
    size B (``scipy.stats.kstwo``): coverage exactly ``level`` for a
    continuous F, at least ``level`` for a discrete one. Same layout as
    :func:`dkw_band`.

    Examples
    --------
    >>> lower, upper = ks_band(50, 0.95)
    >>> round(float(upper[0]), 4)
    0.1884
    """
    from scipy import stats

    return _constant_band(B, float(stats.kstwo(B).ppf(level)))


def _equal_tailed(a, b, c):
    """Equal-tailed ``c`` intervals of Beta(a, b), each tail from its own side."""
    from scipy.special import betaincinv

    tail = 0.5 * (1.0 - c)
    return betaincinv(a, b, tail), 1.0 - betaincinv(b, a, tail)


def _log_density(x, a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a - 1) * np.log(x) + (b - 1) * np.log1p(-x)


def _highest_density(a, b, c):
    """Shortest ``c`` intervals of Beta(a, b) (a + b > 2).

    The lower tail mass ``t`` in ``[0, 1 - c]`` sets both ends, ``x_(t)``
    and the point with upper tail ``1 - c - t``; the density at the lower
    end rises with t and at the upper end falls, so the t where they meet
    is found by bisection (56 halvings: the tail masses to 1e-17 of
    ``1 - c``). Beta(1, b) and Beta(a, 1) are monotone: their intervals
    reach 0 and 1.
    """
    from scipy.special import betaincinv

    alpha = 1.0 - c
    t_lo, t_hi = np.zeros_like(a, dtype=float), np.full_like(a, alpha, dtype=float)
    for _ in range(56):
        t = 0.5 * (t_lo + t_hi)
        x, y = betaincinv(a, b, t), 1.0 - betaincinv(b, a, alpha - t)
        rising = _log_density(x, a, b) < _log_density(y, a, b)
        t_lo, t_hi = np.where(rising, t, t_lo), np.where(rising, t_hi, t)
    t = 0.5 * (t_lo + t_hi)
    t = np.where(a <= 1, 0.0, np.where(b <= 1, alpha, t))
    return betaincinv(a, b, t), 1.0 - betaincinv(b, a, alpha - t)


def _pointwise(B, c, kind):
    i = np.arange(1, B + 1, dtype=float)
    a, b = i, B + 1.0 - i
    if kind == "equal-tailed" or B == 1:
        return _equal_tailed(a, b, c)
    return _highest_density(a, b, c)


@functools.lru_cache(maxsize=256)
def _ld_bounds(B, level, kind):
    from scipy.optimize import brentq

    from .._kernels.bands import order_statistic_coverage

    def miss(log_alpha):  # pointwise level c = 1 - exp(log_alpha)
        lo, hi = _pointwise(B, -math.expm1(log_alpha), kind)
        lo, hi = np.maximum.accumulate(lo), np.minimum.accumulate(hi[::-1])[::-1]
        return order_statistic_coverage(lo, hi) - level

    # the pointwise level lies between the band's level and 1 - alpha / B**2
    upper = math.log1p(-level)
    lower = upper - 2.0 * math.log(B) - 5.0
    log_alpha = brentq(miss, lower, upper, xtol=_TOL, rtol=4 * np.finfo(float).eps)
    lo, hi = _pointwise(B, -math.expm1(log_alpha), kind)
    lower = np.concatenate([[0.0], np.maximum.accumulate(lo)])
    upper = np.concatenate([np.minimum.accumulate(hi[::-1])[::-1], [1.0]])
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def ld_band(B, level, kind="equal-tailed"):
    """Learned-Miller-DeStefano band, calibrated exactly.

    Parameters
    ----------
    B : int
        Sample size (at least 1).
    level : float
        Simultaneous coverage, in (0, 1).
    kind : {"equal-tailed", "highest-density"}
        The pointwise Beta intervals.

    Returns
    -------
    lower, upper : (B + 1,) arrays
        CDF bounds on ``[x_(i), x_(i+1))``, i = 0..B: ``lower[i]`` bounds
        ``U_(i)`` from below (``lower[0] = 0``), ``upper[i]`` bounds
        ``U_(i+1)`` from above (``upper[B] = 1``).

    Notes
    -----
    For a continuous F the band holds with probability ``level`` to 1e-12;
    for a discrete F, with at least ``level``.

    Examples
    --------
    >>> lower, upper = ld_band(50, 0.95)
    >>> round(float(upper[0]), 4), round(float(lower[-1]), 4)
    (0.1222, 0.8778)
    """
    B = check.B(B, minimum=1)
    level = check.level(level)
    kind = check.choice(kind, "kind", LD_KINDS)
    check.check_memory(64 * B, f"an LD band for B = {B:,}", "B")
    lower, upper = _ld_bounds(B, level, kind)
    return lower.copy(), upper.copy()


@functools.lru_cache(maxsize=256)
def _ld_upper(B, level):
    from scipy.optimize import brentq
    from scipy.special import betaincinv

    from .._kernels.bands import order_statistic_coverage

    i = np.arange(1, B + 1, dtype=float)
    zeros = np.zeros(B)

    def bounds(log_alpha):  # one-sided pointwise level c = 1 - exp(log_alpha)
        return betaincinv(i, B + 1.0 - i, -math.expm1(log_alpha))

    def miss(log_alpha):
        return order_statistic_coverage(zeros, bounds(log_alpha)) - level

    upper = math.log1p(-level)
    log_alpha = brentq(miss, upper - math.log(B) - 5.0, upper, xtol=_TOL,
                       rtol=4 * np.finfo(float).eps)
    return np.clip(np.concatenate([bounds(log_alpha), [1.0]]), 0.0, 1.0)


def ld_upper_band(B, level):
    """One-sided Learned-Miller-DeStefano upper bounds on the CDF, calibrated exactly.

    ``F(x) <= upper[i]`` on every gap ``[x_(i), x_(i+1))`` at once, with
    probability ``level`` for a continuous F (at least ``level`` for a
    discrete one): ``upper[i]`` is the one-sided pointwise ``c`` quantile
    of ``U_(i+1)`` ~ Beta(i + 1, B - i), c raised until all B hold at once
    (computed exactly, as for :func:`ld_band`). A larger CDF means a
    smaller expected maximum, so ``hi - sum gap_i upper_i^n`` is a lower
    bound on theta_n at every n at once that assumes nothing about the
    distribution but its lower end (the first gap, ``x_(1) - lo``): the
    upper end ``hi`` cancels, as ``upper[B] = 1``.

    Parameters
    ----------
    B : int
        Sample size (at least 1).
    level : float
        Simultaneous coverage, in (0, 1).

    Returns
    -------
    (B + 1,) array

    Examples
    --------
    >>> upper = ld_upper_band(50, 0.95)
    >>> round(float(upper[0]), 4), float(upper[-1])
    (0.1081, 1.0)
    """
    B = check.B(B, minimum=1)
    level = check.level(level)
    check.check_memory(64 * B, f"an LD band for B = {B:,}", "B")
    return _ld_upper(B, level).copy()


# --- the band kind of CI method --------------------------------------------------------

def band_arrays(name, band, B, level):
    """Validated ``(lower, upper)`` CDF bounds of the band method ``name``."""
    lower, upper = (np.asarray(a, dtype=float) for a in band(B, level))
    if lower.shape != (B + 1,) or upper.shape != (B + 1,):
        raise ValueError(f"band {name!r} for B={B} returned shapes {lower.shape}, "
                         f"{upper.shape}; expected ({B + 1},) each")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
            and np.all((0 <= lower) & (lower <= upper) & (upper <= 1))):
        raise ValueError(f"band {name!r} must satisfy 0 <= lower <= upper <= 1")
    return lower, upper


def band_bounds(bands, B, level):
    """Lower and upper CDF bounds (nband, B + 1) of band methods."""
    arrays = [band_arrays(m.name, m.band, B, level) for m in bands]
    return np.array([a[0] for a in arrays]), np.array([a[1] for a in arrays])


def curve_intervals(xs, lo, hi, lowers, uppers, target, ns):
    """Intervals (nband, N, 2) for the curve ``target`` at the budgets ``ns`` from CDF
    bounds (nband, B + 1) on the ascending sample ``xs`` with known range ``[lo, hi]``.

    The expected maximum's come from every budget up to the largest, then
    are read at ``ns``; a quantile curve's from its quantile levels at ``ns``.
    """
    if target.kind == "quantile":
        ivs = np.empty((lowers.shape[0], ns.size, 2))
        _K.band_quantile_intervals(xs, lo, hi, lowers, uppers, target.q ** (1.0 / ns), ivs)
        return ivs
    ivs = np.empty((lowers.shape[0], int(ns.max()), 2))
    _K.band_intervals(xs, lo, hi, lowers, uppers, ivs)
    return ivs[:, ns - 1]


class BandKind(Kind):
    """Distribution-free bands on the CDF turned into intervals: they need the known
    range of the scores, use no estimator, and hold for every n at once."""

    name = "band"
    needs_bounds = True

    def builtins(self):
        """DKW, KS and the two Learned-Miller-DeStefano bands."""
        return [dict(name=name, description=desc, band=fn) for name, fn, desc in [
            ("dkw", dkw_band, "distribution-free: DKW band on the CDF, known score range"),
            ("ks", ks_band,
             "distribution-free: exact Kolmogorov-Smirnov band on the CDF, known range"),
            ("ld-equal-tailed", functools.partial(ld_band, kind="equal-tailed"),
             "distribution-free: Learned-Miller-DeStefano band, equal-tailed Beta intervals"),
            ("ld-highest-density", functools.partial(ld_band, kind="highest-density"),
             "distribution-free: Learned-Miller-DeStefano band, highest-density Beta "
             "intervals")]]

    def user(self, name, band):
        """The fields of the user's band ``name``, ``band(B, level) -> (lower, upper)``,
        tried as ``band(5, 0.95)``."""
        try:
            band_arrays(name, band, 5, 0.95)
        except (Exception, SystemExit) as err:
            raise check.InvalidArgument("band", f"band(5, 0.95) fails: {err}") from None
        return dict(band=band)

    def prepare(self, methods, setup):
        """The bands' CDF bounds for B at the level."""
        return band_bounds(methods, setup.B, setup.level)

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The same intervals for every estimator: bands do not use it."""
        lo, hi = sample.bounds
        ivs = curve_intervals(sample.xs, lo, hi, *prepared, setup.target, setup.ns)
        for g, col in enumerate(cols):
            limits.lower[:, col] = ivs[g, :, 0]
            limits.upper[:, col] = ivs[g, :, 1]

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job for every band (its tallies, E = 1, broadcast over the estimators)."""
        ns, target = setup.ns, setup.target
        return [(Job(_K.coverage_band_chunks,
                     (setup.B, sampler, *bounds, *prepared, theta, ns - 1,
                      target.q ** (1.0 / ns) if target.kind == "quantile" else np.empty(0)),
                     coverage_streams()), methods)]


#: the band kind
BAND = BandKind()
