"""The flags of ``evpsim curve`` that read results where the tracking tools keep them."""

from __future__ import annotations

from ..io.formats.durations import TIME_REDUCTIONS
from ..io.searchfiles import read_searches
from ..io.trials import PRUNED_RULES
from .common import default, given

#: how the results' positional help names the trackers' sources
SOURCES_HELP = ("optuna:STORAGE (an Optuna storage: sqlite:///study.db, a journal file), "
                "mlflow:TRACKING_URI, a Ray Tune experiment folder or a folder of TensorBoard "
                "runs")


#: the library names of the flags below, for the parser's ``argument_flags``
TRACKER_FLAGS = {"studies": "study", "experiments": "experiment"}


def add_tracker_args(group):
    """``--study``, ``--experiment``, ``--pruned`` and ``--time-reduce`` in ``group`` (their
    library names: :data:`TRACKER_FLAGS`)."""
    group.add_argument("--study", metavar="LIST",
                       help="comma-separated Optuna studies to read (default: every study in "
                            "the storage)")
    group.add_argument("--experiment", metavar="LIST",
                       help="comma-separated MLflow experiments to read (default: every "
                            "experiment with runs)")
    group.add_argument("--pruned", choices=PRUNED_RULES,
                       default=default(read_searches, "pruned"),
                       help="trials a pruner stopped (Optuna's PRUNED, a state column saying "
                            "so): count them at their last intermediate value, as failed "
                            "trials (--failed), or drop them (default: %(default)s)")
    group.add_argument("--time-reduce", choices=TIME_REDUCTIONS,
                       help="a --time-field holding one time per checkpoint (opda's "
                            "learning_curve.time): the last (a running total), their sum, or "
                            "the largest")


def split(text):
    """A comma-separated flag's items (None when not given)."""
    return None if text is None else [t.strip() for t in text.split(",")]


def tracker_options(args):
    """The reading options of the flags above (``pruned`` None unless given: the readers
    refuse it given where nothing records a pruned trial)."""
    return {"studies": split(args.study), "experiments": split(args.experiment),
            "pruned": args.pruned if given(args, "pruned") else None,
            "time_reduce": args.time_reduce}


def tracker_inputs(args):
    """How the flags above read the results, as attributes of ``--out``."""
    return {f"input_{k}": v for k, v in (("study", args.study), ("experiment", args.experiment),
                                         ("pruned", args.pruned),
                                         ("time_reduce", args.time_reduce))
            if v is not None}
