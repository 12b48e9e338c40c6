"""The one run path: plan chunks, pick a backend, resume, lock, show progress, write the output.

Used by ``kbsim run`` (one run) and by studies (:mod:`kbsim.sim.study`, one run per
cell and seat rotation). A run is opened with :func:`open_run` (which takes the
output's lock and finds the chunks already written), then played with
:func:`play_run`; its records stay on disk (:class:`kbsim.sim.output.RunOutput`)
and are read back with :mod:`kbsim.records`.

The records file's metadata carries what an analysis needs about the rules
(:func:`rules_metadata`), so reports never reload rule files.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbsim.sim.output import OutputError, RunOutput
from kbsim.sim.runner import (
    BACKENDS,
    GAME_NOTE,
    Backend,
    BackendError,
    DaskBackend,
    RunSpec,
    default_chunk_size,
    default_workers,
    display_names,
    iter_chunks,
    kill_all_workers,
    run_chunks,
)

__all__ = [
    "OpenRun",
    "OutputError",
    "RunFailed",
    "RunInterrupted",
    "make_backend",
    "open_run",
    "play_run",
    "progress_bar",
    "rules_metadata",
    "stop_on_signals",
]


class RunInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run; ``safe`` games of ``games`` are on disk in ``parts``.

    With ``safe == 0`` nothing was kept (the empty staging folder is removed): the run starts again from the
    beginning, without ``--resume``.
    """

    def __init__(self, safe: int, games: int, parts: Path):
        self.safe, self.games, self.parts = safe, games, parts
        super().__init__(f"{safe} of {games} games are safe in {parts}")


class RunFailed(Exception):
    """A run failed (a worker died, a disk filled up...); ``safe`` games of ``games`` are on disk in ``parts``.

    Attributes:
        cause: the exception that ended the run (its type and message are this exception's message).
        cell: which cell of a study the run plays, in words (``arm 'x · search', 3 players``), from
            :func:`kbsim.sim.study.run_study`; "" for a plain run.
        game: the game that raised, in words (``game 12 (deal seed 345, bots planner, planner)``), from the note
            :func:`kbsim.sim.runner.play_chunk` adds to an exception of a game; "" when the failure was not in a
            game (a disk, a worker that died).
    """

    def __init__(self, cause: BaseException, safe: int, games: int, parts: Path, cell: str = ""):
        self.cause, self.safe, self.games, self.parts, self.cell = cause, safe, games, parts, cell
        notes = [str(n) for n in getattr(cause, "__notes__", ()) or ()]
        self.game = next((n for n in notes if n.startswith(GAME_NOTE)), "").removeprefix(GAME_NOTE)
        super().__init__(f"{type(cause).__name__}: {cause}")

    @property
    def where(self) -> str:
        """Where the run failed, in words: the cell and the game, as far as known ("" when neither is)."""
        return ", ".join(x for x in (self.cell, self.game) if x)


def rules_metadata(loaded: Any, game: Any) -> dict[str, Any]:
    """What a records file tells an analysis about its rules (stored in its metadata, not a run parameter).

    Args:
        loaded: the :class:`kbsim.rules.loader.LoadedRules` played.
        game: the compiled rules (for the display names of character keys).

    Returns:
        A dict with ``names`` (display names of keys the records hold; left out when the rules name
        nothing) and ``rules``: ``defaults`` (option -> default value), ``variants`` (applied, in order),
        ``provisional`` (the reason, or None) and ``seats``: who deals (``dealer``), who plays first
        (``first_after_dealer``, counted from the dealer) and whether the deal moves on with each hand of a
        match (``dealer_moves``), for labels naming a seat's role (:mod:`kbsim.analysis.seats`).
    """
    from kbsim.rules.loader import load_rules

    defaults = load_rules(str(loaded.source)).options  # the rule file's own option values (no variant applied)
    meta: dict[str, Any] = {
        "rules": {
            "defaults": dict(defaults),
            "variants": list(loaded.variants),
            "provisional": getattr(loaded.model, "provisional", None),
            "seats": {
                "dealer": game.first_seat,
                "first_after_dealer": getattr(game, "first_player", 0),
                "dealer_moves": bool(getattr(game, "match_target", 0) and getattr(game, "match_rotate", False)),
            },
        }
    }
    names = display_names(game)
    if names:
        meta["names"] = names
    return meta


def make_backend(name: str, workers: int, scheduler: str | None = None) -> Backend:
    """The backend ``name`` (``serial``, ``processes`` or ``dask``) with ``workers`` workers.

    Raises:
        KeyError: unknown backend name.
    """
    if name == "dask":
        return DaskBackend(workers=workers, scheduler=scheduler)
    return BACKENDS[name](workers=workers if name != "serial" else 1)


@dataclass
class OpenRun:
    """A run whose output is open (locked): what is left to play.

    Attributes:
        spec: what to play.
        output: the records output (staging folder, chunks, final file).
        chunk_size: games per chunk.
        done_games: games already on disk (a resumed run).
        pending_games: games this run still has to play.
    """

    spec: RunSpec
    output: RunOutput
    chunk_size: int
    done_games: int = 0
    pending_games: int = 0
    _done: set = field(default_factory=set, repr=False)

    def pending(self) -> Iterator[range]:
        """The chunks still to play, made lazily (a huge run costs no memory before the first game)."""
        if self.output.complete:
            return iter(())
        return (c for c in iter_chunks(self.spec.games, self.chunk_size) if (c.start, c.stop) not in self._done)


def open_run(
    spec: RunSpec,
    out: Path,
    *,
    version: str,
    chunk_size: int | None = None,
    workers: int | None = None,
    resume: bool = False,
    extra_params: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
) -> OpenRun:
    """Open the output of a run and find what is left to play.

    Args:
        spec: what to play.
        out: the final Parquet file.
        version: kbsim version stored in the metadata.
        chunk_size: games per chunk (default: the interrupted run's on a resume, else
            :func:`kbsim.sim.runner.default_chunk_size`).
        workers: worker count the default chunk size is planned for (default: all cores).
        resume: complete an interrupted run with the same parameters.
        extra_params: parameters stored besides ``spec.parameters()`` and ``chunk_size`` (compared on resume).
        meta: more metadata (see :func:`rules_metadata`); not compared on resume.

    Raises:
        OutputError: the output belongs to another run, is locked, or its folder is missing.
        OSError: the output cannot be written.
    """
    stored = RunOutput.stored_parameters(out) if resume else None
    if chunk_size is None and stored and "chunk_size" in stored:
        chunk_size = stored["chunk_size"]  # a resume keeps the chunks of the interrupted run
    size = chunk_size or default_chunk_size(spec.games, workers or default_workers())
    params = spec.parameters() | {"chunk_size": size} | dict(extra_params or {})
    meta = dict(meta or {})
    output = RunOutput(out, params, version, resume=resume, names=meta.pop("names", None), extra=meta)
    done = output.done_chunks()
    done_games = sum(b - a for a, b in done)
    pending = 0 if output.complete else spec.games - done_games
    return OpenRun(spec=spec, output=output, chunk_size=size, done_games=done_games, pending_games=pending, _done=done)


@dataclass
class StopState:
    """What :func:`stop_on_signals` saw: the first signal (None: none yet), and the line a forced stop prints.

    Attributes:
        signum: the first SIGINT or SIGTERM received inside the block (None if none).
        received: how many were received.
        note: appended to ``kbsim: interrupted again; stopped at once`` when a second signal ends the process
            (e.g. where the finished chunks are and how to resume).
    """

    signum: int | None = None
    note: str = ""
    received: int = 0
    _depth: int = 0
    _linger: bool = False
    _redeliver: bool = False

    @property
    def exit_code(self) -> int:
        """The exit status of a process stopped by :attr:`signum` (128 + the signal number: 130 for Ctrl-C)."""
        return 128 + (self.signum or signal.SIGINT)


_STOP = StopState()
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


FORCE_AFTER = 3.0
"""Seconds a stop may still take after a second signal before the process ends at once."""


def _on_signal(signum: int, frame: Any) -> None:
    """SIGINT/SIGTERM inside :func:`stop_on_signals`.

    The first raises KeyboardInterrupt (a clean stop); the second kills the workers and gives the clean stop
    :data:`FORCE_AFTER` seconds more; a third (or that time running out) ends the process at once.
    """
    if _STOP._redeliver:  # the first signal's KeyboardInterrupt again (see _keep_interrupts): not a new signal
        _STOP._redeliver = False
        raise KeyboardInterrupt
    _STOP.received += 1
    if _STOP.received == 1:
        _STOP.signum = signum
        raise KeyboardInterrupt
    if _STOP.received == 2:
        kill_all_workers()
        timer = threading.Timer(FORCE_AFTER, _force_stop)
        timer.daemon = True
        timer.start()
        return
    _force_stop()


def _force_stop() -> None:
    """End the process now (exit 128 + the first signal), after killing the workers.

    Nothing is lost that a clean stop would keep: chunk files and the final file are written atomically
    (temporary file, then rename; a resume removes leftover temporaries) and the output's lock is released by
    the operating system with the process.
    """
    kill_all_workers()
    note = f"; {_STOP.note}" if _STOP.note else ""
    with contextlib.suppress(OSError):
        os.write(2, f"kbsim: interrupted again; stopped at once{note}\n".encode(errors="replace"))
    # release the pools' named semaphores as a normal exit would (else the resource tracker warns of leaks);
    # in a daemon thread, as it takes locks a stuck thread might hold: the exit waits 0.5 s at most
    from multiprocessing import util

    cleanup = threading.Thread(target=util._run_finalizers, args=(0,), daemon=True)
    cleanup.start()
    cleanup.join(0.5)
    os._exit(_STOP.exit_code)


def _keep_interrupts(unraisable: Any) -> None:
    """``sys.unraisablehook`` inside :func:`stop_on_signals`: raise a lost KeyboardInterrupt again.

    A KeyboardInterrupt raised where Python cannot propagate it (a finalizer such as ``ParquetWriter.__del__``
    running when the signal came) is raised again in the main thread at once, instead of being printed and lost
    (the run then went on until its next chunk). Anything else goes to the previous hook.
    """
    if issubclass(unraisable.exc_type, KeyboardInterrupt) and _STOP._depth:
        # from a timer thread: called here, the handler would raise inside this hook (and be lost again); if the
        # main thread still handles it before the hook returns (a loaded machine), try again with a longer delay
        for delay in (0.01, 0.1, 0.5, 1.0):
            _STOP._redeliver = True
            try:
                timer = threading.Timer(delay, _thread.interrupt_main, (signal.SIGINT,))
                timer.daemon = True
                timer.start()
                return
            except KeyboardInterrupt:
                continue
        return
    _PREVIOUS_UNRAISABLE_HOOK(unraisable)


_PREVIOUS_UNRAISABLE_HOOK = sys.unraisablehook


@contextlib.contextmanager
def stop_on_signals(linger: bool = False) -> Iterator[StopState]:
    """Let SIGINT (Ctrl-C) and SIGTERM stop runs inside the block, in bounded time, keeping what is safe.

    The first signal raises ``KeyboardInterrupt`` where the program is (:func:`play_run` turns it into
    :class:`RunInterrupted` after stopping the workers and keeping the finished chunks). A second signal kills
    the workers at once and lets the clean stop finish, but ends the process after :data:`FORCE_AFTER`
    seconds whatever it is doing; a third ends it at once (:func:`_force_stop`). So no sequence of Ctrl-C and
    SIGTERM can leave kbsim hanging.

    Nested blocks use the outermost one's state. Outside the main thread (where Python cannot handle
    signals) the block does nothing. A signal ignored when the block starts (``nohup``, a background job of a
    non-interactive shell) stays ignored.

    Args:
        linger: keep the handlers after the block if a signal was received (a command that is exiting
            because of it: a further signal during the exit still ends the process at once).

    Yields:
        The :class:`StopState` (set its ``note`` to say how to resume).
    """
    if threading.current_thread() is not threading.main_thread():
        yield StopState()
        return
    if _STOP._depth:
        _STOP._depth += 1
        try:
            yield _STOP
        finally:
            _STOP._depth -= 1
        return
    previous = {}
    for sig in _STOP_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is not signal.SIG_IGN:
            previous[sig] = handler
            signal.signal(sig, _on_signal)
    _STOP.signum, _STOP.note, _STOP.received, _STOP._depth, _STOP._linger = None, "", 0, 1, linger
    _STOP._redeliver = False
    global _PREVIOUS_UNRAISABLE_HOOK
    _PREVIOUS_UNRAISABLE_HOOK, sys.unraisablehook = sys.unraisablehook, _keep_interrupts
    try:
        yield _STOP
    finally:
        _STOP._depth = 0
        sys.unraisablehook = _PREVIOUS_UNRAISABLE_HOOK
        if not (linger and _STOP.signum is not None):
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def play_run(
    run: OpenRun,
    backend: Backend,
    on_games: Callable[[int], None] | None = None,
    upto: int | None = None,
    cell: str = "",
) -> float:
    """Play the pending chunks of ``run`` on ``backend`` and write the final file.

    Args:
        run: from :func:`open_run`.
        backend: from :func:`make_backend`.
        on_games: called with the number of games of each chunk written.
        upto: play only the chunks that start below this game index (a look of a study run until decided); the
            run then stays unfinished (its chunks kept for the next look or a resume) unless every chunk is done.
        cell: which cell of a study the run plays, in words (``arm 'x · search', 3 players``), for a failure.

    Returns:
        Seconds spent playing and writing.

    Raises:
        RunInterrupted: Ctrl-C or SIGTERM; finished chunks are kept for a resume.
        BackendError: the backend cannot run (nothing was played; an empty staging folder is removed).
        RunFailed: any other failure (naming ``cell`` and the game that raised); finished chunks are kept.
    """
    output = run.output

    def write(chunk: range, cols: dict[str, list]) -> None:
        output.write_chunk(chunk, cols)
        if on_games is not None:
            on_games(len(chunk))

    with stop_on_signals() as stop:
        t0 = time.perf_counter()
        try:
            chunks = run.pending() if upto is None else (c for c in run.pending() if c.start < upto)
            if run.pending_games:
                run_chunks(run.spec, backend, chunks, write)
            seconds = time.perf_counter() - t0
            if upto is None or output.games_safe() >= run.spec.games:
                output.finalize()
            else:
                output.close()
        except KeyboardInterrupt:
            output.discard_if_empty()
            raise RunInterrupted(output.games_safe(), run.spec.games, output.parts) from None
        except BackendError:
            output.discard_if_empty()
            raise
        except Exception as e:  # a worker died, a disk filled up... (or killed by the signal that stops us)
            output.discard_if_empty()
            if stop.signum is not None:
                raise RunInterrupted(output.games_safe(), run.spec.games, output.parts) from None
            raise RunFailed(e, output.games_safe(), run.spec.games, output.parts, cell) from e
    return seconds


@dataclass
class _Bar:
    bar: Any
    task: Any

    def advance(self, games: int) -> None:
        """Count ``games`` more games as done."""
        self.bar.advance(self.task, games)

    def update(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` games."""
        self.bar.update(self.task, total=total, completed=done)


@contextlib.contextmanager
def progress_bar(console: Any, total: int | None, completed: int = 0) -> Iterator[_Bar]:
    """Show a transient rich progress bar of games on ``console``.

    Yields an object with ``advance(games)`` and ``update(done, total)``.

    Args:
        console: a :class:`rich.console.Console` (stderr).
        total: games in all (None: unknown until the first ``update``).
        completed: games already done.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[bold]playing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("games", total=total, completed=completed)
        yield _Bar(bar, task)
