"""``kbsim tune``: the [tune] section, its checks against the rules, the measures, the search and its answer."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, PageRefs, run_cli
from kbsim.analysis import metrics as M
from kbsim.sim.run import make_backend
from kbsim.sim.study import StudyError, load_study, study_from_dict
from kbsim.sim.tune_spec import Target
from kbsim.tune import plan_tuning, run_tuning
from kbsim.tune.measures import DealStats, Objective, Resamples, loss, measure
from kbsim.tune.page import as_json, delta_text, recommendation_words, write_page
from kbsim.tune.search import rung_deals

DATA = Path(__file__).resolve().parent / "data" / "tune"
MATCH = DATA / "rotation-match.yaml"


def _study(tmp_path: Path, body: str, name: str = "t.toml") -> Path:
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


HEAD = 'name = "t"\ngame = "kingsbridge"\nplayers = [4]\ngames = 40\nseed = 5\n'
TUNE = "[tune]\ntrials = 3\n"
OPTS = "[tune.options]\nhand_size = { low = 5, high = 7 }\n"
GAP = '[[tune.targets]]\nmeasure = "seat_gap"\nminimise = true\n'

# a broken study -> words its one line must hold
BAD = {
    "unknown-option": (HEAD + TUNE + "[tune.options]\nhand_sise = { low = 5, high = 7 }\n" + GAP, "unknown option"),
    "above-schema-bound": (
        HEAD + TUNE + "[tune.options]\nhand_size = { low = 5, high = 40 }\n" + GAP,
        "tune.options.hand_size.high: 40 is refused by the rules: setup.hand_size: Input should be less than or "
        "equal to 30",
    ),
    "past-a-rules-check": (
        HEAD + TUNE + "[tune.options]\nhand_size = { low = 5, high = 25 }\n" + GAP,
        "hand_size.high: 25 is refused by the rules",
    ),
    "not-a-choice": (
        HEAD + TUNE + '[tune.options]\nrebuild_segments = { choices = ["end", "middle"] }\n' + GAP,
        "rebuild_segments.choices: middle is refused by the rules",
    ),
    "range-of-a-choice": (
        HEAD + TUNE + "[tune.options]\nrebuild_segments = { low = 1, high = 2 }\n" + GAP,
        "rebuild_segments takes a text (now end), not a range",
    ),
    "float-for-an-int": (
        HEAD + TUNE + "[tune.options]\nhand_size = { low = 5.5, high = 7 }\n" + GAP,
        "hand_size takes whole numbers",
    ),
    "leaves-out-the-default": (
        HEAD + TUNE + "[tune.options]\nhand_size = { low = 7, high = 8 }\n" + GAP,
        "leaves out 6, the value the search starts from",
    ),
    "no-option": (HEAD + TUNE + GAP, "tune: options: no option to search"),
    "too-many-deals": (HEAD.replace("games = 40", "games = 5000000") + TUNE + OPTS + GAP, "at most 1,000,000 deals"),
    "too-many-fresh-deals": (
        HEAD + TUNE + OPTS + GAP + "[tune.verify]\nmax_deals = 5000000\n",
        "tune.verify.max_deals",
    ),
    "brute-force-too-many": (
        HEAD
        + TUNE
        + 'sampler = "brute-force"\n[tune.options]\nhand_size = { low = 1, high = 19 }\n'
        + "turn_limit = { low = 1000, high = 9000 }\n"
        + GAP,
        "brute-force tries every setting, but they make 152,019",
    ),
    "empty-options": (HEAD + TUNE + "[tune.options]\n" + GAP, "no option to search"),
    "no-target": (HEAD + TUNE + OPTS, "tune.targets: Field required"),
    "two-goals": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "seat_gap"\nminimise = true\nat_most = 0.1\n',
        "exactly one goal",
    ),
    "share-in-percent": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "stalemate"\nat_most = 5\n',
        "write shares as fractions",
    ),
    "two-objectives": (
        HEAD + TUNE + 'combine = "constraints"\n' + OPTS + GAP + GAP.replace("seat_gap", "turns"),
        "exactly one target with minimise or maximise",
    ),
    "unmeasurable-score": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "score"\nmaximise = true\n',
        "hold no team score",
    ),
    "unmeasurable-score-gap": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "score_gap"\nminimise = true\n',
        "no points per seat",
    ),
    "character-not-in-play": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "usage"\ncharacter = "edgar"\nat_least = 0.1\n',
        "character 'edgar' is not in play",
    ),
    "rule-not-counted": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "usage"\nrule = "no-such-rule"\nat_least = 0.1\n',
        "count no rule 'no-such-rule'",
    ),
    "bot-not-playing": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "wins"\nbot = "planner"\nat_least = 0.3\n',
        "bot 'planner' does not play",
    ),
    "unknown-skill-bot": (HEAD + TUNE + OPTS + GAP + '[tune.skill]\nbots = "oracle"\n', "unknown bot 'oracle'"),
    "target-players": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "seat_gap"\nminimise = true\nplayers = [3]\n',
        "tune.targets #1.players: [3] are not among the study's players",
    ),
    # the input limits every study field obeys (kbsim.strict_io): names, lists
    "long-option-name": (
        HEAD + TUNE + "[tune.options]\n" + "o" * 201 + " = { low = 5, high = 7 }\n" + GAP,
        "tune.options: key " + "o" * 201 + ": String should have at most 200 characters",
    ),
    "too-many-choices": (
        HEAD + TUNE + "[tune.options]\nhand_size = { choices = [" + ", ".join(map(str, range(1001))) + "] }\n" + GAP,
        "tune.options.hand_size.choices: List should have at most 1000 items",
    ),
    "long-bot-name": (
        HEAD + TUNE + OPTS + '[[tune.targets]]\nmeasure = "wins"\nbot = "' + "b" * 201 + '"\nat_least = 0.3\n',
        "tune.targets #1.bot: String should have at most 200 characters",
    ),
    "long-skill-lineup": (
        HEAD + TUNE + OPTS + GAP + "[tune.skill]\nbots = [" + ", ".join(['"greedy"'] * 1001) + "]\n",
        "expected at most 1,000 bot names",
    ),
    "two-arms": (HEAD + '[[arms]]\nname = "a"\n[[arms]]\nname = "b"\n' + TUNE + OPTS + GAP, "a tune study has one arm"),
    "arm-sets-a-searched-option": (
        HEAD + '[[arms]]\nname = "a"\noptions = { hand_size = 6 }\n' + TUNE + OPTS + GAP,
        "sets 'hand_size', an option the search varies",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_tune_study_is_one_line_per_problem(tmp_path, case):
    body, words = BAD[case]
    path = _study(tmp_path, body)
    with pytest.raises(StudyError) as e:
        plan_tuning(path)
    msg = e.value.one_line()
    assert msg.startswith(str(path)), msg
    assert words in msg, msg
    assert not (tmp_path / "_build").exists()  # nothing written


@pytest.mark.parametrize("case", ["unknown-option", "above-schema-bound", "unmeasurable-score", "no-option"])
def test_cli_bad_tune_study_exits_2_with_one_line_and_writes_nothing(tmp_path, case):
    body, words = BAD[case]
    path = _study(tmp_path, body)
    p = run_cli("tune", str(path), cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kbsim: error: ") and words in lines[0], p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert sorted(x.name for x in tmp_path.iterdir()) == ["t.toml"]


def test_cli_tune_of_a_study_without_tune_section(tmp_path):
    p = run_cli("tune", str(REPO / "reports" / "seat-advantage.toml"), cwd=tmp_path)
    assert p.returncode == 2 and "no [tune] section" in p.stderr, p.stderr


def test_a_tune_study_without_arms_starts_from_the_rule_file():
    st = load_study(REPO / "reports" / "tune-first-seat.toml")
    assert st.tune is not None and len(st.arms) == 1
    st = study_from_dict(tomllib.loads(HEAD + TUNE + OPTS + GAP))
    assert [a.name for a in st.arms] == ["rule file defaults"] and st.arms[0].bots == "greedy"


# ------------------------------------------------------------------ measures
def _stats(seat_wins, turns, players=None, **kw) -> DealStats:
    sw = np.asarray(seat_wins, dtype=float)
    t = np.asarray(turns, dtype=float).reshape(sw.shape[0], -1)
    n = sw.shape[0]
    return DealStats(
        players=players or sw.shape[1],
        rotations=t.shape[1],
        seat_wins=sw,
        turns=t,
        stalemate=np.asarray(kw.get("stalemate", np.zeros(n)), dtype=float),
        turn_limit=np.zeros(n),
        any_wins=sw.sum(1),
    )


def test_measures_agree_with_the_metrics_module():
    rng = np.random.default_rng(3)
    winners = rng.integers(0, 4, 500)
    sw = np.eye(4)[winners]
    s = _stats(sw, rng.integers(10, 60, 500))
    gap = Target(measure="seat_gap", minimise=True)
    verdict = M.seat_balance([int(x) for x in sw.sum(0)], 500)["verdict"]
    assert measure(gap, s) == pytest.approx(100 * abs(verdict["largest"]["gap"]))
    first = Target(measure="first_seat", minimise=True)  # every game has a sole winner: the verdict's first gap
    assert measure(first, s) == pytest.approx(100 * verdict["first"]["gap"])
    turns = Target(measure="turns", band=[20, 30])
    assert measure(turns, s) == np.median(s.turns)
    w = np.ones((3, 500))  # equal weights: the weighted (lower) median of 500 values is the 250th
    assert np.all(measure(turns, s, w) == np.sort(s.turns.ravel())[249])


def test_first_seat_edge_counts_shared_games_as_nobodys():
    # 4 deals, 2 seats: seat 0 wins twice, seat 1 once, one game shared (no sole winner)
    s = _stats([[1, 0], [1, 0], [0, 1], [0, 0]], [10, 10, 10, 10])
    first = Target(measure="first_seat", minimise=True)
    # seat 0's rate 2/4 minus the mean seat's rate (3/4)/2
    assert measure(first, s) == pytest.approx(100 * (2 / 4 - 3 / 8))


def test_losses_of_every_goal():
    assert loss(Target(measure="first_seat", minimise=True), -3.0) == 3.0
    assert loss(Target(measure="seat_gap", minimise=True), 3.0) == 3.0
    assert loss(Target(measure="score", maximise=True), 7.0) == -7.0
    band = Target(measure="turns", band=[20, 30])
    assert [loss(band, v) for v in (15, 20, 25, 30, 34)] == [5, 0, 0, 0, 4]
    assert loss(Target(measure="stalemate", at_most=0.02), 5.0) == pytest.approx(3.0)  # 5% against 2%: 3 pp
    assert loss(Target(measure="stalemate", at_most=0.02), 1.0) == 0.0
    assert loss(Target(measure="wins", at_least=0.6), 50.0) == pytest.approx(10.0)


def test_constraints_objective_penalises_violations_only():
    targets = [Target(measure="seat_gap", minimise=True), Target(measure="stalemate", at_most=0.1)]
    obj = Objective(targets, [2], "constraints")
    ok = {2: _stats([[1, 0], [0, 1], [1, 0], [0, 1]], [5, 5, 5, 5])}
    res = obj.evaluate(ok)
    assert res["objective"] == 0 and res["violation"] == 0 and res["value"] == 0
    bad = {2: _stats([[1, 0], [0, 1], [1, 0], [0, 1]], [5, 5, 5, 5], stalemate=[1, 1, 0, 0])}
    res = obj.evaluate(bad)
    assert res["violation"] == pytest.approx(40.0) and res["value"] > 1000
    weighted = Objective([Target(measure="seat_gap", minimise=True, weight=2.0), targets[1]], [2], "weighted")
    assert weighted.evaluate(bad)["value"] == pytest.approx(40.0)


def test_resamples_are_chunked_but_the_same(monkeypatch):
    from kbsim.tune import measures

    r = Resamples(50, seed=1, resamples=30)
    rows = np.concatenate(list(r.chunks()))
    assert rows.shape == (30, 50) and np.all(rows.sum(1) == 50)
    assert np.array_equal(rows, np.concatenate(list(Resamples(50, seed=1, resamples=30).chunks())))
    monkeypatch.setattr(measures, "CHUNK", 120)  # 2 rows of 50 deals at a time: memory bounded for any deal count
    chunks = list(Resamples(50, seed=1, resamples=30).chunks())
    assert len(chunks) == 15 and all(c.shape == (2, 50) for c in chunks)
    assert Resamples(50, seed=1, resamples=30).map(lambda w: w.sum(1)).tolist() == [50.0] * 30


def test_rung_deals_grow_to_the_full_count():
    assert rung_deals(2700, 3, 3) == [300, 900, 2700]
    assert rung_deals(100, 3, 3) == [12, 34, 100]
    assert rung_deals(5, 4, 3) == [2, 5]  # rungs that round together are merged
    assert rung_deals(40, 1, 3) == [40]


# ------------------------------------------------------------------ the match primitive of the synthetic game
def test_a_match_of_a_fixed_number_of_hands_is_won_by_the_lowest_total():
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import load_rules
    from kbsim.sim.runner import Backend, RunSpec, run_games

    g = compile_rules(load_rules(str(MATCH), (), {"hands": 4, "rotate_dealer": True}))
    cols = run_games(RunSpec(game=g, players=3, bots=("greedy",) * 3, games=30, seed=2), Backend())
    assert set(cols["hands"]) == {4} and set(cols["end_reason"]) == {"won"}
    for winners, pens in zip(cols["winners"], cols["penalties"], strict=True):
        assert sorted(winners) == [s for s in range(3) if pens[s] == min(pens)]
    g = compile_rules(
        load_rules(str(MATCH), (), {"hands": 4}, overlay={"end": {"match": {"at_max_hands": "no_winner"}}})
    )
    cols = run_games(RunSpec(game=g, players=3, bots=("greedy",) * 3, games=10, seed=2), Backend())
    assert set(cols["end_reason"]) == {"turn_limit"} and all(w == [] for w in cols["winners"])


# ------------------------------------------------------------------ the search
def _recovery_study(folder: Path, search_seed: int, trials: int = 16, games: int = 180) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = (DATA / "rotation-match.toml").read_text(encoding="utf-8")
    text = text.replace('game = "rotation-match.yaml"', f"game = {json.dumps(str(MATCH))}")
    text = text.replace("[tune]\n", f"[tune]\nsearch_seed = {search_seed}\n")
    text = text.replace("trials = 24", f"trials = {trials}").replace("games = 540", f"games = {games}")
    return _study(folder, text, "rotation-match.toml")


def _recovered(setting: dict) -> bool:
    """The fairest settings by construction: the dealer rotates, every seat deals as often, turn limit unchanged."""
    return setting["rotate_dealer"] is True and setting["hands"] % 3 == 0 and setting["turn_limit"] == 2000


def _tune(path: Path, backend: str = "serial", **kw):
    plan = plan_tuning(path, **kw)
    return run_tuning(plan, make_backend(backend, 1 if backend == "serial" else 2))


RECOVERY_SEEDS = range(10) if os.environ.get("KBSIM_FULL_RECOVERY") else range(2)


@pytest.mark.parametrize("search_seed", RECOVERY_SEEDS)
@pytest.mark.long
def test_tune_recovers_the_known_fairest_setting(tmp_path, search_seed):
    """The synthetic match (tests/data/tune/rotation-match.yaml) is fair exactly when the dealer rotates and the
    number of hands is a multiple of the player count. KBSIM_FULL_RECOVERY=1 runs all 10 seeded searches."""
    res = _tune(_recovery_study(tmp_path, search_seed))
    assert _recovered(res.choice.recommended), res.choice.recommended
    v = res.verify
    assert v.against_default["recommended"].better  # verified on fresh deals
    assert res.plan.space.changed(res.choice.recommended).keys() == {"rotate_dealer", "hands"}  # fewest changes
    # the answer's first sentence: what to change, and by how much on the same fresh deals (the table's difference)
    t0 = res.plan.objective.targets[0]
    (d,) = [d["delta"] for d in v.deltas if d["label"] == "recommended" and d["target"] == 0]
    first = recommendation_words(res)[0]
    assert first.startswith("Change ") and "rotate_dealer" in first, first
    assert f"(paired difference {delta_text(t0, d, with_p=False)})" in first, first
    assert d.high < 0 and "[" in delta_text(t0, d, with_p=False)


@pytest.mark.long
def test_search_is_deterministic_and_resumes(tmp_path):
    a = _recovery_study(tmp_path / "a", 3, trials=6, games=60)
    first = _tune(a)
    rows = [(r.number, r.state, r.setting, r.value) for r in first.trials]
    again = _tune(a)  # the same storage: nothing left to play
    assert [(r.number, r.state, r.setting, r.value) for r in again.trials] == rows
    assert again.games_played == 0
    more = _tune(a, trials=9)  # a longer search continues the stored one
    assert [(r.number, r.state, r.setting, r.value) for r in more.trials][: len(rows)] == rows
    assert len(more.trials) == 9
    b = _recovery_study(tmp_path / "b", 3, trials=6, games=60)  # another folder, two worker processes
    other = _tune(b, backend="processes")
    assert [(r.number, r.state, r.setting, r.value) for r in other.trials] == rows
    assert other.choice.recommended == first.choice.recommended


def test_a_search_interrupted_mid_trial_replays_that_setting(tmp_path, monkeypatch):
    from kbsim.sim.run import RunInterrupted
    from kbsim.tune import evaluate

    path = _recovery_study(tmp_path, 4, trials=4, games=60)
    calls = {"n": 0}
    real = evaluate.Evaluator._block

    def stop_on_the_fifth_block(self, setting, block, bots):
        calls["n"] += 1
        if calls["n"] == 5:
            raise RunInterrupted(0, block.deals, tmp_path)
        return real(self, setting, block, bots)

    monkeypatch.setattr(evaluate.Evaluator, "_block", stop_on_the_fifth_block)
    plan = plan_tuning(path)
    with pytest.raises(RunInterrupted):
        run_tuning(plan, make_backend("serial", 1))
    monkeypatch.setattr(evaluate.Evaluator, "_block", real)
    resumed = run_tuning(plan_tuning(path), make_backend("serial", 1))
    fresh = _tune(_recovery_study(tmp_path / "fresh", 4, trials=4, games=60))
    assert len(resumed.trials) == 4
    # the interrupted trial's setting was played again, so the same settings were tried
    assert (
        sorted(json.dumps(r.setting, sort_keys=True) for r in resumed.trials)[:1]
        == sorted(json.dumps(r.setting, sort_keys=True) for r in fresh.trials)[:1]
    )
    assert resumed.trials[0].baseline and resumed.trials[0].state == "complete"


def test_the_page_is_self_contained_escaped_and_says_how_sure(tmp_path):
    path = _recovery_study(tmp_path, 0, trials=5, games=60)
    text = path.read_text().replace('title = "Recovering a known fairest setting"', 'title = "<script>x</script> & co"')
    path.write_text(text)
    res = _tune(path)
    page = write_page(res, tmp_path / "page.html")
    html = page.path.read_text(encoding="utf-8")
    assert "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt; &amp; co" in html
    refs = PageRefs()
    refs.feed(html)
    assert not [u for _, u in refs.urls if re.match(r"^(https?:)?//", u)]  # plotly.js embedded: works offline
    assert refs.scripts == 2 and len(re.findall(r"\* plotly\.js v\d", html)) == 1
    for words in ("winner", "fresh deals", "Fewest changes", "Search trace", "Each option", "Optuna"):
        assert words in html, words
    data = as_json(res, page)
    assert data["recommended"] == res.choice.recommended and data["verify"]["settings"][0]["label"] == "default"
    json.dumps(data)  # JSON-able


# ------------------------------------------------------------------ every shipped game
SHIPPED = {
    "kingsbridge": (
        "players = [2]\n[tune]\ntrials = 3\n[tune.options]\nrebuild_segments = {}\nhand_size = { low = 5, high = 6 }\n"
        '[[tune.targets]]\nmeasure = "first_seat"\nminimise = true\n'
        '[[tune.targets]]\nmeasure = "stalemate"\nat_most = 0.2\n'
    ),
    "kings-corners": (
        "players = [3]\n[tune]\ntrials = 3\n[tune.options]\ntarget = {}\nking_pile_to_corner = {}\n"
        '[[tune.targets]]\nmeasure = "score_gap"\nminimise = true\n'
        '[[tune.targets]]\nmeasure = "seat_gap"\nminimise = true\n'
    ),
    "continental-express": (
        'players = [3]\n[tune]\ntrials = 3\ncombine = "constraints"\n[tune.options]\nend_trigger = {}\n'
        '[[tune.targets]]\nmeasure = "seat_gap"\nminimise = true\n'
        '[[tune.targets]]\nmeasure = "turns"\nband = [10, 200]\n'
    ),
}


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_cli_tune_runs_on_every_shipped_game(tmp_path, game):
    body = f'name = "t-{game}"\ngame = "{game}"\ngames = 12\nseed = 3\n' + SHIPPED[game]
    body = body.replace("[tune]\n", "[tune]\nrungs = 2\n") + "[tune.verify]\nmin_deals = 10\nmax_deals = 10\n"
    path = _study(tmp_path, body)
    p = run_cli("tune", str(path), "--json", "--workers", "1", cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert len(data["trials"]) == 3 and data["trials"][0]["baseline"]
    assert Path(data["page"]).is_file() and data["verify"]["settings"][0]["label"] == "default"
    assert all(s["targets"] for s in data["verify"]["settings"])


def test_shipped_tune_study_plans(tmp_path):
    plan = plan_tuning(REPO / "reports" / "tune-first-seat.toml")
    assert plan.search.deals == [900, 2700, 8100]
    assert {d.name for d in plan.space.dims} >= {"hand_size", "rows", "rebuild_segments"}
    assert plan.space.size() is not None and plan.space.size() > plan.search.trials  # TPE, not every setting
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_backend_session_keeps_one_pool_and_the_same_records():
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import load_rules
    from kbsim.sim.runner import RunSpec, run_games

    g = compile_rules(load_rules("kingsbridge"))
    spec = RunSpec(game=g, players=2, bots=("greedy", "greedy"), games=16, seed=9)
    be = make_backend("processes", 2)
    plain = run_games(spec, be, chunk_size=4)
    with be.session():
        pool = be._pool
        assert pool is not None
        kept = run_games(spec, be, chunk_size=4)
        again = run_games(spec, be, chunk_size=4)
        assert be._pool is pool  # the same workers served both runs
    assert be._pool is None
    assert kept == plain == again
    assert not math.isnan(float(np.mean(plain["turns"])))


def test_tune_on_dask_plays_the_same_search(tmp_path):
    pytest.importorskip("dask.distributed")
    serial = _tune(_recovery_study(tmp_path / "s", 5, trials=3, games=30))
    plan = plan_tuning(_recovery_study(tmp_path / "d", 5, trials=3, games=30))
    dask = run_tuning(plan, make_backend("dask", 1))
    assert [(r.state, r.setting, r.value) for r in dask.trials] == [
        (r.state, r.setting, r.value) for r in serial.trials
    ]
    assert dask.verify.objective == serial.verify.objective


def test_the_answer_says_when_a_first_seat_edge_is_narrowed_but_not_removed():
    from types import SimpleNamespace

    from kbsim.tune.page import _edge_left
    from kbsim.tune.verify import Cell

    def result(low, high, measure="first_seat"):
        t = Target.model_validate({"measure": measure, "minimise": True})
        cells = {("recommended", 0, 4): Cell(value=(low + high) / 2, low=low, high=high)}
        plan = SimpleNamespace(objective=SimpleNamespace(targets=[t], players=[[4]]))
        return SimpleNamespace(plan=plan, verify=SimpleNamespace(cells=cells))

    (line,) = _edge_left(result(0.07, 0.084))
    assert "narrows the 4-player first-seat edge but does not remove it" in line, line
    assert _edge_left(result(-0.01, 0.02)) == []  # the interval holds 0: nothing to add
    assert _edge_left(result(-0.03, -0.01)) != []  # reversed: the first seat now behind, still an edge
    assert _edge_left(result(0.07, 0.084, "seat_gap")) == []  # the furthest seat's gap: chosen as the largest


def test_a_reduced_run_says_it_is_not_the_studys_answer():
    """A run with fewer trials or deals than its study file asks is labelled a quick look (handed case: `kbsim tune
    reports/tune-first-seat -n 90 --trials 4` said "No setting ... scored better" as if it were the answer)."""
    from kbsim.tune.page import reduced_run_words

    full = plan_tuning(REPO / "reports" / "tune-first-seat.toml")
    assert reduced_run_words(full) == []
    small = plan_tuning(REPO / "reports" / "tune-first-seat.toml", games=90, trials=4)
    (line,) = reduced_run_words(small)
    assert "4 of the study's 40 trials" in line and "90 of its 8,100 deals" in line, line
