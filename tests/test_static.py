"""Guard rails of the code itself (#12): ruff (complexity, Google-style docstrings) and mypy on rules and engine.

CI runs only ``pytest``, so the static checks of ``nox -s lint`` run here too, with the configuration of
``pyproject.toml`` (``[tool.ruff]`` and ``[tool.mypy]``): ``ruff check`` over the package, the tests, the
benchmarks and the nox file (C901 at 15, pydocstyle with the Google convention on ``src/``), and ``mypy`` over the
files its configuration names (``src/kbsim/rules`` and ``src/kbsim/engine``). A finding fails the test and the
message lists the findings. Both tools are in the ``dev`` extras; a test skips only if its tool is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str | None:
    """The console script ``name`` of this interpreter's environment, else the one on PATH, else None."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    return shutil.which(name)


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_check_is_clean():
    exe = _tool("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the dev extras: pip install -e '.[dev]')")
    proc = _run([exe, "check", "--no-fix", "--output-format", "concise", "src", "tests", "benchmarks", "noxfile.py"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_applied():
    """The code is laid out by ``ruff format`` (configuration in pyproject.toml): ``ruff format --check`` is clean."""
    exe = _tool("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the dev extras: pip install -e '.[dev]')")
    proc = _run([exe, "format", "--check", "src", "tests", "benchmarks", "noxfile.py"])
    assert proc.returncode == 0, "run `ruff format src tests benchmarks noxfile.py`:\n" + proc.stdout + proc.stderr


def test_ruff_checks_complexity_and_docstrings():
    """The configuration really selects C901 (limit 15) and pydocstyle (Google) -- a rail that cannot fail is none."""
    exe = _tool("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the dev extras: pip install -e '.[dev]')")
    branches = "".join(f"    if x == {i}:\n        x += 1\n" for i in range(16))
    bad = f"def public(x):\n{branches}    return x\n"
    proc = subprocess.run(
        [exe, "check", "--no-fix", "--output-format", "concise", "--stdin-filename", "src/kbsim/probe.py", "-"],
        cwd=ROOT,
        input=bad,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "C901" in proc.stdout, proc.stdout
    assert "D103" in proc.stdout, proc.stdout  # missing docstring in a public function
    assert "D100" in proc.stdout, proc.stdout  # missing module docstring


def test_mypy_is_clean():
    exe = _tool("mypy")
    if exe is None:
        pytest.skip("mypy is not installed (it is in the dev extras: pip install -e '.[dev]')")
    # The files checked come from [tool.mypy] in pyproject.toml; the cache (.mypy_cache) keeps reruns fast.
    proc = _run([exe, "--config-file", str(ROOT / "pyproject.toml")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout, proc.stdout


def test_mypy_reports_a_type_error(tmp_path):
    """mypy with the project configuration fails on a wrong type -- the rail above can fail."""
    exe = _tool("mypy")
    if exe is None:
        pytest.skip("mypy is not installed (it is in the dev extras: pip install -e '.[dev]')")
    probe = tmp_path / "probe.py"
    probe.write_text("x: int = 'seven'\n")
    proc = _run(
        [exe, "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"), str(probe)]
    )
    assert proc.returncode != 0
    assert "[assignment]" in proc.stdout, proc.stdout
