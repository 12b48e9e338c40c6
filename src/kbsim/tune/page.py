"""The tuning's report page and terminal summary, from a :class:`~kbsim.tune.tuning.TuneResult`.

The page has the look of the other report pages (``templates/tune.html.j2`` includes the
analysis's style and figure script; jinja2 autoescapes every user-supplied name; plotly.js
is embedded once, so the page works offline). From the top: the recommendation in words
with its verified intervals, the replay on fresh deals, the skill check, the fewest-changes
account, the search trace, each option's effect, every trial, the parameters and notes on
the method. :func:`summary_lines` gives the terminal summary, :func:`as_json` the same for
scripts.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbsim.analysis import metrics as M
from kbsim.analysis.figures import PALETTE, base_layout, embed_figures
from kbsim.analysis.report import generated_time, page_environment, write_html
from kbsim.tune.measures import UNITS, goal_words, loss, measure_name
from kbsim.tune.search import TrialRow
from kbsim.tune.tuning import TunePlan, TuneResult
from kbsim.tune.verify import Cell, Check

__all__ = ["PageResult", "as_json", "recommendation_words", "reduced_run_words", "summary_lines", "write_page"]


@dataclass
class PageResult:
    """A written tuning page: its path, size in bytes, render time and figure count."""

    path: Path
    size: int
    seconds: float
    figures: int


def _num(v: float, unit: str, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    text = f"{v:+.1f}" if signed else f"{v:.1f}"
    return f"{text} {unit}" if unit != "%" else f"{text}%"


def _unit(t: Any) -> str:
    unit = UNITS[t.measure]
    return "%" if unit == "pp" and t.measure not in ("seat_gap", "first_seat") else unit


def cell_text(t: Any, c: Cell) -> str:
    """A setting's value with its interval, e.g. ``seat 0 +8.4 pp [+6.9, +9.9]`` or ``27.0 turns [26.0, 28.0]``."""
    unit = _unit(t)
    signed = t.measure in ("seat_gap", "first_seat")
    if t.measure == "seat_gap":
        return f"seat {c.seat} {_num(c.signed, unit, True)} [{c.low:+.1f}, {c.high:+.1f}]"
    lo = f"{c.low:+.1f}" if signed else f"{c.low:.1f}"
    hi = f"{c.high:+.1f}" if signed else f"{c.high:.1f}"
    return f"{_num(c.value, unit, signed)} [{lo}, {hi}]"


def delta_text(t: Any, d: M.Delta, with_p: bool = True) -> str:
    """A paired difference with its interval and adjusted p-value, e.g. ``-7.3 pp [-9.0, -5.6], p < 0.001``.

    Args:
        t: the target (its units).
        d: the paired difference.
        with_p: add the (Holm-adjusted) p-value; without it, the difference and its 95% interval only.
    """
    if math.isnan(d.mean):
        return "–"
    unit = "pp" if UNITS[t.measure] == "pp" else UNITS[t.measure]
    ci = "" if math.isnan(d.low) else f" [{d.low:+.1f}, {d.high:+.1f}]"
    p = d.p if math.isnan(d.p_adj) else d.p_adj
    return f"{d.mean:+.1f} {unit}{ci}" + (f", {M.fmt_p(p)}" if with_p else "")


def bound_status(t: Any, c: Cell) -> str:
    """Whether a setting keeps a bound target (``at most 12%: met``), saying when its interval crosses the bound."""
    if t.optimised:
        return ""
    met = loss(t, c.value) == 0
    crosses = t.measure != "seat_gap" and (loss(t, c.low) == 0) != (loss(t, c.high) == 0)
    words = f"{goal_words(t)}: {'met' if met else 'missed'}"
    return words + (" (its interval crosses the bound)" if crosses else "")


def _bounds_line(result: TuneResult, label: str) -> str:
    plan, v = result.plan, result.verify
    parts = [
        f"{measure_name(t)} {p}p {cell_text(t, v.cells[(label, i, p)])} ({bound_status(t, v.cells[(label, i, p)])})"
        for i, t in enumerate(plan.objective.targets)
        if not t.optimised
        for p in plan.objective.players[i]
    ]
    return "; ".join(parts)


def _moves(result: TuneResult, label: str, check: Check | None = None) -> str:
    """``the 4-player first-seat edge from ... to ... (paired difference ...)`` per player count of the first target.

    Args:
        result: the tuning.
        label: the setting (``recommended``, ``runner-up``).
        check: the replay whose deals are used (default: the replay on fresh deals).
    """
    plan, v = result.plan, check or result.verify
    t0 = plan.objective.targets[0]
    paired = {d["players"]: d["delta"] for d in v.deltas if d["label"] == label and d["target"] == 0}
    return "; ".join(
        f"the {p}-player {measure_name(t0)} from {cell_text(t0, v.cells[('default', 0, p)])} to "
        f"{cell_text(t0, v.cells[(label, 0, p)])}"
        + (f" (paired difference {delta_text(t0, paired[p], with_p=False)})" if p in paired else "")
        for p in plan.objective.players[0]
    )


def _edge_left(result: TuneResult) -> list[str]:
    """A sentence when the recommendation narrows a minimised first-seat edge without removing it (fresh deals)."""
    plan, v = result.plan, result.verify
    t0 = plan.objective.targets[0]
    if t0.measure != "first_seat" or not t0.minimise:
        return []
    left = [
        p
        for p in plan.objective.players[0]
        if not v.cells[("recommended", 0, p)].low <= 0 <= v.cells[("recommended", 0, p)].high
    ]
    if not left:
        return []
    counts = ", ".join(f"{p}-player" for p in left)
    return [
        f"It narrows the {counts} {measure_name(t0)} but does not remove it: on the fresh deals its 95% interval "
        "still excludes 0."
    ]


def reduced_run_words(plan: TunePlan) -> list[str]:
    """A warning when the search ran smaller than its study file asks (``--trials``/``--games`` below the study's).

    Args:
        plan: the tuning as run.

    Returns:
        One sentence, or nothing when the run is the study's full size.
    """
    asked_trials, asked_deals = plan.study.tune.trials, plan.study.games
    trials, deals = plan.search.trials, plan.search.deals[-1]
    if trials >= asked_trials and deals >= asked_deals:
        return []
    return [
        f"This was a reduced run ({trials:,} of the study's {asked_trials:,} trials, {deals:,} of its "
        f"{asked_deals:,} deals per setting at the last rung): a quick look, not the study's answer. Run it without "
        "--trials and --games for that."
    ]


def recommendation_words(result: TuneResult) -> list[str]:
    """The answer in sentences: what to change and what it does on fresh deals, or that nothing in the ranges helps."""
    plan, choice, v = result.plan, result.choice, result.verify
    space = plan.space
    labels = dict(v.settings)
    lines = []
    if "recommended" in labels:
        rec = labels["recommended"]
        verdict = v.against_default["recommended"]
        if verdict.better:
            lines.append(
                f"Change {space.change_words(rec)}: on {v.deals:,} fresh deals it brings "
                f"{_moves(result, 'recommended')}."
            )
        else:
            lines.append(
                f"The search's choice, {space.change_words(rec)}, is not significantly better than the rule file's "
                f"defaults on {v.deals:,} fresh deals: it moves {_moves(result, 'recommended')}."
            )
        if verdict.better:
            lines.extend(_edge_left(result))
        if plan.objective.combine == "constraints" and _bounds_line(result, "recommended"):
            lines.append("Bounds, on the same fresh deals: " + _bounds_line(result, "recommended") + ".")
        lines.append(
            f"Objective (lower is better): {v.objective['default'][0]:.2f} for the defaults, "
            f"{v.objective['recommended'][0]:.2f} recommended; difference {verdict.mean:+.2f} "
            f"[{verdict.low:+.2f}, {verdict.high:+.2f}] on the same deals"
            + (" (significantly better)." if verdict.better else " (not significant).")
        )
        if not verdict.better:
            ru = v.against_default.get("runner-up")
            if ru is not None and ru.better and v.violation.get("runner-up", 0.0) == 0:
                lines.append(
                    f"The runner-up, {space.words(labels['runner-up'])}, which changes more options, is significantly "
                    f"better on the same fresh deals: it brings {_moves(result, 'runner-up')} (objective difference "
                    f"{ru.mean:+.2f} [{ru.low:+.2f}, {ru.high:+.2f}]). It was not the search's choice, so treat it "
                    "as a lead for a new study rather than an answer."
                )
            else:
                lines.append("No setting within the ranges is shown to be better than the defaults.")
    else:
        best = choice.best
        if space.key(best) == space.key(space.default):
            lines.append("No setting within the ranges scored better than the rule file's defaults in the search.")
        else:
            lines.append(
                f"No setting within the ranges is significantly better than the rule file's defaults on the search's "
                f"deals (the best found was {space.words(best)}), so nothing is changed."
            )
    sk = result.skill
    if sk is not None and "recommended" in dict(sk.settings):
        moves = _moves(result, "recommended", sk)
        pd = sk.against_default["recommended"]
        lines.append(
            f"Skill check with {sk.bots}, on {sk.deals:,} other fresh deals: {moves}; objective difference "
            f"{pd.mean:+.2f} [{pd.low:+.2f}, {pd.high:+.2f}]"
            + (" (the recommendation holds)." if pd.better else " (not significant with these bots).")
        )
    if not choice.feasible:
        lines.append("No setting met every bound of the study; the one that missed them least is shown.")
    lines.extend(reduced_run_words(plan))
    if choice.inert:
        lines.append(
            f"With these bots, {', '.join(choice.inert)} changed nothing: alone, "
            f"{'it' if len(choice.inert) == 1 else 'each'} played exactly like the defaults on every search deal."
        )
    return lines


def summary_lines(result: TuneResult, page: PageResult | None = None) -> list[str]:
    """The terminal summary: the answer, the replay of each setting, the skill check, the page."""
    plan, v = result.plan, result.verify
    lines = recommendation_words(result)
    lines.append(
        f"search: {len(result.trials)} trials ({sum(r.state == 'complete' for r in result.trials)} played to "
        f"{plan.search.deals[-1]:,} deals), {result.games_played:,} games played now, {result.seconds:.0f} s"
    )
    for check in (v, result.skill):
        if check is None:
            continue
        lines.append(
            f"{'replay' if check.name == 'verify' else 'skill check'} with {check.bots}, {check.deals:,} fresh deals:"
        )
        for label, setting in check.settings:
            parts = []
            for i, t in enumerate(plan.objective.targets):
                for p in plan.objective.players[i]:
                    parts.append(f"{measure_name(t)} {p}p {cell_text(t, check.cells[(label, i, p)])}")
            lines.append(f"  {label} ({plan.space.words(setting)}): " + "; ".join(parts))
    if page is not None:
        lines.append(f"page: {page.path} ({page.size / 1e6:.1f} MB)")
    return lines


# ------------------------------------------------------------------ figures
def _kinds(result: TuneResult) -> list[tuple[str, str, dict[str, Any], list[TrialRow]]]:
    """The trials by kind, for the figures: (legend name, state, marker, rows)."""
    full = result.plan.search.deals[-1]
    ok = [r for r in result.trials if r.violation == 0]
    return [
        (f"played to {full:,} deals", "complete", {"color": PALETTE[0], "size": 9}, ok),
        ("stopped early (pruned)", "pruned", {"color": "#9aa1ad", "size": 7, "symbol": "circle-open"}, ok),
        (
            "misses a bound",
            "",
            {"color": "#b0566d", "size": 7, "symbol": "x-thin-open", "line": {"width": 1.5}},
            [r for r in result.trials if r.violation > 0 and r.state != "refused"],
        ),
    ]


def _fig_trace(result: TuneResult) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    space = result.plan.space
    rec = space.key(result.choice.recommended)
    order = {r.number: i + 1 for i, r in enumerate(sorted(result.trials, key=lambda r: r.number))}
    for name, state, marker, group in _kinds(result):
        rows = [r for r in group if not state or r.state == state]
        bars = state == "complete"
        fig.add_trace(
            go.Scatter(
                x=[order[r.number] for r in rows],
                y=[r.objective for r in rows],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [r.high - r.objective for r in rows],
                    "arrayminus": [r.objective - r.low for r in rows],
                    "visible": bars,
                },
                mode="markers",
                name=name,
                marker=marker,
                text=[f"{space.words(r.setting)} ({r.deals:,} deals)" for r in rows],
                hovertemplate="trial %{x}: %{text}<br>objective %{y:.2f}<extra></extra>",
            )
        )
    marks = [r for r in result.trials if r.state == "complete" and (r.baseline or space.key(r.setting) == rec)]
    fig.add_trace(
        go.Scatter(
            x=[order[r.number] for r in marks],
            y=[r.objective for r in marks],
            mode="markers+text",
            text=["defaults" if r.baseline else "recommended" for r in marks],
            textposition="top center",
            name="defaults / recommended",
            marker={"color": PALETTE[3], "size": 13, "symbol": "star"},
            hoverinfo="skip",
        )
    )
    fig.update_layout(**base_layout(420))
    fig.update_xaxes(title_text="trial")
    fig.update_yaxes(title_text="objective (lower is better)")
    return fig


def _fig_slices(result: TuneResult) -> Any:
    import plotly.graph_objects as go

    space = result.plan.space
    dims = space.dims
    fig = _subplots(len(dims), [d.name for d in dims])
    for j, d in enumerate(dims, start=1):
        for name, state, marker, group in _kinds(result):
            rows = [r for r in group if not state or r.state == state]
            fig.add_trace(
                go.Scatter(
                    x=[_axis_value(d, r.setting[d.name]) for r in rows],
                    y=[r.objective for r in rows],
                    mode="markers",
                    marker=marker | {"size": 8},
                    name=name,
                    legendgroup=name,
                    showlegend=j == 1,
                    text=[f"trial {r.number}: {space.words(r.setting)}" for r in rows],
                    hovertemplate="%{text}<br>objective %{y:.2f}<extra></extra>",
                ),
                row=1,
                col=j,
            )
        if d.kind == "choice":
            fig.update_xaxes(
                type="category",
                categoryorder="array",
                categoryarray=[_axis_value(d, c) for c in d.choices],
                row=1,
                col=j,
            )
    fig.update_layout(**base_layout(380))
    fig.update_yaxes(title_text="objective", row=1, col=1)
    return fig


def _axis_value(d: Any, v: Any) -> Any:
    return v if d.kind != "choice" else (v if isinstance(v, str) else json.dumps(v))


def _subplots(cols: int, titles: list[str]) -> Any:
    from plotly.subplots import make_subplots

    return make_subplots(rows=1, cols=max(1, cols), subplot_titles=titles, shared_yaxes=True, horizontal_spacing=0.05)


def _fig_checks(result: TuneResult) -> Any:
    import plotly.graph_objects as go

    plan = result.plan
    panels = [(i, t, p) for i, t in enumerate(plan.objective.targets) for p in plan.objective.players[i]]
    fig = _subplots(len(panels), [f"{measure_name(t)}, {p} players ({_unit(t)})" for _, t, p in panels])
    fig.update_yaxes(matches=None, showticklabels=True)
    checks = [c for c in (result.verify, result.skill) if c is not None]
    for k, check in enumerate(checks):
        for j, (i, t, p) in enumerate(panels, start=1):
            labels = [label for label, _ in check.settings]
            cells = [check.cells[(label, i, p)] for label in labels]
            ys = [c.signed if t.measure == "seat_gap" else c.value for c in cells]
            fig.add_trace(
                go.Scatter(
                    x=[f"{label} ({check.bots})" for label in labels],
                    y=ys,
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [c.high - y for c, y in zip(cells, ys, strict=True)],
                        "arrayminus": [y - c.low for c, y in zip(cells, ys, strict=True)],
                    },
                    mode="markers",
                    marker={"color": PALETTE[k], "size": 10},
                    name=f"{'replay' if check.name == 'verify' else 'skill check'}: {check.bots}",
                    legendgroup=check.name,
                    showlegend=j == 1,
                ),
                row=1,
                col=j,
            )
    fig.update_layout(**base_layout(400))
    return fig


# ------------------------------------------------------------------ tables
def _check_table(result: TuneResult, check: Check) -> dict[str, Any]:
    plan = result.plan
    cols = [(i, t, p) for i, t in enumerate(plan.objective.targets) for p in plan.objective.players[i]]
    deltas = {(d["label"], d["target"], d["players"]): d["delta"] for d in check.deltas}
    rows = []
    for label, setting in check.settings:
        cells = []
        for i, t, p in cols:
            d = deltas.get((label, i, p))
            cells.append(
                {
                    "value": cell_text(t, check.cells[(label, i, p)]),
                    "bound": bound_status(t, check.cells[(label, i, p)]),
                    "delta": "" if d is None else delta_text(t, d),
                    "resolved": d is not None and d.resolved,
                }
            )
        obj = check.objective[label]
        pd = check.against_default.get(label)
        rows.append(
            {
                "label": label,
                "setting": plan.space.words(setting),
                "cells": cells,
                "objective": f"{obj[0]:.2f} [{obj[1]:.2f}, {obj[2]:.2f}]",
                "against": "" if pd is None else f"{pd.mean:+.2f} [{pd.low:+.2f}, {pd.high:+.2f}]",
                "better": pd is not None and pd.better,
                "worse": pd is not None and pd.worse,
                "violation": check.violation.get(label, 0.0),
            }
        )
    head = [f"{measure_name(t)}, {p}p ({goal_words(t)})" for _, t, p in cols]
    return {"name": check.name, "bots": check.bots, "deals": check.deals, "head": head, "rows": rows}


def _trial_rows(result: TuneResult) -> list[dict[str, Any]]:
    plan = result.plan
    out = []
    for i, r in enumerate(sorted(result.trials, key=lambda r: r.number), start=1):
        out.append(
            {
                "number": i,
                "state": r.state + (" (defaults)" if r.baseline else ""),
                "deals": f"{r.deals:,}" if r.deals else "–",
                "setting": plan.space.words(r.setting),
                "changes": len(plan.space.changed(r.setting)),
                "objective": "–" if math.isnan(r.objective) else f"{r.objective:.2f}",
                "interval": "" if math.isnan(r.low) else f"[{r.low:.2f}, {r.high:.2f}]",
                "note": r.note + (f" (bounds missed by {r.violation:.2f})" if r.violation > 0 else ""),
            }
        )
    return out


def _steps(result: TuneResult) -> list[dict[str, Any]]:
    space = result.plan.space
    out = []
    for s in result.choice.steps:

        def diff(pd: Any, itself: str) -> str:
            return itself if pd is None else f"{pd.mean:+.2f} [{pd.low:+.2f}, {pd.high:+.2f}]"

        out.append(
            {
                "setting": space.words(s.setting),
                "changes": s.changes,
                "value": "–" if math.isnan(s.value) else f"{s.value:.2f}",
                "against": "" if s.decision.startswith("kept") else diff(s.against_best, "the best itself"),
                "against_default": "" if s.decision.startswith("kept") else diff(s.against_default, "the defaults"),
                "decision": s.decision,
            }
        )
    return out


def _parameters(result: TuneResult) -> list[tuple[str, str]]:
    plan = result.plan
    st, tune = plan.study, plan.study.tune
    assert tune is not None
    arm = st.arms[0]
    bots = arm.bots if isinstance(arm.bots, str) else ",".join(arm.bots)
    return [
        ("study file", str(plan.source)),
        ("game (rule file)", f"{st.game} ({plan.rules_source})"),
        (
            "start",
            f"variants {', '.join(arm.variants) or 'none'}; "
            f"options {json.dumps(arm.options) if arm.options else 'as in the rule file'}",
        ),
        ("player counts", ", ".join(str(p) for p in plan.objective.player_counts)),
        (
            "bots",
            bots
            + (" (every seat rotation on the same deals)" if st.rotate_seats and not isinstance(arm.bots, str) else ""),
        ),
        ("options searched", "; ".join(f"{d.name}: {d.describe()} (default {d.default})" for d in plan.space.dims)),
        (
            "targets",
            "; ".join(
                f"{measure_name(t)} {goal_words(t)}" + (f" × {t.weight:g}" if tune.combine == "weighted" else "")
                for t in plan.objective.targets
            ),
        ),
        ("combined as", "weighted sum of the losses" if tune.combine == "weighted" else "one objective under bounds"),
        ("trials", f"{len(result.trials)} (sampler {tune.sampler}; search seed {tune.search_seed})"),
        (
            "deals per rung",
            " → ".join(f"{d:,}" for d in plan.search.deals) + f" (successive halving, 1 in {tune.reduction} goes on)",
        ),
        ("seed", f"{st.seed} (search, replay and skill check on separate blocks of deals)"),
        (
            "replay",
            f"{result.verify.deals:,} fresh deals"
            + (
                f" for a half-width of {tune.verify.precision:g} on the first target's difference from the defaults"
                if tune.verify.precision
                else ""
            ),
        ),
        ("skill check", "none" if result.skill is None else f"{result.skill.bots}, {result.skill.deals:,} fresh deals"),
        ("search storage", str(plan.storage)),
        ("records", str(plan.folder / "records")),
        (
            "run",
            f"{result.seconds:.0f} s; {result.games_played:,} games played now, {result.runs_reused} runs read back",
        ),
    ]


def _kbsim_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kbsim")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def write_page(result: TuneResult, path: Path) -> PageResult:
    """Render and write the tuning page atomically.

    Args:
        result: from :func:`kbsim.tune.tuning.run_tuning`.
        path: the HTML file (its folder is created).

    Returns:
        :class:`PageResult`.

    Raises:
        kbsim.analysis.reading.ReportError: the file cannot be written.
    """
    from plotly.offline import get_plotlyjs

    t0 = time.perf_counter()
    plan = result.plan
    figs = [
        (
            "trace",
            "Search trace",
            "The objective of every trial (lower is better), at the last rung it reached. Filled: played to the "
            "end, with a 95% bootstrap interval over its deals; open: stopped early by successive halving. Every "
            "trial played the same deals, so the points of one rung compare paired.",
            _fig_trace(result),
        ),
        (
            "options",
            "Each option's effect",
            "The objective of every trial against each option's value (a slice of the search: the other options "
            "vary too). A value whose trials all sit high is one the search learnt to avoid.",
            _fig_slices(result),
        ),
        (
            "checks",
            "The replay on fresh deals",
            "Each target of each setting with its 95% interval, on deals the search never used; with a skill check, "
            "the same for the stronger bots. Seat gap: the furthest seat's signed gap.",
            _fig_checks(result),
        ),
    ]
    figures = embed_figures(figs)
    tune = plan.study.tune
    assert tune is not None
    ctx = {
        "title": plan.study.title or f"Tuning {plan.study.name}",
        "question": plan.study.question,
        "source": str(plan.source),
        "version": _kbsim_version(),
        "generated": generated_time().strftime("%Y-%m-%d %H:%M UTC"),
        "answer": recommendation_words(result),
        "fairer": "recommended" in dict(result.verify.settings) and result.verify.against_default["recommended"].better,
        "verify": _check_table(result, result.verify),
        "skill": None if result.skill is None else _check_table(result, result.skill),
        "skill_asked": tune.skill is not None,
        "steps": _steps(result),
        "best": plan.space.words(result.choice.best),
        "trials": _trial_rows(result),
        "parameters": _parameters(result),
        "combine": tune.combine,
        "figures": figures,
        "deals": plan.search.deals,
        "reduction": tune.reduction,
        "plotly_js": get_plotlyjs(),
    }
    page = page_environment("kbsim.tune").get_template("tune.html.j2").render(**ctx)
    size = write_html(page, path)
    return PageResult(path=Path(path), size=size, seconds=time.perf_counter() - t0, figures=len(figures))


def _trial_json(r: TrialRow, result: TuneResult) -> dict[str, Any]:
    def clean(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "number": r.number,
        "state": r.state,
        "setting": r.setting,
        "changed": result.plan.space.changed(r.setting),
        "deals": r.deals,
        "objective": clean(r.objective),
        "interval": None if math.isnan(r.low) else [r.low, r.high],
        "violation": r.violation,
        "measures": r.measures,
        "baseline": r.baseline,
        "note": r.note or None,
    }


def _check_json(check: Check | None, result: TuneResult) -> dict[str, Any] | None:
    if check is None:
        return None
    plan = result.plan
    settings = []
    for label, setting in check.settings:
        targets = []
        for i, t in enumerate(plan.objective.targets):
            for p in plan.objective.players[i]:
                c = check.cells[(label, i, p)]
                d = next(
                    (x["delta"] for x in check.deltas if (x["label"], x["target"], x["players"]) == (label, i, p)), None
                )
                targets.append(
                    {
                        "target": i,
                        "measure": t.measure,
                        "players": p,
                        "value": c.value,
                        "interval": [c.low, c.high],
                        "seat": c.seat,
                        "unit": UNITS[t.measure],
                        "against_default": None if d is None else d.as_dict(),
                    }
                )
        pd = check.against_default.get(label)
        obj = check.objective[label]
        settings.append(
            {
                "label": label,
                "setting": setting,
                "changed": plan.space.changed(setting),
                "objective": {"value": obj[0], "interval": [obj[1], obj[2]]},
                "against_default": None
                if pd is None
                else {"difference": pd.mean, "interval": [pd.low, pd.high], "p": pd.p, "better": pd.better},
                "targets": targets,
            }
        )
    return {"bots": check.bots, "deals": check.deals, "settings": settings}


def as_json(result: TuneResult, page: PageResult | None = None) -> dict[str, Any]:
    """The tuning as JSON-able data (what ``kbsim tune --json`` prints)."""
    plan, choice = result.plan, result.choice
    return {
        "study": str(plan.source),
        "page": None if page is None else str(page.path),
        "answer": recommendation_words(result),
        "recommended": choice.recommended,
        "changed": plan.space.changed(choice.recommended),
        "best": choice.best,
        "runner_up": choice.runner_up,
        "feasible": choice.feasible,
        "fairer_than_default": "recommended" in dict(result.verify.settings)
        and result.verify.against_default["recommended"].better,
        "verify": _check_json(result.verify, result),
        "skill": _check_json(result.skill, result),
        "trials": [_trial_json(r, result) for r in result.trials],
        "deals_per_rung": plan.search.deals,
        "storage": str(plan.storage),
        "games_played": result.games_played,
        "seconds": result.seconds,
    }
