"""Exact moments of order statistics and of every L-statistic estimator.

With ``C(x) = #{x_j <= x} ~ Bin(B, F(x))``, the i-th order statistic is
``X_(i) = top - integral 1[C(x) >= i] dx``, so

* ``E[X_(i)] = top - integral P(C(x) >= i) dx``, and
* ``Cov(X_(i), X_(j)) = S_ij + S_ji`` with
  ``S_ij = double integral over x <= y of Cov(1[C(x) >= i], 1[C(y) >= j])``,
  where given ``C(x) = a``, ``C(y) - C(x) ~ Bin(B - a, (F(y) - F(x)) / (1 - F(x)))``.

A truth's :class:`~evpsim.truths.Quadrature` turns both integrals into
finite sums: exact for discrete truths (where the count process is walked
as a Markov chain over the support, O(K B^3)), composite Gauss-Legendre
over the triangle ``x <= y`` for continuous ones.
An L-statistic ``w . x_sorted`` then has mean ``w . mu`` and variance
``w Sigma w``, with no sampling error.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from .._kernels import orderstats as K
from ..engine.threads import map_threads

__all__ = ["order_statistic_means", "order_statistic_moments", "lstatistic_moments",
           "max_moments"]

_NBLOCKS = 16  # fixed pair blocks: the result does not depend on thread count
_CELLS = 1 << 22  # max_moments: (node or pair) x budget values held at once


def _truth_and_size(truth, B):
    """The truth and the sample size, validated."""
    from .distributions import make_truth

    try:
        B = check.B(B, minimum=1)
    except check.InvalidArgument as err:
        raise type(err)("B", f"B must be a positive integer, got {B!r}") from None
    return make_truth(truth), int(B)


def _means(q, B):
    """``E[X_(i:B)]`` from a quadrature."""
    return q.top - q.h @ K.order_stat_tails(B, q.F, q.S)  # tails: P(X_(i) <= x_q)


def order_statistic_means(truth, B):
    """Exact means ``E[X_(i:B)]`` of the order statistics, as
    :func:`order_statistic_moments` gives them, without the covariances
    (which cost far more at large B).

    Takes the same arguments as :func:`order_statistic_moments`; returns
    the (B,) array of means.
    """
    truth, B = _truth_and_size(truth, B)
    return _means(truth.quadrature(pairs=False, nmax=B), B)


def order_statistic_moments(truth, B):
    """Exact means and covariance matrix of the order statistics.

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.make_truth`).
    B : int
        Sample size, at least 1.

    Returns
    -------
    mu : (B,) ndarray
        ``E[X_(i:B)]``.
    sigma : (B, B) ndarray
        ``Cov(X_(i:B), X_(j:B))``.
    """
    truth, B = _truth_and_size(truth, B)
    check.check_memory(4 * 8 * B * B, f"the {B:,} x {B:,} covariance of the order statistics",
                       "B")
    q = truth.quadrature(pairs=True, nmax=B)
    mu = _means(q, B)
    if q.chain:
        live = (q.F > 1e-19) & (q.S > 1e-19)
        S = K.order_stat_chain_sums(B, q.h[live], q.F[live], q.S[live])
    else:
        S = _pair_sums(B, q)
    return mu, S + S.T


def _pair_sums(B, q):
    """:func:`~evpsim._kernels.orderstats.order_stat_pair_block` over all pairs.

    The pairs are split into fixed blocks, summed in order, so the result
    does not depend on the number of threads that run them.
    """
    P = q.pair_w.shape[0]

    def block(b):
        part = np.zeros((B, B))
        K.order_stat_pair_block(B, q.pair_Fx, q.pair_Sx, q.pair_Fy, q.pair_Sy, q.pair_w,
                                P * b // _NBLOCKS, P * (b + 1) // _NBLOCKS, part)
        return part

    total = np.zeros((B, B))
    for part in map_threads(block, range(_NBLOCKS)):
        total += part
    return total


def lstatistic_moments(truth, B, weights):
    """Exact mean and variance of L-statistics.

    Parameters
    ----------
    truth : str or Truth
    B : int
    weights : sequence of (R, B) arrays
        Finite weight rows, e.g. one (B, B) matrix per estimator.

    Returns
    -------
    means, variances : list of (R,) arrays
        One pair of arrays per entry of ``weights``.
    """
    if isinstance(weights, np.ndarray) and weights.ndim == 2:
        raise check.InvalidType("weights", "weights must be a sequence of (R, B) arrays, e.g. "
                                           "[w]; got one array")
    if isinstance(weights, (list, tuple)):
        weights = [check.unmasked(w, "weights") for w in weights]
    try:
        weights = [np.asarray(w, dtype=float) for w in weights]
    except (TypeError, ValueError):
        raise check.InvalidType("weights", "weights must be a sequence of (R, B) arrays of "
                                           "numbers") from None
    B = check.B(B, minimum=1)
    for w in weights:
        if w.ndim != 2 or w.shape[1] != B or not np.all(np.isfinite(w)):
            raise check.InvalidArgument("weights", f"weights must be finite (R, {B}) arrays, "
                                                   f"got one of shape {w.shape}")
    mu, sigma = order_statistic_moments(truth, B)
    means = [w @ mu for w in weights]
    variances = [np.maximum(np.einsum("ri,ij,rj->r", w, sigma, w), 0.0) for w in weights]
    return means, variances


def max_moments(truth, ns):
    """Exact mean and variance of the best of n i.i.d. draws, for each n.

    The best of the first n trials (the ``naive`` estimator) has mean
    ``theta_n`` (it is unbiased) and the variance of the maximum ``M`` of n
    draws. With ``M = top - integral 1[M <= x] dx`` and ``P(M <= x) =
    F(x)^n``,

        ``Var(M) = 2 double integral over x < y of F(x)^n (1 - F(y)^n) dx dy``,

    a sum of non-negative terms (nothing cancels), taken over the truth's
    :class:`~evpsim.truths.Quadrature`: exactly for a discrete truth (the
    integrand is constant between support points), by its composite
    Gauss-Legendre pairs for a continuous one (accurate to about 1e-11, as
    :func:`order_statistic_moments`).

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.make_truth`).
    ns : array_like of int
        Budgets, each at least 1 (any size: the truth knows every n).

    Returns
    -------
    means, variances : (len(ns),) ndarray
        ``E[max of n draws]`` (``truth.theta(ns)``) and its variance.

    Examples
    --------
    >>> import evpsim
    >>> from evpsim.truths.exact import max_moments
    >>> coin = evpsim.Discrete([0.0, 1.0], [0.5, 0.5])
    >>> means, variances = max_moments(coin, [1, 2])
    >>> means.tolist(), variances.tolist()   # P(M = 1) = 1/2, 3/4
    ([0.5, 0.75], [0.25, 0.1875])
    """
    from .distributions import make_truth

    truth = make_truth(truth)
    if ns is None:
        raise check.InvalidType("ns", "ns must be budgets (integers of at least 1), got None")
    ns = check.ns(ns, np.inf)
    q = truth.quadrature(pairs=True, nmax=int(ns.max()))
    size = q.h.size if q.chain else q.pair_w.size
    step = max(1, _CELLS // max(size, 1))
    variances = np.concatenate([_max_variances(q, ns[k:k + step].astype(float)[:, None])
                                for k in range(0, ns.size, step)])
    return truth.theta(ns), np.maximum(variances, 0.0)


def _max_variances(q, ns):
    """``Var(max of n draws)`` from a quadrature, for a column of budgets ``ns``."""
    def below(F):  # F^n: the maximum lies at or below the node
        return F[None, :] ** ns

    def above(S):  # 1 - F^n = 1 - (1 - S)^n, kept accurate where S is small
        with np.errstate(divide="ignore"):  # S = 1: log1p(-1) = -inf, and 1 - 0^n = 1
            return -np.expm1(ns * np.log1p(-S[None, :]))

    if not q.chain:
        return 2.0 * np.sum(q.pair_w[None, :] * below(q.pair_Fx) * above(q.pair_Sy), axis=1)
    # discrete: F is constant on each interval [s_k, s_k+1) of width h_k, so the
    # integral is a sum over interval pairs k < l, plus the half-square k = l
    ha, hb = q.h[None, :] * below(q.F), q.h[None, :] * above(q.S)
    earlier = np.cumsum(ha, axis=1) - ha  # sum over k < l of h_k F_k^n
    return np.sum(hb * (2.0 * earlier + ha), axis=1)
