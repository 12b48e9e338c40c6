"""The complete game, solo and cooperative: character powers as data, whole games, rule checks, determinism.

Sections:

1. Made-up characters declared only in a test rule file (no Python) run their
   examples and are played in whole games; malformed power steps are refused.
2. Property tests: whole games with characters, solo and cooperative keep the
   invariants and end legally, with consistent scores.
3. Rule checks through the Turn API on hand-made states.
4. Determinism of runs with characters across backends and chunk sizes.
5. The CLI: a solo run's score summary; the shipped examples.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from conftest_characters import (
    HOARDER,
    JESTER,
    REPO,
    SHIPPED_KEYS,
    TRICKSTER,
    cli,
    custom_document,
    make_state,
    rules,
    turn_of,
    write_yaml,
)
from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.examples import load_example_file, run_example, run_examples
from kbsim.engine.rows.game import ALL_OUT, STALEMATE, TURN_LIMIT, WON, check_invariants, play_game, team_score
from kbsim.engine.rows.moves import (
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
from kbsim.engine.rows.notation import format_move, parse_move
from kbsim.engine.rows.turn import DONE
from kbsim.rules.loader import RulesError, load_rules
from kbsim.sim.records import to_table
from kbsim.sim.runner import Backend, ProcessesBackend, RunSpec, run_games

RACE_ENDS = {WON, STALEMATE, TURN_LIMIT}
SCORED_ENDS = {ALL_OUT, TURN_LIMIT}
STORY_CARDS_DEALT = 98  # 104 minus the six row starts


# =============================================================================== helpers
def _given_per_play(g, key: str, players: int) -> int:
    """Story cards a play of ``key`` moves from the rows onto draw piles (give-row-starts steps)."""
    n = 0
    for step in g.character(key).steps:
        if step.kind == "give_row_starts":
            n += players - 1 if players > 1 else (1 if step.solo_to_self else 0)
    return n


def cards_given(g, result, players: int) -> int:
    """Story cards handed from the rows onto draw piles during the game (by Wigelm-like powers)."""
    return sum(k * _given_per_play(g, key, players) for (_seat, key), k in result.character_plays.items())


def joker_keys(g) -> set[str]:
    return {c.key for c in g.roster if c.is_joker}


def snapshot(state, turn):
    """Everything a move may change: the whole state and the turn's counters."""
    return (
        state.copy(),
        turn.phase,
        turn.laid,
        turn.rebuilds,
        turn.completed,
        turn.chars_played,
        turn.skips,
        turn.m_start,
        turn.m_equal,
        turn.minus_cards,
    )


def turn_can_finish(turn, depth: int = 3) -> bool:
    """True if some sequence of at most ``depth`` legal moves ends the turn (phase DONE)."""
    if turn.phase == DONE:
        return True
    if depth == 0:
        return False
    for mv in turn.legal_moves():
        t = turn.clone()
        try:
            t.apply(mv)
        except IllegalMove:  # pragma: no cover - legal_moves listed it
            return False
        if turn_can_finish(t, depth - 1):
            return True
    return False


# =============================================================================== 1. characters as data
@pytest.fixture(scope="module")
def custom_file(tmp_path_factory) -> Path:
    """The shipped rules plus two made-up characters (with their own examples), in a temporary rule file."""
    path = tmp_path_factory.mktemp("custom") / "kingsbridge-custom.yaml"
    return write_yaml(path, custom_document(trickster=TRICKSTER, hoarder=HOARDER))


def test_engine_code_names_no_character():
    """No string literal of the engine, bots or rules code names a character (docstrings aside)."""
    src = REPO / "src" / "kbsim"
    hits = []
    for path in [*(src / "engine").glob("*.py"), *(src / "bots").glob("*.py"), *(src / "rules").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                words = set(node.value.lower().replace("_", " ").split())
                hits.extend((path.name, node.value) for k in SHIPPED_KEYS if k in words)
    assert hits == []


def test_custom_characters_compile_from_data(custom_file):
    g = rules("characters", game=custom_file)
    keys = [c.key for c in g.roster]
    assert keys[-2:] == ["trickster", "hoarder"] and len(keys) == 12
    assert [s.kind for s in g.character("trickster").steps] == ["remove_from_row_end", "modifier"]
    assert [s.kind for s in g.character("hoarder").steps] == ["take_from_discard", "park"]
    assert g.character("trickster").name == "Trickster"
    assert not g.character("trickster").is_joker and not g.character("hoarder").is_joker


@pytest.fixture
def cached_loader(monkeypatch):
    """Run examples with each distinct (file, variants, options, overlay) loaded once.

    ``run_example`` reloads and revalidates the YAML file for every example
    (about 0.1 s each with the pure-Python YAML parser); the loaded rules are a
    pure function of those arguments, so caching changes nothing but the time.
    """
    import kbsim.engine.rows.examples as examples_mod

    real = examples_mod.load_rules
    cache: dict = {}

    def load(game="kingsbridge", variants=(), options=None, overlay=None):
        key = json.dumps([str(game), list(variants), options or {}, overlay or {}], sort_keys=True, default=str)
        if key not in cache:
            cache[key] = real(game, variants, options, overlay)
        return cache[key]

    monkeypatch.setattr(examples_mod, "load_rules", load)
    return cache


def test_custom_character_examples_pass(custom_file, cached_loader):
    results = run_examples(custom_file)
    assert cached_loader  # the examples went through the real loader
    failed = [(r.name, r.message) for r in results if not r.ok]
    assert failed == []
    # every character's examples ran, named KEY/NAME: the made-up ones and the shipped ones (the file
    # holds every shipped example too, so this also checks the shipped names and results)
    model = load_rules(str(custom_file)).model
    expected = {ex.name for ex in model.examples}
    for key, ch in model.characters.roster.items():
        expected |= {f"{key}/{ex.name}" for ex in ch.examples}
    assert sorted(r.name for r in results) == sorted(expected)
    for key, spec in (("trickster", TRICKSTER), ("hoarder", HOARDER)):
        assert {f"{key}/{ex['name']}" for ex in spec["examples"]} <= expected
    assert {key for key in SHIPPED_KEYS if any(n.startswith(f"{key}/") for n in expected)} == set(SHIPPED_KEYS)


def test_custom_characters_in_example_file_via_cli(custom_file, tmp_path):
    good = [
        {
            "name": "trickster-start-then-end",
            "setup": {"character": "trickster"},
            "rows": ["4-6", "10", "10", "10", "10", "10"],
            "hand": "3 6 7",
            "draw_pile": "1",
            "moves": ["play trickster 1 1", "lay 3 at start of 1", "lay 6 on 1", "lay 7 on 1"],
            "expect": {"rows": ["3-7", "10", "10", "10", "10", "10"], "hand": "", "discard": 1, "laid": 3},
        },
        {
            "name": "trickster-no-start-without-it",
            "rows": ["4-6", "10", "10", "10", "10", "10"],
            "hand": "3",
            "moves": ["lay 3 at start of 1"],
            "expect": {"illegal": 1},
        },
        {
            "name": "hoarder-takes-only-one",
            "setup": {"character": "hoarder", "discard": "7 8"},
            "rows": ["4-6", "10", "10", "10", "10", "10"],
            "hand": "2 9",
            "draw_pile": "1",
            "moves": ["play hoarder 7 on 1, 8 on 1 then 9"],
            "expect": {"illegal": 1},
        },
        {
            "name": "hoarder-discard-card-must-fit",
            "setup": {"character": "hoarder", "discard": "9"},
            "rows": ["4-6", "10", "10", "10", "10", "10"],
            "hand": "2",
            "moves": ["play hoarder 9 on 1 then 2"],
            "expect": {"illegal": 1},
        },
    ]
    path = write_yaml(tmp_path / "extra.yaml", {"rules": str(custom_file), "examples": good})
    res = cli("rules", "test", str(path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert f"{len(good)} passed, 0 failed" in res.stdout
    # the examples really check their expectations: a wrong one fails and says what differed
    (ex,) = load_example_file(
        write_yaml(
            tmp_path / "bad.yaml",
            {
                "rules": str(custom_file),
                "examples": [
                    dict(good[0], name="trickster-wrong", expect={"rows": ["2-7", "10", "10", "10", "10", "10"]})
                ],
            },
        )
    ).examples
    res = run_example(custom_file, ex)
    assert not res.ok and "rows" in res.message


def test_custom_characters_played_in_whole_games(custom_file):
    g = rules("characters", game=custom_file)
    plays: Counter = Counter()
    ends: Counter = Counter()
    for players in (2, 3, 4, 5):
        for seed in range(8):
            r = play_game(g, [make_bot("greedy") for _ in range(players)], seed, check=True)
            ends[r.end_reason] += 1
            assert r.end_reason in RACE_ENDS
            for (seat, key), k in r.character_plays.items():
                assert 0 <= seat < players and k >= 1
                plays[key] += k
    for seed in range(2):  # random play reaches other corners; it is slower, so only a couple of games
        r = play_game(g, [make_bot("random"), make_bot("greedy"), make_bot("random")], seed, check=True)
        ends[r.end_reason] += 1
        assert r.end_reason in RACE_ENDS
        for (_seat, key), k in r.character_plays.items():
            plays[key] += k
    assert plays["trickster"] >= 1, plays
    assert plays["hoarder"] >= 1, plays
    assert set(plays) <= {c.key for c in g.roster}
    assert ends[WON] >= 1


def test_play_notation_round_trips_for_made_up_characters(custom_file):
    """Every listed play of a made-up character prints as notation that parses back to the same move.

    With an empty discard pile the hoarder's first step takes no card, so the
    notation must still show where its second step begins.
    """
    g = rules("characters", game=custom_file)
    for discard in ("8 11", ""):
        s = make_state(
            ["3-7", "9", "9", "9", "9", "_"],
            ["5 12", "1"],
            ["2", "2"],
            discard=discard,
            char_piles=[["hoarder"], ["trickster"]],
        )
        for seat in (0, 1):
            t = turn_of(g, s, seat)
            plays = t.play_moves()
            assert plays
            for mv in plays:
                text = format_move(mv, t.rows, g)
                assert parse_move(text, t.rows, g) == mv, text
    # written by hand: nothing taken from an empty discard pile, then the 9 parked
    s = make_state(["4-6", "10", "10", "10", "10", "10"], ["2 9", "1"], ["1", "1"], char_piles=[["hoarder"], []])
    assert parse_move("play hoarder then 9", s.rows, g) == Play("hoarder", ((), (9,)))


BAD_STEPS = {
    "two-primitives": (
        [{"remove_from_row_end": {"min": 1, "max": 1}, "park": {"min": 1, "max": 1}}],
        "exactly one primitive",
    ),
    "unknown-primitive": ([{"teleport": {"rows": 2}}], "teleport"),
    "no-primitive": ([{}], "exactly one primitive"),
    "bad-modifier-kind": ([{"modifier": {"kind": "fly"}}], "kind"),
}


def test_every_power_step_field_names_a_registered_primitive():
    """The schema's PowerStep fields and the rows family's primitive registry list the same primitives, and a
    step naming no registered primitive is refused by the compiler (not silently dropped)."""
    from types import SimpleNamespace

    from kbsim.engine.rows.powers import PRIMITIVES, Primitive, compile_character
    from kbsim.rules.schema import PowerStep

    assert set(PowerStep.model_fields) == set(PRIMITIVES)
    for name, cls in PRIMITIVES.items():
        assert issubclass(cls, Primitive) and cls.kind == name
    step = SimpleNamespace(kind="teleport", params=None)
    with pytest.raises(ValueError, match="teleport"):
        compile_character("x", SimpleNamespace(name="X", power=[step]), None)


def test_invalid_power_steps_are_rejected(tmp_path):
    paths = {}
    for case, (power, _words) in BAD_STEPS.items():
        doc = custom_document(broken={"name": "Broken", "summary": "x", "power": power})
        paths[case] = write_yaml(tmp_path / f"{case}.yaml", doc)
    for case, (_power, words) in BAD_STEPS.items():
        with pytest.raises(RulesError, match=r"characters\.roster\.broken\.power #1\b") as info:
            load_rules(str(paths[case]))
        assert words in str(info.value), case
    res = cli("rules", "check", *(str(p) for p in paths.values()), cwd=tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    lines = [ln for ln in res.stderr.splitlines() if "characters.roster.broken.power #1" in ln]
    for case, (_power, words) in BAD_STEPS.items():
        assert any(str(paths[case]) in ln and words in ln for ln in lines), (case, res.stderr)


def test_a_second_joker_character_is_refused_or_plays_legally(tmp_path):
    """A made-up joker next to Edgar: the rules must either refuse the file or keep every character card.

    The engine keeps one joker slot and marks any joker in a row with the
    roster's first joker key, so playing the second one changes the cards.
    """
    path = write_yaml(tmp_path / "two-jokers.yaml", custom_document(jester=JESTER))
    try:
        g = rules("characters", game=path)
    except RulesError as e:
        assert "joker" in str(e)
        return
    for players in (2, 3, 4, 5):
        for seed in range(10):
            play_game(g, [make_bot("greedy") for _ in range(players)], seed, check=True)


def test_a_made_up_joker_puts_itself_on_the_table(tmp_path):
    """Playing a made-up joker character lays that very card, not Edgar."""
    path = write_yaml(tmp_path / "two-jokers.yaml", custom_document(jester=JESTER))
    try:
        g = rules("characters", game=path)
    except RulesError:
        pytest.skip("the rules refuse a second joker character")
    s = make_state(["8-9", "2", "2", "2", "2", "2"], ["11 3", "4"], ["5", "5"], char_piles=[["jester"], ["edgar"]])
    chars0 = s.characters()
    t = turn_of(g, s, 0)
    t.apply(Play("jester", ((10, 0),)))
    assert s.rows[0] == [8, 9, -10]
    assert s.joker == "jester"
    assert s.characters() == chars0


# =============================================================================== 2. properties
PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),  # no shrinking: a failing game is reported as found
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def race_setups(draw):
    players = draw(st.integers(2, 5))
    if draw(st.integers(0, 4)) == 0:  # random play is slower: about one game in five has random seats
        bots = draw(st.lists(st.sampled_from(["greedy", "random"]), min_size=players, max_size=players))
    else:
        bots = ["greedy"] * players
    return players, bots, draw(st.integers(0, 2**63 - 1))


@PROPERTY
@given(race_setups())
def test_character_games_keep_invariants(setup):
    players, bots, seed = setup
    g = rules("characters")
    r = play_game(g, [make_bot(b) for b in bots], seed, check=True)
    event(f"end: {r.end_reason}")
    assert r.end_reason in RACE_ENDS
    assert r.score is None
    assert r.minus_cards == [0] * players
    assert 1 <= r.turns <= g.turn_limit
    keys = {c.key for c in g.roster}
    for (seat, key), k in r.character_plays.items():
        assert 0 <= seat < players and key in keys and 1 <= k <= r.turns
    # every story card dealt, or handed onto a pile from the rows, is still held or was laid
    assert sum(r.cards_left) + sum(r.cards_laid) == STORY_CARDS_DEALT + cards_given(g, r, players)
    if r.end_reason == WON:
        (w,) = r.winners
        assert r.cards_left[w] == 0
        assert all(r.cards_left[k] > 0 for k in range(players) if k != w)
    elif r.end_reason == STALEMATE:
        low = min(r.cards_left)
        assert r.winners == tuple(k for k in range(players) if r.cards_left[k] == low)
    else:
        assert r.winners == () and r.turns == g.turn_limit


@st.composite
def scored_setups(draw):
    variant = draw(st.sampled_from(["solo", "cooperative"]))
    players = 1 if variant == "solo" else draw(st.integers(2, 5))
    # random play of solo/cooperative takes seconds per game: about one game in eight has random seats
    if draw(st.integers(0, 7)) == 0:
        bots = draw(st.lists(st.sampled_from(["greedy", "random"]), min_size=players, max_size=players))
    else:
        bots = ["greedy"] * players
    return variant, players, bots, draw(st.integers(0, 2**63 - 1))


def assert_score_consistent(g, r, players: int) -> None:
    """The team score against what the result shows: plays, minus cards and the score's bounds."""
    per_char, per_row, per_minus, win_at, _ = g.score
    n_chars = len(g.roster)
    best = per_char * n_chars + per_row * g.n_rows
    assert best == 22
    assert r.score <= best
    jokers = joker_keys(g)
    played = Counter()
    for (_seat, key), k in r.character_plays.items():
        played[key] += k
    for key, k in played.items():
        if key not in jokers:
            assert k == 1, f"{key} played {k} times, but a used character goes to the box"
    once = sum(1 for key in played if key not in jokers)
    joker_out = 1 if any(k in played for k in jokers) else 0
    minus = sum(r.minus_cards)
    # unplayed characters: all but those boxed; a joker played may be back in the deck
    possible = {
        per_char * u + per_row * e + per_minus * minus
        for u in range(n_chars - once - joker_out, n_chars - once + 1)
        for e in range(g.n_rows + 1)
    }
    assert r.score in possible
    assert (r.winners == tuple(range(players))) == (r.score >= win_at)
    assert r.winners in ((), tuple(range(players)))


@PROPERTY
@given(scored_setups())
def test_solo_and_cooperative_games_keep_invariants(setup):
    variant, players, bots, seed = setup
    g = rules(variant)
    r = play_game(g, [make_bot(b) for b in bots], seed, check=True)
    event(f"{variant}: {r.end_reason}")
    assert r.end_reason in SCORED_ENDS
    assert r.exchanges == [0] * players and r.passes == [0] * players
    if r.end_reason == TURN_LIMIT:
        assert r.score is None and r.winners == ()
        return
    assert r.cards_left == [0] * players, "the game ended with every seat out, yet some seat holds cards"
    assert sum(r.cards_laid) + sum(r.minus_cards) == STORY_CARDS_DEALT + cards_given(g, r, players)
    assert_score_consistent(g, r, players)


def test_team_score_formula_on_a_hand_made_table():
    g = rules("cooperative")
    s = make_state(["_", "_", "3", "4", "5", "6", "10"], ["", ""], display=["den", "ragna"], char_deck=["gytha"])
    s.minus = [[1], [2, 3]]
    # 3 unplayed characters, 2 empty row cards (the extra row never counts), 3 minus cards
    assert team_score(g, s) == 3 * 1 + 2 * 2 - 3 * 5
    best = make_state(["_"] * 6, [""], display=list(SHIPPED_KEYS[:3]), char_deck=list(SHIPPED_KEYS[3:]))
    assert team_score(rules("solo"), best) == 22


# =============================================================================== 2b. known dead ends, whole games
def test_race_seat_with_empty_hand_but_cards_in_pile_can_finish_its_turn():
    """A seat with no hand or draw-pile cards but a parked card is not out; Wigelm may then put a card on its
    draw pile. It starts its next turn with an empty hand and one card in the pile: that turn must be playable.
    """
    g = rules("characters")
    s = make_state(["5", "5", "5", "5", "5", "5"], ["2 3", ""], ["9", "7"], char_piles=[[], []], turn_no=8)
    s.parked[1] = [(1, 4)]  # fits nowhere
    t = turn_of(g, s, 1)
    assert t.hand == [] and t.pile_size == 1 and t.parked == [1]
    assert turn_can_finish(t), f"no way to end the turn; legal moves: {t.legal_moves()}"


def test_race_game_where_wigelm_refills_an_empty_hand_ends_legally():
    g = rules("characters")
    r = play_game(g, [make_bot("greedy") for _ in range(4)], 5, check=True)
    assert r.end_reason in RACE_ENDS


def test_scored_seat_holding_only_parked_cards_can_finish_its_turn():
    """Solo/cooperative: a seat whose only cards are parked ones that fit nowhere must still have a move."""
    for variant, hands in (("cooperative", ["", "4 6"]), ("solo", [""])):
        g = rules(variant)
        s = make_state(["5", "5", "5", "5", "5", "5"], hands, turn_no=9)
        s.parked[0] = [(2, 3)]
        t = turn_of(g, s, 0)
        assert not t.won
        assert turn_can_finish(t), f"{variant}: no way to end the turn; legal moves: {t.legal_moves()}"


def test_cooperative_game_with_stuck_parked_card_ends_legally():
    g = rules("cooperative")
    r = play_game(g, [make_bot("random") for _ in range(4)], 5, check=True)
    assert r.end_reason in SCORED_ENDS


@pytest.mark.parametrize(("players", "seed"), [(2, 6), (3, 7), (5, 16)])
def test_cooperative_wigelm_never_strands_cards_with_a_seat_that_is_out(players, seed):
    """In these games Wigelm hands a row start to a teammate who is already out."""
    g = rules("cooperative")
    r = play_game(g, [make_bot("greedy") for _ in range(players)], seed, check=True)
    assert r.end_reason == ALL_OUT
    assert r.cards_left == [0] * players
    assert sum(r.cards_laid) + sum(r.minus_cards) == STORY_CARDS_DEALT + cards_given(g, r, players)


# =============================================================================== 3. rule checks (Turn API)
ROWS9 = ["3-7", "9", "9", "9", "9", "9"]


def test_only_the_top_of_ones_own_pile_and_only_one_per_turn():
    g = rules("characters")
    s = make_state(ROWS9, ["6 7 2", "4", "4"], ["1", "1", "1"], char_piles=[["wynstan", "ragna"], ["den"], []])
    t = turn_of(g, s, 0)
    assert t.available_characters() == ["wynstan"]
    assert {m.key for m in t.play_moves()} == {"wynstan"}
    before = snapshot(s, t)
    with pytest.raises(IllegalMove):
        t.apply(Play("ragna", ((),)))  # not the top card
    with pytest.raises(IllegalMove):
        t.apply(Play("den", ((0,),)))  # another seat's character
    assert snapshot(s, t) == before
    t.apply(Play("wynstan", ((0, 1),)))
    assert s.rows[0] == [3, 4, 5, 6] and s.discard == [7]
    assert s.char_piles[0] == ["ragna"]
    assert t.available_characters() == [] and t.play_moves() == []
    with pytest.raises(IllegalMove, match="cannot be played"):
        t.apply(Play("ragna", ((),)))  # now on top, but one per turn
    assert not any(isinstance(m, Play) for m in t.legal_moves())
    t.apply(Lay(7, 0))
    t.apply(EndTurn())
    assert turn_of(g, s, 1).available_characters() == ["den"]
    assert s.char_plays == Counter({(0, "wynstan"): 1})


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (2, 1), (3, 1), (3, 2), (5, 4)])
def test_a_played_character_goes_under_the_left_neighbours_pile(players, seat):
    g = rules("characters")
    piles = [["agatha"] for _ in range(players)]
    piles[seat] = ["ragna", "den"]
    s = make_state(["2-4", "5-8", "1", "1", "1", "1"], ["4"] * players, ["1"] * players, char_piles=piles)
    t = turn_of(g, s, seat)
    t.apply(Play("ragna", ((),)))
    left = (seat + 1) % players
    assert s.char_piles[seat] == ["den"]
    assert s.char_piles[left] == ["agatha", "ragna"]  # under the pile: the top stays on top
    assert s.box == [] and s.display == []
    assert s.char_plays == Counter({(seat, "ragna"): 1})


def test_display_mode_character_goes_to_the_box_and_the_display_refills():
    g = rules("solo")
    s = make_state(ROWS9, ["6 7 2"], ["1 2"], display=["den", "ragna", "agatha"], char_deck=["gytha", "wigelm"])
    t = turn_of(g, s, 0)
    assert sorted(t.available_characters()) == ["agatha", "den", "ragna"]
    t.apply(Play("den", ((0,),)))
    assert s.box == ["den"]
    assert sorted(s.display) == ["agatha", "ragna", "wigelm"]  # the deck's top card is revealed
    assert s.char_deck == ["gytha"]
    assert s.char_piles == [[]]
    assert t.available_characters() == []


def test_cooperative_display_is_shared_and_empties_without_refill():
    g = rules("cooperative")
    s = make_state(ROWS9, ["6 7", "2 9"], ["1", "1"], display=["ragna", "agatha"], char_deck=[])
    t0 = turn_of(g, s, 0)
    t0.apply(Play("agatha", ((),)))
    t0.apply(Lay(7, 0))
    t0.apply(EndTurn())
    t1 = turn_of(g, s, 1)
    assert t1.available_characters() == ["ragna"]  # the same display serves every seat
    t1.apply(Play("ragna", ((),)))
    assert s.display == [] and sorted(s.box) == ["agatha", "ragna"]
    assert s.char_piles == [[], []]


JOKER_ROWS = ["8 9 E10 11", "2", "2", "2", "2", "2"]


def test_edgar_swapped_by_the_exact_card_goes_under_the_swappers_pile():
    g = rules("characters")
    s = make_state(
        JOKER_ROWS, ["3", "9 10 3", "5"], ["1", "1", "1"], char_piles=[["den"], ["ragna"], []], joker="edgar"
    )
    t = turn_of(g, s, 1)
    before = snapshot(s, t)
    with pytest.raises(IllegalMove):
        t.apply(Swap(9))  # not the value he stands for
    with pytest.raises(IllegalMove):
        t.apply(Swap(5))  # not in hand
    assert snapshot(s, t) == before
    t.apply(Swap(10))
    assert s.rows[0] == [8, 9, 10, 11]
    assert s.joker is None
    assert s.char_piles == [["den"], ["ragna", "edgar"], []]
    assert t.chars_played == 0 and s.char_plays == Counter()  # not a character play
    assert t.available_characters() == ["ragna"]
    t.apply(Play("ragna", ((),)))  # the turn's character is still free
    assert s.char_piles[2] == ["ragna"]


def test_edgar_swap_only_in_a_lay_out_turn_and_never_with_a_parked_card():
    g = rules("characters")
    s = make_state(JOKER_ROWS, ["3 4", "2"], ["1", "1"], char_piles=[[], []], joker="edgar")
    s.parked[0] = [(10, 0)]
    t = turn_of(g, s, 0)
    with pytest.raises(IllegalMove):
        t.apply(Swap(10))
    assert not any(isinstance(m, Swap) for m in t.legal_moves())
    s2 = make_state(JOKER_ROWS, ["10 3", "2"], ["1", "1"], char_piles=[[], []], joker="edgar")
    t2 = turn_of(g, s2, 0)
    t2.apply(Exchange((3,)))
    with pytest.raises(IllegalMove):
        t2.apply(Swap(10))


def test_edgar_swapped_in_display_mode_goes_to_the_bottom_of_the_deck():
    g = rules("solo")
    s = make_state(JOKER_ROWS, ["10 3"], ["1"], display=["den", "ragna", "agatha"], char_deck=["gytha"], joker="edgar")
    t = turn_of(g, s, 0)
    t.apply(Swap(10))
    assert s.char_deck == ["edgar", "gytha"] and s.box == [] and s.joker is None
    assert s.display == ["den", "ragna", "agatha"] and s.char_plays == Counter()


@pytest.mark.parametrize(
    ("power", "args", "discard"),
    [
        ("wynstan", ((0, 1),), []),
        ("wynstan", ((0, 2),), [4]),
        ("den", ((0,),), [3, 4]),
    ],
)
def test_edgar_removed_by_a_power_goes_to_the_removers_left_neighbour(power, args, discard):
    g = rules("characters")
    s = make_state(
        ["3 4 E5", "2", "2", "2", "2", "2"],
        ["9", "9", "9"],
        ["1", "1", "1"],
        char_piles=[["aldred"], [power], ["agatha"]],
        joker="edgar",
    )
    t = turn_of(g, s, 1)
    t.apply(Play(power, args))
    assert s.joker is None
    assert sorted(s.discard) == discard  # only story cards reach the discard pile
    assert s.char_piles == [["aldred"], [], ["agatha", "edgar", power]]
    assert s.char_plays == Counter({(1, power): 1})


def test_edgar_removed_in_display_mode_goes_to_the_box():
    g = rules("solo")
    s = make_state(
        ["3 4 E5", "2", "2", "2", "2", "2"], ["9"], ["1"], display=["wynstan"], char_deck=["den"], joker="edgar"
    )
    t = turn_of(g, s, 0)
    t.apply(Play("wynstan", ((0, 1),)))
    assert sorted(s.box) == ["edgar", "wynstan"] and s.char_deck == [] and s.display == ["den"]
    assert s.discard == []


def test_den_clears_a_row_with_edgar_in_the_middle():
    g = rules("characters")
    s = make_state(
        ["3 4 E5 6", "2", "2", "2", "2", "2"], ["9", "9"], ["1", "1"], char_piles=[["den"], []], joker="edgar"
    )
    t = turn_of(g, s, 0)
    t.apply(Play("den", ((0,),)))
    assert sorted(s.discard) == [3, 4, 6] and s.rows[0] == []
    assert s.char_piles == [[], ["edgar", "den"]]
    t.apply(Lay(9, 0))  # restarted at once
    assert s.rows[0] == [9]


@pytest.mark.parametrize("seat", [0, 2])
def test_completing_edgars_row_gives_him_to_the_completer(seat):
    g = rules("characters")
    s = make_state(
        ["1-4 E5 6-12", "2", "2", "2", "2", "2"],
        ["13 3", "13 3", "13 3"],
        ["1", "1", "1"],
        char_piles=[["den"], [], ["ragna"]],
        joker="edgar",
    )
    t = turn_of(g, s, seat)
    t.apply(Lay(13, 0))
    assert t.completed == 1 and s.rows[0] == [] and s.joker is None
    assert sorted(s.discard) == [v for v in range(1, 14) if v != 5]  # story cards only
    assert s.char_piles[seat][-1] == "edgar"
    assert sum(p.count("edgar") for p in s.char_piles) == 1
    assert s.char_plays == Counter()


def test_completing_edgars_row_by_a_rebuild_gives_him_to_the_rebuilder():
    g = rules("characters")
    s = make_state(
        ["1-4 E5 6-8", "9-13", "2", "2", "2", "2"], ["3", "3"], ["1", "1"], char_piles=[[], ["wynstan"]], joker="edgar"
    )
    t = turn_of(g, s, 1)
    t.apply(Rebuild(1, 5, 0))
    assert t.completed == 1 and s.rows[:2] == [[], []]
    assert len(s.discard) == 12 and all(c > 0 for c in s.discard)
    assert s.char_piles == [[], ["wynstan", "edgar"]]


def test_completing_edgars_row_in_display_mode_puts_him_under_the_deck():
    g = rules("solo")
    s = make_state(
        ["1-4 E5 6-12", "2", "2", "2", "2", "2"],
        ["13 3"],
        ["1"],
        display=["den", "gytha", "agatha"],
        char_deck=["ragna"],
        joker="edgar",
    )
    t = turn_of(g, s, 0)
    t.apply(Lay(13, 0))
    assert s.char_deck == ["edgar", "ragna"] and s.box == [] and s.joker is None
    assert len(s.discard) == 12


def test_wigelm_alone_puts_the_card_on_ones_own_pile():
    g = rules("solo")
    s = make_state(["5-7", "9", "9", "9", "9", "9"], ["1"], ["2 3"], display=["wigelm"])
    t = turn_of(g, s, 0)
    with pytest.raises(IllegalMove):
        t.apply(Play("wigelm", ((0, 1),)))  # one recipient only: oneself
    t.apply(Play("wigelm", ((0,),)))
    assert s.rows[0] == [6, 7]
    assert s.piles[0][::-1] == [5, 2, 3]  # on top, face down
    assert t.hand == [1]


def test_wigelm_gives_row_starts_to_the_others_in_turn_order():
    g = rules("characters")
    s = make_state(["5-7", "9", "9", "9", "9", "9"], ["1", "1", "1"], ["2", "3", "4"], char_piles=[[], ["wigelm"], []])
    t = turn_of(g, s, 1)
    t.apply(Play("wigelm", ((0, 0),)))
    assert s.rows[0] == [7]
    assert s.piles[2][::-1] == [5, 4]  # the first recipient is the left neighbour
    assert s.piles[0][::-1] == [6, 2]
    assert s.piles[1][::-1] == [3]
    assert s.char_piles == [[], [], ["wigelm"]]


def test_wigelm_never_hands_out_edgar():
    g = rules("characters")
    s = make_state(
        ["E1 2-3", "_", "_", "_", "_", "6-7"], ["1", "1"], ["2", "3"], char_piles=[["wigelm"], []], joker="edgar"
    )
    t = turn_of(g, s, 0)
    assert {m.args for m in t.play_moves() if m.key == "wigelm"} == {((5,),)}
    before = snapshot(s, t)
    with pytest.raises(IllegalMove):
        t.apply(Play("wigelm", ((0,),)))
    assert snapshot(s, t) == before
    # three players, one row starting 5 then Edgar: the second recipient would get Edgar, so no play at all
    s3 = make_state(
        ["5 E6 7", "_", "_", "_", "_", "_"],
        ["1", "1", "1"],
        ["2", "3", "4"],
        char_piles=[["wigelm"], [], []],
        joker="edgar",
    )
    t3 = turn_of(g, s3, 0)
    assert [m for m in t3.play_moves() if m.key == "wigelm"] == []
    before = snapshot(s3, t3)
    with pytest.raises(IllegalMove):
        t3.apply(Play("wigelm", ((0, 0),)))
    assert snapshot(s3, t3) == before


def test_ragnas_gap_is_filled_later_by_a_hand_card_never_by_a_parked_card():
    g = rules("characters")
    s = make_state(
        ["3", "9", "9", "9", "9", "9"], ["5 6 12", "12", "4 12"], ["1", "1", "1"], char_piles=[["ragna"], [], []]
    )
    t = turn_of(g, s, 0)
    t.apply(Play("ragna", ((),)))
    t.apply(Lay(5, 0))
    t.apply(Lay(6, 0))
    t.apply(EndTurn())
    assert s.rows[0] == [3, 5, 6] and t.gaps(0) == [4]
    # seat 1 holds the 4 only as a parked card (parked in an earlier turn, so usable now)
    s.turn_no = 2
    s.parked[1] = [(4, 1)]
    t1 = turn_of(g, s, 1)
    assert t1.parked == [4]
    with pytest.raises(IllegalMove):
        t1.apply(FillGap(4, 0))
    with pytest.raises(IllegalMove):
        t1.apply(LayParked(4, 0))
    assert not any(isinstance(m, (FillGap, LayParked)) and m.row == 0 for m in t1.lay_moves())
    # seat 2 fills it from hand, in a later turn, without any character
    s.turn_no = 3
    t2 = turn_of(g, s, 2)
    assert FillGap(4, 0) in t2.lay_moves()
    with pytest.raises(IllegalMove):
        t2.apply(FillGap(12, 0))
    t2.apply(FillGap(4, 0))
    assert s.rows[0] == [3, 4, 5, 6] and t2.laid == 1 and t2.chars_played == 0


def test_agatha_duplicates_only_at_the_end():
    g = rules("characters")
    s = make_state(["2-4", "4-6", "1", "1", "1", "1"], ["4 4 3 2 1", "1"], ["1", "1"], char_piles=[["agatha"], []])
    t = turn_of(g, s, 0)
    t.apply(Play("agatha", ((),)))
    t.apply(Lay(4, 0))
    assert s.rows[0] == [2, 3, 4, 4]
    for bad in (lambda: t.apply(LayStart(2, 0)), lambda: t.apply(LayStart(3, 1)), lambda: t.apply(Lay(3, 0))):
        with pytest.raises(IllegalMove):
            bad()
    moves = t.lay_moves()
    assert not any(isinstance(m, LayStart) for m in moves)
    assert [m for m in moves if m.row in (0, 1)] == [Lay(4, 0)]  # only the 4, and only on an end
    # the joint of a rebuild stays strict under the default reading
    assert not t.can_rebuild(1, 3, 0)
    with pytest.raises(IllegalMove):
        t.apply(Rebuild(1, 3, 0))


def test_agatha_rebuild_option_allows_an_equal_joint():
    g = rules("characters", agatha_rebuilds=True)
    s = make_state(["2-4", "4-6", "1", "1", "1", "1"], ["9", "1"], ["1", "1"], char_piles=[["agatha"], []])
    t = turn_of(g, s, 0)
    assert not t.can_rebuild(1, 3, 0)  # not before Agatha is played
    t.apply(Play("agatha", ((),)))
    assert Rebuild(1, 3, 0) in t.rebuild_moves()
    t.apply(Rebuild(1, 3, 0))
    assert s.rows[0] == [2, 3, 4, 4, 5, 6] and s.rows[1] == []


def test_aldred_start_laying_is_not_for_rebuilds_by_default():
    g = rules("characters")
    s = make_state(["5-7", "3-4", "9", "9", "9", "9"], ["4 8", "1"], ["1", "1"], char_piles=[["aldred"], []])
    t = turn_of(g, s, 0)
    t.apply(Play("aldred", ((),)))
    assert not t.can_rebuild(1, 2, 0, to_start=True)
    assert not any(m.to_start for m in t.rebuild_moves())
    with pytest.raises(IllegalMove):
        t.apply(Rebuild(1, 2, 0, False, True))
    t.apply(LayStart(4, 0))  # hand cards may go before a start
    assert s.rows[0] == [4, 5, 6, 7]


def test_aldred_rebuild_option_allows_a_rebuild_before_a_start():
    g = rules("characters", aldred_rebuilds=True)
    s = make_state(["5-7", "3-4", "9", "9", "9", "9"], ["8", "1"], ["1", "1"], char_piles=[["aldred"], []])
    t = turn_of(g, s, 0)
    with pytest.raises(IllegalMove):
        t.apply(Rebuild(1, 2, 0, False, True))  # not before Aldred is played
    t.apply(Play("aldred", ((),)))
    assert Rebuild(1, 2, 0, False, True) in t.rebuild_moves()
    t.apply(Rebuild(1, 2, 0, False, True))
    assert s.rows[0] == [3, 4, 5, 6, 7] and s.rows[1] == []
    check_invariants(g, s, s.story_cards(), s.characters())


EXTRA = ["2", "3", "4", "5", "6", "7", "10"]  # six row cards and an extra row holding a 10


@pytest.mark.parametrize(("power", "args"), [("den", ((6,),)), ("wigelm", ((6,),)), ("wynstan", ((6, 1),))])
def test_ethelreds_extra_row_vanishes_when_emptied_by_a_power(power, args):
    g = rules("characters")
    s = make_state(EXTRA, ["11 10 1", "1"], ["1", "1"], char_piles=[[power], []])
    assert s.n_fixed == 6 and len(s.rows) == 7
    t = turn_of(g, s, 0)
    t.apply(Play(power, args))
    assert len(s.rows) == 6, f"extra row still on the table after {power}: {s.rows}"
    with pytest.raises(IllegalMove):
        t.apply(Lay(11, 6))  # gone: it cannot be opened again
    assert all(m.row < 6 for m in t.lay_moves() if hasattr(m, "row"))
    check_invariants(g, s, s.story_cards(), s.characters())


def test_ethelred_opens_an_extra_row_and_a_later_one_opens_another():
    g = rules("characters")
    s = make_state(EXTRA[:6], ["10 11 12", "1"], ["1", "1"], char_piles=[["ethelred"], []])
    t = turn_of(g, s, 0)
    with pytest.raises(IllegalMove):
        t.apply(Play("ethelred", ((10, 12),)))  # the opening cards must continue each other
    t.apply(Play("ethelred", ((10, 11),)))
    assert s.rows[6] == [10, 11] and t.laid == 2
    t.apply(Lay(12, 6))
    assert s.rows[6] == [10, 11, 12]


def test_a_character_before_an_exchange_only_under_the_literal_reading():
    s_args = (ROWS9, ["6 7 2", "1"], ["1 1", "1"])
    g = rules("characters")
    s = make_state(*s_args, char_piles=[["ragna"], []])
    t = turn_of(g, s, 0)
    t.apply(Play("ragna", ((),)))
    t.apply(Exchange((2,)))  # default: a character may be played in a turn that is then an exchange
    assert t.phase == DONE and s.char_piles == [[], ["ragna"]]
    strict = rules("characters", characters_on_any_turn=False)
    s = make_state(*s_args, char_piles=[["ragna"], []])
    t = turn_of(strict, s, 0)
    t.apply(Play("ragna", ((),)))
    # strict reading: the play made this a lay-out turn; it stays provisional until a card is laid
    # (turn.lay_out.provisional_until_laid), so an exchange takes the play back: Ragna returns to the pile
    t.apply(Exchange((2,)))
    assert t.phase == DONE and s.char_piles == [["ragna"], []] and t.chars_played == 0
    s = make_state(*s_args, char_piles=[["ragna"], []])
    t = turn_of(rules("characters", characters_on_any_turn=False, provisional_moves=False), s, 0)
    t.apply(Play("ragna", ((),)))
    with pytest.raises(IllegalMove):
        t.apply(Exchange((2,)))
    for game, ok in ((g, True), (strict, False)):  # the same for a pass (empty draw pile)
        s = make_state(ROWS9, ["6 7 2", "1"], ["", "1"], char_piles=[["ragna"], []])
        t = turn_of(game, s, 0)
        t.apply(Play("ragna", ((),)))
        if ok:
            t.apply(Pass())
            assert t.passed
        else:
            with pytest.raises(IllegalMove):
                t.apply(Pass())


def test_gytha_with_an_empty_discard_pile_follows_its_option():
    s_args = (ROWS9, ["2", "1"], ["1", "1"])
    s = make_state(*s_args, char_piles=[["gytha"], []])
    t = turn_of(rules("characters"), s, 0)
    assert [m.args for m in t.play_moves()] == [((),)]
    t.apply(Play("gytha", ((),)))  # no effect, but played
    assert s.char_piles == [[], ["gytha"]] and s.rows[0] == [3, 4, 5, 6, 7]
    s = make_state(*s_args, char_piles=[["gytha"], []])
    t = turn_of(rules("characters", gytha_without_effect=False), s, 0)
    assert t.play_moves() == []
    with pytest.raises(IllegalMove):
        t.apply(Play("gytha", ((),)))


SOLO_STUCK = ["5", "5", "5", "5", "5", "5"]


def test_minus_allowed_only_when_stuck():
    g = rules("solo")
    s = make_state(SOLO_STUCK, ["12 1"], ["3"], display=["den", "wynstan", "gytha"], char_deck=["agatha"])
    t = turn_of(g, s, 0)
    # the displayed characters could help, but kbsim does not require trying them first
    assert sorted(m.cards for m in t.minus_moves()) == [(1,), (12,)]
    t.apply(Minus((12,)))
    assert s.minus[0] == [12] and t.phase == DONE and t.minus_cards == 1
    assert sorted(t.hand) == [1, 3]  # refilled


@pytest.mark.parametrize(
    ("rows", "hand", "parked", "joker", "why"),
    [
        (["5", "5", "5", "5", "5", "6"], "7", [], None, "fits a row end"),
        (["1-5", "6-8", "10", "10", "10", "10"], "12", [], None, "fits after a rebuild empties a row"),
        (["1-4", "5-6", "8-9", "10", "10", "10"], "12", [], None, "fits after two rebuilds empty a row"),
        (["3 5", "5", "5", "5", "5", "5"], "4", [], None, "fills a gap"),
        (["3 E4 5", "5", "5", "5", "5", "5"], "4", [], "edgar", "swaps Edgar"),
        (SOLO_STUCK, "12", [(6, 0)], None, "a parked card fits"),
    ],
)
def test_minus_refused_while_a_card_can_be_laid(rows, hand, parked, joker, why):
    g = rules("solo")
    s = make_state(rows, [hand], ["1"], joker=joker)
    s.parked[0] = list(parked)
    t = turn_of(g, s, 0)
    assert t.minus_moves() == [], why
    before = snapshot(s, t)
    with pytest.raises(IllegalMove):
        t.apply(Minus((int(hand),)))
    assert snapshot(s, t) == before


def test_minus_is_the_whole_turn_and_only_in_scored_variants():
    g = rules("solo")
    s = make_state(["5-6", "7-8", "5", "5", "5", "5"], ["12"], ["1"])
    t = turn_of(g, s, 0)
    t.apply(Rebuild(1, 2, 0))  # empties row 2: now the 12 can be laid anyway
    with pytest.raises(IllegalMove):
        t.apply(Minus((12,)))
    race = rules("characters")
    s2 = make_state(SOLO_STUCK, ["12", "1"], ["3", "3"], char_piles=[[], []])
    t2 = turn_of(race, s2, 0)
    assert t2.minus_moves() == []
    with pytest.raises(IllegalMove):
        t2.apply(Minus((12,)))


def test_a_play_whose_later_step_is_illegal_changes_nothing(custom_file):
    g = rules("characters", game=custom_file)
    s = make_state(
        ["3-7", "9", "9", "9", "9", "9"],
        ["5 12", "1"],
        ["2", "2"],
        discard="8 11",
        char_piles=[["hoarder"], ["trickster"]],
    )
    t = turn_of(g, s, 0)
    before = snapshot(s, t)
    for args in (
        (((8, 0),), (99,)),  # first step legal, parked card not in hand
        (((8, 0),), (5, 12)),  # park two where the power allows one
        (((8, 0),), ()),  # park none
        (((11, 0),), (5,)),
    ):  # first step illegal
        with pytest.raises(IllegalMove):
            t.apply(Play("hoarder", args))
        assert snapshot(s, t) == before, args
    assert t.available_characters() == ["hoarder"]
    t.apply(Play("hoarder", (((8, 0),), (12,))))
    assert (
        s.rows[0] == [3, 4, 5, 6, 7, 8] and s.parked[0] == [(12, 1)] and s.char_piles == [[], ["trickster", "hoarder"]]
    )
    # trickster: removal legal, then a modifier given arguments
    s2 = make_state(["3-7", "9", "9", "9", "9", "9"], ["2", "1"], ["2", "2"], char_piles=[["trickster"], []])
    t2 = turn_of(g, s2, 0)
    before = snapshot(s2, t2)
    with pytest.raises(IllegalMove):
        t2.apply(Play("trickster", ((0, 1), (1,))))
    with pytest.raises(IllegalMove):
        t2.apply(Play("trickster", ((0, 1),)))  # a step missing
    assert snapshot(s2, t2) == before


def test_a_shipped_play_failing_half_way_changes_nothing():
    for variant in ("characters", "solo"):
        g = rules(variant)
        kw = (
            {"char_piles": [["gytha"]]}
            if variant == "characters"
            else {"display": ["gytha", "den"], "char_deck": ["ragna"]}
        )
        s = make_state(["3-4", "9", "9", "9", "9", "9"], ["7"], ["1"], discard="5 9", **kw)
        t = turn_of(g, s, 0)
        before = snapshot(s, t)
        with pytest.raises(IllegalMove):
            t.apply(Play("gytha", (((5, 0), (9, 0)),)))  # the 5 fits, the 9 does not
        assert snapshot(s, t) == before, variant


def test_every_listed_play_is_legal_and_every_step_choice_applies():
    """``play_moves`` lists only plays the engine accepts, for every shipped character."""
    g = rules("characters")
    for key in SHIPPED_KEYS:
        s = make_state(
            ["3 E4 5-7", "9-10", "1-2", "_", "6", "12"],
            ["8 11 3 7 7", "1"],
            ["2", "2"],
            discard="4 8 13",
            char_piles=[[key], []],
            joker=None if key == "edgar" else "edgar",
        )
        if key == "edgar":
            s.rows[0] = [3, 4, 5, 6, 7]
        t = turn_of(g, s, 0)
        plays = t.play_moves()
        assert plays, key
        for mv in plays:
            c = t.clone()
            c.apply(Play(mv.key, mv.args))
            check_invariants(g, c.state, s.story_cards(), s.characters())


# =============================================================================== 4. determinism
@pytest.fixture(scope="module")
def char_spec() -> RunSpec:
    return RunSpec(game=rules("characters"), players=4, bots=("greedy",) * 4, games=60, seed=20240611)


@pytest.fixture(scope="module")
def char_reference(char_spec):
    """The serial backend's records (chunks of 16): every other backend and chunk size must match them."""
    return run_games(char_spec, Backend(), chunk_size=16)


@pytest.mark.parametrize(
    ("backend", "chunk_size"),
    [
        (ProcessesBackend(workers=2), 16),
        (ProcessesBackend(workers=2), 1),
    ],
    ids=["processes-chunk16", "processes-chunk1"],
)
def test_character_runs_do_not_depend_on_backend_or_chunks(char_spec, char_reference, backend, chunk_size):
    assert run_games(char_spec, backend, chunk_size=chunk_size) == char_reference


def test_character_plays_column(char_spec, char_reference):
    cols = char_reference
    assert cols["game_index"] == list(range(char_spec.games))
    assert len(cols["character_plays"]) == char_spec.games
    keys = {c.key for c in char_spec.game.roster}
    total = Counter()
    for plays, reason, score, minus in zip(
        cols["character_plays"], cols["end_reason"], cols["score"], cols["minus_cards"], strict=True
    ):
        assert reason in RACE_ENDS and score is None and minus == [0] * 4
        assert plays == sorted(plays, key=lambda p: (p["seat"], p["character"]))
        for p in plays:
            assert set(p) == {"seat", "character", "plays"}
            assert 0 <= p["seat"] < 4 and p["character"] in keys and p["plays"] >= 1
            total[p["character"]] += p["plays"]
    assert sum(1 for plays in cols["character_plays"] if plays) > char_spec.games // 2
    assert len(total) >= 5, total
    table = to_table(cols)  # the column fits the records schema
    assert table.num_rows == char_spec.games


# =============================================================================== 5. CLI
def test_cli_solo_run_summary_has_score_with_intervals(tmp_path):
    out = tmp_path / "solo.parquet"
    res = cli(
        "run", "-p", "1", "-n", "20", "--variant", "solo", "--seed", "1", "--json", "--out", str(out), cwd=tmp_path
    )
    assert res.returncode == 0, res.stderr
    s = json.loads(res.stdout)
    assert s["games"] == 20 and s["players"] == 1 and s["variant"] == "solo"
    sc = s["score"]
    records = pq.read_table(out).to_pydict()
    scores = records["score"]
    assert len(scores) == 20 and all(v is not None for v in scores)
    assert sc["games"] == 20
    assert sc["mean"] == pytest.approx(sum(scores) / 20)
    assert sc["min"] == min(scores) and sc["max"] == max(scores) <= 22
    assert {int(k): v for k, v in sc["distribution"].items()} == Counter(scores)
    for name, threshold in (("won", 1), ("expert", 12)):
        part = sc[name]
        k = sum(1 for v in scores if v >= threshold)
        assert part["threshold"] == threshold and part["count"] == k and part["rate"] == pytest.approx(k / 20)
        lo, hi = part["ci95"]
        assert 0 <= lo <= part["rate"] <= hi <= 1 and hi - lo > 0
    assert s["seats"][0]["wins"] == sc["won"]["count"]
    assert s["end_reasons"]["all_out"]["count"] + s["end_reasons"]["turn_limit"]["count"] == 20
    for w, v, reason in zip(records["winners"], scores, records["end_reason"], strict=True):
        assert reason == "all_out" and w == ([0] if v >= 1 else [])


def test_cli_rules_test_runs_every_shipped_example(cached_loader):
    # in process: every Kingsbridge example, character examples included under KEY/NAME, passes
    model = load_rules("kingsbridge").model
    expected = [ex.name for ex in model.examples]
    for key, ch in model.characters.roster.items():
        assert ch.examples, f"{key} has no example"
        expected += [f"{key}/{ex.name}" for ex in ch.examples]
    results = run_examples("kingsbridge")
    assert [r.name for r in results] == expected
    assert [(r.name, r.message) for r in results if not r.ok] == []
    # the command runs exactly these (the other shipped games' examples are tested with those games)
    res = cli("rules", "test", "kingsbridge", cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == f"{len(expected)} passed, 0 failed"
