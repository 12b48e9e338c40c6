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
from kbsim.engine.families import family_of
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
        penalties: per seat, penalty points (of the hand, or match totals) where the rules score hands.
        scores: per seat, final points where the rules score points (e.g. market games).
        hands: hands played (1 unless the rules play a match).
        hand_ends: end reason of each hand.
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
    penalties: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    hands: int = 1
    hand_ends: list[str] = field(default_factory=list)
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


def _hand_seed(seed: int, hand: int) -> int:
    """The seed of hand ``hand`` (0-based) of a match; hand 0 uses the game's own seed."""
    return seed if hand == 0 else (seed * 1_000_003 + hand) % (1 << 63)


def play_game(game, bots: list, seed: int, *, check: bool = False, log: bool = False):
    """Play one game of any engine family with the family's game loop (from :mod:`kbsim.engine.families`).

    Args:
        game: a compiled game of any family.
        bots: one bot per seat, of that family.
        seed: the game's seed (an int >= 0).
        check: verify the invariants after every move.
        log: keep the move log in the result.

    Returns:
        The family's result (a :class:`GameResult` for the rows family).
    """
    return family_of(game).play(game, bots, seed, check=check, log=log)


def play_rows_game(game: CompiledGame, bots: list, seed: int, *, check: bool = False,
                   log: bool = False) -> GameResult:
    """Play one game of the rows family to its end: one hand, or a match of hands where the rules score hands.

    Args:
        game: compiled rules.
        bots: one bot per seat (seat 0 deals and plays first); see :mod:`kbsim.bots`.
        seed: the game's seed (an int >= 0); the deal and every bot's choices follow from it.
        check: verify conservation of cards and row legality after every move.
        log: keep the move log in the result.

    Returns:
        A :class:`GameResult`. For a match: ``winners`` are the seats with the lowest
        penalty total, ``turns`` and the per-seat counts are summed over the hands,
        ``penalties`` holds the totals and ``hands`` the number of hands.

    Raises:
        ValueError: player count outside the rules' range.
        InvariantError: with ``check``, when an invariant breaks (an engine bug).
        kbsim.engine.moves.IllegalMove: a bot tried an illegal move (a bot bug).
    """
    n = len(bots)
    if not game.min_players <= n <= game.max_players:
        raise ValueError(f"{game.game} is played by {game.min_players}-{game.max_players} players, not {n}")
    if not game.match_target:
        return play_hand(game, bots, seed, game.first_seat % n, check=check, log=log)
    totals = [0] * n
    results = []
    hand = 0
    while True:
        first = (game.first_seat + (hand if game.match_rotate else 0)) % n
        r = play_hand(game, bots, _hand_seed(seed, hand), first, check=check, log=log)
        results.append(r)
        for k in range(n):
            totals[k] += r.penalties[k]
        hand += 1
        if r.end_reason == TURN_LIMIT or max(totals) >= game.match_target or hand >= game.match_max_hands:
            break
    low = min(totals)
    last = results[-1]
    done = max(totals) >= game.match_target
    return GameResult(
        winners=tuple(k for k in range(n) if totals[k] == low) if done else (),
        end_reason=WON if done else TURN_LIMIT, turns=sum(r.turns for r in results),
        cards_left=last.cards_left,
        cards_laid=[sum(r.cards_laid[k] for r in results) for k in range(n)],
        exchanges=[sum(r.exchanges[k] for r in results) for k in range(n)],
        passes=[sum(r.passes[k] for r in results) for k in range(n)],
        rebuilds=[sum(r.rebuilds[k] for r in results) for k in range(n)],
        rows_completed=sum(r.rows_completed for r in results),
        minus_cards=[sum(r.minus_cards[k] for r in results) for k in range(n)],
        penalties=totals, hands=hand,
        hand_ends=[r.end_reason for r in results],
        log=[entry for r in results for entry in (r.log or [])] if log else None)


def play_hand(game: CompiledGame, bots: list, seed: int, first_seat: int, *, check: bool = False,
              log: bool = False) -> GameResult:
    """Play one hand (a whole game for rules without matches) from the deal to its end.

    Args:
        game: compiled rules.
        bots: one bot per seat.
        seed: seed of this hand's deal and bot streams.
        first_seat: the seat that deals and plays first.
        check, log: as for :func:`play_game`.
    """
    n = len(bots)
    if first_seat != game.first_seat % n:
        from dataclasses import replace

        game = replace(game, first_seat=first_seat)
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
    completed = 0
    idle = [0] * n
    exact_round = 0
    moves_log: list | None = [] if log else None
    rows, hands, piles = state.rows, state.hands, state.piles
    seat = first_seat
    turns = 0
    winners: tuple[int, ...] = ()
    reason = TURN_LIMIT
    hand_size = game.hand_size
    all_out = game.all_out
    score = None
    while turns < game.turn_limit:
        if all_out and state.held(seat) == 0:  # out (a seat handed cards again by a power plays again)
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
        if game.refill_at_start:
            turn.draw_at_start()
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
        if turn.won and not all_out:
            winners, reason = (seat,), WON
            break
        if all_out and all(state.held(k) == 0 for k in range(n)):
            reason = ALL_OUT
            break
        if turn.laid:
            for k in range(n):
                idle[k] = 0
            exact_round = 0
        elif not all_out:
            idle[seat] += 1
            if game.stalemate_needs_empty_piles and any(piles):
                pass
            elif game.stalemate_exact:
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
    penalties = []
    if game.penalty:
        table = dict(game.penalty)
        penalties = [sum(table.get(c, 0) for c in hands[k]) for k in range(n)]
    return GameResult(winners=winners, end_reason=reason, turns=turns, cards_left=left, cards_laid=laid,
                      exchanges=exchanges, passes=passes, rebuilds=rebuilds, rows_completed=completed,
                      minus_cards=minus, character_plays=dict(state.char_plays), score=score,
                      penalties=penalties, hands=1, hand_ends=[reason], log=moves_log)


__all__ = ["ALL_OUT", "GameResult", "GameState", "InvariantError", "STALEMATE", "TURN_LIMIT", "WON",
           "bot_seed", "can_progress", "check_invariants", "deal", "play_game", "play_hand", "team_score"]
