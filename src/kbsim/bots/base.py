"""The bot interface shared by every player policy.

A bot is told the rules and its seat once per game (:meth:`Bot.new_game`),
then plays each of its turns through the turn it is handed (a
:class:`~kbsim.engine.rows.turn.Turn`, or a
:class:`~kbsim.engine.market.turn.MarketTurn` in the market family): it reads
the table, its own hand and public counts, lists the legal moves, tries them on
sandboxes and acts only through ``turn.apply``. The turn is its seat's
observation, enforced by the engine: every card the seat may not see (another
seat's hand, the order of any draw pile, face-down decks) is masked while the
bot decides (:mod:`kbsim.engine.rows.observe`,
:mod:`kbsim.engine.market.observe`), and what everybody knows beyond the table
is ``turn.seen``, from which :func:`kbsim.engine.forward.determinize` samples
full game positions for a search. If ``play_turn`` returns with the turn
unfinished, the engine ends it (which is refused if the turn has not yet laid
its minimum of cards).
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
    """A player policy. ``name`` is what records and reports show.

    A bot may carry ``bar``: the move kinds its seat is barred from (restricted play; set by
    :func:`kbsim.bots.make_bot` from the spec's ``bar``). The game loop reads it and the engine enforces it
    (:mod:`kbsim.engine.rows.restrict`); a bot without the attribute is not barred.
    """

    name: str

    def new_game(self, game: CompiledGame, seat: int, players: int, seed: int) -> None:
        """Start a game in ``seat`` of ``players``; ``seed`` is the game's seed (the seat's stream derives from it)."""

    def play_turn(self, turn: Turn) -> None:
        """Play one whole turn through ``turn``."""

    # Optional: a player that defines ``watch_table(view)`` is handed, by the game loop, a copy of the table as its
    # seat sees it at the start of every other seat's turn and when a hand ends (a person's seat draws the table
    # from it between their turns: kbsim.play). Bots need not define it; ``turn.seen`` carries the public history.


def _cards(zones: list) -> int:
    """Cards in all of ``zones`` (a list of lists, one per row or seat)."""
    n = 0
    for z in zones:
        n += len(z)
    return n


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (mypyc): the market bots and test bots subclass it
class BaseBot:
    """Keeps the per-game context every bot needs; ``self.rng`` is created on first use.

    ``game``, ``seat``, ``players``, ``seed``: the arguments of the last :meth:`new_game` (read only).
    ``bar``: the move kinds this bot's seat is barred from (restricted play), empty unless its spec names some.
    """

    name = "base"
    bar: frozenset[str] = frozenset()

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
        self.seed = seed
        self._rng: random.Random | None = None
        self._still: tuple | None = None

    def stalled(self, turn: Turn) -> bool:
        """True when nothing on the table has changed since this seat last asked (at an earlier turn of its own).

        The bots ask at the start of their turns. Nothing changed means a whole round went by in which no seat
        laid, completed, cleared or parked a card and the seat's own character pile stayed as it was: every
        seat only exchanged or passed, and without something else the game may stay stuck until the turn
        limit. Compared are counts a player sees (cards in rows, rows, discard pile, cards held in hands and
        draw piles by all seats, parked and minus-pile cards, the display, box and face-down characters) and
        its own character pile's size and top card, and the joker; not its own hand, which exchanges change.
        A cheap fingerprint, taken on every turn: an unseen change it misses (another seat's pile turning)
        makes a stall look longer, which only makes the bot try its way out sooner. Each call remembers the
        fingerprint for the next one.

        Args:
            turn: the seat's turn, before its first move (read only).

        Returns:
            Whether the fingerprint equals the one of the previous call in this game.
        """
        st = turn.state
        own = st.char_piles[turn.seat] if turn.seat < len(st.char_piles) else []
        key = (
            _cards(st.rows),
            len(st.rows),
            len(st.discard),
            _cards(st.hands) + _cards(st.piles),
            _cards(st.parked),
            _cards(st.minus),
            len(st.display),
            len(st.box),
            len(st.char_deck),
            len(own),
            own[0] if own else None,
            st.joker,
        )
        still = key == self._still
        self._still = key
        return still

    @property
    def rng(self) -> random.Random:
        """This seat's random stream for the current game (independent of the deal's)."""
        if self._rng is None:
            self._rng = seeded(bot_seed(self.seed, self.seat))  # (random.Random(...), see kbsim.engine.rng)
        return self._rng
