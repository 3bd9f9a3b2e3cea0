"""Searches read where researchers keep them: Optuna studies, MLflow runs, Ray Tune
experiments and TensorBoard logs.

Each reader returns :class:`~evpsim.io.search.Search` objects, one per
model, read by the same rules as score files: a failed trial follows the
``failed`` rule, a trial flagged as failed the ``diverged`` rule, a pruned
trial the ``pruned`` rule and an unfinished one is dropped and counted
(:mod:`evpsim.io.trials`). W&B's runs-table export is a CSV file, read by
:func:`~evpsim.io.searchfiles.read_searches` with the same state rules.

* :mod:`.optuna_studies`: ``optuna:STORAGE`` (an RDB URL or a journal file);
* :mod:`.mlflow_runs`: ``mlflow:TRACKING_URI``;
* :mod:`.raytune_trials`: a Ray Tune experiment folder;
* :mod:`.tensorboard_runs`: a folder of TensorBoard runs;
* :mod:`.sources`: which reader a name on the command line goes to.

Each tool's package is optional (``pip install evpsim-toolkit[optuna]``,
``[mlflow]``, ``[tensorboard]``); Ray Tune's folders need none.
"""
