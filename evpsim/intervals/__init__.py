"""How sure: the CI-method family (bootstrap, band and resampling kinds).

* :mod:`.family`: :class:`CIMethod`, its registry, ``bootstrap_intervals``,
  ``free_lower_bound``;
* :mod:`.bands`: distribution-free confidence bands (DKW, KS, Learned-Miller);
* :mod:`.resampling`: subsampling and m-out-of-n procedures.

May import: :mod:`evpsim.estimators`, :mod:`evpsim.truths`,
:mod:`evpsim.engine`, :mod:`evpsim.io` and the ground floor.
"""

from .family import *  # noqa: F401,F403
from .family import __all__
