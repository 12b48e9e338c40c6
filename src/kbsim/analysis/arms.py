"""The statistics of a report page, per arm and player count, and the paired differences between arms.

Computed from a :class:`~kbsim.analysis.reading.ReportInput` with the formulas of
:mod:`kbsim.analysis.metrics` (the one statistics module, also used by the
terminal summary of ``kbsim run``).

**A page is a function of its records.** The records are put in one canonical order first
(:data:`RECORD_ORDER`: arm, player count, deal seed, seat lineup, game index), whatever order the files
were listed or their rows written in; every grouping keeps that order (``maintain_order``), every join is
sorted again by deal, and resampling (:func:`kbsim.analysis.metrics.paired_seat_gap`) depends only on the
multiset of deals and draws from a seed derived from them, never from the clock or the process. Two renders of
the same records give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import polars as pl

from kbsim.analysis.metrics import (
    ADJUSTMENT_NAME,
    MIN_DEALS_FOR_POWER,
    Z95,
    Delta,
    adjust,
    paired,
    paired_seat_gap,
    rank_verdicts,
    rate,
    seat_balance,
    unpaired_mean,
    unpaired_rate,
)
from kbsim.analysis.reading import ReportError, ReportInput
from kbsim.analysis.seats import first_after_seat_0, first_seat
from kbsim.sim.conditions import Condition

# (column, label, unit): per-game outcomes compared deal by deal; the 0/1 ones are BINARY
BINARY = frozenset({"seat0", "stalemate", "turn_limit", "shared", "comeback"})
#: The experience measures (records schema 8: :mod:`kbsim.engine.course`, forced turns). ``decided_at`` and
#: ``comeback`` exist only for games with a sole winner and are compared on the deals where both arms have one;
#: records without these columns compare none of them.
EXPERIENCE = [
    ("lead_changes", "lead changes per game", "changes"),
    ("decided_at", "share of the game before the winner leads for good", "pp"),
    ("comeback", "comeback rate (winner behind at half the game)", "pp"),
    ("forced_share", "share of turns that were forced", "pp"),
]
EXPERIENCE_METRICS = frozenset(m for m, _, _ in EXPERIENCE)
SHARES = frozenset({"decided_at", "forced_share"})  # per-game shares in [0, 1]
METRICS = [
    ("seat0", "first-player sole-win rate", "pp"),
    ("turns", "turns per game", "turns"),
    ("stalemate", "stalemate rate", "pp"),
    ("turn_limit", "turn-limit rate", "pp"),
    ("shared", "shared-win rate", "pp"),
    *EXPERIENCE,
]
# the verdict's measure compared between arms (not a per-game outcome: see metrics.paired_seat_gap)
SEAT_GAP = ("seat_gap", "largest seat gap", "pp")
FIGURE_METRICS = ("seat_gap", "seat0", "turns", "stalemate")
#: The canonical order of the records of a page (unique per game: a deal is played once per arm, player count
#: and seat lineup; the game index breaks any remaining tie).
RECORD_ORDER = ("condition", "players", "seed", "lineup", "game_index")


def _experience(df: pl.DataFrame) -> list[pl.Expr]:
    """The per-game experience measures (floats, null where a game has none or its records lack the column)."""
    cols = set(df.columns)
    turns = pl.col("turns").cast(pl.Float64)
    null = pl.lit(None, dtype=pl.Float64)
    return [
        (pl.col("lead_changes").cast(pl.Float64) if "lead_changes" in cols else null).alias("lead_changes"),
        (
            pl.when(turns > 0).then(pl.col("winner_leads_from").cast(pl.Float64) / turns).otherwise(None)
            if "winner_leads_from" in cols
            else null
        ).alias("decided_at"),
        (pl.col("winner_behind_at_half").cast(pl.Float64) if "winner_behind_at_half" in cols else null).alias(
            "comeback"
        ),
        (
            pl.when(turns > 0).then(pl.col("forced_turns").list.sum().cast(pl.Float64) / turns).otherwise(None)
            if "forced_turns" in cols
            else null
        ).alias("forced_share"),
    ]


def prepare(df: pl.DataFrame, seats: dict | None = None) -> pl.DataFrame:
    """The page's records with the per-game outcomes the statistics use, in :data:`RECORD_ORDER`.

    Adds ``nwin`` (winners), ``sole`` (the seat that won alone, or null), ``lineup`` (the bots, comma-joined),
    ``first`` (the seat that plays first, from the rules' seat roles ``seats``: :func:`kbsim.analysis.seats.seats_of`;
    seat 0 when None), and the 0/1 outcomes ``seat0`` (the first seat won alone), ``shared``, ``stalemate``,
    ``turn_limit`` and ``won`` (``turns`` as float).
    """
    return _prepare(df, seats).sort(RECORD_ORDER)


def _prepare(df: pl.DataFrame, seats: dict | None) -> pl.DataFrame:
    """The columns the statistics read; ``first`` is the seat that plays first, ``seat0`` 1.0 when it won alone."""
    nwin = pl.col("winners").list.len()
    sole = pl.when(nwin == 1).then(pl.col("winners").list.first().cast(pl.Int16)).otherwise(None)
    df = df.with_columns(_experience(df))
    return (
        df.with_columns(
            players=pl.col("players").cast(pl.Int64),
            nwin=nwin,
            sole=sole,
            lineup=pl.col("bots").list.join(","),
        )
        .with_columns(
            first=(pl.lit(first_after_seat_0(seats)) % pl.col("players")).cast(pl.Int16),
        )
        .with_columns(
            seat0=(pl.col("sole") == pl.col("first")).fill_null(False).cast(pl.Float64),
            shared=(pl.col("nwin") > 1).cast(pl.Float64),
            stalemate=(pl.col("end_reason") == "stalemate").cast(pl.Float64),
            turn_limit=(pl.col("end_reason") == "turn_limit").cast(pl.Float64),
            won=(pl.col("end_reason") == "won").cast(pl.Float64),
            turns=pl.col("turns").cast(pl.Float64),
        )
    )


# ------------------------------------------------------------------ statistics
_rate = rate


def compute(inp: ReportInput, extra: Mapping[str, Callable[..., list[dict]]] | None = None) -> dict:
    """All statistics of the page.

    Args:
        inp: the report input.
        extra: section name -> ``tests(inp, frame, deltas)``: comparisons that sections add to the page's
            family of tests (see :mod:`kbsim.analysis.sections`).

    Returns:
        A dict with ``groups`` (per condition key and player count: ``n`` games, ``deals``,
        ``seats`` (per seat a rate dict), ``first`` (the seat that plays first), ``shared``, ``no_winner``,
        ``won``, ``stalemate``,
        ``turn_limit`` (rate dicts: ``k, n, rate, low, high``), ``turns`` (mean, low, high, sd,
        p5, q1, median, q3, p95), ``experience`` (per measure of :data:`EXPERIENCE`: a rate dict for
        comebacks, ``{n, mean, low, high}`` for the others, None without data)), ``hist`` (turn histograms),
        ``deltas`` (one dict per comparison, player count and metric), ``bots`` (bot shares in mixed lineups),
        ``characters`` (None, or plays and lift tables as lists of dicts; restricted-play arms left out),
        ``restricted`` (restricted-play values as :func:`kbsim.analysis.restricted.restricted_values` gives them,
        adjusted with the page: from the comparisons of the section ``restricted`` in ``extra``; [] without it or
        without a barred arm), ``players`` and ``games``.

        Rule usage, per condition (so per rung of a skill ladder): ``rule_usage`` (per arm B with rules that
        tell it from its baseline A: ``baseline`` A, ``rung``, ``games``, ``uses`` rule -> moves that needed it,
        ``never``), ``unused_rules`` (B -> those rules no game of B used), ``unused`` (condition keys that
        measured nothing: a rule never used, or every paired difference with another arm at the same rung
        identical on every deal), ``unused_against`` (each of those -> the arms it was measured against;
        :func:`idle` reads it) and ``rule_chances`` (B -> turns at whose start the unused rule was legal).

        With ``extra`` (name -> ``tests(inp, frame, deltas)``, the page's sections that add comparisons, see
        :mod:`kbsim.analysis.sections`), ``sections`` maps each name to its comparisons; they are adjusted
        together with ``deltas`` (one Holm family for the page). ``head_to_head`` lists the conditions whose
        lineup mixes bots: their seat-based differences (seat gap, first-player rate) are not compared with
        another arm, since a seat's wins there mix the seat with the bot that holds it.

    Raises:
        ReportError: no records, or records of a condition the input does not declare.
    """
    df = prepare(inp.records, inp.seats)
    if df.height == 0:
        raise ReportError("no records to report")
    known = {c.key for c in inp.conditions}
    unknown = set(df["condition"].unique().to_list()) - known
    if unknown:
        raise ReportError(f"records of undeclared conditions: {', '.join(sorted(unknown))}")
    players = sorted(df["players"].unique().to_list())
    agg = df.group_by("condition", "players", maintain_order=True).agg(
        n=pl.len(),
        deals=pl.col("seed").n_unique(),
        shared=pl.col("shared").sum(),
        no_winner=(pl.col("nwin") == 0).sum(),
        won=pl.col("won").sum(),
        stalemate=pl.col("stalemate").sum(),
        turn_limit=pl.col("turn_limit").sum(),
        t_mean=pl.col("turns").mean(),
        t_sd=pl.col("turns").std(),
        p5=pl.col("turns").quantile(0.05, "linear"),
        q1=pl.col("turns").quantile(0.25, "linear"),
        median=pl.col("turns").median(),
        q3=pl.col("turns").quantile(0.75, "linear"),
        p95=pl.col("turns").quantile(0.95, "linear"),
        t_max=pl.col("turns").max(),
        **{f"x_{c}_{f}": e for c in EXPERIENCE_METRICS for f, e in _moments(c).items()},
    )
    seat_wins = {
        (r["condition"], r["players"], r["sole"]): r["len"]
        for r in df.filter(pl.col("sole").is_not_null())
        .group_by("condition", "players", "sole", maintain_order=True)
        .len()
        .iter_rows(named=True)
    }
    groups: dict[tuple[str, int], dict] = {}
    for r in agg.iter_rows(named=True):
        n, p = r["n"], r["players"]
        sd = r["t_sd"] if r["t_sd"] is not None else float("nan")
        half = Z95 * sd / math.sqrt(n) if n > 1 and not math.isnan(sd) else float("nan")
        groups[(r["condition"], p)] = {
            "n": n,
            "deals": r["deals"],
            "seats": [_rate(seat_wins.get((r["condition"], p, s), 0), n) for s in range(p)],
            "first": first_seat(inp.seats, p),
            "balance": seat_balance(
                [seat_wins.get((r["condition"], p, s), 0) for s in range(p)], n, first_seat(inp.seats, p)
            ),
            "shared": _rate(r["shared"], n),
            "no_winner": _rate(r["no_winner"], n),
            "won": _rate(r["won"], n),
            "stalemate": _rate(r["stalemate"], n),
            "turn_limit": _rate(r["turn_limit"], n),
            "turns": {
                "mean": r["t_mean"],
                "low": max(0.0, r["t_mean"] - half),  # a count of turns: the normal interval is cut at 0
                "high": r["t_mean"] + half,
                "sd": sd,
                "p5": r["p5"],
                "q1": r["q1"],
                "median": r["median"],
                "q3": r["q3"],
                "p95": r["p95"],
                "max": r["t_max"],
            },
            "experience": {c: _level(c, r) for c, _, _ in EXPERIENCE},
        }
    order = {c.key: i for i, c in enumerate(inp.conditions)}
    # restricted-play arms: the barred seat rotates, so their seat measures mix the seat with the bar; they are
    # valued by the barred seat's win rate (kbsim.analysis.restricted) and compared on the other measures only
    barred = {c.key for c in inp.conditions if c.bar}
    cells = [
        {"condition": k, "arm": k, "players": p, "verdict": g["balance"]["verdict"], "test": g["balance"]["test"]}
        for (k, p), g in sorted(groups.items(), key=lambda kv: (kv[0][1], order.get(kv[0][0], 0)))
        if k not in barred
    ]
    mixed = head_to_head(df)
    deltas = _deltas(df, inp.comparisons, mixed)
    sections = {name: tests(inp, df, deltas) for name, tests in (extra or {}).items()}
    family = [d["delta"] for d in deltas] + [d["delta"] for rows in sections.values() for d in rows]
    adjusted = iter(adjust(family))
    for d in deltas:
        d["delta"] = next(adjusted)
    for rows in sections.values():
        for d in rows:
            d["delta"] = next(adjusted)
    skill = skill_pairs(inp.conditions, inp.comparisons)
    arm_pairs = [pair for pair in inp.comparisons if pair not in skill]
    usage = _rule_usage(inp, df, arm_pairs)
    unused_rules = {k: u["never"] for k, u in usage.items() if u["never"]}
    unused = sorted(
        set(_unused_arms([d for d in deltas if (d["b"], d["a"]) in arm_pairs])) | set(unused_rules),
        key=lambda k: next((i for i, c in enumerate(inp.conditions) if c.key == k), 0),
    )
    # on fewer than MIN_DEALS_FOR_POWER deals a rule never used may just not have come up: no "more deals would
    # not help" there
    few = {k for (k, _p), g in groups.items() if g["deals"] < MIN_DEALS_FOR_POWER}
    return {
        "unused": unused,
        "unused_against": {k: [a for b, a in arm_pairs if b == k] for k in unused if k not in few},
        "unused_rules": unused_rules,
        "rule_usage": usage,
        "rule_chances": {k: _rule_uses(df, k, "legal_turns") for k in unused_rules},
        "players": players,
        "games": df.height,
        "groups": groups,
        "hist": _histograms(df, players),
        "deltas": deltas,
        "bots": _bot_shares(df.filter(~pl.col("condition").is_in(sorted(barred)))),  # (no contest of bots)
        "characters": _characters(inp, df.filter(~pl.col("condition").is_in(sorted(barred)))),
        "restricted": _restricted(sections),
        "verdicts": rank_verdicts(cells),
        "adjustment": _adjustment_counts(deltas + [d for rows in sections.values() for d in rows]),
        "sections": sections,
        "head_to_head": mixed,
    }


def _moments(c: str) -> dict[str, pl.Expr]:
    """The aggregates of one experience measure per cell: games that have it, mean, standard deviation, sum."""
    col = pl.col(c)
    return {"n": col.is_not_null().sum(), "mean": col.mean(), "sd": col.std(), "sum": col.sum()}


def _level(c: str, r: dict) -> dict | None:
    """One cell's level of an experience measure: a rate dict (comebacks) or a mean with its 95% normal interval.

    None when no game of the cell has the measure (records older than schema 8, or no sole winner).
    """
    n = r[f"x_{c}_n"]
    if not n:
        return None
    if c in BINARY:
        return _rate(round(r[f"x_{c}_sum"]), n)
    mean, sd = r[f"x_{c}_mean"], r[f"x_{c}_sd"]
    half = Z95 * sd / math.sqrt(n) if n > 1 and sd is not None else float("nan")
    top = 1.0 if c in SHARES else math.inf  # (a share of the game or of the turns is at most 1)
    return {"n": n, "mean": mean, "low": max(0.0, mean - half), "high": min(top, mean + half)}


def head_to_head(df: pl.DataFrame) -> list[str]:
    """Condition keys whose games seat more than one bot (a head-to-head arm), in order of appearance."""
    rows = df.select("condition", "lineup").unique(maintain_order=True).iter_rows()
    return list(dict.fromkeys(c for c, lu in rows if len(set(lu.split(","))) > 1))


def _unused_arms(deltas: list[dict]) -> list[str]:
    """Condition keys B whose every paired difference with their baseline is 0 on every deal.

    All metrics, all player counts: the bots never made a move that the arm's rules change, so the arm
    measured nothing.
    """
    by_b: dict[str, list[Delta]] = {}
    for d in deltas:
        by_b.setdefault(d["b"], []).append(d["delta"])
    return [b for b, ds in by_b.items() if ds and all(x.identical for x in ds)]


def _rule_uses(df: pl.DataFrame, key: str, field: str = "uses") -> dict[str, int]:
    """Rule-usage counter -> the sum of ``field`` over the records of condition ``key`` (column ``rule_usage``).

    ``field`` is ``uses`` (moves that needed the rule) or ``legal_turns`` (turns at whose start a rebuild that
    needs it was legal; counters without it, and records older than schema 6, are left out).
    """
    if "rule_usage" not in df.columns:
        return {}
    rows = df.filter(pl.col("condition") == key).select(pl.col("rule_usage").explode()).drop_nulls()
    if rows.height == 0:
        return {}
    rows = rows.unnest("rule_usage")
    if field not in rows.columns:
        return {}
    u = rows.drop_nulls(field).group_by("rule", maintain_order=True).agg(pl.col(field).sum())
    return dict(zip(u["rule"].to_list(), u[field].to_list(), strict=True))


def skill_pairs(conditions: Sequence[Condition], comparisons: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
    """The comparisons ``(B, A)`` of one arm at a stronger rung against itself at the first rung (a skill ladder).

    Every other comparison is between two arms (or sweep values) played by the same bots: only there can an arm's
    rule be "never used" (a skill comparison changes the bots, not the rules).
    """
    conds = {c.key: c for c in conditions}
    return {
        (b, a)
        for b, a in comparisons
        if b in conds and a in conds and conds[b].rung is not None and conds[b].arm_key == conds[a].arm_key
    }


def idle(stats: Mapping, b: str, a: str) -> bool:
    """Whether the comparison B − A of a page (``stats`` from :func:`compute`) measured an arm that used nothing.

    True when arm B's rule was never used in its games (or B played exactly like its baseline on every deal) and
    A is a baseline it was measured against at the same rung: more deals with the same bots would not resolve that
    difference. A skill comparison (B and A one arm at two rungs) is never idle, nor is an arm played on fewer than
    :data:`~kbsim.analysis.metrics.MIN_DEALS_FOR_POWER` deals in some cell (its rule may just not have come up).
    """
    return a in stats.get("unused_against", {}).get(b, ())


def _rule_usage(inp: ReportInput, df: pl.DataFrame, arm_pairs: Sequence[tuple[str, str]]) -> dict[str, dict]:
    """Condition key B -> how B's games used the rules that tell B from its baseline A (at B's rung).

    A rule tells B from A when B's records list its usage counter (the rules of B enable it, see the records'
    ``rule_usage`` column) and A's do not; A is B's last comparison with another arm (``arm_pairs``: skill
    comparisons left out). Measured per condition, so per rung of a skill ladder: a rule the planner never used may
    be used by the search bot. Records without the ``rule_usage`` column give nothing here (the "identical on
    every deal" inference still applies).

    Returns:
        Per B with such a rule: ``baseline`` (A's key), ``rung`` (B's rung or None), ``games`` (B's games),
        ``uses`` (rule -> moves that needed it, summed over B's games) and ``never`` (the rules used 0 times).
    """
    out: dict[str, dict] = {}
    base_of = dict(arm_pairs)
    for c in inp.conditions:
        a = base_of.get(c.key)
        if a is None or a == c.key:
            continue
        mine, theirs = _rule_uses(df, c.key), _rule_uses(df, a)
        telling = {k: int(v or 0) for k, v in sorted(mine.items()) if k not in theirs}
        if telling:
            out[c.key] = {
                "baseline": a,
                "rung": c.rung,
                "games": df.filter(pl.col("condition") == c.key).height,
                "uses": telling,
                "never": [k for k, v in telling.items() if not v],
            }
    return out


def _adjustment_counts(deltas: list[dict]) -> dict:
    """How many differences the page tests, and how many are resolved before and after Holm's adjustment."""
    tested = [d["delta"] for d in deltas if d["delta"].testable]
    return {
        "method": ADJUSTMENT_NAME,
        "comparisons": len(tested),
        "untestable": sum(1 for d in deltas if not d["delta"].testable),
        "resolved_raw": sum(d.resolved_raw for d in tested),
        "resolved": sum(d.resolved for d in tested),
        "unpaired": sum(not d.paired for d in tested),
    }


def _histograms(df: pl.DataFrame, players: list[int]) -> dict:
    """Per player count: bin edges and per condition the share of games per bin (last bin: overflow)."""
    out = {}
    for p in players:
        sub = df.filter(pl.col("players") == p)
        lo = int(sub["turns"].min())
        top = int(math.ceil(sub["turns"].quantile(0.995, "linear")))
        width = max(1, math.ceil((top - lo + 1) / 50))
        nbins = (top - lo) // width + 1
        binned = sub.with_columns(bin=((pl.col("turns").clip(lo, lo + nbins * width - 1) - lo) // width).cast(pl.Int64))
        counts = binned.group_by("condition", "bin", maintain_order=True).len()
        tot = sub.group_by("condition", maintain_order=True).len()
        per: dict[str, list[float]] = {}
        ntot = {r["condition"]: r["len"] for r in tot.iter_rows(named=True)}
        for r in counts.iter_rows(named=True):
            per.setdefault(r["condition"], [0.0] * nbins)[r["bin"]] = r["len"] / ntot[r["condition"]]
        overflow = bool(sub["turns"].max() > lo + nbins * width - 1)
        out[p] = {"edges": [lo + i * width for i in range(nbins)], "width": width, "share": per, "overflow": overflow}
    return out


def per_deal(df: pl.DataFrame) -> pl.DataFrame:
    """Each arm's outcome per deal: the mean of :data:`METRICS` over the deal's games (its seat rotations).

    Columns ``condition, players, seed`` and one per metric, in the order of ``df`` (:data:`RECORD_ORDER`).
    """
    cols = [m for m, _, _ in METRICS]
    return df.group_by("condition", "players", "seed", maintain_order=True).agg([pl.col(c).mean() for c in cols])


def _deltas(df: pl.DataFrame, comparisons: list[tuple[str, str]], mixed: Sequence[str] = ()) -> list[dict]:
    """Differences B - A per comparison, player count and metric (raw p-values; :func:`compute` adjusts them).

    A head-to-head arm (in ``mixed``) is not compared on the seat measures (first-player rate, largest seat gap).
    A restricted-play arm is one (one seat's bot is barred): its barred seat rotates over the seats, and its value
    is the barred seat's win rate (:mod:`kbsim.analysis.restricted`); game length and the experience measures
    (compared on the deals where both arms have them) are compared as for any arm.

    Paired on common deals (``seed``, the unit; an arm's outcome on a deal is the mean over its seat
    rotations); when two arms share no deal at a player count, they are compared as independent samples
    (Newcombe for rates, Welch for turns) and the row says so. ``df`` is in :data:`RECORD_ORDER`; the deals of
    a comparison are taken in seed order, so every statistic (and the seat-gap resampling) is the same
    whatever order the records came in.
    """
    if not comparisons:
        return []
    deals = per_deal(df)
    out = []
    for b, a in comparisons:
        seat_based = b not in mixed and a not in mixed
        B = deals.filter(pl.col("condition") == b).drop("condition")
        A = deals.filter(pl.col("condition") == a).drop("condition")
        j = B.join(A, on=["players", "seed"], suffix="_a").sort("players", "seed")
        for p in sorted(set(B["players"].to_list()) | set(A["players"].to_list())):
            jp = j.filter(pl.col("players") == p)
            for c, label, unit in METRICS:
                if c == "seat0" and not seat_based:
                    continue
                if c in EXPERIENCE_METRICS:  # measured on the deals where both arms have it (a sole winner...)
                    both = jp.drop_nulls([c, f"{c}_a"])
                    if both.height == 0:
                        continue  # (records without the measure, or no deal where both have it)
                    d = paired((both[c] - both[f"{c}_a"]).to_numpy(), binary=c in BINARY)
                elif jp.height:
                    d = paired((jp[c] - jp[f"{c}_a"]).to_numpy(), binary=c in BINARY)
                else:
                    gb = df.filter((pl.col("condition") == b) & (pl.col("players") == p))[c].to_numpy()
                    ga = df.filter((pl.col("condition") == a) & (pl.col("players") == p))[c].to_numpy()
                    if c in BINARY:
                        d = unpaired_rate(int(gb.sum()), gb.size, int(ga.sum()), ga.size)
                    else:
                        d = unpaired_mean(gb, ga)
                out.append({"b": b, "a": a, "players": p, "metric": c, "label": label, "unit": unit, "delta": d})
            if jp.height and seat_based:
                seeds = jp["seed"]
                d = paired_seat_gap(seat_wins(df, a, p, seeds), seat_wins(df, b, p, seeds))
                c, label, unit = SEAT_GAP
                out.append({"b": b, "a": a, "players": p, "metric": c, "label": label, "unit": unit, "delta": d})
    return out


def seat_wins(df: pl.DataFrame, condition: str, players: int, seeds: pl.Series) -> np.ndarray:
    """Games won alone per deal and seat of one arm and player count, shape ``(len(seeds), players)``.

    Row ``i`` is deal ``seeds[i]`` (all its seat rotations summed); a deal with no game won alone is a row of 0.
    """
    per = (
        df.filter((pl.col("condition") == condition) & (pl.col("players") == players))
        .group_by("seed", maintain_order=True)
        .agg([(pl.col("sole") == s).sum().alias(f"w{s}") for s in range(players)])
    )
    rows = pl.DataFrame({"seed": seeds}).join(per, on="seed", how="left", maintain_order="left").fill_null(0)
    return rows.select([f"w{s}" for s in range(players)]).to_numpy().astype(np.float64)


def _bot_shares(df: pl.DataFrame) -> list[dict]:
    """For conditions with a mixed lineup: each bot's share of games won alone, against its fair share."""
    mixed = sorted(
        {
            r["condition"]
            for r in df.select("condition", "lineup").unique(maintain_order=True).iter_rows(named=True)
            if len(set(r["lineup"].split(","))) > 1
        }
    )
    if not mixed:
        return []
    sub = df.filter(pl.col("condition").is_in(mixed)).with_columns(
        winner_bot=pl.when(pl.col("sole").is_not_null())
        .then(pl.col("bots").list.get(pl.col("sole").cast(pl.Int64), null_on_oob=True))
        .otherwise(None)
    )
    out = []
    for (cond, p), g in sorted(
        sub.group_by("condition", "players", maintain_order=True), key=lambda kv: (kv[0][0], kv[0][1])
    ):
        n = g.height
        lineup = g["bots"][0].to_list()
        by_bot = g.group_by("winner_bot", maintain_order=True).len()
        wins = {r["winner_bot"]: r["len"] for r in by_bot.iter_rows(named=True)}
        for bot in sorted(set(lineup)):
            out.append(
                {
                    "condition": cond,
                    "players": p,
                    "bot": bot,
                    "seats": lineup.count(bot),
                    "fair": lineup.count(bot) / p,
                    **_rate(wins.get(bot, 0), n),
                }
            )
    return out


def _restricted(sections: dict[str, list[dict]]) -> list[dict]:
    """The restricted-play values, adjusted with the page (section ``restricted``, :mod:`kbsim.analysis.restricted`)."""
    from kbsim.analysis.restricted import values_of

    return values_of(sections.get("restricted", []))


def _ranked_arm(conditions: Sequence[Condition], have: set[str]) -> str | None:
    """The arm whose characters are ranked: the baseline if it has character plays, else one arm that has.

    The baseline is the first arm; else the arms with plays of the baseline's bots (its rung) come first, the
    first by label: chosen by label, not by place on the page, so that ``compare`` ranks the same arm whatever
    order its files are listed in after the baseline's.
    """
    if not conditions or not have:
        return None
    if conditions[0].key in have:
        return conditions[0].key
    bots = conditions[0].bots
    cands = [c for c in conditions if c.key in have]
    return min(cands, key=lambda c: (c.bots != bots, c.label, c.key)).key if cands else None


def _characters(inp: ReportInput, records: pl.DataFrame) -> dict | None:
    """Character tables with display names, and a ranking for one arm with plays (:func:`_ranked_arm`).

    ``records`` are the page's records in :data:`RECORD_ORDER`. Returns None without character data; else
    ``plays`` and ``lift`` (lists of dicts with ``name``),
    ``base`` (the ranked arm's condition key) and ``ranking``: per player count, the ranked arm's characters
    sorted by lift (largest first), each with plays per game, lift, interval, raw and Holm-adjusted p.
    """
    from kbsim.analysis.characters import character_lift, character_plays, has_character_data

    if not has_character_data(records):
        return None
    names = (inp.names or {}).get("characters", {})
    plays = character_plays(records).to_dicts()
    lift = character_lift(records).to_dicts()
    for r in plays + lift:
        r["name"] = names.get(r["character"], r["character"])
    have = {r["condition"] for r in lift}
    base = _ranked_arm(inp.conditions, have)
    per_game = {(r["players"], r["character"]): r for r in plays if r["condition"] == base}
    ranking = []
    for r in sorted((r for r in lift if r["condition"] == base), key=lambda r: (r["players"], -r["lift"])):
        pg = per_game.get((r["players"], r["character"]), {})
        ranking.append(
            r
            | {
                "per_game": pg.get("per_game", float("nan")),
                "per_game_low": pg.get("per_game_low"),
                "per_game_high": pg.get("per_game_high"),
            }
        )
    return {"plays": plays, "lift": lift, "base": base, "ranking": ranking}
