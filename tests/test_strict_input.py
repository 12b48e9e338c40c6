"""Strict, bounded input and clean output (issue 14): every input of the issue, with the right value.

Most cases run the command line in this process (:func:`kb`) for speed; the few that need a real
process (closed pipe, kill -9, memory) run it as a subprocess.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import REPO, RULE_FILE, cli_env
from kbsim.rules.loader import RulesError, load_rules, parse_option_value, read_document
from kbsim.strict_io import MAX_YAML_NODES, YamlInputError, dumps_json, load_yaml, loads_json_strict, preview

KB_TEXT = RULE_FILE.read_text(encoding="utf-8")


def kb(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run ``kbsim ARGS`` in this process; return (exit code, stdout, stderr)."""
    from kbsim import cli

    o, e = io.StringIO(), io.StringIO()
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["kbsim", *args]
    code = 0
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            try:
                cli.main()
            except SystemExit as x:
                code = x.code if isinstance(x.code, int) else (0 if x.code is None else 1)
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return code, o.getvalue(), e.getvalue()


def assert_user_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and all(ln.startswith("kbsim: error:") for ln in lines), err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, (n, err)


def rule_copy(tmp_path: Path, old: str, new: str, name: str = "r.yaml") -> Path:
    assert old in KB_TEXT, old
    p = tmp_path / name
    p.write_text(KB_TEXT.replace(old, new, 1), encoding="utf-8")
    return p


# ------------------------------------------------------------------ YAML read strictly
def test_duplicate_key_names_dotted_key_and_line(tmp_path):
    p = rule_copy(tmp_path, "  hand_size: 6\n", "  hand_size: 6\n  hand_size: 9\n")
    line = KB_TEXT[: KB_TEXT.index("  hand_size: 6\n")].count("\n") + 2
    with pytest.raises(RulesError) as e:
        read_document(p)
    assert "duplicate key `setup.hand_size`" in str(e.value) and f"line {line}" in str(e.value)
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, "duplicate key `setup.hand_size`", f"line {line}")
    code, out, err = kb("rules", "show", str(p), "--json")
    assert_user_error(code, err, "duplicate key")
    assert out == ""


@pytest.mark.parametrize(
    "text, value",
    [
        ("yes", "yes"),
        ("on", "on"),
        ("no", "no"),
        ("off", "off"),
        ("y", "y"),
        ("true", True),
        ("False", False),
        ("010", 10),
        ("0o10", 8),
        ("0x1f", 31),
        ("1:30", "1:30"),
        ("1_000", "1_000"),
        ("2024-01-02", "2024-01-02"),
        ("7", 7),
        ("7.0", 7.0),
        ("-3", -3),
        ("~", None),
        ("null", None),
        (".inf", float("inf")),
        ("'6'", "6"),
    ],
)
def test_yaml_12_core_scalars(text, value):
    assert load_yaml(f"v: {text}\n") == {"v": value}
    got = parse_option_value(text)
    assert got == value and type(got) is type(value)


def test_merge_keys_are_not_special():
    assert load_yaml("a: &x {b: 1}\nc:\n  <<: *x\n") == {"a": {"b": 1}, "c": {"<<": {"b": 1}}}


@pytest.mark.parametrize("levels", [8, 9, 20])
def test_billion_laughs_refused_fast(tmp_path, levels):
    text = 'title: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for i in range(levels - 1):
        name = f"l{i}"
        text += f"x{i}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
        prev = name
    assert len(text.encode()) < 1000 + 60 * levels
    p = tmp_path / "lol.yaml"
    p.write_text(text)
    t0 = time.perf_counter()
    with pytest.raises(RulesError) as e:
        read_document(p)
    assert time.perf_counter() - t0 < 0.5
    assert f"more than {MAX_YAML_NODES:,} values" in str(e.value)


def test_aliases_within_limits_are_fine_and_error_preview_is_bounded(tmp_path):
    # a title that is a (shared) list: refused by the schema with a short preview, quickly
    big = "[" + ", ".join(["*a"] * 9) + "]"
    text = KB_TEXT.replace("title: Kingsbridge", f"title: &b {big}", 1)
    text = "x: &a [" + ", ".join(['"lol"'] * 9) + "]\n" + text
    p = tmp_path / "r.yaml"
    p.write_text(text)
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, "title")
    assert max(len(ln) for ln in err.splitlines()) < 300


def test_preview_is_bounded():
    x: list = ["lol"] * 9
    for _ in range(30):  # 9**30 leaves if expanded
        x = [x] * 9
    t0 = time.perf_counter()
    s = preview(x)
    assert time.perf_counter() - t0 < 0.1 and len(s) <= 60


def test_recursive_alias_is_one_line(tmp_path):
    p = tmp_path / "rec.yaml"
    p.write_text("title: &r [*r]\n")
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, "recursive alias", "line 1")


@pytest.mark.parametrize(
    "text, needle",
    [
        ("a: [" * 40 + "]" * 40, "nested more than 32 levels"),
        ("a: b: c", "YAML syntax error"),
        ("? [1, 2]\n: x\n", "YAML error"),
    ],
)
def test_other_bad_yaml(text, needle):
    with pytest.raises(YamlInputError) as e:
        load_yaml(text)
    assert needle in str(e.value)


def test_rule_file_size_limit(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text(KB_TEXT + "#" * 1_000_001)
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, "larger than 1,000,000 bytes")


# ------------------------------------------------------------------ strict types
def test_option_bool_for_int_is_an_error(tmp_path):
    code, out, err = kb(
        "run",
        "-n",
        "20",
        "--seed",
        "3",
        "--option",
        "hand_size=true",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "a.parquet"),
    )
    assert_user_error(code, err, "setup.hand_size", "valid integer", "true")
    assert not (tmp_path / "a.parquet").exists()


def test_quoted_int_in_rule_file_is_an_error(tmp_path):
    p = rule_copy(tmp_path, "  hand_size: 6\n", '  hand_size: "6"\n')
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, "setup.hand_size", "valid integer", '"6"')


@pytest.mark.parametrize(
    "old, new, field",
    [
        ("  hand_size: 6\n", "  hand_size: yes\n", "setup.hand_size"),
        ("  copies: 8\n", "  copies: 8.0\n", "cards.copies"),
        ("      repeats: false\n", "      repeats: 0\n", "repeats"),
    ],
)
def test_no_coercion_in_rule_files(tmp_path, old, new, field):
    if old not in KB_TEXT:
        pytest.skip(f"{old!r} not in the shipped file")
    p = rule_copy(tmp_path, old, new)
    with pytest.raises(RulesError) as e:
        load_rules(str(p))
    assert field in str(e.value)


def test_float_for_int_option_refused_and_equal_values_equal_run_ids(tmp_path):
    code, out, err = kb(
        "run",
        "-n",
        "2",
        "--seed",
        "3",
        "--option",
        "hand_size=7.0",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "f.parquet"),
    )
    assert_user_error(code, err, "setup.hand_size", "7.0")
    ids = []
    for i, v in enumerate(["7", "07", "+7", "0x7"]):
        code, out, err = kb(
            "run",
            "-n",
            "2",
            "--seed",
            "3",
            "--option",
            f"hand_size={v}",
            "--workers",
            "1",
            "--out",
            str(tmp_path / f"{i}.parquet"),
            "--json",
        )
        assert code == 0, err
        ids.append(json.loads(out)["options"])
        import pyarrow.parquet as pq

        ids[-1] = pq.read_table(tmp_path / f"{i}.parquet", columns=["run_id"]).column(0)[0].as_py()
    assert len(set(ids)) == 1


def test_schema_matches_strict_limits():
    code, out, err = kb("rules", "schema", "--family", "rows")
    assert code == 0
    schema = loads_json_strict(out)
    setup = schema["$defs"]["Setup"]["properties"]["hand_size"]
    assert setup["type"] == "integer" and setup["maximum"] == 30 and setup["minimum"] == 1
    turns = schema["$defs"]["TurnLimit"]["properties"]["turns"]
    assert turns["maximum"] == 100_000
    step = schema["$defs"]["Sequence"]["properties"]["step"]
    assert step["minimum"] == -63 and step["maximum"] == 63


# ------------------------------------------------------------------ limits and cross-field checks
@pytest.mark.parametrize(
    "old, new, needles",
    [
        ("      step: 1\n", "      step: 0\n", ["step: 0", "-63 to 63, not 0"]),
        ("    turns: 2000\n", "    turns: 1000000000000000\n", ["end.turn_limit.turns", "100000"]),
        ("  hand_size: 6\n", "  hand_size: 31\n", ["setup.hand_size", "30"]),
        ("  copies: 8\n", "  copies: 1\n", ["setup.hand_size", "deck holds 13", "expected a hand size from 1 to"]),
        (
            "  values: {min: 1, max: 13}\n  copies: 8\n",
            "  values: {min: 0, max: 63}\n  copies: 64\n",
            ["4,096 cards", "at most 2,000"],
        ),
        ("title: Kingsbridge", "title: " + "K" * 201, ["title", "200"]),
        ("      max_per_turn: 200\n", "      max_per_turn: 10001\n", ["max_per_turn", "10000"]),
        ("    exact_search_limit: 5000\n", "    exact_search_limit: 5000000\n", ["exact_search_limit", "1000000"]),
    ],
)
def test_limits_refused_with_range(tmp_path, old, new, needles):
    p = rule_copy(tmp_path, old, new)
    code, out, err = kb("rules", "check", str(p))
    assert_user_error(code, err, *needles)


def test_per_minus_card_bounded(tmp_path):
    p = rule_copy(tmp_path, "per_minus_card: -5", "per_minus_card: -1000000000")
    code, out, err = kb(
        "run",
        "-n",
        "2",
        "--seed",
        "1",
        "-g",
        str(p),
        "-v",
        "solo",
        "--players",
        "1",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "s.parquet"),
    )
    assert_user_error(code, err, "per_minus_card", "-1000")


def test_limits_table_documented():
    from kbsim.rules.schema import LIMITS

    doc = (REPO / "docs" / "guide" / "rule-files.md").read_text(encoding="utf-8")
    for name, rng in LIMITS.items():
        assert name in doc and rng in doc, name


# ------------------------------------------------------------------ valid JSON everywhere
def test_every_json_output_is_strict_json(tmp_path):
    outputs = {}
    code, out, err = kb(
        "run", "-n", "1", "--seed", "1", "--workers", "1", "--out", str(tmp_path / "a.parquet"), "--json"
    )
    outputs["run"] = (code, out, err)
    outputs["compare"] = kb("compare", str(tmp_path / "a.parquet"), "--json", "-o", str(tmp_path / "c.html"))
    outputs["replay"] = kb("replay", "--seed", "1", "-i", "0", "--json")
    outputs["replay market"] = kb("replay", "--seed", "1", "-i", "0", "-g", "continental-express", "--json")
    outputs["rules show"] = kb("rules", "show", "--json")
    outputs["rules schema"] = kb("rules", "schema")
    outputs["solve"] = kb("solve", "--rows", "3|8|9|5|1|13", "--hand", "1 4 6 8 11 12", "--json")
    study = tmp_path / "s.toml"
    shutil.copy(REPO / "reports" / "seat-advantage.toml", study)
    outputs["report"] = kb("report", str(study), "-n", "1", "--workers", "1", "--json", "--no-progress")
    for name, (code, out, err) in outputs.items():
        assert code == 0, (name, err)
        assert "NaN" not in out and "Infinity" not in out, name
        loads_json_strict(out)
    # undefined statistics are null, not NaN
    assert "null" in outputs["compare"][1]


def test_dumps_json_never_writes_nan():
    text = dumps_json({"a": float("nan"), "b": [float("inf"), 1.5]})
    assert loads_json_strict(text) == {"a": None, "b": [None, 1.5]}


# ------------------------------------------------------------------ closed pipe
@pytest.mark.parametrize(
    "args", [["rules", "schema"], ["rules", "show"], ["rules", "check"], ["replay", "--seed", "1", "-i", "0"]]
)
def test_closed_pipe_exits_zero(tmp_path, args):
    cmd = [sys.executable, "-m", "kbsim.cli", *args]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(), cwd=tmp_path)
    p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(60) == 0, err
    assert err == ""


# ------------------------------------------------------------------ worker processes
def test_workers_start_safely():
    from kbsim.sim.runner import start_method, worker_pool

    assert start_method() in ("forkserver", "spawn")
    pool = worker_pool(1)
    try:
        assert pool._mp_context.get_start_method() != "fork"
    finally:
        pool.shutdown()


def _children(pid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                out.add(int(d.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_workers_die_with_parent_and_resume_cleans_up(tmp_path):
    out = tmp_path / "r.parquet"
    cmd = [
        sys.executable,
        "-m",
        "kbsim.cli",
        "run",
        "-n",
        "100000",
        "--seed",
        "2",
        "--out",
        str(out),
        "--workers",
        "2",
        "--chunk-size",
        "50",
        "--no-progress",
    ]
    p = subprocess.Popen(cmd, env=cli_env(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parts = tmp_path / "r.parquet.parts"
    deadline = time.time() + 60
    while time.time() < deadline and not list(parts.glob("chunk-*.parquet")):
        time.sleep(0.2)
    assert list(parts.glob("chunk-*.parquet"))
    family = set()
    for c in _children(p.pid):
        family |= {c} | _children(c)
    assert family
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    deadline = time.time() + 15
    while time.time() < deadline and any(
        Path(f"/proc/{c}").exists() and "Z" not in Path(f"/proc/{c}/stat").read_text().split()[2]
        for c in family
        if Path(f"/proc/{c}").exists()
    ):
        time.sleep(0.2)
    alive = [c for c in family if Path(f"/proc/{c}").exists() and Path(f"/proc/{c}/stat").read_text().split()[2] != "Z"]
    assert not alive
    # a temp file of a killed merge and a truncated chunk: cleaned and replayed on resume
    (tmp_path / ".r.parquet.x1y2.tmp").write_text("x")
    first = sorted(parts.glob("chunk-*.parquet"))[0]
    first.write_bytes(first.read_bytes()[:100])
    code, o, e = kb(
        "run",
        "-n",
        "400",
        "--seed",
        "2",
        "--out",
        str(out),
        "--workers",
        "1",
        "--chunk-size",
        "50",
        "--resume",
        "--json",
    )
    # other parameters (-n 400): refused, and the message does not say the impossible
    assert_user_error(code, e, "other parameters")


def test_resume_replays_bad_chunk_and_counts_speed_now(tmp_path):
    from kbsim.sim.output import RunOutput

    out = tmp_path / "r.parquet"
    args = ["run", "-n", "40", "--seed", "2", "--out", str(out), "--workers", "1", "--chunk-size", "10", "--json"]
    # an interrupted run: stage the parts of 3 of its 4 chunks by hand
    code, o, e = kb(*args)
    assert code == 0, e
    full = json.loads(o)
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    meta = json.loads(table.schema.metadata[b"kbsim.run"])
    out.unlink()
    ro = RunOutput(out, meta, "x")
    from kbsim.records import write_records  # the writer of a run's chunks

    for a in (0, 10, 20):
        part = table.slice(a, 10)
        write_records(part, ro.parts / f"chunk-{a:010d}-{a + 10:010d}.parquet")
    bad = ro.parts / f"chunk-{0:010d}-{10:010d}.parquet"
    bad.write_bytes(bad.read_bytes()[:100])
    (tmp_path / ".r.parquet.abc.tmp").write_text("stale merge")
    ro._unlock()
    code, o, e = kb(*args, "--resume")
    assert code == 0, e
    res = json.loads(o)
    assert res["games_played_now"] == 20  # the truncated chunk and the missing one
    assert not list(tmp_path.glob(".*.tmp")) and not (tmp_path / "r.parquet.parts").exists()
    assert pq.read_table(out).num_rows == 40
    assert res["seats"] == full["seats"]


def test_resume_refuses_edited_rules(tmp_path):
    rules = tmp_path / "r.yaml"
    rules.write_text(KB_TEXT)
    out = tmp_path / "x.parquet"
    args = [
        "run",
        "-n",
        "20",
        "--seed",
        "1",
        "-g",
        str(rules),
        "--out",
        str(out),
        "--workers",
        "1",
        "--chunk-size",
        "10",
    ]
    from kbsim.sim.output import RunOutput

    code, o, e = kb(*args)
    assert code == 0, e
    meta = RunOutput.stored_parameters(out)
    assert meta["rules_hash"]
    out.unlink()
    ro = RunOutput(out, meta, "x")  # an interrupted run of the original rules
    ro._unlock()
    rules.write_text(KB_TEXT.replace("title: Kingsbridge", "title: Kingsbridge edited", 1))
    code, o, e = kb(*args, "--resume")
    assert_user_error(code, e, "the rules changed")


def test_concurrent_resume_is_refused(tmp_path):
    from kbsim.sim.output import OutputError, RunOutput

    out = tmp_path / "x.parquet"
    a = RunOutput(out, {"k": 1}, "x")
    with pytest.raises(OutputError, match="another kbsim run is writing"):
        RunOutput(out, {"k": 1}, "x", resume=True)
    a._unlock()


# ------------------------------------------------------------------ files are not replaced
def test_existing_files_not_replaced(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("x\n")
    code, o, e = kb("run", "-n", "10", "--seed", "1", "--out", str(notes))
    assert_user_error(code, e, "notes.txt")
    assert notes.read_text() == "x\n"
    other = tmp_path / "notes.parquet"
    other.write_text("x\n")
    code, o, e = kb("run", "-n", "10", "--seed", "1", "--out", str(other), "--force")
    assert_user_error(code, e, "not a kbsim records file")
    assert other.read_text() == "x\n"
    rules = tmp_path / "r.yaml"
    rules.write_text(KB_TEXT)
    code, o, e = kb("run", "-n", "10", "--seed", "1", "-g", str(rules), "--out", str(rules), "--force")
    assert_user_error(code, e)
    assert rules.read_text() == KB_TEXT
    a = tmp_path / "a.parquet"
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--workers", "1", "--out", str(a))
    assert code == 0, e
    before = a.read_bytes()
    code, o, e = kb("run", "-n", "3", "--seed", "1", "--workers", "1", "--out", str(a))
    assert_user_error(code, e, "exists; add --force")
    assert a.read_bytes() == before
    code, o, e = kb("compare", str(a), "-o", str(a))
    assert_user_error(code, e)
    assert a.read_bytes() == before
    code, o, e = kb("run", "-n", "3", "--seed", "1", "--workers", "1", "--out", str(a), "--force")
    assert code == 0, e
    study = tmp_path / "s.toml"
    shutil.copy(REPO / "reports" / "seat-advantage.toml", study)
    text = study.read_text()
    code, o, e = kb("report", str(study), "-o", str(study), "--force")
    assert_user_error(code, e)
    assert study.read_text() == text
    page = tmp_path / "p.html"
    page.write_text("<html>mine</html>")
    code, o, e = kb("compare", str(a), "-o", str(page), "--force")
    assert_user_error(code, e, "not a kbsim report page")
    code, o, e = kb("compare", str(a), "-o", str(tmp_path))
    assert_user_error(code, e)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_out_is_one_line(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--out", str(ro / "x.parquet"))
    assert_user_error(code, e, "not writable")


def test_missing_out_folder_is_one_line(tmp_path):
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--out", str(tmp_path / "no" / "x.parquet"))
    assert_user_error(code, e, "does not exist")


def test_bad_scheduler_is_bad_input():
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--backend", "dask", "--scheduler", "not a url")
    assert_user_error(code, e, "--scheduler", "tcp://HOST:8786")


# ------------------------------------------------------------------ names as paths and markup
def test_variant_name_cannot_escape_runs(tmp_path):
    text = KB_TEXT.replace(
        "\nvariants:\n", "\nvariants:\n  a/../../../../elsewhere/x:\n    summary: x\n    options: {hand_size: 5}\n", 1
    )
    assert text != KB_TEXT
    (tmp_path / "r.yaml").write_text(text)
    code, o, e = kb(
        "run",
        "-n",
        "2",
        "--seed",
        "1",
        "-g",
        "r.yaml",
        "-v",
        "a/../../../../elsewhere/x",
        "--workers",
        "1",
        "--json",
        cwd=tmp_path,
    )
    assert code == 0, e
    outp = Path(json.loads(o)["out"])
    assert outp.parent == Path("runs") and (tmp_path / outp).is_file()
    assert not (tmp_path.parent / "elsewhere").exists()


def test_markup_in_names_printed_as_written(tmp_path):
    p = rule_copy(tmp_path, "title: Kingsbridge", "title: K [/oops] [edgar]")
    code, o, e = kb("rules", "show", str(p))
    assert code == 0, e
    assert "K [/oops] [edgar]" in o
    code, o, e = kb(
        "run", "-n", "2", "--seed", "1", "-g", str(p), "--workers", "1", "--out", str(tmp_path / "a.parquet")
    )
    assert code == 0, e
    code, o, e = kb("rules", "check", str(p))
    assert code == 0 and "K [/oops] [edgar]" in o


def test_shipped_rules_show_keeps_bracketed_text():
    code, o, e = kb("rules", "show")
    assert code == 0
    raw = [ln for ln in KB_TEXT.splitlines() if "[edgar]" in ln]
    if raw:
        assert "[edgar]" in o


# ------------------------------------------------------------------ compare what can be compared
def test_compare_refuses_different_games(tmp_path):
    a, b = tmp_path / "kb.parquet", tmp_path / "kc.parquet"
    assert kb("run", "-n", "2", "--seed", "1", "--workers", "1", "--out", str(a))[0] == 0
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--workers", "1", "-g", "kings-corners", "--out", str(b))
    assert code == 0, e
    code, o, e = kb("compare", str(a), str(b), "-o", str(tmp_path / "c.html"))
    assert_user_error(code, e, "different games", "kingsbridge", "kings-corners")


def test_compare_refuses_same_run_under_other_rules(tmp_path):
    import pyarrow.parquet as pq

    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert kb("run", "-n", "2", "--seed", "1", "--workers", "1", "--out", str(a))[0] == 0
    t = pq.read_table(a)
    meta = dict(t.schema.metadata)
    run = json.loads(meta[b"kbsim.run"])
    run["rules_hash"] = "0" * 16
    meta[b"kbsim.run"] = json.dumps(run).encode()
    from kbsim.records import write_records

    write_records(t.replace_schema_metadata(meta), b)
    code, o, e = kb("compare", str(a), str(b), "-o", str(tmp_path / "c.html"))
    assert_user_error(code, e, "different rules")


# ------------------------------------------------------------------ unbounded requests, same ranges everywhere
def test_huge_run_plans_lazily(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "kbsim.cli",
        "run",
        "-n",
        "1000000000000",
        "--seed",
        "1",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "h.parquet"),
        "--no-progress",
    ]
    p = subprocess.Popen(cmd, env=cli_env(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        parts = tmp_path / "h.parquet.parts"
        deadline = time.time() + 60
        while time.time() < deadline and not list(parts.glob("chunk-*.parquet")):
            time.sleep(0.2)
        assert list(parts.glob("chunk-*.parquet")), "no game finished"
        rss = int(
            next(ln for ln in Path(f"/proc/{p.pid}/status").read_text().splitlines() if ln.startswith("VmRSS")).split()[
                1
            ]
        )
        assert rss < 400_000  # kB
    finally:
        p.kill()
        p.wait()


def test_workers_capped_at_work(tmp_path):
    code, o, e = kb("run", "-n", "2", "--seed", "1", "--workers", "64", "--out", str(tmp_path / "a.parquet"), "--json")
    assert code == 0, e
    assert json.loads(o)["workers"] <= 2


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "--seed", "-1"], "--seed -1: expected an integer from 0"),
        (["replay", "--seed", "-1", "-i", "0"], "--seed -1: expected an integer from 0"),
        (["run", "--seed", str(2**64)], "--seed"),
        (["replay", "--seed", str(2**64), "-i", "0"], "--seed"),
        (["run", "-n", "0"], "--games 0: expected a number of games from 1"),
        (["report", "variants", "-n", "0"], "--games 0: expected a number of games from 1"),
        (["run", "-n", str(10**13)], "--games"),
        (["run", "--workers", "0"], "--workers 0: expected a number of worker processes from 1"),
        (["report", "variants", "--workers", "0"], "--workers 0: expected a number of worker processes from 1"),
        (["replay", "--seed", "1", "-i", "-1"], "--game-index -1"),
    ],
)
def test_same_ranges_everywhere(args, needle):
    code, o, e = kb(*args)
    assert_user_error(code, e, needle)


# ------------------------------------------------------------------ small things
def test_dash_o_means_out_everywhere():
    for cmd in (["run"], ["report"], ["compare"]):
        code, o, e = kb(*cmd, "--help")
        line = next(ln for ln in o.splitlines() if "--out" in ln)
        assert "-o" in line.replace("--out", "")
    for cmd in (["run"], ["replay"], ["solve"], ["rules", "show"]):
        code, o, e = kb(*cmd, "--help")
        line = next(ln for ln in o.splitlines() if "--option" in ln)
        assert " -o" not in line


def test_option_confused_with_out_is_refused(tmp_path):
    code, o, e = kb("run", "-n", "2", "-o", "hand_size=7", cwd=tmp_path)
    assert_user_error(code, e, "expected a .parquet file path")
    assert not list(tmp_path.iterdir())


def test_study_by_name_from_any_directory(tmp_path):
    from kbsim.sim.study import load_study

    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert load_study("variants").name
    finally:
        os.chdir(old)


def test_quick_report_writes_its_own_page(tmp_path):
    study = tmp_path / "seat-advantage.toml"
    shutil.copy(REPO / "reports" / "seat-advantage.toml", study)
    code, o, e = kb("report", str(study), "-n", "1", "--workers", "1", "--json", "--no-progress")
    assert code == 0, e
    page = Path(loads_json_strict(o)["html"])
    assert page.name == "seat-advantage-n1.html"
    assert not (tmp_path / "_build" / "seat-advantage.html").exists()


def test_study_yaml_is_strict(tmp_path):
    study = tmp_path / "s.yaml"
    study.write_text("name: x\nname: y\n")
    code, o, e = kb("report", str(study))
    assert_user_error(code, e, "duplicate key `name`")


def test_pyproject_ships_studies_and_pandas():
    text = (REPO / "pyproject.toml").read_text()
    assert '"reports" = "kbsim/_reports"' in text and '"pandas' in text


def test_yaml_dump_of_shipped_rules_round_trips():
    # the strict reader reads every shipped file as PyYAML's safe dump writes it
    for p in (REPO / "rules").glob("*.yaml"):
        doc = read_document(p)
        assert load_yaml(yaml.safe_dump(doc, sort_keys=False)) == doc


@pytest.mark.parametrize(
    "value, ok", [("[edgar]", True), ("[edgar, agatha]", True), ("[]", True), ("edgar", False), ("7", False)]
)
def test_list_option_from_the_command_line(value, ok):
    """A list option takes a YAML flow list on the command line (and only a list)."""
    if ok:
        loaded = load_rules("kingsbridge", ["characters"], {"characters_removed": parse_option_value(value)})
        assert loaded.options["characters_removed"] == parse_option_value(value)
    else:
        with pytest.raises(RulesError, match="valid list"):
            load_rules("kingsbridge", ["characters"], {"characters_removed": parse_option_value(value)})


def test_option_of_every_type_from_the_command_line():
    """An int, a bool, a choice and a list option each read from ``KEY=VALUE`` text."""
    loaded = load_rules(
        "kingsbridge",
        ["characters"],
        {
            "hand_size": parse_option_value("7"),
            "rebuild_into_empty_row": parse_option_value("true"),
            "characters_removed": parse_option_value("[den]"),
        },
    )
    assert loaded.options["hand_size"] == 7 and loaded.options["rebuild_into_empty_row"] is True
    assert loaded.options["characters_removed"] == ["den"]


def test_report_and_compare_refuse_an_output_folder_that_does_not_exist(tmp_path):
    """Like `kbsim run -o`, a report path in a missing folder is an error (exit 2), not a folder made silently."""
    from conftest import run_cli

    rec = tmp_path / "a.parquet"
    assert run_cli("run", "-p", "2", "-n", "4", "--workers", "1", "-o", str(rec), cwd=tmp_path).returncode == 0
    for args in (
        ["compare", str(rec), str(rec), "-o", str(tmp_path / "nodir" / "c.html")],
        ["report", "seat-advantage", "-n", "2", "-o", str(tmp_path / "nodir" / "r.html")],
    ):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "nodir").exists()
