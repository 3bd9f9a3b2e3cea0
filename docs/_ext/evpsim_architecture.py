"""The architecture of evpsim, read from the code's own imports.

* :func:`imports` reads every import of a module of ``evpsim/`` from its
  syntax tree (those inside functions too), without running it;
  ``tests/test_architecture.py`` and ``tests/test_layout.py`` check the
  layout's rules on what it reads.
* :data:`FLOORS` is the order the rooms stand in, from the ground up:
  :func:`allowed` says what a room may import (what stands on the floors
  below it), and ``tests/test_layout.py`` holds every import to it.
* :func:`draw` makes the picture of ``docs/about.md``: the rooms as boxes on
  their floors, an arrow for each room that imports another. The docs build
  draws it again whenever the imports recorded in the picture are no longer
  the code's; ``python docs/_ext/evpsim_architecture.py`` does it by hand.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
PACKAGE = DOCS.parent / "evpsim"
PICTURE = DOCS / "_static" / "architecture.svg"

#: the ground: modules that import nothing of evpsim
GROUND = ("evpsim._kernels", "evpsim._validate", "evpsim._format", "evpsim._version",
          "evpsim._startup", "evpsim._moved")

#: the rooms, floor by floor from the ground up; an import only goes down
FLOORS = (
    GROUND,
    ("evpsim.io",),
    ("evpsim.engine",),
    ("evpsim.truths",),
    ("evpsim.estimators", "evpsim.report"),
    ("evpsim.intervals",),
    ("evpsim.curves", "evpsim.studies"),
    ("evpsim.plugins", "evpsim", "evpsim.reproduce"),
    ("evpsim.cli",),
    ("evpsim.__main__",),
)

#: imports between rooms of one floor: the package's face loads the plugins when imported
SAME_FLOOR = {("evpsim", "evpsim.plugins")}

#: imports down the floors that are still refused: a CI method reads no figure or table
NEVER = {("evpsim.intervals", "evpsim.report")}

ROOMS = tuple(room for floor in FLOORS for room in floor)


def module_name(path):
    """The dotted name of the module at ``path``, a file of ``evpsim/``."""
    parts = list(Path(path).relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(dotted):
    """True when ``evpsim.a.b`` is a module or package file of the tree."""
    rel = Path(*dotted.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").is_file() or \
        (PACKAGE.parent / rel / "__init__.py").is_file()


def imports(path):
    """``(imported module, names taken from it)`` for every import in ``path``."""
    name = module_name(path)
    package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            names = [a.name for a in node.names]
            # "from . import mod" imports a module, not a name of the package
            modules = [f"{target}.{n}" for n in names if is_module(f"{target}.{n}")]
            out += [(m, []) for m in modules]
            rest = [n for n in names if not is_module(f"{target}.{n}")]
            if rest or not names:
                out.append((target, rest))
    return out


def modules():
    """``{module: imports(its file)}`` for every module of ``evpsim/``."""
    return {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def room(module):
    """The room of :data:`ROOMS` that holds ``module`` (None outside evpsim or the rooms)."""
    if module == "evpsim":
        return module
    found = [r for r in ROOMS if r != "evpsim" and (module == r or module.startswith(r + "."))]
    return max(found, key=len) if found else None


def floor(room_):
    """The floor of ``room_``: 0 for the ground."""
    return next(i for i, f in enumerate(FLOORS) if room_ in f)


def allowed(room_):
    """The rooms ``room_`` may import: those on the floors below it, and :data:`SAME_FLOOR`'s.

    :data:`NEVER`'s are not, nor is the package's face (``evpsim/__init__.py``),
    which is for users: no room takes names from it.
    """
    below = {r for r in ROOMS if floor(r) < floor(room_)}
    below |= {b for a, b in SAME_FLOOR if a == room_}
    return below - {b for a, b in NEVER if a == room_} - {"evpsim"}


def arrows(found=None):
    """The imports between rooms, in ``found`` (:func:`modules` by default).

    Returns ``{(importing room, imported room): ["module -> module", ...]}``,
    the imports behind each arrow sorted; an ``evpsim...`` path in no room
    (an old path, say) is under the room None.
    """
    found = modules() if found is None else found
    out = {}
    for module, taken in found.items():
        a = room(module)
        for target, _ in taken:
            if target != "evpsim" and not target.startswith("evpsim."):
                continue
            b = room(target)
            if b != a:
                out.setdefault((a, b), set()).add(f"{module} -> {target}")
    return {k: sorted(v) for k, v in sorted(out.items(), key=str)}


def _pictured():
    """The arrows the picture draws: between rooms above the ground.

    Returns ``[(importer, imported, direct)]``; ``direct`` is False where a
    path through other rooms leads there as well (the arrow is drawn faint).
    """
    pairs = {(a, b) for a, b in arrows() if a is not None and b is not None and
             a not in GROUND and b not in GROUND}
    step = {}
    for a, b in pairs:
        step.setdefault(a, set()).add(b)
    reach = {a: set(bs) for a, bs in step.items()}
    changed = True
    while changed:  # the transitive closure
        changed = False
        for a, bs in reach.items():
            more = set().union(*(reach.get(b, set()) for b in bs)) - bs
            bs |= more
            changed = changed or bool(more)
    return sorted((a, b, not any(b in reach.get(c, ()) for c in step[a] - {b}))
                  for a, b in pairs)


def _label(room_):
    return {"evpsim": "evpsim\n(the face)", "evpsim.__main__": "__main__"}.get(
        room_, room_.removeprefix("evpsim."))


def draw(path=PICTURE):
    """Draw the rooms on their floors and the arrows between them into ``path`` (SVG).

    Every room imports from the ground: those arrows are left out. An arrow
    that breaks :func:`allowed` is drawn red. The arrows drawn are recorded in
    the picture's description, for :func:`current`.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    matplotlib.rcParams["svg.hashsalt"] = "evpsim-architecture"
    drawn = _pictured()
    width, box_w, box_h, step = 10.0, 1.6, 0.42, 0.8
    where = {}
    fig, ax = plt.subplots(figsize=(width * 0.8, step * 0.8 * len(FLOORS) + 0.3))
    for level, rooms in enumerate(FLOORS):
        y = step * level
        if level == 0:
            text = "ground:  " + "  ".join(r.removeprefix("evpsim.") for r in rooms)
            _box(ax, FancyBboxPatch, width / 2, y, width - 0.4, box_h, text, "#e6e6e6")
            continue
        for k, r in enumerate(rooms):
            where[r] = (width * (k + 1) / (len(rooms) + 1), y)
            _box(ax, FancyBboxPatch, *where[r], box_w, box_h, _label(r), "#dbe8f5")
    for a, b, direct in drawn:
        (xa, ya), (xb, yb) = where[a], where[b]
        if ya == yb:  # on one floor: side to side
            start, end = (xa - box_w / 2 if xb < xa else xa + box_w / 2, ya), \
                (xb + box_w / 2 if xb < xa else xb - box_w / 2, yb)
        else:
            start, end = (xa, ya - box_h / 2), (xb, yb + box_h / 2)
        bend = 0.0 if direct else 0.25 if xa <= xb else -0.25
        colour = "#c00000" if b not in allowed(a) else "#1f4e79" if direct else "#a9bccf"
        ax.add_patch(FancyArrowPatch(
            start, end, arrowstyle="-|>", mutation_scale=10, color=colour, zorder=1,
            connectionstyle=f"arc3,rad={bend}", linewidth=1.3 if direct else 0.6))
    ax.set_xlim(0, width)
    ax.set_ylim(-step / 2, step * (len(FLOORS) - 0.5))
    ax.axis("off")
    fig.tight_layout(pad=0.1)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", metadata={
        "Date": None, "Title": "evpsim: rooms on their floors, arrows for imports",
        "Description": json.dumps([list(p) for p in drawn])})
    plt.close(fig)


def _box(ax, patch, x, y, w, h, text, colour):
    ax.add_patch(patch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                       facecolor=colour, edgecolor="#404040", linewidth=0.8, zorder=2))
    ax.text(x, y, text, ha="center", va="center", fontsize=9, zorder=3, family="monospace")


def recorded(path=PICTURE):
    """The arrows recorded in the picture at ``path`` (None if there is none)."""
    if not Path(path).is_file():
        return None
    found = re.search(r"<dc:description>(.*?)</dc:description>", Path(path).read_text(), re.S)
    if found is None:
        return None
    import html

    return [tuple(p) for p in json.loads(html.unescape(found.group(1)))]


def current(path=PICTURE):
    """True when the picture at ``path`` shows the imports the code has now."""
    return recorded(path) == _pictured()


def _redraw_if_stale(app):
    if not current():
        draw()


def setup(app):
    app.connect("builder-inited", _redraw_if_stale)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    draw()
    print(f"drew {PICTURE.relative_to(DOCS.parent)}")
