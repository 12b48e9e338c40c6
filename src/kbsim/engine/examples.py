"""Executing the ``examples`` of a rule file (``kbsim rules test``).

An example sets up a board (rows, the player's hand and draw pile), applies
its moves in the notation of :mod:`kbsim.engine.notation` with the example's
options, and compares the outcome with ``expect``: the first illegal move,
or the rows, hand, draw pile, discard count, completed rows, cards laid and win.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from kbsim.engine.compiled import compile_rules
from kbsim.engine.moves import IllegalMove
from kbsim.engine.notation import NotationError, format_cards, parse_cards, parse_move
from kbsim.engine.turn import Turn
from kbsim.rules.loader import RulesError, format_validation, load_rules, read_document
from kbsim.rules.schema import Example, Strict


@dataclass(frozen=True)
class ExampleResult:
    """Outcome of one example: ``ok`` and, when not, what differed."""

    source: str
    name: str
    ok: bool
    message: str = ""


def run_example(rule_file: Path | str, ex: Example, variants: tuple[str, ...] = ()) -> ExampleResult:
    """Run one example against the rules in ``rule_file`` (with ``variants`` and the example's options)."""
    src = str(rule_file)
    try:
        loaded = load_rules(str(rule_file), variants, ex.options)
    except RulesError as e:
        return ExampleResult(src, ex.name, False, f"options: {e}")
    g = compile_rules(loaded)
    try:
        rows = [parse_cards(r) for r in ex.rows]
        hand = parse_cards(ex.hand)
        pile = parse_cards(ex.draw_pile)[::-1]
    except NotationError as e:
        return ExampleResult(src, ex.name, False, f"board: {e}")
    if len(rows) != g.n_rows:
        return ExampleResult(src, ex.name, False, f"board: {len(rows)} rows given, the rules have {g.n_rows}")
    for i, row in enumerate(rows):
        if not g.row_is_legal(row):
            return ExampleResult(src, ex.name, False, f"board: row {i + 1} {format_cards(row)} is not a legal row")
    over = {v: c for v, c in Counter(v for zone in (*rows, hand, pile) for v in zone).items() if c > g.copies}
    if over:
        return ExampleResult(src, ex.name, False, f"board: more copies than the deck holds: {over}")
    turn = Turn(g, rows, hand, pile, [])
    illegal = None
    for i, text in enumerate(ex.moves, start=1):
        try:
            move = parse_move(text, turn.rows)
            turn.apply(move)
        except NotationError as e:
            return ExampleResult(src, ex.name, False, f"move {i}: {e}")
        except IllegalMove as e:
            illegal = (i, str(e))
            break
    want = ex.expect
    problems = []
    if want.illegal is not None:
        if illegal is None:
            problems.append(f"expected move {want.illegal} to be illegal, but all moves were accepted")
        elif illegal[0] != want.illegal:
            problems.append(f"expected move {want.illegal} to be illegal, but move {illegal[0]} was: {illegal[1]}")
    elif illegal is not None:
        problems.append(f"move {illegal[0]} ({ex.moves[illegal[0] - 1]!r}) was refused: {illegal[1]}")
    if want.rows is not None:
        expected_rows = [parse_cards(r) for r in want.rows]
        if turn.rows != expected_rows:
            problems.append(f"rows {[format_cards(r) for r in turn.rows]} != expected {want.rows}")
    if want.hand is not None and sorted(turn.hand) != sorted(parse_cards(want.hand)):
        problems.append(f"hand {sorted(turn.hand)} != expected {sorted(parse_cards(want.hand))}")
    if want.draw_pile is not None and pile[::-1] != parse_cards(want.draw_pile):
        problems.append(f"draw pile (top first) {pile[::-1]} != expected {parse_cards(want.draw_pile)}")
    if want.discard is not None and turn.discard_size != want.discard:
        problems.append(f"discard pile holds {turn.discard_size} cards, expected {want.discard}")
    if want.completed is not None and turn.completed != want.completed:
        problems.append(f"{turn.completed} rows completed, expected {want.completed}")
    if want.laid is not None and turn.laid != want.laid:
        problems.append(f"{turn.laid} hand cards laid, expected {want.laid}")
    if want.won is not None and turn.won != want.won:
        problems.append(f"won is {turn.won}, expected {want.won}")
    return ExampleResult(src, ex.name, not problems, "; ".join(problems))


class ExampleFile(Strict):
    """A file of extra examples: the rules they run against, and the examples (same format as in a rule file)."""

    rules: str = "kingsbridge"
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
        raise RulesError(format_validation(path, e)) from None


def run_examples(rule_file: Path | str, examples: list[Example] | None = None) -> list[ExampleResult]:
    """Run ``examples`` (default: the rule file's own) and return one result per example.

    Raises:
        RulesError: the rule file itself cannot be loaded.
    """
    loaded = load_rules(str(rule_file))
    exs = loaded.model.examples if examples is None else examples
    return [run_example(loaded.source, ex) for ex in exs]
