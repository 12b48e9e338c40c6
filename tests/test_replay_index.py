"""One game index names one game in ``kbsim run``'s records, ``kbsim replay`` (by seed or records) and ``kbsim play``.

A user ran a mixed, seat-rotated lineup and replayed ``-i 5``: replay counted deals while the records count deals x
seat rotations, so it showed another game (defect 1 of the new-user report).
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from conftest import run_cli
from kbsim.play.session import PlaySetup
from kbsim.play.store import next_game_index
from kbsim.sim.runner import run_game

LINEUP = "greedy,random,random"  # mixed: 3 distinct seat rotations


@pytest.fixture(scope="module")
def rotated_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("rotated")
    p = run_cli(
        "run", "-p", "3", "-n", "3", "--seed", "5", "--bots", LINEUP, "--workers", "1", "--out", "r.parquet", cwd=d
    )
    assert p.returncode == 0, p.stderr
    return d, pq.read_table(d / "r.parquet").to_pylist()


@pytest.mark.parametrize("index", [0, 4, 5, 8])
def test_replay_by_seed_shows_the_records_game(rotated_run, index):
    d, records = rotated_run
    rec = records[index]
    assert rec["game_index"] == index
    p = run_cli("replay", "--seed", "5", "-p", "3", "-i", str(index), "--bots", LINEUP, "--json", cwd=d)
    assert p.returncode == 0, p.stderr
    log = json.loads(p.stdout)
    assert (log["seed"], log["deal_hash"], log["turns"], log["winners"]) == (
        rec["seed"],
        rec["deal_hash"],
        rec["turns"],
        rec["winners"],
    )
    p = run_cli("replay", "--seed", "5", "-p", "3", "-i", str(index), "--bots", LINEUP, cwd=d)
    assert f"bots {','.join(rec['bots'])}" in p.stdout.splitlines()[0]


@pytest.mark.parametrize("index", [4, 5])
def test_replay_by_records_and_seed_finds_a_rotated_game(rotated_run, index):
    d, records = rotated_run
    p = run_cli("replay", "--records", "r.parquet", "--seed", "5", "-i", str(index), "--json", cwd=d)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["seed"] == records[index]["seed"]


def test_the_one_mapping_gives_the_records_seed_and_seats(rotated_run):
    _, records = rotated_run
    for rec in records:
        assert run_game(5, rec["game_index"], LINEUP.split(",")) == (rec["seed"], tuple(rec["bots"]))


def test_play_deals_the_runs_game_of_that_index(rotated_run, tmp_path):
    _, records = rotated_run
    setup = PlaySetup(
        game="kingsbridge",
        variants=(),
        options={},
        players=3,
        seat=0,
        bots=("human", "random", "random"),
        seed=5,
        game_index=5,
        hint_bot="greedy",
        records=str(tmp_path / "p.parquet"),
    )
    assert setup.game_seed == records[5]["seed"]
    assert next_game_index(tmp_path / "none.parquet", 5, setup.bots) == 0


def test_replay_help_says_what_the_index_counts(tmp_path):
    p = run_cli("replay", "--help", cwd=tmp_path)
    text = " ".join(p.stdout.replace("\u2502", " ").split())
    assert "it counts games, not deals" in text and "seat rotation" in text
