"""Named registries that users extend without editing the package.

Estimators (:mod:`evpsim.estimators`) and CI methods
(:mod:`evpsim.intervals`) are kept in :class:`Registry` objects: names are
checked once here, built-ins cannot be replaced or removed, and unknown
names give one error listing what is known.
"""

from __future__ import annotations

from .._validate import InvalidArgument, InvalidType

#: every registry made, by the kind of its items (what a sweep's workers must know)
REGISTRIES = {}


class Registry:
    """An ordered ``name -> item`` map; items have ``.name`` and ``.builtin``.

    Parameters
    ----------
    kind : str
        What the items are, for error messages (e.g. ``"estimator"``).
    item_type : type
        Class of the items; an item passed where a name is expected is
        returned as it is.
    argument : str
        The argument that lists items (``"estimators"``), for messages.
    """

    def __init__(self, kind, item_type, argument):
        self.kind, self.item_type, self.argument = kind, item_type, argument
        self._items = {}
        REGISTRIES[kind] = self

    def check_new(self, name, *, overwrite=False):
        """Raise unless ``name`` is a valid name that may be (re)registered."""
        if not isinstance(name, str) or not name or any(
                not (c.isalnum() or c in "_-") for c in name):
            raise InvalidArgument("name", f"{self.kind} name must be a non-empty string of "
                                          f"letters, digits, '_' or '-', got {name!r}")
        existing = self._items.get(name)
        if existing is not None and (existing.builtin or not overwrite):
            raise InvalidArgument("name", f"a{'n' if self.kind[0] in 'aeiou' else ''} "
                                          f"{self.kind} named {name!r} is already registered"
                                          + ("" if existing.builtin else
                                             " (overwrite=True replaces it)"))

    def add(self, item, *, overwrite=False):
        """Register ``item`` under ``item.name`` (checked) and return it."""
        self.check_new(item.name, overwrite=overwrite)
        self._items[item.name] = item
        return item

    def get(self, name):
        """The item called ``name`` (``ValueError`` listing the known names)."""
        if isinstance(name, self.item_type):
            return name
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise InvalidArgument(self.argument, f"unknown {self.kind} {name!r}; known: "
                                                 f"{', '.join(self._items)}") from None

    def remove(self, name):
        """Unregister a user item; built-ins stay."""
        if self.get(name).builtin:
            raise InvalidArgument("name", f"cannot unregister built-in {self.kind} {name!r}")
        del self._items[name]

    def names(self, *, builtin_only=False):
        """Registered names in registration order."""
        return [k for k, v in self._items.items() if v.builtin or not builtin_only]

    def items(self):
        """``(name, item)`` pairs in registration order."""
        return self._items.items()

    def resolve(self, spec, default):
        """Items for ``None`` (``default`` names), ``"A,B"`` or a sequence."""
        if spec is None:
            names = list(default)
        elif isinstance(spec, str):
            names = [s.strip() for s in spec.split(",")]
        elif isinstance(spec, self.item_type):
            names = [spec]
        elif isinstance(spec, (bytes, dict)):  # never its letters (bytes) or keys (dict)
            raise InvalidType(self.argument, f"{self.argument} must be a name, a "
                                             f"comma-separated string of names or a list of "
                                             f"names, got {spec!r}")
        else:
            try:
                names = list(spec)
            except TypeError:
                raise InvalidType(self.argument, f"{self.argument} must be a name, a "
                                                 f"comma-separated string of names or a list of "
                                                 f"names, got {spec!r}") from None
        if not names:
            raise InvalidArgument(self.argument, f"{self.argument}: no {self.kind} names "
                                                 f"given")
        if any(n == "" for n in names):
            raise InvalidArgument(self.argument, f"{self.argument}: empty {self.kind} name "
                                                 f"in {spec!r}")
        items = [self.get(n) for n in names]
        seen = [i.name for i in items]
        if len(set(seen)) != len(seen):
            raise InvalidArgument(self.argument, f"{self.argument}: {self.kind} listed twice "
                                                 f"in {seen}")
        return items


def jit_function(func, what, trials, is_valid):
    """``func`` compiled with ``numba.njit``, after trials that refuse a bad one.

    A dispatcher is used as it is. Before that, a bounds-checked compilation
    of the same Python function runs on each of ``trials``, arguments of the
    types the kernels pass, so that a function numba cannot compile, one
    that indexes outside its arrays, raises, or returns the wrong kind of
    value is refused here, at registration, and not deep inside a battery
    (where an index out of bounds silently reads other memory).

    Parameters
    ----------
    func : callable
        The user's function.
    what : str
        Its expected signature, for messages.
    trials : sequence of (str, tuple)
        A description of each trial (``"n = 3 of a sample of 3"``) and its
        arguments.
    is_valid : callable
        ``is_valid(result)`` returns ``None`` for a good result, else what
        is wrong with it.
    """
    if not callable(func):
        raise InvalidType("func", f"func must be a callable {what}")
    import numba
    from numba.core.registry import CPUDispatcher

    py_func = func.py_func if isinstance(func, CPUDispatcher) else func
    try:
        checked = numba.njit(cache=False, boundscheck=True)(py_func)
    except Exception as err:  # not a function numba can take at all
        raise InvalidArgument("func", f"func cannot be compiled by numba: "
                                      f"{_first_line(err)}") from None
    for desc, args in trials:
        try:
            result = checked(*args)
        except Exception as err:  # numba's TypingError, IndexError, or the function's own
            raise InvalidArgument("func", f"func cannot run as {what} in numba ({desc}): "
                                          f"{_first_line(err)}") from None
        problem = is_valid(result)
        if problem:
            raise InvalidArgument("func", f"func must return {what.split('-> ')[-1]}; on "
                                          f"{desc} it returned {result!r} ({problem})")
    return func if isinstance(func, CPUDispatcher) else numba.njit(cache=False)(func)


def _first_line(err):
    """The informative line of an exception: numba's first line names only the stage."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    if not lines:
        return type(err).__name__
    if lines[0].startswith("Failed in nopython mode pipeline") and len(lines) > 1:
        return lines[1]
    return lines[0]
