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
primitives needs a rule-file edit only.

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
from dataclasses import dataclass
from itertools import combinations

from kbsim.engine.results import IllegalMove


class Primitive(ABC):
    """A generic power step. Subclasses define ``choices``, ``apply``, ``parse`` and ``format``."""

    kind = "primitive"
    row_diffs: frozenset[int] = frozenset()  # differences this primitive can leave inside a row

    @abstractmethod
    def choices(self, turn) -> list[tuple]:
        """Legal argument tuples for this step in the turn's current position."""

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


class ModifierStep(Primitive):
    """A rule modifier for the rest of the turn: lay at row starts, equal values, or skip one value."""

    kind = "modifier"

    def __init__(self, kind: str, rebuilds: bool, count: int, lo: int, hi: int, step: int):
        self.mod = kind
        self.rebuilds = rebuilds
        self.count = count
        self.lo, self.hi = lo, hi
        if kind == "equal_values":
            self.row_diffs = frozenset({0})
        elif kind == "skip_value":
            self.row_diffs = frozenset({2 * step})

    def choices(self, turn) -> list[tuple]:
        return [()]

    def apply(self, turn, args: tuple) -> None:
        if args:
            raise IllegalMove("a modifier takes no arguments")
        turn.add_modifier(self)


class RemoveFromRowEndStep(Primitive):
    """Remove ``min``..``max`` cards from the end of any row to the discard pile."""

    kind = "remove_from_row_end"

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi

    def choices(self, turn) -> list[tuple]:
        return [(r, k) for r, row in enumerate(turn.rows) for k in range(self.lo, min(self.hi, len(row)) + 1)]

    def apply(self, turn, args: tuple) -> None:
        if len(args) != 2:
            raise IllegalMove("expected (row, count)")
        r, k = args
        if not 0 <= r < len(turn.rows) or not self.lo <= k <= self.hi or k > len(turn.rows[r]):
            raise IllegalMove(f"cannot remove {k} card(s) from row {r + 1}")
        turn.remove_from_row(r, len(turn.rows[r]) - k)

    def parse(self, text: str) -> tuple:
        r, k = _ints(text)
        return (r - 1, k)

    def format(self, args: tuple) -> str:
        return f"{args[0] + 1} {args[1]}"


class ClearRowStep(Primitive):
    """Remove every card of one row to the discard pile (the row card may be opened again at once)."""

    kind = "clear_row"

    def choices(self, turn) -> list[tuple]:
        return [(r,) for r, row in enumerate(turn.rows) if row]

    def apply(self, turn, args: tuple) -> None:
        if len(args) != 1 or not 0 <= args[0] < len(turn.rows) or not turn.rows[args[0]]:
            raise IllegalMove("expected a non-empty row")
        turn.remove_from_row(args[0], 0)

    def parse(self, text: str) -> tuple:
        (r,) = _ints(text)
        return (r - 1,)

    def format(self, args: tuple) -> str:
        return str(args[0] + 1)


class TakeFromDiscardStep(Primitive):
    """Take ``min``..``max`` cards from the discard pile and lay each at once, legally."""

    kind = "take_from_discard"

    def __init__(self, lo: int, hi: int, without_effect: bool):
        self.lo, self.hi = lo, hi
        self.without_effect = without_effect

    @staticmethod
    def _possible(turn) -> bool:
        """True if some discard card can be laid now (the power can have an effect)."""
        return any(turn.can_place(c, r) for c in set(turn.discard) for r in range(len(turn.rows)))

    def choices(self, turn) -> list[tuple]:
        out: list[tuple] = []
        if not self._possible(turn):  # empty discard pile, or nothing in it fits anywhere
            return [()] if self.without_effect else []

        def extend(sb, prefix: tuple) -> None:
            if len(prefix) >= self.lo:
                out.append(prefix)
            if len(prefix) == self.hi or len(out) > 200:
                return
            for card in sorted(set(sb.discard)):
                for r in range(len(sb.rows)):
                    if sb.can_place(card, r):
                        nxt = sb.clone()
                        nxt.place_from_discard(card, r)
                        extend(nxt, (*prefix, (card, r)))

        extend(turn.clone(), ())
        return out

    def apply(self, turn, args: tuple) -> None:
        if not args:
            if not self.without_effect:
                raise IllegalMove(f"take {self.lo} to {self.hi} card(s) from the discard pile")
            if self._possible(turn):
                raise IllegalMove("a discard card can be laid, so this power must take one "
                                  f"({self.lo} to {self.hi}); it may be played to no effect only when none fits")
            return
        if not self.lo <= len(args) <= self.hi:
            raise IllegalMove(f"take {self.lo} to {self.hi} card(s) from the discard pile")
        for card, r in args:
            turn.place_from_discard(card, r)

    def parse(self, text: str) -> tuple:
        out = []
        for part in text.split(","):
            if part.strip():
                words = part.split()
                if len(words) != 3 or words[1] != "on":
                    raise ValueError(f"expected 'C on R', got {part.strip()!r}")
                out.append((int(words[0]), int(words[2]) - 1))
        return tuple(out)

    def format(self, args: tuple) -> str:
        return ", ".join(f"{c} on {r + 1}" for c, r in args)


class ExtraRowStep(Primitive):
    """Open an extra row with hand cards; it vanishes once empty (completed, rebuilt away or removed)."""

    kind = "extra_row"

    def __init__(self, min_cards: int):
        self.min_cards = min_cards

    def choices(self, turn) -> list[tuple]:
        g = turn.g
        hand = sorted(set(turn.hand))
        out = []
        for c in hand:
            if not g.may_open(c):
                continue
            run = [c]
            while len(run) < self.min_cards and run[-1] + g.step in hand:
                run.append(run[-1] + g.step)
            if len(run) >= self.min_cards:
                out.append(tuple(run))
        return out

    def apply(self, turn, args: tuple) -> None:
        if len(args) < self.min_cards:
            raise IllegalMove(f"an extra row opens with at least {self.min_cards} hand card(s)")
        turn.open_extra_row(args)

    def parse(self, text: str) -> tuple:
        return tuple(_ints(text))

    def format(self, args: tuple) -> str:
        return " ".join(str(c) for c in args)


class GiveRowStartsStep(Primitive):
    """For each other player in turn order, move the first card of a chosen row onto their draw pile."""

    kind = "give_row_starts"

    def __init__(self, solo_to_self: bool):
        self.solo_to_self = solo_to_self

    def choices(self, turn) -> list[tuple]:
        n = turn.recipients_for_row_starts(self.solo_to_self)
        out: list[tuple] = []

        def extend(sb, prefix: tuple) -> None:
            if len(prefix) == n:
                out.append(prefix)
                return
            for r, row in enumerate(sb.rows):
                if row and row[0] > 0 and len(out) < 300:
                    nxt = sb.clone()
                    nxt.take_row_start(r, len(prefix), self.solo_to_self)
                    extend(nxt, (*prefix, r))

        extend(turn.clone(), ())
        return out

    def apply(self, turn, args: tuple) -> None:
        n = turn.recipients_for_row_starts(self.solo_to_self)
        if len(args) != n:
            raise IllegalMove(f"choose one row for each of the {n} recipient(s)")
        for i, r in enumerate(args):
            turn.take_row_start(r, i, self.solo_to_self)

    def parse(self, text: str) -> tuple:
        return tuple(r - 1 for r in _ints(text))

    def format(self, args: tuple) -> str:
        return " ".join(str(r + 1) for r in args)


class ParkStep(Primitive):
    """Put ``min``..``max`` hand cards face up in front of you; from your next turn they may be laid at row ends."""

    kind = "park"

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi

    def choices(self, turn) -> list[tuple]:
        hand = sorted(turn.hand)
        return sorted({c for k in range(self.lo, self.hi + 1) for c in combinations(hand, k)})

    def apply(self, turn, args: tuple) -> None:
        if not self.lo <= len(args) <= self.hi:
            raise IllegalMove(f"park {self.lo} to {self.hi} hand card(s)")
        turn.park(args)

    def parse(self, text: str) -> tuple:
        return tuple(_ints(text))

    def format(self, args: tuple) -> str:
        return " ".join(str(c) for c in args)


class JokerStep(Primitive):
    """Lay the character card itself into a row as any value; it keeps that value (a joker)."""

    kind = "joker"

    def __init__(self, reclaim: bool, completer_takes: bool):
        self.reclaim = reclaim
        self.completer_takes = completer_takes

    def choices(self, turn) -> list[tuple]:
        g = turn.g
        out = []
        for r, row in enumerate(turn.rows):
            if row:
                v = abs(row[-1]) + g.step
                if g.value_min <= v <= g.value_max:
                    out.append((v, r))
            elif g.open_any or g.open_values:
                out.extend((v, r) for v in range(g.value_min, g.value_max + 1) if g.may_open(v))
        return out

    def apply(self, turn, args: tuple) -> None:
        if len(args) != 2:
            raise IllegalMove("expected (value, row)")
        turn.lay_joker(args[0], args[1])

    def parse(self, text: str) -> tuple:
        words = text.split()
        if len(words) != 3 or words[1] != "on":
            raise ValueError(f"expected 'V on R', got {text!r}")
        return (int(words[0]), int(words[2]) - 1)

    def format(self, args: tuple) -> str:
        return f"{args[0]} on {args[1] + 1}"


@dataclass(frozen=True)
class CompiledCharacter:
    """A character ready to play: its rule-file key, display name and primitive steps."""

    key: str
    name: str
    steps: tuple[Primitive, ...]

    @property
    def row_diffs(self) -> frozenset[int]:
        out: frozenset[int] = frozenset()
        for s in self.steps:
            out |= s.row_diffs
        return out

    @property
    def is_joker(self) -> bool:
        """True if playing it puts the card itself on the table."""
        return any(isinstance(s, JokerStep) for s in self.steps)

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
        parts = [step.format(a) for step, a in zip(self.steps, args, strict=True)]
        while parts and not parts[-1]:
            parts.pop()  # trailing steps without arguments are implied
        return " then ".join(parts)


def compile_character(key: str, character, model) -> CompiledCharacter:
    """Build a :class:`CompiledCharacter` from the rule file's ``characters.roster[key]``.

    Args:
        key: the roster key.
        character: the validated :class:`~kbsim.rules.schema.Character`.
        model: the whole validated rule file (for the value range and step).
    """
    step = model.table.rows.sequence.step
    vmin, vmax = model.cards.values.min, model.cards.values.max
    steps: list[Primitive] = []
    for ps in character.power:
        p = ps.params
        kind = ps.kind
        if kind == "modifier":
            rng = p.skippable
            steps.append(ModifierStep(p.kind, p.rebuilds, p.count, rng.min if rng else vmin + 1,
                                      rng.max if rng else vmax - 1, step))
        elif kind == "remove_from_row_end":
            steps.append(RemoveFromRowEndStep(p.min, p.max))
        elif kind == "clear_row":
            steps.append(ClearRowStep())
        elif kind == "take_from_discard":
            steps.append(TakeFromDiscardStep(p.min, p.max, p.without_effect_allowed))
        elif kind == "extra_row":
            steps.append(ExtraRowStep(p.min_cards))
        elif kind == "give_row_starts":
            steps.append(GiveRowStartsStep(p.solo_to_self))
        elif kind == "park":
            steps.append(ParkStep(p.min, p.max))
        elif kind == "joker":
            steps.append(JokerStep(p.reclaim_with_exact_card, p.completer_takes))
    return CompiledCharacter(key=key, name=character.name, steps=tuple(steps))
