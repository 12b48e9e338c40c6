"""The words of the run summary (defect 4 of the new-user report).

The rate column is the rate of winning alone (a shared win is counted apart), and a resumed run's speed counts only
the games played now, so the summary says how many games it reused from the interrupted run.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from conftest import run_cli
from kbsim.records import write_records
from kbsim.sim.output import RunOutput


def test_the_rate_column_says_wins_alone(tmp_path):
    p = run_cli("run", "-p", "3", "-n", "10", "--seed", "5", "--workers", "1", "-o", "r.parquet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "wins alone [95%]" in p.stdout, p.stdout
    assert "win rate" not in p.stdout


def test_a_resumed_run_says_how_many_games_it_reused(tmp_path):
    args = ["run", "-n", "40", "--seed", "4", "--workers", "1", "--chunk-size", "10"]
    full = tmp_path / "full.parquet"
    assert run_cli(*args, "-o", str(full), cwd=tmp_path).returncode == 0
    table = pq.read_table(full)
    params = json.loads(pq.ParquetFile(full).metadata.metadata[b"kbsim.run"])
    out = tmp_path / "r.parquet"
    ro = RunOutput(out, params, "x")  # an interrupted run: 3 of its 4 chunks staged
    for a in (0, 10, 20):
        write_records(table.slice(a, 10), ro.parts / f"chunk-{a:010d}-{a + 10:010d}.parquet")
    ro._unlock()
    p = run_cli(*args, "-o", str(out), "--resume", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (line,) = [ln for ln in p.stdout.splitlines() if "games/s" in ln]
    assert "30 games reused from the interrupted run" in line, line
