"""What ``kbsim play`` keeps on disk: the records of finished games, and the game being played.

Records
    Each finished game is appended to a Parquet records file with the same columns as ``kbsim run``'s
    (:mod:`kbsim.sim.records`; the person's seat is named ``human`` in ``bots``, the move log is in ``moves``),
    built by the one record builder (:func:`kbsim.sim.runner.append_record`) and written with the one writer
    (:func:`kbsim.sim.records.to_table`, :func:`kbsim.records.write_records`: a temporary file, then a
    rename, so a failed write leaves the file as it was; page checksums and the integrity entry, checked when
    the file is read again). A records file of ``kbsim play`` holds the games of one
    rule set and player count (its metadata says which: :func:`file_identity`); games with other rules go to
    another file.

The game being played
    ``RECORDS.unfinished.json`` beside the records file holds the setup of the game and every move the person has
    made (written after each move, atomically), plus a digest of the position to check a resume against. The
    bots' moves are not stored: they follow from the seed and the person's moves (bots are deterministic given
    their seat's stream and the table), so replaying the person's moves from the seed restores the game exactly.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from kbsim.engine.seeds import MAX_SEED
from kbsim.records import RecordsError, iter_batches, read_metadata, write_records
from kbsim.sim.records import RECORDS_SCHEMA_VERSION, to_table
from kbsim.sim.runner import run_game
from kbsim.strict_io import dumps_json, loads_json_strict

SAVE_SUFFIX = ".unfinished.json"
"""Suffix added to a records file's name for the game being played into it."""

SAVE_FORMAT = 1
"""Version of the saved-game file (``kbsim_play`` key)."""

MAX_SAVE_BYTES = 20_000_000
"""A saved game larger than this is not read (a game's moves take a few kilobytes)."""


class StoreError(Exception):
    """A records file or saved game that cannot be used (one line: the file and what is wrong)."""


def default_records_path(game: Any, players: int, folder: Path = Path("runs")) -> Path:
    """``runs/play-GAME-VARIANT-Pp.parquet``: one file per rule set and player count."""
    variant = game.variant.replace("+", "-") or "base"
    return folder / f"play-{game.game}-{variant}-{players}p.parquet"


def save_path(records: Path) -> Path:
    """The saved game of a records file: ``RECORDS.unfinished.json``."""
    records = Path(records)
    return records.with_name(records.name + SAVE_SUFFIX)


def file_identity(game: Any, players: int, rules_hash: str) -> dict[str, Any]:
    """The ``kbsim.run`` metadata of a play records file: what every game in it shares.

    Args:
        game: compiled rules.
        players: seats.
        rules_hash: :attr:`kbsim.rules.loader.LoadedRules.rules_hash` of the rules played.
    """
    return {
        "kind": "play",
        "game": game.game,
        "variant": game.variant,
        "options": game.options,
        "players": players,
        "rules_hash": rules_hash,
        "records_schema": RECORDS_SCHEMA_VERSION,
    }


def check_records_file(path: Path, identity: dict[str, Any]) -> None:
    """Refuse a records file that games of ``identity`` cannot be appended to (checked before a game starts).

    Raises:
        StoreError: ``path`` is a folder, not a kbsim records file, or holds other games (another kind of file,
            other rules, another player count or records schema).
    """
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"--records {path}: is a folder; expected a .parquet file")
    if not path.exists():
        return
    try:
        run = read_metadata(path).get("run")
    except RecordsError as e:  # not Parquet, damaged, not kbsim's
        raise StoreError(f"--records {e}; refusing to add games to it") from None
    if not isinstance(run, dict) or run.get("kind") != "play":
        raise StoreError(
            f"--records {path}: holds records of a kbsim run, not of kbsim play; give another --records file"
        )
    differ = sorted(
        k for k in identity if json.dumps(run.get(k), sort_keys=True) != json.dumps(identity[k], sort_keys=True)
    )
    if differ:
        raise StoreError(
            f"--records {path}: holds games with other {', '.join(differ)}; one file holds one rule set and player "
            "count: give another --records file"
        )


def played_seeds(path: Path) -> set[int]:
    """The game seeds of the games a records file holds (empty when there is no file)."""
    if not Path(path).is_file():
        return set()
    return {s for batch in iter_batches(path, ["seed"]) for s in batch.get("seed", [])}


def holds_game(path: Path, seed: int, bots: list[str]) -> bool:
    """Whether the records file holds a game on the deal with game seed ``seed`` played by the lineup ``bots``.

    ``kbsim compare`` counts one game per deal and seat lineup in an arm, so a file holds at most one such game.
    """
    if not Path(path).is_file():
        return False
    return any(
        s == seed and list(b) == list(bots)
        for batch in iter_batches(path, ["seed", "bots"])
        for s, b in zip(batch["seed"], batch["bots"], strict=True)
    )


def next_game_index(path: Path, run_seed: int, lineup: list[str] | tuple[str, ...]) -> int:
    """The first game index of run seed ``run_seed`` whose deal the records file does not hold yet.

    The deal of an index is that of :func:`kbsim.sim.runner.run_game` for ``lineup`` (the seats as played).
    """
    seeds = played_seeds(path)
    i = 0
    while run_game(run_seed, i, lineup)[0] in seeds:
        i += 1
    return i


def append_game(path: Path, columns: dict[str, list], metadata: dict[str, Any]) -> bool:
    """Append one game's record (column lists of one row) to a records file, atomically.

    Args:
        path: the records file (created, with its folder, when missing).
        columns: the new record as column lists (:func:`kbsim.sim.runner.append_record`).
        metadata: the file's metadata (``version``, ``run``: :func:`file_identity`, ``rules``, ``names``).

    Returns:
        False when the file already held this very game (same seed, players and moves: a game finished
        twice, e.g. resumed after a crash between writing the record and removing the saved game).

    Raises:
        StoreError: the file holds other games (see :func:`check_records_file`).
        OSError: the file cannot be written (the old file is left as it was).
    """
    path = Path(path)
    check_records_file(path, metadata["run"])
    names = list(columns)
    merged: dict[str, list] = {n: [] for n in names}
    if path.is_file():
        for batch in iter_batches(path, names):
            for n in names:
                merged[n].extend(batch.get(n, [None] * len(batch["seed"])))
    new = (columns["seed"][0], columns["bots"][0], columns["moves"][0])
    if any((s, b, m) == new for s, b, m in zip(merged["seed"], merged["bots"], merged["moves"], strict=True)):
        return False
    for n in names:
        merged[n].extend(columns[n])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_records(to_table(merged, metadata), path)
    return True


# ---------------------------------------------------------------------- the game being played
def write_save(path: Path, data: dict[str, Any]) -> None:
    """Write the saved game atomically (temporary file in the same folder, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(dumps_json({"kbsim_play": SAVE_FORMAT} | data, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_save(path: Path) -> dict[str, Any]:
    """Read and check a saved game.

    Returns:
        The saved data: ``setup`` (dict), ``rules_hash``, ``turns`` (list of lists of move texts), ``pending``
        (list of move texts), ``check`` (``{"at": "prompt"|"commit"|None, "position": str|None}``).

    Raises:
        StoreError: unreadable, too large, not a saved game of this format, or a field of the wrong shape.
    """
    path = Path(path)
    try:
        if path.stat().st_size > MAX_SAVE_BYTES:
            raise StoreError(f"{path}: {path.stat().st_size} bytes; a saved game is far smaller, not reading it")
        data = loads_json_strict(path.read_text(encoding="utf-8"))
    except StoreError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise StoreError(f"{path}: cannot read the saved game ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict) or data.get("kbsim_play") != SAVE_FORMAT:
        raise StoreError(f"{path}: not a game saved by this version of kbsim play")
    _expect(path, "setup", data.get("setup"), dict)
    _expect(path, "rules_hash", data.get("rules_hash"), str)
    turns = data.get("turns")
    if not isinstance(turns, list) or not all(
        isinstance(t, list) and all(isinstance(m, str) for m in t) for t in turns
    ):
        raise StoreError(f"{path}: field turns: expected a list of lists of moves (strings)")
    pending = data.get("pending")
    if not isinstance(pending, list) or not all(isinstance(m, str) for m in pending):
        raise StoreError(f"{path}: field pending: expected a list of moves (strings)")
    check = data.get("check")
    if not isinstance(check, dict) or check.get("at") not in ("prompt", "commit", None):
        raise StoreError(f"{path}: field check: expected {{'at': 'prompt'|'commit'|null, 'position': ...}}")
    setup = data["setup"]
    for key, kind in (("game", str), ("players", int), ("seat", int), ("seed", int), ("game_index", int)):
        _expect(path, f"setup.{key}", setup.get(key), kind)
    if not 0 <= setup["seed"] <= MAX_SEED:
        raise StoreError(f"{path}: field setup.seed: {setup['seed']} is not a seed (0 to {MAX_SEED})")
    return data


def _expect(path: Path, field: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StoreError(f"{path}: field {field}: expected {kind.__name__}, got {type(value).__name__}")


__all__ = [
    "SAVE_SUFFIX",
    "StoreError",
    "append_game",
    "check_records_file",
    "default_records_path",
    "file_identity",
    "holds_game",
    "next_game_index",
    "read_save",
    "save_path",
    "write_save",
]
