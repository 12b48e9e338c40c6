"""The directives of the rules reference and the guide, and the build-environment bookkeeping."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from kbsim.engine.families import FAMILIES
from kbsim.rules.loader import LoadedRules
from kbsim.sphinx.helpers import character_items, code, table
from kbsim.sphinx.i18n import DEFAULT, N_, Words
from kbsim.sphinx.links import make_ref
from kbsim.sphinx.reference import ReferenceRenderer
from kbsim.sphinx.rows import RulesRenderer

logger = logging.getLogger(__name__)

#: The page renderer of each engine family (a rule file's ``family``), from :mod:`kbsim.engine.families`.
RENDERERS: dict[str, type[ReferenceRenderer]] = {name: f.part("docs_renderer") for name, f in FAMILIES.items()}


def renderer_class(model: Any) -> type[ReferenceRenderer]:
    """The renderer of a validated rule file's engine family (:data:`RENDERERS`)."""
    return RENDERERS.get(getattr(model, "family", "rows") or "rows", RulesRenderer)


def make_renderer(directive: SphinxDirective, game: str, labels: bool = True) -> ReferenceRenderer:
    """The renderer of a rule file's engine family (:data:`RENDERERS`), with the rules loaded once."""
    from kbsim.rules.loader import load_rules

    loaded = load_rules(game)
    return renderer_class(loaded.model)(directive, game, labels=labels, loaded=loaded)


def note_files(env: Any, loaded: LoadedRules) -> None:
    """Note every file ``loaded`` was read from (:attr:`LoadedRules.files`) as a dependency of the current page.

    Sphinx then rebuilds the page, in an incremental build, when the rule file or a file it
    names (a card table) changes.

    Args:
        env: the build environment.
        loaded: the rules the page is generated from.
    """
    for path in loaded.files:
        env.note_dependency(str(Path(path).resolve()))


class RulesDirective(SphinxDirective):
    """``{kbsim-rules} GAME``: the reference of one rule file (a shipped game's name or a path), or one of its pages.

    With ``:part: NAME`` (a name from :meth:`~kbsim.sphinx.reference.ReferenceRenderer.parts`:
    ``index``, ``setup``, ``turn``, ``characters``, ``options``...), only that page; without it,
    the whole reference on one page. :mod:`kbsim.sphinx.pages` writes a page for each part.
    """

    required_arguments = 1
    has_content = False
    final_argument_whitespace = True
    option_spec = {"part": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        """The rendered page; an unknown game, invalid rule file or unknown part is a directive error."""
        from kbsim.rules.loader import RulesError

        game = self.arguments[0]
        part = self.options.get("part") or None
        try:
            renderer = make_renderer(self, game)
            note_files(self.env, renderer.loaded)
            page = renderer.render(part)
        except (RulesError, ValueError) as e:
            raise self.error(f"kbsim-rules {game}: {e}") from None
        rendered = _rendered(self.env)
        if part in (None, "index"):
            rendered[renderer.game] = self.env.docname
        rule_docs(self.env)[self.env.docname] = renderer.model.title
        if part is not None:
            parts = renderer.parts(renderer.model)
            characters = [p for p in parts if p.startswith("character-")]
            examples = [p for p in parts if p.startswith("examples-")]
            below = {
                "index": [p for p in parts[1:] if p not in characters + examples],
                "characters": characters,
                "examples": examples,
            }.get(part, [])
            if below and page and isinstance(page[-1], nodes.section):
                page[-1] += self.toctree(below)
        return page

    def toctree(self, parts: list[str]) -> list[nodes.Node]:
        """A hidden table of contents of the pages of ``parts`` beside this one (those that exist).

        It sits inside the page's section, so the navigation lists the pages under the page's title.
        """
        from sphinx.util import docname_join

        docnames = [docname_join(self.env.docname, p) for p in parts]
        docnames = [d for d in docnames if d in self.env.found_docs]
        if not docnames:
            return []
        toc = addnodes.toctree()
        toc["parent"] = self.env.docname
        toc["entries"] = [(None, d) for d in docnames]
        toc["includefiles"] = docnames
        toc["maxdepth"] = -1
        toc["caption"] = None
        toc["glob"] = False
        toc["hidden"] = True
        toc["includehidden"] = False
        toc["numbered"] = 0
        toc["titlesonly"] = False
        self.set_source_info(toc)
        wrapper = nodes.compound(classes=["toctree-wrapper"])
        wrapper += toc
        return [wrapper]


def _rendered(env: Any) -> dict[str, str]:
    """Map of game -> docname of the page that renders it (kept in the build environment)."""
    if not hasattr(env, "kbsim_rendered"):
        env.kbsim_rendered = {}
    return env.kbsim_rendered


def rule_docs(env: Any) -> dict[str, str]:
    """Docname -> game title of each page of a rules reference (kept in the build environment).

    The search ranks these pages first and names the game of each result.
    """
    if not hasattr(env, "kbsim_rule_docs"):
        env.kbsim_rule_docs = {}
    return env.kbsim_rule_docs


class YamlDirective(SphinxDirective):
    """``{kbsim-yaml} GAME PATH``: a part of a shipped rule file, as written (``options.hand_size``)."""

    required_arguments = 2

    def run(self) -> list[nodes.Node]:
        """A YAML literal block of the part at the dotted path, nested under its parent keys."""
        from kbsim.rules.loader import RulesError, find_rule_file, read_document

        game, dotted = self.arguments
        try:
            path = find_rule_file(game)
            doc = read_document(path)
        except RulesError as e:
            raise self.error(f"kbsim-yaml {game}: {e}") from None
        self.env.note_dependency(str(path.resolve()))
        node: Any = doc
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                raise self.error(f"kbsim-yaml: {path.name} has no {dotted!r}")
            node = node[part]
        for part in reversed(dotted.split(".")):
            node = {part: node}
        text = yaml.safe_dump(node, sort_keys=False, allow_unicode=True, width=100).strip()
        return [nodes.literal_block(text, text, language="yaml")]


class ExampleDirective(SphinxDirective):
    """``{kbsim-example} GAME NAME``: one example of a rule file, its YAML and its drawing."""

    required_arguments = 2

    def run(self) -> list[nodes.Node]:
        """The example's YAML as written, then its drawing without the section title."""
        from kbsim.rules.loader import RulesError, read_document

        game, name = self.arguments
        try:
            renderer = make_renderer(self, game, labels=False)
            source = read_document(renderer.loaded.source)
            note_files(self.env, renderer.loaded)  # rebuilt when the rule file or its card table changes
        except RulesError as e:
            raise self.error(f"kbsim-example {game}: {e}") from None
        found = [ex for ex in renderer.model.examples if ex.name == name]
        if not found:
            raise self.error(f"kbsim-example: {game} has no example named {name!r}")
        raw = next(ex for ex in source.get("examples", []) if ex.get("name") == name)
        text = yaml.safe_dump({"examples": [raw]}, sort_keys=False, allow_unicode=True, width=100).strip()
        drawn = renderer.example(found[0])
        body = drawn.children[1:]  # without the section title: it sits inside the guide's text
        return [nodes.literal_block(text, text, language="yaml"), *body]


class NotationDirective(SphinxDirective):
    """``kbsim-notation`` (in an ``eval-rst`` block): the example notation, from :mod:`kbsim.engine.rows.notation`.

    The module docstring's blocks (a heading line, then indented text) become a bold
    lead-in and a paragraph, or a table when every line is ````FORM````, spaces, meaning.
    """

    def run(self) -> list[nodes.Node]:
        """The notation blocks parsed as reStructuredText."""
        from docutils.statemachine import StringList

        from kbsim.engine.rows import notation

        lines = notation_rst(notation.__doc__ or "")
        container = nodes.container()
        source = StringList(lines, source="<kbsim.engine.rows.notation>")
        self.state.nested_parse(source, self.content_offset, container)
        return container.children


def notation_rst(doc: str) -> list[str]:
    """Return reStructuredText for the blocks of the notation docstring (see :class:`NotationDirective`)."""
    blocks: list[tuple[str, list[str]]] = []
    for line in doc.splitlines():
        if line and not line[0].isspace():
            blocks.append((line.strip(), []))
        elif line.strip() and blocks:
            blocks[-1][1].append(line.strip())
    out: list[str] = []
    form = re.compile(r"^(``.+?``)\s{2,}(.+)$")
    for head, body in blocks:
        if not body:
            continue
        rows = [form.match(b) for b in body]
        if all(rows):
            out += [
                f".. list-table:: {head}",
                "   :header-rows: 1",
                "   :widths: 3 7",
                "",
                "   * - Form",
                "     - Meaning",
            ]
            for m in rows:
                out += [f"   * - {m.group(1)}", f"     - {m.group(2)}"]
            out.append("")
        else:
            out += [f"**{head.rstrip('.')}.** " + " ".join(body), ""]
    return out or ["::", "", *["   " + line for line in doc.splitlines()], ""]


# ------------------------------------------------------------------ list of games
class GamesDirective(SphinxDirective):
    """``{kbsim-games} [GAME...]``: a table of rule files, each linked to the first page of its reference.

    The games are the arguments (shipped names or paths), else :func:`reference_games`: the
    ``kbsim_rules_games`` of the configuration, or every shipped game.
    """

    optional_arguments = 100
    final_argument_whitespace = False

    def run(self) -> list[nodes.Node]:
        """The games table; each row's rule files are dependencies of the page."""
        from kbsim.rules.loader import RulesError, load_rules

        _ = Words(self.config.language or DEFAULT)
        rows = []
        for game in self.arguments or reference_games(self.config):
            try:
                loaded = load_rules(game)
            except RulesError as e:
                raise self.error(f"kbsim-games {game}: {e}") from None
            m = loaded.model
            note_files(self.env, loaded)  # the table shows its title: rebuild on edits
            ref = make_ref(f"{m.game}-rules-{m.game}", m.title)
            note = _("provisional data") if getattr(m, "provisional", None) else ""
            rows.append(
                [
                    [ref],
                    [code(m.game)],
                    f"{m.players.min}-{m.players.max}",
                    str(len(m.options)),
                    str(len(m.variants)),
                    str(len(character_items(m))),
                    str(len(m.examples)),
                    note,
                ]
            )
        header = [
            N_("Game"),
            N_("Name"),
            N_("Players"),
            N_("Options"),
            N_("Variants"),
            N_("Characters"),
            N_("Examples"),
            N_("Note"),
        ]
        return [table([_(h) for h in header], rows, classes=["kbsim-games"])]


# ------------------------------------------------------------------ API pages
class AutomodulesDirective(SphinxDirective):
    """``kbsim-automodules PACKAGE`` (in an ``eval-rst`` block): ``automodule`` for a package and each module in it.

    With ``:modules-only:``, only the package's plain modules (no subpackages, not the
    package itself). New modules appear without editing the page. Each module documents only what it
    defines (``:ignore-module-all:``), so a name a package re-exports is described once.
    """

    required_arguments = 1
    option_spec = {"modules-only": directives.flag}

    def run(self) -> list[nodes.Node]:
        """``automodule`` directives for the package and its modules, parsed in place."""
        import importlib
        import pkgutil

        from docutils.statemachine import StringList

        name = self.arguments[0]
        package = importlib.import_module(name)
        only = "modules-only" in self.options  # the package's plain modules, not the package or its subpackages
        modules = [] if only else [name]
        modules += sorted(
            f"{name}.{m.name}"
            for m in pkgutil.iter_modules(getattr(package, "__path__", []))
            if not m.name.startswith("_") and not (only and m.ispkg)
        )
        lines = []
        for mod in modules:
            lines += [f".. automodule:: {mod}", "   :ignore-module-all:", ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=f"<kbsim-automodules {name}>"), self.content_offset, container)
        return container.children


# ------------------------------------------------------------------ events
def purge_rendered(app: Sphinx, env: Any, docname: str) -> None:
    """``env-purge-doc``: forget the games a re-read page rendered."""
    rendered = _rendered(env)
    for game in [g for g, d in rendered.items() if d == docname]:
        del rendered[game]
    rule_docs(env).pop(docname, None)


def merge_rendered(app: Sphinx, env: Any, docnames: Any, other: Any) -> None:
    """``env-merge-info``: take over the rendered games and rule pages of a parallel reader."""
    _rendered(env).update(_rendered(other))
    rule_docs(env).update(rule_docs(other))


def reference_games(config: Any) -> list[str]:
    """The games a project documents: its ``kbsim_rules_games`` (names or paths), else every shipped game."""
    from kbsim.rules.loader import shipped_games

    return list(getattr(config, "kbsim_rules_games", None) or shipped_games())


def check_all_rendered(app: Sphinx, env: Any) -> None:
    """``env-check-consistency``: warn for each documented game (:func:`reference_games`) no page renders."""
    from kbsim.rules.loader import RulesError, load_rules

    rendered = _rendered(env)
    for game in reference_games(app.config):
        try:
            name = load_rules(game).model.game
        except RulesError:
            name = game
        if name not in rendered:
            logger.warning(
                "kbsim: the rule file %r has no reference page; set kbsim_rules_folder in conf.py (kbsim then "
                "writes its pages), or write a page holding a {kbsim-rules} %s directive",
                game,
                game,
            )
