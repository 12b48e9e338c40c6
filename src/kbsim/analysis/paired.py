"""Paired comparisons of two arms on the same deals, and an interval for a difference of two rates.

Arms of a study share the run seed, so game ``i`` of every arm starts from the
same deal (common random numbers, see :mod:`kbsim.sim.seeding`). For a per-game
outcome ``x`` (a 0/1 indicator such as "seat 0 won alone", or the number of
turns) the difference between arm B and arm A is estimated deal by deal:
``d_i = x_B(i) - x_A(i)``. Deals are independent, so the mean difference has the
usual normal interval ``mean(d) +- z * sd(d) / sqrt(n)``, and because the two arms
share the deal's luck, ``sd(d)`` is usually much smaller than for two
independent samples: fewer games resolve the same effect.

A delta is **resolved** when its 95% interval excludes 0. For one that is not,
:func:`n_to_resolve` gives the number of deals that would make the interval's
half-width smaller than the observed effect (``z * sd / sqrt(n) < |mean|``),
assuming the effect and the spread stay as observed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kbsim.analysis.stats import Z95, wilson_interval


@dataclass(frozen=True)
class PairedDelta:
    """The mean of paired differences (B - A) with its normal interval.

    Attributes:
        mean: mean difference B - A over the ``n`` common deals (nan when n == 0).
        low: lower end of the interval (nan when n < 2).
        high: upper end of the interval (nan when n < 2).
        sd: sample standard deviation of the differences (ddof 1; nan when n < 2).
        n: number of paired deals.
    """

    mean: float
    low: float
    high: float
    sd: float
    n: int

    @property
    def resolved(self) -> bool:
        """True when the interval excludes 0 (the sign of the difference is settled at 95%)."""
        if self.n < 2 or math.isnan(self.low):
            return False
        return self.low > 0 or self.high < 0

    @property
    def n_to_resolve(self) -> int | None:
        """Deals needed to resolve the observed effect; None when nothing was observed (mean 0) or n < 2."""
        return n_to_resolve(self.mean, self.sd)

    def as_dict(self) -> dict:
        """JSON-able form (nan becomes None)."""
        def clean(v: float) -> float | None:
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

        return {"mean": clean(self.mean), "low": clean(self.low), "high": clean(self.high), "sd": clean(self.sd),
                "n": self.n, "resolved": self.resolved, "n_to_resolve": self.n_to_resolve}


def n_to_resolve(mean: float, sd: float, z: float = Z95) -> int | None:
    """Smallest n with ``z * sd / sqrt(n) < |mean|``: the deals that would resolve an effect of this size.

    Args:
        mean: observed mean difference.
        sd: observed standard deviation of the per-deal differences.
        z: normal quantile (default: 95% two-sided).

    Returns:
        The number of deals (>= 2), or None when ``mean`` is 0 or either value is nan.
    """
    if mean is None or sd is None or math.isnan(mean) or math.isnan(sd) or mean == 0:
        return None
    if sd == 0:
        return 2
    return max(2, math.floor((z * sd / abs(mean)) ** 2) + 1)


def paired_delta_of_differences(d: Sequence[float] | np.ndarray, z: float = Z95) -> PairedDelta:
    """Mean and normal interval of per-deal differences ``d`` (already B - A).

    Args:
        d: one difference per deal (1-D).
        z: normal quantile (default: 95% two-sided).

    Returns:
        A :class:`PairedDelta`; with fewer than 2 deals the interval and sd are nan.
    """
    arr = np.asarray(d, dtype=float)
    n = int(arr.size)
    if n == 0:
        return PairedDelta(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    mean = float(arr.mean())
    if n < 2:
        return PairedDelta(mean, float("nan"), float("nan"), float("nan"), n)
    sd = float(arr.std(ddof=1))
    half = z * sd / math.sqrt(n)
    return PairedDelta(mean, mean - half, mean + half, sd, n)


def paired_delta(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, z: float = Z95) -> PairedDelta:
    """Paired difference B - A of two outcomes measured on the same deals.

    Args:
        a: outcome of arm A per deal (1-D, same order and length as ``b``).
        b: outcome of arm B per deal.
        z: normal quantile (default: 95% two-sided).

    Raises:
        ValueError: ``a`` and ``b`` differ in length.
    """
    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError(f"paired outcomes need equal lengths, got {xa.size} and {xb.size}")
    return paired_delta_of_differences(xb - xa, z)


def newcombe_interval(x1: int, n1: int, x2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """Difference of two independent proportions ``x1/n1 - x2/n2`` with Newcombe's hybrid score interval.

    Newcombe (1998), method 10: the ends combine the two Wilson intervals, so the
    interval stays inside [-1, 1] and behaves well for rates near 0 or 1. Used for
    unpaired comparisons (e.g. the win rate of seats that played a character
    against those that did not).

    Args:
        x1: successes in group 1 (0 <= x1 <= n1).
        n1: trials in group 1.
        x2: successes in group 2 (0 <= x2 <= n2).
        n2: trials in group 2.
        z: normal quantile (default: 95% two-sided).

    Returns:
        (difference, low, high); all nan when a group is empty.

    Raises:
        ValueError: successes outside [0, n].
    """
    if n1 == 0 or n2 == 0:
        if not (0 <= x1 <= n1 and 0 <= x2 <= n2):
            raise ValueError("successes must be in [0, n]")
        return float("nan"), float("nan"), float("nan")
    l1, u1 = wilson_interval(x1, n1, z)
    l2, u2 = wilson_interval(x2, n2, z)
    p1, p2 = x1 / n1, x2 / n2
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, low, high


__all__ = ["PairedDelta", "n_to_resolve", "newcombe_interval", "paired_delta", "paired_delta_of_differences"]
