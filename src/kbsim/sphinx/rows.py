"""The reference page of a ``rows`` family rule file (and the generic parts every family shares)."""

from __future__ import annotations

import random
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
    cards_cell,
    character_items,
    code,
    constraints,
    field_at,
    field_list,
    fields_of,
    has_summary,
    inline,
    items_of,
    local_ref,
    meaning_of,
    para,
    provisional_note,
    scalar,
    slug,
    table,
    title_for,
    type_words,
    value_cell,
)

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
}
_COMPONENTS = ("cards", "table")


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
        """A link to the option's entry on this page."""
        return local_ref(f"option-{name}", code(name))

    def variant_ref(self, name: str) -> nodes.reference:
        """A link to the variant's entry on this page."""
        return local_ref(f"variant-{name}", code(name))

    def provisional(self, obj: Any) -> list[nodes.Node]:
        """A warning box when ``obj`` is provisional (:func:`~kbsim.sphinx.helpers.provisional_note`)."""
        return provisional_note(obj)

    # ---- the page
    def render(self) -> list[nodes.Node]:
        """The whole page, as a list holding one section.

        Overview, components, rule sections, characters, options, variants, clarifications,
        examples (run, with a warning for each stated result the engine misses) and the confidence legend.
        """
        m = self.model
        page = self.section(self._id(f"rules-{self.game}"), f"{m.title} rules reference")
        page += self.provisional(m)
        page += self.overview()
        components = self.section(self._id("components"), "Components")
        for key in self.components:
            if getattr(m, key, None) is not None:
                components += self.component(key, getattr(m, key))
        page += components
        for key, value, _ in fields_of(m):
            if key in self.special or key in self.components:
                continue
            if isinstance(value, BaseModel):
                page += self.block(value, key, title_for(key))
            elif isinstance(value, list | dict) and value and all(isinstance(v, BaseModel) for _, v in items_of(value)):
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
        """Players, rule file, game name and the file's other top-level scalars."""
        m = self.model
        sec = self.section(self._id("overview"), "Overview")
        sec += para(m.summary)
        players = f"{m.players.min}" if m.players.min == m.players.max else f"{m.players.min} to {m.players.max}"
        items: list[tuple[str, Any]] = [
            ("Players", players),
            ("Rule file", [code(Path(self.loaded.source).name)]),
            ("Game name", [code(self.game), " (use it with ", code("--game"), ")"]),
        ]
        extra = [
            (k, v, info)
            for k, v, info in fields_of(m)
            if k not in self.special and not isinstance(v, BaseModel | list | dict) and v is not None
        ]
        for k, v, _ in extra:
            items.append((title_for(k), [code(scalar(v))]))
        sec += field_list(items)
        sec += para(
            "Values in ",
            code("code"),
            " are the ones written in the rule file. Options that change a rule are linked from the rule they change; ",
            local_ref("options", "Options"),
            " lists them with the default kbsim uses, and ",
            local_ref("variants", "Variants"),
            " lists the named sets of changes a run can select with ",
            code("--variant"),
            ".",
        )
        return sec

    def component(self, key: str, value: Any) -> list[nodes.Node]:
        """One part of the "Components" section (a rule section by default)."""
        return self.block(value, key, title_for(key))

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
                body += self.block(value, child_path, title_for(key))
            elif all(has_summary(item) for _, item in items_of(value)):
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
        header = (["Name"] if isinstance(value, dict) else []) + columns
        return [para(nodes.strong(title_for(key), title_for(key))), table(header, rows, classes=["kbsim-items"])]

    def collection(self, path: str, value: Any) -> list[nodes.Node]:
        """A list or mapping of rule models (a future card table, objectives, ...): one subsection each."""
        key = path.rsplit(".", 1)[-1]
        sec = self.section(self._id("rule-" + slug(path.replace(".", "-").replace("_", "-"))), title_for(key))
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
        t = table(["Setting", "Value", "Meaning", "Option"], rows, classes=["kbsim-settings"], widths=[3, 2, 8, 3])
        n = len(rows)
        return [
            nodes.raw(
                "",
                f'<details class="kbsim-settings-fold"><summary>Engine settings ({n} '
                f"{'setting' if n == 1 else 'settings'})</summary>",
                format="html",
            ),
            t,
            nodes.raw("", "</details>", format="html"),
        ]

    def deal_table(self, loaded: Any = None) -> list[nodes.Node]:
        """Cards per seat for every supported player count, dealt by the engine (seat 0 first).

        Args:
            loaded: the rules to deal (a variant's); default the base rules of the page.
        """
        from kbsim.engine.rows.game import deal

        loaded = loaded or self.loaded
        m = loaded.model
        try:
            g = self.family.compile(loaded)
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
                    row = [
                        str(players),
                        " / ".join(map(str, held)),
                        hands,
                        " / ".join(str(len(p)) for p in piles),
                        str(sum(map(len, state.rows))),
                    ]
                if char_deal:
                    row.append(str(char_deal.get(players, "-")))
                rows.append(row)
        except Exception as e:  # a rule file the engine cannot deal is a real problem: say so
            logger.warning(
                "kbsim: %s: the engine could not deal this game: %s",
                self.game,
                e,
                location=(self.env.docname, self.directive.lineno),
            )
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
        """One character: summary, facts, settings, power steps, sub-rules, options and examples."""
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
                self.block(v, f"{base}.{k}", title_for(k))
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
        linked = [n for n, opt in self.model.options.items() if opt.path.startswith((f"{base}.", f"characters.{key}."))]
        if not linked:
            return []
        items = [
            [
                self.option_ref(n),
                " (default ",
                code(scalar(self.defaults[n])),
                "): ",
                *inline(self.model.options[n].summary),
            ]
            for n in linked
        ]
        return [para(nodes.strong("Options", "Options")), bullets(items)]

    # ---- options, variants, clarifications
    def options(self) -> nodes.section:
        """The options: an overview table, then one entry each (default, values, path, variants, clarification)."""
        m = self.model
        sec = self.section(self._id("options"), "Options")
        sec += para(
            "Each option is a named switch over one setting of the rule file. The default, in bold, is the "
            "value the engine uses when no variant or ",
            code("--option"),
            " changes it; run with ",
            code("--option NAME=VALUE"),
            " (repeatable) or pick a variant to change it.",
        )
        if not m.options:
            sec += para("This rule file declares no options.")
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
            ["Option", "Default", "Values", "Confidence"], overview, classes=["kbsim-options"], widths=[4, 2, 5, 2]
        )
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
            kind = type_words(info.annotation) if info is not None else "what the setting allows"
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
        """The variants, each with the option changes the loader reports and its overlay."""
        from kbsim.rules.loader import load_rules

        m = self.model
        sec = self.section(self._id("variants"), "Variants")
        sec += para(
            "A variant is a named set of changes laid over the base rules; select one or more with ",
            code("--variant NAME"),
            ". The changes listed are those the engine reports after applying the variant.",
        )
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
                sub += bullets(
                    [
                        [self.option_ref(k), ": ", code(scalar(self.defaults[k])), " becomes ", code(scalar(v))]
                        for k, v in loaded.changed.items()
                    ]
                )
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
        """The clarifications, each with its confidence, option and the other readings."""
        m = self.model
        sec = self.section(self._id("clarifications"), "Clarifications")
        sec += para(
            "Where the sources are silent or can be read two ways, kbsim picks one reading and, when the "
            "difference can matter, names an option that selects the other."
        )
        if not m.clarifications:
            sec += para("This rule file has no clarifications.")
        for c in m.clarifications:
            sub = self.section(self._clarification_id(c.topic), c.topic)
            sub += para(c.reading)
            items: list[tuple[str, Any]] = [
                ("Confidence", [code(c.confidence), f" ({CONFIDENCE.get(c.confidence, '')})"])
            ]
            if c.option:
                opt = m.options[c.option]
                default = self.defaults[c.option]
                items.append(
                    ("Option", [self.option_ref(c.option), " = ", code(scalar(default)), " gives the reading above"])
                )
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
        """The examples, each drawn as boards of rows before and after."""
        sec = self.section(self._id("examples"), "Examples")
        sec += para(
            "Each example sets up rows, a hand and a draw pile, plays the listed moves and states the result. "
            "The same examples run in the test suite (",
            code("kbsim rules test"),
            "), and the documentation "
            "build runs them too: it warns, and a build with warnings as errors stops, if the engine no "
            "longer gives a stated result. Rows are drawn as on the table: one column "
            "per row card, first card at the top, the end of the row at the bottom.",
        )
        for ex in self.model.examples:
            sec += self.example(ex)
        return sec

    def _notation(self) -> tuple[Any, Any]:
        """``(parse, format)`` for this game's cards, from the engine's notation.

        The compiled game is given to the notation when it takes one (suited decks write ``10H``).
        """
        import inspect

        from kbsim.engine.rows import notation

        if "game" not in inspect.signature(notation.parse_cards).parameters:
            return notation.parse_cards, notation.format_cards
        if self._compiled is None:
            self._compiled = self.family.compile(self.loaded)
        g = self._compiled
        return (lambda text: notation.parse_cards(text, game=g)), (lambda cards: notation.format_cards(cards, game=g))

    def board(self, rows: list[str]) -> nodes.container:
        """Rows drawn as on the table: a column per row card, each card as the notation writes it."""
        from kbsim.engine.rows.notation import NotationError

        parse, fmt = self._notation()
        red = {
            s.symbol
            for s in getattr(self.model.cards, "suits", None) or []
            if getattr(s, "colour", None) == "red" and getattr(s, "symbol", None)
        }
        cols = []
        for text in rows:
            try:
                labels = [fmt([c]) for c in parse(text)]
            except NotationError as e:
                logger.warning(
                    "kbsim: %s: cannot draw the row %r: %s",
                    self.game,
                    text,
                    e,
                    location=(self.env.docname, self.directive.lineno),
                )
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
            setup.append(
                ("Option", [self.option_ref(k) if k in self.model.options else code(k), " = ", code(scalar(v))])
            )
        pile = [code(ex.draw_pile), " (top first)"] if ex.draw_pile else "empty"
        setup += [("Hand", cards_cell(ex.hand)), ("Draw pile", pile)]
        extra = getattr(ex, "setup", None)
        if isinstance(extra, BaseModel):  # character state: the playable character, discard pile, ...
            roster = dict(character_items(self.model))
            for k, v, info in fields_of(extra):
                if v is None or v == info.default or v in ("", [], {}):
                    continue
                if k == "character" and str(v) in roster:
                    cell: Any = [local_ref(f"character-{slug(v)}", code(v))]
                else:
                    cell = value_cell(v)
                setup.append((EXAMPLE_LABELS.get(k, title_for(k)), cell))
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
            result.append(
                (
                    "Refused",
                    [
                        f"move {exp.illegal} (",
                        code(ex.moves[exp.illegal - 1]),
                        ") is not allowed; the moves before it stand",
                    ],
                )
            )
        for k, v, _ in fields_of(exp):
            if k in ("illegal", "rows") or v is None:
                continue
            result.append((EXAMPLE_LABELS.get(k, title_for(k)), value_cell(v)))
        if result:
            sec += para(nodes.strong("Result", "Result"))
            sec += field_list(result)
        if getattr(exp, "rows", None) is not None:
            sec += para(nodes.strong("Rows after", "Rows after"))
            sec += self.board(exp.rows)
        return sec

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
        sec = self.section(self._id("confidence"), "Confidence marks")
        sec += table(["Mark", "Meaning"], [[[code(k)], v] for k, v in CONFIDENCE.items()])
        return sec
