"""Make the screenshots of ``kbsim play`` shown in docs/guide/play.md (SVG, saved by Textual).

Run from the repository: ``python docs/guide/play/make_screenshots.py``. Each game is seeded; the person's seat
plays a few turns as a simple player would (the first lay or take, else end the turn), then the table is saved.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from kbsim.engine.families import family_of
from kbsim.play.app import PlayApp
from kbsim.play.base import HUMAN
from kbsim.play.session import GameSession, PlaySetup
from kbsim.rules.loader import load_rules

HERE = Path(__file__).resolve().parent
SIZE = (150, 46)

# file name -> (game, variants, players, bots, seed, turns of the person's before the picture, keys then, the person
# follows the hints)
SHOTS = {
    "kingsbridge": ("kingsbridge", (), 3, "greedy,planner", 7, 3, "h", False),
    "kingsbridge-characters": ("kingsbridge", ("characters",), 3, "planner", 7, 2, "question_mark", False),
    "kingsbridge-solo": ("kingsbridge", ("solo",), 1, "greedy", 3, 3, "h", True),
    "kings-corners": ("kings-corners", (), 4, "greedy", 9, 2, "", False),
    "continental-express": ("continental-express", (), 3, "greedy", 1, 4, "h", False),
}


def _pick(listed):
    for prefix in ("lay ", "take ", "claim ", "choose ", "end", "exchange", "pass", "minus"):
        for i, (t, _) in enumerate(listed):
            if t.startswith(prefix):
                return i
    return 0


async def _wait(pilot, cond, timeout=60.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError
        await pilot.pause(0.01)


def shoot(name: str, folder: Path) -> Path:
    game, variants, players, bots, seed, turns, keys, hints = SHOTS[name]
    loaded = load_rules(game, variants, {})
    g = family_of(loaded.model).compile(loaded)
    part = family_of(g).part("play_ui")
    seat = part.first_seat(g, players)
    others = bots.split(",") * players
    names = tuple(HUMAN if s == seat else others[s - (s > seat)] for s in range(players))
    setup = PlaySetup(game, variants, {}, players, seat, names, seed, 0, part.hint_bot, str(folder / "r.parquet"), 0.0)
    title = f"{g.title} ({g.variant}) · {players} player{'s' * (players != 1)} · seed {seed} game 0 · you are seat {seat}"
    app = PlayApp(lambda listener: GameSession(setup, listener, loaded, g), title)
    out = HERE / f"{name}.svg"

    async def run():
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: app.prompt > 0)
            while len(app.session.turns) < turns:
                p = app.prompt
                if hints:
                    seen = len(app.messages)
                    await pilot.press("h")
                    await _wait(pilot, lambda seen=seen: len(app.messages) > seen)
                if not (hints and app.hinted is not None):
                    for ch in str(_pick(app.listed) + 1):
                        await pilot.press(ch)
                await pilot.press("enter")
                await _wait(pilot, lambda p=p: app.prompt > p)
            if keys:
                seen = len(app.messages)
                await pilot.press(keys)
                await _wait(pilot, lambda: len(app.messages) > seen)
            await pilot.pause(0.3)
            app.save_screenshot(out.name, str(HERE))
            await pilot.press("q")

    asyncio.run(run())
    return out


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        for shot in sys.argv[1:] or SHOTS:
            print(shoot(shot, Path(d)))
