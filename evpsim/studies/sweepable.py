"""The studies a sweep runs by name, with their cell axes and sweep defaults.

Importing this module registers them with the engine
(:func:`evpsim.engine.sweeps.grid.register_battery`); the engine itself
knows no study. A cell calls the study by its dotted name where the cell
runs (this process, a worker process, a dask worker).
"""

from __future__ import annotations

from ..engine.sweeps.grid import Battery, register_battery
from ..truths.distributions import make_truth
from .interval_study import BASELINES, CANDIDATES
from .runs_battery import KS

__all__ = []

#: the axis that names a truth, and the affix of the coordinates describing it
TRUTH = {"dist": "truth"}

for _battery in [
    Battery("bias", "evpsim.studies.bias.bias", ("dist", "B"), TRUTH, make_truth,
            {"estimators": None, "curve": "mean", "method": "both", "replicates": 100_000,
             "python_replicates": None, "bounds": None}, "bias"),
    Battery("coverage", "evpsim.studies.coverage.coverage", ("dist", "B"), TRUTH, make_truth,
            {"estimators": None, "curve": "mean", "ci_methods": None, "level": 0.95,
             "replicates": 1000, "resamples": 5000, "bounds": None}, "coverage", True),
    Battery("falseconc", "evpsim.studies.falseconc.falseconc", ("dist", "B"), TRUTH,
            make_truth, {"estimators": None, "curve": "mean", "replicates": 200_000,
                         "python_replicates": None, "bounds": None}, "below"),
    Battery("leaderboard", "evpsim.studies.leaderboard.cell", ("dist", "B", "curve"), TRUTH,
            make_truth, {"estimators": None, "ci_methods": None, "replicates": 20_000,
                         "python_replicates": None, "coverage_replicates": 1000,
                         "resamples": 2000}, "rmse"),
    Battery("intervals", "evpsim.studies.interval_study.cell", ("dist", "B", "curve"), TRUTH,
            make_truth, {"ci_methods": list(BASELINES + CANDIDATES), "samples": 1000,
                         "resamples": 1000, "width_samples": 250, "oracle_samples": 20_000},
            "coverage", True),
    Battery("runs", "evpsim.studies.runs_battery.cell", ("dist", "B"), TRUTH, make_truth,
            {"ks": list(KS), "ci_methods": None, "replicates": 2000, "resamples": 1000,
             "oracle_samples": 20_000, "truth_samples": 2**21, "check_samples": 2**18},
            "coverage"),
    Battery("compare", "evpsim.studies.compare.comparison_errors", ("a", "b", "B"),
            {"a": "_a", "b": "_b"}, make_truth, {"estimators": None, "curve": "mean",
                                                 "pool": False, "replicates": 50_000,
                                                 "python_replicates": None, "bounds": None},
            "wrong"),
]:
    register_battery(_battery)
