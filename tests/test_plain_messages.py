"""Messages a new user met: the path ``kbsim rules show`` reads, empty or wrong-shaped files, one line per problem.

Defects 2 and 3 of the new-user report: ``rules show`` printed no path for a shipped file; an empty rule file
said ``got NoneType``; an empty study printed all its problems joined on one line.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from conftest import run_cli
from kbsim.rules.files import display_path


def test_a_shipped_file_is_named_with_the_real_path_it_is_read_from():
    packaged = Path(str(resources.files("kbsim"))) / "_rules"
    real = (packaged / "kingsbridge.yaml").resolve()
    assert display_path(packaged / "kingsbridge.yaml", with_path=True) == f"kingsbridge (shipped) {real}"
    assert display_path(packaged / "kingsbridge.yaml") == "kingsbridge (shipped)"  # in error messages


def test_rules_show_and_check_print_the_path_they_read(tmp_path):
    from kbsim.rules.loader import find_rule_file

    real = str(Path(find_rule_file("kingsbridge")).resolve())
    p = run_cli("rules", "show", "kingsbridge", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].endswith(real), p.stdout.splitlines()[0]
    p = run_cli("rules", "check", "kingsbridge", cwd=tmp_path)
    assert real in p.stdout, p.stdout


EMPTY_OR_WRONG = {
    "empty": ("", "the file is empty; expected a mapping of rule sections at the top level"),
    "comment-only": ("# nothing yet\n", "the file is empty; expected a mapping"),
    "list": ("- a\n- b\n", "expected a mapping of rule sections at the top level, got a list"),
    "text": ("just words\n", "got a text"),
    "number": ("7\n", "got a whole number"),
}


@pytest.mark.parametrize("command", [("rules", "check"), ("run", "-n", "1", "--game")])
@pytest.mark.parametrize("case", sorted(EMPTY_OR_WRONG))
def test_a_rule_file_of_the_wrong_shape_is_described_in_words(tmp_path, case, command):
    text, expected = EMPTY_OR_WRONG[case]
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    p = run_cli(*command, "r.yaml", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [f"kbsim: error: r.yaml: {p.stderr.split('r.yaml: ', 1)[1].strip()}"]
    assert expected in p.stderr and "Type" not in p.stderr and "NoneType" not in p.stderr, p.stderr


@pytest.mark.parametrize("command", ["report", "tune"])
@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("s.yaml", "", "the file is empty; expected a table of study fields at the top level"),
        ("s.yaml", "- 1\n", "expected a table of study fields at the top level, got a list"),
    ],
)
def test_a_study_file_of_the_wrong_shape_is_described_in_words(tmp_path, command, name, text, expected):
    (tmp_path / name).write_text(text, encoding="utf-8")
    p = run_cli(command, name, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [f"kbsim: error: {name}: {expected}"]


@pytest.mark.parametrize("command", ["report", "tune"])
@pytest.mark.parametrize(("name", "text"), [("s.yaml", "{}\n"), ("s.toml", "")])  # an empty TOML file is {}
def test_each_problem_of_a_study_is_its_own_line(tmp_path, command, name, text):
    (tmp_path / name).write_text(text, encoding="utf-8")
    p = run_cli(command, name, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert {ln.split(": ")[3] for ln in lines} >= {"name", "players", "games", "seed", "arms"}, lines
    assert all(ln.startswith(f"kbsim: error: {name}: ") and ln.endswith("Field required") for ln in lines), lines
    assert "Traceback" not in p.stderr


def test_every_problem_of_a_rule_file_given_to_run_is_its_own_line(tmp_path):
    (tmp_path / "r.yaml").write_text("game: x\ncolour: red\nsize: 3\n", encoding="utf-8")
    p = run_cli("run", "-n", "1", "--game", "r.yaml", cwd=tmp_path)
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert len(lines) > 1 and all(ln.startswith("kbsim: error: r.yaml") for ln in lines), lines
    assert all("; r.yaml" not in ln for ln in lines), lines


README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_promises_what_rules_show_prints():
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "`kbsim rules show` prints the path it reads, e.g. `kingsbridge (shipped) /" in text
    packaged = Path(str(resources.files("kbsim"))) / "_rules"
    assert display_path(packaged / "kingsbridge.yaml", with_path=True).startswith("kingsbridge (shipped) /")


def test_the_readme_states_the_compiled_install_time_honestly():
    """A fresh `pip install .` took about 5 minutes on a loaded 2-core machine; pip shows only 'still running'."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "about two minutes" not in text
    assert "2-5 minutes" in text and '"still running"' in text
    blocks = README.read_text(encoding="utf-8").split("```bash\n")
    assert blocks[1].splitlines()[0].endswith("pip install . && kbsim run --players 4 --games 10000")
    assert blocks[2].splitlines()[0].endswith('pip install -e ".[dev]" && pytest -n 2')
