"""Measuring estimators and intervals on truths: the studies.

Peers over the engine kit (:mod:`evpsim.engine.montecarlo`): each validates
its arguments, builds kernel jobs, runs them and shapes a Dataset.

* :mod:`.bias`: mean, bias, variance and MSE of estimators;
* :mod:`.falseconc`: how often estimates fall below the truth;
* :mod:`.compare`: how often estimators rank two models wrongly, and two
  models' curves compared;
* :mod:`.coverage`: coverage of confidence intervals;
* :mod:`.leaderboard`: every estimator and CI method on every truth;
* :mod:`.interval_study`: CI methods against their goals near n = B;
* :mod:`.runs_battery`: intervals across runs (seeds) of random and adaptive
  searches, at 5, 10 and 20 runs;
* :mod:`.selfcheck`: ``curve``'s intervals checked on truths fitted to one's
  own searches;
* :mod:`.sweepable`: the studies a sweep runs by name.

May import: :mod:`evpsim.intervals` and everything below it; no curve
(curves and studies are peers). The first four import no other study.
"""

from . import sweepable  # noqa: F401  (registers the studies a sweep runs by name)
