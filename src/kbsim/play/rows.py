"""The rows family's play part (Kingsbridge, King's Corners): its table, moves and rules for ``kbsim play``.

The table is drawn the way the rulebooks lay it out: the row cards side by side, each row's cards running down
from its row card (grouped and named as the rule file's slot groups are, e.g. side piles and corners), then every
seat's counts, the discard pile, the characters, and the person's own hand. Only what the person's seat may see is
drawn: other seats' hands and every draw pile are counts, never cards.

Moves are the engine's (:meth:`kbsim.engine.rows.turn.Turn.legal_moves`), written in the rows notation
(:mod:`kbsim.engine.rows.notation`). The person's moves are made on a copy of the turn (:meth:`RowsPart.fork`)
and handed to the real turn when the turn ends, so moves the rules keep provisional (rule file:
``turn.lay_out.provisional_until_laid``) can be taken back until the turn's minimum is laid.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kbsim.engine.rows.game import replay_hands
from kbsim.engine.rows.moves import (
    EndTurn,
    Exchange,
    FillGap,
    Lay,
    LayParked,
    LayStart,
    Minus,
    Pass,
    Play,
    Rebuild,
    Swap,
)
from kbsim.engine.rows.notation import format_move, parse_move
from kbsim.engine.rows.turn import DONE, Turn
from kbsim.play.base import TableContext, digest, rules_text
from kbsim.play.script import join_line

# The rule-file paths whose summaries say what each kind of move does (``?`` in the app).
_RULES: dict[type, list[tuple[str, str]]] = {
    Lay: [("Laying out", "turn.lay_out"), ("Rows", "table.rows")],
    Rebuild: [("Rebuilding", "turn.lay_out.rebuild"), ("Rows", "table.rows")],
    EndTurn: [("Laying out", "turn.lay_out"), ("Refill", "turn.refill")],
    Exchange: [("Exchange", "turn.exchange"), ("Refill", "turn.refill")],
    Pass: [("Pass", "turn.pass")],
    Minus: [("Minus pile", "turn.minus")],
    LayStart: [("Characters", "characters")],
    FillGap: [("Characters", "characters")],
    LayParked: [("Characters", "characters")],
}


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


class RowsPart:
    """The rows family's part of ``kbsim play`` (the interface of :class:`kbsim.play.base.PlayPart`)."""

    family = "rows"
    hint_bot = "planner"

    # ------------------------------------------------------------------ drawing
    def draw(self, ctx: TableContext, state: Any, on_turn: int, turn: Turn | None) -> RenderableType:
        """The table as seat ``ctx.seat`` sees it (rows, seats, discard, characters, own hand).

        Args:
            ctx: rules and seats.
            state: the :class:`~kbsim.engine.rows.state.GameState` (read only; other seats' hands and the draw
                piles are drawn as counts).
            on_turn: the seat to play.
            turn: the person's turn while it is theirs (for the cards parked earlier), else None.

        Returns:
            A Rich renderable.
        """
        g = ctx.game
        parts: list[RenderableType] = [self._rows_table(ctx, state), self._seats_table(ctx, state, on_turn)]
        extra = []
        if state.shared:
            extra.append(f"stock: {_count(len(state.piles[0]), 'card')}")
        extra.append(f"discard pile: {_count(len(state.discard), 'card')}")
        if g.chars_enabled and g.chars_display_mode:
            shown = ", ".join(self._char_name(g, k) for k in state.display) or "none"
            extra.append(f"characters face up: {shown}; face down: {len(state.char_deck)}; out: {len(state.box)}")
        if state.joker is not None:
            where = [f"row {r + 1} as {g.card_text(-c)}" for r, row in enumerate(state.rows) for c in row if c < 0]
            extra.append(f"joker {self._char_name(g, state.joker)} in {', '.join(where)}")
        parts.append(Text("   ".join(extra)))
        hand = sorted(state.hands[ctx.seat], key=lambda c: (g.value(c), c))
        line = Text(f"your hand ({len(hand)}): ", style="bold")
        line.append_text(self._cards_text(ctx, hand) if hand else Text("empty"))
        parked = [c for c, _ in state.parked[ctx.seat]]
        if parked:
            line.append("   parked: ")
            line.append_text(self._cards_text(ctx, parked))
        parts.append(line)
        return Group(*parts)

    def _char_name(self, g: Any, key: str) -> str:
        return g.character(key).name if key in g.roster_by_key else key

    def _card(self, ctx: TableContext, card: int) -> Text:
        """One card, coloured by its suit's colour in the rule file (red suits red)."""
        g = ctx.game
        text = g.card_text(card)
        style = ""
        if g.suit_codes and card > 0:
            colours = {s.symbol: s.colour for s in (ctx.model.cards.suits or [])}
            style = "bold red" if colours.get(text[-1:]) == "red" else "bold"
        elif card < 0:
            style = "bold magenta"
        return Text(text, style=style)

    def _cards_text(self, ctx: TableContext, cards: list[int]) -> Text:
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(" ")
            out.append_text(self._card(ctx, c))
        return out

    def _rows_table(self, ctx: TableContext, state: Any) -> Table:
        """The row cards side by side, each row's cards running down from it (groups as the rule file names them)."""
        g = ctx.game
        groups = [grp.name for grp in (ctx.model.table.rows.groups or [])]
        table = Table(title="table", title_justify="left", show_lines=False, pad_edge=False, expand=False)
        for r in range(len(state.rows)):
            if r >= state.n_fixed:
                head = f"extra {r + 1}"
            elif groups and r < len(g.row_group):
                head = f"{r + 1} {groups[g.row_group[r]]}"
            else:
                head = f"row {r + 1}"
            table.add_column(head, justify="center", min_width=4)
        cells = []
        for r, row in enumerate(state.rows):
            if row:
                cell = Text("\n").join(self._card(ctx, c) for c in row)
            else:
                cell = Text(f"empty\n({g.opening_text(r)})" if r < state.n_fixed else "empty", style="dim")
            cells.append(cell)
        table.add_row(*cells)
        return table

    def _seats_table(self, ctx: TableContext, state: Any, on_turn: int) -> Table:
        """Each seat's public counts: hand, draw pile, parked cards, minus pile, top character of its pile."""
        g = ctx.game
        table = Table(title="seats", title_justify="left", pad_edge=False)
        table.add_column("")
        table.add_column("seat")
        table.add_column("player")
        table.add_column("hand", justify="right")
        if not state.shared:
            table.add_column("draw pile", justify="right")
        table.add_column("parked")
        if g.minus_allowed:
            table.add_column("minus", justify="right")
        piles = g.chars_enabled and not g.chars_display_mode
        if piles:
            table.add_column("characters (top of pile)")
        for s in range(ctx.players):
            row: list[RenderableType] = [
                "▶" if s == on_turn else "",
                str(s),
                Text(ctx.who(s), style="bold" if s == ctx.seat else ""),
                str(len(state.hands[s])),
            ]
            if not state.shared:
                row.append(str(len(state.piles[s])))
            row.append(self._cards_text(ctx, [c for c, _ in state.parked[s]]) if state.parked[s] else Text(""))
            if g.minus_allowed:
                row.append(str(len(state.minus[s])))
            if piles:
                pile = state.char_piles[s]
                row.append(f"{self._char_name(g, pile[0])} (+{len(pile) - 1})" if pile else "none")
            table.add_row(*row)
        return table

    def first_seat(self, game: Any, players: int) -> int:
        """The seat that plays first: ``setup.deal.first_player`` counted from the dealer."""
        return (game.first_seat + game.first_player) % players

    def turn_note(self, turn: Turn) -> str:
        """Where the person's turn stands: cards laid, what is still needed, what is provisional."""
        bits = [f"laid {turn.laid} this turn"]
        if turn.needed > 0 and turn.phase != DONE:
            bits.append(f"lay {turn.needed} more hand card(s) before you may end the turn")
        elif turn.can_end():
            bits.append("you may end the turn")
        if turn.provisional:
            bits.append("your moves so far are provisional (u takes them back)")
        return "; ".join(bits)

    # ------------------------------------------------------------------ moves
    def legal_moves(self, turn: Turn) -> list:
        """The engine's legal moves now (:meth:`~kbsim.engine.rows.turn.Turn.legal_moves`)."""
        return turn.legal_moves()

    def format(self, turn: Turn, move: Any) -> str:
        """The move in the rows notation, written against the turn's rows (a rebuild as ``from V``)."""
        return format_move(move, turn.rows, turn.g)

    def format_logged(self, game: Any, move: Any) -> str:
        """The move in the notation without its table (a rebuild by its count of cards)."""
        return format_move(move, None, game)

    def describe(self, turn: Turn, move: Any) -> str:
        """Words for a character play (its name); other moves say it all in the notation."""
        if isinstance(move, Play):
            return turn.g.character(move.key).name
        return ""

    def parse(self, turn: Turn, text: str) -> Any:
        """A move of the rows notation, read against the turn's rows (raises ``ValueError``)."""
        return parse_move(text, turn.rows, turn.g)

    def apply(self, turn: Turn, move: Any) -> None:
        """Apply through the turn's one mutator (raises ``IllegalMove`` with the engine's reason)."""
        turn.apply(move)

    def done(self, turn: Turn) -> bool:
        """Whether the turn has ended (end, exchange, pass, minus pile, or out of cards)."""
        return turn.phase == DONE

    def fork(self, turn: Turn) -> Turn:
        """An exact copy of the turn (:meth:`~kbsim.engine.rows.turn.Turn.clone`) for the person's moves."""
        return turn.clone()

    def undo_refusal(self, turn: Turn) -> str:
        """Why the moves made so far cannot be taken back ("" when they are provisional)."""
        if turn.provisional:
            return ""
        if not turn.g.provisional_moves:
            return "these rules make every move final (rule file: turn.lay_out.provisional_until_laid is off)"
        return (
            "only moves made before the turn has laid its minimum of hand cards are provisional "
            "(rule file: turn.lay_out.provisional_until_laid); the moves of this turn are final"
        )

    def rule_of(self, ctx: TableContext, turn: Turn, move: Any) -> str:
        """The rule-file summaries of the rule a move follows (a character play: that character's power)."""
        model = ctx.model
        if isinstance(move, Play):
            return rules_text(model, [(turn.g.character(move.key).name, f"characters.roster.{move.key}")])
        if isinstance(move, Swap) and turn.state.joker is not None:
            key = turn.state.joker
            return rules_text(model, [(self._char_name(turn.g, key), f"characters.roster.{key}")])
        return rules_text(model, _RULES.get(type(move), []))

    # ------------------------------------------------------------------ hints, positions, logs
    def sandbox(self, turn: Turn) -> Turn:
        """The turn with hidden cards hidden (:meth:`~kbsim.engine.rows.turn.Turn.sandbox`), its moves logged."""
        sb = turn.sandbox()
        sb.log = []
        return sb

    def plan_note(self, before: Turn, after: Turn, moves: list) -> str:
        """What the plan did: cards laid, rows completed, an exchange, a pass, cards left in hand."""
        bits = []
        laid = after.laid - before.laid
        if laid:
            bits.append(f"lays {laid} hand card(s)")
        if after.completed > before.completed:
            bits.append(f"completes {after.completed - before.completed} row(s)")
        if after.rebuilds > before.rebuilds:
            bits.append(f"{after.rebuilds - before.rebuilds} rebuild(s)")
        if after.exchanged:
            bits.append("exchanges instead of laying")
        if after.passed:
            bits.append("passes")
        if after.minus_cards:
            bits.append("puts cards on the minus pile")
        if after.won:
            bits.append("goes out")
        return ", ".join(bits) or "lays nothing"

    def position(self, state: Any) -> str:
        """16 hex digits of every zone of the state (rows, hands, draw piles in order, characters...)."""
        return digest(
            (
                state.rows,
                state.hands,
                state.piles,
                state.discard,
                state.parked,
                state.minus,
                state.char_piles,
                state.display,
                state.char_deck,
                state.box,
                state.joker,
            )
        )

    def log_lines(self, game: Any, players: int, result: Any) -> list[str]:
        """``SEAT: MOVE; MOVE`` per turn of every hand, each move written against the rows it was made on."""
        out = []
        for ev in replay_hands(game, players, result):
            if ev[0] == "turn":
                _, _, seat, done, _ = ev
                out.append(join_line(seat, [format_move(m, rb, game) for m, rb in done]))
        return out


ROWS = RowsPart()
"""The rows family's play part (named by :attr:`kbsim.engine.families.Family.play_ui`)."""

__all__ = ["ROWS", "RowsPart"]
