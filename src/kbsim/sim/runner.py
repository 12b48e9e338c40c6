"""Running many games: chunks of game indices, backends, records.

A run is planned as chunks of consecutive game indices. A chunk is the unit of
work of every backend: ``serial`` plays chunks in this process, ``processes``
(the default) in a pool of worker processes. Every game's seed depends only on
(run seed, game index), so the records are the same whatever the backend,
worker count or chunk size; they are always returned sorted by game index.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from kbsim.bots import make_bot
from kbsim.engine.families import family_of
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.game import deal_hash_of, play_game
from kbsim.engine.rows.usage import record as usage_record
from kbsim.engine.seeds import game_seed
from kbsim.sim.records import RECORDS_SCHEMA_VERSION, empty_columns


@dataclass(frozen=True)
class RunSpec:
    """What to play.

    Attributes:
        game: compiled rules.
        players: seats per game.
        bots: bot name per seat (length ``players``).
        games: number of games (>= 1).
        seed: run seed (>= 0).
        check: verify invariants after every move.
        rules_hash: :attr:`kbsim.rules.loader.LoadedRules.rules_hash` of the rules played (part of the run id,
            so records of edited rules never share an id or a resumed file with older ones).
        rotate: play a mixed lineup in every distinct seat rotation of each deal: game ``i`` is deal
            ``i // R`` (seed ``game_seed(seed, i // R)``) in rotation ``i % R`` (seat ``s`` gets
            ``bots[(s + r) % players]``), where R = ``len(seat_rotations(bots))``; ``games`` counts
            games, so a run of D deals has ``games = D * R``. Ignored for a lineup of one bot.
    """

    game: CompiledGame
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    check: bool = False
    rules_hash: str = ""
    rotate: bool = False

    @property
    def lineups(self) -> list[tuple[str, ...]]:
        """The lineups played in turn (one unless the run rotates a mixed lineup)."""
        return seat_rotations(self.bots) if self.rotate else [tuple(self.bots)]

    def game_of(self, i: int) -> tuple[int, tuple[str, ...]]:
        """(game seed, seat order) of game ``i``: :func:`run_game` of this run."""
        return run_game(self.seed, i, self.bots, rotate=self.rotate)

    def _identity(self) -> dict:
        """The parameters that decide the records (the run id is their hash)."""
        d = {
            "game": self.game.game,
            "variant": self.game.variant,
            "options": self.game.options,
            "players": self.players,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "rules_hash": self.rules_hash,
            "records_schema": RECORDS_SCHEMA_VERSION,
        }
        if len(self.lineups) > 1:
            d["rotations"] = len(self.lineups)
        params = bot_parameters(self.bots, self.game.family)
        if params:
            d["bot_parameters"] = params
        return d

    def parameters(self) -> dict:
        """The run's parameters as JSON-able data (for the records file's metadata)."""
        return self._identity() | {"run_id": self.run_id}

    @property
    def run_id(self) -> str:
        """A short hash of the parameters that determine the records: equal runs get equal ids."""
        d = self._identity()
        return hashlib.blake2b(json.dumps(d, sort_keys=True).encode(), digest_size=6).hexdigest()


def bot_parameters(bots: Iterable[str], family: str) -> dict[str, dict[str, Any]]:
    """Every parameter, defaults included, of each bot spec in ``bots`` that takes parameters.

    A canonical spec leaves out parameters at their default (``search``), so it names the same bot only while
    the defaults stay; a run's identity (:attr:`RunSpec.run_id`) holds these values too, so records played
    before a default changed are never reused as the new bot's.

    Args:
        bots: bot specs (canonical or not) of one family.
        family: the engine family (``rows``, ``market``).

    Returns:
        ``{spec: {parameter: value}}`` for the specs whose bot takes parameters (JSON-able; empty when none does);
        a spec the family's bots do not know (a person's seat, ``human``) is left out.
    """
    from kbsim.bots import bots_for
    from kbsim.bots.spec import parse_spec, validated

    out: dict[str, dict[str, Any]] = {}
    registry = bots_for(family)
    for spec in sorted(set(bots)):
        parsed = parse_spec(spec)
        if parsed.name not in registry:  # a seat no bot plays (a person, ``human``): no parameters to hold
            continue
        kwargs = validated(parsed, registry)[1]
        if kwargs:
            out[spec] = json.loads(json.dumps(kwargs, sort_keys=True, default=list))
    return out


def display_names(game: CompiledGame) -> dict[str, dict[str, str]]:
    """Display names a report needs that records hold as keys: ``{"characters": {key: name}}`` (may be empty)."""
    roster = getattr(game, "roster", ()) or ()
    return {"characters": {c.key: c.name for c in roster}} if roster else {}


def seat_rotations(lineup: tuple[str, ...] | list[str]) -> list[tuple[str, ...]]:
    """The distinct seat rotations of a lineup (rotation r gives seat s the bot ``lineup[(s + r) % P]``).

    A lineup of one bot has only itself.
    """
    lineup = tuple(lineup)
    out: list[tuple[str, ...]] = []
    for r in range(len(lineup)):
        rot = lineup[r:] + lineup[:r]
        if rot not in out:
            out.append(rot)
    return out or [lineup]


def run_game(
    run_seed: int, index: int, lineup: tuple[str, ...] | list[str], *, rotate: bool = True
) -> tuple[int, tuple[str, ...]]:
    """The game that ``index`` names in a run: its game seed and who sits where.

    The one mapping from (run seed, game index, lineup) to a game, used by ``kbsim run`` (its records'
    ``game_index``), ``kbsim replay`` and ``kbsim play``: game ``i`` is deal ``i // R`` (seed
    ``game_seed(run_seed, i // R)``) in seat rotation ``i % R`` of the lineup (seat ``s`` gets
    ``lineup[(s + r) % P]``), where R is the number of distinct rotations (:func:`seat_rotations`; 1 for a
    lineup of one bot, or when ``rotate`` is False, as with ``kbsim run --no-rotate``).

    Args:
        run_seed: the run seed, an int in ``[0, 2**63)``.
        index: the 0-based game index (it counts deals x seat rotations).
        lineup: the bot name per seat as given to the run (rotation 0).
        rotate: whether the run plays every seat rotation of each deal.

    Returns:
        ``(game seed, bot name per seat)``.
    """
    lus = seat_rotations(lineup) if rotate else [tuple(lineup)]
    return game_seed(run_seed, index // len(lus)), lus[index % len(lus)]


def plan_chunks(games: int, chunk_size: int) -> list[range]:
    """Split ``range(games)`` into consecutive chunks of at most ``chunk_size`` indices."""
    return list(iter_chunks(games, chunk_size))


def iter_chunks(games: int, chunk_size: int) -> Iterator[range]:
    """The chunks of :func:`plan_chunks`, made one at a time (constant memory for any ``games``)."""
    for a in range(0, games, chunk_size):
        yield range(a, min(a + chunk_size, games))


def _worker_init(pid: int) -> None:  # pragma: no cover - runs in worker processes
    """Worker initializer: ignore Ctrl-C and exit as soon as process ``pid`` (the kbsim command) is gone.

    Ctrl-C in a terminal reaches every process of the foreground group; the kbsim command alone decides what
    an interrupt does (it stops its workers, :func:`stop_pool`), so a worker never prints a traceback of its
    own. A worker also exits within half a second of its parent's death, even after ``kill -9``.
    """
    import signal
    import threading
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked while the process started

    def watch() -> None:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except OSError:
                pass
            time.sleep(0.5)

    threading.Thread(target=watch, name="kbsim-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the block starts worker processes; deliver them when it ends.

    A pool half-started when Ctrl-C arrives (a worker forked but not yet registered with its pool) leaves a
    process nobody stops, which later prints a traceback. So, in the main thread, a signal that arrives in the
    block is only noted, and raised again (to the handler in force before) once the block is done; and SIGINT
    is blocked meanwhile, so the processes started (the forkserver, the workers it forks) inherit it blocked
    and a Ctrl-C to the whole process group cannot stop them half-started; a worker then ignores SIGINT for
    good (:func:`_worker_init`).
    """
    import signal
    import threading

    held: list[int] = []
    previous: dict = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if handler is not signal.SIG_IGN and handler is not None:
                previous[sig] = signal.signal(sig, lambda signum, frame: held.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(held):
            signal.raise_signal(sig)


def start_method() -> str:
    """The multiprocessing start method of worker processes: ``forkserver`` where available, else ``spawn``.

    Never ``fork``: the parent may already run polars/pyarrow threads, and forking a
    threaded process may deadlock the child.
    """
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


_POOLS: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()  # the pools of this process not yet stopped


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started safely (:func:`start_method`) that die with this process.

    Worker processes ignore SIGINT (:func:`_worker_init`); stop the pool with :func:`stop_pool`.
    """
    method = start_method()
    if method == "forkserver":
        ctx = get_context("forkserver")
        ctx.set_forkserver_preload(["kbsim.sim.runner"])
    else:
        ctx = get_context(method)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),))
    _POOLS.add(pool)
    return pool


def _worker_processes(pool: ProcessPoolExecutor) -> list:
    """The worker processes of ``pool`` (``multiprocessing.Process`` objects).

    ``concurrent.futures`` keeps them in the private ``_processes`` mapping (Python 3.11-3.13; 3.14 adds
    ``terminate_workers()``); an empty list if that ever changes, and then the workers' parent watch
    (:func:`_worker_init`) still ends them when this process exits.
    """
    procs = getattr(pool, "_processes", None) or {}
    return list(procs.values())


def stop_pool(pool: ProcessPoolExecutor, timeout: float = 2.0) -> None:
    """Stop ``pool`` at once: cancel what is queued, end the workers (SIGTERM, then SIGKILL), wait for them.

    Work in progress is lost (a chunk is written by the parent only once it is complete, so nothing half-done
    reaches the disk). Bounded in time: about ``timeout`` seconds at most, whatever the workers were doing.
    """
    import time

    procs = _worker_processes(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    deadline = time.monotonic() + timeout
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(0.5)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:  # it notices the ended workers and returns; joined here so that exit never waits
        # (at least a second, even past the deadline: a manager still running at exit may close its wake-up pipe
        # while the interpreter's exit writes to it, and CPython 3.11 then prints "Exception ignored ... OSError:
        # [Errno 9] Bad file descriptor" after the clean-stop line; seen on a loaded machine)
        manager.join(max(1.0, deadline - time.monotonic()))
    _POOLS.discard(pool)


def kill_all_workers() -> None:
    """SIGKILL every worker of every pool of this process, without waiting (a forced stop)."""
    for pool in list(_POOLS):
        for p in _worker_processes(pool):
            with contextlib.suppress(Exception):
                p.kill()


def default_chunk_size(games: int, workers: int) -> int:
    """About eight chunks per worker, between 1 and 500 games each."""
    return max(1, min(500, games // max(1, workers * 8)))


def append_record(
    cols: dict[str, list],
    *,
    run_id: str,
    index: int,
    seed: int,
    game: CompiledGame,
    players: int,
    bots: list[str],
    result,
    moves: list[str] | None = None,
) -> None:
    """Append the record of one finished game to ``cols`` (the column lists of :func:`empty_columns`).

    The one place a game result becomes a record (``kbsim run`` and ``kbsim play``).

    Args:
        cols: column lists of the game's family, appended to in place.
        run_id: the run's id.
        index: the game's index in its run.
        seed: the game's own seed.
        game: the compiled rules played.
        players: seats.
        bots: the name of the player in each seat (``human`` for a person).
        result: the family's game result.
        moves: the move log in notation (games with a human seat); None or empty for bots only.
    """
    cols["run_id"].append(run_id)
    cols["game_index"].append(index)
    cols["seed"].append(seed)
    cols["game"].append(game.game)
    cols["variant"].append(game.variant)
    cols["options"].append(json.dumps(game.options, sort_keys=True))
    cols["players"].append(players)
    cols["bots"].append(list(bots))
    cols["winners"].append(list(result.winners))
    cols["end_reason"].append(result.end_reason)
    cols["turns"].append(result.turns)
    cols["passes"].append(result.passes)
    cols["character_plays"].append(
        [{"seat": seat, "character": key, "plays": k} for (seat, key), k in sorted(result.character_plays.items())]
    )
    cols["hands"].append(result.hands)
    cols["scores"].append(result.scores)
    for name, value in family_of(game).record_values(result).items():  # the family's own columns
        cols[name].append(value)
    cols["deal_hash"].append(result.deal_hash or deal_hash_of(game, players, seed))
    # market games: empty
    cols["rule_usage"].append(usage_record(getattr(result, "rule_usage", {}), getattr(result, "rule_legal", {})))
    cols["moves"].append(list(moves or []))
    cols["forced_turns"].append(result.forced_turns)
    cols["bar_yields"].append(result.bar_yields)
    cols["lead_changes"].append(result.lead_changes)
    cols["winner_leads_from"].append(result.winner_leads_from)
    cols["winner_behind_at_half"].append(result.winner_behind_at_half)


#: The start of the note :func:`play_chunk` adds to the exception of a game that failed (read by
#: :class:`kbsim.sim.run.RunFailed`).
GAME_NOTE = "kbsim game: "


def play_chunk(spec: RunSpec, chunk: range) -> dict[str, list]:
    """Play the games of ``chunk`` and return their records as column lists.

    Raises:
        Exception: whatever a game raised (an engine or bot error), with a note (:data:`GAME_NOTE`) naming the
            game index, its deal seed and its bots, so the failure can be replayed alone.
    """
    g = spec.game
    cols = empty_columns(g.family)
    run_id = spec.run_id
    i, seed, lineup = chunk.start, None, ()
    try:
        for i in chunk:
            seed, lineup = spec.game_of(i)
            bots = [make_bot(name, g.family) for name in lineup]
            r = play_game(g, bots, seed, check=spec.check)
            append_record(
                cols, run_id=run_id, index=i, seed=seed, game=g, players=spec.players, bots=list(lineup), result=r
            )
    except Exception as e:
        known = f" (deal seed {seed}, bots {', '.join(lineup)})" if seed is not None else ""
        e.add_note(f"{GAME_NOTE}game {i}{known}")
        raise
    return cols


def _play_chunk_task(spec: RunSpec, chunk: range) -> tuple[range, dict[str, list]]:
    return chunk, play_chunk(spec, chunk)


@dataclass
class Backend:
    """Serial backend: chunks played one after the other in this process.

    Every backend has ``map_chunks(spec, chunks)``, yielding ``(chunk, columns)``
    as chunks finish (in any order), and a ``workers`` count.
    """

    workers: int = 1
    name: str = field(default="serial", init=False)

    def map_chunks(self, spec: RunSpec, chunks: Iterable[range]) -> Iterator[tuple[range, dict[str, list]]]:
        """Play ``chunks``, yielding ``(chunk, columns)`` as each finishes (in any order)."""
        for chunk in chunks:
            yield chunk, play_chunk(spec, chunk)

    @contextlib.contextmanager
    def session(self) -> Iterator[Backend]:
        """Keep the backend's workers (a process pool, a Dask client) for every run played inside the block.

        Without a session each ``map_chunks`` call starts and stops its own; many short runs (a tuning search)
        would spend their time starting workers. The serial backend has nothing to keep.
        """
        yield self


@dataclass
class ProcessesBackend(Backend):
    """Chunks played by a pool of ``workers`` local processes.

    The pool is :func:`worker_pool` (never forked from a threaded parent; workers exit when the parent dies);
    a single chunk or worker plays in this process.
    """

    name: str = field(default="processes", init=False)
    _pool: ProcessPoolExecutor | None = field(default=None, init=False, repr=False)

    @contextlib.contextmanager
    def session(self) -> Iterator[Backend]:
        """One pool of workers for every run inside the block (see :meth:`Backend.session`).

        The pool ends with the block: its idle workers are shut down; on an interrupt or error they are stopped
        at once (:func:`stop_pool`), never waited for.
        """
        if self._pool is not None or self.workers <= 1:
            yield self
            return
        pool = self._pool = worker_pool(self.workers)
        finished = False
        try:
            yield self
            finished = True
        finally:
            self._pool = None
            if finished:
                pool.shutdown(wait=True)
                _POOLS.discard(pool)
            else:
                stop_pool(pool)

    def map_chunks(self, spec: RunSpec, chunks: Iterable[range]) -> Iterator[tuple[range, dict[str, list]]]:
        """Play ``chunks``, yielding ``(chunk, columns)`` as each finishes (in any order)."""
        pending = iter(chunks)
        first = list(itertools.islice(pending, 2))
        if self.workers <= 1 or len(first) <= 1:
            yield from Backend.map_chunks(self, spec, itertools.chain(first, pending))
            return
        kept = self._pool  # a session's pool outlives this run
        pool = kept or worker_pool(self.workers)
        in_flight: set = set()
        finished = False
        try:
            # keep a bounded number of chunks in flight so memory stays flat on huge runs
            pending = itertools.chain(first, pending)
            with _signals_held():  # the first submissions start the worker processes
                for chunk in pending:
                    in_flight.add(pool.submit(_play_chunk_task, spec, chunk))
                    if len(in_flight) >= self.workers * 4:
                        break
            while in_flight:
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
                    nxt = next(pending, None)
                    if nxt is not None:
                        in_flight.add(pool.submit(_play_chunk_task, spec, nxt))
            finished = True
        finally:
            if kept is not None:  # the session ends the pool; a run closed early drops its queued chunks
                for f in in_flight:
                    f.cancel()
            elif finished:  # every worker is idle
                pool.shutdown(wait=True)
                _POOLS.discard(pool)
            else:  # interrupted, failed, or closed by the caller: end the workers now, never wait for their chunks
                stop_pool(pool)


@dataclass
class DaskBackend(Backend):
    """Chunks sent to a Dask cluster (``pip install kbsim[dask]``).

    Args:
        scheduler: address of a running scheduler (``tcp://HOST:8786``); without
            it a ``LocalCluster`` with ``workers`` single-threaded worker processes is started.
    """

    scheduler: str | None = None
    name: str = field(default="dask", init=False)
    _client: object = field(default=None, init=False, repr=False)

    def _connect(self) -> tuple:
        """(client, local cluster or None).

        Raises:
            BackendError: dask is not installed, or the scheduler cannot be reached.
        """
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise BackendError("the dask backend needs the optional extra: pip install 'kbsim[dask]'") from None
        try:
            if self.scheduler:
                return Client(self.scheduler, timeout="20s"), None
            with _signals_held(), warnings.catch_warnings():
                # another cluster on this machine holds the usual HTTP port: distributed picks another one itself
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = LocalCluster(  # its workers ignore Ctrl-C (dask_setup below): this process stops them
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    preload=[__name__],
                    silence_logs=logging.CRITICAL,  # its own errors reach this process as exceptions
                )
            return Client(cluster), cluster
        except OSError as e:
            raise BackendError(f"cannot reach the Dask scheduler {self.scheduler}: {e}") from None

    @staticmethod
    def _close(client: Any, cluster: Any) -> None:
        """Close the client and the local cluster (bounded waits; errors while closing are ignored)."""
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=5)

    @contextlib.contextmanager
    def session(self) -> Iterator[Backend]:
        """One client (and local cluster) for every run inside the block (see :meth:`Backend.session`).

        Raises:
            BackendError: dask is not installed, or the scheduler cannot be reached.
        """
        if self._client is not None:
            yield self
            return
        client, cluster = self._connect()
        self._client = client
        try:
            yield self
        finally:
            self._client = None
            self._close(client, cluster)

    def map_chunks(self, spec: RunSpec, chunks: Iterable[range]) -> Iterator[tuple[range, dict[str, list]]]:
        """Play ``chunks`` on the cluster, yielding ``(chunk, columns)`` as each finishes.

        Raises:
            BackendError: dask is not installed, or the scheduler cannot be reached.
        """
        kept = self._client  # a session's client outlives this run
        client, cluster = (kept, None) if kept is not None else self._connect()
        from dask.distributed import as_completed as dask_completed

        futures: list = []
        finished = False
        try:
            # Ctrl-C is held during each blocking call into the client (delivered right after it): an interrupt
            # inside one makes distributed log a NameError traceback from its event loop (distributed 2025-26)
            with _signals_held():
                spec_future = client.scatter(spec, broadcast=True)
                futures = [client.submit(_play_chunk_task, spec_future, chunk, pure=False) for chunk in chunks]
            for fut in dask_completed(futures):
                with _signals_held():
                    result = fut.result()
                yield result
                fut.release()
            finished = True
        finally:
            # interrupted, failed or closed early: cancel the queued chunks so the cluster stops playing them
            if not finished:
                logging.getLogger("distributed").setLevel(logging.CRITICAL)  # the cancelled chunks are expected
                with contextlib.suppress(Exception):
                    client.cancel(futures, force=True)
            if kept is None:
                self._close(client, cluster)


def dask_setup(worker: object) -> None:  # pragma: no cover - runs in Dask worker processes
    """Dask preload hook of the local cluster's workers: ignore Ctrl-C (the kbsim command stops the cluster)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class BackendError(Exception):
    """A backend that cannot run (missing extra, unreachable scheduler)."""


BACKENDS = {"serial": Backend, "processes": ProcessesBackend, "dask": DaskBackend}


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_chunks(
    spec: RunSpec, backend: Backend, chunks: Iterable[range], on_chunk: Callable[[range, dict[str, list]], None]
) -> None:
    """Play ``chunks`` on ``backend``, calling ``on_chunk(chunk, columns)`` as each finishes.

    If ``on_chunk`` raises (or Ctrl-C interrupts it), the backend is closed at once, so its workers stop before
    the exception leaves this function.
    """
    with contextlib.closing(backend.map_chunks(spec, chunks)) as results:
        for chunk, cols in results:
            on_chunk(chunk, cols)


def run_games(
    spec: RunSpec, backend: Backend, chunk_size: int | None = None, progress: Callable[[int], None] | None = None
) -> dict[str, list]:
    """Play all games of ``spec`` and return their records in memory (columns, sorted by game index).

    For large runs use :class:`kbsim.sim.output.RunOutput` with :func:`run_chunks`,
    which keeps memory flat.

    Args:
        spec: what to play.
        backend: where to play it.
        chunk_size: games per chunk (default: :func:`default_chunk_size`).
        progress: called with the number of games of each finished chunk.
    """
    size = chunk_size or default_chunk_size(spec.games, backend.workers)
    done: list[tuple[int, dict[str, list]]] = []

    def keep(chunk: range, cols: dict[str, list]) -> None:
        done.append((chunk.start, cols))
        if progress is not None:
            progress(len(chunk))

    run_chunks(spec, backend, plan_chunks(spec.games, size), keep)
    done.sort(key=lambda item: item[0])
    out = empty_columns(spec.game.family)
    for _, cols in done:
        for k, v in cols.items():
            out[k].extend(v)
    return out


__all__ = [
    "BACKENDS",
    "GAME_NOTE",
    "Backend",
    "BackendError",
    "DaskBackend",
    "ProcessesBackend",
    "RunSpec",
    "default_chunk_size",
    "default_workers",
    "iter_chunks",
    "kill_all_workers",
    "plan_chunks",
    "start_method",
    "stop_pool",
    "worker_pool",
    "play_chunk",
    "run_chunks",
    "run_games",
]
