"""``kbsim replay``: replay one game of a run and print its move log."""

from __future__ import annotations

from typing import Annotated

import typer

from kbsim.cli.common import (
    BotsOpt,
    GameOpt,
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
    seed: Annotated[int, typer.Option(help="The run seed of the run the game belongs to.")],
    game_index: Annotated[int, typer.Option("--game-index", "-i", help="Index of the game in that run.")],
    players: Annotated[int, typer.Option("--players", "-p", help="Seats.")] = 4,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    bots: BotsOpt = "greedy",
    json_out: Annotated[bool, typer.Option("--json", help="Print the log as JSON.")] = False,
) -> None:
    """Replay one game of a run (same seed, index, players, variant, bots) and print its move log."""
    from kbsim.bots import UnknownBot, make_bot, parse_bots
    from kbsim.cli import checks as ck
    from kbsim.engine.families import family_of
    from kbsim.engine.rows.game import play_game, replay_hands, state_hash
    from kbsim.engine.rows.notation import format_cards, format_move
    from kbsim.engine.seeds import game_seed

    ck.check_count("--game-index", game_index, 0, ck.MAX_GAMES - 1, "a game index")
    ck.check_seed(seed)
    loaded, g = load(game, variant, option)
    check_players(g, players, loaded)
    try:
        names = parse_bots(bots, players, g.family)
    except UnknownBot as e:
        fail(str(e))
    gs = game_seed(seed, game_index)
    if family_of(g).replay:  # a family that replays its own logs (the market family)
        res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)
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
    res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)

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
        f"game {game_index} of run seed {seed}: game seed {gs}, {players} players, bots {','.join(names)}, "
        f"deal hash {res.deal_hash}",
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
