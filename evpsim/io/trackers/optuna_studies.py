"""Optuna studies: ``optuna:STORAGE``, one model per study, through Optuna's own API.

A storage is an RDB URL (``sqlite:///study.db``, ``postgresql://...``), a
SQLite file (``.db``, ``.sqlite``, ``.sqlite3``) or a journal file (any other
file, as :class:`optuna.storages.journal.JournalFileBackend` writes it).
Studies are listed with :func:`optuna.study.get_all_study_names` and read
with :func:`optuna.load_study`; nothing is written to the storage (a SQLite
file that does not exist is refused before Optuna would create it).

What each trial state makes of a trial: ``COMPLETE`` is scored;
``FAIL`` is a failed trial (Optuna keeps no value for it: counted at the
worst score by default, see ``failed``); ``PRUNED`` counts at its last
intermediate value by default (``pruned``); ``RUNNING`` and ``WAITING`` are
dropped and counted. ``datetime_start`` and ``datetime_complete`` give each
trial's duration. The study's direction is the scores' (a minimising study
reads as with ``minimize``).

The EVP curve assumes the trials were drawn independently (random search).
Optuna records no sampler in its storage, only traces of some: the grid
of ``GridSampler``, the generations of ``NSGAIISampler`` and
``NSGAIIISampler``, the state of ``QMCSampler`` and ``CmaEsSampler``. These
are named; so is a study's user attribute ``sampler``
(``study.set_user_attr("sampler", "RandomSampler")``), which a study can set
to say what it used; otherwise the sampler is *not recorded*. A
:class:`optuna.Study` given directly names its own sampler.
"""

from __future__ import annotations

import json
import numbers
import urllib.parse
from pathlib import Path

from ... import _validate as check
from ..trials import NOT_RECORDED
from ._common import (Trials, matched, need, no_field, no_location, not_open, searches,
                      sqlite_store, trial)

__all__ = ["read_optuna", "read_study", "PREFIX"]

#: how a command line names an Optuna storage
PREFIX = "optuna:"
#: suffixes of a SQLite file named without its URL
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: traces samplers leave in a study's or its trials' system attributes: (key prefix, sampler)
TRACES = (("grid_id", "GridSampler"), ("NSGAIISampler:", "NSGAIISampler"),
          ("NSGAIIISampler:", "NSGAIIISampler"), ("qmc:", "QMCSampler"),
          ("cma:", "CmaEsSampler"))


def read_optuna(storage, *, studies=None, field=None, pruned="last", failed="worst",
                diverged="keep", bounds=None, minimize=False):
    """Read the studies of an Optuna storage, one model per study.

    Parameters
    ----------
    storage : str
        An RDB URL (``sqlite:///study.db``), a SQLite file or a journal
        file (see the module's docstring).
    studies : str or list of str, optional
        The studies to read, by name or glob pattern (``"tpe-*"``: every
        study it matches, in the order of their names, numbers by value);
        default: every study in the storage that has trials, in the
        storage's order.
    field : str, optional
        The score: ``"value"`` (the objective's value, the default),
        ``"values_K"`` (objective K, 0-based, of a multi-objective study) or
        ``"user_attrs.KEY"`` (a user attribute the objective set).
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`. A study's
        direction holds for its objective values; ``minimize`` given for a
        maximising study, or studies of both directions, are refused.

    Returns
    -------
    list of Search
        One per study, labelled by its name, with ``sampler`` and
        ``minimize`` set.

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a storage that does not
        exist or does not open (``path``: a file that is not a SQLite
        database or a journal, an empty one, another program's, a SQLite
        file another program holds locked), a storage or study without
        trials, a study not in it, a pattern matching none, a study named
        twice (``studies``, listing those that are), a field that no trial
        has (``field``, listing the fields seen), the rules' errors; Optuna
        not installed.

    Examples
    --------
    >>> import optuna, tempfile
    >>> optuna.logging.set_verbosity(optuna.logging.ERROR)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> url = f"sqlite:///{tmp.name}/study.db"
    >>> study = optuna.create_study(study_name="mlp", storage=url, direction="maximize",
    ...                             sampler=optuna.samplers.RandomSampler(seed=0))
    >>> study.set_user_attr("sampler", "RandomSampler")
    >>> study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=4)
    >>> s, = read_optuna(url)
    >>> s.label, s.scores.size, s.sampler, s.minimize
    ('mlp', 4, 'RandomSampler', False)
    >>> tmp.cleanup()
    """
    optuna = need("optuna", "optuna", "an Optuna study")
    where = f"{PREFIX}{storage}"
    store = _open(optuna, storage, where)
    try:
        names = optuna.study.get_all_study_names(store)
    except json.JSONDecodeError:  # a journal's lines are JSON
        raise _not_journal(where, storage) from None
    except Exception as err:  # the storage's own errors (SQLAlchemy's, a journal's ...)
        raise not_open(where, err, "an Optuna storage") from None
    if not names:
        raise check.InvalidArgument("path", f"{where} holds no study")
    if studies is None:
        chosen = [name for name in names if store.get_n_trials(
            store.get_study_id_from_name(name))]
        if not chosen:
            raise check.InvalidArgument("path", f"{where} holds no trial: its studies "
                                                f"({', '.join(map(repr, names))}) ran none")
    else:
        chosen = matched(_names(studies), names, "studies", where)
    models = []
    for name in chosen:
        study = optuna.load_study(study_name=name, storage=store)
        study_id = store.get_study_id_from_name(name)
        models.append(_trials(study, field, where, store.get_study_system_attrs(study_id),
                              source=where))
    return searches(models, failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)


def read_study(study, *, field=None, pruned="last", failed="worst", diverged="keep",
               bounds=None, minimize=False):
    """Read an :class:`optuna.Study` object as one model (see :func:`read_optuna`).

    Its sampler is the study's user attribute ``sampler``, or the traces of
    one in its trials, else the study object's own (``study.sampler``): the
    sampler it ran with when it was created in this session, but Optuna's
    default (``TPESampler``) for a study loaded without one.

    Raises
    ------
    TypeError
        :class:`~evpsim._validate.InvalidType` when ``study`` is not an
        :class:`optuna.Study` (a storage is read by :func:`read_optuna`).
    """
    optuna = need("optuna", "optuna", "an Optuna study")
    if not isinstance(study, optuna.Study):
        raise check.InvalidType("study", f"study must be an optuna.Study, got "
                                         f"{type(study).__name__} {study!r:.80}: read a "
                                         f"storage with read_optuna(STORAGE)")
    model = _trials(study, field, f"study {study.study_name!r}", {},
                    source=f"the study {study.study_name!r}", own=type(study.sampler).__name__)
    return searches([model], failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)[0]


def _names(studies):
    items = [studies] if isinstance(studies, str) else studies
    if not isinstance(items, (list, tuple)) or not items:
        raise check.InvalidArgument("studies", f"studies must be a name or a non-empty list of "
                                               f"names, got {studies!r}")
    return [check.string(s, "studies") for s in items]


def _open(optuna, location, where):
    """The storage at ``location``; a file that is not there, or not Optuna's, is refused
    before Optuna would create its tables, and a SQLite file is opened read-only."""
    if location == "":
        raise no_location(PREFIX, "storage", "STORAGE", ("study.db", "sqlite:///study.db"))
    location = check.string(location, "path")
    if "://" in location:
        url, path = location, None
        if location.startswith("sqlite:"):
            path = Path(location.split("://", 1)[1].split("?", 1)[0].removeprefix("/"))
            url = location if "?" in location else _read_only(path)
    else:
        path = Path(location)
        url = _read_only(path) if path.suffix.lower() in SQLITE_SUFFIXES else None
    if url is not None and path is not None:
        sqlite_store(path, where, "optuna")
    elif path is not None and not path.is_file():
        what = "is a folder, not a storage file" if path.is_dir() else "does not exist"
        raise check.InvalidArgument("path", f"{where}: {str(path)!r} {what}")
    try:
        if url is None:
            journal = optuna.storages.journal
            return optuna.storages.JournalStorage(journal.JournalFileBackend(str(path)))
        return optuna.storages.RDBStorage(url, skip_table_creation=True)
    except json.JSONDecodeError:  # a journal's lines are JSON
        raise _not_journal(where, location) from None
    except Exception as err:  # the storage's own errors
        raise not_open(where, err, "an Optuna storage") from None


def _read_only(path):
    """The URL that opens the SQLite file at ``path`` read-only."""
    return f"sqlite:///file:{urllib.parse.quote(str(path.resolve()))}?mode=ro&uri=true"


def _not_journal(where, location):
    """The error for a file read as a journal whose lines are not JSON."""
    return check.InvalidArgument("path", f"{where}: {location!r} is not an Optuna journal "
                                         f"file (its lines are not JSON), nor a SQLite file "
                                         f"named {', '.join(SQLITE_SUFFIXES)}")


def _trials(study, field, where, system_attrs, *, source, own=None):
    """A study's trials: their records, the direction of the field and the sampler."""
    field = "value" if field is None else check.string(field, "field")
    directions = study.directions
    trials = study.get_trials(deepcopy=False)
    seen = {"value"} if len(directions) == 1 else {f"values_{k}" for k in range(len(directions))}
    for t in trials:
        seen.update(f"user_attrs.{k}" for k in t.user_attrs)
    label = f"study {study.study_name!r} of {where}" if own is None else where
    if field not in seen:
        if field == "value" and len(directions) > 1:
            raise check.InvalidArgument("field", f"field 'value' is one objective's, and "
                                                 f"{label} has {len(directions)}: choose one of "
                                                 f"{', '.join(sorted(seen))}")
        raise no_field(field, seen, label)
    if field.startswith("user_attrs."):
        minimize, key, index = None, field.removeprefix("user_attrs."), None
    else:
        index = 0 if field == "value" else int(field.removeprefix("values_"))
        minimize, key = directions[index].name == "MINIMIZE", None
    records = [_record(t, index, key, field) for t in trials]
    return Trials(study.study_name, source, field, records,
                  sampler=_sampler(study, trials, system_attrs, own), minimize=minimize,
                  pruning=True)


def _record(t, index, key, field):
    """A trial's record: its score (the last intermediate value of a pruned trial without
    one), state and duration."""
    if key is not None:
        score = t.user_attrs.get(key)
    elif t.values is not None:
        score = t.values[index]
    elif t.state.name == "PRUNED" and t.intermediate_values:
        score = t.intermediate_values[max(t.intermediate_values)]
    else:
        score = None
    if score is not None and (isinstance(score, bool) or not isinstance(score, numbers.Real)):
        score = None
    duration = (t.datetime_complete - t.datetime_start).total_seconds() \
        if t.datetime_start is not None and t.datetime_complete is not None else float("nan")
    return trial(t.number, None if score is None else float(score), t.state.name,
                 duration=duration, field=field,
                 missing=f"trial {t.number} ({t.state.name}) has no number in {field}")


def _sampler(study, trials, system_attrs, own):
    """The sampler a study's attributes name or its traces show, else its own or not
    recorded."""
    named = study.user_attrs.get("sampler")
    if isinstance(named, str) and named:
        return named
    keys = set(system_attrs)
    for t in trials:
        keys.update(t.system_attrs)
    for prefix, sampler in TRACES:
        if any(k.startswith(prefix) for k in keys):
            return sampler
    return own or NOT_RECORDED
