"""Search results that show the matching text, from disk (``file://``) as well as from a server; rules first.

Sphinx's search page finds pages with its index (``searchindex.js``, loaded by a
``<script>`` tag), then fetches each page's HTML to show the text around the match. A
browser refuses that fetch for a page opened from disk (``file://``): each result logs a
CORS error and shows its title only. So the extension writes the text of every section
of every page into ``_static/kbsim-search-text.js`` (a script, which ``file://`` may load),
and the search page loads it with ``static/kbsim-search.js``, which:

* switches Sphinx's own page fetch off (``SHOW_SEARCH_SUMMARY``);
* gives each result the text around the first match, from the section the result
  points to, or, for a page found by its words, from the first section of the page that
  holds them (the link then goes to that section and names it, after the game's title
  when the site documents several games); a result that then points where an earlier
  one does is dropped;
* ranks the pages of rules references (the pages a ``{kbsim-rules}`` directive renders)
  above the others (the guide, the API): :data:`RULES_BOOST` is added to their score,
  more than an exact match of a Python object's name gets (11 + 15), and
  :data:`TITLE_BOOST` more to a heading of theirs that matches (a search for "rebuild"
  then lists the section "Rebuilding" first).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

from kbsim.sphinx.directives import rule_docs

logger = logging.getLogger(__name__)

#: The text index the search page loads (in the output's ``_static``).
TEXT_FILE = "kbsim-search-text.js"
#: The script that shows the text and ranks the results (shipped in ``static/``).
SCRIPT_FILE = "kbsim-search.js"
#: Added to the score of a result on a rules page (Sphinx scores: a title 15, a word 5, an object up to 26).
RULES_BOOST = 30
#: Added too when a rules page's result is a heading that matches (it then ranks above pages that merely use the word).
TITLE_BOOST = 20
#: The most characters of one section's own text kept in the index.
MAX_SECTION_TEXT = 4_000
_SKIP = (nodes.raw, nodes.comment, nodes.system_message, nodes.title, nodes.thead, addnodes.index, addnodes.toctree)


def _text(node: nodes.Node) -> str:
    """The visible text of a node: inline parts joined as they are, blocks with a space.

    Subsections and the descriptions of API objects have entries of their own, so they are left out.
    """
    if isinstance(node, nodes.Text):
        return str(node)
    if isinstance(node, _SKIP + (nodes.section, addnodes.desc)):
        return ""
    joiner = "" if isinstance(node, nodes.TextElement) else " "
    return joiner.join(_text(child) for child in node.children)


def _entry(anchor: str, title: str, children: list[nodes.Node]) -> list[str]:
    text = " ".join(" ".join(_text(child) for child in children).split())
    return [anchor, " ".join(title.split()), text[:MAX_SECTION_TEXT]]


def sections_text(doctree: nodes.document) -> list[list[str]]:
    """[anchor, title, own text] of every section of a page, and of every API object described, in reading order.

    A section's own text leaves out its subsections and the API objects it describes (each has its
    entry) and the raw HTML around folded settings tables; it is cut at :data:`MAX_SECTION_TEXT`
    characters. An object's entry is its signature and its description.
    """
    out = []
    for node in doctree.findall(lambda n: isinstance(n, nodes.section | addnodes.desc)):
        if isinstance(node, nodes.section):
            if node["ids"]:
                title = node[0].astext() if len(node) and isinstance(node[0], nodes.title) else ""
                out.append(_entry(node["ids"][0], title, node.children))
            continue
        signatures = [c for c in node.children if isinstance(c, addnodes.desc_signature) and c["ids"]]
        content = [c for c in node.children if isinstance(c, addnodes.desc_content)]
        for sig in signatures:
            out.append(_entry(sig["ids"][0], sig.astext(), content[0].children if content else []))
    return out


def add_search_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """``html-page-context``: the search page (only) loads the text index and the script."""
    if pagename == "search" and app.builder.format == "html":
        app.add_js_file(TEXT_FILE)
        app.add_js_file(SCRIPT_FILE)


def write_search_text(app: Sphinx, exc: Exception | None) -> None:
    """``build-finished``: write :data:`TEXT_FILE`: the sections' text of every page, and the rules pages.

    Every page is read from the saved doctrees, so an incremental build writes the index of
    the whole site too.
    """
    if exc is not None or app.builder.format != "html" or not getattr(app.builder, "search", False):
        return
    env = app.env
    docs = {}
    for docname in sorted(env.found_docs):
        try:
            doctree = env.get_doctree(docname)
        except OSError:  # a page that was never written (excluded from the build)
            continue
        docs[app.builder.get_target_uri(docname)] = sections_text(doctree)
    rules = rule_docs(env)
    games = {app.builder.get_target_uri(d): title for d, title in sorted(rules.items()) if d in env.found_docs}
    if len(set(games.values())) < 2:
        games = {}  # one game: its name in every result would say nothing
    data = {"boost": RULES_BOOST, "title_boost": TITLE_BOOST, "rules": sorted(rules), "games": games, "docs": docs}
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    text = "window.KBSIM_SEARCH = " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ";\n"
    (static / TEXT_FILE).write_text(text, encoding="utf-8")
