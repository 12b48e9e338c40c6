"""What every engine family shares about playing and ending a game.

The end reasons of a game, the two errors of play (a refused move, a broken invariant) and the seeding of
each seat's bot. Both families (:mod:`kbsim.engine.rows`, :mod:`kbsim.engine.market`) import these from
here, so neither imports the other.
"""

from __future__ import annotations

WON, STALEMATE, TURN_LIMIT, ALL_OUT = "won", "stalemate", "turn_limit", "all_out"
"""End reasons of a game (the ``end_reason`` record column): a seat (or the team) won, nobody can lay
(stalemate, confirmed), the turn-limit guard stopped the game, every seat went out (solo/cooperative)."""


class IllegalMove(Exception):
    """A move the rules do not allow in the current position; the message says why."""


class InvariantError(AssertionError):
    """A check enabled with ``--check`` failed: cards not conserved or a table breaks its constraint."""


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random stream of the bot in ``seat`` for the game with ``seed`` (not the deal's).

    Args:
        seed: the game's seed (an int >= 0).
        seat: 0-based seat.

    Returns:
        ``(seed << 4) | (seat + 1)``, an int >= 1.
    """
    return (seed << 4) | (seat + 1)
