"""Helpers for ``test_characters.py``: hand-made game states, rule files with made-up characters, the CLI.

Imported explicitly by the character tests (not a pytest conftest), so it adds
no fixture to the rest of the suite.
"""

from __future__ import annotations

import copy
import functools
import os
import subprocess
import sys
from pathlib import Path

import yaml

from kbsim.engine.rows.compiled import CompiledGame, compile_rules
from kbsim.engine.rows.notation import parse_cards
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import Turn
from kbsim.rules.loader import load_rules

REPO = Path(__file__).resolve().parents[1]
RULE_FILE = REPO / "rules" / "kingsbridge.yaml"
SHIPPED_KEYS = ("edgar", "ethelred", "aldred", "den", "ragna", "agatha", "wilwulf", "wynstan", "gytha", "wigelm")


@functools.cache
def _rules(game: str, variants: tuple[str, ...], options: tuple[tuple[str, object], ...]) -> CompiledGame:
    return compile_rules(load_rules(game, variants, {k: list(v) if isinstance(v, tuple) else v for k, v in options}))


def rules(*variants: str, game: str | Path = "kingsbridge", **options) -> CompiledGame:
    """Compiled rules of ``game`` (shipped name or rule-file path) with variants and options, cached.

    A list option (``characters_removed=["den"]``) is passed on as a list.
    """
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))
    return _rules(str(game), tuple(variants), frozen)


def make_state(
    rows: list[str],
    hands: list[str],
    piles: list[str] | None = None,
    *,
    discard: str = "",
    char_piles: list[list[str]] | None = None,
    display: list[str] | None = None,
    char_deck: list[str] | None = None,
    joker: str | None = None,
    turn_no: int = 1,
) -> GameState:
    """A hand-made state in the example notation.

    ``rows``, ``hands`` and ``piles`` are card strings (``"3-5 E6"``, ``"_"``); a draw pile is given top
    first (the engine keeps the top card last). ``char_piles`` are top first, like the engine's.
    ``char_deck`` is given as the engine keeps it (top last).
    """
    piles = piles if piles is not None else [""] * len(hands)
    st = GameState(
        rows=[parse_cards(r) for r in rows],
        hands=[parse_cards(h) for h in hands],
        piles=[parse_cards(p)[::-1] for p in piles],
        discard=parse_cards(discard),
        n_fixed=6,
    )
    if char_piles is not None:
        st.char_piles = [list(p) for p in char_piles]
    st.display = list(display or [])
    st.char_deck = list(char_deck or [])
    st.joker = joker
    st.turn_no = turn_no
    return st


def turn_of(game: CompiledGame, state: GameState, seat: int) -> Turn:
    """The turn of ``seat`` on ``state`` (opponents' counts computed like the game loop does)."""
    n = state.players
    return Turn.for_seat(game, state, seat, lambda: tuple(state.held((seat + k) % n) for k in range(1, n)))


# --------------------------------------------------------------------------- made-up characters
TRICKSTER = {
    "name": "Trickster",
    "summary": "Remove the last card of any row, then lay cards before row starts for the rest of the turn.",
    "duration": "this turn",
    "power": [{"remove_from_row_end": {"min": 1, "max": 1}}, {"modifier": {"kind": "lay_at_start"}}],
    "examples": [
        {
            "name": "trickster-remove-then-lay-at-start",
            "summary": "The 7 leaves the row, the 2 goes before its 3, the own 7 goes back on the end.",
            "setup": {"character": "trickster"},
            "rows": ["3-7", "9", "9", "9", "9", "9"],
            "hand": "2 7",
            "draw_pile": "1",
            "moves": ["play trickster 1 1", "lay 2 at start of 1", "lay 7 on 1"],
            "expect": {"rows": ["2-7", "9", "9", "9", "9", "9"], "hand": "", "discard": 1},
        },
        {
            "name": "trickster-removes-only-one",
            "summary": "Its removal is limited to one card.",
            "setup": {"character": "trickster"},
            "rows": ["3-7", "9", "9", "9", "9", "9"],
            "hand": "2",
            "moves": ["play trickster 1 2"],
            "expect": {"illegal": 1},
        },
    ],
}
HOARDER = {
    "name": "Hoarder",
    "summary": "Take one card from the discard pile and lay it, then park one hand card.",
    "power": [{"take_from_discard": {"min": 1, "max": 1}}, {"park": {"min": 1, "max": 1}}],
    "examples": [
        {
            "name": "hoarder-take-and-park",
            "summary": "The 8 comes from the discard pile onto the 3-7, the 12 is parked.",
            "setup": {"character": "hoarder", "discard": "8 11"},
            "rows": ["3-7", "9", "9", "9", "9", "9"],
            "hand": "5 12",
            "draw_pile": "1",
            "moves": ["play hoarder 8 on 1 then 12"],
            "expect": {"rows": ["3-8", "9", "9", "9", "9", "9"], "hand": "5", "parked": "12", "discard": 1},
        },
        {
            "name": "hoarder-parked-not-this-turn",
            "summary": "The parked card waits for the next turn.",
            "setup": {"character": "hoarder", "discard": "8"},
            "rows": ["3-7", "9", "9", "9", "9", "9"],
            "hand": "10",
            "draw_pile": "1",
            "moves": ["play hoarder 8 on 1 then 10", "lay parked 10 on 2"],
            "expect": {"illegal": 2},
        },
    ],
}
JESTER = {"name": "Jester", "summary": "A second wild card.", "power": [{"joker": {}}]}


def custom_document(**extra_roster: dict) -> dict:
    """The shipped rule document with ``extra_roster`` characters added to ``characters.roster``."""
    doc = yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))
    doc = copy.deepcopy(doc)
    doc["characters"]["roster"].update(copy.deepcopy(extra_roster))
    return doc


def write_yaml(path: Path, doc: dict) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- CLI
def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m kbsim.cli ARGS`` in ``cwd`` (no colours, no terminal width) and capture its output."""
    env = dict(os.environ)
    for k in ("COLUMNS", "LINES", "FORCE_COLOR", "TERM"):
        env.pop(k, None)
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "kbsim.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
