"""Sphinx extension: the rules reference and the generated parts of the user guide.

Everything these directives print is read at build time from the same objects
the engine uses, so the documentation cannot drift from the code:

``{kbsim-rules} GAME``
    The whole reference of one rule file: overview, components, setup by
    player count (dealt by the engine itself), the turn, rebuilding, the end
    of the game, every character (once the rules language has them), every
    option with the default the engine applies, every variant, the
    clarifications and the executable examples drawn as small boards. A
    ``provisional`` entry anywhere in the file becomes a warning box.
``{kbsim-games}``
    A table of the shipped rule files, each linked to its reference page.
``{kbsim-cli}``
    The command-line reference, walked from the typer application.
``{kbsim-records}``
    The columns of a records file, from :data:`kbsim.sim.records.SCHEMA`.
``{kbsim-schema}``
    The field reference of a rule file, walked from the pydantic models, and
    the JSON Schema that ``kbsim rules schema`` prints.

Entries get stable anchors (``option-NAME``, ``variant-NAME``,
``character-NAME``, ``example-NAME``, ``cli-kbsim-run``, ...) and options,
variants and characters are registered as objects (``{rule-option}``,
``{rule-variant}``, ``{rule-character}`` roles with ``GAME.NAME`` targets), so
Sphinx's search lists them by name. The build warns, which fails a ``-W``
build, when a shipped rule file has no reference page, when an example no
longer gives its stated result in the engine, or when a records column has no
description.

Enable it with ``extensions = ["myst_parser", "kbsim.docs_ext"]``.
"""

from __future__ import annotations

import json
import random
import re
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from pydantic import BaseModel
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: Meaning of the confidence marks of options and clarifications.
CONFIDENCE = {
    "R": "stated by the rulebook",
    "I": "inferred: a reasoned default where the sources are not explicit",
    "?": "a guess: the sources leave it open, so the option is worth measuring",
}

# Section titles for rule-file fields; a field not listed here is titled from its name.
_TITLES = {
    "cards": "Cards",
    "table": "Table",
    "rows": "Rows",
    "completion": "Completing a row",
    "setup": "Setup",
    "turn": "The turn",
    "lay_out": "Lay out",
    "rebuild": "Rebuilding",
    "exchange": "Exchange",
    "pass": "Pass",
    "refill": "Refilling the hand",
    "end": "End of the game",
    "win": "Winning",
    "stalemate": "Stalemate",
    "turn_limit": "Turn limit",
}
# Top-level fields with a dedicated rendering (everything else is rendered generically).
_SPECIAL = {"schema_version", "game", "title", "summary", "players", "provisional", "options", "variants",
            "clarifications", "examples", "characters"}
_COMPONENTS = ("cards", "table")
_CODE = re.compile(r"`([^`]+)`")

CSS = """
.kbsim-board table.kbsim-board-table { margin: 0.25rem 0 0.75rem 0; }
table.kbsim-board-table th, table.kbsim-board-table td { text-align: center; vertical-align: top;
  min-width: 2.6em; padding: 0.2em 0.35em; }
table.kbsim-board-table .line-block { margin: 0; }
table.kbsim-board-table .line { display: block; margin: 0 auto 2px auto; width: 2.2em;
  border: 1px solid var(--color-foreground-border, #999); border-radius: 3px;
  background: var(--color-background-secondary, #f6f6f6); font-family: var(--font-stack--monospace, monospace); }
table.kbsim-board-table .kbsim-empty { color: var(--color-foreground-muted, #777); }
code.kbsim-default { font-weight: bold; }
.kbsim-example-result { margin-left: 1rem; }
"""


# ------------------------------------------------------------------ small node helpers
def slug(text: str) -> str:
    """Lower-case ``text`` with every run of other characters than a-z, 0-9 and ``_`` made one ``-``."""
    return re.sub(r"[^a-z0-9_]+", "-", str(text).lower()).strip("-") or "x"


def scalar(value: Any) -> str:
    """``value`` written as in a rule file (YAML flow style): ``true``, ``5``, ``end``, ``[1, 13]``."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
    return text.removesuffix("...").strip()


def inline(text: str) -> list[nodes.Node]:
    """Text nodes, with ```code``` spans (the rule files' only markup) as literals."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _CODE.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def para(*parts: str | nodes.Node, classes: Iterable[str] = ()) -> nodes.paragraph:
    """A paragraph from strings (parsed with :func:`inline`) and nodes."""
    p = nodes.paragraph(classes=list(classes))
    for part in parts:
        if isinstance(part, str):
            p.extend(inline(part))
        else:
            p += part
    return p


def code(text: Any, classes: Iterable[str] = ()) -> nodes.literal:
    """An inline literal showing ``text``."""
    return nodes.literal(str(text), str(text), classes=list(classes))


def local_ref(refid: str, *content: str | nodes.Node) -> nodes.reference:
    """A link to an anchor on the same page."""
    ref = nodes.reference("", "", internal=True, refid=refid)
    for c in content:
        ref += nodes.Text(c) if isinstance(c, str) else c
    return ref


def _cell(content: Any) -> nodes.entry:
    entry = nodes.entry()
    if content is None or content == "":
        return entry
    if isinstance(content, str):
        entry += para(content)
    elif isinstance(content, nodes.Body | nodes.Structural):
        entry += content
    elif isinstance(content, nodes.Node):
        entry += para(content)
    else:
        p = nodes.paragraph()
        for part in content:
            if isinstance(part, str):
                p.extend(inline(part))
            else:
                p += part
        entry += p
    return entry


def table(header: list[str], rows: list[list[Any]], classes: Iterable[str] = (),
          widths: list[int] | None = None) -> nodes.table:
    """A docutils table; a cell is a string, a node or a list of strings and inline nodes."""
    t = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(header))
    t += group
    for w in widths or [1] * len(header):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    hrow = nodes.row()
    for h in header:
        hrow += _cell(h)
    head += hrow
    group += head
    body = nodes.tbody()
    for r in rows:
        row = nodes.row()
        for c in r:
            row += _cell(c)
        body += row
    group += body
    return t


def field_list(items: list[tuple[str, Any]]) -> nodes.field_list:
    """A field list (``name: value`` lines) from (name, cell content) pairs."""
    fl = nodes.field_list()
    for name, content in items:
        f = nodes.field()
        f += nodes.field_name(name, name)
        body = nodes.field_body()
        body += _cell(content).children
        f += body
        fl += f
    return fl


def bullets(items: Iterable[Any]) -> nodes.bullet_list:
    bl = nodes.bullet_list()
    for it in items:
        li = nodes.list_item()
        li += _cell(it).children
        bl += li
    return bl


def _fields(obj: BaseModel) -> Iterator[tuple[str, Any, Any]]:
    """(key as written in a rule file, value, FieldInfo) for each field of a model instance."""
    for name, info in type(obj).model_fields.items():
        yield (info.alias or name), getattr(obj, name), info


def _has_summary(obj: Any) -> bool:
    return isinstance(obj, BaseModel) and "summary" in type(obj).model_fields


def _title_for(key: str) -> str:
    return _TITLES.get(key, key.replace("_", " ").capitalize())


def _items(container: Any) -> list[tuple[str, Any]]:
    """(key, item) pairs of a mapping, or of a list whose items carry a ``name`` (or ``id``)."""
    if container is None:
        return []
    if isinstance(container, dict):
        return list(container.items())
    out = []
    for i, item in enumerate(container):
        key = getattr(item, "name", None) or getattr(item, "id", None) or getattr(item, "key", None) or str(i + 1)
        out.append((str(key), item))
    return out


# ------------------------------------------------------------------ the rules reference
class RulesRenderer:
    """Builds the docutils nodes of one game's reference page.

    Args:
        directive: the directive being run (for the document, the environment and warnings).
        game: the shipped game's name (or a rule-file path) given to the directive.
    """

    def __init__(self, directive: SphinxDirective, game: str):
        from kbsim.rules.loader import load_rules

        self.directive = directive
        self.env = directive.env
        self.document = directive.state.document
        self.loaded = load_rules(game)
        self.model = self.loaded.model
        self.game = self.model.game
        self.defaults = dict(self.loaded.options)  # the engine's effective value of every option
        self.option_by_path = {opt.path: name for name, opt in self.model.options.items()}
        self.variants_setting: dict[str, list[tuple[str, Any]]] = {}
        for vname, var in self.model.variants.items():
            for oname, value in var.options.items():
                self.variants_setting.setdefault(oname, []).append((vname, value))
        self.clarification_ids: dict[str, str] = {}
        self.used_ids: set[str] = set()

    # ---- plumbing
    def _id(self, wanted: str) -> str:
        ident, n = wanted, 2
        while ident in self.used_ids or ident in self.document.ids:
            ident, n = f"{wanted}-{n}", n + 1
        self.used_ids.add(ident)
        return ident

    def section(self, ident: str, *title: str | nodes.Node, label: bool = True) -> nodes.section:
        """A section with a fixed anchor; ``label`` also makes ``GAME-ANCHOR`` a Sphinx label for ``{ref}``."""
        sec = nodes.section(ids=[ident])
        t = nodes.title()
        for part in title:
            if isinstance(part, str):
                t.extend(inline(part))
            else:
                t += part
        sec += t
        if label:
            sec["names"].append(f"{self.game}-{ident}")
            self.document.note_explicit_target(sec, sec)
        else:
            self.document.set_id(sec, sec)
        return sec

    def register(self, sec: nodes.section, objtype: str, name: str, description: str) -> nodes.Node:
        """Record ``GAME.NAME`` as a searchable, linkable object; returns the index node to put before it."""
        full = f"{self.game}.{name}"
        std = self.env.get_domain("std")
        std.note_object(objtype, full, sec["ids"][0], location=sec)
        entry = f"{name} ({self.model.title} {description})"
        return addnodes.index(entries=[("single", entry, sec["ids"][0], "", None)])

    def option_ref(self, name: str) -> nodes.reference:
        return local_ref(f"option-{name}", code(name))

    def variant_ref(self, name: str) -> nodes.reference:
        return local_ref(f"variant-{name}", code(name))

    def provisional(self, obj: Any) -> list[nodes.Node]:
        """A warning box when ``obj`` carries a ``provisional`` reason (or flag)."""
        reason = getattr(obj, "provisional", None)
        if not reason:
            return []
        box = nodes.warning()
        box += para(nodes.strong("Provisional data.", "Provisional data."), " ",
                    reason if isinstance(reason, str) else
                    "This part of the rule file is not taken from a published source; replace it when the "
                    "real data is known. Results that depend on it are provisional too.")
        return [box]

    # ---- the page
    def render(self) -> list[nodes.Node]:
        m = self.model
        page = self.section(self._id(f"rules-{self.game}"), f"{m.title} rules reference")
        page += self.provisional(m)
        page += self.overview()
        components = self.section(self._id("components"), "Components")
        for key in _COMPONENTS:
            if hasattr(m, key):
                components += self.block(getattr(m, key), key, _title_for(key))
        page += components
        for key, value, _ in _fields(m):
            if key in _SPECIAL or key in _COMPONENTS:
                continue
            if isinstance(value, BaseModel):
                page += self.block(value, key, _title_for(key))
            elif isinstance(value, list | dict) and value and all(isinstance(v, BaseModel) for _, v in
                                                                 _items(value)):
                page += self.collection(key, value)
        characters = getattr(m, "characters", None)
        if characters:
            page += self.characters(characters)
        page += self.options()
        page += self.variants()
        page += self.clarifications()
        page += self.examples_section()
        page += self.confidence_legend()
        return [page]

    def overview(self) -> nodes.section:
        m = self.model
        sec = self.section(self._id("overview"), "Overview")
        sec += para(m.summary)
        players = f"{m.players.min}" if m.players.min == m.players.max else f"{m.players.min} to {m.players.max}"
        items: list[tuple[str, Any]] = [("Players", players), ("Rule file", [code(Path(self.loaded.source).name)]),
                                        ("Game name", [code(self.game), " (use it with ", code("--game"), ")"])]
        extra = [(k, v, info) for k, v, info in _fields(m)
                 if k not in _SPECIAL and not isinstance(v, BaseModel | list | dict) and v is not None]
        for k, v, _ in extra:
            items.append((_title_for(k), [code(scalar(v))]))
        sec += field_list(items)
        sec += para("Values in ", code("code"), " are the ones written in the rule file. Options that change a rule "
                    "are linked from the rule they change; ", local_ref("options", "Options"),
                    " lists them with the default kbsim uses, and ", local_ref("variants", "Variants"),
                    " lists the named sets of changes a run can select with ", code("--variant"), ".")
        return sec

    def block(self, obj: BaseModel, path: str, title: str) -> list[nodes.Node]:
        """A rule section: its summary, a table of its settings, then its sub-rules as subsections.

        A sub-model without a ``summary`` has its settings folded into the parent's table
        (``sequence.step``); a section with nothing of its own (no summary, no settings) is
        left out and its subsections take its place.
        """
        params: list[tuple[str, str, Any, Any]] = []  # (shown key, dotted path, value, FieldInfo)
        children: list[tuple[str, Any]] = []
        self._collect(obj, path, "", params, children)
        summary = getattr(obj, "summary", "") or ""
        body: list[nodes.Node] = []
        for key, value in children:
            child_path = f"{path}.{key}"
            if isinstance(value, BaseModel):
                body += self.block(value, child_path, _title_for(key))
            else:
                body += self.collection(child_path, value)
        if not summary and not params and not getattr(obj, "provisional", None) and path != "setup":
            return body
        sec = self.section(self._id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), title)
        sec += self.provisional(obj)
        if summary:
            sec += para(summary)
        if path == "setup":
            sec += self.deal_table()
        if params:
            sec += self.param_table(params)
        sec += body
        return [sec]

    def _collect(self, obj: BaseModel, path: str, prefix: str, params: list, children: list) -> None:
        for key, value, info in _fields(obj):
            if key in ("summary", "provisional") or value is None:
                continue
            if isinstance(value, BaseModel):
                if _has_summary(value):
                    children.append((key, value))
                else:
                    self._collect(value, f"{path}.{key}", f"{prefix}{key}.", params, children)
            elif isinstance(value, list | dict) and value and all(isinstance(v, BaseModel) for _, v in
                                                                 _items(value)):
                children.append((key, value))
            else:
                params.append((prefix + key, f"{path}.{key}", value, info))

    def collection(self, path: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of rule models (a future card table, objectives, ...): one subsection each."""
        key = path.rsplit(".", 1)[-1]
        sec = self.section(self._id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), _title_for(key))
        for name, item in _items(value):
            sub_title = str(getattr(item, "title", None) or getattr(item, "name", None) or name)
            sec += self.block(item, f"{path}.{name}", sub_title) or [para(f"`{name}`")]
        return [sec]

    def param_table(self, params: list[tuple[str, str, Any, Any]]) -> nodes.table:
        rows = []
        for key, dotted, value, info in params:
            opt = self.option_by_path.get(dotted)
            rows.append([[code(key)], [code(scalar(value))], (info.description or "") if info else "",
                         [self.option_ref(opt)] if opt else ""])
        return table(["Setting", "Value", "Meaning", "Option"], rows, classes=["kbsim-settings"],
                     widths=[3, 2, 8, 3])

    def deal_table(self) -> list[nodes.Node]:
        """Cards per seat for every supported player count, dealt by the engine (seat 0 first)."""
        from kbsim.engine.compiled import compile_rules
        from kbsim.engine.game import deal

        m = self.model
        try:
            g = compile_rules(self.loaded)
            rows = []
            for players in range(m.players.min, m.players.max + 1):
                state = deal(g, players, random.Random(0))
                held = [len(h) + len(p) for h, p in zip(state.hands, state.piles, strict=True)]
                rows.append([str(players), " / ".join(map(str, held)), " / ".join(str(len(h)) for h in state.hands),
                             " / ".join(str(len(p)) for p in state.piles), str(sum(map(len, state.rows)))])
        except Exception as e:  # a rule file the engine cannot deal is a real problem: say so
            logger.warning("kbsim: %s: the engine could not deal this game: %s", self.game, e,
                           location=(self.env.docname, self.directive.lineno))
            return []
        return [para("Cards per seat after the deal, as the engine deals them (seat 0 first):"),
                table(["Players", "Cards dealt", "Hand", "Draw pile", "Cards on the table"], rows,
                      classes=["kbsim-deal"])]

    # ---- characters
    def characters(self, characters: Any) -> nodes.section:
        sec = self.section(self._id("characters"), "Characters")
        for key, ch in _items(characters):
            name = str(getattr(ch, "title", None) or getattr(ch, "name", None) or key)
            sub = self.section(self._id(f"character-{slug(key)}"), name)
            index = self.register(sub, "rule-character", str(key), "character")
            sub += self.provisional(ch)
            summary = getattr(ch, "summary", "")
            if summary:
                sub += para(summary)
            params: list = []
            children: list = []
            if isinstance(ch, BaseModel):
                for k, v, info in _fields(ch):
                    if k in ("name", "title", "summary", "provisional", "examples", "options") or v is None:
                        continue
                    if isinstance(v, BaseModel) and not _has_summary(v):
                        self._collect(v, f"characters.{key}.{k}", f"{k}.", params, children)
                    elif isinstance(v, BaseModel) or (isinstance(v, list | dict) and v and all(
                            isinstance(x, BaseModel) for _, x in _items(v))):
                        children.append((k, v))
                    else:
                        params.append((k, f"characters.{key}.{k}", v, info))
            if params:
                sub += self.param_table(params)
            for k, v in children:
                sub += (self.block(v, f"characters.{key}.{k}", _title_for(k)) if isinstance(v, BaseModel)
                        else self.collection(f"characters.{key}.{k}", v))
            sub += self.character_options(key, ch)
            examples = getattr(ch, "examples", None) or []
            for ex in examples:
                sub += self.example(ex)
            sec += [index, sub]
        return sec

    def character_options(self, key: str, ch: Any) -> list[nodes.Node]:
        """The options of a character: global options that set a field of it, and its own options."""
        prefix = f"characters.{key}."
        linked = [n for n, opt in self.model.options.items() if opt.path.startswith(prefix)]
        own = getattr(ch, "options", None)
        if not linked and not own:
            return []
        items: list[Any] = []
        for n in linked:
            items.append([self.option_ref(n), " (default ", code(scalar(self.defaults[n])), "): ",
                          *inline(self.model.options[n].summary)])
        if isinstance(own, dict):
            for n, opt in own.items():
                if isinstance(opt, BaseModel):
                    default = getattr(opt, "default", None)
                    text = getattr(opt, "summary", "") or ""
                    items.append([code(n), " (default ", code(scalar(default)), "): ", *inline(text)])
                else:
                    items.append([code(n), " = ", code(scalar(opt))])
        elif isinstance(own, list):
            for n in own:
                items.append([self.option_ref(str(n))] if str(n) in self.model.options else [code(scalar(n))])
        return [para(nodes.strong("Options", "Options")), bullets(items)]

    # ---- options, variants, clarifications
    def options(self) -> nodes.section:
        m = self.model
        sec = self.section(self._id("options"), "Options")
        sec += para("Each option is a named switch over one setting of the rule file. The default, in bold, is the "
                    "value the engine uses when no variant or ", code("--option"), " changes it; run with ",
                    code("--option NAME=VALUE"), " (repeatable) or pick a variant to change it.")
        if not m.options:
            sec += para("This rule file declares no options.")
            return sec
        overview = []
        for name, opt in m.options.items():
            overview.append([[self.option_ref(name)], [code(scalar(self.defaults[name]))],
                             self._choice_nodes(opt, False), opt.confidence])
        sec += table(["Option", "Default", "Values", "Confidence"], overview, classes=["kbsim-options"],
                     widths=[4, 2, 5, 2])
        for name, opt in m.options.items():
            sub = self.section(self._id(f"option-{name}"), code(name))
            index = self.register(sub, "rule-option", name, "rule option")
            sub += para(opt.summary)
            default = self.defaults[name]
            items: list[tuple[str, Any]] = [
                ("Default", [code(scalar(default), classes=["kbsim-default"])]),
                ("Values", self._choice_nodes(opt, True)),
                ("Sets", [code(opt.path)]),
                ("Confidence", [code(opt.confidence), f" ({CONFIDENCE.get(opt.confidence, '')})"]),
            ]
            setters = self.variants_setting.get(name, [])
            if setters:
                parts: list[Any] = []
                for i, (vname, value) in enumerate(setters):
                    parts += ([", "] if i else []) + [self.variant_ref(vname), " sets ", code(scalar(value))]
                items.append(("Variants", parts))
            clar = [c.topic for c in m.clarifications if c.option == name]
            if clar:
                parts = []
                for i, topic in enumerate(clar):
                    parts += ([", "] if i else []) + [local_ref(self._clarification_id(topic), topic)]
                items.append(("Clarification", parts))
            other = [c for c in self._choices(opt) if c != default]
            example_value = other[0] if other else default
            items.append(("Command line", [code(f"--option {name}={scalar(example_value)}")]))
            sub += field_list(items)
            sec += [index, sub]
        return sec

    def _clarification_id(self, topic: str) -> str:
        if topic not in self.clarification_ids:
            self.clarification_ids[topic] = self._id(f"clarification-{slug(topic)}")
        return self.clarification_ids[topic]

    def _choices(self, opt: Any) -> list[Any]:
        """Allowed values of an option: its ``choices``, else what the schema allows at its path."""
        if opt.choices is not None:
            return list(opt.choices)
        info = _field_at(type(self.model), opt.path)
        if info is None:
            return []
        ann = info.annotation
        if ann is bool:
            return [True, False]
        if get_origin(ann) is Literal:
            return list(get_args(ann))
        return []

    def _choice_nodes(self, opt: Any, mark: bool) -> list[Any]:
        name = next(n for n, o in self.model.options.items() if o is opt)
        default = self.defaults[name]
        choices = self._choices(opt)
        if not choices:
            info = _field_at(type(self.model), opt.path)
            bounds = _constraints(info) if info is not None else ""
            kind = _type_words(info.annotation) if info is not None else "a value"
            return [kind + (f" ({bounds})" if bounds else "")]
        parts: list[Any] = []
        for i, c in enumerate(choices):
            if i:
                parts.append(", ")
            parts.append(code(scalar(c)))
            if mark and c == default:
                parts.append(" (default)")
        return parts

    def variants(self) -> nodes.section:
        from kbsim.rules.loader import load_rules

        m = self.model
        sec = self.section(self._id("variants"), "Variants")
        sec += para("A variant is a named set of changes laid over the base rules; select one or more with ",
                    code("--variant NAME"), ". The changes listed are those the engine reports after applying "
                    "the variant.")
        if not m.variants:
            sec += para("This rule file declares no variants.")
            return sec
        for name, var in m.variants.items():
            sub = self.section(self._id(f"variant-{name}"), code(name))
            index = self.register(sub, "rule-variant", name, "variant")
            sub += self.provisional(var)
            sub += para(var.summary)
            changed = load_rules(str(self.loaded.source), [name]).changed
            if changed:
                sub += bullets([[self.option_ref(k), ": ", code(scalar(self.defaults[k])), " becomes ",
                                 code(scalar(v))] for k, v in changed.items()])
            if var.overlay:
                sub += para("It also lays this part over the rule file:")
                text = yaml.safe_dump(var.overlay, sort_keys=False, allow_unicode=True).strip()
                sub += nodes.literal_block(text, text, language="yaml")
            sub += para("Use: ", code(f"kbsim run --variant {name}"))
            sec += [index, sub]
        return sec

    def clarifications(self) -> nodes.section:
        m = self.model
        sec = self.section(self._id("clarifications"), "Clarifications")
        sec += para("Where the sources are silent or can be read two ways, kbsim picks one reading and, when the "
                    "difference can matter, names an option that selects the other.")
        if not m.clarifications:
            sec += para("This rule file has no clarifications.")
        for c in m.clarifications:
            sub = self.section(self._clarification_id(c.topic), c.topic)
            sub += para(c.reading)
            items: list[tuple[str, Any]] = [("Confidence", [code(c.confidence),
                                                            f" ({CONFIDENCE.get(c.confidence, '')})"])]
            if c.option:
                opt = m.options[c.option]
                default = self.defaults[c.option]
                items.append(("Option", [self.option_ref(c.option), " = ", code(scalar(default)),
                                         " gives the reading above"]))
                readings: list[Any] = []
                for value in [v for v in self._choices(opt) if v != default]:
                    setters = [v for v, val in self.variants_setting.get(c.option, []) if val == value]
                    item: list[Any] = [code(f"{c.option}={scalar(value)}")]
                    if setters:
                        item.append(" (variant ")
                        for i, v in enumerate(setters):
                            item += ([", "] if i else []) + [self.variant_ref(v)]
                        item.append(")")
                    readings.append(item)
                for v, val in self.variants_setting.get(c.option, []):
                    if val not in self._choices(opt):
                        readings.append([code(f"{c.option}={scalar(val)}"), " (variant ", self.variant_ref(v), ")"])
                if readings:
                    joined: list[Any] = []
                    for i, r in enumerate(readings):
                        joined += (["; "] if i else []) + r
                    items.append(("Other readings", joined))
            sub += field_list(items)
            sec += sub
        return sec

    # ---- examples
    def examples_section(self) -> nodes.section:
        sec = self.section(self._id("examples"), "Examples")
        sec += para("Each example sets up rows, a hand and a draw pile, plays the listed moves and states the result. "
                    "The same examples run in the test suite (", code("kbsim rules test"), "), and this page was "
                    "only built if the engine gave every stated result. Rows are drawn as on the table: one column "
                    "per row card, first card at the top, the end of the row at the bottom.")
        for ex in self.model.examples:
            sec += self.example(ex)
        return sec

    def board(self, rows: list[str]) -> nodes.container:
        from kbsim.engine.notation import parse_cards

        cols = []
        for text in rows:
            cards = parse_cards(text)
            if cards:
                lb = nodes.line_block()
                for c in cards:
                    lb += nodes.line(str(c), str(c))
                cols.append(lb)
            else:
                cols.append(nodes.paragraph("empty", "empty", classes=["kbsim-empty"]))
        t = table([str(i) for i in range(1, len(rows) + 1)], [cols], classes=["kbsim-board-table"])
        box = nodes.container(classes=["kbsim-board"])
        box += t
        return box

    def example(self, ex: Any) -> nodes.section:
        sec = self.section(self._id(f"example-{slug(ex.name)}"), code(ex.name))
        self._check_example(ex, sec)
        sec += para(ex.summary)
        setup: list[tuple[str, Any]] = []
        for k, v in ex.options.items():
            setup.append(("Option", [self.option_ref(k) if k in self.model.options else code(k), " = ",
                                     code(scalar(v))]))
        sec += field_list(setup + [("Hand", [code(ex.hand or "(empty)")]),
                                   ("Draw pile", [code(ex.draw_pile or "(empty)"), " (top first)"])])
        sec += para(nodes.strong("Rows before", "Rows before"))
        sec += self.board(ex.rows)
        moves = nodes.enumerated_list(enumtype="arabic")
        for mv in ex.moves:
            li = nodes.list_item()
            li += para(code(mv))
            moves += li
        sec += para(nodes.strong("Moves", "Moves"))
        sec += moves
        exp = ex.expect
        sec += para(nodes.strong("Result", "Result"))
        result: list[tuple[str, Any]] = []
        if exp.illegal is not None:
            result.append(("Refused", [f"move {exp.illegal} (", code(ex.moves[exp.illegal - 1]),
                                       ") is not allowed; the moves before it stand"]))
        for key, label in (("hand", "Hand"), ("draw_pile", "Draw pile"), ("discard", "Discard pile"),
                           ("completed", "Rows completed"), ("laid", "Hand cards laid"), ("won", "Won")):
            value = getattr(exp, key, None)
            if value is not None:
                shown = (value or "(empty)") if isinstance(value, str) else scalar(value)
                result.append((label, [code(shown)]))
        if result:
            sec += field_list(result)
        if exp.rows is not None:
            sec += para(nodes.strong("Rows after", "Rows after"))
            sec += self.board(exp.rows)
        return sec

    def _check_example(self, ex: Any, where: nodes.Node) -> None:
        try:
            from kbsim.engine.examples import run_example
        except ImportError:  # pragma: no cover - engine without examples
            return
        result = run_example(self.loaded.source, ex)
        if not result.ok:
            logger.warning("kbsim: %s example %r does not give its stated result in the engine: %s", self.game,
                           ex.name, result.message, location=(self.env.docname, self.directive.lineno))

    def confidence_legend(self) -> nodes.section:
        sec = self.section(self._id("confidence"), "Confidence marks")
        sec += table(["Mark", "Meaning"], [[[code(k)], v] for k, v in CONFIDENCE.items()])
        return sec


def _model_of(ann: Any) -> type[BaseModel] | None:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for arg in get_args(ann):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _field_at(model: type[BaseModel], dotted: str) -> Any:
    """The pydantic FieldInfo at a dotted rule-file path (aliases allowed), or None."""
    info = None
    cls: type[BaseModel] | None = model
    for part in dotted.split("."):
        if cls is None:
            return None
        info = next((fi for name, fi in cls.model_fields.items() if part in (name, fi.alias)), None)
        if info is None:
            return None
        cls = _model_of(info.annotation)
    return info


def _constraints(info: Any) -> str:
    parts = []
    for meta in getattr(info, "metadata", []):
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                parts.append(f"{sign} {getattr(meta, attr)}")
        if getattr(meta, "pattern", None):
            parts.append(f"matching {meta.pattern}")
    return ", ".join(parts)


def _type_words(ann: Any) -> str:
    """A short English description of a field type (no links)."""
    simple = {int: "a whole number", str: "text", bool: "true or false", float: "a number", Any: "any value"}
    if ann in simple:
        return simple[ann]
    if ann is type(None):
        return "null"
    origin = get_origin(ann)
    if origin is Literal:
        return "one of " + ", ".join(scalar(a) for a in get_args(ann))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_words(a) for a in get_args(ann))
    if origin is list:
        (inner,) = get_args(ann) or (Any,)
        return f"a list of ({_type_words(inner)})"
    if origin is dict:
        k, v = get_args(ann) or (str, Any)
        return f"a mapping of {_type_words(k)} to ({_type_words(v)})"
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return f"a {ann.__name__} section"
    return str(ann)


class RulesDirective(SphinxDirective):
    """``{kbsim-rules} GAME``: the reference page of one rule file."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from kbsim.rules.loader import RulesError, find_rule_file

        game = self.arguments[0]
        try:
            self.env.note_dependency(str(find_rule_file(game).resolve()))
            renderer = RulesRenderer(self, game)
        except RulesError as e:
            raise self.error(f"kbsim-rules {game}: {e}") from None
        rendered = _rendered(self.env)
        rendered[renderer.game] = self.env.docname
        return renderer.render()


def _rendered(env: Any) -> dict[str, str]:
    """game -> docname of the page that renders it (kept in the build environment)."""
    if not hasattr(env, "kbsim_rendered"):
        env.kbsim_rendered = {}
    return env.kbsim_rendered


# ------------------------------------------------------------------ list of games
class GamesDirective(SphinxDirective):
    """``{kbsim-games}``: a table of the shipped rule files linked to their pages (``rules/GAME``)."""

    option_spec = {"prefix": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from kbsim.rules.loader import load_rules, shipped_games

        prefix = self.options.get("prefix", "/rules/")
        rows = []
        for game in shipped_games():
            m = load_rules(game).model
            ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"{prefix}{game}",
                                        refexplicit=True, refdoc=self.env.docname)
            ref += nodes.inline(m.title, m.title)
            chars = getattr(m, "characters", None)
            note = "provisional data" if getattr(m, "provisional", None) else ""
            rows.append([[ref], [code(game)], f"{m.players.min}-{m.players.max}", str(len(m.options)),
                         str(len(m.variants)), str(len(chars) if chars else 0), str(len(m.examples)), note])
        return [table(["Game", "Name", "Players", "Options", "Variants", "Characters", "Examples", "Note"], rows,
                      classes=["kbsim-games"])]


# ------------------------------------------------------------------ command line
class CliDirective(SphinxDirective):
    """``{kbsim-cli}``: every command of the ``kbsim`` typer app with its usage and options."""

    option_spec = {"app": directives.unchanged, "prog": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        import importlib

        import typer.main

        target = self.options.get("app", "kbsim.cli:app")
        module, _, attr = target.partition(":")
        app = getattr(importlib.import_module(module), attr)
        prog = self.options.get("prog", "kbsim")
        command = typer.main.get_command(app)
        return self.command(command, prog, None, level=0)

    def command(self, cmd: Any, path: str, parent_ctx: Any, level: int) -> list[nodes.Node]:
        ctx = cmd.context_class(cmd, info_name=path.rsplit(" ", 1)[-1], parent=parent_ctx)
        ident = "cli-" + slug(path.replace(" ", "-"))
        sec = nodes.section(ids=[ident], names=[ident])
        sec += nodes.title("", "", code(path))
        self.state.document.note_explicit_target(sec, sec)
        for chunk in (cmd.help or "").split("\n\n"):
            text = " ".join(line.strip() for line in chunk.strip().splitlines() if line.strip() != "\b")
            if text.startswith("Example:"):
                sec += para(nodes.strong("Example:", "Example:"))
                cmdline = text.removeprefix("Example:").strip()
                sec += nodes.literal_block(cmdline, cmdline, language="console")
            elif text:
                sec += para(text)
        usage = cmd.get_usage(ctx).strip()
        sec += nodes.literal_block(usage, usage, language="text")
        rows = []
        std = self.env.get_domain("std")
        for param in cmd.params:
            if getattr(param, "hidden", False):
                continue
            record = param.get_help_record(ctx)
            if record is None:
                continue
            flags, help_text = record
            rows.append([[code(flags)], help_text or ""])
            for opt in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if opt.startswith("-"):
                    std.add_program_option(path, opt, self.env.docname, ident)
        rows.append([[code("--help")], "Show the help of this command and exit."])
        sec += table(["Option / argument", "Meaning"], rows, classes=["kbsim-cli-options"], widths=[4, 8])
        subs = getattr(cmd, "commands", None)
        if subs:
            sec += para("Commands:")
            sec += bullets([[local_ref("cli-" + slug(f"{path}-{name}"), code(f"{path} {name}")), " — ",
                             (sub.help or "").strip().split("\n")[0]]
                            for name, sub in subs.items() if not getattr(sub, "hidden", False)])
        out: list[nodes.Node] = [sec]
        for name, sub in (subs or {}).items():
            if not getattr(sub, "hidden", False):
                sec += self.command(sub, f"{path} {name}", ctx, level + 1)
        return out


# ------------------------------------------------------------------ records schema
def _docstring_meanings(doc: str) -> dict[str, str]:
    """column -> meaning, from the three-column table in a module docstring."""
    out = {}
    for line in doc.splitlines():
        m = re.match(r"^(\w+)\s{2,}(\S+)\s{2,}(.+)$", line.strip())
        if m:
            out[m.group(1)] = m.group(3).strip()
    return out


class RecordsDirective(SphinxDirective):
    """``{kbsim-records}``: the columns of a records file, from :data:`kbsim.sim.records.SCHEMA`.

    A column's meaning is its field metadata ``description`` when present, else the
    line of the module docstring's table that names it; a column with neither warns.
    """

    def run(self) -> list[nodes.Node]:
        from kbsim.sim import records

        meanings = _docstring_meanings(records.__doc__ or "")
        rows = []
        for f in records.SCHEMA:
            meta = f.metadata or {}
            meaning = meta.get(b"description", b"").decode() or meanings.get(f.name, "")
            if not meaning:
                logger.warning("kbsim: records column %r has no description", f.name,
                               location=(self.env.docname, self.lineno))
            rows.append([[code(f.name)], [code(str(f.type))], meaning.replace("``", "`")])
        return [table(["Column", "Arrow type", "Meaning"], rows, classes=["kbsim-records"], widths=[3, 3, 8])]


# ------------------------------------------------------------------ rule-file schema
def _models_in_order(root: type[BaseModel]) -> list[type[BaseModel]]:
    seen: list[type[BaseModel]] = []

    def walk(cls: type[BaseModel]) -> None:
        if cls in seen:
            return
        seen.append(cls)
        for info in cls.model_fields.values():
            for sub in _all_models(info.annotation):
                walk(sub)

    walk(root)
    return seen


def _all_models(ann: Any) -> list[type[BaseModel]]:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [ann]
    return [m for arg in get_args(ann) for m in _all_models(arg)]


def _type_nodes(ann: Any) -> list[Any]:
    """Like :func:`_type_words` but model types link to their own table."""
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [local_ref(f"schema-{ann.__name__.lower()}", code(ann.__name__))]
    origin = get_origin(ann)
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for i, a in enumerate(get_args(ann)):
            out += ([" or "] if i else []) + _type_nodes(a)
        return out
    if origin is list and _all_models(ann):
        return ["a list of ", *_type_nodes(get_args(ann)[0])]
    if origin is dict and _all_models(ann):
        return ["a mapping of names to ", *_type_nodes(get_args(ann)[1])]
    return [_type_words(ann)]


class SchemaDirective(SphinxDirective):
    """``{kbsim-schema}``: a table per rule-file model (field, type, default, meaning) and the JSON Schema."""

    option_spec = {"no-json": directives.flag}

    def run(self) -> list[nodes.Node]:
        from pydantic_core import PydanticUndefined

        from kbsim.rules.schema import RuleFile

        out: list[nodes.Node] = []
        for cls in _models_in_order(RuleFile):
            ident = f"schema-{cls.__name__.lower()}"
            sec = nodes.section(ids=[ident], names=[ident])
            sec += nodes.title("", "", code(cls.__name__))
            self.state.document.note_explicit_target(sec, sec)
            doc = (cls.__doc__ or "").strip().split("\n\n")[0]
            if doc and cls.__doc__ != BaseModel.__doc__:
                sec += para(" ".join(doc.split()).replace("``", "`"))
            rows = []
            for name, info in cls.model_fields.items():
                key = info.alias or name
                bounds = _constraints(info)
                type_cell = _type_nodes(info.annotation) + ([f" ({bounds})"] if bounds else [])
                if info.is_required():
                    default: Any = "required"
                elif info.default_factory is not None:
                    default = [code(scalar(info.default_factory()))]
                elif info.default is PydanticUndefined:
                    default = ""
                else:
                    default = [code(scalar(info.default))]
                rows.append([[code(key)], type_cell, default, (info.description or "").replace("``", "`")])
            sec += table(["Field", "Type", "Default", "Meaning"], rows, classes=["kbsim-schema"],
                         widths=[3, 4, 2, 7])
            out.append(sec)
        if "no-json" not in self.options:
            text = json.dumps(RuleFile.model_json_schema(by_alias=True), indent=2)
            sec = nodes.section(ids=["json-schema"], names=["json-schema"])
            sec += nodes.title("JSON Schema", "JSON Schema")
            self.state.document.note_explicit_target(sec, sec)
            sec += para("The same models as JSON Schema, exactly as ", code("kbsim rules schema"), " prints it:")
            sec += nodes.literal_block(text, text, language="json", classes=["no-search"])
            out.append(sec)
        return out


# ------------------------------------------------------------------ events
def _purge(app: Sphinx, env: Any, docname: str) -> None:
    rendered = _rendered(env)
    for game in [g for g, d in rendered.items() if d == docname]:
        del rendered[game]


def _merge(app: Sphinx, env: Any, docnames: Any, other: Any) -> None:
    _rendered(env).update(_rendered(other))


def _check_all_rendered(app: Sphinx, env: Any) -> None:
    from kbsim.rules.loader import shipped_games

    rendered = _rendered(env)
    for game in shipped_games():
        if game not in rendered:
            logger.warning("kbsim: the shipped rule file %r has no reference page; add docs/rules/%s.md holding "
                           "a {kbsim-rules} %s directive", game, game, game)


def _write_css(app: Sphinx, exc: Exception | None) -> None:
    if exc is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        (static / "kbsim.css").write_text(CSS.lstrip(), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives, the object types and the build checks."""
    app.add_directive("kbsim-rules", RulesDirective)
    app.add_directive("kbsim-games", GamesDirective)
    app.add_directive("kbsim-cli", CliDirective)
    app.add_directive("kbsim-records", RecordsDirective)
    app.add_directive("kbsim-schema", SchemaDirective)
    app.add_object_type("rule-option", "rule-option", objname="rule option")
    app.add_object_type("rule-variant", "rule-variant", objname="rule variant")
    app.add_object_type("rule-character", "rule-character", objname="character")
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_all_rendered)
    app.connect("build-finished", _write_css)
    app.add_css_file("kbsim.css")
    from kbsim import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
