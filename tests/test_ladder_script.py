"""benchmarks/ladder.py (the bot ladder script): chunks saved as they are played, and a run resumed from them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _ladder():
    spec = importlib.util.spec_from_file_location("ladder", REPO / "benchmarks" / "ladder.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(mod, tmp_path, name: str, deals: int, chunks: Path | None) -> dict:
    out = tmp_path / name
    argv = ["ladder", "--deals", str(deals), "--workers", "1", "--pairs", "greedy:random", "--json", str(out)]
    if chunks is not None:
        argv += ["--chunks", str(chunks)]
    assert mod.main(argv) == 0
    return json.loads(out.read_text())["ladder"][0]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_chunks_are_saved_and_give_the_same_result(tmp_path):
    mod = _ladder()
    chunks = tmp_path / "c.jsonl"
    plain = _run(mod, tmp_path, "a.json", 13, None)
    saved = _run(mod, tmp_path, "b.json", 13, chunks)
    recs = _lines(chunks)
    assert [(r["lo"], r["hi"]) for r in recs] == [(0, 10), (10, 13)]
    assert all(r["a"] == "greedy" and r["b"] == "random" and r["players"] == 2 for r in recs)
    assert [d for r in recs for d in r["per_deal"]] == saved["per_deal"] == plain["per_deal"]
    for k in ("a_wins", "b_wins", "ties", "a_turns"):
        assert saved[k] == plain[k]


def test_a_run_resumes_from_its_chunks(tmp_path):
    mod = _ladder()
    chunks = tmp_path / "c.jsonl"
    full = _run(mod, tmp_path, "a.json", 13, chunks)
    first, second = _lines(chunks)
    # keep the first chunk, with a mark that only reading it back (not playing it again) can produce
    first["per_deal"] = [[2, 0, 0]] * 10
    chunks.write_text(json.dumps(first) + "\n")
    resumed = _run(mod, tmp_path, "b.json", 13, chunks)
    assert resumed["per_deal"][:10] == [[2, 0, 0]] * 10
    assert resumed["per_deal"][10:] == full["per_deal"][10:] == second["per_deal"]
    assert [(r["lo"], r["hi"]) for r in _lines(chunks)] == [(0, 10), (10, 13)]  # only the missing chunk was played


def test_chunks_of_another_pair_are_not_read(tmp_path):
    mod = _ladder()
    chunks = tmp_path / "c.jsonl"
    other = {"a": "planner", "b": "random", "game": "kingsbridge", "variants": [], "players": 2, "seed": 20240609}
    chunks.write_text(json.dumps(other | {"lo": 0, "hi": 10, "per_deal": [[0, 2, 0]] * 10}) + "\n")
    res = _run(mod, tmp_path, "a.json", 10, chunks)
    assert res["per_deal"] == _run(mod, tmp_path, "b.json", 10, None)["per_deal"]
    assert len(_lines(chunks)) == 2
