"""The rows search (``row_search.search_rows``): exact against the engine, and its kept tables change no plan.

The search interns row contents and card tuples as ids in a searcher kept across searches under the same
rules (``row_search.rows_searcher``); the ids only key positions, so a warm searcher and a fresh one must give
the same plans. Its rebuild listing (end segments by pairs of rows, or every segment the rebuild options
allow) must reach every position the engine's own moves reach: the cards laid are checked against a brute
force over the engine's legal lays and rebuilds.
"""

from __future__ import annotations

import random

import pytest

from conftest import compiled, make_turn
from kbsim.bots.planner import PlannerBot
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.search import engine_for, plan_turn, row_search, searches
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed


def _most_laid(turn: Turn) -> int:
    """Most cards a lay-out turn can lay: the brute force over the engine's own moves of tests/test_planner.py."""
    from test_planner import brute_force

    return brute_force(turn)


def _record_sandboxes(engine: str, limit: int, seed: int, games: int) -> list[tuple[Turn, int]]:
    """Sandboxes (with the budget) of the first ``limit`` turns planned with ``engine`` in 3-player complete
    games of seeds ``game_seed(seed, 0..games-1)``."""
    out: list[tuple[Turn, int]] = []

    class Recorder(PlannerBot):
        def plan(self, turn, budget, lay_at=0):
            if engine_for(turn) == engine and len(out) < limit:
                out.append((turn.sandbox(), budget))
            return super().plan(turn, budget, lay_at)

    g = compiled("characters")
    for i in range(games):
        play_game(g, [Recorder() for _ in range(3)], game_seed(seed, i))
    return out


@pytest.mark.parametrize("variant", ["base", "rebuild-either-end", "rebuild-split"])
def test_rows_search_lays_what_the_engine_can(variant):
    """Small random boards (runs, repeats of a value across rows, empty rows): same cards laid as brute force."""
    g = compiled(*(() if variant == "base" else (variant,)), rows=4)
    rng = random.Random(4113 + len(variant))
    checked = 0
    for _ in range(25):
        rows = []
        for _ in range(4):
            if rng.random() < 0.25:
                rows.append([])
                continue
            lo = rng.randint(1, 12)
            rows.append(list(range(lo, min(13, lo + rng.randint(0, 3)) + 1)))
        hand = [rng.randint(1, 13) for _ in range(3)]
        turn = make_turn(g, rows, hand, [5])
        want = _most_laid(turn)
        plan = row_search.search_rows(turn.sandbox(), turn.needed, 200, 10**6, False)
        if turn.needed > want:
            assert not plan.legal, (rows, hand)
            continue
        assert plan.laid == want, (variant, rows, hand, plan)
        checked += 1
    assert checked >= 15


def test_kept_tables_change_no_plan():
    """Rows searches of complete games: the searcher kept warm across searches and a fresh one per search agree."""
    g = compiled("characters")
    boards = _record_sandboxes("rows", 120, 4117, 2)
    assert len(boards) >= 40

    def plans(fresh: bool) -> list:
        out = []
        for turn, budget in boards:
            if fresh:
                row_search._SEARCHERS.clear()
            p = plan_turn(turn, budget=max(40, budget // 10), prune=True)
            out.append((p.moves, p.laid, p.score, p.nodes, p.exact, p.engine))
        return out

    warm = plans(False)
    assert {e for *_, e in warm} == {"rows"}
    assert plans(True) == warm
    assert row_search.rows_searcher(g) is row_search.rows_searcher(g)  # kept between searches
    other = compiled()
    assert row_search.rows_searcher(other) is not row_search.rows_searcher(g)  # other rules, another searcher


def test_clones_search_leaves_shared_zones_alone():
    """The clones search's copies share the zones no lay or rebuild changes: no move it tries changes them."""
    roots = _record_sandboxes("clones", 30, 4119, 4)

    def shared(st, others):
        return (
            [list(p) for p in st.piles],
            [list(m) for m in st.minus],
            list(st.box),
            dict(st.char_plays),
            [list(st.hands[s]) for s in others],
            [list(st.parked[s]) for s in others],
        )

    assert len(roots) >= 5
    for sb, budget in roots:
        st = sb.state
        others = [s for s in range(st.players) if s != sb.seat]
        before = shared(sb.state, others)
        plan = searches.search_clones(sb, max(40, budget // 20), True)
        assert plan.nodes > 1
        assert shared(sb.state, others) == before


def test_search_state_copy_keeps_every_field():
    """``_SearchState.copy`` names each field of ``GameState``: a field added there must be copied here too."""
    from collections import Counter
    from dataclasses import fields

    from kbsim.engine.rows.state import GameState

    st = GameState(
        rows=[[1, 2], [5]],
        hands=[[3], [4, 4]],
        piles=[[6], [7]],
        discard=[8],
        parked=[[(9, 1)], []],
        minus=[[10], []],
        char_piles=[["a"], ["b"]],
        display=["c"],
        char_deck=["d"],
        box=["e"],
        joker="f",
        turn_no=11,
        n_fixed=1,
        char_plays=Counter({(0, "a"): 2}),
    )
    names = [f.name for f in fields(GameState)]
    assert all(getattr(st, n) != getattr(GameState(rows=[], hands=[[], []], piles=[[], []]), n) for n in names)
    root = searches._SearchState(**{n: getattr(st, n) for n in names})
    cp = root.copy()
    assert type(cp) is searches._SearchState
    assert all(getattr(cp, n) == getattr(st, n) for n in names)
    assert cp.rows is not st.rows and cp.rows[0] is not st.rows[0] and cp.discard is not st.discard
