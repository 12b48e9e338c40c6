"""Writing a run's records safely: chunk files as they finish, resume, one final file.

While a run is in progress its finished chunks are written, each atomically
(temporary file, then rename), into a staging folder next to the output,
``OUT.parts/``, together with ``run.json`` (the run's parameters). Memory
therefore stays flat however many games are played. When every chunk is
there, the parts are streamed into the single Parquet file ``OUT`` (one row
group per chunk, sorted by game index, written atomically) and the staging
folder is removed.

An interrupted run leaves ``OUT.parts/``; the same command with ``--resume``
plays only the missing chunks. A staging folder or an output file that belongs
to a run with other parameters is never mixed with this run's records.

Every file is written and read by :mod:`kbsim.records` (page checksums, integrity entry): a resume trusts only
chunk files that verify completely (a damaged chunk is deleted and played again, listed in
:attr:`RunOutput.dropped`), the merge verifies each chunk it reads, and a finished file that a resume or a study
would reuse is verified first (a damaged one is refused).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from kbsim.records import RecordsError, RecordsWriter, encode_metadata, open_records, read_metadata, write_records
from kbsim.sim.records import SCHEMA, to_table
from kbsim.strict_io import InputFileError, read_input_text

MERGE_ROWS = 20_000
"""Games per row group of a finished records file (chunks are gathered up to this size when merged)."""


class OutputError(Exception):
    """The output cannot be used for this run (a different run's records, a missing folder...)."""


def _part_name(chunk: range) -> str:
    return f"chunk-{chunk.start:010d}-{chunk.stop:010d}.parquet"


class RunOutput:
    """The output of one run: staging folder, chunk files, final Parquet file.

    Args:
        path: the final Parquet file.
        params: the run's parameters (JSON-able); chunk files and the final
            file carry them, and a resume only continues a run with equal ones.
        version: kbsim version, stored in the metadata.
        resume: continue an interrupted run with the same parameters.
        names: display names of keys the records hold (``{"characters": {key: name}}``).
        extra: more metadata (JSON-able), e.g. ``rules`` (see :func:`kbsim.sim.run.rules_metadata`).

    Raises:
        OutputError: the folder of ``path`` does not exist; ``path`` is a folder; a
            staging folder of an unfinished run exists and ``resume`` is false; the
            staging folder or the existing output belongs to a run with other parameters.
    """

    def __init__(
        self,
        path: Path,
        params: dict[str, Any],
        version: str,
        resume: bool = False,
        names: dict[str, dict[str, str]] | None = None,
        extra: dict[str, Any] | None = None,
    ):
        self.path = Path(path)
        self.params = params
        self.meta = {"version": version, "run": params}
        if names:  # display names (e.g. {"characters": {"den": "Sheriff Den"}}) for reports; not a run parameter
            self.meta["names"] = names
        self.meta |= dict(extra or {})  # e.g. "rules": option defaults, variants, provisional data (for reports)
        self.parts = self.path.with_name(self.path.name + ".parts")
        if not self.path.parent.is_dir():
            raise OutputError(f"--out {self.path}: folder {self.path.parent} does not exist")
        if self.path.is_dir():
            raise OutputError(f"--out {self.path}: is a folder; expected a .parquet file path")
        self.complete = False
        self.dropped: list[str] = []  # chunk files a resume found damaged (deleted, played again): "FILE: problem"
        self._lock_fd: int | None = None
        staged = self.parts.exists()
        if staged and not resume:
            raise OutputError(
                f"{self.parts} holds an unfinished run; add --resume to complete it "
                f"(same arguments), or delete that folder to start again"
            )
        if staged and self._lock():
            self._check_same_run(self._read_manifest(), f"{self.parts}/run.json")
            self._clean_temporaries()
            self._drop_bad_chunks()
        elif resume and self.path.is_file():  # finished (maybe by another run a moment ago)
            try:  # reused as it is (a study's cached cell, a finished run): only a sound file of this run
                found = open_records(self.path)
                self._check_same_run(found.metadata.get("run"), str(self.path))
                found.verify()
            except RecordsError as e:
                raise OutputError(
                    f"{e}; refusing to reuse it (delete it to play it again, or use another --out)"
                ) from None
            self.complete = True
        else:
            try:
                self.parts.mkdir()
            except FileExistsError:
                raise OutputError(
                    f"{self.parts}: another kbsim run started writing {self.path} at the same "
                    f"time; wait for it to finish"
                ) from None
            if not self._lock():
                raise OutputError(f"{self.parts}: removed by another kbsim run meanwhile; run the command again")
            self._clean_temporaries()
            self._write_manifest()

    def _lock(self) -> bool:
        """Take the staging folder's lock (one writer per output; a second ``--resume`` is refused).

        Returns:
            True once locked; False if the folder is gone (a run finished or discarded it meanwhile: its owner
            removes it before releasing the lock, :meth:`_remove_parts`).

        Raises:
            OutputError: another run holds the lock.
        """
        import fcntl

        try:
            fd = os.open(self.parts / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OutputError(
                f"{self.path}: another kbsim run is writing this output now; wait for it to finish"
            ) from None
        try:  # the lock of the live folder, not of one renamed away while we opened it
            live = os.path.samestat(os.fstat(fd), os.stat(self.parts / ".lock"))
        except OSError:
            live = False
        if not live:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def _remove_parts(self) -> None:
        """Delete the staging folder, then release its lock (never the other way round).

        The folder is first renamed away in one atomic step, so a run that opens this output meanwhile finds
        either the folder with its lock held (it is told to wait) or no folder (it finds the finished file):
        never a folder half deleted under a lock it could take.
        """
        gone = self.path.with_name(f".{self.parts.name}.{os.getpid()}.gone")
        try:
            os.rename(self.parts, gone)
        except OSError:
            gone = self.parts
        shutil.rmtree(gone, ignore_errors=True)
        self._unlock()

    def _unlock(self) -> None:
        if getattr(self, "_lock_fd", None) is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def close(self) -> None:
        """Release this output's lock (done by :meth:`finalize`, and when the object is dropped)."""
        self._unlock()

    def __del__(self) -> None:
        self._unlock()

    def _clean_temporaries(self) -> None:
        """Remove temporary files a killed run of this output left (merge file, chunk files being written)."""
        for tmp in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            tmp.unlink(missing_ok=True)
        for gone in self.path.parent.glob(f".{self.parts.name}.*.gone"):  # a run killed while deleting its folder
            shutil.rmtree(gone, ignore_errors=True)
        if self.parts.is_dir():
            for tmp in self.parts.glob(".*.tmp"):
                tmp.unlink(missing_ok=True)

    def _drop_bad_chunks(self) -> None:
        """Delete chunk files that do not verify completely or hold the wrong games; they are played again.

        A chunk is kept only if every page passes its checksum, its rows and key columns match its integrity
        entry, it holds as many games as its name says, and it was written by this run (same parameters).
        """
        for p in sorted(self.parts.glob("chunk-*.parquet")):
            try:
                _, a, b = p.stem.split("-")
                rf = open_records(p)
                if rf.num_rows != int(b) - int(a):
                    raise RecordsError(p, f"holds {rf.num_rows:,} games, its name says {int(b) - int(a):,}")
                if json.dumps(rf.metadata.get("run"), sort_keys=True) != json.dumps(self.params, sort_keys=True):
                    raise RecordsError(p, "written by a run with other parameters")
                rf.verify()
            except RecordsError as e:
                self.dropped.append(str(e))
                p.unlink(missing_ok=True)
            except ValueError:  # not a chunk name of ours
                self.dropped.append(f"{p}: not a chunk file name of kbsim")
                p.unlink(missing_ok=True)

    @staticmethod
    def stored_parameters(path: Path) -> dict[str, Any] | None:
        """Parameters of the unfinished run staged for ``path``, or of the finished file there, or None."""
        path = Path(path)
        parts = path.with_name(path.name + ".parts") / "run.json"
        try:
            return json.loads(read_input_text(parts))
        except (InputFileError, ValueError):
            pass
        try:
            return read_metadata(path).get("run") if path.is_file() else None
        except RecordsError:
            return None

    def _manifest_path(self) -> Path:
        return self.parts / "run.json"

    def _read_manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(read_input_text(self._manifest_path()))
        except (InputFileError, ValueError):
            return None

    def _write_manifest(self) -> None:
        tmp = self._manifest_path().with_suffix(".tmp")
        tmp.write_text(json.dumps(self.params, sort_keys=True, indent=1))
        os.replace(tmp, self._manifest_path())

    def _check_same_run(self, other: dict[str, Any] | None, where: str) -> None:
        if other is None:
            raise OutputError(f"{where}: not the records of a kbsim run; refusing to mix it with this run")
        mine = {k: v for k, v in self.params.items()}
        if json.dumps(other, sort_keys=True) != json.dumps(mine, sort_keys=True):
            diff = sorted(k for k in set(mine) | set(other) if mine.get(k) != other.get(k))
            if "rules_hash" in diff:
                raise OutputError(
                    f"{where}: the rules changed since that run was started (rule file, variant or "
                    f"options edited); refusing to mix records of two rule sets; use another --out"
                )
            raise OutputError(
                f"{where}: belongs to a run with other parameters ({', '.join(diff)} differ); "
                f"refusing to mix records; use another --out"
            )

    def done_chunks(self) -> set[tuple[int, int]]:
        """(start, stop) of the chunks already written."""
        if self.complete or not self.parts.exists():
            return set()
        out = set()
        for p in self.parts.glob("chunk-*.parquet"):
            try:
                _, a, b = p.stem.split("-")
                out.add((int(a), int(b)))
            except ValueError:  # not a chunk name of ours
                continue
        return out

    def write_chunk(self, chunk: range, columns: dict[str, list]) -> None:
        """Write one finished chunk atomically (page checksums, integrity entry)."""
        write_records(to_table(columns, self.meta), self.parts / _part_name(chunk))

    def iter_chunks(self) -> Iterator[pa.Table]:
        """Yield each written chunk as an Arrow table, in game-index order, each verified as it is read.

        Raises:
            RecordsError: a chunk damaged since it was written.
        """
        for p in sorted(self.parts.glob("chunk-*.parquet")):
            yield open_records(p).read()

    def finalize(self) -> None:
        """Stream every chunk into the final file (atomically) and remove the staging folder.

        Raises:
            RecordsError: a chunk damaged since it was written (the staging folder is kept: a resume replays it).
        """
        if self.complete:
            return
        first = min(self.parts.glob("chunk-*.parquet"), default=None)  # the columns of the game's family
        schema = (open_records(first).schema if first else SCHEMA).with_metadata(encode_metadata(self.meta))
        # chunks are gathered into row groups of about MERGE_ROWS games: a small footer and flat memory
        with RecordsWriter(self.path, schema) as writer:
            buf: list[pa.Table] = []
            rows = 0
            for table in self.iter_chunks():
                buf.append(pa.Table.from_batches(table.to_batches(), schema=schema))
                rows += table.num_rows
                if rows >= MERGE_ROWS:
                    writer.write(pa.concat_tables(buf))
                    buf, rows = [], 0
            if buf:
                writer.write(pa.concat_tables(buf))
        self._remove_parts()
        self.complete = True

    def discard_if_empty(self) -> None:
        """Remove the staging folder of a run that failed before any chunk was written (nothing to resume)."""
        if not self.complete and self._lock_fd is not None and self.parts.exists() and not self.done_chunks():
            self._remove_parts()

    def games_safe(self) -> int:
        """Games whose records are on disk."""
        return sum(b - a for a, b in self.done_chunks())
