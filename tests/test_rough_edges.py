"""Rough edges a user hits (issue 28, part 6): terminal encodings, compare FOLDER, speeds, seat rotations, records
of older versions, the changelog and version, unused-rule notes."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import kbsim
import kbsim.records
from conftest import REPO, cli_env
from kbsim.analysis.reading import compare_input
from kbsim.records import RECORDS_SCHEMA_VERSION, SCHEMA_CHANGES, RecordsError, describe_version, open_records
from test_strict_input import assert_user_error, kb

OLD = REPO / "tests" / "data" / "records"  # written by kbsim 0.1.0 at the commit of each schema (see README there)


def run(out: Path, *args: str) -> tuple[int, str, str]:
    """``kbsim run ARGS --workers 1 -o OUT`` in this process: (exit code, stdout, stderr)."""
    return kb("run", *args, "--workers", "1", "-o", str(out))


def _kbsim_bytes(*args: str, cwd: Path, encoding: str) -> subprocess.CompletedProcess:
    env = cli_env() | {"PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, "-m", "kbsim.cli", *args], cwd=cwd, env=env, capture_output=True, timeout=300
    )


# ------------------------------------------------------------------ any terminal encoding
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_every_command_works_in_any_terminal_encoding(tmp_path, encoding):
    """Handed case: ``PYTHONIOENCODING=ascii kbsim run ...`` wrote its records, then exited 1 (UnicodeEncodeError)."""
    rec = tmp_path / "r.parquet"
    commands = [
        (
            [
                "run",
                "-p",
                "3",
                "-n",
                "6",
                "--seed",
                "1",
                "--workers",
                "1",
                "--bots",
                "greedy,random,greedy",
                "-o",
                str(rec),
            ],
            0,
        ),
        (["compare", str(rec), "-o", str(tmp_path / "c.html")], 0),
        (["rules", "show", "kingsbridge"], 0),
        (["replay", "--seed", "1", "-i", "0", "-p", "2"], 0),
        (["solve", "--rows", "3|8|9|5|1|13", "--hand", "1 4 6 8 11 12"], 0),
        (["run", "--help"], 0),
        (["compare", str(tmp_path / "missing.parquet")], 2),
    ]
    for args, rc in commands:
        p = _kbsim_bytes(*args, cwd=tmp_path, encoding=encoding)
        assert p.returncode == rc, (args, p.returncode, p.stderr.decode(encoding, "replace")[-600:])
        assert b"Traceback" not in p.stderr, args
        p.stdout.decode(encoding)  # every byte written is valid in the terminal's encoding
        p.stderr.decode(encoding)
    assert open_records(rec).num_rows == 18


def test_ascii_stand_ins():
    from kbsim.cli.common import safe_streams

    safe_streams()  # registers the error handler (and leaves a UTF-8 stream alone)
    text = "a – b · c − d … ≈ 3 × 4 ± é ☃"
    assert text.encode("ascii", "kbsim-ascii") == b"a - b - c - d ... ~ 3 x 4 +/- e ?"


# ------------------------------------------------------------------ numbers
def test_speeds_print_grouped_never_in_e_notation():
    from kbsim.analysis.metrics import fmt_sig

    assert fmt_sig(1538.7) == "1,540" and fmt_sig(15.94) == "15.9" and fmt_sig(0.01234) == "0.0123"
    assert fmt_sig(99.96) == "100" and fmt_sig(123456.0) == "123,000" and fmt_sig(float("nan")) == "–"
    from kbsim.cli.common import out
    from kbsim.cli.run import _print_summary

    summary = {
        "game": "kingsbridge",
        "variant": "base",
        "options": {},
        "players": 2,
        "bots": ["greedy", "greedy"],
        "seed": 1,
        "mode": "team",
        "end_reasons": {
            k: {"count": 0, "rate": 0.0, "ci95": [0.0, 1.0]} for k in ("all_out", "stalemate", "turn_limit")
        },
        "games": 10,
        "turns": {"mean": 30.0, "median": 30, "p95": 40},
        "games_per_second": 1538.7,
        "workers": 2,
        "backend": "processes",
        "seconds": 0.0065,
        "out": "x.parquet",
    }
    with out.capture() as cap:
        _print_summary(summary)
    text = cap.get()
    assert "1,540 games/s" in text and "0.00650 s" in text and "e+" not in text


# ------------------------------------------------------------------ seat rotations
def test_mixed_lineup_says_it_plays_every_rotation(tmp_path):
    rec = tmp_path / "r.parquet"
    code, out, err = run(rec, "-p", "3", "-n", "4", "--seed", "2", "--bots", "greedy,random,greedy")
    assert code == 0, err
    assert "4 deals x 3 seat rotations = 12 games" in out.splitlines()[0]
    assert open_records(rec).num_rows == 12
    code, help_text, _ = kb("run", "--help")
    assert "3 x N games" in " ".join(help_text.split())
    assert "5,000 deals x 3 seat rotations = 15,000 games" in (REPO / "README.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ compare FOLDER
def test_compare_reads_a_folder(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, opt in (("a", "hand_size=6"), ("b", "hand_size=5")):
        code, _, err = run(folder / f"{name}.parquet", "-p", "2", "-n", "10", "--seed", "3", "--option", opt)
        assert code == 0, err
    code, out, err = kb("compare", str(folder), "-o", str(tmp_path / "c.html"), "--json")
    assert code == 0, err
    assert '"files"' in out and str(folder / "a.parquet") in out and str(folder / "b.parquet") in out
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = kb("compare", str(empty), "-o", str(tmp_path / "d.html"))
    assert_user_error(code, err, str(empty), "no .parquet files")
    code, _, err = run(folder / "kc.parquet", "--game", "kings-corners", "-p", "2", "-n", "2", "--seed", "3")
    assert code == 0, err
    code, _, err = kb("compare", str(folder), "-o", str(tmp_path / "e.html"))
    assert_user_error(code, err, "kc.parquet", "records of different games cannot be compared")


# ------------------------------------------------------------------ records of older versions
@pytest.mark.parametrize("schema", range(1, 7))
def test_records_of_every_older_schema_are_read(schema):
    """Files written by kbsim 0.1.0 at schemas 1 to 6 (real files of those commits) are read and migrated."""
    path = OLD / f"kbsim-0.1.0-schema{schema}.parquet"
    rf = open_records(path)
    assert rf.schema_version == schema and rf.integrity is None
    assert f"records schema {schema}, read unverified" in describe_version(rf)
    df = kbsim.records.load(path)
    assert df.height == 12 and df["turns"].dtype.is_integer()
    if "rule_usage" in df.columns:  # schemas 4 and 5 had no legal_turns: migrated as null
        fields = {f.name for f in df.schema["rule_usage"].inner.fields}
        assert fields == {"rule", "uses", "legal_turns"}
    inp = compare_input([path])
    assert inp.records.height == 12
    older = dict(inp.parameters)["older records"]
    assert f"records schema {schema} or later" in older and f"{RECORDS_SCHEMA_VERSION}: " in older


def test_old_and_new_records_compare_paired(tmp_path):
    """A schema-6 file of kbsim 0.1.0 against a new run of the same seed with another option: paired on deals."""
    new = tmp_path / "new.parquet"
    code, _, err = run(new, "-p", "2", "-n", "12", "--seed", "5", "--option", "hand_size=5")
    assert code == 0, err
    inp = compare_input([OLD / "kbsim-0.1.0-schema6.parquet", new])
    assert len(inp.conditions) == 2 and any("records schema 6" in v for v in inp.versions)
    assert any(f"records schema {RECORDS_SCHEMA_VERSION})" in v for v in inp.versions)
    code, out, err = kb("compare", str(OLD / "kbsim-0.1.0-schema6.parquet"), str(new), "-o", str(tmp_path / "p.html"))
    assert code == 0, err
    assert "older records" in (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "n 12" in out  # the two arms paired on their 12 common deals


def test_a_newer_schema_is_refused_with_the_version_that_wrote_it(tmp_path):
    table = pq.read_table(OLD / "kbsim-0.1.0-schema6.parquet")
    meta = dict(pq.ParquetFile(OLD / "kbsim-0.1.0-schema6.parquet").metadata.metadata)
    meta.pop(b"ARROW:schema", None)
    meta |= {b"kbsim.records_schema": b"12", b"kbsim.version": b'"0.9.0"'}
    future = tmp_path / "future.parquet"
    pq.write_table(table.replace_schema_metadata(meta), future)
    with pytest.raises(RecordsError, match="written by kbsim 0.9.0 with records schema 12; .* upgrade kbsim"):
        open_records(future)


# ------------------------------------------------------------------ version and changelog
def test_version_changelog_and_records_schema_agree():
    """The release checklist of a records change, held in step.

    A change to the records (a column, a meaning, the records a seed gives) bumps
    ``kbsim.records.RECORDS_SCHEMA_VERSION`` and adds its line to ``SCHEMA_CHANGES`` (the one place for both),
    describes it in ``docs/guide/records.md`` (``- N: ...``), and is released as a kbsim version: ``__version__``
    in ``src/kbsim/__init__.py`` (pyproject reads it from there) and a ``## [X.Y.Z]`` section of CHANGELOG.md
    that says ``Records schema N``.
    """
    from importlib.metadata import version

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" in project.get("dynamic", []) and "version" not in project, "one place: kbsim.__version__"
    assert version("kbsim") == kbsim.__version__, "reinstall (pip install -e .) after a version bump"
    log = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in log
    releases = [
        line.split("]")[0][4:] for line in log.splitlines() if line.startswith("## [") and "Unreleased" not in line
    ]
    assert releases[0] == kbsim.__version__, "the newest release in CHANGELOG.md is kbsim.__version__"
    newest = log.split(f"## [{kbsim.__version__}]")[1].split("\n## [")[0]
    assert f"Records schema {RECORDS_SCHEMA_VERSION}" in newest, "the newest release names the records schema"
    assert sorted(SCHEMA_CHANGES) == list(range(1, RECORDS_SCHEMA_VERSION + 1)), "one SCHEMA_CHANGES line a version"
    docs = (REPO / "docs" / "guide" / "records.md").read_text(encoding="utf-8")
    missing = [v for v in SCHEMA_CHANGES if f"\n- {v}" not in docs]
    assert not missing, f"records schemas {missing} are not described in docs/guide/records.md"


# ------------------------------------------------------------------ unused-rule notes
def test_unused_rule_notes_only_for_rules_the_game_declares_optional():
    from kbsim.engine.rows.usage import MIN_HAND_CARDS, declared_optional
    from kbsim.rules.loader import load_rules

    kc = [o.path for o in load_rules("kings-corners").model.options.values()]
    kb_paths = [o.path for o in load_rules("kingsbridge").model.options.values()]
    assert not declared_optional(MIN_HAND_CARDS, kc)  # King's Corners simply lays no minimum
    assert declared_optional(MIN_HAND_CARDS, kb_paths)  # Kingsbridge's option min_hand_cards
    assert declared_optional("characters.play.den", kc) and declared_optional("powers.skip_value", [])
    assert declared_optional("turn.lay_out.rebuild.into_empty_row", kc)  # king_pile_to_corner


def test_kings_corners_run_says_nothing_about_min_hand_cards(tmp_path):
    code, out, err = run(tmp_path / "k.parquet", "--game", "kings-corners", "-p", "3", "-n", "3", "--seed", "1")
    assert code == 0, err
    assert "min_hand_cards" not in out and "no game used" not in out
    code, out, err = run(
        tmp_path / "b.parquet", "-p", "2", "-n", "3", "--seed", "1", "--option", "min_hand_cards=0", "--json"
    )
    assert code == 0, err
    assert "turn.lay_out.min_hand_cards" in out.split('"optional_rules"')[1]
    assert os.path.exists(tmp_path / "b.parquet")
