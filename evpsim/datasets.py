"""Real search results shipped inside the package, by name.

The files live in ``evpsim/data/searches/`` with their licences and a
``NOTICE.md`` naming their sources; they are read through
:mod:`importlib.resources`, so they work from any installation.
"""

from __future__ import annotations

from importlib import resources

from . import _validate as check

__all__ = ["SEARCHES", "list_searches", "search_path", "resolve_results"]

#: shipped searches: name -> (file, description)
SEARCHES = {
    "reuters-mlp": ("reuters-mlp.txt", "145 trials of an MLP on Reuters, dev F1 "
                                       "(Tang et al. 2020; castorini/meanmax, MIT)"),
    "reuters-lstm": ("reuters-lstm.txt", "152 trials of a regularized LSTM on Reuters, dev F1 "
                                         "(Tang et al. 2020; castorini/meanmax, MIT)"),
}
#: how a command line names a shipped search
PREFIX = "data:"


def list_searches():
    """``{name: description}`` of the shipped searches."""
    return {name: desc for name, (_, desc) in SEARCHES.items()}


def search_path(name):
    """Path of a shipped search's score file.

    Examples
    --------
    >>> search_path("reuters-mlp").name
    'reuters-mlp.txt'
    """
    if name not in SEARCHES:
        raise check.InvalidArgument("name", f"no shipped search {name!r}; shipped: "
                                            f"{', '.join(SEARCHES)}")
    return resources.files("evpsim") / "data" / "searches" / SEARCHES[name][0]


def resolve_results(paths):
    """Command-line results: ``data:NAME`` becomes the shipped file's path."""
    return [search_path(p[len(PREFIX):]) if p.startswith(PREFIX) else p for p in paths]
