"""What every kind of CI method answers: the one interface of the family's peers.

A *kind* (bootstrap, band, resampling, ...) is one module of
:mod:`evpsim.intervals` holding one :class:`Kind`. The family
(:mod:`evpsim.intervals.family`) registers its methods, hands it the
estimators and the budgets once (a :class:`Setup`), and asks it, for its
own methods among those requested, to check them, to count their memory,
to prepare what they read (weight tables, band bounds, ...), and then for
intervals: on one sample (:meth:`Kind.intervals`) or on the simulated
samples of a coverage run (:meth:`Kind.coverage_jobs`). Studies and curves
only ever talk to the family, so that adding a kind touches this package
alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Kind", "Setup", "Sample", "Limits"]


@dataclass(frozen=True)
class Setup:
    """What every kind is prepared for: the estimators, the curve and its budgets.

    Attributes
    ----------
    ests : list of Estimator
        The estimators, in the order of the results.
    target : Target
        The curve (:mod:`evpsim.estimators.targets`).
    B : int
        Size of each sample.
    ns : (N,) int array
        The budgets.
    level : float
        Two-sided confidence level.
    resamples : int
        Resamples per sample.
    """

    ests: list
    target: object
    B: int
    ns: np.ndarray
    level: float
    resamples: int

    @property
    def lstatistics(self):
        """Positions of the L-statistics among :attr:`ests`."""
        return [k for k, e in enumerate(self.ests) if e.is_lstatistic]


@dataclass(frozen=True)
class Sample:
    """A researcher's own sample, and the draws its intervals use.

    Attributes
    ----------
    order : (B,) array
        The scores in the order the trials ran.
    xs : (B,) array
        The same, ascending.
    seed, stream : int
        The random stream ``(seed, stream)`` of the resamples.
    bounds : (float, float) or None
        Known range of the scores.
    counts : (E,) int array
        Resamples each estimator runs on (estimators that are not
        L-statistics may run on fewer).
    progress : bool
        A progress line while slow estimators run.
    """

    order: np.ndarray
    xs: np.ndarray
    seed: int
    stream: int
    bounds: tuple | None
    counts: np.ndarray
    progress: bool


@dataclass
class Limits:
    """The arrays one sample's intervals are written into.

    Attributes
    ----------
    lower, upper : (E, M, N) arrays
        Ends of the intervals, NaN where a method does not run.
    estimate : (E, N) array
        Each estimator's estimate on the sample.
    failed : (E, N) int array
        Resamples on which an estimator failed.
    boot : (R, E, N) array or None
        The bootstrap distribution, when asked for.
    """

    lower: np.ndarray
    upper: np.ndarray
    estimate: np.ndarray
    failed: np.ndarray
    boot: np.ndarray | None

    def put(self, rows, cols, ivs):
        """Write intervals (M, len(rows) * N, 2), estimator-major, at the estimators
        ``rows`` and the methods ``cols``."""
        shape = (-1, len(rows), self.lower.shape[2])
        self.lower[np.ix_(rows, cols)] = np.moveaxis(ivs[..., 0].reshape(shape), 0, 1)
        self.upper[np.ix_(rows, cols)] = np.moveaxis(ivs[..., 1].reshape(shape), 0, 1)


class Kind:
    """One kind of CI method, as the family sees it.

    Each method passed to a kind's functions is one of its own, in the
    order requested. The defaults suit a kind that needs nothing.

    Attributes
    ----------
    name : str
        The kind's name, :attr:`CIMethod.kind <evpsim.intervals.CIMethod.kind>`.
    by_default : bool
        The studies run its methods when none are named.
    resamples : bool
        Its methods draw resamples (their memory grows with them).
    estimates : bool
        It also writes every estimator's estimate on a sample
        (:attr:`Limits.estimate`): it runs on every sample, with or
        without methods of its own.
    needs_bounds : bool
        Its methods need the known range of the scores.
    refits : bool
        Its resamples each refit a model (ten times the bootstrap's cost
        per resample or more): studies run fewer of them.
    curves : tuple of str or None
        The curves (:attr:`Target.kind <evpsim.estimators.targets.Target.kind>`)
        its methods bound; None: every curve.
    """

    name = ""
    by_default = True
    resamples = False
    estimates = False
    needs_bounds = False
    refits = False
    curves = None

    def builtins(self):
        """The built-in methods: a list of :class:`CIMethod
        <evpsim.intervals.CIMethod>` fields (``name``, ``description``, ...)."""
        return []

    def applies(self, estimator):
        """Whether the kind's methods run for ``estimator``."""
        return True

    def memory(self, methods, setup, copies, width):
        """Bytes its arrays take with ``copies`` samples in flight (``width``: the
        widest of B and the budgets)."""
        return 0

    def prepare(self, methods, setup):
        """What its kernels read about the estimators and budgets (tables, bounds)."""
        return None

    def intervals(self, methods, setup, prepared, sample, limits, cols):
        """Write the intervals of one :class:`Sample` into ``limits`` at the methods'
        columns ``cols``."""
        raise NotImplementedError

    def coverage_jobs(self, methods, setup, prepared, sampler, theta, bounds):
        """``[(Job, methods), ...]``: the engine's jobs tallying coverage of ``theta`` on
        samples of ``sampler``, each with the methods whose tallies it returns."""
        raise NotImplementedError

    def coverage_runs(self, methods):
        """How many jobs :meth:`coverage_jobs` gives for ``methods``."""
        return 1

    def no_interval(self, method, xs):
        """Why ``method`` has no interval for the ascending sample ``xs``, or ``""``."""
        return ""

    def notes(self, method, B, target, ns, level):
        """What a reader must know of ``method``'s intervals for samples of B at the
        budgets ``ns`` of the curve ``target`` (e.g. where they rest on a model), or
        ``""``."""
        return ""
