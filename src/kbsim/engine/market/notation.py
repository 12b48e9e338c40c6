"""The market move notation: :func:`parse_market_move` and its inverse :func:`format_market_move`."""

from __future__ import annotations

from kbsim.engine.market.compiled import MarketGame
from kbsim.engine.market.moves import END, Move


class MarketNotationError(ValueError):
    """A move or card written in a way the market notation does not accept."""


def parse_market_move(text: str, g: MarketGame) -> Move:
    """Parse a move of the market notation.

    Forms: ``take D P`` (deck line D, place P, both from 1), ``claim N`` (face-up
    objective N from 1, or an objective id), ``end``, ``choose CONTRACT``,
    ``steal SEAT``, ``swap MYWAGON SEAT THEIRWAGON``, ``token COMPANY``; seats from 0.

    Raises:
        MarketNotationError: unknown form or name.
    """
    parts = text.split()
    if not parts:
        raise MarketNotationError("empty move")
    op, args = parts[0].lower(), parts[1:]
    try:
        if op == "take" and len(args) == 2:
            return Move("take", int(args[0]) - 1, int(args[1]) - 1)
        if op == "claim" and len(args) == 1:
            return Move("claim", int(args[0]) - 1) if args[0].isdigit() else Move("claim", -2, g.objective_index(
                args[0]))
        if op == "end" and not args:
            return END
        if op == "choose" and len(args) == 1:
            return Move("choose", g.contract_index(args[0]))
        if op == "steal" and len(args) == 1:
            return Move("steal", int(args[0]))
        if op == "swap" and len(args) == 3:
            return Move("swap", g.kind_index(args[0]), int(args[1]), g.kind_index(args[2]))
        if op == "token" and len(args) == 1:
            return Move("token", g.company_index(args[0]))
    except (KeyError, ValueError) as e:
        raise MarketNotationError(f"{text!r}: unknown name or number {e}") from None
    raise MarketNotationError(f"{text!r}: expected take D P, claim N, end, choose ID, steal SEAT, "
                              f"swap WAGON SEAT WAGON or token COMPANY")


def format_market_move(move: Move, g: MarketGame) -> str:
    """A move in the market notation (inverse of :func:`parse_market_move`)."""
    op = move.op
    if op == "take":
        return f"take {move.a + 1} {move.b + 1}"
    if op == "claim":
        return f"claim {move.a + 1}"
    if op == "choose":
        return f"choose {g.contracts[move.a].key}"
    if op == "steal":
        return f"steal {move.a}"
    if op == "swap":
        return f"swap {g.kinds[move.a].key} {move.b} {g.kinds[move.c].key}"
    if op == "token":
        return f"token {g.companies[move.a]}"
    return op

