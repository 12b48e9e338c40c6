"""The reference page of a ``market`` family rule file."""

from __future__ import annotations

import random
from typing import Any

from docutils import nodes
from sphinx.util import logging

from kbsim.sphinx.helpers import (
    bullets,
    code,
    field_list,
    fields_of,
    inline,
    para,
    rule_anchor,
    scalar,
    slug,
    table,
    value_cell,
)
from kbsim.sphinx.i18n import N_
from kbsim.sphinx.reference import ReferenceRenderer

logger = logging.getLogger(__name__)


class MarketRulesRenderer(ReferenceRenderer):
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

    special = ReferenceRenderer.special | {"card_table", "example_cards", "published"}
    components = ("cards", "currency", "tokens")

    # ---- cards
    def card(self, key: str) -> nodes.Node:
        """A market card (or an empty place, ``-``) as it is written in the examples."""
        if key == "-":
            return nodes.inline(self._("empty"), self._("empty"), classes=["kbsim-empty"])
        return code(key, classes=["kbsim-card"])

    def cards_cell(self, text: str | None, empty: str = "none") -> Any:
        """A cell of space-separated card keys (wagons, box, tokens); ``None`` (not checked) is blank."""
        if text is None:
            return ""
        words = text.split()
        if not words:
            return [self.card("-")] if empty == "empty" else self._(empty)
        parts: list[Any] = []
        for i, w in enumerate(words):
            parts += ([" "] if i else []) + [self.card(w)]
        return parts

    def ids_cell(self, ids: list[str] | None, empty: str = "none", notes: dict[str, str] | None = None) -> Any:
        """A cell of objective or contract ids; ``-`` is an empty place; ``None`` (not checked) is blank.

        ``notes`` adds a word in brackets after an id (the icon of a claimed objective).
        """
        if ids is None:
            return ""
        if not ids:
            return self._(empty)
        parts: list[Any] = []
        for i, x in enumerate(ids):
            parts += ([", "] if i else []) + [self.card(x)]
            if notes and x in notes:
                parts.append(f" ({notes[x]})")
        return parts

    def icon_notes(self) -> dict[str, str]:
        """Objective id -> the name of its icon's company, in the card list the examples play on."""
        cards = getattr(self.model, "example_cards", None) or self.model.cards
        names = {c.key: c.name for c in cards.companies}
        return {o.id: names.get(o.company, o.company) for o in cards.objectives}

    def component(self, key: str, value: Any) -> list[nodes.Node]:
        """The card table gets its own rendering; the other components are rule sections."""
        if key == "cards":
            return self.card_table_section(value)
        return super().component(key, value)

    def card_table_section(self, cards: Any) -> list[nodes.Node]:
        """The card table: provisional warning, file, totals against the published ones, the card lists."""
        m = self.model
        _ = self._
        sec = self.section(self.section_id("rule-cards"), _("Card table"))
        box = self.provisional(cards)
        if box:
            hint = para(
                *_.parts(
                    "To play the real cards, write them in a table with the same keys and fields, point {field} in "
                    "the rule file at it and check it with {check}; {option} tries another table for a single run.",
                    field=code("card_table"),
                    check=code(f"kbsim rules check {self.game}"),
                    option=code("--option card_table=FILE"),
                )
            )
            box[0] += hint
        sec += box
        if cards.summary:
            sec += para(cards.summary)
        if m.card_table:
            cell: list[Any] = _.parts("{file} (relative to the rule file)", file=code(m.card_table))
            opt = self.option_by_path.get("card_table")
            if opt:
                cell += ["; ", *_.parts("option {option}", option=self.option_ref(opt))]
            sec += field_list([(_("File"), cell)])
        sec += self.totals_table(cards)
        sec += self.card_lists(cards)
        return [sec]

    def totals_table(self, cards: Any) -> list[nodes.Node]:
        """The table's totals next to the totals the sources print (``published``)."""
        m = self.model
        _ = self._
        published = m.published.model_dump() if getattr(m, "published", None) is not None else {}
        labels = {
            "wagons": N_("Wagons"),
            "characters": N_("Characters"),
            "objectives": N_("Objectives"),
            "contracts": N_("Contracts"),
            "tokens": N_("Company tokens"),
        }
        rows = []
        for key, n in cards.totals().items():
            want = published.get(key)
            label = _(labels[key]) if key in labels else self.title_for(key)
            rows.append([label, str(n), _("not published") if want is None else str(want)])
        market = (
            sum(w.count for w in cards.wagons)
            + m.currency.cards
            + sum(cards.characters.values())
            + sum(e.count for e in m.events.values())
        )
        rows.append(
            [
                _("Market cards in all (wagons, {currency} cards, characters, events)").format(
                    currency=m.currency.name
                ),
                str(market),
                "",
            ]
        )
        intro = para(
            *_.parts(
                "Totals of this table, next to the totals the sources print (rule file: {field}); a card table whose "
                "totals differ from a published one is refused when the rules are loaded.",
                field=code("published"),
            )
        )
        header = [_("Cards"), _("In the table"), _("Published")]
        return [intro, table(header, rows, classes=["kbsim-cards"], widths=[6, 2, 2])]

    def card_lists(self, cards: Any) -> list[nodes.Node]:
        """Tables of a card table's wagons, characters, companies, objectives and contracts."""
        m = self.model
        wagon_names = {w.key: w.name for w in cards.wagons}
        company_names = {c.key: c.name for c in cards.companies}
        wild = set(m.turn.claim.wild)
        out: list[nodes.Node] = []
        _ = self._

        def add(title: str, header: list[str], rows: list[list[Any]], widths: list[int]) -> None:
            keep = [i for i in range(len(header)) if i == 0 or any(r[i] not in ("", None) for r in rows)]
            out.append(para(nodes.strong(_(title), _(title))))
            out.append(
                table(
                    [_(header[i]) for i in keep],
                    [[r[i] for i in keep] for r in rows],
                    classes=["kbsim-cards"],
                    widths=[widths[i] for i in keep],
                )
            )

        add(
            N_("Wagons"),
            [N_("Key"), N_("Name"), N_("Copies"), N_("Wild")],
            [
                [[self.card(w.key)], w.name, str(w.count), _("yes: stands for any wagon") if w.key in wild else ""]
                for w in cards.wagons
            ],
            [2, 4, 1, 3],
        )
        if cards.characters:
            add(
                N_("Characters"),
                [N_("Character"), N_("Copies")],
                [
                    [[self.ref(f"character-{slug(k)}", m.characters[k].name if k in m.characters else k)], str(n)]
                    for k, n in cards.characters.items()
                ],
                [4, 1],
            )
        icons = {c.key: sum(1 for o in cards.objectives if o.company == c.key) for c in cards.companies}
        add(
            N_("Companies"),
            [N_("Key"), N_("Name"), N_("Tokens"), N_("Objectives with its icon")],
            [[[code(c.key)], c.name, str(c.tokens), str(icons[c.key])] for c in cards.companies],
            [2, 4, 1, 2],
        )
        add(
            N_("Objectives"),
            [N_("Id"), N_("Name"), N_("Wagons needed"), N_("Points"), N_("Icon")],
            [
                [
                    [code(o.id)],
                    o.name,
                    ", ".join(f"{n} × {wagon_names.get(k, k)}" for k, n in o.needs.items()),
                    str(o.points),
                    company_names.get(o.company, o.company),
                ]
                for o in cards.objectives
            ],
            [2, 4, 6, 1, 3],
        )
        rows = []
        for c in cards.contracts:
            terms: list[Any] = []
            for i, t in enumerate(c.terms):
                terms += ([" + "] if i else []) + [
                    self.ref(rule_anchor(f"contracts.patterns.{t.pattern}"), code(t.pattern))
                ]
                if t.colour is not None:
                    terms.append(f" ({company_names.get(t.colour, t.colour)})")
            rows.append([[code(c.id)], c.name, terms])
        add(N_("Contracts"), [N_("Id"), N_("Name"), N_("Scores the patterns")], rows, [2, 4, 6])
        return out

    # ---- setup
    def deal_table(self, loaded: Any = None) -> list[nodes.Node]:
        """The table after setup for every supported player count, laid out by the market engine."""
        from kbsim.engine.market import GAP, new_state

        loaded = loaded or self.loaded
        m = loaded.model
        try:
            g = self.family.compile(loaded)
            rows = []
            for players in range(m.players.min, m.players.max + 1):
                st = new_state(g, players, random.Random(0))
                face_up = sum(1 for line in st.lines for c in line if c != GAP)
                shown = sum(1 for o in st.obj_visible if o != GAP)
                rows.append(
                    [
                        str(players),
                        str(face_up),
                        " / ".join(str(len(d)) for d in st.decks),
                        f"{shown} / {len(st.obj_deck)}",
                        self._("{dealt}, keeps {kept}").format(dealt=len(st.offered[0]), kept=g.contracts_kept),
                        str(len(st.contract_box)),
                        str(st.currency[0]),
                    ]
                )
        except Exception as e:  # a rule file the engine cannot set up is a real problem: say so
            logger.warning(
                "kbsim: %s: the engine could not set up this game: %s",
                self.game,
                e,
                location=(self.env.docname, self.directive.lineno),
            )
            return []
        _ = self._
        header = [
            _("Players"),
            _("Market cards face up"),
            _("Left in each deck"),
            _("Objectives face up / in their deck"),
            _("Contracts dealt to each"),
            _("Contracts not dealt"),
            _("{currency} cards each").format(currency=m.currency.name),
        ]
        intro = para(_("The table after setup, as the engine lays it out:"))
        return [intro, table(header, rows, classes=["kbsim-deal"])]

    # ---- characters
    def characters_intro(self, characters: Any) -> list[nodes.Node]:
        """How market characters are used (taken as a market card, carried out at once)."""
        if not characters:
            return []
        return [
            para(
                self._(
                    "Characters are market cards: the player who takes one (paying its place like any card) "
                    "carries out its effect at once, then it leaves the game; an effect that cannot be carried "
                    "out is lost. The copies of each are counted in the card table."
                )
            )
        ]

    def character_facts(self, key: str, ch: Any) -> list[tuple[str, Any]]:
        """The rows-family facts plus the number of copies the card table holds."""
        cards = getattr(self.model, "cards", None)
        facts = super().character_facts(key, ch)
        if cards is not None:
            note = " " + self._("(provisional card table)") if cards.provisional else ""
            facts.append((self._("Copies"), f"{cards.characters.get(key, 0)}{note}"))
        return facts

    # ---- examples
    def examples_intro(self) -> list[nodes.Node]:
        """How the examples are drawn (market lines), the move forms, and the examples' own card list."""
        m = self.model
        _ = self._
        out: list[nodes.Node] = [
            para(
                *_.parts(
                    "Each example lays out a table (the market lines, cheapest place first, with what is left in "
                    "each deck; the face-up objectives; every player's cards), plays the listed moves and states the "
                    "result; what it leaves out is not checked. The same examples run in the test suite ({command}), "
                    "and the documentation build runs them too: it warns, and a build with warnings as errors stops, "
                    "if the engine no longer gives a stated result.",
                    command=code("kbsim rules test"),
                )
            )
        ]
        forms = self.move_forms()
        if forms:
            out.append(para(nodes.strong(_("Moves."), _("Moves.")), " ", *forms))
        if getattr(m, "example_cards", None) is not None:
            sub = self.section(self.section_id("examples-cards"), _("Cards the examples use"))
            if m.example_cards.summary:
                sub += para(m.example_cards.summary)
            sub += para(
                *_.parts(
                    "The examples play on a small card list of their own (rule file: {field}), so that they check "
                    "the rules and not the card table.",
                    field=code("example_cards"),
                )
            )
            sub += self.card_lists(m.example_cards)
            out.append(sub)
        return out

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
        _ = self._
        parts = text.split()
        op, args = (parts[0].lower(), parts[1:]) if parts else ("", [])

        def by(effect: str) -> str:
            names = [c.name for c in m.characters.values() if c.effect.op == effect]
            return f" ({_(' or ').join(names)})" if names else ""

        if op == "take" and len(args) == 2 and all(a.isdigit() for a in args):
            line, place = int(args[0]), int(args[1])
            by_deck = m.market.prices == "by_deck"
            costs, at = m.market.costs, (line if by_deck else place)
            ok = 1 <= line <= m.market.decks and 1 <= place <= m.market.line_places and at <= len(costs)
            cost = ""
            if ok:
                where = _("(a line that costs {cost})") if by_deck else _("(a place that costs {cost})")
                cost = " " + where.format(cost=costs[at - 1])
            return _("take the card in line {line}, place {place}").format(line=line, place=place) + cost
        if op == "claim" and len(args) == 1:
            if args[0].isdigit():
                return _("claim face-up objective {number}").format(number=args[0])
            return _("claim objective `{id}`").format(id=args[0])
        if op == "end" and not args:
            return _("end the turn; the next seat plays")
        if op == "choose" and len(args) == 1:
            return _("keep contract `{id}`").format(id=args[0])
        if op == "steal" and len(args) == 1:
            text = _("take every {currency} card of seat {seat}").format(currency=m.currency.name, seat=args[0])
            return text + by("take_currency")
        if op == "swap" and len(args) == 3:
            text = _("give your `{mine}` to seat {seat} for their `{theirs}`")
            return text.format(mine=args[0], seat=args[1], theirs=args[2]) + by("swap_wagons")
        if op == "token" and len(args) == 1:
            return _("take a `{company}` company token from the supply").format(company=args[0]) + by("take_token")
        return ""

    def market_board(self, lines: list[str], decks: list[str] | None) -> nodes.container:
        """Market lines (one row per deck, cheapest place first) and, when given, what is left in each deck."""
        market = self.model.market
        costs, places, by_deck = market.costs, market.line_places, market.prices == "by_deck"
        _ = self._
        header = [_("Line")] + [
            _("Place {place}").format(place=i + 1)
            if by_deck
            else _("Place {place} (cost {cost})").format(place=i + 1, cost=costs[i])
            for i in range(places)
        ]
        if decks is not None:
            header.append(_("Deck (top first)"))
        rows = []
        for d, text in enumerate(lines):
            words = text.split()
            words = (words + ["-"] * places)[:places]
            label = str(d + 1)
            if by_deck and d < len(costs):
                label = _("{line} (cost {cost})").format(line=d + 1, cost=costs[d])
            row: list[Any] = [label] + [self.card(w) for w in words]
            if decks is not None:
                row.append(self.cards_cell(decks[d] if d < len(decks) else "", empty="empty"))
            rows.append(row)
        box = nodes.container(classes=["kbsim-board"])
        box += table(header, rows, classes=["kbsim-market"])
        return box

    def players_table(self, players: list[Any], seat: int | None = None, checked: bool = False) -> nodes.table:
        """One row per seat; ``checked``: expected values, where a blank cell is not checked."""
        m = self.model
        _ = self._
        labels = {
            "wagons": _("Wagons"),
            "currency": _("{currency} cards").format(currency=m.currency.name),
            "tokens": _("Company tokens"),
            "objectives": _("Objectives claimed"),
            "contracts": _("Contracts kept"),
        }
        columns: list[str] = []
        for p in players:
            for k, v, _info in fields_of(p):
                shown = v is not None if checked else v not in (None, "", [], 0)
                if shown and k not in columns:
                    columns.append(k)
        order = list(labels)
        columns.sort(key=lambda k: order.index(k) if k in order else len(order))
        rows = []
        for i, p in enumerate(players):
            values = {k: v for k, v, _ in fields_of(p)}
            row: list[Any] = [_("{seat} (to play)").format(seat=i) if seat == i else str(i)]
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
        header = [_("Seat")] + [labels.get(k) or self.title_for(k) for k in columns]
        return table(header, rows, classes=["kbsim-market"])

    def example(self, ex: Any) -> nodes.section:
        """One example: its table, the moves in words, the stated result and the table after."""
        m = self.model
        _ = self._
        st = ex.state
        sec = self.section(self.section_id(f"example-{slug(ex.name)}"), code(ex.name))
        if ex.summary:
            sec += para(ex.summary)
        setup: list[tuple[str, Any]] = []
        for k, v in ex.options.items():
            option = self.option_ref(k) if k in m.options else code(k)
            setup.append((_("Option"), [option, " = ", code(scalar(v))]))
        setup.append((_("Players"), str(len(st.players))))
        setup.append((_("To play"), _("seat {seat}").format(seat=st.seat)))
        if getattr(st, "trigger_seat", None) is not None:
            text = _("seat {seat} (the final round is being played)").format(seat=st.trigger_seat)
            setup.append((_("End triggered by"), text))
        if st.objectives:
            setup.append((_("Objectives face up"), self.ids_cell(st.objectives)))
        if st.objective_deck:
            setup.append((_("Objective deck (top first)"), self.ids_cell(st.objective_deck)))
        sec += field_list(setup)
        empty_market = all(w == "-" for line in st.market for w in line.split())
        if empty_market and not any(d.split() for d in st.decks):
            sec += para(nodes.strong(_("Market:"), _("Market:")), " ", _("every place empty, every deck used up."))
        else:
            sec += para(nodes.strong(_("Market before"), _("Market before")))
            sec += self.market_board(st.market, st.decks if any(d.split() for d in st.decks) else None)
            if not any(d.split() for d in st.decks):
                sec += para(_("Every deck is used up."))
        if any(v not in (None, "", [], 0) for p in st.players for _k, v, _i in fields_of(p)):
            sec += para(nodes.strong(_("Players before"), _("Players before")))
            sec += self.players_table(st.players, seat=st.seat)
        if ex.moves:
            moves = nodes.enumerated_list(enumtype="arabic")
            for mv in ex.moves:
                li = nodes.list_item()
                words = self.describe_move(mv)
                li += para(code(mv), *([": ", words] if words else []))
                moves += li
            sec += para(nodes.strong(_("Moves"), _("Moves")))
            sec += moves
        else:
            sec += para(_("No moves: the example scores the table as it stands."))
        sec += self.example_result(ex)
        return sec

    def result_item(self, key: str, value: Any) -> tuple[str, Any]:
        """The (label, cell) of one stated value of an example's ``expect`` (not the market, decks or players).

        Args:
            key: the field of ``expect`` (``objectives``, ``seat``, ``winners``, ``score``, ...).
            value: its stated value; a list of whole numbers is read as one value per seat.
        """
        _ = self._
        if key in ("objectives", "objective_deck"):
            label = _("Objectives face up") if key == "objectives" else _("Objective deck (top first)")
            return label, self.ids_cell(value, empty="empty" if key == "objective_deck" else "none")
        if key == "box":
            return _("Out of the game (box)"), self.cards_cell(value)
        if key == "characters_lost":
            return _("Characters lost"), str(value)
        if key == "seat":
            return _("To play next"), _("seat {seat}").format(seat=value)
        if key == "ended":
            return _("Game over"), _("yes") if value else _("no")
        if key == "winners":
            seats = ", ".join(str(s) for s in value)
            if len(value) == 1:
                return _("Winners"), _("seat {seat}").format(seat=seats)
            return _("Winners"), _("seats {seats} (a shared win)").format(seats=seats) if value else _("none")
        if isinstance(value, list) and all(isinstance(x, int) for x in value):
            return self.title_for(key), "; ".join(
                _("seat {seat}: {value}").format(seat=i, value=v) for i, v in enumerate(value)
            )
        return self.title_for(key), value_cell(value, _)

    def example_result(self, ex: Any) -> list[nodes.Node]:
        """The stated result of an example: refused move, values, the market and the players after."""
        exp = ex.expect
        _ = self._
        items: list[tuple[str, Any]] = []
        if exp.illegal is not None:
            move = ex.moves[exp.illegal - 1] if 0 < exp.illegal <= len(ex.moves) else "?"
            items.append((_("Refused"), self.refused(exp.illegal, move)))

        for k, v, _info in fields_of(exp):
            if v is None or k in ("illegal", "market", "decks", "players"):
                continue
            items.append(self.result_item(k, v))
        out: list[nodes.Node] = []
        if items:
            out += [para(nodes.strong(_("Result"), _("Result"))), field_list(items)]
        if exp.market is not None:
            out += [para(nodes.strong(_("Market after"), _("Market after"))), self.market_board(exp.market, exp.decks)]
        elif exp.decks is not None:
            decks = [
                [
                    _("line {line}: ").format(line=i + 1),
                    *(self.cards_cell(d, empty="empty") if d.split() else [_("empty")]),
                ]
                for i, d in enumerate(exp.decks)
            ]
            title = _("Decks after (top first)")
            out += [para(nodes.strong(title, title)), bullets(decks)]
        if exp.players is not None and any(v is not None for p in exp.players for _k, v, _i in fields_of(p)):
            title = _("Players after")
            out += [
                para(nodes.strong(title, title), " ", _("(blank cells are not checked)")),
                self.players_table(exp.players, checked=True),
            ]
        return out
