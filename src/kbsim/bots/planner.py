"""The ``planner`` bot: searches each turn for the most cards it can lay.

Each turn:

1. **Search** (:func:`kbsim.solver.search`): every sequence of lays and
   rebuilds open to it under the rules in force, breadth-first over canonical
   positions (rows as a multiset, hand as counts), for the position that lays
   the most hand cards; ties go to the best board evaluation
   (:func:`kbsim.solver.evaluate`: empty rows, hand cards one card short of a
   row end, values the row ends accept, the longest row), then to the shortest
   sequence. The search stores at most ``budget`` positions (a count, not a
   time, so games replay exactly); turns that hit it are counted in
   ``truncated``.
2. **Check**: the plan is replayed on ``turn.sandbox()`` first
   (:func:`kbsim.solver.verify`), so an illegal plan can never reach the table.
3. **Choose the turn option**:

   * it **lays out** (the plan's moves, then ends the turn) whenever the plan
     lays at least one card and meets the turn's minimum;
   * otherwise it **exchanges**, if allowed (see :meth:`PlannerBot.exchange_cards`);
   * otherwise it **passes**, if allowed;
   * otherwise it ends the turn without moves (rebuild-only turns gain nothing).
"""

from __future__ import annotations

from kbsim.bots.base import BaseBot
from kbsim.engine.turn import DONE, Turn
from kbsim.solver import search, verify

PLANNER_BUDGET = 4_000
"""Positions the bot's search may store per turn (see :mod:`kbsim.solver`)."""


class PlannerBot(BaseBot):
    """Best lay-out turn by exhaustive (budgeted) search; documented exchange rule otherwise.

    Attributes:
        budget: positions the search may store per turn.
        turns: turns this bot has played (all games).
        truncated: turns whose search hit the budget (the plan is then the best found, not proven best).
        nodes: positions stored by all its searches.
    """

    name = "planner"

    def __init__(self, budget: int = PLANNER_BUDGET):
        self.budget = budget
        self.turns = 0
        self.truncated = 0
        self.nodes = 0

    def exchange_cards(self, turn: Turn) -> tuple[int, ...]:
        """The cards to put under the pile when no lay-out turn is possible (the exchange rule).

        A hand card is **kept** if it is close to the table: its value is one to
        three steps beyond some row end (one or two cards missing in between,
        which other players often lay), keeping at most as many copies of a
        value as there are row ends close below it. Every other card is
        exchanged. If that leaves fewer cards than an exchange must move, the
        kept cards farthest from any row end (highest value on ties) go too.

        Args:
            turn: the current turn (read only).

        Returns:
            The cards to exchange (sorted; at least the rules' minimum, at most the whole hand).
        """
        g = self.game
        step = g.step or 1
        ends = [row[-1] for row in turn.rows if row]

        def gap(c: int) -> int:
            """Steps from the nearest row end below ``c`` up to ``c`` (99 when no end is below)."""
            return min([k for k in ((c - e) * step for e in ends) if k > 0], default=99)

        keep: list[int] = []
        out: list[int] = []
        for c in sorted(turn.hand, key=lambda c: (gap(c), c)):
            close = sum(1 for e in ends if 0 < (c - e) * step <= 3)
            if keep.count(c) < close:
                keep.append(c)
            else:
                out.append(c)
        while len(out) < max(1, g.exchange_min) and keep:
            out.append(keep.pop())
        return tuple(sorted(out))

    def play_turn(self, turn: Turn) -> None:
        """Play one turn through ``turn`` (see the module docstring for the procedure)."""
        g = self.game
        self.turns += 1
        plan = search(g, turn.rows, turn.hand, pile_size=turn.pile_size, needed=turn.needed,
                      rebuilds_left=g.max_rebuilds - turn.rebuilds, budget=self.budget)
        self.nodes += plan.nodes
        if not plan.exact:
            self.truncated += 1
        if plan.legal and plan.laid >= 1:
            verify(turn, plan)  # raises PlanError (a solver bug) before the real table is touched
            for m in plan.moves:
                turn.apply(m)
            if turn.phase != DONE:
                turn.end()
            return
        if g.exchange_allowed and len(turn.hand) >= max(1, g.exchange_min) \
                and not (g.exchange_requires_pile and not turn.pile_size):
            turn.exchange(self.exchange_cards(turn))
            return
        if turn.can_pass():
            turn.pass_turn()
            return
        if turn.can_end():
            turn.end()
