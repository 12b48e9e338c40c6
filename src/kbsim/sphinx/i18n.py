"""kbsim's own words in the rules reference (headings, labels, table headers), in the rule file's language.

A rule file declares the language its text is written in (``language: fr``; default
``en``). The reference renders the file's text as written and takes kbsim's fixed words
from a gettext message catalog of that language:
``kbsim/sphinx/locale/LANG/LC_MESSAGES/kbsim.po``. kbsim ships English (the words as
written in the code, so its catalog is empty) and French. **Adding a language is one
data file**: copy ``locale/kbsim.pot`` (the template: every word, with its place in
the code) to ``locale/LANG/LC_MESSAGES/kbsim.po`` and fill in each ``msgstr``; a word
left empty stays in English.

The ``.po`` files are compiled when they are first used, in memory, with Babel (which
Sphinx itself depends on), rather than shipped as compiled ``.mo`` files: the catalog a
translator edits is the one kbsim reads (no compile step to forget, no binary file in the
repository or a build hook in the wheel), and compiling a catalog of a few hundred
words takes milliseconds.

Words are marked for extraction as ``_("...")`` (translated at once) or ``N_("...")``
(a table of words translated where they are shown); ``tests/test_publish.py`` checks
that the template and every catalog hold exactly the words the code marks.
"""

from __future__ import annotations

import functools
import gettext
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The folder of the message catalogs (``LANG/LC_MESSAGES/kbsim.po``) and of the template ``kbsim.pot``.
LOCALE = Path(__file__).resolve().parent / "locale"
#: The gettext domain of kbsim's words.
DOMAIN = "kbsim"
#: The language a rule file without ``language`` is written in, and the language of the words in the code.
DEFAULT = "en"


def N_(text: str) -> str:  # noqa: N802 (the gettext convention for "mark, translate later")
    """Mark ``text`` as a word to translate where it is shown (returns it unchanged)."""
    return text


def catalog_path(language: str) -> Path:
    """Where the catalog of ``language`` lives (it may not exist)."""
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def languages() -> list[str]:
    """The languages kbsim has a catalog for (English always), sorted."""
    found = {p.parent.parent.name for p in LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    return sorted(found | {DEFAULT})


def has_catalog(language: str) -> bool:
    """Whether kbsim's words exist in ``language`` (or in its base language: ``fr`` for ``fr_CA``)."""
    return language == DEFAULT or any(catalog_path(lang).is_file() for lang in (language, language.split("_")[0]))


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """Kbsim's words in ``language``, compiled from its ``.po`` catalog (cached).

    Args:
        language: a language code (``fr``, ``pt_BR``); a region falls back to its base language's catalog.

    Returns:
        The translations; English (the words in the code) when kbsim has no catalog for the language.

    Raises:
        ValueError: a shipped catalog cannot be read (a broken ``.po`` file).
    """
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for lang in (language, language.split("_")[0]):
        path = catalog_path(lang)
        if lang != DEFAULT and path.is_file():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
            buf = io.BytesIO()
            write_mo(buf, catalog)
            buf.seek(0)
            return gettext.GNUTranslations(buf)
    return gettext.NullTranslations()


class Words:
    """kbsim's words in one language, for a page renderer.

    Args:
        language: the rule file's language.
    """

    def __init__(self, language: str = DEFAULT):
        self.language = language
        t = translations(language)
        self.gettext: Callable[[str], str] = t.gettext
        self.ngettext: Callable[[str, str, int], str] = t.ngettext

    def __call__(self, text: str) -> str:
        """``text`` in this language."""
        return self.gettext(text) if text else text

    def parts(self, template: str, **values: Any) -> list[Any]:
        """The translated ``template`` cut at its ``{name}`` fields, each replaced by ``values[name]``.

        A value may be a docutils node (a literal, a link) or a list of text and nodes, so a sentence
        keeps its word order in every language: ``parts("Run with {flag}.", flag=code("--variant"))``.

        Raises:
            KeyError: the translation names a field that is not given.
        """
        out: list[Any] = []
        pos = 0
        text = self(template)
        for m in re.finditer(r"\{(\w+)\}", text):
            if m.start() > pos:
                out.append(text[pos : m.start()])
            value = values[m.group(1)]
            out.extend(value) if isinstance(value, list) else out.append(value)
            pos = m.end()
        if pos < len(text):
            out.append(text[pos:])
        return out


#: How kbsim marks its words (the arguments of these calls are extracted into the template).
KEYWORDS = {"_": None, "N_": None, "tr": None, "parts": None, "ngettext": (1, 2)}


def template() -> Any:
    """Every word the code of :mod:`kbsim.sphinx` marks, as a Babel catalog (what ``kbsim.pot`` holds).

    Returns:
        A :class:`babel.messages.catalog.Catalog`; each message lists where the code uses it.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    catalog = Catalog(project="kbsim", domain=DOMAIN, fuzzy=False)
    here = Path(__file__).resolve().parent
    for filename, lineno, message, comments, context in extract_from_dir(
        str(here), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        catalog.add(message, locations=[(f"kbsim/sphinx/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


def update_catalogs() -> list[Path]:
    """Write ``locale/kbsim.pot`` from the code, and bring every catalog up to date with it (Babel's update).

    A word the code no longer marks becomes obsolete in each catalog; a new word is added untranslated
    (it shows in English until a translator fills it in). Run ``python -m kbsim.sphinx.i18n`` after
    changing kbsim's words.

    Returns:
        The files written.
    """
    from babel.messages.pofile import read_po, write_po

    tmpl = template()
    pot = LOCALE / f"{DOMAIN}.pot"
    with pot.open("wb") as f:
        write_po(f, tmpl, omit_header=False, sort_output=True, width=120)
    written = [pot]
    for lang in languages():
        path = catalog_path(lang)
        if not path.is_file():
            continue
        with path.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=DOMAIN)
        catalog.update(tmpl, no_fuzzy_matching=True)
        with path.open("wb") as f:
            write_po(f, catalog, sort_output=True, width=120, ignore_obsolete=True)
        written.append(path)
    return written


if __name__ == "__main__":
    for written in update_catalogs():
        print(f"wrote {written}")
