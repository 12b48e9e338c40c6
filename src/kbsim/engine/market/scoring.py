"""Pattern scoring of contracts over icon colours (:func:`pattern_points`)."""

from __future__ import annotations

from functools import lru_cache

from kbsim.engine.market.compiled import Pattern


def _placements(p: Pattern, counts: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Icon counts left after taking one occurrence of ``p``, for every distinct way of taking it."""
    out: set[tuple[int, ...]] = set()
    cur = list(counts)
    used: list[int] = []
    groups = p.groups
    n = len(cur)

    def rec(gi: int) -> None:
        if gi == len(groups):
            out.add(tuple(cur))
            return
        size = groups[gi]
        for c in (p.colours[gi],) if p.colours is not None else range(n):
            if cur[c] < size or (p.distinct and c in used):
                continue
            cur[c] -= size
            used.append(c)
            rec(gi + 1)
            used.pop()
            cur[c] += size

    rec(0)
    return out


@lru_cache(maxsize=1 << 17)
def _best(terms: tuple[Pattern, ...], i: int, counts: tuple[int, ...]) -> int:
    if i == len(terms):
        return 0
    t = terms[i]
    best = _best(terms, i + 1, counts)
    for rest in _placements(t, counts):
        v = t.points + (_best(terms, i, rest) if t.repeat else _best(terms, i + 1, rest))
        if v > best:
            best = v
    return best


def pattern_points(terms: tuple[Pattern, ...], counts: tuple[int, ...], exclusive: bool = True) -> int:
    """Points of a contract's pattern terms for icon counts per colour.

    Rule implemented (documented in the rule file's ``contracts`` section): within
    one term, occurrences never share an icon and the most occurrences count
    (once at most when the term does not ``repeat``). Across terms, with
    ``exclusive`` an icon serves at most one term and the assignment best for the
    player is taken (an exact search over colour counts, memoised); without it
    each term is scored on all icons independently.

    Args:
        terms: the contract's :class:`Pattern` terms.
        counts: icons per company colour (a tuple as long as :attr:`MarketGame.companies`).
        exclusive: the ``icon_use: exclusive`` reading.

    Returns:
        The points (an int >= 0 when every term's points are >= 0).
    """
    if exclusive or len(terms) == 1:
        return _best(terms, 0, counts)
    return sum(_best((t,), 0, counts) for t in terms)
