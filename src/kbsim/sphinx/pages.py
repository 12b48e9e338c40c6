"""The source pages of each game's reference, written by the extension before Sphinx reads the project.

Which pages a game's reference has depends on its rule file (a page per top-level
rule section, the characters when it has some, one page per character when they have
examples: :meth:`~kbsim.sphinx.reference.ReferenceRenderer.parts`), so the pages are
written from the rule files at each build, like ``autosummary`` writes its stubs: with
``kbsim_rules_folder = "rules"`` in ``conf.py``, the extension writes
``rules/GAME/index.md``, ``rules/GAME/setup.md``... for each game of
``kbsim_rules_games`` (default: every shipped game). Each page holds a
``{kbsim-rules} GAME`` directive with its ``:part:``; the directive puts a hidden
table of contents of the other pages in the first page (and of the characters' pages
in the characters page).

The folder of a game belongs to kbsim (a ``.kbsim-pages`` file marks it): pages no
longer needed are removed from it, and so are marked folders of games no longer
documented. A page is rewritten only when its text changes, so an incremental build
reads again only what changed (the pages' content depends on the rule files through
``env.note_dependency``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from kbsim.sphinx.directives import reference_games, renderer_class

logger = logging.getLogger(__name__)

#: The file that marks a folder of pages written by :func:`write_reference_pages`.
MARK = ".kbsim-pages"


def page_sources(game: str, model: Any) -> dict[str, str]:
    """The MyST source of every page of a game's reference.

    Args:
        game: what the directives name: a shipped game's name, or the absolute path of a rule file.
        model: the validated rule file.

    Returns:
        File name (``index.md``, ``setup.md``, ``character-edgar.md``...) -> page text.
    """
    parts = renderer_class(model).parts(model)
    return {f"{part}.md": f"```{{kbsim-rules}} {game}\n:part: {part}\n```\n" for part in parts}


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (making its folder) unless it already holds it.

    The file's time then stays as it was, so an incremental build does not read it again.
    """
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_reference_pages(app: Sphinx) -> None:
    """``builder-inited``: write the pages of every documented game into ``kbsim_rules_folder`` (if set).

    A game is a shipped name or a path (relative to the folder of ``conf.py``). A rule file that
    cannot be loaded is a warning (a ``-W`` build fails) and gets no pages.
    """
    from kbsim.rules.loader import RulesError, load_rules

    folder = app.config.kbsim_rules_folder
    if folder is None:
        return
    root = (Path(app.srcdir) / folder).resolve()
    root.mkdir(parents=True, exist_ok=True)
    written = set()
    for game in reference_games(app.config):
        target = game
        if Path(game).suffix in (".yaml", ".yml") and not Path(game).is_absolute():
            target = str((Path(app.confdir) / game).resolve())
        try:
            model = load_rules(target).model
        except RulesError as e:
            logger.warning("kbsim: no reference pages for %s: %s", game, str(e).replace("\n", "; "))
            continue
        here = root / model.game
        here.mkdir(exist_ok=True)
        (here / MARK).touch()
        pages = page_sources(target, model)
        for name, text in pages.items():
            write_if_changed(here / name, text)
        for old in here.glob("*.md"):
            if old.name not in pages:
                old.unlink()
        written.add(here)
    for marked in root.glob(f"*/{MARK}"):
        if marked.parent not in written:
            for old in marked.parent.glob("*.md"):
                old.unlink()
            marked.unlink()
            if not any(marked.parent.iterdir()):
                marked.parent.rmdir()
