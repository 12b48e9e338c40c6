"""The turn solver (:mod:`kbsim.engine.rows.search`), the ``planner`` bot and ``kbsim solve``.

* the rulebook's puzzles (the worked example, the chained-rebuild completion);
* on random small boards, the cards laid by every search engine equal a slow
  brute force written here (every legal move of the engine's own ``Turn``,
  depth first, exact positions);
* the engines agree with each other, including the tie-break, on boards from real games;
* the bot plays legal, reproducible games in every variant;
* the command line: output, ``--json``, and user errors (exit 2).
"""

from __future__ import annotations

import json
import random

import pytest

import kbsim
from conftest import REPO, compiled, make_turn, pure_only, run_cli
from kbsim.bots import make_bot
from kbsim.bots.planner import PlannerBot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import Minus
from kbsim.engine.rows.notation import parse_cards
from kbsim.engine.rows.search import (
    BoardError,
    check_board,
    parse_board,
    plan_turn,
    row_search,
    search,
    searches,
    solve,
)
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import DONE, HIDDEN, Turn
from kbsim.engine.seeds import game_seed
from kbsim.rules.loader import RulesError, load_rules


def _example(name: str):
    ex = next(e for e in load_rules("kingsbridge").model.examples if e.name == name)
    return [parse_cards(r) for r in ex.rows], parse_cards(ex.hand), ex


# ------------------------------------------------------------------ rulebook puzzles
def test_rulebook_worked_example_lays_all_six(game):
    rows, hand, ex = _example("rulebook-big-example")
    assert rows == [[3], [8], [9], [5], [1], [13]] and sorted(hand) == [1, 4, 6, 8, 11, 12]
    plan = search(game, rows, hand)
    assert plan.laid == 6 and plan.exact and plan.legal and plan.hand == ()
    # the best board is the rulebook's own end position (as a multiset of rows)
    want = sorted(tuple(parse_cards(r)) for r in ex.expect.rows)
    assert sorted(plan.rows) == want


def test_rulebook_worked_example_in_every_engine(game):
    rows, hand, _ = _example("rulebook-big-example")
    turn = make_turn(game, rows, hand, [5])
    for engine in _engines(turn):
        assert engine.laid == 6, engine


def test_chained_rebuild_completion(game):
    rows, hand, ex = _example("chained-rebuild-completes")
    sol = solve(game, rows, hand)
    assert sol.laid == 3 and sol.completed == 1 and sol.hand == []
    assert sorted(map(tuple, sol.rows)) == sorted(tuple(parse_cards(r)) for r in ex.expect.rows)


def test_every_rule_file_example_is_matched(game):
    """Wherever an example lays cards legally, the planner lays at least as many."""
    for ex in load_rules("kingsbridge").model.examples:
        if ex.expect.laid is None or ex.expect.illegal is not None:
            continue
        g = compiled(**ex.options) if ex.options else game
        turn = make_turn(g, [parse_cards(r) for r in ex.rows], parse_cards(ex.hand), parse_cards(ex.draw_pile))
        assert plan_turn(turn).laid >= ex.expect.laid, ex.name


def test_win_stops_the_search(game):
    plan = search(game, [[9], [2], [3], [4], [5], [6]], [10, 7], pile_size=0)
    assert plan.won and plan.laid == 2


def test_no_lay_possible(game):
    plan = search(game, [[5], [5], [5], [5], [5], [5]], [9, 9, 12])
    assert not plan.legal and plan.laid == 0 and plan.moves == ()


def test_budget_is_a_node_count(game):
    rows, hand, _ = _example("rulebook-big-example")
    small = search(game, rows, hand, budget=5)
    assert not small.exact and small.nodes <= 5
    again = search(game, rows, hand, budget=5)
    assert again == small  # deterministic
    with pytest.raises(ValueError):
        search(game, rows, hand, budget=0)


# ------------------------------------------------------------------ brute force
def brute_force(turn: Turn) -> int:
    """Most cards a lay-out turn can lay: every legal lay and rebuild of the engine, exact positions, depth first."""
    best = 0
    seen = set()
    stack = [turn.sandbox()]
    base = turn.laid
    while stack:
        t = stack.pop()
        key = (tuple(map(tuple, t.rows)), tuple(sorted(t.hand)))
        if key in seen:
            continue
        seen.add(key)
        best = max(best, t.laid - base)
        if t.phase == DONE:
            continue
        for mv in [*t.lay_moves(), *t.rebuild_moves()]:
            c = t.clone()
            c.apply(mv)
            stack.append(c)
    return best


def random_board(rng: random.Random, n_rows: int, max_hand: int):
    """Rows cut from runs (often near a complete row) and short random runs; a hand of cards taken
    out of the runs and of random values."""
    hand: list[int] = []
    pieces = []
    for _ in range(rng.randint(1, 2)):
        lo = 1 if rng.random() < 0.5 else rng.randint(1, 8)
        hi = 13 if rng.random() < 0.5 else rng.randint(lo, 13)
        run = list(range(lo, hi + 1))
        cuts = sorted(rng.sample(range(1, len(run)), min(len(run) - 1, rng.randint(2, 4)))) if len(run) > 1 else []
        for a, b in zip([0, *cuts], [*cuts, len(run)], strict=True):
            piece = run[a:b]
            if rng.random() < 0.2:
                hand.append(piece.pop(0) if rng.random() < 0.5 else piece.pop())
            if piece and len(piece) <= 7:
                pieces.append(piece)
    for _ in range(rng.randint(1, n_rows)):
        lo = rng.randint(1, 13)
        pieces.append(list(range(lo, min(13, lo + rng.randint(0, 2)) + 1)))
    rng.shuffle(pieces)
    rows = pieces[:n_rows] + [[] for _ in range(n_rows - len(pieces[:n_rows]))]
    if not rng.randint(0, 3):
        rows[0] = []  # now and then an empty row
    rng.shuffle(rows)
    hand = hand[:2]
    while len(hand) < max_hand:
        hand.append(rng.randint(1, 13))
    cards = [c for r in rows for c in r] + hand
    assert all(cards.count(v) <= 8 for v in cards)
    return rows, hand


def _engines(turn: Turn):
    """The plan of every engine that can model ``turn`` (unpruned, unbounded)."""
    sb = turn.sandbox
    out = [
        plan_turn(turn, budget=10**6),
        row_search.search_rows(sb(), turn.needed, 200, 10**6, False),
        searches.search_clones(sb(), 10**6, False),
    ]
    g = turn.g
    rows0 = tuple(tuple(r) for r in turn.rows)
    hand0 = tuple(sorted(turn.hand))
    found = searches.search_runs(g, rows0, hand0, turn.needed, 200, 10**6, len(hand0) + 1)
    cand, parents, moves, _, _ = found
    out.append(
        searches.Plan(
            moves=(),
            laid=len(hand0) - len(cand[0][2]) if cand else 0,
            score=0.0,
            rows=(),
            hand=(),
            won=False,
            legal=bool(cand),
            nodes=0,
            exact=True,
            engine="runs",
        )
    )
    return out


@pytest.mark.parametrize("variant", ["base", "rebuild-either-end", "rebuild-split", "rebuild-either-end+rebuild-split"])
def test_planner_matches_brute_force(variant):
    g = compiled(*(() if variant == "base" else variant.split("+")), rows=4)
    rng = random.Random(20240 + len(variant))
    for _ in range(200 if variant == "base" else 12 if "+" in variant else 50):  # both options: slow brute force
        rows, hand = random_board(rng, 4, 4 if variant == "base" else 3)
        pile = [5] if rng.random() < 0.8 else []
        turn = make_turn(g, rows, hand, pile)
        want = brute_force(turn)
        plan = plan_turn(turn, budget=10**6)
        assert plan.engine == "links", plan  # the link counts model every variant here (no fallback)
        if turn.needed > want:
            assert not plan.legal, (rows, hand)
            continue
        assert plan.laid == want, (variant, rows, hand, plan)
        assert plan_turn(turn, prune=True).laid == want, (variant, rows, hand)


def test_links_fields_hold_more_copies_than_the_deck():
    """The link counts' fields widen for a hand holding more copies of a value than the deck (a bare
    ``search``): the same cards laid and score as the ``rows`` engine."""
    g = compiled(rows=4)
    for hand in ([5] * 9 + [6] * 9, [5] * 3, [1] * 17 + [2]):
        turn = make_turn(g, [[1, 2, 3, 4], [], [], []], hand, [5])
        links = plan_turn(turn, budget=10**6)
        rows = row_search.search_rows(turn.sandbox(), turn.needed, 200, 10**6, False)
        assert links.engine == "links"
        assert (links.laid, links.score) == (rows.laid, rows.score), hand


def test_plan_carried_out_on_the_turn_itself():
    """``lay_at``: a plan laying that many cards is made on the turn itself, with the moves and outcome the
    sandbox gives; a plan laying fewer leaves the turn as it was."""
    g = compiled(rows=4)
    rng = random.Random(4711)
    applied = kept = 0
    for _ in range(150):
        rows, hand = random_board(rng, 4, 5)
        pile = [5] if rng.random() < 0.7 else []
        turn = make_turn(g, rows, hand, pile)
        want = plan_turn(turn, prune=True)
        lay_at = rng.choice((1, 2, 4, 6))
        t = turn.clone()
        got = plan_turn(t, prune=True, lay_at=lay_at)
        assert (got.moves, got.laid, got.rows, got.hand, got.won) == (
            want.moves,
            want.laid,
            want.rows,
            want.hand,
            want.won,
        ), (rows, hand)
        if want.legal and want.laid >= lay_at:
            applied += 1
            assert got.applied and not want.applied
            assert (tuple(map(tuple, t.rows)), tuple(sorted(t.hand)), t.won) == (got.rows, got.hand, got.won)
        else:
            kept += 1
            assert not got.applied
            assert (t.rows, t.hand, t.laid) == (turn.rows, turn.hand, turn.laid)
    assert applied > 30 and kept > 30, (applied, kept)


def test_engines_agree_on_game_boards(game):
    """links, runs, rows and clones: same cards laid; the unpruned ones also the same best score."""
    boards = []

    class Recorder(PlannerBot):
        def play_turn(self, turn):
            if len(boards) < 60 and self.turns % 3 == 0:
                boards.append(([list(r) for r in turn.rows], list(turn.hand), turn.pile_size))
            super().play_turn(turn)

    for i in range(4):
        play_game(game, [Recorder() for _ in range(3)], game_seed(99, i))
    assert len(boards) >= 40
    for rows, hand, pile in boards:
        turn = make_turn(game, rows, hand, [HIDDEN] * pile)
        plans = _engines(turn)
        assert len({p.laid for p in plans}) == 1, (rows, hand, plans)
        scores = {round(p.score, 9) for p in plans[:3] if not p.won}
        assert len(scores) <= 1, (rows, hand, plans[:3])


# ------------------------------------------------------------------ the bot
def test_planner_registered():
    assert isinstance(make_bot("planner"), PlannerBot)


@pytest.mark.parametrize(
    ("variants", "players", "games"),
    [
        ((), 4, 4),
        ((), 2, 4),
        (("rebuild-either-end",), 3, 1),
        (("rebuild-split",), 2, 1),
        (("small-hand",), 5, 2),
        (("characters",), 3, 1),
        (("solo",), 1, 1),
        (("cooperative",), 2, 1),
    ],
)
def test_planner_plays_legal_games(variants, players, games):
    g = compiled(*variants)
    for i in range(games):
        res = play_game(g, [make_bot("planner") for _ in range(players)], game_seed(5, i), check=True)
        assert res.turns > 0


def test_planner_characters_off_any_turn_and_kings_corners():
    g = compiled("characters", characters_on_any_turn=False)
    play_game(g, [make_bot("planner") for _ in range(3)], game_seed(6, 0), check=True)
    try:
        kc = compile_rules(load_rules("kings-corners"))
    except RulesError:
        pytest.skip("no King's Corners rule file")
    res = play_game(kc, [make_bot("planner") for _ in range(2)], game_seed(6, 1), check=True)
    assert res.turns > 0


def test_planner_games_replay_exactly(game):
    a = play_game(game, [make_bot("planner"), make_bot("greedy")], game_seed(3, 1), log=True)
    b = play_game(game, [make_bot("planner"), make_bot("greedy")], game_seed(3, 1), log=True)
    assert a.log == b.log and a.winners == b.winners


def test_character_bound_skips_only_plays_that_cannot_win():
    """The bound on a character play's worth skips searches, never a decision: same games without it."""
    g = compiled("characters")

    class NoBound(PlannerBot):
        def _bound(self, turn, given):
            return float("inf")

    skipped = []

    class Counting(PlannerBot):
        def _bound(self, turn, given):
            b = super()._bound(turn, given)
            skipped.append(b)
            return b

    for i in range(3):
        a = play_game(g, [Counting() for _ in range(2)], game_seed(21, i), log=True)
        b = play_game(g, [NoBound() for _ in range(2)], game_seed(21, i), log=True)
        assert a.log == b.log
    assert skipped  # the bound was consulted


@pure_only("kbsim.bots.planner")  # patches plan_turn, which compiled code calls directly
def test_character_trials_use_their_budget(monkeypatch):
    """Character trials search ``char_budget`` divided by the engine's cost, never below ``MIN_BUDGET``."""
    import kbsim.bots.planner as planner_mod

    g = compiled("characters")
    budgets: list[tuple[str, int, bool]] = []
    real = planner_mod.plan_turn
    trial = [False]

    def recording(turn, *, budget, prune=False, **kw):
        budgets.append((planner_mod.engine_for(turn), budget, trial[0]))
        return real(turn, budget=budget, prune=prune, **kw)

    class Marking(PlannerBot):
        def choose_character(self, turn, stalled=False):
            trial[0] = True
            try:
                return super().choose_character(turn, stalled)
            finally:
                trial[0] = False

    monkeypatch.setattr(planner_mod, "plan_turn", recording)
    for i in range(2):
        play_game(g, [Marking() for _ in range(2)], game_seed(22, i))
    trials = {(e, b) for e, b, t in budgets if t}
    assert ("rows", planner_mod.MIN_BUDGET) in trials
    for e, b in trials:
        cost = planner_mod.ENGINE_COST[e]
        assert b == max(min(PlannerBot.char_budget, planner_mod.MIN_BUDGET), PlannerBot.char_budget // cost)
    assert all(b == PlannerBot().budget // planner_mod.ENGINE_COST[e] for e, b, t in budgets if not t and e == "rows")


def test_planner_lays_what_the_search_finds(game):
    rows, hand, _ = _example("rulebook-big-example")
    turn = make_turn(game, rows, hand, [2, 3, 7, 7, 9, 10, 13])
    bot = PlannerBot()
    bot.new_game(game, 0, 2, 1)
    bot.play_turn(turn)
    assert turn.laid == 6 and turn.phase == DONE and len(turn.hand) == 6  # refilled


def test_far_cards_and_exchange(game):
    bot = PlannerBot()
    bot.new_game(game, 0, 2, 1)
    turn = make_turn(game, [[5], [10], [10], [10], [10], [10]], [7, 8, 8, 3, 1, 13], [4, 4])
    # 7 and one 8 are within three steps of the end 5, 13 of the ends 10; the second 8, 1 and 3 go
    assert bot.far_cards(turn) == (1, 3, 8)
    assert bot.far_cards(turn, 1) == (3,)
    bot.play_turn(turn)
    assert turn.exchanged == 6  # nothing fits: the whole hand is exchanged


# ------------------------------------------------------------------ puzzles and the command line
def test_parse_and_check_board(game):
    assert parse_board("3-5|_|9 10", 6) == [[3, 4, 5], [], [9, 10], [], [], []]
    with pytest.raises(BoardError, match="row 1"):
        check_board(game, [[3, 5]], [])
    with pytest.raises(BoardError, match="outside"):
        check_board(game, [[14]], [])
    with pytest.raises(BoardError, match="copies"):
        check_board(game, [[3], [3], [3], [3], [3], [3]], [3, 3, 3])
    with pytest.raises(BoardError, match="complete"):
        check_board(game, [list(range(1, 14))], [])
    with pytest.raises(BoardError, match="joker"):
        check_board(game, [[3, -4]], [])
    with pytest.raises(BoardError, match="7 rows"):
        parse_board("1|2|3|4|5|6|7", 6)
    check_board(compiled("characters"), [[3, 5, 6], [3, -4]], [4])  # a Ragna gap and Edgar are fine there


def test_solve_with_a_character():
    g = compiled("characters")
    sol = solve(g, [[3], [8], [9], [5], [1], [11]], [5, 13, 7], character="ragna")
    assert sol.laid == 3 and sol.texts[0] == "play ragna"
    assert solve(g, [[3], [8], [9], [5], [1], [11]], [5, 13, 7]).laid < 3


def test_cli_solve_text_and_json(tmp_path):
    p = run_cli("solve", "--rows", "3|8|9|5|1|13", "--hand", "1 4 6 8 11 12", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "6 of 6" in p.stdout and " 1. lay " in p.stdout and "rows: " in p.stdout
    p = run_cli("solve", "--rows", "1|3-6|8-9|11-13|5|5", "--hand", "2 7 10", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert set(data) == {"laid", "moves", "rows", "hand"}
    assert data["laid"] == 3 and data["hand"] == [] and sorted(data["rows"]) == [[], [], [], [], [5], [5]]
    # the moves replay on the engine
    turn = make_turn(compiled(), [[1], [3, 4, 5, 6], [8, 9], [11, 12, 13], [5], [5]], [2, 7, 10], [4])
    from kbsim.engine.rows.notation import parse_move

    for text in data["moves"]:
        turn.apply(parse_move(text, turn.rows))
    assert turn.laid == 3


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (["--rows", "3 5|8", "--hand", "1"], "row 1"),
        (["--rows", "3|14", "--hand", "1"], "outside"),
        (["--rows", "3|3|3|3|3", "--hand", "3 3 3 3"], "copies"),
        (["--rows", "3|x", "--hand", "1"], "row 2"),
        (["--rows", "3", "--hand", "1", "--character", "ragna"], "characters"),
        (["--rows", "3", "--hand", "1", "--pile", "-1"], "--pile"),
        (["--rows", "3", "--hand", "1 x"], "--hand"),
        (["--game", "continental-express", "--rows", "3", "--hand", "1"], "rows of cards"),
    ],
)
def test_cli_solve_errors(tmp_path, args, mentions):
    p = run_cli("solve", *args, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kbsim: error:") and mentions in lines[0], p.stderr


def test_ladder_script_smoke(tmp_path, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("ladder", REPO / "benchmarks" / "ladder.py")
    ladder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ladder)
    out = tmp_path / "ladder.json"
    assert (
        ladder.main(["ladder", "--deals", "2", "--workers", "1", "--pairs", "planner:greedy", "--json", str(out)]) == 0
    )
    data = json.loads(out.read_text())["ladder"][0]
    assert data["games"] == 4 and data["a_wins"] + data["b_wins"] + data["ties"] == 4
    assert "planner vs greedy" in capsys.readouterr().out


def test_planner_puts_a_parked_card_on_the_minus_pile_when_its_hand_is_empty():
    """Solo, hand and draw pile empty, one parked card that fits nowhere: the only way on is the minus pile.

    Found by the search bot (a solo game of seed 1005): the planner left the turn open and the engine refused to end
    it, as a lay-out turn must lay a hand card.
    """
    g = kbsim.load_game("kingsbridge", ["solo"])
    rows = [[9, 10, 11, 12, 13], [2, 3], [9, 10, -11, 12, 13], [5, 6], [9, 10, 11, 12, 13], [3, 4, 5, 6, 7, 8, 9]]
    st = GameState(rows=rows, hands=[[]], piles=[[]], parked=[[(3, 23)]], minus=[[1, 2, 8, 1, 7, 5, 5, 2, 1, 4, 6]])
    st.turn_no = 40
    turn = Turn.for_seat(g, st, 0)
    turn.log = []
    bot = PlannerBot()
    bot.new_game(g, 0, 1, 1)
    bot.play_turn(turn)
    assert turn.log == [Minus((3,))]
    assert turn.phase == DONE and st.minus[0][-1] == 3 and not st.parked[0]
