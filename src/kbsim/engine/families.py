"""The engine families: one registry entry per family, looked up by every caller that serves several families.

A rule file names its family (``family: rows`` or ``family: market``); everything
that depends on the family -- the rule-file model, the compiler, the game loop,
the bots, the move notation, the example runner, the documentation renderer and
the record columns, the ``kbsim play`` part -- is found through :func:`family` here, never through a
``family == ...`` branch.

Entries name their parts by dotted path (``"package.module:attribute"``),
resolved on first use by :meth:`Family.part`. This keeps the registry a leaf
module: any engine module may look a family up without importing the other
family's modules, and the engine never imports the Sphinx renderer.

Adding a family: write its package (same file roles as :mod:`kbsim.engine.market`),
its rule-file model (:mod:`kbsim.rules.families`), and add one :class:`Family`
entry to :data:`FAMILIES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from kbsim.rules.families import RULE_MODELS


@dataclass(frozen=True)
class Family:
    """One engine family and where its parts live (dotted paths ``module:attribute``).

    Attributes:
        name: the family's name, as written in rule files (``family:``).
        schema: the pydantic model of its rule files.
        compiler: ``compile(loaded: LoadedRules) -> compiled game``.
        game_loop: ``play(game, bots: list, seed: int, *, check=False, log=False) -> result``.
        bots: a ``dict[str, type]`` of the bots that can play it (name -> class).
        format_move: ``format(move, game) -> str`` (the move notation).
        parse_move: ``parse(text: str, game) -> move`` (inverse of ``format_move``).
        examples: ``run(loaded: LoadedRules, examples: list | None) -> list[ExampleResult]``.
        docs_renderer: the Sphinx renderer of its rule files (only resolved by the docs build).
        record_columns: ``(name, Arrow type)`` of the record columns the family adds to the common
            columns of :mod:`kbsim.sim.records` (types written as ``int16``, ``list<int16>``).
        records: ``values(result) -> dict[str, Any]``: the family's record columns of one game result.
        replay: ``replay(game, players: int, seed: int, log) -> list[dict]`` (a logged game, turn by turn),
            or "" when the CLI replays the family itself.
        deal_hash: ``hash(game, players: int, seed: int) -> str``: 16 hex digits identifying the deal of the
            game with that seed (equal deals, equal hash).
        solver: the single-turn planner, or "" when the family has none.
        bar_kinds: ``kinds(game) -> dict[str, str]``: the move kinds a bot's ``bar`` may name under a game's
            rules (restricted play), each with what a bar on it keeps a seat from doing, in words.
        determinize: ``determinize(observation, rng) -> World``: the forward model of a seat's observation
            (:mod:`kbsim.engine.forward`).
        new_world: ``new_world(game, players: int, seed: int) -> World``: the forward model of a fresh deal.
        play_ui: the family's part of ``kbsim play`` (a :class:`kbsim.play.base.PlayPart`: how to draw the table
            one seat sees, list, write and apply moves, name their rules), or "" when it has none.
    """

    name: str
    compiler: str
    game_loop: str
    bots: str
    format_move: str
    parse_move: str
    examples: str
    docs_renderer: str
    record_columns: tuple[tuple[str, str], ...]
    records: str
    bar_kinds: str = ""
    deal_hash: str = ""
    replay: str = ""
    solver: str = ""
    determinize: str = ""
    new_world: str = ""
    play_ui: str = ""

    @property
    def schema(self) -> type:
        """The pydantic model of this family's rule files."""
        return RULE_MODELS[self.name]

    def part(self, role: str) -> Any:
        """The object named by the field ``role`` (e.g. ``"compiler"``), imported on first use.

        Raises:
            KeyError: this family has no such part (an empty field).
        """
        return _resolve(getattr(self, role) or _missing(self.name, role))

    # the parts every caller needs, by name
    def compile(self, loaded: Any) -> Any:
        """Compile loaded rules of this family (see :attr:`compiler`)."""
        return self.part("compiler")(loaded)

    def play(self, game: Any, bots: list, seed: int, *, check: bool = False, log: bool = False) -> Any:
        """Play one game (see :attr:`game_loop`)."""
        return self.part("game_loop")(game, bots, seed, check=check, log=log)

    def bot_classes(self) -> dict[str, type]:
        """The bots of this family (name -> class)."""
        return self.part("bots")

    def run_examples(self, loaded: Any, examples: list | None = None) -> list:
        """Run examples of a rule file of this family (see :attr:`examples`)."""
        return self.part("examples")(loaded, examples)

    def record_values(self, result: Any) -> dict[str, Any]:
        """This family's record columns of one game result (see :attr:`records`)."""
        return self.part("records")(result)


def _missing(name: str, role: str) -> str:
    raise KeyError(f"the {name} family has no {role}")


@cache
def _resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(import_module(module), attr)


FAMILIES: dict[str, Family] = {
    "rows": Family(
        name="rows",
        compiler="kbsim.engine.rows.compiled:compile_rows",
        game_loop="kbsim.engine.rows.game:play_rows_game",
        bots="kbsim.bots:BOTS",
        format_move="kbsim.engine.rows.notation:format_move",
        parse_move="kbsim.engine.rows.notation:parse_move",
        examples="kbsim.engine.rows.examples:run_rows_examples",
        docs_renderer="kbsim.sphinx.rows:RulesRenderer",
        record_columns=(
            ("cards_left", "list<int16>"),
            ("cards_laid", "list<int16>"),
            ("exchanges", "list<int16>"),
            ("rebuilds", "list<int16>"),
            ("rows_completed", "int16"),
            ("minus_cards", "list<int16>"),
            ("score", "int16"),
            ("penalties", "list<int16>"),
            ("blocked_hands", "int16"),
        ),
        records="kbsim.engine.families:rows_record_values",
        bar_kinds="kbsim.engine.rows.restrict:barrable",
        deal_hash="kbsim.engine.rows.game:rows_deal_hash",
        solver="kbsim.engine.rows.search.solve:solve",
        determinize="kbsim.engine.rows.forward:determinize",
        new_world="kbsim.engine.rows.forward:new_world",
        play_ui="kbsim.play.rows:ROWS",
    ),
    "market": Family(
        name="market",
        compiler="kbsim.engine.market.compiled:compile_market",
        game_loop="kbsim.engine.market.game:play_market_game",
        bots="kbsim.bots:MARKET_BOTS",
        format_move="kbsim.engine.market.notation:format_market_move",
        parse_move="kbsim.engine.market.notation:parse_market_move",
        examples="kbsim.engine.market.examples:run_market_examples",
        docs_renderer="kbsim.sphinx.market:MarketRulesRenderer",
        record_columns=(
            ("cards_held", "list<int16>"),
            ("wagons_spent", "list<int16>"),
            ("objectives", "list<int16>"),
            ("characters_lost", "int16"),
        ),
        records="kbsim.engine.market.game:record_values",
        bar_kinds="kbsim.engine.market.restrict:barrable",
        deal_hash="kbsim.engine.market.game:market_deal_hash",
        replay="kbsim.engine.market.game:replay_market_log",
        determinize="kbsim.engine.market.forward:determinize",
        new_world="kbsim.engine.market.forward:new_world",
        play_ui="kbsim.play.market:MARKET",
    ),
}


def family(name: str) -> Family:
    """The registry entry of the engine family ``name``.

    Raises:
        KeyError: no such family (the message lists the known ones).
    """
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown engine family {name!r}; expected one of: {', '.join(FAMILIES)}") from None


def family_of(game: Any) -> Family:
    """The registry entry of a compiled game or a rule-file model (its ``family`` attribute)."""
    return family(game.family)


def rows_record_values(result: Any) -> dict[str, Any]:
    """The rows family's record columns of a :class:`kbsim.engine.rows.game.GameResult`."""
    return {
        "cards_left": result.cards_left,
        "cards_laid": result.cards_laid,
        "exchanges": result.exchanges,
        "rebuilds": result.rebuilds,
        "rows_completed": result.rows_completed,
        "minus_cards": result.minus_cards,
        "score": result.score,
        "penalties": result.penalties,
        "blocked_hands": sum(1 for e in result.hand_ends if e == "stalemate"),
    }


__all__ = ["FAMILIES", "Family", "family", "family_of", "rows_record_values"]
