"""A researcher's models as given: each model's scores, label and trial durations, checked.

:func:`as_models` turns what :func:`evpsim.curve` accepts (one model's
scores, a mapping by label, a list of score lists, searches read from
files, an Optuna study, a pandas DataFrame of trials) into :class:`Model`
objects; the self-check reads them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _validate as check
from .frames import is_frame, read_frame

__all__ = ["Model", "as_models"]


@dataclass(frozen=True)
class Model:
    """One model's scores as :func:`curve` uses them.

    Attributes
    ----------
    label : str
        The model's name.
    scores : ndarray
        Its B scores, in the order given.
    mean_duration : float
        Mean wall-clock seconds per trial (NaN when unknown).
    source : str
        Where the scores came from (a file name, or ``""``).
    metric : str
        The field or column the scores were read from (or ``""``).
    records : int
        Records read for the model, kept and dropped (its B when the
        scores were given directly).
    dropped : dict
        ``{reason: count}`` of the records dropped while reading.
    minimize : bool or None
        The direction its tool recorded (an Optuna study's), or None.
    """

    label: str
    scores: np.ndarray
    mean_duration: float = np.nan
    source: str = ""
    metric: str = ""
    records: int = 0
    dropped: dict = field(default_factory=dict)
    minimize: bool | None = None


#: the longest duration of a trial taken as seconds: beyond, the unit is wrong (or the
#: number is), and an expected time of n trials could overflow
MAX_DURATION = 1e9


def _mean_duration(durations, label):
    if durations is None:
        return np.nan
    try:
        d = np.asarray(check.unmasked(durations, "durations"), dtype=float).ravel()
    except (TypeError, ValueError):
        raise check.InvalidType("durations", f"durations of model {label!r} must be seconds "
                                             f"(numbers), got {durations!r}") from None
    d = d[np.isfinite(d)]
    if d.size == 0:
        raise check.InvalidArgument("durations", f"model {label!r} has no finite duration")
    if (d < 0).any():
        raise check.InvalidArgument("durations", f"model {label!r} has a negative duration")
    if (d > MAX_DURATION).any():
        raise check.InvalidArgument("durations", f"model {label!r} has a duration of "
                                                 f"{d.max():.3g} s, beyond {MAX_DURATION:.0e} s "
                                                 f"(32 years): durations are seconds")
    return float(d.mean())


#: the column names :func:`as_models` passes to :func:`~evpsim.io.frames.read_frame`
FRAME_COLUMNS = ("score", "group", "state", "time")


def as_models(scores, labels=None, durations=None, *, minimize=False, bounds=None,
              columns=None):
    """Normalise :func:`curve`'s ``scores`` argument into a list of :class:`Model`.

    ``scores`` is one model's scores (a sequence of numbers), a mapping
    ``{label: scores}``, a sequence of score sequences, searches read by
    :func:`evpsim.read_searches` (objects with ``label``, ``scores`` and
    ``durations``), an :class:`optuna.Study` (read by
    :func:`evpsim.io.trackers.optuna_studies.read_study`: its objective
    value, failed and pruned trials by their rules, its direction) or a
    pandas DataFrame of trials (read by :func:`evpsim.io.frames.read_frame`:
    Optuna's ``trials_dataframe()`` as it is, or by the ``columns`` given,
    ``{"score": NAME, "group": NAME, "state": NAME, "time": NAME}``, any of
    them; ``columns`` are refused for anything but a DataFrame).
    ``durations`` (seconds per trial, or their mean) is a mapping by label
    or a sequence aligned with the models. ``minimize`` (the scores are
    losses) and ``bounds`` (the metric's range: its low end, or high with
    ``minimize``, is the worst score) set the worst score at which a
    study's or DataFrame's failed trials count, as for files.
    """
    columns = {k: v for k, v in (columns or {}).items() if v is not None}
    if columns and not is_frame(scores):
        name = next(k for k in FRAME_COLUMNS if k in columns)
        raise check.InvalidArgument(name, f"{name} names a column of a pandas DataFrame of "
                                          f"trials, and scores is a {type(scores).__name__}: "
                                          f"give the DataFrame, or leave {name} out")
    if hasattr(scores, "get_trials") and hasattr(scores, "directions"):  # an optuna.Study
        from .trackers.optuna_studies import read_study

        scores = read_study(scores, minimize=minimize, bounds=bounds)
    elif is_frame(scores):
        scores = read_frame(scores, minimize=minimize, bounds=bounds, **columns)
    if hasattr(scores, "scores") and hasattr(scores, "label"):
        scores = [scores]
    if isinstance(scores, dict):
        if not scores:
            raise check.InvalidArgument("scores", "scores is an empty mapping: give "
                                                  "{label: scores} for at least one model")
        items = [(str(k), v, None, None) for k, v in scores.items()]
    elif (isinstance(scores, (list, tuple)) and scores
          and all(hasattr(s, "scores") and hasattr(s, "label") for s in scores)):
        items = [(s.label, s.scores, getattr(s, "durations", None), s) for s in scores]
    elif (isinstance(scores, (list, tuple)) and scores
          and all(isinstance(s, (list, tuple, np.ndarray)) for s in scores)):
        items = [(f"model {k + 1}", s, None, None) for k, s in enumerate(scores)]
    else:
        items = [("model", scores, None, None)]
    if labels is not None:
        if isinstance(labels, str):
            labels = [labels]
        if not isinstance(labels, (list, tuple, np.ndarray)):
            raise check.InvalidType("labels", f"labels must be a string or a list of strings, "
                                              f"got {labels!r}")
        labels = [check.string(lb, "labels") for lb in labels]
        if len(labels) != len(items):
            raise check.InvalidArgument("labels", f"labels: {len(labels)} given for "
                                                  f"{len(items)} model(s)")
        items = [(lb,) + it[1:] for lb, it in zip(labels, items)]
    names = [it[0] for it in items]
    if len(set(names)) != len(names):
        raise check.InvalidArgument("labels", f"labels must differ, got {names}")
    if durations is not None:
        if isinstance(durations, dict):
            unknown = set(durations) - set(names)
            if unknown:
                raise check.InvalidArgument("durations", f"durations for unknown model(s) "
                                                         f"{sorted(unknown)}")
            durations = [durations.get(n) for n in names]
        elif not isinstance(durations, (list, tuple, np.ndarray)):
            raise check.InvalidType("durations", f"durations must be a mapping by label or a "
                                                 f"sequence with one entry per model, got "
                                                 f"{durations!r}")
        elif len(durations) != len(items):
            raise check.InvalidArgument("durations", f"durations: {len(durations)} given for "
                                                     f"{len(items)} model(s)")
        items = [it[:2] + (d,) + it[3:] for it, d in zip(items, durations)]
    out = []
    for label, xs, dur, search in items:
        name = "scores" if len(items) == 1 else f"scores of {label!r}"
        xs = check.spread(check.scores(xs, name), name, f"the range of the {name}")
        out.append(Model(label, xs, _mean_duration(dur, label), getattr(search, "source", ""),
                         getattr(search, "metric", ""), getattr(search, "records", xs.size),
                         dict(getattr(search, "dropped", {})), getattr(search, "minimize", None)))
    return out
