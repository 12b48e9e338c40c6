"""Fewest changes: from the search's best setting to the recommendation.

The setting with the lowest objective is the search's *best*. The recommendation is the
setting that changes the fewest options from the start among those that are
**significantly better than the defaults** and **not significantly worse than the best**:

1. the settings the search played to the end are taken in order of (options changed,
   objective); the first that passes both checks is chosen. When none does (the best
   itself is not significantly better than the defaults), nothing is recommended;
2. each option the chosen setting still changes is put back to its default, one at a time
   (a one-step check, as TAG's later parameter-search work does); a reverted setting that
   still passes both checks replaces it (the best of them when several do), and the step
   repeats until no change can be dropped.

Both checks are paired, on the search's deals: the objective's difference over
:data:`~kbsim.tune.measures.BOOTSTRAP` bootstrap resamples of the deals, both settings on
the same resampled deals; *significantly better* means the whole 95% interval of the
difference lies below 0, *significantly worse* above 0. With ``combine = constraints`` only
settings that meet every bound (at their point value) are candidates, when there are any.
The *runner-up* is the best other setting the search played to the end that does not play
exactly like the recommendation. Many settings are checked on the same deals, so a
recommendation can pass by luck: the replay on fresh deals (:mod:`kbsim.tune.verify`) is
what the answer reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kbsim.tune.evaluate import Block, Evaluator, SettingRefused
from kbsim.tune.measures import Objective, Resamples, bootstrap_test
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


def paired_objective(objective: Objective, a: dict, b: dict, resamples: Resamples) -> Paired:
    """The objective of ``b`` minus that of ``a`` on the same deals, with a paired bootstrap.

    The objective without the bounds' penalty (``combine = constraints``): whether a setting meets the bounds is
    judged on its own, never mixed into this difference.

    Args:
        objective: the targets combined.
        a: player count -> :class:`~kbsim.tune.measures.DealStats` of setting A.
        b: the same of setting B, on the same deals.
        resamples: bootstrap resamples of those deals.

    Returns:
        :class:`Paired`: the point difference, the 2.5 and 97.5 percentiles of the resampled differences, and the
        two-sided bootstrap p-value (twice the smaller share of resamples on either side of 0, at least
        1 / (resamples + 1)).
    """
    point = float(objective.evaluate(b)["objective"]) - float(objective.evaluate(a)["objective"])

    def diff(w: np.ndarray) -> np.ndarray:
        return np.asarray(objective.evaluate(b, w)["objective"], dtype=float) - np.asarray(
            objective.evaluate(a, w)["objective"], dtype=float
        )

    lo, hi, p = bootstrap_test(resamples.map(diff))
    return Paired(point, lo, hi, p, resamples.deals)


def _same_play(a: dict, b: dict) -> bool:
    """True when two settings gave the same winners and game lengths on every deal (an option that changed nothing)."""
    return all(np.array_equal(a[p].seat_wins, b[p].seat_wins) and np.array_equal(a[p].turns, b[p].turns) for p in a)


@dataclass
class Step:
    """One line of the fewest-changes account: a setting checked, and what was decided.

    Attributes:
        setting: the setting.
        changes: options it changes.
        value: its objective on the search's deals.
        against_best: its objective minus the best's (None for the best itself).
        against_default: its objective minus the defaults' (None for the defaults).
        decision: what was decided, in words.
    """

    setting: dict[str, Any]
    changes: int
    value: float
    against_best: Paired | None
    against_default: Paired | None
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
        inert: ``option=value`` changes that, alone, played exactly like the defaults on every deal of the search
            (the bots never did what they allow).
    """

    best: dict[str, Any]
    recommended: dict[str, Any]
    runner_up: dict[str, Any] | None
    feasible: bool = True
    steps: list[Step] = field(default_factory=list)
    inert: list[str] = field(default_factory=list)


def choose(
    rows: list[TrialRow],
    space: SearchSpace,
    objective: Objective,
    evaluator: Evaluator,
    blocks: list[Block],
    w: Resamples,
) -> Choice:
    """The recommendation with the fewest changes, better than the defaults and not worse than the best.

    Args:
        rows: the search's trials.
        space: the options searched.
        objective: the targets combined.
        evaluator: plays settings (the reverted ones of step 2) and reads their records.
        blocks: the search's blocks (every rung's), on which complete trials were played.
        w: bootstrap resamples of those deals.

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
    best_key, default_key = space.key(best.setting), space.key(space.default)
    default_stats = stats.get(default_key) or evaluator.stats(space.default, blocks)
    steps: list[Step] = []

    def judge(setting: dict[str, Any], st: dict, value: float, violation: float, what: str) -> bool:
        """Record the checks of one setting; True when it may be recommended."""
        key = space.key(setting)
        vs_best = None if key == best_key else paired_objective(objective, stats[best_key], st, w)
        vs_default = None if key == default_key else paired_objective(objective, default_stats, st, w)
        if feasible and violation > 0:
            decision = "misses a bound"
        elif vs_default is None or not vs_default.better:
            decision = "not significantly better than the defaults"
        elif vs_best is not None and vs_best.worse:
            decision = "significantly worse than the best"
        else:
            decision = "better than the defaults, not significantly worse than the best"
        steps.append(Step(setting, len(space.changed(setting)), value, vs_best, vs_default, f"{what}{decision}"))
        return decision.startswith("better")

    order = sorted(pool, key=lambda r: (len(space.changed(r.setting)), r.value, r.number))
    chosen = next((r for r in order if judge(r.setting, stats[space.key(r.setting)], r.value, r.violation, "")), None)
    current = dict(chosen.setting) if chosen is not None else dict(space.default)
    if chosen is not None:
        steps[-1].decision += ": chosen"
    while space.changed(current):
        options = []
        for name in space.changed(current):
            trial = current | {name: space.default[name]}
            try:
                st = evaluator.stats(trial, blocks)
            except SettingRefused as e:
                steps.append(Step(trial, len(space.changed(trial)), math.nan, None, None, f"refused by the rules: {e}"))
                continue
            res = objective.evaluate(st)
            stats[space.key(trial)] = st
            value = float(res["value"])
            if judge(trial, st, value, float(res["violation"]), f"{name} back to its default: "):
                options.append((value, trial))
        if not options:
            break
        current = min(options, key=lambda o: o[0])[1]
        steps.append(
            Step(current, len(space.changed(current)), min(o[0] for o in options), None, None, "kept: one change fewer")
        )
    rec_key = space.key(current)
    default_key = space.key(space.default)
    rec_stats = stats.get(rec_key) or default_stats
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
    inert = sorted(
        space.words(r.setting)
        for k, r in done.items()
        if len(space.changed(r.setting)) == 1 and _same_play(stats[k], default_stats)
    )
    return Choice(
        best=best.setting,
        recommended=current,
        runner_up=others[0].setting if others else None,
        feasible=feasible,
        steps=steps,
        inert=inert,
    )
