"""``kbsim rules publish``: a game's rules reference as a static site of its own, built from the installed package.

No source tree is needed: the Sphinx project (a ``conf.py`` and a home page) is written
into the site's own ``.kbsim/`` folder, and the extension writes the pages of each game
from its rule file (:mod:`kbsim.sphinx.pages`). The site has the same pages as kbsim's
own reference, in the language of its rule files, with the search that works from disk,
and the study reports given with ``--reports`` copied beside it.

The site's folder carries a marker, ``.kbsim/site.json``. A folder without it that is not
empty is never written to; one with it is replaced only on request (``--force``), reusing
the saved build (Sphinx's doctrees in ``.kbsim/doctrees``) when the same games are published
under the same title, so a rebuild after an edit reads again only the pages that depend on
the edited rule file or card table.

Every input is checked before anything is written (:func:`plan_site`): the rule files as
``kbsim rules check`` checks them, the report pages, the output folder; each problem is
one line of :class:`PublishError`.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbsim.sphinx.i18n import DEFAULT, Words, has_catalog
from kbsim.sphinx.pages import write_if_changed

#: The marker of a site kbsim published, relative to the site's folder.
MARKER = Path(".kbsim") / "site.json"
#: Where the build keeps its Sphinx project and doctrees, relative to the site's folder.
WORK = Path(".kbsim")
#: The largest report page ``--reports`` copies (kbsim's pages embed plotly.js once: a few MB).
MAX_REPORT_BYTES = 100 * 1024 * 1024
#: The largest number of rule files one site holds.
MAX_GAMES = 50


class PublishError(Exception):
    """Inputs that cannot be published: one line per problem (file, what is wrong, what was expected).

    Args:
        lines: the problems.
    """

    def __init__(self, lines: list[str]):
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass
class Site:
    """A checked site to build (:func:`plan_site`).

    Attributes:
        out: the site's folder.
        games: what the pages name for each game: a shipped game's name, or a rule file's absolute path.
        names: each game's name (``game:`` in its rule file; the folder of its pages), in the same order.
        titles: each game's title, in the same order.
        title: the site's title.
        language: the language of the rule files (and of the site).
        reports: report pages to copy, with the link title of each.
        replace: the folder holds a site kbsim published, which this build replaces.
    """

    out: Path
    games: list[str]
    names: list[str]
    titles: list[str]
    title: str
    language: str
    reports: list[tuple[Path, str]] = field(default_factory=list)
    replace: bool = False

    def identity(self) -> dict[str, Any]:
        """What decides the site's pages: the same identity lets a rebuild reuse the saved build."""
        from kbsim import __version__

        return {"kbsim": __version__, "games": self.games, "title": self.title, "language": self.language}


@dataclass
class Built:
    """What :func:`build_site` did.

    Attributes:
        index: the site's home page.
        pages: HTML pages in the site.
        warnings: the build's warnings, one line each.
        seconds: wall time of the build.
        incremental: a saved build was reused.
    """

    index: Path
    pages: int
    warnings: list[str]
    seconds: float
    incremental: bool


def read_marker(out: Path) -> dict[str, Any] | None:
    """The marker of a site kbsim published in ``out``, or None (no marker, or not one kbsim wrote)."""
    path = out / MARKER
    try:
        if not path.is_file() or path.stat().st_size > 1_000_000:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("written_by") == "kbsim rules publish" else None


def check_site_folder(out: Path, force: bool) -> bool:
    """Whether ``out`` may receive the site; True when it replaces a site kbsim published there.

    Raises:
        PublishError: ``out`` is a file, a folder kbsim did not write (not empty, no marker), or a
            site kbsim published while ``--force`` was not given.
    """
    flag = f"--out {out}"
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise PublishError([f"{flag}: exists and is not a folder; expected a folder for the site"])
    if not out.exists():
        if not out.parent.is_dir():
            raise PublishError([f"{flag}: folder {out.parent} does not exist"])
        return False
    if not any(out.iterdir()):
        return False
    if read_marker(out) is None:
        raise PublishError(
            [
                f"{flag}: a folder that is not empty and holds no site kbsim published (no {MARKER.as_posix()}); "
                "refusing to write into it (choose a new or empty folder)"
            ]
        )
    if not force:
        raise PublishError([f"{flag}: holds a site kbsim published; add --force to replace it"])
    return True


def report_title(path: Path) -> str:
    """The ``<title>`` of a report page (without kbsim's `` · kbsim report`` suffix), else the file's stem."""
    try:
        with path.open("rb") as f:
            head = f.read(65_536).decode("utf-8", "replace")
    except OSError:
        return path.stem
    m = re.search(r"<title>(.*?)</title>", head, re.S | re.I)
    text = " ".join(html.unescape(m.group(1)).split()) if m else ""
    text = re.sub(r"\s*·\s*kbsim report$", "", text)
    return text[:200] or path.stem


def _report_problem(path: Path) -> str | None:
    if not path.exists():
        return f"--reports {path}: no such file"
    if not path.is_file():
        return f"--reports {path}: not a regular file; expected a report page (.html)"
    if path.suffix.lower() not in (".html", ".htm"):
        return f"--reports {path}: expected a report page (.html) written by kbsim report or kbsim compare"
    size = path.stat().st_size
    if size > MAX_REPORT_BYTES:
        return f"--reports {path}: {size:,} bytes; expected at most {MAX_REPORT_BYTES:,}"
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError as e:
        return f"--reports {path}: cannot be read ({e.strerror or e})"
    if b'<meta name="generator" content="kbsim' not in head:
        return f"--reports {path}: not a page kbsim report or kbsim compare wrote; expected one of theirs"
    return None


def _load_games(games: list[str]) -> tuple[list[str], list[Any], list[str]]:
    """Load each game as ``kbsim rules check`` does (its variants too).

    Returns:
        (what the pages name each loaded game by: a shipped name or an absolute path; the validated rule
        files; the problems, one line each).
    """
    from kbsim.rules.loader import RulesError, find_rule_file, load_rules, shipped_games

    problems: list[str] = []
    if not games:
        problems.append("no game given: expected shipped game names or rule files")
    if len(games) > MAX_GAMES:
        problems.append(f"{len(games)} games: expected at most {MAX_GAMES} in one site")
    named: list[str] = []
    models: list[Any] = []
    for game in games[:MAX_GAMES]:
        try:
            path = find_rule_file(game)
            loaded = load_rules(game)
            for variant in loaded.model.variants:
                load_rules(game, [variant])
        except RulesError as e:
            problems += e.lines
            continue
        shipped = game in shipped_games() and not Path(game).suffix
        named.append(game if shipped else str(path.resolve()))
        models.append(loaded.model)
    return named, models, problems


def plan_site(games: list[str], out: Path, title: str | None, reports: list[Path], force: bool) -> Site:
    """Check everything a site needs, before anything is written.

    Args:
        games: shipped game names or rule-file paths (one site may hold several).
        out: the site's folder.
        title: the site's title (default: the game's title; "Rules reference" for several games).
        reports: report pages to publish beside the rules.
        force: replace a site kbsim published in ``out``.

    Returns:
        The :class:`Site` to build.

    Raises:
        PublishError: every problem found, one line each: an unknown game or an invalid rule file (the
            lines of ``kbsim rules check``, its variants included), games of different languages or with
            the same name, a report page that is not kbsim's, an output folder that may not be written.
    """
    named, models, problems = _load_games(games)
    by_name: dict[str, str] = {}
    for arg, model in zip(named, models, strict=True):
        if model.game in by_name:
            problems.append(f"{arg}: game {model.game!r} is also {by_name[model.game]}; one site holds a game once")
        by_name.setdefault(model.game, arg)
    languages = sorted({getattr(m, "language", DEFAULT) or DEFAULT for m in models})
    if len(languages) > 1:
        which = ", ".join(f"{arg} is {getattr(m, 'language', DEFAULT)}" for arg, m in zip(named, models, strict=True))
        problems.append(f"the games of one site must share a language (its search is in one language): {which}")
    if title is not None and (not title.strip() or len(title) > 200 or any(ord(c) < 32 for c in title)):
        problems.append(f"--title {title[:60]!r}: expected one line of 1 to 200 characters")
    for report in reports:
        problem = _report_problem(Path(report))
        if problem:
            problems.append(problem)
    stems = [Path(r).name for r in reports]
    for name in sorted({s for s in stems if stems.count(s) > 1}):
        problems.append(f"--reports: two pages named {name}; give each report page its own file name")
    try:
        replace = check_site_folder(out, force)
    except PublishError as e:
        problems += e.lines
        replace = False
    if problems:
        raise PublishError(problems)
    language = languages[0] if languages else DEFAULT
    titles = [m.title for m in models]
    if title is None:
        _ = Words(language)
        title = titles[0] if len(titles) == 1 else _("Rules reference")
    return Site(
        out=out,
        games=named,
        names=[m.game for m in models],
        titles=titles,
        title=title.strip(),
        language=language,
        reports=[(Path(r), report_title(Path(r))) for r in reports],
        replace=replace,
    )


def _conf(site: Site) -> str:
    """The ``conf.py`` of the site's Sphinx project (values written as Python literals)."""
    reports = [(t, f"reports/{p.name}") for p, t in site.reports]
    values = {
        "project": site.title,
        "language": site.language,
        "extensions": ["myst_parser", "kbsim.sphinx"],
        "source_suffix": {".md": "markdown"},
        "root_doc": "index",
        "myst_enable_extensions": ["colon_fence", "deflist"],
        "html_theme": "furo",
        "html_title": site.title,
        "html_copy_source": False,
        "html_show_copyright": False,
        "html_show_sourcelink": False,
        "kbsim_rules_folder": ".",
        "kbsim_rules_games": site.games,
        "kbsim_reports": reports,
    }
    lines = [
        '"""Sphinx configuration of a site written by `kbsim rules publish` (rewritten at each publish)."""',
        "",
    ]
    lines += [f"{k} = {v!r}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def _home(site: Site) -> str:
    """The site's home page: its title, a line on what it is, the games (linked) and their pages."""
    _ = Words(site.language)
    title = site.title.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("`", "\\`")
    intro = _(
        "The rules reference of the games below, generated by kbsim from their rule files: the same files its engine "
        "plays, so the reference says what a simulation does. Use the search box to find a rule, a character or an "
        "option."
    )
    text = f"# {title}\n\n{intro}\n\n```{{kbsim-games}}\n```\n\n"
    toc = "\n".join(f"{name}/index" for name in site.names)
    return text + f"```{{toctree}}\n:hidden:\n\n{toc}\n```\n"


def _empty(folder: Path) -> None:
    """Remove everything in ``folder`` (a site kbsim published: its marker was checked), links not followed."""
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def build_site(site: Site) -> Built:
    """Build a checked site (:func:`plan_site`) into its folder with Sphinx and the kbsim extension.

    Returns:
        What was built.

    Raises:
        RuntimeError: Sphinx failed (the message names the cause); the folder keeps its marker, so a
            later ``--force`` may replace it.
    """
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    start = time.perf_counter()
    out = site.out
    old = read_marker(out) if site.replace else None
    incremental = bool(old) and old.get("identity") == site.identity() and old.get("status") == "built"
    if site.replace and not incremental:
        _empty(out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / WORK
    src = work / "src"
    marker = {"written_by": "kbsim rules publish", "identity": site.identity(), "status": "building"}
    write_if_changed(out / MARKER, json.dumps(marker, indent=2))
    write_if_changed(src / "conf.py", _conf(site))
    write_if_changed(src / "index.md", _home(site))
    warnings = io.StringIO()
    try:
        with patch_docutils(src), docutils_namespace():
            app = Sphinx(
                srcdir=src,
                confdir=src,
                outdir=out,
                doctreedir=work / "doctrees",
                buildername="html",
                status=None,
                warning=warnings,
                freshenv=not incremental,
            )
            app.build()
    except Exception as e:  # Sphinx's own errors have many types; the message names the cause
        raise RuntimeError(f"Sphinx could not build the site: {type(e).__name__}: {e}") from e
    (out / ".nojekyll").touch()  # GitHub Pages: serve _static/ as it is
    reports = out / "reports"  # the pages link reports/NAME.html (kbsim_reports)
    if reports.is_dir() and not reports.is_symlink():
        shutil.rmtree(reports)
    if site.reports:
        reports.mkdir()
        for path, _title in site.reports:
            shutil.copyfile(path, reports / path.name)
    marker["status"] = "built"
    write_if_changed(out / MARKER, json.dumps(marker, indent=2))
    text = re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())  # Sphinx colours its warnings on a terminal
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    pages = sum(1 for _ in out.rglob("*.html") if WORK.name not in _.parts)
    if not has_catalog(site.language):
        lines.insert(0, f"kbsim has no {site.language} words: its headings and labels are in English")
    return Built(
        index=out / "index.html",
        pages=pages,
        warnings=lines,
        seconds=time.perf_counter() - start,
        incremental=incremental,
    )
