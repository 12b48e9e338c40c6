"""The budget curve of ``search`` against the planner, from the ladder's results (``benchmarks/results/``).

Usage: ``python benchmarks/strength_curve.py [--svg FILE]``

Reads, for each setting ``(B, D)`` of :data:`SETTINGS` (``B`` playouts per decision of ``D`` rounds) and players
``P`` of 2 and 4, ``search{B}-planner-{P}p-base.json`` (depth 2) or ``search{B}d1-planner-{P}p-base.json`` (depth 1;
the default setting, :data:`DEFAULT`, is ``search-planner-{P}p-base.json``), as written by ``benchmarks/ladder.py
ladder --json`` (its rows keep the outcome of every deal), and prints a Markdown table: budget, depth, players,
deals, games, wins / losses / ties of ``search``, its win rate with the 95% Wilson interval (2 players: of the
decisive games; more: of all games), the CPU time per decision (mean, worst), and the **paired difference** to the
previous default (128 playouts of two rounds, :data:`REFERENCE`) on the deals both runs played (same deal seeds, same
seatings): the mean over deals of the difference in ``search``'s sole wins, as a share of the deal's games, with a
95% interval from the spread over deals (normal approximation), and the reference's win rate on those deals. With
``--svg`` it also draws the curves (win rate and interval against the budget, one line per player count and depth,
the fair share and the goals of issue 26 dashed) as a small self-contained SVG file.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

from kbsim.analysis.metrics import wilson

RESULTS = Path(__file__).resolve().parent / "results"
SETTINGS = ((32, 2), (128, 2), (512, 2), (128, 1), (256, 1), (384, 1))
"""(playouts per decision, rounds per playout) measured."""
DEFAULT = (256, 1)
"""The default setting (``search`` as shipped since 2026-12-02)."""
REFERENCE = (128, 2)
"""The previous default: the paired differences are to it."""
BUDGETS = (32, 128, 256, 512)
"""The x axis of the figure."""
PLAYERS = (2, 4)
GOALS = {2: 0.60, 4: 0.33}
"""Issue 26's goals for the win rate of ``search`` against the planner (2 players: 60%; 4 players: 33%)."""


def load(setting: tuple[int, int], players: int, results: Path = RESULTS) -> dict | None:
    """The ladder row of ``search`` at ``setting`` vs the planner, with ``per_deal``; None when not measured."""
    budget, depth = setting
    name = "search" if setting == DEFAULT else f"search{budget}" + ("" if depth == 2 else f"d{depth}")
    path = results / f"{name}-planner-{players}p-base.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    row = dict(data["ladder"][0])
    row.setdefault("per_deal", data.get("per_deal"))
    return row


def paired(row: dict, ref: dict) -> tuple[float, float, float, int]:
    """Mean difference in sole wins per game between ``row`` and ``ref`` over their common deals, 95% interval."""
    n = min(len(row["per_deal"]), len(ref["per_deal"]))
    p = row["players"]
    d = [(row["per_deal"][i][0] - ref["per_deal"][i][0]) / p for i in range(n)]
    mean = statistics.mean(d)
    half = 1.96 * statistics.stdev(d) / math.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half, n


def table(rows: dict[tuple[tuple[int, int], int], dict]) -> list[str]:
    """The Markdown table (see the module docstring)."""
    out = [
        "| budget (iterations) | depth (rounds) | players | deals | games | wins / losses / ties | win rate [95%] "
        "| fair | goal | CPU per decision: mean, worst | paired difference to 128 x 2 rounds [95%] |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in PLAYERS:
        for setting in SETTINGS:
            r = rows.get((setting, p))
            if r is None:
                continue
            lo, hi = r["a_ci95"]
            ref = rows.get((REFERENCE, p))
            if setting != REFERENCE and ref is not None:
                m, dlo, dhi, n = paired(r, ref)
                same = ref["per_deal"][:n]
                wa, wb = sum(d[0] for d in same), sum(d[1] for d in same)
                rate = wa / (wa + wb) if p == 2 else wa / (n * p)
                diff = f"{m:+.1%} [{dlo:+.1%}, {dhi:+.1%}] over {n:,} deals (128 x 2 on them: {rate:.1%})"
            else:
                diff = "-"
            goal = GOALS[p]
            met = "met" if r["a_win_rate"] >= goal and lo > goal - 0.05 else "not met"
            b, depth = setting
            name = f"**{b}** (default)" if setting == DEFAULT else str(b)
            out.append(
                f"| {name} | {depth} | {p} | {r['deals']:,} | {r['games']:,} | {r['a_wins']:,} / {r['b_wins']:,} "
                f"/ {r['ties']} | **{r['a_win_rate']:.1%}** [{lo:.1%}, {hi:.1%}] | {r['fair']:.0%} "
                f"| >= {goal:.0%}: {met} | {r['a_turn_ms_mean']:.1f} ms, {r['a_turn_ms_max']:.0f} ms | {diff} |"
            )
    return out


def svg(rows: dict[tuple[tuple[int, int], int], dict]) -> str:
    """The curve as an SVG document (see the module docstring)."""
    w, h, left, right, top, bottom = 560, 320, 60, 110, 20, 45
    lo_y, hi_y = 0.2, 0.8

    def x(b: int) -> float:
        span = math.log2(BUDGETS[-1] / BUDGETS[0])
        return left + (w - left - right) * math.log2(b / BUDGETS[0]) / span

    def y(v: float) -> float:
        return top + (h - top - bottom) * (hi_y - v) / (hi_y - lo_y)

    colours = {2: "#1f77b4", 4: "#d62728"}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
    ]
    for v in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0%}</text>')
    for b in BUDGETS:
        parts.append(f'<text x="{x(b):.1f}" y="{h - bottom + 16}" text-anchor="middle">{b}</text>')
    parts.append(
        f'<text x="{(left + w - right) / 2:.1f}" y="{h - 8}" text-anchor="middle">'
        "budget (iterations per decision, log scale)</text>"
    )
    parts.append(
        f'<text transform="translate(14,{(top + h - bottom) / 2:.1f}) rotate(-90)" text-anchor="middle">'
        "win rate of search vs planner</text>"
    )
    for p in PLAYERS:
        c = colours[p]
        for v, label in ((1 / p, "fair"), (GOALS[p], "goal")):
            parts.append(
                f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="{c}" '
                f'stroke-dasharray="{"2,3" if label == "fair" else "6,3"}" stroke-opacity="0.6"/>'
            )
            parts.append(f'<text x="{w - right + 4}" y="{y(v) + 4:.1f}" fill="{c}">{p}p {label} {v:.0%}</text>')
        for depth in (2, 1):  # a solid line per player count at two rounds, a dotted one at one round
            pts = [(s[0], rows[(s, p)]) for s in SETTINGS if s[1] == depth and (s, p) in rows]
            dash = "" if depth == 2 else ' stroke-dasharray="1,3"'
            if len(pts) > 1:
                path = " ".join(f"{x(b):.1f},{y(r['a_win_rate']):.1f}" for b, r in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
            for b, r in pts:
                lo, hi = r["a_ci95"]
                parts.append(f'<line x1="{x(b):.1f}" x2="{x(b):.1f}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" stroke="{c}"/>')
                fill = c if depth == 2 else "white"
                parts.append(
                    f'<circle cx="{x(b):.1f}" cy="{y(r["a_win_rate"]):.1f}" r="3.5" fill="{fill}" stroke="{c}"/>'
                )
    parts.append(
        f'<text x="{left + 6}" y="{top + 12}">filled, solid: 2 rounds per playout; open, dotted: 1 round</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--svg", type=Path, help="also draw the curve into this SVG file")
    ap.add_argument("--results", type=Path, default=RESULTS, help="the ladder's results folder")
    args = ap.parse_args(argv)
    rows = {(s, p): r for s in SETTINGS for p in PLAYERS if (r := load(s, p, args.results)) is not None}
    for r in rows.values():
        lo, hi = wilson(r["a_wins"], r["a_wins"] + r["b_wins"] if r["players"] == 2 else r["games"])
        if abs(lo - r["a_ci95"][0]) > 1e-9 or abs(hi - r["a_ci95"][1]) > 1e-9:
            print(f"{r['a']}: its interval does not match its counts", file=sys.stderr)
            return 2
    print("\n".join(table(rows)))
    if args.svg:
        args.svg.write_text(svg(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
