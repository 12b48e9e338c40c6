"""The example runner of market rule files (board, moves, expected table and score)."""

from __future__ import annotations

from kbsim.engine.expect import ExampleResult, illegal_problems
from kbsim.engine.market.compiled import GAP, WAGON, MarketGame, compile_market
from kbsim.engine.market.game import MarketPlay, final_points, winners_of
from kbsim.engine.market.moves import CLAIM, DONE, IllegalMove, Move
from kbsim.engine.market.notation import MarketNotationError, parse_market_move
from kbsim.engine.market.state import MarketState
from kbsim.engine.market.turn import MarketTurn
from kbsim.rules.loader import LoadedRules, RulesError, load_rules
from kbsim.rules.market_schema import ExampleExpect, ExamplePlayerExpect, MarketExample, MarketRuleFile


def _cards(g: MarketGame, text: str, what: str) -> list[int]:
    """Kind indices of space-separated card keys (``-`` is an empty place, GAP); ``what`` names the field.

    Raises:
        MarketNotationError: an unknown card key.
    """
    out = []
    for word in text.split():
        if word == "-":
            out.append(GAP)
            continue
        try:
            out.append(g.kind_index(word))
        except KeyError:
            raise MarketNotationError(
                f"{what}: unknown card {word!r}; expected one of {', '.join(k.key for k in g.kinds)}"
            ) from None
    return out


def _example_state(g: MarketGame, ex: MarketExample) -> MarketState:
    """The market state an example's ``state`` describes (lines, decks, objectives, players' cards).

    Raises:
        MarketNotationError: a card, objective, contract or company is unknown, or a count does not fit the rules.
    """
    s = ex.state
    players = len(s.players)
    st = MarketState(g, players)
    if len(s.market) != g.n_decks:
        raise MarketNotationError(f"state.market: {len(s.market)} lines given, the rules have {g.n_decks} decks")
    for d, text in enumerate(s.market):
        line = _cards(g, text, f"state.market.{d}")
        if len(line) > g.n_places:
            raise MarketNotationError(f"state.market.{d}: {len(line)} cards, a line has {g.n_places} places")
        st.lines[d] = line + [GAP] * (g.n_places - len(line))
    for d, text in enumerate(s.decks):
        if d >= g.n_decks:
            raise MarketNotationError(f"state.decks: {len(s.decks)} decks given, the rules have {g.n_decks}")
        st.decks[d] = _cards(g, text, f"state.decks.{d}")[::-1]
    try:
        vis = [GAP if o == "-" else g.objective_index(o) for o in s.objectives]
        st.obj_deck = [g.objective_index(o) for o in s.objective_deck][::-1]
        for k, p in enumerate(s.players):
            for c in _cards(g, p.wagons, f"state.players.{k}.wagons"):
                if c < 0 or g.kinds[c].role != WAGON:
                    raise MarketNotationError(f"state.players.{k}.wagons: {g.card_text(c)!r} is not a wagon")
                st.wagons[k][c] += 1
            st.currency[k] = p.currency
            for t in p.tokens.split():
                c = g.company_index(t)
                st.tokens[k][c] += 1
                st.supply[c] -= 1
            st.claimed[k] = [g.objective_index(o) for o in p.objectives]
            st.contracts[k] = [g.contract_index(c) for c in p.contracts]
    except (KeyError, ValueError) as e:
        raise MarketNotationError(f"state: unknown objective, contract or company {e}") from None
    if len(vis) > g.visible_objectives:
        raise MarketNotationError(f"state.objectives: {len(vis)} given, {g.visible_objectives} are face up")
    st.obj_visible = vis + [GAP] * (g.visible_objectives - len(vis))
    if min(st.supply) < 0:
        raise MarketNotationError("state: more tokens held than the card table has")
    return st


def _play_example_moves(
    g: MarketGame, st: MarketState, play: MarketPlay, ex: MarketExample
) -> tuple[MarketTurn | None, tuple[int, str] | None]:
    """Play the example's moves in order until one is refused; ``end`` closes the turn and the next seat plays.

    Returns:
        The turn in progress (None once the game is over) and (1-based move number, refusal message) of the first
        refused move, or None if every move was legal.

    Raises:
        MarketNotationError: a move's text is not valid notation (the message names the move).
    """
    turn: MarketTurn | None = play.new_turn()
    for i, text in enumerate(ex.moves, start=1):
        try:
            mv = parse_market_move(text, g)
            if turn is None:
                raise IllegalMove("the game is over")
            if mv.op == "claim" and mv.a == -2:
                slots = [k for k, o in enumerate(st.obj_visible) if o == mv.b]
                mv = Move("claim", slots[0] if slots else len(st.obj_visible))
            if mv.op == "end" and turn.phase in (CLAIM, DONE):
                turn = None if play.finish_turn(turn) else play.new_turn()
                continue
            turn.apply(mv)
        except MarketNotationError as e:
            raise MarketNotationError(f"move {i}: {e}") from None
        except IllegalMove as e:
            return turn, (i, str(e))
    return turn, None


def _same_lines(got: list[str], want: list[str]) -> bool:
    """True if two lists of card lines hold the same words line by line (spacing aside)."""
    return len(got) == len(want) and all(a.split() == b.split() for a, b in zip(got, want, strict=False))


def _table_problems(g: MarketGame, st: MarketState, want: ExampleExpect) -> list[str]:
    """Differences between the table after the moves and ``want``: market lines, decks and objectives."""
    problems = []

    def line_text(cards: list[int]) -> str:
        return " ".join(g.card_text(c) for c in cards)

    if want.market is not None:
        lines = [line_text(x) for x in st.lines]
        if not _same_lines(lines, want.market):
            problems.append(f"market {lines} != expected {want.market}")
    if want.decks is not None:
        decks = [line_text(d[::-1]) for d in st.decks]
        if not _same_lines(decks, want.decks):
            problems.append(f"decks (top first) {decks} != expected {want.decks}")
    if want.objectives is not None:
        visible = ["-" if o == GAP else g.objectives[o].key for o in st.obj_visible]
        if visible != want.objectives:
            problems.append(f"face-up objectives {visible} != expected {want.objectives}")
    if want.objective_deck is not None:
        deck = [g.objectives[o].key for o in st.obj_deck[::-1]]
        if deck != want.objective_deck:
            problems.append(f"objective deck (top first) {deck} != expected {want.objective_deck}")
    return problems


def _player_problems(g: MarketGame, st: MarketState, k: int, pw: ExamplePlayerExpect) -> list[str]:
    """Differences between seat ``k``'s cards after the moves and ``pw``: wagons, currency, tokens, objectives."""
    problems = []
    if pw.wagons is not None:
        wagons = sorted(g.kinds[c].key for c in g.wagon_kinds for _ in range(st.wagons[k][c]))
        if wagons != sorted(pw.wagons.split()):
            problems.append(f"seat {k} wagons {' '.join(wagons) or '(none)'} != expected {pw.wagons or '(none)'}")
    if pw.currency is not None and st.currency[k] != pw.currency:
        problems.append(f"seat {k} currency {st.currency[k]} != expected {pw.currency}")
    if pw.tokens is not None:
        tokens = sorted(g.companies[c] for c, x in enumerate(st.tokens[k]) for _ in range(x))
        if tokens != sorted(pw.tokens.split()):
            problems.append(f"seat {k} tokens {tokens} != expected {pw.tokens}")
    if pw.objectives is not None:
        claimed = [g.objectives[o].key for o in st.claimed[k]]
        if claimed != pw.objectives:
            problems.append(f"seat {k} objectives {claimed} != expected {pw.objectives}")
    return problems


def _score_problems(g: MarketGame, st: MarketState, want: ExampleExpect) -> list[str]:
    """Differences between the final score of the table after the moves and ``want``: points, totals, winners."""
    problems = []
    points = final_points(g, st)
    for key in ("objective_points", "contract_points"):
        exp = getattr(want, key)
        got = [p[key] for p in points]
        if exp is not None and got != exp:
            problems.append(f"{key.replace('_', ' ')} {got} != expected {exp}")
    if want.scores is not None and [p["total"] for p in points] != want.scores:
        problems.append(f"scores {[p['total'] for p in points]} != expected {want.scores}")
    if want.winners is not None and list(winners_of(g, points)) != want.winners:
        problems.append(f"winners {list(winners_of(g, points))} != expected {want.winners}")
    return problems


def run_market_example(loaded: LoadedRules, ex: MarketExample) -> tuple[bool, str]:
    """Run one market example (its options already applied in ``loaded``).

    The example plays on the rule file's ``example_cards`` (else its card table).
    Moves are played in order; ``end`` closes the turn and the next seat plays;
    the final score is computed on the table after the moves (whether or not the
    game ended).

    Args:
        loaded: the market rule file with the example's variants and options applied.
        ex: the example: a table, moves in the market notation, the expected result.

    Returns:
        ``(ok, message)``; the message lists what differed.

    Raises:
        RulesError: the rules are not of the market family.
    """
    m = loaded.model
    if not isinstance(m, MarketRuleFile):
        raise RulesError(f"{loaded.source}: a rule file of the {m.family!r} family, not of the market family")
    g = compile_market(loaded, m.example_cards)
    try:
        st = _example_state(g, ex)
    except MarketNotationError as e:
        return False, f"board: {e}"
    n = st.players
    play = MarketPlay(g, st, seat=ex.state.seat % n)
    if ex.state.trigger_seat is not None:
        play.trigger_seat = ex.state.trigger_seat
        play.remaining = (ex.state.trigger_seat - play.seat) % n
    try:
        turn, illegal = _play_example_moves(g, st, play, ex)
    except MarketNotationError as e:
        return False, str(e)
    lost = play.lost + (turn.lost if turn is not None else 0)
    want = ex.expect
    problems = [*illegal_problems(want.illegal, illegal, ex.moves), *_table_problems(g, st, want)]
    for k, pw in enumerate(want.players or []):
        if k >= n:
            problems.append(f"players.{k}: the example has {n} players")
        else:
            problems.extend(_player_problems(g, st, k, pw))
    if want.box is not None:
        box = sorted(g.kinds[c].key for c, x in enumerate(st.box) for _ in range(x))
        if box != sorted(want.box.split()):
            problems.append(f"box {' '.join(box) or '(empty)'} != expected {want.box}")
    if want.characters_lost is not None and lost != want.characters_lost:
        problems.append(f"{lost} characters lost, expected {want.characters_lost}")
    if want.seat is not None and play.seat != want.seat:
        problems.append(f"seat {play.seat} to play, expected {want.seat}")
    if want.ended is not None and play.ended != want.ended:
        problems.append(f"game ended is {play.ended}, expected {want.ended}")
    problems.extend(_score_problems(g, st, want))
    return not problems, "; ".join(problems)


def run_market_examples(loaded: LoadedRules, examples: list[MarketExample] | None = None) -> list[ExampleResult]:
    """Run the examples of a market rule file (default: its own) and return one result per example.

    Args:
        loaded: the rule file, loaded (its variants are applied to every example too).
        examples: :class:`~kbsim.rules.market_schema.MarketExample` objects to run instead of the file's own.

    Returns:
        One :class:`kbsim.engine.expect.ExampleResult` per example, in order.

    Raises:
        RulesError: the rules are not of the market family.
    """
    src = str(loaded.source)
    m = loaded.model
    if not isinstance(m, MarketRuleFile):
        raise RulesError(f"{loaded.source}: a rule file of the {m.family!r} family, not of the market family")
    out = []
    for ex in m.examples if examples is None else examples:
        try:
            lr = load_rules(src, loaded.variants, ex.options) if ex.options else loaded
        except RulesError as e:
            out.append(ExampleResult(src, ex.name, False, f"options: {e}"))
            continue
        ok, msg = run_market_example(lr, ex)
        out.append(ExampleResult(src, ex.name, ok, msg))
    return out
