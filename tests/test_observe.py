"""Bots decide from their seat's observation only, enforced by the engine (issue 26, part 1).

* Every bot of every family, in every shipped game and variant: two decision points that differ only in cards
  the seat cannot see (its observation determinized anew) give the same moves for the same bot seed.
* A deliberately peeking bot is caught by the same check when it is handed the real zones, and is blind when the
  engine masks them.
* While a bot decides, no zone shows a card its seat may not see; what everybody knows (the knowledge a
  determinization starts from) is true of the real game at every turn.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest

import kbsim
from kbsim.bots import bots_for
from kbsim.bots.greedy import GreedyBot
from kbsim.bots.market import MarketGreedyBot
from kbsim.engine.market.compiled import HIDDEN as MARKET_HIDDEN
from kbsim.engine.market.game import play_market_game
from kbsim.engine.market.moves import CHOOSE
from kbsim.engine.rows.forward import determinize
from kbsim.engine.rows.game import play_game
from kbsim.engine.rows.moves import Exchange
from kbsim.engine.rows.observe import Knowledge, observe
from kbsim.engine.rows.turn import HIDDEN, HIDDEN_CHARACTER, Turn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from observation_kit import (  # noqa: E402
    market_decision,
    market_points,
    market_twin,
    players_of,
    rows_decision,
    rows_points,
    rows_twin,
    shipped_arms,
)

ROWS_ARMS = shipped_arms("rows")
MARKET_ARMS = shipped_arms("market")
AT = (1, 4, 9, 16, 25, 40)  # turns (rows) / steps (market) at which decisions are compared


def _label(arm) -> str:
    name, variants = arm
    return "-".join([name, *variants])


def _rows_points(arm, seed: int = 3):
    name, variants = arm
    g = kbsim.load_game(name, variants)
    return rows_points(g, players_of(g), seed, AT)


@pytest.mark.parametrize("bot", sorted(bots_for("rows")))
@pytest.mark.parametrize("arm", ROWS_ARMS, ids=_label)
def test_rows_bots_decide_from_their_observation(arm, bot):
    factory = bots_for("rows")[bot]
    rng = random.Random(7)
    points = _rows_points(arm)
    assert points, "no decision point reached"
    differs = 0
    for point in points:
        twin = rows_twin(point, rng)
        differs += twin.loop.state.hands != point.loop.state.hands or twin.loop.state.piles != point.loop.state.piles
        assert rows_decision(point, factory, 11) == rows_decision(twin, factory, 11), (
            f"{bot} decided differently at turn {point.loop.turns} though only hidden cards differ"
        )
    assert differs, "the twins never differed in a hidden card: the check would prove nothing"


@pytest.mark.parametrize("bot", sorted(bots_for("market")))
@pytest.mark.parametrize("arm", MARKET_ARMS, ids=_label)
def test_market_bots_decide_from_their_observation(arm, bot):
    name, variants = arm
    g = kbsim.load_game(name, variants)
    factory = bots_for("market")[bot]
    rng = random.Random(7)
    points = market_points(g, players_of(g), 3, (0, 1, *AT))
    assert points
    for point in points:
        twin = market_twin(point, rng)
        assert twin.state.decks != point.state.decks or not any(point.state.decks)
        assert market_decision(point, factory, 11) == market_decision(twin, factory, 11)


# ---------------------------------------------------------------------- a peeking bot
class _OverGreedy:
    """Greedy by composition (the compiled build's GreedyBot cannot be subclassed by a test class)."""

    name = "greedy-wrapper"

    def new_game(self, game, seat, players, seed):
        self.greedy = GreedyBot()
        self.greedy.new_game(game, seat, players, seed)
        self.seat = seat

    def play_turn(self, turn: Turn) -> None:
        self.greedy.play_turn(turn)


class RowsPeeker(_OverGreedy):
    """Plays as greedy, except that it exchanges when the next seat's first hand card and the top card of its own
    draw pile (both hidden from it) add up to an odd number."""

    name = "peeker"

    def play_turn(self, turn: Turn) -> None:
        st = turn.state
        nxt = st.hands[(turn.seat + 1) % st.players]
        pile = st.piles[turn.seat]
        if ((nxt[0] if nxt else 0) + (pile[-1] if pile else 0)) % 2 and turn.can_exchange():
            turn.apply(Exchange((min(turn.hand),)))
            return
        super().play_turn(turn)


def test_the_check_catches_a_peeking_bot_and_the_engine_blinds_it():
    g = kbsim.load_game("kingsbridge")
    rng = random.Random(5)
    caught = blind = 0
    for seed in range(4):
        for point in rows_points(g, 3, seed, (2, 5, 8)):
            twin = rows_twin(point, rng)
            # handed the real zones, the peeker's moves follow the hidden cards: the check sees it
            if rows_decision(point, RowsPeeker, 1, masked_zones=False) != rows_decision(
                twin, RowsPeeker, 1, masked_zones=False
            ):
                caught += 1
            # through the engine it reads only placeholders: same moves
            assert rows_decision(point, RowsPeeker, 1) == rows_decision(twin, RowsPeeker, 1)
            blind += 1
    assert caught > 0 and blind > 0


class MarketPeeker(MarketGreedyBot):
    """Greedy, but it reads the real table through the game loop's relay (a closure) to pick among equal moves."""

    name = "peeker"

    def play_turn(self, turn) -> None:
        relay = turn.relay
        if relay is not None and relay.__closure__:
            real = next(c.cell_contents for c in relay.__closure__ if hasattr(c.cell_contents, "state"))
            top = [d[-1] if d else 0 for d in real.state.decks]
            if sum(top) % 2 and len(turn.legal_moves()) > 1:
                turn.apply(turn.legal_moves()[-1])
        if turn.phase != "done":
            super().play_turn(turn)


def test_the_check_catches_a_market_bot_that_digs_into_the_relay():
    """The view's relay to the real turn is the one path from a market view to the table (documented in
    kbsim.engine.market.observe); a bot that digs into it is caught by the decision check."""
    g = kbsim.load_game("continental-express")
    rng = random.Random(5)
    caught = 0
    for seed in range(3):
        for point in market_points(g, 3, seed, (3, 8, 13, 20)):
            twin = market_twin(point, rng)
            caught += market_decision(point, MarketPeeker, 1) != market_decision(twin, MarketPeeker, 1)
    assert caught > 0


# ---------------------------------------------------------------------- what a bot sees, what everybody knows
class _Inspector(_OverGreedy):
    """Greedy; on every turn it checks that its zones hold no card its seat may not see."""

    name = "inspector"
    seen_turns = 0

    def play_turn(self, turn: Turn) -> None:
        st, me = turn.state, turn.seat
        know = turn.seen
        assert isinstance(know, Knowledge)
        for s in range(st.players):
            if s != me:
                h = st.hands[s]
                assert h[len(know.known[s]) :] == [HIDDEN] * (len(h) - len(know.known[s]))
            if not st.shared:
                p = st.piles[s]
                b = know.own_bottom[s] if s == me else 0
                middle = p[b : len(p) - know.top[s]]
                assert middle == [HIDDEN] * len(middle)
            else:
                assert set(st.piles[s]) <= {HIDDEN}
        assert set(st.char_deck) <= {HIDDEN_CHARACTER}
        _Inspector.seen_turns += 1
        super().play_turn(turn)


@pytest.mark.parametrize("arm", ROWS_ARMS, ids=_label)
def test_a_bot_sees_no_hidden_card(arm):
    name, variants = arm
    g = kbsim.load_game(name, variants)
    n = players_of(g)
    before = _Inspector.seen_turns
    r = play_game(g, [_Inspector() for _ in range(n)], 2, check=True)
    assert _Inspector.seen_turns - before == r.turns


def rows_view(point) -> Turn:
    """The observation the seat of a rows decision point is handed."""
    view = point.turn.on_state(observe(point.loop.state, point.loop.know, point.turn.seat))
    view.seen = point.loop.know
    return view


def _truth_holds(loop) -> None:
    """Everything the hand's knowledge says is true of its real zones (so the real deal is a possible world)."""
    st, know = loop.state, loop.know
    for s in range(st.players):
        hand = Counter(st.hands[s])
        assert not Counter(know.known[s]) - hand, f"seat {s} does not hold its known cards"
        if not st.shared:
            pile = st.piles[s]
            assert know.own_bottom[s] + know.top[s] <= len(pile)
            # the pooled cards are in the pool slots, and the rest in at most ``eligible`` hand places (as many in
            # the slots as their values allow: what is left must fit the hand beside its known cards)
            need = Counter(know.pooled[s])
            in_hand = need - Counter(pile[i] for i in know.pool_slots[s])
            assert not in_hand - (hand - Counter(know.known[s])), f"seat {s}'s pooled cards are not where they may be"
            assert 0 <= sum(in_hand.values()) <= know.eligible[s], f"seat {s} holds more pooled cards than eligible"
        assert 0 <= know.eligible[s] <= len(st.hands[s]), f"seat {s}'s eligible count is impossible"
        for values, n in know.voids[s]:
            assert sum(1 for c in st.hands[s] if c in values) <= len(st.hands[s]) - n, f"seat {s} breaks a void"


@pytest.mark.parametrize(
    "name, variants, players",
    [
        ("kingsbridge", ("characters",), 2),
        ("kingsbridge", ("characters",), 4),
        ("kingsbridge", ("cooperative",), 3),
        ("kingsbridge", ("solo",), 1),
        ("kings-corners", ("kings-at-once",), 4),
    ],
)
@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_what_everybody_knows_is_true(name, variants, players, policy):
    """Checked at every turn of whole games where the knowledge is rich (a power puts cards on top of piles,
    a must-lay card or a minus-pile move proves what a hand lacks), and the moving seat's observation
    determinizes (the random bot exchanges often: pooled cards, parked and laid copies of pooled values)."""
    g = kbsim.load_game(name, variants)
    rich = 0
    for seed in range(8):
        for point in rows_points(g, players, seed, tuple(range(1, 400)), policy):
            _truth_holds(point.loop)
            determinize(rows_view(point), random.Random(seed))
            k = point.loop.know
            rich += any(k.known) or any(k.pooled) or any(k.voids) or any(k.top)
    assert rich, "no turn with anything known beyond the zones: the check would prove nothing"


def _knowledge_after(variants: tuple[str, ...], players: int, seed: int, policy: str, turns: int) -> Knowledge:
    """What everybody knows at the start of turn ``turns`` + 1 of a hand played by ``policy`` bots."""
    g = kbsim.load_game("kingsbridge", variants)
    (point,) = rows_points(g, players, seed, (turns + 1,), policy)
    _truth_holds(point.loop)
    return point.loop.know


def test_a_laid_copy_of_a_pooled_value_is_another_copy_when_no_pooled_card_may_be_in_the_hand():
    """Handed case (search crashed in the complete game at 4 players: 'Sample larger than population').

    Seat 3 exchanges its whole hand while two cards of it are known (13 and 9): both are now under its pile, no
    pooled card may be in its hand. It draws another 13 and lays it on turn 24: that 13 is another copy, so the
    pooled 13 and 9 stay under the pile (the count of hand places that may hold them stays 0, never -1)."""
    before = _knowledge_after(("characters",), 4, 143, "greedy", 23)
    assert (before.pooled[3], before.eligible[3]) == ([13, 9], 0)
    after = _knowledge_after(("characters",), 4, 143, "greedy", 24)
    assert (after.pooled[3], after.eligible[3]) == ([13, 9], 0)


def test_a_card_parked_in_sight_on_an_exchange_turn_leaves_the_pooled_cards():
    """Handed case: seat 2 holds a known 1 and a known 2; on turn 59 Wilwulf parks its 1 and 4 in sight of
    everybody, then it exchanges a 12. The parked 1 is no longer its card to place: only the 2 is pooled."""
    before = _knowledge_after(("characters",), 4, 23, "random", 58)
    assert 1 in before.pooled[2] + before.known[2]
    after = _knowledge_after(("characters",), 4, 23, "random", 59)
    assert after.pooled[2] == [2] and after.known[2] == []


def test_a_laid_copy_of_a_pooled_value_may_be_either_copy():
    """Handed case: seat 1's pooled 7 went under its pile, its pooled 5 is in its hand; it draws another 7 and
    lays it in sight. Either 7 may have been laid, so the 7 need no longer be placed, and the pooled 5 may
    still be in the hand (the count of hand places that may hold pooled cards does not fall)."""
    before = _knowledge_after(("characters",), 4, 99, "random", 33)
    assert sorted(before.pooled[1]) == [5, 7] and before.eligible[1] == 1
    after = _knowledge_after(("characters",), 4, 99, "random", 34)
    assert after.pooled[1] == [5] and after.eligible[1] == 1


def test_market_view_hides_decks_and_contracts():
    g = kbsim.load_game("continental-express")
    for point in market_points(g, 4, 1, (0, 2, 6, 12)):
        t = point.turn()
        from kbsim.engine.market.observe import handed

        view = handed(t, point.context())
        st = view.state
        for d, k in zip(st.decks, point.state.deck_seen, strict=True):
            assert d[k:] == [MARKET_HIDDEN] * (len(d) - k)
        for s in range(st.players):
            if s != t.seat:
                assert set(st.contracts[s]) <= {MARKET_HIDDEN} and set(st.offered[s]) <= {MARKET_HIDDEN}
        assert st.lines == point.state.lines and st.wagons == point.state.wagons


# ---------------------------------------------------------------------- players watching other seats' turns
class _Watcher(_OverGreedy):
    """Greedy; also watches the table (``watch_table``) and checks each view is its own seat's observation."""

    name = "watcher"

    def new_game(self, game, seat, players, seed):
        super().new_game(game, seat, players, seed)
        self.last = None
        self.views = 0
        self.matched = 0

    def watch_table(self, view) -> None:
        me = self.seat
        for s in range(view.players):
            if s != me:
                assert set(view.hands[s]) <= {HIDDEN}, "another seat's hand is shown"
            pile = view.piles[s]
            if s == me:  # (only the cards it put under its own pile are known: a bottom run, then placeholders)
                pile = pile[next((i for i, c in enumerate(pile) if c == HIDDEN), len(pile)) :]
            assert set(pile) <= {HIDDEN}, "a draw pile's order is shown"
        assert HIDDEN not in view.hands[me], "the watching seat's own hand is masked"
        self.last = view.hands[me][:]
        self.views += 1

    def play_turn(self, turn: Turn) -> None:
        # (base Kingsbridge: a hand changes only in its own seat's turn, so the last view shows it as it is now)
        if self.last is not None:
            assert self.last == turn.state.hands[self.seat]
            self.matched += 1
        super().play_turn(turn)


def test_a_watching_player_sees_its_own_view_between_its_turns():
    g = kbsim.load_game("kingsbridge")
    plain = play_game(g, [GreedyBot() for _ in range(3)], 5)
    watchers = [_Watcher() for _ in range(3)]
    watched = play_game(g, watchers, 5)
    assert watched == plain, "watching changes nothing in the game"
    assert all(w.matched > 3 for w in watchers)
    assert sum(w.views for w in watchers) == 2 * plain.turns + 3  # every other seat's turn, and the end


class _MarketWatcher(MarketGreedyBot):
    """Market greedy; checks each watched view hides the other seats' contracts and shows its own."""

    name = "market-watcher"

    def new_game(self, game, seat, players, seed):
        super().new_game(game, seat, players, seed)
        self.last = None
        self.matched = 0

    def watch_table(self, view) -> None:
        for s in range(view.players):
            if s != self.seat:
                assert set(view.contracts[s]) <= {MARKET_HIDDEN}
        assert MARKET_HIDDEN not in view.contracts[self.seat]
        self.last = view.contracts[self.seat][:]

    def play_turn(self, turn) -> None:
        if self.last is not None and turn.phase != CHOOSE:
            assert self.last == turn.state.contracts[self.seat]
            self.matched += 1
        super().play_turn(turn)


def test_a_watching_market_player_sees_its_own_view():
    g = kbsim.load_game("continental-express")
    plain = play_market_game(g, [MarketGreedyBot() for _ in range(3)], 4)
    watchers = [_MarketWatcher() for _ in range(3)]
    assert play_market_game(g, watchers, 4) == plain
    assert all(w.matched > 3 for w in watchers)


_MARKET_ZONES = (
    "lines", "decks", "box", "wagons", "currency", "tokens", "supply", "obj_deck", "obj_visible", "obj_box",
    "claimed", "contracts", "offered", "returned", "contract_box", "pending", "open_lines", "deck_seen", "obj_seen",
)  # fmt: skip


def _same_view(view, st, seat) -> None:
    """The view kept up to date move by move shows exactly what a view made anew from the table shows."""
    from kbsim.engine.market.observe import masked

    fresh = masked(st, seat)
    for zone in _MARKET_ZONES:
        assert getattr(view, zone) == getattr(fresh, zone), zone


def test_market_view_kept_up_to_date_equals_a_fresh_view_after_every_move():
    from kbsim.engine.market.moves import DONE
    from kbsim.engine.market.observe import handed

    g = kbsim.load_game("continental-express")
    rng = random.Random(3)
    moves = 0
    for seed in range(3):
        views = {}
        for point in market_points(g, 4, seed, tuple(range(0, 150, 2))):
            t = point.turn()
            view = handed(t, point.context(), views.get(t.seat))
            views[t.seat] = view.state
            _same_view(view.state, t.state, t.seat)
            while t.phase != DONE and view.legal_moves():
                view.apply(rng.choice(view.legal_moves()))  # (random moves: ends, takes, claims and powers)
                _same_view(view.state, t.state, t.seat)
                moves += 1
    assert moves > 100


def test_market_view_shows_objectives_put_back_under_the_deck():
    # an objective reset that puts the face-up objectives under the deck and turns up as many keeps the deck's
    # length: the view kept up to date must still show the ones everybody saw go under
    from kbsim.engine.market.observe import masked, refresh

    g = kbsim.load_game("continental-express")
    st = market_points(g, 4, 1, (6,))[0].state
    assert all(o >= 0 for o in st.obj_visible) and len(st.obj_deck) >= len(st.obj_visible)
    view = masked(st, 0, share=True)
    size = len(st.obj_deck)
    st.reset_objectives(g, "deck_bottom")
    assert len(st.obj_deck) == size and st.obj_seen == len(st.obj_visible)
    refresh(view, st, 0)
    assert view.obj_deck[: st.obj_seen] == st.obj_deck[: st.obj_seen]
    _same_view(view, st, 0)
