"""Curves of runs: an adaptive search's curve from k seeds, and two searches compared.

An adaptive search (TPE, Bayesian optimisation, Hyperband and its pruners)
has no i.i.d. trials: each trial depends on the earlier ones, so V, U, W and
their intervals answer the wrong question. Its tuning curve is still well
defined: the expected (or median) best score among its first n trials, over
the randomness of the search itself. k runs with different seeds are k
independent draws of a best-so-far curve ``b_r(n)``, the best score among
run r's first n trials; :func:`runs_curve` gives their mean and median at
every n up to the shortest run, with intervals across runs
(:mod:`evpsim.intervals.runs`, the defaults chosen by the runs battery), and
for two or more searches the difference of their curves with an interval,
the share of resamples and the share of pairs of runs in which one is ahead,
and the budget from which one is ahead.

Runs of random search are also i.i.d. trials: their pooled trials give V's
curve (:func:`evpsim.curve`) with its interval, valid for random search
alone and tighter; :func:`runs_curve` gives both for the searches declared
random, and :func:`runs_notes` says which assumption each rests on.
"""

from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace

import numpy as np
import xarray as xr

from .. import _validate as check
from ..intervals import RUN_CURVES, best_so_far, resolve_run_methods, run_intervals
from ..io.results import provenance
from ..io.runs import SearchRuns
from ..io.search import Search
from ..io.trials import NO_BOUNDS, RANDOM_SAMPLERS, direction
from .curve import metric_scale, share_ahead

__all__ = ["runs_curve", "runs_notes", "observed_curves", "MEAN_CAUTION"]

#: what the runs battery (``evpsim reproduce runs``) found of the mean curve's interval
MEAN_CAUTION = (
    "note: the mean curve's interval (student-t) misses when a run's best score can fall far below "
    "the others' with a chance near 1 / (runs), as in a search that fails now and then: the "
    "runs battery measured its coverage down to 0.452 [0.430, 0.474] with 5 runs and 0.475 "
    "[0.453, 0.497] with 20 on such truths, held at every n on 39 of 82 truths for random "
    "search with 5 runs; the median curve's interval (order-statistic) held on all 82")


def runs_curve(runs, *, labels=None, random_search=None, minimize=False, ci_methods=None,
               level=0.95, resamples=10_000, seed=0, pooled_ci_method=None, bounds=None):
    """Curves of searches run several times (seeds), with intervals across runs.

    Parameters
    ----------
    runs : sequence or mapping
        One search's runs, each a sequence of scores in the order its
        trials ran (at least 2 runs of at least 1 trial); or ``{label:
        runs}`` for several searches (e.g. ``{"TPE": [...], "random":
        [...]}``). A run may also be a search as read
        (:class:`~evpsim.io.search.Search`, its scores in trial order) or an
        :class:`optuna.Study` (read by
        :func:`~evpsim.io.trackers.optuna_studies.read_study`: failed and
        pruned trials by their rules, its direction); and the searches of
        :func:`evpsim.read_runs` are given as they are (a list of them).
    labels : sequence of str, optional
        The searches' names (default the mapping's keys or the searches'
        labels, else ``"model"``).
    random_search : bool, str or sequence of str, optional
        The searches whose runs are random search (True: all; False:
        none): their pooled trials also give V's curve with its interval,
        which assumes i.i.d. trials. Default: those whose runs record a
        sampler that draws at random (Optuna's ``RandomSampler``, Ray
        Tune's ``BasicVariantGenerator``: see
        :data:`~evpsim.io.trials.RANDOM_SAMPLERS`); runs given as scores
        record none.
    minimize : bool
        The scores are losses: best means lowest, "ahead" means lower
        (implied by runs that record a minimising direction, as a
        minimising study).
    ci_methods : str or sequence, optional
        Intervals across runs (:data:`evpsim.intervals.runs.RUN_CI_METHODS`;
        default :data:`evpsim.intervals.runs.DEFAULTS`, one per curve).
    level : float
        Two-sided level of every interval.
    resamples : int
        Bootstrap resamples of each search's runs.
    seed : int
        Search g (0-based) resamples its runs from stream ``(seed, g)``;
        the pooled curve of a random search uses ``seed`` as
        :func:`evpsim.curve` does.
    pooled_ci_method : str, optional
        CI method of the pooled V curve (default :func:`evpsim.curve`'s
        for the mean curve); the pooled median curve's is
        :func:`evpsim.curve`'s for a median (order-statistic).
    bounds : (float, float) or "none", optional
        The metric's range, as :func:`evpsim.curve` takes it (given, found
        where every score lies in [0, 1] on a lattice, or ``"none"``): no
        interval across runs ends outside it, nor the difference's outside
        ``(lo - hi, hi - lo)``; the pooled curves are drawn with it.

    Returns
    -------
    xarray.Dataset
        Dims ``model``, ``run``, ``curve`` (mean, median), ``ci_method``,
        ``n`` (1 up to the largest of the searches' shortest runs; NaN
        beyond a search's own shortest run), in the scores' own direction:

        * ``best_so_far`` (model, run, n): each run's best score among its
          first n trials;
        * ``estimate`` (model, curve, n): their mean and median over runs;
          ``lower``, ``upper`` (model, curve, ci_method, n): intervals
          across runs (NaN where a method does not bound a curve);
        * ``pooled_estimate``, ``pooled_lower``, ``pooled_upper`` (model,
          curve, n): the curves of the pooled trials and their intervals,
          for the searches declared random (NaN for the others): V's for
          the mean curve, the quantile estimator's for the median
          (coordinates ``pooled_estimator`` and ``pooled_method``, per
          curve: :func:`evpsim.curve`'s defaults);
        * scalar coordinates ``bounds_lo``, ``bounds_hi`` (NaN when
          unknown) and ``bounds_from``, as :func:`evpsim.curve`'s;
        * coordinates ``runs``, ``shortest``, ``longest``, ``trials``
          (pooled), ``random_search`` and ``sampler`` (``""`` where none is
          recorded) per model, ``run_name`` (model, run: its study,
          experiment, path or run-field value as read, its 0-based index
          for scores given; ``""`` past a search's runs), ``bounds_curve``
          (curve, ci_method), ``ci_method_assumes``;
        * with two or more searches, dim ``pair`` (``model_a``,
          ``model_b``): ``difference`` (pair, curve, n), ``difference_lower``
          and ``difference_upper`` (Welch's t interval for the mean curve,
          the percentile interval of the resampled differences for the
          median curve: coordinate ``difference_method``),
          ``share_ahead`` and ``share_ahead_se`` (the share of resamples,
          differences recentred on the estimate, in which ``model_a`` is
          ahead, ties counting half: a description of the resamples, not
          the probability that ``model_a`` is truly better), ``share_runs_ahead``
          (pair, n: the share of pairs of runs, one of each, in which
          ``model_a``'s is ahead at n, ties counting half), ``ahead``
          (the label ahead by the estimates, or ``"tie"``), ``leader``
          (pair, curve: the one ahead at the last common n), ``ahead_from``
          (the smallest n from which the leader is ahead at every n up to
          the last common one), ``ahead_from_lower`` and
          ``ahead_from_upper`` (the quantiles at ``(1 - level) / 2`` and
          ``(1 + level) / 2`` of that budget over the resamples; inf: in
          those resamples the leader is not ahead at the last n) and
          ``surely_ahead_from`` (the smallest n from which the difference
          interval lies on the leader's side at every n up to the last; NaN
          if it does not at the last);
        * attributes ``level``, ``resamples``, ``seed`` and provenance.

    Examples
    --------
    >>> ds = runs_curve({"A": [[0.70, 0.80, 0.75], [0.60, 0.85, 0.90], [0.72, 0.74, 0.80]],
    ...                  "B": [[0.65, 0.70, 0.72], [0.70, 0.71, 0.73], [0.66, 0.69, 0.75]]},
    ...                 resamples=500)
    >>> [round(float(v), 4) for v in ds["estimate"].sel(model="A", curve="mean")]
    [0.6733, 0.7967, 0.8333]
    >>> mean = ds.sel(curve="mean").isel(pair=0)
    >>> str(mean["leader"].item()), int(mean["ahead_from"]), float(mean["surely_ahead_from"])
    ('A', 1, nan)
    """
    minimize = check.boolean(minimize, "minimize")
    groups, read = _groups(runs, labels, minimize)
    minimize = direction([r for _, rs in read for r in rs], minimize)
    randoms = _random_searches(random_search, groups, read)
    methods = resolve_run_methods(ci_methods)
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed = check.seed(seed)
    sign = -1.0 if minimize else 1.0
    curves = [best_so_far(r, minimize=minimize, name=f"runs[{label!r}]") for label, r in groups]
    bounds, bounds_from = metric_scale(bounds, [SimpleNamespace(scores=np.concatenate(cs))
                                                for cs in curves])
    shortest = [min(c.size for c in cs) for cs in curves]
    N = max(shortest)
    per = [run_intervals(sign * np.array([c[:s] for c in cs]), ci_methods=methods, level=level,
                         resamples=resamples, seed=seed, stream=g)
           for g, (cs, s) in enumerate(zip(curves, shortest))]
    ds = _assemble(groups, curves, per, methods, N, sign, level)
    _add_reading(ds, read)
    _add_pooled(ds, groups, randoms, level, resamples, seed, minimize, pooled_ci_method,
                NO_BOUNDS if bounds is None else bounds)
    if len(groups) > 1:
        _add_pairs(ds, per, sign, level)
    _cut(ds, bounds, bounds_from)
    ds.attrs.update(provenance(level=level, resamples=resamples, seed=seed,
                               minimize=minimize))
    return ds


def _groups(runs, labels, minimize):
    """``[(label, runs as scores)]`` from one search's runs or a mapping of them, and each
    search's runs as read (``[(label, searches)]``: empty for scores given)."""
    if isinstance(runs, SearchRuns):
        runs = [runs]
    if isinstance(runs, (list, tuple)) and runs and all(isinstance(r, SearchRuns)
                                                        for r in runs):
        given = [r.label for r in runs]
        values = [list(r.runs) for r in runs]
    elif isinstance(runs, dict):
        if not runs:
            raise check.InvalidArgument("runs", "runs: the mapping holds no search")
        given = [str(k) for k in runs]
        values = list(runs.values())
    else:
        given, values = ["model"], [runs]
    if labels is not None:
        labels = [labels] if isinstance(labels, str) else list(labels)
        if len(labels) != len(values):
            raise check.InvalidArgument("labels", f"labels: {len(labels)} given for "
                                                  f"{len(values)} search(es)")
        given = [check.string(x, "labels") for x in labels]
    if len(set(given)) != len(given):
        raise check.InvalidArgument("labels", f"labels: a label given twice in {given}")
    read = [(label, _read_runs(value, minimize)) for label, value in zip(given, values)]
    scores = [(label, [r.scores for r in rs] if rs else value)
              for (label, rs), value in zip(read, values)]
    return scores, read


def _read_runs(value, minimize):
    """A search's runs given as searches read or Optuna studies, as searches (``[]`` for
    runs given as scores)."""
    items = list(value) if isinstance(value, (list, tuple)) else None
    if not items:
        return []
    if all(isinstance(r, Search) for r in items):
        return items
    if all(hasattr(r, "get_trials") and hasattr(r, "directions") for r in items):
        from ..io.trackers.optuna_studies import read_study

        return [read_study(r, minimize=minimize) for r in items]
    return []


def _random_searches(random_search, groups, read):
    """The labels declared random search (None: those whose runs record a sampler that
    draws at random)."""
    labels = [label for label, _ in groups]
    if random_search is None:
        return [label for label, rs in read
                if rs and all(r.sampler in RANDOM_SAMPLERS for r in rs)]
    if random_search is False:
        return []
    if random_search is True:
        return list(labels)
    names = [random_search] if isinstance(random_search, str) else list(random_search)
    unknown = [n for n in names if n not in labels]
    if unknown:
        raise check.InvalidArgument("random_search", f"random_search: {unknown[0]!r} is no "
                                                     f"search's label; labels: "
                                                     f"{', '.join(labels)}")
    return names


def _add_reading(ds, read):
    """Each run's name and each search's sampler, as read (names by index for scores
    given)."""
    names = np.full((ds.sizes["model"], ds.sizes["run"]), "", dtype=object)
    samplers = []
    for g, ((_, rs), k) in enumerate(zip(read, ds["runs"].values)):
        names[g, :k] = [r.run or r.label for r in rs] if rs else [str(r) for r in range(k)]
        samplers.append(rs[0].sampler if rs else "")
    ds.coords["run_name"] = (("model", "run"), names.astype(str))
    ds.coords["sampler"] = ("model", samplers)


def _pad(values, N):
    """``values`` (..., m) padded with NaN to (..., N)."""
    out = np.full((*values.shape[:-1], N), np.nan)
    out[..., :values.shape[-1]] = values
    return out


def _assemble(groups, curves, per, methods, N, sign, level):
    """The per-search variables, in the scores' own direction."""
    K = max(len(cs) for cs in curves)
    bsf = np.full((len(groups), K, N), np.nan)
    for g, cs in enumerate(curves):
        for r, c in enumerate(cs):
            bsf[g, r, :min(c.size, N)] = c[:N]
    est = np.stack([_pad(sign * iv["estimate"].values, N) for iv in per])
    lo = np.stack([_pad(iv["lower"].values, N) for iv in per])
    hi = np.stack([_pad(iv["upper"].values, N) for iv in per])
    lower, upper = (lo, hi) if sign > 0 else (-hi, -lo)
    dims = ("model", "curve", "ci_method", "n")
    ds = xr.Dataset(coords={
        "model": [g for g, _ in groups], "run": np.arange(K), "curve": list(RUN_CURVES),
        "ci_method": [m.name for m in methods], "n": np.arange(1, N + 1),
        "runs": ("model", [len(cs) for cs in curves]),
        "shortest": ("model", [min(c.size for c in cs) for cs in curves]),
        "longest": ("model", [max(c.size for c in cs) for cs in curves]),
        "trials": ("model", [sum(c.size for c in cs) for cs in curves]),
        "bounds_curve": per[0]["bounds_curve"].variable,
        "ci_method_assumes": ("ci_method", [m.assumes for m in methods])})
    ds["best_so_far"] = (("model", "run", "n"), bsf,
                         {"long_name": "best score among the run's first n trials"})
    ds["estimate"] = (("model", "curve", "n"), est, {
        "long_name": "mean (median) over runs of each run's best score among its first n "
                     "trials; assumes only independent runs"})
    ds["lower"] = (dims, lower, {"long_name": f"lower end of the {level:g} interval across "
                                              f"runs"})
    ds["upper"] = (dims, upper, {"long_name": f"upper end of the {level:g} interval across "
                                              f"runs"})
    return ds


#: the estimator of each curve of the pooled trials (as :func:`evpsim.curve` draws them)
POOLED_ESTIMATORS = {"mean": "V", "median": "quantile"}


def _cut(ds, bounds, bounds_from):
    """Every interval across runs cut to the metric's range (a difference's to ``(lo - hi,
    hi - lo)``), and the range as coordinates."""
    lo, hi = (np.nan, np.nan) if bounds is None else bounds
    ds.coords["bounds_lo"], ds.coords["bounds_hi"] = lo, hi
    ds.coords["bounds_from"] = bounds_from
    if bounds is None:
        return
    for key in ("lower", "upper"):
        ds[key] = ds[key].clip(lo, hi)
    for key in ("difference_lower", "difference_upper"):
        if key in ds:
            ds[key] = ds[key].clip(lo - hi, hi - lo)


def _add_pooled(ds, groups, randoms, level, resamples, seed, minimize, ci_method, bounds):
    """The curves of each random search's pooled trials, and their intervals: V's for the
    mean curve, the quantile estimator's for the median (``ci_method`` of the mean
    curve's, else :func:`evpsim.curve`'s defaults)."""
    from .curve import curve

    N, C = ds.sizes["n"], len(RUN_CURVES)
    est, lo, hi = (np.full((len(groups), C, N), np.nan) for _ in range(3))
    methods = [""] * C
    for g, (label, runs) in enumerate(groups):
        if label not in randoms:
            continue
        pooled = np.concatenate([np.asarray(r, dtype=float) for r in runs])
        for c, kind in enumerate(RUN_CURVES):
            one = curve(pooled, estimators=POOLED_ESTIMATORS[kind], curve=kind,
                        ci_methods=ci_method if kind == "mean" else None, level=level,
                        resamples=resamples, seed=seed, minimize=minimize, bounds=bounds)
            m = min(N, one.sizes["n"])
            methods[c] = str(one["ci_method"].values[0])
            sel = one.isel(model=0, estimator=0, n=slice(0, m))
            est[g, c, :m] = sel["estimate"].values
            lo[g, c, :m] = sel["lower"].isel(ci_method=0).values
            hi[g, c, :m] = sel["upper"].isel(ci_method=0).values
    ds.coords["random_search"] = ("model", [label in randoms for label, _ in groups])
    ds.coords["pooled_estimator"] = ("curve", [POOLED_ESTIMATORS[k] for k in RUN_CURVES])
    ds.coords["pooled_method"] = ("curve", methods)
    text = ("assumes the pooled trials are i.i.d. (random search); valid for random search "
            "only")
    dims = ("model", "curve", "n")
    ds["pooled_estimate"] = (dims, est, {
        "long_name": f"expected (median) best score after n trials from the pooled trials, "
                     f"by pooled_estimator; {text}"})
    ds["pooled_lower"] = (dims, lo, {
        "long_name": f"lower end of its {level:g} interval (pooled_method); {text}"})
    ds["pooled_upper"] = (dims, hi, {
        "long_name": f"upper end of its {level:g} interval (pooled_method); {text}"})


def _trailing_start(ok):
    """Per row of ``ok`` (..., n), the first budget (1-based) of its last run of True
    values reaching the end; NaN where the last value is False."""
    n = ok.shape[-1]
    tail = np.cumprod(ok[..., ::-1], axis=-1).sum(axis=-1)
    return np.where(tail > 0, n - tail + 1, np.nan)


def _welch(xa, xb, gap, level):
    """Welch's t interval for the difference of the mean curves, larger is better."""
    from scipy.stats import t

    ka, kb = xa.shape[0], xb.shape[0]
    va, vb = xa.var(axis=0, ddof=1) / ka, xb.var(axis=0, ddof=1) / kb
    se = np.sqrt(va + vb)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (va + vb) ** 2 / (va**2 / (ka - 1) + vb**2 / (kb - 1))
    half = np.where(se > 0, t.ppf(0.5 + 0.5 * level, np.where(se > 0, df, 1.0)) * se, 0.0)
    return gap - half, gap + half


def _pair(ds, per, a, b, sign, level):
    """One pair's comparison in the larger-is-better direction: a dict of arrays, each
    (curve, n) for n up to the two searches' shortest run, but ``share_runs_ahead``
    (n) and the budgets (curve)."""
    nn = int(min(ds["shortest"].values[a], ds["shortest"].values[b]))
    alpha = 0.5 * (1.0 - level)
    vals = [sign * ds["best_so_far"].values[g, :int(ds["runs"].values[g]), :nn] for g in (a, b)]
    gap = per[a]["estimate"].values[:, :nn] - per[b]["estimate"].values[:, :nn]
    boot = (per[a]["bootstrap_distribution"].values[..., :nn]
            - per[b]["bootstrap_distribution"].values[..., :nn])  # (resample, curve, n)
    lo, hi = np.empty_like(gap), np.empty_like(gap)
    lo[0], hi[0] = _welch(vals[0], vals[1], gap[0], level)
    lo[1], hi[1] = np.quantile(boot[:, 1], [alpha, 1.0 - alpha], axis=0)
    share, share_se = share_ahead(boot, gap, return_se=True)
    xa, xb = vals[0][:, None, :], vals[1][None, :, :]
    runs_ahead = ((xa > xb).mean(axis=(0, 1)) + 0.5 * (xa == xb).mean(axis=(0, 1)))
    side = np.sign(gap[:, -1])  # the leader's side, per curve
    starts = _trailing_start(side[None, :, None] * boot > 0)  # (resample, curve)
    starts = np.where(np.isnan(starts), np.inf, starts)
    return dict(nn=nn, gap=gap, lo=lo, hi=hi, share=share, share_se=share_se,
                runs_ahead=runs_ahead, side=side,
                ahead_from=np.where(side != 0, _trailing_start(side[:, None] * gap > 0), np.nan),
                ahead_lower=np.where(side != 0, np.quantile(starts, alpha, axis=0,
                                                            method="inverted_cdf"), np.nan),
                ahead_upper=np.where(side != 0, np.quantile(starts, 1.0 - alpha, axis=0,
                                                            method="inverted_cdf"), np.nan),
                surely=np.where(side != 0, _trailing_start(
                    np.where(side[:, None] > 0, lo > 0, hi < 0)), np.nan))


def _add_pairs(ds, per, sign, level):
    """The comparisons of every pair of searches (see :func:`runs_curve`)."""
    labels = [str(m) for m in ds["model"].values]
    pairs = list(combinations(range(len(labels)), 2))
    N, C = ds.sizes["n"], len(RUN_CURVES)
    out = {k: np.full((len(pairs), C, N), np.nan) for k in
           ("difference", "difference_lower", "difference_upper", "share_ahead",
            "share_ahead_se")}
    runs_ahead = np.full((len(pairs), N), np.nan)
    budgets = {k: np.full((len(pairs), C), np.nan) for k in
               ("ahead_from", "ahead_from_lower", "ahead_from_upper", "surely_ahead_from")}
    ahead = np.full((len(pairs), C, N), "", dtype=object)
    leader = np.full((len(pairs), C), "", dtype=object)
    for p, (a, b) in enumerate(pairs):
        r = _pair(ds, per, a, b, sign, level)
        nn = r["nn"]
        lo, hi = (r["lo"], r["hi"]) if sign > 0 else (-r["hi"], -r["lo"])
        for key, value in (("difference", sign * r["gap"]), ("difference_lower", lo),
                           ("difference_upper", hi), ("share_ahead", r["share"]),
                           ("share_ahead_se", r["share_se"])):
            out[key][p, :, :nn] = value
        runs_ahead[p, :nn] = r["runs_ahead"]
        ahead[p, :, :nn] = np.where(r["gap"] > 0, labels[a],
                                    np.where(r["gap"] < 0, labels[b], "tie"))
        leader[p] = np.where(r["side"] > 0, labels[a], np.where(r["side"] < 0, labels[b], "tie"))
        for key, value in (("ahead_from", r["ahead_from"]), ("ahead_from_lower", r["ahead_lower"]),
                           ("ahead_from_upper", r["ahead_upper"]),
                           ("surely_ahead_from", r["surely"])):
            budgets[key][p] = value
    _pair_variables(ds, labels, pairs, out, runs_ahead, ahead, leader, budgets, level)


def _pair_variables(ds, labels, pairs, out, runs_ahead, ahead, leader, budgets, level):
    """The pair variables of :func:`_add_pairs`, with their long names."""
    ds.coords["model_a"] = ("pair", [labels[a] for a, _ in pairs])
    ds.coords["model_b"] = ("pair", [labels[b] for _, b in pairs])
    ds.coords["difference_method"] = ("curve", ["welch", "percentile"])
    dims = ("pair", "curve", "n")
    names = {
        "difference": "estimated curve of model_a minus model_b's",
        "difference_lower": f"lower end of the {level:g} interval of the difference: Welch's "
                            f"t for the mean curve, the percentile interval of the resampled "
                            f"differences (runs resampled in each search) for the median curve",
        "difference_upper": f"upper end of the {level:g} interval of the difference (as "
                            f"difference_lower)",
        "share_ahead": "share of resamples: of the resampled differences, recentred on the "
                       "estimated difference, the share in which model_a is ahead (ties count "
                       "half); not the probability that model_a is truly better",
        "share_ahead_se": "approximate Monte Carlo standard error of share_ahead"}
    for key, text in names.items():
        ds[key] = (dims, out[key], {"long_name": text})
    ds["share_runs_ahead"] = (("pair", "n"), runs_ahead, {
        "long_name": "share of pairs of runs, one of each search, in which model_a's run is "
                     "ahead at n (ties count half): a description of these runs, not the "
                     "probability that model_a is truly better"})
    ds["ahead"] = (dims, ahead.astype(str), {"long_name": "search ahead by the estimates"})
    ds["leader"] = (("pair", "curve"), leader.astype(str), {
        "long_name": "search ahead by the estimates at the last n both searches ran"})
    for key, text in (
            ("ahead_from", "smallest n from which the leader is ahead by the estimates at every "
                           "n up to the last both ran"),
            ("ahead_from_lower", f"{(1 - level) / 2:g} quantile of that budget over the "
                                 f"resamples"),
            ("ahead_from_upper", f"{(1 + level) / 2:g} quantile of that budget over the "
                                 f"resamples (inf: in those resamples the leader is not ahead "
                                 f"at the last n)"),
            ("surely_ahead_from", f"smallest n from which the {level:g} interval of the "
                                  f"difference lies on the leader's side at every n up to the "
                                  f"last both ran (NaN: not at the last)")):
        ds[key] = (("pair", "curve"), budgets[key], {"long_name": text})


def observed_curves(searches, *, minimize=False):
    """The observed best-so-far curve of each search, one run each: what one run of an
    adaptive search shows without assuming its trials independent.

    Parameters
    ----------
    searches : list of Search
        Each one run, its scores in the order its trials ran.
    minimize : bool
        The scores are losses: best means lowest.

    Returns
    -------
    xarray.Dataset
        Dims ``observed_model`` and ``observed_n`` (1 up to the longest
        run): ``observed_best`` (each run's best score among its first n
        trials; NaN past its B); coordinates ``observed_B``,
        ``observed_sampler`` and ``observed_source`` per model; attributes
        ``minimize`` and provenance.
    """
    minimize = check.boolean(minimize, "minimize")
    curves = [(np.minimum if minimize else np.maximum).accumulate(s.scores) for s in searches]
    N = max(c.size for c in curves)
    best = np.stack([np.r_[c, np.full(N - c.size, np.nan)] for c in curves])
    ds = xr.Dataset(
        {"observed_best": (("observed_model", "observed_n"), best, {
            "long_name": "best score among the run's first n trials, as they ran: one run of "
                         "a search, no interval (its trials are not independent draws)"})},
        coords={"observed_model": [s.label for s in searches],
                "observed_n": np.arange(1, N + 1),
                "observed_B": ("observed_model", [c.size for c in curves]),
                "observed_sampler": ("observed_model", [s.sampler for s in searches]),
                "observed_source": ("observed_model", [s.source for s in searches])})
    ds.attrs.update(provenance(minimize=minimize))
    return ds


def runs_notes(ds, curve=None):
    """What a reader must know of a :func:`runs_curve` dataset: runs of different
    lengths, what each curve and interval rests on.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`runs_curve`.
    curve : {"mean", "median"}, optional
        The curve shown (default: both).

    Returns
    -------
    list of str
    """
    from ..intervals import order_index

    shown = RUN_CURVES if curve is None else (check.choice(curve, "curve", RUN_CURVES),)
    methods = [str(m) for m, b in zip(ds["ci_method"].values,
                                      ds["bounds_curve"].sel(curve=list(shown)).any("curve"))
               if b]
    lines = []
    level = float(ds.attrs["level"])
    for m, k, lo, hi in zip(ds["model"].values, ds["runs"].values, ds["shortest"].values,
                            ds["longest"].values):
        if lo != hi:
            lines.append(f"{m}: its {k} runs differ in length ({lo} to {hi} trials): its "
                         f"curves stop at the shortest run, n = {lo}")
        if "order-statistic" in methods:
            d, _, cover = order_index(int(k), level)
            if cover < level:
                lines.append(f"{m}: with {k} runs the widest order-statistic interval, "
                             f"[min, max], holds {cover:.4g} < {level:g}; run more seeds for "
                             f"{level:g}")
    models = [str(m) for m in ds["model"].values]
    lines.append(f"assumes: the {' and '.join(shown)} curve{'s' if len(shown) > 1 else ''} "
                 f"across runs of {', '.join(models)} and their {', '.join(methods)} "
                 f"intervals: only that the runs are independent (different seeds); the "
                 f"trials within a run may depend on the earlier ones")
    pooled = [f"{m}'s {int(t)} pooled trials" for m, t, r in
              zip(models, ds["trials"].values, ds["random_search"].values) if r]
    if pooled:
        how = "; ".join(f"{ds['pooled_estimator'].sel(curve=c).values} with "
                        f"{ds['pooled_method'].sel(curve=c).values}" for c in shown)
        lines.append(f"assumes: the curve{'s' if len(pooled) > 1 else ''} of {', '.join(pooled)} "
                     f"({how}): that they are i.i.d. draws (random search): valid there only, "
                     f"and tighter")
    if "student-t" in methods and "mean" in shown:
        lines.append(MEAN_CAUTION)
    return lines
