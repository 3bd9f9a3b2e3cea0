"""Estimators of expected validation performance (EVP).

Every built-in estimator is an *L-statistic*: a weighted sum of the ascending
order statistics ``x_(1) <= ... <= x_(B)`` of the B observed scores,

.. math:: \\hat\\theta_n = \\sum_i w[n, i] \\, x_{(i)},
          \\qquad w[n, i] = P_n(i) - P_n(i - 1),

where ``P_n(k)`` is the probability that the maximum of a size-``n`` draw
from the sample lies among its ``k`` smallest points.

========  =============================  =========================
name      ``P_n(k)``                     source
========  =============================  =========================
``V``     ``(k / B) ** n``               Dodge et al. (2019)
``U``     ``C(k, n) / C(B, n)``          Tang et al. (2020)
``W``     ``C(k+n-1, n) / C(B+n-1, n)``  Dodge et al. (2021)
========  =============================  =========================

Weights are computed in log space from their difference form, so they are
accurate for any B (tested to B = 10,000) and never overflow.

Users add estimators with :func:`register_estimator`: either an L-statistic
given by its weights function ``B -> (B, B) array``, or a general estimator
given as a numba-compilable function ``f(sorted_sample, n) -> float``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import gammaln

from . import _validate as check
from .registry import Registry, jit_function

__all__ = [
    "Estimator",
    "estimate",
    "estimator_weights",
    "get_estimator",
    "list_estimators",
    "register_estimator",
    "unregister_estimator",
    "resolve_estimators",
    "estimate_rows",
    "check_rows_memory",
    "EstimateRows",
]


def _normalise_rows(ws):
    # The exact rows sum to 1; dividing by the computed sum removes the
    # ~1e-11 relative drift that lgamma differences accumulate for large B.
    ws /= ws.sum(axis=1, keepdims=True)
    return ws


def weights_v(B):
    """Weights of V (plug-in ECDF, Dodge et al. 2019) for sample size ``B``.

    ``w[n, i] = (i/B)^n - ((i-1)/B)^n``, evaluated as
    ``(i/B)^n * (1 - (1 - 1/i)^n)`` with ``expm1``/``log1p`` so that no
    cancellation occurs.
    """
    ns = np.arange(1, B + 1, dtype=float)[:, None]
    i = np.arange(1, B + 1, dtype=float)[None, :]
    with np.errstate(divide="ignore"):
        tail = -np.expm1(ns * np.log1p(-1.0 / i))
        ws = np.exp(ns * np.log(i / B)) * tail
    return _normalise_rows(ws)


def _lchoose_table(N):
    """``lc(n, k)`` = log C(n, k) for 0 <= k <= n <= N, by table look-up."""
    lg = gammaln(np.arange(N + 1, dtype=float) + 1.0)

    def lc(n, k):
        return lg[n] - lg[k] - lg[n - k]

    return lc


def weights_u(B):
    """Weights of U (unbiased, Tang et al. 2020): ``C(i-1, n-1) / C(B, n)``."""
    lc = _lchoose_table(B)
    ns = np.arange(1, B + 1)[:, None]
    i = np.arange(1, B + 1)[None, :]
    valid = i >= ns
    logw = lc(np.where(valid, i - 1, ns - 1), ns - 1) - lc(B, ns)
    return _normalise_rows(np.where(valid, np.exp(logw), 0.0))


def weights_w(B):
    """Weights of W (multisets, Dodge et al. 2021): ``C(i+n-2, n-1) / C(B+n-1, n)``."""
    lc = _lchoose_table(2 * B)
    ns = np.arange(1, B + 1)[:, None]
    i = np.arange(1, B + 1)[None, :]
    logw = lc(i + ns - 2, ns - 1) - lc(B + ns - 1, ns)
    return _normalise_rows(np.exp(logw))


@dataclass(frozen=True)
class Estimator:
    """A registered EVP estimator.

    Attributes
    ----------
    name : str
        Short name used on the command line and as the ``estimator``
        coordinate of result Datasets.
    description : str
        One line saying what it is.
    weights : callable or None
        For an L-statistic, ``weights(B)`` returns the (B, B) weight matrix,
        row ``n-1`` for budget ``n``, column ``i-1`` for the i-th smallest
        score.
    func : numba dispatcher or None
        For a general estimator, a jitted ``func(sorted_sample, n) -> float``.
    builtin : bool
        True for U, V and W.
    """

    name: str
    description: str
    weights: Callable[[int], np.ndarray] | None = None
    func: Callable | None = None
    builtin: bool = False

    @property
    def is_lstatistic(self):
        """True when the estimator is linear in the order statistics."""
        return self.weights is not None

    def weight_matrix(self, B):
        """Validated (B, B) weight matrix; raises for general estimators."""
        if not self.is_lstatistic:
            raise TypeError(f"estimator {self.name!r} is not an L-statistic")
        ws = np.asarray(self.weights(B), dtype=float)
        if ws.shape != (B, B):
            raise ValueError(
                f"weights of estimator {self.name!r} for B={B} have shape "
                f"{ws.shape}, expected ({B}, {B})"
            )
        if not np.all(np.isfinite(ws)):
            raise ValueError(f"weights of estimator {self.name!r} are not finite")
        return ws

    def apply(self, sorted_scores, ns):
        """Estimates for budgets ``ns`` from one ascending sample."""
        B = sorted_scores.shape[0]
        if self.is_lstatistic:
            return self.weight_matrix(B)[np.asarray(ns) - 1] @ sorted_scores
        return np.array([self.func(sorted_scores, int(n)) for n in ns])


_REGISTRY = Registry("estimator", Estimator, "estimators")


def register_estimator(name, *, weights=None, func=None, description="",
                       overwrite=False):
    """Register an estimator so that every battery and the CLI can run it.

    Parameters
    ----------
    name : str
        Identifier (letters, digits, ``_``, ``-``; no commas).
    weights : callable, optional
        ``weights(B) -> (B, B) array`` for an L-statistic. Rows should be
        non-negative and sum to one, but any real weights are accepted.
    func : callable, optional
        For a general (non-linear) estimator: a function
        ``func(sorted_sample, n) -> float``. It is compiled with
        ``numba.njit`` unless it already is a numba dispatcher. Exactly one of
        ``weights`` and ``func`` must be given.

        Either is tried before it is registered: ``weights`` for B = 2, 3
        and 5 (each must give a finite (B, B) array), ``func`` on a sample
        of 3 at n = 1, 2, 3, compiled with bounds checking (each call must
        return a finite number). A failure raises ``ValueError`` and
        registers nothing.
    description : str, optional
        One line for ``evpsim list``.
    overwrite : bool, optional
        Replace an existing estimator of the same name (never a built-in).

    Returns
    -------
    Estimator
        The registered estimator.

    Examples
    --------
    >>> import numpy as np, evpsim
    >>> def mean_of_u_and_v(B):
    ...     return 0.5 * (evpsim.estimator_weights("U", B)
    ...                   + evpsim.estimator_weights("V", B))
    >>> _ = evpsim.register_estimator("UV", weights=mean_of_u_and_v,
    ...                               description="average of U and V")
    >>> round(float(evpsim.estimate([0.1, 0.2, 0.3], "UV", ns=[3])[0]), 4)
    0.2833
    >>> evpsim.unregister_estimator("UV")
    """
    if (weights is None) == (func is None):
        raise check.InvalidArgument("func", "give exactly one of weights= and func=")
    if weights is not None and not callable(weights):
        raise check.InvalidType("weights", "weights must be a callable B -> (B, B) array")
    description = check.string(description, "description", empty=True)
    overwrite = check.boolean(overwrite, "overwrite")
    _REGISTRY.check_new(name, overwrite=overwrite)
    if func is not None:
        sample = np.array([0.25, 0.5, 0.75])
        func = jit_function(func, "(sorted_sample, n) -> float",
                            [(f"n = {n} of a sample of 3", (sample, n)) for n in (1, 2, 3)],
                            _float_problem)
    est = Estimator(name, description or str(name), weights=weights, func=func)
    if weights is not None:
        for B in (2, 3, 5):  # a shape right for one B only is caught here
            try:
                est.weight_matrix(B)
            except Exception as err:
                raise check.InvalidArgument("weights", f"weights({B}) fails: {err}") from None
    return _REGISTRY.add(est, overwrite=overwrite)


def _float_problem(value):
    """What is wrong with an estimate returned by a user's function, if anything."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (float, int, np.floating, np.integer)):
        return f"a {type(value).__name__}, not a number"
    if not np.isfinite(value):
        return "not finite"
    return None


def unregister_estimator(name):
    """Remove a user-registered estimator."""
    _REGISTRY.remove(name)


def get_estimator(name):
    """Look up a registered estimator by name (raises ``ValueError``)."""
    return _REGISTRY.get(name)


def list_estimators():
    """Names of all registered estimators, built-ins first."""
    return _REGISTRY.names()


def builtin_estimators():
    """Names of the built-in estimators (U, V, W)."""
    return _REGISTRY.names(builtin_only=True)


def resolve_estimators(estimators):
    """Normalise ``None`` / ``"U,V"`` / a sequence into a list of Estimators."""
    return _REGISTRY.resolve(estimators, builtin_estimators())


for _name, _fn, _desc in [
    ("U", weights_u, "unbiased; unordered draws without repetition (Tang et al. 2020)"),
    ("V", weights_v, "plug-in ECDF 'MeanMax'; ordered draws with repetition (Dodge et al. 2019)"),
    ("W", weights_w, "multisets; unordered draws with repetition (Dodge et al. 2021)"),
]:
    _REGISTRY.add(Estimator(_name, _desc, weights=_fn, builtin=True))


def estimator_weights(name, B):
    """The (B, B) weight matrix of an L-statistic estimator.

    Parameters
    ----------
    name : str
        Registered estimator name, e.g. ``"U"``, ``"V"``, ``"W"``.
    B : int
        Sample size (number of hyperparameter trials), at least 1.

    Returns
    -------
    ndarray of shape (B, B)
        Row ``n-1`` holds the weights for budget ``n``; column ``i-1`` the
        weight of the i-th smallest score.

    Examples
    --------
    >>> import evpsim
    >>> evpsim.estimator_weights("U", 3).round(4).tolist()
    [[0.3333, 0.3333, 0.3333], [0.0, 0.3333, 0.6667], [0.0, 0.0, 1.0]]
    """
    B = check.B(B, minimum=1)
    est = get_estimator(name)
    check.check_memory(2 * 8 * B * B, f"the {B:,} x {B:,} weight matrix", "B")
    return est.weight_matrix(B)


def estimate(scores, estimator="V", ns=None):
    """Estimate expected validation performance from observed scores.

    Parameters
    ----------
    scores : array_like of float, shape (B,)
        Validation scores of B >= 2 hyperparameter trials, in any order.
        Ties are allowed.
    estimator : str, optional
        Registered estimator name (default ``"V"``).
    ns : array_like of int, optional
        Budgets, each in 1..B (default 1..B).

    Returns
    -------
    ndarray of float
        The estimate of the expected best score after ``n`` trials, for each
        ``n`` in ``ns``.

    Examples
    --------
    >>> import evpsim
    >>> evpsim.estimate([0.7, 0.9, 0.8], "U").round(4).tolist()
    [0.8, 0.8667, 0.9]
    >>> evpsim.estimate([0.7, 0.9, 0.8], "V", ns=[1, 3]).round(4).tolist()
    [0.8, 0.8667]
    """
    xs = np.sort(check.scores(scores))
    est = get_estimator(estimator)
    ns = check.ns(ns, xs.size)
    if est.is_lstatistic:
        check.check_memory(2 * 8 * xs.size**2, f"the {xs.size:,} x {xs.size:,} weight matrix",
                           "scores")
    return est.apply(xs, ns)


@dataclass(frozen=True)
class EstimateRows:
    """Estimate rows that one kernel call computes from each sample.

    Rows run over the call's estimators, then over the budgets ``ns``.

    Attributes
    ----------
    indices : list of int
        Positions of the call's estimators in the battery's list.
    wts : (B, R) array
        L-statistics: the weight rows of every estimator and budget,
        transposed; a (1, 1) placeholder for a general estimator.
    func : numba dispatcher or None
        A general estimator's function (``None`` for L-statistics).
    ns : (R,) int array
        The budget of each row.
    """

    indices: list
    wts: np.ndarray
    func: object
    ns: np.ndarray


def check_rows_memory(ests, B, nrows):
    """Refuse a B whose weights (:func:`estimate_rows`, ``nrows`` budgets) cannot fit
    in memory; batteries call it before any other work."""
    lstats = sum(e.is_lstatistic for e in ests)
    check.check_memory(8 * B * (B + nrows) * (lstats + 1),
                       f"the weights of {lstats} estimators for B = {B:,}", "B")


def estimate_rows(ests, B, ns):
    """Group the estimates of ``ests`` at budgets ``ns`` into kernel calls.

    One :class:`EstimateRows` holds every L-statistic (a matrix product in
    the kernel), and one each general estimator.
    """
    out = []
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    check_rows_memory(ests, B, ns.size)
    if lstats:
        ws = np.concatenate([ests[k].weight_matrix(B)[ns - 1] for k in lstats])
        out.append(EstimateRows(lstats, np.ascontiguousarray(ws.T), None,
                                np.tile(ns, len(lstats))))
    for k, e in enumerate(ests):
        if not e.is_lstatistic:
            out.append(EstimateRows([k], np.zeros((1, 1)), e.func, ns.copy()))
    return out
