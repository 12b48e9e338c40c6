"""The ``market`` engine family: a card market and set collection, compiled from a market rule file.

Generic primitives (every parameter comes from the rule file and its card table):

* **market rows**: ``D`` face-down decks, each with a line of face-up places;
  place ``p`` costs ``costs[p]`` currency cards. After a take the line slides
  forward and its deck refills the last place (or refills in place); a used-up
  deck leaves gaps (:meth:`MarketState.fill`).
* **currency cards**: taken like any card, kept face up, spent to the box.
* **objectives**: face-up cards claimed by spending the wagons they need, wild
  wagon kinds covering what is missing (:func:`claim_cost`).
* **take-and-resolve characters**: a taken character applies one effect
  operation at once (``take_free``, ``take_currency``, ``swap_wagons``,
  ``take_token``) and goes to the box; an impossible effect is lost.
* **events**: resolved when revealed; a *reset* of the objective line or of the
  market (:meth:`MarketState.reset_objectives`, :meth:`MarketState.reset_market`).
* **pattern scoring** over icon colours (:func:`pattern_points`).
* **end trigger with a final round**, final score and tie-breakers.

Cards are small ints: a market card is the index of its *kind* in
:attr:`MarketGame.kinds` (copies are interchangeable); objectives and contracts
are indices into :attr:`MarketGame.objectives` / :attr:`MarketGame.contracts`;
companies (icon colours) are indices into :attr:`MarketGame.companies`.
Decks keep their top card last. ``GAP`` (-1) marks an empty place; ``HIDDEN``
(-2) a card a sandbox does not know.

Bots act through a :class:`MarketTurn` (``legal_moves`` / ``apply``), never on the
state directly; :meth:`MarketTurn.sandbox` gives a copy with the hidden cards
masked, on which a bot may try moves.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from kbsim.engine.game import STALEMATE, TURN_LIMIT, WON, GameResult, InvariantError, bot_seed
from kbsim.engine.moves import IllegalMove
from kbsim.rules.loader import LoadedRules

GAP = -1
HIDDEN = -2

WAGON, CURRENCY, CHARACTER, EVENT = 0, 1, 2, 3
ROLE_NAMES = ("wagon", "currency", "character", "event")
TAKE_FREE, TAKE_CURRENCY, SWAP_WAGONS, TAKE_TOKEN = 0, 1, 2, 3
OPS = {"take_free": TAKE_FREE, "take_currency": TAKE_CURRENCY, "swap_wagons": SWAP_WAGONS, "take_token": TAKE_TOKEN}

# turn phases
CHOOSE, TAKE, RESOLVE, CLAIM, DONE = "choose", "take", "resolve", "claim", "done"


# ------------------------------------------------------------------ compiled rules
@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of market card.

    Attributes:
        key, name: from the rule file / card table.
        role: ``WAGON``, ``CURRENCY``, ``CHARACTER`` or ``EVENT``.
        count: copies in the game.
        wild: a wagon kind that stands for any wagon when claiming.
        op: the effect operation of a character (``TAKE_FREE``...), else -1.
        reset: what an event resets (``objectives`` or ``market``), else "".
        to: where an event sends the cleared cards (``deck_bottom`` or ``box``).
    """

    key: str
    name: str
    role: int
    count: int
    wild: bool = False
    op: int = -1
    reset: str = ""
    to: str = ""


@dataclass(frozen=True, slots=True)
class Objective:
    """An objective card: ``needs`` as ``((kind, count), ...)``, its points and its company (icon colour)."""

    key: str
    name: str
    needs: tuple[tuple[int, int], ...]
    points: int
    company: int


@dataclass(frozen=True, slots=True)
class Pattern:
    """A contract term: groups of same-coloured icons (``colours`` fixed per group, or None for any)."""

    groups: tuple[int, ...]
    colours: tuple[int, ...] | None
    distinct: bool
    points: int
    repeat: bool


@dataclass(frozen=True, slots=True)
class Contract:
    """A contract card: its pattern terms."""

    key: str
    name: str
    terms: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True)
class MarketGame:
    """Everything the market engine needs to play one rule set (immutable, picklable).

    Besides the identification shared with the rows family (``game``, ``title``,
    ``variant``, ``options``, player counts, ``turn_limit``), it holds:

    Attributes:
        kinds: market card kinds; ``wagon_kinds``, ``wild_kinds``, ``currency_kind`` index into it.
        n_decks, costs, slide, setup_reshuffle: the market (``costs[p]`` is the cost of place ``p``).
        objectives, visible_objectives, replace_objectives: objective cards and their face-up line.
        claims_per_turn, take_mandatory: the turn.
        contracts, contracts_dealt, contracts_kept, icons_from_objectives, icons_from_tokens, exclusive_icons:
            contract cards and how their patterns are scored.
        companies, company_names, tokens: icon colours and company tokens per colour.
        start_currency: currency each player starts with.
        trigger, final_round: the end trigger (``others``, ``complete_round`` or ``none``).
        score_objectives, score_contracts, per_currency, per_token, tie_breakers: the final score.
        stall_round: end (as a stalemate) after a round in which nothing could be taken or claimed.
        provisional: why the data is provisional, or None.
    """

    game: str
    title: str
    variant: str
    options: dict[str, Any]
    min_players: int
    max_players: int
    turn_limit: int
    kinds: tuple[Kind, ...]
    wagon_kinds: tuple[int, ...]
    wild_kinds: tuple[int, ...]
    currency_kind: int
    n_decks: int
    costs: tuple[int, ...]
    slide: bool
    setup_reshuffle: bool
    objectives: tuple[Objective, ...]
    visible_objectives: int
    replace_objectives: bool
    claims_per_turn: int
    take_mandatory: bool
    contracts: tuple[Contract, ...]
    contracts_dealt: int
    contracts_kept: int
    icons_from_objectives: bool
    icons_from_tokens: bool
    exclusive_icons: bool
    companies: tuple[str, ...]
    company_names: tuple[str, ...]
    tokens: tuple[int, ...]
    start_currency: int
    trigger: int
    final_round: str
    score_objectives: bool
    score_contracts: bool
    per_currency: int
    per_token: int
    tie_breakers: tuple[str, ...]
    stall_round: bool
    provisional: str | None = None
    first_seat: int = 0
    family: str = "market"
    score: None = None  # no team score (the rows family's solo score)

    def kind_index(self, key: str) -> int:
        """The kind index of a market card key.

        Raises:
            KeyError: no such key.
        """
        for i, k in enumerate(self.kinds):
            if k.key == key:
                return i
        raise KeyError(key)

    def objective_index(self, key: str) -> int:
        """The index of an objective id (raises KeyError)."""
        for i, o in enumerate(self.objectives):
            if o.key == key:
                return i
        raise KeyError(key)

    def contract_index(self, key: str) -> int:
        """The index of a contract id (raises KeyError)."""
        for i, c in enumerate(self.contracts):
            if c.key == key:
                return i
        raise KeyError(key)

    def company_index(self, key: str) -> int:
        """The index of a company key (raises KeyError)."""
        return self.companies.index(key)

    def card_text(self, card: int) -> str:
        """A market card as written in examples: its key, ``-`` for a gap, ``?`` for a hidden card."""
        if card == GAP:
            return "-"
        if card == HIDDEN:
            return "?"
        return self.kinds[card].key


def compile_market(loaded: LoadedRules, table: Any = None) -> MarketGame:
    """Compile a validated market rule file into a :class:`MarketGame`.

    Args:
        loaded: rules from :func:`kbsim.rules.loader.load_rules` whose model is a
            :class:`kbsim.rules.market_schema.MarketRuleFile`.
        table: a :class:`~kbsim.rules.market_schema.CardTable` to use instead of the
            rule file's own card table (the examples use ``example_cards``).

    Returns:
        The compiled game.
    """
    m = loaded.model
    table = table if table is not None else m.cards
    kinds: list[Kind] = []
    wild = set(m.turn.claim.wild)
    for w in table.wagons:
        kinds.append(Kind(w.key, w.name, WAGON, w.count, wild=w.key in wild))
    n_wagons = len(kinds)
    kinds.append(Kind(m.currency.key, m.currency.name, CURRENCY, m.currency.cards))
    for key, ch in m.characters.items():
        kinds.append(Kind(key, ch.name, CHARACTER, table.characters.get(key, 0), op=OPS[ch.effect.op]))
    for key, ev in m.events.items():
        kinds.append(Kind(key, ev.name, EVENT, ev.count, reset=ev.effect.reset, to=ev.effect.to))
    index = {k.key: i for i, k in enumerate(kinds)}
    companies = tuple(c.key for c in table.companies)
    objectives = tuple(Objective(o.id, o.name or o.id, tuple((index[k], n) for k, n in o.needs.items()), o.points,
                                 companies.index(o.company)) for o in table.objectives)
    contracts = []
    for c in table.contracts:
        terms = []
        for t in c.terms:
            p = m.contracts.patterns[t.pattern]
            colours = (companies.index(t.colour),) if p.colour == "contract" else None
            terms.append(Pattern(tuple(p.groups), colours, p.distinct, p.points, p.repeat))
        contracts.append(Contract(c.id, c.name or c.id, tuple(terms)))
    end = m.end
    return MarketGame(
        game=m.game, title=m.title, variant=loaded.variant_label, options=dict(loaded.options),
        min_players=m.players.min, max_players=m.players.max, turn_limit=end.turn_limit.turns,
        kinds=tuple(kinds), wagon_kinds=tuple(range(n_wagons)),
        wild_kinds=tuple(i for i in range(n_wagons) if kinds[i].wild), currency_kind=n_wagons,
        n_decks=m.market.decks, costs=tuple(m.market.costs), slide=m.market.refill == "slide",
        setup_reshuffle=m.market.setup_events == "reshuffle",
        objectives=objectives, visible_objectives=m.objectives.visible, replace_objectives=m.objectives.replace,
        claims_per_turn=m.turn.claim.per_turn, take_mandatory=m.turn.take.mandatory,
        contracts=tuple(contracts), contracts_dealt=m.contracts.dealt, contracts_kept=m.contracts.keep,
        icons_from_objectives="objectives" in m.contracts.icon_sources,
        icons_from_tokens="tokens" in m.contracts.icon_sources,
        exclusive_icons=m.contracts.icon_use == "exclusive",
        companies=companies, company_names=tuple(c.name for c in table.companies),
        tokens=tuple(c.tokens for c in table.companies), start_currency=m.currency.start,
        trigger=end.trigger.objectives, final_round=end.trigger.final_round,
        score_objectives=end.score.objective_points, score_contracts=end.score.contracts,
        per_currency=end.score.per_currency, per_token=end.score.per_token,
        tie_breakers=tuple(end.score.tie_breakers), stall_round=end.stall.idle_round,
        provisional=m.provisional, first_seat=m.setup.first_seat)


# ------------------------------------------------------------------ pattern scoring
def _placements(p: Pattern, counts: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Icon counts left after taking one occurrence of ``p``, for every distinct way of taking it."""
    out: set[tuple[int, ...]] = set()
    cur = list(counts)
    used: list[int] = []
    groups = p.groups
    n = len(cur)

    def rec(gi: int) -> None:
        if gi == len(groups):
            out.add(tuple(cur))
            return
        size = groups[gi]
        for c in ((p.colours[gi],) if p.colours is not None else range(n)):
            if cur[c] < size or (p.distinct and c in used):
                continue
            cur[c] -= size
            used.append(c)
            rec(gi + 1)
            used.pop()
            cur[c] += size

    rec(0)
    return out


@lru_cache(maxsize=1 << 17)
def _best(terms: tuple[Pattern, ...], i: int, counts: tuple[int, ...]) -> int:
    if i == len(terms):
        return 0
    t = terms[i]
    best = _best(terms, i + 1, counts)
    for rest in _placements(t, counts):
        v = t.points + (_best(terms, i, rest) if t.repeat else _best(terms, i + 1, rest))
        if v > best:
            best = v
    return best


def pattern_points(terms: tuple[Pattern, ...], counts: tuple[int, ...], exclusive: bool = True) -> int:
    """Points of a contract's pattern terms for icon counts per colour.

    Rule implemented (documented in the rule file's ``contracts`` section): within
    one term, occurrences never share an icon and the most occurrences count
    (once at most when the term does not ``repeat``). Across terms, with
    ``exclusive`` an icon serves at most one term and the assignment best for the
    player is taken (an exact search over colour counts, memoised); without it
    each term is scored on all icons independently.

    Args:
        terms: the contract's :class:`Pattern` terms.
        counts: icons per company colour (a tuple as long as :attr:`MarketGame.companies`).
        exclusive: the ``icon_use: exclusive`` reading.

    Returns:
        The points (an int >= 0 when every term's points are >= 0).
    """
    if exclusive or len(terms) == 1:
        return _best(terms, 0, counts)
    return sum(_best((t,), 0, counts) for t in terms)


# ------------------------------------------------------------------ state
class Move(NamedTuple):
    """A move: ``op`` and up to three int arguments.

    ``take D P`` (deck line, place; also the free take of a ``take_free``
    character), ``claim SLOT``, ``end``, ``choose CONTRACT``, ``steal SEAT``,
    ``swap MY_KIND SEAT THEIR_KIND``, ``token COMPANY``. Indices are 0-based.
    """

    op: str
    a: int = -1
    b: int = -1
    c: int = -1


END = Move("end")


class MarketState:
    """The table: market lines and decks, the box, each seat's cards, objectives, contracts and tokens.

    All zones are plain lists (see the module docstring for the encoding). ``hidden``
    marks a sandbox copy whose decks hold ``HIDDEN`` placeholders.
    """

    __slots__ = ("lines", "decks", "box", "wagons", "currency", "tokens", "supply", "obj_deck", "obj_visible",
                 "obj_box", "claimed", "contracts", "offered", "contract_box", "pending", "hidden", "rng")

    def __init__(self, game: MarketGame, players: int):
        k = len(game.kinds)
        self.lines: list[list[int]] = [[GAP] * len(game.costs) for _ in range(game.n_decks)]
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
        self.hidden = False
        self.rng: random.Random | None = None

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
        new.hidden = self.hidden
        new.rng = None
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
            if card >= 0 and g.kinds[card].role == EVENT:
                if setup:
                    if g.setup_reshuffle:
                        if all(c >= 0 and g.kinds[c].role == EVENT for c in deck):
                            deck.append(card)  # nothing but events left: leave the place empty
                            return
                        deck.append(card)
                        self.rng.shuffle(deck)
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

    def resolve_event(self, g: MarketGame, card: int) -> None:
        """Apply an event's reset effect (the event card itself is already in the box)."""
        k = g.kinds[card]
        if k.reset == "objectives":
            self.reset_objectives(g, k.to)
        else:
            self.reset_market(g, k.to)

    def reset_objectives(self, g: MarketGame, to: str) -> None:
        """Clear the face-up objectives (under the objective deck, in their order; or out of the game)
        and turn up a new line."""
        cleared = [o for o in self.obj_visible if o != GAP]
        self.obj_visible = [GAP] * len(self.obj_visible)
        if to == "deck_bottom":
            self.obj_deck[0:0] = cleared[::-1]  # the first one ends up nearest the top
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
                line[p] = GAP
        for d, line in enumerate(self.lines):
            for p in range(len(line)):
                if line[p] == GAP:
                    self.fill(g, d, p)

    def reveal_objective(self, slot: int) -> None:
        """Turn up the top objective into an empty face-up slot (stays empty if the deck is used up)."""
        if self.obj_visible[slot] == GAP and self.obj_deck:
            self.obj_visible[slot] = self.obj_deck.pop()

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
        st.offered[s] = order[s * g.contracts_dealt:(s + 1) * g.contracts_dealt]
    st.contract_box = order[players * g.contracts_dealt:]
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
        st.decks[d] = cards[pos:pos + size]
        pos += size
    for d in range(g.n_decks):
        for p in range(len(g.costs)):
            st.fill(g, d, p, setup=True)
    objs = list(range(len(g.objectives)))
    rng.shuffle(objs)
    st.obj_deck = objs
    for i in range(g.visible_objectives):
        st.reveal_objective(i)
    return st


def check_state(g: MarketGame, st: MarketState, players: int) -> None:
    """Raise :class:`~kbsim.engine.game.InvariantError` unless every card and token is accounted for.

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
            if any(a == GAP and b != GAP for a, b in pairwise(line)):
                raise InvariantError(f"line {d + 1} has a gap before a card: {line}")
            if GAP in line and any(c >= 0 and g.kinds[c].role != EVENT for c in st.decks[d]):
                raise InvariantError(f"line {d + 1} has a gap while its deck holds cards")


# ------------------------------------------------------------------ a turn
class MarketTurn:
    """One seat's turn (or its contract choice), acted through :meth:`legal_moves` and :meth:`apply`.

    Phases: ``choose`` (setup: keep contracts) -> done; ``take`` -> (``resolve``
    while a taken character acts) -> ``claim`` -> ``done``. A turn that can take
    nothing starts in ``claim``. Bots read public information through the
    properties below (the seat's own contracts included) and must not touch
    :attr:`state`.

    Args:
        game: compiled rules.
        state: the table (shared with the game loop; a sandbox has its own copy).
        seat: the seat to play.
        phase: ``take`` for a normal turn, ``choose`` for the contract choice.
    """

    def __init__(self, game: MarketGame, state: MarketState, seat: int, phase: str = TAKE):
        self.game = game
        self.state = state
        self.seat = seat
        self.players = state.players
        self.took = False
        self.claims = 0
        self.lost = 0
        self.resolved: list[int] = []   # character kinds that acted
        self.log: list[Move] | None = None
        self.on_move = None
        self._legal: list[Move] | None = None
        self.phase = phase
        if phase == TAKE and not self._take_moves(False):
            self.phase = CLAIM

    # ---- public views
    @property
    def market(self) -> list[list[int]]:
        """The face-up lines (read only): card kinds, ``GAP`` for an empty place."""
        return self.state.lines

    def deck_sizes(self) -> list[int]:
        """Cards left in each market deck."""
        return [len(d) for d in self.state.decks]

    @property
    def visible_objectives(self) -> list[int]:
        """Face-up objective indices (``GAP`` for an empty slot)."""
        return self.state.obj_visible

    def wagons(self, seat: int) -> list[int]:
        """Wagons per kind held by ``seat`` (face up, public)."""
        return self.state.wagons[seat]

    def currency(self, seat: int) -> int:
        """Currency cards held by ``seat``."""
        return self.state.currency[seat]

    def tokens(self, seat: int) -> list[int]:
        """Company tokens per colour held by ``seat``."""
        return self.state.tokens[seat]

    @property
    def supply(self) -> list[int]:
        """Company tokens per colour left in the supply."""
        return self.state.supply

    def claimed(self, seat: int) -> list[int]:
        """Objectives claimed by ``seat``."""
        return self.state.claimed[seat]

    @property
    def my_contracts(self) -> list[int]:
        """The contracts this seat keeps (secret to the others)."""
        return self.state.contracts[self.seat]

    @property
    def offered(self) -> list[int]:
        """Contracts this seat may still choose from (``choose`` phase)."""
        return self.state.offered[self.seat]

    def pending_op(self) -> int:
        """The effect operation of the character being resolved (``resolve`` phase), else -1."""
        return self.game.kinds[self.state.pending[-1]].op if self.state.pending else -1

    def icon_counts(self, seat: int | None = None) -> tuple[int, ...]:
        """Icons per colour of ``seat`` (default: this seat)."""
        return self.state.icon_counts(self.game, self.seat if seat is None else seat)

    def contract_points(self, counts: tuple[int, ...] | None = None) -> int:
        """This seat's contract points for ``counts`` icons (default: its own icons now)."""
        g = self.game
        counts = self.icon_counts() if counts is None else counts
        return sum(pattern_points(g.contracts[c].terms, counts, g.exclusive_icons) for c in self.my_contracts)

    def sandbox(self) -> MarketTurn:
        """A copy of this turn on a copy of the table with hidden information masked.

        Deck cards and face-down objectives become ``HIDDEN`` (turned up as such,
        never takeable or claimable); other seats' contracts are unknown. Moves
        applied to the sandbox never touch the real game.
        """
        st = self.state.copy()
        st.hidden = True
        st.decks = [[HIDDEN] * len(d) for d in st.decks]
        st.obj_deck = [HIDDEN] * len(st.obj_deck)
        for s in range(st.players):
            if s != self.seat:
                st.contracts[s] = []
                st.offered[s] = []
        st.contract_box = []
        t = MarketTurn.__new__(MarketTurn)
        t.__dict__.update(self.__dict__)
        t.state = st
        t.resolved = list(self.resolved)
        t.log = None
        t.on_move = None
        t._legal = None
        return t

    # ---- moves
    def _take_moves(self, free: bool) -> list[Move]:
        st = self.state
        budget = st.currency[self.seat]
        costs = self.game.costs
        return [Move("take", d, p) for d, line in enumerate(st.lines) for p, c in enumerate(line)
                if c >= 0 and (free or costs[p] <= budget)]

    def _resolve_moves(self) -> list[Move]:
        g, st, me = self.game, self.state, self.seat
        op = g.kinds[st.pending[-1]].op
        if op == TAKE_FREE:
            return self._take_moves(True)
        if op == TAKE_CURRENCY:
            return [Move("steal", s) for s in range(st.players) if s != me and st.currency[s] > 0]
        if op == SWAP_WAGONS:
            mine = [k for k in g.wagon_kinds if st.wagons[me][k] > 0]
            return [Move("swap", k, s, j) for k in mine for s in range(st.players) if s != me
                    for j in g.wagon_kinds if st.wagons[s][j] > 0]
        return [Move("token", c) for c, n in enumerate(st.supply) if n > 0]

    def legal_moves(self) -> list[Move]:
        """Every legal move now (``end`` is legal in the claim phase; an empty list once done)."""
        if self._legal is not None:
            return self._legal
        ph = self.phase
        if ph == TAKE:
            moves = self._take_moves(False)
            if not self.game.take_mandatory:
                moves.append(END)
        elif ph == RESOLVE:
            moves = self._resolve_moves()
        elif ph == CLAIM:
            st, g = self.state, self.game
            w = st.wagons[self.seat]
            moves = [Move("claim", i) for i, o in enumerate(st.obj_visible)
                     if o >= 0 and claim_cost(g, w, g.objectives[o]) is not None]
            moves.append(END)
        elif ph == CHOOSE:
            moves = [Move("choose", c) for c in self.state.offered[self.seat]]
        else:
            moves = []
        self._legal = moves
        return moves

    def apply(self, move: Move) -> None:
        """Apply a legal move.

        Raises:
            IllegalMove: ``move`` is not among :meth:`legal_moves` (the message says why).
        """
        if move not in self.legal_moves():
            raise IllegalMove(self._why(move))
        self._legal = None
        g, st, me = self.game, self.state, self.seat
        op = move.op
        if self.log is not None:
            self.log.append(move)
        if self.phase == TAKE:
            if op == "end":
                self.phase = CLAIM
            else:
                self.took = True
                self._take(move.a, move.b, free=False)
        elif self.phase == RESOLVE:
            char = st.pending.pop()
            if op == "take":
                self._take(move.a, move.b, free=True)
            elif op == "steal":
                st.currency[me] += st.currency[move.a]
                st.currency[move.a] = 0
            elif op == "swap":
                mine, other, theirs = move.a, move.b, move.c
                st.wagons[me][mine] -= 1
                st.wagons[other][mine] += 1
                st.wagons[other][theirs] -= 1
                st.wagons[me][theirs] += 1
            else:
                st.supply[move.a] -= 1
                st.tokens[me][move.a] += 1
            st.box[char] += 1
            self.resolved.append(char)
            self._settle()
        elif self.phase == CLAIM:
            if op == "end":
                self.phase = DONE
            else:
                slot = move.a
                o = st.obj_visible[slot]
                for k, n in claim_cost(g, st.wagons[me], g.objectives[o]):
                    st.wagons[me][k] -= n
                    st.box[k] += n
                st.claimed[me].append(o)
                st.obj_visible[slot] = GAP
                if g.replace_objectives:
                    st.reveal_objective(slot)
                self.claims += 1
                if self.claims >= g.claims_per_turn:
                    self.phase = DONE
        else:  # CHOOSE
            st.offered[me].remove(move.a)
            st.contracts[me].append(move.a)
            if len(st.contracts[me]) >= g.contracts_kept:
                st.contract_box.extend(st.offered[me])
                st.offered[me] = []
                self.phase = DONE
        if self.on_move is not None:
            self.on_move(self)

    def _take(self, d: int, p: int, free: bool) -> None:
        g, st, me = self.game, self.state, self.seat
        card = st.lines[d][p]
        if not free:
            cost = g.costs[p]
            st.currency[me] -= cost
            st.box[g.currency_kind] += cost
        st.remove_from_market(g, d, p)
        role = g.kinds[card].role
        if role == WAGON:
            st.wagons[me][card] += 1
        elif role == CURRENCY:
            st.currency[me] += 1
        elif role == CHARACTER:
            st.pending.append(card)
        self._settle()

    def _settle(self) -> None:
        """Lose pending characters that cannot act; set the phase to ``resolve`` or ``claim``."""
        st = self.state
        while st.pending:
            self._legal = None
            if self._resolve_moves():
                self.phase = RESOLVE
                return
            st.box[st.pending.pop()] += 1
            self.lost += 1
        self._legal = None
        self.phase = CLAIM if self.game.claims_per_turn > 0 else DONE

    def _why(self, move: Move) -> str:
        ph = self.phase
        if ph == DONE:
            return "the turn is over"
        if ph == TAKE and move.op != "take":
            return "a card must be taken first" if self._take_moves(False) else "nothing can be taken"
        if ph == TAKE:
            st = self.state
            ok = 0 <= move.a < len(st.lines) and 0 <= move.b < len(self.game.costs)
            if not ok or st.lines[move.a][move.b] < 0:
                return "no card at that place"
            return f"that place costs {self.game.costs[move.b]}, the player has {st.currency[self.seat]}"
        if ph == RESOLVE:
            return f"the character being resolved does not allow {move.op!r} with those arguments"
        if ph == CLAIM and move.op == "claim":
            return "no face-up objective there, or the wagons do not suffice"
        return f"{move.op!r} is not possible in the {ph} phase"

    def end(self) -> None:
        """Finish the turn (the claim is optional; a choice keeps the first contracts offered).

        Raises:
            IllegalMove: a card must still be taken, or a character must still act.
        """
        if self.phase == TAKE:
            raise IllegalMove("a card must be taken before the turn ends")
        if self.phase == RESOLVE:
            raise IllegalMove("the character taken must act before the turn ends")
        if self.phase == CHOOSE:
            while self.phase == CHOOSE:
                self.apply(Move("choose", self.state.offered[self.seat][0]))
        self.phase = DONE


# ------------------------------------------------------------------ the game loop
def final_points(g: MarketGame, st: MarketState) -> list[dict[str, int]]:
    """Per seat: ``objective_points``, ``contract_points``, ``currency``, ``tokens``, ``objectives``, ``total``.

    Rule implemented: ``end.score`` (objective points + contract points + points
    per currency card (+ per token)).
    """
    out = []
    for s in range(st.players):
        obj = sum(g.objectives[o].points for o in st.claimed[s])
        counts = st.icon_counts(g, s)
        con = sum(pattern_points(g.contracts[c].terms, counts, g.exclusive_icons) for c in st.contracts[s])
        tok = sum(st.tokens[s])
        total = ((obj if g.score_objectives else 0) + (con if g.score_contracts else 0)
                 + g.per_currency * st.currency[s] + g.per_token * tok)
        out.append({"objective_points": obj, "contract_points": con, "currency": st.currency[s], "tokens": tok,
                    "objectives": len(st.claimed[s]), "total": total})
    return out


def winners_of(g: MarketGame, points: list[dict[str, int]]) -> tuple[int, ...]:
    """The winning seats: highest total, then the tie-breakers in order; a remaining tie is shared."""
    seats = list(range(len(points)))
    for key in ("total", *g.tie_breakers):
        best = max(points[s][key] for s in seats)
        seats = [s for s in seats if points[s][key] == best]
        if len(seats) == 1:
            break
    return tuple(seats)


@dataclass
class MarketPlay:
    """The turn sequence of one game: whose turn, the end trigger and final round, the stall guard.

    Used by :func:`play_market_game` and by the example runner, so both follow the same rules.
    """

    game: MarketGame
    state: MarketState
    seat: int = 0
    turns: int = 0
    trigger_seat: int | None = None
    remaining: int | None = None
    idle: int = 0
    ended: bool = False
    reason: str = TURN_LIMIT
    passes: list[int] = field(default_factory=list)
    char_plays: Counter = field(default_factory=Counter)
    lost: int = 0

    def __post_init__(self) -> None:
        if not self.passes:
            self.passes = [0] * self.state.players

    def new_turn(self) -> MarketTurn:
        """The next turn (of :attr:`seat`)."""
        self.turns += 1
        return MarketTurn(self.game, self.state, self.seat)

    def finish_turn(self, turn: MarketTurn) -> bool:
        """Close ``turn`` (ending it if the bot left it open), apply the end rules, move to the next seat.

        Returns:
            True when the game is over (:attr:`reason` says why).

        Raises:
            IllegalMove: the turn cannot end yet (a card or a character is due).
        """
        if turn.phase != DONE:
            turn.end()
        g, n, s = self.game, self.state.players, self.seat
        for char in turn.resolved:
            self.char_plays[(s, g.kinds[char].key)] += 1
        self.lost += turn.lost
        if not turn.took:
            self.passes[s] += 1
        self.idle = 0 if (turn.took or turn.claims) else self.idle + 1
        if self.trigger_seat is not None:
            self.remaining -= 1
        elif len(self.state.claimed[s]) >= g.trigger:
            self.trigger_seat = s
            if g.final_round == "others":
                self.remaining = n - 1
            elif g.final_round == "complete_round":
                self.remaining = (g.first_seat - 1 - s) % n
            else:
                self.remaining = 0
        if self.remaining is not None and self.remaining <= 0:
            self.ended, self.reason = True, WON
        elif g.stall_round and self.idle >= n:
            self.ended, self.reason = True, STALEMATE
        self.seat = (s + 1) % n
        return self.ended


def play_market_game(game: MarketGame, bots: list, seed: int, *, check: bool = False,
                     log: bool = False) -> GameResult:
    """Play one game of a market rule set from setup to the final score.

    Rule implemented: setup (contracts dealt and chosen by the bots, then the market
    and objectives laid out), turns in seat order from ``first_seat``, the end
    trigger and its final round, the stall guard, the turn limit; then the final
    score (:func:`final_points`) and winners (:func:`winners_of`).

    Args:
        game: compiled market rules.
        bots: one bot per seat (see :mod:`kbsim.bots.market`).
        seed: the game's seed; the deal and every bot's choices follow from it.
        check: verify conservation of every card and token after every move.
        log: keep the move log (``(seat, [moves])``; the contract choices come first).

    Returns:
        A :class:`~kbsim.engine.game.GameResult`: ``scores`` holds each seat's final
        points; ``winners`` is empty at the turn limit; ``cards_left`` counts the
        market cards (wagons and currency) each seat holds at the end,
        ``cards_laid`` the wagons it spent on objectives, ``passes`` its turns
        without a card; exchanges, rebuilds and minus cards are zeros.

    Raises:
        ValueError: player count outside the rules' range.
        InvariantError: with ``check``, when an invariant breaks (an engine bug).
        IllegalMove: a bot tried an illegal move or left a turn unfinishable (a bot bug).
    """
    n = len(bots)
    if not game.min_players <= n <= game.max_players:
        raise ValueError(f"{game.game} is played by {game.min_players}-{game.max_players} players, not {n}")
    rng = random.Random(seed)
    st = new_state(game, n, rng)
    for s, bot in enumerate(bots):
        bot.new_game(game, s, n, bot_seed(seed, s))
    moves_log: list | None = [] if log else None

    def verify(_t: MarketTurn) -> None:
        check_state(game, st, n)

    if check:
        verify(None)
    for s, bot in enumerate(bots):
        t = MarketTurn(game, st, s, phase=CHOOSE)
        if log:
            t.log = []
        if check:
            t.on_move = verify
        bot.play_turn(t)
        if t.phase != DONE:
            t.end()
        if log:
            moves_log.append((s, t.log))
    play = MarketPlay(game, st, seat=game.first_seat % n)
    while play.turns < game.turn_limit:
        seat = play.seat
        t = play.new_turn()
        if log:
            t.log = []
        if check:
            t.on_move = verify
        bots[seat].play_turn(t)
        if log:
            moves_log.append((seat, t.log))
        if play.finish_turn(t):
            break
    if check:
        verify(None)
    points = final_points(game, st)
    winners = winners_of(game, points) if play.ended else ()
    spent = [0] * n
    for s in range(n):
        spent[s] = sum(sum(k for _, k in game.objectives[o].needs) for o in st.claimed[s])
    held = [sum(st.wagons[s]) + st.currency[s] for s in range(n)]
    zeros = [0] * n
    return GameResult(winners=winners, end_reason=play.reason, turns=play.turns, cards_left=held,
                      cards_laid=spent, exchanges=list(zeros), passes=play.passes, rebuilds=list(zeros),
                      rows_completed=0, minus_cards=list(zeros), character_plays=dict(play.char_plays),
                      scores=[p["total"] for p in points], hands=1, hand_ends=[play.reason], log=moves_log)


def replay_market_log(game: MarketGame, players: int, seed: int, log: list) -> list[dict[str, Any]]:
    """Replay a logged game from its seed and describe every turn.

    Args:
        game: compiled market rules.
        players: seats.
        seed: the game's seed (the deal is rebuilt from it).
        log: :attr:`GameResult.log` of that game (the contract choices first, one entry per seat).

    Returns:
        One dict per log entry: ``turn`` (0 for a contract choice), ``seat``, ``moves`` (notation) and
        ``market`` (the face-up lines after the entry).

    Raises:
        IllegalMove: the log does not fit the deal (another seed or other rules).
    """
    st = new_state(game, players, random.Random(seed))
    out = []
    for i, (seat, moves) in enumerate(log):
        choosing = i < players
        t = MarketTurn(game, st, seat, phase=CHOOSE if choosing else TAKE)
        for mv in moves:
            t.apply(mv)
        out.append({"turn": 0 if choosing else i - players + 1, "seat": seat,
                    "moves": [format_market_move(m, game) for m in moves],
                    "market": [" ".join(game.card_text(c) for c in line) for line in st.lines]})
    return out


# ------------------------------------------------------------------ notation
class MarketNotationError(ValueError):
    """A move or card written in a way the market notation does not accept."""


def parse_market_move(text: str, g: MarketGame) -> Move:
    """Parse a move of the market notation.

    Forms: ``take D P`` (deck line D, place P, both from 1), ``claim N`` (face-up
    objective N from 1, or an objective id), ``end``, ``choose CONTRACT``,
    ``steal SEAT``, ``swap MYWAGON SEAT THEIRWAGON``, ``token COMPANY``; seats from 0.

    Raises:
        MarketNotationError: unknown form or name.
    """
    parts = text.split()
    if not parts:
        raise MarketNotationError("empty move")
    op, args = parts[0].lower(), parts[1:]
    try:
        if op == "take" and len(args) == 2:
            return Move("take", int(args[0]) - 1, int(args[1]) - 1)
        if op == "claim" and len(args) == 1:
            return Move("claim", int(args[0]) - 1) if args[0].isdigit() else Move("claim", -2, g.objective_index(
                args[0]))
        if op == "end" and not args:
            return END
        if op == "choose" and len(args) == 1:
            return Move("choose", g.contract_index(args[0]))
        if op == "steal" and len(args) == 1:
            return Move("steal", int(args[0]))
        if op == "swap" and len(args) == 3:
            return Move("swap", g.kind_index(args[0]), int(args[1]), g.kind_index(args[2]))
        if op == "token" and len(args) == 1:
            return Move("token", g.company_index(args[0]))
    except (KeyError, ValueError) as e:
        raise MarketNotationError(f"{text!r}: unknown name or number {e}") from None
    raise MarketNotationError(f"{text!r}: expected take D P, claim N, end, choose ID, steal SEAT, "
                              f"swap WAGON SEAT WAGON or token COMPANY")


def format_market_move(move: Move, g: MarketGame) -> str:
    """A move in the market notation (inverse of :func:`parse_market_move`)."""
    op = move.op
    if op == "take":
        return f"take {move.a + 1} {move.b + 1}"
    if op == "claim":
        return f"claim {move.a + 1}"
    if op == "choose":
        return f"choose {g.contracts[move.a].key}"
    if op == "steal":
        return f"steal {move.a}"
    if op == "swap":
        return f"swap {g.kinds[move.a].key} {move.b} {g.kinds[move.c].key}"
    if op == "token":
        return f"token {g.companies[move.a]}"
    return op


# ------------------------------------------------------------------ examples
def _cards(g: MarketGame, text: str, what: str) -> list[int]:
    out = []
    for word in text.split():
        if word == "-":
            out.append(GAP)
            continue
        try:
            out.append(g.kind_index(word))
        except KeyError:
            raise MarketNotationError(f"{what}: unknown card {word!r}; expected one of "
                                      f"{', '.join(k.key for k in g.kinds)}") from None
    return out


def _example_state(g: MarketGame, ex: Any) -> MarketState:
    s = ex.state
    players = len(s.players)
    st = MarketState(g, players)
    if len(s.market) != g.n_decks:
        raise MarketNotationError(f"state.market: {len(s.market)} lines given, the rules have {g.n_decks} decks")
    for d, text in enumerate(s.market):
        line = _cards(g, text, f"state.market.{d}")
        if len(line) > len(g.costs):
            raise MarketNotationError(f"state.market.{d}: {len(line)} cards, a line has {len(g.costs)} places")
        st.lines[d] = line + [GAP] * (len(g.costs) - len(line))
    for d, text in enumerate(s.decks):
        if d >= g.n_decks:
            raise MarketNotationError(f"state.decks: {len(s.decks)} decks given, the rules have {g.n_decks}")
        st.decks[d] = _cards(g, text, f"state.decks.{d}")[::-1]
    try:
        vis = [GAP if o == "-" else g.objective_index(o) for o in s.objectives]
        st.obj_deck = [g.objective_index(o) for o in s.objective_deck][::-1]
        for k, p in enumerate(s.players):
            for c in _cards(g, p.wagons, f"state.players.{k}.wagons"):
                if c < 0 or g.kinds[c].role != WAGON:
                    raise MarketNotationError(f"state.players.{k}.wagons: {g.card_text(c)!r} is not a wagon")
                st.wagons[k][c] += 1
            st.currency[k] = p.currency
            for t in p.tokens.split():
                c = g.company_index(t)
                st.tokens[k][c] += 1
                st.supply[c] -= 1
            st.claimed[k] = [g.objective_index(o) for o in p.objectives]
            st.contracts[k] = [g.contract_index(c) for c in p.contracts]
    except (KeyError, ValueError) as e:
        raise MarketNotationError(f"state: unknown objective, contract or company {e}") from None
    if len(vis) > g.visible_objectives:
        raise MarketNotationError(f"state.objectives: {len(vis)} given, {g.visible_objectives} are face up")
    st.obj_visible = vis + [GAP] * (g.visible_objectives - len(vis))
    if min(st.supply) < 0:
        raise MarketNotationError("state: more tokens held than the card table has")
    return st


def run_market_example(loaded: LoadedRules, ex: Any) -> tuple[bool, str]:
    """Run one market example (its options already applied in ``loaded``).

    The example plays on the rule file's ``example_cards`` (else its card table).
    Moves are played in order; ``end`` closes the turn and the next seat plays;
    the final score is computed on the table after the moves (whether or not the
    game ended).

    Returns:
        ``(ok, message)``; the message lists what differed.
    """
    from kbsim.engine.examples import illegal_problems  # (examples imports this module lazily)

    m = loaded.model
    g = compile_market(loaded, m.example_cards)
    try:
        st = _example_state(g, ex)
    except MarketNotationError as e:
        return False, f"board: {e}"
    n = st.players
    play = MarketPlay(g, st, seat=ex.state.seat % n)
    if ex.state.trigger_seat is not None:
        play.trigger_seat = ex.state.trigger_seat
        play.remaining = (ex.state.trigger_seat - play.seat) % n
    turn: MarketTurn | None = play.new_turn()
    illegal = None
    for i, text in enumerate(ex.moves, start=1):
        try:
            mv = parse_market_move(text, g)
            if turn is None:
                raise IllegalMove("the game is over")
            if mv.op == "claim" and mv.a == -2:
                slots = [k for k, o in enumerate(st.obj_visible) if o == mv.b]
                mv = Move("claim", slots[0] if slots else len(st.obj_visible))
            if mv.op == "end" and turn.phase in (CLAIM, DONE):
                turn = None if play.finish_turn(turn) else play.new_turn()
                continue
            turn.apply(mv)
        except MarketNotationError as e:
            return False, f"move {i}: {e}"
        except IllegalMove as e:
            illegal = (i, str(e))
            break
    lost = play.lost + (turn.lost if turn is not None else 0)
    want = ex.expect
    problems = []
    problems.extend(illegal_problems(want.illegal, illegal, ex.moves))

    def line_text(cards: list[int]) -> str:
        return " ".join(g.card_text(c) for c in cards)

    def same(a: str, b: str) -> bool:
        return a.split() == b.split()

    if want.market is not None:
        got = [line_text(x) for x in st.lines]
        if len(got) != len(want.market) or not all(same(a, b) for a, b in zip(got, want.market, strict=False)):
            problems.append(f"market {got} != expected {want.market}")
    if want.decks is not None:
        got = [line_text(d[::-1]) for d in st.decks]
        if len(got) != len(want.decks) or not all(same(a, b) for a, b in zip(got, want.decks, strict=False)):
            problems.append(f"decks (top first) {got} != expected {want.decks}")
    if want.objectives is not None:
        got = ["-" if o == GAP else g.objectives[o].key for o in st.obj_visible]
        if got != want.objectives:
            problems.append(f"face-up objectives {got} != expected {want.objectives}")
    if want.objective_deck is not None:
        got = [g.objectives[o].key for o in st.obj_deck[::-1]]
        if got != want.objective_deck:
            problems.append(f"objective deck (top first) {got} != expected {want.objective_deck}")
    if want.players is not None:
        for k, pw in enumerate(want.players):
            if k >= n:
                problems.append(f"players.{k}: the example has {n} players")
                continue
            if pw.wagons is not None:
                got = sorted(g.kinds[c].key for c in g.wagon_kinds for _ in range(st.wagons[k][c]))
                if got != sorted(pw.wagons.split()):
                    problems.append(f"seat {k} wagons {' '.join(got) or '(none)'} != expected {pw.wagons or '(none)'}")
            if pw.currency is not None and st.currency[k] != pw.currency:
                problems.append(f"seat {k} currency {st.currency[k]} != expected {pw.currency}")
            if pw.tokens is not None:
                got = sorted(g.companies[c] for c, x in enumerate(st.tokens[k]) for _ in range(x))
                if got != sorted(pw.tokens.split()):
                    problems.append(f"seat {k} tokens {got} != expected {pw.tokens}")
            if pw.objectives is not None:
                got = [g.objectives[o].key for o in st.claimed[k]]
                if got != pw.objectives:
                    problems.append(f"seat {k} objectives {got} != expected {pw.objectives}")
    if want.box is not None:
        got = sorted(g.kinds[c].key for c, x in enumerate(st.box) for _ in range(x))
        if got != sorted(want.box.split()):
            problems.append(f"box {' '.join(got) or '(empty)'} != expected {want.box}")
    if want.characters_lost is not None and lost != want.characters_lost:
        problems.append(f"{lost} characters lost, expected {want.characters_lost}")
    if want.seat is not None and play.seat != want.seat:
        problems.append(f"seat {play.seat} to play, expected {want.seat}")
    if want.ended is not None and play.ended != want.ended:
        problems.append(f"game ended is {play.ended}, expected {want.ended}")
    points = final_points(g, st)
    for key in ("objective_points", "contract_points"):
        exp = getattr(want, key)
        got = [p[key] for p in points]
        if exp is not None and got != exp:
            problems.append(f"{key.replace('_', ' ')} {got} != expected {exp}")
    if want.scores is not None and [p["total"] for p in points] != want.scores:
        problems.append(f"scores {[p['total'] for p in points]} != expected {want.scores}")
    if want.winners is not None and list(winners_of(g, points)) != want.winners:
        problems.append(f"winners {list(winners_of(g, points))} != expected {want.winners}")
    return not problems, "; ".join(problems)


def run_market_examples(loaded: LoadedRules, examples: list | None = None) -> list:
    """Run the examples of a market rule file (default: its own) and return one result per example.

    Args:
        loaded: the rule file, loaded (its variants are applied to every example too).
        examples: :class:`~kbsim.rules.market_schema.MarketExample` objects to run instead of the file's own.

    Returns:
        A list of :class:`kbsim.engine.examples.ExampleResult`.
    """
    from kbsim.engine.examples import ExampleResult
    from kbsim.rules.loader import RulesError, load_rules

    src = str(loaded.source)
    out = []
    for ex in (loaded.model.examples if examples is None else examples):
        try:
            lr = load_rules(src, loaded.variants, ex.options) if ex.options else loaded
        except RulesError as e:
            out.append(ExampleResult(src, ex.name, False, f"options: {e}"))
            continue
        ok, msg = run_market_example(lr, ex)
        out.append(ExampleResult(src, ex.name, ok, msg))
    return out


__all__ = ["CHARACTER", "CHOOSE", "CLAIM", "CURRENCY", "DONE", "END", "EVENT", "GAP", "HIDDEN", "RESOLVE", "TAKE",
           "TAKE_CURRENCY", "TAKE_FREE", "TAKE_TOKEN", "SWAP_WAGONS", "WAGON", "Contract", "Kind", "MarketGame",
           "MarketNotationError", "MarketPlay", "MarketState", "MarketTurn", "Move", "Objective", "Pattern",
           "check_state", "claim_cost", "compile_market", "final_points", "format_market_move", "new_state",
           "parse_market_move", "pattern_points", "play_market_game", "replay_market_log", "run_market_example",
           "run_market_examples", "winners_of"]
