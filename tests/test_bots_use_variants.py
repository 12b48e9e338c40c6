"""The bots use the rules a variant adds, so a variant comparison measures the rule and not a bot that ignores it.

Greedy's step 1b splits a row onto an empty row card under ``rebuild-split`` and moves King piles into empty
corners with King's Corners' ``king_pile_to_corner``; with the base rules it plays exactly as before (the step
needs ``rebuild.into_empty_row``).
"""

from __future__ import annotations

from kbsim.bots import make_bot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import game_seed
from kbsim.rules import load_rules

INTO_EMPTY = "turn.lay_out.rebuild.into_empty_row"


def _games(variants: list[str], n: int, players: int = 4):
    g = compile_rules(load_rules("kingsbridge", variants=variants))
    return [play_game(g, [make_bot("greedy") for _ in range(players)], game_seed(11, i), log=True) for i in range(n)]


def test_greedy_splits_rows_under_rebuild_split():
    split = _games(["rebuild-split"], 30)
    assert sum(r.rule_usage.get(INTO_EMPTY, 0) for r in split) > 0
    base = _games([], 30)
    # the split changes some games (and only through moves the base rules refuse)
    assert any(a.log != b.log for a, b in zip(split, base, strict=True))


def test_greedy_moves_king_piles_into_corners_when_the_option_allows():
    from kbsim import load_game

    used = 0
    for opts in ({"king_pile_to_corner": True}, {}):
        g = load_game("kings-corners", options=opts)
        n = sum(
            play_game(g, [make_bot("greedy") for _ in range(4)], game_seed(5, i)).rule_usage.get(INTO_EMPTY, 0)
            for i in range(20)
        )
        used = used or n
        if not opts:
            assert n == 0  # the move is refused without the option
    assert used > 0
