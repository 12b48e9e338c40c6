"""Parameter models of the bots that take parameters (see :mod:`kbsim.bots.spec` for the spec syntax).

Kept apart from the bots' own modules because those are compiled with mypyc, which does not compile pydantic
models; a bot class names its model in its ``Params`` class attribute. Every field has a default, bounds and a
description (shown by ``kbsim run --help`` and the bots reference).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

PLANNER_BUDGET = 3_000
"""The planner's default search budget: positions stored per turn (divided by the engine's cost per position)."""


class PlannerParams(BaseModel):
    """Parameters of the ``planner`` bot: ``planner(budget=6000)``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    budget: int = Field(PLANNER_BUDGET, ge=1, le=10_000_000, description="Positions the search may store per turn.")


__all__ = ["PLANNER_BUDGET", "PlannerParams"]
