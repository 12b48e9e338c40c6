"""Character powers as compositions of generic primitives.

A character in the rule file lists its power as steps, each one primitive with
parameters (``modifier``, ``remove_from_row_end``, ``clear_row``,
``take_from_discard``, ``extra_row``, ``give_row_starts``, ``park``, ``joker``).
:func:`compile_character` turns that list into a :class:`CompiledCharacter`
whose steps are the objects below. Playing a character is the move
``Play(key, args)`` with one argument tuple per step; each step's
:meth:`Primitive.apply` checks its arguments against the rules and changes the
table through the :class:`~kbsim.engine.rows.turn.Turn`, and :meth:`Primitive.choices`
lists the legal arguments for bots.

Nothing here knows a character's name: a new character made of these
primitives needs a rule-file edit only. The primitives form a registry,
:data:`PRIMITIVES` (name -> class, a plain dict after the classes, keyed by each class's ``kind``);
each class builds itself from its validated rule-file parameters
(:meth:`Primitive.from_params`) and owns everything the primitive does on the
table (the turn's generic helpers aside), so :func:`compile_character` only
looks the step's name up. A new primitive is one class here plus its
parameters model and ``PowerStep`` field in :mod:`kbsim.rules.schema`.

Argument notation (rows numbered from 1), steps joined by the word ``then``:

=====================  =======================  =====================================
primitive              arguments                notation
=====================  =======================  =====================================
modifier               ``()``                   (nothing)
remove_from_row_end    ``(row, count)``         ``R K``
clear_row              ``(row,)``               ``R``
take_from_discard      ``((card, row), ...)``   ``C on R, C on R`` (nothing: no card)
extra_row              ``(card, ...)``          ``C ...``
give_row_starts        ``(row, ...)``           ``R R ...`` (one row per recipient)
park                   ``(card, ...)``          ``C ...``
joker                  ``(value, row)``         ``V on R``
=====================  =======================  =====================================
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from itertools import combinations
from typing import ClassVar

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.moves import DONE, LAYING
from kbsim.engine.rows.verbs import complete, joker_removed, out_check, prune, take_from_hand


class Primitive(ABC):
    """A generic power step.

    Subclasses define ``from_params``, ``choices``, ``apply``, ``parse`` and ``format``, name themselves in
    ``kind`` and are listed in :data:`PRIMITIVES`. The module is compiled with mypyc where a compiler is present:
    the flags are class variables, and every constructor argument has a default (a compiled class whose
    ``__init__`` needs an argument does not unpickle, and compiled games go to worker processes pickled).

    Attributes:
        kind: the primitive's name in rule files (a ``PowerStep`` field), the key of :data:`PRIMITIVES`.
        row_diffs: differences (between neighbouring card values) this step can leave inside a row.
        places_itself: playing the step puts the character card itself on the table (a joker); the card
            then leaves play with its row instead of passing on.
        choices_apply: ``apply`` never refuses an argument that ``choices`` listed for the same position, so
            the listing of plays (:func:`kbsim.engine.rows.movegen.play_moves`) need not try the choices of a
            power's last step on a copy of the table. Every primitive here is so marked: its ``choices`` apply
            the same tests as its ``apply`` (``tests/test_power_choices.py`` compares both listings).
        touches_rows: the step's legality or effect depends on the rows or changes them (False: it commutes
            with rebuilds; the exact stalemate search then tries it on the board as it is only).
        adds_held: the step may put cards into the player's hand or usable parked cards, or count as laid
            cards that did not come from them. No primitive here does (a run laid from hand counts its hand
            cards; parked cards wait for a later turn), so for each of them "cards laid this turn + hand
            cards + usable parked cards" cannot grow by playing it: bots bound a play's worth by that sum.
    """

    kind: ClassVar[str] = "primitive"
    row_diffs: frozenset[int] = frozenset()
    places_itself: ClassVar[bool] = False
    choices_apply: ClassVar[bool] = False
    adds_held: ClassVar[bool] = False
    touches_rows: ClassVar[bool] = True

    def most_given(self, turn) -> int:
        """At most how many cards carrying out the step hands to the other seats (0: none; for bounds).

        Args:
            turn: the turn about to play the step (read only).
        """
        return 0

    def set_aside(self, args: tuple) -> int:
        """How many of the player's held cards carrying out the step with ``args`` takes out of play this turn.

        Cards that go somewhere the player cannot lay them from this turn (0 by default; for bounds with
        ``adds_held``).
        """
        return 0

    @classmethod
    @abstractmethod
    def from_params(cls, params, model) -> Primitive:
        """Build the step from its validated rule-file parameters.

        Args:
            params: the primitive's parameters model (a field of :class:`kbsim.rules.schema.PowerStep`).
            model: the whole validated rule file (for the value range and the step of the sequence).

        Returns:
            The compiled step.
        """

    @abstractmethod
    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Legal argument tuples for this step in the turn's current position.

        Args:
            turn: the turn (read only).
            limit: list at most this many (the first ones of the full listing, in the same order); None: all.

        Returns:
            The argument tuples, in a fixed order.
        """

    @abstractmethod
    def apply(self, turn, args: tuple) -> None:
        """Carry out the step with ``args``. Raises IllegalMove if they are not legal."""

    def parse(self, text: str) -> tuple:
        """Arguments from the notation (rows 1-based)."""
        return ()

    def format(self, args: tuple) -> str:
        """Arguments in the notation."""
        return ""


def _ints(text: str) -> list[int]:
    try:
        return [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"expected numbers, got {text!r}") from None


def _remove_to_discard(turn, r: int, i: int) -> None:
    """Remove the cards of row ``r`` from index ``i`` to its end to the discard pile (the joker leaves play)."""
    row = turn.rows[r]
    removed = row[i:]
    del row[i:]
    if any(c < 0 for c in removed):
        joker_removed(turn)
    turn.discard.extend(c for c in removed if c > 0)
    prune(turn)


class ModifierStep(Primitive):
    """A rule modifier for the rest of the turn: lay at row starts, equal values, or skip one value."""

    kind: ClassVar[str] = "modifier"
    touches_rows: ClassVar[bool] = False  # (it changes what later lays and rebuilds may do, not the rows)

    def __init__(
        self,
        kind: str = "lay_at_start",
        rebuilds: bool = False,
        count: int = 0,
        lo: int = 0,
        hi: int = 0,
        step: int = 1,
    ):
        self.mod = kind
        self.rebuilds = rebuilds
        self.count = count
        self.lo, self.hi = lo, hi
        if kind == "equal_values":
            self.row_diffs = frozenset({0})
        elif kind == "skip_value":
            self.row_diffs = frozenset({2 * step})

    @classmethod
    def from_params(cls, params, model) -> ModifierStep:
        """The modifier ``kind`` and whether it also applies to rebuilds.

        For ``skip_value`` also how many skips and which values may be skipped (``skippable``; default: every
        value strictly between the lowest and the highest).
        """
        values = model.cards.values
        rng = params.skippable
        return cls(
            params.kind,
            params.rebuilds,
            params.count,
            rng.min if rng else values.min + 1,
            rng.max if rng else values.max - 1,
            model.table.rows.sequence.step,
        )

    choices_apply: ClassVar[bool] = True  # the one choice () is what apply accepts

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """A modifier takes no arguments: the one choice ``()``."""
        return [()] if limit is None or limit > 0 else []

    def apply(self, turn, args: tuple) -> None:
        """Switch the modifier on for the rest of the turn (skips add up over several plays).

        Raises:
            IllegalMove: ``args`` is not empty.
        """
        if args:
            raise IllegalMove("a modifier takes no arguments")
        if self.mod == "lay_at_start":
            turn.m_start, turn.m_start_rb = True, self.rebuilds
        elif self.mod == "equal_values":
            turn.m_equal, turn.m_equal_rb = True, self.rebuilds
        else:
            turn.skips += self.count
            turn.m_skip_rb = self.rebuilds
            turn.skip_lo, turn.skip_hi = self.lo, self.hi


class RemoveFromRowEndStep(Primitive):
    """Remove ``min``..``max`` cards from the end of any row to the discard pile."""

    kind: ClassVar[str] = "remove_from_row_end"

    def __init__(self, lo: int = 0, hi: int = 0):
        self.lo, self.hi = lo, hi

    @classmethod
    def from_params(cls, params, model) -> RemoveFromRowEndStep:
        """The card range ``min``..``max`` of the rule file."""
        return cls(params.min, params.max)

    choices_apply: ClassVar[bool] = True  # apply checks the same bounds

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every ``(row, count)`` with ``min <= count <= max`` and ``count`` at most the row's length."""
        out = [(r, k) for r, row in enumerate(turn.rows) for k in range(self.lo, min(self.hi, len(row)) + 1)]
        return out if limit is None else out[:limit]

    def apply(self, turn, args: tuple) -> None:
        """Remove the last ``count`` cards of ``row`` to the discard pile (``args`` = ``(row, count)``, row 0-based).

        Raises:
            IllegalMove: not a ``(row, count)`` pair, no such row, or ``count`` outside the range or the row.
        """
        if len(args) != 2:
            raise IllegalMove("expected (row, count)")
        r, k = args
        if not 0 <= r < len(turn.rows) or not self.lo <= k <= self.hi or k > len(turn.rows[r]):
            raise IllegalMove(f"cannot remove {k} card(s) from row {r + 1}")
        _remove_to_discard(turn, r, len(turn.rows[r]) - k)

    def parse(self, text: str) -> tuple:
        """``"R K"`` -> ``(R - 1, K)``."""
        r, k = _ints(text)
        return (r - 1, k)

    def format(self, args: tuple) -> str:
        """``(row, count)`` -> ``"R K"`` (row 1-based)."""
        return f"{args[0] + 1} {args[1]}"


class ClearRowStep(Primitive):
    """Remove every card of one row to the discard pile (the row card may be opened again at once)."""

    kind: ClassVar[str] = "clear_row"

    @classmethod
    def from_params(cls, params, model) -> ClearRowStep:
        """The primitive has no parameters."""
        return cls()

    choices_apply: ClassVar[bool] = True  # apply accepts any non-empty row

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every non-empty row, as ``(row,)``."""
        out = [(r,) for r, row in enumerate(turn.rows) if row]
        return out if limit is None else out[:limit]

    def apply(self, turn, args: tuple) -> None:
        """Remove every card of row ``args[0]`` to the discard pile.

        Raises:
            IllegalMove: ``args`` is not one existing, non-empty row.
        """
        if len(args) != 1 or not 0 <= args[0] < len(turn.rows) or not turn.rows[args[0]]:
            raise IllegalMove("expected a non-empty row")
        _remove_to_discard(turn, args[0], 0)

    def parse(self, text: str) -> tuple:
        """``"R"`` -> ``(R - 1,)``."""
        (r,) = _ints(text)
        return (r - 1,)

    def format(self, args: tuple) -> str:
        """``(row,)`` -> ``"R"`` (row 1-based)."""
        return str(args[0] + 1)


class TakeFromDiscardStep(Primitive):
    """Take ``min``..``max`` cards from the discard pile and lay each at once, legally."""

    kind: ClassVar[str] = "take_from_discard"

    def __init__(self, lo: int = 0, hi: int = 0, without_effect: bool = False):
        self.lo, self.hi = lo, hi
        self.without_effect = without_effect

    @classmethod
    def from_params(cls, params, model) -> TakeFromDiscardStep:
        """The card range ``min``..``max`` and ``without_effect_allowed`` of the rule file."""
        return cls(params.min, params.max, params.without_effect_allowed)

    @staticmethod
    def _place(turn, card: int, r: int) -> None:
        """Take ``card`` from the discard pile and lay it on the end of row ``r``."""
        if card not in turn.discard:
            raise IllegalMove(f"no {card} in the discard pile")
        if not 0 <= r < len(turn.rows):
            raise IllegalMove(f"no row {r + 1}")
        row = turn.rows[r]
        how = turn.end_fits(row[-1], card) if row else (1 if turn.g.may_open(card, r) else 0)
        if not how:
            raise IllegalMove(f"{card} from the discard pile does not fit row {r + 1}")
        if how == 2:
            turn.skips -= 1
        turn.discard.remove(card)
        row.append(card)
        complete(turn, r)

    @staticmethod
    def _possible(turn) -> bool:
        """True if some discard card can be laid now (the power can have an effect)."""
        return any(turn.can_place(c, r) for c in set(turn.discard) for r in range(len(turn.rows)))

    choices_apply: ClassVar[bool] = True  # each sequence is listed by placing its cards with apply's own _place

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every sequence of ``min``..``max`` ``(card, row)`` placements, each legal after the ones before it.

        All of them, or the first ``limit`` (the listing stops there). When no discard card fits anywhere, the
        choice is ``()`` (play to no effect) where the rules allow it, else there is none.
        """
        out: list[tuple] = []
        if not self._possible(turn):  # empty discard pile, or nothing in it fits anywhere
            return [()] if self.without_effect and (limit is None or limit > 0) else []
        cap = 10**9 if limit is None else limit
        # (placing reads and changes only the rows, the discard pile, the joker and the turn's modifiers: the
        # sequences are tried on light copies holding those)
        self._extend(out, cap, turn.light_copy(discard=True), ())
        return out[:cap]

    def _extend(self, out: list[tuple], cap: int, sb, prefix: tuple) -> None:
        """List into ``out`` the placement sequences starting with ``prefix`` (placed on ``sb``), depth-first.

        (A method, not a closure: a closure calling itself is a reference cycle, freed only by the cycle
        collector with the copies it holds.)
        """
        if len(prefix) >= self.lo:
            out.append(prefix)
        if len(prefix) == self.hi or len(out) >= cap:
            return
        last = len(prefix) + 1 == self.hi  # the placements listed here end their sequences: no copy to place on
        for card in sorted(set(sb.discard)):
            for r in range(len(sb.rows)):
                if len(out) >= cap:
                    return
                if sb.can_place(card, r):
                    if last:
                        out.append((*prefix, (card, r)))  # (what placing it on a copy and listing would add)
                        continue
                    nxt = sb.clone()
                    self._place(nxt, card, r)
                    self._extend(out, cap, nxt, (*prefix, (card, r)))

    def apply(self, turn, args: tuple) -> None:
        """Lay each ``(card, row)`` of ``args`` from the discard pile, in order; ``()`` plays the power to no effect.

        Raises:
            IllegalMove: a card is not in the discard pile or does not fit its row, the count is outside
                ``min``..``max``, or ``()`` while the rules forbid it or a discard card could be laid.
        """
        if not args:
            if not self.without_effect:
                raise IllegalMove(f"take {self.lo} to {self.hi} card(s) from the discard pile")
            if self._possible(turn):
                raise IllegalMove(
                    "a discard card can be laid, so this power must take one "
                    f"({self.lo} to {self.hi}); it may be played to no effect only when none fits"
                )
            return
        if not self.lo <= len(args) <= self.hi:
            raise IllegalMove(f"take {self.lo} to {self.hi} card(s) from the discard pile")
        for card, r in args:
            self._place(turn, card, r)

    def parse(self, text: str) -> tuple:
        """``"C on R, C on R"`` -> ``((C, R - 1), ...)``; empty text -> ``()``.

        Raises:
            ValueError: a part is not ``C on R``.
        """
        out = []
        for part in text.split(","):
            if part.strip():
                words = part.split()
                if len(words) != 3 or words[1] != "on":
                    raise ValueError(f"expected 'C on R', got {part.strip()!r}")
                out.append((int(words[0]), int(words[2]) - 1))
        return tuple(out)

    def format(self, args: tuple) -> str:
        """``((card, row), ...)`` -> ``"C on R, ..."`` (rows 1-based)."""
        return ", ".join(f"{c} on {r + 1}" for c, r in args)


class ExtraRowStep(Primitive):
    """Open an extra row with hand cards; it vanishes once empty (completed, rebuilt away or removed)."""

    kind: ClassVar[str] = "extra_row"

    def __init__(self, min_cards: int = 0):
        self.min_cards = min_cards

    @classmethod
    def from_params(cls, params, model) -> ExtraRowStep:
        """The minimum number of hand cards (``min_cards``) that open the extra row."""
        return cls(params.min_cards)

    choices_apply: ClassVar[bool] = (
        True  # runs that apply would refuse (a step the sequence does not allow) are not listed
    )

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """For each hand card that may open a row, the shortest run of ``min_cards`` hand cards it starts.

        The run climbs by the base step of the sequence; longer runs are legal in :meth:`apply` but not listed.
        """
        g = turn.g
        hand = sorted(set(turn.hand))
        out = []
        for c in hand:
            if not g.may_open(c):
                continue
            run = [c]
            while len(run) < self.min_cards and run[-1] + g.step in hand:
                run.append(run[-1] + g.step)
            if len(run) >= self.min_cards and all(run[i] - run[i - 1] in g.steps for i in range(1, len(run))):
                out.append(tuple(run))
        return out if limit is None else out[:limit]

    def apply(self, turn, args: tuple) -> None:
        """Open a new row with the hand cards ``args``, in order (they count as laid; the row may complete).

        Raises:
            IllegalMove: fewer than ``min_cards`` cards, a first card that may not open a row, a card that does
                not continue the one before it, or a card not in the hand.
        """
        if len(args) < self.min_cards:
            raise IllegalMove(f"an extra row opens with at least {self.min_cards} hand card(s)")
        g = turn.g
        if not g.may_open(args[0]):
            raise IllegalMove(f"{args[0]} may not open a row")
        for i in range(1, len(args)):
            a, b = args[i - 1], args[i]
            if b - a not in g.steps:
                raise IllegalMove(f"{b} does not continue {a} in the extra row")
        take_from_hand(turn, args)
        turn.rows.append(list(args))
        turn.laid += len(args)
        turn.phase = max(turn.phase, LAYING) if turn.phase != DONE else DONE
        complete(turn, len(turn.rows) - 1)
        out_check(turn)

    def parse(self, text: str) -> tuple:
        """``"C C ..."`` -> ``(C, C, ...)``."""
        return tuple(_ints(text))

    def format(self, args: tuple) -> str:
        """``(card, ...)`` -> ``"C C ..."``."""
        return " ".join(str(c) for c in args)


class GiveRowStartsStep(Primitive):
    """For each other player in turn order, move the first card of a chosen row onto their draw pile."""

    kind: ClassVar[str] = "give_row_starts"

    def __init__(self, solo_to_self: bool = False):
        self.solo_to_self = solo_to_self

    @classmethod
    def from_params(cls, params, model) -> GiveRowStartsStep:
        """Whether a solo player hands the one row start to themself (``solo_to_self``)."""
        return cls(params.solo_to_self)

    def most_given(self, turn) -> int:
        """One row start per other seat (none to others in solo, where the one card goes to the player)."""
        return turn.state.players - 1

    def _recipients(self, turn) -> int:
        """How many row-start cards the power hands out (one per other seat)."""
        n = turn.state.players - 1
        return n if n > 0 else (1 if self.solo_to_self else 0)

    @staticmethod
    def _give(turn, r: int, i: int) -> None:
        """Move the first card of row ``r`` onto the top of recipient ``i``'s draw pile."""
        if not 0 <= r < len(turn.rows) or not turn.rows[r]:
            raise IllegalMove(f"row {r + 1} is empty")
        row = turn.rows[r]
        if row[0] < 0:
            raise IllegalMove("the joker cannot be handed out as a row start")
        st = turn.state
        n = st.players
        seat = (turn.seat + 1 + i) % n if n > 1 else turn.seat
        st.piles[seat].append(row.pop(0))
        prune(turn)

    choices_apply: ClassVar[bool] = True  # each tuple is listed by taking the row starts as apply does

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every tuple of rows, one per recipient in turn order, each with a story card first at that point.

        All of them, or the first ``limit``. Only the rows matter to which tuples are legal, so the
        listing takes the row starts on tuples of the rows (as :meth:`_give` does, emptied extra rows
        dropped) instead of on copies of the table.
        """
        n = self._recipients(turn)
        out: list[tuple] = []
        cap = 10**9 if limit is None else limit
        _give_tuples(out, cap, n, turn.state.n_fixed, tuple(map(tuple, turn.rows)), ())
        return out

    def apply(self, turn, args: tuple) -> None:
        """Move the first card of row ``args[i]`` onto the draw pile of the ``i``-th seat after the player.

        Raises:
            IllegalMove: not one row per recipient, an empty row, or a row starting with the joker.
        """
        n = self._recipients(turn)
        if len(args) != n:
            raise IllegalMove(f"choose one row for each of the {n} recipient(s)")
        for i, r in enumerate(args):
            self._give(turn, r, i)

    def parse(self, text: str) -> tuple:
        """``"R R ..."`` -> ``(R - 1, ...)``."""
        return tuple(r - 1 for r in _ints(text))

    def format(self, args: tuple) -> str:
        """``(row, ...)`` -> ``"R R ..."`` (rows 1-based)."""
        return " ".join(str(r + 1) for r in args)


def _give_tuples(out: list[tuple], cap: int, n: int, n_fixed: int, rows: tuple, prefix: tuple) -> None:
    """List into ``out`` the tuples of ``n`` rows starting with ``prefix`` whose row starts can be handed out.

    ``rows`` are the rows (tuples) with the starts of ``prefix`` taken; depth-first, at most ``cap`` tuples.
    (A module function, not a closure: a closure calling itself is a reference cycle.)
    """
    if len(prefix) == n:
        out.append(prefix)
        return
    for r, row in enumerate(rows):
        if row and row[0] > 0 and len(out) < cap:
            nxt = (*rows[:r], row[1:], *rows[r + 1 :])
            if len(nxt) > n_fixed:  # (as verbs.prune)
                nxt = (*nxt[:n_fixed], *(x for x in nxt[n_fixed:] if x))
            _give_tuples(out, cap, n, n_fixed, nxt, (*prefix, r))


class ParkStep(Primitive):
    """Put ``min``..``max`` hand cards face up in front of you; from your next turn they may be laid at row ends."""

    kind: ClassVar[str] = "park"
    touches_rows: ClassVar[bool] = False

    choices_apply: ClassVar[bool] = True  # every listed set is held and of a count in range: apply cannot refuse it

    def __init__(self, lo: int = 0, hi: int = 0):
        self.lo, self.hi = lo, hi

    @classmethod
    def from_params(cls, params, model) -> ParkStep:
        """The card range ``min``..``max`` of the rule file."""
        return cls(params.min, params.max)

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every set of ``min``..``max`` hand cards (as sorted tuples, in sorted order)."""
        hand = sorted(turn.hand)
        out = sorted({c for k in range(self.lo, self.hi + 1) for c in combinations(hand, k)})
        return out if limit is None else out[:limit]

    def set_aside(self, args: tuple) -> int:
        """Every parked card: it may be laid only from the player's next turn."""
        return len(args)

    def apply(self, turn, args: tuple) -> None:
        """Park the hand cards ``args`` in front of the player, stamped with this turn's number.

        Raises:
            IllegalMove: the count is outside ``min``..``max`` or a card is not in the hand.
        """
        if not self.lo <= len(args) <= self.hi:
            raise IllegalMove(f"park {self.lo} to {self.hi} hand card(s)")
        take_from_hand(turn, args)
        turn.state.parked[turn.seat].extend((c, turn.state.turn_no) for c in args)

    def parse(self, text: str) -> tuple:
        """``"C C ..."`` -> ``(C, C, ...)``."""
        return tuple(_ints(text))

    def format(self, args: tuple) -> str:
        """``(card, ...)`` -> ``"C C ..."``."""
        return " ".join(str(c) for c in args)


class JokerStep(Primitive):
    """Lay the character card itself into a row as any value; it keeps that value (a joker)."""

    kind: ClassVar[str] = "joker"

    places_itself: ClassVar[bool] = True

    def __init__(self, reclaim: bool = False, completer_takes: bool = False):
        self.reclaim = reclaim
        self.completer_takes = completer_takes

    @classmethod
    def from_params(cls, params, model) -> JokerStep:
        """The joker's reclaim and completion rules of the rule file.

        ``reclaim_with_exact_card``: a seat may swap the exact card for it; ``completer_takes``: the seat that
        completes its row takes it.
        """
        return cls(params.reclaim_with_exact_card, params.completer_takes)

    choices_apply: ClassVar[bool] = True  # the values listed pass apply's tests (range, continuing the row, opening it)

    def choices(self, turn, limit: int | None = None) -> list[tuple]:
        """Every ``(value, row)`` the joker may take.

        That is the value continuing each non-empty row by the base step, and every value that may open each
        empty row.
        """
        g = turn.g
        out = []
        for r, row in enumerate(turn.rows):
            if row:
                v = abs(row[-1]) + g.step
                if g.value_min <= v <= g.value_max and v - abs(row[-1]) in g.steps:
                    out.append((v, r))
            elif g.open_any or g.open_values:
                out.extend((v, r) for v in range(g.value_min, g.value_max + 1) if g.may_open(v) and g.may_open(v, r))
        return out if limit is None else out[:limit]

    def apply(self, turn, args: tuple) -> None:
        """Lay the character card into row ``r`` as ``value`` (stored as ``-value``); it marks the joker as in play.

        Raises:
            IllegalMove: not a ``(value, row)`` pair, no such row, a value outside the range, or one that does not
                continue the row (or may not open it).
        """
        if len(args) != 2:
            raise IllegalMove("expected (value, row)")
        value, r = args
        g = turn.g
        if not 0 <= r < len(turn.rows):
            raise IllegalMove(f"no row {r + 1}")
        if not g.value_min <= value <= g.value_max:
            raise IllegalMove(f"a joker stands for a value from {g.value_min} to {g.value_max}")
        row = turn.rows[r]
        if row and value - abs(row[-1]) not in g.steps:
            raise IllegalMove(f"a joker as {value} does not continue row {r + 1}")
        if not row and not g.may_open(value, r):
            raise IllegalMove(f"a joker as {value} may not open a row")
        key = turn.playing if turn.playing is not None else next(c.key for c in g.roster if c.is_joker)
        turn.state.joker = key
        row.append(-value)
        complete(turn, r)

    def parse(self, text: str) -> tuple:
        """``"V on R"`` -> ``(V, R - 1)``.

        Raises:
            ValueError: the text is not ``V on R``.
        """
        words = text.split()
        if len(words) != 3 or words[1] != "on":
            raise ValueError(f"expected 'V on R', got {text!r}")
        return (int(words[0]), int(words[2]) - 1)

    def format(self, args: tuple) -> str:
        """``(value, row)`` -> ``"V on R"`` (row 1-based)."""
        return f"{args[0]} on {args[1] + 1}"


_PRIMITIVE_CLASSES: tuple[type[Primitive], ...] = (
    ModifierStep,
    RemoveFromRowEndStep,
    ClearRowStep,
    TakeFromDiscardStep,
    ExtraRowStep,
    GiveRowStartsStep,
    ParkStep,
    JokerStep,
)
PRIMITIVES: dict[str, type[Primitive]] = {c.kind: c for c in _PRIMITIVE_CLASSES}
if len(PRIMITIVES) != len(_PRIMITIVE_CLASSES):  # two classes claiming one rule-file name: a programming error
    raise ImportError(f"power primitives share a kind: {sorted(c.kind for c in _PRIMITIVE_CLASSES)}")
"""The rows family's power primitives: rule-file name (each class's ``kind``) -> class."""


@dataclass(frozen=True)
class CompiledCharacter:
    """A character ready to play: its rule-file key, display name and primitive steps."""

    key: str
    name: str
    steps: tuple[Primitive, ...]

    def __reduce__(self) -> tuple:
        """Pickle as the constructor and the fields in order (a frozen native class has no settable state)."""
        return (CompiledCharacter, tuple(getattr(self, f.name) for f in fields(self)))

    @property
    def row_diffs(self) -> frozenset[int]:
        """The differences between neighbouring card values that any of its steps can leave inside a row."""
        out: frozenset[int] = frozenset()
        for s in self.steps:
            out |= s.row_diffs
        return out

    @property
    def touches_rows(self) -> bool:
        """True if any of its steps reads or changes the rows (:attr:`Primitive.touches_rows`)."""
        for s in self.steps:
            if s.touches_rows:
                return True
        return False

    @property
    def is_joker(self) -> bool:
        """True if playing it puts the card itself on the table."""
        for s in self.steps:  # (a loop, not any() over a generator: read on every play)
            if s.places_itself:
                return True
        return False

    def parse_args(self, text: str) -> tuple:
        """Arguments of every step from the notation (steps joined by the word ``then``).

        Raises:
            ValueError: the text does not match the steps.
        """
        parts = [p.strip() for p in re.split(r"(?:^|\s+)then(?:\s+|$)", text.strip())] if text.strip() else []
        while len(parts) < len(self.steps):
            parts.append("")
        if len(parts) != len(self.steps):
            raise ValueError(f"{self.key} has {len(self.steps)} step(s), got {len(parts)}")
        return tuple(step.parse(part) for step, part in zip(self.steps, parts, strict=True))

    def format_args(self, args: tuple) -> str:
        """The notation of every step's arguments, joined by ``then`` (trailing steps without arguments left out).

        Args:
            args: one argument tuple per step.

        Returns:
            The text :meth:`parse_args` reads back.
        """
        parts = [step.format(a) for step, a in zip(self.steps, args, strict=True)]
        while parts and not parts[-1]:
            parts.pop()  # trailing steps without arguments are implied
        return " then ".join(parts)


def compile_character(key: str, character, model) -> CompiledCharacter:
    """Build a :class:`CompiledCharacter` from the rule file's ``characters.roster[key]``.

    Each power step is built by the primitive registered under its name (:data:`PRIMITIVES`).

    Args:
        key: the roster key.
        character: the validated :class:`~kbsim.rules.schema.Character`.
        model: the whole validated rule file (for the value range and step).

    Returns:
        The compiled character.

    Raises:
        ValueError: a step names a primitive that is not registered.
    """
    steps: list[Primitive] = []
    for ps in character.power:
        cls = PRIMITIVES.get(ps.kind)
        if cls is None:
            raise ValueError(f"{key}: unknown power primitive {ps.kind!r} (known: {', '.join(sorted(PRIMITIVES))})")
        steps.append(cls.from_params(ps.params, model))
    return CompiledCharacter(key=key, name=character.name, steps=tuple(steps))
