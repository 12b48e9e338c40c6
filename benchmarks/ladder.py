"""Bot ladder and planner benchmark (``nox -s ladder``; or ``python benchmarks/ladder.py``).

Ladder (``python benchmarks/ladder.py ladder``)
    For each pair of bots ``A:B`` (default: planner vs greedy, greedy vs random, and ``search`` against the
    planner), ``--players`` seats (default 2), ``--deals`` deals (default 1000) of ``--game`` (default
    ``kingsbridge``, ``--variant`` repeatable). Deal ``i`` is the game seed ``game_seed(--seed, i)``, played
    once per seat of A on the same cards: A in seat 0 and B in every other seat, then A in seat 1, ... (with
    2 players: ``[A, B]`` then ``[B, A]``), so each pair plays ``players x deals`` games and neither seat
    nor deal favours a bot. A game is a **win** for A when A wins alone, for B when one of the B seats wins
    alone; a shared win (a stalemate's fewest cards), and a game stopped by the turn limit, is a **tie** and
    is reported apart. With 2 players the win rate of A is its share of the decisive games; with more it is
    A's share of all games (against the fair ``1 / players``); each with a 95% Wilson interval
    (:func:`kbsim.analysis.metrics.wilson`); the score with ties counted as half a win is shown too.
    Bots are bot specs (``search(iterations=64)``; quote them in the shell). ``--check`` exits with status 1
    unless every interval lies wholly above the fair share. The CPU time of A's decisions is measured per
    turn (mean and worst). Results do not depend on ``--workers``. Deals are played ten at a time; with
    ``--chunks FILE`` each ten deals' outcome is appended to that JSON-lines file as soon as it is played, and a
    run started again with the same file (same pair, game, variants, players and seed) plays only the chunks not
    in it yet, so a long run cut short loses at most the chunks under way.

Benchmark (``python benchmarks/ladder.py bench``)
    4-player planner-only games on one core: games per second (wall clock and CPU time), and the planner's
    decision time per turn (median, 99th percentile, maximum), the positions its search stored per turn, the
    turns whose search hit its node budget, and the share of the run spent deciding.

Both print a table, and with ``--json FILE`` write their numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import kbsim
from kbsim import __version__
from kbsim.analysis.metrics import wilson as wilson_interval
from kbsim.bots import make_bot
from kbsim.bots.planner import PlannerBot
from kbsim.engine.rows.compiled import compile_rules
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import game_seed
from kbsim.rules.loader import load_rules


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation (NumPy's default); nan when empty."""
    import numpy as np

    return float(np.percentile(values, q)) if len(values) else float("nan")


PAIRS = (("planner", "greedy"), ("greedy", "random"), ("search", "planner"))


# ------------------------------------------------------------------ ladder
class _Timed:
    """Wraps a bot and adds the CPU time of each of its turns (this thread) to ``sink``."""

    def __init__(self, bot, sink: list[float]):
        self._bot = bot
        self._sink = sink

    def __getattr__(self, name):
        return getattr(self._bot, name)

    def new_game(self, game, seat, players, seed) -> None:
        self._bot.new_game(game, seat, players, seed)

    def play_turn(self, turn) -> None:
        t0 = time.thread_time()
        self._bot.play_turn(turn)
        self._sink.append(time.thread_time() - t0)


CHUNK = 10
"""Deals per chunk: the unit of work of a worker, and of saving with ``--chunks``."""


def _play_deals(args: tuple) -> tuple[list[tuple[int, int, int]], list[float]]:
    """Play deals ``lo..hi-1`` once per seat of A; per deal: (A's sole wins, B's sole wins, ties); A's turn times."""
    a, b, lo, hi, seed, game, variants, players = args
    g = kbsim.load_game(game, variants)
    fam = g.family
    out = []
    times: list[float] = []
    for i in range(lo, hi):
        s = game_seed(seed, i)
        wa = wb = ties = 0
        for seat_a in range(players):
            bots = [make_bot(b, fam) for _ in range(players)]
            bots[seat_a] = _Timed(make_bot(a, fam), times)
            res = play_game(g, bots, s)
            if len(res.winners) == 1:
                if res.winners[0] == seat_a:
                    wa += 1
                else:
                    wb += 1
            else:
                ties += 1
        out.append((wa, wb, ties))
    return out, times


def _chunk_key(a: str, b: str, game: str, variants: tuple[str, ...], players: int, seed: int) -> dict:
    return {"a": a, "b": b, "game": game, "variants": list(variants), "players": players, "seed": seed}


def _saved_chunks(path: str | None, key: dict) -> dict[int, dict]:
    """The chunks of ``path`` (JSON lines) played for ``key``, by first deal; empty when there is no file."""
    if not path or not os.path.exists(path):
        return {}
    out: dict[int, dict] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                if all(rec.get(k) == v for k, v in key.items()):
                    out[rec["lo"]] = rec
    return out


def _timed_chunk(job: tuple) -> dict:
    """Play one chunk of deals (:func:`_play_deals`); its outcome, A's turn times and the chunk's cost."""
    w0, c0 = time.perf_counter(), time.process_time()
    per_deal, times = _play_deals(job)
    return {
        "lo": job[2],
        "hi": job[3],
        "per_deal": [list(r) for r in per_deal],
        "times_n": len(times),
        "times_sum": sum(times),
        "times_max": max(times, default=0.0),
        "wall": time.perf_counter() - w0,
        "cpu": time.process_time() - c0,
        "load1": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _keep(chunks: dict[int, dict], path: str | None, key: dict, rec: dict) -> None:
    """Add a played chunk to ``chunks`` and, with ``path``, append it (with its ``key``) to that file at once."""
    chunks[rec["lo"]] = rec
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(key | rec) + "\n")


def ladder(
    pairs,
    deals: int,
    seed: int,
    workers: int,
    variants: tuple[str, ...],
    game: str = "kingsbridge",
    players: int = 2,
    chunks_path: str | None = None,
) -> list[dict]:
    """Play every pair; return one result dict per pair (see the module docstring).

    With ``chunks_path``, each chunk of :data:`CHUNK` deals is appended to that JSON-lines file when played, and
    chunks already in it (same pair, game, variants, players, seed) are read back instead of played again.
    """
    results = []
    for a, b in pairs:
        t0 = time.perf_counter()
        key = _chunk_key(a, b, game, variants, players, seed)
        done = _saved_chunks(chunks_path, key)
        jobs = [
            (a, b, lo, min(lo + CHUNK, deals), seed, game, variants, players)
            for lo in range(0, deals, CHUNK)
            if not (lo in done and done[lo]["hi"] == min(lo + CHUNK, deals))
        ]
        chunks = {lo: rec for lo, rec in done.items() if lo < deals and rec["hi"] <= deals}

        if workers > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(workers) as ex:
                played = ex.map(_timed_chunk, jobs)
                for rec in played:
                    _keep(chunks, chunks_path, key, rec)
        else:
            for job in jobs:
                _keep(chunks, chunks_path, key, _timed_chunk(job))
        ordered = [chunks[lo] for lo in sorted(chunks)]
        per_deal = [tuple(r) for rec in ordered for r in rec["per_deal"]]
        if len(per_deal) != deals:
            raise ValueError(f"{chunks_path}: its chunks cover {len(per_deal)} deals, not 0..{deals - 1}")
        n_times = sum(rec["times_n"] for rec in ordered)
        sum_times = sum(rec["times_sum"] for rec in ordered)
        loads = [rec["load1"] for rec in ordered if rec.get("load1") is not None]
        wa = sum(r[0] for r in per_deal)
        wb = sum(r[1] for r in per_deal)
        ties = sum(r[2] for r in per_deal)
        games = players * deals
        base = wa + wb if players == 2 else games
        lo, hi = wilson_interval(wa, base)
        results.append(
            {
                "a": a,
                "b": b,
                "game": game,
                "variants": list(variants),
                "players": players,
                "deals": deals,
                "games": games,
                "a_wins": wa,
                "b_wins": wb,
                "ties": ties,
                "fair": 1 / players,
                "a_win_rate": wa / base if base else float("nan"),
                "a_ci95": [lo, hi],
                "a_score_ties_half": (wa + ties / 2) / games,
                "deals_a_won_all": sum(1 for r in per_deal if r[0] == players),
                "deals_b_won_all": sum(1 for r in per_deal if r[1] == players),
                "a_turn_ms_mean": 1000 * sum_times / n_times if n_times else float("nan"),
                "a_turn_ms_max": 1000 * max((rec["times_max"] for rec in ordered), default=float("nan")),
                "a_turns": n_times,
                "seconds": time.perf_counter() - t0,
                "cpu_seconds": sum(rec["cpu"] for rec in ordered),
                "load1_range": [min(loads), max(loads)] if loads else None,
                "per_deal": [list(r) for r in per_deal],
            }
        )
    return results


def _print_ladder(results: list[dict]) -> None:
    print(
        f"{'pair':<40}{'games':>7}{'A wins':>8}{'B wins':>8}{'ties':>6}{'A rate':>9}  {'95% interval':<17}"
        f"{'fair':>6}{'ties=1/2':>9}{'A all':>7}{'B all':>7}{'A ms':>8}{'max':>7}{'s':>7}"
    )
    for r in results:
        lo, hi = r["a_ci95"]
        print(
            f"{r['a'] + ' vs ' + r['b']:<40}{r['games']:>7}{r['a_wins']:>8}{r['b_wins']:>8}{r['ties']:>6}"
            f"{r['a_win_rate']:>9.1%}  {lo:.1%} - {hi:.1%}{'':<3}{r['fair']:>6.0%}{r['a_score_ties_half']:>9.1%}"
            f"{r['deals_a_won_all']:>7}{r['deals_b_won_all']:>7}{r['a_turn_ms_mean']:>8.1f}{r['a_turn_ms_max']:>7.0f}"
            f"{r['seconds']:>7.0f}"
        )


# ------------------------------------------------------------------ benchmark
class _TimedPlanner(PlannerBot):
    """The planner, timing each decision (the time of ``play_turn``, the turn's moves included)."""

    def __init__(self, sink: list[float], nodes: list[int]):
        super().__init__()
        self._sink = sink
        self._nodes = nodes

    def play_turn(self, turn) -> None:
        n0 = self.nodes
        t0 = time.perf_counter()
        super().play_turn(turn)
        self._sink.append(time.perf_counter() - t0)
        self._nodes.append(self.nodes - n0)


def bench(games: int, players: int, seed: int, variants: tuple[str, ...]) -> dict:
    """Planner-only games in this process; return the figures (see the module docstring)."""
    g = compile_rules(load_rules("kingsbridge", variants))
    # games/s without timing hooks
    w0, c0 = time.perf_counter(), time.process_time()
    for i in range(games):
        play_game(g, [make_bot("planner") for _ in range(players)], game_seed(seed, i))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    # decision times
    times: list[float] = []
    nodes: list[int] = []
    truncated = turns = 0
    w1 = time.perf_counter()
    for i in range(games):
        bots = [_TimedPlanner(times, nodes) for _ in range(players)]
        play_game(g, bots, game_seed(seed, i))
        truncated += sum(b.truncated for b in bots)
        turns += sum(b.turns for b in bots)
    timed_wall = time.perf_counter() - w1
    times.sort()
    nodes.sort()
    ms = [t * 1000 for t in times]
    return {
        "games": games,
        "players": players,
        "variants": list(variants),
        "seed": seed,
        "games_per_s_wall": games / wall,
        "games_per_s_cpu": games / cpu,
        "turns": turns,
        "turns_per_game": turns / games,
        "decision_ms_median": percentile(ms, 50),
        "decision_ms_p99": percentile(ms, 99),
        "decision_ms_max": ms[-1],
        "decision_share": sum(times) / timed_wall,
        "nodes_median": percentile(nodes, 50),
        "nodes_p99": percentile(nodes, 99),
        "nodes_max": nodes[-1],
        "budget": PlannerBot().budget,
        "truncated_turns": truncated,
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _print_bench(r: dict) -> None:
    print(
        f"{r['games']} games, {r['players']} players, planner only, variants {r['variants'] or 'base'}, "
        f"seed {r['seed']}"
    )
    print(
        f"  games/s: {r['games_per_s_wall']:,.0f} (wall clock), {r['games_per_s_cpu']:,.0f} (CPU time); "
        f"{r['turns_per_game']:.1f} turns per game"
    )
    print(
        f"  decision time per turn: median {r['decision_ms_median']:.3f} ms, 99th percentile "
        f"{r['decision_ms_p99']:.3f} ms, max {r['decision_ms_max']:.2f} ms "
        f"({r['decision_share']:.0%} of the run)"
    )
    print(
        f"  positions searched per turn: median {r['nodes_median']:.0f}, 99th percentile {r['nodes_p99']:.0f}, "
        f"max {r['nodes_max']}; budget {r['budget']}, turns that hit it: {r['truncated_turns']} of {r['turns']}"
    )
    print(f"  load average {r['load_average']}")


def main(argv: list[str] | None = None) -> int:
    """Command line: ``ladder`` (default) or ``bench``; ``--help`` for the options."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    lp = sub.add_parser("ladder", help="paired, seat-rotated matches between bots")
    lp.add_argument("--deals", type=int, default=1000, help="deals per pair; each is played twice (default 1000)")
    lp.add_argument("--seed", type=int, default=20240609, help="run seed (default 20240609)")
    lp.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    lp.add_argument(
        "--pairs",
        default=";".join(f"{a}:{b}" for a, b in PAIRS),
        help="A:B pairs separated by semicolons (default planner:greedy;greedy:random;search:planner)",
    )
    lp.add_argument("--game", default="kingsbridge", help="shipped game or rule file (default kingsbridge)")
    lp.add_argument("--players", type=int, default=2, help="seats: A in one, B in the others (default 2)")
    lp.add_argument("--variant", action="append", default=[], help="rule variant (repeatable)")
    lp.add_argument("--check", action="store_true", help="exit 1 unless every A beats its B (interval above 50%%)")
    lp.add_argument("--json", dest="json_path", help="also write the results to this JSON file")
    lp.add_argument(
        "--chunks", dest="chunks_path", help="JSON-lines file: save each ten deals when played; resume from it"
    )
    bp = sub.add_parser("bench", help="planner decision time and games/s, one core")
    bp.add_argument("--games", type=int, default=300, help="games (default 300)")
    bp.add_argument("--players", type=int, default=4, help="players (default 4)")
    bp.add_argument("--seed", type=int, default=7, help="run seed (default 7)")
    bp.add_argument("--variant", action="append", default=[], help="rule variant (repeatable)")
    bp.add_argument("--json", dest="json_path", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if args.cmd is None:
        args = ap.parse_args(["ladder", *(argv if argv is not None else sys.argv[1:])])
    meta = {"kbsim": __version__, "python": platform.python_version(), "machine": platform.machine()}
    if args.cmd == "bench":
        r = bench(args.games, args.players, args.seed, tuple(args.variant))
        _print_bench(r)
        payload = meta | {"bench": r}
        ok = True
    else:
        pairs = [tuple(p.split(":")) for p in args.pairs.split(";") if p]
        if args.deals < 1 or args.players < 2 or any(len(p) != 2 for p in pairs):
            ap.error("--deals must be >= 1, --players >= 2 and --pairs a list of A:B separated by semicolons")
        results = ladder(
            pairs,
            args.deals,
            args.seed,
            max(1, args.workers),
            tuple(args.variant),
            args.game,
            args.players,
            args.chunks_path,
        )
        print(
            f"ladder: {args.game}, {args.deals} deals x {args.players} seatings per pair, {args.players} players, "
            f"seed {args.seed}, variants {args.variant or 'base'}; ties (shared wins, turn limit) reported apart; "
            f"load average {os.getloadavg()[0] if hasattr(os, 'getloadavg') else '?'}"
        )
        _print_ladder(results)
        payload = meta | {"seed": args.seed, "game": args.game, "variants": args.variant, "ladder": results}
        ok = all(r["a_ci95"][0] > r["fair"] for r in results)
        if args.check and not ok:
            print("check failed: some interval does not lie above the fair share", file=sys.stderr)
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
    return 0 if ok or not getattr(args, "check", False) else 1


if __name__ == "__main__":
    sys.exit(main())
