"""Refusals that explain (#16 §7): every kind of refused move names the rule it breaks and, where a power,
an option or a variant would allow it, that power, option or variant. One test per kind of refusal."""

from __future__ import annotations

import random

import pytest

from conftest_characters import make_state, rules, turn_of
from kbsim.engine.market import END, MarketTurn, Move, new_state
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.moves import FillGap, Lay, LayParked, LayStart, Minus, Play, Rebuild, Swap


def _refusal(turn, move) -> str:
    with pytest.raises(IllegalMove) as e:
        turn.apply(move)
    return str(e.value)


def test_lay_of_an_equal_value_names_the_power_and_the_variant():
    t = turn_of(rules(), make_state(["3-5", "9", "9", "9", "9", "9"], ["5"]), 0)
    msg = _refusal(t, Lay(5, 0))
    assert "must follow it in sequence" in msg and "equal value" in msg
    assert "characters are not in play" in msg and "variant `characters`" in msg
    t = turn_of(rules("characters"), make_state(["3-5", "9", "9", "9", "9", "9"], ["5"]), 0)
    assert "only the power of agatha allows it" in _refusal(t, Lay(5, 0))


def test_lay_at_start_names_the_power():
    t = turn_of(rules("characters"), make_state(["3-5", "9", "9", "9", "9", "9"], ["2"]), 0)
    msg = _refusal(t, LayStart(2, 0))
    assert "before the first card of a row only while a power allows it" in msg and "power of aldred" in msg
    assert "characters are not in play" not in msg


def test_gap_fill_names_the_skip_power():
    t = turn_of(rules("characters"), make_state(["3-5", "9", "9", "9", "9", "9"], ["4"]), 0)
    msg = _refusal(t, FillGap(4, 0))
    assert "no gap that 4 fills" in msg and "gap left by a skipped value" in msg and "power of ragna" in msg


def test_joker_swap_names_the_joker_power():
    t = turn_of(rules("characters"), make_state(["3-5", "9", "9", "9", "9", "9"], ["6"]), 0)
    msg = _refusal(t, Swap(6))
    assert "no joker lies in a row" in msg and "power of edgar" in msg
    t = turn_of(rules("characters"), make_state(["3-4 E5", "9", "9", "9", "9", "9"], ["6"], joker="E5"), 0)
    assert "only the exact card it stands for" in _refusal(t, Swap(6))


def test_parked_lays_name_the_park_power_and_the_later_turn_rule():
    s = make_state(["3-5", "9", "9", "9", "9", "9"], ["7"], turn_no=2)
    t = turn_of(rules("characters"), s, 0)
    assert "power of wilwulf" in _refusal(t, LayParked(6, 0))
    s.parked[0].append((6, 2))  # parked during this very turn
    assert "a parked card is laid only in a later turn" in _refusal(t, LayParked(6, 0))
    s.parked[0][:] = [(8, 1)]
    msg = _refusal(t, LayParked(8, 0))
    assert "does not continue row 1" in msg and "a parked card goes only on a row end, in sequence" in msg


def test_character_plays_name_the_variant_and_the_rule():
    t = turn_of(rules(), make_state(["3-5", "9", "9", "9", "9", "9"], ["7"]), 0)
    msg = _refusal(t, Play("den"))
    assert "characters are not in play in these rules" in msg and "variant `characters`" in msg
    s = make_state(["3-5", "9", "9", "9", "9", "9"], ["7"], char_piles=[["aldred", "den"]])
    t = turn_of(rules("characters"), s, 0)
    assert "only the top card of this seat's character pile is playable" in _refusal(t, Play("den"))


def test_power_arguments_name_the_step_that_refuses_them():
    s = make_state(["3-5", "9", "9", "9", "9", "9"], ["7 8"], char_piles=[["wilwulf"]])
    t = turn_of(rules("characters"), s, 0)
    assert "takes 1 argument group(s), got 2: 1. park" in _refusal(t, Play("wilwulf", ((7,), (8,))))
    msg = _refusal(t, Play("wilwulf", ((7, 8, 9),)))
    assert "wilwulf's power refuses these arguments" in msg and "park 1 to 2 hand card(s)" in msg


def test_minus_refusals_name_the_variant_and_the_rule():
    t = turn_of(rules(), make_state(["3-5", "9", "9", "9", "9", "9"], ["7"]), 0)
    assert "there is no minus pile in these rules (allowed in variant `solo`)" in _refusal(t, Minus((7,)))
    s = make_state(["3-5", "9", "9", "9", "9", "9"], ["6 7"], display=[])
    t = turn_of(rules("solo"), s, 0)
    assert "the minus pile takes cards only from a seat that cannot lay" in _refusal(t, Minus((7,)))
    s = make_state(["3-5", "9", "9", "9", "9", "9"], ["1 2"], display=[])
    assert "put exactly 1 card(s) on the minus pile" in _refusal(turn_of(rules("solo"), s, 0), Minus((1, 2)))


def test_rebuild_refusal_names_the_option_and_a_variant_that_sets_it():
    t = turn_of(rules(), make_state(["3-5", "2", "9", "9", "9", "9"], ["7"]), 0)
    msg = _refusal(t, Rebuild(0, 1, 1, from_start=True))
    assert "only the last cards of a row move" in msg
    assert "option `rebuild_segments`, e.g. variant `rebuild-either-end`" in msg


def test_market_refusals_name_the_rule():
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import load_rules

    g = compile_rules(load_rules("continental-express", [], {}))
    s = new_state(g, 2, random.Random(3))
    for seat in range(2):
        c = MarketTurn(g, s, seat, phase="choose")
        while c.legal_moves():
            c.apply(c.legal_moves()[0])
    t = MarketTurn(g, s, 0)
    assert "taking is mandatory in these rules" in _refusal(t, END)
    assert "a card costs the price of its place: place 3 costs 2" in _refusal(t, Move("take", 0, 2))
    assert "no card at line 9" in _refusal(t, Move("take", 8, 0))
    assert "'claim' is not a take" in _refusal(t, Move("claim", 0))
    t.apply(Move("take", 0, 0))
    while t.phase == "resolve":
        t.apply(t.legal_moves()[0])
    if t.phase == "claim":
        assert "after taking, a turn may only claim face-up objectives" in _refusal(t, Move("take", 0, 0))
