"""Guard rails of the code's layout (#12): layer contracts, no import cycles, no game names in engine or bot code.

* ``lint-imports`` checks the contracts in ``pyproject.toml`` (layers
  ``cli > docs_ext > analysis > sim > bots > engine > rules``; the market
  family independent of the rows family's modules);
* the module import graph (imports inside functions included) has no cycle;
* no module grows past about 1,000 lines (the few still above it may not grow);
* no module reaches into another module's private names (``from kbsim.x import _y``, ``obj._y`` where this
  module does not define ``_y``);
* no string literal of the engine, bot or solver code names a shipped game,
  character, event or market card, and no comparison anywhere in the package tests
  against one (the names are read from the shipped rule files and card tables, so a
  new game or card is covered without editing this test);
* every family branch goes through the registry: no ``family == "..."`` comparison.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
import yaml

import kbsim
from kbsim.engine.families import FAMILIES
from kbsim.rules.loader import find_rule_file, load_rules

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kbsim"
CHECKED = [*(SRC / "engine").rglob("*.py"), *(SRC / "bots").rglob("*.py")]


def test_import_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run(
        [exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles():
    """Imports inside functions count too: a cycle hidden in a function is still a cycle.

    Imports under ``if TYPE_CHECKING:`` do not: they name a type for the checker and never run (e.g. the
    rule-usage module annotates its argument as a ``Turn``, and the turn calls it).
    """
    graph = grimp.build_graph("kbsim", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_the_cycle_finder_can_fail():
    class Fake:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"a", "c"}, "c": set()}[m]

    assert _cycles(Fake()) == [["a", "b"]]


def test_the_cycle_finder_sees_imports_inside_functions(tmp_path, monkeypatch):
    """A cycle closed only by an import inside a function is found; one closed under ``TYPE_CHECKING`` is not."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyclepkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from cyclepkg import a\n    return a\n")
    (pkg / "c.py").write_text("from cyclepkg import d\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from cyclepkg import c\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclepkg", exclude_type_checking_imports=True, cache_dir=None)
    assert _cycles(graph) == [["cyclepkg.a", "cyclepkg.b"]]


MODULE_LINES = 1000
"""A module a newcomer can hold: at most about this many lines (issue 26)."""

OVERSIZED: dict[str, int] = {}
"""Modules still above :data:`MODULE_LINES`, each with the ceiling it may not pass while it waits to be split (a
ratchet: lower a ceiling when a module shrinks, drop the entry once it is under the limit)."""


def test_no_module_grows_past_its_size():
    sizes = {p.relative_to(SRC).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in SRC.rglob("*.py")}
    over = {m: n for m, n in sizes.items() if n > OVERSIZED.get(m, MODULE_LINES)}
    assert over == {}
    assert all(m in sizes for m in OVERSIZED), "a listed module was renamed or removed: update OVERSIZED"


PRIVATE_ALLOWED = {
    "_exit": "os._exit: the standard library's documented exit without clean-up (public despite the underscore)",
    "_fields": "a NamedTuple's documented list of field names (public API of collections.namedtuple)",
    "_run_finalizers": "multiprocessing.util's finalizers, run at a second interrupt so the pools' named semaphores "
    "are released (sim/run.py): the standard library has no public call for it",
}
"""Private names of other code (the standard library) that a module may use, each with why; none is kbsim's."""


def _owned_private_names(tree: ast.Module) -> set[str]:
    """The ``_names`` a module defines: functions, classes, assigned names, arguments, ``self._x``/``cls._x``, slots."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
            if n.value.id in ("self", "cls"):
                out.add(n.attr)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(x, ast.Name) and x.id == "__slots__" for x in targets) and n.value is not None:
                out |= {c.value for c in ast.walk(n.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return {x for x in out if x.startswith("_")}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_reaches(path: Path) -> list[str]:
    """Where a module uses a private name it does not define: ``line: what``.

    An import ``from kbsim.... import _name``, and an attribute ``x._name`` (``self._name`` too: a private
    attribute of a base class in another module) whose name this module neither defines nor sets. Names are
    compared, not types: a module defining ``_name`` itself may read ``other._name`` unseen.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _owned_private_names(tree)
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "kbsim":
            out += [(n.lineno, f"from {n.module} import {a.name}") for a in n.names if _private(a.name)]
        elif isinstance(n, ast.Attribute) and _private(n.attr) and n.attr not in own and n.attr not in PRIVATE_ALLOWED:
            out.append((n.lineno, ast.unparse(n)))
    return [f"{line}: {what}" for line, what in sorted(out)]


def test_no_module_reaches_into_another_modules_private_names():
    """A ``_name`` is its module's own (issue 26): code another module needs is public, with a docstring."""
    paths = sorted(SRC.rglob("*.py"))
    hits = {p.relative_to(SRC).as_posix(): _private_reaches(p) for p in paths}
    assert {m: h for m, h in hits.items() if h} == {}
    ours = set().union(*(_owned_private_names(ast.parse(p.read_text(encoding="utf-8"))) for p in paths))
    assert ours & set(PRIVATE_ALLOWED) == set(), "an allowed name is kbsim's own: make it public instead"


def test_the_private_name_check_can_fail(tmp_path):
    (tmp_path / "a.py").write_text(
        "from kbsim.x import _helper, public\n"
        "import os\n\n"
        "class A:\n"
        "    __slots__ = ('_kept',)\n\n"
        "    def __init__(self, other):\n"
        "        self._mine = 1\n"
        "        self._kept = other._kept\n"
        "        other._pile.append(self._mine)\n"
        "        self._inherited()\n"
        "        os._exit(0)\n"
    )
    assert _private_reaches(tmp_path / "a.py") == [
        "1: from kbsim.x import _helper",
        "10: other._pile",
        "11: self._inherited",
    ]


def _shipped_names() -> set[str]:
    """Lower-case names of every shipped game, character, event and market card (keys and display names)."""
    names: set[str] = set()
    for game in kbsim.shipped_games():
        path = find_rule_file(game)
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        names |= {game, doc.get("game", ""), doc.get("title", "")}
        model = load_rules(game).model
        chars = getattr(model, "characters", None)
        roster = getattr(chars, "roster", chars) or {}
        for key, ch in roster.items():
            names |= {key, getattr(ch, "name", "")}
        for key, ev in (getattr(model, "events", None) or {}).items():
            names |= {key, ev.name}
        cards = getattr(model, "cards", None)
        for w in getattr(cards, "wagons", None) or ():
            names |= {w.key, w.name}
        currency = getattr(model, "currency", None)
        if currency is not None:
            names |= {currency.key, currency.name}
    return {n.lower() for n in names if n and len(n) > 2}


def _literals(path: Path) -> list[str]:
    """The string literals of a module, docstrings excepted."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


def _named(text: str, names: set[str]) -> set[str]:
    low = text.lower()
    words = set(re.split(r"[^a-z0-9]+", low.replace("_", " ").replace("-", " ")))
    return {n for n in names if (n in words) or (" " in n or "-" in n) and n in low}


def test_shipped_names_are_read_from_the_rule_files():
    names = _shipped_names()
    # one of each kind, from each family's files (so the scan below has something to find)
    assert {
        "kingsbridge",
        "kings-corners",
        "continental-express",
        "aldred",
        "investor",
        "locomotive",
        "station-fire",
        "ticket",
    } <= names
    assert _named("if ch.key == 'aldred':", names) == {"aldred"}


def test_engine_and_bot_code_name_no_game_character_or_card():
    names = _shipped_names()
    hits = [
        (path.relative_to(SRC).as_posix(), text) for path in CHECKED for text in _literals(path) if _named(text, names)
    ]
    assert hits == []


def test_no_code_compares_against_a_shipped_name():
    """Anywhere in the package (rules, CLI, docs included): no ``==``/``!=``/``in`` test against a shipped name."""
    names = _shipped_names()
    hits = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for part in (node.left, *node.comparators):
                    for c in ast.walk(part):
                        if isinstance(c, ast.Constant) and isinstance(c.value, str) and _named(c.value, names):
                            hits.append((path.relative_to(SRC).as_posix(), node.lineno, c.value))
    assert hits == []


def test_no_family_branch_outside_the_registry():
    pattern = re.compile(r"""family\s*(==|!=)\s*["']|["'](rows|market)["']\s*(==|!=)""")
    hits = []
    for path in SRC.rglob("*.py"):
        if path.name == "families.py":
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                hits.append(f"{path.relative_to(SRC)}:{no}: {line.strip()}")
    assert hits == []
    assert set(FAMILIES) == {"rows", "market"}


@pytest.mark.parametrize("game", kbsim.shipped_games())
def test_facade_loads_and_plays_every_shipped_game(game):
    g = kbsim.load_game(game)
    assert g.game == game and g.family in FAMILIES
    for bot in FAMILIES[g.family].bot_classes():
        if bot == "planner":
            continue  # searched turns: covered by tests/test_planner.py
        r = kbsim.play_game(g, bot, seed=5, players=g.max_players if g.max_players <= 4 else 4, check=True)
        assert r.turns > 0 and r.end_reason
        again = kbsim.play_game(g, bot, seed=5, players=g.max_players if g.max_players <= 4 else 4)
        assert (again.winners, again.turns, again.end_reason) == (r.winners, r.turns, r.end_reason)


def test_facade_variants_options_and_errors():
    g = kbsim.load_game("continental-express", variants=["short-game"], options={"character_timing": "after_refill"})
    assert g.trigger == 3 and not g.character_first
    with pytest.raises(kbsim.rules.loader.RulesError, match="no-such-variant"):
        kbsim.load_game("kingsbridge", variants=["no-such-variant"])
    with pytest.raises(ValueError, match="seed"):
        kbsim.play_game(g, "random", seed=-1)
    from kbsim.bots import UnknownBot

    with pytest.raises(UnknownBot, match="planner"):
        kbsim.play_game(g, "planner", seed=1)
    r = kbsim.play_game(g, ["greedy", "random"], seed=1, log=True)
    assert len(r.scores) == 2 and r.log
