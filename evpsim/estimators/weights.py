"""Weights of the L-statistic estimators, for any sample size and any budgets.

An L-statistic estimate is a weighted sum of the ascending order statistics
``x_(1) <= ... <= x_(B)``: ``est_n = sum_i w[n, i] x_(i)`` with
``w[n, i] = P_n(i) - P_n(i - 1)``, where ``P_n(k)`` is the probability that
the best of a size-n draw from the sample lies among its ``k`` smallest
points (U, V, W), or a single order statistic (the quantile plug-in).

========  =============================  ===========  =========================
name      ``P_n(k)``                     n beyond B   source
========  =============================  ===========  =========================
``V``     ``(k / B) ** n``               yes          Dodge et al. (2019)
``U``     ``C(k, n) / C(B, n)``          no           Tang et al. (2020)
``W``     ``C(k+n-1, n) / C(B+n-1, n)``  no           Dodge et al. (2021)
quantile  ``1{k >= k_q(n)}``             yes          Lourie et al. (2024)
========  =============================  ===========  =========================

Each function takes B and the budgets ``ns`` and returns a
``(len(ns), B)`` array, row ``j`` for budget ``ns[j]``, column ``i - 1`` for
the i-th smallest score. Weights are computed in log space from their
difference form, accurate for any B (tested to B = 10,000), never
overflowing.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

__all__ = ["weights_u", "weights_v", "weights_w", "weights_quantile", "quantile_index"]


def _normalise_rows(ws):
    # The exact rows sum to 1; dividing by the computed sum removes the
    # ~1e-11 relative drift that lgamma differences accumulate for large B.
    ws /= ws.sum(axis=1, keepdims=True)
    return ws


def _budgets(B, ns):
    return np.arange(1, B + 1) if ns is None else np.asarray(ns, dtype=np.int64)


def weights_v(B, ns=None):
    """Weights of V (plug-in ECDF, Dodge et al. 2019) for any budgets.

    ``w[n, i] = (i/B)^n - ((i-1)/B)^n``, evaluated as
    ``(i/B)^n * (1 - (1 - 1/i)^n)`` with ``expm1``/``log1p`` so that no
    cancellation occurs. Defined for every n: beyond B, V is the expected
    best of n draws from the sample's empirical distribution.
    """
    ns = _budgets(B, ns).astype(float)[:, None]
    i = np.arange(1, B + 1, dtype=float)[None, :]
    with np.errstate(divide="ignore"):
        tail = -np.expm1(ns * np.log1p(-1.0 / i))
        ws = np.exp(ns * np.log(i / B)) * tail
    return _normalise_rows(ws)


def _lchoose_table(N):
    """``lc(n, k)`` = log C(n, k) for 0 <= k <= n <= N, by table look-up."""
    lg = gammaln(np.arange(N + 1, dtype=float) + 1.0)

    def lc(n, k):
        return lg[n] - lg[k] - lg[n - k]

    return lc


def weights_u(B, ns=None):
    """Weights of U (unbiased, Tang et al. 2020): ``C(i-1, n-1) / C(B, n)``, n <= B."""
    lc = _lchoose_table(B)
    ns = _budgets(B, ns)[:, None]
    i = np.arange(1, B + 1)[None, :]
    valid = i >= ns
    logw = lc(np.where(valid, i - 1, ns - 1), ns - 1) - lc(B, ns)
    return _normalise_rows(np.where(valid, np.exp(logw), 0.0))


def weights_w(B, ns=None):
    """Weights of W (multisets, Dodge et al. 2021): ``C(i+n-2, n-1) / C(B+n-1, n)``."""
    ns = _budgets(B, ns)
    lc = _lchoose_table(B + int(ns.max(initial=1)))
    ns = ns[:, None]
    i = np.arange(1, B + 1)[None, :]
    logw = lc(i + ns - 2, ns - 1) - lc(B + ns - 1, ns)
    return _normalise_rows(np.exp(logw))


def quantile_index(B, ns, q):
    """0-based order statistic of the q-quantile plug-in at each budget.

    The smallest ``k`` with ``q**(1/n) <= F(x_(k))``, the empirical CDF
    computed as opda computes it (equal weights ``1/B``, cumulated and
    divided by their total), so that the estimate equals opda's
    ``EmpiricalDistribution(sample).quantile_tuning_curve(ns, q)`` on a
    sample without ties, and on one with ties but for exact ties of
    ``q**(1/n)`` with a step of the CDF.
    """
    cdf = np.cumsum(np.full(B, 1.0 / B))
    cdf /= cdf[-1]
    ps = q ** (1.0 / np.asarray(ns, dtype=float))
    return np.minimum(np.searchsorted(cdf, ps, side="left"), B - 1)


def weights_quantile(B, ns, q):
    """Weights of the q-quantile plug-in: one order statistic per budget."""
    ns = _budgets(B, ns)
    ws = np.zeros((ns.size, B))
    ws[np.arange(ns.size), quantile_index(B, ns, q)] = 1.0
    return ws
