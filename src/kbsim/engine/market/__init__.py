"""The ``market`` engine family: a card market and set collection, compiled from a market rule file.

Generic primitives (every parameter comes from the rule file and its card table):

* **market rows**: ``D`` face-down decks, each with a line of face-up places;
  place ``p`` costs ``costs[p]`` currency cards (or, with ``market.prices: by_deck``,
  every place of deck ``d`` costs ``costs[d]``: :meth:`MarketGame.price`). After a take the line slides
  forward and its deck refills the last place (or refills in place); a used-up
  deck leaves gaps (:meth:`MarketState.fill`).
* **currency cards**: taken like any card, kept face up, spent to the box.
* **objectives**: face-up cards claimed by spending the wagons they need, wild
  wagon kinds covering what is missing (:func:`claim_cost`).
* **take-and-resolve characters**: a taken character applies one effect
  operation at once (``take_free``, ``take_currency``, ``swap_wagons``,
  ``take_token``) and goes to the box; an impossible effect is lost.
* **events**: resolved when revealed; a *reset* of the objective line or of the
  market (:meth:`MarketState.reset_objectives`, :meth:`MarketState.reset_market`).
* **pattern scoring** over icon colours (:func:`pattern_points`).
* **end trigger with a final round**, final score and tie-breakers.

Cards are small ints: a market card is the index of its *kind* in
:attr:`MarketGame.kinds` (copies are interchangeable); objectives and contracts
are indices into :attr:`MarketGame.objectives` / :attr:`MarketGame.contracts`;
companies (icon colours) are indices into :attr:`MarketGame.companies`.
Decks keep their top card last. ``GAP`` (-1) marks an empty place; ``HIDDEN``
(-2) a card a sandbox does not know.

Bots act through a :class:`MarketTurn` (``legal_moves`` / ``apply``), never on the
state directly; :meth:`MarketTurn.sandbox` gives a copy with the hidden cards
masked, on which a bot may try moves.

Package layout (the same file roles as every engine family): ``compiled`` (the
compiled model), ``scoring``, ``moves``, ``state``, ``movegen`` (legal moves),
``turn`` (one public mutator, ``apply``), ``game`` (the loop and replay),
``notation`` and ``examples``. This module re-exports their public names.
"""

from __future__ import annotations

from kbsim.engine.market.compiled import (
    CHARACTER,
    CURRENCY,
    EVENT,
    GAP,
    HIDDEN,
    OPS,
    ROLE_NAMES,
    SWAP_WAGONS,
    TAKE_CURRENCY,
    TAKE_FREE,
    TAKE_TOKEN,
    WAGON,
    Contract,
    Kind,
    MarketGame,
    Objective,
    Pattern,
    compile_market,
)
from kbsim.engine.market.examples import run_market_example, run_market_examples
from kbsim.engine.market.game import (
    MarketPlay,
    MarketResult,
    final_points,
    play_market_game,
    replay_market_log,
    winners_of,
)
from kbsim.engine.market.movegen import legal_moves
from kbsim.engine.market.moves import CHOOSE, CLAIM, DONE, END, RESOLVE, TAKE, Move
from kbsim.engine.market.notation import MarketNotationError, format_market_move, parse_market_move
from kbsim.engine.market.scoring import pattern_points
from kbsim.engine.market.state import MarketState, check_state, claim_cost, new_state
from kbsim.engine.market.turn import MarketTurn

__all__ = [
    "CHARACTER",
    "CHOOSE",
    "CLAIM",
    "CURRENCY",
    "DONE",
    "END",
    "EVENT",
    "GAP",
    "HIDDEN",
    "OPS",
    "RESOLVE",
    "ROLE_NAMES",
    "SWAP_WAGONS",
    "TAKE",
    "TAKE_CURRENCY",
    "TAKE_FREE",
    "TAKE_TOKEN",
    "WAGON",
    "Contract",
    "Kind",
    "MarketGame",
    "MarketNotationError",
    "MarketPlay",
    "MarketResult",
    "MarketState",
    "MarketTurn",
    "Move",
    "Objective",
    "Pattern",
    "check_state",
    "claim_cost",
    "compile_market",
    "final_points",
    "format_market_move",
    "legal_moves",
    "new_state",
    "parse_market_move",
    "pattern_points",
    "play_market_game",
    "replay_market_log",
    "run_market_example",
    "run_market_examples",
    "winners_of",
]
