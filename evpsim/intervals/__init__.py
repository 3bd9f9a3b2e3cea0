"""How sure: the CI-method family (bootstrap, band, resampling,
order-statistic and calibrated kinds).

* :mod:`.family`: :class:`CIMethod`, its registry, the dispatch over the
  kinds (``plan_intervals``), ``bootstrap_intervals``, ``free_lower_bound``;
* :mod:`.kind`: the one interface every kind implements;
* :mod:`.bootstrap`: the ordinary bootstrap's methods (percentile, basic, BCa, users');
* :mod:`.bands`: distribution-free confidence bands (DKW, KS, Learned-Miller);
* :mod:`.resampling`: methods that draw their own resamples (bootstrap-t,
  smoothed, GPD tail, m-out-of-n);
* :mod:`.orderstat`: exact intervals between order statistics for a
  quantile curve;
* :mod:`.calibrated`: the GPD tail's interval at levels calibrated through
  its fitted model (prepivoting, the fast double bootstrap);
* :mod:`.runs`: intervals across runs (seeds) of a search, for the mean and
  median best-so-far curves, and the runs battery's coverage job.

Everything outside this package asks the family (this package or
:mod:`.family`), never a kind's module or a CI-method kernel, so that a new
kind touches this package alone.

May import: :mod:`evpsim.estimators`, :mod:`evpsim.truths`,
:mod:`evpsim.engine`, :mod:`evpsim.io` and the ground floor.
"""

from .bands import ld_band  # noqa: F401  (evpsim.ld_band)
from .family import *  # noqa: F401,F403
from .family import __all__
from .runs import (DEFAULTS, RUN_CI_METHODS, RUN_CURVES, best_so_far,  # noqa: F401,E402
                   coverage_job, order_index, resolve_run_methods, run_intervals,
                   unpack_tallies)
