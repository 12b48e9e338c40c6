"""Experience measures (issue 23, part 3): the record columns that need the course of a game.

``lead_changes``, ``winner_leads_from``, ``winner_behind_at_half`` (:mod:`kbsim.engine.course`) and
``forced_turns`` (:mod:`kbsim.engine.rows.experience`), checked against hand-computed courses, hand-made turns,
and logged games replayed move by move with the measures recomputed here from the cards each seat holds.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

import kbsim
from kbsim.bots import make_bot
from kbsim.engine.course import Course
from kbsim.engine.rows.experience import forced
from kbsim.engine.rows.game import play_game, replay_hands
from kbsim.engine.rows.state import deal
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import compiled, make_turn  # noqa: E402


# --------------------------------------------------------------------------- the course, by hand
def test_course_measures_by_hand():
    """Cards held after the deal and each round of a 2-player game of 8 turns, seat 0 wins:
    (7,7) tie, (6,7) seat 0 leads, (6,5) seat 1, (4,5) seat 0, (0,3) seat 0. Leaders 0, 1, 0: two changes.
    Seat 0 leads from the mark at turn 6 to the end. At half the game (turn 4) it holds 6 against 5: behind."""
    c = Course()
    for t, st in ((0, (7, 7)), (2, (6, 7)), (4, (6, 5)), (6, (4, 5)), (8, (0, 3))):
        c.mark(t, st)
    assert c.measures([0], 8) == (2, 6, True)
    assert c.measures([0, 1], 8) == (2, None, None)  # a shared win: no winner measures


def test_course_ties_points_and_replaced_marks():
    """Points (more is better): a tie has no leader and is no change, but it ends a lead (seat 0 leads at 0, ties
    at 3, leads from 6 on); level at half the game is not behind; a winner not ahead at the last mark (a
    tie-break) 'leads from' the game's turns; a mark at the same turn count replaces the last one."""
    c = Course(lower_is_better=False)
    for t, st in ((0, (1, 0)), (3, (2, 2)), (6, (5, 2)), (6, (5, 3)), (9, (8, 3))):
        c.mark(t, st)
    assert c.turns == [0, 3, 6, 9]
    assert c.measures([0], 9) == (0, 6, False)
    tie = Course()
    for t, st in ((0, (5, 5)), (4, (3, 2)), (8, (0, 0))):
        tie.mark(t, st)
    assert tie.measures([0], 8) == (0, 8, True)  # seat 1 led, then a tie at the end that seat 0 won by a tie-break


# --------------------------------------------------------------------------- forced turns, by hand
def test_forced_turns_by_hand(game):
    """Nothing held fits and the pile holds cards: only an exchange (forced). A card fits and an exchange is
    allowed: two kinds (not forced). A card fits, the draw pile is empty and nothing else is open: forced."""
    only_exchange = make_turn(game, [[1], [3], [5], [7], [9], [11]], hand=[1, 13, 13], pile_top_first=[2, 2])
    assert forced(only_exchange)
    lay_or_exchange = make_turn(game, [[3], [8], [], [], [], []], hand=[4, 11, 12], pile_top_first=[1, 2, 3])
    assert not forced(lay_or_exchange)
    only_lay = make_turn(game, [[3], [8], [11], [1], [5], [6]], hand=[4], pile_top_first=[])
    assert only_lay.lay_moves() and not only_lay.can_exchange()
    assert forced(only_lay) == (not only_lay.can_pass() and only_lay.needed > 0)


# --------------------------------------------------------------------------- logged games, replayed
def _course_by_hand(marks: list[tuple[int, tuple[int, ...]]], winners, turns: int):
    """The three measures from (turns, cards held per seat) marks, written out independently of the engine."""
    dedup: dict[int, tuple[int, ...]] = {}
    for t, st in marks:
        dedup[t] = st  # a later mark at the same turn count replaces the earlier
    ts = sorted(dedup)
    leaders = []
    for t in ts:
        st = dedup[t]
        best = min(st)
        leaders.append(st.index(best) if st.count(best) == 1 else None)
    seen = [x for x in leaders if x is not None]
    changes = sum(1 for a, b in zip(seen, seen[1:], strict=False) if a != b)
    if len(winners) != 1:
        return changes, None, None
    w = winners[0]
    i = len(leaders)
    while i > 0 and leaders[i - 1] == w:
        i -= 1
    leads_from = ts[i] if i < len(ts) else turns
    half = max(k for k, t in enumerate(ts) if 2 * t <= turns)
    st = dedup[ts[half]]
    return changes, leads_from, st[w] > min(st)


@pytest.mark.parametrize("players, bots", [(2, "greedy"), (3, "greedy"), (4, "random")])
def test_course_columns_match_a_replayed_game(players, bots):
    g = compiled()
    checked = 0
    for i in range(6):
        r = play_game(g, [make_bot(bots) for _ in range(players)], game_seed(77, i), log=True)
        marks = []
        state = None
        for ev in replay_hands(g, players, r):
            if ev[0] == "deal":
                state = ev[2]
                marks.append((0, tuple(state.held(k) for k in range(players))))
            else:
                turn_no, state = ev[1], ev[4]
                if turn_no % players == 0 or turn_no == r.turns:
                    marks.append((turn_no, tuple(state.held(k) for k in range(players))))
        assert state is not None
        expected = _course_by_hand(marks, r.winners, r.turns)
        assert (r.lead_changes, r.winner_leads_from, r.winner_behind_at_half) == expected, (i, marks)
        checked += expected[0] > 0
    assert checked > 0, "no game with a lead change: the test would prove little"


def test_forced_turn_counts_match_a_replayed_game():
    """The game loop counts, per seat, the turns at whose start :func:`forced` holds (after the start draws)."""
    g = compiled()
    for i in range(4):
        r = play_game(g, [make_bot("greedy") for _ in range(3)], game_seed(78, i), log=True)
        counts = [0, 0, 0]
        st = deal(g, 3, random.Random(r.deals[0][0]))
        for k, (seat, moves) in enumerate(r.log, start=1):
            st.turn_no = k
            t = Turn.for_seat(g, st, seat)
            counts[seat] += forced(t.clone())
            for m in moves:
                t.apply(m)
        assert r.forced_turns == counts


def test_every_family_fills_the_experience_columns():
    """Records of a race, a King's Corners match and a market game: measures within their bounds."""
    from kbsim.sim.runner import Backend, RunSpec, run_games

    for name, bots in (
        ("kingsbridge", ("greedy",) * 3),
        ("kings-corners", ("greedy",) * 3),
        ("continental-express", ("greedy", "random")),
    ):
        spec = RunSpec(game=kbsim.load_game(name), players=len(bots), bots=bots, games=6, seed=5)
        cols = run_games(spec, Backend(), chunk_size=6)
        for j in range(6):
            turns, winners = cols["turns"][j], cols["winners"][j]
            assert cols["lead_changes"][j] is not None and 0 <= cols["lead_changes"][j] <= turns, name
            assert len(cols["forced_turns"][j]) == len(bots) and sum(cols["forced_turns"][j]) <= turns
            if len(winners) == 1:
                assert 0 <= cols["winner_leads_from"][j] <= turns
                assert cols["winner_behind_at_half"][j] in (True, False)
            else:
                assert cols["winner_leads_from"][j] is None and cols["winner_behind_at_half"][j] is None


@pytest.mark.parametrize("variants", [(), ("characters",), ("rebuild-either-end",), ("rebuild-split",)])
def test_the_quick_looks_of_forced_agree_with_the_listings(variants):
    """:func:`forced`'s quick looks answer as the full listings do, at the start of every turn of logged games."""
    from kbsim.engine.rows.experience import _lays_now, _rebuilds_now

    g = compiled(*variants)
    seen = 0
    for i in range(3):
        r = play_game(g, [make_bot("greedy"), make_bot("random"), make_bot("greedy")], game_seed(79, i), log=True)
        st = deal(g, 3, random.Random(r.deals[0][0]))
        for k, (seat, moves) in enumerate(r.log, start=1):
            st.turn_no = k
            t = Turn.for_seat(g, st, seat)
            assert _lays_now(t) == bool(t.lay_moves()), (k, seat)
            assert _rebuilds_now(t) == bool(t.rebuild_moves()), (k, seat)
            seen += 1
            for m in moves:
                t.apply(m)
    assert seen > 30
