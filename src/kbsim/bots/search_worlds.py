"""TEMPORARY (to be replaced by the engine's determinization, issue 26 part 2): a world from a seat's sandbox.

Throwaway for the search bot's development until the forward model lands: the cards the seat cannot see
(``HIDDEN`` in :meth:`~kbsim.engine.rows.turn.Turn.sandbox`) are dealt anew, uniformly, from the cards not
seen anywhere on the table. It ignores what the seat knows of the bottom of its own draw pile (the cards it
exchanged) and the face-down characters.
"""

from __future__ import annotations

import random
from collections import Counter

from kbsim.engine.rng import shuffle
from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.state import GameState
from kbsim.engine.rows.turn import HIDDEN, Turn


def determinize(game: CompiledGame, sample: Turn, rng: random.Random) -> GameState:
    """A full state consistent with the sandbox ``sample`` (not changed): its hidden cards dealt anew."""
    st = sample.state.copy()
    seen: Counter = Counter()
    for row in st.rows:
        seen.update(c for c in row if c > 0)
    seen.update(st.discard)
    for k in range(st.players):
        seen.update(c for c in st.hands[k] if c != HIDDEN)
        seen.update(c for c in st.piles[k] if c != HIDDEN)
        if st.shared:
            break
    for park in st.parked:
        seen.update(c for c, _ in park)
    for m in st.minus:
        seen.update(m)
    unseen = Counter(game.deck)
    unseen.subtract(seen)
    pool = sorted(c for c, n in unseen.items() for _ in range(max(0, n)))
    shuffle(rng, pool)
    zones = [st.hands[k] for k in range(st.players) if k != sample.seat]
    zones.extend(st.piles[:1] if st.shared else st.piles)
    i = 0
    for z in zones:
        for j in range(len(z)):
            if z[j] == HIDDEN:
                z[j] = pool[i]
                i += 1
    return st
