"""Balance reports: study files, cells reused from disk, paired statistics, the HTML page, a real browser."""

from __future__ import annotations

import base64
import json
import math
import re

import polars as pl
import pytest

import kbsim.records
from conftest import REPO, PageRefs, run_cli
from conftest_browser import browser, needs_chromium
from kbsim.analysis.arms import compute
from kbsim.analysis.characters import character_lift, character_plays, has_character_data
from kbsim.analysis.metrics import paired, unpaired_rate
from kbsim.analysis.reading import ReportError, ReportInput, compare_input
from kbsim.analysis.report import write_report
from kbsim.sim.conditions import Condition
from kbsim.sim.study import (
    StudyError,
    available_studies,
    load_study,
    plan_study,
    rotations,
    study_from_dict,
)

HOSTILE = "<script>alert(1)</script>"
GAMES = 60
TINY = f"""
name = "tiny"
title = "Tiny study & friends"
question = "Does a larger hand shorten the game?"
players = [2, 3]
games = {GAMES}
seed = 77

[[arms]]
name = "base"
summary = "the base game"

[[arms]]
name = "{HOSTILE}"
summary = "hand of seven <b>cards</b>"
options = {{ hand_size = 7 }}
"""


def _user_error(p, *mentions):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kbsim: error:"), p.stderr
    for m in mentions:
        assert m in lines[0], (m, lines[0])
    return lines[0]


# ------------------------------------------------------------------ study files
def _write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


BASE_DOC = 'name = "x"\nplayers = [2]\ngames = 10\nseed = 1\n[[arms]]\nname = "a"\n'
BAD_STUDIES = {
    "unknown-field": (BASE_DOC + "colour = 1\n", 'arms #1 "a".colour: unknown field'),
    "missing-arms": ('name = "x"\nplayers = [2]\ngames = 10\nseed = 1\n', "arms: Field required"),
    "games-zero": (BASE_DOC.replace("games = 10", "games = 0"), "games: "),
    "negative-seed": (BASE_DOC.replace("seed = 1", "seed = -1"), "seed: "),
    "bad-name": (BASE_DOC.replace('name = "x"', 'name = "../evil"'), "name: "),
    "duplicate-arm": (BASE_DOC + '[[arms]]\nname = "a"\n', "arms #2.name: 'a' is already the name of arms #1"),
    "unknown-baseline": (BASE_DOC.replace("seed = 1", 'seed = 1\nbaseline = "zz"'), "baseline: 'zz'"),
    "duplicate-players": (BASE_DOC.replace("[2]", "[2, 2]"), "players: every player count"),
    "sweep-baseline": (BASE_DOC + '[sweep]\noption = "hand_size"\nvalues = [5, 6]\nbaseline = 9\n', "sweep.baseline"),
    "sweep-conflict": (
        BASE_DOC + 'options = { hand_size = 5 }\n[sweep]\noption = "hand_size"\nvalues = [5, 6]\n',
        "arms #1 \"a\".options: sets 'hand_size'",
    ),
    "toml-syntax": (BASE_DOC + "oops = [\n", "TOML syntax error"),
    "empty-bots": (BASE_DOC + "bots = []\n", 'arms #1 "a".bots'),
}


@pytest.mark.parametrize("case", sorted(BAD_STUDIES))
def test_study_validation_errors_name_file_and_field(tmp_path, case):
    text, expected = BAD_STUDIES[case]
    path = _write(tmp_path, text)
    with pytest.raises(StudyError) as e:
        load_study(path)
    msg = e.value.one_line()
    assert str(path) in msg and expected in msg, msg


def test_yaml_study_and_lookup_without_suffix(tmp_path):
    path = _write(
        tmp_path,
        "name: y\nplayers: [2, 3]\ngames: 5\nseed: 3\narms:\n  - name: a\n    variants: "
        "rebuild-either-end\n    bots: [greedy, random]\n",
        "y.yaml",
    )
    st = load_study(tmp_path / "y")  # suffix found
    assert st.source == path and st.arms[0].variants == ["rebuild-either-end"]
    assert st.arms[0].lineup(3) == ("greedy", "random", "greedy")
    with pytest.raises(StudyError, match="no such study file"):
        load_study(tmp_path / "nope")


@pytest.mark.parametrize(
    "arm, mentions",
    [
        ({"name": "complete", "variants": ["no-such-variant"]}, ['arms #2 "complete"', "no-such-variant"]),
        ({"name": "b", "bots": ["greedy", "nosuchbot"]}, ['arms #2 "b"', "nosuchbot", "bots"]),
        ({"name": "o", "options": {"no_such_option": 1}}, ['arms #2 "o"', "no_such_option"]),
        ({"name": "v", "options": {"rebuild_segments": "middle"}}, ['arms #2 "v"', "middle"]),
    ],
)
def test_plan_rejects_unknown_names(tmp_path, arm, mentions):
    st = study_from_dict(
        {"name": "x", "players": [2], "games": 5, "seed": 1, "arms": [{"name": "ok"}, arm]}, tmp_path / "x.toml"
    )
    with pytest.raises(StudyError) as e:
        plan_study(st)
    msg = e.value.one_line()
    assert msg.startswith(str(tmp_path / "x.toml")), msg
    for m in mentions:
        assert m in msg, (m, msg)


def test_plan_rejects_player_count_and_game(tmp_path):
    st = study_from_dict({"name": "x", "players": [2, 9], "games": 5, "seed": 1, "arms": [{"name": "a"}]}, "x.toml")
    with pytest.raises(StudyError, match="players: 9 is not allowed"):
        plan_study(st)
    st = study_from_dict(
        {"name": "x", "game": "nosuchgame", "players": [2], "games": 5, "seed": 1, "arms": [{"name": "a"}]}, "x.toml"
    )
    with pytest.raises(StudyError, match="x.toml: game: unknown game 'nosuchgame'"):
        plan_study(st)


def test_cli_report_unknown_variant_is_one_line(tmp_path):
    path = _write(tmp_path, BASE_DOC + 'variants = ["characters-that-do-not-exist"]\n', "future.toml")
    p = run_cli("report", str(path), cwd=tmp_path)
    _user_error(p, "future.toml", 'arms #1 "a"', "characters-that-do-not-exist")
    assert not (tmp_path / "_build").exists()  # nothing played, nothing written


def test_shipped_studies_validate():
    names = available_studies()
    for required in ("seat-advantage", "variants", "characters", "bots", "sweep-hand-size"):
        assert required in names
    for name in names:
        st = load_study(REPO / "reports" / f"{name}.toml")
        try:
            plan = plan_study(st)
        except StudyError as e:  # only for pieces still being built (a variant, option or bot)
            assert str(REPO / "reports" / f"{name}.toml") in str(e) and "arm '" in str(e), str(e)
            continue
        assert plan.runs and all(r.spec.seed == st.seed for r in plan.runs)
    sweep = plan_study(load_study(REPO / "reports" / "sweep-hand-size.toml"))
    assert {c.sweep_value for c in sweep.conditions} == {5, 6, 7}
    assert sweep.ladder == ["greedy", "planner", "search"]
    key = {(c.sweep_value, c.rung): c.key for c in sweep.conditions}
    assert len(key) == 9  # 3 hand sizes x 3 rungs
    assert {c.games for c in sweep.conditions if c.rung == "search"} == {300}  # (the search rung's own deals)
    # at each rung, 5 and 7 against the baseline 6; then each hand size at each stronger rung against greedy
    want = [(key[(v, r)], key[(6, r)]) for r in ("greedy", "planner", "search") for v in (5, 7)]
    want += [(key[(v, r)], key[(v, "greedy")]) for r in ("planner", "search") for v in (5, 6, 7)]
    assert sweep.comparisons == want


def test_rotations_are_distinct_and_balanced():
    assert rotations(("greedy",) * 4, True) == [("greedy",) * 4]
    assert rotations(("greedy", "random"), True) == [("greedy", "random"), ("random", "greedy")]
    four = rotations(("g", "r", "g", "r"), True)
    assert four == [("g", "r", "g", "r"), ("r", "g", "r", "g")]
    assert rotations(("g", "r", "g"), False) == [("g", "r", "g")]
    assert len(rotations(("g", "r", "g"), True)) == 3


def test_plan_rotates_mixed_lineups_on_the_same_deals(tmp_path):
    st = study_from_dict(
        {
            "name": "b",
            "players": [2, 3],
            "games": 7,
            "seed": 9,
            "arms": [{"name": "g"}, {"name": "gr", "bots": ["greedy", "random"]}],
        },
        tmp_path / "b.toml",
    )
    plan = plan_study(st)
    assert plan.records_dir == tmp_path / "_build" / "records" / "b"
    mixed = [(r.players, r.spec.bots) for r in plan.runs if r.condition.arm == "gr"]
    assert mixed == [
        (2, ("greedy", "random")),
        (2, ("random", "greedy")),
        (3, ("greedy", "random", "greedy")),
        (3, ("random", "greedy", "greedy")),
        (3, ("greedy", "greedy", "random")),
    ]
    assert {r.spec.seed for r in plan.runs} == {9} and {r.spec.games for r in plan.runs} == {7}
    assert len({r.path for r in plan.runs}) == len(plan.runs) == 7
    assert plan.comparisons == [(plan.conditions[1].key, plan.conditions[0].key)]


def test_sweep_study_in_process(tmp_path):
    from kbsim.analysis.reading import study_input
    from kbsim.sim.study import run_study

    st = study_from_dict(
        {
            "name": "sw",
            "players": [2],
            "games": 30,
            "seed": 4,
            "arms": [{"name": "base"}],
            "sweep": {"option": "hand_size", "values": [5, 6], "baseline": 6},
        },
        tmp_path / "sw.toml",
    )
    plan = plan_study(st)
    seen = []
    stats = run_study(plan, workers=1, progress=lambda done, total: seen.append((done, total)))
    assert stats.games_played == 60 and seen[0] == (0, 60) and seen[-1] == (60, 60)
    assert run_study(plan, workers=1).reused == 2
    res = write_report(study_input(plan), tmp_path / "sw.html")
    page = res.path.read_text(encoding="utf-8")
    assert "Sweep of hand_size" in page and 'id="fig-1-sweep"' in page and 'id="fig-0-deltas"' in page
    assert [c.label for c in plan.conditions] == ["hand size 5", "hand size 6"]  # the option in words
    assert plan.comparisons == [(plan.conditions[0].key, plan.conditions[1].key)]


# ------------------------------------------------------------------ paired statistics
def test_paired_delta_hand_computed():
    a = [1, 0, 1, 1, 0]
    b = [0, 0, 1, 0, 0]
    d = paired([y - x for x, y in zip(a, b, strict=True)], binary=True)  # differences b - a: -1, 0, 0, -1, 0
    assert d.n == 5 and d.mean == pytest.approx(-0.4)
    assert d.sd == pytest.approx(math.sqrt(0.3))  # sum of squares 1.2 / (n - 1)
    half = 2.7764451051977987 * math.sqrt(0.3) / math.sqrt(5)  # t(0.975, 4 df)
    # the t interval, cut at -100 pp: a difference of two 0/1 outcomes cannot be below -1
    assert (d.low, d.high) == (pytest.approx(max(-1.0, -0.4 - half)), pytest.approx(-0.4 + half))
    assert d.low == -1.0
    raw = paired([y - x for x, y in zip(a, b, strict=True)])  # not declared 0/1: the plain t interval
    assert (raw.low, raw.high) == (pytest.approx(-0.4 - half), pytest.approx(-0.4 + half))
    assert d.test.startswith("exact sign test") and d.discordant == 2 and d.p == pytest.approx(0.5)
    assert not d.resolved
    assert paired([-1] * 10).resolved  # sd 0, mean -1


def test_newcombe_interval_matches_published_example():
    # Newcombe (1998), Stat Med 17:873, example (a): 56/70 - 48/80, method 10: 0.0524 to 0.3339
    d = unpaired_rate(56, 70, 48, 80)
    assert d.mean == pytest.approx(0.2) and not d.paired
    assert d.low == pytest.approx(0.0524, abs=1e-4) and d.high == pytest.approx(0.3339, abs=1e-4)


def _records(rows):
    """A records frame from (condition, players, seed, bots, winners, end_reason, turns) tuples."""
    return pl.DataFrame(
        [
            {
                "condition": c,
                "players": p,
                "seed": s,
                "game_index": s,
                "bots": list(b),
                "winners": w,
                "end_reason": e,
                "turns": t,
            }
            for c, p, s, b, w, e, t in rows
        ],
        schema_overrides={"winners": pl.List(pl.Int8), "players": pl.Int8},
    )


def _input(df, conditions, comparisons=()):
    return ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conditions,
        comparisons=list(comparisons),
        sweep=None,
        records=df,
    )


def test_report_deltas_pair_deals_and_average_rotations():
    g2, gr, rg = ("greedy", "greedy"), ("greedy", "random"), ("random", "greedy")
    rows = [  # arm A: greedy only; arm B: a mixed lineup in two rotations on the same deals
        ("A", 2, 1, g2, [0], "won", 10),
        ("A", 2, 2, g2, [1], "won", 20),
        ("A", 2, 3, g2, [0, 1], "stalemate", 30),
        ("B", 2, 1, gr, [0], "won", 12),
        ("B", 2, 1, rg, [1], "won", 16),
        ("B", 2, 2, gr, [0], "won", 20),
        ("B", 2, 2, rg, [0], "won", 22),
        ("B", 2, 3, gr, [], "turn_limit", 40),
        ("B", 2, 3, rg, [1], "stalemate", 30),
        ("B", 2, 4, gr, [0], "won", 5),  # deal 4 has no partner in A: not paired
    ]
    inp = _input(_records(rows), [Condition("A", "A", "A"), Condition("B", "B", "B")], [("B", "A")])
    st = compute(inp)
    d = {x["metric"]: x["delta"] for x in st["deltas"]}
    # per deal, B averaged over rotations: stalemate = [0, 0, 0.5], turns = [14, 21, 35]; A: stalemate = [0, 0, 1]
    ref_stale = paired([0, 0, -0.5], binary=True)
    ref_turns = paired([4, 1, 5])
    assert d["stalemate"].n == 3 and d["stalemate"].mean == pytest.approx(ref_stale.mean)
    assert d["stalemate"].sd == pytest.approx(ref_stale.sd)
    # B seats two bots: its seat 0 wins mix the seat with the bot holding it (greedy wins from either seat), so
    # its seat-based measures are not compared with A's (the bots' shares answer for such an arm)
    assert "seat0" not in d and "seat_gap" not in d and st["head_to_head"] == ["B"]
    assert d["turns"].mean == pytest.approx(ref_turns.mean) and d["turns"].low == pytest.approx(ref_turns.low)
    assert d["shared"].mean == pytest.approx(-1 / 3)
    g = st["groups"][("A", 2)]
    # a shared win is never a seat's win: 2 sole wins + 1 shared game
    assert [s["k"] for s in g["seats"]] == [1, 1] and g["shared"]["k"] == 1 and g["seats"][0]["n"] == 3
    gb = st["groups"][("B", 2)]
    assert gb["no_winner"]["k"] == 1 and gb["turn_limit"]["k"] == 1 and gb["deals"] == 4
    bots = {(b["bot"]): b for b in st["bots"] if b["condition"] == "B"}
    assert bots["greedy"]["k"] == 5 and bots["random"]["k"] == 1 and bots["greedy"]["fair"] == 0.5


# ------------------------------------------------------------------ characters (documented column shape)
def _char_frame():
    plays = pl.List(pl.Struct({"seat": pl.Int8, "character": pl.String, "plays": pl.Int16}))
    rows = [
        (
            "C",
            2,
            1,
            [0],
            [{"seat": 0, "character": "ragna", "plays": 2}, {"seat": 1, "character": "edgar", "plays": 1}],
        ),
        ("C", 2, 2, [1], [{"seat": 1, "character": "ragna", "plays": 1}]),
        ("C", 2, 3, [0, 1], [{"seat": 0, "character": "edgar", "plays": 1}]),
        ("C", 2, 4, [1], []),
        ("N", 2, 1, [0], []),  # an arm without characters: empty lists, no character section for it
    ]
    return pl.DataFrame(
        [
            {
                "condition": c,
                "players": p,
                "seed": s,
                "game_index": s,
                "bots": ["greedy", "greedy"],
                "winners": w,
                "end_reason": "won" if len(w) == 1 else "stalemate",
                "turns": 20,
                "character_plays": cp,
            }
            for c, p, s, w, cp in rows
        ],
        schema_overrides={"winners": pl.List(pl.Int8), "character_plays": plays},
    )


def test_character_tables_from_synthetic_records():
    df = _char_frame()
    assert has_character_data(df)
    assert not has_character_data(df.filter(pl.col("condition") == "N"))
    assert not has_character_data(df.drop("character_plays"))
    plays = {r["character"]: r for r in character_plays(df).to_dicts()}
    assert set(plays) == {"edgar", "ragna"} and {r["condition"] for r in plays.values()} == {"C"}
    assert plays["ragna"]["plays"] == 3 and plays["ragna"]["games"] == 4 and plays["ragna"]["games_played"] == 2
    assert plays["ragna"]["per_game"] == pytest.approx(0.75)
    # per-game ragna plays 2, 1, 0, 0: sd = sqrt(((1.25^2) + 0.25^2 + 2 * 0.75^2) / 3)
    sd = math.sqrt((1.25**2 + 0.25**2 + 2 * 0.75**2) / 3)
    assert plays["ragna"]["per_game_high"] - 0.75 == pytest.approx(1.959963984540054 * sd / 2)
    assert plays["ragna"]["per_game_low"] == 0.0  # 0.75 - 0.94 would be below 0: a count of plays, cut at 0
    lift = {r["character"]: r for r in character_lift(df).to_dicts()}
    # 8 seat-games, sole wins: g1 seat 0, g2 seat 1, g4 seat 1 (g3 is shared: nobody's win)
    r = lift["ragna"]  # played by g1 seat 0 (won) and g2 seat 1 (won)
    assert (r["n_played"], r["wins_played"], r["n_not"], r["wins_not"]) == (2, 2, 6, 1)
    assert r["lift"] == pytest.approx(1 - 1 / 6)
    e = lift["edgar"]  # played by g1 seat 1 (lost) and g3 seat 0 (shared win: not a win)
    assert (e["n_played"], e["wins_played"], e["n_not"], e["wins_not"]) == (2, 0, 6, 3)
    assert e["low"] < e["lift"] < e["high"]


def test_character_sections_render(tmp_path):
    df = _char_frame()
    res = write_report(
        _input(df, [Condition("C", "complete", "complete"), Condition("N", "base", "base")], [("C", "N")]),
        tmp_path / "c.html",
    )
    page = res.path.read_text(encoding="utf-8")
    assert "Plays per character" in page and "Win-rate lift of playing a character" in page
    assert 'id="fig-' in page and "char-lift" in page and "ragna" in page
    no_chars = write_report(
        _input(df.filter(pl.col("condition") == "N"), [Condition("N", "base", "base")]), tmp_path / "n.html"
    ).path.read_text(encoding="utf-8")
    assert "Plays per character" not in no_chars


# ------------------------------------------------------------------ a tiny study end to end (CLI)
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny")
    study = d / "tiny.toml"
    study.write_text(TINY, encoding="utf-8")
    out = d / "page.html"
    first = run_cli("report", str(study), "-o", str(out), "--records", str(d / "rec"), "--workers", "2", cwd=d)
    assert first.returncode == 0, first.stderr
    html_first = out.read_text(encoding="utf-8")
    stamps = {p.name: p.stat().st_mtime_ns for p in (d / "rec").glob("*.parquet")}
    second = run_cli("report", str(study), "-o", str(out), "--records", str(d / "rec"), "--json", "--force", cwd=d)
    assert second.returncode == 0, second.stderr
    return {"dir": d, "out": out, "first": first, "second": second, "html_first": html_first, "stamps": stamps}


def test_tiny_study_plays_then_reuses_records(tiny):
    assert f"{2 * 2 * GAMES:,} played now in 4 of 4 runs, 0 runs reused" in tiny["first"].stdout
    assert f"report: {tiny['out']}" in tiny["first"].stdout
    assert "differences B − A (paired on the same deals" in tiny["first"].stdout
    info = json.loads(tiny["second"].stdout)
    assert info["games_played"] == 0 and info["runs_reused"] == 4 and info["runs_played"] == 0
    assert info["html"] == str(tiny["out"]) and info["bytes"] < 10_000_000
    rec = tiny["dir"] / "rec"
    assert {p.name: p.stat().st_mtime_ns for p in rec.glob("*.parquet")} == tiny["stamps"]  # nothing rewritten
    assert not list(rec.glob("*.parts"))
    # every arm played the same deals (common random numbers)
    df = kbsim.records.load(rec)
    assert df.height == 2 * 2 * GAMES
    seeds = df.group_by("options", "players").agg(pl.col("seed").sort()).sort("players")
    for p in (2, 3):
        sets = seeds.filter(pl.col("players") == p)["seed"].to_list()
        assert len(sets) == 2 and sets[0] == sets[1]


def test_tiny_study_deltas_in_json(tiny):
    info = json.loads(tiny["second"].stdout)
    deltas = [d for d in info["deltas"] if d["metric"] == "turns"]
    assert {d["players"] for d in deltas} == {2, 3}
    assert all(d["n"] == GAMES for d in deltas)
    for d in info["deltas"]:
        # resolved after Holm's adjustment implies resolved alone; a t interval excludes 0 exactly when raw p < 0.05
        assert not d["resolved"] or d["resolved_raw"]
        if d["test"] == "paired t":
            assert d["resolved_raw"] == (d["low"] is not None and (d["low"] > 0 or d["high"] < 0)), d


def test_page_is_self_contained_and_escaped(tiny):
    page = tiny["out"].read_text(encoding="utf-8")
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1  # one bundle for every figure
    refs = PageRefs()
    refs.feed(page)
    external = [(t, u) for t, u in refs.urls if re.match(r"^(https?:)?//", u)]
    assert not external, external
    assert refs.scripts == 2  # plotly.js and the small drawing script
    assert HOSTILE not in page and "<b>cards</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text, in the tables
    assert "hand of seven &lt;b&gt;cards&lt;/b&gt;" in page
    assert "Tiny study &amp; friends" in page and "kbsim 0." in page
    assert "hand_size = 7" in page  # the rules options per arm
    for fig in ("seats", "end", "turns-box", "turns-hist", "deltas"):
        assert f'-{fig}"' in page
    assert len(page.encode()) < 10_000_000


# ------------------------------------------------------------------ compare
def _write_run(path, seed=5, players=3, games=50, **options):
    """A records file as ``kbsim run`` writes it (in process, to keep the test fast)."""
    from kbsim import __version__
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.records import write_records
    from kbsim.rules.loader import load_rules
    from kbsim.sim.records import to_table
    from kbsim.sim.runner import Backend, RunSpec, run_games

    spec = RunSpec(
        game=compile_rules(load_rules("kingsbridge", [], options)),
        players=players,
        bots=("greedy",) * players,
        games=games,
        seed=seed,
    )
    write_records(to_table(run_games(spec, Backend()), {"version": __version__, "run": spec.parameters()}), path)


def test_cli_compare_two_runs(tmp_path):
    _write_run(tmp_path / "a.parquet")
    _write_run(tmp_path / "b.parquet", hand_size=5)
    p = run_cli("compare", "a.parquet", "b.parquet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "reports" / "_build" / "compare-a-b.html"  # the default location
    assert f"report: {out.relative_to(tmp_path)}" in p.stdout
    assert "base (hand_size=6), 3 players: 50 games" in p.stdout
    assert "base (hand_size=5) − base (hand_size=6), 3 players, turns per game" in p.stdout
    page = out.read_text(encoding="utf-8")
    assert page.count("* plotly.js v") == 1 and "Paired differences" in page
    _user_error(run_cli("compare", "a.parquet", "missing.parquet", "-o", "x.html", cwd=tmp_path), "missing.parquet")
    assert not (tmp_path / "x.html").exists()


def test_cli_compare_says_when_the_files_form_one_arm(tmp_path):
    _write_run(tmp_path / "a.parquet", games=10)
    _write_run(tmp_path / "b.parquet", games=10, seed=9)  # same rules and bots, other deals: pooled into one arm
    p = run_cli("compare", "a.parquet", "b.parquet", "-o", "one.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "they form one arm" in p.stdout and "nothing to compare" in p.stdout
    p = run_cli("compare", "a.parquet", "-o", "single.html", cwd=tmp_path)  # one file: no note
    assert p.returncode == 0, p.stderr
    assert "nothing to compare" not in p.stdout


def test_compare_input_rejects_other_files(tmp_path):
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(ReportError, match="junk.parquet: not a Parquet file"):
        compare_input([tmp_path / "junk.parquet"])
    pl.DataFrame({"x": [1]}).write_parquet(tmp_path / "other.parquet")
    with pytest.raises(ReportError, match="other.parquet: not kbsim records"):
        compare_input([tmp_path / "other.parquet"])


def test_compare_merges_files_of_one_arm(tmp_path):
    _write_run(tmp_path / "a2.parquet", players=2, games=20)
    _write_run(tmp_path / "a3.parquet", players=3, games=20)
    _write_run(tmp_path / "b3.parquet", players=3, games=20, seed=6, rebuild_segments="either")
    inp = compare_input(
        [tmp_path / "a2.parquet", tmp_path / "a3.parquet", tmp_path / "a3.parquet", tmp_path / "b3.parquet"]
    )
    assert [c.label for c in inp.conditions] == ["base (rebuild_segments=end)", "base (rebuild_segments=either)"]
    assert inp.conditions[1].changed == {"rebuild_segments": "either"} and inp.comparisons == [
        (inp.conditions[1].key, inp.conditions[0].key)
    ]
    assert inp.records.height == 60  # the file given twice is counted once
    st = compute(inp)
    d = [x for x in st["deltas"] if x["players"] == 3 and x["metric"] == "turns"][0]["delta"]
    # different seeds: no common deals, so the arms are compared as independent samples (Welch's t)
    from scipy import stats

    df = inp.records.filter(pl.col("players") == 3)
    tb = df.filter(pl.col("condition") == inp.conditions[1].key)["turns"].to_numpy()
    ta = df.filter(pl.col("condition") == inp.conditions[0].key)["turns"].to_numpy()
    ref = stats.ttest_ind(tb, ta, equal_var=False)
    assert not d.paired and d.test == "Welch t" and (d.n_a, d.n_b) == (20, 20)
    assert d.mean == pytest.approx(tb.mean() - ta.mean()) and d.p == pytest.approx(ref.pvalue)
    s0 = [x for x in st["deltas"] if x["players"] == 3 and x["metric"] == "seat0"][0]["delta"]
    assert not s0.paired and s0.test.startswith("Newcombe") and s0.n_a == 20
    page = write_report(inp, tmp_path / "cmp.html").path.read_text()
    assert "independent samples" in page and "in every arm" not in page


def test_records_load_file_folder_and_list(tmp_path, tiny):
    rec = tiny["dir"] / "rec"
    files = sorted(rec.glob("*.parquet"))
    assert kbsim.records.load(files[0]).height == GAMES
    assert kbsim.records.load(files[:2]).height == 2 * GAMES
    with pytest.raises(kbsim.records.RecordsError, match="no such records file"):
        kbsim.records.load(tmp_path / "none.parquet")


def test_records_to_pandas(tiny):
    import pandas  # noqa: F401 - in the dev extra: the README promise is tested, never skipped

    files = sorted((tiny["dir"] / "rec").glob("*.parquet"))
    assert len(kbsim.records.load(files[0]).to_pandas()) == GAMES


# ------------------------------------------------------------------ a real browser
@needs_chromium
def test_page_renders_in_headless_chromium(tiny):
    with browser() as driver:
        driver.get(tiny["out"].resolve().as_uri())
        plots = driver.execute_script(
            "return Array.from(document.querySelectorAll('div.kb-plot')).map(function (el) {"
            "  return {id: el.id, traces: (el._fullData || []).length,"
            "          drawn: el.querySelectorAll('g.trace, g.points path, path.box').length,"
            "          svg: el.querySelectorAll('svg.main-svg').length}; })"
        )
        assert len(plots) >= 5, plots
        for p in plots:
            assert p["traces"] > 0 and p["drawn"] > 0 and p["svg"] > 0, p
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        # a few screens at 1,400 px: the Answer first, long tables and figures folded, player counts behind tabs
        assert driver.execute_script("return document.documentElement.scrollHeight") < 4000
        first = driver.execute_script("return document.querySelector('section').id")
        assert first == "answer"
        shown = "return Array.from(document.querySelectorAll('#summary .tab-panel')).map(p => p.offsetHeight > 0)"
        driver.execute_script("document.querySelector('#summary details').open = true")
        assert driver.execute_script(shown) == [True, False]  # the first player count's tab
        driver.execute_script("document.querySelector('#summary label.tab-label:nth-of-type(2)').click()")
        assert driver.execute_script(shown) == [False, True]  # plain HTML and CSS: a click shows the other count
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1400, min(int(height), 16000))
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        artifacts = REPO / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        png = base64.b64decode(shot["data"])
        (artifacts / "report-chromium.png").write_bytes(png)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
