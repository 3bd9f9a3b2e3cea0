"""Named registries that users extend without editing the package.

Estimators (:mod:`evpsim.estimators`) and CI methods
(:mod:`evpsim.intervals`) are kept in :class:`Registry` objects: names are
checked once here, built-ins cannot be replaced or removed, and unknown
names give one error listing what is known.
"""

from __future__ import annotations


class Registry:
    """An ordered ``name -> item`` map; items have ``.name`` and ``.builtin``.

    Parameters
    ----------
    kind : str
        What the items are, for error messages (e.g. ``"estimator"``).
    item_type : type
        Class of the items; an item passed where a name is expected is
        returned as it is.
    """

    def __init__(self, kind, item_type):
        self.kind, self.item_type = kind, item_type
        self._items = {}

    def add(self, item, *, overwrite=False):
        """Register ``item`` under ``item.name`` (checked) and return it."""
        name = item.name
        if not isinstance(name, str) or not name or any(
                not (c.isalnum() or c in "_-") for c in name):
            raise ValueError(f"{self.kind} name must be a non-empty string of letters, "
                             f"digits, '_' or '-', got {name!r}")
        existing = self._items.get(name)
        if existing is not None and (existing.builtin or not overwrite):
            raise ValueError(f"a{'n' if self.kind[0] in 'aeiou' else ''} {self.kind} named "
                             f"{name!r} is already registered")
        self._items[name] = item
        return item

    def get(self, name):
        """The item called ``name`` (``ValueError`` listing the known names)."""
        if isinstance(name, self.item_type):
            return name
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.kind} {name!r}; known: "
                             f"{', '.join(self._items)}") from None

    def remove(self, name):
        """Unregister a user item; built-ins stay."""
        if self.get(name).builtin:
            raise ValueError(f"cannot unregister built-in {self.kind} {name!r}")
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
        else:
            names = list(spec)
        if not names or any(n == "" for n in names):
            raise ValueError(f"empty {self.kind} name in {spec!r}")
        items = [self.get(n) for n in names]
        seen = [i.name for i in items]
        if len(set(seen)) != len(seen):
            raise ValueError(f"{self.kind} listed twice in {seen}")
        return items


def jit_function(func, what):
    """``func`` compiled with ``numba.njit`` unless it already is a dispatcher."""
    if not callable(func):
        raise TypeError(f"func must be a callable {what}")
    import numba
    from numba.core.registry import CPUDispatcher

    return func if isinstance(func, CPUDispatcher) else numba.njit(cache=False)(func)
