"""What a person reads: figures, tables and reports.

* :mod:`.drawing`: what every figure shares (colours, pyplot, saving);
* :mod:`.curves`: a researcher's own curves (:func:`plot_curve`, EVP against
  trials or time);
* :mod:`.curvefigure`: ``curve``'s figure, with the distribution-free bound and
  the self-check's coverage;
* :mod:`.batteries`: the batteries' figures (bias, false conclusions,
  comparisons, coverage, rates by truth, sweeps);
* :mod:`.kde`: KDE truths, the pools they stand for, and their validity;
* :mod:`.interval_study`: the intervals study's coverage and width;
* :mod:`.leaderboard`: the leaderboard's summary, figures and report folder,
  with its tables in :mod:`.leaderboard_tables`;
* :mod:`.tables`: ``curve``'s tables as data, printed and written as CSV,
  LaTeX, Markdown or JSON;
* :mod:`.html`: ``curve``'s report, one self-contained HTML file.

May import: :mod:`evpsim.truths`, :mod:`evpsim.engine`, :mod:`evpsim.io` and
the ground floor. It draws and tabulates Datasets; it runs no study.
"""

from .batteries import (plot_bias, plot_compare_curves, plot_comparison_errors, plot_coverage,
                        plot_falseconc, plot_rate_by_truth, plot_sweep)
from .curves import plot_curve, plot_estimator_curves, plot_evp_curves, plot_evp_time
from .interval_study import plot_interval_study
from .kde import plot_kde, plot_kde_validity, plot_score_distributions
from .leaderboard import plot_leaderboard_coverage, plot_leaderboard_rmse

__all__ = ["plot_bias", "plot_compare_curves", "plot_comparison_errors", "plot_coverage",
           "plot_curve", "plot_estimator_curves", "plot_evp_curves", "plot_evp_time",
           "plot_falseconc", "plot_interval_study", "plot_kde", "plot_kde_validity",
           "plot_leaderboard_coverage", "plot_leaderboard_rmse", "plot_rate_by_truth",
           "plot_score_distributions", "plot_sweep"]
