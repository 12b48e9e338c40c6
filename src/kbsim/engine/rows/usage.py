"""Rule usage: which optional rule, option or power made each taken move legal.

A designer comparing two variants needs to know that the bots actually made the moves that tell the
variants apart; "no difference" means nothing when the variant's rule was never used. This module
classifies one move, before it is applied, into the *usage counters* it exercises. The counters are
named after the rule-file path of the rule that allows the move (so a report can match them against the
paths a variant or option changes); power-granted moves are named after the power primitive, and
character plays after the character key. Nothing here compares against a game, character or card name:
every decision reads the compiled rules and the move.

Counters (:data:`COUNTERS` lists the fixed ones):

``turn.lay_out.rebuild.segments``
    a rebuild moving the *first* cards of a row (not the whole row): needs ``segments: either``.
``turn.lay_out.rebuild.into_empty_row``
    a rebuild onto an empty row card (a split, or a whole pile into an empty slot).
``turn.lay_out.min_hand_cards``
    a lay-out turn ended having laid no hand card while the minimum was 0 (a rebuild-only turn).
``turn.pass.requires_empty_draw_pile``
    a pass while the draw pile still held cards.
``turn.minus.allowed``
    a move to the minus pile (solo and cooperative).
``powers.equal_values`` / ``powers.skip_value``
    a lay or rebuild whose joint is an equal value / a skipped value (a modifier power).
``powers.lay_at_start``
    a lay or rebuild before the first card of a row (a start-laying modifier).
``powers.fill_gap``, ``powers.joker_swap``, ``powers.parked_lay``
    filling a gap, reclaiming the joker, laying a parked card.
``characters.enabled`` and ``characters.play.<key>``
    each character play (all characters, and per character key).
``turn.exchange.allowed``
    an exchange. Classified for restricted play (a seat barred from exchanging,
    :mod:`kbsim.engine.rows.restrict`) but never counted: records count each seat's exchanges in their
    ``exchanges`` column (:data:`UNCOUNTED`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kbsim.engine.restrict import CHARACTER_PLAY, CHARACTERS
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import (
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

if TYPE_CHECKING:  # turn.py imports this module
    from kbsim.engine.rows.turn import Turn

SEGMENTS = "turn.lay_out.rebuild.segments"
INTO_EMPTY = "turn.lay_out.rebuild.into_empty_row"
MIN_HAND_CARDS = "turn.lay_out.min_hand_cards"
PASS_WITH_PILE = "turn.pass.requires_empty_draw_pile"
MINUS = "turn.minus.allowed"
EQUAL = "powers.equal_values"
SKIP = "powers.skip_value"
AT_START = "powers.lay_at_start"
FILL_GAP = "powers.fill_gap"
JOKER_SWAP = "powers.joker_swap"
PARKED = "powers.parked_lay"
EXCHANGE = "turn.exchange.allowed"

#: Counters :func:`classify` returns that :func:`count` leaves out: move kinds a bar may name whose uses the records
#: already hold in a column of their own (``exchanges``).
UNCOUNTED = frozenset((EXCHANGE,))

#: The counters of moves a power allows.
POWER_COUNTERS = (EQUAL, SKIP, AT_START, FILL_GAP, JOKER_SWAP, PARKED)
#: The fixed counters (character counters ``characters.play.<key>`` come on top, one per key played).
COUNTERS = (
    SEGMENTS,
    INTO_EMPTY,
    MIN_HAND_CARDS,
    PASS_WITH_PILE,
    MINUS,
    EQUAL,
    SKIP,
    AT_START,
    FILL_GAP,
    JOKER_SWAP,
    PARKED,
    CHARACTERS,
)


def declared_optional(counter: str, option_paths: Iterable[str]) -> bool:
    """Whether ``counter`` counts a rule its game's own file declares optional.

    That is a counter named after the path of one of the file's options (or a path below one), a power, or a
    character (the file's characters are played only by choosing them, e.g. with a variant). A rule the base
    rules simply allow (a game whose turns need lay no minimum of cards, with no option to change that) is not
    optional: a run that never used it says nothing about it.

    Args:
        counter: a usage counter name (:data:`COUNTERS`, ``characters.play.<key>``).
        option_paths: the ``path`` of every option the game's rule file declares.
    """
    if counter == CHARACTERS or counter.startswith(CHARACTER_PLAY) or counter in POWER_COUNTERS:
        return True
    return any(counter == p or counter.startswith(p + ".") for p in option_paths)


def _joint(game: CompiledGame, lower: int, upper: int) -> tuple[str, ...]:
    """The power counter a joint ``lower`` -> ``upper`` needs (empty when the base steps allow it)."""
    d = abs(upper) - abs(lower)
    if d in game.steps:
        return ()
    if d == 0:
        return (EQUAL,)
    if d == 2 * game.step:
        return (SKIP,)
    return ()


def _row(turn: Turn, i: int) -> list[int] | None:
    """Row ``i`` of the turn, or None when ``i`` is out of range (a move the caller will refuse)."""
    rows = turn.rows
    return rows[i] if 0 <= i < len(rows) else None


def _lay(game: CompiledGame, turn: Turn, move: Lay) -> tuple[str, ...]:
    """A lay on the end of a row: the joint it makes may need a modifier power (nothing for an empty row)."""
    row = _row(turn, move.row)
    return _joint(game, row[-1], move.card) if row else ()


def _rebuild(game: CompiledGame, turn: Turn, move: Rebuild) -> tuple[str, ...]:
    """A rebuild: start segments, moves before a row's first card, into an empty row, and the joint it makes.

    Rule file: ``turn.lay_out.rebuild.segments`` (the first ``count`` cards of ``src``, not the whole row),
    ``turn.lay_out.rebuild.into_empty_row``, and the modifier powers for the joint at the destination.
    """
    rows = turn.rows
    if not (0 <= move.src < len(rows) and 0 <= move.dst < len(rows)):
        return ()
    keys: list[str] = []
    s, d = rows[move.src], rows[move.dst]
    if move.from_start and move.count < len(s):
        keys.append(SEGMENTS)
    if move.to_start:
        keys.append(AT_START)
        if d and s:
            last = s[move.count - 1] if move.from_start else s[-1]
            keys.extend(_joint(game, last, d[0]))
    elif not d:
        keys.append(INTO_EMPTY)
    elif s and move.count <= len(s):
        first = s[0] if move.from_start else s[len(s) - move.count]
        keys.extend(_joint(game, d[-1], first))
    return tuple(keys)


def _lay_start(game: CompiledGame, turn: Turn, move: LayStart) -> tuple[str, ...]:
    """A lay before a row's first card: the start-laying power, and the joint it makes with that card."""
    row = _row(turn, move.row)
    return (AT_START, *_joint(game, move.card, row[0])) if row else (AT_START,)


def _lay_parked(game: CompiledGame, turn: Turn, move: LayParked) -> tuple[str, ...]:
    """A parked card laid on the end of a row: the park power, and the joint it makes."""
    row = _row(turn, move.row)
    return (PARKED, *(_joint(game, row[-1], move.card) if row else ()))


def _play(game: CompiledGame, turn: Turn, move: Play) -> tuple[str, ...]:
    """A character play: all characters, and this character's key."""
    return (CHARACTERS, CHARACTER_PLAY + move.key)


def _pass(game: CompiledGame, turn: Turn, move: Pass) -> tuple[str, ...]:
    """A pass while the draw pile still holds cards (``turn.pass.requires_empty_draw_pile`` is false)."""
    return (PASS_WITH_PILE,) if turn.pile_size else ()


def _exchange(game: CompiledGame, turn: Turn, move: Exchange) -> tuple[str, ...]:
    """An exchange (``turn.exchange.allowed``): for bars only, never counted (:data:`UNCOUNTED`)."""
    return (EXCHANGE,)


def _end_turn(game: CompiledGame, turn: Turn, move: EndTurn) -> tuple[str, ...]:
    """A lay-out turn ended with rebuilds but no laid card, where ``min_hand_cards`` is 0."""
    return (MIN_HAND_CARDS,) if game.min_lay == 0 and turn.laid == 0 and turn.rebuilds else ()


def _fixed(key: str) -> Callable[[CompiledGame, Turn, Any], tuple[str, ...]]:
    """A classifier for a move kind that always exercises the one counter ``key``."""
    keys = (key,)
    return lambda game, turn, move: keys


#: Move kind -> its classifier (a kind not listed exercises no counter). Looked up by the
#: exact type of the move (moves are never subclassed), which is what :func:`classify` did by ``type(move) is``.
_CLASSIFIERS: dict[type, Callable[[CompiledGame, Turn, Any], tuple[str, ...]]] = {
    Lay: _lay,
    Rebuild: _rebuild,
    LayStart: _lay_start,
    FillGap: _fixed(FILL_GAP),
    Swap: _fixed(JOKER_SWAP),
    LayParked: _lay_parked,
    Minus: _fixed(MINUS),
    Play: _play,
    Pass: _pass,
    EndTurn: _end_turn,
    Exchange: _exchange,
}


def classify(game: CompiledGame, turn: Turn, move: Move) -> tuple[str, ...]:
    """The usage counters that ``move`` exercises if applied now to ``turn``.

    Each move kind has its own test (see the module docstring for the counters and the rule-file paths they
    are named after); the decision reads only the compiled rules, the table and the move.

    Args:
        game: the compiled rules of the turn.
        turn: the :class:`~kbsim.engine.rows.turn.Turn` *before* the move (read only).
        move: the move about to be applied (assumed legal; an illegal move is not counted by the caller).

    Returns:
        Counter keys (see the module docstring), possibly empty (a move the default rules allow).
    """
    f = _CLASSIFIERS.get(type(move))
    return f(game, turn, move) if f is not None else ()


def enabled(game: CompiledGame) -> tuple[str, ...]:
    """The fixed counters whose moves the compiled rules permit at all.

    For example ``turn.lay_out.rebuild.segments`` only when rebuilds may move the first cards of a row.
    Records list each of them, with 0 uses if the bots never made such a move, so a report can tell "allowed
    but never used" from "not allowed".

    Args:
        game: compiled rules (rows family).

    Returns:
        Counter keys, in :data:`COUNTERS` order.
    """
    on = {
        SEGMENTS: game.rebuild_allowed and game.rebuild_from_start and not game.rebuild_whole_only,
        INTO_EMPTY: game.rebuild_allowed and game.rebuild_into_empty,
        MIN_HAND_CARDS: game.rebuild_allowed and game.min_lay == 0,
        PASS_WITH_PILE: game.pass_allowed and not game.pass_requires_empty_pile,
        MINUS: game.minus_allowed,
        CHARACTERS: game.chars_enabled,
    }
    return tuple(k for k in COUNTERS if on.get(k))


#: Counters whose *chances* are counted too: the turns at whose start the rule made some rebuild legal. They tell
#: "the bots could have used the rule and never chose to" from "the position never arose".
CHANCES = (SEGMENTS, INTO_EMPTY)


def watched(usage: dict[str, int]) -> tuple[str, ...]:
    """The counters of ``usage`` (the enabled ones) whose chances a game counts (:data:`CHANCES`)."""
    return tuple(k for k in CHANCES if k in usage)


def chances(game: CompiledGame, turn: Turn, keys: tuple[str, ...]) -> set[str]:
    """The counters among ``keys`` that some legal rebuild exercises at this point of ``turn``.

    Args:
        game: the compiled rules of the turn.
        turn: a :class:`~kbsim.engine.rows.turn.Turn` (read only), normally at the start of the seat's turn.
        keys: counters to look for (from :func:`watched`).

    Returns:
        The subset of ``keys`` for which some move of ``turn.rebuild_moves()`` needs that rule.
    """
    found: set[str] = set()
    for mv in turn.rebuild_moves():
        found.update(k for k in classify(game, turn, mv) if k in keys)
        if len(found) == len(keys):
            break
    return found


def record(usage: dict[str, int], legal: dict[str, int] | None = None) -> list[dict]:
    """The ``rule_usage`` record column of one game: ``[{rule, uses, legal_turns}]`` sorted by rule.

    Args:
        usage: counter -> uses (:attr:`kbsim.engine.rows.game.GameResult.rule_usage`; starts with every
            :func:`enabled` counter at 0, so "allowed but never used" shows as 0 uses).
        legal: counter -> turns at whose start the rule made a rebuild legal, for the :data:`CHANCES` counters
            (:attr:`~kbsim.engine.rows.game.GameResult.rule_legal`); other counters get None (not counted).

    Returns:
        One ``{"rule": counter, "uses": n, "legal_turns": n or None}`` dict per counter, sorted by counter name.
    """
    legal = legal or {}
    return [{"rule": k, "uses": v, "legal_turns": legal.get(k)} for k, v in sorted(usage.items())]


def count(usage: dict[str, int], keys: Iterable[str]) -> None:
    """Add one use of each key to ``usage`` (mutated), except the :data:`UNCOUNTED` ones."""
    for k in keys:
        if k not in UNCOUNTED:
            usage[k] = usage.get(k, 0) + 1


def merge(total: dict[str, int], part: dict[str, int]) -> dict[str, int]:
    """Add the counts of ``part`` into ``total`` (mutated and returned)."""
    for k, v in part.items():
        total[k] = total.get(k, 0) + v
    return total


__all__ = [
    "CHANCES",
    "COUNTERS",
    "EXCHANGE",
    "UNCOUNTED",
    "chances",
    "classify",
    "count",
    "enabled",
    "merge",
    "record",
    "watched",
]
