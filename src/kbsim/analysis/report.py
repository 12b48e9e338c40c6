"""The balance report: statistics over records of several arms, plotly figures, one self-contained HTML page.

Input is a :class:`ReportInput`: records (one polars DataFrame, a ``condition``
column naming the arm of each game) plus what the page shows about them
(conditions with their rules options and bots, the comparisons to make, the
study's parameters). :func:`kbsim.analysis.study.report_input` builds it for a
study, :func:`compare_input` for a list of records files.

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
import html
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from kbsim.analysis import metrics as M
from kbsim.analysis.metrics import Z95, Delta

NEEDED_COLUMNS = ["game_index", "seed", "players", "bots", "winners", "end_reason", "turns"]
OPTIONAL_COLUMNS = ["character_plays", "rule_usage"]
# (column, label, unit): per-game outcomes compared deal by deal; the 0/1 ones are BINARY
BINARY = frozenset({"seat0", "stalemate", "turn_limit", "shared"})
METRICS = [
    ("seat0", "first-player sole-win rate", "pp"),
    ("turns", "turns per game", "turns"),
    ("stalemate", "stalemate rate", "pp"),
    ("turn_limit", "turn-limit rate", "pp"),
    ("shared", "shared-win rate", "pp"),
]
FIGURE_METRICS = ("seat0", "turns", "stalemate")


class ReportError(Exception):
    """Records that cannot be reported: missing file, not kbsim records, missing columns, nothing to show."""


@dataclass(frozen=True)
class Condition:
    """One arm (and sweep value) of a report.

    Attributes:
        key: unique, file-name-safe identifier; the ``condition`` column of the records holds it.
        label: the name shown on the page (user text; always escaped when shown).
        arm: the arm's name.
        summary: what the arm is.
        variants: variants applied, in order.
        options: options set by the arm (and the sweep), as written.
        changed: effective options that differ from the rule file's defaults.
        effective: every option's effective value.
        bots: the bot or bot lineup as written (``greedy`` or ``greedy,random``).
        sweep_value: the swept option's value, or None.
    """

    key: str
    label: str
    arm: str
    summary: str = ""
    variants: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    changed: dict = field(default_factory=dict)
    effective: dict = field(default_factory=dict)
    bots: str = "greedy"
    sweep_value: Any = None


@dataclass(frozen=True)
class SweepInfo:
    """A swept option: its values in order, the baseline value, and the condition key per (arm, value).

    ``keys`` maps ``(arm name, json.dumps(value, sort_keys=True))`` to a condition key.
    """

    option: str
    values: list
    baseline: Any
    arms: list[str]
    keys: dict


@dataclass
class ReportInput:
    """Everything a report page shows.

    Attributes:
        title: page heading.
        name: short name (used for the default file name).
        question: the question the study answers (may be empty).
        source: study file or records files the page was built from.
        parameters: (label, value) rows of the parameters table.
        conditions: the arms, in display order; the first comparison's base is the baseline.
        comparisons: (condition key B, condition key A) pairs; deltas are B - A on common deals.
        sweep: the sweep, if any.
        records: polars DataFrame of records (:data:`NEEDED_COLUMNS`, optional
            :data:`OPTIONAL_COLUMNS`) plus ``condition`` (a condition key).
        versions: kbsim versions that wrote the records.
        names: display names of keys held by the records, from their metadata
            (``{"characters": {"den": "Sheriff Den"}}``); a key without a name is shown as is.
    """

    title: str
    name: str
    question: str
    source: str
    parameters: list[tuple[str, str]]
    conditions: list[Condition]
    comparisons: list[tuple[str, str]]
    sweep: SweepInfo | None
    records: pl.DataFrame
    versions: list[str] = field(default_factory=list)
    names: dict = field(default_factory=dict)


# ------------------------------------------------------------------ records
def read_records(items: Sequence[tuple[Path, str]]) -> pl.DataFrame:
    """Read records files, tagging each with a condition key.

    Args:
        items: (Parquet path, condition key) pairs.

    Returns:
        One DataFrame: :data:`NEEDED_COLUMNS`, any :data:`OPTIONAL_COLUMNS` present, and ``condition``.

    Raises:
        ReportError: a file is unreadable or lacks a needed column.
    """
    import pyarrow.parquet as pq

    frames = []
    for path, key in items:
        try:
            names = pq.read_schema(path).names
        except Exception as e:  # missing file, not Parquet
            raise ReportError(f"{path}: cannot read records: {e}") from None
        missing = [c for c in NEEDED_COLUMNS if c not in names]
        if missing:
            raise ReportError(f"{path}: not kbsim records (missing columns: {', '.join(missing)})")
        cols = NEEDED_COLUMNS + [c for c in OPTIONAL_COLUMNS if c in names]
        frames.append(pl.read_parquet(path, columns=cols).with_columns(condition=pl.lit(key)))
    if not frames:
        raise ReportError("no records to report")
    return pl.concat(frames, how="diagonal_relaxed")


def _prepare(df: pl.DataFrame) -> pl.DataFrame:
    nwin = pl.col("winners").list.len()
    sole = pl.when(nwin == 1).then(pl.col("winners").list.first().cast(pl.Int16)).otherwise(None)
    return df.with_columns(
        players=pl.col("players").cast(pl.Int64),
        nwin=nwin,
        sole=sole,
        lineup=pl.col("bots").list.join(","),
    ).with_columns(
        seat0=(pl.col("sole") == 0).fill_null(False).cast(pl.Float64),
        shared=(pl.col("nwin") > 1).cast(pl.Float64),
        stalemate=(pl.col("end_reason") == "stalemate").cast(pl.Float64),
        turn_limit=(pl.col("end_reason") == "turn_limit").cast(pl.Float64),
        won=(pl.col("end_reason") == "won").cast(pl.Float64),
        turns=pl.col("turns").cast(pl.Float64),
    )


# ------------------------------------------------------------------ statistics
_rate = M.rate


def compute(inp: ReportInput) -> dict:
    """All statistics of the page.

    Args:
        inp: the report input.

    Returns:
        A dict with ``groups`` (per condition key and player count: ``n`` games, ``deals``,
        ``seats`` (per seat a rate dict), ``shared``, ``no_winner``, ``won``, ``stalemate``,
        ``turn_limit`` (rate dicts: ``k, n, rate, low, high``), ``turns`` (mean, low, high, sd,
        p5, q1, median, q3, p95)), ``hist`` (turn histograms), ``deltas`` (one dict per
        comparison, player count and metric), ``bots`` (bot shares in mixed lineups),
        ``characters`` (None, or plays and lift tables as lists of dicts), ``players`` and ``games``.

    Raises:
        ReportError: no records, or records of a condition the input does not declare.
    """
    df = _prepare(inp.records)
    if df.height == 0:
        raise ReportError("no records to report")
    known = {c.key for c in inp.conditions}
    unknown = set(df["condition"].unique().to_list()) - known
    if unknown:
        raise ReportError(f"records of undeclared conditions: {', '.join(sorted(unknown))}")
    players = sorted(df["players"].unique().to_list())
    agg = df.group_by("condition", "players").agg(
        n=pl.len(), deals=pl.col("seed").n_unique(),
        shared=pl.col("shared").sum(), no_winner=(pl.col("nwin") == 0).sum(), won=pl.col("won").sum(),
        stalemate=pl.col("stalemate").sum(), turn_limit=pl.col("turn_limit").sum(),
        t_mean=pl.col("turns").mean(), t_sd=pl.col("turns").std(),
        p5=pl.col("turns").quantile(0.05, "linear"), q1=pl.col("turns").quantile(0.25, "linear"),
        median=pl.col("turns").median(), q3=pl.col("turns").quantile(0.75, "linear"),
        p95=pl.col("turns").quantile(0.95, "linear"), t_max=pl.col("turns").max(),
    )
    seat_wins = {(r["condition"], r["players"], r["sole"]): r["len"]
                 for r in df.filter(pl.col("sole").is_not_null()).group_by("condition", "players", "sole").len()
                 .iter_rows(named=True)}
    groups: dict[tuple[str, int], dict] = {}
    for r in agg.iter_rows(named=True):
        n, p = r["n"], r["players"]
        sd = r["t_sd"] if r["t_sd"] is not None else float("nan")
        half = Z95 * sd / math.sqrt(n) if n > 1 and not math.isnan(sd) else float("nan")
        groups[(r["condition"], p)] = {
            "n": n, "deals": r["deals"],
            "seats": [_rate(seat_wins.get((r["condition"], p, s), 0), n) for s in range(p)],
            "balance": M.seat_balance([seat_wins.get((r["condition"], p, s), 0) for s in range(p)], n),
            "shared": _rate(r["shared"], n), "no_winner": _rate(r["no_winner"], n), "won": _rate(r["won"], n),
            "stalemate": _rate(r["stalemate"], n), "turn_limit": _rate(r["turn_limit"], n),
            "turns": {"mean": r["t_mean"], "low": r["t_mean"] - half, "high": r["t_mean"] + half, "sd": sd,
                      "p5": r["p5"], "q1": r["q1"], "median": r["median"], "q3": r["q3"], "p95": r["p95"],
                      "max": r["t_max"]},
        }
    order = {c.key: i for i, c in enumerate(inp.conditions)}
    cells = [{"condition": k, "arm": k, "players": p, "verdict": g["balance"]["verdict"], "test": g["balance"]["test"]}
             for (k, p), g in sorted(groups.items(), key=lambda kv: (kv[0][1], order.get(kv[0][0], 0)))]
    deltas = _deltas(df, inp.comparisons)
    unused_rules = _unused_rules(inp, df)
    return {"unused": sorted(set(_unused_arms(deltas)) | set(unused_rules),
                             key=lambda k: next((i for i, c in enumerate(inp.conditions) if c.key == k), 0)),
            "unused_rules": unused_rules, "players": players,
            "games": df.height, "groups": groups, "hist": _histograms(df, players),
            "deltas": deltas, "bots": _bot_shares(df), "characters": _characters(inp),
            "verdicts": M.rank_verdicts(cells), "adjustment": _adjustment_counts(deltas)}


def _unused_arms(deltas: list[dict]) -> list[str]:
    """Condition keys B whose every paired difference with their baseline is 0 on every deal (all metrics, all
    player counts): the bots never made a move that the arm's rules change, so the arm measured nothing."""
    by_b: dict[str, list[Delta]] = {}
    for d in deltas:
        by_b.setdefault(d["b"], []).append(d["delta"])
    return [b for b, ds in by_b.items() if ds and all(x.identical for x in ds)]


def _rule_uses(df: pl.DataFrame, key: str) -> dict[str, int]:
    """Rule-usage counter -> total uses over the records of condition ``key`` (column ``rule_usage``)."""
    if "rule_usage" not in df.columns:
        return {}
    rows = df.filter(pl.col("condition") == key).select(pl.col("rule_usage").explode()).drop_nulls()
    if rows.height == 0:
        return {}
    u = rows.unnest("rule_usage").group_by("rule").agg(pl.col("uses").sum())
    return dict(zip(u["rule"].to_list(), u["uses"].to_list(), strict=True))


def _unused_rules(inp: ReportInput, df: pl.DataFrame) -> dict[str, list[str]]:
    """Condition key B -> the rules that tell B from its baseline A and that no game of B used.

    A rule tells B from A when B's records list its usage counter (the rules of B enable it, see
    :mod:`kbsim.engine.usage`) and A's do not. Measured, not inferred: records without the ``rule_usage``
    column give nothing here (the "identical on every deal" inference still applies).
    """
    out: dict[str, list[str]] = {}
    base_of = {b: a for b, a in inp.comparisons}
    for c in inp.conditions:
        a = base_of.get(c.key)
        if a is None or a == c.key:
            continue
        mine, theirs = _rule_uses(df, c.key), _rule_uses(df, a)
        never = sorted(k for k, v in mine.items() if k not in theirs and not v)
        if never:
            out[c.key] = never
    return out


def _adjustment_counts(deltas: list[dict]) -> dict:
    """How many differences the page tests, and how many are resolved before and after Holm's adjustment."""
    tested = [d["delta"] for d in deltas if not math.isnan(d["delta"].p)]
    return {"method": M.ADJUSTMENT_NAME, "comparisons": len(tested),
            "resolved_raw": sum(d.resolved_raw for d in tested), "resolved": sum(d.resolved for d in tested),
            "unpaired": sum(not d.paired for d in tested)}


def _histograms(df: pl.DataFrame, players: list[int]) -> dict:
    """Per player count: bin edges and per condition the share of games per bin (last bin: overflow)."""
    out = {}
    for p in players:
        sub = df.filter(pl.col("players") == p)
        lo = int(sub["turns"].min())
        top = int(math.ceil(sub["turns"].quantile(0.995, "linear")))
        width = max(1, math.ceil((top - lo + 1) / 50))
        nbins = (top - lo) // width + 1
        binned = sub.with_columns(bin=((pl.col("turns").clip(lo, lo + nbins * width - 1) - lo) // width)
                                  .cast(pl.Int64))
        counts = binned.group_by("condition", "bin").len()
        tot = sub.group_by("condition").len()
        per: dict[str, list[float]] = {}
        ntot = {r["condition"]: r["len"] for r in tot.iter_rows(named=True)}
        for r in counts.iter_rows(named=True):
            per.setdefault(r["condition"], [0.0] * nbins)[r["bin"]] = r["len"] / ntot[r["condition"]]
        overflow = bool(sub["turns"].max() > lo + nbins * width - 1)
        out[p] = {"edges": [lo + i * width for i in range(nbins)], "width": width, "share": per,
                  "overflow": overflow}
    return out


def _deltas(df: pl.DataFrame, comparisons: list[tuple[str, str]]) -> list[dict]:
    """Differences B - A per comparison, player count and metric, Holm-adjusted over all of them.

    Paired on common deals (``seed``, the unit; an arm's outcome on a deal is the mean over its seat
    rotations); when two arms share no deal at a player count, they are compared as independent samples
    (Newcombe for rates, Welch for turns) and the row says so.
    """
    if not comparisons:
        return []
    cols = [m for m, _, _ in METRICS]
    per_deal = df.group_by("condition", "players", "seed").agg([pl.col(c).mean() for c in cols])
    out = []
    for b, a in comparisons:
        B = per_deal.filter(pl.col("condition") == b).drop("condition")
        A = per_deal.filter(pl.col("condition") == a).drop("condition")
        j = B.join(A, on=["players", "seed"], suffix="_a")
        for p in sorted(set(B["players"].to_list()) | set(A["players"].to_list())):
            jp = j.filter(pl.col("players") == p)
            for c, label, unit in METRICS:
                if jp.height:
                    d = M.paired((jp[c] - jp[f"{c}_a"]).to_numpy(), binary=c in BINARY)
                else:
                    gb = df.filter((pl.col("condition") == b) & (pl.col("players") == p))[c].to_numpy()
                    ga = df.filter((pl.col("condition") == a) & (pl.col("players") == p))[c].to_numpy()
                    if c in BINARY:
                        d = M.unpaired_rate(int(gb.sum()), gb.size, int(ga.sum()), ga.size)
                    else:
                        d = M.unpaired_mean(gb, ga)
                out.append({"b": b, "a": a, "players": p, "metric": c, "label": label, "unit": unit, "delta": d})
    adjusted = M.adjust([d["delta"] for d in out])
    for d, q in zip(out, adjusted, strict=True):
        d["delta"] = q
    return out


def _bot_shares(df: pl.DataFrame) -> list[dict]:
    """For conditions with a mixed lineup: each bot's share of games won alone, against its fair share."""
    mixed = sorted({r["condition"] for r in df.select("condition", "lineup").unique().iter_rows(named=True)
                    if len(set(r["lineup"].split(","))) > 1})
    if not mixed:
        return []
    sub = df.filter(pl.col("condition").is_in(mixed)).with_columns(
        winner_bot=pl.when(pl.col("sole").is_not_null()).then(pl.col("bots").list.get(pl.col("sole").cast(pl.Int64),
                                                                                       null_on_oob=True))
        .otherwise(None))
    out = []
    for (cond, p), g in sorted(sub.group_by("condition", "players"), key=lambda kv: (kv[0][0], kv[0][1])):
        n = g.height
        lineup = g["bots"][0].to_list()
        wins = {r["winner_bot"]: r["len"] for r in g.group_by("winner_bot").len().iter_rows(named=True)}
        for bot in sorted(set(lineup)):
            out.append({"condition": cond, "players": p, "bot": bot, "seats": lineup.count(bot),
                        "fair": lineup.count(bot) / p, **_rate(wins.get(bot, 0), n)})
    return out


def _characters(inp: ReportInput) -> dict | None:
    """Character tables with display names, and a ranking for the first arm (in page order) with plays.

    Returns None without character data; else ``plays`` and ``lift`` (lists of dicts with ``name``),
    ``base`` (the ranked arm's condition key) and ``ranking``: per player count, the ranked arm's characters
    sorted by lift (largest first), each with plays per game, lift, interval, raw and Holm-adjusted p.
    """
    from kbsim.analysis.characters import character_lift, character_plays, has_character_data

    records = inp.records
    if not has_character_data(records):
        return None
    names = (inp.names or {}).get("characters", {})
    plays = character_plays(records).to_dicts()
    lift = character_lift(records).to_dicts()
    for r in plays + lift:
        r["name"] = names.get(r["character"], r["character"])
    have = {r["condition"] for r in lift}
    base = next((c.key for c in inp.conditions if c.key in have), None)
    per_game = {(r["players"], r["character"]): r for r in plays if r["condition"] == base}
    ranking = []
    for r in sorted((r for r in lift if r["condition"] == base), key=lambda r: (r["players"], -r["lift"])):
        pg = per_game.get((r["players"], r["character"]), {})
        ranking.append(r | {"per_game": pg.get("per_game", float("nan")), "per_game_low": pg.get("per_game_low"),
                            "per_game_high": pg.get("per_game_high")})
    return {"plays": plays, "lift": lift, "base": base, "ranking": ranking}


# ------------------------------------------------------------------ formatting helpers
_pct = M.fmt_pct


def _num(x: float | None, digits: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def _signed(x: float, unit: str) -> str:
    if x is None or math.isnan(x):
        return "–"
    return f"{100 * x:+.2f} pp" if unit == "pp" else f"{x:+.2f}"


def _delta_text(d: dict, short: bool = False) -> tuple[str, str, str]:
    """(value, interval, status) texts of one delta row; ``short`` for table cells.

    The status gives the test, the raw and the Holm-adjusted p-value, whether the difference is resolved after
    adjustment, and the deals a new study needs at 80% power (or why that number is left out).
    """
    pd: Delta = d["delta"]
    unit = d["unit"]
    if pd.n == 0:
        return "–", "–", "no games to compare" if short else "no games of one arm at this player count"
    if pd.n < 2:
        return _signed(pd.mean, unit), "–", f"not resolved: only {pd.n} common deal"
    if pd.identical:
        return (_signed(pd.mean, unit), "[0, 0]", "identical on every deal" if short else
                "not resolved: identical on every deal (the bots may never use what differs)")
    interval = f"[{_signed(pd.low, unit)}, {_signed(pd.high, unit)}]"
    kind = "" if pd.paired else "independent samples · "
    ps = f"{M.fmt_p(pd.p)} raw, {M.fmt_p(pd.p_adj).replace('p ', 'p(adj) ')} {M.ADJUSTMENT_NAME}"
    if pd.discordant is not None and pd.test.startswith("exact"):
        ps += f"; exact sign test, {pd.discordant} differing deals"
    if pd.resolved:
        return _signed(pd.mean, unit), interval, f"{kind}resolved ({ps})"
    status = f"{kind}not resolved ({ps})"
    if pd.resolved_raw:
        status = f"{kind}not resolved after adjustment ({ps})"
    need = pd.deals_needed
    if need is not None:
        status += f" · ≈{need:,} deals for 80% power" if short else \
            f"; a new paired study of about {need:,} deals would resolve an effect this large 80% of the time"
    elif pd.deals_needed_reason and not short:
        status += f"; no deal count: {pd.deals_needed_reason}"
    elif pd.deals_needed_reason.startswith("effect within"):
        status += " · effect indistinguishable from 0"
    return _signed(pd.mean, unit), interval, status


def _plain(v: Any) -> str:
    """An option value as written in a study or on the command line (strings without quotes)."""
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _esc(text: Any) -> str:
    """Escape user text for plotly labels (plotly shows entities as the characters they stand for)."""
    return html.escape(str(text), quote=True)


# ------------------------------------------------------------------ figures
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf", "#393b79", "#ad494a", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
            "#31a354", "#756bb1"]


_BOT_PALETTE = ["#3b3b3b", "#b15928", "#6a3d9a", "#1b9e77", "#e7298a", "#a6761d"]  # bots: apart from the arms


def _colours(conditions: list[Condition]) -> dict[str, str]:
    return {c.key: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(conditions)}


def _base_layout(height: int) -> dict:
    # legend to the right of the panels, below the plotly toolbar (which sits at the top right)
    return {"template": "plotly_white", "height": height, "margin": {"l": 60, "r": 20, "t": 60, "b": 60},
            "legend": {"orientation": "v", "yanchor": "top", "y": 0.92, "x": 1.02, "xanchor": "left"},
            "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12}}


def _subplots(cols: int, titles: list[str], shared_y: bool = True, **kw):
    from plotly.subplots import make_subplots

    return make_subplots(rows=1, cols=max(1, cols), subplot_titles=[_esc(t) for t in titles],
                         shared_yaxes=shared_y, horizontal_spacing=0.06 if shared_y else 0.09, **kw)


def _err(rates: list[dict]) -> dict:
    return {"type": "data", "symmetric": False, "array": [r["high"] - r["rate"] for r in rates],
            "arrayminus": [r["rate"] - r["low"] for r in rates], "thickness": 1.2, "width": 3}


_RATE_HOVER = ("<b>%{fullData.name}</b><br>%{x}: %{y:.1%} [%{customdata[1]:.1%}, %{customdata[2]:.1%}]"
               "<br>%{customdata[3]:,} of %{customdata[0]:,} games<extra></extra>")


def _rate_custom(rates: list[dict]) -> list[list]:
    return [[r["n"], r["low"], r["high"], r["k"]] for r in rates]


def _fig_seats(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    fig = _subplots(len(ps), [f"{p} players" for p in ps])
    for c in inp.conditions:
        for k, p in enumerate(ps, start=1):
            g = st["groups"].get((c.key, p))
            if g is None:
                continue
            rates = g["seats"] + [g["shared"], g["no_winner"]]
            x = [str(s) for s in range(p)] + ["shared", "none"]
            fig.add_trace(go.Bar(x=x, y=[r["rate"] for r in rates], name=_esc(c.label), legendgroup=c.key,
                                 showlegend=k == 1, marker_color=colours[c.key],
                                 error_y=_err(rates), customdata=_rate_custom(rates), hovertemplate=_RATE_HOVER),
                          row=1, col=k)
    for k, p in enumerate(ps, start=1):
        ax = "" if k == 1 else str(k)
        fig.add_shape(type="line", xref=f"x{ax} domain", yref=f"y{ax}", x0=0, x1=1, y0=1 / p, y1=1 / p,
                      line={"dash": "dash", "color": "#555", "width": 1})
    fig.update_layout(**_base_layout(440), barmode="group")
    fig.update_xaxes(title_text="seat won alone · shared win · no winner", tickangle=0, title_font_size=11)
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    return fig


def _fig_end(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    kinds = [("stalemate", "stalemate"), ("turn_limit", "turn limit"), ("shared", "shared win")]
    fig = _subplots(len(kinds), [t for _, t in kinds], shared_y=False)
    for c in inp.conditions:
        for k, (key, _) in enumerate(kinds, start=1):
            have = [p for p in ps if (c.key, p) in st["groups"]]
            rates = [st["groups"][(c.key, p)][key] for p in have]
            fig.add_trace(go.Bar(x=[f"{p} players" for p in have], y=[r["rate"] for r in rates], name=_esc(c.label),
                                 legendgroup=c.key, showlegend=k == 1, marker_color=colours[c.key],
                                 error_y=_err(rates), customdata=_rate_custom(rates), hovertemplate=_RATE_HOVER),
                          row=1, col=k)
    fig.update_layout(**_base_layout(400), barmode="group")
    fig.update_yaxes(tickformat=".1%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    fig.update_xaxes(title_text="player count")
    return fig


def _fig_turns_box(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    fig = go.Figure()
    for c in inp.conditions:
        have = [p for p in st["players"] if (c.key, p) in st["groups"]]
        t = [st["groups"][(c.key, p)]["turns"] for p in have]
        n = [st["groups"][(c.key, p)]["n"] for p in have]
        fig.add_trace(go.Box(x=[f"{p} players" for p in have], name=_esc(c.label), marker_color=colours[c.key],
                             q1=[x["q1"] for x in t], median=[x["median"] for x in t], q3=[x["q3"] for x in t],
                             lowerfence=[x["p5"] for x in t], upperfence=[x["p95"] for x in t],
                             mean=[x["mean"] for x in t], boxpoints=False, customdata=n))
    fig.update_layout(**_base_layout(420), boxmode="group", yaxis_title="turns per game (all seats)",
                      xaxis_title="player count")
    return fig


def _fig_turns_hist(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    fig = _subplots(len(ps), [f"{p} players" for p in ps], shared_y=False)
    for k, p in enumerate(ps, start=1):
        h = st["hist"][p]
        for c in inp.conditions:
            share = h["share"].get(c.key)
            if share is None:
                continue
            fig.add_trace(go.Scatter(x=h["edges"], y=share, mode="lines", line={"shape": "hv", "width": 1.6},
                                     name=_esc(c.label), legendgroup=c.key, showlegend=k == 1,
                                     marker_color=colours[c.key],
                                     hovertemplate="<b>%{fullData.name}</b><br>turns %{x}+ : %{y:.1%} of games"
                                                   "<extra></extra>"),
                          row=1, col=k)
    fig.update_layout(**_base_layout(400))
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_xaxes(title_text="turns per game")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    return fig


def _fig_deltas(inp: ReportInput, st: dict, labels: dict):
    import plotly.graph_objects as go

    metrics = [m for m in METRICS if m[0] in FIGURE_METRICS]
    rows = {}
    for d in st["deltas"]:
        rows.setdefault((d["b"], d["a"], d["players"]), {})[d["metric"]] = d
    keys = list(rows)
    ylab = [_esc(f"{labels[b]} − {labels[a]} · {p}p") for b, a, p in keys]
    fig = _subplots(len(metrics), [f"{lab} ({'percentage points' if unit == 'pp' else unit})"
                                   for _, lab, unit in metrics])
    for k, (m, _, unit) in enumerate(metrics, start=1):
        scale = 100 if unit == "pp" else 1
        for resolved in (True, False):
            xs, ys, err, cd = [], [], [], []
            for key, y in zip(keys, ylab, strict=True):
                d = rows[key].get(m)
                if d is None or d["delta"].n < 2 or d["delta"].resolved != resolved:
                    continue
                pd = d["delta"]
                xs.append(pd.mean * scale)
                ys.append(y)
                err.append((pd.high - pd.mean) * scale)
                v, interval, status = _delta_text(d)
                cd.append([v, interval, status, pd.n])
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="markers", name=f"resolved (adjusted p < 0.05, {M.ADJUSTMENT_NAME})" if resolved
                else "not resolved after adjustment", legendgroup=str(resolved), showlegend=k == 1,
                marker={"color": "#1f4e9c" if resolved else "#9a9a9a", "size": 8,
                        "symbol": "circle" if resolved else "circle-open"},
                error_x={"type": "data", "array": err, "thickness": 1.4, "width": 3}, customdata=cd,
                hovertemplate="%{y}<br>%{customdata[0]} %{customdata[1]}<br>%{customdata[2]}<br>"
                              "%{customdata[3]:,} paired deals<extra></extra>"), row=1, col=k)
        ax = "" if k == 1 else str(k)
        fig.add_shape(type="line", xref=f"x{ax}", yref=f"y{ax} domain", x0=0, x1=0, y0=0, y1=1,
                      line={"color": "#333", "width": 1})
    fig.update_layout(**_base_layout(160 + 26 * max(1, len(keys))))
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=ylab)
    for k, (_, _, unit) in enumerate(metrics, start=1):
        fig.update_xaxes(title_text="B − A (percentage points)" if unit == "pp" else f"B − A ({unit})", row=1, col=k)
    return fig


def _fig_sweep(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    sw = inp.sweep
    metrics = [("seat0", "first-player sole-win rate"), ("turns", "mean turns per game"),
               ("stalemate", "stalemate rate")]
    fig = _subplots(len(metrics), [t for _, t in metrics], shared_y=False)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in sw.values)
    xs_all = sw.values if numeric else [_esc(json.dumps(v) if not isinstance(v, str) else v) for v in sw.values]
    dashes = ["solid", "dash", "dot", "dashdot", "longdash"]
    line = 0
    for ai, arm in enumerate(sw.arms):
        for pi, p in enumerate(st["players"]):
            xs, ys = {m: [] for m, _ in metrics}, {m: [] for m, _ in metrics}
            lo, hi, ns = {m: [] for m, _ in metrics}, {m: [] for m, _ in metrics}, []
            for v, xv in zip(sw.values, xs_all, strict=True):
                key = sw.keys[(arm, json.dumps(v, sort_keys=True))]
                g = st["groups"].get((key, p))
                if g is None:
                    continue
                ns.append(g["n"])
                for m, _ in metrics:
                    if m == "turns":
                        y, a, b = g["turns"]["mean"], g["turns"]["low"], g["turns"]["high"]
                    else:
                        r = g["seats"][0] if m == "seat0" else g[m]
                        y, a, b = r["rate"], r["low"], r["high"]
                    xs[m].append(xv)
                    ys[m].append(y)
                    lo[m].append(y - a)
                    hi[m].append(b - y)
            name = f"{p} players" if len(sw.arms) == 1 else f"{arm} · {p} players"
            colour = _PALETTE[line % len(_PALETTE)]
            line += 1
            for k, (m, _) in enumerate(metrics, start=1):
                fmt = ":.1f" if m == "turns" else ":.1%"
                fig.add_trace(go.Scatter(
                    x=xs[m], y=ys[m], mode="lines+markers", name=_esc(name), legendgroup=f"{ai}-{pi}",
                    showlegend=k == 1, line={"color": colour, "dash": dashes[ai % len(dashes)]},
                    error_y={"type": "data", "symmetric": False, "array": hi[m], "arrayminus": lo[m]},
                    customdata=ns, hovertemplate=f"<b>%{{fullData.name}}</b><br>{_esc(sw.option)} = %{{x}}: "
                                                 f"%{{y{fmt}}}<br>%{{customdata:,}} games<extra></extra>"),
                    row=1, col=k)
    fig.update_layout(**_base_layout(420))
    fig.update_xaxes(title_text=_esc(sw.option))
    if numeric:
        fig.update_xaxes(tickmode="array", tickvals=list(sw.values))
    fig.update_yaxes(tickformat=".0%", col=1)
    fig.update_yaxes(tickformat=".1%", col=3)
    fig.update_yaxes(title_text="share of games", col=1)
    fig.update_yaxes(title_text="turns per game", col=2)
    fig.update_yaxes(title_text="share of games", col=3)
    return fig


def _fig_bots(inp: ReportInput, st: dict, labels: dict):
    import plotly.graph_objects as go

    conds = list(dict.fromkeys(b["condition"] for b in st["bots"]))
    fig = _subplots(len(conds), [labels[c] for c in conds])
    bots = sorted({b["bot"] for b in st["bots"]})
    shown: set[str] = set()
    for k, c in enumerate(conds, start=1):
        for bi, bot in enumerate(bots):
            rows = [b for b in st["bots"] if b["condition"] == c and b["bot"] == bot]
            if not rows:
                continue
            first = bot not in shown
            shown.add(bot)
            fig.add_trace(go.Bar(x=[f"{r['players']} players" for r in rows], y=[r["rate"] for r in rows],
                                 name=_esc(bot), legendgroup=bot, showlegend=first,
                                 marker_color=_BOT_PALETTE[bi % len(_BOT_PALETTE)], error_y=_err(rows),
                                 customdata=_rate_custom(rows), hovertemplate=_RATE_HOVER), row=1, col=k)
            fig.add_trace(go.Scatter(x=[f"{r['players']} players" for r in rows], y=[r["fair"] for r in rows],
                                     mode="markers", marker={"symbol": "line-ew-open", "size": 26,
                                                             "color": _BOT_PALETTE[bi % len(_BOT_PALETTE)]},
                                     name=_esc(f"{bot}: fair share"), legendgroup=bot, showlegend=first,
                                     hovertemplate="fair share %{y:.1%}<extra></extra>"), row=1, col=k)
    fig.update_layout(**_base_layout(420), barmode="group")
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games won alone", row=1, col=1)
    fig.update_xaxes(title_text="player count")
    return fig


def _fig_char(inp: ReportInput, st: dict, colours: dict, kind: str):
    """Small multiples, one panel per player count, of the ranked arm only (at most ~10 bars per panel)."""
    import plotly.graph_objects as go

    ch = st["characters"]
    rows = [r for r in ch[kind] if r["condition"] == ch["base"]]
    ps = sorted({r["players"] for r in rows})
    fig = _subplots(len(ps), [f"{p} players" for p in ps], shared_y=True)
    colour = colours.get(ch["base"], _PALETTE[0])
    for k, p in enumerate(ps, start=1):
        rs = sorted((r for r in rows if r["players"] == p), key=lambda r: r["name"])
        if kind == "plays":
            y = [r["per_game"] for r in rs]
            err = {"type": "data", "symmetric": False, "array": [r["per_game_high"] - r["per_game"] for r in rs],
                   "arrayminus": [r["per_game"] - r["per_game_low"] for r in rs]}
            cd = [[r["games"], r["share"], r["plays"]] for r in rs]
            hover = ("%{x}: %{y:.2f} plays per game<br>played in %{customdata[1]:.1%} of %{customdata[0]:,} games"
                     "<extra></extra>")
        else:
            y = [r["lift"] for r in rs]
            err = {"type": "data", "symmetric": False, "array": [r["high"] - r["lift"] for r in rs],
                   "arrayminus": [r["lift"] - r["low"] for r in rs]}
            cd = [[r["rate_played"], r["n_played"], r["rate_not"], r["n_not"], r["p_adj"]] for r in rs]
            hover = ("%{x}: lift %{y:+.1%}<br>played: %{customdata[0]:.1%} of %{customdata[1]:,} seat-games<br>"
                     "not played: %{customdata[2]:.1%} of %{customdata[3]:,}<br>Holm-adjusted p %{customdata[4]:.3f}"
                     "<extra></extra>")
        fig.add_trace(go.Bar(x=[_esc(r["name"]) for r in rs], y=y, showlegend=False, marker_color=colour,
                             error_y=err, customdata=cd, hovertemplate=hover), row=1, col=k)
    fig.update_layout(**_base_layout(420))
    fig.update_xaxes(tickangle=-45, title_text="character")
    if kind == "lift":
        fig.update_yaxes(tickformat="+.0%")
        fig.update_yaxes(title_text="sole-win rate, played − not (pp)", row=1, col=1)
    else:
        fig.update_yaxes(title_text="plays per game (all seats)", row=1, col=1)
    return fig


def build_figures(inp: ReportInput, st: dict) -> list[dict]:
    """The page's figures: a list of dicts ``id, section, title, caption, json`` (escaped plotly JSON).

    Args:
        inp: report input.
        st: statistics from :func:`compute`.
    """
    colours = _colours(inp.conditions)
    labels = {c.key: c.label for c in inp.conditions}
    figs: list[tuple[str, str, str, Any]] = [
        ("seats", "Win rate by seat",
         "Share of games won alone by each seat (seat 0 deals and plays first), and shared wins and games "
         "without a winner shown apart; the three add up to 100%. Error bars: 95% Wilson intervals. "
         "Dashed line: the fair share 1/P.", _fig_seats(inp, st, colours)),
        ("end", "How games end",
         "Stalemate and turn-limit rates, and games ending in a shared win (a tie for fewest cards), "
         "with 95% Wilson intervals.", _fig_end(inp, st, colours)),
        ("turns-box", "Game length",
         "Turns per game (all seats together): box = quartiles, line = median, dashed = mean, whiskers = 5th and "
         "95th percentiles.", _fig_turns_box(inp, st, colours)),
        ("turns-hist", "Game length distribution",
         "Share of games by number of turns; the last bin also holds the longest 0.5% of games.",
         _fig_turns_hist(inp, st, colours)),
    ]
    if any(d["delta"].n >= 2 for d in st["deltas"]):
        figs.insert(0, ("deltas", "Paired differences against the baseline",
                        "Each point is arm B minus arm A (on the same deals unless marked independent samples), "
                        "with its 95% interval; filled: resolved after Holm's adjustment for every difference on the "
                        "page, "
                        "open: not resolved.", _fig_deltas(inp, st, labels)))
    if inp.sweep is not None:
        figs.insert(1, ("sweep", f"Sweep of {inp.sweep.option}",
                        "Each line is one player count; error bars are 95% intervals (Wilson for rates, normal for "
                        "the mean).", _fig_sweep(inp, st, colours)))
    if st["bots"]:
        figs.append(("bots", "Bots against each other",
                     "Share of games won alone by each bot of a mixed lineup (every seat rotation on the same deals), "
                     "with 95% Wilson intervals; the bar marker is the bot's fair share (its seats / P).",
                     _fig_bots(inp, st, labels)))
    if st["characters"]:
        base_label = labels.get(st["characters"]["base"], "")
        figs.append(("char-plays", "Plays per character",
                     f"Arm {base_label}: mean plays per game of each character (all seats), with a 95% normal "
                     "interval; one panel per player count. Every arm's numbers are in the tables below.",
                     _fig_char(inp, st, colours, "plays")))
        figs.append(("char-lift", "Win-rate lift of playing a character",
                     f"Arm {base_label}: sole-win rate of the seat-games in which the seat played the character "
                     "minus that of the other seat-games, with Newcombe 95% intervals. Observational: see the notes.",
                     _fig_char(inp, st, colours, "lift")))
    from plotly.utils import PlotlyJSONEncoder

    out = []
    for i, (fid, title, caption, fig) in enumerate(figs):
        text = json.dumps(fig.to_plotly_json(), cls=PlotlyJSONEncoder, separators=(",", ":"))
        out.append({"id": f"fig-{i}-{fid}", "section": fid, "title": title, "caption": caption,
                    "height": int(fig.layout.height or 450), "json": _script_safe(text)})
    return out


def _script_safe(text: str) -> str:
    """JSON made safe inside a ``<script>`` element: no ``<``, ``>``, ``&`` or line separators left raw."""
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


# ------------------------------------------------------------------ tables and text
def _cells(inp: ReportInput, st: dict):
    """(condition, player count, statistics) of every cell that has records, in page order."""
    for c in inp.conditions:
        for p in st["players"]:
            g = st["groups"].get((c.key, p))
            if g is not None:
                yield c, p, g


def _tables(inp: ReportInput, st: dict) -> dict:
    labels = {c.key: c.label for c in inp.conditions}
    summary = []
    for c, p, g in _cells(inp, st):
        s0 = g["seats"][0]
        summary.append({
            "arm": c.label, "players": p, "unused": ", ".join(st.get("unused_rules", {}).get(c.key, [])),
            "games": f"{g['n']:,}", "deals": f"{g['deals']:,}",
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
        })
    verdicts = [{"arm": labels[v["condition"]], "players": v["players"], "rank": v["rank"] or "–",
                 "gap": _gap_text(v["verdict"]["largest"]), "first": _gap_text(v["verdict"]["first"]),
                 "text": v["verdict"]["text"], "test": _seat_test_text(v["test"]),
                 "decided": f"{v['verdict']['decided']:,}"} for v in st["verdicts"]]
    deltas: dict[tuple, dict] = {}
    for d in st["deltas"]:
        v, interval, status = _delta_text(d, short=True)
        row = deltas.setdefault((d["b"], d["a"], d["players"]), {
            "b": labels[d["b"]], "a": labels[d["a"]], "players": d["players"], "n": f"{d['delta'].n:,}", "cells": {}})
        row["cells"][d["metric"]] = {"value": v, "interval": interval, "status": status,
                                     "resolved": d["delta"].resolved}
    bots = [{"arm": labels[b["condition"]], "players": b["players"], "bot": b["bot"], "seats": b["seats"],
             "rate": f"{_pct(b['rate'])} [{_pct(b['low'])}, {_pct(b['high'])}]", "fair": _pct(b["fair"]),
             "n": f"{b['n']:,}"} for b in st["bots"]]
    chars = None
    if st["characters"]:
        ch = st["characters"]
        chars = {
            "base": labels.get(ch["base"], ch["base"]),
            "ranking": [{"players": r["players"], "rank": i + 1 - min(j for j, x in enumerate(ch["ranking"])
                                                                      if x["players"] == r["players"]),
                         "character": r["name"], "per_game": _num(r["per_game"], 2),
                         "lift": f"{100 * r['lift']:+.1f} pp [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]",
                         "n": f"{r['n_played']:,} / {r['n_not']:,}", "p": M.fmt_p(r["p"]),
                         "p_adj": M.fmt_p(r["p_adj"]), "resolved": r["p_adj"] < 0.05}
                        for i, r in enumerate(ch["ranking"])],
            "plays": [{"arm": labels.get(r["condition"], r["condition"]), "players": r["players"],
                       "character": r["name"], "per_game": f"{r['per_game']:.2f} [{r['per_game_low']:.2f}, "
                       f"{r['per_game_high']:.2f}]", "share": f"{_pct(r['share'])} [{_pct(r['share_low'])}, "
                       f"{_pct(r['share_high'])}]", "games": f"{r['games']:,}"} for r in st["characters"]["plays"]],
            "lift": [{"arm": labels.get(r["condition"], r["condition"]), "players": r["players"],
                      "character": r["name"], "p_adj": M.fmt_p(r["p_adj"]),
                      "played": f"{_pct(r['rate_played'])} (n {r['n_played']:,})",
                      "not_played": f"{_pct(r['rate_not'])} (n {r['n_not']:,})",
                      "lift": f"{100 * r['lift']:+.1f} pp [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]",
                      "resolved": r["p_adj"] < 0.05} for r in st["characters"]["lift"]],
        }
    return {"unused": [_unused_text(inp, k, st) for k in st.get("unused", [])], "summary": summary,
            "verdicts": verdicts,
            "deltas": list(deltas.values()), "metrics": [(m, label) for m, label, _ in METRICS],
            "bots": bots, "characters": chars}


def _unused_text(inp: ReportInput, key: str, st: dict | None = None) -> str:
    c = next(x for x in inp.conditions if x.key == key)
    rules = (st or {}).get("unused_rules", {}).get(key)
    if rules:
        return (f"arm {c.label!r}: its rule(s) {', '.join(rules)} made no move legal in any of its games "
                f"(rule usage counted in the records): its bots ({c.bots}) never used what tells this arm from "
                f"its baseline, so it measured nothing. Fix: give the arm (or the study) a bot that uses the "
                f"rule, e.g. bots = \"planner\".")
    return (f"arm {c.label!r} played exactly like its baseline on every deal at every player count: its bots "
            f"({c.bots}) never made a move its rules change, so it measured nothing. Fix: give the arm (or the "
            f"study) a bot that uses the rule, e.g. bots = \"planner\".")


def _gap_text(g: dict) -> str:
    if math.isnan(g["gap"]):
        return "–"
    return f"seat {g['seat']}: {100 * g['gap']:+.1f} pp [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]"


def _seat_test_text(t: dict) -> str:
    if t["test"] == "none":
        return "–"
    return f"{t['test']}: {M.fmt_p(t['p'])} (n {t['n']:,})"


def text_summary(inp: ReportInput, st: dict) -> list[str]:
    """A short plain-text summary of the page (for the terminal).

    Returns:
        Lines: one per arm and player count, then the resolved and unresolved first-player and turn deltas.
    """
    labels = {c.key: c.label for c in inp.conditions}
    lines = [f"WARNING: {_unused_text(inp, k, st)}" for k in st.get("unused", [])]
    for c, p, g in _cells(inp, st):
        s0 = g["seats"][0]
        lines.append(f"{c.label}, {p} players: {g['n']:,} games; seat 0 wins alone {_pct(s0['rate'])} "
                     f"[{_pct(s0['low'])}, {_pct(s0['high'])}] (fair {_pct(1 / p)}); shared wins "
                     f"{_pct(g['shared']['rate'], 2)}; stalemate {_pct(g['stalemate']['rate'], 2)}; turn limit "
                     f"{_pct(g['turn_limit']['rate'], 2)}; turns mean {_num(g['turns']['mean'])}, median "
                     f"{_num(g['turns']['median'], 0)}")
    if st.get("verdicts"):
        lines.append("distance from fair (largest gap between a seat's share of the games won alone and 1/P; "
                     "rank 1 = closest to fair at that player count):")
        for v in st["verdicts"]:
            lines.append(f"  {v['players']} players, #{v['rank'] or '–'} {labels[v['condition']]}: "
                         f"{v['verdict']['text']}; seat equality {_seat_test_text(v['test'])}")
    adj = st.get("adjustment")
    if adj and adj["comparisons"]:
        lines.append(f"{adj['comparisons']} differences tested on this page: {adj['resolved']} resolved after "
                     f"{adj['method']}'s adjustment ({adj['resolved_raw']} before)"
                     + (f"; {adj['unpaired']} compared as independent samples (no common deals)"
                        if adj["unpaired"] else ""))
    shown = [d for d in st["deltas"] if d["metric"] in ("seat0", "turns")]
    if shown:
        lines.append("differences B − A (paired on the same deals unless marked independent samples):")
    for d in shown:
        v, interval, status = _delta_text(d)
        lines.append(f"  {labels[d['b']]} − {labels[d['a']]}, {d['players']} players, {d['label']}: {v} {interval} "
                     f"(n {d['delta'].n:,}): {status}")
    return lines


# ------------------------------------------------------------------ page
def _clean(v: Any) -> Any:
    """nan -> None, recursively (strict JSON)."""
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
    """

    path: Path
    size: int
    seconds: float
    figures: int
    summary: list[str]
    stats: dict

    def as_json(self) -> dict:
        """JSON-able summary of the result (paths, sizes, per-group rates and deltas)."""
        groups = []
        for (cond, p), g in self.stats["groups"].items():
            groups.append({"condition": cond, "players": p, "games": g["n"], "seat_win": _clean(g["seats"]),
                           "seat_test": _clean(g["balance"]["test"]),
                           "shared": g["shared"], "stalemate": g["stalemate"], "turn_limit": g["turn_limit"],
                           "turns": g["turns"]})
        deltas = [{"b": d["b"], "a": d["a"], "players": d["players"], "metric": d["metric"],
                   **d["delta"].as_dict()} for d in self.stats["deltas"]]
        verdicts = [{"condition": v["condition"], "players": v["players"], "rank": v["rank"],
                     "fair": v["verdict"]["fair"], "games_won_alone": v["verdict"]["decided"],
                     "largest_gap": _clean(v["verdict"]["largest"]), "first_player": _clean(v["verdict"]["first"]),
                     "text": v["verdict"]["text"], "seat_test": _clean(v["test"])} for v in self.stats["verdicts"]]
        return {"html": str(self.path), "bytes": self.size, "seconds": self.seconds, "figures": self.figures,
                "groups": groups, "verdicts": verdicts, "adjustment": self.stats["adjustment"],
                "unused_arms": self.stats["unused"], "unused_rules": self.stats.get("unused_rules", {}),
                "deltas": deltas}


def render_html(inp: ReportInput, st: dict, figures: list[dict]) -> str:
    """Render the page from the jinja2 template (autoescaped) with plotly.js embedded once.

    Args:
        inp: report input.
        st: statistics from :func:`compute`.
        figures: from :func:`build_figures`.

    Returns:
        The complete HTML document.
    """
    import jinja2
    from plotly.offline import get_plotlyjs

    from kbsim import __version__

    env = jinja2.Environment(loader=jinja2.PackageLoader("kbsim.analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    tpl = env.get_template("report.html.j2")
    option_names = sorted({k for c in inp.conditions for k in c.effective})
    differing = [k for k in option_names if len({json.dumps(c.effective.get(k), sort_keys=True)
                                                  for c in inp.conditions}) > 1]
    ctx = {
        "title": inp.title, "question": inp.question, "source": inp.source, "version": __version__,
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "parameters": inp.parameters, "versions": inp.versions, "conditions": inp.conditions,
        "option_names": option_names, "differing": differing, "games": st["games"],
        "tables": _tables(inp, st), "figures": figures, "has_sweep": inp.sweep is not None,
        "has_characters": bool(st["characters"]), "has_bots": bool(st["bots"]),
        "adjustment": st["adjustment"], "exact_below": M.EXACT_BELOW,
        "fmt": lambda v: json.dumps(v) if not isinstance(v, str) else v,
        "plotly_js": get_plotlyjs(),
    }
    return tpl.render(**ctx)


def write_report(inp: ReportInput, path: Path) -> ReportResult:
    """Compute, render and write the report page atomically.

    Args:
        inp: report input.
        path: the HTML file to write (its folder is created).

    Returns:
        :class:`ReportResult`.

    Raises:
        ReportError: nothing to report, or the file cannot be written.
    """
    import os
    import tempfile

    t0 = time.perf_counter()
    st = compute(inp)
    figures = build_figures(inp, st)
    page = render_html(inp, st, figures)
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise ReportError(f"{path}: cannot write the report: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        raise ReportError(f"{path}: cannot write the report: {e.strerror or e}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)  # nothing left behind on an error (after a replace it is gone)
    seconds = time.perf_counter() - t0
    return ReportResult(path=path, size=path.stat().st_size, seconds=seconds, figures=len(figures),
                        summary=text_summary(inp, st), stats=st)


# ------------------------------------------------------------------ compare existing records
def _lineup_unit(bots: Sequence[str]) -> tuple[str, ...]:
    """The shortest bot sequence whose cycle gives some rotation of ``bots`` (the same arm at any player count)."""
    b = tuple(bots)
    best = b
    for r in range(len(b)):
        rot = b[r:] + b[:r]
        for k in range(1, len(rot) + 1):
            unit = rot[:k]
            if all(rot[s] == unit[s % k] for s in range(len(rot))):
                if (len(unit), unit) < (len(best), best):
                    best = unit
                break
    return best


def compare_input(paths: Sequence[Path]) -> ReportInput:
    """Build a report input from existing records files (``kbsim run`` outputs, study cells...).

    Files with the same game, variant, options and bot lineup (up to seat rotation) form one arm; the arm of
    the first file is the baseline; the others are compared with it on the deals they share (same game seed).

    Args:
        paths: Parquet records files.

    Returns:
        :class:`ReportInput`.

    Raises:
        ReportError: a missing or unreadable file, or a file that is not kbsim records.
    """
    import pyarrow.parquet as pq

    from kbsim.sim.records import read_metadata

    frames = []
    file_rows = []
    for i, p in enumerate(paths):
        p = Path(p)
        if not p.is_file():
            raise ReportError(f"{p}: no such records file")
        try:
            names = pq.read_schema(p).names
        except Exception as e:
            raise ReportError(f"{p}: not a Parquet file ({type(e).__name__})") from None
        need = NEEDED_COLUMNS + ["game", "variant", "options"]
        missing = [c for c in need if c not in names]
        if missing:
            raise ReportError(f"{p}: not kbsim records (missing columns: {', '.join(missing)})")
        cols = need + [c for c in OPTIONAL_COLUMNS if c in names]
        df = pl.read_parquet(p, columns=cols).with_columns(file=pl.lit(i))
        if df.height == 0:
            raise ReportError(f"{p}: holds no records")
        frames.append(df)
        try:
            meta = read_metadata(p)
        except Exception:
            meta = {}
        file_rows.append((p, meta))
    df = pl.concat(frames, how="diagonal_relaxed")
    combos = df.select("file", "game", "variant", "options", "bots").unique(maintain_order=True)
    sig_of: dict[tuple, tuple] = {}
    arms: dict[tuple, dict] = {}
    for r in combos.iter_rows(named=True):
        sig = (r["game"], r["variant"], r["options"], _lineup_unit(r["bots"]))
        sig_of[(r["file"], r["game"], r["variant"], r["options"], tuple(r["bots"]))] = sig
        arms.setdefault(sig, {"first_file": r["file"], "files": set()})["files"].add(r["file"])
    order = sorted(arms, key=lambda s: arms[s]["first_file"])
    # labels: the variant; within arms of one variant add the options that differ, and the bots if they differ
    opts = {s: json.loads(s[2]) for s in order}
    labels = {}
    by_variant: dict[str, list] = {}
    for s in order:
        by_variant.setdefault(s[1], []).append(s)
    for variant, members in by_variant.items():
        keys = sorted({k for s in members for k in opts[s]})
        diff = [k for k in keys if len({json.dumps(opts[s].get(k), sort_keys=True) for s in members}) > 1]
        bots_differ = len({s[3] for s in members}) > 1
        for s in members:
            label = variant
            if diff:
                label += " (" + ", ".join(f"{k}={_plain(opts[s].get(k))}" for k in diff) + ")"
            if bots_differ:
                label += " · " + ",".join(s[3])
            labels[s] = label
    seen: dict[str, int] = {}
    for s in order:  # still equal (e.g. two games of the same variant name): number them
        if labels[s] in seen:
            seen[labels[s]] += 1
            labels[s] = f"{labels[s]} #{seen[labels[s]]}"
        else:
            seen[labels[s]] = 1
    key_of = {s: f"{i:02d}-arm" for i, s in enumerate(order)}
    mapping = pl.DataFrame(
        [{"file": k[0], "game": k[1], "variant": k[2], "options": k[3], "bots_key": ",".join(k[4]),
          "condition": key_of[s]} for k, s in sig_of.items()],
        schema={"file": pl.Int32, "game": pl.String, "variant": pl.String, "options": pl.String,
                "bots_key": pl.String, "condition": pl.String})
    df = (df.with_columns(file=pl.col("file").cast(pl.Int32), bots_key=pl.col("bots").list.join(","))
          .join(mapping, on=["file", "game", "variant", "options", "bots_key"], how="left")
          .unique(subset=["condition", "players", "seed", "bots_key"], keep="first", maintain_order=True))
    try:
        from kbsim.rules.loader import load_rules

        models = {s[0]: load_rules(s[0]) for s in order}
        defaults = {g: lr.options for g, lr in models.items()}
        provisional = [(g, lr.model.provisional) for g, lr in models.items() if getattr(lr.model, "provisional", None)]
    except Exception:
        defaults, provisional = {}, []
    conditions = []
    for s in order:
        base = defaults.get(s[0], opts[order[0]])
        changed = {k: v for k, v in opts[s].items() if base.get(k) != v}
        conditions.append(Condition(key=key_of[s], label=labels[s], arm=labels[s], variants=tuple(
            v for v in s[1].split("+") if v and v != "base"), options=changed, changed=changed, effective=opts[s],
            bots=",".join(s[3])))
    comparisons = [(c.key, conditions[0].key) for c in conditions[1:]]
    params = [("records files", f"{len(file_rows)}"), ("baseline arm", conditions[0].label),
              ("pairing", "games of two arms are paired when they have the same game seed (same run seed and index)")]
    params += [(f"provisional data ({g})", note) for g, note in provisional]
    for i, (p, meta) in enumerate(file_rows):
        run = meta.get("run", {}) if isinstance(meta.get("run"), dict) else {}
        what = ", ".join(f"{k} {run[k]}" for k in ("variant", "players", "bots", "games", "seed") if k in run)
        params.append((f"file {i + 1}", f"{p}" + (f" ({what})" if what else "")))
    versions = sorted({str(m.get("version", "?")) for _, m in file_rows})
    names: dict[str, dict[str, str]] = {}
    for _, m in file_rows:
        for kind, table in (m.get("names") or {}).items():
            names.setdefault(kind, {}).update(table)
    name = "compare-" + "-".join(Path(p).stem for p, _ in file_rows)[:60]
    return ReportInput(title="Comparison of records", name=name, question="", source=", ".join(str(p) for p, _ in
                       file_rows), parameters=params, conditions=conditions, comparisons=comparisons, sweep=None,
                       records=df.drop("file", "game", "variant", "options", "bots_key"), versions=versions,
                       names=names)


__all__ = ["Condition", "METRICS", "NEEDED_COLUMNS", "OPTIONAL_COLUMNS", "ReportError", "ReportInput",
           "ReportResult", "SweepInfo", "build_figures", "compare_input", "compute", "read_records",
           "render_html", "text_summary", "write_report"]
