"""Coverage tallies: one replicate's intervals against the true curve, counted.

Every kind of CI method tallies its coverage alike: per method,
estimator and budget, the intervals that cover the truth (:data:`HIT`),
miss it below or above, and the sum of their widths, in slots
``(..., NSLOTS)`` that a study sums over replicates.
"""

from numba import njit

from .options import OPTS as _OPTS

# slots of the per-chunk tallies
HIT, BELOW, ABOVE, WIDTH = 0, 1, 2, 3
NSLOTS = 4


@njit(**_OPTS)
def tally(acc, ivs, thetas, E, N):
    """Add one replicate's intervals (M, E * N, 2) at N budgets to ``acc`` (M, E, N + 1, 4).

    Rows ``n < N`` hold hits, misses below/above and the width sum of the
    n-th budget (theta ``thetas[n]``); row ``N`` slot ``HIT`` counts samples
    covered at every budget.
    """
    for m in range(ivs.shape[0]):
        for e in range(E):
            all_n = 1.0
            for n in range(N):
                k = e * N + n
                lo = ivs[m, k, 0]
                hi = ivs[m, k, 1]
                th = thetas[n]
                if lo <= th <= hi:
                    acc[m, e, n, HIT] += 1.0
                elif hi < th:
                    acc[m, e, n, BELOW] += 1.0
                    all_n = 0.0
                elif lo > th:
                    acc[m, e, n, ABOVE] += 1.0
                    all_n = 0.0
                else:  # undefined (NaN) interval
                    all_n = 0.0
                if lo == lo and hi == hi:
                    acc[m, e, n, WIDTH] += hi - lo
            acc[m, e, N, HIT] += all_n
