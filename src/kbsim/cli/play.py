"""``kbsim play``: play a game against the bots in the terminal; the finished game is appended to a records file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kbsim.cli.common import OptionOpt, VariantOpt, check_players, fail, load, parse_options

MAX_PACE = 60.0
"""The longest pause after a bot's turn (seconds)."""


def play(
    game: Annotated[
        Optional[str],
        typer.Option("--game", "-g", help="Shipped game name or path to a rule file (default: kingsbridge)."),
    ] = None,
    players: Annotated[
        Optional[int], typer.Option("--players", "-p", help="Seats, yours included (default: the rules' minimum).")
    ] = None,
    bots: Annotated[
        Optional[str],
        typer.Option(
            "--bots",
            "-b",
            help="The bots in the other seats: one name for all (greedy) or one per other seat in seat order "
            "(greedy,planner). Default: greedy.",
        ),
    ] = None,
    seed: Annotated[
        Optional[int], typer.Option(help="Run seed (>= 0): the deal is game --game-index of kbsim run with this seed.")
    ] = None,
    game_index: Annotated[
        Optional[int],
        typer.Option(
            "--game-index",
            "-i",
            help="Index of the game in that run, as in kbsim run's records (it counts deals x seat rotations: "
            "you get the deal of that game, in the seats you choose); default: the first whose deal the records "
            "file does not hold.",
        ),
    ] = None,
    variant: VariantOpt = [],  # noqa: B006 - typer reads the default
    option: OptionOpt = [],  # noqa: B006
    seat: Annotated[
        Optional[int], typer.Option(help="Your seat, from 0 (default: the seat that plays first under the rules).")
    ] = None,
    fast: Annotated[bool, typer.Option("--fast", help="Bots play at once instead of at a readable pace.")] = False,
    pace: Annotated[float, typer.Option(help="Seconds each bot's turn is shown before it plays.")] = 1.0,
    hint_bot: Annotated[
        Optional[str],
        typer.Option(
            "--hint-bot",
            help="The bot the hint key asks, e.g. planner(budget=2000) (default: planner; market: greedy).",
        ),
    ] = None,
    records: Annotated[
        Optional[Path],
        typer.Option(
            "--records",
            help="Parquet file the finished game is appended to (default: runs/play-GAME-VARIANT-Pp.parquet).",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the game saved when you quit (or the terminal closed).")
    ] = False,
) -> None:
    """Play a game against the bots in the terminal; the finished game joins the records (bot name human).

    Keys: arrows and Enter (or the move's number) play a listed move, : types a move in the notation,
    u undoes a provisional move, ? shows the rule of a move, h asks the hint bot, q saves and quits.
    Example: kbsim play --game kingsbridge -p 3 --bots greedy,planner --seed 7
    """
    from kbsim.cli import checks as ck

    if not fast and not 0 <= pace <= MAX_PACE:
        fail(f"--pace {pace}: expected seconds between 0 and {MAX_PACE:g}")
    pace = 0.0 if fast else pace
    ck.check_seed(seed)
    ck.check_count("--game-index", game_index, 0, ck.MAX_GAMES - 1, "a game index")
    if records is not None and records.suffix.lower() != ".parquet":
        fail(f"--records {records}: expected a .parquet file path")
    given = {
        "game": game,
        "players": players,
        "bots": bots,
        "seed": seed,
        "game_index": game_index,
        "seat": seat,
        "hint_bot": hint_bot,
        "variants": variant or None,
        "options": option or None,
    }
    if resume:
        setup, loaded, g, saved = _resumed(records, given, pace)
    else:
        setup, loaded, g = _new_game(given, records, pace)
        saved = None
    _check_terminal()
    _run_app(setup, loaded, g, saved)


def _new_game(given: dict[str, Any], records: Path | None, pace: float):
    """Check the flags of a new game and build its setup; every problem is one line (exit 2)."""
    from kbsim.bots import UnknownBot, canonical_bot, parse_bots
    from kbsim.engine.families import family_of
    from kbsim.engine.seeds import new_run_seed
    from kbsim.play.base import HUMAN
    from kbsim.play.session import PlaySetup
    from kbsim.play.store import (
        StoreError,
        check_records_file,
        default_records_path,
        file_identity,
        holds_game,
        next_game_index,
        save_path,
    )
    from kbsim.records import RecordsError
    from kbsim.sim.runner import run_game

    variants = list(given["variants"] or [])
    loaded, g = load(given["game"] or "kingsbridge", variants, list(given["options"] or []))
    players = given["players"] if given["players"] is not None else g.min_players
    check_players(g, players, loaded)
    part = family_of(g).part("play_ui")
    seat = given["seat"] if given["seat"] is not None else part.first_seat(g, players)
    if not 0 <= seat < players:
        fail(f"--seat {seat}: expected a seat from 0 to {players - 1} ({players} players)")
    if players == 1 and given["bots"]:
        fail(f"--bots {given['bots']}: a game of 1 player has no other seat for a bot")
    try:
        others = parse_bots(given["bots"] or "greedy", players - 1, g.family) if players > 1 else []
    except UnknownBot as e:
        fail(str(e).replace(f"for {players - 1} players", f"for the {players - 1} other seat(s)"))
    try:
        hint = canonical_bot(given["hint_bot"] or part.hint_bot, g.family)
    except UnknownBot as e:
        fail(f"--hint-bot {given['hint_bot']}: {e}")
    names = [*others[:seat], HUMAN, *others[seat:]]
    path = records if records is not None else default_records_path(g, players)
    if records is not None and not path.parent.is_dir():
        fail(f"--records {path}: folder {path.parent} does not exist")
    try:
        check_records_file(path, file_identity(g, players, loaded.rules_hash))
    except StoreError as e:
        fail(str(e))
    unfinished = save_path(path)
    if unfinished.exists():
        fail(
            f"{unfinished} holds an unfinished game; add --resume to continue it, "
            "or delete that file to start a new game"
        )
    seed = given["seed"] if given["seed"] is not None else new_run_seed()
    try:
        index = given["game_index"] if given["game_index"] is not None else next_game_index(path, seed, names)
        played = holds_game(path, run_game(seed, index, names)[0], names)
    except RecordsError as e:  # a damaged records file
        fail(f"--records {e}")
    if played:
        fail(
            f"--game-index {index}: {path} already holds a game of this deal (run seed {seed}) with these players; "
            "one file holds one game per deal and lineup: choose another --game-index or --records file"
        )
    setup = PlaySetup(
        game=given["game"] or "kingsbridge",
        variants=tuple(variants),
        options=parse_options(list(given["options"] or [])),
        players=players,
        seat=seat,
        bots=tuple(names),
        seed=seed,
        game_index=index,
        hint_bot=hint,
        records=str(path),
        pace=pace,
    )
    return setup, loaded, g


def _find_save(records: Path | None) -> Path:
    """The saved game to resume: beside ``--records``, or the only one under ``runs/``."""
    from kbsim.play.store import SAVE_SUFFIX, save_path

    if records is not None:
        path = save_path(records)
        if not path.is_file():
            fail(f"--resume: no unfinished game for {records} (no {path})")
        return path
    found = sorted(Path("runs").glob(f"*{SAVE_SUFFIX}"))
    if not found:
        fail("--resume: no unfinished game under runs/; give the --records file the game was played for")
    if len(found) > 1:
        names = ", ".join(str(p)[: -len(SAVE_SUFFIX)] for p in found)
        fail(f"--resume: {len(found)} unfinished games under runs/ ({names}); choose one with --records FILE")
    return found[0]


def _resumed(records: Path | None, given: dict[str, Any], pace: float):
    """The setup of the saved game; flags that contradict it are refused (each in one line)."""
    from kbsim.play.session import PlaySetup
    from kbsim.play.store import StoreError, read_save
    from kbsim.rules.loader import RulesError, load_rules

    path = _find_save(records)
    try:
        saved = read_save(path)
        setup = PlaySetup.from_json(saved["setup"], pace)
    except StoreError as e:
        fail(str(e))
    except (KeyError, TypeError, ValueError) as e:
        fail(f"{path}: field setup: {type(e).__name__}: {e}; not a game saved by kbsim play")
    have = setup.as_json()
    flags = {"game": "--game", "players": "--players", "seed": "--seed", "game_index": "--game-index"}
    flags |= {"seat": "--seat", "hint_bot": "--hint-bot", "variants": "--variant", "options": "--option"}
    for key, value in given.items():
        if value is None:
            continue
        if key == "bots":
            others = [b for s, b in enumerate(have["bots"]) if s != setup.seat]
            names = [b.strip() for b in value.split(",") if b.strip()]
            if names != others and not (len(names) == 1 and set(others) == set(names)):
                fail(f"--bots {value}: the saved game is played by {','.join(others)}; leave --bots out to continue it")
            continue
        if key == "options":
            value = parse_options(list(value))
        if value != have[key] and not (key == "variants" and list(value) == have[key]):
            fail(f"{flags[key]}: the saved game has {have[key]!r}; leave the option out to continue it")
    try:
        loaded = load_rules(setup.game, setup.variants, setup.options)
    except RulesError as e:
        fail(f"{path}: the saved game's rules no longer load: {str(e).splitlines()[0]}")
    if loaded.rules_hash != saved["rules_hash"]:
        fail(
            f"{path}: the rules changed since the game was saved (rule file, variant or options edited); "
            "it cannot be resumed exactly; delete that file to start a new game"
        )
    from kbsim.engine.families import family_of

    g = family_of(loaded.model).compile(loaded)
    return setup, loaded, g, saved


def _check_terminal() -> None:
    """Refuse to start without a terminal, unless Textual draws elsewhere (``textual serve`` sets its driver)."""
    import os

    if os.environ.get("TEXTUAL_DRIVER"):
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("kbsim play draws the table in a terminal: run it in one (stdin and stdout must be a terminal)")


def _run_app(setup, loaded, g, saved) -> None:
    """Run the Textual app, then say where the game went (its record, or how to resume it)."""
    from kbsim.play.app import PlayApp
    from kbsim.play.session import GameSession

    def make(listener):
        return GameSession(setup, listener, loaded, g, saved)

    variant = g.variant
    title = (
        f"{g.title} ({variant}) · {setup.players} player{'s' * (setup.players != 1)} · "
        f"seed {setup.seed} game {setup.game_index} · you are seat {setup.seat}"
    )
    app = PlayApp(make, title, handle_signals=True)
    app.run()
    kind, lines = app.outcome
    for line in lines:
        print(line)
    if kind != "finished":
        resume = "kbsim play --resume" + (
            f" --records {setup.records}" if not setup.records.startswith("runs/") else ""
        )
        print(f"game saved in {setup.records}.unfinished.json; continue it with: {resume}")
