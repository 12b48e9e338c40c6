"""The arms of a comparison as data: which records belong to which arm (condition), and a swept option.

Built by a study plan (:mod:`kbsim.sim.study`) or from records files
(:func:`kbsim.analysis.reading.compare_input`), shown by the report
(:mod:`kbsim.analysis.report`). Plain data: no engine, no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Condition", "SweepInfo"]


@dataclass(frozen=True)
class Condition:
    """One arm (and sweep value) of a report.

    Attributes:
        key: unique, file-name-safe identifier; the ``condition`` column of the records holds it.
        label: the name shown on the page (user text; always escaped when shown).
        arm: the arm's name.
        summary: what the arm is.
        variants: variants applied, in order.
        options: options set by the arm (and the sweep), as written.
        changed: effective options that differ from the rule file's defaults.
        effective: every option's effective value.
        bots: the bot or bot lineup as written (``greedy`` or ``greedy,random``).
        sweep_value: the swept option's value, or None.
        rung: the bot spec of the skill-ladder rung that plays every seat of this arm (canonical), or None when
            the arm is not played on a ladder (no ladder, or a head-to-head arm whose mixed lineup is the subject).
        stem: what identifies the arm and sweep value apart from the rung: the conditions of one arm at every
            rung share it (default: the key).
    """

    key: str
    label: str
    arm: str
    summary: str = ""
    variants: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    changed: dict = field(default_factory=dict)
    effective: dict = field(default_factory=dict)
    bots: str = "greedy"
    sweep_value: Any = None
    rung: str | None = None
    stem: str = ""

    @property
    def arm_key(self) -> str:
        """The key of the arm (and sweep value) without its rung: :attr:`stem`, or the key when it has none."""
        return self.stem or self.key


@dataclass(frozen=True)
class SweepInfo:
    """A swept option: its values in order, the baseline value, and the condition key per (arm, value).

    ``keys`` maps ``(arm name, json.dumps(value, sort_keys=True))`` to a condition key.
    """

    option: str
    values: list
    baseline: Any
    arms: list[str]
    keys: dict
