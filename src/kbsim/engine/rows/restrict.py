"""Restricted play in the rows family: a seat barred from a kind of move, enforced by the engine.

Restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović, "Evaluating competitive game balance with
restricted play", AIIDE 2012) measures what a rule, power or option is worth to a player: a seat whose player may
not make one kind of move plays against players who may, on the same deals with the seats rotated, and the change
of its win rate is what that kind of move is worth to it.

A **bar** is a set of move kinds, named by the rule-usage counters of :mod:`kbsim.engine.rows.usage` (each is the
rule-file path of the rule that allows the move, or a character's key): ``characters.play.agatha`` (playing
Mother Agatha), ``characters.enabled`` (playing any character), ``turn.exchange.allowed`` (exchanging),
``turn.lay_out.rebuild.segments`` (rebuilding the first cards of a row), ``turn.lay_out.rebuild.into_empty_row``,
``turn.minus.allowed``, ``powers.equal_values`` and the other power counters (:func:`barrable` lists them for a
set of rules). A bar is declared on the seat's bot, with the parameter every bot of every family accepts
(``planner(bar=[characters.play.agatha])``, :mod:`kbsim.bots.spec`); the game loop reads it from the bot
(its ``bar`` attribute) and the engine enforces it on that seat's turns (:func:`bar_turn`):

* a move that :func:`~kbsim.engine.rows.usage.classify` puts under a barred counter is illegal for the seat:
  :meth:`Turn.apply <kbsim.engine.rows.turn.Turn.apply>` refuses it with a message naming the bar, and the
  turn's listings and legality tests (``legal_moves``, ``lay_moves``, ``can_lay``, ``can_rebuild``,
  ``available_characters``, ``can_end``...) leave it out, so a bot built on them never tries it;
* a bar on a counter that is a compiled rule switch (:data:`SWITCHES`: start segments, rebuilds into empty rows,
  passing with a draw pile, the minus pile, exchanging) also gives the seat's turns the rules with that switch
  off (:func:`narrowed`), so the bots' searches, which read the compiled rules, plan under the bar too;
* **the bar yields** in a turn in which it would leave the seat no legal way to finish the turn: that turn is
  played without the bar, and counted (the ``bar_yields`` record column). A seat barred from exchanging, for
  example, still exchanges in the turns where it can lay no card and may not pass.

A bar naming a move kind that the rules in force never allow changes nothing (the game is the unbarred game).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kbsim.engine.restrict import CHARACTER_PLAY, CHARACTERS
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.turn import Turn
from kbsim.engine.rows.usage import (
    AT_START,
    COUNTERS,
    EQUAL,
    EXCHANGE,
    FILL_GAP,
    INTO_EMPTY,
    JOKER_SWAP,
    MIN_HAND_CARDS,
    MINUS,
    PARKED,
    PASS_WITH_PILE,
    SEGMENTS,
    SKIP,
)

#: Counters that are compiled rule switches, with the fields (and values) that switch them off: a bar on one
#: gives the barred seat's turns the rules with it off. The engine's classification agrees with the switch: every
#: move the switch allows is classified under the counter, and no other.
SWITCHES: dict[str, tuple[tuple[str, Any], ...]] = {
    SEGMENTS: (("rebuild_from_start", False),),
    INTO_EMPTY: (("rebuild_into_empty", False),),
    PASS_WITH_PILE: (("pass_requires_empty_pile", True),),
    MINUS: (("minus_allowed", False),),
    EXCHANGE: (("exchange_allowed", False),),
}

#: What a bar on each fixed counter keeps a seat from doing (for messages and reports).
KINDS: dict[str, str] = {
    SEGMENTS: "rebuilding the first cards of a row",
    INTO_EMPTY: "rebuilding onto an empty row card",
    MIN_HAND_CARDS: "ending a turn with rebuilds but no card laid",
    PASS_WITH_PILE: "passing while its draw pile holds cards",
    MINUS: "putting cards on the minus pile",
    EQUAL: "laying or rebuilding onto an equal value",
    SKIP: "skipping a value",
    AT_START: "laying or rebuilding before the first card of a row",
    FILL_GAP: "filling a gap",
    JOKER_SWAP: "reclaiming the joker",
    PARKED: "laying a parked card",
    CHARACTERS: "playing any character",
    EXCHANGE: "exchanging",
}

_NARROWED: dict[tuple[int, frozenset[str]], tuple[CompiledGame, CompiledGame]] = {}  # (id(game), bar) -> narrowed


def barrable(game: CompiledGame) -> dict[str, str]:
    """The move kinds a bar may name under these rules (whether or not the rules in force allow them), in words.

    Args:
        game: compiled rules (rows family).

    Returns:
        Move kind -> what a bar on it keeps a seat from doing (``characters.play.agatha`` -> ``playing Mother
        Agatha``): the fixed counters of :data:`kbsim.engine.rows.usage.COUNTERS`, ``turn.exchange.allowed``,
        then ``characters.play.<key>`` for every character of the roster, in rule-file order.
    """
    out = {k: KINDS[k] for k in (*COUNTERS, EXCHANGE)}
    out.update((CHARACTER_PLAY + c.key, f"playing {c.name}") for c in game.roster)
    return out


def narrowed(game: CompiledGame, bar: frozenset[str]) -> CompiledGame:
    """The rules as a seat barred from ``bar`` plays them: every rule switch of :data:`SWITCHES` in the bar off.

    Kept per (rules, bar) for the game loop's turns (the object stays the same, so the engine's caches by rules
    keep working); ``game`` itself when the bar names no switch the rules have on.

    Args:
        game: compiled rules.
        bar: the seat's bar.

    Returns:
        A compiled game equal to ``game`` but for the switched-off fields.
    """
    key = (id(game), bar)
    hit = _NARROWED.get(key)
    if hit is not None and hit[0] is game:
        return hit[1]
    changes = {name: value for k in bar for name, value in SWITCHES.get(k, ()) if getattr(game, name) != value}
    out = replace(game, **changes) if changes else game
    if len(_NARROWED) >= 64:
        _NARROWED.clear()
    _NARROWED[key] = (game, out)
    return out


def _finishable(turn: Turn) -> bool:
    """Whether the turn, as it stands (with its bar), has a legal way to be finished: cheap tests first."""
    if turn.can_exchange() or turn.can_pass():
        return True
    if turn.g.minus_allowed and turn.minus_moves():
        return True
    return turn.can_finish()


def bar_turn(turn: Turn, game: CompiledGame, bar: frozenset[str]) -> bool:
    """Put ``turn`` (a seat's fresh turn, before its bot acts) under the seat's ``bar``, unless the bar yields.

    The turn gets the rules with the bar's switches off (:func:`narrowed`) and the bar itself
    (:attr:`Turn.bar <kbsim.engine.rows.turn.Turn.bar>`). When the barred turn has no legal way to be finished
    (no exchange, pass or minus-pile move, and no way to lay out that the bar allows:
    :meth:`~kbsim.engine.rows.turn.Turn.can_finish`), the bar yields: the turn keeps the rules in force and no bar.

    Args:
        turn: the turn, at its start (its draws at the start made).
        game: the rules in force.
        bar: the seat's bar (not empty).

    Returns:
        True when the bar yielded (the turn is played unbarred).
    """
    turn.g = narrowed(game, bar)
    turn.bar = bar
    if _finishable(turn):
        return False
    turn.g = game
    turn.bar = None
    return True


__all__ = ["KINDS", "SWITCHES", "bar_turn", "barrable", "narrowed"]
