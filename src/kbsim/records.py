"""Records files: the one writer and the one reader of kbsim's Parquet records.

``kbsim.records.load(path)`` returns a polars DataFrame. The columns are
documented in :mod:`kbsim.sim.records` (one row per game: seed, players, bots
per seat, winners, end reason, turns, per-seat counts...); the run's parameters,
the kbsim version and what a report needs about the rules (option defaults,
variants, provisional data, display names) are in each file's metadata
(:func:`read_metadata`). ``load(...).to_pandas()`` gives a pandas DataFrame
(needs pandas installed).

**Integrity.** Every records file kbsim writes (a run's file, the chunk files a
``--resume`` trusts, a study's cached cells) is written here, atomically, with
Parquet page checksums (CRC-32 of every data page) and a ``kbsim.integrity``
entry in its metadata: the row count and a BLAKE2b digest of the key columns
(:data:`KEY_COLUMNS`, in row order). Every read goes through :func:`open_records`,
which refuses, with one line naming the file and the problem
(:class:`RecordsError`): what is not a regular file, not Parquet, a Parquet
file whose footer is damaged, a file without kbsim metadata or with garbage
there, a records schema newer than this kbsim reads, a column of the wrong type;
and, when the data is read, a page whose checksum fails and key columns or a row
count that differ from the metadata. Every page of a file is checked on every
read, whichever columns are wanted.

**Versions.** Files of an older records schema (:data:`SCHEMA_CHANGES`) are read
and migrated to the current columns where that is possible (a column added later
is absent, a struct field added later is null); they carry no checksums, so they
are read unverified, and :func:`describe_version` says so. A file of a newer
schema is refused with the version that wrote it.

This module depends on pyarrow and polars only (never on the engine), so the
analysis can read records without loading rules or playing games.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kbsim.strict_io import InputFileError, check_regular_file, loads_json_strict

__all__ = [
    "ALL_FIELDS",
    "KEY_COLUMNS",
    "RECORDS_SCHEMA_VERSION",
    "SCHEMA_CHANGES",
    "RecordsError",
    "RecordsFile",
    "RecordsWriter",
    "column_names",
    "describe_version",
    "encode_metadata",
    "iter_batches",
    "load",
    "open_records",
    "publish",
    "read_columns",
    "read_metadata",
    "records_files",
    "staged_chunks",
    "write_records",
]

#: Version of the records format; bumped whenever a column is added, removed or changes meaning, a seed gives
#: other records, or what a reader must check changes (:data:`SCHEMA_CHANGES`).
RECORDS_SCHEMA_VERSION = 7

#: What each records schema version changed (shown when a file cannot be read, and in the docs).
SCHEMA_CHANGES: dict[int, str] = {
    1: "one set of columns for every game (no kbsim.records_schema entry)",
    2: "common columns plus each engine family's own (market games lost the rows family's columns)",
    3: "deal_hash column",
    4: "rule_usage column",
    5: "bot streams and the later hands of a match from SeedSequence spawn keys: a seed gives other records "
    "wherever a bot draws random numbers or a match plays several hands",
    6: "rule_usage entries carry legal_turns",
    7: "moves column (the move log of kbsim play's games with a human seat; empty for bots); from kbsim 0.2.0 "
    "on, Parquet page checksums and kbsim.integrity (row count, key-column digest), checked on every read",
}

#: Every record column, in file order (meanings: :mod:`kbsim.sim.records`).
ALL_FIELDS = pa.schema(
    [
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
        (
            "character_plays",
            pa.list_(pa.struct([("seat", pa.int8()), ("character", pa.string()), ("plays", pa.int16())])),
        ),
        ("penalties", pa.list_(pa.int16())),
        ("hands", pa.int16()),
        ("blocked_hands", pa.int16()),
        ("scores", pa.list_(pa.int16())),
        ("cards_held", pa.list_(pa.int16())),
        ("wagons_spent", pa.list_(pa.int16())),
        ("objectives", pa.list_(pa.int16())),
        ("characters_lost", pa.int16()),
        ("deal_hash", pa.string()),
        ("rule_usage", pa.list_(pa.struct([("rule", pa.string()), ("uses", pa.int32()), ("legal_turns", pa.int32())]))),
        ("moves", pa.list_(pa.string())),
    ]
)

#: Column types of earlier schema versions that are read and migrated: column -> (last version, type).
OLDER_TYPES: dict[str, tuple[int, pa.DataType]] = {
    "rule_usage": (5, pa.list_(pa.struct([("rule", pa.string()), ("uses", pa.int32())]))),
}

#: kbsim versions that wrote records without ``kbsim.integrity`` (read unverified); every later version writes it,
#: and a file that claims a later writer but lacks the entry is refused.
UNCHECKED_WRITERS = frozenset({"0.1.0"})
#: Columns whose values, in row order, the integrity digest covers (those a file has).
KEY_COLUMNS = ("game_index", "seed", "deal_hash")
#: How every records file is written: zstd, a CRC-32 checksum on every data page.
WRITE_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_page_checksum": True}
_INTEGRITY = "integrity"
_FIELDS = {f.name: f for f in ALL_FIELDS}


class RecordsError(InputFileError):
    """A records file that cannot be used: ``str(err)`` is one line, ``FILE: what is wrong``.

    A kind of :class:`kbsim.strict_io.InputFileError` (an input kbsim cannot read).

    Attributes:
        path: the file.
        problem: what is wrong with it.
    """

    def __init__(self, path: str | Path, problem: str):
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{path}: {problem}")


# ------------------------------------------------------------------ metadata and integrity
def encode_metadata(metadata: dict[str, Any] | None = None) -> dict[str, str]:
    """The Parquet key-value metadata of a records file: each entry JSON-encoded under ``kbsim.*``.

    ``kbsim.records_schema`` (:data:`RECORDS_SCHEMA_VERSION`) is added unless given.
    """
    meta = {"records_schema": RECORDS_SCHEMA_VERSION} | dict(metadata or {})
    return {f"kbsim.{k}": json.dumps(v, sort_keys=True) for k, v in meta.items()}


class KeyDigest:
    """The integrity entry of a records file, computed as its rows are written or read, in any batches.

    Each key column is hashed as streams (integers as little-endian int64; text as its lengths, -1 for null, and
    its UTF-8 characters), so the digest depends on the rows and their order, never on how they were split into
    batches or row groups. The columns' names and types are digested too: the Parquet footer that holds them has
    no checksum of its own, and a damaged byte there could rename a column or change its type unnoticed.

    Args:
        schema: the file's columns (the key columns among them are hashed).
    """

    def __init__(self, schema: pa.Schema):
        names = schema.names
        self.schema = hashlib.blake2b(
            json.dumps([[f.name, str(_normal(f.type))] for f in schema]).encode(), digest_size=8
        ).hexdigest()
        self.columns = [c for c in KEY_COLUMNS if c in names]
        self._hash = {c: hashlib.blake2b(digest_size=16) for c in self.columns}
        self._text = {c: hashlib.blake2b(digest_size=16) for c in self.columns}
        self.rows = 0

    def update(self, data: pa.Table | pa.RecordBatch) -> None:
        """Add the next rows (a table or batch holding at least the key columns)."""
        import numpy as np
        import pyarrow.compute as pc

        self.rows += data.num_rows
        for c in self.columns:
            col = data.column(c)
            chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
            h = self._hash[c]
            for arr in chunks:
                if pa.types.is_integer(arr.type):
                    h.update(np.ascontiguousarray(pc.fill_null(arr, 0).to_numpy(), dtype="<i8").tobytes())
                    continue
                # text: the lengths (-1 for null) as one stream, the characters as another (batch-independent)
                arr = pc.cast(arr, pa.large_string())
                lengths = pc.fill_null(pc.binary_length(arr), -1).to_numpy()
                h.update(np.ascontiguousarray(lengths, dtype="<i8").tobytes())
                offsets = np.frombuffer(arr.buffers()[1], dtype="<i8")[arr.offset : arr.offset + len(arr) + 1]
                if len(arr) and arr.buffers()[2] is not None:
                    self._text[c].update(memoryview(arr.buffers()[2])[int(offsets[0]) : int(offsets[-1])])

    def entry(self) -> dict[str, Any]:
        """``{"rows", "columns", "digest", "schema"}``: what ``kbsim.integrity`` holds."""
        h = hashlib.blake2b(digest_size=16)
        for c in self.columns:
            h.update(c.encode() + b"\0" + self._hash[c].digest() + self._text[c].digest())
        return {"rows": self.rows, "columns": list(self.columns), "digest": h.hexdigest(), "schema": self.schema}


# ------------------------------------------------------------------ writing
def publish(tmp: str | Path, final: Path) -> None:
    """Give a finished temporary file normal permissions (0666 minus umask) and rename it to ``final``."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)
    os.replace(tmp, final)


class RecordsWriter:
    """Write a records file atomically, in pieces: page checksums, and its integrity entry at the end.

    Used as a context manager: ``with RecordsWriter(path, schema) as w: w.write(table)``; the file appears at
    ``path`` only when the block ends without an error (a temporary file in the same folder, then a rename).

    Args:
        path: the file to write.
        schema: the Arrow schema of the tables written, with the ``kbsim.*`` metadata
            (:func:`encode_metadata`).

    Raises:
        FileNotFoundError: the folder of ``path`` does not exist.
    """

    def __init__(self, path: str | Path, schema: pa.Schema):
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"folder {self.path.parent} does not exist")
        drop = {f"kbsim.{_INTEGRITY}".encode(), b"ARROW:schema"}  # a table read from a file: its entry is rewritten
        self.schema = schema.with_metadata({k: v for k, v in (schema.metadata or {}).items() if k not in drop})
        self.digest = KeyDigest(schema)
        fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self._writer: pq.ParquetWriter | None = None

    def __enter__(self) -> RecordsWriter:
        try:
            self._writer = pq.ParquetWriter(self._tmp, self.schema, **WRITE_OPTIONS)
        except BaseException:
            Path(self._tmp).unlink(missing_ok=True)
            raise
        return self

    def write(self, table: pa.Table, row_group_size: int | None = None) -> None:
        """Append ``table`` (the writer's schema) as one row group, or several of ``row_group_size`` rows."""
        assert self._writer is not None, "use RecordsWriter as a context manager"
        table = table.replace_schema_metadata(self.schema.metadata)
        self._writer.write_table(table, row_group_size=row_group_size or max(1, table.num_rows))
        self.digest.update(table)

    def __exit__(self, kind: type[BaseException] | None, *exc: Any) -> None:
        try:
            if self._writer is not None:
                if kind is None:
                    self._writer.add_key_value_metadata(
                        {f"kbsim.{_INTEGRITY}": json.dumps(self.digest.entry(), sort_keys=True)}
                    )
                self._writer.close()
            if kind is None:
                publish(self._tmp, self.path)
        finally:
            Path(self._tmp).unlink(missing_ok=True)


def write_records(table: pa.Table, path: str | Path) -> None:
    """Write ``table`` (its schema carrying the ``kbsim.*`` metadata) to ``path`` atomically, as one row group.

    Raises:
        FileNotFoundError: the folder of ``path`` does not exist.
    """
    with RecordsWriter(path, table.schema) as w:
        w.write(table)


# ------------------------------------------------------------------ reading
def _normal(t: pa.DataType) -> pa.DataType:
    """A type with large and view variants made plain (``large_string`` is ``string``), recursively."""
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_list(t) or pa.types.is_list_view(t) or pa.types.is_list(t):
        return pa.list_(_normal(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _normal(f.type)) for f in t])
    return t


def _decode(path: Path, raw: dict[bytes, bytes] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in (raw or {}).items():
        if not k.startswith(b"kbsim."):
            continue
        key = k.decode("utf-8", "replace")
        try:
            out[key[6:]] = loads_json_strict(v.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RecordsError(path, f"damaged kbsim metadata: {key} is not valid JSON") from None
    return out


def _damage(err: BaseException, where: str = "") -> str:
    """Words for a pyarrow error met while reading a file's data (``where``: the column and row group)."""
    text = " ".join(str(err).split())[:200]
    place = f" ({where})" if where else ""
    if "checksum" in text.lower() or "crc" in text.lower():
        return f"damaged file: a data page{place} fails its checksum ({text})"
    return f"damaged file: data{place} that cannot be decoded ({type(err).__name__}: {text})"


class RecordsFile:
    """A records file opened for reading: its footer and metadata checked (:func:`open_records`).

    Attributes:
        path: the file.
        metadata: the ``kbsim.*`` metadata, decoded (keys without the prefix).
        schema: the Arrow schema (without metadata).
        num_rows: rows according to the Parquet footer.
        schema_version: the records schema the file was written with (1 for files without the entry).
        version: the kbsim version that wrote it (``"?"`` if unknown).
        integrity: the ``kbsim.integrity`` entry, or None for files of :data:`UNCHECKED_WRITERS`.
    """

    def __init__(self, path: Path, pf: pq.ParquetFile, metadata: dict[str, Any]):
        self.path = path
        self._pf = pf
        self.metadata = metadata
        self.schema = pf.schema_arrow.remove_metadata()
        self.num_rows = pf.metadata.num_rows
        self.schema_version = int(metadata.get("records_schema", 1))
        self.version = str(metadata.get("version", "?"))
        self.integrity: dict[str, Any] | None = metadata.get(_INTEGRITY)

    @property
    def column_names(self) -> list[str]:
        """The file's columns, in file order."""
        return self.schema.names

    def _migrate(self, table: pa.Table) -> pa.Table:
        """Columns of an older schema cast to the current types (a struct field added later is null)."""
        for i, f in enumerate(table.schema):
            want = _FIELDS.get(f.name)
            if want is not None and _normal(f.type) != want.type:
                table = table.set_column(i, want, _cast_old(table.column(i), want.type))
        return table

    def iter_tables(self, columns: Sequence[str] | None = None) -> Iterator[pa.Table]:
        """Yield the file row group by row group (every page verified; ``columns`` kept, those it has).

        After the last row group the rows and key columns are checked against ``kbsim.integrity``.

        Raises:
            RecordsError: a page fails its checksum or cannot be decoded; the rows or key columns differ from the
                integrity entry.
        """
        have = set(self.column_names)
        keep = [c for c in (columns if columns is not None else self.column_names) if c in have]
        digest = KeyDigest(self.schema)
        for i in range(self._pf.num_row_groups):
            try:
                group = self._pf.read_row_group(i)  # every column: every page's checksum is verified
            except (OSError, pa.ArrowException, ValueError) as e:
                raise RecordsError(self.path, _damage(e, self._where(i))) from None
            digest.update(group)
            yield self._migrate(group.select(keep))
        self._check(digest)

    def _where(self, group: int) -> str:
        """Which column of row group ``group`` fails to read (looked for only after a failure)."""
        for name in self.column_names:
            try:
                self._pf.read_row_group(group, columns=[name])
            except (OSError, pa.ArrowException, ValueError):
                return f"column {name!r}, row group {group + 1} of {self._pf.num_row_groups}"
        return ""

    def _check(self, digest: KeyDigest) -> None:
        if digest.rows != self.num_rows:
            raise RecordsError(self.path, f"damaged file: {digest.rows:,} rows read, the footer says {self.num_rows:,}")
        if self.integrity is None:
            return
        entry = digest.entry()
        if self.integrity.get("rows") != entry["rows"]:
            raise RecordsError(
                self.path,
                f"damaged file: {entry['rows']:,} rows, but it was written with {self.integrity.get('rows')} "
                f"(kbsim.integrity)",
            )
        if self.integrity.get("columns") != entry["columns"] or self.integrity.get("digest") != entry["digest"]:
            raise RecordsError(
                self.path,
                f"damaged file: the values of {', '.join(entry['columns'])} differ from those it was written with "
                f"(kbsim.integrity digest)",
            )

    def read(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The whole file (or ``columns`` of it, those it has), verified (see :meth:`iter_tables`).

        Raises:
            RecordsError: see :meth:`iter_tables`.
        """
        tables = list(self.iter_tables(columns))
        if not tables:
            keep = [c for c in (columns if columns is not None else self.column_names) if c in self.column_names]
            return self._migrate(self.schema.empty_table().select(keep))
        return pa.concat_tables(tables)

    def verify(self) -> None:
        """Read every page of the file and check it against its integrity entry.

        Raises:
            RecordsError: see :meth:`iter_tables`.
        """
        for _ in self.iter_tables(()):
            pass


def _cast_old(col: pa.ChunkedArray, want: pa.DataType) -> pa.ChunkedArray:
    """A column of an older schema as the current type: plain types cast, missing struct fields null."""
    if pa.types.is_list(want) and pa.types.is_struct(want.value_type):
        names = [f.name for f in want.value_type]
        rows = [None if r is None else [{n: e.get(n) for n in names} for e in r] for r in col.to_pylist()]
        return pa.chunked_array([pa.array(rows, type=want)], type=want)
    return col.cast(want)


def _check_file(path: Path) -> None:
    """Refuse what is not a regular, non-empty file before opening it (a FIFO would block for ever)."""
    if not path.exists() and not path.is_symlink():
        raise RecordsError(path, "no such records file")
    try:
        check_regular_file(path, "a records file (.parquet)")
    except InputFileError as e:
        raise RecordsError(path, str(e).removeprefix(f"{path}: ")) from None
    if path.stat().st_size == 0:
        raise RecordsError(path, "empty file; expected a records file")


def _open_parquet(path: Path) -> pq.ParquetFile:
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(max(0, os.fstat(f.fileno()).st_size - 4))
            tail = f.read(4)
    except OSError as e:
        raise RecordsError(path, f"cannot read: {e.strerror or e}") from None
    if head != b"PAR1":
        raise RecordsError(path, "not a Parquet file (no PAR1 header); expected a records file written by kbsim")
    if tail != b"PAR1" or os.path.getsize(path) < 12:
        raise RecordsError(path, "damaged Parquet file: its end (footer) is missing or cut short (truncated?)")
    try:
        return pq.ParquetFile(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException, ValueError) as e:
        text = " ".join(str(e).split())[:160]
        raise RecordsError(path, f"damaged Parquet file: its footer cannot be read ({text})") from None


def _check_metadata(path: Path, meta: dict[str, Any]) -> None:
    if not meta:
        raise RecordsError(path, "not kbsim records: the file has no kbsim metadata (written by another program?)")
    for key, kind in (("version", str), ("run", dict)):
        if key not in meta:
            raise RecordsError(path, f"damaged kbsim metadata: kbsim.{key} is missing")
        if not isinstance(meta[key], kind):
            raise RecordsError(
                path, f"damaged kbsim metadata: kbsim.{key} is {type(meta[key]).__name__}, expected {kind.__name__}"
            )
    v = meta.get("records_schema", 1)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise RecordsError(path, f"damaged kbsim metadata: kbsim.records_schema is {v!r}, expected a version >= 1")
    if v > RECORDS_SCHEMA_VERSION:
        raise RecordsError(
            path,
            f"written by kbsim {meta['version']} with records schema {v}; this kbsim reads records schemas 1 to "
            f"{RECORDS_SCHEMA_VERSION}: upgrade kbsim to read it",
        )
    entry = meta.get(_INTEGRITY)
    if entry is not None or meta["version"] not in UNCHECKED_WRITERS:
        if not isinstance(entry, dict):
            raise RecordsError(path, "damaged kbsim metadata: kbsim.integrity is missing or not an object")
        if not (
            isinstance(entry.get("rows"), int)
            and isinstance(entry.get("digest"), str)
            and isinstance(entry.get("columns"), list)
            and isinstance(entry.get("schema"), str)
        ):
            raise RecordsError(path, "damaged kbsim metadata: kbsim.integrity lacks rows, columns, digest or schema")


def _check_types(path: Path, schema: pa.Schema, version: int) -> None:
    for f in schema:
        want = _FIELDS.get(f.name)
        if want is None:
            continue
        have = _normal(f.type)
        older = OLDER_TYPES.get(f.name)
        if have == want.type or (older is not None and version <= older[0] and have == older[1]):
            continue
        raise RecordsError(path, f"column {f.name!r} is {f.type}, expected {want.type} (records schema {version})")


def open_records(path: str | Path) -> RecordsFile:
    """Open a records file: a regular Parquet file with kbsim metadata of a schema this kbsim reads.

    Its data is verified when read (:meth:`RecordsFile.read`, :meth:`RecordsFile.iter_tables`).

    Args:
        path: a Parquet file written by kbsim.

    Returns:
        :class:`RecordsFile`.

    Raises:
        RecordsError: no such file, a folder or a non-regular file, not Parquet, a damaged footer, no or damaged
            kbsim metadata, a newer records schema, a column of the wrong type.
    """
    path = Path(path)
    _check_file(path)
    pf = _open_parquet(path)
    meta = _decode(path, pf.metadata.metadata)
    _check_metadata(path, meta)
    rf = RecordsFile(path, pf, meta)
    _check_types(path, rf.schema, rf.schema_version)
    if rf.integrity is not None and rf.integrity.get("schema") != KeyDigest(rf.schema).schema:
        raise RecordsError(path, "damaged file: its column names or types differ from those it was written with")
    return rf


def describe_version(rf: RecordsFile) -> str:
    """Which kbsim and records schema wrote a file, e.g. ``0.1.0 (records schema 6, read unverified)``."""
    unverified = ", read unverified: written before checksums" if rf.integrity is None else ""
    return f"{rf.version} (records schema {rf.schema_version}{unverified})"


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``kbsim.*`` metadata of a records file, decoded (keys without the prefix).

    Args:
        path: a Parquet file written by kbsim.

    Returns:
        ``{"version": ..., "run": {...}, "records_schema": N, "names": {...}, "rules": {...}, "integrity": {...}}``
        (the keys present in the file; ``rules`` holds ``defaults``, ``variants`` and ``provisional``).

    Raises:
        RecordsError: see :func:`open_records`.
    """
    return open_records(path).metadata


def staged_chunks(path: str | Path, upto: int | None = None) -> list[Path]:
    """The chunk files an unfinished run of ``path`` has written so far, in game-index order.

    A run writes each finished chunk of games to ``PATH.parts/chunk-START-STOP.parquet`` (with the run's
    metadata) until it merges them into ``PATH`` (:class:`kbsim.sim.output.RunOutput`); a study run until
    decided leaves its runs unfinished between looks.

    Args:
        path: the run's final Parquet file.
        upto: only the chunks that start below this game index.
    """
    parts = Path(path).with_name(Path(path).name + ".parts")
    out = []
    for p in sorted(parts.glob("chunk-*.parquet")):
        try:
            start = int(p.stem.split("-")[1])
        except (IndexError, ValueError):  # not a chunk name of ours
            continue
        if upto is None or start < upto:
            out.append(p)
    return out


def column_names(path: str | Path) -> list[str]:
    """The column names of a records file.

    Raises:
        RecordsError: see :func:`open_records`.
    """
    return open_records(path).column_names


def read_columns(path: str | Path, columns: Sequence[str]):
    """Read some columns of one records file (verified) as a polars DataFrame.

    Args:
        path: a records file.
        columns: the columns to read (those the file lacks are left out).

    Returns:
        ``polars.DataFrame``.

    Raises:
        RecordsError: see :func:`open_records` and :meth:`RecordsFile.iter_tables`.
    """
    import polars as pl

    return pl.from_arrow(open_records(path).read(columns))


def iter_batches(path: str | Path, columns: Sequence[str]) -> Iterator[dict[str, list]]:
    """Yield a records file row group by row group as ``{column: list}`` (flat memory for any run size).

    Every page is verified; the key columns are checked against the integrity entry after the last row group.

    Args:
        path: a records file.
        columns: wanted columns; those the file lacks are left out.

    Raises:
        RecordsError: see :func:`open_records` and :meth:`RecordsFile.iter_tables`.
    """
    for table in open_records(path).iter_tables(columns):
        yield table.to_pydict()


def records_files(path: str | Path) -> list[Path]:
    """The records files a path names: the file itself, or every ``*.parquet`` of a folder (sorted by name).

    Raises:
        RecordsError: no such file or folder, or a folder without ``.parquet`` files.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.glob("*.parquet") if not f.name.startswith("."))
        if not files:
            raise RecordsError(p, "no .parquet files in this folder")
        return files
    if not p.exists():
        raise RecordsError(p, "no such records file or folder")
    return [p]


def load(path: str | Path | Sequence[str | Path]):
    """Load records as one polars DataFrame (every file verified, older schemas migrated).

    Args:
        path: a Parquet file written by ``kbsim run`` or ``kbsim report``; a folder
            (every ``*.parquet`` in it, e.g. a study's ``reports/_build/records/NAME/``);
            or a list of files.

    Returns:
        ``polars.DataFrame``; files with extra columns (e.g. ``character_plays``)
        combine with others, missing values being null.

    Raises:
        RecordsError: no such file or folder, a folder without Parquet files, or a file that cannot be read
            (see :func:`open_records`).
    """
    import polars as pl

    files = records_files(path) if isinstance(path, (str, Path)) else [Path(f) for f in path]
    frames = [pl.from_arrow(open_records(f).read()) for f in files]
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
