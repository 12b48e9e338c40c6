"""The turn solver: the best lay-out turn for a board and a hand.

A lay-out turn (rulebook, "Turn Sequence", option A) is a sequence of lays
(a hand card on a row end, or opening an empty row) and rebuilds (an end
segment of a row moved onto another row it continues; start segments and
splits into empty rows only where the rules' options allow them), with
completed rows going to the discard pile at once. In the complete game a
turn may also fill a gap, swap the joker back and lay parked cards. This
module finds the best such sequence; it is the engine of the ``planner`` bot
and of ``kbsim solve``.

Objective
    1. the most cards laid this turn (an immediate win beats everything);
    2. ties: the highest board evaluation (:func:`evaluate`);
    3. remaining ties: the position found first (fewest moves, then the fixed
       move-generation order), so the result is deterministic.

Search
    Breadth-first over the positions reachable within the turn, each position
    stored once under a **canonical key**: the rows as a sorted multiset (which
    row card holds a row does not matter) and the hand as a sorted tuple (copies
    of a value are interchangeable). Breadth-first order means the plan
    returned for a position is a shortest move sequence reaching it. The
    search reads only the compiled rules (``steps``, ``may_open``,
    ``is_complete``, ``rebuild_allowed``, ``rebuild_from_start``,
    ``rebuild_into_empty``, ``max_rebuilds``, ``win_on_empty``), so every
    variant is searched under its own rules. :func:`plan_turn` picks one of
    four engines by what the position holds; they find the same number of
    cards (the tests check this), and differ in speed:

    * ``links`` (:func:`~kbsim.engine.rows.search.link_search.search_links`): strict runs under the default rebuild
      rules. A position shrinks to counts (row ends, row starts and links
      per value, the hand), because rebuilds that only swap the tails of two
      rows never change what can be laid; see the function for the argument.
      This is what makes the bot fast in the base game.
      With start segments or splits into empty rows (one of the two) the
      counts stay exact: each is one more move on the counts.
    * ``runs`` (:func:`~kbsim.engine.rows.search.searches.search_runs`): strict runs with both start segments and
      splits; a row is coded by its first and last value.
    * ``rows`` (:func:`~kbsim.engine.rows.search.row_search.search_rows`): rows as tuples of cards: repeats, and
      the marks powers leave (joker, gaps, duplicates, extra rows, parked cards).
    * ``clones`` (:func:`~kbsim.engine.rows.search.searches.search_clones`): copies of the engine's own
      :class:`~kbsim.engine.rows.turn.Turn`, while a character's turn modifier is
      on, and for other games of the rows family.

    Every plan is replayed on ``turn.sandbox()`` before it is returned, so a
    plan the engine would refuse raises :class:`PlanError` instead of
    reaching the table; a caller that lays any plan laying enough cards (the
    ``planner`` bot) may have the link-count search make it on the turn
    itself (``lay_at``, ``Plan.applied``), where the engine checks each move.

Budget
    The search is exhaustive unless it stores ``budget`` positions; it then
    stops and returns the best position seen so far, all of whose shorter
    sequences were explored first (breadth-first), and says so
    (``Plan.exact`` is False). The budget counts positions, not seconds, so a
    result never depends on the machine. With ``prune`` the search also stops
    at the first position that lays every card, and (``links``) moves whole
    rows together where no hand card needs the row end they cover: the cards
    laid stay the maximum, the tie-break covers fewer positions. Pruned
    searches (``rows``, ``clones``, and ``links`` with the rebuild options)
    also expand the positions that laid more cards first, so a turn laying
    the whole hand is found after a few expansions; a search that runs to
    its end expands the same positions either way.

Board text (``kbsim solve``)
    Rows are separated by ``|``; a row is its values (``3 4 5``) or a run
    (``3-5``); ``_`` or nothing is an empty row; ``E7`` is the joker standing
    for 7, a jump (``3 5``) a gap and a repeat (``4 4``) a duplicate, where the
    rules' powers allow them. Fewer rows than the table holds leave the rest
    empty. See :func:`parse_board` and :func:`check_board`.
"""

from kbsim.engine.rows.search.frontier import DEFAULT_BUDGET, WEIGHTS, BoardError, Plan, PlanError, evaluate
from kbsim.engine.rows.search.solve import (
    Solution,
    check_board,
    engine_for,
    parse_board,
    parse_hand,
    plan_turn,
    search,
    solve,
    verify,
)

__all__ = [
    "DEFAULT_BUDGET",
    "WEIGHTS",
    "BoardError",
    "Plan",
    "PlanError",
    "Solution",
    "check_board",
    "engine_for",
    "evaluate",
    "parse_board",
    "parse_hand",
    "plan_turn",
    "search",
    "solve",
    "verify",
]
