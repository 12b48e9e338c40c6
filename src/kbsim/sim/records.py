"""Per-game records: the schema, building them from results, Parquet I/O.

One record (row) per game. Columns (documented in ``docs/records.md``):

=================  ==============  ===================================================
column             type            meaning
=================  ==============  ===================================================
run_id             string          identifier of the run that produced the record
game_index         int64           index of the game in its run (0-based)
seed               int64           the game's own seed (from run seed and index)
game               string          rule set, e.g. ``kingsbridge``
variant            string          ``base`` or variant names joined by ``+``
options            string          JSON object: every option's effective value
players            int8            number of seats
bots               list<string>    bot name per seat
winners            list<int8>      winning seats; several for a shared win; empty if none
end_reason         string          ``won``, ``stalemate`` or ``turn_limit``
turns              int32           turns played, all seats together
cards_left         list<int16>     cards held per seat at the end (hand + draw pile)
cards_laid         list<int16>     hand cards laid per seat
exchanges          list<int16>     exchange turns per seat
passes             list<int16>     pass turns per seat
rebuilds           list<int16>     rebuilds per seat
rows_completed     int16           rows completed during the game
minus_cards        list<int16>     cards put on the minus pile per seat (solo/cooperative)
score              int16 (null)    team score (solo/cooperative), null in a race
character_plays    list<struct>    ``{seat, character, plays}`` per seat and character played
penalties          list<int16>     penalty totals per seat (games that score hands), else empty
hands              int16           hands played (1 unless the rules play a match)
blocked_hands      int16           hands that ended blocked (stalemate) within the game
scores             list<int16>     final points per seat (games scored by points), else empty
deal_hash          string          16 hex digits identifying the deal(s) played: equal deals, equal hash
=================  ==============  ===================================================

The Parquet file's key-value metadata holds ``kbsim.version`` and
``kbsim.run`` (the run's parameters as JSON).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([
    ("run_id", pa.string()),
    ("game_index", pa.int64()),
    ("seed", pa.int64()),
    ("game", pa.string()),
    ("variant", pa.string()),
    ("options", pa.string()),
    ("players", pa.int8()),
    ("bots", pa.list_(pa.string())),
    ("winners", pa.list_(pa.int8())),
    ("end_reason", pa.string()),
    ("turns", pa.int32()),
    ("cards_left", pa.list_(pa.int16())),
    ("cards_laid", pa.list_(pa.int16())),
    ("exchanges", pa.list_(pa.int16())),
    ("passes", pa.list_(pa.int16())),
    ("rebuilds", pa.list_(pa.int16())),
    ("rows_completed", pa.int16()),
    ("minus_cards", pa.list_(pa.int16())),
    ("score", pa.int16()),
    ("character_plays", pa.list_(pa.struct([("seat", pa.int8()), ("character", pa.string()),
                                            ("plays", pa.int16())]))),
    ("penalties", pa.list_(pa.int16())),
    ("hands", pa.int16()),
    ("blocked_hands", pa.int16()),
    ("scores", pa.list_(pa.int16())),
    ("deal_hash", pa.string()),
])
COLUMNS = SCHEMA.names


def empty_columns() -> dict[str, list]:
    """A dict of empty lists, one per record column (the in-memory record batch)."""
    return {name: [] for name in COLUMNS}


def to_table(columns: dict[str, list], metadata: dict[str, Any] | None = None) -> pa.Table:
    """Build an Arrow table with :data:`SCHEMA` from column lists; ``metadata`` values are JSON-encoded."""
    table = pa.Table.from_pydict(columns, schema=SCHEMA)
    if metadata:
        table = table.replace_schema_metadata({f"kbsim.{k}": json.dumps(v, sort_keys=True)
                                               for k, v in metadata.items()})
    return table


def publish(tmp: str | Path, final: Path) -> None:
    """Give a finished temporary file normal permissions (0666 minus umask) and rename it to ``final``."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)
    os.replace(tmp, final)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` atomically (temporary file in the same folder, then rename).

    Raises:
        FileNotFoundError: the folder of ``path`` does not exist.
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"folder {path.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        publish(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_metadata(path: Path) -> dict[str, Any]:
    """The ``kbsim.*`` metadata of a records file, decoded (keys without the prefix)."""
    meta = pq.read_schema(path).metadata or {}
    return {k.decode()[6:]: json.loads(v) for k, v in meta.items() if k.startswith(b"kbsim.")}


def load(path: str | Path):
    """Load a records file as a polars DataFrame (``.to_pandas()`` works on it).

    Args:
        path: a Parquet file written by ``kbsim run``.

    Returns:
        ``polars.DataFrame`` with the columns documented in this module.
    """
    import polars as pl

    return pl.read_parquet(path)
