"""The market move notation: :func:`parse_market_move` and its inverse :func:`format_market_move`."""

from __future__ import annotations

from kbsim.engine.market.compiled import MarketGame
from kbsim.engine.market.moves import END, Move
from kbsim.engine.market.powers import POWERS


class MarketNotationError(ValueError):
    """A move or card written in a way the market notation does not accept."""


#: How each kind of move argument is written: kind -> (write(value, game), read(text, game)).
ARGUMENTS = {
    "line": (lambda v, g: str(v + 1), lambda x, g: int(x) - 1),
    "place": (lambda v, g: str(v + 1), lambda x, g: int(x) - 1),
    "seat": (lambda v, g: str(v), lambda x, g: int(x)),
    "wagon": (lambda v, g: g.kinds[v].key, lambda x, g: g.kind_index(x)),
    "company": (lambda v, g: g.companies[v], lambda x, g: g.company_index(x)),
    "contract": (lambda v, g: g.contracts[v].key, lambda x, g: g.contract_index(x)),
}
_CORE = {"take": ("line", "place"), "end": (), "choose": ("contract",)}


def move_forms() -> dict[str, tuple[str, ...]]:
    """Every move form but ``claim``: verb -> argument kinds (the turn's moves, then each power's)."""
    forms = dict(_CORE)
    for p in POWERS.values():
        forms.setdefault(p.verb, p.args)
    return forms


def parse_market_move(text: str, g: MarketGame) -> Move:
    """Parse a move of the market notation.

    Forms: ``take D P`` (deck line D, place P, both from 1), ``claim N`` (face-up
    objective N from 1, or an objective id), ``end``, ``choose CONTRACT``,
    ``steal SEAT``, ``swap MYWAGON SEAT THEIRWAGON``, ``token COMPANY``; seats from 0.

    The character powers' forms come from :data:`kbsim.engine.market.powers.POWERS`.

    Raises:
        MarketNotationError: unknown form or name.
    """
    parts = text.split()
    if not parts:
        raise MarketNotationError("empty move")
    op, args = parts[0].lower(), parts[1:]
    forms = move_forms()
    try:
        if op == "claim" and len(args) == 1:
            return (
                Move("claim", int(args[0]) - 1) if args[0].isdigit() else Move("claim", -2, g.objective_index(args[0]))
            )
        if op in forms and len(args) == len(forms[op]):
            if op == "end":
                return END
            return Move(op, *(ARGUMENTS[kind][1](x, g) for kind, x in zip(forms[op], args, strict=True)))
    except (KeyError, ValueError) as e:
        raise MarketNotationError(f"{text!r}: unknown name or number {e}") from None
    shown = [" ".join([verb, *(k.upper() for k in kinds)]) for verb, kinds in forms.items()]
    raise MarketNotationError(f"{text!r}: expected {', '.join(shown[:1] + ['claim N'] + shown[1:-1])} or {shown[-1]}")


def format_market_move(move: Move, g: MarketGame) -> str:
    """A move in the market notation (inverse of :func:`parse_market_move`)."""
    op = move.op
    if op == "claim":
        return f"claim {move.a + 1}"
    kinds = move_forms().get(op, ())
    return " ".join([op, *(ARGUMENTS[k][0](v, g) for k, v in zip(kinds, move[1:], strict=False))])
