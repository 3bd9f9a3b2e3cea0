"""What goes in and out: score files, the searches shipped with evpsim, result files.

* :mod:`.searchfiles`: reading a search's scores (text, CSV, JSON Lines, ``.npy``),
  failed trials counted and described;
* :mod:`.trials`: what a trial's state makes of it (pruned, unfinished), the sampler
  and the direction a tool recorded;
* :mod:`.trackers`: searches where the tools keep them (Optuna, MLflow, Ray Tune,
  TensorBoard);
* :mod:`.frames`: a pandas DataFrame of trials;
* :mod:`.shipped`: the searches and data shipped in ``evpsim/data/``, the user's
  data folder;
* :mod:`.models`: a researcher's models as given (scores, labels, durations);
* :mod:`.lattice`: scores on a lattice (accuracies on a finite validation set), their ties;
* :mod:`.results`: netCDF result files, provenance, atomic writes.

May import: the ground floor (``_validate``, ``_format``, ``_version``) only.
"""
