"""The bias battery: mean, bias, variance and MSE of EVP estimators.

Exactly (order-statistic moments, :mod:`evpsim.truths.exact`), by Monte Carlo over
simulated searches (:mod:`evpsim.engine.montecarlo`), or both side by side with the
standardised differences that check the engine on every run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .. import _validate as check
from .._kernels import moments as K
from ..engine.montecarlo import CHUNK_SIZE, Job, MonteCarlo, run
from ..engine.streams import bias_streams
from ..engine.summaries import summarise_power_sums
from ..estimators.family import Context, estimators_at, get_estimator
from ..estimators.pyrun import BiasSums, PythonJob, search_counts
from ..estimators.targets import as_target
from ..io.results import provenance
from ..truths.distributions import make_truth
from ..truths.exact import lstatistic_moments

__all__ = ["bias", "METHODS", "QUANTITIES", "MIN_CHECK_REPLICATES"]

METHODS = ("both", "exact", "mc")
_EXACT_TOL = 1e-11  # accuracy of exact moments, relative to the truth's range
QUANTITIES = ("mean", "bias", "variance", "mse")
_DIMS = ("estimator", "n")  # of every quantity
#: fewest replicates whose standard errors are trusted to check Monte Carlo against exact
MIN_CHECK_REPLICATES = 1000


def _lstat_job(truth, B, ests, lstats, ns, centers, target):
    """Kernel for the L-statistics, with U's rows as control variates.

    U is unbiased for every truth's mean curve at n <= B, so ``est - U``
    (same sample, same n) has mean equal to the bias of ``est`` for the
    mean curve and, the two being highly correlated, a variance 3 to 80
    times smaller than ``est`` (B = 30). U's rows are added as hidden rows
    when U itself was not asked for. Rows of other curves, and of budgets
    beyond B, have no control.
    """
    names = [ests[k].name for k in lstats]
    mats = [ests[k].weight_rows(B, ns, target) for k in lstats]
    R = ns.size
    controls = np.full(R * len(mats), -1, dtype=np.int64)
    if target.kind == "mean":
        inside = ns <= B
        if "U" in names:
            u_block = names.index("U")
        else:
            u_block = len(mats)
            u_rows = np.zeros((R, B))
            u_rows[inside] = get_estimator("U").weight_rows(B, ns[inside])
            mats.append(u_rows)
            controls = np.append(controls, np.full(R, -1, dtype=np.int64))
        for b in range(len(names)):
            if b != u_block:
                controls[b * R:(b + 1) * R] = np.where(inside, u_block * R + np.arange(R), -1)
    ws = np.concatenate(mats)
    return Job(K.bias_lstat_kernel(B), (B, truth.sampler, np.ascontiguousarray(ws.T),
                                        np.tile(centers, len(mats)), controls),
               bias_streams())


def _monte_carlo(truth, B, ests, ns, centers, target, options):
    """Power sums (E, R, 6) of the numba-path estimators, and which have a control.

    Columns: sums of d, d^2, d^3, d^4 with ``d = est - centers``, then sums
    of c and c^2 with ``c = est - U`` for rows with U as control variate.
    """
    sums = np.zeros((len(ests), ns.size, 6))
    controlled = np.zeros((len(ests), ns.size), dtype=bool)
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    jobs, rows = [], []
    if lstats:
        job = _lstat_job(truth, B, ests, lstats, ns, centers, target)
        jobs.append(job)
        rows.append(lstats)
        ctl = job.args[-1][:len(lstats) * ns.size].reshape(len(lstats), ns.size) >= 0
        controlled[lstats] = ctl
    for k, e in enumerate(ests):
        if e.kind == "numba":
            jobs.append(Job(K.bias_general_chunks, (B, truth.sampler, e.func, ns, centers),
                            bias_streams()))
            rows.append([k])
    if jobs:
        label = f"Monte Carlo ({options.replicates:,} searches of B={B})"
        for idx, part in zip(rows, run(jobs, options, label)):
            part = part.reshape(-1, ns.size, part.shape[-1])[:len(idx)]
            sums[idx, :, :part.shape[-1]] = part
    return sums, controlled


def _python(truth, B, ests, ns, centers, context, options, counts):
    """Counts and power sums (E, R, 5) of the Python estimators.

    Estimators that run on the same number of searches share a job: they
    see the first searches of the battery's run, search for search.
    """
    out = np.zeros((len(ests), ns.size, 5))
    idx = [k for k, e in enumerate(ests) if e.kind == "python"]
    for M in sorted({int(counts[k]) for k in idx}, reverse=True):
        group = [k for k in idx if counts[k] == M]
        job = PythonJob(B, (truth.sampler,), tuple(ests[k] for k in group), ns, context,
                        BiasSums(centers), bias_streams())
        names = ", ".join(ests[k].name for k in group)
        part, = run([job], dataclasses.replace(options, replicates=M),
                    f"{names} ({M:,} searches of B={B})")
        out[group] = part
    return out


def bias(truth="normal", B=30, *, estimators=None, curve="mean", ns=None, method="both",
         replicates=1_000_000, seed=0, workers=1, progress=False, chunk_size=CHUNK_SIZE,
         python_replicates=None, bounds=None):
    """Mean, bias, variance and MSE of EVP estimators for every budget.

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.truths.make_truth`), default the
        truncated normal N(0.6, 0.07^2) on [0, 1].
    B : int
        Number of trials in each simulated search (at least 2).
    estimators : str or sequence, optional
        Estimator names (default U, V, W for the mean curve, ``quantile``
        for a quantile curve).
    curve : str or Target
        The curve the estimators are measured against: ``"mean"`` (the
        expected best of n, theta_n), ``"median"`` or ``"quantile:Q"`` (the
        Q-quantile of the best of n, tau_Q(n)); see :mod:`evpsim.estimators.targets`.
    ns : sequence of int, optional
        Budgets (default 1..B); beyond B for estimators that extrapolate.
    method : {"both", "exact", "mc"}
        Exact moments, Monte Carlo, or both side by side.
    replicates : int
        Monte Carlo replicates (simulated searches).
    seed : int
        Seed of the Monte Carlo run.
    workers : int
        Worker processes; the result does not depend on it.
    progress : bool
        Show a progress line on stderr for runs longer than ~1.5 s.
    chunk_size : int
        Replicates per chunk (part of the seed's meaning: results are
        reproducible for the same seed and chunk size).
    python_replicates : int or dict, optional
        Searches for the estimators written in Python, one count for all
        or ``{name: count}`` (default: as many as ``replicates``, or fewer
        for slow estimators, see :attr:`evpsim.Estimator.max_replicates`):
        the first ones of the run's searches, so comparisons stay paired.
    bounds : (float, float), optional
        The metric's known range, passed to estimators that use it
        (``kde``).

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``n``, scalar coordinates ``truth``,
        ``truth_description``, ``truth_lo``, ``truth_hi``, ``B`` and
        ``curve`` (the target's name) (so that results of several truths or
        sizes combine with ``xr.concat(results, dim="truth",
        coords="different")``); coordinates ``kind`` and ``replicates``
        per estimator (how it ran, on how many searches). ``theta`` (n) is
        the exact mean curve, or ``tau`` (n) the exact quantile curve: what
        the estimators are measured against. With ``method="exact"``,
        ``mean, bias, variance, mse`` are exact. With ``"mc"`` they are
        Monte Carlo estimates with standard errors ``*_se``. With
        ``"both"`` the Monte Carlo ones are in ``mean`` ... and the exact
        ones in ``exact_mean`` ..., and ``z_*`` holds (Monte Carlo - exact)
        / SE; attribute ``max_abs_z`` their maximum (NaN below
        :data:`MIN_CHECK_REPLICATES` replicates, too few for trustworthy
        standard errors). Estimators without exact moments have NaN there.
        ``failures`` (estimator, n): searches on which an estimator failed
        (a Python estimator raised or returned NaN); its moments are over
        the others.

    Notes
    -----
    The Monte Carlo bias (and mean) of every L-statistic other than U is
    estimated with U as a control variate for the mean curve at n <= B: U
    is unbiased there for any truth, so ``mean(est - U)`` over the same
    samples estimates the bias, with a standard error 3 to 80 times smaller
    than ``mean(est) - theta`` (B = 30, normal truth). U's own bias, all
    variances and MSEs, and everything else are plain Monte Carlo averages.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.bias("normal", B=10, method="exact")
    >>> float(abs(ds["bias"].sel(estimator="U")).max()) < 1e-12
    True
    >>> med = evpsim.bias("normal", B=10, curve="median", ns=[1, 10, 20], method="exact")
    >>> [round(float(b), 4) for b in med["bias"].sel(estimator="quantile")]
    [-0.0086, 0.0028, -0.02]
    """
    run = _bias_run(truth, B, estimators, curve, ns, method, replicates, seed, workers,
                    progress, chunk_size, python_replicates, bounds)
    ds = xr.Dataset(coords={"estimator": [e.name for e in run.ests], "n": run.ns,
                            **run.truth.coords(), "B": run.B, "curve": run.target.name,
                            "kind": ("estimator", [e.kind for e in run.ests]),
                            "replicates": ("estimator", run.counts)})
    ds[run.target.symbol] = ("n", run.centers,
                             {"long_name": f"exact {run.target.description}"})
    exact = None
    if run.method in ("exact", "both"):
        exact = _exact(run.truth, run.B, run.ests, run.ns, run.centers, run.target)
        prefix = "" if run.method == "exact" else "exact_"
        for q in QUANTITIES:
            ds[prefix + q] = (_DIMS, exact[q], {"long_name": f"exact {q} of the estimator"})
    if run.options is not None:
        _add_monte_carlo(ds, run)
        if exact is not None:
            _add_z(ds, exact, run.truth.range)
    ds.attrs.update(_bias_attrs(ds, run, exact is not None))
    return ds


@dataclass(frozen=True)
class _BiasRun:
    """The checked arguments of :func:`bias` and what they imply."""

    truth: object
    B: int
    target: object
    ests: list
    ns: np.ndarray
    method: str
    options: MonteCarlo | None  # None: exact moments only
    counts: np.ndarray  # searches of each estimator
    bounds: tuple | None
    centers: np.ndarray  # the exact curve the estimators are measured against


def _bias_run(truth, B, estimators, curve, ns, method, replicates, seed, workers, progress,
              chunk_size, python_replicates, bounds):
    """Check the arguments of :func:`bias` (in the order its errors name them) and take
    the exact curve at the budgets.

    Returns
    -------
    _BiasRun
    """
    method = check.choice(method, "method", METHODS)
    truth = make_truth(truth)
    B = check.B(B)
    target = as_target(curve)
    ests, ns = estimators_at(estimators, target, B, ns)
    unknown = [e.name for e in ests if not e.is_lstatistic and e.moments is None]
    if method == "exact" and unknown:
        raise check.InvalidArgument(
            "method", f"method: 'exact' needs exact moments, and {', '.join(unknown)} "
                      f"{'has' if len(unknown) == 1 else 'have'} none (only L-statistics and "
                      f"estimators with known moments do); use method='both' (Monte Carlo "
                      f"for {'it' if len(unknown) == 1 else 'them'}) or method='mc'")
    options = MonteCarlo(replicates, seed, chunk_size, workers, progress) \
        if method != "exact" else None
    counts = search_counts(ests, replicates, python_replicates) if options else \
        np.zeros(len(ests), dtype=np.int64)
    if bounds is not None:
        bounds = check.bounds(bounds, truth.lo, truth.hi, "the truth's support")
    _check_size(B, ns.size, len(ests), method)
    return _BiasRun(truth, B, target, ests, ns, method, options, counts, bounds,
                    target.exact(truth, ns))


def _add_monte_carlo(ds, run):
    """The Monte Carlo ``mean, bias, variance, mse`` with standard errors, and
    ``failures``: the numba-path and the Python estimators, U as control variate for
    the bias where :func:`_lstat_job` set it."""
    ests, ns, centers, counts = run.ests, run.ns, run.centers, run.counts
    sums, controlled = _monte_carlo(run.truth, run.B, ests, ns, centers, run.target,
                                    run.options)
    py = _python(run.truth, run.B, ests, ns, centers, Context(run.target, run.bounds),
                 run.options, counts)
    python = np.array([e.kind == "python" for e in ests])
    done = np.where(python[:, None], py[..., 0], counts[:, None]).astype(np.int64)
    sums[python, :, :4] = py[python, :, 1:]
    M = np.maximum(done, 2)
    mc = summarise_power_sums(sums[..., :4], M)
    cv_bias = sums[..., 4] / M
    cv_var = np.maximum(sums[..., 5] / M - cv_bias**2, 0.0) * M / (M - 1)
    mc["bias"] = np.where(controlled, cv_bias, mc["bias"])
    mc["bias_se"] = np.where(controlled, np.sqrt(cv_var / M), mc["bias_se"])
    mc["mean"] = centers[None, :] + mc["bias"]
    mc["mean_se"] = mc["bias_se"]
    few = done < 2  # nothing to average: an estimator that failed everywhere
    for q in QUANTITIES:
        ds[q] = (_DIMS, np.where(few, np.nan, mc[q]),
                 {"long_name": f"Monte Carlo {q} of the estimator"})
        ds[q + "_se"] = (_DIMS, np.where(few, np.nan, mc[q + "_se"]),
                         {"long_name": f"Monte Carlo standard error of {q}"})
    ds["failures"] = (_DIMS, counts[:, None] - done,
                      {"long_name": "searches on which the estimator failed (left out)"})


def _add_z(ds, exact, scale):
    """``z_*``: (Monte Carlo - exact) / SE of each quantity, the check of the engine
    (``scale``: the truth's range)."""
    for q in QUANTITIES:
        # exact values carry ~1e-12 of quadrature and rounding error;
        # without this floor a vanishing SE (V - U at n = 1) inflates z
        floor = _EXACT_TOL * scale ** (2 if q in ("variance", "mse") else 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (ds[q].values - exact[q]) / np.hypot(ds[q + "_se"].values, floor)
        ds["z_" + q] = (_DIMS, z, {"long_name": f"(Monte Carlo - exact) / SE of {q}"})


def _bias_attrs(ds, run, checked):
    """The run's provenance, and ``max_abs_z`` where Monte Carlo was ``checked`` against
    exact moments (NaN below :data:`MIN_CHECK_REPLICATES` replicates)."""
    options = run.options
    attrs = provenance(
        experiment="bias", method=run.method, estimators=[e.name for e in run.ests],
        curve=run.target.name,
        seed=options.seed if options else None,
        replicates=options.replicates if options else 0,
        chunk_size=options.chunk_size if options else None,
        workers=options.workers if options else 1)
    if checked and options is not None:
        zs = np.concatenate([np.abs(ds["z_" + q].values).ravel() for q in QUANTITIES])
        zs = zs[np.isfinite(zs)]
        trusted = zs.size and options.replicates >= MIN_CHECK_REPLICATES
        attrs["max_abs_z"] = float(zs.max()) if trusted else float("nan")
    return attrs


def _exact(truth, B, ests, ns, centers, target):
    """Exact mean, bias, variance and MSE (E, R); NaN for estimators without them."""
    exact = {q: np.full((len(ests), ns.size), np.nan) for q in QUANTITIES}
    lidx = [k for k, e in enumerate(ests) if e.is_lstatistic]
    moments = []
    if lidx:
        means, variances = lstatistic_moments(truth, B, [ests[k].weight_rows(B, ns, target)
                                                         for k in lidx])
        moments += zip(lidx, means, variances)
    moments += [(k, *e.moments(truth, B, ns)) for k, e in enumerate(ests)
                if not e.is_lstatistic and e.moments is not None]
    for k, m, v in moments:
        exact["mean"][k] = m
        exact["bias"][k] = m - centers
        exact["variance"][k] = v
        exact["mse"][k] = v + (m - centers) ** 2
    return exact


def _check_size(B, R, E, method):
    """Refuse a B whose weight matrices, or exact moments, cannot fit in memory."""
    # the estimators' (R, B) weights, U's control rows, a transposed copy;
    # exact moments add (B, B) covariance work arrays
    matrices = 2 * (E + 1) * max(R, 1) / B + (4 if method != "mc" else 0)
    check.check_memory(int(8 * B * B * matrices), f"B = {B:,} ({matrices:.0f} matrices of "
                                                  f"{B:,} x {B:,})", "B")
