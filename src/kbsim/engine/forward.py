"""The forward model every engine family offers a search bot: one small interface, written once for all families.

A bot is handed its seat's **observation**: the family's turn object over a table on which every card the seat may
not see is masked (:mod:`kbsim.engine.rows.observe`, :mod:`kbsim.engine.market.observe`), with what every seat
knows beyond the table in its ``seen`` attribute. From it, :func:`determinize` samples a :class:`World`: a full
game position consistent with everything the seat has seen, drawn from the seat's own random stream; a search then
plays the world forward with the engine's own moves.

The interface (:class:`World`):

``seat``
    The seat to move (-1 once the game is over).
``legal_moves()``
    The legal moves now, the family's move values (a rows turn: lays, rebuilds, character plays, end of turn,
    exchanges, pass, minus-pile moves; a market turn: takes, a character's action, claims, end).
``apply(move)``
    Make the move for ``seat``; a move that ends a turn moves the game to the next seat's turn (draws, end
    conditions, the next hand of a match).
``play_turn(bot)``
    Let a bot of the family (a rollout policy, its ``new_game`` called for that seat) play the whole turn.
``clone()``
    An independent copy (microseconds: see ``docs/architecture.md``).
``over``
    True once the game has ended.
``result()``
    Per seat: the share of the win (1, or 1/k for a k-way shared win; 0 at the turn limit) in the rows family's
    competitive games, the team score in solo and cooperative play, the final points in the market family.
``observe(seat)``
    What ``seat`` would be handed now (a masked turn with ``seen``), itself an observation to determinize.

A flat Monte Carlo bot on this interface (the whole of what a search needs)::

    from kbsim.engine.forward import determinize

    def value(bot, turn, move, playouts=8):
        # the mean outcome for the bot's seat of ``move``, over worlds the seat cannot tell apart
        total = 0.0
        for _ in range(playouts):
            world = determinize(turn, bot.rng)  # every hidden card drawn from the seat's own stream
            world.apply(move)
            while not world.over:
                world.play_turn(bot.rollout[world.seat])  # e.g. a greedy bot per seat
            total += world.result()[turn.seat]
        return total / playouts

    # in play_turn(turn): turn.apply(max(candidates, key=lambda m: value(self, turn, m)))

Honesty: a world is the searcher's own sample, so a rollout policy may read all of it; the observation it came
from holds no card the seat could not see. Determinism: every random draw comes from the ``rng`` handed to
:func:`determinize` (and, in a match, from the world's later deals, drawn from that same stream).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from kbsim.engine.families import family_of


class World(Protocol):
    """A full game position for search (see the module docstring); every family's forward model implements it."""

    @property
    def seat(self) -> int:
        """The seat to move; -1 once over."""

    @property
    def over(self) -> bool:
        """True once the game has ended."""

    def legal_moves(self) -> list:
        """The legal moves of :attr:`seat` now (empty once over)."""

    def apply(self, move: Any) -> None:
        """Make ``move`` for :attr:`seat` (raises ``IllegalMove`` if it is not legal)."""

    def play_turn(self, bot: Any) -> None:
        """Let ``bot`` play the whole turn of :attr:`seat`."""

    def clone(self) -> World:
        """An independent copy."""

    def result(self) -> list[float]:
        """Per seat, the outcome (final once :attr:`over`)."""

    def observe(self, seat: int) -> Any:
        """What ``seat`` would be handed now (an observation)."""


def determinize(observation: Any, rng: random.Random) -> World:
    """A full game position drawn uniformly from those consistent with ``observation``, in any engine family.

    Args:
        observation: the turn a bot is handed (a rows :class:`~kbsim.engine.rows.turn.Turn` or a
            :class:`~kbsim.engine.market.turn.MarketTurn`), or a world's :meth:`World.observe`.
        rng: the seat's own random stream (a bot's ``rng``).

    Returns:
        The world, its turn in progress at the observation's point.

    Raises:
        ValueError: ``observation`` is not a seat's observation (no ``seen``).
    """
    game = observation.g if hasattr(observation, "g") else observation.game
    return family_of(game).part("determinize")(observation, rng)


def new_world(game: Any, players: int, seed: int, bars: list[frozenset[str] | None] | None = None) -> World:
    """The world of the game with ``seed`` before its first move, dealt as ``play_game`` deals it (any family).

    ``bars``: each seat's bar (restricted play, :func:`kbsim.engine.restrict.seat_bars` of the bots), enforced on
    the world's turns as the game loop enforces it; None: no seat is barred.
    """
    return family_of(game).part("new_world")(game, players, seed, bars=bars)


__all__ = ["World", "determinize", "new_world"]
