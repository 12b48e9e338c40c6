"""Issue 6: backends, chunked atomic output, resume, refusing to mix runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from kbsim.engine.rows.compiled import compile_rules
from kbsim.rules import load_rules
from kbsim.sim.output import OutputError, RunOutput
from kbsim.sim.runner import Backend, RunSpec, plan_chunks, run_chunks, run_games

KBSIM = [sys.executable, "-m", "kbsim.cli"]


def kbsim(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*KBSIM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


def test_dask_local_cluster_matches_serial(tmp_path):
    pytest.importorskip("distributed")
    loaded = load_rules("kingsbridge")
    g = compile_rules(loaded)
    spec = RunSpec(game=g, players=3, bots=("greedy",) * 3, games=120, seed=77, rules_hash=loaded.rules_hash)
    serial = run_games(spec, Backend(), chunk_size=25)
    p = kbsim(
        "run",
        "-p",
        "3",
        "-n",
        "120",
        "--seed",
        "77",
        "--backend",
        "dask",
        "--workers",
        "2",
        "--chunk-size",
        "13",
        "--out",
        "d.parquet",
        "--json",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["backend"] == "dask"
    dask_records = pl.read_parquet(tmp_path / "d.parquet").to_dict(as_series=False)
    for col, values in serial.items():
        assert dask_records[col] == values, col


def test_chunks_written_atomically_and_merged_in_order(tmp_path):
    g = compile_rules(load_rules("kingsbridge"))
    spec = RunSpec(game=g, players=2, bots=("greedy", "greedy"), games=50, seed=3)
    out = RunOutput(tmp_path / "r.parquet", spec.parameters() | {"chunk_size": 7}, "test")
    chunks = plan_chunks(50, 7)
    run_chunks(spec, Backend(), list(reversed(chunks)), out.write_chunk)  # arrival order reversed
    assert len(list(out.parts.glob("chunk-*.parquet"))) == len(chunks)
    assert not list(out.parts.glob("*.tmp"))
    out.finalize()
    assert not out.parts.exists()
    df = pl.read_parquet(tmp_path / "r.parquet")
    assert df["game_index"].to_list() == list(range(50))
    assert oct(os.stat(tmp_path / "r.parquet").st_mode & 0o777) != oct(0o600)  # normal file permissions


@pytest.mark.long
def test_resume_after_sigterm_gives_identical_records(tmp_path):
    args = [
        "run",
        "-p",
        "4",
        "-n",
        "2000",
        "--seed",
        "21",
        "--chunk-size",
        "50",
        "--workers",
        "2",
        "--out",
        "r.parquet",
        "--json",
        "--no-progress",
    ]
    proc = subprocess.Popen([*KBSIM, *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = tmp_path / "r.parquet.parts"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(parts.glob("chunk-*.parquet"))) < 5:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the run finished before it could be interrupted")
    assert proc.returncode == 143  # 128 + SIGTERM, as a shell reports a process stopped by it
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "games are safe" in lines[0] and "--resume" in lines[0], err
    safe = len(list(parts.glob("chunk-*.parquet"))) * 50
    assert 0 < safe < 2000
    assert not (tmp_path / "r.parquet").exists()
    # without --resume the unfinished run is protected
    again = kbsim(*args, cwd=tmp_path)
    assert again.returncode == 2 and "--resume" in again.stderr
    done = kbsim(*args, "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 2000
    assert summary["games_played_now"] == 2000 - safe
    ref = kbsim(
        "run",
        "-p",
        "4",
        "-n",
        "2000",
        "--seed",
        "21",
        "--workers",
        "1",
        "--out",
        "ref.parquet",
        "--json",
        "--no-progress",
        cwd=tmp_path,
    )
    assert ref.returncode == 0, ref.stderr
    a = pl.read_parquet(tmp_path / "r.parquet")
    b = pl.read_parquet(tmp_path / "ref.parquet")
    assert a["game_index"].to_list() == list(range(2000))  # no duplicates, nothing missing
    assert a.equals(b)


def test_resume_refuses_other_parameters(tmp_path):
    first = kbsim("run", "-p", "2", "-n", "40", "--seed", "5", "--out", "r.parquet", "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = (tmp_path / "r.parquet").read_bytes()
    other = kbsim("run", "-p", "3", "-n", "40", "--seed", "5", "--out", "r.parquet", "--resume", cwd=tmp_path)
    assert other.returncode == 2
    err = [ln for ln in other.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "other parameters" in err[0] and "Traceback" not in other.stderr
    assert (tmp_path / "r.parquet").read_bytes() == before
    same = kbsim("run", "-p", "2", "-n", "40", "--seed", "5", "--out", "r.parquet", "--resume", "--json", cwd=tmp_path)
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["games_played_now"] == 0
    assert (tmp_path / "r.parquet").read_bytes() == before


def test_output_refuses_unfinished_run_without_resume(tmp_path):
    params = {"game": "kingsbridge", "seed": 1}
    RunOutput(tmp_path / "x.parquet", params, "test")
    with pytest.raises(OutputError, match="--resume"):
        RunOutput(tmp_path / "x.parquet", params, "test")
    with pytest.raises(OutputError, match="other parameters"):
        RunOutput(tmp_path / "x.parquet", {"game": "kingsbridge", "seed": 2}, "test", resume=True)
    assert RunOutput(tmp_path / "x.parquet", params, "test", resume=True).done_chunks() == set()
