"""How a rows-family hand ends: the stalemate test and its trigger, the winners, the team score.

Rulebook, "End of the Game" and the solo/cooperative ending, as compiled from the rule file: a race is won by
the seat that runs out of cards (the turn loop, :mod:`kbsim.engine.rows.game`, sees that); a stalemate is
declared when the rule file's idle-turn trigger fires (:class:`HandTally`) and the exact test confirms nobody
can lay a card (:func:`stalemate_confirmed`: :func:`seat_can_lay` for each seat, or the search of
:func:`kbsim.engine.rows.reach.lay_possible` where character piles can change the table); its winners hold the
fewest cards (:func:`stalemate_winners`); solo and cooperative play end with a team score (:func:`team_score`,
:func:`hand_winners`).
"""

from __future__ import annotations

from kbsim.engine.results import ALL_OUT, STALEMATE, IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.reach import PLAYS_LISTED, lay_possible, search_key
from kbsim.engine.rows.restrict import narrowed
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn


def team_score(game: CompiledGame, state: GameState) -> int:
    """Solo/cooperative score: unplayed characters, empty row cards, minus cards (rulebook, Solo Game).

    Args:
        game: compiled rules with a team score (``end.score`` in the rule file).
        state: the state at the end of the game.

    Returns:
        The team score: points per unplayed character, per empty fixed row card and per minus card, summed.

    Raises:
        ValueError: the rules have no team score.
    """
    if game.score is None:
        raise ValueError(f"{game.game} has no team score (end.score)")
    per_char, per_row, per_minus, _, _ = game.score
    unplayed = len(state.display) + len(state.char_deck)
    empty = sum(1 for row in state.rows[: state.n_fixed] if not row)
    minus = sum(len(m) for m in state.minus)
    return per_char * unplayed + per_row * empty + per_minus * minus


def _probe_turn(
    game: CompiledGame, state: GameState, seat: int, pile_cards: bool, bar: frozenset[str] | None = None
) -> Turn:
    """A fresh turn of ``seat`` on a copy of ``state``, under the seat's ``bar`` (restricted play) if any.

    Parked cards are usable; with ``pile_cards``, the draw pile's cards join the hand (they reach it by
    exchanges or refills).
    """
    st = state.copy()
    st.turn_no += 1
    hand = st.hands[seat]
    if pile_cards:
        hand.extend(c for c in st.piles[seat] if c > 0)
    t = Turn(game, st.rows, hand, [], st.discard, state=st, seat=seat)
    if bar:
        t.g = narrowed(game, bar)
        t.bar = bar
    return t


def seat_can_lay(game: CompiledGame, state: GameState, seat: int, *, bar: frozenset[str] | None = None) -> bool:
    """Can one seat lay a card it holds, now or on a later turn of its own, with one character play at most?

    The seat's hand and parked cards count, and its draw pile's cards where they can reach the
    hand (an exchange is allowed, or refills are still due). Every board reachable by legal
    rebuilds is searched with the same move generator that lists legal lays
    (:meth:`~kbsim.engine.rows.turn.Turn.lay_reachable`). Where the rule file's ``stalemate.powers``
    is ``in_play``, every character still on a pile or the display is tried for this seat, each legal play
    followed by the same search. A search that reaches ``exact_search_limit`` counts as "can lay". The test of
    the display games (solo, cooperative) and of games without characters; with character piles
    :func:`stalemate_confirmed` asks :func:`kbsim.engine.rows.reach.lay_possible`, which follows the piles.

    Args:
        game: compiled rules (``rows`` family).
        state: the game between turns (not changed).
        seat: the seat tested.
        bar: the move kinds the seat's player is barred from (restricted play): the search makes none of them.

    Returns:
        False only when the search proves the seat can lay no card it holds this way.
    """
    pile_cards = game.exchange_allowed or len(state.hands[seat]) < game.hand_size
    turn = _probe_turn(game, state, seat, pile_cards, bar)
    if not turn.hand and not turn.parked:
        return False
    if turn.lay_reachable() is not False:
        return True
    if not (game.chars_enabled and game.stalemate_powers):
        return False
    keys = list(dict.fromkeys([*state.display, *(k for p in state.char_piles for k in p)]))
    for key in keys:
        if key == "?":
            continue
        probe = _probe_turn(game, state, seat, pile_cards, bar)
        st = probe.state
        if game.chars_display_mode:
            if key not in st.display:
                st.display.append(key)
        else:
            for p in st.char_piles:
                if key in p:
                    p.remove(key)
            st.char_piles[seat].insert(0, key)
        plays = probe.play_moves(limit=PLAYS_LISTED)
        if len(plays) >= PLAYS_LISTED:
            return True  # (a listing cut short: undecided, the game goes on)
        for mv in plays:
            t = probe.clone()
            try:
                t.apply(mv)
            except IllegalMove:  # a play the enumerator listed but that fails is no way out
                continue
            if t.laid > probe.laid or t.lay_reachable() is not False:
                return True  # (a play may itself lay cards: an extra row opened with hand cards)
    return False


def follows_piles(game: CompiledGame, state: GameState) -> bool:
    """Whether the stalemate test follows the character piles (:func:`kbsim.engine.rows.reach.lay_possible`)."""
    return game.chars_enabled and game.stalemate_powers and not game.chars_display_mode and not state.shared


def stalemate_confirmed(game: CompiledGame, state: GameState, bars: list[frozenset[str] | None] | None = None) -> bool:
    """The rulebook's stalemate: no empty row card can be opened and no seat can lay any card it holds.

    Implements "the game ends when nobody can lay a card, even after exchanging". With characters in piles
    (the complete game, ``stalemate.powers: in_play``) the table may change without a card being laid, by
    character plays that stay in turns laying no card: the search of
    :func:`kbsim.engine.rows.reach.lay_possible` follows every sequence of them (the piles turn, a pile whose
    top has no legal play blocks what lies below it); an undecided search is no stalemate. Otherwise the exact
    test of :func:`seat_can_lay` for every seat. The idle-turn count of the rule file is only the trigger that
    calls this test.

    Restricted play: a seat barred from kinds of move (``bars``) is tested making none of them, so a seat barred
    from the character on top of its pile holds that pile still (the characters beneath never reach anybody).

    Args:
        game: compiled rules (``rows`` family).
        state: the game between turns (not changed).
        bars: each seat's bar, or None (no seat barred).

    Returns:
        True when no seat can lay (the game ends in a stalemate).
    """
    if follows_piles(game, state):
        return lay_possible(game, state, bars) is False
    return not any(seat_can_lay(game, state, k, bar=bars[k] if bars else None) for k in range(state.players))


class HandTally:
    """Per-seat statistics of one hand and the idle-turn bookkeeping of the stalemate test.

    Args:
        game: compiled rules.
        state: the hand's state (read by the stalemate test).
        bars: each seat's bar (restricted play), for the stalemate test; None when no seat is barred.
    """

    def __init__(self, game: CompiledGame, state: GameState, bars: list[frozenset[str] | None] | None = None) -> None:
        n = state.players
        self.game = game
        self.state = state
        self.bars = bars if bars and any(bars) else None
        self.laid = [0] * n
        self.exchanges = [0] * n
        self.passes = [0] * n
        self.rebuilds = [0] * n
        self.minus = [0] * n
        self.forced = [0] * n
        self.yields = [0] * n
        self.completed = 0
        self.idle = [0] * n
        self.exact_round = 0
        self.verdicts: dict = {}  # exact stalemate test, memoised by the position
        # (the staying-plays search reads a seat's hand and draw pile as one pool: memoised by its own key)
        self.pooled = follows_piles(game, state)

    def copy_from(self, other: HandTally) -> None:
        """Take the counts of ``other`` (a tally of the same hand), as copies; the stalemate verdicts are shared."""
        self.laid = other.laid[:]
        self.exchanges = other.exchanges[:]
        self.passes = other.passes[:]
        self.rebuilds = other.rebuilds[:]
        self.minus = other.minus[:]
        self.forced = other.forced[:]
        self.yields = other.yields[:]
        self.bars = other.bars
        self.completed = other.completed
        self.idle = other.idle[:]
        self.exact_round = other.exact_round
        self.verdicts = other.verdicts  # (a function of the position only)
        self.pooled = other.pooled

    def add(self, turn: Turn, seat: int) -> None:
        """Count a finished turn of ``seat``.

        A turn that lays nothing, exchanges nothing and puts nothing on the minus pile, with an empty draw
        pile, counts as a pass where the rules allow passing, however it was ended.
        """
        self.laid[seat] += turn.laid
        self.rebuilds[seat] += turn.rebuilds
        self.minus[seat] += turn.minus_cards
        self.completed += turn.completed
        if turn.exchanged:
            self.exchanges[seat] += 1
        if turn.passed or (
            self.game.pass_allowed
            and not turn.laid
            and not turn.exchanged
            and not turn.minus_cards
            and not turn.won
            and not self.state.piles[seat]
        ):
            self.passes[seat] += 1

    def stalemate_after(self, turn: Turn, seat: int) -> bool:
        """Whether the hand ends in a stalemate after ``seat``'s finished ``turn`` (not for all-out rules).

        A turn that lays a card resets every seat's idle count. Otherwise the rule file's trigger (every
        seat idle once, with ``stalemate.exact``; else every seat idle for as many turns as its held cards
        fill hands plus ``idle_extra_turns``; never while a draw pile holds cards where the rules need them
        empty) calls the exact test :func:`stalemate_confirmed`, memoised by the position.
        """
        game = self.game
        if turn.laid:
            self.idle = [0] * len(self.idle)
            self.exact_round = 0
            return False
        if game.all_out:
            return False
        self.idle[seat] += 1
        if game.stalemate_needs_empty_piles and any(self.state.piles):
            return False
        if not self._triggered():
            return False
        key = search_key(game, self.state) if self.pooled else self.state.position_key()
        verdict = self.verdicts.get(key)
        if verdict is None:
            verdict = self.verdicts[key] = stalemate_confirmed(game, self.state, self.bars)
        if verdict:
            return True
        if not game.stalemate_exact:
            self.idle = [0] * len(self.idle)  # not a stalemate: count a fresh cycle before testing again
        return False

    def _triggered(self) -> bool:
        """The rule file's stalemate trigger (only the trigger; the exact test confirms)."""
        game, idle = self.game, self.idle
        if game.stalemate_exact:
            low = min(idle)
            trigger = low >= 1 and low != self.exact_round
            if trigger:
                self.exact_round = low
            return trigger
        held = self.state.held
        return all(idle[k] >= -(-held(k) // game.hand_size) + game.idle_extra_turns for k in range(len(idle)))


def stalemate_winners(game: CompiledGame, state: GameState) -> tuple[int, ...]:
    """The seats holding the fewest cards at a stalemate (several: a shared win).

    Rulebook, "End of the Game": the player with the fewest cards in hand and draw pile wins. Cards parked in
    front of a seat count too only where the rule file's ``end.stalemate.counts_parked`` says so (default: the
    literal reading, they do not).

    Args:
        game: compiled rules.
        state: the state at the stalemate (not changed).

    Returns:
        The winning seats, ascending.
    """
    n = state.players
    aside = not game.stalemate_counts_parked
    left = [state.held(k) - (len(state.parked[k]) if aside else 0) for k in range(n)]
    low = min(left)
    return tuple(k for k in range(n) if left[k] == low)


def hand_winners(
    game: CompiledGame, state: GameState, reason: str, winners: tuple[int, ...]
) -> tuple[tuple[int, ...], int | None]:
    """The winners and team score at the end of a hand.

    Rules: with ``stalemate.winners: fewest_cards``, a stalemate is won by the seats holding the fewest cards
    in hand and draw pile (rulebook, "End of the Game"), parked cards too where ``stalemate.counts_parked``
    says so; in solo/cooperative play (all out), every seat wins when the team score reaches the win threshold.

    Args:
        game: compiled rules.
        state: the state at the end of the hand.
        reason: the end reason.
        winners: the winners so far (the seat that won a race, else empty).

    Returns:
        ``(winners, score)``; ``score`` is the team score, or None outside solo/cooperative play.
    """
    n = state.players
    score = None
    if reason == STALEMATE and game.stalemate_fewest_wins:
        winners = stalemate_winners(game, state)
    if game.score is not None and reason == ALL_OUT:
        score = team_score(game, state)
        if score >= game.score[3]:
            winners = tuple(range(n))
    return winners, score
