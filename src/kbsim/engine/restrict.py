"""Restricted play, the part common to every engine family: reading each seat's bar, the character kinds.

A seat's player may be **barred** from kinds of move (restricted play, Jaffe et al., AIIDE 2012): the bot spec
parameter ``bar`` that every bot accepts (``planner(bar=[characters.play.agatha])``, :mod:`kbsim.bots.spec`)
puts the move kinds on the bot, and each family's game loop hands them to the engine, which enforces them on that
seat's turns: :mod:`kbsim.engine.rows.restrict` (every rule-usage counter of the rows family, and exchanging) and
:mod:`kbsim.engine.market.restrict` (taking a character card). Move kinds are named by rule-file paths; the
character kinds are common to every family that has characters: ``characters.enabled`` (any character) and
``characters.play.<key>`` (one character).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CHARACTERS = "characters.enabled"
CHARACTER_PLAY = "characters.play."


def seat_bars(bots: Sequence[Any]) -> list[frozenset[str] | None]:
    """Each seat's bar: the move kinds its bot is barred from (its ``bar`` attribute), or None (not barred).

    Args:
        bots: one bot per seat.
    """
    return [frozenset(getattr(b, "bar", ())) or None for b in bots]


__all__ = ["CHARACTERS", "CHARACTER_PLAY", "seat_bars"]
