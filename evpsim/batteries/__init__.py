"""The batteries: peers over the engine kit (:mod:`evpsim.montecarlo`).

Each validates its arguments, builds kernel jobs, runs them and shapes a
Dataset; none imports another.

* :mod:`.bias`: mean, bias, variance and MSE of estimators;
* :mod:`.falseconc`: how often estimates fall below the truth;
* :mod:`.compare`: how often estimators rank two models wrongly;
* :mod:`.coverage`: coverage of confidence intervals.
"""
