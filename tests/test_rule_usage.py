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


def test_either_end_chances_greedy_never_has_one_planner_declines(either):
    """``rebuild-either-end``: greedy records the counter with 0 uses and 0 chances (its whole-row rebuilds come
    first); planner games meet turns where a start segment is legal (counted in ``rule_legal``). Where any card
    opens an empty row, moving the whole row never lays fewer cards than moving its first cards, so the planner
    may decline every one: the report then says the rule was legal and never chosen."""
    greedy = [play_game(either, "greedy", s, players=2) for s in range(5)]
    assert all(r.rule_usage == {usage.SEGMENTS: 0} and r.rule_legal == {usage.SEGMENTS: 0} for r in greedy)
    planner = [play_game(either, "planner", s, players=2, check=True) for s in range(3)]
    assert sum(r.rule_legal[usage.SEGMENTS] for r in planner) > 0


def test_records_column_declared():
    assert str(SCHEMA.field("rule_usage").type) == ("list<item: struct<rule: string, uses: int32, legal_turns: int32>>")


def test_chances_count_the_turns_where_the_variant_rebuild_was_legal():
    g = load_game("kingsbridge", ["rebuild-split"])
    watch = usage.watched(dict.fromkeys(usage.enabled(g), 0))
    assert watch == (usage.INTO_EMPTY,)
    assert usage.chances(g, _turn(g, ["5 6 7", "4", "_", "_", "_", "_"], "9"), watch) == {usage.INTO_EMPTY}
    # no empty row card: no split is legal
    assert usage.chances(g, _turn(g, ["5 6 7", "4", "1", "2", "3", "10"], "9"), watch) == set()
    # a one-card row cannot be split, and a whole row into an empty row of its own group changes nothing
    assert usage.chances(g, _turn(g, ["5", "9", "_", "_", "_", "_"], "9"), watch) == set()
    assert usage.watched(dict.fromkeys(usage.enabled(load_game("kingsbridge", ["characters"])), 0)) == ()


def test_game_result_and_record_carry_the_chances():
    g = load_game("kingsbridge", ["rebuild-split"])
    results = [play_game(g, "greedy", s, players=4) for s in range(6)]
    assert all(set(r.rule_legal) == {usage.INTO_EMPTY} for r in results)
    assert sum(r.rule_legal[usage.INTO_EMPTY] for r in results) > 0
    rec = usage.record(results[0].rule_usage, results[0].rule_legal)
    assert rec == [
        {
            "rule": usage.INTO_EMPTY,
            "uses": results[0].rule_usage[usage.INTO_EMPTY],
            "legal_turns": results[0].rule_legal[usage.INTO_EMPTY],
        }
    ]
    assert usage.record({usage.CHARACTERS: 2}) == [{"rule": usage.CHARACTERS, "uses": 2, "legal_turns": None}]


def test_report_warns_when_the_arms_rule_is_never_used(tmp_path):
    st = study_from_dict(
        {
            "name": "ru",
            "players": [2],
            "games": 6,
            "seed": 3,
            "arms": [{"name": "base"}, {"name": "either", "variants": ["rebuild-either-end"]}],
        },
        tmp_path / "ru.toml",
    )
    plan = plan_study(st)
    run_study(plan, workers=1)
    inp = study_input(plan)
    stats = compute(inp)
    either_key = plan.conditions[1].key
    assert stats["unused_rules"] == {either_key: [usage.SEGMENTS]}
    assert either_key in stats["unused"]
    warning = text_summary(inp, stats)[0]
    assert warning.startswith("WARNING:") and usage.SEGMENTS in warning
    # greedy never even had the chance: its whole-row rebuilds come first (legal_turns counted, all 0)
    assert stats["rule_chances"] == {either_key: {usage.SEGMENTS: 0}}
    assert "never arose" in warning
    page = write_report(inp, tmp_path / "ru.html").path.read_text(encoding="utf-8")
    assert "rule never used: " + usage.SEGMENTS in page
    # identical arms at 6 games: no difference can even be tested, and the page says so at the top
    assert stats["adjustment"]["comparisons"] == 0 and 'id="nothing-resolved"' in page
    assert "No difference on this page could be tested" in page


def test_warning_tells_never_chosen_from_never_possible():
    from types import SimpleNamespace

    from kbsim.analysis.tables import unused_text

    inp = SimpleNamespace(conditions=[SimpleNamespace(key="b", label="split", bots="planner")])
    st = {"unused_rules": {"b": [usage.INTO_EMPTY]}, "rule_chances": {"b": {usage.INTO_EMPTY: 12}}}
    text = unused_text(inp, "b", st)
    assert "legal at the start of 12 turn(s)" in text and "never found it lays more cards" in text
    st["rule_chances"] = {"b": {usage.INTO_EMPTY: 0}}
    assert "never arose" in unused_text(inp, "b", st)
    inp.conditions[0].bots = "greedy"
    st["rule_chances"] = {"b": {usage.INTO_EMPTY: 3}}
    assert 'bots = "planner"' in unused_text(inp, "b", st)
    st["rule_chances"] = {}  # records before schema 6: no chances known
    assert 'bots = "planner"' in unused_text(inp, "b", st)
    inp.conditions[0].bots = "search"
    st["rule_chances"] = {"b": {usage.INTO_EMPTY: 3}}
    assert "the search bot" in unused_text(inp, "b", st) and "Fix:" not in unused_text(inp, "b", st)


def test_warning_says_when_the_arm_was_played_on_other_deals():
    """`kbsim compare` of files of other seeds: an arm whose rule no game used still differs from the base game
    by its deals; the warning says so instead of leaving 'changes nothing' beside differing numbers."""
    from types import SimpleNamespace

    from kbsim.analysis.metrics import Delta
    from kbsim.analysis.tables import unused_text

    inp = SimpleNamespace(conditions=[SimpleNamespace(key="b", label="either", bots="greedy")])
    unpaired = Delta(2.1, 0.4, 3.8, float("nan"), 300, paired=False)
    st = {"unused_rules": {"b": [usage.SEGMENTS]}, "rule_chances": {"b": {usage.SEGMENTS: 0}}}
    st["deltas"] = [{"b": "b", "a": "base", "delta": unpaired}]
    assert "come from the deals, not from the rule" in unused_text(inp, "b", st)
    st["deltas"] = [{"b": "b", "a": "base", "delta": Delta(0.0, -1.0, 1.0, 2.0, 300)}]
    assert "come from the deals" not in unused_text(inp, "b", st)


@pytest.mark.long
def test_run_summary_notes_a_rule_no_game_used(tmp_path):
    """`kbsim run` says when the variant's rule was never used (and whether it was ever legal); the base game
    enables no counter and prints no such note."""
    from conftest import run_cli

    proc = run_cli(
        "run",
        "-p",
        "3",
        "-n",
        "20",
        "--seed",
        "7",
        "--variant",
        "rebuild-either-end",
        "--workers",
        "1",
        "-o",
        str(tmp_path / "e.parquet"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "note: no game used `turn.lay_out.rebuild.segments`" in proc.stdout
    assert "never legal at the start of a turn" in proc.stdout and "--bots planner" in proc.stdout
    base = run_cli(
        "run", "-p", "3", "-n", "20", "--seed", "7", "--workers", "1", "-o", str(tmp_path / "b.parquet"), cwd=tmp_path
    )
    assert base.returncode == 0 and "no game used" not in base.stdout
    js = run_cli(
        "run",
        "-p",
        "3",
        "-n",
        "20",
        "--seed",
        "7",
        "--variant",
        "rebuild-split",
        "--workers",
        "1",
        "--json",
        "-o",
        str(tmp_path / "s.parquet"),
        cwd=tmp_path,
    )
    import json

    usage_ = json.loads(js.stdout)["rule_usage"][usage.INTO_EMPTY]
    assert usage_["uses"] > 0 and usage_["legal_turns"] > 0  # greedy splits rows under rebuild-split


# ------------------------------------------------------------------ usage per rung of a skill ladder (issue 23/26)
def _rung_records(search_uses: list[int]):
    """Synthetic records of two arms (base, either) at two rungs (planner, search), 2 players, one deal per entry
    of ``search_uses`` (60 in most tests).

    ``either`` enables the start-segment counter; the planner never makes such a rebuild (its games are the base
    game's, deal by deal); the search bot makes ``search_uses[i]`` of them in game ``i`` (its games differ from
    the base game's on the deals where it does, by a winner drawn at random).
    """
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(5)
    n = len(search_uses)
    seeds = list(range(n))

    def games(key: str, winners, turns, uses) -> pl.DataFrame:
        usage_rows = [[] if u is None else [{"rule": usage.SEGMENTS, "uses": u, "legal_turns": 4}] for u in uses]
        return pl.DataFrame(
            {
                "condition": key,
                "players": 2,
                "seed": seeds,
                "game_index": seeds,
                "bots": [["planner" if key.endswith("0") else "search"] * 2] * n,
                "winners": [[int(w)] for w in winners],
                "end_reason": ["won"] * n,
                "turns": list(turns),
                "rule_usage": usage_rows,
            },
            schema_overrides={
                "winners": pl.List(pl.Int8),
                "players": pl.Int8,
                "turns": pl.Int64,
                "rule_usage": pl.List(pl.Struct({"rule": pl.String, "uses": pl.Int64, "legal_turns": pl.Int64})),
            },
        )

    win = {r: rng.integers(0, 2, size=n) for r in "01"}
    turns = {r: rng.integers(20, 40, size=n) for r in "01"}
    other = rng.integers(0, 2, size=n)
    b1_win = [o if u else w for o, u, w in zip(other, search_uses, win["1"], strict=True)]
    b1_turns = [t + 3 * u for t, u in zip(turns["1"], search_uses, strict=True)]
    return pl.concat(
        [
            games("A0", win["0"], turns["0"], [None] * n),
            games("A1", win["1"], turns["1"], [None] * n),
            games("B0", win["0"], turns["0"], [0] * n),  # the planner: never used, so the base game's games
            games("B1", b1_win, b1_turns, search_uses),
        ]
    )


def _rung_input(records):
    from kbsim.analysis.reading import ReportInput
    from kbsim.sim.conditions import Condition

    conds = [
        Condition("A0", "base · planner", "base", bots="planner", rung="planner", stem="A"),
        Condition("A1", "base · search", "base", bots="search", rung="search", stem="A"),
        Condition("B0", "either · planner", "either", bots="planner", rung="planner", stem="B"),
        Condition("B1", "either · search", "either", bots="search", rung="search", stem="B"),
    ]
    return ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conds,
        comparisons=[("B0", "A0"), ("B1", "A1"), ("A1", "A0"), ("B1", "B0")],
        sweep=None,
        records=records,
        ladder=["planner", "search"],
    )


def test_a_rule_unused_by_one_rung_is_said_per_rung():
    """The planner never makes a start-segment rebuild, the search bot makes 3 in 60 games: every sentence, cell
    and warning that says the rule was never used names the planner only, and the search rung keeps its deal count
    (the page used to say per arm that the rule was never used and more deals would not help)."""
    from kbsim.analysis.report import ReportResult
    from kbsim.analysis.sections import build_page, section_tests
    from kbsim.analysis.tables import delta_text, report_tables

    uses = [0] * 60
    for i in (4, 17, 33):
        uses[i] = 1
    inp = _rung_input(_rung_records(uses))
    st = compute(inp, section_tests())
    assert st["unused"] == ["B0"] and st["unused_rules"] == {"B0": [usage.SEGMENTS]}
    _, _, answer = build_page(inp, st)
    (block,) = [b for b in answer["blocks"] if b["title"] == "either against base"]
    text = " ".join([block["headline"], *block["lines"]])
    assert (
        f"with planner its rule {usage.SEGMENTS} was never used in 60 games, so more deals with planner would not "
        "help; with search it was used 3 times in 60 games" in text
    )
    assert "these bots" not in text and "in some of its cells" not in text
    fair = [line for line in block["lines"] if line.startswith("Which of the two is fairer")]
    assert fair, block["lines"]
    for line in fair:  # the search rung gives what a study would need; only the planner's says it would not help
        assert ("would not help" in line) == ("with planner" in line), line
    (warning,) = answer["warnings"]
    assert warning.startswith("arm 'either' with planner: no game of its 60 used its rule(s)")
    assert "This holds with planner only: with search it was used 3 times in 60 games" in warning
    assert st["rule_usage"]["B1"]["uses"] == {usage.SEGMENTS: 3} and st["rule_usage"]["B1"]["games"] == 60
    # table cells and the text summary: the planner's comparison has no deal count, the search rung's may
    long = {(d["b"], d["a"], d["metric"]): d for d in st["deltas"]}
    searched = long[("B1", "A1", "turns")]
    assert not searched["delta"].identical and not searched["delta"].resolved
    assert (
        "rule was never used with planner, so more deals with planner"
        in delta_text(searched, unused=True, rung="planner")[2]
    )
    rows = {(r["b"], r["a"]): r for r in report_tables(inp, st)["deltas"]}
    assert all(
        "would not help" not in c["detail"] for c in rows[("either · search", "base · search")]["cells"].values()
    )
    assert all(
        "would not help" not in c["detail"] for c in rows[("either · search", "either · planner")]["cells"].values()
    )
    # the JSON says it per rung (and stays strict JSON)
    import json
    from pathlib import Path

    js = ReportResult(
        path=Path("p.html"), size=0, seconds=0.0, figures=0, summary=[], stats=st, conditions=inp.conditions
    ).as_json()
    json.loads(json.dumps(js, allow_nan=False, default=str))
    by = {u["condition"]: u for u in js["rule_usage"]}
    assert by["B0"]["rung"] == "planner" and by["B0"]["never"] == [usage.SEGMENTS]
    assert by["B1"]["rung"] == "search" and by["B1"]["uses"] == {usage.SEGMENTS: 3} and by["B1"]["never"] == []
    assert {c["condition"]: c["rung"] for c in js["conditions"]}["B1"] == "search"


def test_on_a_few_deals_a_rule_never_used_is_not_said_to_need_no_more_deals():
    """Handed case (characters-search at -n 3): "with planner its rule was never used, so more deals with planner
    would not help" on 3 deals, where the rule may just not have come up. The warning (a fact) stays; the claim
    about more deals is made only from MIN_DEALS_FOR_POWER deals on, and the fix names a stronger bot."""
    from kbsim.analysis.metrics import MIN_DEALS_FOR_POWER
    from kbsim.analysis.sections import build_page, section_tests

    few = _rung_input(_rung_records([0] * (MIN_DEALS_FOR_POWER - 1)))
    st = compute(few, section_tests())
    assert "B0" in st["unused"] and "B0" not in st["unused_against"]
    _, _, answer = build_page(few, st)
    said = " ".join(" ".join([b.get("headline", ""), *b.get("lines", [])]) for b in answer["blocks"])
    assert "would not help" not in said and answer["warnings"]
    enough = compute(_rung_input(_rung_records([0] * MIN_DEALS_FOR_POWER)), section_tests())
    assert enough["unused_against"]["B0"] == ["A0"]


def test_a_warnings_fix_names_a_bot_stronger_than_the_arms():
    from kbsim.analysis.tables import _stronger

    assert _stronger("greedy") == 'bots = "planner" or "search"'
    assert "search" in _stronger("planner") and "planner" not in _stronger("planner")
    assert "iterations=1024" in _stronger("search")


def test_a_rule_no_rung_used_is_warned_at_every_rung():
    """Neither bot ever uses the rule: both rungs are warned about (the search rung's baseline is the base game at
    that rung, not the same arm under the planner, whose rules enable the same counter)."""
    from kbsim.analysis.sections import build_page, section_tests

    inp = _rung_input(_rung_records([0] * 60))
    st = compute(inp, section_tests())
    assert st["unused"] == ["B0", "B1"]
    assert st["unused_rules"] == {"B0": [usage.SEGMENTS], "B1": [usage.SEGMENTS]}
    _, _, answer = build_page(inp, st)
    assert [w.split(":")[0] for w in answer["warnings"]] == ["arm 'either' with planner", "arm 'either' with search"]
    assert not any("This holds with" in w for w in answer["warnings"])
