"""The hot path's shortcuts give exactly what the plain code gives (issue 13: same records).

* the deal hash is the digest of ``repr`` of the dealt zones, built from cached int texts;
* CompiledGame pickles (to worker processes) as an equal game that plays the same games.
"""

from __future__ import annotations

import hashlib
import pickle
import random

import pytest

import kbsim
from kbsim.bots import make_bot
from kbsim.engine.rows.game import play_game, state_hash
from kbsim.engine.rows.state import deal


def _repr_digest(st) -> str:
    parts = (st.rows, st.hands, st.piles, st.char_piles, st.display, st.char_deck)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("name", "variants"), [("kingsbridge", ()), ("kingsbridge", ("characters",)), ("kings-corners", ())]
)
def test_deal_hash_is_the_digest_of_repr(name: str, variants: tuple[str, ...]) -> None:
    game = kbsim.load_game(name, variants)
    for seed in range(40):
        for players in range(game.min_players, game.max_players + 1):
            st = deal(game, players, random.Random(seed))
            assert state_hash(st) == _repr_digest(st)
    st = deal(game, game.min_players, random.Random(1))
    st.rows[0][:] = [-5, 300, 0, 255, 256, -1]  # a joker, values past the cached texts
    assert state_hash(st) == _repr_digest(st)


def test_compiled_game_pickles_to_a_game_that_plays_the_same() -> None:
    game = kbsim.load_game("kingsbridge", ("characters",))
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game)
    for seed in (3, 4):
        a = play_game(game, [make_bot("greedy", "rows") for _ in range(3)], seed, log=True)
        b = play_game(copy, [make_bot("greedy", "rows") for _ in range(3)], seed, log=True)
        assert a.log == b.log and a.winners == b.winners


@pytest.mark.parametrize("name", ["kingsbridge", "kings-corners"])
def test_game_state_pickles_with_its_zones(name: str) -> None:
    # GameState has its own (compiled) __init__ and pickles through it: every zone, and a shared stock stays one list
    game = kbsim.load_game(name, ("characters",) if name == "kingsbridge" else ())
    st = deal(game, game.max_players, random.Random(11))
    st.parked[0].append((5, 2))
    st.turn_no = 7
    copy = pickle.loads(pickle.dumps(st))
    assert copy == st and copy.shared == st.shared and copy.turn_no == 7
    assert copy.char_plays == st.char_plays and type(copy.char_plays) is type(st.char_plays)


def test_gaps_is_every_pair_of_neighbours_two_steps_apart() -> None:
    # Turn.gaps is one typed pass (the greedy bot asks it of every row on every pass); the plain definition: each
    # pair of neighbours two steps apart, the joker (-v) read as v, leaves the value between them missing
    from kbsim.engine.rows.turn import Turn

    game = kbsim.load_game("kingsbridge", ("characters",))
    st = deal(game, 3, random.Random(5))
    turn = Turn.for_seat(game, st, 0, lambda: (0, 0))
    rng = random.Random(8)
    rows = [[], [4], [3, 5, 6], [-3, 5], [2, 2, 4, 6, 6, 7], [1, -3, 4, 6], [9, 11, 13]]
    for _ in range(400):
        row = sorted(rng.sample(range(1, 14), rng.randint(0, 8)) + rng.sample(range(1, 14), rng.randint(0, 2)))
        if row and rng.random() < 0.3:
            k = rng.randrange(len(row))
            row[k] = -row[k]
        rows.append(row)
    for row in rows:
        st.rows[0] = row
        values = [abs(c) for c in row]
        want = [a + 1 for a, b in zip(values, values[1:], strict=False) if b - a == 2]
        assert turn.gaps(0) == want, row
    st.rows[0] = [1, -3, 4, 6, 8]
    assert turn.gaps(0) == [2, 5, 7]
