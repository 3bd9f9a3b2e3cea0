"""A researcher's own results: EVP curves with intervals, budgets, models compared.

* :mod:`.curve`: ``curve`` (every estimator and CI method on one's searches),
  ``evp_curve``, ``budget_to_reach``, ``share_ahead``.

May import: :mod:`evpsim.intervals` and everything below it; no study.
"""

from .curve import *  # noqa: F401,F403
from .curve import __all__
