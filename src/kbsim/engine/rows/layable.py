"""Can the seat still lay a card this turn: the rebuild search behind the turn's stuck and stranded tests.

:func:`lay_path` asks the generator of legal lays (:func:`kbsim.engine.rows.movegen.lay_moves`) on the
current board and, depth first, on every board reachable from it by legal rebuilds (on light copies of the
turn, each board once, at most ``exact_search_limit`` boards), and returns the rebuilds that lead to a lay.
Results are kept per compiled game and position (one memo per process). The turn's
:meth:`~kbsim.engine.rows.turn.Turn.can_lay_anything`, :meth:`~kbsim.engine.rows.turn.Turn.stuck_here`,
:meth:`~kbsim.engine.rows.turn.Turn.stranded` and :meth:`~kbsim.engine.rows.turn.Turn.lay_path` are these
functions; the minus pile (``turn.minus.only_when_stuck``) and the end of a stranded turn (moves final,
short of the minimum) ask them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbsim.engine.rows import verbs
from kbsim.engine.rows.moves import DONE, LAYING, START, Rebuild

if TYPE_CHECKING:  # (the turn imports this module; typed, the compiled search reads the turn's fields directly)
    from kbsim.engine.rows.turn import Turn

_LAY_MEMO: dict[int, tuple] = {}  # id(game) -> (game, {position: lay_path result}); per process


def can_lay_anything(turn: Turn) -> bool:
    """True if some hand or parked card can be laid now or on a board reachable by rebuilds.

    Asks the same generator that lists the legal lays (:meth:`~kbsim.engine.rows.turn.Turn.lay_moves`: row ends,
    empty rows, starts under a start-laying modifier, gaps, the joker swap, parked cards) on the
    current board and on every board reachable by legal rebuilds from it (depth-first, on
    copies; each board once). When ``exact_search_limit`` boards were explored without an
    answer, the seat counts as stuck.
    """
    return lay_reachable(turn) is True


def stuck_here(turn: Turn) -> bool:
    """True if the turn's provisional moves left it where no hand or parked card can be laid.

    Not now and not after rebuilds (:func:`can_lay_anything` on the table as the provisional moves left it,
    with their modifiers in force); always False for a turn with no provisional move. Such a turn may end
    on the minus pile even where the table it started from allowed a lay (``turn.minus.only_when_stuck``;
    :func:`kbsim.engine.rows.movegen.minus_moves`), so that no state of a turn is a dead end.
    """
    return turn.phase != START and turn.provisional and not can_lay_anything(turn)


def stranded(turn: Turn) -> bool:
    """True if moves are final and left this lay-out turn short of its minimum, with nothing it can lay.

    Only where moves are final (``turn.lay_out.provisional_until_laid: false``): nothing is taken back, so
    without a way out such a turn would have no legal move. It may then end on the minus pile where the
    rules have one (the solo rules: "if you cannot manage this (even after playing a character card), you
    must place one hand card on a minus pile"), otherwise by ending the turn; its moves stay made.
    """
    return (
        not turn.g.provisional_moves
        and turn.phase == LAYING
        and turn.needed > 0
        and not turn.provisional
        and not can_lay_anything(turn)
    )


def lay_reachable(turn: Turn) -> bool | None:
    """Like :func:`can_lay_anything`, but ``None`` when the search limit was reached.

    Returns:
        ``True`` (a lay is legal now or after some legal rebuilds), ``False`` (no board
        reachable by rebuilds admits a lay) or ``None`` (search limit reached).
    """
    return lay_path(turn)[0]


def lay_path(turn: Turn) -> tuple[bool | None, list[Rebuild]]:
    """The search of :func:`lay_reachable`, with the rebuilds that lead to a board admitting a lay.

    Returns:
        ``(True, rebuilds)`` (empty: a lay is legal now), ``(False, [])`` or ``(None, [])``
        (search limit reached).
    """
    if turn.phase == DONE:
        return False, []
    if turn.lay_moves():
        return True, []
    if not turn.hand and not turn.parked:
        return False, []
    if not turn.g.rebuild_allowed or turn.rebuilds >= turn.g.max_rebuilds:
        return False, []
    g = turn.g
    memo = _LAY_MEMO.get(id(g))
    if memo is None or memo[0] is not g:
        if len(_LAY_MEMO) > 8:
            _LAY_MEMO.clear()
        memo = _LAY_MEMO[id(g)] = (g, {})
    key = (
        tuple(map(tuple, turn.rows)),
        tuple(sorted(turn.hand)),
        tuple(sorted(turn.parked)),
        turn.state.joker,
        turn.state.n_fixed,
        min(turn.rebuilds, 1) if g.max_rebuilds > 100 else turn.rebuilds,
        turn.m_start,
        turn.m_start_rb,
        turn.m_equal,
        turn.m_equal_rb,
        turn.skips,
        turn.m_skip_rb,
        turn.skip_lo,
        turn.skip_hi,
        turn.bar,
    )
    found = memo[1].get(key)
    if found is None:
        if len(memo[1]) > 20000:
            memo[1].clear()
        found = memo[1][key] = search_lay_path(turn)
    return found[0], list(found[1])


def board_key(turn: Turn, rows: list[list[int]]) -> tuple:
    """Rows as a search key: where every row card opens alike, their order does not matter."""
    g = turn.g
    if len(set(g.row_open)) <= 1 and len(set(g.row_group)) <= 1:
        n = turn.state.n_fixed
        return tuple(sorted(map(tuple, rows[:n]))), tuple(sorted(map(tuple, rows[n:])))
    return tuple(map(tuple, rows))


def search_lay_path(turn: Turn) -> tuple[bool | None, tuple]:
    """The depth-first search of :func:`lay_path` over boards reachable by rebuilds, each board once."""
    probe = turn.light_copy()
    seen = {board_key(turn, probe.rows)}
    stack: list[tuple[Turn, list[Rebuild]]] = [(probe, [])]
    limit = turn.g.exact_search_limit
    while stack:
        t, path = stack.pop()
        for mv in t.rebuild_moves():
            nt = t.clone()
            verbs.rebuild(nt, mv.src, mv.count, mv.dst, mv.from_start, mv.to_start)
            key = board_key(turn, nt.rows)
            if key in seen:
                continue
            seen.add(key)
            if nt.lay_moves():
                return True, (*path, mv)
            if len(seen) > limit:
                return None, ()
            stack.append((nt, [*path, mv]))
    return False, ()
