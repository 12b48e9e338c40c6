"""``kbsim solve``: the best turn for a board and a hand."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kbsim.cli.common import (
    GameOpt,
    OptionOpt,
    VariantOpt,
    fail,
    load,
    notation_key,
    out,
)
from kbsim.strict_io import dumps_json


def solve(
    rows: Annotated[
        str,
        typer.Option(
            "--rows",
            "-r",
            help="The rows, separated by |: values (3 4 5) or a run "
            "(3-5), _ for an empty row, E7 for the joker as 7; fewer rows than the "
            'table holds leave the rest empty. Example: "3|8|9|5|1|13".',
        ),
    ],
    hand: Annotated[str, typer.Option("--hand", "-H", help='Your hand cards, e.g. "1 4 6 8 11 12".')],
    character: Annotated[
        Optional[str],
        typer.Option(
            "--character",
            "-c",
            help="A character you may play this turn (needs rules with characters, e.g. --variant characters).",
        ),
    ] = None,
    discard: Annotated[
        str,
        typer.Option(
            "--discard",
            help="Cards in the discard pile (they count toward the copies of each value; a character may take them).",
        ),
    ] = "",
    pile: Annotated[
        int,
        typer.Option(
            "--pile",
            help="Cards left in your draw pile; with 0, laying your whole hand wins and no minimum of cards applies.",
        ),
    ] = 1,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    budget: Annotated[
        Optional[int],
        typer.Option(
            help="Positions the search may store (default 50000); past it the best turn found so far is shown."
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print {laid, moves, rows, hand} as JSON.")] = False,
    players: Annotated[
        Optional[int],
        typer.Option(
            "--players",
            "-p",
            help="Seats at the table (default: the rules' minimum for the variant); character "
            "powers that depend on it (one card per opponent) are proposed only as legal for that count.",
        ),
    ] = None,
) -> None:
    """Find the best turn for a board and a hand: the most hand cards laid, then the best board left.

    Example: kbsim solve --rows "3|8|9|5|1|13" --hand "1 4 6 8 11 12"
    """
    from kbsim.engine.families import family_of
    from kbsim.engine.rows.notation import format_cards
    from kbsim.engine.rows.search import DEFAULT_BUDGET, BoardError, parse_board, parse_hand
    from kbsim.engine.rows.search import solve as solve_board

    if pile < 0:
        fail(f"--pile {pile}: expected a number of cards >= 0")
    if budget is not None and budget < 1:
        fail(f"--budget {budget}: expected at least 1")
    _, g = load(game, variant, option)
    if not family_of(g).solver:
        fail(f"solve works for games played on rows of cards (Kingsbridge, King's Corners), not {g.game}")
    seats = g.min_players if players is None else players
    if not g.min_players <= seats <= g.max_players:
        fail(f"--players {seats}: expected {g.min_players} to {g.max_players} for these rules")
    try:
        board = parse_board(rows, g.n_rows, g)
        held = parse_hand(hand, "--hand", g)
        gone = parse_hand(discard, "--discard", g)
        sol = solve_board(
            g,
            board,
            held,
            discard=gone,
            pile_size=pile,
            budget=budget or DEFAULT_BUDGET,
            character=character,
            players=seats,
        )
    except BoardError as e:
        fail(str(e))
    if json_out:
        print(dumps_json(sol.to_json()))
        return
    p = sol.plan
    how = "every position searched" if p.exact else f"search stopped at its budget of {p.nodes} positions"
    out.print(f"best turn: {sol.laid} of {len(held)} hand card(s) laid ({how})", highlight=False, markup=False)
    if not sol.laid:
        out.print("  no card can be laid: exchange or pass instead", highlight=False, markup=False)
    for i, text in enumerate(sol.texts, start=1):
        out.print(f"  {i:>2}. {text}", highlight=False, markup=False)
    extra = []
    if sol.completed:
        extra.append(f"{sol.completed} row(s) completed")
    if sol.won:
        extra.append("the game is won")
    if extra:
        out.print("  " + "; ".join(extra), highlight=False, markup=False)
    out.print("rows: " + " | ".join(format_cards(r, g) for r in sol.rows), highlight=False, markup=False)
    out.print("hand: " + (format_cards(sol.hand, g) if sol.hand else "(empty)"), highlight=False, markup=False)
    out.print(notation_key(), highlight=False, markup=False)
