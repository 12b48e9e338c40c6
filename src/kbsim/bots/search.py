"""The ``search`` bot of the rows family: whole-turn candidates scored on sampled worlds (determinized search).

Each turn:

1. **Candidates** (:mod:`kbsim.bots.search_turns`): a handful of whole turns, each a sequence of moves that
   ends the turn. The first is the **default**, the turn the planner would play; the others differ from it
   in one way the rules in force allow: stopping after fewer lays (keeping cards back), the best turn without
   one card value, a rebuild that uses an optional rebuild rule (start segments, splits into an empty row)
   before or after the lays, another character play or none, an exchange of the whole hand or of the cards
   far from the table, a minus-pile move, a pass. Two candidates that leave the same position count once.
2. **Worlds**: full states sampled from what the seat has seen (the hidden cards dealt anew, uniformly among
   the states consistent with its observation), from the seat's own random stream.
3. **Scoring**: a candidate is scored in a world by making its moves there, then playing ``depth`` more
   rounds with the rollout bot in every seat (0: to the end of the hand) and valuing the position reached
   (:meth:`SearchBot.value`: 1 for a win, the team score in solo and cooperative play, otherwise the share of
   the wins a seat holding that many cards can expect). :func:`kbsim.bots.halving.halve` spends the
   ``iterations`` budget on the candidates by sequential halving on common worlds, and keeps the default
   unless another candidate is better by a margin (:data:`MARGIN`).
4. **Stalls**: when nothing has changed on the table for a whole round (:meth:`BaseBot.stalled`), exchanges
   and passes are no candidates while the turn can lay out, so two searching bots never exchange for ever.

Deterministic for a seed: budgets are counts (iterations, rounds, positions), never times; worlds come from
the seat's stream (:attr:`BaseBot.rng`); the rollout bots are deterministic given a world.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from kbsim.bots.base import BaseBot
from kbsim.bots.greedy import GreedyBot
from kbsim.bots.halving import halve
from kbsim.bots.params import SEARCH_DEPTH, SEARCH_ITERATIONS, SearchParams
from kbsim.bots.planner import PlannerBot
from kbsim.bots.random_bot import RandomBot
from kbsim.bots.search_turns import Candidate, TurnCandidates
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.ending import team_score
from kbsim.engine.rows.forward import RowsWorld, determinize
from kbsim.engine.rows.turn import Turn

MARGIN = 0.01
"""How much higher than the default's a candidate's mean value must be to be chosen instead."""

Z = 1.0
"""How many standard errors of the mean difference to the default a candidate must be higher by."""

RACE_SLOPE = 0.23
"""Slope of the race evaluation (:meth:`SearchBot.value`): each card held costs a seat this much in the log of
its odds of winning. Fitted by maximum likelihood on positions of planner games of the base game (2 players,
1,500 games: 0.222; 4 players, 1,000 games: 0.240), a softmax of ``-slope x cards held`` over the seats."""

ROLLOUTS = ("planner", "greedy", "random")
"""The bots a playout may use (``auto``: see :func:`rollout_for`)."""


def rollout_for(game: CompiledGame, rollout: str) -> str:
    """The rollout bot for ``game``: ``rollout`` itself, or for ``auto`` the planner where its turn is cheap.

    ``auto`` is the planner in games without characters whose rows are plain runs (its link-count search),
    otherwise greedy (the planner's turn with characters or in King's Corners costs 10-60 times greedy's).
    """
    if rollout != "auto":
        return rollout
    cheap = not game.chars_enabled and game.fast_step is not None
    return "planner" if cheap else "greedy"


def _bot(name: str) -> BaseBot:
    if name == "planner":
        return PlannerBot()
    if name == "greedy":
        return GreedyBot()
    if name == "random":
        return RandomBot()
    raise ValueError(f"unknown rollout bot {name!r}; expected one of: auto, {', '.join(ROLLOUTS)}")


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (mypyc): benchmarks and tests subclass it
class SearchBot(BaseBot):
    """Whole-turn candidates scored by playouts on sampled worlds; see the module docstring.

    Args:
        iterations: playouts per decision (the budget sequential halving spends on the candidates).
        rollout: the bot that plays the playouts in every seat (``auto``, ``planner``, ``greedy``, ``random``).
        depth: rounds each playout plays after the candidate turn before the position is valued (0: to the end
            of the hand).

    Attributes:
        decisions: turns this bot searched (more than one candidate).
        chosen: candidate kind -> turns it was chosen (``default``, ``shorter``, ``without``, ``rule``,
            ``character``, ``no-character``, ``exchange``, ``exchange-far``, ``minus``, ``pass``).
        playouts: playouts run by all its searches.
    """

    name = "search"
    Params: ClassVar[Any] = SearchParams  # its spec's parameters: search(iterations=..., rollout=..., depth=...)

    def __init__(
        self,
        iterations: int = SEARCH_ITERATIONS,
        rollout: str = "auto",
        depth: int = SEARCH_DEPTH,
        margin: float = MARGIN,
        z: float = Z,
    ):
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if depth < 0:
            raise ValueError(f"depth must be at least 0, got {depth}")
        if rollout != "auto" and rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout bot {rollout!r}; expected one of: auto, {', '.join(ROLLOUTS)}")
        self.iterations = iterations
        self.rollout = rollout
        self.depth = depth
        self.margin = margin
        self.z = z
        self.decisions = 0
        self.playouts = 0
        self.chosen: dict[str, int] = {}

    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """Start a game (see :meth:`BaseBot.new_game`); the default candidate's planner and the rollout bots."""
        super().new_game(game, seat, players, seed)
        self.base = PlannerBot()
        self.base.new_game(game, seat, players, seed)
        self.turns = TurnCandidates(game, self.base)
        name = rollout_for(game, self.rollout)
        self.rollers = [_bot(name) for _ in range(players)]
        self.slope = RACE_SLOPE

    # ------------------------------------------------------------------ valuing a position
    def value(self, world: RowsWorld, hand: int = 0, totals: list[int] | None = None) -> float:
        """The worth to this seat of the position ``world`` has reached, in [0, 1] (higher is better).

        * the game over: this seat's share of the win (:meth:`RowsWorld.result`), or in solo and cooperative play
          the team score as a share of its range;
        * a match whose hand ``hand`` has ended (the world dealt the next one): this seat's share of
          ``exp(-RACE_SLOPE x penalty points of that hand)`` over the seats (the penalties are the world's
          ``totals`` less ``totals``, those before the hand);
        * otherwise, in a race: this seat's share of ``exp(-RACE_SLOPE x cards held)`` over the seats (cards in
          hand, own draw pile and parked: :meth:`~kbsim.engine.rows.state.GameState.held`); in solo and
          cooperative play, the team score as if the game ended now.

        Args:
            world: the position reached by a playout.
            hand: the hand of a match the playout started in (``world.hand_no`` then).
            totals: the match's penalty totals when the playout started (``world.totals`` then), or None.
        """
        g = self.game
        me = self.seat
        if world.over and not g.match_target:
            out = world.result()[me]
            return self._score_share(out) if g.all_out else out
        if g.match_target and totals is not None and (world.over or world.hand_no != hand):
            return _share(me, [-self.slope * (world.totals[k] - totals[k]) for k in range(len(totals))])
        st = world.state
        if g.all_out:
            return self._score_share(team_score(g, st)) if g.score is not None else 0.0
        return _share(me, [-self.slope * st.held(k) for k in range(st.players)])

    def _score_share(self, score: float) -> float:
        """A team score as a share of the range it may take (0 at the lowest, 1 at the highest)."""
        g = self.game
        if g.score is None:
            return 0.0
        per_char, per_row, per_minus, _, _ = g.score
        top = per_char * (len(g.roster) if g.chars_enabled else 0) + per_row * g.n_rows
        low = per_minus * (len(g.deck) - g.n_rows) if per_minus < 0 else 0
        return (score - low) / (top - low) if top > low else 0.0

    # ------------------------------------------------------------------ playing
    def play_turn(self, turn: Turn) -> None:
        """Play one turn through ``turn`` (see the module docstring)."""
        stalled = self.stalled(turn)
        cands = self.turns.candidates(turn, stalled)
        if len(cands) > 1:
            self.decisions += 1
            best = self._search(turn, cands)
        else:
            best = 0
        chosen = cands[best]
        self._note(chosen.kind)
        for m in chosen.moves:
            turn.apply(m)

    def _search(self, turn: Turn, cands: list[Candidate]) -> int:
        """The index of the candidate sequential halving chooses (worlds sampled from the seat's stream)."""
        g = self.game
        n = self.players
        rng = self.rng
        worlds: list[RowsWorld] = []
        turns = self.depth * n if self.depth and not g.all_out else g.turn_limit
        rollers = self.rollers
        seed = self.seed

        def pull(c: int, w: int) -> float:
            while len(worlds) <= w:
                worlds.append(determinize(turn, rng, track=False))
            world = worlds[w].clone()
            hand = world.hand_no
            totals = world.totals[:]
            for m in cands[c].moves:
                world.apply(m)
            self.playouts += 1
            for k in range(n):
                rollers[k].new_game(g, k, n, seed)
            for _ in range(turns):
                if world.over or world.hand_no != hand:
                    break
                world.play_turn(rollers[world.seat])
            return self.value(world, hand, totals)

        return halve(len(cands), self.iterations, pull, self.margin, self.z).best

    def _note(self, kind: str) -> None:
        self.chosen[kind] = self.chosen.get(kind, 0) + 1


def _share(seat: int, logits: list[float]) -> float:
    """``seat``'s share of the softmax of ``logits`` (one per seat)."""
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    return weights[seat] / sum(weights)


__all__ = ["MARGIN", "RACE_SLOPE", "ROLLOUTS", "SearchBot", "rollout_for"]
