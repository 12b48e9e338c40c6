"""Per-game seeds derived from (run seed, game index).

``game_seed(run_seed, i)`` is the first 63 bits of NumPy's
``SeedSequence(run_seed, spawn_key=(i,))`` -- the same stream as the i-th
child of ``SeedSequence(run_seed).spawn(...)``. A game's record therefore does
not depend on worker count, chunk size, order or backend, and a single game
replays from (run seed, game index) alone. Arms of a study that share the run
seed play the same deals (common random numbers).
"""

from __future__ import annotations

import secrets

import numpy as np

MAX_SEED = 2**63 - 1


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` (>= 0) of a run seeded with ``run_seed`` (>= 0); an int in [0, 2**63)."""
    state = np.random.SeedSequence(run_seed, spawn_key=(index,)).generate_state(1, dtype=np.uint64)
    return int(state[0]) >> 1


def new_run_seed() -> int:
    """A fresh run seed for a run started without ``--seed`` (printed so it can be repeated)."""
    return secrets.randbelow(2**32)
