"""What one seat may see of a market game: its bot is handed a masked copy of the turn, kept in step with the game.

A market bot decides from what its seat may see: the face-up market lines, the face-up objectives, every seat's
face-up cards (wagons, currency, tokens, claimed objectives), the box, the size of every face-down deck, its own
contracts (and those it was offered and put back), and what the public history revealed: cards that were face up
when a reset put them under a deck (``deck_seen``, ``obj_seen`` of the
:class:`~kbsim.engine.market.state.MarketState`). Hidden: the order and content of every face-down deck and of the
objective deck, the other seats' contracts and offers, the undealt contracts.

Design: a market turn turns up cards while the seat still decides (a take refills the line, an event resets the
market or the objectives, a claim reveals the next objective), so the zones cannot simply stay masked until the
turn ends, as the rows family does (:mod:`kbsim.engine.rows.observe`). The game loop therefore hands the bot a
second :class:`~kbsim.engine.market.turn.MarketTurn` over a masked copy of the table (:func:`masked`): the bot reads
it and lists its legal moves as usual; its :meth:`~kbsim.engine.market.turn.MarketTurn.apply` passes the move to the
real turn, which checks and makes it, and the view is then remade from the table, masked again
(:func:`handed`). The view shares the table's public zones (read only, as every zone a bot reads) and holds
masked copies of the hidden ones; its one path to the real table is the game loop's relay (a closure, which a
bot must not open: the observation tests catch one that does). Remaking the view costs a few small lists per
move. :attr:`MarketTurn.seen` carries the turn-loop counts
(:class:`MarketContext`) that :func:`kbsim.engine.market.forward.determinize` needs to go on from the view.
"""

from __future__ import annotations

from typing import NamedTuple

from kbsim.engine.market.compiled import HIDDEN
from kbsim.engine.market.moves import CLAIM, TAKE, Move
from kbsim.engine.market.state import MarketState
from kbsim.engine.market.turn import MarketTurn


class MarketContext(NamedTuple):
    """The turn-loop counts every seat knows at the start of a turn (see :class:`~kbsim.engine.market.game.MarketPlay`).

    Attributes:
        choosing: the turn is a contract choice at setup (the counts below are then those before the first turn).
        turns: turns played before this one (contract choices are not turns).
        trigger_seat: the seat that triggered the end, or None.
        remaining: turns left in the final round once triggered, else None.
        idle: turns in a row in which nothing was taken or claimed (the stall guard).
        passes: per seat, turns in which it took nothing.
        bars: per seat, the move kinds its player is barred from (restricted play, declared with the players, so
            everybody knows them), or None when no seat is barred.
    """

    choosing: bool
    turns: int
    trigger_seat: int | None
    remaining: int | None
    idle: int
    passes: tuple[int, ...]
    bars: tuple[frozenset[str] | None, ...] | None = None


_PHASE_ONLY_END = (TAKE, CLAIM)
"""Phases in which the ``end`` move only moves the turn to its next phase (:meth:`MarketTurn.apply`)."""


def masked(st: MarketState, seat: int, *, share: bool = False) -> MarketState:
    """A copy of ``st`` as ``seat`` sees it: hidden cards are ``HIDDEN`` placeholders, sizes unchanged.

    Decks and the objective deck keep only their ``deck_seen`` / ``obj_seen`` bottom cards; other seats' contracts
    and offers are placeholders; the contract box shows only the contracts ``seat`` put back.

    Args:
        st: the table (not changed).
        seat: the seat whose view is made.
        share: the view's public zones are ``st``'s own lists (read them only; the view a bot is handed, kept up
            to date by :func:`refresh`) instead of copies.

    Returns:
        The masked state (``hidden`` set, as a sandbox's).
    """
    if share:
        v = MarketState.__new__(MarketState)
        v.rng = None
        v.contracts = list(st.contracts)
        v.offered = list(st.offered)
        v.returned = list(st.returned)
        _share_public(v, st)
        v.deck_seen = list(st.deck_seen)  # (own copies: refresh compares them with the table's)
        v.obj_seen = st.obj_seen
    else:
        v = st.copy()
    v.hidden = True
    v.decks = [_masked_deck(st.decks[d], st.deck_seen[d]) for d in range(len(st.decks))]
    v.obj_deck = _masked_deck(st.obj_deck, st.obj_seen)
    for s in range(st.players):
        if s != seat:
            v.contracts[s] = [HIDDEN] * len(st.contracts[s])
            v.offered[s] = [HIDDEN] * len(st.offered[s])
            v.returned[s] = []
    v.contract_box = _masked_box(st, seat)
    return v


def refresh(v: MarketState, st: MarketState, seat: int) -> None:
    """Bring ``v`` (made by :func:`masked` with ``share``) up to date with ``st`` after a move.

    Only the masked zones whose size or known part changed are rebuilt (a take turns up a card from a deck; a
    contract choice fills the box).
    """
    _share_public(v, st)
    decks, seen, vdecks, vseen = st.decks, st.deck_seen, v.decks, v.deck_seen
    for d in range(len(decks)):
        deck = decks[d]
        if len(vdecks[d]) != len(deck) or vseen[d] != seen[d]:
            vdecks[d] = _masked_deck(deck, seen[d])
            vseen[d] = seen[d]
    # (an objective reset that puts the face-up objectives under the deck and turns up as many keeps the deck's
    # length: the view's own seen count tells that case apart, so _share_public must not overwrite it)
    if len(v.obj_deck) != len(st.obj_deck) or v.obj_seen != st.obj_seen:
        v.obj_deck = _masked_deck(st.obj_deck, st.obj_seen)
        v.obj_seen = st.obj_seen
    if len(v.contract_box) != len(st.contract_box) or len(v.returned[seat]) != len(st.returned[seat]):
        v.contract_box = _masked_box(st, seat)
    contracts, offered, vcontracts, voffered = st.contracts, st.offered, v.contracts, v.offered
    for s in range(len(contracts)):
        if s == seat:
            voffered[s] = offered[s]
            vcontracts[s] = contracts[s]
            v.returned[s] = st.returned[s]
        else:
            if len(vcontracts[s]) != len(contracts[s]):
                vcontracts[s] = [HIDDEN] * len(contracts[s])
            if len(voffered[s]) != len(offered[s]):
                voffered[s] = [HIDDEN] * len(offered[s])


def _share_public(v: MarketState, st: MarketState) -> None:
    """Point the public zones of ``v`` at those of ``st`` (the table may have replaced a list since)."""
    v.lines = st.lines
    v.box = st.box
    v.wagons = st.wagons
    v.currency = st.currency
    v.tokens = st.tokens
    v.supply = st.supply
    v.obj_visible = st.obj_visible
    v.obj_box = st.obj_box
    v.claimed = st.claimed
    v.pending = st.pending
    v.open_lines = st.open_lines


def _masked_deck(deck: list[int], seen: int) -> list[int]:
    """A face-down deck as everybody sees it: its ``seen`` bottom cards, then placeholders."""
    return deck[:seen] + [HIDDEN] * (len(deck) - seen) if seen else [HIDDEN] * len(deck)


def _masked_box(st: MarketState, seat: int) -> list[int]:
    """The contract box as ``seat`` sees it: the contracts it put back, then placeholders."""
    mine = st.returned[seat]
    return mine + [HIDDEN] * (len(st.contract_box) - len(mine))


def handed(turn: MarketTurn, context: MarketContext, last: MarketState | None = None) -> MarketTurn:
    """The turn handed to the seat's bot: ``turn`` over a masked copy of its table, relaying every move to ``turn``.

    Args:
        turn: the real turn (on the game's table), with the game loop's log and checks.
        context: the turn-loop counts at its start.
        last: the masked table of this seat's previous view (made with ``share``), brought up to date instead of
            made anew (the game loop keeps one per seat).

    Returns:
        The view; applying a move to it applies the move to ``turn`` (which raises
        :class:`~kbsim.engine.results.IllegalMove` if it is not legal) and then shows the table as it is now.
    """
    seat = turn.seat
    if last is None:
        last = masked(turn.state, seat, share=True)
    else:
        refresh(last, turn.state, seat)
    view = turn.on_state(last)
    view.seen = context
    view.listed_moves = list(turn.legal_moves())  # (listed once, on the table: the list depends on public zones only)

    def relay(move: Move) -> None:
        # ending the take or claim phase changes only the phase (the table is as the view shows it); any other move
        # may turn up cards, so the view is brought up to date
        same_table = move.op == "end" and turn.phase in _PHASE_ONLY_END
        turn.apply(move)
        if not same_table:
            refresh(view.state, turn.state, seat)
        view.phase = turn.phase
        view.took = turn.took
        view.claims = turn.claims
        view.lost = turn.lost
        view.resolved = list(turn.resolved)
        view.listed_moves = list(turn.legal_moves())

    view.relay = relay
    return view


__all__ = ["MarketContext", "handed", "masked", "refresh"]
