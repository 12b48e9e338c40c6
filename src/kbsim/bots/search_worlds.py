"""TEMPORARY (replaced by :mod:`kbsim.engine.forward` once it lands, issue 26 part 2): rows worlds for search.

Throwaway for the search bot's development until the engine's forward model is merged: :func:`determinize` deals
the cards a seat cannot see (``HIDDEN`` in :meth:`~kbsim.engine.rows.turn.Turn.sandbox`) anew, uniformly, from
the cards not seen anywhere on the table (it ignores what the seat knows of the bottom of its own draw pile and
the face-down characters); :class:`RowsWorld` steps the result with the engine's turns, with the interface of
the forward model (``seat``, ``over``, ``state``, ``apply``, ``play_turn``, ``clone``, ``result``).
"""

from __future__ import annotations

import random
from collections import Counter

from kbsim.engine.rng import shuffle
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.game import team_score
from kbsim.engine.rows.moves import DONE, END_TURN, Move
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import HIDDEN, Turn


class RowsWorld:
    """A full rows-family position in play (the forward model's interface; a hand's end ends it)."""

    def __init__(self, game: CompiledGame, turn: Turn) -> None:
        self.game = game
        self.turn: Turn | None = turn
        self.state: GameState = turn.state
        self._winners: tuple[int, ...] = ()
        self._all_out = False

    @property
    def seat(self) -> int:
        """The seat to move; -1 once over."""
        t = self.turn
        return -1 if t is None else t.seat

    @property
    def over(self) -> bool:
        """True once the hand has ended."""
        return self.turn is None

    def apply(self, move: Move) -> None:
        """Apply ``move`` for the seat to move; a move that ends the turn moves on to the next turn."""
        t = self.turn
        assert t is not None
        t.apply(move)
        if t.phase == DONE:
            self._advance(t)

    def play_turn(self, bot) -> None:
        """Let ``bot`` play the whole turn in progress, then move on."""
        t = self.turn
        assert t is not None
        bot.play_turn(t)
        if t.phase != DONE:
            t.apply(END_TURN)
        self._advance(t)

    def clone(self) -> RowsWorld:
        """An independent copy."""
        t = self.turn
        assert t is not None
        w = RowsWorld(self.game, t.clone())
        return w

    def result(self) -> list[float]:
        """Per seat: the share of the win (race), or the team score (solo/cooperative); 0 before the end."""
        n = self.state.players
        if self.turn is not None:
            return [0.0] * n
        if self._all_out:
            return [float(team_score(self.game, self.state))] * n if self.game.score is not None else [0.0] * n
        w = self._winners
        return [1.0 / len(w) if k in w else 0.0 for k in range(n)]

    def _advance(self, t: Turn) -> None:
        g = self.game
        st = self.state
        n = st.players
        if t.won and not g.all_out:
            self._winners = (t.seat,)
            self.turn = None
            return
        if g.all_out and all(st.held(k) == 0 for k in range(n)):
            self._all_out = True
            self.turn = None
            return
        seat = (t.seat + 1) % n
        while g.all_out and st.held(seat) == 0:
            seat = (seat + 1) % n
        st.turn_no += 1
        nt = Turn.for_seat(g, st, seat)
        if g.refill_at_start:
            nt.draw_at_start()
        self.turn = nt


def determinize(turn: Turn, rng: random.Random) -> RowsWorld:
    """A world consistent with ``turn`` (not changed): its hidden cards dealt anew, uniformly (see the module)."""
    game = turn.g
    sb = turn.sandbox()
    st = sb.state
    seen: Counter = Counter()
    for row in st.rows:
        seen.update(c for c in row if c > 0)
    seen.update(st.discard)
    for k in range(st.players):
        seen.update(c for c in st.hands[k] if c != HIDDEN)
        seen.update(c for c in st.piles[k] if c != HIDDEN)
        if st.shared:
            break
    for park in st.parked:
        seen.update(c for c, _ in park)
    for m in st.minus:
        seen.update(m)
    unseen = Counter(game.deck)
    unseen.subtract(seen)
    pool = sorted(c for c, n in unseen.items() for _ in range(max(0, n)))
    shuffle(rng, pool)
    zones = [st.hands[k] for k in range(st.players) if k != turn.seat]
    zones.extend(st.piles[:1] if st.shared else st.piles)
    i = 0
    for z in zones:
        for j in range(len(z)):
            if z[j] == HIDDEN:
                z[j] = pool[i]
                i += 1
    return RowsWorld(game, sb)
