"""The forward model of every family: determinize, apply, clone, play out (issue 26, part 2).

* Conservation: a determinized world holds every card of the game, and the seat's observation of it is the
  observation it came from (OpenSpiel's resample test), at decision points of every shipped game and variant.
* Uniformity over a small case (chi-square), with and without a void; pooled cards only where they may be.
* Determinized worlds play to their end with the existing bots, in every shipped game and variant.
* A flat Monte Carlo bot written on :mod:`kbsim.engine.forward` alone plays whole games (the interface suffices).
"""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import chisquare

import kbsim
from kbsim.bots import bots_for, make_bot
from kbsim.bots.base import BaseBot
from kbsim.engine.families import family_of
from kbsim.engine.forward import World, determinize, new_world
from kbsim.engine.market.state import check_state
from kbsim.engine.rows.game import check_invariants, play_game
from kbsim.engine.rows.moves import DONE, END_TURN, Exchange, Lay, Minus, Pass, Play
from kbsim.engine.rows.observe import Knowledge, observe
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import HIDDEN, Turn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from observation_kit import market_points, players_of, rows_points, shipped_arms  # noqa: E402

ROWS_ARMS = shipped_arms("rows")
MARKET_ARMS = shipped_arms("market")


def _label(arm) -> str:
    return "-".join([arm[0], *arm[1]])


def rows_view(point) -> Turn:
    """The observation the seat of a rows decision point is handed."""
    loop, turn = point.loop, point.turn
    view = turn.on_state(observe(loop.state, loop.know, turn.seat))
    view.seen = loop.know
    return view


def rows_key(t: Turn) -> tuple:
    """Everything a rows observation shows (zones as masked, the turn's counters, what everybody knows)."""
    st, k = t.state, t.seen
    assert isinstance(k, Knowledge)
    zones = (st.rows, st.hands, st.piles, st.discard, st.parked, st.minus, st.char_piles, st.display)
    return (
        repr(zones),
        repr((st.char_deck, st.box, st.joker, st.turn_no, st.n_fixed)),
        (t.seat, t.phase, t.laid, t.rebuilds, t.chars_played, t.exchanged, t.minus_cards),
        repr((k.own_bottom, k.top, k.known, k.pooled, k.eligible, k.pool_slots, k.voids, k.joker_bottom)),
    )


def _story(g) -> Counter:
    return Counter(g.deck)


# ---------------------------------------------------------------------- conservation and the resample test
@pytest.mark.parametrize("arm", ROWS_ARMS, ids=_label)
def test_rows_determinization_conserves_and_keeps_the_observation(arm):
    name, variants = arm
    g = kbsim.load_game(name, variants)
    rng = random.Random(1)
    roster = Counter(c.key for c in g.roster) if g.chars_enabled else Counter()
    points = rows_points(g, players_of(g), 4, (1, 3, 7, 12, 20, 30, 45))
    assert points
    for point in points:
        view = rows_view(point)
        for _ in range(5):
            w = determinize(view, rng)
            st = w.state
            assert st.story_cards() == _story(g), "story cards not conserved"
            assert st.characters() == (roster if g.chars_enabled else point.loop.state.characters())
            assert HIDDEN not in [c for h in st.hands for c in h] + [c for p in st.piles for c in p]
            check_invariants(g, st, _story(g), st.characters())
            assert rows_key(w.observe(view.seat)) == rows_key(view), "the seat sees something else in its world"


@pytest.mark.parametrize("arm", MARKET_ARMS, ids=_label)
def test_market_determinization_conserves_and_keeps_the_observation(arm):
    from kbsim.engine.market.observe import handed

    name, variants = arm
    g = kbsim.load_game(name, variants)
    n = players_of(g)
    rng = random.Random(1)
    for point in market_points(g, n, 4, (0, 1, 2, 5, 9, 15, 24)):
        t = point.turn()
        view = handed(t, point.context())
        for _ in range(5):
            w = determinize(view, rng)
            check_state(g, w.state, n)
            again = w.observe(view.seat)
            slots = [k for k in type(w.state).__slots__ if k != "rng"]
            assert [getattr(again.state, k) for k in slots] == [getattr(view.state, k) for k in slots]
            assert (again.phase, again.seen) == (view.phase, view.seen)


def test_determinizing_from_the_same_stream_gives_the_same_world():
    g = kbsim.load_game("kingsbridge", ("characters",))
    point = rows_points(g, 3, 2, (10,))[0]
    view = rows_view(point)
    a, b = determinize(view, random.Random(9)), determinize(view, random.Random(9))
    assert repr(vars_of(a.state)) == repr(vars_of(b.state))


def vars_of(st: GameState) -> tuple:
    return (st.rows, st.hands, st.piles, st.discard, st.char_piles, st.display, st.char_deck, st.box)


# ---------------------------------------------------------------------- uniformity
def _tiny(void: tuple[tuple[int, ...], int] | None = None):
    """Two seats, six hidden places holding 1, 1, 2, 3, 4, 5: seat 1's hand (2), each draw pile (2 each)."""
    g = kbsim.load_game("kingsbridge")
    hidden = [1, 1, 2, 3, 4, 5]
    mine = [6, 7, 8]
    rows = [[9], [10], [11], [], [], []]
    rest = Counter(g.deck) - Counter(hidden + mine + [9, 10, 11])
    st = GameState(
        rows=rows,
        hands=[mine, [1, 2]],
        piles=[[1, 3], [4, 5]],
        discard=sorted(rest.elements()),
        n_fixed=6,
    )
    know = Knowledge(g, 2)
    if void:
        know.voids[1] = [void]
    view = Turn.for_seat(g, observe(st, know, 0), 0)
    view.seen = know
    return g, view


def _places(w: World) -> tuple:
    st = w.state
    return (*st.hands[1], *st.piles[0], *st.piles[1])


def test_determinization_is_uniform_over_the_worlds():
    g, view = _tiny()
    rng = random.Random(2024)
    worlds = sorted(set(itertools.permutations([1, 1, 2, 3, 4, 5])))
    assert len(worlds) == 360
    counts = Counter(_places(determinize(view, rng)) for _ in range(36000))
    assert set(counts) == set(worlds)
    assert chisquare([counts[w] for w in worlds]).pvalue > 0.001


def test_determinization_with_a_void_is_uniform_over_the_worlds_it_allows():
    g, view = _tiny(void=((1,), 2))  # the rules proved seat 1 holds no 1
    rng = random.Random(77)
    worlds = sorted(w for w in set(itertools.permutations([1, 1, 2, 3, 4, 5])) if 1 not in w[:2])
    counts = Counter(_places(determinize(view, rng)) for _ in range(100 * len(worlds)))
    assert set(counts) == set(worlds), "a world the void excludes was drawn, or an allowed one never"
    assert chisquare([counts[w] for w in worlds]).pvalue > 0.001


def test_pooled_cards_go_only_where_they_may_be():
    """Seat 1 exchanged while holding a card everybody saw (a 5): it is in its hand or in the places the exchange
    filled (the bottom two of its pile), never in seat 0's pile or the rest of seat 1's pile."""
    g = kbsim.load_game("kingsbridge")
    hidden = [1, 2, 3, 4, 5, 6, 7, 8]
    mine = [9, 10, 11]
    rest = Counter(g.deck) - Counter(hidden + mine)
    st = GameState(
        rows=[[], [], [], [], [], []],
        hands=[mine, [5, 1]],
        piles=[[2, 3], [4, 6, 7, 8]],
        discard=sorted(rest.elements()),
        n_fixed=6,
    )
    know = Knowledge(g, 2)
    know.pooled[1] = [5]
    know.eligible[1] = 2
    know.pool_slots[1] = [0, 1]
    view = Turn.for_seat(g, observe(st, know, 0), 0)
    view.seen = know
    rng = random.Random(3)
    where = Counter()
    for _ in range(3000):
        s = determinize(view, rng).state
        where[
            "hand"
            if 5 in s.hands[1]
            else "pool"
            if 5 in s.piles[1][:2]
            else "elsewhere"
            if 5 in s.piles[1] + s.piles[0]
            else "?"
        ] += 1
    assert set(where) == {"hand", "pool"}
    assert min(where.values()) > 1000  # each of the four places about equally likely


# ---------------------------------------------------------------------- playing worlds out
def _rows_rollout_bots(g, n, name):
    bots = [make_bot(name) for _ in range(n)]
    for s, b in enumerate(bots):
        b.new_game(g, s, n, 5)
    return bots


@pytest.mark.parametrize("bot", ["greedy", "random", "planner"])
@pytest.mark.parametrize("arm", ROWS_ARMS, ids=_label)
def test_rows_worlds_play_to_their_end(arm, bot):
    name, variants = arm
    g = kbsim.load_game(name, variants)
    n = players_of(g)
    rng = random.Random(3)
    for point in rows_points(g, n, 6, (2, 15)):
        w = determinize(rows_view(point), rng)
        bots = _rows_rollout_bots(w.game, n, bot)
        c = w.clone()
        while not c.over:
            c.play_turn(bots[c.seat])
        assert c.state.story_cards() == _story(g) or c.hand_no > 0
        res = c.result()
        assert len(res) == n and (sum(res) in (0.0, 1.0) or g.score is not None)
        assert w.turn is not None and w.turn.laid == point.turn.laid  # the clone was played, not the world


@pytest.mark.parametrize("bot", sorted(bots_for("market")))
@pytest.mark.parametrize("arm", MARKET_ARMS, ids=_label)
def test_market_worlds_play_to_their_end(arm, bot):
    from kbsim.engine.market.observe import handed

    name, variants = arm
    g = kbsim.load_game(name, variants)
    n = players_of(g)
    rng = random.Random(3)
    for point in market_points(g, n, 6, (1, 10)):
        w = determinize(handed(point.turn(), point.context()), rng)
        bots = [make_bot(bot, "market") for _ in range(n)]
        for s, b in enumerate(bots):
            b.new_game(g, s, n, 5)
        while not w.over:
            w.play_turn(bots[w.seat])
        check_state(g, w.state, n)
        assert len(w.result()) == n


@pytest.mark.parametrize("variants", [("characters",), ("cooperative",), ("solo",)])
def test_determinizing_after_a_provisional_play_restores_consistently(variants):
    """A rebuild and a character play made before any card is laid stay provisional: determinized then, the world's
    turn can still end as an exchange, a pass or a minus-pile move, and the table it restores holds every card."""
    g = kbsim.load_game("kingsbridge", variants)
    n = players_of(g)
    rng = random.Random(8)
    tried = 0
    for seed in range(6):
        for point in rows_points(g, n, seed, tuple(range(1, 60, 3))):
            view = rows_view(point)
            rebuilds = view.rebuild_moves()
            if not rebuilds:
                continue
            view.apply(rebuilds[0])  # a provisional move: the table is saved for a turn that lays nothing
            plays = [m for m in view.legal_moves() if isinstance(m, Play)]
            if not plays:
                continue
            view.apply(plays[-1])
            if view.phase == DONE or not view.provisional:
                continue
            w = determinize(view, rng)
            assert w.state.story_cards() == _story(g)
            ends = [m for m in w.legal_moves() if isinstance(m, Exchange | Pass | Minus)]
            if not ends:
                continue
            w.apply(ends[0])
            assert w.state.story_cards() == _story(g)
            assert Counter(c.key for c in g.roster) == w.state.characters()
            tried += 1
    assert tried, "no provisional play was determinized"


def test_clones_are_independent():
    g = kbsim.load_game("kingsbridge")
    w = new_world(g, 3, 1)
    c = w.clone()
    c.apply(c.legal_moves()[0])
    while not c.over and c.turn is not None and c.turn.phase != DONE and c.seat == w.seat:
        c.apply(END_TURN if END_TURN in c.legal_moves() else c.legal_moves()[0])
    assert w.state.hands != c.state.hands or w.state.rows != c.state.rows
    assert w.turn is not None and w.turn.laid == 0


def test_a_fresh_world_plays_the_game_play_game_plays():
    """``new_world`` deals as ``play_game`` does, and stepping it with the same bots gives the same game."""
    for name, n in (("kingsbridge", 3), ("kings-corners", 3)):
        g = kbsim.load_game(name)
        r = play_game(g, [make_bot("greedy") for _ in range(n)], 12)
        w = new_world(g, n, 12)
        bots = [make_bot("greedy") for _ in range(n)]
        for s, b in enumerate(bots):
            b.new_game(w.game, s, n, 12)
        turns = 0
        while not w.over:
            w.play_turn(bots[w.seat])
            turns += 1
        if not g.match_target:
            assert turns == r.turns and w.loop.winners == r.winners


# ---------------------------------------------------------------------- the interface suffices
class FlatMonteCarlo(BaseBot):
    """The flat Monte Carlo bot of :mod:`kbsim.engine.forward`'s docstring: each move of its turn is the candidate
    whose playouts (greedy rollouts from determinized worlds) score best for its seat. Test only.

    Candidates at each step (rows): the first lays, ending the turn, the first way to end it otherwise (exchange,
    pass, minus pile); after ``steps`` moves the turn is ended as the engine lists (market: every legal move).
    """

    name = "flat-mc"
    lays = 3
    steps = 6
    playouts = 2

    def new_game(self, game, seat, players, seed):
        super().new_game(game, seat, players, seed)
        self.family = game.family
        self.rollout = [make_bot("greedy", self.family) for _ in range(players)]
        for s, b in enumerate(self.rollout):
            b.new_game(game, s, players, seed)

    def candidates(self, turn) -> list:
        moves = turn.legal_moves()
        if self.family == "market":
            return moves
        lays = [m for m in moves if isinstance(m, Lay)][: self.lays]
        ends = [m for m in moves if m == END_TURN][:1]
        other = [m for m in moves if isinstance(m, Exchange | Pass | Minus)][:1]
        return lays + ends + other

    def value(self, turn, move) -> float:
        total = 0.0
        for _ in range(self.playouts):
            world = determinize(turn, self.rng)  # a full state drawn from what this seat sees
            world.apply(move)
            while not world.over:
                world.play_turn(self.rollout[world.seat])
            total += world.result()[turn.seat]
        return total

    def play_turn(self, turn) -> None:
        done = "done" if self.family == "market" else DONE
        for _ in range(self.steps):
            if turn.phase == done:
                return
            moves = self.candidates(turn)
            if not moves:
                break
            turn.apply(max(moves, key=lambda m: self.value(turn, m)))
        if self.family != "market":
            for m in turn.finishing_moves():
                turn.apply(m)


@pytest.mark.parametrize("name, players", [("kingsbridge", 2), ("continental-express", 2)])
def test_a_flat_monte_carlo_bot_plays_whole_games_from_its_observation(name, players):
    g = kbsim.load_game(name)
    first, again = _play(g, players, 1), _play(g, players, 1)
    assert repr(first) == repr(again), "the same seed played twice gave two games"
    assert first.end_reason in ("won", "stalemate")


def _play(g, players, seed):
    bots = [FlatMonteCarlo(), *(make_bot("greedy", g.family) for _ in range(players - 1))]
    return family_of(g).play(g, bots, seed, check=True)
