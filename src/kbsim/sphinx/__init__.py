"""Sphinx extension: the rules reference and the generated parts of the user guide.

Everything these directives print is read at build time from the same objects
the engine uses, so the documentation cannot drift from the code:

``{kbsim-rules} GAME`` (``:part: NAME``)
    The reference of one rule file (a shipped name or a path): overview,
    components, setup by player count (dealt by the engine itself), every rule
    section with its summary and settings, every character, every option with
    the default the engine applies, every variant, the clarifications and the
    executable examples; with ``:part:``, one of the pages a player reads
    (overview, setup, the turn, the end, characters, options, variants,
    clarifications, examples). With ``kbsim_rules_folder`` set in ``conf.py``,
    the extension writes those pages itself for every game of
    ``kbsim_rules_games`` (:mod:`~kbsim.sphinx.pages`). A ``provisional`` entry
    anywhere in the file becomes a warning box. kbsim's own words (headings,
    labels) are in the file's ``language`` (:mod:`~kbsim.sphinx.i18n`). The
    pages are laid out by the renderer of the file's engine family
    (:data:`kbsim.sphinx.directives.RENDERERS`, from the engine family registry):
    :class:`kbsim.sphinx.rows.RulesRenderer` for the ``rows`` family draws
    examples as boards of rows; :class:`kbsim.sphinx.market.MarketRulesRenderer` for the
    ``market`` family adds the card table (with its published totals) and
    draws examples as market lines, objectives and players' cards.
``{kbsim-games} [GAME...]``
    A table of rule files (default: the documented games), each linked to its reference.
``{kbsim-cli}``
    The command-line reference, walked from the typer application.
``{kbsim-records}``
    The columns of a records file, from :data:`kbsim.sim.records.SCHEMA`.
``{kbsim-schema}``
    The field reference of a rule file of every engine family, walked from
    the pydantic models, and the JSON Schema that ``kbsim rules schema``
    prints.
``{kbsim-fields} MODULE:MODEL``
    The field tables of a study-file section (the ``[tune]`` section), walked from its pydantic models.
``{kbsim-yaml} GAME PATH`` and ``{kbsim-example} GAME NAME``
    A part of a shipped rule file as written, and one example with its drawing,
    for the authoring guide.
``kbsim-notation`` and ``kbsim-automodules PACKAGE`` (reStructuredText, in ``eval-rst``)
    The example notation from :mod:`kbsim.engine.rows.notation`, and ``automodule``
    for every module of a package.

Entries get stable anchors (``option-NAME``, ``variant-NAME``,
``character-NAME``, ``example-NAME``, ``cli-kbsim-run``, ...) and Sphinx labels
``GAME-ANCHOR`` that links between the pages of a reference use
(:mod:`~kbsim.sphinx.links`); options, variants and characters are registered as
objects (``{rule-option}``, ``{rule-variant}``, ``{rule-character}`` roles with
``GAME.NAME`` targets), so Sphinx's search lists them by name. The search page
shows the text around each match, also opened from disk, and ranks the rules first
(:mod:`~kbsim.sphinx.search`). The build warns, which fails a ``-W`` build, when a
documented rule file has no reference page, when an example no longer gives its
stated result in the engine, when the engine cannot deal a game or draw an
example's board, or when a records column has no description.

Enable it with ``extensions = ["myst_parser", "kbsim.sphinx"]``. Configuration:
``kbsim_rules_folder`` (where to write the reference pages; default none),
``kbsim_rules_games`` (the games documented; default every shipped game),
``kbsim_reports`` ((title, path) of study reports published beside the rules,
linked from each game's first page). ``kbsim rules publish``
(:mod:`kbsim.sphinx.publish`) builds a whole site with it, without a source tree.

Modules: :mod:`~kbsim.sphinx.directives` (the page directives and the
build-environment bookkeeping), :mod:`~kbsim.sphinx.reference` (what every
family's reference shares), :mod:`~kbsim.sphinx.rows` and
:mod:`~kbsim.sphinx.market` (the renderers of the two engine families),
:mod:`~kbsim.sphinx.pages` (the pages of each game), :mod:`~kbsim.sphinx.links`,
:mod:`~kbsim.sphinx.search`, :mod:`~kbsim.sphinx.i18n` (kbsim's words, with the
message catalogs in ``locale/``), :mod:`~kbsim.sphinx.publish` (a site of its own),
:mod:`~kbsim.sphinx.helpers` (docutils node and rule-model helpers),
:mod:`~kbsim.sphinx.cli_reference` (``{kbsim-cli}``),
:mod:`~kbsim.sphinx.records_schema` (``{kbsim-records}``, ``{kbsim-schema}``);
the style sheet ``static/kbsim.css`` and the search script ``static/kbsim-search.js``
ship with the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.fileutil import copy_asset_file

from kbsim.sphinx.cli_reference import CliDirective
from kbsim.sphinx.directives import (
    AutomodulesDirective,
    ExampleDirective,
    GamesDirective,
    NotationDirective,
    RulesDirective,
    YamlDirective,
    check_all_rendered,
    merge_rendered,
    purge_rendered,
)
from kbsim.sphinx.fields import FieldsDirective
from kbsim.sphinx.i18n import DEFAULT, N_, Words
from kbsim.sphinx.links import ResolveRefs, kbsim_ref
from kbsim.sphinx.pages import write_reference_pages
from kbsim.sphinx.records_schema import RecordsDirective, SchemaDirective
from kbsim.sphinx.search import add_search_scripts, write_search_text

#: The folder of the extension's static files (``kbsim.css``), copied to the HTML output's ``_static``.
STATIC = Path(__file__).resolve().parent / "static"


def _copy_static(app: Sphinx) -> None:
    """Copy :data:`STATIC` (``kbsim.css``, ``kbsim-search.js``) into the HTML output's ``_static``, before writing.

    Copied by the extension rather than listed in ``html_static_path``, so that the
    project's configuration is never changed (which would make every later build a full one);
    copied before the pages are written, so that every page links them with the same checksum.
    """
    if app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        for path in sorted(STATIC.iterdir()):
            copy_asset_file(path, static / path.name, force=True)


#: The object types of rule entries: (name, what the search calls one, in kbsim's words).
OBJECT_TYPES = (
    ("rule-option", N_("rule option")),
    ("rule-variant", N_("rule variant")),
    ("rule-character", N_("character")),
)


def _object_types(app: Sphinx, config: Config) -> None:
    """``config-inited``: register the rule object types, named in the project's language."""
    words = Words(config.language or DEFAULT)
    for name, objname in OBJECT_TYPES:
        app.add_object_type(name, name, objname=words(objname))


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives, the object types, the configuration, the style sheet, the search and the checks.

    Args:
        app: the Sphinx application.

    Returns:
        The extension metadata (version, parallel read and write safe).
    """
    app.add_directive("kbsim-rules", RulesDirective)
    app.add_directive("kbsim-games", GamesDirective)
    app.add_directive("kbsim-cli", CliDirective)
    app.add_directive("kbsim-records", RecordsDirective)
    app.add_directive("kbsim-schema", SchemaDirective)
    app.add_directive("kbsim-fields", FieldsDirective)
    app.add_directive("kbsim-yaml", YamlDirective)
    app.add_directive("kbsim-example", ExampleDirective)
    app.add_directive("kbsim-notation", NotationDirective)
    app.add_directive("kbsim-automodules", AutomodulesDirective)
    app.add_config_value("kbsim_rules_folder", None, "env", types=frozenset({str, type(None)}))
    app.add_config_value("kbsim_rules_games", [], "env", types=frozenset({list, tuple}))
    app.add_config_value("kbsim_reports", [], "env", types=frozenset({list, tuple}))
    app.add_node(kbsim_ref)
    app.add_post_transform(ResolveRefs)
    app.connect("config-inited", _object_types)
    app.connect("builder-inited", write_reference_pages)
    app.connect("builder-inited", _copy_static)
    app.connect("env-purge-doc", purge_rendered)
    app.connect("env-merge-info", merge_rendered)
    app.connect("env-check-consistency", check_all_rendered)
    app.connect("html-page-context", add_search_scripts)
    app.connect("build-finished", write_search_text)
    app.add_css_file("kbsim.css")
    from kbsim import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
