"""What a person reads: figures, tables and reports.

* :mod:`.plots`: the figures of curves and of every study;
* :mod:`.curvefigure`: ``curve``'s figure, with the distribution-free bound and
  the self-check's coverage;
* :mod:`.tables`: ``curve``'s tables as data, printed and written as CSV,
  LaTeX, Markdown or JSON;
* :mod:`.html`: ``curve``'s report, one self-contained HTML file;
* :mod:`.leaderboard`: the leaderboard's tables, summary and report folder.

May import: :mod:`evpsim.truths`, :mod:`evpsim.engine`, :mod:`evpsim.io` and
the ground floor. It draws and tabulates Datasets; it runs no study.
"""
