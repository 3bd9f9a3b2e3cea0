"""How it runs, anywhere: the Monte Carlo kit and the sweeps that spread it.

* :mod:`.montecarlo`: jobs of numba kernels run in chunks, on threads or workers;
* :mod:`.streams`: the random streams every job draws from (counter-based);
* :mod:`.threads`: thread counts and maps over ranges;
* :mod:`.summaries`: means, standard errors and rates from Monte Carlo sums;
* :mod:`.registry`: named registries (estimators, CI methods) users extend;
* :mod:`.sweeps`: one study over a grid of cells, in process, on local workers
  or on a dask cluster, with a checkpoint store.

May import: :mod:`evpsim.io` and the ground floor. The studies a sweep runs
declare themselves (:func:`.sweeps.grid.register_battery`); the engine knows
no study, truth, estimator or CI method by name.
"""
