"""What a person reads: figures and the leaderboard's report.

* :mod:`.plots`: the figures of curves and of every study;
* :mod:`.leaderboard`: the leaderboard's tables, summary and report folder.

May import: :mod:`evpsim.truths`, :mod:`evpsim.engine`, :mod:`evpsim.io` and
the ground floor. It draws and tabulates Datasets; it runs no study.
"""
