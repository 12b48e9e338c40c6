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
    local_ref,
    para,
    rule_anchor,
    scalar,
    slug,
    table,
    title_for,
    value_cell,
)
from kbsim.sphinx.rows import RulesRenderer

logger = logging.getLogger(__name__)


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
        """The card table gets its own rendering; the other components are rule sections."""
        if key == "cards":
            return self.card_table_section(value)
        return super().component(key, value)

    def card_table_section(self, cards: Any) -> list[nodes.Node]:
        """The card table: provisional warning, file, totals against the published ones, the card lists."""
        m = self.model
        sec = self.section(self._id("rule-cards"), "Card table")
        box = self.provisional(cards)
        if box:
            hint = para(
                "To play the real cards, write them in a table with the same keys and fields, point ",
                code("card_table"),
                " in the rule file at it and check it with ",
                code(f"kbsim rules check {self.game}"),
                "; ",
                code("--option card_table=FILE"),
                " tries another table for a single run.",
            )
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
        labels = {
            "wagons": "Wagons",
            "characters": "Characters",
            "objectives": "Objectives",
            "contracts": "Contracts",
            "tokens": "Company tokens",
        }
        rows = []
        for key, n in cards.totals().items():
            want = published.get(key)
            rows.append([labels.get(key, title_for(key)), str(n), "not published" if want is None else str(want)])
        market = (
            sum(w.count for w in cards.wagons)
            + m.currency.cards
            + sum(cards.characters.values())
            + sum(e.count for e in m.events.values())
        )
        rows.append([f"Market cards in all (wagons, {m.currency.name} cards, characters, events)", str(market), ""])
        intro = para(
            "Totals of this table, next to the totals the sources print (rule file: ",
            code("published"),
            "); a card table whose totals differ from a published one is refused when the rules are loaded.",
        )
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
            out.append(
                table(
                    [header[i] for i in keep],
                    [[r[i] for i in keep] for r in rows],
                    classes=["kbsim-cards"],
                    widths=[widths[i] for i in keep],
                )
            )

        add(
            "Wagons",
            ["Key", "Name", "Copies", "Wild"],
            [
                [[self.card(w.key)], w.name, str(w.count), "yes: stands for any wagon" if w.key in wild else ""]
                for w in cards.wagons
            ],
            [2, 4, 1, 3],
        )
        if cards.characters:
            add(
                "Characters",
                ["Character", "Copies"],
                [
                    [[local_ref(f"character-{slug(k)}", m.characters[k].name if k in m.characters else k)], str(n)]
                    for k, n in cards.characters.items()
                ],
                [4, 1],
            )
        icons = {c.key: sum(1 for o in cards.objectives if o.company == c.key) for c in cards.companies}
        add(
            "Companies",
            ["Key", "Name", "Tokens", "Objectives with its icon"],
            [[[code(c.key)], c.name, str(c.tokens), str(icons[c.key])] for c in cards.companies],
            [2, 4, 1, 2],
        )
        add(
            "Objectives",
            ["Id", "Name", "Wagons needed", "Points", "Icon"],
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
                    local_ref(rule_anchor(f"contracts.patterns.{t.pattern}"), code(t.pattern))
                ]
                if t.colour is not None:
                    terms.append(f" ({company_names.get(t.colour, t.colour)})")
            rows.append([[code(c.id)], c.name, terms])
        add("Contracts", ["Id", "Name", "Scores the patterns"], rows, [2, 4, 6])
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
                        f"{len(st.offered[0])}, keeps {g.contracts_kept}",
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
        header = [
            "Players",
            "Market cards face up",
            "Left in each deck",
            "Objectives face up / in their deck",
            "Contracts dealt to each",
            "Contracts not dealt",
            f"{m.currency.name} cards each",
        ]
        return [para("The table after setup, as the engine lays it out:"), table(header, rows, classes=["kbsim-deal"])]

    # ---- characters
    def characters_intro(self, characters: Any) -> list[nodes.Node]:
        """How market characters are used (taken as a market card, carried out at once)."""
        if not characters:
            return []
        return [
            para(
                "Characters are market cards: the player who takes one (paying its place like any card) "
                "carries out its effect at once, then it leaves the game; an effect that cannot be carried "
                "out is lost. The copies of each are counted in the card table."
            )
        ]

    def character_facts(self, key: str, ch: Any) -> list[tuple[str, Any]]:
        """The rows-family facts plus the number of copies the card table holds."""
        cards = getattr(self.model, "cards", None)
        facts = super().character_facts(key, ch)
        if cards is not None:
            note = " (provisional card table)" if cards.provisional else ""
            facts.append(("Copies", f"{cards.characters.get(key, 0)}{note}"))
        return facts

    # ---- examples
    def examples_section(self) -> nodes.section:
        """Examples drawn as market lines, with the move forms and the examples' own card list."""
        m = self.model
        sec = self.section(self._id("examples"), "Examples")
        sec += para(
            "Each example lays out a table (the market lines, cheapest place first, with what is left in "
            "each deck; the face-up objectives; every player's cards), plays the listed moves and states "
            "the result; what it leaves out is not checked. The same examples run in the test suite (",
            code("kbsim rules test"),
            "), and the documentation build runs them too: it warns, and a build "
            "with warnings as errors stops, if the engine no longer gives a stated result.",
        )
        forms = self.move_forms()
        if forms:
            sec += para(nodes.strong("Moves.", "Moves."), " ", *forms)
        if getattr(m, "example_cards", None) is not None:
            sub = self.section(self._id("examples-cards"), "Cards the examples use")
            if m.example_cards.summary:
                sub += para(m.example_cards.summary)
            sub += para(
                "The examples play on a small card list of their own (rule file: ",
                code("example_cards"),
                "), so that they check the rules and not the card table.",
            )
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
            line, place = int(args[0]), int(args[1])
            by_deck = m.market.prices == "by_deck"
            costs, at = m.market.costs, (line if by_deck else place)
            ok = 1 <= line <= m.market.decks and 1 <= place <= m.market.line_places and at <= len(costs)
            cost = f" (a {'line' if by_deck else 'place'} that costs {costs[at - 1]})" if ok else ""
            return f"take the card in line {line}, place {place}{cost}"
        if op == "claim" and len(args) == 1:
            return f"claim face-up objective {args[0]}" if args[0].isdigit() else f"claim objective `{args[0]}`"
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
        market = self.model.market
        costs, places, by_deck = market.costs, market.line_places, market.prices == "by_deck"
        header = ["Line"] + [f"Place {i + 1}" + ("" if by_deck else f" (cost {costs[i]})") for i in range(places)]
        if decks is not None:
            header.append("Deck (top first)")
        rows = []
        for d, text in enumerate(lines):
            words = text.split()
            words = (words + ["-"] * places)[:places]
            label = f"{d + 1} (cost {costs[d]})" if by_deck and d < len(costs) else str(d + 1)
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
        labels = {
            "wagons": "Wagons",
            "currency": f"{m.currency.name} cards",
            "tokens": "Company tokens",
            "objectives": "Objectives claimed",
            "contracts": "Contracts kept",
        }
        columns: list[str] = []
        for p in players:
            for k, v, _ in fields_of(p):
                shown = v is not None if checked else v not in (None, "", [], 0)
                if shown and k not in columns:
                    columns.append(k)
        order = list(labels)
        columns.sort(key=lambda k: order.index(k) if k in order else len(order))
        rows = []
        for i, p in enumerate(players):
            values = {k: v for k, v, _ in fields_of(p)}
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
        return table(["Seat"] + [labels.get(k, title_for(k)) for k in columns], rows, classes=["kbsim-market"])

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
        if any(v not in (None, "", [], 0) for p in st.players for _, v, _ in fields_of(p)):
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

    def result_item(self, key: str, value: Any) -> tuple[str, Any]:
        """The (label, cell) of one stated value of an example's ``expect`` (not the market, decks or players).

        Args:
            key: the field of ``expect`` (``objectives``, ``seat``, ``winners``, ``score``, ...).
            value: its stated value; a list of whole numbers is read as one value per seat.
        """
        labels = {
            "objectives": "Objectives face up",
            "objective_deck": "Objective deck (top first)",
            "box": "Out of the game (box)",
        }
        if key in ("objectives", "objective_deck"):
            return labels[key], self.ids_cell(value, empty="empty" if key == "objective_deck" else "none")
        if key == "box":
            return labels[key], self.cards_cell(value)
        if key == "characters_lost":
            return "Characters lost", str(value)
        if key == "seat":
            return "To play next", f"seat {value}"
        if key == "ended":
            return "Game over", "yes" if value else "no"
        if key == "winners":
            seats = ", ".join(str(s) for s in value)
            return "Winners", (
                f"seat {seats}" if len(value) == 1 else (f"seats {seats} (a shared win)" if value else "none")
            )
        if isinstance(value, list) and all(isinstance(x, int) for x in value):
            return title_for(key), "; ".join(f"seat {i}: {v}" for i, v in enumerate(value))
        return title_for(key), value_cell(value)

    def example_result(self, ex: Any) -> list[nodes.Node]:
        """The stated result of an example: refused move, values, the market and the players after."""
        exp = ex.expect
        items: list[tuple[str, Any]] = []
        if exp.illegal is not None:
            move = ex.moves[exp.illegal - 1] if 0 < exp.illegal <= len(ex.moves) else "?"
            items.append(
                ("Refused", [f"move {exp.illegal} (", code(move), ") is not allowed; the moves before it stand"])
            )

        for k, v, _ in fields_of(exp):
            if v is None or k in ("illegal", "market", "decks", "players"):
                continue
            items.append(self.result_item(k, v))
        out: list[nodes.Node] = []
        if items:
            out += [para(nodes.strong("Result", "Result")), field_list(items)]
        if exp.market is not None:
            out += [para(nodes.strong("Market after", "Market after")), self.market_board(exp.market, exp.decks)]
        elif exp.decks is not None:
            decks = [
                [f"line {i + 1}: ", *(self.cards_cell(d, empty="empty") if d.split() else ["empty"])]
                for i, d in enumerate(exp.decks)
            ]
            out += [para(nodes.strong("Decks after (top first)", "Decks after (top first)")), bullets(decks)]
        if exp.players is not None and any(v is not None for p in exp.players for _, v, _ in fields_of(p)):
            out += [
                para(nodes.strong("Players after", "Players after"), " (blank cells are not checked)"),
                self.players_table(exp.players, checked=True),
            ]
        return out
