"""Moves are values: small immutable tuples a bot returns and the engine checks.

Row indices are 0-based here; the text notation (:mod:`kbsim.engine.rows.notation`)
numbers rows from 1 as players do.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final, NamedTuple

START: Final = 0
LAYING: Final = 1
DONE: Final = 2
"""Phases of a turn: nothing done yet, laying out (lays, rebuilds, plays), over (``Final``: compiled modules use the
values as constants instead of looking the names up)."""


class Lay(NamedTuple):
    """Lay hand card ``card`` on the end of row ``row`` (or open the empty row ``row`` with it)."""

    card: int
    row: int


class Rebuild(NamedTuple):
    """Move ``count`` cards of row ``src`` onto the end of row ``dst``.

    The moved cards are the last ``count`` of ``src`` or, with ``from_start``,
    its first ``count`` (only where the rules allow start segments). With
    ``to_start`` they go before the first card of ``dst`` (only while a
    start-laying modifier that applies to rebuilds is active).
    """

    src: int
    # the field shadows tuple.count (a method); the name is the move's public vocabulary (notation, bots, tests)
    count: int  # type: ignore[assignment]
    dst: int
    from_start: bool = False
    to_start: bool = False


class Exchange(NamedTuple):
    """Put ``cards`` (hand cards, in this order) under the draw pile, refill; ends the turn."""

    cards: tuple[int, ...]


class Pass(NamedTuple):
    """Do nothing this turn (only where the rules allow it)."""


class EndTurn(NamedTuple):
    """End a lay-out turn: refill the hand and hand over to the next seat."""


class LayStart(NamedTuple):
    """Lay hand card ``card`` before the first card of row ``row`` (only while a power allows it)."""

    card: int
    row: int


class FillGap(NamedTuple):
    """Insert hand card ``card`` into the gap of row ``row`` it exactly fills."""

    card: int
    row: int


class Swap(NamedTuple):
    """Swap hand card ``card`` for the joker standing for that value; the joker goes under your character pile."""

    card: int


class LayParked(NamedTuple):
    """Lay a card parked in front of you in an earlier turn on the end of row ``row``."""

    card: int
    row: int


class Minus(NamedTuple):
    """Put hand cards on your minus pile instead of laying (solo/cooperative); ends the turn."""

    cards: tuple[int, ...]


class Play(NamedTuple):
    """Play character ``key`` with one argument tuple per step of its power (see :mod:`kbsim.engine.rows.powers`)."""

    key: str
    args: tuple = ()


def _kind_eq(self: tuple, other: object) -> bool:
    """Moves compare equal only when they are of the same kind and carry the same fields."""
    return type(self) is type(other) and tuple.__eq__(self, other)


def _kind_ne(self: tuple, other: object) -> bool:
    """The negation of :func:`_kind_eq`."""
    return not _kind_eq(self, other)


def _kind_hash(self: tuple) -> int:
    """Hash of the move's kind and fields (consistent with :func:`_kind_eq`)."""
    return hash((type(self).__name__, tuple(self)))


lay_move = lru_cache(maxsize=4096)(Lay)
"""``lay_move(card, row)`` is ``Lay(card, row)``, the same value object each time (moves are immutable): a
bot laying many cards gets its moves from a cache looked up in C instead of building each one."""

Move = Lay | Rebuild | Exchange | Pass | EndTurn | LayStart | FillGap | Swap | LayParked | Minus | Play
END_TURN = EndTurn()
PASS = Pass()

# Two moves of different kinds never compare equal (``Pass() != EndTurn()``, ``Lay(3, 0) != FillGap(3, 0)``),
# although each is a tuple: equality and hashing include the move's kind.
for _cls in (Lay, Rebuild, Exchange, Pass, EndTurn, LayStart, FillGap, Swap, LayParked, Minus, Play):
    # mypy forbids assigning to methods; replacing the three on each move class is the point of this loop
    _cls.__eq__ = _kind_eq  # type: ignore[method-assign]
    _cls.__ne__ = _kind_ne  # type: ignore[method-assign,assignment]
    _cls.__hash__ = _kind_hash  # type: ignore[method-assign]
del _cls
