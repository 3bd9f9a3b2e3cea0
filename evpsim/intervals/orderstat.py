"""The order-statistic kind: exact intervals for a quantile curve, a tail only where needed.

The quantile curve ``tau_q(n) = F^-1(p)``, ``p = q^(1/n)``, is a quantile
of F, and a quantile has an interval between two order statistics whose
coverage holds for every continuous F: the count S of scores at or below
``F^-1(p)`` is Binomial(B, p), and ``[x_(l), x_(u)]`` covers exactly when
``l <= S <= u - 1`` (Thompson 1936 [1]_). :func:`ranks` chooses l and u
equal-tailed: each the closest to the centre whose binomial tail is at
most ``(1 - level) / 2``, so the coverage is at least ``level`` for every
continuous F (:func:`binomial_coverage` gives it exactly), and at least
it for a discrete one too, as ties only widen the interval (Scheffé &
Tukey 1945 [2]_). When ``p^B > (1 - level) / 2`` no order statistic lies high
enough (``u = B + 1``): with B = 50 for the median curve from n = 10 on.
There the lower end stays ``x_(l)`` and the upper end comes from a
generalized Pareto tail fitted to the best scores
(:mod:`evpsim._kernels.orderstat`), which :func:`tail_note` says.

The intervals do not use the estimator: like the bands, they are the same
for every estimator of the curve. The mean curve is beyond them (no
finite upper limit on a mean without a tail model: Bahadur & Savage 1956).

References
----------
.. [1] W. R. Thompson, "On confidence ranges for the median and other
       expectation distributions for populations of unknown distribution
       form", Ann. Math. Statist. 7 (1936).
.. [2] H. Scheffé and J. W. Tukey, "Non-parametric estimation. I.
       Validation of order statistics", Ann. Math. Statist. 16 (1945).
"""

from __future__ import annotations

import numpy as np

from .._kernels import orderstat as _O
from .._kernels.rng import rng_init
from .._kernels.tails import K_MIN
from ..engine.montecarlo import Job
from ..engine.streams import coverage_streams
from .kind import Kind

__all__ = ["ranks", "binomial_coverage", "tail_note", "ORDERSTAT"]


def ranks(B, ps, level):
    """Equal-tailed ranks ``(l, u)`` of the order statistics bounding each ``p``-quantile.

    Parameters
    ----------
    B : int
        Sample size.
    ps : (N,) array_like
        Probabilities in (0, 1).
    level : float
        Two-sided confidence level.

    Returns
    -------
    ls, us : (N,) int arrays
        The largest l with ``P(S <= l - 1) <= (1 - level) / 2`` (0: none)
        and the smallest u with ``P(S >= u) <= (1 - level) / 2`` (B + 1:
        none), S ~ Binomial(B, p); ranks count from 1.

    Examples
    --------
    The median of 20 scores lies between the 6th and the 15th with
    probability 0.959 (each tail 0.021):

    >>> ls, us = ranks(20, [0.5], 0.95)
    >>> int(ls[0]), int(us[0]), round(float(binomial_coverage(20, 0.5, ls[0], us[0])), 3)
    (6, 15, 0.959)
    """
    from scipy.stats import binom

    ps = np.asarray(ps, dtype=float)
    alpha = 0.5 * (1.0 - level)
    # scipy's inverses, then a step either way where its rounding missed the edge
    ls = np.clip(binom.ppf(alpha, B, ps), 0, B).astype(np.int64)  # first k: P(S <= k) >= a
    ls = np.where(binom.cdf(ls, B, ps) <= alpha, ls + 1, ls)
    ls = np.where((ls > 0) & (binom.cdf(ls - 1, B, ps) > alpha), ls - 1, ls)
    us = np.clip(binom.isf(alpha, B, ps), 0, B).astype(np.int64) + 1  # P(S >= u) <= a
    us = np.where((us > 1) & (binom.sf(us - 2, B, ps) <= alpha), us - 1, us)
    us = np.where(binom.sf(us - 1, B, ps) > alpha, us + 1, us)
    return ls, np.minimum(us, B + 1)


def binomial_coverage(B, p, l, u):
    """``P(l <= S <= u - 1)``, S ~ Binomial(B, p): the exact coverage of ``[x_(l),
    x_(u)]`` for the p-quantile of every continuous F (``l = 0``, ``u = B + 1``: that
    end always holds)."""
    from scipy.stats import binom

    return binom.cdf(np.asarray(u) - 1, B, p) - binom.cdf(np.asarray(l) - 1, B, p)


def tail_note(B, target, ns, level):
    """Where the upper end comes from the fitted tail, in a sentence, or ``""``.

    Examples
    --------
    >>> from evpsim.estimators.targets import as_target
    >>> tail_note(50, as_target("median"), np.arange(1, 51), 0.95)[:59]
    'n >= 10 (B = 50): no order statistic reaches far enough (it'
    """
    ns = np.asarray(ns)
    beyond = ns[ranks(B, target.q ** (1.0 / ns), level)[1] > B]
    if beyond.size == 0:
        return ""
    return (f"n >= {int(beyond.min())} (B = {B}): no order statistic reaches far enough (it "
            f"would pass the best score), so the end on the best scores' side comes from a "
            f"generalized Pareto tail fitted to them; the other end stays an order statistic")


class OrderStatisticKind(Kind):
    """Exact intervals between order statistics for a quantile curve (the same for every
    estimator), a fitted tail's upper end where the order statistics run out."""

    name = "order-statistic"
    by_default = False
    resamples = True
    refits = True
    curves = ("quantile",)

    def builtins(self):
        """``order-statistic``."""
        return [dict(name="order-statistic",
                     description="exact binomial interval between two order statistics for "
                                 "a quantile curve (any continuous F); a fitted tail's upper "
                                 "end where none reaches far enough",
                     source="Thompson 1936; Scheffe & Tukey 1945; David & Nagaraja 2003",
                     assumes="exact for every continuous distribution where two order "
                             "statistics bound it; beyond, its limits on the best scores' "
                             "side rest on a generalized Pareto tail fitted to them")]

    def memory(self, methods, setup, copies, width):
        """The tail's roots, ``copies`` samples in flight."""
        return 8 * copies * setup.ns.size * setup.resamples

    def prepare(self, methods, setup):
        """The probabilities ``q^(1/n)`` and their ranks ``(ls, us, ps)``."""
        ps = setup.target.q ** (1.0 / np.asarray(setup.ns, dtype=float))
        return (*ranks(setup.B, ps, setup.level), ps)

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The same intervals for every estimator: they do not use it."""
        lo, hi = (-np.inf, np.inf) if sample.bounds is None else sample.bounds
        ivs = np.empty((setup.ns.size, 2))
        _O.orderstat_intervals(rng_init(sample.seed, sample.stream), sample.xs, *prepared,
                               setup.resamples, setup.level, lo, hi, ivs)
        for col in cols:
            limits.lower[:, col] = ivs[:, 0]
            limits.upper[:, col] = ivs[:, 1]

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job (its tallies, E = 1, broadcast over the estimators)."""
        return [(Job(_O.coverage_orderstat_chunks,
                     (setup.B, sampler, *prepared, theta, setup.resamples, setup.level,
                      *bounds), coverage_streams()), methods)]

    def no_interval(self, method, xs):
        """Why the tail has no upper end for ``xs`` where it is needed, or ``""``."""
        if _O.has_tail(xs):
            return ""
        if xs.size < 2 * K_MIN:
            return f"its tail needs B >= {2 * K_MIN} scores (B = {xs.size})"
        return "its best scores are tied, leaving no tail to fit"

    def notes(self, method, B, target, ns, level):
        """:func:`tail_note`."""
        return tail_note(B, target, ns, level)


#: the order-statistic kind
ORDERSTAT = OrderStatisticKind()
