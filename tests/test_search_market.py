"""The market family's ``search`` bot (kbsim.bots.market_search): spec, determinism.

That it decides from its observation only is checked with every other bot in tests/test_observe.py.
"""

from __future__ import annotations

import pytest

import kbsim
from kbsim.bots import UnknownBot, canonical_bot, make_bot
from kbsim.bots.market_search import MarketSearchBot

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
