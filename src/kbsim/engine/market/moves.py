"""Market moves (values) and the phases of a market turn."""

from __future__ import annotations

from typing import NamedTuple

from kbsim.engine.results import IllegalMove

# turn phases
CHOOSE, TAKE, RESOLVE, CLAIM, DONE = "choose", "take", "resolve", "claim", "done"


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


__all__ = ["CHOOSE", "CLAIM", "DONE", "END", "RESOLVE", "TAKE", "IllegalMove", "Move"]
