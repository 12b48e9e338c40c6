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
import random
from collections import Counter
from typing import Any, ClassVar

from kbsim.bots.base import BaseBot
from kbsim.bots.halving import halve
from kbsim.bots.market import MarketGreedyBot, MarketRandomBot
from kbsim.bots.params import MarketSearchParams
from kbsim.engine.market import CHOOSE, DONE, GAP, HIDDEN, MarketGame, MarketState, MarketTurn, Move
from kbsim.engine.market.game import MarketPlay, final_points, winners_of

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


class MarketWorld:
    """TEMPORARY (replaced by the engine's forward model once it lands): a full table in play, stepped by turns."""

    def __init__(self, game: MarketGame, state: MarketState, play: MarketPlay, turn: MarketTurn | None) -> None:
        self.game = game
        self.state = state
        self.play = play
        self.turn = turn

    @property
    def seat(self) -> int:
        """The seat to move; -1 once over."""
        return -1 if self.turn is None else self.turn.seat

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.turn is None

    def apply(self, move: Move) -> None:
        """Apply ``move``; a move that ends the turn moves the game on."""
        t = self.turn
        assert t is not None
        t.apply(move)
        if t.phase == DONE:
            self._advance(t)

    def play_turn(self, bot: Any) -> None:
        """Let ``bot`` play the whole turn in progress, then move on."""
        t = self.turn
        assert t is not None
        bot.play_turn(t)
        if t.phase != DONE:
            t._close()
        self._advance(t)

    def clone(self) -> MarketWorld:
        """An independent copy."""
        st = self.state.copy()
        p = self.play
        play = MarketPlay(self.game, st, seat=p.seat, turns=p.turns, trigger_seat=p.trigger_seat, remaining=p.remaining)
        play.idle, play.ended = p.idle, p.ended
        t = self.turn
        turn = None
        if t is not None:
            turn = t.sandbox()
            turn.state = st
        return MarketWorld(self.game, st, play, turn)

    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game ended by its rules."""
        return winners_of(self.game, final_points(self.game, self.state)) if self.play.ended else ()

    def _advance(self, t: MarketTurn) -> None:
        if self.play.finish_turn(t) or self.play.turns >= self.game.turn_limit:
            self.turn = None
            return
        self.turn = self.play.new_turn()


def determinize(turn: MarketTurn, rng: random.Random) -> MarketWorld:
    """TEMPORARY (until the engine's determinization lands, issue 26 part 2): a world consistent with ``turn``.

    The seat's sandbox (:meth:`MarketTurn.sandbox`) with the face-down decks dealt anew from the market cards
    not seen (sizes kept), the objective deck shuffled from the objectives not seen, and each other seat's
    contracts drawn from those the seat has not seen (as many as that seat keeps); the turn order after this
    turn, with the end trigger, as the public claims tell it.
    """
    game = turn.game
    sb = turn.sandbox()
    st = sb.state
    want: Counter = Counter({i: k.count for i, k in enumerate(game.kinds) if k.count})
    seen: Counter = Counter()
    for zone in (*st.lines, st.pending):
        seen.update(c for c in zone if c >= 0)
    for k, n in enumerate(st.box):
        seen[k] += n
    for w in st.wagons:
        for k, n in enumerate(w):
            seen[k] += n
    seen[game.currency_kind] += sum(st.currency)
    pool = sorted((want - seen).elements())
    rng.shuffle(pool)
    i = 0
    for deck in st.decks:
        for j in range(len(deck)):
            if deck[j] == HIDDEN and i < len(pool):
                deck[j] = pool[i]
                i += 1
    objs = set(range(len(game.objectives))) - {o for o in st.obj_visible if o != GAP} - set(st.obj_box)
    for c in st.claimed:
        objs -= set(c)
    order = sorted(objs)
    rng.shuffle(order)
    st.obj_deck = order[: len(st.obj_deck)]
    real = turn.state
    mine = set(real.contracts[turn.seat]) | set(real.offered[turn.seat])
    free = [c for c in range(len(game.contracts)) if c not in mine]
    rng.shuffle(free)
    for s in range(st.players):
        if s != turn.seat:
            k = len(real.contracts[s])
            st.contracts[s], free = free[:k], free[k:]
            k = len(real.offered[s])
            st.offered[s], free = free[:k], free[k:]
    st.contract_box = free
    st.hidden = False
    return MarketWorld(game, st, _play_at(game, st, turn.seat), sb)


def _play_at(game: MarketGame, state: MarketState, me: int) -> MarketPlay:
    """The turn order at ``me``'s turn, with the end trigger as the public claims tell it (throwaway)."""
    n = state.players
    play = MarketPlay(game, state, seat=me)
    play.turns = 1
    for back in range(n - 1, 0, -1):  # the earliest seat before this one holding the trigger's claims
        s = (me - back) % n
        if len(state.claimed[s]) >= game.trigger:
            play.trigger_seat = s
            if game.final_round == "others":
                total = n - 1
            elif game.final_round == "complete_round":
                total = (game.first_seat - 1 - s) % n
            else:
                total = 0
            play.remaining = total - (back - 1)
            break
    return play


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
        seed = self._seed
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


__all__ = ["MARGIN", "POINTS_SLOPE", "MarketSearchBot", "MarketWorld", "determinize"]
