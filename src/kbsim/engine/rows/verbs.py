"""The move verbs of a rows-family turn: how each move changes the table, checked as it is made.

One function per move type (:data:`VERBS`, the dispatch of :meth:`Turn.apply
<kbsim.engine.rows.turn.Turn.apply>`): a verb checks its move once while it makes it, changes the live zones
the :class:`~kbsim.engine.rows.turn.Turn` works on and raises
:class:`~kbsim.engine.results.IllegalMove` (changing nothing) when the move is refused. Beside them the
table's bookkeeping the verbs and the character powers (:mod:`kbsim.engine.rows.powers`) share: a completed
row to the discard pile (:func:`complete`), empty extra rows removed (:func:`prune`), the out-of-cards check
(:func:`out_check`), the refill (:func:`refill`, :func:`finish_draws`), the joker leaving the table
(:func:`joker_to`, :func:`joker_removed`), and the snapshot that takes provisional moves back
(:func:`snapshot`, :func:`restore`; rule file, clarification "A turn that lays nothing").

Rules implemented (rulebook, "Turn Sequence" and "Complete Game"; see the shipped rule files): lays at row
ends, at row starts, into gaps, for the joker and of parked cards; rebuilds of end segments; completion to
the discard pile; the minimum of cards laid; exchange, pass, the minus pile (solo); refill; running out of
cards; character plays.

Bots never call these: they act through :meth:`Turn.apply <kbsim.engine.rows.turn.Turn.apply>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows import refusals
from kbsim.engine.rows.moves import (
    DONE,
    END_TURN,
    LAYING,
    PASS,
    START,
    EndTurn,
    Exchange,
    FillGap,
    Lay,
    LayParked,
    LayStart,
    Minus,
    Move,
    Pass,
    Play,
    Rebuild,
    Swap,
)

if TYPE_CHECKING:  # (the turn imports this module; typed, the compiled verbs read the turn's fields directly)
    from kbsim.engine.rows.powers import CompiledCharacter
    from kbsim.engine.rows.turn import Turn

OWE_NONE: Final = 0
"""Draws a turn still owes (:func:`finish_draws`): none,"""
OWE_END: Final = 1
"""the refill of a lay-out turn,"""
OWE_EXCHANGE: Final = 2
"""the refill of an exchange,"""
OWE_MINUS: Final = 3
"""the refill of a minus-pile move."""


COUNTERS: Final = (
    "laid",
    "rebuilds",
    "completed",
    "chars_played",
    "m_start",
    "m_start_rb",
    "m_equal",
    "m_equal_rb",
    "skips",
    "m_skip_rb",
    "skip_lo",
    "skip_hi",
)
"""The turn's counters and modifiers a snapshot keeps (:func:`snapshot`) and :func:`restore` puts back."""


def snapshot(turn: Turn) -> None:
    """Remember the table before the turn's first provisional move (turn.lay_out.provisional_until_laid)."""
    if turn.undo is None and turn.phase == START:  # (a search copy has () here)
        # (the values of COUNTERS, in its order)
        turn.undo = (
            turn.state.copy(),
            (
                turn.laid,
                turn.rebuilds,
                turn.completed,
                turn.chars_played,
                turn.m_start,
                turn.m_start_rb,
                turn.m_equal,
                turn.m_equal_rb,
                turn.skips,
                turn.m_skip_rb,
                turn.skip_lo,
                turn.skip_hi,
            ),
        )


def lay_snapshot(turn: Turn) -> None:
    """Before a turn's first lay: where one lay does not meet the turn's minimum, it is provisional too.

    Every kind of lay (a hand card on a row end, before a row's start, into a gap, for the joker, or a parked
    card) is then taken back with the rebuilds and plays when the turn ends as an exchange, a pass or a
    minus-pile move, so a turn whose first lays leave it short of its minimum can still end.
    """
    if turn.g.min_lay > 1 and turn.g.provisional_moves:
        snapshot(turn)


def restore(turn: Turn) -> None:
    """Put the table back as it was before the turn's first provisional move (zones changed in place)."""
    undo = turn.undo
    assert undo, "no provisional move to restore"  # callers check provisional() first
    snap, counters = undo
    st = turn.state
    st.rows[:] = [list(r) for r in snap.rows]
    for k in range(len(st.hands)):
        st.hands[k][:] = snap.hands[k]
        st.piles[k][:] = snap.piles[k]
        st.parked[k][:] = snap.parked[k]
        st.minus[k][:] = snap.minus[k]
    for k in range(len(st.char_piles)):
        st.char_piles[k][:] = snap.char_piles[k]
    st.discard[:] = snap.discard
    st.display[:] = snap.display
    st.char_deck[:] = snap.char_deck
    st.box[:] = snap.box
    st.joker = snap.joker
    st.char_plays.clear()
    st.char_plays.update(snap.char_plays)
    for a, v in zip(COUNTERS, counters, strict=True):
        setattr(turn, a, v)
    turn.phase = START
    turn.undo = None


def after(turn: Turn, move: Move) -> None:
    """Log ``move`` (where the turn keeps a log) and run the turn's move hook (invariant checks)."""
    if turn.log is not None:
        turn.log.append(move)
    if turn.on_move is not None:
        turn.on_move(turn)


def check_open(turn: Turn) -> None:
    """Refuse a move once the turn is over."""
    if turn.phase == DONE:
        raise IllegalMove("the turn is over")


def out_check(turn: Turn) -> None:
    """Mark the seat as out of cards (the race is won, or the seat is out in solo/cooperative)."""
    g = turn.g
    parked = g.parked_count and turn.state.parked[turn.seat]
    if not turn.hand and (not turn.pile or not g.win_needs_pile) and g.win_on_empty and not parked:
        turn.won = True
        turn.phase = DONE


def complete(turn: Turn, r: int) -> None:
    """Clear row ``r`` to the discard pile if it is complete (the joker in it goes to this seat's pile)."""
    row = turn.rows[r]
    if len(row) >= turn.g.full_length and turn.g.is_complete(row):
        if turn.state.joker is not None and any(c < 0 for c in row):
            joker_to(turn, turn.seat)
        turn.discard.extend(c for c in row if c > 0)
        row.clear()
        turn.completed += 1
        prune(turn)


def prune(turn: Turn) -> None:
    """Remove empty extra rows (beyond the row cards)."""
    rows = turn.rows
    n = turn.state.n_fixed
    if len(rows) > n:
        rows[n:] = [row for row in rows[n:] if row]


def lay(turn: Turn, card: int, r: int) -> None:
    """Lay hand card ``card`` on the end of row ``r`` (see :class:`~kbsim.engine.rows.moves.Lay`)."""
    if turn.phase == DONE:
        raise IllegalMove("the turn is over")
    if not 0 <= r < len(turn.rows):
        raise IllegalMove(f"no row {r + 1}")
    hand = turn.hand
    g = turn.g
    if card not in hand:
        raise IllegalMove(f"card {g.card_text(card)} is not in hand")
    row = turn.rows[r]
    if row:
        if card - row[-1] not in g.steps:
            how = turn.end_fits(row[-1], card)
            if not how:
                raise IllegalMove(
                    f"{g.card_text(card)} does not continue row {r + 1} "
                    f"(ends {g.card_text(row[-1])}): a card laid on a row end must "
                    f"follow it in sequence" + refusals.joint_hint(turn, row[-1], card)
                )
            if how == 2:
                turn.skips -= 1
    elif not g.may_open(card, r):
        raise IllegalMove(f"{g.card_text(card)} may not open empty row {r + 1} ({g.opening_text(r)})")
    if turn.phase == START:
        lay_snapshot(turn)
    hand.remove(card)
    row.append(card)
    turn.laid += 1
    turn.phase = LAYING
    if len(row) >= g.full_length:
        complete(turn, r)
    if not hand and (not turn.pile or not g.win_needs_pile):
        out_check(turn)
    if turn.log is not None or turn.on_move is not None:
        after(turn, Lay(card, r))


def lay_start(turn: Turn, card: int, r: int) -> None:
    """Lay hand card ``card`` before the first card of row ``r`` (start-laying modifier)."""
    check_open(turn)
    g = turn.g
    if not turn.m_start:
        raise IllegalMove(
            "a card goes before the first card of a row only while a power allows it"
            + turn.power_hint("modifier", "lay_at_start")
        )
    if not 0 <= r < len(turn.rows) or not turn.rows[r]:
        raise IllegalMove(f"row {r + 1} has no first card to lay before")
    if card not in turn.hand:
        raise IllegalMove(f"card {g.card_text(card)} is not in hand")
    how = turn.start_fits(turn.rows[r][0], card)
    if not how:
        raise IllegalMove(
            f"{g.card_text(card)} may not go before the start of row {r + 1} (starts "
            f"{g.card_text(turn.rows[r][0])}): the row must still run in sequence"
            + refusals.joint_hint(turn, card, turn.rows[r][0])
        )
    if how == 2:
        turn.skips -= 1
    if turn.phase == START:
        lay_snapshot(turn)
    turn.hand.remove(card)
    turn.rows[r].insert(0, card)
    turn.laid += 1
    turn.phase = LAYING
    complete(turn, r)
    out_check(turn)
    after(turn, LayStart(card, r))


def fill_gap(turn: Turn, card: int, r: int) -> None:
    """Insert hand card ``card`` into a gap of row ``r`` that it exactly fills."""
    check_open(turn)
    if not 0 <= r < len(turn.rows):
        raise IllegalMove(f"no row {r + 1}")
    g = turn.g
    if card not in turn.hand:
        raise IllegalMove(f"card {g.card_text(card)} is not in hand")
    row = turn.rows[r]
    step = g.step
    for i in range(1, len(row)):
        if abs(row[i]) - abs(row[i - 1]) == 2 * step and abs(row[i - 1]) + step == card:
            break
    else:
        raise IllegalMove(
            f"row {r + 1} has no gap that {g.card_text(card)} fills: a hand card goes into a "
            f"row only into a gap left by a skipped value, and only the missing value fills it"
            + ("" if turn.gaps(r) else turn.power_hint("modifier", "skip_value"))
        )
    if turn.phase == START:
        lay_snapshot(turn)
    turn.hand.remove(card)
    row.insert(i, card)
    turn.laid += 1
    turn.phase = LAYING
    complete(turn, r)
    out_check(turn)
    after(turn, FillGap(card, r))


def swap(turn: Turn, card: int) -> None:
    """Reclaim the joker with the exact hand card it stands for; it goes under this seat's character pile."""
    check_open(turn)
    g = turn.g
    if turn.state.joker is None:
        raise IllegalMove(
            "no joker lies in a row: a joker is reclaimed only after a power laid it" + turn.power_hint("joker")
        )
    if card not in turn.hand:
        raise IllegalMove(f"card {g.card_text(card)} is not in hand")
    if turn.phase == START:
        lay_snapshot(turn)
    for row in turn.rows:
        if -card in row:
            row[row.index(-card)] = card
            break
    else:
        raise IllegalMove(
            f"the joker does not stand for {g.card_text(card)}: only the exact card it stands for reclaims it"
        )
    turn.hand.remove(card)
    joker_to(turn, turn.seat)
    turn.laid += 1
    turn.phase = LAYING
    out_check(turn)
    after(turn, Swap(card))


def lay_parked(turn: Turn, card: int, r: int) -> None:
    """Lay a card parked in an earlier turn on the end of row ``r`` (never into a gap or for the joker)."""
    check_open(turn)
    park = turn.state.parked[turn.seat]
    now = turn.state.turn_no
    i = next((k for k, (c, t) in enumerate(park) if c == card and t < now), None)
    g = turn.g
    if i is None:
        if any(c == card for c, _ in park):
            raise IllegalMove(
                f"parked {g.card_text(card)} was parked this turn: a parked card is laid only in a later turn"
            )
        raise IllegalMove(
            f"no parked {g.card_text(card)}: only cards parked by a power are laid this way" + turn.power_hint("park")
        )
    if not 0 <= r < len(turn.rows):
        raise IllegalMove(f"no row {r + 1}")
    row = turn.rows[r]
    how = turn.end_fits(row[-1], card) if row else (1 if g.may_open(card, r) else 0)
    if not how:
        if row:
            raise IllegalMove(
                f"parked {g.card_text(card)} does not continue row {r + 1} (ends "
                f"{g.card_text(row[-1])}): a parked card goes only on a row end, in sequence"
                + refusals.joint_hint(turn, row[-1], card)
            )
        raise IllegalMove(f"parked {g.card_text(card)} may not open empty row {r + 1} ({g.opening_text(r)})")
    if how == 2:
        turn.skips -= 1
    if turn.phase == START:
        lay_snapshot(turn)
    del park[i]
    row.append(card)
    turn.laid += 1
    turn.phase = LAYING
    complete(turn, r)
    out_check(turn)
    after(turn, LayParked(card, r))


def rebuild(turn: Turn, src: int, count: int, dst: int, from_start: bool = False, to_start: bool = False) -> None:
    """Move ``count`` cards from row ``src`` onto row ``dst`` (see :class:`~kbsim.engine.rows.moves.Rebuild`)."""
    if not turn.can_rebuild(src, count, dst, from_start, to_start):
        raise IllegalMove(
            f"rebuild of {count} card(s) from row {src + 1} onto row {dst + 1} is not allowed: "
            + turn.rebuild_refusal(src, count, dst, from_start, to_start)
        )
    if turn.phase == START and turn.g.provisional_moves:
        snapshot(turn)
    rows = turn.rows
    s = rows[src]
    d = rows[dst]
    if to_start:
        if turn.start_fits(d[0], abs(s[count - 1] if from_start else s[-1]), rebuild=True) == 2:
            turn.skips -= 1
    elif d and s[0 if from_start else len(s) - count] - d[-1] not in turn.g.steps:
        if turn.end_fits(d[-1], abs(s[0 if from_start else len(s) - count]), rebuild=True) == 2:
            turn.skips -= 1
    s[:], d[:] = segment_move(s, d, count, from_start, to_start)
    turn.rebuilds += 1
    turn.phase = LAYING
    complete(turn, dst)
    if len(rows) > turn.state.n_fixed:
        prune(turn)
    if turn.log is not None or turn.on_move is not None:
        after(turn, Rebuild(src, count, dst, from_start, to_start))


def refill(turn: Turn) -> None:
    """Draw from the seat's pile: up to the hand size, or a fixed number of cards (``turn.refill``)."""
    g = turn.g
    n = g.hand_size - len(turn.hand) if g.refill_up_to else g.refill_draw
    pile, hand = turn.pile, turn.hand
    while n > 0 and pile:
        hand.append(pile.pop())
        n -= 1
        turn.drawn += 1


def end_turn(turn: Turn) -> None:
    """End a lay-out turn and refill the hand."""
    if turn.phase == DONE:
        raise IllegalMove("the turn is over")
    g = turn.g
    if turn.needed and not (not g.provisional_moves and not g.minus_allowed and turn.stranded()):
        raise IllegalMove(
            f"a lay-out turn must lay at least {g.min_lay} hand card(s)"
            + (" while the draw pile holds cards" if g.min_only_while_pile else "")
            + "; a turn that lays fewer ends as an exchange, a pass or a minus-pile move, "
            "as these rules allow" + g.option_hint("turn.lay_out.min_hand_cards", allows=False)
        )
    if g.must_lay:
        pending = turn.must_lay_pending()
        if pending is not None:
            raise IllegalMove(f"{g.card_text(pending)} must be laid while it can be")
    if g.refill_at_start:
        pass
    elif turn.defer_draws:
        turn.owed = OWE_END
    else:
        refill(turn)
        if g.must_lay_when_drawn:
            lay_drawn_musts(turn)
    turn.phase = DONE
    if turn.log is not None or turn.on_move is not None:
        after(turn, END_TURN)


def finish_draws(turn: Turn) -> None:
    """Make the draws that ended the turn while the turn's ``defer_draws`` held them back (a step of the game loop).

    While a bot decides, the game loop masks every hidden zone in place (:mod:`kbsim.engine.rows.observe`)
    and sets :attr:`~kbsim.engine.rows.turn.Turn.defer_draws`: the refill that ends a lay-out turn, an exchange
    or a minus-pile move (and the must-lay cards laid from what was drawn, and the out-of-cards check after a
    minus-pile move) waits until the real cards are back. Bots never call it. Does nothing when no draw is owed.
    """
    owed = turn.owed
    turn.owed = OWE_NONE
    turn.defer_draws = False
    if owed == OWE_NONE:
        return
    refill(turn)
    if owed == OWE_END and turn.g.must_lay_when_drawn:
        turn.phase = LAYING  # (the drawn must-lay cards are laid as the end of the turn; not moves of a bot)
        lay_drawn_musts(turn)
        turn.phase = DONE
    elif owed == OWE_MINUS:
        out_check(turn)


def lay_drawn_musts(turn: Turn) -> None:
    """Lay every must-lay card just drawn that can be laid, each on the first row that takes it.

    Rule file: ``must_lay_when_drawn``. Part of ending the turn, so not logged as moves.
    """
    log, turn.log = turn.log, None
    try:
        while turn.phase != DONE:
            c = turn.must_lay_pending()
            if c is None:
                break
            lay(turn, c, next(r for r in range(len(turn.rows)) if turn.can_lay(c, r)))
    finally:
        turn.log = log


def take_from_hand(turn: Turn, cards) -> None:
    """Take ``cards`` out of the hand, all or none.

    Raises:
        IllegalMove: a card is not in hand (the hand is unchanged).
    """
    hand = list(turn.hand)
    for c in cards:
        if c not in hand:
            raise IllegalMove(f"card {c} is not in hand")
        hand.remove(c)
    turn.hand[:] = hand


def exchange(turn: Turn, cards: tuple[int, ...] | list[int]) -> None:
    """Put ``cards`` under the draw pile in the order given, refill; the turn ends."""
    g = turn.g
    if turn.phase != START and turn.provisional:
        exchange(turn.restored(), cards)  # raises, changing nothing, if the exchange is illegal
        restore(turn)
    if turn.phase != START:
        raise IllegalMove("an exchange must be the whole turn: cards were already laid this turn")
    if not g.exchange_allowed:
        raise IllegalMove("exchanging is not allowed in these rules" + g.option_hint("turn.exchange.allowed"))
    if g.exchange_requires_pile and not turn.pile:
        raise IllegalMove("exchanging needs cards in the draw pile" + g.option_hint("turn.exchange.requires_draw_pile"))
    if len(cards) < g.exchange_min:
        raise IllegalMove(
            f"an exchange puts at least {g.exchange_min} card(s) under the pile"
            + g.option_hint("turn.exchange.min_cards", allows=False)
        )
    take_from_hand(turn, cards)
    turn.pile[0:0] = reversed(cards)
    turn.exchanged = len(cards)
    if turn.defer_draws:
        turn.owed = OWE_EXCHANGE
    else:
        refill(turn)
    turn.phase = DONE
    if turn.log is not None or turn.on_move is not None:
        after(turn, Exchange(tuple(cards)))


def pass_turn(turn: Turn) -> None:
    """Pass (only where allowed: by default with an empty draw pile)."""
    g = turn.g
    if turn.phase != START and turn.provisional:
        pass_turn(turn.restored())
        restore(turn)
    if turn.phase != START:
        raise IllegalMove("a pass must be the whole turn: cards were already laid this turn")
    if not g.pass_allowed:
        raise IllegalMove("passing is not allowed in these rules" + g.option_hint("turn.pass.allowed"))
    if g.pass_requires_empty_pile and turn.pile:
        raise IllegalMove(
            "passing is allowed only with an empty draw pile" + g.option_hint("turn.pass.requires_empty_draw_pile")
        )
    turn.passed = True
    turn.phase = DONE
    after(turn, PASS)


def minus(turn: Turn, cards: tuple[int, ...] | list[int], stuck: bool = False) -> None:
    """Put ``cards`` on this seat's minus pile (solo/cooperative), refill; the turn ends.

    The cards come from the hand; a seat with no hand card left gives parked cards instead. After
    provisional moves the table is restored first; where the minus pile is only for a seat that cannot lay,
    a seat its provisional moves left unable to lay may take it too (``stuck``,
    :meth:`~kbsim.engine.rows.turn.Turn.stuck_here`; see :func:`kbsim.engine.rows.movegen.minus_moves`).
    """
    g = turn.g
    if turn.phase != START and turn.provisional:
        stuck = stuck or turn.stuck_here()
        minus(turn.restored(), cards, stuck=stuck)  # raises, changing nothing, if illegal
        restore(turn)
    if turn.phase != START and not (g.minus_allowed and turn.stranded()):
        raise IllegalMove("the minus pile is instead of laying: it must be the whole turn")
    if not g.minus_allowed:
        raise IllegalMove("there is no minus pile in these rules" + g.option_hint("turn.minus.allowed"))
    source = turn.hand if turn.hand else [c for c, _ in turn.state.parked[turn.seat]]
    if len(cards) != min(g.minus_cards, len(source)) or not cards:
        raise IllegalMove(
            f"put exactly {min(g.minus_cards, len(source))} card(s) on the minus pile, as these "
            f"rules say" + g.option_hint("turn.minus.cards", allows=False)
        )
    if g.minus_only_when_stuck and not stuck and turn.can_lay_anything():
        raise IllegalMove(
            "a card can still be laid (now or after rebuilds), and the minus pile takes cards "
            "only from a seat that cannot lay" + g.option_hint("turn.minus.only_when_stuck")
        )
    if turn.hand:
        take_from_hand(turn, cards)
    else:
        park = turn.state.parked[turn.seat]
        for c in cards:
            i = next((k for k, (pc, _) in enumerate(park) if pc == c), None)
            if i is None:
                raise IllegalMove(f"card {c} is not parked")
            del park[i]
    turn.state.minus[turn.seat].extend(cards)
    turn.minus_cards += len(cards)
    turn.phase = DONE
    if turn.defer_draws:
        turn.owed = OWE_MINUS
    else:
        refill(turn)
        out_check(turn)
    after(turn, Minus(tuple(cards)))


def play(turn: Turn, key: str, args: tuple = (), *, listed: bool = False) -> None:
    """Play character ``key`` with one argument tuple per step of its power.

    The whole play is tried on a copy first, so an illegal argument changes nothing; with ``listed``
    (the play was listed by :meth:`~kbsim.engine.rows.turn.Turn.play_moves` for this very position, as bots trying
    each listed play on a sandbox do) that copy is skipped.

    Raises:
        IllegalMove: characters are off, one was already played this turn, ``key`` is not
            playable by this seat now, or an argument is illegal.
    """
    avail = turn.available_characters()
    if key not in avail:
        raise IllegalMove(f"character {key!r} cannot be played: {refusals.play_refusal(turn, key, avail)}")
    ch = turn.g.character(key)
    if len(args) != len(ch.steps):
        raise IllegalMove(
            f"{key} takes {len(ch.steps)} argument group(s), got {len(args)}: "
            + "; ".join(f"{i + 1}. {st.kind}" for i, st in enumerate(ch.steps))
        )
    if not listed:
        trial = turn.clone()
        try:
            play_steps(trial, key, ch, args)
        except IllegalMove as e:
            raise IllegalMove(f"{key}'s power refuses these arguments: {e}") from None
    if turn.phase == START and turn.g.provisional_moves:
        snapshot(turn)
    play_steps(turn, key, ch, args)
    if not turn.g.chars_any_turn and turn.phase == START:
        turn.phase = LAYING
    if turn.log is not None or turn.on_move is not None:  # (no move object to build for nobody)
        after(turn, Play(key, tuple(args)))


def play_steps(turn: Turn, key: str, ch: CompiledCharacter, args: tuple) -> None:
    """Make the play of ``key`` (power ``ch``): take the card, apply each step with its arguments, pass it on."""
    st = turn.state
    if turn.g.chars_display_mode:
        st.display.remove(key)
        if st.char_deck:
            st.display.append(st.char_deck.pop())
    else:
        st.char_piles[turn.seat].pop(0)
    turn.chars_played += 1
    turn.playing = key
    steps = ch.steps
    try:
        # (an index loop: compiled, zip(..., strict=True) and tuple() of an untyped value are generic calls)
        for i in range(len(steps)):
            a = args[i]
            steps[i].apply(turn, a if isinstance(a, tuple) else tuple(a))
    finally:
        turn.playing = None
    if not ch.is_joker:
        if turn.g.chars_display_mode:
            st.box.append(key)
        else:
            st.char_piles[(turn.seat + 1) % st.players].append(key)
    st.char_plays[(turn.seat, key)] = st.char_plays.get((turn.seat, key), 0) + 1


def joker_to(turn: Turn, seat: int) -> None:
    """The joker leaves the table for ``seat``'s character pile (display mode: the deck's bottom)."""
    st = turn.state
    key = st.joker
    if key is None:  # callers move the joker only when a joker mark lies in a row
        raise RuntimeError("the joker is not on the table")
    st.joker = None
    if turn.g.chars_display_mode:
        st.char_deck.insert(0, key)
        while len(st.display) < turn.g.chars_display and st.char_deck:
            st.display.append(st.char_deck.pop())
    else:
        st.char_piles[seat].append(key)


def joker_removed(turn: Turn) -> None:
    """The joker was removed by a power: to the left neighbour's pile (display mode: the box)."""
    st = turn.state
    key = st.joker
    if key is None:  # callers move the joker only when a joker mark lies in a row
        raise RuntimeError("the joker is not on the table")
    st.joker = None
    if turn.g.chars_display_mode:
        st.box.append(key)
    else:
        st.char_piles[(turn.seat + 1) % st.players].append(key)


VERBS: dict[type, Callable[..., None]] = {
    Lay: lay,
    Rebuild: rebuild,
    EndTurn: end_turn,
    Exchange: exchange,
    Pass: pass_turn,
    Play: play,
    LayStart: lay_start,
    FillGap: fill_gap,
    Swap: swap,
    LayParked: lay_parked,
    Minus: minus,
}
"""Move type -> its verb, called with the turn and the move's fields (the dispatch of :meth:`Turn.apply
<kbsim.engine.rows.turn.Turn.apply>`)."""


def segment_move(s, d, count: int, from_start: bool, to_start: bool):
    """The effect of a rebuild on its two rows: ``(rest of s, d with the segment joined)``.

    Works on lists or tuples (returns the same kind). The one definition of what a rebuild moves, used by
    :func:`rebuild` (in place) and by the rebuild searches (on immutable boards).
    """
    if from_start:
        seg, rest = s[:count], s[count:]
    else:
        cut = len(s) - count
        seg, rest = s[cut:], s[:cut]
    return rest, (seg + d if to_start else d + seg)
