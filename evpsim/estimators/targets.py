"""What an EVP estimator estimates: the mean curve or a quantile curve.

Two curves describe the best score of n hyperparameter trials, both exact
for every truth and every n (also beyond any sample size):

* ``mean``: the expected validation performance ``theta_n = E[max of n
  draws]`` (Dodge et al. 2019; :meth:`evpsim.Truth.theta`);
* ``quantile:Q``: the quantile tuning curve ``tau_Q(n) = F^-1(Q^(1/n))``,
  the Q-quantile of the best of n draws (Lourie et al. 2024, "Show Your
  Work with Confidence"); ``median`` is ``quantile:0.5``
  (:meth:`evpsim.Truth.tau`).

Batteries measure bias, MSE, false conclusions and coverage against one of
them, and their result Datasets say which (scalar coordinate ``target``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _validate as check

__all__ = ["Target", "as_target", "MEAN", "TARGET_HELP"]

#: how a target is written, for help texts
TARGET_HELP = "mean (expected best of n), median, or quantile:Q with Q in (0, 1)"


@dataclass(frozen=True)
class Target:
    """A curve over n that estimators estimate.

    Attributes
    ----------
    kind : {"mean", "quantile"}
        The mean of the best of n draws, or one of its quantiles.
    q : float
        The quantile (NaN for the mean).
    """

    kind: str
    q: float = math.nan

    @property
    def name(self):
        """``"mean"`` or ``"quantile:Q"``; the ``target`` coordinate of results."""
        # the shortest text that reads back as q: 0.999999999 is not 1
        return "mean" if self.kind == "mean" else f"quantile:{self.q!r}"

    @property
    def symbol(self):
        """``"theta"`` or ``"tau"``, for tables."""
        return "theta" if self.kind == "mean" else "tau"

    @property
    def description(self):
        """The curve in words."""
        if self.kind == "mean":
            return "expected best score of n trials (the mean curve)"
        what = "median" if self.q == 0.5 else f"{self.q!r}-quantile"
        return f"{what} of the best score of n trials (the quantile curve)"

    def exact(self, truth, ns):
        """The truth's exact curve at budgets ``ns``."""
        return truth.theta(ns) if self.kind == "mean" else truth.tau(self.q, ns)

    def __str__(self):
        return self.name


MEAN = Target("mean")


def as_target(target):
    """A :class:`Target` from ``"mean"``, ``"median"``, ``"quantile:Q"`` or a Target.

    Examples
    --------
    >>> as_target("median")
    Target(kind='quantile', q=0.5)
    >>> as_target("quantile:0.9").name
    'quantile:0.9'
    """
    if isinstance(target, Target):
        return target
    if not isinstance(target, str):
        raise check.InvalidType("curve", f"curve must be a string ({TARGET_HELP}), got "
                                         f"{type(target).__name__}")
    text = target.strip().lower()
    if text == "mean":
        return MEAN
    if text == "median":
        return Target("quantile", 0.5)
    kind, _, value = text.partition(":")
    if kind == "quantile" and value:
        try:
            q = float(value)
        except ValueError:
            q = math.nan
        if 0.0 < q < 1.0:
            return Target("quantile", q)
        raise check.InvalidArgument("curve", f"curve {target!r}: the quantile must be a "
                                             f"number in (0, 1)")
    raise check.InvalidArgument("curve", f"curve must be {TARGET_HELP}; got {target!r}")
