"""Odd inputs (issue 28, item 5): files that are not regular files, oversized study files, a character deal the
roster cannot hold, --resume with nothing staged, the resume in a finishing run's gap, and the wording of
messages (no pydantic prefixes, no echo of a whole document, shipped files by name, a BOM accepted)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from importlib import resources
from pathlib import Path

import pytest

from conftest import REPO, RULE_FILE, cli_env
from kbsim.strict_io import INPUT_LIMITS, MAX_INPUT_BYTES, InputFileError, check_bounds, read_input_text

KB_TEXT = RULE_FILE.read_text(encoding="utf-8")
KBSIM = [sys.executable, "-m", "kbsim.cli"]


def kbsim(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run kbsim in a subprocess: an input that blocks it (a named pipe) fails the test instead of hanging it."""
    try:
        return subprocess.run([*KBSIM, *args], cwd=cwd, env=cli_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kbsim {' '.join(args)} still running after {timeout} s")


def one_line_error(p: subprocess.CompletedProcess, *needles: str) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kbsim: error: "), p.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def finishes(fn, timeout: float = 10.0):
    """``fn()`` run in a daemon thread: its result or exception, or a test failure if it blocks."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f"{fn} blocked for {timeout} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


# ------------------------------------------------------------------ not a regular file
@needs_fifo
def test_a_fifo_as_records_file_is_refused_at_once(tmp_path):
    """The handed case: `mkfifo f.parquet && kbsim compare f.parquet -o out.html` blocked for ever."""
    os.mkfifo(tmp_path / "f.parquet")
    p = kbsim("compare", "f.parquet", "-o", "out.html", cwd=tmp_path)
    one_line_error(p, "f.parquet: is a named pipe (FIFO)", "records file")
    assert not (tmp_path / "out.html").exists()


@needs_fifo
def test_every_reader_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "f.parquet"
    os.mkfifo(fifo)
    from kbsim import records

    for fn in (
        lambda: records.read_metadata(fifo),
        lambda: records.column_names(fifo),
        lambda: records.read_columns(fifo, ["turns"]),
        lambda: list(records.iter_batches(fifo, ["turns"])),
        lambda: records.load(fifo),
        lambda: records.load([fifo]),
    ):
        with pytest.raises(InputFileError, match="named pipe"):
            finishes(fn)
    folder = tmp_path / "runs"
    folder.mkdir()
    os.mkfifo(folder / "x.parquet")  # a folder of records holding a named pipe
    with pytest.raises(InputFileError, match="named pipe"):
        finishes(lambda: records.load(folder))


@needs_fifo
@pytest.mark.parametrize(
    "args",
    [
        ("rules", "check", "f.yaml"),
        ("rules", "show", "f.yaml"),
        ("rules", "test", "f.yaml"),
        ("run", "-n", "2", "--seed", "1", "-g", "f.yaml", "-o", "r.parquet"),
        ("report", "f.toml"),
        ("tune", "f.toml"),
        ("run", "-n", "2", "--seed", "1", "-o", "f.parquet"),  # an output that is a named pipe: never opened
        ("run", "-n", "2", "--seed", "1", "-o", "f.parquet", "--resume"),
        ("compare", "r0.parquet", "-o", "f.html"),
    ],
)
def test_named_pipes_anywhere_are_refused(tmp_path, args):
    for name in ("f.yaml", "f.toml", "f.parquet", "f.html"):
        os.mkfifo(tmp_path / name)
    assert kbsim("run", "-n", "2", "--seed", "1", "--workers", "1", "-o", "r0.parquet", cwd=tmp_path).returncode == 0
    p = kbsim(*args, cwd=tmp_path)
    one_line_error(p, "f.")


@needs_fifo
def test_a_fifo_card_table_is_refused(tmp_path):
    text = (REPO / "rules" / "continental-express.yaml").read_text(encoding="utf-8")
    (tmp_path / "ce.yaml").write_text(
        text.replace("card_table: tables/continental-express-cards.yaml", "card_table: t.yaml")
    )
    os.mkfifo(tmp_path / "t.yaml")
    one_line_error(kbsim("rules", "check", "ce.yaml", cwd=tmp_path), "t.yaml", "named pipe")


@needs_fifo
def test_resume_skips_a_fifo_among_the_staged_chunks(tmp_path):
    from kbsim.sim.output import RunOutput

    out = tmp_path / "r.parquet"
    ro = RunOutput(out, {"k": 1}, "x")
    os.mkfifo(ro.parts / "chunk-0000000000-0000000010.parquet")
    ro.close()
    again = finishes(lambda: RunOutput(out, {"k": 1}, "x", resume=True))
    assert again.done_chunks() == set()  # dropped, to be played again
    again.close()


def test_read_input_text_limits_and_bom(tmp_path):
    f = tmp_path / "a.toml"
    f.write_bytes(b"\xef\xbb\xbfname = 1\n")
    assert read_input_text(f) == "name = 1\n"
    f.write_bytes(b"x" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(InputFileError, match="larger than 1,000,000 bytes"):
        read_input_text(f)
    f.write_bytes(b"\xff\xfe")
    with pytest.raises(InputFileError, match="not UTF-8"):
        read_input_text(f)
    with pytest.raises(InputFileError, match="is a folder"):
        read_input_text(tmp_path)
    with pytest.raises(InputFileError, match="no such file"):
        read_input_text(tmp_path / "missing.yaml")
    if Path("/dev/zero").exists():
        with pytest.raises(InputFileError, match="character device"):
            finishes(lambda: read_input_text("/dev/zero"))


# ------------------------------------------------------------------ study files
STUDY = 'name = "s"\ngame = "kingsbridge"\nplayers = [2]\ngames = 3\nseed = 1\n\n[[arms]]\nname = "base"\n'


def test_a_ten_megabyte_title_is_refused_quickly(tmp_path):
    """The handed case: a 10 MB title gave exit 0, 6.3 s, 403 MB and a 24.9 MB page."""
    (tmp_path / "big.toml").write_text('title = "' + "x" * 10_000_000 + '"\n' + STUDY)
    t0 = time.monotonic()
    p = kbsim("report", "big.toml", "--workers", "1", cwd=tmp_path)
    one_line_error(p, "big.toml: the file is larger than 1,000,000 bytes")
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "_build").exists()


@pytest.mark.parametrize(
    "extra, needle",
    [
        ('title = "' + "t" * 201 + '"\n', "title: String should have at most 200 characters"),
        ('question = "' + "q" * 20_001 + '"\n', "question: String should have at most 20000 characters"),
        ("a = " + "[" * 40 + "]" * 40 + "\n", "nested more than 32 levels"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("a = [" + "1, " * 200_001 + "]\n", "more than 200,000 values"),
    ],
)
def test_study_files_obey_the_input_limits(tmp_path, extra, needle):
    from kbsim.sim.study import StudyError, load_study

    f = tmp_path / "s.toml"
    f.write_text(extra + STUDY)
    with pytest.raises(StudyError) as e:
        load_study(f)
    assert needle in str(e.value) and "\n" not in str(e.value), str(e.value)[:300]


def test_study_lists_are_bounded(tmp_path):
    from kbsim.sim.study import StudyError, study_from_dict

    base = {"name": "s", "players": [2], "games": 1, "seed": 1}
    with pytest.raises(StudyError, match="arms: List should have at most 1000 items"):
        study_from_dict(base | {"arms": [{"name": str(i)} for i in range(1001)]})
    with pytest.raises(StudyError, match='arms #1 "a".bots: expected at most 1,000 bot names of at most 200'):
        study_from_dict(base | {"arms": [{"name": "a", "bots": "g" * 201}]})


def test_a_study_file_with_a_bom_reads_like_one_without(tmp_path):
    """The handed case: a UTF-8 byte-order mark was reported as `Invalid statement`."""
    from kbsim.sim.study import load_study

    (tmp_path / "plain.toml").write_text(STUDY, encoding="utf-8")
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + STUDY.encode())
    (tmp_path / "bom.yaml").write_bytes(
        b"\xef\xbb\xbfname: s\ngame: kingsbridge\nplayers: [2]\ngames: 3\nseed: 1\narms: [{name: base}]\n"
    )
    plain = load_study(tmp_path / "plain.toml").model_dump()
    assert load_study(tmp_path / "bom.toml").model_dump() == plain
    assert load_study(tmp_path / "bom.yaml").model_dump() == plain


def test_input_limits_are_the_rules_limits_and_documented():
    from kbsim.rules.schema import LIMITS

    assert all(LIMITS[k] == v for k, v in INPUT_LIMITS.items())
    studies = (REPO / "docs" / "guide" / "studies.md").read_text(encoding="utf-8")
    assert "1,000,000 bytes" in studies and "200 characters" in studies and "20,000 characters" in studies


def test_check_bounds_walks_without_recursion():
    deep: list = []
    node = deep
    for _ in range(100_000):  # far deeper than Python's recursion limit
        node.append([])
        node = node[0]
    with pytest.raises(Exception, match="nested more than 32 levels"):
        check_bounds(deep)


# ------------------------------------------------------------------ rule files: characters dealt
@pytest.mark.parametrize(
    "deal, needle",
    [
        ("{2: 500, 3: 3, 4: 2, 5: 2}", "characters.deal.2: Input should be less than or equal to 64 (got 500)"),
        (
            "{2: 6, 3: 3, 4: 2, 5: 2}",
            "deal.2: 2 players x 6 characters need 12 character cards but the roster holds 10",
        ),
        ("{2: 5, 9: 1}", "characters.deal: key 9: Input should be less than or equal to 8"),
        ("{2: -1}", "characters.deal.2: Input should be greater than or equal to 0"),
    ],
)
def test_a_deal_of_more_characters_than_the_roster_is_refused(tmp_path, deal, needle):
    """The handed case: `deal: {2: 500, ...}` passed `kbsim rules check` and `run` played it."""
    f = tmp_path / "k.yaml"
    f.write_text(KB_TEXT.replace("deal: {2: 5, 3: 3, 4: 2, 5: 2}", f"deal: {deal}", 1))
    one_line_error(kbsim("rules", "check", str(f), cwd=tmp_path), needle)
    p = kbsim("run", "-n", "2", "-p", "2", "-g", str(f), "-v", "characters", "--seed", "1", cwd=tmp_path)
    one_line_error(p, needle)


# ------------------------------------------------------------------ --resume
def test_resume_with_nothing_staged_is_refused(tmp_path):
    p = kbsim("run", "-n", "10", "--seed", "3", "-o", "r.parquet", "--resume", cwd=tmp_path)
    one_line_error(p, "--resume: nothing to resume", "r.parquet.parts", "without --resume")
    assert not list(tmp_path.iterdir())


def test_a_resume_in_the_gap_after_a_run_finished_finds_the_finished_file(tmp_path, monkeypatch):
    """The handed case: the run released its lock before deleting its staging folder; a --resume in that gap
    took the lock and went on in a folder being deleted ("N games are safe ... run --resume", false)."""
    import shutil

    import kbsim
    from kbsim.sim import output
    from kbsim.sim.output import OutputError, RunOutput
    from kbsim.sim.runner import Backend, RunSpec, plan_chunks, run_chunks

    spec = RunSpec(game=kbsim.load_game("kingsbridge"), players=2, bots=("greedy", "greedy"), games=20, seed=3)
    params = spec.parameters() | {"chunk_size": 10}
    out = tmp_path / "r.parquet"
    first = RunOutput(out, params, "x")
    run_chunks(spec, Backend(), plan_chunks(20, 10), first.write_chunk)
    seen: list = []
    real_rmtree = shutil.rmtree

    def rmtree_then_resume(path, *a, **kw):  # a second run opens the output while the first deletes its folder
        try:
            second = RunOutput(out, params, "x", resume=True)
            seen.append("complete" if second.complete else f"resumed {sorted(second.done_chunks())}")
            second.close()
        except OutputError as e:
            seen.append(f"refused: {e}")
        return real_rmtree(path, *a, **kw)

    monkeypatch.setattr(output.shutil, "rmtree", rmtree_then_resume)
    first.finalize()
    assert seen == ["complete"], seen
    assert out.is_file() and not first.parts.exists() and not list(tmp_path.glob(".*"))


# ------------------------------------------------------------------ messages
def test_a_cross_field_check_is_one_plain_line(tmp_path):
    """pydantic's `Value error,` prefix and `(top level)` with an echo of the whole document are gone."""
    f = tmp_path / "k.yaml"
    f.write_text(KB_TEXT.replace("  hand_size: 6\n", "  hand_size: 29\n", 1))
    line = one_line_error(kbsim("rules", "check", str(f), cwd=tmp_path), "setup.hand_size: 5 players x 29 hand cards")
    assert "Value error" not in line and "top level" not in line and "(got" not in line, line
    assert line.startswith(f"kbsim: error: {f}: setup.hand_size:"), line


def test_shipped_rules_are_named_by_game():
    from kbsim.rules.files import display_path

    packaged = Path(str(resources.files("kbsim"))) / "_rules"
    assert display_path(packaged / "kingsbridge.yaml") == "kingsbridge (shipped)"
    assert display_path(RULE_FILE.parent / "x" / "kingsbridge.yaml").endswith("kingsbridge.yaml")


def test_an_error_in_the_shipped_rules_never_names_site_packages(tmp_path):
    p = kbsim("run", "-n", "2", "--seed", "1", "--option", "hand_size=40", cwd=tmp_path)
    line = one_line_error(p, "setup.hand_size: Input should be less than or equal to 30 (got 40)")
    assert "site-packages" not in line, line
    packaged = (Path(str(resources.files("kbsim"))) / "_rules").is_dir()  # an installed wheel (not editable)
    assert line.startswith("kbsim: error: kingsbridge (shipped) (with no variant" if packaged else "kbsim: error: /")
