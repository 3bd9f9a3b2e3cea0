"""What a trial's record makes of it: scored, failed, pruned, or left out.

Hyperparameter-search tools record each trial's state: Optuna's
``COMPLETE``, ``FAIL``, ``PRUNED``, ``RUNNING`` and ``WAITING``; MLflow's
``FINISHED``, ``FAILED``, ``KILLED``, ``RUNNING`` and ``SCHEDULED``; W&B's
``finished``, ``failed``, ``crashed``, ``killed`` and ``running``; Ray Tune's
``TERMINATED``, ``ERROR``, ``RUNNING`` and ``PENDING``. Every reader applies
the same rules to its records (:class:`evpsim.io.records.Record`):

* a *failed* trial, one that ran but gave no score (a NaN or null score, an
  empty learning curve, a failed state or a diverged flag without a score),
  is a trial the search spent: by :data:`FAILED_RULES` it counts at the
  worst score (:func:`count_failed`) or is dropped, or it counts at a score
  given (see :func:`evpsim.read_searches`);
* a record flagged as diverged (:data:`DIVERGED_FLAGS`) or failed (a state
  of :data:`FAILED_STATES`) is kept or dropped by :data:`DIVERGED_RULES`
  (:func:`diverged_rule`);
* a *pruned* trial (stopped early by the search's pruner) is a trial the
  search ran and paid for, stopped before its end: by default
  (``pruned="last"``) it counts at its last intermediate value, the score
  it reached (Optuna records it as the trial's value); ``"worst"`` makes it
  a failed trial (counted as the ``failed`` rule says, at the worst score
  by default); ``"drop"`` leaves it out. A pruned trial that reported no
  value is a failed trial under ``"last"`` too.
* a trial still *running* or *waiting* has no result yet: it is left out and
  counted.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check
from .lattice import UNIT, unit_scale
from .records import COLUMN_MISSING, DIVERGED, EMPTY_CELL, EMPTY_CURVE, FIELD_MISSING, FLAGGED

__all__ = ["PRUNED_RULES", "PRUNED", "RUNNING", "WAITING", "RANDOM_SAMPLERS", "NOT_RECORDED",
           "DIVERGED_FLAGS", "DIVERGED_RULES", "FAILED_RULES", "STATE_FIELDS", "FAILED_STATES",
           "state_kind", "state_flag", "pruned_rule", "apply_states", "pruned_kept",
           "failed_rule", "check_bounds", "diverged_rule", "count_failed", "describe_sampler",
           "is_adaptive", "NOT_ADAPTIVE",
           "direction", "NO_BOUNDS"]

#: ``bounds`` that say the metric has no known range: nothing is taken from the scores
NO_BOUNDS = "none"

#: JSON Lines fields whose value ``true`` flags a run that diverged (opda's results files)
DIVERGED_FLAGS = ("nan_train_loss",)
#: what becomes of a flagged record (see :func:`evpsim.read_searches`)
DIVERGED_RULES = ("keep", "drop")
#: what becomes of a failed trial, besides a score to count it at (see
#: :func:`evpsim.read_searches`)
FAILED_RULES = ("worst", "drop")
#: CSV columns and JSON Lines fields (any case) holding a trial's state (Optuna: state;
#: W&B: State; MLflow, Ray Tune: status)
STATE_FIELDS = ("state", "status")
#: states (any case, after an optional ``TrialState.``) of a trial that failed
FAILED_STATES = ("fail", "failed", "error", "crashed", "killed")
# reasons for which a record without a score is a failed trial; the other reasons
# (text that is not a number, a line that is not JSON ...) are records that cannot be read
FAILED_REASONS = (EMPTY_CURVE, DIVERGED)
# reasons that make a flagged record (diverged, a failed state) a failed trial too
NO_SCORE = (FIELD_MISSING, COLUMN_MISSING, EMPTY_CELL)

#: what becomes of a pruned trial (see the module's docstring)
PRUNED_RULES = ("last", "worst", "drop")
#: the kinds of state this module acts on, which are also the reasons counted
PRUNED = "pruned"
RUNNING = "still running"
WAITING = "waiting to run"
#: samplers that draw trials independently at random (Optuna's, Ray Tune's default, a
#: W&B sweep's method)
RANDOM_SAMPLERS = ("RandomSampler", "BasicVariantGenerator", "random")
#: the sampler of a tool that records none
NOT_RECORDED = "not recorded"
#: samplers that are not random search, but do not adapt a trial to the earlier ones
#: either (a grid, a low-discrepancy sequence): their trials are not drawn independently,
#: and the curve's warning says so, but a single study of them is no run of an adaptive
#: search
NOT_ADAPTIVE = ("GridSampler", "QMCSampler")
#: states (any case, after an optional ``TrialState.``) of each kind
_KINDS = {PRUNED: ("pruned",), RUNNING: ("running",),
          WAITING: ("waiting", "pending", "queued", "scheduled")}


def state_kind(state):
    """The kind of a recorded state: :data:`PRUNED`, :data:`RUNNING`, :data:`WAITING`, or
    ``""`` for any other (finished, failed, unknown).

    Examples
    --------
    >>> state_kind("TrialState.PRUNED"), state_kind("running"), state_kind("COMPLETE")
    ('pruned', 'still running', '')
    """
    if not isinstance(state, str):
        return ""
    bare = state.strip().lower().removeprefix("trialstate.")
    return next((kind for kind, names in _KINDS.items() if bare in names), "")


def state_flag(items, *, named=False):
    """``"state FAIL"`` when one of ``(key, value)`` is a state field saying the trial
    failed (see :data:`STATE_FIELDS`; any key when ``named``: a field named as the
    trials' state), else ``""``."""
    for key, value in items:
        if isinstance(key, str) and (named or key.lower() in STATE_FIELDS) \
                and isinstance(value, str):
            state = value.strip()
            bare = state.lower().removeprefix("trialstate.")
            if bare in FAILED_STATES:
                return f"{key} {state}"
    return ""


def pruned_rule(pruned):
    """``pruned`` checked: one of :data:`PRUNED_RULES`."""
    return check.choice(pruned, "pruned", PRUNED_RULES)


def apply_states(records, pruned):
    """Apply the rules of the trials' states to records whose ``state`` is set.

    Unfinished trials are dropped (counted by their kind); pruned ones are
    kept at their score, made failed trials or dropped, by ``pruned`` (see
    the module's docstring).
    """
    for record in records:
        if record.state in (RUNNING, WAITING):
            record.score = None
            record.drop(record.state, f"the trial is {record.state}")
        elif record.state == PRUNED:
            if pruned != "last":
                record.score = None
            if record.score is None:
                record.drop(PRUNED, "the trial was pruned" + (
                    "" if pruned != "last" else " before reporting a value"))
                if pruned != "drop":
                    record.failed = PRUNED


def pruned_kept(records):
    """How many pruned trials count at the score they reached; None when no record has a
    state (nothing says whether a trial was pruned)."""
    if all(r.state is None for r in records):
        return None
    return sum(r.state == PRUNED and r.score is not None and not r.failed for r in records)


# --- failed trials -------------------------------------------------------------------------

def failed_rule(failed):
    """``failed``: ``"worst"``, ``"drop"``, or a finite score."""
    if isinstance(failed, str):
        return check.choice(failed, "failed", FAILED_RULES)
    if isinstance(failed, (bool, np.bool_)) or not isinstance(failed, (int, float, np.number)):
        raise check.InvalidType("failed", f"failed must be 'worst', 'drop' or a score, got "
                                          f"{failed!r}")
    value = check.number(failed, "failed")
    if abs(value) > check.MAX_SCORE:
        raise check.InvalidArgument("failed", f"failed must lie within +-{check.MAX_SCORE:.0e}, "
                                              f"got {failed!r}")
    return value


def check_bounds(bounds, records, failed):
    """``bounds`` checked against every score read, and a ``failed`` score within them;
    None (the range found from the scores, :func:`count_failed`) and :data:`NO_BOUNDS`
    pass as they are."""
    if bounds is None or (isinstance(bounds, str) and bounds == NO_BOUNDS):
        return bounds
    scores = [r.score for r in records if r.score is not None]
    lo, hi = check.bounds(bounds, min(scores, default=math.inf), max(scores, default=-math.inf),
                          "the scores")
    if not isinstance(failed, str) and not lo <= failed <= hi:
        raise check.InvalidArgument("failed", f"failed {failed:g} lies outside bounds ({lo:g}, "
                                              f"{hi:g}): a failed trial counts at a score the "
                                              f"metric can take")
    return lo, hi


def diverged_rule(record, diverged):
    """Drop a record flagged as diverged or failed when ``diverged`` is ``"drop"``."""
    if record.flag and diverged == "drop" and (record.score is not None or _failure(record)):
        record.score = None
        record.drop(f"{FLAGGED} ({record.flag})",
                    f"{record.flag} is true (the run diverged)"
                    if record.flag in DIVERGED_FLAGS else f"{record.flag} (the run failed)")


def _failure(record):
    """Why a record is a failed trial (a trial that ran but gave no score), or ``""``."""
    if record.score is not None or record.reason.startswith(FLAGGED):
        return ""
    if record.reason in FAILED_REASONS:
        return record.reason
    if record.failed:  # made a failed trial by its state (a pruned trial, apply_states)
        return record.failed
    return f"{record.flag}, no score" if record.flag and record.reason in NO_SCORE else ""


def count_failed(f, records, group, value, failed, bounds, minimize):
    """Count a model's failed trials by ``failed``: ``(counts, score, basis)``.

    Each failed record is given the score it counts at, or left dropped.
    ``f`` (its ``name``), ``group`` and ``value`` say whose trials they are
    in a message.
    """
    failures = [(r, _failure(r)) for r in records]
    failures = [(r, why) for r, why in failures if why]
    if not failures:
        return {}, None, ""
    if failed == "drop":
        score, basis = None, ""
    elif failed != "worst":
        score, basis = failed, "given"
    elif bounds is not None and bounds != NO_BOUNDS:
        score, basis = (bounds[1], "the upper end of bounds") if minimize else \
            (bounds[0], "the lower end of bounds")
    else:
        observed = [r.score for r in records if r.score is not None]
        if not observed:
            who = f.name if group is None else f"{f.name} ({group} {value!r})"
            every = "its only trial" if len(records) == 1 else \
                f"all {len(records)} of its trials"
            raise check.InvalidArgument("failed", f"{who}: {every} failed, so no score was "
                                                  f"observed to count failed trials at: give "
                                                  f"bounds=(lo, hi) (the worst score is then "
                                                  f"its {'upper' if minimize else 'lower'} "
                                                  f"end), or failed=SCORE")
        scale = unit_scale(observed) if bounds is None else None
        if scale is not None:
            end = "upper" if minimize else "lower"
            score = UNIT[1] if minimize else UNIT[0]
            basis = (f"the {end} end of [0, 1], the range of scores on a lattice of step "
                     f"{scale.step_text}")
        else:
            score, basis = (max(observed), "the highest observed") if minimize else \
                (min(observed), "the lowest observed")
    counts = {}
    for record, why in failures:
        counts[why] = counts.get(why, 0) + 1
        record.score, record.failed = score, why
    return counts, score, basis


def is_adaptive(sampler):
    """Whether a recorded sampler adapts each trial to the earlier ones (TPE, CMA-ES,
    Gaussian processes, NSGA, a search algorithm other than Ray Tune's default): one that
    is recorded, and neither random search nor one of :data:`NOT_ADAPTIVE`.

    Examples
    --------
    >>> is_adaptive("TPESampler"), is_adaptive("RandomSampler"), is_adaptive("not recorded")
    (True, False, False)
    """
    return bool(sampler) and sampler != NOT_RECORDED and sampler not in RANDOM_SAMPLERS \
        and sampler not in NOT_ADAPTIVE


def describe_sampler(sampler, curve="V"):
    """What a search's sampler means for its curve, as a clause.

    ``curve`` says what is drawn of its trials: ``"V"``, a curve that
    treats them as independent draws (the default: an adaptive sampler is
    warned of); ``"observed"`` (one run's best so far) or ``"runs"`` (a
    curve across runs), which assume no such thing.

    Examples
    --------
    >>> describe_sampler("RandomSampler")
    'sampler RandomSampler (random search)'
    >>> describe_sampler("not recorded")
    'sampler not recorded: the curve assumes random search'
    >>> describe_sampler("TPESampler", "runs")
    'sampler TPESampler (adaptive: each trial depends on the earlier ones)'
    """
    if sampler in RANDOM_SAMPLERS:
        return f"sampler {sampler} (random search)"
    if curve != "V":
        return (f"sampler {sampler} (adaptive: each trial depends on the earlier ones)"
                if is_adaptive(sampler) else f"sampler {sampler}")
    if sampler == NOT_RECORDED:
        return f"sampler {NOT_RECORDED}: the curve assumes random search"
    return (f"sampler {sampler}: warning: not random search, which the curve assumes "
            f"(independent draws)")


def direction(models, minimize=False):
    """Whether the scores are losses: ``minimize``, or the direction the tools recorded.

    Models (searches, or a tracker's trials) that carry ``minimize`` (True
    or False, as an Optuna study records its direction) set it; the others
    (None) follow ``minimize``. Models recorded in opposite directions, or
    ``minimize`` given for a model recorded as maximised, are refused: the
    curves of one call are all of the best, or all of the lowest.

    Examples
    --------
    >>> from types import SimpleNamespace as M
    >>> direction([M(label="a", minimize=True), M(label="b", minimize=None)])
    True
    >>> direction([M(label="a", minimize=None)], minimize=True)
    True
    """
    recorded = {}
    for m in models:
        if getattr(m, "minimize", None) is not None:
            recorded.setdefault(bool(m.minimize), []).append(str(m.label))
    if len(recorded) > 1:
        raise check.InvalidArgument("minimize", f"minimize cannot follow the searches: "
                                                f"{', '.join(recorded[True])} minimise"
                                                f"{'s' if len(recorded[True]) == 1 else ''} and "
                                                f"{', '.join(recorded[False])} maximise"
                                                f"{'s' if len(recorded[False]) == 1 else ''}; "
                                                f"read them apart")
    if recorded.get(False) and minimize:
        raise check.InvalidArgument("minimize", f"minimize is given, but "
                                                f"{', '.join(recorded[False])} maximise"
                                                f"{'s' if len(recorded[False]) == 1 else ''} "
                                                f"the score as recorded")
    return bool(recorded.get(True)) or minimize
