"""A whole game: the deal, the turn loop and the end conditions.

Implements the rulebook's "Setup" and "End of the Game" as compiled from the
rule file: row starts, dealing one card at a time from the dealer, hands,
seats taking turns, the immediate win, the stalemate test and the turn-limit
guard. One :class:`random.Random` per game, seeded from the game's seed, makes
the deal; each seat's bot gets its own stream, so a game replays exactly from
its seed alone.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from kbsim.engine.compiled import CompiledGame
from kbsim.engine.moves import Move, Rebuild
from kbsim.engine.turn import DONE, Turn

WON, STALEMATE, TURN_LIMIT = "won", "stalemate", "turn_limit"


class InvariantError(AssertionError):
    """A check enabled with ``--check`` failed: cards not conserved or a row breaks its constraint."""


@dataclass
class GameState:
    """All zones of a game in progress.

    Attributes:
        rows: the rows, each a list of cards first to last.
        hands: hand cards per seat.
        piles: draw pile per seat, top card last.
        discard: the discard pile.
    """

    rows: list[list[int]]
    hands: list[list[int]]
    piles: list[list[int]]
    discard: list[int] = field(default_factory=list)

    def held(self, seat: int) -> int:
        """Cards a seat still holds (hand + draw pile)."""
        return len(self.hands[seat]) + len(self.piles[seat])

    def all_cards(self) -> Counter:
        """Count of every card in every zone (for the conservation check)."""
        c: Counter = Counter(self.discard)
        for zone in (*self.rows, *self.hands, *self.piles):
            c.update(zone)
        return c


def deal(game: CompiledGame, players: int, rng: random.Random) -> GameState:
    """Shuffle and deal (rulebook, Setup).

    Args:
        game: compiled rules.
        players: number of seats (validated by the caller).
        rng: the game's random stream; only ``shuffle`` is used.

    Returns:
        The state before the first turn: one face-up card on each row (per
        ``row_starts``), the rest dealt from seat ``first_seat`` on, hands drawn.
    """
    deck = list(game.deck)
    rng.shuffle(deck)
    rows = [[deck.pop()] if game.row_starts else [] for _ in range(game.n_rows)]
    piles: list[list[int]] = [[] for _ in range(players)]
    if game.deal_rest:
        to_deal = len(deck)
    else:
        to_deal = min(len(deck), game.deal_count * players)
    dealt = [deck.pop() for _ in range(to_deal)]
    if game.deal_one_at_a_time:
        for i, card in enumerate(dealt):
            piles[(game.first_seat + i) % players].append(card)
    else:
        base, extra = divmod(to_deal, players)
        pos = 0
        for k in range(players):
            seat = (game.first_seat + k) % players
            size = base + (1 if k < extra else 0)
            piles[seat].extend(dealt[pos:pos + size])
            pos += size
    hands = []
    for pile in piles:
        n = min(game.hand_size, len(pile))
        hand = pile[len(pile) - n:][::-1]
        del pile[len(pile) - n:]
        hands.append(hand)
    return GameState(rows=rows, hands=hands, piles=piles, discard=list(deck))


def check_invariants(game: CompiledGame, state: GameState, expected: Counter) -> None:
    """Raise :class:`InvariantError` unless cards are conserved and every row is legal."""
    got = state.all_cards()
    if got != expected:
        raise InvariantError(f"cards not conserved: {dict(got - expected)} extra, {dict(expected - got)} missing")
    for i, row in enumerate(state.rows):
        if not game.row_is_legal(row):
            raise InvariantError(f"row {i + 1} breaks the sequence constraint: {row}")
        if game.is_complete(row):
            raise InvariantError(f"row {i + 1} is complete but still on the table: {row}")


def can_progress(game: CompiledGame, rows: list[list[int]], held: set[int]) -> bool:
    """Exact stalemate test: can any held card be laid on a board reachable by rebuilds?

    Explores rebuild sequences breadth-first over canonical boards (rows as a
    sorted multiset). Progress is possible if an empty row can be opened by a
    held card, a held card continues a row end, or a rebuild completes a row.
    After ``exact_search_limit`` boards it assumes progress is possible.

    Args:
        game: compiled rules.
        rows: the current rows (not changed).
        held: every card value still held by any seat (hand or draw pile).
    """
    if not held:
        return False
    opener = any(game.may_open(v) for v in held)
    steps = game.steps
    start = [list(r) for r in rows]
    seen = {tuple(sorted(tuple(r) for r in start))}
    frontier = [start]
    while frontier:
        board = frontier.pop()
        for r in board:
            if not r:
                if opener:
                    return True
            elif any(v - r[-1] in steps for v in held):
                return True
        turn = Turn(game, board, [], [], [])
        for mv in turn.rebuild_moves():
            t = Turn(game, [list(r) for r in board], [], [], [])
            t.rebuild(mv.src, mv.count, mv.dst, mv.from_start)
            if t.completed:
                return True
            key = tuple(sorted(tuple(r) for r in t.rows))
            if key not in seen:
                seen.add(key)
                if len(seen) > game.exact_search_limit:
                    return True
                frontier.append(t.rows)
    return False


@dataclass
class GameResult:
    """The outcome and per-seat statistics of one game.

    Attributes:
        winners: winning seats (more than one for a shared win; empty if none).
        end_reason: ``won``, ``stalemate`` or ``turn_limit``.
        turns: turns played (all seats together).
        cards_left, cards_laid, exchanges, passes, rebuilds: per seat.
        rows_completed: rows completed during the game.
        log: ``(seat, [moves])`` per turn when logging was asked for.
    """

    winners: tuple[int, ...]
    end_reason: str
    turns: int
    cards_left: list[int]
    cards_laid: list[int]
    exchanges: list[int]
    passes: list[int]
    rebuilds: list[int]
    rows_completed: int
    log: list[tuple[int, list[Move]]] | None = None


def _counts_after(hands: list[list[int]], piles: list[list[int]], seat: int) -> tuple[int, ...]:
    n = len(hands)
    return tuple(len(hands[(seat + k) % n]) + len(piles[(seat + k) % n]) for k in range(1, n))


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random stream of the bot in ``seat`` for the game with ``seed`` (not the deal's)."""
    return (seed << 4) | (seat + 1)


def play_game(game: CompiledGame, bots: list, seed: int, *, check: bool = False,
              log: bool = False) -> GameResult:
    """Play one game to its end.

    Args:
        game: compiled rules.
        bots: one bot per seat (seat 0 deals and plays first); see :mod:`kbsim.bots`.
        seed: the game's seed (an int >= 0); the deal and every bot's choices follow from it.
        check: verify conservation of cards and row legality after every move.
        log: keep the move log in the result.

    Returns:
        A :class:`GameResult`.

    Raises:
        ValueError: player count outside the rules' range.
        InvariantError: with ``check``, when an invariant breaks (an engine bug).
        kbsim.engine.moves.IllegalMove: a bot tried an illegal move (a bot bug).
    """
    n = len(bots)
    if not game.min_players <= n <= game.max_players:
        raise ValueError(f"{game.game} is played by {game.min_players}-{game.max_players} players, not {n}")
    state = deal(game, n, random.Random(seed))
    for s, bot in enumerate(bots):
        bot.new_game(game, s, n, bot_seed(seed, s))
    expected = state.all_cards() if check else None
    laid = [0] * n
    exchanges = [0] * n
    passes = [0] * n
    rebuilds = [0] * n
    completed = 0
    idle = [0] * n
    exact_round = 0
    moves_log: list | None = [] if log else None
    rows, hands, piles, discard = state.rows, state.hands, state.piles, state.discard
    seat = game.first_seat % n
    turns = 0
    winners: tuple[int, ...] = ()
    reason = TURN_LIMIT
    hand_size = game.hand_size
    while turns < game.turn_limit:
        turns += 1
        turn = Turn(game, rows, hands[seat], piles[seat], discard, partial(_counts_after, hands, piles, seat))
        if log:
            turn.log = []
        if check:
            turn.on_move = lambda _t: check_invariants(game, state, expected)
        bots[seat].play_turn(turn)
        if turn.phase != DONE:
            turn.end()
        if log:
            moves_log.append((seat, turn.log))
        laid[seat] += turn.laid
        rebuilds[seat] += turn.rebuilds
        completed += turn.completed
        if turn.exchanged:
            exchanges[seat] += 1
        if turn.passed:
            passes[seat] += 1
        if turn.won:
            winners, reason = (seat,), WON
            break
        if turn.laid:
            for k in range(n):
                idle[k] = 0
        else:
            idle[seat] += 1
            if game.stalemate_exact:
                low = min(idle)
                if low >= 1 and low != exact_round:
                    exact_round = low
                    held = set()
                    for k in range(n):
                        held.update(hands[k])
                        held.update(piles[k])
                    if not can_progress(game, rows, held):
                        reason = STALEMATE
                        break
            elif all(idle[k] >= -(-(len(hands[k]) + len(piles[k])) // hand_size) + game.idle_extra_turns
                     for k in range(n)):
                reason = STALEMATE
                break
        seat = (seat + 1) % n
    left = [len(hands[k]) + len(piles[k]) for k in range(n)]
    if reason == STALEMATE and game.stalemate_fewest_wins:
        low = min(left)
        winners = tuple(k for k in range(n) if left[k] == low)
    return GameResult(winners=winners, end_reason=reason, turns=turns, cards_left=left, cards_laid=laid,
                      exchanges=exchanges, passes=passes, rebuilds=rebuilds, rows_completed=completed,
                      log=moves_log)


__all__ = ["GameState", "GameResult", "InvariantError", "Rebuild", "can_progress", "check_invariants", "deal",
           "play_game", "WON", "STALEMATE", "TURN_LIMIT"]
