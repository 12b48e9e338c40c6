"""The rows family's ``search`` bot (kbsim.bots.search): spec, determinism, candidates, rule use.

That it decides from its observation only is checked with every other bot in tests/test_observe.py.
"""

from __future__ import annotations

import math

import pytest

import kbsim
from kbsim.bots import UnknownBot, canonical_bot, make_bot
from kbsim.bots.greedy import GreedyBot
from kbsim.bots.planner import PlannerBot
from kbsim.bots.search import RACE_SLOPE, SearchBot
from kbsim.bots.search_turns import TurnCandidates
from kbsim.engine.rows.forward import new_world
from kbsim.engine.rows.moves import Exchange, Rebuild
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn

SMALL = "search(iterations=12)"


def test_spec_names_and_parameters():
    assert canonical_bot("search") == "search"
    assert canonical_bot("search(iterations=256, depth=1, rollout=auto)") == "search"
    assert canonical_bot("search(iterations=128, depth=2)") == "search(depth=2, iterations=128)"  # the old default
    assert canonical_bot("search(rollout=greedy, iterations=50)") == "search(iterations=50, rollout=greedy)"
    bot = make_bot("search(iterations=50, rollout=greedy, depth=0)")
    assert isinstance(bot, SearchBot) and (bot.iterations, bot.rollout, bot.depth) == (50, "greedy", 0)
    for bad in ("search(iterations=0)", "search(rollout=wizard)", "search(depth=-1)", "search(budget=3)"):
        with pytest.raises(UnknownBot):
            canonical_bot(bad)


def test_same_seed_same_game():
    g = kbsim.load_game("kingsbridge")
    a = kbsim.play_game(g, [SMALL, "planner"], seed=5, log=True)
    b = kbsim.play_game(g, [SMALL, "planner"], seed=5, log=True)
    assert a.log == b.log and a.winners == b.winners


def test_a_match_is_valued_at_the_end_of_the_hand_in_play():
    """King's Corners is a match of hands: a playout stops when its hand ends and is valued by that hand's penalties."""
    g = kbsim.load_game("kings-corners")
    world = new_world(g, 2, 3)
    bot = SearchBot(iterations=4)
    bot.new_game(g, 0, 2, 3)
    rollers = [GreedyBot(), GreedyBot()]
    for k, r in enumerate(rollers):
        r.new_game(g, k, 2, 3)
    assert bot.value(world, 0, [0, 0]) == pytest.approx(0.5)  # same cards held, nothing ended
    while world.hand_no == 0 and not world.over:
        world.play_turn(rollers[world.seat])
    pen = world.totals
    assert pen[0] != pen[1], "the seeded hand should end with different penalties"
    v = bot.value(world, 0, [0, 0])
    expected = 1 / (1 + math.exp(-RACE_SLOPE * (pen[1] - pen[0])))
    assert v == pytest.approx(expected)
    assert (v > 0.5) == (pen[0] < pen[1])
    # the same penalties counted from totals before the hand: only this hand's points count
    assert bot.value(world, 0, [5, 0]) == pytest.approx(1 / (1 + math.exp(-RACE_SLOPE * (pen[1] - pen[0] + 5))))


def test_search_plays_king_s_corners_matches_the_same_way_twice():
    g = kbsim.load_game("kings-corners")
    a = kbsim.play_game(g, ["search(iterations=6)", "planner"], seed=2, log=True)
    b = kbsim.play_game(g, ["search(iterations=6)", "planner"], seed=2, log=True)
    assert a.log == b.log and a.hands == b.hands and a.end_reason != "turn_limit"


def test_two_searching_bots_finish_their_games():
    g = kbsim.load_game("kingsbridge")
    for seed in range(6):
        r = kbsim.play_game(g, [SMALL, SMALL], seed=seed)
        assert r.end_reason != "turn_limit", seed


def _turn_on(g, rows: list[list[int]], hand: list[int], pile: int = 20) -> Turn:
    st = GameState(rows=rows, hands=[hand, [1] * 6], piles=[[2] * pile, [3] * pile], n_fixed=len(rows))
    st.turn_no = 5
    return Turn.for_seat(g, st, 0)


def _candidates(g, turn: Turn, stalled: bool = False):
    base = PlannerBot()
    base.new_game(g, 0, 2, 1)
    return TurnCandidates(g, base).candidates(turn, stalled)


def test_candidates_use_the_optional_rebuild_rules_in_force():
    rows = [[3, 4, 5, 6], [9], [12], [8], [2], [11]]
    hand = [7, 13, 13, 10, 1, 1]
    base = _candidates(kbsim.load_game("kingsbridge"), _turn_on(kbsim.load_game("kingsbridge"), rows, hand))
    assert not any(type(m) is Rebuild and m.from_start for c in base for m in c.moves)
    g = kbsim.load_game("kingsbridge", ["rebuild-either-end"])
    cands = _candidates(g, _turn_on(g, [r[:] for r in rows], hand[:]))
    kinds = {c.kind for c in cands}
    assert cands[0].kind == "default"
    assert "rule" in kinds
    assert any(type(m) is Rebuild and m.from_start for c in cands if c.kind == "rule" for m in c.moves)
    # every candidate ends the turn on a sandbox, and no two leave the same position
    assert len({c.moves for c in cands}) == len(cands)


def test_candidates_keep_cards_back_and_exchange():
    g = kbsim.load_game("kingsbridge")
    cands = _candidates(g, _turn_on(g, [[3], [9], [12], [8], [2], [11]], [4, 5, 6, 10, 13, 1]))
    kinds = [c.kind for c in cands]
    assert kinds[0] == "default" and "shorter" in kinds and "without" in kinds and "exchange" in kinds
    assert max(c.laid for c in cands) == cands[0].laid
    assert any(0 < c.laid < cands[0].laid for c in cands)


def test_a_stalled_turn_lays_instead_of_exchanging():
    g = kbsim.load_game("kingsbridge")
    turn = _turn_on(g, [[3], [9], [12], [8], [2], [11]], [4, 1, 1, 1, 1, 1])
    assert any(type(c.moves[0]) is Exchange for c in _candidates(g, turn))
    stalled = _candidates(g, turn, stalled=True)
    assert stalled and all(c.laid for c in stalled)
