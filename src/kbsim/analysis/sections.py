"""The report page as a list of sections: how a page is put together, and how to add a section to it.

A page answers first and explains after. It is the **Answer** (:data:`ANSWER`), then every registered section
in order (:data:`SECTIONS`). A section is a :class:`Section`:

* ``build(page) -> dict | None``: the section's data, a small plain structure made from the page's statistics
  (``page.stats``, from :func:`kbsim.analysis.arms.compute`) and input (``page.inp``); None when the section has
  nothing to show on this page (it is then left out, with its entry in the page's navigation);
* a template block, ``templates/sections/<id>.html.j2``, that renders ``data`` (the result of ``build``); it
  also sees ``page`` (players, labels, ladder), ``section`` and the macros of ``templates/_macros.html.j2``
  (imported as ``m``): ``m.fold`` for a folded block (``<details>``), ``m.tabs`` for one tab per player count
  (plain HTML and CSS), ``m.table`` for a table of dicts. Every long table and every figure is folded; per
  player count details go behind tabs, so a page stays a few screens tall;
* optionally ``tests(inp, frame) -> list[dict]``: comparisons that join the page's family of tests. Each dict
  holds a ``delta`` (a :class:`~kbsim.analysis.metrics.Delta` with its raw p-value, e.g. from
  :func:`~kbsim.analysis.metrics.paired`); ``frame`` is the page's records prepared by
  :func:`kbsim.analysis.arms.prepare` (one row per game, in canonical order). They are Holm-adjusted together
  with every other comparison of the page before any section is built, and come back, adjusted, as
  ``page.stats["sections"][id]``;
* optionally ``answer(page, data) -> list[dict]``: what the section contributes to the Answer, as blocks
  ``{"title": str, "lines": [str, ...]}`` (plain sentences; a block may add ``"columns"`` and ``"rows"`` for a
  small table, see ``m.table``). A sentence states a finding only when it is resolved after the page's
  adjustment, and says how it depends on skill when the page has a ladder.

To add a section (say, the value of each move to a player)::

    from kbsim.analysis.sections import Section, register

    register(Section("restricted", "What each move is worth", build=my_build, tests=my_tests,
                     answer=my_answer), after="verdict")

and write ``templates/sections/restricted.html.j2``. A section reads records and statistics only (never the
engine), and every number it shows is a function of the records (sort deals by their seed before any
resampling; seed resampling with :func:`kbsim.analysis.metrics.resampling_seed`).
"""

from __future__ import annotations

from kbsim.analysis.page import AnswerFn, Build, Page, Section, Tests
from kbsim.analysis.reading import ReportInput

SECTIONS: list[Section] = []
_BUILTIN_LOADED = False


def sections() -> list[Section]:
    """The registered sections in page order (the built-in ones of :mod:`kbsim.analysis.page_sections` first)."""
    global _BUILTIN_LOADED
    if not _BUILTIN_LOADED:
        _BUILTIN_LOADED = True
        from kbsim.analysis.page_sections import BUILTIN

        SECTIONS[:0] = [s for s in BUILTIN if s.id not in {x.id for x in SECTIONS}]
    return SECTIONS


def register(section: Section, *, before: str | None = None, after: str | None = None) -> None:
    """Add a section to the page (at the end, or before/after the section with that id).

    A section registered again under the same id replaces the earlier one in place.

    Raises:
        ValueError: a malformed id, or ``before``/``after`` names no registered section.
    """
    import re

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", section.id):
        raise ValueError(f"section id {section.id!r}: expected lowercase letters, digits and -")
    ids = [s.id for s in sections()]
    if section.id in ids:
        SECTIONS[ids.index(section.id)] = section
        return
    anchor = before or after
    if anchor is None:
        SECTIONS.append(section)
        return
    if anchor not in ids:
        raise ValueError(f"no section {anchor!r} to place {section.id!r} next to; sections: {', '.join(ids)}")
    SECTIONS.insert(ids.index(anchor) + (0 if before else 1), section)


def section_tests() -> dict[str, Tests]:
    """Section id -> its ``tests`` function, for the sections that add comparisons to the page's family."""
    return {s.id: s.tests for s in sections() if s.tests is not None}


def build_page(inp: ReportInput, stats: dict) -> tuple[Page, list[tuple[Section, dict]], dict]:
    """Build every section's data, then the Answer from what the sections contribute.

    Args:
        inp: the report input.
        stats: from :func:`kbsim.analysis.arms.compute` (with the sections' adjusted comparisons).

    Returns:
        ``(page, shown, answer)``: the page, the (section, data) pairs shown in order, and the Answer's data.
    """
    page = Page(
        inp=inp,
        stats=stats,
        labels={c.key: c.label for c in inp.conditions},
        players=list(stats["players"]),
    )
    shown: list[tuple[Section, dict]] = []
    for s in sections():
        data = s.build(page)
        if data is not None:
            page.data[s.id] = data
            shown.append((s, data))
    blocks: list[dict] = []
    for s, data in shown:
        if s.answer is not None:
            for block in s.answer(page, data):
                blocks.append(block | {"section": s.id})
    from kbsim.analysis.answer import answer_data

    return page, shown, answer_data(page, blocks)


__all__ = [
    "AnswerFn",
    "Build",
    "Page",
    "SECTIONS",
    "Section",
    "Tests",
    "build_page",
    "register",
    "section_tests",
    "sections",
]
