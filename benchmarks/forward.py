"""Benchmark: the forward model's costs, in microseconds per call (what a search bot pays per iteration).

Usage: python benchmarks/forward.py [--games G] [--repeat R] [--json]

For each workload (4 players unless the game allows fewer), seeded greedy games are played; at every decision of
seat 0 the seat's observation is determinized ``R`` times, each world cloned ``R`` times (with and without
the knowledge the world keeps for ``observe``), and one greedy playout is run from a world to the end. Printed:
the median and the 90th percentile over the decisions of the mean CPU time of this thread per call (so time the
process spends waiting for a core on a loaded machine does not count), and the build (compiled or pure).
Absolute figures still move with the machine's load (printed too); compare builds and commits on one machine.

Not a timed test: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import kbsim
from kbsim.bots import make_bot
from kbsim.build_info import build_info
from kbsim.engine.families import family_of
from kbsim.engine.forward import determinize

WORKLOADS = (
    ("kingsbridge base", "kingsbridge", ()),
    ("kingsbridge characters", "kingsbridge", ("characters",)),
    ("kingsbridge cooperative", "kingsbridge", ("cooperative",)),
    ("kings-corners", "kings-corners", ()),
    ("continental-express", "continental-express", ()),
)


class _Measure:
    """Seat 0's bot: greedy, timing the forward model at each of its decisions (stored in ``times``)."""

    def __init__(self, family: str, repeat: int, times: dict[str, list[float]]):
        self.bot = make_bot("greedy", family)
        self.family = family
        self.repeat = repeat
        self.times = times

    def new_game(self, game, seat, players, seed):
        self.bot.new_game(game, seat, players, seed)
        self.players = players
        self.rollout = [make_bot("greedy", self.family) for _ in range(players)]
        for s, b in enumerate(self.rollout):
            b.new_game(game, s, players, seed)

    def play_turn(self, turn) -> None:
        rng = self.bot.rng
        r = self.repeat
        t0 = time.thread_time()
        for _ in range(r):
            w = determinize(turn, rng)
        t1 = time.thread_time()
        for _ in range(r):
            w.clone()
        t2 = time.thread_time()
        self.times["determinize"].append((t1 - t0) / r)
        self.times["clone"].append((t2 - t1) / r)
        if self.family == "rows":
            from kbsim.engine.rows.forward import determinize as rows_determinize

            light = rows_determinize(turn, rng, track=False)
            t3 = time.thread_time()
            for _ in range(r):
                light.clone()
            self.times["clone (untracked)"].append((time.thread_time() - t3) / r)
        t4 = time.thread_time()
        c = w.clone()
        while not c.over:
            c.play_turn(self.rollout[c.seat])
        self.times["greedy playout"].append(time.thread_time() - t4)
        self.bot.play_turn(turn)


def run(games: int, repeat: int) -> list[dict]:
    """Measure every workload; one dict per workload (figures in microseconds)."""
    out = []
    for label, name, variants in WORKLOADS:
        g = kbsim.load_game(name, variants)
        n = min(max(4, g.min_players), g.max_players)
        times: dict[str, list[float]] = {"determinize": [], "clone": [], "clone (untracked)": [], "greedy playout": []}
        for seed in range(games):
            bots = [_Measure(g.family, repeat, times), *(make_bot("greedy", g.family) for _ in range(n - 1))]
            family_of(g).play(g, bots, seed)
        row: dict = {"workload": label, "players": n, "decisions": len(times["determinize"])}
        for k, xs in times.items():
            if xs:
                xs.sort()
                row[k] = {"median_us": statistics.median(xs) * 1e6, "p90_us": xs[int(0.9 * (len(xs) - 1))] * 1e6}
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3, help="games per workload (default 3)")
    ap.add_argument("--repeat", type=int, default=50, help="calls timed per decision (default 50)")
    ap.add_argument("--json", action="store_true", help="print results as JSON")
    args = ap.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    rows = run(args.games, args.repeat)
    if args.json:
        print(json.dumps({"build": build_info().mode, "load": load, "rows": rows}, indent=2))
        return
    print(f"kbsim build: {build_info().mode}; load average at start: {load}")
    for r in rows:
        parts = [f"{r['workload']:>24} {r['players']}p {r['decisions']:4d} decisions"]
        for k in ("determinize", "clone", "clone (untracked)", "greedy playout"):
            if k in r:
                parts.append(f"{k} {r[k]['median_us']:9.1f} us (p90 {r[k]['p90_us']:.1f})")
        print("  |  ".join(parts), flush=True)
    print(f"load average at end: {os.getloadavg() if hasattr(os, 'getloadavg') else None}")


if __name__ == "__main__":
    main()
