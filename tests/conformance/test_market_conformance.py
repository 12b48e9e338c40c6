"""Conformance of every shipped game of the market family (like OpenSpiel's random-simulation test).

For every market game, every variant (and every non-default choice of every option),
every player count and both bots:

* random and greedy games complete by the game's own rules (never at the turn-limit guard);
* the invariants hold after every move (``check=True``: every market card, objective,
  contract and token conserved, gaps only where the rules allow them);
* every logged move round-trips through the family's notation (format, then parse) and
  the log replays on the same deal;
* the same seed gives identical records whatever the worker count, chunk size or backend.

The games and their families are read from the shipped rule files and the registry
(:mod:`kbsim.engine.families`), so a new market game is covered without editing this file.
"""

from __future__ import annotations

import pytest

import kbsim
from kbsim.engine.families import family
from kbsim.engine.rows.game import TURN_LIMIT
from kbsim.rules.loader import load_rules
from kbsim.sim.runner import Backend, ProcessesBackend, RunSpec, run_games

MARKET = family("market")
GAMES = [g for g in kbsim.shipped_games() if load_rules(g).model.family == MARKET.name]
SEEDS = (0, 1, 2)
SEARCH = "search(iterations=6)"


def _arms() -> list[tuple[str, tuple[str, ...], dict]]:
    """(game, variants, options): the base game, each variant, each non-default choice of each option."""
    arms = []
    for game in GAMES:
        model = load_rules(game).model
        arms.append((game, (), {}))
        arms.extend((game, (v,), {}) for v in model.variants)
        base = load_rules(game).options
        for name, opt in model.options.items():
            for choice in opt.choices or ():
                if choice != base.get(name):
                    arms.append((game, (), {name: choice}))
    return arms


ARMS = _arms()


def _label(arm) -> str:
    game, variants, options = arm
    return "-".join([game, *variants, *(f"{k}={v}" for k, v in options.items())])


def test_the_market_family_has_games_and_arms():
    assert GAMES, "no shipped game of the market family"
    assert any(opts == {"character_timing": "after_refill"} for _, _, opts in ARMS)


@pytest.mark.parametrize("arm", ARMS, ids=_label)
def test_games_complete_with_invariants_and_round_trip(arm):
    game, variants, options = arm
    g = kbsim.load_game(game, variants, options)
    fmt, parse, replay = MARKET.part("format_move"), MARKET.part("parse_move"), MARKET.part("replay")
    bots = [b for b in MARKET.bot_classes()]
    assert {"random", "greedy", "search"} <= set(bots)
    seeds = SEEDS if not variants and not options else SEEDS[:1]
    for players in range(g.min_players, g.max_players + 1):
        for bot in ("random", "greedy"):
            for seed in seeds:
                r = kbsim.play_game(g, bot, seed=seed, players=players, check=True, log=True)
                where = f"{_label(arm)} {players}p {bot} seed {seed}"
                assert r.end_reason != TURN_LIMIT, where
                assert r.winners or r.end_reason != "won", where
                assert len(r.scores) == players and len(r.passes) == players, where
                for _, moves in r.log:
                    for m in moves:
                        assert parse(fmt(m, g), g) == m, f"{where}: {m} -> {fmt(m, g)!r}"
                lines = replay(g, players, seed, r.log)
                assert len(lines) == len(r.log), where
                assert kbsim.play_game(g, bot, seed=seed, players=players).scores == r.scores, where
        # the search bot (a small budget) in seat 0, greedy elsewhere: one seed
        lineup = [SEARCH, *["greedy"] * (players - 1)]
        r = kbsim.play_game(g, lineup, seed=seeds[0], check=True, log=True)
        where = f"{_label(arm)} {players}p search seed {seeds[0]}"
        assert r.end_reason != TURN_LIMIT and (r.winners or r.end_reason != "won"), where
        for _, moves in r.log:
            for m in moves:
                assert parse(fmt(m, g), g) == m, f"{where}: {m} -> {fmt(m, g)!r}"
        assert len(replay(g, players, seeds[0], r.log)) == len(r.log), where
        assert kbsim.play_game(g, lineup, seed=seeds[0], players=players).scores == r.scores, where


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_records_whatever_the_workers(game):
    g = kbsim.load_game(game)
    spec = RunSpec(game=g, players=3, bots=("greedy", "random", "greedy"), games=12, seed=77, check=True)
    serial = run_games(spec, Backend(workers=1), chunk_size=12)
    pooled = run_games(spec, ProcessesBackend(workers=2), chunk_size=5)
    assert serial == pooled
    assert set(serial) >= {name for name, _ in MARKET.record_columns}
    assert not {"cards_left", "cards_laid", "exchanges", "rebuilds", "minus_cards"} & set(serial)
    other = run_games(RunSpec(game=g, players=3, bots=spec.bots, games=12, seed=78), Backend(workers=1))
    assert other["scores"] != serial["scores"]  # the seed matters (the comparison above can fail)
