"""The betting kind: intervals for the mean curve that hold at every sample size, given the range.

``betting`` bounds theta_n by betting against each candidate value
(Waudby-Smith & Ramdas 2024, :mod:`evpsim._kernels.betting`): at n = 1 the
mean of the scores, at larger n the mean of the maxima of ``floor(B / n)``
disjoint blocks of n scores. It assumes nothing but the metric's range,
so it holds for every distribution and every B, a point mass of failed
trials or a low tail that the sample never saw included; what it costs is
width, the more the fewer the blocks (``[lo, hi]`` beyond B / 2 ... B).
"""

from __future__ import annotations

import numpy as np

from .._kernels import betting as _BT
from .._kernels.rng import rng_init
from ..engine.montecarlo import Job
from ..engine.streams import coverage_streams
from .kind import Kind

__all__ = ["BETTING"]


class BettingKind(Kind):
    """Intervals by betting on the scores' (or their block maxima's) mean: the mean curve,
    a known range, no estimator."""

    name = "betting"
    by_default = False
    needs_bounds = True
    curves = ("mean",)

    def builtins(self):
        """``betting``."""
        return [dict(name="betting",
                     description="distribution-free: a betting interval (hedged capital) for "
                                 "the mean of the maxima of B // n disjoint blocks of n "
                                 "scores, known range; valid at every B",
                     source="Waudby-Smith & Ramdas 2024",
                     assumes="nothing beyond the metric's known range")]

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """The same intervals for every estimator: they do not use it."""
        lo, hi = sample.bounds
        ivs = np.empty((setup.ns.size, 2))
        _BT.betting_curve(rng_init(sample.seed, sample.stream), sample.xs, lo, hi,
                          np.asarray(setup.ns, dtype=np.int64), setup.level, ivs)
        for col in cols:
            limits.lower[:, col] = ivs[:, 0]
            limits.upper[:, col] = ivs[:, 1]

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """One job (its tallies, E = 1, broadcast over the estimators)."""
        return [(Job(_BT.coverage_betting_chunks,
                     (setup.B, sampler, *bounds, np.asarray(setup.ns, dtype=np.int64), theta,
                      setup.level), coverage_streams()), methods)]


#: the betting kind
BETTING = BettingKind()
