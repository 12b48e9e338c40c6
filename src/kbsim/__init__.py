"""kbsim: rules-driven simulation and reference toolkit for shared-tableau card games.

The front door for a script or a test, the same for every game and engine family::

    import kbsim

    kbsim.shipped_games()                 # ['continental-express', 'kingsbridge', 'kings-corners']
    game = kbsim.load_game("kingsbridge", variants=["characters"])
    result = kbsim.play_game(game, bots="greedy", players=3, seed=7)
    result.winners, result.end_reason, result.turns

Each engine family (rows, market) is found through :mod:`kbsim.engine.families`.
"""

from __future__ import annotations

__version__ = "0.3.0"

# Nothing is imported here: the engine, rules and bots are imported by the functions below when first called.
# Importing the package (which every ``kbsim`` command does first) is then instant, and Ctrl-C while the modules
# load reaches the command line's handler (one line, exit 130) instead of printing a traceback.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


def shipped_games() -> list[str]:
    """The names of the games whose rule files ship with kbsim, sorted (e.g. ``kingsbridge``).

    Returns:
        Game names, each usable as ``name_or_path`` of :func:`load_game`.
    """
    from kbsim.rules.loader import shipped_games as _shipped_games

    return _shipped_games()


def load_game(name_or_path: str, variants: Sequence[str] = (), options: Mapping[str, Any] | None = None) -> Any:
    """Load, validate and compile the rules of one game, for any engine family.

    Args:
        name_or_path: a shipped game's name (see :func:`shipped_games`) or the path of a rule file (``.yaml``).
        variants: variant names declared in the rule file, applied in order.
        options: named rule options and their values (``{"rebuild_segments": "either"}``); values as in the
            rule file (strings, numbers, booleans).

    Returns:
        The compiled game (immutable, picklable): a :class:`kbsim.engine.rows.compiled.CompiledGame` for the rows
        family, a :class:`kbsim.engine.market.MarketGame` for the market family.

    Raises:
        kbsim.rules.loader.RulesError: unknown game, variant or option, or a rule file that does not validate;
            one line per problem (file, field, value, what was expected).
    """
    from kbsim.engine.families import family_of
    from kbsim.rules.loader import load_rules

    loaded = load_rules(str(name_or_path), tuple(variants), dict(options or {}))
    return family_of(loaded.model).compile(loaded)


def play_game(
    game: Any,
    bots: str | Sequence[Any] = "random",
    seed: int = 0,
    *,
    players: int | None = None,
    check: bool = False,
    log: bool = False,
) -> Any:
    """Play one game of a compiled game of any family, with bots of its family.

    Args:
        game: a game from :func:`load_game`.
        bots: one bot name for every seat (``"greedy"``), or one entry per seat: a bot name or a bot object
            (:class:`kbsim.bots.base.Bot`).
        seed: the game's seed (an int >= 0): the deal and every bot's choices follow from it, so the same
            seed gives the same game.
        players: number of seats when ``bots`` is one name (default: the game's minimum player count);
            ignored otherwise.
        check: verify the family's invariants (card conservation...) after every move.
        log: keep the move log in the result.

    Returns:
        The family's game result (``winners``, ``end_reason``, ``turns``, per-seat counts; see
        :class:`kbsim.engine.rows.game.GameResult` and :class:`kbsim.engine.market.game.MarketResult`).

    Raises:
        kbsim.bots.UnknownBot: a bot name that is not a bot of the game's family.
        ValueError: a player count outside the rules' range, or a negative seed.
    """
    from kbsim.bots import make_bot
    from kbsim.engine.families import family_of

    if seed < 0:
        raise ValueError(f"seed {seed}: expected an integer >= 0")
    fam = family_of(game)
    if isinstance(bots, str):
        bots = [bots] * (players if players is not None else game.min_players)
    seats = [make_bot(b, fam.name) if isinstance(b, str) else b for b in bots]
    return fam.play(game, seats, seed, check=check, log=log)


__all__ = ["__version__", "load_game", "play_game", "shipped_games"]
