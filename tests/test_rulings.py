"""Every handed case of issue #16 ("Endings and turns exactly as the rulebook allows"), with its right value."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from conftest import compiled, make_turn, run_cli
from conftest_characters import make_state, rules, turn_of
from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import (
    STALEMATE,
    deal,
    deal_hash_of,
    play_game,
    replay_hands,
    seat_can_lay,
    stalemate_confirmed,
    state_hash,
)
from kbsim.engine.rows.moves import (
    END_TURN,
    PASS,
    EndTurn,
    Exchange,
    FillGap,
    Lay,
    LayParked,
    LayStart,
    Minus,
    Pass,
    Play,
    Rebuild,
    Swap,
)
from kbsim.engine.rows.notation import format_move, parse_cards, parse_move
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.seeds import game_seed
from kbsim.rules.loader import load_rules


def kc(*variants, **options):
    return compile_rules(load_rules("kings-corners", list(variants), options))


def kc_rows(text, g):
    return [parse_cards(x, g) for x in text.split("|")]


# ------------------------------------------------------------------ 1. no false stalemate
def test_seed_11_game_4_goes_on_past_the_false_stalemate():
    """Old: `stalemate` at turn 126 with the last row 3-6 while seat 3 held a 7 (empty draw pile)."""
    g = compiled()
    r = play_game(g, [make_bot("random") for _ in range(4)], game_seed(11, 4), log=True)
    assert not (r.end_reason == STALEMATE and r.turns == 126)
    assert r.turns > 126
    # replay to the old stopping point: a seat could still lay there
    for ev in replay_hands(g, 4, r):
        if ev[0] == "turn" and ev[1] == 126:
            assert not stalemate_confirmed(g, ev[4])
            assert any(seat_can_lay(g, ev[4], k) for k in range(4))
            break


def test_a_held_card_that_fits_is_no_stalemate():
    g = compiled()
    st = GameState(
        rows=[parse_cards(x) for x in ("2-13", "4-13", "2-13", "11-13", "4-13", "3-6")],
        hands=[[1], [1], [3], [7, 3]],
        piles=[[], [], [], []],
    )
    assert seat_can_lay(g, st, 3) and not stalemate_confirmed(g, st)
    st.hands[3] = [3]
    assert stalemate_confirmed(g, st)  # 1s and 3s fit nothing, no rebuild helps: a real stalemate


def test_random_four_player_stalemates_are_real():
    g = compiled()
    for i in range(6):
        r = play_game(g, [make_bot("random") for _ in range(4)], game_seed(11, i), log=True)
        if r.end_reason == STALEMATE:
            *_, last = replay_hands(g, 4, r)
            assert stalemate_confirmed(g, last[4])


def test_blocked_king_corners_hand_needs_the_exact_test():
    g = kc()
    st = GameState(
        rows=kc_rows("10C|AH|AS|AC|_|_|_|_", g), hands=[parse_cards("9H", g), parse_cards("2H", g)], piles=[[], []]
    )
    assert not stalemate_confirmed(g, st)  # the red 9 goes on the black 10
    st.hands[0] = parse_cards("9C", g)
    assert stalemate_confirmed(g, st)


# ------------------------------------------------------------------ 2. the minus pile
def test_minus_refused_when_aldred_lets_a_card_go_before_a_start():
    g = rules("solo")
    s = make_state(["3-4", "9", "9", "9", "9", "9"], ["2"], ["5"], display=["aldred"])
    t = turn_of(g, s, 0)
    t.apply(parse_move("play aldred", t.rows, g))
    assert LayStart(2, 0) in t.lay_moves()
    assert t.minus_moves() == []
    with pytest.raises(IllegalMove, match="can still be laid"):
        t.apply(parse_move("minus 2", t.rows, g))


# ------------------------------------------------------------------ 3. every turn can end
def test_turn_after_a_rebuild_that_strands_the_hand_can_still_end():
    g = compiled()
    t = make_turn(g, [parse_cards(x) for x in ("3-8", "4", "12", "12", "12", "12")], hand=[1], pile_top_first=[2])
    before = [list(r) for r in t.rows]
    t.apply(parse_move("rebuild 1 from 5 on 2", t.rows, g))
    legal = t.legal_moves()
    assert Exchange((1,)) in legal
    t.apply(Exchange((1,)))  # the rebuild was provisional: the table is restored
    assert t.phase == DONE and t.rows == before and t.rebuilds == 0 and t.exchanged == 1


# ------------------------------------------------------------------ 4. records
def test_moves_of_different_kinds_never_compare_equal():
    kinds = [
        Lay(3, 0),
        LayStart(3, 0),
        FillGap(3, 0),
        LayParked(3, 0),
        Swap(3),
        Exchange((3,)),
        Minus((3,)),
        Rebuild(0, 1, 2),
        Play("den", ()),
        PASS,
        END_TURN,
    ]
    for a in kinds:
        for b in kinds:
            assert (a == b) is (a is b)
    assert Pass() != EndTurn() and len({Pass(), EndTurn()}) == 2
    assert Lay(3, 0) == Lay(3, 0) and hash(Lay(3, 0)) == hash(Lay(3, 0))


def test_rebuild_notation_with_duplicates_round_trips():
    rows = [[5, *range(5, 14)], [4]]
    whole = Rebuild(0, 10, 1)
    text = format_move(whole, rows)
    assert text == "rebuild 1 last 10 on 2"
    assert parse_move(text, rows) == whole
    part = Rebuild(0, 9, 1)
    assert parse_move(format_move(part, rows), rows) == part


def test_solo_replay_round_trips_every_move():
    g = rules("solo")
    r = play_game(g, [make_bot("greedy")], game_seed(3, 0), log=True)
    for ev in replay_hands(g, 1, r):
        if ev[0] == "turn":
            for m, rows in ev[3]:
                assert parse_move(format_move(m, rows, g), [list(x) for x in rows], g) == m


def test_turns_that_lay_nothing_with_an_empty_pile_are_passes():
    g = compiled()
    total = 0
    for i in range(3):
        r = play_game(g, [make_bot("random") for _ in range(4)], game_seed(11, i), log=True)
        expected = [0] * 4
        for ev in replay_hands(g, 4, r):
            if ev[0] == "turn":
                _, _, seat, done, st = ev
                lays = [m for m, _ in done if type(m) in (Lay, LayStart, FillGap, LayParked, Swap)]
                if not lays and not st.piles[seat] and not any(type(m) is Exchange for m, _ in done):
                    expected[seat] += 1
        assert r.passes == expected
        total += sum(r.passes)
    assert total > 0


@pytest.mark.parametrize(
    "game, variants, players",
    [
        ("kingsbridge", (), 3),
        ("kingsbridge", ("characters",), 2),
        ("kings-corners", (), 4),
        ("continental-express", (), 3),
    ],
)
def test_deal_hash_equal_deals_equal_hash(game, variants, players):
    g = compile_rules(load_rules(game, list(variants)))
    a, b, c = (deal_hash_of(g, players, s) for s in (5, 5, 6))
    assert a == b and a != c and len(a) == 16
    if g.family == "rows":
        r = play_game(g, [make_bot("greedy") for _ in range(players)], 5)
        if r.hands == 1:
            assert r.deal_hash == a == state_hash(deal(g, players, random.Random(5)))


def test_replay_prints_the_deal_and_json_hands(tmp_path):
    p = run_cli("replay", "--seed", "3", "-i", "0", "-p", "1", "-v", "solo", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "deal: rows" in p.stdout and "seat 0: hand" in p.stdout and "pile (top first)" in p.stdout
    p = run_cli("replay", "--seed", "3", "-i", "0", "-p", "2", "--json", cwd=tmp_path)
    d = json.loads(p.stdout)
    assert len(d["deal_hash"]) == 16
    first = d["log"][0]
    assert len(first["hands"]) == 2 and len(first["piles"]) == 2
    assert d["hands"][0]["deal"]["rows"]


def test_records_carry_the_deal_hash(tmp_path):
    p = run_cli("run", "-p", "2", "-n", "3", "--seed", "4", "-b", "greedy", "--out", "r.parquet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    import polars as pl

    d = pl.read_parquet(tmp_path / "r.parquet")
    g = compiled()
    assert d["deal_hash"].to_list() == [deal_hash_of(g, 2, game_seed(4, i)) for i in range(3)]


# ------------------------------------------------------------------ 5. King's Corners
@pytest.mark.parametrize("players", [2, 3, 4])
def test_kings_corners_player_left_of_dealer_plays_first(players):
    g = kc()
    r = play_game(g, [make_bot("greedy") for _ in range(players)], 9, log=True)
    assert r.log[0][0] == 1  # the dealer is seat 0; with 2 players seat 1 is the non-dealer


def test_kings_corners_match_replays_every_hand(tmp_path):
    p = run_cli("replay", "--game", "kings-corners", "--seed", "2", "--game-index", "0", "--players", "4", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "hand 2 (deal hash" in p.stdout
    assert p.stdout.count("deal: rows") >= 2


def test_king_pile_to_corner_does_not_move_a_pile_to_a_side_space():
    g = kc(king_pile_to_corner=True)
    rows = kc_rows("_|AH|AS|AC|KS QH|_|_|_", g)
    t = Turn(g, rows, [], [], [])
    with pytest.raises(IllegalMove, match="only in these slots"):
        t.apply(parse_move("rebuild 5 from KS on 1", t.rows, g))
    rows = kc_rows("KS QH|AH|AS|AC|_|_|_|_", g)  # but from a side space into a corner it may
    t = Turn(g, rows, [], [], [])
    t.apply(parse_move("rebuild 1 from KS on 5", t.rows, g))
    assert t.rows[4] == parse_cards("KS QH", g)


def test_kings_at_once_a_drawn_king_goes_to_a_corner_at_once():
    g = kc("kings-at-once")
    rows = kc_rows("10C|AH|AS|AC|_|_|_|_", g)
    t = Turn(g, rows, parse_cards("9H 5D", g), parse_cards("KD", g), [])
    t.apply(Lay(parse_cards("9H", g)[0], 0))
    t.apply(EndTurn())
    assert t.rows[4] == parse_cards("KD", g) and t.hand == parse_cards("5D", g)


# ------------------------------------------------------------------ 6. optional powers, solve, bots
def test_gytha_to_no_effect_when_no_discard_card_fits():
    g = rules("characters")
    s = make_state(["3-7", "9", "9", "9", "9", "9"], ["2", "1"], ["1", "1"], discard="3 3", char_piles=[["gytha"], []])
    t = turn_of(g, s, 0)
    assert [m.args for m in t.play_moves()] == [((),)]
    t.apply(Play("gytha", ((),)))
    assert s.char_piles == [[], ["gytha"]] and s.discard == [3, 3]
    s = make_state(["3-7", "9", "9", "9", "9", "9"], ["2", "1"], ["1", "1"], discard="8 3", char_piles=[["gytha"], []])
    t = turn_of(g, s, 0)
    with pytest.raises(IllegalMove, match="no effect only when none fits"):
        t.apply(Play("gytha", ((),)))


def test_greedy_in_the_failing_cooperative_split_run_only_makes_legal_moves():
    g = compiled("cooperative", "rebuild-split")
    g = replace(g, turn_limit=400)
    r = play_game(g, [make_bot(b) for b in ("random", "random", "greedy")], game_seed(384079490, 4), check=True)
    assert r.end_reason in ("all_out", "turn_limit")


# ------------------------------------------------------------------ 7. refusals that explain
def test_king_corners_refusal_names_the_rule_and_the_option():
    g = kc()
    rows = kc_rows("KC QH|5C|5S|5D|_|_|_|_", g)
    t = Turn(g, rows, [], [], [])
    with pytest.raises(IllegalMove) as e:
        t.apply(parse_move("rebuild 1 from KC on 5", t.rows, g))
    assert "empty row card" in str(e.value) and "king_pile_to_corner" in str(e.value)


def test_kingsbridge_refusals_name_their_option():
    g = compiled()
    t = make_turn(g, [[3, 4, 5], [], [9], [9], [9], [9]], hand=[1])
    with pytest.raises(IllegalMove, match="rebuild_into_empty_row"):
        t.apply(Rebuild(0, 1, 1))
    with pytest.raises(IllegalMove, match="rebuild_segments"):
        t.apply(Rebuild(0, 1, 2, from_start=True))
    with pytest.raises(IllegalMove, match="does not continue row 3"):
        t.apply(Rebuild(0, 1, 2))
    g = kc()
    t = Turn(g, kc_rows("5C|5S|5H|5D|_|_|_|_", g), parse_cards("QS", g), [], [])
    with pytest.raises(IllegalMove, match=r"only K"):
        t.apply(Lay(parse_cards("QS", g)[0], 4))


@pytest.mark.parametrize("players, cards", [(None, 1), ("2", 1), ("4", 3)])
def test_solve_proposes_wigelm_for_the_player_count(tmp_path, players, cards):
    args = ["solve", "-v", "characters", "-c", "wigelm", "--rows", "2|9|9|9|9|9", "--hand", "1 2 3", "--json"]
    if players:
        args += ["--players", players]
    p = run_cli(*args, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    plays = [m for m in json.loads(p.stdout)["moves"] if m.startswith("play wigelm")]
    assert plays and len(plays[0].split()) == 2 + cards


def test_solve_refuses_a_player_count_outside_the_rules(tmp_path):
    p = run_cli("solve", "-v", "solo", "--rows", "2|9|9|9|9|9", "--hand", "1", "--players", "3", cwd=tmp_path)
    assert p.returncode == 2 and "kbsim: error: --players 3" in p.stderr
