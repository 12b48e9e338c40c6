"""Records depend only on (run seed, game index): not on backend, worker count or chunk size."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from conftest import compiled, run_cli
from kbsim.bots import make_bot
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import game_seed
from kbsim.sim.records import COLUMNS
from kbsim.sim.runner import Backend, ProcessesBackend, RunSpec, run_games

GAMES = 150


def _spec(seed=20240601, players=3, games=GAMES, variant=()):
    return RunSpec(game=compiled(*variant), players=players, bots=("greedy",) * players, games=games, seed=seed)


def _without_run_id(cols: dict) -> dict:
    return {k: v for k, v in cols.items() if k != "run_id"}


@pytest.fixture(scope="module")
def reference():
    return run_games(_spec(), Backend(), chunk_size=GAMES)


def test_reference_is_complete_and_sorted(reference):
    assert list(reference) == COLUMNS
    assert reference["game_index"] == list(range(GAMES))
    assert all(len(v) == GAMES for v in reference.values())
    assert len(set(reference["seed"])) == GAMES
    # the outcomes vary from game to game
    assert len(set(reference["turns"])) > 10


@pytest.mark.parametrize("backend", [Backend(), ProcessesBackend(workers=2)], ids=["serial", "processes2"])
@pytest.mark.parametrize("chunk_size", [1, 7, 64])
def test_backend_and_chunking_do_not_matter(reference, backend, chunk_size):
    got = run_games(_spec(), backend, chunk_size=chunk_size)
    assert _without_run_id(got) == _without_run_id(reference)


def test_default_chunking(reference):
    assert _without_run_id(run_games(_spec(), ProcessesBackend(workers=2))) == _without_run_id(reference)


def test_different_seeds_differ(reference):
    other = run_games(_spec(seed=20240602), Backend())
    assert set(other["seed"]).isdisjoint(reference["seed"])
    assert other["turns"] != reference["turns"]
    assert other["cards_left"] != reference["cards_left"]


def test_game_seed_is_stable_and_spread():
    assert game_seed(3, 0) == game_seed(3, 0)
    seeds = {game_seed(s, i) for s in range(5) for i in range(200)}
    assert len(seeds) == 1000
    assert all(0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize("index", [0, 17, 88, GAMES - 1])
def test_replaying_one_game_equals_its_record(reference, index):
    seed = game_seed(20240601, index)
    assert reference["seed"][index] == seed
    r = play_game(compiled(), [make_bot("greedy") for _ in range(3)], seed)
    assert reference["winners"][index] == list(r.winners)
    assert reference["end_reason"][index] == r.end_reason
    assert reference["turns"][index] == r.turns
    assert reference["cards_left"][index] == r.cards_left
    assert reference["cards_laid"][index] == r.cards_laid
    assert reference["exchanges"][index] == r.exchanges
    assert reference["passes"][index] == r.passes
    assert reference["rebuilds"][index] == r.rebuilds
    assert reference["rows_completed"][index] == r.rows_completed


def test_random_bot_runs_are_deterministic_too():
    spec = RunSpec(game=compiled(), players=2, bots=("random", "greedy"), games=12, seed=7)
    a = run_games(spec, Backend(), chunk_size=5)
    b = run_games(spec, ProcessesBackend(workers=2), chunk_size=3)
    assert _without_run_id(a) == _without_run_id(b)


@pytest.mark.parametrize(
    "variant, bots",
    [
        (("characters",), ("greedy(bar=[characters.play.agatha])", "random", "greedy")),
        ((), ("planner(bar=[turn.exchange.allowed])", "greedy")),
    ],
)
def test_barred_bot_runs_are_deterministic_too(variant, bots):
    """Restricted play: a seat's bar is part of the bot spec; workers and chunking change nothing."""
    spec = RunSpec(game=compiled(*variant), players=len(bots), bots=bots, games=8, seed=11)
    a = run_games(spec, Backend(), chunk_size=8)
    b = run_games(spec, ProcessesBackend(workers=2), chunk_size=3)
    assert _without_run_id(a) == _without_run_id(b)
    assert a["bots"][0][0] == bots[0]


def _records(path):
    table = pq.read_table(path)
    assert table.schema.names == COLUMNS
    return table.drop(["run_id"]).to_pylist()


@pytest.mark.long
def test_cli_workers_do_not_matter(tmp_path):
    args = ["run", "--players", "3", "--games", "40", "--backend", "processes"]
    p1 = run_cli(*args, "--seed", "11", "--workers", "1", "--out", "w1.parquet", cwd=tmp_path)
    assert p1.returncode == 0, p1.stderr
    p2 = run_cli(*args, "--seed", "11", "--workers", "2", "--out", "w2.parquet", cwd=tmp_path)
    assert p2.returncode == 0, p2.stderr
    r1, r2 = _records(tmp_path / "w1.parquet"), _records(tmp_path / "w2.parquet")
    assert len(r1) == 40
    assert r1 == r2
    p3 = run_cli(*args, "--seed", "12", "--workers", "2", "--out", "s12.parquet", cwd=tmp_path)
    assert p3.returncode == 0, p3.stderr
    r3 = _records(tmp_path / "s12.parquet")
    assert [r["seed"] for r in r3] != [r["seed"] for r in r1]
    assert [r["turns"] for r in r3] != [r["turns"] for r in r1]
