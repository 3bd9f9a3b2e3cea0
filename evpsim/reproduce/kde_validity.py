"""Does a KDE fitted to B runs predict what holds on the real distribution?

Tang et al. (2020, section 4.1) fit a Gaussian KDE to the B runs of a real
search and treat its discretized pmf as the ground truth of every later
simulation. Whether that truth predicts the real one can only be checked
against a search large enough to be its own truth: evpsim's scikit-learn
searches of 2,000 trials on the digits data (``data:sklearn-mlp``,
``data:sklearn-hgb``, ``data:sklearn-svm``), whose empirical distributions
(the pools) are taken as the real distributions.

For each pool and B in (50, 100), S random subsets of B trials are drawn
without replacement, and on each three KDEs are fitted: Tang et al.'s
construction with the normal-reference bandwidth, the centered construction
(bounds 0..1) with the normal-reference bandwidth, and the centered
construction with the leave-one-out likelihood bandwidth. What each KDE
truth predicts is set beside what holds on the pool:

* theta_n at n = 10, 20, 50;
* coverage of 95% percentile-bootstrap intervals of U and V at those n
  (:func:`~evpsim.studies.coverage.coverage`);
* V's exact bias at n = B (from :func:`~evpsim.truths.exact.order_statistic_means`);
* the rate at which searches of B trials rank the two closest pools (the
  pair whose pool theta_B differ least) opposite to their truths
  (:func:`~evpsim.studies.compare.comparison_errors`), on the two KDEs
  fitted to subsets of those pools against the two pools.

Each prediction error (KDE minus pool) is summarised over the subsets by its
mean with a 95% interval (the t interval over subsets, widened by the Monte
Carlo error of the pool's own coverage or ranking-error rate, which every
subset shares), its median and its 10% and 90% quantiles.

A verdict "agrees" needs more than intervals containing 0: with few subsets
they contain 0 because they are wide. Each claim states the test's power,
the smallest mean error it detects (at 80% power: about 1.43 times the
widest interval's half-width), and says "agrees" only when that is within
the error that matters for the quantity (:data:`MATERIAL`), "inconclusive"
when the intervals contain 0 but are too wide to tell.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import xarray as xr
from scipy import stats

from ..estimators.family import estimator_weights
from ..io.results import provenance, write_netcdf
from ..io.shipped import shipped_scores
from ..studies.compare import comparison_errors
from ..studies.coverage import coverage
from ..truths.distributions import empirical
from ..truths.exact import order_statistic_means
from ..truths.kde import fit_kde, load_kde
from .summary import Claim

TITLE = "Do KDE truths fitted to B runs predict the real distribution? (Tang et al. 2020, §4.1)"
#: what the summary calls a run without --quick
FULL_SIZE = "full size"
POOLS = ("sklearn-mlp", "sklearn-hgb", "sklearn-svm")
BS = (50, 100)
NS = (10, 20, 50)
ESTIMATORS = ["U", "V"]
#: label -> (construction, bandwidth rule) of the KDEs fitted to each subset
KDES = {"tang2020": ("tang2020", "normal-reference"),
        "centered": ("centered", "normal-reference"),
        "centered-cv": ("centered", "cv")}
BOUNDS = (0.0, 1.0)
#: subsets per pool and B; coverage samples and resamples on each KDE and on the pools;
#: pairs of searches behind each ranking-error rate
SIZES = {False: {"subsets": 50, "coverage": 200, "resamples": 1000, "pool_coverage": 5000,
                 "ranking": 10_000},
         True: {"subsets": 4, "coverage": 100, "resamples": 200, "pool_coverage": 100,
                "ranking": 2_000}}
SEED = 2020
#: the summary's headline budget and the quantities whose errors are summarised
HEADLINE_N = 20
ERRORS = {"theta_error": "theta_n", "coverage_error": "percentile coverage",
          "bias_error": "V's exact bias at n = B", "wrong_error": "ranking-error rate"}
STATISTICS = ["mean", "mean_lower", "mean_upper", "median", "q10", "q90"]
#: the smallest prediction error that matters, per quantity: a point of theta_n or of
#: V's bias (scores in 0..1), 5 points of coverage or of ranking-error rate (the
#: self-check's tolerance); a verdict "agrees" needs a test that detects it
MATERIAL = {"theta_error": 0.01, "coverage_error": 0.05, "bias_error": 0.01,
            "wrong_error": 0.05}
#: the power at which a claim quotes the smallest error its test detects
POWER = 0.8


def data_files():
    """No search files beyond the shipped ones (read with :func:`shipped_scores`)."""
    return []


def _seed(*keys):
    """An integer seed for a battery run, distinct for each tuple of keys."""
    return int(np.random.SeedSequence([SEED, *keys]).generate_state(1)[0])


def _fit(scores, label):
    """The KDE truth of ``label`` fitted to ``scores``, or None when no
    bandwidth is best by cross-validation (many tied scores)."""
    construction, rule = KDES[label]
    try:
        return load_kde(fit_kde(scores, bandwidth=rule, construction=construction,
                                bounds=BOUNDS if construction == "centered" else None))
    except ValueError:
        return None


def _predictions(truth, B, sizes, seed, replicates):
    """theta_n, percentile coverage of U and V at :data:`NS`, V's exact bias at n = B."""
    cov = coverage(truth, B=B, estimators=ESTIMATORS, ci_methods="percentile",
                   replicates=replicates, resamples=sizes["resamples"], seed=seed, ns=NS)
    at = cov.sel(ci_method="percentile", n=list(NS))
    mean_v = estimator_weights("V", B)[B - 1] @ order_statistic_means(truth, B)
    return {"theta": truth.theta(np.array(NS)),
            "coverage": at["coverage"].values,
            "coverage_lower": at["coverage_lower"].values,
            "coverage_upper": at["coverage_upper"].values,
            "bias": float(mean_v - truth.theta([B])[0])}


def _wrong(a, b, labels, B, sizes, seed):
    """Ranking-error rates of U and V at n = B, and the true sign of theta_a - theta_b."""
    ds = comparison_errors(a, b, Bs=[B], estimators=ESTIMATORS, labels=labels,
                           replicates=sizes["ranking"], seed=seed)
    return ds["wrong"].sel(B=B).values, int(ds["truth_sign"].sel(B=B))


def validity(pools, Bs=BS, sizes=SIZES[False], step=None):
    """Prediction errors of KDE truths fitted to subsets of each pool.

    Parameters
    ----------
    pools : dict
        Name -> scores of each real search (at least two), its empirical
        distribution taken as the truth.
    Bs : sequence of int
        Subset sizes, each at most the smallest pool and at least max(NS).
    sizes : dict
        ``subsets``, ``coverage``, ``resamples``, ``pool_coverage`` and
        ``ranking`` (see :data:`SIZES`).
    step : callable, optional
        Called with a sentence before each pool and B (progress).

    Returns
    -------
    xarray.Dataset
        Dims ``pool``, ``B``, ``subset``, ``construction``, ``estimator``,
        ``n``, ``statistic``: the KDEs' predictions (``kde_*``), the pools'
        values (``pool_*``), the errors (``*_error``) and their summaries
        over subsets (``*_error_summary``) and of their means over pools
        (``*_error_over_pools``); the ranking pair of each B in
        ``pair_a``, ``pair_b``; ``full_pool_theta_error``, the theta_n error
        of KDEs fitted to every trial of the pool. NaN where
        cross-validation found no bandwidth.
    """
    names = list(pools)
    truths = {name: empirical(scores, name=f"data:{name}") for name, scores in pools.items()}
    kde, pool, indices = _empty(truths, Bs, sizes["subsets"])
    full = _full_pool_errors(pools, pool["theta"])
    pairs = []
    for j, B in enumerate(Bs):
        fitted = {}
        for p, name in enumerate(names):
            if step:
                step(f"{name}, B = {B}: {sizes['subsets']} subsets x {len(KDES)} KDEs")
            fitted.update(_predict_pool(name, pools[name], truths[name], (p, j, B), sizes,
                                        kde, pool, indices))
        pairs.append(_rank_closest(truths, fitted, (j, B), sizes, kde, pool))
    ds = _dataset(names, Bs, list(KDES), sizes, kde, pool, indices, pairs)
    ds["full_pool_theta_error"] = (("pool", "construction", "n"), full, {
        "long_name": "theta_n of the KDE fitted to all the pool's trials minus the pool's "
                     "(NaN for the cv bandwidth: not computed)"})
    return ds


def _empty(truths, Bs, S):
    """The arrays :func:`validity` fills: the KDEs' predictions, the pools' values, the
    subsets' trials.

    Parameters
    ----------
    truths : dict
        Name -> the pool's empirical distribution.
    Bs : sequence of int
        Subset sizes.
    S : int
        Subsets per pool and B.

    Returns
    -------
    (dict, dict, numpy.ndarray)
        ``kde`` and ``pool``, arrays by quantity (NaN or 0 until filled; the
        pools' theta_n at :data:`NS` filled already), and the trials of each
        subset (-1 beyond B), dims (pool, B, subset, trial).
    """
    P, C, E, N = len(truths), len(KDES), len(ESTIMATORS), len(NS)
    shape = (P, len(Bs), S, C)
    kde = {"theta": np.full(shape + (N,), np.nan), "coverage": np.full(shape + (E, N), np.nan),
           "bias": np.full(shape, np.nan), "bandwidth": np.full(shape, np.nan),
           "wrong": np.full((len(Bs), S, C, E), np.nan),
           "sign": np.zeros((len(Bs), S, C), dtype=np.int8)}
    pool = {"theta": np.stack([t.theta(np.array(NS)) for t in truths.values()]),
            **{key: np.zeros((P, len(Bs), E, N))
               for key in ("coverage", "coverage_lower", "coverage_upper")},
            "bias": np.zeros((P, len(Bs))),
            "wrong": np.zeros((len(Bs), E)), "sign": np.zeros(len(Bs), dtype=np.int8)}
    indices = np.zeros((P, len(Bs), S, max(Bs)), dtype=np.int64) - 1
    return kde, pool, indices


def _full_pool_errors(pools, pool_theta):
    """theta_n errors of KDEs fitted to all of each pool's trials: the error the
    construction makes with no sampling error.

    Parameters
    ----------
    pools : dict
        Name -> scores of each pool.
    pool_theta : numpy.ndarray
        The pools' theta_n at :data:`NS`, dims (pool, n).

    Returns
    -------
    numpy.ndarray
        Dims (pool, construction, n); NaN for the cv bandwidth, not computed
        (leave-one-out on thousands of trials takes ~20 s a fit).
    """
    full = np.full((len(pools), len(KDES), len(NS)), np.nan)
    for p, scores in enumerate(pools.values()):
        for c, label in enumerate(KDES):
            if KDES[label][1] != "cv":
                full[p, c] = _fit(scores, label).theta(np.array(NS)) - pool_theta[p]
    return full


def _predict_pool(name, scores, truth, where, sizes, kde, pool, indices):
    """One pool and B: the pool's values, and the predictions of the KDEs fitted to its
    subsets, written into ``pool``, ``kde`` and ``indices``.

    Parameters
    ----------
    name : str
        The pool's name.
    scores : numpy.ndarray
        Its trials.
    truth : Truth
        Its empirical distribution.
    where : (int, int, int)
        The pool's index, the index of B, and B.
    sizes : dict
        As :func:`validity` takes it.
    kde, pool, indices
        The arrays of :func:`_empty`, filled at the pool's and B's place.

    Returns
    -------
    dict
        ``(name, subset, KDE label) ->`` the KDE truth fitted to that subset
        (None where cross-validation found no bandwidth).
    """
    p, j, B = where
    got = _predictions(truth, B, sizes, _seed(p, B), sizes["pool_coverage"])
    for key in ("coverage", "coverage_lower", "coverage_upper"):
        pool[key][p, j] = got[key]
    pool["bias"][p, j] = got["bias"]
    rng = np.random.default_rng([SEED, p, B])
    fitted = {}
    for s in range(sizes["subsets"]):
        idx = rng.choice(scores.size, size=B, replace=False)
        indices[p, j, s, :B] = idx
        for c, label in enumerate(KDES):
            fitted[name, s, label] = fit = _fit(scores[idx], label)
            if fit is None:
                continue
            got = _predictions(fit, B, sizes, _seed(p, B, s), sizes["coverage"])
            kde["theta"][p, j, s, c] = got["theta"]
            kde["coverage"][p, j, s, c] = got["coverage"]
            kde["bias"][p, j, s, c] = got["bias"]
            kde["bandwidth"][p, j, s, c] = fit.fit["bandwidth"]
    return fitted


def _rank_closest(truths, fitted, where, sizes, kde, pool):
    """One B: ranking-error rates of the two pools whose theta_B differ least, and of the
    KDEs fitted to their subsets, written into ``pool`` and ``kde``.

    Parameters
    ----------
    truths : dict
        Name -> the pool's empirical distribution.
    fitted : dict
        The KDE truths of this B, as :func:`_predict_pool` returns them.
    where : (int, int)
        The index of B, and B.
    sizes : dict
        As :func:`validity` takes it.
    kde, pool
        The arrays of :func:`_empty`, filled at B's place.

    Returns
    -------
    (str, str)
        The pair of pools ranked.
    """
    j, B = where
    theta_B = {name: float(truth.theta([B])[0]) for name, truth in truths.items()}
    a, b = min(combinations(truths, 2), key=lambda ab: abs(theta_B[ab[0]] - theta_B[ab[1]]))
    pool["wrong"][j], pool["sign"][j] = _wrong(truths[a], truths[b], (a, b), B, sizes,
                                               _seed(B))
    for s in range(sizes["subsets"]):
        for c, label in enumerate(KDES):
            ka, kb = fitted[a, s, label], fitted[b, s, label]
            if ka is not None and kb is not None:
                kde["wrong"][j, s, c], kde["sign"][j, s, c] = _wrong(
                    ka, kb, (a, b), B, sizes, _seed(B, s))
    return a, b


def _dataset(names, Bs, labels, sizes, kde, pool, indices, pairs):
    """The predictions, the pools' values, the errors and their summaries."""
    S = sizes["subsets"]
    ds = xr.Dataset(coords={"pool": names, "B": list(Bs), "subset": np.arange(S),
                            "construction": labels, "estimator": ESTIMATORS, "n": list(NS),
                            "trial": np.arange(max(Bs)), "statistic": STATISTICS})
    ds["bandwidth_rule"] = ("construction", [KDES[k][1] for k in labels])
    ds["kde_construction"] = ("construction", [KDES[k][0] for k in labels])
    ds["pair_a"] = ("B", [a for a, _ in pairs])
    ds["pair_b"] = ("B", [b for _, b in pairs])
    base = ("pool", "B", "subset", "construction")
    ds["subset_trials"] = (("pool", "B", "subset", "trial"), indices,
                           {"long_name": "indices of the subset's trials in the pool (-1 pads)"})
    ds["bandwidth"] = (base, kde["bandwidth"])
    ds["kde_theta"] = (base + ("n",), kde["theta"], {"long_name": "theta_n of the KDE truth"})
    ds["pool_theta"] = (("pool", "n"), pool["theta"], {"long_name": "theta_n of the pool"})
    ds["kde_coverage"] = (base + ("estimator", "n"), kde["coverage"],
                          {"long_name": "percentile-bootstrap coverage on the KDE truth"})
    for key in ("coverage", "coverage_lower", "coverage_upper"):
        ds[f"pool_{key}"] = (("pool", "B", "estimator", "n"), pool[key])
    ds["kde_bias"] = (base, kde["bias"], {"long_name": "exact bias of V at n = B, KDE truth"})
    ds["pool_bias"] = (("pool", "B"), pool["bias"], {"long_name": "exact bias of V at n = B"})
    ds["kde_wrong"] = (("B", "subset", "construction", "estimator"), kde["wrong"],
                       {"long_name": "ranking-error rate of the pair's KDEs at n = B"})
    ds["kde_order_reversed"] = (("B", "subset", "construction"),
                                (kde["sign"] == -pool["sign"][:, None, None]).astype(np.int8),
                                {"long_name": "1 where the pair's KDEs order the pair opposite "
                                              "to the pools at n = B"})
    ds["pool_wrong"] = (("B", "estimator"), pool["wrong"])
    ds["theta_error"] = ds["kde_theta"] - ds["pool_theta"]
    ds["coverage_error"] = ds["kde_coverage"] - ds["pool_coverage"]
    ds["bias_error"] = ds["kde_bias"] - ds["pool_bias"]
    ds["wrong_error"] = ds["kde_wrong"] - ds["pool_wrong"]
    ds.attrs.update(provenance(experiment="kde-validity", seed=SEED, bounds=list(BOUNDS),
                               **{f"size_{k}": v for k, v in sizes.items()}))
    for key, what in ERRORS.items():
        ds[key].attrs["long_name"] = f"prediction error of {what}: KDE minus pool"
        se = _pool_se(ds, key)
        ds[f"{key}_summary"] = _summary(ds[key], se)
        if "pool" in ds[key].dims:
            ds[f"{key}_over_pools"] = _over_pools(ds[key], se)
    return ds


def _pool_se(ds, key):
    """Monte Carlo standard error of the pool's value that error ``key``
    subtracts from every subset's (None where the pool's value is exact)."""
    rates = {"coverage_error": ("pool_coverage", "size_pool_coverage"),
             "wrong_error": ("pool_wrong", "size_ranking")}
    if key not in rates:
        return None
    var, size = rates[key]
    return np.sqrt(ds[var] * (1 - ds[var]) / ds.attrs[size])


def _summary(err, se=None):
    """Mean with a 95% interval, median, 10% and 90% quantiles over ``subset``.

    The interval is the t interval over subsets, widened in quadrature by
    ``se`` (the Monte Carlo error of a reference value shared by every
    subset, which their spread does not show).
    """
    values = np.moveaxis(err.values, err.dims.index("subset"), -1)
    count = np.sum(np.isfinite(values), axis=-1)
    mean = np.nanmean(values, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = stats.t.ppf(0.975, count - 1) * np.nanstd(values, axis=-1, ddof=1) \
            / np.sqrt(count)
    dims = tuple(d for d in err.dims if d != "subset")
    if se is not None:
        shared = se.broadcast_like(err.isel(subset=0, drop=True)).transpose(*dims).values
        half = np.hypot(half, stats.norm.ppf(0.975) * shared)
    q10, median, q90 = np.nanquantile(values, [0.1, 0.5, 0.9], axis=-1)
    out = np.stack([mean, mean - half, mean + half, median, q10, q90])
    coords = {k: v for k, v in err.coords.items() if "subset" not in v.dims}
    return xr.DataArray(out, dims=("statistic",) + dims,
                        coords={"statistic": STATISTICS, **coords},
                        attrs={"long_name": f"{err.attrs['long_name']}, over subsets"})


def _over_pools(err, se=None):
    """The summary of the error averaged over pools subset by subset (each
    subset index draws independently in every pool)."""
    mean_se = None if se is None else np.sqrt((se ** 2).sum("pool")) / se.sizes["pool"]
    mean = err.mean("pool").assign_attrs(
        long_name=f"{err.attrs['long_name']}, averaged over pools")
    return _summary(mean, mean_se)


def _at(se, **where):
    """``se.sel(**where)``, or None."""
    return None if se is None else se.sel(**where)


def _cell(summary, scale=1.0, digits=3):
    """``mean [lower, upper]`` of a summary, scaled."""
    m, lo, hi = (float(summary.sel(statistic=k)) * scale for k in STATISTICS[:3])
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def detectable(summary):
    """The smallest mean error the summary's intervals detect at :data:`POWER`.

    An interval of half-width ``h`` at 95% excludes 0 with probability
    ``POWER`` when the true mean error is ``h (1 + z_POWER / z_0.975)``
    (normal approximation); the widest interval of ``summary`` sets it.
    """
    half = 0.5 * (summary.sel(statistic="mean_upper") - summary.sel(statistic="mean_lower"))
    return float(np.nanmax(half.values)) * (1 + stats.norm.ppf(POWER) / stats.norm.ppf(0.975))


def _verdict(summary, material):
    """differs: no 95% interval of the mean error contains 0; partly: some do; agrees: all
    do and the test detects an error of ``material``; inconclusive: all do, but it cannot."""
    lo, hi = summary.sel(statistic="mean_lower").values, summary.sel(statistic="mean_upper").values
    contains = (lo <= 0) & (hi >= 0)
    if not contains.all():
        return "differs" if not contains.any() else "partly"
    return "agrees" if detectable(summary) <= material else "inconclusive"


def _claims(report, ds):
    """One claim per quantity and construction, and which construction predicts best."""
    Bs = [int(b) for b in ds["B"].values]
    pools = [str(p) for p in ds["pool"].values]
    S = ds.sizes["subset"]
    why = (f"{S} subsets of B trials of each pool; mean error [95% interval: t over subsets, "
           "with the Monte Carlo error of the pool's own rate]; agrees = every interval "
           "contains 0 and the test detects the error that matters; inconclusive = every "
           "interval contains 0 but is too wide to tell")
    head = {"theta_error": ("theta_n", {"n": HEADLINE_N}, 1.0, 4, ""),
            "coverage_error": ("percentile coverage of V", {"n": HEADLINE_N, "estimator": "V"},
                               100.0, 1, " points"),
            "bias_error": ("V's exact bias at n = B", {}, 1.0, 4, ""),
            "wrong_error": ("the ranking-error rate of V at n = B", {"estimator": "V"}, 100.0,
                            1, " points")}
    for key, (what, sel, scale, digits, unit) in head.items():
        se = _pool_se(ds, key)
        for c in ds["construction"].values:
            err = ds[key].sel(construction=c, **sel)
            per_b = []
            for B in Bs:
                e = err.sel(B=B)
                s = None if se is None else se.sel(B=B, **sel)
                if "pool" in e.dims:
                    detail = "; ".join(
                        f"{p} {_cell(_summary(e.sel(pool=p), _at(s, pool=p)), scale, digits)}"
                        for p in pools)
                    pooled = ds[f"{key}_over_pools"].sel(construction=c, B=B, **sel)
                    per_b.append(f"B = {B}: {_cell(pooled, scale, digits)}{unit} "
                                 f"averaged over pools ({detail})")
                else:
                    pair = f"{ds['pair_a'].sel(B=B).item()} vs {ds['pair_b'].sel(B=B).item()}"
                    rev = float(ds["kde_order_reversed"].sel(B=B, construction=c).mean())
                    per_b.append(f"B = {B} ({pair}; pool rate "
                                 f"{100 * float(ds['pool_wrong'].sel(B=B, estimator='V')):.1f}%, "
                                 f"KDEs reverse the pair's order in {rev:.0%} of subsets): "
                                 f"{_cell(_summary(e, s), scale, digits)}{unit}")
            n_text = f" at n = {HEADLINE_N}" if "n" in sel else ""
            summary = ds[f"{key}_summary"].sel(construction=c, **sel)
            power = (f"; the test detects a mean error of {scale * detectable(summary):.{digits}f}"
                     f"{unit} ({POWER:.0%} power), the error that matters being "
                     f"{scale * MATERIAL[key]:.{digits}f}{unit}")
            report.claims.append(Claim(
                f"KDE truths ({ds['kde_construction'].sel(construction=c).item()} construction, "
                f"{ds['bandwidth_rule'].sel(construction=c).item()} bandwidth) fitted to B runs "
                f"predict {what}{n_text} on the real distribution",
                "assumed (the KDE is taken as the truth)",
                "KDE minus pool: " + "; ".join(per_b) + power,
                _verdict(summary, MATERIAL[key]), why))
    _best(report, ds, head)


def _best(report, ds, head):
    """Which construction has the smallest mean absolute error, quantity by quantity."""
    best, cells = {}, []
    for key, (what, sel, scale, digits, unit) in head.items():
        err = np.abs(ds[key].sel(**sel))
        mae = err.mean([d for d in err.dims if d != "construction"])
        best[key] = str(mae.idxmin("construction").item())
        cells.append(f"{what}: " + ", ".join(
            f"{c} {scale * float(mae.sel(construction=c)):.{digits}f}"
            for c in mae["construction"].values) + f" (best {best[key]})")
    tang = sum(b == "tang2020" for b in best.values())
    report.claims.append(Claim(
        "Which KDE predicts the real distribution best (smallest mean absolute error over "
        "pools, B and subsets)", "Tang et al. use tang2020 with the normal-reference bandwidth",
        "; ".join(cells) + " (coverage and ranking in points)",
        "agrees" if tang == len(best) else ("differs" if tang == 0 else "partly"),
        "agrees = tang2020 best for every quantity"))


def run(report, out, files, quick=False):
    """Compute, plot and save the prediction errors; append claims to ``report``.

    The protocol of :mod:`evpsim.reproduce`; ``quick`` reduces the sizes.
    """
    from ..report import plot_kde_validity

    sizes = SIZES[quick]
    ds = validity({name: shipped_scores(name) for name in POOLS}, BS, sizes, report.step)
    _claims(report, ds)
    full = ds["full_pool_theta_error"].sel(n=HEADLINE_N)
    report.notes.append(
        f"KDEs fitted to every trial of each pool, theta_{HEADLINE_N} error (KDE minus pool; the "
        "construction's own error, with no sampling error): " + "; ".join(
            f"{p}: " + ", ".join(f"{c} {float(full.sel(pool=p, construction=c)):+.4f}"
                                 for c in full["construction"].values
                                 if np.isfinite(full.sel(pool=p, construction=c)))
            for p in full["pool"].values) + " (the cv bandwidth is not fitted to whole pools: "
        "leave-one-out on 2,000 trials takes about 20 s a fit).")
    failed = int(np.isnan(ds["kde_theta"].isel(n=0)).sum())
    if failed:
        report.notes.append(f"{failed} KDE fits had no cross-validated bandwidth (tied "
                            f"scores): their errors are NaN and left out of the summaries.")
    if not quick:
        report.notes.append(
            f"Sizes: S = {sizes['subsets']} subsets per pool and B; M = {sizes['coverage']} "
            f"coverage samples of R = {sizes['resamples']:,} resamples on each KDE, M = "
            f"{sizes['pool_coverage']:,} on each pool; {sizes['ranking']:,} pairs of searches "
            f"behind each ranking-error rate. The Monte Carlo error of each KDE's coverage "
            f"(about {100 * np.sqrt(0.7 * 0.3 / sizes['coverage']):.1f} points at 0.7) is part "
            f"of the spread over subsets, so the intervals of the mean account for it.")
    else:
        report.notes.append("Reduced sizes: the verdicts above rest on 4 subsets.")
    report.step("writing files")
    write_netcdf(ds, out / "kde_validity.nc")
    plot_kde_validity(ds, out / "kde_validity.png", n=HEADLINE_N)
    report.files += ["kde_validity.nc", "kde_validity.png"]
