"""The skill ladder on a report page: each effect per rung, whether it depends on skill, and the verdict in words.

A study with a ``ladder`` (:mod:`kbsim.sim.study`) plays every arm whose lineup is one bot once per rung, the
rung's bot in every seat, on the same deals (the study's seed). The page then has, per player count:

* **the effect at each rung**: every arm against the baseline arm at the same rung (the ordinary paired
  differences of :mod:`kbsim.analysis.arms`);
* **the effect of skill on each arm**: the arm at rung *k* against the same arm at the first rung (also an
  ordinary paired difference: same deals, stronger bots). This is how "stalemates depend on the bot" is
  measured, and how a seat gap or first-seat edge is shown to grow or shrink with skill;
* **the arm x rung interaction** (:func:`interaction_tests`): whether an arm's effect differs between rung *k*
  and the first rung. Per deal it is ``(B_k - A_k) - (B_0 - A_0)``, the four arms' outcomes on the same deal,
  tested like any paired difference (paired t, or the exact sign test for a 0/1 outcome on few deals). For the
  largest seat gap, which is not a mean over deals, the interval is a percentile bootstrap over deals (all four
  arms resampled together) and the p-value a bootstrap test of the centred statistic
  (:func:`seat_gap_interaction`).

Every one of these tests joins the page's one family of comparisons (Holm), so a page with a ladder flags
identical arms no more often than a page without one.

:func:`skill_verdict` puts an effect's rungs into words: *holds at every rung*, *grows with skill*, *shrinks
with skill*, *appears only under stronger play*, *fades under stronger play*, *reverses under stronger play*,
or, when the ladder shows no dependence, *not shown to depend on skill* (resolved at some rungs only) and *not
resolved at any rung*. A dependence is claimed only when an interaction (or, for a property of one arm, the
difference between rungs) is resolved after the page's adjustment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from kbsim.analysis.arms import BINARY, METRICS, SEAT_GAP, per_deal, seat_wins
from kbsim.analysis.metrics import MIN_DISCORDANT, NAN, Delta, largest_gap, paired, resampling_seed
from kbsim.analysis.reading import ReportInput

INTERACTION_BOOTSTRAP = 2000  # resamples of the seat-gap interaction's bootstrap
INTERACTION_TEST = "bootstrap (interaction)"


def interaction_pairs(inp: ReportInput) -> list[tuple[str, str, str, str]]:
    """The arm x rung interactions of a page: ``(B_k, A_k, B_0, A_0)`` condition keys.

    One per comparison ``(B_k, A_k)`` of two arms at a rung *k* after the first whose counterparts at the
    first rung are compared too (comparisons of one arm between rungs are not interactions).
    """
    if len(inp.ladder) < 2:
        return []
    conds = {c.key: c for c in inp.conditions}
    key_of = {(c.arm_key, c.rung): c.key for c in inp.conditions if c.rung is not None}
    compared = set(inp.comparisons)
    first = inp.ladder[0]
    out = []
    for b, a in inp.comparisons:
        cb, ca = conds.get(b), conds.get(a)
        if cb is None or ca is None or cb.rung is None or cb.rung != ca.rung or cb.rung == first:
            continue
        if cb.arm_key == ca.arm_key:
            continue
        b0, a0 = key_of.get((cb.arm_key, first)), key_of.get((ca.arm_key, first))
        if b0 and a0 and (b0, a0) in compared:
            out.append((b, a, b0, a0))
    return out


def interaction_tests(inp: ReportInput, df: pl.DataFrame, deltas: Sequence[dict] = ()) -> list[dict]:
    """The arm x rung interaction of every metric, per player count (a section's ``tests``).

    Args:
        inp: the report input (its ladder, conditions and comparisons).
        df: the page's records, prepared (:func:`kbsim.analysis.arms.prepare`).
        deltas: the page's other comparisons (unused).

    Returns:
        Dicts with ``b``, ``a`` (the comparison at the stronger rung), ``b0``, ``a0`` (at the first rung),
        ``players``, ``metric``, ``label``, ``unit`` and ``delta`` (the difference of the two effects,
        rung *k* minus the first rung, with its raw p-value), in the order of :func:`interaction_pairs`.
    """
    pairs = interaction_pairs(inp)
    if not pairs:
        return []
    deals = per_deal(df)
    cols = [m for m, _, _ in METRICS]
    out = []
    for b, a, b0, a0 in pairs:
        frames = []
        for tag, key in (("b", b), ("a", a), ("b0", b0), ("a0", a0)):
            f = deals.filter(pl.col("condition") == key).drop("condition")
            frames.append(f.rename({c: f"{c}_{tag}" for c in cols}))
        j = frames[0]
        for f in frames[1:]:
            j = j.join(f, on=["players", "seed"])
        j = j.sort("players", "seed")
        mixed = bool(set(_mixed(df)) & {b, a, b0, a0})
        for p in sorted(set(j["players"].to_list())):
            jp = j.filter(pl.col("players") == p)
            for c, label, unit in METRICS:
                if c == "seat0" and mixed:
                    continue
                d = (jp[f"{c}_b"] - jp[f"{c}_a"]) - (jp[f"{c}_b0"] - jp[f"{c}_a0"])
                out.append(_row(b, a, b0, a0, p, c, label, unit, paired(d.to_numpy(), binary=c in BINARY)))
            if not mixed and jp.height >= 2:
                seeds = jp["seed"]
                w = [seat_wins(df, k, p, seeds) for k in (b, a, b0, a0)]
                c, label, unit = SEAT_GAP
                out.append(_row(b, a, b0, a0, p, c, label, unit, seat_gap_interaction(*w)))
    return out


def _mixed(df: pl.DataFrame) -> list[str]:
    rows = df.select("condition", "lineup").unique(maintain_order=True).iter_rows()
    return [c for c, lu in rows if len(set(lu.split(","))) > 1]


def _row(b: str, a: str, b0: str, a0: str, p: int, metric: str, label: str, unit: str, d: Delta) -> dict:
    return {
        "b": b,
        "a": a,
        "b0": b0,
        "a0": a0,
        "players": p,
        "metric": metric,
        "label": label,
        "unit": unit,
        "delta": d,
        "kind": "interaction",
    }


def seat_gap_interaction(bk: np.ndarray, ak: np.ndarray, b0: np.ndarray, a0: np.ndarray) -> Delta:
    """Does arm B's effect on the largest seat gap differ between two rungs? The interaction of the seat gap.

    The statistic is ``[gap(B_k) - gap(A_k)] - [gap(B_0) - gap(A_0)]`` with :func:`~kbsim.analysis.metrics.
    largest_gap` of each arm's games won alone over all deals. Deals are resampled with replacement, the four
    arms of a deal together (grouped by distinct outcome rows and drawn multinomially, as in
    :func:`~kbsim.analysis.metrics.paired_seat_gap`: exact in distribution, independent of the rows' order);
    the interval is the 2.5 and 97.5 percentiles of :data:`INTERACTION_BOOTSTRAP` resamples and the p-value the
    bootstrap test of the centred statistic, ``(1 + #{|T* - T| >= |T|}) / (B + 1)`` (Hall and Wilson 1991),
    seeded from the deals (:func:`~kbsim.analysis.metrics.resampling_seed`).

    Args:
        bk: arm B at the stronger rung: games won alone per deal and seat, shape ``(deals, P)``.
        ak: arm A at the stronger rung, the same shape, row ``i`` the same deal in all four.
        b0: arm B at the first rung.
        a0: arm A at the first rung.

    Returns:
        :class:`~kbsim.analysis.metrics.Delta`; ``discordant`` counts the deals on which the two effects differ;
        below :data:`~kbsim.analysis.metrics.MIN_DISCORDANT` of them it has no p-value (so it stays out of the
        page's family, like a discrete test that could never reach p < 0.05); identical when no deal differs.
    """
    arrays = [np.asarray(x, dtype=np.float64) for x in (bk, ak, b0, a0)]
    n, seats = arrays[0].shape
    gaps = [float(largest_gap(x.sum(0))) for x in arrays]
    obs = (gaps[0] - gaps[1]) - (gaps[2] - gaps[3])
    if n < 2 or math.isnan(obs):
        return Delta(obs, NAN, NAN, NAN, n, test="none")
    effect_k, effect_0 = arrays[0] - arrays[1], arrays[2] - arrays[3]
    differing = int(np.count_nonzero((effect_k != effect_0).any(axis=1)))
    if differing == 0:
        return Delta(0.0, 0.0, 0.0, 0.0, n, p=1.0, test=INTERACTION_TEST, discordant=0)
    rows, held = np.unique(np.hstack(arrays), axis=0, return_counts=True)  # sorted: independent of row order
    rng = np.random.default_rng(resampling_seed(rows, held))
    boot = np.empty(INTERACTION_BOOTSTRAP)
    for k in range(0, INTERACTION_BOOTSTRAP, 500):
        m = min(500, INTERACTION_BOOTSTRAP - k)
        taken = rng.multinomial(n, held / n, size=m).astype(np.float64)
        g = [largest_gap(taken @ rows[:, i * seats : (i + 1) * seats]) for i in range(4)]
        boot[k : k + m] = (g[0] - g[1]) - (g[2] - g[3])
    boot = boot[~np.isnan(boot)]
    if boot.size < 2:
        return Delta(obs, NAN, NAN, NAN, n, test="none", discordant=differing)
    lo, hi = (float(x) for x in np.percentile(boot, [2.5, 97.5]))
    p = (1 + int(np.count_nonzero(np.abs(boot - obs) >= abs(obs) - 1e-12))) / (boot.size + 1)
    if differing < MIN_DISCORDANT:
        p = NAN
    se = float(np.std(boot, ddof=1))
    return Delta(obs, lo, hi, se * math.sqrt(n), n, p=float(p), test=INTERACTION_TEST, discordant=differing)


# ------------------------------------------------------------------ words
HOLDS = "holds at every rung"
GROWS = "grows with skill"
SHRINKS = "shrinks with skill"
APPEARS = "appears only under stronger play"
FADES = "fades under stronger play"
REVERSES = "reverses under stronger play"
NOT_SHOWN = "not shown to depend on skill"
NONE = "not resolved at any rung"


def rung_deals(conditions: Sequence, groups: dict) -> dict:
    """Rung (None for cells off the ladder) -> the fewest deals per cell played at it.

    Args:
        conditions: the page's :class:`~kbsim.sim.conditions.Condition` list.
        groups: the page's per-cell statistics, ``(condition key, players) -> {"deals": ..., ...}``.
    """
    rung = {c.key: c.rung for c in conditions}
    out: dict = {}
    for (key, _p), g in groups.items():
        r = rung.get(key)
        out[r] = min(out.get(r, g["deals"]), g["deals"])
    return out


def _sign(d: Delta) -> int:
    return 0 if not d.resolved or d.mean == 0 else (1 if d.mean > 0 else -1)


def skill_verdict(
    per_rung: Sequence[Delta | None], dependence: Sequence[Delta | None], names: Sequence[str] = ()
) -> str:
    """An effect across the rungs of a ladder, in words.

    Args:
        per_rung: the effect at each rung, weakest first (None where not measured); resolved after the page's
            adjustment or not.
        dependence: for each rung after the first, the test of whether the effect differs from the first rung
            (the arm x rung interaction, or for a property of one arm its difference between rungs); None where
            not measured.
        names: the rungs' names (bot specs), in the order of ``per_rung``; when given, :data:`NOT_SHOWN` names the
            rungs where the effect is not resolved, with their deals when fewer than the other rungs' (a rung
            played on fewer deals has a wider interval: its effect is not resolved, not shown to be the same).

    Returns:
        One of :data:`HOLDS`, :data:`GROWS`, :data:`SHRINKS`, :data:`APPEARS`, :data:`FADES`, :data:`REVERSES`,
        :data:`NOT_SHOWN` (``not shown to depend on skill: not resolved with search on only 300 deals`` with
        ``names``) and :data:`NONE`. A dependence on skill (grows, shrinks, appears, fades, reverses) is said
        only when a dependence test is resolved; the direction comes from the resolved rungs.
    """
    words = _verdict(per_rung, dependence)
    if words == NOT_SHOWN and names:
        words += _unresolved(per_rung, names)
    return words


def _unresolved(per_rung: Sequence[Delta | None], names: Sequence[str]) -> str:
    """``: not resolved with R1 and with R2 on only N deals``: the rungs where the effect is not resolved.

    N is the comparison's deals: per cell at one player count, every count's together when averaged over them.
    """
    measured = [(r, d) for r, d in zip(names, per_rung, strict=False) if d is not None]
    most = max((d.n for _, d in measured), default=0)
    open_ = [(r, d) for r, d in measured if _sign(d) == 0]
    if not open_:
        return ""
    parts = [f"with {r}" + (f" on only {d.n:,} deals" if d.n < most else "") for r, d in open_]
    return ": not resolved " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def _verdict(per_rung: Sequence[Delta | None], dependence: Sequence[Delta | None]) -> str:
    """:func:`skill_verdict` without the rungs' names."""
    rungs = [d for d in per_rung if d is not None]
    if not rungs:
        return NONE
    signs = [_sign(d) for d in rungs]
    depends = [i + 1 for i, d in enumerate(dependence) if d is not None and d.resolved]
    if not depends:
        if all(s == 0 for s in signs):
            return NONE
        if all(s == signs[0] for s in signs):
            return HOLDS
        return NOT_SHOWN
    first = per_rung[0]
    s0 = _sign(first) if first is not None else 0
    later = [per_rung[i] for i in depends if i < len(per_rung)]
    later_signs = [_sign(d) for d in later if d is not None]
    change = [d for d in dependence if d is not None and d.resolved]
    if s0 and -s0 in later_signs:
        return REVERSES
    if s0 == 0:
        if any(later_signs):
            return APPEARS
        base = abs(first.mean) if first is not None and not math.isnan(first.mean) else 0.0
        return GROWS if any(d is not None and abs(d.mean) > base for d in later) else SHRINKS
    if all(s == 0 for s in later_signs):
        return FADES
    grows = sum(1 for d in change if d.mean * s0 > 0)
    return GROWS if grows * 2 >= len(change) else SHRINKS


__all__ = [
    "APPEARS",
    "FADES",
    "GROWS",
    "HOLDS",
    "NONE",
    "NOT_SHOWN",
    "REVERSES",
    "SHRINKS",
    "interaction_pairs",
    "interaction_tests",
    "rung_deals",
    "seat_gap_interaction",
    "skill_verdict",
]
