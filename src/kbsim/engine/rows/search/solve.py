"""The solve entry points: :func:`plan_turn`, :func:`search`, :func:`solve` and the board text of ``kbsim solve``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import Lay, Play, Rebuild
from kbsim.engine.rows.notation import NotationError, format_cards, format_move, parse_cards
from kbsim.engine.rows.search.frontier import (
    DEFAULT_BUDGET,
    BoardError,
    Plan,
    PlanError,
    Rows,
    evaluate,
    no_plan,
    plan_path,
    replay,
)
from kbsim.engine.rows.search.link_search import links_apply, search_links
from kbsim.engine.rows.search.row_search import search_rows
from kbsim.engine.rows.search.searches import plain_turn, search_clones, search_runs, simple_rules
from kbsim.engine.rows.turn import DONE, HIDDEN, Turn


def plan_turn(
    turn: Turn, *, budget: int = DEFAULT_BUDGET, prune: bool = False, engine: str | None = None, lay_at: int = 0
) -> Plan:
    """Find the best lay-out continuation of ``turn`` and check it on a sandbox copy.

    The engine is picked from the position (all give the same cards laid;
    they differ in speed):

    * **link counts** (:func:`search_links`) for strict runs on a plain table
      under the default rebuild rules, or with one of the options start
      segments and splits into empty rows;
    * **runs** (:func:`search_runs`) for strict runs under other rebuild rules
      (both options, or too few rebuilds left for the link counts' tail swaps);
    * **rows** (:func:`search_rows`) for other sequence rules (repeats) and
      for tables that hold what powers leave behind (a joker, gaps,
      duplicates, extra rows, parked cards);
    * **turn copies** (:func:`search_clones`) while a character's turn
      modifier is on (laying before a row's start, equal values, a skipped
      value), and for rules beyond the base game's (suited cards, row cards
      with their own opening rules, whole-row rebuilds only, cards that must
      be laid). It enumerates the
      :class:`~kbsim.engine.rows.turn.Turn`'s own legal lays and rebuilds on
      copies of the turn, so it is exact by construction, and slowest.

    Args:
        turn: the turn in progress (not changed, except with ``lay_at``); its lays so far count toward the
            minimum.
        budget: positions the search may store (>= 1).
        prune: see :func:`search`.
        engine: ``engine_for(turn)`` when the caller has it already (None: computed here).
        lay_at: for a caller that lays any plan laying at least this many cards (0: none): the link-count
            search under the base rebuild rules then carries such a plan out on ``turn`` itself instead of a
            sandbox copy (``Plan.applied``; the caller ends the turn). Same moves, one copy of the state less.

    Returns:
        The :class:`Plan`; its moves were replayed on a sandbox copy of ``turn`` (``turn.sandbox()``) and
        are legal for ``turn`` as it is now, or (``Plan.applied``) have been made on ``turn``. A plan
        making no move is not replayed.

    Raises:
        ValueError: ``budget`` < 1.
        PlanError: the engine refused the plan (a solver bug).
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    g = turn.g
    rows0: Rows = tuple(tuple(r) for r in turn.rows)
    hand0 = tuple(sorted(turn.hand))
    if turn.phase == DONE:
        return Plan(
            moves=(),
            laid=0,
            score=evaluate(g, rows0, hand0),
            rows=rows0,
            hand=hand0,
            won=turn.won,
            legal=False,
            nodes=1,
            exact=True,
            engine="none",
        )
    if engine is None:
        engine = engine_for(turn)
    if engine == "clones":
        return search_clones(turn.sandbox(scratch=True), budget, prune)
    n0 = len(hand0)
    needed = turn.needed
    reb_left = max(0, g.max_rebuilds - turn.rebuilds)
    win_possible = g.win_on_empty and turn.pile_size == 0
    full = n0 if (prune or win_possible) else n0 + 1
    if engine == "links":
        if not (g.rebuild_from_start or g.rebuild_into_empty):
            return search_links(turn, rows0, hand0, needed, reb_left, budget, full, prune, lay_at)
        try:  # (on a sandbox: should carrying the plan out fail, the turn is as it was)
            return search_links(turn, rows0, hand0, needed, reb_left, budget, full, prune)
        except PlanError:  # the tail swaps of a start segment ran out of rebuilds: search the runs
            pass
    sb = turn.sandbox(scratch=True)
    if engine == "rows":
        return search_rows(sb, needed, reb_left, budget, prune)
    engine = "runs"
    cand, parents, moves_, truncated, nodes = search_runs(g, rows0, hand0, needed, reb_left, budget, full)
    if not cand:
        return no_plan(g, rows0, hand0, nodes, truncated, engine)
    best: tuple[float, int] | None = None
    for idx, rows_, hand_ in cand:  # candidates lay the most cards; breadth-first order
        val = evaluate(g, rows_, hand_)
        if best is None or val > best[0]:
            best = (val, idx)
    if best is None:  # cand is not empty (checked above)
        raise PlanError("the runs search returned no candidate")
    val, idx = best
    seq = [Lay(a, b) if kind == 0 else Rebuild(a, b, c, d) for kind, a, b, c, d in plan_path(parents, moves_, idx)]
    before = sb.laid
    replay(sb, seq)
    return Plan(
        moves=tuple(seq),
        laid=sb.laid - before,
        score=val,
        rows=tuple(tuple(r) for r in sb.rows),
        hand=tuple(sorted(sb.hand)),
        won=sb.won,
        legal=True,
        nodes=nodes,
        exact=not truncated,
        engine=engine,
    )


def engine_for(turn: Turn) -> str:
    """Which search :func:`plan_turn` runs for ``turn``: ``none``, ``links``, ``runs``, ``rows`` or ``clones``.

    The rules of choice are those listed in :func:`plan_turn`. A caller can use it to give the
    slower searches a smaller budget (``rows`` positions cost about five times as much time as
    ``links`` positions, ``clones`` positions about twenty times).

    Args:
        turn: the turn in progress (read only).

    Returns:
        The engine's name (``links`` may still fall back to ``runs``, see :func:`plan_turn`).
    """
    g = turn.g
    if turn.phase == DONE:
        return "none"
    if turn.m_start or turn.m_equal or turn.skips or not simple_rules(g):
        return "clones"
    plain = plain_turn(turn)
    if plain and links_apply(g, turn.rows, len(turn.hand), max(0, g.max_rebuilds - turn.rebuilds)):
        return "links"
    if not plain or len(g.steps) != 1 or g.step == 0 or g.value_max - g.value_min >= 250:
        return "rows"
    return "runs"


def search(
    g: CompiledGame,
    rows: Sequence[Sequence[int]],
    hand: Sequence[int],
    *,
    pile_size: int = 1,
    needed: int | None = None,
    rebuilds_left: int | None = None,
    budget: int = DEFAULT_BUDGET,
    prune: bool = False,
) -> Plan:
    """Find the best lay-out turn for a bare position (see the module docstring for the objective).

    The position is wrapped in a fresh :class:`~kbsim.engine.rows.turn.Turn` (no
    character state) and solved with :func:`plan_turn`.

    Args:
        g: compiled rules (their sequence, opening, completion and rebuild rules are searched).
        rows: the rows, first card to last, in row-card order (not changed).
        hand: the hand cards (not changed).
        pile_size: cards in the draw pile; with 0 (and the win rule) laying the last hand card wins.
        needed: hand cards the turn must lay (default: what the rules ask of a turn with this pile).
        rebuilds_left: rebuilds still allowed this turn (default: the rules' maximum).
        budget: positions the search may store (>= 1) before it stops with the best seen so far.
        prune: search less for speed, keeping the cards laid exact: stop at the first position that
            lays the whole hand, and (link-count search) move a whole row onto a row end at once
            whenever no hand card could use that end. The tie-break then only compares the
            positions searched.

    Returns:
        The :class:`Plan`, checked on the engine.

    Raises:
        ValueError: ``budget`` < 1.
        PlanError: the engine refused the plan (a solver bug).
    """
    turn = Turn(g, [list(r) for r in rows], list(hand), [HIDDEN] * pile_size, [])
    if rebuilds_left is not None:
        turn.rebuilds = max(0, g.max_rebuilds - rebuilds_left)
    if needed is not None and needed != turn.needed:
        # emulate a turn that already laid some cards (needed < minimum) or must lay more
        turn.laid = g.min_lay - needed
    return plan_turn(turn, budget=budget, prune=prune)


def verify(turn: Turn, plan: Plan) -> Turn:
    """Replay ``plan`` on a sandbox copy of ``turn`` and check that it does what the plan says.

    Args:
        turn: the turn the plan was made for (not changed).
        plan: a plan from :func:`search` for that turn's rows and hand.

    Returns:
        The sandbox after the moves (its rows, hand and counters show the result).

    Raises:
        PlanError: the engine refused a move, or the result differs from the plan
            (cards laid, rows as a multiset, hand); this is a solver bug.
    """
    sb = turn.sandbox()
    before = sb.laid
    for m in plan.moves:
        try:
            sb.apply(m)
        except IllegalMove as e:
            raise PlanError(f"the engine refused planned move {m!r}: {e}") from None
    if (
        sb.laid - before != plan.laid
        or sorted(sb.hand) != list(plan.hand)
        or tuple(map(tuple, sb.rows)) != plan.rows
        or sb.won != plan.won
    ):
        raise PlanError(
            f"plan result differs from the engine's: rows {sb.rows} hand {sb.hand}, "
            f"plan rows {plan.rows} hand {plan.hand}"
        )
    return sb


# ------------------------------------------------------------------ puzzles (kbsim solve)
def parse_board(text: str, n_rows: int, game: CompiledGame | None = None) -> list[list[int]]:
    """Parse the rows of a puzzle: ``"3|8|9|5|1|13"``, ``"3-5|_|9 10"``.

    Args:
        text: row slots separated by ``|``; each a list of cards, a run ``a-b``, or ``_``/nothing for empty.
        n_rows: row cards on the table; fewer slots given leave the rest empty.
        game: the rules, for decks whose cards are written with suits (``10H KS``).

    Returns:
        The rows (0-based list of lists, ``n_rows`` long).

    Raises:
        BoardError: a slot is not valid notation, or more slots than row cards.
    """
    slots = text.split("|")
    if len(slots) > n_rows:
        raise BoardError(f"{len(slots)} rows given, but the table has {n_rows} row cards")
    rows = []
    for i, slot in enumerate(slots, start=1):
        try:
            rows.append(parse_cards(slot, game))
        except NotationError as e:
            raise BoardError(f"row {i}: {e}") from None
    rows.extend([] for _ in range(n_rows - len(rows)))
    return rows


def parse_hand(text: str, what: str = "hand", game: CompiledGame | None = None) -> list[int]:
    """Parse hand (or other zone) cards: ``"1 4 6"``, ``"3-5 9"``; ``_`` or nothing for none.

    Raises:
        BoardError: not valid card notation (the message starts with ``what``).
    """
    try:
        return parse_cards(text, game)
    except NotationError as e:
        raise BoardError(f"{what}: {e}") from None


def check_board(g: CompiledGame, rows: list[list[int]], hand: list[int], discard: Sequence[int] = ()) -> None:
    """Check that a puzzle can occur under the rules.

    Checks: every value within the deck's range; a joker (``E7``) only in a
    row, only where the rules have a joker character, and only one; every row
    keeps the sequence constraint, a gap (``3 5``) or a repeat (``4 4``) only
    where a character power of these rules can leave one
    (``CompiledGame.row_is_legal``); no complete row still on the table (it
    would have gone to the discard pile); no value in more copies (rows +
    hand + discard) than the deck holds.

    Raises:
        BoardError: the first problem found, naming the row or value.
    """
    lo, hi = g.value_min, g.value_max
    for where, cards in [*((f"row {i}", r) for i, r in enumerate(rows, start=1)), ("hand", hand), ("discard", discard)]:
        for v in cards:
            if where in ("hand", "discard") and v < 0:
                raise BoardError(f"{where}: a joker (E{-v}) can only lie in a row")
            value = g.value(v) if hasattr(g, "value") else abs(v)
            if not lo <= value <= hi:
                raise BoardError(f"{where}: value {value} is outside {lo}..{hi}")
    jokers = sum(1 for row in rows for c in row if c < 0)
    if jokers and not any(getattr(c, "is_joker", False) for c in g.roster):
        raise BoardError(
            "a joker (E) lies in a row, but these rules have no joker character (try --variant characters)"
        )
    if jokers > 1:
        raise BoardError(f"{jokers} jokers lie in the rows; there is only one joker character")
    for i, row in enumerate(rows, start=1):
        if not g.row_is_legal(row):
            raise BoardError(
                f"row {i} ({format_cards(row, g)}) is not a legal row: each card must continue the "
                f"one before it (a gap or a repeat needs a character's mark these rules allow)"
            )
        if g.is_complete(row):
            raise BoardError(f"row {i} ({format_cards(row, g)}) is complete: it would already be in the discard pile")
    count = Counter(v for zone in (*rows, hand, discard) for v in zone if v > 0)
    over = {v: c for v, c in sorted(count.items()) if c > g.copies}
    if over:
        shown = ", ".join(f"{c} x {format_cards([v], g)}" for v, c in over.items())
        raise BoardError(
            f"more copies than the deck holds ({g.copies} of each value): {shown} "
            f"on the table, in hand and in the discard pile"
        )


@dataclass(frozen=True)
class Solution:
    """The answer to a puzzle: the moves in notation and the position after them.

    Attributes:
        laid: hand cards laid by the whole turn (a character's lays included).
        plan: the :class:`Plan` of lays and rebuilds (after the character play, if any).
        play: the character play made first, or None.
        texts: every move in the text notation (``play ...``, ``lay 4 on 1``, ``rebuild 3 from 9 on 2``).
        rows: the rows after the turn, in row-card order (lists).
        hand: the hand left (sorted).
        completed: rows completed during the turn.
        won: the turn wins the game.
    """

    laid: int
    plan: Plan
    play: Play | None
    texts: list[str]
    rows: list[list[int]]
    hand: list[int]
    completed: int
    won: bool

    def to_json(self) -> dict:
        """``{"laid": N, "moves": [...], "rows": [[...], ...], "hand": [...]}`` (the ``kbsim solve --json`` output)."""
        return {"laid": self.laid, "moves": self.texts, "rows": self.rows, "hand": self.hand}


def solve(
    g: CompiledGame,
    rows: list[list[int]],
    hand: list[int],
    *,
    discard: Sequence[int] = (),
    pile_size: int = 1,
    budget: int = DEFAULT_BUDGET,
    character: str | None = None,
    players: int = 1,
) -> Solution:
    """Solve a puzzle: the best lay-out turn for ``rows`` and ``hand``, checked through the engine.

    With ``character``, every legal way to play that character first (at any
    moment the engine allows: here, at the start of the turn) is tried too,
    each followed by its best lays and rebuilds; a play is chosen only if the
    turn then lays more cards (a character spent is a character gone), the
    best board (:func:`evaluate`) deciding between plays that lay as many. A
    joker (``-v``) on the table may be swapped back with the exact hand card;
    gaps and duplicates are accepted where the rules' powers explain them.

    Args:
        g: compiled rules (variant and options applied).
        rows: the rows, ``g.n_rows`` of them (see :func:`parse_board`).
        hand: the hand cards.
        discard: the discard pile (counted by :func:`check_board`; a character may use it).
        pile_size: cards in the player's draw pile; 0 means laying the whole hand wins and
            no minimum applies.
        budget: positions each search may store.
        character: key of a character the player may play (``ragna``, ``aldred``, ...).
        players: seats at the table (the solver's seat and ``players - 1`` others, whose cards are
            unknown); powers that depend on the count (one card per opponent) follow it.

    Returns:
        The :class:`Solution`.

    Raises:
        BoardError: the board cannot occur (see :func:`check_board`), it has the wrong number
            of rows, or the character is unknown or these rules have no characters.
        PlanError: the engine refused the plan (a solver bug).
    """
    if len(rows) != g.n_rows:
        raise BoardError(f"{len(rows)} rows given, the rules have {g.n_rows}")
    check_board(g, rows, hand, discard)
    turn = Turn(g, [list(r) for r in rows], list(hand), [HIDDEN] * pile_size, list(discard))
    st = turn.state
    for _ in range(players - 1):  # the other seats: nothing known of their cards
        st.hands.append([])
        st.piles.append([])
        st.parked.append([])
        st.minus.append([])
        st.char_piles.append([])
    if any(c < 0 for row in rows for c in row):
        turn.state.joker = next(c.key for c in g.roster if c.is_joker)
    if character is not None:
        if not g.chars_enabled:
            raise BoardError("--character needs rules with characters (e.g. --variant characters)")
        try:
            g.character(character)
        except KeyError:
            raise BoardError(
                f"unknown character {character!r}; expected one of: {', '.join(c.key for c in g.roster)}"
            ) from None
        if g.chars_display_mode:
            turn.state.display[:] = [character]
        else:
            turn.state.char_piles[turn.seat][:] = [character]
    plan = plan_turn(turn, budget=budget)
    without = plan.laid + (1 << 20 if plan.won else 0)
    best: tuple[tuple[int, float], Play | None, Plan] = ((without, plan.score), None, plan)
    if character is not None:
        for mv in turn.play_moves():
            sb = turn.sandbox()
            sb.apply(mv)
            p = plan_turn(sb, budget=min(budget, 5_000))
            laid = sb.laid + p.laid
            worth = (laid + (1 << 20 if sb.won or p.won else 0), p.score)
            if worth[0] > without and worth > best[0]:
                best = (worth, mv, p)
    _, play, plan = best
    texts = []
    sb = turn.sandbox()
    for m in ((play,) if play is not None else ()) + plan.moves:
        texts.append(format_move(m, sb.rows, g))
        sb.apply(m)
    return Solution(
        laid=sb.laid,
        plan=plan,
        play=play,
        texts=texts,
        rows=[list(r) for r in sb.rows],
        hand=sorted(sb.hand),
        completed=sb.completed,
        won=sb.won,
    )
