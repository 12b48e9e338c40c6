"""``kbsim play``: whole games driven by key presses in the headless Textual pilot, refusals, undo, hints, resume.

Every game here is played through the app (``PlayApp.run_test``) with the bots at full speed (pace 0); the person's
seat presses the number of the move a small policy picks, then Enter. The record the app writes must be the
record the engine gives for the same moves (replayed by the family's game loop from the seed and the move log).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

import kbsim
from conftest_browser import browser, needs_chromium
from kbsim.engine.families import family_of
from kbsim.engine.rows.game import deal_hash_of
from kbsim.engine.seeds import game_seed
from kbsim.play.app import PlayApp
from kbsim.play.base import HUMAN, TableContext
from kbsim.play.script import ScriptError, replay_log
from kbsim.play.session import GameSession, PlaySetup, game_record
from kbsim.play.store import read_save, save_path
from kbsim.records import load as load_records
from kbsim.rules.loader import load_rules

SIZE = (120, 40)


def _setup(tmp_path: Path, game: str, variants=(), players=2, bots="greedy", seed=7, index=0, options=None):
    loaded = load_rules(game, tuple(variants), dict(options or {}))
    g = family_of(loaded.model).compile(loaded)
    part = family_of(g).part("play_ui")
    seat = part.first_seat(g, players)
    names = tuple(HUMAN if s == seat else bots for s in range(players))
    setup = PlaySetup(
        game=game,
        variants=tuple(variants),
        options=dict(options or {}),
        players=players,
        seat=seat,
        bots=names,
        seed=seed,
        game_index=index,
        hint_bot=part.hint_bot,
        records=str(tmp_path / f"{game}.parquet"),
        pace=0.0,
    )
    return setup, loaded, g


def _app(setup, loaded, g, saved=None) -> PlayApp:
    return PlayApp(lambda listener: GameSession(setup, listener, loaded, g, saved), "test")


async def _wait(pilot, cond, timeout=30.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.005)


def _policy(listed: list[tuple[str, str]]) -> int:
    """The move a simple player picks: lay or take, claim, choose, else end the turn, exchange, pass, minus."""
    texts = [t for t, _ in listed]
    for prefix in ("lay ", "take ", "claim ", "choose ", "end", "exchange", "pass", "minus"):
        for i, t in enumerate(texts):
            if t.startswith(prefix):
                return i
    return 0


async def _press_number(pilot, n: int) -> None:
    for ch in str(n):
        await pilot.press(ch)
    await pilot.press("enter")


async def _play_to_end(pilot, app, hints=False, limit=3000) -> int:
    """Answer every prompt: the move the policy picks (its number, then Enter), or with ``hints`` the hint bot's
    first move (``h``, then Enter on the move the hint highlights); ``u`` where no move is legal (a provisional
    move that left no way on). Returns the prompts answered.
    """
    answered = 0
    while app.outcome[0] != "finished":
        await _wait(pilot, lambda a=answered: app.prompt > a or app.outcome[0] in ("finished", "failed"))
        assert app.outcome[0] != "failed", app.outcome
        if app.outcome[0] == "finished":
            break
        answered = app.prompt
        assert answered < limit
        if not app.listed:
            await pilot.press("u")
            continue
        if hints:
            seen = len(app.messages)
            await pilot.press("h")
            await _wait(pilot, lambda seen=seen: len(app.messages) > seen)
            kind, _ = app.messages[-1]
            if kind == "hint" and app.hinted is not None:
                await pilot.press("enter")
                continue
        await _press_number(pilot, _policy(app.listed) + 1)
    return answered


def _engine_record(setup, loaded, g, moves: list[str]) -> dict:
    """The record the engine gives for the game's seed and move log (the family's own loop, scripted seats)."""
    result = replay_log(g, setup.bots, setup.game_seed, moves)
    return {k: v[0] for k, v in game_record(setup, loaded.rules_hash, g, result, moves).items()}


# name -> (game, variants, players, bots, seed): short games (few turns of the person's) of each family
BY_KEYS = {
    "kingsbridge": ("kingsbridge", (), 5, "greedy", 10),
    "kings-corners": ("kings-corners", (), 6, "greedy", 9),  # a match of 3 hands
    "continental-express": ("continental-express", (), 2, "greedy", 1),
}


def _check_record(setup, loaded, g) -> dict:
    """The game's record is the engine's record for its seed and moves, on the deal of kbsim run's game."""
    df = load_records(setup.records)
    assert df.height == 1
    got = df.row(0, named=True)
    assert got["bots"] == list(setup.bots) and HUMAN in got["bots"]
    assert got["moves"], "a game with a person keeps its move log"
    assert got == _engine_record(setup, loaded, g, got["moves"])
    assert got["seed"] == game_seed(setup.seed, setup.game_index)
    if got["hands"] == 1:  # (a match hashes every hand's deal)
        assert got["deal_hash"] == deal_hash_of(g, setup.players, got["seed"])
    assert not save_path(Path(setup.records)).exists(), "the saved game goes once its record is written"
    return got


@pytest.mark.parametrize("name", sorted(BY_KEYS))
def test_a_whole_game_played_by_keys_gives_the_engines_record(tmp_path, name):
    game, variants, players, bots, seed = BY_KEYS[name]
    setup, loaded, g = _setup(tmp_path, game, variants, players, bots, seed=seed)
    app = _app(setup, loaded, g)

    async def run():
        async with app.run_test(size=SIZE) as pilot:
            assert await _play_to_end(pilot, app) > 0
            await pilot.press("q")

    asyncio.run(run())
    assert app.outcome[0] == "finished", app.outcome
    got = _check_record(setup, loaded, g)
    if name == "kings-corners":
        assert got["hands"] > 1


class _Follower:
    """A listener that plays the person's seat without the app: the hint bot's first move, else the policy."""

    def __init__(self, hints: bool):
        self.hints = hints
        self.session = None
        self.done = threading.Event()
        self.outcome = None
        self.moves = []

    def update(self, up):
        if not up.prompt:
            return
        self.moves = up.moves
        if not up.moves:
            self.session.send(("undo", up.prompt))
        elif self.hints:
            self.session.send(("hint", up.prompt))
        else:
            self.session.send(("pick", up.prompt, _policy(up.moves)))
        self.prompt = up.prompt

    def message(self, text, kind, select=None):
        if kind == "hint":
            self.session.send(("pick", self.prompt, select if select is not None else _policy(self.moves)))

    def finished(self, lines):
        self.outcome = ("finished", lines)
        self.done.set()

    def failed(self, text):
        self.outcome = ("failed", text)
        self.done.set()


# every shipped variant the bots play differently, through the session (the same code the app drives)
VARIANTS = {
    "kingsbridge-characters": ("kingsbridge", ("characters",), 3, "planner", 7, True),
    "kingsbridge-solo": ("kingsbridge", ("solo",), 1, "greedy", 7, True),
    "kingsbridge-cooperative": ("kingsbridge", ("cooperative",), 2, "planner", 7, True),
    "kings-corners-kings-at-once": ("kings-corners", ("kings-at-once",), 6, "greedy", 9, False),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_plays_to_its_record(tmp_path, name):
    game, variants, players, bots, seed, hints = VARIANTS[name]
    setup, loaded, g = _setup(tmp_path, game, variants, players, bots, seed=seed)
    listener = _Follower(hints)
    session = GameSession(setup, listener, loaded, g)
    listener.session = session
    session.start()
    assert listener.done.wait(120), "the game did not finish"
    assert listener.outcome[0] == "finished", listener.outcome
    _check_record(setup, loaded, g)


def test_the_person_sees_only_their_seats_view(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", ("characters",), 3)
    part = family_of(g).part("play_ui")
    import random

    from kbsim.engine.rows.state import deal

    st = deal(g, 3, random.Random(5))
    mine = setup.seat
    for s in range(3):
        if s != mine:
            st.hands[s][:] = [77] * len(st.hands[s])  # a card value no table shows otherwise
        st.piles[s][:] = [88] * len(st.piles[s])
    ctx = TableContext(g, loaded.model, 3, setup.bots, mine)
    console = Console(width=200, record=True)
    console.print(part.draw(ctx, st, mine, None))
    text = console.export_text()
    assert "77" not in text and "88" not in text
    for c in st.hands[mine]:
        assert g.card_text(c) in text

    setup, loaded, g = _setup(tmp_path, "continental-express", (), 3)
    from kbsim.engine.market.state import new_state

    st = new_state(g, 3, random.Random(5))
    secret = {g.contracts[c].name for s in range(3) if s != setup.seat for c in st.offered[s]}
    secret -= {g.contracts[c].name for c in st.offered[setup.seat]}
    ctx = TableContext(g, loaded.model, 3, setup.bots, setup.seat)
    console = Console(width=200, record=True)
    console.print(family_of(g).part("play_ui").draw(ctx, st, 0, None))
    text = console.export_text()
    assert secret and not any(name in text for name in secret)


class _Watching(_Follower):
    """A follower that keeps the line of the table naming the person's cards, at bots' turns and at prompts."""

    def __init__(self, marker: str):
        super().__init__(False)
        self.marker = marker
        self.pairs: list[tuple[str, str]] = []  # (line at the last bot turn, line at the person's next prompt)
        self.between: str | None = None

    def update(self, up):
        console = Console(width=200, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
        console.print(up.drawing)
        line = next(x for x in console.export_text().splitlines() if x.startswith(self.marker))
        if up.prompt and self.between is not None:
            self.pairs.append((self.between, line))
            self.between = None
        elif not up.prompt and up.on_turn >= 0:
            self.between = line
        super().update(up)


@pytest.mark.parametrize("game, marker", [("kingsbridge", "your hand"), ("continental-express", "your contracts")])
def test_between_their_turns_the_person_sees_their_own_cards(tmp_path, game, marker):
    """While the bots play, each bot's turn is masked for the bot's seat; the table drawn for the person still
    shows the person's cards (base rules: they change only in the person's own turn)."""
    setup, loaded, g = _setup(tmp_path, game, (), 3, "greedy", seed=3)
    listener = _Watching(marker)
    session = GameSession(setup, listener, loaded, g)
    listener.session = session
    session.start()
    assert listener.done.wait(120), "the game did not finish"
    assert listener.outcome[0] == "finished", listener.outcome
    assert len(listener.pairs) > 3
    for between, mine in listener.pairs:
        assert between == mine


def _status(app) -> tuple:
    up = app.last_update
    return (up.status, tuple(up.moves), app.prompt)


def test_an_illegal_move_shows_the_refusal_and_changes_nothing(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", (), 2)
    app = _app(setup, loaded, g)

    async def run():
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: app.prompt > 0)
            before = (app.last_update.status, list(app.listed))
            position = app.session.part.position(app.session._played[-1][1].state)
            saved = read_save(save_path(Path(setup.records)))
            await pilot.press("colon")
            for text in ("lay 13 on 9", "frobnicate"):
                await pilot.press(*text)
                await pilot.press("enter")
                await pilot.pause(0.2)
            await pilot.press("escape")
            refusals = [t for k, t in app.messages if k == "refusal"]
            assert len(refusals) == 2, app.messages
            assert "lay 13 on 9: refused:" in refusals[0]  # the engine's own words follow
            assert "cannot read the move" in refusals[1]
            assert (app.last_update.status, list(app.listed)) == before
            assert app.session.part.position(app.session._played[-1][1].state) == position
            assert read_save(save_path(Path(setup.records))) == saved
            await pilot.press("q")

    asyncio.run(run())


def test_undo_takes_back_provisional_moves_only(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", (), 2, seed=7)
    app = _app(setup, loaded, g)

    async def run():
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: app.prompt > 0)
            start = (app.last_update.status, list(app.listed))
            rebuild = next(i for i, (t, _) in enumerate(app.listed) if t.startswith("rebuild"))
            await _press_number(pilot, rebuild + 1)
            await _wait(pilot, lambda: app.prompt > 1)
            assert "provisional" in app.last_update.status
            await pilot.press("u")
            await _wait(pilot, lambda: app.prompt > 2)
            assert (app.last_update.status, list(app.listed)) == start
            lay = next(i for i, (t, _) in enumerate(app.listed) if t.startswith("lay"))
            await _press_number(pilot, lay + 1)
            await _wait(pilot, lambda: app.prompt > 3)
            await pilot.press("u")
            await pilot.pause(0.2)
            assert "undo: only moves made before the turn has laid its minimum" in app.messages[-1][1]
            await pilot.press("q")

    asyncio.run(run())


def test_hint_and_rule_keys(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", ("characters",), 2, seed=7)
    app = _app(setup, loaded, g)

    async def run():
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: app.prompt > 0)
            await pilot.press("h")
            await _wait(pilot, lambda: any(k == "hint" for k, _ in app.messages))
            hint = next(t for k, t in app.messages if k == "hint")
            assert hint.startswith("planner would play: ")
            first = hint.removeprefix("planner would play: ").split(";")[0].split(" (")[0]
            highlighted = app.query_one("#moves").highlighted
            assert app.listed[highlighted][0].split(" from ")[0] == first.split(" last ")[0]
            play = next(i for i, (t, _) in enumerate(app.listed) if t.startswith("play "))
            for ch in str(play + 1):
                await pilot.press(ch)
            await pilot.press("question_mark")
            await _wait(pilot, lambda: any(k == "rule" for k, _ in app.messages))
            key = app.listed[play][0].split()[1]
            summary = " ".join(loaded.model.characters.roster[key].summary.split())
            assert summary in app.messages[-1][1]
            await pilot.press("q")

    asyncio.run(run())


def test_resume_restores_the_exact_position(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", ("characters",), 5, bots="planner", seed=10)
    app = _app(setup, loaded, g)
    state: dict = {}

    async def first():
        async with app.run_test(size=SIZE) as pilot:
            while len(app.session.turns if app.session else []) < 2:  # two whole turns of the person's
                await _wait(pilot, lambda: app.prompt > 0)
                p = app.prompt
                await _press_number(pilot, _policy(app.listed) + 1)
                await _wait(pilot, lambda p=p: app.prompt > p)
            await _wait(pilot, lambda: app.prompt > 0)
            p = app.prompt
            rebuild = next((i for i, (t, _) in enumerate(app.listed) if t.startswith("rebuild")), None)
            assert rebuild is not None, "this deal lets the third turn start with a (provisional) rebuild"
            await _press_number(pilot, rebuild + 1)
            await _wait(pilot, lambda: app.prompt > p)
            session = app.session
            state["shown"] = (app.last_update.status, list(app.listed))
            state["position"] = session.part.position(session._played[-1][1].state)
            state["turns"] = [list(t) for t in session.turns]
            state["played"] = len(session._played)
            await pilot.press("q")

    asyncio.run(first())
    saved = read_save(save_path(Path(setup.records)))
    assert saved["turns"] == state["turns"] and len(saved["turns"]) == 2
    assert len(saved["pending"]) == 1 and saved["pending"][0].startswith("rebuild")
    assert saved["check"]["at"] == "prompt"
    resumed = _app(setup, loaded, g, saved)

    async def second():
        async with resumed.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: resumed.prompt > 0 or resumed.outcome[0] == "failed")
            assert resumed.outcome[0] != "failed", resumed.outcome
            session = resumed.session
            assert (resumed.last_update.status, list(resumed.listed)) == state["shown"]
            assert session.part.position(session._played[-1][1].state) == state["position"]
            assert len(session._played) == state["played"]
            await _play_to_end(pilot, resumed)
            await pilot.press("q")

    asyncio.run(second())
    got = _check_record(setup, loaded, g)
    person = [ln.split(": ", 1)[1] for ln in got["moves"] if ln.startswith(f"{setup.seat}: ")]
    assert person[:2] == ["; ".join(t) for t in state["turns"]]
    assert person[2].startswith(saved["pending"][0].split(" from ")[0])


def test_a_saved_game_that_does_not_replay_is_refused(tmp_path):
    setup, loaded, g = _setup(tmp_path, "kingsbridge", (), 2, seed=3)
    app = _app(setup, loaded, g)

    async def first():
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: app.prompt > 0)
            await _press_number(pilot, _policy(app.listed) + 1)
            await _wait(pilot, lambda: app.prompt > 1)
            await pilot.press("q")

    asyncio.run(first())
    path = save_path(Path(setup.records))
    saved = read_save(path)
    saved["check"]["position"] = "0" * 16  # as if the rules or a bot had changed since
    resumed = _app(setup, loaded, g, saved)

    async def second():
        async with resumed.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: resumed.outcome[0] == "failed")
            assert "does not replay" in resumed.outcome[1][0] or "another position" in resumed.outcome[1][0]
            await pilot.press("q")

    asyncio.run(second())
    assert path.exists(), "a refused resume keeps the saved game"


def test_a_record_replays_from_its_moves_and_a_wrong_log_is_refused(tmp_path):
    g = kbsim.load_game("kingsbridge")
    r = kbsim.play_game(g, ["greedy", "greedy"], seed=5, log=True)
    lines = family_of(g).part("play_ui").log_lines(g, 2, r)
    again = replay_log(g, ["greedy", "greedy"], 5, lines)
    assert (again.turns, again.winners, again.cards_left, again.deal_hash) == (
        r.turns,
        r.winners,
        r.cards_left,
        r.deal_hash,
    )
    with pytest.raises(ScriptError, match="ends after"):
        replay_log(g, ["greedy", "greedy"], 5, lines[:-1])
    with pytest.raises(ScriptError, match="does not replay"):
        replay_log(g, ["greedy", "greedy"], 6, lines)  # another deal


def test_replay_cli_replays_a_human_record(tmp_path, monkeypatch, capsys):
    setup, loaded, g = _setup(tmp_path, "continental-express", (), 2, seed=1)
    listener = _Follower(False)
    session = GameSession(setup, listener, loaded, g)
    listener.session = session
    session.start()
    assert listener.done.wait(60) and listener.outcome[0] == "finished", listener.outcome
    code, out, err = _cli(
        ["replay", "--records", setup.records, "--game-index", "0", "--json"], tmp_path, monkeypatch, capsys
    )
    assert code == 0, err
    rec = load_records(setup.records).row(0, named=True)
    got = json.loads(out)
    assert (got["turns"], got["winners"], got["scores"]) == (rec["turns"], rec["winners"], rec["scores"])
    _one_line_error(_cli(["replay", "--records", setup.records, "-i", "4"], tmp_path, monkeypatch, capsys), "no record")
    # one game per deal and lineup in a file (as kbsim compare counts them); the next deal is free
    again = ["play", "--game", "continental-express", "-p", "2", "--seed", "1", "--records", setup.records]
    _one_line_error(_cli([*again, "--game-index", "0"], tmp_path, monkeypatch, capsys), "already holds a game")
    _one_line_error(_cli(again, tmp_path, monkeypatch, capsys), "terminal")  # index 1: fine, but no terminal
    # kbsim compare reads it beside the bots' records of the same deals (same run seed)
    run = ["run", "--game", "continental-express", "-p", "2", "-n", "2", "--seed", "1", "--backend", "serial"]
    code, _, err = _cli([*run, "-o", "bots.parquet"], tmp_path, monkeypatch, capsys)
    assert code == 0, err
    code, out, err = _cli(
        ["compare", "bots.parquet", setup.records, "-o", "cmp.html", "--json"], tmp_path, monkeypatch, capsys
    )
    assert code == 0, err
    assert (tmp_path / "cmp.html").is_file() and len(json.loads(out)["files"]) == 2


def _cli(args, cwd, monkeypatch, capsys) -> tuple[int, str, str]:
    """Run ``kbsim ARGS`` in this process (no terminal: stdin and stdout are pytest's)."""
    from kbsim.cli.application import main

    monkeypatch.chdir(cwd)
    monkeypatch.setattr("sys.argv", ["kbsim", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(result, mentions=None):
    code, out, err = result
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kbsim: error:"), err
    assert "Traceback" not in err + out
    if mentions:
        assert mentions in lines[0], lines[0]
    return lines[0]


BAD_FLAGS = {
    "players": (["-p", "9"], "--players 9"),
    "seat": (["-p", "2", "--seat", "2"], "--seat 2"),
    "bot": (["--bots", "nosuch"], "nosuch"),
    "bots-count": (["-p", "3", "--bots", "greedy,greedy,greedy"], "other seat"),
    "bots-solo": (["-p", "1", "--variant", "solo", "--bots", "planner"], "no other seat"),
    "pace": (["--pace", "-1"], "--pace"),
    "records-suffix": (["--records", "x.txt"], ".parquet"),
    "records-folder": (["--records", "nofolder/x.parquet"], "does not exist"),
    "hint-bot": (["--hint-bot", "nosuch"], "--hint-bot"),
    "seed": (["--seed", "-1"], "--seed"),
    "game": (["--game", "nosuchgame"], "nosuchgame"),
    "variant": (["--variant", "nosuch"], "nosuch"),
    "option": (["--option", "nosuch=1"], "nosuch"),
    "index": (["--game-index", "-3"], "--game-index"),
    "resume-nothing": (["--resume"], "no unfinished game"),
    "not-a-terminal": (["--seed", "3"], "terminal"),
}


@pytest.mark.parametrize("name", sorted(BAD_FLAGS))
def test_bad_flags_are_one_line_and_exit_2(tmp_path, monkeypatch, capsys, name):
    args, mentions = BAD_FLAGS[name]
    _one_line_error(_cli(["play", *args], tmp_path, monkeypatch, capsys), mentions)
    assert not list(tmp_path.rglob("*")), "a refused command writes nothing"


def test_files_that_are_not_ours_or_games_in_progress_are_refused(tmp_path, monkeypatch, capsys):
    # a records file of kbsim run is never mixed with kbsim play's
    code, _, err = _cli(
        ["run", "-p", "2", "-n", "2", "--seed", "1", "--backend", "serial", "-o", "bots.parquet"],
        tmp_path,
        monkeypatch,
        capsys,
    )
    assert code == 0, err
    before = (tmp_path / "bots.parquet").read_bytes()
    _one_line_error(_cli(["play", "--records", "bots.parquet"], tmp_path, monkeypatch, capsys), "kbsim run")
    assert (tmp_path / "bots.parquet").read_bytes() == before
    # a game in progress: a new game is refused, --resume with other flags is refused, a broken save is one line
    setup, loaded, g = _setup(tmp_path, "kingsbridge", (), 2)
    records = "runs/play-kingsbridge-base-2p.parquet"
    setup = PlaySetup(**{**setup.__dict__, "records": records})
    (tmp_path / "runs").mkdir()
    listener = _Follower(False)
    listener.update = lambda up: up.prompt and listener.done.set()  # stop at the first prompt
    monkeypatch.chdir(tmp_path)
    session = GameSession(setup, listener, loaded, g)
    session.start()
    assert listener.done.wait(30)
    session.stop()
    session.join(10)
    _one_line_error(_cli(["play", "-p", "2"], tmp_path, monkeypatch, capsys), "--resume")
    _one_line_error(_cli(["play", "--resume", "-p", "3"], tmp_path, monkeypatch, capsys), "--players")
    _one_line_error(_cli(["play", "--resume", "--seed", "8"], tmp_path, monkeypatch, capsys), "--seed")
    _one_line_error(_cli(["play", "--resume"], tmp_path, monkeypatch, capsys), "terminal")  # fine but no terminal
    save = save_path(tmp_path / records)
    data = json.loads(save.read_text())
    save.write_text(json.dumps(data | {"turns": [5]}))
    _one_line_error(_cli(["play", "--resume"], tmp_path, monkeypatch, capsys), "field turns")
    save.write_text("{not json")
    _one_line_error(_cli(["play", "--resume"], tmp_path, monkeypatch, capsys), "cannot read")


def _spawn_in_terminal(args, cwd):
    """Start ``kbsim ARGS`` on a new pseudo-terminal (its controlling terminal); returns (pid, master fd)."""
    import os
    import pty
    import sys

    from conftest import cli_env

    pid, fd = pty.fork()
    if pid == 0:  # the child: a session of its own on the terminal
        os.chdir(cwd)
        env = cli_env() | {"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        os.execve(sys.executable, [sys.executable, "-m", "kbsim.cli", *args], env)
    return pid, fd


def _drain_until(fd, pid, cond, timeout=90.0) -> bytes:
    import os
    import select

    out = b""
    end = time.monotonic() + timeout
    while not cond(out):
        if time.monotonic() > end:
            raise AssertionError(f"timed out; the screen so far ends with {out[-400:]!r}")
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def _wait_exit(pid, timeout=60.0) -> int:
    import os

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    os.kill(pid, 9)
    raise AssertionError("kbsim play did not exit")


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "terminal-closed"])
def test_an_interrupted_game_in_a_real_terminal_is_saved_and_resumes(tmp_path, how):
    import os
    import signal

    pid, fd = _spawn_in_terminal(["play", "-p", "2", "--seed", "5", "--fast"], tmp_path)
    save = tmp_path / "runs" / "play-kingsbridge-base-2p.parquet.unfinished.json"

    def at_prompt(_out: bytes) -> bool:
        try:
            return read_save(save)["check"]["at"] == "prompt"
        except Exception:
            return False

    try:
        _drain_until(fd, pid, at_prompt)
        os.write(fd, b"1\r")  # the first listed move (a lay: provisional until the turn ends)
        _drain_until(fd, pid, lambda _o: bool(read_save(save)["pending"]))
        if how in ("ctrl-c", "sigterm"):
            if how == "ctrl-c":
                os.write(fd, b"\x03")
            else:
                os.kill(pid, signal.SIGTERM)
            tail = _drain_until(fd, pid, lambda o: b"kbsim play --resume" in o)
            assert b"game saved" in tail
            assert _wait_exit(pid) == 0
        else:
            os.close(fd)  # the terminal goes away: the kernel hangs up on the session (SIGHUP)
            fd = -1
            assert _wait_exit(pid) == 129  # 128 + SIGHUP
    finally:
        if fd >= 0:
            os.close(fd)
    saved = read_save(save)
    assert saved["turns"] == [] and len(saved["pending"]) == 1
    setup = PlaySetup.from_json(saved["setup"], 0.0)
    loaded = load_rules(setup.game, setup.variants, setup.options)
    g = family_of(loaded.model).compile(loaded)
    setup = PlaySetup(**{**setup.__dict__, "records": str(tmp_path / setup.records)})
    listener = _Follower(False)
    session = GameSession(setup, listener, loaded, g, saved)
    listener.session = session
    session.start()
    assert listener.done.wait(60) and listener.outcome[0] == "finished", listener.outcome
    got = _check_record(setup, loaded, g)
    assert got["moves"][0].split(": ", 1)[1].startswith(saved["pending"][0])


def _textual_serve_missing() -> bool:
    import importlib.util

    return importlib.util.find_spec("textual_serve") is None


@needs_chromium
@pytest.mark.skipif(_textual_serve_missing(), reason="needs textual-dev (the dev extra)")
def test_the_app_is_served_in_a_browser(tmp_path):
    """``textual serve -c "kbsim play ..."``: the game starts in headless Chromium and reaches the person's turn."""
    import os
    import shlex
    import signal
    import socket
    import subprocess
    import sys

    from conftest import cli_env

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    records = tmp_path / "r.parquet"
    command = shlex.join([sys.executable, "-m", "kbsim.cli", "play", "-p", "2", "--seed", "3", "--fast"])
    command += f" --records {shlex.quote(str(records))}"
    textual = Path(sys.executable).with_name("textual")
    server = subprocess.Popen(
        [str(textual), "serve", "-c", "-h", "127.0.0.1", "-p", str(port), command],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the served app goes with it at the end
    )
    try:
        end = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < end, "textual serve did not start"
            time.sleep(0.2)
        with browser() as driver:
            driver.get(f"http://127.0.0.1:{port}/")
            save = save_path(records)
            end = time.monotonic() + 90
            while True:
                try:
                    if read_save(save)["check"]["at"] == "prompt":
                        break
                except Exception:
                    pass
                assert time.monotonic() < end, "the served game never reached the person's turn"
                time.sleep(0.3)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def _every_variant() -> list[tuple[str, str]]:
    out = []
    for game in kbsim.shipped_games():
        out.append((game, ""))
        out.extend((game, v) for v in load_rules(game).model.variants)
    return out


class _FirstMoves(_Follower):
    """Plays the policy's move at the first ``moves`` prompts, then stops the game."""

    def __init__(self, moves: int):
        super().__init__(False)
        self.left = moves
        self.updates = []

    def update(self, up):
        self.updates.append(up)
        if not up.prompt:
            return
        if self.left == 0 or not up.moves:
            self.done.set()
            return
        self.left -= 1
        self.session.send(("pick", up.prompt, _policy(up.moves)))


@pytest.mark.parametrize("game,variant", _every_variant())
def test_every_shipped_game_and_variant_starts_draws_and_takes_moves(tmp_path, game, variant):
    variants = (variant,) if variant else ()
    loaded = load_rules(game, variants, {})
    players = loaded.model.players.min
    setup, loaded, g = _setup(tmp_path, game, variants, players, "greedy", seed=2)
    listener = _FirstMoves(3)
    session = GameSession(setup, listener, loaded, g)
    listener.session = session
    session.start()
    try:
        assert listener.done.wait(60), "no prompt came"
        assert listener.outcome is None, listener.outcome
    finally:
        session.stop()
        session.join(10)
    console = Console(width=160, record=True)
    for up in listener.updates:
        console.print(up.drawing)
    text = console.export_text()
    assert "your" in text and "seat" in text
    assert sum(1 for up in listener.updates if up.prompt) >= 2
    saved = read_save(save_path(Path(setup.records)))
    assert sum(len(t) for t in saved["turns"]) + len(saved["pending"]) >= 1
