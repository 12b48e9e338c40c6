"""Player policies behind one interface (:class:`kbsim.bots.base.Bot`).

``random``
    Uniform random play; see :class:`kbsim.bots.random_bot.RandomBot`.
``greedy``
    A cheap heuristic; see :class:`kbsim.bots.greedy.GreedyBot`.
``planner``
    Searches each turn for the most cards laid; see :class:`kbsim.bots.planner.PlannerBot`.
"""

from __future__ import annotations

from kbsim.bots.base import BaseBot, Bot
from kbsim.bots.greedy import GreedyBot
from kbsim.bots.planner import PlannerBot
from kbsim.bots.random_bot import RandomBot
from kbsim.engine.families import family as engine_family

BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "planner": PlannerBot}


class UnknownBot(ValueError):
    """A bot name that is not registered."""


def bots_for(family: str = "rows") -> dict[str, type]:
    """The bots that can play games of an engine family (``rows``: :data:`BOTS`), from its registry entry.

    Raises:
        UnknownBot: no such engine family.
    """
    try:
        return engine_family(family).bot_classes()
    except KeyError as e:
        raise UnknownBot(str(e).strip("'\"")) from None


def make_bot(name: str, family: str = "rows") -> Bot:
    """Create a fresh bot by name for an engine family.

    Raises:
        UnknownBot: ``name`` is not a bot of that family.
    """
    registry = bots_for(family)
    try:
        return registry[name]()
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; expected one of: {', '.join(sorted(registry))}") from None


def parse_bots(spec: str, players: int, family: str = "rows") -> list[str]:
    """Bot names per seat from ``greedy`` (all seats) or ``greedy,random,...`` (one per seat).

    Raises:
        UnknownBot: an unknown name, or a list whose length is not ``players``.
    """
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise UnknownBot("--bots: empty; expected a bot name or one name per seat")
    for n in names:
        registry = bots_for(family)
        if n not in registry:
            raise UnknownBot(f"--bots: unknown bot {n!r}; expected one of: {', '.join(sorted(registry))}")
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise UnknownBot(f"--bots: {len(names)} bots for {players} players; give one name or one per seat")
    return names


__all__ = [
    "BOTS",
    "BaseBot",
    "Bot",
    "GreedyBot",
    "PlannerBot",
    "RandomBot",
    "UnknownBot",
    "bots_for",
    "make_bot",
    "parse_bots",
]
