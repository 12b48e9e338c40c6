"""Replaying a move log: seats that play the logged moves of their turns, one log line per turn.

A game with a person in it cannot be replayed from its seed (the person's choices are not in the seed), so its
record keeps the move log (``moves`` column: ``SEAT: MOVE; MOVE`` per turn, in the family's notation). Replaying
it runs the family's own game loop with a :class:`ScriptedSeat` in every seat: the deal comes from the seed, the
moves from the log, and every statistic of the record comes out of the same loop as in a live game, so the replay
is exact by construction. A line that does not fit (another seat, an illegal move, too few or too many lines)
raises :class:`ScriptError`, naming the line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from kbsim.engine.families import family_of
from kbsim.engine.results import IllegalMove


class ScriptError(Exception):
    """A move log that does not replay on its game (the message names the line and why)."""


def split_line(line: str) -> tuple[int, list[str]]:
    """``"2: lay 7 on 1; end"`` -> ``(2, ["lay 7 on 1", "end"])``.

    Raises:
        ScriptError: the line does not start with a seat number and a colon.
    """
    head, sep, rest = line.partition(":")
    if not sep or not head.strip().isdigit():
        raise ScriptError(f"{line!r}: expected 'SEAT: MOVE; MOVE ...'")
    return int(head), [m.strip() for m in rest.split(";") if m.strip()]


def join_line(seat: int, moves: Sequence[str]) -> str:
    """Inverse of :func:`split_line`.

    Raises:
        ValueError: a move's text holds ``;`` (the separator).
    """
    for m in moves:
        if ";" in m:
            raise ValueError(f"move {m!r} holds ';', the separator of a log line")
    return f"{seat}: " + "; ".join(moves)


class Script:
    """The log lines still to play, shared by the seats that replay them (in playing order)."""

    def __init__(self, part: Any, lines: Sequence[str]):
        self.part = part
        self.lines = deque(lines)
        self.played = 0

    def play(self, seat: int, turn: Any) -> None:
        """Play the next line's moves on ``turn`` (a turn of ``seat``).

        Raises:
            ScriptError: no line left, a line of another seat, a move that does not parse or is illegal.
        """
        if not self.lines:
            raise ScriptError(f"the move log ends after {self.played} turns, but the game goes on")
        line = self.lines.popleft()
        self.played += 1
        who, moves = split_line(line)
        if who != seat:
            raise ScriptError(f"line {self.played} ({line!r}) is seat {who}'s, but seat {seat} is to play")
        for text in moves:
            try:
                self.part.apply(turn, self.part.parse(turn, text))
            except (ValueError, IllegalMove) as e:
                raise ScriptError(f"line {self.played} ({line!r}): move {text!r} does not replay: {e}") from None


class ScriptedSeat:
    """A seat whose turns replay a :class:`Script` (the player interface of :class:`kbsim.bots.base.Bot`).

    Args:
        script: the shared script.
        name: the name records show for the seat (the original player: a bot name or ``human``).
    """

    def __init__(self, script: Script, name: str):
        self.script = script
        self.name = name
        self.seat = 0

    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """Remember the seat (called by the game loop before each hand)."""
        self.seat = seat

    def play_turn(self, turn: Any) -> None:
        """Play the script's next line."""
        self.script.play(self.seat, turn)


def replay_log(game: Any, names: Sequence[str], seed: int, lines: Sequence[str]) -> Any:
    """Play a game again from its seed and move log, with the family's own game loop (``log=True``).

    Args:
        game: the compiled rules the game was played with.
        names: the player in each seat (what the result's record shows).
        seed: the game's own seed.
        lines: the move log, ``SEAT: MOVE; MOVE`` per turn (a record's ``moves``).

    Returns:
        The family's game result, as the original game's.

    Raises:
        ScriptError: the log does not fit the game (another deal, other rules, a changed engine).
    """
    fam = family_of(game)
    script = Script(fam.part("play_ui"), lines)
    result = fam.play(game, [ScriptedSeat(script, n) for n in names], seed, log=True)
    if script.lines:
        raise ScriptError(f"the game ended after {script.played} turns, but the move log has {len(script.lines)} more")
    return result


__all__ = ["Script", "ScriptError", "ScriptedSeat", "join_line", "replay_log", "split_line"]
