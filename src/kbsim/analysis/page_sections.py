"""The built-in sections of the report page, in page order (see :mod:`kbsim.analysis.sections`).

Each is a :class:`~kbsim.analysis.sections.Section`: a ``build`` function from the page's statistics to a small
data structure, a template block ``templates/sections/<id>.html.j2``, and optionally the comparisons it adds to
the page's family of tests and the blocks it adds to the Answer.
"""

from __future__ import annotations

from kbsim.analysis import metrics as M
from kbsim.analysis.effects import effects_answer, effects_build, effects_tests, skill_answer
from kbsim.analysis.fairness import fairness_answer
from kbsim.analysis.page import Page, Section
from kbsim.analysis.restricted import restricted_tests
from kbsim.analysis.strength import strength_answer, strength_tests
from kbsim.analysis.tables import report_tables


def tables(page: Page) -> dict:
    """The page's tables (:func:`kbsim.analysis.tables.report_tables`), made once per page."""
    if "_tables" not in page.data:
        page.data["_tables"] = report_tables(page.inp, page.stats)
    return page.data["_tables"]


def _by_players(rows: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for r in rows:
        out.setdefault(int(r["players"]), []).append(r)
    return out


# ------------------------------------------------------------------ per player count
def _summary(page: Page) -> dict:
    rows = tables(page)["summary"]
    return {"rows": _by_players(rows), "count": len(rows)}


def _verdict(page: Page) -> dict | None:
    rows = tables(page)["verdicts"]
    if not rows:
        return None
    return {"rows": _by_players(rows), "count": len(rows)}


def _deltas(page: Page) -> dict | None:
    t = tables(page)
    if not t["deltas"]:
        return None
    return {
        "rows": _by_players(t["deltas"]),
        "count": len(t["deltas"]),
        "metrics": t["metrics"],
        "adjustment": page.stats["adjustment"],
        "exact_below": M.EXACT_BELOW,
        "min_discordant": M.MIN_DISCORDANT,
    }


def _effects_answer(page: Page, data: dict) -> list[dict]:
    return effects_answer(page, data) + skill_answer(page)


# ------------------------------------------------------------------ how the games feel, what each move is worth
def _experience(page: Page) -> dict | None:
    t = tables(page)
    rows = t["experience"]
    if not rows:
        return None
    return {"rows": _by_players(rows), "count": len(rows), "missing": t["experience_missing"]}


def _restricted(page: Page) -> dict | None:
    data = tables(page)["restricted"]
    return None if data is None else data | {"adjustment": page.stats["adjustment"]}


def _restricted_answer(page: Page, data: dict) -> list[dict]:
    """The Answer's block of restricted play: the ranking (per rung) first, then the values that are resolved.

    The headline gives the ranking at every rung of the ladder, weakest first (each sentence names its bot): a
    ranking that changes with skill is the answer a designer needs, not the weakest bot's alone.
    """
    rankings = data["rankings"]
    if not rankings:
        return []
    resolved = data["resolved"] or [
        "No value is resolved yet after the adjustment over every comparison on the page: more deals are needed."
    ]
    return [
        {
            "title": "What each move is worth to a player",
            "headline": " ".join(rankings),
            "lines": [*rankings, *resolved],
        }
    ]


# ------------------------------------------------------------------ bots and characters
def _bots(page: Page) -> dict | None:
    rows = tables(page)["bots"]
    return {"rows": rows} if rows else None


def _characters(page: Page) -> dict | None:
    return tables(page)["characters"]


# ------------------------------------------------------------------ figures, parameters, notes
def _figures(page: Page) -> dict | None:
    from kbsim.analysis.figures import build_figures

    figures = build_figures(page.inp, page.stats)
    return {"figures": figures} if figures else None


def _parameters(page: Page) -> dict:
    import json

    inp = page.inp
    option_names = sorted({k for c in inp.conditions for k in c.effective})
    differing = [
        k for k in option_names if len({json.dumps(c.effective.get(k), sort_keys=True) for c in inp.conditions}) > 1
    ]
    return {
        "parameters": inp.parameters,
        "conditions": inp.conditions,
        "option_names": option_names,
        "differing": differing,
    }


def _notes(page: Page) -> dict:
    from kbsim.analysis.pairing import pairing_notes

    ladder = ""
    if page.ladder:
        mixed = page.stats.get("head_to_head", [])
        ladder = (
            f"Every arm whose lineup is one bot is played once per rung of the ladder ({' < '.join(page.ladder)}, "
            "weakest first), the rung's bot in every seat, on the same deals. Each effect is given per rung; "
            "whether it depends on skill is the arm × rung interaction (the effect at a rung minus the effect at "
            "the first rung, deal by deal), tested in the same Holm family as every other comparison. "
            + (
                "Head-to-head arms (a mixed lineup) are played as written: their lineup is what they measure."
                if mixed
                else ""
            )
        )
    return {
        "adjustment": page.stats["adjustment"],
        "has_characters": bool(page.stats["characters"]),
        "pairing": pairing_notes(page.inp, page.labels),
        "ladder": ladder,
    }


BUILTIN: list[Section] = [
    Section("summary", "Summary per player count", build=_summary),
    Section("experience", "How the games feel", build=_experience),
    Section("verdict", "Distance from fair", build=_verdict, answer=fairness_answer),
    Section(
        "restricted",
        "What each move is worth to a player",
        build=_restricted,
        tests=restricted_tests,
        answer=_restricted_answer,
    ),
    Section(
        "effects",
        "Effects across player counts and bots",
        build=effects_build,
        tests=effects_tests,
        answer=_effects_answer,
    ),
    Section("deltas", "Differences between arms", build=_deltas),
    Section("bots", "Bots", build=_bots, tests=strength_tests, answer=strength_answer),
    Section("characters", "Characters", build=_characters),
    Section("figures", "Figures", build=_figures),
    Section("parameters", "Parameters, arms and rules", build=_parameters),
    Section("notes", "Notes", build=_notes),
]
"""The built-in sections in page order (the Answer comes first, before all of them)."""

__all__ = ["BUILTIN", "tables"]
