"""No state of a turn is a dead end: ``Turn.legal_moves`` is never empty while the turn is on.

Rule file, clarification "A turn that lays nothing": moves made before the turn's minimum of hand cards is laid
stay provisional, and such a turn may still end as an exchange, a pass or a minus-pile move with the table
restored, so from every state of a turn there is a legal way to finish it. In solo and cooperative play there is
no exchange and no pass, and the minus pile is only for a seat that cannot lay: a seat that *could* lay at the
start of its turn, and whose rebuilds and character plays then left it unable to lay, had no legal move at all
(found in a solo game: a rebuild emptied a row, then Gytha laid a discard card on it). The solo rules say what
then happens: "if you cannot manage this (even after playing a character card), you must place one hand card on
a minus pile"; the engine restores the table as for every turn that lays nothing.

The property test walks random legal moves from positions of real games (solo, cooperative, the complete game,
with options that change the turn's minimum) and checks at every step that the turn is over or some move is
listed, and that every listed move applies.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest_characters import make_state, rules, turn_of
from kbsim.bots import make_bot
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import END_TURN, LayParked, Minus, Play, Rebuild
from kbsim.engine.rows.turn import DONE, START, Turn


def _gytha_dead_end(**options) -> Turn:
    """Solo, seed 3, turn 8 of a random game: rebuilding 8-10 onto 6-7 empties a row; Gytha then lays the discard
    pile's 10 on it and its 4 on 2-3, and no hand card (1 3 6 6 6 7) fits anywhere any more."""
    g = rules("solo", **options)
    s = make_state(
        ["8-10", "8-10", "2-3", "12", "6-7", "4"],
        ["1 3 6 6 6 7"],
        ["5 5 5"],
        discard="4 10",
        display=["gytha", "ragna", "agatha"],
        char_deck=["edgar", "wilwulf"],
        turn_no=8,
    )
    return turn_of(g, s, 0)


def test_solo_turn_left_unable_to_lay_by_its_provisional_moves_may_take_the_minus_pile():
    t = _gytha_dead_end()
    start_rows = [list(r) for r in t.rows]
    assert t.can_lay_anything() and t.minus_moves() == []  # a lay is reachable: no minus pile at the start
    t.apply(Rebuild(1, 3, 4))
    t.apply(Play("gytha", (((4, 2), (10, 1)),)))
    assert t.provisional and not t.lay_moves() and not t.can_lay_anything()
    moves = t.legal_moves()
    assert moves, "a provisional turn left unable to lay had no legal move"
    assert {m for m in moves if isinstance(m, Minus)} == {Minus((c,)) for c in (1, 3, 6, 7)}
    t.apply(Minus((1,)))
    assert t.phase == DONE and t.state.minus[0] == [1] and sorted(t.hand) == [3, 5, 6, 6, 6, 7]
    assert t.rows == start_rows and t.state.display == ["gytha", "ragna", "agatha"]  # the table restored


def test_minus_pile_still_refused_to_a_provisional_turn_that_can_lay():
    t = _gytha_dead_end()
    t.apply(Rebuild(1, 3, 4))  # row 2 is empty now: every hand card can open it
    assert t.provisional and t.lay_moves()
    assert t.minus_moves() == [] and not any(isinstance(m, Minus) for m in t.legal_moves())
    with pytest.raises(IllegalMove, match="minus pile"):
        t.apply(Minus((1,)))


def test_a_first_lay_short_of_the_minimum_is_provisional_whatever_its_kind():
    """Solo with a minimum of two cards a turn: a parked card (which counts as laid) is the only card that fits;
    laid, it left the turn one card short with nothing more to lay. Only hand-card lays on row ends took the
    snapshot that makes a turn's moves provisional, so no move was left (a greedy solo game stopped on it)."""
    g = rules("solo", min_hand_cards=2)
    s = make_state(["5-6", "4-8", "11-13", "11-13", "5-6", "1-2"], ["1 2 6 6 12 12"], ["3 3"], turn_no=9)
    s.parked[0] = [(9, 4)]
    t = turn_of(g, s, 0)
    assert t.legal_moves() and t.minus_moves() == []  # the parked 9 can be laid: no minus pile yet
    t.apply(LayParked(9, 1))
    assert t.provisional and t.needed == 1 and not t.can_lay_anything()
    assert {m for m in t.legal_moves() if isinstance(m, Minus)} == {Minus((c,)) for c in (1, 2, 6, 12)}
    t.apply(Minus((12,)))
    assert t.phase == DONE and s.parked[0] == [(9, 4)] and s.rows[1] == [4, 5, 6, 7, 8]  # the lay taken back


def test_where_moves_are_final_a_turn_they_left_unable_to_lay_still_ends_keeping_them():
    """``provisional_moves: false``: nothing is taken back. Solo: the minus pile, as the solo rules say ("even
    after playing a character card"), the table as the moves left it; the race game (no minus pile): the turn
    may end. Both had no legal move."""
    solo = _gytha_dead_end(provisional_moves=False)
    solo.apply(Rebuild(1, 3, 4))
    solo.apply(Play("gytha", (((4, 2), (10, 1)),)))
    assert not solo.provisional and solo.stranded() and not solo.can_end()
    assert {m for m in solo.legal_moves() if isinstance(m, Minus)} == {Minus((c,)) for c in (1, 3, 6, 7)}
    rows = [list(r) for r in solo.rows]
    solo.apply(Minus((7,)))
    assert solo.phase == DONE and solo.state.minus[0] == [7] and solo.rows == rows and "gytha" not in solo.state.display

    g = rules("characters", provisional_moves=False)
    s = make_state(
        ["8-10", "8-10", "2-3", "12", "6-7", "4"],
        ["1 3 6 6 6 7", "2 2"],
        ["5 5 5", "9"],
        discard="4 10",
        char_piles=[["gytha"], ["ragna"]],
        turn_no=8,
    )
    race = turn_of(g, s, 0)
    race.apply(Rebuild(1, 3, 4))
    race.apply(Play("gytha", (((4, 2), (10, 1)),)))
    assert race.stranded() and race.needed == 1
    assert [m for m in race.legal_moves() if not isinstance(m, Rebuild)] == [END_TURN]
    race.apply(END_TURN)
    assert race.phase == DONE and race.rows[1] == [10] and race.laid == 0


def test_turns_that_can_still_lay_are_never_stranded():
    t = _gytha_dead_end(provisional_moves=False)
    t.apply(Rebuild(1, 3, 4))  # an empty row: every hand card can open it
    assert not t.stranded() and not t.can_end() and t.minus_moves() == []
    with pytest.raises(IllegalMove):
        t.apply(END_TURN)


class _Found(Exception):
    """Stops a game once the walk has been made."""


class _WalkAt:
    """A greedy seat that, at its turn ``at``, makes random walks over ``legal_moves`` on copies of the turn."""

    def __init__(self, at: int, walk_seed: int, walks: int = 6, steps: int = 30) -> None:
        self.inner = make_bot("greedy")
        self.at, self.rng, self.walks, self.steps = at, random.Random(walk_seed), walks, steps
        self.turns = 0
        self.checked = 0

    def new_game(self, game, seat, players, seed):
        self.inner.new_game(game, seat, players, seed)

    def play_turn(self, turn: Turn) -> None:
        self.turns += 1
        if self.turns == self.at:
            for _ in range(self.walks):
                self._walk(turn.clone())
            raise _Found
        self.inner.play_turn(turn)

    def _walk(self, t: Turn) -> None:
        path = []
        for _ in range(self.steps):
            if t.phase == DONE:
                return
            moves = t.legal_moves()
            assert moves, f"no legal move in a turn that is not over, after {path}"
            self.checked += 1
            # a kind of move first (lays would swamp the rebuilds and plays that lead into dead ends)
            kinds: dict[str, list] = {}
            for m in moves:
                kinds.setdefault(type(m).__name__, []).append(m)
            move = self.rng.choice(self.rng.choice(sorted(kinds.items()))[1])
            if isinstance(move, Play):
                t.apply(move, listed=True)
            else:
                t.apply(move)  # a listed move applies (IllegalMove would fail the test)
            path.append(move)
        if t.phase != START:
            assert t.legal_moves(), f"no legal move in a turn that is not over, after {path}"


ARMS = [
    ("solo", 1, {}),
    ("cooperative", 3, {}),
    ("characters", 3, {}),
    ("solo", 1, {"min_hand_cards": 2}),
    ("cooperative", 2, {"min_hand_cards": 2}),
    ("characters", 2, {"min_hand_cards": 2}),
    ("solo", 1, {"provisional_moves": False}),
    ("cooperative", 3, {"provisional_moves": False}),
    ("characters", 3, {"provisional_moves": False}),
]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    arm=st.sampled_from(ARMS),
    seed=st.integers(0, 10**6),
    at=st.integers(1, 40),
    walk_seed=st.integers(0, 2**32 - 1),
)
def test_every_state_a_random_walk_reaches_has_a_legal_move(arm, seed, at, walk_seed):
    variant, players, options = arm
    game = rules(variant, **options)
    walker = _WalkAt(at, walk_seed)
    bots = [walker] + [make_bot("greedy") for _ in range(players - 1)]
    try:
        play_game(game, bots, seed)
    except _Found:
        pass
