"""The m-out-of-n bootstrap with the ratio n/B kept, m and the rate chosen from the data.

Near n = B the estimators of theta_n are functions of a few top scores,
and the ordinary bootstrap of such a function is inconsistent: a resample
repeats the sample maximum with probability 1 - e^-1 (Bickel & Freedman
1981; Athreya & Fukuchi 1997). Resamples of m << B points rarely repeat
it, and their law, rescaled, is consistent in essentially every case the
ordinary bootstrap fails (Bickel, Goetze & van Zwet 1997). For the
budget n of a sample of B, the resample of m points is evaluated at the
budget ``n' = max(1, n m / B)`` (the ratio kept), and the root is

    T*_m - theta_n'(F_B),

theta_n'(F_B) being the expected best of n' draws from the sample's
empirical distribution (V at the real budget n', exactly). The root's law
at size B is taken to be the law at size m scaled by ``(m / B)^beta``: the
rate ``m^beta`` is estimated as in Bertail, Politis & Romano (1999), by
the least-squares slope of the log interquartile range of the root against
log m over the sizes tried. The interval is

    [est - (m / B)^beta q_{1 - alpha/2}, est - (m / B)^beta q_{alpha/2}].

The sizes tried are ``m_j = ceil(q^j B)``, q = :data:`Q`, down to
``max(5, sqrt(B))``; m is chosen as Bickel & Sakov (2008) do, the m_j
whose root law lies closest, in Kolmogorov-Smirnov distance, to the law
at m_{j+1}, the laws being compared after centring at their medians and
scaling by their interquartile ranges (the rate is unknown).

References
----------
.. [1] P. J. Bickel, F. Goetze and W. R. van Zwet, "Resampling fewer than
       n observations: gains, losses, and remedies for losses", Statistica
       Sinica 7 (1997).
.. [2] P. J. Bickel and A. Sakov, "On the choice of m in the m out of n
       bootstrap and confidence bounds for extrema", Statistica Sinica 18
       (2008).
.. [3] P. Bertail, D. N. Politis and J. P. Romano, "On subsampling
       estimators with unknown rate of convergence", J. Amer. Statist.
       Assoc. 94 (1999).
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS
from .tails import sorted_quantile

#: the ratio of successive resample sizes
Q = 0.75
#: the smallest resample size
M_MIN = 5
#: the rate exponent is kept in [0, BETA_MAX] (a uniform tail's maximum: 1)
BETA_MAX = 2.0


def sizes(B):
    """The resample sizes ``m_j = ceil(Q^j B)``, distinct, down to ``max(M_MIN, sqrt(B))``.

    Examples
    --------
    >>> sizes(50).tolist()
    [50, 38, 29, 22, 16, 12, 9]
    """
    floor = max(M_MIN, math.ceil(math.sqrt(B)))
    out = []
    j = 0
    while True:
        m = math.ceil(round(Q ** j * B, 9))
        if m < floor:
            break
        if not out or m != out[-1]:
            out.append(m)
        j += 1
    return np.array(out or [B], dtype=np.int64)


@njit(**_OPTS)
def ks_distance(a, b):
    """Kolmogorov-Smirnov distance between the empirical laws of ascending ``a``, ``b``."""
    na, nb = a.shape[0], b.shape[0]
    i = 0
    j = 0
    d = 0.0
    while i < na and j < nb:
        v = min(a[i], b[j])
        while i < na and a[i] <= v:
            i += 1
        while j < nb and b[j] <= v:
            j += 1
        d = max(d, abs(i / na - j / nb))
    return d


@njit(**_OPTS)
def rate_exponent(ms, iqrs):
    """beta of the rate ``m^beta``: minus the least-squares slope of log IQR on log m.

    Sizes whose root has no spread are left out; with fewer than two left,
    beta is 1/2 (the rate of a smooth statistic). Kept in ``[0, BETA_MAX]``.
    """
    sx = 0.0
    sy = 0.0
    sxx = 0.0
    sxy = 0.0
    cnt = 0
    for j in range(ms.shape[0]):
        if iqrs[j] > 0.0:
            x = math.log(ms[j])
            y = math.log(iqrs[j])
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
            cnt += 1
    if cnt < 2 or cnt * sxx - sx * sx <= 0.0:
        return 0.5
    return min(max(-(cnt * sxy - sx * sy) / (cnt * sxx - sx * sx), 0.0), BETA_MAX)


@njit(**_OPTS)
def column_interval(roots, ms, B, est, level, scratch, out):
    """The interval of one column from its roots ``roots`` (J, R) at the sizes ``ms``.

    ``roots`` is sorted in place along its rows; ``scratch`` is (2, R).
    ``out`` receives ``(lower, upper)``.
    """
    J, R = roots.shape
    alpha = 0.5 * (1.0 - level)
    meds = np.empty(J)
    iqrs = np.empty(J)
    for j in range(J):
        roots[j] = np.sort(roots[j])
        meds[j] = sorted_quantile(roots[j], 0.5)
        iqrs[j] = sorted_quantile(roots[j], 0.75) - sorted_quantile(roots[j], 0.25)
    beta = rate_exponent(ms, iqrs)
    chosen = 0
    best = np.inf
    for j in range(J - 1):
        if not (iqrs[j] > 0.0 and iqrs[j + 1] > 0.0):
            continue
        for r in range(R):
            scratch[0, r] = (roots[j, r] - meds[j]) / iqrs[j]
            scratch[1, r] = (roots[j + 1, r] - meds[j + 1]) / iqrs[j + 1]
        d = ks_distance(scratch[0], scratch[1])
        if d < best:
            best = d
            chosen = j
    scale = (ms[chosen] / B) ** beta
    out[0] = est - scale * sorted_quantile(roots[chosen], 1.0 - alpha)
    out[1] = est - scale * sorted_quantile(roots[chosen], alpha)
