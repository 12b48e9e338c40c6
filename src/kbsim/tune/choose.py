"""Fewest changes: from the search's best setting to the recommendation.

The setting with the lowest objective is the search's *best*. The recommendation is the
setting that changes the fewest options from the start among those **not significantly
worse** than the best, then simplified further one option at a time:

1. the settings the search played to the end are ranked by (options changed, objective);
   the first that is not significantly worse than the best is chosen (the default, with
   no change, comes first: if it is not significantly worse, nothing is recommended);
2. each option the chosen setting still changes is put back to its default, one at a time
   (a one-step check, as TAG's later parameter-search work does); a reverted setting not
   significantly worse than the best replaces it (the best of them when several are), and
   the step repeats until no change can be dropped.

"Not significantly worse" is a paired check on the search's deals: the objective's
difference (this setting minus the best) over :data:`~kbsim.tune.measures.BOOTSTRAP`
bootstrap resamples of the deals, both settings on the same resampled deals; the setting
is significantly worse only when the whole 95% interval of the difference lies above 0.
With ``combine = constraints`` only settings that meet every bound (at their point value)
are candidates, when there are any. The *runner-up* is the best other setting that the
search played to the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kbsim.tune.evaluate import Block, Evaluator, SettingRefused
from kbsim.tune.measures import Objective
from kbsim.tune.search import TrialRow
from kbsim.tune.space import SearchSpace

__all__ = ["Choice", "Paired", "choose", "paired_objective"]


@dataclass(frozen=True)
class Paired:
    """A paired difference of the objective (B - A on the same deals): point, 95% bootstrap interval, p-value."""

    mean: float
    low: float
    high: float
    p: float
    deals: int

    @property
    def worse(self) -> bool:
        """B is significantly worse than A (the whole interval above 0)."""
        return self.low > 0

    @property
    def better(self) -> bool:
        """B is significantly better than A (the whole interval below 0)."""
        return self.high < 0


def paired_objective(objective: Objective, a: dict, b: dict, w: np.ndarray) -> Paired:
    """The objective of ``b`` minus that of ``a`` on the same deals, with a paired bootstrap.

    Args:
        objective: the targets combined.
        a: player count -> :class:`~kbsim.tune.measures.DealStats` of setting A.
        b: the same of setting B, on the same deals.
        w: bootstrap deal weights, shape ``(resamples, deals)``.

    Returns:
        :class:`Paired`: the point difference, the 2.5 and 97.5 percentiles of the resampled differences, and the
        two-sided bootstrap p-value (twice the smaller share of resamples on either side of 0, at least
        1 / (resamples + 1)).
    """
    point = float(objective.evaluate(b)["value"]) - float(objective.evaluate(a)["value"])
    d = np.asarray(objective.evaluate(b, w)["value"], dtype=float) - np.asarray(
        objective.evaluate(a, w)["value"], dtype=float
    )
    d = d[~np.isnan(d)]
    if d.size == 0:
        return Paired(point, math.nan, math.nan, math.nan, int(w.shape[1]))
    lo, hi = (float(x) for x in np.percentile(d, [2.5, 97.5]))
    side = min(np.mean(d <= 0), np.mean(d >= 0))
    p = float(min(1.0, max(2 * side, 1 / (d.size + 1))))
    if np.all(d == 0):
        p = 1.0
    return Paired(point, lo, hi, p, int(w.shape[1]))


def _same_play(a: dict, b: dict) -> bool:
    """True when two settings gave the same winners and game lengths on every deal (an option that changed nothing)."""
    return all(np.array_equal(a[p].seat_wins, b[p].seat_wins) and np.array_equal(a[p].turns, b[p].turns) for p in a)


@dataclass
class Step:
    """One line of the fewest-changes account: a setting checked against the best, and what was decided."""

    setting: dict[str, Any]
    changes: int
    value: float
    against_best: Paired | None
    decision: str


@dataclass
class Choice:
    """The outcome of :func:`choose`.

    Attributes:
        best: the search's best setting.
        recommended: the recommendation (possibly the default).
        runner_up: the best other setting played to the end (None when there is none).
        feasible: False when no setting met every bound (``combine = constraints``); the least violating is shown.
        steps: the account of the choice, in order.
    """

    best: dict[str, Any]
    recommended: dict[str, Any]
    runner_up: dict[str, Any] | None
    feasible: bool = True
    steps: list[Step] = field(default_factory=list)


def choose(
    rows: list[TrialRow],
    space: SearchSpace,
    objective: Objective,
    evaluator: Evaluator,
    blocks: list[Block],
    w: np.ndarray,
) -> Choice:
    """The recommendation with the fewest changes that is not significantly worse than the best.

    Args:
        rows: the search's trials.
        space: the options searched.
        objective: the targets combined.
        evaluator: plays settings (the reverted ones of step 2) and reads their records.
        blocks: the search's blocks (every rung's), on which complete trials were played.
        w: bootstrap weights over those deals.

    Returns:
        :class:`Choice`.

    Raises:
        ValueError: no trial was played to the end.
    """
    done: dict[str, TrialRow] = {}
    for r in rows:
        if r.state == "complete" and not math.isnan(r.value):
            done.setdefault(space.key(r.setting), r)
    if not done:
        raise ValueError("no setting was played to the end")
    pool = [r for r in done.values() if r.violation == 0] or list(done.values())
    feasible = any(r.violation == 0 for r in done.values())
    best = min(pool, key=lambda r: (r.value, r.number))
    stats = {k: evaluator.stats(r.setting, blocks) for k, r in done.items()}
    best_key = space.key(best.setting)
    steps: list[Step] = []

    def check(setting: dict[str, Any], st: dict) -> Paired | None:
        if space.key(setting) == best_key:
            return None
        return paired_objective(objective, stats[best_key], st, w)

    chosen = best
    for r in sorted(pool, key=lambda r: (len(space.changed(r.setting)), r.value, r.number)):
        pd = check(r.setting, stats[space.key(r.setting)])
        if pd is None or not pd.worse:
            chosen = r
            steps.append(Step(r.setting, len(space.changed(r.setting)), r.value, pd, "chosen: not significantly worse"))
            break
        steps.append(Step(r.setting, len(space.changed(r.setting)), r.value, pd, "significantly worse than the best"))
    current = dict(chosen.setting)
    while space.changed(current):
        options = []
        for name in space.changed(current):
            trial = current | {name: space.default[name]}
            try:
                st = evaluator.stats(trial, blocks)
            except SettingRefused as e:
                steps.append(Step(trial, len(space.changed(trial)), math.nan, None, f"refused by the rules: {e}"))
                continue
            res = objective.evaluate(st)
            value = float(res["value"])
            pd = check(trial, st)
            ok = (pd is None or not pd.worse) and (not feasible or float(res["violation"]) == 0)
            what = f"back to {name}'s default: " + ("not significantly worse" if ok else "significantly worse")
            if feasible and float(res["violation"]) > 0:
                what = f"back to {name}'s default: misses a bound"
            steps.append(Step(trial, len(space.changed(trial)), value, pd, what))
            if ok:
                options.append((value, trial))
        if not options:
            break
        current = min(options, key=lambda o: o[0])[1]
        steps.append(
            Step(current, len(space.changed(current)), min(o[0] for o in options), None, "kept: one change fewer")
        )
    rec_key = space.key(current)
    default_key = space.key(space.default)
    rec_stats = stats.get(rec_key) or evaluator.stats(current, blocks)
    others = sorted(
        (
            r
            for k, r in done.items()
            if k not in (rec_key, default_key)
            and (r.violation == 0 or not feasible)
            and not _same_play(stats[k], rec_stats)  # another setting, not the same games under another name
        ),
        key=lambda r: (r.value, r.number),
    )
    return Choice(
        best=best.setting,
        recommended=current,
        runner_up=others[0].setting if others else None,
        feasible=feasible,
        steps=steps,
    )
