"""The ``kbsim`` command line, run as a subprocess: user errors, runs, replay, rules commands."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

import kbsim
from conftest import RULE_FILE, run_cli
from kbsim.rules.loader import load_rules
from kbsim.sim.records import SCHEMA

KEEP_BYTES = b"not really parquet, but it must survive a failed command\n"


def _listing(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def _write_bad_files(d):
    (d / "bad.yaml").write_text("game: [unclosed\n  x: : y\n", encoding="utf-8")
    text = RULE_FILE.read_text(encoding="utf-8")
    anchor = "    requires_draw_pile: true\n"
    assert text.count(anchor) == 1
    (d / "unknown-key.yaml").write_text(text.replace(anchor, anchor + "    colour: red\n"), encoding="utf-8")


BAD_RUNS = {
    "players-0": (["--players", "0"], None),
    "players-9": (["--players", "9"], None),
    "games-negative": (["--games", "-1"], None),
    "games-zero": (["--games", "0"], None),
    "games-not-a-number": (["--games", "abc"], None),
    "unknown-game": (["--game", "nosuchgame"], "nosuchgame"),
    "unknown-variant": (["--variant", "nosuch"], "nosuch"),
    "unknown-option": (["--option", "nosuch=1"], "nosuch"),
    "option-bad-choice": (["--option", "rebuild_segments=middle"], "middle"),
    "option-without-value": (["--option", "hand_size"], "hand_size"),
    "option-bad-type": (["--option", "hand_size=abc"], "hand_size"),
    "unknown-bot": (["--bots", "nosuch"], "nosuch"),
    "bots-wrong-count": (["--bots", "greedy,random", "--players", "4"], "--bots"),
    "malformed-yaml": (["--game", "bad.yaml"], "bad.yaml"),
    "unknown-key": (["--game", "unknown-key.yaml"], "turn.exchange.colour"),
    "negative-seed": (["--seed", "-5"], "--seed"),
    "workers-zero": (["--workers", "0"], "--workers"),
}


def _assert_user_error(p, mentions=None):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("kbsim: error:"), p.stderr
    if mentions is not None:
        assert mentions in lines[0]
    return lines[0]


@pytest.mark.parametrize("case", list(BAD_RUNS))
def test_run_user_errors(tmp_path, case):
    args, mentions = BAD_RUNS[case]
    _write_bad_files(tmp_path)
    keep = tmp_path / "keep.parquet"
    keep.write_bytes(KEEP_BYTES)
    before = _listing(tmp_path)
    p = run_cli("run", "--games", "3", "--seed", "1", *args, "--out", "keep.parquet", cwd=tmp_path)
    _assert_user_error(p, mentions)
    assert keep.read_bytes() == KEEP_BYTES
    assert _listing(tmp_path) == before, "a failed command must not leave files behind"


def test_unknown_key_names_file_and_field_path(tmp_path):
    _write_bad_files(tmp_path)
    line = _assert_user_error(run_cli("run", "--games", "3", "--seed", "1", "--game", "unknown-key.yaml", cwd=tmp_path))
    assert "unknown-key.yaml" in line and "turn.exchange.colour" in line


def test_malformed_yaml_names_file(tmp_path):
    _write_bad_files(tmp_path)
    line = _assert_user_error(run_cli("rules", "show", "bad.yaml", cwd=tmp_path))
    assert "bad.yaml" in line


def test_out_folder_missing(tmp_path):
    p = run_cli("run", "--games", "3", "--seed", "1", "--out", "missing_dir/x.parquet", cwd=tmp_path)
    _assert_user_error(p, "missing_dir")
    assert _listing(tmp_path) == []


def test_out_is_a_folder(tmp_path):
    (tmp_path / "d.parquet").mkdir()
    p = run_cli("run", "--games", "3", "--seed", "1", "--out", "d.parquet", cwd=tmp_path)
    _assert_user_error(p, "d.parquet")
    assert _listing(tmp_path) == ["d.parquet"]


def test_rules_check_of_bad_files(tmp_path):
    _write_bad_files(tmp_path)
    for name, mention in [("bad.yaml", "bad.yaml"), ("unknown-key.yaml", "turn.exchange.colour")]:
        p = run_cli("rules", "check", name, cwd=tmp_path)
        assert p.returncode == 2
        assert "Traceback" not in p.stderr
        lines = p.stderr.splitlines()
        assert lines and all(ln.startswith("kbsim: error:") for ln in lines)
        assert any(mention in ln and name in ln for ln in lines)


def test_replay_user_errors(tmp_path):
    _assert_user_error(run_cli("replay", "--seed", "3", "--game-index", "-1", "--players", "2", cwd=tmp_path))
    _assert_user_error(run_cli("replay", "--seed", "3", "--game-index", "0", "--players", "7", cwd=tmp_path))
    _assert_user_error(run_cli("replay", "--game-index", "0", cwd=tmp_path))  # --seed is required


# --------------------------------------------------------------------------- good runs
@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    p = run_cli("run", "--players", "2", "--games", "50", "--seed", "3", "--out", "r.parquet", "--json", cwd=d)
    assert p.returncode == 0, p.stderr
    return d, p


def test_run_json_summary(good_run):
    d, p = good_run
    s = json.loads(p.stdout)
    records = pq.read_table(d / "r.parquet").to_pylist()
    assert s["games"] == 50 and s["players"] == 2 and s["seed"] == 3
    assert [seat["seat"] for seat in s["seats"]] == [0, 1]
    for seat in s["seats"]:
        assert seat["wins"] == sum(r["winners"] == [seat["seat"]] for r in records)
    assert set(s["end_reasons"]) >= {"won", "stalemate", "turn_limit"}
    for reason, v in s["end_reasons"].items():
        assert v["count"] == sum(r["end_reason"] == reason for r in records)
    assert sum(v["count"] for v in s["end_reasons"].values()) == 50
    assert "mean" in s["turns"]
    assert s["turns"]["mean"] == pytest.approx(sum(r["turns"] for r in records) / 50)


def test_run_parquet_schema_and_metadata(good_run):
    d, _ = good_run
    f = pq.ParquetFile(d / "r.parquet")
    schema = f.schema_arrow
    assert schema.names == SCHEMA.names
    for field in SCHEMA:
        assert schema.field(field.name).type == field.type, field.name
    assert f.metadata.num_rows == 50
    meta = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
    assert {"kbsim.version", "kbsim.run"} <= set(meta)
    assert json.loads(meta["kbsim.version"]) == kbsim.__version__
    run = json.loads(meta["kbsim.run"])
    assert run["seed"] == 3 and run["players"] == 2 and run["games"] == 50
    records = pq.read_table(d / "r.parquet").to_pylist()
    assert [r["game_index"] for r in records] == list(range(50))
    assert all(r["players"] == 2 and r["bots"] == ["greedy", "greedy"] for r in records)
    assert all(r["game"] == "kingsbridge" and r["variant"] == "base" for r in records)
    assert len({r["run_id"] for r in records}) == 1


@pytest.mark.parametrize("index", [0, 31])
def test_replay_matches_record(good_run, index):
    d, _ = good_run
    rec = pq.read_table(d / "r.parquet").to_pylist()[index]
    p = run_cli("replay", "--seed", "3", "--game-index", str(index), "--players", "2", "--json", cwd=d)
    assert p.returncode == 0, p.stderr
    log = json.loads(p.stdout)
    assert log["seed"] == rec["seed"]
    assert log["winners"] == rec["winners"]
    assert log["end_reason"] == rec["end_reason"]
    assert log["turns"] == rec["turns"]
    assert len(log["log"]) == rec["turns"]


def test_replay_and_solve_print_a_key_to_the_notation(tmp_path):
    p = run_cli("replay", "--seed", "1", "--game-index", "0", "--players", "2", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    key = p.stdout.splitlines()[1]
    assert key.startswith("key: rows count from 1") and "seats count from 0" in key and "'lay C on R'" in key
    p = run_cli("solve", "--rows", "3|8|9|5|1|13", "--hand", "1 4 6 8 11 12", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1].startswith("key: rows count from 1")


def test_run_without_seed_prints_it(tmp_path):
    p = run_cli("run", "--players", "2", "--games", "4", "--workers", "1", "--out", "x.parquet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    m = re.search(r"--seed (\d+)", p.stderr)
    assert m, p.stderr
    seed = int(m.group(1))
    run = json.loads(pq.read_schema(tmp_path / "x.parquet").metadata[b"kbsim.run"])
    assert run["seed"] == seed


def test_run_human_summary(tmp_path):
    p = run_cli(
        "run", "--players", "3", "--games", "10", "--seed", "5", "--workers", "1", "--out", "h.parquet", cwd=tmp_path
    )
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "seed 5" in p.stdout and "h.parquet" in p.stdout


def test_rules_check_ok(tmp_path):
    p = run_cli("rules", "check", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "kingsbridge" in p.stdout


def test_rules_show_mentions_every_option(tmp_path):
    p = run_cli("rules", "show", "kingsbridge", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    model = load_rules().model
    assert len(model.options) >= 9
    for name in model.options:
        assert name in p.stdout, name
    for name in model.variants:
        assert name in p.stdout, name
    assert "R = stated by the rulebook" in p.stdout  # the confidence column's legend


def test_rules_schema_is_json_schema(tmp_path):
    p = run_cli("rules", "schema", "--family", "rows", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    schema = json.loads(p.stdout)
    assert "properties" in schema
    assert {"game", "players", "cards", "table", "setup", "turn", "end"} <= set(schema["properties"])


def test_rules_schema_covers_every_family(tmp_path):
    p = run_cli("rules", "schema", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    schema = json.loads(p.stdout)
    refs = {ref["$ref"].rsplit("/", 1)[-1] for ref in schema["anyOf"]}
    assert refs == {"RuleFile", "MarketRuleFile"}
    assert {"game", "table", "turn"} <= set(schema["$defs"]["RuleFile"]["properties"])
    assert "card_table" in schema["$defs"]["MarketRuleFile"]["properties"]
    bad = run_cli("rules", "schema", "--family", "nosuch", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["run", "--help"],
        ["replay", "--help"],
        ["rules", "--help"],
        ["rules", "test", "--help"],
        ["--version"],
    ],
)
def test_help(tmp_path, args):
    p = run_cli(*args, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip()
    assert "Traceback" not in p.stderr
