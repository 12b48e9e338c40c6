"""What one seat may see of a rows-family game: the engine masks the rest while the seat's bot decides.

A bot decides from its seat's observation: its own hand, its own draw pile's size (not its order), every public
zone (rows, discard, minus piles, parked cards, open character piles, the display, the box), how many cards every
other seat holds, and what the public history revealed. The game loop enforces this by construction:

* **Masking in place.** Before a bot plays a turn, :func:`mask` replaces, in the live state, every card the seat
  may not see by a placeholder (:data:`~kbsim.engine.rows.turn.HIDDEN`, :data:`~kbsim.engine.rows.turn.HIDDEN_CHARACTER`
  for a face-down character): every draw pile (the seat's own too, except the cards it knows: those it put under
  its pile by exchanging, and those everybody saw put on top), every other seat's hand (except the cards everybody
  saw it take), the face-down character deck. The real cards go into a :class:`Vault` that only the game loop
  holds; :func:`unmask` puts them back after the bot's turn. The bot is handed the ordinary
  :class:`~kbsim.engine.rows.turn.Turn` over that state, so every bot (random, greedy, planner, the planner's
  searches and their sandboxes) keeps its code: none of them holds a reference through which a hidden card could
  be read, because no such card is in any zone while the bot runs, and bot code runs only then.
* **Draws wait.** A turn that ends draws (the refill after laying out, an exchange, a minus-pile move): while the
  zones are masked the turn only records what it owes (:attr:`~kbsim.engine.rows.turn.Turn.defer_draws`), and the
  game loop makes the draws with the real cards after :func:`unmask`
  (:meth:`~kbsim.engine.rows.turn.Turn.finish_draws`). The one draw during a turn, a new character turned up on the
  solo and cooperative display, is shown as ``"?"`` until the turn ends (a character revealed then cannot be
  played in the same turn anyway: one character per turn in the shipped rules).
* **What everybody knows** is kept by :class:`Knowledge`, from the public events of every turn: how many cards at
  the bottom of each pile its owner put there itself (it knows them), the cards put face down on top of a pile
  in everybody's sight (a row-start card handed out by a power), the hand cards every seat saw a seat take from
  such a pile, where such cards may be after the seat exchanged (a *pool*: its hand and the places its exchange
  filled), what the rules prove a hand does not hold (a must-lay card that could be laid was not; a minus-pile
  move was allowed only because no card could be laid), the joker at the bottom of the character deck, and the
  turn-loop counts. It holds no card a seat could not have seen, so a bot may read it: it is
  :attr:`~kbsim.engine.rows.turn.Turn.seen`, the second half of the observation, from which
  :func:`kbsim.engine.rows.forward.determinize` samples a full state.

Why this design rather than an explicit observation object with an action interface: every bot of the family
reads and tries moves through a :class:`~kbsim.engine.rows.turn.Turn` (greedy's trial copies, the planner's
scratch sandboxes, the stall fingerprint), so a masked ``Turn`` keeps them unchanged and their records identical;
masking costs two list copies per hidden zone per turn and no cost per move (a second copy of the state
stepped in lockstep would cost every move twice), which keeps the compiled benchmark where it was. The market
family cannot do the same, because a market turn turns up cards while the seat still decides
(:mod:`kbsim.engine.market.observe`).
"""

from __future__ import annotations

from collections import Counter

from kbsim.engine.results import InvariantError
from kbsim.engine.rows.boards import reachable_openings
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import HIDDEN, HIDDEN_CHARACTER, Turn

NO_VOIDS: list[tuple[tuple[int, ...], int]] = []  # (shared by every seat without voids; never changed)
NO_CARDS: list[int] = []  # (an empty list the updates read, never change)


class Knowledge:
    """What every seat knows about the hidden cards of one hand, beyond the zones it sees (public information).

    Kept by the hand loop (:class:`kbsim.engine.rows.hand.HandLoop`) from what happened in sight of everybody;
    a bot reads it as :attr:`Turn.seen <kbsim.engine.rows.turn.Turn.seen>` (it must not change it). Lists are
    per seat; piles are counted from their bottom (index 0), as :class:`~kbsim.engine.rows.state.GameState`
    stores them.

    Args:
        game: the compiled rules (None: an empty shell, which :meth:`copy` fills).
        players: seats.

    Attributes:
        own_bottom: cards at the bottom of each seat's draw pile that the seat put there by exchanging (it knows
            them and their order; the others know only how many).
        top: cards on top of each seat's draw pile that everybody saw put there (their values are public).
        known: per seat, hand cards everybody saw it draw (from ``top``), as a list of values.
        pooled: per seat, cards everybody saw it hold that are now in its hand or in one of its ``pool_slots``
            (it exchanged while it held them, and nobody saw which cards went under).
        eligible: per seat, how many of its hand cards may be ``pooled`` ones.
        pool_slots: per seat, the places of its draw pile (index from the bottom) that may hold ``pooled`` cards.
        voids: per seat, ``(values, n)`` pairs: ``n`` of its hand cards are none of ``values`` (the rules proved
            it at the end of its last turn: a must-lay card it could have laid, a minus-pile move allowed only to
            a seat that cannot lay).
        joker_bottom: the joker is in the face-down character deck, at its bottom, in everybody's sight.
        turns: turns played in the hand before the turn in progress.
        idle: per seat, turns since a card was laid (the stalemate trigger's count).
        exact_round: the stalemate trigger's last tested round (``stalemate.test: exact``).
        hand_no: index of the hand in a match (0 for a single hand).
        dealer: the seat that dealt this hand.
        totals: per seat, penalty points of the match's earlier hands.
        rules: the rules in force (those the knowledge was made for; a barred seat's turns play narrowed copies of
            them, :func:`kbsim.engine.rows.restrict.narrowed`), or None.
        bars: per seat, the move kinds its player is barred from (restricted play; declared with the players, so
            everybody knows them), or None when no seat is barred.
    """

    __slots__ = (
        "own_bottom",
        "top",
        "known",
        "pooled",
        "eligible",
        "pool_slots",
        "voids",
        "joker_bottom",
        "turns",
        "idle",
        "exact_round",
        "hand_no",
        "dealer",
        "totals",
        "rules",
        "bars",
        "_joker_key",
        "_powers",
        "_len0",
        "_hand0",
        "_joker0",
        "_blank",
    )

    def __init__(self, game: CompiledGame | None, players: int) -> None:
        self.own_bottom = [0] * players
        self.top = [0] * players
        self.known: list[list[int]] = [[] for _ in range(players)]
        self.pooled: list[list[int]] = [[] for _ in range(players)]
        self.eligible = [0] * players
        self.pool_slots: list[list[int]] = [[] for _ in range(players)]
        self.voids: list[list[tuple[tuple[int, ...], int]]] = [NO_VOIDS for _ in range(players)]
        self.joker_bottom = False
        self.turns = 0
        self.idle = [0] * players
        self.exact_round = 0
        self.hand_no = 0
        self.dealer = 0
        self.totals = [0] * players
        self.rules = game
        self.bars: list[frozenset[str] | None] | None = None
        joker = game is not None and game.chars_display_mode
        self._joker_key = next((c.key for c in game.roster if c.is_joker), "") if game is not None and joker else ""
        # (only a character's power puts cards on a pile during a turn)
        self._powers = game.chars_enabled if game is not None else False
        self._len0 = [0] * players
        self._hand0: list[int] | None = None
        self._joker0 = False
        # per pile, a list of placeholders the game loop's masks reuse while the pile's size is unchanged and nothing
        # was put on it while masked (never handed out with a known card; see mask)
        self._blank: list[list[int] | None] = [None] * players

    def copy(self) -> Knowledge:
        """An independent copy (for a copy of the position it describes)."""
        k = Knowledge(None, 0)  # (a shell filled below; no __new__: the class is compiled by mypyc)
        k.own_bottom = self.own_bottom[:]
        k.top = self.top[:]
        k.known = [x[:] for x in self.known]
        k.pooled = [x[:] for x in self.pooled]
        k.eligible = self.eligible[:]
        k.pool_slots = [x[:] for x in self.pool_slots]
        k.voids = self.voids[:]  # (each seat's list is replaced, never changed in place)
        k.joker_bottom = self.joker_bottom
        k.turns = self.turns
        k.idle = self.idle[:]
        k.exact_round = self.exact_round
        k.hand_no = self.hand_no
        k.dealer = self.dealer
        k.totals = self.totals[:]
        k.rules = self.rules
        k.bars = self.bars
        k._joker_key = self._joker_key
        k._powers = self._powers
        k._len0 = self._len0[:]
        k._hand0 = None if self._hand0 is None else self._hand0[:]
        k._joker0 = self._joker0
        k._blank = [None] * len(self.top)  # (the copy's masks make their own)
        return k

    # ------------------------------------------------------------------ the hand loop's calls
    def start_draws(self, state: GameState, turn: Turn) -> None:
        """Make the draws of a turn that refills at its start (:meth:`Turn.draw_at_start`) and note what they took."""
        seat = turn.seat
        pile = state.piles[seat]
        t = self.top[seat] if not state.shared else 0
        tops = pile[len(pile) - t :] if t else []
        d0 = turn.drawn
        turn.draw_at_start()
        self._took(state, seat, turn.drawn - d0, tops)

    def begin_turn(self, state: GameState, seat: int, turns: int, idle: list[int], exact_round: int) -> None:
        """Note the zones' sizes at the start of ``seat``'s turn (after its start draws) and the turn-loop counts."""
        self.turns = turns
        self.idle = idle  # (the hand loop's list: it does not change until the turn ends)
        self.exact_round = exact_round
        if self._powers:
            piles = state.piles
            len0 = self._len0
            for s in range(len(piles)):
                len0[s] = len(piles[s])
        self._hand0 = state.hands[seat][:] if self.known[seat] or self.pooled[seat] else None
        if self._joker_key:
            self._joker0 = self._joker_key in state.char_deck

    def end_turn(self, game: CompiledGame, state: GameState, turn: Turn) -> None:
        """Update the knowledge from ``turn``, just ended on the real zones, and make its owed draws.

        Runs :meth:`Turn.finish_draws` between the two halves: what went under or on top of the piles and which
        known cards left the hand, then what the draws took from the top of the seat's pile, then what the
        rules prove about the hand now (``voids``) and where the joker is.

        Args:
            game: compiled rules.
            state: the hand's state, unmasked.
            turn: the turn of the seat, over (phase done), its draws not yet made.
        """
        seat = turn.seat
        hand = state.hands[seat]
        shared = state.shared
        if self._hand0 is not None:
            # cards that left the hand in sight of everybody (laid, parked...), before an exchange pools the rest:
            # the cards an exchange put under the pile left unseen, so they are not among them
            under = state.piles[seat][: turn.exchanged] if turn.exchanged and not shared else NO_CARDS
            self._left_hand(self._hand0, hand + under, seat)
            self._hand0 = None
        if not shared:
            self._piles_after(state, seat, turn.exchanged, len(hand))
        pile = state.piles[seat]
        t = self.top[seat] if not shared else 0
        tops = pile[len(pile) - t :] if t else NO_CARDS
        kept = len(hand)
        watch = game.must_lay_when_drawn and bool(self.known[seat] or self.pooled[seat])
        before = hand[:] if watch else NO_CARDS
        pile_before = pile[:] if watch else NO_CARDS
        d0 = turn.drawn
        turn.finish_draws()
        d = turn.drawn - d0
        if d > 0 and not shared:
            self._took(state, seat, d, tops)
        if watch and d:  # must-lay cards laid at once from the draw left the hand in sight of everybody
            self._left_hand(before + pile_before[len(pile_before) - d :], hand, seat)
        if game.must_lay or turn.minus_cards or self.voids[seat]:
            self.voids[seat] = self._proved(game, state, turn, kept)
        if self._joker_key:
            inside = self._joker_key in state.char_deck
            self.joker_bottom = inside and (self.joker_bottom or not self._joker0)

    # ------------------------------------------------------------------ the updates
    def _piles_after(self, state: GameState, seat: int, exchanged: int, hand_left: int) -> None:
        """Cards put on top of piles in sight of everybody (a power), and what ``seat`` exchanged under its pile."""
        if self._powers:
            piles = state.piles
            len0 = self._len0
            for s in range(len(piles)):
                pushed = len(piles[s]) - len0[s] - (exchanged if s == seat else 0)
                if pushed > 0:
                    self.top[s] += pushed
                elif pushed < 0:  # (no rule takes cards from a pile during a turn; kept consistent if one did)
                    self.top[s] = min(self.top[s], len(piles[s]))
        if not exchanged:
            return
        self.own_bottom[seat] += exchanged
        slots = self.pool_slots[seat]
        if slots:
            self.pool_slots[seat] = [p + exchanged for p in slots]
        if self.known[seat] or (self.pooled[seat] and self.eligible[seat] > 0):
            # nobody saw which hand cards went under: the known ones are now in the hand or in the new places
            self.pooled[seat] = self.pooled[seat] + self.known[seat]
            self.known[seat] = []
            self.eligible[seat] = hand_left
            self.pool_slots[seat] = list(range(exchanged)) + self.pool_slots[seat]

    def _left_hand(self, before: list[int], after: list[int], seat: int) -> None:
        """Cards that left ``seat``'s hand in sight of everybody (laid, parked, on the minus pile).

        Args:
            before: the hand's cards before (values, any order).
            after: the cards still in the hand, plus any that left it unseen (an exchange's, under the pile).
            seat: the seat.
        """
        gone = Counter(before)
        gone.subtract(after)
        known = self.known[seat]
        pooled = self.pooled[seat]
        for card, n in gone.items():
            for _ in range(n):
                # a card of a known value left: count it as the known one (the widest reading of what is left).
                # A pooled value is ambiguous: the pooled card, or another copy while the pooled one is under the
                # pile. Either way the pooled card need no longer be placed, and at most ``eligible`` pooled
                # cards are in the hand still (the widest reading of both). With no pooled card allowed in the
                # hand (``eligible`` 0) it was another copy: every pooled card is under the pile still.
                if card in known:
                    known.remove(card)
                elif card in pooled and self.eligible[seat] > 0:
                    pooled.remove(card)
        self._clip(seat, len(after))

    def _took(self, state: GameState, seat: int, d: int, tops: list[int]) -> None:
        """``seat`` drew ``d`` cards (``d`` > 0) from the top of its own pile: known ones join its known hand cards."""
        length = len(state.piles[seat])
        t = self.top[seat]
        if t:
            got = min(d, t)
            self.known[seat].extend(tops[len(tops) - got :])
            self.top[seat] = t - got
        slots = self.pool_slots[seat]
        if slots:
            back = [p for p in slots if p >= length]
            if back:
                self.eligible[seat] += len(back)
                self.pool_slots[seat] = [p for p in slots if p < length]
        if self.own_bottom[seat] > length:
            self.own_bottom[seat] = length
        self._clip(seat, len(state.hands[seat]))

    def _clip(self, seat: int, hand: int) -> None:
        """Keep the counts possible: no more eligible places than hidden hand cards; a pool with no card is gone."""
        if not self.pooled[seat]:
            if self.eligible[seat] or self.pool_slots[seat]:
                self.eligible[seat] = 0
                self.pool_slots[seat] = []
            return
        free = hand - len(self.known[seat])
        if self.eligible[seat] > free:
            self.eligible[seat] = max(0, free)

    def _proved(self, game: CompiledGame, state: GameState, turn: Turn, kept: int) -> list[tuple[tuple[int, ...], int]]:
        """What the rules prove ``turn``'s seat does not hold, at the end of its turn (the new ``voids``)."""
        out: list[tuple[tuple[int, ...], int]] = []
        seat = turn.seat
        if game.must_lay and not (turn.exchanged or turn.passed or turn.minus_cards):
            probe = Turn.for_seat(game, state, seat)
            values = tuple(v for v in sorted(game.must_lay) if any(probe.can_lay(v, r) for r in range(len(state.rows))))
            if values:
                # the turn could end only with no such card in hand (and a drawn one is laid at once, where so ruled)
                out.append((values, len(state.hands[seat]) if game.must_lay_when_drawn else kept))
        if turn.minus_cards and game.minus_only_when_stuck and kept:
            values2 = stuck_values(game, state)
            if values2:
                out.append((values2, kept))
        return out if out else NO_VOIDS


def stuck_values(game: CompiledGame, state: GameState) -> tuple[int, ...]:
    """The card values a seat holding them could lay on the table now or after rebuilds (no modifier in force).

    What a minus-pile move that the rules allow only to a seat that cannot lay (``minus.only_when_stuck``) proves
    its hand did not hold: a row end some value continues, an empty row it may open, a gap it fills, the value the
    joker stands for, on any board rebuilds reach (:func:`~kbsim.engine.rows.boards.reachable_openings`).

    Returns:
        The values, ascending; empty when the search reached its limit (then the move proved nothing).
    """
    found = reachable_openings(game, state.rows)
    if found is None:
        return ()
    ends, empty, gaps = found
    steps = game.steps
    out = []
    for v in sorted(set(game.deck)):
        if v in gaps or any(v - e in steps for e in ends) or any(game.may_open(v, i) for i in empty):
            out.append(v)
    jokers = {-c for row in state.rows for c in row if c < 0}
    return tuple(sorted(set(out) | jokers))


class Vault:
    """The real zones :func:`mask` took out of the state for one seat's decision (held by the game loop only).

    Attributes:
        seat: the seat the zones were masked for.
        piles: per seat, the real draw pile (the same list object for every seat of a shared stock).
        hands: per seat, the real hand (the seat's own hand stays in place: it is the same list).
        deck: the real face-down character deck, or None when it was empty.
    """

    __slots__ = ("seat", "piles", "hands", "deck", "blank")

    def __init__(self, seat: int, piles: list[list[int]], hands: list[list[int]]) -> None:
        self.seat = seat
        self.piles = piles
        self.hands = hands
        self.deck: list[str] | None = None
        self.blank: list[list[int] | None] | None = None


def mask(state: GameState, know: Knowledge, seat: int, turn: Turn | None = None) -> Vault:
    """Take every card ``seat`` may not see out of ``state``: its hidden zones are replaced by masked lists.

    Draw piles become :data:`HIDDEN` except the cards ``seat`` knows (its own exchanged cards at the bottom of its
    pile, and cards everybody saw put on top of any pile); other seats' hands become their known cards followed
    by :data:`HIDDEN`; the face-down character deck becomes :data:`HIDDEN_CHARACTER`. Sizes do not change. The
    zones are swapped, not copied: the real lists go into the vault untouched (a few list headers per turn). With
    ``turn`` (the game loop's masks), a pile of which nobody knows a card is masked by the list of placeholders of
    the previous turn when its size is the same and nothing was put on it (``know``'s cache; :func:`unmask` drops
    a list the turn changed), so most turns build no new pile list.

    Args:
        state: the live state (its zone lists are replaced).
        know: the hand's public knowledge.
        seat: the seat about to decide.
        turn: that seat's turn, whose own draw pile is swapped too.

    Returns:
        The :class:`Vault` to hand to :func:`unmask`.
    """
    piles = state.piles
    hands = state.hands
    vault = Vault(seat, piles[:], hands[:])
    n = len(piles)
    blank = know._blank if turn is not None else None
    vault.blank = blank
    if state.shared:
        size = len(piles[0])
        masked = blank[0] if blank is not None else None
        if masked is None or len(masked) != size:
            masked = [HIDDEN] * size
            if blank is not None:
                blank[0] = masked
        for s in range(n):
            piles[s] = masked
    else:
        top = know.top
        b = know.own_bottom[seat]
        for s in range(n):
            real = piles[s]
            size = len(real)
            t = top[s]
            if t or (b and s == seat):
                masked = [HIDDEN] * size
                if t:
                    masked[size - t :] = real[size - t :]
                if b and s == seat:
                    masked[:b] = real[:b]
            else:
                cached = blank[s] if blank is not None else None
                if cached is not None and len(cached) == size:
                    masked = cached
                else:
                    masked = [HIDDEN] * size
                    if blank is not None:
                        blank[s] = masked
            piles[s] = masked
    if turn is not None:
        turn.pile = piles[seat]
    known = know.known
    for s in range(len(hands)):
        if s != seat:
            k = known[s]
            size = len(hands[s])
            hands[s] = k + [HIDDEN] * (size - len(k)) if k else [HIDDEN] * size
    if state.char_deck:
        vault.deck = state.char_deck
        state.char_deck = [HIDDEN_CHARACTER] * len(state.char_deck)
    return vault


def unmask(state: GameState, vault: Vault, exchanged: int, turn: Turn | None = None) -> None:
    """Put the real zones :func:`mask` took out back into ``state``, keeping what the turn did meanwhile.

    During the turn a pile may have received the seat's exchanged cards at its bottom (``exchanged`` of them,
    its own pile) and cards on top (a power); the character deck may have lost cards from its top to the display
    (shown as ``"?"`` there) and gained the joker at its bottom. Draws from piles wait
    (:attr:`Turn.defer_draws`), so the masked part of every pile is still whole. The vault is not changed (a
    pile that received cards is put back as a new list), so :func:`unmasked_copy` can use it again.

    Args:
        state: the state :func:`mask` masked.
        vault: what :func:`mask` returned.
        exchanged: cards the seat put under its own pile this turn.
        turn: the seat's turn, whose own draw pile is swapped back too.

    Raises:
        InvariantError: a masked zone changed in a way no rule does (an engine or bot bug).
    """
    seat = vault.seat
    piles = state.piles
    real_piles = vault.piles
    shared = state.shared
    for i in range(len(piles)):
        now = piles[i]
        size = len(real_piles[i])
        k = exchanged if (i == seat or shared) else 0
        if len(now) == size and not k:
            piles[i] = real_piles[i]
            continue
        if len(now) < k + size:
            raise InvariantError(f"draw pile {i + 1} lost cards while masked ({len(now)} < {k + size})")
        blank = vault.blank
        if blank is not None and blank[0 if shared else i] is now:
            blank[0 if shared else i] = None  # (the turn put cards on the cached list: it is not blank any more)
        if shared:
            merged = now[:k] + real_piles[i] + now[k + size :]
            for j in range(len(piles)):
                piles[j] = merged
            break
        piles[i] = now[:k] + real_piles[i] + now[k + size :]
    if turn is not None:
        turn.pile = piles[seat]
    hands = state.hands
    for s in range(len(hands)):
        if len(hands[s]) != len(vault.hands[s]):
            raise InvariantError(f"seat {s}'s hand changed size while masked")
    hands[:] = vault.hands
    real_deck = vault.deck
    deck = state.char_deck
    display = state.display
    if real_deck is None and not deck and HIDDEN_CHARACTER not in display:
        return
    _unmask_deck(state, real_deck, deck, display)


def _unmask_deck(state: GameState, real_deck: list[str] | None, deck: list[str], display: list[str]) -> None:
    """The character deck and display part of :func:`unmask`."""
    real_cards: list[str] = [] if real_deck is None else real_deck
    c = 0
    while c < len(deck) and deck[len(deck) - 1 - c] == HIDDEN_CHARACTER:
        c += 1
    popped = real_cards[c:][::-1]  # turned up onto the display, in the order they were turned up
    state.char_deck = deck[: len(deck) - c] + real_cards[:c]
    j = 0
    for i in range(len(display)):
        if display[i] == HIDDEN_CHARACTER:
            if j >= len(popped):
                raise InvariantError("the display holds more hidden characters than the deck gave")
            display[i] = popped[j]
            j += 1
    if j != len(popped):
        raise InvariantError("characters left the masked deck but did not reach the display")


def unmasked_copy(state: GameState, vault: Vault, exchanged: int) -> GameState:
    """A copy of a masked ``state`` with the real cards back (for the invariant checks made during a turn).

    The copy may share the vault's lists; read it only.
    """
    st = state.copy()
    unmask(st, vault, exchanged)
    return st


def observe(state: GameState, know: Knowledge, seat: int) -> GameState:
    """A copy of ``state`` as ``seat`` sees it (:func:`mask` on a copy; the vault is dropped)."""
    st = state.copy()
    mask(st, know, seat)
    return st
