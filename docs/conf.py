"""Sphinx configuration of evpsim's documentation.

Build (what ``tests/test_docs.py`` runs, warnings as errors)::

    python -m pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The notebooks are rendered with the outputs stored in them, never executed
here (the slow tests execute them); the output-schema tables come from
``reference/schema.json``, generated from real runs by ``_ext/evpsim_schema.py``.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("EVPSIM_NO_PLUGINS", "1")  # document evpsim, not what else is installed

import evpsim  # noqa: E402

project = "evpsim"
author = "evpsim developers"
copyright = "2026, evpsim developers"
release = evpsim.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "evpsim_schema",
    "evpsim_docs",
    "evpsim_architecture",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}  # .rst first: autosummary writes its stubs with the first
root_doc = "index"
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "_ext", "runs"]  # runs/: included by pages, not pages
templates_path = ["_templates"]
highlight_language = "none"
pygments_style = "sphinx"
nitpicky = False
# a command block whose output has a line starting with "# " (a reproduction's
# summary) is lexed as a root prompt; pygments then renders it plain
suppress_warnings = ["misc.highlighting_failure"]

# --- API reference: autosummary pages from the numpydoc docstrings
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# --- Markdown and notebooks
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the stored outputs; execution is the slow tests' job
nb_merge_streams = True

# --- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"evpsim {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "changelog": [], "citing": [], "gallery": []}
