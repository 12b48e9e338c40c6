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
