"""The boards rebuilds reach: searched over immutable boards, for the stalemate test, the observation view and bots.

Rule (rulebook, "Turn Sequence": rebuilds; "End of the Game": the stalemate): a seat can make progress if a held
card fits the board now or after some legal rebuilds. :func:`progress_path` searches the boards rebuilds reach
for one where a held card can be laid; :func:`counted_openings` (and :func:`reachable_openings`) collects what
every reachable board accepts, so one search per board answers for any hand; :func:`can_progress` is the exact
stalemate test of the plain game; :func:`may_lay_after_rebuilds` is the cheap per-turn filter bots use before the
turn's own search (:meth:`~kbsim.engine.rows.turn.Turn.lay_path`).

Boards are tuples of row tuples; the rebuilds of a board are listed by a scratch
:class:`~kbsim.engine.rows.turn.Turn` (the one definition of a legal rebuild), and applied with
:func:`~kbsim.engine.rows.verbs.segment_move` (the one definition of what a rebuild moves).
"""

from __future__ import annotations

from typing import Final

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import Rebuild
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn
from kbsim.engine.rows.verbs import segment_move

_OPENINGS_MEMO: dict[tuple, tuple] = {}  # (id(game), board) -> (game, reachable_openings); per process
_OPENINGS_KEPT: Final = 256  # boards kept (any seat, any bot: a function of the board, which exchanges leave alone)


def _successors(game: CompiledGame, board: tuple, turn: Turn) -> list[tuple[tuple, tuple, Rebuild]]:
    """The boards one rebuild away from ``board`` (a tuple of row tuples).

    A rebuild listed for a board (so legal there) makes the new board from the old one (:func:`segment_move`,
    then a completed row is cleared and an emptied extra row vanishes, as :func:`~kbsim.engine.rows.verbs.complete` and
    :func:`~kbsim.engine.rows.verbs.prune` do) without copying the other rows or checking the rebuild again.

    Args:
        game: the compiled rules.
        board: the rows, a tuple of row tuples (row cards first, then extra rows).
        turn: a scratch turn of ``game`` with no modifier (and a joker mark where the board holds the joker),
            used to list the rebuilds (its rows are replaced by ``board``).

    Returns:
        ``(new board, its canonical key (the rows sorted), the rebuild)`` per legal rebuild, in
        :meth:`Turn.rebuild_moves` order.
    """
    n_fixed = game.n_rows  # rows beyond these are extra rows: emptied, they vanish
    full = game.full_length
    is_complete = game.is_complete
    # the scratch turn only lists rebuilds, reading its rows; its rows are lists (as declared: a compiled Turn checks
    # the type of what it reads), copied from the immutable board
    turn.rows = [list(r) for r in board]
    out = []
    for mv in turn.rebuild_moves():
        src, dst = mv[0], mv[2]  # (fields by position: a compiled tuple read, not a named-field lookup)
        rest, joined = segment_move(board[src], board[dst], mv[1], mv[3], mv[4])
        if len(joined) >= full and is_complete(joined):
            joined = ()
        new = list(board)
        new[src] = rest
        new[dst] = joined
        if len(new) > n_fixed and not (rest and joined):
            new[n_fixed:] = [r for r in new[n_fixed:] if r]
        new_board = tuple(new)
        out.append((new_board, tuple(sorted(new_board)), mv))
    return out


def _reachable_boards(game: CompiledGame, rows: list[list[int]]):
    """The boards reachable from ``rows`` by rebuilds, depth-first, each canonical board once.

    Yields ``(board, path)`` (the rows as tuples, and the rebuilds that lead there from ``rows``), the start
    first; yields ``(None, [])`` and stops once ``game.exact_search_limit`` boards have been seen. The
    caller may stop early; ``rows`` is not changed.

    Boards are immutable tuples of rows; :func:`_successors` makes the boards one rebuild away.
    """
    start = tuple(map(tuple, rows))
    seen = {tuple(sorted(start))}
    frontier: list[tuple[tuple, list[Rebuild]]] = [(start, [])]
    limit = game.exact_search_limit
    # the scratch turn lists the rebuilds (listing reads only n_fixed and the joker mark from its state: marked
    # while a row holds the joker, so that rebuilds moving it or onto it are listed)
    joker = "joker" if any(c < 0 for r in rows for c in r) else None
    scratch = Turn(
        game,
        [],
        [],
        [],
        [],
        state=GameState(rows=[], hands=[[]], piles=[[]], discard=[], n_fixed=game.n_rows, joker=joker),
    )
    while frontier:
        board, path = frontier.pop()
        yield board, path
        for new_board, key, mv in _successors(game, board, scratch):
            if key not in seen:
                seen.add(key)
                if len(seen) > limit:
                    yield None, []
                    return
                frontier.append((new_board, [*path, mv]))


def progress_path(
    game: CompiledGame, rows: list[list[int]], held: set[int], fillers: set[int] | None = None
) -> tuple[bool | None, list[Rebuild]]:
    """Search the boards reachable by rebuilds for one where a held card can be laid.

    Explores rebuild sequences depth-first over canonical boards (rows as a
    sorted multiset; :func:`_reachable_boards`). Progress is possible if an empty row can be opened by a
    held card (a completed row card is empty again; a completed extra row is
    gone), a held card continues a row end, or a filler card fills a gap.

    Args:
        game: compiled rules.
        rows: the current rows (not changed).
        held: card values that could go on row ends or open empty rows.
        fillers: card values that may fill gaps (default: ``held``).

    Returns:
        ``(True, path)``: progress after the rebuilds in ``path`` (empty: right now);
        ``(False, [])``: no reachable board allows progress;
        ``(None, [])``: ``exact_search_limit`` boards explored without an answer.
    """
    fillers = held if fillers is None else fillers
    if not held and not fillers:
        return False, []
    steps = game.steps
    step = game.step
    for board, path in _reachable_boards(game, rows):
        if board is None:
            return None, []
        for i, r in enumerate(board):
            if not r:
                if any(game.may_open(v, i) for v in held):
                    return True, path
                continue
            if any(v - abs(r[-1]) in steps for v in held):
                return True, path
            for i in range(1, len(r)):
                a, b = r[i - 1], r[i]
                if abs(b) - abs(a) == 2 * step and abs(a) + step in fillers:
                    return True, path
    return False, []


def reachable_openings(game: CompiledGame, rows: list[list[int]]) -> tuple[frozenset, frozenset, frozenset] | None:
    """What the boards reachable by rebuilds accept; see :func:`counted_openings` (the same, and how many boards)."""
    return counted_openings(game, rows)[0]


def counted_openings(
    game: CompiledGame, rows: list[list[int]]
) -> tuple[tuple[frozenset, frozenset, frozenset] | None, int]:
    """What the boards reachable by rebuilds accept, over all of them: the whole search of :func:`progress_path`.

    Returns:
        ``(openings, boards)``: ``openings`` is ``(ends, empty, gaps)``: the absolute values of the row ends, the
        indices of empty rows and the values missing in gaps, on any reachable board; so :func:`progress_path`
        finds progress for ``held`` and ``fillers`` exactly when some held ``v`` has ``v - e`` in ``game.steps``
        for an ``e`` of ``ends`` or ``game.may_open(v, i)`` for an ``i`` of ``empty``, or some filler is in
        ``gaps``; None when the search reached ``exact_search_limit`` (undecided). ``boards``: how many boards
        the search visited. The answer depends on the board only, so callers may keep it while the board does not
        change.
    """
    ends: set[int] = set()
    empty: set[int] = set()
    gaps: set[int] = set()
    step = game.step
    gapped = 2 * step in (game.row_diffs or game.steps)  # otherwise no row can hold a gap
    boards = 0
    for board, _ in _reachable_boards(game, rows):
        if board is None:
            return None, boards
        boards += 1
        for i, r in enumerate(board):
            if not r:
                empty.add(i)
                continue
            ends.add(abs(r[-1]))
            for i in range(1, len(r) if gapped else 0):
                a, b = r[i - 1], r[i]
                if abs(b) - abs(a) == 2 * step:
                    gaps.add(abs(a) + step)
    return (frozenset(ends), frozenset(empty), frozenset(gaps)), boards


def can_progress(game: CompiledGame, rows: list[list[int]], held: set[int]) -> bool:
    """Exact stalemate test: can any held card be laid on a board reachable by rebuilds?

    See :func:`progress_path`; when the search limit is reached, progress is
    assumed possible (the game goes on).
    """
    return progress_path(game, rows, held)[0] is not False


def may_lay_after_rebuilds(turn: Turn) -> bool:
    """False only when no rebuilds lead to a board where a held card can be laid, with no modifier in force.

    The answer of :func:`progress_path` for the hand (gaps too) and the usable parked cards, from
    :func:`reachable_openings` of the board, which is kept for the last boards seen (at most
    ``_OPENINGS_KEPT``; the board does not change during exchange turns, so a search is made once per board,
    not once per hand). A cheap filter before :meth:`~kbsim.engine.rows.turn.Turn.lay_path`: it ignores the
    turn's modifiers and the joker's swap, so callers use it only where none is in force (otherwise it may say
    False wrongly).

    Args:
        turn: the turn in progress (read only): its rows, hand and parked cards.

    Returns:
        True unless the search proves that no held card fits any board rebuilds reach (True as well when
        the search limit was reached).
    """
    g = turn.g
    key = (id(g), tuple(map(tuple, turn.rows)))
    hit = _OPENINGS_MEMO.get(key)
    if hit is not None and hit[0] is g:
        found = hit[1]
    else:
        if len(_OPENINGS_MEMO) >= _OPENINGS_KEPT:
            _OPENINGS_MEMO.clear()
        found = reachable_openings(g, turn.rows)
        _OPENINGS_MEMO[key] = (g, found)
    if found is None:
        return True  # undecided: the search limit was reached
    ends, empty, gaps = found
    hand = set(turn.hand)
    held = hand | set(turn.parked)
    steps = g.steps
    return (
        any(v - e in steps for v in held for e in ends)
        or any(g.may_open(v, i) for i in empty for v in held)
        or any(v in gaps for v in hand)
    )
