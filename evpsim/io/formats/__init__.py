"""The formats of score files, one module each, as :mod:`evpsim.io.trackers` holds one per tool.

* :mod:`.plaintext`: one score per line;
* :mod:`.csvfiles`: one trial per row (CSV, TSV, a W&B runs-table export);
* :mod:`.jsonlines`: one trial per line, a field reached by a dotted path
  (allentune's ``results.jsonl``, opda's learning curves);
* :mod:`.durations`: the trials' durations and timestamps, as the formats
  write them.

:mod:`evpsim.io.searchfiles` tells a file's format and reads it here.
"""
