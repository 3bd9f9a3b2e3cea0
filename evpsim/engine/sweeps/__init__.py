"""Sweeps: one battery over a grid of truths and budgets, on one machine or many.

:func:`sweep` runs every cell of a :class:`~.grid.Grid` (one battery call
each) in this process, in local worker processes or on a dask.distributed
cluster, keeps each finished cell in a checkpoint store
(:class:`~.store.Store`), and combines the cells into one Dataset
(:func:`~.combine.combine`). Every cell calls its battery with the sweep's
seed, so a cell's numbers depend only on that seed and the cell's values:
the same whether the sweep runs whole, resumed or split, in-process or on a
cluster, and the same as the battery run alone with the same seed.
"""

from __future__ import annotations

import itertools
import tempfile
from functools import partial

from ..registry import REGISTRIES
from .backends import BACKENDS, Signals, check_backend, compute_cell, open_backend
from .combine import combine as combine_cells
from .grid import BATTERIES, Grid, load_toml
from .store import Store, StoreMismatch, cell_key

__all__ = ["sweep", "Grid", "BATTERIES", "BACKENDS", "load_toml", "Store", "StoreMismatch"]


def _work(battery, options, seed, registered, cell, threads):
    _adopt(registered)
    return compute_cell(battery, cell, options, seed, threads)


def _registered():
    """The estimators and CI methods registered at run time in this process, pickled.

    Built-ins and plugins register themselves when a worker imports
    evpsim; what a user registered in this session (from a script, a
    notebook) must travel with the cells. Pickled by cloudpickle, which
    also takes functions defined in ``__main__`` or in a function.
    """
    import cloudpickle

    from ..montecarlo import not_picklable

    own = [(kind, item) for kind, registry in REGISTRIES.items()
           for _, item in registry.items()
           if not item.builtin and "(plugin)" not in getattr(item, "source", "")]
    for kind, item in own:  # the one that cannot travel, by name
        try:
            cloudpickle.dumps(item)
        except Exception as err:
            raise not_picklable(f"{kind} {item.name!r}", err) from None
    return cloudpickle.dumps(own) if own else b""


def _adopt(registered):
    """Register, in a worker, what :func:`_registered` sent and it does not know yet."""
    if not registered:
        return
    import pickle

    for kind, item in pickle.loads(registered):
        if item.name not in REGISTRIES[kind].names():
            REGISTRIES[kind].add(item)


def sweep(battery, axes=None, *, options=None, seed=0, store=None, backend="process",
          workers=1, scheduler=None, progress=False, grid=None):
    """Run a battery over a grid of cells and combine the results.

    Everything is checked before anything is created or started: the grid,
    every cell's arguments (by the battery's own checks), the backend and
    the store, and every cell the store keeps is read.

    Parameters
    ----------
    battery : str
        ``"bias"``, ``"coverage"``, ``"falseconc"`` or ``"compare"``.
    axes : dict
        Axis -> list of values: ``dist`` (truth specs) and ``B`` for the
        first three; ``a``, ``b`` (truth specs or files) and ``B`` for
        ``compare``.
    options : dict, optional
        Keyword arguments of the battery shared by every cell (e.g.
        ``estimators``, ``ci_methods``, ``replicates``, ``resamples``).
    seed : int
        The sweep's seed, passed to the battery in every cell: the cell
        ``dist=X, B=Y`` equals ``evpsim.coverage(X, Y, seed=seed,
        **options)`` (for the coverage battery; likewise for the others).
    store : str or Path, optional
        Checkpoint folder. Finished cells are kept there as they come in,
        and a sweep run again with the same grid computes only the missing
        ones. Default: a temporary folder, removed at the end.
    backend : {"process", "local", "dask"}
        Where cells run: in this process (on every numba thread), on
        ``workers`` local worker processes, or on a dask cluster (see
        :func:`~.backends.open_backend`).
    workers : int
        Local worker processes (``"local"``, or a local dask cluster).
    scheduler : str, optional
        Address of a running dask scheduler (with ``backend="dask"``).
    progress : bool
        Cells done, elapsed and estimated time left, on stderr.
    grid : Grid, optional
        An already validated grid (e.g. from :func:`load_toml`), instead of
        ``battery``, ``axes``, ``options`` and ``seed``.

    Returns
    -------
    xarray.Dataset
        See :func:`~.combine.combine`; attributes ``backend``, ``workers``
        (the worker processes the cells ran on, 0 when the store had them
        all) and ``cells_computed`` say how this run went.

    Raises
    ------
    StoreMismatch
        When ``store`` holds the cells of another sweep.
    KeyboardInterrupt
        On SIGINT (and whatever SIGTERM's handler raises, if it has one),
        after stopping the workers; the finished cells stay in the store.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.sweep("bias", {"dist": ["normal", "tang-small"], "B": [5, 10]},
    ...                   options={"method": "exact", "estimators": "V"})
    >>> dict(ds["bias"].sizes)
    {'dist': 2, 'B': 2, 'estimator': 1, 'n': 10}
    """
    with Signals() as signals:
        if grid is None:
            grid = Grid.make(battery, axes, options, seed)
        backend, workers, scheduler = check_backend(backend, workers, scheduler)
        cells = grid.cells()
        with tempfile.TemporaryDirectory(prefix="evpsim-sweep-") as tmp:
            kept = Store(store if store is not None else f"{tmp}/cells", grid)
            results = {cell_key(c): kept.load(c) for c in kept.finished(cells)}
            # the largest budgets first: workers finish together, not waiting on one big cell
            todo = sorted((c for c in cells if cell_key(c) not in results), key=lambda c: -c["B"])
            ran_on = 0
            if todo:
                # no more local processes than cells: the others would only start up
                if backend == "local":
                    workers = min(workers, len(todo))
                ran_on = _compute(grid, kept, todo, (backend, workers, scheduler), signals,
                                  total=len(cells), before=len(results), progress=progress)
                results.update({cell_key(c): kept.load(c) for c in todo})
            ds = combine_cells(grid, results)
        ds.attrs.update(backend=backend, workers=ran_on, cells_computed=len(todo))
        signals.check()
        return ds


def _compute(grid, kept, todo, backend, signals, *, total, before, progress):
    """Compute the cells ``todo`` on a backend, each kept in the store as it comes in.

    Parameters
    ----------
    grid : Grid
        The sweep's grid (battery, options and seed of every cell).
    kept : Store
        The checkpoint store, created here: nothing is written before the
        backend has started.
    todo : list of dict
        The cells to compute, in the order they are handed out.
    backend : (str, int, str or None)
        Backend, workers and scheduler, checked (see
        :func:`~.backends.open_backend`).
    signals : Signals
        Holds SIGINT and SIGTERM while a file is written.
    total, before : int
        Cells of the grid, and those the store had already.
    progress : bool
        Show the progress bar.

    Returns
    -------
    int
        The worker processes the cells ran on.
    """
    from ..montecarlo import Progress

    # what cannot travel to workers is refused before any starts; in this process, what
    # is registered here is known already
    registered = b"" if backend[0] == "process" else _registered()
    with open_backend(*backend) as runner:
        with signals.held():  # files are written whole, signal or not
            kept.create()
        ran_on = runner.workers
        bar = Progress(f"sweep ({total} cells, {before} kept)", total, enabled=progress,
                       initial=before, warmup=min(runner.slots, len(todo)))

        finished = itertools.count(before + 1)

        def done(cell, ds):
            with signals.held():
                kept.save(cell, ds)
            bar.update(next(finished))

        try:
            runner.run(todo, partial(_work, grid.battery, grid.options, grid.seed, registered),
                       done, signals)
        finally:
            bar.close()
    return ran_on
