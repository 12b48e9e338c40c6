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
    "kingsbridge-greedy": "ca19dc7c96f1bac5998295af45f689b62e2120be44108f8d24ad43f6c40f7916",
    "kingsbridge-random-mixed": "77d9c084a0e62dea572b81e564f02a2a1467e6aeff02bb0508289bb731f8b633",
    "kingsbridge-planner": "f83272dec6a8057ec1c778b7d8a9ca62ff033c80e177d7779fcde900ad5c2684",
    "kingsbridge-characters-greedy": "5a6890d0d458a1717ec01ee792f4b5ac3f45fe0a8fe0e713b6c3eca49a124935",
    "kingsbridge-characters-random": "55583de2628ffa5713aa6107693aaf39f247be7298a43e14044db5f4ff1690f8",
    "kingsbridge-either-end-planner": "1405272a172f433c93b87efbe123d68affd27fee958ceb8e35a4acc0e437c776",
    "kings-corners-greedy": "dffba54715f95448d2f7cc72fb43ccaf07346e59b8182e966377b317cd1a7c6e",
    "continental-express-greedy": "88eb571650312c202f6f3f480b80fb5cf5eb9748d9797668e609e819c1ba5bb4",
    "kingsbridge-characters-barred": "29cdf651e24fcef0deee8252145adee9020157702d4b44e62898ef834c46fbba",
    "continental-express-barred": "a2b839c975aaa6faf95d5b70cc0c8b8b4b067cc7c53dec5229d7947a6f10fe63",
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
