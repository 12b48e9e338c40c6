"""Mixed bot lineups in `kbsim run` rotate seats on the same deal, deterministically, with shares per bot."""

from __future__ import annotations

import json

from conftest import run_cli
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.seeds import game_seed
from kbsim.rules.loader import find_rule_file, load_rules
from kbsim.sim.runner import Backend, ProcessesBackend, RunSpec, play_chunk, run_chunks, seat_rotations


def _spec(games: int) -> RunSpec:
    g = compile_rules(load_rules(str(find_rule_file("kingsbridge"))))
    return RunSpec(game=g, players=3, bots=("greedy", "random", "greedy"), games=games, seed=11, rotate=True)


def test_every_rotation_of_each_deal_is_played():
    assert seat_rotations(("greedy", "random", "greedy")) == [
        ("greedy", "random", "greedy"),
        ("random", "greedy", "greedy"),
        ("greedy", "greedy", "random"),
    ]
    cols = play_chunk(_spec(6), range(6))
    assert cols["seed"] == [game_seed(11, 0)] * 3 + [game_seed(11, 1)] * 3
    assert [tuple(b) for b in cols["bots"][:3]] == seat_rotations(("greedy", "random", "greedy"))


def test_rotation_is_deterministic_across_workers():
    spec = _spec(12)
    got = {}
    for be in (Backend(), ProcessesBackend(workers=2)):
        out = {}
        run_chunks(spec, be, [range(0, 5), range(5, 12)], lambda c, cols, out=out: out.update({c.start: cols}))
        got[be.name] = [
            (s, tuple(b), tuple(w))
            for k in sorted(out)
            for s, b, w in zip(out[k]["seed"], out[k]["bots"], out[k]["winners"], strict=True)
        ]
    assert got["serial"] == got["processes"]


def test_run_cli_rotates_and_reports_bot_shares(tmp_path):
    r = run_cli(
        "run",
        "-p",
        "3",
        "-n",
        "4",
        "--seed",
        "11",
        "--bots",
        "greedy,random,greedy",
        "--out",
        str(tmp_path / "r.parquet"),
        "--json",
        "--workers",
        "1",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["games"] == 12 and s["rotated"] == 3 and s["deals"] == 4
    shares = {b["bot"]: b for b in s["bot_shares"]}
    assert shares["random"]["seats"] == 1 and shares["greedy"]["fair"] == 2 / 3
    assert sum(b["k"] for b in s["bot_shares"]) == sum(x["wins"] for x in s["seats"])
    r2 = run_cli(
        "run",
        "-p",
        "3",
        "-n",
        "4",
        "--seed",
        "11",
        "--bots",
        "greedy,random,greedy",
        "--no-rotate",
        "--out",
        str(tmp_path / "n.parquet"),
        "--workers",
        "1",
        cwd=tmp_path,
    )
    assert r2.returncode == 0 and "NOT rotated" in r2.stdout
