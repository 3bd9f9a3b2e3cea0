"""What goes in and out: score files, the searches shipped with evpsim, result files.

* :mod:`.searchfiles`: reading a search's scores from files, each file by the module
  of its format in :mod:`.formats` (plain text, CSV, JSON Lines with allentune's and
  opda's layouts, the trials' durations);
* :mod:`.trackers`: searches where the tools keep them (Optuna, MLflow, Ray Tune,
  TensorBoard), one module per tool;
* :mod:`.records`: a trial as every reader holds it, and why a record was dropped;
* :mod:`.trials`: what a trial's record makes of it (failed, diverged, pruned,
  unfinished), the sampler and the direction a tool recorded;
* :mod:`.search`: one model's trials as read (:class:`~.search.Search`), described;
* :mod:`.frames`: a pandas DataFrame of trials;
* :mod:`.shipped`: the searches and data shipped in ``evpsim/data/``, the user's
  data folder;
* :mod:`.models`: a researcher's models as given (scores, labels, durations);
* :mod:`.lattice`: scores on a lattice (accuracies on a finite validation set), their ties;
* :mod:`.results`: netCDF result files, provenance, atomic writes.

May import: the ground floor (``_validate``, ``_format``, ``_version``) only.
"""
