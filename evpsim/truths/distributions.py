"""Ground truths: distributions of validation scores with exact EVP.

A truth provides

* ``theta(ns)``: the exact expected maximum of ``n`` i.i.d. draws;
* ``quadrature()``: nodes and weights that turn the order statistics'
  moments into finite sums (exact sums for discrete truths, composite
  Gauss-Legendre rules for continuous ones), used by :mod:`evpsim.truths.exact`;
* ``sampler``: the :class:`~evpsim._kernels.sampling.Sampler` the numba
  kernels draw from;
* ``description``: one line for tables, plots and netCDF attributes.

Every score ``X`` with support in ``[lo, top]`` satisfies
``X = top - integral 1[X <= x] dx``; summed over the nodes that identity is
what makes every moment of an L-statistic a finite sum.

Truths are made from strings with :func:`make_truth` (``"normal"``,
``"tang-small"``, ``"tang-big"``, ``"bag"``, ``"file:PATH"``); further
prefixes such as ``kde:`` are added with :func:`register_truth_prefix`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import ndtr, ndtri

from .. import _validate as check
from .._kernels import sampling as K
from ..io.formats.jsonlines import JSONL_SUFFIXES
from ..io.search import describe_dropped
from ..io.searchfiles import read_jsonl_scores, read_scores
from ..io.shipped import PREFIX as SHIPPED
from ..io.shipped import shipped_search

__all__ = [
    "Truth",
    "TruncatedNormal",
    "Discrete",
    "Quadrature",
    "empirical",
    "bag",
    "make_truth",
    "register_truth_prefix",
    "list_truths",
    "tie_tolerance",
]

_TAIL = 1e-17  # probability beyond which a continuous truth's tail is cut
#: widest sigma of a truncated normal, relative to the truncation interval
_MAX_FLATNESS = 1e3
#: relative tolerance of ties between an estimate and a truth, or two estimates
TIE_RTOL = 1e-12


@dataclass(frozen=True)
class Quadrature:
    """Finite-sum representation of a truth for exact moments.

    ``E[g(X_(i))]``-type integrals ``integral h(F(x)) dx`` over the support
    become ``sum_q h_q * h(F_q)``; double integrals over ``x <= y`` become
    sums over the pairs.

    Attributes
    ----------
    top : float
        Upper end of the support (beyond it the CDF is 1 to within 1e-17).
    h, F, S : (K,) arrays
        Node weights, CDF and survival function ``1 - F`` at the nodes.
    pair_w, pair_Fx, pair_Sx, pair_Fy, pair_Sy : (P,) arrays
        Weights and CDF/survival values of node pairs with ``x <= y``
        covering the triangle ``x <= y`` of the support squared (continuous
        truths).
    chain : bool
        True when the nodes are the exact ordered support points of a
        discrete truth, so that double sums are over all node pairs
        ``k <= l`` and are computed by walking the count process as a
        Markov chain instead of from listed pairs.
    """

    top: float
    h: np.ndarray
    F: np.ndarray
    S: np.ndarray
    pair_w: np.ndarray
    pair_Fx: np.ndarray
    pair_Sx: np.ndarray
    pair_Fy: np.ndarray
    pair_Sy: np.ndarray
    chain: bool = False


class Truth:
    """Base class of ground truths (see module docstring)."""

    name = "truth"
    description = ""
    #: the real results behind an empirical truth of a search (scores in
    #: their source's order), else None; comparisons with pool sampling
    #: draw from them
    results = None
    lo: float
    hi: float

    def theta(self, ns):
        """Exact expected maximum of ``n`` i.i.d. draws for each ``n``.

        Parameters
        ----------
        ns : array_like of int
            Budgets, each at least 1.

        Returns
        -------
        ndarray of float
        """
        if ns is None:
            raise check.InvalidType("ns", "ns must be budgets (integers of at least 1), got None")
        ns = check.ns(ns, np.inf)
        q = self.quadrature(pairs=False, nmax=int(ns.max()) if ns.size else 1)
        check.check_memory(3 * 8 * ns.size * q.h.size, f"theta for {ns.size:,} budgets", "B")
        # theta_n = top - sum_q h_q F_q^n
        return q.top - (q.h[None, :] * q.F[None, :] ** ns[:, None].astype(float)).sum(axis=1)

    def tau(self, q, ns):
        """Exact q-quantile of the maximum of ``n`` i.i.d. draws for each ``n``.

        ``tau_q(n) = F^-1(q^(1/n))``, the quantile tuning curve (Lourie et
        al. 2024; the median tuning curve at ``q = 0.5``), with the
        quantile function of :meth:`quantile`.

        Parameters
        ----------
        q : float
            The quantile, in (0, 1).
        ns : array_like of int
            Budgets, each at least 1 (beyond any sample size: the truth
            knows every n).

        Returns
        -------
        ndarray of float
        """
        q = check.number(q, "q", low=0, high=1)
        if ns is None:
            raise check.InvalidType("ns", "ns must be budgets (integers of at least 1), got None")
        ns = check.ns(ns, np.inf).astype(float)
        return self.quantile(q ** (1.0 / ns), -np.expm1(np.log(q) / ns))

    def quantile(self, ps, tails=None):  # pragma: no cover - abstract
        """Quantile function at probabilities ``ps``; ``tails`` (``1 - ps``,
        given where it is known more precisely than ``ps``) keeps the upper
        tail accurate."""
        raise NotImplementedError

    def quadrature(self, pairs=True, nmax=100):  # pragma: no cover - abstract
        """Finite-sum representation (a :class:`Quadrature`) accurate for
        every sample size up to ``nmax``; ``pairs=False`` skips the pairs."""
        raise NotImplementedError

    @property
    def sampler(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, size, *, seed=0, stream=0):
        """``size`` i.i.d. draws through the numba sampler (for checks)."""
        size = check.integer(size, "size", minimum=0)
        check.check_memory(8 * size, f"{size:,} draws", "size")
        return K.sample_block(check.seed(seed), check.seed(stream, "stream"), size, self.sampler)

    @property
    def range(self):
        """Width of the support, ``hi - lo``."""
        return self.hi - self.lo

    def params(self):
        """Parameters of the truth beyond its name, description and range."""
        return {}

    def coords(self, suffix=""):
        """Scalar coordinates that identify the truth in a result Dataset.

        ``truth``, ``truth_description``, ``truth_lo``, ``truth_hi`` and
        ``truth_params`` (:meth:`params` as JSON), each name followed by
        ``suffix``; every truth has the same five, so results of different
        kinds of truths combine.

        As coordinates, not attributes, they survive combining results of
        several truths, ``xr.concat(results, dim="truth", coords="different")``.
        """
        return {f"truth{suffix}": self.name,
                f"truth{suffix}_description": self.description,
                f"truth{suffix}_lo": float(self.lo),
                f"truth{suffix}_hi": float(self.hi),
                f"truth{suffix}_params": json.dumps(self.params(), sort_keys=True)}

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}: {self.description}>"


def _gauss_legendre01(m):
    t, g = np.polynomial.legendre.leggauss(m)
    return 0.5 * (t + 1.0), 0.5 * g


class TruncatedNormal(Truth):
    """Normal(mu, sigma) truncated to ``[lo, hi]``.

    Parameters
    ----------
    mu, sigma : float
        Mean and standard deviation of the untruncated normal (sigma > 0).
    lo, hi : float
        Finite truncation bounds, ``lo < hi`` (scores of a metric are
        bounded). ``mu``, ``lo`` and ``hi`` must lie within ``+-1e70``
        (:data:`evpsim._validate.MAX_SCORE`); ``sigma`` may be at most
        1000 times ``hi - lo`` (a flatter truth is uniform to within
        rounding), and ``min(sigma, hi - lo)`` must be at least 1e-70 and
        1000 times the spacing of floating-point numbers where the mass
        lies (a narrower truth is a point to within rounding).
    name : str, optional
        Short name (default ``"normal"``).
    panels, order : int
        Composite Gauss-Legendre rule used for exact values (at least 1
        each): ``panels``
        equal panels over the part of ``[lo, hi]`` that holds all but 1e-17
        of the mass, refined geometrically towards both tails (see
        ``_edges``), with ``order`` nodes each. Doubling the defaults changes
        no mean or variance by more than 1e-11 (see the tests).
    """

    def __init__(self, mu=0.6, sigma=0.07, lo=0.0, hi=1.0, *, name="normal",
                 panels=24, order=6):
        mu, lo, hi = (check.number(v, k, low=-check.MAX_SCORE, high=check.MAX_SCORE,
                                   open_low=False, open_high=False)
                      for k, v in (("mu", mu), ("lo", lo), ("hi", hi)))
        sigma = check.number(sigma, "sigma", low=0)
        name = check.string(name, "name")
        panels = check.integer(panels, "panels", minimum=1, maximum=10_000)
        order = check.integer(order, "order", minimum=1, maximum=100)
        if not lo < hi:
            raise check.InvalidArgument("lo", f"lo must be below hi, got lo={lo:g}, hi={hi:g}")
        if sigma > _MAX_FLATNESS * (hi - lo):
            # the CDF is then a difference of nearly equal normal CDFs, and
            # loses the precision that exact values promise
            raise check.InvalidArgument(
                "sigma", f"sigma = {sigma:g} is more than {_MAX_FLATNESS:g} times the width of "
                         f"[{lo:g}, {hi:g}]: the truncated normal is uniform to within rounding "
                         f"and its exact EVP cannot be computed to full precision; choose a "
                         f"smaller sigma")
        # where the mass lies, sigma (or [lo, hi], if narrower) must span many
        # representable numbers, or draws and exact values are rounding noise
        near = max(abs(min(max(mu - 40 * sigma, lo), hi)), abs(min(max(mu + 40 * sigma, lo), hi)))
        spread = min(sigma, hi - lo)
        gap = float(np.spacing(near))
        floor = max(1.0 / check.MAX_SCORE, 1000 * gap)
        if spread < floor:
            why = f"near {near:g} floating-point numbers are {gap:.3g} apart" \
                if 1000 * gap > 1.0 / check.MAX_SCORE else "fourth powers of it underflow"
            raise check.InvalidArgument(
                "sigma", f"sigma = {sigma:g} on [{lo:g}, {hi:g}] gives the truncated normal a "
                         f"spread of {spread:.3g}, below {floor:.3g} ({why}); choose a larger "
                         f"sigma or a wider [lo, hi]")
        self.mu, self.sigma, self.lo, self.hi = mu, sigma, lo, hi
        self.a = (self.lo - self.mu) / self.sigma
        self.b = (self.hi - self.mu) / self.sigma
        # scipy.special's normal CDF and its inverse, not scipy.stats'
        # truncnorm: importing scipy.stats took 0.6 s of every command
        self._mass = _normal_mass(self.a, self.b)
        if not self._mass > 1e-300:
            raise check.InvalidArgument(
                "mu", f"N({mu:g}, {sigma:g}^2) has no usable mass on [{lo:g}, {hi:g}] "
                      f"(probability {self._mass:.3g}); choose bounds nearer the mean")
        self.name = name
        self.description = (f"truncated normal N({self.mu:g}, {self.sigma:g}^2) "
                            f"on [{self.lo:g}, {self.hi:g}]")
        self.panels, self.order = int(panels), int(order)
        self._sampler = None
        self._quad = {}

    def _z(self, x):
        """Standardised scores, clipped to ``[a, b]``."""
        return np.clip((np.asarray(x, dtype=float) - self.mu) / self.sigma, self.a, self.b)

    def _x(self, z):
        """Scores of standardised values, clipped to ``[lo, hi]``."""
        return np.clip(self.mu + self.sigma * z, self.lo, self.hi)

    # each function takes its difference of normal tail areas on the side of
    # zero where the bounds lie, so that nothing cancels in the tails
    def cdf(self, x):
        """CDF of the truncated normal."""
        z = self._z(x)
        if self.a > 0:
            F = (ndtr(-self.a) - ndtr(-z)) / self._mass
        else:
            F = (ndtr(z) - ndtr(self.a)) / self._mass
        return np.clip(F, 0.0, 1.0)

    def sf(self, x):
        """Survival function ``1 - CDF``, accurate in the upper tail."""
        z = self._z(x)
        if self.b < 0:
            S = (ndtr(self.b) - ndtr(z)) / self._mass
        else:
            S = (ndtr(-z) - ndtr(-self.b)) / self._mass
        return np.clip(S, 0.0, 1.0)

    def _ppf(self, ps):
        """Quantiles at lower-tail probabilities ``ps``."""
        ps = np.asarray(ps, dtype=float)
        if self.a > 0:
            return self._x(-ndtri(ndtr(-self.a) - ps * self._mass))
        return self._x(ndtri(ndtr(self.a) + ps * self._mass))

    def _isf(self, qs):
        """Quantiles at upper-tail probabilities ``qs``."""
        qs = np.asarray(qs, dtype=float)
        if self.b < 0:
            return self._x(ndtri(ndtr(self.b) - qs * self._mass))
        return self._x(-ndtri(ndtr(-self.b) + qs * self._mass))

    def params(self):
        return {"mu": self.mu, "sigma": self.sigma}

    def quantile(self, ps, tails=None):
        """Quantiles of the truncated normal (through ``isf`` in the upper tail)."""
        ps = np.asarray(ps, dtype=float)
        tails = 1.0 - ps if tails is None else np.asarray(tails, dtype=float)
        with np.errstate(invalid="ignore"):
            return np.where(ps > 0.5, self._isf(tails), self._ppf(ps))

    def _core(self):
        lo = max(self.lo, float(self._ppf(_TAIL)))
        hi = min(self.hi, float(self._isf(_TAIL)))
        if not lo < hi:  # extremely narrow truth: use the whole support
            lo, hi = self.lo, self.hi
        return lo, hi

    def _edges(self, nmax):
        """Panel edges: uniform over the core, graded geometrically in both tails.

        ``F(x)^n`` and the order statistics of ``n`` draws vary on the scale
        where ``1 - F`` (or ``F``) is about ``1/n``, however small that is in
        ``x``; edges at the quantiles ``2^-k`` and ``1 - 2^-k``, for ``k`` up to
        ``log2(nmax) + 8``, resolve those features for every ``n <= nmax``.
        """
        lo, hi = self._core()
        kmax = int(np.ceil(np.log2(max(nmax, 2)))) + 8
        ps = 2.0 ** -np.arange(1, kmax + 1)
        graded = np.concatenate([self._ppf(ps), self._isf(ps)])
        edges = np.unique(np.concatenate([np.linspace(lo, hi, self.panels + 1),
                                          graded[(graded > lo) & (graded < hi)]]))
        # drop slivers that add nodes without adding accuracy
        keep = np.concatenate([[True], np.diff(edges) > 1e-9 * (hi - lo)])
        return edges[keep]

    def quadrature(self, pairs=True, nmax=100):
        nmax = int(max(nmax, 100))
        key = (bool(pairs), nmax)
        if key in self._quad:
            return self._quad[key]
        edges = self._edges(nmax)
        hi = edges[-1]
        t, g = _gauss_legendre01(self.order)
        width = np.diff(edges)
        xs = (edges[:-1, None] + width[:, None] * t[None, :]).ravel()
        hs = (width[:, None] * g[None, :]).ravel()
        F, S = self.cdf(xs), self.sf(xs)
        if not pairs:
            quad = Quadrature(hi, hs, F, S, *([np.empty(0)] * 5))
            self._quad[key] = quad
            return quad
        m = self.order
        P = edges.size - 1
        # panels p < r: tensor product of the two panels' rules
        pi, ri = np.triu_indices(P, k=1)
        ix = (pi[:, None, None] * m + np.arange(m)[None, :, None]) * np.ones(m, int)[None, None, :]
        iy = (ri[:, None, None] * m + np.arange(m)[None, None, :]) * np.ones(m, int)[None, :, None]
        ix, iy = ix.ravel(), iy.ravel()
        w_off = hs[ix] * hs[iy]
        # same panel: y from the panel's rule, x on [edge, y] from a mapped rule
        yy = np.repeat(np.arange(P * m), m)
        tt = np.tile(t, P * m)
        gg = np.tile(g, P * m)
        left = np.repeat(edges[:-1], m * m)
        x_in = left + (xs[yy] - left) * tt
        w_in = hs[yy] * (xs[yy] - left) * gg
        quad = Quadrature(
            hi, hs, F, S,
            np.concatenate([w_off, w_in]),
            np.concatenate([F[ix], self.cdf(x_in)]),
            np.concatenate([S[ix], self.sf(x_in)]),
            np.concatenate([F[iy], F[yy]]),
            np.concatenate([S[iy], S[yy]]),
        )
        self._quad[key] = quad
        return quad

    def theta_quad(self, ns):
        """theta_n by adaptive quadrature (``scipy.integrate.quad``).

        An independent check of :meth:`theta`.
        """
        from scipy import integrate

        out = []
        for n in np.atleast_1d(ns):
            val, _ = integrate.quad(lambda x: self.cdf(x) ** int(n), self.lo, self.hi,
                                    epsabs=1e-13, epsrel=1e-13, limit=500,
                                    points=[self.mu] if self.lo < self.mu < self.hi else None)
            out.append(self.hi - val)
        return np.array(out)

    @property
    def sampler(self):
        if self._sampler is None:
            case, alpha = _choose_truncnorm_case(self.a, self.b)
            self._sampler = K.Sampler.truncnorm(self.mu, self.sigma, self.a, self.b, case, alpha)
        return self._sampler


def _normal_mass(a, b):
    """``P(a < Z < b)`` of a standard normal Z, from the tail on the bounds' side."""
    return float(ndtr(-a) - ndtr(-b)) if a > 0 else float(ndtr(b) - ndtr(a))


def _choose_truncnorm_case(a, b):
    """Pick the rejection sampler with the highest acceptance rate."""
    mass = _normal_mass(a, b)
    rates = {K.CASE_NORMAL: mass}
    # uniform proposal on [a, b] with envelope exp(-c^2 / 2), c the point nearest 0
    c = a if a > 0 else (b if b < 0 else 0.0)
    rates[K.CASE_UNIFORM] = mass * math.sqrt(2 * math.pi) * math.exp(0.5 * c * c) / (b - a)
    alpha = 0.0
    if a > 0 or b < 0:
        from scipy import integrate  # here: 0.4 s that a truth with both tails never needs

        lo_t, hi_t = (a, b) if a > 0 else (-b, -a)
        alpha = 0.5 * (lo_t + math.sqrt(lo_t * lo_t + 4.0))
        acc, _ = integrate.quad(
            lambda z: alpha * math.exp(-alpha * (z - lo_t) - 0.5 * (z - alpha) ** 2),
            lo_t, hi_t)
        rates[K.CASE_EXP_RIGHT if a > 0 else K.CASE_EXP_LEFT] = acc
    best = max(rates, key=rates.get)
    return best, alpha


class Discrete(Truth):
    """A discrete distribution on a finite support.

    Covers discretized KDEs, bags of values and empirical distributions.

    Parameters
    ----------
    support : array_like of float
        Support points (any order; duplicates are merged). Distinct points
        must span at least 1e-70 (1 / :data:`evpsim._validate.MAX_SCORE`, as
        a truncated normal's spread must): below that, fourth powers of
        differences underflow and subnormal numbers leave theta_n no digits.
    pmf : array_like of float
        Non-negative weights, one per support point, not all zero;
        normalised to sum to one.
    name, description : str
        Identification for tables and attributes.
    """

    def __init__(self, support, pmf, *, name="discrete", description=None):
        xs = check.scores(support, name="support", min_size=1)
        ps = check.scores(pmf, name="pmf", min_size=1)
        if ps.shape != xs.shape:
            raise check.InvalidArgument("pmf", f"pmf has shape {ps.shape}, support has "
                                               f"{xs.shape}")
        if np.any(ps < 0):
            raise check.InvalidArgument("pmf", f"pmf must be finite and non-negative, got "
                                               f"{float(ps[ps < 0][0])!r} at index "
                                               f"{int(np.argmax(ps < 0))}")
        total = ps.sum()
        if not total > 0:
            raise check.InvalidArgument("pmf", "pmf sums to zero")
        name = check.string(name, "name")
        if description is not None:
            check.string(description, "description")
        order = np.argsort(xs, kind="stable")
        xs, given, ps = xs[order], ps[order], ps[order] / total
        uniq, inv = np.unique(xs, return_inverse=True)
        ps = np.bincount(inv, weights=ps)
        keep = ps > 0
        self.support, self.pmf = uniq[keep], ps[keep]
        # the masses as given (counts, for an empirical truth): the quantile
        # function normalises them as opda does
        self._given = np.bincount(inv, weights=given)[keep]
        self.lo, self.hi = float(self.support[0]), float(self.support[-1])
        # as for a truncated normal: below this, fourth powers of differences
        # underflow, and among subnormal numbers theta_n has no digits left
        check.spread(self.support, "support", "support (the truth's distinct values)")
        self.name = name
        self.description = description or (
            f"discrete distribution on {self.support.size} points in "
            f"[{self.lo:.4g}, {self.hi:.4g}]")
        cdf = np.cumsum(self.pmf)
        sf = np.cumsum(self.pmf[::-1])[::-1]  # sf[k] = P(X >= s_k)
        self._F = np.minimum(cdf, 1.0)
        self._S = np.append(sf[1:], 0.0)  # P(X > s_k)
        self._sampler = None
        self._quad = {}

    def quantile(self, ps, tails=None):
        """Quantiles by the convention of opda's empirical distribution.

        ``Q(p) = min {s_k : p <= F(s_k)}``, with the CDF computed as opda
        computes it (cumulative sums of the masses, divided by their total),
        so that the quantile curve of an empirical truth equals opda's
        ``EmpiricalDistribution(scores).quantile_tuning_curve``.
        """
        cdf = np.cumsum(self._given / self._given.sum())
        cdf /= cdf[-1]
        at = np.searchsorted(cdf, np.asarray(ps, dtype=float), side="left")
        return self.support[np.minimum(at, self.support.size - 1)]

    def quadrature(self, pairs=True, nmax=None):
        key = bool(pairs)
        if key in self._quad:
            return self._quad[key]
        # nodes s_1..s_{K-1}, weight s_{k+1} - s_k, F at s_k; pairs are
        # implicit (all k <= l), see Quadrature.chain
        empty = np.empty(0)
        quad = Quadrature(self.hi, np.diff(self.support), self._F[:-1], self._S[:-1],
                          empty, empty, empty, empty, empty, chain=True)
        self._quad[key] = quad
        return quad

    @property
    def sampler(self):
        if self._sampler is None:
            self._sampler = K.Sampler.discrete(self.support, self._F)
        return self._sampler

    def params(self):
        return {"support_size": int(self.support.size)}


def empirical(scores, *, name="empirical", description=None, results=False):
    """The empirical distribution of ``scores`` (each score equally likely).

    With ``results``, the scores are a search's real results, kept in
    order as the truth's ``results`` (see :attr:`Truth.results`).
    """
    xs = check.scores(scores, min_size=1)
    truth = Discrete(xs, np.ones_like(xs), name=name, description=description or (
        f"empirical distribution of {xs.size} scores ({np.unique(xs).size} distinct) "
        f"in [{xs.min():.4g}, {xs.max():.4g}]"))
    if results:
        truth.results = xs
    return truth


def bag(*, seed=2021, population=100_000, size=10_000, mu=0.6, sigma=0.07, lo=0.0, hi=1.0):
    """Dodge et al. (2021, section 3.1)'s bag of scores.

    ``population`` draws of the truncated normal, a bag of ``size`` drawn
    from them with replacement (the paper's 10,000 from 100,000 gave 9,536
    unique values, which only sampling with replacement explains), and the
    truth samples uniformly from the bag. Seeded, so every run has the same
    bag.
    """
    from scipy import stats

    rng = np.random.default_rng(seed)
    tn = TruncatedNormal(mu, sigma, lo, hi)
    pop = stats.truncnorm.rvs(tn.a, tn.b, loc=mu, scale=sigma, size=population,
                              random_state=rng)
    values = rng.choice(pop, size=size, replace=True)
    return empirical(values, name="bag", description=(
        f"Dodge et al. 2021 bag: {size:,} of {population:,} draws of N({mu:g}, {sigma:g}^2) "
        f"on [{lo:g}, {hi:g}] (seed {seed}, {np.unique(values).size} unique)"))


_PREFIXES = {}


def register_truth_prefix(prefix, factory, help=""):
    """Make ``make_truth("PREFIX:ARG")`` call ``factory(ARG, **options)``."""
    _PREFIXES[prefix] = (factory, help)


def _file_truth(arg, column=None, **_):
    if Path(arg).suffix.lower() in JSONL_SUFFIXES:
        if column is None:
            raise check.InvalidArgument("column", f"column: {arg!r} is JSON Lines: name the "
                                                  f"score's field (e.g. "
                                                  f"best_validation_accuracy)")
        xs = read_jsonl_scores(arg, column)
    else:
        xs = read_scores(arg, column=column)
    if xs.size < 2:
        raise check.InvalidArgument("path", f"{arg!r} holds {xs.size} score; an empirical "
                                            f"truth needs at least 2")
    return empirical(xs, name=f"file:{Path(arg).name}", results=True, description=(
        f"empirical distribution of {xs.size} scores ({np.unique(xs).size} distinct) "
        f"from {Path(arg).name}"))


register_truth_prefix("file", _file_truth,
                      "empirical distribution of the scores in PATH (one per line; CSV or "
                      "JSON Lines with --column naming the column or field)")


def _shipped_truth(arg, **_):
    search = shipped_search(arg)
    left_out = (f"; {sum(search.dropped.values())} trials without a score left out "
                f"({describe_dropped(search.dropped)})" if search.dropped else "")
    return empirical(search.scores, name=f"{SHIPPED}{arg}", results=True, description=(
        f"empirical distribution of {search.scores.size} scores "
        f"({np.unique(search.scores).size} distinct) from {search.source}{left_out}"))


register_truth_prefix("data", _shipped_truth,
                      "empirical distribution of a search shipped with evpsim (see below)")

_NAMED = {
    "normal": ("truncated normal N(mu, sigma^2) on [lo, hi]; default N(0.6, 0.07^2) on [0, 1] "
               "(Dodge et al. 2021)"),
    "tang-small": "N(0.5, 0.1^2) on [0, 0.6] (Tang et al. 2020 synthetic pair)",
    "tang-big": "N(0.25, 0.2^2) on [0, 0.75] (Tang et al. 2020 synthetic pair)",
    "bag": "Dodge et al. 2021 bag: 10,000 of 100,000 truncated-normal draws, sampled uniformly",
}


def list_truths():
    """``{spec: description}`` of the named truths and the prefixes."""
    out = dict(_NAMED)
    for prefix, (_, help_) in _PREFIXES.items():
        out[f"{prefix}:..."] = help_
    return out


def make_truth(spec, *, mu=None, sigma=None, lo=None, hi=None, column=None):
    """Build a truth from a command-line style specification.

    Parameters
    ----------
    spec : str or Truth
        ``"normal"``, ``"tang-small"``, ``"tang-big"``, ``"bag"``,
        ``"file:PATH"`` or another registered ``PREFIX:ARG``. A Truth is
        returned unchanged.
    mu, sigma, lo, hi : float, optional
        Parameters of ``"normal"`` (defaults 0.6, 0.07, 0, 1).
    column : str, optional
        CSV column for ``file:`` truths.
    """
    if isinstance(spec, Truth):
        return spec
    if not isinstance(spec, str) or not spec:
        raise check.InvalidArgument("truth", f"truth must be a non-empty string or a Truth, "
                                             f"got {spec!r}")
    if spec != "normal" and any(v is not None for v in (mu, sigma, lo, hi)):
        given = [k for k, v in (("mu", mu), ("sigma", sigma), ("lo", lo), ("hi", hi))
                 if v is not None]
        raise check.InvalidArgument(given[0], f"{', '.join(given)} apply only to the 'normal' "
                                              f"truth, not to {spec!r}")
    if column is not None and not spec.startswith("file:"):
        raise check.InvalidArgument("column", f"column applies only to file: truths, "
                                              f"not to {spec!r}")
    if spec == "normal":
        return TruncatedNormal(0.6 if mu is None else mu, 0.07 if sigma is None else sigma,
                               0.0 if lo is None else lo, 1.0 if hi is None else hi)
    if spec == "tang-small":
        return TruncatedNormal(0.5, 0.1, 0.0, 0.6, name="tang-small")
    if spec == "tang-big":
        return TruncatedNormal(0.25, 0.2, 0.0, 0.75, name="tang-big")
    if spec == "bag":
        return bag()
    prefix, sep, arg = spec.partition(":")
    if sep and prefix in _PREFIXES:
        if not arg:
            raise check.InvalidArgument("truth", f"truth {spec!r} needs an argument after "
                                                 f"'{prefix}:'")
        return _PREFIXES[prefix][0](arg, column=column)
    known = ", ".join(list(_NAMED) + [f"{p}:..." for p in _PREFIXES])
    raise check.InvalidArgument("truth", f"unknown truth {spec!r}; known: {known}")


def tie_tolerance(*truths):
    """Absolute tolerance under which two values count as tied.

    ``TIE_RTOL`` times the largest magnitude in the truths' supports: far
    above the rounding error of an estimate, far below any real difference
    between two scores.
    """
    return TIE_RTOL * max(max(abs(t.lo), abs(t.hi)) for t in truths)
