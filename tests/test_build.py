"""The mypyc build (hatch_build.py): compiled and pure Python give the same records; the build says what it is.

``GOLDEN`` holds digests of the records of a few seeded runs (every shipped game, the variants the bots play
differently, every bot). The pure-Python build and the compiled build must both match them: a compiled
module that checks a type differently, or iterates a set in another order, changes a record and fails here.
A change of records that the lead approved (a rules fix) updates them: ``python tests/test_build.py`` prints
the digests of the running build.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
from pathlib import Path

import pytest

import kbsim
from kbsim.build_info import build_info
from kbsim.sim.runner import Backend, RunSpec, run_games

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import run_cli  # noqa: E402

# (game, variants, bots per seat, games, seed)
ARMS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], int, int]] = {
    "kingsbridge-greedy": ("kingsbridge", (), ("greedy",) * 4, 24, 1301),
    "kingsbridge-random-mixed": ("kingsbridge", (), ("random", "greedy", "random"), 4, 1302),
    "kingsbridge-planner": ("kingsbridge", (), ("planner", "greedy"), 3, 1303),
    "kingsbridge-characters-greedy": ("kingsbridge", ("characters",), ("greedy",) * 4, 4, 1304),
    "kingsbridge-characters-random": ("kingsbridge", ("characters",), ("random", "greedy"), 2, 1305),
    "kingsbridge-either-end-planner": ("kingsbridge", ("rebuild-either-end",), ("planner", "greedy"), 2, 1306),
    "kings-corners-greedy": ("kings-corners", (), ("greedy", "random", "greedy"), 6, 1307),
    "continental-express-greedy": ("continental-express", (), ("greedy", "random"), 4, 1308),
    "kingsbridge-either-end-search": (
        "kingsbridge",
        ("rebuild-either-end",),
        ("search(iterations=16)", "planner"),
        2,
        1309,
    ),
    "continental-express-search": ("continental-express", (), ("search(iterations=8)", "greedy"), 2, 1310),
    # restricted play: seats barred from kinds of move (the engine's listings, searches and refusals)
    "kingsbridge-characters-barred": (
        "kingsbridge",
        ("characters",),
        ("greedy(bar=[characters.play.agatha, turn.exchange.allowed])", "planner(bar=[characters.enabled])", "greedy"),
        3,
        1309,
    ),
    "continental-express-barred": ("continental-express", (), ("greedy(bar=[characters.enabled])", "random"), 4, 1310),
}

GOLDEN = {
    "continental-express-barred": "72807790da5d44a7fcaf8ba74b64553853b2830a5c1a25c353d83205d79e132c",
    "continental-express-greedy": "b70a5d651d06d9424e372f0c42fd4e10877fd5425c427e580fa9a1b4c3013525",
    "continental-express-search": "1c3bb91834fb2f7b4f38d7af0a97738e1115b05c56009ae50a7e0541c9b33fe8",
    "kings-corners-greedy": "dffba54715f95448d2f7cc72fb43ccaf07346e59b8182e966377b317cd1a7c6e",
    "kingsbridge-characters-barred": "2b5b7ec4b69d776144ceb7a0e0d0deab54b0233a9e371b1c25fa00d220dc6c2c",
    "kingsbridge-characters-greedy": "d2c946ea2517398c5bce54b5bdc118fdd4599f291a69225f1619ac28e21ddbd0",
    "kingsbridge-characters-random": "db2e4a4dcd880b3b70f20b2a54d40aee191137aeaacb35e98b5a992584196cea",
    "kingsbridge-either-end-planner": "2aff5b4fdb4f30cc732d8971a128affdd838054271cf51918aba8a4dbbe2e633",
    # search at its default depth, 1 since 2026-12-02 (the digest changed with it)
    "kingsbridge-either-end-search": "e6fb4e1f72a6eebf64e208539ad1d4bb1304b906df55178a64ae2b4128ff7a4f",
    "kingsbridge-greedy": "27b310dcb2e47f104d9e220d9ecfc8ec0110c2a919db33c8f64e9687adfccc25",
    "kingsbridge-planner": "4c95697d2d5bea138408d3347fdb23cbe5a54659c80fb683ca2dd9002dce4fab",
    "kingsbridge-random-mixed": "cf76ea13586eaf3e7e446d533112715febd901e6f2dea93a0852ceefd5b33df9",
}


def records_digest(arm: str) -> str:
    """SHA-256 of the records (``run_id`` left out: it names the run, not the games) of one arm."""
    name, variants, bots, games, seed = ARMS[arm]
    spec = RunSpec(game=kbsim.load_game(name, variants), players=len(bots), bots=bots, games=games, seed=seed)
    cols = run_games(spec, Backend(), chunk_size=games)
    cols.pop("run_id")
    return hashlib.sha256(json.dumps(cols, sort_keys=True, default=repr).encode()).hexdigest()


@pytest.mark.parametrize("arm", sorted(ARMS))
def test_records_match_the_golden_digest(arm):
    assert records_digest(arm) == GOLDEN[arm], f"records of {arm} changed (build: {build_info().mode})"


def test_build_info_names_the_build():
    info = build_info()
    assert info.mode.startswith("compiled (mypyc" if info.compiled else "pure Python")
    assert not info.stale, f"compiled modules older than their .py (rebuild or `python hatch_build.py --clean`): {info}"
    turn = sys.modules.get("kbsim.engine.rows.turn") or __import__("kbsim.engine.rows.turn", fromlist=["x"])
    assert ("kbsim.engine.rows.turn" in info.compiled) == (not str(turn.__file__).endswith(".py"))


def test_version_line_says_compiled_or_pure(tmp_path):
    p = run_cli("--version", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"kbsim {kbsim.__version__}, ")
    assert ("compiled (mypyc" in p.stdout) == bool(build_info().compiled)


def test_engine_objects_pickle_round_trip():
    """Workers receive compiled games and bots and send results back: native classes must pickle."""
    from kbsim.bots import make_bot
    from kbsim.engine.rows.game import play_game
    from kbsim.engine.rows.state import GameState

    game = kbsim.load_game("kingsbridge")
    bots = [make_bot(b) for b in ("greedy", "random", "planner")]
    r = play_game(game, bots, 5)
    r2 = pickle.loads(pickle.dumps(r))
    assert r2 == r
    for b in pickle.loads(pickle.dumps(bots)):
        assert b.name in ("greedy", "random", "planner")
    st = GameState(rows=[[1, 2]], hands=[[3]], piles=[[4]])
    assert pickle.loads(pickle.dumps(st)) == st


def test_hook_falls_back_to_pure_python_without_a_compiler(tmp_path, monkeypatch):
    """No C compiler: the compile fails with one line of reason, and the hook installs pure Python."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    try:
        import hatch_build
    finally:
        sys.path.remove(str(root))
    monkeypatch.setenv("CC", "/bin/false")
    monkeypatch.setenv("LDSHARED", "/bin/false")
    ok, why = hatch_build.compile_modules(["kbsim/engine/rows/moves.py"], tmp_path)
    assert not ok and why and "\n" not in why
    assert not hatch_build.built_files(tmp_path)


if __name__ == "__main__":
    for a in sorted(ARMS):
        print(f'    "{a}": "{records_digest(a)}",')


def test_compiled_modules_import_only_what_the_isolated_build_can_type():
    """`pip install .` runs mypyc in an isolated environment holding only the build requirements: a third-party
    module a compiled module imports must be a build requirement or read as untyped (mypy's
    ``ignore_missing_imports``), or the compile fails and a new user silently gets pure Python (it did, with
    NumPy in engine/seeds.py)."""
    import ast
    import tomllib

    root = Path(__file__).resolve().parent.parent
    cfg = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    modules = cfg["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["mypyc-modules"]
    requires = {r.split(">")[0].split("=")[0].split("<")[0].strip().lower() for r in cfg["build-system"]["requires"]}
    untyped = {
        m.split(".")[0]
        for o in cfg["tool"]["mypy"].get("overrides", [])
        if o.get("ignore_missing_imports")
        for m in o["module"]
    }
    missing = []
    for rel in modules:
        tree = ast.parse((root / "src" / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("kbsim", "mypy_extensions", "__future__"):
                    continue
                if top.lower() not in requires and top not in untyped:
                    missing.append(f"{rel}: {name}")
    assert not missing, missing
