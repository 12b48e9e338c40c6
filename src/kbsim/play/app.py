"""The terminal interface of ``kbsim play``, on Textual.

Why Textual: it is a well-kept text-UI framework (layout, focus, key bindings, scrolling lists and logs) that
draws Rich renderables, which kbsim already uses for its console output; it runs the same app headless under a
test pilot (:meth:`textual.app.App.run_test`), so whole games are tested by pressed keys; it saves SVG
screenshots, which the docs show; and ``textual serve`` (the ``textual-dev`` tools) serves the same app in a
browser. Rich with prompt_toolkit would have meant writing the layout, focus and redrawing by hand.

The app is generic: it shows what the session sends (:class:`kbsim.play.session.Update`: a drawing of the table
made by the family's play part, the legal moves as text) and sends back commands. It names no game and no family.

Keys: arrows and Enter pick a listed move, digits jump to a move by its number, ``:`` types a move in the notation,
``u`` undoes a provisional move, ``?`` shows the rule of the highlighted move, ``h`` asks the hint bot, ``q`` (or
Ctrl-C) saves and quits. A closed terminal (SIGHUP) or SIGTERM saves and quits too (the saved game is written
after every move anyway).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from kbsim.play.session import GameSession, Update

DIGIT_PAUSE = 1.5
"""Seconds after which the next digit starts a new move number."""


class SessionEvent(Message):
    """Something the game thread told the app (posted thread-safely, handled on the app's loop)."""

    def __init__(self, kind: str, data: Any, select: int | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.data = data
        self.select = select


class _AppListener:
    """The session's :class:`~kbsim.play.session.Listener`: every call becomes a :class:`SessionEvent`."""

    def __init__(self, app: PlayApp):
        self.app = app

    def update(self, update: Update) -> None:
        self.app.post_message(SessionEvent("update", update))

    def message(self, text: str, kind: str, select: int | None = None) -> None:
        self.app.post_message(SessionEvent("message", (kind, text), select))

    def finished(self, lines: list[str]) -> None:
        self.app.post_message(SessionEvent("finished", lines))

    def failed(self, text: str) -> None:
        self.app.post_message(SessionEvent("failed", text))


class PlayApp(App):
    """The ``kbsim play`` app.

    Args:
        make_session: builds the game's session for a listener (the app's).
        title: the header line (game, variant, players, seed).
        handle_signals: save and quit on SIGHUP and SIGTERM (the command line; not in tests).

    Attributes:
        prompt: the id of the prompt shown (0 while the bots play).
        listed: the legal moves shown, ``(notation, words)``.
        hinted: the listed move the last hint starts with, or None.
        messages: every message shown, ``(kind, text)``.
        outcome: what happened, for the command line to print after the app closed: ``finished``, ``saved`` or
            ``failed``, and the lines to print.
    """

    CSS = """
    #main { height: 1fr; }
    #table-pane { width: 2fr; }
    #side { width: 1fr; min-width: 36; }
    #note { height: auto; padding: 0 1; color: $text-muted; }
    #moves { height: 1fr; }
    #log { height: 9; border-top: solid $primary; }
    #message { height: auto; max-height: 8; padding: 0 1; }
    #message.refusal { color: $error; }
    #message.hint { color: $success; }
    """

    BINDINGS = [
        Binding("q", "save_quit", "save & quit"),
        Binding("ctrl+c", "save_quit", "save & quit", show=False, priority=True),
        Binding("h", "hint", "hint"),
        Binding("question_mark", "rule", "rule of move"),
        Binding("u", "undo", "undo"),
        Binding("colon", "type_move", "type a move"),
        Binding("escape", "to_list", "moves list", show=False),
    ]

    def __init__(self, make_session: Callable[[Any], GameSession], title: str, handle_signals: bool = False):
        super().__init__()
        self._make_session = make_session
        self.session: GameSession | None = None
        self.game_title = title
        self.handle_signals = handle_signals
        self.prompt = 0
        self.listed: list[tuple[str, str]] = []
        self.last_update: Update | None = None
        self.hinted: int | None = None
        self.messages: list[tuple[str, str]] = []
        self.outcome: tuple[str, list[str]] = ("saved", [])
        self._digits = ""
        self._digit_timer: Any = None
        self._quitting = False

    def compose(self) -> ComposeResult:
        """Header, the table beside the moves, the log, the message line, the keys."""
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with VerticalScroll(id="table-pane"):
                yield Static(id="table")
            with Vertical(id="side"):
                yield Static(id="note")
                yield OptionList(id="moves")
                yield Input(placeholder="type a move (Enter plays it, Esc back)", id="notation")
        yield RichLog(id="log", max_lines=1000, wrap=True)
        yield Static(id="message")
        yield Footer()

    def on_mount(self) -> None:
        """Start the game (in its own thread) and, from the command line, the signal handlers."""
        self.title = "kbsim play"
        self.sub_title = self.game_title
        self.query_one("#moves", OptionList).focus()
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(self.action_save_quit()))
            loop.add_signal_handler(signal.SIGHUP, self._hang_up)
        self.session = self._make_session(_AppListener(self))
        self.session.start()

    # ------------------------------------------------------------------ what the game says
    def on_session_event(self, event: SessionEvent) -> None:
        """Show an update, a message, the end of the game or a failure."""
        if event.kind == "update":
            self._show_update(event.data)
        elif event.kind == "message":
            kind, text = event.data
            self._say(text, kind)
            if kind == "hint":
                self.hinted = event.select
            if event.select is not None and self.prompt:
                self.query_one("#moves", OptionList).highlighted = event.select
        elif event.kind == "finished":
            self.outcome = ("finished", list(event.data))
            self._say("\n".join([*event.data, "press q to leave"]), "info")
        elif event.kind == "failed":
            self.outcome = ("failed", [str(event.data)])
            self.prompt = 0
            self._say(f"{event.data}\npress q to leave", "refusal")

    def _show_update(self, up: Update) -> None:
        self.last_update = up
        self.query_one("#table", Static).update(up.drawing)
        self.query_one("#note", Static).update(Text(up.status))
        log = self.query_one("#log", RichLog)
        width = max(40, log.scrollable_content_region.width - 1)  # (wrapped to the log's width, not 78 columns)
        for line in up.log:
            log.write(Text(line), width=width)
        moves = self.query_one("#moves", OptionList)
        self.prompt = up.prompt
        self.listed = list(up.moves)
        self.hinted = None
        moves.clear_options()
        if up.prompt:
            options = []
            for i, (text, words) in enumerate(up.moves):
                label = Text(f"{i + 1:>3}. {text}")
                if words:
                    label.append(f"  {words}", style="dim")
                options.append(Option(label))
            moves.add_options(options)
            if options:
                moves.highlighted = 0
        self._digits = ""

    def _say(self, text: str, kind: str) -> None:
        self.messages.append((kind, text))
        msg = self.query_one("#message", Static)
        msg.set_classes(kind)
        msg.update(Text(text))

    # ------------------------------------------------------------------ what the person does
    def _send(self, *command: Any) -> None:
        if self.session is not None and self.prompt:
            self.session.send((command[0], self.prompt, *command[1:]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a listed move: play it."""
        self._send("pick", event.option_index)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A typed move: play it (the engine's refusal is shown if it is illegal)."""
        text = event.value.strip()
        event.input.value = ""
        if text:
            self._send("type", text)

    def on_key(self, event: Any) -> None:
        """Digits (outside the input line) jump to the move with that number."""
        if self.focused is self.query_one("#notation", Input) or not (event.character or "").isdigit():
            return
        event.stop()
        self._digits += event.character
        if self._digit_timer is not None:
            self._digit_timer.stop()
        self._digit_timer = self.set_timer(DIGIT_PAUSE, self._clear_digits)
        n = int(self._digits)
        if 1 <= n <= len(self.listed):
            self.query_one("#moves", OptionList).highlighted = n - 1
        else:
            self._say(f"no move {n}: the list has {len(self.listed)}", "refusal")
            self._digits = ""

    def _clear_digits(self) -> None:
        self._digits = ""

    def action_hint(self) -> None:
        """Ask the hint bot."""
        self._send("hint")

    def action_undo(self) -> None:
        """Take back the last provisional move."""
        self._send("undo")

    def action_rule(self) -> None:
        """The rule of the highlighted move (or of the move typed in the input line)."""
        typed = self.query_one("#notation", Input).value.strip()
        index = self.query_one("#moves", OptionList).highlighted
        if typed:
            self._send("rule", typed)
        elif index is not None:
            self._send("rule", index)

    def action_type_move(self) -> None:
        """Move the focus to the input line."""
        self.query_one("#notation", Input).focus()

    def action_to_list(self) -> None:
        """Move the focus back to the list of moves."""
        self.query_one("#moves", OptionList).focus()

    def _hang_up(self) -> None:
        """The terminal went away (SIGHUP): stop the game (it is saved) and leave at once.

        There is no terminal left to restore, and Textual's orderly exit would wait for output that can no longer
        be written, so the process ends here, after the game thread has stopped (no saved game is half written).
        """
        if self.session is not None:
            self.session.stop()
            self.session.join(10)
        os._exit(128 + signal.SIGHUP)

    async def action_save_quit(self) -> None:
        """Stop the game (saved after every move) and leave; the command line says how to resume."""
        if self._quitting:
            return
        self._quitting = True
        if self.session is not None:
            self.session.stop()
            await asyncio.to_thread(self.session.join, 10)
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGHUP, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        self.exit()


__all__ = ["PlayApp", "SessionEvent"]
