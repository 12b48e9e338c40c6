"""``kbsim rules publish``: a searchable rules reference of any rule file, as a site of its own (issue 27).

A French copy of the Kingsbridge rule file, outside the repository (its own title, one
character renamed, ``language: fr``), and a shipped game in English are each published
once per module (``kbsim rules publish`` run as a user runs it), then opened in headless
Chromium from disk and over http: the game's pages render, the renamed character is
found by the search and shown with its text, the headings are in the file's language.
A rebuild after an edit shows the edit; bad inputs are one line each, exit 2, nothing
written. The message catalogs hold exactly the words the code marks.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("furo")

from conftest import REPO, run_cli  # noqa: E402
from conftest_browser import browser, console_errors, needs_chromium, search, serve  # noqa: E402
from kbsim.rules.loader import load_rules  # noqa: E402

RENAMED = ("ragna", "Rosalinde")  # (character key, the French copy's name for her)
TIMEOUT = 600


def _french_copy(folder: Path) -> Path:
    """rules/kingsbridge.yaml with its own game name and title, Ragna renamed, and ``language: fr``."""
    doc = yaml.safe_load((REPO / "rules" / "kingsbridge.yaml").read_text(encoding="utf-8"))
    doc["game"] = "pont-du-roi"
    doc["title"] = "Le Pont du Roi"
    doc["language"] = "fr"
    doc["characters"]["roster"][RENAMED[0]]["name"] = RENAMED[1]
    path = folder / "pont-du-roi.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _report_page(path: Path, title: str) -> Path:
    """A page as ``kbsim report`` writes them (its generator tag), small enough for a test."""
    path.write_text(
        f'<!doctype html><html><head><meta charset="utf-8">\n<meta name="generator" content="kbsim 0">\n'
        f"<title>{title} · kbsim report</title></head><body><h1>{title}</h1></body></html>\n",
        encoding="utf-8",
    )
    return path


def _publish(*args: str, cwd: Path):
    return run_cli("rules", "publish", *args, cwd=cwd, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def french(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The French copy published with a report page beside it (one build for the module)."""
    work = tmp_path_factory.mktemp("publish-fr")
    rules = _french_copy(work)
    report = _report_page(work / "equilibre.html", "Équilibre des variantes")
    proc = _publish(str(rules), "-o", "site", "--reports", str(report), cwd=work)
    assert proc.returncode == 0, proc.stderr
    return {"work": work, "site": work / "site", "rules": rules, "proc": proc}


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A shipped game (King's Corners), published by name under a title of the user's."""
    work = tmp_path_factory.mktemp("publish-en")
    proc = _publish("kings-corners", "-o", "site", "--title", "Corners at home", cwd=work)
    assert proc.returncode == 0, proc.stderr
    return {"work": work, "site": work / "site", "proc": proc}


@pytest.fixture(scope="module")
def chromium():
    with browser() as driver:
        yield driver


# ------------------------------------------------------------------ the site
def test_the_site_is_self_contained_and_marked(french: dict) -> None:
    site = french["site"]
    assert "published:" in french["proc"].stdout and "kbsim: warning" not in french["proc"].stderr
    for page in ("index.html", "search.html", "searchindex.js", "_static/kbsim-search-text.js", ".nojekyll"):
        assert (site / page).exists(), page
    parts = {p.stem for p in (site / "pont-du-roi").glob("*.html")}
    assert {"index", "setup", "turn", "end", "characters", "options", "variants", "clarifications"} <= parts
    assert f"character-{RENAMED[0]}" in parts
    marker = json.loads((site / ".kbsim" / "site.json").read_text(encoding="utf-8"))
    assert marker["written_by"] == "kbsim rules publish" and marker["status"] == "built"
    assert marker["identity"]["language"] == "fr"
    # no link into the source tree: every local link of every page resolves inside the site
    for page in site.rglob("*.html"):
        if ".kbsim" in page.parts or "reports" in page.parts:
            continue
        for href in re.findall(r'(?:href|src)="([^"#?]+)', page.read_text(encoding="utf-8")):
            if "://" in href or href.startswith(("mailto:", "data:")):
                continue
            assert (page.parent / href).resolve().is_relative_to(site.resolve()), (page, href)
            assert (page.parent / href).exists(), (page, href)


def test_the_page_language_is_the_rule_files(french: dict, english: dict) -> None:
    fr = (french["site"] / "pont-du-roi" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<html[^>]* lang="fr"', fr)
    assert "Le Pont du Roi : référence des règles" in fr and ("Vue d’ensemble" in fr or "Vue d'ensemble" in fr)
    assert "Matériel" in fr and "Overview" not in fr
    setup = (french["site"] / "pont-du-roi" / "setup.html").read_text(encoding="utf-8")
    assert "<h1>Mise en place" in setup and "Réglages du moteur" in setup
    en = (english["site"] / "kings-corners" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<html[^>]* lang="en"', en) and "Overview" in en and "Vue d" not in en
    index = json.loads((french["site"] / "searchindex.js").read_text(encoding="utf-8")[len("Search.setIndex(") : -1])
    assert "personnag" in index["terms"] and "personnages" not in index["terms"]  # French stems


def test_the_reports_are_published_beside_the_rules(french: dict) -> None:
    site = french["site"]
    assert (site / "reports" / "equilibre.html").read_text(encoding="utf-8").count("kbsim report") == 1
    first = (site / "pont-du-roi" / "index.html").read_text(encoding="utf-8")
    assert 'href="../reports/equilibre.html"' in first and "Équilibre des variantes" in first
    assert "Études" in first


def test_a_provisional_game_keeps_its_warning(tmp_path: Path) -> None:
    proc = _publish("continental-express", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    first = (tmp_path / "site" / "continental-express" / "index.html").read_text(encoding="utf-8")
    assert first.count("kbsim-provisional") >= 2 and "Provisional data." in first


# ------------------------------------------------------------------ in the browser
@needs_chromium
@pytest.mark.parametrize("where", ["file", "served"])
def test_the_french_site_renders_and_finds_the_renamed_character(french: dict, chromium, where: str) -> None:
    site = french["site"]
    summary = load_rules(str(french["rules"])).model.characters.roster[RENAMED[0]].summary
    with serve(site) as base:
        root = site.resolve().as_uri() + "/" if where == "file" else base
        chromium.get(root + "pont-du-roi/turn.html")
        assert chromium.find_element("css selector", "h1").text.startswith("Le tour")
        assert "Reconstruire" in chromium.find_element("css selector", "article").text
        results = search(chromium, f"{root}search.html?q={RENAMED[1]}")
        errors = console_errors(chromium)
    assert not errors, errors
    assert results, "the renamed character was not found"
    first = results[0]
    assert first["href"].startswith(f"pont-du-roi/character-{RENAMED[0]}.html"), results[:3]
    assert RENAMED[1] in first["title"]
    assert " ".join(summary.split())[:50] in " ".join(first["text"].split()), first
    assert "Ragna" not in " ".join(r["title"] + r["text"] for r in results)


@needs_chromium
def test_the_english_site_finds_a_rule_with_its_text(english: dict, chromium) -> None:
    site = english["site"]
    chromium.get((site / "kings-corners" / "index.html").resolve().as_uri())
    assert chromium.find_element("css selector", "h1").text.startswith("King")
    assert "Overview" in chromium.find_element("css selector", "article").text
    results = search(chromium, f"{site.resolve().as_uri()}/search.html?q=corner")
    assert not console_errors(chromium)
    assert results and all(r["text"] for r in results), results[:3]
    assert all(r["href"].startswith("kings-corners/") for r in results[:5]), results[:5]
    assert any("corner" in r["text"].lower() for r in results[:3]), results[:3]


# ------------------------------------------------------------------ rebuilds
def test_a_rebuild_shows_the_edit(tmp_path: Path) -> None:
    rules = tmp_path / "corners.yaml"
    shutil.copyfile(REPO / "rules" / "kings-corners.yaml", rules)
    first = _publish(str(rules), "-o", "site", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    turn = tmp_path / "site" / "kings-corners" / "turn.html"
    before = turn.stat().st_mtime_ns
    doc = yaml.safe_load(rules.read_text(encoding="utf-8"))
    edited = "Seats take turns clockwise; this sentence was edited after the first publish."
    doc["turn"]["summary"] = edited
    rules.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    refused = _publish(str(rules), "-o", "site", cwd=tmp_path)
    assert refused.returncode == 2 and "--force" in refused.stderr
    again = _publish(str(rules), "-o", "site", "--force", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "updated" in again.stdout  # the saved build was reused
    assert edited in turn.read_text(encoding="utf-8") and turn.stat().st_mtime_ns != before
    assert edited in (tmp_path / "site" / "_static" / "kbsim-search-text.js").read_text(encoding="utf-8")


# ------------------------------------------------------------------ bad inputs
def _nothing_written(folder: Path, before: set[Path]) -> None:
    assert {p for p in folder.rglob("*")} == before


@pytest.mark.parametrize(
    "case",
    ["invalid rule file", "unknown game", "foreign folder", "a file as the folder", "not a report", "two languages"],
)
def test_bad_inputs_are_one_line_and_write_nothing(tmp_path: Path, case: str) -> None:
    args: list[str] = ["kingsbridge"]
    out = "site"
    if case == "invalid rule file":
        bad = tmp_path / "bad.yaml"
        text = (REPO / "rules" / "kings-corners.yaml").read_text(encoding="utf-8")
        bad.write_text(text.replace("title:", "titel:", 1), encoding="utf-8")
        args = [str(bad)]
    elif case == "unknown game":
        args = ["no-such-game"]
    elif case == "foreign folder":
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "notes.txt").write_text("mine", encoding="utf-8")
    elif case == "a file as the folder":
        (tmp_path / "site").write_text("a file", encoding="utf-8")
    elif case == "not a report":
        (tmp_path / "page.html").write_text("<html><title>x</title></html>", encoding="utf-8")
        args += ["--reports", "page.html"]
    elif case == "two languages":
        args = [str(_french_copy(tmp_path)), "kings-corners"]
    before = set(tmp_path.rglob("*"))
    proc = _publish(*args, "-o", out, cwd=tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert lines and all(line.startswith("kbsim: error: ") for line in lines), proc.stderr
    assert "Traceback" not in proc.stderr and not proc.stdout
    _nothing_written(tmp_path, before)
    if case == "invalid rule file":
        assert any("bad.yaml" in line and "title" in line for line in lines), lines
    if case == "foreign folder":
        assert (tmp_path / "site" / "notes.txt").read_text(encoding="utf-8") == "mine"
        forced = _publish(*args, "-o", out, "--force", cwd=tmp_path)  # --force never takes a folder kbsim did not write
        assert forced.returncode == 2 and "no site kbsim published" in forced.stderr, forced.stderr
        _nothing_written(tmp_path, before)


def test_force_replaces_only_a_site_kbsim_wrote(english: dict) -> None:
    site = english["site"]
    marker = site / ".kbsim" / "site.json"
    saved = marker.read_text(encoding="utf-8")
    try:
        marker.write_text("{}", encoding="utf-8")  # a marker kbsim did not write
        proc = _publish("kings-corners", "-o", "site", "--force", cwd=english["work"])
        assert proc.returncode == 2 and "no site kbsim published" in proc.stderr
    finally:
        marker.write_text(saved, encoding="utf-8")


# ------------------------------------------------------------------ the message catalogs
def test_the_catalogs_hold_the_words_the_code_marks() -> None:
    from babel.messages.pofile import read_po

    from kbsim.sphinx.i18n import DOMAIN, LOCALE, catalog_path, languages, template

    marked = {m.id for m in template() if m.id}
    with (LOCALE / f"{DOMAIN}.pot").open("rb") as f:
        assert {m.id for m in read_po(f) if m.id} == marked, "run: python -m kbsim.sphinx.i18n"
    assert {"en", "fr"} <= set(languages())
    for lang in languages():
        if lang == "en":
            continue
        with catalog_path(lang).open("rb") as f:
            catalog = read_po(f, locale=lang)
        ids = {m.id for m in catalog if m.id}
        assert ids == marked, f"{lang}: run python -m kbsim.sphinx.i18n (missing {sorted(map(str, marked - ids))[:5]})"
        for m in catalog:
            if not m.id:
                continue
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            assert all(strings), f"{lang}: {m.id!r} is not translated"
            wanted = set(re.findall(r"\{\w+\}", m.id if isinstance(m.id, str) else m.id[0]))
            for s in strings:
                assert set(re.findall(r"\{\w+\}", s)) == wanted, f"{lang}: {m.id!r} -> {s!r} changes its fields"


def test_a_language_without_a_catalog_falls_back_to_english() -> None:
    from kbsim.sphinx.i18n import Words, has_catalog

    assert Words("fr")("Setup") == "Mise en place" and Words("fr_CA")("Setup") == "Mise en place"
    assert not has_catalog("de") and Words("de")("Setup") == "Setup"


def test_the_language_field_is_checked(tmp_path: Path) -> None:
    text = (REPO / "rules" / "kings-corners.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("title:", "language: french\ntitle:", 1), encoding="utf-8")
    proc = run_cli("rules", "check", str(bad), cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "language" in line and "french" in line
    assert load_rules("kings-corners").model.language == "en"


def test_without_the_docs_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    import subprocess
    import sys

    from conftest import cli_env

    code = (
        "import sys; sys.modules['sphinx'] = None; "  # as if Sphinx were not installed
        "sys.argv = ['kbsim', 'rules', 'publish', 'kingsbridge', '-o', 'site']; "
        "from kbsim.cli import main; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("kbsim: error: ") and 'pip install "kbsim[docs]"' in line
    assert not (tmp_path / "site").exists()
