"""Why ``search`` gains less over the planner at 4 players than at 2: three cheap diagnostics.

Usage (pure-Python build: the probe wraps :func:`kbsim.bots.halving.halve`, which compiled code calls directly)::

    PYTHONPATH=src python benchmarks/search_probe.py [--games N] [--seed S] [--json FILE] [--search SPEC]

1. **Departures**: one ``search`` bot against planners, 2 and 4 players, ``N`` games each (seat rotated by game):
   how many of its turns it searched (more than one candidate), and how often it chose a turn other than the
   planner's (``SearchBot.chosen``), by kind.
2. **Noise**: on every searched turn, the best challenger among the candidates still in the race at the end of
   sequential halving, and its mean difference in value to the default over the common worlds (world by world),
   with the standard error of that mean: compared with the thresholds a challenger must clear
   (:data:`kbsim.bots.search.MARGIN`, and :data:`~kbsim.bots.search.Z` standard errors).
3. **Race slope**: on the positions at the start of every turn of ``N`` planner-only games, the maximum likelihood
   slope of the race evaluation (the sole winner's probability taken as the softmax of ``-slope x cards held``
   over the seats), its log-likelihood beside that of :data:`~kbsim.bots.search.RACE_SLOPE` and of a uniform
   guess, and the calibration of the evaluation's probability for the seat to move (by fifths).

Prints one block per diagnostic; ``--json`` also writes the figures. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys

import kbsim
import kbsim.bots.search as search_mod
from kbsim.bots import make_bot
from kbsim.bots.halving import halve as _halve
from kbsim.bots.search import MARGIN, RACE_SLOPE, Z
from kbsim.engine.rows.game import play_game
from kbsim.engine.seeds import game_seed

_records: list[dict] = []


def _recording_halve(candidates, iterations, pull, margin=0.0, z=0.0):
    """:func:`halve`, keeping each pull's value and, per decision, the best challenger's paired difference."""
    values: dict[int, dict[int, float]] = {}

    def rec(c: int, w: int) -> float:
        v = pull(c, w)
        values.setdefault(c, {})[w] = v
        return v

    res = _halve(candidates, iterations, rec, margin, z)
    last = max(res.counts)
    finalists = [c for c in range(1, candidates) if res.counts[c] == last]
    if finalists:
        c = max(finalists, key=lambda k: (res.mean(k), -k))
        ws = sorted(values[c])
        diffs = [values[c][w] - values[0][w] for w in ws]
        n = len(diffs)
        mean = sum(diffs) / n
        se = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")
        _records.append(
            {
                "candidates": candidates,
                "default_value": res.mean(0),
                "diff": mean,
                "se": se,
                "n": n,
                "chosen": res.best != 0,
            }
        )
    return res


def departures(players: int, games: int, seed: int, spec: str) -> dict:
    """One ``spec`` bot against planners: its searched turns, departures from the planner and halving's noise."""
    g = kbsim.load_game("kingsbridge", ())
    chosen: dict[str, int] = {}
    turns = decisions = wins = 0
    del _records[:]
    for i in range(games):
        seat = i % players
        bots = [make_bot("planner", g.family) for _ in range(players)]
        bots[seat] = me = make_bot(spec, g.family)
        res = play_game(g, bots, game_seed(seed, i))
        wins += tuple(res.winners) == (seat,)
        for k, v in me.chosen.items():
            chosen[k] = chosen.get(k, 0) + v
        turns += sum(me.chosen.values())
        decisions += me.decisions
    recs = list(_records)
    ses = [r["se"] for r in recs if r["n"] > 1]
    diffs = [r["diff"] for r in recs]
    return {
        "players": players,
        "games": games,
        "search_wins_alone": wins,
        "turns": turns,
        "searched_turns": decisions,
        "departures": turns - chosen.get("default", 0),
        "departure_share": (turns - chosen.get("default", 0)) / turns if turns else float("nan"),
        "chosen": chosen,
        "mean_candidates": statistics.mean(r["candidates"] for r in recs) if recs else float("nan"),
        "mean_default_value": statistics.mean(r["default_value"] for r in recs) if recs else float("nan"),
        "challenger_diff_median": statistics.median(diffs) if diffs else float("nan"),
        "challenger_diff_above_margin": sum(d > MARGIN for d in diffs),
        "challenger_se_median": statistics.median(ses) if ses else float("nan"),
        "challenger_se_quartiles": statistics.quantiles(ses, n=4) if len(ses) > 1 else [],
        "challenger_worlds_median": statistics.median(r["n"] for r in recs) if recs else float("nan"),
        "challenger_se_above_margin": sum(s > MARGIN / max(Z, 1e-9) for s in ses),
    }


class _Positions:
    """A planner that notes, at the start of each of its turns, every seat's cards held and whose turn it is."""

    def __init__(self, bot, sink: list[tuple[int, list[int]]]):
        self._bot = bot
        self._sink = sink

    def __getattr__(self, name):
        return getattr(self._bot, name)

    def new_game(self, game, seat, players, seed) -> None:
        self._bot.new_game(game, seat, players, seed)

    def play_turn(self, turn) -> None:
        st = turn.state
        self._sink.append((turn.seat, [st.held(k) for k in range(st.players)]))
        self._bot.play_turn(turn)


def _loglik(slope: float, data: list[tuple[list[int], int]]) -> float:
    total = 0.0
    for held, winner in data:
        logits = [-slope * h for h in held]
        top = max(logits)
        lse = top + math.log(sum(math.exp(x - top) for x in logits))
        total += logits[winner] - lse
    return total


def race_slope(players: int, games: int, seed: int) -> dict:
    """Fit the race evaluation's slope on planner positions (see the module docstring)."""
    from scipy.optimize import minimize_scalar

    g = kbsim.load_game("kingsbridge", ())
    data: list[tuple[list[int], int]] = []
    to_move: list[tuple[float, int]] = []
    for i in range(games):
        sink: list[tuple[int, list[int]]] = []
        bots = [_Positions(make_bot("planner", g.family), sink) for _ in range(players)]
        res = play_game(g, bots, game_seed(seed, i))
        if len(res.winners) != 1:
            continue
        w = res.winners[0]
        for mover, held in sink:
            data.append((held, w))
            logits = [-RACE_SLOPE * h for h in held]
            top = max(logits)
            ws = [math.exp(x - top) for x in logits]
            to_move.append((ws[mover] / sum(ws), int(mover == w)))
    fit = minimize_scalar(lambda s: -_loglik(s, data), bounds=(0.0, 2.0), method="bounded")
    to_move.sort()
    fifths = []
    for q in range(5):
        part = to_move[q * len(to_move) // 5 : (q + 1) * len(to_move) // 5]
        fifths.append(
            {
                "predicted": statistics.mean(p for p, _ in part),
                "observed": statistics.mean(y for _, y in part),
                "positions": len(part),
            }
        )
    return {
        "players": players,
        "games": games,
        "positions": len(data),
        "slope_mle": float(fit.x),
        "loglik_per_position_mle": -float(fit.fun) / len(data),
        "loglik_per_position_shipped": _loglik(RACE_SLOPE, data) / len(data),
        "loglik_per_position_uniform": -math.log(players),
        "calibration_to_move": fifths,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="games per diagnostic and player count (default 40)")
    ap.add_argument("--seed", type=int, default=20240609, help="run seed (default 20240609)")
    ap.add_argument("--search", default="search", help="the search bot's spec (default: search)")
    ap.add_argument("--json", dest="json_path", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if not search_mod.__file__ or not search_mod.__file__.endswith(".py"):
        ap.error("run on the pure-Python build (PYTHONPATH=src): compiled code does not see the probe's hook")
    search_mod.halve = _recording_halve  # type: ignore[assignment]  # the probe's only hook
    out: dict = {"seed": args.seed, "search": args.search, "margin": MARGIN, "z": Z, "slope": RACE_SLOPE}
    for players in (2, 4):
        d = departures(players, args.games, args.seed, args.search)
        out[f"departures_{players}p"] = d
        print(json.dumps(d), flush=True)
    for players in (2, 4):
        r = race_slope(players, args.games * 5, args.seed)
        out[f"slope_{players}p"] = r
        print(json.dumps(r), flush=True)
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
