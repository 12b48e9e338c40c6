"""Experience measures of the rows family: forced turns, and each seat's standing for the course of a game.

**Forced turn.** At the start of a seat's turn (after its draws at the start, under its bar if it has one:
:mod:`kbsim.engine.rows.restrict`) the turn is *forced* when its first move can be of one kind at most. The kinds
are: playing a character, laying a card now (a hand card, a parked card, a gap, the joker), rebuilding, exchanging,
ending the turn without a card (a pass, or a lay-out turn that needs no card) and the minus pile. A seat whose only
legal first move is an exchange (nothing it holds fits and no rebuild is legal), a pass, or a lay (no exchange in
these rules, no rebuild) has a forced turn; which cards it lays or exchanges is not counted as a choice. A legal
rebuild counts as a choice even when no lay follows it: telling that would take the rebuild search on every turn,
and the measure is meant to be cheap (it stops at the second kind found; most turns stop after the lay listing).

**Standing** (:func:`standings`, read by :class:`kbsim.engine.course.Course`): in a race, the cards each seat
still holds (hand, draw pile, parked cards), fewest leading; in a match of hands scored by penalties, each seat's
penalty total before this hand plus the penalty of the cards now in its hand.
"""

from __future__ import annotations

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import DONE, Turn


def forced(turn: Turn) -> bool:
    """Whether ``turn``, at its start, offers one kind of first move at most (module docstring).

    Args:
        turn: a seat's turn before its first move, under the seat's bar if any (read only).

    Returns:
        True for a forced turn.
    """
    if turn.available_characters():
        return False
    g = turn.g
    kinds = int(turn.can_exchange()) + int(turn.can_pass() or turn.needed == 0)
    if kinds >= 2:
        return False
    if g.minus_allowed and turn.minus_moves():
        kinds += 1
        if kinds >= 2:
            return False
    if _lays_now(turn):
        kinds += 1
        if kinds >= 2:
            return False
    if g.rebuild_allowed and (turn.hand or turn.parked) and _rebuilds_now(turn):
        kinds += 1
    return kinds <= 1


def _rebuilds_now(turn: Turn) -> bool:
    """Whether some rebuild is legal now: :meth:`Turn.rebuild_moves` non-empty, with a quick first look.

    Without a modifier, a joker, start segments, whole-row-only rebuilds or rebuilds onto empty row cards, a
    segment may go onto another row exactly when its first card continues that row's end by a step (the plain
    listing of :mod:`kbsim.engine.rows.movegen`); the quick look stops at the first such card. Otherwise, or when it
    finds none, the full listing decides.
    """
    g = turn.g
    if turn.phase == DONE or turn.rebuilds >= g.max_rebuilds:
        return False
    plain = not (turn.m_equal or turn.skips or turn.m_start) and turn.state.joker is None
    if plain and not (g.rebuild_from_start or g.rebuild_whole_only or g.rebuild_into_empty):
        rows = turn.rows
        want: dict[int, set[int]] = {}  # card value -> the rows whose end it continues
        for dst, row in enumerate(rows):
            if row:
                for d in g.steps:
                    want.setdefault(row[-1] + d, set()).add(dst)
        for src, row in enumerate(rows):
            for c in row:
                dsts = want.get(c)
                if dsts is not None and (len(dsts) > 1 or src not in dsts):
                    return True
        return False
    return bool(turn.rebuild_moves())


def _lays_now(turn: Turn) -> bool:
    """Whether some card can be laid now: :meth:`Turn.lay_moves` non-empty, with a quick first look.

    The quick look is the listing's own test for a hand card on a row end or an empty row when no modifier is in
    force (:func:`kbsim.engine.rows.movegen.lay_moves`), stopping at the first fit; the full listing is made only
    when it finds none.
    """
    if not (turn.m_equal or turn.skips) and turn.phase != DONE:
        g = turn.g
        steps = g.steps
        ends = [row[-1] if row else None for row in turn.rows]
        for card in set(turn.hand):
            for r, e in enumerate(ends):
                if e is None:
                    if g.may_open(card, r):
                        return True
                elif card - e in steps or (e < 0 and card + e in steps):
                    return True
    return bool(turn.lay_moves())


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
