"""Intervals across runs: the mean and median best-so-far curves of k runs of a search.

An adaptive search (TPE, Bayesian optimisation, Hyperband) has no i.i.d.
trials to resample, but k runs with different seeds are k independent
best-so-far curves ``b_r(n)``, the best score among run r's first n
trials. Their mean estimates the expected best score after n trials of
that search, their median its median; the intervals here are across runs,
for few runs (5 to 20 is typical), at every n up to the shortest run:

* the mean curve: ``student-t``, ``bootstrap-t``, ``percentile``,
  ``expanded-percentile`` and ``bca`` over the runs;
* the median curve: ``order-statistic`` (the exact binomial interval
  between two of the runs' values), ``order-statistic-interpolated``
  (Hettmansperger and Sheather 1986) and ``percentile``.

Every interval rests only on the runs being independent draws of one
search's curve (different seeds); the trials within a run may depend on
each other in any way. Which to use was measured by the runs battery
(:mod:`evpsim.studies.runs_battery`): :data:`DEFAULTS`.

The kernels are :mod:`evpsim._kernels.acrossruns`; the battery's coverage
job (:func:`coverage_job`) is built here, so that no study imports them.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .. import _validate as check
from .._kernels import acrossruns as K
from ..engine.montecarlo import Job

__all__ = ["RunMethod", "RUN_CI_METHODS", "DEFAULTS", "RUN_CURVES", "best_so_far",
           "order_index", "run_constants", "run_intervals", "resolve_run_methods",
           "coverage_job", "unpack_tallies", "MIN_RUNS"]

#: the curves across runs, in the order of the kernels' rows
RUN_CURVES = ("mean", "median")
#: fewest runs an interval across runs takes
MIN_RUNS = 2


@dataclass(frozen=True)
class RunMethod:
    """A CI method across runs.

    Attributes
    ----------
    name : str
        Its name (the ``ci_method`` coordinate).
    rows : dict
        Curve (``"mean"``, ``"median"``) -> the kernels' row of its
        interval for that curve (:data:`evpsim._kernels.acrossruns.METHODS`).
    description : str
        One line.
    assumes : str
        What its level rests on, beyond independent runs.
    """

    name: str
    rows: dict
    description: str
    assumes: str


#: every method, in the order of results
RUN_CI_METHODS = (
    RunMethod("student-t", {"mean": K.STUDENT_T},
              "mean +- t quantile (k - 1 degrees of freedom) x standard error",
              "the mean of k runs is nearly normal (skewed curves with few runs miss more on "
              "one side)"),
    RunMethod("bootstrap-t", {"mean": K.BOOTSTRAP_T},
              "the runs resampled; quantiles of the resamples' t statistics",
              "the t statistic's law is nearly that of the resamples'"),
    RunMethod("percentile", {"mean": K.PERCENTILE, "median": K.MEDIAN_PERCENTILE},
              "the runs resampled; quantiles of the resamples' means (medians); with one "
              "task this is rliable's stratified bootstrap",
              "the resamples' spread is the estimate's (too narrow with few runs)"),
    RunMethod("expanded-percentile", {"mean": K.EXPANDED},
              "percentile interval at the tail probability that widens it by the t "
              "interval's factor over the normal one (Hesterberg 2015)",
              "as percentile, with the t interval's correction for few runs"),
    RunMethod("bca", {"mean": K.BCA},
              "bias-corrected and accelerated percentile interval of the resamples' means",
              "a transformation makes the mean nearly normal"),
    RunMethod("order-statistic", {"median": K.ORDER_STATISTIC},
              "between two of the runs' values, by the binomial law of the runs below the "
              "median",
              "none (exact for any continuous law, conservative with ties); with 5 runs the "
              "widest, [min, max], holds 1 - 2/32 = 0.9375"),
    RunMethod("order-statistic-interpolated", {"median": K.INTERPOLATED},
              "the order-statistic interval moved towards the next pair of values to reach "
              "the level (Hettmansperger and Sheather 1986)",
              "the law is continuous and nearly symmetric near the median"),
)
_BY_NAME = {m.name: m for m in RUN_CI_METHODS}
#: the default method of each curve, chosen by the runs battery
DEFAULTS = {"mean": "student-t", "median": "order-statistic"}


def resolve_run_methods(ci_methods):
    """The :class:`RunMethod` objects of ``ci_methods`` (None: :data:`DEFAULTS`).

    Parameters
    ----------
    ci_methods : None, str or sequence
        Names (or RunMethod objects), as a list or comma-separated.

    Returns
    -------
    list of RunMethod
    """
    if ci_methods is None:
        names = list(dict.fromkeys(DEFAULTS.values()))
    elif isinstance(ci_methods, str):
        names = [s.strip() for s in ci_methods.split(",")]
    else:
        try:
            names = list(ci_methods)
        except TypeError:
            raise check.InvalidType("ci_methods", f"ci_methods must be a name or a list of "
                                                  f"names, got {ci_methods!r}") from None
    names = [n.name if isinstance(n, RunMethod) else n for n in names]
    if not names:
        raise check.InvalidArgument("ci_methods", "ci_methods: no CI method names given")
    unknown = [n for n in names if n not in _BY_NAME]
    if unknown:
        raise check.InvalidArgument("ci_methods", f"unknown CI method across runs "
                                                  f"{unknown[0]!r}; known: "
                                                  f"{', '.join(_BY_NAME)}")
    if len(set(names)) != len(names):
        raise check.InvalidArgument("ci_methods", f"ci_methods: a method listed twice in "
                                                  f"{names}")
    return [_BY_NAME[n] for n in names]


def _binomial_coverage(k, d):
    """Coverage of ``[x_(d), x_(k+1-d)]`` for the median of a continuous law."""
    from scipy.stats import binom

    return 1.0 - 2.0 * float(binom.cdf(d - 1, k, 0.5))


def order_index(k, level):
    """The order statistic d of the median's interval ``[x_(d), x_(k+1-d)]`` from k
    runs: the narrowest whose coverage is at least ``level``, else (too few runs)
    d = 1, the widest, and the interpolation weight towards ``d + 1``
    (Hettmansperger and Sheather 1986; 0 when there is no narrower pair).

    Returns
    -------
    d : int
    weight : float
    coverage : float
        The binomial coverage of ``[x_(d), x_(k+1-d)]``.
    """
    d = 1
    while 2 * (d + 1) <= k and _binomial_coverage(k, d + 1) >= level:
        d += 1
    cover = _binomial_coverage(k, d)
    if cover <= level or 2 * (d + 1) > k + 1:
        return d, 0.0, cover
    narrower = _binomial_coverage(k, d + 1)
    share = (cover - level) / (cover - narrower)
    return d, (k - d) * share / (d + (k - 2 * d) * share), cover


def run_constants(ks, level):
    """The constants of the intervals of k runs, a row per k of ``ks``: the t quantile,
    the expanded percentile's tail probability, the order statistic d and the
    interpolation weight (see :mod:`evpsim._kernels.acrossruns`).

    Returns
    -------
    (len(ks), 4) float64 array
    """
    from scipy.stats import norm, t

    alpha = 0.5 * (1.0 - level)
    out = np.empty((len(ks), 4))
    for q, k in enumerate(ks):
        tq = float(t.ppf(1.0 - alpha, k - 1))
        out[q, K.T_QUANTILE] = tq
        out[q, K.EXPANDED_TAIL] = float(norm.cdf(-np.sqrt(k / (k - 1)) * tq))
        d, weight, _ = order_index(k, level)
        out[q, K.ORDER_INDEX], out[q, K.INTERPOLATION] = d, weight
    return out


def best_so_far(runs, *, minimize=False, name="runs"):
    """Each run's best-so-far curve: ``b_r(n)``, the best of its first n scores.

    Parameters
    ----------
    runs : sequence of sequences of float
        The runs, each its scores in the order its trials ran (at least 1
        trial each, at least :data:`MIN_RUNS` runs).
    minimize : bool
        The scores are losses: the best is the lowest.
    name : str
        How messages name the runs (``runs['TPE']``: the runs of one search
        given as ``runs``, the argument named).

    Returns
    -------
    list of ndarray
        One curve per run, each as long as the run.

    Examples
    --------
    >>> [c.tolist() for c in best_so_far([[0.3, 0.5, 0.4], [0.6, 0.2]])]
    [[0.3, 0.5, 0.5], [0.6, 0.6]]
    """
    minimize = check.boolean(minimize, "minimize")
    argument = name.split("[")[0]  # runs['TPE'] names the argument runs
    if isinstance(runs, (str, bytes, dict)) or not hasattr(runs, "__len__"):
        raise check.InvalidType(argument, f"{name} must be a sequence of runs, each a "
                                          f"sequence of scores in trial order, got "
                                          f"{type(runs).__name__}")
    if len(runs) and all(isinstance(r, (numbers.Number, np.number)) for r in runs):
        raise check.InvalidArgument(argument, f"{name} must be a sequence of runs, each a "
                                              f"sequence of scores; got one sequence of "
                                              f"{len(runs)} numbers (one run?)")
    if len(runs) < MIN_RUNS:
        raise check.InvalidArgument(argument, f"{name}: an interval across runs needs at "
                                              f"least {MIN_RUNS} runs, got {len(runs)}")
    curves = []
    for r, run in enumerate(runs):
        try:
            xs = check.scores(run, f"{name}[{r}]", min_size=1)
        except check.InvalidArgument as err:
            what = str(err).removeprefix(f"{name}[{r}] ")
            raise type(err)(argument, f"{name}: run {r} {what}") from None
        curves.append(np.minimum.accumulate(xs) if minimize else np.maximum.accumulate(xs))
    return curves


def run_intervals(values, *, ci_methods=None, level=0.95, resamples=10_000, seed=0,
                  stream=0):
    """The mean and median curves of k runs, with intervals across runs.

    Parameters
    ----------
    values : (k, N) array_like
        ``values[r, i]``: run r's best-so-far at budget n = i + 1, larger
        is better (negate losses), k >= 2 runs.
    ci_methods : str or sequence, optional
        Methods of :data:`RUN_CI_METHODS` (default :data:`DEFAULTS`).
    level : float
        Two-sided level.
    resamples : int
        Bootstrap resamples of the runs (every method reads the same ones).
    seed, stream : int
        The resamples come from the random stream ``(seed, stream)``.

    Returns
    -------
    xarray.Dataset
        Dims ``curve`` (mean, median), ``ci_method``, ``n``: ``estimate``
        (curve, n), ``lower`` and ``upper`` (curve, ci_method, n; NaN
        where a method does not bound a curve or its interval is undefined,
        +-inf where it is unbounded); ``bootstrap_distribution``
        (resample, curve, n), the resamples' means and medians; coordinate
        ``bounds_curve`` (curve, ci_method).

    Examples
    --------
    >>> ds = run_intervals([[0.7, 0.8], [0.6, 0.9], [0.75, 0.85]], resamples=200)
    >>> [round(float(v), 4) for v in ds["estimate"].sel(curve="mean")]
    [0.6833, 0.85]
    >>> [round(float(v), 4) for v in ds["lower"].sel(curve="median", ci_method="order-statistic")]
    [0.6, 0.8]
    """
    x = _values(values)
    methods = resolve_run_methods(ci_methods)
    level = check.level(level)
    resamples = check.integer(resamples, "resamples", minimum=2)
    seed, stream = check.seed(seed), check.seed(stream, "stream")
    k, N = x.shape
    check.check_memory(8 * resamples * (k + 3 * N), f"{resamples:,} resamples of {k} runs",
                       "resamples")
    est, out, boot = K.runs_intervals(x, seed, stream, resamples, level,
                                      run_constants([k], level)[0])
    lower = np.full((2, len(methods), N), np.nan)
    upper = np.full_like(lower, np.nan)
    bounds = np.zeros((2, len(methods)), dtype=bool)
    for c, curve in enumerate(RUN_CURVES):
        for i, m in enumerate(methods):
            if curve in m.rows:
                lower[c, i], upper[c, i] = out[m.rows[curve], :, 0], out[m.rows[curve], :, 1]
                bounds[c, i] = True
    coords = {"curve": list(RUN_CURVES), "ci_method": [m.name for m in methods],
              "n": np.arange(1, N + 1), "bounds_curve": (("curve", "ci_method"), bounds)}
    return xr.Dataset({
        "estimate": (("curve", "n"), est, {"long_name": "mean (median) over runs of the best "
                                                        "score of each run's first n trials"}),
        "lower": (("curve", "ci_method", "n"), lower,
                  {"long_name": f"lower end of the {level:g} interval across runs"}),
        "upper": (("curve", "ci_method", "n"), upper,
                  {"long_name": f"upper end of the {level:g} interval across runs"}),
        "bootstrap_distribution": (("resample", "curve", "n"), boot, {
            "long_name": "the means (medians) of the resamples of the runs"})},
        coords=coords, attrs={"level": level, "resamples": resamples, "seed": seed,
                              "stream": stream, "runs": k})


def _values(values):
    """``values`` as a finite (k, N) float array with k >= :data:`MIN_RUNS`."""
    try:
        x = np.asarray(check.unmasked(values, "values"), dtype=float)
    except (TypeError, ValueError):
        raise check.InvalidType("values", "values must be a (runs, budgets) array of numbers") \
            from None
    if x.ndim != 2 or x.shape[1] < 1:
        raise check.InvalidArgument("values", f"values must be a (runs, budgets) array, got "
                                              f"shape {x.shape}")
    if x.shape[0] < MIN_RUNS:
        raise check.InvalidArgument("values", f"values: an interval across runs needs at "
                                              f"least {MIN_RUNS} runs, got {x.shape[0]}")
    if not np.isfinite(x).all():
        raise check.InvalidArgument("values", "values contains NaN or infinite values")
    return np.ascontiguousarray(x)


def coverage_job(B, kind, sampler, pool, params, ns, ks, level, resamples, truths, oracle,
                 histogram, stream0):
    """The runs battery's coverage job: every method's tallies at every k and budget.

    Parameters
    ----------
    B, kind, sampler, pool, params
        The runs simulated (:mod:`evpsim._kernels.runs`).
    ns, ks : int arrays
        Budgets and numbers of runs.
    level : float
        Two-sided level.
    resamples : int
        Bootstrap resamples of the runs per replicate and k.
    truths : (2, len(ns)) array
        The mean and median curves.
    oracle : (2, len(ks), len(ns)) array
        The oracle intervals' widths, which the width histograms are relative to.
    histogram : (int, float, float)
        Bins, lowest log ratio and bin width of the histograms.
    stream0 : int
        First stream of the job's family.

    Returns
    -------
    Job
    """
    nbins, log_lo, step = histogram
    consts = run_constants(ks, level)
    return Job(K.coverage_chunks, (B, kind, sampler, pool, params, ns, ks, consts, level,
                                   resamples, truths, oracle, nbins, log_lo, step), stream0)


def unpack_tallies(total, nk, J, nbins):
    """The parts of :func:`coverage_job`'s summed result.

    Returns
    -------
    tallies : dict
        ``hit``, ``below``, ``above`` (intervals covering, entirely below,
        entirely above), ``undefined``, ``unbounded`` (counts) and ``width``
        (sum of the finite widths), each (methods, nk, J), methods in the
        kernels' rows (:data:`evpsim._kernels.acrossruns.METHODS`).
    histograms : (methods, nk, J, nbins + 2) array
    errors : (2, nk, J, 2) array
        Sums of ``estimate - truth`` and its square, mean and median.
    """
    M = K.NMETHODS
    a, h = M * nk * J * K.NSLOTS, M * nk * J * (nbins + 2)
    t = total[:a].reshape(M, nk, J, K.NSLOTS)
    slots = {"hit": K.HIT, "below": K.BELOW, "above": K.ABOVE, "undefined": K.UNDEFINED,
             "unbounded": K.UNBOUNDED, "width": K.WIDTH}
    return ({name: t[..., slot] for name, slot in slots.items()},
            total[a:a + h].reshape(M, nk, J, nbins + 2), total[a + h:].reshape(2, nk, J, 2))
