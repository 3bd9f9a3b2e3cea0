"""Estimators of expected validation performance (EVP): one family, several kinds.

An estimator is a name, a description, what it can do and how it runs:

* **L-statistics** (a weighted sum of the ascending order statistics, see
  :mod:`evpsim.estimators.weights`): the built-ins U, V and W of the three papers, the
  quantile plug-in ``quantile``, and users' ``weights=``. Their exact mean
  and variance are known for every truth (:mod:`evpsim.truths.exact`), and the
  numba kernels run them fastest.
* **numba functions** ``func(sorted_sample, n) -> float`` (``func=``): any
  statistic numba compiles, run inside the same kernels.
* **Python functions** of a sample (or of a batch of samples) in the order
  the trials ran (``python=``): any NumPy, SciPy or third-party code, such
  as ``naive`` (the best so far), ``kde`` (a KDE plug-in) and
  ``opda-parametric`` (opda's noisy-quadratic fit). Batteries run them in
  chunks over exactly the simulated searches the numba kernels see, so
  every comparison is paired.

Each estimator says which curves it estimates (``targets``: the mean
curve, the quantile curves, see :mod:`evpsim.estimators.targets`) and whether it
extrapolates beyond the B trials run (``extrapolates``); batteries ask the
family, never the implementation.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import _validate as check
from .._format import spans
from ..engine.registry import Registry, _first_line, jit_function
from .python_builtins import BUILTINS as _PYTHON_BUILTINS
from .targets import MEAN, Target, as_target
from .weights import weights_quantile, weights_u, weights_v, weights_w

__all__ = [
    "Estimator",
    "Context",
    "estimate",
    "estimator_weights",
    "get_estimator",
    "list_estimators",
    "register_estimator",
    "unregister_estimator",
    "resolve_estimators",
    "estimators_at",
    "estimate_rows",
    "check_rows_memory",
    "EstimateRows",
    "KINDS",
]

#: the ways an estimator runs, fastest first
KINDS = ("L-statistic", "numba", "python")


@dataclass(frozen=True)
class Context:
    """What a Python estimator may know besides the sample.

    Attributes
    ----------
    target : Target
        The curve being estimated.
    bounds : (float, float) or None
        The metric's known range, when the battery was given one.
    """

    target: Target = MEAN
    bounds: tuple | None = None


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
        A user's L-statistic: ``weights(B)`` returns the (B, B) weight
        matrix, row ``n-1`` for budget ``n``, column ``i-1`` for the i-th
        smallest score.
    func : numba dispatcher or None
        A numba estimator: ``func(sorted_sample, n) -> float``.
    builtin : bool
        True for the estimators evpsim ships.
    rows : callable or None
        A built-in L-statistic: ``rows(B, ns, target)`` returns the
        ``(len(ns), B)`` weights at budgets ``ns``.
    python : callable or None
        A Python estimator: ``python(samples, ns, context)`` returns the
        ``(m, len(ns))`` estimates of the ``m`` samples (rows of
        ``samples``, in the order the trials ran); NaN where it failed.
    targets : tuple of str
        The kinds of curve it estimates (``"mean"``, ``"quantile"``).
    extrapolates : bool
        Whether it estimates the curve beyond the B trials run.
    beyond : str
        Why it does not extrapolate, for the message refusing n > B.
    source : str
        Where it comes from: a paper, or the package that provides it.
    max_replicates : int or None
        For slow estimators, the searches a battery runs them on unless
        told otherwise (the first ones of the battery's searches); None:
        as many as the battery runs.
    moments : callable or None
        For an estimator that is not an L-statistic but whose mean and
        variance are known exactly: ``moments(truth, B, ns) -> (mean,
        variance)`` arrays over ``ns``.
    needs : str
        A package it imports that evpsim does not require, and how to
        install it (``"opda: pip install ..."``), checked before a battery
        starts.
    """

    name: str
    description: str
    weights: Callable[[int], np.ndarray] | None = None
    func: Callable | None = None
    builtin: bool = False
    rows: Callable | None = field(default=None, repr=False)
    python: Callable | None = field(default=None, repr=False)
    targets: tuple = ("mean",)
    extrapolates: bool = False
    beyond: str = ""
    source: str = ""
    max_replicates: int | None = None
    moments: Callable | None = field(default=None, repr=False)
    needs: str = ""

    @property
    def kind(self):
        """How it runs: ``"L-statistic"``, ``"numba"`` or ``"python"``."""
        if self.rows is not None or self.weights is not None:
            return "L-statistic"
        return "numba" if self.func is not None else "python"

    @property
    def is_lstatistic(self):
        """True when the estimator is linear in the order statistics."""
        return self.kind == "L-statistic"

    def check_use(self, B, ns, target=MEAN):
        """Raise unless it estimates ``target`` at every budget of ``ns`` from B trials,
        and the packages it needs are there."""
        target = as_target(target)
        if self.needs:
            import importlib.util

            module, _, install = self.needs.partition(":")
            if importlib.util.find_spec(module) is None:
                raise check.InvalidArgument(
                    "estimators", f"estimators: {self.name} needs {module}, which is not "
                                  f"installed:{install}")
        if target.kind not in self.targets:
            raise check.InvalidArgument(
                "estimators", f"estimators: {self.name} estimates the "
                              f"{' and the '.join(_CURVES[t] for t in self.targets)}, not the "
                              f"{_CURVES[target.kind]} ({target.name}); estimators of it: "
                              f"{', '.join(estimators_of(target))}")
        top = int(np.max(ns)) if np.size(ns) else 0
        if top > B and not self.extrapolates:
            raise check.InvalidArgument(
                "estimators", f"estimators: {self.name} does not estimate beyond the B = {B} "
                              f"trials run (n = {top} asked for)"
                              + (f": {self.beyond}" if self.beyond else "")
                              + f"; estimators that extrapolate: "
                                f"{', '.join(n for n, e in _REGISTRY.items() if e.extrapolates)}")

    def weight_rows(self, B, ns, target=MEAN):
        """Validated ``(len(ns), B)`` weights of an L-statistic at budgets ``ns``."""
        if not self.is_lstatistic:
            raise TypeError(f"estimator {self.name!r} is not an L-statistic")
        ns = np.asarray(ns, dtype=np.int64)
        if self.rows is not None:
            ws = np.asarray(self.rows(B, ns, as_target(target)), dtype=float)
        else:
            ws = np.asarray(self.weights(B), dtype=float)
            if ws.shape != (B, B):
                raise ValueError(f"weights of estimator {self.name!r} for B={B} have shape "
                                 f"{ws.shape}, expected ({B}, {B})")
            ws = ws[ns - 1]
        if ws.shape != (ns.size, B):
            raise ValueError(f"weights of estimator {self.name!r} for B={B} have shape "
                             f"{ws.shape}, expected ({ns.size}, {B})")
        if not np.all(np.isfinite(ws)):
            raise ValueError(f"weights of estimator {self.name!r} are not finite")
        return ws

    def weight_matrix(self, B, target=MEAN):
        """Validated (B, B) weight matrix, row ``n-1`` for budget n <= B."""
        return self.weight_rows(B, np.arange(1, B + 1), target)

    def estimates(self, samples, ns, context=Context()):
        """Estimates ``(m, len(ns))`` of ``m`` samples given in the order the trials ran.

        Every kind answers it (L-statistics and numba functions sort each
        sample first); a Python estimator's failures are NaN.
        """
        samples = np.atleast_2d(np.asarray(samples, dtype=float))
        ns = np.asarray(ns, dtype=np.int64)
        if self.kind == "python":
            return self.python(samples, ns, context)
        xs = np.sort(samples, axis=1)
        if self.is_lstatistic:
            return xs @ self.weight_rows(xs.shape[1], ns, context.target).T
        return np.array([[self.func(x, int(n)) for n in ns] for x in xs])

    def apply(self, sorted_scores, ns, target=MEAN):
        """Estimates for budgets ``ns`` from one ascending sample."""
        return self.estimates(sorted_scores, ns, Context(as_target(target)))[0]

    def failure(self, scores, ns, target=MEAN):
        """Why the estimator gives no estimate (NaN) on ``scores`` (in the order the trials
        ran) at some budget of ``ns``, in words; None where it gives one at every budget.

        :meth:`estimates` turns a Python estimator's failures into NaN: this runs it
        once more and says what it raised, or that it returned no finite number.
        """
        context = Context(as_target(target))
        ns = np.asarray(ns, dtype=np.int64)
        if self.kind == "python":
            try:
                self.python.check(np.asarray(scores, dtype=float), ns, context)
            except (Exception, SystemExit) as err:
                text = " ".join(str(err).split())
                return f"it raised {type(err).__name__}" + (f": {text}" if text else "")
        out = self.estimates(scores, ns, context)[0]
        bad = ns[~np.isfinite(out)]
        if not bad.size:
            return None
        return f"it returned no finite number at n = {spans(bad)}"


#: the curves of :mod:`evpsim.estimators.targets` in words, for messages
_CURVES = {"mean": "mean curve", "quantile": "quantile curves"}

_REGISTRY = Registry("estimator", Estimator, "estimators")


def estimators_of(target, B=None, ns=None):
    """Names of the registered estimators of ``target`` (at ``ns`` from B trials)."""
    target = as_target(target)
    top = 0 if ns is None else int(np.max(ns))
    return [n for n, e in _REGISTRY.items() if target.kind in e.targets
            and (B is None or top <= B or e.extrapolates)]


def register_estimator(name, *, weights=None, func=None, python=None, batched=False,
                       description="", targets=("mean",), extrapolates=False, source="",
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
        For a general (non-linear) estimator run inside the numba kernels:
        ``func(sorted_sample, n) -> float``. It is compiled with
        ``numba.njit`` unless it already is a numba dispatcher.
    python : callable, optional
        Any Python function of one sample, in the order the trials ran:
        ``python(scores, ns) -> array of len(ns)``; with ``batched=True``,
        of a batch, ``python(samples, ns) -> (m, len(ns))`` for the ``(m,
        B)`` array ``samples``. Batteries run it in chunks over the same
        simulated searches as the numba estimators. A function that also
        takes ``target`` (a :class:`evpsim.estimators.targets.Target`) or ``bounds``
        (the metric's range, or None) as keyword arguments receives them. A
        sample on which it raises or returns NaN counts as a failure of
        that cell, reported by the battery.
    batched : bool
        ``python`` takes a batch of samples.
    description : str, optional
        One line for ``evpsim list``.
    targets : sequence of str
        The curves it estimates: ``"mean"`` and/or ``"quantile"``.
    extrapolates : bool
        It estimates the curve at budgets beyond the B trials run.
    source : str
        Where it comes from (a paper, a package), for ``evpsim list``.
    overwrite : bool, optional
        Replace an existing estimator of the same name (never a built-in).

    Exactly one of ``weights``, ``func`` and ``python`` must be given. Each
    is tried before it is registered: ``weights`` for B = 2, 3 and 5 (each
    must give a finite (B, B) array), ``func`` on a sample of 3 at n = 1, 2,
    3, compiled with bounds checking, ``python`` on a sample of 5 at n = 1,
    2, 5 (and 10 when it extrapolates): each must return finite numbers of
    the right shape. A failure raises ``ValueError`` and registers nothing.

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
    >>> def best_two(scores, ns):          # any Python function of one search
    ...     top = np.sort(scores)[-2:].mean()
    ...     return np.minimum(np.maximum.accumulate(scores)[ns - 1], top)
    >>> _ = evpsim.register_estimator("best-two", python=best_two)
    >>> evpsim.estimate([0.1, 0.3, 0.2], "best-two").tolist()
    [0.1, 0.25, 0.25]
    >>> evpsim.unregister_estimator("best-two")
    """
    _check_one_kind(weights, func, python)
    description = check.string(description, "description", empty=True)
    source = check.string(source, "source", empty=True)
    overwrite = check.boolean(overwrite, "overwrite")
    batched = check.boolean(batched, "batched")
    extrapolates = check.boolean(extrapolates, "extrapolates")
    targets = _targets(targets)
    _REGISTRY.check_new(name, overwrite=overwrite)
    if func is not None:
        func = _compiled(func)
    if weights is not None and extrapolates:
        raise check.InvalidArgument("extrapolates", "extrapolates: weights(B) give budgets up "
                                                    "to B only")
    if python is not None:
        python = _python_estimator(python, batched, targets, extrapolates)
    est = Estimator(name, description or str(name), weights=weights, func=func, python=python,
                    targets=targets, extrapolates=extrapolates, source=source)
    if weights is not None:
        _try_weights(est)
    return _REGISTRY.add(est, overwrite=overwrite)


def _check_one_kind(weights, func, python):
    """Refuse anything but exactly one of ``weights``, ``func`` and ``python``, and
    ``weights`` that cannot be called."""
    given = [k for k, v in (("weights", weights), ("func", func), ("python", python))
             if v is not None]
    if len(given) != 1:
        raise check.InvalidArgument("func", "give exactly one of weights=, func= and python=")
    if weights is not None and not callable(weights):
        raise check.InvalidType("weights", "weights must be a callable B -> (B, B) array")


def _compiled(func):
    """``func(sorted_sample, n) -> float`` compiled by numba, tried on a sample of 3 at
    n = 1, 2 and 3."""
    sample = np.array([0.25, 0.5, 0.75])
    return jit_function(func, "(sorted_sample, n) -> float",
                        [(f"n = {n} of a sample of 3", (sample, n)) for n in (1, 2, 3)],
                        _float_problem)


def _try_weights(est):
    """Build an L-statistic's weight matrices for B = 2, 3 and 5, refusing ``weights``
    that fail on any (a shape right for one B only is caught here)."""
    for B in (2, 3, 5):
        try:
            est.weight_matrix(B)
        except Exception as err:
            raise check.InvalidArgument("weights", f"weights({B}) fails: {err}") from None


def _targets(targets):
    if isinstance(targets, str):
        targets = [targets]
    try:
        targets = tuple(targets)
    except TypeError:
        raise check.InvalidType("targets", f"targets must be 'mean', 'quantile' or both, got "
                                           f"{targets!r}") from None
    if not targets or any(t not in _CURVES for t in targets):
        raise check.InvalidArgument("targets", f"targets must be 'mean', 'quantile' or both, "
                                               f"got {targets!r}")
    return tuple(dict.fromkeys(targets))


class _PythonEstimator:
    """A user's Python function as ``f(samples, ns, context) -> (m, len(ns))``.

    A sample on which the function raises, or returns a non-finite value,
    gives NaN: the battery counts it as a failure of that cell. A batched
    function that raises on a batch is called again sample by sample, so
    that one bad sample costs only itself.
    """

    def __init__(self, func, batched):
        self.func, self.batched = func, batched
        try:
            params = inspect.signature(func).parameters
        except (TypeError, ValueError):
            params = {}
        self.keywords = [k for k in ("target", "bounds") if k in params]

    def _call(self, x, ns, context):
        extra = {k: getattr(context, k) for k in self.keywords}
        return np.asarray(self.func(x, ns, **extra), dtype=float)

    def _shaped(self, x):
        """One sample as the function takes it (a batch of one when batched)."""
        return x[None, :] if self.batched else x

    def check(self, x, ns, context):
        """Run the function on the sample ``x`` as :meth:`_one` does, raising what it
        raises (:meth:`_one` gives NaN)."""
        return self._call(self._shaped(x), ns, context).reshape(ns.size)

    def _one(self, x, ns, context):
        try:
            out = self.check(x, ns, context)
        except (Exception, SystemExit):  # a plugin's sys.exit ends nothing but its estimate
            return np.full(ns.size, np.nan)
        return np.where(np.isfinite(out), out, np.nan)

    def __call__(self, samples, ns, context=Context()):
        if self.batched:
            try:
                out = self._call(samples, ns, context)
                if out.shape == (samples.shape[0], ns.size):
                    return np.where(np.isfinite(out), out, np.nan)
            except (Exception, SystemExit):
                pass
        return np.array([self._one(x, ns, context) for x in samples]).reshape(
            samples.shape[0], ns.size)


def _python_estimator(python, batched, targets, extrapolates):
    """A user's Python function, tried on a small sample before it is registered."""
    if not callable(python):
        raise check.InvalidType("python", "python must be a callable f(scores, ns) -> curve")
    wrapped = _PythonEstimator(python, batched)
    sample = np.array([0.6, 0.8, 0.7, 0.9, 0.75])
    ns = np.array([1, 2, 5] + ([10] if extrapolates else []))
    what = "f(samples, ns) -> (m, len(ns))" if batched else "f(scores, ns) -> array of len(ns)"
    for target in [as_target(t if t == "mean" else "median") for t in targets]:
        context = Context(target)
        try:
            out = wrapped._call(wrapped._shaped(sample), ns, context)
        except (Exception, SystemExit) as err:
            raise check.InvalidArgument(
                "python", f"python must be {what}; on a sample of 5 at n = "
                          f"{', '.join(map(str, ns))} it raised {type(err).__name__}: "
                          f"{err}") from None
        want = (1, ns.size) if batched else (ns.size,)
        if out.shape != want:
            raise check.InvalidArgument(
                "python", f"python must be {what}; on a sample of 5 at n = "
                          f"{', '.join(map(str, ns))} it returned shape {out.shape}, expected "
                          f"{want}")
        if not np.all(np.isfinite(out)):
            raise check.InvalidArgument(
                "python", f"python must return finite estimates; on a sample of 5 at n = "
                          f"{', '.join(map(str, ns))} it returned {out.ravel().tolist()}")
    return wrapped


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


def default_estimators(target=MEAN):
    """The estimators a battery runs when none are named: U, V, W for the mean
    curve, the quantile plug-in for a quantile curve."""
    return ["U", "V", "W"] if as_target(target).kind == "mean" else ["quantile"]


def resolve_estimators(estimators, target=MEAN):
    """Normalise ``None`` / ``"U,V"`` / a sequence into a list of Estimators."""
    return _REGISTRY.resolve(estimators, default_estimators(target))


def estimators_at(estimators, target, B, ns=None):
    """The estimators resolved for ``target`` and the budgets ``ns`` (1..B when None),
    each estimator checked for use at ``B`` and ``ns``.

    Returns
    -------
    (list of Estimator, ndarray of int)
    """
    ests = resolve_estimators(estimators, target)
    ns = np.arange(1, B + 1) if ns is None else check.ns(ns, np.inf, distinct=True)
    for e in ests:
        e.check_use(B, ns, target)
    return ests, ns


def _register_builtins():
    why_u = ("it averages over subsets of n distinct trials, and a search of B trials has "
             "none larger than B")
    for name, fn, desc, extrapolates, beyond, source in [
        ("U", weights_u, "unbiased; unordered draws without repetition (Tang et al. 2020)",
         False, why_u, "Tang et al. 2020"),
        ("V", weights_v, "plug-in ECDF 'MeanMax'; ordered draws with repetition (Dodge et al. "
                         "2019)", True, "", "Dodge et al. 2019"),
        ("W", weights_w, "multisets; unordered draws with repetition (Dodge et al. 2021)",
         False, "Dodge et al. 2021 define it for budgets up to B", "Dodge et al. 2021"),
    ]:
        _REGISTRY.add(Estimator(name, desc, builtin=True, extrapolates=extrapolates,
                                beyond=beyond, source=source,
                                rows=lambda B, ns, target, fn=fn: fn(B, ns)))
    _REGISTRY.add(Estimator(
        "quantile", "plug-in quantile curve: the q-quantile of the best of n draws from the "
                    "sample, opda's empirical quantile_tuning_curve", builtin=True,
        targets=("quantile",), extrapolates=True, source="Lourie et al. 2024 (opda)",
        rows=lambda B, ns, target: weights_quantile(B, ns, target.q)))
    for fields in _PYTHON_BUILTINS:  # naive, kde, opda-parametric
        _REGISTRY.add(Estimator(**fields, builtin=True))


_register_builtins()


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


def estimate(scores, estimator="V", ns=None, *, curve="mean", bounds=None):
    """Estimate expected validation performance from observed scores.

    Parameters
    ----------
    scores : array_like of float, shape (B,)
        Validation scores of B >= 2 hyperparameter trials, in the order
        they ran (only ``naive`` and other estimators of the run order care).
        Ties are allowed.
    estimator : str, optional
        Registered estimator name (default ``"V"``).
    ns : array_like of int, optional
        Budgets (default 1..B); beyond B for estimators that extrapolate.
    curve : str or Target
        The curve estimated: ``"mean"`` (default), ``"median"`` or
        ``"quantile:Q"`` (see :mod:`evpsim.estimators.targets`).
    bounds : (float, float), optional
        The metric's known range, for estimators that use it (``kde``).

    Returns
    -------
    ndarray of float
        The estimate of the curve at each ``n`` in ``ns``.

    Examples
    --------
    >>> import evpsim
    >>> evpsim.estimate([0.7, 0.9, 0.8], "U").round(4).tolist()
    [0.8, 0.8667, 0.9]
    >>> evpsim.estimate([0.7, 0.9, 0.8], "V", ns=[1, 3, 6]).round(4).tolist()
    [0.8, 0.8667, 0.8911]
    >>> evpsim.estimate([0.7, 0.9, 0.8], "quantile", curve="median").tolist()
    [0.8, 0.9, 0.9]
    """
    xs = check.scores(scores)
    est = get_estimator(estimator)
    target = as_target(curve)
    ns = check.ns(ns, np.inf) if ns is not None else np.arange(1, xs.size + 1)
    est.check_use(xs.size, ns, target)
    if bounds is not None:
        bounds = check.bounds(bounds, xs.min(), xs.max(), "the scores")
    if est.is_lstatistic:
        check.check_memory(2 * 8 * xs.size * max(xs.size, ns.size),
                           f"the {xs.size:,} x {xs.size:,} weight matrix", "scores")
    context = Context(target, bounds)
    out = est.estimates(xs, ns, context)[0]
    if not np.all(np.isfinite(out)):  # a Python estimator's failure: NaN
        raise check.InvalidArgument(
            "estimator", f"estimator {est.name!r}"
            + (f" (from {est.source})" if est.source and not est.builtin else "")
            + f" gives no estimate for these scores at n = "
              f"{', '.join(map(str, ns[~np.isfinite(out)][:5]))}: "
              f"{_failure(est, xs, ns, context)}")
    return out


def _failure(est, xs, ns, context):
    """What a Python estimator did on one sample instead of returning finite estimates."""
    if not isinstance(est.python, _PythonEstimator):  # a built-in: NaN is its word for it
        return "it returned NaN (it cannot estimate from such a sample)"
    try:
        out = est.python._call(est.python._shaped(xs), ns, context)
    except (Exception, SystemExit) as err:
        return f"it raised {type(err).__name__}: {_first_line(err)}"
    want = (1, ns.size) if est.python.batched else (ns.size,)
    if out.shape != want:
        return f"it returned shape {out.shape}, expected {want}"
    return f"it returned {out.ravel()[:5].tolist()}"


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


def estimate_rows(ests, B, ns, target=MEAN):
    """Group the numba-path estimates of ``ests`` at budgets ``ns`` into kernel calls.

    One :class:`EstimateRows` holds every L-statistic (a matrix product in
    the kernel), and one each numba estimator; Python estimators run on
    their own path (:mod:`evpsim.estimators.pyrun`) and get none.
    """
    out = []
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    check_rows_memory(ests, B, ns.size)
    if lstats:
        ws = np.concatenate([ests[k].weight_rows(B, ns, target) for k in lstats])
        out.append(EstimateRows(lstats, np.ascontiguousarray(ws.T), None,
                                np.tile(ns, len(lstats))))
    for k, e in enumerate(ests):
        if e.kind == "numba":
            out.append(EstimateRows([k], np.zeros((1, 1)), e.func, ns.copy()))
    return out
