"""The ``random`` bot: uniform random play among legal moves.

How "uniform" is defined (so that the huge number of possible exchanges does
not swamp everything else):

1. At the start of a turn it picks uniformly among the turn options open to it:
   *lay out* (if a lay-out turn can meet its minimum: a card can be laid now,
   none has to be, a character can be played, or some rebuilds lead to a board
   where a held card can be laid -- the engine's exact search
   :func:`~kbsim.engine.rows.boards.progress_path`; undecided counts as yes),
   *exchange*, *pass*, *minus pile*. (Until issue #13, *lay out* was offered
   whenever the rules allowed rebuilds, and most of the bot's time went into
   random rebuild walks that could never lay a card; records of games with
   random bots changed then.)
2. In a lay-out turn it repeatedly picks uniformly among the kinds of move
   available (lay — including gap fills, joker swaps, parked cards —, rebuild,
   play a character, end the turn), then uniformly among the legal moves of
   that kind, until it ends the turn (at most ``max_steps`` moves, then it ends
   as soon as it may). The walk is tried in a sandbox first; if it gets stuck
   below the minimum of cards to lay, it tries again (``tries`` walks), then
   takes another option; when no option is left (solo, where the minus pile
   is refused because a card can be laid) it plays that turn as ``greedy``.
3. An exchange puts a uniformly chosen number of cards (from the minimum to the
   whole hand) under the pile, the cards chosen uniformly; a minus-pile move is
   chosen uniformly among the legal ones.
4. Where a character may be played in a turn that then ends as an exchange, a
   pass or a minus-pile move (``characters.on_any_turn``), such a turn first
   plays one with probability 1/2: a play chosen uniformly among all the legal
   ones, made only if the chosen option is still legal after it. So every
   legal kind of turn has a positive probability. (Until issue #28 it never
   played a character on such turns, and a seat whose only way on was such a
   play left the game looping to the turn limit.)

Plays are chosen among all the legal ones (:meth:`~kbsim.engine.rows.turn.Turn.play_moves` without a cap),
listed only when the kind "play a character" is drawn.
"""

from __future__ import annotations

from typing import Final

from kbsim.bots.base import BaseBot
from kbsim.engine.rng import choice, randint, sample, shuffle
from kbsim.engine.rows.boards import may_lay_after_rebuilds
from kbsim.engine.rows.moves import END_TURN, PASS, Exchange, Move
from kbsim.engine.rows.turn import DONE, Turn

ALL_PLAYS: Final = 10**9  # a listing limit no position reaches: every legal play
_PLAYS: Final[list[Move]] = []  # stands for the kind "play a character" in a walk (listed when drawn)


class RandomBot(BaseBot):
    """Uniform random legal play (see the module docstring for the exact procedure)."""

    name = "random"
    max_steps = 40
    tries = 5

    def _walk(self, turn: Turn) -> list[Move] | None:
        # (a scratch sandbox: the walk never ends it by an exchange, a pass or a minus-pile move, so it needs no
        # snapshot to take provisional moves back; the moves are then made on the turn itself)
        sb = turn.sandbox(scratch=True)
        rng = self.rng
        moves: list[Move] = []
        for step in range(self.max_steps * 2):
            kinds: list = []
            lays = sb.lay_moves()
            if lays:
                kinds.append(lays)
            if step < self.max_steps:
                rebuilds = sb.rebuild_moves()
                if rebuilds:
                    kinds.append(rebuilds)
                if sb.available_characters() and sb.play_moves(limit=1):
                    kinds.append(_PLAYS)
            if sb.can_end():
                if step >= self.max_steps:
                    moves.append(END_TURN)
                    return moves
                kinds.append([END_TURN])
            if not kinds:
                return None
            kind = choice(rng, kinds)
            move = choice(rng, sb.play_moves(limit=ALL_PLAYS) if kind is _PLAYS else kind)
            sb.apply(move)
            moves.append(move)
            if sb.phase == DONE:
                return moves
        return None

    def play_turn(self, turn: Turn) -> None:
        """Play one whole turn: a uniformly chosen turn option, then a random walk of moves (module docstring).

        The options open to the turn (lay out, exchange, pass, minus pile) are shuffled with the bot's own
        random stream and tried in that order; a lay-out option whose ``tries`` random walks all get stuck
        below the turn's minimum is dropped. When every option is dropped the turn is played as ``greedy``
        would play it.

        Args:
            turn: the seat's turn in progress; the chosen moves are applied to it until the turn is over.
        """
        rng = self.rng
        g = turn.g
        options = []
        if (
            turn.lay_moves()
            or turn.needed == 0
            or turn.available_characters()
            or (g.rebuild_allowed and may_lay_after_rebuilds(turn))
        ):
            options.append("lay_out")
        if (
            g.exchange_allowed
            and turn.hand
            and not (g.exchange_requires_pile and not turn.pile_size)
            and len(turn.hand) >= g.exchange_min
        ):
            options.append("exchange")
        if turn.can_pass():
            options.append("pass")
        minus = turn.minus_moves() if g.minus_allowed else []
        if minus:
            options.append("minus")
        shuffle(rng, options)
        for opt in options:
            if opt == "lay_out":
                for _ in range(self.tries):
                    moves = self._walk(turn)
                    if moves is not None:
                        for m in moves:
                            turn.apply(m)
                        return
                continue
            if g.chars_any_turn and turn.available_characters():
                self._play_first(turn, opt)
                if opt == "minus":
                    minus = turn.minus_moves()
            if opt == "exchange":
                k = randint(rng, g.exchange_min, len(turn.hand))
                turn.apply(Exchange(tuple(sample(rng, turn.hand, k))))
                return
            if opt == "minus":
                turn.apply(choice(rng, minus))
                return
            turn.apply(PASS)
            return
        from kbsim.bots.greedy import GreedyBot

        fallback = GreedyBot()
        fallback.new_game(g, self.seat, self.players, self.seed)
        fallback.play_turn(turn)

    def _play_first(self, turn: Turn, option: str) -> None:
        """With probability 1/2, play a uniformly chosen legal character before a turn ending as ``option``.

        The play is made only if ``option`` (``exchange``, ``pass`` or ``minus``) is still legal after it (tried
        on a copy first); otherwise the turn goes on without a play.
        """
        rng = self.rng
        if randint(rng, 0, 1) == 0:
            return
        plays = turn.play_moves(limit=ALL_PLAYS)
        if not plays:
            return
        move = choice(rng, plays)
        probe = turn.sandbox()
        probe.apply(move, listed=True)
        if option == "exchange":
            still = probe.can_exchange()
        else:
            still = probe.can_pass() if option == "pass" else bool(probe.minus_moves())
        if still:
            turn.apply(move, listed=True)
