"""Skill ladders, verdicts across rungs, averages over player counts, bot strength and the page's Answer (issue 23)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from conftest import run_cli
from kbsim.analysis.arms import compute
from kbsim.analysis.effects import differing_deals, rule_uses_on
from kbsim.analysis.ladder import (
    APPEARS,
    FADES,
    GROWS,
    HOLDS,
    NONE,
    NOT_SHOWN,
    REVERSES,
    SHRINKS,
    interaction_pairs,
    seat_gap_interaction,
    skill_verdict,
)
from kbsim.analysis.metrics import Delta, paired
from kbsim.analysis.pooling import pool
from kbsim.analysis.reading import ReportInput
from kbsim.analysis.sections import build_page, section_tests
from kbsim.analysis.strength import bot_edge
from kbsim.sim.conditions import Condition
from kbsim.sim.study import StudyError, plan_study, study_from_dict, with_ladder

SCHEMA = {"winners": pl.List(pl.Int8), "players": pl.Int8, "turns": pl.Int64}


def _study(tmp_path, **extra) -> dict:
    return {
        "name": "lad",
        "players": [2],
        "games": 4,
        "seed": 3,
        "arms": [{"name": "base"}, {"name": "hand 7", "options": {"hand_size": 7}}],
        **extra,
    }


# ------------------------------------------------------------------ study files and plans
def test_ladder_plans_a_condition_per_rung_and_leaves_head_to_head_arms_as_written(tmp_path):
    doc = _study(tmp_path, ladder=["greedy", "planner(budget=300)"])
    doc["arms"].append({"name": "duel", "bots": ["planner", "greedy"]})
    plan = plan_study(study_from_dict(doc, tmp_path / "lad.toml"), records_dir=tmp_path / "rec")
    rungs = [(c.arm, c.rung) for c in plan.conditions]
    assert rungs == [
        ("base", "greedy"),
        ("base", "planner(budget=300)"),
        ("hand 7", "greedy"),
        ("hand 7", "planner(budget=300)"),
        ("duel", None),
    ]
    key = {(c.arm, c.rung): c.key for c in plan.conditions}
    # every seat of a rung's run holds the rung's bot; the head-to-head arm keeps its lineup (both rotations)
    bots = {(r.condition.key, r.spec.bots) for r in plan.runs}
    assert (key[("base", "planner(budget=300)")], ("planner(budget=300)",) * 2) in bots
    assert {b for k, b in bots if k == key[("duel", None)]} == {("planner", "greedy"), ("greedy", "planner")}
    # arms against the baseline at each rung, then each rung against the first; the duel has no rung to meet
    assert plan.comparisons == [
        (key[("hand 7", "greedy")], key[("base", "greedy")]),
        (key[("hand 7", "planner(budget=300)")], key[("base", "planner(budget=300)")]),
        (key[("base", "planner(budget=300)")], key[("base", "greedy")]),
        (key[("hand 7", "planner(budget=300)")], key[("hand 7", "greedy")]),
    ]
    assert len({r.path for r in plan.runs}) == len(plan.runs)  # a records file per rung: cached like any cell
    assert plan.ladder == ["greedy", "planner(budget=300)"]


@pytest.mark.parametrize(
    ("ladder", "mention"),
    [
        (["greedy", "wizard"], "ladder #2"),
        (["greedy", "planner(budget=-3)"], "ladder #2"),
        (["greedy", "greedy"], "already rung 1"),
        (["greedy", " "], "ladder #2"),
    ],
)
def test_bad_ladders_name_the_rung(tmp_path, ladder, mention):
    with pytest.raises(StudyError) as e:
        plan_study(study_from_dict(_study(tmp_path, ladder=ladder), tmp_path / "lad.toml"))
    assert mention in str(e.value) and "lad.toml" in str(e.value)


def test_with_ladder_replaces_the_ladder_and_keeps_the_source(tmp_path):
    st = with_ladder(study_from_dict(_study(tmp_path, ladder=["random"]), tmp_path / "lad.toml"), ["greedy"])
    assert [r.bot for r in st.ladder or []] == ["greedy"] and st.source == tmp_path / "lad.toml"


def test_cli_ladder_plays_each_rung_once_and_reuses_its_records(tmp_path):
    (tmp_path / "lad.toml").write_text(
        'name = "lad"\nplayers = [2]\ngames = 6\nseed = 3\n[[arms]]\nname = "base"\n'
        '[[arms]]\nname = "hand 7"\noptions = { hand_size = 7 }\n',
        encoding="utf-8",
    )
    args = ("report", "lad.toml", "--ladder", "greedy,planner(budget=200)", "--workers", "1", "--json", "-o", "p.html")
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = run_cli(*args, "--force", cwd=tmp_path)
    import json

    info = json.loads(again.stdout)
    assert info["games_played"] == 0 and info["runs_reused"] == 4
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert page.index('id="answer"') < page.index('id="summary"')  # the Answer first
    assert "greedy &lt; planner(budget=200)" in page or "greedy < planner(budget=200)" in page
    bad = run_cli("report", "lad.toml", "--ladder", "greedy,(", "--workers", "1", cwd=tmp_path)
    assert bad.returncode == 2 and "--ladder" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ interactions and verdicts
def _games(condition: str, players: int, seeds, winners, turns, stale=None, bots=None) -> pl.DataFrame:
    n = len(seeds)
    stale = [False] * n if stale is None else stale
    return pl.DataFrame(
        {
            "condition": condition,
            "players": players,
            "seed": list(seeds),
            "game_index": list(seeds),
            "bots": [bots or ["greedy"] * players] * n,
            "winners": [[] if s else [int(w)] for w, s in zip(winners, stale, strict=True)],
            "end_reason": ["stalemate" if s else "won" for s in stale],
            "turns": list(turns),
        },
        schema_overrides=SCHEMA,
    )


def _ladder_input(frames: list[pl.DataFrame], players: list[int]) -> ReportInput:
    conds = [
        Condition("A0", "A · g", "A", rung="g", stem="A"),
        Condition("A1", "A · p", "A", rung="p", stem="A"),
        Condition("B0", "B · g", "B", rung="g", stem="B"),
        Condition("B1", "B · p", "B", rung="p", stem="B"),
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
        records=pl.concat(frames),
        ladder=["g", "p"],
    )


def test_interaction_is_the_per_deal_difference_of_the_two_effects():
    """(B_p - A_p) - (B_g - A_g) per deal, tested like any paired difference; found by hand."""
    rng = np.random.default_rng(11)
    n, p = 300, 2
    seeds = np.arange(n)
    turns = {k: rng.integers(20, 40, size=n) for k in ("A0", "A1", "B0", "B1")}
    turns["B1"] = turns["A1"] + 3  # B adds 3 turns with the strong bot only
    turns["B0"] = turns["A0"].copy()
    frames = [_games(k, p, seeds, rng.integers(0, p, size=n), t) for k, t in turns.items()]
    inp = _ladder_input(frames, [p])
    assert interaction_pairs(inp) == [("B1", "A1", "B0", "A0")]
    st = compute(inp, section_tests())
    rows = [r for r in st["sections"]["effects"] if r["kind"] == "interaction" and r["metric"] == "turns"]
    assert len(rows) == 1
    by_hand = paired((turns["B1"] - turns["A1"]) - (turns["B0"] - turns["A0"]))
    got = rows[0]["delta"]
    assert got.mean == pytest.approx(3.0) and got.mean == pytest.approx(by_hand.mean)
    assert got.p == by_hand.p and got.resolved  # adjusted with the page's family, still resolved
    # the page words it: the turns effect appears only under stronger play
    _, _, answer = build_page(inp, st)
    text = " ".join(" ".join(b["lines"]) for b in answer["blocks"])
    assert "Turns per game (B − A" in text and APPEARS in text


def _d(mean: float, resolved: bool) -> Delta:
    return Delta(mean, mean - 1, mean + 1, 1.0, 100, p=0.001 if resolved else 0.5, p_adj=0.001 if resolved else 0.5)


@pytest.mark.parametrize(
    ("per_rung", "dependence", "words"),
    [
        ([(2, True), (2.1, True)], [(0.1, False)], HOLDS),
        ([(2, True), (5, True)], [(3, True)], GROWS),
        ([(5, True), (2, True)], [(-3, True)], SHRINKS),
        ([(0.2, False), (4, True)], [(3.8, True)], APPEARS),
        ([(4, True), (0.2, False)], [(-3.8, True)], FADES),
        ([(3, True), (-3, True)], [(-6, True)], REVERSES),
        ([(3, True), (0.5, False)], [(-2.5, False)], NOT_SHOWN),
        ([(0.3, False), (0.4, False)], [(0.1, False)], NONE),
    ],
)
def test_skill_verdict_words(per_rung, dependence, words):
    assert skill_verdict([_d(*x) for x in per_rung], [_d(*x) for x in dependence]) == words


def test_seat_gap_interaction_is_zero_and_untestable_when_the_effects_agree():
    rng = np.random.default_rng(2)
    a = np.eye(2)[rng.integers(0, 2, size=50)]  # one game won alone per deal, by seat 0 or 1
    b = a.copy()
    b[:10] = b[:10, ::-1]
    same = seat_gap_interaction(b, a, b, a)  # the same effect at both rungs, deal by deal
    assert same.mean == 0 and same.discordant == 0 and not same.testable
    moved = seat_gap_interaction(b, a, a, a)  # an effect only at the stronger rung
    assert moved.discordant == 10 and moved.mean == pytest.approx(
        _gap(b.sum(0)) - _gap(a.sum(0))
    )  # the effect at the first rung is 0
    assert moved.low <= moved.mean <= moved.high
    assert seat_gap_interaction(b[::-1], a[::-1], a[::-1], a[::-1]) == moved  # the rows' order does not matter


def _gap(w):
    return float(np.max(np.abs(w / w.sum() - 1 / len(w))))


# ------------------------------------------------------------------ averages over player counts
def test_pool_is_the_plain_average_with_cochrans_q():
    from scipy import stats

    ds = [Delta(m, m - 1.96 * s, m + 1.96 * s, s * 10, 100, p=0.01) for m, s in ((1.0, 0.5), (2.0, 0.5), (6.0, 1.0))]
    pooled, q_p = pool(ds)
    se = math.sqrt(0.25 + 0.25 + 1.0) / 3
    assert pooled.mean == pytest.approx(3.0) and pooled.high - pooled.mean == pytest.approx(1.959964 * se, rel=1e-4)
    assert pooled.p == pytest.approx(2 * stats.norm.sf(3.0 / se), rel=1e-3)
    w = np.array([4.0, 4.0, 1.0])
    center = (w * [1, 2, 6]).sum() / w.sum()
    q = (w * (np.array([1, 2, 6]) - center) ** 2).sum()
    assert q_p == pytest.approx(stats.chi2.sf(q, 2), rel=1e-3)
    same = Delta(0.0, 0.0, 0.0, 0.0, 50, p=1.0, test="paired t")
    assert pool([same, same])[0].identical


# ------------------------------------------------------------------ which bot is stronger
def test_bot_edge_reads_the_share_of_the_games_won_alone_by_deal():
    """Two rotations per deal: X wins both on 30 deals, one on 10, none on 10 -> share 0.7 of a fair 0.5."""
    rows = []
    outcome = [2] * 30 + [1] * 10 + [0] * 10
    for seed, wins in enumerate(outcome):
        for r, lineup in enumerate((["x", "y"], ["y", "x"])):
            x_seat = lineup.index("x")
            winner = x_seat if r < wins else 1 - x_seat
            rows.append(_games("duel", 2, [seed], [winner], [30], bots=lineup))
    df = pl.concat(rows)
    from kbsim.analysis.arms import prepare

    edge, share, fair = bot_edge(prepare(df), "duel", 2, "x")
    assert fair == 0.5 and share == pytest.approx(0.7)
    by_hand = paired(np.array(outcome, dtype=float) - 0.5 * 2)
    assert edge.mean == pytest.approx(0.2) and edge.p == by_hand.p
    assert edge.low == pytest.approx(by_hand.low / 2) and edge.resolved_raw


# ------------------------------------------------------------------ a handful of differing deals
def test_differing_deals_and_the_rules_used_there():
    seeds = list(range(20))
    base = _games("A", 2, seeds, [0] * 20, [30] * 20)
    turns = [30] * 20
    turns[4], turns[9] = 28, 33
    usage = [[] for _ in seeds]
    usage[4] = [{"rule": "rebuild.start", "uses": 2, "legal_turns": 5}]
    arm = _games("B", 2, seeds, [0] * 20, turns).with_columns(
        rule_usage=pl.Series(
            usage, dtype=pl.List(pl.Struct({"rule": pl.String, "uses": pl.Int32, "legal_turns": pl.Int32}))
        )
    )
    df = pl.concat([base, arm], how="diagonal_relaxed")
    assert differing_deals(df, "B", "A", 2) == [(4, 4), (9, 9)]
    assert rule_uses_on(df, "B", 2, [4, 9]) == {"rebuild.start": 2}
    inp = ReportInput(
        "t", "t", "", "test", [], [Condition("A", "A", "A"), Condition("B", "B", "B")], [("B", "A")], None, df
    )
    _, _, answer = build_page(inp, compute(inp, section_tests()))
    text = " ".join(" ".join(b["lines"]) for b in answer["blocks"])
    assert "differ on 2 deals only (game 4, game 9); in them B used rebuild.start 2×" in text
    # 3 of 3 deals differing is no handful: a quick look at a few deals names no deals "only"
    few = df.filter(pl.col("seed").is_in([4, 9, 0]))
    inp = ReportInput(
        "t", "t", "", "test", [], [Condition("A", "A", "A"), Condition("B", "B", "B")], [("B", "A")], None, few
    )
    _, _, answer = build_page(inp, compute(inp, section_tests()))
    assert "deals only" not in " ".join(" ".join(b["lines"]) for b in answer["blocks"])


def test_bot_edge_interval_stays_honest_when_one_bot_wins_every_game():
    """X wins every game won alone on 40 deals (one deal stalemated once): the ratio interval alone would be
    nearly zero wide; the edge's interval contains the Clopper-Pearson interval of the share over the deals."""
    from scipy import stats

    rows = []
    for seed in range(40):
        for r, lineup in enumerate((["x", "y"], ["y", "x"])):
            stale = [seed == 0 and r == 0]
            rows.append(_games("duel", 2, [seed], [lineup.index("x")], [30], stale=stale, bots=lineup))
    from kbsim.analysis.arms import prepare

    edge, share, fair = bot_edge(prepare(pl.concat(rows)), "duel", 2, "x")
    assert share == 1.0 and fair == 0.5 and edge.mean == pytest.approx(0.5)
    assert edge.low == pytest.approx(stats.beta.ppf(0.025, 40, 1) - 0.5) and edge.high >= 0.5
    assert edge.high - edge.low > 0.05 and edge.resolved_raw


@pytest.mark.parametrize(("seats", "side"), [(None, "less"), ({"dealer": 0, "first_after_dealer": 1}, "more")])
def test_first_seat_headline_reads_the_seat_roles_of_the_records(seats, side):
    """Seat 1 wins 36 of 40 two-player games under both rungs. Where the records' seat roles say seat 1 plays
    first (King's Corners: the seat after the dealer), the Answer's first seat wins more often than its fair
    share; records that do not say are read as seat 0 first, which then wins less often."""
    winners = [1] * 36 + [0] * 4
    frames = [_games(k, 2, range(40), winners, [30] * 40) for k in ("A0", "A1", "B0", "B1")]
    inp = _ladder_input(frames, [2])
    inp.seats = seats
    st = compute(inp, section_tests())
    assert {g["first"] for g in st["groups"].values()} == {0 if seats is None else 1}
    _, _, answer = build_page(inp, st)
    headlines = [b["headline"] for b in answer["blocks"] if "headline" in b]
    assert headlines and f"the first seat wins alone {side} often than its fair share" in headlines[0]


def test_first_seat_headline_gives_one_value_when_the_player_counts_agree():
    """Seat 0 wins 45 of 60 two-player games (+25.0 pp over a fair 50%) and 35 of 60 three-player games
    (+25.0 pp over a fair 33.3%): the headline gives the edge once, never "+25.0 to +25.0 pp"."""
    frames = []
    for p, wins in ((2, 45), (3, 35)):
        winners = [0] * wins + [1] * (60 - wins)
        frames += [_games(k, p, range(60), winners, [30] * 60) for k in ("A0", "A1", "B0", "B1")]
    _, _, answer = build_page(_ladder_input(frames, [2, 3]), compute(_ladder_input(frames, [2, 3]), section_tests()))
    headline = next(b["headline"] for b in answer["blocks"] if "headline" in b)
    assert "+25.0 pp" in headline and "+25.0 to +25.0" not in headline


def test_distance_from_fair_across_the_ladder_names_each_player_count_first():
    """Handed case (reading a bots page): "not shown to depend on skill: not resolved with greedy and with search
    at 3 players" read as if the rungs were at 3 players, and a count resolved at no rung was left out. Now each
    count leads its verdict, every count is there, in order."""
    frames = []
    for p, rung_wins in ((2, {"0": 36, "1": 20}), (3, {"0": 14, "1": 14})):
        n = 40 if p == 2 else 42
        for k in ("A0", "A1", "B0", "B1"):
            wins = rung_wins[k[1]]
            winners = [0] * wins + [1 + i % (p - 1) for i in range(n - wins)]
            frames.append(_games(k, p, range(n), winners, [30] * n))
    inp = _ladder_input(frames, [2, 3])
    _, _, answer = build_page(inp, compute(inp, section_tests()))
    text = str(answer)
    line = text[text.index("distance from fair across the ladder") :].split(".", 1)[0]
    assert "at 2 players, " in line and "at 3 players, not resolved at any rung" in line, line
    assert line.index("at 2 players") < line.index("at 3 players"), line
