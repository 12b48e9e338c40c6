"""The market family's ``search`` bot (kbsim.bots.market_search): spec, honesty, determinism, strength sign."""

from __future__ import annotations

import random

import pytest

import kbsim
from kbsim.bots import UnknownBot, canonical_bot, make_bot
from kbsim.bots.market import MarketGreedyBot
from kbsim.bots.market_search import MarketSearchBot
from kbsim.engine.market import CHOOSE, DONE, MarketState, MarketTurn, new_state
from kbsim.engine.market.game import MarketPlay

GAME = "continental-express"


def test_spec_names_and_parameters():
    assert canonical_bot("search", "market") == "search"
    assert canonical_bot("search(iterations=64, rollout=greedy, depth=0)", "market") == "search"
    bot = make_bot("search(iterations=9, depth=2)", "market")
    assert isinstance(bot, MarketSearchBot) and (bot.iterations, bot.depth) == (9, 2)
    with pytest.raises(UnknownBot):
        canonical_bot("search(rollout=planner)", "market")


def test_same_seed_same_game():
    g = kbsim.load_game(GAME)
    a = kbsim.play_game(g, ["search(iterations=8)", "greedy"], seed=4, log=True)
    b = kbsim.play_game(g, ["search(iterations=8)", "greedy"], seed=4, log=True)
    assert a.log == b.log and a.scores == b.scores


def _midgame(g, players: int, seed: int, turns: int) -> tuple[MarketState, int]:
    """A table after the contract choices and ``turns`` greedy turns; the seat to play next."""
    st = new_state(g, players, random.Random(seed))
    bots = [MarketGreedyBot() for _ in range(players)]
    for s, b in enumerate(bots):
        b.new_game(g, s, players, seed)
        t = MarketTurn(g, st, s, phase=CHOOSE)
        b.play_turn(t)
        if t.phase != DONE:
            t._close()
    play = MarketPlay(g, st, seat=g.first_seat % players)
    for _ in range(turns):
        t = play.new_turn()
        bots[play.seat].play_turn(t)
        play.finish_turn(t)
    return st, play.seat


def _hidden_reshuffled(g, st: MarketState, seat: int, rng: random.Random) -> MarketState:
    """The same table with what ``seat`` cannot see dealt anew: deck cards, the objective deck, others' contracts."""
    other = st.copy()
    pool = [c for d in other.decks for c in d]
    rng.shuffle(pool)
    i = 0
    for d in other.decks:
        for j in range(len(d)):
            d[j] = pool[i]
            i += 1
    rng.shuffle(other.obj_deck)
    hidden = [c for s in range(other.players) if s != seat for c in other.contracts[s]] + other.contract_box
    rng.shuffle(hidden)
    for s in range(other.players):
        if s != seat:
            k = len(other.contracts[s])
            other.contracts[s], hidden = hidden[:k], hidden[k:]
    other.contract_box = hidden
    return other


@pytest.mark.parametrize(("players", "seed", "turns"), [(2, 1, 6), (3, 2, 9), (4, 3, 13)])
def test_decisions_depend_only_on_the_seat_s_observation(players, seed, turns):
    g = kbsim.load_game(GAME)
    st, seat = _midgame(g, players, seed, turns)
    logs = []
    for k in range(3):
        table = st.copy() if k == 0 else _hidden_reshuffled(g, st, seat, random.Random(k))
        bot = make_bot("search(iterations=12)", "market")
        bot.new_game(g, seat, players, 99)
        t = MarketTurn(g, table, seat)
        t.log = []
        bot.play_turn(t)
        logs.append(t.log[:1])  # the first move (later ones follow cards turned up, which differ)
    assert logs[0] == logs[1] == logs[2]
