"""Records cannot be corrupted silently (issue 28, part 2, and the records items of part 5).

Every records file kbsim writes carries Parquet page checksums and a ``kbsim.integrity`` entry (rows, digest of
the key columns); every read checks them. A damaged or foreign file is one clean error naming the file and the
problem (exit 2), never a page of numbers: for ``compare``, ``report`` (a study's cached cells), ``--resume``
(its chunk files) and ``kbsim.records.load``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import kbsim.records
from conftest import REPO
from kbsim.records import RecordsError, open_records, write_records
from test_strict_input import assert_user_error, kb


@pytest.fixture(scope="module")
def ok_file(tmp_path_factory) -> Path:
    """The handed case's records: ``kbsim run -n 300 --seed 2 --workers 1 -o ok.parquet``."""
    folder = tmp_path_factory.mktemp("ok")
    code, _, err = kb("run", "-n", "300", "--seed", "2", "--workers", "1", "-o", str(folder / "ok.parquet"))
    assert code == 0, err
    return folder / "ok.parquet"


def _damaged(ok: Path, dest: Path, at: int, data: bytes = b"\0" * 400) -> Path:
    raw = bytearray(ok.read_bytes())
    raw[at : at + len(data)] = data
    dest.write_bytes(bytes(raw))
    return dest


def _plain(path: Path) -> pl.DataFrame:
    return pl.from_arrow(pq.read_table(path))


def test_handed_case_zeroed_middle_is_refused(ok_file, tmp_path):
    """400 zero bytes at half the file: compare exits 2 with one line naming the file (it wrote nothing)."""
    bad = _damaged(ok_file, tmp_path / "bad.parquet", ok_file.stat().st_size // 2)
    code, out, err = kb("compare", str(bad), "-o", str(tmp_path / "bad.html"))
    assert_user_error(code, err, str(bad), "damaged file", "checksum")
    assert not (tmp_path / "bad.html").exists() and out == ""
    with pytest.raises(RecordsError, match="damaged file"):
        kbsim.records.load(bad)


@pytest.mark.parametrize("flip", [False, True])
def test_no_damage_anywhere_gives_other_numbers(ok_file, tmp_path, flip):
    """Damage at 40 places across the file (400 zero bytes, or one flipped bit): every read either refuses the
    file with a RecordsError or returns exactly the original records; never other values. (A sweep of every
    other byte of the file, run once by hand: 12,877 flips, none read as other values.)"""
    original = kbsim.records.load(ok_file)
    size = ok_file.stat().st_size
    refused = 0
    for k in range(40):
        at = k * size // 40
        data = bytes([ok_file.read_bytes()[at] ^ 0x10]) if flip else b"\0" * 400
        bad = _damaged(ok_file, tmp_path / f"bad{k}.parquet", at, data)
        try:
            got = kbsim.records.load(bad)
        except RecordsError as e:
            refused += 1
            assert str(e).startswith(f"{bad}: ") and "\n" not in str(e)
            continue
        assert got.equals(original), f"damage at byte {at} of {size} read as other values"
    if not flip:  # 400 bytes always reach data or metadata that is checked
        assert refused == 40
    else:  # a flipped bit in an unused footer statistic or page-header field reads as the original: harmless
        assert refused >= 20


def _column_at(path: Path, at: int) -> str:
    """The column whose chunk holds byte ``at`` of the file (one row group)."""
    rg = pq.ParquetFile(path).metadata.row_group(0)
    for i in range(rg.num_columns):
        c = rg.column(i)
        start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
        if start <= at < start + c.total_compressed_size:
            return c.path_in_schema.split(".")[0]
    raise AssertionError(f"byte {at} is in no column chunk")


def test_damaged_page_is_not_called_not_parquet(ok_file, tmp_path):
    """The message names the column whose page is damaged (the one at half the file, whatever the layout)."""
    at = ok_file.stat().st_size // 2
    bad = _damaged(ok_file, tmp_path / "bad.parquet", at)
    with pytest.raises(RecordsError) as e:
        open_records(bad).read()
    assert "not a Parquet file" not in str(e.value) and f"column '{_column_at(ok_file, at)}'" in str(e.value)
    text = tmp_path / "text.parquet"
    text.write_text("game_index,seed\n1,2\n")
    with pytest.raises(RecordsError, match="not a Parquet file"):
        open_records(text)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(ok_file.read_bytes()[: ok_file.stat().st_size - 100])
    with pytest.raises(RecordsError, match="footer\\) is missing or cut short"):
        open_records(cut)
    footer = _damaged(ok_file, tmp_path / "footer.parquet", ok_file.stat().st_size - 300, b"\xff" * 200)
    with pytest.raises(RecordsError, match="damaged"):
        open_records(footer).read()


def _rewrite(ok: Path, dest: Path, meta_edit=None, column=None) -> Path:
    """The records of ``ok`` written again by plain pyarrow, with the metadata or a column changed."""
    table = pq.read_table(ok)
    meta = dict(pq.ParquetFile(ok).metadata.metadata)
    meta.pop(b"ARROW:schema", None)
    if meta_edit:
        meta = meta_edit(meta)
    if column:
        name, values = column
        i = table.schema.get_field_index(name)
        table = table.set_column(i, pa.field(name, values.type), values)
    pq.write_table(table.replace_schema_metadata(meta), dest)
    return dest


def _refusal(path: Path, *needles: str, tmp_path: Path) -> None:
    code, _, err = kb("compare", str(path), "-o", str(tmp_path / "x.html"))
    assert_user_error(code, err, str(path), *needles)


def test_column_of_the_wrong_type_is_refused(ok_file, tmp_path):
    turns = pq.read_table(ok_file).column("turns").cast(pa.string())
    bad = _rewrite(ok_file, tmp_path / "turns.parquet", column=("turns", turns))
    _refusal(bad, "column 'turns' is string, expected int32", tmp_path=tmp_path)


@pytest.mark.parametrize(
    "case, edit, needles",
    [
        ("none", lambda m: {k: v for k, v in m.items() if not k.startswith(b"kbsim.")}, ["no kbsim metadata"]),
        ("garbage", lambda m: m | {b"kbsim.run": b"{not json"}, ["kbsim.run is not valid JSON"]),
        ("nan", lambda m: m | {b"kbsim.version": b"NaN"}, ["kbsim.version is not valid JSON"]),
        ("list-run", lambda m: m | {b"kbsim.run": b"[1, 2]"}, ["kbsim.run is list, expected dict"]),
        ("no-version", lambda m: {k: v for k, v in m.items() if k != b"kbsim.version"}, ["kbsim.version is missing"]),
        ("schema-text", lambda m: m | {b"kbsim.records_schema": b'"seven"'}, ["kbsim.records_schema is 'seven'"]),
        ("newer", lambda m: m | {b"kbsim.records_schema": b"99"}, ["records schema 99", "upgrade kbsim"]),
        ("no-integrity", lambda m: {k: v for k, v in m.items() if k != b"kbsim.integrity"}, ["kbsim.integrity"]),
        ("bad-integrity", lambda m: m | {b"kbsim.integrity": b'{"rows": 3}'}, ["lacks rows, columns"]),
    ],
)
def test_missing_or_garbage_metadata_is_refused(ok_file, tmp_path, case, edit, needles):
    bad = _rewrite(ok_file, tmp_path / f"{case}.parquet", meta_edit=edit)
    _refusal(bad, *needles, tmp_path=tmp_path)


def test_key_columns_and_rows_are_checked_against_the_metadata(ok_file, tmp_path):
    """Records rewritten with the original metadata but other seeds, or fewer rows: refused on read."""
    seeds = pq.read_table(ok_file).column("seed")
    other = pa.chunked_array([pa.array([s + 1 for s in seeds.to_pylist()], pa.int64())])
    bad = _rewrite(ok_file, tmp_path / "seeds.parquet", column=("seed", other))
    _refusal(bad, "values of game_index, seed, deal_hash differ", tmp_path=tmp_path)
    table = pq.read_table(ok_file).slice(0, 200)
    meta = dict(pq.ParquetFile(ok_file).metadata.metadata)
    meta.pop(b"ARROW:schema", None)
    fewer = tmp_path / "fewer.parquet"
    pq.write_table(table.replace_schema_metadata(meta), fewer)
    _refusal(fewer, "200 rows, but it was written with 300", tmp_path=tmp_path)


def test_not_a_regular_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "f.parquet"
    os.mkfifo(fifo)
    p = subprocess.run(
        [sys.executable, "-c", f"import kbsim.records as r; r.load({str(fifo)!r})"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode != 0 and "f.parquet: is a named pipe (FIFO); expected a records file" in p.stderr


def test_resume_replays_a_damaged_chunk(tmp_path):
    """An interrupted run whose staged chunk was damaged: --resume plays that chunk again and the records equal
    an uninterrupted run's."""
    from kbsim.sim.output import RunOutput

    full = tmp_path / "full.parquet"
    args = ["run", "-n", "40", "--seed", "4", "--workers", "1", "--chunk-size", "10"]
    assert kb(*args, "-o", str(full))[0] == 0
    out = tmp_path / "r.parquet"
    table = pq.read_table(full)
    params = json.loads(pq.ParquetFile(full).metadata.metadata[b"kbsim.run"])
    ro = RunOutput(out, params, "x")
    for a in (0, 10, 20, 30):
        write_records(table.slice(a, 10), ro.parts / f"chunk-{a:010d}-{a + 10:010d}.parquet")
    ro._unlock()
    chunk = ro.parts / f"chunk-{10:010d}-{20:010d}.parquet"
    _damaged(chunk, chunk, chunk.stat().st_size // 2, b"\0" * 40)
    again = RunOutput(out, params, "x", resume=True)
    assert len(again.dropped) == 1 and str(chunk) in again.dropped[0] and "damaged" in again.dropped[0]
    again._unlock()
    write_records(table.slice(10, 10), chunk)  # staged and damaged again (the check above deleted it)
    _damaged(chunk, chunk, chunk.stat().st_size // 2, b"\0" * 40)
    code, o, err = kb(*args, "-o", str(out), "--resume", "--json")
    assert code == 0, err
    assert f"kbsim: note: {chunk}: damaged" in err and "playing that chunk again" in err
    assert json.loads(o)["games_played_now"] == 10
    assert _plain(out).drop("run_id").equals(_plain(full).drop("run_id"))
    open_records(out).verify()


def test_study_cache_damaged_cell_is_refused(tmp_path):
    """A study's cached cell damaged on disk: ``kbsim report`` refuses it (naming it) instead of reusing it."""
    study = tmp_path / "s.toml"
    study.write_text('name = "s"\nplayers = [2]\ngames = 30\nseed = 3\n[[arms]]\nname = "a"\n', encoding="utf-8")
    code, _, err = kb("report", str(study), "--workers", "1", "--no-progress")
    assert code == 0, err
    (cell,) = (tmp_path / "_build" / "records" / "s").glob("*.parquet")
    _damaged(cell, cell, cell.stat().st_size // 2, b"\0" * 100)
    code, _, err = kb("report", str(study), "--workers", "1", "--no-progress", "--force")
    assert_user_error(code, err, str(cell), "damaged", "delete it to play it again")


def test_every_written_file_verifies(tmp_path):
    """A run's final file and a rewritten copy (as ``write_records`` writes) carry their integrity entry."""
    out = tmp_path / "a.parquet"
    assert kb("run", "-n", "25", "--seed", "9", "--workers", "1", "-o", str(out))[0] == 0
    rf = open_records(out)
    assert rf.integrity is not None and len(rf.integrity["digest"]) == 32
    assert (rf.integrity["rows"], rf.integrity["columns"]) == (25, ["game_index", "seed", "deal_hash"])
    rf.verify()
    copy = tmp_path / "b.parquet"
    table = rf.read().replace_schema_metadata(pq.ParquetFile(out).metadata.metadata)
    write_records(table, copy)
    assert open_records(copy).integrity == rf.integrity  # the same rows: the same digest, in any row groups
    shutil.copy(REPO / "README.md", tmp_path / "README.parquet")
    with pytest.raises(RecordsError, match="not a Parquet file"):
        open_records(tmp_path / "README.parquet")


def test_files_of_kbsim_0_1_0_without_integrity_are_read_unverified(ok_file, tmp_path):
    """kbsim 0.1.0 wrote no integrity entry (schemas 1 to 6, and schema 7 files of its development builds with
    the moves column): read unverified. Any later writer must have one (the no-integrity case above)."""
    old = _rewrite(
        ok_file,
        tmp_path / "old.parquet",
        meta_edit=lambda m: {k: v for k, v in m.items() if k != b"kbsim.integrity"} | {b"kbsim.version": b'"0.1.0"'},
    )
    rf = open_records(old)
    assert rf.integrity is None and rf.schema_version == kbsim.records.RECORDS_SCHEMA_VERSION
    assert kbsim.records.load(old).equals(kbsim.records.load(ok_file))
    assert "read unverified" in kbsim.records.describe_version(rf)
    later = _rewrite(
        ok_file,
        tmp_path / "later.parquet",
        meta_edit=lambda m: {k: v for k, v in m.items() if k != b"kbsim.integrity"} | {b"kbsim.version": b'"0.3.0"'},
    )
    with pytest.raises(RecordsError, match="kbsim.integrity is missing"):
        open_records(later)


def test_replay_and_play_refuse_a_damaged_records_file(ok_file, tmp_path):
    """``kbsim replay --records`` and the records file of ``kbsim play``: the same one-line refusal; a game
    appended by ``kbsim play`` is written with checksums and its integrity entry."""
    from kbsim.play import store

    bad = _damaged(ok_file, tmp_path / "bad.parquet", ok_file.stat().st_size // 2)
    code, out, err = kb("replay", "--records", str(bad), "-i", "0")
    assert_user_error(code, err, str(bad), "damaged file", "checksum")
    assert "RecordsError" not in err
    with pytest.raises(RecordsError, match="damaged file"):
        store.played_seeds(bad)
    garbage = _rewrite(ok_file, tmp_path / "g.parquet", meta_edit=lambda m: m | {b"kbsim.run": b"{not json"})
    with pytest.raises(store.StoreError, match="g.parquet: damaged kbsim metadata: kbsim.run is not valid JSON"):
        store.check_records_file(garbage, {"kind": "play"})
    # a play file: one game appended, then verified as it is read again
    row = pq.read_table(ok_file).slice(0, 1).to_pydict()
    identity = {"kind": "play", "game": "kingsbridge", "players": 2}
    played = tmp_path / "play.parquet"
    assert store.append_game(played, row, {"version": kbsim.__version__, "run": identity})
    rf = open_records(played)
    assert rf.integrity is not None and rf.integrity["rows"] == 1
    rf.verify()
    assert store.played_seeds(played) == {row["seed"][0]}
