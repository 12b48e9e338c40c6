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
from kbsim.engine.market import CHOOSE, DONE, GAP, HIDDEN, MarketGame, MarketState, MarketTurn
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


def determinize(game: MarketGame, turn: MarketTurn, rng: random.Random) -> MarketState:
    """TEMPORARY (until the engine's determinization lands, issue 26 part 2): a table consistent with ``turn``.

    The seat's sandbox (:meth:`MarketTurn.sandbox`) with the face-down decks dealt anew from the market cards
    not seen (sizes kept), the objective deck shuffled from the objectives not seen, and each other seat's
    contracts drawn from those the seat has not seen (as many as that seat keeps).
    """
    st = turn.sandbox().state
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
    return st


def _play_after(game: MarketGame, state: MarketState, me: int) -> MarketPlay:
    """The turn order after ``me``'s turn, with the end trigger as the public claims tell it (throwaway)."""
    n = state.players
    play = MarketPlay(game, state, seat=(me + 1) % n)
    # the earliest seat (in turn order, going back from this one) that holds the trigger's claims triggered
    for back in range(n - 1, -1, -1):
        s = (me - back) % n
        if len(state.claimed[s]) >= game.trigger:
            play.trigger_seat = s
            after = back  # turns played since the trigger, this one included
            if game.final_round == "others":
                total = n - 1
            elif game.final_round == "complete_round":
                total = (game.first_seat - 1 - s) % n
            else:
                total = 0
            play.remaining = total - after
            if play.remaining <= 0:
                play.ended = True
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

    def value(self, state: MarketState, ended: bool) -> float:
        """The worth of ``state`` to this seat in [0, 1]: its share of the win at the end, else a softmax of points.

        Args:
            state: a full table.
            ended: the game is over (then winners by the rules' scores and tie-breakers; a shared win is split).
        """
        g = self.game
        points = final_points(g, state)
        if ended:
            winners = winners_of(g, points)
            return 1.0 / len(winners) if self.seat in winners else 0.0
        weights = [math.exp(POINTS_SLOPE * p["total"]) for p in points]
        return weights[self.seat] / sum(weights)

    def _default(self, turn: MarketTurn) -> Any:
        """The move greedy would make now (on a sandbox, so the real turn is untouched)."""
        sb = turn.sandbox()
        sb.log = []
        before = sb.phase
        self.base.play_turn(_OneMove(sb, before))
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
        g = self.game
        me = self.seat
        n = self.players
        rng = self.rng
        worlds: list[MarketState] = []
        rollers = self.rollers
        seed = self._seed
        limit = self.depth * n if self.depth else g.turn_limit

        def pull(c: int, w: int) -> float:
            while len(worlds) <= w:
                worlds.append(determinize(g, turn, rng))
            st = worlds[w].copy()
            t = turn.sandbox()
            t.state = st
            t.apply(cands[c])
            self.finisher.play_turn(t)
            if t.phase != DONE:
                t._close()
            self.playouts += 1
            play = _play_after(g, st, me)
            for k in range(n):
                rollers[k].new_game(g, k, n, seed)
            while not play.ended and play.turns < limit:
                tt = play.new_turn()
                rollers[play.seat].play_turn(tt)
                play.finish_turn(tt)
            return self.value(st, play.ended)

        self.decisions += 1
        return halve(len(cands), self.iterations, pull, MARGIN).best


class _OneMove:
    """A view of a market turn that lets a bot make one move only (to learn the move it would make)."""

    def __init__(self, turn: MarketTurn, phase: str) -> None:
        self._turn = turn
        self._phase = phase

    def __getattr__(self, name: str) -> Any:
        return getattr(self._turn, name)

    @property
    def phase(self) -> str:
        t = self._turn
        return t.phase if t.log is not None and not t.log else DONE


__all__ = ["MARGIN", "POINTS_SLOPE", "MarketSearchBot", "determinize"]
