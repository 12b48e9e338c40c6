"""Shared fixtures and helpers for the kbsim test suite."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kbsim.engine.rows.compiled import CompiledGame, compile_rules
from kbsim.engine.rows.turn import Turn
from kbsim.rules.loader import load_rules

REPO = Path(__file__).resolve().parents[1]
RULE_FILE = REPO / "rules" / "kingsbridge.yaml"


@functools.cache
def _compiled(variants: tuple[str, ...], options: tuple[tuple[str, object], ...]) -> CompiledGame:
    return compile_rules(load_rules("kingsbridge", variants, dict(options)))


def compiled(*variants: str, **options) -> CompiledGame:
    """The compiled Kingsbridge rules with ``variants`` and ``options`` (cached per combination)."""
    return _compiled(tuple(variants), tuple(sorted(options.items())))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``long`` first, the others in their usual order (the sort is stable).

    Every xdist worker collects the same order, and the scheduler (``--dist loadgroup``, pyproject.toml) hands out
    tests in that order: the long tests start while there is other work for the second worker, instead of one of
    them running alone at the end of the run.
    """
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session")
def game() -> CompiledGame:
    """The shipped Kingsbridge rules, compiled, without variant or option."""
    return compiled()


def make_turn(game: CompiledGame, rows, hand=(), pile_top_first=(), discard=()) -> Turn:
    """A turn on a hand-made board.

    ``rows`` is a list of card lists (or of lists to copy), ``pile_top_first`` the draw pile
    with its top card first (the engine keeps the top card last).
    """
    return Turn(game, [list(r) for r in rows], list(hand), list(pile_top_first)[::-1], list(discard))


def cli_env() -> dict[str, str]:
    """Environment for CLI subprocesses: no terminal width override, no colour codes."""
    env = dict(os.environ)
    for k in ("COLUMNS", "LINES", "FORCE_COLOR", "TERM"):
        env.pop(k, None)
    env["NO_COLOR"] = "1"
    return env


def run_cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m kbsim.cli ARGS`` in ``cwd`` and capture its text output."""
    return subprocess.run(
        [sys.executable, "-m", "kbsim.cli", *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def compiled_module(name: str) -> bool:
    """True if module ``name`` runs from a mypyc-compiled extension (``pip install .`` with a C compiler)."""
    import importlib

    return not str(importlib.import_module(name).__file__).endswith(".py")


def pure_only(*modules: str) -> pytest.MarkDecorator:
    """Skip a test that monkeypatches a function or method of ``modules`` when they are compiled.

    Compiled code calls its own module's functions and its classes' methods directly, so a patched attribute is
    never called from there and the test could not see what it checks. The pure-Python build (CI's editable
    install) runs these tests.
    """
    hit = [m for m in modules if compiled_module(m)]
    return pytest.mark.skipif(bool(hit), reason=f"monkeypatches {', '.join(hit)}, which runs compiled (mypyc)")


class PageRefs(HTMLParser):
    """Collects what an HTML page loads: every ``src``/``href``/``data`` URL and the count of executable scripts."""

    def __init__(self):
        super().__init__()
        self.urls, self.scripts = [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("type") != "application/json":
            self.scripts += 1
        for key in ("src", "href", "data"):
            if a.get(key):
                self.urls.append((tag, a[key]))
