"""One seat's turn: the zones it works on, the legality of each move, and its one mutator.

A :class:`Turn` works on the live zones of a game (rows, the seat's hand and
draw pile, the discard pile, and in the complete game the character piles and
parked cards) and is the only way they change during play. Bots
receive it as their view of the game: they read the rows, their own hand and
public counts, ask for :meth:`Turn.legal_moves`, and act through
:meth:`Turn.apply`. :meth:`Turn.sandbox` gives an independent copy (hidden
cards replaced by ``HIDDEN``) for look-ahead.

The turn is split by job over a few modules, each taking the turn as its first argument:

* this module: the turn's fields, the legality queries (:meth:`Turn.can_lay`, :meth:`Turn.can_rebuild`,
  :meth:`Turn.can_end`, ...), :meth:`Turn.apply`, and the copies (clone, sandbox, light copy, restored);
* :mod:`kbsim.engine.rows.verbs`: what each move does to the table, and the bookkeeping the verbs and the
  character powers share (completion, refill, the joker, the snapshot of provisional moves);
* :mod:`kbsim.engine.rows.movegen`: the listing of legal moves;
* :mod:`kbsim.engine.rows.layable`: whether the seat can still lay, now or after rebuilds;
* :mod:`kbsim.engine.rows.refusals`: why a move is refused.

Rules implemented (rulebook, "Turn Sequence" and "Complete Game"; see the shipped rule files): the legality
of lay-out turns (lay at row ends, open empty rows, rebuild end segments, minimum cards laid), of exchange,
pass and the minus pile (solo), and the generic hooks of character powers (:mod:`kbsim.engine.rows.powers`):
turn modifiers, gap filling, the joker swap, parked cards, extra rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from kbsim.engine.restrict import CHARACTER_PLAY, CHARACTERS
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows import layable, movegen, refusals, verbs
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import (
    DONE,
    END_TURN,
    LAYING,
    START,
    Exchange,
    Lay,
    Minus,
    Move,
    Play,
    Rebuild,
)
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.usage import AT_START, EQUAL, SKIP, classify, count
from kbsim.engine.rows.verbs import OWE_NONE, VERBS, lay, play, refill, restore

HIDDEN: Final = 0  # stands for a card a player may not see
HIDDEN_CHARACTER: Final = "?"  # stands for a face-down character card


class Turn:
    """A turn in progress for one seat.

    Args:
        game: the compiled rules.
        rows: the table's rows, each a list of cards from first to last (mutated).
        hand: the seat's hand cards (mutated).
        pile: the seat's draw pile, top card last (mutated; masked while a bot decides: bots read ``pile_size``).
        discard: the discard pile (mutated).
        opponents: public card counts of the other seats (hand + pile), in seat order after this one;
            a tuple, or a zero-argument callable returning it (computed only when asked for).
        state: the whole :class:`~kbsim.engine.rows.state.GameState` (needed by character powers); when
            omitted a one-seat state is built around the zones given.
        seat: this turn's seat in ``state``.

    Attributes (read-only for bots): ``rows``, ``hand``, ``pile_size``,
    ``discard_size``, ``laid``, ``rebuilds``, ``completed``, ``phase``,
    ``won`` (the seat ran out of cards), ``exchanged``, ``passed``, ``minus_cards``,
    ``chars_played``. ``usage``: None, or a dict into which :meth:`apply` counts the rules each
    applied move needed (:mod:`kbsim.engine.rows.usage`; the game loop sets it on each turn when the
    rules enable a counter). ``bar``: None, or the move kinds this seat is barred from (restricted play,
    :mod:`kbsim.engine.rows.restrict`): :meth:`apply` refuses them and the listings leave them out.

    Engine state (engine code reads and sets it; bots leave it alone): ``pile`` (this seat's draw pile),
    ``opponent_counts`` (what :attr:`opponents` reads: a tuple or a zero-argument callable), ``undo``
    (the snapshot of the table before the turn's first provisional move: None before it, ``()`` on a search
    copy, which takes none; :mod:`kbsim.engine.rows.verbs`), ``owed`` (draws held back by
    :attr:`defer_draws`), ``playing`` (the character being played, during its power), ``start_empty`` (the
    turn began with no hand card, so it may just refill).

    :meth:`apply` is the one mutator bots use: it calls the move's verb (:data:`kbsim.engine.rows.verbs.VERBS`).
    Character powers (:mod:`kbsim.engine.rows.powers`) change the table through the same module's bookkeeping
    (:func:`~kbsim.engine.rows.verbs.complete`, :func:`~kbsim.engine.rows.verbs.take_from_hand`, ...), as
    engine code.
    """

    __slots__ = (
        "g",
        "rows",
        "hand",
        "pile",
        "discard",
        "opponent_counts",
        "phase",
        "laid",
        "rebuilds",
        "completed",
        "won",
        "exchanged",
        "passed",
        "log",
        "on_move",
        "state",
        "seat",
        "m_start",
        "m_start_rb",
        "m_equal",
        "m_equal_rb",
        "skips",
        "m_skip_rb",
        "skip_lo",
        "skip_hi",
        "chars_played",
        "minus_cards",
        "start_empty",
        "playing",
        "undo",
        "usage",
        "bar",
        "defer_draws",
        "owed",
        "drawn",
        "seen",
    )

    def __init__(
        self,
        game: CompiledGame,
        rows: list[list[int]],
        hand: list[int],
        pile: list[int],
        discard: list[int],
        opponents=(),
        *,
        state: GameState | None = None,
        seat: int = 0,
    ):
        self.g = game
        self.rows = rows
        self.hand = hand
        self.pile = pile
        self.discard = discard
        self.opponent_counts = opponents
        self.phase = START
        self.laid = 0
        self.rebuilds = 0
        self.completed = 0
        self.won = False
        self.exchanged = 0
        self.passed = False
        self.log: list[Move] | None = None
        # optional callable(turn) run after each applied move (invariant checks)
        self.on_move: Callable[[Turn], None] | None = None
        self.state = (
            state
            if state is not None
            else GameState(rows=rows, hands=[hand], piles=[pile], discard=discard, n_fixed=game.n_rows)
        )
        self.seat = seat
        self.m_start = self.m_start_rb = self.m_equal = self.m_equal_rb = self.m_skip_rb = False
        self.skips = self.skip_lo = self.skip_hi = 0
        self.chars_played = 0
        self.minus_cards = 0
        self.start_empty = not hand  # a turn that starts with no hand card may just refill
        self.playing: str | None = None
        self.undo: tuple | None = None  # snapshot of the table before the turn's first provisional move
        self.usage: dict[str, int] | None = None  # rule usage counters (kbsim.engine.rows.usage), when counted
        self.bar: frozenset[str] | None = None  # move kinds this seat is barred from (kbsim.engine.rows.restrict)
        # the game loop's draws at the end of the turn wait for finish_draws (the draw piles are masked meanwhile)
        self.defer_draws = False
        self.owed = OWE_NONE
        self.drawn = 0  # cards drawn into the hand this turn
        # what every seat knows beyond the zones it sees (kbsim.engine.rows.observe.Knowledge), set by the game loop
        self.seen: object | None = None

    @classmethod
    def for_seat(cls, game: CompiledGame, state: GameState, seat: int, opponents=()) -> Turn:
        """The turn of ``seat`` on the live zones of ``state``."""
        return cls(
            game, state.rows, state.hands[seat], state.piles[seat], state.discard, opponents, state=state, seat=seat
        )

    # ----------------------------------------------------------------- reading
    @property
    def opponents(self) -> tuple[int, ...]:
        """Cards held (hand + draw pile) by each other seat, in turn order after this seat."""
        o = self.opponent_counts
        return o() if callable(o) else o

    @property
    def pile_size(self) -> int:
        """Cards in this seat's draw pile."""
        return len(self.pile)

    @property
    def discard_size(self) -> int:
        """Cards in the discard pile."""
        return len(self.discard)

    @property
    def parked(self) -> list[int]:
        """Cards this seat parked in an earlier turn (usable now)."""
        now = self.state.turn_no
        return [c for c, t in self.state.parked[self.seat] if t < now]

    @property
    def needed(self) -> int:
        """Hand cards this lay-out turn must still lay before it may end."""
        g = self.g
        if (g.min_only_while_pile and not self.pile) or (self.start_empty and self.pile):
            return 0
        return max(0, g.min_lay - self.laid)

    def available_characters(self) -> list[str]:
        """Keys of the characters this seat may play now (top of its pile, or the shared display)."""
        g = self.g
        if not g.chars_enabled or self.chars_played >= g.chars_per_turn or self.phase == DONE:
            return []
        st = self.state
        if g.chars_display_mode:
            keys = [k for k in st.display if k != HIDDEN_CHARACTER]
        else:
            pile = st.char_piles[self.seat]
            keys = [pile[0]] if pile else []
        bar = self.bar
        if bar is not None and keys:
            keys = [] if CHARACTERS in bar else [k for k in keys if CHARACTER_PLAY + k not in bar]
        return keys

    def _joint_fits(self, lower: int, upper: int, rebuild: bool) -> int:
        """How ``upper`` may follow ``lower`` along a row: 0 no, 1 normally or as an equal value, 2 by a skip."""
        d = upper - lower
        if d in self.g.steps:
            return 1
        bar = self.bar
        if self.m_equal and d == 0 and (self.m_equal_rb or not rebuild):
            return 1 if bar is None or EQUAL not in bar else 0
        if (
            self.skips
            and d == 2 * self.g.step
            and self.skip_lo <= lower + self.g.step <= self.skip_hi
            and (self.m_skip_rb or not rebuild)
        ):
            return 2 if bar is None or SKIP not in bar else 0
        return 0

    def end_fits(self, end: int, card: int, rebuild: bool = False) -> int:
        """How ``card`` may follow row end ``end`` (see :meth:`_joint_fits`)."""
        return self._joint_fits(abs(end), card, rebuild)

    def start_fits(self, first: int, card: int, rebuild: bool = False) -> int:
        """How ``card`` may go before row start ``first`` (only with a start-laying modifier)."""
        if not self.m_start or (rebuild and not self.m_start_rb) or not self.allows(AT_START):
            return 0
        return self._joint_fits(card, abs(first), rebuild)

    def allows(self, key: str) -> bool:
        """False when this seat is barred from the move kind ``key`` (a usage counter; restricted play)."""
        bar = self.bar
        return bar is None or key not in bar

    def barred(self, move: Move) -> str:
        """The move kind of ``move`` this seat is barred from, or "" (:func:`kbsim.engine.rows.usage.classify`)."""
        bar = self.bar
        if bar is not None:
            for k in classify(self.g, self, move):
                if k in bar:
                    return k
        return ""

    def can_lay(self, card: int, r: int) -> bool:
        """True if ``card`` may go on the end of row ``r`` now (the card must be in hand)."""
        if self.phase == DONE:
            return False
        row = self.rows[r]
        if row:
            return card - row[-1] in self.g.steps or self.end_fits(row[-1], card) > 0
        return self.g.may_open(card, r)

    def can_place(self, card: int, r: int) -> bool:
        """Same as :meth:`can_lay` (the name the character powers use)."""
        return self.can_lay(card, r)

    def can_rebuild(self, src: int, count: int, dst: int, from_start: bool = False, to_start: bool = False) -> bool:
        """True if ``Rebuild(src, count, dst, from_start, to_start)`` is legal now."""
        g = self.g
        if self.phase == DONE or not g.rebuild_allowed or self.rebuilds >= g.max_rebuilds or src == dst:
            return False
        rows = self.rows
        if not (0 <= src < len(rows) and 0 <= dst < len(rows)):
            return False
        s = rows[src]
        n = len(s)
        if count < 1 or count > n or (g.rebuild_whole_only and count != n):
            return False
        if from_start and not g.rebuild_from_start:
            return False
        d = rows[dst]
        if to_start:
            if not d:
                return False
            last = s[count - 1] if from_start else s[-1]
            return self.start_fits(d[0], abs(last), rebuild=True) > 0
        first = s[0] if from_start else s[n - count]
        if d:
            if first - d[-1] in g.steps:
                return True
            return self.end_fits(d[-1], abs(first), rebuild=True) > 0
        # onto an empty row card: a split, or a whole row into a slot of another group
        # (a whole row into a slot of its own group would change nothing)
        if (
            not g.rebuild_into_empty
            or not g.may_open(abs(first), dst)
            or (g.empty_targets is not None and dst not in g.empty_targets)
        ):
            return False
        return count < n or (dst < len(g.row_group) and src < len(g.row_group) and g.row_group[src] != g.row_group[dst])

    def rebuild_refusal(self, src: int, count: int, dst: int, from_start: bool = False, to_start: bool = False) -> str:
        """Why ``Rebuild(src, count, dst, from_start, to_start)`` is refused now ("" if legal).

        See :func:`kbsim.engine.rows.refusals.rebuild_refusal` (the arguments are the rebuild's fields).
        """
        return refusals.rebuild_refusal(self, src, count, dst, from_start, to_start)

    def power_hint(self, kind: str, mod: str = "") -> str:
        """Which power of the rules allows a move the base rules refuse (:func:`kbsim.engine.rows.refusals.power_hint`).

        Args:
            kind: the kind of power step that would allow the move (``modifier``, ...).
            mod: the modifier that would allow it (``lay_at_start``, ...); empty: any step of ``kind``.

        Returns:
            The text appended to a refusal.
        """
        return refusals.power_hint(self.g, kind, mod)

    def gaps(self, r: int) -> list[int]:
        """Values missing inside row ``r`` (one per gap left by a skip), first to last.

        A gap is two neighbours two steps apart (the joker counts as the value it stands for). One pass over the
        row, compiled a native loop: the greedy bot asks this of every row on every pass of its lay phase.
        """
        row = self.rows[r]
        n = len(row)
        out: list[int] = []
        if n < 2:
            return out
        step = self.g.step
        two = 2 * step
        prev = row[0]
        if prev < 0:
            prev = -prev
        for i in range(1, n):
            v = row[i]
            if v < 0:
                v = -v
            if v - prev == two:
                out.append(prev + step)
            prev = v
        return out

    # ----------------------------------------------------------------- provisional moves
    @property
    def provisional(self) -> bool:
        """True while the turn has changed the table but not yet met its minimum of laid cards.

        Reading (rule file, clarification "A turn that lays nothing"): rebuilds and character
        plays stay provisional until the turn's minimum of hand cards is laid; such a turn may
        still end as an exchange, a pass or a minus-pile move, and the table is then restored
        to what it was before the turn's first move.
        """
        return bool(self.undo) and self.phase == LAYING and self.needed > 0

    def restored(self) -> Turn:
        """A copy of this turn with its provisional moves taken back (to check a move first)."""
        t = self.clone()
        t.log = t.on_move = None
        restore(t)
        return t

    # ----------------------------------------------------------------- acting
    def apply(self, move: Move, *, listed: bool = False) -> None:
        """Apply ``move`` for this seat: the one way bots, replays and searches change the table.

        The move's type picks its verb from a dict (no chain of type tests); the verb does the move's
        legality check once, while it makes the move. When :attr:`usage` is a dict, the rules the move
        needed are counted into it (:func:`kbsim.engine.rows.usage.classify`, from the compiled rules),
        once the move has succeeded; with no counter enabled (``usage`` None) this costs one test.

        Args:
            move: a :class:`~kbsim.engine.rows.moves.Move` (row indices 0-based).
            listed: only for a :class:`~kbsim.engine.rows.moves.Play` listed by :meth:`play_moves` or
                :meth:`legal_moves` for this very position (as bots trying each listed play on a sandbox
                do): the copy on which a play is otherwise tried first is skipped.

        Raises:
            IllegalMove: the move is not allowed now, or this seat is barred from its kind (restricted play), or
                it is not a move; nothing has changed.
        """
        if type(move) is Lay and self.usage is None and self.bar is None:
            # the commonest move (most of a greedy game's): its verb called directly, without the dict and the
            # call with unpacked fields (the same verb the dict gives, so the same effect)
            lay(self, move[0], move[1])
            return
        verb = VERBS.get(type(move))
        if verb is None:
            raise IllegalMove(f"not a move: {move!r}")
        if self.bar is not None:
            key = self.barred(move)
            if key:
                raise IllegalMove(
                    f"{type(move).__name__.lower()} refused: this seat is barred from {key} "
                    f"(restricted play: its player's bar=[{', '.join(sorted(self.bar))}])"
                )
        usage = self.usage
        if usage is None and not listed:  # the hot path: one lookup, one call
            verb(self, *move)
            return
        if usage is None:
            if type(move) is Play:
                play(self, move.key, move.args, listed=True)
            else:
                verb(self, *move)
            return
        keys = classify(self.g, self, move)
        if listed and type(move) is Play:
            play(self, move.key, move.args, listed=True)
        else:
            verb(self, *move)
        count(usage, keys)

    def draw_at_start(self) -> None:
        """Draw at the start of the turn (rules that refill at the start instead of the end).

        A step of the game loop (and of replays) before the seat acts, not a move: bots never call it.
        """
        refill(self)

    def finish_draws(self) -> None:
        """Make the draws that ended the turn while :attr:`defer_draws` held them back (a step of the game loop).

        See :func:`kbsim.engine.rows.verbs.finish_draws`. Bots never call it.
        """
        verbs.finish_draws(self)

    # ----------------------------------------------------------------- stuck or not (kbsim.engine.rows.layable)
    def can_lay_anything(self) -> bool:
        """True if some hand or parked card can be laid now or on a board reachable by rebuilds.

        Asks the same generator that lists the legal lays (:meth:`lay_moves`: row ends, empty
        rows, starts under a start-laying modifier, gaps, the joker swap, parked cards) on the
        current board and on every board reachable by legal rebuilds from it (depth-first, on
        copies; each board once). When ``exact_search_limit`` boards were explored without an
        answer, the seat counts as stuck. See :func:`kbsim.engine.rows.layable.can_lay_anything`.
        """
        return layable.can_lay_anything(self)

    def stuck_here(self) -> bool:
        """True if the turn's provisional moves left it where no hand or parked card can be laid.

        See :func:`kbsim.engine.rows.layable.stuck_here`.
        """
        return layable.stuck_here(self)

    def stranded(self) -> bool:
        """True if moves are final and left this lay-out turn short of its minimum, with nothing it can lay.

        See :func:`kbsim.engine.rows.layable.stranded`.
        """
        return layable.stranded(self)

    def lay_reachable(self) -> bool | None:
        """Like :meth:`can_lay_anything`, but ``None`` when the search limit was reached.

        Returns:
            ``True`` (a lay is legal now or after some legal rebuilds), ``False`` (no board
            reachable by rebuilds admits a lay) or ``None`` (search limit reached).
        """
        return layable.lay_reachable(self)

    def lay_path(self) -> tuple[bool | None, list[Rebuild]]:
        """The search of :meth:`lay_reachable`, with the rebuilds that lead to a board admitting a lay.

        Returns:
            ``(True, rebuilds)`` (empty: a lay is legal now), ``(False, [])`` or ``(None, [])``
            (search limit reached). See :func:`kbsim.engine.rows.layable.lay_path`.
        """
        return layable.lay_path(self)

    def board_key(self, rows: list[list[int]]) -> tuple:
        """Rows as a search key: where every row card opens alike, their order does not matter."""
        return layable.board_key(self, rows)

    def light_copy(self, discard: bool = False) -> Turn:
        """A copy holding only what laying and rebuilding read: cheap to clone during searches.

        It holds the rows, this seat's hand and parked cards, the joker and the turn's modifiers; its
        rebuilds take no snapshot. With ``discard`` it also holds a copy of the discard pile (for powers
        laying from it); otherwise its discard pile starts empty.
        """
        st = self.state
        light = GameState(
            rows=[list(r) for r in self.rows],
            hands=[list(self.hand)],
            piles=[[]],
            discard=list(self.discard) if discard else [],
            parked=[list(st.parked[self.seat])],
            joker=st.joker,
            turn_no=st.turn_no,
            n_fixed=st.n_fixed,
        )
        t = Turn(self.g, light.rows, light.hands[0], light.piles[0], light.discard, state=light, seat=0)
        for name in (
            "phase",
            "laid",
            "rebuilds",
            "completed",
            "m_start",
            "m_start_rb",
            "m_equal",
            "m_equal_rb",
            "skips",
            "m_skip_rb",
            "skip_lo",
            "skip_hi",
            "start_empty",
        ):
            setattr(t, name, getattr(self, name))
        t.bar = self.bar
        t.undo = ()  # a search copy: rebuilds take no snapshot
        return t

    def can_finish(self) -> bool:
        """True if the turn can still be ended legally (:meth:`finishing_moves` finds a way; read only).

        False, for instance, after a power parked the whole hand in a turn that must still lay a card and may
        not pass: no lay, no exchange of no cards, no pass.
        """
        try:
            self.finishing_moves()
        except IllegalMove:
            return False
        return True

    def finishing_moves(self) -> list[Move]:
        """Moves that end this turn legally (read only); see :func:`kbsim.engine.rows.movegen.finishing_moves`."""
        return movegen.finishing_moves(self)

    # ----------------------------------------------------------------- enumerating
    def lay_moves(self) -> list[Move]:
        """See :func:`kbsim.engine.rows.movegen.lay_moves`."""
        return movegen.lay_moves(self)

    def rebuild_moves(self) -> list[Rebuild]:
        """See :func:`kbsim.engine.rows.movegen.rebuild_moves`."""
        return movegen.rebuild_moves(self)

    def exchange_moves(self) -> list[Exchange]:
        """See :func:`kbsim.engine.rows.movegen.exchange_moves`."""
        return movegen.exchange_moves(self)

    def can_exchange(self) -> bool:
        """See :func:`kbsim.engine.rows.movegen.can_exchange`."""
        return movegen.can_exchange(self)

    def play_moves(self, limit: int = 300) -> list[Play]:
        """See :func:`kbsim.engine.rows.movegen.play_moves`."""
        return movegen.play_moves(self, limit)

    def minus_moves(self) -> list[Minus]:
        """See :func:`kbsim.engine.rows.movegen.minus_moves`."""
        return movegen.minus_moves(self)

    def legal_moves(self) -> list[Move]:
        """See :func:`kbsim.engine.rows.movegen.legal_moves`."""
        return movegen.legal_moves(self)

    def can_pass(self) -> bool:
        """True if the turn may be a pass now (after provisional moves: on the restored table)."""
        g = self.g
        if self.phase != START and self.provisional:
            return self.restored().can_pass()
        return self.phase == START and g.pass_allowed and not (g.pass_requires_empty_pile and self.pile)

    def must_lay_pending(self) -> int | None:
        """A hand card the rules say must be laid now (it can be), or None."""
        g = self.g
        if g.must_lay:
            for c in self.hand:
                if c in g.must_lay and any(self.can_lay(c, r) for r in range(len(self.rows))):
                    return c
        return None

    def can_end(self) -> bool:
        """True if the lay-out turn may end now (minimum laid, no card that must be laid, not barred).

        Where moves are final (:meth:`stranded`) and the rules have no minus pile, a turn left short of its
        minimum with nothing it can lay may end too. A seat barred from ending a turn this way (restricted play:
        :meth:`barred`) may not.
        """
        if self.bar is not None and self.barred(END_TURN):
            return False
        if self.needed:
            return not self.g.provisional_moves and not self.g.minus_allowed and self.stranded()
        return self.phase != DONE and self.must_lay_pending() is None

    # ----------------------------------------------------------------- copies
    def clone(self) -> Turn:
        """An exact independent copy (all zones copied), used to try moves before making them."""
        return self.on_state(self.state.copy())

    def on_state(self, st: GameState, snapshot: Callable[[GameState], GameState] | None = None) -> Turn:
        """This turn, at the same point, over the zones of ``st``.

        ``st`` is a copy of :attr:`state`, or a state filled in from it, as a determinization is (see
        :mod:`kbsim.engine.rows.forward`).

        The new turn has this turn's counters and modifiers; its provisional snapshot (if any) is shared, or
        mapped by ``snapshot``, and its draws are not held back (:attr:`defer_draws` is off).

        Args:
            st: the state of the new turn; it must hold this turn's seat.
            snapshot: where given, the new turn's snapshot of the table before its provisional moves is
                ``snapshot(`` this turn's ``)`` (as a seat sees it, or filled in as ``st`` is); called only when
                there is a snapshot.

        Returns:
            The new turn (no log, no move hook).
        """
        t = Turn(
            self.g,
            st.rows,
            st.hands[self.seat],
            st.piles[self.seat],
            st.discard,
            self.opponent_counts,
            state=st,
            seat=self.seat,
        )
        # (attribute by attribute: a loop over names with getattr/setattr cost a third of a clone)
        t.phase = self.phase
        t.laid = self.laid
        t.rebuilds = self.rebuilds
        t.completed = self.completed
        t.won = self.won
        t.exchanged = self.exchanged
        t.passed = self.passed
        t.m_start = self.m_start
        t.m_start_rb = self.m_start_rb
        t.m_equal = self.m_equal
        t.m_equal_rb = self.m_equal_rb
        t.skips = self.skips
        t.m_skip_rb = self.m_skip_rb
        t.skip_lo = self.skip_lo
        t.skip_hi = self.skip_hi
        t.chars_played = self.chars_played
        t.minus_cards = self.minus_cards
        t.start_empty = self.start_empty
        t.playing = self.playing
        undo = self.undo
        if undo and snapshot is not None:
            undo = (snapshot(undo[0]), undo[1])
        t.undo = undo
        t.bar = self.bar
        t.drawn = self.drawn
        t.seen = self.seen
        return t

    def sandbox(self, *, scratch: bool = False) -> Turn:
        """An independent copy for look-ahead; cards this seat may not see are ``HIDDEN``.

        Args:
            scratch: the copy (and its clones) is only played on to look at the outcome, never ended by an
                exchange, a pass or a minus-pile move: its moves take no snapshot to restore provisional moves
                from (rule file, clarification "A turn that lays nothing"), which saves a copy of the whole
                state on its first move. Laying, rebuilding and playing characters on it are unchanged.

        Returns:
            The copy.
        """
        t = self.clone()
        if scratch and t.undo is None:
            t.undo = ()  # (as the exact search's light copies: no snapshot is taken)
        st = t.state
        for s in range(st.players):
            st.piles[s][:] = [HIDDEN] * len(st.piles[s])
            if s != self.seat:
                st.hands[s][:] = [HIDDEN] * len(st.hands[s])
        st.char_deck[:] = [HIDDEN_CHARACTER] * len(st.char_deck)
        if t.undo:  # the snapshot of provisional moves hides the same cards
            snap = t.undo[0].copy()
            for s in range(snap.players):
                snap.piles[s][:] = [HIDDEN] * len(snap.piles[s])
                if s != self.seat:
                    snap.hands[s][:] = [HIDDEN] * len(snap.hands[s])
            snap.char_deck[:] = [HIDDEN_CHARACTER] * len(snap.char_deck)
            t.undo = (snap, t.undo[1])
        return t
