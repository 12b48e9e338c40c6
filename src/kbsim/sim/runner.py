"""Running many games: chunks of game indices, backends, records.

A run is planned as chunks of consecutive game indices. A chunk is the unit of
work of every backend: ``serial`` plays chunks in this process, ``processes``
(the default) in a pool of worker processes. Every game's seed depends only on
(run seed, game index), so the records are the same whatever the backend,
worker count or chunk size; they are always returned sorted by game index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context

from kbsim.bots import make_bot
from kbsim.engine.compiled import CompiledGame
from kbsim.engine.game import play_game
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
        run_id: identifier written into every record.
        check: verify invariants after every move.
    """

    game: CompiledGame
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    run_id: str = ""
    check: bool = False

    def parameters(self) -> dict:
        """The run's parameters as JSON-able data (for the records file's metadata)."""
        return {"game": self.game.game, "variant": self.game.variant, "options": self.game.options,
                "players": self.players, "bots": list(self.bots), "games": self.games, "seed": self.seed,
                "run_id": self.run_id, "check": self.check}


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
    for i in chunk:
        seed = game_seed(spec.seed, i)
        bots = [make_bot(name) for name in spec.bots]
        r = play_game(g, bots, seed, check=spec.check)
        cols["run_id"].append(spec.run_id)
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
    return cols


def _play_chunk_task(spec: RunSpec, chunk: range) -> tuple[int, dict[str, list]]:
    return chunk.start, play_chunk(spec, chunk)


@dataclass
class Backend:
    """Base of the backends: ``map_chunks`` yields (first index, columns) as chunks finish."""

    workers: int = 1
    name: str = field(default="serial", init=False)

    def map_chunks(self, spec: RunSpec, chunks: list[range]) -> Iterator[tuple[int, dict[str, list]]]:
        for chunk in chunks:
            yield chunk.start, play_chunk(spec, chunk)


@dataclass
class ProcessesBackend(Backend):
    """Chunks played by a pool of ``workers`` local processes (fork where available)."""

    name: str = field(default="processes", init=False)

    def map_chunks(self, spec: RunSpec, chunks: list[range]) -> Iterator[tuple[int, dict[str, list]]]:
        if self.workers <= 1 or len(chunks) <= 1:
            yield from Backend.map_chunks(self, spec, chunks)
            return
        method = "fork" if "fork" in _start_methods() else None
        with ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context(method)) as pool:
            futures = [pool.submit(_play_chunk_task, spec, chunk) for chunk in chunks]
            try:
                for fut in as_completed(futures):
                    yield fut.result()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


BACKENDS = {"serial": Backend, "processes": ProcessesBackend}


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_games(spec: RunSpec, backend: Backend, chunk_size: int | None = None,
              progress: Callable[[int], None] | None = None) -> dict[str, list]:
    """Play all games of ``spec`` and return their records (columns, sorted by game index).

    Args:
        spec: what to play.
        backend: where to play it.
        chunk_size: games per chunk (default: :func:`default_chunk_size`).
        progress: called with the number of games of each finished chunk.
    """
    size = chunk_size or default_chunk_size(spec.games, backend.workers)
    chunks = plan_chunks(spec.games, size)
    done: list[tuple[int, dict[str, list]]] = []
    for start, cols in backend.map_chunks(spec, chunks):
        done.append((start, cols))
        if progress is not None:
            progress(len(cols["game_index"]))
    done.sort(key=lambda item: item[0])
    out = empty_columns()
    for _, cols in done:
        for k, v in cols.items():
            out[k].extend(v)
    return out


__all__ = ["BACKENDS", "Backend", "ProcessesBackend", "RunSpec", "default_chunk_size",
           "default_workers", "plan_chunks", "play_chunk", "run_games"]
