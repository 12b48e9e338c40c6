"""The exact stalemate search of the complete game: can any seat still lay a card, now or after staying plays?

Rule (rulebook, "End of the Game"; rule file, ``end.stalemate``): the game ends in a stalemate when nobody can
lay a card, even after exchanging. With character piles (the complete game) the table can change without a
card being laid: a character played in a turn that lays nothing *stays* played where the rules let such a turn
keep it (``characters.on_any_turn``: a play before an exchange or a pass; or a turn that needs no card: an
empty draw pile), and then goes under the left neighbour's pile, so the next character comes up. A staying
play may change the board (Bishop Wynstan, Wigelm, Gytha, Edgar), hand cards to other seats (Wigelm) or only
turn the pile (a modifier, Wilwulf). A character whose play is impossible (Edgar when every row ends in 13 and
none is empty) blocks its pile: what lies below it never comes up.

:func:`lay_possible` searches every sequence of staying plays, seat by seat in any order (every seat can
always take a turn that changes nothing: an exchange, or a pass with an empty draw pile), and asks at every
position whether some seat can lay a card in a lay-out turn: now, or after rebuilds, or after rebuilds, its
top character and rebuilds again. The search is split in two levels:

* a **table** (:class:`Table`): the board, the joker, the discard pile, the cards each seat may bring to its
  hand (hand and draw pile: exchanges bring any of them) and its parked cards, and (where the rules make it
  matter) the sizes of hand and draw pile;
* the **character piles** on a table: which character each seat has on top.

For each table the outcome of seat ``k`` playing character ``c`` (``_Search._outcome``) does not depend on
the other piles (a power never reads them; it only sends character cards to the bottom of piles), so it is
worked out once per table, seat and character: it lays a card (the search ends), or it gives staying plays,
each a next table and the character cards it sends to the bottom of piles. Turning the piles on one table is
then a cheap walk over tuples. Tables are taken fewest cards in rows first (the usual way to a row card a held
card can open); every position is visited before a stalemate is declared, so the order changes only how soon
a way to lay is found. Where a lay is checked, what the boards rebuilds reach accept is worked out once per
board (:func:`~kbsim.engine.rows.boards.counted_openings`) and asked for each seat's cards.

Sound by construction (a stalemate is declared only when no sequence of real turns lays a card); where the
search is not exact, it errs towards "a seat can lay" (the game goes on):

* a seat's hand and draw pile are one pool (exact where exchanges are allowed: repeated exchanges bring any
  draw-pile card into the hand);
* cards a power sets aside during the search (Wilwulf's parked cards) stay in the pool as if still in hand
  (a hand card can do all a parked card can, and more);
* where characters may be played on exchange turns the sizes of hands and draw piles are not followed, and
  every seat may play on any board rebuilds reach (rebuilds stay in turns that need no card);
* where a parked card does not count as held (``end.win.parked_cards_count: false``), a play that sets cards
  aside counts as progress (the seat might run out of cards);
* where the rules allow more than one character per turn, the answer is "undecided" (plays in a row from one
  pile are not searched).

Restricted play: a seat barred from kinds of move (its bar, :mod:`kbsim.engine.rows.restrict`) is searched
making none of them, on the rules as it plays them (:func:`~kbsim.engine.rows.restrict.narrowed`): a seat barred
from the character on top of its pile holds that pile still (what lies below never comes up).

The search is bounded by the rule file's ``end.stalemate.exact_play_limit``, counted in units of work (a
position of the piles, a play tried, a board visited by a rebuild search: each costs about the same), and each
rebuild search by ``exact_search_limit``; a bound reached, or a listing of plays cut short, makes the answer
``None``: undecided, and the game goes on (never a false stalemate). The count depends on the position only (not
on what earlier searches left in memory), so the verdict does too.
"""

from __future__ import annotations

import heapq
from typing import Final, NamedTuple

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.boards import counted_openings
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.restrict import narrowed
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn
from kbsim.engine.rows.usage import FILL_GAP, JOKER_SWAP, PARKED
from kbsim.engine.rows.verbs import rebuild

PLAYS_LISTED: Final = 100_000  # plays of one character listed at a position; a longer listing is undecided
# what the boards rebuilds reach accept, per (id(game), canonical board) -> (game, openings, boards visited): a
# function of the board, so kept across searches (the budget is spent as if worked out anew, so verdicts do not
# depend on what this holds; the game is held so that its id stays its own)
_OPENINGS: dict[tuple, tuple] = {}
_OPENINGS_KEPT: Final = 4096
_MODIFIERS: Final = ("m_start", "m_start_rb", "m_equal", "m_equal_rb", "skips", "m_skip_rb", "skip_lo", "skip_hi")


class Table(NamedTuple):
    """Everything of a position but the character piles, in a canonical form (equal tables compare equal).

    Attributes:
        rows: the rows, each a tuple of cards (row cards first, then extra rows); sorted within each group where
            every row card opens alike (which row card holds a row does not matter then).
        joker: key of the joker character while it lies in a row, else None.
        discard: the discard pile, sorted.
        pools: per seat, the cards it may bring to its hand (hand, draw pile, and cards set aside by a power
            during the search), sorted.
        parked: per seat, the cards parked before the search (usable on row ends only), sorted.
        sizes: per seat ``(hand, draw pile)`` sizes where the search follows them (characters only on lay-out
            turns), else None.
        free: rebuilds may stay without a card being laid (some seat's turn needs no card), so staying plays
            may be made on any board rebuilds reach.
    """

    rows: tuple[tuple[int, ...], ...]
    joker: str | None
    discard: tuple[int, ...]
    pools: tuple[tuple[int, ...], ...]
    parked: tuple[tuple[int, ...], ...]
    sizes: tuple[tuple[int, int], ...] | None
    free: bool


Piles = tuple[tuple[str, ...], ...]  # per seat, its character pile (top first)
Effect = tuple[tuple[str, ...], ...]  # per seat, the character cards a play sends to the bottom of its pile


class _Undecided(Exception):
    """A bound of the search was reached (or a listing was cut short): no verdict."""


class _Found(Exception):
    """Some seat can lay a card (or run out of cards): not a stalemate."""


def lay_possible(game: CompiledGame, state: GameState, bars: list[frozenset[str] | None] | None = None) -> bool | None:
    """Whether some seat can still lay a card it holds: now, or after any sequence of staying character plays.

    The exact test behind the stalemate of the complete game (characters in piles; module docstring): every
    seat's hand, draw pile and parked cards, every board reachable by rebuilds, and every character a seat can
    get on top of its pile by plays that stay in turns laying no card.

    Args:
        game: compiled rules (``rows`` family) with characters in piles (``characters.mode: piles``).
        state: the game between turns (not changed).
        bars: each seat's bar (restricted play; the seat makes no barred move), or None when no seat is barred.

    Returns:
        True (a seat can lay, or can run out of cards, now or after staying plays), False (proven: no sequence of
        turns lays a card) or None (``exact_play_limit`` or a rebuild search's ``exact_search_limit`` was reached,
        or a listing of plays was cut short, or the rules allow more than one character per turn: undecided, the
        game goes on).

    Raises:
        ValueError: the rules keep characters on a display, or the seats share one stock (not searched here).
    """
    if game.chars_display_mode or state.shared:
        raise ValueError("the staying-plays search covers characters in piles and own draw piles only")
    if game.chars_per_turn > 1:
        return None  # (two plays in one turn, the second from the new top, are not searched: undecided)
    return _Search(game, state, bars).run()


def search_key(game: CompiledGame, state: GameState) -> tuple:
    """What :func:`lay_possible` reads of ``state``, canonical: equal keys get the same answer.

    The root table (each seat's hand and draw pile as one pool, the rows in canonical order) and the character
    piles: two positions that differ only in which of a seat's cards are in hand (exchanges) share a key.
    """
    s = _Search(game, state)
    return (s.root, s.root_piles)


class _Search:
    """One search of :func:`lay_possible` (the state of the walk, and the outcomes worked out per table)."""

    def __init__(self, game: CompiledGame, state: GameState, bars: list[frozenset[str] | None] | None = None) -> None:
        self.g = game
        self.bars = bars
        self.n = state.players
        self.n_fixed = state.n_fixed
        self.budget = game.exact_play_limit
        self.track = not game.chars_any_turn  # sizes decide whose plays stay only when plays need a lay-out turn
        self.alike = len(set(game.row_open)) <= 1 and len(set(game.row_group)) <= 1
        self.outcomes: dict[tuple[Table, int, str], list[tuple[Table, Effect]]] = {}
        self.checked: set[Table] = set()
        self.openings: dict[tuple, tuple[frozenset, frozenset, frozenset] | None] = {}
        sizes = tuple((len(h), len(p)) for h, p in zip(state.hands, state.piles, strict=True))
        self.root = self._table(
            state.rows,
            state.joker,
            state.discard,
            [[*h, *p] for h, p in zip(state.hands, state.piles, strict=True)],
            [[c for c, _ in p] for p in state.parked],
            sizes,
        )
        self.root_piles: Piles = tuple(tuple(p) for p in state.char_piles)

    # ------------------------------------------------------------------ the walk
    def run(self) -> bool | None:
        """The verdict (see :func:`lay_possible`)."""
        try:
            self._walk()
        except _Found:
            return True
        except _Undecided:
            return None
        return False

    def _spend(self, units: int = 1) -> None:
        self.budget -= units
        if self.budget < 0:
            raise _Undecided

    def _walk(self) -> None:
        """Every (table, piles) position reachable by staying plays, the tables with the fewest cards in rows first.

        At each position every seat's top character is first tried for a lay (:meth:`_tried`), then the staying
        plays are followed (:meth:`_outcome`): a way to lay is found before any next position is built. Of the
        tables reached, the one with the fewest cards in its rows is taken next (ties: the last reached): plays
        that take cards off the board are followed as far as they go first, as that is the usual way to a row card
        a held card can open. The piles of one table are turned depth-first. Every position is visited in the end,
        so the order changes only how soon a way to lay is found.
        """
        seen: set[tuple[Table, Piles]] = {(self.root, self.root_piles)}
        tables: list[tuple[int, int, Table, Piles]] = [(0, 0, self.root, self.root_piles)]
        reached = 0
        while tables:
            _, _, table, piles = heapq.heappop(tables)
            self._check_lays(table)
            stack = [piles]
            while stack:
                piles = stack.pop()
                self._spend()
                tops = [(k, piles[k][0]) for k in range(self.n) if piles[k]]
                tried = {top: self._tried(table, *top) for top in tops if (table, *top) not in self.outcomes}
                for k, key in tops:
                    for nxt, effect in self._outcome(table, k, key, tried.get((k, key))):
                        moved = _moved(piles, k, effect)
                        if (nxt, moved) in seen:
                            continue
                        seen.add((nxt, moved))
                        if nxt == table:
                            stack.append(moved)
                        else:
                            reached += 1
                            heapq.heappush(tables, (sum(map(len, nxt.rows)), -reached, nxt, moved))

    def _check_lays(self, table: Table) -> None:
        """Raise :class:`_Found` if some seat can lay on ``table`` now or after rebuilds (no character played)."""
        if table in self.checked:
            return
        self.checked.add(table)
        for k in range(self.n):
            self._spend()
            self._lays(self._probe(table, k, ()))

    def _lays(self, t: Turn) -> None:
        """Raise :class:`_Found` if ``t`` can lay a card now or after rebuilds; :class:`_Undecided` at a bound.

        A lay on the board as it is ends the search at once. With a modifier in force, every board rebuilds reach
        with it (:func:`_rebuild_closure`) is asked for a lay. Without, what the boards rebuilds reach accept
        (:meth:`_opened`). Every board visited is spent from the budget.
        """
        if t.lay_moves():
            raise _Found
        if not t.hand and not t.parked:
            return
        if any(getattr(t, name) for name in _MODIFIERS):
            boards = _rebuild_closure(t)
            if boards is None:
                raise _Undecided
            self._spend(len(boards))
            if any(b.lay_moves() for b in boards[1:]):
                raise _Found
            return
        found = self._opened(t)
        if found is None:
            raise _Undecided
        if found:
            raise _Found

    def _opened(self, t: Turn) -> bool | None:
        """:meth:`Turn.lay_reachable` of a turn with no modifier in force (and no lay on its board as it is).

        From what every board rebuilds reach accepts (:func:`~kbsim.engine.rows.boards.counted_openings`, kept per
        canonical board): a held card on a row end or an empty row card, a hand card into a gap, or a hand card the
        joker stands for (the swap: the joker stays in the rows whatever the rebuilds).
        """
        g = t.g  # (a barred seat's: the rules as it plays them)
        hand, parked = t.hand, t.parked
        if not t.allows(PARKED):
            parked = []
        if (
            t.state.joker is not None
            and t.allows(JOKER_SWAP)
            and any(-c in hand for row in t.rows for c in row if c < 0)
        ):
            return True
        board = (id(g), t.board_key(t.rows))  # (canonical: where every row card opens alike, row order is moot)
        if board in self.openings:
            found = self.openings[board]
        else:
            hit = _OPENINGS.get(board)
            if hit is not None and hit[0] is g:
                found, size = hit[1], hit[2]
            else:
                found, size = counted_openings(g, t.rows) if g.rebuild_allowed else (_openings_here(g, t.rows), 1)
                if len(_OPENINGS) >= _OPENINGS_KEPT:
                    _OPENINGS.clear()
                _OPENINGS[board] = (g, found, size)
            self._spend(size)  # (the boards the search visits, whether worked out now or kept from before)
            self.openings[board] = found
        if found is None:
            return None
        ends, empty, gaps = found
        held = set(hand) | set(parked)
        steps = g.steps
        return (
            any(v - e in steps for v in held for e in ends)
            or any(g.may_open(v, i) for i in empty for v in held)
            or (t.allows(FILL_GAP) and any(v in gaps for v in hand))
        )

    # ------------------------------------------------------------------ one seat, one character, one table
    def _tried(self, table: Table, seat: int, key: str) -> list[tuple[int, Turn, Turn]]:
        """Every legal play of ``key`` by ``seat`` on ``table``, in a lay-out turn: ``(board, before, after)``.

        The plays are made on the table's board and, where the character's power reads or changes the rows, on
        every board rebuilds reach first (``board`` is the index of that board, 0 the table's own); a power that
        leaves the rows alone commutes with rebuilds (where sizes are followed and rebuilds stay, it is made on
        every such board too: the next table may not let later plays use them).

        Raises :class:`_Found` when a play lays a card, or lets the seat lay after rebuilds (with the play's
        modifiers); :class:`_Undecided` when a bound is reached. Where sizes are not followed, every play stays
        and may be made on any board rebuilds reach: a play that leaves no modifier in force is then checked on
        the table it leaves (:meth:`_check_lays`, for every seat), not here.
        """
        start = self._probe(table, seat, (key,))
        every_board = self.g.character(key).touches_rows or (self.track and table.free)
        boards = _rebuild_closure(start) if every_board else [start]
        if boards is None:
            raise _Undecided
        self._spend(len(boards))
        # where every play stays and may be made on any board (sizes not followed), a play that leaves no modifier
        # in force is checked for lays on the next table, with every seat's cards (when that table is walked)
        later = not self.track
        out = []
        for b, turn in enumerate(boards):
            plays = turn.play_moves(limit=PLAYS_LISTED)
            if len(plays) >= PLAYS_LISTED:
                raise _Undecided
            for mv in plays:
                self._spend()
                t = turn.clone()
                try:
                    t.apply(mv, listed=True)
                except IllegalMove:
                    raise _Undecided from None  # (a listed play that fails: an engine defect; no verdict)
                if t.laid > turn.laid or t.won:
                    raise _Found
                if not (_no_new_lays(turn, t) or (later and not any(getattr(t, m) for m in _MODIFIERS))):
                    self._lays(t)
                out.append((b, turn, t))
        return out

    def _outcome(
        self, table: Table, seat: int, key: str, tried: list[tuple[int, Turn, Turn]] | None
    ) -> list[tuple[Table, Effect]]:
        """The staying plays of ``key`` by ``seat`` on ``table``: ``(next table, effect on the piles)`` each.

        ``tried`` are the plays :meth:`_tried` made (None: the outcome is known already). A play stays where
        characters may be played on any turn or the seat's turn needs no card; made on a board rebuilds reach
        first only where such rebuilds stay (``table.free``).
        """
        memo = (table, seat, key)
        hit = self.outcomes.get(memo)
        if hit is not None:
            return hit
        if tried is None:
            tried = self._tried(table, seat, key)
        out: dict[tuple[Table, Effect], None] = {}
        if self.g.chars_any_turn or self._needs_no_card(table, seat):
            for b, turn, t in tried:
                if b and not table.free:
                    continue
                effect = tuple(tuple(p) for p in t.state.char_piles)
                for nxt in self._ends(table, seat, turn, t):
                    out[(nxt, effect)] = None
        result = list(out)
        self.outcomes[memo] = result
        return result

    def _ends(self, table: Table, seat: int, before: Turn, t: Turn) -> list[Table]:
        """The tables a staying play (made on ``before``, giving ``t``) leaves when its turn ends.

        Rebuilds after the play stay where the seat's turn needs no card: then the tables of every board they
        reach (with the play's modifiers). Where the play turned on no modifier that rebuilds use and the next
        table lets staying plays use every board rebuilds reach (``free``), that table stands for them all.
        """
        nxt = self._after(table, seat, before, t)
        if not self._needs_no_card(table, seat):
            return [] if nxt is None else [nxt]
        if nxt is not None and nxt.free and _rebuild_modifiers(t) == _rebuild_modifiers(before):
            return [nxt]
        boards = _rebuild_closure(t)
        if boards is None:
            raise _Undecided
        self._spend(len(boards))
        out = []
        for end in boards:
            after = self._after(table, seat, before, end)
            if after is not None:
                out.append(after)
        return out

    def _probe(self, table: Table, seat: int, pile: tuple[str, ...]) -> Turn:
        """A fresh turn of ``seat`` on ``table``: its pool in hand, parked cards usable, ``pile`` its character pile.

        The other seats' character piles are empty (a power never reads them); the copy takes no snapshot.
        """
        st = GameState(
            rows=[list(r) for r in table.rows],
            hands=[list(p) for p in table.pools],
            piles=[[] for _ in range(self.n)],
            discard=list(table.discard),
            parked=[[(c, 0) for c in p] for p in table.parked],
            char_piles=[list(pile) if k == seat else [] for k in range(self.n)],
            joker=table.joker,
            turn_no=1,
            n_fixed=self.n_fixed,
        )
        t = Turn(self.g, st.rows, st.hands[seat], st.piles[seat], st.discard, state=st, seat=seat)
        t.undo = ()  # a search copy: no snapshot of provisional moves
        bar = self.bars[seat] if self.bars else None
        if bar is not None:  # restricted play: the seat makes none of its barred moves
            t.g = narrowed(self.g, bar)
            t.bar = bar
        return t

    def _after(self, table: Table, seat: int, before: Turn, t: Turn) -> Table | None:
        """The table after ``seat``'s staying play (made on ``before``, giving ``t``) and the end of its turn.

        Cards the play set aside stay in the seat's pool; cards handed to a seat join its pool (and its draw
        pile's size). None when the play cannot stay: the seat holds too few hand cards for it (sizes followed).
        """
        g = self.g
        st = t.state
        aside = len(before.hand) - len(t.hand)  # hand cards the play took (none was laid)
        if aside and not g.parked_count:
            raise _Found  # the seat might run out of cards with cards parked that do not count
        pools = [
            sorted([*st.hands[k], *st.piles[k], *(c for c, n in st.parked[k] if n >= st.turn_no)])
            for k in range(self.n)
        ]
        sizes = None
        if table.sizes is not None:
            grown = [(h, p + len(st.piles[k])) for k, (h, p) in enumerate(table.sizes)]
            h, p = grown[seat]
            if h < aside:
                return None
            h -= aside  # (its turn needed no card, so it may end: the play stays)
            draw = min(p, max(0, g.hand_size - h) if g.refill_up_to else g.refill_draw)
            grown[seat] = (h + draw, p - draw)
            sizes = grown
        return self._table(st.rows, st.joker, st.discard, pools, [list(p) for p in table.parked], sizes)

    # ------------------------------------------------------------------ sizes
    def _no_card_needed(self, hand: int, pile: int) -> bool:
        """A turn with ``hand`` and ``pile`` cards needs no card laid (``Turn.needed`` is 0 at its start)."""
        g = self.g
        return g.min_lay == 0 or (g.min_only_while_pile and pile == 0) or (hand == 0 and pile > 0)

    def _needs_no_card(self, table: Table, seat: int) -> bool:
        """Whether ``seat``'s next turn on ``table`` needs no card (True where sizes are not followed)."""
        if table.sizes is None:
            return True
        return self._no_card_needed(*table.sizes[seat])

    def _settled(self, hand: int, pile: int) -> tuple[int, int]:
        """The sizes after drawing the whole draw pile into the hand, where one turn laying nothing can do it.

        That turn is an exchange, or a turn that needs no card ending with the refill; else the sizes as given.
        The seat may do so at any time, changing nothing else; the sizes reached need no card and hold as many
        hand cards or more, so a search from them covers every search from the sizes given.
        """
        g = self.g
        if not pile or not g.refill_up_to or hand + pile > g.hand_size:
            return hand, pile
        exchange = g.exchange_allowed and hand >= max(1, g.exchange_min)
        if exchange or self._no_card_needed(hand, pile):
            return hand + pile, 0
        return hand, pile

    # ------------------------------------------------------------------ tables
    def _table(self, rows, joker, discard, pools, parked, sizes) -> Table:
        """The canonical :class:`Table` of these zones (sizes settled and kept only where followed)."""
        fixed = [tuple(r) for r in rows[: self.n_fixed]]
        extra = [tuple(r) for r in rows[self.n_fixed :]]
        if self.alike:
            fixed.sort()
            extra.sort()
        kept = None
        free = True
        if self.track:
            kept = tuple(self._settled(h, p) for h, p in sizes)
            free = any(self._no_card_needed(h, p) for h, p in kept)
        return Table(
            rows=(*fixed, *extra),
            joker=joker,
            discard=tuple(sorted(discard)),
            pools=tuple(tuple(sorted(p)) for p in pools),
            parked=tuple(tuple(sorted(p)) for p in parked),
            sizes=kept,
            free=free,
        )


def _moved(piles: Piles, seat: int, effect: Effect) -> Piles:
    """The character piles after ``seat`` played its top card with ``effect`` (cards sent to pile bottoms)."""
    return tuple(
        (*(p[1:] if k == seat else p), *effect[k]) if effect[k] or k == seat else p for k, p in enumerate(piles)
    )


def _no_new_lays(before: Turn, after: Turn) -> bool:
    """True if ``after`` can lay nothing that ``before`` could not: same board, same modifiers, no new hand card.

    The lays of a turn are a function of the rows, the joker, the turn's modifiers and the cards in hand and
    usable parked cards; with the first three unchanged and the last fewer, every lay of ``after`` was a lay of
    ``before`` (on every board rebuilds reach).
    """
    if after.rows != before.rows or after.state.joker != before.state.joker:
        return False
    for name in _MODIFIERS:
        if getattr(after, name) != getattr(before, name):
            return False
    return set(after.hand) <= set(before.hand) and set(after.parked) <= set(before.parked)


def _openings_here(game: CompiledGame, rows: list[list[int]]) -> tuple[frozenset, frozenset, frozenset]:
    """What the board ``rows`` itself accepts (rules without rebuilds): row ends, empty rows, gap values."""
    ends = frozenset(abs(r[-1]) for r in rows if r)
    empty = frozenset(i for i, r in enumerate(rows) if not r)
    step = game.step
    gaps = frozenset(
        abs(r[i - 1]) + step for r in rows for i in range(1, len(r)) if abs(r[i]) - abs(r[i - 1]) == 2 * step
    )
    return ends, empty, gaps


def _rebuild_modifiers(t: Turn) -> tuple[bool, bool, bool]:
    """Which of the turn's modifiers rebuilds may use: lay at starts, equal values, a skip still unused."""
    return (t.m_start and t.m_start_rb, t.m_equal and t.m_equal_rb, t.skips > 0 and t.m_skip_rb)


def _rebuild_closure(turn: Turn) -> list[Turn] | None:
    """``turn`` and a copy of it on every other board legal rebuilds reach (each canonical board once).

    Depth-first, as :meth:`Turn.lay_path` searches. None when more than ``exact_search_limit`` boards were seen.
    """
    g = turn.g
    limit = g.exact_search_limit
    seen = {turn.board_key(turn.rows)}
    out = [turn]
    stack = [turn]
    while stack:
        t = stack.pop()
        for mv in t.rebuild_moves():
            nt = t.clone()
            rebuild(nt, mv.src, mv.count, mv.dst, mv.from_start, mv.to_start)
            key = turn.board_key(nt.rows)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > limit:
                return None
            out.append(nt)
            stack.append(nt)
    return out
