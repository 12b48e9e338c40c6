"""The forward model of the market family for search: a full game position, and determinization.

:class:`MarketWorld` is a market game in progress with every card known (the contract choices at setup, then the
turns), stepped move by move with the engine's own :class:`~kbsim.engine.market.turn.MarketTurn` and
:class:`~kbsim.engine.market.game.MarketPlay`: no second copy of any rule. It implements
:class:`kbsim.engine.forward.World`.

:func:`determinize` turns what a seat sees (the view its bot is handed, see :mod:`kbsim.engine.market.observe`)
into a :class:`MarketWorld`, filling every hidden place with the cards the seat has not seen, uniformly: the
face-down market cards (into the decks' hidden places, keeping the cards seen going under a deck at its bottom),
the face-down objectives (likewise), and the contracts the seat has not seen (into the other seats' contracts and
offers and the box). Every count and every card in sight stays as it is.
"""

from __future__ import annotations

import random

from kbsim.engine.market.compiled import HIDDEN, MarketGame
from kbsim.engine.market.game import MarketPlay, final_points, winners_of
from kbsim.engine.market.moves import CHOOSE, DONE, Move
from kbsim.engine.market.observe import MarketContext, masked
from kbsim.engine.market.state import MarketState, new_state
from kbsim.engine.market.turn import MarketTurn
from kbsim.engine.rng import shuffle


class MarketWorld:
    """A market game position with every card known: the forward model a search steps through.

    Create one with :func:`determinize` (from a seat's view) or :func:`new_world` (a fresh deal).

    Attributes:
        game: the compiled rules.
        state: the table (nothing masked).
        play: the turn sequence (whose turn, the end trigger, the stall guard).
        turn: the turn (or contract choice) in progress; None once the world is over.
        choosing: the next seat to choose its contracts at setup (``players`` once every seat has chosen).
    """

    __slots__ = ("game", "state", "play", "turn", "choosing", "_over")

    def __init__(self, game: MarketGame, state: MarketState, play: MarketPlay, turn: MarketTurn | None, choosing: int):
        self.game = game
        self.state = state
        self.play = play
        self.turn = turn
        self.choosing = choosing
        self._over = turn is None

    @property
    def seat(self) -> int:
        """The seat to move; -1 once the world is over."""
        return -1 if self.turn is None else self.turn.seat

    @property
    def over(self) -> bool:
        """True once the game has ended (the final round played, the stall guard, or the turn limit)."""
        return self._over

    def legal_moves(self) -> list[Move]:
        """The legal moves of the turn in progress (:meth:`MarketTurn.legal_moves`); empty once over."""
        return [] if self.turn is None else list(self.turn.legal_moves())

    def apply(self, move: Move) -> None:
        """Apply ``move`` for :attr:`seat`; a move that ends the turn moves the game on.

        Raises:
            kbsim.engine.results.IllegalMove: the move is not legal now.
            ValueError: the world is over.
        """
        t = self.turn
        if t is None:
            raise ValueError("the game is over")
        t.apply(move)
        if t.phase == DONE:
            self._advance()

    def play_turn(self, bot) -> None:
        """Let ``bot`` (a market bot, its ``new_game`` called for :attr:`seat`) play the whole turn in progress.

        The bot acts on :attr:`turn` itself, as in :meth:`kbsim.engine.rows.forward.RowsWorld.play_turn` (a rollout
        policy: the world is the searcher's own sample, so nothing in it is hidden from the bot), carrying the
        turn-loop counts a seat's view carries (``MarketTurn.seen``), so that a searching bot can play in a world
        too.

        Raises:
            ValueError: the world is over.
        """
        t = self.turn
        if t is None:
            raise ValueError("the game is over")
        if t.seen is None:
            t.seen = self._context()
        bot.play_turn(t)
        if t.phase != DONE:
            t.close()
        self._advance()

    def clone(self) -> MarketWorld:
        """An independent copy."""
        st = self.state.copy()
        play = MarketPlay(
            self.game,
            st,
            seat=self.play.seat,
            turns=self.play.turns,
            trigger_seat=self.play.trigger_seat,
            remaining=self.play.remaining,
            idle=self.play.idle,
            ended=self.play.ended,
            reason=self.play.reason,
            passes=self.play.passes[:],
            bars=self.play.bars,
        )
        turn = None if self.turn is None else self.turn.on_state(st)
        w = MarketWorld(self.game, st, play, turn, self.choosing)
        w._over = self._over
        return w

    def result(self) -> list[float]:
        """Per seat, the final points (:func:`~kbsim.engine.market.game.final_points`) of the table as it is."""
        return [float(p["total"]) for p in final_points(self.game, self.state)]

    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game ended by its rules (highest total, then the tie-breakers), else ()."""
        if not (self._over and self.play.ended):
            return ()
        return winners_of(self.game, final_points(self.game, self.state))

    def observe(self, seat: int) -> MarketTurn:
        """What ``seat`` would be handed now: the turn in progress (or a turn of ``seat``) over the masked table.

        Raises:
            ValueError: the world is over.
        """
        t = self.turn
        if t is None:
            raise ValueError("the game is over")
        v = masked(self.state, seat)
        if seat == t.seat:
            view = t.on_state(v)
        else:
            view = MarketTurn(self.game, v, seat)
            view.bar = self.play.bars[seat] if self.play.bars else None
        view.seen = self._context()
        return view

    # ------------------------------------------------------------------ stepping
    def _context(self) -> MarketContext:
        choosing = self.choosing < self.state.players
        return self.play.context(choosing=choosing) if choosing else self._turn_context()

    def _turn_context(self) -> MarketContext:
        p = self.play
        return MarketContext(
            choosing=False,
            turns=p.turns - 1,
            trigger_seat=p.trigger_seat,
            remaining=p.remaining,
            idle=p.idle,
            passes=tuple(p.passes),
            bars=tuple(p.bars) if any(b is not None for b in p.bars) else None,
        )

    def _advance(self) -> None:
        """The turn just ended: the next contract choice, or the end rules and the next turn."""
        g, n = self.game, self.state.players
        t = self.turn
        assert t is not None, "a world that is over has no turn to finish"
        if self.choosing < n:
            self.choosing += 1
            if self.choosing < n:
                self.turn = MarketTurn(g, self.state, self.choosing, phase=CHOOSE)
                return
        elif self.play.finish_turn(t):
            self.turn, self._over = None, True
            return
        if self.play.turns >= g.turn_limit:
            self.turn, self._over = None, True
            return
        self.turn = self.play.new_turn()


def new_world(
    game: MarketGame, players: int, seed: int, *, bars: list[frozenset[str] | None] | None = None
) -> MarketWorld:
    """A world from the deal of the game with ``seed`` (as ``play_game`` deals it), before the first contract choice.

    ``bars``: each seat's bar (restricted play, :func:`kbsim.engine.restrict.seat_bars`), enforced on its turns.
    """
    st = new_state(game, players, random.Random(seed))
    play = MarketPlay(game, st, seat=game.first_seat % players, bars=list(bars) if bars else [])
    return MarketWorld(game, st, play, MarketTurn(game, st, 0, phase=CHOOSE), 0)


def determinize(view: MarketTurn, rng: random.Random) -> MarketWorld:
    """A full game position drawn uniformly from those consistent with what ``view``'s seat sees.

    Args:
        view: the seat's observation: the turn its bot is handed (:func:`kbsim.engine.market.observe.handed`) or
            :meth:`MarketWorld.observe` of a world, at any point of the turn.
        rng: the seat's own random stream; the only source of randomness.

    Returns:
        A :class:`MarketWorld` whose turn in progress is ``view`` at the same point.

    Raises:
        ValueError: ``view`` carries no turn-loop counts (not a turn handed out by the game loop or a world).
    """
    ctx = view.seen
    if not isinstance(ctx, MarketContext):
        raise ValueError("determinize needs a seat's view: the turn handed to its bot (MarketTurn.seen is unset)")
    g = view.game
    seat = view.seat
    st = view.state.copy()
    st.hidden = False
    _fill_market_cards(g, st, rng)
    _fill_objectives(g, st, rng)
    _fill_contracts(g, st, seat, rng)
    n = st.players
    play = MarketPlay(
        g,
        st,
        seat=g.first_seat % n if ctx.choosing else seat,
        turns=ctx.turns + (0 if ctx.choosing else 1),
        trigger_seat=ctx.trigger_seat,
        remaining=ctx.remaining,
        idle=ctx.idle,
        passes=list(ctx.passes),
        bars=list(ctx.bars) if ctx.bars else [],
    )
    turn = view.on_state(st)
    return MarketWorld(g, st, play, turn, seat if ctx.choosing else n)


def _fill_market_cards(g: MarketGame, st: MarketState, rng: random.Random) -> None:
    """Deal the unseen market cards into the decks' hidden places."""
    left = [k.count for k in g.kinds]
    left[g.currency_kind] -= sum(st.currency)
    for zone in (*st.lines, *st.decks, st.pending):
        for c in zone:
            if c >= 0:
                left[c] -= 1
    for k, m in enumerate(st.box):
        left[k] -= m
    for w in st.wagons:
        for k, m in enumerate(w):
            left[k] -= m
    cards = [k for k in range(len(left)) for _ in range(left[k])]
    _deal_into(st.decks, cards, rng, "market cards")


def _fill_objectives(g: MarketGame, st: MarketState, rng: random.Random) -> None:
    """Deal the unseen objectives into the objective deck's hidden places."""
    seen = {o for o in (*st.obj_visible, *st.obj_box, *st.obj_deck) if o >= 0}
    for c in st.claimed:
        seen.update(c)
    cards = [o for o in range(len(g.objectives)) if o not in seen]
    _deal_into([st.obj_deck], cards, rng, "objectives")


def _fill_contracts(g: MarketGame, st: MarketState, seat: int, rng: random.Random) -> None:
    """Deal the contracts ``seat`` has not seen into the others' contracts and offers and the box.

    Each other seat that has chosen is given, as the contracts it put back, that many of those dealt to the box.
    """
    seen = {c for c in st.contract_box if c >= 0}  # every contract in sight (another seat's, too, if shown)
    for s in range(st.players):
        seen.update(c for c in (*st.contracts[s], *st.offered[s]) if c >= 0)
    cards = [c for c in range(len(g.contracts)) if c not in seen]
    zones = [st.contracts[s] for s in range(st.players) if s != seat]
    zones += [st.offered[s] for s in range(st.players) if s != seat]
    box = st.contract_box
    hidden_box = [i for i in range(len(box)) if box[i] == HIDDEN]
    zones.append(box)
    _deal_into(zones, cards, rng, "contracts")
    j = 0
    for s in range(st.players):
        if s == seat or len(st.contracts[s]) < g.contracts_kept or st.offered[s]:
            continue
        r = max(0, g.contracts_dealt - len(st.contracts[s]))
        st.returned[s] = [box[i] for i in hidden_box[j : j + r]]
        j += r


def _deal_into(zones: list[list[int]], cards: list[int], rng: random.Random, what: str) -> None:
    """Shuffle ``cards`` and put them into the ``HIDDEN`` places of ``zones``, in order."""
    shuffle(rng, cards)
    j = 0
    for z in zones:
        for i in range(len(z)):
            if z[i] == HIDDEN:
                if j >= len(cards):
                    raise ValueError(f"more hidden places than unseen {what}")
                z[i] = cards[j]
                j += 1
    if j != len(cards):
        raise ValueError(f"{len(cards)} unseen {what} for {j} hidden places")
