"""Which reader a name on the command line goes to, and results of several sources read
together.

``optuna:STORAGE`` goes to :func:`.optuna_studies.read_optuna`,
``mlflow:TRACKING_URI`` to :func:`.mlflow_runs.read_mlflow`, a folder of Ray
Tune trials to :func:`.raytune_trials.read_raytune` and a folder of
TensorBoard event files to :func:`.tensorboard_runs.read_tensorboard`;
anything else is a score file.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ... import _validate as check
from ..trials import direction
from . import mlflow_runs, optuna_studies
from .raytune_trials import is_experiment, read_raytune
from .tensorboard_runs import EVENTS, is_logdir, read_tensorboard

__all__ = ["source_kind", "read_sources", "not_for", "one_label_each", "READERS"]

#: each kind of source: its reader and the options it takes besides the rules (failed,
#: diverged, pruned, bounds, minimize)
READERS = {
    "optuna": (optuna_studies.read_optuna, ("studies", "field")),
    "mlflow": (mlflow_runs.read_mlflow, ("experiments", "field", "group", "reduce",
                                          "run_field")),
    "raytune": (read_raytune, ("field", "reduce")),
    "tensorboard": (read_tensorboard, ("field", "reduce")),
}
#: what every reader takes
RULES = ("failed", "diverged", "pruned", "bounds", "minimize")
#: how each kind is named in messages
NAMES = {"optuna": "Optuna storages", "mlflow": "MLflow tracking stores",
         "raytune": "Ray Tune experiments", "tensorboard": "TensorBoard logs"}


def source_kind(item):
    """The kind of source ``item`` names (a key of :data:`READERS`), or None for a file.

    Examples
    --------
    >>> source_kind("optuna:sqlite:///study.db"), source_kind("scores.txt")
    ('optuna', None)
    """
    if isinstance(item, str):
        for kind, prefix in (("optuna", optuna_studies.PREFIX), ("mlflow", mlflow_runs.PREFIX)):
            if item.startswith(prefix):
                return kind
    if isinstance(item, (str, os.PathLike)) and str(item) != "-" and Path(item).is_dir():
        if is_experiment(item):
            return "raytune"
        if is_logdir(item):
            return "tensorboard"
        raise check.InvalidArgument("path", f"{str(item)!r} is a folder, not a file, and "
                                            f"holds neither Ray Tune trials (folders with "
                                            f"params.json) nor TensorBoard runs ({EVENTS} "
                                            f"files)")
    return None


def read_sources(items, kinds, read_files, **options):
    """Read ``items`` of the ``kinds`` given (None: a file), in their order.

    The sources are read first, so that the direction they record (an
    Optuna study's) holds for the files too; files are read together by
    ``read_files(files, **options)``. ``labels`` relabel every model, in
    order.
    """
    labels = options.pop("labels", None)
    given = {k: v for k, v in options.items() if v is not None}
    for name in ("studies", "experiments"):
        kind = "optuna" if name == "studies" else "mlflow"
        if name in given and kind not in kinds:
            raise check.InvalidArgument(name, f"{name} applies to {NAMES[kind]}, and none is "
                                              f"given")
    read = {}
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if kind is None:
            continue
        reader, takes = READERS[kind]
        for name in given:
            if name not in takes + RULES + ("studies", "experiments"):
                raise not_for(name, item, kind)
        location = str(item).split(":", 1)[1] if kind in ("optuna", "mlflow") else item
        read[index] = reader(location, **{k: v for k, v in given.items() if k in takes + RULES})
    minimize = direction([s for found in read.values() for s in found],
                         options.get("minimize") or False)
    files = [item for item, kind in zip(items, kinds) if kind is None]
    if files:  # every file's models where the first file stands
        read[kinds.index(None)] = read_files(files, minimize=minimize, **{
            k: v for k, v in options.items() if k not in ("studies", "experiments", "minimize")})
    out = [s for index in sorted(read) for s in read[index]]
    return _relabel(out, labels)


def not_for(name, item, kind):
    """The error for an option of score files given for ``item``, a source of ``kind``."""
    return check.InvalidArgument(name, f"{name} applies to score files"
                                       + (" and MLflow runs" if name in ("group", "run_field")
                                          else "")
                                       + f", not to {NAMES[kind]} such as {str(item)!r}"
                                       + (f": {RUN_UNITS[kind]}" if name == "run_field"
                                          else ""))


#: what a run of a search is in each kind of source, where no run field tells runs apart
RUN_UNITS = {"optuna": "a study is a run; name a search's studies with a glob "
                       "(studies='tpe-*')",
             "raytune": "an experiment folder is a run; name a search's folders with a glob "
                        "('ray_results/tpe-*')",
             "tensorboard": "a folder of runs is a run of the search; name a search's "
                            "folders with a glob ('logs/tpe-*')"}


def one_label_each(labels, names, what=("model", "models")):
    """``labels`` (a string or a list) checked to be one string per name of ``names``
    (the models or searches: ``what`` names one and several in the message)."""
    labels = [labels] if isinstance(labels, str) else list(labels)
    if len(labels) != len(names):
        raise check.InvalidArgument("labels", f"labels has {len(labels)} names for "
                                              f"{len(names)} {what[1]} ({', '.join(names)}): "
                                              f"give one per {what[0]}")
    return [check.string(lb, "labels") for lb in labels]


def _relabel(searches, labels):
    """``labels`` given to the models in order (the runs of a model, told apart by a run
    field, share its label); every label its own."""
    models = list(dict.fromkeys((s.source, s.label) for s in searches))
    if labels is not None:
        named = dict(zip(models, one_label_each(labels, [m for _, m in models])))
        searches = [replace(s, label=named[s.source, s.label]) for s in searches]
    seen = {}
    for s in searches:
        if (s.label, s.run) in seen:
            if labels is not None:
                raise check.InvalidArgument("labels", f"two models are both labelled "
                                                      f"{s.label!r}: give each its own")
            raise check.InvalidArgument("path", f"two models are both labelled {s.label!r} "
                                                f"(from {seen[s.label, s.run]} and "
                                                f"{s.source}): name them apart with "
                                                f"labels=NAME,NAME")
        seen[s.label, s.run] = s.source
    return searches
