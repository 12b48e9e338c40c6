"""The Answer at the top of every report page: what the sections found, in a few sentences and small tables.

Built last (:func:`kbsim.analysis.sections.build_page`), from the blocks the sections contribute, the warnings
(arms that measured nothing) and how many comparisons the page resolved.
"""

from __future__ import annotations

from kbsim.analysis.page import Page


def answer_data(page: Page, blocks: list[dict]) -> dict:
    """The Answer section's data.

    Args:
        page: the page (its statistics and the tables built so far).
        blocks: what the sections contribute (``title``, ``lines``, optional ``columns``/``rows``), in page order.

    Returns:
        ``blocks``, ``warnings`` (one sentence per arm that measured nothing), ``adjustment`` (the page's
        family of tests), ``nothing_resolved`` (no comparison on the page is resolved), ``stopping`` (the
        stopping rule's sentence, when the deals were played until decided), ``deals`` (the deals per cell per
        rung when the ladder's rungs played different numbers, else "") and ``question``.
    """
    from kbsim.analysis.ladder import rung_deals
    from kbsim.analysis.reading import deals_words
    from kbsim.analysis.tables import unused_text

    st = page.stats
    adj = st["adjustment"]
    tested = adj["comparisons"] + adj["untestable"]
    stopping = getattr(page.inp.stopping, "sentence", None) if page.inp.stopping is not None else None
    deals = {r: n for r, n in rung_deals(page.inp.conditions, st["groups"]).items() if r is not None}
    return {
        "question": page.inp.question,
        "blocks": blocks,
        "warnings": [unused_text(page.inp, k, st) for k in st.get("unused", [])],
        "adjustment": adj,
        "nothing_resolved": bool(tested) and not adj["resolved"],
        "stopping": stopping,
        "deals": deals_words(deals) if len(set(deals.values())) > 1 else "",
    }


__all__ = ["answer_data"]
