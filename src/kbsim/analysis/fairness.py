"""The fairness part of the Answer: how far from fair each player count is, which is fairest, and under which bots.

For the baseline arm (and every arm when the page has at most :data:`FEW_ARMS`), per rung of the ladder and
player count: the largest gap between a seat's share of the games won alone and the fair share 1/P, with its
95% Wilson interval, and the first seat's edge. The **fairest player count** is the one with the smallest
largest gap; it is called *clearly fairer* than another count when its whole interval of the gap's size lies
below the other's (independent deals: non-overlapping 95% intervals, a conservative comparison), else *not
separated*. How the gap depends on skill is the paired test of the same arm at a stronger rung against the
first (the largest-seat-gap comparison of :mod:`kbsim.analysis.ladder`), put in words by
:func:`kbsim.analysis.ladder.skill_verdict`, where the gap at a rung counts as found when its interval excludes
a fair share (the cell's own interval, as in the verdict table).
"""

from __future__ import annotations

import math

from kbsim.analysis.ladder import NONE, skill_verdict
from kbsim.analysis.metrics import NAN, Delta
from kbsim.analysis.page import Page

FEW_ARMS = 3


def _size_bounds(g: dict) -> tuple[float, float]:
    """The interval of a gap's size |gap|, from the signed gap's interval."""
    lo, hi = g["low"], g["high"]
    if lo > 0 or hi < 0:
        return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))
    return 0.0, max(abs(lo), abs(hi))


def _gap_text(g: dict) -> str:
    if math.isnan(g.get("gap", NAN)):
        return "–"
    return f"seat {g['seat']} {100 * g['gap']:+.1f} pp [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]"


def _as_delta(g: dict, deals: int = 0) -> Delta | None:
    """A cell's largest gap as an effect on its size: found (resolved) when its interval excludes a fair share.

    The size, not the signed gap: at two players seat 0's +13 pp and seat 1's -13 pp are the same distance from
    fair, and whichever seat a cell names must not read as a reversal across the ladder. ``deals``: the cell's.
    """
    if math.isnan(g.get("gap", NAN)):
        return None
    found = g["low"] > 0 or g["high"] < 0
    lo, hi = _size_bounds(g)
    return Delta(abs(g["gap"]), lo, hi, NAN, deals, p=0.0 if found else 1.0, test="Wilson interval")


def _arms(page: Page) -> list[list]:
    """The arms shown: lists of their conditions per rung (baseline first), head-to-head arms left out."""
    mixed = set(page.stats.get("head_to_head", []))
    stems: dict[str, list] = {}
    for c in page.inp.conditions:
        if c.key not in mixed:
            stems.setdefault(c.arm_key, []).append(c)
    base = page.inp.comparisons[0][1] if page.inp.comparisons else None
    base_stem = next((c.arm_key for c in page.inp.conditions if c.key == base), None)
    order = sorted(stems, key=lambda s: (s != base_stem, list(stems).index(s)))
    return [stems[s] for s in order]


def fairness_answer(page: Page, data: dict) -> list[dict]:
    """The Answer's fairness block: per arm shown, the gap per player count and rung, and the fairest count."""
    arms = _arms(page)
    if not arms:
        return []
    shown = arms if len(arms) <= FEW_ARMS else arms[:1]
    skill = {(d["b"], d["a"], d["players"], d["metric"]): d for d in page.stats["deltas"]}
    ladder = page.ladder
    lines, rows = [], []
    for conds in shown:
        for c in conds:
            cells = {p: page.stats["groups"].get((c.key, p)) for p in page.players}
            gaps = {p: g["balance"]["verdict"]["largest"] for p, g in cells.items() if g is not None}
            gaps = {p: g for p, g in gaps.items() if not math.isnan(g["gap"])}
            row = {"arm": c.label} | {f"p{p}": _gap_text(g) for p, g in gaps.items()}
            if gaps and len(page.players) > 1:
                fair = min(gaps, key=lambda p: (round(abs(gaps[p]["gap"]), 12), p))  # (equal gaps: the smaller count)
                row["fairest"] = f"{fair} players"
                lines.append(_fairest_line(c.label, fair, gaps))
            rows.append(row)
        if len(ladder) > 1 and len(conds) > 1:
            lines += _skill_lines(page, conds, skill)
    columns = [("arm", "arm" + (" · bot" if ladder else ""), False)]
    columns += [(f"p{p}", f"{p} players: largest gap [95%]", True) for p in page.players]
    if len(page.players) > 1:
        columns.append(("fairest", "fairest", False))
    block = {
        "title": "How fair is each player count?",
        "lines": lines,
        "columns": columns,
        "rows": rows,
    }
    headline = _headline(page, arms[0])
    if headline:
        block["headline"] = headline
    if len(arms) > len(shown):
        more = []
        for conds in arms[len(shown) :]:
            for c in conds:
                cells = {p: page.stats["groups"].get((c.key, p)) for p in page.players}
                more.append(
                    {"arm": c.label}
                    | {
                        f"p{p}": _gap_text(g["balance"]["verdict"]["largest"])
                        for p, g in cells.items()
                        if g is not None
                    }
                )
        block["more"] = {"summary": f"The other {len(more)} arms", "columns": columns[:-1], "rows": more}
    return [block]


def _headline(page: Page, conds: list) -> str:
    """The baseline arm in one sentence: the fairest count per rung (when clearly so), the first seat's edge."""
    fairest, edges, rungs = [], [], []
    for c in conds:
        gaps, firsts, counts = {}, [], []
        for p in page.players:
            g = page.stats["groups"].get((c.key, p))
            if g is None or math.isnan(g["balance"]["verdict"]["largest"]["gap"]):
                continue
            gaps[p] = g["balance"]["verdict"]["largest"]
            firsts.append(g["balance"]["verdict"]["first"])
            counts.append(p)
        if not gaps:
            continue
        who = f"with {c.rung}" if c.rung else ""
        rungs.append(who)
        if len(gaps) > 1:
            fair = min(gaps, key=lambda p: (round(abs(gaps[p]["gap"]), 12), p))  # (equal gaps: the smaller count)
            hi_f = _size_bounds(gaps[fair])[1]
            clear = all(_size_bounds(g)[0] > hi_f for p, g in gaps.items() if p != fair)
            fairest.append((fair, clear, who))
        lo, hi = min(f["gap"] for f in firsts), max(f["gap"] for f in firsts)
        span = (
            f"{100 * lo:+.1f} pp"
            if f"{100 * lo:+.1f}" == f"{100 * hi:+.1f}"
            else f"{100 * lo:+.1f} to {100 * hi:+.1f} pp"
        )
        side = "more" if all(f["low"] > 0 for f in firsts) else "less" if all(f["high"] < 0 for f in firsts) else ""
        edges.append((side, span, who, _edge_by_count(counts, firsts)))
    label = conds[0].label.rsplit(" · ", 1)[0] if conds[0].rung else conds[0].label
    where = "at every player count" if len(page.players) > 1 else f"at {page.players[0]} players"
    parts = []
    sides = {side for side, _, _, _ in edges}
    if len(sides) == 1 and "" not in sides:
        spans = "; ".join(f"{span} {who}".strip() for _, span, who, _ in edges)
        under = " under every bot of the ladder" if len(edges) > 1 else ""
        parts.append(
            f"the first seat wins alone {edges[0][0]} often than its fair share {where}{under} (by {spans}, in "
            f"share of the games won alone)"
        )
    else:
        for side, span, who, by_count in edges:
            if side:
                parts.append(
                    f"{who + ', ' if who else ''}the first seat wins alone {side} often than its fair share "
                    f"{where} ({span})"
                )
            else:
                parts.append(f"{who + ', ' if who else ''}the first seat's edge is {span}: {by_count}")
    if fairest:
        clear = [(p, who) for p, ok, who in fairest if ok]
        unclear = [(p, who) for p, ok, who in fairest if not ok]
        if clear:
            parts.append("; ".join(f"{p} players is clearly the fairest count {who}".strip() for p, who in clear))
        if unclear:
            closest = ", ".join(f"{p} players {who}".strip() for p, who in unclear)
            parts.append(
                "no player count is clearly fairer than the others"
                + (f" {unclear[0][1]}" if len(unclear) == 1 and unclear[0][1] else "")
                + f" (closest to fair: {closest}; the intervals overlap)"
            )
    if not parts:
        return ""
    text = f"{label}: " + "; ".join(parts) + "."
    return text if "=" in label or "_" in label else text[:1].upper() + text[1:]


def _fairest_line(label: str, fair: int, gaps: dict) -> str:
    """``label``'s fairest count in words, and the counts it is clearly fairer than."""
    lo_f, hi_f = _size_bounds(gaps[fair])
    clear = [p for p, g in gaps.items() if p != fair and _size_bounds(g)[0] > hi_f]
    close = [p for p in gaps if p != fair and p not in clear]
    g = gaps[fair]
    text = (
        f"{label}: {'fairest' if not close else 'closest to fair'} at {fair} players (seat {g['seat']} is "
        f"furthest from a fair share, {100 * g['gap']:+.1f} pp [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}])"
    )
    if clear:
        text += f"; clearly fairer than at {_list(clear)} players"
    if close:
        text += f"; not separated from {_list(close)} players (overlapping intervals)"
    return text + "."


def _list(ps: list[int]) -> str:
    ps = sorted(ps)
    return ", ".join(str(p) for p in ps[:-1]) + " and " + str(ps[-1]) if len(ps) > 1 else str(ps[0])


def _skill_lines(page: Page, conds: list, skill: dict) -> list[str]:
    """How one arm's distance from fair and first-seat edge depend on skill, per player count, in words."""
    first = conds[0]
    words: dict[str, list[int]] = {}
    edges = []
    for p in page.players:
        per_rung, dep = [], []
        for i, c in enumerate(conds):
            g = page.stats["groups"].get((c.key, p))
            per_rung.append(_as_delta(g["balance"]["verdict"]["largest"], g["deals"]) if g else None)
            if i:
                d = skill.get((c.key, first.key, p, "seat_gap"))
                dep.append(d["delta"] if d else None)
        words.setdefault(skill_verdict(per_rung, dep, names=[c.rung or "" for c in conds]), []).append(p)
        firsts = [page.stats["groups"].get((c.key, p)) for c in conds]
        if all(firsts):
            edges.append(
                f"{p} players "
                + " → ".join(f"{100 * g['balance']['verdict']['first']['gap']:+.1f} pp" for g in firsts if g)
            )
    label = first.label.rsplit(" · ", 1)[0] if first.rung else first.label
    rungs = " → ".join(c.rung or "" for c in conds)
    out = [
        f"{label}, distance from fair across the ladder ({rungs}): "
        + (
            # the player counts first: a verdict with rung names reads "... not resolved with greedy and with search"
            "; ".join(f"at {_list(ps)} players, {w}" for w, ps in sorted(words.items(), key=lambda x: min(x[1])))
            if any(w != NONE for w in words)
            else "not resolved at any rung"
        )
        + "."
    ]
    if edges:
        out.append(f"{label}, the first seat's edge over a fair share ({rungs}): {'; '.join(edges)}.")
    return out


__all__ = ["FEW_ARMS", "fairness_answer"]


def _edge_by_count(counts: list[int], firsts: list[dict]) -> str:
    """Where the first seat's edge is resolved, and which way, in words.

    E.g. ``more than its fair share at 2 and 4 players, not resolved at 3 players``; ``firsts`` holds the first
    seat's gap with its interval (``low``, ``high``), one per count of ``counts``.
    """
    groups: dict[str, list[int]] = {}
    for p, f in zip(counts, firsts, strict=True):
        key = "more than its fair share" if f["low"] > 0 else "less than its fair share" if f["high"] < 0 else ""
        groups.setdefault(key or "not resolved", []).append(p)
    return ", ".join(f"{k} at {_counts(ps)} players" for k, ps in groups.items())


def _counts(ps: list[int]) -> str:
    """Player counts in words: ``2``, ``2 and 4``, ``2, 3 and 5``."""
    words = [str(p) for p in ps]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
