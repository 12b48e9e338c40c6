"""The rules language of the ``market`` family: a card market and set collection.

A market rule file (``family: market``) declares, as data, games in which the
players buy cards from a market of face-up rows, spend them to claim
objective cards, and score patterns of icons at the end. The published rules
live in the rule file; the card list (which may not be published) lives in a
separate **card table** named by ``card_table`` (a path relative to the rule
file), validated with :class:`CardTable` when the rule file is loaded. A table
that carries a ``provisional`` reason makes the whole rule set provisional:
:meth:`MarketRuleFile.sections` opens with a "Provisional data" section and the
reference page shows a warning box.

Generic primitives declared here (nothing names a particular game):

* market rows: ``decks`` face-down decks, each with a line of face-up places
  whose cost (in currency cards) is ``costs[place]``; a taken card's line slides
  forward and its deck refills the last place (or refills in place); an empty
  deck leaves gaps;
* currency cards kept face up and spent to the box;
* objectives consuming matching wagons, with wild wagon kinds;
* characters taken from the market and resolved at once (composition of a few
  effect operations), lost when impossible;
* events resolved when revealed (reset the objective line or the market);
* contracts scored by icon patterns (:class:`PatternSpec`);
* an end trigger with a final round, final score and tie-breakers.

The engine side is :mod:`kbsim.engine.market`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, ValidationInfo, field_validator, model_validator

from kbsim.rules.files import RulesError, display_path, format_validation, item_path, read_document, shipped_dir
from kbsim.rules.schema import (
    MAX_POINTS,
    MAX_TURNS,
    Clarification,
    Language,
    Option,
    Players,
    Strict,
    Summary,
    Variant,
    check_option_references,
)
from kbsim.strict_io import InputFileError, check_regular_file

Key = Field(pattern=r"^[a-z][a-z0-9-]*$", description="Identifier (lower case, digits, `-`).")
#: What gives a player icons for contracts.
IconSource = Literal["objectives", "tokens"]
#: What breaks a tie in points, in the order given.
TieBreaker = Literal["objective_points", "currency", "objectives", "contract_points"]


# ------------------------------------------------------------------ the card table (a separate file)
class WagonKind(Strict):
    """A kind of wagon card and how many copies the box holds."""

    key: str = Key
    name: str
    count: int = Field(ge=0, le=200, description="Copies in the box.")


class Company(Strict):
    """A company: the colour of objective icons and of company tokens."""

    key: str = Key
    name: str
    tokens: int = Field(ge=0, le=100, description="Company tokens of this colour in the box.")


class ObjectiveCard(Strict):
    """An objective (long card): the wagons it needs, its points and its company icon."""

    id: str = Key
    name: str = ""
    needs: dict[str, int] = Field(description="Wagon kind key -> number of wagons needed.")
    points: int = Field(ge=0, le=100)
    company: str = Field(description="Key of the company whose icon the card shows.")

    @field_validator("needs")
    @classmethod
    def _needs(cls, v: dict[str, int]) -> dict[str, int]:
        if not v:
            raise ValueError("an objective needs at least one wagon")
        bad = {k: n for k, n in v.items() if n < 1}
        if bad:
            raise ValueError(f"counts must be at least 1, got {bad}")
        return v


class ContractTerm(Strict):
    """One scoring term of a contract: a pattern of the rule file, and its colour when the pattern asks for one."""

    pattern: str = Field(description="Key of a pattern under `contracts.patterns` in the rule file.")
    colour: str | None = Field(None, description="Company key, for patterns whose `colour` is `contract`.")


class ContractCard(Strict):
    """A contract (long card): the pattern terms it scores."""

    id: str = Key
    name: str = ""
    terms: list[ContractTerm] = Field(min_length=1)


class CardTable(Strict):
    """The card list of a market game: wagon kinds, character split, companies, objectives, contracts.

    Kept apart from the rule file so that a provisional list can be replaced by
    the real one without touching the rules.
    """

    summary: str = Summary
    provisional: str | None = Field(
        None, description="Why this table is not the published card list (leave out for the real list)."
    )
    wagons: list[WagonKind] = Field(min_length=1)
    characters: dict[str, int] = Field(
        default_factory=dict, description="Character key (from the rule file) -> copies."
    )
    companies: list[Company] = Field(min_length=1)
    objectives: list[ObjectiveCard] = Field(min_length=1)
    contracts: list[ContractCard] = Field(min_length=1)

    @model_validator(mode="after")
    def _references(self) -> CardTable:
        for what, keys in (
            ("wagons", [w.key for w in self.wagons]),
            ("companies", [c.key for c in self.companies]),
            ("objectives", [o.id for o in self.objectives]),
            ("contracts", [c.id for c in self.contracts]),
        ):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            if dup:
                raise ValueError(f"{what}: duplicate keys {dup}")
        wagons = {w.key for w in self.wagons}
        companies = {c.key for c in self.companies}
        for i, o in enumerate(self.objectives):
            where = item_path("objectives", i, o.name or o.id)
            unknown = sorted(set(o.needs) - wagons)
            if unknown:
                raise ValueError(f"{where}.needs: unknown wagon kinds {unknown}; expected some of {sorted(wagons)}")
            if o.company not in companies:
                raise ValueError(f"{where}.company: unknown company {o.company!r}; expected one of {sorted(companies)}")
        for i, c in enumerate(self.contracts):
            for j, t in enumerate(c.terms):
                term = f"{item_path('contracts', i, c.name or c.id)}.{item_path('terms', j)}"
                if t.colour is not None and t.colour not in companies:
                    raise ValueError(
                        f"{term}.colour: unknown company {t.colour!r}; expected one of {sorted(companies)}"
                    )
        for k, n in self.characters.items():
            if n < 0:
                raise ValueError(f"characters.{k}: a count must be >= 0, got {n}")
        return self

    def totals(self) -> dict[str, int]:
        """Counts of the table: wagons, characters, objectives, contracts, tokens."""
        return {
            "wagons": sum(w.count for w in self.wagons),
            "characters": sum(self.characters.values()),
            "objectives": len(self.objectives),
            "contracts": len(self.contracts),
            "tokens": sum(c.tokens for c in self.companies),
        }


# ------------------------------------------------------------------ the rule file
class Currency(Strict):
    """Currency cards (one unit each): taken from the market, kept face up, spent to pay market costs."""

    summary: str = Summary
    key: str = Key
    name: str
    cards: int = Field(ge=0, le=200, description="Currency cards in the box.")
    start: int = Field(0, ge=0, le=200, description="Currency each player starts with (taken from the box's supply).")
    spent_to: Literal["box"] = Field("box", description="Where spent currency cards go (out of the game).")


class ResetEffect(Strict):
    """An event effect: clear a part of the table and lay it out again."""

    reset: Literal["objectives", "market"] = Field(
        description="`objectives`: the face-up objectives; `market`: every face-up card of the market."
    )
    to: Literal["deck_bottom", "box"] = Field(
        description="Where the cleared cards go: under their deck, or out of the game (the box)."
    )


class EventSpec(Strict):
    """An event card among the market cards: resolved as soon as it is revealed, then put in the box."""

    name: str
    summary: str = Summary
    count: int = Field(1, ge=0, le=20, description="Copies among the market cards.")
    effect: ResetEffect


class CharacterEffect(Strict):
    """What a character does when taken (it then goes to the box; an impossible effect is lost)."""

    op: Literal["take_free", "take_currency", "swap_wagons", "take_token"] = Field(
        description="`take_free`: take any face-up market card without paying; `take_currency`: take all the "
        "currency of another player who has some; `swap_wagons`: swap one of your wagons with one wagon of "
        "another player; `take_token`: take a company token of your choice from the supply."
    )


class CharacterSpec(Strict):
    """A character kind (its copies are counted in the card table)."""

    name: str
    summary: str = Summary
    effect: CharacterEffect


class Market(Strict):
    """The market: face-down decks, each with a line of face-up places; a place's cost depends on its rank."""

    summary: str = Summary
    decks: int = Field(3, ge=1, le=10, description="Face-down decks the market cards are split into.")
    costs: list[int] = Field(
        description="Cost in currency of a face-up card: with `prices: by_place`, of each place of every line, "
        "from the deck's first (cheapest) place on; with `prices: by_deck`, of every place of each deck's line, "
        "in deck order.",
        min_length=1,
        max_length=10,
    )
    prices: Literal["by_place", "by_deck"] = Field(
        "by_place",
        description="What a card's cost depends on: its place in its deck's line (`by_place`: the first place "
        "of every line costs `costs[0]`), or its deck (`by_deck`: every card of deck `d`'s line costs `costs[d]`).",
    )
    places: int | None = Field(
        None,
        ge=1,
        le=10,
        description="Face-up places in each deck's line (default: as many as `costs` lists).",
    )
    refill: Literal["slide", "in_place"] = Field(
        "slide",
        description="`slide`: the cards behind a taken card move forward and the deck fills the last "
        "place; `in_place`: the deck fills the place that was emptied.",
    )
    empty_deck: Literal["gaps"] = Field("gaps", description="A deck that runs out leaves its places empty.")
    setup_events: Literal["reshuffle", "box"] = Field(
        "reshuffle",
        description="An event revealed while laying out the market at setup: shuffled back into its "
        "deck (`reshuffle`) or put in the box unresolved (`box`); either way another card is revealed.",
    )

    @field_validator("costs")
    @classmethod
    def _costs(cls, v: list[int]) -> list[int]:
        if any(c < 0 for c in v):
            raise ValueError("costs must be >= 0")
        return v

    @model_validator(mode="after")
    def _priced(self) -> Market:
        if self.prices == "by_deck" and len(self.costs) != self.decks:
            raise ValueError(
                f"prices by_deck: costs lists one cost per deck ({self.decks} decks), got {len(self.costs)}"
            )
        if self.prices == "by_place" and self.places is not None and self.places != len(self.costs):
            raise ValueError(f"prices by_place: costs lists one cost per place ({self.places}), got {len(self.costs)}")
        return self

    @property
    def line_places(self) -> int:
        """Face-up places in each deck's line (``places``, or one per listed cost)."""
        return self.places if self.places is not None else len(self.costs)


class Objectives(Strict):
    """The face-up line of objectives."""

    summary: str = Summary
    visible: int = Field(3, ge=1, le=10, description="Face-up objectives.")
    replace: bool = Field(True, description="A claimed objective is replaced from the objective deck.")


class PatternSpec(Strict):
    """A pattern of icons a contract term scores.

    An occurrence is ``len(groups)`` groups of icons; group ``i`` holds
    ``groups[i]`` icons of one colour. With ``distinct`` the groups are of
    pairwise different colours. ``colour: contract`` means the single group must
    be of the colour the contract names. Occurrences never share an icon; with
    ``repeat`` every occurrence scores ``points``, else at most one does.
    """

    summary: str = Summary
    groups: list[int] = Field(min_length=1, max_length=8, description="Icons per group.")
    distinct: bool = Field(True, description="The groups are of pairwise different colours.")
    colour: Literal["any", "contract"] = Field(
        "any", description="`contract`: a single group of the colour the contract names."
    )
    points: int = Field(ge=-MAX_POINTS, le=MAX_POINTS, description="Points per occurrence.")
    repeat: bool = Field(True, description="Every disjoint occurrence scores (false: once at most).")

    @model_validator(mode="after")
    def _shape(self) -> PatternSpec:
        if any(g < 1 for g in self.groups):
            raise ValueError("groups: every group holds at least 1 icon")
        if self.colour == "contract" and len(self.groups) != 1:
            raise ValueError("colour: `contract` needs exactly one group")
        return self


class Contracts(Strict):
    """Secret scoring cards: each player is dealt some and keeps some."""

    summary: str = Summary
    dealt: int = Field(2, ge=1, le=10, description="Contracts dealt to each player at setup.")
    keep: int = Field(1, ge=1, le=10, description="Contracts each player keeps (the others go to the box unseen).")
    icon_sources: list[IconSource] = Field(
        default_factory=lambda: list[IconSource](["objectives", "tokens"]),
        description="What gives icons: the company icons of claimed objectives, company tokens.",
    )
    icon_use: Literal["exclusive", "shared"] = Field(
        "exclusive",
        description="`exclusive`: an icon counts in at most one term of a contract (the best "
        "assignment for the player); `shared`: each term counts all icons on its own.",
    )
    patterns: dict[str, PatternSpec] = Field(description="The patterns contract terms use, by key.")

    @model_validator(mode="after")
    def _keep(self) -> Contracts:
        if self.keep > self.dealt:
            raise ValueError(f"keep ({self.keep}) must not exceed dealt ({self.dealt})")
        return self


class Tokens(Strict):
    """Company tokens: an open supply (counts per colour in the card table)."""

    summary: str = Summary


class Setup(Strict):
    """Setup: who starts (the rest of the setup follows from the other sections)."""

    summary: str = Summary
    first_seat: int = Field(0, ge=0, description="Seat that plays first.")


class Take(Strict):
    """The turn's first action: take one face-up market card, paying its place's cost."""

    summary: str = Summary
    mandatory: bool = Field(True, description="A player who can take a card must take one.")
    characters: Literal["resolve"] = Field("resolve", description="A taken character is resolved at once.")
    character_acts: Literal["before_refill", "after_refill"] = Field(
        "before_refill",
        description="When a taken character acts: `before_refill` (at once, while its place in the "
        "line is still empty; the line slides and refills afterwards) or `after_refill` (the line slides and "
        "refills first).",
    )


class Claim(Strict):
    """The turn's second action: claim face-up objectives by spending the wagons they need."""

    summary: str = Summary
    per_turn: int = Field(1, ge=0, le=10, description="Objectives a player may claim in one turn.")
    wild: list[str] = Field(default_factory=list, description="Wagon kinds that stand for any wagon.")
    spent_to: Literal["box"] = Field(
        "box",
        description="Where the spent wagons go (matching kinds are spent first, wild ones only for what is missing).",
    )


class Turn(Strict):
    """A turn: the compulsory take, then the optional claim."""

    summary: str = Summary
    take: Take
    claim: Claim


class Trigger(Strict):
    """The end trigger."""

    summary: str = Summary
    objectives: int = Field(4, ge=1, le=20, description="Claimed objectives that trigger the end.")
    final_round: Literal["others", "complete_round", "none"] = Field(
        "others",
        description="`others`: every other player has one more turn; `complete_round`: the round is "
        "finished (the last seat before the first player ends it); `none`: the game ends at once.",
    )


class Score(Strict):
    """Final score and winners."""

    summary: str = Summary
    objective_points: bool = Field(True, description="The points printed on claimed objectives count.")
    contracts: bool = Field(True, description="Contract points count.")
    per_currency: int = Field(1, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per currency card kept.")
    per_token: int = Field(
        0, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per company token (besides their icons)."
    )
    tie_breakers: list[TieBreaker] = Field(
        default_factory=lambda: list[TieBreaker](["objective_points"]),
        description="Compared in order among the tied players; a tie that remains is a shared win.",
    )


class Stall(Strict):
    """A game that can no longer progress (not in the box's rules; a guard of kbsim)."""

    summary: str = Summary
    idle_round: bool = Field(
        True,
        description="The game ends, and is scored, after a full round in which nobody "
        "could take a card or claimed an objective; the record says `stalemate`.",
    )


class TurnLimit(Strict):
    """A guard against endless games (not a rule of a game)."""

    summary: str = Summary
    turns: int = Field(ge=1, le=MAX_TURNS, description="Turns (all seats together) after which a game is stopped.")


class End(Strict):
    """The end of the game: trigger and final round, score and winners, stalled games, turn limit."""

    trigger: Trigger
    score: Score
    stall: Stall
    turn_limit: TurnLimit


class PublishedCounts(Strict):
    """Totals printed in the sources; the card table must agree with them."""

    wagons: int | None = None
    characters: int | None = None
    objectives: int | None = None
    contracts: int | None = None
    tokens: int | None = None


# ------------------------------------------------------------------ examples
class ExamplePlayer(Strict):
    """A player's cards in an example (seat order)."""

    wagons: str = Field("", description="Wagon keys, space separated, one per card (a key twice for two cards).")
    currency: int = Field(0, ge=0)
    tokens: str = Field("", description="Company keys of the tokens held.")
    objectives: list[str] = Field(default_factory=list, description="Ids of claimed objectives.")
    contracts: list[str] = Field(default_factory=list, description="Ids of the contracts kept.")


class ExampleState(Strict):
    """The table of an example, in the example card table's keys. ``-`` is an empty place."""

    market: list[str] = Field(description="One line per deck: cards from the cheapest place on.")
    decks: list[str] = Field(default_factory=list, description="One per deck: cards, top first.")
    objectives: list[str] = Field(default_factory=list, description="Face-up objective ids.")
    objective_deck: list[str] = Field(default_factory=list, description="Objective ids, top first.")
    players: list[ExamplePlayer] = Field(min_length=1)
    seat: int = Field(0, ge=0, description="The seat to play.")
    trigger_seat: int | None = Field(None, description="Seat that already triggered the end, if any.")


class ExamplePlayerExpect(Strict):
    """Expected cards of a player; fields left out are not checked."""

    wagons: str | None = None
    currency: int | None = None
    tokens: str | None = None
    objectives: list[str] | None = None


class ExampleExpect(Strict):
    """What an example must produce; fields left out are not checked."""

    illegal: int | None = Field(None, ge=1, description="1-based index of the first move that must be refused.")
    market: list[str] | None = None
    decks: list[str] | None = None
    objectives: list[str] | None = None
    objective_deck: list[str] | None = None
    players: list[ExamplePlayerExpect] | None = None
    box: str | None = Field(None, description="Market cards in the box (any order).")
    characters_lost: int | None = Field(None, ge=0, description="Characters lost because impossible.")
    seat: int | None = Field(None, description="Seat to play after the moves.")
    ended: bool | None = None
    objective_points: list[int] | None = None
    contract_points: list[int] | None = None
    scores: list[int] | None = None
    winners: list[int] | None = None


class MarketExample(Strict):
    """An executable example: a table, moves in the market notation, the expected result."""

    name: str
    summary: str = Field("", description="What the example shows.")
    options: dict[str, Any] = Field(default_factory=dict)
    state: ExampleState
    moves: list[str] = Field(default_factory=list)
    expect: ExampleExpect


# ------------------------------------------------------------------ the whole file
class MarketRuleFile(Strict):
    """A rule file of the ``market`` family: market, currency, objectives, contracts, events, characters, end."""

    schema_version: Literal[1] = 1
    family: Literal["market"] = Field(description="The engine family: `market` (a card market and set collection).")
    game: str = Field(pattern=r"^[a-z][a-z0-9-]*$", description="The game's identifier.")
    title: str
    language: str = Language
    summary: str = Summary
    provisional: str | None = Field(
        None, description="Why the rules or data are not final; set from the card table when that is provisional."
    )
    players: Players
    _table_file: Path | None = PrivateAttr(default=None)
    card_table: str | None = Field(
        None, description="The card table file, relative to the rule file (or an absolute path)."
    )
    cards: CardTable | None = Field(None, description="The card table (read from `card_table`; or written here).")
    example_cards: CardTable | None = Field(
        None, description="A small card table the examples use, so that they do not depend on the card list."
    )
    published: PublishedCounts = Field(default_factory=PublishedCounts)
    currency: Currency
    tokens: Tokens
    market: Market
    objectives: Objectives
    contracts: Contracts
    events: dict[str, EventSpec] = Field(default_factory=dict)
    characters: dict[str, CharacterSpec] = Field(default_factory=dict)
    setup: Setup
    turn: Turn
    end: End
    options: dict[str, Option] = Field(default_factory=dict)
    variants: dict[str, Variant] = Field(default_factory=dict)
    clarifications: list[Clarification] = Field(default_factory=list)
    examples: list[MarketExample] = Field(default_factory=list)

    def sections(self) -> list[tuple[str, str]]:
        """(title, summary) of each rule section, in reading order (for ``kbsim rules show``).

        Starts with "Provisional data" when :attr:`provisional` is set.
        """
        out: list[tuple[str, str]] = []
        if self.provisional:
            out.append(("Provisional data", self.provisional))
        if self.cards is not None:
            t = self.cards.totals()
            counts = (
                f"{t['wagons']} wagons ({', '.join(f'{w.count} {w.name}' for w in self.cards.wagons)}), "
                f"{self.currency.cards} {self.currency.name} cards, "
                f"{sum(e.count for e in self.events.values())} events, {t['characters']} characters "
                f"({', '.join(f'{n} {self.characters[k].name}' for k, n in self.cards.characters.items())}), "
                f"{t['objectives']} objectives, {t['contracts']} contracts, {t['tokens']} company tokens "
                f"({', '.join(f'{c.tokens} {c.name}' for c in self.cards.companies)})."
            )
            out.append(("Card table", " ".join(x for x in (self.cards.summary, counts) if x)))
        out += [
            ("Currency", self.currency.summary),
            ("Company tokens", self.tokens.summary),
            ("Market", self.market.summary),
            ("Objectives", self.objectives.summary),
            ("Contracts", self.contracts.summary),
        ]
        out += [(f"Pattern: {k}", p.summary) for k, p in self.contracts.patterns.items()]
        out += [(f"Event: {e.name}", e.summary) for e in self.events.values()]
        out += [(f"Character: {c.name}", c.summary) for c in self.characters.values()]
        out += [
            ("Setup", self.setup.summary),
            ("Turn", self.turn.summary),
            ("Take a card", self.turn.take.summary),
            ("Claim an objective", self.turn.claim.summary),
            ("End of the game", self.end.trigger.summary),
            ("Score", self.end.score.summary),
            ("Stalled game", self.end.stall.summary),
            ("Turn limit", self.end.turn_limit.summary),
        ]
        return [(t, x) for t, x in out if x]

    @model_validator(mode="after")
    def _cross_checks(self, info: ValidationInfo) -> MarketRuleFile:
        check_option_references(self.options, self.variants, self.clarifications)
        keys = [self.currency.key, *self.events, *self.characters]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"currency, events and characters share keys {dup}")
        if self.card_table is not None and self.cards is not None:
            raise ValueError("cards: give either `card_table` (a file) or `cards`, not both")
        rule_file = _rule_file_of(info)
        if self.card_table is not None:
            path = resolve_card_table(self.card_table, rule_file)
            table = load_card_table(path)
            self.check_table(table, str(path), published=True)
            self.cards = table
            self._table_file = path
        elif self.cards is None:
            raise ValueError("card_table: a market rule file needs a card table (`card_table: FILE`)")
        else:
            self.check_table(self.cards, "cards", published=True, rule_file=rule_file or "rule file")
        if self.example_cards is not None:
            self.check_table(self.example_cards, "example_cards", published=False, rule_file=rule_file or "rule file")
        if self.cards.provisional:
            note = f"The card list ({self.card_table or 'cards'}) is provisional: {self.cards.provisional.strip()}"
            if not self.provisional:
                self.provisional = note
            elif self.cards.provisional.strip() not in self.provisional:
                self.provisional = f"{self.provisional.strip()} {note}"
        return self

    def dependencies(self) -> list[Path]:
        """Files besides the rule file that this rule set was read from (the card table)."""
        return [self._table_file] if self._table_file is not None else []

    def check_table(self, table: CardTable, where: str, published: bool, rule_file: Path | str | None = None) -> None:
        """Check a card table against this rule file (keys it refers to, published totals).

        Args:
            table: the table.
            where: the table's file, or its field (``cards``, ``example_cards``) when it is written in the rule file.
            published: also check the totals of :attr:`published`.
            rule_file: the rule file, when the table is written in it (for the messages).

        Raises:
            kbsim.rules.loader.RulesError: one line per problem: ``TABLE_FILE: field: message``, or
                ``RULE_FILE: where.field: message`` for a table written in the rule file.
        """
        problems = []
        wagons = {w.key for w in table.wagons}
        clash = sorted(wagons & ({self.currency.key} | set(self.events) | set(self.characters)))
        if clash:
            problems.append(f"wagons: keys {clash} are also currency, event or character keys of the rule file")
        for k in self.turn.claim.wild:
            if k not in wagons:
                problems.append(f"wagons: no wagon kind {k!r}, which the rule file makes wild (turn.claim.wild)")
        for k in table.characters:
            if k not in self.characters:
                problems.append(
                    f"characters.{k}: not a character of the rule file; expected some of {sorted(self.characters)}"
                )
        problems += self._contract_problems(table)
        if published:
            problems += self._published_problems(table)
        if problems:
            if rule_file is not None:  # a table written inside the rule file
                raise RulesError([f"{rule_file}: {where}.{p}" for p in problems])
            raise RulesError([f"{where}: {p}" for p in problems])

    def _contract_problems(self, table: CardTable) -> list[str]:
        """Contract terms of ``table`` whose pattern the rule file lacks, or whose colour the pattern contradicts."""
        problems = []
        for i, c in enumerate(table.contracts):
            for j, t in enumerate(c.terms):
                term = f"{item_path('contracts', i, c.name or c.id)}.{item_path('terms', j)}"
                pat = self.contracts.patterns.get(t.pattern)
                if pat is None:
                    problems.append(
                        f"{term}.pattern: unknown pattern {t.pattern!r}; expected one "
                        f"of {sorted(self.contracts.patterns)}"
                    )
                elif (pat.colour == "contract") != (t.colour is not None):
                    need = "needs a `colour`" if pat.colour == "contract" else "takes no `colour`"
                    problems.append(f"{term}: pattern {t.pattern!r} {need}")
        return problems

    def _published_problems(self, table: CardTable) -> list[str]:
        """Totals of ``table`` that differ from :attr:`published`, and too few contracts to deal at full table."""
        problems = []
        totals = table.totals()
        for k, want in self.published.model_dump().items():
            if want is not None and totals[k] != want:
                problems.append(
                    f"{k}: the table has {totals[k]}, the published total is {want} (rule file: published.{k})"
                )
        if len(table.contracts) < self.contracts.dealt * self.players.max:
            problems.append(
                f"contracts: {len(table.contracts)} contracts cannot deal {self.contracts.dealt} to "
                f"each of {self.players.max} players"
            )
        return problems


# ------------------------------------------------------------------ reading the card table
_TABLE_CACHE: dict[tuple[str, int, int], CardTable] = {}


def _rule_file_of(info: ValidationInfo | None) -> Path | None:
    """The rule file being validated (passed by the loader as ``context={"source": PATH}``)."""
    ctx = getattr(info, "context", None)
    if isinstance(ctx, dict) and ctx.get("source"):
        return Path(ctx["source"])
    return None


def resolve_card_table(ref: str, rule_file: Path | None) -> Path:
    """The card table file ``ref`` names: relative to the rule file's folder, else to the working folder.

    Raises:
        kbsim.rules.loader.RulesError: no such file.
    """
    p = Path(ref)
    candidates = [p] if p.is_absolute() else []
    if not p.is_absolute():
        if rule_file is not None:
            candidates.append(rule_file.parent / p)
        candidates.append(Path.cwd() / p)
        shipped = shipped_dir()
        if rule_file is None and shipped is not None:
            candidates.append(shipped / p)
    for c in candidates:
        if c.is_file():
            return c
        if c.exists():  # a named pipe, a folder...: refused by name rather than skipped
            try:
                check_regular_file(c, "a card table (YAML)")
            except InputFileError as e:
                raise RulesError(f"{display_path(rule_file) + ': ' if rule_file else ''}card_table: {e}") from None
    where = f"{rule_file}: " if rule_file is not None else ""
    raise RulesError(f"{where}card_table: no such file {ref!r} (looked in: {', '.join(str(c) for c in candidates)})")


def load_card_table(path: Path) -> CardTable:
    """Read and validate a card table file (cached by path, size and modification time).

    Raises:
        kbsim.rules.loader.RulesError: unreadable, not YAML, or not a card table; each line names the table file
            and the field.
    """
    try:
        st = path.stat()
    except OSError as e:
        raise RulesError(f"{path}: cannot read: {e.strerror}") from None
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key in _TABLE_CACHE:
        return _TABLE_CACHE[key]
    doc = read_document(path)
    try:
        table = CardTable.model_validate(doc)
    except ValidationError as e:
        raise RulesError(format_validation(path, e, doc=doc)) from None
    _TABLE_CACHE[key] = table
    return table


__all__ = [
    "CardTable",
    "CharacterSpec",
    "Claim",
    "Company",
    "ContractCard",
    "ContractTerm",
    "Contracts",
    "Currency",
    "End",
    "EventSpec",
    "MarketExample",
    "MarketRuleFile",
    "ObjectiveCard",
    "PatternSpec",
    "WagonKind",
    "load_card_table",
    "resolve_card_table",
]
