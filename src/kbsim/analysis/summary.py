"""The run summary: rates of winning alone by seat with intervals, end reasons, game length.

Built incrementally from record chunks (see :mod:`kbsim.sim.records`), so a
run of any size is summarised in constant memory: turns are kept as a
histogram, which gives exact percentiles. A shared win is counted apart and is
never a win of any one seat.

Every rate, interval, the seat-equality test and the verdict (distance from
fair) come from :mod:`kbsim.analysis.metrics`, the module the report page uses
too, so the terminal and the page show the same numbers.
"""

from __future__ import annotations

from collections import Counter

from kbsim.analysis import metrics as M
from kbsim.analysis.seats import first_seat, starts_text


def wilson_interval(k: int, n: int) -> tuple[float, float]:
    """95% Wilson interval (see :func:`kbsim.analysis.metrics.wilson`)."""
    return M.wilson(k, n)


END_REASONS = ("won", "stalemate", "turn_limit", "all_out")
#: The record columns :meth:`Summary.add` reads (those a file lacks are skipped).
SUMMARY_COLUMNS = (
    "game_index",
    "players",
    "bots",
    "winners",
    "end_reason",
    "turns",
    "score",
    "hands",
    "penalties",
    "blocked_hands",
    "scores",
    "character_plays",
    "rule_usage",
)


class Summary:
    """Accumulates records chunk by chunk; :meth:`result` gives the summary dict.

    Args:
        win_at, expert_at: the team score that wins, and an expert's (solo and cooperative games).
        seats: the records' seat roles (:func:`kbsim.analysis.seats.seats_of`), for who plays first; None for
            records that do not say.
    """

    def __init__(self, win_at: int = 1, expert_at: int = 12, seats: dict | None = None) -> None:
        self.win_at, self.expert_at = win_at, expert_at
        self.seat_roles = seats
        self.scores: Counter = Counter()
        self.hands = 0
        self.games = 0
        self.players = 0
        self.sole: Counter = Counter()
        self.shared: Counter = Counter()
        self.shared_games = 0
        self.reasons: Counter = Counter()
        self.turns: Counter = Counter()
        self.penalties: Counter = Counter()  # seat -> penalty points (King's Corners)
        self.penalty_games = 0
        self.blocked = 0
        self.points: Counter = Counter()  # seat -> points (Continental Express)
        self.points_games = 0
        self.char_plays: Counter = Counter()  # character -> plays
        self.char_games = 0
        self.bot_wins: Counter = Counter()  # bot -> games won alone
        self.bot_seats: Counter = Counter()  # bot -> seat-games
        self.rule_uses: Counter = Counter()  # rule-usage counter -> uses (every counter the rules enable)
        self.rule_legal: Counter = Counter()  # rule-usage counter -> turns where it was legal (where counted)

    def add(self, cols: dict[str, list]) -> None:
        """Add a chunk of record columns (dict of lists)."""
        self.games += len(cols["game_index"])
        if cols["players"]:
            self.players = max(self.players, max(cols["players"]))
        for lineup, w in zip(cols.get("bots") or [None] * len(cols["winners"]), cols["winners"], strict=True):
            if lineup:
                self.bot_seats.update(lineup)
                if len(w) == 1:
                    self.bot_wins[lineup[w[0]]] += 1
            if len(w) == 1:
                self.sole[w[0]] += 1
            elif len(w) > 1:
                self.shared_games += 1
                for s in w:
                    self.shared[s] += 1
        self.reasons.update(cols["end_reason"])
        self.turns.update(cols["turns"])
        self._add_counts(cols)

    def _add_counts(self, cols: dict[str, list]) -> None:
        """Add the optional per-game counts of a chunk: score, hands, penalties, points, character plays."""
        self.scores.update(v for v in cols.get("score", ()) if v is not None)
        self.hands += sum(h for h in (cols.get("hands", ()) or ()) if h is not None)
        for row in cols.get("penalties", ()) or ():
            if row:
                self.penalty_games += 1
                for seat, v in enumerate(row):
                    self.penalties[seat] += v
        self.blocked += sum(b for b in (cols.get("blocked_hands", ()) or ()) if b is not None)
        for row in cols.get("scores", ()) or ():
            if row:
                self.points_games += 1
                for seat, v in enumerate(row):
                    self.points[seat] += v
        for entries in cols.get("rule_usage", ()) or ():
            for e in entries or ():
                self.rule_uses[e["rule"]] += e["uses"]
                if e.get("legal_turns") is not None:
                    self.rule_legal[e["rule"]] += e["legal_turns"]
        for plays in cols.get("character_plays", ()) or ():
            if plays is not None:
                self.char_games += 1
                for e in plays:
                    self.char_plays[e["character"]] += e["plays"]

    def _bot_shares(self, n: int) -> list[dict]:
        """Each bot's share of all games won alone, against its fair share (its seats / P)."""
        out = []
        for bot in sorted(self.bot_seats):
            seats = self.bot_seats[bot] / n if n else 0
            out.append(
                _json_clean(
                    {
                        "bot": bot,
                        "seats": round(seats, 3),
                        "fair": seats / self.players,
                        **M.rate(self.bot_wins[bot], n),
                    }
                )
            )
        return out

    def _order_statistic(self, k: int) -> int:
        """The k-th smallest (0-based) number of turns."""
        seen = 0
        for v in sorted(self.turns):
            seen += self.turns[v]
            if seen > k:
                return v
        raise IndexError(k)

    def _percentile(self, q: float) -> float:
        """Exact q-th percentile of turns, interpolated like NumPy's default."""
        n = self.games
        if not n:
            return float("nan")
        pos = (n - 1) * q / 100
        lo = int(pos)
        a, b = self._order_statistic(lo), self._order_statistic(min(lo + 1, n - 1))
        return a + (b - a) * (pos - lo)

    def result(self, seconds: float | None = None) -> dict:
        """The summary of the records added so far, as a JSON-able dict.

        Keys: ``games``, ``players``, ``seats`` (per seat ``wins``, ``win_rate``,
        ``win_ci95`` [low, high], ``shared_wins``), ``shared_win_games``, ``end_reasons``
        (per reason ``count``, ``rate``, ``ci95``), ``turns`` (``mean``, ``median``, ``p95``),
        ``games_per_second`` (when ``seconds`` is given) and ``rule_usage`` (per counter the rules enable, ``uses``
        and, for a variant's rebuilds, ``legal_turns``; None when the rules enable no counter).
        """
        n = self.games
        seats = []
        for s in range(self.players):
            lo, hi = wilson_interval(self.sole[s], n)
            seats.append(
                {
                    "seat": s,
                    "wins": self.sole[s],
                    "win_rate": self.sole[s] / n if n else 0.0,
                    "win_ci95": [lo, hi],
                    "shared_wins": self.shared[s],
                }
            )
        reasons = {}
        for reason in END_REASONS:
            k = self.reasons.get(reason, 0)
            lo, hi = wilson_interval(k, n)
            reasons[reason] = {"count": k, "rate": k / n if n else 0.0, "ci95": [lo, hi]}
        total_turns = sum(v * c for v, c in self.turns.items())
        scored = sum(self.scores.values())
        score = None
        team = bool(scored)  # solo / cooperative: one team result, no seat table
        if scored:
            won = sum(c for v, c in self.scores.items() if v >= self.win_at)
            expert = sum(c for v, c in self.scores.items() if v >= self.expert_at)
            score = {
                "games": scored,
                "mean": sum(v * c for v, c in self.scores.items()) / scored,
                "min": min(self.scores),
                "max": max(self.scores),
                "distribution": {str(v): self.scores[v] for v in sorted(self.scores)},
                "histogram": _histogram(self.scores),
                "won": {
                    "count": won,
                    "rate": won / scored,
                    "ci95": list(wilson_interval(won, scored)),
                    "threshold": self.win_at,
                },
                "expert": {
                    "count": expert,
                    "rate": expert / scored,
                    "ci95": list(wilson_interval(expert, scored)),
                    "threshold": self.expert_at,
                },
            }
        first = first_seat(self.seat_roles, self.players)
        balance = M.seat_balance([self.sole[s] for s in range(self.players)], n, first) if self.players else None
        return {
            "games": n,
            "players": self.players,
            "seats": seats,
            "seat_balance": _json_clean(balance),
            "shared_win_games": self.shared_games,
            "end_reasons": reasons,
            "turns": {
                "mean": total_turns / n if n else float("nan"),
                "median": self._percentile(50),
                "p95": self._percentile(95),
            },
            "games_per_second": (n / seconds) if seconds else None,
            "score": score,
            "hands_per_game": self.hands / n if n and self.hands else None,
            "mode": "team" if team else "seats",
            "bot_shares": self._bot_shares(n) if len(self.bot_seats) > 1 and not team else None,
            "starts": starts_text(self.seat_roles, self.players) if not team else None,
            "first_seat": first if not team else None,
            "fair_share": (1 / self.players) if self.players and not team else None,
            "penalties": (
                {
                    "per_seat_per_game": [self.penalties[s] / self.penalty_games for s in range(self.players)],
                    "blocked_hands": _json_clean(M.rate(self.blocked, self.hands)) if self.hands else None,
                }
                if self.penalty_games
                else None
            ),
            "points": (
                {"per_seat_per_game": [self.points[s] / self.points_games for s in range(self.players)]}
                if self.points_games
                else None
            ),
            "character_plays": (
                {c: self.char_plays[c] / self.char_games for c in sorted(self.char_plays)} if self.char_plays else None
            ),
            "rule_usage": {
                k: {"uses": self.rule_uses[k], "legal_turns": self.rule_legal[k] if k in self.rule_legal else None}
                for k in sorted(self.rule_uses)
            }
            or None,
        }


def _histogram(counts: Counter, bins: int = 12) -> list[dict]:
    """Scores grouped into at most ``bins`` equal-width bins: ``[{"low", "high", "count"}]`` (inclusive ends)."""
    if not counts:
        return []
    lo, hi = min(counts), max(counts)
    width = max(1, -(-(hi - lo + 1) // bins))
    out = []
    for start in range(lo, hi + 1, width):
        end = start + width - 1
        out.append({"low": start, "high": end, "count": sum(c for v, c in counts.items() if start <= v <= end)})
    return out


def _json_clean(v):
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, dict):
        return {k: _json_clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_clean(x) for x in v]
    return v


def summarize(cols: dict[str, list], seconds: float | None = None, seats: dict | None = None) -> dict:
    """Summarise one batch of record columns (``seats``: their seat roles); see :meth:`Summary.result`."""
    s = Summary(seats=seats)
    s.add(cols)
    return s.result(seconds)
