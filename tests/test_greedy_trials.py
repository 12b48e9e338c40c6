"""The greedy bot's character choice takes shortcuts that must not change a decision (#13).

:meth:`GreedyBot._choose_character` skips plays that cannot beat the best score so far, reuses the score of a
play leaving the same position as an earlier one, and replays the lay phase it worked out on its sandbox
instead of laying out again. A bot that tries every play in full and lays out afresh (the choice as it was
before the shortcuts) must play the very same games, move for move.
"""

from __future__ import annotations

import pytest

from kbsim.bots.greedy import GreedyBot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed
from kbsim.rules import load_rules


class _Counting(GreedyBot):
    """Greedy, counting its lay phases (one counter per class, reset by the test)."""

    lay_phases = 0

    def _lay_phase(self, turn: Turn) -> None:
        type(self).lay_phases += 1
        super()._lay_phase(turn)


class _BruteGreedy(_Counting):
    """Greedy trying every listed play in full on a new sandbox, keeping no plan."""

    lay_phases = 0

    def _choose_character(self, turn: Turn):
        base = turn.sandbox()
        self._lay_phase(base)
        base_value = self._value(base, 0)
        if self.game.all_out and (base.laid > 0 or base.won):
            return None
        best, best_value = None, base_value
        per_key: dict[str, int] = {}
        limit = self.max_candidates * (8 if len(turn.available_characters()) > 1 else 1)
        for mv in turn.play_moves(limit=limit):
            per_key[mv.key] = per_key.get(mv.key, 0) + 1
            if per_key[mv.key] > self.max_candidates:
                continue
            sb = turn.sandbox()
            before = sum(len(p) for p in sb.state.piles) - len(sb.state.piles[sb.seat])
            sb.apply(mv)
            given = sum(len(p) for p in sb.state.piles) - len(sb.state.piles[sb.seat]) - before
            self._lay_phase(sb)
            v = self._value(sb, given)
            if v > best_value:
                best, best_value = mv, v
        return best


@pytest.mark.parametrize(
    ("variants", "players", "games"),
    [(["characters"], (2, 3, 4, 5), 2), (["solo"], (1,), 3), (["cooperative"], (3,), 2)],
)
def test_shortcuts_play_the_same_games_as_trying_every_play(variants, players, games) -> None:
    g = compile_rules(load_rules("kingsbridge", variants))
    _Counting.lay_phases = _BruteGreedy.lay_phases = 0
    for p in players:
        for i in range(games):
            seed = game_seed(7, 10 * p + i)
            fast = play_game(g, [_Counting() for _ in range(p)], seed, log=True)
            brute = play_game(g, [_BruteGreedy() for _ in range(p)], seed, log=True)
            assert repr(fast) == repr(brute), (variants, p, i)
    # the shortcuts were taken: fewer lay phases for the same games
    assert 0 < _Counting.lay_phases < _BruteGreedy.lay_phases
