"""The page's effects across player counts and rungs: what each arm does, how it depends on skill, in words.

A section of the report page (:mod:`kbsim.analysis.sections`):

* **tests**: the arm x rung interactions (:func:`kbsim.analysis.ladder.interaction_tests`) and the average over
  player counts (:func:`kbsim.analysis.pooling.pool`) of every comparison and interaction; all join the page's
  Holm family;
* **build**: one table per player count (and one of the averages): each arm against the baseline, each measure,
  the effect at every rung, whether it depends on skill, and the verdict in words; and the same arm under
  stronger bots (each rung against the first);
* **answer**: per arm, the effects resolved at some rung, averaged over player counts, with their verdict across
  the ladder; the fairest player count; what depends on the bot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from kbsim.analysis import metrics as M
from kbsim.analysis.arms import METRICS, SEAT_GAP, idle
from kbsim.analysis.ladder import NONE, interaction_tests, rung_deals, skill_verdict
from kbsim.analysis.metrics import Delta
from kbsim.analysis.page import Page
from kbsim.analysis.pooling import pool
from kbsim.analysis.reading import ReportInput, deals_words
from kbsim.analysis.tables import delta_text, signed_text, usage_phrase

MEASURES = [SEAT_GAP, *METRICS]
HANDFUL = 10  # an arm that differs from its baseline on at most this many deals gets those deals named
HANDFUL_SHARE = 0.25  # ... and on at most this share of the deals they share (3 of 3 deals is no handful)


# ------------------------------------------------------------------ tests
def effects_tests(inp: ReportInput, df: pl.DataFrame, deltas: Sequence[dict]) -> list[dict]:
    """The interactions, and the average over player counts of every comparison and interaction.

    Args:
        inp: the report input.
        df: the page's prepared records.
        deltas: the page's comparisons (per player count, raw p-values).

    Returns:
        Rows like the page's comparisons with ``kind``: ``interaction`` (per player count), ``pooled`` and
        ``pooled-interaction`` (``players`` None, ``counts`` the player counts averaged, ``q_p`` Cochran's Q
        p-value of equal effects across them).
    """
    rows = interaction_tests(inp, df)
    counts = sorted({int(d["players"]) for d in deltas} | {int(r["players"]) for r in rows})
    if len(counts) < 2:
        return rows
    pooled = []
    for kind, source in (("pooled", list(deltas)), ("pooled-interaction", rows)):
        groups: dict[tuple, list[dict]] = {}
        for d in source:
            groups.setdefault((d["b"], d["a"], d.get("b0"), d.get("a0"), d["metric"]), []).append(d)
        for (b, a, b0, a0, metric), ds in groups.items():
            if len(ds) < 2:
                continue
            delta, q_p = pool([d["delta"] for d in ds])
            row = {k: ds[0][k] for k in ("label", "unit")}
            pooled.append(
                row
                | {
                    "b": b,
                    "a": a,
                    "b0": b0,
                    "a0": a0,
                    "players": None,
                    "metric": metric,
                    "delta": delta,
                    "kind": kind,
                    "counts": sorted(int(d["players"]) for d in ds),
                    "q_p": q_p,
                }
            )
    return rows + pooled


# ------------------------------------------------------------------ structure of the page's comparisons
def _base_label(page: Page, key: str) -> str:
    """An arm's label without its rung."""
    c = next(x for x in page.inp.conditions if x.key == key)
    suffix = f" · {c.rung}"
    return c.label[: -len(suffix)] if c.rung and c.label.endswith(suffix) else c.label


def _conds(page: Page) -> dict:
    return {c.key: c for c in page.inp.conditions}


def families(page: Page) -> list[dict]:
    """The page's comparisons grouped by the two arms they compare, whatever the rung.

    Returns:
        One dict per pair of arms (in page order): ``b``, ``a`` (labels without rung), ``kind`` (``arm``: two
        arms at the same rung; ``skill``: one arm at a rung against the first rung), ``pairs`` (rung -> (B key,
        A key); rung None without a ladder) and ``rungs`` (in ladder order).
    """
    conds = _conds(page)
    out: dict[tuple, dict] = {}
    for b, a in page.inp.comparisons:
        cb, ca = conds[b], conds[a]
        if cb.rung is not None and cb.arm_key == ca.arm_key:
            fam = out.setdefault(
                ("skill", cb.arm_key),
                {"b": _base_label(page, b), "a": _base_label(page, a), "kind": "skill", "pairs": {}},
            )
            fam["pairs"][cb.rung] = (b, a)
            fam["first"] = ca.rung
        else:
            fam = out.setdefault(
                ("arm", cb.arm_key, ca.arm_key),
                {"b": _base_label(page, b), "a": _base_label(page, a), "kind": "arm", "pairs": {}},
            )
            fam["pairs"][cb.rung] = (b, a)
    order = {r: i for i, r in enumerate(page.ladder)}
    for fam in out.values():
        fam["rungs"] = sorted(fam["pairs"], key=lambda r: order.get(r, -1))
    return list(out.values())


def _index(page: Page) -> dict:
    """(b, a, players, metric) -> comparison row; (b, a, players, metric, "x") -> interaction row."""
    idx: dict[tuple, dict] = {}
    for d in page.stats["deltas"]:
        idx[(d["b"], d["a"], d["players"], d["metric"])] = d
    for d in page.stats["sections"].get("effects", []):
        if d["kind"] == "pooled":
            idx[(d["b"], d["a"], None, d["metric"])] = d
        else:
            idx[(d["b"], d["a"], d["players"], d["metric"], "x")] = d
    return idx


def _cell(d: dict | None, stats: dict | None = None, rung: str | None = None) -> dict:
    """One table cell of a comparison ``d`` at ``rung``; ``stats`` tells whether B's rule was used there."""
    if d is None:
        return {"text": "–"}
    unused = stats is not None and idle(stats, d["b"], d["a"])
    v, interval, status = delta_text(d, short=True, unused=unused)
    return {
        "text": f"{v} {interval}",
        "status": status,
        "cls": "ok" if d["delta"].resolved else "unresolved",
        "title": delta_text(d, unused=unused, rung=rung)[2],
    }


def _verdict(page: Page, idx: dict, fam: dict, players: int | None, metric: str) -> str:
    """The effect of one family and measure across the ladder, in words (empty without a ladder)."""
    if len(fam["rungs"]) < 2 or fam["kind"] != "arm":
        return ""
    per_rung = [idx.get((*fam["pairs"][r], players, metric)) for r in fam["rungs"]]
    dependence = [idx.get((*fam["pairs"][r], players, metric, "x")) for r in fam["rungs"][1:]]
    return skill_verdict(
        [d["delta"] if d else None for d in per_rung],
        [d["delta"] if d else None for d in dependence],
        names=fam["rungs"],
    )


# ------------------------------------------------------------------ build
def effects_build(page: Page) -> dict | None:
    """The effects table per player count and of the averages (None when the page compares nothing)."""
    fams = families(page)
    if not fams:
        return None
    idx = _index(page)
    ladder = page.ladder
    counts: list = list(page.players) + ([None] if len(page.players) > 1 else [])
    rung_names = [r for r in ladder] if ladder else [None]
    arm_rows: dict = {}
    skill_rows: dict = {}
    for fam in fams:
        for p in counts:
            for metric, label, _unit in MEASURES:
                cells = {r: idx.get((*fam["pairs"][r], p, metric)) for r in fam["rungs"]}
                if not any(cells.values()):
                    continue
                row = {"b": fam["b"], "a": fam["a"], "measure": label}
                for i, r in enumerate(rung_names):
                    row[f"r{i}"] = _cell(cells.get(r), page.stats, r)
                if fam["kind"] == "arm":
                    deps = [idx.get((*fam["pairs"][r], p, metric, "x")) for r in fam["rungs"][1:]]
                    row["depends"] = {"text": "; ".join(_cell(d)["text"] for d in deps if d)} if any(deps) else ""
                    row["verdict"] = _verdict(page, idx, fam, p, metric)
                    arm_rows.setdefault(_tab(p), []).append(row)
                else:
                    skill_rows.setdefault(_tab(p), []).append(row)
    tabs = [(_tab(p), f"{p} players" if p is not None else "average over player counts") for p in counts]
    deals = {r: n for r, n in _rung_deals(page).items() if r is not None}  # (off-ladder cells: their own arms)
    differ = len(set(deals.values())) > 1
    rung_cols = [
        (f"r{i}", (f"{r} ({deals[r]:,} deals)" if differ and r in deals else f"{r}") if r else "B − A [95%]", True)
        for i, r in enumerate(rung_names)
    ]
    arm_cols = [("b", "B", False), ("a", "A", False), ("measure", "measure", False), *rung_cols]
    if len(ladder) > 1:
        arm_cols += [("depends", "rung − first rung (interaction)", True), ("verdict", "across the ladder", False)]
    skill_cols = [
        ("b", "arm", False),
        ("measure", "measure", False),
        *[(f"r{i}", f"{r} − {ladder[0]}", True) for i, r in enumerate(ladder) if i > 0],
    ]
    return {
        "tabs": tabs,
        "arm_columns": arm_cols,
        "arm_rows": arm_rows,
        "skill_columns": skill_cols,
        "skill_rows": {k: [_shift(r) for r in v] for k, v in skill_rows.items()},
        "ladder": ladder,
        "deals": deals_words(deals) if differ else "",
    }


def _tab(p: int | None) -> str:
    return "avg" if p is None else str(p)


def _shift(row: dict) -> dict:
    """A skill row's cells under the rung columns (its comparisons exist from the second rung on)."""
    return {k: v for k, v in row.items() if k != "a"}


# ------------------------------------------------------------------ answer
def _pp(x: float, unit: str) -> str:
    return signed_text(x, unit)


def _effect_words(d: dict | None) -> str:
    if d is None:
        return "–"
    pd: Delta = d["delta"]
    if pd.identical:
        return "identical on every deal"
    if math.isnan(pd.mean):
        return "–"
    text = f"{_pp(pd.mean, d['unit'])} [{_pp(pd.low, d['unit'])}, {_pp(pd.high, d['unit'])}]"
    return text + (" (resolved)" if pd.resolved else " (not resolved)")


def _scope(page: Page, p: int | None) -> str:
    if p is not None:
        return f"at {p} players"
    ps = page.players
    return f"averaged over {ps[0]}–{ps[-1]} players" if len(ps) > 1 else f"at {ps[0]} players"


def effects_answer(page: Page, data: dict) -> list[dict]:
    """Per arm against the baseline: the resolved effects, averaged over player counts, across the ladder."""
    idx = _index(page)
    scope = None if len(page.players) > 1 else page.players[0]
    blocks = []
    for fam in families(page):
        if fam["kind"] != "arm":
            continue
        idle_rungs = [r for r in fam["rungs"] if idle(page.stats, *fam["pairs"][r])]
        on_ladder = any(r is not None for r in fam["rungs"])
        lines = _fairness_lines(page, idx, fam, scope, idle_rungs)
        fairer = [line.split(" (")[0].removeprefix(f"{fam['b']} is ") for line in lines if " fair than " in line]
        short = ["; ".join(fairer) if fairer else "which is fairer not resolved"]
        quiet = []
        for metric, label, unit in METRICS:
            per_rung = {r: idx.get((*fam["pairs"][r], scope, metric)) for r in fam["rungs"]}
            if not any(per_rung.values()):
                continue
            per_count_resolved = [
                p
                for p in page.players
                for r in fam["rungs"]
                if (d := idx.get((*fam["pairs"][r], p, metric))) is not None and d["delta"].resolved
            ]
            any_resolved = any(d is not None and d["delta"].resolved for d in per_rung.values())
            if not any_resolved and not per_count_resolved:
                quiet.append(label)
                continue
            parts = [
                (f"{r}: " if r else "") + _effect_words(per_rung[r]) for r in fam["rungs"] if per_rung[r] is not None
            ]
            line = f"{label[0].upper()}{label[1:]} (B − A, {_scope(page, scope)}): {'; '.join(parts)}"
            verdict = _verdict(page, idx, fam, scope, metric)
            if verdict and verdict != NONE:
                line += f" — {verdict}"
            short.append(_short(label, unit, per_rung, verdict))
            first = per_rung.get(fam["rungs"][0])
            if first is not None and not math.isnan(first.get("q_p", math.nan)) and first["q_p"] < M.ALPHA:
                lo, hi = _count_range(idx, fam["pairs"][fam["rungs"][0]], page.players, metric)
                line += f"; it differs between player counts ({lo} … {hi})"
            elif not any_resolved and per_count_resolved:
                line += f"; resolved at {_players(sorted(set(per_count_resolved)))} only"
            lines.append(line + ".")
        if quiet:
            deals = _deals(page, fam)
            text = f"No resolved difference in {', '.join(quiet)}"
            if idle_rungs and on_ladder:
                text += f" ({_usage_words(page, fam, idle_rungs)}: see the warning)"
            elif idle_rungs:
                text += " (the arm's rule was never used in some of its cells: see the warning)"
            elif deals:
                text += f" at {deals}"
            lines.append(text + ".")
        lines += _handful(page, fam)
        headline = f"{fam['b']} against {fam['a']}: " + (
            "; ".join(short)
            if len(short) > 1 or fairer
            else "no resolved difference"
            + (
                f" ({_usage_words(page, fam, idle_rungs)})"
                if idle_rungs and on_ladder
                else " (its rule was never used)"
                if idle_rungs
                else ""
            )
        )
        blocks.append({"title": f"{fam['b']} against {fam['a']}", "lines": lines, "headline": headline})
    return blocks


def _short(label: str, unit: str, per_rung: dict, verdict: str | None) -> str:
    """One measure's effect across the rungs in a few words, for the Answer's headline."""

    def value(d: dict) -> str:
        m = d["delta"].mean
        text = f"{100 * m:+.1f} pp" if unit == "pp" else f"{m:+.1f}"
        return text if d["delta"].resolved else f"{text} (not resolved)"

    parts = [value(d) + (f" with {r}" if r else "") for r, d in per_rung.items() if d is not None]
    tail = f" ({verdict})" if verdict and verdict != NONE and len(parts) > 1 else ""
    return f"{label} {', '.join(parts)}{tail}"


def _usage_words(page: Page, fam: dict, idle_rungs: Sequence[str | None]) -> str:
    """What arm B did with its rule at each rung, and where more deals would not help (a family on a ladder)."""
    parts = []
    for r in fam["rungs"]:
        said = usage_phrase(page.stats, fam["pairs"][r][0], r)
        if r in idle_rungs:
            said = (said or f"with {r} its rule was never used") + f", so more deals with {r} would not help"
        if said:
            parts.append(said)
    return "; ".join(parts)


def _fairness_lines(
    page: Page, idx: dict, fam: dict, scope: int | None, idle_rungs: Sequence[str | None] = ()
) -> list[str]:
    """Which of two arms is fairer (the largest seat gap, B − A), per rung: where resolved, where not, where equal.

    Only differences resolved after the page's adjustment are stated as findings; "deals needed" is left out at a
    rung in ``idle_rungs``, where arm B's rule no game used (more deals of the same bots would measure nothing
    either), and given at the other rungs.
    """
    lines = []
    b_label, a_label = fam["b"], fam["a"]
    for r in fam["rungs"]:
        b, a = fam["pairs"][r]
        with_r = f" with {r}" if r else ""
        per = [d for p in page.players if (d := idx.get((b, a, p, "seat_gap"))) is not None and d["delta"].n >= 2]
        if not per:
            continue
        pooled = idx.get((b, a, None, "seat_gap"))
        said = False
        for word, pick in (("closer to", lambda x: x.mean < 0), ("further from", lambda x: x.mean > 0)):
            hits = [d for d in per if d["delta"].resolved and pick(d["delta"])]
            if hits:
                parts = "; ".join(f"{d['players']} players {_effect_words(d).replace(' (resolved)', '')}" for d in hits)
                lines.append(f"{b_label} is {word} fair than {a_label}{with_r} (largest seat gap, B − A: {parts}).")
                said = True
            elif pooled is not None and pooled["delta"].resolved and pick(pooled["delta"]):
                lines.append(
                    f"{b_label} is {word} fair than {a_label}{with_r} on average over the player counts (largest "
                    f"seat gap, B − A: {_effect_words(pooled).replace(' (resolved)', '')}), though at no single "
                    "count on its own."
                )
                said = True
        same = sorted(d["players"] for d in per if d["delta"].identical)
        open_ = [d for d in per if not d["delta"].resolved and not d["delta"].identical]
        if open_ and not said:
            need = [d["delta"].deals_needed for d in open_ if d["delta"].deals_needed is not None]
            if r in idle_rungs and r is not None:
                tail = f"; its rule was never used with {r}, so more deals with {r} would not help"
            elif r in idle_rungs:
                tail = "; its rule was never used in some cells, so more deals with these bots would not help"
            elif need:
                lo, hi = min(need), max(need)
                span = f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"
                tail = f"; a new paired study would need about {span} deals per cell to resolve the effects seen"
            elif any(d["delta"].deals_needed_reason.startswith("fewer than") for d in open_):
                tail = "; too few deals to estimate how many a study would need"
            else:
                tail = "; the effects seen are within the noise, so no deal count can be given"
            lines.append(
                f"Which of the two is fairer{with_r} is not resolved at "
                f"{_players(sorted(d['players'] for d in open_))} ({open_[0]['delta'].n:,} deals per cell{tail})."
            )
        if same:
            lines.append(f"At {_players(same)}{with_r} the two arms won alone the same games on every deal.")
    verdict = _verdict(page, idx, fam, scope, "seat_gap")
    if verdict and verdict != NONE:
        lines.append(f"The difference in fairness across the ladder ({_scope(page, scope)}): {verdict}.")
    return lines


def _count_range(idx: dict, pair: tuple[str, str], players: list[int], metric: str) -> tuple[str, str]:
    vals = [(p, d) for p in players if (d := idx.get((*pair, p, metric))) is not None]
    if not vals:
        return "–", "–"
    lo = min(vals, key=lambda x: x[1]["delta"].mean)
    hi = max(vals, key=lambda x: x[1]["delta"].mean)
    return (
        f"{_pp(lo[1]['delta'].mean, lo[1]['unit'])} at {lo[0]} players",
        f"{_pp(hi[1]['delta'].mean, hi[1]['unit'])} at {hi[0]}",
    )


def _players(ps: list[int]) -> str:
    return (", ".join(str(p) for p in ps[:-1]) + " and " + str(ps[-1]) if len(ps) > 1 else str(ps[0])) + " players"


def _rung_deals(page: Page) -> dict:
    """Rung (None for the cells off the ladder) -> the fewest deals per cell played at it (records' groups)."""
    return rung_deals(page.inp.conditions, page.stats["groups"])


def _deals(page: Page, fam: dict) -> str:
    """The deals per cell of a family's comparisons in words, per rung where they differ ("" when none)."""
    deals = _rung_deals(page)
    per_rung = {r: deals[r] for r in fam["rungs"] if r in deals}
    return deals_words(per_rung) if per_rung else ""


def _handful(page: Page, fam: dict) -> list[str]:
    """For a comparison whose arms differ on a handful of deals only: which deals, and which rules B used there."""
    df = page.inp.records
    out = []
    for r in fam["rungs"]:
        b, a = fam["pairs"][r]
        for p in page.players:
            deals = differing_deals(df, b, a, p)
            if deals is None or not 0 < len(deals) <= min(HANDFUL, _shared_deals(df, b, a, p) * HANDFUL_SHARE):
                continue  # (the arms differ on none, or on too many deals, or on most of a small sample)
            seeds = [s for s, _ in deals]
            uses = rule_uses_on(df, b, p, seeds)
            where = ", ".join(f"game {i}" for _, i in deals)
            if uses:
                used = "; in them B used " + ", ".join(f"{k} {v}×" for k, v in uses.items())
            else:
                unused = page.stats.get("unused_rules", {}).get(b) or []
                legal = rule_uses_on(df, b, p, seeds, "legal_turns")
                legal = {k: v for k, v in legal.items() if not unused or k in unused}
                total = sum(legal.values())
                used = "; B never played its rule there" + (
                    f", though it was legal at the start of {total} turn{'s' if total > 1 else ''} of those games ("
                    + ", ".join(f"{k} {v}" for k, v in legal.items())
                    + "): the games differ only through the bot's other choices (a move the bot's search "
                    "considers but does not play can still change which move it plays)"
                    if legal
                    else ": the games differ only through the bot's other choices"
                )
            rung = f" with {r}" if r else ""
            out.append(
                f"At {p} players{rung} the two arms differ on {len(deals)} deal{'s' if len(deals) > 1 else ''} only "
                f"({where}){used}."
            )
    return out


def _shared_deals(df: pl.DataFrame, b: str, a: str, players: int) -> int:
    """How many deals (seeds) arms ``b`` and ``a`` both played at ``players`` players."""
    sub = df.filter(pl.col("players") == players)
    seeds = [set(sub.filter(pl.col("condition") == k)["seed"].to_list()) for k in (b, a)]
    return len(seeds[0] & seeds[1])


def differing_deals(df: pl.DataFrame, b: str, a: str, players: int) -> list[tuple[int, int]] | None:
    """The deals (seed, game index) on which two arms' games differ in end, turns or winners, sorted by seed.

    None when the arms share no deal at that player count.
    """
    cols = ["seed", "game_index", "end_reason", "turns", "winners", "bots"]
    sub = df.filter(pl.col("players") == players)
    ga = sub.filter(pl.col("condition") == a).select(cols)
    gb = sub.filter(pl.col("condition") == b).select(cols)
    if ga.height == 0 or gb.height == 0:
        return None
    key = pl.concat_str(
        [
            pl.col("end_reason"),
            pl.col("turns").cast(pl.String),
            pl.col("winners").cast(pl.List(pl.String)).list.join(","),
        ],
        separator="|",
    )
    fa = ga.with_columns(o=key).group_by("seed").agg(pl.col("o").sort(), pl.col("game_index").min())
    fb = gb.with_columns(o=key).group_by("seed").agg(pl.col("o").sort())
    j = fa.join(fb, on="seed", suffix="_b").sort("seed")
    if j.height == 0:
        return None
    diff = j.filter(pl.col("o") != pl.col("o_b"))
    return [(int(s), int(i)) for s, i in zip(diff["seed"], diff["game_index"], strict=True)]


def rule_uses_on(df: pl.DataFrame, key: str, players: int, seeds: list[int], field: str = "uses") -> dict[str, int]:
    """Rule-usage counter -> uses, over the games of one arm and player count on the given deals.

    Args:
        df: the page's records.
        key: the arm (condition key).
        players: the player count.
        seeds: the deals.
        field: ``uses`` (moves made) or ``legal_turns`` (turns that started with such a move legal).
    """
    if "rule_usage" not in df.columns or not seeds:
        return {}
    rows = (
        df.filter((pl.col("condition") == key) & (pl.col("players") == players) & pl.col("seed").is_in(seeds))
        .select(pl.col("rule_usage").explode())
        .drop_nulls()
    )
    if rows.height == 0:
        return {}
    u = rows.unnest("rule_usage")
    if field not in u.columns:
        return {}
    u = u.group_by("rule").agg(pl.col(field).sum()).filter(pl.col(field) > 0).sort("rule")
    return dict(zip(u["rule"].to_list(), u[field].to_list(), strict=True))


__all__ = ["differing_deals", "effects_answer", "effects_build", "effects_tests", "families", "rule_uses_on"]


# ------------------------------------------------------------------ what depends on the bot
_VALUE_OF = {  # measure -> (words, unit, verb agreeing with the words)
    "seat0": ("the first player's sole-win rate", "pp", "depends"),
    "stalemate": ("stalemates", "pp", "depend"),
    "turn_limit": ("games stopped by the turn limit", "pp", "depend"),
    "shared": ("shared wins", "pp", "depend"),
    "turns": ("game length (turns per game)", "turns", "depends"),
}


def _value(g: dict, metric: str) -> float:
    if metric == "turns":
        return float(g["turns"]["mean"])
    if metric == "seat0":
        return float(g["seats"][g["first"]]["rate"])
    return float(g[metric]["rate"])


def _span(vals: list[float], unit: str) -> str:
    def one(v: float) -> str:
        return f"{v:.1f}" if unit == "turns" else M.fmt_pct(v)

    lo, hi = min(vals), max(vals)
    return one(lo) if lo == hi else f"{one(lo)}–{one(hi)}"


def skill_answer(page: Page) -> list[dict]:
    """What depends on the bot: the baseline arm's outcomes at each rung, and whether stronger play changes them.

    A change is stated only when the paired difference between the rungs (same arm, same deals) is resolved after
    the page's adjustment, averaged over player counts or at some count.
    """
    fams = [f for f in families(page) if f["kind"] == "skill"]
    if not fams:
        return []
    idx = _index(page)
    base = page.inp.comparisons[0][1] if page.inp.comparisons else None  # the baseline arm at the first rung
    fam = next((f for f in fams if any(f["pairs"][r][1] == base for r in f["rungs"])), fams[0])
    first = fam["first"]
    deals = _rung_deals(page)
    scope = None if len(page.players) > 1 else page.players[0]
    lines = []
    for metric, (label, unit, verb) in _VALUE_OF.items():
        per_rung = {}
        for rung in [first, *fam["rungs"]]:
            key = fam["pairs"][fam["rungs"][0]][1] if rung == first else fam["pairs"][rung][0]
            vals = [_value(g, metric) for p in page.players if (g := page.stats["groups"].get((key, p)))]
            if vals:
                per_rung[rung] = _span(vals, unit)
        changes = {r: idx.get((*fam["pairs"][r], scope, metric)) for r in fam["rungs"]}
        counts = {
            r: [p for p in page.players if (d := idx.get((*fam["pairs"][r], p, metric))) and d["delta"].resolved]
            for r in fam["rungs"]
        }
        values = ", ".join(f"{v} with {r}" for r, v in per_rung.items())
        resolved = [r for r in fam["rungs"] if (changes[r] and changes[r]["delta"].resolved) or counts[r]]
        if resolved:
            parts = []
            for r in resolved:
                d = changes[r]
                text = f"{r} − {first} {_effect_words(d)} {_scope(page, scope)}" if d else f"{r} − {first}"
                shared = min(deals.get(r, 0), deals.get(first, 0))
                if shared and deals.get(r) != deals.get(first):  # the values above are over each rung's own deals
                    text += f" on the {shared:,} deals per cell both played"
                if counts[r] and len(counts[r]) < len(page.players):
                    text += f", resolved at {_players(counts[r])}"
                parts.append(text)
            lines.append(f"{label[0].upper()}{label[1:]} {verb} on the bot: {values} ({'; '.join(parts)}).")
        else:
            lines.append(f"{label[0].upper()}{label[1:]}: {values}; no resolved dependence on the bot.")
    ps = page.players
    where = f"{ps[0]}–{ps[-1]} players" if len(ps) > 1 else f"{ps[0]} players"
    return [
        {
            "title": f"What depends on the bot ({fam['b']}, {where}"
            + ("; ranges over the player counts)" if len(ps) > 1 else ")"),
            "lines": lines,
        }
    ]
