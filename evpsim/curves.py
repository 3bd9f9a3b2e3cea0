"""EVP curves of one's own search results: estimates, spread, intervals, comparisons.

The tools a researcher uses to report expected validation performance for
their own models (Dodge et al. 2019, sections 3 and 4): :func:`curve` gives,
for every model and every budget n up to the trials it ran, the estimated
expected best score, the standard deviation of the best of n, confidence
intervals by any registered CI method, and, for two or more models, which
is ahead, an interval for the difference and the share of bootstrap
differences in which one is ahead; with a target, the smallest budget that reaches it. The
smaller tools :func:`evp_curve` and :func:`budget_to_reach` serve the
reproductions of the papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import xarray as xr

from . import _validate as check
from .results import provenance
from .targets import Target, as_target
from .estimators import estimator_weights, get_estimator
from .intervals import (bootstrap_intervals, curve_ci_method, free_lower_bound,
                        lstatistic_estimators, resolve_ci_methods)

__all__ = ["curve", "evp_curve", "budget_to_reach", "Model", "as_models", "first_reaching",
           "share_ahead"]


def best_of_n_sd(xs, ns):
    """SD of the best of n draws with replacement from the sorted scores ``xs``.

    Dodge et al. (2019, section 3.3): the spread of the plug-in
    distribution of the maximum, the same whatever estimator draws the curve.
    Its moments are taken about the best score, which keeps the variance's
    digits (near n = B the best of n lies within a few top spacings of it,
    and tied scores give exactly 0).
    """
    wv = estimator_weights("V", xs.size)[np.asarray(ns) - 1]
    z = xs - xs[-1]
    mean = wv @ z
    return np.sqrt(np.maximum(wv @ z**2 - mean**2, 0.0))


def evp_curve(scores, estimator="V", ns=None, *, name=None):
    """The estimated EVP curve of observed scores, with its spread.

    Parameters
    ----------
    scores : array_like of float
        Validation scores of B >= 2 trials (ties allowed).
    estimator : str
        Registered estimator (default ``"V"``, as in Dodge et al. 2019).
    ns : array_like of int, optional
        Budgets in 1..B (default all).
    name : str, optional
        Model name stored in the attributes.

    Returns
    -------
    xarray.Dataset
        Dim ``n``: ``evp`` (the estimate), ``sd`` (standard deviation of the
        best of n draws with replacement from the observed scores, Dodge et
        al. 2019 section 3.3; the same for every estimator since it describes
        the plug-in distribution), ``lower``/``upper`` (``evp -/+ sd``
        clipped to the observed range, as Dodge et al. recommend for
        shading).

    See Also
    --------
    curve : several models, confidence intervals, comparisons and budgets.

    Examples
    --------
    >>> ds = evp_curve([0.7, 0.9, 0.8])
    >>> [round(float(v), 4) for v in ds["evp"]]
    [0.8, 0.8444, 0.8667]
    >>> round(float(ds["sd"].sel(n=1)), 4)
    0.0816
    """
    xs = np.sort(check.scores(scores))
    B = xs.size
    ns = check.ns(ns, B)
    if name is not None:
        check.string(name, "name", empty=True)
    est = get_estimator(estimator).apply(xs, ns)
    sd = best_of_n_sd(xs, ns)
    return xr.Dataset(
        {
            "evp": ("n", est, {"long_name": f"expected best score after n trials ({estimator})"}),
            "sd": ("n", sd, {"long_name": "SD of the best of n draws from the observed scores"}),
            "lower": ("n", np.maximum(est - sd, xs[0]), {"long_name": "evp - sd, within range"}),
            "upper": ("n", np.minimum(est + sd, xs[-1]), {"long_name": "evp + sd, within range"}),
        },
        coords={"n": ns},
        attrs={"estimator": str(estimator), "B": B, "best_observed": float(xs[-1]),
               "model": name or ""},
    )


def budget_to_reach(scores, target, estimator="V"):
    """Smallest budget n whose estimated expected best score reaches ``target``.

    Parameters
    ----------
    scores : array_like of float
        Observed validation scores (B >= 2).
    target : float
        The score to reach.
    estimator : str
        Registered estimator (default ``"V"``).

    Returns
    -------
    int or None
        The budget, or None when even n = B falls short (the data cannot say).

    Examples
    --------
    >>> budget_to_reach([0.7, 0.9, 0.8], 0.85)
    3
    >>> budget_to_reach([0.7, 0.9, 0.8], 0.95) is None
    True
    """
    target = check.number(target, "target")
    hit = first_reaching(evp_curve(scores, estimator)["evp"].values, target)
    return None if np.isnan(hit) else int(hit)


def first_reaching(values, target):
    """The budget at which a curve first reaches ``target``.

    1-based index of the first value >= ``target`` (NaN never reaches), else NaN.

    Examples
    --------
    >>> first_reaching([0.7, 0.8, 0.9], 0.8)
    2.0
    """
    hits = np.flatnonzero(np.nan_to_num(values, nan=-np.inf) >= target)
    return float(hits[0] + 1) if hits.size else np.nan


# --- models -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Model:
    """One model's scores as :func:`curve` uses them.

    Attributes
    ----------
    label : str
        The model's name.
    scores : ndarray
        Its B scores, in the order given.
    mean_duration : float
        Mean wall-clock seconds per trial (NaN when unknown).
    source : str
        Where the scores came from (a file name, or ``""``).
    metric : str
        The field or column the scores were read from (or ``""``).
    records : int
        Records read for the model, kept and dropped (its B when the
        scores were given directly).
    dropped : dict
        ``{reason: count}`` of the records dropped while reading.
    """

    label: str
    scores: np.ndarray
    mean_duration: float = np.nan
    source: str = ""
    metric: str = ""
    records: int = 0
    dropped: dict = field(default_factory=dict)


def _mean_duration(durations, label):
    if durations is None:
        return np.nan
    try:
        d = np.asarray(check.unmasked(durations, "durations"), dtype=float).ravel()
    except (TypeError, ValueError):
        raise check.InvalidType("durations", f"durations of model {label!r} must be seconds "
                                             f"(numbers), got {durations!r}") from None
    d = d[np.isfinite(d)]
    if d.size == 0:
        raise check.InvalidArgument("durations", f"model {label!r} has no finite duration")
    if (d < 0).any():
        raise check.InvalidArgument("durations", f"model {label!r} has a negative duration")
    return float(d.mean())


def as_models(scores, labels=None, durations=None):
    """Normalise :func:`curve`'s ``scores`` argument into a list of :class:`Model`.

    ``scores`` is one model's scores (a sequence of numbers), a mapping
    ``{label: scores}``, a sequence of score sequences, or searches read by
    :func:`evpsim.read_searches` (objects with ``label``, ``scores`` and
    ``durations``). ``durations`` (seconds per trial, or their mean) is a
    mapping by label or a sequence aligned with the models.
    """
    if hasattr(scores, "scores") and hasattr(scores, "label"):
        scores = [scores]
    if isinstance(scores, dict):
        if not scores:
            raise check.InvalidArgument("scores", "scores is an empty mapping: give "
                                                  "{label: scores} for at least one model")
        items = [(str(k), v, None, None) for k, v in scores.items()]
    elif (isinstance(scores, (list, tuple)) and scores
          and all(hasattr(s, "scores") and hasattr(s, "label") for s in scores)):
        items = [(s.label, s.scores, getattr(s, "durations", None), s) for s in scores]
    elif (isinstance(scores, (list, tuple)) and scores
          and all(isinstance(s, (list, tuple, np.ndarray)) for s in scores)):
        items = [(f"model {k + 1}", s, None, None) for k, s in enumerate(scores)]
    else:
        items = [("model", scores, None, None)]
    if labels is not None:
        if isinstance(labels, str):
            labels = [labels]
        if not isinstance(labels, (list, tuple, np.ndarray)):
            raise check.InvalidType("labels", f"labels must be a string or a list of strings, "
                                              f"got {labels!r}")
        labels = [check.string(lb, "labels") for lb in labels]
        if len(labels) != len(items):
            raise check.InvalidArgument("labels", f"labels: {len(labels)} given for "
                                                  f"{len(items)} model(s)")
        items = [(lb,) + it[1:] for lb, it in zip(labels, items)]
    names = [it[0] for it in items]
    if len(set(names)) != len(names):
        raise check.InvalidArgument("labels", f"labels must differ, got {names}")
    if durations is not None:
        if isinstance(durations, dict):
            unknown = set(durations) - set(names)
            if unknown:
                raise check.InvalidArgument("durations", f"durations for unknown model(s) "
                                                         f"{sorted(unknown)}")
            durations = [durations.get(n) for n in names]
        elif not isinstance(durations, (list, tuple, np.ndarray)):
            raise check.InvalidType("durations", f"durations must be a mapping by label or a "
                                                 f"sequence with one entry per model, got "
                                                 f"{durations!r}")
        elif len(durations) != len(items):
            raise check.InvalidArgument("durations", f"durations: {len(durations)} given for "
                                                     f"{len(items)} model(s)")
        items = [it[:2] + (d,) + it[3:] for it, d in zip(items, durations)]
    out = []
    for label, xs, dur, search in items:
        name = "scores" if len(items) == 1 else f"scores of {label!r}"
        xs = check.spread(check.scores(xs, name), name, f"the range of the {name}")
        out.append(Model(label, xs, _mean_duration(dur, label), getattr(search, "source", ""),
                         getattr(search, "metric", ""), getattr(search, "records", xs.size),
                         dict(getattr(search, "dropped", {}))))
    return out


# --- the curve of one's own results ------------------------------------------------------

def curve(scores, *, labels=None, estimators=None, ci_methods=None, level=0.95,
          resamples=10_000, seed=0, bounds=None, minimize=False, target=None,
          durations=None, metric=None, curve="mean"):
    """EVP curves of one's own search results, with intervals and comparisons.

    For every model and every budget n = 1..B (its own B: nothing is
    extrapolated beyond the trials it ran), the estimated expected best
    score, the SD of the best of n, and confidence intervals; for every
    pair of models, which is ahead, an interval for the difference and the
    share of bootstrap differences in which the first is ahead. All are estimates from
    the data given, not truths; :func:`evpsim.self_check` tells how far the
    intervals can be trusted for distributions like these.

    Parameters
    ----------
    scores : array_like, mapping, sequence, or searches
        One model's scores; ``{label: scores}``; a sequence of score
        sequences; or searches from :func:`evpsim.read_searches` (which
        carry labels, durations and dropped-record counts).
    labels : sequence of str, optional
        Model names, one per model (default the mapping's keys or the
        searches' labels, else ``"model"``, ``"model 2"``, ...).
    estimators : str or sequence, optional
        L-statistic estimators (default ``"V"`` for the mean curve, e.g.
        ``"U,V,W"``; ``"quantile"`` for a quantile curve).
    ci_methods : str or sequence, optional
        CI methods. Default ``"gpd-tail"`` for the mean curve (it reaches
        beyond the best score observed with a generalized Pareto tail
        fitted to the top scores: the best trade-off of ``evpsim reproduce
        intervals``), ``"percentile"`` (Tang et al. 2020) for a quantile
        curve or when a model has fewer than 10 trials
        (:func:`evpsim.intervals.curve_ci_method`). Band methods (``dkw``,
        ``ks``, ``ld-equal-tailed``, ``ld-highest-density``) need
        ``bounds``; the resampling methods bound the mean curve only.
    level : float
        Two-sided confidence level, in (0, 1).
    resamples : int
        Resamples per model and method (at least 2).
    seed : int
        Seed; model k (0-based) resamples from stream ``(seed, k)``.
    bounds : (float, float), optional
        Known range of the metric (e.g. ``(0, 1)`` for accuracy), needed by
        band methods.
    minimize : bool
        The scores are losses: curves of the expected *minimum*; "ahead"
        and "reaches" mean lower.
    target : float, optional
        A score to reach: adds the smallest budget at which the estimate
        reaches it and at which each interval's pessimistic end does.
    durations : mapping or sequence, optional
        Seconds per trial (or their mean) per model, for an expected
        wall-clock axis; searches from :func:`evpsim.read_searches` with a
        time field carry them already.
    metric : str, optional
        Name of the metric, for tables and axis labels (default the
        searches' field or column, else ``"score"``).
    curve : str or Target
        The curve: ``"mean"`` (the expected best score, default),
        ``"median"`` or ``"quantile:Q"`` (the Q-quantile of the best score
        of n trials, Lourie et al. 2024; with ``minimize``, of the lowest).

    Returns
    -------
    xarray.Dataset
        Dims ``model``, ``estimator``, ``ci_method``, ``n`` (1..largest B;
        NaN beyond a model's own B):

        * ``estimate`` (model, estimator, n) and ``sd`` (model, n);
        * ``lower``, ``upper`` (model, estimator, ci_method, n);
        * ``free_bound`` (model, n): beside the two-sided intervals, a
          one-sided bound at ``level`` on the pessimistic side (the
          expected best is at least this; for losses, at most) that holds
          at every n at once whatever the distribution
          (:func:`evpsim.intervals.free_lower_bound`); it needs the worst
          score possible (scalar coordinate ``free_bound_worst``): the
          metric's low end from ``bounds``, else 0 when no score is
          negative (``free_bound_assumed`` True), else it is NaN;
        * coordinates ``B``, ``best_observed``, ``worst_observed`` per
          model, ``ci_method_kind`` and ``ci_method_assumes`` (what each
          method's upper limits rest on); ``mean_duration`` (seconds) and
          ``expected_time`` (model, n: n times the mean duration) with
          durations;
        * with two or more models, dim ``pair`` (coordinates ``model_a``,
          ``model_b``): ``difference`` (``theta_a - theta_b`` estimated),
          ``difference_lower``/``difference_upper`` (pair, estimator,
          ci_method, n: for bootstrap methods the percentile interval of
          the bootstrap differences, models resampled independently; for
          bands and resampling methods, both models' intervals at level
          ``1 - (1 - level) / 2`` combined, for bands simultaneous over n),
          ``share_ahead`` (the share of bootstrap differences, recentred
          on the estimated difference, in which ``model_a`` is ahead, ties
          counting half: a description of the bootstrap distribution, not
          the probability that ``model_a`` is truly better; see
          :func:`share_ahead`) and ``ahead`` (the label ahead by the
          estimates, or ``"tie"``; ``share_ahead`` is at least 1/2 exactly
          when ``model_a`` is), for n up to the smaller B;
        * with ``target``: ``budget`` (model, estimator) and
          ``budget_interval`` (model, estimator, ci_method), NaN where no
          n <= B reaches it;
        * how the scores were read: coordinates ``source`` and ``records``
          (model: the file, and the records read, kept and dropped) and
          ``drop_reason``; ``dropped`` (model, drop_reason): records
          dropped while reading, by reason (empty for scores given
          directly);
        * scalar coordinates ``minimize`` (bool), ``bounds_lo``,
          ``bounds_hi`` and ``target`` (NaN when not given);
        * attributes: ``level``, ``resamples``, ``seed``, ``metric`` and
          the provenance of every evpsim result (package versions, thread
          count, creation time, command line, platform). The command line
          adds ``input_*`` (the paths, field, column, reduce, group,
          select, time field and labels given) and, with ``--check``, the
          variables and attributes of :func:`evpsim.self_check`.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.curve({"A": [0.71, 0.74, 0.69, 0.80, 0.77],
    ...                    "B": [0.70, 0.72, 0.75, 0.73, 0.74]}, resamples=2000)
    >>> [round(float(v), 4) for v in ds["estimate"].sel(model="A", estimator="V")[:3]]
    [0.742, 0.7644, 0.7761]
    >>> str(ds["ahead"].sel(estimator="V", n=5).item())
    'A'
    """
    models = as_models(scores, labels, durations)
    kind = as_target(curve)
    minimize = check.boolean(minimize, "minimize")
    # larger is better inside: the Q-quantile of the lowest loss is minus the
    # (1 - Q)-quantile of the best of the negated losses
    flipped = Target("quantile", 1.0 - kind.q) if minimize and kind.kind == "quantile" \
        else kind
    if estimators is None:
        estimators = "V" if kind.kind == "mean" else "quantile"
    ests = lstatistic_estimators(estimators, kind, min(m.scores.size for m in models), [1])
    if ci_methods is None:
        ci_methods = curve_ci_method(kind, min(m.scores.size for m in models))[0]
    meths = resolve_ci_methods(ci_methods)
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed = check.seed(seed)
    if target is not None:
        target = check.number(target, "target")
    if metric is None:
        found = {m.metric for m in models} - {""}
        metric = found.pop() if len(found) == 1 else "score"
    metric = check.string(metric, "metric")
    sign = -1.0 if minimize else 1.0
    if bounds is not None:
        lo = min(m.scores.min() for m in models)
        hi = max(m.scores.max() for m in models)
        bounds = check.bounds(bounds, lo, hi, "every score")
    ybounds = None if bounds is None else tuple(sorted(sign * b for b in bounds))
    need_boot = len(models) > 1
    # the comparisons need a bootstrap distribution even when no bootstrap method was asked for
    run_methods = [m.name for m in meths] + (
        ["percentile"] if need_boot and all(m.kind != "bootstrap" for m in meths) else [])
    per_model = []
    for k, model in enumerate(models):
        ds = bootstrap_intervals(sign * model.scores, [e.name for e in ests],
                                 ci_methods=run_methods, level=level, resamples=resamples,
                                 seed=seed, stream=k, distribution=need_boot, bounds=ybounds,
                                 curve=flipped)
        per_model.append(ds)
    ds = _assemble(models, ests, meths, per_model, sign, level)
    _add_free_bound(ds, models, ybounds, sign, level, flipped)
    if need_boot:
        halves = [m for m in meths if m.kind != "bootstrap"]
        half_ivs = _half_intervals(models, ests, halves, 1.0 - 0.5 * (1.0 - level), ybounds,
                                   sign, flipped, resamples, seed) if halves else None
        _add_comparisons(ds, models, per_model, sign, level, half_ivs)
    if target is not None:
        _add_budgets(ds, sign, target)
    _add_reading(ds, models)
    nan = float("nan")
    ds = ds.assign_coords(
        curve=((), kind.name, {"long_name": kind.description}),
        minimize=((), minimize, {"long_name": "the scores are losses: curves of the minimum"}),
        bounds_lo=((), nan if bounds is None else bounds[0], {"long_name": "metric's range, "
                                                                           "low end"}),
        bounds_hi=((), nan if bounds is None else bounds[1], {"long_name": "metric's range, "
                                                                           "high end"}),
        target=((), nan if target is None else target, {"long_name": "score to reach"}))
    ds.attrs.update(provenance(level=level, resamples=resamples, seed=int(seed),
                               metric=metric))
    return ds


def _add_free_bound(ds, models, bounds, sign, level, target):
    """``free_bound`` (model, n): the one-sided distribution-free bound on the pessimistic
    side (:func:`evpsim.intervals.free_lower_bound`), in the scores' own direction.

    It needs the worst score possible: the low end of ``bounds`` (larger is
    better inside), else 0 when every score is at least 0 (assumed, and
    said so by ``free_bound_assumed``); without either it is NaN.
    """
    every = np.concatenate([sign * m.scores for m in models])
    assumed = bounds is None and sign > 0 and every.min() >= 0
    worst = bounds[0] if bounds is not None else (0.0 if assumed else np.nan)
    bound = np.full((len(models), ds.sizes["n"]), np.nan)
    if np.isfinite(worst):
        for k, model in enumerate(models):
            bound[k, :model.scores.size] = sign * free_lower_bound(
                sign * model.scores, worst, level=level, curve=target)
    side = "lower" if sign > 0 else "upper"
    ds["free_bound"] = (("model", "n"), bound, {
        "long_name": f"distribution-free one-sided {level:g} {side} bound: the curve is "
                     f"{'at least' if sign > 0 else 'at most'} this at every n at once, "
                     f"whatever the distribution of the scores (one-sided Learned-Miller-"
                     f"DeStefano band); it assumes only the worst score possible, "
                     f"free_bound_worst"})
    ds.coords["free_bound_worst"] = ((), sign * worst, {
        "long_name": "the worst score possible, which the distribution-free bound assumes "
                     "(NaN: not known, no bound)"})
    ds.coords["free_bound_assumed"] = ((), bool(assumed), {
        "long_name": "the worst score possible was assumed to be 0 (no bounds given)"})


def _add_reading(ds, models):
    """Per model: where its scores came from, records read and dropped by reason."""
    reasons = list(dict.fromkeys(r for m in models for r in m.dropped))
    ds.coords["source"] = ("model", [m.source for m in models])
    ds.coords["records"] = ("model", [m.records for m in models],
                            {"long_name": "records read, kept and dropped"})
    ds.coords["drop_reason"] = ("drop_reason", np.array(reasons, dtype=str))
    ds["dropped"] = (("model", "drop_reason"),
                     np.array([[m.dropped.get(r, 0) for r in reasons] for m in models],
                              dtype=np.int64).reshape(len(models), len(reasons)),
                     {"long_name": "records dropped while reading, by reason"})


def _assemble(models, ests, meths, per_model, sign, level):
    """The per-model variables, padded to the largest B, in the scores' own direction."""
    K, E, C = len(models), len(ests), len(meths)
    nmax = max(m.scores.size for m in models)
    estimate = np.full((K, E, nmax), np.nan)
    sd = np.full((K, nmax), np.nan)
    lower = np.full((K, E, C, nmax), np.nan)
    upper = np.full_like(lower, np.nan)
    names = [m.name for m in meths]
    for k, (model, iv) in enumerate(zip(models, per_model)):
        B = model.scores.size
        iv = iv.sel(ci_method=names)
        estimate[k, :, :B] = sign * iv["estimate"].values
        lo, hi = iv["lower"].values, iv["upper"].values
        lower[k, ..., :B] = lo if sign > 0 else -hi
        upper[k, ..., :B] = hi if sign > 0 else -lo
        sd[k, :B] = best_of_n_sd(np.sort(model.scores), np.arange(1, B + 1))
    coords = {
        "model": [m.label for m in models], "estimator": [e.name for e in ests],
        "ci_method": names, "n": np.arange(1, nmax + 1),
        "ci_method_kind": ("ci_method", [m.kind for m in meths]),
        "ci_method_assumes": ("ci_method", [m.assumes for m in meths]),
        "B": ("model", [m.scores.size for m in models]),
        "best_observed": ("model", [sign * (sign * m.scores).max() for m in models]),
        "worst_observed": ("model", [sign * (sign * m.scores).min() for m in models]),
    }
    ds = xr.Dataset(coords=coords)
    ds["estimate"] = (("model", "estimator", "n"), estimate,
                      {"long_name": "estimated expected best score after n trials"})
    ds["sd"] = (("model", "n"), sd,
                {"long_name": "SD of the best of n draws from the observed scores"})
    dims = ("model", "estimator", "ci_method", "n")
    ds["lower"] = (dims, lower, {"long_name": f"lower end of the {level:g} interval"})
    ds["upper"] = (dims, upper, {"long_name": f"upper end of the {level:g} interval"})
    durations = np.array([m.mean_duration for m in models])
    if np.isfinite(durations).any():
        ds = ds.assign_coords(mean_duration=("model", durations))
        ds["expected_time"] = (("model", "n"), durations[:, None] * np.arange(1, nmax + 1),
                               {"long_name": "expected wall-clock of n trials", "units": "s"})
        ds["expected_time"] = ds["expected_time"].where(np.isfinite(ds["estimate"][:, 0]))
    return ds


def _half_intervals(models, ests, methods, level, bounds, sign, target, resamples, seed):
    """Intervals (2, model, estimator, method, n) of band and resampling methods at
    ``level``, in the larger-is-better direction (the resamples of model k from stream
    ``(seed, k)``, as its own intervals')."""
    nmax = max(m.scores.size for m in models)
    out = np.full((2, len(models), len(ests), len(methods), nmax), np.nan)
    for k, model in enumerate(models):
        iv = bootstrap_intervals(sign * model.scores, [e.name for e in ests],
                                 ci_methods=[m.name for m in methods], level=level,
                                 bounds=bounds, resamples=resamples, seed=seed, stream=k,
                                 curve=target)
        B = model.scores.size
        out[0, k, ..., :B], out[1, k, ..., :B] = iv["lower"].values, iv["upper"].values
    return out


def _add_comparisons(ds, models, per_model, sign, level, halves):
    """``difference`` with its intervals, ``share_ahead`` and ``ahead`` for every pair.

    ``halves`` holds the intervals of each model's band and resampling
    methods at level ``1 - (1 - level) / 2`` (from :func:`_half_intervals`,
    or None): by Bonferroni, two such intervals give a difference interval
    at level at least ``level`` (two simultaneous bands, one holding at every
    n at once).
    """
    pairs = list(combinations(range(len(models)), 2))
    E, C, nmax = ds.sizes["estimator"], ds.sizes["ci_method"], ds.sizes["n"]
    kinds = ds["ci_method_kind"].values.tolist()
    boot_cols = [c for c, kind in enumerate(kinds) if kind == "bootstrap"]
    half_cols = [c for c, kind in enumerate(kinds) if kind != "bootstrap"]
    shape = (len(pairs), E, nmax)
    diff, share = np.full(shape, np.nan), np.full(shape, np.nan)
    dlo, dhi = np.full((len(pairs), E, C, nmax), np.nan), np.full((len(pairs), E, C, nmax), np.nan)
    ahead = np.full(shape, "", dtype=object)
    alpha = 0.5 * (1.0 - level)
    labels = [m.label for m in models]
    est = sign * ds["estimate"].values  # larger is better
    for p, (a, b) in enumerate(pairs):
        nn = min(models[a].scores.size, models[b].scores.size)
        # bootstrap estimates in the larger-is-better direction: (resample, estimator, n)
        boot_a = per_model[a]["bootstrap_distribution"].values[..., :nn]
        boot_b = per_model[b]["bootstrap_distribution"].values[..., :nn]
        d = boot_a - boot_b
        q_lo, q_hi = np.quantile(d, [alpha, 1.0 - alpha], axis=0)
        gap = est[a, :, :nn] - est[b, :, :nn]
        share[p, :, :nn] = share_ahead(d, gap)
        diff[p, :, :nn] = sign * gap
        ahead[p, :, :nn] = np.where(gap > 0, labels[a], np.where(gap < 0, labels[b], "tie"))
        lo, hi = np.empty((E, C, nn)), np.empty((E, C, nn))
        lo[:, boot_cols], hi[:, boot_cols] = q_lo[:, None], q_hi[:, None]
        for g, c in enumerate(half_cols):
            lo[:, c] = halves[0, a, :, g, :nn] - halves[1, b, :, g, :nn]
            hi[:, c] = halves[1, a, :, g, :nn] - halves[0, b, :, g, :nn]
        dlo[p, ..., :nn], dhi[p, ..., :nn] = (lo, hi) if sign > 0 else (-hi, -lo)
    ds.coords["model_a"] = ("pair", [labels[a] for a, _ in pairs])
    ds.coords["model_b"] = ("pair", [labels[b] for _, b in pairs])
    dims = ("pair", "estimator", "n")
    ds["difference"] = (dims, diff, {"long_name": "estimated theta_a(n) - theta_b(n)"})
    idims = ("pair", "estimator", "ci_method", "n")
    how = (f"{level:g} interval of the difference: bootstrap methods, percentile interval of "
           f"the bootstrap differences; bands and resampling methods, the {1 - alpha:g} "
           f"intervals of both models combined (Bonferroni)")
    ds["difference_lower"] = (idims, dlo, {"long_name": f"lower end of the {how}"})
    ds["difference_upper"] = (idims, dhi, {"long_name": f"upper end of the {how}"})
    ds["share_ahead"] = (dims, share, {
        "long_name": "share of the bootstrap differences, recentred on the estimated "
                     "difference, in which model_a is ahead (ties count half); not the "
                     "probability that model_a is truly better"})
    ds["ahead"] = (dims, ahead.astype(str), {"long_name": "model ahead by the estimates"})


def share_ahead(differences, estimate):
    """Share of bootstrap differences on the first model's side, recentred on the estimate.

    Each model's bootstrap estimates are biased relative to its estimate
    (V's most, near n = B), so raw bootstrap differences need not be
    centred on the estimated difference, and their raw share can favour
    the model that the estimates put behind. The differences are shifted
    so that their median is the estimated difference; the share is then
    at least 1/2 exactly when the first model is ahead by the estimates,
    and the two never contradict each other.

    Parameters
    ----------
    differences : ndarray
        Bootstrap differences ``theta_a* - theta_b*``, resamples on axis 0.
    estimate : ndarray
        The estimated differences (the shape of ``differences[0]``).

    Returns
    -------
    ndarray
        The share in which the first model is ahead, ties counting half.

    Examples
    --------
    >>> d = np.array([[-0.3], [-0.1], [0.2], [0.4], [0.5]])   # raw share ahead: 0.6
    >>> share_ahead(d, np.array([-0.05]))                     # ahead by the estimate: b
    array([0.4])
    """
    shifted = differences + (estimate - np.median(differences, axis=0))
    return (shifted > 0).mean(axis=0) + 0.5 * (shifted == 0).mean(axis=0)


def _add_budgets(ds, sign, target):
    """Smallest n whose estimate, and whose interval's pessimistic end, reach ``target``."""
    est = sign * ds["estimate"].values
    pessimistic = (ds["lower"] if sign > 0 else -ds["upper"]).values
    t = sign * target
    budget = np.apply_along_axis(first_reaching, -1, est, t)
    budget_iv = np.apply_along_axis(first_reaching, -1, pessimistic, t)
    ds["budget"] = (("model", "estimator"), budget,
                    {"long_name": f"smallest n whose estimate reaches {target:g}"})
    ds["budget_interval"] = (("model", "estimator", "ci_method"), budget_iv,
                             {"long_name": f"smallest n whose interval's pessimistic end "
                                           f"reaches {target:g}"})
