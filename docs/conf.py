"""Sphinx configuration of the kbsim documentation (``nox -s docs`` builds it with warnings as errors).

The rules reference and the generated parts of the guide (command line, records
columns, rule-file fields) are rendered at build time by :mod:`kbsim.sphinx`
from the installed package, so kbsim must be importable (``pip install -e ".[docs]"``).
"""

from __future__ import annotations

import kbsim

project = "kbsim"
author = "the kbsim developers"
copyright = "the kbsim developers"
release = version = kbsim.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "kbsim.sphinx",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

html_theme = "furo"
html_title = f"kbsim {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# The rules reference: kbsim.sphinx writes the pages of every shipped game (rules/GAME/index.md, setup.md, ...)
# into rules/ at each build (they are not committed), from the rule files themselves.
kbsim_rules_folder = "rules"
