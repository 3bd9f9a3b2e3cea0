"""One Dataset from a sweep's cells: the grid's axes as dimensions."""

from __future__ import annotations

__all__ = ["combine", "headline"]


def _on_axes(ds, grid, identity):
    """A cell's Dataset with a length-1 dimension for each grid axis.

    The scalar coordinates describing an axis's value (a truth's name,
    description and range) move onto that axis, so they survive the
    combination as coordinates along it.
    """
    for axis in grid.battery.axes:
        if axis in ds.dims:
            continue
        if axis in ds.coords:
            ds = ds.drop_vars(axis)
        ds = ds.expand_dims({axis: [identity[axis]]})
        affix = grid.battery.owner.get(axis)
        if affix:
            owned = [c for c in ds.coords if not ds[c].dims
                     and (c.startswith(affix) or c.endswith(affix))]
            ds = ds.assign_coords({c: (axis, [ds[c].values[()]]) for c in owned})
    return ds


def combine(grid, results):
    """The sweep's Dataset.

    Parameters
    ----------
    grid : Grid
        The sweep.
    results : dict
        Cell key -> the cell's Dataset, for every cell of the grid.

    Returns
    -------
    xarray.Dataset
        The battery's variables with the grid's axes as leading dimensions
        (``n`` padded with NaN where B differs), each axis value's
        description as coordinates along it, and the sweep's provenance
        (seed, grid, options) as attributes.
    """
    import xarray as xr

    from ...io.results import provenance
    from .store import cell_key

    axes = grid.battery.axes

    def nest(prefix, depth):
        if depth == len(axes):
            return _on_axes(results[cell_key(prefix)], grid, prefix)
        return [nest({**prefix, axes[depth]: v}, depth + 1) for v in grid.axes[axes[depth]]]

    ds = xr.combine_nested(nest({"battery": grid.battery.name}, 0), concat_dim=list(axes),
                           join="outer", coords="different", compat="equals",
                           combine_attrs="drop")
    ds = ds.transpose(*axes, ...)
    for var in ds.variables.values():
        var.encoding = {}  # the cells' file encodings (integer counts) do not fit NaN padding
    spec = grid.spec()
    ds.attrs.update(provenance(
        experiment=f"sweep of the {spec['battery']} battery", battery=spec["battery"],
        seed=spec["seed"], grid_axes=list(axes),
        **{f"grid_{a}": v for a, v in spec["axes"].items()},
        **{f"option_{k}": v for k, v in spec["options"].items()}))
    return ds


def headline(ds, battery):
    """The battery's headline variable in each cell, at n = B/2 or n = B.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.sweep`.
    battery : Battery
        Its battery (``BATTERIES[ds.attrs["battery"]]``).

    Returns
    -------
    dict
        ``value`` and, where the battery gives them, ``lower`` and
        ``upper`` (DataArrays without ``n``), and ``at`` (``"n = B/2"`` or
        ``"n = B"``).
    """
    import numpy as np
    import xarray as xr

    out = {"at": "n = B/2" if battery.at_half else "n = B"}
    for key, suffix in (("value", ""), ("lower", "_lower"), ("upper", "_upper")):
        name = battery.headline + suffix
        if name not in ds:
            continue
        var = ds[name]
        if "n" in var.dims:
            ns = xr.DataArray(np.maximum(1, ds["B"].values // 2) if battery.at_half
                              else ds["B"].values, dims="B", coords={"B": ds["B"]})
            var = var.sel(n=ns).drop_vars("n")
        out[key] = var
    return out
