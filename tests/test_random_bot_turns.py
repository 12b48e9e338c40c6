"""The random bot makes every legal kind of turn (issue #28, item 4): a character on an exchange or pass turn too.

Where characters may be played on any turn (``characters.on_any_turn``, the default reading), a turn may play
one and then exchange or pass. The random bot never did: ``kbsim replay --seed 29 -i 3 -p 3 -v characters -b
random`` looped to the turn limit, every seat exchanging or passing while a play on such a turn would have turned
the piles. Its plays were also drawn from the first 60 listed only.
"""

from __future__ import annotations

from conftest_characters import make_state, rules, turn_of
from kbsim.bots import make_bot
from kbsim.engine.rows.game import TURN_LIMIT, play_game
from kbsim.engine.rows.moves import Exchange, Play
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed

CLOSED = ["2-13", "3-13", "4-13", "5-13", "6-13", "7-13"]


def _turn_moves(g, state, seat, seed):
    bot = make_bot("random")
    bot.new_game(g, seat, state.players, seed)
    t = turn_of(g, state, seat)
    t.log = []
    bot.play_turn(t)
    return t.log


def test_the_handed_game_ends_by_the_rules():
    g = rules("characters")
    r = play_game(g, [make_bot("random") for _ in range(3)], game_seed(29, 3))
    assert r.end_reason != TURN_LIMIT


def test_an_exchange_turn_plays_a_character_or_not_both_with_positive_probability():
    # nothing can be laid (every row ends in 13): the turn is an exchange, with or without Wilwulf played first
    g = rules("characters")
    kinds = set()
    for seed in range(40):
        st = make_state(CLOSED, ["1 2 3 4 5 6", "1"], ["3 4", "5"], char_piles=[["wilwulf", "den"], []])
        moves = _turn_moves(g, st, 0, seed)
        assert type(moves[-1]) is Exchange
        kinds.add(tuple(type(m).__name__ for m in moves))
    assert kinds == {("Exchange",), ("Play", "Exchange")}


def test_plays_are_drawn_from_all_legal_plays():
    # five seats: Wigelm hands a row start to each of four opponents, 6**4 = 1296 plays; the first 60 listed all
    # take the first four starts from rows 1 and 2
    g = rules("characters")
    st0 = make_state(
        CLOSED, ["1 2", "1", "1", "1", "1"], ["3", "5", "5", "5", "5"], char_piles=[["wigelm"], [], [], [], []]
    )
    listing = Turn.for_seat(g, st0.copy(), 0).play_moves(limit=10**9)
    assert len(listing) == 6**4
    first60 = set(listing[:60])
    chosen = []
    for seed in range(30):
        st = st0.copy()
        chosen += [m for m in _turn_moves(g, st, 0, seed) if type(m) is Play]
    assert chosen and any(m not in first60 for m in chosen)
