"""A sweep's grid: which battery, its cell axes, the options every cell shares.

A cell is one call of a battery, identified by its values on the grid's
axes (for example ``{"dist": "kde:reuters-lstm", "B": 30}``), with the
sweep's seed: the battery's random streams (:mod:`evpsim.engine.streams`) depend
on the seed and the cell's own values alone, so a cell's numbers do not
depend on where it sits in the grid, on which cells run with it, or on
where or when it runs, and they are those of the battery command with the
same truth, B, options and seed. Cells of one sweep draw from the same
streams (common random numbers): differences between truths are not blurred
by independent noise, but the cells are not independent replications.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from itertools import product
from typing import Callable

from ... import _validate as check

__all__ = ["BATTERIES", "Battery", "register_battery", "Grid", "load_toml"]


@dataclass(frozen=True)
class Battery:
    """How a sweep calls one battery.

    ``function`` is the study's dotted name (imported where the cell runs);
    ``axes`` are the battery's cell axes in grid order; ``owner`` maps an
    axis to the affix of the scalar coordinates that describe its value
    (a truth's name, description and range); ``resolve`` makes the object an
    owned axis's value names (a truth), for the checks made before any cell
    runs; ``options`` lists the keyword arguments every cell shares, with
    their defaults for sweeps.
    """

    name: str
    function: str
    axes: tuple
    owner: dict
    resolve: Callable
    options: dict = field(default_factory=dict)
    #: the variable a sweep's table and figure show, and whether at n = B/2 (else n = B)
    headline: str = ""
    at_half: bool = False

    def call(self, identity, options, seed):
        """The battery's Dataset for one cell."""
        from importlib import import_module

        module, _, name = self.function.rpartition(".")
        func = getattr(import_module(module), name)
        if self.name == "compare":
            return func(identity["a"], identity["b"], Bs=[identity["B"]], seed=seed, **options)
        more = {a: identity[a] for a in self.axes[2:]}  # e.g. the leaderboard's curve
        return func(identity["dist"], identity["B"], seed=seed, **more, **options)

    def check(self, identity, options, seed, truths):
        """Run the battery's own checks of one cell's arguments, and no computation.

        Every battery checks all its arguments before its first
        computation, the exact ``theta`` of its truths: the cell runs here
        with stand-ins of its truths (``truths``: spec -> Truth) whose
        ``theta`` stops it (see :func:`_stand_in`).
        """
        try:
            self.call({**identity, **{a: _stand_in(truths[identity[a]]) for a in self.owner}},
                      options, seed)
        except _Checked:
            pass


class _Checked(Exception):
    """A battery asked for theta: it has checked every argument."""


def _stand_in(truth):
    """A copy of ``truth`` whose ``theta`` and ``tau`` (its exact curves) raise
    :class:`_Checked`."""
    def curve(*args):
        raise _Checked

    stand_in = copy.copy(truth)
    object.__setattr__(stand_in, "theta", curve)
    object.__setattr__(stand_in, "tau", curve)
    return stand_in


#: the studies a sweep can run, by name; each registers itself (:func:`register_battery`)
BATTERIES = {}


def register_battery(battery):
    """Make ``battery`` (a :class:`Battery`) a study that sweeps run by its name."""
    BATTERIES[battery.name] = battery
    return battery


def axis_values(values, axis):
    """An axis's values: a non-empty list without repeats (B as integers)."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):  # one value (np.int64 too)
        values = [values]
    values = list(values)
    if not values:
        raise check.InvalidArgument(axis, f"{axis}: the grid axis has no values")
    if axis == "B":
        values = [check.B(v) for v in values]
    elif not all(isinstance(v, str) and v for v in values):
        raise check.InvalidArgument(axis, f"{axis}: values must be non-empty names, got "
                                          f"{values!r}")
    repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
    if repeated:
        raise check.InvalidArgument(axis, f"{axis}: {repeated[0]!r} is listed twice")
    return values


@dataclass(frozen=True)
class Grid:
    """A validated sweep: battery, axis values, shared options and seed."""

    battery: Battery
    axes: dict
    options: dict
    seed: int

    @classmethod
    def make(cls, battery, axes, options=None, seed=0):
        """Validate a grid.

        Parameters
        ----------
        battery : str
            One of :data:`BATTERIES`.
        axes : dict
            Axis name -> list of values, for every cell axis of the battery
            (``dist`` and ``B``; for ``compare``, ``a``, ``b`` and ``B``).
        options : dict, optional
            Keyword arguments every cell passes to the battery (see
            :data:`BATTERIES` for which and their sweep defaults).
        seed : int
            The sweep's seed, which every cell passes to the battery.
        """
        if not isinstance(battery, str) or battery not in BATTERIES:
            raise check.InvalidArgument("battery", f"unknown battery {battery!r}; known: "
                                                   f"{', '.join(BATTERIES)}")
        spec = BATTERIES[battery]
        if not isinstance(axes, dict):
            raise check.InvalidType("axes", "axes must map axis names to lists of values")
        unknown = [a for a in axes if a not in spec.axes]
        missing = [a for a in spec.axes if a not in axes]
        if unknown or missing:
            raise check.InvalidArgument(
                "axes", f"the {battery} battery's axes are {', '.join(spec.axes)}; "
                        + (f"unknown: {', '.join(unknown)}" if unknown else
                           f"missing: {', '.join(missing)}"))
        if options is not None and not isinstance(options, dict):
            raise check.InvalidType("options", f"options must map option names to values, got "
                                               f"{type(options).__name__}")
        options = dict(options or {})
        bad = [k for k in options if k not in spec.options]
        if bad:
            raise check.InvalidArgument(
                bad[0], f"{bad[0]} is not an option of a {battery} sweep; options: "
                        f"{', '.join(spec.options)}")
        values = {a: axis_values(axes[a], a) for a in spec.axes}
        grid = cls(spec, values, {**spec.options, **options}, check.seed(seed))
        # every cell's arguments are checked before any cell runs
        truths = {v: spec.resolve(v) for axis in spec.owner for v in values[axis]}
        for cell in grid.cells():
            spec.check(cell, grid.options, grid.seed, truths)
        return grid

    def cells(self):
        """Every cell's identity, in grid order (the last axis fastest)."""
        names = self.battery.axes
        return [{"battery": self.battery.name, **dict(zip(names, combo))}
                for combo in product(*(self.axes[a] for a in names))]

    def spec(self):
        """The grid as plain JSON data (what a checkpoint store records)."""
        return {"battery": self.battery.name, "axes": self.axes, "seed": self.seed,
                "options": {k: _plain(v) for k, v in self.options.items()}}

    def digest(self):
        """A short hash of :meth:`spec`, the same for the same sweep (e.g. ``'3f9c01ab'``)."""
        text = json.dumps(self.spec(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:8]


def _plain(value):
    """An option's value as JSON data: tuples as lists, numpy values as Python's."""
    if hasattr(value, "tolist"):  # a numpy scalar or array
        return value.tolist()
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def load_toml(path):
    """A grid from a TOML file.

    The file names the battery and its axes as lists, and may give the
    seed and any option::

        battery = "coverage"
        seed = 1
        dist = ["normal", "kde:reuters-lstm"]
        B = [10, 20, 50]
        [options]
        estimators = "U,V"
        replicates = 500

    Returns
    -------
    Grid
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as err:
        raise check.InvalidArgument("grid", f"grid file {str(path)!r}: "
                                            f"{check.os_reason(err)}") from None
    except UnicodeDecodeError:
        raise check.InvalidArgument("grid", f"grid file {str(path)!r} is not a text file "
                                            f"(UTF-8): give a TOML grid file") from None
    except tomllib.TOMLDecodeError as err:
        raise check.InvalidArgument("grid", f"grid file {str(path)!r} is not valid TOML: "
                                            f"{err}") from None
    battery = data.pop("battery", None)
    if battery is None:
        raise check.InvalidArgument("grid", f"grid file {str(path)!r} names no battery "
                                            f"(battery = \"coverage\", ...)")
    seed = data.pop("seed", 0)
    options = data.pop("options", {})
    if not isinstance(options, dict):
        raise check.InvalidArgument("grid", f"grid file {str(path)!r}: options must be a table")
    return Grid.make(battery, data, options, seed)
