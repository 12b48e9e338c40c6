"""kbsim.engine.rng draws exactly what random.Random's own methods draw (the deal and the random bot use it).

Each function is run on one stream and the method on a second stream from the same seed; the results and the
streams' states afterwards must be equal, for many seeds and sizes (0, 1, 2, the deck's 104, ...).
"""

from __future__ import annotations

import random

import pytest

from kbsim.engine import rng as fast

SEEDS = [0, 1, 7, 12345, 2**40 + 3, 2**63 - 1, *range(100, 160)]


def _pair(seed: int) -> tuple[random.Random, random.Random]:
    return random.Random(seed), random.Random(seed)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 13, 31, 32, 33, 64, 104, 300])
def test_shuffle_matches_random_shuffle(size: int) -> None:
    for seed in SEEDS:
        a, b = _pair(seed)
        x = list(range(size))
        y = list(range(size))
        fast.shuffle(a, x)
        b.shuffle(y)
        assert x == y, (seed, size)
        assert a.getstate() == b.getstate()


def test_shuffle_of_a_deck_twice_in_a_row() -> None:
    # the deal shuffles the deck and then the characters from one stream
    for seed in SEEDS:
        a, b = _pair(seed)
        deck = [v for v in range(1, 14) for _ in range(8)]
        x, y = list(deck), list(deck)
        keys = [f"c{i}" for i in range(11)]
        kx, ky = list(keys), list(keys)
        fast.shuffle(a, x)
        fast.shuffle(a, kx)
        b.shuffle(y)
        b.shuffle(ky)
        assert (x, kx) == (y, ky)


def test_choice_randint_randbelow_match() -> None:
    for seed in SEEDS:
        a, b = _pair(seed)
        for n in (1, 2, 3, 4, 7, 8, 9, 100, 2**31 + 5, 2**40):
            seq = list(range(n)) if n < 1000 else range(n)
            assert fast.choice(a, seq) == b.choice(seq)
            assert fast.randint(a, -3, n) == b.randint(-3, n)
            assert fast.randbelow(a, n) == b.randrange(n)
        assert a.getstate() == b.getstate()


@pytest.mark.parametrize("n", [1, 2, 5, 6, 21, 22, 40, 104, 200])
def test_sample_matches_random_sample(n: int) -> None:
    # both of CPython's methods: the pool (small population) and the set of positions (large population)
    population = [v * 3 for v in range(n)]
    for seed in SEEDS:
        a, b = _pair(seed)
        for k in sorted({0, 1, 2, n // 3, n // 2, n - 1, n}):
            if 0 <= k <= n:
                assert fast.sample(a, population, k) == b.sample(population, k), (seed, n, k)
        assert a.getstate() == b.getstate()


def test_errors_match() -> None:
    r = random.Random(3)
    with pytest.raises(IndexError):
        fast.choice(r, [])
    with pytest.raises(ValueError):
        fast.randbelow(r, 0)
    with pytest.raises(ValueError):
        fast.sample(r, [1, 2], 3)
    with pytest.raises(ValueError):
        fast.randint(r, 3, 2)


def test_other_generators_use_their_own_methods() -> None:
    class Fixed(random.Random):
        def shuffle(self, x):  # type: ignore[override]
            x.reverse()

        def choice(self, seq):  # type: ignore[override]
            return seq[0]

    r = Fixed(1)
    x = [1, 2, 3]
    fast.shuffle(r, x)
    assert x == [3, 2, 1]
    assert fast.choice(r, [9, 8]) == 9
    s = random.SystemRandom()
    y = list(range(10))
    fast.shuffle(s, y)
    assert sorted(y) == list(range(10))


def test_seeded_is_random_random() -> None:
    for seed in [*SEEDS, 2**64 + 1, 2**200 + 5, -3]:
        a, b = fast.seeded(seed), random.Random(seed)
        assert type(a) is random.Random
        assert a.getstate() == b.getstate()
        assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]
        assert a.gauss(0, 1) == b.gauss(0, 1)
