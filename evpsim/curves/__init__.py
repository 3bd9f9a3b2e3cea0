"""A researcher's own results: EVP curves with intervals, budgets, models compared.

* :mod:`.curve`: ``curve`` (every estimator and CI method on one's searches),
  ``evp_curve``, ``budget_to_reach``, ``share_ahead``;
* :mod:`.runs`: ``runs_curve`` (a search run with several seeds: the mean and
  median best-so-far curves with intervals across runs, searches compared),
  ``runs_notes``.

May import: :mod:`evpsim.intervals` and everything below it; no study.
"""

from .curve import *  # noqa: F401,F403
from .curve import __all__ as _curve_all
from .runs import runs_curve, runs_notes  # noqa: F401

__all__ = [*_curve_all, "runs_curve", "runs_notes"]
