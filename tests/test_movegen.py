"""Move generation: the fast listings equal the engine's legality tests pair by pair (issue #13).

``Turn.lay_moves`` and ``Turn.rebuild_moves`` take shortcuts (inlined tests, lookups by the first card a row
end accepts); here every listing met in seeded games is checked against a brute-force listing built from
``can_lay`` and ``can_rebuild`` alone, in the documented order. ``reachable_openings`` must give the same
answer as ``progress_path`` for any hand.
"""

from __future__ import annotations

import random

import pytest

from conftest import pure_only
from kbsim.bots import make_bot
from kbsim.engine.rows.boards import _reachable_boards, progress_path, reachable_openings
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import Lay, Rebuild
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.seeds import game_seed
from kbsim.rules import load_rules

CASES = [
    ("kingsbridge", ()),
    ("kingsbridge", ("characters",)),
    ("kingsbridge", ("rebuild-split",)),
    ("kingsbridge", ("rebuild-either-end",)),
    ("kings-corners", ()),
]


def brute_lays(t: Turn) -> list[Lay]:
    if t.phase == DONE:
        return []
    return [Lay(c, r) for c in sorted(set(t.hand)) for r in range(len(t.rows)) if t.can_lay(c, r)]


def brute_rebuilds(t: Turn) -> list[Rebuild]:
    g = t.g
    if t.phase == DONE or not g.rebuild_allowed or t.rebuilds >= g.max_rebuilds:
        return []
    out = []
    n = len(t.rows)
    starts = (False, True) if g.rebuild_from_start else (False,)
    targets = (False, True) if (t.m_start and t.m_start_rb) else (False,)
    for src in range(n):
        length = len(t.rows[src])
        for k in ((length,) if g.rebuild_whole_only else range(1, length + 1)) if length else ():
            for fs in starts:
                if fs and k == length:
                    continue
                for dst in range(n):
                    for ts in targets:
                        if dst != src and t.can_rebuild(src, k, dst, fs, ts):
                            out.append(Rebuild(src, k, dst, fs, ts))
    return out


def consistent(t: Turn) -> bool:
    """The state names the joker exactly when a row holds it."""
    return (t.state.joker is not None) == any(c < 0 for row in t.rows for c in row)


def test_reachable_boards_see_rebuilds_of_the_joker() -> None:
    # (a known limit until issue #28: the reachable-boards search listed a row holding the joker as a plain row
    # and missed the rebuilds moving it; its scratch turn now carries the joker mark)
    g = compile_rules(load_rules("kingsbridge", ["characters"]))
    rows = [
        [2, 3, 4],
        [4, 5, 6, 7, 8, 10, 11, 12, 13],
        [7, 8, 9, 10, 11, 12, -13],
        [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        [2, 3, 4, 5],
        [4, 5, 6, 7, 8, 9, 10, 11, 12],
    ]
    # the joker (standing for 13) may move onto row 4 (ending 12)
    turn = Turn(g, [list(r) for r in rows], [], [], [])
    turn.state.joker = "edgar"
    assert Rebuild(2, 1, 3) in brute_rebuilds(turn)
    assert Rebuild(2, 1, 3) in turn.rebuild_moves()
    assert turn.rebuild_moves() == brute_rebuilds(turn)
    # the search over bare rows (no joker mark given) reaches the board with the joker moved
    boards = [b for b, _ in _reachable_boards(g, rows)]
    assert any(b is not None and b[3][-1] == -13 for b in boards)


@pure_only("kbsim.engine.rows.turn", "kbsim.bots.random_bot", "kbsim.bots.greedy")
@pytest.mark.parametrize(("game", "variants"), CASES)
def test_listings_equal_the_legality_tests(game: str, variants: tuple[str, ...], monkeypatch) -> None:
    g = compile_rules(load_rules(game, list(variants)))
    seen = {"lays": 0, "rebuilds": 0}
    lay_moves, rebuild_moves = Turn.lay_moves, Turn.rebuild_moves

    def checked_lays(self):
        got = lay_moves(self)
        assert [m for m in got if type(m) is Lay] == brute_lays(self), self.rows
        seen["lays"] += 1
        return got

    def checked_rebuilds(self):
        got = rebuild_moves(self)
        if consistent(self):  # (the reachable-boards search's scratch turns are not: see the xfail below)
            assert got == brute_rebuilds(self), self.rows
        seen["rebuilds"] += bool(got)
        return got

    monkeypatch.setattr(Turn, "lay_moves", checked_lays)
    monkeypatch.setattr(Turn, "rebuild_moves", checked_rebuilds)
    play_game(g, [make_bot("random") for _ in range(3)], game_seed(13, 0))
    assert seen["lays"] > 20
    if g.rebuild_allowed:
        assert seen["rebuilds"] > 5


@pure_only("kbsim.engine.rows.turn", "kbsim.bots.random_bot", "kbsim.bots.greedy")
@pytest.mark.parametrize(("game", "variants"), CASES[:4])
def test_reachable_openings_agrees_with_progress_path(game: str, variants: tuple[str, ...], monkeypatch) -> None:
    g = compile_rules(load_rules(game, list(variants)))
    boards = []
    rebuild_moves = Turn.rebuild_moves

    class Enough(Exception):
        pass

    def record(self):
        if self.phase != DONE and self.state.n_fixed == g.n_rows:
            boards.append([list(r) for r in self.rows])
            if len(boards) >= 12:
                raise Enough
        return rebuild_moves(self)

    monkeypatch.setattr(Turn, "rebuild_moves", record)
    with pytest.raises(Enough):
        play_game(g, [make_bot("random") for _ in range(3)], game_seed(17, 0))
    monkeypatch.setattr(Turn, "rebuild_moves", rebuild_moves)
    rng = random.Random(5)
    answers = set()
    for rows in boards:
        found = reachable_openings(g, rows)
        for _ in range(4):
            held = set(rng.sample(range(g.value_min, g.value_max + 1), rng.randint(1, 4)))
            expected = progress_path(g, rows, held)[0]
            if found is None:
                assert expected is not False
                continue
            ends, empty, gaps = found
            got = (
                any(v - e in g.steps for v in held for e in ends)
                or any(g.may_open(v, i) for i in empty for v in held)
                or any(v in gaps for v in held)
            )
            assert got == expected, (rows, held)
            answers.add(got)
    assert boards and True in answers
    # a board of six 5s: only a 6 can be laid, and no rebuild is legal
    fives = [[5] for _ in range(g.n_rows)]
    assert reachable_openings(g, fives) == (frozenset({5}), frozenset(), frozenset())
    assert progress_path(g, fives, {9})[0] is False and progress_path(g, fives, {6})[0] is True


@pure_only("kbsim.engine.rows.turn", "kbsim.bots.random_bot", "kbsim.bots.greedy")
@pytest.mark.parametrize(("game", "variants"), [CASES[0], CASES[2], CASES[3]])
def test_search_successors_equal_rebuilds_made_by_the_turn(game: str, variants: tuple[str, ...], monkeypatch) -> None:
    """The rebuild searches make each next board from an immutable board (``_successors``); every such board
    equals the rows a turn holds after applying the same rebuild through ``Turn.apply`` (the one engine)."""
    from kbsim.engine.rows.boards import _successors
    from kbsim.engine.rows.state import GameState

    g = compile_rules(load_rules(game, list(variants)))
    boards = []
    rebuild_moves = Turn.rebuild_moves

    def record(self):
        if self.phase != DONE and self.state.n_fixed == g.n_rows and len(boards) < 40:
            boards.append(tuple(tuple(r) for r in self.rows))
        return rebuild_moves(self)

    monkeypatch.setattr(Turn, "rebuild_moves", record)
    play_game(g, [make_bot("random") for _ in range(3)], game_seed(19, 0))
    monkeypatch.setattr(Turn, "rebuild_moves", rebuild_moves)
    checked = 0
    for board in boards:
        scratch = Turn(
            g, [], [], [], [], state=GameState(rows=[], hands=[[]], piles=[[]], discard=[], n_fixed=g.n_rows)
        )
        succ = _successors(g, board, scratch)
        assert [mv for _, _, mv in succ] == Turn(g, [list(r) for r in board], [], [], []).rebuild_moves()
        for new_board, key, mv in succ:
            t = Turn(g, [list(r) for r in board], [], [], [])
            t.apply(mv)
            assert new_board == tuple(map(tuple, t.rows)), (board, mv)
            assert key == tuple(sorted(new_board))
            checked += 1
    assert checked > 20
