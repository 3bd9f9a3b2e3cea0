"""``evpsim list``: the available ground truths and estimators."""

from ..estimators import get_estimator, list_estimators
from ..truths import list_truths

HELP = "list the available ground truths and estimators"


def add_parser(subparsers):
    p = subparsers.add_parser("list", help=HELP, description=HELP + ".")
    p.set_defaults(run=run)
    return p


def run(args):
    print("ground truths (--dist):")
    truths = list_truths()
    width = max(map(len, truths))
    for spec, desc in truths.items():
        print(f"  {spec:<{width}}  {desc}")
    print("\nestimators (--estimators):")
    for name in list_estimators():
        print(f"  {name:<{width}}  {get_estimator(name).description}")
    return 0
