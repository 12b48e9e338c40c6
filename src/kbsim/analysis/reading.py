"""Reading records for a report: the report's input (:class:`ReportInput`), from a study plan or records files.

Records are read with :mod:`kbsim.records` (the one reader); what a page says
about the rules (option defaults, variants, provisional data, display names)
comes from the records' metadata, never from the rule files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from kbsim.analysis.seats import seats_of
from kbsim.records import (
    RECORDS_SCHEMA_VERSION,
    SCHEMA_CHANGES,
    RecordsError,
    RecordsFile,
    describe_version,
    open_records,
    staged_chunks,
)
from kbsim.sim.conditions import Condition, SweepInfo, deals_at

NEEDED_COLUMNS = ["game_index", "seed", "players", "bots", "winners", "end_reason", "turns"]
OPTIONAL_COLUMNS = [
    "character_plays",
    "rule_usage",
    "deal_hash",
    # the experience measures (records schema 8; older records lack them: their sections say so)
    "forced_turns",
    "bar_yields",
    "lead_changes",
    "winner_leads_from",
    "winner_behind_at_half",
]


class ReportError(Exception):
    """Records that cannot be reported: missing file, not kbsim records, missing columns, nothing to show."""


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
        versions: kbsim versions (and records schemas) that wrote the records.
        names: display names of keys held by the records, from their metadata
            (``{"characters": {"den": "Sheriff Den"}}``); a key without a name is shown as is.
        ladder: the skill ladder (bot specs, weakest first) whose rungs the conditions' ``rung`` name; empty
            when the page has none.
        stopping: how the deals were chosen when the study ran until decided
            (:class:`kbsim.analysis.sequential.Stopping`), else None.
        seats: who deals and who plays first, from the records' metadata (:func:`kbsim.analysis.seats.seats_of`;
            the first file that says), or None.
        rung_games: the ladder rungs played on fewer deals per cell than the page's (their own deal count) ->
            those deals (at full size; a look of a study run until decided plays the same share of them).
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
    ladder: list[str] = field(default_factory=list)
    stopping: Any = None
    seats: dict | None = None
    rung_games: dict[str, int] = field(default_factory=dict)


# ------------------------------------------------------------------ records
def _open(path: Path) -> RecordsFile:
    """Open a records file with the one reader (:func:`kbsim.records.open_records`); its problems are report errors."""
    try:
        return open_records(path)
    except RecordsError as e:
        raise ReportError(str(e)) from None


def _read(rf: RecordsFile, need: Sequence[str]) -> pl.DataFrame:
    """The ``need`` columns (all required) and the :data:`OPTIONAL_COLUMNS` a file has, read and verified."""
    missing = [c for c in need if c not in rf.column_names]
    if missing:
        raise ReportError(f"{rf.path}: not kbsim records (missing columns: {', '.join(missing)})")
    try:
        table = rf.read(list(need) + [c for c in OPTIONAL_COLUMNS if c in rf.column_names])
    except RecordsError as e:
        raise ReportError(str(e)) from None
    return pl.from_arrow(table)  # type: ignore[return-value]


def _older_records(opened: Sequence[RecordsFile]) -> list[tuple[str, str]]:
    """A parameters row saying what changed since the oldest records schema among the files (none if current)."""
    oldest = min((rf.schema_version for rf in opened), default=RECORDS_SCHEMA_VERSION)
    if oldest >= RECORDS_SCHEMA_VERSION:
        return []
    files = sum(rf.schema_version < RECORDS_SCHEMA_VERSION for rf in opened)
    since = "; ".join(f"{v}: {SCHEMA_CHANGES[v]}" for v in range(oldest + 1, RECORDS_SCHEMA_VERSION + 1))
    return [
        (
            "older records",
            f"{files} file(s) of records schema {oldest} or later, read by migration and without checksums; "
            f"changed since: {since}",
        )
    ]


def _plain(v: Any) -> str:
    """An option value as written in a study or on the command line (strings without quotes)."""
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


# ------------------------------------------------------------------ compare existing records
def _rules_of(order: list[tuple], file_rows: list[tuple[Path, dict]], df: pl.DataFrame) -> tuple[dict, list]:
    """Option defaults per game and the provisional notes, from the records' metadata (``rules``).

    Files written before the metadata carried ``rules`` give no defaults (the first arm's options are the
    baseline then) and no provisional note.
    """
    defaults: dict[str, dict] = {}
    provisional: dict[str, str] = {}
    games = df.select("file", "game").unique()
    game_of = {f: g for f, g in games.iter_rows()}
    for i, (_, meta) in enumerate(file_rows):
        rules = meta.get("rules") if isinstance(meta.get("rules"), dict) else {}
        game = game_of.get(i)
        if game is None:
            continue
        if isinstance(rules.get("defaults"), dict):
            defaults.setdefault(game, rules["defaults"])
        if rules.get("provisional"):
            provisional.setdefault(game, rules["provisional"])
    wanted = [s[0] for s in order]
    return defaults, [(g, provisional[g]) for g in dict.fromkeys(wanted) if g in provisional]


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


def _arm_labels(order: list[tuple], opts: dict[tuple, dict]) -> dict[tuple, str]:
    """A label per arm signature: the variant, plus the options that differ and the bots if they differ.

    Arms still equal (e.g. two games with a variant of the same name) are numbered.
    """
    # labels: the variant; within arms of one variant add the options that differ, and the bots if they differ
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
    return labels


GAME_KEY = ["condition", "players", "seed", "bots_key"]
"""What identifies one game of a comparison: the arm, the player count, the deal (its seed) and the seat lineup."""


def _one_record_per_game(df: pl.DataFrame, paths: list[Path], labels: dict, key_of: dict) -> pl.DataFrame:
    """Keep one record of each game that several files of an arm hold (e.g. two runs with overlapping indices).

    The copies must agree (same end, turns and winners): which one is kept then does not matter, so the page
    does not depend on the order the files were listed in. Copies that disagree were played under other rules
    or by another kbsim version; pooling them would make the page depend on the listing order, so they are
    refused.

    Raises:
        ReportError: naming both files, the deal and the arm.
    """
    outcome = pl.concat_str(
        [
            pl.col("end_reason"),
            pl.col("turns").cast(pl.String),
            pl.col("winners").cast(pl.List(pl.String)).list.join(","),
        ],
        separator="|",
        ignore_nulls=True,
    )
    clash = (
        df.with_columns(outcome=outcome)
        .group_by(GAME_KEY, maintain_order=True)
        .agg(pl.col("outcome").n_unique().alias("kinds"), pl.col("file").unique(maintain_order=True).alias("files"))
        .filter(pl.col("kinds") > 1)
    )
    if clash.height:
        r = clash.row(0, named=True)
        label = next((labels[s] for s, k in key_of.items() if k == r["condition"]), r["condition"])
        files = [paths[i] for i in r["files"]]
        f1, f2 = files[0], files[-1]
        raise ReportError(
            f"{f2}: game seed {r['seed']} of arm {label!r} ({r['players']} players) is also in {f1} with another "
            f"outcome (played under other rules or by another kbsim version); such files cannot be pooled as one arm"
        )
    return df.unique(subset=GAME_KEY, keep="first", maintain_order=True)


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
    frames = []
    file_rows = []
    opened = []
    for i, p in enumerate(paths):
        rf = _open(Path(p))
        df = _read(rf, NEEDED_COLUMNS + ["game", "variant", "options"]).with_columns(file=pl.lit(i))
        if df.height == 0:
            raise ReportError(f"{rf.path}: holds no records")
        frames.append(df)
        file_rows.append((rf.path, rf.metadata))
        opened.append(rf)
    df = pl.concat(frames, how="diagonal_relaxed")
    combos = df.select("file", "game", "variant", "options", "bots").unique(maintain_order=True)
    sig_of: dict[tuple, tuple] = {}
    arms: dict[tuple, dict] = {}
    for r in combos.iter_rows(named=True):
        sig = (r["game"], r["variant"], r["options"], _lineup_unit(r["bots"]))
        sig_of[(r["file"], r["game"], r["variant"], r["options"], tuple(r["bots"]))] = sig
        arms.setdefault(sig, {"first_file": r["file"], "files": set()})["files"].add(r["file"])
    order = sorted(arms, key=lambda s: arms[s]["first_file"])
    opts = {s: json.loads(s[2]) for s in order}
    labels = _arm_labels(order, opts)
    key_of = {s: f"{i:02d}-arm" for i, s in enumerate(order)}
    mapping = pl.DataFrame(
        [
            {
                "file": k[0],
                "game": k[1],
                "variant": k[2],
                "options": k[3],
                "bots_key": ",".join(k[4]),
                "condition": key_of[s],
            }
            for k, s in sig_of.items()
        ],
        schema={
            "file": pl.Int32,
            "game": pl.String,
            "variant": pl.String,
            "options": pl.String,
            "bots_key": pl.String,
            "condition": pl.String,
        },
    )
    df = (
        df.with_columns(file=pl.col("file").cast(pl.Int32), bots_key=pl.col("bots").list.join(","))
        .join(mapping, on=["file", "game", "variant", "options", "bots_key"], how="left")
        .sort("file", "game_index")
    )
    df = _one_record_per_game(df, [p for p, _ in file_rows], labels, key_of)
    defaults, provisional = _rules_of(order, file_rows, df)
    conditions = []
    for s in order:
        base = defaults.get(s[0], opts[order[0]])
        changed = {k: v for k, v in opts[s].items() if base.get(k) != v}
        conditions.append(
            Condition(
                key=key_of[s],
                label=labels[s],
                arm=labels[s],
                variants=tuple(v for v in s[1].split("+") if v and v != "base"),
                options=changed,
                changed=changed,
                effective=opts[s],
                bots=",".join(s[3]),
            )
        )
    comparisons = [(c.key, conditions[0].key) for c in conditions[1:]]
    params = [
        ("records files", f"{len(file_rows)}"),
        ("baseline arm", conditions[0].label),
        ("pairing", "games of two arms are paired when they have the same game seed (same run seed and index)"),
    ]
    params += [(f"provisional data ({g})", note) for g, note in provisional]
    params += _older_records(opened)
    for i, (p, meta) in enumerate(file_rows):
        run = meta.get("run", {}) if isinstance(meta.get("run"), dict) else {}
        what = ", ".join(f"{k} {run[k]}" for k in ("variant", "players", "bots", "games", "seed") if k in run)
        params.append((f"file {i + 1}", f"{p}" + (f" ({what})" if what else "")))
    versions = sorted({describe_version(rf) for rf in opened})
    names: dict[str, dict[str, str]] = {}
    for _, m in file_rows:
        for kind, table in (m.get("names") or {}).items():
            names.setdefault(kind, {}).update(table)
    name = "compare-" + "-".join(Path(p).stem for p, _ in file_rows)[:60]
    return ReportInput(
        title="Comparison of records",
        name=name,
        question="",
        source=", ".join(str(p) for p, _ in file_rows),
        parameters=params,
        conditions=conditions,
        comparisons=comparisons,
        sweep=None,
        records=df.drop("file", "game", "variant", "options", "bots_key"),
        versions=versions,
        names=names,
        seats=next((s for _, m in file_rows if (s := seats_of(m)) is not None), None),
    )


__all__ = [
    "NEEDED_COLUMNS",
    "OPTIONAL_COLUMNS",
    "ReportError",
    "ReportInput",
    "compare_input",
    "deals_words",
    "study_input",
]


def deals_words(per_rung: dict[Any, int]) -> str:
    """Deals per cell in words, per rung where they differ.

    Args:
        per_rung: rung name (or None without a ladder) -> deals per cell.

    Returns:
        ``10,000 deals per cell``, or where rungs differ ``10,000 deals per cell with greedy and planner, 300 with
        search`` (most deals first).
    """
    by_n: dict[int, list[str]] = {}
    for r, n in per_rung.items():
        by_n.setdefault(n, []).append(str(r))
    if len(by_n) == 1:
        return f"{next(iter(by_n)):,} deals per cell"
    parts = [
        f"{n:,}{' deals per cell' if i == 0 else ''} with "
        + (", ".join(rs[:-1]) + " and " + rs[-1] if len(rs) > 1 else rs[0])
        for i, (n, rs) in enumerate(sorted(by_n.items(), reverse=True))
    ]
    return ", ".join(parts)


def _deals_row(plan: Any, upto: int | None) -> str:
    """The parameters row of deals per cell: the page's, the rungs and arms with their own count, the study file's."""
    st = plan.study
    cap = plan.games
    text = f"{min(upto, cap):,} (played until decided; cap {cap:,})" if upto else f"{cap:,}"
    rungs = {c.rung: c.games for c in plan.conditions if c.rung is not None and c.games is not None}
    arms = {c.arm: c.games for c in plan.conditions if c.rung is None and c.games is not None}
    for own in (rungs, arms):
        if own:
            text += "; " + "; ".join(_own_deals(name, n, cap, upto) for name, n in own.items())
    return text + ("" if cap == st.games else f" (study file: {st.games:,})")


def _own_deals(name: str, n: int, cap: int, upto: int | None) -> str:
    """A rung's or an arm's own deals per cell, ``n``, in words (at a look of ``upto`` deals: until decided)."""
    if upto:
        return f"{name}: {deals_at(upto, n, cap):,} of its {n:,} (the same share of its deals)"
    return f"{name}: {n:,} (the first {n:,} of the {cap:,})"


def _bots_text(plan: Any, lineups: list[str]) -> str:
    """The bots of a study in words: the ladder's rungs (and the head-to-head lineups), or the lineups."""
    ladder = list(getattr(plan, "ladder", []) or [])
    if not ladder:
        return "; ".join(lineups)
    mixed = sorted({c.bots for c in plan.conditions if c.rung is None})
    text = f"skill ladder {' < '.join(ladder)} (the rung's bot in every seat)"
    return text + (f"; head-to-head lineups, played as written: {'; '.join(mixed)}" if mixed else "")


def study_input(plan: Any, upto: int | None = None) -> ReportInput:
    """Everything the report page needs for a study whose runs are finished (or have played ``upto`` deals).

    Args:
        plan: a :class:`kbsim.sim.study.StudyPlan` (its study, conditions, comparisons, runs and records folder).
        upto: only the first ``upto`` deals of every cell (a look of a study run until decided; runs may be
            unfinished, their written chunks are read).

    Returns:
        :class:`ReportInput`; the provisional note and display names come from the records' metadata.

    Raises:
        ReportError: a run's records file is missing or unreadable.
    """
    st = plan.study
    sources = {
        r.path: r.path if r.path.is_file() or upto is None else next(iter(staged_chunks(r.path)), None)
        for r in plan.runs
    }
    missing = [p for p, src in sources.items() if src is None or not src.is_file()]
    if missing:
        raise ReportError(f"{plan.source}: records missing (e.g. {missing[0]}); run the study first")
    look = {r.path: None if upto is None else plan.upto_of(r, upto) for r in plan.runs}  # a smaller rung: its share
    files = {
        r.path: [r.path] if upto is None or r.path.is_file() else staged_chunks(r.path, look[r.path]) for r in plan.runs
    }
    opened = {p: [_open(f) for f in fs] for p, fs in files.items()}
    frames = []
    for r in plan.runs:
        for rf in opened[r.path]:
            frame = _read(rf, NEEDED_COLUMNS).with_columns(condition=pl.lit(r.condition.key))
            frames.append(frame if upto is None else frame.filter(pl.col("game_index") < look[r.path]))
    if not frames:
        raise ReportError(f"{plan.source}: no records to report")
    records = pl.concat(frames, how="diagonal_relaxed")
    every = [rf for fs in opened.values() for rf in fs]
    metas = [fs[0].metadata for fs in opened.values() if fs]
    versions = sorted({describe_version(rf) for rf in every})
    names: dict[str, dict[str, str]] = {}
    for m in metas:
        for kind, table in (m.get("names") or {}).items():
            names.setdefault(kind, {}).update(table)
    lineups = sorted({",".join(a.bots) if isinstance(a.bots, list) else a.bots for a in st.arms})
    params = [
        ("study file", str(plan.source)),
        ("game (rule file)", f"{st.game} ({plan.rules_source})"),
        ("player counts", ", ".join(str(p) for p in st.players)),
        ("deals per cell", _deals_row(plan, upto)),
        ("run seed", str(st.seed)),
        ("bots", _bots_text(plan, lineups)),
        (
            "seat rotation",
            "each mixed lineup played in every seat rotation on the same deals" if st.rotate_seats else "off",
        ),
        ("baseline arm", st.base_arm.name),
    ]
    if st.sweep:
        params.append(
            (
                "sweep",
                f"{st.sweep.option} over {', '.join(json.dumps(v) for v in st.sweep.values)} "
                f"(baseline {json.dumps(st.sweep.base_value)})",
            )
        )
    params.append(("records", str(plan.records_dir)))
    params += _older_records(every)
    provisional = next(
        (
            m["rules"]["provisional"]
            for m in metas
            if isinstance(m.get("rules"), dict) and m["rules"].get("provisional")
        ),
        None,
    )
    if provisional:  # the rules' data (e.g. a card list) is not the published one: say so on the page
        params.insert(2, ("provisional data", provisional))
    sweep = None
    if st.sweep:
        keys = {(c.arm, json.dumps(c.sweep_value, sort_keys=True)): c.key for c in plan.conditions}
        sweep = SweepInfo(
            option=st.sweep.option,
            values=list(st.sweep.values),
            baseline=st.sweep.base_value,
            arms=[a.name for a in st.arms],
            keys=keys,
        )
    return ReportInput(
        title=st.title or st.name,
        name=st.name,
        question=st.question,
        source=str(plan.source),
        parameters=params,
        conditions=plan.conditions,
        comparisons=plan.comparisons,
        sweep=sweep,
        records=records,
        versions=versions,
        names=names,
        ladder=list(getattr(plan, "ladder", []) or []),
        seats=next((s for m in metas if (s := seats_of(m)) is not None), None),
        rung_games={c.rung: c.games for c in plan.conditions if c.rung is not None and c.games is not None},
    )
