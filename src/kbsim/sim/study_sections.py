"""The study file's sections besides its arms: the option ``[sweep]`` and the ``[until_decided]`` stopping rule.

Kept apart from :mod:`kbsim.sim.study` (which imports and re-exports them) so that module stays a size a reader
can hold; the study format is documented there and in docs/guide/studies.md.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kbsim.strict_io import MAX_LIST, MAX_NAME

OptionValue = Any
"""A rule option's value in a study file (checked against the rule file when the study is planned)."""


class StrictModel(BaseModel):
    """A section of a study file: unknown fields are errors, values keep their TOML/YAML types."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Sweep(StrictModel):
    """One option swept over values; every arm is played at every value."""

    option: str = Field(min_length=1, max_length=MAX_NAME, description="Option name, e.g. hand_size.")
    values: list[OptionValue] = Field(
        min_length=1, max_length=MAX_LIST, description="Values, in the order they are drawn."
    )
    baseline: OptionValue = Field(None, description="Value the others are compared with (default: the first).")

    @model_validator(mode="after")
    def _check(self) -> Sweep:
        keys = [json.dumps(v, sort_keys=True) for v in self.values]
        if len(set(keys)) != len(keys):
            raise ValueError("sweep.values: every value must appear once")
        if self.baseline is not None and json.dumps(self.baseline, sort_keys=True) not in keys:
            raise ValueError(f"sweep.baseline: {self.baseline!r} is not one of sweep.values")
        return self

    @property
    def base_value(self) -> Any:
        """The baseline value (the first value unless ``baseline`` is given)."""
        return self.values[0] if self.baseline is None else self.baseline


class UntilDecided(StrictModel):
    """Run until decided: deals are played in batches until every comparison on the page is decided.

    A comparison is decided when the group-sequential test (:mod:`kbsim.analysis.sequential`) resolves it, or
    when its repeated confidence interval lies inside the equivalence margin (the effect is provably too small
    to matter). The study's ``games`` is the cap.
    """

    batch: int | None = Field(
        None, ge=1, le=100_000_000, description="Deals added to every cell per look (default: games / 8, at least 50)."
    )
    margin: float = Field(
        2.0,
        gt=0,
        le=100,
        description="Equivalence margin for rates and the seat gap, in percentage points: an effect whose "
        "repeated interval lies within +-margin is too small to matter.",
    )
    turns_margin: float = Field(1.0, gt=0, le=10_000, description="Equivalence margin for turns per game (turns).")
    changes_margin: float = Field(
        0.25, gt=0, le=10_000, description="Equivalence margin for lead changes per game (changes)."
    )

    def batch_for(self, games: int) -> int:
        """Deals per look for a cap of ``games`` deals per cell."""
        return min(games, self.batch if self.batch is not None else max(50, -(-games // 8)))


__all__ = ["OptionValue", "StrictModel", "Sweep", "UntilDecided"]
