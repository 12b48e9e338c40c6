"""Rule usage (#15 item 1): which optional rule, option or power made each taken move legal.

Counted by :mod:`kbsim.engine.rows.usage` in ``Turn.apply``, carried by the game result and the records'
``rule_usage`` column, and read by the report to warn about arms whose rule no game used.
"""

from __future__ import annotations

import pytest

from kbsim import load_game, play_game
from kbsim.analysis.arms import compute
from kbsim.analysis.reading import study_input
from kbsim.analysis.report import write_report
from kbsim.analysis.tables import text_summary
from kbsim.engine.rows import usage
from kbsim.engine.rows.game import GameState
from kbsim.engine.rows.moves import END_TURN, Lay, Play, Rebuild
from kbsim.engine.rows.turn import Turn
from kbsim.sim.records import SCHEMA
from kbsim.sim.study import plan_study, run_study, study_from_dict


def _turn(game, rows, hand, pile=(9, 9, 9)):
    cards = [[game.parse_card(c) for c in r.split()] if r != "_" else [] for r in rows]
    hand = [game.parse_card(c) for c in hand.split()]
    st = GameState(rows=cards, hands=[hand], piles=[list(pile)], discard=[], n_fixed=len(cards))
    return Turn.for_seat(game, st, 0)


@pytest.fixture(scope="module")
def either():
    return load_game("kingsbridge", ["rebuild-either-end"])


def test_start_segment_rebuild_counts_segments(either):
    t = _turn(either, ["5 6 7", "4", "_", "_", "_", "_"], "9")
    t.usage = {}
    t.apply(Rebuild(0, 1, 1, from_start=True))  # 5 from the start of row 1 onto 4
    assert t.usage == {usage.SEGMENTS: 1}
    t.apply(Rebuild(0, 2, 1))  # the end segment 6 7 onto ...5: the default rules allow it, nothing counted
    assert t.usage == {usage.SEGMENTS: 1}


def test_whole_row_from_start_is_not_a_segment(either):
    t = _turn(either, ["5 6 7", "4", "_", "_", "_", "_"], "9")
    assert usage.classify(either, t, Rebuild(0, 3, 1, from_start=True)) == ()


def test_split_counts_into_empty_row():
    g = load_game("kingsbridge", ["rebuild-split"])
    t = _turn(g, ["5 6 7", "4", "_", "_", "_", "_"], "9")
    assert usage.classify(g, t, Rebuild(0, 1, 2)) == (usage.INTO_EMPTY,)
    assert usage.enabled(g) == (usage.INTO_EMPTY,)
    assert usage.enabled(load_game("kingsbridge")) == ()


def test_illegal_move_is_not_counted(either):
    from kbsim.engine.results import IllegalMove

    t = _turn(either, ["5 6 7", "4", "_", "_", "_", "_"], "9")
    t.usage = {}
    with pytest.raises(IllegalMove):
        t.apply(Rebuild(0, 1, 3, from_start=True))  # onto an empty row card: not in this variant
    assert t.usage == {}


def test_equal_value_lay_and_character_play_counted():
    g = load_game("kingsbridge", ["characters"])
    t = _turn(g, ["5", "_", "_", "_", "_", "_"], "5")
    assert usage.classify(g, t, Lay(g.parse_card("5"), 0)) == (usage.EQUAL,)
    assert usage.classify(g, t, Play("den")) == (usage.CHARACTERS, "characters.play.den")
    assert usage.classify(g, t, END_TURN) == ()


def test_greedy_never_rebuilds_from_the_start_planner_records_the_counter(either):
    """A greedy game in ``rebuild-either-end`` records the counter with 0 uses; so does a planner game.

    The planner's exact search (link counts) finds no turn where a start segment lays more cards than
    moving the whole row and opening the freed row card (any card opens a row here), so it makes none in
    these games; that a start rebuild is counted is checked move by move above
    (``test_start_segment_rebuild_counts_segments``).
    """
    greedy = [play_game(either, "greedy", s, players=2).rule_usage for s in range(5)]
    assert all(u == {usage.SEGMENTS: 0} for u in greedy)
    planner = play_game(either, "planner", 1, players=2, check=True).rule_usage
    assert set(planner) == {usage.SEGMENTS} and planner[usage.SEGMENTS] >= 0


def test_records_column_declared():
    assert str(SCHEMA.field("rule_usage").type) == "list<item: struct<rule: string, uses: int32>>"


def test_report_warns_when_the_arms_rule_is_never_used(tmp_path):
    st = study_from_dict({"name": "ru", "players": [2], "games": 6, "seed": 3,
                          "arms": [{"name": "base"}, {"name": "either", "variants": ["rebuild-either-end"]}]},
                         tmp_path / "ru.toml")
    plan = plan_study(st)
    run_study(plan, workers=1)
    inp = study_input(plan)
    stats = compute(inp)
    either_key = plan.conditions[1].key
    assert stats["unused_rules"] == {either_key: [usage.SEGMENTS]}
    assert either_key in stats["unused"]
    warning = text_summary(inp, stats)[0]
    assert warning.startswith("WARNING:") and usage.SEGMENTS in warning and "planner" in warning
    page = write_report(inp, tmp_path / "ru.html").path.read_text(encoding="utf-8")
    assert "rule never used: " + usage.SEGMENTS in page
