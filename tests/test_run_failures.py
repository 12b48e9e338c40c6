"""A game that fails inside a run (an engine or bot error): every command that plays games says it in one line.

``kbsim run``, ``kbsim report`` and ``kbsim tune`` print ``kbsim: error: the run failed in CELL, game N (deal seed S,
bots ...) (TYPE: MESSAGE); what is kept; how to continue`` on stderr and exit 1, never a traceback; the finished
chunks stay on disk and the same command continues (issue 26).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import cli_env, pure_only
from kbsim.sim.run import RunFailed
from kbsim.sim.runner import RunSpec, play_chunk

# Runs kbsim's command line with the game loop of kbsim.sim.runner patched to raise in the FAIL-th game it plays
# (counted from 1 in this process; --workers 1 plays every chunk here). FAIL=0: no failure.
_DRIVER = textwrap.dedent(
    """
    import sys
    import kbsim.sim.runner as runner
    from kbsim.cli import main

    fail_at, played = int(sys.argv[1]), [0]
    real = runner.play_game

    def play_game(*args, **kwargs):
        played[0] += 1
        if played[0] == fail_at:
            raise RuntimeError("boom in the engine")
        return real(*args, **kwargs)

    runner.play_game = play_game
    sys.argv = ["kbsim", *sys.argv[2:]]
    main()
    """
)


def _kbsim(fail_at: int, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _DRIVER, str(fail_at), *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "fail.toml"
    path.write_text(
        textwrap.dedent(
            """
            name = "fail"
            game = "kingsbridge"
            players = [2]
            games = 3
            seed = 5
            ladder = ["random", "greedy"]

            [[arms]]
            name = "base"

            [[arms]]
            name = "hand 7"
            options = { hand_size = 7 }
            """
        ),
        encoding="utf-8",
    )
    return path


@pure_only("kbsim.sim.runner")
def test_report_says_a_failed_game_in_one_line_and_continues(tmp_path):
    """A game of `kbsim report` raises: one stderr line naming the cell, the game and the error, what is kept and how
    to continue; exit 1, no traceback; the runs finished before stay on disk and are reused by the next report."""
    _study(tmp_path)
    args = ("report", "fail.toml", "--workers", "1", "--no-progress", "-o", "p.html")
    # one run of 3 deals per cell, played arm by arm, rung by rung: the 8th game is game 1 of the third cell
    proc = _kbsim(8, *args, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    (line,) = lines
    assert line.startswith("kbsim: error: the run failed in arm 'hand 7 · random', 2 players, "), line
    assert "game 1 (deal seed " in line and "bots random, random" in line, line
    assert "(RuntimeError: boom in the engine)" in line, line
    assert "finished chunks are kept in " in line and line.endswith("run the same command again to continue")
    assert not (tmp_path / "p.html").exists()
    again = _kbsim(0, *args, "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    import json

    summary = json.loads(again.stdout)
    assert summary["runs_reused"] >= 1 and summary["runs_played"] == summary["runs"] - summary["runs_reused"]


@pure_only("kbsim.sim.runner")
def test_run_says_a_failed_game_in_one_line(tmp_path):
    proc = _kbsim(3, "run", "-p", "2", "-n", "4", "--seed", "2", "--workers", "1", "-o", "r.parquet", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("kbsim: error: the run failed in game 2 (deal seed "), line
    assert "(RuntimeError: boom in the engine)" in line and line.endswith("with --resume to complete it"), line


@pure_only("kbsim.sim.runner")
def test_a_game_that_raises_is_named_by_the_note_run_failed_reads(monkeypatch):
    """The note play_chunk adds survives the trip through RunFailed: the game index, its deal seed and bots."""
    from kbsim import load_game

    g = load_game("kingsbridge")
    spec = RunSpec(game=g, players=2, bots=("greedy", "greedy"), games=4, seed=9)

    def boom(*args, **kwargs):
        raise ValueError("bad state")

    monkeypatch.setattr("kbsim.sim.runner.play_game", boom)
    with pytest.raises(ValueError) as info:
        play_chunk(spec, range(2, 4))
    failed = RunFailed(info.value, 0, 4, Path("parts"), cell="arm 'x', 2 players")
    seed, _ = spec.game_of(2)
    assert failed.game == f"game 2 (deal seed {seed}, bots greedy, greedy)"
    assert failed.where == f"arm 'x', 2 players, game 2 (deal seed {seed}, bots greedy, greedy)"
    assert str(failed) == "ValueError: bad state"


_TUNE_STUDY = """
name = "t"
game = "kingsbridge"
players = [2]
games = 4
seed = 5
[tune]
trials = 1
[tune.options]
hand_size = { low = 5, high = 7 }
[[tune.targets]]
measure = "seat_gap"
minimise = true
"""


@pure_only("kbsim.sim.runner")
@pytest.mark.parametrize("where", ["probe", "search"])
def test_tune_says_a_failed_game_in_one_line(tmp_path, where):
    """`kbsim tune`: a game that fails while the targets are checked (the probe games) or during the search is one
    line and exit 1 (it was exit 2, a user's error)."""
    from kbsim.tune.tuning import PROBE_DEALS

    (tmp_path / "t.toml").write_text(_TUNE_STUDY, encoding="utf-8")
    fail_at = 1 if where == "probe" else PROBE_DEALS + 2
    proc = _kbsim(fail_at, "tune", "t.toml", "--workers", "1", "--no-progress", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("kbsim: error: the run failed in ") and "(RuntimeError: boom in the engine)" in line, line
    if where == "probe":
        assert "the probe games of arm " in line and "nothing was kept" in line, line
    else:
        assert "the search so far is kept in " in line and line.endswith("run the same command again to continue")


# ------------------------------------------------------------------ any command: an engine error is one line
def test_an_engine_error_any_command_meets_is_one_line_and_exit_1(monkeypatch, capsys):
    """``kbsim replay`` / ``play`` met an engine error (an illegal move, a broken invariant) with a traceback; any
    command now ends on one line naming the error, exit 1 (KBSIM_TRACEBACK=1 keeps the traceback)."""
    from kbsim.cli import application
    from kbsim.engine.results import IllegalMove, InvariantError

    monkeypatch.delenv("KBSIM_TRACEBACK", raising=False)
    for err in (IllegalMove("no card 7 in hand\nsecond line"), InvariantError("cards not conserved")):
        with pytest.raises(SystemExit) as e:
            application._other_error(err)
        assert e.value.code == 1
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"kbsim: error: a game failed ({type(err).__name__}: ")
        assert "Traceback (most recent call last)" not in lines[0] and str(err).split("\n")[-1] in lines[0]

    def handled(err: Exception) -> None:  # (as in main: inside the except clause)
        try:
            raise err
        except Exception as x:
            application._other_error(x)

    monkeypatch.setenv("KBSIM_TRACEBACK", "1")
    with pytest.raises(IllegalMove):
        handled(IllegalMove("x"))
    monkeypatch.delenv("KBSIM_TRACEBACK")
    with pytest.raises(KeyError):  # (other exceptions still propagate: a real bug shows its traceback)
        handled(KeyError("k"))
