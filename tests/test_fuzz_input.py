"""Fuzzing the input kinds of issue 14: mutated rule files and command-line arguments (hypothesis).

Every outcome must be clean: exit 0, or exit 2 with every stderr line starting ``kbsim: error:`` (never a
traceback), in bounded time, and no existing file replaced.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RULE_FILE
from test_strict_input import kb

BASE = yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))
SENTINEL = "precious\n"
COUNT = {"rule files": 0, "arguments": 0}


def _paths(node, prefix=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


PATHS = [p for p in _paths(BASE) if p[0] not in ("examples", "clarifications")]

values = st.one_of(
    st.integers(-(10**18), 10**18),
    st.sampled_from([0, -1, 1, 2, 31, 64, 10**6, 10**15]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["[/oops]", "[edgar]", "a/../../x", "yes", "on", "1:30", "0x1f", "~", "", "rest", "any"]),
    st.lists(st.integers(-3, 70), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)

mutation = st.tuples(st.sampled_from(["set", "delete", "add"]), st.sampled_from(PATHS), values)


def _apply(doc, op, path, value):
    node = doc
    for k in path[:-1]:
        node = node[k]
    last = path[-1]
    if op == "set":
        node[last] = value
    elif op == "delete":
        if isinstance(node, dict):
            del node[last]
        else:
            node.pop(last)
    elif isinstance(node, dict):
        node[f"{last}_extra"] = value
    else:
        node.append(value)


def _clean(code: int, err: str, seconds: float) -> None:
    assert "Traceback" not in err, err
    assert seconds < 20, seconds
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert lines and all(ln.startswith("kbsim: error:") for ln in lines), err


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(muts=st.lists(mutation, min_size=1, max_size=3), raw=st.sampled_from(["", "dup", "alias", "tab"]))
def test_mutated_rule_files(tmp_path_factory, muts, raw):
    tmp = tmp_path_factory.mktemp("fz")
    doc = copy.deepcopy(BASE)
    for op, path, value in muts:
        try:
            _apply(doc, op, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    text = yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False, allow_unicode=True)
    if raw == "dup":
        text += "game: again\n"
    elif raw == "alias":
        text = "x: &a [1, *a]\n" + text
    elif raw == "tab":
        text = "\t" + text
    p = tmp / "r.yaml"
    p.write_text(text, encoding="utf-8")
    out = tmp / "keep.parquet"
    out.write_text(SENTINEL)
    COUNT["rule files"] += 1
    t0 = time.perf_counter()
    code, o, e = kb("rules", "show", str(p), "--json")
    _clean(code, e, time.perf_counter() - t0)
    if code == 0:  # an accepted file plays (one short game) or is refused cleanly, and never replaces a file
        t0 = time.perf_counter()
        code, o, e = kb(
            "run",
            "-n",
            "1",
            "--seed",
            "1",
            "--players",
            "2",
            "--workers",
            "1",
            "-g",
            str(p),
            "--out",
            str(tmp / "x.parquet"),
            "--no-progress",
        )
        _clean(code, e, time.perf_counter() - t0)
        code, o, e = kb("run", "-n", "1", "--seed", "1", "-g", str(p), "--out", str(out), "--workers", "1")
        assert code == 2 and out.read_text() == SENTINEL
    assert p.read_text(encoding="utf-8") == text


words = st.sampled_from(["hand_size", "rows", "copies", "rebuild_segments", "turn_limit", "nope", ""])
option_values = st.sampled_from(
    [
        "7",
        "7.0",
        "true",
        "yes",
        '"6"',
        "[1]",
        "{a: 1}",
        "&a [*a]",
        "-1",
        "10**9",
        "99999999999999999999",
        "either",
        "",
        "~",
        "0x10",
        "a: b: c",
    ]
)
ints = st.one_of(st.integers(-3, 3), st.sampled_from([2**64, -(2**63), 10**13]))


@st.composite
def argv(draw):
    cmd = draw(st.sampled_from(["run", "replay", "solve", "rules show", "compare", "report"]))
    args = cmd.split()
    if cmd == "run":
        n = draw(st.one_of(st.integers(-2, 2), st.just(10**13)))
        args += ["-n", str(n), "--workers", draw(st.sampled_from(["1", "0", "-1"]))]
        args += ["--seed", str(draw(ints))]
        if draw(st.booleans()):
            args += [
                "--bots",
                draw(
                    st.sampled_from(
                        [
                            "greedy",
                            "x",
                            "greedy,",
                            ",",
                            "random,random,random,random,random,random,random,random,random",
                            "[b]",
                        ]
                    )
                ),
            ]
        if draw(st.booleans()):
            args += ["--players", str(draw(ints))]
    elif cmd == "replay":
        args += ["--seed", str(draw(ints)), "-i", str(draw(ints)), "--players", str(draw(st.integers(0, 9)))]
    elif cmd == "solve":
        args += [
            "--rows",
            draw(st.sampled_from(["3|8|9", "", "|||||||||||||||||||", "99", "E7|E7", "3-1", "x"])),
            "--hand",
            draw(st.sampled_from(["1 4", "", "0", "14", "1 " * 40, "E", "-1"])),
        ]
    elif cmd == "compare":
        args += [draw(st.sampled_from(["keep.parquet", "nope.parquet", "r.yaml", "."]))]
    elif cmd == "report":
        args += [draw(st.sampled_from(["nope", "r.yaml", "keep.parquet", "../x"])), "-n", str(draw(ints))]
    if cmd in ("run", "replay", "solve", "rules show") and draw(st.booleans()):
        args += ["--option", f"{draw(words)}={draw(option_values)}"]
    if cmd in ("run", "compare", "report") and draw(st.booleans()):
        args += ["--out", draw(st.sampled_from(["keep.parquet", "keep.html", "r.yaml", ".", "a/../b.parquet"]))]
    return args


@settings(max_examples=140, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(args=argv())
def test_fuzzed_arguments(tmp_path_factory, args):
    tmp: Path = tmp_path_factory.mktemp("fa")
    (tmp / "keep.parquet").write_text(SENTINEL)
    (tmp / "keep.html").write_text(SENTINEL)
    (tmp / "r.yaml").write_text(SENTINEL)
    COUNT["arguments"] += 1
    t0 = time.perf_counter()
    code, o, e = kb(*args, cwd=tmp)
    _clean(code, e, time.perf_counter() - t0)
    for name in ("keep.parquet", "keep.html", "r.yaml"):
        assert (tmp / name).read_text() == SENTINEL, (args, name)


def test_count_of_bad_inputs_tried():
    # run after the two fuzz tests in this module (file order): a few hundred inputs were tried
    if COUNT["rule files"] and COUNT["arguments"]:
        assert COUNT["rule files"] + COUNT["arguments"] >= 200
