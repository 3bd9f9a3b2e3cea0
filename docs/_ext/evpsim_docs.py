"""Sphinx helpers of evpsim's documentation.

* The notebooks of ``notebooks/`` are copied into ``docs/notebooks/`` (made
  by the build, not committed) with an index page, and rendered by myst-nb
  with the outputs stored in them: nothing is executed here.
* ``evpsim-cli-help``: the ``--help`` of the ``evpsim`` command and of each
  subcommand, as the installed code prints it (so it cannot drift).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
NOTEBOOKS = ROOT / "notebooks"
RENDERED = DOCS / "notebooks"

INDEX_HEAD = """\
# Notebooks

Worked studies, rendered here with the outputs stored in them (computed at
full size). The notebooks run from any installation: they read only what the
package ships. To run them yourself, see
[Running the notebooks](../getting-started.md#running-the-notebooks); the slow
tests (`python -m pytest -m slow`) execute each one top to bottom at reduced
size.

"""


def _title(nb):
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return None


def notebook_pages():
    """``[(stem, title)]`` of the notebooks, in name order."""
    pages = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        pages.append((path.stem, _title(nb) or path.stem.replace("_", " ")))
    return pages


def descriptions():
    """``{stem: what it shows}`` from the table of ``notebooks/README.md``."""
    readme = NOTEBOOKS / "README.md"
    rows = readme.read_text(encoding="utf-8").splitlines() if readme.is_file() else []
    out = {}
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`") and cells[0].endswith(".ipynb`"):
            out[cells[0].strip("`")[:-len(".ipynb")]] = cells[1]
    return out


def _write_if_changed(path, data):
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)


def copy_notebooks(app=None):
    """Copy the notebooks beside the docs and write their index page."""
    RENDERED.mkdir(exist_ok=True)
    pages = notebook_pages()
    wanted = {f"{stem}.ipynb" for stem, _ in pages} | {"index.md"}
    for old in RENDERED.iterdir():
        if old.name not in wanted:
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()
    for stem, _ in pages:
        _write_if_changed(RENDERED / f"{stem}.ipynb", (NOTEBOOKS / f"{stem}.ipynb").read_bytes())
    what = descriptions()
    lines = [INDEX_HEAD, "| notebook | what it shows | download |", "|---|---|---|"]
    lines += [f"| [{title}]({stem}.ipynb) | {what.get(stem, '')} "
              f"| {{download}}`{stem}.ipynb <{stem}.ipynb>` |" for stem, title in pages]
    lines += ["", "```{toctree}", ":hidden:", ""] + [f"{stem}" for stem, _ in pages] + ["```", ""]
    _write_if_changed(RENDERED / "index.md", "\n".join(lines).encode())


def cli_help(command=None):
    """What ``evpsim [COMMAND] --help`` prints, at a fixed width."""
    from evpsim.cli import main

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            try:
                main([*([command] if command else []), "--help"])
            except SystemExit:
                pass
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return buf.getvalue().rstrip("\n")


def subcommands():
    """The subcommands, in the overview's order."""
    import argparse

    from evpsim.cli import build_parser

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def setup(app):
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class CliHelp(Directive):
        """``evpsim-cli-help [COMMAND]``: one command's help; without one, every command's."""

        optional_arguments = 1

        def run(self):
            if self.arguments:
                commands = [self.arguments[0]]
            else:
                commands = [None, *subcommands()]
            out = []
            for command in commands:
                title = f"evpsim {command} --help" if command else "evpsim --help"
                text = cli_help(command)
                ids = [nodes.make_id(f"cli-{command or 'evpsim'}")]
                rubric = nodes.rubric("", "", nodes.literal(title, title), ids=ids)
                block = nodes.literal_block(text, text)
                block["language"] = "none"
                out += [rubric, block]
            return out

    app.add_directive("evpsim-cli-help", CliHelp)
    app.connect("builder-inited", copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
