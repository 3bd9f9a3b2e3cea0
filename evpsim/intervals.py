"""Confidence intervals for rates estimated by Monte Carlo.

:func:`clopper_pearson` gives the exact binomial interval used for every
rate evpsim records (coverage, false-conclusion and ranking-error rates).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["clopper_pearson"]


def clopper_pearson(k, n, level=0.95):
    """Clopper-Pearson (exact binomial) confidence interval for ``k / n``.

    Parameters
    ----------
    k : array_like of int
        Successes, ``0 <= k <= n``.
    n : array_like of int
        Trials, at least 1.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    lower, upper : ndarray
        Bounds with the shape of ``k`` broadcast against ``n``.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 10)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.3085)
    """
    k = np.asarray(k)
    n = np.asarray(n)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if np.any(n < 1):
        raise ValueError("n must be at least 1")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("k must lie in 0..n")
    alpha = 1 - level
    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return lower, upper
