"""Character statistics of the complete game: plays per character and the win-rate lift of playing one.

Expected record column (written by the engine when the ``characters`` variant is
in play; records without it, or with it null, simply have no character section):

``character_plays``: ``list<struct<seat: int8, character: string, plays: int16>>``
    One entry per (seat, character) that this seat played at least once in the
    game: the seat (0-based), the character's rule-file key (e.g. ``ragna``) and
    how many times that seat played it. A game without any character play has an
    empty list.

Both tables are computed per (``condition``, ``players``) group of a records
DataFrame that also has ``winners`` (list of winning seats) and ``condition``
(the arm), for the conditions in which some character was played. A shared win
is never a seat's win, here as everywhere.

**Lift** of a character is observational: the sole-win rate of the seat-games in
which the seat played that character, minus the rate of the seat-games in which
it did not, with Newcombe's interval for a difference of two proportions
(:func:`kbsim.analysis.metrics.unpaired_rate`, with a score-test p-value Holm-adjusted
over the table). A seat that is ahead may simply get more chances to play, so a lift is a hint,
not a cause; the ablation
study (``reports/characters``: each character removed in turn, paired on the
same deals) measures the causal effect of a character being in the game.
"""

from __future__ import annotations

import math

import polars as pl

from kbsim.analysis.metrics import Z95, adjust, unpaired_rate, wilson

COLUMN = "character_plays"


def has_character_data(df: pl.DataFrame) -> bool:
    """True when ``df`` has a ``character_plays`` column of the documented shape with at least one play.

    Records of the base game have the column with empty lists: no character section for them.
    """
    if COLUMN not in df.columns:
        return False
    dtype = df.schema[COLUMN]
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return False
    fields = {f.name for f in dtype.inner.fields}
    return {"seat", "character", "plays"} <= fields and bool((df[COLUMN].list.len() > 0).any())


def _games(df: pl.DataFrame) -> pl.DataFrame:
    """Games of the conditions with character plays, with a game id ``gid`` and the sole winner ``sole``.

    ``sole`` is null when no one or several seats won.
    """
    games = df.filter(pl.col(COLUMN).is_not_null())
    active = (
        games.group_by("condition")
        .agg(played=(pl.col(COLUMN).list.len() > 0).any())
        .filter(pl.col("played"))["condition"]
        .to_list()
    )
    return (
        games.filter(pl.col("condition").is_in(active))
        .with_row_index("gid")
        .with_columns(
            sole=pl.when(pl.col("winners").list.len() == 1)
            .then(pl.col("winners").list.first().cast(pl.Int16))
            .otherwise(None)
        )
    )


def _plays(games: pl.DataFrame) -> pl.DataFrame:
    """One row per (game, seat, character) with plays > 0."""
    return (
        games.select("gid", "condition", "players", "sole", COLUMN)
        .explode(COLUMN)
        .drop_nulls(COLUMN)
        .unnest(COLUMN)
        .filter(pl.col("plays") > 0)
        .group_by("gid", "condition", "players", "sole", "seat", "character")
        .agg(pl.col("plays").sum())
    )


def character_plays(df: pl.DataFrame) -> pl.DataFrame:
    """Plays per character, per (condition, players).

    Args:
        df: records with ``condition``, ``players``, ``winners`` and ``character_plays``.

    Returns:
        Columns ``condition, players, character, games`` (games in the group),
        ``plays`` (total), ``per_game`` (mean plays per game) with ``per_game_low`` /
        ``per_game_high`` (normal 95% interval over games, cut at 0), ``games_played`` (games
        in which any seat played it), ``share`` (= games_played / games) with
        ``share_low`` / ``share_high`` (Wilson 95%). Sorted by condition, players, character.
    """
    games = _games(df)
    n = games.group_by("condition", "players").agg(games=pl.len())
    per_game = (
        _plays(games)
        .group_by("condition", "players", "character", "gid")
        .agg(pl.col("plays").sum())
        .group_by("condition", "players", "character")
        .agg(plays=pl.col("plays").sum(), sq=(pl.col("plays").cast(pl.Float64) ** 2).sum(), games_played=pl.len())
    )
    out = per_game.join(n, on=["condition", "players"]).sort("condition", "players", "character")
    rows = []
    for r in out.iter_rows(named=True):
        g = r["games"]
        mean = r["plays"] / g
        var = (r["sq"] - g * mean * mean) / (g - 1) if g > 1 else float("nan")
        half = Z95 * math.sqrt(max(var, 0.0) / g) if g > 1 else float("nan")
        lo, hi = wilson(r["games_played"], g)
        rows.append(
            {
                "condition": r["condition"],
                "players": r["players"],
                "character": r["character"],
                "games": g,
                "plays": r["plays"],
                "per_game": mean,
                "per_game_low": max(0.0, mean - half),  # a count of plays: the normal interval is cut at 0
                "per_game_high": mean + half,
                "games_played": r["games_played"],
                "share": r["games_played"] / g,
                "share_low": lo,
                "share_high": hi,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "condition": pl.String,
            "players": pl.Int64,
            "character": pl.String,
            "games": pl.Int64,
            "plays": pl.Int64,
            "per_game": pl.Float64,
            "per_game_low": pl.Float64,
            "per_game_high": pl.Float64,
            "games_played": pl.Int64,
            "share": pl.Float64,
            "share_low": pl.Float64,
            "share_high": pl.Float64,
        },
    )


def character_lift(df: pl.DataFrame) -> pl.DataFrame:
    """Win-rate lift of playing each character, per (condition, players).

    Args:
        df: records with ``condition``, ``players``, ``winners`` and ``character_plays``.

    Returns:
        Columns ``condition, players, character``, ``n_played`` / ``wins_played``
        (seat-games in which the seat played the character, and sole wins among
        them), ``n_not`` / ``wins_not`` (all other seat-games of the group),
        ``rate_played``, ``rate_not``, ``lift`` (= rate_played - rate_not),
        ``low`` / ``high`` (Newcombe 95%), ``p`` (score test for two independent proportions) and
        ``p_adj`` (Holm-adjusted over every lift of the table). Sorted by condition, players, character.
    """
    games = _games(df)
    totals = games.group_by("condition", "players").agg(
        seat_games=(pl.col("players").cast(pl.Int64)).sum(), wins=pl.col("sole").is_not_null().sum()
    )
    played = (
        _plays(games)
        .group_by("condition", "players", "character")
        .agg(n_played=pl.len(), wins_played=(pl.col("sole") == pl.col("seat")).sum())
    )
    out = played.join(totals, on=["condition", "players"]).sort("condition", "players", "character")
    rows, deltas = [], []
    for r in out.iter_rows(named=True):
        n1, x1 = r["n_played"], r["wins_played"]
        n2, x2 = r["seat_games"] - n1, r["wins"] - x1
        deltas.append(unpaired_rate(x1, n1, x2, n2))
        rows.append(
            {
                "condition": r["condition"],
                "players": r["players"],
                "character": r["character"],
                "n_played": n1,
                "wins_played": x1,
                "n_not": n2,
                "wins_not": x2,
                "rate_played": x1 / n1 if n1 else float("nan"),
                "rate_not": x2 / n2 if n2 else float("nan"),
            }
        )
    for row, d in zip(rows, adjust(deltas), strict=True):
        row.update(lift=d.mean, low=d.low, high=d.high, p=d.p, p_adj=d.p_adj)
    return pl.DataFrame(
        rows,
        schema={
            "condition": pl.String,
            "players": pl.Int64,
            "character": pl.String,
            "n_played": pl.Int64,
            "wins_played": pl.Int64,
            "n_not": pl.Int64,
            "wins_not": pl.Int64,
            "rate_played": pl.Float64,
            "rate_not": pl.Float64,
            "lift": pl.Float64,
            "low": pl.Float64,
            "high": pl.Float64,
            "p": pl.Float64,
            "p_adj": pl.Float64,
        },
    )


__all__ = ["COLUMN", "character_lift", "character_plays", "has_character_data"]
