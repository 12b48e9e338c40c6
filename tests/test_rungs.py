"""Skill-ladder rungs with their own deal count: ``{ bot = "search", games = 300 }`` and ``--ladder search:300``."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from conftest import run_cli
from kbsim.analysis.ladder import NOT_SHOWN, skill_verdict
from kbsim.analysis.metrics import Delta
from kbsim.analysis.reading import deals_words, study_input
from kbsim.analysis.report import write_report
from kbsim.sim.conditions import deals_at
from kbsim.sim.ladder_spec import Rung, parse_ladder
from kbsim.sim.study import StudyError, load_study, plan_study, run_study, study_from_dict, with_ladder

BASE = 'name = "r"\nplayers = [2]\ngames = 6\nseed = 5\n'
ARMS = '[[arms]]\nname = "base"\n[[arms]]\nname = "hand 7"\noptions = { hand_size = 7 }\n'


def _write(tmp_path, ladder: str, extra: str = "") -> object:
    path = tmp_path / "r.toml"
    path.write_text(BASE + f"ladder = {ladder}\n" + extra + ARMS, encoding="utf-8")
    return path


# ------------------------------------------------------------------ schema
def test_a_rung_may_carry_its_own_deal_count(tmp_path):
    st = load_study(_write(tmp_path, '["greedy", { bot = "random", games = 3 }]'))
    assert st.ladder == [Rung(bot="greedy"), Rung(bot="random", games=3)]


@pytest.mark.parametrize(
    ("ladder", "line"),
    [
        (
            '["greedy", { bot = "random", games = 9 }]',
            "r.toml: ladder #2.games: 9 is more than the study's games; expected at most 6",
        ),
        ('["greedy", { bot = "random", games = 0 }]', "r.toml: ladder #2.games: Input should be greater than or equal"),
        ('["greedy", { bot = "random", deals = 3 }]', "r.toml: ladder #2.deals: unknown field"),
        ('["greedy", { games = 3 }]', "r.toml: ladder #2.bot: Field required"),
        ("[5]", "r.toml: ladder #1: expected a bot spec"),
        ('["greedy", { bot = " ", games = 3 }]', "r.toml: ladder #2: expected a bot spec"),
    ],
)
def test_bad_rungs_get_one_line_naming_file_field_and_expectation(tmp_path, ladder, line):
    with pytest.raises(StudyError) as e:
        load_study(_write(tmp_path, ladder))
    assert len(e.value.lines) == 1 and e.value.lines[0].startswith(str(tmp_path / line.split(":")[0]))
    assert line.split(": ", 1)[1] in e.value.lines[0]


def _tune_doc(**extra) -> dict:
    """A tune study's document (6 deals, hand size searched), with ``extra`` fields."""
    tune = {"options": {"hand_size": {"low": 5, "high": 7}}, "targets": [{"measure": "first_seat", "minimise": True}]}
    return {"name": "t", "players": [2], "games": 6, "seed": 1, "tune": tune} | extra


def test_a_tune_study_refuses_a_ladder_with_deal_counts_too(tmp_path):
    doc = _tune_doc(ladder=[{"bot": "greedy", "games": 3}])
    with pytest.raises(StudyError, match="a tune study plays its arm's bots"):
        study_from_dict(doc, tmp_path / "t.toml")


def test_parse_ladder_keeps_commas_inside_parentheses_and_reads_deal_counts():
    rungs = parse_ladder("greedy, search(iterations=64,rollout=greedy):300 ,planner")
    assert [(r.bot, r.games) for r in rungs] == [
        ("greedy", None),
        ("search(iterations=64, rollout=greedy)", 300),
        ("planner", None),
    ]
    for bad, says in [
        ("greedy,random:0", "rung 2 (random:0): 0 deals"),
        ("greedy,:3", "rung 2"),
        ("greedy,(", "rung 2"),
        ("  ", "empty ladder"),
    ]:
        with pytest.raises(ValueError, match=r"^" + says.replace("(", r"\(").replace(")", r"\)")):
            parse_ladder(bad)


def test_with_ladder_takes_rungs_with_deal_counts_and_checks_them(tmp_path):
    st = load_study(_write(tmp_path, '["greedy"]'))
    st2 = with_ladder(st, [*parse_ladder("greedy,random:4")])
    assert st2.ladder == [Rung(bot="greedy"), Rung(bot="random", games=4)] and st2.source == st.source
    with pytest.raises(StudyError, match=r"ladder #2\.games: 7 is more than the study's games"):
        with_ladder(st, [*parse_ladder("greedy,random:7")])


# ------------------------------------------------------------------ plans
def _games(plan) -> dict:
    """(arm, rung) -> the deals per cell of its runs (one value per condition)."""
    out: dict = {}
    for r in plan.runs:
        out.setdefault((r.condition.arm, r.condition.rung), set()).add(r.spec.games)
    return {k: v.pop() for k, v in out.items() if len(v) == 1}


def test_plan_gives_each_rung_its_deals_and_a_quick_look_caps_every_rung(tmp_path):
    extra = 'restricted = ["turn.exchange.*"]\n[sweep]\noption = "min_hand_cards"\nvalues = [0, 1]\n'
    st = load_study(_write(tmp_path, '["greedy", { bot = "random", games = 3 }]', extra))
    st.arms.append(st.arms[0].model_copy(update={"name": "duel", "bots": ["greedy", "random"]}))
    plan = plan_study(st, records_dir=tmp_path / "rec")
    games = _games(plan)
    arms = {a for a, _ in games}
    assert len(arms) == 4 and any(a.startswith("barred from") for a in arms)  # the barred arm is on the ladder too
    for arm in arms - {"duel"}:
        assert games[(arm, "greedy")] == 6 and games[(arm, "random")] == 3
    assert games[("duel", None)] == 6  # a head-to-head arm is played as written, on the study's deals
    assert all(len({r.condition.sweep_value for r in plan.runs if r.condition.rung == "random"}) == 2 for _ in [0])
    assert {c.games for c in plan.conditions if c.rung == "random"} == {3}
    assert {c.games for c in plan.conditions if c.rung != "random"} == {None}
    quick = _games(plan_study(st, records_dir=tmp_path / "rec", games=2))
    assert set(quick.values()) == {2}  # -n 2: below every rung's count
    wide = _games(plan_study(st, records_dir=tmp_path / "rec", games=4))
    assert wide[("base", "greedy")] == 4 and wide[("base", "random")] == 3
    # a rung's count is part of its records' parameters: another count is another file, never a mix
    other = plan_study(with_ladder(st, [*parse_ladder("greedy,random:2")]), records_dir=tmp_path / "rec").runs
    assert {r.path for r in other if r.condition.rung == "random"}.isdisjoint(
        {r.path for r in plan.runs if r.condition.rung == "random"}
    )


def test_deals_at_gives_a_smaller_rung_the_same_share_of_its_deals():
    assert [deals_at(n, 10_000, 10_000) for n in (1, 1250, 10_000)] == [1, 1250, 10_000]
    assert [deals_at(n, 300, 10_000) for n in (1, 1250, 5000, 9999, 10_000)] == [1, 38, 150, 300, 300]
    assert deals_at(20, 3, 6) == 3 and deals_at(2, 3, 6) == 1


# ------------------------------------------------------------------ records and the page
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rungs")
    plan = plan_study(load_study(_write(tmp, '["greedy", { bot = "random", games = 3 }]')), records_dir=tmp / "rec")
    stats = run_study(plan, workers=1, backend="serial")
    return tmp, plan, stats


def test_the_small_rung_plays_the_first_deals_of_the_big_rungs_cells(played):
    _, plan, stats = played
    assert stats.games_played == 2 * 6 + 2 * 3
    df = study_input(plan).records
    by = {c.key: (c.arm, c.rung) for c in plan.conditions}
    seeds = {by[k]: g.sort("game_index")["seed"].to_list() for (k,), g in df.group_by("condition")}
    for arm in ("base", "hand 7"):
        assert len(seeds[(arm, "greedy")]) == 6 and seeds[(arm, "random")] == seeds[(arm, "greedy")][:3]


def test_the_page_says_each_rungs_deals(played):
    tmp, plan, _ = played
    inp = study_input(plan)
    assert inp.rung_games == {"random": 3}
    row = dict(inp.parameters)["deals per cell"]
    assert row == "6; random: 3 (the first 3 of the 6)"
    result = write_report(inp, tmp / "p.html")
    page = (tmp / "p.html").read_text(encoding="utf-8")
    assert "6 deals per cell with greedy, 3 with random" in page  # the Answer's "no resolved difference" line
    assert "random (3 deals)" in page and "greedy (6 deals)" in page  # the effects table's rung columns
    assert "Deals per cell differ between rungs (6 deals per cell with greedy, 3 with random)" in page
    assert (
        "The rungs played\n  different numbers of deals (6 deals per cell with greedy, 3 with random;" in page
    )  # Answer
    assert result is not None
    # rung-vs-rung comparisons pair on the deals both rungs played: the small rung's
    skill = [d for d in result.stats["deltas"] if {d["b"], d["a"]} <= {c.key for c in plan.conditions}]
    rung = {c.key: c.rung for c in plan.conditions}
    across = [d for d in skill if rung[d["b"]] != rung[d["a"]]]
    assert across and all(d["delta"].n <= 3 for d in across)  # (some measures count a subset of the games)
    turns = {(rung[d["b"]], rung[d["a"]]): d["delta"].n for d in skill if d["metric"] == "turns"}
    assert turns == {("greedy", "greedy"): 6, ("random", "random"): 3, ("random", "greedy"): 3}


def test_deals_words():
    assert deals_words({"greedy": 10_000, "planner": 10_000}) == "10,000 deals per cell"
    assert deals_words({"greedy": 10_000, "planner": 10_000, "search": 300}) == (
        "10,000 deals per cell with greedy and planner, 300 with search"
    )
    assert deals_words({None: 40}) == "40 deals per cell"


def _d(mean: float, resolved: bool, n: int) -> Delta:
    half = 0.01 if resolved else 0.5
    return Delta(mean, mean - half, mean + half, 0.1, n, p=0.001 if resolved else 0.6, p_adj=0.001 if resolved else 0.6)


def test_a_wide_small_rung_is_named_not_counted_as_the_same_effect():
    per_rung = [_d(0.05, True, 10_000), _d(0.05, True, 10_000), _d(0.04, False, 300)]
    dependence = [_d(0.0, False, 10_000), _d(-0.01, False, 300)]
    words = skill_verdict(per_rung, dependence, names=["greedy", "planner", "search"])
    # (the comparison's deals: "per cell" was wrong for an effect averaged over the player counts, handed case
    # "not resolved with search on only 1,200 deals per cell" on a page of 300 deals per cell)
    assert words == f"{NOT_SHOWN}: not resolved with search on only 300 deals"
    assert skill_verdict(per_rung, dependence) == NOT_SHOWN
    assert "holds at every rung" not in words
    same = [_d(0.05, True, 300), _d(0.04, False, 300)]
    assert skill_verdict(same, [_d(0.0, False, 300)], names=["a", "b"]) == f"{NOT_SHOWN}: not resolved with b"


# ------------------------------------------------------------------ the command line
def test_cli_ladder_with_a_deal_count_and_its_errors(tmp_path):
    (tmp_path / "r.toml").write_text(BASE + ARMS, encoding="utf-8")
    args = ("report", "r.toml", "--workers", "1", "--json", "-o", "p.html")
    ok = run_cli(*args, "--ladder", "greedy,random:3", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["games_played"] == 2 * 6 + 2 * 3
    for bad, says in [
        ("greedy,random:0", "--ladder greedy,random:0: rung 2 (random:0): 0 deals"),
        (
            "greedy,random:9",
            "--ladder greedy,random:9: ladder #2.games: 9 is more than the study's games; expected at most 6",
        ),
    ]:
        out = run_cli(*args, "--ladder", bad, cwd=tmp_path)
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and says in out.stderr, out.stderr


def test_cli_until_decided_plays_the_small_rung_in_proportion(tmp_path):
    (tmp_path / "r.toml").write_text(
        BASE.replace("games = 6", "games = 40")
        + 'ladder = ["greedy", { bot = "random", games = 10 }]\n'
        + "[until_decided]\nbatch = 20\nmargin = 0.01\n"
        + ARMS,
        encoding="utf-8",
    )
    out = run_cli("report", "r.toml", "--workers", "1", "--json", "-o", "p.html", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    stopping = info["stopping"]
    assert stopping["looks"] == [20, 40]  # a margin this narrow keeps something open until the cap
    assert stopping["rungs"] == {"random": {"deals": 10, "cap": 10}}
    assert info["games_played"] == 2 * 40 + 2 * 10
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "Played until decided: 40 deals per cell (random: 10 of its 10: the same share) after 2 looks" in page
    assert "40 (played until decided; cap 40); random: 10 of its 10 (the same share of its deals)" in page
    # the first look played half of each cell: 20 of the big rung's deals, 5 of the small rung's
    plan = plan_study(load_study(tmp_path / "r.toml"))
    look = study_input(plan, upto=20).records
    rung = {c.key: c.rung for c in plan.conditions}
    counts = look.group_by("condition").agg(pl.len()).iter_rows()
    assert {(rung[k], n) for k, n in counts} == {("greedy", 20), ("random", 5)}


# ------------------------------------------------------------------ an arm with its own deal count
def test_an_arm_may_carry_its_own_deal_count_and_plays_the_first_deals(tmp_path):
    extra = '[[arms]]\nname = "duel"\nbots = ["greedy", "random"]\ngames = 2\n'
    path = tmp_path / "r.toml"
    path.write_text(BASE + 'ladder = ["greedy", { bot = "random", games = 3 }]\n' + ARMS + extra, encoding="utf-8")
    st = load_study(path)
    plan = plan_study(st, records_dir=tmp_path / "rec")
    games = _games(plan)
    assert games[("duel", None)] == 2 and games[("base", "greedy")] == 6 and games[("base", "random")] == 3
    assert {c.arm: c.games for c in plan.conditions if c.rung is None} == {"duel": 2}
    assert _games(plan_study(st, records_dir=tmp_path / "rec", games=1))[("duel", None)] == 1  # -n caps it too
    run_study(plan, workers=1, backend="serial")
    inp = study_input(plan)
    row = dict(inp.parameters)["deals per cell"]
    assert row == "6; random: 3 (the first 3 of the 6); duel: 2 (the first 2 of the 6)"
    df = inp.records
    duel = [c.key for c in plan.conditions if c.arm == "duel"]
    assert sorted(set(df.filter(pl.col("condition").is_in(duel))["game_index"].to_list())) == [0, 1]
    # handed case: the off-ladder arm's own count leaked into the rungs' note as "None"
    write_report(inp, tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "Deals per cell differ between rungs (6 deals per cell with greedy, 3 with random)" in page
    assert not re.search(r"(with|and|, ) None\b", page)
    assert "What depends on the bot (base, 2 players)" in page and "ranges over the player counts" not in page
    # handed case: "Nothing on this page is resolved yet" came after the rankings it qualifies; now first
    answer = page.index("<h2>Answer</h2>")
    assert answer < page.index('id="nothing-resolved"') < page.index('<div class="block">', answer)


def test_an_arm_with_more_deals_than_the_study_gets_one_line(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(BASE + ARMS + '[[arms]]\nname = "duel"\nbots = ["greedy", "random"]\ngames = 9\n', "utf-8")
    with pytest.raises(StudyError) as e:
        load_study(path)
    assert e.value.lines == [
        f'{path}: arms #3 "duel".games: 9 is more than the study\'s games; expected at most 6 (an arm plays '
        "the first N of the study's deals)"
    ]


def test_every_arm_games_problem_is_its_own_line_and_an_arm_on_the_ladder_takes_the_rungs_deals(tmp_path):
    """Handed cases (adversarial pass): only the first of two arms over the study's games was reported; an arm on
    the ladder with its own games had its count credited to the rungs on the page. Both are refused now, each
    problem on its own line naming file, field, arm and what was expected."""
    path = tmp_path / "r.toml"
    arms = '[[arms]]\nname = "a"\ngames = 8\n[[arms]]\nname = "duel"\nbots = ["greedy", "random"]\ngames = 9\n'
    path.write_text(BASE + 'ladder = ["greedy", "random"]\n' + arms, "utf-8")
    with pytest.raises(StudyError) as e:
        load_study(path)
    assert [ln.split(": ", 2)[1] for ln in e.value.lines] == [
        'arms #1 "a".games',
        'arms #1 "a".games',
        'arms #2 "duel".games',
    ]
    assert all(ln.startswith(f"{path}: ") for ln in e.value.lines)
    assert "the arm is played on the ladder, whose rungs set its deals" in e.value.lines[1]
    # without a ladder a one-bot arm may have its own count, and the restricted-play arms made from the baseline
    # arm play the baseline's deals
    path.write_text(BASE + 'restricted = ["turn.exchange.*"]\n[[arms]]\nname = "a"\ngames = 3\n', "utf-8")
    plan = plan_study(load_study(path), records_dir=tmp_path / "rec")
    assert {r.spec.games for r in plan.runs} == {3} and len({c.arm for c in plan.conditions}) > 1


def test_a_tune_study_refuses_an_arm_with_its_own_deals(tmp_path):
    """Handed case: a tune study's arm with games = 10 failed with a message about its 2-deal probe study."""
    doc = _tune_doc(games=30, arms=[{"name": "base", "games": 10}])
    with pytest.raises(StudyError) as e:
        study_from_dict(doc, "t.toml")
    assert e.value.lines == [
        't.toml: arms #1 "base".games: a tune study sizes its own rungs of deals (games); leave out the arm\'s games'
    ]


def test_the_cli_counts_one_run_in_the_singular(tmp_path):
    """Handed case (new-user pass): "1 runs reused"."""
    (tmp_path / "one.toml").write_text(
        'name = "one"\nplayers = [2]\ngames = 2\nseed = 5\n[[arms]]\nname = "a"\n', "utf-8"
    )
    args = ("report", "one.toml", "--workers", "1", "-o", "p.html", "--force")
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "played now in 1 of 1 run, 0 runs reused" in first.stdout
    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0 and "played now in 0 of 1 run, 1 run reused" in again.stdout, again.stdout
