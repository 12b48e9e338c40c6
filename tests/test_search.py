"""The rows family's ``search`` bot (kbsim.bots.search): spec, honesty, determinism, candidates, rule use."""

from __future__ import annotations

import random

import pytest

import kbsim
from kbsim.bots import UnknownBot, canonical_bot, make_bot
from kbsim.bots.planner import PlannerBot
from kbsim.bots.search import SearchBot
from kbsim.bots.search_turns import TurnCandidates
from kbsim.engine.rows.moves import DONE, END_TURN, Exchange, Rebuild
from kbsim.engine.rows.state import GameState, deal
from kbsim.engine.rows.turn import Turn

SMALL = "search(iterations=12)"


def test_spec_names_and_parameters():
    assert canonical_bot("search") == "search"
    assert canonical_bot("search(iterations=128, depth=2, rollout=auto)") == "search"
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


def _midgame(g, players: int, seed: int, turns: int) -> GameState:
    """A state after ``turns`` planner turns of a seeded deal."""
    st = deal(g, players, random.Random(seed))
    bots = [PlannerBot() for _ in range(players)]
    for k, b in enumerate(bots):
        b.new_game(g, k, players, seed)
    for i in range(turns):
        st.turn_no = i + 1
        t = Turn.for_seat(g, st, i % players)
        bots[i % players].play_turn(t)
        if t.phase != DONE:
            t.apply(END_TURN)
        assert not t.won
    return st


def _hidden_reshuffled(st: GameState, seat: int, rng: random.Random) -> GameState:
    """The same state with the cards ``seat`` cannot see (other hands, every draw pile) dealt anew."""
    other = st.copy()
    zones = [other.hands[k] for k in range(other.players) if k != seat] + list(other.piles)
    pool = [c for z in zones for c in z]
    rng.shuffle(pool)
    i = 0
    for z in zones:
        for j in range(len(z)):
            z[j] = pool[i]
            i += 1
    return other


@pytest.mark.parametrize(("variants", "players", "seed"), [((), 2, 1), ((), 4, 2), (("rebuild-either-end",), 3, 3)])
def test_decisions_depend_only_on_the_seat_s_observation(variants, players, seed):
    g = kbsim.load_game("kingsbridge", variants)
    st = _midgame(g, players, seed, 2 * players + 1)
    seat = st.turn_no % players
    logs = []
    for k in range(3):
        state = st.copy() if k == 0 else _hidden_reshuffled(st, seat, random.Random(k))
        assert state.hands[seat] == st.hands[seat]
        bot = make_bot("search(iterations=24)")
        bot.new_game(g, seat, players, 77)
        turn = Turn.for_seat(g, state, seat)
        turn.log = []
        bot.play_turn(turn)
        logs.append(turn.log)
    assert logs[0] == logs[1] == logs[2]


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
