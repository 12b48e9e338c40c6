"""Whole-turn candidates of the rows family's ``search`` bot (:mod:`kbsim.bots.search`).

A candidate is a sequence of moves whose last move ends the turn, with a kind that says how it was made.
:meth:`TurnCandidates.candidates` lists, for one turn:

``default``
    the planner's turn (:class:`~kbsim.bots.planner.PlannerBot`, recorded on a sandbox): its character play,
    its lays and rebuilds, or its exchange, minus-pile move or pass.
``plan``
    the planner's search without a character play (where the default plays one).
``shorter``
    the default's lays stopped after their first lay, and before their last: cards kept back (a stop that lays
    fewer than the turn's minimum is refused on replay, so dropped).
``without``
    the best lays and rebuilds with one card value kept back (every copy of it).
``rule``
    a rebuild only an optional rule allows (one that :func:`kbsim.engine.rows.usage.classify` counts, such as
    a start segment or a split into an empty row), made before the best lays and rebuilds, or after the
    default's; the :data:`RULE_TURNS` best by cards laid and board (:func:`~kbsim.engine.rows.search.evaluate`).
``character``
    another character play, then the best lays and rebuilds; the :data:`CHARACTER_TURNS` best by cards laid.
``exchange``, ``exchange-far``
    the whole hand, or the cards far from the table (:meth:`~kbsim.bots.planner.PlannerBot.far_cards`).
``minus``, ``pass``
    each minus-pile move (solo and cooperative), a pass.

Each candidate is replayed on a sandbox before it is listed (a candidate the engine refuses is dropped), and
two candidates that leave the same position (rows, hands, piles, parked cards, characters) count once, the
first listed kept. When the game is stalled (nothing on the table changed for a whole round), exchanges and
passes are dropped while some candidate lays a card.
"""

from __future__ import annotations

from typing import NamedTuple

from kbsim.bots.planner import PlannerBot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import END_TURN, PASS, EndTurn, Exchange, FillGap, Lay, LayParked, LayStart, Move, Swap
from kbsim.engine.rows.search import evaluate
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.rows.usage import classify

RULE_TURNS = 3
"""Candidates of kind ``rule`` per turn (before the lays, and after the default's lays, each)."""

CHARACTER_TURNS = 4
"""Candidates of kind ``character`` per turn."""

CHARACTER_PLAYS = 48
"""Character plays listed per turn to choose the ``character`` candidates from."""

LAYS = (Lay, LayParked, FillGap, Swap, LayStart)
"""Moves that lay a card the seat holds."""


class Candidate(NamedTuple):
    """One whole turn: its moves and how it was made (see the module docstring for the kinds).

    Attributes:
        kind: how it was made.
        moves: the moves, in order; the last one ends the turn.
        laid: cards the turn lays.
        won: the turn wins the game.
    """

    kind: str
    moves: tuple[Move, ...]
    laid: int
    won: bool


class TurnCandidates:
    """Lists a turn's candidates (see the module docstring).

    Args:
        game: compiled rules (rows family).
        base: the planner whose turn is the default (started for the seat; called once per turn, so its
            stall fingerprint follows the game).
    """

    def __init__(self, game: CompiledGame, base: PlannerBot) -> None:
        self.game = game
        self.base = base
        self._out: list[Candidate] = []
        self._keys: set = set()
        self._turn: Turn | None = None

    # ------------------------------------------------------------------ listing
    def candidates(self, turn: Turn, stalled: bool = False) -> list[Candidate]:
        """The candidates of ``turn`` (not changed), the default first.

        Args:
            turn: the seat's turn before its first move.
            stalled: nothing on the table changed for a whole round (:meth:`~kbsim.bots.base.BaseBot.stalled`).

        Returns:
            At least one candidate; exactly one when the default wins the game at once.
        """
        self._out = []
        self._keys = set()
        self._turn = turn
        first = self._add("default", self._recorded(turn))
        if first is None:  # (the planner's turn replays on a fresh sandbox; this is a safety net)
            first = self._add("default", self._fallback(turn))
        if first is None:
            raise IllegalMove("no way to finish the turn")
        if first.won:
            return self._out
        g = self.game
        chars = bool(g.chars_enabled and turn.available_characters())
        plan = self._plan(turn.sandbox(scratch=True))
        if plan:
            self._add("plan", plan)
        lays = first.moves if first.laid else plan
        self._shorter(lays)
        self._without(turn)
        self._rules(turn, ())
        if first.laid:
            self._rules(turn, tuple(m for m in first.moves if type(m) is not EndTurn))
        if chars:
            self._characters(turn)
        if turn.can_exchange():
            self._add("exchange", (Exchange(tuple(sorted(turn.hand))),))
            far = self.base.far_cards(turn)
            if far and len(far) < len(turn.hand):
                self._add("exchange-far", (Exchange(far),))
        for m in turn.minus_moves():
            self._add("minus", (m,))
        if turn.can_pass():
            self._add("pass", (PASS,))
        out = self._out
        if stalled and any(c.laid for c in out):
            out = [c for c in out if c.laid or c.kind not in ("exchange", "exchange-far", "pass")]
        return out

    # ------------------------------------------------------------------ the kinds
    def _recorded(self, turn: Turn) -> tuple[Move, ...]:
        """The planner's turn, played on a sandbox and recorded."""
        sb = turn.sandbox()
        log: list[Move] = []
        sb.log = log
        try:
            self.base.play_turn(sb)
            if sb.phase != DONE:
                sb.apply(END_TURN)
        except IllegalMove:  # (the planner could not finish the turn: the engine's own way is the default then)
            return ()
        return tuple(log)

    def _fallback(self, turn: Turn) -> tuple[Move, ...]:
        """The engine's own way to finish the turn (``finishing_moves``)."""
        return tuple(turn.sandbox().finishing_moves())

    def _plan(self, sb: Turn) -> tuple[Move, ...]:
        """The planner's best lays and rebuilds on the sandbox ``sb`` (changed), or () when none is legal."""
        plan = self.base.plan(sb, self.base.budget)
        if plan.applied:
            return tuple(plan.moves)
        if not plan.legal or (plan.laid < 1 and sb.laid < 1):
            return ()
        return tuple(plan.moves)

    def _shorter(self, moves: tuple[Move, ...]) -> None:
        """The lays ``moves`` stopped after their first lay, and before their last (the shortest and longest)."""
        lays = [i for i, m in enumerate(moves) if type(m) in LAYS]
        for i in sorted({lays[0], lays[-2]} if len(lays) > 1 else set()):
            self._add("shorter", moves[: i + 1])

    def _without(self, turn: Turn) -> None:
        """The best lays and rebuilds with each card value in turn kept back."""
        for v in sorted(set(turn.hand)):
            sb = turn.sandbox(scratch=True)
            sb.hand[:] = [c for c in sb.hand if c != v]
            if not sb.hand:
                continue
            moves = self._plan(sb)
            if moves:
                self._add("without", moves)

    def _rules(self, turn: Turn, before: tuple[Move, ...]) -> None:
        """Turns that make, after ``before``, a rebuild an optional rule allows, then the best lays and rebuilds."""
        g = self.game
        if not (g.rebuild_from_start or g.rebuild_into_empty):
            return
        sb = turn.sandbox(scratch=True)
        try:
            for m in before:
                sb.apply(m)
        except IllegalMove:
            return
        if sb.phase == DONE:
            return
        scored: list[tuple[int, float, int, tuple[Move, ...]]] = []
        for i, rb in enumerate(sb.rebuild_moves()):
            if not classify(g, sb, rb):
                continue
            t = sb.clone()
            t.apply(rb)
            rest = self._plan(t)
            after = t.clone()
            try:
                for m in rest:
                    after.apply(m)
            except IllegalMove:
                continue
            scored.append((-after.laid, -evaluate(g, after.rows, after.hand), i, (*before, rb, *rest)))
        scored.sort(key=lambda x: (x[0], x[1], x[2]))
        for _, _, _, moves in scored[:RULE_TURNS]:
            self._add("rule", moves)

    def _characters(self, turn: Turn) -> None:
        """Other character plays, each followed by the best lays and rebuilds."""
        scored: list[tuple[int, int, tuple[Move, ...]]] = []
        for i, mv in enumerate(turn.play_moves(limit=CHARACTER_PLAYS)):
            sb = turn.sandbox(scratch=True)
            try:
                sb.apply(mv, listed=True)
            except IllegalMove:
                continue
            rest = self._plan(sb) if sb.phase != DONE else ()
            t = sb.clone()
            try:
                for m in rest:
                    t.apply(m)
            except IllegalMove:
                continue
            scored.append((-t.laid, i, (mv, *rest)))
        scored.sort(key=lambda x: (x[0], x[1]))
        for _, _, moves in scored[:CHARACTER_TURNS]:
            self._add("character", moves)

    # ------------------------------------------------------------------ bookkeeping
    def _add(self, kind: str, moves: tuple[Move, ...]) -> Candidate | None:
        """Replay ``moves`` on a sandbox; list them unless refused or leaving a position listed already.

        The candidate's moves are those that ended the turn on the sandbox: cut where it ended (a winning
        lay), with ``end`` added where they left it open.
        """
        turn = self._turn
        assert turn is not None, "candidates() sets the turn first"
        sb = turn.sandbox()
        done: list[Move] = []
        try:
            for m in moves:
                if sb.phase == DONE:
                    break
                sb.apply(m)
                done.append(m)
            if sb.phase != DONE:
                sb.apply(END_TURN)
                done.append(END_TURN)
        except IllegalMove:
            return None
        st = sb.state
        key = (sb.exchanged, sb.passed, sb.won, st.position_key(), tuple(map(tuple, st.minus)), len(st.discard))
        if key in self._keys:
            return None
        self._keys.add(key)
        c = Candidate(kind, tuple(done), sb.laid, sb.won)
        self._out.append(c)
        return c


__all__ = ["CHARACTER_PLAYS", "CHARACTER_TURNS", "Candidate", "RULE_TURNS", "TurnCandidates"]
