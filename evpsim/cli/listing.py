"""``evpsim list``: the available ground truths, estimators and CI methods.

Estimators and CI methods are tables: what each is, how it runs and where
it comes from (a paper, or the package of a plugin, :mod:`evpsim.plugins`),
with its description wrapped beneath.
"""

import textwrap

from .._format import render
from ..estimators.family import get_estimator, list_estimators
from ..intervals.family import get_ci_method, list_ci_methods
from ..io.shipped import list_searches
from ..truths.distributions import list_truths
from ..truths.kde import list_kde_fits
from .common import add_subcommand

#: the width of the estimators' and CI methods' tables, descriptions wrapped to it
WIDTH = 100

HELP = "list truths, KDE fits, shipped searches, estimators, CI methods"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "list", HELP, description=(
            "List what the other commands accept by name: the ground truths (--dist, --a, "
            "--b), the committed KDE fits (kde:NAME), the searches shipped with evpsim "
            "(data:NAME), the estimators (--estimators) and the CI methods (--ci-methods), "
            "with where each comes from: a paper, or the package of a plugin."),
        examples=["evpsim list"])
    p.set_defaults(run=run)
    return p


def run(args):
    truths = list_truths()
    fits = list_kde_fits()
    width = max(map(len, [*truths, *fits]))
    print("ground truths (--dist):")
    for spec, desc in truths.items():
        print(f"  {spec:<{width}}  {desc}")
    print("\ncommitted KDE fits (--dist kde:NAME):")
    for spec, desc in fits.items():
        print(f"  {spec:<{width}}  {desc}")
    print("\nsearches shipped with evpsim (evpsim curve data:NAME, or --dist data:NAME; "
          "sources and licences: evpsim/data/searches/NOTICE.md):")
    for name, desc in list_searches().items():
        print(f"  {name:<{width}}  {desc}")
    ests = [get_estimator(name) for name in list_estimators()]
    print("\n" + textwrap.fill(
        "estimators (--estimators); kind: how it runs (L-statistics have exact moments), "
        "curves: the curves it estimates (--curve), beyond B: whether it estimates budgets "
        "n > B (--n-max):",
        WIDTH))
    _table(["name", "kind", "curves", "beyond B", "source"],
           [[e.name, e.kind, ", ".join(e.targets), "yes" if e.extrapolates else "no",
             _source(e)] for e in ests], [e.description for e in ests])
    methods = [get_ci_method(name) for name in list_ci_methods()]
    print("\nconfidence-interval methods (--ci-methods of coverage and curve):")
    _table(["name", "kind", "source"], [[m.name, m.kind, _source(m)] for m in methods],
           [m.description for m in methods])
    return 0


def _source(item):
    """Where an estimator or CI method comes from: its paper or package."""
    return item.source or ("built-in" if item.builtin else "-")


def _table(headers, rows, descriptions):
    """Print the table of ``rows``, each followed by its description, wrapped
    beneath the second column."""
    lines = render(headers, [list(col) for col in zip(*rows)], indent=2,
                   align="<" * len(headers))
    indent = " " * (2 + max(len(row[0]) for row in [headers, *rows]) + 2)
    print(lines[0])
    for line, desc in zip(lines[1:], descriptions):
        print(line)
        print(textwrap.fill(desc, WIDTH, initial_indent=indent, subsequent_indent=indent,
                            break_on_hyphens=False))
