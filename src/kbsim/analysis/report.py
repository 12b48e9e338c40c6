"""The balance report page: one self-contained HTML page from a :class:`~kbsim.analysis.reading.ReportInput`.

The work is split by job: reading (:mod:`kbsim.analysis.reading`), statistics
(:mod:`kbsim.analysis.metrics`), figures (:mod:`kbsim.analysis.figures`), tables
and text (:mod:`kbsim.analysis.tables`); this module renders and writes the page.

Input is a :class:`~kbsim.analysis.reading.ReportInput`: records (one polars DataFrame, a ``condition``
column naming the arm of each game) plus what the page shows about them
(conditions with their rules options and bots, the comparisons to make, the
study's parameters). :func:`kbsim.analysis.reading.study_input` builds it for a
study, :func:`~kbsim.analysis.reading.compare_input` for a list of records files.

What is computed (every rate with its 95% Wilson interval and its n):

* per arm and player count: sole wins by seat, shared wins and games without a
  winner shown apart (a tie is never a seat's win; the three add up to 100%),
  end by a win, stalemate or the turn limit, turns (mean with interval,
  quartiles, 5th/95th percentiles) and their distribution;
* paired differences against the baseline arm on the same deals
  (:mod:`kbsim.analysis.metrics`): first-player sole-win rate, turns, stalemate,
  turn-limit and shared-win rates. The unit is the deal: when an arm plays a
  mixed bot lineup in several seat rotations, its outcome on a deal is the mean
  over the rotations. An interval that contains 0 is marked *not resolved*, with
  the number of deals that would resolve the observed effect;
* a sweep (one option over values) drawn as lines with intervals per player count;
* for mixed bot lineups: each bot's share of the sole wins against its fair share;
* for the complete game, when the records have ``character_plays``
  (:mod:`kbsim.analysis.characters`): plays per character and the win-rate lift.

The page is rendered from ``templates/report.html.j2`` (jinja2, autoescaped, so
every user-supplied name is escaped) with plotly.js embedded once; figure data
is JSON in ``<script type="application/json">`` blocks with ``<``, ``>`` and ``&``
escaped, drawn by one small script. It needs no network.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbsim.analysis.arms import compute
from kbsim.analysis.reading import ReportError, ReportInput
from kbsim.analysis.seats import starts_text
from kbsim.analysis.sections import build_page, section_tests
from kbsim.analysis.tables import text_summary
from kbsim.sim.conditions import Condition


# ------------------------------------------------------------------ page
def _clean(v: Any) -> Any:
    """Replace NaN by None, recursively (strict JSON)."""
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    return v


@dataclass
class ReportResult:
    """A written report page.

    Attributes:
        path: the HTML file.
        size: its size in bytes.
        seconds: time to compute and render it (records already in memory).
        figures: number of figures.
        summary: plain-text summary lines (:func:`text_summary`).
        stats: the statistics (:func:`compute`).
        conditions: the arms, in page order (their keys, labels and bots).
    """

    path: Path
    size: int
    seconds: float
    figures: int
    summary: list[str]
    stats: dict
    conditions: list[Condition] = field(default_factory=list)

    def as_json(self) -> dict:
        """JSON-able summary of the result (paths, sizes, per-group rates and deltas).

        Rule usage is per condition, so per arm and rung of a skill ladder (``conditions`` give each key's ``arm``
        and ``rung``, None off a ladder): ``unused_arms`` (condition keys that measured nothing), ``unused_rules``
        (condition key -> the rules its games never used) and ``rule_usage`` (one entry per condition with rules
        that tell it from its baseline: ``condition``, ``baseline``, ``rung``, ``games``, ``uses`` rule -> moves,
        ``never``).
        """
        groups = []
        for (cond, p), g in self.stats["groups"].items():
            groups.append(
                {
                    "condition": cond,
                    "players": p,
                    "games": g["n"],
                    "seat_win": _clean(g["seats"]),
                    "seat_test": _clean(g["balance"]["test"]),
                    "shared": g["shared"],
                    "stalemate": g["stalemate"],
                    "turn_limit": g["turn_limit"],
                    "turns": g["turns"],
                }
            )
        deltas = [
            {"b": d["b"], "a": d["a"], "players": d["players"], "metric": d["metric"], **d["delta"].as_dict()}
            for d in self.stats["deltas"]
        ]
        verdicts = [
            {
                "condition": v["condition"],
                "players": v["players"],
                "rank": v["rank"],
                "fair": v["verdict"]["fair"],
                "games_won_alone": v["verdict"]["decided"],
                "largest_gap": _clean(v["verdict"]["largest"]),
                "first_player": _clean(v["verdict"]["first"]),
                "text": v["verdict"]["text"],
                "seat_test": _clean(v["test"]),
            }
            for v in self.stats["verdicts"]
        ]
        conditions = [
            {"condition": c.key, "label": c.label, "bots": c.bots, "arm": c.arm, "rung": c.rung}
            for c in self.conditions
        ]
        rule_usage = [  # per arm and rung: the uses of the rules that tell the arm from its baseline
            {"condition": k, **u} for k, u in self.stats.get("rule_usage", {}).items()
        ]
        restricted = [  # restricted play: what each barred move kind is worth to a player (pooled and per count)
            {
                "condition": it["condition"],
                "baseline": it["baseline"],
                "kind": it["kind"],
                "subject": it["subject"],
                "rung": it["rung"],
                "sentence": it["sentence"],
                "value": [
                    {"players": r["players"], "games": r["games"], **r["value"].as_dict()}
                    for r in [it["pooled"], *(it["by_players"] if len(it["by_players"]) > 1 else [])]
                ],
            }
            for it in self.stats.get("restricted", [])
        ]
        return {
            "html": str(self.path),
            "bytes": self.size,
            "seconds": self.seconds,
            "figures": self.figures,
            "conditions": conditions,
            "groups": groups,
            "verdicts": verdicts,
            "adjustment": self.stats["adjustment"],
            "unused_arms": self.stats["unused"],
            "unused_rules": self.stats.get("unused_rules", {}),
            "rule_usage": rule_usage,
            "deltas": deltas,
            "restricted": _clean(restricted),
        }


def _kbsim_version() -> str:
    """The installed kbsim version (read from the package metadata: the analysis never imports the engine)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kbsim")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "unknown"


def page_environment(*packages: str) -> Any:
    """The jinja2 environment of kbsim's pages: autoescaped, strict, templates of ``packages`` then the analysis's.

    Args:
        packages: packages with a ``templates`` folder searched first (e.g. ``kbsim.tune``); the analysis's
            templates (the report page, and the partials every page includes: ``_style.html.j2``,
            ``_figures.html.j2``) come last.
    """
    import jinja2

    loaders = [jinja2.PackageLoader(p, "templates") for p in (*packages, "kbsim.analysis")]
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def write_html(page: str, path: Path) -> int:
    """Write a page atomically (a temporary file in the same folder, then a rename); its folder is created.

    Returns:
        The file's size in bytes.

    Raises:
        ReportError: the file cannot be written (nothing is left behind).
    """
    import os
    import tempfile

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise ReportError(f"{path}: cannot write the page: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        raise ReportError(f"{path}: cannot write the page: {e.strerror or e}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)  # nothing left behind on an error (after a replace it is gone)
    return path.stat().st_size


def generated_time() -> _dt.datetime:
    """When the page is rendered: now, or ``SOURCE_DATE_EPOCH`` (seconds) when set, for byte-identical pages.

    The one thing on a page that is not a function of its records; the reproducible-builds convention lets a
    build or a test pin it.
    """
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return _dt.datetime.fromtimestamp(int(epoch), _dt.UTC)
    return _dt.datetime.now(_dt.UTC)


def render_html(inp: ReportInput, st: dict) -> tuple[str, int, dict]:
    """Render the page: the Answer, then every section (:mod:`kbsim.analysis.sections`), plotly.js embedded once.

    Args:
        inp: report input.
        st: statistics from :func:`compute` (with the sections' comparisons).

    Returns:
        The complete HTML document, the number of figures on it, and the Answer's data.
    """
    from plotly.offline import get_plotlyjs

    page, shown, answer = build_page(inp, st)
    ctx = {
        "title": inp.title,
        "question": inp.question,
        "source": inp.source,
        "version": _kbsim_version(),
        "generated": generated_time().strftime("%Y-%m-%d %H:%M UTC"),
        "versions": inp.versions,
        "games": st["games"],
        "page": page,
        "shown": shown,
        "answer": answer,
        "starts": starts_text(inp.seats),
        "fmt": lambda v: json.dumps(v) if not isinstance(v, str) else v,
        "plotly_js": get_plotlyjs(),
    }
    figures = len(page.data.get("figures", {}).get("figures", []))
    return page_environment().get_template("report.html.j2").render(**ctx), figures, answer


def write_report(inp: ReportInput, path: Path, stats: dict | None = None) -> ReportResult:
    """Compute, render and write the report page atomically.

    Args:
        inp: report input.
        path: the HTML file to write (its folder is created).
        stats: the page's statistics when already computed (e.g. by
            :func:`kbsim.analysis.sequential.run_until_decided`); default: :func:`compute` of ``inp``.

    Returns:
        :class:`ReportResult`.

    Raises:
        ReportError: nothing to report, or the file cannot be written.
    """
    t0 = time.perf_counter()
    st = compute(inp, section_tests()) if stats is None else stats
    page, figures, answer = render_html(inp, st)
    path = Path(path)
    size = write_html(page, path)
    seconds = time.perf_counter() - t0
    return ReportResult(
        path=path,
        size=size,
        seconds=seconds,
        figures=figures,
        summary=text_summary(inp, st, answer),
        stats=st,
        conditions=list(inp.conditions),
    )
