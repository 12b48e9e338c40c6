"""Listing character plays: steps marked ``choices_apply`` are listed without trying each choice (#13).

The fast listing of :func:`kbsim.engine.rows.movegen.play_moves` must equal a brute listing that tries every
choice of every step on a copy of the table, in the positions of real games with characters.
"""

from __future__ import annotations

from conftest import pure_only
from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import Play
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
