"""The ``greedy`` bot: a cheap, documented heuristic.

Each turn it repeats, until nothing changes:

1. **Lay on row ends**: every hand card that continues a row's end goes there
   (rows scanned left to right, repeatedly, so runs from hand chain on).
2. **Rebuilds that empty or complete a row**: move a whole row onto the end of
   another row it continues (emptying a row card), or move the tail of a row
   onto another row when the result completes it. Taken only when an emptied
   row can then be used (some hand card may open it) or the turn's minimum is
   already laid.
3. **Open empty rows with the longest run held**: the longest chain of hand
   cards that continue each other (ties: the lowest start) is laid on an empty
   row card.

If it laid its minimum it ends the turn. Otherwise it exchanges the cards it
cannot use: those not within two steps of any row end (if every card is that
close, it exchanges its single highest card). With an empty draw pile it
passes.
"""

from __future__ import annotations

from kbsim.bots.base import BaseBot
from kbsim.engine.turn import DONE, Turn


class GreedyBot(BaseBot):
    """Lay what fits, rebuild to empty or complete rows, open rows with long runs, exchange the rest."""

    name = "greedy"

    def _longest_run(self, hand: list[int]) -> list[int]:
        """The longest chain of hand cards, each continuing the one before; ties: the lowest start."""
        g = self.game
        step = g.step
        have = set(hand)
        best_start, best_len = None, 0
        for v in have:
            if (v - step) in have or not g.may_open(v):
                continue  # not the start of a chain
            n = 1
            while v + n * step in have:
                n += 1
            if n > best_len or (n == best_len and v < best_start):
                best_start, best_len = v, n
        if best_start is None:
            openers = sorted(v for v in have if g.may_open(v))
            return openers[:1]
        return list(range(best_start, best_start + best_len * step, step))

    def new_game(self, game, seat, players, seed) -> None:
        super().new_game(game, seat, players, seed)
        g = game
        # differences a card may have from the row end it continues, the regular step first
        self._steps = (g.step,) + tuple(sorted(d for d in g.steps if d != g.step))
        self._consts = (g.may_open, g.open_any, g.rebuild_allowed, g.complete_when_all,
                        g.value_min, g.value_max, g.step, g.full_length)

    def play_turn(self, turn: Turn) -> None:
        g = self.game
        rows = turn.rows
        hand = turn.hand
        steps = self._steps
        n_rows = len(rows)
        lay = turn.lay
        may_open, open_any, rebuild_ok, completable, vmin, vmax, step, full = self._consts
        while True:
            changed = False  # set by steps 2 and 3 only: step 1's lays are already seen by step 2
            # 1. lay on row ends
            for r in range(n_rows):
                row = rows[r]
                while row and hand:
                    end = row[-1]
                    if end + step in hand:
                        lay(end + step, r)
                    else:
                        for d in steps:
                            if end + d in hand:
                                lay(end + d, r)
                                break
                        else:
                            break
                    if turn.phase == DONE:
                        return
            # 2. rebuilds that empty or complete a row (only if an emptied row can be used)
            if rebuild_ok and (open_any and hand or turn.needed == 0 or any(may_open(c) for c in hand)):
                moved = True
                while moved:
                    moved = False
                    ends = {}
                    low = []  # rows starting with the lowest value: the only ones a rebuild can complete
                    for r in range(n_rows):
                        row = rows[r]
                        if row:
                            ends[row[-1]] = r
                            if row[0] == vmin:
                                low.append(r)
                    for src in range(n_rows):
                        s = rows[src]
                        if not s:
                            continue
                        first = s[0]
                        for d in steps:
                            dst = ends.get(first - d)
                            if dst is not None and dst != src and turn.can_rebuild(src, len(s), dst):
                                turn.rebuild(src, len(s), dst)
                                moved = changed = True
                                break
                        if moved:
                            break
                        if completable and low and s[-1] == vmax:
                            for dst in low:
                                dr = rows[dst]
                                if dst == src:
                                    continue
                                k = len(s) - (dr[-1] + step - first) // step
                                if 0 < k < len(s) and len(dr) + k >= full and turn.can_rebuild(src, k, dst):
                                    turn.rebuild(src, k, dst)
                                    moved = changed = True
                                    break
                            if moved:
                                break
            # 3. open empty rows with the longest run held
            if hand:
                for r in range(n_rows):
                    if not rows[r] and hand:
                        run = self._longest_run(hand)
                        if not run:
                            break
                        for c in run:
                            lay(c, r)
                            if turn.phase == DONE:
                                return
                        changed = True
            if not changed:
                break
        if turn.needed == 0:
            turn.end()
            return
        if turn.can_pass() and not (g.exchange_allowed and turn.pile_size):
            turn.pass_turn()
            return
        near = set()
        for row in rows:
            if row:
                near.add(row[-1] + step)
                near.add(row[-1] + 2 * step)
        useless = [c for c in hand if c not in near]
        if len(useless) < g.exchange_min:
            useless = sorted(hand)[-g.exchange_min:]
        turn.exchange(tuple(useless))
