"""An independent stalemate checker for small positions: every sequence of real turns, by brute force.

Imported by ``test_stalemate_search.py`` (not a pytest conftest). It shares nothing with the engine's search
(:mod:`kbsim.engine.rows.reach`) but the rules themselves: each turn is played move by move through
:meth:`Turn.legal_moves` and :meth:`Turn.apply`, in seat order from the seat to move, exactly as a bot would play
it (real hands and draw piles in their order, real exchanges and refills, provisional moves restored, parked
cards usable from the next turn). A position is the whole state between turns and the seat to move; every
position reachable by turns that lay nothing is visited once. The question is the rulebook's: can any turn lay a
card (or end the game by a seat running out of cards)?
"""

from __future__ import annotations

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import DONE, FillGap, Lay, LayParked, LayStart, Play, Rebuild, Swap
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn

LAYS = (Lay, LayStart, FillGap, Swap, LayParked)


class TooBig(Exception):
    """More positions than the checker's bound."""


def _key(st: GameState, seat: int) -> tuple:
    """The whole position between turns (parked cards are all usable by their owner's next turn)."""
    return (
        seat,
        tuple(map(tuple, st.rows)),
        tuple(tuple(sorted(h)) for h in st.hands),
        tuple(map(tuple, st.piles)),
        tuple(tuple(sorted(c for c, _ in p)) for p in st.parked),
        tuple(map(tuple, st.char_piles)),
        tuple(sorted(st.discard)),
        st.joker,
    )


def _fresh(st: GameState) -> GameState:
    """A copy of ``st`` between turns: turn 1, every parked card usable (stamped 0)."""
    out = st.copy()
    out.turn_no = 1
    out.parked = [[(c, 0) for c, _ in p] for p in out.parked]
    return out


def _turn_ends(game: CompiledGame, st: GameState, seat: int, budget: list[int]) -> list[GameState] | None:
    """The states after every way ``seat`` can play a whole turn laying no card; None if some turn lays one."""
    start = Turn.for_seat(game, _fresh(st), seat)
    ends: list[GameState] = []
    seen: set = set()
    stack = [start]
    while stack:
        t = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise TooBig
        moves = t.legal_moves()
        if any(type(m) in LAYS for m in moves):
            return None
        for m in moves:
            nt = t.clone()
            nt.apply(m)
            if nt.laid or nt.won:
                return None
            if nt.phase == DONE:
                ends.append(nt.state)
                continue
            if type(m) in (Rebuild, Play):
                key = (
                    _key(nt.state, seat),
                    nt.phase,
                    nt.chars_played,
                    nt.m_start,
                    nt.m_equal,
                    nt.skips,
                    nt.provisional,
                )
                if key not in seen:
                    seen.add(key)
                    stack.append(nt)
    return ends


def brute_lay_possible(game: CompiledGame, state: GameState, seat: int = 0, max_work: int = 200_000) -> bool | None:
    """Whether some sequence of real turns from ``state`` (``seat`` to move) lays a card or empties a seat.

    Args:
        game: compiled rules.
        state: the position between turns (not changed).
        seat: the seat to move.
        max_work: most turn states explored in all.

    Returns:
        True (a turn can lay a card, or a seat can run out of cards), False (every position reachable by turns
        that lay nothing was visited, and none can), None (more work than ``max_work``).
    """
    budget = [max_work]
    first = _fresh(state)
    seen = {_key(first, seat)}
    frontier = [(first, seat)]
    try:
        while frontier:
            st, k = frontier.pop()
            ends = _turn_ends(game, st, k, budget)
            if ends is None:
                return True
            nxt = (k + 1) % st.players
            for e in ends:
                key = _key(e, nxt)
                if key not in seen:
                    seen.add(key)
                    frontier.append((_fresh(e), nxt))
    except TooBig:
        return None
    return False
