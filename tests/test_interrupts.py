"""Ctrl-C and SIGTERM, with real signals to real processes (issue 28, item 5).

Any sequence of SIGINT/SIGTERM, to the whole process group (a terminal's Ctrl-C) or to kbsim alone (``timeout -s
INT``), ends a run within a few seconds: what is finished is kept, the last line says how to resume, no worker
process is left and nothing prints a traceback. The same for ``kbsim report`` and the Dask backend.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from conftest import cli_env

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc and POSIX signals")

_SCRIPT = Path(sys.executable).with_name("kbsim")
KBSIM = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-c", "from kbsim.cli import main; main()"]
STOP_SECONDS = 10.0  # "within a few seconds" on a loaded 2-core machine; a clean stop takes about 1 s


def _group(pgid: int) -> list[str]:
    """The live (not zombie) processes of process group ``pgid``: ``pid command`` lines."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(f"{d.name} {cmd}")
    return out


def _wait_for(cond, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


class Interrupted:
    """A kbsim command in a process group of its own (as a terminal's foreground job), and what signals did."""

    def __init__(self, args: list[str], cwd: Path):
        self.err_path = cwd / "stderr.txt"
        with open(self.err_path, "w") as err, open(cwd / "stdout.txt", "w") as out:
            self.proc = subprocess.Popen(
                [*KBSIM, *args], cwd=cwd, env=cli_env(), stdout=out, stderr=err, start_new_session=True
            )
        self.seconds: float | None = None

    def send(self, *steps: str | float, group: bool = True) -> None:
        """Send ``INT``/``TERM`` (to the group, or to kbsim alone), with pauses (seconds) between them."""
        t0 = None
        for step in steps:
            if isinstance(step, str):
                t0 = t0 or time.monotonic()
                sig = getattr(signal, "SIG" + step)
                try:
                    os.killpg(self.proc.pid, sig) if group else os.kill(self.proc.pid, sig)
                except ProcessLookupError:
                    pass
            else:
                time.sleep(step)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            pytest.fail(f"kbsim still running 60 s after {steps}")
        self.seconds = time.monotonic() - (t0 or time.monotonic())

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    def check_clean_stop(self, signum: int = signal.SIGINT) -> str:
        """Stopped within STOP_SECONDS with exit 128 + signal (or by the signal itself, during the interpreter's
        exit), one line on stderr and no traceback, and no process of the group left behind. Returns the line."""
        assert self.seconds is not None and self.seconds < STOP_SECONDS, (self.seconds, self.stderr)
        assert self.proc.returncode in (128 + signum, -signal.SIGINT, -signum), (self.proc.returncode, self.stderr)
        assert "Traceback" not in self.stderr and "Error" not in self.stderr, self.stderr
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        assert lines and all(ln.startswith("kbsim: interrupted") for ln in lines), self.stderr
        assert _wait_for(lambda: not _group(self.proc.pid), 5.0), _group(self.proc.pid)
        return lines[-1]


def _chunks(parts: Path) -> int:
    return len(list(parts.glob("chunk-*.parquet")))


RUN = ["run", "-p", "4", "--seed", "42", "--workers", "2", "--no-progress", "-o", "i2.parquet"]


@pytest.mark.parametrize("steps", [("INT", 0.3, "INT"), ("INT", 0.05, "INT", 0.05, "INT"), ("TERM", 0.3, "INT")])
@pytest.mark.long
def test_signals_to_the_group_during_a_run_stop_it_and_it_resumes(tmp_path, steps):
    """The handed case: `kbsim run -p 4 -n 40000 --seed 42 -o i2.parquet --workers 2`, Ctrl-C twice quickly."""
    run = Interrupted([*RUN, "-n", "3000", "--chunk-size", "100"], tmp_path)
    parts = tmp_path / "i2.parquet.parts"
    assert _wait_for(lambda: _chunks(parts) >= 2, 60)
    run.send(*steps)
    line = run.check_clean_stop(getattr(signal, "SIG" + steps[0]))
    safe = _chunks(parts) * 100
    if "stopped at once" in line:  # a third signal before the clean stop was done: forced, and nothing lost
        assert "finished chunks are kept in i2.parquet.parts" in line and "--resume" in line, line
    else:
        assert f"{safe:,} of 3,000 games are safe in i2.parquet.parts" in line and "--resume" in line, line
    done = subprocess.run(
        [*KBSIM, *RUN, "-n", "3000", "--chunk-size", "100", "--resume"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert pl.read_parquet(tmp_path / "i2.parquet")["game_index"].to_list() == list(range(3000))


def test_sigint_to_kbsim_alone_ends_a_run_of_slow_chunks_at_once(tmp_path):
    """The handed case `timeout -s INT 6 kbsim run -p 2 -n 1000000000 ...` waited for the workers' chunks (148 s):
    here every chunk takes minutes (the planner, 400 games each), and the stop must not wait for one."""
    run = Interrupted(
        ["run", "-p", "4", "-n", "1000000000", "--seed", "1", "--bots", "planner", "--chunk-size", "400"]
        + ["--workers", "2", "--no-progress", "-o", "o.parquet"],
        tmp_path,
    )
    # the workers are started (forkserver and two workers in the group) and playing
    assert _wait_for(lambda: len(_group(run.proc.pid)) >= 4, 60), _group(run.proc.pid)
    time.sleep(1.0)
    run.send("INT", group=False)
    line = run.check_clean_stop()
    assert "no game was finished, nothing is kept; run the same command to start again" in line, line
    assert not (tmp_path / "o.parquet.parts").exists()  # nothing to resume: no empty staging folder left
    code = subprocess.run([*KBSIM, "run", "--seed", "1", "-o", "o.parquet", "--resume"], cwd=tmp_path).returncode
    assert code == 2  # and --resume says there is nothing to resume


@pytest.mark.parametrize("when", ["loading", "workers starting"])
def test_ctrl_c_while_kbsim_starts_is_one_line(tmp_path, when):
    """Ctrl-C while the modules load or the worker processes start: one line, never a traceback (the forkserver
    importing kbsim, or a worker half-started, printed one)."""
    run = Interrupted([*RUN, "-n", "3000", "--chunk-size", "100"], tmp_path)
    if when == "loading":
        time.sleep(0.3)
    else:
        assert _wait_for(lambda: len(_group(run.proc.pid)) >= 2, 60)  # the forkserver (or a worker) exists
    run.send("INT", 0.2, "INT")
    run.check_clean_stop()


def test_report_stops_on_ctrl_c_twice(tmp_path):
    study = tmp_path / "st.toml"
    study.write_text(
        'name = "st"\ngame = "kingsbridge"\nplayers = [3, 4]\ngames = 3000\nseed = 5\n\n[[arms]]\nname = "base"\n'
        '\n[[arms]]\nname = "mixed"\nbots = ["greedy", "random"]\n'
    )
    run = Interrupted(["report", str(study), "--workers", "2", "--no-progress"], tmp_path)
    records = tmp_path / "_build" / "records" / "st"
    assert _wait_for(lambda: any(_chunks(p) for p in records.glob("*.parts")), 120)
    run.send("INT", 0.3, "INT")
    line = run.check_clean_stop()
    assert "finished chunks are kept in" in line and "run the same command again" in line, line


def test_dask_local_cluster_stops_on_ctrl_c(tmp_path):
    pytest.importorskip("distributed")
    run = Interrupted([*RUN, "-n", "3000", "--chunk-size", "50", "--backend", "dask"], tmp_path)
    assert _wait_for(lambda: _chunks(tmp_path / "i2.parquet.parts") >= 1, 120)
    run.send("INT")
    line = run.check_clean_stop()
    assert "games are safe in i2.parquet.parts" in line, line


TUNE_STUDY = (
    'name = "tq"\ngame = "kingsbridge"\nplayers = [4]\ngames = 1800\nseed = 7\n\n[tune]\ntrials = 4\nrungs = 1\n'
    '[tune.options]\nhand_size = { low = 5, high = 8 }\n[[tune.targets]]\nmeasure = "first_seat"\nminimise = true\n'
    "[tune.verify]\nmin_deals = 200\nmax_deals = 200\n"
)


@pytest.mark.parametrize("steps", [("INT",), ("TERM", 0.3, "INT")])
@pytest.mark.long
def test_tune_stops_on_signals_keeps_its_search_and_continues(tmp_path, steps):
    """`kbsim tune` stopped mid-trial: exit 128 + signal, one line saying where the search is kept, no worker left;
    the same command again finishes the search and writes the page."""
    study = tmp_path / "tq.toml"
    study.write_text(TUNE_STUDY)
    args = ["tune", str(study), "--workers", "2", "--no-progress"]
    run = Interrupted(args, tmp_path)
    records = tmp_path / "_build" / "tune" / "tq" / "records"
    assert _wait_for(lambda: any(_chunks(p) for p in records.rglob("*.parts")), 120), list(tmp_path.rglob("*"))
    run.send(*steps)
    line = run.check_clean_stop(getattr(signal, "SIG" + steps[0]))
    assert "the search so far is kept in" in line and "run the same command again to continue" in line, line
    assert not (tmp_path / "_build" / "tq.html").exists()
    done = subprocess.run([*KBSIM, *args, "--json"], cwd=tmp_path, capture_output=True, text=True, env=cli_env())
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "_build" / "tq.html").is_file()


def test_an_interrupt_lost_in_a_finalizer_is_raised_again():
    """The CI case: Ctrl-C arrived while ``ParquetWriter.__del__`` ran, Python printed "Exception ignored ...
    KeyboardInterrupt" and the run went on (a tune stop took 11 s and printed a traceback). Inside
    ``stop_on_signals`` such a lost interrupt is raised again in the main thread, with no second signal counted."""
    from kbsim.sim.run import stop_on_signals

    class Finalizer:
        def __del__(self):
            raise KeyboardInterrupt  # as a signal handler raising while the finalizer runs

    with pytest.raises(KeyboardInterrupt), stop_on_signals() as stop:
        Finalizer()  # dropped at once: its __del__ runs here, and its exception cannot propagate
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.01)
        pytest.fail("the interrupt lost in the finalizer was not raised again")
    assert stop.received == 0
    assert sys.unraisablehook is sys.__unraisablehook__ or sys.unraisablehook.__module__ != "kbsim.sim.run"
