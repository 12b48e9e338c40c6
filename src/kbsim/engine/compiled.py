"""Compile a validated rule file into plain Python values for the game loop.

The game loop and the bots never look at YAML, pydantic models or option
names: they read the attributes of a :class:`CompiledGame`, built once per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from kbsim.rules.loader import LoadedRules


@dataclass(frozen=True, slots=True)
class CompiledGame:
    """Everything the engine needs to play one game of a rule set.

    Cards are ints: a story card is its value (copies are interchangeable).
    Row indices are 0-based; seats are 0-based in turn order from the dealer.
    """

    game: str
    title: str
    variant: str
    options: dict[str, Any]
    min_players: int
    max_players: int
    # cards
    value_min: int
    value_max: int
    copies: int
    deck: tuple[int, ...]
    # rows
    n_rows: int
    step: int
    steps: frozenset[int]          # allowed differences card - previous card along a row
    open_any: bool
    open_values: frozenset[int]
    complete_when_all: bool
    full_length: int               # number of distinct values a complete row holds
    # setup
    row_starts: int
    deal_rest: bool
    deal_count: int
    first_seat: int
    deal_one_at_a_time: bool
    hand_size: int
    # turn
    min_lay: int
    min_only_while_pile: bool
    rebuild_allowed: bool
    rebuild_from_start: bool
    rebuild_into_empty: bool
    max_rebuilds: int
    exchange_allowed: bool
    exchange_min: int
    exchange_requires_pile: bool
    pass_allowed: bool
    pass_requires_empty_pile: bool
    refill_up_to: bool
    refill_draw: int
    # end
    win_on_empty: bool
    stalemate_exact: bool          # exact reachability test instead of idle turns
    idle_extra_turns: int
    exact_search_limit: int
    stalemate_fewest_wins: bool
    turn_limit: int

    def fits(self, prev: int, card: int) -> bool:
        """True if ``card`` may follow ``prev`` along a row (sequence constraint)."""
        return card - prev in self.steps

    def may_open(self, card: int) -> bool:
        """True if ``card`` may open an empty row."""
        return self.open_any or card in self.open_values

    def is_complete(self, row: list[int]) -> bool:
        """True if ``row`` holds every value of the deck's range (completion rule)."""
        if not self.complete_when_all or len(row) < self.full_length:
            return False
        return len(row) == self.full_length if self.steps == {self.step} else len(set(row)) == self.full_length

    def row_is_legal(self, row: list[int]) -> bool:
        """True if ``row`` satisfies the sequence constraint (an empty row is legal)."""
        if not row:
            return True
        if not (self.value_min <= row[0] <= self.value_max and self.value_min <= row[-1] <= self.value_max):
            return False
        return all(b - a in self.steps for a, b in pairwise(row))


def compile_rules(loaded: LoadedRules) -> CompiledGame:
    """Turn validated rules into a :class:`CompiledGame`.

    Args:
        loaded: rules from :func:`kbsim.rules.loader.load_rules`.

    Returns:
        The compiled game (immutable, picklable, cheap to share with workers).
    """
    m = loaded.model
    vals = range(m.cards.values.min, m.cards.values.max + 1)
    seq = m.table.rows.sequence
    steps = {seq.step} | ({0} if seq.repeats else set())
    lay = m.turn.lay_out
    return CompiledGame(
        game=m.game,
        title=m.title,
        variant=loaded.variant_label,
        options=dict(loaded.options),
        min_players=m.players.min,
        max_players=m.players.max,
        value_min=m.cards.values.min,
        value_max=m.cards.values.max,
        copies=m.cards.copies,
        deck=tuple(v for v in vals for _ in range(m.cards.copies)),
        n_rows=m.table.rows.count,
        step=seq.step,
        steps=frozenset(steps),
        open_any=seq.open_with == "any",
        open_values=frozenset(() if seq.open_with == "any" else seq.open_with),
        complete_when_all=m.table.rows.completion.holds_all_values,
        full_length=len(vals),
        row_starts=m.setup.row_starts,
        deal_rest=m.setup.deal.cards == "rest",
        deal_count=0 if m.setup.deal.cards == "rest" else int(m.setup.deal.cards),
        first_seat=m.setup.deal.first_seat,
        deal_one_at_a_time=m.setup.deal.one_at_a_time,
        hand_size=m.setup.hand_size,
        min_lay=lay.min_hand_cards,
        min_only_while_pile=lay.min_only_while_draw_pile,
        rebuild_allowed=lay.rebuild.allowed,
        rebuild_from_start=lay.rebuild.segments == "either",
        rebuild_into_empty=lay.rebuild.into_empty_row,
        max_rebuilds=lay.rebuild.max_per_turn if lay.rebuild.allowed else 0,
        exchange_allowed=m.turn.exchange.allowed,
        exchange_min=m.turn.exchange.min_cards,
        exchange_requires_pile=m.turn.exchange.requires_draw_pile,
        pass_allowed=m.turn.pass_.allowed,
        pass_requires_empty_pile=m.turn.pass_.requires_empty_draw_pile,
        refill_up_to=m.turn.refill.up_to_hand_size,
        refill_draw=m.turn.refill.draw,
        win_on_empty=m.end.win.when_hand_and_draw_pile_empty,
        stalemate_exact=m.end.stalemate.test == "exact",
        idle_extra_turns=m.end.stalemate.idle_extra_turns,
        exact_search_limit=m.end.stalemate.exact_search_limit,
        stalemate_fewest_wins=m.end.stalemate.winners == "fewest_cards",
        turn_limit=m.end.turn_limit.turns,
    )
