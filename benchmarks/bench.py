"""Benchmark: kbsim games and turns per second on one core, as a ratio to the hand-coded reference.

Usage: python benchmarks/bench.py [--rounds R] [--scale S] [--quick] [--json] [--main-job]

Every row of the table of issue #13 (4 players): kbsim greedy, random and planner in the base game, the
complete game (``characters``), the rebuild variants, King's Corners and Continental Express. The reference
is the hand-coded Kingsbridge base game ``../shared/bench/baseline.py`` (path relative to the repository);
when it is present it is imported and timed in this same process, in rounds interleaved with kbsim's (kbsim
batch, reference batch, kbsim batch, ...), so both see the same machine load. The ratio printed is kbsim's
games per second divided by the reference's (greedy reference for every workload except ``random``, which is
compared with the reference's random policy), the median over the rounds; "pooled" is all rounds' games over all
rounds' time on each side (steadier where a round holds a few long games of variable length, as in the complete
game). Absolute figures move with the load
of the machine; the ratios are what to compare. When the reference is absent only kbsim's figures are printed;
``--reference PATH`` names it where the checkout has no ``../shared`` beside it (a git worktree elsewhere).
For the planner and the search bot every decision (one seat's whole turn, forced turns included) is timed, as
wall time and as CPU time of the process's thread (the latter moves less with the load of a shared machine): the
worst and 99th-percentile turn, the mean, and **decisions per second** (of kbsim's wall time, and of the timed
turns' CPU time). Their **decision ratio** is kbsim's decisions per second divided by the reference's (greedy)
turns per second, median over the rounds: how many of its decisions the bot makes in the time the hand-coded
reference plays one turn of the base game. For a bot in every seat this equals the turns ratio; it is the figure
to compare for a searching bot, whose cost is per decision, not per game. ``search`` plays in every seat at its
default budget. After the rows, a summary table repeats each workload's ratio and, for the timed bots, the
decision figures and the decision ratio's inverse (how many reference turns one decision costs).

Not a timed test: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbsim.bots import make_bot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import game_seed
from kbsim.rules import load_rules

REFERENCE = Path(__file__).resolve().parent.parent / ".." / "shared" / "bench" / "baseline.py"

# (label, game, variants, bot, reference policy, games per round at scale 1)
WORKLOADS = (
    ("greedy base", "kingsbridge", (), "greedy", "greedy", 200),
    ("random base", "kingsbridge", (), "random", "random", 10),
    ("greedy characters", "kingsbridge", ("characters",), "greedy", "greedy", 10),
    ("planner base", "kingsbridge", (), "planner", "greedy", 20),
    ("planner rebuild-either-end", "kingsbridge", ("rebuild-either-end",), "planner", "greedy", 4),
    ("planner rebuild-split", "kingsbridge", ("rebuild-split",), "planner", "greedy", 4),
    ("planner characters", "kingsbridge", ("characters",), "planner", "greedy", 2),
    ("greedy kings-corners", "kings-corners", (), "greedy", "greedy", 40),
    ("greedy continental-express", "continental-express", (), "greedy", "greedy", 40),
    ("search base", "kingsbridge", (), "search", "greedy", 1),
    ("search rebuild-either-end", "kingsbridge", ("rebuild-either-end",), "search", "greedy", 1),
    ("search characters", "kingsbridge", ("characters",), "search", "greedy", 1),
    ("search kings-corners", "kings-corners", (), "search", "greedy", 1),
    ("search continental-express", "continental-express", (), "search", "greedy", 1),
)
TIMED = ("planner", "search")
"""Bots whose every decision is timed (worst and 99th-percentile turn, decisions per second)."""


def load_reference(path: Path = REFERENCE):
    """The reference module ``baseline.py``, or None when the file is absent."""
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("kbsim_bench_baseline", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _TimedBot:
    """Wraps a bot to record the wall time and the CPU time (this thread) of each of its turns (seconds)."""

    def __init__(self, bot, times: list[float], cpu_times: list[float] | None = None):
        self._bot = bot
        self._times = times
        self._cpu = cpu_times

    def __getattr__(self, name):
        return getattr(self._bot, name)

    def play_turn(self, turn) -> None:
        t0 = time.perf_counter()
        c0 = time.thread_time()
        self._bot.play_turn(turn)
        self._times.append(time.perf_counter() - t0)
        if self._cpu is not None:
            self._cpu.append(time.thread_time() - c0)


def kbsim_batch(
    game,
    bot: str,
    players: int,
    seeds: list[int],
    turn_times: list[float] | None = None,
    cpu_times: list[float] | None = None,
):
    """Play one game per seed; return (seconds, games, turns)."""
    turns = 0
    t0 = time.perf_counter()
    for s in seeds:
        bots = [make_bot(bot, game.family) for _ in range(players)]
        if turn_times is not None:
            bots = [_TimedBot(b, turn_times, cpu_times) for b in bots]
        turns += play_game(game, bots, s).turns
    return time.perf_counter() - t0, len(seeds), turns


def reference_batch(ref, policy: str, players: int, games: int, rng: random.Random):
    """Play ``games`` reference games; return (seconds, games, turns)."""
    play = ref.play_greedy if policy == "greedy" else ref.play_random
    deck = [v for v in range(1, 14) for _ in range(8)]
    turns = 0
    t0 = time.perf_counter()
    for _ in range(games):
        turns += play(players, rng, deck)[0]
    return time.perf_counter() - t0, games, turns


def run(
    rounds: int, scale: float, players: int, only: list[str] | None, seed: int = 12345, reference: Path = REFERENCE
) -> list[dict]:
    """Measure every workload (see the module docstring); one dict per row of the table."""
    ref = load_reference(reference)
    rows = []
    for label, name, variants, bot, policy, per_round in WORKLOADS:
        if only and not any(o in label for o in only):
            continue
        game = compile_rules(load_rules(name, list(variants)))
        n = max(1, round(per_round * scale))
        ref_n = max(20, round(n * (20 if policy == "greedy" else 30) * (1 if bot == "greedy" else 0.2)))
        k_stats = [0.0, 0, 0]
        r_stats = [0.0, 0, 0]
        ratios, turn_ratios, decision_ratios = [], [], []
        times: list[float] = []
        cpu: list[float] = []
        rng = random.Random(seed)
        for rnd in range(rounds):
            seeds = [game_seed(seed, rnd * n + i) for i in range(n)]
            before = len(times)
            kt, kg, ktu = kbsim_batch(game, bot, players, seeds, times if bot in TIMED else None, cpu)
            decided = len(times) - before
            for i, v in enumerate((kt, kg, ktu)):
                k_stats[i] += v
            if ref is not None:
                rt, rg, rtu = reference_batch(ref, policy, players, ref_n, rng)
                for i, v in enumerate((rt, rg, rtu)):
                    r_stats[i] += v
                ratios.append((kg / kt) / (rg / rt))
                turn_ratios.append((ktu / kt) / (rtu / rt))
                if decided:
                    decision_ratios.append((decided / kt) / (rtu / rt))
        row = {
            "workload": label,
            "players": players,
            "rounds": rounds,
            "games": k_stats[1],
            "games_per_s": k_stats[1] / k_stats[0],
            "turns_per_s": k_stats[2] / k_stats[0],
            "mean_turns": k_stats[2] / k_stats[1],
            "reference_policy": policy,
        }
        if ref is not None:
            row.update(
                ref_games=r_stats[1],
                ref_games_per_s=r_stats[1] / r_stats[0],
                ref_turns_per_s=r_stats[2] / r_stats[0],
                ratio=statistics.median(ratios),
                turn_ratio=statistics.median(turn_ratios),
                # all rounds' games over all rounds' time, each side: rounds of a few long, variable games (the
                # complete game) make the median of per-round ratios jump; the pooled ratio weighs every game
                pooled_ratio=(k_stats[1] / k_stats[0]) / (r_stats[1] / r_stats[0]),
            )
        if times:
            row.update(
                decisions=len(times),
                decisions_per_s=len(times) / k_stats[0],
                mean_turn_ms=1000 * sum(times) / len(times),
            )
            if decision_ratios:
                row.update(decision_ratio=statistics.median(decision_ratios))
            times.sort()
            row.update(worst_turn_ms=times[-1] * 1000, p99_turn_ms=times[int(0.99 * (len(times) - 1))] * 1000)
        if cpu:
            total = sum(cpu)
            cpu.sort()
            row.update(worst_turn_cpu_ms=cpu[-1] * 1000, p99_turn_cpu_ms=cpu[int(0.99 * (len(cpu) - 1))] * 1000)
            row.update(decisions_per_s_cpu=len(cpu) / total, mean_turn_cpu_ms=1000 * total / len(cpu))
        rows.append(row)
        if not _quiet:
            print_row(row)
    return rows


_quiet = False


def print_row(r: dict) -> None:
    line = (
        f"{r['workload']:>28} {r['players']}p  {r['games']:5d} games  {r['games_per_s']:9,.1f} games/s "
        f"{r['turns_per_s']:9,.0f} turns/s"
    )
    if "ratio" in r:
        line += (
            f"  | ref {r['reference_policy']:>6} {r['ref_games_per_s']:8,.0f} games/s {r['ref_turns_per_s']:8,.0f}"
            f" turns/s  | ratio {r['ratio']:.4f} (turns {r['turn_ratio']:.4f}, pooled {r['pooled_ratio']:.4f})"
        )
    if "worst_turn_ms" in r:
        line += f"  | worst turn {r['worst_turn_ms']:.1f} ms, p99 {r['p99_turn_ms']:.1f} ms"
    if "worst_turn_cpu_ms" in r:
        line += f" (CPU: worst {r['worst_turn_cpu_ms']:.1f} ms, p99 {r['p99_turn_cpu_ms']:.1f} ms)"
    if r["workload"].startswith("search") and "decisions_per_s_cpu" in r:
        line += f" | {r['decisions_per_s_cpu']:.0f} decisions/s (CPU), mean {r['mean_turn_cpu_ms']:.1f} ms"
    print(line, flush=True)


def print_summary(rows: list[dict]) -> None:
    """The main table: per workload its games/s and ratio; for the timed bots, decisions/s, ms and decision ratio.

    ``ms per decision`` is the mean and the worst decision in CPU time of the thread (wall time when absent);
    ``decision ratio`` is decisions/s over the reference's turns/s (see the module docstring).
    """
    print(
        f"\n{'workload (' + str(rows[0]['players']) + 'p)' if rows else 'workload':<28}{'games':>7}{'games/s':>10}"
        f"{'ratio':>9}{'pooled':>9}{'decisions/s':>13}{'mean ms':>10}{'worst ms':>10}{'decision ratio':>16}"
        f"{'ref turns per decision':>24}"
    )
    for r in rows:
        if "games_per_s" not in r:
            continue
        ratio = f"{r['ratio']:>9.4f}{r['pooled_ratio']:>9.4f}" if "ratio" in r else f"{'-':>9}{'-':>9}"
        line = f"{r['workload']:<28}{r['games']:>7}{r['games_per_s']:>10,.1f}{ratio}"
        if "decisions_per_s" in r:
            mean = r.get("mean_turn_cpu_ms", r["mean_turn_ms"])
            worst = r.get("worst_turn_cpu_ms", r["worst_turn_ms"])
            dr = (
                f"{r['decision_ratio']:>16.3g}{1 / r['decision_ratio']:>24,.0f}"
                if r.get("decision_ratio")
                else f"{'-':>16}{'-':>24}"
            )
            line += f"{r['decisions_per_s']:>13,.1f}{mean:>10.2f}{worst:>10.1f}{dr}"
        print(line)
    print(
        "ratio, pooled: games/s over the reference's; decisions/s: per second of kbsim's wall time; mean, worst ms:"
        " CPU time of one decision (this thread); decision ratio: decisions/s over the reference's turns/s (ref turns"
        " per decision: its inverse, the reference's greedy turns played in the time of one decision)"
    )


def main() -> None:
    global _quiet
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds per workload (default 5)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the games per round (default 1)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--only", action="append", help="only workloads whose label contains this (repeatable)")
    ap.add_argument("--quick", action="store_true", help="2 rounds at scale 0.3")
    ap.add_argument(
        "--main-job",
        action="store_true",
        help="also time the main job `kbsim run --players 4 --games 10000` (all cores, start-up included)",
    )
    ap.add_argument("--json", action="store_true", help="print results as JSON")
    ap.add_argument(
        "--reference",
        type=Path,
        default=REFERENCE,
        help="the hand-coded reference baseline.py (default ../shared/bench/baseline.py beside the checkout)",
    )
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.scale = 2, 0.3
    _quiet = args.json
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    from kbsim.build_info import build_info

    build = build_info().mode
    if not args.json:
        print(f"kbsim build: {build}")
        ref = args.reference
        print(f"reference: {ref.resolve() if ref.is_file() else 'ABSENT (' + str(ref) + ')'}")
        print(f"load average at start: {load}; {os.cpu_count()} cores; rounds {args.rounds}, scale {args.scale}")
    rows = run(args.rounds, args.scale, args.players, args.only, reference=args.reference)
    if args.main_job:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "kbsim.cli",
                    "run",
                    "--players",
                    "4",
                    "--games",
                    "10000",
                    "--seed",
                    "1",
                    "--out",
                    str(Path(d) / "r.parquet"),
                    "--json",
                ],
                check=True,
                capture_output=True,
            )
            wall = time.perf_counter() - t0
        rows.append({"workload": "main-job", "players": 4, "games": 10000, "wall_s": wall})
        if not args.json:
            print(f"main job: kbsim run --players 4 --games 10000: {wall:.2f} s wall (all cores, start-up included)")
    if not args.json:
        print_summary(rows)
        print(f"load average at end: {os.getloadavg() if hasattr(os, 'getloadavg') else None}")
    else:
        print(json.dumps({"load_start": load, "build": build, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
