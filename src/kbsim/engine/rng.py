"""Draws from a :class:`random.Random` stream, bit for bit as its own methods draw them, compiled with mypyc.

The deal shuffles the deck with ``rng.shuffle`` and the random bot draws with ``choice``, ``sample``, ``randint``
and ``shuffle``. CPython writes these methods in Python (``random.py``); only ``getrandbits`` is in C. A game
spends most of its deal in those interpreted frames (104 ``_randbelow`` calls per shuffle). The functions here
are the same algorithms as CPython 3.11-3.13's ``random.Random`` (``shuffle``, ``choice``, ``sample``,
``randint`` over ``_randbelow_with_getrandbits``), written once in typed Python so mypyc compiles them: the same
calls to ``getrandbits`` in the same order, so the same stream state and the same results as the methods.

They take this fast path only for a plain :class:`random.Random` whose ``_randbelow`` is CPython's
``_randbelow_with_getrandbits`` (checked once at import); any other generator (a subclass, another Python whose
``random.py`` differs) gets its own method called, so the results never differ from ``rng.<method>(...)``.
``tests/test_rng.py`` compares every function with the method on many seeds and sizes.
"""

from __future__ import annotations

import random
from _random import Random as _CRandom
from collections.abc import Sequence
from math import ceil, log
from typing import Final, TypeVar

T = TypeVar("T")

_EXACT: Final = getattr(random.Random, "_randbelow", None) is getattr(random.Random, "_randbelow_with_getrandbits", 1)
"""True when ``random.Random._randbelow`` is ``_randbelow_with_getrandbits`` (CPython's, the algorithm below)."""


_SEED_EXACT: Final = random.Random.__bases__ == (_CRandom,)
"""True when ``random.Random`` is CPython's: ``random.py`` over the C generator ``_random.Random``."""


def seeded(seed: int) -> random.Random:
    """``random.Random(seed)``: the same generator in the same state, built without its two interpreted frames.

    ``Random.__init__`` and ``Random.seed`` (``random.py``) do, for an int seed, exactly this: the C seeding of
    ``_random.Random`` and ``gauss_next = None``. ``tests/test_rng.py`` compares the states.

    Args:
        seed: an int (the game's, hand's or bot's seed).

    Returns:
        A :class:`random.Random` whose ``getstate()`` equals ``random.Random(seed).getstate()``.
    """
    if not _SEED_EXACT or type(seed) is not int:
        return random.Random(seed)
    rng = random.Random.__new__(random.Random)
    _CRandom.seed(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # (set by random.py, not in its stubs)
    return rng


def _fast(rng: random.Random) -> bool:
    return _EXACT and type(rng) is random.Random


def _randbelow(rng: random.Random, n: int) -> int:
    """``rng._randbelow_with_getrandbits(n)``: a uniform int in ``[0, n)``, ``n > 0`` (rejection sampling)."""
    k = n.bit_length()
    getrandbits = rng.getrandbits
    r: int = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def randbelow(rng: random.Random, n: int) -> int:
    """A uniform int in ``[0, n)``, the same as ``rng.randrange(n)``.

    Args:
        rng: the stream drawn from (advanced as ``rng.randrange(n)`` advances it).
        n: the bound, an int > 0.

    Returns:
        The int ``rng.randrange(n)`` returns.

    Raises:
        ValueError: ``n <= 0``.
    """
    if n <= 0:
        raise ValueError("empty range for randbelow()")
    if not _fast(rng):
        return rng.randrange(n)
    return _randbelow(rng, n)


def shuffle(rng: random.Random, x: list) -> None:
    """Shuffle ``x`` in place exactly as ``rng.shuffle(x)`` does (Fisher-Yates from the end, CPython's order).

    Args:
        rng: the stream drawn from (advanced as ``rng.shuffle`` advances it).
        x: the list to shuffle (changed in place).
    """
    if not _fast(rng):
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    i = len(x) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
        i -= 1


def choice(rng: random.Random, seq: Sequence[T]) -> T:
    """An element of ``seq`` drawn exactly as ``rng.choice(seq)`` draws it.

    Args:
        rng: the stream drawn from.
        seq: a non-empty sequence.

    Returns:
        The element ``rng.choice(seq)`` returns.

    Raises:
        IndexError: ``seq`` is empty.
    """
    if not _fast(rng):
        return rng.choice(seq)
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    return seq[_randbelow(rng, n)]


def randint(rng: random.Random, a: int, b: int) -> int:
    """An int in ``[a, b]`` drawn exactly as ``rng.randint(a, b)`` draws it.

    Args:
        rng: the stream drawn from.
        a: the lowest value.
        b: the highest value (``b >= a``).

    Returns:
        The int ``rng.randint(a, b)`` returns.

    Raises:
        ValueError: ``b < a``.
    """
    if not _fast(rng) or b < a:
        return rng.randint(a, b)
    return a + _randbelow(rng, b - a + 1)


def sample(rng: random.Random, population: list[T], k: int) -> list[T]:
    """``k`` distinct positions of ``population``, drawn exactly as ``rng.sample(population, k)`` draws them.

    CPython's two methods: a pool list when the population is small against ``k``, else a set of the positions
    drawn so far (the same threshold, computed the same way).

    Args:
        rng: the stream drawn from.
        population: the list sampled from (not changed).
        k: how many elements, ``0 <= k <= len(population)``.

    Returns:
        The list ``rng.sample(population, k)`` returns, in selection order.

    Raises:
        ValueError: ``k`` is negative or larger than the population.
    """
    n = len(population)
    if not _fast(rng) or not 0 <= k <= n:
        return rng.sample(population, k)
    setsize = 21
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    result: list[T] = []
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = _randbelow(rng, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]
    else:
        selected: set[int] = set()
        for _ in range(k):
            j = _randbelow(rng, n)
            while j in selected:
                j = _randbelow(rng, n)
            selected.add(j)
            result.append(population[j])
    return result
