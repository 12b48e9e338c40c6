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

import numpy as np

MAX_SEED = 2**63 - 1
"""The largest seed accepted (seeds are ints in ``[0, 2**63)``)."""

BOT, HAND = 1, 2
"""First element of the spawn key of a game's bot streams and of a match's later hands."""


def _first63(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1, dtype=np.uint64)[0]) >> 1


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` of a run.

    Args:
        run_seed: the run's seed, an int in ``[0, 2**63)``.
        index: the 0-based game index within the run.

    Returns:
        An int in ``[0, 2**63)``: the same stream as the ``index``-th child of ``SeedSequence(run_seed).spawn()``.
    """
    return _first63(np.random.SeedSequence(run_seed, spawn_key=(index,)))


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random stream of the bot in ``seat`` (independent of the deal's stream).

    Args:
        seed: the game's seed (an int >= 0).
        seat: 0-based seat.

    Returns:
        An int in ``[0, 2**63)`` from spawn key ``(BOT, seat)`` of the game seed.
    """
    return _first63(np.random.SeedSequence(seed, spawn_key=(BOT, seat)))


def hand_seed(seed: int, hand: int) -> int:
    """The seed of hand ``hand`` of a match (games played over several hands, e.g. to a penalty target).

    Args:
        seed: the game's seed (an int >= 0).
        hand: the 0-based hand number.

    Returns:
        The game seed itself for hand 0 (a one-hand game is dealt from its own seed); otherwise an int in
        ``[0, 2**63)`` from spawn key ``(HAND, hand)`` of the game seed.
    """
    return seed if hand == 0 else _first63(np.random.SeedSequence(seed, spawn_key=(HAND, hand)))


def new_run_seed() -> int:
    """A fresh run seed for a run started without ``--seed`` (printed so the run can be repeated)."""
    return secrets.randbelow(2**32)
