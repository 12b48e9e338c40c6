"""What every engine family shares about playing and ending a game.

The end reasons of a game and the two errors of play (a refused move, a broken invariant); seeds are in
:mod:`kbsim.engine.seeds`. Both families (:mod:`kbsim.engine.rows`, :mod:`kbsim.engine.market`) import these from
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
