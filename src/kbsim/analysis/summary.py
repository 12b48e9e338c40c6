"""The run summary: win rates by seat with intervals, end reasons, game length.

Works on record columns (see :mod:`kbsim.sim.records`). A shared win is
counted apart and is never a win of any one seat.
"""

from __future__ import annotations

from collections import Counter

from kbsim.analysis.stats import percentile, wilson_interval


def summarize(cols: dict[str, list], seconds: float | None = None) -> dict:
    """Summarise records.

    Args:
        cols: record columns of one run (all games with the same player count).
        seconds: wall time of the run, for games per second.

    Returns:
        A JSON-able dict: ``games``, ``players``, ``seats`` (per seat: ``wins``,
        ``win_rate``, ``win_ci95`` [low, high], ``shared_wins``), ``shared_win_games``,
        ``end_reasons`` (count and rate with ``ci95`` per reason), ``turns``
        (mean, median, p95), ``games_per_second``.
    """
    n = len(cols["game_index"])
    players = max(cols["players"]) if n else 0
    sole = Counter()
    shared = Counter()
    shared_games = 0
    for w in cols["winners"]:
        if len(w) == 1:
            sole[w[0]] += 1
        elif len(w) > 1:
            shared_games += 1
            for s in w:
                shared[s] += 1
    seats = []
    for s in range(players):
        lo, hi = wilson_interval(sole[s], n)
        seats.append({"seat": s, "wins": sole[s], "win_rate": sole[s] / n if n else 0.0,
                      "win_ci95": [lo, hi], "shared_wins": shared[s]})
    reasons = {}
    counts = Counter(cols["end_reason"])
    for reason in ("won", "stalemate", "turn_limit"):
        k = counts.get(reason, 0)
        lo, hi = wilson_interval(k, n)
        reasons[reason] = {"count": k, "rate": k / n if n else 0.0, "ci95": [lo, hi]}
    turns = sorted(cols["turns"])
    return {
        "games": n,
        "players": players,
        "seats": seats,
        "shared_win_games": shared_games,
        "end_reasons": reasons,
        "turns": {"mean": sum(turns) / n if n else float("nan"), "median": percentile(turns, 50),
                  "p95": percentile(turns, 95)},
        "games_per_second": (n / seconds) if seconds else None,
    }
