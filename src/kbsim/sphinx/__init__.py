"""Sphinx extension: the rules reference and the generated parts of the user guide.

Everything these directives print is read at build time from the same objects
the engine uses, so the documentation cannot drift from the code:

``{kbsim-rules} GAME``
    The whole reference of one rule file: overview, components, setup by
    player count (dealt by the engine itself), every rule section with its
    summary and settings, every character, every option with the default the
    engine applies, every variant, the clarifications and the executable
    examples. A ``provisional`` entry anywhere in the file becomes a warning
    box. The page is laid out by the renderer of the file's engine family
    (:data:`kbsim.sphinx.directives.RENDERERS`, from the engine family registry):
    :class:`kbsim.sphinx.rows.RulesRenderer` for the ``rows`` family draws
    examples as boards of rows; :class:`kbsim.sphinx.market.MarketRulesRenderer` for the
    ``market`` family adds the card table (with its published totals) and
    draws examples as market lines, objectives and players' cards.
``{kbsim-games}``
    A table of the shipped rule files, each linked to its reference page.
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
``character-NAME``, ``example-NAME``, ``cli-kbsim-run``, ...) and options,
variants and characters are registered as objects (``{rule-option}``,
``{rule-variant}``, ``{rule-character}`` roles with ``GAME.NAME`` targets), so
Sphinx's search lists them by name. The build warns, which fails a ``-W``
build, when a shipped rule file has no reference page, when an example no
longer gives its stated result in the engine, when the engine cannot deal a
game or draw an example's board, or when a records column has no description.

Enable it with ``extensions = ["myst_parser", "kbsim.sphinx"]``.

Modules: :mod:`~kbsim.sphinx.directives` (the page directives and the
build-environment bookkeeping), :mod:`~kbsim.sphinx.rows` and
:mod:`~kbsim.sphinx.market` (the renderers of the two engine families),
:mod:`~kbsim.sphinx.helpers` (docutils node and rule-model helpers),
:mod:`~kbsim.sphinx.cli_reference` (``{kbsim-cli}``),
:mod:`~kbsim.sphinx.records_schema` (``{kbsim-records}``, ``{kbsim-schema}``);
the style sheet is ``static/kbsim.css``, shipped with the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
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
from kbsim.sphinx.records_schema import RecordsDirective, SchemaDirective

#: The folder of the extension's static files (``kbsim.css``), copied to the HTML output's ``_static``.
STATIC = Path(__file__).resolve().parent / "static"


def _copy_static(app: Sphinx, exc: Exception | None) -> None:
    """Copy :data:`STATIC` (``kbsim.css``) into the HTML output's ``_static`` after a successful build.

    Copied by the extension rather than listed in ``html_static_path``, so that the
    project's configuration is never changed (which would make every later build a full one).
    """
    if exc is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        for path in sorted(STATIC.iterdir()):
            copy_asset_file(path, static / path.name, force=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives, the object types, the style sheet and the build checks.

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
    app.add_object_type("rule-option", "rule-option", objname="rule option")
    app.add_object_type("rule-variant", "rule-variant", objname="rule variant")
    app.add_object_type("rule-character", "rule-character", objname="character")
    app.connect("env-purge-doc", purge_rendered)
    app.connect("env-merge-info", merge_rendered)
    app.connect("env-check-consistency", check_all_rendered)
    app.connect("build-finished", _copy_static)
    app.add_css_file("kbsim.css")
    from kbsim import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
