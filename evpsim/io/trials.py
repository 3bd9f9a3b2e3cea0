"""What a trial's state makes of it: scored, pruned, or left out as unfinished.

Hyperparameter-search tools record each trial's state: Optuna's
``COMPLETE``, ``FAIL``, ``PRUNED``, ``RUNNING`` and ``WAITING``; MLflow's
``FINISHED``, ``FAILED``, ``KILLED``, ``RUNNING`` and ``SCHEDULED``; W&B's
``finished``, ``failed``, ``crashed``, ``killed`` and ``running``; Ray Tune's
``TERMINATED``, ``ERROR``, ``RUNNING`` and ``PENDING``. A trial that failed
follows the failed-trial rule of :func:`evpsim.read_searches`; this module
says what becomes of the others:

* a *pruned* trial (stopped early by the search's pruner) is a trial the
  search ran and paid for, stopped before its end: by default
  (``pruned="last"``) it counts at its last intermediate value, the score
  it reached (Optuna records it as the trial's value); ``"worst"`` makes it
  a failed trial (counted as the ``failed`` rule says, at the worst score
  by default); ``"drop"`` leaves it out. A pruned trial that reported no
  value is a failed trial under ``"last"`` too.
* a trial still *running* or *waiting* has no result yet: it is left out and
  counted.

Records here are the readers' own (:mod:`.searchfiles`): objects with
``score``, ``reason``, ``failed`` and ``state`` attributes and a ``drop``
method.
"""

from __future__ import annotations

from .. import _validate as check

__all__ = ["PRUNED_RULES", "PRUNED", "RUNNING", "WAITING", "RANDOM_SAMPLERS", "NOT_RECORDED",
           "state_kind", "pruned_rule", "apply_states", "pruned_kept", "describe_sampler",
           "direction"]

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


def describe_sampler(sampler):
    """What a search's sampler means for the curve, as a clause.

    Examples
    --------
    >>> describe_sampler("RandomSampler")
    'sampler RandomSampler (random search)'
    >>> describe_sampler("not recorded")
    'sampler not recorded: the curve assumes random search'
    """
    if sampler == NOT_RECORDED:
        return f"sampler {NOT_RECORDED}: the curve assumes random search"
    if sampler in RANDOM_SAMPLERS:
        return f"sampler {sampler} (random search)"
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
