"""Running many games: chunks of game indices, backends, records.

A run is planned as chunks of consecutive game indices. A chunk is the unit of
work of every backend: ``serial`` plays chunks in this process, ``processes``
(the default) in a pool of worker processes. Every game's seed depends only on
(run seed, game index), so the records are the same whatever the backend,
worker count or chunk size; they are always returned sorted by game index.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context

from kbsim.bots import make_bot
from kbsim.engine.compiled import CompiledGame
from kbsim.engine.game import deal_hash_of, play_game
from kbsim.sim.records import empty_columns
from kbsim.sim.seeding import game_seed


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
    """

    game: CompiledGame
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    check: bool = False

    def parameters(self) -> dict:
        """The run's parameters as JSON-able data (for the records file's metadata)."""
        return {"game": self.game.game, "variant": self.game.variant, "options": self.game.options,
                "players": self.players, "bots": list(self.bots), "games": self.games, "seed": self.seed,
                "run_id": self.run_id}

    @property
    def run_id(self) -> str:
        """A short hash of the parameters that determine the records: equal runs get equal ids."""
        key = json.dumps({"game": self.game.game, "variant": self.game.variant, "options": self.game.options,
                          "players": self.players, "bots": list(self.bots), "games": self.games,
                          "seed": self.seed}, sort_keys=True)
        return hashlib.blake2b(key.encode(), digest_size=6).hexdigest()


def plan_chunks(games: int, chunk_size: int) -> list[range]:
    """Split ``range(games)`` into consecutive chunks of at most ``chunk_size`` indices."""
    return [range(a, min(a + chunk_size, games)) for a in range(0, games, chunk_size)]


def default_chunk_size(games: int, workers: int) -> int:
    """About eight chunks per worker, between 1 and 500 games each."""
    return max(1, min(500, games // max(1, workers * 8)))


def play_chunk(spec: RunSpec, chunk: range) -> dict[str, list]:
    """Play the games of ``chunk`` and return their records as column lists."""
    g = spec.game
    cols = empty_columns()
    options = json.dumps(g.options, sort_keys=True)
    bots_list = list(spec.bots)
    run_id = spec.run_id
    for i in chunk:
        seed = game_seed(spec.seed, i)
        bots = [make_bot(name, g.family) for name in spec.bots]
        r = play_game(g, bots, seed, check=spec.check)
        cols["run_id"].append(run_id)
        cols["game_index"].append(i)
        cols["seed"].append(seed)
        cols["game"].append(g.game)
        cols["variant"].append(g.variant)
        cols["options"].append(options)
        cols["players"].append(spec.players)
        cols["bots"].append(bots_list)
        cols["winners"].append(list(r.winners))
        cols["end_reason"].append(r.end_reason)
        cols["turns"].append(r.turns)
        cols["cards_left"].append(r.cards_left)
        cols["cards_laid"].append(r.cards_laid)
        cols["exchanges"].append(r.exchanges)
        cols["passes"].append(r.passes)
        cols["rebuilds"].append(r.rebuilds)
        cols["rows_completed"].append(r.rows_completed)
        cols["minus_cards"].append(r.minus_cards)
        cols["score"].append(r.score)
        cols["character_plays"].append([{"seat": seat, "character": key, "plays": k}
                                        for (seat, key), k in sorted(r.character_plays.items())])
        cols["penalties"].append(r.penalties)
        cols["hands"].append(r.hands)
        cols["scores"].append(r.scores)
        cols["blocked_hands"].append(sum(1 for e in r.hand_ends if e == "stalemate"))
        cols["deal_hash"].append(r.deal_hash or deal_hash_of(spec.game, spec.players, seed))
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

    def map_chunks(self, spec: RunSpec, chunks: list[range]) -> Iterator[tuple[range, dict[str, list]]]:
        for chunk in chunks:
            yield chunk, play_chunk(spec, chunk)


@dataclass
class ProcessesBackend(Backend):
    """Chunks played by a pool of ``workers`` local processes (fork where available)."""

    name: str = field(default="processes", init=False)

    def map_chunks(self, spec: RunSpec, chunks: list[range]) -> Iterator[tuple[range, dict[str, list]]]:
        if self.workers <= 1 or len(chunks) <= 1:
            yield from Backend.map_chunks(self, spec, chunks)
            return
        import multiprocessing

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context(method))
        in_flight: set = set()
        try:
            # keep a bounded number of chunks in flight so memory stays flat on huge runs
            pending = iter(chunks)
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
        finally:
            for f in in_flight:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class DaskBackend(Backend):
    """Chunks sent to a Dask cluster (``pip install kbsim[dask]``).

    Args:
        scheduler: address of a running scheduler (``tcp://HOST:8786``); without
            it a ``LocalCluster`` with ``workers`` single-threaded worker processes is started.
    """

    scheduler: str | None = None
    name: str = field(default="dask", init=False)

    def map_chunks(self, spec: RunSpec, chunks: list[range]) -> Iterator[tuple[range, dict[str, list]]]:
        try:
            from dask.distributed import Client, LocalCluster
            from dask.distributed import as_completed as dask_completed
        except ImportError:
            raise BackendError("the dask backend needs the optional extra: pip install 'kbsim[dask]'") from None
        cluster = None
        try:
            if self.scheduler:
                client = Client(self.scheduler, timeout="20s")
            else:
                cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
                client = Client(cluster)
        except OSError as e:
            raise BackendError(f"cannot reach the Dask scheduler {self.scheduler}: {e}") from None
        try:
            spec_future = client.scatter(spec, broadcast=True)
            futures = [client.submit(_play_chunk_task, spec_future, chunk, pure=False) for chunk in chunks]
            for fut in dask_completed(futures):
                yield fut.result()
                fut.release()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


class BackendError(Exception):
    """A backend that cannot run (missing extra, unreachable scheduler)."""


BACKENDS = {"serial": Backend, "processes": ProcessesBackend, "dask": DaskBackend}


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_chunks(spec: RunSpec, backend: Backend, chunks: list[range],
               on_chunk: Callable[[range, dict[str, list]], None]) -> None:
    """Play ``chunks`` on ``backend``, calling ``on_chunk(chunk, columns)`` as each finishes."""
    for chunk, cols in backend.map_chunks(spec, chunks):
        on_chunk(chunk, cols)


def run_games(spec: RunSpec, backend: Backend, chunk_size: int | None = None,
              progress: Callable[[int], None] | None = None) -> dict[str, list]:
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
    out = empty_columns()
    for _, cols in done:
        for k, v in cols.items():
            out[k].extend(v)
    return out


__all__ = ["BACKENDS", "Backend", "BackendError", "DaskBackend", "ProcessesBackend", "RunSpec",
           "default_chunk_size", "default_workers", "plan_chunks", "play_chunk", "run_chunks", "run_games"]
