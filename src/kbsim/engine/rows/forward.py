"""The forward model of the rows family for search: a full game position, and determinization.

:class:`RowsWorld` is a whole game (or match) in progress with every card known, stepped move by move with the
engine's own :class:`~kbsim.engine.rows.turn.Turn` and hand loop (:class:`~kbsim.engine.rows.game.HandLoop`):
no second copy of any rule. It implements :class:`kbsim.engine.forward.World`: ``seat``, ``legal_moves``,
``apply``, ``clone``, ``over``, ``result``, and ``observe`` (what one seat would see in it).

:func:`determinize` turns what a seat sees (the masked turn its bot is handed, with the public knowledge in
:attr:`~kbsim.engine.rows.turn.Turn.seen`, see :mod:`kbsim.engine.rows.observe`) into a :class:`RowsWorld`: every
hidden card is drawn from the cards the seat has not seen, uniformly among the placements consistent with what it
knows:

* every count (hands, piles, the character deck) and every card in sight stays as it is, including the cards
  the seat knows in hidden zones: those it put under its own pile (in their order), those put on top of a pile in
  everybody's sight, and those everybody saw a seat draw;
* a card everybody saw a seat hold before it exchanged is placed in its hand or in one of the places its
  exchanges filled (never elsewhere);
* what the rules proved a hand does not hold stays so (a must-lay card it could have laid; any card it could have
  laid, after a minus-pile move allowed only to a seat that cannot lay);
* the joker, seen going to the bottom of the face-down character deck, is there; the rest of the deck is
  shuffled.

Uniformity: without such a constraint every hidden place is filled by a uniform random permutation of the unseen
cards, so each consistent full state is equally likely (tested by a chi-square test). The proofs of a void are
met by placing the cards they concern first, each uniformly among the places it may take: exactly uniform for
one void per game position (the shipped rules), close to it when several voids of different values overlap. A
*pool* (known cards after an exchange) is placed uniformly over its places: the worlds are those the history
allows, their weights approximate. Not inferred: what a seat's choices suggest about its hand (a bot that did
not lay a 7 may still hold one); a card revealed on the solo display during the turn in progress (shown as
``"?"``, see :mod:`kbsim.engine.rows.observe`) is dealt as an unseen character.
"""

from __future__ import annotations

import random
from dataclasses import replace

from kbsim.engine.rng import randbelow, sample, seeded, shuffle
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.ending import hand_winners
from kbsim.engine.rows.game import HandLoop, hand_penalties, match_dealer, match_over
from kbsim.engine.rows.moves import DONE, END_TURN, Move
from kbsim.engine.rows.observe import Knowledge, observe
from kbsim.engine.rows.restrict import bar_turn
from kbsim.engine.rows.state import GameState, deal
from kbsim.engine.rows.turn import HIDDEN, HIDDEN_CHARACTER, Turn
from kbsim.engine.seeds import hand_seed

_TRIES = 200  # placements tried before a determinization gives up (only voids can make one fail)


class RowsWorld:
    """A rows-family game position with every card known: the forward model a search steps through.

    Create one with :func:`determinize` (from a seat's observation) or :func:`new_world` (a fresh deal).
    A match of hands goes on to its next hand, dealt from the world's own random stream.

    Attributes:
        game: the compiled rules of the hand in progress (its ``first_seat`` is the hand's dealer).
        loop: the hand in progress (its ``state`` holds every zone, nothing masked).
        turn: the turn in progress (the :attr:`seat` to move); None once the world is :attr:`over`.
    """

    __slots__ = ("game", "loop", "turn", "hand_no", "totals", "_first", "_deals", "_seed", "_over", "_result")

    def __init__(
        self,
        game: CompiledGame,
        loop: HandLoop,
        turn: Turn | None,
        hand_no: int,
        totals: list[int],
        first: int,
        deals: int,
        seed: int,
    ) -> None:
        self.game = game
        self.loop = loop
        self.turn = turn
        self.hand_no = hand_no
        self.totals = totals
        self._first = first  # the dealer of the match's first hand
        self._deals = deals  # seed of the next hand's deal in a match, when the game's seed is unknown
        self._seed = seed  # the game's seed (later hands dealt as play_game deals them), or -1
        self._over = turn is None
        self._result: list[float] | None = None

    # ------------------------------------------------------------------ the forward model
    @property
    def seat(self) -> int:
        """The seat to move; -1 once the world is over."""
        t = self.turn
        return -1 if t is None else t.seat

    @property
    def over(self) -> bool:
        """True once the game (or match) has ended."""
        return self._over

    @property
    def state(self) -> GameState:
        """The state of the hand in progress (every card known)."""
        return self.loop.state

    def legal_moves(self) -> list[Move]:
        """The legal moves of the turn in progress (:meth:`Turn.legal_moves`); empty once over."""
        t = self.turn
        return [] if t is None else t.legal_moves()

    def apply(self, move: Move) -> None:
        """Apply ``move`` for :attr:`seat`; a move that ends the turn also moves the game to the next turn.

        Raises:
            kbsim.engine.results.IllegalMove: the move is not legal now (nothing changed).
            ValueError: the world is over.
        """
        t = self.turn
        if t is None:
            raise ValueError("the game is over")
        t.apply(move)
        if t.phase == DONE:
            self._advance()

    def play_turn(self, bot) -> None:
        """Let ``bot`` (a bot of the family, its ``new_game`` called for :attr:`seat`) play the whole turn in progress.

        The bot acts on :attr:`turn` itself (a rollout policy: the world is the searcher's own sample, so nothing
        in it is hidden from the bot); the turn is ended if the bot leaves it open, and the world moves on.

        Raises:
            ValueError: the world is over.
        """
        t = self.turn
        if t is None:
            raise ValueError("the game is over")
        bot.play_turn(t)
        if t.phase != DONE:
            t.apply(END_TURN)
        self._advance()

    def clone(self) -> RowsWorld:
        """An independent copy (every zone copied; the random stream of later deals is the same)."""
        loop = self.loop
        st = loop.state.copy()
        new_loop = loop.copy(st)
        t = self.turn
        turn = None if t is None else new_loop.resume(t.on_state(st))
        w = RowsWorld(self.game, new_loop, turn, self.hand_no, self.totals[:], self._first, self._deals, self._seed)
        w._over = self._over
        w._result = self._result
        return w

    def result(self) -> list[float]:
        """Per seat, the outcome so far (final once :attr:`over`).

        A race or a stalemate: each winner's share of the win (1, or 1/k for a k-way shared win), 0 for the
        others and for every seat at the turn limit. Solo and cooperative play: the team score, for every seat.
        A match: the share of the win of the seats with the lowest penalty total once the target is reached.
        Before the end: all 0.
        """
        if self._result is not None:
            return self._result
        n = self.loop.state.players
        if not self._over:
            return [0.0] * n
        g = self.game
        if g.match_target:
            done = max(self.totals) >= g.match_target
            low = min(self.totals)
            winners = tuple(k for k in range(n) if self.totals[k] == low) if done else ()
        else:
            winners, score = hand_winners(g, self.loop.state, self.loop.reason, self.loop.winners)
            if score is not None:
                self._result = [float(score)] * n
                return self._result
        share = 1.0 / len(winners) if winners else 0.0
        self._result = [share if k in winners else 0.0 for k in range(n)]
        return self._result

    def observe(self, seat: int) -> Turn:
        """What ``seat`` would be handed now: a turn over a masked copy of the state (as the game loop masks it).

        For the seat to move it is the turn in progress; for another seat a turn of that seat at its start
        (read it, do not play it). Needs the world's knowledge (kept unless ``track=False``).

        Raises:
            ValueError: the world keeps no knowledge, or is over.
        """
        know = self.loop.know
        t = self.turn
        if know is None or t is None:
            raise ValueError("observe needs a world that keeps knowledge (track=True) and is not over")
        st = observe(self.loop.state, know, seat)
        if seat == t.seat:
            # (the snapshot of provisional moves, as the seat sees it)
            view = t.on_state(st, lambda snap: observe(snap, know, seat))
        else:
            view = Turn.for_seat(self.game, st, seat)
            bar = know.bars[seat] if know.bars is not None else None
            if bar is not None:
                bar_turn(view, self.game, bar)
        view.seen = know
        return view

    # ------------------------------------------------------------------ stepping
    def _advance(self) -> None:
        """The turn just ended: finish it, then start the next one (or the next hand, or end)."""
        loop = self.loop
        t = self.turn
        assert t is not None, "a world that is over has no turn to finish"
        if not loop.finish_turn(t):
            self.turn = loop.start_turn()
            if self.turn is not None:
                return
        self._end_hand()

    def _end_hand(self) -> None:
        """The hand is over: end the world, or deal the match's next hand."""
        g = self.game
        loop = self.loop
        if not g.match_target:
            self.turn, self._over = None, True
            return
        n = loop.state.players
        pen = hand_penalties(g, loop.state)
        for k in range(n):
            self.totals[k] += pen[k] if pen else 0
        self.hand_no += 1
        if match_over(g, self.totals, self.hand_no, loop.reason):
            self.turn, self._over = None, True
            return
        dealer = match_dealer(replace(g, first_seat=self._first), n, self.hand_no)
        game = g if dealer == g.first_seat % n else replace(g, first_seat=dealer)
        if self._seed >= 0:
            rng = seeded(hand_seed(self._seed, self.hand_no))
        else:
            rng = seeded(self._deals)
            self._deals = randbelow(rng, 1 << 62)
        state = deal(game, n, rng)
        self.game = game
        self.loop = HandLoop(
            game, state, hand_no=self.hand_no, totals=self.totals, track=loop.know is not None, bars=loop.bars
        )
        self.turn = self.loop.start_turn()
        if self.turn is None:
            self._over = True


def new_world(
    game: CompiledGame,
    players: int,
    seed: int,
    *,
    track: bool = True,
    bars: list[frozenset[str] | None] | None = None,
) -> RowsWorld:
    """A world from the deal of the game with ``seed``, before the first move (dealt as ``play_game`` deals it).

    Args:
        game: compiled rules (``rows`` family).
        players: seats.
        seed: the game's seed.
        track: keep what every seat knows (needed by :meth:`RowsWorld.observe`).
        bars: each seat's bar (restricted play, as :func:`kbsim.engine.restrict.seat_bars` reads it from the
            bots), or None: the world's turns enforce them as the game loop does.
    """
    state = deal(game, players, seeded(hand_seed(seed, 0) if game.match_target else seed))
    loop = HandLoop(game, state, track=track, bars=bars)
    turn = loop.start_turn()
    return RowsWorld(game, loop, turn, 0, [0] * players, game.first_seat % players, 0, seed)


def determinize(turn: Turn, rng: random.Random, *, track: bool = True) -> RowsWorld:
    """A full game position drawn uniformly from those consistent with what ``turn``'s seat sees and knows.

    Args:
        turn: the seat's observation: the turn its bot is handed (zones masked, :attr:`Turn.seen` set), at any
            point of the turn; or :meth:`RowsWorld.observe` of a world.
        rng: the seat's own random stream (e.g. the bot's ``rng``); the only source of randomness.
        track: keep what every seat knows in the world (for :meth:`RowsWorld.observe` there; a search that only
            plays the world out may pass False, a little faster).

    Returns:
        A :class:`RowsWorld` whose turn in progress is ``turn`` at the same point, every hidden card filled in.

    Raises:
        ValueError: ``turn`` carries no knowledge (not a turn handed out by the game loop or a world), or the
            knowledge admits no placement (an engine bug).
    """
    know = turn.seen
    if not isinstance(know, Knowledge):
        raise ValueError("determinize needs a seat's observation: the turn handed to its bot (Turn.seen is unset)")
    # (a barred seat's turn plays narrowed rules: the world's other turns play the rules in force)
    g = know.rules if know.rules is not None else turn.g
    st = turn.state.copy()
    _fill(g, st, know, turn.seat, rng)
    view = turn.on_state(st, lambda snap: _filled_snapshot(turn.state, st, snap))
    loop = HandLoop(g, st, know.copy() if track else None, track=False, bars=know.bars)
    loop.seat = turn.seat
    loop.turns = know.turns + 1
    loop.tally.idle = know.idle[:]
    loop.tally.exact_round = know.exact_round
    n = st.players
    first = (know.dealer - (know.hand_no if g.match_rotate else 0)) % n
    return RowsWorld(g, loop, loop.resume(view), know.hand_no, know.totals[:], first, randbelow(rng, 1 << 62), -1)


# ---------------------------------------------------------------------- filling the hidden places
_DECKS: dict[int, tuple[CompiledGame, dict[int, int]]] = {}  # id(game) -> (game, copies of each story card)


def _deck_counts(g: CompiledGame) -> dict[int, int]:
    """Copies of each story card in the deck of ``g`` (kept per compiled game: a function of the rules)."""
    hit = _DECKS.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1]
    counts: dict[int, int] = {}
    for c in g.deck:
        counts[c] = counts.get(c, 0) + 1
    if len(_DECKS) >= 64:
        _DECKS.clear()
    _DECKS[id(g)] = (g, counts)
    return counts


def _unseen_story(g: CompiledGame, st: GameState) -> list[int]:
    """The story cards of the deck not in sight in ``st`` (a masked state), each copy once, ascending."""
    left = dict(_deck_counts(g))
    zones: list[list[int]] = [*st.rows, st.discard, *st.hands, *(st.piles[:1] if st.shared else st.piles), *st.minus]
    for zone in zones:
        for c in zone:
            if c > 0:
                left[c] -= 1
    for park in st.parked:
        for c, _ in park:
            if c > 0:
                left[c] -= 1
    out: list[int] = []
    for c in sorted(left):
        n = left[c]
        if n < 0:
            raise ValueError(f"card {c} is in sight more often than the deck holds it")
        if n:
            out.extend([c] * n)
    return out


def _hidden_zones(st: GameState, seat: int) -> list[list[int]]:
    """The zones of ``st`` that hold hidden places: other seats' hands, then every draw pile (a shared one once)."""
    out = [st.hands[s] for s in range(st.players) if s != seat]
    out.extend(st.piles[:1] if st.shared else st.piles)
    return out


def _fill(g: CompiledGame, st: GameState, know: Knowledge, seat: int, rng: random.Random) -> None:
    """Fill every hidden place of ``st`` (a masked copy) in place (see :func:`determinize`)."""
    cards = _unseen_story(g, st)
    constrained = False
    for s in range(st.players):
        if s != seat and (know.pooled[s] or know.voids[s]):
            constrained = True
    if constrained:
        _fill_constrained(st, know, seat, cards, rng)
    else:
        shuffle(rng, cards)
        j = 0
        for zone in _hidden_zones(st, seat):
            n = len(zone)
            hidden = zone.count(HIDDEN)
            if hidden == n:
                zone[:] = cards[j : j + n]
                j += n
            elif hidden:
                for i in range(n):
                    if zone[i] == HIDDEN:
                        zone[i] = cards[j]
                        j += 1
        if j != len(cards):
            raise ValueError(f"{len(cards)} unseen cards for {j} hidden places")
    _fill_characters(g, st, know, rng)


def _fill_constrained(st: GameState, know: Knowledge, seat: int, cards: list[int], rng: random.Random) -> None:
    """:func:`_fill` where pools or voids constrain some places: list the places, then place."""
    zones: list[list[int]] = []  # the hidden places: zones[i][idx[i]]
    idx: list[int] = []
    hand_places: dict[int, list[int]] = {}  # seat -> positions in ``zones`` of its hidden hand places
    for s in range(st.players):
        if s == seat:
            continue
        h = st.hands[s]
        mine = []
        for i in range(len(h)):
            if h[i] == HIDDEN:
                mine.append(len(zones))
                zones.append(h)
                idx.append(i)
        hand_places[s] = mine
    pile_places: list[list[int]] = []  # per pile, per index: position in ``zones`` (-1: in sight)
    for s in range(1 if st.shared else st.players):
        p = st.piles[s]
        places = []
        for i in range(len(p)):
            if p[i] == HIDDEN:
                places.append(len(zones))
                zones.append(p)
                idx.append(i)
            else:
                places.append(-1)
        pile_places.append(places)
    if len(cards) != len(zones):
        raise ValueError(f"{len(cards)} unseen cards for {len(zones)} hidden places")
    _place_constrained(know, seat, st.players, cards, zones, idx, hand_places, pile_places, rng)


def _place_constrained(
    know: Knowledge,
    seat: int,
    players: int,
    cards: list[int],
    zones: list[list[int]],
    idx: list[int],
    hand_places: dict[int, list[int]],
    pile_places: list[list[int]],
    rng: random.Random,
) -> None:
    """Place pooled cards and the cards voids concern first (each uniformly among its allowed places), then the rest.

    Args:
        know: the public knowledge.
        seat: the observing seat (its own hand and knowledge need no placing).
        players: seats.
        cards: the unseen story cards.
        zones: the zones of the hidden places (place ``i`` is ``zones[i][idx[i]]``).
        idx: the index of each hidden place in its zone.
        hand_places: per other seat, the positions (in ``zones``) of its hidden hand places.
        pile_places: per pile, per index, the position in ``zones`` of a hidden place (-1: in sight).
        rng: the random stream.

    Raises:
        ValueError: no placement found in ``_TRIES`` tries.
    """
    for _ in range(_TRIES):
        taken = [False] * len(zones)
        rest = cards[:]
        if not _place_pools(know, seat, players, rest, zones, idx, taken, hand_places, pile_places, rng):
            continue
        banned = _void_places(know, seat, players, taken, hand_places, rng)
        if banned and not _place_banned(banned, rest, zones, idx, taken, rng):
            continue
        shuffle(rng, rest)
        j = 0
        for x in range(len(zones)):
            if not taken[x]:
                zones[x][idx[x]] = rest[j]
                j += 1
        return
    raise ValueError("no placement of the unseen cards meets what is known (an engine bug)")


def _put(x: int, c: int, rest: list[int], zones: list[list[int]], idx: list[int], taken: list[bool]) -> None:
    """Put card ``c`` (taken out of ``rest``) into hidden place ``x``."""
    taken[x] = True
    zones[x][idx[x]] = c
    rest.remove(c)


def _place_pools(
    know: Knowledge,
    seat: int,
    players: int,
    rest: list[int],
    zones: list[list[int]],
    idx: list[int],
    taken: list[bool],
    hand_places: dict[int, list[int]],
    pile_places: list[list[int]],
    rng: random.Random,
) -> bool:
    """Put each seat's pooled cards into its eligible hand places or its pool slots (False: no room, try again)."""
    for s in range(players):
        if s == seat or not know.pooled[s]:
            continue
        free_hand = hand_places.get(s, [])
        spots = sample(rng, free_hand, min(know.eligible[s], len(free_hand)))
        pp = pile_places[s] if s < len(pile_places) else []
        spots.extend(pp[i] for i in know.pool_slots[s] if i < len(pp) and pp[i] >= 0)
        for c in know.pooled[s]:
            open_spots = [x for x in spots if not taken[x]]
            if not open_spots or c not in rest:
                return False
            _put(open_spots[randbelow(rng, len(open_spots))], c, rest, zones, idx, taken)
    return True


def _void_places(
    know: Knowledge,
    seat: int,
    players: int,
    taken: list[bool],
    hand_places: dict[int, list[int]],
    rng: random.Random,
) -> dict[int, set[int]]:
    """Per hidden hand place that a void covers (chosen uniformly among the seat's free hand places), its values."""
    banned: dict[int, set[int]] = {}
    for s in range(players):
        if s == seat:
            continue
        for values, n in know.voids[s]:
            free_hand = [x for x in hand_places.get(s, []) if not taken[x]]
            k = max(0, min(len(free_hand), n - len(know.known[s])))
            for x in sample(rng, free_hand, k):
                banned.setdefault(x, set()).update(values)
    return banned


def _place_banned(
    banned: dict[int, set[int]],
    rest: list[int],
    zones: list[list[int]],
    idx: list[int],
    taken: list[bool],
    rng: random.Random,
) -> bool:
    """Put every card of a banned value into a free place that allows it (False: a card found none)."""
    limited: set[int] = set()
    for b in banned.values():
        limited |= b
    hard = [c for c in rest if c in limited]
    shuffle(rng, hard)
    for c in hard:
        open_spots = [x for x in range(len(zones)) if not taken[x] and c not in banned.get(x, ())]
        if not open_spots:
            return False
        _put(open_spots[randbelow(rng, len(open_spots))], c, rest, zones, idx, taken)
    return True


def _fill_characters(g: CompiledGame, st: GameState, know: Knowledge, rng: random.Random) -> None:
    """Deal the unseen characters into the face-down deck (and display places turned up this turn)."""
    deck = st.char_deck
    display = st.display
    if HIDDEN_CHARACTER not in deck and HIDDEN_CHARACTER not in display:
        return
    seen: set[str] = {k for k in display if k != HIDDEN_CHARACTER}
    seen.update(k for k in deck if k != HIDDEN_CHARACTER)
    seen.update(st.box)
    for p in st.char_piles:
        seen.update(p)
    if st.joker is not None:
        seen.add(st.joker)
    unseen = [c.key for c in g.roster if c.key not in seen]
    joker = next((c.key for c in g.roster if c.is_joker), "")
    if know.joker_bottom and joker in unseen and deck and deck[0] == HIDDEN_CHARACTER:
        deck[0] = joker
        unseen.remove(joker)
    shuffle(rng, unseen)
    j = 0
    for zone in (deck, display):
        for i in range(len(zone)):
            if zone[i] == HIDDEN_CHARACTER:
                zone[i] = unseen[j]
                j += 1


def _filled_snapshot(masked: GameState, st: GameState, snap: GameState) -> GameState:
    """The turn's snapshot of provisional moves (a masked state) with its hidden places filled as ``st``'s.

    ``masked`` is the seat's masked state now and ``st`` its filled copy. Between the snapshot and now, piles only
    gained cards on top and other hands did not change; the character deck lost its top cards to the display
    (shown as ``"?"`` there, appended in the order turned up) and may have gained the joker at its bottom, so the
    snapshot's hidden deck places are, bottom to top, those still hidden in the deck now and then the new hidden
    display places in reverse order.
    """
    s2 = snap.copy()
    for i in range(1 if s2.shared else len(s2.piles)):
        p = s2.piles[i]
        p[:] = st.piles[i][: len(p)]
    for k in range(s2.players):
        h = s2.hands[k]
        if HIDDEN in h:
            h[:] = st.hands[k]
    deck_now = [i for i in range(len(masked.char_deck)) if masked.char_deck[i] == HIDDEN_CHARACTER]
    shown_now = [i for i in range(len(masked.display)) if masked.display[i] == HIDDEN_CHARACTER]
    deck = s2.char_deck
    deck_then = [i for i in range(len(deck)) if deck[i] == HIDDEN_CHARACTER]
    disp = s2.display
    shown_then = [i for i in range(len(disp)) if disp[i] == HIDDEN_CHARACTER]
    for j in range(len(shown_then)):
        disp[shown_then[j]] = st.display[shown_now[j]]
    for j in range(len(deck_then)):
        if j < len(deck_now):
            deck[deck_then[j]] = st.char_deck[deck_now[j]]
        else:  # turned up since the snapshot: the r-th from the top went to the display r-th
            r = len(deck_then) - 1 - j
            deck[deck_then[j]] = st.display[shown_now[len(shown_then) + r]]
    return s2
