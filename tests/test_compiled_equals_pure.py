"""The build users get (mypyc-compiled) plays exactly the games of the pure-Python source (issue 28, item 3).

For every shipped game, every variant and every bot of the game's family, a few seeded games are played with
their full move log; the digest of each (moves, winners, counts: the whole result) must be the same in this
process (whatever build is installed) and in a subprocess that imports the pure-Python source tree
(``PYTHONPATH=src``). CI runs this file on the compiled build (``.ci/run``, ``nox -s compiled``), with
``KBSIM_EXPECT_COMPILED=1`` so that a build that silently fell back to pure Python fails here too; in a pure
(editable) install both sides are pure and the test still checks that a fresh process (another hash seed) plays
the same games. There the search bot plays every arm at a small budget (:data:`PURE_SEARCH`: it still searches
every decision with several candidates) instead of its default one: the default budget in pure Python, twice, was
the suite's longest test, and the compiled session plays it.

``python tests/test_compiled_equals_pure.py [--small]`` prints the digests of the running build as JSON.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GAMES_PER_ARM = {"planner": 2, "search": 1}  # games per (game, variant, bot); default 3
PURE_SEARCH = "search(iterations=12)"
"""The search bot's spec where both sides are pure Python (a small budget; the compiled session plays the default)."""
SEED = 2801
#: restricted play (a seat barred from kinds of move): (game, variant or '', bots per seat)
BARRED = [
    ("kingsbridge", "characters", ("planner(bar=[characters.play.agatha, turn.exchange.allowed])", "greedy", "random")),
    ("kingsbridge", "rebuild-either-end", ("greedy(bar=[turn.lay_out.rebuild.segments])", "planner")),
    ("kings-corners", "", ("greedy(bar=[turn.lay_out.min_hand_cards])", "random", "greedy")),
    ("continental-express", "", ("greedy(bar=[characters.enabled])", "random")),
]


def _canonical(x):
    """A JSON-able form of a result, the same for compiled and pure objects (no repr of a class)."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, dict):
        return [[_canonical(k), _canonical(v)] for k, v in sorted(x.items(), key=lambda kv: repr(kv[0]))]
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    if dataclasses.is_dataclass(x):
        return {f.name: _canonical(getattr(x, f.name)) for f in dataclasses.fields(x)}
    raise TypeError(f"no canonical form for {type(x).__name__}: {x!r}")


def arms() -> list[tuple[str, str, str, int]]:
    """(game, variant or '', bot, players) for every shipped game, variant and bot of its family."""
    import kbsim
    from kbsim.bots import bots_for
    from kbsim.engine.families import family_of
    from kbsim.rules.loader import load_rules

    out = []
    for name in kbsim.shipped_games():
        model = load_rules(name).model
        for variant in ("", *model.variants):
            game = kbsim.load_game(name, [variant] if variant else [])
            for i, bot in enumerate(sorted(bots_for(family_of(game).name))):
                players = game.min_players + (i + len(variant)) % (game.max_players - game.min_players + 1)
                out.append((name, variant, bot, players))
    return out


def digests(small: bool = False) -> dict[str, str]:
    """SHA-256 of every arm's games: full move log and result, as :func:`_canonical` writes them.

    ``small``: the search bot plays at :data:`PURE_SEARCH` instead of its default budget.
    """
    import kbsim

    out = {}
    for name, variant, bot, players in arms():
        game = kbsim.load_game(name, [variant] if variant else [])
        spec = PURE_SEARCH if small and bot == "search" else bot
        results = [
            _canonical(kbsim.play_game(game, spec, SEED + k, players=players, log=True))
            for k in range(GAMES_PER_ARM.get(bot, 3))
        ]
        key = f"{name}/{variant or 'base'}/{bot}/{players}p"
        out[key] = hashlib.sha256(json.dumps(results, sort_keys=True).encode()).hexdigest()
    for name, variant, bots in BARRED:
        game = kbsim.load_game(name, [variant] if variant else [])
        results = [_canonical(kbsim.play_game(game, list(bots), SEED + k, log=True)) for k in range(2)]
        out[f"{name}/{variant or 'base'}/{'+'.join(bots)}"] = hashlib.sha256(
            json.dumps(results, sort_keys=True).encode()
        ).hexdigest()
    return out


@pytest.mark.long
def test_compiled_and_pure_play_the_same_games():
    from kbsim.build_info import build_info

    info = build_info()
    if os.environ.get("KBSIM_EXPECT_COMPILED"):  # set by CI on its compiled build: a pure fallback is a failure
        assert info.compiled, f"expected the mypyc-compiled build, got {info.mode}"
    small = not info.compiled  # both sides pure: the search bot at a small budget (see the module docstring)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    env.pop("PYTHONHASHSEED", None)  # a fresh hash seed: set iteration order must not change a game
    pure = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *(["--small"] if small else [])],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert pure.returncode == 0, pure.stderr
    theirs = json.loads(pure.stdout)
    assert theirs.pop("__build__") == "pure", "the subprocess did not import the pure-Python source"
    mine = digests(small)
    assert len(mine) >= 50  # every game x variant x bot of the three shipped games
    differ = sorted(k for k in mine if mine[k] != theirs.get(k))
    assert not differ, f"{info.mode} plays other games than pure Python in: {', '.join(differ)}"


if __name__ == "__main__":
    from kbsim.build_info import build_info

    if os.environ.get("PYTHONPATH") == str(REPO / "src") and build_info().compiled:
        sys.exit("compiled modules found in src/ (KBSIM_COMPILE=1 editable build): run `python hatch_build.py --clean`")
    small = "--small" in sys.argv[1:]
    print(json.dumps({"__build__": "compiled" if build_info().compiled else "pure", **digests(small)}, indent=1))
