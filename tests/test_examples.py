"""The executable examples of the rule file, through the library and through ``kbsim rules test``."""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import RULE_FILE, run_cli
from kbsim.engine.rows.examples import run_example, run_examples
from kbsim.rules.loader import load_rules, shipped_games
from kbsim.rules.schema import Example

GAMES = shipped_games()
KB = load_rules("kingsbridge")
# Kingsbridge: the rule file's own examples, then each character's (run with the characters switched on)
_characters = getattr(KB.model, "characters", None)
CASES = [(ex.name, ex, False) for ex in KB.model.examples] + [
    (f"{key}/{ex.name}", ex, True)
    for key, ch in (_characters.roster.items() if _characters is not None else ())
    for ex in ch.examples
]


def test_kingsbridge_has_examples():
    assert len(KB.model.examples) >= 15
    names = [name for name, _, _ in CASES]
    assert len(names) == len(set(names)), "example names must be unique"


@pytest.mark.parametrize("name, example, characters", CASES, ids=[c[0] for c in CASES])
def test_kingsbridge_example(name, example, characters):
    if characters:
        result = run_example(KB.source, example, characters=True)
    else:
        result = run_example(KB.source, example)
    assert result.ok, result.message
    assert result.message == ""


@pytest.mark.parametrize("game", [g for g in GAMES if g != "kingsbridge"])
def test_other_shipped_rule_files_pass_their_examples(game):
    results = run_examples(game)
    assert results, f"{game} has no examples"
    assert all(r.ok for r in results), [(r.name, r.message) for r in results if not r.ok]


def _example(**fields) -> Example:
    base = {
        "name": "wrong",
        "summary": "a test example",
        "rows": ["3", "_", "_", "_", "_", "_"],
        "hand": "7",
        "moves": ["lay 7 on 1"],
    }
    base.update(fields)
    return Example.model_validate(base)


def test_wrong_example_expecting_a_gap_to_be_legal_fails():
    ex = _example(expect={"rows": ["3 7", "_", "_", "_", "_", "_"], "hand": ""})
    result = run_example(RULE_FILE, ex)
    assert not result.ok
    assert "move 1" in result.message and "refused" in result.message


def test_wrong_example_expecting_a_legal_move_to_be_refused_fails():
    ex = _example(hand="4", moves=["lay 4 on 1"], expect={"illegal": 1})
    result = run_example(RULE_FILE, ex)
    assert not result.ok
    assert "expected move 1 to be illegal" in result.message


def test_wrong_expected_rows_fail():
    ex = _example(hand="4", moves=["lay 4 on 1"], expect={"rows": ["3", "4", "_", "_", "_", "_"]})
    result = run_example(RULE_FILE, ex)
    assert not result.ok
    assert "rows" in result.message


def test_the_right_expectation_passes():
    # control for the three tests above: the same board with the right expectation passes
    ex = _example(hand="4 7", moves=["lay 4 on 1", "lay 7 on 1"], expect={"illegal": 2})
    assert run_example(RULE_FILE, ex).ok
    ex = _example(hand="4", moves=["lay 4 on 1"], expect={"rows": ["3-4", "_", "_", "_", "_", "_"], "hand": ""})
    assert run_example(RULE_FILE, ex).ok


def test_run_examples_reports_each_example():
    good = _example(hand="4", moves=["lay 4 on 1"], expect={"rows": ["3-4", "_", "_", "_", "_", "_"]})
    bad = _example(name="bad", expect={"hand": ""})
    results = run_examples(RULE_FILE, [good, bad])
    assert [(r.name, r.ok) for r in results] == [("wrong", True), ("bad", False)]


def test_cli_rules_test_passes(tmp_path):
    p = run_cli("rules", "test", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"(\d+) passed, 0 failed", p.stdout.strip().splitlines()[-1])
    assert m, p.stdout
    # every Kingsbridge example, and at least one of every other shipped rule file
    assert int(m.group(1)) >= len(CASES) + len(GAMES) - 1
    assert "Traceback" not in p.stderr


GOOD = """\
    - name: extra-lay-on-empty
      summary: Any card opens an empty row.
      rows: ["_", "2", "3", "4", "5", "6"]
      hand: "11"
      moves: ["lay 11 on 1"]
      expect: {rows: ["11", "2", "3", "4", "5", "6"], hand: ""}
    - name: extra-rebuild-tail
      summary: The tail from the 4 moves onto the 3.
      rows: ["2-6", "3", "_", "_", "_", "_"]
      hand: ""
      moves: ["rebuild 1 from 4 on 2"]
      expect: {rows: ["2-3", "3-6", "_", "_", "_", "_"]}
"""

BAD = """\
    - name: extra-seven-on-three-is-legal
      summary: Deliberately wrong, a gap is never legal.
      rows: ["3", "_", "_", "_", "_", "_"]
      hand: "7"
      moves: ["lay 7 on 1"]
      expect: {rows: ["3 7", "_", "_", "_", "_", "_"], hand: ""}
"""


def _write_examples(path, body: str):
    path.write_text("rules: kingsbridge\nexamples:\n" + textwrap.indent(textwrap.dedent(body), "  "), encoding="utf-8")
    return path


def test_cli_extra_example_file_passes(tmp_path):
    f = _write_examples(tmp_path / "extra.yaml", GOOD)
    p = run_cli("rules", "test", str(f), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "2 passed, 0 failed"


def test_cli_extra_example_file_failing(tmp_path):
    f = _write_examples(tmp_path / "extra.yaml", GOOD + BAD)
    p = run_cli("rules", "test", str(f), cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.strip().splitlines()[-1] == "2 passed, 1 failed"
    assert "extra-seven-on-three-is-legal" in p.stderr
    assert "extra-lay-on-empty" not in p.stderr
    assert "Traceback" not in p.stderr
