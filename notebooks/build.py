"""Build the notebooks from their percent-format sources and execute them.

    python notebooks/build.py                # every notebook, full sizes
    python notebooks/build.py --quick        # small sizes (what the tests run)
    python notebooks/build.py NAME ...       # selected notebooks
    python notebooks/build.py --out DIR      # somewhere else than notebooks/_build

A source ``src/NAME.py`` holds cells separated by ``# %%`` lines; a
``# %% [markdown]`` cell's lines drop their leading ``# ``. The executed
notebook, outputs included, is written to ``DIR/NAME.ipynb`` (default
``notebooks/_build``), which is also the working directory of its kernel, so
the figures and files a notebook writes land there too. The committed
notebooks beside this file are never written: to update one, review the
built notebook and copy it over. Notebooks read ``EVPSIM_QUICK=1`` to choose
small sizes.
"""

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
BUILD = HERE / "_build"


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


def output_folder(out):
    """``out`` as an absolute folder, refused when it is the committed notebooks' own."""
    folder = Path(out).resolve()
    if folder == HERE:
        raise SystemExit(f"error: --out {out} is the folder of the committed notebooks; "
                         f"build elsewhere (default: {BUILD}) and copy what you reviewed")
    return folder


def build(name, *, quick=False, out=BUILD):
    """Execute ``src/NAME.py`` as a notebook in ``out`` and write ``out/NAME.ipynb``."""
    src = HERE / "src" / f"{name}.py"
    nb = nbformat.v4.new_notebook(cells=parse_percent(src.read_text()))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    folder = output_folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    execute(nb, quick=quick, cwd=folder)
    out = folder / f"{name}.ipynb"
    tmp = out.with_suffix(".ipynb.part")
    nbformat.write(nb, tmp)
    os.replace(tmp, out)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--out", default=str(BUILD),
                   help="folder of the built notebooks and of what they write "
                        "(default: %(default)s; never the committed notebooks' folder)")
    args = p.parse_args(argv)
    sources = {f.stem for f in (HERE / "src").glob("*.py")}
    unknown = [n for n in args.names if n not in sources]
    if unknown:
        p.error(f"no source notebooks/src/{unknown[0]}.py; choose from "
                f"{', '.join(sorted(sources))}")
    out = output_folder(args.out)
    for name in args.names or sorted(sources):
        print(f"built {build(name, quick=args.quick, out=out)}", file=sys.stderr)


if __name__ == "__main__":
    main()
