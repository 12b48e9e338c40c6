"""The course of a game, for the experience measures of its record: lead changes, decisiveness, comebacks.

Every engine family's game loop marks each seat's **standing** (a number per seat that says who is ahead: cards
still held in a race, penalty points in a match, points where the game scores them) after the deal, at the end of
every round (every seat has played once more) and at the end of the game. From those marks, :meth:`Course.measures`
gives the three record columns that need the course of the game rather than its end:

``lead_changes``
    how often the leader changed: the **leader** at a mark is the one seat strictly ahead of every other (none
    while several share the best standing); a change is a mark whose leader differs from the leader of the last
    mark that had one.
``winner_leads_from``
    the turn (turns played, all seats together) from which the eventual sole winner led at every mark to the end:
    0 when it led from the deal, the game's turns when it did not lead at the last mark (a tie-break decided it).
    Divided by the game's turns this is how late the game was decided (0: from the deal, 1: at the end).
``winner_behind_at_half``
    whether the eventual sole winner was behind (some seat strictly ahead of it) at the last mark at or before
    half the game's turns: a comeback.

Both winner measures are null for a game without a sole winner (a shared win, a turn limit) and every measure is
null for a team game (solo or cooperative: nobody leads). Marks are per round rather than per turn so that the
order of play (the seat that has just played is ahead by its turn) does not count as a lead change; a mark is a
tuple of ints per round, so the cost is a few list appends per round.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The experience columns :meth:`Course.measures` fills (None for each where it has no value).
COURSE_COLUMNS = ("lead_changes", "winner_leads_from", "winner_behind_at_half")
#: The values of :data:`COURSE_COLUMNS` for one game.
Measures = tuple[int | None, int | None, bool | None]


class Course:
    """The standings of a game at its marks (after the deal, every round's end, the end of the game).

    Args:
        lower_is_better: True when the smallest standing leads (cards held, penalty points), False when the
            largest does (points).
    """

    __slots__ = ("lower", "turns", "standings")

    def __init__(self, lower_is_better: bool = True) -> None:
        self.lower = lower_is_better
        self.turns: list[int] = []
        self.standings: list[tuple[int, ...]] = []

    def mark(self, turns: int, standing: Sequence[int]) -> None:
        """Record the standing per seat after ``turns`` turns (a mark at the same turn count replaces the last)."""
        if self.turns and self.turns[-1] == turns:
            self.standings[-1] = tuple(standing)
            return
        self.turns.append(turns)
        self.standings.append(tuple(standing))

    def _best(self, st: tuple[int, ...]) -> int:
        return min(st) if self.lower else max(st)

    def _leader(self, st: tuple[int, ...]) -> int:
        """The seat strictly ahead of every other at a mark, or -1."""
        best = self._best(st)
        seat = -1
        for s, v in enumerate(st):
            if v == best:
                if seat >= 0:
                    return -1
                seat = s
        return seat

    def measures(self, winners: Sequence[int], turns: int) -> Measures:
        """The experience measures of the game (the module docstring defines them).

        Args:
            winners: the game's winning seats (one for a sole winner).
            turns: turns played in the game, all seats together.

        Returns:
            ``(lead_changes, winner_leads_from, winner_behind_at_half)``: an int, an int or None, a bool or None.
        """
        leaders = [self._leader(st) for st in self.standings]
        changes = 0
        last = -1
        for seat in leaders:
            if seat >= 0:
                if last >= 0 and seat != last:
                    changes += 1
                last = seat
        if len(winners) != 1 or not leaders:
            return (changes, None, None)
        w = winners[0]
        j = len(leaders)
        while j > 0 and leaders[j - 1] == w:
            j -= 1
        leads_from = self.turns[j] if j < len(leaders) else turns
        half = 0
        for i, t in enumerate(self.turns):
            if 2 * t <= turns:
                half = i
        st = self.standings[half]
        return (changes, leads_from, st[w] != self._best(st))


def no_course() -> Measures:
    """The experience measures of a game nobody leads (solo and cooperative play): every one null."""
    return (None, None, None)


__all__ = ["COURSE_COLUMNS", "Course", "Measures", "no_course"]
