"""One model's trials as read: the :class:`Search`, and what reading made of them.

Every reader of trials (score files: :mod:`evpsim.io.searchfiles`; the
tools' stores: :mod:`evpsim.io.trackers`) gives one :class:`Search` per
model, made of its records by :func:`make_search` once the rules of
:mod:`evpsim.io.trials` are applied and :func:`enough` scores are left.
:func:`describe_reading` says what reading counted, dropped or kept
unusually, in the words a line describing the model shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field

import numpy as np

from .. import _validate as check
from .._format import number
from .trials import DIVERGED_FLAGS, describe_sampler, pruned_kept

__all__ = ["Search", "MIN_SCORES", "describe_dropped", "describe_reading", "enough",
           "count_reasons", "make_search"]

#: a search needs two scores (a standard error needs two)
MIN_SCORES = 2


@dataclass(frozen=True, eq=False)
class Search:
    """One model's trials read from a results file.

    Attributes
    ----------
    label : str
        The model's name: given, the file's stem, or the value of the group
        field (``stem/value`` when several files are grouped).
    scores : ndarray of float
        The kept scores, in file order.
    durations : ndarray of float or None
        Seconds per kept trial (NaN where the record had none), or None when
        no ``time_field`` was given.
    source : str
        The file's name (not its full path).
    metric : str
        The field or column holding the scores (``""`` for plain text).
    records : int
        Records (lines, rows) read for this model, kept and dropped.
    dropped : dict
        ``{reason: count}`` of the dropped records, reasons in plain words
        (``"field missing"``, ``"empty learning curve"``, ``"NaN, infinite
        or null (diverged)"`` ...), in the order first met; only nonzero
        counts.
    durations_missing : int
        Kept trials without a duration (NaN in ``durations``).
    diverged_kept : dict
        ``{flag: count}`` of the kept trials flagged as diverged (see
        :data:`~evpsim.io.trials.DIVERGED_FLAGS`; scored by their
        checkpoints before diverging) or with a failed state (``"state
        FAIL"``; scored by the value they recorded); only nonzero counts.
    failed : dict
        ``{reason: count}`` of the failed trials (records of trials that
        ran but gave no score), counted at ``failed_score`` among the
        scores or, when ``failed_score`` is None, dropped (and counted in
        ``dropped`` too); only nonzero counts.
    failed_score : float or None
        The score the failed trials count at, or None when they are dropped.
    failed_basis : str
        Where ``failed_score`` comes from: ``"the lowest observed"``,
        ``"the highest observed"``, ``"the lower end of bounds"``,
        ``"the upper end of bounds"`` or ``"given"`` (``""`` when dropped).
    pruned : int or None
        Pruned trials counted at the score they reached, their last
        intermediate value (see :mod:`evpsim.io.trials`); pruned trials made
        failed or dropped are counted in ``failed`` or ``dropped`` as
        ``"pruned"``. None where nothing records whether a trial was pruned
        (a file without a state column, a tool without a pruned state).
    sampler : str
        How the search drew its trials, where the tool records it (Optuna's
        ``RandomSampler``, Ray Tune's ``BasicVariantGenerator`` ...), or
        ``"not recorded"``; ``""`` for a file, which records none.
    minimize : bool or None
        The direction the tool recorded (an Optuna study's), or None.
    implied_time : str
        The column taken as the trials' durations without a time field
        being given: ``"Runtime"`` of a W&B runs-table export (see
        :data:`~evpsim.io.formats.csvfiles.WANDB_COLUMNS`); ``""`` otherwise.
    run : str
        Which run of its model's search these trials are, where a run
        field tells runs apart (its value: a seed); ``""`` otherwise.
    """

    label: str
    scores: np.ndarray
    durations: np.ndarray | None
    source: str
    metric: str
    records: int
    dropped: dict
    durations_missing: int = 0
    diverged_kept: dict = _field(default_factory=dict)
    failed: dict = _field(default_factory=dict)
    failed_score: float | None = None
    failed_basis: str = ""
    pruned: int | None = None
    sampler: str = ""
    minimize: bool | None = None
    implied_time: str = ""
    run: str = ""


def describe_dropped(dropped):
    """``{reason: count}`` as words: ``"2 field missing; 1 not JSON"``.

    Examples
    --------
    >>> describe_dropped({"empty learning curve": 3, "not JSON": 1})
    '3 empty learning curve; 1 not JSON'
    """
    return "; ".join(f"{count} {reason}" for reason, count in dropped.items())


def describe_reading(search, what="the curve", curve="V"):
    """What reading counted, left out or kept unusually, as ``"; ..."`` clauses (``""`` if
    nothing).

    Failed trials and the score they count at (or, dropped, that the scores
    are then conditional on a trial succeeding), dropped records by reason,
    kept trials flagged as diverged or failed, pruned trials counted at the
    score they reached, kept trials without a duration (left out of the mean
    duration behind an expected wall-clock axis), and the sampler where the
    tool recorded one (with a warning when it is not random search, which
    the curve assumes): what a line describing the model must say. ``what`` names what
    is made of the scores (``"the curve"``, ``"the fit"``), which dropped
    failed trials make conditional on success; ``curve`` what is drawn of them
    (see :func:`~evpsim.io.trials.describe_sampler`).

    Examples
    --------
    >>> s = Search("cnn", np.array([0.4, 0.5, 0.6, 0.4]), np.array([60.0, np.nan, 90.0, 5.0]),
    ...            "results.jsonl", "acc", 6, {"field missing": 2}, durations_missing=1,
    ...            diverged_kept={"nan_train_loss": 1}, failed={"empty learning curve": 1},
    ...            failed_score=0.4, failed_basis="the lowest observed")
    >>> for note in describe_reading(s).split("; ")[1:]:
    ...     print(note)
    1 failed (empty learning curve) counted at the worst score 0.4 (the lowest observed)
    dropped 2 of 6 records: 2 field missing
    kept 1 diverged run (nan_train_loss), scored by its checkpoints before diverging
    1 of 4 kept trials has no duration: the expected wall-clock uses the mean of the other 3
    >>> from dataclasses import replace
    >>> s = replace(s, dropped={}, failed={}, diverged_kept={}, durations_missing=0, pruned=2,
    ...             sampler="TPESampler")
    >>> for note in describe_reading(s).split("; ")[1:]:
    ...     print(note)
    2 pruned trials counted at their last intermediate value
    sampler TPESampler: warning: not random search, which the curve assumes (independent draws)
    """
    notes = []
    k = sum(search.failed.values())
    if k and search.failed_score is not None:
        why = describe_dropped(search.failed) if len(search.failed) > 1 else \
            next(iter(search.failed))
        worst = "" if search.failed_basis == "given" else "the worst score "
        notes.append(f"{k} failed ({why}) counted at {worst}{number(search.failed_score)} "
                     f"({search.failed_basis})")
    if search.dropped:
        notes.append(f"dropped {sum(search.dropped.values())} of {search.records} records: "
                     f"{describe_dropped(search.dropped)}")
    if k and search.failed_score is None:
        notes.append(f"{what} is conditional on success ({k} failed trial"
                     f"{'' if k == 1 else 's'} dropped)")
    for flag, count in search.diverged_kept.items():
        one = count == 1
        notes.append(f"kept {count} diverged run{'' if one else 's'} ({flag}), scored by "
                     f"{'its' if one else 'their'} checkpoints before diverging"
                     if flag in DIVERGED_FLAGS else
                     f"kept {count} run{'' if one else 's'} marked {flag}, scored by the "
                     f"value {'it' if one else 'they'} recorded")
    if search.pruned:
        one = search.pruned == 1
        notes.append(f"{search.pruned} pruned trial{'' if one else 's'} counted at "
                     f"{'its' if one else 'their'} last intermediate value")
    if search.implied_time:
        notes.append(f"durations from its {search.implied_time} column, as a W&B runs export "
                     f"records them")
    if search.durations_missing:
        k, size = search.durations_missing, search.scores.size
        notes.append(f"{k} of {size} kept trials {'has' if k == 1 else 'have'} no duration: "
                     f"the expected wall-clock uses the mean of the other {size - k}")
    if search.sampler:
        notes.append(describe_sampler(search.sampler, curve))
    return "".join(f"; {note}" for note in notes)


def enough(f, records, group, value):
    """Refuse a model left with fewer than :data:`MIN_SCORES` scores, saying why.

    ``f`` (its ``name``), ``group`` and ``value`` say whose records they are in a
    message.
    """
    kept = sum(r.score is not None for r in records)
    if kept >= MIN_SCORES:
        return
    who = f.name if group is None else f"{f.name} ({group} {value!r})"
    if not records:  # a tool's study or experiment that ran no trial yet
        raise check.InvalidArgument("path", f"{who} holds no trial; a search needs at least "
                                            f"{MIN_SCORES} scores")
    dropped = [r for r in records if r.score is None]
    if not dropped:
        raise check.InvalidArgument("path", f"{who} holds 1 score; a search needs at least "
                                            f"{MIN_SCORES}")
    why = f"{describe_dropped(count_reasons(dropped))}; first, {dropped[0].detail}"
    read = f"{len(records)} record{'s' if len(records) > 1 else ''}"
    if not kept:
        raise check.InvalidArgument("path", f"{who} holds no scores: {read} read, all dropped "
                                            f"({why})")
    raise check.InvalidArgument("path", f"{who} holds 1 score of {read}, too few for a search "
                                        f"(at least {MIN_SCORES}); {len(dropped)} dropped "
                                        f"({why})")


def count_reasons(dropped):
    """``{reason: count}`` of the dropped records, reasons in the order first met."""
    counts = {}
    for record in dropped:
        counts[record.reason] = counts.get(record.reason, 0) + 1
    return counts


def make_search(label, f, metric, records, timed, failed, failed_score, failed_basis, run=""):
    """The :class:`Search` of one model's ``records`` read from ``f``
    (:class:`~evpsim.io.records.File`), its failed trials counted as
    :func:`~evpsim.io.trials.count_failed` returned (``failed``, ``failed_score``,
    ``failed_basis``); ``timed`` says its records carry durations; ``run`` which run
    of its search they are (:attr:`Search.run`)."""
    kept = [r for r in records if r.score is not None]
    durations = np.array([r.duration for r in kept]) if timed else None
    flagged = {}
    for r in kept:
        if r.flag and not r.failed:
            flagged[r.flag] = flagged.get(r.flag, 0) + 1
    return Search(label=label, scores=np.array([r.score for r in kept]), durations=durations,
                  source=f.path.name, metric=metric, records=len(records),
                  dropped=count_reasons([r for r in records if r.score is None]),
                  durations_missing=int(np.isnan(durations).sum()) if timed else 0,
                  diverged_kept=flagged, failed=failed, failed_score=failed_score,
                  failed_basis=failed_basis, pruned=pruned_kept(records),
                  implied_time=f.implied_time, run=run)
