"""Data shipped inside the package: real search results and where to find
the ones that are not shipped.

Shipped searches live in ``evpsim/data/searches/`` with their licences and a
``NOTICE.md`` naming their sources; the committed KDE fits in
``evpsim/data/kde_fits/``. Both are read through :mod:`importlib.resources`,
so they work from any installation. Search files that may not be shipped
(the SST runs, which state no licence) are read from a folder the user
names: ``data=DIR`` / ``--data DIR``, or the environment variable
``EVPSIM_DATA``; nothing is ever looked for beside the package.
"""

from __future__ import annotations

import functools
import os
from importlib import resources
from pathlib import Path

import numpy as np

from .. import _validate as check
from .search import describe_dropped
from .searchfiles import read_searches

__all__ = ["SEARCHES", "DATA_ENV", "list_searches", "search_path", "read_results",
           "package_data", "user_data_dir", "find_search_file", "shipped_scores",
           "shipped_search"]

#: shipped searches: name -> (file, name of the original in the project's
#: data folder or None for evpsim's own searches, description, JSON field of
#: the score or None for one score per line)
SEARCHES = {
    "reuters-mlp": ("reuters-mlp.txt", "reuters_mlp_f1.txt",
                    "145 trials of an MLP on Reuters, dev F1 "
                    "(Tang et al. 2020; castorini/meanmax, MIT)", None),
    "reuters-lstm": ("reuters-lstm.txt", "reuters_lstm_f1.txt",
                     "152 trials of a regularized LSTM on Reuters, dev F1 "
                     "(Tang et al. 2020; castorini/meanmax, MIT)", None),
    "mnli-deberta-base": ("mnli-deberta-base.txt", "mnli_deberta_base_acc.txt",
                          "1,024 trials of DeBERTa-base on MultiNLI, matched accuracy "
                          "(nicholaslourie/opda, CC BY-SA 4.0)", None),
    "mnli-deberta-v3-base": ("mnli-deberta-v3-base.txt", "mnli_deberta_v3_base_acc.txt",
                             "1,024 trials of DeBERTa-v3-base on MultiNLI, matched accuracy "
                             "(nicholaslourie/opda, CC BY-SA 4.0)", None),
    **{f"sklearn-{family}": (f"sklearn-{family}.jsonl", None,
                             f"2,000 trials of {model} on scikit-learn's digits, validation "
                             f"accuracy (evpsim's own search, kde_fits/sklearn_searches.py)",
                             "best_validation_accuracy")
       for family, model in (("mlp", "an MLP"), ("hgb", "gradient boosting"),
                             ("svm", "an RBF SVM"))},
}
#: how a command line names a shipped search
PREFIX = "data:"
#: environment variable naming the folder of search files that are not shipped
DATA_ENV = "EVPSIM_DATA"


def package_data(*parts):
    """Path of a file or folder under ``evpsim/data/``.

    Examples
    --------
    >>> package_data("searches", "NOTICE.md").name
    'NOTICE.md'
    """
    return Path(str(resources.files("evpsim").joinpath("data", *parts)))


def list_searches():
    """``{name: description}`` of the shipped searches."""
    return {name: desc for name, (_, _, desc, _) in SEARCHES.items()}


def search_path(name):
    """Path of a shipped search's score file.

    Examples
    --------
    >>> search_path("reuters-mlp").name
    'reuters-mlp.txt'
    """
    if name not in SEARCHES:
        raise _unknown_search(name, "name")
    return package_data("searches", SEARCHES[name][0])


def _unknown_search(name, argument):
    """The error for a shipped search that does not exist, with the closest name."""
    from difflib import get_close_matches

    close = get_close_matches(str(name), SEARCHES, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return check.InvalidArgument(argument, f"no shipped search {name!r}{hint}; shipped: "
                                           f"{', '.join(SEARCHES)} ('evpsim list' shows them)")


def shipped_scores(name):
    """The scores of a shipped search, as an array; trials that failed without
    a score (a null score, as a diverged fit) are left out: as a ground truth
    (``data:NAME``) and a pool of the studies, a shipped search stands for the
    distribution of the scores its trials reach.

    Examples
    --------
    >>> shipped_scores("reuters-mlp").size
    145
    """
    return shipped_search(name).scores


def shipped_search(name):
    """The shipped search ``name`` as read (a :class:`~.search.Search`), failed
    trials dropped."""
    return read_searches([search_path(name)], field=SEARCHES[name][3], failed="drop")[0]


def read_results(results, *, field=None, column=None, studies=None, experiments=None,
                 **options):
    """Read search results named as on the command line, shipped ones included.

    ``data:NAME`` names a shipped search, read with its own field (each
    brings its own format, so shipped searches of different formats mix);
    ``optuna:STORAGE``, ``mlflow:TRACKING_URI`` and folders (a Ray Tune
    experiment, TensorBoard runs) are read by :mod:`evpsim.io.trackers`;
    any other name is a file, read with ``field`` and ``column``.
    ``options`` go to :func:`~evpsim.io.searchfiles.read_searches` for every
    file, and to the trackers' readers that take them.

    Parameters
    ----------
    results : str, path, or a list of them
        Files, ``data:NAME`` names, tracking stores and folders.
    field, column : str, optional
        The score's JSON Lines field or CSV column in the user's own files
        (``field``: also the score of a tracker's trials).
        Given with shipped searches alone, they must be the searches' own.
    studies, experiments : str or list of str, optional
        The Optuna studies and MLflow experiments to read (default: all).
    **options
        ``group``, ``select``, ``reduce``, ``time_field``, ``time_reduce``,
        ``labels``, ``diverged``, ``failed``, ``pruned``, ``bounds``,
        ``minimize``, ``run_field`` (see
        :func:`~evpsim.io.searchfiles.read_searches`; ``run_field`` for files
        and MLflow runs).
        An option that applies to none of the results is refused: ``column``
        with no file, ``pruned`` where nothing records a pruned trial (an
        Optuna study does; so does a state column of a CSV or JSON Lines
        file).

    Returns
    -------
    list of Search

    Examples
    --------
    >>> [s.metric for s in read_results(["data:reuters-mlp", "data:sklearn-svm"])]
    ['', 'best_validation_accuracy']
    """
    from .trackers.sources import not_for, read_sources, source_kind

    items = list(results) if isinstance(results, (list, tuple)) else [results]
    kinds = [source_kind(item) for item in items]
    pruned = options.get("pruned")
    if pruned is None:  # not given: each reader's own default
        options.pop("pruned", None)
    if column is not None and items and all(kinds):  # no file for it
        raise not_for("column", items[0], kinds[0])
    if any(kinds) or studies is not None or experiments is not None:
        out = read_sources(items, kinds, functools.partial(_read_files, field=field,
                                                           column=column),
                           field=field if any(kinds) else None, studies=studies,
                           experiments=experiments, **options)
    else:
        out = _read_files(items, field=field, column=column, **options)
    if pruned is not None and all(s.pruned is None for s in out):
        sources = list(dict.fromkeys(s.source for s in out))
        raise check.InvalidArgument("pruned", f"pruned applies to trials recorded as pruned "
                                              f"(an Optuna study's, or a CSV or JSON Lines "
                                              f"file's state column), and {', '.join(sources)} "
                                              f"record{'s' if len(sources) == 1 else ''} no "
                                              f"such state: drop it")
    return out


def _read_files(items, *, field, column, **options):
    """Read files and shipped searches (see :func:`read_results`)."""
    shipped = [_shipped_name(item) for item in items]
    own = [None if name is None else SEARCHES[name][3] for name in shipped]
    if items and all(name is not None for name in shipped):
        for value, name in ((field, "field"), (column, "column")):
            if value is not None and any(value != f for f in own):
                raise check.InvalidArgument(
                    name, f"{name} applies to your own files; a shipped search is read with "
                          f"its own field (" + ", ".join(
                              f"{PREFIX}{s}: {f or 'one score per line'}"
                              for s, f in zip(shipped, own)) + ")")
    paths = [item if name is None else search_path(name) for item, name in zip(items, shipped)]
    return read_searches(paths, field=[field if name is None else f
                                       for name, f in zip(shipped, own)],
                         column=[column if name is None else None for name in shipped],
                         **options)


def _shipped_name(item):
    """The shipped search a command-line result names (``data:NAME``), else None."""
    if not (isinstance(item, str) and item.startswith(PREFIX)):
        return None
    name = item[len(PREFIX):]
    if name not in SEARCHES:
        raise _unknown_search(name, "path")
    return name


def user_data_dir(path=None):
    """The folder of search files that are not shipped, or None.

    ``path`` if given, else ``$EVPSIM_DATA`` if set, else None: evpsim never
    guesses a folder.

    Raises
    ------
    ValueError
        If the folder named does not exist or is a file.
    TypeError
        If ``path`` is not a path.
    """
    folder = path if path is not None else os.environ.get(DATA_ENV)
    if folder is None or (path is None and not folder):
        return None
    if not isinstance(folder, (str, os.PathLike)) or not str(folder):
        raise check.InvalidType("data", f"data must be a folder name or path, got {folder!r}")
    folder = Path(folder)
    # named by the variable, not by the data argument (whose flag the user did not give)
    name, where = ("data", "data") if path is not None else \
        (DATA_ENV, f"the environment variable {DATA_ENV}")
    if folder.exists() and not folder.is_dir():
        raise check.InvalidArgument(name, f"{where}: search results folder {str(folder)!r} "
                                          f"is a file, not a folder")
    if not folder.is_dir():
        raise check.InvalidArgument(name, f"{where}: search results folder {str(folder)!r} "
                                          f"does not exist")
    return folder


def find_search_file(filename, data=None):
    """A search file by its original name (as in ``shared/data/``).

    Looks in the user's folder (``data``, see :func:`user_data_dir`) first,
    then among the shipped searches. Returns the path, or None when the file
    is neither there nor shipped.

    Examples
    --------
    >>> find_search_file("reuters_mlp_f1.txt").name
    'reuters-mlp.txt'
    """
    folder = user_data_dir(data)
    if folder is not None and (folder / filename).is_file():
        return folder / filename
    shipped = {original: name for name, (_, original, _, _) in SEARCHES.items() if original}
    return search_path(shipped[filename]) if filename in shipped else None
