"""What a tuning target measures: per-deal statistics read from records, measures, losses and the objective.

A setting is played on blocks of deals (:mod:`kbsim.tune.evaluate`). Its records are
reduced here to :class:`DealStats`, one row per deal (the deal is the unit: a mixed
lineup's seat rotations on one deal are summed), from which every measure of
:data:`kbsim.sim.tune_spec.MEASURES` is computed for any **weighting of the deals**:
all ones for the point value, a bootstrap resample's counts (a row per resample) for
its interval. Two settings played on the same deals are compared with the *same*
resamples, so their difference keeps the pairing (common random numbers).

Units: shares, rates and the seat measures in percentage points (the study file writes
them as fractions; :func:`display_bound` converts), ``turns`` in turns, ``score`` and
``score_gap`` in points. The seat measures follow :mod:`kbsim.analysis.metrics`:
``seat_gap`` is :func:`~kbsim.analysis.metrics.largest_gap` of the games won alone;
``first_seat`` is seat 0's rate of winning alone minus the mean rate of a seat, over all
games (equal to the report's *first player − fair* when every game has a sole winner),
a mean of per-game values, so its paired difference is :func:`~kbsim.analysis.metrics.paired`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kbsim.analysis.metrics import largest_gap
from kbsim.sim.tune_spec import RATE_MEASURES, Target

__all__ = [
    "BOOTSTRAP",
    "DealStats",
    "UNITS",
    "Objective",
    "Resamples",
    "bootstrap_test",
    "deal_stats",
    "display_bound",
    "loss",
    "measure",
    "measure_name",
    "per_deal",
]

BOOTSTRAP = 400  # resamples of the deals behind every interval and paired check of the search
CHUNK = 4_000_000  # resamples x deals held at once (32 MB of weights)
PENALTY = 1000.0  # combine = constraints: objective + PENALTY x (sum of the bounds' violations) is what is minimised
#: The unit of each measure's values (shares and rates in percentage points).
UNITS = {m: "pp" for m in RATE_MEASURES} | {"turns": "turns", "score": "points", "score_gap": "points"}
RECORD_COLUMNS = ("game_index", "seed", "players", "bots", "winners", "end_reason", "turns")
OPTIONAL_COLUMNS = ("character_plays", "rule_usage", "score", "scores", "penalties")


@dataclass
class DealStats:
    """One setting at one player count, deal by deal (rows in deal order; rotations of a deal summed).

    Attributes:
        players: seats.
        rotations: games per deal (seat rotations of a mixed lineup; 1 otherwise).
        seat_wins: games won alone per deal and seat, shape ``(deals, players)``.
        turns: turns of every game, shape ``(deals, rotations)``.
        stalemate, turn_limit: games per deal ended so, shape ``(deals,)``.
        score_gap: per deal, the sum over its games of the best minus the second-best points (``scores``, or
            ``penalties`` where lower is better); None when the records hold neither.
        score: per deal, the sum of the team scores; None when the records hold none.
        bot_wins: bot name -> games won alone by its seats, per deal.
        any_wins: games won alone by anyone, per deal.
        usage: ``character:KEY`` / ``rule:KEY`` -> games in which it was played or used, per deal.
        rules_counted: the rule-usage counters the records list (the rules enable them).
    """

    players: int
    rotations: int
    seat_wins: np.ndarray
    turns: np.ndarray
    stalemate: np.ndarray
    turn_limit: np.ndarray
    score_gap: np.ndarray | None = None
    score: np.ndarray | None = None
    bot_wins: dict[str, np.ndarray] = field(default_factory=dict)
    any_wins: np.ndarray | None = None
    usage: dict[str, np.ndarray] = field(default_factory=dict)
    rules_counted: frozenset[str] = frozenset()

    @property
    def deals(self) -> int:
        """Number of deals."""
        return int(self.seat_wins.shape[0])

    @staticmethod
    def concat(parts: list[DealStats]) -> DealStats:
        """The deals of several blocks one after the other (same setting and player count).

        Raises:
            ValueError: no parts.
        """
        if not parts:
            raise ValueError("no blocks to join")
        if len(parts) == 1:
            return parts[0]
        first = parts[0]

        def cat(name: str) -> Any:
            vals = [getattr(p, name) for p in parts]
            return None if any(v is None for v in vals) else np.concatenate(vals)

        def cat_map(name: str) -> dict[str, np.ndarray]:
            keys = set.intersection(*(set(getattr(p, name)) for p in parts))
            return {k: np.concatenate([getattr(p, name)[k] for p in parts]) for k in sorted(keys)}

        return DealStats(
            players=first.players,
            rotations=first.rotations,
            seat_wins=cat("seat_wins"),
            turns=cat("turns"),
            stalemate=cat("stalemate"),
            turn_limit=cat("turn_limit"),
            score_gap=cat("score_gap"),
            score=cat("score"),
            bot_wins=cat_map("bot_wins"),
            any_wins=cat("any_wins"),
            usage=cat_map("usage"),
            rules_counted=first.rules_counted,
        )


def _score_gap(scores: list | None, penalties: list | None) -> float:
    if scores is not None and len(scores) >= 2:
        s = sorted(scores, reverse=True)
        return float(s[0] - s[1])
    if penalties is not None and len(penalties) >= 2:
        s = sorted(penalties)
        return float(s[1] - s[0])
    return math.nan


def deal_stats(paths: list[Path], players: int, usage_keys: tuple[str, ...] = ()) -> DealStats:
    """Read the records of one setting and player count (one file per seat rotation) into :class:`DealStats`.

    Args:
        paths: the records files of the rotations (each holding the same deals, ``game_index`` = deal index).
        players: seats.
        usage_keys: ``character:KEY`` / ``rule:KEY`` whose usage to count.

    Returns:
        :class:`DealStats` with rows in deal (``game_index``) order.
    """
    from kbsim.records import column_names, read_columns

    rot = len(paths)
    frames = []
    for p in paths:
        have = set(column_names(p))
        cols = list(RECORD_COLUMNS) + [c for c in OPTIONAL_COLUMNS if c in have]
        frames.append(read_columns(p, cols).sort("game_index").to_dict(as_series=False))
    deals = len(frames[0]["game_index"])
    seat_wins = np.zeros((deals, players))
    turns = np.zeros((deals, rot))
    stalemate = np.zeros(deals)
    turn_limit = np.zeros(deals)
    any_wins = np.zeros(deals)
    gap = np.zeros(deals)
    score = np.zeros(deals)
    has_gap = has_score = True
    bot_wins: dict[str, np.ndarray] = {}
    usage = {k: np.zeros(deals) for k in usage_keys}
    counted: set[str] = set()
    for r, f in enumerate(frames):
        none: list = [None] * deals  # a column the records lack (market games hold no penalties...)
        scores, penalties, team = f.get("scores", none), f.get("penalties", none), f.get("score", none)
        rule_usage, character_plays = f.get("rule_usage", none), f.get("character_plays", none)
        for d in range(deals):
            winners = f["winners"][d]
            if len(winners) == 1:
                w = winners[0]
                seat_wins[d, w] += 1
                any_wins[d] += 1
                bot = f["bots"][d][w]
                bot_wins.setdefault(bot, np.zeros(deals))[d] += 1
            turns[d, r] = f["turns"][d]
            reason = f["end_reason"][d]
            stalemate[d] += reason == "stalemate"
            turn_limit[d] += reason == "turn_limit"
            g = _score_gap(scores[d], penalties[d])
            has_gap = has_gap and not math.isnan(g)
            gap[d] += 0.0 if math.isnan(g) else g
            sc = team[d]
            has_score = has_score and sc is not None
            score[d] += sc or 0
            uses = rule_usage[d] or []
            counted.update(u["rule"] for u in uses)
            for key in usage_keys:
                kind, _, name = key.partition(":")
                if kind == "rule":
                    used = any(u["rule"] == name and u["uses"] for u in uses)
                else:
                    plays = character_plays[d] or []
                    used = any(c["character"] == name and c["plays"] for c in plays)
                usage[key][d] += used
        for bot in set(f["bots"][0]) if deals else ():
            bot_wins.setdefault(bot, np.zeros(deals))
    return DealStats(
        players=players,
        rotations=rot,
        seat_wins=seat_wins,
        turns=turns,
        stalemate=stalemate,
        turn_limit=turn_limit,
        score_gap=gap if has_gap and deals else None,
        score=score if has_score and deals else None,
        bot_wins=bot_wins,
        any_wins=any_wins,
        usage=usage,
        rules_counted=frozenset(counted),
    )


def usage_key(t: Target) -> str | None:
    """``character:KEY`` or ``rule:KEY`` of a ``usage`` target, else None."""
    if t.measure != "usage":
        return None
    return f"character:{t.character}" if t.character is not None else f"rule:{t.rule}"


def measure_name(t: Target) -> str:
    """A target's measure in words, e.g. ``first-seat edge`` or ``usage of edgar``."""
    names = {
        "seat_gap": "largest seat gap",
        "first_seat": "first-seat edge",
        "turns": "median turns",
        "stalemate": "stalemate rate",
        "turn_limit": "turn-limit rate",
        "score_gap": "score gap",
        "score": "team score",
        "wins": f"{t.bot} wins alone" if t.bot else "games won alone",
    }
    if t.measure == "usage":
        return f"games using {t.character or t.rule}"
    return names[t.measure]


def per_deal(t: Target, s: DealStats) -> np.ndarray:
    """The per-deal value whose mean over deals is ``t``'s measure (in its units), for measures that are means.

    Defined for every measure but ``seat_gap`` and ``turns`` (a largest gap and a median are not means).

    Raises:
        ValueError: ``seat_gap`` or ``turns``.
    """
    games = float(s.rotations)
    if t.measure == "first_seat":
        return 100.0 * (s.seat_wins[:, 0] - s.seat_wins.sum(1) / s.players) / games
    if t.measure in ("stalemate", "turn_limit"):
        return 100.0 * getattr(s, t.measure) / games
    if t.measure == "wins":
        x = s.any_wins if t.bot is None else s.bot_wins.get(t.bot, np.zeros(s.deals))
        return 100.0 * np.asarray(x) / games
    if t.measure == "usage":
        return 100.0 * s.usage[usage_key(t) or ""] / games
    if t.measure in ("score", "score_gap"):
        x = getattr(s, t.measure)
        return (np.full(s.deals, np.nan) if x is None else x) / games
    raise ValueError(f"{t.measure} is not a mean of per-deal values")


def _weighted_median(values: np.ndarray, deal_of: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The (lower) median of ``values`` with each value weighted by its deal's weight, per row of ``w``."""
    order = np.argsort(values, kind="stable")
    sv, wd = values[order], w[:, deal_of[order]]
    cum = np.cumsum(wd, axis=1)
    idx = (cum >= cum[:, -1:] / 2).argmax(axis=1)
    return sv[idx]


def measure(t: Target, s: DealStats, w: np.ndarray | None = None) -> np.ndarray | float:
    """The value of ``t``'s measure (in its units) on the deals of ``s``.

    Args:
        t: the target (its measure, and its bot, character or rule).
        s: the setting's per-deal statistics at one player count.
        w: deal weights, shape ``(resamples, deals)`` (bootstrap counts); None for the point value.

    Returns:
        A float (``w`` None) or one value per row of ``w``; nan where nothing was measured (e.g. no game won alone).
    """
    point = w is None
    W = np.ones((1, s.deals)) if w is None else np.asarray(w, dtype=float)
    if t.measure == "seat_gap":
        out = 100.0 * largest_gap(W @ s.seat_wins)
    elif t.measure == "turns":
        if point:
            return float(np.median(s.turns)) if s.turns.size else math.nan
        deal_of = np.repeat(np.arange(s.deals), s.rotations)
        out = _weighted_median(s.turns.ravel(), deal_of, W)
    else:
        x = per_deal(t, s)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = (W @ x) / W.sum(1)
    return float(out[0]) if point else np.asarray(out, dtype=float)


def display_bound(t: Target, v: float) -> float:
    """A bound from the study file in the measure's units (a share 0.02 becomes 2 pp)."""
    return 100.0 * v if t.measure in RATE_MEASURES else v


def loss(t: Target, value: np.ndarray | float) -> np.ndarray | float:
    """How far a measured value is from the target's goal (0 = met; in the measure's units).

    ``minimise``: the value (``first_seat``: its size); ``maximise``: minus the value; ``band``, ``at_most``,
    ``at_least``: the distance outside the bound.
    """
    v = np.asarray(value, dtype=float)
    if t.minimise:
        out = np.abs(v) if t.measure == "first_seat" else v
    elif t.maximise:
        out = -v
    elif t.band is not None:
        lo, hi = display_bound(t, t.band[0]), display_bound(t, t.band[1])
        out = np.maximum(0.0, np.maximum(lo - v, v - hi))
    elif t.at_most is not None:
        out = np.maximum(0.0, v - display_bound(t, t.at_most))
    else:
        out = np.maximum(0.0, display_bound(t, t.at_least or 0.0) - v)
    return float(out) if np.ndim(out) == 0 else out


def goal_words(t: Target) -> str:
    """The goal in words with its units, e.g. ``minimised`` or ``at most 2%``."""
    unit = UNITS[t.measure]
    pct = "%" if t.measure in RATE_MEASURES and t.measure not in ("seat_gap", "first_seat") else f" {unit}"

    def f(v: float) -> str:
        return f"{display_bound(t, v):g}{pct}"

    if t.minimise:
        return "minimised in size" if t.measure == "first_seat" else "minimised"
    if t.maximise:
        return "maximised"
    if t.band is not None:
        return f"within [{f(t.band[0])}, {f(t.band[1])}]"
    return f"at most {f(t.at_most)}" if t.at_most is not None else f"at least {f(t.at_least or 0.0)}"


class Objective:
    """The study's targets combined into one number to minimise (``combine`` of the ``[tune]`` section).

    ``weighted``: the sum over targets of weight x loss, a target's loss being its mean over its player counts.
    ``constraints``: the loss of the one optimised target; the other targets are bounds whose violations (their
    losses) make a setting infeasible; what the optimiser sees is ``objective + PENALTY x violation``.

    Args:
        targets: the study's targets.
        players: the study's player counts (a target without ``players`` applies to all).
        combine: ``weighted`` or ``constraints``.
    """

    def __init__(self, targets: list[Target], players: list[int], combine: str):
        self.targets = targets
        self.combine = combine
        self.players = {i: list(t.players or players) for i, t in enumerate(targets)}

    @property
    def player_counts(self) -> list[int]:
        """Every player count some target is measured at, sorted."""
        return sorted({p for ps in self.players.values() for p in ps})

    def evaluate(self, stats: dict[int, DealStats], w: np.ndarray | None = None) -> dict[str, Any]:
        """The objective of one setting.

        Args:
            stats: player count -> the setting's :class:`DealStats` (the same deals for every setting compared).
            w: deal weights ``(resamples, deals)``, or None for the point values.

        Returns:
            ``{"objective", "violation", "value", "measures"}``: the objective (a float or one per resample),
            the summed violations of the bounds (0 for ``weighted``), what the optimiser minimises, and
            ``measures[(target index, players)]`` = the measure's value.
        """
        measures: dict[tuple[int, int], Any] = {}
        objective: Any = 0.0
        violation: Any = 0.0
        for i, t in enumerate(self.targets):
            losses = []
            for p in self.players[i]:
                v = measure(t, stats[p], w)
                measures[(i, p)] = v
                losses.append(loss(t, v))
            mean_loss = np.mean(np.asarray(losses, dtype=float), axis=0)
            if self.combine == "weighted":
                objective = objective + t.weight * mean_loss
            elif t.optimised:
                objective = objective + mean_loss
            else:
                violation = violation + mean_loss
        value = objective + PENALTY * violation
        return {"objective": objective, "violation": violation, "value": value, "measures": measures}


class Resamples:
    """Bootstrap resamples of the deals, as deal weights, drawn and used a chunk of rows at a time.

    A resample is one row of counts (how often each deal is drawn); :meth:`map` applies a function to chunks of
    rows, ``(rows, deals)`` each with rows x deals at most :data:`CHUNK` numbers, so memory stays flat for any
    number of deals. The draws follow from ``seed`` and the number of deals only: the same records give the same
    intervals.

    Args:
        deals: deals resampled.
        seed: seed of the draws.
        resamples: rows in all (default :data:`BOOTSTRAP`).
    """

    def __init__(self, deals: int, seed: int, resamples: int = BOOTSTRAP):
        self.deals, self.seed, self.resamples = int(deals), int(seed), int(resamples)

    def chunks(self) -> Iterator[np.ndarray]:
        """The resamples, a chunk of rows at a time (each row sums to ``deals``)."""
        rows = max(1, CHUNK // max(1, self.deals))
        for k, start in enumerate(range(0, self.resamples, rows)):
            m = min(rows, self.resamples - start)
            rng = np.random.default_rng([self.seed, k])
            idx = rng.integers(0, self.deals, (m, self.deals)) + (np.arange(m) * self.deals)[:, None]
            yield np.bincount(idx.ravel(), minlength=m * self.deals).reshape(m, self.deals).astype(float)

    def map(self, fn: Callable[[np.ndarray], Any]) -> np.ndarray:
        """``fn(weights)`` for every chunk of resamples, joined: one value per resample, shape ``(resamples,)``."""
        return np.concatenate([np.asarray(fn(w), dtype=float).reshape(-1) for w in self.chunks()])


def bootstrap_test(diff: np.ndarray) -> tuple[float, float, float]:
    """The 95% percentile interval and two-sided p-value of a difference from its bootstrap resamples.

    Args:
        diff: the resampled differences (nan rows are left out).

    Returns:
        ``(low, high, p)``: the 2.5 and 97.5 percentiles, and twice the smaller share of resamples on either side of
        0 (at least 1 / (resamples + 1); 1 when every resample is 0). All nan when no resample is a number.
    """
    d = np.asarray(diff, dtype=float)
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan, math.nan, math.nan
    lo, hi = (float(x) for x in np.percentile(d, [2.5, 97.5]))
    if np.all(d == 0):
        return lo, hi, 1.0
    side = float(min(np.mean(d <= 0), np.mean(d >= 0)))
    return lo, hi, float(min(1.0, max(2 * side, 1 / (d.size + 1))))
