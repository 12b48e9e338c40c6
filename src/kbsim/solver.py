"""The turn solver: the best lay-out turn for a board and a hand.

A lay-out turn (rulebook, "Turn Sequence", option A) is a sequence of lays
(a hand card on a row end, or opening an empty row) and rebuilds (an end
segment of a row moved onto another row it continues; start segments and
splits into empty rows only where the rules' options allow them), with
completed rows going to the discard pile at once. In the complete game a
turn may also fill a gap, swap the joker back and lay parked cards. This
module finds the best such sequence; it is the engine of the ``planner`` bot
and of ``kbsim solve``.

Objective
    1. the most cards laid this turn (an immediate win beats everything);
    2. ties: the highest board evaluation (:func:`evaluate`);
    3. remaining ties: the position found first (fewest moves, then the fixed
       move-generation order), so the result is deterministic.

Search
    Breadth-first over the positions reachable within the turn, each position
    stored once under a **canonical key**: the rows as a sorted multiset (which
    row card holds a row does not matter) and the hand as a sorted tuple (copies
    of a value are interchangeable). Breadth-first order means the plan
    returned for a position is a shortest move sequence reaching it. The
    search reads only the compiled rules (``steps``, ``may_open``,
    ``is_complete``, ``rebuild_allowed``, ``rebuild_from_start``,
    ``rebuild_into_empty``, ``max_rebuilds``, ``win_on_empty``), so every
    variant is searched under its own rules. :func:`plan_turn` picks one of
    four engines by what the position holds; they find the same number of
    cards (the tests check this), and differ in speed:

    * ``links`` (:func:`_search_links`): strict runs under the default rebuild
      rules. A position shrinks to counts (row ends, row starts and links
      per value, the hand), because rebuilds that only swap the tails of two
      rows never change what can be laid; see the function for the argument.
      This is what makes the bot fast in the base game.
    * ``runs`` (:func:`_search_runs`): strict runs with start segments or
      splits; a row is coded by its first and last value.
    * ``rows`` (:func:`_search_rows`): rows as tuples of cards: repeats, and
      the marks powers leave (joker, gaps, duplicates, extra rows, parked cards).
    * ``clones`` (:func:`_search_clones`): copies of the engine's own
      :class:`~kbsim.engine.turn.Turn`, while a character's turn modifier is
      on, and for other games of the rows family (King's Corners).

    Every plan is replayed on ``turn.sandbox()`` before it is returned, so a
    plan the engine would refuse raises :class:`PlanError` instead of
    reaching the table.

Budget
    The search is exhaustive unless it stores ``budget`` positions; it then
    stops and returns the best position seen so far, all of whose shorter
    sequences were explored first (breadth-first), and says so
    (``Plan.exact`` is False). The budget counts positions, not seconds, so a
    result never depends on the machine. With ``prune`` the search also stops
    at the first position that lays every card, and (``links``) moves whole
    rows together where no hand card needs the row end they cover: the cards
    laid stay the maximum, the tie-break covers fewer positions.

Board text (``kbsim solve``)
    Rows are separated by ``|``; a row is its values (``3 4 5``) or a run
    (``3-5``); ``_`` or nothing is an empty row; ``E7`` is the joker standing
    for 7, a jump (``3 5``) a gap and a repeat (``4 4``) a duplicate, where the
    rules' powers allow them. Fewer rows than the table holds leave the rest
    empty. See :func:`parse_board` and :func:`check_board`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from kbsim.engine.compiled import CompiledGame
from kbsim.engine.moves import FillGap, IllegalMove, Lay, LayParked, Move, Play, Rebuild, Swap
from kbsim.engine.notation import NotationError, format_cards, format_move, parse_cards
from kbsim.engine.turn import DONE, HIDDEN, Turn

DEFAULT_BUDGET = 50_000
"""Positions a search may store before it stops (``kbsim solve``'s default)."""

WEIGHTS = (8.0, 3.0, 1.0, 1.0)
"""Weights of :func:`evaluate`'s terms: empty rows, hand cards one short of a row end, values the
row ends accept, share of bridged value boundaries."""

Row = tuple[int, ...]
Rows = tuple[Row, ...]


class BoardError(ValueError):
    """A board or hand that cannot occur under the rules; the message says what and where."""


class PlanError(RuntimeError):
    """A plan the engine refused when replayed (a solver bug, never a user error)."""


@dataclass(frozen=True)
class Plan:
    """The best lay-out turn found.

    Attributes:
        moves: the lays and rebuilds, in order (0-based rows; no ``end`` move).
        laid: hand cards the moves lay.
        score: the board evaluation of the final position (:func:`evaluate`).
        rows: the rows after the moves, in row-card order.
        hand: the hand left after the moves (sorted).
        won: laying the last card with an empty draw pile wins the game.
        legal: the turn lays at least the cards the turn must lay (False when
            no sequence reaches that minimum; ``moves`` is then empty).
        nodes: positions stored by the search.
        exact: True if the search was not cut short by its budget (cards laid is then the maximum).
        engine: which search ran: ``links``, ``runs``, ``rows`` or ``clones`` (see :func:`plan_turn`).
    """

    moves: tuple[Move, ...]
    laid: int
    score: float
    rows: Rows
    hand: tuple[int, ...]
    won: bool
    legal: bool
    nodes: int
    exact: bool
    engine: str = ""


def evaluate(g: CompiledGame, rows: Sequence[Sequence[int]], hand: Sequence[int]) -> float:
    """Board evaluation used to break ties between positions that lay as many cards.

    Higher is better. The terms, in decreasing weight:

    * ``8`` per empty row: any card may open it later (rows left for later);
    * ``3`` per card left in hand that is one card short of fitting a row end
      (its value is two steps beyond an end);
    * ``1`` per distinct value the row ends accept (the flexibility of the
      table for the next hand);
    * up to ``1`` for how close the table is to completing a row: the share of
      the value boundaries (1-2, 2-3, ..., 12-13) that some row bridges; a row
      can be completed once every boundary is bridged.

    Every term depends only on the row ends, the empty rows and which values
    follow which on the table, never on which row card holds which run, so
    positions that differ only by swapping row tails score the same. A joker
    counts as the value it stands for.

    Args:
        g: compiled rules.
        rows: the rows (tuples or lists of values).
        hand: the remaining hand cards.

    Returns:
        The score (a float; only its order matters).
    """
    step = g.step
    empty = 0
    ends: set[int] = set()
    bridged: set[int] = set()
    for row in rows:
        if not row:
            empty += 1
            continue
        ends.add(abs(row[-1]))
        for a, b in pairwise(row):
            if abs(b) - abs(a) == step:
                bridged.add(abs(a))
    accepts = {e + d for e in ends for d in g.steps if g.value_min <= e + d <= g.value_max}
    two = 2 * step
    near = sum(1 for c in hand if c - two in ends)
    w = WEIGHTS
    return w[0] * empty + w[1] * near + w[2] * len(accepts) + w[3] * len(bridged) / max(1, g.full_length - 1)


def plan_turn(turn: Turn, *, budget: int = DEFAULT_BUDGET, prune: bool = False) -> Plan:
    """Find the best lay-out continuation of ``turn`` and check it on a sandbox copy.

    The engine is picked from the position (all give the same cards laid;
    they differ in speed):

    * **link counts** (:func:`_search_links`) for strict runs under the default
      rebuild rules on a plain table;
    * **runs** (:func:`_search_runs`) for strict runs under other rebuild rules
      (start segments, splits into empty rows);
    * **rows** (:func:`_search_rows`) for other sequence rules (repeats) and
      for tables that hold what powers leave behind (a joker, gaps,
      duplicates, extra rows, parked cards);
    * **turn copies** (:func:`_search_clones`) while a character's turn
      modifier is on (laying before a row's start, equal values, a skipped
      value), and for rules beyond Kingsbridge's (suited cards, row cards
      with their own opening rules, whole-row rebuilds only, cards that must
      be laid: King's Corners). It enumerates the
      :class:`~kbsim.engine.turn.Turn`'s own legal lays and rebuilds on
      copies of the turn, so it is exact by construction, and slowest.

    Args:
        turn: the turn in progress (not changed); its lays so far count toward the minimum.
        budget: positions the search may store (>= 1).
        prune: see :func:`search`.

    Returns:
        The :class:`Plan`; its moves were replayed on ``turn.sandbox()`` and are
        legal for ``turn`` as it is now.

    Raises:
        ValueError: ``budget`` < 1.
        PlanError: the engine refused the plan (a solver bug).
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    g = turn.g
    sb = turn.sandbox()
    rows0: Rows = tuple(tuple(r) for r in turn.rows)
    hand0 = tuple(sorted(turn.hand))
    if turn.phase == DONE:
        return Plan(moves=(), laid=0, score=evaluate(g, rows0, hand0), rows=rows0, hand=hand0, won=turn.won,
                    legal=False, nodes=1, exact=True, engine="none")
    if turn.m_start or turn.m_equal or turn.skips or not _simple_rules(g):
        return _search_clones(sb, budget, prune)
    n0 = len(hand0)
    needed = turn.needed
    reb_left = max(0, g.max_rebuilds - turn.rebuilds)
    win_possible = g.win_on_empty and turn.pile_size == 0
    full = n0 if (prune or win_possible) else n0 + 1
    plain = _plain(turn)
    if plain and _links_apply(g, rows0, n0, reb_left):
        return _search_links(sb, rows0, hand0, needed, reb_left, budget, full, prune)
    if not plain or len(g.steps) != 1 or g.step == 0 or g.value_max - g.value_min >= 250:
        return _search_rows(sb, needed, reb_left, budget, prune)
    engine = "runs"
    cand, parents, moves_, truncated, nodes = _search_runs(g, rows0, hand0, needed, reb_left, budget, full)
    if not cand:
        return _no_plan(g, rows0, hand0, nodes, truncated, engine)
    best = None
    for idx, rows_, hand_ in cand:  # candidates lay the most cards; breadth-first order
        val = evaluate(g, rows_, hand_)
        if best is None or val > best[0]:
            best = (val, idx)
    val, idx = best
    seq = [Lay(a, b) if kind == 0 else Rebuild(a, b, c, d) for kind, a, b, c, d in _path(parents, moves_, idx)]
    before = sb.laid
    _replay(sb, seq)
    return Plan(moves=tuple(seq), laid=sb.laid - before, score=val, rows=tuple(tuple(r) for r in sb.rows),
                hand=tuple(sorted(sb.hand)), won=sb.won, legal=True, nodes=nodes, exact=not truncated,
                engine=engine)


def search(g: CompiledGame, rows: Sequence[Sequence[int]], hand: Sequence[int], *, pile_size: int = 1,
           needed: int | None = None, rebuilds_left: int | None = None, budget: int = DEFAULT_BUDGET,
           prune: bool = False) -> Plan:
    """Find the best lay-out turn for a bare position (see the module docstring for the objective).

    The position is wrapped in a fresh :class:`~kbsim.engine.turn.Turn` (no
    character state) and solved with :func:`plan_turn`.

    Args:
        g: compiled rules (their sequence, opening, completion and rebuild rules are searched).
        rows: the rows, first card to last, in row-card order (not changed).
        hand: the hand cards (not changed).
        pile_size: cards in the draw pile; with 0 (and the win rule) laying the last hand card wins.
        needed: hand cards the turn must lay (default: what the rules ask of a turn with this pile).
        rebuilds_left: rebuilds still allowed this turn (default: the rules' maximum).
        budget: positions the search may store (>= 1) before it stops with the best seen so far.
        prune: search less for speed, keeping the cards laid exact: stop at the first position that
            lays the whole hand, and (link-count search) move a whole row onto a row end at once
            whenever no hand card could use that end. The tie-break then only compares the
            positions searched.

    Returns:
        The :class:`Plan`, checked on the engine.

    Raises:
        ValueError: ``budget`` < 1.
        PlanError: the engine refused the plan (a solver bug).
    """
    turn = Turn(g, [list(r) for r in rows], list(hand), [HIDDEN] * pile_size, [])
    if rebuilds_left is not None:
        turn.rebuilds = max(0, g.max_rebuilds - rebuilds_left)
    if needed is not None and needed != turn.needed:
        # emulate a turn that already laid some cards (needed < minimum) or must lay more
        turn.laid = g.min_lay - needed
    return plan_turn(turn, budget=budget, prune=prune)


def _simple_rules(g: CompiledGame) -> bool:
    """True if the rules are those the fast engines model: plain card values, one opening rule for
    every row card, rebuilds of any segment the options allow (Kingsbridge and its variants)."""
    return (not getattr(g, "value_shift", 0)
            and not getattr(g, "suit_codes", ()) and all(x is None for x in getattr(g, "row_open", ()))
            and not getattr(g, "rebuild_whole_only", False) and not getattr(g, "must_lay", ()))


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


def _replay(sb: Turn, moves: Sequence[Move]) -> None:
    """Apply ``moves`` to the sandbox ``sb``; a refusal is a :class:`PlanError`."""
    for m in moves:
        try:
            sb.apply(m)
        except IllegalMove as e:
            raise PlanError(f"the engine refused planned move {m!r}: {e}") from None


class _Frontier:
    """The breadth-first bookkeeping every search shares.

    Stores each new position with its parent, the move that reached it and
    the cards laid so far, its key in ``seen``; keeps the candidates (the
    positions that may end the turn and lay the most cards, in the order
    found); and stops the search at a win, when ``full`` cards are laid, or
    when ``budget`` positions are stored (``truncated``). Iterating yields the
    stored positions in breadth-first order until the search stops;
    :meth:`add` hangs new positions under the one last yielded. A search
    skips a child whose key is in ``seen`` before it builds the child's state
    (most children are positions seen already): ``key not in fr.seen and
    fr.add(key, state, ...)``.
    """

    __slots__ = ("states", "parents", "moves", "laids", "seen", "needed", "full", "budget", "cand", "best_laid",
                 "truncated", "stop", "parent")

    def __init__(self, root, key, *, needed: int, full: float, budget: int, root_ok: bool = True) -> None:
        self.states = [root]
        self.parents = [-1]
        self.moves: list = [None]
        self.laids = [0]
        self.seen = {key}
        self.needed, self.full, self.budget = needed, full, budget
        self.cand: list[int] = [0] if root_ok and needed <= 0 else []
        self.best_laid = 0 if self.cand else -1
        self.truncated = self.stop = False
        self.parent = 0

    def __iter__(self):
        for i, state in enumerate(self.states):  # positions added meanwhile come later in the list
            if self.stop:
                return
            self.parent = i
            yield state

    def add(self, key, state, move, laid: int, ok: bool = True, won: bool = False) -> bool:
        """Store a new position (``key`` not in ``seen``); True if the search stops here.

        ``ok``: the position may end the turn (with at least ``needed`` cards laid it is a candidate);
        ``won``: it wins the game (it becomes the only candidate and the search stops).
        """
        seen = self.seen
        seen.add(key)
        idx = len(self.states)
        self.states.append(state)
        self.parents.append(self.parent)
        self.moves.append(move)
        self.laids.append(laid)
        if won:
            self.cand, self.best_laid, self.stop = [idx], laid, True
            return True
        if ok and laid >= self.needed:
            if laid > self.best_laid:
                self.best_laid = laid
                self.cand = [idx]
            elif laid == self.best_laid:
                self.cand.append(idx)
        if laid >= self.full:
            self.stop = True
        elif len(seen) >= self.budget:
            self.truncated = self.stop = True
        return self.stop

    def best(self, score: Callable[[int], float]) -> int:
        """The candidate with the highest ``score``, the first found among equals."""
        return max(self.cand, key=lambda k: (score(k), -k))

    def path(self, k: int) -> list:
        """The moves from the start to position ``k``."""
        return _path(self.parents, self.moves, k)


def _path(parents: list[int], moves: list, k: int) -> list:
    """The moves from the start (index 0) to position ``k`` of a breadth-first tree."""
    seq = []
    while k > 0:
        seq.append(moves[k])
        k = parents[k]
    seq.reverse()
    return seq


def _no_plan(g: CompiledGame, rows: Rows, hand: tuple[int, ...], nodes: int, truncated: bool, engine: str) -> Plan:
    """The plan when no position lays the cards the turn must lay."""
    return Plan(moves=(), laid=0, score=evaluate(g, rows, hand), rows=rows, hand=hand, won=False, legal=False,
                nodes=nodes, exact=not truncated, engine=engine)


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
        return (tuple(sorted(rows)) if same_rows else rows, tuple(sorted(t.hand)), tuple(sorted(t.parked)),
                t.skips)

    base = root.laid
    total = len(root.hand) + len(root.parked)
    fr = _Frontier(root, key(root), needed=0, full=total if prune else float("inf"), budget=budget,
                   root_ok=root.can_end())
    for t in fr:
        if t.phase == DONE:
            continue
        for mv in [*t.lay_moves(), *t.rebuild_moves()]:
            c = t.clone()
            c.apply(mv)
            k = key(c)
            if k not in fr.seen and fr.add(k, c, mv, c.laid - base, c.can_end(), c.won):
                break
    if not fr.cand:
        return _no_plan(g, tuple(tuple(r) for r in root.rows), tuple(sorted(root.hand)), len(fr.seen),
                        fr.truncated, "clones")
    nodes = fr.states
    best = fr.best(lambda k: evaluate(g, nodes[k].rows, nodes[k].hand))
    end = nodes[best]
    return Plan(moves=tuple(fr.path(best)), laid=end.laid - base, score=evaluate(g, end.rows, end.hand),
                rows=tuple(tuple(r) for r in end.rows), hand=tuple(sorted(end.hand)), won=end.won, legal=True,
                nodes=len(fr.seen), exact=not fr.truncated, engine="clones")


def _links_apply(g: CompiledGame, rows0: Rows, n0: int, reb_left: int) -> bool:
    """True if the rules allow the link-count search (:func:`_search_links`) to be exact.

    It needs rows that are strict runs by +1 or -1, rebuilds of end segments
    onto non-empty rows only (the default rebuild rules), and enough rebuilds
    left for every merge and completion a turn could need.
    """
    if not (len(g.steps) == 1 and g.step in (1, -1) and g.rebuild_allowed and not g.rebuild_from_start
            and not g.rebuild_into_empty and g.full_length == g.value_max - g.value_min + 1):
        return False
    cards = sum(len(r) for r in rows0) + n0
    return reb_left >= len(rows0) + n0 + (cards // g.full_length + 1) * g.full_length


def _search_links(sb: Turn, rows0: Rows, hand0: tuple[int, ...], needed: int, reb_left: int, budget: int,
                  full: int, prune: bool) -> Plan:
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

    With ``prune``, a whole row starting at ``f`` is moved onto a row ending at
    ``f - 1`` at once whenever the hand holds no card ``f``: that row end then
    serves nothing but such moves, so the move can only help (a row card is
    freed, a boundary bridged). The winning sequence
    is then carried out on a real :class:`~kbsim.engine.turn.Turn` (any row with
    the needed end or start will do), which also checks it.

    Args:
        sb: a sandbox copy of the turn; the plan is carried out on it.
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

    E = S = L = R = H = 0
    for row in rows0:
        if not row:
            continue
        E += one[pos(row[-1])]
        S += one[pos(row[0])]
        R += 1
        for v in row[:-1]:
            L += one[pos(v)]
    for c in hand0:
        H += one[pos(c)]
    Z = B - (nz(L) & lows_b).bit_count()
    E, S, L, Z, R = close(E, S, L, Z, R)
    if prune:
        E, S, L, Z, R = merge_free(E, S, L, Z, R, H, range(1, K))
    start = (E, S, L, Z, R, H)
    fr = _Frontier(start, start, needed=needed, full=full, budget=budget)
    states, laids, seen = fr.states, fr.laids, fr.seen
    for E, S, L, Z, R, H in fr:
        laid = laids[fr.parent] + 1
        children = []
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
                if prune:
                    c = merge_free(*c, H2, (p, p + 1))
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
    out = _realize(sb, fr.path(best), val, pos, prune)
    laid = laids[best]
    if sb.laid - before != laid:
        raise PlanError(f"carrying out the plan laid {sb.laid - before} cards, the search expected {laid}")
    return Plan(moves=tuple(out), laid=laid, score=score(best), rows=tuple(tuple(r) for r in sb.rows),
                hand=tuple(sorted(sb.hand)), won=sb.won, legal=True, nodes=len(fr.seen), exact=not fr.truncated,
                engine="links")


def _realize(turn: Turn, path: list[tuple[int, int]], val: Callable[[int], int],
             pos: Callable[[int], int], prune: bool) -> list[Move]:
    """Carry out a :func:`_search_links` path on ``turn``; return the concrete moves made.

    After every step it completes rows while it can and, with ``prune``, makes
    the whole-row moves the search made at once, in the same order.

    Raises:
        PlanError: a needed row end or start is missing, or the engine refused a move (a solver bug).
    """
    g = turn.g
    rows = turn.rows
    K = g.full_length
    out: list[Move] = []

    def complete_rows() -> None:
        while g.complete_when_all and turn.phase != DONE:
            if len({v for row in rows for v in row[:-1]}) < K - 1:
                return  # some boundary is not bridged: no row can be completed
            r = next(i for i, row in enumerate(rows) if row and pos(row[0]) == 0)
            while rows[r]:
                e = pos(rows[r][-1])
                src = next((i for i, row in enumerate(rows)
                            if i != r and row and pos(row[0]) <= e < pos(row[-1])), None)
                if src is None:
                    raise PlanError(f"no row bridges {val(e)}-{val(e + 1)} to complete row {r + 1}: {rows}")
                mv = Rebuild(src, pos(rows[src][-1]) - e, r)
                turn.rebuild(*mv)
                out.append(mv)

    back = g.step

    def merge_free() -> None:
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
            mv = Rebuild(src, len(rows[src]), ends[v - back])
            turn.rebuild(*mv)
            out.append(mv)
        complete_rows()

    def settle() -> None:
        complete_rows()
        if prune:
            merge_free()

    try:
        settle()
        for kind, p in path:
            if kind == 0:
                r = next((i for i, row in enumerate(rows) if row and row[-1] == val(p - 1)), None)
                if r is None:
                    raise PlanError(f"no row ends at {val(p - 1)} to lay {val(p)} on: {rows}")
                mv: Move = Lay(val(p), r)
                turn.lay(*mv)
            elif kind == 1:
                r = next((i for i, row in enumerate(rows) if not row), None)
                if r is None:
                    raise PlanError(f"no empty row to open with {val(p)}: {rows}")
                mv = Lay(val(p), r)
                turn.lay(*mv)
            else:
                src = next((i for i, row in enumerate(rows) if row and row[0] == val(p)), None)
                dst = next((i for i, row in enumerate(rows) if row and row[-1] == val(p - 1)), None)
                if src is None or dst is None:
                    raise PlanError(f"no row starting at {val(p)} or ending at {val(p - 1)}: {rows}")
                mv = Rebuild(src, len(rows[src]), dst)
                turn.rebuild(*mv)
            out.append(mv)
            if turn.phase == DONE:
                break
            settle()
    except IllegalMove as e:
        raise PlanError(f"the engine refused a planned move: {e}") from None
    return out


def _search_runs(g: CompiledGame, rows0: Rows, hand0: tuple[int, ...], needed: int, reb_left: int, budget: int,
                 full: int):
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
        if check_complete and (last - first) // st + 1 >= full_len \
                and is_complete(list(range(first, last + st, st))):
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
                        children.append((r, closed(firsts[r], v), -1, 0, hand[:j] + hand[j + 1:], (0, v, r, 0, 0)))
                elif not opened:
                    opened = True
                    prev = None
                    for j, v in enumerate(hand):
                        if v != prev and may_open(v):
                            children.append((r, code(v, v), -1, 0, hand[:j] + hand[j + 1:], (0, v, r, 0, 0)))
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
                            children.append((s, code(fs, f - st) if q else 0, d, closed(fd, ls), hand,
                                             (1, s, n - q, d, False)))
                        if from_start and fs == f:  # start segments fs..fs+(k-1)st onto d
                            for k in range(1, n):
                                children.append((s, code(fs + k * st, ls), d, closed(fd, fs + (k - 1) * st), hand,
                                                 (1, s, k, d, True)))
                    elif into_empty:
                        for q in range(1, n):
                            v = fs + q * st
                            if may_open(v):
                                children.append((s, code(fs, v - st), d, code(v, ls), hand, (1, s, n - q, d, False)))
                        if from_start and may_open(fs):
                            for k in range(1, n):
                                children.append((s, code(fs + k * st, ls), d, code(fs, fs + (k - 1) * st), hand,
                                                 (1, s, k, d, True)))
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


def _search_rows(sb: Turn, needed: int, reb_left: int, budget: int, prune: bool) -> Plan:
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
    fr = _Frontier((rows0, hand0, park0, joker0, 0), key(rows0, hand0, park0, joker0), needed=needed, full=full,
                   budget=budget)
    seen = fr.seen
    for cur, hand, park, joker, reb in fr:
        nr = len(cur)
        absr = [tuple(abs(c) for c in row) for row in cur] if joker else cur
        children = []  # (rows list, hand, parked, joker on table, move, is a rebuild)
        done: set[Row] = set()
        for r in range(nr):
            row = cur[r]
            if row in done:
                continue
            done.add(row)
            end = absr[r][-1] if row else None
            for src, pool in ((0, hand), (1, park)):
                prev = None
                for j, c in enumerate(pool):
                    if c == prev:
                        continue
                    prev = c
                    if row:
                        if c - end not in gsteps:
                            continue
                    elif not may_open(c):
                        continue
                    rest = pool[:j] + pool[j + 1:]
                    rows = list(cur)
                    rows[r] = row + (c,)
                    gone = settle(rows, r)
                    if src == 0:
                        children.append((rows, rest, park, joker and not gone, Lay(c, r), False))
                    else:
                        children.append((rows, hand, rest, joker and not gone, LayParked(c, r), False))
            if hand and len(row) > 1:  # gaps a hand card fills exactly (first gap per card, as the engine does)
                arow = absr[r]
                filled: set[int] = set()
                for q in range(1, len(row)):
                    a = arow[q - 1]
                    if arow[q] - a == two and a + step in hand and a + step not in filled:
                        c = a + step
                        filled.add(c)
                        rows = list(cur)
                        rows[r] = row[:q] + (c,) + row[q:]
                        gone = settle(rows, r)
                        j = hand.index(c)
                        children.append((rows, hand[:j] + hand[j + 1:], park, joker and not gone, FillGap(c, r),
                                         False))
        if joker:  # swap the exact hand card in for the joker
            for r in range(nr):
                row = cur[r]
                js = [q for q, c in enumerate(row) if c < 0]
                if js and -row[js[0]] in hand:
                    c = -row[js[0]]
                    rows = list(cur)
                    rows[r] = row[:js[0]] + (c,) + row[js[0] + 1:]
                    j = hand.index(c)
                    children.append((rows, hand[:j] + hand[j + 1:], park, False, Swap(c), False))
                    break
        if can_rebuild and reb < reb_left:
            done_src: set[Row] = set()
            for s in range(nr):
                src = cur[s]
                if not src or src in done_src:
                    continue
                done_src.add(src)
                n = len(src)
                asrc = absr[s]
                where: dict[int, list[int]] = {}
                for q, v in enumerate(asrc):
                    where.setdefault(v, []).append(q)
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
                            for q in where.get(e + st, ()):
                                cuts.append((n - q, False))
                        if from_start and asrc[0] - e in gsteps:
                            cuts.extend((k, True) for k in range(1, n))
                    elif into_empty:
                        cuts.extend((n - q, False) for q in range(1, n) if may_open(asrc[q]))
                        if from_start and may_open(asrc[0]):
                            cuts.extend((k, True) for k in range(1, n))
                    for k, fs in cuts:
                        seg, rest = (src[:k], src[k:]) if fs else (src[n - k:], src[:n - k])
                        rows = list(cur)
                        rows[s] = rest
                        rows[d] = dst + seg
                        gone = settle(rows, d)
                        children.append((rows, hand, park, joker and not gone, Rebuild(s, k, d, fs), True))
        for rows, h, pk, jk, mv, is_rb in children:
            rows_t = tuple(rows)
            k = key(rows_t, h, pk, jk)
            if k not in seen and fr.add(k, (rows_t, h, pk, jk, reb + is_rb), mv, total - len(h) - len(pk),
                                        won=win_possible and not h and not pk):
                break
    if not fr.cand:
        return _no_plan(g, rows0, hand0, len(fr.seen), fr.truncated, "rows")
    states = fr.states
    best = fr.best(lambda k: evaluate(g, states[k][0], states[k][1]))
    seq = fr.path(best)
    before = sb.laid
    _replay(sb, seq)
    if sb.laid - before != fr.laids[best]:
        raise PlanError(f"replaying the plan laid {sb.laid - before} cards, the search expected {fr.laids[best]}")
    return Plan(moves=tuple(seq), laid=sb.laid - before, score=evaluate(g, sb.rows, sb.hand),
                rows=tuple(tuple(r) for r in sb.rows), hand=tuple(sorted(sb.hand)), won=sb.won, legal=True,
                nodes=len(fr.seen), exact=not fr.truncated, engine="rows")


def verify(turn: Turn, plan: Plan) -> Turn:
    """Replay ``plan`` on a sandbox copy of ``turn`` and check that it does what the plan says.

    Args:
        turn: the turn the plan was made for (not changed).
        plan: a plan from :func:`search` for that turn's rows and hand.

    Returns:
        The sandbox after the moves (its rows, hand and counters show the result).

    Raises:
        PlanError: the engine refused a move, or the result differs from the plan
            (cards laid, rows as a multiset, hand); this is a solver bug.
    """
    sb = turn.sandbox()
    before = sb.laid
    for m in plan.moves:
        try:
            sb.apply(m)
        except IllegalMove as e:
            raise PlanError(f"the engine refused planned move {m!r}: {e}") from None
    if sb.laid - before != plan.laid or sorted(sb.hand) != list(plan.hand) \
            or tuple(map(tuple, sb.rows)) != plan.rows or sb.won != plan.won:
        raise PlanError(f"plan result differs from the engine's: rows {sb.rows} hand {sb.hand}, "
                        f"plan rows {plan.rows} hand {plan.hand}")
    return sb


# ------------------------------------------------------------------ puzzles (kbsim solve)
def parse_board(text: str, n_rows: int, game: CompiledGame | None = None) -> list[list[int]]:
    """Parse the rows of a puzzle: ``"3|8|9|5|1|13"``, ``"3-5|_|9 10"``.

    Args:
        text: row slots separated by ``|``; each a list of cards, a run ``a-b``, or ``_``/nothing for empty.
        n_rows: row cards on the table; fewer slots given leave the rest empty.
        game: the rules, for decks whose cards are written with suits (``10H KS``).

    Returns:
        The rows (0-based list of lists, ``n_rows`` long).

    Raises:
        BoardError: a slot is not valid notation, or more slots than row cards.
    """
    slots = text.split("|")
    if len(slots) > n_rows:
        raise BoardError(f"{len(slots)} rows given, but the table has {n_rows} row cards")
    rows = []
    for i, slot in enumerate(slots, start=1):
        try:
            rows.append(parse_cards(slot, game))
        except NotationError as e:
            raise BoardError(f"row {i}: {e}") from None
    rows.extend([] for _ in range(n_rows - len(rows)))
    return rows


def parse_hand(text: str, what: str = "hand", game: CompiledGame | None = None) -> list[int]:
    """Parse hand (or other zone) cards: ``"1 4 6"``, ``"3-5 9"``; ``_`` or nothing for none.

    Raises:
        BoardError: not valid card notation (the message starts with ``what``).
    """
    try:
        return parse_cards(text, game)
    except NotationError as e:
        raise BoardError(f"{what}: {e}") from None


def check_board(g: CompiledGame, rows: list[list[int]], hand: list[int], discard: Sequence[int] = ()) -> None:
    """Check that a puzzle can occur under the rules.

    Checks: every value within the deck's range; a joker (``E7``) only in a
    row, only where the rules have a joker character, and only one; every row
    keeps the sequence constraint, a gap (``3 5``) or a repeat (``4 4``) only
    where a character power of these rules can leave one
    (``CompiledGame.row_is_legal``); no complete row still on the table (it
    would have gone to the discard pile); no value in more copies (rows +
    hand + discard) than the deck holds.

    Raises:
        BoardError: the first problem found, naming the row or value.
    """
    lo, hi = g.value_min, g.value_max
    for where, cards in [*((f"row {i}", r) for i, r in enumerate(rows, start=1)), ("hand", hand),
                         ("discard", discard)]:
        for v in cards:
            if where in ("hand", "discard") and v < 0:
                raise BoardError(f"{where}: a joker (E{-v}) can only lie in a row")
            value = g.value(v) if hasattr(g, "value") else abs(v)
            if not lo <= value <= hi:
                raise BoardError(f"{where}: value {value} is outside {lo}..{hi}")
    jokers = sum(1 for row in rows for c in row if c < 0)
    if jokers and not any(getattr(c, "is_joker", False) for c in g.roster):
        raise BoardError("a joker (E) lies in a row, but these rules have no joker character "
                         "(try --variant characters)")
    if jokers > 1:
        raise BoardError(f"{jokers} jokers lie in the rows; there is only one joker character")
    for i, row in enumerate(rows, start=1):
        if not g.row_is_legal(row):
            raise BoardError(f"row {i} ({format_cards(row, g)}) is not a legal row: each card must continue the "
                             f"one before it (a gap or a repeat needs a character's mark these rules allow)")
        if g.is_complete(row):
            raise BoardError(f"row {i} ({format_cards(row, g)}) is complete: it would already be in the discard "
                             f"pile")
    count = Counter(v for zone in (*rows, hand, discard) for v in zone if v > 0)
    over = {v: c for v, c in sorted(count.items()) if c > g.copies}
    if over:
        shown = ", ".join(f"{c} x {format_cards([v], g)}" for v, c in over.items())
        raise BoardError(f"more copies than the deck holds ({g.copies} of each value): {shown} "
                         f"on the table, in hand and in the discard pile")


@dataclass(frozen=True)
class Solution:
    """The answer to a puzzle: the moves in notation and the position after them.

    Attributes:
        laid: hand cards laid by the whole turn (a character's lays included).
        plan: the :class:`Plan` of lays and rebuilds (after the character play, if any).
        play: the character play made first, or None.
        texts: every move in the text notation (``play ...``, ``lay 4 on 1``, ``rebuild 3 from 9 on 2``).
        rows: the rows after the turn, in row-card order (lists).
        hand: the hand left (sorted).
        completed: rows completed during the turn.
        won: the turn wins the game.
    """

    laid: int
    plan: Plan
    play: Play | None
    texts: list[str]
    rows: list[list[int]]
    hand: list[int]
    completed: int
    won: bool

    def to_json(self) -> dict:
        """``{"laid": N, "moves": [...], "rows": [[...], ...], "hand": [...]}`` (the ``kbsim solve --json`` output)."""
        return {"laid": self.laid, "moves": self.texts, "rows": self.rows, "hand": self.hand}


def solve(g: CompiledGame, rows: list[list[int]], hand: list[int], *, discard: Sequence[int] = (),
          pile_size: int = 1, budget: int = DEFAULT_BUDGET, character: str | None = None,
          players: int = 1) -> Solution:
    """Solve a puzzle: the best lay-out turn for ``rows`` and ``hand``, checked through the engine.

    With ``character``, every legal way to play that character first (at any
    moment the engine allows: here, at the start of the turn) is tried too,
    each followed by its best lays and rebuilds; a play is chosen only if the
    turn then lays more cards (a character spent is a character gone), the
    best board (:func:`evaluate`) deciding between plays that lay as many. A
    joker (``-v``) on the table may be swapped back with the exact hand card;
    gaps and duplicates are accepted where the rules' powers explain them.

    Args:
        g: compiled rules (variant and options applied).
        rows: the rows, ``g.n_rows`` of them (see :func:`parse_board`).
        hand: the hand cards.
        discard: the discard pile (counted by :func:`check_board`; a character may use it).
        pile_size: cards in the player's draw pile; 0 means laying the whole hand wins and
            no minimum applies.
        budget: positions each search may store.
        character: key of a character the player may play (``ragna``, ``aldred``, ...).
        players: seats at the table (the solver's seat and ``players - 1`` others, whose cards are
            unknown); powers that depend on the count (one card per opponent) follow it.

    Returns:
        The :class:`Solution`.

    Raises:
        BoardError: the board cannot occur (see :func:`check_board`), it has the wrong number
            of rows, or the character is unknown or these rules have no characters.
        PlanError: the engine refused the plan (a solver bug).
    """
    if len(rows) != g.n_rows:
        raise BoardError(f"{len(rows)} rows given, the rules have {g.n_rows}")
    check_board(g, rows, hand, discard)
    turn = Turn(g, [list(r) for r in rows], list(hand), [HIDDEN] * pile_size, list(discard))
    st = turn.state
    for _ in range(players - 1):  # the other seats: nothing known of their cards
        st.hands.append([])
        st.piles.append([])
        st.parked.append([])
        st.minus.append([])
        st.char_piles.append([])
    if any(c < 0 for row in rows for c in row):
        turn.state.joker = next(c.key for c in g.roster if c.is_joker)
    if character is not None:
        if not g.chars_enabled:
            raise BoardError("--character needs rules with characters (e.g. --variant characters)")
        try:
            g.character(character)
        except KeyError:
            raise BoardError(f"unknown character {character!r}; expected one of: "
                             f"{', '.join(c.key for c in g.roster)}") from None
        if g.chars_display_mode:
            turn.state.display[:] = [character]
        else:
            turn.state.char_piles[turn.seat][:] = [character]
    plan = plan_turn(turn, budget=budget)
    without = plan.laid + (1 << 20 if plan.won else 0)
    best = ((without, plan.score), None, plan)
    if character is not None:
        for mv in turn.play_moves():
            sb = turn.sandbox()
            sb.play(mv.key, mv.args)
            p = plan_turn(sb, budget=min(budget, 5_000))
            laid = sb.laid + p.laid
            worth = (laid + (1 << 20 if sb.won or p.won else 0), p.score)
            if worth[0] > without and worth > best[0]:
                best = (worth, mv, p)
    _, play, plan = best
    texts = []
    sb = turn.sandbox()
    for m in ((play,) if play is not None else ()) + plan.moves:
        texts.append(format_move(m, sb.rows, g))
        sb.apply(m)
    return Solution(laid=sb.laid, plan=plan, play=play, texts=texts, rows=[list(r) for r in sb.rows],
                    hand=sorted(sb.hand), completed=sb.completed, won=sb.won)


__all__ = ["DEFAULT_BUDGET", "BoardError", "Plan", "PlanError", "Solution", "check_board", "evaluate",
           "parse_board", "parse_hand", "plan_turn", "search", "solve", "verify"]
