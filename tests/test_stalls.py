"""Complete games that ran on to the turn limit (8% of two-player greedy games): the endings and the bots' part.

Three faults, each kept as a case with the right value:

* the exact stalemate test let every seat use every character still on a pile, although a character deeper in
  a pile reaches the top only when the ones above it are played, and a play in a turn that lays no card is
  undone where plays are provisional (:func:`~kbsim.engine.rows.game.piles_may_turn`);
* greedy never laid on a row ending with the joker, nor a parked card on an empty row card;
* with nothing changing for a whole round, greedy and the planner kept passing while a character play would
  turn the piles (:meth:`~kbsim.bots.base.BaseBot.stalled`).
"""

from __future__ import annotations

import pytest

from conftest_characters import make_state, rules, turn_of
from kbsim.bots import make_bot
from kbsim.engine.rows.game import TURN_LIMIT, piles_may_turn, play_game, seat_can_lay, stalemate_confirmed
from kbsim.engine.seeds import game_seed

# every row ends with 13 and none is empty: no held 1 or 2 fits anywhere, nor after any rebuild
CLOSED = ["2-13", "3-13", "4-13", "5-13", "6-13", "7-13"]


def test_a_character_under_an_unplayable_top_is_not_in_play_while_no_pile_can_turn():
    g = rules("characters")
    # seat 1's Den (second on its pile) would clear a row for its 1, but Wilwulf is on top, and with cards in
    # its draw pile a play in a turn that lays nothing is undone when the turn ends as an exchange
    st = make_state(CLOSED, ["1 1", "1 2"], ["1", "2"], char_piles=[[], ["wilwulf", "den"]])
    assert seat_can_lay(g, st, 1)  # every character in play for every seat (the old test)
    assert not piles_may_turn(g, st)
    assert not seat_can_lay(g, st, 1, own_top_only=True)
    assert stalemate_confirmed(g, st)
    # Den on top: seat 1 clears a row and opens it with a 1 in the same turn
    st.char_piles[1] = ["den", "wilwulf"]
    assert not stalemate_confirmed(g, st)


def test_a_seat_whose_turn_needs_no_card_turns_its_pile():
    g = rules("characters")
    # seat 1's draw pile is empty: its Wilwulf play stays played, so Den comes up
    st = make_state(CLOSED, ["1 1", "1 2"], ["1", ""], char_piles=[[], ["wilwulf", "den"]])
    assert piles_may_turn(g, st)
    assert not stalemate_confirmed(g, st)
    # ... unless it has no legal play of its top character (Ethelred opens an extra row with hand cards)
    st = make_state(CLOSED, ["1 1", ""], ["1", ""], char_piles=[[], ["ethelred", "den"]])
    st.parked[1] = [(1, 0)]
    assert not piles_may_turn(g, st)
    assert stalemate_confirmed(g, st)


def test_greedy_lays_on_a_row_ending_with_the_joker():
    g = rules("characters")
    st = make_state(["5-11 E12", "9", "9", "9", "9", "9"], ["13 3", "1"], ["4", "4"], joker="edgar")
    bot = make_bot("greedy")
    bot.new_game(g, 0, 2, 1)
    bot.play_turn(turn_of(g, st, 0))
    assert st.rows[0] == [5, 6, 7, 8, 9, 10, 11, -12, 13]


def test_greedy_opens_an_empty_row_with_a_parked_card_once_its_hand_is_empty():
    g = rules("characters")
    st = make_state(["_", "9", "9", "9", "9", "9"], ["", "1"], ["", "4"], turn_no=3)
    st.parked[0] = [(1, 1)]
    bot = make_bot("greedy")
    bot.new_game(g, 0, 2, 1)
    t = turn_of(g, st, 0)
    bot.play_turn(t)
    assert st.rows[0] == [1] and st.parked[0] == [] and t.won


@pytest.mark.parametrize("bot_name", ["greedy", "planner"])
def test_a_stalled_bot_plays_a_character_that_lays_nothing(bot_name):
    g = rules("characters")
    st = make_state(CLOSED, ["1 1", "1"], ["", ""], char_piles=[["wilwulf", "den"], []], turn_no=2)
    bot = make_bot(bot_name)
    bot.new_game(g, 0, 2, 1)
    bot.play_turn(turn_of(g, st, 0))
    assert st.char_piles[0] == ["wilwulf", "den"]  # parking lays nothing: it keeps Wilwulf and passes
    bot.play_turn(turn_of(g, st, 0))  # a whole round later, nothing has changed
    assert st.char_piles[0] == ["den"] and len(st.parked[0]) >= 1  # Wilwulf played: Den comes up
    st.turn_no += 1
    bot.play_turn(turn_of(g, st, 0))  # Den clears a row, and a 1 opens it
    assert st.char_piles[0] == [] and [1] in st.rows


@pytest.mark.parametrize(
    ("run", "index", "players", "end"),
    [(12345, 213, 4, "won"), (12345, 237, 4, "won"), (999, 29, 2, "stalemate"), (999, 66, 2, "won")],
)
def test_handed_turn_limit_games_now_end_by_the_rules(run, index, players, end):
    # greedy complete games that ran to the turn limit: every seat passing or exchanging for ~2,000 turns
    g = rules("characters")
    r = play_game(g, [make_bot("greedy") for _ in range(players)], game_seed(run, index))
    assert r.end_reason == end != TURN_LIMIT
