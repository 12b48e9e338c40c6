"""The turn solver: the best lay-out turn for a board and a hand.

A lay-out turn (rulebook, "Turn Sequence", option A) is a sequence of lays
(a hand card on a row end, or opening an empty row) and rebuilds (an end
segment of a row moved onto another row it continues; start segments and
splits into empty rows only where the rules' options allow them), with
completed rows going to the discard pile at once. This module finds the best
such sequence; it is the engine of the ``planner`` bot and of ``kbsim solve``.

Search
    Breadth-first over the positions reachable within the turn, each position
    stored once under a **canonical key**: the rows as a sorted multiset (which
    row card holds a row does not matter) and the hand as a sorted tuple (copies
    of a value are interchangeable). Breadth-first order means the plan
    returned for a position is a shortest move sequence reaching it. The
    search reads only the compiled rules (``steps``, ``may_open``,
    ``is_complete``, ``rebuild_allowed``, ``rebuild_from_start``,
    ``rebuild_into_empty``, ``max_rebuilds``, ``win_on_empty``), so every
    variant is searched under its own rules.

Objective
    1. the most hand cards laid this turn (an immediate win beats everything);
    2. ties: the highest board evaluation (:func:`evaluate`);
    3. remaining ties: the position found first (fewest moves, then the fixed
       move-generation order), so the result is deterministic.

Budget
    The search is exhaustive unless it stores ``budget`` positions; it then
    stops and returns the best position seen so far, all of whose shorter
    sequences were explored first (breadth-first), and says so
    (``Plan.exact`` is False). The budget counts positions, not seconds, so a
    result never depends on the machine.

Board text (``kbsim solve``)
    Rows are separated by ``|``; a row is its values (``3 4 5``) or a run
    (``3-5``); ``_`` or nothing is an empty row. Fewer rows than the table
    holds leave the rest empty. See :func:`parse_board`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kbsim.engine.compiled import CompiledGame
from kbsim.engine.moves import IllegalMove, Lay, Move, Rebuild
from kbsim.engine.notation import NotationError, format_cards, format_move, parse_cards
from kbsim.engine.turn import HIDDEN, Turn

DEFAULT_BUDGET = 50_000
"""Positions a search may store before it stops (``kbsim solve``'s default)."""

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
        exact: True if every reachable position was searched (the budget was not hit).
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


def evaluate(g: CompiledGame, rows: Sequence[Row], hand: Sequence[int]) -> float:
    """Board evaluation used to break ties between positions that lay as many cards.

    Higher is better. The terms, in decreasing weight:

    * ``8`` per empty row: any card may open it later (rows left for later);
    * ``3`` per card left in hand that is one card short of fitting a row end
      (its value is two steps beyond an end), or that could open a row only
      because of its value where openings are restricted;
    * ``1`` per distinct value the row ends accept next (the flexibility of
      the table for the next hand);
    * ``length / full_length`` of the longest row (rows close to completion
      empty their row card soon).

    Args:
        g: compiled rules.
        rows: the rows (tuples or lists of values).
        hand: the remaining hand cards.

    Returns:
        The score (a float; only its order matters).
    """
    empty = 0
    accepts: set[int] = set()
    ends: set[int] = set()
    longest = 0
    for row in rows:
        if not row:
            empty += 1
            continue
        e = row[-1]
        ends.add(e)
        if len(row) > longest:
            longest = len(row)
        for d in g.steps:
            v = e + d
            if g.value_min <= v <= g.value_max:
                accepts.add(v)
    near = 0
    two = 2 * g.step
    for c in hand:
        if c - two in ends:
            near += 1
    return 8.0 * empty + 3.0 * near + len(accepts) + longest / g.full_length


def search(g: CompiledGame, rows: Sequence[Sequence[int]], hand: Sequence[int], *, pile_size: int = 1,
           needed: int = 0, rebuilds_left: int | None = None, budget: int = DEFAULT_BUDGET,
           score: Callable[[CompiledGame, Sequence[Row], Sequence[int]], float] = evaluate) -> Plan:
    """Find the best lay-out turn (see the module docstring for the objective).

    Args:
        g: compiled rules (their sequence, opening, completion and rebuild rules are searched).
        rows: the rows, first card to last, in row-card order (not changed).
        hand: the hand cards (not changed).
        pile_size: cards in the draw pile; with 0 (and the win rule) laying the last hand card wins.
        needed: hand cards the turn must still lay (``Turn.needed``); positions laying fewer are not turns.
        rebuilds_left: rebuilds still allowed this turn (default: the rules' maximum).
        budget: positions the search may store (>= 1) before it stops with the best seen so far.
        score: the tie-break evaluation (default :func:`evaluate`).

    Returns:
        The :class:`Plan` (its moves are not verified here; see :func:`verify`).

    Raises:
        ValueError: ``budget`` < 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    steps = tuple(sorted(g.steps))
    single = steps[0] if len(steps) == 1 and steps[0] != 0 else 0
    may_open = g.may_open
    is_complete = g.is_complete
    check_complete = g.complete_when_all
    full = g.full_length
    from_start = g.rebuild_from_start
    into_empty = g.rebuild_into_empty
    reb_left = g.max_rebuilds if rebuilds_left is None else rebuilds_left
    can_rebuild = g.rebuild_allowed and reb_left > 0
    win_possible = g.win_on_empty and pile_size == 0

    rows0: Rows = tuple(tuple(r) for r in rows)
    hand0 = tuple(sorted(hand))
    n0 = len(hand0)
    # node tables (breadth-first order)
    n_rows: list[Rows] = [rows0]
    n_hand: list[tuple[int, ...]] = [hand0]
    n_parent: list[int] = [-1]
    n_move: list[Move | None] = [None]
    n_reb: list[int] = [0]
    seen = {(tuple(sorted(rows0)), hand0)}

    best = -1
    best_key: tuple[int, float] | None = None
    if needed <= 0:
        best, best_key = 0, (0, score(g, rows0, hand0))
    won_at = -1
    truncated = False

    def add(rows_: Rows, hand_: tuple[int, ...], parent: int, move: Move, reb: int) -> bool:
        """Store a child position if new; return True when the search must stop."""
        nonlocal best, best_key, won_at, truncated
        key = (tuple(sorted(rows_)), hand_)
        if key in seen:
            return False
        seen.add(key)
        idx = len(n_rows)
        n_rows.append(rows_)
        n_hand.append(hand_)
        n_parent.append(parent)
        n_move.append(move)
        n_reb.append(reb)
        laid = n0 - len(hand_)
        if win_possible and not hand_:
            best, won_at = idx, idx
            best_key = (laid, float("inf"))
            return True
        if laid >= needed and (best_key is None or laid >= best_key[0]):
            k = (laid, score(g, rows_, hand_))
            if best_key is None or k > best_key:
                best, best_key = idx, k
        if len(seen) >= budget:
            truncated = True
            return True
        return False

    i = 0
    stop = False
    while i < len(n_rows) and not stop:
        rows_ = n_rows[i]
        hand_ = n_hand[i]
        reb = n_reb[i]
        nr = len(rows_)
        # ---- lays: each distinct hand value on each distinct row
        if hand_:
            done_rows: set[Row] = set()
            for r in range(nr):
                row = rows_[r]
                if row in done_rows:
                    continue
                done_rows.add(row)
                prev = -1
                for j, c in enumerate(hand_):
                    if c == prev:
                        continue
                    prev = c
                    if row:
                        if c - row[-1] not in g.steps:
                            continue
                        new = row + (c,)
                        if check_complete and len(new) >= full and is_complete(new):
                            new = ()
                    elif may_open(c):
                        new = (c,)
                    else:
                        continue
                    if add(rows_[:r] + (new,) + rows_[r + 1:], hand_[:j] + hand_[j + 1:], i, Lay(c, r), reb):
                        stop = True
                        break
                if stop:
                    break
        # ---- rebuilds
        if not stop and can_rebuild and reb < reb_left:
            done_src: set[Row] = set()
            for src in range(nr):
                s = rows_[src]
                if not s or s in done_src:
                    continue
                done_src.add(s)
                n = len(s)
                done_dst: set[Row] = set()
                for dst in range(nr):
                    if dst == src:
                        continue
                    d = rows_[dst]
                    if d in done_dst:
                        continue
                    done_dst.add(d)
                    cuts: list[tuple[int, bool]] = []  # (count, from_start)
                    if d:
                        e = d[-1]
                        for st in steps:
                            f = e + st
                            if single:
                                q, rem = divmod(f - s[0], single)
                                if not rem and 0 <= q < n:
                                    cuts.append((n - q, False))
                            else:
                                for q in range(n):
                                    if s[q] == f:
                                        cuts.append((n - q, False))
                            if from_start and s[0] == f:
                                cuts.extend((k, True) for k in range(1, n))
                    elif into_empty:
                        cuts.extend((n - q, False) for q in range(1, n) if may_open(s[q]))
                        if from_start and may_open(s[0]):
                            cuts.extend((k, True) for k in range(1, n))
                    for k, fs in cuts:
                        if fs:
                            seg, rest = s[:k], s[k:]
                        else:
                            seg, rest = s[n - k:], s[:n - k]
                        nd = d + seg
                        if check_complete and len(nd) >= full and is_complete(nd):
                            nd = ()
                        new_rows = list(rows_)
                        new_rows[src] = rest
                        new_rows[dst] = nd
                        if add(tuple(new_rows), hand_, i, Rebuild(src, k, dst, fs), reb + 1):
                            stop = True
                            break
                    if stop:
                        break
                if stop:
                    break
        i += 1

    if best < 0:
        return Plan(moves=(), laid=0, score=score(g, rows0, hand0), rows=rows0, hand=hand0, won=False,
                    legal=False, nodes=len(seen), exact=not truncated)
    moves: list[Move] = []
    j = best
    while j > 0:
        moves.append(n_move[j])
        j = n_parent[j]
    moves.reverse()
    return Plan(moves=tuple(moves), laid=n0 - len(n_hand[best]), score=best_key[1], rows=n_rows[best],
                hand=n_hand[best], won=won_at >= 0, legal=True, nodes=len(seen), exact=not truncated)


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
def parse_board(text: str, n_rows: int) -> list[list[int]]:
    """Parse the rows of a puzzle: ``"3|8|9|5|1|13"``, ``"3-5|_|9 10"``.

    Args:
        text: row slots separated by ``|``; each a list of values, a run ``a-b``, or ``_``/nothing for empty.
        n_rows: row cards on the table; fewer slots given leave the rest empty.

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
            rows.append(parse_cards(slot))
        except NotationError as e:
            raise BoardError(f"row {i}: {e}") from None
    rows.extend([] for _ in range(n_rows - len(rows)))
    return rows


def parse_hand(text: str, what: str = "hand") -> list[int]:
    """Parse hand (or other zone) cards: ``"1 4 6"``, ``"3-5 9"``; ``_`` or nothing for none.

    Raises:
        BoardError: not valid card notation.
    """
    try:
        return parse_cards(text)
    except NotationError as e:
        raise BoardError(f"{what}: {e}") from None


def check_board(g: CompiledGame, rows: list[list[int]], hand: list[int], discard: Sequence[int] = ()) -> None:
    """Check that a puzzle can occur under the rules.

    Checks: every value within the deck's range; every row keeps the sequence
    constraint (a gap or a wrong step is refused: no power's mark is known
    to the rules yet); no complete row still on the table (it would have gone
    to the discard pile); no value in more copies (rows + hand + discard) than
    the deck holds.

    Raises:
        BoardError: the first problem found, naming the row or value.
    """
    lo, hi = g.value_min, g.value_max
    for where, cards in [*((f"row {i}", r) for i, r in enumerate(rows, start=1)), ("hand", hand),
                         ("discard", discard)]:
        for v in cards:
            if not lo <= v <= hi:
                raise BoardError(f"{where}: value {v} is outside {lo}..{hi}")
    for i, row in enumerate(rows, start=1):
        if not g.row_is_legal(row):
            raise BoardError(f"row {i} ({' '.join(map(str, row))}) breaks the row rule: each card must follow "
                             f"the one before by {sorted(g.steps)}; a gap needs a mark, and none is allowed here")
        if g.is_complete(row):
            raise BoardError(f"row {i} ({format_cards(row)}) is complete: it would already be in the discard pile")
    count = Counter(v for zone in (*rows, hand, discard) for v in zone)
    over = {v: c for v, c in sorted(count.items()) if c > g.copies}
    if over:
        shown = ", ".join(f"{c} x {v}" for v, c in over.items())
        raise BoardError(f"more copies than the deck holds ({g.copies} of each value): {shown} "
                         f"on the table, in hand and in the discard pile")


@dataclass(frozen=True)
class Solution:
    """The answer to a puzzle: the plan, its moves in notation and the position after it.

    Attributes:
        plan: the :class:`Plan` found.
        texts: the moves in the text notation (``lay 4 on 1``, ``rebuild 3 from 9 on 2``).
        rows: the rows after the turn, in row-card order (lists).
        hand: the hand left (sorted).
        completed: rows completed during the turn.
    """

    plan: Plan
    texts: list[str]
    rows: list[list[int]]
    hand: list[int]
    completed: int

    def to_json(self) -> dict:
        """``{"laid": N, "moves": [...], "rows": [[...], ...], "hand": [...]}`` (the ``kbsim solve --json`` output)."""
        return {"laid": self.plan.laid, "moves": self.texts, "rows": self.rows, "hand": self.hand}


def solve(g: CompiledGame, rows: list[list[int]], hand: list[int], *, discard: Sequence[int] = (),
          pile_size: int = 1, budget: int = DEFAULT_BUDGET) -> Solution:
    """Solve a puzzle: the best lay-out turn for ``rows`` and ``hand``, checked through the engine.

    Args:
        g: compiled rules (variant and options applied).
        rows: the rows, ``g.n_rows`` of them (see :func:`parse_board`).
        hand: the hand cards.
        discard: cards in the discard pile (only counted by :func:`check_board`).
        pile_size: cards in the player's draw pile; 0 means laying the whole hand wins and
            no minimum applies.
        budget: positions the search may store.

    Returns:
        The :class:`Solution`.

    Raises:
        BoardError: the board cannot occur (see :func:`check_board`), or it has the wrong number of rows.
        PlanError: the engine refused the plan (a solver bug).
    """
    if len(rows) != g.n_rows:
        raise BoardError(f"{len(rows)} rows given, the rules have {g.n_rows}")
    check_board(g, rows, hand, discard)
    turn = Turn(g, [list(r) for r in rows], list(hand), [HIDDEN] * pile_size, list(discard))
    plan = search(g, turn.rows, turn.hand, pile_size=pile_size, needed=turn.needed, budget=budget)
    texts = []
    if plan.legal:
        sb = turn.sandbox()
        for m in plan.moves:
            texts.append(format_move(m, sb.rows))
            sb.apply(m)
    sb = verify(turn, plan)
    return Solution(plan=plan, texts=texts, rows=[list(r) for r in sb.rows], hand=sorted(sb.hand),
                    completed=sb.completed)


__all__ = ["DEFAULT_BUDGET", "BoardError", "Plan", "PlanError", "Solution", "check_board", "evaluate",
           "parse_board", "parse_hand", "search", "solve", "verify"]
