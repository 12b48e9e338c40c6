"""One seat's turn: the legality of each move and its effect on the table.

A :class:`Turn` works on the live zones of a game (rows, the seat's hand and
draw pile, the discard pile) and is the only code that changes them during
play. Bots receive it as their view of the game: they read the rows, their own
hand and public counts, ask for :meth:`Turn.legal_moves`, and act through
:meth:`Turn.apply`. :meth:`Turn.sandbox` gives an independent copy (with the
draw pile's cards hidden) for look-ahead.

Rules implemented (rulebook, "Turn Sequence"; see ``rules/kingsbridge.yaml``):
lay-out turns (lay at row ends, open empty rows, rebuild end segments,
completion to the discard pile, minimum cards laid), exchange (cards under the
pile, then refill; ends the turn), pass, refill, and the immediate win.
"""

from __future__ import annotations

from itertools import combinations

from kbsim.engine.compiled import CompiledGame
from kbsim.engine.moves import END_TURN, PASS, EndTurn, Exchange, IllegalMove, Lay, Move, Pass, Rebuild

START, LAYING, DONE = 0, 1, 2
HIDDEN = 0  # stands for a draw-pile card a player may not see


class Turn:
    """A turn in progress for one seat.

    Args:
        game: the compiled rules.
        rows: the table's rows, each a list of cards from first to last (mutated).
        hand: the seat's hand cards (mutated).
        pile: the seat's draw pile, top card last (mutated; hidden from bots, who see ``pile_size``).
        discard: the discard pile (mutated).
        opponents: public card counts of the other seats (hand + pile), in seat order after this one;
            a tuple, or a zero-argument callable returning it (computed only when asked for).

    Attributes (read-only for bots): ``rows``, ``hand``, ``pile_size``,
    ``discard_size``, ``laid``, ``rebuilds``, ``completed``, ``phase``,
    ``won``, ``exchanged``, ``passed``.
    """

    __slots__ = ("g", "rows", "hand", "_pile", "discard", "_opponents", "phase", "laid", "rebuilds",
                 "completed", "won", "exchanged", "passed", "log", "on_move")

    def __init__(self, game: CompiledGame, rows: list[list[int]], hand: list[int], pile: list[int],
                 discard: list[int], opponents=()):
        self.g = game
        self.rows = rows
        self.hand = hand
        self._pile = pile
        self.discard = discard
        self._opponents = opponents
        self.phase = START
        self.laid = 0
        self.rebuilds = 0
        self.completed = 0
        self.won = False
        self.exchanged = 0
        self.passed = False
        self.log: list[Move] | None = None
        self.on_move = None  # optional callable(turn) run after each applied move (invariant checks)

    # ----------------------------------------------------------------- reading
    @property
    def opponents(self) -> tuple[int, ...]:
        """Cards held (hand + draw pile) by each other seat, in turn order after this seat."""
        o = self._opponents
        return o() if callable(o) else o

    @property
    def pile_size(self) -> int:
        """Cards in this seat's draw pile."""
        return len(self._pile)

    @property
    def discard_size(self) -> int:
        """Cards in the discard pile."""
        return len(self.discard)

    @property
    def needed(self) -> int:
        """Hand cards this lay-out turn must still lay before it may end."""
        g = self.g
        if g.min_only_while_pile and not self._pile:
            return 0
        return max(0, g.min_lay - self.laid)

    def can_lay(self, card: int, r: int) -> bool:
        """True if hand card ``card`` may go on row ``r`` now (the card must be in hand)."""
        if self.phase == DONE:
            return False
        row = self.rows[r]
        if row:
            return card - row[-1] in self.g.steps
        return self.g.may_open(card)

    def can_rebuild(self, src: int, count: int, dst: int, from_start: bool = False) -> bool:
        """True if the rebuild ``Rebuild(src, count, dst, from_start)`` is legal now."""
        g = self.g
        if self.phase == DONE or not g.rebuild_allowed or self.rebuilds >= g.max_rebuilds or src == dst:
            return False
        rows = self.rows
        if not (0 <= src < len(rows) and 0 <= dst < len(rows)):
            return False
        s = rows[src]
        n = len(s)
        if count < 1 or count > n:
            return False
        if from_start and not g.rebuild_from_start:
            return False
        first = s[0] if from_start else s[n - count]
        d = rows[dst]
        if d:
            return first - d[-1] in g.steps
        # onto an empty row card: only a split (never the whole row, which would change nothing)
        return g.rebuild_into_empty and count < n and g.may_open(first)

    # ----------------------------------------------------------------- acting
    def apply(self, move: Move) -> None:
        """Apply ``move`` for this seat.

        Raises:
            IllegalMove: the move is not allowed now; nothing has changed.
        """
        t = type(move)
        if t is Lay:
            self.lay(move.card, move.row)
        elif t is Rebuild:
            self.rebuild(move.src, move.count, move.dst, move.from_start)
        elif t is EndTurn:
            self.end()
        elif t is Exchange:
            self.exchange(move.cards)
        elif t is Pass:
            self.pass_turn()
        else:
            raise IllegalMove(f"not a move: {move!r}")

    def _after(self, move: Move) -> None:
        if self.log is not None:
            self.log.append(move)
        if self.on_move is not None:
            self.on_move(self)

    def _complete(self, r: int) -> None:
        row = self.rows[r]
        if self.g.is_complete(row):
            self.discard.extend(row)
            row.clear()
            self.completed += 1

    def lay(self, card: int, r: int) -> None:
        """Lay hand card ``card`` on row ``r`` (see :class:`~kbsim.engine.moves.Lay`)."""
        if self.phase == DONE:
            raise IllegalMove("the turn is over")
        if not 0 <= r < len(self.rows):
            raise IllegalMove(f"no row {r + 1}")
        hand = self.hand
        if card not in hand:
            raise IllegalMove(f"card {card} is not in hand")
        g = self.g
        row = self.rows[r]
        if row:
            if card - row[-1] not in g.steps:
                raise IllegalMove(f"{card} does not continue row {r + 1} (ends {row[-1]})")
        elif not g.may_open(card):
            raise IllegalMove(f"{card} may not open an empty row")
        hand.remove(card)
        row.append(card)
        self.laid += 1
        self.phase = LAYING
        if len(row) >= g.full_length and g.is_complete(row):
            self.discard.extend(row)
            row.clear()
            self.completed += 1
        if not hand and g.win_on_empty and not self._pile:
            self.won = True
            self.phase = DONE
        if self.log is not None or self.on_move is not None:
            self._after(Lay(card, r))

    def rebuild(self, src: int, count: int, dst: int, from_start: bool = False) -> None:
        """Move ``count`` cards from row ``src`` onto row ``dst`` (see :class:`~kbsim.engine.moves.Rebuild`)."""
        if not self.can_rebuild(src, count, dst, from_start):
            raise IllegalMove(f"rebuild of {count} card(s) from row {src + 1} onto row {dst + 1} is not allowed")
        s = self.rows[src]
        if from_start:
            seg = s[:count]
            del s[:count]
        else:
            seg = s[-count:]
            del s[-count:]
        self.rows[dst].extend(seg)
        self.rebuilds += 1
        self.phase = LAYING
        self._complete(dst)
        if self.log is not None or self.on_move is not None:
            self._after(Rebuild(src, count, dst, from_start))

    def _refill(self) -> None:
        g = self.g
        n = g.hand_size - len(self.hand) if g.refill_up_to else g.refill_draw
        pile, hand = self._pile, self.hand
        while n > 0 and pile:
            hand.append(pile.pop())
            n -= 1

    def end(self) -> None:
        """End a lay-out turn and refill the hand."""
        if self.phase == DONE:
            raise IllegalMove("the turn is over")
        g = self.g
        if self.laid < g.min_lay and (self._pile or not g.min_only_while_pile):
            raise IllegalMove(f"a lay-out turn must lay at least {g.min_lay} hand card(s)")
        self._refill()
        self.phase = DONE
        if self.log is not None or self.on_move is not None:
            self._after(END_TURN)

    def exchange(self, cards: tuple[int, ...] | list[int]) -> None:
        """Put ``cards`` under the draw pile in the order given, refill; the turn ends."""
        g = self.g
        if self.phase != START:
            raise IllegalMove("an exchange must be the whole turn")
        if not g.exchange_allowed:
            raise IllegalMove("exchanging is not allowed in these rules")
        if g.exchange_requires_pile and not self._pile:
            raise IllegalMove("exchanging needs cards in the draw pile")
        if len(cards) < g.exchange_min:
            raise IllegalMove(f"an exchange puts at least {g.exchange_min} card(s) under the pile")
        hand = list(self.hand)
        for c in cards:
            if c not in hand:
                raise IllegalMove(f"card {c} is not in hand")
            hand.remove(c)
        self.hand[:] = hand
        self._pile[0:0] = reversed(cards)
        self.exchanged = len(cards)
        self._refill()
        self.phase = DONE
        self._after(Exchange(tuple(cards)))

    def pass_turn(self) -> None:
        """Pass (only where allowed: by default with an empty draw pile)."""
        g = self.g
        if self.phase != START:
            raise IllegalMove("a pass must be the whole turn")
        if not g.pass_allowed:
            raise IllegalMove("passing is not allowed in these rules")
        if g.pass_requires_empty_pile and self._pile:
            raise IllegalMove("passing is allowed only with an empty draw pile")
        self.passed = True
        self.phase = DONE
        self._after(PASS)

    # ----------------------------------------------------------------- enumerating
    def lay_moves(self) -> list[Lay]:
        """Every legal lay (one per distinct hand card and row)."""
        if self.phase == DONE:
            return []
        out = []
        for card in sorted(set(self.hand)):
            for r in range(len(self.rows)):
                if self.can_lay(card, r):
                    out.append(Lay(card, r))
        return out

    def rebuild_moves(self) -> list[Rebuild]:
        """Every legal rebuild."""
        g = self.g
        if self.phase == DONE or not g.rebuild_allowed or self.rebuilds >= g.max_rebuilds:
            return []
        out = []
        rows = self.rows
        n = len(rows)
        starts = (False, True) if g.rebuild_from_start else (False,)
        for src in range(n):
            length = len(rows[src])
            for k in range(1, length + 1):
                for fs in starts:
                    if fs and k == length:
                        continue  # a whole row is already listed as an end segment
                    for dst in range(n):
                        if self.can_rebuild(src, k, dst, fs):
                            out.append(Rebuild(src, k, dst, fs))
        return out

    def exchange_moves(self) -> list[Exchange]:
        """Every legal exchange, one per distinct multiset of hand cards (sorted)."""
        g = self.g
        if self.phase != START or not g.exchange_allowed or (g.exchange_requires_pile and not self._pile):
            return []
        hand = sorted(self.hand)
        seen = set()
        for k in range(g.exchange_min, len(hand) + 1):
            for combo in combinations(hand, k):
                seen.add(combo)
        return [Exchange(c) for c in sorted(seen, key=lambda c: (len(c), c))]

    def can_pass(self) -> bool:
        g = self.g
        return self.phase == START and g.pass_allowed and not (g.pass_requires_empty_pile and self._pile)

    def can_end(self) -> bool:
        return self.phase != DONE and not self.needed

    def legal_moves(self) -> list[Move]:
        """All legal moves now: lays, rebuilds, ending the turn, exchanges, pass."""
        moves: list[Move] = [*self.lay_moves(), *self.rebuild_moves()]
        if self.can_end():
            moves.append(END_TURN)
        moves.extend(self.exchange_moves())
        if self.can_pass():
            moves.append(PASS)
        return moves

    def sandbox(self) -> Turn:
        """An independent copy for look-ahead; the draw pile's cards are hidden (``HIDDEN``)."""
        t = Turn(self.g, [list(r) for r in self.rows], list(self.hand), [HIDDEN] * len(self._pile),
                 list(self.discard), self.opponents)
        t.phase, t.laid, t.rebuilds, t.completed = self.phase, self.laid, self.rebuilds, self.completed
        t.won, t.exchanged, t.passed = self.won, self.exchanged, self.passed
        return t
