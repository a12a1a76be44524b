"""Sphinx configuration of the neml2 documentation site (built by ``nox -s docs``).

MyST Markdown pages, the API reference from the packages' docstrings (autodoc over the installed
packages), tutorials executed at build time by sphinx-gallery (``tutorials/*.py`` →
``generated/tutorials``) and the input-file syntax generated from the model registry
(``_ext/neml2_syntax.py`` → ``generated/syntax``). Every warning is an error in ``nox -s docs``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib
from sphinx.application import Sphinx

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

from plain_text import escape_inline  # noqa: E402

import neml2  # noqa: E402

project = "neml2"
author = "the neml2 developers"
copyright = "the neml2 developers, LGPL-2.1-or-later"
release = neml2.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx_gallery.gen_gallery",
    "neml2_syntax",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "tutorials/GALLERY_HEADER.rst"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings: list[str] = []

html_theme = "furo"
html_title = f"neml2 {release}"
html_static_path: list[str] = []

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True

# Tutorials run at build time, one at a time, on the CPU in float64; a failing tutorial fails
# the build.
os.environ.setdefault("OMP_NUM_THREADS", "1")
sphinx_gallery_conf = {
    "examples_dirs": ["tutorials"],
    "gallery_dirs": ["generated/tutorials"],
    "filename_pattern": r".*\.py$",
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
}


def _plain_binding_docstrings(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """The pybind11 bindings (``neml2.aoti._aoti``) document themselves in plain text."""
    if (getattr(obj, "__module__", None) or "") == "neml2.aoti._aoti":
        lines[:] = [escape_inline(line) for line in lines]


def setup(app: Sphinx) -> None:
    app.connect("autodoc-process-docstring", _plain_binding_docstrings)
