"""The mypyc build (hatch_build.py): compiled and pure Python give the same records; the build says what it is.

``GOLDEN`` holds digests of the records of a few seeded runs (every shipped game, the variants the bots play
differently, every rows bot). The pure-Python build and the compiled build must both match them: a compiled
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
    "kingsbridge-greedy": "3df4d478cc23b3a3be938262d87d735b71dc8c08417de40fadbfd84c00605da6",
    "kingsbridge-random-mixed": "6c846f877b1f8363cad270c0f7ce30e22328bd38148d9ea77752043bbd5f5b82",
    "kingsbridge-planner": "0025d3443dbc267b2c40c4b653ec6dabd88c4e01fafd96d93c0725dc35fb0a0d",
    "kingsbridge-characters-greedy": "341cb2b34b6b5414228ed103221ce270d05cd5b6309255205aa434db21454755",
    "kingsbridge-characters-random": "ebf94a8cd2e30eeb70ab9c70595ef82dc5931a9833e1adf9ed9cf172c4fc42f7",
    "kingsbridge-either-end-planner": "1273b43d497571576838a4e6b80ff91087f800e24c6018c0f7b911bcad222e79",
    "kings-corners-greedy": "c51fc6f6a6f0c2469420b922bc1a107563a69188720753c921f7d358af97075c",
    "continental-express-greedy": "f4224d0f2d25e0d8b78c108dc0b8a930c743d526946286755fd18f15cf56b0b4",
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
