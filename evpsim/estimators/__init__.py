"""What estimates it: the estimator family and its registry.

* :mod:`.family`: :class:`Estimator` (L-statistic weights, numba functions,
  Python functions: one family), its registry, ``estimate``;
* :mod:`.weights`: the weights of U, V, W and the quantile curve;
* :mod:`.targets`: the curve estimated (mean or a quantile);
* :mod:`.python_builtins`: the shipped Python estimators (naive, KDE plug-in);
* :mod:`.pyrun`: Python estimators run over simulated searches.

May import: :mod:`evpsim.truths`, :mod:`evpsim.engine`, :mod:`evpsim.io` and
the ground floor.
"""

from .family import *  # noqa: F401,F403
from .family import __all__
