"""The link-count search: strict runs on a plain table, a position shrunk to counts of row ends, starts and links.

See :mod:`kbsim.engine.rows.search` for when it runs; :func:`search_links` returns a
:class:`~kbsim.engine.rows.search.frontier.Plan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import final

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import Lay, Move, Rebuild
from kbsim.engine.rows.search.frontier import (
    WEIGHTS,
    Frontier,
    Plan,
    PlanError,
    Rows,
    no_plan,
)
from kbsim.engine.rows.turn import DONE, Turn


def links_apply(g: CompiledGame, rows0: Sequence[Sequence[int]], n0: int, reb_left: int) -> bool:
    """True if the rules allow the link-count search (:func:`search_links`) to be exact.

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


Counts = tuple[int, int, int, int, int]
"""A link-count position without its hand: ``(E, S, L, Z, R)`` (see :class:`_Links`)."""

LinkKey = tuple[int, int, int]
"""A link-count position's key and stored state ``(E, L, H)`` (see :class:`_Links`)."""

# Steps of a link-count path, one int each: kind | p << 3 | k << 11 (kinds as in _ROWS_DELTA; k for kind 4).
_KIND_MASK = 7
_P_SHIFT = 3
_P_MASK = 255
_K_SHIFT = 11


@final
class _Links:
    """The constants of the link-count search (:func:`search_links`) for one compiled game, and its moves.

    A position is six ints ``(E, S, L, Z, R, H)``. E, S, L and H pack one count per position along the step
    into fields of ``W`` bits: E the row ends, S the row starts, L the links across each boundary
    ``p -> p + 1``, H the hand cards. Z counts the boundaries with no link (a row can be completed when
    Z == 0), R the rows. The others follow from ``(E, L, H)``, the key a position is stored under
    (``S[p] = E[p] + L[p] - L[p-1]``: both are the cards at ``p`` less a link; Z and R count fields of L
    and E). ``W`` is chosen by the search so that no count exceeds ``2 ** (W - 1)``: then adding ``half``
    to a field sets its top bit iff the field is not 0, with no carry into the next field. In a strict run a
    value occurs at most once per row, so E, S and L count at most the row cards, H at most the copies of a
    value in hand: the base game (13 values, 6 row cards, 8 copies) packs into fields of 4 bits, 56 bits
    with the one spare field the shifts use, and the ints stay machine ints when compiled (mypyc); wider
    games are searched the same way with Python's big ints.

    Args:
        g: compiled rules (strict runs: one step of +1 or -1).
        W: bits per field.
    """

    def __init__(self, g: CompiledGame, W: int) -> None:
        self.g = g
        K = g.full_length
        self.K = K
        self.B = K - 1
        self.up = g.step == 1
        self.vmin = g.value_min
        self.vmax = g.value_max
        self.complete = bool(g.complete_when_all)
        self.W = W
        self.M = (1 << W) - 1
        self.top = W - 1
        one = [1 << (W * p) for p in range(K + 1)]
        self.one = one
        self.lows = sum(one[:K])
        self.lows_b = sum(one[: K - 1])
        self.half = self.lows * ((1 << (W - 1)) - 1)
        self.opener = sum(one[p] for p in range(K) if g.may_open(self.val(p)))
        self.split_at = sum(one[p] for p in range(K - 1) if g.may_open(self.val(p + 1)))

    def val(self, p: int) -> int:
        """Position along the step -> card value."""
        return self.vmin + p if self.up else self.vmax - p

    def pos(self, v: int) -> int:
        """Card value -> position along the step."""
        return v - self.vmin if self.up else self.vmax - v

    def unlinked(self, L: int) -> int:
        """Boundaries with no link in the packed links ``L`` (Z)."""
        W, M = self.W, self.M
        n = 0
        for p in range(self.B):
            if not (L >> (W * p)) & M:
                n += 1
        return n

    def close(self, E: int, S: int, L: int, Z: int, R: int) -> Counts:
        """Complete rows while every boundary is bridged (each completion: one card per position)."""
        while self.complete and Z == 0:
            L -= self.lows_b
            E -= self.one[self.B]
            S -= self.one[0]
            R -= 1
            Z = self.unlinked(L)
        return E, S, L, Z, R

    def merge_free(self, E: int, S: int, L: int, Z: int, R: int, H: int, lo: int, hi: int) -> Counts:
        """With ``prune``: make every whole-row move at a position ``lo <= f < hi`` that the hand cannot use."""
        W, M, one = self.W, self.M, self.one
        for f in range(max(lo, 1), min(hi, self.K)):
            if not (H >> (W * f)) & M:
                while (E >> (W * (f - 1))) & M and (S >> (W * f)) & M:
                    E -= one[f - 1]
                    S -= one[f]
                    R -= 1
                    if not (L >> (W * (f - 1))) & M:
                        Z -= 1
                    L += one[f - 1]
                    E, S, L, Z, R = self.close(E, S, L, Z, R)
        return E, S, L, Z, R

    def score(self, E: int, H: int, Z: int, R: int, n_rows: int) -> float:
        """:func:`evaluate` computed from the counts of a position (``n_rows`` row cards on the table)."""
        W, M, B = self.W, self.M, self.B
        accepts = 0
        for p in range(B):
            if (E >> (W * p)) & M:
                accepts += 1
        near = 0
        for p in range(2, self.K):
            if (E >> (W * (p - 2))) & M:
                near += (H >> (W * p)) & M
        w = WEIGHTS
        return w[0] * (n_rows - R) + w[1] * near + w[2] * accepts + w[3] * (B - Z) / max(1, B)


_LINKS: dict[tuple[int, int], _Links] = {}
"""The link-count constants per compiled game and field width (by the game's ``id``; each entry holds its
game, so the id stays its own)."""


def _links_for(g: CompiledGame, n_rows: int, hand: Sequence[int]) -> _Links:
    """The :class:`_Links` of ``g`` with fields wide enough for ``n_rows`` row cards and ``hand`` (made once).

    The widest count is that of the row cards or of the copies of a value in hand (see :class:`_Links`).
    """
    cap = max(1, n_rows)
    run = 0
    prev = None
    for c in sorted(hand):
        run = run + 1 if c == prev else 1
        prev = c
        cap = max(cap, run)
    W = (cap - 1).bit_length() + 1
    lk = _LINKS.get((id(g), W))
    if lk is None or lk.g is not g:
        if len(_LINKS) >= 64:
            _LINKS.clear()
        lk = _Links(g, W)
        _LINKS[(id(g), W)] = lk
    return lk


def search_links(
    turn: Turn,
    rows0: Rows,
    hand0: tuple[int, ...],
    needed: int,
    reb_left: int,
    budget: int,
    full: int,
    prune: bool,
    lay_at: int = 0,
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
    the needed end or start will do), which also checks it: a sandbox copy of
    ``turn``, or ``turn`` itself when the plan lays at least ``lay_at`` cards. A plan
    that makes no move (it lays nothing, and no row is completed or moved) is
    not carried out.

    Args:
        turn: the turn in progress (changed only when the plan lays at least ``lay_at`` cards).
        rows0: the rows on the table at the start (row cards first), as tuples of card values.
        hand0: the hand at the start, sorted card values.
        needed: cards the turn must still lay before it may end.
        reb_left: rebuilds still allowed this turn (checked beforehand by :func:`links_apply`).
        budget: positions the search may store before it stops (the plan is then not exact).
        full: cards laid at which the search stops at once (the whole hand, or more than it when the
            search must run to the end).
        prune: make the whole-row moves that can only help at once (see above) and, with the rebuild
            options, expand the positions that laid the most cards first.
        lay_at: carry a plan laying at least this many cards out on ``turn`` itself (0: never; the caller
            then ends the turn, see :func:`~kbsim.engine.rows.search.solve.plan_turn`).

    Returns:
        The best plan found (most cards laid, then :func:`evaluate`), already carried out on a sandbox copy
        of ``turn`` or (``Plan.applied``) on ``turn``.

    Raises:
        PlanError: carrying out the plan laid a different number of cards than the search expected.
    """
    g = turn.g
    n_rows = len(rows0)
    lk = _links_for(g, n_rows, hand0)
    K, one = lk.K, lk.one
    starts = g.rebuild_from_start
    splits = g.rebuild_into_empty
    # with splits, a whole-row move can be undone (the freed row card takes the split) when any value opens a row
    merge = prune and not starts and (not splits or lk.split_at == lk.lows_b)
    E = S = L = R = H = 0
    for row in rows0:
        if not row:
            continue
        E += one[lk.pos(row[-1])]
        S += one[lk.pos(row[0])]
        R += 1
        for j in range(len(row) - 1):
            L += one[lk.pos(row[j])]
    for card in hand0:
        H += one[lk.pos(card)]
    R0 = R  # rows before the completions and whole-row moves made at once
    Z = lk.unlinked(L)
    E, S, L, Z, R = lk.close(E, S, L, Z, R)
    if merge:
        E, S, L, Z, R = lk.merge_free(E, S, L, Z, R, H, 1, K)
    start: LinkKey = (E, L, H)
    zs, rs = [Z], [R]  # Z and R of each stored position
    # with the rebuild options, lays first: a turn laying the whole hand is found without listing every board
    fr = Frontier(start, start, needed=needed, full=full, budget=budget, lays_first=prune and (starts or splits))
    _expand_links(lk, fr, zs, rs, n_rows, merge, starts, splits)
    if not fr.cand:
        return no_plan(g, rows0, hand0, len(fr.seen), fr.truncated, "links")
    states = fr.states
    best = -1
    best_score = 0.0
    for k in fr.cand:  # the highest score, the first found among equals
        pk: LinkKey = states[k]
        s = lk.score(pk[0], pk[2], zs[k], rs[k], n_rows)
        if best < 0 or s > best_score or (s == best_score and k < best):
            best, best_score = k, s
    rows_after: list[int] = []  # rows on the table after each step of the path (the start first)
    k = best
    while k >= 0:
        rows_after.append(rs[k])
        k = fr.parents[k]
    rows_after.append(R0)
    rows_after.reverse()  # R0, then the start's rows after its completions and whole-row moves, then each step's
    laid: int = fr.laids[best]
    path = fr.path(best)
    if not path and rows_after[0] == rows_after[1]:  # no move to make: the plan leaves the turn as it is
        return Plan(
            moves=(),
            laid=0,
            score=best_score,
            rows=rows0,
            hand=hand0,
            won=turn.won,
            legal=True,
            nodes=len(fr.seen),
            exact=not fr.truncated,
            engine="links",
        )
    applied = 0 < lay_at <= laid
    sb = turn if applied else turn.sandbox(scratch=True)
    before = sb.laid
    out = _realize(sb, path, lk, merge, rows_after)
    if sb.laid - before != laid:
        raise PlanError(f"carrying out the plan laid {sb.laid - before} cards, the search expected {laid}")
    return Plan(
        moves=tuple(out),
        laid=laid,
        score=best_score,
        rows=tuple(tuple(r) for r in sb.rows),
        hand=tuple(sorted(sb.hand)),
        won=sb.won,
        legal=True,
        nodes=len(fr.seen),
        exact=not fr.truncated,
        engine="links",
        applied=applied,
    )


# The position loop, kept whole (noqa C901): it reads the position's six ints on every move.
def _expand_links(  # noqa: C901
    lk: _Links, fr: Frontier, zs: list[int], rs: list[int], n_rows: int, merge: bool, starts: bool, splits: bool
) -> None:
    """Expand the positions of ``fr`` until the search stops (the moves of :func:`search_links`).

    A position's children are stored in a fixed order: lays on a row end and openings of an empty row (by
    position), whole-row moves each followed by its start segments (by position), splits (by position).

    Args:
        lk: the game's constants.
        fr: the frontier, holding the start position (positions stored as their keys ``(E, L, H)``).
        zs: Z of each stored position (the start's first); the new ones are appended.
        rs: R of each stored position (the start's first); the new ones are appended.
        n_rows: row cards on the table.
        merge: make the whole-row moves that can only help at once (``prune``, see :func:`search_links`).
        starts: start segments are allowed (``rebuild_from_start``).
        splits: splits into an empty row card are allowed (``rebuild_into_empty``).
    """
    W, M, one, lows_b = lk.W, lk.M, lk.one, lk.lows_b
    half, top, lows = lk.half, lk.top, lk.lows  # nz(x) = ((x + half) >> top) & lows: fields of x not 0
    opener, split_at = lk.opener, lk.split_at
    states, laids, seen = fr.states, fr.laids, fr.seen
    while True:
        i = fr.next_index()
        if i < 0:
            return
        cur: LinkKey = states[i]
        E, L, H = cur
        S = E + L - (L << W)
        Z = zs[i]
        R = rs[i]
        laid: int = laids[i]
        nh = ((H + half) >> top) & lows
        ne = ((E + half) >> top) & lows
        # lays: on a row end (kind 0), then into an empty row card (kind 1)
        for kind in range(2):
            if kind == 0:
                mask = nh & (ne << W)
            elif R < n_rows:
                mask = nh & opener
            else:
                break
            while mask:
                low = mask & -mask
                mask ^= low
                p = (low.bit_length() - 1) // W
                H2 = H - low
                if kind == 0:  # lay on a row end
                    below = low >> W
                    Z2 = Z if L & (below * M) else Z - 1
                    E2, S2, L2, R2 = E - below + low, S, L + below, R
                    if Z2 == 0:
                        E2, S2, L2, Z2, R2 = lk.close(E2, S2, L2, Z2, R2)
                else:  # open an empty row
                    E2, S2, L2, Z2, R2 = E + low, S + low, L, Z, R + 1
                if merge and (((E2 + half) >> top) & lows) << W & ((S2 + half) >> top) & lows & (low | (low << W)) & ~(
                    ((H2 + half) >> top) & lows
                ):
                    # only where a whole-row move is open at p or p + 1
                    E2, S2, L2, Z2, R2 = lk.merge_free(E2, S2, L2, Z2, R2, H2, p, p + 2)
                key = (E2, L2, H2)
                if key not in seen:
                    zs.append(Z2)
                    rs.append(R2)
                    if fr.add(key, key, kind | p << _P_SHIFT, laid + 1):
                        return
        mask = ((S + half) >> top) & lows & (ne << W)
        while mask:  # move a whole row starting at f onto a row ending at f - 1 (kind 2)
            low = mask & -mask
            mask ^= low
            f = (low.bit_length() - 1) // W
            below = low >> W
            linked = L & (below * M) != 0
            Z2 = Z if linked else Z - 1
            E2, S2, L2, R2 = E - below, S - low, L + below, R - 1
            if Z2 == 0:
                E2, S2, L2, Z2, R2 = lk.close(E2, S2, L2, Z2, R2)
            key = (E2, L2, H)
            if key not in seen:
                zs.append(Z2)
                rs.append(R2)
                if fr.add(key, key, 2 | f << _P_SHIFT, laid):
                    return
            if starts:  # the first k cards f..f+k-1 of a row starting at f onto a row ending at f - 1 (kind 4)
                gain = 0 if linked else 1
                top_k = low
                k = 1
                while top_k & lows_b and (L >> (W * (f + k - 1))) & M:
                    cut = one[f + k - 1]
                    Z3 = Z - gain + (1 if (L >> (W * (f + k - 1))) & M == 1 else 0)
                    E2, S2, L2, R2 = E - below + cut, S - low + one[f + k], L + below - cut, R
                    if Z3 == 0:
                        E2, S2, L2, Z3, R2 = lk.close(E2, S2, L2, Z3, R2)
                    key = (E2, L2, H)
                    if key not in seen:
                        zs.append(Z3)
                        rs.append(R2)
                        if fr.add(key, key, 4 | f << _P_SHIFT | k << _K_SHIFT, laid):
                            return
                    top_k = one[f + k]
                    k += 1
        if splits and R < n_rows:
            mask = ((L + half) >> top) & lows & split_at
            while mask:  # the cards after a link p -> p + 1 onto an empty row card (kind 3)
                low = mask & -mask
                mask ^= low
                p = (low.bit_length() - 1) // W
                Z2 = Z + 1 if (L >> (W * p)) & M == 1 else Z
                key = (E + low, L - low, H)
                if key not in seen:
                    zs.append(Z2)
                    rs.append(R + 1)
                    if fr.add(key, key, 3 | p << _P_SHIFT, laid):
                        return


_ROWS_DELTA = (0, 1, -1, 1, 0)
"""Rows on the table gained by each kind of step of the link-count search (lay, open, whole row,
split, start segment), before completions and whole-row moves made at once."""


class _Realizer:
    """Carries out the steps of a :func:`search_links` path on a turn (the helpers of :func:`_realize`).

    Args:
        turn: the turn the moves are applied to.
        lk: the game's link-count constants (positions along the step <-> card values).
        prune: make the whole-row moves the search made at once.

    Attributes:
        out: the concrete moves made so far.
    """

    def __init__(self, turn: Turn, lk: _Links, prune: bool):
        self.turn = turn
        self.g = turn.g
        self.rows = turn.rows
        self.lk = lk
        self.prune = prune
        self.out: list[Move] = []

    def do(self, mv: Move) -> None:
        """Apply ``mv`` to the turn and record it."""
        self.turn.apply(mv)
        self.out.append(mv)

    def link_row(self, p: int, skip: int = -1) -> tuple[int, int]:
        """A row (not ``skip``) holding the link ``p -> p + 1``, and how many of its cards follow ``p``."""
        v = self.lk.val(p)
        for i, row in enumerate(self.rows):
            if i != skip and row and v in row[:-1]:
                return i, len(row) - 1 - row.index(v)
        raise PlanError(f"no row holds the link {v}-{self.lk.val(p + 1)}: {self.rows}")

    def complete_rows(self) -> None:
        """Complete rows while every boundary is bridged (tails moved onto a row starting at position 0)."""
        g, rows, lk, turn = self.g, self.rows, self.lk, self.turn
        while g.complete_when_all and turn.phase != DONE:
            if len({v for row in rows for v in row[:-1]}) < g.full_length - 1:
                return  # some boundary is not bridged: no row can be completed
            r = next(i for i, row in enumerate(rows) if row and lk.pos(row[0]) == 0)
            while rows[r]:
                e = lk.pos(rows[r][-1])
                src = next(
                    (i for i, row in enumerate(rows) if i != r and row and lk.pos(row[0]) <= e < lk.pos(row[-1])), None
                )
                if src is None:
                    raise PlanError(f"no row bridges {lk.val(e)}-{lk.val(e + 1)} to complete row {r + 1}: {rows}")
                self.do(Rebuild(src, lk.pos(rows[src][-1]) - e, r))

    def merge_free(self) -> None:
        """Move every whole row whose first value the hand does not hold onto a row end it continues."""
        turn, rows, back = self.turn, self.rows, self.g.step
        hand = turn.hand
        n = len(rows)
        moved = True
        while moved and turn.phase != DONE:
            moved = False
            for src in range(n):  # the first row (by row card) whose first value can move, onto the first end
                row = rows[src]
                if not row or row[0] in hand:
                    continue
                e = row[0] - back
                for dst in range(n):
                    if rows[dst] and rows[dst][-1] == e:
                        self.do(Rebuild(src, len(row), dst))
                        moved = True
                        break
                if moved:
                    break
        self.complete_rows()

    def settle(self) -> None:
        """Complete rows and, with ``prune``, make the whole-row moves made at once."""
        self.complete_rows()
        if self.prune:
            self.merge_free()

    def ending_at(self, p: int) -> int:
        """The first row ending at position ``p``."""
        v = self.lk.val(p)
        for i, row in enumerate(self.rows):
            if row and row[-1] == v:
                return i
        raise PlanError(f"no row ends at {v}: {self.rows}")

    def starting_at(self, p: int) -> int:
        """The first row starting at position ``p``."""
        v = self.lk.val(p)
        for i, row in enumerate(self.rows):
            if row and row[0] == v:
                return i
        raise PlanError(f"no row starts at {v}: {self.rows}")

    def empty_row(self) -> int:
        """The first empty row card."""
        for i, row in enumerate(self.rows):
            if not row:
                return i
        raise PlanError(f"no empty row card: {self.rows}")

    def step(self, step: int) -> None:
        """Carry out one step of the path (an int ``kind | p << 3 | k << 11``, kinds as in :data:`_ROWS_DELTA`)."""
        rows, lk = self.rows, self.lk
        kind, p = step & _KIND_MASK, (step >> _P_SHIFT) & _P_MASK
        if kind == 0:  # lay on a row end
            self.do(Lay(lk.val(p), self.ending_at(p - 1)))
        elif kind == 1:  # open an empty row
            self.do(Lay(lk.val(p), self.empty_row()))
        elif kind == 2:  # a whole row onto a row end
            src, dst = self.starting_at(p), self.ending_at(p - 1)
            self.do(Rebuild(src, len(rows[src]), dst))
        elif kind == 3:  # split after the link p -> p + 1 into an empty row
            src, n = self.link_row(p)
            self.do(Rebuild(src, n, self.empty_row()))
        else:  # the first k cards of a row starting at p onto a row ending at p - 1
            k = step >> _K_SHIFT
            a = self.starting_at(p)
            while lk.pos(rows[a][-1]) < p + k:  # tail swaps until row a runs past p + k - 1
                src, n = self.link_row(lk.pos(rows[a][-1]), skip=a)
                self.do(Rebuild(src, n, a))
            self.do(Rebuild(a, k, self.ending_at(p - 1), True))


def _realize(turn: Turn, path: list[int], lk: _Links, prune: bool, rows_after: list[int] | None = None) -> list[Move]:
    """Carry out a :func:`search_links` path on ``turn``; return the concrete moves made.

    After every step it completes rows while it can and, with ``prune``, makes
    the whole-row moves the search made at once, in the same order. A start
    segment is preceded by the tail swaps that make its row long enough.
    ``rows_after`` (the search's count of rows before the start's completions
    and whole-row moves, after them, and after each step) lets it skip that
    at the start and after a step where the search made neither (both lower
    the count of rows, nothing else changes it beyond the step's own
    ``_ROWS_DELTA``).

    Args:
        turn: the turn (a sandbox) the moves are applied to.
        path: the search's steps, ints ``kind | p << 3 | k << 11`` (positions along the step).
        lk: the game's link-count constants.
        prune: the search made the whole-row moves that can only help at once.
        rows_after: the search's count of rows at the start (before and after its completions and whole-row
            moves) and after each step (None: settle at the start and after every step).

    Returns:
        The moves made, in order.

    Raises:
        PlanError: a needed row end or start is missing, or the engine refused a move (a solver bug).
    """
    real = _Realizer(turn, lk, prune)
    try:
        if rows_after is None or rows_after[0] != rows_after[1]:
            real.settle()
        for i, step in enumerate(path):
            real.step(step)
            if turn.phase == DONE:
                break
            if rows_after is None or rows_after[i + 2] - rows_after[i + 1] != _ROWS_DELTA[step & _KIND_MASK]:
                real.settle()
    except IllegalMove as e:
        raise PlanError(f"the engine refused a planned move: {e}") from None
    return real.out
