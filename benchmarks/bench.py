"""Benchmark: games per second on one core, per bot and player count.

Usage: python benchmarks/bench.py [--games N] [--quick]
Prints one line per configuration and, for greedy 4p, the wall time of the main
job `kbsim run --players 4 --games 10000` (all cores, start-up included).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbsim.bots import make_bot
from kbsim.engine.compiled import compile_rules
from kbsim.engine.game import play_game
from kbsim.rules import load_rules
from kbsim.sim.seeding import game_seed


def games_per_second(game, bot: str, players: int, games: int, seed: int = 12345) -> float:
    """Play ``games`` games in this process; return games per second (setup excluded)."""
    seeds = [game_seed(seed, i) for i in range(games)]
    t0 = time.perf_counter()
    for s in seeds:
        play_game(game, [make_bot(bot) for _ in range(players)], s)
    return games / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000, help="greedy games per configuration")
    ap.add_argument("--quick", action="store_true", help="fewer games, skip the main-job timing")
    ap.add_argument("--json", action="store_true", help="print results as JSON")
    args = ap.parse_args()
    n = 300 if args.quick else args.games
    base = compile_rules(load_rules("kingsbridge"))
    rows = []
    for players in (2, 3, 4, 5):
        rows.append({"bench": "greedy", "variant": "base", "players": players,
                     "games_per_s": games_per_second(base, "greedy", players, n)})
    rows.append({"bench": "random", "variant": "base", "players": 4,
                 "games_per_s": games_per_second(base, "random", 4, max(20, n // 50))})
    chars = compile_rules(load_rules("kingsbridge", ["characters"]))
    rows.append({"bench": "greedy", "variant": "characters", "players": 4,
                 "games_per_s": games_per_second(chars, "greedy", 4, max(20, n // 20))})
    solo = compile_rules(load_rules("kingsbridge", ["solo"]))
    rows.append({"bench": "greedy", "variant": "solo", "players": 1,
                 "games_per_s": games_per_second(solo, "greedy", 1, max(20, n // 20))})
    corners = compile_rules(load_rules("kings-corners"))
    rows.append({"bench": "greedy", "variant": "kings-corners", "players": 4,
                 "games_per_s": games_per_second(corners, "greedy", 4, max(20, n // 10))})
    for r in rows:
        if not args.json:
            print(f"{r['bench']:>8} {r['variant']:>13} {r['players']}p  {r['games_per_s']:8.0f} games/s (1 core)")
    if not args.quick:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "kbsim.cli", "run", "--players", "4", "--games", "10000",
                            "--seed", "1", "--out", str(Path(d) / "r.parquet"), "--json"],
                           check=True, capture_output=True)
            wall = time.perf_counter() - t0
        rows.append({"bench": "main-job", "players": 4, "games": 10000, "wall_s": wall})
        if not args.json:
            print(f"main job: kbsim run --players 4 --games 10000: {wall:.2f} s wall (all cores, start-up included)")
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
