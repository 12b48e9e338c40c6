"""Moves are values: small immutable tuples a bot returns and the engine checks.

Row indices are 0-based here; the text notation (:mod:`kbsim.engine.notation`)
numbers rows from 1 as players do.
"""

from __future__ import annotations

from typing import NamedTuple


class Lay(NamedTuple):
    """Lay hand card ``card`` on the end of row ``row`` (or open the empty row ``row`` with it)."""

    card: int
    row: int


class Rebuild(NamedTuple):
    """Move ``count`` cards of row ``src`` onto the end of row ``dst``.

    The moved cards are the last ``count`` of ``src`` or, with ``from_start``,
    its first ``count`` (only where the rules allow start segments).
    """

    src: int
    count: int
    dst: int
    from_start: bool = False


class Exchange(NamedTuple):
    """Put ``cards`` (hand cards, in this order) under the draw pile, refill; ends the turn."""

    cards: tuple[int, ...]


class Pass(NamedTuple):
    """Do nothing this turn (only where the rules allow it)."""


class EndTurn(NamedTuple):
    """End a lay-out turn: refill the hand and hand over to the next seat."""


Move = Lay | Rebuild | Exchange | Pass | EndTurn
END_TURN = EndTurn()
PASS = Pass()


class IllegalMove(Exception):
    """A move the rules do not allow in the current position; the message says why."""
