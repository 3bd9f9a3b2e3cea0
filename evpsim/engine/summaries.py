"""From Monte Carlo tallies to reported numbers.

* :func:`summarise_power_sums`: moments (bias, variance, MSE) and their
  standard errors from power sums of estimation errors;
* :func:`clopper_pearson`: the exact binomial interval of every rate
  evpsim records (coverage, false-conclusion and ranking-error rates);
* :func:`add_rate`: a rate and its Clopper-Pearson bounds as Dataset
  variables.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check

__all__ = ["summarise_power_sums", "clopper_pearson", "add_rate"]


def summarise_power_sums(sums, M):
    """Moments and Monte Carlo standard errors from power sums of ``d``.

    Parameters
    ----------
    sums : (..., 4) array
        ``sum d, sum d^2, sum d^3, sum d^4`` with ``d = estimate - theta``.
    M : int
        Number of replicates (at least 2).

    Returns
    -------
    dict of arrays
        ``bias, variance, mse`` and their standard errors ``*_se`` (the
        standard error of the mean equals that of the bias).
    """
    m1, m2, m3, m4 = (sums[..., k] / M for k in range(4))
    c2 = np.maximum(m2 - m1 * m1, 0.0)
    c4 = np.maximum(m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4, 0.0)
    variance = c2 * M / (M - 1)
    return {
        "bias": m1,
        "bias_se": np.sqrt(variance / M),
        "variance": variance,
        "variance_se": np.sqrt(np.maximum(c4 - c2 * c2, 0.0) / M),
        "mse": m2,
        "mse_se": np.sqrt(np.maximum(m4 - m2 * m2, 0.0) / M),
    }


def clopper_pearson(k, n, level=0.95):
    """Clopper-Pearson (exact binomial) confidence interval for ``k / n``.

    Parameters
    ----------
    k : array_like of int
        Successes, ``0 <= k <= n`` (whole numbers; booleans, strings and
        fractions are refused).
    n : array_like of int
        Trials, at least 1; broadcast against ``k``.
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
    from scipy import stats

    k = check.counts(k, "k")
    n = check.counts(n, "n", minimum=1)
    level = check.level(level)
    try:
        np.broadcast_shapes(k.shape, n.shape)
    except ValueError:
        raise check.InvalidArgument("k", f"k of shape {k.shape} and n of shape {n.shape} do "
                                         f"not broadcast together") from None
    if np.any(k > n):
        raise check.InvalidArgument("k", "k must lie in 0..n")
    alpha = 1 - level
    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return lower, upper


def add_rate(ds, key, counts, total, level, dims, what, *, where=None):
    """Add the rate ``counts / total`` as ``key`` with bounds ``key_lower``, ``key_upper``.

    Parameters
    ----------
    ds : xarray.Dataset
        Receives the three variables.
    key : str
        Name of the rate.
    counts : int array
        Successes, with dimensions ``dims``.
    total : int
        Trials of every rate.
    level : float
        Level of the Clopper-Pearson bounds, recorded in their attributes.
    dims : tuple of str
        Dimensions of ``counts``.
    what : str
        What is counted, for the ``long_name``.
    where : bool array, optional
        Where the rate is defined; NaN elsewhere.
    """
    lower, upper = clopper_pearson(counts, total, level)
    rate = counts / total
    if where is not None:
        rate, lower, upper = (np.where(where, v, np.nan) for v in (rate, lower, upper))
    ds[key] = (dims, rate, {"long_name": f"rate of {what}"})
    ds[f"{key}_lower"] = (dims, lower, {"long_name": f"Clopper-Pearson {level:g} lower bound",
                                        "level": level})
    ds[f"{key}_upper"] = (dims, upper, {"long_name": f"Clopper-Pearson {level:g} upper bound",
                                        "level": level})
