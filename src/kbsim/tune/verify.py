"""The honest answer: the recommendation, the default and the runner-up replayed on fresh deals.

The search's best value is optimistic: among many noisy settings, the one that looked
best was partly lucky on the search's deals (the winner's curse). Replaying the chosen
settings on deals the search never saw (:data:`~kbsim.tune.evaluate.VERIFY` blocks) gives
unbiased values, and playing them on the *same* fresh deals gives paired differences.

Per setting, target and player count the value comes with its 95% interval, computed as
the report pages do (:mod:`kbsim.analysis.metrics`): the largest seat gap as the
verdict of :func:`~kbsim.analysis.metrics.seat_balance` (the furthest seat, Wilson
interval), rates with Wilson intervals, means (first-seat edge, scores) with t intervals,
the median of turns with a bootstrap interval. Each setting's difference from the default
on the same deals is :func:`~kbsim.analysis.metrics.paired_seat_gap` for the seat gap,
:func:`~kbsim.analysis.metrics.paired` for the means and rates, a paired bootstrap for
the median and the objective; the p-values of a check are adjusted together with Holm's
method (:func:`~kbsim.analysis.metrics.adjust`).

The number of fresh deals is chosen from the study's ``precision`` (the wanted half-width
of the interval of a setting's paired difference from the defaults on the first target),
using the spread of those differences seen in the search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kbsim.analysis import metrics as M
from kbsim.tune.choose import Paired, paired_objective
from kbsim.tune.evaluate import Block, Evaluator
from kbsim.tune.measures import (
    DealStats,
    Objective,
    Resamples,
    bootstrap_test,
    display_bound,
    measure,
    per_deal,
)
from kbsim.tune.space import SearchSpace

__all__ = ["Cell", "Check", "deals_for_precision", "replay"]


@dataclass
class Cell:
    """One setting's value of one target at one player count.

    Attributes:
        value: the measure (its units).
        low, high: its 95% interval (for ``seat_gap``: of the furthest seat's signed gap).
        seat: ``seat_gap``: the furthest seat (else None).
        signed: ``seat_gap``: the furthest seat's signed gap (else the value).
    """

    value: float
    low: float
    high: float
    seat: int | None = None
    signed: float = math.nan


@dataclass
class Check:
    """A replay of some settings on the same fresh deals.

    Attributes:
        name: ``verify`` or ``skill``.
        bots: the lineup as written.
        deals: fresh deals per player count.
        settings: (label, setting) pairs; the first is the default.
        cells: ``(label, target index, players)`` -> :class:`Cell`.
        objective: label -> (objective, low, high) on these deals (bootstrap interval).
        deltas: per non-default setting, target and player count: ``{"label", "target", "players", "delta"}``
            (a :class:`~kbsim.analysis.metrics.Delta` of the setting minus the default, Holm-adjusted within the
            check).
        against_default: label -> :class:`~kbsim.tune.choose.Paired` objective difference from the default.
        violation: label -> summed violation of the bounds (``combine = constraints``).
    """

    name: str
    bots: str
    deals: int
    settings: list[tuple[str, dict[str, Any]]]
    cells: dict[tuple[str, int, int], Cell] = field(default_factory=dict)
    objective: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    deltas: list[dict[str, Any]] = field(default_factory=list)
    against_default: dict[str, Paired] = field(default_factory=dict)
    violation: dict[str, float] = field(default_factory=dict)


def deals_for_precision(
    precision: float | None,
    objective: Objective,
    search_stats: list[dict[int, DealStats]],
    fallback: int,
    low: int,
    high: int,
    seed: int,
) -> int:
    """Fresh deals that measure each setting's difference from the defaults on the first target to ``precision``.

    Args:
        precision: wanted half-width of the 95% interval of the paired difference (setting minus defaults) on the
            first target, in the study file's units (a fraction for shares); None: ``fallback``.
        objective: the targets (the first one is used).
        search_stats: the settings' per-deal statistics from the search (player count -> stats), the defaults
            first.
        fallback: deals when no precision is given.
        low: fewest deals.
        high: most deals.
        seed: bootstrap seed.

    Returns:
        ``ceil((1.96 * sd / precision)**2)`` for the largest per-deal spread ``sd`` of a difference seen in the
        search (its paired bootstrap standard error times the square root of the deals), within ``[low, high]``.
    """
    if precision is None or len(search_stats) < 2:
        return max(low, min(high, fallback))
    t = objective.targets[0]
    want = display_bound(t, precision)
    need = low
    base = search_stats[0]
    for stats in search_stats[1:]:
        for p in objective.players[0]:
            diff = Resamples(base[p].deals, seed).map(_difference(t, base[p], stats[p]))
            sd = float(np.nanstd(diff, ddof=1)) * math.sqrt(base[p].deals)
            if math.isfinite(sd) and sd > 0:
                need = max(need, math.ceil((M.Z95 * sd / want) ** 2))
    return max(low, min(high, need))


def _difference(t: Any, a: DealStats, b: DealStats) -> Callable[[np.ndarray], np.ndarray]:
    """``weights -> measure(b) - measure(a)`` of target ``t`` (for :meth:`Resamples.map`)."""

    def diff(w: np.ndarray) -> np.ndarray:
        return np.asarray(measure(t, b, w), dtype=float) - np.asarray(measure(t, a, w), dtype=float)

    return diff


def _objective(objective: Objective, stats: dict[int, DealStats]) -> Callable[[np.ndarray], np.ndarray]:
    """``weights -> the objective of a setting`` (for :meth:`Resamples.map`)."""

    def value(w: np.ndarray) -> np.ndarray:
        return np.asarray(objective.evaluate(stats, w)["objective"], dtype=float)

    return value


def _cell(t: Any, s: DealStats, w: Resamples) -> Cell:
    """A setting's value of target ``t`` with its interval, as the report pages compute it."""
    games = s.deals * s.rotations
    if t.measure == "seat_gap":
        v = M.seat_balance([int(x) for x in s.seat_wins.sum(0)], games)["verdict"]["largest"]
        return Cell(float(measure(t, s)), 100 * v["low"], 100 * v["high"], seat=int(v["seat"]), signed=100 * v["gap"])
    if t.measure == "turns":
        lo, hi = (float(x) for x in np.nanpercentile(w.map(lambda x: measure(t, s, x)), [2.5, 97.5]))
        v = float(measure(t, s))
        return Cell(v, lo, hi, signed=v)
    if t.measure in ("stalemate", "turn_limit", "wins", "usage"):
        k = int(round(float(np.sum(per_deal(t, s))) * s.rotations / 100))
        r = M.rate(k, games)
        return Cell(100 * r["rate"], 100 * r["low"], 100 * r["high"], signed=100 * r["rate"])
    d = M.paired(per_deal(t, s))  # a one-sample mean with its t interval
    return Cell(d.mean, d.low, d.high, signed=d.mean)


def _delta(t: Any, a: DealStats, b: DealStats, w: Resamples, seed: int) -> M.Delta:
    """B - A on the same deals for target ``t`` (in its units)."""
    if t.measure == "seat_gap":
        d = M.paired_seat_gap(a.seat_wins, b.seat_wins, seed=seed)
        return replace(d, mean=100 * d.mean, low=100 * d.low, high=100 * d.high, sd=100 * d.sd)
    if t.measure == "turns":
        diff = w.map(_difference(t, a, b))
        point = float(measure(t, b)) - float(measure(t, a))
        lo, hi, p = bootstrap_test(diff)
        sd = float(np.nanstd(diff, ddof=1)) * math.sqrt(a.deals)
        return M.Delta(point, lo, hi, sd, a.deals, p=p, test="paired bootstrap")
    if t.measure in ("stalemate", "turn_limit", "wins", "usage"):
        d = M.paired((per_deal(t, b) - per_deal(t, a)) / 100, binary=a.rotations == 1)
        return replace(d, mean=100 * d.mean, low=100 * d.low, high=100 * d.high, sd=100 * d.sd)
    return M.paired(per_deal(t, b) - per_deal(t, a))


def replay(
    name: str,
    settings: list[tuple[str, dict[str, Any]]],
    deals: int,
    phase: int,
    bots: str | list[str] | None,
    objective: Objective,
    evaluator: Evaluator,
    space: SearchSpace,
    seed: int,
) -> Check:
    """Play ``settings`` on the same fresh deals and measure them against the first (the default).

    Args:
        name: ``verify`` or ``skill``.
        settings: (label, setting), the default first.
        deals: fresh deals.
        phase: the block phase (:data:`~kbsim.tune.evaluate.VERIFY` or :data:`~kbsim.tune.evaluate.SKILL`).
        bots: the lineup (None: the study's).
        objective: the targets.
        evaluator: plays the settings.
        space: the options (for labels).
        seed: seed of the bootstrap and permutation resamples.

    Returns:
        :class:`Check`.

    Raises:
        kbsim.tune.evaluate.SettingRefused: the rules refuse a setting (not expected: each was played before).
    """
    blocks = [Block(phase, 0, deals)]
    lineup = bots if bots is not None else evaluator.study.arms[0].bots
    check = Check(name, lineup if isinstance(lineup, str) else ",".join(lineup), deals, settings)
    stats = {label: evaluator.stats(setting, blocks, bots) for label, setting in settings}
    w = Resamples(deals, seed)
    for label, _ in settings:
        res = objective.evaluate(stats[label])
        boot = w.map(_objective(objective, stats[label]))
        lo, hi = (float(x) for x in np.nanpercentile(boot, [2.5, 97.5]))
        check.objective[label] = (float(res["objective"]), lo, hi)
        check.violation[label] = float(res["violation"])
        for i, t in enumerate(objective.targets):
            for p in objective.players[i]:
                check.cells[(label, i, p)] = _cell(t, stats[label][p], w)
    base = settings[0][0]
    keys: list[tuple[str, int, int]] = []
    deltas: list[M.Delta] = []
    for label, _ in settings[1:]:
        check.against_default[label] = paired_objective(objective, stats[base], stats[label], w)
        for i, t in enumerate(objective.targets):
            for p in objective.players[i]:
                keys.append((label, i, p))
                deltas.append(_delta(t, stats[base][p], stats[label][p], w, seed))
    adjusted = M.adjust(deltas)
    check.deltas = [
        {"label": label, "target": i, "players": p, "delta": d} for (label, i, p), d in zip(keys, adjusted, strict=True)
    ]
    return check
