"""The ``[tune]`` section of a study file: which options to search, toward which targets (data only).

``kbsim tune STUDY`` (:mod:`kbsim.tune`) reads it; this module only declares and
validates its shape (pydantic, unknown fields are errors), like the rest of the study
format in :mod:`kbsim.sim.study`. Whether an option exists, whether a range fits the
rule file's bounds and whether the records can measure a target is checked against
the rules by :mod:`kbsim.tune.space` before anything is played. Example::

    [tune]
    trials = 40                         # settings tried, the rule file's defaults first
    combine = "weighted"                # or "constraints": one minimised target, the others bounds

    [tune.options]                      # the options searched, with their ranges or choices
    hand_size = { low = 4, high = 8 }   # an int option: every value from low to high
    rebuild_segments = { choices = ["end", "either"] }
    rebuild_into_empty_row = {}         # a yes/no option, or one with declared choices: all of them

    [[tune.targets]]
    measure = "first_seat"              # seat 0's edge over an average seat, minimised in size
    minimise = true
    players = [4]

    [[tune.targets]]
    measure = "stalemate"
    at_most = 0.02                      # shares are fractions: 0.02 is 2%

Shares and rates (``seat_gap``, ``first_seat``, ``stalemate``, ``turn_limit``, ``wins``,
``usage``) are written as fractions (0.02) and shown in percent or percentage points;
``turns`` is in turns, ``score`` and ``score_gap`` in points.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kbsim.strict_io import MAX_LIST, MAX_NAME

__all__ = ["MEASURES", "RATE_MEASURES", "OptionRange", "Skill", "Target", "TuneSection", "Verify"]

#: Every measure a target may name, with what it is (for messages and the docs).
MEASURES: dict[str, str] = {
    "seat_gap": "the largest gap between a seat's share of the games won alone and a fair share 1/P",
    "first_seat": "seat 0's edge: its rate of winning alone minus that of an average seat (all games)",
    "turns": "the median number of turns per game",
    "stalemate": "the share of games ended by a stalemate",
    "turn_limit": "the share of games stopped by the turn limit",
    "score_gap": "the mean gap between the best and the second-best seat's points (scores or penalties)",
    "score": "the mean team score (solo and cooperative games)",
    "wins": "the share of games won alone by the seats of one bot (`bot`), or by anyone",
    "usage": "the share of games in which a character (`character`) was played or a rule (`rule`) used",
}
#: Measures that are shares or rates: written as fractions in a study file, shown in % / pp.
RATE_MEASURES = frozenset({"seat_gap", "first_seat", "stalemate", "turn_limit", "wins", "usage"})

Number = Annotated[float, Field(allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class OptionRange(_Strict):
    """The values of one option the search may try: a range (``low``, ``high``) or a list of ``choices``.

    Leave both out for a yes/no option or one whose rule file declares its choices: every value is tried.
    """

    low: int | float | None = Field(None, description="Smallest value tried (an int option: every int up to high).")
    high: int | float | None = Field(None, description="Largest value tried.")
    step: int | float | None = Field(None, gt=0, description="Step between values of a range (default 1 for ints).")
    log: bool = Field(False, description="Search a float range on a log scale.")
    choices: list[Any] | None = Field(
        None, min_length=1, max_length=MAX_LIST, description="The values tried, in any order."
    )

    @model_validator(mode="after")
    def _shape(self) -> OptionRange:
        ranged = self.low is not None or self.high is not None
        if ranged and self.choices is not None:
            raise ValueError("give either low and high, or choices, not both")
        if ranged and (self.low is None or self.high is None):
            raise ValueError("a range needs both low and high")
        if self.low is not None and self.high is not None and self.low >= self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")
        if (self.step is not None or self.log) and not ranged:
            raise ValueError("step and log apply to a range (low, high)")
        if self.choices is not None:
            import json

            keys = [json.dumps(c, sort_keys=True) for c in self.choices]
            if len(set(keys)) != len(keys):
                raise ValueError("choices: every value must appear once")
        return self


class Target(_Strict):
    """One target of the search: a measure of the records, per player count, with its goal.

    The goal is exactly one of ``minimise``, ``maximise``, ``band``, ``at_most`` and ``at_least``.
    """

    measure: Literal[
        "seat_gap", "first_seat", "turns", "stalemate", "turn_limit", "score_gap", "score", "wins", "usage"
    ] = Field(description="What to measure (see the list of measures).")
    players: list[Annotated[int, Field(ge=1, le=20)]] | None = Field(
        None,
        min_length=1,
        max_length=20,
        description="Player counts it applies to (default: every player count of the study).",
    )
    minimise: bool = Field(False, description="Make it as small as possible (`first_seat`: its size).")
    maximise: bool = Field(False, description="Make it as large as possible.")
    band: list[Number] | None = Field(None, min_length=2, max_length=2, description="Hold it within [low, high].")
    at_most: Number | None = Field(None, description="Hold it at or below this value.")
    at_least: Number | None = Field(None, description="Hold it at or above this value.")
    weight: Number = Field(1.0, gt=0, description="Weight of its loss in a weighted sum (`combine = weighted`).")
    bot: str | None = Field(
        None, min_length=1, max_length=MAX_NAME, description="`wins`: the bot whose seats count (default: any seat)."
    )
    character: str | None = Field(
        None, min_length=1, max_length=MAX_NAME, description="`usage`: a character's roster key, e.g. `edgar`."
    )
    rule: str | None = Field(
        None, min_length=1, max_length=MAX_NAME, description="`usage`: a rule-usage counter of the records."
    )

    @model_validator(mode="after")
    def _goal(self) -> Target:
        goals = [
            g
            for g, on in (
                ("minimise", self.minimise),
                ("maximise", self.maximise),
                ("band", self.band is not None),
                ("at_most", self.at_most is not None),
                ("at_least", self.at_least is not None),
            )
            if on
        ]
        if len(goals) != 1:
            got = ", ".join(goals) or "none"
            raise ValueError(f"give exactly one goal: minimise, maximise, band, at_most or at_least (got {got})")
        if self.band is not None and self.band[0] > self.band[1]:
            raise ValueError(f"band: low ({self.band[0]}) is above high ({self.band[1]})")
        if self.measure in RATE_MEASURES and self.measure != "first_seat":
            for name, v in (("at_most", self.at_most), ("at_least", self.at_least)):
                if v is not None and not 0 <= v <= 1:
                    raise ValueError(f"{name}: {v} is not a share; write shares as fractions from 0 to 1 (0.02 = 2%)")
            if self.band is not None and not all(0 <= v <= 1 for v in self.band):
                raise ValueError(f"band: {self.band} are not shares; write them as fractions from 0 to 1 (0.02 = 2%)")
        if self.measure == "first_seat":
            for v in [*(self.band or []), self.at_most, self.at_least]:
                if v is not None and not -1 <= v <= 1:
                    raise ValueError(f"{v} is not an edge; write it as a fraction from -1 to 1 (0.02 = 2 pp)")
        if (self.character is not None or self.rule is not None) != (self.measure == "usage"):
            raise ValueError("character and rule belong to measure `usage`, which needs one of them")
        if self.character is not None and self.rule is not None:
            raise ValueError("usage: give a character or a rule, not both")
        if self.bot is not None and self.measure != "wins":
            raise ValueError("bot belongs to measure `wins`")
        return self

    @property
    def goal(self) -> str:
        """The goal's name: ``minimise``, ``maximise``, ``band``, ``at_most`` or ``at_least``."""
        if self.minimise:
            return "minimise"
        if self.maximise:
            return "maximise"
        if self.band is not None:
            return "band"
        return "at_most" if self.at_most is not None else "at_least"

    @property
    def optimised(self) -> bool:
        """True for a minimised or maximised target (the objective of ``combine = constraints``)."""
        return self.minimise or self.maximise


class Verify(_Strict):
    """The replay of the recommendation, the default and the runner-up on fresh deals."""

    precision: Number | None = Field(
        None,
        gt=0,
        description="Wanted half-width of the 95% interval of each setting's paired difference from the defaults "
        "on the first target (its units: a fraction for shares, turns, points); the deals are chosen from the "
        "spread of those differences in the search. Default: the study's `games` deals.",
    )
    min_deals: int = Field(200, ge=2, le=1_000_000, description="Fewest deals of the replay.")
    max_deals: int = Field(20_000, ge=2, le=1_000_000, description="Most deals of the replay.")

    @model_validator(mode="after")
    def _order(self) -> Verify:
        if self.min_deals > self.max_deals:
            raise ValueError(f"min_deals ({self.min_deals}) is above max_deals ({self.max_deals})")
        return self


class Skill(_Strict):
    """The skill check: the recommendation and the default replayed with a stronger bot."""

    bots: str | list[str] = Field(description="One bot for every seat, or a lineup (e.g. `planner`).")
    deals: int = Field(500, ge=2, le=1_000_000, description="Deals of the skill check (fresh deals).")

    @model_validator(mode="after")
    def _not_empty(self) -> Skill:
        names = [self.bots] if isinstance(self.bots, str) else self.bots
        if not names or any(not n.strip() for n in names):
            raise ValueError("bots: expected a bot name or a non-empty list of bot names")
        if len(names) > MAX_LIST or any(len(n) > MAX_NAME for n in names):
            raise ValueError(f"bots: expected at most {MAX_LIST:,} bot names of at most {MAX_NAME} characters each")
        return self


class TuneSection(_Strict):
    """The ``[tune]`` section: the options to search, the targets, and how the search and its check run."""

    options: dict[Annotated[str, Field(max_length=MAX_NAME)], OptionRange] = Field(
        default_factory=dict,
        max_length=MAX_LIST,
        description="Option name -> its range or choices (at least one option).",
    )
    targets: list[Target] = Field(min_length=1, max_length=MAX_LIST, description="What to measure and aim for.")
    combine: Literal["weighted", "constraints"] = Field(
        "weighted",
        description="`weighted`: minimise the weighted sum of the targets' losses; `constraints`: minimise the "
        "one minimised (or maximised) target among settings that meet the others.",
    )
    trials: int = Field(40, ge=1, le=100_000, description="Settings tried in the search, the defaults first.")
    sampler: Literal["auto", "tpe", "random", "brute-force"] = Field(
        "auto",
        description="Optuna sampler: `tpe`, `random`, `brute-force` (every setting once), or `auto` (brute force "
        "when there are no more settings than trials, else TPE).",
    )
    rungs: int = Field(
        3, ge=1, le=8, description="Deal counts of successive halving: `games` / reduction^(rungs - 1), ... `games`."
    )
    reduction: int = Field(3, ge=2, le=10, description="Successive halving: 1 in `reduction` settings go on.")
    search_seed: int = Field(0, ge=0, le=2**32 - 1, description="Seed of the optimiser's own choices.")
    verify: Verify = Field(default_factory=lambda: Verify.model_validate({}), description="The replay on fresh deals.")
    skill: Skill | None = Field(None, description="Replay the recommendation with stronger bots (optional).")

    @model_validator(mode="after")
    def _combine(self) -> TuneSection:
        if not self.options:
            raise ValueError("options: no option to search; give at least one option with a range or choices")
        if self.combine == "constraints":
            opt = [i for i, t in enumerate(self.targets) if t.optimised]
            if len(opt) != 1:
                raise ValueError(
                    f"combine = constraints needs exactly one target with minimise or maximise (got {len(opt)}); "
                    "the others are bounds (band, at_most, at_least)"
                )
        return self
