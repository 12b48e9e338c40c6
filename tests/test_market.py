"""The market family (Continental Express): rule file, card table, engine primitives, bots, CLI.

* property tests (hypothesis) over seeds, 2-4 players and both bots: every card,
  objective, contract and token is conserved after every move, and every game
  ends by its own rules (never at the turn-limit guard);
* the rule file's executable examples pass, and a wrong expectation fails;
* the pattern scorer against a brute-force enumeration;
* the card table is a separate, replaceable file: a modified table in a temporary
  folder loads, ``kbsim rules check`` validates it and names the table file and
  field of every problem, and the provisional notice follows the table;
* ``kbsim run --game continental-express`` writes records with per-seat ``scores``.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import run_cli
from kbsim.bots import make_bot
from kbsim.bots.market import contract_values
from kbsim.engine.market import (
    CLAIM,
    DONE,
    END,
    EVENT,
    GAP,
    HIDDEN,
    RESOLVE,
    TAKE,
    MarketPlay,
    MarketState,
    MarketTurn,
    Move,
    Pattern,
    check_state,
    claim_cost,
    format_market_move,
    new_state,
    parse_market_move,
    pattern_points,
    run_market_examples,
)
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import STALEMATE, TURN_LIMIT, WON, play_game
from kbsim.rules.loader import RulesError, load_rules

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules" / "continental-express.yaml"
TABLE = ROOT / "rules" / "tables" / "continental-express-cards.yaml"
GAME = "continental-express"

_CACHE: dict = {}


def ce(*variants: str, **options):
    """The compiled shipped rules (cached)."""
    key = (variants, tuple(sorted(options.items())))
    if key not in _CACHE:
        _CACHE[key] = compile_rules(load_rules(GAME, variants, options))
    return _CACHE[key]


# ------------------------------------------------------------------ the rule file and its table
def test_rule_file_and_table_load_with_the_published_totals():
    lr = load_rules(GAME)
    m = lr.model
    assert m.family == "market"
    totals = m.cards.totals()
    assert totals == {"wagons": 58, "characters": 10, "objectives": 20, "contracts": 10, "tokens": 20}
    assert m.currency.cards == 12 and sum(e.count for e in m.events.values()) == 2
    assert len(m.characters) == 4
    g = ce()
    assert sum(k.count for k in g.kinds) == 82  # the notice's 82 small cards
    assert g.costs == (0, 1, 2) and g.n_decks == 3 and g.slide
    assert [g.kinds[k].key for k in g.wild_kinds] == ["locomotive"]
    assert g.trigger == 4 and g.final_round == "others" and g.tie_breakers == ("objective_points",)


def test_provisional_everywhere():
    m = load_rules(GAME).model
    assert m.provisional and "provisional" in m.provisional.lower()
    assert m.sections()[0][0] == "Provisional data"
    assert ce().provisional == m.provisional
    assert "provisional" in TABLE.read_text().splitlines()[2].lower()  # the table's own header says so


def test_every_variant_loads():
    for v in load_rules(GAME).model.variants:
        compile_rules(load_rules(GAME, [v]))


def test_examples_pass_and_cover_the_issue():
    results = run_market_examples(load_rules(GAME))
    assert [(r.name, r.message) for r in results if not r.ok] == []
    names = {r.name for r in results}
    for needed in (
        "slide-after-take",
        "last-place-costs-two",
        "locomotive-completes-an-objective",
        "derailment",
        "station-fire",
        "investor",
        "pickpocket",
        "switchman",
        "director",
        "impossible-character-is-lost",
        "colour-pattern",
        "pair-pattern",
        "trio-pattern",
        "mixed-trio-pattern",
        "four-colours-pattern",
        "two-pairs-pattern",
        "final-round-after-fourth-objective",
        "tie-break-on-objective-points",
    ):
        assert needed in names


def test_a_wrong_expectation_fails():
    lr = load_rules(GAME)
    ex = next(e for e in lr.model.examples if e.name == "pair-pattern").model_copy(deep=True)
    ex.expect.contract_points = [5]
    (r,) = run_market_examples(lr, [ex])
    assert not r.ok and "contract points [6] != expected [5]" in r.message


# ------------------------------------------------------------------ pattern scoring
def _brute(terms: tuple[Pattern, ...], counts: tuple[int, ...], exclusive: bool) -> int:
    """Best points by enumerating multisets of occurrences (independent of the engine's search)."""
    if not exclusive:
        return sum(_brute((t,), counts, True) for t in terms)
    n = len(counts)
    shapes = []  # (term index, usage vector)
    for ti, t in enumerate(terms):
        seen = set()
        for cols in itertools.product(range(n), repeat=len(t.groups)):
            if t.colours is not None and cols != t.colours:
                continue
            if t.distinct and len(set(cols)) < len(cols):
                continue
            use = [0] * n
            for c, size in zip(cols, t.groups, strict=True):
                use[c] += size
            if tuple(use) not in seen:
                seen.add(tuple(use))
                shapes.append((ti, tuple(use)))
    best = 0

    def rec(i: int, left: list[int], pts: int, once: set) -> None:
        nonlocal best
        best = max(best, pts)
        for j in range(i, len(shapes)):
            ti, use = shapes[j]
            t = terms[ti]
            if (not t.repeat and ti in once) or any(u > x for u, x in zip(use, left, strict=True)):
                continue
            rec(j, [x - u for x, u in zip(left, use, strict=True)], pts + t.points, once | {ti})

    rec(0, list(counts), 0, set())
    return best


PATTERNS = [
    Pattern((1,), (0,), True, 2, True),
    Pattern((2,), None, True, 3, True),
    Pattern((3,), None, True, 7, True),
    Pattern((1, 1, 1), None, True, 5, True),
    Pattern((1, 1, 1, 1), None, True, 6, False),
    Pattern((2, 2), None, True, 7, False),
]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.integers(0, 3), min_size=4, max_size=4).filter(lambda c: sum(c) <= 7),
    st.lists(st.sampled_from(range(len(PATTERNS))), min_size=1, max_size=2),
    st.booleans(),
)
def test_pattern_points_match_brute_force(counts, term_ids, exclusive):
    terms = tuple(PATTERNS[i] for i in term_ids)
    assert pattern_points(terms, tuple(counts), exclusive) == _brute(terms, tuple(counts), exclusive)


def test_pattern_readings_differ_on_shared_icons():
    pair, trio = PATTERNS[1], PATTERNS[2]
    assert pattern_points((pair, trio), (5, 0, 0, 0), True) == 10  # trio + pair, no icon twice
    assert pattern_points((pair, trio), (5, 0, 0, 0), False) == 13  # 2 pairs + 1 trio on the same icons
    assert pattern_points((PATTERNS[4],), (2, 2, 2, 2), True) == 6  # once only
    assert pattern_points((PATTERNS[3],), (2, 2, 1, 1), True) == 10  # 2 disjoint mixed trios
    assert pattern_points((PATTERNS[3],), (3, 1, 1, 1), True) == 5  # the other red icons find no partners


def test_contract_values_are_expectations():
    g = ce()
    vals = contract_values(g)
    assert len(vals) == 10 and all(v >= 0 for v in vals)
    assert contract_values(g) is vals  # cached per compiled game


# ------------------------------------------------------------------ engine primitives
def test_setup_shows_no_event_and_cuts_even_decks():
    g = ce()
    for seed in range(60):
        s = new_state(g, 3, random.Random(seed))
        sizes = [len(d) + sum(1 for c in line if c != GAP) for d, line in zip(s.decks, s.lines, strict=True)]
        assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 82
        assert all(c != GAP and g.kinds[c].role != EVENT for line in s.lines for c in line)
        assert sum(1 for o in s.obj_visible if o != GAP) == 3
        assert all(len(o) == 2 for o in s.offered) and len(s.contract_box) == 4
        check_state(g, s, 3)


def test_claim_cost_spends_matching_wagons_first():
    g = ce()
    idx = {k.key: i for i, k in enumerate(g.kinds)}
    obj = next(o for o in g.objectives if dict(o.needs) == {idx["coach"]: 2})
    w = [0] * len(g.kinds)
    w[idx["coach"]], w[idx["locomotive"]] = 1, 2
    assert sorted(claim_cost(g, w, obj)) == sorted([(idx["coach"], 1), (idx["locomotive"], 1)])
    w[idx["coach"]] = 3
    assert claim_cost(g, w, obj) == [(idx["coach"], 2)]
    w[idx["coach"]], w[idx["locomotive"]] = 0, 1
    assert claim_cost(g, w, obj) is None


def test_notation_round_trips():
    g = ce()
    for text in ("take 1 3", "claim 2", "end", "steal 1", "swap coach 2 locomotive", "token red", "choose c03"):
        assert format_market_move(parse_market_move(text, g), g) == text


def _choose_first(t: MarketTurn) -> None:
    """Keep the first contracts offered (through the turn's one mutator, ``apply``)."""
    while t.phase != DONE:
        t.apply(t.legal_moves()[0])


def test_turn_phases_and_refusals():
    g = ce()
    s = new_state(g, 2, random.Random(3))
    for seat in range(2):
        _choose_first(MarketTurn(g, s, seat, phase="choose"))
    t = MarketTurn(g, s, 0)
    assert t.phase == TAKE and END not in t.legal_moves()
    with pytest.raises(IllegalMove):
        t.apply(END)  # the take is compulsory
    with pytest.raises(IllegalMove):
        t.apply(Move("take", 0, 2))  # two tickets, the seat has none
    t.apply(Move("take", 0, 0))
    assert t.phase in (CLAIM, RESOLVE)
    check_state(g, s, 2)


def test_sandbox_hides_decks_and_never_touches_the_game():
    g = ce()
    s = new_state(g, 3, random.Random(11))
    for seat in range(3):
        _choose_first(MarketTurn(g, s, seat, phase="choose"))
    t = MarketTurn(g, s, 1)
    before = json.dumps([s.lines, s.decks, s.wagons, s.currency, s.obj_visible, s.obj_deck])
    sb = t.sandbox()
    assert all(c == HIDDEN for d in sb.state.decks for c in d) and all(o == HIDDEN for o in sb.state.obj_deck)
    assert sb.state.contracts[0] == [] and sb.state.contracts[1] == s.contracts[1]
    for _ in range(4):
        moves = sb.legal_moves()
        if not moves:
            break
        sb.apply(moves[0])
    assert json.dumps([s.lines, s.decks, s.wagons, s.currency, s.obj_visible, s.obj_deck]) == before
    assert t.phase == TAKE


def test_a_round_without_progress_is_a_stalemate():
    g = ce()
    s = MarketState(g, 2)  # nothing in the market, nothing to claim
    play = MarketPlay(g, s)
    ended = False
    for _ in range(2):
        t = play.new_turn()
        assert t.phase == CLAIM and t.legal_moves() == [END]
        ended = play.finish_turn(t)
    assert ended and play.reason == STALEMATE and play.passes == [1, 1]


def test_turn_limit_guard():
    g = compile_rules(load_rules(GAME, overlay={"end": {"turn_limit": {"turns": 5}}}))
    r = play_game(g, [make_bot("greedy", "market") for _ in range(3)], 1, check=True)
    assert r.end_reason == TURN_LIMIT and r.turns == 5 and r.winners == () and len(r.scores) == 3


def _first_trigger(r, players: int, trigger: int) -> tuple[int, int]:
    """(seat, index of its turn in the log) of the turn that triggered the end (claims counted from the log)."""
    claims = Counter()
    for i, (seat, moves) in enumerate(r.log):
        claims[seat] += sum(1 for m in moves if m.op == "claim")
        if claims[seat] >= trigger:
            return seat, i
    raise AssertionError("no trigger")


@pytest.mark.parametrize("final_round", ["others", "complete_round", "none"])
def test_final_round_after_the_trigger(final_round):
    g = ce(final_round=final_round)
    for seed in range(6):
        players = 2 + seed % 3
        r = play_game(g, [make_bot("greedy", "market") for _ in range(players)], seed, log=True)
        assert r.end_reason == WON
        seat, i = _first_trigger(r, players, g.trigger)
        after = len(r.log) - 1 - i
        want = {"others": players - 1, "none": 0, "complete_round": (g.first_seat - 1 - seat) % players}
        assert after == want[final_round]
        assert [s for s, _ in r.log[i + 1 :]] == [(seat + k) % players for k in range(1, after + 1)]


def test_seeded_games_replay_exactly():
    g = ce()
    a = play_game(g, [make_bot(b, "market") for b in ("greedy", "random", "greedy")], 99, log=True)
    b = play_game(g, [make_bot(b, "market") for b in ("greedy", "random", "greedy")], 99, log=True)
    assert a == b


def test_greedy_beats_random():
    g = ce()
    wins = sum(
        0 in play_game(g, [make_bot(b, "market") for b in ("greedy", "random", "random")], s).winners for s in range(60)
    )
    assert wins >= 40


# ------------------------------------------------------------------ property tests
@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 4),
    st.lists(st.sampled_from(["greedy", "random"]), min_size=4, max_size=4),
    st.sampled_from([(), ("refill-in-place",), ("shared-icons",), ("long-game",), ("equal-turns",)]),
    st.integers(0, 2**63 - 1),
)
def test_games_conserve_cards_and_end(players, bots, variant, seed):
    g = ce(*variant)
    r = play_game(g, [make_bot(b, "market") for b in bots[:players]], seed, check=True)
    event(f"end: {r.end_reason}")
    assert r.end_reason in (WON, STALEMATE)  # every game ends by the rules, not by the guard
    assert r.turns < g.turn_limit
    assert len(r.scores) == players and min(r.scores) >= 0
    assert r.winners and all(0 <= w < players for w in r.winners)
    assert all(r.scores[w] == max(r.scores) for w in r.winners)
    assert sum(r.cards_held) + sum(r.wagons_spent) <= 58 + 12


# ------------------------------------------------------------------ a replaceable card table
def _copy_rules(tmp_path: Path) -> tuple[Path, Path]:
    rule = tmp_path / "ce.yaml"
    shutil.copy(RULES, rule)
    (tmp_path / "tables").mkdir()
    table = tmp_path / "tables" / TABLE.name
    shutil.copy(TABLE, table)
    return rule, table


def test_a_replaced_card_table_is_checked_and_played(tmp_path):
    rule, table = _copy_rules(tmp_path)
    doc = yaml.safe_load(table.read_text())
    del doc["provisional"]  # the real list from the box
    doc["wagons"][0]["count"] -= 2
    doc["wagons"][-1]["count"] += 2
    doc["objectives"][0]["points"] = 9
    table.write_text(yaml.safe_dump(doc, sort_keys=False))
    p = run_cli("rules", "check", str(rule), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lr = load_rules(str(rule))
    assert lr.model.provisional is None and lr.model.sections()[0][0] != "Provisional data"
    g = compile_rules(lr)
    assert g.objectives[0].points == 9
    assert sum(k.count for k in g.kinds) == 82
    r = play_game(g, [make_bot("greedy", "market") for _ in range(2)], 5, check=True)
    assert r.end_reason in (WON, STALEMATE)
    show = run_cli("rules", "show", str(rule), cwd=tmp_path)
    assert show.returncode == 0 and "Provisional data" not in show.stdout


def test_card_table_errors_name_the_table_file_and_field(tmp_path):
    rule, table = _copy_rules(tmp_path)
    text = TABLE.read_text()
    table.write_text(text.replace("count: 12}", "count: 13}", 1).replace("company: purple}", "company: violet}", 1))
    p = run_cli("rules", "check", str(rule), cwd=tmp_path)
    assert p.returncode == 2
    assert f"{table}: objectives #17 \"Ice cream express\".company: unknown company 'violet'" in p.stderr
    table.write_text(text.replace("count: 12}", "count: 13}", 1))
    p = run_cli("rules", "check", str(rule), cwd=tmp_path)
    assert p.returncode == 2 and f"{table}: wagons: the table has 59, the published total is 58" in p.stderr
    table.write_text(text.replace("points: 2, company: red}", "points: two, company: red}", 1))
    p = run_cli("rules", "check", str(rule), cwd=tmp_path)
    assert p.returncode == 2 and f'{table}: objectives #1 "Commuter service".points:' in p.stderr
    table.unlink()
    with pytest.raises(RulesError, match="card_table: no such file"):
        load_rules(str(rule))


def test_card_table_option_points_at_another_file(tmp_path):
    doc = yaml.safe_load(TABLE.read_text())
    doc["objectives"][0]["points"] = 11
    other = tmp_path / "my-cards.yaml"
    other.write_text(yaml.safe_dump(doc, sort_keys=False))
    g = ce(card_table=str(other))
    assert g.objectives[0].points == 11 and g.options["card_table"] == str(other)


# ------------------------------------------------------------------ the command line
def test_cli_run_records_scores(tmp_path):
    out = tmp_path / "ce.parquet"
    p = run_cli(
        "run",
        "--game",
        GAME,
        "-p",
        "3",
        "-n",
        "200",
        "--seed",
        "4",
        "--json",
        "--workers",
        "2",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["games"] == 200 and "provisional" in summary
    assert summary["end_reasons"]["turn_limit"]["count"] == 0
    import polars as pl

    df = pl.read_parquet(out)
    assert df.height == 200
    assert all(len(s) == 3 for s in df["scores"].to_list())
    assert all(max(s) == s[w[0]] for s, w in zip(df["scores"].to_list(), df["winners"].to_list(), strict=True) if w)


def test_cli_rules_show_and_test(tmp_path):
    p = run_cli("rules", "show", GAME, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    body = p.stdout.split("\n", 2)[2]
    assert body.lstrip().startswith("Provisional data")
    p = run_cli("rules", "test", GAME, cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.strip().endswith("passed, 0 failed")
    p = run_cli("run", "--game", GAME, "-p", "5", "-n", "2", cwd=tmp_path)
    assert p.returncode == 2 and "2 to 4 players" in p.stderr


def test_bots_only_read_through_the_turn():
    """A bot plays from public information: hiding the decks' order does not change its choices."""
    g = ce()
    s = new_state(g, 3, random.Random(21))
    for seat in range(3):
        _choose_first(MarketTurn(g, s, seat, phase="choose"))
    bot = make_bot("greedy", "market")
    bot.new_game(g, 0, 3, 5)
    t = MarketTurn(g, s, 0)
    t.log = []
    bot.play_turn(t)
    s2 = new_state(g, 3, random.Random(21))
    for seat in range(3):
        _choose_first(MarketTurn(g, s2, seat, phase="choose"))
    for d in s2.decks:
        random.Random(0).shuffle(d)
    bot2 = make_bot("greedy", "market")
    bot2.new_game(g, 0, 3, 5)
    t2 = MarketTurn(g, s2, 0)
    t2.log = []
    bot2.play_turn(t2)
    assert t.log[0] == t2.log[0]  # the first decision (the purchase) cannot depend on the decks' order
    assert t.phase == DONE


def test_logged_games_replay_from_their_seed(tmp_path):
    from kbsim.engine.market import replay_market_log

    g = ce()
    r = play_game(g, [make_bot("greedy", "market") for _ in range(3)], 17, log=True)
    lines = replay_market_log(g, 3, 17, r.log)
    assert len(lines) == 3 + r.turns and lines[-1]["turn"] == r.turns
    with pytest.raises(IllegalMove):  # the same moves do not fit another deal
        replay_market_log(g, 3, 18, r.log)
    p = run_cli("replay", "--game", GAME, "-p", "3", "--seed", "1", "-i", "0", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["log"][0]["moves"][0].startswith("choose ")


def test_a_taken_character_acts_before_its_line_refills():
    """#16 §5: the notice applies a character's effect *immédiatement*, then the line slides and refills.

    The default reading: the refill can neither feed the Investor's free take nor turn up an event before it.
    The same moves under ``character_timing: after_refill`` give the other result (so the test can fail).
    """
    loaded = load_rules(str(RULES))
    assert compile_rules(loaded).character_first
    names = {
        "character-acts-before-the-refill",
        "character-acts-after-the-refill",
        "event-in-the-refill-comes-after-the-character",
    }
    chosen = [ex for ex in loaded.model.examples if ex.name in names]
    assert len(chosen) == 3
    assert all(r.ok for r in run_market_examples(loaded, chosen)), [
        r.message for r in run_market_examples(loaded, chosen)
    ]
    other = load_rules(str(RULES), options={"character_timing": "after_refill"})
    assert not compile_rules(other).character_first
    before = [ex for ex in chosen if ex.name != "character-acts-after-the-refill"]
    got = run_market_examples(other, [ex.model_copy(update={"options": {}}) for ex in before])
    assert [r.ok for r in got] == [False, False]
    assert "seat 0 wagons tanker != expected boxcar" in got[0].message
    assert "seat 0 wagons coach != expected boxcar" in got[1].message


def test_a_new_power_is_one_registry_entry(monkeypatch):
    """A character power is one entry of ``POWERS``: move generation, the turn and the notation find it there."""
    from dataclasses import replace

    from kbsim.engine.market import powers

    def gift_moves(g, st, seat):
        return [Move("gift", s) for s in range(st.players) if s != seat] if st.currency[seat] else []

    def gift(turn, move):
        turn.state.currency[turn.seat] -= 1
        turn.state.currency[move.a] += 1

    monkeypatch.setitem(powers.POWERS, "gift", powers.Power("gift", "gift", ("seat",), gift_moves, gift))
    g = ce()
    g = replace(g, kinds=tuple(replace(k, op="gift") if k.op == "take_token" else k for k in g.kinds))
    gifts = 0
    for seed in range(30):
        r = play_game(g, [make_bot("random", "market") for _ in range(3)], seed, check=True, log=True)
        for _, moves in r.log:
            for m in moves:
                assert parse_market_move(format_market_move(m, g), g) == m
                gifts += m.op == "gift"
    assert gifts > 0
