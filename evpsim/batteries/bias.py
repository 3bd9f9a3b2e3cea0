"""The bias battery: mean, bias, variance and MSE of EVP estimators.

Exactly (order-statistic moments, :mod:`evpsim.exact`), by Monte Carlo over
simulated searches (:mod:`evpsim.montecarlo`), or both side by side with the
standardised differences that check the engine on every run.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .. import _validate as check
from .._kernels import moments as K
from ..estimators import get_estimator, resolve_estimators
from ..exact import lstatistic_moments
from ..montecarlo import CHUNK_SIZE, Job, MonteCarlo, run
from ..results import provenance
from ..streams import bias_streams
from ..summaries import summarise_power_sums
from ..truths import make_truth

__all__ = ["bias", "METHODS", "QUANTITIES", "MIN_CHECK_REPLICATES"]

METHODS = ("both", "exact", "mc")
_EXACT_TOL = 1e-11  # accuracy of exact moments, relative to the truth's range
QUANTITIES = ("mean", "bias", "variance", "mse")
#: fewest replicates whose standard errors are trusted to check Monte Carlo against exact
MIN_CHECK_REPLICATES = 1000


def _lstat_job(truth, B, ests, lstats, theta):
    """Kernel for the L-statistics, with U's rows as control variates.

    U is unbiased for every truth, so ``est - U`` (same sample, same n) has
    mean equal to the bias and, the two being highly correlated, a variance
    3 to 80 times smaller than ``est`` (B = 30). U's rows are added as hidden
    rows when U itself was not asked for.
    """
    names = [ests[k].name for k in lstats]
    mats = [ests[k].weight_matrix(B) for k in lstats]
    if "U" in names:
        u_block = names.index("U")
    else:
        u_block = len(mats)
        mats.append(get_estimator("U").weight_matrix(B))
    ws = np.concatenate(mats)
    controls = np.tile(u_block * B + np.arange(B), len(mats))
    controls[u_block * B:(u_block + 1) * B] = -1
    return Job(K.bias_lstat_chunks, (B, truth.sampler, np.ascontiguousarray(ws.T),
                                     np.tile(theta, len(mats)), controls.astype(np.int64)),
               bias_streams())


def _monte_carlo(truth, B, ests, theta, options):
    """Power sums (E, B, 6) for every estimator and whether each has a control.

    Columns: sums of d, d^2, d^3, d^4 with ``d = est - theta``, then sums of
    c and c^2 with ``c = est - U`` for estimators with U as control variate.
    """
    ns = np.arange(1, B + 1)
    sums = np.zeros((len(ests), B, 6))
    controlled = np.zeros(len(ests), dtype=bool)
    lstats = [k for k, e in enumerate(ests) if e.is_lstatistic]
    jobs, rows = [], []
    if lstats:
        jobs.append(_lstat_job(truth, B, ests, lstats, theta))
        rows.append(lstats)
        controlled[lstats] = [ests[k].name != "U" for k in lstats]
    for k, e in enumerate(ests):
        if not e.is_lstatistic:
            jobs.append(Job(K.bias_general_chunks, (B, truth.sampler, e.func, ns, theta),
                            bias_streams()))
            rows.append([k])
    label = f"Monte Carlo ({options.replicates:,} searches of B={B})"
    for idx, part in zip(rows, run(jobs, options, label)):
        part = part.reshape(-1, B, part.shape[-1])[:len(idx)]
        sums[idx, :, :part.shape[-1]] = part
    return sums, controlled


def bias(truth="normal", B=30, *, estimators=None, method="both",
         replicates=1_000_000, seed=0, workers=1, progress=False,
         chunk_size=CHUNK_SIZE):
    """Mean, bias, variance and MSE of EVP estimators for every budget.

    Parameters
    ----------
    truth : str or Truth
        Ground truth (see :func:`evpsim.truths.make_truth`), default the
        truncated normal N(0.6, 0.07^2) on [0, 1].
    B : int
        Number of trials in each simulated search (at least 2).
    estimators : str or sequence, optional
        Estimator names (default the built-ins U, V, W).
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

    Returns
    -------
    xarray.Dataset
        Dims ``estimator`` and ``n``, scalar coordinates ``truth``,
        ``truth_description``, ``truth_lo``, ``truth_hi`` and ``B`` (so that
        results of several truths or sizes combine with
        ``xr.concat(results, dim="truth", coords="different")``).
        ``theta`` (n) is the exact EVP. With
        ``method="exact"``, ``mean, bias, variance, mse`` are exact. With
        ``"mc"`` they are Monte Carlo estimates with standard errors
        ``*_se``. With ``"both"`` the Monte Carlo ones are in ``mean`` ...
        and the exact ones in ``exact_mean`` ..., and ``z_*`` holds
        (Monte Carlo - exact) / SE; attribute ``max_abs_z`` their maximum
        (NaN below :data:`MIN_CHECK_REPLICATES` replicates, too few for
        trustworthy standard errors). General (non-linear) estimators have
        no exact values (NaN).

    Notes
    -----
    The Monte Carlo bias (and mean) of every L-statistic other than U is
    estimated with U as a control variate: U is unbiased for any truth, so
    ``mean(est - U)`` over the same samples estimates the bias, with a
    standard error 3 to 80 times smaller than ``mean(est) - theta`` (B = 30,
    normal truth). U's own bias, and all variances and MSEs, are plain
    Monte Carlo averages. General estimators are plain Monte Carlo.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.bias("normal", B=10, method="exact")
    >>> float(abs(ds["bias"].sel(estimator="U")).max()) < 1e-12
    True
    """
    method = check.choice(method, "method", METHODS)
    truth = make_truth(truth)
    B = check.B(B)
    ests = resolve_estimators(estimators)
    options = MonteCarlo(replicates, seed, chunk_size, workers, progress) \
        if method != "exact" else None
    _check_size(B, len(ests), method)
    names = [e.name for e in ests]
    ns = np.arange(1, B + 1)
    theta = truth.theta(ns)
    ds = xr.Dataset(coords={"estimator": names, "n": ns, **truth.coords(), "B": B})
    ds["theta"] = ("n", theta, {"long_name": "exact expected maximum of n draws"})
    dims = ("estimator", "n")
    exact = None
    if method in ("exact", "both"):
        exact = {q: np.full((len(ests), B), np.nan) for q in QUANTITIES}
        lidx = [k for k, e in enumerate(ests) if e.is_lstatistic]
        if lidx:
            means, variances = lstatistic_moments(truth, B,
                                                  [ests[k].weight_matrix(B) for k in lidx])
            for k, m, v in zip(lidx, means, variances):
                exact["mean"][k] = m
                exact["bias"][k] = m - theta
                exact["variance"][k] = v
                exact["mse"][k] = v + (m - theta) ** 2
        prefix = "" if method == "exact" else "exact_"
        for q in QUANTITIES:
            ds[prefix + q] = (dims, exact[q], {"long_name": f"exact {q} of the estimator"})
    if options is not None:
        sums, controlled = _monte_carlo(truth, B, ests, theta, options)
        M = options.replicates
        mc = summarise_power_sums(sums[..., :4], M)
        cv_bias = sums[..., 4] / M
        cv_var = np.maximum(sums[..., 5] / M - cv_bias**2, 0.0) * M / (M - 1)
        mc["bias"] = np.where(controlled[:, None], cv_bias, mc["bias"])
        mc["bias_se"] = np.where(controlled[:, None], np.sqrt(cv_var / M), mc["bias_se"])
        mc["mean"] = theta[None, :] + mc["bias"]
        mc["mean_se"] = mc["bias_se"]
        for q in QUANTITIES:
            ds[q] = (dims, mc[q], {"long_name": f"Monte Carlo {q} of the estimator"})
            ds[q + "_se"] = (dims, mc[q + "_se"],
                             {"long_name": f"Monte Carlo standard error of {q}"})
        if exact is not None:
            for q in QUANTITIES:
                # exact values carry ~1e-12 of quadrature and rounding error;
                # without this floor a vanishing SE (V - U at n = 1) inflates z
                floor = _EXACT_TOL * truth.range ** (2 if q in ("variance", "mse") else 1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    z = (mc[q] - exact[q]) / np.hypot(mc[q + "_se"], floor)
                ds["z_" + q] = (dims, z, {"long_name": f"(Monte Carlo - exact) / SE of {q}"})
    attrs = provenance(
        experiment="bias", method=method, estimators=names,
        seed=options.seed if options else None,
        replicates=options.replicates if options else 0,
        chunk_size=options.chunk_size if options else None,
        workers=options.workers if options else 1)
    if exact is not None and options is not None:
        zs = np.concatenate([np.abs(ds["z_" + q].values).ravel() for q in QUANTITIES])
        zs = zs[np.isfinite(zs)]
        trusted = zs.size and options.replicates >= MIN_CHECK_REPLICATES
        attrs["max_abs_z"] = float(zs.max()) if trusted else float("nan")
    ds.attrs.update(attrs)
    return ds


def _check_size(B, E, method):
    """Refuse a B whose weight matrices, or exact moments, cannot fit in memory."""
    # the estimators' (B, B) weights, U's control rows, a transposed copy;
    # exact moments add (B, B) covariance work arrays
    matrices = 2 * (E + 1) + (4 if method != "mc" else 0)
    check.check_memory(8 * B * B * matrices, f"B = {B:,} ({matrices} matrices of {B:,} x "
                                             f"{B:,})", "B")
