"""Every numba kernel of evpsim, and only here, one module per concern.

* :mod:`.rng`: seeding by ``(seed, chunk)`` and the xoshiro256** generator;
* :mod:`.sampling`: samplers of the ground truths, sorting;
* :mod:`.moments`: the bias battery's Monte Carlo kernels;
* :mod:`.orderstats`: exact order-statistic moments.

Shared numba options live in :mod:`.options`.
"""
