"""Comparing two models through their EVP curves.

Two experiments on paired simulated searches, one of B trials for model A
and one for model B:

* :func:`compare_curves` (Tang et al. 2020, Figs. 1-2): for every n <= B,
  the true curves, each estimator's average estimate and spread for both
  models, the budgets where the averaged estimates order the models
  opposite to the truth, and the per-n rate of wrongly ranked pairs;
* :func:`comparison_errors` (Dodge et al. 2021, §4 and Fig. 2): for each
  B in a range, the rate at which each estimator ranks A and B opposite to
  the truth at n = B (optionally at every n <= B).

Both state which model is truly better at every budget and by how much
(``theta_a``, ``theta_b``, ``theta_diff``, ``better``), so that "wrong"
always has a direction.

Models are ground truths (a spec such as ``"kde:reuters-mlp"``, a Truth) or
real results (``"file:PATH"`` or an array of scores). With ``pool=False``
each search draws B scores i.i.d. from the truth; for real results that is
resampling with replacement, and the empirical distribution is the truth.
With ``pool=True`` each search draws B of the real scores *without*
replacement, as Dodge et al. (2021) did with their 100 runs per model. The
truth is then still the exact EVP of the pool's empirical distribution,
``theta_n = E[max of n draws with replacement from the pool]``: the
expected maximum of n runs if the pool were the population. (A search
without replacement estimates a slightly different quantity, the expected
maximum of n distinct pool entries, so unbiasedness of U is only
approximate under ``pool``.) ``truth_method="mc"`` replaces the exact truth
by the average of many simulated maxima, Dodge et al.'s way.

Ties (``|est_A - est_B|`` within the tie tolerance, e.g. two equal maxima
of rounded accuracies) are counted separately, never as errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .. import _validate as check
from .._kernels import comparisons as K
from .._kernels.sampling import Sampler
from ..engine.montecarlo import CHUNK_SIZE, Job, MonteCarlo, run
from ..engine.streams import search_streams, truth_streams
from ..engine.summaries import add_rate, summarise_power_sums
from ..estimators.family import Context, check_rows_memory, estimate_rows, resolve_estimators
from ..estimators.pyrun import PairCounts, PythonJob, search_counts
from ..estimators.targets import Target, as_target
from ..io.results import provenance
from ..truths.distributions import Truth, empirical, make_truth, tie_tolerance
from ..truths.mctheta import TRUTH_METHODS, theta_by_simulation

__all__ = ["compare_curves", "comparison_errors"]


@dataclass(frozen=True)
class _Model:
    label: str
    truth: Truth
    scores: np.ndarray | None  # the real results, when given


def _model(spec, name, column):
    """A model from a truth spec, a Truth, or an array of scores."""
    if isinstance(spec, Truth):
        return _Model(spec.name, spec, spec.results)
    if isinstance(spec, str):
        truth = make_truth(spec, column=column if spec.startswith("file:") else None)
        return _Model(truth.name, truth, truth.results)
    if isinstance(spec, (list, tuple, np.ndarray)):
        scores = check.scores(spec, name=name)
        return _Model(name.upper(), empirical(scores, name=name.upper()), scores)
    raise check.InvalidType(name, f"{name} must be a truth spec, a Truth or an array of "
                                  f"scores, got {type(spec).__name__}")


def _models(a, b, labels, pool, column, Bmax):
    """Validate the two models, their labels and the pool sizes."""
    if column is not None and not any(isinstance(m, str) and m.startswith("file:")
                                      for m in (a, b)):
        raise check.InvalidArgument("column", "column applies only to file: models")
    ma, mb = _model(a, "a", column), _model(b, "b", column)
    if labels is None:
        labels = (ma.label, mb.label) if ma.label != mb.label else ("A", "B")
    if isinstance(labels, str) or not isinstance(labels, (list, tuple)) or len(labels) != 2 \
            or not all(isinstance(s, str) and s for s in labels) or labels[0] == labels[1]:
        raise check.InvalidArgument("labels", f"labels must be two different non-empty "
                                              f"strings, got {labels!r}")
    ma = _Model(labels[0], ma.truth, ma.scores)
    mb = _Model(labels[1], mb.truth, mb.scores)
    if pool:
        for arg, m in (("a", ma), ("b", mb)):
            if m.scores is None:
                raise check.InvalidArgument(
                    "pool", f"pool sampling draws from real results: give {arg} as "
                            f"'file:PATH', 'data:NAME' or an array of scores, not {m.truth.name!r}")
            if Bmax > m.scores.size:
                raise check.InvalidArgument(
                    "B", f"B = {Bmax} exceeds the pool of {m.scores.size} scores of "
                         f"{m.label}; without replacement B must be at most the pool size")
    return ma, mb


def _sampler(model, pool):
    """Real results are drawn from their scores directly: without replacement
    under ``pool``, else by uniform indices (the empirical truth's law)."""
    if model.scores is None:
        return model.truth.sampler
    return Sampler.pool(model.scores) if pool else Sampler.resample(model.scores)


@dataclass(frozen=True)
class _Setup:
    """The validated arguments shared by both experiments."""

    ma: _Model
    mb: _Model
    ests: list
    options: MonteCarlo
    pool: bool
    truth_method: str
    truth_replicates: int
    level: float
    target: Target
    counts: np.ndarray  # searches each estimator runs on
    bounds: tuple | None


def _validate_common(a, b, Bmax, estimators, labels, pool, column, replicates, seed, chunk_size,
                     workers, progress, truth_method, truth_replicates, level, curve="mean",
                     python_replicates=None, bounds=None):
    truth_method = check.choice(truth_method, "truth_method", TRUTH_METHODS)
    truth_replicates = check.replicates(truth_replicates, "truth_replicates")
    level = check.level(level)
    options = MonteCarlo(replicates, seed, chunk_size, workers, progress)
    pool = check.boolean(pool, "pool")
    target = as_target(curve)
    if truth_method == "mc" and target.kind != "mean":
        raise check.InvalidArgument("truth_method", "truth_method: 'mc' simulates the mean "
                                                    "curve; a quantile curve is compared with "
                                                    "its exact values")
    ma, mb = _models(a, b, labels, pool, column, Bmax)
    ests = resolve_estimators(estimators, target)
    if bounds is not None:
        bounds = check.bounds(bounds, min(ma.truth.lo, mb.truth.lo),
                              max(ma.truth.hi, mb.truth.hi), "both truths' supports")
    return _Setup(ma, mb, ests, options, pool, truth_method, truth_replicates, level, target,
                  search_counts(ests, replicates, python_replicates), bounds)


def _truth_curves(setup, nmax):
    """The curve of both models for n = 1..nmax, exact or Monte Carlo."""
    ns = np.arange(1, nmax + 1)
    ma, mb = setup.ma, setup.mb
    out = {"exact_a": setup.target.exact(ma.truth, ns),
           "exact_b": setup.target.exact(mb.truth, ns)}
    if setup.truth_method == "exact":
        out.update(a=out["exact_a"], b=out["exact_b"], se_a=None, se_b=None)
    else:
        options = setup.options.with_replicates(setup.truth_replicates)
        for k, (key, m) in enumerate((("a", ma), ("b", mb))):
            out[key], out["se_" + key] = theta_by_simulation(m.truth, nmax, options,
                                                             truth_streams(k))
    return out


def _add_truth_vars(ds, dim, idx, curves, ma, mb, tol, target):
    """The truth at each budget ``idx + 1`` along ``dim``; returns its sign."""
    ta, tb = curves["a"][idx], curves["b"][idx]
    diff = ta - tb
    sign = np.where(np.abs(diff) <= tol, 0, np.sign(diff)).astype(np.int8)
    sym = target.symbol
    ds[f"{sym}_a"] = (dim, ta, {"long_name": f"true {target.description} of {ma.label}"})
    ds[f"{sym}_b"] = (dim, tb, {"long_name": f"true {target.description} of {mb.label}"})
    ds[f"{sym}_diff"] = (dim, diff, {"long_name": f"{sym}_a - {sym}_b: how much {ma.label} "
                                                  f"is truly better than {mb.label}"})
    ds["truth_sign"] = (dim, sign, {"long_name": "+1: A truly better, -1: B, 0: tie"})
    ds["better"] = (dim, np.array([{1: ma.label, -1: mb.label, 0: "tie"}[int(s)] for s in sign]),
                    {"long_name": "the truly better model"})
    if curves["se_a"] is not None:
        ds["theta_diff_se"] = (dim, np.hypot(curves["se_a"][idx], curves["se_b"][idx]),
                               {"long_name": "Monte Carlo standard error of theta_diff"})
        ds["exact_theta_diff"] = (dim, curves["exact_a"][idx] - curves["exact_b"][idx],
                                  {"long_name": "exact theta_a - theta_b"})
    return sign


def _add_ranking_rates(ds, dims, a_higher, tie, sign, M, level):
    """``wrong`` (ranked opposite to the truth) and ``tie`` rates with bounds."""
    b_higher = M - a_higher - tie
    wrong = np.where(sign > 0, b_higher, a_higher)
    # no direction, so no wrong ranking, where the truths tie; nothing to rate
    # where an estimator failed on every pair
    some = np.broadcast_to(M > 0, wrong.shape)
    add_rate(ds, "wrong", wrong, np.maximum(M, 1), level, dims, "ranking opposite to the truth",
             where=(sign != 0) & some)
    add_rate(ds, "tie", tie, np.maximum(M, 1), level, dims, "tied estimates", where=some)
    ds["a_higher_count"] = (dims, a_higher, {"long_name": "searches with est_A > est_B"})
    ds["tie_count"] = (dims, tie, {"long_name": "searches with est_A == est_B"})
    ds["b_higher_count"] = (dims, b_higher, {"long_name": "searches with est_A < est_B"})


def _paired_jobs(setup, B, ns, tol, curves, moments):
    """Jobs of paired searches of B trials, and the estimators (indices) of each.

    The numba-path estimators run in kernels; the Python estimators in
    :class:`evpsim.estimators.pyrun.PythonJob` on the same streams, grouped by the
    number of searches they run on. Returns ``(jobs, groups, counts)``:
    each group's estimator indices and searches.
    """
    sa, sb = _sampler(setup.ma, setup.pool), _sampler(setup.mb, setup.pool)
    rows = estimate_rows(setup.ests, B, ns, setup.target)
    jobs, groups = [], []
    ca, cb = curves["a"][ns - 1], curves["b"][ns - 1]
    for g in rows:
        jobs.append(Job(K.pair_counts_chunks,
                        (B, sa, sb, g.wts, g.func, g.ns, tol, np.tile(ca, len(g.indices)),
                         np.tile(cb, len(g.indices)), moments), search_streams(B)))
        groups.append((g.indices, setup.options.replicates))
    python = [k for k, e in enumerate(setup.ests) if e.kind == "python"]
    for M in sorted({int(setup.counts[k]) for k in python}, reverse=True):
        idx = [k for k in python if setup.counts[k] == M]
        jobs.append(PythonJob(B, (sa, sb), tuple(setup.ests[k] for k in idx), ns,
                              Context(setup.target, setup.bounds),
                              PairCounts(ca, cb, tol, moments), search_streams(B)))
        groups.append((idx, M))
    return jobs, groups


def _run_paired(setup, jobs, groups, label):
    """Each job's sums, run on the searches of its group, in job order."""
    out = []
    numba_jobs = [j for j, (_, M) in zip(jobs, groups) if not isinstance(j, PythonJob)]
    parts = iter(run(numba_jobs, setup.options, label) if numba_jobs else [])
    for job, (idx, M) in zip(jobs, groups):
        if isinstance(job, PythonJob):
            names = ", ".join(setup.ests[k].name for k in idx)
            part, = run([job], dataclasses.replace(setup.options, replicates=M),
                        f"{names} ({M:,} pairs of B={job.B})")
            out.append(part)
        else:
            out.append(next(parts))
    return out


def _place(groups, parts, E, nn, width):
    """The jobs' sums, rows (estimator, n), as one (E, nn, width) array; a
    last column counts failed pairs (always 0 for the numba path)."""
    out = np.zeros((E, nn, width + 1))
    for (idx, _), part in zip(groups, parts):
        part = part.reshape(len(idx), nn, part.shape[-1])
        if part.shape[-1] == width:
            out[idx, :, :width] = part
        else:
            out[idx] = part
    return out


def _sampling(ma, mb, pool):
    """How the searches are drawn, in words."""
    if pool:
        return "without replacement from the pools of real scores"
    if ma.scores is not None or mb.scores is not None:
        return "i.i.d. from the truths (real scores resampled with replacement)"
    return "i.i.d. from the truths"


def _coords(setup):
    """Scalar coordinates naming both models, their truths and pool sizes."""
    out = {}
    for key, m in (("a", setup.ma), ("b", setup.mb)):
        out.update(m.truth.coords(f"_{key}"))
        out[f"label_{key}"] = m.label
        out[f"pool_size_{key}"] = int(m.scores.size) if m.scores is not None else 0
    return out


def _attrs(experiment, setup, tol, **extra):
    opts = setup.options
    return provenance(
        experiment=experiment, estimators=[e.name for e in setup.ests],
        curve=setup.target.name, seed=opts.seed,
        replicates=opts.replicates, chunk_size=opts.chunk_size, workers=opts.workers,
        pool=setup.pool, sampling=_sampling(setup.ma, setup.mb, setup.pool),
        truth_method=setup.truth_method,
        truth_replicates=setup.truth_replicates if setup.truth_method == "mc" else 0,
        level=setup.level, tie_tolerance=tol, **extra)


def compare_curves(a, b, B=25, *, estimators=None, curve="mean", ns=None, pool=False,
                   labels=None, column=None, replicates=50_000, seed=0, truth_method="exact",
                   truth_replicates=1_000_000, level=0.95, workers=1, progress=False,
                   chunk_size=CHUNK_SIZE, python_replicates=None, bounds=None):
    """Budget-quality curves of two models: truth, averaged estimates, errors.

    Tang et al. (2020), Figs. 1 and 2: for every n <= B, the true EVP of
    both models, each estimator's average estimate over simulated searches
    of B trials and its spread, and where the averaged estimates order the
    models opposite to the truth. Also the rate at which single pairs of
    searches rank the models wrongly.

    Parameters
    ----------
    a, b : str, Truth or array_like of float
        The two models: truth specs (``"kde:reuters-mlp"``,
        ``"file:PATH"``, ...), Truth objects, or arrays of real scores.
    B : int
        Trials per search (at least 2; at most the pool sizes with ``pool``).
    estimators : str or sequence, optional
        Estimator names (default U, V, W for the mean curve, ``quantile``
        for a quantile curve).
    curve : str or Target
        The curve that ranks the models: ``"mean"`` (theta_n), ``"median"``
        or ``"quantile:Q"`` (tau_Q(n)); see :mod:`evpsim.estimators.targets`.
    ns : sequence of int, optional
        Budgets (default 1..B); beyond B for estimators that extrapolate.
    pool : bool
        Draw each search without replacement from the real scores (``a``
        and ``b`` must then be ``"file:PATH"`` or arrays).
    labels : pair of str, optional
        Names of the models (default the truths' names).
    column : str, optional
        CSV column of ``file:`` specs.
    replicates : int
        Pairs of simulated searches.
    seed : int
        Seed; the same seed and B give the same searches as
        :func:`comparison_errors`.
    truth_method : {"exact", "mc"}
        Exact truth, or a Monte Carlo one from ``truth_replicates`` maxima.
    truth_replicates : int
        Replicates of a Monte Carlo truth.
    level : float
        Level of the Clopper-Pearson intervals.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.
    chunk_size : int
        Replicates per chunk (part of what a seed means).
    python_replicates : int, optional
        Pairs for estimators written in Python (see :func:`evpsim.bias`).
    bounds : (float, float), optional
        The metric's known range, for estimators that use it (``kde``).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``n``. Truth (n; ``tau_*`` in place of
        ``theta_*`` for a quantile curve): ``theta_a``, ``theta_b``,
        ``theta_diff`` (``theta_a - theta_b``), ``truth_sign`` and
        ``better`` (the truly better model's label). Estimates (estimator,
        n): ``mean_a``, ``sd_a``, ``mean_a_se`` and the same for ``b``;
        ``mean_diff`` with ``mean_diff_se``; ``reversed`` (1 where the
        averaged estimates order the models opposite to the truth);
        ``wrong`` and ``tie`` rates of single pairs with Clopper-Pearson
        bounds, and the counts ``a_higher_count``, ``tie_count``,
        ``b_higher_count``; ``failures``: pairs on which an estimator failed
        for either model (left out); coordinates ``curve``, ``kind`` and
        ``replicates`` (pairs each estimator ran on).

    References
    ----------
    .. [1] R. Tang, J. Lee, J. Xin, X. Liu, Y. Yu and J. Lin, "Showing Your Work
           Doesn't Always Work", ACL 2020, §4.2 and Figs. 1-3.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.compare_curves("tang-small", "tang-big", B=20, replicates=20_000)
    >>> [str(ds["better"].sel(n=n).item()) for n in (14, 15)]
    ['tang-small', 'tang-big']
    """
    B = check.B(B)
    ns = np.arange(1, B + 1) if ns is None else check.ns(ns, np.inf, distinct=True)
    nmax = int(ns.max())
    setup = _validate_common(a, b, B, estimators, labels, pool, column, replicates, seed,
                             chunk_size, workers, progress, truth_method, truth_replicates, level,
                             curve, python_replicates, bounds)
    for e in setup.ests:
        e.check_use(B, ns, setup.target)
    check_rows_memory(setup.ests, B, ns.size)
    ma, mb, options = setup.ma, setup.mb, setup.options
    tol = tie_tolerance(ma.truth, mb.truth)
    curves = _truth_curves(setup, nmax)
    names = [e.name for e in setup.ests]
    ds = xr.Dataset(coords={"estimator": names, "n": ns, **_coords(setup), "B": B})
    sign = _add_truth_vars(ds, "n", ns - 1, curves, ma, mb, tol, setup.target)
    jobs, groups = _paired_jobs(setup, B, ns, tol, curves, True)
    parts = _run_paired(setup, jobs, groups,
                        f"paired searches ({options.replicates:,} pairs of B={B})")
    sums = _place(groups, parts, len(names), ns.size, 10)
    M = (setup.counts[:, None] - sums[..., 10]).astype(np.int64)  # pairs without failure
    _add_averages(ds, setup, sums, M, (curves["a"][ns - 1], curves["b"][ns - 1]), sign)
    _add_ranking_rates(ds, ("estimator", "n"), sums[..., 0].astype(np.int64),
                       sums[..., 1].astype(np.int64), sign, M, setup.level)
    _add_run_coords(ds, setup, sums[..., 10])
    ds.attrs.update(_attrs("compare_curves", setup, tol))
    return ds


def _add_averages(ds, setup, sums, M, centers, sign):
    """Each estimator's average estimate of both models, with spread and standard errors,
    and where the averages order the models opposite to the truth.

    Parameters
    ----------
    ds : xarray.Dataset
        Gains ``mean_a``, ``sd_a``, ``mean_a_se`` (and ``_b``),
        ``mean_diff``, ``mean_diff_se`` and ``reversed`` (estimator, n).
    setup : _Setup
        The checked run.
    sums : ndarray
        The paired jobs' sums (estimator, n, 11), placed by :func:`_place`:
        columns 2-5 the power sums of model A's estimates about its truth,
        6-9 model B's.
    M : ndarray
        Pairs without failure (estimator, n).
    centers : (ndarray, ndarray)
        Both models' true curves at the budgets.
    sign : ndarray
        The truth's sign at each budget (+1: A truly better).
    """
    Ms = np.maximum(M, 2)
    dims = ("estimator", "n")
    means = {}
    for key, m, off, center in (("a", setup.ma, 2, centers[0]),
                                ("b", setup.mb, 6, centers[1])):
        summ = summarise_power_sums(sums[..., off:off + 4], Ms)
        means[key] = np.where(M >= 2, center[None, :] + summ["bias"], np.nan)
        means[key + "_se"] = summ["bias_se"]
        ds[f"mean_{key}"] = (dims, means[key], {"long_name": f"average estimate for {m.label}"})
        ds[f"sd_{key}"] = (dims, np.sqrt(summ["variance"]),
                           {"long_name": f"standard deviation of the estimates for {m.label}"})
        ds[f"mean_{key}_se"] = (dims, summ["bias_se"],
                                {"long_name": "Monte Carlo standard error of the average"})
    mean_diff = means["a"] - means["b"]
    ds["mean_diff"] = (dims, mean_diff, {"long_name": "mean_a - mean_b"})
    ds["mean_diff_se"] = (dims, np.hypot(means["a_se"], means["b_se"]),
                          {"long_name": "Monte Carlo standard error of mean_diff"})
    ds["reversed"] = (dims, ((sign != 0) & (np.sign(mean_diff) == -sign)).astype(np.int8),
                      {"long_name": "1 where the averaged estimates order the models "
                                    "opposite to the truth"})


def _add_run_coords(ds, setup, failed):
    """How each estimator ran, on how many pairs, and its failures."""
    ds.coords["curve"] = setup.target.name
    ds.coords["kind"] = ("estimator", [e.kind for e in setup.ests])
    ds.coords["replicates"] = ("estimator", setup.counts)
    dims = ds["a_higher_count"].dims
    ds["failures"] = (dims, failed.astype(np.int64).reshape(ds["a_higher_count"].shape),
                      {"long_name": "pairs on which the estimator failed for either model "
                                    "(left out)"})


def _validate_Bs(Bs):
    if isinstance(Bs, (int, np.integer)) and not isinstance(Bs, bool):
        Bs = [Bs]
    if isinstance(Bs, (str, bytes)):
        raise check.InvalidType("Bs", f"Bs must be an integer or a sequence of integers, "
                                      f"got {Bs!r}")
    try:
        Bs = [check.B(x, "Bs") for x in Bs]
    except TypeError:
        raise check.InvalidType("Bs", f"Bs must be an integer or a sequence of integers, "
                                      f"got {Bs!r}") from None
    if not Bs:
        raise check.InvalidArgument("Bs", "Bs is empty")
    if any(y <= x for x, y in zip(Bs, Bs[1:])):
        raise check.InvalidArgument("Bs", f"Bs must be strictly increasing, got {Bs}")
    return np.array(Bs)


def _check_size(Bs, E, every_n):
    """Refuse budgets whose weight arrays cannot fit in memory, before any is built.

    The largest B's weight matrices are built in turn, and every B's rows
    (every n, or n = B only) are held until the run.
    """
    largest = int(Bs[-1])
    rows = [int(B) if every_n else 1 for B in Bs]
    held = sum(8 * int(B) * r * (E + 1) for B, r in zip(Bs, rows))
    peak = 8 * largest * (largest + rows[-1]) * (E + 1)
    check.check_memory(peak + held, f"the weights of {E} estimators for budgets up to "
                                    f"B = {largest:,}", "Bs")


def comparison_errors(a, b, Bs=range(15, 31), *, every_n=False, estimators=None, curve="mean",
                      pool=False, labels=None, column=None, replicates=50_000, seed=0,
                      truth_method="exact", truth_replicates=1_000_000, level=0.95, workers=1,
                      progress=False, chunk_size=CHUNK_SIZE, python_replicates=None,
                      bounds=None):
    """How often each estimator ranks two models opposite to the truth.

    Dodge et al. (2021, §4, Fig. 2): for each budget B, pairs of simulated
    searches of B trials, one per model; an estimator errs when its
    estimates at n = B (or at each n <= B) order the models opposite to the
    true EVP.

    Parameters
    ----------
    a, b : str, Truth or array_like of float
        The two models (see :func:`compare_curves`).
    Bs : int or sequence of int
        Budgets, strictly increasing, each at least 2.
    every_n : bool
        Also every n <= B, not only n = B.
    estimators, curve, pool, labels, column, replicates, seed, truth_method, \
truth_replicates, level, workers, progress, chunk_size, python_replicates, bounds
        As in :func:`compare_curves`; ``replicates`` pairs per B (Dodge et
        al. used 50,000).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``B`` (at n = B), plus ``n`` with
        ``every_n`` (counts 0 and rates NaN where n > B). Truth along the
        budget dim(s): ``theta_a``, ``theta_b``, ``theta_diff``,
        ``truth_sign``, ``better`` (with ``truth_method="mc"`` also
        ``theta_diff_se`` and ``exact_theta_diff``). Rates ``wrong``
        (ranked opposite to the truth; NaN where the truths tie) and
        ``tie`` with Clopper-Pearson bounds; counts ``a_higher_count``,
        ``tie_count``, ``b_higher_count``.

    References
    ----------
    .. [1] J. Dodge, S. Gururangan, D. Card, R. Schwartz and N. A. Smith,
           "Expected Validation Performance and Estimation of a Random
           Variable's Maximum", Findings of EMNLP 2021, §4 and Fig. 2.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.comparison_errors("tang-small", "tang-big", Bs=[10, 20],
    ...                               replicates=20_000)
    >>> ds["wrong"].dims
    ('estimator', 'B')
    """
    Bs = _validate_Bs(Bs)
    every_n = check.boolean(every_n, "every_n")
    nmax = int(Bs[-1])
    setup = _validate_common(a, b, nmax, estimators, labels, pool, column, replicates, seed,
                             chunk_size, workers, progress, truth_method, truth_replicates, level,
                             curve, python_replicates, bounds)
    _check_size(Bs, len(setup.ests), every_n)
    tol = tie_tolerance(setup.ma.truth, setup.mb.truth)
    curves = _truth_curves(setup, nmax)
    counts = _budget_counts(setup, Bs, every_n, tol, curves)
    E = len(setup.ests)
    M = (setup.counts.reshape((E,) + (1,) * (counts.ndim - 2)) - counts[..., 2])
    coords = {"estimator": [e.name for e in setup.ests], "B": Bs}
    if every_n:
        coords["n"] = np.arange(1, nmax + 1)
    ds = xr.Dataset(coords={**coords, **_coords(setup)})
    _add_budget_rates(ds, setup, Bs, every_n, tol, curves, counts, M)
    _add_run_coords(ds, setup, counts[..., 2])
    ds.attrs.update(_attrs("comparison_errors", setup, tol, Bs=Bs.tolist(),
                           every_n=every_n))
    return ds


def _budget_counts(setup, Bs, every_n, tol, curves):
    """The paired searches of every budget, run as one batch, and their counts.

    Returns
    -------
    ndarray of int64
        (estimator, B, 3), or (estimator, B, n, 3) with ``every_n`` (zero
        where n > B): pairs with est_A > est_B, ties, and failed pairs.
    """
    nmax, E = int(Bs[-1]), len(setup.ests)
    jobs, groups = [], []
    for B in Bs:
        ns = np.arange(1, B + 1) if every_n else np.array([B])
        j, g = _paired_jobs(setup, int(B), ns, tol, curves, False)
        jobs.append(j)
        groups.append(g)
    parts = iter(_run_paired(setup, [j for js in jobs for j in js], [g for gs in groups
                                                                      for g in gs],
                             f"paired searches ({setup.options.replicates:,} pairs for each "
                             f"of {Bs.size} budgets)"))
    shape = (E, Bs.size, nmax) if every_n else (E, Bs.size)
    counts = np.zeros(shape + (3,), dtype=np.int64)
    for i, (B, js, gs) in enumerate(zip(Bs, jobs, groups)):
        nn = B if every_n else 1
        part = _place(gs, [next(parts) for _ in js], E, nn, 2)
        if every_n:
            counts[:, i, :B] = part
        else:
            counts[:, i] = part[:, 0]
    return counts


def _add_budget_rates(ds, setup, Bs, every_n, tol, curves, counts, M):
    """The truth along the budget dim(s), and the ``wrong`` and ``tie`` rates of the
    counts of :func:`_budget_counts` (NaN, and no B-higher pairs, where n > B)."""
    ma, mb = setup.ma, setup.mb
    if every_n:
        nmax = int(Bs[-1])
        sign = _add_truth_vars(ds, "n", np.arange(nmax), curves, ma, mb, tol, setup.target)
        valid = np.arange(1, nmax + 1)[None, :] <= Bs[:, None]  # (B, n)
        sign_b = np.where(valid, sign[None, :], 0)
        valid = xr.DataArray(valid, dims=("B", "n"))
    else:
        sign_b = _add_truth_vars(ds, "B", Bs - 1, curves, ma, mb, tol, setup.target)
    dims = ("estimator", "B", "n") if every_n else ("estimator", "B")
    _add_ranking_rates(ds, dims, counts[..., 0], counts[..., 1], sign_b, M, setup.level)
    if every_n:
        for key in ("wrong", "wrong_lower", "wrong_upper", "tie", "tie_lower", "tie_upper"):
            ds[key] = ds[key].where(valid)
        ds["b_higher_count"] = ds["b_higher_count"].where(valid, 0)
