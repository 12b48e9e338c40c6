"""One seat's market turn: :class:`MarketTurn`, acted through its one mutator :meth:`MarketTurn.apply`."""

from __future__ import annotations

from collections.abc import Callable

from kbsim.engine.market.compiled import CHARACTER, CURRENCY, GAP, HIDDEN, WAGON, MarketGame
from kbsim.engine.market.movegen import legal_moves, resolve_moves, take_moves
from kbsim.engine.market.moves import CHOOSE, CLAIM, DONE, RESOLVE, TAKE, IllegalMove, Move
from kbsim.engine.market.powers import POWERS
from kbsim.engine.market.restrict import barred
from kbsim.engine.market.scoring import pattern_points
from kbsim.engine.market.state import MarketState, claim_cost


class MarketTurn:
    """One seat's turn (or its contract choice), acted through :meth:`legal_moves` and :meth:`apply`.

    Phases: ``choose`` (setup: keep contracts) -> done; ``take`` -> (``resolve``
    while a taken character acts) -> ``claim`` -> ``done``. A turn that can take
    nothing starts in ``claim``. Bots read public information through the
    properties below (the seat's own contracts included) and must not touch
    :attr:`state`.

    Args:
        game: compiled rules.
        state: the table (shared with the game loop; a sandbox has its own copy).
        seat: the seat to play.
        phase: ``take`` for a normal turn, ``choose`` for the contract choice.

    Engine fields (set by the game loop and :mod:`kbsim.engine.market.observe`; bots leave them alone):
    ``listed_moves`` (the legal moves listed for the position now, or None: listed on demand) and ``relay``
    (on the view a bot is handed: the link that makes a move on the real turn; None on a real turn).
    """

    def __init__(self, game: MarketGame, state: MarketState, seat: int, phase: str = TAKE):
        self.game = game
        self.state = state
        self.seat = seat
        self.players = state.players
        self.took = False
        self.claims = 0
        self.lost = 0
        self.resolved: list[int] = []  # character kinds that acted
        self.log: list[Move] | None = None
        self.on_move: Callable[[MarketTurn], None] | None = None
        self.listed_moves: list[Move] | None = None
        # restricted play (kbsim.engine.market.restrict): the move kinds this seat is barred from, set by the game
        # loop, and whether the bar yielded at some decision of this turn
        self.bar: frozenset[str] | None = None
        self.bar_yielded = False
        # the game loop's link from the view a bot is handed to the real turn (kbsim.engine.market.observe), or None
        self.relay: Callable[[Move], None] | None = None
        # the turn-loop counts everybody knows (kbsim.engine.market.observe.MarketContext), set by the game loop
        self.seen: object | None = None
        self.phase = phase
        if phase == TAKE and not self._take_moves(False):
            self.phase = CLAIM

    # ---- public views
    @property
    def market(self) -> list[list[int]]:
        """The face-up lines (read only): card kinds, ``GAP`` for an empty place."""
        return self.state.lines

    def deck_sizes(self) -> list[int]:
        """Cards left in each market deck."""
        return [len(d) for d in self.state.decks]

    @property
    def visible_objectives(self) -> list[int]:
        """Face-up objective indices (``GAP`` for an empty slot)."""
        return self.state.obj_visible

    def wagons(self, seat: int) -> list[int]:
        """Wagons per kind held by ``seat`` (face up, public)."""
        return self.state.wagons[seat]

    def currency(self, seat: int) -> int:
        """Currency cards held by ``seat``."""
        return self.state.currency[seat]

    def tokens(self, seat: int) -> list[int]:
        """Company tokens per colour held by ``seat``."""
        return self.state.tokens[seat]

    @property
    def supply(self) -> list[int]:
        """Company tokens per colour left in the supply."""
        return self.state.supply

    def claimed(self, seat: int) -> list[int]:
        """Objectives claimed by ``seat``."""
        return self.state.claimed[seat]

    @property
    def my_contracts(self) -> list[int]:
        """The contracts this seat keeps (secret to the others)."""
        return self.state.contracts[self.seat]

    @property
    def offered(self) -> list[int]:
        """Contracts this seat may still choose from (``choose`` phase)."""
        return self.state.offered[self.seat]

    def pending_op(self) -> str:
        """The power (``effect.op``) of the character being resolved (``resolve`` phase), else ""."""
        return self.game.kinds[self.state.pending[-1]].op if self.state.pending else ""

    def icon_counts(self, seat: int | None = None) -> tuple[int, ...]:
        """Icons per colour of ``seat`` (default: this seat)."""
        return self.state.icon_counts(self.game, self.seat if seat is None else seat)

    def contract_points(self, counts: tuple[int, ...] | None = None) -> int:
        """This seat's contract points for ``counts`` icons (default: its own icons now)."""
        g = self.game
        counts = self.icon_counts() if counts is None else counts
        return sum(pattern_points(g.contracts[c].terms, counts, g.exclusive_icons) for c in self.my_contracts)

    def sandbox(self) -> MarketTurn:
        """A copy of this turn on a copy of the table with hidden information masked.

        Deck cards and face-down objectives become ``HIDDEN`` (turned up as such,
        never takeable or claimable); other seats' contracts are unknown. Moves
        applied to the sandbox never touch the real game.
        """
        st = self.state.copy()
        st.hidden = True
        st.decks = [[HIDDEN] * len(d) for d in st.decks]
        st.obj_deck = [HIDDEN] * len(st.obj_deck)
        for s in range(st.players):
            if s != self.seat:
                st.contracts[s] = []
                st.offered[s] = []
        st.contract_box = []
        return self.on_state(st)

    def on_state(self, state: MarketState) -> MarketTurn:
        """This turn, at the same point (phase, what it took, claimed, lost, resolved), over ``state``.

        ``state`` is a copy of :attr:`state` (a sandbox, a masked view, a determinization); moves applied to the
        new turn change only ``state``. It has no log, no move hook and no link to the game.
        """
        t = MarketTurn.__new__(MarketTurn)
        t.__dict__.update(self.__dict__)
        t.state = state
        t.resolved = list(self.resolved)
        t.log = None
        t.on_move = None
        t.listed_moves = None
        t.relay = None
        return t

    # ---- moves
    def _take_moves(self, free: bool) -> list[Move]:
        return take_moves(self.game, self.state, self.seat, free)

    def _resolve_moves(self) -> list[Move]:
        return resolve_moves(self.game, self.state, self.seat)

    def legal_moves(self) -> list[Move]:
        """Every legal move now (``end`` is legal in the claim phase; an empty list once done).

        A seat with a bar (:attr:`bar`) gets no move of a barred kind, unless every legal move is of one: the bar
        then yields (:attr:`bar_yielded`; :mod:`kbsim.engine.market.restrict`).
        """
        if self.listed_moves is None:
            moves = legal_moves(self.game, self.state, self.seat, self.phase)
            bar = self.bar
            if bar is not None and moves:
                kept = [m for m in moves if not barred(self.game, self.state, m, bar)]
                if kept:
                    moves = kept
                elif any(barred(self.game, self.state, m, bar) for m in moves):
                    self.bar_yielded = True
            self.listed_moves = moves
        return self.listed_moves

    def apply(self, move: Move) -> None:
        """Apply a legal move.

        Raises:
            IllegalMove: ``move`` is not among :meth:`legal_moves` (the message says why).
        """
        if self.relay is not None:  # the view a bot is handed: the game makes the move, then shows the result
            self.relay(move)
            return
        if move not in self.legal_moves():
            kind = barred(self.game, self.state, move, self.bar) if self.bar is not None else ""
            if kind:
                raise IllegalMove(
                    f"{move.op} refused: this seat is barred from {kind} "
                    f"(restricted play: its player's bar=[{', '.join(sorted(self.bar or ()))}])"
                )
            raise IllegalMove(self._why(move))
        self.listed_moves = None
        g, st, me = self.game, self.state, self.seat
        op = move.op
        if self.log is not None:
            self.log.append(move)
        if self.phase == TAKE:
            if op == "end":
                self.phase = CLAIM
            else:
                self.took = True
                self.take(move.a, move.b, free=False)
        elif self.phase == RESOLVE:
            char = st.pending.pop()
            POWERS[g.kinds[char].op].act(self, move)
            st.box[char] += 1
            self.resolved.append(char)
            self._settle()
        elif self.phase == CLAIM:
            if op == "end":
                self.phase = DONE
            else:
                slot = move.a
                o = st.obj_visible[slot]
                cost = claim_cost(g, st.wagons[me], g.objectives[o])
                assert cost is not None, "a claim the legality check let through must be affordable"
                for k, n in cost:
                    st.wagons[me][k] -= n
                    st.box[k] += n
                st.claimed[me].append(o)
                st.obj_visible[slot] = GAP
                if g.replace_objectives:
                    st.reveal_objective(slot)
                self.claims += 1
                if self.claims >= g.claims_per_turn:
                    self.phase = DONE
        else:  # CHOOSE
            st.offered[me].remove(move.a)
            st.contracts[me].append(move.a)
            if len(st.contracts[me]) >= g.contracts_kept:
                st.returned[me].extend(st.offered[me])
                st.contract_box.extend(st.offered[me])
                st.offered[me] = []
                self.phase = DONE
        if self.on_move is not None:
            self.on_move(self)

    def take(self, d: int, p: int, free: bool) -> None:
        """Take the card at place ``p`` of line ``d`` (engine code: the move ``take``, and powers with ``free``).

        Args:
            d: the line (0-based).
            p: the place in the line (0-based).
            free: True when a power gives the card (no price is paid).
        """
        g, st, me = self.game, self.state, self.seat
        card = st.lines[d][p]
        if not free:
            cost = g.price(d, p)
            st.currency[me] -= cost
            st.box[g.currency_kind] += cost
        role = g.kinds[card].role
        if g.character_first and (role == CHARACTER or st.open_lines):
            st.take_out(g, d, p)  # the character acts before its line slides and refills
        else:
            st.remove_from_market(g, d, p)
        if role == WAGON:
            st.wagons[me][card] += 1
        elif role == CURRENCY:
            st.currency[me] += 1
        elif role == CHARACTER:
            st.pending.append(card)
        self._settle()

    def _settle(self) -> None:
        """Lose pending characters that cannot act; set the phase to ``resolve`` or ``claim``."""
        st = self.state
        while st.pending:
            self.listed_moves = None
            if self._resolve_moves():
                self.phase = RESOLVE
                return
            st.box[st.pending.pop()] += 1
            self.lost += 1
        st.close_lines(self.game)
        self.listed_moves = None
        self.phase = CLAIM if self.game.claims_per_turn > 0 else DONE

    def _hint(self, path: str) -> str:
        """`` (see option `NAME`)`` for the rule-file option that sets ``path``, else ``""``."""
        name = next((n for p, n in self.game.option_at if p == path), None)
        return f" (see option `{name}`)" if name else ""

    def _why(self, move: Move) -> str:
        """Why ``move`` is refused now: the rule it breaks and, where one would allow it, the option."""
        ph = self.phase
        g, st = self.game, self.state
        op = move.op
        if ph == DONE:
            return "the turn is over"
        if ph == TAKE and op == "end":
            return "a turn must take a card while one can be paid for: taking is mandatory in these rules" + self._hint(
                "turn.take.mandatory"
            )
        if ph == TAKE and op != "take":
            return f"{op!r} is not a take: a turn first takes one face-up card from the market" + (
                "" if self._take_moves(False) else " (nothing can be taken now)"
            )
        if ph == TAKE:
            ok = 0 <= move.a < len(st.lines) and 0 <= move.b < g.n_places
            if not ok or st.lines[move.a][move.b] < 0:
                return (
                    f"no card at line {move.a + 1}, place {move.b + 1}: there are {len(st.lines)} line(s) of "
                    f"{g.n_places} place(s), and a card is taken only from a place that holds one"
                )
            where = f"line {move.a + 1}" if g.price_by_deck else f"place {move.b + 1}"
            return (
                f"a card costs the price of its {'line' if g.price_by_deck else 'place'}: {where} costs "
                f"{g.price(move.a, move.b)} currency card(s), the player has {st.currency[self.seat]}"
                + self._hint("market.costs")
            )
        if ph == RESOLVE:
            power = self.pending_op()
            legal = self.legal_moves()
            shown = ", ".join(" ".join(str(x) for x in (m.op, m.a, m.b, m.c) if x != -1) for m in legal[:6])
            more = f" and {len(legal) - 6} more" if len(legal) > 6 else ""
            return (
                f"the character being resolved acts by its power {power!r}, which allows only: {shown}{more}"
                + self._hint("turn.take.character_acts")
            )
        if ph == CLAIM and op == "claim":
            if not 0 <= move.a < len(st.obj_visible) or st.obj_visible[move.a] < 0:
                return f"no face-up objective in slot {move.a + 1}: only face-up objectives are claimed"
            return (
                "the wagons held do not pay this objective's cost: an objective is claimed by spending the "
                "wagons it shows"
            )
        if ph == CLAIM:
            return (
                f"{op!r} is not possible now: after taking, a turn may only claim face-up objectives (at most "
                f"{g.claims_per_turn} per turn) or end" + self._hint("turn.claim.per_turn")
            )
        if ph == CHOOSE and op == "choose":
            return f"contract {move.a} is not among those offered to this seat: {self.offered}"
        return f"{op!r} is not possible in the {ph} phase"

    def close(self) -> None:
        """Finish the turn for the game loop (the claim is optional; a choice keeps the first contracts offered).

        Bots end a turn with ``apply(END)``; this is the loop's way to close a turn a bot left open.

        Raises:
            IllegalMove: a card must still be taken, or a character must still act.
        """
        if self.phase == TAKE:
            raise IllegalMove("a card must be taken before the turn ends")
        if self.phase == RESOLVE:
            raise IllegalMove("the character taken must act before the turn ends")
        if self.phase == CHOOSE:
            while self.phase == CHOOSE:
                self.apply(Move("choose", self.state.offered[self.seat][0]))
        self.phase = DONE
