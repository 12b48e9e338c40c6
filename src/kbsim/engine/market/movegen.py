"""Legal moves of a market turn, as pure functions of the compiled game, the table, the seat and the phase.

Used by :class:`kbsim.engine.market.turn.MarketTurn` (which caches them) and by
anything that needs the legal moves without a turn object.
"""

from __future__ import annotations

from kbsim.engine.market.compiled import MarketGame
from kbsim.engine.market.moves import CHOOSE, CLAIM, END, RESOLVE, TAKE, Move
from kbsim.engine.market.powers import POWERS, face_up_takes
from kbsim.engine.market.state import MarketState, claim_cost


def take_moves(g: MarketGame, st: MarketState, seat: int, free: bool) -> list[Move]:
    """Every ``take D P`` of a face-up card ``seat`` can pay for (any face-up card when ``free``)."""
    if free:
        return face_up_takes(st)
    budget = st.currency[seat]
    return [
        Move("take", d, p)
        for d, line in enumerate(st.lines)
        for p, c in enumerate(line)
        if c >= 0 and g.price(d, p) <= budget
    ]


def resolve_moves(g: MarketGame, st: MarketState, seat: int) -> list[Move]:
    """The ways the pending character (``st.pending[-1]``) can act for ``seat``; empty when it cannot act.

    Rule implemented: the character's power (``effect.op`` in the rule file), from
    :data:`kbsim.engine.market.powers.POWERS`.
    """
    return POWERS[g.kinds[st.pending[-1]].op].moves(g, st, seat)


def legal_moves(g: MarketGame, st: MarketState, seat: int, phase: str) -> list[Move]:
    """Every legal move of ``seat`` in ``phase`` (``end`` is legal in the claim phase; empty once done).

    Args:
        g: compiled rules.
        st: the table.
        seat: the seat to play.
        phase: one of the phases of :mod:`kbsim.engine.market.moves`.
    """
    if phase == TAKE:
        moves = take_moves(g, st, seat, False)
        if not g.take_mandatory:
            moves.append(END)
        return moves
    if phase == RESOLVE:
        return resolve_moves(g, st, seat)
    if phase == CLAIM:
        w = st.wagons[seat]
        moves = [
            Move("claim", i)
            for i, o in enumerate(st.obj_visible)
            if o >= 0 and claim_cost(g, w, g.objectives[o]) is not None
        ]
        moves.append(END)
        return moves
    if phase == CHOOSE:
        return [Move("choose", c) for c in st.offered[seat]]
    return []
