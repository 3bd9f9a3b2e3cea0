"""Build the notebooks from their percent-format sources and execute them.

    python notebooks/build.py            # every notebook, full sizes
    python notebooks/build.py --quick    # small sizes (what the tests run)
    python notebooks/build.py NAME ...   # selected notebooks

A source ``src/NAME.py`` holds cells separated by ``# %%`` lines; a
``# %% [markdown]`` cell's lines drop their leading ``# ``. The executed
notebook, outputs included, is written to ``NAME.ipynb`` beside this file.
Notebooks read ``EVPSIM_QUICK=1`` to choose small sizes.
"""

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def parse_percent(text):
    """Cells of a percent-format script as a list of nbformat cells."""
    cells, kind, lines = [], None, []

    def flush():
        body = "\n".join(lines).strip("\n")
        if kind == "markdown":
            body = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#")
                             for ln in body.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(body))
        elif kind == "code" and body.strip():
            cells.append(nbformat.v4.new_code_cell(body))

    for line in text.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        elif kind is not None:
            lines.append(line)
    flush()
    return cells


def execute(nb, *, quick, cwd=HERE, timeout=3600):
    """Run every cell in a fresh kernel with working directory ``cwd``."""
    env_before = os.environ.get("EVPSIM_QUICK")
    os.environ["EVPSIM_QUICK"] = "1" if quick else "0"
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if env_before is None:
            os.environ.pop("EVPSIM_QUICK", None)
        else:
            os.environ["EVPSIM_QUICK"] = env_before
    return nb


def build(name, *, quick=False):
    src = HERE / "src" / f"{name}.py"
    nb = nbformat.v4.new_notebook(cells=parse_percent(src.read_text()))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    execute(nb, quick=quick)
    out = HERE / f"{name}.ipynb"
    tmp = out.with_suffix(".ipynb.part")
    nbformat.write(nb, tmp)
    os.replace(tmp, out)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    p.add_argument("--quick", action="store_true", help="small sizes")
    args = p.parse_args(argv)
    names = args.names or sorted(f.stem for f in (HERE / "src").glob("*.py"))
    for name in names:
        print(f"built {build(name, quick=args.quick)}", file=sys.stderr)


if __name__ == "__main__":
    main()
