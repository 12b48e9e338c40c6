"""Records for analysts: ``kbsim.records.load(path)`` returns a polars DataFrame.

The columns are documented in :mod:`kbsim.sim.records` (one row per game: seed,
players, bots per seat, winners, end reason, turns, per-seat counts...); the
run's parameters and the kbsim version are in each file's metadata
(:func:`read_metadata`). ``load(...).to_pandas()`` gives a pandas DataFrame
(needs pandas installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kbsim.sim.records import COLUMNS, SCHEMA, read_metadata

__all__ = ["COLUMNS", "SCHEMA", "load", "read_metadata"]


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
        else:
            raise FileNotFoundError(f"{p}: no such records file or folder")
    else:
        files = [Path(f) for f in path]
        for f in files:
            if not f.is_file():
                raise FileNotFoundError(f"{f}: no such records file")
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")
