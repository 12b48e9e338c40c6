"""Executing the ``examples`` of a rule file (``kbsim rules test``).

An example sets up a board (rows, the player's hand and draw pile), applies
its moves in the notation of :mod:`kbsim.engine.rows.notation` with the example's
options, and compares the outcome with ``expect``: the first illegal move,
or the rows, hand, draw pile, discard count, completed rows, cards laid and win.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import Field, ValidationError

from kbsim.engine.expect import ExampleResult, illegal_problems
from kbsim.engine.families import family
from kbsim.engine.results import IllegalMove
from kbsim.engine.rows.compiled import CompiledGame, compile_rules
from kbsim.engine.rows.notation import NotationError, format_cards, parse_cards, parse_move
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn
from kbsim.rules.loader import LoadedRules, RulesError, format_validation, load_rules, read_document
from kbsim.rules.schema import Example, RuleFile, Strict


class _ExampleFailed(Exception):
    """An example that cannot run (bad options, board, setup or move text); the message says which and why."""


def _load_example_rules(rule_file: Path | str, ex: Example, variants: tuple[str, ...], characters: bool) -> LoadedRules:
    """The rules an example runs against: ``variants``, then the example's options; characters on if asked for.

    Raises:
        _ExampleFailed: the options or the rule file do not load.
    """
    try:
        loaded = load_rules(str(rule_file), variants, ex.options)
        if characters or (ex.setup is not None and loaded.model.characters is not None):
            loaded = load_rules(str(rule_file), variants, ex.options, overlay={"characters": {"enabled": True}})
    except RulesError as e:
        raise _ExampleFailed(f"options: {e}") from None
    return loaded


def _board(ex: Example, g: CompiledGame) -> tuple[list[list[int]], list[int], list[int], list[int], list[int]]:
    """The example's rows, hand, draw pile (bottom first), discard pile and parked cards, checked against the deck.

    Raises:
        _ExampleFailed: a zone does not parse, the row count is wrong, a row is not legal, or a card has more
            copies than the deck holds.
    """
    setup = ex.setup
    try:
        rows = [parse_cards(r, g) for r in ex.rows]
        hand = parse_cards(ex.hand, g)
        pile = parse_cards(ex.draw_pile, g)[::-1]
        discard = parse_cards(setup.discard, g) if setup else []
        parked = parse_cards(setup.parked, g) if setup else []
    except NotationError as e:
        raise _ExampleFailed(f"board: {e}") from None
    if len(rows) != g.n_rows:
        raise _ExampleFailed(f"board: {len(rows)} rows given, the rules have {g.n_rows}")
    for i, row in enumerate(rows):
        if not g.row_is_legal(row):
            raise _ExampleFailed(f"board: row {i + 1} {format_cards(row, g)} is not a legal row")
    zones = (*rows, hand, pile, discard, parked)
    over = {g.card_text(v): c for v, c in Counter(v for zone in zones for v in zone if v > 0).items() if c > g.copies}
    if over:
        raise _ExampleFailed(f"board: more copies than the deck holds: {over}")
    return rows, hand, pile, discard, parked


def _example_state(ex: Example, g: CompiledGame) -> tuple[GameState, list[int]]:
    """The game state an example starts from (seat 0 to play, turn 1) and its draw pile (bottom first).

    Raises:
        _ExampleFailed: the board or the setup is not valid for these rules.
    """
    rows, hand, pile, discard, parked = _board(ex, g)
    setup = ex.setup
    opponents = max(setup.opponents, len(setup.opponent_hands)) if setup else 0
    try:
        others = [parse_cards(h, g) for h in setup.opponent_hands] if setup else []
    except NotationError as e:
        raise _ExampleFailed(f"setup: {e}") from None
    others += [[] for _ in range(opponents - len(others))]
    piles = [pile] * (1 + opponents) if g.shared_stock else [pile] + [[] for _ in range(opponents)]
    state = GameState(rows=rows, hands=[hand] + others, piles=piles, discard=discard, n_fixed=g.n_rows)
    state.turn_no = 1
    state.parked[0] = [(c, 0) for c in parked]
    jokers = [c for c in g.roster if c.is_joker]
    if any(v < 0 for row in rows for v in row):
        if not jokers:
            raise _ExampleFailed("board: a joker (E) in a row, but no character is a joker")
        state.joker = jokers[0].key
    if setup and setup.character:
        try:
            g.character(setup.character)
        except KeyError:
            raise _ExampleFailed(f"setup: unknown character {setup.character!r}") from None
        if g.chars_display_mode:
            state.display = [setup.character]
        else:
            state.char_piles[0] = [setup.character]
    return state, pile


def _play_moves(ex: Example, g: CompiledGame, turn: Turn) -> tuple[int, str] | None:
    """Apply the example's moves to ``turn`` until one is refused.

    Returns:
        (1-based move number, refusal message) of the first refused move, or None if every move was legal.

    Raises:
        _ExampleFailed: a move's text is not valid notation.
    """
    for i, text in enumerate(ex.moves, start=1):
        try:
            move = parse_move(text, turn.rows, g)
            turn.apply(move)
        except NotationError as e:
            raise _ExampleFailed(f"move {i}: {e}") from None
        except IllegalMove as e:
            return i, str(e)
    return None


def _board_problems(ex: Example, g: CompiledGame, turn: Turn, pile: list[int]) -> list[str]:
    """Differences between the board after the moves and ``expect``: rows, hand, draw pile, discard, counts, win."""
    want = ex.expect
    problems = []
    if want.rows is not None:
        expected_rows = [parse_cards(r, g) for r in want.rows]
        if turn.rows != expected_rows:
            problems.append(f"rows {[format_cards(r, g) for r in turn.rows]} != expected {want.rows}")
    if want.hand is not None and sorted(turn.hand) != sorted(parse_cards(want.hand, g)):
        problems.append(f"hand {format_cards(sorted(turn.hand), g)} != expected {want.hand}")
    if want.draw_pile is not None and pile[::-1] != parse_cards(want.draw_pile, g):
        problems.append(f"draw pile (top first) {format_cards(pile[::-1], g)} != expected {want.draw_pile}")
    if want.discard is not None and turn.discard_size != want.discard:
        problems.append(f"discard pile holds {turn.discard_size} cards, expected {want.discard}")
    if want.completed is not None and turn.completed != want.completed:
        problems.append(f"{turn.completed} rows completed, expected {want.completed}")
    if want.laid is not None and turn.laid != want.laid:
        problems.append(f"{turn.laid} hand cards laid, expected {want.laid}")
    if want.won is not None and turn.won != want.won:
        problems.append(f"won is {turn.won}, expected {want.won}")
    return problems


def _seat_problems(ex: Example, g: CompiledGame, state: GameState) -> list[str]:
    """Differences between the seats after the moves and ``expect``.

    Compared: penalties per seat, parked cards, opponents' draw piles and whether the joker is back with the player.
    """
    want = ex.expect
    problems = []
    if want.penalties is not None:
        table = dict(g.penalty)
        got_pen = [sum(table.get(c, 0) for c in h) for h in state.hands]
        if got_pen != want.penalties:
            problems.append(f"penalties {got_pen} != expected {want.penalties}")
    if want.parked is not None:
        got_parked = sorted(c for c, _ in state.parked[0])
        if got_parked != sorted(parse_cards(want.parked)):
            problems.append(f"parked {got_parked} != expected {sorted(parse_cards(want.parked))}")
    if want.opponent_piles is not None:
        got_piles = [p[::-1] for p in state.piles[1:]]
        exp = [parse_cards(p) for p in want.opponent_piles]
        if got_piles != exp:
            problems.append(f"opponents' draw piles (top first) {got_piles} != expected {exp}")
    if want.joker_held is not None:
        jokers = [c for c in g.roster if c.is_joker]
        held = bool(jokers) and (
            jokers[0].key in state.char_piles[0] or (g.chars_display_mode and jokers[0].key in state.char_deck)
        )
        if held != want.joker_held:
            problems.append(f"joker back in the player's pile is {held}, expected {want.joker_held}")
    return problems


def run_example(
    rule_file: Path | str, ex: Example, variants: tuple[str, ...] = (), characters: bool = False
) -> ExampleResult:
    """Run one example against the rules in ``rule_file`` (with ``variants`` and the example's options).

    The example's board is set up for seat 0 on turn 1, its moves are applied in the notation of
    :mod:`kbsim.engine.rows.notation` until one is refused, and the outcome is compared with ``expect``.

    Args:
        rule_file: the rule file (or shipped game name).
        ex: the example.
        variants: variants applied first.
        characters: switch the rule file's characters on (for the examples of a character).

    Returns:
        The result: passed, or failed with every difference (or the reason the example could not run).
    """
    src = str(rule_file)
    try:
        g = compile_rules(_load_example_rules(rule_file, ex, variants, characters))
        state, pile = _example_state(ex, g)
        turn = Turn.for_seat(g, state, 0)
        illegal = _play_moves(ex, g, turn)
    except _ExampleFailed as e:
        return ExampleResult(src, ex.name, False, str(e))
    problems = [
        *illegal_problems(ex.expect.illegal, illegal, ex.moves),
        *_board_problems(ex, g, turn, pile),
        *_seat_problems(ex, g, state),
    ]
    return ExampleResult(src, ex.name, not problems, "; ".join(problems))


class ExampleFile(Strict):
    """A file of extra examples: the rules they run against, and the examples (same format as in a rule file)."""

    rules: str = Field(description="The rules the examples run against: a shipped game name or a rule file.")
    examples: list[Example]


def load_example_file(path: Path) -> ExampleFile:
    """Read and validate a file of extra examples.

    Raises:
        RulesError: unreadable, not YAML, or not the example format (each problem with its field path).
    """
    doc = read_document(Path(path))
    try:
        return ExampleFile.model_validate(doc)
    except ValidationError as e:
        raise RulesError(format_validation(path, e, doc=doc)) from None


def run_examples(rule_file: Path | str, examples: list[Example] | None = None) -> list[ExampleResult]:
    """Run ``examples`` (default: the rule file's own) and return one result per example.

    Raises:
        RulesError: the rule file itself cannot be loaded.
    """
    loaded = load_rules(str(rule_file))
    return family(loaded.model.family).run_examples(loaded, examples)


def run_rows_examples(loaded: LoadedRules, examples: list[Example] | None = None) -> list[ExampleResult]:
    """Run ``examples`` (default: the rule file's own, characters' included) of a loaded rows rule file.

    Args:
        loaded: rules of the rows family from :func:`kbsim.rules.loader.load_rules`.
        examples: the examples to run instead of the rule file's own.

    Returns:
        One result per example, in order (the rule file's, then each character's).

    Raises:
        RulesError: the rules are not of the rows family.
    """
    if examples is not None:
        return [run_example(loaded.source, ex) for ex in examples]
    m = loaded.model
    if not isinstance(m, RuleFile):
        raise RulesError(f"{loaded.source}: a rule file of the {m.family!r} family, not of the rows family")
    out = [run_example(loaded.source, ex) for ex in m.examples]
    if m.characters is not None:
        for key, ch in m.characters.roster.items():
            out.extend(
                run_example(loaded.source, ex.model_copy(update={"name": f"{key}/{ex.name}"}), characters=True)
                for ex in ch.examples
            )
    return out
