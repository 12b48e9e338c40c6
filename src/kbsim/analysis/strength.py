"""Which bot is stronger, and by how much: each bot's share of the games won alone in a head-to-head arm.

A head-to-head arm seats more than one bot (a mixed lineup, played in every seat rotation on the same deals).
Its answer is not a seat's share (with greedy winning from either seat, seat 0 wins exactly half the two-player
games whatever the seat does) but each **bot's share of the games won alone** against its fair share (the
seats it holds / P).

The unit is the deal. For bot X on deal d, with ``W_d`` games of the deal (its rotations) won alone and ``X_d``
of them won by X, the residual ``r_d = X_d - f W_d`` (f the fair share) has mean 0 when X wins its fair share;
``sum r / sum W`` is X's share minus f. Its interval is the paired t interval of the mean residual divided by
the mean ``W`` (a ratio estimator). A bot that wins every game won alone (or none) has residuals that hardly
vary, and the ratio interval alone would claim a precision no finite number of deals gives: then the interval
is widened to contain the Clopper-Pearson interval of the share with the deals as trials. Its p-value is the
one-sample t test of the residuals (:func:`kbsim.analysis.metrics.paired`). With two bots their edges are equal
and opposite, so only the first bot of the lineup is tested; the average over player counts
(:func:`kbsim.analysis.pooling.pool`) joins the page's family too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from kbsim.analysis.metrics import Delta, fmt_pct, paired
from kbsim.analysis.page import Page
from kbsim.analysis.pooling import pool
from kbsim.analysis.reading import ReportInput

METRIC = "bot_share"


def bot_edge(df: pl.DataFrame, condition: str, players: int, bot: str) -> tuple[Delta, float, float]:
    """Bot ``bot``'s share of the games won alone minus its fair share, in one arm and player count.

    Args:
        df: prepared records (``condition``, ``players``, ``seed``, ``bots``, ``sole``), in canonical order.
        condition: the head-to-head arm's key.
        players: the player count.
        bot: the bot (canonical spec).

    Returns:
        ``(edge, share, fair)``: the edge as a :class:`~kbsim.analysis.metrics.Delta` (share - fair, interval,
        p-value, ``n`` deals), the share and the fair share.
    """
    sub = df.filter((pl.col("condition") == condition) & (pl.col("players") == players))
    lineup = sub["bots"][0].to_list()
    fair = lineup.count(bot) / players
    per = (
        sub.with_columns(
            winner=pl.when(pl.col("sole").is_not_null())
            .then(pl.col("bots").list.get(pl.col("sole").cast(pl.Int64), null_on_oob=True))
            .otherwise(None)
        )
        .group_by("seed", maintain_order=True)
        .agg(w=pl.col("sole").is_not_null().sum(), x=(pl.col("winner") == bot).sum())
        .sort("seed")
    )
    w = per["w"].to_numpy().astype(float)
    x = per["x"].to_numpy().astype(float)
    total = w.sum()
    if total == 0:
        return Delta(float("nan"), float("nan"), float("nan"), float("nan"), len(w), test="none"), float("nan"), fair
    scale = total / len(w)
    d = paired(x - fair * w)
    share = float(x.sum() / total)
    low, high = d.low / scale, d.high / scale
    if share in (0.0, 1.0):  # the ratio interval collapses: see the module docstring
        lo_cp, hi_cp = _exact_share_bounds(share, int((w > 0).sum()))
        low, high = min(low, lo_cp - fair), max(high, hi_cp - fair)
    return replace(d, mean=d.mean / scale, low=low, high=high, sd=d.sd / scale), share, fair


def _exact_share_bounds(share: float, deals: int) -> tuple[float, float]:
    """Clopper-Pearson 95% bounds of a share seen on ``deals`` deals, the deals counted as single trials.

    The ratio estimator's interval collapses when a bot wins every game won alone (its residuals then vary only
    with how many games of a deal someone won alone); the share's interval is never narrower than this one.
    """
    from scipy import stats

    if deals == 0:
        return 0.0, 1.0
    k = share * deals
    low = 0.0 if k <= 0 else float(stats.beta.ppf(0.025, k, deals - k + 1))
    high = 1.0 if k >= deals else float(stats.beta.ppf(0.975, k + 1, deals - k))
    return low, high


def strength_tests(inp: ReportInput, df: pl.DataFrame, deltas: Sequence[dict] = ()) -> list[dict]:
    """Every head-to-head arm's first bot: its edge per player count, and averaged over the counts.

    A restricted-play arm (one seat's bot barred, :mod:`kbsim.analysis.restricted`) is no contest of bots: it is
    valued by its own section, not here.
    """
    mixed = [c.key for c in inp.conditions if c.key in set(_mixed(df)) and not c.bar]
    rows = []
    for key in mixed:
        sub = df.filter(pl.col("condition") == key)
        counts = sorted(sub["players"].unique().to_list())
        lineups = {p: sub.filter(pl.col("players") == p)["bots"][0].to_list() for p in counts}
        bots = sorted({b for lu in lineups.values() for b in lu})
        edges = {(b, p): bot_edge(df, key, p, b) for b in bots for p in counts if b in lineups[p]}
        # the subject is the bot with the largest edge (with two bots, their edges are equal and opposite, so
        # which one is tested does not change the test)
        bot = max(bots, key=lambda b: (sum(e[0].mean for (x, _), e in edges.items() if x == b), b))
        per_count = []
        for p in counts:
            edge, share, fair = edges[(bot, p)]
            others = {b: edges[(b, p)][1] for b in bots if b != bot and (b, p) in edges}
            row = {"b": key, "a": key, "players": p, "metric": METRIC, "bot": bot, "others": _others(lineups[p], bot)}
            row |= {"label": f"{bot}'s share of the games won alone − fair", "unit": "pp", "delta": edge}
            rows.append(row | {"share": share, "fair": fair, "kind": "strength", "other_shares": others})
            per_count.append(rows[-1])
        if len(per_count) > 1:
            edge, q_p = pool([r["delta"] for r in per_count])
            rows.append(
                per_count[0]
                | {"players": None, "delta": edge, "q_p": q_p, "kind": "strength-pooled", "share": None, "fair": None}
            )
    return rows


def _others(lineup: list[str], bot: str) -> str:
    return ", ".join(dict.fromkeys(b for b in lineup if b != bot))


def _mixed(df: pl.DataFrame) -> list[str]:
    rows = df.select("condition", "lineup").unique(maintain_order=True).iter_rows()
    return [c for c, lu in rows if len(set(lu.split(","))) > 1]


def _pp(x: float) -> str:
    return f"{100 * x:+.1f} pp"


def strength_answer(page: Page, data: dict) -> list[dict]:
    """Per head-to-head arm: which bot is stronger and by how much, from its share of the games won alone."""
    rows = page.stats["sections"].get("bots", [])
    labels = page.labels
    blocks = []
    for key in dict.fromkeys(r["b"] for r in rows):
        mine = [r for r in rows if r["b"] == key]
        per_count = [r for r in mine if r["players"] is not None]
        pooled = next((r for r in mine if r["players"] is None), None)
        head = pooled or per_count[0]
        bot, others = head["bot"], head["others"]
        d: Delta = head["delta"]
        scope = "averaged over the player counts" if pooled else f"at {head['players']} players"
        if d.resolved:
            word = "stronger" if d.mean > 0 else "weaker"
            verdict = (
                f"{bot} is {word} than {others}: it wins {_pp(d.mean)} [{_pp(d.low)}, {_pp(d.high)}] more of the "
                f"games won alone than its fair share, {scope} (resolved)"
            )
        else:
            verdict = (
                f"{bot} and {others} are not separated: {bot} wins {_pp(d.mean)} [{_pp(d.low)}, {_pp(d.high)}] "
                f"more of the games won alone than its fair share, {scope} (not resolved)"
            )
        counts = "; ".join(
            f"{r['players']} players: {fmt_pct(r['share'])} against a fair {fmt_pct(r['fair'])}"
            + ("" if r["delta"].resolved else " (not resolved)")
            for r in per_count
        )
        lines = [
            f"{verdict}. The fair share is the seats a bot holds / P; every seat rotation is played on the same "
            "deals, so no bot gains from the seat it sits in.",
            f"{bot}'s share of the games won alone: {counts}.",
        ]
        blocks.append(
            {
                "title": f"Which bot is stronger? {labels.get(key, key)}",
                "lines": lines,
                "headline": _headline(verdict.split(":")[0], bot, per_count, d, scope),
            }
        )
    return blocks


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return fmt_pct(lo) if fmt_pct(lo) == fmt_pct(hi) else f"{fmt_pct(lo)}–{fmt_pct(hi)}"


def _headline(verdict: str, bot: str, per_count: list[dict], d: Delta, scope: str) -> str:
    """``verdict`` with ``bot``'s shares against its fair shares: what a designer reads first.

    An edge whose 95% interval excludes no difference but which is not resolved after the page's adjustment for
    multiple comparisons says so (the interval shown is the unadjusted one).
    """
    shares = [r["share"] for r in per_count if r["share"] == r["share"]]
    fairs = [r["fair"] for r in per_count]
    if not shares:
        return verdict
    every = " at every player count" if len(per_count) > 1 and _span(shares).count("–") == 0 else ""
    adjusted = (
        "; not resolved after the adjustment for the page's many comparisons"
        if d.resolved_raw and not (d.resolved)
        else ""
    )
    return (
        f"{verdict}: {bot} wins {_span(shares)} of the games won alone{every} against a fair {_span(fairs)} "
        f"({_pp(d.mean)} [{_pp(d.low)}, {_pp(d.high)}] {scope}{adjusted})"
    )


__all__ = ["METRIC", "bot_edge", "strength_answer", "strength_tests"]
