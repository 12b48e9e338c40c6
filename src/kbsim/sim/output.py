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
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kbsim.sim.records import SCHEMA, publish, read_metadata, to_table, write_parquet


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

    Raises:
        OutputError: the folder of ``path`` does not exist; ``path`` is a folder; a
            staging folder of an unfinished run exists and ``resume`` is false; the
            staging folder or the existing output belongs to a run with other parameters.
    """

    def __init__(self, path: Path, params: dict[str, Any], version: str, resume: bool = False,
                 names: dict[str, dict[str, str]] | None = None):
        self.path = Path(path)
        self.params = params
        self.meta = {"version": version, "run": params}
        if names:  # display names (e.g. {"characters": {"den": "Sheriff Den"}}) for reports; not a run parameter
            self.meta["names"] = names
        self.parts = self.path.with_name(self.path.name + ".parts")
        if not self.path.parent.is_dir():
            raise OutputError(f"--out {self.path}: folder {self.path.parent} does not exist")
        if self.path.is_dir():
            raise OutputError(f"--out {self.path}: is a folder; expected a .parquet file path")
        self.complete = False
        if self.parts.exists():
            if not resume:
                raise OutputError(f"{self.parts} holds an unfinished run; add --resume to complete it "
                                  f"(same arguments), or delete that folder to start again")
            self._check_same_run(self._read_manifest(), f"{self.parts}/run.json")
        elif resume and self.path.is_file():
            try:
                other = read_metadata(self.path).get("run")
            except Exception:  # not a Parquet file of ours
                other = None
            self._check_same_run(other, str(self.path))
            self.complete = True
        else:
            self.parts.mkdir()
            self._write_manifest()

    @staticmethod
    def stored_parameters(path: Path) -> dict[str, Any] | None:
        """Parameters of the unfinished run staged for ``path``, or of the finished file there, or None."""
        path = Path(path)
        parts = path.with_name(path.name + ".parts") / "run.json"
        try:
            return json.loads(parts.read_text())
        except (OSError, ValueError):
            pass
        try:
            return read_metadata(path).get("run") if path.is_file() else None
        except Exception:
            return None

    def _manifest_path(self) -> Path:
        return self.parts / "run.json"

    def _read_manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(self._manifest_path().read_text())
        except (OSError, ValueError):
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
            raise OutputError(f"{where}: belongs to a run with other parameters ({', '.join(diff)} differ); "
                              f"refusing to mix records; use another --out")

    def done_chunks(self) -> set[tuple[int, int]]:
        """(start, stop) of the chunks already written."""
        if self.complete or not self.parts.exists():
            return set()
        out = set()
        for p in self.parts.glob("chunk-*.parquet"):
            _, a, b = p.stem.split("-")
            out.add((int(a), int(b)))
        return out

    def write_chunk(self, chunk: range, columns: dict[str, list]) -> None:
        """Write one finished chunk atomically."""
        write_parquet(to_table(columns, self.meta), self.parts / _part_name(chunk))

    def iter_chunks(self):
        """Yield each written chunk as an Arrow table, in game-index order."""
        for p in sorted(self.parts.glob("chunk-*.parquet")):
            yield pq.read_table(p)

    def finalize(self) -> None:
        """Stream every chunk into the final file (atomically) and remove the staging folder."""
        if self.complete:
            return
        schema = SCHEMA.with_metadata({f"kbsim.{k}": json.dumps(v, sort_keys=True) for k, v in self.meta.items()})
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        try:
            with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
                for table in self.iter_chunks():
                    writer.write_table(pa.Table.from_batches(table.to_batches(), schema=schema))
            publish(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        shutil.rmtree(self.parts, ignore_errors=True)
        self.complete = True

    def discard_if_empty(self) -> None:
        """Remove the staging folder of a run that failed before any chunk was written (nothing to resume)."""
        if not self.complete and self.parts.exists() and not self.done_chunks():
            shutil.rmtree(self.parts, ignore_errors=True)

    def games_safe(self) -> int:
        """Games whose records are on disk."""
        return sum(b - a for a, b in self.done_chunks())
