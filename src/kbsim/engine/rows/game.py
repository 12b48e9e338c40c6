"""A whole game: the deal, the turn loop and the end conditions.

Implements the rulebook's "Setup", "End of the Game" and the solo/cooperative
ending as compiled from the rule file: seats taking turns, the immediate win of
a race, seats going out one by one in solo/cooperative play (then the team
score), the stalemate test and the turn-limit guard. One
:class:`random.Random` per game, seeded from the game's seed, makes the deal;
each seat's bot gets its own stream, so a game replays exactly from its seed.
The stalemate test, its trigger and the winners of a hand are in
:mod:`kbsim.engine.rows.ending` (re-exported here).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial, reduce
from typing import Final

from kbsim.engine.course import Course, no_course
from kbsim.engine.families import family_of
from kbsim.engine.restrict import seat_bars
from kbsim.engine.results import ALL_OUT, STALEMATE, TURN_LIMIT, WON, InvariantError
from kbsim.engine.rng import seeded
from kbsim.engine.rows.boards import can_progress
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.ending import (
    HandTally,
    hand_winners,
    seat_can_lay,
    stalemate_confirmed,
    stalemate_winners,
    team_score,
)
from kbsim.engine.rows.experience import forced, standings
from kbsim.engine.rows.moves import END_TURN, Move
from kbsim.engine.rows.observe import Knowledge, Vault, mask, observe, unmask, unmasked_copy
from kbsim.engine.rows.restrict import bar_turn
from kbsim.engine.rows.state import GameState, deal
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.rows.usage import chances as rule_chances
from kbsim.engine.rows.usage import enabled as usage_enabled
from kbsim.engine.rows.usage import merge as merge_usage
from kbsim.engine.rows.usage import watched as watched_rules
from kbsim.engine.seeds import hand_seed


def check_invariants(game: CompiledGame, state: GameState, expected: Counter, characters: Counter) -> None:
    """Raise :class:`InvariantError` unless cards are conserved and every row is legal.

    Checks: story and character cards conserved, one joker on the table exactly when the joker mark is set,
    every row follows the sequence constraint and none is complete, no empty extra row left on the table.

    Args:
        game: compiled rules (the sequence constraint and complete rows).
        state: the state to check (not changed).
        expected: story-card counts at the start of the game.
        characters: character-card counts at the start of the game.

    Raises:
        InvariantError: the first invariant found broken (an engine bug).
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
        rule_usage: usage counter -> uses in the game (:mod:`kbsim.engine.rows.usage`): how often an optional
            rule, option or power made a taken move legal.
        rule_legal: for the rebuild counters of :data:`kbsim.engine.rows.usage.CHANCES` the rules enable, the
            turns at whose start such a rebuild was legal (the bots' chances to use the rule).
        forced_turns: per seat, turns that offered one kind of turn only (:mod:`kbsim.engine.rows.experience`).
        bar_yields: per seat, turns in which the seat's bar yielded (:mod:`kbsim.engine.rows.restrict`).
        lead_changes, winner_leads_from, winner_behind_at_half: the course of the game
            (:mod:`kbsim.engine.course`); None where they have no value.
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
    deal_hash: str = ""
    deals: list[tuple[int, int, int]] = field(default_factory=list)
    rule_usage: dict[str, int] = field(default_factory=dict)
    rule_legal: dict[str, int] = field(default_factory=dict)
    forced_turns: list[int] = field(default_factory=list)
    bar_yields: list[int] = field(default_factory=list)
    lead_changes: int | None = None
    winner_leads_from: int | None = None
    winner_behind_at_half: bool | None = None


def _digest(parts: object) -> str:
    """16 hex digits of the SHA-256 of ``repr(parts)``."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def state_hash(state: GameState) -> str:
    """16 hex digits identifying a deal.

    The hash covers the row starts, every seat's hand and draw pile (in order) and the characters' piles,
    display and deck. Equal deals give equal hashes.

    Args:
        state: the state just dealt.

    Returns:
        The hash, 16 lowercase hex digits.
    """
    text = (
        f"({_lists_text(state.rows)}, {_lists_text(state.hands)}, {_lists_text(state.piles)}, "
        f"{state.char_piles!r}, {state.display!r}, {state.char_deck!r})"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_INT_TEXT: Final = tuple(repr(i) for i in range(256))  # repr of the small ints (every card of the shipped decks)


def _lists_text(lists: list[list[int]]) -> str:
    """``repr(lists)`` of a list of lists of ints, from the ints' texts kept in :data:`_INT_TEXT`.

    The same characters as ``repr`` (so :func:`state_hash` is the digest of ``repr`` of its parts, as
    :func:`_digest` makes it); about a third of its cost, compiled (the deal hash is taken once per game).
    """
    texts = _INT_TEXT
    return (
        "["
        + ", ".join(["[" + ", ".join([texts[c] if 0 <= c < 256 else repr(c) for c in xs]) + "]" for xs in lists])
        + "]"
    )


def rows_deal_hash(game: CompiledGame, players: int, seed: int) -> str:
    """The rows family's deal hash of the game with ``seed`` (:func:`state_hash` of its deal).

    Args:
        game: compiled rules (``rows`` family).
        players: seats.
        seed: the game's (or hand's) seed.

    Returns:
        16 hex digits, as :func:`state_hash`.
    """
    return state_hash(deal(game, players, random.Random(seed)))


def deal_hash_of(game, players: int, seed: int) -> str:
    """16 hex digits identifying the deal of the game with ``seed`` in any engine family.

    Args:
        game: a compiled game of any family.
        players: seats.
        seed: the game's seed.

    Returns:
        16 hex digits from the family's ``deal_hash`` part.
    """
    return family_of(game).part("deal_hash")(game, players, seed)


def _counts_after(state: GameState, seat: int) -> tuple[int, ...]:
    n = state.players
    return tuple(state.held((seat + k) % n) for k in range(1, n))


def replay_hands(game: CompiledGame, players: int, result: GameResult):
    """Replay a logged game (``play_game(..., log=True)``) hand by hand, on each hand's own deal.

    Yields ``("deal", hand_index, state)`` before each hand's first turn (the state just dealt),
    then ``("turn", turn_no, seat, [(move, rows_before)], state)`` after each turn (turn_no counts
    within the hand from 1; ``rows_before`` is a copy of the rows the move was made on).

    Args:
        game: the compiled rules the game was played with.
        players: seats.
        result: the game's result, played with ``log=True``.

    Yields:
        The ``deal`` and ``turn`` tuples above, in playing order (within a hand the state is one object,
        mutated by later turns).

    Raises:
        ValueError: the result carries no log.
    """
    if result.log is None:
        raise ValueError("the game was played without log=True")
    deals = result.deals or [(0, game.first_seat % players, 0)]
    for h, (seed, dealer, start) in enumerate(deals):
        end = deals[h + 1][2] if h + 1 < len(deals) else len(result.log)
        g = game if dealer == game.first_seat % players else replace(game, first_seat=dealer)
        st = deal(g, players, random.Random(seed))
        yield ("deal", h, st)
        for k, (seat, moves) in enumerate(result.log[start:end], start=1):
            st.turn_no = k
            t = Turn.for_seat(g, st, seat)
            if g.refill_at_start:
                t.draw_at_start()
            done = []
            for m in moves:
                done.append((m, [list(r) for r in st.rows]))
                t.apply(m)
            yield ("turn", k, seat, done, st)


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


def play_rows_game(game: CompiledGame, bots: list, seed: int, *, check: bool = False, log: bool = False) -> GameResult:
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
        kbsim.engine.rows.moves.IllegalMove: a bot tried an illegal move (a bot bug).
    """
    n = len(bots)
    if not game.min_players <= n <= game.max_players:
        raise ValueError(f"{game.game} is played by {game.min_players}-{game.max_players} players, not {n}")
    if not game.match_target:
        return play_hand(game, bots, seed, game.first_seat % n, check=check, log=log)
    totals = [0] * n
    results: list[GameResult] = []
    hand = 0
    course = Course()
    while True:
        first = match_dealer(game, n, hand)
        r = play_hand(
            game,
            bots,
            hand_seed(seed, hand),
            first,
            check=check,
            log=log,
            hand_no=hand,
            totals=totals,
            course=course,
            offset=sum(r.turns for r in results),
        )
        results.append(r)
        for k in range(n):
            totals[k] += r.penalties[k]
        hand += 1
        if match_over(game, totals, hand, r.end_reason):
            break
    low = min(totals)
    last = results[-1]
    done = max(totals) >= game.match_target or (
        game.match_scored_at_max and hand >= game.match_max_hands and last.end_reason != TURN_LIMIT
    )
    winners = tuple(k for k in range(n) if totals[k] == low) if done else ()
    turns = sum(r.turns for r in results)
    changes, leads_from, behind = course.measures(winners, turns)
    return GameResult(
        winners=winners,
        end_reason=WON if done else TURN_LIMIT,
        turns=turns,
        cards_left=last.cards_left,
        cards_laid=[sum(r.cards_laid[k] for r in results) for k in range(n)],
        exchanges=[sum(r.exchanges[k] for r in results) for k in range(n)],
        passes=[sum(r.passes[k] for r in results) for k in range(n)],
        rebuilds=[sum(r.rebuilds[k] for r in results) for k in range(n)],
        rows_completed=sum(r.rows_completed for r in results),
        minus_cards=[sum(r.minus_cards[k] for r in results) for k in range(n)],
        penalties=totals,
        hands=hand,
        hand_ends=[r.end_reason for r in results],
        log=[entry for r in results for entry in (r.log or [])] if log else None,
        deal_hash=_digest([r.deal_hash for r in results]) if len(results) > 1 else results[0].deal_hash,
        rule_usage=reduce(merge_usage, (r.rule_usage for r in results), {}),
        rule_legal=reduce(merge_usage, (r.rule_legal for r in results), {}),
        deals=[
            (s, d, start + sum(r2.turns for r2 in results[:i]))
            for i, r in enumerate(results)
            for s, d, start in r.deals
        ],
        forced_turns=[sum(r.forced_turns[k] for r in results) for k in range(n)],
        bar_yields=[sum(r.bar_yields[k] for r in results) for k in range(n)],
        lead_changes=changes,
        winner_leads_from=leads_from,
        winner_behind_at_half=behind,
    )


def match_dealer(game: CompiledGame, players: int, hand: int) -> int:
    """The seat that deals hand ``hand`` (0-based) of a match (``end.match.rotate_dealer``)."""
    return (game.first_seat + (hand if game.match_rotate else 0)) % players


def match_over(game: CompiledGame, totals: list[int], hands: int, last_reason: str) -> bool:
    """Whether a match ends after ``hands`` hands: the target reached, the most hands played, or a turn limit."""
    return last_reason == TURN_LIMIT or max(totals) >= game.match_target or hands >= game.match_max_hands


def hand_penalties(game: CompiledGame, state: GameState) -> list[int]:
    """Per seat, the penalty points of the cards left in hand (``end.penalties``); empty without penalties."""
    if not game.penalty:
        return []
    table = dict(game.penalty)
    return [sum(table.get(c, 0) for c in state.hands[k]) for k in range(state.players)]


_COUNTERS: dict[int, tuple[CompiledGame, tuple[str, ...], tuple[str, ...]]] = {}  # id(game) -> (game, counters)


def _counters(game: CompiledGame) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The rule-usage counters ``game`` enables and those whose chances are counted (a function of the rules).

    :func:`kbsim.engine.rows.usage.enabled` and :func:`~kbsim.engine.rows.usage.watched`, kept per compiled game
    (at most 64, the game object held so its id stays its own) instead of being worked out again for every hand.
    """
    hit = _COUNTERS.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1], hit[2]
    if len(_COUNTERS) >= 64:
        _COUNTERS.clear()
    enabled = usage_enabled(game)
    watch = watched_rules(dict.fromkeys(enabled, 0))
    _COUNTERS[id(game)] = (game, enabled, watch)
    return enabled, watch


def _invariant_checker(game: CompiledGame, loop: HandLoop) -> Callable[[Turn], None]:
    """A ``Turn.on_move`` hook that runs :func:`check_invariants` against the counts of the hand as dealt now.

    While a bot decides, the zones it may not see are masked (:mod:`kbsim.engine.rows.observe`): the check then
    runs on a copy with the real cards put back.
    """
    state = loop.state
    expected, chars0 = state.story_cards(), state.characters()

    def check(t: Turn) -> None:
        vault = loop.vault
        st = state if vault is None else unmasked_copy(state, vault, t.exchanged)
        check_invariants(game, st, expected, chars0)

    return check


def _play_turn(
    game: CompiledGame,
    loop: HandLoop,
    turn: Turn,
    bot,
    usage: dict[str, int],
    watch: tuple[str, ...],
    legal: dict[str, int],
    on_move: Callable[[Turn], None] | None,
    moves_log: list[tuple[int, list[Move]]] | None,
) -> None:
    """Let the seat's bot play ``turn`` from what its seat may see, ending the turn if the bot did not.

    The zones the seat may not see are masked in place while the bot decides (:func:`~kbsim.engine.rows.observe.mask`)
    and the turn's draws wait until they are back (:attr:`Turn.defer_draws`); :meth:`HandLoop.finish_turn` makes them.

    Before the bot acts (and before the zones are masked) the turn, already under the seat's bar
    (:meth:`HandLoop.start_turn`), is tested for a forced turn (:func:`~kbsim.engine.rows.experience.forced`),
    counted in the loop's tally.

    Args:
        game: compiled rules.
        loop: the hand being played (its state is mutated by the turn).
        turn: the turn, from :meth:`HandLoop.start_turn`.
        bot: the seat's bot.
        usage: the hand's rule-usage counters (mutated; not counted when empty: the rules enable none).
        watch: the counters whose chances are counted (:func:`kbsim.engine.rows.usage.watched`).
        legal: counter of ``watch`` -> turns at whose start such a rebuild was legal (mutated).
        on_move: invariant check run after every move, or None.
        moves_log: the hand's move log (the turn's moves are appended), or None when not logging.
    """
    if moves_log is not None:
        turn_log: list[Move] = []
        turn.log = turn_log
        moves_log.append((turn.seat, turn_log))
    if on_move is not None:
        turn.on_move = on_move
    if forced(turn):
        loop.tally.forced[turn.seat] += 1
    # bots act through turn.apply, which counts the rules each move needed, only when the rules enable a
    # counter at all (the base game enables none)
    turn.usage = usage or None
    if watch:
        for k in rule_chances(game, turn, watch):
            legal[k] += 1
    know = loop.know
    assert know is not None, "the game loop's hands track what everybody knows"
    vault = loop.vault = mask(loop.state, know, turn.seat, turn)
    try:
        bot.play_turn(turn)
        if turn.phase != DONE:
            turn.apply(END_TURN)
    finally:
        loop.vault = None
        unmask(loop.state, vault, turn.exchanged, turn)


def _show_watchers(loop: HandLoop, watchers: list, seat: int) -> None:
    """Hand each watching player (``(seat, watch_table)``) but ``seat`` its seat's view of the table now.

    A player may define ``watch_table(view)`` (see :class:`kbsim.bots.base.Bot`): the game loop calls it at the
    start of every other seat's turn and once when the hand ends, with a copy of the state as that player's seat
    sees it (:func:`~kbsim.engine.rows.observe.observe`), e.g. to draw the table for a person between their turns.
    """
    know = loop.know
    assert know is not None, "the game loop's hands track what everybody knows"
    for s, see in watchers:
        if s != seat:
            see(observe(loop.state, know, s))


class HandLoop:
    """One hand of a rows-family game as a sequence of turns: who plays, each turn's start and end, the end.

    The game loop (:func:`play_hand`, bots deciding from masked zones) and the forward model
    (:mod:`kbsim.engine.rows.forward`, a search playing every seat) step a hand the same way:
    :meth:`start_turn` gives the next seat's :class:`Turn` (after its start draws), the moves are applied to
    it, and :meth:`finish_turn` makes its owed draws, updates what everybody knows (:attr:`know`) and the
    per-seat counts, and applies the end conditions (race won, all out, stalemate; the turn limit at the next
    :meth:`start_turn`).

    Args:
        game: compiled rules, with ``first_seat`` the hand's dealer.
        state: the hand's state just dealt (mutated by the turns).
        know: the hand's public knowledge, or None for a fresh one (dealt in hand ``hand_no`` of a match with
            penalty ``totals`` so far).
        hand_no: index of the hand in its match.
        totals: penalty totals of the match before this hand.
        bars: each seat's bar (restricted play: the move kinds its player is barred from, or None), or None when
            no seat is barred. Each turn of a barred seat is put under its bar at its start
            (:func:`~kbsim.engine.rows.restrict.bar_turn`: the bar yields where it would leave no legal way to
            finish the turn, counted in ``tally.yields``), and the stalemate test makes no barred move. A fresh
            knowledge records them (everybody knows the seats' bars).

    Attributes:
        seat: the seat to play next (or playing).
        turns: turns started in this hand.
        over: the hand has ended; ``reason`` and ``winners`` say how.
        tally: the per-seat counts and the stalemate trigger's state.
        know: what everybody knows (:class:`~kbsim.engine.rows.observe.Knowledge`), or None when not tracked.
        vault: the real cards while the zones are masked for a bot (the game loop's), else None.
    """

    __slots__ = ("game", "state", "seat", "turns", "over", "reason", "winners", "tally", "know", "vault", "bars")

    def __init__(
        self,
        game: CompiledGame,
        state: GameState,
        know: Knowledge | None = None,
        hand_no: int = 0,
        totals: list[int] | None = None,
        *,
        track: bool = True,
        bars: list[frozenset[str] | None] | None = None,
    ) -> None:
        n = state.players
        self.bars = bars if bars and any(b is not None for b in bars) else None
        self.game = game
        self.state = state
        self.seat = (game.first_seat + game.first_player) % n  # rule file: setup.deal.first_player, from the dealer
        self.turns = 0
        self.over = False
        self.reason = TURN_LIMIT
        self.winners: tuple[int, ...] = ()
        self.tally = HandTally(game, state, self.bars)
        if know is None and track:
            know = Knowledge(game, n)
            know.hand_no = hand_no
            know.dealer = game.first_seat % n
            know.totals = list(totals) if totals else [0] * n
            know.bars = self.bars
        self.know = know
        self.vault: Vault | None = None

    def copy(self, state: GameState) -> HandLoop:
        """This loop over ``state`` (a copy of :attr:`state`): the same seat, counts and knowledge (copied)."""
        loop = HandLoop(self.game, state, None if self.know is None else self.know.copy(), track=False, bars=self.bars)
        loop.seat = self.seat
        loop.turns = self.turns
        loop.over = self.over
        loop.reason = self.reason
        loop.winners = self.winners
        loop.tally.copy_from(self.tally)
        return loop

    def resume(self, turn: Turn) -> Turn:
        """Make ``turn``, a turn of :attr:`seat` at some point over :attr:`state`'s zones, the turn in progress.

        Its count of the other seats' cards is read from this loop's state, its draws wait for
        :meth:`finish_turn` (as those of :meth:`start_turn`), and it is handed this loop's knowledge.
        """
        turn.opponent_counts = partial(_counts_after, self.state, turn.seat)
        turn.defer_draws = True
        turn.seen = self.know
        return turn

    def start_turn(self) -> Turn | None:
        """The next seat's turn (its start draws made, under the seat's bar), or None when the turn limit ends the hand.

        Seats out of cards are skipped in solo/cooperative play (a seat handed cards again plays again).
        """
        game, state = self.game, self.state
        if self.over:
            return None
        if self.turns >= game.turn_limit:
            self.over, self.reason = True, TURN_LIMIT
            return None
        n = state.players
        if game.all_out:
            while state.held(self.seat) == 0:  # out (ALL_OUT ended the hand before every seat was)
                self.seat = (self.seat + 1) % n
        seat = self.seat
        self.turns += 1
        state.turn_no = self.turns
        turn = Turn(
            game,
            state.rows,
            state.hands[seat],
            state.piles[seat],
            state.discard,
            partial(_counts_after, state, seat),
            state=state,
            seat=seat,
        )
        know = self.know
        if game.refill_at_start:
            if know is not None:
                know.start_draws(state, turn)
            else:
                turn.draw_at_start()
        if know is not None:
            tally = self.tally
            know.begin_turn(state, seat, self.turns - 1, tally.idle, tally.exact_round)
            turn.seen = know
        turn.defer_draws = True
        bars = self.bars
        if bars is not None:
            bar = bars[seat]
            if bar is not None and bar_turn(turn, game, bar):
                self.tally.yields[seat] += 1
        return turn

    def finish_turn(self, turn: Turn) -> bool:
        """End ``turn`` (over, its draws owed): draws, knowledge, counts, end conditions; True when the hand ended."""
        game, state = self.game, self.state
        seat = turn.seat
        if self.know is not None:
            self.know.end_turn(game, state, turn)
        else:
            turn.finish_draws()
        tally = self.tally
        tally.add(turn, seat)
        n = state.players
        if turn.won and not game.all_out:
            self.winners, self.reason, self.over = (seat,), WON, True
        elif game.all_out and all(state.held(k) == 0 for k in range(n)):
            self.reason, self.over = ALL_OUT, True
        elif tally.stalemate_after(turn, seat):
            self.reason, self.over = STALEMATE, True
        else:
            self.seat = (seat + 1) % n
        return self.over


def play_hand(
    game: CompiledGame,
    bots: list,
    seed: int,
    first_seat: int,
    *,
    check: bool = False,
    log: bool = False,
    hand_no: int = 0,
    totals: list[int] | None = None,
    course: Course | None = None,
    offset: int = 0,
) -> GameResult:
    """Play one hand (a whole game for rules without matches) from the deal to its end.

    The seat after the dealer by ``setup.deal.first_player`` plays first; seats take turns until a seat
    wins a race, every seat is out (solo/cooperative), the stalemate test confirms, or the turn limit.

    Args:
        game: compiled rules.
        bots: one bot per seat.
        seed: seed of this hand's deal and bot streams.
        first_seat: the seat that deals.
        check: verify the invariants after every move (as for :func:`play_game`).
        log: keep the move log in the result (as for :func:`play_game`).
        hand_no: index of the hand in its match (public knowledge handed to the bots).
        totals: penalty totals of the match before this hand (idem; and the standings of the course), or None.
        course: the match's course, marked by this hand (None: the hand is the game, with a course of its own).
        offset: turns played in the match before this hand (for the course's marks).

    Returns:
        The hand's :class:`GameResult` (``hands`` is 1; the course measures only for a game of one hand).

    Raises:
        InvariantError: with ``check``, when an invariant breaks (an engine bug).
    """
    n = len(bots)
    if first_seat != game.first_seat % n:
        game = replace(game, first_seat=first_seat)
    state = deal(game, n, seeded(seed))  # (random.Random(seed), built without interpreted frames)
    dealt = state_hash(state)
    for s, bot in enumerate(bots):
        bot.new_game(game, s, n, seed)
    loop = HandLoop(game, state, hand_no=hand_no, totals=totals, bars=seat_bars(bots))
    on_move = _invariant_checker(game, loop) if check else None
    tally = loop.tally
    moves_log: list[tuple[int, list[Move]]] | None = [] if log else None
    enabled, watch = _counters(game)
    usage = dict.fromkeys(enabled, 0)  # every counter the rules enable, used or not
    legal = dict.fromkeys(watch, 0)  # turns at whose start such a rule made a rebuild legal
    own_course = course is None and not game.all_out
    if own_course:
        course = Course()
    if course is not None:
        course.mark(offset, standings(game, state, totals))
    watchers = [(s, b.watch_table) for s, b in enumerate(bots) if hasattr(b, "watch_table")]
    while True:
        turn = loop.start_turn()
        if turn is None:
            break
        if watchers:
            _show_watchers(loop, watchers, turn.seat)
        _play_turn(game, loop, turn, bots[turn.seat], usage, watch, legal, on_move, moves_log)
        if loop.finish_turn(turn):
            break
        if course is not None and loop.turns % n == 0:
            course.mark(offset + loop.turns, standings(game, state, totals))
    if watchers:
        _show_watchers(loop, watchers, -1)
    turns, reason, winners = loop.turns, loop.reason, loop.winners
    winners, score = hand_winners(game, state, reason, winners)
    if course is not None:
        course.mark(offset + turns, standings(game, state, totals))  # (the winner leads at the end)
    penalties = hand_penalties(game, state)
    changes, leads_from, behind = course.measures(winners, turns) if own_course and course is not None else no_course()
    return GameResult(
        winners=winners,
        end_reason=reason,
        turns=turns,
        cards_left=[state.held(k) for k in range(n)],
        cards_laid=tally.laid,
        exchanges=tally.exchanges,
        passes=tally.passes,
        rebuilds=tally.rebuilds,
        rows_completed=tally.completed,
        minus_cards=tally.minus,
        character_plays=dict(state.char_plays),
        score=score,
        penalties=penalties,
        hands=1,
        hand_ends=[reason],
        log=moves_log,
        deal_hash=dealt,
        deals=[(seed, first_seat, 0)],
        rule_usage=usage,
        rule_legal=legal,
        forced_turns=tally.forced,
        bar_yields=tally.yields,
        lead_changes=changes,
        winner_leads_from=leads_from,
        winner_behind_at_half=behind,
    )


__all__ = [
    "ALL_OUT",
    "GameResult",
    "GameState",
    "InvariantError",
    "STALEMATE",
    "TURN_LIMIT",
    "WON",
    "can_progress",
    "check_invariants",
    "deal",
    "HandLoop",
    "deal_hash_of",
    "hand_penalties",
    "hand_winners",
    "match_dealer",
    "match_over",
    "play_game",
    "play_hand",
    "replay_hands",
    "rows_deal_hash",
    "seat_can_lay",
    "stalemate_confirmed",
    "stalemate_winners",
    "state_hash",
    "team_score",
]
