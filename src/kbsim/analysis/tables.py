"""Tables and text of the report page, from the statistics of :func:`kbsim.analysis.arms.compute`."""

from __future__ import annotations

import math

from kbsim.analysis import metrics as M
from kbsim.analysis.arms import METRICS, SEAT_GAP, idle
from kbsim.analysis.metrics import Delta
from kbsim.analysis.reading import ReportInput

# ------------------------------------------------------------------ formatting helpers
_pct = M.fmt_pct


def _num(x: float | None, digits: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def signed_text(x: float, unit: str) -> str:
    """A difference with its sign: percentage points (``unit`` ``"pp"``, ``x`` a fraction) or plain; "–" for none."""
    if x is None or math.isnan(x):
        return "–"
    return f"{100 * x:+.2f} pp" if unit == "pp" else f"{x:+.2f}"


def delta_text(d: dict, short: bool = False, unused: bool = False, rung: str | None = None) -> tuple[str, str, str]:
    """(value, interval, status) texts of one delta row; ``short`` for table cells.

    The status gives the test, the raw and the Holm-adjusted p-value, whether the difference is resolved after
    adjustment, and the deals a new study needs at 80% power (or why that number is left out: never for an arm
    whose rule no game used, ``unused`` (:func:`kbsim.analysis.arms.idle`), where more deals of the same bots
    would measure nothing either). ``rung``: the bot of the skill-ladder rung the row compares at (named in that
    reason), or None off a ladder.
    """
    pd: Delta = d["delta"]
    unit = d["unit"]
    if pd.n == 0:
        return "–", "–", "no games to compare" if short else "no games of one arm at this player count"
    if pd.n < 2:
        return signed_text(pd.mean, unit), "–", f"not resolved: only {pd.n} common deal"
    if pd.identical:
        return (
            signed_text(pd.mean, unit),
            "[0, 0]",
            "identical on every deal"
            if short
            else "not resolved: identical on every deal (the bots may never use what differs)",
        )
    interval = f"[{signed_text(pd.low, unit)}, {signed_text(pd.high, unit)}]"
    kind = "" if pd.paired else "independent samples · "
    ps = f"{M.fmt_p(pd.p)} raw, {M.fmt_p(pd.p_adj).replace('p ', 'p(adj) ')} {M.ADJUSTMENT_NAME}"
    differing = f"{pd.discordant} differing deal{'' if pd.discordant == 1 else 's'}"
    if short:  # a table cell: the adjusted p only; the raw p and the test are in the cell's tooltip (the long text)
        ps = (
            M.fmt_p(pd.p_adj).replace("p ", "p(adj) ")
            if pd.p_adj == pd.p_adj
            else f"untested: {differing}"
            if pd.discordant is not None
            else "untested"
        )
    elif pd.discordant is not None and pd.test.startswith("exact"):
        ps += f"; exact sign test, {differing}"
    elif pd.test == M.SEAT_GAP_TEST:
        ps += f"; {pd.test}, {differing}, bootstrap interval"
    if pd.resolved:
        return signed_text(pd.mean, unit), interval, f"{kind}resolved ({ps})"
    status = f"{kind}not resolved ({ps})"
    if pd.resolved_raw:
        status = f"{kind}not resolved after adjustment ({ps})"
    need = None if unused else pd.deals_needed
    if unused:
        with_r = f" with {rung}" if rung else ""
        status += (
            ""
            if short
            else f"; no deal count: the arm's rule was never used{with_r}, so more deals{with_r} would not help"
        )
    elif need is not None:
        status += (
            f" · ≈{need:,} deals for 80% power"
            if short
            else f"; a new paired study of about {need:,} deals would resolve an effect this large 80% of the time"
        )
    elif pd.deals_needed_reason and not short:
        status += f"; no deal count: {pd.deals_needed_reason}"
    elif pd.deals_needed_reason.startswith("effect within"):
        status += " · effect indistinguishable from 0"
    return signed_text(pd.mean, unit), interval, status


# ------------------------------------------------------------------ tables and text
def _cells(inp: ReportInput, st: dict):
    """(condition, player count, statistics) of every cell that has records, in page order."""
    for c in inp.conditions:
        for p in st["players"]:
            g = st["groups"].get((c.key, p))
            if g is not None:
                yield c, p, g


def _gap_against(st: dict, labels: dict[str, str]) -> dict[tuple[str, int], str]:
    """Per (arm key, players): what its largest-seat-gap differences say against the arms it is compared with.

    The verdict table's rank orders point estimates; this says which of those orderings a paired test resolved
    (after the page's adjustment), so a rank is not read as a finding.
    """
    out: dict[tuple[str, int], list[str]] = {}
    for d in st.get("deltas", []):
        if d["metric"] != SEAT_GAP[0]:
            continue
        pd: Delta = d["delta"]
        a = labels[d["a"]]
        if pd.n < 2:
            text = f"no common deals with {a}"
        elif pd.identical:
            text = f"same games as {a} on every deal"
        elif pd.resolved:
            text = f"{'closer to' if pd.mean < 0 else 'further from'} fair than {a} (resolved)"
        else:
            text = f"not resolved against {a}"
        out.setdefault((d["b"], d["players"]), []).append(text)
        out.setdefault((d["a"], d["players"]), [])
    return {k: "; ".join(v) if v else "baseline" for k, v in out.items()}


def report_tables(inp: ReportInput, st: dict) -> dict:
    """The page's tables (summary, deltas, ...) as template data, from the input and its statistics ``st``."""
    labels = {c.key: c.label for c in inp.conditions}
    summary = []
    for c, p, g in _cells(inp, st):
        s0 = g["seats"][g["first"]]
        summary.append(
            {
                "arm": c.label,
                "players": p,
                "unused": ", ".join(st.get("unused_rules", {}).get(c.key, [])),
                "games": f"{g['n']:,}",
                "deals": f"{g['deals']:,}",
                "seat0": f"{_pct(s0['rate'])} [{_pct(s0['low'])}, {_pct(s0['high'])}]",
                "fair": _pct(1 / p),
                "seats": " / ".join(_pct(r["rate"], 1) for r in g["seats"]),
                "shared": f"{_pct(g['shared']['rate'], 2)} ({g['shared']['k']:,})",
                "stalemate": f"{_pct(g['stalemate']['rate'], 2)} [{_pct(g['stalemate']['low'], 2)}, "
                f"{_pct(g['stalemate']['high'], 2)}]",
                "turn_limit": f"{_pct(g['turn_limit']['rate'], 2)} ({g['turn_limit']['k']:,})",
                "turns": f"{_num(g['turns']['mean'])} [{_num(g['turns']['low'])}, {_num(g['turns']['high'])}]",
                "turns_q": f"{_num(g['turns']['median'], 0)} / {_num(g['turns']['p95'], 0)}",
                "seat_test": _seat_test_text(g["balance"]["test"]),
            }
        )
    against = _gap_against(st, labels)
    verdicts = [
        {
            "arm": labels[v["condition"]],
            "players": v["players"],
            "rank": v["rank"] or "–",
            "against": against.get((v["condition"], v["players"]), ""),
            "gap": _gap_text(v["verdict"]["largest"]),
            "first": _gap_text(v["verdict"]["first"]),
            "text": v["verdict"]["text"],
            "test": _seat_test_text(v["test"]),
            "decided": f"{v['verdict']['decided']:,}",
        }
        for v in st["verdicts"]
    ]
    deltas: dict[tuple, dict] = {}
    rungs = {c.key: c.rung for c in inp.conditions}
    for d in st["deltas"]:
        idle_ = idle(st, d["b"], d["a"])
        v, interval, status = delta_text(d, short=True, unused=idle_)
        row = deltas.setdefault(
            (d["b"], d["a"], d["players"]),
            {"b": labels[d["b"]], "a": labels[d["a"]], "players": d["players"], "n": f"{d['delta'].n:,}", "cells": {}},
        )
        row["cells"][d["metric"]] = {
            "value": v,
            "interval": interval,
            "status": status,
            "detail": delta_text(d, unused=idle_, rung=rungs.get(d["b"]))[2],
            "resolved": d["delta"].resolved,
        }
    bots = [
        {
            "arm": labels[b["condition"]],
            "players": b["players"],
            "bot": b["bot"],
            "seats": b["seats"],
            "rate": f"{_pct(b['rate'])} [{_pct(b['low'])}, {_pct(b['high'])}]",
            "fair": _pct(b["fair"]),
            "n": f"{b['n']:,}",
        }
        for b in st["bots"]
    ]
    chars = None
    if st["characters"]:
        ch = st["characters"]
        chars = {
            "base": labels.get(ch["base"], ch["base"]),
            "ranking": [
                {
                    "players": r["players"],
                    "rank": i + 1 - min(j for j, x in enumerate(ch["ranking"]) if x["players"] == r["players"]),
                    "character": r["name"],
                    "per_game": _num(r["per_game"], 2),
                    "lift": f"{100 * r['lift']:+.1f} pp [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]",
                    "n": f"{r['n_played']:,} / {r['n_not']:,}",
                }
                for i, r in enumerate(ch["ranking"])
            ],
            "plays": [
                {
                    "arm": labels.get(r["condition"], r["condition"]),
                    "players": r["players"],
                    "character": r["name"],
                    "per_game": f"{r['per_game']:.2f} [{r['per_game_low']:.2f}, {r['per_game_high']:.2f}]",
                    "share": f"{_pct(r['share'])} [{_pct(r['share_low'])}, {_pct(r['share_high'])}]",
                    "games": f"{r['games']:,}",
                }
                for r in st["characters"]["plays"]
            ],
            "lift": [
                {
                    "arm": labels.get(r["condition"], r["condition"]),
                    "players": r["players"],
                    "character": r["name"],
                    "p_adj": M.fmt_p(r["p_adj"]),
                    "played": f"{_pct(r['rate_played'])} (n {r['n_played']:,})",
                    "not_played": f"{_pct(r['rate_not'])} (n {r['n_not']:,})",
                    "lift": f"{100 * r['lift']:+.1f} pp [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]",
                }
                for r in st["characters"]["lift"]
            ],
        }
    return {
        "unused": [unused_text(inp, k, st) for k in st.get("unused", [])],
        "summary": summary,
        "verdicts": verdicts,
        "deltas": list(deltas.values()),
        "metrics": [(m, label) for m, label, _ in (SEAT_GAP, *METRICS)],
        "bots": bots,
        "characters": chars,
        "restricted": _restricted_tables(inp, st),
        "experience": _experience_rows(inp, st),
        "experience_missing": [
            c.label
            for c in inp.conditions
            if any(g["experience"].get("forced_share") is None for cc, _, g in _cells(inp, st) if cc.key == c.key)
        ],
    }


def _restricted_tables(inp: ReportInput, st: dict) -> dict | None:
    """The restricted-play section's data, or None without a value.

    ``rankings``: one sentence per ladder rung (in the ladder's order) ranking the values; ``lines``: each ranking
    followed by its values in words; ``resolved``: the sentences of the resolved values; and the tables of
    :func:`kbsim.analysis.restricted.restricted_table`.
    """
    from kbsim.analysis.restricted import ranking_sentence, restricted_table

    items = st.get("restricted") or []
    if not items:
        return None
    place = {r: i for i, r in enumerate(inp.ladder)}
    rungs = sorted({it["rung"] for it in items if it["rung"]}, key=lambda r: (place.get(r, len(place)), r))
    bots = {c.key: c.bots for c in inp.conditions}
    lines, rankings = [], []
    for rung in rungs or [None]:
        mine = [it for it in items if it["rung"] == rung]
        rankings.append(ranking_sentence(mine, rung or bots.get(mine[0]["baseline"], "")))
        lines.append(rankings[-1])
        lines.extend(it["sentence"] for it in mine)
    return {
        "lines": [x for x in lines if x],
        "rankings": [x for x in rankings if x],
        "resolved": [it["sentence"] for it in items if it["pooled"]["value"].resolved],
        "rungs": bool(rungs),
        "characters": any(it["kind"].startswith("characters.play.") for it in items),
        **restricted_table(items),
    }


def _level_text(x: dict | None, unit: str) -> str:
    """An experience measure's level: ``1.84 [1.79, 1.90]``, a share in %, or a rate with its Wilson interval."""
    if x is None:
        return "–"
    if "k" in x:
        return f"{_pct(x['rate'])} [{_pct(x['low'])}, {_pct(x['high'])}] (n {x['n']:,})"
    if unit == "pp":
        return f"{_pct(x['mean'])} [{_pct(x['low'])}, {_pct(x['high'])}]"
    return f"{_num(x['mean'], 2)} [{_num(x['low'], 2)}, {_num(x['high'], 2)}]"


def _experience_rows(inp: ReportInput, st: dict) -> list[dict]:
    """One row per arm and player count: game length and the experience measures (:data:`arms.EXPERIENCE`)."""
    from kbsim.analysis.arms import EXPERIENCE

    rows = []
    for c, p, g in _cells(inp, st):
        x = g.get("experience") or {}
        if not any(x.values()):
            continue
        rows.append(
            {
                "arm": c.label,
                "players": p,
                "games": f"{g['n']:,}",
                "turns": f"{_num(g['turns']['median'], 0)} / {_num(g['turns']['p95'], 0)}",
                **{m: _level_text(x.get(m), unit) for m, _, unit in EXPERIENCE},
            }
        )
    return rows


def _players_list(ps: list[int]) -> str:
    return (", ".join(str(p) for p in ps[:-1]) + " and " + str(ps[-1]) if len(ps) > 1 else str(ps[0])) + " players"


def _unshared(key: str, st: dict | None) -> str:
    """A sentence when arm ``key`` shares no deal with the arm it is compared with (its differences are the deals')."""
    mine = [d for d in (st or {}).get("deltas", []) if key in (d["b"], d["a"])]
    if mine and not any(d["delta"].paired for d in mine):
        return (
            " Its games were played on other deals than the arm it is compared with (the records share no deal): "
            "the differences shown come from the deals, not from the rule."
        )
    return ""


def unused_text(inp: ReportInput, key: str, st: dict | None = None) -> str:
    """The warning for arm ``key``, whose rule the games never used: why, and how to fix the study.

    On a skill ladder the warning is about one rung (``key`` is the arm at that rung): it names the rung, the
    games played there, and what the arm's other rungs did with the rule (used some number of times, so their
    effects measure it).
    """
    return _unused_words(inp, key, st) + _other_rungs(inp, key, st) + _unshared(key, st)


def _arm_name(c) -> str:
    """``arm 'LABEL'``, or ``arm 'LABEL' with RUNG`` for an arm at a rung of a skill ladder (label without the rung)."""
    rung = getattr(c, "rung", None)
    if not rung:
        return f"arm {c.label!r}"
    suffix = f" · {rung}"
    label = c.label[: -len(suffix)] if c.label.endswith(suffix) else c.label
    return f"arm {label!r} with {rung}"


def usage_phrase(st: dict, key: str, rung: str | None) -> str:
    """What the games of arm ``key`` did with the rule(s) that tell it from its baseline, in a few words.

    ``with RUNG its rule X was never used in N games`` / ``with RUNG it was used K times in N games`` (``rung``
    None: without ``with``); ``with RUNG it played exactly like its baseline on every deal`` for an arm that
    measured nothing without rule-usage counts; "" when the records say nothing about it.

    Args:
        st: the page's statistics (:func:`kbsim.analysis.arms.compute`: ``rule_usage``, ``unused``).
        key: the arm (condition key) at one rung.
        rung: the rung's bot, named in the words.
    """
    with_r = f"with {rung} " if rung else ""
    u = st.get("rule_usage", {}).get(key)
    if not u:
        return f"{with_r}it played exactly like its baseline on every deal" if key in st.get("unused", []) else ""
    n = u.get("games")
    games = f" in {n:,} game{'s' if n != 1 else ''}" if n is not None else ""
    if len(u["never"]) == len(u["uses"]):
        rules = ", ".join(u["never"])
        return f"{with_r}its rule{'s' if len(u['never']) > 1 else ''} {rules} {_were(u['never'])} never used{games}"
    used = {k: v for k, v in u["uses"].items() if v}
    if len(u["uses"]) == 1:
        times = next(iter(used.values()))
        return f"{with_r}it was used {times:,} time{'s' if times != 1 else ''}{games}"
    counts = ", ".join([f"{k} {v:,}×" for k, v in used.items()] + [f"{k} never" for k in u["never"]])
    return f"{with_r}its rules were used {counts}{games}"


def _were(items: list) -> str:
    return "were" if len(items) > 1 else "was"


def _other_rungs(inp: ReportInput, key: str, st: dict | None) -> str:
    """For an arm at a rung of a skill ladder: what its other rungs did with the rule ("" off a ladder)."""
    c = next(x for x in inp.conditions if x.key == key)
    if not getattr(c, "rung", None) or not st:
        return ""
    others = [
        o
        for o in inp.conditions
        if o.key != key
        and getattr(o, "rung", None)
        and getattr(o, "arm_key", None) == c.arm_key
        and o.key not in st.get("unused", [])
    ]
    said = [p for o in others if (p := usage_phrase(st, o.key, o.rung))]
    if not said:
        return ""
    there = "that rung" if len(said) == 1 else "those rungs"
    return f" This holds with {c.rung} only: {'; '.join(said)}, so the effects at {there} measure it."


def _unused_words(inp: ReportInput, key: str, st: dict | None = None) -> str:
    c = next(x for x in inp.conditions if x.key == key)
    rules = (st or {}).get("unused_rules", {}).get(key)
    rung = getattr(c, "rung", None)
    name = _arm_name(c)
    if rules:
        chances = (st or {}).get("rule_chances", {}).get(key, {})
        counted = [r for r in rules if r in chances]
        legal = sum(chances[r] for r in counted)
        games = (st or {}).get("rule_usage", {}).get(key, {}).get("games") if rung else None
        text = (
            f"{name}: no game{f' of its {games:,}' if games else ''} used its rule(s) {', '.join(rules)} (rule usage "
            f"counted in the records), so it measured nothing about them{' with this bot' if rung else ''}."
        )
        if counted and legal == 0:
            return text + (
                " The position where the rule applies never arose at the start of a turn in its games: these "
                "bots never met it (a stronger or different bot may still reach it)."
            )
        if counted:
            bots = str(c.bots)
            if "search" in bots:
                why = (
                    ": the search bot, which plays each option several turns ahead on sampled deals, never found it "
                    "worth playing, so for players of its strength this rule changes nothing."
                )
            elif "planner" in bots:
                why = (
                    ": the planner never found it lays more cards that turn, so for a player maximising the cards "
                    "laid each turn this rule changes nothing. Whether it pays over several turns, the search bot "
                    '(bots = "search"), which plays turns ahead, can tell.'
                )
            else:
                why = (
                    '. Fix: give the arm (or the study) a bot that weighs the rule, e.g. bots = "planner" or "search".'
                )
            return (
                text
                + f" Such a move was legal at the start of {legal:,} turn(s), and the bots ({bots}) never chose it"
                + why
            )
        return text + (
            f" Its bots ({c.bots}) never used what tells this arm from its baseline. Fix: give the arm (or the "
            f"study) a bot that uses the rule, e.g. {_stronger(str(c.bots))}."
        )
    return (
        f"{name} played exactly like its baseline on every deal at every player count: its bots "
        f"({c.bots}) never made a move its rules change, so it measured nothing. Fix: give the arm (or the "
        f"study) a bot that uses the rule, e.g. {_stronger(str(c.bots))}."
    )


def _stronger(bots: str) -> str:
    """A bot stronger than those of ``bots`` (a lineup's text), as a study file names it, for a warning's fix."""
    if "search" in bots:
        return 'more playouts, bots = "search(iterations=1024)", or more deals'
    if "planner" in bots:
        return 'bots = "search" (it plays each option several turns ahead)'
    return 'bots = "planner" or "search"'


def _gap_text(g: dict) -> str:
    if math.isnan(g["gap"]):
        return "–"
    return f"seat {g['seat']}: {100 * g['gap']:+.1f} pp [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]"


def _seat_test_text(t: dict) -> str:
    if t["test"] == "none":
        return "–"
    return f"{t['test']}: {M.fmt_p(t['p'])} (n {t['n']:,})"


def text_summary(inp: ReportInput, st: dict, answer: dict | None = None) -> list[str]:
    """A short plain-text summary of the page (for the terminal).

    Args:
        inp: the report input.
        st: its statistics.
        answer: the page's Answer (:func:`kbsim.analysis.answer.answer_data`), printed first, one line per block.

    Returns:
        Lines: warnings, the Answer, one line per arm and player count, the verdicts, then the first-player, turn
        and seat-gap differences.
    """
    labels = {c.key: c.label for c in inp.conditions}
    rungs = {c.key: getattr(c, "rung", None) for c in inp.conditions}
    lines = [f"WARNING: {unused_text(inp, k, st)}" for k in st.get("unused", [])]
    for block in (answer or {}).get("blocks", []):
        said = " ".join(block.get("lines", [])) or block.get("headline", "")
        if said:  # (a block that is only a table, e.g. fairness at one player count, says it in its headline)
            lines.append(f"ANSWER, {block['title']}: {said}")
    for c, p, g in _cells(inp, st):
        s0 = g["seats"][g["first"]]
        lines.append(
            f"{c.label}, {p} players: {g['n']:,} games; seat {g['first']} (plays first) wins alone "
            f"{_pct(s0['rate'])} "
            f"[{_pct(s0['low'])}, {_pct(s0['high'])}] (fair {_pct(1 / p)}); shared wins "
            f"{_pct(g['shared']['rate'], 2)}; stalemate {_pct(g['stalemate']['rate'], 2)}; turn limit "
            f"{_pct(g['turn_limit']['rate'], 2)}; turns mean {_num(g['turns']['mean'])}, median "
            f"{_num(g['turns']['median'], 0)}"
        )
    if st.get("verdicts"):
        against = _gap_against(st, labels)
        lines.append(
            "distance from fair (largest gap between a seat's share of the games won alone and 1/P; "
            "rank 1 = closest to fair at that player count, by the point estimate; only the differences marked "
            "resolved tell two arms apart):"
        )
        for v in st["verdicts"]:
            lines.append(
                f"  {v['players']} players, #{v['rank'] or '–'} {labels[v['condition']]}: "
                f"{v['verdict']['text']}; seat equality {_seat_test_text(v['test'])}"
                + (f"; {against[key]}" if (key := (v["condition"], v["players"])) in against else "")
            )
    adj = st.get("adjustment")
    if adj and st.get("deltas") and not adj["resolved"]:
        lines.append(
            "NOTE: nothing on this page is resolved after the adjustment: differences, ranks and verdicts are "
            "within the noise of this many deals (see 'deals needed' per difference; run with more deals)"
            if adj["comparisons"]
            else "NOTE: no difference on this page could be tested (identical on every deal, or too few differing "
            "deals): ranks and verdicts do not tell the arms apart"
        )
    if adj and adj["comparisons"]:
        lines.append(
            f"{adj['comparisons']} differences tested on this page: {adj['resolved']} resolved after "
            f"{adj['method']}'s adjustment ({adj['resolved_raw']} before)"
            + (
                f"; {adj['untestable']} left out of the adjustment (identical on every deal, or too few differing "
                "deals ever to reach p < 0.05)"
                if adj.get("untestable")
                else ""
            )
            + (f"; {adj['unpaired']} compared as independent samples (no common deals)" if adj["unpaired"] else "")
        )
    shown = [d for d in st["deltas"] if d["metric"] in ("seat_gap", "seat0", "turns")]
    if shown:
        lines.append("differences B − A (paired on the same deals unless marked independent samples):")
    for d in shown:
        v, interval, status = delta_text(d, unused=idle(st, d["b"], d["a"]), rung=rungs.get(d["b"]))
        lines.append(
            f"  {labels[d['b']]} − {labels[d['a']]}, {d['players']} players, {d['label']}: {v} {interval} "
            f"(n {d['delta'].n:,}): {status}"
        )
    return lines
