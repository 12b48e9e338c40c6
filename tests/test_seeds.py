"""The one seed module: every stream of a run is a SeedSequence spawn key of the run seed."""

from __future__ import annotations

import numpy as np

from kbsim.bots import make_bot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import MAX_SEED, bot_seed, game_seed, hand_seed
from kbsim.rules import load_rules


def _first63(seq: np.random.SeedSequence) -> int:
    return int(seq.generate_state(1, dtype=np.uint64)[0]) >> 1


def test_game_seed_is_the_spawned_child():
    children = np.random.SeedSequence(12345).spawn(5)
    assert [game_seed(12345, i) for i in range(5)] == [_first63(c) for c in children]


def test_streams_are_distinct_and_in_range():
    seeds = {game_seed(7, i) for i in range(200)}
    seeds |= {bot_seed(game_seed(7, 0), s) for s in range(6)}
    seeds |= {hand_seed(game_seed(7, 0), h) for h in range(1, 6)}
    assert len(seeds) == 200 + 6 + 5
    assert all(0 <= s <= MAX_SEED for s in seeds)


def test_hand_zero_is_dealt_from_the_game_seed():
    assert hand_seed(99, 0) == 99
    assert hand_seed(99, 1) != 99


def test_bot_stream_does_not_depend_on_the_other_seats():
    # A seat's stream is a function of (game seed, seat) only: spawn key (BOT, seat).
    assert bot_seed(5, 1) == _first63(np.random.SeedSequence(5, spawn_key=(1, 1)))


def test_random_bot_games_repeat_from_the_seed():
    g = compile_rules(load_rules("kingsbridge"))
    seed = game_seed(3, 4)
    a = play_game(g, [make_bot("random") for _ in range(3)], seed)
    b = play_game(g, [make_bot("random") for _ in range(3)], seed)
    assert (a.turns, a.winners, a.cards_left, a.log) == (b.turns, b.winners, b.cards_left, b.log)


def test_seeds_without_numpy_are_numpys_bits():
    # kbsim.engine.seeds derives the seeds with NumPy's SeedSequence algorithm written out (much faster than
    # building the object): the same 63 bits for every entropy size (1 to several 32-bit words) and key.
    import random

    from kbsim.engine.seeds import _spawned63

    r = random.Random(20261201)
    entropies = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, *(r.getrandbits(b) for b in (8, 31, 33, 63, 64, 96, 130, 200))]
    keys = [(), (0,), (1,), (2**32 + 7,), (1, 0), (1, 5), (2, 3), (r.getrandbits(40),), (1, 2, 3, 4, 5)]
    for e in entropies:
        for k in keys:
            assert _spawned63(e, k) == _first63(np.random.SeedSequence(e, spawn_key=k)), (e, k)
    for i in range(300):
        assert game_seed(12345, i) == _first63(np.random.SeedSequence(12345, spawn_key=(i,)))
    assert bot_seed(2**62 + 9, 3) == _first63(np.random.SeedSequence(2**62 + 9, spawn_key=(1, 3)))
    assert hand_seed(2**62 + 9, 4) == _first63(np.random.SeedSequence(2**62 + 9, spawn_key=(2, 4)))
