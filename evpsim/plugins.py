"""Plugins: estimators and CI methods that other packages add through entry points.

A package adds estimators to evpsim by declaring entry points in the group
``evpsim.estimators``, and CI methods in the group ``evpsim.ci_methods``;
``import evpsim`` registers them, so that every battery, ``evpsim curve``
and ``evpsim list`` know them, with no import or call in the user's code.
In the plugin's ``pyproject.toml``::

    [project.entry-points."evpsim.estimators"]
    demo = "evpsim_plugin_demo:estimators"

    [project.entry-points."evpsim.ci_methods"]
    demo = "evpsim_plugin_demo:CI_METHODS"

The contract
------------
Each entry point names an object (``module:attribute``) that is

* a mapping of the keyword arguments of :func:`evpsim.register_estimator`
  (group ``evpsim.estimators``) or :func:`evpsim.register_ci_method`
  (``evpsim.ci_methods``), ``name`` included;
* a list or tuple of such mappings (empty: nothing to register, e.g. when an
  optional dependency of the plugin is missing);
* or a callable taking no arguments that returns either, called once when
  evpsim loads its plugins (heavy imports of the plugin can wait until
  then).

For example, with one Python estimator and one band CI method::

    import numpy as np

    def best_so_far(scores, ns):
        return np.maximum.accumulate(scores)[np.minimum(ns, len(scores)) - 1]

    def estimators():
        return [{"name": "demo-best", "python": best_so_far,
                 "description": "the best of the first n trials"}]

    def wide_dkw(B, level):  # bounds on the CDF over the B + 1 gaps
        eps = 2 * np.sqrt(np.log(2 / (1 - level)) / (2 * B))
        ecdf = np.arange(B + 1) / B
        return np.clip(ecdf - eps, 0, 1), np.clip(ecdf + eps, 0, 1)

    CI_METHODS = {"name": "demo-dkw2", "band": wide_dkw,
                  "description": "a DKW band twice as wide"}

Registrations run their trials at every ``import evpsim``: ``python=``,
``weights=`` and ``band=`` cost next to nothing, but a numba function
(``func=``) is compiled for its trial: most of a second each time evpsim
starts.

evpsim sets each registration's ``source`` to the package that provides it,
as ``evpsim list`` shows it: ``"evpsim-plugin-demo 0.1 (plugin)"``; a
``source`` given in the mapping (a paper) comes first: ``"Smith et al. 2025;
evpsim-plugin-demo 0.1 (plugin)"``. A mapping may not ask to ``overwrite``:
a name that is taken, by a built-in or by a plugin loaded before (plugins
load in the order of their package's name; a package's estimators first,
then its CI methods, each group by entry point name), is a clash.

Loading
-------
A plugin is a package: each loads on its own, and either registers all
that its entry points provide or nothing. A broken one -- a module fails to
import, an object is none of the above, a callable raises, a registration
fails its trial (see :func:`evpsim.register_estimator`) or a name is taken
-- is reported as one line, a warning of category :class:`PluginWarning`
naming the package, the entry point and the problem, and evpsim carries on
without it: ``import evpsim`` and the ``evpsim`` commands never fail
because of a plugin. The warning is a Python warning, not a bare line on stderr, so that
programs and tests can catch it, filter it or turn it into an error (before
``import evpsim``: ``warnings.filterwarnings("error",
module="evpsim.plugins")``, or ``PYTHONWARNINGS=error:::evpsim.plugins``);
it is issued with no source line, so under the default filters it prints
as one line. Set ``EVPSIM_NO_PLUGINS=1`` to load no plugin, to tell whether
a problem comes from one.

Finding the entry points reads the metadata of every installed package
once: about 7 ms of ``import evpsim`` (which takes over a second) with 90
packages installed.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from importlib import metadata
from typing import Callable, NamedTuple

from . import _validate as check
from .engine.registry import _first_line
from .estimators.family import (get_estimator, list_estimators, register_estimator,
                                unregister_estimator)
from .intervals.family import (get_ci_method, list_ci_methods, register_ci_method,
                               unregister_ci_method)

__all__ = ["PluginWarning", "load_plugins", "DISABLE"]

#: the environment variable that, set to 1, keeps plugins from loading
DISABLE = "EVPSIM_NO_PLUGINS"


class PluginWarning(UserWarning):
    """A plugin that could not be loaded (evpsim carries on without it)."""


class _Group(NamedTuple):
    """What the plugins of one entry-point group register, and how."""

    noun: str
    register: Callable
    unregister: Callable
    get: Callable
    names: Callable


#: the entry-point groups evpsim reads
GROUPS = {
    "evpsim.estimators": _Group("estimator", register_estimator, unregister_estimator,
                                get_estimator, list_estimators),
    "evpsim.ci_methods": _Group("CI method", register_ci_method, unregister_ci_method,
                                get_ci_method, list_ci_methods),
}

#: packages already loaded or refused, so that loading again takes only new ones
_SEEN = set()


class _Broken(Exception):
    """What is wrong with a plugin, in words."""


def load_plugins():
    """Register the estimators and CI methods of every installed plugin.

    ``import evpsim`` calls it; call it again to load plugins installed
    since (packages loaded or refused before are skipped). Each package
    registers everything its entry points provide or nothing; a broken one
    is one :class:`PluginWarning` (see the module docstring). Nothing is loaded
    when the environment variable ``EVPSIM_NO_PLUGINS`` is set to anything
    but ``""`` or ``0``.
    """
    if os.environ.get(DISABLE, "") not in ("", "0"):
        return
    try:
        found = metadata.entry_points()
        packages = {}  # each package's entry points, by group, then by name
        for group in GROUPS:
            for ep in sorted(found.select(group=group), key=lambda ep: ep.name):
                packages.setdefault(_package(ep), []).append(ep)
    except Exception as err:  # metadata of some installed package that cannot be read
        _warn(f"evpsim plugins not loaded: the installed packages' entry points cannot be "
              f"read: {type(err).__name__}: {_first_line(err)}")
        return
    for package in sorted(packages.keys() - _SEEN):
        _SEEN.add(package)
        done = []  # (group, name) of each registration, taken back if the package fails
        try:
            for ep in packages[package]:
                _load(ep, GROUPS[ep.group], f"{package} (plugin)", done)
        except _Broken as err:
            for group, name in reversed(done):
                group.unregister(name)
            _warn(f"evpsim plugin {package} not loaded: {ep.group} entry point {ep.name!r}: "
                  f"{err}")


def _package(ep):
    """``"NAME VERSION"`` of the distribution that declares ``ep``."""
    return f"{ep.dist.name} {ep.dist.version}"


def _warn(message):
    """One line under the default filters: no source line (line 0), no stack level."""
    warnings.warn_explicit(message, PluginWarning, "evpsim.plugins", 0,
                           module="evpsim.plugins")


def _failures():
    """What a plugin may raise and be refused for: any exception, its own ``sys.exit``
    (which ends nothing but itself), and a ``KeyboardInterrupt`` it raises itself while
    the ``evpsim`` command starts (a Ctrl-C then ends the command at once, raising
    nothing: :func:`evpsim._startup.guard`)."""
    from ._startup import guarding

    return (Exception, SystemExit, KeyboardInterrupt) if guarding() else (Exception,
                                                                           SystemExit)


def _load(ep, group, origin, done):
    """Register what ``ep`` provides with source ``origin``, appending ``(group, name)``
    of each to ``done``; ``_Broken`` says what went wrong."""
    try:
        obj = ep.load()
    except _failures() as err:
        raise _Broken(f"importing {ep.value} failed: {_raised(err)}") from None
    if callable(obj) and not isinstance(obj, Mapping):
        try:
            obj = obj()
        except _failures() as err:
            raise _Broken(f"{ep.value}() raised {_raised(err)}") from None
    specs = [obj] if isinstance(obj, Mapping) else obj
    if not isinstance(specs, (list, tuple)) or not all(isinstance(s, Mapping) for s in specs):
        raise _Broken(f"{ep.value} must be a mapping of {group.register.__name__}'s keyword "
                      f"arguments, a list of them or a callable returning either, not "
                      f"{_kind_of(obj)}")
    for spec in specs:
        done.append((group, _register(spec, group, origin)))


def _raised(err):
    """``"RuntimeError: no GPU found"``, ``"SystemExit: sys.exit(3) called"``."""
    if isinstance(err, SystemExit):
        return f"SystemExit: sys.exit({'' if err.code is None else repr(err.code)}) called"
    text = _first_line(err)
    return type(err).__name__ + (f": {text}" if text != type(err).__name__ else "")


def _kind_of(obj):
    """``"a str"``, ``"a list holding a float"``: what a plugin gave instead of mappings."""
    if obj is None:
        return "None"
    if isinstance(obj, (list, tuple)):
        bad = next(s for s in obj if not isinstance(s, Mapping))
        return f"a {type(obj).__name__} holding {_kind_of(bad)}"
    return f"a{'n' if type(obj).__name__[0] in 'aeiou' else ''} {type(obj).__name__}"


def _register(spec, group, origin):
    """Register one mapping of keyword arguments with ``origin`` as its source; its name."""
    spec = dict(spec)
    name = spec.get("name")
    what = f"{group.noun} {name!r}"
    if "overwrite" in spec:
        raise _Broken(f"{what}: a plugin cannot overwrite (remove 'overwrite' from the "
                      f"mapping)")
    if isinstance(name, str) and name in group.names():
        taken = group.get(name)
        owner = (f"a built-in {group.noun}" if taken.builtin else
                 f"the {group.noun} of {taken.source}" if taken.source else
                 f"another {group.noun}")
        raise _Broken(f"{what}: the name is taken by {owner}")
    try:
        paper = check.string(spec.pop("source", ""), "source", empty=True)
        group.register(**spec, source=f"{paper}; {origin}" if paper else origin)
    except (Exception, SystemExit) as err:
        raise _Broken(f"{what} not registered: {_first_line(err)}") from None
    return name
