"""The ``greedy`` bot: a cheap, documented heuristic.

Each turn it repeats, until nothing changes:

1. **Lay on row ends**: every hand card that continues a row's end goes there
   (rows scanned left to right, repeatedly, so runs from hand chain on). With
   characters in play it also fills gaps with the exact card, swaps the joker
   back with the exact card, lays parked cards, and uses any active modifier
   (equal values, a skipped value, laying before a row's start). A parked card
   opens an empty row card only once the hand is empty.

   *1b.* **Rebuild onto an empty row card** (only where the rules allow a
   rebuild into an empty row): move a whole pile into an empty slot of another
   group when a hand card may open the slot it leaves, or split the last cards
   of a row there when a hand card then continues the card before them (it is
   laid at once); only onto an empty row card that a run from hand would open
   with fewer than two cards. Steps 1-3 make no other rebuild a variant adds: a
   start segment moved onto another row (``segments: either``) is never open
   to them, as step 2 has already moved the whole row (tried: taking such moves
   when a hand card fits roughly tripled the stalemates); step 4 may.
2. **Rebuilds that empty or complete a row**: move a whole row onto the end of
   another row it continues (emptying a row card), or move the tail of a row
   onto another row when the result completes it. Taken only when an emptied
   row can then be used (some hand card may open it) or the turn's minimum is
   already laid.
3. **Open empty rows with the longest run held**: the longest chain of hand
   cards that continue each other (ties: the lowest start) is laid on an empty
   row card.

4. **Rebuilds that unlock a card**: if steps 1-3 laid nothing and the game is
   stalled (nothing on the table changed since its previous turn:
   :meth:`~kbsim.bots.base.BaseBot.stalled`), or before it would put cards on
   the minus pile, it asks the engine's exact search
   (:meth:`~kbsim.engine.rows.turn.Turn.lay_path`, over every rebuild the rules
   in force allow) for rebuilds after which a card can be laid, makes them,
   and plays steps 1-3 again. (Without it, greedy exchanged or passed for ever
   in some complete games, where such a rebuild neither empties nor completes
   a row. Asked on every turn that lays nothing, the search made the base game
   more than twice as slow.)

Where the rules ask for several cards per lay-out turn, it first plays steps
1-3 in a sandbox and lays only if they reach the minimum. If it laid its
minimum it ends the turn. Otherwise it exchanges the cards it
cannot use: those not within two steps of any row end (if every card is that
close, it exchanges its single highest card). With an empty draw pile it
passes; where the rules have a minus pile instead (solo), it puts its highest
card there.

**Characters.** At the start of its turn, if it may play a character, it
tries each legal way to play it (at most ``max_candidates`` per character, in a
sandbox) followed by steps 1-3, and scores the outcome as cards laid, plus half
a card per card handed to an opponent in a race. It plays the best one if that
beats not playing; in solo/cooperative play (where every unplayed character is
worth a point) only when it would otherwise have to use the minus pile.

**Stalls.** In a race, when nothing has changed on the table since its
previous turn (a whole round of exchanges and passes), not playing scores
nothing: it makes the first best-scoring play even if it lays no card, so the
character piles turn until a power that unblocks some seat comes round. (Without
this and step 4, 8% of two-player complete games ran on to the turn limit with
every seat passing or exchanging, although the exact stalemate test found a
way for a seat to lay.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from kbsim.bots.base import BaseBot
from kbsim.engine.rows.boards import may_lay_after_rebuilds
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import END_TURN, PASS, Exchange, FillGap, Lay, LayParked, LayStart, Rebuild, Swap, lay_move
from kbsim.engine.rows.powers import Primitive
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.engine.rows.usage import FILL_GAP, JOKER_SWAP, PARKED

_new: Final = tuple.__new__  # builds a move without the named tuple's Python-level constructor (an interpreted frame)


@dataclass  # (not frozen: a compiled frozen dataclass does not unpickle, and bots go to worker processes)
class ReachRules:
    """What :func:`layable_held` reads from the rules, taken once per game (:func:`reach_rules`).

    Attributes:
        steps: the differences a card may have from the card before it along a row, ascending.
        step: the base step of the sequence.
        covered: the reasoning of :func:`layable_held` covers these rules: values are the cards (no suits)
            in 0..61 (sets of values are bit masks), rebuilds move end segments onto row ends only.
        rebuilds: rebuilds are allowed.
        vmin: the lowest value.
        vmax: the highest value.
        complete_when_all: a row holding every value is complete.
        by_set: completion counts distinct values.
    """

    steps: list[int]
    step: int
    covered: bool
    rebuilds: bool
    vmin: int
    vmax: int
    complete_when_all: bool
    by_set: bool


def reach_rules(game) -> ReachRules:
    """The :class:`ReachRules` of ``game`` (a :class:`~kbsim.engine.rows.compiled.CompiledGame`)."""
    g = game
    covered = (
        not g.value_shift
        and not g.rebuild_from_start
        and not g.rebuild_into_empty
        and g.step in g.steps
        and 0 <= g.value_min
        and g.value_max <= 61
    )
    return ReachRules(
        sorted(g.steps),
        g.step,
        covered,
        g.rebuild_allowed,
        g.value_min,
        g.value_max,
        g.complete_when_all,
        g.complete_by_set,
    )


def layable_held(turn: Turn, rules: ReachRules | None = None) -> int:  # noqa: C901 (kept whole: runs per trial)
    """At most how many of the seat's held cards (hand and usable parked) the lay phase can still lay.

    A sound over-approximation, for bounding a trial's score: a held card can be laid only on a row end (or
    before a row start, into a gap, in the joker's place) whose value lets it follow, or on an empty row card.
    Without an empty row card a row end only ever holds a value that is a row end now, a held card laid
    before, or a card inside a row uncovered by rebuilding the cards after it onto a row end. So the values
    that may become row ends are closed over those three, and a held card counts only if its value may follow
    one of them (by a step of the sequence, or the joints a modifier in force allows). Row cards that are
    empty or may become empty (a whole row rebuilt onto a row end, a row that may complete: every value it
    lacks is on the table or held) may each be opened with any held card, from which only a chain of held
    cards linked by allowed differences goes on: each adds at most the largest such group not yet counted.
    Rules the reasoning does not cover (suits, rebuilds from a row's start or into empty rows, modifiers for
    rebuilds before a row's start), and a new row end that may uncover a gap, a duplicate or the joker
    inside a row once rows may empty, count every held card. The bound holds for any sequence of lays and
    rebuilds (no character play), not only for greedy's own lay phase, so it does not depend on how the lay
    phase chooses.

    Args:
        turn: the turn (read only).
        rules: :func:`reach_rules` of ``turn.g`` (taken from it when None).

    Returns:
        A number of held cards, at most ``len(turn.hand) + len(turn.parked)``.
    """
    held = turn.hand + turn.parked
    n_held = len(held)
    if rules is None:
        rules = reach_rules(turn.g)
    m_start = turn.m_start
    if n_held == 0 or not rules.covered or (m_start and turn.m_start_rb):
        return n_held
    rows = turn.rows
    n_fixed = min(turn.state.n_fixed, len(rows))
    vmin = rules.vmin
    step = rules.step
    two = 2 * step
    lay_d = rules.steps[:]
    rebuilds = rules.rebuilds
    rb_d = rules.steps[:] if rebuilds else []  # joints a rebuild may make
    if turn.m_equal:
        lay_d.append(0)
        if turn.m_equal_rb and rebuilds:
            rb_d.append(0)
    if turn.skips:
        lay_d.append(two)
        if turn.m_skip_rb and rebuilds:
            rb_d.append(two)
    plain = len(rb_d) == 1 and rb_d[0] == step
    empty = 0  # empty row cards: any held card may open one
    completable = 0  # row cards that may come to hold a complete row (they start with the lowest value)
    # sets of values as bit masks (bit v: value v; ReachRules.covered keeps values in 0..61)
    ends = 0
    starts = 0
    special = 0  # values a held card may take inside a row: a gap, the joker's place
    table = 0
    joints: list[tuple[int, int]] = []  # (card, next card) inside rows whose rebuild may uncover a new end
    for r in range(len(rows)):
        row = rows[r]
        n = len(row)
        if n == 0:
            if r < n_fixed:
                empty += 1
            continue
        last = row[n - 1]
        ends |= 1 << (last if last > 0 else -last)
        first = row[0]
        prev = first if first > 0 else -first
        if r < n_fixed and (m_start or prev == vmin or not rules.by_set):
            completable += 1
        starts |= 1 << prev
        table |= 1 << prev
        if plain and first > 0 and last - first == (n - 1) * step:
            run = True  # each card one step on, no joker: uncovering a card needs its value as an end already
            for i in range(1, n):
                if row[i] - row[i - 1] != step:
                    run = False
                    break
                table |= 1 << row[i]
            if run:
                continue
        if first < 0:
            special |= 1 << prev
        for i in range(1, n):
            c = row[i]
            v = c if c > 0 else -c
            table |= 1 << v
            if c < 0:
                special |= 1 << v
            if v - prev == two and prev + step >= 0:
                special |= 1 << (prev + step)
            if not plain or v - prev != step:
                joints.append((prev, v))
            prev = v
    values = 0
    for c in held:
        values |= 1 << c
    reach = 0
    changed = True
    while changed:
        changed = False
        for c in held:
            bit = 1 << c
            if reach & bit:
                continue
            ok = special & bit != 0
            if not ok:
                for d in lay_d:
                    if (c >= d and (ends >> (c - d)) & 1) or (m_start and c + d >= 0 and (starts >> (c + d)) & 1):
                        ok = True
                        break
            if ok:
                reach |= bit
                ends |= bit
                starts |= bit
                changed = True
        for a, b in joints:  # a card inside a row becomes its end once the cards after it go onto a row end
            if not (ends >> a) & 1:
                for d in rb_d:
                    if b >= d and (ends >> (b - d)) & 1:
                        ends |= 1 << a
                        changed = True
                        break
    n = 0
    for c in held:
        if (reach >> c) & 1:
            n += 1
    if n == n_held:
        return n
    # Row cards that are or may become empty: empty now, their whole row rebuilt onto a row end, or a complete
    # row (every value on the table or held).
    full = 0
    for v in range(vmin, rules.vmax + 1, step):
        full |= 1 << v
    coverage = rules.complete_when_all and (table | values) & full == full
    k = empty + (completable if coverage else 0)
    if rebuilds and k == 0:
        for r in range(n_fixed):
            f = rows[r][0]
            f = f if f > 0 else -f
            for d in rb_d:
                if f >= d and (ends >> (f - d)) & 1:
                    k += 1
                    break
    if k == 0:
        return n
    if joints or m_start:
        return n_held  # (a new row end may uncover cards inside rows, or take cards before it: not followed)
    # Once a row card may be opened, any held value may become a row end: count again on that footing (a row
    # opened with the lowest value may complete too). Each opened row goes on only within a group of the held
    # cards not yet counted whose values are linked by the differences a lay allows.
    k = empty + ((completable + held.count(vmin)) if coverage else 0)
    if rebuilds:
        both = ends | values
        for r in range(n_fixed):
            row = rows[r]
            if row:
                f = row[0]
                f = f if f > 0 else -f
                for d in rb_d:
                    if f >= d and (both >> (f - d)) & 1:
                        k += 1
                        break
    rest = sorted([c for c in held if not (reach >> c) & 1])
    sizes: list[int] = []
    i = 0
    while i < len(rest):
        j = i + 1
        while j < len(rest) and (rest[j] == rest[j - 1] or rest[j] - rest[j - 1] in lay_d):
            j += 1
        sizes.append(j - i)
        i = j
    sizes.sort(reverse=True)
    for i in range(min(k, len(sizes))):
        n += sizes[i]
    return n


_INF: Final = float("inf")


def _others_piled(piles: list[list[int]], seat: int) -> int:
    """Cards in the draw piles of the seats other than ``seat`` (a shared stock counted once per seat)."""
    n = 0
    for s in range(len(piles)):
        if s != seat:
            n += len(piles[s])
    return n


class GreedyBot(BaseBot):
    """Lay what fits, rebuild to empty or complete rows, open rows with long runs, exchange the rest."""

    name = "greedy"
    max_candidates = 24
    _plan: tuple[list, bool] | None = None  # the lay phase worked out for the turn's position (see _lay_out)

    # what the heuristic reads on every lay, typed (compiled, these are C fields and native calls); set by new_game
    _rules: CompiledGame
    _steps: tuple[int, ...]
    _more_steps: tuple[int, ...]
    _row_any: tuple[bool, ...]
    _min_lay: int
    _variant_rebuilds: bool

    def new_game(self, game: CompiledGame, seat: int, players: int, seed: int) -> None:
        """Start a game (:meth:`BaseBot.new_game`) and keep what the heuristic reads on every lay.

        Args:
            game: the compiled rules of the game (:class:`~kbsim.engine.rows.compiled.CompiledGame`).
            seat: this bot's seat (0-based).
            players: number of seats in the game.
            seed: seed of this seat's random stream.
        """
        super().new_game(game, seat, players, seed)
        g = game
        self._rules = g
        # differences a card may have from the row end it continues, the regular step first
        others = tuple(sorted(d for d in g.steps if d != g.fast_step))
        self._steps = others if g.fast_step is None else (g.fast_step, *others)
        # the steps after the regular one (step 1 tests the regular one first, on its own)
        self._more_steps = others if g.fast_step is not None else self._steps
        self._row_any = tuple(o is None for o in g.row_open)
        self._min_lay = g.min_lay
        self._variant_rebuilds = g.rebuild_allowed and g.rebuild_into_empty
        self._reach_rules = reach_rules(g)

    def _longest_run(self, hand: list[int], r: int = -1) -> list[int]:
        """The longest chain of hand cards, each continuing the one before, that may open row ``r``.

        Ties: the lowest first card. Without any chain, the lowest card that may open the row.
        """
        g = self._rules
        have = set(hand)
        fast = g.fast_step
        if fast is not None and (r < 0 or r >= len(self._row_any) or self._row_any[r]) and len(self._steps) == 1:
            # plain deck, any card opens the row: chains are arithmetic runs
            best_start, best_len = None, 0
            check_open = not (0 <= r < len(self._row_any) and self._row_any[r])
            for v in have:
                if (v - fast) in have or (check_open and not g.may_open(v, r)):
                    continue
                n = 1
                while v + n * fast in have:
                    n += 1
                if n > best_len or (n == best_len and best_start is not None and v < best_start):
                    best_start, best_len = v, n
            return [] if best_start is None else list(range(best_start, best_start + best_len * fast, fast))
        steps = self._steps
        best: list[int] = []
        for v in sorted(have):
            if not g.may_open(v, r):
                continue
            run = [v]
            while True:
                nxt = next((run[-1] + d for d in steps if run[-1] + d in have and run[-1] + d not in run), None)
                if nxt is None:
                    break
                run.append(nxt)
            if len(run) > len(best):
                best = run
        return best

    def _special_lays(self, turn: Turn) -> bool:
        """Lays that need characters' marks or modifiers; True if any was made.

        In this order: the joker swapped back with the exact card, gaps filled from hand, lays a modifier allows
        (equal values, a skipped value, before a row's start), parked cards laid.
        """
        done = self._swap_joker(turn)
        done = self._fill_gaps(turn) or done
        if turn.m_equal or turn.skips or turn.m_start:
            done = self._modifier_lays(turn) or done
        return self._parked_lays(turn) or done

    @staticmethod
    def _swap_joker(turn: Turn) -> bool:
        """Swap the joker back for the exact hand card, once per row holding it; True if a swap was made."""
        if turn.state.joker is None or not turn.allows(JOKER_SWAP):
            return False
        done = False
        hand = turn.hand
        for row in turn.rows:
            for c in row:
                if c < 0 and -c in hand:
                    turn.apply(Swap(-c))
                    done = True
                    break
        return done

    @staticmethod
    def _fill_gaps(turn: Turn) -> bool:
        """Fill one gap per row from hand (the first gap of the row whose value is held); True if a gap was filled."""
        if not turn.allows(FILL_GAP):
            return False
        hand = turn.hand
        rows = turn.rows
        done = False
        r = 0
        while r < len(rows) and hand and turn.phase != DONE:  # (a gap is filled from hand only)
            for v in turn.gaps(r):
                if v in hand:
                    turn.apply(_new(FillGap, (v, r)))
                    done = True
                    break
            r += 1
        return done

    @staticmethod
    def _modifier_lays(turn: Turn) -> bool:
        """Lay hand cards a turn modifier allows (lowest card first, leftmost row) until none fits; True if any."""
        hand = turn.hand
        rows = turn.rows
        done = False
        progress = True
        while progress and hand and turn.phase != DONE:
            progress = False
            for c in sorted(set(hand)):
                for r in range(len(rows)):
                    if rows[r] and turn.can_lay(c, r):
                        turn.apply(Lay(c, r))
                        progress = done = True
                        break
                    if turn.m_start and rows[r] and turn.start_fits(rows[r][0], c):
                        turn.apply(LayStart(c, r))
                        progress = done = True
                        break
                if progress or turn.phase == DONE:
                    break
        return done

    @staticmethod
    def _parked_lays(turn: Turn) -> bool:
        """Lay each parked card on the first row end it continues (or empty row card, once the hand is empty).

        Returns True if any was laid. Hand cards come first for an empty row card: step 3 opens it with the
        longest run held.
        """
        if not turn.state.parked[turn.seat] or not turn.allows(PARKED):
            return False  # (nothing parked: the usable ones need not be listed; or barred from laying them)
        rows = turn.rows
        done = False
        for c in turn.parked:
            for r in range(len(rows)):
                if turn.phase != DONE and (turn.can_lay(c, r) if rows[r] else not turn.hand and turn.can_lay(c, r)):
                    turn.apply(LayParked(c, r))
                    done = True
                    break
        return done

    # The heuristic's hot loop, kept whole: split into helpers (step 1 lays, step 2 rebuilds, step 3 runs) it
    # made greedy base 4p games 2.7% slower (median of 120 paired timings of 60 games, same records), from the
    # calls and the hoisted locals fetched again per pass.
    def _lay_phase(self, turn: Turn) -> None:  # noqa: C901
        """Steps 1-3 of the heuristic (the module docstring), repeated until nothing changes.

        Args:
            turn: the turn in progress (or a sandbox of it); the moves are applied to it.
        """
        rows = turn.rows
        hand = turn.hand
        steps = self._steps
        more_steps = self._more_steps
        lay = lay_move  # (turn.apply is called as a method: compiled, a direct call; a bound method would not be)
        g = self._rules
        open_any = g.open_any
        rebuild_ok = g.rebuild_allowed
        completable = g.complete_when_all
        vmin = g.value_min
        vmax = g.value_max
        step = g.step
        full = g.full_length
        special = g.chars_enabled
        fast = g.fast_step
        n_fixed = g.n_rows
        row_any = self._row_any
        while True:
            changed = False  # set by steps 2 and 3 only: step 1's lays are already seen by step 2
            # 1. lay on row ends
            for r, row in enumerate(rows):  # (a completed extra row vanishes: enumerate follows the list)
                while row and hand:
                    end = row[-1]
                    if end < 0:
                        end = -end  # the joker stands for its value
                    if fast is not None and end + fast in hand:
                        turn.apply(lay(end + fast, r))
                    else:
                        for d in more_steps:  # (the regular step, first of `steps`, was just tested)
                            if end + d in hand:
                                turn.apply(lay(end + d, r))
                                break
                        else:
                            break
                    if turn.phase == DONE:
                        return
            if special and self._special_lays(turn):
                changed = True
                if turn.phase == DONE:
                    return
            # 1b. splits (rebuilds onto an empty row card), when they let a hand card be laid
            if self._variant_rebuilds and hand and turn.phase != DONE and self._variant_rebuild(turn):
                changed = True
                if turn.phase == DONE:
                    return
                continue
            # 2. rebuilds that empty or complete a row (only if an emptied row can be used)
            if rebuild_ok and (open_any and hand or turn.needed == 0 or any(g.may_open(c) for c in hand)):
                safe = turn.laid >= self._min_lay or turn.needed == 0
                moved = True
                while moved:
                    moved = False
                    ends = {}
                    low = []  # rows starting with the lowest value: the only ones a rebuild can complete
                    n_rows = len(rows)
                    for r in range(n_rows):
                        row = rows[r]
                        if row:
                            e = row[-1]
                            ends[e if e > 0 else -e] = r
                            if row[0] == vmin or row[0] == -vmin:
                                low.append(r)
                    for src in range(n_rows):
                        s = rows[src]
                        if not s:
                            continue
                        first = s[0]
                        if first < 0:
                            first = -first
                        for d in steps:
                            dst = ends.get(first - d)
                            # before the minimum is laid, a rebuild must leave a row card some hand card can
                            # open (an emptied extra row vanishes instead)
                            if (
                                dst is not None
                                and dst != src
                                and (
                                    safe or (src < n_fixed and (row_any[src] or any(g.may_open(c, src) for c in hand)))
                                )
                                and turn.can_rebuild(src, len(s), dst)
                            ):
                                turn.apply(_new(Rebuild, (src, len(s), dst, False, False)))
                                moved = changed = True
                                break
                        if moved:
                            break
                        if completable and low and (s[-1] == vmax or s[-1] == -vmax):
                            for dst in low:
                                dr = rows[dst]
                                if dst == src:
                                    continue
                                k = len(s) - (dr[-1] + step - first) // step
                                if special:  # rows may hold gaps, duplicates or a joker: find the card
                                    want = abs(dr[-1]) + step
                                    idx = next((j for j in range(len(s) - 1, -1, -1) if abs(s[j]) == want), -1)
                                    k = len(s) - idx if idx >= 0 else 0
                                if not safe and not (
                                    dst < n_fixed and (row_any[dst] or any(g.may_open(c, dst) for c in hand))
                                ):
                                    continue
                                if (
                                    0 < k < len(s)
                                    and len(dr) + k >= full
                                    and turn.can_rebuild(src, k, dst)
                                    and (not special or g.is_complete(dr + s[-k:]))
                                ):
                                    turn.apply(_new(Rebuild, (src, k, dst, False, False)))
                                    moved = changed = True
                                    break
                            if moved:
                                break
            # 3. open empty rows with the longest run held
            if hand:
                for r, row in enumerate(rows):
                    if not row and hand:
                        run = self._longest_run(hand, r)
                        if not run:
                            continue
                        for c in run:
                            turn.apply(lay(c, r))
                            if turn.phase == DONE:
                                return
                        changed = True
            if not changed:
                break

    def _variant_rebuild(self, turn: Turn) -> bool:
        """Step 1b: a rebuild onto an empty row card (``into_empty_row``) that makes room for a hand card.

        A whole row moves into an empty slot of another group (where the rules allow it, e.g. a pile into an
        empty corner) when a hand card may then open the slot it leaves; otherwise the last ``k`` cards of a row
        move onto the empty row card when a hand card continues the card before them (that card is laid at
        once). Either only onto an empty row card that a run from hand would open with fewer than two cards
        (step 3 prefers a run). Returns True if a rebuild was made.
        """
        rows = turn.rows
        hand = turn.hand
        held = set(hand)
        steps = self._steps
        empty = [dst for dst in range(len(rows)) if not rows[dst] and len(self._longest_run(hand, dst)) < 2]
        if not empty:
            return False
        g = self.game
        for src in range(len(rows)):
            s = rows[src]
            n = len(s)
            if n and any(g.may_open(c, src) for c in held):  # a whole pile into an empty slot of another group
                for dst in empty:
                    if turn.can_rebuild(src, n, dst):
                        turn.apply(Rebuild(src, n, dst))
                        return True
            for k in range(1, n):
                v = abs(s[n - k - 1])
                card = next((v + d for d in steps if v + d in held), None)
                if card is None:
                    continue
                for dst in empty:
                    if turn.can_rebuild(src, k, dst):
                        turn.apply(Rebuild(src, k, dst))
                        if turn.can_lay(card, src):
                            turn.apply(Lay(card, src))
                        return True
        return False

    def _unlock(self, turn: Turn) -> list:
        """Rebuilds after which a hand or parked card can be laid (the engine's exact search), or [].

        With no modifier in force and no joker on the table, the board's reachable openings (kept per board:
        :func:`~kbsim.engine.rows.boards.may_lay_after_rebuilds`) first tell whether any held card can fit a
        reachable board at all; only then is the path searched (a search per hand would be made on every
        exchange turn).
        """
        if not (turn.m_start or turn.m_equal or turn.skips or turn.state.joker is not None):
            if not may_lay_after_rebuilds(turn):
                return []
        found, path = turn.lay_path()
        return path if found else []

    def _value(self, sb: Turn, opponents_given: int) -> float:
        return sb.laid + (0.5 * opponents_given if not self._rules.all_out else 0.0)

    @staticmethod
    def _trial_key(sb: Turn, given: int) -> tuple:
        """Everything :meth:`_lay_phase` and :meth:`_value` read from a trial turn, as a hashable key.

        Two trials with equal keys end the lay phase with the same value: the rows, the hand (in order), this
        seat's parked cards with their turn stamps, the size of its draw pile (``needed`` and running out read
        it), the joker, the turn's counters and modifiers, and the cards handed to opponents. Opponents' hands
        and piles, the discard pile and the character piles are only written by the lay phase, never read.
        """
        st = sb.state
        return (
            tuple(map(tuple, sb.rows)),
            tuple(sb.hand),
            tuple(st.parked[sb.seat]),
            sb.pile_size,
            st.joker,
            st.n_fixed,
            st.turn_no,
            sb.phase,
            sb.laid,
            sb.rebuilds,
            sb.completed,
            sb.won,
            sb.chars_played,
            sb.m_start,
            sb.m_start_rb,
            sb.m_equal,
            sb.m_equal_rb,
            sb.skips,
            sb.m_skip_rb,
            sb.skip_lo,
            sb.skip_hi,
            sb.needed,
            given,
        )

    def _choose_character(self, turn: Turn, stalled: bool = False):
        """The character play (a :class:`~kbsim.engine.rows.moves.Play`) worth making, or None.

        Each listed play is tried on a scratch copy of one sandbox and scored by :meth:`_value` after
        :meth:`_lay_phase`; the first play scoring strictly more than not playing and than every play before it
        is chosen. With ``stalled`` (:meth:`~kbsim.bots.base.BaseBot.stalled`: nothing changed for a whole round)
        not playing scores nothing, so the first of the best-scoring plays after which the turn can still end
        legally (:meth:`~kbsim.engine.rows.turn.Turn.can_finish`) is made even if it lays no card.

        Two shortcuts give the same choice with fewer lay phases: a play whose score cannot exceed
        the best so far even if every hand and parked card were laid is not laid out (each lay uses up one such
        card), and a play leaving the same position as an earlier one (:meth:`_trial_key`) reuses its score.
        The first bound is also taken before a play is tried, from the turn as it is: no power primitive adds
        held cards (``adds_held``), a play sets ``set_aside`` of them aside, and at most ``most_given`` cards go
        to opponents.

        The lay phase of the choice (or of not playing) is kept as a plan, the moves it made on the sandbox:
        :meth:`_lay_out` replays them on the turn instead of running the lay phase again. The lay phase reads
        only what :meth:`_trial_key` holds, and the sandbox equals the turn in all of it, so the moves are the
        ones it would make.
        """
        hidden = turn.sandbox(scratch=True)  # the turn as it is: each play is tried on a copy of it
        base = hidden.clone()
        base.log = []
        self._lay_phase(base)
        base_value = self._value(base, 0)
        self._plan = (base.log, base.needed == 0 or base.phase == DONE)
        if self._rules.all_out and (base.laid > 0 or base.won):
            return None  # an unplayed character is worth a point: keep it unless the minus pile looms
        best, best_value, best_plan = None, (-_INF if stalled else base_value), self._plan
        per_key: dict[str, int] = {}
        # one playable character: its first max_candidates plays are the only ones tried, so list no more
        # (the engine lists plays depth-first, so they are the same plays in the same order)
        limit = self.max_candidates * (8 if len(turn.available_characters()) > 1 else 1)
        bonus = 0.0 if self._rules.all_out else 0.5  # per card handed to an opponent (see _value)
        held = turn.laid + len(turn.hand) + len(turn.parked)
        caps: dict[str, float] = {}  # character -> the most any of its plays can score (laying every card held)
        steps_of: dict[str, tuple[Primitive, ...]] = {}
        for key in turn.available_characters():
            steps = steps_of[key] = self._rules.character(key).steps
            cap = float(held)
            for st in steps:
                if st.adds_held:
                    cap = _INF
                    break
                cap += bonus * st.most_given(turn)
            caps[key] = cap
        if max(caps.values()) <= best_value:
            return None  # no play can score more than not playing: nothing to list
        scores: dict[tuple, tuple] = {}  # trial key -> (score, plan)
        max_candidates = self.max_candidates
        for mv in turn.play_moves(limit=limit):
            key = mv.key
            tried = per_key[key] = per_key.get(key, 0) + 1
            if tried > max_candidates:
                continue
            steps = steps_of[key]
            args = mv.args
            aside = 0
            for i in range(len(steps)):  # (an index loop: compiled, zip(..., strict=True) is a generic call)
                aside += steps[i].set_aside(args[i])
            if caps[key] - aside <= best_value:
                continue
            sb = hidden.clone()
            piles = sb.state.piles
            before = _others_piled(piles, sb.seat)
            sb.apply(mv, listed=True)
            given = _others_piled(piles, sb.seat) - before
            if sb.laid + len(sb.hand) + len(sb.parked) + bonus * given <= best_value:
                continue  # cannot beat the best even by laying every card it holds
            if sb.laid + layable_held(sb, self._reach_rules) + bonus * given <= best_value:
                continue  # cannot beat the best by laying every held card that may find a place
            trial = self._trial_key(sb, given)
            known = scores.get(trial)
            if known is None:
                sb.log = []
                self._lay_phase(sb)
                known = scores[trial] = (self._value(sb, given), (sb.log, sb.needed == 0 or sb.phase == DONE))
            if known[0] > best_value and (not stalled or sb.can_finish()):
                best, (best_value, best_plan) = mv, known
        self._plan = best_plan
        return best

    def play_turn(self, turn: Turn) -> None:
        """Play one whole turn as the module docstring describes: character, steps 1-3, then end, minus or exchange.

        Args:
            turn: the seat's turn in progress; the moves are applied to it until the turn is over.
        """
        g = turn.g  # (the rules as this seat plays them: a bar switches some off, kbsim.engine.rows.restrict)
        self._plan = None
        stalled = self.stalled(turn)
        if g.chars_enabled and turn.available_characters():
            mv = self._choose_character(turn, stalled and not g.all_out)
            if mv is not None:
                turn.apply(mv)
        self._lay_out(turn)
        if turn.phase != DONE and not turn.laid and (stalled or (g.minus_allowed and turn.phase == 0)):
            # 4. steps 1-3 laid nothing: rebuilds after which a card can be laid, by the engine's exact search
            path = self._unlock(turn)
            if path:
                for mv in path:
                    turn.apply(mv)
                self._lay_phase(turn)
        if turn.phase == DONE:
            return
        if turn.laid and turn.needed == 0:
            turn.apply(END_TURN)
            return
        if g.minus_allowed and turn.phase == 0:
            minus = turn.minus_moves()  # (legal only when no card can be laid on any board rebuilds reach)
            if minus:
                turn.apply(minus[-1])  # the highest cards
                return
        if turn.needed == 0:
            turn.apply(END_TURN)
            return
        if turn.can_pass() and not (g.exchange_allowed and turn.pile_size):
            turn.apply(PASS)
            return
        self._exchange(turn)

    def _lay_out(self, turn: Turn) -> None:
        """Steps 1-3 on the turn; with a minimum of several cards, only if a sandbox run of them reaches it.

        Otherwise the turn would be stuck half-way with no exchange possible. With a plan kept by
        :meth:`_choose_character` for this very position, its moves are replayed instead (same moves).
        """
        plan, self._plan = self._plan, None
        if plan is not None:
            moves, reached = plan
            if turn.needed <= 1 or reached:
                for mv in moves:
                    turn.apply(mv)
            return
        if turn.needed > 1:
            sb = turn.sandbox()
            self._lay_phase(sb)
            if sb.needed == 0 or sb.phase == DONE:
                self._lay_phase(turn)
        else:
            self._lay_phase(turn)

    def _exchange(self, turn: Turn) -> None:
        """Exchange the cards not within two steps of a row end (at least the rules' minimum, highest first).

        Where no exchange is legal, end the turn with what the engine lists as legal
        (:meth:`~kbsim.engine.rows.turn.Turn.finishing_moves`).
        """
        g = turn.g
        hand = turn.hand
        step = g.step
        near = set()
        for row in turn.rows:
            if row:
                near.add(abs(row[-1]) + step)
                near.add(abs(row[-1]) + 2 * step)
        useless = [c for c in hand if c not in near]
        if len(useless) < g.exchange_min:
            useless = sorted(hand)[-g.exchange_min :]
        if turn.can_exchange():
            turn.apply(_new(Exchange, (tuple(useless),)))
        else:  # no exchange in these rules or now: only what the engine lists as legal
            for mv in turn.finishing_moves():
                turn.apply(mv)
