"""What a rule, power or option is worth to a player: restricted play, from the records.

Restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović, "Evaluating competitive game balance with
restricted play", AIIDE 2012): in a restricted arm one seat's bot is barred from a kind of move (its ``bar``,
enforced by the engine: :mod:`kbsim.engine.restrict`) and the other seats play the same bot unbarred, on the same
deals as the baseline arm (every seat unbarred), the barred seat rotated over the seats. For every game of the
restricted arm, with the barred seat ``s`` (the seat whose bot spec holds ``bar=``)::

    d = [the barred seat won alone] - [seat s won alone in the baseline game of the same deal]

averaged over the deal's rotations; the paired mean of ``d`` over deals, with its t interval and test
(:func:`kbsim.analysis.metrics.paired`), is the **effect of the bar** on the barred seat's win rate. Its
negative is the **value** of the move kind to a player: "Mother Agatha is worth +2.1 pp to the seat that may
play the character". Values are given per player count and pooled over the player counts (every deal of every
count, equal weight per deal), Holm-adjusted (:func:`kbsim.analysis.metrics.adjust`), and ranked by the pooled
value; on a report page the values join the page's one family of tests (:func:`restricted_tests`, the page section
"What each move is worth to a player", :mod:`kbsim.analysis.sections`), elsewhere they are adjusted among
themselves (:func:`restricted_values`). With a skill ladder, each rung's restricted arm is valued against the same
rung's baseline. A shared win is never a seat's win, here as everywhere.

Beside each value: the barred seat's and the baseline seat's sole-win rates (Wilson), how often the bar yielded
(``bar_yields``: turns in which the barred move was the only way to finish the turn), and, for a character, how
often the unbarred seats played it (``character_plays``): a value near 0 of a move the others hardly make
measured little.

The observational lift of :mod:`kbsim.analysis.characters` (games where a seat played a character against games
where it did not) is a description only: a seat that is ahead gets more chances to play, so it is never a value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from kbsim.analysis.metrics import Delta, adjust, paired, rate

#: The prefix of the move kinds that name a character (``characters.play.<key>``).
CHARACTER_PLAY = "characters.play."
_BAR_MARK = "bar=["  # in a canonical bot spec: the seat's bot is barred (kbsim.bots.spec)


def barred_seat(bots: list[str]) -> int:
    """The seat whose bot spec carries a bar (``greedy(bar=[...])``), or -1 when none or several do."""
    seats = [s for s, b in enumerate(bots) if _BAR_MARK in b]
    return seats[0] if len(seats) == 1 else -1


def _sole(winners: list[int]) -> int:
    return winners[0] if len(winners) == 1 else -1


def _games(df: pl.DataFrame, condition: str) -> pl.DataFrame:
    """The games of one condition: players, seed, bots, sole winner (-1: none), and the optional columns."""
    cols = [c for c in ("players", "seed", "bots", "winners", "bar_yields", "character_plays") if c in df.columns]
    return df.filter(pl.col("condition") == condition).select(cols)


def _cell(restricted: pl.DataFrame, base: pl.DataFrame, kind: str) -> dict[str, Any] | None:
    """The per-deal differences and counts of one restricted arm against its baseline at one player count."""
    base_win: dict[int, list[int]] = {}
    for seed, winners in base.select("seed", "winners").iter_rows():
        base_win.setdefault(seed, []).append(_sole(winners))
    per_deal: dict[int, list[float]] = {}
    wins = base_wins = n = yields = 0
    others_played = 0
    key = kind[len(CHARACTER_PLAY) :] if kind.startswith(CHARACTER_PLAY) else None
    for row in restricted.iter_rows(named=True):
        s = barred_seat(row["bots"])
        seed = row["seed"]
        if s < 0 or seed not in base_win:
            continue
        w = int(_sole(row["winners"]) == s)
        b = float(np.mean([x == s for x in base_win[seed]]))
        per_deal.setdefault(seed, []).append(w - b)
        n += 1
        wins += w
        base_wins += b
        if row.get("bar_yields"):
            yields += row["bar_yields"][s]
        if key is not None and row.get("character_plays"):
            others_played += sum(e["plays"] for e in row["character_plays"] if e["character"] == key and e["seat"] != s)
    if not per_deal:
        return None
    seeds = sorted(per_deal)
    return {
        "diffs": np.array([float(np.mean(per_deal[k])) for k in seeds]),
        "games": n,
        "deals": len(seeds),
        "wins": wins,
        "base_wins": base_wins,
        "yields": yields,
        "others_played": others_played if key is not None else None,
    }


def restricted_values(
    df: pl.DataFrame, conditions: list[Any], comparisons: list[tuple[str, str]], names: dict | None = None
) -> list[dict[str, Any]]:
    """The value of each barred move kind, per player count and pooled, Holm-adjusted among themselves, ranked.

    Args:
        df: records with ``condition``, ``players``, ``seed``, ``bots``, ``winners`` (and, when present,
            ``bar_yields``, ``character_plays``).
        conditions: the page's conditions (:class:`kbsim.sim.conditions.Condition`); those with a ``bar`` are
            restricted arms.
        comparisons: ``(B, A)`` condition keys; a restricted arm B is valued against its A (its baseline).
        names: display names from the records' metadata (``{"characters": {key: name}}``).

    Returns:
        One dict per restricted arm (and ladder rung), best value first: ``condition``, ``baseline``, ``kind``
        (the barred move kind), ``subject`` (what is valued: a character's name, or the move kind in words),
        ``words``, ``rung``, ``pooled`` and ``by_players`` (each a dict: ``players`` (None pooled), ``value`` (a
        :class:`~kbsim.analysis.metrics.Delta` of the value, the negated effect of the bar, in proportions),
        ``games``, ``deals``, ``barred_rate`` / ``base_rate`` (the barred seat's and the same seat's baseline
        sole-win rates, :func:`~kbsim.analysis.metrics.rate` dicts), ``yields_per_game`` and
        ``others_play_per_game`` (None but for a character)), and ``sentence`` (the value in words).
    """
    items = _items(df, conditions, comparisons, names)
    rows = [r for it in items for r in _tested(it)]
    for r, q in zip(rows, adjust([r["value"] for r in rows]), strict=True):
        r["value"] = q
    return _finished(items)


def restricted_tests(inp: Any, frame: Any = None, deltas: Any = ()) -> list[dict[str, Any]]:
    """The page's restricted-play values as comparisons of its family of tests (a page section's ``tests``).

    Each value (per player count, and pooled where the arm has several) is one comparison: a dict with ``b`` (the
    restricted arm), ``a`` (its baseline), ``players`` (None pooled), ``metric`` ``value``, ``label``, ``unit``,
    ``kind`` ``restricted`` and ``delta`` (the raw value, adjusted by the page with every other comparison); the
    page reads the values back with :func:`values_of`.

    Args:
        inp: the report input (:class:`kbsim.analysis.reading.ReportInput`: records, conditions, comparisons).
        frame: the page's prepared records (not needed: the values read the records as written).
        deltas: the page's other comparisons (not needed).
    """
    out = []
    for it in _items(inp.records, inp.conditions, inp.comparisons, inp.names):
        for r in _tested(it):
            out.append(
                {
                    "b": it["condition"],
                    "a": it["baseline"],
                    "players": r["players"],
                    "metric": "value",
                    "label": f"value of {it['kind']} to a player",
                    "unit": "pp",
                    "kind": "restricted",
                    "delta": r["value"],
                    "item": it,
                    "row": r,
                }
            )
    return out


def values_of(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The values of :func:`restricted_tests` once the page adjusted them, as :func:`restricted_values` gives them."""
    items: dict[int, dict[str, Any]] = {}
    for row in rows:
        row["row"]["value"] = row["delta"]
        items.setdefault(id(row["item"]), row["item"])
    return _finished(list(items.values()))


def _tested(item: dict[str, Any]) -> list[dict[str, Any]]:
    """An item's value rows that are tested: per player count, and pooled when there are several."""
    rows = item["by_players"]
    return [*rows, item["pooled"]] if len(rows) > 1 else list(rows)


def _finished(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items whose values are adjusted: a single count's pooled value is that count's, sentences, best first."""
    for item in items:
        if len(item["by_players"]) == 1:
            item["pooled"]["value"] = item["by_players"][0]["value"]
        item["sentence"] = sentence(item)
    items.sort(key=lambda it: (it["rung"] or "", -_num(it["pooled"]["value"].mean), it["kind"]))
    return items


def _items(
    df: pl.DataFrame, conditions: list[Any], comparisons: list[tuple[str, str]], names: dict | None
) -> list[dict[str, Any]]:
    """The restricted arms' items with raw (unadjusted) values (see :func:`restricted_values`)."""
    names = names or {}
    by_key = {c.key: c for c in conditions}
    out: list[dict[str, Any]] = []
    present = set(df["condition"].unique().to_list())
    for b, a in comparisons:
        cond, base = by_key.get(b), by_key.get(a)
        if cond is None or not getattr(cond, "bar", ()) or b not in present:
            continue
        if base is not None and getattr(base, "bar", ()):
            continue  # (a restricted arm at one rung against itself at the first: not a value)
        kind = cond.bar[0] if len(cond.bar) == 1 else " + ".join(cond.bar)
        R, A = _games(df, b), _games(df, a)
        cells = []
        for p in sorted(set(R["players"].to_list())):
            c = _cell(R.filter(pl.col("players") == p), A.filter(pl.col("players") == p), kind)
            if c is not None:
                cells.append((p, c))
        if not cells:
            continue
        rows = [_value_row(p, c) for p, c in cells]
        if len(cells) > 1:
            pooled = _value_row(None, _merge([c for _, c in cells]))
        else:
            pooled = dict(rows[0], players=None)
        item = {
            "condition": b,
            "baseline": a,
            "kind": kind,
            "words": cond.bar_words or kind,
            "subject": _subject(kind, cond.bar_words, names),
            "rung": getattr(cond, "rung", None),
            "by_players": rows,
            "pooled": pooled,
        }
        out.append(item)
    return out


def _merge(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Several player counts' cells as one (every deal of every count, equal weight per deal)."""
    others = [c["others_played"] for c in cells]
    return {
        "diffs": np.concatenate([c["diffs"] for c in cells]),
        "games": sum(c["games"] for c in cells),
        "deals": sum(c["deals"] for c in cells),
        "wins": sum(c["wins"] for c in cells),
        "base_wins": sum(c["base_wins"] for c in cells),
        "yields": sum(c["yields"] for c in cells),
        "others_played": None if any(o is None for o in others) else sum(others),
    }


def _value_row(players: int | None, c: dict[str, Any]) -> dict[str, Any]:
    effect = paired(c["diffs"], bounds=(-1.0, 1.0))  # (a change of a win rate: at most 100 pp either way)
    value = Delta(
        mean=-effect.mean,
        low=-effect.high,
        high=-effect.low,
        sd=effect.sd,
        n=effect.n,
        p=effect.p,
        test=effect.test,
        discordant=effect.discordant,
    )
    games = c["games"]
    return {
        "players": players,
        "value": value,
        "games": games,
        "deals": c["deals"],
        "barred_rate": rate(c["wins"], games),
        "base_rate": rate(round(c["base_wins"]), games),
        "yields_per_game": c["yields"] / games if games else float("nan"),
        "others_play_per_game": None if c["others_played"] is None else c["others_played"] / games,
    }


def _num(x: float) -> float:
    return -1e9 if x != x else x  # (nan last)


def _subject(kind: str, words: str, names: dict) -> str:
    """What the value is the value of: a character's display name, or the move kind in words."""
    if kind.startswith(CHARACTER_PLAY):
        key = kind[len(CHARACTER_PLAY) :]
        return str((names.get("characters") or {}).get(key, key))
    return words or kind


def sentence(item: dict[str, Any]) -> str:
    """The pooled value in words: ``Mother Agatha is worth +2.1 pp to the seat that may play the character (...)``.

    On a skill ladder the rung is named (``..., with planner in every seat (...)``).

    The interval is the 95% t interval of the paired value; "resolved" means its Holm-adjusted p-value is below
    0.05; otherwise the sentence says whether only the adjustment keeps it from being resolved.
    """
    v: Delta = item["pooled"]["value"]
    kind = item["kind"]
    if v.mean != v.mean:
        return f"{item['subject']}: no deal to compare."
    if kind.startswith(CHARACTER_PLAY):
        head = f"{item['subject']} is worth {_pp(v.mean)} to the seat that may play the character"
    else:
        words = item["words"]
        head = f"{words[:1].upper() + words[1:]} is worth {_pp(v.mean)} to the seat that may do it"
    if v.identical:
        return f"{head}: the bar changed no game ({v.n:,} deals; the rules or the bots never make such a move)."
    if item.get("rung"):  # (a page on a ladder lists every rung's values: say whose)
        head += f", with {item['rung']} in every seat"
    interval = f"95% interval {_pp(v.low)} to {_pp(v.high)}" if v.low == v.low else "no interval"
    verdict = (
        "resolved"
        if v.resolved
        else "not resolved after Holm's adjustment over the page's values"
        if v.resolved_raw
        else "not distinguished from 0"
    )
    return f"{head} ({interval}; {verdict}, {v.n:,} deals)."


def ranking_sentence(items: list[dict[str, Any]], bots: str = "") -> str:
    """The ranking of the valued move kinds in one sentence, best first, each with its value and interval.

    ``Ranking by what each is worth to the seat that may use it (greedy): Mother Agatha +4.0 pp [+1.2, +6.8],
    Edgar ...``; "(resolved)" marks a value whose Holm-adjusted p-value is below 0.05.
    """
    parts = []
    for it in items:
        v: Delta = it["pooled"]["value"]
        if v.mean != v.mean:
            continue
        tail = f" [{_pp(v.low)[:-3]}, {_pp(v.high)[:-3]}]" if v.low == v.low else ""
        parts.append(f"{it['subject']} {_pp(v.mean)}{tail}{' (resolved)' if v.resolved else ''}")
    if not parts:
        return ""
    who = f" ({bots})" if bots else ""
    return f"Ranked by what each is worth to the seat that may use it{who}: " + "; ".join(parts) + "."


def restricted_table(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The page's rows of :func:`restricted_values`: ``ranking`` (pooled, best first) and ``by_players``.

    Every row: ``rank``, ``subject``, ``words``, ``players`` ("all" pooled), ``value`` (``+2.1 pp``),
    ``interval`` (``[-0.3, +4.5]``), ``status`` (``resolved`` / ``not distinguished from 0``, with the Holm p),
    ``resolved``, ``barred`` / ``base`` (the barred seat's and the same seat's baseline sole-win rates),
    ``deals``, ``games``, ``yields`` (bar yields per game) and ``others`` (the other seats' plays of the character
    per game, "–" for other move kinds).
    """
    from kbsim.analysis.metrics import fmt_p, fmt_pct

    def row(rank: int | str, it: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
        v: Delta = r["value"]
        interval = f"[{_pp(v.low)[:-3]}, {_pp(v.high)[:-3]}]" if v.low == v.low else "–"
        if v.identical:
            status = "the bar changed no game"
        else:
            word = "resolved" if v.resolved else "not resolved after adjustment" if v.resolved_raw else "not resolved"
            status = f"{word} (Holm {fmt_p(v.p_adj)})"
        br, ba = r["barred_rate"], r["base_rate"]
        others = r["others_play_per_game"]
        return {
            "rank": rank,
            "subject": it["subject"],
            "words": it["words"],
            "rung": it["rung"] or "",
            "players": "all" if r["players"] is None else r["players"],
            "value": _pp(v.mean) if v.mean == v.mean else "–",
            "interval": interval,
            "status": status,
            "resolved": v.resolved,
            "barred": f"{fmt_pct(br['rate'])} [{fmt_pct(br['low'])}, {fmt_pct(br['high'])}]",
            "base": f"{fmt_pct(ba['rate'])} [{fmt_pct(ba['low'])}, {fmt_pct(ba['high'])}]",
            "deals": f"{r['deals']:,}",
            "games": f"{r['games']:,}",
            "yields": f"{r['yields_per_game']:.3f}",
            "others": "–" if others is None else f"{others:.2f}",
        }

    ranking, by_players = [], []
    for i, it in enumerate(items, start=1):
        ranking.append(row(i, it, it["pooled"]))
        by_players.extend(row(i, it, r) for r in it["by_players"])
    return {"ranking": ranking, "by_players": by_players}


def _pp(x: float) -> str:
    """A proportion difference in percentage points, signed: ``+2.1 pp``."""
    text = f"{100 * x:+.1f}"
    return ("0.0" if text in ("+0.0", "-0.0") else text) + " pp"


__all__ = [
    "CHARACTER_PLAY",
    "barred_seat",
    "ranking_sentence",
    "restricted_table",
    "restricted_tests",
    "restricted_values",
    "sentence",
    "values_of",
]
