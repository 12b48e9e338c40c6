"""The rules language: pydantic v2 models for a rule file.

A rule file (YAML) is validated against :class:`RuleFile`. Every model forbids
unknown keys, so a misspelt field is an error that names its path. The JSON
Schema of these models is what ``kbsim rules schema`` prints.

The models only *describe* a game; :mod:`kbsim.engine.rows.compiled` turns a
validated :class:`RuleFile` into plain Python objects for the game loop.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kbsim.rules.files import item_path
from kbsim.strict_io import INPUT_LIMITS, MAX_LIST, MAX_NAME, MAX_TEXT

# Limits of the rules language (documented in docs/guide/rule-files.md). They keep every accepted rule file
# playable in bounded time and memory; a value outside one is refused with its allowed range. The limits every
# input file obeys (size, nesting, text, names, lists) are kbsim.strict_io.INPUT_LIMITS, shared with study files.
MAX_DECK = 2_000  # cards in the deck (values x copies x suits)
MAX_HAND = 30  # hand size, and hand cards a single option may ask for
MAX_TURNS = 100_000  # turn limit of one game (one hand of a match)
MAX_POINTS = 1_000  # absolute value of points per card/row/character in a score or penalty
MAX_SEARCH = 1_000_000  # boards an exact stalemate test may explore
MAX_REBUILDS = 10_000  # rebuilds per turn
MAX_HANDS = 10_000  # hands (rounds) of a match
MAX_MATCH_TARGET = 1_000_000

LIMITS = {
    **INPUT_LIMITS,
    "players": "1-8",
    "card values": "0-63",
    "copies of each value": "1-64",
    "suits": "at most 16 (4 colours of 4)",
    "cards in the deck": f"at most {MAX_DECK:,}",
    "rows (row cards)": "1-16",
    "hand size": f"1-{MAX_HAND}",
    "sequence step": "-63..63, not 0",
    "turn limit": f"1-{MAX_TURNS:,}",
    "points per item (score, penalties)": f"-{MAX_POINTS:,}..{MAX_POINTS:,}",
    "rebuilds per turn": f"0-{MAX_REBUILDS:,}",
    "exact stalemate search": f"1-{MAX_SEARCH:,} boards",
    "hands per match": f"1-{MAX_HANDS:,}",
    "characters dealt per player (characters.deal)": "0-64, players x characters <= roster",
}
"""Each limit of a rule file with its allowed range: the input limits, then the rules language's own."""


class Strict(BaseModel):
    """Base for every rule-file model: unknown keys are rejected, values are never coerced.

    ``"6"`` is not 6, ``true`` is not 1, ``7.0`` is not 7.
    """

    model_config = ConfigDict(extra="forbid", strict=True)


Summary = Field(
    max_length=MAX_TEXT, description="A short description in the project's own words, rendered in the reference."
)

Language = Field(
    "en",
    pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$",
    description="The language the file's text is written in: an ISO 639 code such as `en` or `fr` (`pt_BR` for a "
    "region). `kbsim rules publish` builds the reference in it: the search stems words of this language and "
    "kbsim's own headings and labels come from its message catalog (English where kbsim has none).",
)


class Players(Strict):
    """Player counts the game supports (competitive play)."""

    min: int = Field(ge=1, le=8, description="Fewest players.")
    max: int = Field(ge=1, le=8, description="Most players.")

    @model_validator(mode="after")
    def _ordered(self) -> Players:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


class ValueRange(Strict):
    """An inclusive range of card values."""

    min: int = Field(ge=0, le=63)
    max: int = Field(ge=0, le=63)

    @model_validator(mode="after")
    def _ordered(self) -> ValueRange:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


class Suit(Strict):
    """A suit of a deck with suits (e.g. hearts, red)."""

    name: str = Field(max_length=MAX_NAME)
    symbol: str = Field(pattern=r"^[A-Z]$", description="One capital letter used in the notation, e.g. `H`.")
    colour: str = Field(max_length=MAX_NAME, description="Colour name; rows may require colours to alternate.")


class Cards(Strict):
    """The deck: every value of ``values`` in ``copies`` copies, in every suit if suits are declared."""

    summary: str = Summary
    values: ValueRange
    copies: int = Field(ge=1, le=64, description="Copies of each value (of each suit).")
    suits: list[Suit] = Field(default_factory=list, max_length=16, description="Suits; empty: cards are plain values.")
    names: dict[int, str] = Field(
        default_factory=dict, description="Letters for values in the notation, e.g. `{1: A, 11: J, 12: Q, 13: K}`."
    )

    @model_validator(mode="after")
    def _suits(self) -> Cards:
        colours = sorted({s.colour for s in self.suits})
        if len(colours) > 4 or any(sum(1 for s in self.suits if s.colour == c) > 4 for c in colours):
            raise ValueError("at most 4 colours of at most 4 suits each")
        if len({s.symbol for s in self.suits}) != len(self.suits):
            raise ValueError("suit symbols must differ")
        total = (self.values.max - self.values.min + 1) * self.copies * max(1, len(self.suits))
        if total > MAX_DECK:
            raise ValueError(f"the deck holds {total:,} cards (values x copies x suits); expected at most {MAX_DECK:,}")
        return self


class Sequence(Strict):
    """The sequence constraint every row must satisfy after each step of a turn."""

    step: int = Field(
        ge=-63,
        le=63,
        description="Difference from one card to the next along a row (+1 ascending, -1 descending); -63 to 63, not 0.",
    )
    repeats: bool = Field(False, description="Whether a card may equal the card before it.")
    alternate_colours: bool = Field(False, description="Each card must differ in colour from the card before it.")
    open_with: Literal["any"] | list[int] = Field(
        "any", description="Which values may open an empty row: `any` or a list of values."
    )

    @model_validator(mode="after")
    def _step_not_zero(self) -> Sequence:
        if self.step == 0:
            raise ValueError("step: 0 would put every card on the same value; expected -63 to 63, not 0")
        return self


class Completion(Strict):
    """When a row is complete and where its cards go."""

    summary: str = Summary
    holds_all_values: bool = Field(
        True, description="A row holding every value of the deck's range is complete (false: rows never complete)."
    )
    to: Literal["discard"] = Field("discard", description="Where a complete row's cards go.")


class RowGroup(Strict):
    """A group of row slots with their own opening rule (e.g. the four corners)."""

    name: str = Field(max_length=MAX_NAME)
    summary: str = Summary
    count: int = Field(ge=1, le=16)
    open_with: Literal["any"] | list[int] = Field("any", description="Values that may open an empty slot.")
    starts: bool = Field(True, description="Whether the slots get a face-up card at setup (see setup.row_starts).")


class Rows(Strict):
    """The shared rows (row cards, piles) on the table."""

    summary: str = Summary
    count: int = Field(ge=1, le=16, description="Number of row cards (the sum of the groups' counts when given).")
    groups: list[RowGroup] = Field(
        default_factory=list,
        max_length=16,
        description="Slot groups in table order; empty: `count` slots opened per the sequence.",
    )
    sequence: Sequence
    completion: Completion

    @model_validator(mode="after")
    def _groups(self) -> Rows:
        if self.groups and sum(g.count for g in self.groups) != self.count:
            raise ValueError(
                f"count ({self.count}) must equal the sum of the groups' counts ({sum(g.count for g in self.groups)})"
            )
        return self


class Table(Strict):
    """The table: the shared rows (row cards, piles) the players lay on."""

    summary: str = Field("", max_length=MAX_TEXT)
    rows: Rows


class Deal(Strict):
    """How the cards left after the row starts are dealt."""

    cards: Literal["rest"] | Annotated[int, Field(ge=1, le=MAX_DECK)] = Field(
        "rest", description="`rest` deals every remaining card; an int deals that many to each seat."
    )
    first_seat: int = Field(0, ge=0, le=7, description="Seat that receives the first card (the dealer).")
    first_player: int = Field(
        0,
        ge=0,
        le=7,
        description="Who plays first, counted from the dealer in turn order: 0 the dealer, 1 the "
        "player to the dealer's left (with 2 players, the non-dealer).",
    )
    one_at_a_time: bool = Field(True, description="Deal one card per seat in turn order (else in blocks).")


class Relocate(Strict):
    """After the row starts are turned up, move start cards of these values to an empty slot of a group."""

    values: list[int]
    to_group: str


class Setup(Strict):
    """Setting up a hand: row starts, the deal, the draw piles and the hand size."""

    summary: str = Summary
    draw_pile: Literal["personal", "shared"] = Field(
        "personal",
        description="`personal`: dealt cards form each player's draw pile; `shared`: undealt cards form "
        "one stock everybody draws from.",
    )
    relocate_starts: Relocate | None = Field(None, description="Move some opening cards to another slot group.")
    row_starts: int = Field(ge=0, le=1, description="Cards turned face up on each row card at the start (0 or 1).")
    deal: Deal
    hand_size: int = Field(ge=1, le=MAX_HAND, description="Hand cards drawn at the start and after each refill.")


class Rebuild(Strict):
    """Moving cards from one row onto another (rulebook: rebuild)."""

    summary: str = Summary
    allowed: bool = True
    segments: Literal["end", "either", "whole"] = Field(
        "end",
        description="`end`: only a row's last cards move; `either`: its first cards may move too; `whole`: "
        "only whole rows move (judged by their first card).",
    )
    into_empty_row: bool = Field(
        False,
        description="Whether a segment may be put on an empty row card (a whole row only into another "
        "group's slot) if that slot may be opened with its first card.",
    )
    into_empty_groups: list[str] | None = Field(
        None,
        description="With `into_empty_row`: the slot groups (table.rows.groups names) whose empty slots may "
        "receive a rebuild; null means any group.",
    )
    max_per_turn: int = Field(
        200, ge=0, le=MAX_REBUILDS, description="Guard against endless rebuild loops within one turn."
    )


class LayOut(Strict):
    """Turn option A: lay hand cards on rows, rebuilding as wanted."""

    summary: str = Summary
    min_hand_cards: int = Field(1, ge=0, le=MAX_HAND, description="Hand cards a lay-out turn must lay at least.")
    must_lay_when_drawn: bool = Field(
        False,
        description="A `must_lay` card drawn at the end of the turn is laid at once (first row that takes "
        "it), before the next player's turn.",
    )
    must_lay: list[int] = Field(
        default_factory=list,
        max_length=64,
        description="Values that may not stay in hand at the end of a turn if they can be laid.",
    )
    min_only_while_draw_pile: bool = Field(
        True, description="The minimum applies only while the player's draw pile holds cards."
    )
    provisional_until_laid: bool = Field(
        True,
        description="Rebuilds and character plays stay provisional until the turn's minimum of hand cards "
        "is laid: a turn that lays fewer may still end as an exchange, pass or minus-pile move, with the table "
        "restored to its state before the turn's first move (so every turn can end). Off, moves are final: a "
        "turn they left unable to lay its minimum ends on the minus pile where the rules have one, else by "
        "ending the turn, its moves kept.",
    )
    rebuild: Rebuild


class Exchange(Strict):
    """Turn option B: cards under the draw pile, then refill; ends the turn."""

    summary: str = Summary
    allowed: bool = True
    min_cards: int = Field(1, ge=1, le=MAX_HAND, description="Fewest cards an exchange puts under the pile.")
    requires_draw_pile: bool = Field(True, description="Only a player whose draw pile holds cards may exchange.")


class Pass(Strict):
    """Turn option C: do nothing this turn (where the rules allow it)."""

    summary: str = Summary
    allowed: bool = True
    requires_empty_draw_pile: bool = Field(True, description="Only a player with an empty draw pile may pass.")


class Minus(Strict):
    """Solo/cooperative: instead of laying, put hand cards on your minus (penalty) pile; ends the turn."""

    summary: str = Summary
    allowed: bool = Field(False, description="Whether this turn option exists.")
    cards: int = Field(1, ge=1, le=MAX_HAND, description="Hand cards that go to the minus pile.")
    only_when_stuck: bool = Field(
        True, description="Allowed only when no hand card can be laid on any board reachable by rebuilds."
    )


class Refill(Strict):
    """Drawing at the end of a turn."""

    summary: str = Summary
    up_to_hand_size: bool = Field(True, description="Draw until the hand holds `hand_size` cards.")
    draw: int = Field(0, ge=0, le=MAX_HAND, description="Otherwise draw this many cards.")
    when: Literal["end", "start"] = Field("end", description="Draw at the end of the turn, or at its start.")


class Turn(Strict):
    """What a player may do on a turn: lay out, exchange, pass or (solo) minus, then refill."""

    summary: str = Summary
    lay_out: LayOut
    exchange: Exchange
    pass_: Pass = Field(alias="pass")
    minus: Minus = Field(default_factory=lambda: Minus.model_validate({"summary": ""}))
    refill: Refill

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)


class Win(Strict):
    """How a hand is won: the race to empty hand and draw pile, or all out."""

    summary: str = Summary
    when_hand_and_draw_pile_empty: bool = Field(
        True, description="Race: the first seat with no hand, draw-pile (or parked) cards wins at once."
    )
    draw_pile_counts: bool = Field(
        True, description="A seat must also have emptied its draw pile (false: an empty hand is enough)."
    )
    mode: Literal["race", "all_out"] = Field(
        "race",
        description="`race`: first out wins; `all_out`: a seat that is out is skipped and the game "
        "ends when every seat is out (solo, cooperative), then it is scored.",
    )
    parked_cards_count: bool = Field(
        True, description="Cards parked in front of a player (Wilwulf) must be laid too before that player is out."
    )


class Score(Strict):
    """Solo/cooperative team score."""

    summary: str = Summary
    per_unplayed_character: int = Field(
        1, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per character card not played."
    )
    per_empty_row_card: int = Field(
        2, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per empty row card (not counting extra rows)."
    )
    per_minus_card: int = Field(-5, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per card on the minus piles.")
    win_at: int = Field(
        1, ge=-MAX_DECK * MAX_POINTS, le=MAX_DECK * MAX_POINTS, description="A score of at least this is a win."
    )
    expert_at: int = Field(
        12,
        ge=-MAX_DECK * MAX_POINTS,
        le=MAX_DECK * MAX_POINTS,
        description="A score of at least this is an expert result.",
    )


class Stalemate(Strict):
    """When a game in which nobody can lay any more stops, and who wins it."""

    summary: str = Summary
    test: Literal["idle_turns", "exact"] = Field(
        "idle_turns",
        description="`idle_turns`: every seat has had ceil(cards/hand_size) + extra turns since the last lay; "
        "`exact`: after a full round without a lay. Either is only the trigger: the game stops only when the "
        "exact test finds that no seat can lay any held card (hand, parked, draw pile reachable by exchanges) on "
        "any board reachable by rebuilds, with the powers still in play (`powers`).",
    )
    idle_extra_turns: int = Field(1, ge=0, le=MAX_TURNS, description="The `+ extra` of the idle-turns test.")
    exact_search_limit: int = Field(
        5000,
        ge=1,
        le=MAX_SEARCH,
        description="Most boards the exact test explores before it assumes progress is possible.",
    )
    exact_play_limit: int = Field(
        5000,
        ge=1,
        le=MAX_SEARCH,
        description="Most work (positions of the character piles, plays tried and boards visited by rebuild "
        "searches, one unit each) the exact test's search over staying character plays does before it assumes "
        "progress is possible: the game goes on, never a false stalemate.",
    )
    winners: Literal["fewest_cards", "none"] = Field(
        "fewest_cards", description="Who wins a stalemate: the fewest cards held (ties shared), or nobody."
    )
    counts_parked: bool = Field(
        False,
        description="Whether cards parked in front of a player count with hand and draw pile when the fewest "
        "cards win a stalemate (the rulebook names hand and draw pile only).",
    )
    requires_empty_draw_piles: bool = Field(
        False, description="A stalemate can only be declared once every draw pile (or the stock) is empty."
    )
    powers: Literal["in_play", "none"] = Field(
        "in_play",
        description="Characters the exact test lets the seats use before a stalemate is confirmed: "
        "`in_play` the characters still in play (with piles: each seat's top character, and those under it as "
        "plays that stay in turns laying no card turn the piles; with a display: every character shown), "
        "`none` the test ignores characters.",
    )


class TurnLimit(Strict):
    """A safety stop for simulations: the game ends after this many turns."""

    summary: str = Summary
    turns: int = Field(ge=1, le=MAX_TURNS, description="Turns (all seats together) after which a game is stopped.")


class Penalties(Strict):
    """Penalty points for cards left in hand when a hand (round) ends."""

    summary: str = Summary
    per_card: int = Field(1, ge=-MAX_POINTS, le=MAX_POINTS, description="Points per card not listed in `values`.")
    values: dict[int, Annotated[int, Field(ge=-MAX_POINTS, le=MAX_POINTS)]] = Field(
        default_factory=dict, max_length=64, description="Points per card of these values."
    )
    face_value: bool = Field(False, description="Score cards at their value instead of `per_card`.")


class Match(Strict):
    """Hands (rounds) played until a penalty total is reached."""

    summary: str = Summary
    target: int = Field(
        ge=1, le=MAX_MATCH_TARGET, description="The match ends after the hand in which someone reaches this total."
    )
    winners: Literal["lowest_total"] = "lowest_total"
    rotate_dealer: bool = Field(True, description="The next seat deals (and plays first) in the next hand.")
    max_hands: int = Field(200, ge=1, le=MAX_HANDS, description="A match stops after this many hands.")
    at_max_hands: Literal["no_winner", "lowest_total"] = Field(
        "no_winner",
        description="A match stopped by `max_hands` before anyone reached the target: `no_winner` (the guard: it "
        "ends like a turn limit) or `lowest_total` (a match of a fixed number of hands, e.g. one deal per "
        "player: the lowest total wins, ties shared).",
    )


class End(Strict):
    """How a hand and a game end: win, stalemate, turn limit, and the optional score, penalties and match."""

    win: Win
    stalemate: Stalemate
    turn_limit: TurnLimit
    score: Score | None = None
    penalties: Penalties | None = None
    match: Match | None = None


class ExampleSetup(Strict):
    """Character-related state of an example (complete game)."""

    character: str | None = Field(None, description="The character the player may play (top of pile / displayed).")
    discard: str = Field("", description="Cards in the discard pile.")
    parked: str = Field("", description="Cards parked in front of the player earlier (usable now).")
    opponents: int = Field(0, ge=0, description="Number of other players (each with an empty draw pile).")
    opponent_hands: list[str] = Field(default_factory=list, description="Hands of the other players.")


class ExampleExpect(Strict):
    """What an example must produce; fields left out are not checked."""

    illegal: int | None = Field(None, ge=1, description="1-based index of the first move that must be refused.")
    rows: list[str] | None = None
    hand: str | None = None
    draw_pile: str | None = None
    discard: int | None = Field(None, ge=0, description="Cards in the discard pile.")
    completed: int | None = Field(None, ge=0, description="Rows completed during the moves.")
    laid: int | None = Field(None, ge=0, description="Hand cards laid during the moves.")
    won: bool | None = None
    parked: str | None = Field(None, description="Parked cards after the moves.")
    opponent_piles: list[str] | None = Field(None, description="Other players' draw piles (top first) after the moves.")
    joker_held: bool | None = Field(None, description="Whether the joker is back in the player's character pile.")
    penalties: list[int] | None = Field(None, description="Penalty points of each seat's hand after the moves.")


class Example(Strict):
    """An executable example: a board, a hand, moves in the example notation, the expected result."""

    name: str
    summary: str = Field("", description="What the example shows.")
    options: dict[str, Any] = Field(default_factory=dict)
    rows: list[str]
    hand: str = ""
    draw_pile: str = Field("", description="Cards of the player's draw pile, top first.")
    setup: ExampleSetup | None = None
    moves: list[str] = Field(max_length=MAX_LIST)
    expect: ExampleExpect


class Modifier(Strict):
    """A rule modifier lasting for the rest of the turn."""

    kind: Literal["lay_at_start", "equal_values", "skip_value"] = Field(
        description="`lay_at_start`: cards may also be laid before a row's first card; `equal_values`: a card may "
        "equal the row end; `skip_value`: a card may skip one value (leaving a gap)."
    )
    duration: Literal["turn"] = "turn"
    rebuilds: bool = Field(False, description="The modifier also applies to the joint of a rebuild.")
    count: int = Field(1, ge=1, le=64, description="`skip_value`: how many skips the turn gets.")
    skippable: ValueRange | None = Field(None, description="`skip_value`: which values may be skipped.")


class RemoveFromRowEnd(Strict):
    """Remove cards from the end of any row to the discard pile."""

    min: int = Field(1, ge=1, le=64)
    max: int = Field(2, ge=1, le=64)


class ClearRow(Strict):
    """Remove every card of one row to the discard pile; the row card may then be opened again at once."""

    restart: bool = Field(True, description="The emptied row may be opened again in the same turn.")


class TakeFromDiscard(Strict):
    """Take cards from the discard pile and lay them at once, legally."""

    min: int = Field(1, ge=1, le=64)
    max: int = Field(2, ge=1, le=64)
    without_effect_allowed: bool = Field(
        True,
        description="The character may be played (with no effect) whenever its effect is impossible: an "
        "empty discard pile, or no discard card that fits anywhere.",
    )


class ExtraRow(Strict):
    """Open one more row with a hand card; it lasts while it holds cards."""

    min_cards: int = Field(
        1, ge=1, le=MAX_HAND, description="Hand cards laid to open it (more may follow as normal lays)."
    )


class GiveRowStarts(Strict):
    """Take the first card of a chosen row for each other player and put it on top of their draw pile."""

    solo_to_self: bool = Field(True, description="With no other player, the card goes on your own draw pile.")


class Park(Strict):
    """Put hand cards face up in front of you; from your next turn they may be laid at row ends."""

    min: int = Field(1, ge=1, le=64)
    max: int = Field(2, ge=1, le=64)


class Joker(Strict):
    """The character card itself is laid in a row as any value and keeps that value."""

    reclaim_with_exact_card: bool = Field(
        True, description="In a lay-out turn any player may swap in the exact hand card it stands for."
    )
    completer_takes: bool = Field(True, description="Whoever completes its row takes it.")


class PowerStep(Strict):
    """One primitive of a character's power; exactly one field is set."""

    modifier: Modifier | None = None
    remove_from_row_end: RemoveFromRowEnd | None = None
    clear_row: ClearRow | None = None
    take_from_discard: TakeFromDiscard | None = None
    extra_row: ExtraRow | None = None
    give_row_starts: GiveRowStarts | None = None
    park: Park | None = None
    joker: Joker | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> PowerStep:
        set_ = [k for k, v in self.__dict__.items() if v is not None]
        if len(set_) != 1:
            raise ValueError(f"a power step sets exactly one primitive, got {set_ or 'none'}")
        return self

    @property
    def kind(self) -> str:
        """The name of the primitive this step uses."""
        return next(k for k, v in self.__dict__.items() if v is not None)

    @property
    def params(self) -> Any:
        """The primitive's parameters."""
        return getattr(self, self.kind)


class Character(Strict):
    """A character card: a name, its power as a list of primitive steps, its own examples."""

    name: str
    summary: str = Summary
    duration: str = Field("once", description="How long the effect lasts, for the reference (`once`, `turn`...).")
    power: list[PowerStep] = Field(min_length=1)
    examples: list[Example] = Field(default_factory=list)


class Characters(Strict):
    """The character cards of the complete game."""

    summary: str = Summary
    enabled: bool = Field(False, description="Whether the character cards are in play.")
    mode: Literal["piles", "display"] = Field(
        "piles",
        description="`piles`: dealt into an open pile per player, only the top one playable, passed under "
        "the left neighbour's pile after use; `display`: a shared display of face-up cards refilled from a "
        "face-down deck, used cards go to the box (solo, cooperative).",
    )
    deal: dict[Annotated[int, Field(ge=1, le=8)], Annotated[int, Field(ge=0, le=64)]] = Field(
        default_factory=dict,
        description="`piles`: characters per player by player count; the rest go back. Players x characters "
        "must fit in the roster (with characters `removed`, each player may get fewer).",
    )
    display: int = Field(3, ge=1, le=64, description="`display`: face-up characters.")
    per_turn: int = Field(1, ge=0, le=64, description="Characters a player may play in one turn.")
    on_any_turn: bool = Field(
        True, description="A character may be played in a turn that is then an exchange or a pass."
    )
    roster: dict[str, Character] = Field(default_factory=dict, max_length=64)
    removed: list[str] = Field(
        default_factory=list, description="Roster keys left out of the game (e.g. to measure a character's effect)."
    )

    @model_validator(mode="after")
    def _removed_known(self) -> Characters:
        unknown = [k for k in self.removed if k not in self.roster]
        if unknown:
            raise ValueError(
                f"removed: unknown character(s) {', '.join(unknown)}; expected roster keys ({', '.join(self.roster)})"
            )
        size = len(self.roster)
        for players, per in sorted(self.deal.items()):
            if players * per > size:
                raise ValueError(
                    f"deal.{players}: {players} players x {per} characters need {players * per} character cards "
                    f"but the roster holds {size}; expected at most {size // players} per player at {players} players"
                )
        if self.mode == "display" and self.display > size:
            raise ValueError(
                f"display: {self.display} face-up characters but the roster holds {size}; expected at most {size}"
            )
        return self


class Option(Strict):
    """A named switch: sets the rule-file field at ``path``; its default is that field's value."""

    path: str = Field(description="Dotted path of the field this option sets, e.g. `setup.hand_size`.")
    summary: str = Summary
    choices: list[Any] | None = Field(None, description="Allowed values, when the field is a choice.")
    confidence: Literal["R", "I", "?"] = Field(
        "I", description="R: stated by the rulebook; I: inferred; ?: a guess, so the option matters."
    )


class Variant(Strict):
    """A named overlay: option values and/or a partial document merged over the base."""

    summary: str = Summary
    options: dict[str, Any] = Field(default_factory=dict)
    overlay: dict[str, Any] = Field(default_factory=dict, description="Partial rule document merged over the base.")


class Clarification(Strict):
    """A reading of an unclear rule: the topic, the reading taken, the option that switches it, a confidence."""

    topic: str
    reading: str
    option: str | None = None
    confidence: Literal["R", "I", "?"] = "I"


def check_option_references(
    options: dict[str, Option], variants: dict[str, Variant], clarifications: list[Clarification]
) -> None:
    """Every option a variant sets or a clarification names must be declared.

    Raises:
        ValueError: naming the variant or clarification and the unknown option.
    """
    for name, variant in variants.items():
        for key in variant.options:
            if key not in options:
                raise ValueError(f"variants.{name}.options: unknown option {key!r}")
    for i, clar in enumerate(clarifications):
        if clar.option is not None and clar.option not in options:
            raise ValueError(f"{item_path('clarifications', i)}.option: unknown option {clar.option!r}")


class RuleFile(Strict):
    """A whole rule file: one game, its options, variants, clarifications and examples."""

    schema_version: Literal[1] = 1
    family: Literal["rows"] = Field("rows", description="The engine family: `rows` (shared rows or piles of cards).")
    game: str = Field(
        pattern=r"^[a-z][a-z0-9-]*$", max_length=60, description="The game's identifier, e.g. `kingsbridge`."
    )
    title: str = Field(max_length=MAX_NAME)
    language: str = Language
    summary: str = Summary
    players: Players
    cards: Cards
    table: Table
    setup: Setup
    turn: Turn
    end: End
    options: dict[str, Option] = Field(default_factory=dict, max_length=MAX_LIST)
    variants: dict[str, Variant] = Field(default_factory=dict, max_length=MAX_LIST)
    clarifications: list[Clarification] = Field(default_factory=list, max_length=MAX_LIST)
    examples: list[Example] = Field(default_factory=list, max_length=MAX_LIST)
    characters: Characters | None = None

    def sections(self) -> list[tuple[str, str]]:
        """(title, summary) of each rule section, in reading order (for ``kbsim rules show``)."""
        out = [("Cards", self.cards.summary), ("Rows", self.table.rows.summary)]
        out += [(f"Slots: {g.name}", g.summary) for g in self.table.rows.groups]
        out += [
            ("Completion", self.table.rows.completion.summary),
            ("Setup", self.setup.summary),
            ("Turn", self.turn.summary),
            ("Lay out", self.turn.lay_out.summary),
            ("Rebuild", self.turn.lay_out.rebuild.summary),
            ("Exchange", self.turn.exchange.summary),
            ("Pass", self.turn.pass_.summary),
            ("Minus pile", self.turn.minus.summary),
            ("Refill", self.turn.refill.summary),
            ("Win", self.end.win.summary),
            ("Stalemate", self.end.stalemate.summary),
            ("Turn limit", self.end.turn_limit.summary),
        ]
        for title, part in (("Score", self.end.score), ("Penalties", self.end.penalties), ("Match", self.end.match)):
            if part is not None:
                out.append((title, part.summary))
        if self.characters is not None:
            out.append(("Characters", self.characters.summary))
            out += [(c.name, c.summary) for c in self.characters.roster.values()]
        return [(t, x) for t, x in out if x]

    @model_validator(mode="after")
    def _cross_checks(self) -> RuleFile:
        check_option_references(self.options, self.variants, self.clarifications)
        if self.characters is not None:
            jokers = [k for k, c in self.characters.roster.items() if any(st.joker for st in c.power)]
            if len(jokers) > 1:
                raise ValueError(f"characters.roster: at most one joker character, got {', '.join(jokers)}")
        total = (self.cards.values.max - self.cards.values.min + 1) * self.cards.copies * max(1, len(self.cards.suits))
        starts = self.table.rows.count * self.setup.row_starts
        if self.setup.relocate_starts and self.setup.relocate_starts.to_group not in {
            g.name for g in self.table.rows.groups
        }:
            raise ValueError(f"setup.relocate_starts.to_group: no row group {self.setup.relocate_starts.to_group!r}")
        if self.end.match and not self.end.penalties:
            raise ValueError("end.match needs end.penalties")
        if starts > total:
            raise ValueError(f"setup.row_starts: {starts} row-start cards but the deck holds only {total}")
        most = self.players.max
        if starts + most * self.setup.hand_size > total:
            raise ValueError(
                f"setup.hand_size: {most} players x {self.setup.hand_size} hand cards "
                f"+ {starts} row-start "
                f"cards need {starts + most * self.setup.hand_size} cards but the deck holds {total}; "
                f"expected a hand size from 1 to {max(1, (total - starts) // most)}"
            )
        if isinstance(self.setup.deal.cards, int) and starts + most * self.setup.deal.cards > total:
            raise ValueError(
                f"setup.deal.cards: {most} players x {self.setup.deal.cards} cards + {starts} row-start "
                f"cards exceed the deck of {total}; expected from 1 to {max(1, (total - starts) // most)}"
            )
        return self
