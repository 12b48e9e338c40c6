"""Whole-game conformance: every shipped rows-family game x variant x player count x bot lineup.

Each game is played once (small turn limit, so the suite stays fast), logged, then replayed
hand by hand on its own deal, checking at every move:

* bots only make moves the engine lists as legal (``Turn.legal_moves``; character plays are
  checked by the engine's own validation, since their argument lists are capped);
* the notation round-trips: every move printed against the board it was made on parses back
  to the same move (rows with duplicate values included);
* from every state inside a turn the turn can still be finished legally (the moves of
  ``finishing_moves`` apply on a copy);
* at every recorded stalemate (or blocked hand) no seat can lay: checked with an independent
  search over bare rows (``progress_path``) and the engine's exact test run again on the replayed
  state (the search over staying character plays is checked against a brute-force checker on
  small positions in ``tests/test_stalemate_search.py``).
"""

from __future__ import annotations

import itertools
import zlib
from dataclasses import replace

import pytest

from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.boards import progress_path
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import STALEMATE, play_game, replay_hands, stalemate_confirmed
from kbsim.engine.rows.moves import Exchange, Minus, Play
from kbsim.engine.rows.notation import format_move, parse_move
from kbsim.rules.loader import load_rules

GAMES = ("kingsbridge", "kings-corners")
BOTS = ("random", "greedy", "planner", "search")
SEARCH = "search(iterations=8)"


def _arms():
    out = []
    for name in GAMES:
        loaded = load_rules(name)
        for variant in ("", *loaded.model.variants):
            g = compile_rules(load_rules(name, [variant] if variant else []))
            counts = range(g.min_players, min(g.max_players, 5) + 1)
            for i, players in enumerate(counts):
                # rotate lineups: all random, all greedy, mixed (planner in one seat)
                kind = i % 3
                if kind == 0:
                    lineup = ("random",) * players
                elif kind == 1:
                    lineup = ("greedy",) * players
                else:
                    lineup = tuple(itertools.islice(itertools.cycle(("random", "greedy", "planner")), players))
                out.append(
                    pytest.param(
                        name, variant, players, lineup, id=f"{name}-{variant or 'base'}-{players}p-{'+'.join(lineup)}"
                    )
                )
            # the search bot (a small budget) in seat 0 of every game and variant, the planner elsewhere
            players = g.min_players
            lineup = (SEARCH, *("planner",) * (players - 1))
            out.append(pytest.param(name, variant, players, lineup, id=f"{name}-{variant or 'base'}-{players}p-search"))
    # the failing command of issue #16 (cooperative + rebuild-split, mixed lineup)
    out.append(
        pytest.param(
            "kingsbridge",
            "cooperative+rebuild-split",
            3,
            ("random", "random", "greedy"),
            id="issue16-cooperative-rebuild-split-mixed",
        )
    )
    return out


def _norm(m):
    t = type(m)
    if t in (Exchange, Minus):
        return t(tuple(sorted(m.cards)))
    return m


def _can_finish(t) -> None:
    probe = t.clone()
    probe.log = probe.on_move = None
    for mv in probe.finishing_moves():  # raises IllegalMove if the turn were a dead end
        probe.apply(mv)
    assert probe.phase == 2


def _nobody_can_lay(g, st) -> bool:
    held = set()
    for k in range(st.players):
        held.update(st.hands[k])
        held.update(st.piles[k])
        held.update(c for c, _ in st.parked[k])
    if progress_path(g, st.rows, held)[0] is not False:
        return False
    return stalemate_confirmed(g, st)


@pytest.mark.parametrize("name, variant, players, lineup", _arms())
def test_whole_game_conformance(name, variant, players, lineup):
    g = compile_rules(load_rules(name, variant.split("+") if variant else []))
    g = replace(g, turn_limit=min(g.turn_limit, 220), match_max_hands=min(g.match_max_hands, 3))
    seed = 16_000 + players * 31 + len(variant)
    r = play_game(g, [make_bot(b) for b in lineup], seed, check=True, log=True)
    hand_ends = r.hand_ends or [r.end_reason]
    hand = -1
    last_state = None
    finished: list = []
    for ev in replay_hands(g, players, r):
        if ev[0] == "deal":
            if last_state is not None:
                finished.append(last_state)
            hand = ev[1]
            last_state = ev[2]
            continue
    if last_state is not None:
        finished.append(last_state)
    # second pass: legality, round-trip and can-finish at every move (fresh replay of the same log)
    turns_checked = sum(1 for _ in _checked_replay(g, players, r))
    assert turns_checked == len(r.log)
    for h, end in enumerate(hand_ends):
        if end == STALEMATE:
            assert _nobody_can_lay(g, finished[h]), f"hand {h}: stalemate recorded while a seat can lay"
    assert hand + 1 == len(hand_ends)


def _checked_replay(g, players, r):
    """Replay like :func:`replay_hands` but check every move before applying it."""
    import random as _random

    from kbsim.engine.rows.game import deal
    from kbsim.engine.rows.turn import Turn

    for h, (seed, dealer, start) in enumerate(r.deals):
        end = r.deals[h + 1][2] if h + 1 < len(r.deals) else len(r.log)
        gh = g if dealer == g.first_seat % players else replace(g, first_seat=dealer)
        st = deal(gh, players, _random.Random(seed))
        for k, (seat, moves) in enumerate(r.log[start:end], start=1):
            st.turn_no = k
            t = Turn.for_seat(gh, st, seat)
            if gh.refill_at_start:
                t.draw_at_start()
            for m in moves:
                text = format_move(m, t.rows, gh)
                back = parse_move(text, [list(x) for x in t.rows], gh)
                assert back == m, f"notation round-trip: {m!r} -> {text!r} -> {back!r}"
                if type(m) is not Play:
                    legal = {_norm(x) for x in t.legal_moves()}
                    assert _norm(m) in legal, f"turn {k} seat {seat}: {text!r} is not among the legal moves"
                _can_finish(t)
                try:
                    t.apply(m)
                except IllegalMove as e:  # pragma: no cover - reported as a failure
                    raise AssertionError(f"turn {k} seat {seat}: {text!r} refused on replay: {e}") from None
            yield k


@pytest.mark.parametrize("name, variant", [(n, v) for n in GAMES for v in ("", *load_rules(n).model.variants)])
def test_random_move_sequences_can_always_finish(name, variant):
    """Seeded random walks of in-turn moves (lays, rebuilds, character plays) from positions of a real
    game: after every step, the turn can still be finished with `end`, an exchange, a pass or a minus move."""
    import random as _random

    from kbsim.engine.rows.game import deal
    from kbsim.engine.rows.moves import EndTurn, Pass
    from kbsim.engine.rows.turn import DONE, Turn

    g = compile_rules(load_rules(name, [variant] if variant else []))
    players = g.min_players
    rng = _random.Random(zlib.crc32(f"{name}:{variant}".encode()))
    st = deal(g, players, _random.Random(7))
    finishing = (EndTurn, Exchange, Pass, Minus)
    for turn_no in range(1, 25):
        st.turn_no = turn_no
        seat = (turn_no - 1) % players
        t = Turn.for_seat(g, st, seat)
        if g.refill_at_start:
            t.draw_at_start()
        for _ in range(12):
            moves = t.legal_moves()
            assert any(type(m) in finishing for m in moves) or t.lay_path()[0], (
                f"turn {turn_no}: no way to finish from rows {t.rows} hand {t.hand}"
            )
            inner = [m for m in moves if type(m) not in finishing]
            _can_finish(t)
            if not inner or t.phase == DONE:
                break
            t.apply(rng.choice(inner))
            if t.phase == DONE:
                break
        if t.phase != DONE:
            for mv in t.finishing_moves():
                t.apply(mv)
        if t.won:
            break
