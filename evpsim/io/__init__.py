"""What goes in and out: score files, the searches shipped with evpsim, result files.

* :mod:`.searchfiles`: reading a search's scores (text, CSV, JSON Lines, ``.npy``),
  failed trials counted and described;
* :mod:`.shipped`: the searches and data shipped in ``evpsim/data/``, the user's
  data folder;
* :mod:`.models`: a researcher's models as given (scores, labels, durations);
* :mod:`.results`: netCDF result files, provenance, atomic writes.

May import: the ground floor (``_validate``, ``_format``, ``_version``) only.
"""
