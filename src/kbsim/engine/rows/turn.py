"""One seat's turn: the legality of each move and its effect on the table.

A :class:`Turn` works on the live zones of a game (rows, the seat's hand and
draw pile, the discard pile, and in the complete game the character piles and
parked cards) and is the only code that changes them during play. Bots
receive it as their view of the game: they read the rows, their own hand and
public counts, ask for :meth:`Turn.legal_moves`, and act through
:meth:`Turn.apply`. :meth:`Turn.sandbox` gives an independent copy (hidden
cards replaced by ``HIDDEN``) for look-ahead.

Rules implemented (rulebook, "Turn Sequence" and "Complete Game"; see
the shipped rule files): lay-out turns (lay at row ends, open empty rows,
rebuild end segments, completion to the discard pile, minimum cards laid),
exchange, pass, the minus pile (solo), refill, running out of cards; and the
generic hooks of character powers (:mod:`kbsim.engine.rows.powers`): turn
modifiers, gap filling, the joker swap, parked cards, extra rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from kbsim.engine.restrict import CHARACTER_PLAY, CHARACTERS
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows import movegen, refusals
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import (
    DONE,
    END_TURN,
    LAYING,
    PASS,
    START,
    EndTurn,
    Exchange,
    FillGap,
    Lay,
    LayParked,
    LayStart,
    Minus,
    Move,
    Pass,
    Play,
    Rebuild,
    Swap,
)
from kbsim.engine.rows.powers import CompiledCharacter
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.usage import AT_START, EQUAL, SKIP, classify, count

_LAY_MEMO: dict[int, tuple] = {}  # id(game) -> (game, {position: lay_path result}); per process
HIDDEN: Final = 0  # stands for a card a player may not see
HIDDEN_CHARACTER: Final = "?"  # stands for a face-down character card
_OWE_NONE: Final = 0  # draws the turn still owes (finish_draws): none,
_OWE_END: Final = 1  # the refill of a lay-out turn,
_OWE_EXCHANGE: Final = 2  # the refill of an exchange,
_OWE_MINUS: Final = 3  # the refill of a minus-pile move


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

    :meth:`apply` is the one public mutator: the per-move verbs (``_lay``, ``_rebuild``, ...) are private.
    Character powers (:mod:`kbsim.engine.rows.powers`) change the table through the turn's private
    helpers (``_complete``, ``_prune``, ``_take_from_hand``, ...), as engine code.
    """

    __slots__ = (
        "g",
        "rows",
        "hand",
        "_pile",
        "discard",
        "_opponents",
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
        "_start_empty",
        "_playing",
        "_undo",
        "usage",
        "bar",
        "defer_draws",
        "_owed",
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
        self._start_empty = not hand  # a turn that starts with no hand card may just refill
        self._playing: str | None = None
        self._undo: tuple | None = None  # snapshot of the table before the turn's first provisional move
        self.usage: dict[str, int] | None = None  # rule usage counters (kbsim.engine.rows.usage), when counted
        self.bar: frozenset[str] | None = None  # move kinds this seat is barred from (kbsim.engine.rows.restrict)
        # the game loop's draws at the end of the turn wait for finish_draws (the draw piles are masked meanwhile)
        self.defer_draws = False
        self._owed = _OWE_NONE
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
    def parked(self) -> list[int]:
        """Cards this seat parked in an earlier turn (usable now)."""
        now = self.state.turn_no
        return [c for c, t in self.state.parked[self.seat] if t < now]

    @property
    def needed(self) -> int:
        """Hand cards this lay-out turn must still lay before it may end."""
        g = self.g
        if (g.min_only_while_pile and not self._pile) or (self._start_empty and self._pile):
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
    _COUNTERS = (
        "laid",
        "rebuilds",
        "completed",
        "chars_played",
        "m_start",
        "m_start_rb",
        "m_equal",
        "m_equal_rb",
        "skips",
        "m_skip_rb",
        "skip_lo",
        "skip_hi",
    )

    def _snapshot(self) -> None:
        """Remember the table before the turn's first provisional move (turn.lay_out.provisional_until_laid)."""
        if self._undo is None and self.phase == START:  # (a search copy has () here)
            # (the values of _COUNTERS, in its order)
            self._undo = (
                self.state.copy(),
                (
                    self.laid,
                    self.rebuilds,
                    self.completed,
                    self.chars_played,
                    self.m_start,
                    self.m_start_rb,
                    self.m_equal,
                    self.m_equal_rb,
                    self.skips,
                    self.m_skip_rb,
                    self.skip_lo,
                    self.skip_hi,
                ),
            )

    def _lay_snapshot(self) -> None:
        """Before a turn's first lay: where one lay does not meet the turn's minimum, it is provisional too.

        Every kind of lay (a hand card on a row end, before a row's start, into a gap, for the joker, or a parked
        card) is then taken back with the rebuilds and plays when the turn ends as an exchange, a pass or a
        minus-pile move, so a turn whose first lays leave it short of its minimum can still end.
        """
        if self.g.min_lay > 1 and self.g.provisional_moves:
            self._snapshot()

    @property
    def provisional(self) -> bool:
        """True while the turn has changed the table but not yet met its minimum of laid cards.

        Reading (rule file, clarification "A turn that lays nothing"): rebuilds and character
        plays stay provisional until the turn's minimum of hand cards is laid; such a turn may
        still end as an exchange, a pass or a minus-pile move, and the table is then restored
        to what it was before the turn's first move.
        """
        return bool(self._undo) and self.phase == LAYING and self.needed > 0

    def _restore(self) -> None:
        """Put the table back as it was before the turn's first provisional move (zones changed in place)."""
        undo = self._undo
        assert undo, "no provisional move to restore"  # callers check provisional() first
        snap, counters = undo
        st = self.state
        st.rows[:] = [list(r) for r in snap.rows]
        for k in range(len(st.hands)):
            st.hands[k][:] = snap.hands[k]
            st.piles[k][:] = snap.piles[k]
            st.parked[k][:] = snap.parked[k]
            st.minus[k][:] = snap.minus[k]
        for k in range(len(st.char_piles)):
            st.char_piles[k][:] = snap.char_piles[k]
        st.discard[:] = snap.discard
        st.display[:] = snap.display
        st.char_deck[:] = snap.char_deck
        st.box[:] = snap.box
        st.joker = snap.joker
        st.char_plays.clear()
        st.char_plays.update(snap.char_plays)
        for a, v in zip(self._COUNTERS, counters, strict=True):
            setattr(self, a, v)
        self.phase = START
        self._undo = None

    def restored(self) -> Turn:
        """A copy of this turn with its provisional moves taken back (to check a move first)."""
        t = self.clone()
        t.log = t.on_move = None
        t._restore()
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
            self._lay(move[0], move[1])
            return
        verb = _VERBS.get(type(move))
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
                self._play(move.key, move.args, listed=True)
            else:
                verb(self, *move)
            return
        keys = classify(self.g, self, move)
        if listed and type(move) is Play:
            self._play(move.key, move.args, listed=True)
        else:
            verb(self, *move)
        count(usage, keys)

    def _after(self, move: Move) -> None:
        if self.log is not None:
            self.log.append(move)
        if self.on_move is not None:
            self.on_move(self)

    def _check_layable(self) -> None:
        if self.phase == DONE:
            raise IllegalMove("the turn is over")

    def _out_check(self) -> None:
        """Mark the seat as out of cards (the race is won, or the seat is out in solo/cooperative)."""
        g = self.g
        parked = g.parked_count and self.state.parked[self.seat]
        if not self.hand and (not self._pile or not g.win_needs_pile) and g.win_on_empty and not parked:
            self.won = True
            self.phase = DONE

    def _complete(self, r: int) -> None:
        row = self.rows[r]
        if len(row) >= self.g.full_length and self.g.is_complete(row):
            if self.state.joker is not None and any(c < 0 for c in row):
                self._joker_to(self.seat)
            self.discard.extend(c for c in row if c > 0)
            row.clear()
            self.completed += 1
            self._prune()

    def _prune(self) -> None:
        """Remove empty extra rows (beyond the row cards)."""
        rows = self.rows
        n = self.state.n_fixed
        if len(rows) > n:
            rows[n:] = [row for row in rows[n:] if row]

    def _lay(self, card: int, r: int) -> None:
        """Lay hand card ``card`` on the end of row ``r`` (see :class:`~kbsim.engine.rows.moves.Lay`)."""
        if self.phase == DONE:
            raise IllegalMove("the turn is over")
        if not 0 <= r < len(self.rows):
            raise IllegalMove(f"no row {r + 1}")
        hand = self.hand
        g = self.g
        if card not in hand:
            raise IllegalMove(f"card {g.card_text(card)} is not in hand")
        row = self.rows[r]
        if row:
            if card - row[-1] not in g.steps:
                how = self.end_fits(row[-1], card)
                if not how:
                    raise IllegalMove(
                        f"{g.card_text(card)} does not continue row {r + 1} "
                        f"(ends {g.card_text(row[-1])}): a card laid on a row end must "
                        f"follow it in sequence" + refusals.joint_hint(self, row[-1], card)
                    )
                if how == 2:
                    self.skips -= 1
        elif not g.may_open(card, r):
            raise IllegalMove(f"{g.card_text(card)} may not open empty row {r + 1} ({g.opening_text(r)})")
        if self.phase == START:
            self._lay_snapshot()
        hand.remove(card)
        row.append(card)
        self.laid += 1
        self.phase = LAYING
        if len(row) >= g.full_length:
            self._complete(r)
        if not hand and (not self._pile or not g.win_needs_pile):
            self._out_check()
        if self.log is not None or self.on_move is not None:
            self._after(Lay(card, r))

    def _lay_start(self, card: int, r: int) -> None:
        """Lay hand card ``card`` before the first card of row ``r`` (start-laying modifier)."""
        self._check_layable()
        g = self.g
        if not self.m_start:
            raise IllegalMove(
                "a card goes before the first card of a row only while a power allows it"
                + self.power_hint("modifier", "lay_at_start")
            )
        if not 0 <= r < len(self.rows) or not self.rows[r]:
            raise IllegalMove(f"row {r + 1} has no first card to lay before")
        if card not in self.hand:
            raise IllegalMove(f"card {g.card_text(card)} is not in hand")
        how = self.start_fits(self.rows[r][0], card)
        if not how:
            raise IllegalMove(
                f"{g.card_text(card)} may not go before the start of row {r + 1} (starts "
                f"{g.card_text(self.rows[r][0])}): the row must still run in sequence"
                + refusals.joint_hint(self, card, self.rows[r][0])
            )
        if how == 2:
            self.skips -= 1
        if self.phase == START:
            self._lay_snapshot()
        self.hand.remove(card)
        self.rows[r].insert(0, card)
        self.laid += 1
        self.phase = LAYING
        self._complete(r)
        self._out_check()
        self._after(LayStart(card, r))

    def _fill_gap(self, card: int, r: int) -> None:
        """Insert hand card ``card`` into a gap of row ``r`` that it exactly fills."""
        self._check_layable()
        if not 0 <= r < len(self.rows):
            raise IllegalMove(f"no row {r + 1}")
        g = self.g
        if card not in self.hand:
            raise IllegalMove(f"card {g.card_text(card)} is not in hand")
        row = self.rows[r]
        step = g.step
        for i in range(1, len(row)):
            if abs(row[i]) - abs(row[i - 1]) == 2 * step and abs(row[i - 1]) + step == card:
                break
        else:
            raise IllegalMove(
                f"row {r + 1} has no gap that {g.card_text(card)} fills: a hand card goes into a "
                f"row only into a gap left by a skipped value, and only the missing value fills it"
                + ("" if self.gaps(r) else self.power_hint("modifier", "skip_value"))
            )
        if self.phase == START:
            self._lay_snapshot()
        self.hand.remove(card)
        row.insert(i, card)
        self.laid += 1
        self.phase = LAYING
        self._complete(r)
        self._out_check()
        self._after(FillGap(card, r))

    def _swap(self, card: int) -> None:
        """Reclaim the joker with the exact hand card it stands for; it goes under this seat's character pile."""
        self._check_layable()
        g = self.g
        if self.state.joker is None:
            raise IllegalMove(
                "no joker lies in a row: a joker is reclaimed only after a power laid it" + self.power_hint("joker")
            )
        if card not in self.hand:
            raise IllegalMove(f"card {g.card_text(card)} is not in hand")
        if self.phase == START:
            self._lay_snapshot()
        for row in self.rows:
            if -card in row:
                row[row.index(-card)] = card
                break
        else:
            raise IllegalMove(
                f"the joker does not stand for {g.card_text(card)}: only the exact card it stands for reclaims it"
            )
        self.hand.remove(card)
        self._joker_to(self.seat)
        self.laid += 1
        self.phase = LAYING
        self._out_check()
        self._after(Swap(card))

    def _lay_parked(self, card: int, r: int) -> None:
        """Lay a card parked in an earlier turn on the end of row ``r`` (never into a gap or for the joker)."""
        self._check_layable()
        park = self.state.parked[self.seat]
        now = self.state.turn_no
        i = next((k for k, (c, t) in enumerate(park) if c == card and t < now), None)
        g = self.g
        if i is None:
            if any(c == card for c, _ in park):
                raise IllegalMove(
                    f"parked {g.card_text(card)} was parked this turn: a parked card is laid only in a later turn"
                )
            raise IllegalMove(
                f"no parked {g.card_text(card)}: only cards parked by a power are laid this way"
                + self.power_hint("park")
            )
        if not 0 <= r < len(self.rows):
            raise IllegalMove(f"no row {r + 1}")
        row = self.rows[r]
        how = self.end_fits(row[-1], card) if row else (1 if g.may_open(card, r) else 0)
        if not how:
            if row:
                raise IllegalMove(
                    f"parked {g.card_text(card)} does not continue row {r + 1} (ends "
                    f"{g.card_text(row[-1])}): a parked card goes only on a row end, in sequence"
                    + refusals.joint_hint(self, row[-1], card)
                )
            raise IllegalMove(f"parked {g.card_text(card)} may not open empty row {r + 1} ({g.opening_text(r)})")
        if how == 2:
            self.skips -= 1
        if self.phase == START:
            self._lay_snapshot()
        del park[i]
        row.append(card)
        self.laid += 1
        self.phase = LAYING
        self._complete(r)
        self._out_check()
        self._after(LayParked(card, r))

    def _rebuild(self, src: int, count: int, dst: int, from_start: bool = False, to_start: bool = False) -> None:
        """Move ``count`` cards from row ``src`` onto row ``dst`` (see :class:`~kbsim.engine.rows.moves.Rebuild`)."""
        if not self.can_rebuild(src, count, dst, from_start, to_start):
            raise IllegalMove(
                f"rebuild of {count} card(s) from row {src + 1} onto row {dst + 1} is not allowed: "
                + self.rebuild_refusal(src, count, dst, from_start, to_start)
            )
        if self.phase == START and self.g.provisional_moves:
            self._snapshot()
        rows = self.rows
        s = rows[src]
        d = rows[dst]
        if to_start:
            if self.start_fits(d[0], abs(s[count - 1] if from_start else s[-1]), rebuild=True) == 2:
                self.skips -= 1
        elif d and s[0 if from_start else len(s) - count] - d[-1] not in self.g.steps:
            if self.end_fits(d[-1], abs(s[0 if from_start else len(s) - count]), rebuild=True) == 2:
                self.skips -= 1
        s[:], d[:] = segment_move(s, d, count, from_start, to_start)
        self.rebuilds += 1
        self.phase = LAYING
        self._complete(dst)
        if len(rows) > self.state.n_fixed:
            self._prune()
        if self.log is not None or self.on_move is not None:
            self._after(Rebuild(src, count, dst, from_start, to_start))

    def draw_at_start(self) -> None:
        """Draw at the start of the turn (rules that refill at the start instead of the end).

        A step of the game loop (and of replays) before the seat acts, not a move: bots never call it.
        """
        self._refill()

    def _refill(self) -> None:
        g = self.g
        n = g.hand_size - len(self.hand) if g.refill_up_to else g.refill_draw
        pile, hand = self._pile, self.hand
        while n > 0 and pile:
            hand.append(pile.pop())
            n -= 1
            self.drawn += 1

    def _end(self) -> None:
        """End a lay-out turn and refill the hand."""
        if self.phase == DONE:
            raise IllegalMove("the turn is over")
        g = self.g
        if self.needed and not (not g.provisional_moves and not g.minus_allowed and self.stranded()):
            raise IllegalMove(
                f"a lay-out turn must lay at least {g.min_lay} hand card(s)"
                + (" while the draw pile holds cards" if g.min_only_while_pile else "")
                + "; a turn that lays fewer ends as an exchange, a pass or a minus-pile move, "
                "as these rules allow" + g.option_hint("turn.lay_out.min_hand_cards", allows=False)
            )
        if g.must_lay:
            pending = self._must_lay_pending()
            if pending is not None:
                raise IllegalMove(f"{g.card_text(pending)} must be laid while it can be")
        if g.refill_at_start:
            pass
        elif self.defer_draws:
            self._owed = _OWE_END
        else:
            self._refill()
            if g.must_lay_when_drawn:
                self._lay_drawn_musts()
        self.phase = DONE
        if self.log is not None or self.on_move is not None:
            self._after(END_TURN)

    def finish_draws(self) -> None:
        """Make the draws that ended the turn while :attr:`defer_draws` held them back (a step of the game loop).

        While a bot decides, the game loop masks every hidden zone in place (:mod:`kbsim.engine.rows.observe`)
        and sets :attr:`defer_draws`: the refill that ends a lay-out turn, an exchange or a minus-pile move
        (and the must-lay cards laid from what was drawn, and the out-of-cards check after a minus-pile move)
        waits until the real cards are back. Bots never call it. Does nothing when no draw is owed.
        """
        owed = self._owed
        self._owed = _OWE_NONE
        self.defer_draws = False
        if owed == _OWE_NONE:
            return
        self._refill()
        if owed == _OWE_END and self.g.must_lay_when_drawn:
            self.phase = LAYING  # (the drawn must-lay cards are laid as the end of the turn; not moves of a bot)
            self._lay_drawn_musts()
            self.phase = DONE
        elif owed == _OWE_MINUS:
            self._out_check()

    def _lay_drawn_musts(self) -> None:
        """Lay every must-lay card just drawn that can be laid, each on the first row that takes it.

        Rule file: ``must_lay_when_drawn``. Part of ending the turn, so not logged as moves.
        """
        log, self.log = self.log, None
        try:
            while self.phase != DONE:
                c = self._must_lay_pending()
                if c is None:
                    break
                self._lay(c, next(r for r in range(len(self.rows)) if self.can_lay(c, r)))
        finally:
            self.log = log

    def _take_from_hand(self, cards) -> None:
        hand = list(self.hand)
        for c in cards:
            if c not in hand:
                raise IllegalMove(f"card {c} is not in hand")
            hand.remove(c)
        self.hand[:] = hand

    def _exchange(self, cards: tuple[int, ...] | list[int]) -> None:
        """Put ``cards`` under the draw pile in the order given, refill; the turn ends."""
        g = self.g
        if self.phase != START and self.provisional:
            self.restored()._exchange(cards)  # raises, changing nothing, if the exchange is illegal
            self._restore()
        if self.phase != START:
            raise IllegalMove("an exchange must be the whole turn: cards were already laid this turn")
        if not g.exchange_allowed:
            raise IllegalMove("exchanging is not allowed in these rules" + g.option_hint("turn.exchange.allowed"))
        if g.exchange_requires_pile and not self._pile:
            raise IllegalMove(
                "exchanging needs cards in the draw pile" + g.option_hint("turn.exchange.requires_draw_pile")
            )
        if len(cards) < g.exchange_min:
            raise IllegalMove(
                f"an exchange puts at least {g.exchange_min} card(s) under the pile"
                + g.option_hint("turn.exchange.min_cards", allows=False)
            )
        self._take_from_hand(cards)
        self._pile[0:0] = reversed(cards)
        self.exchanged = len(cards)
        if self.defer_draws:
            self._owed = _OWE_EXCHANGE
        else:
            self._refill()
        self.phase = DONE
        if self.log is not None or self.on_move is not None:
            self._after(Exchange(tuple(cards)))

    def _pass_turn(self) -> None:
        """Pass (only where allowed: by default with an empty draw pile)."""
        g = self.g
        if self.phase != START and self.provisional:
            self.restored()._pass_turn()
            self._restore()
        if self.phase != START:
            raise IllegalMove("a pass must be the whole turn: cards were already laid this turn")
        if not g.pass_allowed:
            raise IllegalMove("passing is not allowed in these rules" + g.option_hint("turn.pass.allowed"))
        if g.pass_requires_empty_pile and self._pile:
            raise IllegalMove(
                "passing is allowed only with an empty draw pile" + g.option_hint("turn.pass.requires_empty_draw_pile")
            )
        self.passed = True
        self.phase = DONE
        self._after(PASS)

    def can_lay_anything(self) -> bool:
        """True if some hand or parked card can be laid now or on a board reachable by rebuilds.

        Asks the same generator that lists the legal lays (:meth:`lay_moves`: row ends, empty
        rows, starts under a start-laying modifier, gaps, the joker swap, parked cards) on the
        current board and on every board reachable by legal rebuilds from it (depth-first, on
        copies; each board once). When ``exact_search_limit`` boards were explored without an
        answer, the seat counts as stuck.
        """
        return self.lay_reachable() is True

    def stuck_here(self) -> bool:
        """True if the turn's provisional moves left it where no hand or parked card can be laid.

        Not now and not after rebuilds (:meth:`can_lay_anything` on the table as the provisional moves left it,
        with their modifiers in force); always False for a turn with no provisional move. Such a turn may end
        on the minus pile even where the table it started from allowed a lay (``turn.minus.only_when_stuck``;
        :func:`kbsim.engine.rows.movegen.minus_moves`), so that no state of a turn is a dead end.
        """
        return self.phase != START and self.provisional and not self.can_lay_anything()

    def stranded(self) -> bool:
        """True if moves are final and left this lay-out turn short of its minimum, with nothing it can lay.

        Only where moves are final (``turn.lay_out.provisional_until_laid: false``): nothing is taken back, so
        without a way out such a turn would have no legal move. It may then end on the minus pile where the
        rules have one (the solo rules: "if you cannot manage this (even after playing a character card), you
        must place one hand card on a minus pile"), otherwise by ending the turn; its moves stay made.
        """
        return (
            not self.g.provisional_moves
            and self.phase == LAYING
            and self.needed > 0
            and not self.provisional
            and not self.can_lay_anything()
        )

    def lay_reachable(self) -> bool | None:
        """Like :meth:`can_lay_anything`, but ``None`` when the search limit was reached.

        Returns:
            ``True`` (a lay is legal now or after some legal rebuilds), ``False`` (no board
            reachable by rebuilds admits a lay) or ``None`` (search limit reached).
        """
        return self.lay_path()[0]

    def lay_path(self) -> tuple[bool | None, list[Rebuild]]:
        """The search of :meth:`lay_reachable`, with the rebuilds that lead to a board admitting a lay.

        Returns:
            ``(True, rebuilds)`` (empty: a lay is legal now), ``(False, [])`` or ``(None, [])``
            (search limit reached).
        """
        if self.phase == DONE:
            return False, []
        if self.lay_moves():
            return True, []
        if not self.hand and not self.parked:
            return False, []
        if not self.g.rebuild_allowed or self.rebuilds >= self.g.max_rebuilds:
            return False, []
        g = self.g
        memo = _LAY_MEMO.get(id(g))
        if memo is None or memo[0] is not g:
            if len(_LAY_MEMO) > 8:
                _LAY_MEMO.clear()
            memo = _LAY_MEMO[id(g)] = (g, {})
        key = (
            tuple(map(tuple, self.rows)),
            tuple(sorted(self.hand)),
            tuple(sorted(self.parked)),
            self.state.joker,
            self.state.n_fixed,
            min(self.rebuilds, 1) if g.max_rebuilds > 100 else self.rebuilds,
            self.m_start,
            self.m_start_rb,
            self.m_equal,
            self.m_equal_rb,
            self.skips,
            self.m_skip_rb,
            self.skip_lo,
            self.skip_hi,
            self.bar,
        )
        found = memo[1].get(key)
        if found is None:
            if len(memo[1]) > 20000:
                memo[1].clear()
            found = memo[1][key] = self._search_lay_path()
        return found[0], list(found[1])

    def board_key(self, rows: list[list[int]]) -> tuple:
        """Rows as a search key: where every row card opens alike, their order does not matter."""
        g = self.g
        if len(set(g.row_open)) <= 1 and len(set(g.row_group)) <= 1:
            n = self.state.n_fixed
            return tuple(sorted(map(tuple, rows[:n]))), tuple(sorted(map(tuple, rows[n:])))
        return tuple(map(tuple, rows))

    def _search_lay_path(self) -> tuple[bool | None, tuple]:
        probe = self.light_copy()
        seen = {self.board_key(probe.rows)}
        stack: list[tuple[Turn, list[Rebuild]]] = [(probe, [])]
        limit = self.g.exact_search_limit
        while stack:
            t, path = stack.pop()
            for mv in t.rebuild_moves():
                nt = t.clone()
                nt._rebuild(mv.src, mv.count, mv.dst, mv.from_start, mv.to_start)
                key = self.board_key(nt.rows)
                if key in seen:
                    continue
                seen.add(key)
                if nt.lay_moves():
                    return True, (*path, mv)
                if len(seen) > limit:
                    return None, ()
                stack.append((nt, [*path, mv]))
        return False, ()

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
            "_start_empty",
        ):
            setattr(t, name, getattr(self, name))
        t.bar = self.bar
        t._undo = ()  # a search copy: rebuilds take no snapshot
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

    def _minus(self, cards: tuple[int, ...] | list[int], stuck: bool = False) -> None:
        """Put ``cards`` on this seat's minus pile (solo/cooperative), refill; the turn ends.

        The cards come from the hand; a seat with no hand card left gives parked cards instead. After
        provisional moves the table is restored first; where the minus pile is only for a seat that cannot lay,
        a seat its provisional moves left unable to lay may take it too (``stuck``, :meth:`stuck_here`; see
        :func:`kbsim.engine.rows.movegen.minus_moves`).
        """
        g = self.g
        if self.phase != START and self.provisional:
            stuck = stuck or self.stuck_here()
            self.restored()._minus(cards, stuck=stuck)  # raises, changing nothing, if illegal
            self._restore()
        if self.phase != START and not (g.minus_allowed and self.stranded()):
            raise IllegalMove("the minus pile is instead of laying: it must be the whole turn")
        if not g.minus_allowed:
            raise IllegalMove("there is no minus pile in these rules" + g.option_hint("turn.minus.allowed"))
        source = self.hand if self.hand else [c for c, _ in self.state.parked[self.seat]]
        if len(cards) != min(g.minus_cards, len(source)) or not cards:
            raise IllegalMove(
                f"put exactly {min(g.minus_cards, len(source))} card(s) on the minus pile, as these "
                f"rules say" + g.option_hint("turn.minus.cards", allows=False)
            )
        if g.minus_only_when_stuck and not stuck and self.can_lay_anything():
            raise IllegalMove(
                "a card can still be laid (now or after rebuilds), and the minus pile takes cards "
                "only from a seat that cannot lay" + g.option_hint("turn.minus.only_when_stuck")
            )
        if self.hand:
            self._take_from_hand(cards)
        else:
            park = self.state.parked[self.seat]
            for c in cards:
                i = next((k for k, (pc, _) in enumerate(park) if pc == c), None)
                if i is None:
                    raise IllegalMove(f"card {c} is not parked")
                del park[i]
        self.state.minus[self.seat].extend(cards)
        self.minus_cards += len(cards)
        self.phase = DONE
        if self.defer_draws:
            self._owed = _OWE_MINUS
        else:
            self._refill()
            self._out_check()
        self._after(Minus(tuple(cards)))

    # ----------------------------------------------------------------- characters
    def _play(self, key: str, args: tuple = (), *, listed: bool = False) -> None:
        """Play character ``key`` with one argument tuple per step of its power.

        The whole play is tried on a copy first, so an illegal argument changes nothing; with ``listed``
        (the play was listed by :meth:`play_moves` for this very position, as bots trying each listed play
        on a sandbox do) that copy is skipped.

        Raises:
            IllegalMove: characters are off, one was already played this turn, ``key`` is not
                playable by this seat now, or an argument is illegal.
        """
        avail = self.available_characters()
        if key not in avail:
            raise IllegalMove(f"character {key!r} cannot be played: {refusals.play_refusal(self, key, avail)}")
        ch = self.g.character(key)
        if len(args) != len(ch.steps):
            raise IllegalMove(
                f"{key} takes {len(ch.steps)} argument group(s), got {len(args)}: "
                + "; ".join(f"{i + 1}. {st.kind}" for i, st in enumerate(ch.steps))
            )
        if not listed:
            trial = self.clone()
            try:
                trial._play_steps(key, ch, args)
            except IllegalMove as e:
                raise IllegalMove(f"{key}'s power refuses these arguments: {e}") from None
        if self.phase == START and self.g.provisional_moves:
            self._snapshot()
        self._play_steps(key, ch, args)
        if not self.g.chars_any_turn and self.phase == START:
            self.phase = LAYING
        if self.log is not None or self.on_move is not None:  # (no move object to build for nobody)
            self._after(Play(key, tuple(args)))

    def _play_steps(self, key: str, ch: CompiledCharacter, args: tuple) -> None:
        st = self.state
        if self.g.chars_display_mode:
            st.display.remove(key)
            if st.char_deck:
                st.display.append(st.char_deck.pop())
        else:
            st.char_piles[self.seat].pop(0)
        self.chars_played += 1
        self._playing = key
        steps = ch.steps
        try:
            # (an index loop: compiled, zip(..., strict=True) and tuple() of an untyped value are generic calls)
            for i in range(len(steps)):
                a = args[i]
                steps[i].apply(self, a if isinstance(a, tuple) else tuple(a))
        finally:
            self._playing = None
        if not ch.is_joker:
            if self.g.chars_display_mode:
                st.box.append(key)
            else:
                st.char_piles[(self.seat + 1) % st.players].append(key)
        st.char_plays[(self.seat, key)] = st.char_plays.get((self.seat, key), 0) + 1

    def _joker_to(self, seat: int) -> None:
        """The joker leaves the table for ``seat``'s character pile (display mode: the deck's bottom)."""
        st = self.state
        key = st.joker
        if key is None:  # callers move the joker only when a joker mark lies in a row
            raise RuntimeError("the joker is not on the table")
        st.joker = None
        if self.g.chars_display_mode:
            st.char_deck.insert(0, key)
            while len(st.display) < self.g.chars_display and st.char_deck:
                st.display.append(st.char_deck.pop())
        else:
            st.char_piles[seat].append(key)

    def _joker_removed(self) -> None:
        """The joker was removed by a power: to the left neighbour's pile (display mode: the box)."""
        st = self.state
        key = st.joker
        if key is None:  # callers move the joker only when a joker mark lies in a row
            raise RuntimeError("the joker is not on the table")
        st.joker = None
        if self.g.chars_display_mode:
            st.box.append(key)
        else:
            st.char_piles[(self.seat + 1) % st.players].append(key)

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
        return self.phase == START and g.pass_allowed and not (g.pass_requires_empty_pile and self._pile)

    def _must_lay_pending(self) -> int | None:
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
        return self.phase != DONE and self._must_lay_pending() is None

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
            self._opponents,
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
        t._start_empty = self._start_empty
        t._playing = self._playing
        undo = self._undo
        if undo and snapshot is not None:
            undo = (snapshot(undo[0]), undo[1])
        t._undo = undo
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
        if scratch and t._undo is None:
            t._undo = ()  # (as the exact search's light copies: no snapshot is taken)
        st = t.state
        for s in range(st.players):
            st.piles[s][:] = [HIDDEN] * len(st.piles[s])
            if s != self.seat:
                st.hands[s][:] = [HIDDEN] * len(st.hands[s])
        st.char_deck[:] = [HIDDEN_CHARACTER] * len(st.char_deck)
        if t._undo:  # the snapshot of provisional moves hides the same cards
            snap = t._undo[0].copy()
            for s in range(snap.players):
                snap.piles[s][:] = [HIDDEN] * len(snap.piles[s])
                if s != self.seat:
                    snap.hands[s][:] = [HIDDEN] * len(snap.hands[s])
            snap.char_deck[:] = [HIDDEN_CHARACTER] * len(snap.char_deck)
            t._undo = (snap, t._undo[1])
        return t


_VERBS: dict[type, Callable[..., None]] = {
    Lay: Turn._lay,
    Rebuild: Turn._rebuild,
    EndTurn: Turn._end,
    Exchange: Turn._exchange,
    Pass: Turn._pass_turn,
    Play: Turn._play,
    LayStart: Turn._lay_start,
    FillGap: Turn._fill_gap,
    Swap: Turn._swap,
    LayParked: Turn._lay_parked,
    Minus: Turn._minus,
}
"""Move type -> the turn's verb for it, called with the move's fields (the dispatch of :meth:`Turn.apply`)."""


def segment_move(s, d, count: int, from_start: bool, to_start: bool):
    """The effect of a rebuild on its two rows: ``(rest of s, d with the segment joined)``.

    Works on lists or tuples (returns the same kind). The one definition of what a rebuild moves, used by
    :meth:`Turn._rebuild` (in place) and by the rebuild searches (on immutable boards).
    """
    if from_start:
        seg, rest = s[:count], s[count:]
    else:
        cut = len(s) - count
        seg, rest = s[cut:], s[:cut]
    return rest, (seg + d if to_start else d + seg)
