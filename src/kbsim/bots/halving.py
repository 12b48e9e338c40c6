"""Sequential halving over a decision's candidates, on common sampled worlds (the core of the ``search`` bots).

A searching bot lists a few **candidates** (whole turns) and can score any candidate in any **world** (a full
state sampled from what its seat has seen, then played on for a while): ``pull(candidate, world)`` is one
**iteration**. :func:`halve` spends a budget of iterations on them by sequential halving (Karnin, Koren and
Somekh 2013, "Almost optimal exploration in multi-armed bandits"): in each of ``ceil(log2 K)`` rounds every
candidate still in the race is scored on the same fresh worlds, and the better half goes on. Scoring every
candidate on the same worlds (common random numbers) makes the comparison one of differences within a world,
far less noisy than comparing candidates each on worlds of its own.

Candidate 0 is the **default** (what the bot's base policy would do). It stays in the race to the end, and
another candidate replaces it only when its mean over the same worlds is higher by more than ``margin`` and by
more than ``z`` standard errors of the mean difference (the differences world by world): with a small budget,
the best of several candidates of nearly equal worth beats the default by chance alone (the winner's curse),
and choosing it would make the choice worse than the default's.

Family-agnostic: it knows nothing of cards or games, only candidate and world indices.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def rounds_for(candidates: int) -> int:
    """Rounds of sequential halving for ``candidates`` candidates: ``ceil(log2 candidates)``, 0 for one."""
    rounds = 0
    alive = candidates
    while alive > 1:
        alive = (alive + 1) // 2
        rounds += 1
    return rounds


class Halving:
    """The result of :func:`halve`: the choice and what each candidate was measured at.

    Attributes:
        best: index of the chosen candidate.
        sums: per candidate, the sum of its values.
        counts: per candidate, its iterations.
        worlds: worlds sampled.
        iterations: iterations spent (calls of ``pull``).
    """

    __slots__ = ("best", "counts", "iterations", "sums", "worlds")

    def __init__(self, best: int, sums: list[float], counts: list[int], worlds: int, iterations: int) -> None:
        self.best = best
        self.sums = sums
        self.counts = counts
        self.worlds = worlds
        self.iterations = iterations

    def mean(self, c: int) -> float:
        """Mean value of candidate ``c`` (0.0 when it was never scored)."""
        n = self.counts[c]
        return self.sums[c] / n if n else 0.0


def halve(
    candidates: int, iterations: int, pull: Callable[[int, int], float], margin: float = 0.0, z: float = 0.0
) -> Halving:
    """Choose among ``candidates`` by sequential halving on common worlds, candidate 0 kept to the end.

    Round ``r`` (of ``R = ceil(log2 K)``) scores each of the ``k`` candidates still in the race on
    ``max(1, iterations // (k * R))`` new worlds (the same worlds for all of them), then keeps the better half
    by mean value (ties: the lower index), plus candidate 0 if it fell out. The choice is the best mean among
    the last ones, unless its mean difference to candidate 0 (world by world, over the same worlds) is
    ``margin`` or less, or ``z`` standard errors of that mean or less: then 0.

    Args:
        candidates: the number of candidates K (>= 1); with one, nothing is scored.
        iterations: the budget of calls of ``pull`` (>= 1); rounding may spend a little less, or (with many
            candidates and a small budget) up to one call per candidate and round more.
        pull: ``pull(candidate, world) -> value``: the value (higher is better, any scale) of candidate
            ``candidate`` in world number ``world`` (0, 1, 2, ...: worlds are numbered in the order first
            used; the same number must mean the same world for every candidate).
        margin: how much higher than candidate 0's a mean must be to replace it (in value units, >= 0).
        z: how many standard errors of the mean difference it must be higher by (>= 0; 0: no such test).

    Returns:
        The :class:`Halving` (its ``best`` is the choice).

    Raises:
        ValueError: ``candidates`` < 1 or ``iterations`` < 1.
    """
    if candidates < 1 or iterations < 1:
        raise ValueError(f"need candidates >= 1 and iterations >= 1, got {candidates} and {iterations}")
    sums = [0.0] * candidates
    counts = [0] * candidates
    values: list[list[float]] = [[] for _ in range(candidates)]  # per candidate, its value in each world scored
    if candidates == 1:
        return Halving(0, sums, counts, 0, 0)
    rounds = rounds_for(candidates)
    alive = list(range(candidates))
    world = 0
    spent = 0
    for _ in range(rounds):
        per = max(1, iterations // (len(alive) * rounds))
        for w in range(world, world + per):
            for c in alive:
                v = pull(c, w)
                values[c].append(v)
                sums[c] += v
                counts[c] += 1
                spent += 1
        world += per
        ranked = sorted(alive, key=lambda c: (-sums[c] / counts[c], c))
        keep = ranked[: max(1, len(ranked) // 2)]
        if 0 not in keep:
            keep.append(0)
        alive = keep
        if len(alive) == 1:
            break
    best = 0
    for c in alive:
        if c != 0 and sums[c] / counts[c] > sums[best] / counts[best]:
            best = c
    if best != 0 and not _beats(values[best], values[0], margin, z):
        best = 0
    return Halving(best, sums, counts, world, spent)


def _beats(xs: list[float], ys: list[float], margin: float, z: float) -> bool:
    """Whether the mean of ``x - y`` (paired, world by world) exceeds ``margin`` and ``z`` standard errors."""
    n = len(xs)
    diffs = [xs[i] - ys[i] for i in range(n)]
    mean = sum(diffs) / n
    if mean <= margin:
        return False
    if z <= 0.0:
        return True
    if n < 2:
        return False  # no spread to measure: not enough evidence against the default
    var = sum((d - mean) * (d - mean) for d in diffs) / (n - 1)
    return mean > z * math.sqrt(var / n)


__all__ = ["Halving", "halve", "rounds_for"]
