"""The arms of a comparison as data: which records belong to which arm (condition), and a swept option.

Built by a study plan (:mod:`kbsim.sim.study`) or from records files
(:func:`kbsim.analysis.reading.compare_input`), shown by the report
(:mod:`kbsim.analysis.report`). Plain data: no engine, no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Condition", "SweepInfo", "deals_at"]


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
        bar: restricted play: the move kinds one seat's bot is barred from (the others play it unbarred), or ().
        bar_words: what the bar keeps that seat from doing, in words (``playing Mother Agatha``), or "".
        rung: the bot spec of the skill-ladder rung that plays every seat of this arm (canonical), or None when
            the arm is not played on a ladder (no ladder, or a head-to-head arm whose mixed lineup is the subject).
        stem: what identifies the arm and sweep value apart from the rung: the conditions of one arm at every
            rung share it (default: the key).
        games: deals per cell of this condition when fewer than the page's (a rung of a skill ladder or an arm
            with its own deal count: the first ``games`` of the page's deals), else None.
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
    bar: tuple[str, ...] = ()
    bar_words: str = ""
    rung: str | None = None
    stem: str = ""
    games: int | None = None

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


def deals_at(look: int, games: int, cap: int) -> int:
    """The deals a cell of ``games`` deals plays at a look of ``look`` deals per cell of a page capped at ``cap``.

    A cell of the full size plays ``look`` deals; a smaller cell (a ladder rung with its own deal count) plays the
    same share of its own deals, rounded up, so every comparison has the same share of its information at every
    look of a study run until decided (:mod:`kbsim.analysis.sequential`).

    Args:
        look: deals per cell of the look (at most ``cap``).
        games: the cell's own deals per cell (at most ``cap``).
        cap: the page's deals per cell.
    """
    if games >= cap:
        return min(look, games)
    return min(games, -(-look * games // cap))
