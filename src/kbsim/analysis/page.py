"""The report page's data model: a :class:`Section` and the :class:`Page` its functions see.

Kept apart from :mod:`kbsim.analysis.sections` (the registry and the page's assembly) so that the modules of the
built-in sections import the model without importing the registry that loads them (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kbsim.analysis.reading import ReportInput

Build = Callable[["Page"], dict | None]
Tests = Callable[[ReportInput, Any], list[dict]]
AnswerFn = Callable[["Page", dict], list[dict]]


@dataclass(frozen=True)
class Section:
    """One section of the report page.

    Attributes:
        id: the section's anchor and the name of its template block (``templates/sections/<id>.html.j2``);
            letters, digits and ``-``.
        title: its heading and navigation label.
        build: its data from the page (None: not shown on this page).
        tests: comparisons it adds to the page's family of tests (Holm-adjusted with all others), or None.
        answer: the blocks it adds to the Answer, or None.
    """

    id: str
    title: str
    build: Build
    tests: Tests | None = None
    answer: AnswerFn | None = None


@dataclass
class Page:
    """What a section's functions see: the input, the statistics and a few conveniences.

    Attributes:
        inp: the report input (records, arms, comparisons, ladder).
        stats: the statistics (:func:`kbsim.analysis.arms.compute`); ``stats["sections"][id]`` holds a section's
            adjusted comparisons.
        labels: condition key -> label shown.
        players: the player counts on the page, ascending.
        data: section id -> built data, for the sections built so far (the Answer is built last).
    """

    inp: ReportInput
    stats: dict
    labels: dict[str, str] = field(default_factory=dict)
    players: list[int] = field(default_factory=list)
    data: dict[str, dict] = field(default_factory=dict)

    @property
    def ladder(self) -> list[str]:
        """The page's skill ladder (bot specs, weakest first); empty without one."""
        return list(self.inp.ladder)

    def player_tabs(self) -> list[tuple[int, str]]:
        """(player count, tab label) for :func:`tabs`, in ascending order."""
        return [(p, f"{p} players") for p in self.players]


__all__ = ["AnswerFn", "Build", "Page", "Section", "Tests"]
