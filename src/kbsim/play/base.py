"""What every family's play part shares: the table context, the part's interface, reading rule summaries.

A family's *play part* (:attr:`kbsim.engine.families.Family.play_ui`, e.g. :data:`kbsim.play.rows.ROWS`) is the
whole of what ``kbsim play`` knows about that family: how to draw the table as one seat sees it, how to list,
write, read and apply moves, which rule a move follows (the rule file's summaries), whether the moves made so
far in a turn may be taken back, and what the hint bot's plan did. The session and the Textual app call only
this interface, so no game or family is named outside the parts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import RenderableType

HUMAN = "human"
"""The player name of a person's seat in records (``bots`` column) and on the table."""


@dataclass(frozen=True)
class TableContext:
    """What drawing a table needs besides the state: the rules and who sits where.

    Attributes:
        game: the compiled rules.
        model: the validated rule-file model (for summaries, suit colours and group names).
        players: seats.
        names: the player in each seat (a bot name, or :data:`HUMAN`).
        seat: the seat the table is drawn for (the person's); only what it may see is drawn.
    """

    game: Any
    model: Any
    players: int
    names: tuple[str, ...]
    seat: int

    def who(self, seat: int) -> str:
        """``you`` for the person's seat, else the bot's name."""
        return "you" if seat == self.seat else self.names[seat]


class PlayPart(Protocol):
    """The interface of a family's play part (see the module docstring)."""

    family: str
    hint_bot: str

    def draw(self, ctx: TableContext, state: Any, on_turn: int, turn: Any | None) -> RenderableType:
        """The table as seat ``ctx.seat`` sees it, ``on_turn`` being the seat to play (``turn``: its turn)."""

    def first_seat(self, game: Any, players: int) -> int:
        """The seat that plays first (the rules' first player; the person's seat unless ``--seat`` says otherwise)."""

    def turn_note(self, turn: Any) -> str:
        """One line on where the person's turn stands (what it must still do, what it may do)."""

    def legal_moves(self, turn: Any) -> list:
        """The legal moves now, in the engine's order."""

    def format(self, turn: Any, move: Any) -> str:
        """A move in the family's notation (as made on ``turn``'s table)."""

    def format_logged(self, game: Any, move: Any) -> str:
        """A move in the notation once its table is gone (for the running log of the app)."""

    def describe(self, turn: Any, move: Any) -> str:
        """Words added after a move's notation in the list of moves ("" when the notation says it all)."""

    def parse(self, turn: Any, text: str) -> Any:
        """A move from the notation (raises ``ValueError`` with the reason)."""

    def apply(self, turn: Any, move: Any) -> None:
        """Apply a move (raises :class:`kbsim.engine.results.IllegalMove` with the rule that refuses it)."""

    def done(self, turn: Any) -> bool:
        """Whether the turn is over."""

    def fork(self, turn: Any) -> Any | None:
        """A working copy on which the person's moves are made until the turn ends, or None (moves are final)."""

    def undo_refusal(self, turn: Any) -> str:
        """Why the moves made so far on ``turn`` (a fork) cannot be taken back, or "" when they can."""

    def rule_of(self, ctx: TableContext, turn: Any, move: Any) -> str:
        """The rule a move follows, in the rule file's words."""

    def sandbox(self, turn: Any) -> Any:
        """A copy of the turn with what the seat may not see hidden (for the hint bot)."""

    def plan_note(self, before: Any, after: Any, moves: list) -> str:
        """What a plan did: ``before`` is the turn it was made for, ``after`` the sandbox it was played on."""

    def position(self, state: Any) -> str:
        """16 hex digits identifying every zone of ``state`` (to check that a resumed game is where it was)."""

    def log_lines(self, game: Any, players: int, result: Any) -> list[str]:
        """The move log of a finished game (played with ``log=True``), one ``SEAT: MOVE; MOVE`` line per turn."""


def summary_at(model: Any, path: str) -> str:
    """The ``summary`` of the rule-file node at a dotted ``path`` (``turn.lay_out.rebuild``), or "".

    Mapping keys (character keys) are path steps like attributes.
    """
    node = model
    for step in path.split("."):
        if node is None:
            return ""
        node = node.get(step) if isinstance(node, dict) else getattr(node, step, None)
    text = getattr(node, "summary", None) if node is not None else None
    return " ".join(str(text).split()) if text else ""


def rules_text(model: Any, paths: list[tuple[str, str]]) -> str:
    """``LABEL: summary`` for each ``(label, path)`` whose node has a summary, joined by blank lines."""
    parts = [f"{label}: {text}" for label, path in paths if (text := summary_at(model, path))]
    return "\n\n".join(parts) or "the rule file gives no summary for this move"


def digest(parts: object) -> str:
    """16 hex digits of the SHA-256 of ``repr(parts)``."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


__all__ = ["HUMAN", "PlayPart", "TableContext", "digest", "rules_text", "summary_at"]
