"""The ``planner`` bot: searches each turn for the most cards it can lay.

Each turn:

1. **Character** (complete game, when one is playable): each legal way to
   play it (at most ``max_candidates`` per character, in the engine's order)
   is tried on a sandbox (ways that leave the same position once), followed
   by the search below with ``char_budget``.
   A play is worth the cards laid this turn, plus half a card per card it
   hands to an opponent in a race. The best play is made if it is worth more
   than not playing; never when the turn lays every card without it; in
   solo/cooperative games (where every unplayed character scores) only when
   the turn could otherwise lay nothing. **Stalls:** in a race, when nothing
   has changed on the table since its previous turn (a whole round of
   exchanges and passes: :meth:`~kbsim.bots.base.BaseBot.stalled`), not
   playing is worth nothing: the best play is made even if it lays no card, so
   the character piles turn until a power that unblocks some seat comes round
   (without it, such games ran on to the turn limit).
2. **Search** (:func:`kbsim.engine.rows.search.plan_turn`): the sequences of lays and
   rebuilds open to it under the rules in force, breadth-first over
   canonical positions, for the position that lays the most cards; ties go
   to the best board evaluation (:func:`kbsim.engine.rows.search.evaluate`: empty rows,
   hand cards one card short of a row end, values the row ends accept, how
   close the table is to a complete row), then to the shortest sequence. The
   search runs with ``prune`` (it stops once the whole hand is laid, and moves
   whole rows together when no hand card needs the row end they cover): the
   number of cards laid stays the maximum; positions that laid more cards are
   expanded first. It stores at most ``budget`` positions divided by the
   engine's cost per position (:data:`ENGINE_COST`: the link counts 1, or 3
   with the rebuild options; rows 10; turn copies 20; never below
   :data:`MIN_BUDGET`): a count, not a time, so games replay exactly; turns
   that hit the budget are counted in ``truncated``. The plan has already been
   replayed on ``turn.sandbox()``, so an illegal plan never reaches the table;
   a plan the bot lays anyway (step 3) under the base game's rebuild rules is
   made on the turn itself by the search (``plan_turn``'s ``lay_at``: the
   same moves, one copy of the state less; the engine checks each move).
3. **Turn option**:

   * it **lays out** (the plan's moves, then ends the turn) whenever the plan
     lays at least one card and meets the turn's minimum, except that in a
     two-player game a plan laying a single card gives way to an exchange of
     the whole hand when one is allowed (measured with paired, seat-swapped
     games against the planner without this rule: 2 players 54% of 2,000
     games won, 95% interval 52-56%; 3 and 4 players no difference, so there
     it lays), unless the game is stalled (nothing changed on the table for a
     whole round: two planners both preferring an exchange to a single card
     exchanged for ever, 2.5% of two-player base games ran to the turn limit);
   * otherwise it **exchanges its whole hand**, if allowed. (Measured against
     keeping the cards close to a row end, see :meth:`PlannerBot.far_cards`,
     a whole fresh hand wins 55% of paired 2-player games, 95% interval
     53-57%, 2,000 games: cards near a row end go stale once others lay there);
   * otherwise, where the rules have a minus pile (solo/cooperative), it puts
     the cards farthest from the table there (:meth:`PlannerBot.far_cards`);
   * otherwise it **passes**, if allowed, or ends the turn.

Other games of the rows family (King's Corners) are searched with the
engine's own moves (the solver's ``clones`` engine): slower, and exact.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from kbsim.bots.base import BaseBot
from kbsim.bots.params import PLANNER_BUDGET, PlannerParams
from kbsim.engine.rows.moves import END_TURN, PASS, Exchange, Minus, Play
from kbsim.engine.rows.search import Plan, engine_for, plan_turn
from kbsim.engine.rows.turn import DONE, START, Turn

ENGINE_COST = {"links": 1, "links+": 3, "runs": 3, "rows": 10, "clones": 20}
"""Relative cost of a stored position in each search engine (measured on one core: about 5-10, 15-30, 50-100
and 150-400 microseconds per position for ``links``, ``links`` with the rebuild options (``links+``),
``rows`` and ``clones``); a search's budget is divided by it, so a decision's worst case is bounded by a
count of positions that stands for about the same time in every engine (3,000 / 3 = 1,000 positions
with the rebuild options: about 20 ms on a loaded core). Measured for strength: the complete-game ladder
against greedy (150 deals, 300 games) gives 65.3% with these costs, 65.4% with half of them (rows 5,
clones 10) and 62.5% before the costs (a flat budget of 3,000)."""

MIN_BUDGET = 40
"""The smallest budget a search is given after dividing by :data:`ENGINE_COST`."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (mypyc): benchmarks and tests subclass it
class PlannerBot(BaseBot):
    """Best lay-out turn by exhaustive (budgeted) search; documented exchange rule otherwise.

    Args:
        budget: positions the search may store per turn (>= 1), divided by the engine's cost per position.

    Attributes:
        budget: positions the search may store per turn.
        char_budget: positions per search when trying a character play.
        max_candidates: character plays tried per character and turn.
        turns: turns this bot has played (all games).
        truncated: turns whose search hit the budget (the plan is then the best found, not proven best).
        nodes: positions stored by all its searches.
    """

    name = "planner"
    Params: ClassVar[Any] = PlannerParams  # its spec's parameters: planner(budget=...)
    char_budget = 150
    max_candidates = 16

    def __init__(self, budget: int = PLANNER_BUDGET):
        if budget < 1:
            raise ValueError(f"budget must be at least 1, got {budget}")
        self.budget = budget
        self.turns = 0
        self.truncated = 0
        self.nodes = 0

    # ------------------------------------------------------------------ choosing cards to shed
    def far_cards(self, turn: Turn, k: int | None = None) -> tuple[int, ...]:
        """The hand cards farthest from the table (the minus-pile rule).

        A hand card is **kept** if it is close to the table: its value is one to
        three steps beyond some row end (one or two cards missing in between,
        which other players often lay), keeping at most as many copies of a
        value as there are row ends close below it. With ``k`` None every other
        card goes (at least the rules' minimum for an exchange, the kept cards
        farthest from any row end first, highest value on ties); with ``k`` given
        exactly ``k`` cards go, the farthest first.

        Args:
            turn: the current turn (read only).
            k: how many cards to give up, or None for "every card not kept".

        Returns:
            The cards (sorted).
        """
        g = self.game
        step = g.step or 1
        ends = [abs(row[-1]) for row in turn.rows if row]

        def gap(c: int) -> int:
            """Steps from the nearest row end below ``c`` up to ``c`` (99 when no end is below)."""
            return min([d for d in ((c - e) * step for e in ends) if d > 0], default=99)

        keep: list[int] = []
        out: list[int] = []
        for c in sorted(turn.hand, key=lambda c: (gap(c), c)):
            close = sum(1 for e in ends if 0 < (c - e) * step <= 3)
            if keep.count(c) < close:
                keep.append(c)
            else:
                out.append(c)
        # out is ordered nearest first; the kept cards farthest last
        order = keep + out
        if k is None:
            need = max(1, g.exchange_min)
            while len(out) < need and keep:
                out.insert(0, keep.pop())
            return tuple(sorted(out))
        return tuple(sorted(order[len(order) - k :])) if k else ()

    # ------------------------------------------------------------------ searching
    def plan(self, turn: Turn, budget: int, lay_at: int = 0) -> Plan:
        """The search's plan for ``turn`` with ``budget`` divided by the engine's cost (:data:`ENGINE_COST`).

        Args:
            turn: the turn searched (not changed, except with ``lay_at``).
            budget: positions the search may store, before the division (at least :data:`MIN_BUDGET` after it).
            lay_at: see :func:`~kbsim.engine.rows.search.plan_turn`.
        """
        engine = engine_for(turn)
        cost = ENGINE_COST.get(
            "links+" if engine == "links" and (turn.g.rebuild_from_start or turn.g.rebuild_into_empty) else engine,
            1,
        )
        plan = plan_turn(
            turn, budget=max(min(budget, MIN_BUDGET), budget // cost), prune=True, engine=engine, lay_at=lay_at
        )
        self.nodes += plan.nodes
        return plan

    def _worth(self, turn: Turn, plan: Plan, given: int) -> float:
        """Cards laid this turn (``turn.laid`` counts the power's lays) plus half a card per card handed out."""
        return (
            turn.laid
            + plan.laid
            + (1000 if turn.won or plan.won else 0)
            + (0.5 * given if not self.game.all_out else 0.0)
        )

    def _bound(self, turn: Turn, given: int) -> float:
        """An upper bound of :meth:`_worth` over every plan for ``turn``: the plan lays every card the seat holds.

        A plan lays only hand and parked cards (each lay, gap fill and joker swap takes one), and wins only
        where the rules' win on an empty hand can apply (the draw pile empty, or not counted).
        """
        g = self.game
        can_win = turn.won or (g.win_on_empty and (turn.pile_size == 0 or not g.win_needs_pile))
        return (
            turn.laid
            + len(turn.hand)
            + len(turn.state.parked[turn.seat])
            + (1000 if can_win else 0)
            + (0.5 * given if not g.all_out else 0.0)
        )

    def choose_character(self, turn: Turn, stalled: bool = False) -> Play | None:
        """The character play worth making this turn, or None (see the module docstring).

        Args:
            turn: the seat's turn before its first move.
            stalled: nothing changed for a whole round (:meth:`~kbsim.bots.base.BaseBot.stalled`): not playing
                is worth nothing, so the first of the plays worth the most is made even if it lays no card.
        """
        base = self.plan(turn, self.char_budget)
        base_worth = self._worth(turn, base, 0)
        if self.game.all_out and base.laid > 0:
            return None  # an unplayed character scores: keep it unless the turn would lay nothing
        if base.won or (base.exact and base.laid == len(turn.hand) + len(turn.parked)):
            return None  # every card goes down anyway
        best, best_worth = None, (-float("inf") if stalled else base_worth)
        per_key: dict[str, int] = {}
        tried: set = set()
        # one playable character: its first max_candidates plays are the only ones tried, so list no more
        # (the engine lists plays depth-first, so they are the same plays in the same order)
        limit = self.max_candidates * (8 if len(turn.available_characters()) > 1 else 1)
        for mv in turn.play_moves(limit=limit):
            per_key[mv.key] = per_key.get(mv.key, 0) + 1
            if per_key[mv.key] > self.max_candidates:
                continue
            sb = turn.sandbox(scratch=True)  # only looked at, never ended: no snapshot of provisional moves
            piles = sb.state.piles
            before = sum(len(p) for p in piles) - len(piles[sb.seat])
            sb.apply(mv, listed=True)
            given = sum(len(p) for p in piles) - len(piles[sb.seat]) - before
            outcome = (
                tuple(sorted(map(tuple, sb.rows))),
                tuple(sorted(sb.hand)),
                tuple(sorted(sb.parked)),
                sb.laid,
                sb.phase,
                sb.m_start,
                sb.m_equal,
                sb.skips,
                given,
            )
            if outcome in tried:
                continue  # another way to play that leaves the same position
            tried.add(outcome)
            if sb.phase != DONE and self._bound(sb, given) <= best_worth:
                continue  # laying every card it holds could not make this play worth more than the best so far
            plan = self.plan(sb, self.char_budget) if sb.phase != DONE else None
            if (
                plan is not None
                and sb.phase != START
                and not (plan.legal and sb.laid + plan.laid >= 1)
                and not sb.can_end()
            ):
                continue  # the turn could neither lay out nor exchange after this play
            worth = self._worth(sb, plan, given) if plan is not None else sb.laid + (1000 if sb.won else 0)
            if worth > best_worth and (not stalled or sb.can_finish()):
                best, best_worth = mv, worth
        return best

    # ------------------------------------------------------------------ playing
    def play_turn(self, turn: Turn) -> None:
        """Play one turn through ``turn`` (see the module docstring for the procedure)."""
        g = turn.g  # (the rules as this seat plays them: a bar switches some off, kbsim.engine.rows.restrict)
        self.turns += 1
        stalled = self.stalled(turn)
        if g.chars_enabled and turn.available_characters():
            mv = self.choose_character(turn, stalled and not g.all_out)
            if mv is not None:
                turn.apply(mv)
                if turn.phase == DONE:
                    return
        # a plan laying this many cards is laid out (below), so the search may make its moves on the turn itself
        lay_at = 2 if self._swap_single(turn) and not stalled else 1
        plan = self.plan(turn, self.budget, lay_at)
        if not plan.exact:
            self.truncated += 1
        if plan.applied or (plan.legal and (plan.laid >= lay_at or plan.won)):
            if not plan.applied:
                for m in plan.moves:
                    turn.apply(m)
            if turn.phase != DONE:
                turn.apply(END_TURN)
            return
        if turn.can_end() and turn.laid:
            turn.apply(END_TURN)
            return
        if turn.phase == START:
            if self._can_exchange(turn):
                turn.apply(Exchange(tuple(sorted(turn.hand))))
                return
            if g.minus_allowed and (turn.hand or turn.state.parked[turn.seat]) and self._minus(turn):
                return
            if turn.can_pass():
                turn.apply(PASS)
                return
        if turn.can_end():
            turn.apply(END_TURN)

    def _can_exchange(self, turn: Turn) -> bool:
        g = turn.g
        return (
            turn.phase == START
            and g.exchange_allowed
            and len(turn.hand) >= max(1, g.exchange_min)
            and not (g.exchange_requires_pile and not turn.pile_size)
        )

    def _swap_single(self, turn: Turn) -> bool:
        """True if a turn that would lay one card exchanges the whole hand instead (2 players only)."""
        return self.players == 2 and not turn.chars_played and self._can_exchange(turn)

    def _minus(self, turn: Turn) -> bool:
        """Put the farthest cards on the minus pile; True if done.

        The engine allows it only when no card can be laid on any board
        reachable by rebuilds. If it refuses although the budgeted search found
        no lay, a larger search is tried and its plan played instead.
        """
        g = turn.g
        k = min(g.minus_cards, len(turn.hand))
        legal = {m.cards for m in turn.minus_moves()}
        if legal:
            cards = self.far_cards(turn, k)
            if cards not in legal:
                cards = sorted(legal)[-1]
            turn.apply(Minus(tuple(cards)))
            return True
        plan = self.plan(turn, self.budget * 20)
        if plan.legal and plan.laid >= 1:
            for m in plan.moves:
                turn.apply(m)
            if turn.phase != DONE:
                turn.apply(END_TURN)
            return True
        return False
