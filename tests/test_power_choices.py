"""Listing character plays: steps marked ``choices_apply`` are listed without trying each choice (#13).

The fast listing of :func:`kbsim.engine.rows.movegen.play_moves` must equal a brute listing that tries every
choice of every step on a copy of the table, in the positions of real games with characters. A step's choices
with a limit are the first ones of its full listing, and the row starts listed on tuples of rows are the ones
listed by taking each start on a copy of the table (and the discard placements listed on light copies
are those listed on copies of the whole turn).
"""

from __future__ import annotations

from conftest import pure_only
from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import Play
from kbsim.engine.rows.powers import GiveRowStartsStep, TakeFromDiscardStep
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import game_seed
from kbsim.rules import load_rules


def brute_plays(turn: Turn, limit: int) -> list[Play]:
    """Every play whose choices each apply on a copy of the table, in listing order (at most ``limit``)."""
    out: list[Play] = []
    for key in turn.available_characters():
        ch = turn.g.character(key)

        def extend(sb: Turn, prefix: tuple, i: int, ch=ch, key=key) -> None:
            if len(out) >= limit:
                return
            if i == len(ch.steps):
                out.append(Play(key, prefix))
                return
            for a in ch.steps[i].choices(sb):
                if len(out) >= limit:
                    return
                nxt = sb.clone()
                try:
                    ch.steps[i].apply(nxt, a)
                except IllegalMove:
                    continue
                extend(nxt, (*prefix, a), i + 1)

        probe = turn.clone()
        if turn.g.chars_display_mode:
            probe.state.display.remove(key)
        else:
            probe.state.char_piles[turn.seat].pop(0)
        extend(probe, (), 0)
    return out


@pure_only("kbsim.engine.rows.turn", "kbsim.bots.random_bot", "kbsim.bots.greedy")
def test_fast_play_listing_equals_brute_listing(monkeypatch) -> None:
    g = compile_rules(load_rules("kingsbridge", ["characters"]))
    marked = {type(s) for c in g.roster for s in g.character(c.key).steps if s.choices_apply}
    assert marked, "no power step is marked choices_apply: the fast path is not exercised"
    seen = {"positions": 0, "marked": 0}
    play_moves = Turn.play_moves

    def checked(self, limit: int = 300):
        got = play_moves(self, limit)
        assert got == brute_plays(self, limit), self.rows
        seen["positions"] += 1
        seen["marked"] += any(type(g.character(m.key).steps[-1]) in marked for m in got)
        return got

    monkeypatch.setattr(Turn, "play_moves", checked)
    for i in range(2):
        play_game(g, [make_bot("greedy") for _ in range(3)], game_seed(13, i))
    assert seen["positions"] > 20
    assert seen["marked"] > 0


def _row_starts_by_copies(step: GiveRowStartsStep, turn: Turn) -> list[tuple]:
    """The row-start tuples listed by taking each start on a copy of the whole table (the listing before #13)."""
    n = step._recipients(turn)
    out: list[tuple] = []

    def extend(sb: Turn, prefix: tuple) -> None:
        if len(prefix) == n:
            out.append(prefix)
            return
        for r, row in enumerate(sb.rows):
            if row and row[0] > 0:
                nxt = sb.clone()
                step._give(nxt, r, len(prefix))
                extend(nxt, (*prefix, r))

    extend(turn.clone(), ())
    return out


def _discard_sequences_by_copies(step: TakeFromDiscardStep, turn: Turn) -> list[tuple]:
    """The discard placements listed on copies of the whole turn (the listing before #13)."""
    out: list[tuple] = []
    if not step._possible(turn):
        return [()] if step.without_effect else []

    def extend(sb: Turn, prefix: tuple) -> None:
        if len(prefix) >= step.lo:
            out.append(prefix)
        if len(prefix) == step.hi:
            return
        for card in sorted(set(sb.discard)):
            for r in range(len(sb.rows)):
                if sb.can_place(card, r):
                    nxt = sb.clone()
                    step._place(nxt, card, r)
                    extend(nxt, (*prefix, (card, r)))

    extend(turn.clone(), ())
    return out


@pure_only("kbsim.engine.rows.turn", "kbsim.engine.rows.game")  # patches Turn.play_moves
def test_choices_with_a_limit_are_the_first_of_the_full_listing(monkeypatch) -> None:
    g = compile_rules(load_rules("kingsbridge", ["characters"]))
    steps = {type(s): s for c in g.roster for s in g.character(c.key).steps}
    seen = {"positions": 0, "row_starts": 0, "discard": 0}
    play_moves = Turn.play_moves

    def checked(self, limit: int = 300):
        for step in steps.values():
            full = step.choices(self)
            for k in (0, 1, 3, 24):
                assert step.choices(self, k) == full[:k], (type(step).__name__, k, self.rows)
            if isinstance(step, GiveRowStartsStep):
                assert full == _row_starts_by_copies(step, self), self.rows
                seen["row_starts"] += len(full) > 1
            if isinstance(step, TakeFromDiscardStep):
                assert full == _discard_sequences_by_copies(step, self), self.rows
                seen["discard"] += len(full) > 1
        seen["positions"] += 1
        return play_moves(self, limit)

    monkeypatch.setattr(Turn, "play_moves", checked)
    for players in (2, 4):
        play_game(g, [make_bot("greedy") for _ in range(players)], game_seed(17, players))
    assert seen["positions"] > 20 and seen["row_starts"] > 0 and seen["discard"] > 0
    assert {GiveRowStartsStep, TakeFromDiscardStep} <= set(steps)
