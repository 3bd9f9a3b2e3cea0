"""EVP curves of observed scores, their spread, and budgets to reach a score.

The tools a researcher uses to report expected validation performance for
their own model (Dodge et al. 2019, sections 3 and 4): the estimated curve
over n, the standard deviation of the best of n draws under the plug-in
(empirical) distribution, and the smallest budget whose expected best score
reaches a target.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from . import _validate as check
from .estimators import estimator_weights, get_estimator

__all__ = ["evp_curve", "budget_to_reach"]


def evp_curve(scores, estimator="V", ns=None, *, name=None):
    """The estimated EVP curve of observed scores, with its spread.

    Parameters
    ----------
    scores : array_like of float
        Validation scores of B >= 2 trials (ties allowed).
    estimator : str
        Registered estimator (default ``"V"``, as in Dodge et al. 2019).
    ns : array_like of int, optional
        Budgets in 1..B (default all).
    name : str, optional
        Model name stored in the attributes.

    Returns
    -------
    xarray.Dataset
        Dim ``n``: ``evp`` (the estimate), ``sd`` (standard deviation of the
        best of n draws with replacement from the observed scores, Dodge et
        al. 2019 section 3.3; the same for every estimator since it describes
        the plug-in distribution), ``lower``/``upper`` (``evp -/+ sd``
        clipped to the observed range, as Dodge et al. recommend for
        shading).

    Examples
    --------
    >>> ds = evp_curve([0.7, 0.9, 0.8])
    >>> [round(float(v), 4) for v in ds["evp"]]
    [0.8, 0.8444, 0.8667]
    >>> round(float(ds["sd"].sel(n=1)), 4)
    0.0816
    """
    xs = np.sort(check.scores(scores))
    B = xs.size
    ns = check.ns(ns, B)
    if name is not None:
        check.string(name, "name", empty=True)
    est = get_estimator(estimator).apply(xs, ns)
    wv = estimator_weights("V", B)[ns - 1]
    mean_v = wv @ xs
    sd = np.sqrt(np.maximum(wv @ xs**2 - mean_v**2, 0.0))
    ds = xr.Dataset(
        {
            "evp": ("n", est, {"long_name": f"expected best score after n trials ({estimator})"}),
            "sd": ("n", sd, {"long_name": "SD of the best of n draws from the observed scores"}),
            "lower": ("n", np.maximum(est - sd, xs[0]), {"long_name": "evp - sd, within range"}),
            "upper": ("n", np.minimum(est + sd, xs[-1]), {"long_name": "evp + sd, within range"}),
        },
        coords={"n": ns},
        attrs={"estimator": str(estimator), "B": B, "best_observed": float(xs[-1]),
               "model": name or ""},
    )
    return ds


def budget_to_reach(scores, target, estimator="V"):
    """Smallest budget n whose estimated expected best score reaches ``target``.

    Parameters
    ----------
    scores : array_like of float
        Observed validation scores (B >= 2).
    target : float
        The score to reach.
    estimator : str
        Registered estimator (default ``"V"``).

    Returns
    -------
    int or None
        The budget, or None when even n = B falls short (the data cannot say).

    Examples
    --------
    >>> budget_to_reach([0.7, 0.9, 0.8], 0.85)
    3
    >>> budget_to_reach([0.7, 0.9, 0.8], 0.95) is None
    True
    """
    target = check.number(target, "target")
    evp = evp_curve(scores, estimator)["evp"].values
    hits = np.flatnonzero(evp >= target)
    return int(hits[0]) + 1 if hits.size else None
