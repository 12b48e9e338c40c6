"""The market family's play part (Continental Express): its table, moves and rules for ``kbsim play``.

The table is drawn as the rules lay it out: the market lines with the cost of each place and the cards left in
each deck, the face-up objectives with what they ask for, every seat's face-up wagons, currency, tokens and
claimed objectives, and the person's own contracts (another seat's contracts are secret: only their number is
drawn). Moves are the engine's (:meth:`kbsim.engine.market.turn.MarketTurn.legal_moves`) in the market notation
(:mod:`kbsim.engine.market.notation`); each take, claim or choice is final once made, so nothing is undone.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kbsim.engine.market.game import state_digest
from kbsim.engine.market.moves import CHOOSE, CLAIM, DONE, RESOLVE, TAKE
from kbsim.engine.market.notation import format_market_move, parse_market_move
from kbsim.engine.market.turn import MarketTurn
from kbsim.play.base import TableContext, rules_text
from kbsim.play.script import join_line


class MarketPart:
    """The market family's part of ``kbsim play`` (the interface of :class:`kbsim.play.base.PlayPart`)."""

    family = "market"
    hint_bot = "greedy"

    # ------------------------------------------------------------------ drawing
    def draw(self, ctx: TableContext, state: Any, on_turn: int, turn: MarketTurn | None) -> RenderableType:
        """The table as seat ``ctx.seat`` sees it: market, objectives, seats, own contracts.

        Args:
            ctx: rules and seats.
            state: the :class:`~kbsim.engine.market.state.MarketState` (read only; decks and other seats'
                contracts are drawn as counts).
            on_turn: the seat to play.
            turn: the person's turn while it is theirs (contracts on offer), else None.

        Returns:
            A Rich renderable.
        """
        g = ctx.game
        market = Table(title="market", title_justify="left", pad_edge=False)
        market.add_column("line")
        for p, cost in enumerate(g.costs):
            market.add_column(f"place {p + 1} (cost {cost})", justify="center")
        market.add_column("deck", justify="right")
        for d, line in enumerate(state.lines):
            market.add_row(str(d + 1), *(self._card(g, c) for c in line), str(len(state.decks[d])))
        objectives = Table(title="objectives face up", title_justify="left", pad_edge=False)
        for head in ("slot", "objective", "needs", "points", "company"):
            objectives.add_column(head)
        for i, o in enumerate(state.obj_visible):
            if o < 0:
                objectives.add_row(str(i + 1), "-", "", "", "")
                continue
            obj = g.objectives[o]
            objectives.add_row(
                str(i + 1), obj.name, self._needs(g, obj.needs), str(obj.points), g.company_names[obj.company]
            )
        parts: list[RenderableType] = [market, objectives, self._seats_table(ctx, state, on_turn)]
        mine = [g.contracts[c].name for c in state.contracts[ctx.seat]]
        parts.append(Text(f"your contracts: {', '.join(mine) or 'none yet'}", style="bold"))
        if state.offered[ctx.seat]:
            offered = ", ".join(g.contracts[c].name for c in state.offered[ctx.seat])
            parts.append(Text(f"contracts offered to you: {offered}", style="bold"))
        return Group(*parts)

    def _card(self, g: Any, card: int) -> str:
        return "-" if card < 0 else g.kinds[card].name

    def _needs(self, g: Any, needs: tuple[tuple[int, int], ...]) -> str:
        return ", ".join(f"{n} {g.kinds[k].name}" for k, n in needs)

    def _seats_table(self, ctx: TableContext, state: Any, on_turn: int) -> Table:
        """Each seat's face-up holdings: wagons, currency, tokens, objectives claimed and their points."""
        g = ctx.game
        table = Table(title="seats", title_justify="left", pad_edge=False)
        for head in ("", "seat", "player", "wagons", g.kinds[g.currency_kind].name, "tokens", "objectives"):
            table.add_column(head)
        table.add_column("contracts", justify="right")
        for s in range(ctx.players):
            wagons = ", ".join(f"{n} {g.kinds[k].name}" for k, n in enumerate(state.wagons[s]) if n) or "none"
            tokens = ", ".join(f"{n} {g.company_names[c]}" for c, n in enumerate(state.tokens[s]) if n) or "none"
            claimed = state.claimed[s]
            points = sum(g.objectives[o].points for o in claimed)
            table.add_row(
                "▶" if s == on_turn else "",
                str(s),
                Text(ctx.who(s), style="bold" if s == ctx.seat else ""),
                wagons,
                str(state.currency[s]),
                tokens,
                f"{len(claimed)} ({points} points)",
                str(len(state.contracts[s])),
            )
        return table

    def first_seat(self, game: Any, players: int) -> int:
        """The seat that plays first (``setup.first_seat``)."""
        return game.first_seat % players

    def turn_note(self, turn: MarketTurn) -> str:
        """What the person's turn asks for in its phase (choose, take, resolve a character, claim)."""
        notes = {
            CHOOSE: "choose the contract(s) you keep",
            TAKE: "take one face-up card, paying the cost of its place",
            RESOLVE: f"the character you took acts now ({turn.pending_op()}): choose how",
            CLAIM: "claim a face-up objective your wagons pay for, or end the turn",
            DONE: "the turn is over",
        }
        return notes.get(turn.phase, turn.phase)

    # ------------------------------------------------------------------ moves
    def legal_moves(self, turn: MarketTurn) -> list:
        """The engine's legal moves now (:meth:`~kbsim.engine.market.turn.MarketTurn.legal_moves`)."""
        return list(turn.legal_moves())

    def format(self, turn: MarketTurn, move: Any) -> str:
        """The move in the market notation."""
        return format_market_move(move, turn.game)

    def format_logged(self, game: Any, move: Any) -> str:
        """The move in the market notation (it needs no table)."""
        return format_market_move(move, game)

    def describe(self, turn: MarketTurn, move: Any) -> str:
        """The card, objective or contract a move names, and what a take costs."""
        g, st = turn.game, turn.state
        if move.op == "take" and 0 <= move.a < len(st.lines) and 0 <= move.b < len(g.costs):
            card = st.lines[move.a][move.b]
            cost = 0 if turn.phase == RESOLVE else g.costs[move.b]
            return f"{self._card(g, card)}, costs {cost}"
        if move.op == "claim" and 0 <= move.a < len(st.obj_visible) and st.obj_visible[move.a] >= 0:
            obj = g.objectives[st.obj_visible[move.a]]
            return f"{obj.name}, {obj.points} points"
        if move.op == "choose":
            return g.contracts[move.a].name
        if move.op == "end":
            return "end the turn" if turn.phase == CLAIM else "take nothing"
        return ""

    def parse(self, turn: MarketTurn, text: str) -> Any:
        """A move of the market notation (raises ``ValueError``)."""
        return parse_market_move(text, turn.game)

    def apply(self, turn: MarketTurn, move: Any) -> None:
        """Apply through the turn's one mutator (raises ``IllegalMove`` with the rule that refuses it)."""
        turn.apply(move)

    def done(self, turn: MarketTurn) -> bool:
        """Whether the turn (or the contract choice) is over."""
        return turn.phase == DONE

    def fork(self, turn: MarketTurn) -> None:
        """None: a market move is final once made, so the person's moves go to the turn itself."""
        return None

    def undo_refusal(self, turn: MarketTurn) -> str:
        """Always a reason: the market rules keep no move provisional."""
        return "every market move is final once made (a card taken is paid for, a claim hands in its wagons)"

    def rule_of(self, ctx: TableContext, turn: MarketTurn, move: Any) -> str:
        """The rule-file summaries of the rule a move follows (a character's move: that character)."""
        model, g = ctx.model, ctx.game
        if turn.phase == RESOLVE and turn.state.pending:
            key = g.kinds[turn.state.pending[-1]].key
            return rules_text(model, [(g.kinds[turn.state.pending[-1]].name, f"characters.{key}")])
        paths = {
            "choose": [("Contracts", "contracts")],
            "take": [("Taking", "turn.take"), ("Market", "market")],
            "claim": [("Claiming", "turn.claim"), ("Objectives", "objectives")],
            "end": [("Turn", "turn"), ("Claiming", "turn.claim")],
        }
        return rules_text(model, paths.get(move.op, [("Turn", "turn")]))

    # ------------------------------------------------------------------ hints, positions, logs
    def sandbox(self, turn: MarketTurn) -> MarketTurn:
        """The turn with decks and secret contracts hidden (:meth:`~kbsim.engine.market.turn.MarketTurn.sandbox`)."""
        sb = turn.sandbox()
        sb.log = []
        return sb

    def plan_note(self, before: MarketTurn, after: MarketTurn, moves: list) -> str:
        """What the plan takes, claims or chooses, in words."""
        bits = [d for m in moves if (d := self.describe(before, m)) and m.op != "end"]
        return "; ".join(bits) or "ends the turn"

    def position(self, state: Any) -> str:
        """16 hex digits of every zone of the state (:func:`kbsim.engine.market.game.state_digest`)."""
        return state_digest(state)

    def log_lines(self, game: Any, players: int, result: Any) -> list[str]:
        """``SEAT: MOVE; MOVE`` per log entry of a finished game (the contract choices first)."""
        return [join_line(seat, [format_market_move(m, game) for m in moves or []]) for seat, moves in result.log]


MARKET = MarketPart()
"""The market family's play part (named by :attr:`kbsim.engine.families.Family.play_ui`)."""

__all__ = ["MARKET", "MarketPart"]
