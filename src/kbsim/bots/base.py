"""The bot interface shared by every player policy.

A bot is told the rules and its seat once per game (:meth:`Bot.new_game`),
then plays each of its turns through the :class:`~kbsim.engine.rows.turn.Turn` it
is handed: it reads the rows, its own hand and public counts, and acts only
with legal moves (``turn.apply``/``turn.lay``/...). It never sees another
seat's hand or the order of any draw pile. If ``play_turn`` returns with the
turn unfinished, the engine ends it (which is refused if the turn has not yet
laid its minimum of cards).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from mypy_extensions import mypyc_attr

from kbsim.engine.rng import seeded
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.turn import Turn
from kbsim.engine.seeds import bot_seed


class Bot(Protocol):
    """A player policy. ``name`` is what records and reports show."""

    name: str

    def new_game(self, game: CompiledGame, seat: int, players: int, seed: int) -> None:
        """Start a game in ``seat`` of ``players``; ``seed`` is the game's seed (the seat's stream derives from it)."""

    def play_turn(self, turn: Turn) -> None:
        """Play one whole turn through ``turn``."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (mypyc): the market bots and test bots subclass it
class BaseBot:
    """Keeps the per-game context every bot needs; ``self.rng`` is created on first use."""

    name = "base"

    # (``game`` is Any: the market family's bots subclass this class with their own compiled game, and a compiled
    # parameter typed with the rows family's native CompiledGame would refuse it)
    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """Start a game: remember its rules, this bot's seat and the game's seed.

        Called by the game loop once per hand before the first turn; :attr:`rng` restarts from the seat's stream
        of ``seed`` (:func:`kbsim.engine.seeds.bot_seed`, derived on first use: most bots never draw a number).

        Args:
            game: the compiled rules of the game (a :class:`~kbsim.engine.rows.compiled.CompiledGame`, or the compiled
                game of another family for that family's bots).
            seat: this bot's seat (0-based; seat 0 deals).
            players: number of seats in the game.
            seed: the game's (or the hand's) seed, an int >= 0.
        """
        self.game = game
        self.seat = seat
        self.players = players
        self._seed = seed
        self._rng: random.Random | None = None
        self._still: tuple | None = None

    def stalled(self, turn: Turn) -> bool:
        """True when the table and this seat's hand are as they were when it last asked (an earlier turn of its own).

        The bots ask at the start of each turn in which they may play a character. An unchanged table means a
        whole round went by in which no seat laid, rebuilt, played a character, drew or parked a card: the game
        is stuck, and without a character play it stays stuck until the turn limit. Only what the seat may see
        is compared: the rows, the parked cards, the character piles, display, box and joker, how many cards
        each seat holds in hand, draw pile and minus pile, the size of the discard pile, and its own hand. Each
        call remembers the table for the next one.

        Args:
            turn: the seat's turn, before its first move (read only).

        Returns:
            Whether the table is the same as at the previous call in this game.
        """
        st = turn.state
        key = (
            tuple(map(tuple, st.rows)),
            tuple(map(tuple, st.parked)),
            tuple(map(tuple, st.char_piles)),
            tuple(st.display),
            tuple(st.box),
            len(st.char_deck),
            st.joker,
            tuple(map(len, st.hands)),
            tuple(map(len, st.piles)),
            tuple(map(len, st.minus)),
            len(st.discard),
            tuple(sorted(turn.hand)),
        )
        still = key == self._still
        self._still = key
        return still

    @property
    def rng(self) -> random.Random:
        """This seat's random stream for the current game (independent of the deal's)."""
        if self._rng is None:
            self._rng = seeded(bot_seed(self._seed, self.seat))  # (random.Random(...), see kbsim.engine.rng)
        return self._rng
