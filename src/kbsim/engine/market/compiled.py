"""Compiled market rules: card kinds, objectives, contracts and the :class:`MarketGame` compiler."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbsim.rules.loader import LoadedRules, RulesError
from kbsim.rules.market_schema import MarketRuleFile

GAP = -1
HIDDEN = -2

WAGON, CURRENCY, CHARACTER, EVENT = 0, 1, 2, 3
ROLE_NAMES = ("wagon", "currency", "character", "event")
# the character powers' names (rule files' ``effect.op``); what each does is in kbsim.engine.market.powers
TAKE_FREE, TAKE_CURRENCY, SWAP_WAGONS, TAKE_TOKEN = "take_free", "take_currency", "swap_wagons", "take_token"
OPS = (TAKE_FREE, TAKE_CURRENCY, SWAP_WAGONS, TAKE_TOKEN)


# ------------------------------------------------------------------ compiled rules
@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of market card.

    Attributes:
        key, name: from the rule file / card table.
        role: ``WAGON``, ``CURRENCY``, ``CHARACTER`` or ``EVENT``.
        count: copies in the game.
        wild: a wagon kind that stands for any wagon when claiming.
        op: the power of a character (its rule file's ``effect.op``, a key of
            :data:`kbsim.engine.market.powers.POWERS`), else "".
        reset: what an event resets (``objectives`` or ``market``), else "".
        to: where an event sends the cleared cards (``deck_bottom`` or ``box``).
    """

    key: str
    name: str
    role: int
    count: int
    wild: bool = False
    op: str = ""
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
        n_decks, costs, slide, setup_reshuffle: the market (:meth:`price` reads ``costs``).
        places: face-up places in each deck's line.
        price_by_deck: ``costs[d]`` is the cost of every place of deck ``d``'s line (``market.prices: by_deck``);
            else ``costs[p]`` is the cost of place ``p`` of every line.
        objectives, visible_objectives, replace_objectives: objective cards and their face-up line.
        claims_per_turn, take_mandatory: the turn.
        character_first: a taken character acts before its line slides and refills (else after).
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
    character_first: bool = True
    places: int = 0  # face-up places per line (0: one per listed cost)
    price_by_deck: bool = False
    option_at: tuple[tuple[str, str], ...] = ()  # (rule-file path, option name): to name options in refusals
    family: str = "market"
    score: None = None  # no team score (the rows family's solo score)

    @property
    def n_places(self) -> int:
        """Face-up places in each deck's line."""
        return self.places or len(self.costs)

    def price(self, deck: int, place: int) -> int:
        """The cost in currency of the card at ``place`` of ``deck``'s line (both 0-based; rule file, ``market``).

        By place (the default reading of "first/second/third row"): ``costs[place]``; by deck
        (``market.prices: by_deck``): ``costs[deck]``.
        """
        return self.costs[deck] if self.price_by_deck else self.costs[place]

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

    Raises:
        RulesError: the rules are not of the market family, or there is no card table.
    """
    m = loaded.model
    if not isinstance(m, MarketRuleFile):
        raise RulesError(f"{loaded.source}: a rule file of the {m.family!r} family, not of the market family")
    table = table if table is not None else m.cards
    if table is None:
        raise RulesError(f"{loaded.source}: no card table (cards or card_table)")
    kinds: list[Kind] = []
    wild = set(m.turn.claim.wild)
    for w in table.wagons:
        kinds.append(Kind(w.key, w.name, WAGON, w.count, wild=w.key in wild))
    n_wagons = len(kinds)
    kinds.append(Kind(m.currency.key, m.currency.name, CURRENCY, m.currency.cards))
    for key, ch in m.characters.items():
        kinds.append(Kind(key, ch.name, CHARACTER, table.characters.get(key, 0), op=ch.effect.op))
    for key, ev in m.events.items():
        kinds.append(Kind(key, ev.name, EVENT, ev.count, reset=ev.effect.reset, to=ev.effect.to))
    index = {k.key: i for i, k in enumerate(kinds)}
    companies = tuple(c.key for c in table.companies)
    objectives = tuple(
        Objective(
            o.id, o.name or o.id, tuple((index[k], n) for k, n in o.needs.items()), o.points, companies.index(o.company)
        )
        for o in table.objectives
    )
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
        game=m.game,
        title=m.title,
        variant=loaded.variant_label,
        options=dict(loaded.options),
        min_players=m.players.min,
        max_players=m.players.max,
        turn_limit=end.turn_limit.turns,
        kinds=tuple(kinds),
        wagon_kinds=tuple(range(n_wagons)),
        wild_kinds=tuple(i for i in range(n_wagons) if kinds[i].wild),
        currency_kind=n_wagons,
        n_decks=m.market.decks,
        costs=tuple(m.market.costs),
        slide=m.market.refill == "slide",
        setup_reshuffle=m.market.setup_events == "reshuffle",
        objectives=objectives,
        visible_objectives=m.objectives.visible,
        replace_objectives=m.objectives.replace,
        claims_per_turn=m.turn.claim.per_turn,
        take_mandatory=m.turn.take.mandatory,
        contracts=tuple(contracts),
        contracts_dealt=m.contracts.dealt,
        contracts_kept=m.contracts.keep,
        icons_from_objectives="objectives" in m.contracts.icon_sources,
        icons_from_tokens="tokens" in m.contracts.icon_sources,
        exclusive_icons=m.contracts.icon_use == "exclusive",
        companies=companies,
        company_names=tuple(c.name for c in table.companies),
        tokens=tuple(c.tokens for c in table.companies),
        start_currency=m.currency.start,
        trigger=end.trigger.objectives,
        final_round=end.trigger.final_round,
        score_objectives=end.score.objective_points,
        score_contracts=end.score.contracts,
        per_currency=end.score.per_currency,
        per_token=end.score.per_token,
        tie_breakers=tuple(end.score.tie_breakers),
        stall_round=end.stall.idle_round,
        provisional=m.provisional,
        first_seat=m.setup.first_seat,
        character_first=m.turn.take.character_acts == "before_refill",
        places=m.market.line_places,
        price_by_deck=m.market.prices == "by_deck",
        option_at=tuple((o.path, name) for name, o in m.options.items()),
    )
