"""TensorBoard logs: a folder of runs, one trial per run, read with TensorBoard's event
reader.

A run is a folder holding event files (``events.out.tfevents.*``), at any
depth under the folder given (the folder itself too); runs are taken in
the order they started (their first event's time; the order of their paths
among runs that started together or logged no scalar), the order of trials
that a search run several times (see :mod:`evpsim.io.runs`) is read in.
The score is a scalar tag reduced over its steps
(``reduce``: the best, the worst or the last step); the time from a run's
first event to its last is its duration. Scalars written by
``tf.summary``, PyTorch's ``SummaryWriter`` or ``tensorboard.summary.Writer``
are all read (TensorBoard stores them as 32-bit floats). A run that never
logged the tag is dropped and counted; TensorBoard records no trial state
and no sampler.
"""

from __future__ import annotations

import math
from pathlib import Path

from ... import _validate as check
from ..trials import NOT_RECORDED
from ._common import Trials, key_and_reduce, need, searches, trial

__all__ = ["read_tensorboard", "is_logdir", "EVENTS"]

#: the names of TensorBoard's event files
EVENTS = "events.out.tfevents.*"


def is_logdir(folder):
    """Whether ``folder`` holds TensorBoard event files."""
    return any(p.is_file() for p in Path(folder).rglob(EVENTS))


def read_tensorboard(folder, *, field=None, reduce=None, pruned="last", failed="worst",
                     diverged="keep", bounds=None, minimize=False):
    """Read a folder of TensorBoard runs as one model, labelled by the folder's name.

    Parameters
    ----------
    folder : str or path
        The log folder (TensorBoard's ``--logdir``).
    field : str
        The scalar tag of the score (``val/accuracy``).
    reduce : {"max", "min", "last"}
        How a run's steps of the tag become one score.
    pruned, failed, diverged, bounds, minimize
        As in :func:`~evpsim.io.searchfiles.read_searches`.

    Returns
    -------
    list of Search
        One, with a trial per run.

    Raises
    ------
    ValueError
        :class:`~evpsim._validate.InvalidArgument`: a folder with no event
        files, a missing ``field`` or ``reduce``, a tag that no run logged
        (listing the tags seen), the rules' errors; TensorBoard not
        installed.
    """
    folder = Path(folder)
    runs = sorted({p.parent for p in folder.rglob(EVENTS) if p.is_file()})
    if not runs:
        raise check.InvalidArgument("path", f"{str(folder)!r} holds no TensorBoard run (no "
                                            f"{EVENTS} file)")
    accumulator = need("tensorboard.backend.event_processing.event_accumulator", "tensorboard",
                       "TensorBoard logs")
    tensors = need("tensorboard.util.tensor_util", "tensorboard", "TensorBoard logs")
    logged = [_scalars(accumulator, tensors, run) for run in runs]
    order = sorted(range(len(runs)), key=lambda i: (logged[i][2], str(runs[i])))
    runs, logged = [runs[i] for i in order], [logged[i] for i in order]
    where = f"the TensorBoard runs in {str(folder)!r}"
    key_and_reduce(field, reduce, {tag for tags, _, _ in logged for tag in tags}, where,
                   trials="TensorBoard run", often="once per step")
    records = []
    for number, (run, (tags, duration, _)) in enumerate(zip(runs, logged), start=1):
        name = run.relative_to(folder).as_posix()
        records.append(trial(number, tags.get(field), duration=duration, field=field,
                             reduce=reduce, missing=f"run {name!r} logged no {field!r}"))
    model = Trials(folder.resolve().name, str(folder), field, records, sampler=NOT_RECORDED)
    return searches([model], failed=failed, diverged=diverged, pruned=pruned, bounds=bounds,
                    minimize=minimize)


def _scalars(accumulator, tensors, run):
    """A run's scalars ``{tag: values in step order}``, its duration (first event to
    last) and its start (its first event's time; inf without one), from its own event
    files only."""
    events = accumulator.EventAccumulator(str(run), size_guidance={accumulator.SCALARS: 0,
                                                                   accumulator.TENSORS: 0})
    events.Reload()
    tags = events.Tags()
    out, times = {}, []
    for tag in tags.get(accumulator.SCALARS, []):
        points = sorted(events.Scalars(tag), key=lambda e: e.step)
        out[tag] = [float(e.value) for e in points]
        times += [e.wall_time for e in points]
    for tag in tags.get(accumulator.TENSORS, []):
        points = sorted(events.Tensors(tag), key=lambda e: e.step)
        values = [tensors.make_ndarray(e.tensor_proto) for e in points]
        if all(v.size == 1 and v.dtype.kind in "fiu" for v in values):  # scalars only
            out[tag] = [float(v.item()) for v in values]
            times += [e.wall_time for e in points]
    return out, (max(times) - min(times)) if times else math.nan, min(times, default=math.inf)
