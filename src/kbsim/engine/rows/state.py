"""The zones of a game and the deal.

Cards are ints. A story card is its value. A joker character standing in a
row for value ``v`` is stored there as ``-v``; it travels with rebuilds like
any card. Gaps (a skipped value) and duplicates are visible in the row itself
(a difference of two steps, or of zero, between neighbours).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from kbsim.engine.rng import shuffle
from kbsim.engine.rows.compiled import CompiledGame


@dataclass(init=False)
class GameState:
    """All zones of a game in progress.

    Attributes:
        rows: the rows, each a list of cards first to last; the first ``n_fixed``
            are the row cards, any after them are extra rows (they vanish once empty).
        hands: hand cards per seat.
        piles: draw pile per seat, top card last.
        discard: the discard pile.
        parked: per seat, ``(card, turn number)`` of cards parked face up (Wilwulf).
        minus: per seat, the minus pile (solo/cooperative).
        char_piles: per seat, the open character pile, top first (complete game).
        display: face-up shared characters (solo/cooperative).
        char_deck: face-down characters, top last (solo/cooperative).
        box: characters out of the game.
        joker: key of the joker character while it lies in a row, else None.
        turn_no: number of the turn being played (1-based).
        n_fixed: number of row cards.
        char_plays: (seat, character key) -> plays (a plain dict in the order of first plays).
    """

    rows: list[list[int]]
    hands: list[list[int]]
    piles: list[list[int]]
    discard: list[int] = field(default_factory=list)
    parked: list[list[tuple[int, int]]] = field(default_factory=list)
    minus: list[list[int]] = field(default_factory=list)
    char_piles: list[list[str]] = field(default_factory=list)
    display: list[str] = field(default_factory=list)
    char_deck: list[str] = field(default_factory=list)
    box: list[str] = field(default_factory=list)
    joker: str | None = None
    turn_no: int = 0
    n_fixed: int = 0
    char_plays: dict[tuple[int, str], int] = field(default_factory=dict)

    # (an __init__ of its own instead of the generated one: compiled, building a state runs no interpreted frame;
    # the same parameters, defaults and per-seat zones as the dataclass fields above)
    def __init__(
        self,
        rows: list[list[int]],
        hands: list[list[int]],
        piles: list[list[int]],
        discard: list[int] | None = None,
        parked: list[list[tuple[int, int]]] | None = None,
        minus: list[list[int]] | None = None,
        char_piles: list[list[str]] | None = None,
        display: list[str] | None = None,
        char_deck: list[str] | None = None,
        box: list[str] | None = None,
        joker: str | None = None,
        turn_no: int = 0,
        n_fixed: int = 0,
        char_plays: dict[tuple[int, str], int] | None = None,
    ) -> None:
        n = len(hands)
        self.rows = rows
        self.hands = hands
        self.piles = piles
        self.discard = [] if discard is None else discard
        self.parked = parked if parked else [[] for _ in range(n)]
        self.minus = minus if minus else [[] for _ in range(n)]
        self.char_piles = char_piles if char_piles else [[] for _ in range(n)]
        self.display = [] if display is None else display
        self.char_deck = [] if char_deck is None else char_deck
        self.box = [] if box is None else box
        self.joker = joker
        self.turn_no = turn_no
        self.n_fixed = n_fixed if n_fixed else len(rows)
        self.char_plays = {} if char_plays is None else char_plays

    def __reduce__(self) -> tuple:
        """Pickle as the constructor and the zones (compiled, the default would call ``__init__`` without them)."""
        return (
            GameState,
            (
                self.rows,
                self.hands,
                self.piles,
                self.discard,
                self.parked,
                self.minus,
                self.char_piles,
                self.display,
                self.char_deck,
                self.box,
                self.joker,
                self.turn_no,
                self.n_fixed,
                self.char_plays,
            ),
        )

    @property
    def players(self) -> int:
        """Number of seats (one hand per seat)."""
        return len(self.hands)

    @property
    def shared(self) -> bool:
        """True if every seat draws from one shared stock."""
        return len(self.piles) > 1 and self.piles[0] is self.piles[1]

    def held(self, seat: int) -> int:
        """Cards a seat still holds (hand + own draw pile + parked)."""
        own = 0 if self.shared else len(self.piles[seat])
        return len(self.hands[seat]) + own + len(self.parked[seat])

    def story_cards(self) -> Counter:
        """Count of every story card in every zone (for the conservation check); jokers excluded."""
        c: Counter = Counter(self.discard)
        for row in self.rows:
            c.update(v for v in row if v > 0)
        piles = self.piles[:1] if self.shared else self.piles
        for zone in (*self.hands, *piles, *self.minus):
            c.update(zone)
        for park in self.parked:
            c.update(card for card, _ in park)
        return c

    def characters(self) -> Counter:
        """Count of every character card in every zone."""
        c: Counter = Counter(self.display)
        c.update(self.char_deck)
        c.update(self.box)
        for p in self.char_piles:
            c.update(p)
        if self.joker is not None:
            c[self.joker] += 1
        return c

    def position_key(self) -> tuple:
        """A hashable summary of everything the exact stalemate test reads (rows, held and parked cards, characters)."""
        return (
            tuple(map(tuple, self.rows)),
            tuple(tuple(sorted(h)) for h in self.hands),
            tuple(tuple(sorted(p)) for p in self.piles),
            tuple(tuple(sorted(p)) for p in self.parked),
            tuple(map(tuple, self.char_piles)),
            tuple(self.display),
            self.joker,
        )

    def copy(self) -> GameState:
        """An independent deep copy (every zone a new list; the shared stock stays one list shared by all seats).

        Built with the plain constructor and list copies only (no ``__dict__`` or ``__new__`` tricks, so the
        module compiles with mypyc); ``__post_init__`` finds every field set and changes nothing.
        """
        # (comprehensions of slices: native loops when compiled, where list(map(list, ...)) is a generic call)
        piles = [self.piles[0][:]] * len(self.piles) if self.shared else [p[:] for p in self.piles]
        return GameState(
            [r[:] for r in self.rows],
            [h[:] for h in self.hands],
            piles,
            self.discard[:],
            [p[:] for p in self.parked],
            [m[:] for m in self.minus],
            [c[:] for c in self.char_piles],
            self.display[:],
            self.char_deck[:],
            self.box[:],
            self.joker,
            self.turn_no,
            self.n_fixed,
            dict(self.char_plays),
        )


def deal(game: CompiledGame, players: int, rng: random.Random) -> GameState:
    """Shuffle and deal (rulebook, Setup; complete game and solo setup for characters).

    The story cards are shuffled and dealt first, the characters after, so a
    game with characters starts from the same deal as the base game with the
    same seed (common random numbers between variants).

    Args:
        game: compiled rules.
        players: number of seats (validated by the caller).
        rng: the game's random stream; only ``shuffle`` is used (as :func:`kbsim.engine.rng.shuffle`, the same
            permutation as ``rng.shuffle``, compiled).

    Returns:
        The state before the first turn: one face-up card on each row (per
        ``row_starts``), the rest dealt from seat ``first_seat`` on, hands drawn,
        characters dealt into piles or laid out as a display.
    """
    deck = list(game.deck)
    shuffle(rng, deck)
    starts_on = game.row_starts_on or (True,) * game.n_rows
    rows: list[list[int]] = [[deck.pop()] if game.row_starts and starts_on[r] else [] for r in range(game.n_rows)]
    if game.relocate is not None:
        values, targets = game.relocate
        for r in range(game.n_rows):
            while rows[r] and rows[r][0] in values and r not in targets:
                free = next((t for t in targets if not rows[t]), None)
                if free is None:
                    break
                rows[free].append(rows[r].pop())
                rows[r].append(deck.pop())  # refill the vacated slot from the deck (maybe again)
    piles: list[list[int]] = [[] for _ in range(players)]
    to_deal = len(deck) if game.deal_rest else min(len(deck), game.deal_count * players)
    dealt = [deck.pop() for _ in range(to_deal)]
    if game.deal_one_at_a_time:
        for i, card in enumerate(dealt):
            piles[(game.first_seat + i) % players].append(card)
    else:
        base, extra = divmod(to_deal, players)
        pos = 0
        for k in range(players):
            seat = (game.first_seat + k) % players
            size = base + (1 if k < extra else 0)
            piles[seat].extend(dealt[pos : pos + size])
            pos += size
    if game.shared_stock:
        # the dealt cards are the hands; the undealt rest is one stock shared by every seat
        hands = [pile[::-1] for pile in piles]
        stock = deck
        state = GameState(rows=rows, hands=hands, piles=[stock] * players, discard=[], n_fixed=game.n_rows)
    else:
        hands = []
        for pile in piles:
            n = min(game.hand_size, len(pile))
            hand = pile[len(pile) - n :][::-1]
            del pile[len(pile) - n :]
            hands.append(hand)
        state = GameState(rows=rows, hands=hands, piles=piles, discard=list(deck), n_fixed=game.n_rows)
    if game.chars_enabled:
        keys = [c.key for c in game.roster]
        shuffle(rng, keys)
        if game.chars_display_mode:
            state.char_deck = keys
            for _ in range(min(game.chars_display, len(keys))):
                state.display.append(state.char_deck.pop())
        else:
            per = min(dict(game.chars_deal).get(players, len(keys) // players), len(keys) // players)
            for i in range(per * players):
                state.char_piles[(game.first_seat + i) % players].append(keys[i])
            state.box = keys[per * players :]
    return state
