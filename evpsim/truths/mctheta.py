"""Monte Carlo estimates of a truth's EVP, the way the papers computed theirs.

Tang et al. (2020) and Dodge et al. (2021) compared estimators with an
average of simulated maxima rather than the exact theta_n;
:func:`monte_carlo_theta` computes that average, so that the batteries can
show what the approximation changes.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from .._kernels import comparisons as K
from ..engine.montecarlo import CHUNK_SIZE, Job, MonteCarlo, run
from ..engine.streams import truth_streams
from ..engine.summaries import summarise_power_sums
from .distributions import make_truth

__all__ = ["monte_carlo_theta", "theta_by_simulation", "TRUTH_METHODS"]

#: how a battery obtains theta_n: exactly, or as :func:`monte_carlo_theta`
TRUTH_METHODS = ("exact", "mc")


def monte_carlo_theta(truth, B, *, replicates=1_000_000, seed=0, stream=0, workers=1,
                      chunk_size=CHUNK_SIZE):
    """Monte Carlo estimate of ``theta_n`` for n = 1..B, with standard errors.

    Each replicate draws B scores i.i.d. from the truth; the running maximum
    of the first n is a draw of the maximum of n, so one pass serves every n
    (as Dodge et al. 2021 §3.1 averaged maxima of simulated draws).

    Parameters
    ----------
    truth : str or Truth
        Ground truth (:func:`evpsim.make_truth`).
    B : int
        Largest budget (at least 1).
    replicates : int
        Simulated sequences of B draws (at least 2).
    seed : int
        Seed.
    stream : int
        Index of this run among the Monte Carlo truths of one seed
        (0..1023); different indices give independent estimates.
    workers : int
        Worker processes; the result does not depend on it.
    chunk_size : int
        Replicates per chunk.

    Returns
    -------
    theta, se : ndarray of shape (B,)
        Estimates and their standard errors.

    Examples
    --------
    >>> import evpsim
    >>> theta, se = evpsim.monte_carlo_theta("normal", 5, replicates=20_000)
    >>> bool(abs(theta - evpsim.make_truth("normal").theta(range(1, 6))).max() < 5 * se.max())
    True
    """
    truth = make_truth(truth)
    B = check.B(B, minimum=1)
    first = truth_streams(stream)
    return theta_by_simulation(truth, B, MonteCarlo(replicates, seed, chunk_size, workers),
                               first)


def theta_by_simulation(truth, B, options, stream0):
    """:func:`monte_carlo_theta` for validated arguments and a first stream."""
    centers = truth.theta(np.arange(1, B + 1))  # accumulate around it: no cancellation
    job = Job(K.running_max_chunks, (B, truth.sampler, centers), stream0)
    (sums,) = run([job], options, f"Monte Carlo truth ({options.replicates:,} maxima)")
    summ = summarise_power_sums(sums, options.replicates)
    return centers + summ["bias"], summ["bias_se"]
