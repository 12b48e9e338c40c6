"""The turn searches: over whole turn clones, over the links of plain rows, over runs, and row by row.

See :mod:`kbsim.engine.rows.search` for when each runs.
Each returns a :class:`~kbsim.engine.rows.search.frontier.Plan`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import FillGap, Lay, LayParked, Move, Rebuild, Swap
from kbsim.engine.rows.search.frontier import (
    WEIGHTS,
    Plan,
    PlanError,
    Row,
    Rows,
    _Frontier,
    _no_plan,
    _replay,
    evaluate,
)
from kbsim.engine.rows.turn import DONE, Turn


def _simple_rules(g: CompiledGame) -> bool:
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


def _plain(turn: Turn) -> bool:
    """True if the fast engines model ``turn`` exactly: no marks, extra rows, parked cards or modifiers."""
    if turn.m_start or turn.m_equal or turn.skips:
        return False
    st = turn.state
    if st.joker is not None or len(turn.rows) != st.n_fixed or st.parked[turn.seat]:
        return False
    steps = turn.g.steps
    for row in turn.rows:
        for a, b in pairwise(row):
            if b - a not in steps or a < 0:
                return False
    return True


_ROW_FIELDS = frozenset(("row", "src", "dst"))
"""Fields of a move that name a row (by index)."""


def _search_clones(root: Turn, budget: int, prune: bool) -> Plan:
    """Breadth-first search over copies of the turn itself (any position the engine can hold).

    Positions are keyed by the rows as a multiset, the hand, the usable parked
    cards and the skips left; moves are the turn's own ``lay_moves`` and
    ``rebuild_moves``. Cards laid count every card the turn lays (hand and
    parked cards, gap fills, the joker swap).
    """
    g = root.g
    same_rows = _simple_rules(g)  # row cards are interchangeable (else, e.g. corners, keep their order)

    def key(t: Turn) -> tuple:
        rows = tuple(map(tuple, t.rows))
        return (tuple(sorted(rows)) if same_rows else rows, tuple(sorted(t.hand)), tuple(sorted(t.parked)), t.skips)

    base = root.laid
    total = len(root.hand) + len(root.parked)
    fr = _Frontier(
        root,
        key(root),
        needed=0,
        full=total if prune else float("inf"),
        budget=budget,
        root_ok=root.can_end(),
        lays_first=prune,
    )
    nf = root.state.n_fixed
    for t in fr:
        if t.phase == DONE:
            continue
        rows = t.rows
        tried: set[tuple] = set()
        for mv in [*t.lay_moves(), *t.rebuild_moves()]:
            if same_rows:  # the same move on a row of the same cards leaves the same position: try it once
                sig = tuple(
                    (tuple(rows[x]), x < nf) if name in _ROW_FIELDS else x
                    for name, x in zip(mv._fields, mv, strict=True)
                )
                if (type(mv), sig) in tried:
                    continue
                tried.add((type(mv), sig))
            c = t.clone()
            c.apply(mv)
            k = key(c)
            if k not in fr.seen and fr.add(k, c, mv, c.laid - base, c.can_end(), c.won):
                break
    if not fr.cand:
        return _no_plan(
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


def _links_apply(g: CompiledGame, rows0: Sequence[Sequence[int]], n0: int, reb_left: int) -> bool:
    """True if the rules allow the link-count search (:func:`_search_links`) to be exact.

    It needs rows that are strict runs by +1 or -1, rebuilds of end segments
    onto non-empty rows (the default rebuild rules), plus the options "start
    segments" (``rebuild_from_start``) and "splits into an empty row"
    (``rebuild_into_empty``), both only where any value may open a row, and
    enough rebuilds left for every merge, completion and tail swap a turn
    could need.
    """
    if not (
        len(g.steps) == 1 and g.step in (1, -1) and g.rebuild_allowed and g.full_length == g.value_max - g.value_min + 1
    ):
        return False
    if g.rebuild_from_start and g.rebuild_into_empty and not g.open_any:
        return False  # start segments into an empty row are splits only when any value may open a row
    cards = sum(len(r) for r in rows0) + n0
    need = len(rows0) + n0 + (cards // g.full_length + 1) * g.full_length
    if g.rebuild_from_start:
        # a start segment may need a chain of tail swaps first; should a plan still need more rebuilds than
        # are left, carrying it out fails and plan_turn falls back to the runs search
        need += 2 * g.full_length
    return reb_left >= need


# A search's position loop, kept whole (noqa C901): its inner closures read the loop's locals on every
# position; split into functions, they would take them as arguments instead (the same split of greedy's hot
# loop cost 2.7%; this one was not measured -- open work of issue 12).
def _search_links(  # noqa: C901
    sb: Turn,
    rows0: Rows,
    hand0: tuple[int, ...],
    needed: int,
    reb_left: int,
    budget: int,
    full: int,
    prune: bool,
) -> Plan:
    """Exact search over link counts, for strict runs with the default rebuild rules.

    Why it is exact. Number the values along the step (position 0 is the
    first value of a complete row). Describe the table by ``n[p]``, the cards
    of position ``p``, and ``l[p]``, how many of them are followed in their row
    by a card of position ``p + 1``. Then the row ends at ``p`` number
    ``n[p] - l[p]``, the row starts ``n[p] - l[p-1]``, the rows their sum.
    Each move changes these counts in a way that depends only on them:

    * a lay of ``c`` needs a row end one step below it (``n[c-1] > l[c-1]``):
      ``n[c] += 1``, ``l[c-1] += 1``; opening an empty row: ``n[c] += 1``;
    * a rebuild moving the tail ``f..`` of a row onto a row ending at ``f - 1``
      breaks one link ``f-1 -> f`` and makes another: no count changes, unless
      ``f`` was the row's first card (the whole row moves: ``l[f-1] += 1``, a
      row card is freed);
    * a complete row is possible exactly when every ``l[p] >= 1``: starting
      from a row that begins at position 0, repeatedly moving onto its end the
      tail of a row that bridges the boundary after that end builds it. It
      removes one card per position and one link per boundary, and never hurts
      (row ends and starts that can still be used are unchanged, a row card is
      freed), so the search completes rows whenever it can.

    Since which row holds which tail never matters, the search runs over
    ``(n, l, hand)`` with three moves (lay on an end, open a row, move a whole
    row) and rebuilds that only swap tails are left out.

    Two rebuild options keep this exact, each a move on the counts alone:

    * **splits into an empty row** (``rebuild_into_empty``): the cards after a
      link ``p -> p + 1`` go to an empty row card (``may_open(p + 1)``): some
      row holds such a link exactly when ``l[p] >= 1``; ``l[p] -= 1``, a row
      end at ``p``, a row start at ``p + 1``, one row more;
    * **start segments** (``rebuild_from_start``): the first ``k`` cards
      ``f..f+k-1`` of a row go onto a row ending at ``f - 1``. Some row starting
      at ``f`` can be made to run past ``f + k - 1`` by tail swaps exactly when
      every boundary ``f .. f+k-1`` has a link (while that row ends at ``a`` below
      ``f + k``, the link ``a -> a + 1`` lies in another row, whose tail moves
      onto it); then ``l[f-1] += 1``, ``l[f+k-1] -= 1``, the row end moves from
      ``f - 1`` to ``f + k - 1`` and the row start from ``f`` to ``f + k``.

    With both options, the first ``k`` cards of a row moved into an empty row
    change the counts as the split after ``f + k - 1`` does; that is the same
    move where any value may open a row (the only case searched here).

    With start segments the whole-row moves of ``prune`` (below) are not made
    at once (a row end may then serve start segments too); with splits they
    are, where every value may open a row (a split onto the freed row card
    undoes the move, so nothing is lost).

    With ``prune``, a whole row starting at ``f`` is moved onto a row ending at
    ``f - 1`` at once whenever the hand holds no card ``f``: that row end then
    serves nothing but such moves, so the move can only help (a row card is
    freed, a boundary bridged). The winning sequence
    is then carried out on a real :class:`~kbsim.engine.rows.turn.Turn` (any row with
    the needed end or start will do), which also checks it.

    Args:
        sb: a sandbox copy of the turn; the plan is carried out on it.
        rows0: the rows on the table at the start (row cards first), as tuples of card values.
        hand0: the hand at the start, sorted card values.
        needed: cards the turn must still lay before it may end.
        reb_left: rebuilds still allowed this turn (checked beforehand by :func:`_links_apply`).
        budget: positions the search may store before it stops (the plan is then not exact).
        full: cards laid at which the search stops at once (the whole hand, or more than it when the
            search must run to the end).
        prune: make the whole-row moves that can only help at once (see above) and, with the rebuild
            options, expand the positions that laid the most cards first.

    Returns:
        The best plan found (most cards laid, then :func:`evaluate`), already carried out on ``sb``.

    Raises:
        PlanError: carrying out the plan on ``sb`` laid a different number of cards than the search expected.
    """
    g = sb.g
    K = g.full_length
    B = K - 1
    up = g.step == 1
    vmin, vmax = g.value_min, g.value_max
    do_complete = g.complete_when_all
    n_rows = len(rows0)

    def val(p: int) -> int:
        return vmin + p if up else vmax - p

    def pos(v: int) -> int:
        return v - vmin if up else vmax - v

    # A position is six ints. E, S, L and H pack one count per position into fields of W bits:
    # E row ends, S row starts, L links across each boundary p -> p + 1, H hand cards.
    # Z counts the boundaries with no link (a row can be completed when Z == 0); R counts the rows.
    # Counts never reach 2 ** (W - 1), so adding ``half`` to a field sets its top bit iff it is not 0.
    W = g.copies.bit_length() + 1
    M = (1 << W) - 1
    one = [1 << (W * p) for p in range(K + 1)]
    lows = sum(one[:K])
    lows_b = sum(one[:B])
    half = lows * ((1 << (W - 1)) - 1)
    top = W - 1
    opener = sum(one[p] for p in range(K) if g.may_open(val(p)))

    def nz(x: int) -> int:
        """The low bit of each field set where the field of ``x`` is not 0."""
        return ((x + half) >> top) & lows

    def close(E: int, S: int, L: int, Z: int, R: int) -> tuple[int, int, int, int, int]:
        """Complete rows while every boundary is bridged (each completion: one card per position)."""
        while do_complete and Z == 0:
            L -= lows_b
            E -= one[B]
            S -= one[0]
            R -= 1
            Z = B - (nz(L) & lows_b).bit_count()
        return E, S, L, Z, R

    def merge_free(E: int, S: int, L: int, Z: int, R: int, H: int, fs) -> tuple[int, int, int, int, int]:
        """With ``prune``: make every whole-row move at a position in ``fs`` that the hand cannot use."""
        for f in fs:
            if 0 < f < K and not (H >> (W * f)) & M:
                while (E >> (W * (f - 1))) & M and (S >> (W * f)) & M:
                    E -= one[f - 1]
                    S -= one[f]
                    R -= 1
                    if not (L >> (W * (f - 1))) & M:
                        Z -= 1
                    L += one[f - 1]
                    E, S, L, Z, R = close(E, S, L, Z, R)
        return E, S, L, Z, R

    starts = g.rebuild_from_start
    splits = g.rebuild_into_empty
    split_at = sum(one[p] for p in range(B) if g.may_open(val(p + 1)))
    # with splits, a whole-row move can be undone (the freed row card takes the split) when any value opens a row
    merge = prune and not starts and (not splits or split_at == lows_b)
    E = S = L = R = H = 0
    for row in rows0:
        if not row:
            continue
        E += one[pos(row[-1])]
        S += one[pos(row[0])]
        R += 1
        for v in row[:-1]:
            L += one[pos(v)]
    for card in hand0:
        H += one[pos(card)]
    Z = B - (nz(L) & lows_b).bit_count()
    E, S, L, Z, R = close(E, S, L, Z, R)
    if merge:
        E, S, L, Z, R = merge_free(E, S, L, Z, R, H, range(1, K))
    start = (E, S, L, Z, R, H)
    # with the rebuild options, lays first: a turn laying the whole hand is found without listing every board
    fr = _Frontier(start, start, needed=needed, full=full, budget=budget, lays_first=prune and (starts or splits))
    states, laids, seen = fr.states, fr.laids, fr.seen
    for E, S, L, Z, R, H in fr:
        laid = laids[fr.parent] + 1
        children: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
        nh = nz(H)
        ne = nz(E)
        lay_mask = nh & (ne << W)
        open_mask = nh & opener if R < n_rows else 0
        for mask, kind in ((lay_mask, 0), (open_mask, 1)):
            while mask:
                low = mask & -mask
                mask ^= low
                p = (low.bit_length() - 1) // W
                H2 = H - low
                if kind == 0:  # lay on a row end
                    below = low >> W
                    Z2 = Z if L & (below * M) else Z - 1
                    c = (E - below + low, S, L + below, Z2, R)
                    if Z2 == 0:
                        c = close(*c)
                else:  # open an empty row
                    c = (E + low, S + low, L, Z, R + 1)
                if merge and (nz(c[0]) << W) & nz(c[1]) & (low | (low << W)) & ~nz(H2):
                    c = merge_free(*c, H2, (p, p + 1))  # only where a whole-row move is open at p or p + 1
                children.append(((*c, H2), (kind, p), laid))
        mask = nz(S) & (ne << W)
        while mask:  # move a whole row starting at f onto a row ending at f - 1
            low = mask & -mask
            mask ^= low
            f = (low.bit_length() - 1) // W
            below = low >> W
            Z2 = Z if L & (below * M) else Z - 1
            c = (E - below, S - low, L + below, Z2, R - 1)
            if Z2 == 0:
                c = close(*c)
            children.append(((*c, H), (2, f), laid - 1))
            if starts:  # the first k cards f..f+k-1 of a row starting at f onto a row ending at f - 1
                gain = 0 if L & (below * M) else 1
                top_k = low
                k = 1
                while top_k & lows_b and (L >> (W * (f + k - 1))) & M:
                    cut = one[f + k - 1]
                    Z3 = Z - gain + (1 if (L >> (W * (f + k - 1))) & M == 1 else 0)
                    c = (E - below + cut, S - low + one[f + k], L + below - cut, Z3, R)
                    if Z3 == 0:
                        c = close(*c)
                    children.append(((*c, H), (4, f, k), laid - 1))
                    top_k = one[f + k]
                    k += 1
        if splits and R < n_rows:
            mask = nz(L) & split_at
            while mask:  # the cards after a link p -> p + 1 onto an empty row card
                low = mask & -mask
                mask ^= low
                p = (low.bit_length() - 1) // W
                Z2 = Z + 1 if (L >> (W * p)) & M == 1 else Z
                children.append(((E + low, S + (low << W), L - low, Z2, R + 1, H), (3, p), laid - 1))
        for state, mv, lc in children:
            if state not in seen and fr.add(state, state, mv, lc):
                break

    def score(k: int) -> float:
        """:func:`evaluate` computed from the counts."""
        E, S, L, Z, R, H = states[k]
        accepts = (nz(E) & lows_b).bit_count()
        near = sum((H >> (W * p)) & M for p in range(2, K) if (E >> (W * (p - 2))) & M)
        w = WEIGHTS
        return w[0] * (n_rows - R) + w[1] * near + w[2] * accepts + w[3] * (B - Z) / max(1, B)

    if not fr.cand:
        return _no_plan(g, rows0, hand0, len(fr.seen), fr.truncated, "links")
    best = fr.best(score)
    before = sb.laid
    rows_after = []  # rows on the table after each step of the path (the start first)
    k = best
    while k >= 0:
        rows_after.append(states[k][4])
        k = fr.parents[k]
    rows_after.reverse()
    out = _realize(sb, fr.path(best), val, pos, merge, rows_after)
    laid = laids[best]
    if sb.laid - before != laid:
        raise PlanError(f"carrying out the plan laid {sb.laid - before} cards, the search expected {laid}")
    return Plan(
        moves=tuple(out),
        laid=laid,
        score=score(best),
        rows=tuple(tuple(r) for r in sb.rows),
        hand=tuple(sorted(sb.hand)),
        won=sb.won,
        legal=True,
        nodes=len(fr.seen),
        exact=not fr.truncated,
        engine="links",
    )


_ROWS_DELTA = (0, 1, -1, 1, 0)
"""Rows on the table gained by each kind of step of the link-count search (lay, open, whole row,
split, start segment), before completions and whole-row moves made at once."""


class _Realizer:
    """Carries out the steps of a :func:`_search_links` path on a turn (the helpers of :func:`_realize`).

    Args:
        turn: the turn the moves are applied to.
        val: position along the step -> card value.
        pos: card value -> position along the step.
        prune: make the whole-row moves the search made at once.

    Attributes:
        out: the concrete moves made so far.
    """

    def __init__(self, turn: Turn, val: Callable[[int], int], pos: Callable[[int], int], prune: bool):
        self.turn = turn
        self.g = turn.g
        self.rows = turn.rows
        self.val = val
        self.pos = pos
        self.prune = prune
        self.out: list[Move] = []

    def do(self, mv: Move) -> None:
        """Apply ``mv`` to the turn and record it."""
        self.turn.apply(mv)
        self.out.append(mv)

    def link_row(self, p: int, skip: int = -1) -> tuple[int, int]:
        """A row (not ``skip``) holding the link ``p -> p + 1``, and how many of its cards follow ``p``."""
        v = self.val(p)
        for i, row in enumerate(self.rows):
            if i != skip and row and v in row[:-1]:
                return i, len(row) - 1 - row.index(v)
        raise PlanError(f"no row holds the link {v}-{self.val(p + 1)}: {self.rows}")

    def complete_rows(self) -> None:
        """Complete rows while every boundary is bridged (tails moved onto a row starting at position 0)."""
        g, rows, pos, turn = self.g, self.rows, self.pos, self.turn
        while g.complete_when_all and turn.phase != DONE:
            if len({v for row in rows for v in row[:-1]}) < g.full_length - 1:
                return  # some boundary is not bridged: no row can be completed
            r = next(i for i, row in enumerate(rows) if row and pos(row[0]) == 0)
            while rows[r]:
                e = pos(rows[r][-1])
                src = next(
                    (i for i, row in enumerate(rows) if i != r and row and pos(row[0]) <= e < pos(row[-1])), None
                )
                if src is None:
                    raise PlanError(f"no row bridges {self.val(e)}-{self.val(e + 1)} to complete row {r + 1}: {rows}")
                self.do(Rebuild(src, pos(rows[src][-1]) - e, r))

    def merge_free(self) -> None:
        """Move every whole row whose first value the hand does not hold onto a row end it continues."""
        turn, rows, back = self.turn, self.rows, self.g.step
        hand = turn.hand
        while turn.phase != DONE:
            starts: dict[int, int] = {}
            ends: dict[int, int] = {}
            for i, row in enumerate(rows):
                if row:
                    starts.setdefault(row[0], i)
                    ends.setdefault(row[-1], i)
            v = next((v for v in starts if v not in hand and v - back in ends), None)
            if v is None:
                break
            src = starts[v]
            self.do(Rebuild(src, len(rows[src]), ends[v - back]))
        self.complete_rows()

    def settle(self) -> None:
        """Complete rows and, with ``prune``, make the whole-row moves made at once."""
        self.complete_rows()
        if self.prune:
            self.merge_free()

    def _find(self, pred: Callable[[list[int]], bool], what: str) -> int:
        r = next((i for i, row in enumerate(self.rows) if pred(row)), None)
        if r is None:
            raise PlanError(f"{what}: {self.rows}")
        return r

    def ending_at(self, p: int) -> int:
        """The first row ending at position ``p``."""
        v = self.val(p)
        return self._find(lambda row: bool(row) and row[-1] == v, f"no row ends at {v}")

    def starting_at(self, p: int) -> int:
        """The first row starting at position ``p``."""
        v = self.val(p)
        return self._find(lambda row: bool(row) and row[0] == v, f"no row starts at {v}")

    def empty_row(self) -> int:
        """The first empty row card."""
        return self._find(lambda row: not row, "no empty row card")

    def step(self, step: tuple[int, ...]) -> None:
        """Carry out one step ``(kind, p[, k])`` of the path (kinds as in :data:`_ROWS_DELTA`)."""
        rows, val, do = self.rows, self.val, self.do
        kind, p = step[0], step[1]
        if kind == 0:  # lay on a row end
            do(Lay(val(p), self.ending_at(p - 1)))
        elif kind == 1:  # open an empty row
            do(Lay(val(p), self.empty_row()))
        elif kind == 2:  # a whole row onto a row end
            src, dst = self.starting_at(p), self.ending_at(p - 1)
            do(Rebuild(src, len(rows[src]), dst))
        elif kind == 3:  # split after the link p -> p + 1 into an empty row
            src, n = self.link_row(p)
            do(Rebuild(src, n, self.empty_row()))
        else:  # the first k cards of a row starting at p onto a row ending at p - 1
            k = step[2]
            a = self.starting_at(p)
            while self.pos(rows[a][-1]) < p + k:  # tail swaps until row a runs past p + k - 1
                src, n = self.link_row(self.pos(rows[a][-1]), skip=a)
                do(Rebuild(src, n, a))
            do(Rebuild(a, k, self.ending_at(p - 1), True))


def _realize(
    turn: Turn,
    path: list[tuple[int, ...]],
    val: Callable[[int], int],
    pos: Callable[[int], int],
    prune: bool,
    rows_after: list[int] | None = None,
) -> list[Move]:
    """Carry out a :func:`_search_links` path on ``turn``; return the concrete moves made.

    After every step it completes rows while it can and, with ``prune``, makes
    the whole-row moves the search made at once, in the same order. A start
    segment is preceded by the tail swaps that make its row long enough.
    ``rows_after`` (the search's count of rows after each step, the start
    first) lets it skip that after a step where the search made neither
    (both lower the count of rows, nothing else changes it beyond the step's own
    ``_ROWS_DELTA``).

    Args:
        turn: the turn (a sandbox) the moves are applied to.
        path: the search's steps ``(kind, p[, k])``, positions along the step.
        val: position -> card value.
        pos: card value -> position.
        prune: the search made the whole-row moves that can only help at once.
        rows_after: the search's count of rows after each step, the start first (None: settle after every step).

    Returns:
        The moves made, in order.

    Raises:
        PlanError: a needed row end or start is missing, or the engine refused a move (a solver bug).
    """
    real = _Realizer(turn, val, pos, prune)
    try:
        real.settle()
        for i, step in enumerate(path):
            real.step(step)
            if turn.phase == DONE:
                break
            if rows_after is None or rows_after[i + 1] - rows_after[i] != _ROWS_DELTA[step[0]]:
                real.settle()
    except IllegalMove as e:
        raise PlanError(f"the engine refused a planned move: {e}") from None
    return real.out


# A search's position loop, kept whole (noqa C901): its inner closures read the loop's locals on every
# position; split into functions, they would take them as arguments instead (the same split of greedy's hot
# loop cost 2.7%; this one was not measured -- open work of issue 12).
def _search_runs(  # noqa: C901
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
    fr = _Frontier((start, hand0, 0), (*sorted(start), *hand0), needed=needed, full=full, budget=budget)
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


# A search's position loop, kept whole (noqa C901): its inner closures read the loop's locals on every
# position; split into functions, they would take them as arguments instead (the same split of greedy's hot
# loop cost 2.7%; this one was not measured -- open work of issue 12).
def _search_rows(sb: Turn, needed: int, reb_left: int, budget: int, prune: bool) -> Plan:  # noqa: C901
    """Breadth-first search with rows kept as tuples of cards: any sequence rule, any marks on the table.

    Models everything a turn without an active modifier can do: lays on row
    ends and into empty row cards, rebuilds (end or start segments, splits,
    whatever the rules allow), completion, and in the complete game the marks
    powers leave behind: a joker (``-v`` stands for ``v``; the exact hand card
    may be swapped in), gaps (the exact hand card may fill one), duplicates,
    extra rows (they vanish once empty) and parked cards (laid on row ends).
    Positions are keyed by the row-card rows and the extra rows as multisets,
    the hand, the parked cards and whether the joker is still on the table.

    Args:
        sb: a sandbox copy of the turn (the plan is replayed on it).
        needed: cards the turn must still lay.
        reb_left: rebuilds still allowed.
        budget: positions the search may store.
        prune: stop at the first position that lays every hand and parked card.
    """
    g = sb.g
    gsteps = g.steps
    step = g.step
    may_open = g.may_open
    is_complete = g.is_complete
    check_complete = g.complete_when_all
    full_len = g.full_length
    from_start = g.rebuild_from_start
    into_empty = g.rebuild_into_empty
    can_rebuild = g.rebuild_allowed and reb_left > 0
    nf = sb.state.n_fixed
    rows0: Rows = tuple(tuple(r) for r in sb.rows)
    hand0 = tuple(sorted(sb.hand))
    park0 = tuple(sorted(sb.parked))
    locked = len(sb.state.parked[sb.seat]) - len(park0) if g.parked_count else 0
    joker0 = sb.state.joker is not None and any(c < 0 for row in rows0 for c in row)
    win_possible = g.win_on_empty and sb.pile_size == 0 and not locked
    total = len(hand0) + len(park0)
    full = total if (prune or win_possible) else total + 1

    def settle(rows: list[Row], r: int) -> bool:
        """Complete row ``r`` if it is complete; drop empty extra rows. True if the joker left the table."""
        row = rows[r]
        gone = False
        if check_complete and len(row) >= full_len and is_complete(row):
            gone = any(c < 0 for c in row)
            rows[r] = ()
        if len(rows) > nf:
            rows[nf:] = [x for x in rows[nf:] if x]
        return gone

    def key(rows: Rows, hand: tuple[int, ...], park: tuple[int, ...], joker: bool) -> tuple:
        if len(rows) == nf:
            return (tuple(sorted(rows)), hand, park, joker)
        return (tuple(sorted(rows[:nf])), tuple(sorted(rows[nf:])), hand, park, joker)

    steps = tuple(sorted(gsteps))
    two = 2 * step
    # a position is (rows, hand, parked cards, joker on the table, rebuilds made)
    fr = _Frontier(
        (rows0, hand0, park0, joker0, 0),
        key(rows0, hand0, park0, joker0),
        needed=needed,
        full=full,
        budget=budget,
        lays_first=prune,
    )
    seen = fr.seen
    # per row content (the same rows recur in most positions): its values (a joker counts as the value it
    # stands for), the values that continue its end, the places q where a card is missing before q, the set of
    # its values and where each value lies, its end and bridged boundaries for the evaluation
    abs_of: dict[Row, Row] = {}
    acc_of: dict[Row, tuple[int, ...]] = {}
    gaps_of: dict[Row, tuple[int, ...]] = {}
    vals_of: dict[Row, frozenset[int]] = {}
    where_of: dict[Row, dict[int, list[int]]] = {}
    terms_of: dict[Row, tuple[int, tuple[int, ...]]] = {}

    def absolute(row: Row) -> Row:
        a = abs_of.get(row)
        if a is None:
            a = abs_of[row] = tuple(abs(c) for c in row)
        return a

    def accepts(row: Row) -> tuple[int, ...]:
        a = acc_of.get(row)
        if a is None:
            e = absolute(row)[-1]
            a = acc_of[row] = tuple(e + st for st in steps)
        return a

    def gaps(row: Row) -> tuple[int, ...]:
        q = gaps_of.get(row)
        if q is None:
            arow = absolute(row)
            q = gaps_of[row] = tuple(q for q in range(1, len(row)) if arow[q] - arow[q - 1] == two)
        return q

    def where(row: Row) -> dict[int, list[int]]:
        w = where_of.get(row)
        if w is None:
            w = where_of[row] = {}
            for q, v in enumerate(absolute(row)):
                w.setdefault(v, []).append(q)
            vals_of[row] = frozenset(w)
        return w

    w8 = WEIGHTS
    vmin, vmax = g.value_min, g.value_max
    span = max(1, g.full_length - 1)

    def score(rows: Rows, hand: tuple[int, ...]) -> float:
        """:func:`evaluate` (the same terms in the same order), with each row's terms kept per row content."""
        empty = 0
        ends: set[int] = set()
        bridged: set[int] = set()
        for row in rows:
            if not row:
                empty += 1
                continue
            t = terms_of.get(row)
            if t is None:
                a = absolute(row)
                t = terms_of[row] = (a[-1], tuple(x for x, y in pairwise(a) if y - x == step))
            ends.add(t[0])
            bridged.update(t[1])
        acc = {e + d for e in ends for d in gsteps if vmin <= e + d <= vmax}
        near = sum(1 for c in hand if c - two in ends)
        return w8[0] * empty + w8[1] * near + w8[2] * len(acc) + w8[3] * len(bridged) / span

    rebuild_ends = can_rebuild and not (from_start or into_empty)
    for cur, hand, park, joker, reb in fr:
        nr = len(cur)
        extra = nr > nf  # extra rows on the table: settle drops the ones a move empties
        # (rows list, hand, parked, joker on table, move, is a rebuild)
        children: list[tuple[list[Row], tuple[int, ...], tuple[int, ...], bool, Move, bool]] = []
        done: set[Row] = set()
        for r in range(nr):
            row = cur[r]
            if row in done:
                continue
            done.add(row)
            if row:  # the values that continue the row end, in the order of the steps
                acc = accepts(row)
                for zone, pool in ((0, hand), (1, park)):  # (not `src`, a row below: mypyc types a name once)
                    if not pool:
                        continue
                    for c in acc:
                        if c in pool:
                            j = pool.index(c)
                            rest = pool[:j] + pool[j + 1 :]
                            rows = list(cur)
                            rows[r] = nrow = row + (c,)
                            gone = settle(rows, r) if extra or (check_complete and len(nrow) >= full_len) else False
                            if zone == 0:
                                children.append((rows, rest, park, joker and not gone, Lay(c, r), False))
                            else:
                                children.append((rows, hand, rest, joker and not gone, LayParked(c, r), False))
                if hand and len(row) > 1:  # gaps a hand card fills exactly (first gap per card, as the engine does)
                    gq = gaps(row)
                    if gq:
                        arow = absolute(row)
                        filled: set[int] = set()
                        for q in gq:
                            a = arow[q - 1]
                            if a + step in hand and a + step not in filled:
                                c = a + step
                                filled.add(c)
                                rows = list(cur)
                                rows[r] = row[:q] + (c,) + row[q:]
                                gone = settle(rows, r)
                                j = hand.index(c)
                                children.append(
                                    (rows, hand[:j] + hand[j + 1 :], park, joker and not gone, FillGap(c, r), False)
                                )
            else:
                for zone, pool in ((0, hand), (1, park)):
                    prev = None
                    for j, c in enumerate(pool):
                        if c != prev and may_open(c):
                            rest = pool[:j] + pool[j + 1 :]
                            rows = list(cur)
                            rows[r] = (c,)
                            gone = settle(rows, r)
                            if zone == 0:
                                children.append((rows, rest, park, joker and not gone, Lay(c, r), False))
                            else:
                                children.append((rows, hand, rest, joker and not gone, LayParked(c, r), False))
                        prev = c
        if joker:  # swap the exact hand card in for the joker
            for r in range(nr):
                row = cur[r]
                js = [q for q, c in enumerate(row) if c < 0]
                if js and -row[js[0]] in hand:
                    c = -row[js[0]]
                    rows = list(cur)
                    rows[r] = row[: js[0]] + (c,) + row[js[0] + 1 :]
                    j = hand.index(c)
                    children.append((rows, hand[:j] + hand[j + 1 :], park, False, Swap(c), False))
                    break
        if rebuild_ends and reb < reb_left:
            # end segments onto row ends only: the cuts are the places of the source rows (one row per content)
            # holding a value that continues a target's end (the first other row of each content); the same
            # moves in the same order as the general loop below
            same: dict[Row, list[int]] = {}
            for r in range(nr):
                rs = same.setdefault(cur[r], [])
                if len(rs) < 2:
                    rs.append(r)
            want: dict[int, list[tuple[int, list[int]]]] = {}
            for row, rs in same.items():
                if row:
                    for si, v in enumerate(accepts(row)):
                        want.setdefault(v, []).append((si, rs))
            found = []
            for row, rs in same.items():
                if not row:
                    continue
                wh = where(row)
                if vals_of[row].isdisjoint(want):
                    continue
                s = rs[0]
                for v, targets in want.items():
                    qs = wh.get(v)
                    if qs is None:
                        continue
                    for si, ts in targets:
                        d = ts[0] if ts[0] != s else (ts[1] if len(ts) > 1 else -1)
                        if d >= 0:
                            for q in qs:
                                found.append((s, d, si, q))
            found.sort()
            for s, d, _, q in found:
                src = cur[s]
                rows = list(cur)
                rows[s] = src[:q]
                rows[d] = nrow = cur[d] + src[q:]
                gone = settle(rows, d) if extra or (check_complete and len(nrow) >= full_len) else False
                children.append((rows, hand, park, joker and not gone, Rebuild(s, len(src) - q, d, False), True))
        elif can_rebuild and reb < reb_left:
            absr = [absolute(row) for row in cur] if joker else cur
            done_src: set[Row] = set()
            for s in range(nr):
                src = cur[s]
                if not src or src in done_src:
                    continue
                done_src.add(src)
                n = len(src)
                asrc = absr[s]
                wh = where(src)
                done_dst: set[Row] = set()
                for d in range(nr):
                    dst = cur[d]
                    if d == s or dst in done_dst:
                        continue
                    done_dst.add(dst)
                    cuts: list[tuple[int, bool]] = []
                    if dst:
                        e = absr[d][-1]
                        for st in steps:
                            for q in wh.get(e + st, ()):
                                cuts.append((n - q, False))
                        if from_start and asrc[0] - e in gsteps:
                            cuts.extend((k, True) for k in range(1, n))
                    elif into_empty:
                        cuts.extend((n - q, False) for q in range(1, n) if may_open(asrc[q]))
                        if from_start and may_open(asrc[0]):
                            cuts.extend((k, True) for k in range(1, n))
                    for k, fs in cuts:
                        seg, rest = (src[:k], src[k:]) if fs else (src[n - k :], src[: n - k])
                        rows = list(cur)
                        rows[s] = rest
                        rows[d] = dst + seg
                        gone = settle(rows, d)
                        children.append((rows, hand, park, joker and not gone, Rebuild(s, k, d, fs), True))
        for rows, h, pk, jk, mv, is_rb in children:
            rows_t = tuple(rows)
            if len(rows_t) == nf:
                pos_key: tuple = (tuple(sorted(rows_t)), h, pk, jk)
            else:
                pos_key = (tuple(sorted(rows_t[:nf])), tuple(sorted(rows_t[nf:])), h, pk, jk)
            if pos_key not in seen and fr.add(
                pos_key,
                (rows_t, h, pk, jk, reb + is_rb),
                mv,
                total - len(h) - len(pk),
                won=win_possible and not h and not pk,
            ):
                break
    if not fr.cand:
        return _no_plan(g, rows0, hand0, len(fr.seen), fr.truncated, "rows")
    states = fr.states
    best = fr.best(lambda k: score(states[k][0], states[k][1]))
    seq = fr.path(best)
    before = sb.laid
    _replay(sb, seq)
    if sb.laid - before != fr.laids[best]:
        raise PlanError(f"replaying the plan laid {sb.laid - before} cards, the search expected {fr.laids[best]}")
    return Plan(
        moves=tuple(seq),
        laid=sb.laid - before,
        score=evaluate(g, sb.rows, sb.hand),
        rows=tuple(tuple(r) for r in sb.rows),
        hand=tuple(sorted(sb.hand)),
        won=sb.won,
        legal=True,
        nodes=len(fr.seen),
        exact=not fr.truncated,
        engine="rows",
    )
