"""Restricted play (issue 23, part 2): a seat barred from a kind of move, enforced by the engine, and its value.

The bar is declared on the bot (``planner(bar=[characters.play.agatha])``), enforced by the engine (refused,
left out of the listings and searches, yielding only when the turn could not be finished otherwise), shown in
the records (the canonical spec), expanded from a study's ``restricted`` setting, and valued from the records
(:mod:`kbsim.analysis.restricted`).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from kbsim.analysis.restricted import barred_seat, restricted_values
from kbsim.bots import UnknownBot, canonical_bot, check_bars, make_bot, parse_bots
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows import usage
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import END_TURN, Exchange, Lay, Play, Rebuild
from kbsim.engine.rows.restrict import bar_turn, barrable
from kbsim.engine.rows.state import deal
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed
from kbsim.sim.conditions import Condition
from kbsim.sim.runner import Backend, RunSpec, run_games
from kbsim.sim.study import StudyError, plan_study, study_from_dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import compiled, make_turn, run_cli  # noqa: E402
from conftest_characters import make_state, rules, turn_of  # noqa: E402

AGATHA = "characters.play.agatha"


# --------------------------------------------------------------------------- the bar in bot specs
def test_every_bot_of_every_family_takes_a_bar_and_records_show_it():
    assert canonical_bot("planner(budget=6000, bar=[turn.exchange.allowed, characters.play.agatha])") == (
        "planner(bar=[characters.play.agatha, turn.exchange.allowed], budget=6000)"
    )
    assert canonical_bot("random(bar=characters.play.den)") == "random(bar=[characters.play.den])"
    assert canonical_bot("greedy(bar=[])") == "greedy"
    assert canonical_bot("greedy(bar=[characters.enabled])", "market") == "greedy(bar=[characters.enabled])"
    assert make_bot("random(bar=[characters.play.den])").bar == frozenset({"characters.play.den"})
    assert make_bot("greedy").bar == frozenset()
    spec = RunSpec(
        game=compiled("characters"), players=2, bots=("greedy(bar=[characters.play.den])", "greedy"), games=2, seed=3
    )
    cols = run_games(spec, Backend(), chunk_size=2)
    assert cols["bots"][0] == ["greedy(bar=[characters.play.den])", "greedy"]
    assert all(len(y) == 2 for y in cols["bar_yields"])


@pytest.mark.parametrize(
    "spec, words",
    [
        ("greedy(bar=3)", "expected a list of move kinds"),
        ("greedy(bar=[Agatha])", "expected a list of move kinds"),
        ("random(bar=[x.y], depth=2)", "takes no parameters but bar"),
    ],
)
def test_a_malformed_bar_is_one_clear_error(spec, words):
    with pytest.raises(UnknownBot, match=words):
        canonical_bot(spec)


def test_a_bar_naming_no_move_kind_of_the_rules_is_refused():
    g = compiled("characters")
    with pytest.raises(UnknownBot, match=r"'characters\.play\.agata' is not a move kind of kingsbridge"):
        parse_bots("greedy(bar=[characters.play.agata])", 2, game=g)
    check_bars(g, ["greedy(bar=[characters.play.agatha, turn.exchange.allowed])"])  # known kinds pass
    assert AGATHA in barrable(g) and barrable(g)[AGATHA] == "playing Mother Agatha"


def test_cli_refuses_an_unknown_bar_in_one_line(tmp_path):
    p = run_cli("run", "-p", "2", "-n", "2", "--bots", "greedy(bar=[characters.play.agata])", cwd=tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "characters.play.agata" in lines[0] and "Traceback" not in p.stderr


# --------------------------------------------------------------------------- the engine enforces it
def _agatha_turn(bar=None):
    g = rules("characters")
    st = make_state(["5", "9", "_", "_", "_", "_"], ["5 12", "3"], ["7 8", "4 4"], char_piles=[["agatha"], []])
    t = turn_of(g, st, 0)
    if bar is not None:
        assert not bar_turn(t, g, frozenset(bar))
    return g, t


def test_a_barred_character_is_neither_listed_nor_played():
    g, free = _agatha_turn()
    plays = free.play_moves()
    assert plays and all(m.key == "agatha" for m in plays)
    _, t = _agatha_turn([AGATHA])
    assert t.available_characters() == [] and t.play_moves() == []
    assert not any(isinstance(m, Play) for m in t.legal_moves())
    with pytest.raises(IllegalMove, match=r"barred from characters\.play\.agatha"):
        t.apply(plays[0])
    _, t = _agatha_turn(["characters.enabled"])
    with pytest.raises(IllegalMove, match=r"barred from characters\.enabled"):
        t.apply(plays[0])
    _, t = _agatha_turn(["characters.play.den"])  # another character's bar leaves Agatha alone
    t.apply(plays[0])


def test_a_barred_power_move_is_refused_after_the_character_is_played():
    """Agatha played, the seat barred from equal values: laying the 5 on the row ending 5 is not listed, refused."""
    g, t = _agatha_turn(["powers.equal_values"])
    t.apply(next(m for m in t.play_moves()))
    five = g.parse_card("5")
    assert not t.can_lay(five, 0) and Lay(five, 0) not in t.lay_moves()
    with pytest.raises(IllegalMove, match=r"barred from powers\.equal_values"):
        t.apply(Lay(five, 0))
    _, free = _agatha_turn()
    free.apply(next(m for m in free.play_moves()))
    assert free.can_lay(five, 0) and Lay(five, 0) in free.lay_moves()


def test_a_barred_exchange_is_refused_while_a_card_can_be_laid(game):
    t = make_turn(game, [[3], [8], [], [], [], []], hand=[4, 11, 12], pile_top_first=[1, 2, 3])
    assert not bar_turn(t, game, frozenset({usage.EXCHANGE}))
    assert not t.can_exchange() and t.exchange_moves() == []
    assert not any(isinstance(m, Exchange) for m in t.legal_moves())
    with pytest.raises(IllegalMove, match=r"barred from turn\.exchange\.allowed"):
        t.apply(Exchange((11,)))
    t.apply(Lay(4, 0))
    t.apply(END_TURN)


def test_the_bar_yields_when_it_leaves_no_legal_way_to_finish_the_turn(game):
    """Nothing held fits any board rebuilds reach and the draw pile holds cards: only an exchange is legal, so a
    seat barred from exchanging exchanges after all (the bar yields for this turn, and the game loop counts it)."""
    t = make_turn(game, [[1], [3], [5], [7], [9], [11]], hand=[1, 13, 13], pile_top_first=[2, 2])
    assert t.lay_path()[0] is False  # (no rebuild is legal, no held card continues a row)
    assert bar_turn(t, game, frozenset({usage.EXCHANGE}))
    assert t.bar is None and t.g is game and t.can_exchange()
    t.apply(Exchange((1, 13, 13)))


def test_a_barred_rebuild_reading_is_off_for_every_search():
    """rebuild-either-end, seat barred from start segments: the turn's rules have the switch off (the planner's
    searches read it), the listing and the engine refuse such a rebuild."""
    g = compiled("rebuild-either-end")
    cards = [[5, 6, 7], [4], [], [], [], []]
    t = make_turn(g, cards, hand=[9], pile_top_first=[1])
    start = Rebuild(0, 1, 1, from_start=True)
    assert start in t.rebuild_moves()
    assert not bar_turn(t, g, frozenset({usage.SEGMENTS}))
    assert not t.g.rebuild_from_start and start not in t.rebuild_moves()
    assert not t.can_rebuild(0, 1, 1, from_start=True)
    with pytest.raises(IllegalMove, match=r"barred from turn\.lay_out\.rebuild\.segments"):
        t.apply(start)
    assert all(not getattr(m, "from_start", False) or m.count == 3 for m in t.legal_moves())


# --------------------------------------------------------------------------- bots under a bar
def _replay_barred(g, players, seed, result, seat, bar):
    """Replay a logged one-hand game; return (moves of the barred seat checked, turns where a barred move was legal).

    Each of the seat's turns is put under its bar as the game loop does; in a turn where the bar did not yield,
    no move may be of a barred kind (classified on the turn before the move, independently of the bot).
    """
    st = deal(g, players, random.Random(seed))
    checked = chances = 0
    for k, (s, moves) in enumerate(result.log, start=1):
        st.turn_no = k
        t = Turn.for_seat(g, st, s)
        if s == seat:
            free = t.clone()
            if any(set(usage.classify(g, free, m)) & bar for m in free.legal_moves()):
                chances += 1
            yielded = bar_turn(t, g, bar)
        for m in moves:
            if s == seat and not yielded:
                assert not set(usage.classify(t.g, t, m)) & bar, (k, m)
                checked += 1
            t.apply(m)
    return checked, chances


@pytest.mark.parametrize(
    "variants, bot, kind",
    [
        (("characters",), "greedy", AGATHA),
        (("characters",), "planner", AGATHA),
        (("characters",), "random", "characters.enabled"),
        (("characters",), "greedy", "powers.equal_values"),
        (("characters",), "planner", "characters.play.wynstan"),
        ((), "greedy", usage.EXCHANGE),
        ((), "planner", usage.EXCHANGE),
        (("rebuild-either-end",), "planner", usage.SEGMENTS),
        (("rebuild-split",), "greedy", usage.INTO_EMPTY),
        (("rebuild-split",), "planner", usage.INTO_EMPTY),
    ],
)
def test_a_barred_bot_never_makes_the_barred_move(variants, bot, kind):
    g = compiled(*variants)
    bar = frozenset({kind})
    checked = chances = 0
    for i in range(8):  # at least 3 games, and until the barred kind was legal in some turn of the barred seat
        if i >= 3 and chances:
            break
        seed = game_seed(23, i)
        bots = [make_bot(f"{bot}(bar=[{kind}])"), make_bot(bot), make_bot(bot)]
        r = play_game(g, bots, seed, check=True, log=True)
        c, ch = _replay_barred(g, 3, seed, r, 0, bar)
        checked += c
        chances += ch
    assert checked > 0
    if kind not in ("powers.equal_values", usage.SEGMENTS, usage.INTO_EMPTY):
        assert chances > 0, "the barred move kind was never legal: the test would prove nothing"


def test_market_bar_keeps_a_seat_from_taking_characters():
    g = compiled_market()
    for i in range(4):
        bots = [make_bot("greedy(bar=[characters.enabled])", "market"), make_bot("random", "market")]
        r = play_game(g, bots, game_seed(31, i), check=True)
        played = {k for (s, k) in r.character_plays if s == 0}
        assert not played or r.bar_yields[0] > 0


def compiled_market():
    from kbsim import load_game

    return load_game("continental-express")


# --------------------------------------------------------------------------- studies
def _study(**extra):
    doc = {
        "name": "t",
        "game": "kingsbridge",
        "players": [2, 3],
        "games": 4,
        "seed": 1,
        "arms": [{"name": "complete", "variants": ["characters"], "bots": "greedy"}],
    } | extra
    return study_from_dict(doc, "/nonexistent/t.toml")


def test_restricted_setting_adds_one_rotated_arm_per_move_kind(tmp_path):
    plan = plan_study(_study(restricted=["characters.play.a*", "turn.exchange.allowed"]), records_dir=tmp_path)
    barred = [c for c in plan.conditions if c.bar]
    assert [c.bar for c in barred] == [("characters.play.aldred",), (AGATHA,), (usage.EXCHANGE,)]
    assert [c.bar_words for c in barred] == ["playing Aldred", "playing Mother Agatha", "exchanging"]
    runs = [r for r in plan.runs if r.condition.bar == (AGATHA,)]
    lineups = sorted(r.spec.bots for r in runs)
    barred_spec = "greedy(bar=[characters.play.agatha])"
    assert lineups == sorted(
        [
            (barred_spec, "greedy"),
            ("greedy", barred_spec),
            (barred_spec, "greedy", "greedy"),
            ("greedy", barred_spec, "greedy"),
            ("greedy", "greedy", barred_spec),
        ]
    )
    assert (barred[1].key, plan.conditions[0].key) in plan.comparisons


@pytest.mark.parametrize(
    "extra, words",
    [
        ({"restricted": ["characters.play.zed*"]}, "restricted #1: 'characters.play.zed*' matches no move kind"),
        (
            {"arms": [{"name": "x", "bots": ["greedy", "random"], "bar": [AGATHA]}]},
            "a restricted-play arm has one bot",
        ),
    ],
)
def test_bad_restricted_settings_are_one_line_each(tmp_path, extra, words):
    with pytest.raises(StudyError, match=re.escape(words)):
        plan_study(_study(**extra), records_dir=tmp_path)


# --------------------------------------------------------------------------- values
def test_barred_seat_is_read_from_the_canonical_specs():
    assert barred_seat(["greedy", "greedy(bar=[characters.play.den])", "greedy"]) == 1
    assert barred_seat(["greedy", "greedy"]) == -1


def _conditions():
    return [
        Condition(key="base", label="base", arm="base"),
        Condition(key="r", label="barred", arm="barred", bar=(AGATHA,), bar_words="playing Mother Agatha"),
    ]


def _frame(rows):
    return pl.DataFrame(
        rows,
        schema={
            "condition": pl.String,
            "players": pl.Int64,
            "seed": pl.Int64,
            "bots": pl.List(pl.String),
            "winners": pl.List(pl.Int8),
        },
    )


def test_value_is_the_paired_drop_of_the_barred_seats_win_rate():
    """Hand-computed: 2 players, 4 deals, 2 rotations each. Baseline sole winners per deal: 0, 1, 0, (none).
    Barred seat wins: deal 1 rotation 0 (seat 0 barred, wins), nothing else. Per deal, mean over rotations of
    [barred seat won] - [that seat won in the baseline]: deal 1 (1-1 + 0-0)/2 = 0; deal 2 (0-0 + 0-1)/2 = -0.5;
    deal 3 (0-1 + 0-0)/2 = -0.5; deal 4 0. Effect -0.25, value +0.25 (25 pp)."""
    b, s0, s1 = (
        "greedy",
        ["greedy(bar=[characters.play.agatha])", "greedy"],
        ["greedy", "greedy(bar=[characters.play.agatha])"],
    )
    rows = [
        ("base", 2, 1, [b, b], [0]),
        ("base", 2, 2, [b, b], [1]),
        ("base", 2, 3, [b, b], [0]),
        ("base", 2, 4, [b, b], [0, 1]),
        ("r", 2, 1, s0, [0]),
        ("r", 2, 1, s1, [0]),
        ("r", 2, 2, s0, [1]),
        ("r", 2, 2, s1, [0]),
        ("r", 2, 3, s0, [1]),
        ("r", 2, 3, s1, [0]),
        ("r", 2, 4, s0, []),
        ("r", 2, 4, s1, [0, 1]),
    ]
    df = _frame([dict(zip(("condition", "players", "seed", "bots", "winners"), r, strict=True)) for r in rows])
    (item,) = restricted_values(df, _conditions(), [("r", "base")], {"characters": {"agatha": "Mother Agatha"}})
    v = item["pooled"]["value"]
    assert v.mean == pytest.approx(0.25) and v.n == 4
    diffs = np.array([0.0, -0.5, -0.5, 0.0])
    half = 3.182446305284263 * diffs.std(ddof=1) / 2  # t(0.975, 3) * sd / sqrt(4)
    assert (v.low, v.high) == pytest.approx((0.25 - half, 0.25 + half))
    assert item["pooled"]["barred_rate"]["k"] == 1 and item["pooled"]["games"] == 8
    assert item["sentence"].startswith("Mother Agatha is worth +25.0 pp to the seat that may play the character (")
    # on a ladder every rung's sentence is listed, so each names its rung (handed case: characters-search listed
    # "Sheriff Den is worth +6.8 pp" and "+19.5 pp" without saying which bot)
    laddered = [
        Condition(key="base", label="base · planner", arm="base", rung="planner", stem="base"),
        Condition(
            key="r",
            label="barred · planner",
            arm="barred",
            bar=(AGATHA,),
            bar_words="playing Mother Agatha",
            rung="planner",
            stem="r",
        ),
    ]
    (item,) = restricted_values(df, laddered, [("r", "base")], {"characters": {"agatha": "Mother Agatha"}})
    assert item["sentence"].startswith(
        "Mother Agatha is worth +25.0 pp to the seat that may play the character, with planner in every seat ("
    )


def test_null_calibration_of_the_value():
    """Barred and baseline outcomes drawn from the same distribution (independent sole winners, 10% shared):
    the 95% interval of the value covers 0 in about 95% of 300 simulated studies of 60 deals (at least 91%)."""
    rng = np.random.default_rng(5)
    b = "greedy"
    barred = [f"greedy(bar=[{AGATHA}])", "greedy", "greedy"]
    rots = [barred[-r:] + barred[:-r] for r in range(3)]
    covered = 0
    for _ in range(300):
        rows = []
        for seed in range(60):
            for cond, lineups in (("base", [[b, b, b]]), ("r", rots)):
                for lu in lineups:
                    w = [] if rng.random() < 0.1 else [int(rng.integers(3))]
                    rows.append({"condition": cond, "players": 3, "seed": seed, "bots": lu, "winners": w})
        (item,) = restricted_values(_frame(rows), _conditions(), [("r", "base")])
        v = item["pooled"]["value"]
        covered += v.low <= 0 <= v.high
    assert covered >= 273


def test_a_bar_on_a_rule_the_game_never_allows_is_worth_exactly_nothing():
    """Calibration with real games: start segments in the base game (the rules never allow them) change no game,
    so the records equal the unbarred ones but for the bots column, and the value is 0 on every deal."""
    g = compiled()
    kind = usage.SEGMENTS
    plain = run_games(RunSpec(game=g, players=2, bots=("greedy", "greedy"), games=6, seed=9), Backend(), 6)
    barred = run_games(
        RunSpec(game=g, players=2, bots=(f"greedy(bar=[{kind}])", "greedy"), games=6, seed=9), Backend(), 6
    )
    for col in plain:
        if col not in ("run_id", "bots"):
            assert plain[col] == barred[col], col


def test_a_rule_that_obviously_matters_has_a_large_resolved_value(tmp_path):
    """Every character barred (``characters.enabled``) in the complete game, greedy, 2 players, 30 deals: the
    seat that may play characters wins far more often (measured about +28 pp; asserted above +10 pp, resolved)."""
    from kbsim.analysis.reading import study_input
    from kbsim.sim.study import run_study

    st = study_from_dict(
        {
            "name": "t",
            "game": "kingsbridge",
            "players": [2],
            "games": 30,
            "seed": 7,
            "arms": [{"name": "complete", "variants": ["characters"], "bots": "greedy"}],
            "restricted": ["characters.enabled"],
        },
        tmp_path / "t.toml",
    )
    plan = plan_study(st, records_dir=tmp_path / "rec")
    run_study(plan, workers=1)
    inp = study_input(plan)
    (item,) = restricted_values(inp.records, inp.conditions, inp.comparisons, inp.names)
    v = item["pooled"]["value"]
    assert v.mean > 0.10 and v.low > 0 and v.resolved

    # the page: the value in words first in the Answer, its section next; the character lift only described
    from kbsim.analysis.report import write_report

    res = write_report(inp, tmp_path / "page.html")
    page = res.path.read_text(encoding="utf-8")
    answer = page[page.index('<section id="answer">') : page.index("</section>", page.index('<section id="answer">'))]
    assert "<li><b>Ranked by what each is worth to the seat that may use it (greedy): playing any character +" in answer
    assert "Playing any character is worth +" in answer and "resolved, 30 deals" in answer
    assert page.index('id="answer"') < page.index('id="experience"') < page.index('id="restricted"')
    chars = page[page.index('<section id="characters">') :]
    chars = chars[: chars.index("</section>")]
    assert "never as a finding" in chars and "resolved" not in chars and "Holm" not in chars
    assert "restricted play" in chars and "Restricted-play arms are left out" in chars
    assert "lead changes per game" in page[page.index('<section id="experience">') :]
    worth = "ANSWER, What each move is worth to a player: Ranked by what each is worth"
    assert any(line.startswith(worth) for line in res.summary)
    # a restricted arm is no contest of bots: no bot-strength test or bot share of it
    assert not res.stats["sections"].get("bots") and not res.stats["bots"]
    (js,) = res.as_json()["restricted"]
    assert js["kind"] == "characters.enabled" and js["value"][0]["players"] is None
    assert js["value"][0]["mean"] == pytest.approx(v.mean) and js["value"][0]["resolved"]
    # restricted arms are not ranked for fairness (their barred seat rotates) nor compared on the first seat
    assert {v["condition"] for v in res.stats["verdicts"]} == {plan.conditions[0].key}
    assert not [d for d in res.stats["deltas"] if d["metric"] in ("seat0", "seat_gap")]


# --------------------------------------------------------------------------- the bar in the stalemate search
def test_the_stalemate_search_makes_no_barred_move():
    """A seat barred from the character on top of its pile holds that pile still: what lies below never comes up."""
    from conftest_characters import make_state
    from kbsim.engine.rows.game import seat_can_lay, stalemate_confirmed
    from kbsim.engine.rows.reach import lay_possible
    from test_stalemate_search import CLOSED, NO_DEN, _handed_position

    g = rules("characters", characters_removed=NO_DEN)
    # seat 0's staying Ragna brings up Aldred, who lets its 1 go before a 2-13 (test_stalemate_search)
    s = make_state(CLOSED, ["1", "1"], ["", ""], char_piles=[["ragna", "aldred"], ["edgar"]])
    ragna, aldred = frozenset({"characters.play.ragna"}), frozenset({"characters.play.aldred"})
    assert lay_possible(g, s) is True and not stalemate_confirmed(g, s)
    assert lay_possible(g, s, [ragna, None]) is False and stalemate_confirmed(g, s, [ragna, None])
    assert lay_possible(g, s, [aldred, None]) is False  # Aldred comes up, but seat 0 may not play him
    assert lay_possible(g, s, [None, ragna]) is True  # seat 1's bar does not matter here
    # the test of one seat (every character tried for it): Aldred, or the modifier he gives, barred
    h = _handed_position()
    assert seat_can_lay(g, h, 0)
    for bar in (aldred, frozenset({usage.CHARACTERS}), frozenset({usage.AT_START})):
        assert not seat_can_lay(g, h, 0, bar=bar), bar
    assert seat_can_lay(g, h, 0, bar=frozenset({"characters.play.wynstan"}))


# --------------------------------------------------------------------------- the bar in the views and worlds
class _Determinizer:
    """A barred greedy bot that, at each of its turns, determinizes its observation and plays the world on to its
    own next turn, recording what the worlds let each seat do (test only)."""

    def __init__(self, spec: str, family: str) -> None:
        self.inner = make_bot(spec, family)
        self.bar = self.inner.bar
        self.name = self.inner.name
        self.family = family
        # (seat, its turn's bar, legal moves, the table then) in the worlds' turns
        self.seen: list[tuple[int, object, list, object]] = []
        self.later: list[object] = []  # the bar of this seat's next turn in each world (started by the world)

    def new_game(self, game, seat, players, seed):
        self.inner.new_game(game, seat, players, seed)
        self.seat, self.rng = seat, random.Random(seed)
        self.others = [make_bot("greedy", self.family) for _ in range(players)]
        for s, b in enumerate(self.others):
            b.new_game(game, s, players, seed)

    def play_turn(self, turn):
        from kbsim.engine.forward import determinize

        if getattr(turn, "phase", None) == "choose":  # (a market contract choice: no turn, never barred)
            self.inner.play_turn(turn)
            return
        w = determinize(turn, self.rng)
        self.seen.append((w.seat, w.turn.bar, w.legal_moves(), w.state.copy()))
        c = w.clone()
        c.play_turn(self.others[c.seat])
        while not c.over and c.seat != self.seat:  # the other seats' turns, to this seat's next one
            if c.turn.phase != "choose":
                self.seen.append((c.seat, c.turn.bar, c.legal_moves(), c.state.copy()))
            c.play_turn(self.others[c.seat])
        if not c.over:
            self.seen.append((c.seat, c.turn.bar, c.legal_moves(), c.state.copy()))
            self.later.append(c.turn.bar)
        self.world = w
        self.inner.play_turn(turn)


def test_rows_worlds_keep_the_bar_and_the_rules_in_force():
    """Determinized from a barred seat's observation, a world bars that seat (its later turns too) and no other;
    the other seats play the rules in force (an exchange bar narrows only the barred seat's rules)."""
    g = compiled("characters")
    kinds = f"{usage.CHARACTERS}, {usage.EXCHANGE}"
    probe = _Determinizer(f"greedy(bar=[{kinds}])", "rows")
    play_game(g, [probe, make_bot("greedy")], game_seed(41, 0), check=True)
    mine = [(bar, moves) for s, bar, moves, _ in probe.seen if s == 0]
    theirs = [(bar, moves) for s, bar, moves, _ in probe.seen if s == 1]
    assert len(mine) > 3 and theirs
    barred = [moves for bar, moves in mine if bar is not None]
    assert barred and all(not isinstance(m, Play | Exchange) for moves in barred for m in moves)
    assert all(bar is None for bar, _ in theirs)
    assert any(bar is not None for bar in probe.later)  # the seat's next turn in a world, barred by the world
    assert any(isinstance(m, Exchange | Play) for _, moves in theirs for m in moves)  # (the others may)
    w = probe.world
    assert w.game.exchange_allowed and w.state.players == 2
    if w.turn is not None and w.turn.bar is not None and w.turn.phase == 0:
        assert not w.turn.g.exchange_allowed
        with pytest.raises(IllegalMove, match="barred"):
            w.apply(Exchange((w.state.hands[0][0],)))


def test_market_views_and_worlds_keep_the_bar():
    """Worlds determinized from a barred market seat's view bar that seat (its later turns too) and no other."""
    from kbsim.engine.market.restrict import classify

    g = compiled_market()
    probe = _Determinizer(f"greedy(bar=[{usage.CHARACTERS}])", "market")
    r = play_game(g, [probe, make_bot("random", "market")], game_seed(43, 0), check=True)
    mine = [(bar, moves, st) for s, bar, moves, st in probe.seen if s == 0]
    theirs = [(moves, st) for s, bar, moves, st in probe.seen if s == 1 and bar is None]
    assert len(mine) > 3 and len(theirs) == len([x for x in probe.seen if x[0] == 1])
    assert all(bar == frozenset({usage.CHARACTERS}) for bar, _, _ in mine) and probe.later
    for _, moves, st in mine:  # no barred take listed, unless every move is one (the bar yields)
        takes = [m for m in moves if classify(g, st, m)]
        assert not takes or len(takes) == len(moves)
    assert any(classify(g, st, m) for moves, st in theirs for m in moves)  # (the other seat may take them)
    taken = {k for (s, k) in r.character_plays if s == 0}
    assert not taken or r.bar_yields[0] > 0


def test_a_market_view_refuses_a_barred_take():
    from kbsim.engine.market.game import MarketPlay
    from kbsim.engine.market.moves import CHOOSE, DONE
    from kbsim.engine.market.observe import handed
    from kbsim.engine.market.restrict import classify
    from kbsim.engine.market.state import new_state
    from kbsim.engine.market.turn import MarketTurn

    g = compiled_market()
    bar = frozenset({usage.CHARACTERS})
    for seed in range(40):
        st = new_state(g, 2, random.Random(seed))
        for s in range(2):
            t = MarketTurn(g, st, s, phase=CHOOSE)
            t.apply(t.legal_moves()[0])
            if t.phase != DONE:
                t.close()
        play = MarketPlay(g, st, seat=g.first_seat % 2, bars=[bar, None])
        turn = play.new_turn() if play.seat == 0 else None
        if turn is None:
            continue
        free = MarketTurn(g, st, 0)  # the same decision unbarred
        takes = [m for m in free.legal_moves() if classify(g, st, m)]
        if not takes or turn.bar_yielded:
            continue
        view = handed(turn, play.context())
        assert not any(classify(g, st, m) for m in view.legal_moves())
        with pytest.raises(IllegalMove, match="barred from characters"):
            view.apply(takes[0])
        return
    pytest.fail("no deal offered the first seat a character to take")


@pytest.mark.parametrize(
    "name, variants, family", [("kingsbridge", ("characters",), "rows"), ("continental-express", (), "market")]
)
def test_a_barred_search_bot_never_makes_the_barred_move(name, variants, family):
    """The search bot plans in the forward model's worlds, which bar its seat as the game does: it never plays a
    character it is barred from (unless the bar yielded), while its unbarred opponent does."""
    from kbsim import load_game

    g = load_game(name, variants)
    bots = [make_bot("search(iterations=8, bar=[characters.enabled])", family), make_bot("greedy", family)]
    r = play_game(g, bots, game_seed(47, 0), check=True)
    assert any(s == 1 for s, _ in r.character_plays)
    assert not any(s == 0 for s, _ in r.character_plays) or r.bar_yields[0] > 0


def test_restricted_arms_are_played_and_valued_per_rung_of_a_ladder(tmp_path):
    """On a ladder each rung's bot is barred in one seat (rotated) against itself unbarred, and is valued against
    the same rung's baseline (never against the restricted arm at another rung)."""
    from kbsim.analysis.reading import study_input
    from kbsim.sim.study import barred_spec, run_study

    st = study_from_dict(
        {
            "name": "t",
            "game": "kingsbridge",
            "players": [2],
            "games": 6,
            "seed": 3,
            "arms": [{"name": "complete", "variants": ["characters"], "bots": "greedy"}],
            "restricted": ["characters.enabled"],
            "ladder": ["random", "greedy"],
        },
        tmp_path / "t.toml",
    )
    plan = plan_study(st, records_dir=tmp_path / "rec")
    barred = [c for c in plan.conditions if c.bar]
    assert [c.rung for c in barred] == ["random", "greedy"]
    for c in barred:
        mine = {r.spec.bots for r in plan.runs if r.condition.key == c.key}
        spec = barred_spec(c.rung, ["characters.enabled"])
        assert mine == {(spec, c.rung), (c.rung, spec)}
    run_study(plan, workers=1)
    inp = study_input(plan)
    items = restricted_values(inp.records, inp.conditions, inp.comparisons, inp.names)
    base = {c.rung: c.key for c in plan.conditions if not c.bar}
    assert sorted(it["rung"] for it in items) == ["greedy", "random"]
    assert all(it["baseline"] == base[it["rung"]] for it in items)


def test_the_answer_ranks_the_values_at_every_rung():
    """Handed case (characters page): the Answer's headline gave the greedy ranking only, while the planner's,
    which differs (Sheriff Den 2nd with greedy, 7th with planner), was folded further down the page."""
    from kbsim.analysis.page_sections import _restricted_answer

    data = {
        "rankings": [
            "Ranked by what each is worth to the seat that may use it (greedy): Den +8.3 pp; Edgar +6.9 pp.",
            "Ranked by what each is worth to the seat that may use it (planner): Edgar +4.8 pp; Den +5.1 pp.",
        ],
        "resolved": [],
    }
    (block,) = _restricted_answer(None, data)
    assert "(greedy): Den" in block["headline"] and "(planner): Edgar" in block["headline"]
    assert block["headline"].index("(greedy)") < block["headline"].index("(planner)")
