"""The ``search`` bot of the market family (:mod:`kbsim.engine.market`): moves scored on sampled worlds.

At each decision of its turn with more than one legal move (the card to take, a taken character's target,
which objective to claim or whether to stop), every legal move is a candidate, the one greedy would make
(:class:`~kbsim.bots.market.MarketGreedyBot`) first as the default. A candidate is scored in a world (a full
table sampled from what the seat has seen: the decks' and the objective deck's order, the other seats'
contracts) by making it there, letting greedy finish the turn, then playing ``depth`` more rounds with the
rollout bot in every seat (0: to the end of the game) and valuing the table reached (:meth:`MarketSearchBot.value`).
:func:`kbsim.bots.halving.halve` spends the ``iterations`` budget by sequential halving on common worlds and
keeps the default unless another move is better by a margin. The contract choice at setup is greedy's.

The decision is made move by move, not for whole turns: the cards a take turns up are unknown until taken,
so a later choice of the same turn is made once they are seen.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from kbsim.bots.base import BaseBot
from kbsim.bots.halving import halve
from kbsim.bots.market import MarketGreedyBot, MarketRandomBot
from kbsim.bots.params import MarketSearchParams
from kbsim.engine.market import CHOOSE, DONE, MarketTurn
from kbsim.engine.market.forward import MarketWorld, determinize
from kbsim.engine.market.game import final_points

MARGIN = 0.01
"""How much higher than the default's a move's mean value must be to be chosen instead."""

POINTS_SLOPE = 0.15
"""Slope of the evaluation of a table before the end (:meth:`MarketSearchBot.value`): a softmax of
``slope x points`` over the seats (points as if the game ended now)."""


def _bot(name: str) -> BaseBot:
    if name == "greedy":
        return MarketGreedyBot()
    if name == "random":
        return MarketRandomBot()
    raise ValueError(f"unknown rollout bot {name!r}; expected greedy or random")


class MarketSearchBot(BaseBot):
    """Legal moves scored by playouts on sampled tables; see the module docstring.

    Args:
        iterations: playouts per decision.
        rollout: the bot that plays the playouts (``greedy`` or ``random``).
        depth: rounds each playout plays after the turn before the table is valued (0: to the end).

    Attributes:
        decisions: decisions searched (more than one legal move).
        playouts: playouts run.
    """

    name = "search"
    Params: ClassVar[Any] = MarketSearchParams

    def __init__(self, iterations: int = 64, rollout: str = "greedy", depth: int = 0) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if depth < 0:
            raise ValueError(f"depth must be at least 0, got {depth}")
        _bot(rollout)
        self.iterations = iterations
        self.rollout = rollout
        self.depth = depth
        self.decisions = 0
        self.playouts = 0

    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """Start a game (see :meth:`BaseBot.new_game`): the default's greedy bot and the rollout bots."""
        super().new_game(game, seat, players, seed)
        self.base = MarketGreedyBot()
        self.base.new_game(game, seat, players, seed)
        self.finisher = MarketGreedyBot()
        self.finisher.new_game(game, seat, players, seed)
        self.rollers = [_bot(self.rollout) for _ in range(players)]

    def value(self, world: MarketWorld) -> float:
        """The worth to this seat of the table ``world`` has reached, in [0, 1].

        Over: its share of the win (winners by the rules' scores and tie-breakers; a shared win split; 0 at the
        turn limit). Before the end: a softmax of ``POINTS_SLOPE x points`` (as if the game ended now).
        """
        g = self.game
        if world.over:
            winners = world.winners()
            return 1.0 / len(winners) if self.seat in winners else 0.0
        points = final_points(g, world.state)
        weights = [math.exp(POINTS_SLOPE * p["total"]) for p in points]
        return weights[self.seat] / sum(weights)

    def _default(self, turn: MarketTurn) -> Any:
        """The move greedy would make now (on a sandbox, so the real turn is untouched)."""
        sb = turn.sandbox()
        sb.log = []
        self.base.play_turn(_OneMove(sb))
        return sb.log[0] if sb.log else turn.legal_moves()[0]

    def play_turn(self, turn: MarketTurn) -> None:
        """Play the whole turn (or the contract choice) through ``turn``."""
        while turn.phase != DONE:
            moves = turn.legal_moves()
            if not moves:
                return
            if len(moves) == 1 or turn.phase == CHOOSE:
                turn.apply(moves[0] if len(moves) == 1 else self._default(turn))
                continue
            default = self._default(turn)
            cands = [default, *(m for m in moves if m != default)]
            turn.apply(cands[self._search(turn, cands)])

    def _search(self, turn: MarketTurn, cands: list) -> int:
        """The index of the move sequential halving chooses (worlds sampled from the seat's stream)."""
        g = self.game
        n = self.players
        rng = self.rng
        worlds: list[MarketWorld] = []
        rollers = self.rollers
        finisher = self.finisher
        seed = self.seed
        limit = self.depth * n if self.depth else g.turn_limit

        def pull(c: int, w: int) -> float:
            while len(worlds) <= w:
                worlds.append(determinize(turn, rng))
            world = worlds[w].clone()
            mine = world.turn
            world.apply(cands[c])
            if world.turn is mine:
                world.play_turn(finisher)
            self.playouts += 1
            for k in range(n):
                rollers[k].new_game(g, k, n, seed)
            for _ in range(limit):
                if world.over:
                    break
                world.play_turn(rollers[world.seat])
            return self.value(world)

        self.decisions += 1
        return halve(len(cands), self.iterations, pull, MARGIN).best


class _OneMove:
    """A view of a market turn that lets a bot make one move only (to learn the move it would make)."""

    def __init__(self, turn: MarketTurn) -> None:
        self._turn = turn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._turn, name)

    @property
    def phase(self) -> str:
        t = self._turn
        return t.phase if t.log is not None and not t.log else DONE


__all__ = ["MARGIN", "POINTS_SLOPE", "MarketSearchBot"]
