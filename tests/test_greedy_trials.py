"""The greedy bot's character choice takes shortcuts that must not change a decision (#13).

:meth:`GreedyBot._choose_character` skips plays that cannot beat the best score so far, reuses the score of a
play leaving the same position as an earlier one, and replays the lay phase it worked out on its sandbox
instead of laying out again. A bot that tries every play in full and lays out afresh (the choice as it was
before the shortcuts) must play the very same games, move for move.
"""

from __future__ import annotations

import pytest

from conftest import pure_only
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

    def _choose_character(self, turn: Turn, stalled: bool = False):
        base = turn.sandbox()
        self._lay_phase(base)
        base_value = self._value(base, 0)
        if self.game.all_out and (base.laid > 0 or base.won):
            return None
        best, best_value = None, (float("-inf") if stalled else base_value)
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
            if v > best_value and (not stalled or sb.can_finish()):
                best, best_value = mv, v
        return best


@pure_only("kbsim.bots.greedy")  # subclasses GreedyBot (a compiled class cannot be subclassed in Python)
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


@pure_only("kbsim.bots.greedy")
@pytest.mark.parametrize(
    ("variants", "options"),
    [(["characters"], {"aldred_rebuilds": True, "agatha_rebuilds": True}), (["characters", "rebuild-split"], {})],
)
def test_shortcuts_play_the_same_games_with_modifiers_for_rebuilds_and_other_rebuilds(variants, options) -> None:
    """The same with the modifiers' rebuild options (joints the reach bound follows) and a rebuild variant."""
    g = compile_rules(load_rules("kingsbridge", variants, options))
    for p in (3, 4):
        seed = game_seed(21, p)
        fast = play_game(g, [GreedyBot() for _ in range(p)], seed, log=True)
        brute = play_game(g, [_BruteGreedy() for _ in range(p)], seed, log=True)
        assert repr(fast) == repr(brute), (variants, options, p)


@pure_only("kbsim.bots.greedy")
def test_trial_key_tells_apart_positions_the_lay_phase_tells_apart(monkeypatch) -> None:
    """Positions changed in one thing the lay phase reads either get another key or lay out the same moves."""
    g = compile_rules(load_rules("kingsbridge", ["characters"]))
    seen: list[tuple[GreedyBot, Turn]] = []
    lay_phase = GreedyBot._lay_phase

    def keep(self, turn: Turn) -> None:
        if turn.log == [] and len(seen) < 60:  # a sandbox about to be laid out for a score
            seen.append((self, turn.clone()))
        lay_phase(self, turn)

    monkeypatch.setattr(GreedyBot, "_lay_phase", keep)
    for i in range(3):
        play_game(g, [GreedyBot() for _ in range(4)], game_seed(5, i))
    monkeypatch.setattr(GreedyBot, "_lay_phase", lay_phase)
    assert len(seen) >= 30

    def outcome(bot: GreedyBot, t: Turn) -> tuple:
        t = t.clone()
        t.log = []
        bot._lay_phase(t)
        return bot._value(t, 0), tuple(t.log)

    def variants(t: Turn):
        def changed(edit):
            v = t.clone()
            edit(v)
            return v

        if t.hand:
            yield changed(lambda v: v.hand.pop())
            yield changed(lambda v: v.hand.reverse())
        for r, row in enumerate(t.rows):
            if len(row) > 1:
                yield changed(lambda v, r=r: v.rows[r].pop())
        yield changed(lambda v: v.pile.clear())
        yield changed(lambda v: setattr(v, "m_equal", not v.m_equal))
        yield changed(lambda v: setattr(v, "m_start", not v.m_start))
        yield changed(lambda v: setattr(v, "skips", v.skips + 1))
        fits = [row[-1] + 1 for row in t.rows if row and 0 < row[-1] < g.value_max]
        if fits:  # a usable parked card that continues a row
            yield changed(lambda v: v.state.parked[v.seat].append((fits[0], v.state.turn_no - 1)))
        yield changed(lambda v: setattr(v, "laid", v.laid + 1))

    differ = 0
    for bot, t in seen:
        base = outcome(bot, t)
        for v in variants(t):
            if GreedyBot._trial_key(v, 0) == GreedyBot._trial_key(t, 0):
                assert outcome(bot, v) == base, t.rows
            else:
                differ += outcome(bot, v) != base
    assert differ > 0  # the variants do change what the lay phase does


def _trial_positions(variants: list[str], players: int, games: int, monkeypatch) -> list[tuple[GreedyBot, Turn]]:
    """The trial turns (a character just played) on which greedy took its reach bound, with their bot."""
    from kbsim.bots import greedy

    g = compile_rules(load_rules("kingsbridge", variants))
    seen: list[tuple[GreedyBot, Turn]] = []
    bound = greedy.layable_held
    bots: list[GreedyBot] = []

    def keep(turn: Turn, rules=None) -> int:
        seen.append((bots[turn.seat], turn.clone()))
        return bound(turn, rules)

    monkeypatch.setattr(greedy, "layable_held", keep)
    for i in range(games):
        bots[:] = [GreedyBot() for _ in range(players)]
        play_game(g, bots, game_seed(9, 100 * players + i))
    monkeypatch.setattr(greedy, "layable_held", bound)
    return seen


def _laid_by_lay_phase(bot: GreedyBot, t: Turn) -> int:
    t = t.clone()
    before = t.laid
    bot._lay_phase(t)
    return t.laid - before


@pure_only("kbsim.bots.greedy")
def test_reach_bound_is_never_below_what_the_lay_phase_lays(monkeypatch) -> None:
    """``layable_held`` bounds the cards greedy's lay phase lays on every trial position of whole games.

    A bound one card tighter is broken on some of them (the bound is reached), and greedy using such a broken
    bound plays other games than the greedy that tries every play.
    """
    from kbsim.bots import greedy

    seen = _trial_positions(["characters"], 4, 4, monkeypatch) + _trial_positions(["characters"], 2, 3, monkeypatch)
    seen += _trial_positions(["solo"], 1, 2, monkeypatch)
    assert len(seen) > 300
    laid = [(_laid_by_lay_phase(bot, t), greedy.layable_held(t), len(t.hand) + len(t.parked)) for bot, t in seen]
    assert all(n <= b <= held for n, b, held in laid)
    assert sum(b < held for _, b, held in laid) > len(laid) // 10  # tighter than "every held card" often
    assert any(n == b > 0 for n, b, _ in laid)  # ... and reached: one card less would be wrong

    bound = greedy.layable_held

    def broken(turn: Turn, rules=None) -> int:
        return max(0, bound(turn, rules) - 1)

    assert any(n > broken(t) for (bot, t), (n, _, _) in zip(seen, laid, strict=True))
    g = compile_rules(load_rules("kingsbridge", ["characters"]))
    monkeypatch.setattr(greedy, "layable_held", broken)
    differ = 0
    for i in range(6):
        seed = game_seed(7, 40 + i)
        fast = play_game(g, [GreedyBot() for _ in range(4)], seed, log=True)
        brute = play_game(g, [_BruteGreedy() for _ in range(4)], seed, log=True)
        differ += repr(fast) != repr(brute)
    assert differ > 0
