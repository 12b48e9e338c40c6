"""Parameter models of the bots that take parameters (see :mod:`kbsim.bots.spec` for the spec syntax).

Kept apart from the bots' own modules because those are compiled with mypyc, which does not compile pydantic
models; a bot class names its model in its ``Params`` class attribute. Every field has a default, bounds and a
description (shown by ``kbsim run --help`` and the bots reference).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PLANNER_BUDGET = 3_000
"""The planner's default search budget: positions stored per turn (divided by the engine's cost per position)."""


class PlannerParams(BaseModel):
    """Parameters of the ``planner`` bot: ``planner(budget=6000)``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    budget: int = Field(PLANNER_BUDGET, ge=1, le=10_000_000, description="Positions the search may store per turn.")


SEARCH_ITERATIONS = 256
"""The ``search`` bot's default budget: playouts per decision (docs/guide/strength.md: the budget curve)."""

SEARCH_DEPTH = 1
"""The ``search`` bot's default depth: rounds each playout plays after the candidate turn. One round and twice
the worlds (256 playouts) against two rounds (128): the same strength at 2 players for less CPU, +3.7 pp
[+1.1, +6.3] at 4 players on the same 300 deals (docs/guide/strength.md)."""


class SearchParams(BaseModel):
    """Parameters of the rows family's ``search`` bot: ``search(iterations=400, rollout=greedy, depth=2)``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    iterations: int = Field(
        SEARCH_ITERATIONS, ge=1, le=1_000_000, description="Playouts per decision, spent on the candidate turns."
    )
    rollout: Literal["auto", "planner", "greedy", "random"] = Field(
        "auto",
        description="The bot that plays the playouts in every seat (auto: the planner where its turn is cheap, "
        "greedy otherwise).",
    )
    depth: int = Field(
        SEARCH_DEPTH,
        ge=0,
        le=1_000,
        description="Rounds each playout plays after the candidate turn before the position is valued (0: to the "
        "end of the hand).",
    )
    margin: float = Field(0.01, ge=0.0, le=1.0, description="(tuning) value a candidate must gain over the default.")
    z: float = Field(1.0, ge=0.0, le=10.0, description="(tuning) standard errors a candidate must gain by.")


class MarketSearchParams(BaseModel):
    """Parameters of the market family's ``search`` bot: ``search(iterations=32, depth=2)``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    iterations: int = Field(64, ge=1, le=1_000_000, description="Playouts per decision, spent on the legal moves.")
    rollout: Literal["greedy", "random"] = Field("greedy", description="The bot that plays the playouts.")
    depth: int = Field(
        0,
        ge=0,
        le=1_000,
        description="Rounds each playout plays after the turn before the table is valued (0: to the end).",
    )


__all__ = [
    "PLANNER_BUDGET",
    "SEARCH_DEPTH",
    "SEARCH_ITERATIONS",
    "MarketSearchParams",
    "PlannerParams",
    "SearchParams",
]
