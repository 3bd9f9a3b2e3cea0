"""``evpsim list``: the available ground truths and estimators."""

from ..datasets import list_searches
from ..estimators import get_estimator, list_estimators
from ..intervals import list_ci_methods
from ..kde import list_kde_fits
from ..truths import list_truths

HELP = ("list the available ground truths (with the committed KDE fits), shipped searches, "
        "estimators and CI methods")


def add_parser(subparsers):
    p = subparsers.add_parser("list", help=HELP, description=HELP + ".")
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
