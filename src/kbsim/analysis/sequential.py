"""Run until decided: a group-sequential analysis whose error rates hold however early the deals stop.

``kbsim report STUDY --until-decided`` (or a study's ``[until_decided]`` table) plays the deals of every cell in
batches (looks) of ``batch`` deals up to a cap of ``games``. After each look every comparison of the page (the
same family as a fixed-size page: arms, rungs, interactions, averages) is

* **resolved** when its sequential p-value, Holm-adjusted over the page, is below 0.05, or
* **too small to matter** when its repeated 95% confidence interval lies inside the equivalence margin
  (``margin`` percentage points for rates, shares and the seat gap, ``turns_margin`` for turns per game,
  ``changes_margin`` for lead changes per game),

and the deals stop at the first look where every comparison is one or the other, or at the cap. A ladder rung
with its own, smaller deal count plays the same share of its deals at every look (rounded up), so every
comparison, at that rung or across rungs on the deals they share, has the same information fraction.

The method is a **group-sequential test with the Lan-DeMets alpha-spending function of O'Brien-Fleming type**
(Lan and DeMets, *Biometrika* 70, 1983; O'Brien and Fleming, *Biometrics* 35, 1979): by information fraction
``t = n / cap`` a comparison has spent ``alpha(t) = 2 - 2 Phi(z_{0.975} / sqrt(t))`` of its 5%, little early
and almost all at the cap. The boundaries ``c_1, c_2, ...`` of the z statistics at the looks are computed by the
standard recursive numerical integration (Armitage, McPherson and Rowe, *JRSS A* 132, 1969; Jennison and
Turnbull, *Group Sequential Methods*, 2000, ch. 19) for the looks actually taken. From them come, per
comparison,

* the **repeated p-value** (Jennison and Turnbull ch. 9): the smallest level at which the boundary would have
  been crossed at some look so far. Whatever the rule for stopping, it is at most ``u`` with probability at most
  ``u`` under no effect, so it is a valid p-value, and Holm's adjustment of these p-values over the page keeps
  the chance of flagging any comparison between identical arms at or below 5%;
* the **repeated confidence interval** ``estimate +- c_k se``, which covers the effect at every look at once
  with probability 95%: the interval the page shows, and the one the equivalence margin is checked against.

The z statistic of a comparison is its estimate over its standard error (read off the fixed-sample 95%
interval, :func:`kbsim.analysis.pooling.interval_se`). Comparisons that no outcome could resolve (identical on
every deal, or too few differing deals: outside the page's family) are decided only by the margin.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from kbsim.analysis.metrics import ALPHA, NAN, Delta, holm
from kbsim.analysis.pooling import interval_se
from kbsim.analysis.reading import ReportInput
from kbsim.sim.conditions import deals_at

_GRID = np.linspace(-12.0, 12.0, 1201)  # the S = Z sqrt(t) scale of the recursion (t <= 1, so |S| <= 12 suffices)
_ALPHAS = np.geomspace(1e-9, 0.999, 120)  # the levels at which boundaries are tabulated for repeated p-values


def spent(t: float, alpha: float = ALPHA) -> float:
    """Alpha spent by information fraction ``t`` (Lan-DeMets, O'Brien-Fleming type, two-sided)."""
    from scipy import stats

    if t <= 0:
        return 0.0
    z = stats.norm.isf(alpha / 2)
    return float(min(alpha, 2 * stats.norm.sf(z / math.sqrt(min(t, 1.0)))))


def boundaries(fractions: Sequence[float], alpha: float = ALPHA) -> list[float]:
    """Two-sided z boundaries ``c_k`` at looks with the given information fractions (increasing, at most 1).

    ``P(|Z_j| < c_j for j < k, |Z_k| >= c_k) = alpha(t_k) - alpha(t_{k-1})`` under no effect, with ``Z_k`` the
    z statistics of one Brownian motion observed at the fractions (numerical integration on a grid).

    Raises:
        ValueError: fractions not increasing in (0, 1].
    """
    return [float(c) for c in boundary_table(fractions, [alpha])[0]]


def boundary_table(fractions: Sequence[float], alphas: Sequence[float]) -> np.ndarray:
    """The boundaries of :func:`boundaries` at several levels at once, shape ``(levels, looks)``.

    The transition kernel between two looks does not depend on the level, so it is built once per look.

    Raises:
        ValueError: fractions not increasing in (0, 1].
    """
    from scipy import special, stats

    ts = [float(t) for t in fractions]
    if not ts or any(not 0 < t <= 1 for t in ts) or any(b <= a for a, b in zip(ts, ts[1:], strict=False)):
        raise ValueError(f"information fractions must increase within (0, 1], got {ts}")
    grid, h = _GRID, float(_GRID[1] - _GRID[0])
    out = np.empty((len(alphas), len(ts)))
    for li, alpha in enumerate(alphas):
        c = float(stats.norm.isf(max(spent(ts[0], alpha), 1e-300) / 2))
        out[li, 0] = c
    sd = math.sqrt(ts[0])
    base = stats.norm.pdf(grid, scale=sd)
    density = np.where(np.abs(grid)[None, :] < out[:, :1] * sd, base[None, :], 0.0)  # (levels, grid)
    for k in range(1, len(ts)):
        t, inc = ts[k], math.sqrt(ts[k] - ts[k - 1])
        target = np.array([spent(t, a) - spent(ts[k - 1], a) for a in alphas])
        weights = density * h  # (levels, grid)

        def exit_prob(b: np.ndarray, weights: np.ndarray = weights, inc: float = inc, t: float = t) -> np.ndarray:
            s = (b * math.sqrt(t))[:, None]
            tail = special.ndtr((grid[None, :] - s) / inc) + special.ndtr((-s - grid[None, :]) / inc)
            return np.sum(weights * tail, axis=1)

        lo, hi = np.zeros(len(alphas)), np.full(len(alphas), 40.0)
        for _ in range(46):  # bisection of every level at once: exit_prob decreases in the boundary
            mid = (lo + hi) / 2
            above = exit_prob(mid) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        out[:, k] = np.where(target <= 0, 40.0, (lo + hi) / 2)
        kernel = stats.norm.pdf((grid[:, None] - grid[None, :]) / inc) / inc
        density = weights @ kernel.T
        density = np.where(np.abs(grid)[None, :] < out[:, k : k + 1] * math.sqrt(t), density, 0.0)
    return out


@dataclass
class Looks:
    """Boundaries of a schedule of looks at every tabulated level, for repeated p-values.

    Attributes:
        fractions: information fraction of each look (deals / cap).
        table: ``(levels, looks)`` boundaries, row ``i`` at level ``_ALPHAS[i]``.
        at_alpha: the boundaries at 5%.
    """

    fractions: list[float]
    table: np.ndarray = field(repr=False)
    at_alpha: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, fractions: Sequence[float]) -> Looks:
        """Tabulate the boundaries of ``fractions`` (one recursion per tabulated level)."""
        table = boundary_table(fractions, [*_ALPHAS, ALPHA])
        return cls(list(fractions), table[:-1], [float(c) for c in table[-1]])

    def repeated_p(self, z_path: Sequence[float]) -> float:
        """The repeated p-value after the looks so far: the smallest level whose boundary some ``|z_j|`` reaches.

        Args:
            z_path: the comparison's z statistic at each look so far (nan where it had none).
        """
        best = 1.0
        log_a = np.log(_ALPHAS)
        for j, z in enumerate(z_path):
            if z is None or math.isnan(z):
                continue
            col = self.table[:, j]  # decreasing in the level
            az = abs(z)
            if az >= col[0]:
                best = min(best, float(_ALPHAS[0]))
            elif az > col[-1]:
                i = int(np.searchsorted(-col, -az))  # first level whose boundary is <= |z|
                a0, a1, c0, c1 = log_a[i - 1], log_a[i], col[i - 1], col[i]
                frac = (c0 - az) / (c0 - c1) if c0 != c1 else 1.0
                best = min(best, float(math.exp(a0 + frac * (a1 - a0))))
        return best


@lru_cache(maxsize=16)
def _looks_of(fractions: tuple[float, ...]) -> Looks:
    return Looks.of(fractions)


@dataclass
class Stopping:
    """How the deals of a page were chosen when it ran until decided (shown on the page).

    Attributes:
        batch: deals per look.
        cap: the most deals per cell.
        looks: deals per cell at each look taken.
        decided: every comparison was decided at the last look (else the cap stopped the deals).
        resolved, equivalent, open: comparisons resolved, too small to matter, and neither, at the last look.
        margin: equivalence margin for rates (a share, e.g. 0.02).
        turns_margin: equivalence margin for turns per game.
        changes_margin: equivalence margin for lead changes per game.
        rungs: the ladder rungs with their own, smaller deal count -> that count (their cap); at each look such a
            rung has played the same share of its deals as the others (:func:`kbsim.sim.conditions.deals_at`).
    """

    batch: int
    cap: int
    looks: list[int]
    decided: bool = False
    resolved: int = 0
    equivalent: int = 0
    open: int = 0
    margin: float = 0.02
    turns_margin: float = 1.0
    changes_margin: float = 0.25
    rungs: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The stopping record as JSON-able data."""
        return {
            "batch": self.batch,
            "cap": self.cap,
            "looks": list(self.looks),
            "deals": self.looks[-1] if self.looks else 0,
            "decided": self.decided,
            "resolved": self.resolved,
            "within_margin": self.equivalent,
            "open": self.open,
            "margin_pp": 100 * self.margin,
            "turns_margin": self.turns_margin,
            "changes_margin": self.changes_margin,
            "method": "group-sequential, Lan-DeMets O'Brien-Fleming alpha spending; repeated p-values, Holm",
            "rungs": {r: {"deals": self._rung_deals(r), "cap": c} for r, c in self.rungs.items()},
        }

    def _rung_deals(self, rung: str) -> int:
        return deals_at(self.looks[-1] if self.looks else 0, self.rungs[rung], self.cap)

    @property
    def sentence(self) -> str:
        """The stopping rule and the deals used, in words."""
        n = self.looks[-1] if self.looks else 0
        why = (
            "every comparison was decided"
            if self.decided
            else f"the cap was reached with {self.open} comparison{'s' if self.open != 1 else ''} still open"
        )
        own = "; ".join(f"{r}: {self._rung_deals(r):,} of its {c:,}" for r, c in self.rungs.items())
        return (
            f"Played until decided: {n:,} deals per cell{f' ({own}: the same share)' if own else ''} after "
            f"{len(self.looks)} look"
            f"{'s' if len(self.looks) != 1 else ''} of {self.batch:,} (cap {self.cap:,}); stopped because {why} "
            f"({self.resolved} resolved, {self.equivalent} within the equivalence margin of "
            f"±{100 * self.margin:g} pp for rates, ±{self.turns_margin:g} turns and ±{self.changes_margin:g} lead "
            f"changes per game). Group-sequential test with "
            f"Lan-DeMets O'Brien-Fleming alpha spending: p-values are repeated p-values (valid however early the "
            f"deals stop), Holm-adjusted over the page, and intervals of differences are repeated 95% intervals."
        )


def _key(d: dict, section: str) -> tuple:
    return (section, d.get("kind", ""), d["b"], d["a"], d.get("b0"), d.get("a0"), d["players"], d["metric"])


def _rows(stats: dict) -> list[tuple[tuple, dict]]:
    """Every comparison of a page's statistics with a stable key: the deltas, then each section's."""
    out = [(_key(d, ""), d) for d in stats["deltas"]]
    for name, rows in stats.get("sections", {}).items():
        out += [(_key(d, name), d) for d in rows]
    return out


def _z(d: Delta) -> float:
    se = interval_se(d)
    if math.isnan(d.mean) or math.isnan(se) or se == 0 or not d.testable:
        return NAN
    return d.mean / se


class SequentialAnalysis:
    """The looks of a page played until decided: feed each look's statistics, ask whether to stop.

    Args:
        cap: the most deals per cell.
        batch: deals per look.
        margin: equivalence margin for rates and the seat gap (a share: 0.02 = 2 pp).
        turns_margin: equivalence margin for turns per game.
        changes_margin: equivalence margin for lead changes per game.
    """

    def __init__(
        self, cap: int, batch: int, margin: float = 0.02, turns_margin: float = 1.0, changes_margin: float = 0.25
    ):
        self.cap, self.batch = int(cap), int(batch)
        self.margin, self.turns_margin = float(margin), float(turns_margin)
        self.changes_margin = float(changes_margin)
        self.looks: list[int] = []
        self.z: dict[tuple, list[float]] = {}
        self._looks: Looks | None = None

    def schedule(self) -> list[int]:
        """Deals per cell at each possible look: ``batch, 2 batch, ...``, the cap last."""
        out = list(range(self.batch, self.cap, self.batch))
        return out + [self.cap]

    def add(self, deals: int, stats: dict) -> None:
        """Record a look: the page's statistics computed on the first ``deals`` deals of every cell."""
        self.looks.append(int(deals))
        self._looks = None
        for key, d in _rows(stats):
            self.z.setdefault(key, [NAN] * (len(self.looks) - 1)).append(_z(d["delta"]))
        for path in self.z.values():
            if len(path) < len(self.looks):
                path.append(NAN)

    def _tables(self) -> Looks:
        if self._looks is None:
            self._looks = _looks_of(tuple(n / self.cap for n in self.looks))
        return self._looks

    def apply(self, stats: dict) -> Stopping:
        """Put the sequential p-values and repeated intervals into the last look's statistics, and decide.

        Each comparison's ``delta`` gets ``p`` = its repeated p-value, ``p_adj`` = Holm over the page's family
        (the comparisons that could be tested), and for a difference with a standard error the repeated 95%
        interval as ``low``/``high``. ``stats["adjustment"]`` is recounted.

        Returns:
            The :class:`Stopping` of the looks so far (``decided`` when every comparison is resolved or within
            the margin).
        """
        looks = self._tables()
        c_k = looks.at_alpha[-1]
        rows = _rows(stats)
        family = []
        for key, d in rows:
            pd: Delta = d["delta"]
            se = interval_se(pd)
            new = pd
            if not math.isnan(se) and not math.isnan(pd.mean):
                new = replace(new, low=pd.mean - c_k * se, high=pd.mean + c_k * se)
            if pd.testable and not math.isnan(_z(pd)):
                new = replace(new, p=looks.repeated_p(self.z.get(key, [])), p_adj=NAN)
                family.append(d)
            else:
                new = replace(new, p_adj=NAN)
            d["delta"] = new
        if family:
            for d, q in zip(family, holm([d["delta"].p for d in family]), strict=True):
                d["delta"] = replace(d["delta"], p_adj=float(q))
        resolved = equivalent = open_ = 0
        for _, d in rows:
            pd = d["delta"]
            margin = {"turns": self.turns_margin, "changes": self.changes_margin}.get(d.get("unit", ""), self.margin)
            if pd.resolved and not math.isnan(pd.p_adj):
                resolved += 1
            elif pd.identical or (not math.isnan(pd.low) and -margin < pd.low and pd.high < margin):
                equivalent += 1
            else:
                open_ += 1
        tested = [d["delta"] for d in family]
        adj = stats["adjustment"]
        adj.update(
            comparisons=len(tested),
            untestable=len(rows) - len(tested),
            resolved_raw=sum(d.resolved_raw for d in tested),
            resolved=sum(d.resolved for d in tested),
            method="Holm",
        )
        return Stopping(
            batch=self.batch,
            cap=self.cap,
            looks=list(self.looks),
            decided=open_ == 0,
            resolved=resolved,
            equivalent=equivalent,
            open=open_,
            margin=self.margin,
            turns_margin=self.turns_margin,
            changes_margin=self.changes_margin,
        )


def run_until_decided(
    look: Callable[[int], ReportInput],
    cap: int,
    batch: int,
    margin: float = 0.02,
    turns_margin: float = 1.0,
    changes_margin: float = 0.25,
    on_look: Callable[[Stopping], None] | None = None,
) -> tuple[ReportInput, dict, Stopping]:
    """Take looks until every comparison is decided or the cap is reached.

    Args:
        look: ``look(n)`` makes sure the first ``n`` deals of every cell are played and returns the page's input
            on them (the caller plays; the analysis only reads).
        cap: the most deals per cell.
        batch: deals added per look.
        margin: equivalence margin for rates and the seat gap (a share).
        turns_margin: equivalence margin for turns per game.
        changes_margin: equivalence margin for lead changes per game.
        on_look: called with the :class:`Stopping` after each look (progress).

    Returns:
        ``(inp, stats, stopping)`` of the last look: its input (with ``stopping`` set), its statistics with the
        sequential p-values and repeated intervals, and the stopping record.
    """
    from kbsim.analysis.arms import compute
    from kbsim.analysis.sections import section_tests

    seq = SequentialAnalysis(cap, batch, margin, turns_margin, changes_margin)
    inp, stats, stopping = None, None, None
    for n in seq.schedule():
        inp = look(n)
        stats = compute(inp, section_tests())
        seq.add(n, stats)
        stopping = seq.apply(stats)
        stopping.rungs = dict(inp.rung_games)
        if on_look is not None:
            on_look(stopping)
        if stopping.decided:
            break
    assert inp is not None and stats is not None and stopping is not None  # the schedule has at least one look
    inp.stopping = stopping
    return inp, stats, stopping


__all__ = ["Looks", "SequentialAnalysis", "Stopping", "boundaries", "boundary_table", "run_until_decided", "spent"]
