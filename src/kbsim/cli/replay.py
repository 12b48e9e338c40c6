"""``kbsim replay``: replay one game of a run, or one record of a records file, and print its move log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kbsim.cli.common import (
    BotsOpt,
    OptionOpt,
    VariantOpt,
    check_players,
    fail,
    load,
    notation_key,
    out,
)
from kbsim.strict_io import dumps_json


def replay(
    game_index: Annotated[
        int,
        typer.Option(
            "--game-index",
            "-i",
            help="Index of the game in that run, as in the run's records (column game_index): it counts games, "
            "not deals: with a mixed --bots lineup, game i is deal i // R in seat rotation i % R (R: the "
            "lineup's distinct seat rotations, as kbsim run plays them). With --records: the record's game_index.",
        ),
    ],
    seed: Annotated[
        Optional[int],
        typer.Option(
            help="The run seed of the run the game belongs to (with --records: picks among the file's games)."
        ),
    ] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats.")] = 4,
    game: Annotated[
        Optional[str],
        typer.Option(
            "--game", "-g", help="Shipped game name or path to a rule file (default: kingsbridge, or the record's)."
        ),
    ] = None,
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    bots: BotsOpt = "greedy",
    records: Annotated[
        Optional[Path],
        typer.Option(
            "--records",
            help="Replay a record of this Parquet file (game, variant, options, players, bots and seed from the "
            "record; a game with a human seat from its stored moves) and check that it replays to the record.",
        ),
    ] = None,
    rotate: Annotated[
        bool,
        typer.Option(
            "--rotate/--no-rotate",
            help="Whether the run rotated the seats of its mixed lineup (as kbsim run's --rotate/--no-rotate).",
        ),
    ] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print the log as JSON.")] = False,
) -> None:
    """Replay one game of a run (same seed, index, players, variant, bots) and print its move log.

    With --records FILE, replay the record with --game-index from that file (kbsim play's games too).
    """
    from kbsim.bots import UnknownBot, make_bot, parse_bots
    from kbsim.cli import checks as ck
    from kbsim.engine.rows.game import play_game
    from kbsim.sim.runner import run_game

    ck.check_count("--game-index", game_index, 0, ck.MAX_GAMES - 1, "a game index")
    ck.check_seed(seed)
    if records is not None:
        g, players, names, gs, res = _replay_record(records, game_index, seed, game)
        seed_text = f"record {game_index} of {records}"
    else:
        if seed is None:
            fail("--seed is required (the run seed of the game to replay), unless --records is given")
        loaded, g = load(game or "kingsbridge", variant, option)
        check_players(g, players, loaded)
        try:
            names = parse_bots(bots, players, g.family, game=g)
        except UnknownBot as e:
            fail(str(e))
        gs, lineup = run_game(seed, game_index, names, rotate=rotate)
        names = list(lineup)
        res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)
        seed_text = f"game {game_index} of run seed {seed}"
    _print(g, players, names, gs, res, json_out, seed_text)


def _replay_record(path: Path, index: int, seed: int | None, game: str | None) -> tuple[Any, int, list, int, Any]:
    """Replay the record with ``index`` (and run ``seed``) of a records file and check it against the record.

    Returns:
        ``(compiled game, players, names per seat, game seed, result)``.
    """
    import json

    from kbsim.bots import UnknownBot, make_bot
    from kbsim.engine.families import family_of
    from kbsim.play.script import ScriptError, replay_log
    from kbsim.records import RecordsError
    from kbsim.records import load as load_records
    from kbsim.rules.loader import RulesError, load_rules
    from kbsim.sim.runner import run_game

    try:
        df = load_records(path)
    except RecordsError as e:  # not a records file, damaged, not kbsim's: one line naming the file
        fail(f"--records {e}")
    missing = [
        c for c in ("game_index", "seed", "game", "variant", "options", "players", "bots") if c not in df.columns
    ]
    if missing:
        fail(f"--records {path}: not kbsim records (missing columns: {', '.join(missing)})")
    rows = [r for r in df.iter_rows(named=True) if r["game_index"] == index]
    if seed is not None:
        # the run rotated its seats or not (--no-rotate): a game seed of either mapping names the game
        rows = [r for r in rows if r["seed"] in {run_game(seed, index, r["bots"], rotate=x)[0] for x in (True, False)}]
    if not rows:
        fail(
            f"--records {path}: no record with game index {index}"
            + (f" of run seed {seed}" if seed is not None else "")
        )
    if len(rows) > 1:
        fail(f"--records {path}: {len(rows)} records have game index {index}; add --seed RUN_SEED to pick one")
    row = rows[0]
    variants = [v for v in row["variant"].split("+") if v and v != "base"]
    try:
        loaded = load_rules(game or row["game"], variants, json.loads(row["options"]))
    except RulesError as e:
        fail(
            f"--records {path}: the record's rules do not load ({str(e).splitlines()[0]}); "
            "give the rule file with --game"
        )
    g = family_of(loaded.model).compile(loaded)
    names = list(row["bots"])
    moves = list(row.get("moves") or [])
    if moves:
        try:
            res = replay_log(g, names, row["seed"], moves)
        except ScriptError as e:
            fail(f"--records {path}: record {index} does not replay: {e}")
    else:
        try:
            res = family_of(g).play(g, [make_bot(n, g.family) for n in names], row["seed"], check=True, log=True)
        except UnknownBot as e:
            fail(f"--records {path}: record {index}: {e}; a game with a person in it needs its moves column")
    if (res.deal_hash, res.turns, sorted(res.winners)) != (row.get("deal_hash"), row["turns"], sorted(row["winners"])):
        fail(
            f"--records {path}: record {index} replays to another game (turns {res.turns}, winners "
            f"{list(res.winners)}; the record has {row['turns']}, {list(row['winners'])}): the rules, the engine or "
            "the bots changed since it was written"
        )
    return g, row["players"], names, row["seed"], res


def _print(g: Any, players: int, names: list, gs: int, res: Any, json_out: bool, seed_text: str) -> None:
    """Print a replayed game: its move log with the table after each turn (text or JSON)."""
    from kbsim.engine.families import family_of
    from kbsim.engine.rows.game import replay_hands, state_hash
    from kbsim.engine.rows.notation import format_cards, format_move

    if family_of(g).replay:  # a family that replays its own logs (the market family)
        lines = family_of(g).part("replay")(g, players, gs, res.log)
        if json_out:
            print(
                dumps_json(
                    {
                        "seed": gs,
                        "winners": list(res.winners),
                        "end_reason": res.end_reason,
                        "turns": res.turns,
                        "scores": res.scores,
                        "log": lines,
                    },
                    indent=2,
                )
            )
            return
        for ln in lines:
            out.print(
                f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   market: {' | '.join(ln['market'])}",
                highlight=False,
                markup=False,
            )
        out.print(f"end: {res.end_reason}, winners {list(res.winners)}, scores {res.scores}", markup=False)
        return

    def cards(cs) -> str:
        return format_cards(cs, g) or "_"

    # render moves against a replayed board (each hand on its own deal) so rebuilds show their first card
    hands_out = []
    for ev in replay_hands(g, players, res):
        if ev[0] == "deal":
            st = ev[2]
            hands_out.append(
                {
                    "hand": ev[1] + 1,
                    "deal_hash": state_hash(st),
                    "deal": {
                        "rows": [cards(r) for r in st.rows],
                        "hands": [cards(h) for h in st.hands],
                        "piles": [cards(p[::-1]) for p in st.piles],
                    },
                    "log": [],
                }
            )
            continue
        _, turn_no, seat, done, st = ev
        hands_out[-1]["log"].append(
            {
                "turn": turn_no,
                "seat": seat,
                "moves": [format_move(m, rb, g) for m, rb in done],
                "rows": [cards(r) for r in st.rows],
                "hands": [cards(h) for h in st.hands],
                "piles": [cards(p[::-1]) for p in st.piles],
            }
        )
    if json_out:
        print(
            dumps_json(
                {
                    "seed": gs,
                    "winners": list(res.winners),
                    "end_reason": res.end_reason,
                    "turns": res.turns,
                    "score": res.score,
                    "deal_hash": res.deal_hash,
                    "log": [ln for h in hands_out for ln in h["log"]],
                    "hands": hands_out,
                },
                indent=2,
            )
        )
        return
    out.print(
        f"{seed_text}: game seed {gs}, {players} players, bots {','.join(names)}, deal hash {res.deal_hash}",
        markup=False,
    )
    first = (g.first_seat + g.first_player) % players  # the rules' seat roles (setup.deal)
    starts = f"seat {first} plays first" + ("" if first == g.first_seat % players else f", seat {g.first_seat} deals")
    out.print(notation_key(starts), highlight=False, markup=False)
    for h in hands_out:
        d = h["deal"]
        if len(hands_out) > 1:
            out.print(f"hand {h['hand']} (deal hash {h['deal_hash']})", highlight=False, markup=False)
        out.print(f"deal: rows {' | '.join(d['rows'])}", highlight=False, markup=False)
        for k in range(players):
            out.print(
                f"  seat {k}: hand {d['hands'][k]}; pile (top first) {d['piles'][k]}", highlight=False, markup=False
            )
        for ln in h["log"]:
            out.print(
                f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   rows: {' | '.join(ln['rows'])}",
                highlight=False,
                markup=False,
            )
    score = f", score {res.score}" if res.score is not None else ""
    out.print(f"end: {res.end_reason}, winners {list(res.winners)}, cards left {res.cards_left}{score}", markup=False)
