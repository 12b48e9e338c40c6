"""The turn searches: over whole turn clones, over the links of plain rows, over runs, and row by row.

See :mod:`kbsim.engine.rows.search` for when each runs.
Each returns a :class:`~kbsim.engine.rows.search.frontier.Plan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Final, cast, final

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
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.rows.usage import FILL_GAP, JOKER_SWAP, PARKED


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


def _search_clones(root: Turn, budget: int, prune: bool) -> Plan:
    """Breadth-first search over copies of the turn itself (any position the engine can hold).

    Positions are keyed by the rows as a multiset, the hand, the usable parked
    cards and the skips left; moves are the turn's own ``lay_moves`` and
    ``rebuild_moves``. Cards laid count every card the turn lays (hand and
    parked cards, gap fills, the joker swap). ``root`` is a sandbox the search
    owns: its state becomes a :class:`_SearchState` (the same zone lists), so
    the copies share the zones no move changes.
    """
    g = root.g
    same_rows = _simple_rules(g)  # row cards are interchangeable (else, e.g. corners, keep their order)
    _search_root(root)  # its copies share the zones no lay or rebuild changes
    base = root.laid
    total = len(root.hand) + len(root.parked)
    fr = _Frontier(
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
    """The constants of the link-count search (:func:`_search_links`) for one compiled game, and its moves.

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


def _search_links(
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
        reb_left: rebuilds still allowed this turn (checked beforehand by :func:`_links_apply`).
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
    fr = _Frontier(start, start, needed=needed, full=full, budget=budget, lays_first=prune and (starts or splits))
    _expand_links(lk, fr, zs, rs, n_rows, merge, starts, splits)
    if not fr.cand:
        return _no_plan(g, rows0, hand0, len(fr.seen), fr.truncated, "links")
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
    lk: _Links, fr: _Frontier, zs: list[int], rs: list[int], n_rows: int, merge: bool, starts: bool, splits: bool
) -> None:
    """Expand the positions of ``fr`` until the search stops (the moves of :func:`_search_links`).

    A position's children are stored in a fixed order: lays on a row end and openings of an empty row (by
    position), whole-row moves each followed by its start segments (by position), splits (by position).

    Args:
        lk: the game's constants.
        fr: the frontier, holding the start position (positions stored as their keys ``(E, L, H)``).
        zs: Z of each stored position (the start's first); the new ones are appended.
        rs: R of each stored position (the start's first); the new ones are appended.
        n_rows: row cards on the table.
        merge: make the whole-row moves that can only help at once (``prune``, see :func:`_search_links`).
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
    """Carries out the steps of a :func:`_search_links` path on a turn (the helpers of :func:`_realize`).

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
    """Carry out a :func:`_search_links` path on ``turn``; return the concrete moves made.

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


# Kinds of move a child of the rows search is reached by; the move itself is only built for a new position.
_LAY: Final = 0
_LAY_PARKED: Final = 1
_FILL_GAP: Final = 2
_SWAP: Final = 3
_REBUILD: Final = 4

_RowsState = tuple[tuple[int, ...], int, int, bool, int]
"""A position of the rows search: the rows (interned row ids, in row-card order), the hand and the parked
cards (interned card-tuple ids), the joker still on the table, the rebuilds made."""


def _rows_move(m: tuple[int, int, int, int, bool]) -> Move:
    """The move a rows-search step ``(kind, a, b, c, fs)`` stands for."""
    kind = m[0]
    if kind == _LAY:
        return Lay(m[1], m[2])
    if kind == _LAY_PARKED:
        return LayParked(m[1], m[2])
    if kind == _FILL_GAP:
        return FillGap(m[1], m[2])
    if kind == _SWAP:
        return Swap(m[1])
    return Rebuild(m[1], m[2], m[3], m[4])


class _RowsSearch:
    """The rows search (:func:`_search_rows`) for one set of rules: row contents and card tuples interned.

    Each distinct row content gets a small int id (0 is the empty row), each distinct sorted tuple of cards
    (a hand or the parked cards) another. What the search asks of a row (its values with the joker read as
    the value it stands for, the values that continue its end, whether it completes, its gaps, where each
    value lies, its evaluation terms) and the results of the moves on it (a lay of card ``c``, a cut, a
    segment joined onto it, the end segments of one row that continue another) are kept per id, so a child
    position that was seen already is recognised from the parent's ids without building its rows: its key
    is the sorted row ids plus the card-tuple ids.

    All of that depends on the rules only, so one instance serves every search under the same rules
    (:func:`_rows_searcher`), its tables warm from the searches before; :meth:`start` sets up one search.
    """

    def __init__(self, g: CompiledGame) -> None:
        self.g = g
        self.gsteps: frozenset[int] = g.steps
        self.steps: tuple[int, ...] = tuple(sorted(g.steps))
        self.step: int = g.step
        self.two: int = 2 * g.step
        self.check_complete: bool = g.complete_when_all
        self.full_len: int = g.full_length
        self.from_start: bool = g.rebuild_from_start
        self.into_empty: bool = g.rebuild_into_empty
        self.vmin: int = g.value_min
        self.vmax: int = g.value_max
        self.span: int = max(1, g.full_length - 1)
        # value bit masks (bit v - vmin) make "can a segment of this row continue that row's end" one AND
        self.masks: bool = g.value_max - g.value_min < 60
        # interned rows, and per row id: its values (a joker read as its value), the values continuing its end,
        # the id it settles to (0 when it completes), whether it holds the joker; lazily: its lays, cuts and
        # joins, gaps, where each value lies, its evaluation terms
        self.rows: list[Row] = []
        self.row_id: dict[Row, int] = {}
        self.absr: list[Row] = []
        self.acc: list[tuple[int, ...]] = []
        self.settled: list[int] = []
        self.joker_in: list[bool] = []
        self.vmask: list[int] = []  # the values of the row (all bits when masks are off)
        self.amask: list[int] = []  # the values that continue its end (all bits when masks are off)
        self.lay_to: list[dict[int, int] | None] = []
        self.cut_to: list[dict[int, int] | None] = []
        self.join_to: list[dict[int, int] | None] = []
        self.gaps_of: list[tuple[int, ...] | None] = []
        self.where_of: list[dict[int, list[int]] | None] = []
        self.terms_of: list[tuple[int, tuple[int, ...]] | None] = []
        self.open_to: dict[int, int] = {}
        self.pair_cuts: dict[int, list[tuple[int, int, int]]] = {}
        self.opens: dict[int, bool] = {}
        self.intern(())
        # interned sorted card tuples (hands, parked cards), and per id: the id with one card ``c`` less
        self.cards: list[tuple[int, ...]] = []
        self.cards_id: dict[tuple[int, ...], int] = {}
        self.minus_to: list[dict[int, int] | None] = []
        # the search under way (set by start)
        self.reb_left = 0
        self.can_rebuild = False
        self.rebuild_ends = False
        self.nf = 0
        self.rows0: Rows = ()
        self.hand0: tuple[int, ...] = ()
        self.joker0 = False
        self.win_possible = False
        self.total = 0
        self.full = 0
        self.ids0: tuple[int, ...] = ()
        self.hid0 = 0
        self.pid0 = 0
        self.seen: set[tuple[int, ...]] = set()
        self.fill = True  # gaps may be filled (else the seat is barred from it)
        self.swap = True  # the joker may be reclaimed

    def full_tables(self) -> bool:
        """True once the tables hold so much that they should start afresh (memory stays bounded)."""
        return len(self.rows) > _TABLE_LIMIT or len(self.cards) > _TABLE_LIMIT or len(self.pair_cuts) > _TABLE_LIMIT

    def start(self, sb: Turn, reb_left: int, prune: bool) -> None:
        """Set up a search from the sandbox ``sb`` with ``reb_left`` rebuilds left (see :func:`_search_rows`)."""
        g = self.g
        st = sb.state
        self.reb_left = reb_left
        self.can_rebuild = g.rebuild_allowed and reb_left > 0
        self.rebuild_ends = self.can_rebuild and not (self.from_start or self.into_empty)
        self.nf = st.n_fixed
        rows0: Rows = tuple([tuple(r) for r in sb.rows])
        hand0 = tuple(sorted(sb.hand))
        park0 = tuple(sorted(sb.parked))
        self.rows0 = rows0
        self.hand0 = hand0
        # a seat barred from a kind of move (restricted play, kbsim.engine.rows.restrict) searches without it:
        # parked cards it may not lay stay where they are (and keep it from winning where they count)
        self.fill = sb.allows(FILL_GAP)
        self.swap = sb.allows(JOKER_SWAP)
        if not sb.allows(PARKED):
            park0 = ()
        locked = len(st.parked[sb.seat]) - len(park0) if g.parked_count else 0
        self.joker0 = st.joker is not None and any(c < 0 for row in rows0 for c in row)
        self.win_possible = bool(g.win_on_empty and sb.pile_size == 0 and not locked)
        self.total = len(hand0) + len(park0)
        self.full = self.total if (prune or self.win_possible) else self.total + 1
        self.ids0 = tuple([self.intern(r) for r in rows0])
        self.hid0 = self.intern_cards(hand0)
        self.pid0 = self.intern_cards(park0)

    # ------------------------------------------------------------------ interning
    def intern(self, row: Row) -> int:
        """The id of row content ``row`` (a new id the first time)."""
        i = self.row_id.get(row, -1)
        if i >= 0:
            return i
        i = len(self.rows)
        self.row_id[row] = i
        self.rows.append(row)
        has_joker = False
        for c in row:
            if c < 0:
                has_joker = True
                break
        a = tuple([abs(c) for c in row]) if has_joker else row
        self.absr.append(a)
        self.acc.append(tuple([a[-1] + st for st in self.steps]) if row else ())
        complete = self.check_complete and len(row) >= self.full_len and self.g.is_complete(row)
        self.settled.append(0 if complete else i)
        self.joker_in.append(has_joker)
        vm = am = -1
        if self.masks:
            vmin, vmax = self.vmin, self.vmax
            vm = am = 0
            for v in a:
                vm |= 1 << (v - vmin) if vmin <= v <= vmax else -1
            for v in self.acc[i]:
                if vmin <= v <= vmax:
                    am |= 1 << (v - vmin)
        self.vmask.append(vm)
        self.amask.append(am)
        self.lay_to.append(None)
        self.cut_to.append(None)
        self.join_to.append(None)
        self.gaps_of.append(None)
        self.where_of.append(None)
        self.terms_of.append(None)
        return i

    def intern_cards(self, cards: tuple[int, ...]) -> int:
        """The id of the sorted card tuple ``cards``."""
        i = self.cards_id.get(cards, -1)
        if i < 0:
            i = len(self.cards)
            self.cards_id[cards] = i
            self.cards.append(cards)
            self.minus_to.append(None)
        return i

    def minus(self, cid: int, c: int) -> int:
        """The id of card tuple ``cid`` with one card ``c`` (which it holds) taken out."""
        m = self.minus_to[cid]
        if m is None:
            m = {}
            self.minus_to[cid] = m
        i = m.get(c, -1)
        if i < 0:
            pool = self.cards[cid]
            j = pool.index(c)
            i = m[c] = self.intern_cards(pool[:j] + pool[j + 1 :])
        return i

    def lay(self, rid: int, c: int) -> int:
        """The id of row ``rid`` with card ``c`` laid on its end."""
        m = self.lay_to[rid]
        if m is None:
            m = {}
            self.lay_to[rid] = m
        i = m.get(c, -1)
        if i < 0:
            i = m[c] = self.intern(self.rows[rid] + (c,))
        return i

    def prefix(self, rid: int, q: int) -> int:
        """The id of the first ``q`` cards of row ``rid``."""
        m = self.cut_to[rid]
        if m is None:
            m = {}
            self.cut_to[rid] = m
        i = m.get(q, -1)
        if i < 0:
            i = m[q] = self.intern(self.rows[rid][:q])
        return i

    def join(self, did: int, sid: int, q: int) -> int:
        """The id of row ``did`` with the cards of row ``sid`` from place ``q`` on moved onto its end."""
        m = self.join_to[did]
        if m is None:
            m = {}
            self.join_to[did] = m
        k = (sid << 16) | q  # a row holds fewer than 2 ** 16 cards
        i = m.get(k, -1)
        if i < 0:
            i = m[k] = self.intern(self.rows[did] + self.rows[sid][q:])
        return i

    def opened(self, c: int) -> int:
        """The id of the row ``(c,)``."""
        i = self.open_to.get(c, -1)
        if i < 0:
            i = self.open_to[c] = self.intern((c,))
        return i

    def may_open(self, c: int) -> bool:
        """``g.may_open(c)``, kept per card."""
        ok = self.opens.get(c)
        if ok is None:
            ok = self.opens[c] = bool(self.g.may_open(c))
        return ok

    def gaps(self, rid: int) -> tuple[int, ...]:
        """The places ``q`` of row ``rid`` where a card is missing before ``q``."""
        q = self.gaps_of[rid]
        if q is None:
            arow = self.absr[rid]
            two = self.two
            q = tuple([p for p in range(1, len(arow)) if arow[p] - arow[p - 1] == two])
            self.gaps_of[rid] = q
        return q

    def where(self, rid: int) -> dict[int, list[int]]:
        """Where each value of row ``rid`` lies (its places, in order)."""
        w = self.where_of[rid]
        if w is None:
            w = {}
            for q, v in enumerate(self.absr[rid]):
                w.setdefault(v, []).append(q)
            self.where_of[rid] = w
        return w

    def terms(self, rid: int) -> tuple[int, tuple[int, ...]]:
        """Row ``rid``'s end and the values it bridges to the next (for :meth:`score`)."""
        t = self.terms_of[rid]
        if t is None:
            a = self.absr[rid]
            step = self.step
            t = (a[-1], tuple([x for x, y in pairwise(a) if y - x == step]))
            self.terms_of[rid] = t
        return t

    def score(self, ids: tuple[int, ...], hand: tuple[int, ...]) -> float:
        """:func:`evaluate` of the rows ``ids`` and ``hand`` (the same terms in the same order, so the same float)."""
        empty = 0
        ends: set[int] = set()
        bridged: set[int] = set()
        for rid in ids:
            if rid == 0:
                empty += 1
                continue
            t = self.terms(rid)
            ends.add(t[0])
            bridged.update(t[1])
        vmin, vmax = self.vmin, self.vmax
        acc = {e + d for e in ends for d in self.gsteps if vmin <= e + d <= vmax}
        two = self.two
        near = sum([1 for c in hand if c - two in ends])
        w8 = WEIGHTS
        return w8[0] * empty + w8[1] * near + w8[2] * len(acc) + w8[3] * len(bridged) / self.span

    # ------------------------------------------------------------------ positions
    def key(self, ids: list[int], hid: int, pid: int, joker: bool) -> tuple[int, ...]:
        """The canonical key: the row-card rows and the extra rows as multisets, the hand, parked cards, joker."""
        nf = self.nf
        if len(ids) == nf:
            k = sorted(ids)
        else:
            k = sorted(ids[:nf])
            k.extend(sorted(ids[nf:]))
        k.append(hid)
        k.append(pid)
        k.append(1 if joker else 0)
        return tuple(k)

    def settle(self, ids: list[int], r: int, rid: int) -> bool:
        """Put row ``rid`` at ``r``, completed if complete; drop empty extra rows. True if the joker left the table."""
        s = self.settled[rid]
        ids[r] = s
        nf = self.nf
        if len(ids) > nf:
            ids[nf:] = [x for x in ids[nf:] if x]
        return s != rid and self.joker_in[rid]

    def child(
        self,
        fr: _Frontier,
        ids: list[int],
        hid: int,
        pid: int,
        joker: bool,
        reb: int,
        kind: int,
        a: int,
        b: int,
        c: int = 0,
        fs: bool = False,
    ) -> bool:
        """Add the child position if it is new; True if the search stops.

        The move that reaches it is stored as ``(kind, a, b, c, fs)`` (see :func:`_rows_move`); only the
        moves of the plan become :class:`~kbsim.engine.rows.moves.Move` objects.
        """
        key = self.key(ids, hid, pid, joker)
        if key in self.seen:
            return False
        hand = self.cards[hid]
        park = self.cards[pid]
        return fr.add(
            key,
            (tuple(ids), hid, pid, joker, reb),
            (kind, a, b, c, fs),
            self.total - len(hand) - len(park),
            won=self.win_possible and not hand and not park,
        )

    def expand(self, fr: _Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int) -> bool:  # noqa: C901
        """Add the new children of a position, in the order the moves are listed; True if the search stops.

        The order: per row (once per row content), lays of hand then parked cards on its end (in the order
        of the steps), gap fills, or openings of an empty row; then the joker swap; then the rebuilds.
        """
        nr = len(cur)
        hand = self.cards[hid]
        park = self.cards[pid]
        rows = self.rows
        done: set[int] = set()
        for r in range(nr):
            rid = cur[r]
            if rid in done:
                continue
            done.add(rid)
            if rid:
                acc = self.acc[rid]
                for zone in (0, 1):
                    pool = hand if zone == 0 else park
                    if not pool:
                        continue
                    for c in acc:
                        if c in pool:
                            ids = list(cur)
                            gone = self.settle(ids, r, self.lay(rid, c))
                            jk = joker and not gone
                            if zone == 0:
                                stop = self.child(fr, ids, self.minus(hid, c), pid, jk, reb, _LAY, c, r)
                            else:
                                stop = self.child(fr, ids, hid, self.minus(pid, c), jk, reb, _LAY_PARKED, c, r)
                            if stop:
                                return True
                row = rows[rid]
                if (
                    hand and len(row) > 1 and self.fill
                ):  # gaps a hand card fills exactly (first gap per card, as the engine does)
                    gq = self.gaps(rid)
                    if gq:
                        arow = self.absr[rid]
                        filled: set[int] = set()
                        for q in gq:
                            c = arow[q - 1] + self.step
                            if c in hand and c not in filled:
                                filled.add(c)
                                ids = list(cur)
                                gone = self.settle(ids, r, self.intern(row[:q] + (c,) + row[q:]))
                                if self.child(
                                    fr, ids, self.minus(hid, c), pid, joker and not gone, reb, _FILL_GAP, c, r
                                ):
                                    return True
            else:
                for zone in (0, 1):
                    pool = hand if zone == 0 else park
                    for j in range(len(pool)):
                        c = pool[j]
                        if (j == 0 or c != pool[j - 1]) and self.may_open(c):
                            ids = list(cur)
                            gone = self.settle(ids, r, self.opened(c))
                            jk = joker and not gone
                            if zone == 0:
                                stop = self.child(fr, ids, self.minus(hid, c), pid, jk, reb, _LAY, c, r)
                            else:
                                stop = self.child(fr, ids, hid, self.minus(pid, c), jk, reb, _LAY_PARKED, c, r)
                            if stop:
                                return True
        if joker and self.swap:  # swap the exact hand card in for the joker
            for r in range(nr):
                row = rows[cur[r]]
                jq = -1
                for q in range(len(row)):
                    if row[q] < 0:
                        jq = q
                        break
                if jq >= 0 and -row[jq] in hand:
                    c = -row[jq]
                    ids = list(cur)
                    ids[r] = self.intern(row[:jq] + (c,) + row[jq + 1 :])
                    if self.child(fr, ids, self.minus(hid, c), pid, False, reb, _SWAP, c, 0):
                        return True
                    break
        if self.rebuild_ends and reb < self.reb_left:
            return self.rebuild_end_segments(fr, cur, hid, pid, joker, reb)
        if self.can_rebuild and reb < self.reb_left:
            return self.rebuild_any(fr, cur, hid, pid, joker, reb)
        return False

    def rebuild_end_segments(
        self, fr: _Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int
    ) -> bool:
        """The rebuilds of end segments onto row ends (the default rules), in the order of :meth:`rebuild_any`.

        Sources are the first row of each content, targets the first other row of each content; the moves
        come by source, target, step and place (:meth:`cuts`).
        """
        nr = len(cur)
        firsts: list[int] = []  # the first row of each non-empty content, and its second row (or -1)
        seconds: list[int] = []
        for r in range(nr):
            rid = cur[r]
            if not rid:
                continue
            at = -1
            for i in range(len(firsts)):
                if cur[firsts[i]] == rid:
                    at = i
                    break
            if at < 0:
                firsts.append(r)
                seconds.append(-1)
            elif seconds[at] < 0:
                seconds[at] = r
        nc = len(firsts)
        vmask, amask = self.vmask, self.amask
        for i in range(nc):
            s = firsts[i]
            sid = cur[s]
            vm = vmask[sid]
            targets: list[tuple[int, int]] = []
            for j in range(nc):
                d = firsts[j] if j != i else seconds[j]
                if d >= 0:
                    tid = cur[firsts[j]]
                    if vm & amask[tid]:  # (else no value of the source continues the target's end)
                        targets.append((d, tid))
            if seconds[i] >= 0:
                targets.sort()
            for d, tid in targets:
                for count, stays, joined in self.cuts(sid, tid):
                    ids = list(cur)
                    ids[s] = stays
                    gone = self.settle(ids, d, joined)
                    if self.child(fr, ids, hid, pid, joker and not gone, reb + 1, _REBUILD, s, count, d, False):
                        return True
        return False

    def cuts(self, sid: int, tid: int) -> list[tuple[int, int, int]]:
        """The end segments of row ``sid`` that continue row ``tid``'s end, kept per pair of rows.

        Returns:
            ``(count, id of the row left, id of row tid with the segment)`` in the order of the steps, then of
            the places in ``sid``.
        """
        k = (sid << 32) | tid
        out = self.pair_cuts.get(k)
        if out is None:
            wh = self.where(sid)
            n = len(self.rows[sid])
            out = []
            for v in self.acc[tid]:
                qs = wh.get(v)
                if qs is not None:
                    for q in qs:
                        out.append((n - q, self.prefix(sid, q), self.join(tid, sid, q)))
            self.pair_cuts[k] = out
        return out

    def rebuild_any(self, fr: _Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int) -> bool:
        """Every rebuild the rules allow: end or start segments onto row ends, splits into empty rows."""
        nr = len(cur)
        rows = self.rows
        gsteps = self.gsteps
        from_start, into_empty = self.from_start, self.into_empty
        done_src: set[int] = set()
        for s in range(nr):
            sid = cur[s]
            if not sid or sid in done_src:
                continue
            done_src.add(sid)
            src = rows[sid]
            n = len(src)
            asrc = self.absr[sid]
            wh = self.where(sid)
            done_dst: set[int] = set()
            for d in range(nr):
                did = cur[d]
                if d == s or did in done_dst:
                    continue
                done_dst.add(did)
                dst = rows[did]
                cuts: list[tuple[int, bool]] = []
                if did:
                    e = self.absr[did][-1]
                    for st in self.steps:
                        for q in wh.get(e + st, []):
                            cuts.append((n - q, False))
                    if from_start and asrc[0] - e in gsteps:
                        cuts.extend([(k, True) for k in range(1, n)])
                elif into_empty:
                    cuts.extend([(n - q, False) for q in range(1, n) if self.may_open(asrc[q])])
                    if from_start and self.may_open(asrc[0]):
                        cuts.extend([(k, True) for k in range(1, n)])
                for k, fs in cuts:
                    seg, rest = (src[:k], src[k:]) if fs else (src[n - k :], src[: n - k])
                    ids = list(cur)
                    ids[s] = self.intern(rest)
                    gone = self.settle(ids, d, self.intern(dst + seg))
                    if self.child(fr, ids, hid, pid, joker and not gone, reb + 1, _REBUILD, s, k, d, fs):
                        return True
        return False


_TABLE_LIMIT: Final = 10_000
"""Row contents (or card tuples, or row pairs) a :class:`_RowsSearch` keeps before it starts afresh."""

_SEARCHERS: list[_RowsSearch] = []
"""The rows searchers of the rules searched last (at most two: a barred seat's rules and the others',
:mod:`kbsim.engine.rows.restrict`; see :func:`_rows_searcher`)."""


def _rows_searcher(g: CompiledGame) -> _RowsSearch:
    """The :class:`_RowsSearch` for the rules ``g``: one kept from the last searches if it has the same rules.

    Its tables only speed the search up (a search's result never depends on the ids), so keeping them, or
    starting afresh once they are full, changes no plan.
    """
    for i in range(len(_SEARCHERS)):
        rs = _SEARCHERS[i]
        if rs.g is g:
            if not rs.full_tables():
                return rs
            del _SEARCHERS[i]
            break
    if len(_SEARCHERS) >= 2:
        del _SEARCHERS[0]
    rs = _RowsSearch(g)
    _SEARCHERS.append(rs)
    return rs


def _search_rows(sb: Turn, needed: int, reb_left: int, budget: int, prune: bool) -> Plan:
    """Breadth-first search with rows kept as tuples of cards: any sequence rule, any marks on the table.

    Models everything a turn without an active modifier can do: lays on row
    ends and into empty row cards, rebuilds (end or start segments, splits,
    whatever the rules allow), completion, and in the complete game the marks
    powers leave behind: a joker (``-v`` stands for ``v``; the exact hand card
    may be swapped in), gaps (the exact hand card may fill one), duplicates,
    extra rows (they vanish once empty) and parked cards (laid on row ends).
    Positions are keyed by the row-card rows and the extra rows as multisets,
    the hand, the parked cards and whether the joker is still on the table
    (row contents and card tuples interned as ids, see :class:`_RowsSearch`).

    Args:
        sb: a sandbox copy of the turn (the plan is replayed on it).
        needed: cards the turn must still lay.
        reb_left: rebuilds still allowed.
        budget: positions the search may store.
        prune: stop at the first position that lays every hand and parked card.

    Returns:
        The best plan found (most cards laid, then :func:`evaluate`), already replayed on ``sb``.

    Raises:
        PlanError: replaying the plan on ``sb`` laid a different number of cards than the search expected.
    """
    rs = _rows_searcher(sb.g)
    rs.start(sb, reb_left, prune)
    g = rs.g
    ids0 = rs.ids0
    key0 = rs.key(list(ids0), rs.hid0, rs.pid0, rs.joker0)
    root: _RowsState = (ids0, rs.hid0, rs.pid0, rs.joker0, 0)
    fr = _Frontier(root, key0, needed=needed, full=rs.full, budget=budget, lays_first=prune)
    rs.seen = fr.seen
    for state in fr:
        pos: _RowsState = state
        if rs.expand(fr, pos[0], pos[1], pos[2], pos[3], pos[4]):
            break
    if not fr.cand:
        return _no_plan(g, rs.rows0, rs.hand0, len(fr.seen), fr.truncated, "rows")
    states = fr.states
    cards = rs.cards
    best = fr.best(lambda k: rs.score(states[k][0], cards[states[k][1]]))
    seq = [_rows_move(m) for m in fr.path(best)]
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
