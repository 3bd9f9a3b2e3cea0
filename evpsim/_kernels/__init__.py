"""Every numba kernel of evpsim, and only here, one module per concern.

* :mod:`.rng`: seeding by ``(seed, chunk)`` and the xoshiro256** generator;
* :mod:`.sampling`: samplers of the ground truths, sorting;
* :mod:`.moments`: the bias battery's Monte Carlo kernels;
* :mod:`.orderstats`: exact order-statistic moments;
* :mod:`.comparisons`: sign counts and paired A/B searches (false
  conclusions, model comparisons), sampling from finite pools;
* :mod:`.bootstrap`: bootstrap resamples by multinomial counts, quantiles
  by selection, CI coverage tallies;
* :mod:`.runs`: simulated runs of a search (random search, a local search
  over a pool), trial by trial, and their best-so-far curves;
* :mod:`.acrossruns`: intervals across runs of the mean and median
  best-so-far curves, and the runs battery's coverage tallies.

Shared numba options live in :mod:`.options`. Two rules keep a first run's
compilation short: kernels are serial (``nogil``; :mod:`evpsim.engine.threads`
runs their pieces side by side), and arrays are copied by loops, never by
slice assignment (``a[:] = b`` compiles its error message's string
formatting, seconds per dimensionality).
"""
