"""The oracle interval: the width an interval would have if it knew the estimator's true law.

For an estimator of theta_n (or of the quantile curve tau_q(n)) on searches of
B trials from a truth, the interval ``[est - q_hi, est - q_lo]``, with
``q_lo`` and ``q_hi`` the ``(1 - level) / 2`` and ``(1 + level) / 2``
quantiles of ``est - theta_n`` over the truth's searches, covers exactly
``level``: no interval built from the sample alone can be expected to be
narrower while it covers. The intervals study and the self-check set
every interval's width beside this one's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["oracle_widths"]


def oracle_widths(truth, B, estimators, ns, count, seed, curve="mean", level=0.95):
    """(E, N): the width of the oracle interval of each estimator at each budget.

    Parameters
    ----------
    truth : Truth
        The truth the searches are drawn from.
    B : int
        Trials per search.
    estimators : sequence
        L-statistic estimators of ``curve`` (names or Estimators).
    ns : array_like of int
        The budgets.
    count : int
        Searches drawn (from the stream of searches of B trials,
        :func:`evpsim.engine.streams.search_streams`).
    seed : int
        Their seed.
    curve : str or Target
        The curve.
    level : float
        The interval's two-sided level.

    Returns
    -------
    (E, N) array
        The distance between the ``(1 + level) / 2`` and ``(1 - level) / 2``
        quantiles of ``est - truth``.
    """
    from ..engine.streams import search_streams
    from ..estimators.family import resolve_estimators
    from ..estimators.targets import as_target

    target = as_target(curve)
    ns = np.asarray(ns)
    xs = np.sort(truth.sample(count * B, seed=seed, stream=search_streams(B)).reshape(count, B),
                 axis=1)
    exact = target.exact(truth, ns)
    alpha = 0.5 * (1.0 - level)
    out = []
    for e in resolve_estimators(estimators, target):
        q = np.quantile(xs @ e.weight_rows(B, ns, target).T - exact, [alpha, 1.0 - alpha],
                        axis=0)
        out.append(q[1] - q[0])
    return np.array(out)
