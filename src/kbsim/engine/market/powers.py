"""Character powers of the market family: one entry per effect operation a rule file may name.

A character's ``effect.op`` in the rule file names a :class:`Power` here. Each power
says which moves resolve it (:attr:`Power.moves`), what a move does
(:attr:`Power.act`) and how its moves are written (:attr:`Power.verb` and
:attr:`Power.args`, read by :mod:`kbsim.engine.market.notation`). The move
generator, the turn and the notation look powers up in :data:`POWERS`; none of them
branches on an operation. A new power is one entry here (and its name in the rule
file's schema, :class:`kbsim.rules.market_schema.CharacterSpec`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbsim.engine.market.compiled import SWAP_WAGONS, TAKE_CURRENCY, TAKE_FREE, TAKE_TOKEN, MarketGame
from kbsim.engine.market.moves import Move
from kbsim.engine.market.state import MarketState


@dataclass(frozen=True)
class Power:
    """One effect operation of a character.

    Attributes:
        op: its name in rule files (``effect.op``).
        verb: the move's ``op`` (the first word of the notation).
        args: the kinds of the move's arguments ``a``, ``b``, ``c`` in order: ``line`` and ``place``
            (written from 1), ``seat`` (from 0), ``wagon`` (a wagon kind's key), ``company`` (a company key).
        moves: ``moves(game, state, seat) -> list[Move]``: the ways the power can act now (empty: it is lost).
        act: ``act(turn, move)``: apply a legal move on a :class:`~kbsim.engine.market.turn.MarketTurn`.
    """

    op: str
    verb: str
    args: tuple[str, ...]
    moves: Callable[[MarketGame, MarketState, int], list[Move]]
    act: Callable[[Any, Move], None]


def face_up_takes(st: MarketState) -> list[Move]:
    """A ``take D P`` of every face-up card, whatever its cost."""
    return [Move("take", d, p) for d, line in enumerate(st.lines) for p, c in enumerate(line) if c >= 0]


def _take_free(turn: Any, move: Move) -> None:
    turn.take(move.a, move.b, free=True)


def _steal_moves(g: MarketGame, st: MarketState, seat: int) -> list[Move]:
    return [Move("steal", s) for s in range(st.players) if s != seat and st.currency[s] > 0]


def _steal(turn: Any, move: Move) -> None:
    st, me = turn.state, turn.seat
    st.currency[me] += st.currency[move.a]
    st.currency[move.a] = 0


def _swap_moves(g: MarketGame, st: MarketState, seat: int) -> list[Move]:
    mine = [k for k in g.wagon_kinds if st.wagons[seat][k] > 0]
    return [
        Move("swap", k, s, j)
        for k in mine
        for s in range(st.players)
        if s != seat
        for j in g.wagon_kinds
        if st.wagons[s][j] > 0
    ]


def _swap(turn: Any, move: Move) -> None:
    st, me = turn.state, turn.seat
    mine, other, theirs = move.a, move.b, move.c
    st.wagons[me][mine] -= 1
    st.wagons[other][mine] += 1
    st.wagons[other][theirs] -= 1
    st.wagons[me][theirs] += 1


def _token_moves(g: MarketGame, st: MarketState, seat: int) -> list[Move]:
    return [Move("token", c) for c, n in enumerate(st.supply) if n > 0]


def _token(turn: Any, move: Move) -> None:
    st = turn.state
    st.supply[move.a] -= 1
    st.tokens[turn.seat][move.a] += 1


#: Every power, by its rule-file name.
POWERS: dict[str, Power] = {
    p.op: p
    for p in (
        Power(TAKE_FREE, "take", ("line", "place"), lambda g, st, seat: face_up_takes(st), _take_free),
        Power(TAKE_CURRENCY, "steal", ("seat",), _steal_moves, _steal),
        Power(SWAP_WAGONS, "swap", ("wagon", "seat", "wagon"), _swap_moves, _swap),
        Power(TAKE_TOKEN, "token", ("company",), _token_moves, _token),
    )
}


def power(op: str) -> Power:
    """The power named ``op``.

    Raises:
        KeyError: no such power (the message lists the known ones).
    """
    try:
        return POWERS[op]
    except KeyError:
        raise KeyError(f"unknown character power {op!r}; expected one of: {', '.join(POWERS)}") from None


__all__ = ["POWERS", "Power", "face_up_takes", "power"]
