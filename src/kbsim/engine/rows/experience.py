"""Experience measures of the rows family: forced turns, and each seat's standing for the course of a game.

**Forced turn.** At the start of a seat's turn (after its draws at the start, with its bar if it has one:
:mod:`kbsim.engine.rows.restrict`) the turn is *forced* when exactly one kind of turn is open to it and it has
no character to play. The kinds are: laying out (some hand or parked card can be laid, now or after rebuilds:
:meth:`~kbsim.engine.rows.turn.Turn.lay_path`, an undecided search counting as open), exchanging, ending the turn
without laying a card (a pass, or a lay-out turn that needs no card), and the minus pile. A seat that can only
exchange (nothing it holds fits), only pass, or only lay (no exchange in these rules, no pass) has a forced turn;
which cards it lays or exchanges is not counted as a choice, so the measure is cheap: most turns are decided by a
listing of lays that the bots make anyway, and the rebuild search is the engine's, memoised per position.

**Standing** (:func:`standings`, read by :class:`kbsim.engine.course.Course`): in a race, the cards each seat
still holds (hand, draw pile, parked cards), fewest leading; in a match of hands scored by penalties, each seat's
penalty total before this hand plus the penalty of the cards now in its hand.
"""

from __future__ import annotations

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn


def forced(turn: Turn) -> bool:
    """Whether ``turn``, at its start, offers exactly one kind of turn and no character (module docstring).

    Args:
        turn: a seat's turn before its first move (read only).

    Returns:
        True for a forced turn.
    """
    if turn.available_characters():
        return False
    g = turn.g
    kinds = 0
    if turn.can_exchange():
        kinds += 1
    if turn.can_pass() or turn.needed == 0:
        kinds += 1
    if kinds >= 2:
        return False
    if g.minus_allowed and turn.minus_moves():
        kinds += 1
        if kinds >= 2:
            return False
    if turn.lay_moves():
        return kinds == 0
    if not (turn.hand or turn.parked):
        return kinds == 1
    if not (turn.m_start or turn.m_equal or turn.skips or turn.state.joker is not None):
        if not turn.may_lay_after_rebuilds():  # (the cheap filter of the bots: no held card fits any board)
            return kinds == 1
    lay = turn.lay_path()[0] is not False
    return kinds + lay == 1


def standings(game: CompiledGame, state: GameState, totals: list[int] | None = None) -> list[int]:
    """Each seat's standing now (module docstring): fewer is better.

    Args:
        game: compiled rules.
        state: the hand being played.
        totals: penalty totals of a match before this hand (None outside a match).

    Returns:
        One int per seat.
    """
    n = state.players
    if game.penalty and totals is not None:
        table = dict(game.penalty)
        return [totals[k] + sum(table.get(c, 0) for c in state.hands[k]) for k in range(n)]
    return [state.held(k) for k in range(n)]


__all__ = ["forced", "standings"]
