"""The rungs of a study's skill ladder: the study file's ``ladder`` entries, ``--ladder`` text, canonical specs.

A rung is a bot spec, optionally with its own deal count (the costly rung of a ladder, e.g. the search bot, played
on fewer deals than the others)::

    ladder = ["greedy", "planner", { bot = "search", games = 300 }]

and on the command line ``--ladder greedy,planner,search:300``. A rung with ``games = N`` plays the first ``N``
deals of each cell (the same deal seeds as the other rungs; :func:`kbsim.engine.seeds.game_seed`), so it is
compared with the other rungs on the deals they share; a plain spec plays the study's ``games``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kbsim.strict_io import MAX_NAME

__all__ = ["Rung", "head_to_head", "parse_ladder"]

MAX_GAMES = 100_000_000


class Rung(BaseModel):
    """One rung of a skill ladder: a bot spec, and the deals per cell it plays when fewer than the study's.

    Written as a plain spec (``"planner"``) or a table (``{ bot = "search", games = 300 }``).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    bot: str = Field(max_length=MAX_NAME, description="Bot spec played in every seat, e.g. search(iterations=64).")
    games: int | None = Field(
        None,
        ge=1,
        le=MAX_GAMES,
        description="Deals per cell at this rung: the first N of the study's deals (default: the study's games; "
        "at most the study's games).",
    )

    @model_validator(mode="before")
    @classmethod
    def _spec_or_table(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"bot": data}
        if not isinstance(data, dict):
            raise ValueError('expected a bot spec ("search") or a table { bot = "search", games = 300 }')
        return data


_GAMES_SUFFIX = re.compile(r"^(?P<spec>.*\S)\s*:\s*(?P<games>[0-9][0-9_]*)$", re.DOTALL)


def _top_level_pieces(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    return [*pieces, text[start:]]


def parse_ladder(text: str) -> list[Rung]:
    """The rungs of ``--ladder`` text: comma-separated bot specs, each optionally ``:N`` deals per cell.

    Args:
        text: e.g. ``"greedy,planner,search(iterations=64,rollout=greedy):300"`` (commas inside parentheses
            belong to a spec).

    Returns:
        One :class:`Rung` per entry, each spec in canonical form (not yet checked against a family's bots).

    Raises:
        ValueError: an empty entry, a spec that does not parse, or a deal count below 1 (one line).
    """
    from kbsim.bots.spec import BotSpecError, parse_lineup

    if not text.strip():
        raise ValueError("empty ladder; expected bot specs, e.g. greedy,planner,search:300")
    rungs = []
    for i, piece in enumerate(_top_level_pieces(text)):
        m = _GAMES_SUFFIX.match(piece.strip())
        spec, games = (m["spec"], int(m["games"])) if m else (piece, None)
        if games is not None and not 1 <= games <= MAX_GAMES:
            raise ValueError(f"rung {i + 1} ({piece.strip()}): {games} deals; expected 1 to {MAX_GAMES:,}")
        try:
            specs = parse_lineup(spec)
        except BotSpecError as e:
            raise ValueError(f"rung {i + 1} ({piece.strip() or 'empty'}): {e}") from None
        if len(specs) != 1:
            raise ValueError(f"rung {i + 1} ({piece.strip()}): expected one bot spec")
        rungs.append(Rung(bot=specs[0].canonical(), games=games))
    return rungs


def head_to_head(lineups: dict[int, tuple[str, ...]]) -> bool:
    """Whether an arm's lineups mix bots: a head-to-head arm, played as written even on a ladder.

    Its lineup is what it measures (each bot's share of the wins), so a rung replacing every seat's bot would
    measure something else.
    """
    return any(len(set(lu)) > 1 for lu in lineups.values())
