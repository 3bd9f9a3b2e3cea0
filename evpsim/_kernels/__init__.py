"""Every numba kernel of evpsim, and only here, one module per concern.

* :mod:`.rng`: seeding by ``(seed, chunk)`` and the xoshiro256** generator;
* :mod:`.sampling`: samplers of the ground truths, sorting;
* :mod:`.moments`: the bias battery's Monte Carlo kernels;
* :mod:`.orderstats`: exact order-statistic moments;
* :mod:`.comparisons`: sign counts and paired A/B searches (false
  conclusions, model comparisons), sampling from finite pools;
* :mod:`.bootstrap`: bootstrap resamples by multinomial counts, quantiles
  by selection, CI coverage tallies.

Shared numba options live in :mod:`.options`.
"""
