"""Truths made from others: failed trials at the floor, and a top that many configurations reach.

``make_truth("failed:PI:SPEC")`` is the truth ``SPEC`` in a search where a
trial fails with probability ``PI`` and then counts at the worst score the
metric allows, the low end of its range (0 for an accuracy,
:func:`metric_floor`): a point mass at the floor beside ``SPEC``'s draws, as
failed trials make it when they count at the worst score.

``make_truth("cap:MASS:SPEC")`` is the discrete truth ``SPEC`` (a lattice
truth, say) with its best scores merged into one atom holding about
``MASS`` of the mass: every point above the highest one whose upper tail
``P(X >= s)`` is at least ``MASS`` moves down to it, as when the best
configurations of a search tie at the best accuracy a dev set allows.

Both are discrete truths (:class:`~evpsim.truths.distributions.Discrete`),
so their curves are exact.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check
from .distributions import Discrete, make_truth, register_truth_prefix

__all__ = ["failed_truth", "capped_truth", "metric_floor"]


def metric_floor(truth):
    """The worst score of a truth's metric: 0 when its range lies in [0, 1] or [0, 100],
    else its own lowest value."""
    for lo, hi in ((0.0, 1.0), (0.0, 100.0)):
        if lo <= truth.lo and truth.hi <= hi:
            return lo
    return float(truth.lo)


def _discrete(spec, prefix):
    """The discrete truth ``spec`` (refusing one without a finite support)."""
    base = make_truth(spec)
    if not isinstance(base, Discrete):
        raise check.InvalidArgument("truth", f"{prefix}:...:{spec}: {spec} has no finite "
                                             f"support; give a discrete truth (data:, "
                                             f"lattice:, kde:, file:, bag)")
    return base


def _share(text, name, prefix, high):
    """``text`` (a string or number) as a share in (0, ``high``)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise check.InvalidArgument(name, f"truth {prefix}:{text}:...: {name} must be a "
                                          f"number in (0, {high:g}), got {text!r}") from None
    if not 0.0 < value < high:
        raise check.InvalidArgument(name, f"truth {prefix}:{text}:...: {name} must lie in "
                                          f"(0, {high:g}), got {value:g}")
    return value


def failed_truth(pi, spec):
    """The truth ``spec`` with a share ``pi`` of failed trials at its metric's floor.

    Parameters
    ----------
    pi : float or str
        The chance that a trial fails, in (0, 1).
    spec : str
        A discrete truth (``data:reuters-mlp``, ``lattice:1/100:kde:...``).

    Returns
    -------
    Discrete
        Named ``failed:PI:SPEC``.

    Examples
    --------
    >>> t = failed_truth(0.1, "data:reuters-mlp")
    >>> float(t.support[0]), round(float(t.pmf[0]), 3)
    (0.0, 0.1)
    """
    pi = _share(pi, "pi", "failed", 1.0)
    base = _discrete(spec, "failed")
    floor = metric_floor(base)
    support = np.concatenate([[floor], base.support])
    pmf = np.concatenate([[pi], (1.0 - pi) * base.pmf])
    return Discrete(support, pmf, name=f"failed:{pi:g}:{spec}", description=(
        f"{base.description}, with {100 * pi:g}% of trials failed and counted at the worst "
        f"score {floor:g}"))


def capped_truth(mass, spec):
    """The discrete truth ``spec`` with its best scores merged into one atom of about
    ``mass``.

    Parameters
    ----------
    mass : float or str
        The top atom's share of the mass to aim at, in (0, 0.5): the atom
        is the highest support point whose upper tail holds at least it.
    spec : str
        A discrete truth.

    Returns
    -------
    Discrete
        Named ``cap:MASS:SPEC``; its top atom holds ``P(X >= s)`` of
        ``spec`` at that point.

    Examples
    --------
    >>> t = capped_truth(0.01, "lattice:1/500:kde:sst2-elmo")
    >>> 0.01 <= float(t.pmf[-1]) < 0.02
    True
    """
    mass = _share(mass, "mass", "cap", 0.5)
    base = _discrete(spec, "cap")
    upper = np.cumsum(base.pmf[::-1])[::-1]  # P(X >= s_k)
    top = int(np.flatnonzero(upper >= mass)[-1])
    if top == 0:
        raise check.InvalidArgument("mass", f"truth cap:{mass:g}:{spec}: every point of "
                                            f"{spec} would merge into one")
    support = base.support[:top + 1]
    pmf = np.concatenate([base.pmf[:top], [upper[top]]])
    return Discrete(support, pmf, name=f"cap:{mass:g}:{spec}", description=(
        f"{base.description}, its best {100 * upper[top]:.2g}% of the mass tied at "
        f"{support[-1]:.6g}"))


def _prefixed(factory, prefix, what):
    def make(arg, **_):
        value, sep, spec = arg.partition(":")
        if not sep or not spec:
            raise check.InvalidArgument("truth", f"truth {prefix}:{arg} needs {what} and a "
                                                 f"truth: {prefix}:{what.upper()}:SPEC")
        return factory(value, spec)
    return make


register_truth_prefix("failed", _prefixed(failed_truth, "failed", "pi"),
                      "the discrete truth SPEC with a share PI of failed trials counted at "
                      "the metric's worst score: failed:PI:SPEC, e.g. "
                      "failed:0.1:data:reuters-mlp")
register_truth_prefix("cap", _prefixed(capped_truth, "cap", "mass"),
                      "the discrete truth SPEC with its best scores tied in one atom of about "
                      "MASS: cap:MASS:SPEC, e.g. cap:0.01:lattice:1/500:kde:sst2-elmo")
