"""The example expectations every engine family checks the same way (``kbsim rules test``).

:class:`ExampleResult` is the outcome of one rule-file example; :func:`illegal_problems` compares the first
refused move with the example's ``expect.illegal``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExampleResult:
    """Outcome of one example: ``ok`` and, when not, what differed."""

    source: str
    name: str
    ok: bool
    message: str = ""


def illegal_problems(expected: int | None, illegal: tuple[int, str] | None, moves: list[str]) -> list[str]:
    """Compare the first refused move with the example's expectation.

    Args:
        expected: 1-based index of the move that must be refused, or None if all must be accepted.
        illegal: (1-based index, reason) of the first refused move, or None.
        moves: the example's moves (for the message).

    Returns:
        The problems found (empty when the expectation holds).
    """
    if expected is not None:
        if illegal is None:
            return [f"expected move {expected} to be illegal, but all moves were accepted"]
        if illegal[0] != expected:
            return [f"expected move {expected} to be illegal, but move {illegal[0]} was: {illegal[1]}"]
        return []
    if illegal is not None:
        return [f"move {illegal[0]} ({moves[illegal[0] - 1]!r}) was refused: {illegal[1]}"]
    return []
