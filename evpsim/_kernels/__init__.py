"""Every numba kernel of evpsim, and only here, one module per concern.

* :mod:`.rng`: seeding by ``(seed, chunk)`` and the xoshiro256** generator;
* :mod:`.sampling`: samplers of the ground truths, sorting;
* :mod:`.moments`: the bias battery's Monte Carlo kernels;
* :mod:`.orderstats`: exact order-statistic moments;
* :mod:`.comparisons`: sign counts and paired A/B searches (false
  conclusions, model comparisons), sampling from finite pools;
* :mod:`.resamples`: bootstrap resamples by multinomial counts, and an
  L-statistic's estimates on them read off a table of cumulative weights;
* :mod:`.quantiles`: quantiles of many values by selection;
* :mod:`.bootstrap`: the percentile, basic, BCa and users' bootstrap
  intervals of one sample, and their coverage;
* :mod:`.bands`: the CDF bands' exact coverage and the intervals they give;
* :mod:`.tallies`: coverage tallies, shared by every kind of CI method;
* :mod:`.bounded`: ``gpd-tail-bounded``, the tail method told the scores'
  range (failed trials at the floor, the tail's end at the top);
* :mod:`.betting`: betting intervals for the mean of bounded scores;
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
