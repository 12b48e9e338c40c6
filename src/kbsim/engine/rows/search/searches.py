"""The turn searches over whole turn clones and over runs, and the tests of which search models a turn.

The link-count search is in :mod:`~kbsim.engine.rows.search.link_search`, the rows search in
:mod:`~kbsim.engine.rows.search.row_search`.

See :mod:`kbsim.engine.rows.search` for when each runs.
Each returns a :class:`~kbsim.engine.rows.search.frontier.Plan`.
"""

from __future__ import annotations

from typing import cast

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import Move
from kbsim.engine.rows.search.frontier import (
    Frontier,
    Plan,
    Row,
    Rows,
    evaluate,
    no_plan,
)
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import DONE, Turn


def simple_rules(g: CompiledGame) -> bool:
    """True if the rules are those the fast engines model.

    That is: plain card values, one opening rule for every row card, rebuilds of any segment the
    options allow.
    """
    return (
        not getattr(g, "value_shift", 0)
        and not getattr(g, "suit_codes", ())
        and all(x is None for x in getattr(g, "row_open", ()))
        and not getattr(g, "rebuild_whole_only", False)
        and not getattr(g, "must_lay", ())
    )


def plain_turn(turn: Turn) -> bool:
    """True if the fast engines model ``turn`` exactly: no marks, extra rows, parked cards or modifiers."""
    if turn.m_start or turn.m_equal or turn.skips:
        return False
    st = turn.state
    if st.joker is not None or len(turn.rows) != st.n_fixed or st.parked[turn.seat]:
        return False
    steps = turn.g.steps
    for row in turn.rows:
        for j in range(1, len(row)):
            a = row[j - 1]
            if row[j] - a not in steps or a < 0:
                return False
    return True


_ROW_FIELDS = frozenset(("row", "src", "dst"))
"""Fields of a move that name a row (by index)."""

_ROW_MASKS: dict[type, tuple[bool, ...]] = {}
"""Per move type: which of its fields name a row (from :data:`_ROW_FIELDS`)."""


def _row_mask(mv: Move) -> tuple[bool, ...]:
    """Which fields of ``mv`` name a row, kept per move type."""
    m = _ROW_MASKS.get(type(mv))
    if m is None:
        m = _ROW_MASKS[type(mv)] = tuple([name in _ROW_FIELDS for name in mv._fields])
    return m


def _clone_key(t: Turn, same_rows: bool) -> tuple:
    """The key of a position of the clones search: rows (as a multiset if ``same_rows``), hand, parked, skips."""
    rows = tuple(map(tuple, t.rows))
    return (tuple(sorted(rows)) if same_rows else rows, tuple(sorted(t.hand)), tuple(sorted(t.parked)), t.skips)


class _SearchState(GameState):
    """The zones of a position of the clones search, whose :meth:`copy` shares what a lay or rebuild never changes.

    The clones search copies the turn for every move it tries (``Turn.clone`` copies the state through its
    ``copy``). A lay, gap fill, joker swap, parked-card lay or rebuild changes only the rows, this seat's
    hand and parked cards, the discard pile (a completed row) and, with the joker, the character piles,
    display and deck; the draw piles, the other seats' hands and parked cards, the minus piles, the box and
    the play counts are shared between a position and its copies instead of copied.
    """

    def copy(self) -> GameState:
        """A copy for one more search move: the zones a lay or rebuild can change are new lists, the rest shared."""
        return _SearchState(
            rows=[list(r) for r in self.rows],
            hands=[list(h) for h in self.hands],
            piles=self.piles,
            discard=list(self.discard),
            parked=[list(p) for p in self.parked],
            minus=self.minus,
            char_piles=[list(p) for p in self.char_piles],
            display=list(self.display),
            char_deck=list(self.char_deck),
            box=self.box,
            joker=self.joker,
            turn_no=self.turn_no,
            n_fixed=self.n_fixed,
            char_plays=self.char_plays,
        )


def _search_root(t: Turn) -> None:
    """Give the sandbox ``t`` a :class:`_SearchState` holding its own zone lists (the turn's references stay valid)."""
    st = t.state
    t.state = _SearchState(
        rows=st.rows,
        hands=st.hands,
        piles=st.piles,
        discard=st.discard,
        parked=st.parked,
        minus=st.minus,
        char_piles=st.char_piles,
        display=st.display,
        char_deck=st.char_deck,
        box=st.box,
        joker=st.joker,
        turn_no=st.turn_no,
        n_fixed=st.n_fixed,
        char_plays=st.char_plays,
    )


def search_clones(root: Turn, budget: int, prune: bool) -> Plan:
    """Breadth-first search over copies of the turn itself (any position the engine can hold).

    Positions are keyed by the rows as a multiset, the hand, the usable parked
    cards and the skips left; moves are the turn's own ``lay_moves`` and
    ``rebuild_moves``. Cards laid count every card the turn lays (hand and
    parked cards, gap fills, the joker swap). ``root`` is a sandbox the search
    owns: its state becomes a :class:`_SearchState` (the same zone lists), so
    the copies share the zones no move changes.
    """
    g = root.g
    same_rows = simple_rules(g)  # row cards are interchangeable (else, e.g. corners, keep their order)
    _search_root(root)  # its copies share the zones no lay or rebuild changes
    base = root.laid
    total = len(root.hand) + len(root.parked)
    fr = Frontier(
        root,
        _clone_key(root, same_rows),
        needed=0,
        full=total if prune else float("inf"),
        budget=budget,
        root_ok=root.can_end(),
        lays_first=prune,
    )
    seen = fr.seen
    nf = root.state.n_fixed
    for node in fr:
        t: Turn = node  # (typed: the compiled build then calls the turn's methods directly)
        if t.phase == DONE:
            continue
        rows = t.rows
        tried: set[tuple] = set()
        for mv in [*t.lay_moves(), *t.rebuild_moves()]:
            if same_rows:  # the same move on a row of the same cards leaves the same position: try it once
                mask = _row_mask(mv)
                # (an index loop: compiled, zip(..., strict=True) is a generic call with a keyword dict)
                sig = tuple(
                    [
                        (tuple(rows[cast(int, mv[i])]), cast(int, mv[i]) < nf) if mask[i] else mv[i]
                        for i in range(len(mask))
                    ]
                )
                if (type(mv), sig) in tried:
                    continue
                tried.add((type(mv), sig))
            c = t.clone()
            c.apply(mv)
            k = _clone_key(c, same_rows)
            if k not in seen and fr.add(k, c, mv, c.laid - base, c.can_end(), c.won):
                break
    if not fr.cand:
        return no_plan(
            g, tuple(tuple(r) for r in root.rows), tuple(sorted(root.hand)), len(fr.seen), fr.truncated, "clones"
        )
    nodes = fr.states
    best = fr.best(lambda k: evaluate(g, nodes[k].rows, nodes[k].hand))
    end = nodes[best]
    return Plan(
        moves=tuple(fr.path(best)),
        laid=end.laid - base,
        score=evaluate(g, end.rows, end.hand),
        rows=tuple(tuple(r) for r in end.rows),
        hand=tuple(sorted(end.hand)),
        won=end.won,
        legal=True,
        nodes=len(fr.seen),
        exact=not fr.truncated,
        engine="clones",
    )


# A search's position loop, kept whole (noqa C901): its inner closures read the loop's locals on every
# position; split into functions, they would take them as arguments instead (the same split of greedy's hot
# loop cost 2.7%; this one was not measured -- open work of issue 12).
def search_runs(  # noqa: C901
    g: CompiledGame,
    rows0: Rows,
    hand0: tuple[int, ...],
    needed: int,
    reb_left: int,
    budget: int,
    full: int,
):
    """Breadth-first search for rules whose rows are strict runs (one step, no repeats).

    A row is then fully described by its first and last value, coded as one int
    ``(first + o) << 8 | (last + o)`` (0 = empty), which makes positions cheap to
    copy, sort and hash. Returns ``(candidates, parents, moves, truncated, nodes)``
    where candidates are ``(index, rows, hand)`` of the positions laying the most cards.
    """
    st = g.step
    o = 1 - g.value_min
    may_open = g.may_open
    is_complete = g.is_complete
    check_complete = g.complete_when_all
    full_len = g.full_length
    from_start = g.rebuild_from_start
    into_empty = g.rebuild_into_empty
    can_rebuild = g.rebuild_allowed and reb_left > 0
    n0 = len(hand0)

    def code(first: int, last: int) -> int:
        return ((first + o) << 8) | (last + o)

    def length(first: int, last: int) -> int:
        return (last - first) // st + 1

    def closed(first: int, last: int) -> int:
        """The code of the run first..last, or 0 if it completes (and leaves the table)."""
        if check_complete and (last - first) // st + 1 >= full_len and is_complete(list(range(first, last + st, st))):
            return 0
        return ((first + o) << 8) | (last + o)

    start = tuple(code(r[0], r[-1]) if r else 0 for r in rows0)
    nr = len(start)
    # a position is (row codes, hand, rebuilds made)
    fr = Frontier((start, hand0, 0), (*sorted(start), *hand0), needed=needed, full=full, budget=budget)
    seen = fr.seen
    for cur, hand, reb in fr:
        firsts = [((c >> 8) - o) if c else 0 for c in cur]
        lasts = [((c & 255) - o) if c else 0 for c in cur]
        children = []
        # ---- lays
        if hand:
            done = set()
            opened = False
            for r in range(nr):
                c = cur[r]
                if c in done:
                    continue
                done.add(c)
                if c:
                    v = lasts[r] + st
                    if v in hand:
                        j = hand.index(v)
                        children.append((r, closed(firsts[r], v), -1, 0, hand[:j] + hand[j + 1 :], (0, v, r, 0, 0)))
                elif not opened:
                    opened = True
                    prev = None
                    for j, v in enumerate(hand):
                        if v != prev and may_open(v):
                            children.append((r, code(v, v), -1, 0, hand[:j] + hand[j + 1 :], (0, v, r, 0, 0)))
                        prev = v
        # ---- rebuilds
        if can_rebuild and reb < reb_left:
            done_src = set()
            for s in range(nr):
                cs = cur[s]
                if not cs or cs in done_src:
                    continue
                done_src.add(cs)
                fs, ls = firsts[s], lasts[s]
                n = (ls - fs) // st + 1
                done_dst = set()
                for d in range(nr):
                    cd = cur[d]
                    if d == s or cd in done_dst:
                        continue
                    done_dst.add(cd)
                    if cd:
                        fd = firsts[d]
                        f = lasts[d] + st
                        q, rem = divmod(f - fs, st)
                        if not rem and 0 <= q < n:  # end segment f..ls onto d
                            children.append(
                                (s, code(fs, f - st) if q else 0, d, closed(fd, ls), hand, (1, s, n - q, d, False))
                            )
                        if from_start and fs == f:  # start segments fs..fs+(k-1)st onto d
                            for k in range(1, n):
                                children.append(
                                    (
                                        s,
                                        code(fs + k * st, ls),
                                        d,
                                        closed(fd, fs + (k - 1) * st),
                                        hand,
                                        (1, s, k, d, True),
                                    )
                                )
                    elif into_empty:
                        for q in range(1, n):
                            v = fs + q * st
                            if may_open(v):
                                children.append((s, code(fs, v - st), d, code(v, ls), hand, (1, s, n - q, d, False)))
                        if from_start and may_open(fs):
                            for k in range(1, n):
                                children.append(
                                    (s, code(fs + k * st, ls), d, code(fs, fs + (k - 1) * st), hand, (1, s, k, d, True))
                                )
        for r1, c1, r2, c2, h, mv in children:
            new = list(cur)
            new[r1] = c1
            if r2 >= 0:
                new[r2] = c2
            key = (*sorted(new), *h)  # the first nr items are rows, the rest the hand
            if key not in seen and fr.add(key, (tuple(new), h, reb + (r2 >= 0)), mv, n0 - len(h)):
                break

    def decode(c: int) -> Row:
        if not c:
            return ()
        first, last = (c >> 8) - o, (c & 255) - o
        return tuple(range(first, last + st, st))

    cand = [(k, tuple(decode(c) for c in fr.states[k][0]), fr.states[k][1]) for k in fr.cand]
    return cand, fr.parents, fr.moves, fr.truncated, len(fr.seen)
