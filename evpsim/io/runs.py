"""Runs of a search: one search run several times (seeds), each run its trials in order.

The trials of an adaptive search (TPE, Bayesian optimisation, Hyperband)
depend on the earlier ones, so the unit of replication is the run: k runs
with different seeds are k independent draws of its best-so-far curve
(:func:`evpsim.runs_curve`). :func:`read_runs` reads them where the tools
keep them, each run by the reader of its tool and the rules of
:mod:`evpsim.io.trials` (failed trials counted at the worst score of their
own run, pruned ones at their last value, unfinished ones left out), its
trials in the order the tool records them:

* an Optuna storage: each study is a run, its trials by number; each name
  or glob pattern of ``studies`` is a search (``tpe-*``: every study it
  matches), and without ``studies`` every study with trials is a run of
  one search;
* an MLflow store: each experiment is a run (each pattern of
  ``experiments`` a search), or ``run_field`` (``params.seed``) tells the
  runs of each model apart; runs oldest first;
* CSV and JSON Lines files: ``run_field`` (a column or field) tells the
  runs of each model apart, rows in file order; or each file is a run;
* Ray Tune experiment folders (trials by trial ID) and folders of
  TensorBoard runs (each run folder a trial, in the order they started):
  each folder is a run.

A path given is one search; a glob pattern of paths (``'ray/tpe-*'``,
quoted so the shell leaves it) is one search whose runs are the files or
folders it matches; the runs a glob names are in the order of their names,
numbers by value (``tpe-2`` before ``tpe-10``).
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

from .. import _validate as check
from .trials import NOT_RECORDED, RANDOM_SAMPLERS, direction

__all__ = ["SearchRuns", "read_runs", "MIN_RUNS"]

#: fewest runs a search's curve across runs takes
MIN_RUNS = 2


@dataclass(frozen=True)
class SearchRuns:
    """One search's runs as read.

    Attributes
    ----------
    label : str
        The search's name.
    runs : tuple of Search
        One per run, each its scores in the order its trials ran.
    given : str
        How the search was named: a study or experiment pattern, a path or
        its glob pattern, a model told into runs by a run field.
    """

    label: str
    runs: tuple
    given: str

    @property
    def sampler(self):
        """The sampler the runs record (:attr:`~evpsim.io.search.Search.sampler`): all
        the same (:func:`read_runs` checks it), ``""`` for files."""
        return self.runs[0].sampler

    @property
    def random_search(self):
        """Whether the runs record a sampler that draws trials independently at random."""
        return self.sampler in RANDOM_SAMPLERS

    @property
    def names(self):
        """Each run's name: the value of its run field, else its study, experiment or
        path."""
        return [r.run or r.label for r in self.runs]


def read_runs(results, *, studies=None, experiments=None, run_field=None, labels=None,
              **options):
    """Read the runs of one or more searches, one :class:`SearchRuns` each.

    Parameters
    ----------
    results : str, path, or a list of them
        Each one search (see the module's docstring): ``optuna:STORAGE``,
        ``mlflow:TRACKING_URI``, a file or folder, or a glob pattern of
        files or folders.
    studies, experiments : str or list of str, optional
        Optuna studies and MLflow experiments by name or glob pattern:
        each one search, the studies or experiments it names its runs.
    run_field : str, optional
        The column (CSV), field (JSON Lines) or ``params.KEY`` /
        ``tags.KEY`` (MLflow) whose value names each trial's run.
    labels : str or list of str, optional
        One name per search (default: the pattern, the path's name, or the
        model's label).
    **options
        As :func:`evpsim.io.shipped.read_results` takes them (``field``,
        ``column``, ``group``, ``failed``, ``pruned``, ``bounds``,
        ``minimize`` ...): every run is read by them.

    Returns
    -------
    list of SearchRuns

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a search of fewer than
        2 runs (``runs``), runs of one search that record different
        samplers (``runs``), a glob pattern that matches nothing
        (``path``), ``group`` without ``run_field`` (``group``), shipped
        searches and standard input, which hold one run (``path``), the
        readers' own errors.
    """
    items = list(results) if isinstance(results, (list, tuple)) else [results]
    if not items:
        raise check.InvalidArgument("path", "path names no results: give at least one")
    if options.get("group") is not None and run_field is None:
        raise check.InvalidArgument("group", "group with runs needs run_field=FIELD, the "
                                             "field naming each trial's run; or give each "
                                             "search's runs as studies, experiments or files")
    if options.get("select") is not None:
        raise check.InvalidArgument("select", "select applies to the models of one search "
                                              "each; with runs, name the searches as results")
    found = _read(items, studies=studies, experiments=experiments, run_field=run_field,
                  **options)
    direction([run for _, _, runs in found for run in runs], options.get("minimize") or False)
    searches = [SearchRuns(label, tuple(runs), given) for label, given, runs in found]
    searches = _relabel(searches, labels)
    for search in searches:
        _check_search(search)
    return searches


def _read(items, *, studies, experiments, run_field, **options):
    """``[(label, given, runs)]`` of every search: the trackers' first, so that a
    direction they record (a minimising study's) holds for the files read after them."""
    from .shipped import PREFIX, read_results
    from .trackers.sources import NAMES, source_kind

    kinds = [source_kind(item) if isinstance(item, str) and _is_tracker(item) else None
             for item in items]
    for item in items:
        if isinstance(item, str) and (item.startswith(PREFIX) or item == "-"):
            raise check.InvalidArgument("path", f"{item!r} holds one search run once: give "
                                                f"each search's runs as studies, experiments "
                                                f"or files")
    for name, value, kind in (("studies", studies, "optuna"),
                              ("experiments", experiments, "mlflow")):
        if value is not None and kind not in kinds:
            raise check.InvalidArgument(name, f"{name} applies to {NAMES[kind]}, and none is "
                                              f"given")
    read = {}
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if kind is not None:
            read[index] = _tracker(item, kind, studies, experiments, run_field, read_results,
                                   options)
    minimize = direction([s for found in read.values() for _, _, runs in found for s in runs],
                         options.get("minimize") or False)
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if kind is None:
            read[index] = _paths(item, run_field, read_results, {**options,
                                                                 "minimize": minimize})
    return [search for index in sorted(read) for search in read[index]]


def _is_tracker(item):
    from .trackers import mlflow_runs, optuna_studies

    return item.startswith((optuna_studies.PREFIX, mlflow_runs.PREFIX))


def _tracker(item, kind, studies, experiments, run_field, read_results, options):
    """The searches of an Optuna storage or an MLflow store."""
    argument, names = ("studies", studies) if kind == "optuna" else ("experiments", experiments)
    if run_field is not None:  # refused for Optuna by the reader, naming what a run is there
        return _by_run_field(read_results([item], **{argument: names}, run_field=run_field,
                                          **options), item)
    patterns = None if names is None else ([names] if isinstance(names, str) else list(names))
    runs = read_results([item], **{argument: patterns}, **options)
    if patterns is None:
        return [(_stem(item), item, runs)]
    from .trackers._common import matches

    known = [r.label for r in runs]
    return [(pattern, f"{argument} {pattern!r} of {item}",
             [r for r in runs if matches(r.label, pattern, known)]) for pattern in patterns]


def _paths(item, run_field, read_results, options):
    """The searches of a path, or of a glob pattern of paths: each path a run, or with
    ``run_field`` each model of them a search."""
    paths = _expand(item)
    if run_field is not None:
        return _by_run_field(read_results(paths, run_field=run_field, **options), item)
    runs = read_results(paths, labels=[str(p) for p in paths], **options)
    return [(Path(str(item)).name, str(item), runs)]


def _by_run_field(runs, item):
    """The searches of runs told apart by a run field: one per model, in order."""
    models = {}
    for run in runs:
        models.setdefault(run.label, []).append(run)
    return [(label, f"{label} of {item}", found) for label, found in models.items()]


def _expand(item):
    """The paths a result names: itself, or the files and folders its glob pattern
    matches, in the order of their names (numbers by value)."""
    from .trackers._common import is_pattern, natural_key

    text = str(item)
    if Path(text).exists() or not is_pattern(text):
        return [item]
    found = sorted(glob.glob(text), key=natural_key)
    if not found:
        raise check.InvalidArgument("path", f"{text!r} matches no file or folder")
    return found


def _stem(item):
    """A store's name from its location: ``runs`` of ``optuna:sqlite:///runs.db``."""
    location = str(item).split(":", 1)[1]
    return Path(location.split("://", 1)[-1].split("?", 1)[0]).stem or location


def _relabel(searches, labels):
    """``labels`` given to the searches in order; every label its own."""
    if labels is not None:
        from .trackers.sources import one_label_each

        searches = [SearchRuns(lb, s.runs, s.given) for s, lb in
                    zip(searches, one_label_each(labels, [s.label for s in searches],
                                                 ("search", "searches")))]
    seen = set()
    for s in searches:
        if s.label in seen:
            raise check.InvalidArgument("labels", f"two searches are both labelled "
                                                  f"{s.label!r}: name them apart with labels")
        seen.add(s.label)
    return searches


def _check_search(search):
    """Refuse a search of fewer than :data:`MIN_RUNS` runs, or whose runs record different
    samplers (runs of different searches)."""
    if len(search.runs) < MIN_RUNS:
        raise check.InvalidArgument("runs", f"runs: {search.given} names 1 run "
                                            f"({search.names[0]}), and a search's curve "
                                            f"across runs needs at least {MIN_RUNS} (seeds): "
                                            f"{_how(search)}")
    samplers = {}
    for name, run in zip(search.names, search.runs):
        samplers.setdefault(run.sampler or NOT_RECORDED, []).append(name)
    if len(samplers) > 1:
        listed = "; ".join(f"{sampler}: {', '.join(names)}" for sampler, names in samplers.items())
        raise check.InvalidArgument("runs", f"runs: {search.given} mixes runs of different "
                                            f"searches ({listed}): the runs of a search share "
                                            f"its sampler; name each search's runs apart")


def _how(search):
    """How to name a search's runs, for its source."""
    source = search.runs[0].source
    if source.startswith("optuna:"):
        return "name a search's studies with a glob (studies='tpe-*')"
    if source.startswith("mlflow:"):
        return ("name a search's experiments with a glob (experiments='tpe-*'), or its runs' "
                "seed with run_field='params.seed'")
    return ("give a glob of its files or folders (quoted: 'runs/tpe-*'), or name the column "
            "or field of its runs with run_field=NAME")
