"""The layout of the random streams: which experiment draws from which stream.

Every random number evpsim draws comes from the xoshiro256** stream
``(seed, s)`` of a stream index ``s`` below ``2**63``
(:func:`evpsim._kernels.rng.rng_init`). A job's chunks (or, in the coverage
battery, its replicates) use the consecutive streams ``stream0 + j``,
``j < MAX_CHUNKS``, of a family; the families of one seed are:

==========================================  ===========================================
stream ``s``                                 drawn by
==========================================  ===========================================
``j``                                        the bias battery's chunk ``j``; the coverage
                                             battery's replicate ``j``; the resamples of
                                             model ``j`` in :func:`evpsim.curve` (of
                                             one's own scores, by
                                             :func:`evpsim.bootstrap_intervals`)
``B * 2**32 + j``                            chunk ``j`` of searches of B trials in
                                             ``falseconc``, ``compare_curves`` and
                                             ``comparison_errors`` (the same B and seed
                                             give the same searches in all three)
``2**62 + k * 2**40 + j``                    chunk ``j`` of Monte Carlo truth number
                                             ``k`` (``k < 1024``)
``3 * 2**61 + (4 s + p) * 2**40 + j``        chunk ``j`` of part ``p`` (``p < 4``) of the
                                             runs battery's search number ``s``
                                             (``s < 16``): its coverage replicates, its
                                             oracle's, its Monte Carlo truth's
==========================================  ===========================================

Families that one experiment combines never overlap: searches of every
``2 <= B < 2**30`` lie between ``2**33`` and ``2**62``, Monte Carlo
truths above it, below ``2**62 + 2**50``, and the runs battery's parts
from ``3 * 2**61`` up to ``3 * 2**61 + 2**46``. The bias and coverage batteries share the first family:
they are separate experiments, never combined in one estimate; so does
:func:`evpsim.curve`, which simulates nothing and resamples fixed scores.
"""

from __future__ import annotations

from .. import _validate as check

__all__ = ["MAX_CHUNKS", "MAX_TRUTH_STREAMS", "bias_streams", "coverage_streams",
           "search_streams", "truth_streams", "runs_streams"]

#: chunks (or replicates) one family can hold
MAX_CHUNKS = 1 << 32
#: Monte Carlo truths of one seed
MAX_TRUTH_STREAMS = 1024
_SEARCH_SHIFT = 32
_MAX_SEARCH_B = 1 << 30
_TRUTH_BASE = 1 << 62
_TRUTH_SHIFT = 40
_RUNS_BASE = 3 << 61
#: the runs battery's parts of one search, and its searches
RUNS_PARTS, RUNS_SEARCHES = 4, 16


def bias_streams():
    """First stream of the bias battery's chunks."""
    return 0


def coverage_streams():
    """First stream of the coverage battery's replicates."""
    return 0


def search_streams(B):
    """First stream of the chunks of searches of ``B`` trials."""
    B = check.B(B, minimum=1)
    if B >= _MAX_SEARCH_B:
        raise check.InvalidArgument("B", f"B must be below {_MAX_SEARCH_B:,}, got {B:,}")
    return B << _SEARCH_SHIFT


def truth_streams(k):
    """First stream of the chunks of Monte Carlo truth number ``k``."""
    k = check.integer(k, "stream", minimum=0, maximum=MAX_TRUTH_STREAMS - 1)
    return _TRUTH_BASE + (k << _TRUTH_SHIFT)


def runs_streams(search, part):
    """First stream of part ``part`` of the runs battery's search number ``search``."""
    search = check.integer(search, "search", minimum=0, maximum=RUNS_SEARCHES - 1)
    part = check.integer(part, "part", minimum=0, maximum=RUNS_PARTS - 1)
    return _RUNS_BASE + ((RUNS_PARTS * search + part) << _TRUTH_SHIFT)
