"""Reading records: the one reader used by analysts, the CLI and the analysis (:mod:`kbsim.analysis`).

``kbsim.records.load(path)`` returns a polars DataFrame. The columns are
documented in :mod:`kbsim.sim.records` (one row per game: seed, players, bots
per seat, winners, end reason, turns, per-seat counts...); the run's parameters,
the kbsim version and what a report needs about the rules (option defaults,
variants, provisional data, display names) are in each file's metadata
(:func:`read_metadata`). ``load(...).to_pandas()`` gives a pandas DataFrame
(needs pandas installed).

This module depends on pyarrow and polars only (never on the engine), so the
analysis can read records without loading rules or playing games.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kbsim.strict_io import check_regular_file

__all__ = ["column_names", "iter_batches", "load", "read_columns", "read_metadata"]

_WHAT = "a records file (.parquet)"


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``kbsim.*`` metadata of a records file, decoded (keys without the prefix).

    Args:
        path: a Parquet file written by kbsim.

    Returns:
        ``{"version": ..., "run": {...}, "records_schema": N, "names": {...}, "rules": {...}}`` (the keys
        present in the file; ``rules`` holds ``defaults``, ``variants`` and ``provisional``).

    Raises:
        OSError: the file cannot be read; pyarrow's error when it is not Parquet.
        kbsim.strict_io.InputFileError: not a regular file (a named pipe, a device, a folder).
    """
    import pyarrow.parquet as pq

    check_regular_file(path, _WHAT)  # a named pipe would block pyarrow for ever
    meta = pq.read_schema(path).metadata or {}
    return {k.decode()[6:]: json.loads(v) for k, v in meta.items() if k.startswith(b"kbsim.")}


def column_names(path: str | Path) -> list[str]:
    """The column names of a Parquet file.

    Raises:
        OSError: the file cannot be read; pyarrow's error when it is not Parquet.
    """
    import pyarrow.parquet as pq

    check_regular_file(path, _WHAT)
    return pq.read_schema(path).names


def read_columns(path: str | Path, columns: Sequence[str]):
    """Read some columns of one records file as a polars DataFrame.

    Args:
        path: a Parquet records file.
        columns: the columns to read (each must exist).

    Returns:
        ``polars.DataFrame``.
    """
    import polars as pl

    check_regular_file(path, _WHAT)
    return pl.read_parquet(path, columns=list(columns))


def iter_batches(path: str | Path, columns: Sequence[str]) -> Iterator[dict[str, list]]:
    """Yield a records file row group by row group as ``{column: list}`` (flat memory for any run size).

    Args:
        path: a Parquet records file.
        columns: wanted columns; those the file lacks are left out.
    """
    import pyarrow.parquet as pq

    check_regular_file(path, _WHAT)
    pf = pq.ParquetFile(path)
    have = set(pf.schema_arrow.names)
    cols = [c for c in columns if c in have]
    for i in range(pf.num_row_groups):
        yield pf.read_row_group(i, columns=cols).to_pydict()


def load(path: str | Path | Sequence[str | Path]):
    """Load records as one polars DataFrame.

    Args:
        path: a Parquet file written by ``kbsim run`` or ``kbsim report``; a folder
            (every ``*.parquet`` in it, e.g. a study's ``reports/_build/records/NAME/``);
            or a list of files.

    Returns:
        ``polars.DataFrame``; files with extra columns (e.g. ``character_plays``)
        combine with others, missing values being null.

    Raises:
        FileNotFoundError: no such file or folder, or a folder without Parquet files.
        kbsim.strict_io.InputFileError: a path that is not a regular file or a folder (a named pipe, a device).
    """
    import polars as pl

    if isinstance(path, (str, Path)):
        p = Path(path)
        if p.is_dir():
            files = sorted(p.glob("*.parquet"))
            if not files:
                raise FileNotFoundError(f"{p}: no .parquet files in this folder")
        elif p.is_file():
            return pl.read_parquet(p)
        elif p.exists():
            check_regular_file(p, _WHAT)
        else:
            raise FileNotFoundError(f"{p}: no such records file or folder")
    else:
        files = [Path(f) for f in path]
        for f in files:
            if not f.exists():
                raise FileNotFoundError(f"{f}: no such records file")
    for f in files:
        check_regular_file(f, _WHAT)
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")
