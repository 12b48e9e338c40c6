"""The legal-move listing of a rows-family turn: lays, rebuilds, character plays, exchanges, minus cards.

Each function takes a :class:`~kbsim.engine.rows.turn.Turn` and lists the moves that are legal for it now
(the :class:`~kbsim.engine.rows.moves.Move` types); :meth:`Turn.legal_moves` is their union.
The legality checks themselves stay in the turn (:meth:`Turn.can_lay`, :meth:`Turn.can_rebuild`, ...).
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Final

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.moves import (
    DONE,
    END_TURN,
    PASS,
    START,
    EndTurn,
    Exchange,
    FillGap,
    Lay,
    LayParked,
    LayStart,
    Minus,
    Move,
    Pass,
    Play,
    Rebuild,
    Swap,
)
from kbsim.engine.rows.usage import FILL_GAP, JOKER_SWAP, PARKED

if TYPE_CHECKING:  # (the turn imports this module; typed, the compiled listing reads the turn's fields directly)
    from kbsim.engine.rows.turn import Turn

_new: Final = tuple.__new__  # builds a move without the named tuple's Python-level constructor (hot loops)


def lay_moves(turn: Turn) -> list[Move]:
    """Every legal lay: on row ends, before row starts (modifier), into gaps, the joker swap, parked cards.

    Args:
        turn: the turn in progress (read only).

    Returns:
        The legal lays in a fixed order: :class:`Lay` (cards ascending, then rows), :class:`LayStart`,
        :class:`FillGap`, :class:`Swap`, :class:`LayParked`; empty once the turn is over. A seat barred from a
        kind of move (restricted play, :attr:`Turn.bar`) gets none of that kind.
    """
    if turn.phase == DONE:
        return []
    rows = turn.rows
    g = turn.g
    cards = sorted(set(turn.hand))
    if turn.m_equal or turn.skips:
        out: list[Move] = [Lay(card, r) for card in cards for r in range(len(rows)) if turn.can_lay(card, r)]
    else:
        # the same test as can_lay without a modifier, inlined (this is the random bot's hot path):
        # a card fits a row end when it differs from the end (or the joker's value) by a step
        out = []
        steps = g.steps
        n_rows = len(rows)
        for card in cards:
            for r in range(n_rows):
                row = rows[r]
                if row:
                    e = row[-1]
                    if card - e in steps or (e < 0 and card + e in steps):
                        out.append(_new(Lay, (card, r)))
                elif g.may_open(card, r):
                    out.append(_new(Lay, (card, r)))
    if turn.m_start:
        out.extend(_start_lays(turn, cards))
    if 2 * g.step in (g.row_diffs or g.steps) and turn.allows(FILL_GAP):  # otherwise no row can hold a gap
        out.extend(_gap_fills(turn))
    if turn.state.joker is not None and turn.allows(JOKER_SWAP):
        out.extend(Swap(-c) for row in rows for c in row if c < 0 and -c in turn.hand)
    if turn.state.parked[turn.seat] and turn.allows(PARKED):
        out.extend(_parked_lays(turn))
    return out


def _gap_fills(turn: Turn) -> list[Move]:
    """The gap fills the hand allows: the exact missing card into a row's gap (rows in order, gaps in order)."""
    out: list[Move] = []
    hand = turn.hand
    for r in range(len(turn.rows)):
        for v in turn.gaps(r):
            if v in hand:
                out.append(FillGap(v, r))
    return out


def _start_lays(turn: Turn, cards: list[int]) -> list[Move]:
    """The lays before a row's first card that the active modifier allows (cards ascending, then rows)."""
    rows = turn.rows
    return [
        LayStart(card, r) for card in cards for r in range(len(rows)) if rows[r] and turn.start_fits(rows[r][0], card)
    ]


def _parked_lays(turn: Turn) -> list[Move]:
    """The lays of the seat's parked cards on row ends or into empty row cards (cards ascending, then rows)."""
    rows = turn.rows
    out: list[Move] = []
    for card in sorted(set(turn.parked)):
        for r in range(len(rows)):
            row = rows[r]
            if turn.end_fits(row[-1], card) if row else turn.g.may_open(card, r):
                out.append(LayParked(card, r))
    return out


def rebuild_moves(turn: Turn) -> list[Rebuild]:
    """Every legal rebuild (the rebuild rules and the active modifiers as :meth:`Turn.can_rebuild` checks them).

    Args:
        turn: the turn in progress (read only).

    Returns:
        The legal rebuilds, by source row, then segment length, then end before start segment, then target
        row; empty when the turn is over, the rules allow no rebuild or the turn has made its last one.
    """
    g = turn.g
    if turn.phase == DONE or not g.rebuild_allowed or turn.rebuilds >= g.max_rebuilds:
        return []
    out = []
    rows = turn.rows
    n = len(rows)
    steps = g.steps
    starts = (False, True) if g.rebuild_from_start else (False,)
    targets = (False, True) if (turn.m_start and turn.m_start_rb) else (False,)
    plain = not (turn.m_equal or turn.skips or turn.m_start)
    if plain and targets == (False,):
        return _plain_rebuild_moves(turn, starts)
    ends = [row[-1] if row else None for row in rows]
    fits = [None if e is None else _end_accepts(turn, e) for e in ends]
    for src in range(n):
        s = rows[src]
        length = len(s)
        if not length:
            continue
        ks = (length,) if g.rebuild_whole_only else range(1, length + 1)
        for k in ks:
            for fs in starts:
                if fs and k == length:
                    continue  # a whole row is already listed as an end segment
                first = s[0] if fs else s[length - k]
                for dst in range(n):
                    if dst == src:
                        continue
                    # cheap filter: on plain rows a segment can only go where its first card fits
                    end = ends[dst]
                    if plain and end is not None and first - end not in steps:
                        continue
                    fit = fits[dst]
                    for ts in targets:
                        if not ts and fit is not None and first not in fit[0] and abs(first) not in fit[1]:
                            continue  # (can_rebuild would refuse it)
                        if turn.can_rebuild(src, k, dst, fs, ts):
                            out.append(Rebuild(src, k, dst, fs, ts))
    return out


def _end_accepts(turn: Turn, e: int) -> tuple[set[int], set[int]]:
    """The first cards of a rebuilt segment a row ending in ``e`` accepts (the test of ``end_fits``, as sets).

    Args:
        turn: the turn in progress (its active modifiers widen the second set).
        e: the row's last card (negative: the joker standing for ``-e``).

    Returns:
        ``(raw, absolute)``: the cards one step from ``e`` itself, and the values one step from ``abs(e)``
        plus what an equal-value or skip modifier that applies to rebuilds adds.
    """
    g = turn.g
    steps = g.steps
    st = g.step
    a = abs(e)
    ok = {a + d for d in steps}
    if turn.m_equal and turn.m_equal_rb:
        ok.add(a)
    if turn.skips and turn.m_skip_rb and turn.skip_lo <= a + st <= turn.skip_hi:
        ok.add(a + 2 * st)
    return {e + d for d in steps}, ok


def _plain_rebuild_moves(turn: Turn, starts: tuple[bool, ...]) -> list[Rebuild]:
    """:meth:`rebuild_moves` without a modifier in play: the same moves in the same order.

    A segment fits a non-empty row exactly when its first card is that row's end plus a step, so the
    rows each first card may go to are looked up in one dict (value -> rows, ascending) instead of
    testing every segment against every row; empty rows still go through :meth:`can_rebuild`. While the
    joker lies in a row (stored as ``-value``) the values are compared, as :meth:`Turn.can_rebuild` does.
    """
    if turn.state.joker is not None:
        return _joker_rebuild_moves(turn, starts)
    return _plain_listing(turn, starts)


def _plain_listing(turn: Turn, starts: tuple[bool, ...]) -> list[Rebuild]:
    """The listing of :func:`_plain_rebuild_moves` on rows of story cards only."""
    g = turn.g
    rows = turn.rows
    n = len(rows)
    want = _rows_accepting(rows, g.steps)
    empties = [dst for dst in range(n) if not rows[dst]] if g.rebuild_into_empty else []
    out: list[Rebuild] = []
    whole_only = g.rebuild_whole_only
    from_start = True in starts
    for src in range(n):
        s = rows[src]
        length = len(s)
        if not length:
            continue
        if whole_only or empties or (from_start and s[0] in want):
            _listed_segments(turn, src, (length,) if whole_only else range(1, length + 1), starts, want, empties, out)
            continue
        # only segments whose first card some row end accepts, k ascending (as above): one dict lookup per
        # position, from the row's end; inline, as this runs for every row at every listing (the random bot's hot
        # path). (A start segment's first card s[0] fits no row end here, so only end segments are listed.)
        i = length - 1
        while i >= 0:
            dsts = want.get(s[i])
            if dsts is not None:
                k = length - i
                for dst in dsts:
                    if dst != src:
                        out.append(_new(Rebuild, (src, k, dst, False, False)))
            i -= 1
    return out


def _joker_rebuild_moves(turn: Turn, starts: tuple[bool, ...]) -> list[Rebuild]:
    """:func:`_plain_rebuild_moves` while the joker lies in a row: the same listing on the rows' values.

    The joker stands for its value in every joint (:meth:`Turn.can_rebuild` compares ``abs`` of both cards), so
    the listing is made on the rows with the joker replaced by its value; the moves name rows and counts only,
    so they are the moves of the real rows.
    """
    real = turn.rows
    turn.rows = [[abs(c) for c in row] if any(c < 0 for c in row) else row for row in real]
    try:
        return _plain_listing(turn, starts)
    finally:
        turn.rows = real


def _listed_segments(
    turn: Turn,
    src: int,
    ks: range | tuple[int, ...],
    starts: tuple[bool, ...],
    want: dict[int, list[int]],
    empties: list[int],
    out: list[Rebuild],
) -> None:
    """Append to ``out`` the rebuilds of the segments of lengths ``ks`` of row ``src`` (the general listing).

    For every length, end segment before start segment (a whole row only as an end segment), targets
    ascending: the row ends ``want`` names for the segment's first card and, where rebuilds may go onto an
    empty row card, the ``empties`` that :meth:`Turn.can_rebuild` accepts.
    """
    rows = turn.rows
    s = rows[src]
    length = len(s)
    for k in ks:
        for fs in starts:
            if fs and k == length:
                continue  # a whole row is already listed as an end segment
            first = s[0] if fs else s[length - k]
            cands = want.get(first)
            if empties:
                for dst in sorted((*(cands or ()), *empties)):
                    if dst != src and (rows[dst] or turn.can_rebuild(src, k, dst, fs, False)):
                        out.append(Rebuild(src, k, dst, fs, False))
            elif cands:
                for dst in cands:
                    if dst != src:
                        out.append(_new(Rebuild, (src, k, dst, fs, False)))


def _rows_accepting(rows: list[list[int]], steps: frozenset[int]) -> dict[int, list[int]]:
    """Card value -> the non-empty rows (ascending) whose last card it continues by one of ``steps``."""
    want: dict[int, list[int]] = {}
    for dst in range(len(rows)):
        row = rows[dst]
        if row:
            e = row[-1]
            for d in steps:
                rows_for = want.get(e + d)
                if rows_for is None:
                    want[e + d] = [dst]  # (no empty list built for every lookup, as setdefault would)
                else:
                    rows_for.append(dst)
    return want


def can_exchange(turn: Turn) -> bool:
    """True if some exchange is legal now (:func:`exchange_moves` is not empty), without listing them."""
    g = turn.g
    if turn.phase != START and turn.provisional:
        return can_exchange(turn.restored())
    if turn.phase != START or not g.exchange_allowed or (g.exchange_requires_pile and not turn.pile_size):
        return False
    return len(turn.hand) >= g.exchange_min


def exchange_moves(turn: Turn) -> list[Exchange]:
    """Every legal exchange, one per distinct multiset of hand cards (sorted)."""
    g = turn.g
    if turn.phase != START and turn.provisional:
        return turn.restored().exchange_moves()
    if not can_exchange(turn):
        return []
    hand = sorted(turn.hand)
    seen = set()
    for k in range(g.exchange_min, len(hand) + 1):
        for combo in combinations(hand, k):
            seen.add(combo)
    return [Exchange(c) for c in sorted(seen, key=lambda c: (len(c), c))]


def play_moves(turn: Turn, limit: int = 300) -> list[Play]:
    """Legal character plays (at most ``limit`` per character), arguments chosen step by step.

    A power of one step whose listed choices always apply (``choices_apply``) is listed on the turn itself:
    a step's ``choices`` reads the table, the hands, parked cards and the discard pile, never the character
    zones, so the copy with the played card detached that a power of several steps is tried on would list
    the same choices.
    """
    out: list[Play] = []
    for key in turn.available_characters():
        ch = turn.g.character(key)
        steps = ch.steps
        if len(steps) == 1 and steps[0].choices_apply:
            if limit > len(out):
                for a in steps[0].choices(turn, limit - len(out)):
                    out.append(Play(key, (a,)))
            continue
        probe = turn.clone()
        # detach the card as a real play would, so the steps see the same table
        if turn.g.chars_display_mode:
            probe.state.display.remove(key)
        else:
            probe.state.char_piles[turn.seat].pop(0)
        _extend_plays(out, key, steps, probe, (), 0, limit)
    return out


def _extend_plays(out: list[Play], key: str, steps: tuple, sb: Turn, prefix: tuple, i: int, limit: int) -> None:
    """List into ``out`` the plays of ``key`` whose first ``i`` step arguments are ``prefix`` (applied on ``sb``).

    Depth-first, at most ``limit`` plays in ``out`` (a module function, not a closure: a closure calling itself
    is a reference cycle that only the cycle collector frees, with the copies it holds).
    """
    if len(out) >= limit:
        return
    if i == len(steps):
        out.append(Play(key, prefix))
        return
    step = steps[i]
    if i + 1 == len(steps) and step.choices_apply:
        # the last step, whose listed choices always apply: no copy to try each on (same plays)
        for a in step.choices(sb, limit - len(out)):
            out.append(Play(key, (*prefix, a)))
        return
    for a in step.choices(sb):
        if len(out) >= limit:
            return  # (no copy for a choice that could not be listed)
        nxt = sb.clone()
        try:
            step.apply(nxt, a)
        except IllegalMove:
            continue
        _extend_plays(out, key, steps, nxt, (*prefix, a), i + 1, limit)


def minus_moves(turn: Turn) -> list[Minus]:
    """Legal minus-pile moves (each distinct choice of cards; parked cards when the hand is empty).

    The minus pile is the whole turn: after provisional moves it is listed on the restored table. Where it is
    only for a seat that cannot lay (``turn.minus.only_when_stuck``), a seat whose provisional moves left it
    unable to lay any card (:meth:`~kbsim.engine.rows.turn.Turn.stuck_here`) may take it too,
    restored table and all: the solo rules' "if you cannot manage this (even after playing a character
    card), you must place one hand card on a minus pile", and the engine's promise that every state of a turn
    has a legal way to finish it (rule file, clarification "A turn that lays nothing"). Where moves are final
    (:meth:`~kbsim.engine.rows.turn.Turn.stranded`), a turn they left unable to lay takes it as it stands.
    """
    here = None
    if turn.phase != START and turn.provisional:
        here, turn = turn, turn.restored()
    g = turn.g
    source = sorted(turn.hand) if turn.hand else sorted(c for c, _ in turn.state.parked[turn.seat])
    if not g.minus_allowed or not source:
        return []
    if turn.phase != START:
        if not turn.stranded():  # (moves final, and they left the turn unable to lay)
            return []
    elif g.minus_only_when_stuck and turn.can_lay_anything() and not (here is not None and here.stuck_here()):
        return []
    k = min(g.minus_cards, len(source))
    return [Minus(c) for c in sorted(set(combinations(source, k)))]


def legal_moves(turn: Turn) -> list[Move]:
    """All legal moves now: lays, rebuilds, character plays, ending the turn, exchanges, pass, minus."""
    moves: list[Move] = [*lay_moves(turn), *rebuild_moves(turn), *play_moves(turn)]
    if turn.can_end():
        moves.append(END_TURN)
    moves.extend(exchange_moves(turn))
    if turn.can_pass():
        moves.append(PASS)
    moves.extend(minus_moves(turn))
    return moves


def finishing_moves(turn: Turn) -> list[Move]:
    """Moves that end this turn legally, from what the engine lists as legal (read only).

    End the turn if it may end; else lay a card (after the rebuilds that allow one); else the first
    legal exchange, pass or minus move. Worked out on a copy of the turn; the caller applies the
    moves in order through :meth:`Turn.apply`. A fallback for bots whose own plan found no legal way to
    finish.

    Args:
        turn: the turn in progress (read only: the moves are worked out on a copy).

    Returns:
        The moves, the last one ending the turn (empty if the turn is already over).

    Raises:
        IllegalMove: no legal way to finish the turn (an engine defect).
    """
    t = turn.clone()
    out: list[Move] = []

    def do(mv: Move) -> None:
        t.apply(mv)
        out.append(mv)

    for _ in range(4 * (len(t.hand) + len(t.parked) + 1)):
        if t.phase == DONE:
            return out
        if t.can_end():
            do(END_TURN)
            return out
        lays = t.lay_moves()
        if not lays:
            found, path = t.lay_path()
            if found:
                for mv in path:
                    do(mv)
                lays = t.lay_moves()
        if lays:
            do(lays[0])
            continue
        finish: list[Move] = [*t.exchange_moves(), *([PASS] if t.can_pass() else []), *t.minus_moves()]
        if finish:
            do(finish[0])
            return out
        break
    if t.phase != DONE:
        moves = [m for m in t.legal_moves() if type(m) in (EndTurn, Exchange, Pass, Minus)]
        if not moves:
            raise IllegalMove("no legal way to finish this turn (an engine defect)")
        do(moves[0])
    return out
