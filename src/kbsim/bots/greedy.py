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
        g = self.game
        have = set(hand)
        best: list[int] = []
        for v in sorted(have):
            if not g.may_open(v) or (v - g.step) in have:
                continue  # not the start of a chain
            run = [v]
            while run[-1] + g.step in have:
                run.append(run[-1] + g.step)
            if len(run) > len(best):
                best = run
        if not best:
            openers = sorted(v for v in have if g.may_open(v))
            return openers[:1]
        return best

    def play_turn(self, turn: Turn) -> None:
        g = self.game
        rows = turn.rows
        hand = turn.hand
        steps = g.steps
        n_rows = len(rows)
        lay = turn.lay
        while True:
            changed = False
            # 1. lay on row ends
            for r in range(n_rows):
                row = rows[r]
                while row and hand:
                    end = row[-1]
                    for d in steps:
                        if end + d in hand:
                            lay(end + d, r)
                            break
                    else:
                        break
                    changed = True
                    if turn.phase == DONE:
                        return
            # 2. rebuilds that empty or complete a row
            if g.rebuild_allowed and (turn.needed == 0 or any(g.may_open(c) for c in hand)):
                for src in range(n_rows):
                    s = rows[src]
                    if not s:
                        continue
                    for dst in range(n_rows):
                        d = rows[dst]
                        if dst == src or not d:
                            continue
                        if s[0] - d[-1] in steps and turn.can_rebuild(src, len(s), dst):
                            turn.rebuild(src, len(s), dst)
                            changed = True
                            break
                        if g.complete_when_all and d[0] == g.value_min and s[-1] == g.value_max:
                            k = len(s) - (d[-1] + g.step - s[0]) // g.step
                            if 0 < k < len(s) and turn.can_rebuild(src, k, dst) \
                                    and len(d) + k >= g.full_length:
                                turn.rebuild(src, k, dst)
                                changed = True
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
        ends = [row[-1] for row in rows if row]
        useless = [c for c in hand if not any(0 < (c - e) * g.step <= 2 for e in ends)]
        if len(useless) < g.exchange_min:
            useless = sorted(hand)[-g.exchange_min:]
        turn.exchange(tuple(useless))
