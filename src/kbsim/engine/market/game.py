"""The market game loop: turn order, end trigger and final round, final score, replay."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kbsim.engine.course import Course
from kbsim.engine.market.compiled import MarketGame
from kbsim.engine.market.moves import CHOOSE, DONE, TAKE, Move
from kbsim.engine.market.notation import format_market_move
from kbsim.engine.market.observe import MarketContext, handed, masked
from kbsim.engine.market.scoring import pattern_points
from kbsim.engine.market.state import MarketState, check_state, new_state
from kbsim.engine.market.turn import MarketTurn
from kbsim.engine.restrict import seat_bars
from kbsim.engine.results import STALEMATE, TURN_LIMIT, WON


def final_points(g: MarketGame, st: MarketState) -> list[dict[str, int]]:
    """Per seat: ``objective_points``, ``contract_points``, ``currency``, ``tokens``, ``objectives``, ``total``.

    Rule implemented: ``end.score`` (objective points + contract points + points
    per currency card (+ per token)).
    """
    out = []
    for s in range(st.players):
        obj = sum(g.objectives[o].points for o in st.claimed[s])
        counts = st.icon_counts(g, s)
        con = sum(pattern_points(g.contracts[c].terms, counts, g.exclusive_icons) for c in st.contracts[s])
        tok = sum(st.tokens[s])
        total = (
            (obj if g.score_objectives else 0)
            + (con if g.score_contracts else 0)
            + g.per_currency * st.currency[s]
            + g.per_token * tok
        )
        out.append(
            {
                "objective_points": obj,
                "contract_points": con,
                "currency": st.currency[s],
                "tokens": tok,
                "objectives": len(st.claimed[s]),
                "total": total,
            }
        )
    return out


def winners_of(g: MarketGame, points: list[dict[str, int]]) -> tuple[int, ...]:
    """The winning seats: highest total, then the tie-breakers in order; a remaining tie is shared."""
    seats = list(range(len(points)))
    for key in ("total", *g.tie_breakers):
        best = max(points[s][key] for s in seats)
        seats = [s for s in seats if points[s][key] == best]
        if len(seats) == 1:
            break
    return tuple(seats)


@dataclass
class MarketResult:
    """The outcome and per-seat statistics of one market game.

    Attributes:
        winners: winning seats (several for a shared win; empty at the turn limit).
        end_reason: ``won``, ``stalemate`` or ``turn_limit``.
        turns: turns played (all seats together; the contract choices are not turns).
        passes: per seat, turns in which the seat took no card.
        scores: per seat, final points (:func:`final_points`).
        cards_held: per seat, market cards (wagons and currency) held at the end.
        wagons_spent: per seat, wagons spent on claimed objectives.
        objectives: per seat, objectives claimed.
        characters_lost: characters taken that could not act.
        character_plays: (seat, character key) -> times it acted.
        hands: always 1 (a market game is one hand).
        hand_ends: ``[end_reason]``.
        log: ``(seat, [moves])`` per entry when logging was asked for (the contract choices first).
        forced_turns: per seat, turns whose first decision had one legal move.
        bar_yields: per seat, turns in which the seat's bar yielded (:mod:`kbsim.engine.market.restrict`).
        lead_changes, winner_leads_from, winner_behind_at_half: the course of the game by points
            (:mod:`kbsim.engine.course`); the winner measures None without a sole winner.
    """

    winners: tuple[int, ...]
    end_reason: str
    turns: int
    passes: list[int]
    scores: list[int]
    cards_held: list[int]
    wagons_spent: list[int]
    objectives: list[int]
    characters_lost: int = 0
    character_plays: dict = field(default_factory=dict)
    hands: int = 1
    hand_ends: list[str] = field(default_factory=list)
    log: list | None = None
    deal_hash: str = ""
    forced_turns: list[int] = field(default_factory=list)
    bar_yields: list[int] = field(default_factory=list)
    lead_changes: int | None = None
    winner_leads_from: int | None = None
    winner_behind_at_half: bool | None = None


def standings(g: MarketGame, st: MarketState) -> list[int]:
    """Each seat's points if the game ended now (:func:`final_points`), the standing of the course of a game."""
    return [p["total"] for p in final_points(g, st)]


_NOT_ZONES = ("rng", "hidden", "deck_seen", "obj_seen", "returned")  # state slots that are no zone of the table


def state_digest(st: MarketState) -> str:
    """16 hex digits identifying a dealt market state (every zone; not the random stream)."""
    parts = [getattr(st, k) for k in type(st).__slots__ if k not in _NOT_ZONES]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def market_deal_hash(game: MarketGame, players: int, seed: int) -> str:
    """The deal hash of the market game with ``seed`` (the state its setup deals from the game's stream)."""
    return state_digest(new_state(game, players, random.Random(seed)))


def record_values(result: MarketResult) -> dict[str, Any]:
    """The market family's record columns of one game (see :mod:`kbsim.sim.records`)."""
    return {
        "cards_held": result.cards_held,
        "wagons_spent": result.wagons_spent,
        "objectives": result.objectives,
        "characters_lost": result.characters_lost,
    }


@dataclass
class MarketPlay:
    """The turn sequence of one game: whose turn, the end trigger and final round, the stall guard.

    Used by :func:`play_market_game` and by the example runner, so both follow the same rules. It also keeps the
    experience measures of the game: each seat's bar (restricted play, :mod:`kbsim.engine.market.restrict`; set
    :attr:`bars` before the first turn) and the turns in which it yielded, the forced turns (whose first decision
    has one legal move), and, where :attr:`course` is set (the game loop's; a forward model's world keeps none),
    the course of the game by points (:class:`~kbsim.engine.course.Course`).
    """

    game: MarketGame
    state: MarketState
    seat: int = 0
    turns: int = 0
    trigger_seat: int | None = None
    remaining: int | None = None
    idle: int = 0
    ended: bool = False
    reason: str = TURN_LIMIT
    passes: list[int] = field(default_factory=list)
    char_plays: Counter = field(default_factory=Counter)
    lost: int = 0
    bars: list[frozenset[str] | None] = field(default_factory=list)
    forced: list[int] = field(default_factory=list)
    yields: list[int] = field(default_factory=list)
    course: Course | None = None

    def __post_init__(self) -> None:
        n = self.state.players
        if not self.passes:
            self.passes = [0] * n
        self.forced = [0] * n
        self.yields = [0] * n

    def context(self, choosing: bool = False) -> MarketContext:
        """The counts every seat knows now, for the view of the next turn (or of a contract choice)."""
        return MarketContext(
            choosing,
            self.turns if choosing else self.turns - 1,
            self.trigger_seat,
            self.remaining,
            self.idle,
            tuple(self.passes),
            tuple(self.bars) if any(b is not None for b in self.bars) else None,
        )

    def new_turn(self) -> MarketTurn:
        """The next turn (of :attr:`seat`), under the seat's bar; a forced turn is counted."""
        self.turns += 1
        t = MarketTurn(self.game, self.state, self.seat)
        t.bar = self.bars[self.seat] if self.bars else None
        if len(t.legal_moves()) == 1:  # a forced turn: its first decision has one legal move
            self.forced[self.seat] += 1
        return t

    def finish_turn(self, turn: MarketTurn) -> bool:
        """Close ``turn`` (ending it if the bot left it open), apply the end rules, move to the next seat.

        Returns:
            True when the game is over (:attr:`reason` says why).

        Raises:
            IllegalMove: the turn cannot end yet (a card or a character is due).
        """
        if turn.phase != DONE:
            turn.close()
        g, n, s = self.game, self.state.players, self.seat
        self.yields[s] += turn.bar_yielded
        for char in turn.resolved:
            self.char_plays[(s, g.kinds[char].key)] += 1
        self.lost += turn.lost
        if not turn.took:
            self.passes[s] += 1
        self.idle = 0 if (turn.took or turn.claims) else self.idle + 1
        if self.trigger_seat is not None:
            assert self.remaining is not None, "the end was triggered without a final round"
            self.remaining -= 1
        elif len(self.state.claimed[s]) >= g.trigger:
            self.trigger_seat = s
            if g.final_round == "others":
                self.remaining = n - 1
            elif g.final_round == "complete_round":
                self.remaining = (g.first_seat - 1 - s) % n
            else:
                self.remaining = 0
        if self.remaining is not None and self.remaining <= 0:
            self.ended, self.reason = True, WON
        elif g.stall_round and self.idle >= n:
            self.ended, self.reason = True, STALEMATE
        self.seat = (s + 1) % n
        if self.course is not None and not self.ended and self.turns % n == 0:
            self.course.mark(self.turns, standings(g, self.state))
        return self.ended


def _show_watchers(st: MarketState, watchers: list, seat: int) -> None:
    """Hand each watching player (``(seat, watch_table)``) but ``seat`` its seat's view of the table now.

    A player may define ``watch_table(view)`` (see :class:`kbsim.bots.base.Bot`): the game loop calls it at the
    start of every other seat's turn (and contract choice) and once when the game ends, with a masked copy of the
    table as that player's seat sees it (:func:`~kbsim.engine.market.observe.masked`).
    """
    for s, see in watchers:
        if s != seat:
            see(masked(st, s))


def play_market_game(
    game: MarketGame, bots: list, seed: int, *, check: bool = False, log: bool = False
) -> MarketResult:
    """Play one game of a market rule set from setup to the final score.

    Rule implemented: setup (contracts dealt and chosen by the bots, then the market
    and objectives laid out), turns in seat order from ``first_seat``, the end
    trigger and its final round, the stall guard, the turn limit; then the final
    score (:func:`final_points`) and winners (:func:`winners_of`).

    Args:
        game: compiled market rules.
        bots: one bot per seat (see :mod:`kbsim.bots.market`).
        seed: the game's seed; the deal and every bot's choices follow from it.
        check: verify conservation of every card and token after every move.
        log: keep the move log (``(seat, [moves])``; the contract choices come first).

    Returns:
        A :class:`MarketResult`: ``scores`` holds each seat's final points;
        ``winners`` is empty at the turn limit.

    Raises:
        ValueError: player count outside the rules' range.
        InvariantError: with ``check``, when an invariant breaks (an engine bug).
        IllegalMove: a bot tried an illegal move or left a turn unfinishable (a bot bug).
    """
    n = len(bots)
    if not game.min_players <= n <= game.max_players:
        raise ValueError(f"{game.game} is played by {game.min_players}-{game.max_players} players, not {n}")
    rng = random.Random(seed)
    st = new_state(game, n, rng)
    dealt = state_digest(st)
    for s, bot in enumerate(bots):
        bot.new_game(game, s, n, seed)
    moves_log: list[tuple[int, list[Move] | None]] = []

    def verify(_t: MarketTurn | None) -> None:
        check_state(game, st, n)

    def watch(t: MarketTurn) -> MarketTurn:
        """Give turn ``t`` a move log (with ``log``) and the invariant check after every move (with ``check``)."""
        if log:
            t.log = []
        if check:
            t.on_move = verify
        return t

    if check:
        verify(None)
    course = Course(lower_is_better=False)
    play = MarketPlay(game, st, seat=game.first_seat % n, bars=seat_bars(bots), course=course)
    views: list[MarketState | None] = [None] * n  # each seat's masked table, kept up to date between its turns
    watchers = [(s, b.watch_table) for s, b in enumerate(bots) if hasattr(b, "watch_table")]
    for s, bot in enumerate(bots):  # each bot decides from its seat's view (kbsim.engine.market.observe)
        _show_watchers(st, watchers, s)
        t = watch(MarketTurn(game, st, s, phase=CHOOSE))
        view = handed(t, play.context(choosing=True), views[s])
        views[s] = view.state
        bot.play_turn(view)
        if t.phase != DONE:
            t.close()
        moves_log.append((s, t.log))
    course.mark(0, standings(game, st))  # (the contracts chosen)
    while play.turns < game.turn_limit:
        seat = play.seat
        t = watch(play.new_turn())
        _show_watchers(st, watchers, seat)
        view = handed(t, play.context(), views[seat])
        views[seat] = view.state
        bots[seat].play_turn(view)
        moves_log.append((seat, t.log))
        if play.finish_turn(t):
            break
    _show_watchers(st, watchers, -1)
    if check:
        verify(None)
    points = final_points(game, st)
    winners = winners_of(game, points) if play.ended else ()
    course.mark(play.turns, [p["total"] for p in points])
    spent = [0] * n
    for s in range(n):
        spent[s] = sum(sum(k for _, k in game.objectives[o].needs) for o in st.claimed[s])
    held = [sum(st.wagons[s]) + st.currency[s] for s in range(n)]
    changes, leads_from, behind = course.measures(winners, play.turns)
    return MarketResult(
        winners=winners,
        end_reason=play.reason,
        turns=play.turns,
        passes=play.passes,
        scores=[p["total"] for p in points],
        cards_held=held,
        wagons_spent=spent,
        objectives=[len(c) for c in st.claimed],
        characters_lost=play.lost,
        character_plays=dict(play.char_plays),
        hands=1,
        hand_ends=[play.reason],
        log=moves_log if log else None,
        deal_hash=dealt,
        forced_turns=play.forced,
        bar_yields=play.yields,
        lead_changes=changes,
        winner_leads_from=leads_from,
        winner_behind_at_half=behind,
    )


def replay_market_log(game: MarketGame, players: int, seed: int, log: list) -> list[dict[str, Any]]:
    """Replay a logged game from its seed and describe every turn.

    Args:
        game: compiled market rules.
        players: seats.
        seed: the game's seed (the deal is rebuilt from it).
        log: :attr:`GameResult.log` of that game (the contract choices first, one entry per seat).

    Returns:
        One dict per log entry: ``turn`` (0 for a contract choice), ``seat``, ``moves`` (notation) and
        ``market`` (the face-up lines after the entry).

    Raises:
        IllegalMove: the log does not fit the deal (another seed or other rules).
    """
    st = new_state(game, players, random.Random(seed))
    out = []
    for i, (seat, moves) in enumerate(log):
        choosing = i < players
        t = MarketTurn(game, st, seat, phase=CHOOSE if choosing else TAKE)
        for mv in moves:
            t.apply(mv)
        out.append(
            {
                "turn": 0 if choosing else i - players + 1,
                "seat": seat,
                "moves": [format_market_move(m, game) for m in moves],
                "market": [" ".join(game.card_text(c) for c in line) for line in st.lines],
            }
        )
    return out
