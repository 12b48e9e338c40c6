"""Legal moves of a market turn, as pure functions of the compiled game, the table, the seat and the phase.

Used by :class:`kbsim.engine.market.turn.MarketTurn` (which caches them) and by
anything that needs the legal moves without a turn object.
"""

from __future__ import annotations

from kbsim.engine.market.compiled import SWAP_WAGONS, TAKE_CURRENCY, TAKE_FREE, MarketGame
from kbsim.engine.market.moves import CHOOSE, CLAIM, END, RESOLVE, TAKE, Move
from kbsim.engine.market.state import MarketState, claim_cost


def take_moves(g: MarketGame, st: MarketState, seat: int, free: bool) -> list[Move]:
    """Every ``take D P`` of a face-up card ``seat`` can pay for (any face-up card when ``free``)."""
    budget = st.currency[seat]
    costs = g.costs
    return [Move("take", d, p) for d, line in enumerate(st.lines) for p, c in enumerate(line)
            if c >= 0 and (free or costs[p] <= budget)]


def resolve_moves(g: MarketGame, st: MarketState, seat: int) -> list[Move]:
    """The ways the pending character (``st.pending[-1]``) can act for ``seat``; empty when it cannot act.

    Rule implemented: the character's effect operation (``take_free``, ``take_currency``,
    ``swap_wagons``, ``take_token``) as declared in the rule file.
    """
    op = g.kinds[st.pending[-1]].op
    if op == TAKE_FREE:
        return take_moves(g, st, seat, True)
    if op == TAKE_CURRENCY:
        return [Move("steal", s) for s in range(st.players) if s != seat and st.currency[s] > 0]
    if op == SWAP_WAGONS:
        mine = [k for k in g.wagon_kinds if st.wagons[seat][k] > 0]
        return [Move("swap", k, s, j) for k in mine for s in range(st.players) if s != seat
                for j in g.wagon_kinds if st.wagons[s][j] > 0]
    return [Move("token", c) for c, n in enumerate(st.supply) if n > 0]


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
        moves = [Move("claim", i) for i, o in enumerate(st.obj_visible)
                 if o >= 0 and claim_cost(g, w, g.objectives[o]) is not None]
        moves.append(END)
        return moves
    if phase == CHOOSE:
        return [Move("choose", c) for c in st.offered[seat]]
    return []
