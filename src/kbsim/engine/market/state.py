"""The market table (:class:`MarketState`), setup, claim costs and the conservation check."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

from kbsim.engine.market.compiled import EVENT, GAP, HIDDEN, ROLE_NAMES, WAGON, MarketGame, Objective
from kbsim.engine.results import InvariantError


class MarketState:
    """The table: market lines and decks, the box, each seat's cards, objectives, contracts and tokens.

    All zones are plain lists (see the module docstring for the encoding). ``hidden``
    marks a sandbox copy whose decks hold ``HIDDEN`` placeholders.

    What every seat saw go into a face-down zone is kept beside it (see :mod:`kbsim.engine.market.observe`):
    ``deck_seen[d]`` cards at the bottom of deck ``d`` and ``obj_seen`` at the bottom of the objective deck were
    face up when they went under (a reset to the deck's bottom); ``returned[s]`` are the contracts seat ``s``
    put back at setup (only ``s`` knows them).
    """

    __slots__ = (
        "lines",
        "decks",
        "box",
        "wagons",
        "currency",
        "tokens",
        "supply",
        "obj_deck",
        "obj_visible",
        "obj_box",
        "claimed",
        "contracts",
        "offered",
        "contract_box",
        "pending",
        "open_lines",
        "hidden",
        "rng",
        "deck_seen",
        "obj_seen",
        "returned",
    )

    def __init__(self, game: MarketGame, players: int):
        k = len(game.kinds)
        self.lines: list[list[int]] = [[GAP] * game.n_places for _ in range(game.n_decks)]
        self.decks: list[list[int]] = [[] for _ in range(game.n_decks)]
        self.box: list[int] = [0] * k
        self.wagons: list[list[int]] = [[0] * k for _ in range(players)]
        self.currency: list[int] = [0] * players
        self.tokens: list[list[int]] = [[0] * len(game.companies) for _ in range(players)]
        self.supply: list[int] = list(game.tokens)
        self.obj_deck: list[int] = []
        self.obj_visible: list[int] = [GAP] * game.visible_objectives
        self.obj_box: list[int] = []
        self.claimed: list[list[int]] = [[] for _ in range(players)]
        self.contracts: list[list[int]] = [[] for _ in range(players)]
        self.offered: list[list[int]] = [[] for _ in range(players)]
        self.contract_box: list[int] = []
        self.pending: list[int] = []
        self.open_lines: list[int] = []  # lines with a taken card's place still empty (refilled after the effects)
        self.hidden = False
        self.rng: random.Random | None = None
        self.deck_seen: list[int] = [0] * game.n_decks
        self.obj_seen = 0
        self.returned: list[list[int]] = [[] for _ in range(players)]

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.currency)

    def copy(self) -> MarketState:
        """A deep copy (lists copied; the RNG is not shared)."""
        new = MarketState.__new__(MarketState)
        new.lines = [list(x) for x in self.lines]
        new.decks = [list(x) for x in self.decks]
        new.box = list(self.box)
        new.wagons = [list(x) for x in self.wagons]
        new.currency = list(self.currency)
        new.tokens = [list(x) for x in self.tokens]
        new.supply = list(self.supply)
        new.obj_deck = list(self.obj_deck)
        new.obj_visible = list(self.obj_visible)
        new.obj_box = list(self.obj_box)
        new.claimed = [list(x) for x in self.claimed]
        new.contracts = [list(x) for x in self.contracts]
        new.offered = [list(x) for x in self.offered]
        new.contract_box = list(self.contract_box)
        new.pending = list(self.pending)
        new.open_lines = list(self.open_lines)
        new.hidden = self.hidden
        new.rng = None
        new.deck_seen = list(self.deck_seen)
        new.obj_seen = self.obj_seen
        new.returned = [list(x) for x in self.returned]
        return new

    # ---- market primitives
    def fill(self, g: MarketGame, d: int, pos: int, setup: bool = False) -> None:
        """Turn up cards of deck ``d`` into the empty place ``pos`` of its line.

        An event turned up is resolved at once and goes to the box (at setup it is
        shuffled back into the deck or put away unresolved, per ``market.setup_events``),
        then the deck turns up the next card, unless the event already filled the
        place (a market reset). A used-up deck leaves the place empty.
        """
        deck = self.decks[d]
        line = self.lines[d]
        while deck and line[pos] == GAP:
            card = deck.pop()
            if self.deck_seen[d] > len(deck):
                self.deck_seen[d] = len(deck)
            if card >= 0 and g.kinds[card].role == EVENT:
                if setup:
                    if g.setup_reshuffle:
                        if all(c >= 0 and g.kinds[c].role == EVENT for c in deck):
                            deck.append(card)  # nothing but events left: leave the place empty
                            return
                        deck.append(card)
                        assert self.rng is not None, "setup runs on the dealt state, which holds the deal's stream"
                        self.rng.shuffle(deck)
                        self.deck_seen[d] = 0
                    else:
                        self.box[card] += 1
                    continue
                self.box[card] += 1
                self.resolve_event(g, card)
                continue
            line[pos] = card

    def remove_from_market(self, g: MarketGame, d: int, pos: int) -> None:
        """Remove the card at place ``pos`` of line ``d`` and refill: slide forward, or in place."""
        line = self.lines[d]
        if g.slide:
            del line[pos]
            line.append(GAP)
            for p in range(len(line)):
                if line[p] == GAP:
                    self.fill(g, d, p)
        else:
            line[pos] = GAP
            self.fill(g, d, pos)

    def take_out(self, g: MarketGame, d: int, pos: int) -> None:
        """Take the card at place ``pos`` of line ``d`` out, leaving its place empty until :meth:`close_lines`.

        Used when the rules apply a taken character's effect before the line slides
        and refills (``turn.take.character_acts: before_refill``).
        """
        self.lines[d][pos] = GAP
        if d not in self.open_lines:
            self.open_lines.append(d)

    def close_lines(self, g: MarketGame) -> None:
        """Slide (or refill in place) every line left open by :meth:`take_out`, in the order they were opened."""
        while self.open_lines:
            d = self.open_lines.pop(0)
            line = self.lines[d]
            if g.slide:
                cards = [c for c in line if c != GAP]
                line[:] = cards + [GAP] * (len(line) - len(cards))
            for p in range(len(line)):
                if line[p] == GAP:
                    self.fill(g, d, p)

    def resolve_event(self, g: MarketGame, card: int) -> None:
        """Apply an event's reset effect (the event card itself is already in the box)."""
        k = g.kinds[card]
        if k.reset == "objectives":
            self.reset_objectives(g, k.to)
        else:
            self.reset_market(g, k.to)

    def reset_objectives(self, g: MarketGame, to: str) -> None:
        """Clear the face-up objectives and turn up a new line.

        Args:
            g: the compiled market game.
            to: where the cleared objectives go: ``"deck_bottom"`` (under the objective deck, in their order)
                or out of the game.
        """
        cleared = [o for o in self.obj_visible if o != GAP]
        self.obj_visible = [GAP] * len(self.obj_visible)
        if to == "deck_bottom":
            self.obj_deck[0:0] = cleared[::-1]  # the first one ends up nearest the top
            self.obj_seen += len(cleared)
        else:
            self.obj_box.extend(cleared)
        for i in range(len(self.obj_visible)):
            self.reveal_objective(i)

    def reset_market(self, g: MarketGame, to: str) -> None:
        """Clear every face-up market card (to the box, or under its own deck) and turn up full lines."""
        for d, line in enumerate(self.lines):
            for p, c in enumerate(line):
                if c == GAP:
                    continue
                if to == "box" or c == HIDDEN:
                    if c >= 0:
                        self.box[c] += 1
                else:
                    self.decks[d].insert(0, c)
                    self.deck_seen[d] += 1
                line[p] = GAP
        for d, line in enumerate(self.lines):
            for p in range(len(line)):
                if line[p] == GAP:
                    self.fill(g, d, p)

    def reveal_objective(self, slot: int) -> None:
        """Turn up the top objective into an empty face-up slot (stays empty if the deck is used up)."""
        if self.obj_visible[slot] == GAP and self.obj_deck:
            self.obj_visible[slot] = self.obj_deck.pop()
            if self.obj_seen > len(self.obj_deck):
                self.obj_seen = len(self.obj_deck)

    # ---- accounting
    def icon_counts(self, g: MarketGame, seat: int) -> tuple[int, ...]:
        """Icons per company colour of ``seat``: claimed objectives' icons and company tokens (per the rules)."""
        counts = [0] * len(g.companies)
        if g.icons_from_objectives:
            for o in self.claimed[seat]:
                counts[g.objectives[o].company] += 1
        if g.icons_from_tokens:
            for c, n in enumerate(self.tokens[seat]):
                counts[c] += n
        return tuple(counts)

    def market_cards(self) -> Counter:
        """Every market card (kind -> copies) in decks, lines, the box, the seats' wagons and pending characters."""
        got: Counter = Counter()
        for zone in (*self.decks, *self.lines, self.pending):
            got.update(c for c in zone if c >= 0)
        for k, n in enumerate(self.box):
            got[k] += n
        for w in self.wagons:
            for k, n in enumerate(w):
                got[k] += n
        return +got


def claim_cost(g: MarketGame, wagons: list[int], obj: Objective) -> list[tuple[int, int]] | None:
    """The wagons spent to claim ``obj``: matching kinds first, wild kinds for what is missing.

    Args:
        g: the game.
        wagons: wagons held per kind.
        obj: the objective.

    Returns:
        ``[(kind, count), ...]`` to spend, or None when the wagons do not suffice.
    """
    spend: dict[int, int] = {}
    short = 0
    for k, n in obj.needs:
        use = min(wagons[k] - spend.get(k, 0), n)
        if use > 0:
            spend[k] = spend.get(k, 0) + use
        short += n - max(use, 0)
    for w in g.wild_kinds:
        if short <= 0:
            break
        avail = wagons[w] - spend.get(w, 0)
        if avail > 0:
            use = min(avail, short)
            spend[w] = spend.get(w, 0) + use
            short -= use
    return None if short > 0 else list(spend.items())


def new_state(g: MarketGame, players: int, rng: random.Random) -> MarketState:
    """The table after setup, before the contract choices: contracts dealt, market and objectives laid out.

    Rule implemented: the setup of the rule file (contracts dealt; all market cards
    shuffled and cut into ``n_decks`` decks whose sizes differ by at most one; each
    line turned up with setup events handled per ``market.setup_events``; the
    objective deck shuffled and its line turned up; starting currency).

    Args:
        g: compiled rules.
        players: seats.
        rng: the game's random stream (the deal only).
    """
    st = MarketState(g, players)
    st.rng = rng
    order = list(range(len(g.contracts)))
    rng.shuffle(order)
    for s in range(players):
        st.offered[s] = order[s * g.contracts_dealt : (s + 1) * g.contracts_dealt]
    st.contract_box = order[players * g.contracts_dealt :]
    cards = [i for i, k in enumerate(g.kinds) for _ in range(k.count)]
    start = min(g.start_currency, g.kinds[g.currency_kind].count // max(1, players))
    for s in range(players):
        for _ in range(start):
            cards.remove(g.currency_kind)
        st.currency[s] = start
    rng.shuffle(cards)
    q, r = divmod(len(cards), g.n_decks)
    pos = 0
    for d in range(g.n_decks):
        size = q + (1 if d < r else 0)
        st.decks[d] = cards[pos : pos + size]
        pos += size
    for d in range(g.n_decks):
        for p in range(g.n_places):
            st.fill(g, d, p, setup=True)
    objs = list(range(len(g.objectives)))
    rng.shuffle(objs)
    st.obj_deck = objs
    for i in range(g.visible_objectives):
        st.reveal_objective(i)
    return st


def check_state(g: MarketGame, st: MarketState, players: int) -> None:
    """Raise :class:`~kbsim.engine.results.InvariantError` unless every card and token is accounted for.

    Checks: every market card kind's copies (decks, lines, seats' wagons and
    currency, pending characters, the box); every objective exactly once (deck,
    face-up line, claimed); every contract exactly once (kept, offered, box);
    tokens per colour (supply and seats); gaps only at the end of a sliding line.
    """
    got = st.market_cards()
    got[g.currency_kind] += sum(st.currency)
    want = Counter({i: k.count for i, k in enumerate(g.kinds) if k.count})
    if +got != want:
        raise InvariantError(f"market cards not conserved: {dict(got - want)} extra, {dict(want - got)} missing")
    for s in range(players):
        for i, k in enumerate(g.kinds):
            if k.role != WAGON and st.wagons[s][i]:
                raise InvariantError(f"seat {s} holds a {ROLE_NAMES[k.role]} card among its wagons")
    objs = [o for o in st.obj_deck + st.obj_visible + st.obj_box if o != GAP] + [o for c in st.claimed for o in c]
    if sorted(objs) != list(range(len(g.objectives))):
        raise InvariantError(f"objectives not conserved: {sorted(objs)}")
    cons = st.contract_box + [c for x in st.contracts for c in x] + [c for x in st.offered for c in x]
    if sorted(cons) != list(range(len(g.contracts))):
        raise InvariantError(f"contracts not conserved: {sorted(cons)}")
    for c in range(len(g.companies)):
        if st.supply[c] + sum(t[c] for t in st.tokens) != g.tokens[c] or st.supply[c] < 0:
            raise InvariantError(f"tokens of {g.companies[c]} not conserved")
    if min(st.currency, default=0) < 0:
        raise InvariantError(f"negative currency: {st.currency}")
    if g.slide:
        for d, line in enumerate(st.lines):
            if d in st.open_lines:  # a taken card's place, refilled once the character has acted
                continue
            if any(a == GAP and b != GAP for a, b in pairwise(line)):
                raise InvariantError(f"line {d + 1} has a gap before a card: {line}")
            if GAP in line and any(c >= 0 and g.kinds[c].role != EVENT for c in st.decks[d]):
                raise InvariantError(f"line {d + 1} has a gap while its deck holds cards")
