"""Every seed of a run, from one root: NumPy ``SeedSequence`` spawn keys.

A run has one seed (``--seed``, or :func:`new_run_seed`). Each stream a game
needs is a child of it, named by a spawn key:

==========================  =====================================================
stream                      seed
==========================  =====================================================
game ``i`` of the run       ``SeedSequence(run_seed, spawn_key=(i,))``
the deal (hand 0)           the game seed itself (``random.Random(game_seed)``)
hand ``k`` >= 1 of a match  ``SeedSequence(game_seed, spawn_key=(HAND, k))``
the bot in seat ``s``       ``SeedSequence(game_seed, spawn_key=(BOT, s))``
block ``b`` of phase ``p``  ``SeedSequence(run_seed, spawn_key=(TUNE, p, b))``: the run seed of a
of ``kbsim tune``           block of deals (:func:`tune_seed`)
==========================  =====================================================

Each seed is the first 63 bits of the sequence's first ``uint64`` word. A game's
record therefore depends on (run seed, game index) only -- not on the worker
count, chunk size, order or backend -- and one game replays from those two
numbers. Arms of a study that share the run seed play the same deals (common
random numbers), and a bot's choices never shift the deal or another seat's
stream.
"""

from __future__ import annotations

import secrets
from typing import Final

import numpy as np

MAX_SEED = 2**63 - 1
"""The largest seed accepted (seeds are ints in ``[0, 2**63)``)."""

BOT, HAND, TUNE = 1, 2, 3
"""First element of the spawn key of a game's bot streams, of a match's later hands, and of a tuning's blocks."""


def _first63(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1, dtype=np.uint64)[0]) >> 1


# NumPy's SeedSequence (numpy/random/bit_generator.pyx): its hash constants, on 32-bit words
_MASK: Final = 0xFFFFFFFF
_INIT_A: Final = 0x43B0D7E5
_MULT_A: Final = 0x931E8875
_INIT_B: Final = 0x8B51F9DD
_MULT_B: Final = 0x58F38DED
_MIX_L: Final = 0xCA01F9DD
_MIX_R: Final = 0x4973F715


def _mul32(a: int, b: int) -> int:
    """``(a * b) & 0xFFFFFFFF`` for 32-bit ``a`` and ``b``, from products of 16-bit halves.

    (Compiled, a product of two ints takes the machine-word path only when both are below 2**30; a full 32-bit
    product would go through Python's big ints.)
    """
    a_lo = a & 0xFFFF
    b_lo = b & 0xFFFF
    mid = ((a >> 16) * b_lo + a_lo * (b >> 16)) & 0xFFFF
    return (a_lo * b_lo + (mid << 16)) & _MASK


def _words(n: int, out: list[int]) -> None:
    """Append the 32-bit words of ``n >= 0`` to ``out``, least significant first (at least one word)."""
    out.append(n & _MASK)
    n >>= 32
    while n:
        out.append(n & _MASK)
        n >>= 32


def _spawned63(entropy: int, key: tuple[int, ...]) -> int:
    """``_first63(np.random.SeedSequence(entropy, spawn_key=key))``, computed without NumPy (same bits).

    The same steps as NumPy's ``SeedSequence``: the entropy and the spawn key as 32-bit words (the entropy
    padded to the pool's 4 words when a key follows), mixed into a pool of 4 words by ``hashmix``/``mix``, then
    the first two words of ``generate_state`` read as one little-endian ``uint64``. About 20 times faster than
    building the NumPy object (the run draws one game seed per game). ``tests/test_seeds.py`` compares it with
    NumPy on many seeds and keys.
    """
    ent: list[int] = []
    _words(entropy, ent)
    if key:
        while len(ent) < 4:
            ent.append(0)
        for k in key:
            _words(k, ent)
    h = _INIT_A
    pool: list[int] = []
    for i in range(4):
        v = ent[i] if i < len(ent) else 0
        v = (v ^ h) & _MASK
        h = _mul32(h, _MULT_A)
        v = _mul32(v, h)
        pool.append(v ^ (v >> 16))
    for src in range(len(ent) if len(ent) > 4 else 4):
        for dst in range(4):
            if src < 4:
                if src == dst:
                    continue
                v = pool[src]
            else:
                v = ent[src]
            v = (v ^ h) & _MASK
            h = _mul32(h, _MULT_A)
            v = _mul32(v, h)
            v ^= v >> 16
            r = (_mul32(_MIX_L, pool[dst]) - _mul32(_MIX_R, v)) & _MASK
            pool[dst] = r ^ (r >> 16)
    hb = _INIT_B
    out = 0
    for i in range(2):
        v = (pool[i] ^ hb) & _MASK
        hb = _mul32(hb, _MULT_B)
        v = _mul32(v, hb)
        out |= (v ^ (v >> 16)) << (32 * i)
    return out >> 1


def _derived(entropy: int, key: tuple[int, ...]) -> int:
    """The first 63 bits of ``SeedSequence(entropy, spawn_key=key)`` (NumPy itself for what it refuses: < 0)."""
    if entropy < 0 or any(k < 0 for k in key):
        return _first63(np.random.SeedSequence(entropy, spawn_key=key))  # raises as NumPy does
    return _spawned63(entropy, key)


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` of a run.

    Args:
        run_seed: the run's seed, an int in ``[0, 2**63)``.
        index: the 0-based game index within the run.

    Returns:
        An int in ``[0, 2**63)``: the same stream as the ``index``-th child of ``SeedSequence(run_seed).spawn()``.
    """
    return _derived(run_seed, (index,))


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random stream of the bot in ``seat`` (independent of the deal's stream).

    Args:
        seed: the game's seed (an int >= 0).
        seat: 0-based seat.

    Returns:
        An int in ``[0, 2**63)`` from spawn key ``(BOT, seat)`` of the game seed.
    """
    return _derived(seed, (BOT, seat))


def hand_seed(seed: int, hand: int) -> int:
    """The seed of hand ``hand`` of a match (games played over several hands, e.g. to a penalty target).

    Args:
        seed: the game's seed (an int >= 0).
        hand: the 0-based hand number.

    Returns:
        The game seed itself for hand 0 (a one-hand game is dealt from its own seed); otherwise an int in
        ``[0, 2**63)`` from spawn key ``(HAND, hand)`` of the game seed.
    """
    return seed if hand == 0 else _derived(seed, (HAND, hand))


def tune_seed(run_seed: int, phase: int, block: int) -> int:
    """The run seed of one block of deals of a tuning search (``kbsim tune``).

    The search plays every setting on the same blocks of deals (common random numbers), adding blocks as a
    setting goes on; the replay of its answer uses the blocks of another phase, so its deals were never seen by
    the search.

    Args:
        run_seed: the study's seed, an int in ``[0, 2**63)``.
        phase: 0 the search, 1 the replay on fresh deals, 2 the skill check.
        block: the 0-based block number within the phase.

    Returns:
        An int in ``[0, 2**63)`` from spawn key ``(TUNE, phase, block)`` of the study's seed: a run seed whose
        games never share a deal with the study's own runs (spawn keys ``(i,)``) or another block.
    """
    return _derived(run_seed, (TUNE, phase, block))


def new_run_seed() -> int:
    """A fresh run seed for a run started without ``--seed`` (printed so the run can be repeated)."""
    return secrets.randbelow(2**32)
