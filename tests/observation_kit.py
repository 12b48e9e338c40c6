"""Helpers of the observation and forward-model tests: reach a decision point, rerun one seat's decision.

A decision point is the real state of a game just before a seat's turn (engine side: nothing masked). From it,
:func:`rows_decision` / :func:`market_decision` run one turn of a fresh bot through the engine's own game-loop
step (the zones masked while the bot decides) and return the moves it made; :func:`rows_twin` /
:func:`market_twin` make a second decision point that differs from the first only in cards the seat cannot see
(a determinization of the seat's observation). A bot that decides from its observation makes the same moves at
both.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import kbsim
from kbsim.engine.market.forward import determinize as market_determinize
from kbsim.engine.market.game import MarketPlay
from kbsim.engine.market.moves import CHOOSE, DONE
from kbsim.engine.market.observe import handed, masked
from kbsim.engine.market.state import MarketState, new_state
from kbsim.engine.market.turn import MarketTurn
from kbsim.engine.rng import seeded
from kbsim.engine.rows.forward import determinize as rows_determinize
from kbsim.engine.rows.game import HandLoop, _play_turn
from kbsim.engine.rows.moves import DONE as DONE_ROWS
from kbsim.engine.rows.moves import END_TURN
from kbsim.engine.rows.observe import observe
from kbsim.engine.rows.state import deal
from kbsim.engine.rows.turn import Turn


def variants_of(name: str) -> list[tuple[str, ...]]:
    """The base game and each shipped variant alone, of the shipped game ``name``."""
    from kbsim.rules.loader import load_rules

    return [(), *((v,) for v in load_rules(name).model.variants)]


def shipped_arms(family: str) -> list[tuple[str, tuple[str, ...]]]:
    """(game, variants) of every shipped game of ``family``, base and each variant."""
    out = []
    for name in kbsim.shipped_games():
        g = kbsim.load_game(name)
        if g.family == family:
            out.extend((name, v) for v in variants_of(name))
    return out


def players_of(game) -> int:
    """A player count to test ``game`` with: 3 where allowed (several opponents), else its nearest."""
    return min(max(3, game.min_players), game.max_players)


# ---------------------------------------------------------------------- rows
class RowsPoint:
    """A rows decision point: a hand (real zones) and the turn just started in it (start draws made)."""

    def __init__(self, loop: HandLoop, turn: Turn):
        self.loop, self.turn = loop, turn

    def copy(self) -> RowsPoint:
        loop = self.loop.copy(self.loop.state.copy())
        return RowsPoint(loop, loop.resume(self.turn.on_state(loop.state)))


def rows_points(game, players: int, seed: int, at: tuple[int, ...], policy: str = "greedy") -> list[RowsPoint]:
    """Decision points of one hand played by ``policy`` bots: the turns numbered ``at`` (1-based), just started."""
    from kbsim.bots import make_bot

    state = deal(game, players, seeded(seed))
    loop = HandLoop(game, state)
    bots = [make_bot(policy) for _ in range(players)]
    for s, b in enumerate(bots):
        b.new_game(game, s, players, seed)
    out = []
    while len(out) < len(at):
        turn = loop.start_turn()
        if turn is None:
            break
        if loop.turns in at:
            out.append(RowsPoint(loop, turn).copy())
        _play_turn(game, loop, turn, bots[turn.seat], {}, (), {}, None, None)
        if loop.finish_turn(turn):
            break
    return out


def rows_twin(point: RowsPoint, rng: random.Random) -> RowsPoint:
    """A decision point equal to ``point`` in everything its seat sees, its hidden cards drawn anew."""
    loop, turn = point.loop, point.turn
    assert loop.know is not None
    view = turn.on_state(observe(loop.state, loop.know, turn.seat))
    view.seen = loop.know
    world = rows_determinize(view, rng)
    assert world.turn is not None
    return RowsPoint(world.loop, world.turn).copy()


def rows_decision(point: RowsPoint, bot_factory: Callable, seed: int, *, masked_zones: bool = True) -> list:
    """The moves a fresh bot makes in ``point``'s turn (a copy is played), through the game loop's step.

    With ``masked_zones`` False the bot is handed the real turn, nothing masked (what a peeking bot would read
    if the engine did not mask).
    """
    run = point.copy()
    game, turn = run.loop.game, run.turn
    bot = bot_factory()
    bot.new_game(game, turn.seat, run.loop.state.players, seed)
    if masked_zones:
        log: list = []
        _play_turn(game, run.loop, turn, bot, {}, (), {}, None, log)
        return list(log[0][1])
    turn.log = []
    bot.play_turn(turn)
    if turn.phase != DONE_ROWS:
        turn.apply(END_TURN)
    return list(turn.log)


# ---------------------------------------------------------------------- market
class MarketPoint:
    """A market decision point: the table and the turn sequence before a contract choice or a turn."""

    def __init__(self, game, state: MarketState, play: MarketPlay, choosing: int):
        self.game, self.state, self.play, self.choosing = game, state, play, choosing

    def copy(self) -> MarketPoint:
        st = self.state.copy()
        p = self.play
        play = MarketPlay(
            self.game,
            st,
            seat=p.seat,
            turns=p.turns,
            trigger_seat=p.trigger_seat,
            remaining=p.remaining,
            idle=p.idle,
            ended=p.ended,
            reason=p.reason,
            passes=p.passes[:],
        )
        return MarketPoint(self.game, st, play, self.choosing)

    def turn(self) -> MarketTurn:
        """The next turn (started: counted as a turn), on this point's table."""
        if self.choosing < self.state.players:
            return MarketTurn(self.game, self.state, self.choosing, phase=CHOOSE)
        return self.play.new_turn()

    def context(self):
        if self.choosing < self.state.players:
            return self.play.context(choosing=True)
        return self.play.context()


def market_points(game, players: int, seed: int, at: tuple[int, ...], policy: str = "greedy") -> list[MarketPoint]:
    """Decision points of one game played by ``policy`` bots, before each step number in ``at`` (choices count)."""
    from kbsim.bots import make_bot

    st = new_state(game, players, random.Random(seed))
    point = MarketPoint(game, st, MarketPlay(game, st, seat=game.first_seat % players), 0)
    bots = [make_bot(policy, "market") for _ in range(players)]
    for s, b in enumerate(bots):
        b.new_game(game, s, players, seed)
    out = []
    step = 0
    while len(out) < len(at) and point.play.turns < game.turn_limit:
        if step in at:
            out.append(point.copy())
        t = point.turn()
        ctx = point.context()
        bots[t.seat].play_turn(handed(t, ctx))
        if t.phase != DONE:
            t.close()
        step += 1
        if point.choosing < players:
            point.choosing += 1
        elif point.play.finish_turn(t):
            break
    return out


def market_twin(point: MarketPoint, rng: random.Random) -> MarketPoint:
    """A decision point equal to ``point`` in everything the next seat sees, its hidden cards drawn anew."""
    probe = point.copy()
    t = probe.turn()
    view = t.on_state(masked(probe.state, t.seat))
    view.seen = probe.context()
    world = market_determinize(view, rng)
    twin = point.copy()
    twin.state = world.state
    twin.play.state = world.state
    return twin


def market_decision(point: MarketPoint, bot_factory: Callable, seed: int, *, masked_zones: bool = True) -> list:
    """The moves a fresh bot makes at ``point`` (a copy is played); unmasked with ``masked_zones`` False."""
    run = point.copy()
    t = run.turn()
    t.log = []
    bot = bot_factory()
    bot.new_game(point.game, t.seat, run.state.players, seed)
    bot.play_turn(handed(t, run.context()) if masked_zones else t)
    return list(t.log)
