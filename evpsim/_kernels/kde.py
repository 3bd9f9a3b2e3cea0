"""Leave-one-out log-likelihood of a Gaussian KDE, for many bandwidths.

For bandwidth h, score i contributes ``log sum_{j != i} exp(-(x_i - x_j)^2
/ (2 h^2))`` (the constants are added by the caller). Each row's sum is
taken relative to its largest term (its nearest other score), so nothing
underflows; on the sorted scores the terms fall as j moves away from i,
and a row stops where they fall below the smallest subnormal number
(``exp(-746) == 0``), which leaves every sum exactly as the full one.
"""

import math

import numpy as np
from numba import njit

from .options import OPTS as _OPTS

_ZERO = 746.0  # exp(-x) is exactly 0 for x beyond this


@njit(**_OPTS)
def loo_log_kernel_sums(xs, hs):
    """``sum_i log sum_{j != i} exp(-(x_i - x_j)^2 / (2 h^2))`` for each h in ``hs``.

    ``xs`` must be sorted ascending, with at least two scores. A row whose
    every term underflows gives -inf.
    """
    n = xs.size
    nearest = np.empty(n)
    for i in range(n):
        left = xs[i] - xs[i - 1] if i > 0 else np.inf
        right = xs[i + 1] - xs[i] if i < n - 1 else np.inf
        nearest[i] = min(left, right)
    out = np.zeros(hs.size)
    for k in range(hs.size):
        h = hs[k]
        total = 0.0
        for i in range(n):
            c = nearest[i] / h
            top = 0.5 * c * c
            if not math.isfinite(top):
                total = -np.inf
                break
            s = 0.0
            for j in range(i - 1, -1, -1):
                d = (xs[i] - xs[j]) / h
                e = 0.5 * (d - c) * (d + c)
                if e > _ZERO:
                    break
                s += math.exp(-e)
            for j in range(i + 1, n):
                d = (xs[j] - xs[i]) / h
                e = 0.5 * (d - c) * (d + c)
                if e > _ZERO:
                    break
                s += math.exp(-e)
            total += math.log(s) - top
        out[k] = total
    return out
