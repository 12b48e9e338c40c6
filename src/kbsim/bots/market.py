"""Bots for the ``market`` engine family (:mod:`kbsim.engine.market`).

Both act only through the :class:`~kbsim.engine.market.MarketTurn` they are
handed (``legal_moves`` / ``apply`` and its public views: the face-up market,
deck sizes, face-up objectives, every seat's face-up cards, their own
contracts). Neither looks at a deck's order or another seat's contract. The
contract choice at setup is a turn of its own (phase ``choose``), so it is part
of each bot.

``random``
    :class:`MarketRandomBot`: a uniform choice among the legal moves at every step
    (the contract, the card, a character's target, whether and what to claim).
``greedy``
    :class:`MarketGreedyBot`: scores every move with a cheap heuristic (below) and
    plays the best one, ties broken at random.

The greedy heuristic, in points:

* *worth of an objective* = its points + the gain of its icon for the bot's own
  contracts (the pattern score with one more icon of that colour, minus now);
* *value of a wagon* of kind k = ``BASE_WAGON`` + for each face-up objective
  still short of wagons after counting the wild ones held, its worth divided
  by the number of wagons it is short, if k is one it lacks; a wild wagon gets
  the best of these plus ``WILD_BONUS``;
* *value of a currency card* = the points it is worth at the end, plus
  ``LIQUIDITY`` while the bot cannot afford the dearest place;
* *value of a character* = what its effect would bring now: the best face-up
  card (free take), the largest currency of another seat (take currency),
  the best wagon swap (swap), the best token for the contracts (take token),
  0 if it would be lost;
* a take scores value - cost x ``TICKET_WORTH``;
* the contract choice: the offered contract with the highest expected pattern
  score when as many icons as the end trigger's objectives are drawn at random
  from the colours of the objectives in the card list
  (:func:`contract_values`, exact over all colour counts);
* claims: the claimable objective of highest worth is always claimed.
"""

from __future__ import annotations

import math

from kbsim.bots.base import BaseBot
from kbsim.engine.market import (
    CHARACTER,
    CHOOSE,
    CURRENCY,
    DONE,
    END,
    RESOLVE,
    SWAP_WAGONS,
    TAKE,
    TAKE_CURRENCY,
    TAKE_FREE,
    TAKE_TOKEN,
    WAGON,
    MarketGame,
    MarketTurn,
    Move,
    pattern_points,
)


class MarketRandomBot(BaseBot):
    """Uniform random play: at every step one legal move, each equally likely."""

    name = "random"

    def play_turn(self, turn: MarketTurn) -> None:
        """Play the whole turn (or the contract choice) through ``turn``."""
        rng = self.rng
        while turn.phase != DONE:
            moves = turn.legal_moves()
            if not moves:
                return
            turn.apply(moves[0] if len(moves) == 1 else rng.choice(moves))


class MarketGreedyBot(BaseBot):
    """One-step heuristic play; see the module docstring for the scoring of moves."""

    name = "greedy"
    BASE_WAGON = 0.3
    WILD_BONUS = 0.4
    LIQUIDITY = 0.6
    TICKET_WORTH = 1.4

    def new_game(self, game: MarketGame, seat: int, players: int, seed: int) -> None:
        """Start a game in ``seat`` of ``players``; ``seed`` seeds this seat's random stream."""
        super().new_game(game, seat, players, seed)
        self._gain_cache: dict[tuple, list[int]] = {}

    # ---- evaluation helpers
    def _prepare(self, turn: MarketTurn) -> None:
        """Per decision: the contract gain of one more icon of each colour, and each face-up objective's worth."""
        g = self.game
        counts = turn.icon_counts()
        key = (counts, tuple(turn.my_contracts))
        gains = self._gain_cache.get(key)
        if gains is None:
            now = turn.contract_points(counts)
            gains = []
            for c in range(len(g.companies)):
                more = list(counts)
                more[c] += 1
                gains.append(turn.contract_points(tuple(more)) - now)
            self._gain_cache[key] = gains
        self._gains = gains
        self._worth = [
            (o, g.objectives[o].points + gains[g.objectives[o].company]) for o in turn.visible_objectives if o >= 0
        ]

    def _wagon_values(self, turn: MarketTurn, have: list[int] | None = None) -> list[float]:
        g = self.game
        have = turn.wagons(self.seat) if have is None else have
        n = len(g.kinds)
        vals = [0.0] * n
        for k in g.wagon_kinds:
            vals[k] = self.BASE_WAGON
        wild_have = sum(have[w] for w in g.wild_kinds)
        best_any = 0.0
        for o, worth in self._worth:
            obj = g.objectives[o]
            lacking = [(k, n_ - have[k]) for k, n_ in obj.needs if have[k] < n_]
            short = sum(x for _, x in lacking) - wild_have
            if short <= 0:
                continue
            frac = worth / short
            best_any = max(best_any, frac)
            for k, _ in lacking:
                vals[k] += frac
        for w in g.wild_kinds:
            vals[w] = (
                max(
                    vals[w],
                    max((vals[k] for k in g.wagon_kinds if k not in g.wild_kinds), default=0.0),
                    best_any + self.BASE_WAGON,
                )
                + self.WILD_BONUS
            )
        return vals

    def _swap_gain(self, turn: MarketTurn, moves: list[Move], vals: list[float]) -> tuple[float, Move | None]:
        have = list(turn.wagons(self.seat))
        loss: dict[int, float] = {}
        best, best_move = 0.0, None
        for m in moves:
            if m.a == m.c:
                continue
            if m.a not in loss:
                have[m.a] -= 1
                loss[m.a] = self._wagon_values(turn, have)[m.a]
                have[m.a] += 1
            gain = vals[m.c] - loss[m.a]
            if gain > best:
                best, best_move = gain, m
        return best, best_move

    def _token_gain(self, turn: MarketTurn) -> tuple[float, int]:
        best, colour = -1.0, -1
        for c, n in enumerate(turn.supply):
            if n > 0:
                gain = self._gains[c] + self.game.per_token
                if gain > best:
                    best, colour = gain, c
        return max(best, 0.0), colour

    def _card_value(self, turn: MarketTurn, card: int, vals: list[float], depth: int = 0) -> float:
        g = self.game
        kind = g.kinds[card]
        if kind.role == WAGON:
            return vals[card]
        if kind.role == CURRENCY:
            dear = max(g.costs)
            return g.per_currency + (self.LIQUIDITY if turn.currency(self.seat) < dear else 0.0)
        if kind.role != CHARACTER:
            return 0.0
        op = kind.op
        me = self.seat
        if op == TAKE_FREE:
            if depth:
                return 1.0
            return max(
                (self._card_value(turn, c, vals, 1) for line in turn.market for c in line if c >= 0), default=0.0
            )
        if op == TAKE_CURRENCY:
            most = max((turn.currency(s) for s in range(self.players) if s != me), default=0)
            return most * (g.per_currency + 0.5)
        if op == SWAP_WAGONS:
            moves = [
                Move("swap", k, s, j)
                for k in g.wagon_kinds
                if turn.wagons(me)[k] > 0
                for s in range(self.players)
                if s != me
                for j in g.wagon_kinds
                if turn.wagons(s)[j] > 0
            ]
            return self._swap_gain(turn, moves, vals)[0]
        if op == TAKE_TOKEN:
            return self._token_gain(turn)[0] + 0.2 if any(turn.supply) else 0.0
        return 0.0

    def _best(self, scored: list[tuple[float, Move]]) -> Move:
        top = max(v for v, _ in scored)
        best = [m for v, m in scored if v >= top - 1e-9]
        return best[0] if len(best) == 1 else self.rng.choice(best)

    # ---- the phases
    def _choose(self, turn: MarketTurn, moves: list[Move]) -> Move:
        values = contract_values(self.game)
        return self._best([(values[m.a], m) for m in moves])

    def _take(self, turn: MarketTurn, moves: list[Move]) -> Move:
        vals = self._wagon_values(turn)
        g = self.game
        scored = []
        for m in moves:
            if m.op != "take":
                scored.append((0.0, m))
                continue
            card = turn.market[m.a][m.b]
            scored.append((self._card_value(turn, card, vals) - g.price(m.a, m.b) * self.TICKET_WORTH, m))
        return self._best(scored)

    def _resolve(self, turn: MarketTurn, moves: list[Move]) -> Move:
        op = turn.pending_op()
        if op == TAKE_FREE:
            vals = self._wagon_values(turn)
            return self._best([(self._card_value(turn, turn.market[m.a][m.b], vals, 1), m) for m in moves])
        if op == TAKE_CURRENCY:
            return self._best([(turn.currency(m.a), m) for m in moves])
        if op == SWAP_WAGONS:
            gain, move = self._swap_gain(turn, moves, self._wagon_values(turn))
            return move if move is not None else self.rng.choice(moves)
        if op == TAKE_TOKEN:
            return self._best([(self._gains[m.a], m) for m in moves])
        return self.rng.choice(moves)

    def _claim(self, turn: MarketTurn, moves: list[Move]) -> Move:
        claims = [m for m in moves if m.op == "claim"]
        if not claims:
            return END
        worth = dict(self._worth)
        return self._best([(worth[turn.visible_objectives[m.a]], m) for m in claims])

    def play_turn(self, turn: MarketTurn) -> None:
        """Play the whole turn (or the contract choice) through ``turn``."""
        while turn.phase != DONE:
            moves = turn.legal_moves()
            if not moves:
                return
            ph = turn.phase
            if len(moves) == 1:
                move = moves[0]
            elif ph == CHOOSE:
                move = self._choose(turn, moves)
            else:
                self._prepare(turn)
                if ph == TAKE:
                    move = self._take(turn, moves)
                elif ph == RESOLVE:
                    move = self._resolve(turn, moves)
                else:
                    move = self._claim(turn, moves)
            turn.apply(move)


_VALUES: dict[int, tuple[MarketGame, list[float]]] = {}


def contract_values(game: MarketGame) -> list[float]:
    """Expected points of each contract for a random set of icons (cached per compiled game).

    The set holds ``game.trigger`` icons, each drawn independently with the
    frequency of its colour among the objectives of the card list; the
    expectation is exact (every colour count is enumerated with its multinomial
    probability).

    Args:
        game: compiled market rules.

    Returns:
        One value per contract of ``game.contracts``.
    """
    hit = _VALUES.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    k = len(game.companies)
    freq = [0] * k
    for o in game.objectives:
        freq[o.company] += 1
    total = sum(freq) or 1
    probs = [f / total for f in freq]
    size = max(1, game.trigger)
    outcomes: list[tuple[tuple[int, ...], float]] = []

    def rec(c: int, left: int, counts: list[int], p: float) -> None:
        if c == k - 1:
            counts.append(left)
            outcomes.append((tuple(counts), p * probs[c] ** left / math.factorial(left)))
            counts.pop()
            return
        for x in range(left + 1):
            counts.append(x)
            rec(c + 1, left - x, counts, p * probs[c] ** x / math.factorial(x))
            counts.pop()

    rec(0, size, [], float(math.factorial(size)))
    values = [
        sum(p * pattern_points(c.terms, counts, game.exclusive_icons) for counts, p in outcomes) for c in game.contracts
    ]
    _VALUES[id(game)] = (game, values)
    return values


BOTS: dict[str, type] = {"random": MarketRandomBot, "greedy": MarketGreedyBot}

__all__ = ["BOTS", "MarketGreedyBot", "MarketRandomBot", "contract_values"]
