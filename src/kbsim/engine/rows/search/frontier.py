"""Keys and frontier of the turn search: the plan type, the board evaluation, the bounded position store.

See :mod:`kbsim.engine.rows.search` for the objective and the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from mypy_extensions import mypyc_attr

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import Move
from kbsim.engine.rows.turn import Turn

DEFAULT_BUDGET = 50_000
"""Positions a search may store before it stops (``kbsim solve``'s default)."""

WEIGHTS = (8.0, 3.0, 1.0, 1.0)
"""Weights of :func:`evaluate`'s terms: empty rows, hand cards one short of a row end, values the
row ends accept, share of bridged value boundaries."""

Row = tuple[int, ...]
Rows = tuple[Row, ...]


class BoardError(ValueError):
    """A board or hand that cannot occur under the rules; the message says what and where."""


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of RuntimeError as a native class
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
        applied: the moves have been made on the turn searched (``plan_turn``'s ``lay_at``), not on a sandbox.
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
    applied: bool = False


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


def replay(sb: Turn, moves: Sequence[Move]) -> None:
    """Apply ``moves`` to the sandbox ``sb``; a refusal is a :class:`PlanError`."""
    for m in moves:
        try:
            sb.apply(m)
        except IllegalMove as e:
            raise PlanError(f"the engine refused planned move {m!r}: {e}") from None


class Frontier:
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

    __slots__ = (
        "states",
        "parents",
        "moves",
        "laids",
        "seen",
        "needed",
        "full",
        "budget",
        "cand",
        "best_laid",
        "truncated",
        "stop",
        "parent",
        "buckets",
        "heads",
        "order",
    )

    def __init__(
        self, root, key, *, needed: int, full: float, budget: int, root_ok: bool = True, lays_first: bool = False
    ) -> None:
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
        self.buckets: list[list[int]] | None = [[0]] if lays_first else None
        self.heads: list[int] = [0]  # with lays_first: the next position to expand in each bucket
        self.order = 0  # breadth-first: the next position to expand

    def __iter__(self):
        states = self.states
        while True:
            i = self.next_index()
            if i < 0:
                return
            yield states[i]

    def next_index(self) -> int:
        """The index of the next stored position to expand (it becomes ``parent``), or -1 when the search stops.

        Breadth-first: the positions in the order stored (positions added meanwhile come later). With
        ``lays_first``: the stored positions that have laid the most cards first, in the order stored among
        equals. Lays then go deep at once (a sequence laying the whole hand is found after a few expansions,
        and ``full`` stops the search), rebuilds breadth-first; when the search runs to the end it expands
        the same positions as breadth-first order, so the cards laid are the same.
        """
        if self.stop:
            return -1
        buckets = self.buckets
        if buckets is None:
            i = self.order
            if i >= len(self.states):
                return -1
            self.order = i + 1
            self.parent = i
            return i
        heads = self.heads
        while len(heads) < len(buckets):
            heads.append(0)
        top = len(buckets) - 1
        while top >= 0 and heads[top] >= len(buckets[top]):
            top -= 1
        if top < 0:
            return -1
        i = buckets[top][heads[top]]
        heads[top] += 1
        self.parent = i
        return i

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
        buckets = self.buckets
        if buckets is not None:
            while len(buckets) <= laid:
                buckets.append([])
            buckets[laid].append(idx)
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
        return plan_path(self.parents, self.moves, k)


def plan_path(parents: list[int], moves: list, k: int) -> list:
    """The moves from the start (index 0) to position ``k`` of a breadth-first tree."""
    seq = []
    while k > 0:
        seq.append(moves[k])
        k = parents[k]
    seq.reverse()
    return seq


def no_plan(g: CompiledGame, rows: Rows, hand: tuple[int, ...], nodes: int, truncated: bool, engine: str) -> Plan:
    """The plan when no position lays the cards the turn must lay."""
    return Plan(
        moves=(),
        laid=0,
        score=evaluate(g, rows, hand),
        rows=rows,
        hand=hand,
        won=False,
        legal=False,
        nodes=nodes,
        exact=not truncated,
        engine=engine,
    )
