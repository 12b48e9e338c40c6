"""Player policies behind one interface (:class:`kbsim.bots.base.Bot`).

``random``
    Uniform random play; see :class:`kbsim.bots.random_bot.RandomBot`.
``greedy``
    A cheap heuristic; see :class:`kbsim.bots.greedy.GreedyBot`.
``planner``
    Searches each turn for the most cards laid; see :class:`kbsim.bots.planner.PlannerBot`.
``search``
    Scores whole-turn candidates by playouts on worlds sampled from its observation; see
    :class:`kbsim.bots.search.SearchBot`.
"""

from __future__ import annotations

from kbsim.bots.base import BaseBot, Bot
from kbsim.bots.greedy import GreedyBot
from kbsim.bots.market import BOTS as _MARKET_BASE
from kbsim.bots.market_search import MarketSearchBot
from kbsim.bots.planner import PlannerBot
from kbsim.bots.random_bot import RandomBot
from kbsim.bots.search import SearchBot
from kbsim.bots.spec import BotSpec, BotSpecError, bar_of, parse_lineup, parse_spec, validated
from kbsim.engine.families import family as engine_family
from kbsim.engine.families import family_of

BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "planner": PlannerBot, "search": SearchBot}
"""The rows family's bots (name -> class)."""

MARKET_BOTS: dict[str, type] = {**_MARKET_BASE, "search": MarketSearchBot}
"""The market family's bots (name -> class): :mod:`kbsim.bots.market`'s and :mod:`kbsim.bots.market_search`'s."""


#: The error of a bot spec that cannot be used (unknown bot or parameter, bad value, wrong lineup length).
UnknownBot = BotSpecError


def bots_for(family: str = "rows") -> dict[str, type]:
    """The bots that can play games of an engine family (``rows``: :data:`BOTS`), from its registry entry.

    Raises:
        UnknownBot: no such engine family.
    """
    try:
        return engine_family(family).bot_classes()
    except KeyError as e:
        raise UnknownBot(str(e).strip("'\"")) from None


def canonical_bot(spec: str | BotSpec, family: str = "rows", *, game=None) -> str:
    """The canonical text of a bot spec of ``family`` (what records store), after checking it.

    Args:
        spec: a bot spec such as ``"greedy"`` or ``"search(iterations=400)"`` (see :mod:`kbsim.bots.spec`).
        family: the engine family whose bots are meant.
        game: the compiled game the bot will play, to check its ``bar`` against (:func:`check_bars`); None:
            only the bar's form is checked.

    Raises:
        UnknownBot: not one bot spec, an unknown bot, parameters the bot refuses, or a bar naming no move kind
            of ``game``.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    canonical = validated(parsed, bots_for(family))[2]
    if game is not None:
        check_bars(game, [canonical])
    return canonical.canonical()


def make_bot(spec: str | BotSpec, family: str = "rows") -> Bot:
    """Create a fresh bot from its spec (a name, optionally with parameters) for an engine family.

    Args:
        spec: e.g. ``"greedy"``, ``"planner(budget=2000)"``, ``"search(iterations=400)"`` or a parsed
            :class:`~kbsim.bots.spec.BotSpec`.
        family: the engine family of the game the bot will play.

    Raises:
        UnknownBot: not one bot spec, ``name`` is not a bot of that family, or parameters the bot refuses.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    cls, kwargs, canonical = validated(parsed, bots_for(family))
    bot = cls(**kwargs)
    bar = bar_of(canonical)
    if bar:
        bot.bar = frozenset(bar)  # restricted play: the engine enforces it on this bot's seat
    return bot


def check_bars(game, specs) -> None:
    """Check the ``bar`` of each bot spec against the move kinds of a game's rules (restricted play).

    Args:
        game: a compiled game of any family.
        specs: bot specs (text or parsed), e.g. a lineup from :func:`parse_bots`.

    Raises:
        UnknownBot: a bar naming something that is not a move kind of these rules (the message lists them).
    """
    kinds = family_of(game).part("bar_kinds")(game)
    for spec in specs:
        parsed = parse_spec(spec) if isinstance(spec, str) else spec
        unknown = [k for k in bar_of(parsed) if k not in kinds]
        if unknown:
            raise UnknownBot(
                f"{parsed.canonical()}: bar: {unknown[0]!r} is not a move kind of {game.game}; "
                f"expected some of: {', '.join(kinds)}"
            )


def parse_bots(spec: str, players: int, family: str = "rows", *, game=None) -> list[str]:
    """Canonical bot specs per seat from ``greedy`` (all seats) or ``greedy,search(iterations=50),...`` (one per seat).

    Args:
        spec: one bot spec, or a comma-separated lineup of one spec per seat (commas inside parentheses
            belong to a spec).
        players: seats.
        family: the engine family whose bots are meant.
        game: the compiled game the bots will play, to check their ``bar`` against (:func:`check_bars`).

    Returns:
        ``players`` canonical specs (:meth:`~kbsim.bots.spec.BotSpec.canonical`).

    Raises:
        UnknownBot: an unknown bot or parameter, a bad value, a lineup whose length is neither 1 nor ``players``,
            or a bar naming no move kind of ``game``.
    """
    try:
        specs = parse_lineup(spec)
    except BotSpecError as e:
        raise UnknownBot(f"--bots: {e}") from None
    registry = bots_for(family)
    names = []
    for s in specs:
        try:
            canonical = validated(s, registry)[2]
            if game is not None:
                check_bars(game, [canonical])
        except BotSpecError as e:
            raise UnknownBot(f"--bots: {e}") from None
        names.append(canonical.canonical())
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise UnknownBot(f"--bots: {len(names)} bots for {players} players; give one bot or one per seat")
    return names


__all__ = [
    "BOTS",
    "MARKET_BOTS",
    "BaseBot",
    "Bot",
    "BotSpec",
    "BotSpecError",
    "GreedyBot",
    "PlannerBot",
    "RandomBot",
    "SearchBot",
    "UnknownBot",
    "bots_for",
    "canonical_bot",
    "check_bars",
    "make_bot",
    "parse_bots",
]
