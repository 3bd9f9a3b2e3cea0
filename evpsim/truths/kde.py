"""Discretized kernel density estimates (KDEs) of real search results.

Tang et al. (2020, section 4.1) turn the validation scores of a real
hyperparameter search into a ground truth: a Gaussian KDE with a
rule-of-thumb bandwidth, discretized on a grid. A fit is an
:class:`xarray.Dataset` (variables ``pmf`` on the support points ``x`` and
the grid's interval ``edges``; attributes for the source, the number of
runs, the bandwidth and its rule, the grid, the construction and the
metric) and, through :func:`load_kde`, a :class:`~evpsim.truths.Discrete`
truth, so exact theta, exact moments and sampling work unchanged.

Two constructions:

``"tang2020"``
    Tang et al.'s, for faithful reproduction: ``bins + 1`` equally spaced
    grid points over ``[min - 3 bw, max + 3 bw]``, each interval's mass
    placed at its left edge, the mass outside the grid dropped and the rest
    renormalised (statsmodels' ``KDEUnivariate`` grid and CDF, as in the
    ``meanmax`` code).
``"centered"``
    The better default for new work: the same grid, clipped to the
    metric's ``bounds`` when given, with each interval's mass at its centre,
    so no mass falls on impossible scores (Tang et al.'s LSTM truth puts
    about 4% of its mass below an F1 of 0). Mass beyond the bounds is
    dropped and the rest renormalised: the KDE conditioned on the bounds.

Interval masses come exactly from the Gaussian mixture's CDF; there is no
numerical integration.

The project's committed fits ship inside the package
(``evpsim/data/kde_fits/``, built by ``kde_fits/build.py``; more in the
folder named by the environment variable ``EVPSIM_KDE_DIR``) and are used as
``kde:NAME``; any fit file as ``kde:PATH.nc``.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import ndtr

from .. import _validate as check
from .._kernels.kde import loo_log_kernel_sums
from ..io.results import UnreadableFile, read_netcdf
from ..io.shipped import package_data
from .distributions import Discrete, register_truth_prefix

__all__ = [
    "CONSTRUCTIONS",
    "RULES",
    "KDETruth",
    "fit_kde",
    "fit_kde_cv",
    "kde_bandwidth",
    "cv_bandwidth",
    "loo_log_likelihood",
    "kde_dirs",
    "list_kde_fits",
    "load_kde",
    "mass_outside",
    "snap_kde",
    "snap_kde_grid",
    "kde_fit",
    "MAX_LATTICE_POINTS",
]

#: Rules of thumb: ``constant * A * N**(-1/5)`` with
#: ``A = min(sd (ddof=1), IQR / 1.349)`` (statsmodels' ``bandwidths``).
_CONSTANTS = {
    "normal-reference": (4.0 / 3.0) ** 0.2,  # 1.059224..., Tang et al.'s "Scott's rule"
    "scott": 1.059,
    "silverman": 0.9,
}
#: Bandwidth rules: the rules of thumb, and ``"cv"`` (leave-one-out likelihood)
RULES = (*_CONSTANTS, "cv")
#: the cross-validation search: log-spaced factors of the normal-reference bandwidth
_CV_FACTORS = np.geomspace(1 / 50, 5, 81)
CONSTRUCTIONS = ("tang2020", "centered")
ENV_DIR = "EVPSIM_KDE_DIR"
_CUT = 3.0  # the grid reaches this many bandwidths beyond the extreme scores
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: the most lattice points :func:`snap_kde` puts a KDE on (a finer lattice, of a step
#: below a 100,000th of the KDE's grid, is not kept)
MAX_LATTICE_POINTS = 100_000
#: kernel-by-edge values computed at once by :func:`snap_kde`
_CHUNK = 4_000_000


def kde_bandwidth(scores, rule="normal-reference"):
    """Rule-of-thumb bandwidth of a Gaussian KDE.

    Parameters
    ----------
    scores : array_like of float
        At least two finite scores.
    rule : {"normal-reference", "scott", "silverman", "cv"}
        ``constant * A * N**(-1/5)`` with ``A = min(sd, IQR / 1.349)`` (the
        sample standard deviation with ``ddof=1``; ``A = sd`` when the IQR
        is 0) and constant ``(4/3)**(1/5) = 1.059224`` (normal reference,
        what Tang et al. call Scott's rule), ``1.059`` (statsmodels'
        ``bw_scott``) or ``0.9`` (Silverman's). ``"cv"``: the bandwidth
        that maximises the leave-one-out log-likelihood of the scores
        (:func:`cv_bandwidth`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown rule, fewer than two scores, or scores that are all
        equal or so close that the bandwidth would be 0.

    Examples
    --------
    >>> round(kde_bandwidth([0.1, 0.2, 0.4, 0.8]), 6)
    0.193396
    """
    check.choice(rule, "rule", RULES)
    xs = check.scores(scores)
    if xs.min() == xs.max():
        raise check.InvalidArgument("scores", f"all {xs.size} scores equal {xs[0]:g}: the "
                                              f"bandwidth would be 0")
    sd = float(np.std(xs, ddof=1))
    q75, q25 = np.percentile(xs, [75, 25])
    iqr = float(q75 - q25) / 1.349
    spread = min(sd, iqr) if iqr > 0 else sd
    bw = _CONSTANTS["normal-reference" if rule == "cv" else rule] * spread * xs.size ** -0.2
    if not bw > 0:  # squares of differences below ~1e-154 underflow to 0
        raise check.InvalidArgument("scores", f"the scores differ by at most "
                                              f"{xs.max() - xs.min():.3g}: too little for a "
                                              f"bandwidth (it underflows to 0)")
    return _loo_maximum(xs, bw) if rule == "cv" else bw


def loo_log_likelihood(scores, bandwidths):
    """Leave-one-out log-likelihood of the scores under a Gaussian KDE.

    ``sum_i log( mean_{j != i} phi((x_i - x_j) / h) / h )`` for each
    bandwidth ``h``: every score's density under the KDE of the others.

    Parameters
    ----------
    scores : array_like of float
        At least two finite scores.
    bandwidths : array_like of float
        Positive bandwidths.

    Returns
    -------
    ndarray of float
        One log-likelihood per bandwidth.

    Examples
    --------
    >>> ll = loo_log_likelihood([0.1, 0.2, 0.4, 0.8], [0.05, 0.2, 1.0])
    >>> int(ll.argmax())
    1
    """
    xs = check.scores(scores, min_size=2)
    hs = np.atleast_1d(np.asarray(bandwidths, dtype=float))
    if not np.all(hs > 0):
        raise check.InvalidArgument("bandwidths", "bandwidths must be positive")
    out = loo_log_kernel_sums(np.sort(xs), hs)
    return out - xs.size * (np.log(hs) + 0.5 * np.log(2 * np.pi) + np.log(xs.size - 1))


def cv_bandwidth(scores):
    """The bandwidth that maximises the leave-one-out log-likelihood.

    Searched over 81 log-spaced multiples (1/50 to 5) of the
    normal-reference bandwidth, then refined between the grid points around
    the best one. Leave-one-out is computed directly (``O(n^2)`` per
    bandwidth): exact, and faster at these sizes than scikit-learn's
    ``KernelDensity`` inside a ``GridSearchCV``, whose k-fold splits would
    also make the answer depend on a shuffle.

    Raises
    ------
    ValueError
        For the errors of :func:`kde_bandwidth`, or when the likelihood
        keeps growing at the smallest bandwidth searched, as it does when
        many scores are tied: then no bandwidth is best by this criterion.

    Examples
    --------
    >>> round(cv_bandwidth([0.61, 0.64, 0.7, 0.72, 0.75, 0.8, 0.83, 0.9]), 4)
    0.0881
    """
    return kde_bandwidth(scores, "cv")


def _loo_maximum(xs, reference):
    from scipy.optimize import minimize_scalar

    hs = reference * _CV_FACTORS
    ll = loo_log_likelihood(xs, hs)
    k = int(np.argmax(ll))
    if k == 0:
        raise check.InvalidArgument(
            "bandwidth", f"the leave-one-out likelihood of these {xs.size} scores keeps "
                         f"growing as the bandwidth shrinks below {hs[0]:.3g} (many tied "
                         f"scores?): no bandwidth is best by cross-validation; give a rule "
                         f"of thumb or a number")
    lo, hi = np.log(hs[k - 1]), np.log(hs[min(k + 1, hs.size - 1)])
    best = minimize_scalar(lambda t: -loo_log_likelihood(xs, [np.exp(t)])[0],
                           bounds=(lo, hi), method="bounded", options={"xatol": 1e-4})
    return float(np.exp(best.x))


def _interval_masses(xs, bw, edges):
    """Masses of the mixture of N(x_i, bw^2) on each interval, and outside.

    Each kernel's mass on ``[a, b]`` is ``Phi(b) - Phi(a)``, taken from the
    upper tail (``Phi(-a) - Phi(-b)``) when ``a > 0`` so that small masses
    keep their relative precision.
    """
    z = (edges[None, :] - xs[:, None]) / bw
    cdf, sf = ndtr(z), ndtr(-z)  # each edge once: the intervals share them
    masses = np.where(z[:, :-1] > 0, sf[:, :-1] - sf[:, 1:], cdf[:, 1:] - cdf[:, :-1]).mean(axis=0)
    outside = float(np.mean(cdf[:, 0] + sf[:, -1]))
    return masses, outside


def snap_kde(fit, scores, lattice):
    """A KDE fit whose draws are snapped to the lattice its scores lie on.

    The truth of lattice-valued scores (accuracies on a finite validation
    set): each lattice point ``origin + j * step`` within the fit's grid
    takes the mass of the Gaussian mixture on its cell, the half-steps on
    either side of it (cut at the grid's ends), which is what a draw of the
    continuous KDE rounded to the nearest lattice point falls on. The
    masses come exactly from the mixture's CDF, as :func:`fit_kde`'s do,
    and are renormalised over the grid as there, so the result is a
    discrete truth on the lattice whose exact theta_n (through
    :func:`load_kde`) is that of the snapped draws.

    Parameters
    ----------
    fit : xarray.Dataset
        A result of :func:`fit_kde`.
    scores : array_like of float
        The scores it was fitted to.
    lattice : evpsim.io.lattice.Lattice
        Their lattice (:func:`evpsim.io.lattice.find_lattice`).

    Returns
    -------
    xarray.Dataset or None
        The fit on the lattice (``pmf`` on the lattice points ``x``, the
        cells' ``edges``; attribute ``lattice_step`` added, the
        description saying so), or None where the grid holds more than
        :data:`MAX_LATTICE_POINTS` lattice points.

    Examples
    --------
    >>> from evpsim.io.lattice import find_lattice
    >>> xs = np.array([11, 14, 14, 15, 17, 18, 18, 18]) / 20
    >>> fit = fit_kde(xs, construction="centered", bounds=(0, 1), bins=64)
    >>> snapped = snap_kde(fit, xs, find_lattice(xs))
    >>> (snapped["x"].values * 20).round(9).tolist()
    [6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0]
    >>> load_kde(snapped).theta([1, 8]).round(4)
    array([0.766 , 0.9388])
    """
    xs = check.scores(scores)
    lo, hi = float(fit.attrs["grid_lo"]), float(fit.attrs["grid_hi"])
    if lattice.count(lo, hi) > MAX_LATTICE_POINTS:
        return None
    points, edges = lattice.cells(lo, hi)
    bw = float(fit.attrs["bandwidth"])
    width = max(1, _CHUNK // xs.size)
    masses = np.concatenate([_interval_masses(xs, bw, edges[a:a + width + 1])[0]
                             for a in range(0, points.size, width)])
    return _on_lattice(fit, lattice, points, edges, masses)


def snap_kde_grid(fit, lattice):
    """A KDE fit snapped to a lattice without the scores it was fitted to.

    As :func:`snap_kde`, with the Gaussian mixture's CDF known only where
    the fit knows it exactly, at its grid's edges (the cumulative sums of
    its masses, renormalised over the grid as :func:`snap_kde`'s are), and
    interpolated between them by a monotone cubic (PCHIP, Fritsch &
    Carlson 1980). The fits' grids put 5 to 25 points within a bandwidth,
    where the mixture is smooth: on the committed fits whose scores ship,
    theta_n agrees with :func:`snap_kde`'s to within 2e-6 at steps from
    1/100 to 1/9,815 (the tests measure it).

    Parameters
    ----------
    fit : xarray.Dataset
        A result of :func:`fit_kde` (its ``edges`` and ``pmf``).
    lattice : evpsim.io.lattice.Lattice
        The lattice.

    Returns
    -------
    xarray.Dataset or None
        As :func:`snap_kde`'s.

    Examples
    --------
    >>> from evpsim.io.lattice import grid
    >>> xs = np.array([11, 14, 14, 15, 17, 18, 18, 18]) / 20
    >>> fit = fit_kde(xs, construction="centered", bounds=(0, 1), bins=64)
    >>> load_kde(snap_kde_grid(fit, grid(1 / 20))).theta([1, 8]).round(4)
    array([0.766 , 0.9388])
    """
    from scipy.interpolate import PchipInterpolator

    lo, hi = float(fit.attrs["grid_lo"]), float(fit.attrs["grid_hi"])
    if lattice.count(lo, hi) > MAX_LATTICE_POINTS:
        return None
    points, edges = lattice.cells(lo, hi)
    cdf = np.concatenate([[0.0], np.cumsum(fit["pmf"].values)])
    masses = np.maximum(np.diff(PchipInterpolator(fit["edges"].values, cdf)(edges)), 0.0)
    return _on_lattice(fit, lattice, points, edges, masses)


def _on_lattice(fit, lattice, points, edges, masses):
    """The fit's Dataset with ``masses`` (renormalised) on the lattice ``points``."""
    import xarray as xr

    attrs = dict(fit.attrs, lattice_step=lattice.step,
                 description=f"{fit.attrs['description']}, snapped to a lattice of step "
                             f"{lattice.step_text}")
    return xr.Dataset(
        {"pmf": ("x", masses / masses.sum(), fit["pmf"].attrs),
         "edges": ("edge", edges, {"long_name": "edges of the lattice points' cells"})},
        coords={"x": ("x", points, fit["x"].attrs)}, attrs=attrs)


def mass_outside(fit, scores):
    """The KDE mass that fell below and above a fit's grid: ``(below, above)``.

    Their sum is the fit's ``mass_outside_grid``: with the centered
    construction, the mass its kernels spill past the metric's bounds
    (scores piling up at a bound, as failed runs counted at the worst score
    or runs at chance level, spill half their mass past it).

    Parameters
    ----------
    fit : xarray.Dataset
        A result of :func:`fit_kde`.
    scores : array_like
        The scores it was fitted to.

    Examples
    --------
    >>> fit = fit_kde([0.0, 0.0, 0.5, 0.8], construction="centered", bounds=(0, 1),
    ...               bandwidth=0.1)
    >>> below, above = mass_outside(fit, [0.0, 0.0, 0.5, 0.8])
    >>> round(below, 4), round(above, 4), round(below + above, 4)
    (0.25, 0.0057, 0.2557)
    """
    xs = np.asarray(scores, dtype=float)
    bw = float(fit.attrs["bandwidth"])
    return (float(np.mean(ndtr((float(fit.attrs["grid_lo"]) - xs) / bw))),
            float(np.mean(ndtr((xs - float(fit.attrs["grid_hi"])) / bw))))


def check_name(name):
    """Raise unless ``name`` is a fit's name: letters, digits, ``.``, ``_``, ``-``."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise check.InvalidArgument("name", f"name must be letters, digits, '.', '_' or '-', "
                                            f"got {name!r}")
    return name


def fit_kde(scores, *, bandwidth="normal-reference", construction="tang2020", bins=511,
            bounds=None, name="kde", model=None, metric=None, source=None, note=None):
    """Fit a discretized Gaussian KDE to validation scores.

    Parameters
    ----------
    scores : array_like of float
        The scores of one hyperparameter search (at least two, not all
        equal).
    bandwidth : str or float
        A rule of :data:`RULES` (default ``"normal-reference"``) or a
        positive bandwidth.
    construction : {"tang2020", "centered"}
        Masses at the intervals' left edges on the unclipped grid (Tang et
        al.) or at their centres on a grid clipped to ``bounds``.
    bins : int
        Number of grid intervals (default 511: Tang et al.'s 512-point
        grid).
    bounds : (float, float), optional
        The metric's range, e.g. ``(0, 1)``; ``"centered"`` only. Every
        score must lie within it; either end may be infinite.
    name : str
        Short name (letters, digits, ``.``, ``_``, ``-``), used as
        ``kde:NAME`` for committed fits.
    model, metric, source, note : str, optional
        What was tuned (e.g. ``"Reuters LSTM"``), the metric (``"dev
        F1"``), where the scores come from (a file name) and a remark; all
        recorded as attributes, the first two in the description.

    Returns
    -------
    xarray.Dataset
        ``pmf`` on coordinate ``x`` (the support points, ascending) and
        ``edges`` (the ``bins + 1`` grid points), with attributes ``name,
        description, construction, kernel, bandwidth, bandwidth_rule, runs,
        source, model, metric, note, bins, grid_lo, grid_hi, bounds_lo,
        bounds_hi, mass_outside_grid`` (KDE mass dropped before
        renormalising), ``scores_min, scores_max``. No time or version
        attributes: refitting the same scores gives the same file contents.

    Raises
    ------
    ValueError
        For bad arguments; for a grid whose arrays would not fit in memory;
        for a bandwidth that stretches the grid beyond ``+-1e70``; for
        intervals narrower than floating-point resolution (scores almost
        equal, or too many bins).

    Examples
    --------
    >>> fit = fit_kde([0.61, 0.64, 0.65, 0.70, 0.72], bins=8)
    >>> fit.sizes["x"], round(float(fit["pmf"].sum()), 12)
    (8, 1.0)
    >>> load_kde(fit).theta([1]).round(4)
    array([0.6443])
    """
    spec = _fit_spec(scores, bandwidth, construction, bins, bounds, name,
                     dict(model=model, metric=metric, source=source, note=note))

    import xarray as xr

    grid = _fit_grid(spec, bandwidth)
    masses, outside = _interval_masses(spec.xs, grid.bw, grid.edges)
    pmf = masses / masses.sum()
    support = _support(grid.edges, spec.construction)
    return xr.Dataset(
        {"pmf": ("x", pmf, {"long_name": "probability mass at the support point"}),
         "edges": ("edge", grid.edges, {"long_name": "edges of the grid's intervals"})},
        coords={"x": ("x", support, {"long_name": f"support point ({metric or 'score'})"})},
        attrs=_fit_attrs(spec, grid, outside, name, model, metric, source, note))


@dataclass(frozen=True)
class _FitSpec:
    """The checked scores and options of a :func:`fit_kde` fit."""

    xs: np.ndarray
    construction: str
    bins: int
    lo: float
    hi: float
    clipped: bool  # bounds were given


@dataclass(frozen=True)
class _FitGrid:
    """A fit's bandwidth (and the rule that gave it) and the edges of its grid."""

    rule: str
    bw: float
    lo: float
    hi: float
    edges: np.ndarray


def _fit_spec(scores, bandwidth, construction, bins, bounds, name, texts):
    """Check the arguments of :func:`fit_kde`, in the order its errors name them.

    Parameters
    ----------
    scores, bandwidth, construction, bins, bounds, name
        As in :func:`fit_kde`.
    texts : dict
        ``model``, ``metric``, ``source`` and ``note``: None or a string.

    Returns
    -------
    _FitSpec
        The scores as floats; ``lo, hi`` the bounds (infinite without).
    """
    xs = check.scores(scores)
    if isinstance(bandwidth, str):
        check.choice(bandwidth, "bandwidth", RULES)
    else:
        check.number(bandwidth, "bandwidth", low=0)
    construction = check.choice(construction, "construction", CONSTRUCTIONS)
    bins = check.integer(bins, "bins", minimum=2)
    check.check_memory(4 * 8 * (bins + 1) * xs.size, f"{bins:,} bins for {xs.size:,} scores",
                       "bins")
    if bounds is not None:
        if construction != "centered":
            raise check.InvalidArgument("bounds", "bounds apply only to the 'centered' "
                                                  "construction ('tang2020' is Tang et al.'s "
                                                  "unclipped grid)")
        lo, hi = check.bounds(bounds, xs.min(), xs.max(), "the scores")
    else:
        lo, hi = -math.inf, math.inf
    check_name(name)
    for key, val in texts.items():
        if val is not None and not isinstance(val, str):
            raise check.InvalidType(key, f"{key} must be a string, got {type(val).__name__}")
    return _FitSpec(xs, construction, bins, lo, hi, bounds is not None)


def _fit_grid(spec, bandwidth):
    """The bandwidth and the grid of ``bins + 1`` edges, ``3 bw`` beyond the extreme
    scores and clipped to the bounds.

    Raises
    ------
    ValueError
        For a grid beyond ``+-1e70``, or intervals narrower than
        floating-point resolution (naming ``bandwidth`` when it was given,
        else ``scores``).
    """
    xs, bins = spec.xs, spec.bins
    if isinstance(bandwidth, str):
        rule, bw = bandwidth, kde_bandwidth(xs, bandwidth)
    else:
        rule, bw = "given", float(bandwidth)
    grid_lo = max(float(xs.min()) - _CUT * bw, spec.lo)
    grid_hi = min(float(xs.max()) + _CUT * bw, spec.hi)
    arg = "bandwidth" if rule == "given" else "scores"
    if max(abs(grid_lo), abs(grid_hi)) > check.MAX_SCORE:
        raise check.InvalidArgument(arg, f"bandwidth {bw:.3g} stretches the grid to "
                                         f"[{grid_lo:.3g}, {grid_hi:.3g}], beyond the "
                                         f"+-{check.MAX_SCORE:.0e} that scores may span; "
                                         f"choose a smaller bandwidth")
    edges = np.linspace(grid_lo, grid_hi, int(bins) + 1)
    if not np.all(np.diff(edges) > 0) or np.unique(_support(edges, spec.construction)
                                                   ).size < bins:
        raise check.InvalidArgument(arg, f"{bins:,} intervals on [{grid_lo:.17g}, "
                                         f"{grid_hi:.17g}] (bandwidth {bw:.3g}) are narrower "
                                         f"than floating-point resolution; use fewer bins or "
                                         f"a larger bandwidth")
    return _FitGrid(rule, bw, grid_lo, grid_hi, edges)


def _support(edges, construction):
    """The support points: each interval's left edge (``"tang2020"``) or centre."""
    return edges[:-1] if construction == "tang2020" else 0.5 * (edges[:-1] + edges[1:])


def _fit_attrs(spec, grid, outside, name, model, metric, source, note):
    """A fit's attributes: what was fitted, how, and the mass dropped outside the grid."""
    xs, lo, hi = spec.xs, spec.lo, spec.hi
    what = " ".join(s for s in (model, metric) if s) or "scores"
    where = f" on [{lo:g}, {hi:g}]" if spec.clipped else ""
    title = "Tang2020" if spec.construction == "tang2020" else "centered"
    return {
        "name": name,
        "description": f"{title} KDE of {xs.size} {what}{where} (bw {grid.bw:.3g})",
        "construction": spec.construction,
        "kernel": "gaussian",
        "bandwidth": grid.bw,
        "bandwidth_rule": grid.rule,
        "runs": int(xs.size),
        "source": source or "",
        "model": model or "",
        "metric": metric or "",
        "note": note or "",
        "bins": int(spec.bins),
        "grid_lo": grid.lo,
        "grid_hi": grid.hi,
        "bounds_lo": lo,
        "bounds_hi": hi,
        "mass_outside_grid": outside,
        "scores_min": float(xs.min()),
        "scores_max": float(xs.max()),
    }


#: the rule a :func:`fit_kde_cv` fit records where cross-validation finds no best bandwidth
CV_FALLBACK = "normal-reference (cv found no best bandwidth)"


def fit_kde_cv(scores, **options):
    """:func:`fit_kde` with the cross-validated bandwidth, or the normal-reference
    rule where cross-validation finds none.

    The leave-one-out likelihood has no maximum when many scores are tied
    (it grows without bound as the bandwidth shrinks, see
    :func:`cv_bandwidth`); there the fit takes the normal-reference
    bandwidth and records the rule :data:`CV_FALLBACK`.

    Parameters
    ----------
    scores : array_like of float
        As for :func:`fit_kde`.
    **options
        Any other argument of :func:`fit_kde` but ``bandwidth``.

    Returns
    -------
    xarray.Dataset
        The fit, as :func:`fit_kde` returns it; attribute
        ``bandwidth_rule`` is ``"cv"`` or :data:`CV_FALLBACK`.

    Examples
    --------
    >>> fit_kde_cv([0.5] * 10 + [0.6] * 10 + [0.7] * 10, bins=8).attrs["bandwidth_rule"]
    'normal-reference (cv found no best bandwidth)'
    >>> fit_kde_cv([0.61, 0.64, 0.7, 0.72, 0.75, 0.8], bins=8).attrs["bandwidth_rule"]
    'cv'
    """
    try:
        return fit_kde(scores, bandwidth="cv", **options)
    except check.InvalidArgument as err:
        if err.argument != "bandwidth":
            raise
    fit = fit_kde(scores, bandwidth="normal-reference", **options)
    fit.attrs["bandwidth_rule"] = CV_FALLBACK
    return fit


class KDETruth(Discrete):
    """A discretized KDE as a ground truth: a :class:`Discrete` truth.

    Made by :func:`load_kde`. ``fit`` holds the fit's attributes;
    :meth:`params` adds the source, bandwidth and construction to the
    provenance of every result computed from it.
    """

    def __init__(self, fit):
        super().__init__(fit["x"].values, fit["pmf"].values, name=f"kde:{fit.attrs['name']}",
                         description=fit.attrs["description"])
        self.fit = dict(fit.attrs)

    def params(self):
        keys = ("construction", "bandwidth", "bandwidth_rule", "runs", "source", "bins",
                "grid_lo", "grid_hi", "lattice_step")
        return {**super().params(), **{f"kde_{k}": _plain(self.fit[k]) for k in keys
                                       if k in self.fit}}


def _plain(value):
    """A netCDF attribute as a JSON-able Python value."""
    return value.item() if isinstance(value, np.generic) else value


def kde_dirs():
    """Folders searched for committed fits, in order.

    ``$EVPSIM_KDE_DIR`` when set, then the fits shipped inside the package
    (``evpsim/data/kde_fits/``, read through :mod:`importlib.resources`).
    """
    dirs = []
    if os.environ.get(ENV_DIR):
        folder = Path(os.environ[ENV_DIR])
        if not folder.is_dir():  # a typo must not silently fall back to the shipped fits
            raise check.InvalidArgument(
                ENV_DIR, f"the environment variable {ENV_DIR} names {str(folder)!r}, which "
                         f"{'is not a folder' if folder.exists() else 'does not exist'}: "
                         f"name the folder of your KDE fits, or unset it")
        dirs.append(folder)
    return dirs + [package_data("kde_fits")]


def _committed():
    """``{name: path}`` of the committed fits (earlier folders win)."""
    found = {}
    for folder in reversed(kde_dirs()):
        if folder.is_dir():
            found.update({p.stem: p for p in sorted(folder.glob("*.nc"))})
    return dict(sorted(found.items()))


def list_kde_fits():
    """``{"kde:NAME": description}`` of every committed fit."""
    return {f"kde:{name}": _read_fit(path).attrs.get("description", "")
            for name, path in _committed().items()}


def load_kde(spec):
    """A committed or saved KDE fit as a ground truth.

    Parameters
    ----------
    spec : str, path or xarray.Dataset
        A fit's name, the path of its file, or the fit (:func:`kde_fit`).

    Returns
    -------
    KDETruth
    """
    return KDETruth(kde_fit(spec))


def kde_fit(spec):
    """A committed or saved KDE fit, checked.

    Parameters
    ----------
    spec : str, path or xarray.Dataset
        The name of a committed fit (see :func:`list_kde_fits`), the path
        of a fit written by ``evpsim fit-kde`` (ending in ``.nc``), or a
        Dataset from :func:`fit_kde`.

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    ValueError
        For an unknown name, a missing file or folder, or a file that is not
        a fit.
    TypeError
        For a ``spec`` of another type.
    """
    import xarray as xr

    if isinstance(spec, xr.Dataset):
        fit = spec
    elif isinstance(spec, (str, os.PathLike)):
        text = str(spec)
        if text.endswith(".nc") or os.sep in text or "/" in text:
            path = Path(text)
            if path.is_dir():
                raise check.InvalidArgument("spec", f"KDE fit {text!r} is a folder, not a "
                                                    f"fit file")
            if not path.is_file():
                raise check.InvalidArgument("spec", f"no KDE fit file {text!r}")
        else:
            fits = _committed()
            if text not in fits:
                raise check.InvalidArgument(
                    "spec", f"unknown KDE fit {text!r}; committed fits: "
                            f"{', '.join(fits) or 'none'} (or give a path ending in .nc)")
            path = fits[text]
        fit = _read_fit(path)
    else:
        raise check.InvalidType("spec", f"spec must be a name, a path or a Dataset, got "
                                        f"{type(spec).__name__}")
    missing = [k for k in ("pmf", "x") if k not in fit.variables]
    missing += [k for k in ("name", "description") if k not in fit.attrs]
    if missing:
        what = "" if isinstance(spec, xr.Dataset) else f"{str(path)!r} is "
        raise check.InvalidArgument("spec", f"{what}not a KDE fit written by evpsim fit-kde "
                                            f"(it has no {', '.join(missing)})")
    return fit


def _read_fit(path):
    """The Dataset of the fit file ``path``; a file that cannot be read is named, with why."""
    try:
        return read_netcdf(path)
    except UnreadableFile as err:
        raise check.InvalidArgument("spec", f"cannot read KDE fit {str(path)!r}: "
                                            f"{err.reason}") from None


def _kde_truth(arg, **_):
    return load_kde(arg)


register_truth_prefix("kde", _kde_truth,
                      "discretized KDE: a committed fit by NAME (see below) or a fit file "
                      "PATH.nc written by 'evpsim fit-kde'")
