"""The reference of a ``rows`` family rule file: the deal, the examples drawn as boards of rows."""

from __future__ import annotations

import random
from typing import Any

from docutils import nodes
from pydantic import BaseModel
from sphinx.util import logging

from kbsim.sphinx.helpers import (
    bullets,
    cards_cell,
    character_items,
    code,
    field_list,
    fields_of,
    para,
    scalar,
    slug,
    table,
    value_cell,
)
from kbsim.sphinx.reference import ReferenceRenderer

logger = logging.getLogger(__name__)


class RulesRenderer(ReferenceRenderer):
    """The reference of a ``rows`` family rule file (Kingsbridge, King's Corners).

    On top of what every family's reference has (:class:`~kbsim.sphinx.reference.ReferenceRenderer`),
    the setup shows the deal as the engine deals it for each player count, and each example
    is drawn as boards of rows, before and after its moves.
    """

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
        _ = self._
        if shared:
            header = [_("Players"), _("Hand"), _("Shared stock"), _("Cards on the table")]
            intro = _("Cards after the deal, as the engine deals them (hands from seat 0 on):")
        else:
            header = [_("Players"), _("Cards dealt"), _("Hand"), _("Draw pile"), _("Cards on the table")]
            intro = _("Cards per seat after the deal, as the engine deals them (seat 0 first):")
        if char_deal:
            header.append(_("Characters each (when in play)"))
        if len({len(r) for r in rows} | {len(header)}) != 1:  # some counts shared a stock, others did not
            return [para(intro), bullets([" / ".join(r) for r in rows])]
        return [para(intro), table(header, rows, classes=["kbsim-deal"])]

    def examples_intro(self) -> list[nodes.Node]:
        """How the examples are set up, checked and drawn (as boards of rows, before and after)."""
        _ = self._
        return [
            para(
                *_.parts(
                    "Each example sets up rows, a hand and a draw pile, plays the listed moves and states the result. "
                    "The same examples run in the test suite ({command}), and the documentation build runs them too: "
                    "it warns, and a build with warnings as errors stops, if the engine no longer gives a stated "
                    "result. Rows are drawn as on the table: one column per row card, first card at the top, the end "
                    "of the row at the bottom.",
                    command=code("kbsim rules test"),
                )
            )
        ]

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
                cols.append(nodes.paragraph(self._("empty"), self._("empty"), classes=["kbsim-empty"]))
        t = table([str(i) for i in range(1, len(rows) + 1)], [cols], classes=["kbsim-board-table"])
        box = nodes.container(classes=["kbsim-board"])
        box += t
        return box

    def example(self, ex: Any) -> nodes.section:
        """One example: its setting, the board before, the moves, the stated result and the board after."""
        _ = self._
        sec = self.section(self.section_id(f"example-{slug(ex.name)}"), code(ex.name))
        sec += para(ex.summary)
        setup: list[tuple[str, Any]] = []
        for k, v in ex.options.items():
            option = self.option_ref(k) if k in self.model.options else code(k)
            setup.append((_("Option"), [option, " = ", code(scalar(v))]))
        pile = _.parts("{cards} (top first)", cards=code(ex.draw_pile)) if ex.draw_pile else _("empty")
        setup += [(_("Hand"), cards_cell(ex.hand, _)), (_("Draw pile"), pile)]
        extra = getattr(ex, "setup", None)
        if isinstance(extra, BaseModel):  # character state: the playable character, discard pile, ...
            roster = dict(character_items(self.model))
            for k, v, info in fields_of(extra):
                if v is None or v == info.default or v in ("", [], {}):
                    continue
                if k == "character" and str(v) in roster:
                    cell: Any = [self.ref(f"character-{slug(v)}", code(v))]
                else:
                    cell = value_cell(v, _)
                setup.append((self.example_label(k), cell))
        sec += field_list(setup)
        sec += para(nodes.strong(_("Rows before"), _("Rows before")))
        sec += self.board(ex.rows)
        moves = nodes.enumerated_list(enumtype="arabic")
        for mv in ex.moves:
            li = nodes.list_item()
            li += para(code(mv))
            moves += li
        sec += para(nodes.strong(_("Moves"), _("Moves")))
        sec += moves
        exp = ex.expect
        result: list[tuple[str, Any]] = []
        if getattr(exp, "illegal", None) is not None:
            result.append((_("Refused"), self.refused(exp.illegal, ex.moves[exp.illegal - 1])))
        for k, v, _info in fields_of(exp):
            if k in ("illegal", "rows") or v is None:
                continue
            result.append((self.example_label(k), value_cell(v, _)))
        if result:
            sec += para(nodes.strong(_("Result"), _("Result")))
            sec += field_list(result)
        if getattr(exp, "rows", None) is not None:
            sec += para(nodes.strong(_("Rows after"), _("Rows after")))
            sec += self.board(exp.rows)
        return sec
