"""What is true: distributions whose expected validation performance is known.

* :mod:`.distributions`: the :class:`Truth` family (truncated normals, discrete
  and empirical distributions, quadrature) and ``make_truth``'s names;
* :mod:`.kde`: discretized KDE truths fitted to real searches;
* :mod:`.lattice`: a truth's draws rounded to a lattice (``lattice:STEP:SPEC``);
* :mod:`.exact`: exact order-statistic and L-statistic moments;
* :mod:`.mctheta`: the curve by simulation, where no exact value exists.

May import: :mod:`evpsim.engine`, :mod:`evpsim.io` and the ground floor.
"""

from .distributions import *  # noqa: F401,F403
from .distributions import __all__
