"""What pairing by deal bought on a page: measured, not assumed.

Two arms are paired by game seed: game ``i`` of every arm starts from the deal seeded by (run seed, ``i``). That
is the *same deal* only where the records' ``deal_hash`` (a hash of the dealt cards and hands) agrees: a variant
that deals differently (characters dealt too, another hand size) shares the seed, not the deal. And pairing
helps only as much as the arms' outcomes on a deal go together: the variance of a paired difference is that of
an unpaired one times ``1 - r`` (equal variances), ``r`` the correlation of the two arms' per-deal outcomes.
:func:`pairing_notes` measures both for every comparison of the page, so the page states them instead of
claiming that pairing "removes the luck of the deal".
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from kbsim.analysis.arms import per_deal, prepare
from kbsim.analysis.reading import ReportInput


def pairing_stats(inp: ReportInput) -> list[dict]:
    """Per comparison and player count: paired deals, the share with equal deal hashes, and the correlations.

    Returns:
        Dicts with ``b``, ``a``, ``players``, ``deals`` (paired by seed), ``same_deal`` (share of them whose deal
        hashes agree; None when the records carry no hash), ``r_seat0`` and ``r_turns`` (Pearson correlation
        of the arms' per-deal first-seat sole wins and turns; nan when either is constant).
    """
    df = prepare(inp.records, inp.seats)
    deals = per_deal(df)
    hashes = None
    if "deal_hash" in df.columns:
        hashes = df.group_by("condition", "players", "seed", maintain_order=True).agg(h=pl.col("deal_hash").first())
    out = []
    for b, a in inp.comparisons:
        j = (
            deals.filter(pl.col("condition") == b)
            .join(deals.filter(pl.col("condition") == a), on=["players", "seed"], suffix="_a")
            .sort("players", "seed")
        )
        for p in sorted(set(j["players"].to_list())):
            jp = j.filter(pl.col("players") == p)
            same = None
            if hashes is not None:
                hb = hashes.filter((pl.col("condition") == b) & (pl.col("players") == p))
                ha = hashes.filter((pl.col("condition") == a) & (pl.col("players") == p))
                hj = hb.join(ha, on="seed", suffix="_a")
                same = float((hj["h"] == hj["h_a"]).mean()) if hj.height else None
            out.append(
                {
                    "b": b,
                    "a": a,
                    "players": p,
                    "deals": jp.height,
                    "same_deal": same,
                    "r_seat0": _corr(jp["seat0"].to_numpy(), jp["seat0_a"].to_numpy()),
                    "r_turns": _corr(jp["turns"].to_numpy(), jp["turns_a"].to_numpy()),
                }
            )
    return out


def _corr(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.std(x) == 0 or np.std(y) == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def _span(vals: list[float]) -> str:
    vals = [v for v in vals if not math.isnan(v)]
    if not vals:
        return "–"
    lo, hi = min(vals), max(vals)
    return f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f} to {hi:.2f}"


def pairing_notes(inp: ReportInput, labels: dict[str, str]) -> list[str]:
    """The page's sentences about pairing: which arms share their deals, and how much pairing reduced noise."""
    rows = pairing_stats(inp)
    if not rows:
        return []
    notes = []
    with_hash = [r for r in rows if r["same_deal"] is not None]
    if with_hash:
        same = [r for r in with_hash if r["same_deal"] == 1.0]
        differ = {(r["b"], r["a"]) for r in with_hash if r["same_deal"] < 1.0}
        if len(same) == len(with_hash):
            notes.append(
                "Arms are paired by game seed, and their deal hashes agree on every paired deal: each comparison is "
                "on the same deals (the same cards dealt the same way)."
            )
        else:
            pairs = "; ".join(
                f"{labels.get(b, b)} and {labels.get(a, a)} "
                f"({100 * min(r['same_deal'] for r in with_hash if (r['b'], r['a']) == (b, a)):.0f}% of deals equal)"
                for b, a in sorted(differ)[:6]
            )
            more = f" and {len(differ) - 6} more" if len(differ) > 6 else ""
            notes.append(
                "Arms are paired by game seed (game i of every arm starts from the seed of deal i). Where the deal "
                "hashes agree, the pair played the same deal; they differ for "
                f"{pairs}{more}: those arms deal differently from the same seed, so a pair shares its seed and "
                "shuffle, not every card dealt."
            )
    r0, rt = [r["r_seat0"] for r in rows], [r["r_turns"] for r in rows]
    if any(not math.isnan(v) for v in r0 + rt):
        notes.append(
            f"On paired deals the two arms' outcomes correlate: r = {_span(r0)} for the first seat winning alone "
            f"and r = {_span(rt)} for game length (per comparison and player count). Pairing shrinks the "
            "variance of a difference by the share r, so it helps little where r is small (a deal's winner "
            "depends mostly on the play, not the cards) and much where r is large."
        )
    return notes


__all__ = ["pairing_notes", "pairing_stats"]
