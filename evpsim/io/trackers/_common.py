"""What the readers of tracking tools share: the optional package, a trial's record, and
one model's trials made a :class:`~evpsim.io.search.Search` by the rules of score
files."""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
import math
import re
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from ... import _validate as check
from ..formats.jsonlines import REDUCTIONS, reduce_curve
from ..records import DIVERGED, FIELD_MISSING, File, Record
from ..search import enough, make_search
from ..trials import (DIVERGED_RULES, apply_states, check_bounds, count_failed, direction,
                      diverged_rule, failed_rule, pruned_rule, state_flag, state_kind)

__all__ = ["Trials", "need", "trial", "searches", "unknown_name", "no_field", "key_and_reduce",
           "not_open", "named_once", "no_location", "sqlite_store", "matched", "matches",
           "is_pattern", "natural_key"]


@dataclass
class Trials:
    """One model's trials as a tracker recorded them.

    Attributes
    ----------
    label : str
        The model's name (a study's, an experiment's, a run folder's ...).
    source : str
        Where they were read, as the header shows it.
    metric : str
        The field of the scores.
    records : list
        One record per trial (:func:`trial`), in the tool's order.
    sampler : str
        The search's sampler where the tool records it (see
        :attr:`~evpsim.io.search.Search.sampler`).
    minimize : bool or None
        The direction the tool recorded, or None.
    timed : bool
        The tool recorded the trials' durations.
    pruning : bool
        The tool records pruned trials as such (Optuna does; a Ray Tune
        trial stopped early by its scheduler looks like any other).
    run : str
        Which run of the model's search these trials are, where a run
        field tells runs apart (see :attr:`~evpsim.io.search.Search.run`).
    """

    label: str
    source: str
    metric: str
    records: list
    sampler: str = ""
    minimize: bool | None = None
    timed: bool = True
    pruning: bool = False
    run: str = ""


#: the package each extra of the readers brings
EXTRAS = {"optuna": "optuna", "mlflow": "mlflow-skinny", "tensorboard": "tensorboard"}
#: the tables that make a SQLite file each tool's store, and the store as messages name it
STORES = {"optuna": ({"studies", "trials"}, "an Optuna storage"),
          "mlflow": ({"experiments", "runs"}, "an MLflow tracking store")}
#: seconds to wait for a SQLite file another program holds locked
LOCK_WAIT = 1.0


def need(module, extra, what):
    """Import an optional package, or say in one line which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise check.InvalidArgument("path", f"reading {what} needs {EXTRAS[extra]}, evpsim's "
                                            f"{extra!r} extra: pip install {EXTRAS[extra]}, or "
                                            f"evpsim with [{extra}]") from None


def trial(number, score, state="", *, duration=math.nan, missing="", reduce=None,
          field="", key="state"):
    """A trial's record.

    Its score (None when it has none, saying why in ``missing``), or the
    list of its checkpoints reduced by ``reduce`` (as a learning curve of
    :func:`~evpsim.io.searchfiles.read_searches`); its state as recorded
    under ``key`` (``state``, ``status``); its duration in seconds.
    """
    record = Record(number, duration=duration)
    where = f"trial {number}"
    if score is None:
        record.drop(FIELD_MISSING, missing)
    elif isinstance(score, list):
        reduce_curve(record, score, field, reduce, where)
    elif not math.isfinite(score):
        record.drop(DIVERGED, f"{field} is {score!r}, not a finite number")
    else:
        record.score = check.file_score(score, where, field)
    if state:
        record.flag = state_flag([(key, state)], named=True)
        record.state = state_kind(state)
    return record


def searches(models, *, failed="worst", diverged="keep", pruned="last", bounds=None,
             minimize=False):
    """The models' trials made searches, by the rules of
    :func:`~evpsim.io.searchfiles.read_searches` (``failed``, ``diverged``, ``bounds``,
    ``minimize``) and :mod:`evpsim.io.trials` (``pruned``); a model's recorded direction
    is its own (see :func:`~evpsim.io.trials.direction`)."""
    failed = failed_rule(failed)
    diverged = check.choice(diverged, "diverged", DIVERGED_RULES)
    pruned = pruned_rule(pruned)
    minimize = direction(models, check.boolean(minimize, "minimize"))
    for model in models:
        apply_states(model.records, pruned)
        for record in model.records:
            diverged_rule(record, diverged)
    bounds = check_bounds(bounds, [r for m in models for r in m.records], failed)
    out = []
    for model in models:
        run = f" run {model.run!r}" if model.run else ""
        where = File(Path(model.label), f"{model.label}{run} ({model.source})", "", "tracker")
        count = count_failed(where, model.records, None, None, failed, bounds, minimize)
        enough(where, model.records, None, None)
        search = make_search(model.label, where, model.metric, model.records, model.timed,
                             *count)
        out.append(replace(search, source=model.source, sampler=model.sampler,
                           minimize=model.minimize, run=model.run,
                           pruned=search.pruned if model.pruning else None))
    return out


def unknown_name(argument, name, known, where):
    """The error for a study or experiment ``name`` not in ``where``, listing ``known``."""
    listed = ", ".join(repr(k) for k in known) if known else "none"
    return check.InvalidArgument(argument, f"{argument} {name!r} is not in {where}; there: "
                                           f"{listed}")


def no_field(field, seen, where, *, argument="field", trials="trial"):
    """The error for a field (or ``argument``) that no trial of ``where`` has, listing the
    fields seen."""
    listed = ", ".join(sorted(seen)[:40]) + (", ..." if len(seen) > 40 else "") if seen \
        else "none"
    return check.InvalidArgument(argument, f"{argument} {field!r} is in no {trials} of "
                                           f"{where}; the fields seen: {listed}")


def key_and_reduce(field, reduce, seen, where, *, trials, often):
    """``field`` and ``reduce`` of a source whose trials log each key ``often`` (``"once
    per step"``): both needed, and the field one of those ``seen``."""
    if field is None:
        raise check.InvalidArgument("field", f"field must name the key of the score: {where} "
                                             f"logged {', '.join(sorted(seen)) or 'none'}")
    check.string(field, "field")
    if reduce is None:
        raise check.InvalidArgument("reduce", f"reduce is needed: a {trials} logs {field!r} "
                                              f"{often}; choose {', '.join(REDUCTIONS)}")
    check.choice(reduce, "reduce", REDUCTIONS)
    if field not in seen:
        raise no_field(field, seen, where, trials=trials.split()[-1])


def not_open(where, err, what):
    """The error for a store that does not open as ``what``: the first line of the tool's
    own message."""
    first = next((ln.strip() for ln in str(err).splitlines() if ln.strip()), type(err).__name__)
    return check.InvalidArgument("path", f"{where} does not open as {what} ({first[:200]})")


def named_once(names, argument):
    """Refuse a list of studies or experiments that names one twice (its models would be
    one model read twice)."""
    seen = set()
    for name in names:
        if name in seen:
            raise check.InvalidArgument(argument, f"{argument} names {name!r} twice: name "
                                                  f"each once")
        seen.add(name)
    return names


def is_pattern(name):
    """Whether a study's or experiment's name as given is a glob pattern (``tpe-*``)."""
    return any(c in name for c in "*?[")


def natural_key(name):
    """A name's sort key with its numbers by value: ``tpe-2`` before ``tpe-10``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", str(name)) if part]


def matches(name, pattern, known=()):
    """Whether ``name`` is what ``pattern`` names: the name itself, or a name its glob
    pattern matches (a pattern that is itself one of the ``known`` names names that one
    alone)."""
    if name == pattern:
        return True
    return is_pattern(pattern) and pattern not in known and fnmatch.fnmatchcase(name, pattern)


def matched(patterns, known, argument, where):
    """The names of ``known`` that ``patterns`` name: names, or glob patterns such as
    ``tpe-*`` (:func:`matches`; a pattern's names in the order of :func:`natural_key`),
    each pattern's in turn.

    A name not in ``known``, a pattern matching none of them, a name or pattern given
    twice and a name matched by two patterns are refused (``argument`` names them).
    """
    named_once([check.string(p, argument) for p in patterns], argument)
    out, by = [], {}
    for pattern in patterns:
        hits = sorted((k for k in known if matches(k, pattern, known)), key=natural_key)
        if not hits:
            if not is_pattern(pattern):
                raise unknown_name(argument, pattern, known, where)
            listed = ", ".join(repr(k) for k in known) if known else "none"
            raise check.InvalidArgument(argument, f"{argument} {pattern!r} matches nothing in "
                                                  f"{where}; there: {listed}")
        for hit in hits:
            if hit in by:
                raise check.InvalidArgument(argument, f"{argument}: {hit!r} is named by both "
                                                      f"{by[hit]!r} and {pattern!r}: name "
                                                      f"each once")
            by[hit] = pattern
        out += hits
    return out


def no_location(prefix, what, form, examples):
    """The error for ``prefix`` (``optuna:``) given with nothing after it: what it names
    (``what``), written as ``prefix + form``, such as ``prefix + e`` of ``examples``."""
    return check.InvalidArgument("path", f"{prefix!r} names no {what}: give {prefix}{form}, "
                                         f"such as {' or '.join(prefix + e for e in examples)}")


def sqlite_store(path, where, kind):
    """Refuse a SQLite file that is not ``kind``'s store (a key of :data:`STORES`),
    read without writing to it: one that is not there, not a database, empty, locked by
    another program, or holding another program's tables (the other tool's store is
    named, with how to read it)."""
    tables, what = STORES[kind]
    if not path.is_file():
        shown = "is a folder, not a database" if path.is_dir() else "does not exist"
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} {shown}")
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                                timeout=LOCK_WAIT)) as db:
            found = {row[0] for row in db.execute("SELECT name FROM sqlite_master "
                                                  "WHERE type = 'table'")}
    except sqlite3.OperationalError as err:
        if "locked" not in str(err):
            raise not_open(where, err, what) from None
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} is locked by another "
                                            f"program (SQLite: {err}): read it once that "
                                            f"program is done") from None
    except sqlite3.DatabaseError as err:
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} is not a SQLite database "
                                            f"({err}), so not {what}") from None
    if tables <= found:
        return
    other = next((k for k, (t, _) in STORES.items() if k != kind and t <= found), None)
    if other is not None:
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} is {STORES[other][1]}, "
                                            f"not {what}: read it as "
                                            f"{other}:sqlite:///{path}")
    if not found:
        size = "0 bytes" if path.stat().st_size == 0 else "no tables"
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} is an empty SQLite "
                                            f"database ({size}), not {what}")
    raise check.InvalidArgument("path", f"{where}: {str(path)!r} is not {what}: it holds "
                                        f"another program's tables "
                                        f"({', '.join(sorted(found)[:10])})")
