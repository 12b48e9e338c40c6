"""A whole game: the deal, the turn loop and the end conditions.

Implements the rulebook's "Setup", "End of the Game" and the solo/cooperative
ending as compiled from the rule file: seats taking turns, the immediate win of
a race, seats going out one by one in solo/cooperative play (then the team
score), the stalemate test and the turn-limit guard. One
:class:`random.Random` per game, seeded from the game's seed, makes the deal;
each seat's bot gets its own stream, so a game replays exactly from its seed.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from kbsim.engine.compiled import CompiledGame
from kbsim.engine.moves import Move
from kbsim.engine.state import GameState, deal
from kbsim.engine.turn import DONE, Turn, can_progress

WON, STALEMATE, TURN_LIMIT, ALL_OUT = "won", "stalemate", "turn_limit", "all_out"


class InvariantError(AssertionError):
    """A check enabled with ``--check`` failed: cards not conserved or a row breaks its constraint."""


def check_invariants(game: CompiledGame, state: GameState, expected: Counter, characters: Counter) -> None:
    """Raise :class:`InvariantError` unless cards are conserved and every row is legal.

    Args:
        expected: story-card counts at the start of the game.
        characters: character-card counts at the start of the game.
    """
    got = state.story_cards()
    if got != expected:
        raise InvariantError(f"story cards not conserved: {dict(got - expected)} extra, {dict(expected - got)} missing")
    chars = state.characters()
    if chars != characters:
        raise InvariantError(f"character cards not conserved: {dict(chars)} != {dict(characters)}")
    jokers = sum(1 for row in state.rows for c in row if c < 0)
    if jokers != (1 if state.joker is not None else 0):
        raise InvariantError(f"{jokers} joker(s) in rows but joker mark is {state.joker!r}")
    for i, row in enumerate(state.rows):
        if not game.row_is_legal(row):
            raise InvariantError(f"row {i + 1} breaks the sequence constraint: {row}")
        if game.is_complete(row):
            raise InvariantError(f"row {i + 1} is complete but still on the table: {row}")
        if i >= state.n_fixed and not row:
            raise InvariantError(f"extra row {i + 1} is empty but still on the table")


@dataclass
class GameResult:
    """The outcome and per-seat statistics of one game.

    Attributes:
        winners: winning seats (more than one for a shared win; empty if none;
            solo/cooperative: every seat when the score reaches the win threshold).
        end_reason: ``won``, ``stalemate``, ``turn_limit`` or ``all_out`` (solo/cooperative end).
        turns: turns played (all seats together).
        cards_left, cards_laid, exchanges, passes, rebuilds, minus_cards: per seat.
        rows_completed: rows completed during the game.
        character_plays: (seat, character key) -> plays.
        score: team score (solo/cooperative), else None.
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
    minus_cards: list[int] = field(default_factory=list)
    character_plays: dict = field(default_factory=dict)
    score: int | None = None
    log: list[tuple[int, list[Move]]] | None = None


def _counts_after(state: GameState, seat: int) -> tuple[int, ...]:
    n = state.players
    return tuple(state.held((seat + k) % n) for k in range(1, n))


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random stream of the bot in ``seat`` for the game with ``seed`` (not the deal's)."""
    return (seed << 4) | (seat + 1)


def team_score(game: CompiledGame, state: GameState) -> int:
    """Solo/cooperative score: unplayed characters, empty row cards, minus cards (rulebook, Solo Game)."""
    per_char, per_row, per_minus, _, _ = game.score
    unplayed = len(state.display) + len(state.char_deck)
    empty = sum(1 for row in state.rows[:state.n_fixed] if not row)
    minus = sum(len(m) for m in state.minus)
    return per_char * unplayed + per_row * empty + per_minus * minus


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
    if check:
        expected, chars0 = state.story_cards(), state.characters()
    laid = [0] * n
    exchanges = [0] * n
    passes = [0] * n
    rebuilds = [0] * n
    minus = [0] * n
    out = [False] * n
    completed = 0
    idle = [0] * n
    exact_round = 0
    moves_log: list | None = [] if log else None
    rows, hands, piles = state.rows, state.hands, state.piles
    seat = game.first_seat % n
    turns = 0
    winners: tuple[int, ...] = ()
    reason = TURN_LIMIT
    hand_size = game.hand_size
    all_out = game.all_out
    score = None
    while turns < game.turn_limit:
        if all_out and out[seat]:
            seat = (seat + 1) % n
            continue
        turns += 1
        state.turn_no = turns
        turn = Turn(game, rows, hands[seat], piles[seat], state.discard, partial(_counts_after, state, seat),
                    state=state, seat=seat)
        if log:
            turn.log = []
        if check:
            turn.on_move = lambda _t: check_invariants(game, state, expected, chars0)
        bots[seat].play_turn(turn)
        if turn.phase != DONE:
            turn.end()
        if log:
            moves_log.append((seat, turn.log))
        laid[seat] += turn.laid
        rebuilds[seat] += turn.rebuilds
        minus[seat] += turn.minus_cards
        completed += turn.completed
        if turn.exchanged:
            exchanges[seat] += 1
        if turn.passed:
            passes[seat] += 1
        if turn.won:
            if not all_out:
                winners, reason = (seat,), WON
                break
            out[seat] = True
            if all(out):
                reason = ALL_OUT
                break
        if turn.laid:
            for k in range(n):
                idle[k] = 0
            exact_round = 0
        elif not all_out:
            idle[seat] += 1
            if game.stalemate_exact:
                low = min(idle)
                if low >= 1 and low != exact_round:
                    exact_round = low
                    held = set()
                    for k in range(n):
                        held.update(hands[k])
                        held.update(piles[k])
                        held.update(c for c, _ in state.parked[k])
                    if not can_progress(game, rows, held):
                        reason = STALEMATE
                        break
            elif all(idle[k] >= -(-state.held(k) // hand_size) + game.idle_extra_turns for k in range(n)):
                reason = STALEMATE
                break
        seat = (seat + 1) % n
    left = [state.held(k) for k in range(n)]
    if reason == STALEMATE and game.stalemate_fewest_wins:
        low = min(left)
        winners = tuple(k for k in range(n) if left[k] == low)
    if game.score is not None and reason == ALL_OUT:
        score = team_score(game, state)
        if score >= game.score[3]:
            winners = tuple(range(n))
    return GameResult(winners=winners, end_reason=reason, turns=turns, cards_left=left, cards_laid=laid,
                      exchanges=exchanges, passes=passes, rebuilds=rebuilds, rows_completed=completed,
                      minus_cards=minus, character_plays=dict(state.char_plays), score=score, log=moves_log)


__all__ = ["ALL_OUT", "GameResult", "GameState", "InvariantError", "STALEMATE", "TURN_LIMIT", "WON",
           "bot_seed", "can_progress", "check_invariants", "deal", "play_game", "team_score"]
