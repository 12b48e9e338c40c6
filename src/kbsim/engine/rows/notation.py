"""The compact text notation for boards, hands and moves.

Used by rule-file examples, ``kbsim replay`` output and ``kbsim solve``.

Cards and rows
    A list of values separated by spaces; ``a-b`` is the run from a to b
    (``3-5`` = ``3 4 5``). An empty row is ``_`` or the empty string. Rows
    are numbered from 1, left to right. In a row, ``E7`` is the joker (Edgar)
    standing for 7; a gap left by a skipped value shows as a jump
    (``3 5 6``: the 4 is missing) and a duplicate as a repeat (``2-4 4``).

Moves (one per string)
    ``lay C on R``              lay hand card C on row R
    ``rebuild R from V on S``   move row R's cards from its card V to its end onto row S
    ``rebuild R last K on S``   move the last K cards of row R onto row S
    ``rebuild R first K on S``  move the first K cards of row R onto row S (start segments)
    ``rebuild R last K before start of S``  the same, before the first card of row S (start-laying power)
    ``exchange C C ...``        put these hand cards under the draw pile, in this order
    ``pass``                    pass the turn
    ``end``                     end a lay-out turn
    ``lay C at start of R``     lay hand card C before the first card of row R (start-laying power)
    ``fill C in R``             put hand card C into the gap of row R it fills
    ``swap C``                  reclaim the joker with the exact hand card C
    ``lay parked C on R``       lay a parked card C on row R
    ``minus C``                 put hand card C on the minus pile (solo/cooperative)
    ``play KEY ARGS``           play character KEY; ARGS per :mod:`kbsim.engine.rows.powers`
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kbsim.engine.rows.moves import (
    END_TURN,
    PASS,
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

if TYPE_CHECKING:
    from kbsim.engine.rows.compiled import CompiledGame


class NotationError(ValueError):
    """Text that is not valid notation; the message quotes it and says what was expected."""


def parse_cards(text: str, game: CompiledGame | None = None) -> list[int]:
    """Parse ``"3 4 5"``, ``"3-5"`` or ``"_"`` into a list of cards.

    With a ``game`` whose deck has suits, each token is a card like ``10H``,
    ``KS`` or ``AD`` (value name or number, then the suit's symbol).

    Raises:
        NotationError: a token that is not a card.
    """
    out: list[int] = []
    suited = game is not None and bool(game.suit_codes)
    for tok in text.replace(",", " ").split():
        if tok == "_":
            continue
        if suited and game is not None:
            try:
                out.append(game.parse_card(tok))
            except (ValueError, StopIteration):
                symbols = "".join(sym for sym, _, _ in game.suit_codes)
                raise NotationError(
                    f"{tok!r} in {text!r}: expected a card like 10{symbols[:1]} "
                    f"(value or {', '.join(n for _, n in game.value_names)}, then one of "
                    f"{symbols})"
                ) from None
            continue
        if tok[:1] in ("E", "e") and tok[1:].isdigit():
            out.append(-int(tok[1:]))
            continue
        try:
            if "-" in tok[1:]:
                if tok.startswith("-"):
                    raise ValueError(tok)  # a negative start is no run
                a, b = tok.split("-", 1)
                lo, hi = int(a), int(b)
                step = 1 if hi >= lo else -1
                out.extend(range(lo, hi + step, step))
            else:
                out.append(int(tok))
        except (TypeError, ValueError):
            raise NotationError(f"{tok!r} in {text!r}: expected a card value like 7 or a run like 3-5") from None
    return out


def format_cards(cards: list[int] | tuple[int, ...], game: CompiledGame | None = None) -> str:
    """Inverse of :func:`parse_cards`: ``[3, 4, 5, 9]`` -> ``"3-5 9"``; a joker ``-7`` -> ``"E7"``; empty -> ``"_"``.

    With a ``game`` whose deck has suits every card is written out (``KS QH``).
    """
    if not cards:
        return "_"
    if game is not None and game.suit_codes:
        return " ".join(game.card_text(c) for c in cards)
    parts = []
    i = 0
    while i < len(cards):
        if cards[i] < 0:
            parts.append(f"E{-cards[i]}")
            i += 1
            continue
        j = i
        while j + 1 < len(cards) and cards[j + 1] > 0 and cards[j + 1] == cards[j] + 1:
            j += 1
        parts.append(str(cards[i]) if j == i else f"{cards[i]}-{cards[j]}")
        i = j + 1
    return " ".join(parts)


def _card(token: str, game: CompiledGame | None) -> int:
    """One card token (``7``, ``E7``, ``10H``) of the notation; a suited deck's cards need ``game``."""
    if game is not None and game.suit_codes:
        try:
            return game.parse_card(token)
        except (ValueError, StopIteration):
            raise NotationError(f"{token!r}: not a card of this deck") from None
    if token[:1] in ("E", "e") and token[1:].isdigit():
        return -int(token[1:])
    return int(token)


def _parse_lay(words: list[str], text: str, rows: list[list[int]] | None, game: CompiledGame | None) -> Move | None:
    """``lay C at start of R``, ``lay parked C on R`` or ``lay C on R``; None if the words are none of them."""
    if len(words) == 6 and words[2:5] == ["at", "start", "of"]:
        return LayStart(int(words[1]), int(words[5]) - 1)
    if len(words) == 5 and words[1] == "parked" and words[3] == "on":
        return LayParked(int(words[2]), int(words[4]) - 1)
    if len(words) == 4 and words[2] == "on":
        return Lay(_card(words[1], game), int(words[3]) - 1)
    return None


def _parse_play(words: list[str], text: str, rows: list[list[int]] | None, game: CompiledGame | None) -> Move | None:
    """``play KEY ARGS``: character KEY of ``game``'s roster with its power's arguments parsed by the character."""
    if len(words) < 2:
        return None
    key = words[1]
    if game is None:
        raise NotationError(f"{text!r}: character moves need the rules")
    try:
        ch = game.character(key)
    except KeyError:
        known = ", ".join(c.key for c in game.roster) or "none (characters are off)"
        raise NotationError(f"{text!r}: unknown character {key!r}; expected one of: {known}") from None
    try:
        return Play(key, ch.parse_args(" ".join(words[2:])))
    except ValueError as e:
        raise NotationError(f"{text!r}: {e}") from None


def _parse_rebuild(words: list[str], text: str, rows: list[list[int]] | None, game: CompiledGame | None) -> Move | None:
    """``rebuild R last K|first K before start of S`` or ``rebuild R from V|last K|first K on S``.

    ``from V`` takes row R's cards from its last card of value V to its end, so it needs ``rows`` (0-based).

    Raises:
        NotationError: ``from V`` names a value that row R does not hold (or ``rows`` is missing).
    """
    if len(words) == 8 and words[4:7] == ["before", "start", "of"]:
        src, how, k, dst = int(words[1]) - 1, words[2], int(words[3]), int(words[7]) - 1
        if how in ("last", "first"):
            return Rebuild(src, k, dst, how == "first", True)
        return None
    if len(words) != 6 or words[4] != "on":
        return None
    src, how, dst = int(words[1]) - 1, words[2], int(words[5]) - 1
    n = _card(words[3], game) if how == "from" else int(words[3])
    if how == "last":
        return Rebuild(src, n, dst)
    if how == "first":
        return Rebuild(src, n, dst, True)
    if how == "from":
        if rows is None or not 0 <= src < len(rows) or n not in rows[src]:
            raise NotationError(f"{text!r}: row {src + 1} holds no card {words[3]}")
        row = rows[src]
        idx = len(row) - 1 - row[::-1].index(n)
        return Rebuild(src, len(row) - idx, dst)
    return None


_Parser = Callable[[list[str], str, "list[list[int]] | None", "CompiledGame | None"], "Move | None"]

# One parser per first word (lower case); a parser returns None when the words fit none of its forms.
_PARSERS: dict[str, _Parser] = {
    "lay": _parse_lay,
    "fill": lambda w, t, r, g: FillGap(int(w[1]), int(w[3]) - 1) if len(w) == 4 and w[2] == "in" else None,
    "swap": lambda w, t, r, g: Swap(int(w[1])) if len(w) == 2 else None,
    "minus": lambda w, t, r, g: Minus(tuple(parse_cards(" ".join(w[1:]), g))) if len(w) >= 2 else None,
    "play": _parse_play,
    "rebuild": _parse_rebuild,
    "exchange": lambda w, t, r, g: Exchange(tuple(parse_cards(" ".join(w[1:]), g))) if len(w) >= 2 else None,
    "pass": lambda w, t, r, g: PASS if len(w) == 1 else None,
    "end": lambda w, t, r, g: END_TURN if len(w) == 1 else None,
}


def parse_move(text: str, rows: list[list[int]] | None = None, game: CompiledGame | None = None) -> Move:
    """Parse one move of the notation (the forms are listed in this module's docstring).

    Args:
        text: one move, e.g. ``"lay 7 on 2"`` or ``"rebuild 1 from 5 on 3"`` (rows numbered from 1).
        rows: the rows before the move, 0-based lists of cards; needed only for ``rebuild R from V``.
        game: the compiled rules (:class:`~kbsim.engine.rows.compiled.CompiledGame`); needed for
            ``play KEY ARGS`` and for the cards of a suited deck.

    Returns:
        The move, with rows 0-based.

    Raises:
        NotationError: the text is not a move, ``from V`` names a value not in row R, or a
            character is unknown or its arguments do not parse.
    """
    words = text.split()
    if not words:
        raise NotationError("empty move")
    parser = _PARSERS.get(words[0].lower())
    move: Move | None = None
    try:
        if parser is not None:
            move = parser(words, text, rows, game)
    except ValueError as e:
        if isinstance(e, NotationError):
            raise
        raise NotationError(f"{text!r}: expected numbers where the notation has them") from None
    if move is not None:
        return move
    raise NotationError(
        f"{text!r}: expected 'lay C on R', 'rebuild R from V|last K|first K on S', "
        f"'rebuild R last K|first K before start of S', "
        f"'exchange C ...', 'pass', 'end', 'lay C at start of R', 'fill C in R', 'swap C', "
        f"'lay parked C on R', 'minus C' or 'play KEY ARGS'"
    )


def _format_rebuild(move: Rebuild, rows_before: list[list[int]] | None, game: CompiledGame | None) -> str:
    """A rebuild as ``from V`` when ``rows_before`` shows that V names the segment unambiguously, else by count."""
    if move.to_start:
        how = "first" if move.from_start else "last"
        return f"rebuild {move.src + 1} {how} {move.count} before start of {move.dst + 1}"
    if move.from_start:
        return f"rebuild {move.src + 1} first {move.count} on {move.dst + 1}"
    if rows_before is not None and 0 < move.count <= len(rows_before[move.src]):
        row = rows_before[move.src]
        v = row[-move.count]
        # `from V` names the last V of the row; with duplicates, only when that is the segment's first card
        if len(row) - 1 - row[::-1].index(v) == len(row) - move.count:
            v_text = game.card_text(v) if game is not None else format_cards([v])
            return f"rebuild {move.src + 1} from {v_text} on {move.dst + 1}"
    return f"rebuild {move.src + 1} last {move.count} on {move.dst + 1}"


def format_move(move: Move, rows_before: list[list[int]] | None = None, game: CompiledGame | None = None) -> str:
    """Render a move in the notation (the inverse of :func:`parse_move`).

    Args:
        move: the move, rows 0-based.
        rows_before: the rows before the move (0-based lists of cards); with them a rebuild is written
            ``from V`` where that is unambiguous, else ``last K``.
        game: the compiled rules; renders character arguments and the cards of a suited deck.

    Returns:
        The move's text, rows numbered from 1.

    Raises:
        NotationError: ``move`` is not a move.
    """

    def c(card: int) -> str:
        return game.card_text(card) if game is not None else format_cards([card])

    match move:
        case LayStart():
            return f"lay {move.card} at start of {move.row + 1}"
        case FillGap():
            return f"fill {move.card} in {move.row + 1}"
        case Swap():
            return f"swap {move.card}"
        case LayParked():
            return f"lay parked {move.card} on {move.row + 1}"
        case Minus():
            return "minus " + " ".join(str(x) for x in move.cards)
        case Play():
            args = game.character(move.key).format_args(move.args) if game is not None else repr(move.args)
            return f"play {move.key} {args}".rstrip()
        case Lay():
            return f"lay {c(move.card)} on {move.row + 1}"
        case Rebuild():
            return _format_rebuild(move, rows_before, game)
        case Exchange():
            return "exchange " + " ".join(c(x) for x in move.cards)
        case Pass():
            return "pass"
        case EndTurn():
            return "end"
    raise NotationError(f"not a move: {move!r}")
