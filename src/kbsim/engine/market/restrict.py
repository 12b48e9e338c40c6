"""Restricted play in the market family: a seat barred from taking character cards.

The move kinds a market bot's ``bar`` may name (:func:`barrable`): ``characters.enabled`` (taking any character
card, which then acts) and ``characters.play.<key>`` (taking that character), as in the rows family
(:mod:`kbsim.engine.restrict`). :class:`~kbsim.engine.market.turn.MarketTurn` enforces the bar of its seat
(:attr:`MarketTurn.bar <kbsim.engine.market.turn.MarketTurn.bar>`): its legal moves leave out every take
:func:`classify` puts under a barred kind, and :meth:`~kbsim.engine.market.turn.MarketTurn.apply` refuses one.
**The bar yields** at a decision whose every legal move it would bar (a mandatory take where only barred
characters can be paid for): the moves are then legal after all, and the turn counts as one in which the bar
yielded.
"""

from __future__ import annotations

from kbsim.engine.market.compiled import CHARACTER, MarketGame
from kbsim.engine.market.moves import Move
from kbsim.engine.market.state import MarketState
from kbsim.engine.restrict import CHARACTER_PLAY, CHARACTERS


def barrable(game: MarketGame) -> dict[str, str]:
    """The move kinds a bar may name under these rules, in words: any character, then each character kind by key."""
    out = {CHARACTERS: "taking any character"}
    out.update((CHARACTER_PLAY + k.key, f"taking the {k.name}") for k in game.kinds if k.role == CHARACTER)
    return out


def classify(game: MarketGame, state: MarketState, move: Move) -> tuple[str, ...]:
    """The move kinds of ``move`` a bar may name: a take of a character card is ``characters.enabled`` and its key.

    Args:
        game: compiled rules.
        state: the table before the move (read only).
        move: a move of the market family.

    Returns:
        ``(characters.enabled, characters.play.<key>)`` for a take of a face-up character card, else ``()``.
    """
    if move.op != "take" or not (0 <= move.a < len(state.lines) and 0 <= move.b < len(state.lines[move.a])):
        return ()
    card = state.lines[move.a][move.b]
    if card < 0 or game.kinds[card].role != CHARACTER:
        return ()
    return (CHARACTERS, CHARACTER_PLAY + game.kinds[card].key)


def barred(game: MarketGame, state: MarketState, move: Move, bar: frozenset[str]) -> str:
    """The kind of ``move`` that ``bar`` names, or ""."""
    for k in classify(game, state, move):
        if k in bar:
            return k
    return ""


__all__ = ["barrable", "barred", "classify"]
