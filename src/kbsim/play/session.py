"""A game between a person and bots: the family's own game loop in a thread, the person's seat waiting on commands.

The game is played by the very loop ``kbsim run`` uses (:meth:`kbsim.engine.families.Family.play_ui`), with the
bots of :mod:`kbsim.bots` in their seats and, in the person's seat, a player (:class:`_PersonSeat`) whose turns
wait for commands from the user interface: pick a listed move, type one in the notation, undo, ask for a hint or
for the rule of a move, quit. The deal, the bots' streams and so the whole game follow from the seed exactly as in
a run, and the result becomes a record through the one record builder.

Threads: the loop runs in a thread of its own (:meth:`GameSession.start`); everything that reads or changes the
game happens there. The interface gets drawings of the table (Rich renderables built in that thread from the
person's view only) through a :class:`Listener`, and sends commands with :meth:`GameSession.send`, which only
puts them in a queue. A command is tagged with the prompt it answers, so a key pressed while the bots played
never makes a move later.

Saving and resuming: after each of the person's moves the session writes the saved game
(:mod:`kbsim.play.store`): the setup and the person's moves. A resumed session replays those moves in the
person's seat (the bots replay themselves: same seed, same table), then checks a digest of the position against
the saved one before the person plays on, so a resume is exact or refused.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from rich.console import RenderableType

from kbsim import __version__
from kbsim.bots import make_bot
from kbsim.engine.families import family_of
from kbsim.engine.results import IllegalMove
from kbsim.play.base import HUMAN, TableContext
from kbsim.play.store import append_game, file_identity, save_path, write_save
from kbsim.sim.records import empty_columns
from kbsim.sim.run import rules_metadata
from kbsim.sim.runner import RunSpec, append_record, run_game


class Stopped(Exception):
    """The person quit (or the interface closed): the game thread stops; the game is saved."""


class ResumeError(Exception):
    """A saved game that does not replay to the position it was saved at (the message says where)."""


@dataclass(frozen=True)
class PlaySetup:
    """What game to play and who plays it.

    Attributes:
        game: a shipped game's name or a rule file's path.
        variants: variants applied, in order.
        options: rule options set (name -> value as in the rule file).
        players: seats.
        seat: the person's seat.
        bots: the player of every seat: a bot name, :data:`kbsim.play.base.HUMAN` in the person's seat.
        seed: the run seed (the deal is game ``game_index`` of that run, as in ``kbsim run``).
        game_index: the game's index in the run.
        hint_bot: the bot asked for hints.
        records: the records file the finished game is appended to.
        pace: seconds each bot turn is shown before the bot plays (0: at once).
    """

    game: str
    variants: tuple[str, ...]
    options: dict[str, Any]
    players: int
    seat: int
    bots: tuple[str, ...]
    seed: int
    game_index: int
    hint_bot: str
    records: str
    pace: float = 1.0

    @property
    def game_seed(self) -> int:
        """The game's own seed: the deal of game ``game_index`` of a run of this lineup (:func:`run_game`).

        The seats stay as the person chose them; the deal is the one ``kbsim run`` plays as that game index.
        """
        return run_game(self.seed, self.game_index, self.bots)[0]

    def as_json(self) -> dict[str, Any]:
        """The setup as JSON-able data (the ``setup`` of a saved game; ``pace`` is not kept)."""
        d = asdict(self)
        d.pop("pace")
        d["variants"] = list(self.variants)
        d["bots"] = list(self.bots)
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any], pace: float) -> PlaySetup:
        """Inverse of :meth:`as_json`.

        Raises:
            KeyError, TypeError: a field is missing or of the wrong kind.
        """
        return cls(
            game=str(data["game"]),
            variants=tuple(str(v) for v in data["variants"]),
            options=dict(data["options"]),
            players=int(data["players"]),
            seat=int(data["seat"]),
            bots=tuple(str(b) for b in data["bots"]),
            seed=int(data["seed"]),
            game_index=int(data["game_index"]),
            hint_bot=str(data["hint_bot"]),
            records=str(data["records"]),
            pace=pace,
        )


def game_record(setup: PlaySetup, rules_hash: str, game: Any, result: Any, moves: list[str]) -> dict[str, list]:
    """The record of a finished game of ``setup`` (column lists of one row), by the one record builder.

    Args:
        setup: the game's setup (seeds, seats and their players).
        rules_hash: the rules' hash (part of the run id).
        game: the compiled rules.
        result: the family's game result.
        moves: the move log (``SEAT: MOVE; MOVE`` per turn).

    Returns:
        The record as :func:`kbsim.sim.runner.append_record` builds it; the run id is that of a run of this one
        game (:class:`kbsim.sim.runner.RunSpec` of the setup's lineup and run seed).
    """
    cols = empty_columns(game.family)
    spec = RunSpec(game, setup.players, setup.bots, 1, setup.seed, rules_hash=rules_hash)
    append_record(
        cols,
        run_id=spec.run_id,
        index=setup.game_index,
        seed=setup.game_seed,
        game=game,
        players=setup.players,
        bots=list(setup.bots),
        result=result,
        moves=moves,
    )
    return cols


@dataclass(frozen=True)
class Update:
    """A new state of the table for the interface.

    Attributes:
        drawing: the table as the person's seat sees it.
        on_turn: the seat to play (-1 once the game is over).
        status: one line: whose turn, what the person's turn asks for.
        log: new lines of the move log (turns finished since the last update).
        prompt: the id of the prompt the person answers (0 while bots play).
        moves: the person's legal moves as ``(notation, words)``, in the engine's order (empty while bots play).
        can_undo: whether ``u`` can take back a move now.
    """

    drawing: RenderableType
    on_turn: int
    status: str
    log: list[str] = field(default_factory=list)
    prompt: int = 0
    moves: list[tuple[str, str]] = field(default_factory=list)
    can_undo: bool = False


class Listener(Protocol):
    """What the session tells the interface (called from the game thread; must not block for long)."""

    def update(self, update: Update) -> None:
        """The table changed (and, with a prompt, it is the person's turn)."""

    def message(self, text: str, kind: str, select: int | None = None) -> None:
        """A line for the person: ``refusal``, ``hint`` (``select``: the listed move it starts with), ``rule``."""

    def finished(self, lines: list[str]) -> None:
        """The game is over and its record written (``lines``: the result, where it was written)."""

    def failed(self, text: str) -> None:
        """The game cannot go on (a saved game that does not replay, a file that cannot be written...)."""


class _PersonSeat:
    """The person's seat: the player interface of :class:`kbsim.bots.base.Bot`, played through the session."""

    name = HUMAN

    def __init__(self, session: GameSession):
        self.session = session

    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """A new hand begins (several in a match)."""
        self.session._new_hand(seed)

    def play_turn(self, turn: Any) -> None:
        """Wait for the person's moves (or replay the saved ones)."""
        self.session._person_turn(turn)

    def watch_table(self, view: Any) -> None:
        """The table as the person's seat sees it, handed by the game loop at other seats' turns and at the end."""
        self.session._view = view


class _ShownBot:
    """A bot whose turns are shown: the table is drawn and held for the pace before the bot plays."""

    def __init__(self, bot: Any, session: GameSession, seat: int):
        self.bot = bot
        self.name = bot.name
        self.session = session
        self.seat = seat

    def new_game(self, game: Any, seat: int, players: int, seed: int) -> None:
        """Start the bot's game (its own stream from the seed, as in a run)."""
        self.bot.new_game(game, seat, players, seed)

    def play_turn(self, turn: Any) -> None:
        """Show the table, wait for the pace, let the bot play."""
        self.session._bot_turn(self.seat, turn)
        self.bot.play_turn(turn)


class GameSession:
    """One game of ``kbsim play`` (see the module docstring).

    Args:
        setup: the game and its players.
        listener: the interface to tell about the game.
        loaded: the :class:`kbsim.rules.loader.LoadedRules` of the setup.
        game: the compiled rules.
        saved: a saved game to resume (:func:`kbsim.play.store.read_save`), or None for a new game.

    Raises:
        kbsim.bots.UnknownBot: a bot name that is not a bot of the game's family.
    """

    def __init__(self, setup: PlaySetup, listener: Listener, loaded: Any, game: Any, saved: dict | None = None):
        self.setup = setup
        self.listener = listener
        self.loaded = loaded
        self.game = game
        self.family = family_of(game)
        self.part = self.family.part("play_ui")
        self.ctx = TableContext(game, loaded.model, setup.players, setup.bots, setup.seat)
        self.save_file = save_path(Path(setup.records))
        self.inbox: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.turns: list[list[str]] = []  # the person's finished turns (move texts)
        self.result: Any = None
        self.written: bool | None = None
        self.hand_seed = setup.game_seed
        self._script = deque(saved["turns"] if saved else [])
        self._pending: list[str] = list(saved["pending"]) if saved else []
        self._check: dict | None = saved["check"] if saved and saved["check"].get("at") else None
        self._prompt = 0
        self._played: list[tuple[int, Any]] = []  # (seat, turn) of every turn begun, in playing order
        self._shown = 0  # turns whose moves are in the interface's log
        self._hands = 0
        self._view: Any = None  # the table as the person's seat sees it (the game loop's last watch_table)
        self.seats = [
            _PersonSeat(self) if s == setup.seat else _ShownBot(make_bot(name, game.family), self, s)
            for s, name in enumerate(setup.bots)
        ]

    # ------------------------------------------------------------------ control (any thread)
    @property
    def replaying(self) -> bool:
        """True while a resumed game replays the person's saved moves (nothing is shown or paced)."""
        return bool(self._script) or bool(self._pending)

    def start(self) -> None:
        """Run the game in a thread of its own (a daemon: closing the program never waits for a bot)."""
        self.thread = threading.Thread(target=self.run, name="kbsim-play-game", daemon=True)
        self.thread.start()

    def send(self, command: tuple) -> None:
        """Queue a command for the person's turn (answered when the game thread reads it).

        Commands: ``("pick", prompt, index)``, ``("type", prompt, text)``, ``("undo", prompt)``,
        ``("hint", prompt)``, ``("rule", prompt, index_or_text)``.
        """
        self.inbox.put(command)

    def stop(self) -> None:
        """Stop the game (it is saved: the saved game is written after every move of the person)."""
        self.stopping.set()
        self.inbox.put(("quit",))

    def join(self, timeout: float | None = None) -> None:
        """Wait for the game thread to end (after :meth:`stop`, at most the end of a bot's turn)."""
        if self.thread is not None:
            self.thread.join(timeout)

    # ------------------------------------------------------------------ the game thread
    def run(self) -> None:
        """Play the game to its end and write its record; the body of the game thread."""
        try:
            if not self._script and not self._pending and self._check is None:
                self._save([], None)  # a new game: resumable from its first moment
            result = self.family.play(self.game, self.seats, self.setup.game_seed, log=True)
            self._finish(result)
        except Stopped:
            return
        except ResumeError as e:
            self.listener.failed(str(e))
        except Exception as e:  # an engine or bot bug, a full disk: say it, keep the saved game
            self.listener.failed(f"the game stopped: {type(e).__name__}: {e} (the game is saved up to your last move)")

    def _new_hand(self, seed: int) -> None:
        self.hand_seed = seed
        self._hands += 1

    def _begin(self, seat: int, turn: Any) -> None:
        self._played.append((seat, turn))

    def _new_log_lines(self, upto: int) -> list[str]:
        """Log lines of the turns begun before index ``upto`` of :attr:`_played` not yet shown."""
        lines = []
        for seat, turn in self._played[self._shown : upto]:
            moves = "; ".join(self.part.format_logged(self.game, m) for m in (turn.log or []))
            lines.append(f"seat {seat} ({self.ctx.who(seat)}): {moves or '-'}")
        self._shown = max(self._shown, upto)
        return lines

    def _show(self, seat: int, turn: Any, status: str, **prompt: Any) -> None:
        """Send the table as it is at the start of (or during) a turn of ``seat``.

        A bot's turn is masked for the bot's seat, so the table is drawn from the person's own view of it then
        (handed by the game loop just before, :meth:`_PersonSeat.watch_table`).
        """
        mine = seat == self.setup.seat
        state = turn.state if mine or self._view is None else self._view
        drawing = self.part.draw(self.ctx, state, seat, turn if mine else None)
        log = self._new_log_lines(len(self._played) - 1)
        self.listener.update(Update(drawing, seat, status, log, **prompt))

    def _bot_turn(self, seat: int, turn: Any) -> None:
        self._begin(seat, turn)
        if self.stopping.is_set():
            raise Stopped
        if self.replaying:
            return
        hand = f"hand {self._hands}, " if self._hands > 1 else ""
        self._show(seat, turn, f"{hand}seat {seat} ({self.ctx.who(seat)}) to play")
        if self.setup.pace > 0 and self.stopping.wait(self.setup.pace):
            raise Stopped

    def _person_turn(self, turn: Any) -> None:
        self._begin(self.setup.seat, turn)
        if self._script:
            self._replay_turn(turn, self._script.popleft())
            return
        part = self.part
        fork = part.fork(turn)
        work = fork if fork is not None else turn
        made: list[tuple[str, Any]] = []  # (text, move) of the moves made this turn
        if self._pending:
            for text in self._pending:
                made.append(self._replay_move(work, text, pending=True))
            self._pending = []
        if self._check is not None:
            self._verify(work.state, "prompt")
        while not part.done(work):
            self._save([t for t, _ in made], ("prompt", part.position(work.state)))
            work = self._ask(turn, work, made)
        if work is not turn:  # the moves made on the copy, now on the game itself (logged, counted)
            for text, move in made:
                try:
                    part.apply(turn, move)
                except IllegalMove as e:  # the copy and the game disagree: an engine bug
                    raise RuntimeError(
                        f"move {text!r} was legal on the copy of the turn but not on the game: {e}"
                    ) from None
        self.turns.append([t for t, _ in made])
        self._save([], ("commit", part.position(turn.state)))

    def _replay_turn(self, turn: Any, texts: list[str]) -> None:
        """Play a saved turn of the person again (a resume)."""
        for text in texts:
            self._replay_move(turn, text)
        self.turns.append(list(texts))
        if not self._script and not self._pending and self._check is not None:
            self._verify(turn.state, "commit")

    def _replay_move(self, turn: Any, text: str, pending: bool = False) -> tuple[str, Any]:
        where = f"turn {len(self.turns) + 1} of yours" + (" (unfinished)" if pending else "")
        try:
            move = self.part.parse(turn, text)
            self.part.apply(turn, move)
        except (ValueError, IllegalMove) as e:
            raise ResumeError(
                f"{self.save_file}: the saved game does not replay: move {text!r} of {where} is refused ({e}); "
                "were the rules, kbsim or the bots changed since it was saved?"
            ) from None
        return text, move

    def _verify(self, state: Any, at: str) -> None:
        """Compare the position reached by a resume with the saved one (at the same point of the game)."""
        check = self._check
        if check is None or check.get("at") != at:
            return
        self._check = None
        if self.part.position(state) != check.get("position"):
            raise ResumeError(
                f"{self.save_file}: the saved game replays to another position than it was saved at; "
                "were the rules, kbsim or the bots changed since it was saved?"
            )

    def _ask(self, turn: Any, work: Any, made: list[tuple[str, Any]]) -> Any:
        """Show the person's turn, wait for one command and carry it out; returns the working turn."""
        part = self.part
        self._prompt += 1
        moves = part.legal_moves(work)
        listed = [(part.format(work, m), part.describe(work, m)) for m in moves]
        can_undo = bool(made) and not part.undo_refusal(work)
        note = part.turn_note(work)
        if not moves:
            note += "; no legal move from here: u takes back your provisional moves"
        hand = f"hand {self._hands}, " if self._hands > 1 else ""
        self._show(
            self.setup.seat, work, f"{hand}your turn: {note}", prompt=self._prompt, moves=listed, can_undo=can_undo
        )
        while True:
            cmd = self.inbox.get()
            if cmd[0] == "quit" or self.stopping.is_set():
                raise Stopped
            if len(cmd) < 2 or cmd[1] != self._prompt:
                continue  # an answer to an earlier prompt (keys pressed while the bots played)
            kind = cmd[0]
            if kind == "hint":
                self._hint(work, moves)
                continue
            if kind == "rule":
                move = self._move_of(work, moves, cmd[2])
                if move is not None:
                    self.listener.message(part.rule_of(self.ctx, work, move), "rule")
                continue
            if kind == "undo":
                return self._undo(turn, work, made)
            if kind in ("pick", "type"):
                move = self._move_of(work, moves, cmd[2])
                if move is None:
                    continue
                text = part.format(work, move)
                try:
                    part.apply(work, move)
                except IllegalMove as e:
                    self.listener.message(f"{text}: refused: {e}", "refusal")
                    continue
                made.append((text, move))
                return work

    def _move_of(self, work: Any, moves: list, what: int | str) -> Any:
        """The listed move ``what`` (an index) or the move typed as ``what`` (text); None after telling why not."""
        if isinstance(what, int):
            if 0 <= what < len(moves):
                return moves[what]
            self.listener.message(f"no move {what + 1}: the list has {len(moves)}", "refusal")
            return None
        try:
            return self.part.parse(work, what.strip())
        except ValueError as e:
            self.listener.message(f"cannot read the move: {e}", "refusal")
            return None

    def _undo(self, turn: Any, work: Any, made: list[tuple[str, Any]]) -> Any:
        """Take back the last move of the turn where the rules keep it provisional; returns the working turn."""
        part = self.part
        why = "nothing to take back: you have made no move this turn" if not made else part.undo_refusal(work)
        if why:
            self.listener.message(f"undo: {why}", "refusal")
            return work
        made.pop()
        fresh = part.fork(turn)
        for _, move in made:
            part.apply(fresh, move)
        return fresh

    def _hint(self, work: Any, moves: list) -> None:
        """Ask the hint bot what it would do from here (on the seat's view only) and say it in one line."""
        part, name = self.part, self.setup.hint_bot
        try:
            bot = make_bot(name, self.game.family)
            bot.new_game(self.game, self.setup.seat, self.setup.players, self.hand_seed)
            sb = part.sandbox(work)
            bot.play_turn(sb)
            plan = list(sb.log or [])
        except Exception as e:  # a bot that cannot plan from here: say so, the game goes on
            self.listener.message(f"hint: the {name} bot failed: {type(e).__name__}: {e}", "refusal")
            return
        texts = [part.format_logged(self.game, m) for m in plan]
        first = next((i for i, m in enumerate(moves) if plan and m == plan[0]), None)
        note = part.plan_note(work, sb, plan)
        self.listener.message(f"{name} would play: {'; '.join(texts) or 'nothing'} ({note})", "hint", first)

    # ------------------------------------------------------------------ saving and the record
    def _save(self, pending: list[str], check: tuple[str, str] | None) -> None:
        data = {
            "version": __version__,
            "setup": self.setup.as_json(),
            "rules_hash": self.loaded.rules_hash,
            "turns": self.turns,
            "pending": pending,
            "check": {"at": check[0], "position": check[1]} if check else {"at": None, "position": None},
        }
        write_save(self.save_file, data)

    def _finish(self, result: Any) -> None:
        """Write the finished game's record, remove the saved game, show the end."""
        self.result = result
        setup, g = self.setup, self.game
        lines = self.part.log_lines(g, setup.players, result)
        cols = game_record(setup, self.loaded.rules_hash, g, result, lines)
        meta = {
            "version": __version__,
            "run": file_identity(g, setup.players, self.loaded.rules_hash),
            **rules_metadata(self.loaded, g),
        }
        self.written = append_game(Path(setup.records), cols, meta)
        self.save_file.unlink(missing_ok=True)
        drawing = self.part.draw(
            self.ctx, self._view if self._view is not None else self._played[-1][1].state, -1, None
        )
        self.listener.update(Update(drawing, -1, "the game is over", self._new_log_lines(len(self._played))))
        self.listener.finished(self.summary())

    def summary(self) -> list[str]:
        """Lines on the finished game: end, winners, scores or cards left, where the record went."""
        r, setup = self.result, self.setup
        won = ", ".join(f"seat {s} ({self.ctx.who(s)})" for s in r.winners) or "nobody"
        lines = [f"game over ({r.end_reason}) after {r.turns} turns; won by {won}"]
        for label, attr in (("scores", "scores"), ("penalties", "penalties"), ("cards left", "cards_left")):
            values = getattr(r, attr, None)
            if values:
                you = self.setup.seat
                lines.append(
                    f"{label}: " + ", ".join(f"seat {s}{' (you)' * (s == you)} {v}" for s, v in enumerate(values))
                )
        if getattr(r, "score", None) is not None:
            lines.append(f"team score: {r.score}")
        where = f"record of game {setup.game_index} (run seed {setup.seed})"
        lines.append(f"{where} added to {setup.records}" if self.written else f"{where} was already in {setup.records}")
        return lines


__all__ = ["GameSession", "Listener", "PlaySetup", "ResumeError", "Stopped", "Update", "game_record"]
