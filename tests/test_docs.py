"""The documentation: built once per test session with warnings as errors, then checked.

The build (``sphinx-build -W``) already fails on a broken reference, a shipped rule
file without a reference page, an example the engine no longer agrees with, or a
records column without a description. These tests then check the result:

* every option, variant, character and example of every shipped rule file has
  its entry (an anchor) on the game's reference page, and every ``summary``
  written anywhere in the rule file (and its card table) is on that page,
  whatever the engine family;
* the default rendered for each option is the value the engine uses
  (``load_rules(game).options``);
* provisional data (Continental Express's card table) is announced by a
  warning box at the top of the page and above the card lists;
* the games list, the rule-file fields of every engine family, and the study
  format are documented;
* Sphinx's search index maps rule terms and character names to the reference
  page, and lists options and variants as objects;
* each game's reference is split into pages (overview, setup, turn, end,
  characters, options, variants, clarifications, examples) that link to each other;
* the built search page, run in headless Chromium (skipped when ``chromium`` is not
  installed), finds the reference pages, ranks them above the API and shows each
  result's text, served and opened from disk (``file://``); and no page of a game's
  reference is taller than a reader's page (:data:`MAX_PAGE_PX`).

With pytest-xdist the workers share one build (a file lock decides who builds).
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("furo")

from conftest_browser import browser, console_errors, needs_chromium, page_height, search, serve  # noqa: E402
from kbsim.rules.loader import load_rules, shipped_games  # noqa: E402

# one worker runs every test of this file: the first builds the documentation (minutes), and a second worker that
# reached these tests meanwhile would wait for that build, idle, on its lock
pytestmark = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GAMES = shipped_games()
BUILD_TIMEOUT = 600


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "-", str(text).lower()).strip("-") or "x"


def _characters(game: str) -> list[tuple[str, str]]:
    """(key, display name) of every character of a game; empty while the rule file has none."""
    chars = getattr(load_rules(game).model, "characters", None)
    if chars is None:
        return []
    roster = getattr(chars, "roster", chars)
    items = (
        roster.items() if isinstance(roster, dict) else [(getattr(c, "name", str(i)), c) for i, c in enumerate(roster)]
    )
    return [(str(k), str(getattr(c, "name", None) or k)) for k, c in items]


def _summaries(obj: object, path: str = "") -> list[tuple[str, str]]:
    """(dotted path, text) of every non-empty ``summary`` field in a validated rule file, at any depth."""
    from pydantic import BaseModel

    out: list[tuple[str, str]] = []
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            value = getattr(obj, name)
            if name == "summary" and isinstance(value, str):
                if value.strip():
                    out.append((path or "(root)", value))
            else:
                out += _summaries(value, f"{path}.{name}" if path else name)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out += _summaries(v, f"{path}.{k}")
    elif isinstance(obj, list | tuple):
        for i, v in enumerate(obj):
            out += _summaries(v, f"{path}.{i}")
    return out


def _page_text(page: Path) -> str:
    """The visible text of a built page, with Sphinx's typography undone and whitespace collapsed."""
    text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
    return _plain_text(text)


def _plain_text(text: str) -> str:
    for fancy, plain in (
        ("\u2019", "'"),
        ("\u2018", "'"),
        ("\u201c", '"'),
        ("\u201d", '"'),
        ("\u2026", "..."),
        ("\u2014", "---"),
        ("\u2013", "--"),
        ("`", ""),
    ):
        text = text.replace(fancy, plain)
    return " ".join(text.split())


def _all_examples(game: str) -> list[str]:
    model = load_rules(game).model
    names = [ex.name for ex in model.examples]
    chars = getattr(model, "characters", None)
    roster = getattr(chars, "roster", chars) or {}
    for c in roster.values() if isinstance(roster, dict) else roster:
        names += [ex.name for ex in getattr(c, "examples", None) or []]
    return names


# ------------------------------------------------------------------ the build
def _build(out: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(DOCS),
        str(out / "html"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT, cwd=ROOT)
    (out / "build.log").write_text(f"$ {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}", encoding="utf-8")
    (out / "status").write_text(str(proc.returncode), encoding="utf-8")


@pytest.fixture(scope="session")
def html_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML (one build shared by all xdist workers of this session)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "kbsim-docs"
    out.mkdir(exist_ok=True)
    with open(shared / "kbsim-docs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (out / "status").exists():
                _build(out)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if (out / "status").read_text() != "0":
        log = (out / "build.log").read_text(encoding="utf-8")
        pytest.fail(f"the documentation build failed (warnings are errors):\n{log[-6000:]}", pytrace=False)
    return out / "html"


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def _pages(html_dir: Path, game: str) -> list[Path]:
    """The HTML pages of a game's reference (rules/GAME/*.html), the first page first."""
    folder = html_dir / "rules" / game
    pages = sorted(folder.glob("*.html"), key=lambda p: (p.name != "index.html", p.name))
    assert pages and pages[0].name == "index.html", f"no reference pages for {game} in {folder}"
    return pages


def _game_ids(html_dir: Path, game: str) -> set[str]:
    return set().union(*(_ids(p) for p in _pages(html_dir, game)))


def _game_source(html_dir: Path, game: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in _pages(html_dir, game))


def _game_text(html_dir: Path, game: str) -> str:
    return " ".join(_page_text(p) for p in _pages(html_dir, game))


class _Defaults(HTMLParser):
    """Collects, per ``option-*`` section, the text of the elements marked ``kbsim-default``."""

    VOID = {"br", "img", "hr", "meta", "link", "input", "col", "wbr", "source", "area", "base", "embed"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None, bool]] = []  # (tag, id, is-default)
        self.found: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.VOID:
            return
        a = dict(attrs)
        is_default = "kbsim-default" in (a.get("class") or "").split()
        self.stack.append((tag, a.get("id"), is_default))
        if is_default:
            self.found.setdefault(self._option() or "?", []).append("")

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if any(d for _, _, d in self.stack):
            self.found[self._option() or "?"][-1] += data

    def _option(self) -> str | None:
        for _, ident, _ in reversed(self.stack):
            if ident and ident.startswith("option-"):
                return ident.removeprefix("option-")
        return None


def _search_index(html_dir: Path) -> dict:
    text = (html_dir / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def _docs_with(index: dict, word: str) -> set[str]:
    """Documents the search index lists for ``word`` (stemmed as Sphinx's English search does)."""
    from sphinx.search.en import SearchEnglish

    stem = SearchEnglish({}).stem(word.lower())
    found: set[int] = set()
    for table in ("terms", "titleterms"):
        hit = index[table].get(stem, [])
        found.update([hit] if isinstance(hit, int) else hit)
    return {index["docnames"][i] for i in found}


# ------------------------------------------------------------------ tests
def test_there_are_games_to_document() -> None:
    assert "kingsbridge" in GAMES


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_file_entry_is_rendered(html_dir: Path, game: str) -> None:
    ids = _game_ids(html_dir, game)
    model = load_rules(game).model
    wanted = {f"option-{n}" for n in model.options}
    wanted |= {f"variant-{n}" for n in model.variants}
    wanted |= {f"character-{_slug(k)}" for k, _ in _characters(game)}
    wanted |= {f"example-{_slug(n)}" for n in _all_examples(game)}
    wanted |= {"overview", "components", "rule-setup", "rule-turn", "options", "variants", "clarifications", "examples"}
    if game == "kingsbridge":
        wanted |= {"rule-turn-lay-out-rebuild", "rule-end", "rule-end-stalemate"}
    if getattr(model, "family", "rows") == "market":  # the card table, each pattern and event, the examples' cards
        wanted |= {"rule-cards", "rule-market", "rule-contracts", "rule-end", "examples-cards"}
        wanted |= {f"rule-contracts-patterns-{_slug(k)}" for k in model.contracts.patterns}
        wanted |= {f"rule-events-{_slug(k)}" for k in model.events}
    missing = sorted(wanted - ids)
    assert not missing, f"{game}: entries missing from the reference pages: {missing}"
    text = html.unescape(_game_source(html_dir, game)).replace("\u2019", "'")
    for clar in model.clarifications:
        assert clar.topic in text, clar.topic
    if getattr(model, "provisional", None):
        assert "Provisional data." in text


@pytest.mark.parametrize("game", GAMES)
def test_every_summary_of_the_rule_file_is_on_its_page(html_dir: Path, game: str) -> None:
    text = _game_text(html_dir, game)
    summaries = _summaries(load_rules(game).model)
    assert summaries, f"{game}: no summaries found in the rule file"
    missing = [path for path, summary in summaries if _plain_text(summary) not in text]
    assert not missing, f"{game}: summaries not rendered on the reference page: {missing}"


def _warning_boxes(page: Path) -> list[tuple[int, str]]:
    """(offset in the page, text) of every ``kbsim-provisional`` warning box."""
    source = page.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r'<div class="[^"]*\bkbsim-provisional\b[^"]*">', source):
        end = source.find("</div>", m.end())
        out.append((m.start(), _plain_text(html.unescape(re.sub(r"<[^>]+>", " ", source[m.end() : end])))))
    return out


def test_continental_express_page_warns_of_its_provisional_card_table(html_dir: Path) -> None:
    assert "continental-express" in GAMES
    model = load_rules("continental-express").model
    assert model.cards.provisional, "the card table is no longer provisional: drop or adapt this test"
    page = html_dir / "rules" / "continental-express" / "index.html"  # the card table is a component
    source = page.read_text(encoding="utf-8")
    boxes = _warning_boxes(page)
    reason = _plain_text(model.cards.provisional)
    assert len(boxes) >= 2, boxes
    # at the top of the page, before the overview: the whole rule set is provisional
    top_at, top = boxes[0]
    assert top_at < source.index('id="overview"')
    assert "Provisional data." in top and reason in top
    # and above the card lists, with how to replace the table
    cards_at = source.index('id="rule-cards"')
    in_cards = [t for at, t in boxes if cards_at < at < source.index("<table", cards_at)]
    assert in_cards and reason in in_cards[0] and "card_table" in in_cards[0]
    # the games list says so too
    games = _page_text(html_dir / "rules" / "index.html")
    assert "provisional data" in games


def test_a_rows_page_has_no_provisional_box(html_dir: Path) -> None:
    for page in _pages(html_dir, "kingsbridge"):
        assert not _warning_boxes(page), page.name


def test_rules_index_links_every_game(html_dir: Path) -> None:
    source = (html_dir / "rules" / "index.html").read_text(encoding="utf-8")
    text = _page_text(html_dir / "rules" / "index.html")
    for game in GAMES:
        assert f'href="{game}/index.html#rules-{game}"' in source, game
        assert _plain_text(load_rules(game).model.title) in text, game


@pytest.mark.parametrize("game", GAMES)
def test_rendered_defaults_are_the_engines(html_dir: Path, game: str) -> None:
    engine = load_rules(game).options
    parser = _Defaults()
    parser.feed((html_dir / "rules" / game / "options.html").read_text(encoding="utf-8"))
    rendered = parser.found
    assert set(rendered) == set(engine), f"options with a rendered default: {sorted(rendered)}"
    for name, value in engine.items():
        assert len(rendered[name]) == 1, f"{name}: {len(rendered[name])} defaults marked"
        shown = yaml.safe_load(rendered[name][0])
        assert shown == value and type(shown) is type(value), f"{name}: page says {shown!r}, engine uses {value!r}"


def test_search_index_maps_rule_terms_to_the_reference(html_dir: Path) -> None:
    index = _search_index(html_dir)
    for word in ("stalemate", "rebuild", "exchange"):
        assert "rules/kingsbridge/turn" in _docs_with(index, word) or "rules/kingsbridge/end" in _docs_with(
            index, word
        ), word


@pytest.mark.parametrize(
    "game,key,name",
    [(g, k, n) for g in GAMES for k, n in _characters(g)]
    or [pytest.param(None, None, None, marks=pytest.mark.skip(reason="no characters yet"))],
)
def test_search_finds_each_character(html_dir: Path, game: str, key: str, name: str) -> None:
    index = _search_index(html_dir)
    for word in re.findall(r"\w+", name):
        found = {d for d in _docs_with(index, word) if d.startswith(f"rules/{game}/")}
        assert found, f"searching {word!r} misses the {game} pages"
    objects = index["objects"].get(game, [])
    assert any(o[3] == f"character-{_slug(key)}" for o in objects)


@pytest.mark.parametrize("game", GAMES)
def test_search_lists_options_and_variants_as_objects(html_dir: Path, game: str) -> None:
    index = _search_index(html_dir)
    pages = {index["docnames"].index(f"rules/{game}/{part}") for part in ("options", "variants")}
    anchors = {o[3] for o in index["objects"].get(game, []) if o[0] in pages}
    model = load_rules(game).model
    expected = {f"option-{n}" for n in model.options} | {f"variant-{n}" for n in model.variants}
    assert expected <= anchors, sorted(expected - anchors)


def test_cli_reference_lists_every_command(html_dir: Path) -> None:
    import typer.main

    from kbsim.cli import app

    ids = _ids(html_dir / "guide" / "cli.html")

    def walk(cmd, path: str):
        yield path
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            if not getattr(sub, "hidden", False):
                yield from walk(sub, f"{path} {name}")

    paths = list(walk(typer.main.get_command(app), "kbsim"))
    assert "kbsim run" in paths
    missing = [p for p in paths if "cli-" + _slug(p.replace(" ", "-")) not in ids]
    assert not missing, missing


def test_records_page_lists_every_column(html_dir: Path) -> None:
    from kbsim.sim.records import SCHEMA

    text = (html_dir / "guide" / "records.html").read_text(encoding="utf-8")
    for f in SCHEMA:
        assert f'<span class="pre">{f.name}</span>' in text, f.name


def test_rule_file_fields_page_has_the_json_schema(html_dir: Path) -> None:
    text = (html_dir / "guide" / "rule-file-fields.html").read_text(encoding="utf-8")
    assert 'id="schema-rulefile"' in text and 'id="json-schema"' in text


def test_rule_file_fields_page_covers_every_family(html_dir: Path) -> None:
    from kbsim.sphinx.records_schema import schema_roots

    text = (html_dir / "guide" / "rule-file-fields.html").read_text(encoding="utf-8")
    families = {getattr(load_rules(g).model, "family", "rows") for g in GAMES}
    roots = dict(schema_roots())
    assert families <= set(roots), f"engine families without a schema section: {families - set(roots)}"
    for family, root in roots.items():
        assert f'id="schema-family-{family}"' in text
        assert f'id="schema-{root.__name__.lower()}"' in text
        for name in root.model_fields:  # every top-level field is in the root's table
            key = root.model_fields[name].alias or name
            assert f'<span class="pre">{key}</span>' in text, f"{root.__name__}.{key}"


def test_studies_page_documents_the_study_format(html_dir: Path) -> None:
    from kbsim.sim.ladder_spec import Rung
    from kbsim.sim.study import Arm, Study, Sweep

    text = _page_text(html_dir / "guide" / "studies.html")
    for model in (Study, Arm, Sweep, Rung):
        for name, info in model.model_fields.items():
            assert (info.alias or name) in text, f"the studies page does not mention {model.__name__}.{name}"
    for command in ("kbsim report", "kbsim compare", "kbsim.records.load"):
        assert command in text, command
    for study in sorted((ROOT / "reports").glob("*.toml")):
        assert f"reports/{study.name}" in text, f"the studies page does not list {study.name}"


def test_guide_describes_every_bot_and_the_solver(html_dir: Path) -> None:
    from kbsim.bots import bots_for

    source = (html_dir / "guide" / "install.html").read_text(encoding="utf-8")
    families = {getattr(load_rules(g).model, "family", "rows") for g in GAMES}
    for name in sorted({n for f in families for n in bots_for(f)}):  # each bot is a term of the bots list
        assert re.search(rf'<dt[^>]*>\s*<code[^>]*><span class="pre">{re.escape(name)}</span>', source), name
    assert "kbsim solve" in _page_text(html_dir / "guide" / "install.html")
    assert "planned" not in _page_text(html_dir / "index.html").lower()


def test_a_provisional_reason_becomes_a_warning_box() -> None:
    from types import SimpleNamespace

    from kbsim.sphinx.helpers import provisional_note

    (box,) = provisional_note(SimpleNamespace(provisional="the card list of the box is not published"))
    assert box.tagname == "warning"
    assert "Provisional data." in box.astext() and "card list of the box" in box.astext()
    assert provisional_note(SimpleNamespace(provisional=None)) == []
    assert provisional_note(SimpleNamespace()) == []


def test_style_sheet_ships_with_the_extension_and_is_linked(html_dir: Path) -> None:
    import kbsim.sphinx

    shipped = kbsim.sphinx.STATIC / "kbsim.css"
    assert shipped.is_file() and "kbsim-board-table" in shipped.read_text(encoding="utf-8")
    assert (html_dir / "_static" / "kbsim.css").read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
    assert re.search(
        r'<link[^>]+href="\.\./\.\./_static/kbsim\.css',
        (html_dir / "rules" / "kingsbridge" / "index.html").read_text(encoding="utf-8"),
    )


def test_generated_pages_depend_on_the_files_they_are_read_from(html_dir: Path) -> None:
    """Incremental builds: each reference page notes its rule file and the files it names (a card table)."""
    import pickle

    with open(html_dir.parent / "doctrees" / "environment.pickle", "rb") as f:
        env = pickle.load(f)
    for game in GAMES:
        files = {Path(p).resolve() for p in load_rules(game).files}
        for page in _pages(html_dir, game):
            docname = f"rules/{game}/{page.stem}"
            deps = {(ROOT / "docs" / d).resolve() for d in env.dependencies[docname]}
            assert files <= deps, f"{docname} does not depend on {files - deps}"
    assert any(len(load_rules(g).files) > 1 for g in GAMES), "no shipped game names a second file (card table)"


def test_the_extension_leaves_the_loader_alone() -> None:
    """Registering the extension changes no function of the rules loader (no monkey-patching)."""
    from unittest import mock

    import kbsim.sphinx
    from kbsim.rules import files, loader

    before = {m: dict(vars(m)) for m in (loader, files)}
    app = mock.MagicMock()
    kbsim.sphinx.setup(app)
    for event, handler in [c.args for c in app.connect.call_args_list]:
        if event in ("builder-inited", "build-finished"):
            handler(app, None) if event == "build-finished" else handler(app)
    for module, names in before.items():
        changed = [k for k, v in vars(module).items() if names.get(k) is not v]
        assert not changed, f"{module.__name__}: {changed}"


# ------------------------------------------------------------------ in a real browser
#: The tallest page of a game's reference, in px at 1,400 px wide (the one-page Kingsbridge reference was 52,000).
MAX_PAGE_PX = 8_000


@pytest.fixture(scope="module")
def chromium():
    with browser() as driver:
        yield driver


@needs_chromium
def test_no_page_of_a_reference_is_too_tall(html_dir: Path, chromium) -> None:
    heights = {}
    for game in GAMES:
        for page in _pages(html_dir, game):
            heights[f"{game}/{page.name}"] = page_height(chromium, page.resolve().as_uri())
    tall = {k: v for k, v in heights.items() if v > MAX_PAGE_PX}
    assert not tall, f"pages taller than {MAX_PAGE_PX} px: {tall}"
    assert heights["kingsbridge/turn.html"] > 500, heights  # the pages were measured, not blank


def _searches() -> list[tuple[str, str, str]]:
    """(query, game, text its first result on the game's pages shows): a rule term, and a character's name."""
    out = [("stalemate", "kingsbridge", "stalemate")]
    chars = getattr(load_rules("kingsbridge").model, "characters", None)
    if chars is not None:
        key, ch = next(((k, c) for k, c in chars.roster.items() if c.name == "Ragna"), next(iter(chars.roster.items())))
        out.append((ch.name, "kingsbridge", _plain_text(ch.summary)[:60]))  # found by name, shown with its text
    return out


@needs_chromium
@pytest.mark.parametrize("where", ["served", "file"])
@pytest.mark.parametrize("query,game,shown", _searches())
def test_search_shows_the_rule_text(html_dir: Path, chromium, where: str, query: str, game: str, shown: str) -> None:
    """Search results carry their text, from a server and from disk alike, with no error in the console."""
    with serve(html_dir) as base:
        root = base if where == "served" else html_dir.resolve().as_uri() + "/"
        results = search(chromium, f"{root}search.html?q={query}")
        errors = console_errors(chromium)
    assert not errors, errors  # file:// used to log a CORS error per result
    ours = [r for r in results if r["href"].startswith(f"rules/{game}/")]
    assert ours, f"searching {query!r} did not list rules/{game}: {results[:5]}"
    assert all(r["text"] for r in results), [r for r in results if not r["text"]][:3]
    assert shown.lower() in _plain_text(ours[0]["text"]).lower(), ours[0]


@needs_chromium
def test_search_ranks_the_rules_above_the_api(html_dir: Path, chromium) -> None:
    """For "rebuild", an API class ranked first and the rules section sixth; the rules come first now."""
    results = search(chromium, f"{html_dir.resolve().as_uri()}/search.html?q=rebuild")
    pages = [r["href"].split("#")[0] for r in results]
    rules = [i for i, p in enumerate(pages) if p.startswith("rules/") and p.count("/") == 2]  # rules/GAME/PAGE
    api = [i for i, p in enumerate(pages) if p.startswith("api/")]
    assert rules and api and max(rules) < min(api), pages
    assert results[0]["href"].endswith("/turn.html#rule-turn-lay-out-rebuild"), results[:3]


@pytest.mark.parametrize("game", GAMES)
def test_rule_pages_lead_with_prose_and_fold_the_engine_settings(html_dir: Path, game: str) -> None:
    """Every settings table of a game page sits in a collapsed <details> block, never loose after a paragraph."""
    text = _game_source(html_dir, game)
    tables = [m.start() for m in re.finditer(r'<table[^>]*class="[^"]*kbsim-settings', text)]
    assert tables, f"{game}: no settings tables"
    for pos in tables:
        opened = text.rfind('<details class="kbsim-settings-fold">', 0, pos)
        closed = text.rfind("</details>", 0, pos)
        assert opened > closed, f"{game}: a settings table at {pos} is not folded"
        assert '<details class="kbsim-settings-fold" open' not in text


def test_read_the_docs_builds_these_docs_from_the_package() -> None:
    """.readthedocs.yaml builds docs/conf.py with warnings as errors, after installing kbsim with its docs extra."""
    import tomllib

    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text(encoding="utf-8"))
    assert config["version"] == 2
    assert (ROOT / config["sphinx"]["configuration"]).resolve() == (DOCS / "conf.py").resolve()
    assert config["sphinx"]["fail_on_warning"] is True
    (install,) = config["python"]["install"]
    assert install["path"] == "." and install["extra_requirements"] == ["docs"]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {"sphinx", "myst-parser", "furo", "babel"} <= {re.split(r"[<>=\[]", d)[0] for d in extras["docs"]}
