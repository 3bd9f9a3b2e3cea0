"""``evpsim list``: the available ground truths and estimators."""

from ..datasets import list_searches
from ..estimators import get_estimator, list_estimators
from ..intervals import list_ci_methods
from ..kde import list_kde_fits
from ..truths import list_truths
from .common import add_subcommand

HELP = "list truths, KDE fits, shipped searches, estimators, CI methods"


def add_parser(subparsers):
    p = add_subcommand(
        subparsers, "list", HELP, description=(
            "List what the other commands accept by name: the ground truths (--dist, --a, "
            "--b), the committed KDE fits (kde:NAME), the searches shipped with evpsim "
            "(data:NAME), the estimators (--estimators) and the CI methods (--ci-methods)."),
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
    print("\nestimators (--estimators):")
    for name in list_estimators():
        print(f"  {name:<{width}}  {get_estimator(name).description}")
    print("\nconfidence-interval methods (--ci-methods of coverage and curve):")
    for name, desc in list_ci_methods().items():
        print(f"  {name:<{width}}  {desc}")
    return 0
