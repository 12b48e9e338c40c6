"""The rules reference of a rule file, as the engine families share it: pages, sections, options, variants..."""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import yaml
from docutils import nodes
from pydantic import BaseModel
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from kbsim.engine.families import family
from kbsim.sphinx.helpers import (
    CONFIDENCE,
    EXAMPLE_LABELS,
    bullets,
    character_items,
    code,
    constraints,
    field_at,
    field_list,
    fields_of,
    fill,
    has_summary,
    inline,
    items_of,
    meaning_of,
    para,
    provisional_note,
    scalar,
    slug,
    table,
    title_for,
    type_words,
)
from kbsim.sphinx.i18n import DEFAULT, N_, Words
from kbsim.sphinx.links import make_ref

logger = logging.getLogger(__name__)

_SPECIAL = {
    "schema_version",
    "game",
    "title",
    "summary",
    "players",
    "provisional",
    "options",
    "variants",
    "clarifications",
    "examples",
    "characters",
    "language",
}
_COMPONENTS = ("cards", "table")
#: The parts of a game's reference that follow its rule sections, in reading order (see :meth:`RulesRenderer.parts`).
_CLOSING_PARTS = ("options", "variants", "clarifications", "examples")


#: Examples per page when a game's examples fill several pages (each is drawn as boards: about 700 px high).
EXAMPLES_PER_PAGE = 6


def examples_pages(model: Any) -> int:
    """How many pages a rule file's examples fill (one when they fit on one)."""
    return max(1, -(-len(model.examples) // EXAMPLES_PER_PAGE))


def part_name(key: str) -> str:
    """The page name of a top-level rule section (``turn_limit`` -> ``turn-limit``)."""
    return key.replace("_", "-")


def character_name(key: str, ch: Any) -> str:
    """A character's name as the page shows it: its ``title`` or ``name``, else its key."""
    return str(getattr(ch, "title", None) or getattr(ch, "name", None) or key)


# ------------------------------------------------------------------ the rules reference
class ReferenceRenderer:
    """Builds the docutils nodes of one game's reference: what every engine family's reference shares.

    The reference is walked from the validated model: every section model with a
    ``summary`` becomes a section with its settings; only the parts named in
    :attr:`special` have a rendering of their own. A family whose rule files
    differ subclasses this class (it draws the deal and the examples at least) and
    registers it as its ``docs_renderer`` (:mod:`kbsim.engine.families`): the ``rows``
    family's is :class:`kbsim.sphinx.rows.RulesRenderer`, the ``market`` family's
    :class:`kbsim.sphinx.market.MarketRulesRenderer`.

    It is rendered whole (one long page) or as pages a player reads one at a time
    (:meth:`parts`: the overview, each top-level rule section such as the setup, the
    turn and the end, the characters, options, variants, clarifications and examples).
    Links between entries cross pages (:mod:`kbsim.sphinx.links`). kbsim's own words are
    in the rule file's ``language`` (:mod:`kbsim.sphinx.i18n`).

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
        self.family = family(getattr(self.model, "family", None) or "rows")  # compiler and example runner
        self.defaults = dict(self.loaded.options)  # the engine's effective value of every option
        self.option_by_path = {opt.path: name for name, opt in self.model.options.items()}
        self.variants_setting: dict[str, list[tuple[str, Any]]] = {}
        for vname, var in self.model.variants.items():
            for oname, value in var.options.items():
                self.variants_setting.setdefault(oname, []).append((vname, value))
        self.clarification_ids: dict[str, str] = {}
        self.used_ids: set[str] = set()
        self._compiled: Any = None
        self._ = Words(getattr(self.model, "language", DEFAULT) or DEFAULT)

    # ---- plumbing
    def section_id(self, wanted: str) -> str:
        """A section anchor unused on the page so far: ``wanted``, or ``wanted-2``, ``wanted-3``, ... (recorded)."""
        ident, n = wanted, 2
        while ident in self.used_ids or ident in self.document.ids:
            ident, n = f"{wanted}-{n}", n + 1
        self.used_ids.add(ident)
        return ident

    def section(self, ident: str, *title: str | nodes.Node, label: bool = True) -> nodes.section:
        """A section with a fixed anchor; ``label`` also makes ``GAME-ANCHOR`` a Sphinx label for ``{ref}``."""
        sec = nodes.section(ids=[ident])
        sec += fill(nodes.title(), title)
        if label and self.labels:
            sec["names"].append(f"{self.game}-{ident}")
            self.document.note_explicit_target(sec, sec)
        else:
            self.document.set_id(sec, sec)
        return sec

    def register(self, sec: nodes.section, objtype: str, name: str, description: str) -> nodes.Node:
        """Record ``GAME.NAME`` as a searchable, linkable object; returns the index node to put before it.

        ``description`` is the kind of entry in kbsim's words (``rule option``), translated here.
        """
        full = f"{self.game}.{name}"
        std = self.env.get_domain("std")
        std.note_object(objtype, full, sec["ids"][0], location=sec)
        entry = self._("{name} ({game} {kind})").format(name=name, game=self.model.title, kind=self._(description))
        return addnodes.index(entries=[("single", entry, sec["ids"][0], "", None)])

    def ref(self, anchor: str, *content: str | nodes.Node) -> nodes.Node:
        """A link to this game's section ``anchor`` (``option-hand_size``), on whichever page it is."""
        return make_ref(f"{self.game}-{anchor}", *content)

    def option_ref(self, name: str) -> nodes.Node:
        """A link to the option's entry."""
        return self.ref(f"option-{name}", code(name))

    def variant_ref(self, name: str) -> nodes.Node:
        """A link to the variant's entry."""
        return self.ref(f"variant-{name}", code(name))

    def provisional(self, obj: Any) -> list[nodes.Node]:
        """A warning box when ``obj`` is provisional (:func:`~kbsim.sphinx.helpers.provisional_note`)."""
        return provisional_note(obj, self._)

    def title_for(self, key: str) -> str:
        """The section title of a rule-file field in the page's language (:func:`~kbsim.sphinx.helpers.title_for`)."""
        return self._(title_for(key))

    # ---- the parts of the reference
    @classmethod
    def rule_sections_of(cls, model: Any) -> list[tuple[str, Any]]:
        """(key, value) of each top-level rule section of a rule file, in the file's order.

        A section is a rule model, or a non-empty list or mapping of rule models; the parts
        with a rendering of their own (:attr:`special`) and the components are not sections.
        """
        out = []
        for key, value, _ in fields_of(model):
            if key in cls.special or key in cls.components:
                continue
            if isinstance(value, BaseModel) or (
                isinstance(value, list | dict) and value and all(isinstance(v, BaseModel) for _, v in items_of(value))
            ):
                out.append((key, value))
        return out

    @staticmethod
    def characters_apart(model: Any) -> bool:
        """Whether each character gets a page of its own: when any of them has examples (boards make long pages)."""
        return any(getattr(c, "examples", None) for _, c in character_items(model))

    @classmethod
    def parts(cls, model: Any) -> list[str]:
        """The pages of a rule file's reference, in reading order.

        ``index`` (overview, components and the list of pages), one page per top-level rule
        section (named as the field, ``_`` written ``-``: ``setup``, ``turn``, ``end``...),
        ``characters`` and, when they have examples, ``character-KEY`` for each character,
        then ``options``, ``variants``, ``clarifications`` and ``examples`` (with, when the
        examples fill several pages, ``examples-1``, ``examples-2``...: the ``examples`` page then
        lists them).

        Args:
            model: the validated rule file.
        """
        out = ["index"] + [part_name(key) for key, _ in cls.rule_sections_of(model)]
        chars = character_items(model)
        if chars:
            out.append("characters")
            if cls.characters_apart(model):
                out += [f"character-{slug(k)}" for k, _ in chars]
        out += list(_CLOSING_PARTS)
        pages = examples_pages(model)
        return out + [f"examples-{i}" for i in range(1, pages + 1)] if pages > 1 else out

    def render(self, part: str | None = None) -> list[nodes.Node]:
        """The whole reference on one page, or one of its pages.

        Args:
            part: a name from :meth:`parts`, or None for everything on one page.

        Returns:
            The nodes of the page: one section (after the index entries of the objects it registers).

        Raises:
            ValueError: ``part`` is not a page of this rule file's reference.
        """
        m = self.model
        if part is None:
            return self.whole()
        if part not in self.parts(m):
            raise ValueError(f"no part {part!r}; expected one of: {', '.join(self.parts(m))}")
        if part == "index":
            return [self.front_page()]
        for key, value in self.rule_sections_of(m):
            if part == part_name(key):
                return self.rule_section(key, value)
        if part == "characters":
            return [self.characters(m.characters, apart=self.characters_apart(m))]
        for key, ch in character_items(m):
            if part == f"character-{slug(key)}":
                return self.character(key, ch)
        if part == "examples":
            self.check_examples()
            return [self.examples_list() if examples_pages(m) > 1 else self.examples_section()]
        if part.startswith("examples-"):
            return [self.examples_page(int(part.removeprefix("examples-")))]
        return [{"options": self.options, "variants": self.variants, "clarifications": self.clarifications}[part]()]

    def whole(self) -> list[nodes.Node]:
        """The whole reference as one page.

        Overview, components, rule sections, characters, options, variants, clarifications and
        examples (run, with a warning for each stated result the engine misses).
        """
        m = self.model
        page = self.section(self.section_id(f"rules-{self.game}"), self.page_title())
        page += self.provisional(m)
        page += self.overview()
        page += self.components_section()
        for key, value in self.rule_sections_of(m):
            page += self.rule_section(key, value)
        characters = getattr(m, "characters", None)
        if characters:
            page += self.characters(characters)
        page += self.options()
        page += self.variants()
        page += self.clarifications()
        page += self.examples_section()
        self.check_examples()
        return [page]

    def page_title(self) -> str:
        """The title of the reference (its first page): "TITLE rules reference"."""
        return self._("{title} rules reference").format(title=self.model.title)

    def front_page(self) -> nodes.section:
        """The first page: provisional warning, overview, components, the other pages, the published studies."""
        m = self.model
        page = self.section(self.section_id(f"rules-{self.game}"), self.page_title())
        page += self.provisional(m)
        page += self.overview()
        page += self.components_section()
        page += self.contents()
        page += self.studies()
        return page

    def part_title(self, part: str) -> str:
        """The title of a page of the reference (:meth:`parts`), as its section is titled."""
        titles = {
            f"examples-{i}": self._("Examples {first} to {last}").format(
                first=(i - 1) * EXAMPLES_PER_PAGE + 1, last=min(i * EXAMPLES_PER_PAGE, len(self.model.examples))
            )
            for i in range(1, examples_pages(self.model) + 1)
        }
        titles |= {
            "index": self.page_title(),
            "characters": self._("Characters"),
            "options": self._("Options"),
            "variants": self._("Variants"),
            "clarifications": self._("Clarifications"),
            "examples": self._("Examples"),
        }
        for key, _ in self.rule_sections_of(self.model):
            titles[part_name(key)] = self.title_for(key)
        for key, ch in character_items(self.model):
            titles[f"character-{slug(key)}"] = character_name(key, ch)
        return titles.get(part, part)

    def contents(self) -> nodes.section:
        """The list of the reference's other pages, each linked (the characters' own pages are on theirs)."""
        sec = self.section(self.section_id("contents"), self._("In this reference"))
        items = []
        for part in self.parts(self.model)[1:]:
            if part.startswith(("character-", "examples-")):
                continue
            ref = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget=part, refexplicit=True, refdoc=self.env.docname
            )
            ref += nodes.inline(self.part_title(part), self.part_title(part))
            items.append([ref])
        sec += bullets(items)
        return sec

    def studies(self) -> list[nodes.Node]:
        """Links to the study reports published beside the reference (``kbsim_reports``: (title, path) pairs)."""
        reports = list(getattr(self.env.config, "kbsim_reports", None) or [])
        if not reports:
            return []
        sec = self.section(self.section_id("studies"), self._("Studies"))
        sec += para(self._("Balance studies of these rules, simulated and reported with kbsim:"))
        up = "../" * self.env.docname.count("/")
        items = []
        for title, path in reports:
            link = nodes.reference("", "", refuri=up + path, internal=False)
            link += nodes.Text(title)
            items.append([link])
        sec += bullets(items)
        return [sec]

    def components_section(self) -> nodes.section:
        """The components (cards, table...): :attr:`components`, each a rule section."""
        m = self.model
        components = self.section(self.section_id("components"), self._("Components"))
        for key in self.components:
            if getattr(m, key, None) is not None:
                components += self.component(key, getattr(m, key))
        return components

    def rule_section(self, key: str, value: Any) -> list[nodes.Node]:
        """A top-level rule section (:meth:`rule_sections_of`): a rule model, or a collection of them."""
        if isinstance(value, BaseModel):
            return self.block(value, key, self.title_for(key))
        return self.collection(key, value)

    def overview(self) -> nodes.section:
        """Players, rule file, game name and the file's other top-level scalars."""
        m = self.model
        _ = self._
        sec = self.section(self.section_id("overview"), _("Overview"))
        sec += para(m.summary)
        players = (
            f"{m.players.min}"
            if m.players.min == m.players.max
            else _("{min} to {max}").format(min=m.players.min, max=m.players.max)
        )
        items: list[tuple[str, Any]] = [
            (_("Players"), players),
            (_("Rule file"), [code(Path(self.loaded.source).name)]),
            (_("Game name"), _.parts("{name} (use it with {flag})", name=code(self.game), flag=code("--game"))),
        ]
        extra = [
            (k, v, info)
            for k, v, info in fields_of(m)
            if k not in self.special and not isinstance(v, BaseModel | list | dict) and v is not None
        ]
        for k, v, _info in extra:
            items.append((self.title_for(k), [code(scalar(v))]))
        sec += field_list(items)
        word, options, variants = _("code"), _("Options"), _("Variants")  # (not inside parts(): for extraction)
        sec += para(
            *_.parts(
                "Values in {code} are the ones written in the rule file. Options that change a rule are linked from "
                "the rule they change; {options} lists them with the default kbsim uses, and {variants} lists the "
                "named sets of changes a run can select with {flag}.",
                code=code(word),
                options=self.ref("options", options),
                variants=self.ref("variants", variants),
                flag=code("--variant"),
            )
        )
        return sec

    def component(self, key: str, value: Any) -> list[nodes.Node]:
        """One part of the "Components" section (a rule section by default)."""
        return self.block(value, key, self.title_for(key))

    def block(self, obj: BaseModel, path: str, title: str | nodes.Node, omit: Iterable[str] = ()) -> list[nodes.Node]:
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
                body += self.block(value, child_path, self.title_for(key))
            elif all(has_summary(item) for _, item in items_of(value)):
                body += self.collection(child_path, value)
            else:
                body += self.item_table(key, value)
        if not summary and not params and not getattr(obj, "provisional", None) and len(children) == 1:
            return body  # a section with nothing of its own around a single sub-rule (``table.rows``)
        sec = self.section(self.section_id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), title)
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
        for key, value, info in fields_of(obj):
            if key in ("summary", "provisional") or value is None:
                continue
            if isinstance(value, BaseModel):
                if has_summary(value):
                    children.append((key, value))
                else:
                    self._collect(value, f"{path}.{key}", f"{prefix}{key}.", params, children)
            elif isinstance(value, list | dict) and value and all(isinstance(v, BaseModel) for _, v in items_of(value)):
                children.append((key, value))
            else:
                params.append((prefix + key, f"{path}.{key}", value, info))

    def item_table(self, key: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of small records without summaries (the suits of a deck): one table row each."""
        items = items_of(value)
        columns: list[str] = []
        for _, item in items:
            columns += [k for k, v, _ in fields_of(item) if v is not None and k not in columns]
        rows = []
        for name, item in items:
            values = {k: v for k, v, _ in fields_of(item)}
            row: list[Any] = [[code(name)]] if isinstance(value, dict) else []
            rows.append(row + [[code(scalar(values[c]))] if values.get(c) is not None else "" for c in columns])
        header = ([self._("Name")] if isinstance(value, dict) else []) + columns
        title = self.title_for(key)
        return [para(nodes.strong(title, title)), table(header, rows, classes=["kbsim-items"])]

    def collection(self, path: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of rule models (a future card table, objectives, ...): one subsection each."""
        key = path.rsplit(".", 1)[-1]
        sec = self.section(
            self.section_id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), self.title_for(key)
        )
        for name, item in items_of(value):
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
                meaning = meaning_of(meaning, value)
            rows.append([[code(key)], [code(scalar(value))], meaning, [self.option_ref(opt)] if opt else ""])
        _ = self._
        header = [_("Setting"), _("Value"), _("Meaning"), _("Option")]
        t = table(header, rows, classes=["kbsim-settings"], widths=[3, 2, 8, 3])
        n = len(rows)
        summary = html.escape(
            _.ngettext("Engine settings ({n} setting)", "Engine settings ({n} settings)", n).format(n=n)
        )
        return [
            nodes.raw(
                "",
                f'<details class="kbsim-settings-fold"><summary>{summary}</summary>',
                format="html",
            ),
            t,
            nodes.raw("", "</details>", format="html"),
        ]

    # ---- characters
    def characters(self, characters: Any, apart: bool = False) -> nodes.section:
        """The character cards: how they are used (the section's own settings), then one section each.

        Args:
            characters: a section model holding a ``roster`` mapping, or the mapping (or list) of
                characters itself.
            apart: each character has a page of its own (:meth:`parts`): list them, linked, instead.
        """
        sec = self.section(self.section_id("characters"), self._("Characters"))
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
        if apart:
            rows = [
                [[self.ref(f"character-{slug(key)}", character_name(str(key), ch))], getattr(ch, "summary", "") or ""]
                for key, ch in items_of(roster)
            ]
            sec += table([self._("Character"), self._("Summary")], rows, classes=["kbsim-roster"], widths=[1, 4])
            return sec
        for key, ch in items_of(roster):
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
        _ = self._
        if not turning_on:
            return [para(_("The base game is played without the characters."))]
        names: list[Any] = []
        for i, v in enumerate(turning_on):
            names += ([", "] if i else []) + [self.variant_ref(v)]
        template = _.ngettext(
            "The base game is played without the characters; the variant {names} brings them into play.",
            "The base game is played without the characters; the variants {names} bring them into play.",
            len(turning_on),
        )
        return [para(*_.parts(template, names=names))]

    def characters_intro(self, characters: Any) -> list[nodes.Node]:
        """Text before the first character (nothing here; a family may explain how its characters work)."""
        return []

    def character_facts(self, key: str, ch: Any) -> list[tuple[str, Any]]:
        """Short facts shown under a character's summary, as (label, cell) pairs."""
        if getattr(ch, "duration", None):
            return [(self._("Lasts"), [code(ch.duration)])]
        return []

    def character(self, key: str, ch: Any) -> list[nodes.Node]:
        """One character: summary, facts, settings, power steps, sub-rules, options and examples."""
        name = character_name(key, ch)
        chars = getattr(self.model, "characters", None)
        in_roster = isinstance(chars, BaseModel) and "roster" in type(chars).model_fields
        base = f"characters.roster.{key}" if in_roster else f"characters.{key}"
        sub = self.section(self.section_id(f"character-{slug(key)}"), name)
        index = self.register(sub, "rule-character", key, N_("character"))
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
            for k, v, info in fields_of(ch):
                if k in ("name", "title", "summary", "provisional", "examples", "options", "duration") or v is None:
                    continue
                if k == "power" and isinstance(v, list):
                    steps = v
                elif isinstance(v, BaseModel) and not has_summary(v):
                    self._collect(v, f"{base}.{k}", f"{k}.", params, children)
                elif isinstance(v, BaseModel) or (
                    isinstance(v, list | dict) and v and all(isinstance(x, BaseModel) for _, x in items_of(v))
                ):
                    children.append((k, v))
                else:
                    params.append((k, f"{base}.{k}", v, info))
        if params:
            sub += self.param_table(params, pick=True)
        for i, step in enumerate(steps):
            sub += self.power_step(step, f"{base}.power.{i}", i + 1, len(steps))
        for k, v in children:
            sub += (
                self.block(v, f"{base}.{k}", self.title_for(k))
                if isinstance(v, BaseModel)
                else self.collection(f"{base}.{k}", v)
            )
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
        if total > 1:
            lead = self._("Power, step {number}: {kind}").format(number=number, kind=label)
        else:
            lead = self._("Power: {kind}").format(kind=label)
        doc = " ".join((type(params_model).__doc__ or "").strip().split("\n\n")[0].split())
        out: list[nodes.Node] = [para(nodes.strong(lead, lead), ". " + doc if doc else "")]
        params: list = []
        children: list = []
        self._collect(params_model, f"{path}.{kind}" if kind else path, "", params, children)
        if params:
            out += self.param_table(params)
        return out

    def character_options(self, key: str, base: str, ch: Any) -> list[nodes.Node]:
        """Options that set a field of this character (their path lies under it)."""
        linked = [n for n, opt in self.model.options.items() if opt.path.startswith((f"{base}.", f"characters.{key}."))]
        if not linked:
            return []
        items = [
            [
                *self._.parts(
                    "{option} (default {value}): ", option=self.option_ref(n), value=code(scalar(self.defaults[n]))
                ),
                *inline(self.model.options[n].summary),
            ]
            for n in linked
        ]
        return [para(nodes.strong(self._("Options"), self._("Options"))), bullets(items)]

    # ---- options, variants, clarifications
    def options(self) -> nodes.section:
        """The options: an overview table, then one entry each (default, values, path, variants, clarification)."""
        m = self.model
        _ = self._
        sec = self.section(self.section_id("options"), _("Options"))
        usage = _("--option NAME=VALUE")
        sec += para(
            *_.parts(
                "Each option is a named switch over one setting of the rule file. The default, in bold, is the value "
                "the engine uses when no variant or {option} changes it; run with {usage} (repeatable) or pick a "
                "variant to change it.",
                option=code("--option"),
                usage=code(usage),
            )
        )
        if not m.options:
            sec += para(_("This rule file declares no options."))
            sec += self.confidence_legend()
            return sec
        overview = []
        for name, opt in m.options.items():
            overview.append(
                [
                    [self.option_ref(name)],
                    [code(scalar(self.defaults[name]))],
                    self._choice_nodes(opt, False),
                    opt.confidence,
                ]
            )
        sec += table(
            [_("Option"), _("Default"), _("Values"), _("Confidence")],
            overview,
            classes=["kbsim-options"],
            widths=[4, 2, 5, 2],
        )
        for name, opt in m.options.items():
            sub = self.section(self.section_id(f"option-{name}"), code(name))
            index = self.register(sub, "rule-option", name, N_("rule option"))
            sub += para(opt.summary)
            default = self.defaults[name]
            items: list[tuple[str, Any]] = [
                (_("Default"), [code(scalar(default), classes=["kbsim-default"])]),
                (_("Values"), self._choice_nodes(opt, True)),
                (_("Sets"), [code(opt.path)]),
                (_("Confidence"), [code(opt.confidence), f" ({_(CONFIDENCE.get(opt.confidence, ''))})"]),
            ]
            setters = self.variants_setting.get(name, [])
            if setters:
                parts: list[Any] = []
                for i, (vname, value) in enumerate(setters):
                    parts += ([", "] if i else []) + _.parts(
                        "{variant} sets {value}", variant=self.variant_ref(vname), value=code(scalar(value))
                    )
                items.append((_("Variants"), parts))
            clar = [c.topic for c in m.clarifications if c.option == name]
            if clar:
                parts = []
                for i, topic in enumerate(clar):
                    parts += ([", "] if i else []) + [self.ref(self._clarification_id(topic), topic)]
                items.append((_("Clarification"), parts))
            other = [c for c in self._choices(opt) if c != default]
            shown = scalar(other[0]) if other else _("VALUE")
            items.append((_("Command line"), [code(f"--option {name}={shown}")]))
            sub += field_list(items)
            sec += [index, sub]
        sec += self.confidence_legend()
        return sec

    def _clarification_id(self, topic: str) -> str:
        """The anchor of a clarification: the same on every page (a link to it from the options page)."""
        return f"clarification-{slug(topic)}"

    def _choices(self, opt: Any) -> list[Any]:
        """Allowed values of an option: its ``choices``, else what the schema allows at its path."""
        if opt.choices is not None:
            return list(opt.choices)
        info = field_at(type(self.model), opt.path)
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
            info = field_at(type(self.model), opt.path)
            bounds = constraints(info) if info is not None else ""
            kind = type_words(info.annotation, self._) if info is not None else self._("what the setting allows")
            return [kind + (f" ({bounds})" if bounds else "")]
        parts: list[Any] = []
        for i, c in enumerate(choices):
            if i:
                parts.append(", ")
            parts.append(code(scalar(c)))
            if mark and c == default:
                parts.append(" " + self._("(default)"))
        return parts

    def variants(self) -> nodes.section:
        """The variants, each with the option changes the loader reports and its overlay."""
        from kbsim.rules.loader import load_rules

        m = self.model
        _ = self._
        sec = self.section(self.section_id("variants"), _("Variants"))
        usage = _("--variant NAME")
        sec += para(
            *_.parts(
                "A variant is a named set of changes laid over the base rules; select one or more with {usage}. "
                "The changes listed are those the engine reports after applying the variant.",
                usage=code(usage),
            )
        )
        if not m.variants:
            sec += para(_("This rule file declares no variants."))
            return sec
        for name, var in m.variants.items():
            sub = self.section(self.section_id(f"variant-{name}"), code(name))
            index = self.register(sub, "rule-variant", name, N_("variant"))
            sub += self.provisional(var)
            sub += para(var.summary)
            loaded = load_rules(str(self.loaded.source), [name])
            if loaded.changed:
                sub += bullets(
                    [
                        _.parts(
                            "{option}: {old} becomes {new}",
                            option=self.option_ref(k),
                            old=code(scalar(self.defaults[k])),
                            new=code(scalar(v)),
                        )
                        for k, v in loaded.changed.items()
                    ]
                )
            if var.overlay:
                sub += para(_("It also lays this part over the rule file:"))
                text = yaml.safe_dump(var.overlay, sort_keys=False, allow_unicode=True).strip()
                sub += nodes.literal_block(text, text, language="yaml")
            players = loaded.model.players
            use = f"kbsim run --game {self.game} --variant {name}"
            if (players.min, players.max) != (m.players.min, m.players.max):
                sub += self.deal_table(loaded)
                use += f" --players {players.min}"
            sub += para(*_.parts("Use: {command}", command=code(use)))
            sec += [index, sub]
        return sec

    def clarifications(self) -> nodes.section:
        """The clarifications, each with its confidence, option and the other readings."""
        m = self.model
        _ = self._
        sec = self.section(self.section_id("clarifications"), _("Clarifications"))
        sec += para(
            _(
                "Where the sources are silent or can be read two ways, kbsim picks one reading and, when the "
                "difference can matter, names an option that selects the other."
            )
        )
        if not m.clarifications:
            sec += para(_("This rule file has no clarifications."))
        for c in m.clarifications:
            sub = self.section(self.section_id(self._clarification_id(c.topic)), c.topic)
            sub += para(c.reading)
            items: list[tuple[str, Any]] = [
                (_("Confidence"), [code(c.confidence), f" ({_(CONFIDENCE.get(c.confidence, ''))})"])
            ]
            if c.option:
                opt = m.options[c.option]
                default = self.defaults[c.option]
                items.append(
                    (
                        _("Option"),
                        _.parts(
                            "{option} = {value} gives the reading above",
                            option=self.option_ref(c.option),
                            value=code(scalar(default)),
                        ),
                    )
                )
                readings: list[Any] = []
                for value in [v for v in self._choices(opt) if v != default]:
                    setters = [v for v, val in self.variants_setting.get(c.option, []) if val == value]
                    item: list[Any] = [code(f"{c.option}={scalar(value)}")]
                    if setters:
                        names: list[Any] = []
                        for i, v in enumerate(setters):
                            names += ([", "] if i else []) + [self.variant_ref(v)]
                        item += [" ", *_.parts("(variant {names})", names=names)]
                    readings.append(item)
                for v, val in self.variants_setting.get(c.option, []):
                    if val not in self._choices(opt):
                        readings.append(
                            [
                                code(f"{c.option}={scalar(val)}"),
                                " ",
                                *_.parts("(variant {names})", names=[self.variant_ref(v)]),
                            ]
                        )
                if readings:
                    joined: list[Any] = []
                    for i, r in enumerate(readings):
                        joined += (["; "] if i else []) + r
                    items.append((_("Other readings"), joined))
            sub += field_list(items)
            sec += sub
        return sec

    # ---- examples (a family's renderer draws them)
    def deal_table(self, loaded: Any = None) -> list[nodes.Node]:
        """The table after the deal for each player count; drawn by a family's renderer (none here).

        Args:
            loaded: the rules to deal (a variant's); default the base rules of the page.
        """
        return []

    def examples_intro(self) -> list[nodes.Node]:
        """What the examples page says before the examples (a family's renderer says how it draws them)."""
        return []

    def examples_section(self) -> nodes.section:
        """The examples (:meth:`examples_intro`, then each drawn by :meth:`example`), all on one page."""
        sec = self.section(self.section_id("examples"), self._("Examples"))
        sec += self.examples_intro()
        for ex in self.model.examples:
            sec += self.example(ex)
        return sec

    def examples_list(self) -> nodes.section:
        """The examples page when they fill several: the intro, then each example's name (linked) and summary."""
        _ = self._
        sec = self.section(self.section_id("examples"), _("Examples"))
        sec += self.examples_intro()
        rows = [
            [[self.ref(f"example-{slug(ex.name)}", code(ex.name))], getattr(ex, "summary", "") or ""]
            for ex in self.model.examples
        ]
        sec += table([_("Example"), _("Summary")], rows, classes=["kbsim-examples"], widths=[2, 5])
        return sec

    def examples_page(self, number: int) -> nodes.section:
        """Page ``number`` (from 1) of the examples, :data:`EXAMPLES_PER_PAGE` of them."""
        examples = self.model.examples
        first = (number - 1) * EXAMPLES_PER_PAGE
        chunk = examples[first : first + EXAMPLES_PER_PAGE]
        title = self._("Examples {first} to {last}").format(first=first + 1, last=first + len(chunk))
        sec = self.section(self.section_id(f"examples-{number}"), title)
        for ex in chunk:
            sec += self.example(ex)
        return sec

    def example(self, ex: Any) -> nodes.section:
        """One example, drawn by a family's renderer.

        Raises:
            NotImplementedError: always, here.
        """
        raise NotImplementedError(f"{type(self).__name__} draws no examples")

    def example_label(self, key: str) -> str:
        """The label of a field of an example's setting or result (:data:`EXAMPLE_LABELS`, else its title)."""
        return self._(EXAMPLE_LABELS[key]) if key in EXAMPLE_LABELS else self.title_for(key)

    def refused(self, number: int, move: str) -> list[Any]:
        """The cell saying that move ``number`` of an example is refused and the moves before it stand."""
        return self._.parts(
            "move {number} ({move}) is not allowed; the moves before it stand", number=str(number), move=code(move)
        )

    def check_examples(self) -> None:
        """Run the examples the way ``kbsim rules test`` does; warn for each stated result the engine misses."""
        for result in self.family.run_examples(self.loaded):
            if not result.ok:
                logger.warning(
                    "kbsim: %s example %r does not give its stated result in the engine: %s",
                    self.game,
                    result.name,
                    result.message,
                    location=(self.env.docname, self.directive.lineno),
                )

    def confidence_legend(self) -> nodes.section:
        """The legend of the confidence marks."""
        _ = self._
        sec = self.section(self.section_id("confidence"), _("Confidence marks"))
        sec += table([_("Mark"), _("Meaning")], [[[code(k)], _(v)] for k, v in CONFIDENCE.items()])
        return sec
