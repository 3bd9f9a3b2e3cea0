"""The Python estimators evpsim ships: ``naive``, ``kde`` and ``opda-parametric``.

Each is a function ``f(samples, ns, context) -> (m, len(ns))`` of ``m``
searches (the rows of ``samples``, each in the order its trials ran), of
budgets ``ns`` and of a :class:`evpsim.estimators.Context` (the target
curve, the metric's bounds); a sample it cannot estimate from gives NaN,
which batteries count as a failure of that cell. :data:`BUILTINS` describes
them for :mod:`evpsim.estimators`, which registers them beside U, V, W and
``quantile``.

Examples
--------
>>> import evpsim
>>> evpsim.estimate([0.7, 0.9, 0.8], "naive").tolist()
[0.7, 0.9, 0.9]
"""

from __future__ import annotations

import numpy as np

__all__ = ["naive", "naive_moments", "kde", "opda_parametric", "OPDA_EXTRA", "BUILTINS"]

#: how to install opda with evpsim
OPDA_EXTRA = 'pip install "evpsim-toolkit[opda]"'


def naive(samples, ns, context=None):
    """The best of the first n trials, in the order they ran.

    What most papers plot as their "best so far" curve. The best of the
    first n of B i.i.d. trials is a draw of the maximum of n, so it is
    unbiased for the mean curve ``theta_n`` and median-unbiased for the
    median curve ``tau_0.5(n)`` (for continuous scores); its exact mean and
    variance are :func:`evpsim.truths.exact.max_moments`. It uses one search's
    first n trials only, so it needs ``n <= B``.

    Parameters
    ----------
    samples : (m, B) ndarray of float
        ``m`` searches, each row in the order its trials ran.
    ns : (R,) ndarray of int
        Budgets in ``1..B``.
    context : Context, optional
        Unused: the same number estimates every target.

    Returns
    -------
    (m, R) ndarray of float
        ``max(samples[:, :n])`` for each n.

    Examples
    --------
    >>> import numpy as np
    >>> naive(np.array([[0.7, 0.9, 0.8], [0.2, 0.1, 0.3]]), np.array([1, 2, 3])).tolist()
    [[0.7, 0.9, 0.9], [0.2, 0.2, 0.3]]
    """
    return np.maximum.accumulate(samples, axis=1)[:, ns - 1]


def naive_moments(truth, B, ns):
    """Exact mean and variance of :func:`naive` at budgets ``ns``: those of the best of n."""
    from ..truths.exact import max_moments

    return max_moments(truth, ns)


def kde(samples, ns, context):
    """The curve of the KDE fitted to each sample: a smoothed plug-in.

    Fits the centered discretized Gaussian KDE with the cross-validated
    bandwidth (:func:`evpsim.truths.kde.fit_kde_cv`: the normal-reference rule
    where many tied scores leave cross-validation without a best
    bandwidth) on the context's bounds (unbounded when there are none),
    and returns its exact ``theta_n`` or ``tau_q(n)``, for any n. A sample
    no KDE fits (all scores equal: the bandwidth would be 0) gives NaN.

    About 5-6 ms of CPU a sample of B = 50 here: a third of it the
    leave-one-out search for the bandwidth, a sixth the interval masses of
    the 511-bin grid, a tenth the curve.

    Parameters
    ----------
    samples : (m, B) ndarray of float
        ``m`` searches (the order of the trials does not matter).
    ns : (R,) ndarray of int
        Budgets, any of at least 1.
    context : Context
        The target curve and the metric's bounds.

    Returns
    -------
    (m, R) ndarray of float

    Examples
    --------
    >>> import evpsim
    >>> scores = [0.61, 0.64, 0.7, 0.72, 0.75, 0.8, 0.83, 0.9]
    >>> evpsim.estimate(scores, "kde", ns=[1, 8, 100], bounds=(0, 1)).round(4).tolist()
    [0.7374, 0.9035, 0.9828]
    """
    from ..truths.kde import fit_kde_cv, load_kde  # a layer above the estimators

    out = np.full((samples.shape[0], ns.size), np.nan)
    for row, xs in enumerate(samples):
        try:
            truth = load_kde(fit_kde_cv(xs, construction="centered", bounds=context.bounds))
        except ValueError:
            continue
        out[row] = context.target.exact(truth, ns)
    return out


def opda_parametric(samples, ns, context):
    """opda's noisy-quadratic fit to each sample, and its curve at any n.

    For each sample, exactly what calling opda directly gives::

        dist = opda.parametric.NoisyQuadraticDistribution.fit(
            scores, constraints={"convex": False},  # concave: maximising
            generator=np.random.default_rng(0))
        dist.average_tuning_curve(ns)               # the mean curve, or
        dist.quantile_tuning_curve(ns, q=q)         # a quantile curve

    The fit's optimiser starts from random points; a fresh generator seeded
    0 for every sample makes each estimate a function of its sample alone,
    the same in every chunk, worker and run, and equal to opda called with
    that generator. A fit that raises, or a curve that is not finite, gives
    NaN for that sample (the battery counts it). On a sample of equal
    scores opda fits a point mass: its quantile curves are that score, and
    its ``average_tuning_curve`` fails after about 80 s (NaN).

    Slow: one fit takes 2.5-3 s of CPU for B = 50 here, so batteries of it
    want few replicates or many workers.

    Parameters
    ----------
    samples : (m, B) ndarray of float
        ``m`` searches (the order of the trials does not matter).
    ns : (R,) ndarray of int
        Budgets, any of at least 1.
    context : Context
        The target curve.

    Returns
    -------
    (m, R) ndarray of float

    Raises
    ------
    ImportError
        When opda is not installed (``pip install "evpsim-toolkit[opda]"``).

    Notes
    -----
    Lourie, Cho and He, "Show Your Work with Confidence: Confidence Bands
    for Tuning Curves" (2024), and the noisy-quadratic model of opda 0.8.

    Examples
    --------
    >>> import evpsim
    >>> scores = [0.61, 0.64, 0.7, 0.72, 0.75, 0.8, 0.83, 0.9]
    >>> evpsim.estimate(scores, "opda-parametric", ns=[1, 100]).round(2).tolist()
    [0.75, 1.06]

    (The model knows no bounds: beyond the trials run its curve may pass
    the metric's best possible score.)
    """
    try:
        from opda.parametric import NoisyQuadraticDistribution
    except ImportError as err:
        raise ImportError(f"the estimator opda-parametric needs opda: {OPDA_EXTRA}") from err
    target = context.target
    out = np.full((samples.shape[0], ns.size), np.nan)
    for row, xs in enumerate(samples):
        try:
            dist = NoisyQuadraticDistribution.fit(xs, constraints={"convex": False},
                                                  generator=np.random.default_rng(0))
            curve = dist.average_tuning_curve(ns) if target.kind == "mean" else \
                dist.quantile_tuning_curve(ns, q=target.q)
            out[row] = np.where(np.isfinite(curve), curve, np.nan)
        except Exception:  # opda's optimiser failing on a sample is a counted failure
            continue
    return out


#: the built-ins of this module, as :class:`evpsim.estimators.Estimator` fields
BUILTINS = (
    dict(name="naive", description="the best of the first n trials in the order they ran "
                                   "(the best-so-far curve)",
         python=naive, targets=("mean", "quantile"), extrapolates=False,
         beyond="the best of the first n needs n trials",
         source="most papers' best-so-far curve", moments=naive_moments),
    dict(name="kde", description="plug-in of the centered discretized Gaussian KDE with the "
                                 "cross-validated bandwidth",
         python=kde, targets=("mean", "quantile"), extrapolates=True, max_replicates=2000,
         source="Tang et al. 2020 (KDE truths); evpsim's kde-validity study"),
    dict(name="opda-parametric", description="opda's noisy-quadratic fit "
                                             "(NoisyQuadraticDistribution.fit), its tuning curves",
         python=opda_parametric, targets=("mean", "quantile"), extrapolates=True,
         max_replicates=100, needs=f"opda: {OPDA_EXTRA}",
         source="opda (Lourie et al. 2024/2025), needs the opda extra"),
)
