"""The leaderboard: every estimator and every interval, over every truth, budget and n.

Which estimator of the EVP curve, and which interval, should one use at a
given budget? The leaderboard answers by running the batteries on a grid of
cells, one per truth, B and curve (the mean curve and the median curve):

* :func:`cell` runs, for one truth, B and curve, the bias battery
  (:func:`evpsim.bias`, exact moments beside Monte Carlo) for every
  estimator of that curve and the coverage battery
  (:func:`evpsim.coverage`) for every L-statistic among them and every CI
  method that bounds that curve at that B (the resampling methods bound the
  mean curve only, from their own smallest B), at budgets on a log grid up to 2B (:func:`budgets`): n <= B for
  every estimator, n > B for those that extrapolate. Each part is one
  battery call with the leaderboard's seed, so a cell's numbers are those
  of the single battery runs it stands for, bit for bit.
* :func:`leaderboard` runs the cells on the sweep engine (checkpointed,
  resumable, in process, on local workers or a dask cluster) and combines
  them into one Dataset; :func:`evpsim.report.leaderboard` turns that into
  tables, figures and a summary (:mod:`evpsim.reports.leaderboard`).

Bias, SD and RMSE are exact for L-statistics and estimators with known
moments, Monte Carlo with standard errors otherwise; slow estimators run on
fewer searches (the first of each cell's), and the result says how many.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .. import _validate as check
from ..estimators.family import list_estimators, resolve_estimators
from ..estimators.targets import as_target

__all__ = ["cell", "leaderboard", "budgets", "leaderboard_truths", "metric_bounds",
           "default_estimators", "default_ci_methods", "SIZES", "QUICK", "CURVES", "BUDGETS",
           "SLOW"]

#: the budgets of a full leaderboard
BUDGETS = (10, 25, 50, 100)
#: the curves of a leaderboard
CURVES = ("mean", "median")
#: replicates of the full and quick runs: Monte Carlo searches of the bias
#: battery, searches of each Python estimator, samples and resamples of the
#: coverage battery
SIZES = {
    "full": dict(replicates=20_000, python_replicates={"kde": 200, "opda-parametric": 10},
                 coverage_replicates=1000, resamples=2000),
    "quick": dict(replicates=2000, python_replicates={"kde": 20, "opda-parametric": 2},
                  coverage_replicates=100, resamples=200),
}
#: the quick run's grid: a truth of each kind, two budgets
QUICK = dict(truths=("normal", "tang-small", "tang-big", "kde:reuters-lstm-centered",
                     "data:reuters-mlp", "data:sklearn-hgb"), Bs=(10, 25))
#: estimators whose default cap is below this many searches are too slow to run in
#: every cell of a default leaderboard (opda-parametric: seconds a fit); ask for them
SLOW = 1000


def leaderboard_truths():
    """Every truth evpsim knows, as specs.

    The truncated normals of the papers, the bag, every committed KDE fit
    (both constructions) and every shipped search as its own empirical
    truth.
    """
    from ..io.shipped import list_searches
    from ..truths.kde import list_kde_fits

    return (["normal", "tang-small", "tang-big", "bag"] + list(list_kde_fits())
            + [f"data:{name}" for name in list_searches()])


def budgets(B, top=2):
    """The budgets of a cell: a log grid from 1 to top B (steps of at most 1.42, rounded),
    with B and top B.

    Examples
    --------
    >>> budgets(10).tolist()
    [1, 2, 3, 4, 5, 7, 10, 14, 20]
    >>> budgets(25)[-4:].tolist()
    [25, 26, 36, 50]
    """
    B = check.B(B)
    grid = np.unique(np.round(np.geomspace(1, top * B, int(np.ceil(np.log(top * B) /
                                                                    np.log(1.42))) + 1)))
    return np.unique(np.concatenate([grid, [B, top * B]])).astype(np.int64)


def metric_bounds(truth):
    """The metric's range for a truth: [0, 1] or [0, 100] when its support fits, else
    the support itself (used by band methods and estimators that need a range)."""
    for lo, hi in ((0.0, 1.0), (0.0, 100.0)):
        if lo <= truth.lo and truth.hi <= hi:
            return lo, hi
    return float(truth.lo), float(truth.hi)


def default_estimators():
    """Every registered estimator but the slow ones (see :data:`SLOW`)."""
    from ..estimators.family import get_estimator

    return [n for n in list_estimators()
            if (get_estimator(n).max_replicates or SLOW) >= SLOW]


def default_ci_methods():
    """Every registered CI method, the resampling ones included, but the calibrated ones.

    Unlike the batteries' default (:func:`evpsim.intervals.default_ci_methods`,
    which leaves the slow resampling methods out), the leaderboard runs
    them too, so it shows the interval ``curve`` uses by default. The
    calibrated kind (``gpd-tail`` calibrated on hundreds of samples of its
    fitted model, per search) runs only when named: in a coverage run at
    B = 100 with 500 resamples its methods took 20 and 35 times
    ``gpd-tail``'s CPU time.
    """
    from ..intervals.family import get_ci_method, list_ci_methods

    return [m for m in list_ci_methods() if get_ci_method(m).kind != "calibrated"]


def bounds_curve(method, target, B):
    """Whether ``method`` gives intervals for ``target`` at B: the curves its kind bounds
    (the resampling methods: the mean curve only), from B of at least its ``minimum_B``."""
    from ..intervals.family import KINDS

    curves = KINDS[method.kind].curves
    return (curves is None or target.kind in curves) and B >= method.minimum_B


def _estimators(estimators, target):
    """The estimators of ``target`` among ``estimators`` (default: every registered one)."""
    if estimators is None:
        names = default_estimators()
    elif estimators == "all":
        names = list_estimators()
    else:
        names = estimators
    ests = resolve_estimators(names, target)
    return [e for e in ests if target.kind in e.targets]


def cell(dist, B, curve, *, seed=0, estimators=None, ci_methods=None, replicates=20_000,
         python_replicates=None, coverage_replicates=1000, resamples=2000, workers=1,
         samples=None):
    """One leaderboard cell: every estimator and CI method on one truth, B and curve.

    Parameters
    ----------
    dist : str or Truth
        The truth.
    B : int
        Trials per search.
    curve : str
        ``"mean"`` or a quantile curve (``"median"``, ``"quantile:Q"``).
    seed : int
        Seed of every battery call.
    estimators : str or sequence, optional
        Candidates (default every registered estimator but the slow ones,
        :func:`default_estimators`; ``"all"``: every one); those that do
        not estimate ``curve`` are left out of this cell.
    ci_methods : str or sequence, optional
        CI methods (default every registered one, :func:`default_ci_methods`);
        those that do not bound ``curve`` at this B (resampling methods on
        a quantile curve or below their smallest B) have NaN coverage in
        this cell.
    replicates : int
        Monte Carlo searches of the bias battery.
    python_replicates : int or dict, optional
        Searches of the Python estimators (see :func:`evpsim.bias`).
    coverage_replicates, resamples : int
        Samples (``replicates`` of :func:`evpsim.coverage`) and bootstrap
        resamples of the coverage battery.
    samples : int, optional
        Deprecated name of ``coverage_replicates``.
    workers : int
        Worker processes of each battery call.

    Returns
    -------
    xarray.Dataset
        Dims ``estimator``, ``n``, ``ci_method``: ``truth_value`` (n, the
        exact curve); ``bias``, ``sd``, ``rmse`` (estimator, n) and their
        Monte Carlo standard errors ``*_se`` (0 where ``exact``), ``exact``
        (estimator: values from exact moments), ``mc_rmse``/``mc_rmse_se``
        (the Monte Carlo RMSE beside every exact one), ``failures``,
        coordinates ``kind`` and ``replicates`` (estimator);
        ``coverage`` with ``coverage_lower``/``coverage_upper`` and
        ``mean_width`` (estimator, ci_method, n) for the L-statistics (NaN
        for the others); scalar coordinates ``truth``, ``B``, ``curve``,
        ``bounds_lo``, ``bounds_hi``.
    """
    coverage_replicates = _renamed_samples(samples, coverage_replicates, 1000)
    run = _cell_run(dist, B, curve, estimators, ci_methods, coverage_replicates, resamples)
    parts = _cell_parts(run, seed=seed, workers=workers, replicates=replicates,
                        python_replicates=python_replicates,
                        coverage_replicates=coverage_replicates, resamples=resamples)
    ds = xr.concat(parts, dim="n", join="outer", coords="minimal", compat="override",
                   data_vars="all")
    ests = run.ests
    ds = ds.reindex(estimator=[e.name for e in ests])
    # beyond B, estimators that do not extrapolate have no values
    ds["exact"] = ds["exact"].fillna(False).astype(bool).transpose("estimator", "n")
    ds["failures"] = ds["failures"].fillna(0).astype(np.int64)
    for var in ("kind", "replicates"):
        ds.coords[var] = ("estimator", [_first(parts, var, e.name) for e in ests])
    ds.coords["curve"] = run.target.name
    ds.coords["bounds_lo"], ds.coords["bounds_hi"] = run.bounds
    ds.attrs.update(_attrs(parts, coverage_replicates, resamples, replicates))
    return ds


@dataclass(frozen=True)
class _CellRun:
    """A cell's truth, budget and curve, checked, with its estimators, CI methods and
    budgets."""

    truth: object
    B: int
    target: object
    ests: list  # the estimators of the curve
    all_meths: list  # every CI method asked for
    meths: list  # the names of those that bound the curve at B
    bounds: tuple  # the metric's range
    ns: np.ndarray  # the budgets, up to 2B


def _cell_run(dist, B, curve, estimators, ci_methods, coverage_replicates, resamples):
    """Check a cell's arguments: the coverage battery's own checks too, before the bias
    battery runs (which a sweep's check of its cells stops at), so that a cell refused
    here leaves no store behind.

    Returns
    -------
    _CellRun
    """
    from ..intervals.family import check_ci_methods, resolve_ci_methods
    from ..truths.distributions import make_truth

    truth = make_truth(dist)
    B = check.B(B)
    target = as_target(curve)
    ests = _estimators(estimators, target)
    if not ests:
        raise check.InvalidArgument("estimators", f"estimators: none estimates the "
                                                  f"{target.name} curve")
    all_meths = resolve_ci_methods(default_ci_methods() if ci_methods is None else ci_methods)
    meths = [m.name for m in all_meths if bounds_curve(m, target, B)]
    bounds = metric_bounds(truth)
    ns = budgets(B)
    check.replicates(coverage_replicates, "coverage_replicates")
    check.integer(resamples, "resamples", minimum=2)
    if any(e.is_lstatistic for e in ests):
        check_ci_methods(resolve_ci_methods(meths), target, B)
    return _CellRun(truth, B, target, ests, all_meths, meths, bounds, ns)


def _cell_parts(run, *, seed, workers, replicates, python_replicates, coverage_replicates,
                resamples):
    """The bias battery (and the coverage battery, for the L-statistics) at the budgets
    up to B for every estimator, and beyond B for those that extrapolate.

    Returns
    -------
    list of xarray.Dataset
        One :func:`_cell_part` per range of budgets that has estimators.
    """
    from .bias import bias
    from .coverage import coverage

    ns, B = run.ns, run.B
    inside, beyond = ns[ns <= B], ns[ns > B]
    parts = []
    common = dict(seed=seed, workers=workers, curve=run.target)
    for part_ns, chosen in ((inside, run.ests),
                            (beyond, [e for e in run.ests if e.extrapolates])):
        if not chosen or not part_ns.size:
            continue
        names = [e.name for e in chosen]
        b = bias(run.truth, B, estimators=names, ns=part_ns, method="both",
                 replicates=replicates, python_replicates=python_replicates, bounds=run.bounds,
                 **common)
        lstats = [e.name for e in chosen if e.is_lstatistic]
        c = coverage(run.truth, B, estimators=lstats, ci_methods=run.meths, ns=part_ns,
                     replicates=coverage_replicates, resamples=resamples, bounds=run.bounds,
                     **common) if lstats and run.meths else None
        parts.append(_cell_part(b, c, run.target, run.all_meths if lstats else []))
    return parts


def _first(parts, var, name):
    for p in parts:
        if name in p["estimator"].values:
            return p[var].sel(estimator=name).item()
    raise KeyError(name)


def _renamed_samples(samples, coverage_replicates, default):
    """``coverage_replicates``, or the value of its deprecated name ``samples`` (with a
    DeprecationWarning); both at once, unless ``coverage_replicates`` is ``default``, is
    an error."""
    if samples is None:
        return coverage_replicates
    if coverage_replicates != default:
        raise check.InvalidArgument("samples", "give coverage_replicates only (samples is "
                                               "its deprecated name)")
    warnings.warn("the leaderboard's 'samples' is now 'coverage_replicates', as replicates "
                  "everywhere in evpsim; 'samples' will be removed", DeprecationWarning,
                  stacklevel=3)
    return samples


def _attrs(parts, coverage_replicates, resamples, replicates):
    """The cell's provenance: the batteries' and the sizes."""
    attrs = dict(parts[0].attrs)
    attrs.update(experiment="leaderboard cell", replicates=replicates,
                 coverage_replicates=coverage_replicates, coverage_resamples=resamples)
    return attrs


def _cell_part(b, c, target, meths):
    """One bias run's (and coverage run's) numbers at its budgets, as a cell's variables,
    with NaN coverage for the CI methods ``meths`` that ``c`` lacks (or all, without ``c``)."""
    exact = np.isfinite(b["exact_mse"])
    pick = xr.where(exact, b[[f"exact_{q}" for q in ("bias", "variance", "mse")]]
                    .rename({f"exact_{q}": q for q in ("bias", "variance", "mse")}),
                    b[["bias", "variance", "mse"]])
    rmse = np.sqrt(pick["mse"])
    mc_rmse = np.sqrt(b["mse"])
    ds = xr.Dataset(coords={"estimator": b["estimator"], "n": b["n"]})
    ds["truth_value"] = b[target.symbol].rename(None).assign_attrs(
        long_name=f"exact {target.description}")
    ds["bias"] = pick["bias"].assign_attrs(long_name="bias of the estimator")
    ds["sd"] = np.sqrt(pick["variance"]).assign_attrs(long_name="standard deviation")
    ds["rmse"] = rmse.assign_attrs(long_name="root mean squared error")
    zero = xr.zeros_like(b["bias_se"])
    ds["bias_se"] = xr.where(exact, zero, b["bias_se"]).assign_attrs(
        long_name="Monte Carlo standard error of bias (0: exact)")
    ds["sd_se"] = xr.where(exact, zero, b["variance_se"] / (2 * np.sqrt(b["variance"]))
                           ).assign_attrs(long_name="Monte Carlo standard error of sd (0: exact)")
    ds["rmse_se"] = xr.where(exact, zero, b["mse_se"] / (2 * mc_rmse)).assign_attrs(
        long_name="Monte Carlo standard error of rmse (0: exact)")
    ds["mc_rmse"] = mc_rmse.assign_attrs(long_name="Monte Carlo RMSE")
    ds["mc_rmse_se"] = (b["mse_se"] / (2 * mc_rmse)).assign_attrs(
        long_name="Monte Carlo standard error of mc_rmse")
    ds["exact"] = exact.assign_attrs(long_name="bias, sd and rmse are exact (else Monte Carlo)")
    ds["failures"] = b["failures"]
    ds.coords["kind"] = b["kind"]
    ds.coords["replicates"] = b["replicates"]
    if meths:
        names = [m.name for m in meths]
        for var in ("coverage", "coverage_lower", "coverage_upper", "mean_width"):
            ds[var] = (c[var].drop_vars("ci_method_kind")
                       .reindex(estimator=b["estimator"], ci_method=names)
                       if c is not None else
                       xr.DataArray(np.full((b.sizes["estimator"], len(names), b.sizes["n"]),
                                            np.nan), dims=("estimator", "ci_method", "n"),
                                    coords={"ci_method": names}))
        ds.coords["ci_method_kind"] = ("ci_method", [m.kind for m in meths])
    truth = {k: v for k, v in b.coords.items() if k.startswith("truth") or k == "B"}
    return ds.assign_coords(truth)


def leaderboard(*, truths=None, Bs=None, curves=CURVES, estimators=None, ci_methods=None,
                size="full", seed=0, store=None, backend="process", workers=1, scheduler=None,
                progress=False, **sizes):
    """Run the leaderboard's cells on the sweep engine and combine them.

    Parameters
    ----------
    truths : sequence of str, optional
        Truth specs (default :func:`leaderboard_truths`).
    Bs : sequence of int, optional
        Budgets B (default :data:`BUDGETS`).
    curves : sequence of str
        Curves (default the mean and the median).
    estimators, ci_methods : str or sequence, optional
        Candidates (default every registered one, users' and plugins'
        included, but slow estimators, see :func:`default_estimators`;
        ``estimators="all"`` includes them; every CI method, the
        resampling ones included, :func:`default_ci_methods`).
    size : {"full", "quick"}
        Replicates of :data:`SIZES` (``"quick"`` also the smaller grid of
        :data:`QUICK` unless ``truths`` or ``Bs`` are given); ``sizes``
        overrides any of them.
    seed : int
        Seed of every cell.
    store, backend, workers, scheduler, progress
        As in :func:`evpsim.sweep`: a checkpoint folder (a leaderboard run
        again resumes), where cells run, and a progress line.

    Returns
    -------
    xarray.Dataset
        The cells of :func:`cell` along dims ``dist``, ``B``, ``curve``.
    """
    from ..engine.sweeps import sweep
    from ..engine.sweeps.grid import axis_values
    from ..intervals.family import resolve_ci_methods

    size = check.choice(size, "size", tuple(SIZES))
    if "samples" in sizes:
        sizes["coverage_replicates"] = _renamed_samples(
            sizes.pop("samples"), sizes.get("coverage_replicates"), None)
    # names, not None: a store of cells run with other estimators or methods is refused
    if estimators is None:
        estimators = default_estimators()
    elif estimators == "all":
        estimators = list_estimators()
    estimators = [e.name for e in resolve_estimators(estimators)]
    meths = resolve_ci_methods(default_ci_methods() if ci_methods is None else ci_methods)
    options = {**SIZES[size], **sizes, "estimators": estimators,
               "ci_methods": [m.name for m in meths]}
    if truths is None:
        truths = QUICK["truths"] if size == "quick" else leaderboard_truths()
    if Bs is None:
        Bs = QUICK["Bs"] if size == "quick" else BUDGETS
    # as given: a single name or B is one value, never split into its letters
    axes = {"dist": truths, "B": Bs, "curve": curves}
    if ci_methods is not None:  # a method named for a grid it bounds nowhere is refused
        cells = [(as_target(c), check.B(B)) for c in axis_values(curves, "curve")
                 for B in axis_values(Bs, "B")]
        for m in meths:
            if not any(bounds_curve(m, target, B) for target, B in cells):
                raise check.InvalidArgument(
                    "ci_methods", f"ci_methods: {m.name} bounds the mean curve only, at B >= "
                                  f"{m.minimum_B}, and no cell of this grid is one")
    ds = sweep("leaderboard", axes, options=options, seed=seed, store=store, backend=backend,
               workers=workers, scheduler=scheduler, progress=progress)
    ds.attrs.update(leaderboard_size=size)
    return ds
