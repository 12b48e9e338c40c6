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
    (:data:`RENDERERS`): :class:`RulesRenderer` for the ``rows`` family draws
    examples as boards of rows; :class:`MarketRulesRenderer` for the
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

from kbsim.engine.families import FAMILIES
from kbsim.rules.families import RULE_MODELS

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
    "minus": "Minus pile",
    "score": "Score",
    "family": "Engine family",
    "currency": "Currency",
    "tokens": "Company tokens",
    "market": "Market",
    "objectives": "Objectives",
    "contracts": "Contracts",
    "patterns": "Patterns",
    "events": "Events",
    "take": "Take a card",
    "claim": "Claim an objective",
    "trigger": "End trigger",
    "stall": "Stalled game",
}
# Top-level fields with a dedicated rendering (everything else is rendered generically).
_SPECIAL = {"schema_version", "game", "title", "summary", "players", "provisional", "options", "variants",
            "clarifications", "examples", "characters"}
_COMPONENTS = ("cards", "table")
_CODE = re.compile(r"`([^`]+)`")

CSS = """
table.kbsim-board-table th, table.kbsim-board-table td { text-align: center; vertical-align: top;
  min-width: 2.6em; padding: 0.2em 0.35em; }
table.kbsim-board-table .line-block { margin: 0; }
table.kbsim-board-table .line { display: block; margin: 0 auto 2px auto; min-width: 2.2em; padding: 0 0.2em;
  border: 1px solid var(--color-foreground-border, #999); border-radius: 3px;
  background: var(--color-background-secondary, #f6f6f6); font-family: var(--font-stack--monospace, monospace); }
table.kbsim-board-table .line.kbsim-special { font-weight: bold; border-style: dashed; }
table.kbsim-board-table .line.kbsim-red { color: #c0262d; }
table.kbsim-board-table .kbsim-empty, table.kbsim-market .kbsim-empty { color: var(--color-foreground-muted, #777); }
table.kbsim-market code.kbsim-card { border: 1px solid var(--color-foreground-border, #999); border-radius: 3px;
  padding: 0 0.3em; white-space: nowrap; }
div.admonition.kbsim-provisional { border-width: 0 0 0 0.4em; font-size: 1.05em; }
table.kbsim-settings, table.kbsim-deal, table.kbsim-options, table.kbsim-items, table.kbsim-board-table,
table.kbsim-market, table.kbsim-cards { margin-left: 0; }
details.kbsim-settings-fold { margin: 0.2em 0 1em 0; }
details.kbsim-settings-fold > summary { cursor: pointer; color: var(--color-foreground-muted, #666); font-size: 0.9em; }
code.kbsim-default { font-weight: bold; }
dl.field-list.kbsim-fields { display: grid; grid-template-columns: max-content auto; column-gap: 1em; }
dl.field-list.kbsim-fields > dt, dl.field-list.kbsim-fields > dd { margin: 0.1em 0; padding: 0; }
"""


# ------------------------------------------------------------------ small node helpers
def slug(text: str) -> str:
    """Lower-case ``text`` with every run of other characters than a-z, 0-9 and ``_`` made one ``-``."""
    return re.sub(r"[^a-z0-9_]+", "-", str(text).lower()).strip("-") or "x"


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def scalar(value: Any) -> str:
    """``value`` written as in a rule file (YAML flow style): ``true``, ``5``, ``end``, ``[1, 13]``."""
    text = yaml.safe_dump(_plain(value), default_flow_style=True, width=10_000, sort_keys=False).strip()
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
    fl = nodes.field_list(classes=["kbsim-fields"])
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


def provisional_note(obj: Any) -> list[nodes.Node]:
    """A warning box when ``obj`` (a rule file or a part of one) carries a ``provisional`` reason or flag."""
    reason = getattr(obj, "provisional", None)
    if not reason:
        return []
    box = nodes.warning(classes=["kbsim-provisional"])
    box += para(nodes.strong("Provisional data.", "Provisional data."), " ",
                reason if isinstance(reason, str) else
                "This part of the rule file is not taken from a published source; replace it when the "
                "real data is known. Results that depend on it are provisional too.")
    return [box]


def character_items(model: Any) -> list[tuple[str, Any]]:
    """(key, character) of every character of a rule file: its ``characters.roster``, or a plain
    ``characters`` mapping or list; empty when the file has none."""
    chars = getattr(model, "characters", None)
    if chars is None:
        return []
    if isinstance(chars, BaseModel):
        chars = getattr(chars, "roster", None)
    return [(str(k), c) for k, c in _items(chars)]


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


_EXAMPLE_LABELS = {"hand": "Hand", "draw_pile": "Draw pile", "discard": "Discard pile", "completed": "Rows completed",
                   "laid": "Hand cards laid", "won": "Won", "parked": "Parked cards", "character": "Character",
                   "opponents": "Other players", "opponent_piles": "Other players' draw piles"}


def _cards_cell(text: str) -> Any:
    return [code(text)] if text else "empty"


def _value_cell(value: Any) -> Any:
    """A field-list cell for an example value: card text, a list of card texts, or a scalar."""
    if isinstance(value, str):
        return _cards_cell(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts: list[Any] = []
        for i, v in enumerate(value):
            parts += (["; "] if i else []) + [code(v or "_")]
        return parts or "none"
    return [code(scalar(value))]


# ------------------------------------------------------------------ the rules reference
class RulesRenderer:
    """Builds the docutils nodes of one game's reference page (the ``rows`` family, and the generic parts).

    The page is walked from the validated model: every section model with a
    ``summary`` becomes a section with its settings; only the parts named in
    :attr:`special` have a rendering of their own. A family whose rule files
    differ subclasses this class and registers it in :data:`RENDERERS`.

    Args:
        directive: the directive being run (for the document, the environment and warnings).
        game: the shipped game's name (or a rule-file path) given to the directive.
        labels: make each section a Sphinx label ``GAME-ANCHOR`` (off where a page shows only a piece).
        loaded: the rules, when the caller has already loaded them (default: ``load_rules(game)``).
    """

    #: Top-level fields with a dedicated rendering (everything else is rendered generically).
    special: frozenset[str] = frozenset(_SPECIAL)
    #: Top-level fields shown under "Components", in this order.
    components: tuple[str, ...] = _COMPONENTS

    def __init__(self, directive: SphinxDirective, game: str, labels: bool = True, loaded: Any = None):
        from kbsim.rules.loader import load_rules

        self.labels = labels
        self.directive = directive
        self.env = directive.env
        self.document = directive.state.document
        self.loaded = loaded if loaded is not None else load_rules(game)
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
        self._compiled: Any = None

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
        if label and self.labels:
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
        return provisional_note(obj)

    # ---- the page
    def render(self) -> list[nodes.Node]:
        m = self.model
        page = self.section(self._id(f"rules-{self.game}"), f"{m.title} rules reference")
        page += self.provisional(m)
        page += self.overview()
        components = self.section(self._id("components"), "Components")
        for key in self.components:
            if getattr(m, key, None) is not None:
                components += self.component(key, getattr(m, key))
        page += components
        for key, value, _ in _fields(m):
            if key in self.special or key in self.components:
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
        self.check_examples()
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
                 if k not in self.special and not isinstance(v, BaseModel | list | dict) and v is not None]
        for k, v, _ in extra:
            items.append((_title_for(k), [code(scalar(v))]))
        sec += field_list(items)
        sec += para("Values in ", code("code"), " are the ones written in the rule file. Options that change a rule "
                    "are linked from the rule they change; ", local_ref("options", "Options"),
                    " lists them with the default kbsim uses, and ", local_ref("variants", "Variants"),
                    " lists the named sets of changes a run can select with ", code("--variant"), ".")
        return sec

    def component(self, key: str, value: Any) -> list[nodes.Node]:
        """One part of the "Components" section (a rule section by default)."""
        return self.block(value, key, _title_for(key))

    def block(self, obj: BaseModel, path: str, title: str | nodes.Node,
              omit: Iterable[str] = ()) -> list[nodes.Node]:
        """A rule section: its summary, a table of its settings, then its sub-rules as subsections.

        A sub-model without a ``summary`` has its settings folded into the parent's table
        (``sequence.step``); a section with nothing of its own (no summary, no settings)
        around a single sub-rule is left out and that sub-rule takes its place. Fields
        named in ``omit`` are left out (a name already shown as the title).
        """
        params: list[tuple[str, str, Any, Any]] = []  # (shown key, dotted path, value, FieldInfo)
        children: list[tuple[str, Any]] = []
        self._collect(obj, path, "", params, children)
        params = [p for p in params if p[0] not in set(omit)]
        summary = getattr(obj, "summary", "") or ""
        body: list[nodes.Node] = []
        for key, value in children:
            child_path = f"{path}.{key}"
            if isinstance(value, BaseModel):
                body += self.block(value, child_path, _title_for(key))
            elif all(_has_summary(item) for _, item in _items(value)):
                body += self.collection(child_path, value)
            else:
                body += self.item_table(key, value)
        if not summary and not params and not getattr(obj, "provisional", None) and len(children) == 1:
            return body  # a section with nothing of its own around a single sub-rule (``table.rows``)
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

    def item_table(self, key: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of small records without summaries (the suits of a deck): one table row each."""
        items = _items(value)
        columns: list[str] = []
        for _, item in items:
            columns += [k for k, v, _ in _fields(item) if v is not None and k not in columns]
        rows = []
        for name, item in items:
            values = {k: v for k, v, _ in _fields(item)}
            row: list[Any] = [[code(name)]] if isinstance(value, dict) else []
            rows.append(row + [[code(scalar(values[c]))] if values.get(c) is not None else "" for c in columns])
        header = (["Name"] if isinstance(value, dict) else []) + columns
        return [para(nodes.strong(_title_for(key), _title_for(key))), table(header, rows, classes=["kbsim-items"])]

    def collection(self, path: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of rule models (a future card table, objectives, ...): one subsection each."""
        key = path.rsplit(".", 1)[-1]
        sec = self.section(self._id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), _title_for(key))
        for name, item in _items(value):
            named = getattr(item, "title", None) or getattr(item, "name", None)
            sub_title: str | nodes.Node = str(named) if named else code(name)
            sec += self.block(item, f"{path}.{name}", sub_title, omit=("name", "title")) or [para(f"`{name}`")]
        return [sec]

    def param_table(self, params: list[tuple[str, str, Any, Any]], pick: bool = False) -> list[nodes.Node]:
        """Settings with their values, meanings and the options that set them, folded away.

        The page reads as a rulebook: the prose leads and each rule's engine settings sit in a
        collapsed ``<details>`` block ("Engine settings (N)") in HTML; other builders show the table.
        With ``pick``, a meaning that lists each value (```a```: ...; ```b```: ...) is cut to the
        value set here (a character's effect: only what its own operation does).
        """
        rows = []
        for key, dotted, value, info in params:
            opt = self.option_by_path.get(dotted)
            meaning = (info.description or "") if info else ""
            if pick and isinstance(value, str):
                meaning = _meaning_of(meaning, value)
            rows.append([[code(key)], [code(scalar(value))], meaning, [self.option_ref(opt)] if opt else ""])
        t = table(["Setting", "Value", "Meaning", "Option"], rows, classes=["kbsim-settings"],
                  widths=[3, 2, 8, 3])
        n = len(rows)
        return [nodes.raw("", f'<details class="kbsim-settings-fold"><summary>Engine settings ({n} '
                              f'{"setting" if n == 1 else "settings"})</summary>', format="html"),
                t, nodes.raw("", "</details>", format="html")]

    def deal_table(self, loaded: Any = None) -> list[nodes.Node]:
        """Cards per seat for every supported player count, dealt by the engine (seat 0 first).

        Args:
            loaded: the rules to deal (a variant's); default the base rules of the page.
        """
        from kbsim.engine.rows.compiled import compile_rules
        from kbsim.engine.rows.game import deal

        loaded = loaded or self.loaded
        m = loaded.model
        try:
            g = compile_rules(loaded)
            chars = getattr(m, "characters", None)
            char_deal = (getattr(chars, "deal", None) or {}) if getattr(chars, "mode", "piles") == "piles" else {}
            rows = []
            shared = False
            for players in range(m.players.min, m.players.max + 1):
                state = deal(g, players, random.Random(0))
                piles = state.piles
                one_stock = len(piles) > 1 and piles[0] is piles[1]  # every seat draws from one stock
                shared = shared or one_stock
                hands = " / ".join(str(len(h)) for h in state.hands)
                if one_stock:
                    row = [str(players), hands, str(len(piles[0])), str(sum(map(len, state.rows)))]
                else:
                    held = [len(h) + len(p) for h, p in zip(state.hands, piles, strict=True)]
                    row = [str(players), " / ".join(map(str, held)), hands, " / ".join(str(len(p)) for p in piles),
                           str(sum(map(len, state.rows)))]
                if char_deal:
                    row.append(str(char_deal.get(players, "-")))
                rows.append(row)
        except Exception as e:  # a rule file the engine cannot deal is a real problem: say so
            logger.warning("kbsim: %s: the engine could not deal this game: %s", self.game, e,
                           location=(self.env.docname, self.directive.lineno))
            return []
        if shared:
            header = ["Players", "Hand", "Shared stock", "Cards on the table"]
            intro = "Cards after the deal, as the engine deals them (hands from seat 0 on):"
        else:
            header = ["Players", "Cards dealt", "Hand", "Draw pile", "Cards on the table"]
            intro = "Cards per seat after the deal, as the engine deals them (seat 0 first):"
        if char_deal:
            header.append("Characters each (when in play)")
        if len({len(r) for r in rows} | {len(header)}) != 1:  # some counts shared a stock, others did not
            return [para(intro), bullets([" / ".join(r) for r in rows])]
        return [para(intro), table(header, rows, classes=["kbsim-deal"])]

    # ---- characters
    def characters(self, characters: Any) -> nodes.section:
        """The character cards: how they are used (the section's own settings), then one section each.

        ``characters`` is either a section model holding a ``roster`` mapping, or the mapping
        (or list) of characters itself.
        """
        sec = self.section(self._id("characters"), "Characters")
        roster = characters
        if isinstance(characters, BaseModel) and "roster" in type(characters).model_fields:
            roster = characters.roster
            sec += self.provisional(characters)
            if getattr(characters, "summary", ""):
                sec += para(characters.summary)
            sec += self.characters_in_play(characters)
            params: list = []
            children: list = []
            self._collect(characters, "characters", "", params, children)
            params = [p for p in params if p[0] != "roster"]
            if params:
                sec += self.param_table(params)
        sec += self.characters_intro(characters)
        for key, ch in _items(roster):
            sec += self.character(str(key), ch)
        return sec

    def characters_in_play(self, characters: BaseModel) -> list[nodes.Node]:
        """Which variants bring the characters into play, when the base game leaves them out."""
        from kbsim.rules.loader import RulesError, load_rules

        if getattr(characters, "enabled", True):
            return []
        turning_on = []
        for vname in self.model.variants:
            try:
                chars = getattr(load_rules(str(self.loaded.source), [vname]).model, "characters", None)
            except RulesError:
                continue
            if chars is not None and getattr(chars, "enabled", False):
                turning_on.append(vname)
        if not turning_on:
            return [para("The base game is played without the characters.")]
        parts: list[Any] = ["The base game is played without the characters; "]
        parts.append("the variant " if len(turning_on) == 1 else "the variants ")
        for i, v in enumerate(turning_on):
            parts += ([", "] if i else []) + [self.variant_ref(v)]
        parts.append(" brings them into play." if len(turning_on) == 1 else " bring them into play.")
        return [para(*parts)]

    def characters_intro(self, characters: Any) -> list[nodes.Node]:
        """Text before the first character (nothing here; a family may explain how its characters work)."""
        return []

    def character_facts(self, key: str, ch: Any) -> list[tuple[str, Any]]:
        """Short facts shown under a character's summary, as (label, cell) pairs."""
        if getattr(ch, "duration", None):
            return [("Lasts", [code(ch.duration)])]
        return []

    def character(self, key: str, ch: Any) -> list[nodes.Node]:
        name = str(getattr(ch, "title", None) or getattr(ch, "name", None) or key)
        chars = getattr(self.model, "characters", None)
        in_roster = isinstance(chars, BaseModel) and "roster" in type(chars).model_fields
        base = f"characters.roster.{key}" if in_roster else f"characters.{key}"
        sub = self.section(self._id(f"character-{slug(key)}"), name)
        index = self.register(sub, "rule-character", key, "character")
        sub += self.provisional(ch)
        if getattr(ch, "summary", ""):
            sub += para(ch.summary)
        facts = self.character_facts(key, ch)
        if facts:
            sub += field_list(facts)
        params: list = []
        children: list = []
        steps = []
        if isinstance(ch, BaseModel):
            for k, v, info in _fields(ch):
                if k in ("name", "title", "summary", "provisional", "examples", "options", "duration") or v is None:
                    continue
                if k == "power" and isinstance(v, list):
                    steps = v
                elif isinstance(v, BaseModel) and not _has_summary(v):
                    self._collect(v, f"{base}.{k}", f"{k}.", params, children)
                elif isinstance(v, BaseModel) or (isinstance(v, list | dict) and v and all(
                        isinstance(x, BaseModel) for _, x in _items(v))):
                    children.append((k, v))
                else:
                    params.append((k, f"{base}.{k}", v, info))
        if params:
            sub += self.param_table(params, pick=True)
        for i, step in enumerate(steps):
            sub += self.power_step(step, f"{base}.power.{i}", i + 1, len(steps))
        for k, v in children:
            sub += (self.block(v, f"{base}.{k}", _title_for(k)) if isinstance(v, BaseModel)
                    else self.collection(f"{base}.{k}", v))
        sub += self.character_options(key, base, ch)
        for ex in getattr(ch, "examples", None) or []:
            sub += self.example(ex)
        return [index, sub]

    def power_step(self, step: Any, path: str, number: int, total: int) -> list[nodes.Node]:
        """One primitive of a character's power: what it does and its parameters."""
        kind = getattr(step, "kind", None)
        params_model = getattr(step, "params", None) if kind else step
        if not isinstance(params_model, BaseModel):
            return [para(f"`{scalar(step)}`")]
        label = (kind or type(step).__name__).replace("_", " ")
        lead = f"Power, step {number}: " if total > 1 else "Power: "
        doc = " ".join((type(params_model).__doc__ or "").strip().split("\n\n")[0].split())
        out: list[nodes.Node] = [para(nodes.strong(lead + label, lead + label), ". " + doc if doc else "")]
        params: list = []
        children: list = []
        self._collect(params_model, f"{path}.{kind}" if kind else path, "", params, children)
        if params:
            out += self.param_table(params)
        return out

    def character_options(self, key: str, base: str, ch: Any) -> list[nodes.Node]:
        """Options that set a field of this character (their path lies under it)."""
        linked = [n for n, opt in self.model.options.items()
                  if opt.path.startswith((f"{base}.", f"characters.{key}."))]
        if not linked:
            return []
        items = [[self.option_ref(n), " (default ", code(scalar(self.defaults[n])), "): ",
                  *inline(self.model.options[n].summary)] for n in linked]
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
            shown = scalar(other[0]) if other else "VALUE"
            items.append(("Command line", [code(f"--option {name}={shown}")]))
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
            kind = _type_words(info.annotation) if info is not None else "what the setting allows"
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
            loaded = load_rules(str(self.loaded.source), [name])
            if loaded.changed:
                sub += bullets([[self.option_ref(k), ": ", code(scalar(self.defaults[k])), " becomes ",
                                 code(scalar(v))] for k, v in loaded.changed.items()])
            if var.overlay:
                sub += para("It also lays this part over the rule file:")
                text = yaml.safe_dump(var.overlay, sort_keys=False, allow_unicode=True).strip()
                sub += nodes.literal_block(text, text, language="yaml")
            players = loaded.model.players
            use = f"kbsim run --game {self.game} --variant {name}"
            if (players.min, players.max) != (m.players.min, m.players.max):
                sub += self.deal_table(loaded)
                use += f" --players {players.min}"
            sub += para("Use: ", code(use))
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
                    "The same examples run in the test suite (", code("kbsim rules test"), "), and the documentation "
                    "build runs them too: it warns, and a build with warnings as errors stops, if the engine no "
                    "longer gives a stated result. Rows are drawn as on the table: one column "
                    "per row card, first card at the top, the end of the row at the bottom.")
        for ex in self.model.examples:
            sec += self.example(ex)
        return sec

    def _notation(self) -> tuple[Any, Any]:
        """``(parse, format)`` for this game's cards: the engine's notation, given the compiled game when the
        notation takes one (suited decks write ``10H``)."""
        import inspect

        from kbsim.engine.rows import notation

        if "game" not in inspect.signature(notation.parse_cards).parameters:
            return notation.parse_cards, notation.format_cards
        if self._compiled is None:
            from kbsim.engine.rows.compiled import compile_rules

            self._compiled = compile_rules(self.loaded)
        g = self._compiled
        return (lambda text: notation.parse_cards(text, game=g)), (lambda cards: notation.format_cards(cards, game=g))

    def board(self, rows: list[str]) -> nodes.container:
        """Rows drawn as on the table: a column per row card, each card as the notation writes it."""
        from kbsim.engine.rows.notation import NotationError

        parse, fmt = self._notation()
        red = {s.symbol for s in getattr(self.model.cards, "suits", None) or []
               if getattr(s, "colour", None) == "red" and getattr(s, "symbol", None)}
        cols = []
        for text in rows:
            try:
                labels = [fmt([c]) for c in parse(text)]
            except NotationError as e:
                logger.warning("kbsim: %s: cannot draw the row %r: %s", self.game, text, e,
                               location=(self.env.docname, self.directive.lineno))
                labels = text.split()
            if labels:
                lb = nodes.line_block()
                for label in labels:
                    classes = [] if label.isdigit() else ["kbsim-special"]
                    if red and label[-1:] in red:
                        classes = ["kbsim-red"]
                    elif red:
                        classes = []
                    lb += nodes.line(label, label, classes=classes)
                cols.append(lb)
            else:
                cols.append(nodes.paragraph("empty", "empty", classes=["kbsim-empty"]))
        t = table([str(i) for i in range(1, len(rows) + 1)], [cols], classes=["kbsim-board-table"])
        box = nodes.container(classes=["kbsim-board"])
        box += t
        return box

    def example(self, ex: Any) -> nodes.section:
        """One example: its setting, the board before, the moves, the stated result and the board after."""
        sec = self.section(self._id(f"example-{slug(ex.name)}"), code(ex.name))
        sec += para(ex.summary)
        setup: list[tuple[str, Any]] = []
        for k, v in ex.options.items():
            setup.append(("Option", [self.option_ref(k) if k in self.model.options else code(k), " = ",
                                     code(scalar(v))]))
        pile = [code(ex.draw_pile), " (top first)"] if ex.draw_pile else "empty"
        setup += [("Hand", _cards_cell(ex.hand)), ("Draw pile", pile)]
        extra = getattr(ex, "setup", None)
        if isinstance(extra, BaseModel):  # character state: the playable character, discard pile, ...
            roster = dict(character_items(self.model))
            for k, v, info in _fields(extra):
                if v is None or v == info.default or v in ("", [], {}):
                    continue
                if k == "character" and str(v) in roster:
                    cell: Any = [local_ref(f"character-{slug(v)}", code(v))]
                else:
                    cell = _value_cell(v)
                setup.append((_EXAMPLE_LABELS.get(k, _title_for(k)), cell))
        sec += field_list(setup)
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
        result: list[tuple[str, Any]] = []
        if getattr(exp, "illegal", None) is not None:
            result.append(("Refused", [f"move {exp.illegal} (", code(ex.moves[exp.illegal - 1]),
                                       ") is not allowed; the moves before it stand"]))
        for k, v, _ in _fields(exp):
            if k in ("illegal", "rows") or v is None:
                continue
            result.append((_EXAMPLE_LABELS.get(k, _title_for(k)), _value_cell(v)))
        if result:
            sec += para(nodes.strong("Result", "Result"))
            sec += field_list(result)
        if getattr(exp, "rows", None) is not None:
            sec += para(nodes.strong("Rows after", "Rows after"))
            sec += self.board(exp.rows)
        return sec

    def check_examples(self) -> None:
        """Run the examples the way ``kbsim rules test`` does; warn for each stated result the engine misses."""
        try:
            from kbsim.engine.rows.examples import run_examples
        except ImportError:  # pragma: no cover - an engine without the example runner
            return
        for result in run_examples(self.loaded.source):
            if not result.ok:
                logger.warning("kbsim: %s example %r does not give its stated result in the engine: %s",
                               self.game, result.name, result.message,
                               location=(self.env.docname, self.directive.lineno))

    def confidence_legend(self) -> nodes.section:
        sec = self.section(self._id("confidence"), "Confidence marks")
        sec += table(["Mark", "Meaning"], [[[code(k)], v] for k, v in CONFIDENCE.items()])
        return sec


def _meaning_of(description: str, value: str) -> str:
    """The part of a description that lists values (```a```: ...; ```b```: ...) about ``value``, else all of it."""
    parts = re.split(r";\s+(?=`[^`]+`:)", description)
    found = [re.match(r"^`([^`]+)`:\s*(.*)$", p.strip(), re.S) for p in parts]
    if len(parts) > 1 and all(found):
        for m in found:
            if m is not None and m.group(1) == value:
                return m.group(2).rstrip(".") + "."
    return description


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
        args = get_args(ann)
        return f"exactly {scalar(args[0])}" if len(args) == 1 else "one of " + ", ".join(scalar(a) for a in args)
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


# ------------------------------------------------------------------ the market family
def rule_anchor(path: str) -> str:
    """The anchor :meth:`RulesRenderer.block` gives the rule section at a dotted path (``rule-contracts-...``)."""
    return "rule-" + slug(path.replace(".", "-").replace("_", "-"))


class MarketRulesRenderer(RulesRenderer):
    """The reference page of a ``market`` family rule file.

    The rule sections (currency, tokens, market, objectives, contracts and their
    patterns, events, setup, turn, end) are rendered like any other family's. On
    top of that:

    * the **card table** (``cards``, read from the file ``card_table`` names) is a
      component of its own: a warning box when it is provisional, its totals next
      to the ``published`` ones, then its wagons, characters, companies,
      objectives and contracts as tables;
    * the **setup** table is dealt by the market engine for every player count;
    * each **character** shows the copies the card table holds;
    * **examples** are drawn as market lines with their decks, the objective line
      and one row per player, before and after the moves, and each move is
      spelled out; the small ``example_cards`` list they play on is shown once.
    """

    special = RulesRenderer.special | {"card_table", "example_cards", "published"}
    components = ("cards", "currency", "tokens")

    # ---- cards
    @staticmethod
    def card(key: str) -> nodes.Node:
        """A market card (or an empty place, ``-``) as it is written in the examples."""
        if key == "-":
            return nodes.inline("empty", "empty", classes=["kbsim-empty"])
        return code(key, classes=["kbsim-card"])

    def cards_cell(self, text: str | None, empty: str = "none") -> Any:
        """A cell of space-separated card keys (wagons, box, tokens); ``None`` (not checked) is blank."""
        if text is None:
            return ""
        words = text.split()
        if not words:
            return [self.card("-")] if empty == "empty" else empty
        parts: list[Any] = []
        for i, w in enumerate(words):
            parts += ([" "] if i else []) + [self.card(w)]
        return parts

    @staticmethod
    def ids_cell(ids: list[str] | None, empty: str = "none", notes: dict[str, str] | None = None) -> Any:
        """A cell of objective or contract ids; ``-`` is an empty place; ``None`` (not checked) is blank.

        ``notes`` adds a word in brackets after an id (the icon of a claimed objective).
        """
        if ids is None:
            return ""
        if not ids:
            return empty
        parts: list[Any] = []
        for i, x in enumerate(ids):
            parts += ([", "] if i else []) + [MarketRulesRenderer.card(x)]
            if notes and x in notes:
                parts.append(f" ({notes[x]})")
        return parts

    def icon_notes(self) -> dict[str, str]:
        """Objective id -> the name of its icon's company, in the card list the examples play on."""
        cards = getattr(self.model, "example_cards", None) or self.model.cards
        names = {c.key: c.name for c in cards.companies}
        return {o.id: names.get(o.company, o.company) for o in cards.objectives}

    def component(self, key: str, value: Any) -> list[nodes.Node]:
        if key == "cards":
            return self.card_table_section(value)
        return super().component(key, value)

    def card_table_section(self, cards: Any) -> list[nodes.Node]:
        """The card table: provisional warning, file, totals against the published ones, the card lists."""
        m = self.model
        sec = self.section(self._id("rule-cards"), "Card table")
        box = self.provisional(cards)
        if box:
            hint = para("To play the real cards, write them in a table with the same keys and fields, point ",
                        code("card_table"), " in the rule file at it and check it with ",
                        code(f"kbsim rules check {self.game}"), "; ", code("--option card_table=FILE"),
                        " tries another table for a single run.")
            box[0] += hint
        sec += box
        if cards.summary:
            sec += para(cards.summary)
        if m.card_table:
            cell: list[Any] = [code(m.card_table), " (relative to the rule file)"]
            opt = self.option_by_path.get("card_table")
            if opt:
                cell += ["; option ", self.option_ref(opt)]
            sec += field_list([("File", cell)])
        sec += self.totals_table(cards)
        sec += self.card_lists(cards)
        return [sec]

    def totals_table(self, cards: Any) -> list[nodes.Node]:
        """The table's totals next to the totals the sources print (``published``)."""
        m = self.model
        published = m.published.model_dump() if getattr(m, "published", None) is not None else {}
        labels = {"wagons": "Wagons", "characters": "Characters", "objectives": "Objectives",
                  "contracts": "Contracts", "tokens": "Company tokens"}
        rows = []
        for key, n in cards.totals().items():
            want = published.get(key)
            rows.append([labels.get(key, _title_for(key)), str(n), "not published" if want is None else str(want)])
        market = (sum(w.count for w in cards.wagons) + m.currency.cards + sum(cards.characters.values())
                  + sum(e.count for e in m.events.values()))
        rows.append([f"Market cards in all (wagons, {m.currency.name} cards, characters, events)", str(market), ""])
        intro = para("Totals of this table, next to the totals the sources print (rule file: ", code("published"),
                     "); a card table whose totals differ from a published one is refused when the rules are "
                     "loaded.")
        return [intro, table(["Cards", "In the table", "Published"], rows, classes=["kbsim-cards"], widths=[6, 2, 2])]

    def card_lists(self, cards: Any) -> list[nodes.Node]:
        """Tables of a card table's wagons, characters, companies, objectives and contracts."""
        m = self.model
        wagon_names = {w.key: w.name for w in cards.wagons}
        company_names = {c.key: c.name for c in cards.companies}
        wild = set(m.turn.claim.wild)
        out: list[nodes.Node] = []

        def add(title: str, header: list[str], rows: list[list[Any]], widths: list[int]) -> None:
            keep = [i for i in range(len(header)) if i == 0 or any(r[i] not in ("", None) for r in rows)]
            out.append(para(nodes.strong(title, title)))
            out.append(table([header[i] for i in keep], [[r[i] for i in keep] for r in rows],
                             classes=["kbsim-cards"], widths=[widths[i] for i in keep]))

        add("Wagons", ["Key", "Name", "Copies", "Wild"],
            [[[self.card(w.key)], w.name, str(w.count), "yes: stands for any wagon" if w.key in wild else ""]
             for w in cards.wagons], [2, 4, 1, 3])
        if cards.characters:
            add("Characters", ["Character", "Copies"],
                [[[local_ref(f"character-{slug(k)}", m.characters[k].name if k in m.characters else k)], str(n)]
                 for k, n in cards.characters.items()], [4, 1])
        icons = {c.key: sum(1 for o in cards.objectives if o.company == c.key) for c in cards.companies}
        add("Companies", ["Key", "Name", "Tokens", "Objectives with its icon"],
            [[[code(c.key)], c.name, str(c.tokens), str(icons[c.key])] for c in cards.companies], [2, 4, 1, 2])
        add("Objectives", ["Id", "Name", "Wagons needed", "Points", "Icon"],
            [[[code(o.id)], o.name, ", ".join(f"{n} × {wagon_names.get(k, k)}" for k, n in o.needs.items()),
              str(o.points), company_names.get(o.company, o.company)] for o in cards.objectives], [2, 4, 6, 1, 3])
        rows = []
        for c in cards.contracts:
            terms: list[Any] = []
            for i, t in enumerate(c.terms):
                terms += ([" + "] if i else []) + [local_ref(rule_anchor(f"contracts.patterns.{t.pattern}"),
                                                             code(t.pattern))]
                if t.colour is not None:
                    terms.append(f" ({company_names.get(t.colour, t.colour)})")
            rows.append([[code(c.id)], c.name, terms])
        add("Contracts", ["Id", "Name", "Scores the patterns"], rows, [2, 4, 6])
        return out

    # ---- setup
    def deal_table(self, loaded: Any = None) -> list[nodes.Node]:
        """The table after setup for every supported player count, laid out by the market engine."""
        from kbsim.engine.market import GAP, new_state
        from kbsim.engine.rows.compiled import compile_rules

        loaded = loaded or self.loaded
        m = loaded.model
        try:
            g = compile_rules(loaded)
            rows = []
            for players in range(m.players.min, m.players.max + 1):
                st = new_state(g, players, random.Random(0))
                face_up = sum(1 for line in st.lines for c in line if c != GAP)
                shown = sum(1 for o in st.obj_visible if o != GAP)
                rows.append([str(players), str(face_up), " / ".join(str(len(d)) for d in st.decks),
                             f"{shown} / {len(st.obj_deck)}",
                             f"{len(st.offered[0])}, keeps {g.contracts_kept}", str(len(st.contract_box)),
                             str(st.currency[0])])
        except Exception as e:  # a rule file the engine cannot set up is a real problem: say so
            logger.warning("kbsim: %s: the engine could not set up this game: %s", self.game, e,
                           location=(self.env.docname, self.directive.lineno))
            return []
        header = ["Players", "Market cards face up", "Left in each deck", "Objectives face up / in their deck",
                  "Contracts dealt to each", "Contracts not dealt", f"{m.currency.name} cards each"]
        return [para("The table after setup, as the engine lays it out:"),
                table(header, rows, classes=["kbsim-deal"])]

    # ---- characters
    def characters_intro(self, characters: Any) -> list[nodes.Node]:
        if not characters:
            return []
        return [para("Characters are market cards: the player who takes one (paying its place like any card) "
                     "carries out its effect at once, then it leaves the game; an effect that cannot be carried "
                     "out is lost. The copies of each are counted in the card table.")]

    def character_facts(self, key: str, ch: Any) -> list[tuple[str, Any]]:
        cards = getattr(self.model, "cards", None)
        facts = super().character_facts(key, ch)
        if cards is not None:
            note = " (provisional card table)" if cards.provisional else ""
            facts.append(("Copies", f"{cards.characters.get(key, 0)}{note}"))
        return facts

    # ---- examples
    def examples_section(self) -> nodes.section:
        m = self.model
        sec = self.section(self._id("examples"), "Examples")
        sec += para("Each example lays out a table (the market lines, cheapest place first, with what is left in "
                    "each deck; the face-up objectives; every player's cards), plays the listed moves and states "
                    "the result; what it leaves out is not checked. The same examples run in the test suite (",
                    code("kbsim rules test"), "), and the documentation build runs them too: it warns, and a build "
                    "with warnings as errors stops, if the engine no longer gives a stated result.")
        forms = self.move_forms()
        if forms:
            sec += para(nodes.strong("Moves.", "Moves."), " ", *forms)
        if getattr(m, "example_cards", None) is not None:
            sub = self.section(self._id("examples-cards"), "Cards the examples use")
            if m.example_cards.summary:
                sub += para(m.example_cards.summary)
            sub += para("The examples play on a small card list of their own (rule file: ", code("example_cards"),
                        "), so that they check the rules and not the card table.")
            sub += self.card_lists(m.example_cards)
            sec += sub
        for ex in m.examples:
            sec += self.example(ex)
        return sec

    @staticmethod
    def move_forms() -> list[nodes.Node]:
        """The forms of the market move notation, from :func:`kbsim.engine.market.parse_market_move`."""
        from kbsim.engine import market

        doc = market.parse_market_move.__doc__ or ""
        for chunk in doc.split("\n\n"):
            text = " ".join(chunk.split())
            if text.startswith("Forms:"):
                return inline(text.removeprefix("Forms:").strip().replace("``", "`"))
        return []

    def describe_move(self, text: str) -> str:
        """A move of the market notation in words (the notation itself is checked by the engine)."""
        m = self.model
        parts = text.split()
        op, args = (parts[0].lower(), parts[1:]) if parts else ("", [])

        def by(effect: str) -> str:
            names = [c.name for c in m.characters.values() if c.effect.op == effect]
            return f" ({' or '.join(names)})" if names else ""

        if op == "take" and len(args) == 2 and all(a.isdigit() for a in args):
            place = int(args[1])
            cost = f" (a place that costs {m.market.costs[place - 1]})" if 1 <= place <= len(m.market.costs) else ""
            return f"take the card in line {args[0]}, place {place}{cost}"
        if op == "claim" and len(args) == 1:
            return (f"claim face-up objective {args[0]}" if args[0].isdigit() else f"claim objective `{args[0]}`")
        if op == "end" and not args:
            return "end the turn; the next seat plays"
        if op == "choose" and len(args) == 1:
            return f"keep contract `{args[0]}`"
        if op == "steal" and len(args) == 1:
            return f"take every {m.currency.name} card of seat {args[0]}{by('take_currency')}"
        if op == "swap" and len(args) == 3:
            return f"give your `{args[0]}` to seat {args[1]} for their `{args[2]}`{by('swap_wagons')}"
        if op == "token" and len(args) == 1:
            return f"take a `{args[0]}` company token from the supply{by('take_token')}"
        return ""

    def market_board(self, lines: list[str], decks: list[str] | None) -> nodes.container:
        """Market lines (one row per deck, cheapest place first) and, when given, what is left in each deck."""
        costs = self.model.market.costs
        header = ["Line"] + [f"Place {i + 1} (cost {c})" for i, c in enumerate(costs)]
        if decks is not None:
            header.append("Deck (top first)")
        rows = []
        for d, text in enumerate(lines):
            words = text.split()
            words = (words + ["-"] * len(costs))[:len(costs)]
            row: list[Any] = [str(d + 1)] + [self.card(w) for w in words]
            if decks is not None:
                row.append(self.cards_cell(decks[d] if d < len(decks) else "", empty="empty"))
            rows.append(row)
        box = nodes.container(classes=["kbsim-board"])
        box += table(header, rows, classes=["kbsim-market"])
        return box

    def players_table(self, players: list[Any], seat: int | None = None, checked: bool = False) -> nodes.table:
        """One row per seat; ``checked``: expected values, where a blank cell is not checked."""
        m = self.model
        labels = {"wagons": "Wagons", "currency": f"{m.currency.name} cards", "tokens": "Company tokens",
                  "objectives": "Objectives claimed", "contracts": "Contracts kept"}
        columns: list[str] = []
        for p in players:
            for k, v, _ in _fields(p):
                shown = v is not None if checked else v not in (None, "", [], 0)
                if shown and k not in columns:
                    columns.append(k)
        order = list(labels)
        columns.sort(key=lambda k: order.index(k) if k in order else len(order))
        rows = []
        for i, p in enumerate(players):
            values = {k: v for k, v, _ in _fields(p)}
            row: list[Any] = [f"{i} (to play)" if seat == i else str(i)]
            for k in columns:
                v = values.get(k)
                if v is None:
                    row.append("")
                elif k in ("wagons", "tokens"):
                    row.append(self.cards_cell(v))
                elif k == "objectives":
                    row.append(self.ids_cell(v, notes=self.icon_notes()))
                elif k == "contracts":
                    row.append(self.ids_cell(v))
                elif isinstance(v, str):
                    row.append(self.cards_cell(v))
                elif isinstance(v, list):
                    row.append(self.ids_cell([str(x) for x in v]))
                else:
                    row.append([code(scalar(v))])
            rows.append(row)
        return table(["Seat"] + [labels.get(k, _title_for(k)) for k in columns], rows, classes=["kbsim-market"])

    def example(self, ex: Any) -> nodes.section:
        """One example: its table, the moves in words, the stated result and the table after."""
        m = self.model
        st = ex.state
        sec = self.section(self._id(f"example-{slug(ex.name)}"), code(ex.name))
        if ex.summary:
            sec += para(ex.summary)
        setup: list[tuple[str, Any]] = []
        for k, v in ex.options.items():
            setup.append(("Option", [self.option_ref(k) if k in m.options else code(k), " = ", code(scalar(v))]))
        setup.append(("Players", str(len(st.players))))
        setup.append(("To play", f"seat {st.seat}"))
        if getattr(st, "trigger_seat", None) is not None:
            setup.append(("End triggered by", f"seat {st.trigger_seat} (the final round is being played)"))
        if st.objectives:
            setup.append(("Objectives face up", self.ids_cell(st.objectives)))
        if st.objective_deck:
            setup.append(("Objective deck (top first)", self.ids_cell(st.objective_deck)))
        sec += field_list(setup)
        empty_market = all(w == "-" for line in st.market for w in line.split())
        if empty_market and not any(d.split() for d in st.decks):
            sec += para(nodes.strong("Market:", "Market:"), " every place empty, every deck used up.")
        else:
            sec += para(nodes.strong("Market before", "Market before"))
            sec += self.market_board(st.market, st.decks if any(d.split() for d in st.decks) else None)
            if not any(d.split() for d in st.decks):
                sec += para("Every deck is used up.")
        if any(v not in (None, "", [], 0) for p in st.players for _, v, _ in _fields(p)):
            sec += para(nodes.strong("Players before", "Players before"))
            sec += self.players_table(st.players, seat=st.seat)
        if ex.moves:
            moves = nodes.enumerated_list(enumtype="arabic")
            for mv in ex.moves:
                li = nodes.list_item()
                words = self.describe_move(mv)
                li += para(code(mv), *([": ", words] if words else []))
                moves += li
            sec += para(nodes.strong("Moves", "Moves"))
            sec += moves
        else:
            sec += para("No moves: the example scores the table as it stands.")
        sec += self.example_result(ex)
        return sec

    def example_result(self, ex: Any) -> list[nodes.Node]:
        """The stated result of an example: refused move, values, the market and the players after."""
        exp = ex.expect
        items: list[tuple[str, Any]] = []
        if exp.illegal is not None:
            move = ex.moves[exp.illegal - 1] if 0 < exp.illegal <= len(ex.moves) else "?"
            items.append(("Refused", [f"move {exp.illegal} (", code(move), ") is not allowed; the moves before it "
                                      "stand"]))

        def per_seat(values: list[Any]) -> str:
            return "; ".join(f"seat {i}: {v}" for i, v in enumerate(values))

        for k, v, _ in _fields(exp):
            if v is None or k in ("illegal", "market", "decks", "players"):
                continue
            if k == "objectives":
                items.append(("Objectives face up", self.ids_cell(v)))
            elif k == "objective_deck":
                items.append(("Objective deck (top first)", self.ids_cell(v, empty="empty")))
            elif k == "box":
                items.append(("Out of the game (box)", self.cards_cell(v)))
            elif k == "characters_lost":
                items.append(("Characters lost", str(v)))
            elif k == "seat":
                items.append(("To play next", f"seat {v}"))
            elif k == "ended":
                items.append(("Game over", "yes" if v else "no"))
            elif k == "winners":
                seats = ", ".join(str(s) for s in v)
                items.append(("Winners", f"seat {seats}" if len(v) == 1 else
                              (f"seats {seats} (a shared win)" if v else "none")))
            elif isinstance(v, list) and all(isinstance(x, int) for x in v):
                items.append((_title_for(k), per_seat(v)))
            else:
                items.append((_title_for(k), _value_cell(v)))
        out: list[nodes.Node] = []
        if items:
            out += [para(nodes.strong("Result", "Result")), field_list(items)]
        if exp.market is not None:
            out += [para(nodes.strong("Market after", "Market after")), self.market_board(exp.market, exp.decks)]
        elif exp.decks is not None:
            decks = [[f"line {i + 1}: ", *(self.cards_cell(d, empty="empty") if d.split() else ["empty"])]
                     for i, d in enumerate(exp.decks)]
            out += [para(nodes.strong("Decks after (top first)", "Decks after (top first)")), bullets(decks)]
        if exp.players is not None and any(v is not None for p in exp.players for _, v, _ in _fields(p)):
            out += [para(nodes.strong("Players after", "Players after"), " (blank cells are not checked)"),
                    self.players_table(exp.players, checked=True)]
        return out


#: The page renderer of each engine family (a rule file's ``family``), from :mod:`kbsim.engine.families`.
RENDERERS: dict[str, type[RulesRenderer]] = {name: f.part("docs_renderer") for name, f in FAMILIES.items()}


def make_renderer(directive: SphinxDirective, game: str, labels: bool = True) -> RulesRenderer:
    """The renderer of a rule file's engine family (:data:`RENDERERS`), with the rules loaded once."""
    from kbsim.rules.loader import load_rules

    loaded = load_rules(game)
    cls = RENDERERS.get(getattr(loaded.model, "family", "rows") or "rows", RulesRenderer)
    return cls(directive, game, labels=labels, loaded=loaded)


class RulesDirective(SphinxDirective):
    """``{kbsim-rules} GAME``: the reference page of one rule file."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from kbsim.rules.loader import RulesError, find_rule_file

        game = self.arguments[0]
        try:
            self.env.note_dependency(str(find_rule_file(game).resolve()))
            renderer = make_renderer(self, game)
            for dep in getattr(renderer.model, "dependencies", lambda: [])():
                self.env.note_dependency(str(Path(dep).resolve()))
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


class YamlDirective(SphinxDirective):
    """``{kbsim-yaml} GAME PATH``: a part of a shipped rule file, as written (``options.hand_size``)."""

    required_arguments = 2

    def run(self) -> list[nodes.Node]:
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
        from kbsim.rules.loader import RulesError, find_rule_file, read_document

        game, name = self.arguments
        try:
            renderer = make_renderer(self, game, labels=False)
            source = read_document(find_rule_file(game))
            self.env.note_dependency(str(find_rule_file(game).resolve()))  # rebuilt when the rule file changes
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
        from docutils.statemachine import StringList

        from kbsim.engine.rows import notation

        lines = notation_rst(notation.__doc__ or "")
        container = nodes.container()
        source = StringList(lines, source="<kbsim.engine.rows.notation>")
        self.state.nested_parse(source, self.content_offset, container)
        return container.children


def notation_rst(doc: str) -> list[str]:
    """reStructuredText for the blocks of the notation docstring (see :class:`NotationDirective`)."""
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
            out += [f".. list-table:: {head}", "   :header-rows: 1", "   :widths: 3 7", "",
                    "   * - Form", "     - Meaning"]
            for m in rows:
                out += [f"   * - {m.group(1)}", f"     - {m.group(2)}"]
            out.append("")
        else:
            out += [f"**{head.rstrip('.')}.** " + " ".join(body), ""]
    return out or ["::", "", *["   " + line for line in doc.splitlines()], ""]


# ------------------------------------------------------------------ list of games
class GamesDirective(SphinxDirective):
    """``{kbsim-games}``: a table of the shipped rule files linked to their pages (``rules/GAME``)."""

    option_spec = {"prefix": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from kbsim.rules.loader import load_rules, shipped_games

        prefix = self.options.get("prefix", "/rules/")
        rows = []
        for game in shipped_games():
            loaded = load_rules(game)
            m = loaded.model
            self.env.note_dependency(str(loaded.source.resolve()))  # the table shows its title: rebuild on edits
            ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"{prefix}{game}",
                                        refexplicit=True, refdoc=self.env.docname)
            ref += nodes.inline(m.title, m.title)
            note = "provisional data" if getattr(m, "provisional", None) else ""
            rows.append([[ref], [code(game)], f"{m.players.min}-{m.players.max}", str(len(m.options)),
                         str(len(m.variants)), str(len(character_items(m))), str(len(m.examples)), note])
        return [table(["Game", "Name", "Players", "Options", "Variants", "Characters", "Examples", "Note"], rows,
                      classes=["kbsim-games"])]


# ------------------------------------------------------------------ command line
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*(?:=[^\s,;)]+)?)")


def cli_para(text: str) -> nodes.paragraph:
    """A paragraph of help text with every ``--flag`` as a literal (so it is never typeset as a dash)."""
    p = nodes.paragraph()
    pos = 0
    for m in _FLAG.finditer(text):
        if m.start() > pos:
            p += nodes.Text(text[pos:m.start()])
        p += code(m.group(1))
        pos = m.end()
    if pos < len(text):
        p += nodes.Text(text[pos:])
    return p


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
            text, _, example = text.partition("Example:")
            if text.strip():
                sec += cli_para(text.strip())
            if example.strip():
                sec += para(nodes.strong("Example:", "Example:"))
                cmdline = "$ " + example.strip()
                sec += nodes.literal_block(cmdline, cmdline, language="console")
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
            rows.append([[code(flags)], cli_para(help_text or "")])
            for opt in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if opt.startswith("-"):
                    std.add_program_option(path, opt, self.env.docname, ident)
        rows.append([[code("--help")], "Show the help of this command and exit."])
        sec += table(["Option / argument", "Meaning"], rows, classes=["kbsim-cli-options"], widths=[4, 8])
        subs = getattr(cmd, "commands", None)
        if subs:
            sec += para("Commands:")
            sec += bullets([[local_ref("cli-" + slug(f"{path}-{name}"), code(f"{path} {name}")), " — ",
                             *cli_para((sub.help or "").strip().split("\n")[0]).children]
                            for name, sub in subs.items() if not getattr(sub, "hidden", False)])
        out: list[nodes.Node] = [sec]
        for name, sub in (subs or {}).items():
            if not getattr(sub, "hidden", False):
                sec += self.command(sub, f"{path} {name}", ctx, level + 1)
        return out


# ------------------------------------------------------------------ records schema
def _docstring_meanings(doc: str) -> dict[str, str]:
    """column -> meaning, from the simple reST table (name, type, meaning) in a module docstring.

    Cells are cut at the column positions of the table's ``====`` border, so a type with a
    space in it (``int16 (null)``) is read correctly.
    """
    out: dict[str, str] = {}
    lines = doc.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*=+(\s+=+)+\s*", line)]
    if not borders:
        return out
    starts = [m.start() for m in re.finditer(r"=+", lines[borders[0]])]
    first = borders[1] if len(borders) >= 3 else borders[0]  # skip the header row when the table has one
    for line in lines[first + 1:borders[-1]]:
        if not line.strip() or re.fullmatch(r"\s*=+(\s+=+)+\s*", line):
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1], strict=True)]
        if len(cells) >= 3 and cells[0] and cells[-1]:
            out[cells[0]] = cells[-1]
    return out


class RecordsDirective(SphinxDirective):
    """``{kbsim-records}``: the columns of a records file, from :data:`kbsim.sim.records.ALL_FIELDS`.

    A column's meaning is its field metadata ``description`` when present, else the
    line of the module docstring's table that names it; a column with neither warns.
    """

    def run(self) -> list[nodes.Node]:
        from kbsim.sim import records

        meanings = _docstring_meanings(records.__doc__ or "")
        rows = []
        for f in records.ALL_FIELDS:  # every family's columns; the meaning names the family
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


def _type_nodes(ann: Any, anchors: dict[type, str] | None = None) -> list[Any]:
    """Like :func:`_type_words` but model types link to their own table (``anchors``: model -> anchor)."""
    anchors = anchors or {}
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [local_ref(anchors.get(ann, f"schema-{ann.__name__.lower()}"), code(ann.__name__))]
    origin = get_origin(ann)
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for i, a in enumerate(get_args(ann)):
            out += ([" or "] if i else []) + _type_nodes(a, anchors)
        return out
    if origin is list and _all_models(ann):
        return ["a list of ", *_type_nodes(get_args(ann)[0], anchors)]
    if origin is dict and _all_models(ann):
        return ["a mapping of names to ", *_type_nodes(get_args(ann)[1], anchors)]
    return [_type_words(ann)]


#: The root model of the rule files of each engine family (``family:`` in a rule file), from the registry.
SCHEMA_FAMILIES = {name: f"{m.__module__}:{m.__qualname__}" for name, m in RULE_MODELS.items()}


def schema_roots() -> list[tuple[str, type[BaseModel]]]:
    """(family, root model) of every engine family, from :data:`SCHEMA_FAMILIES`."""
    import importlib

    out = []
    for family, target in SCHEMA_FAMILIES.items():
        module, _, attr = target.partition(":")
        out.append((family, getattr(importlib.import_module(module), attr)))
    return out


class SchemaDirective(SphinxDirective):
    """``{kbsim-schema}``: per engine family, a table per rule-file model (field, type, default, meaning), then
    the JSON Schema ``kbsim rules schema`` prints.

    A model two families share (``Option``, ``Variant``, ...) is described once, under the first
    family; a model name both families use for different models gets the family in its anchor
    (``schema-market-setup``) and title.
    """

    option_spec = {"no-json": directives.flag}

    def run(self) -> list[nodes.Node]:
        roots = schema_roots()
        anchors: dict[type, str] = {}
        per_family: list[tuple[str, type[BaseModel], list[type[BaseModel]]]] = []
        for family, root in roots:
            mine = []
            for cls in _models_in_order(root):
                if cls in anchors:
                    continue
                ident = f"schema-{cls.__name__.lower()}"
                if ident in anchors.values():
                    ident = f"schema-{family}-{cls.__name__.lower()}"
                anchors[cls] = ident
                mine.append(cls)
            per_family.append((family, root, mine))
        out: list[nodes.Node] = []
        for family, root, models in per_family:
            ident = f"schema-family-{family}"
            fam = nodes.section(ids=[ident], names=[ident])
            title = f"The {family} family"
            fam += nodes.title(title, title)
            self.state.document.note_explicit_target(fam, fam)
            optional = not root.model_fields["family"].is_required()
            fam += para(f"Rule files with `family: {family}`" + (" (or no `family`)" if optional else "")
                        + ". The root of such a file is ", local_ref(anchors[root], code(root.__name__)),
                        "; models already described above are linked, not repeated.")
            for cls in models:
                fam += self.model_section(cls, anchors, family)
            out.append(fam)
        if "no-json" not in self.options:
            text = self.json_schema(roots)
            sec = nodes.section(ids=["json-schema"], names=["json-schema"])
            sec += nodes.title("JSON Schema", "JSON Schema")
            self.state.document.note_explicit_target(sec, sec)
            sec += para("The same models as JSON Schema, as ", code("kbsim rules schema"), " prints it (every "
                        "family; ", code("--family rows"), " or ", code("--family market"), " prints one):")
            sec += nodes.literal_block(text, text, language="json", classes=["no-search"])
            out.append(sec)
        return out

    def model_section(self, cls: type[BaseModel], anchors: dict[type, str], family: str) -> nodes.section:
        from pydantic_core import PydanticUndefined

        ident = anchors[cls]
        sec = nodes.section(ids=[ident], names=[ident])
        label = cls.__name__ + (f" ({family})" if ident.startswith(f"schema-{family}-") else "")
        sec += nodes.title("", "", code(label))
        self.state.document.note_explicit_target(sec, sec)
        doc = (cls.__doc__ or "").strip().split("\n\n")[0]
        if doc and cls.__doc__ != BaseModel.__doc__:
            sec += para(" ".join(doc.split()).replace("``", "`"))
        rows = []
        for name, info in cls.model_fields.items():
            key = info.alias or name
            bounds = _constraints(info)
            type_cell = _type_nodes(info.annotation, anchors) + ([f" ({bounds})"] if bounds else [])
            if info.is_required():
                default: Any = "required"
            elif info.default_factory is not None:
                default = [code(scalar(info.default_factory()))]
            elif info.default is PydanticUndefined:
                default = ""
            else:
                default = [code(scalar(info.default))]
            rows.append([[code(key)], type_cell, default, (info.description or "").replace("``", "`")])
        sec += table(["Field", "Type", "Default", "Meaning"], rows, classes=["kbsim-schema"], widths=[3, 4, 2, 7])
        return sec

    def json_schema(self, roots: list[tuple[str, type[BaseModel]]]) -> str:
        """What ``kbsim rules schema`` prints (run in-process), else the schema built here from the models."""
        try:
            from typer.testing import CliRunner

            from kbsim.cli import app

            result = CliRunner().invoke(app, ["rules", "schema"])
            if result.exit_code == 0 and result.stdout.strip().startswith("{"):
                return json.dumps(json.loads(result.stdout), indent=2)
            problem = (result.stdout or "").strip()[-200:] or repr(result.exception)
        except Exception as e:  # the command line cannot be imported: say so, and show the models' schema
            problem = f"{type(e).__name__}: {e}"
        logger.warning("kbsim: `kbsim rules schema` did not print a JSON Schema (%s); the page shows the schema "
                       "of the models instead", problem, location=(self.env.docname, self.lineno))
        from pydantic.json_schema import models_json_schema

        refs, schema = models_json_schema([(m, "validation") for _, m in roots], by_alias=True,
                                          title="kbsim rule file")
        schema["anyOf"] = [refs[(m, "validation")] for _, m in roots]
        return json.dumps(schema, indent=2)


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
        import importlib
        import pkgutil

        from docutils.statemachine import StringList

        name = self.arguments[0]
        package = importlib.import_module(name)
        only = "modules-only" in self.options  # the package's plain modules, not the package or its subpackages
        modules = [] if only else [name]
        modules += sorted(f"{name}.{m.name}" for m in pkgutil.iter_modules(getattr(package, "__path__", []))
                          if not m.name.startswith("_") and not (only and m.ispkg))
        lines = []
        for mod in modules:
            lines += [f".. automodule:: {mod}", "   :ignore-module-all:", ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=f"<kbsim-automodules {name}>"), self.content_offset,
                                container)
        return container.children


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


def _cache_rule_files(app: Sphinx) -> None:
    """Parse each rule file once per build.

    The reference loads the same file many times (once per variant, once per executed
    example); the YAML parse dominates that work. During the build the loader's
    ``read_document`` is wrapped with a cache keyed by path and modification time, and
    every caller gets its own deep copy, so nothing can leak between loads.
    """
    import copy

    from kbsim.rules import loader

    original = loader.read_document
    if getattr(original, "_kbsim_docs_cache", False):
        return
    cache: dict[tuple[str, int], Any] = {}

    def read_document(path: Path) -> dict[str, Any]:
        p = Path(path)
        try:
            key = (str(p.resolve()), p.stat().st_mtime_ns)
        except OSError:
            return original(path)
        if key not in cache:
            cache[key] = original(path)
        return copy.deepcopy(cache[key])

    read_document._kbsim_docs_cache = True  # type: ignore[attr-defined]
    read_document.__wrapped__ = original  # type: ignore[attr-defined]
    loader.read_document = read_document


def _uncache_rule_files(app: Sphinx, exc: Exception | None) -> None:
    from kbsim.rules import loader

    loader.read_document = getattr(loader.read_document, "__wrapped__", loader.read_document)


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
    app.add_directive("kbsim-yaml", YamlDirective)
    app.add_directive("kbsim-example", ExampleDirective)
    app.add_directive("kbsim-notation", NotationDirective)
    app.add_directive("kbsim-automodules", AutomodulesDirective)
    app.add_object_type("rule-option", "rule-option", objname="rule option")
    app.add_object_type("rule-variant", "rule-variant", objname="rule variant")
    app.add_object_type("rule-character", "rule-character", objname="character")
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_all_rendered)
    app.connect("builder-inited", _cache_rule_files)
    app.connect("build-finished", _uncache_rule_files)
    app.connect("build-finished", _write_css)
    app.add_css_file("kbsim.css")
    from kbsim import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
