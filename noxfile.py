"""Developer sessions: tests, lint, docs, bench (``nox -s NAME``)."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "tests", "compiled"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the same command as the README and CI)."""
    session.install("-e", ".[dev]")
    session.run("pytest", "-n", "2", *session.posargs)


COMPILED_CHECKS = (
    "tests/test_build.py",
    "tests/test_determinism.py",
    "tests/conformance",
    "tests/test_compiled_equals_pure.py",
)
"""What CI runs on the compiled build: golden record digests, determinism, conformance, compiled == pure."""


@nox.session
def compiled(session: nox.Session) -> None:
    """CI's check of the build users get: ``pip install .`` from this clone (compiled with mypyc), then the checks.

    The wheel is built as a user's ``pip install .`` builds it (isolated build environment, all cores), with
    ``KBSIM_COMPILE=1`` so that a compile that fails is a build error instead of a silent pure-Python install;
    ``kbsim --version`` must say compiled. Then, on that build: the golden record digests, the determinism
    tests, the conformance suite and the compiled-equals-pure move logs of every shipped game, variant and bot
    (:data:`COMPILED_CHECKS`). ``.ci/run`` calls this session after the README's test command.
    """
    session.install(".[dev]", env={"KBSIM_COMPILE": "1"})
    version = session.run("kbsim", "--version", silent=True) or ""
    session.log(version.strip())
    if "compiled (mypyc" not in version:
        session.error(f"the build is not compiled: {version.strip()}")
    session.run("pytest", "-n", "2", *COMPILED_CHECKS, *session.posargs, env={"KBSIM_EXPECT_COMPILED": "1"})


@nox.session
def tests_compiled(session: nox.Session) -> None:
    """Run the test suite against the mypyc-compiled build that ``pip install .`` makes (CI runs the pure one).

    Fails if the compile fails (``KBSIM_COMPILE=1``). Tests that monkeypatch compiled code skip themselves.
    """
    session.install(".[dev]", env={"KBSIM_COMPILE": "1"})
    session.run("kbsim", "--version")
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Static checks: ruff, mypy and import-linter, configured in pyproject.toml.

    Ruff lints the package, tests, benchmarks and this file (complexity and docstrings included) and checks their
    layout (``ruff format --check``); mypy checks the
    rules and the engine; import-linter checks the layer contracts. tests/test_static.py and
    tests/test_architecture.py run the same checks in CI.
    """
    session.install("ruff", "import-linter", "mypy")
    session.run("ruff", "check", "src", "tests", "noxfile.py", "benchmarks")
    session.run("ruff", "format", "--check", "src", "tests", "noxfile.py", "benchmarks")
    session.install("-e", ".")
    session.run("mypy")
    session.run("lint-imports")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the HTML documentation with warnings as errors into docs/_build/html (as the tests and CI do)."""
    session.install(".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Games and turns per second on one core per workload, as a ratio to ../shared/bench/baseline.py.

    For the planner and ``search`` also decisions per second, CPU ms per decision (mean, worst) and the decision
    ratio (decisions/s over the baseline's turns/s), in the summary table at the end. The baseline is timed in the
    same process (see benchmarks/bench.py and docs/performance.md); options after --
    go to the script. Measures the build users get from ``pip install .``: compiled with mypyc where a C compiler
    is present (the script's first line says which).
    """
    session.install(".")
    session.run("python", "benchmarks/bench.py", *session.posargs)


@nox.session
def ladder(session: nox.Session) -> None:
    """Bot ladder and planner benchmark (benchmarks/ladder.py); options after -- go to the ladder.

    Ladder: planner vs greedy and greedy vs random, 1,000 deals each played with seats swapped (2,000 2-player
    games per pair); the session fails unless every 95% interval lies above 50%. Then the planner's decision
    time and games/s in 4-player games.
    """
    session.install("-e", ".")
    session.run("python", "benchmarks/ladder.py", "ladder", "--check", *session.posargs)
    session.run("python", "benchmarks/ladder.py", "bench")
