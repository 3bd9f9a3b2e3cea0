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

import tempfile
from functools import partial

from .backends import BACKENDS, compute_cell, run_cells
from .combine import combine
from .grid import BATTERIES, Grid, load_toml
from .store import Store, cell_key

__all__ = ["sweep", "Grid", "BATTERIES", "BACKENDS", "load_toml", "Store"]


def _work(battery, options, seed, cell, threads):
    return compute_cell(battery, cell, options, seed, threads)


def sweep(battery, axes=None, *, options=None, seed=0, store=None, backend="process",
          workers=1, scheduler=None, progress=False, grid=None):
    """Run a battery over a grid of cells and combine the results.

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
    backend : {"process", "joblib", "dask"}
        Where cells run (see :func:`~.backends.run_cells`).
    workers : int
        Local worker processes (joblib, or a local dask cluster).
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
        See :func:`~.combine.combine`.

    Examples
    --------
    >>> import evpsim
    >>> ds = evpsim.sweep("bias", {"dist": ["normal", "tang-small"], "B": [5, 10]},
    ...                   options={"method": "exact", "estimators": "V"})
    >>> dict(ds["bias"].sizes)
    {'dist': 2, 'B': 2, 'estimator': 1, 'n': 10}
    """
    from ..montecarlo import Progress

    if grid is None:
        grid = Grid.make(battery, axes, options, seed)
    cells = grid.cells()
    with tempfile.TemporaryDirectory(prefix="evpsim-sweep-") as tmp:
        kept = Store(store if store is not None else f"{tmp}/cells", grid)
        # the largest budgets first: workers finish together, not waiting on one big cell
        todo = sorted((c for c in cells if not kept.has(c)), key=lambda c: -c["B"])
        bar = Progress(f"sweep ({len(cells)} cells, {len(cells) - len(todo)} kept)", len(cells),
                       enabled=progress)
        count = [len(cells) - len(todo)]

        def done(cell, ds):
            kept.save(cell, ds)
            count[0] += 1
            bar.update(count[0])

        try:
            run_cells(todo, partial(_work, grid.battery, grid.options, grid.seed), done,
                      backend=backend, workers=workers, scheduler=scheduler)
        finally:
            bar.close()
        results = {cell_key(c): kept.load(c) for c in cells}
        return combine(grid, results)
