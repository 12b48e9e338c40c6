"""The rows search: rows kept as tuples of cards (interned), for any sequence rule and any marks on the table.

See :mod:`kbsim.engine.rows.search` for when it runs; :func:`search_rows` returns a
:class:`~kbsim.engine.rows.search.frontier.Plan`.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Final

from kbsim.engine.rows.compiled import CompiledGame
from kbsim.engine.rows.moves import FillGap, Lay, LayParked, Move, Rebuild, Swap
from kbsim.engine.rows.search.frontier import (
    WEIGHTS,
    Frontier,
    Plan,
    PlanError,
    Row,
    Rows,
    evaluate,
    no_plan,
    replay,
)
from kbsim.engine.rows.turn import Turn
from kbsim.engine.rows.usage import FILL_GAP, JOKER_SWAP, PARKED

# Kinds of move a child of the rows search is reached by; the move itself is only built for a new position.
_LAY: Final = 0
_LAY_PARKED: Final = 1
_FILL_GAP: Final = 2
_SWAP: Final = 3
_REBUILD: Final = 4

_RowsState = tuple[tuple[int, ...], int, int, bool, int]
"""A position of the rows search: the rows (interned row ids, in row-card order), the hand and the parked
cards (interned card-tuple ids), the joker still on the table, the rebuilds made."""


def _rows_move(m: tuple[int, int, int, int, bool]) -> Move:
    """The move a rows-search step ``(kind, a, b, c, fs)`` stands for."""
    kind = m[0]
    if kind == _LAY:
        return Lay(m[1], m[2])
    if kind == _LAY_PARKED:
        return LayParked(m[1], m[2])
    if kind == _FILL_GAP:
        return FillGap(m[1], m[2])
    if kind == _SWAP:
        return Swap(m[1])
    return Rebuild(m[1], m[2], m[3], m[4])


class _RowsSearch:
    """The rows search (:func:`search_rows`) for one set of rules: row contents and card tuples interned.

    Each distinct row content gets a small int id (0 is the empty row), each distinct sorted tuple of cards
    (a hand or the parked cards) another. What the search asks of a row (its values with the joker read as
    the value it stands for, the values that continue its end, whether it completes, its gaps, where each
    value lies, its evaluation terms) and the results of the moves on it (a lay of card ``c``, a cut, a
    segment joined onto it, the end segments of one row that continue another) are kept per id, so a child
    position that was seen already is recognised from the parent's ids without building its rows: its key
    is the sorted row ids plus the card-tuple ids.

    All of that depends on the rules only, so one instance serves every search under the same rules
    (:func:`rows_searcher`), its tables warm from the searches before; :meth:`start` sets up one search.
    """

    def __init__(self, g: CompiledGame) -> None:
        self.g = g
        self.gsteps: frozenset[int] = g.steps
        self.steps: tuple[int, ...] = tuple(sorted(g.steps))
        self.step: int = g.step
        self.two: int = 2 * g.step
        self.check_complete: bool = g.complete_when_all
        self.full_len: int = g.full_length
        self.from_start: bool = g.rebuild_from_start
        self.into_empty: bool = g.rebuild_into_empty
        self.vmin: int = g.value_min
        self.vmax: int = g.value_max
        self.span: int = max(1, g.full_length - 1)
        # value bit masks (bit v - vmin) make "can a segment of this row continue that row's end" one AND
        self.masks: bool = g.value_max - g.value_min < 60
        # interned rows, and per row id: its values (a joker read as its value), the values continuing its end,
        # the id it settles to (0 when it completes), whether it holds the joker; lazily: its lays, cuts and
        # joins, gaps, where each value lies, its evaluation terms
        self.rows: list[Row] = []
        self.row_id: dict[Row, int] = {}
        self.absr: list[Row] = []
        self.acc: list[tuple[int, ...]] = []
        self.settled: list[int] = []
        self.joker_in: list[bool] = []
        self.vmask: list[int] = []  # the values of the row (all bits when masks are off)
        self.amask: list[int] = []  # the values that continue its end (all bits when masks are off)
        self.lay_to: list[dict[int, int] | None] = []
        self.cut_to: list[dict[int, int] | None] = []
        self.join_to: list[dict[int, int] | None] = []
        self.gaps_of: list[tuple[int, ...] | None] = []
        self.where_of: list[dict[int, list[int]] | None] = []
        self.terms_of: list[tuple[int, tuple[int, ...]] | None] = []
        self.open_to: dict[int, int] = {}
        self.pair_cuts: dict[int, list[tuple[int, int, int]]] = {}
        self.opens: dict[int, bool] = {}
        self.intern(())
        # interned sorted card tuples (hands, parked cards), and per id: the id with one card ``c`` less
        self.cards: list[tuple[int, ...]] = []
        self.cards_id: dict[tuple[int, ...], int] = {}
        self.minus_to: list[dict[int, int] | None] = []
        # the search under way (set by start)
        self.reb_left = 0
        self.can_rebuild = False
        self.rebuild_ends = False
        self.nf = 0
        self.rows0: Rows = ()
        self.hand0: tuple[int, ...] = ()
        self.joker0 = False
        self.win_possible = False
        self.total = 0
        self.full = 0
        self.ids0: tuple[int, ...] = ()
        self.hid0 = 0
        self.pid0 = 0
        self.seen: set[tuple[int, ...]] = set()
        self.fill = True  # gaps may be filled (else the seat is barred from it)
        self.swap = True  # the joker may be reclaimed

    def full_tables(self) -> bool:
        """True once the tables hold so much that they should start afresh (memory stays bounded)."""
        return len(self.rows) > _TABLE_LIMIT or len(self.cards) > _TABLE_LIMIT or len(self.pair_cuts) > _TABLE_LIMIT

    def start(self, sb: Turn, reb_left: int, prune: bool) -> None:
        """Set up a search from the sandbox ``sb`` with ``reb_left`` rebuilds left (see :func:`search_rows`)."""
        g = self.g
        st = sb.state
        self.reb_left = reb_left
        self.can_rebuild = g.rebuild_allowed and reb_left > 0
        self.rebuild_ends = self.can_rebuild and not (self.from_start or self.into_empty)
        self.nf = st.n_fixed
        rows0: Rows = tuple([tuple(r) for r in sb.rows])
        hand0 = tuple(sorted(sb.hand))
        park0 = tuple(sorted(sb.parked))
        self.rows0 = rows0
        self.hand0 = hand0
        # a seat barred from a kind of move (restricted play, kbsim.engine.rows.restrict) searches without it:
        # parked cards it may not lay stay where they are (and keep it from winning where they count)
        self.fill = sb.allows(FILL_GAP)
        self.swap = sb.allows(JOKER_SWAP)
        if not sb.allows(PARKED):
            park0 = ()
        locked = len(st.parked[sb.seat]) - len(park0) if g.parked_count else 0
        self.joker0 = st.joker is not None and any(c < 0 for row in rows0 for c in row)
        self.win_possible = bool(g.win_on_empty and sb.pile_size == 0 and not locked)
        self.total = len(hand0) + len(park0)
        self.full = self.total if (prune or self.win_possible) else self.total + 1
        self.ids0 = tuple([self.intern(r) for r in rows0])
        self.hid0 = self.intern_cards(hand0)
        self.pid0 = self.intern_cards(park0)

    # ------------------------------------------------------------------ interning
    def intern(self, row: Row) -> int:
        """The id of row content ``row`` (a new id the first time)."""
        i = self.row_id.get(row, -1)
        if i >= 0:
            return i
        i = len(self.rows)
        self.row_id[row] = i
        self.rows.append(row)
        has_joker = False
        for c in row:
            if c < 0:
                has_joker = True
                break
        a = tuple([abs(c) for c in row]) if has_joker else row
        self.absr.append(a)
        self.acc.append(tuple([a[-1] + st for st in self.steps]) if row else ())
        complete = self.check_complete and len(row) >= self.full_len and self.g.is_complete(row)
        self.settled.append(0 if complete else i)
        self.joker_in.append(has_joker)
        vm = am = -1
        if self.masks:
            vmin, vmax = self.vmin, self.vmax
            vm = am = 0
            for v in a:
                vm |= 1 << (v - vmin) if vmin <= v <= vmax else -1
            for v in self.acc[i]:
                if vmin <= v <= vmax:
                    am |= 1 << (v - vmin)
        self.vmask.append(vm)
        self.amask.append(am)
        self.lay_to.append(None)
        self.cut_to.append(None)
        self.join_to.append(None)
        self.gaps_of.append(None)
        self.where_of.append(None)
        self.terms_of.append(None)
        return i

    def intern_cards(self, cards: tuple[int, ...]) -> int:
        """The id of the sorted card tuple ``cards``."""
        i = self.cards_id.get(cards, -1)
        if i < 0:
            i = len(self.cards)
            self.cards_id[cards] = i
            self.cards.append(cards)
            self.minus_to.append(None)
        return i

    def minus(self, cid: int, c: int) -> int:
        """The id of card tuple ``cid`` with one card ``c`` (which it holds) taken out."""
        m = self.minus_to[cid]
        if m is None:
            m = {}
            self.minus_to[cid] = m
        i = m.get(c, -1)
        if i < 0:
            pool = self.cards[cid]
            j = pool.index(c)
            i = m[c] = self.intern_cards(pool[:j] + pool[j + 1 :])
        return i

    def lay(self, rid: int, c: int) -> int:
        """The id of row ``rid`` with card ``c`` laid on its end."""
        m = self.lay_to[rid]
        if m is None:
            m = {}
            self.lay_to[rid] = m
        i = m.get(c, -1)
        if i < 0:
            i = m[c] = self.intern(self.rows[rid] + (c,))
        return i

    def prefix(self, rid: int, q: int) -> int:
        """The id of the first ``q`` cards of row ``rid``."""
        m = self.cut_to[rid]
        if m is None:
            m = {}
            self.cut_to[rid] = m
        i = m.get(q, -1)
        if i < 0:
            i = m[q] = self.intern(self.rows[rid][:q])
        return i

    def join(self, did: int, sid: int, q: int) -> int:
        """The id of row ``did`` with the cards of row ``sid`` from place ``q`` on moved onto its end."""
        m = self.join_to[did]
        if m is None:
            m = {}
            self.join_to[did] = m
        k = (sid << 16) | q  # a row holds fewer than 2 ** 16 cards
        i = m.get(k, -1)
        if i < 0:
            i = m[k] = self.intern(self.rows[did] + self.rows[sid][q:])
        return i

    def opened(self, c: int) -> int:
        """The id of the row ``(c,)``."""
        i = self.open_to.get(c, -1)
        if i < 0:
            i = self.open_to[c] = self.intern((c,))
        return i

    def may_open(self, c: int) -> bool:
        """``g.may_open(c)``, kept per card."""
        ok = self.opens.get(c)
        if ok is None:
            ok = self.opens[c] = bool(self.g.may_open(c))
        return ok

    def gaps(self, rid: int) -> tuple[int, ...]:
        """The places ``q`` of row ``rid`` where a card is missing before ``q``."""
        q = self.gaps_of[rid]
        if q is None:
            arow = self.absr[rid]
            two = self.two
            q = tuple([p for p in range(1, len(arow)) if arow[p] - arow[p - 1] == two])
            self.gaps_of[rid] = q
        return q

    def where(self, rid: int) -> dict[int, list[int]]:
        """Where each value of row ``rid`` lies (its places, in order)."""
        w = self.where_of[rid]
        if w is None:
            w = {}
            for q, v in enumerate(self.absr[rid]):
                w.setdefault(v, []).append(q)
            self.where_of[rid] = w
        return w

    def terms(self, rid: int) -> tuple[int, tuple[int, ...]]:
        """Row ``rid``'s end and the values it bridges to the next (for :meth:`score`)."""
        t = self.terms_of[rid]
        if t is None:
            a = self.absr[rid]
            step = self.step
            t = (a[-1], tuple([x for x, y in pairwise(a) if y - x == step]))
            self.terms_of[rid] = t
        return t

    def score(self, ids: tuple[int, ...], hand: tuple[int, ...]) -> float:
        """:func:`evaluate` of the rows ``ids`` and ``hand`` (the same terms in the same order, so the same float)."""
        empty = 0
        ends: set[int] = set()
        bridged: set[int] = set()
        for rid in ids:
            if rid == 0:
                empty += 1
                continue
            t = self.terms(rid)
            ends.add(t[0])
            bridged.update(t[1])
        vmin, vmax = self.vmin, self.vmax
        acc = {e + d for e in ends for d in self.gsteps if vmin <= e + d <= vmax}
        two = self.two
        near = sum([1 for c in hand if c - two in ends])
        w8 = WEIGHTS
        return w8[0] * empty + w8[1] * near + w8[2] * len(acc) + w8[3] * len(bridged) / self.span

    # ------------------------------------------------------------------ positions
    def key(self, ids: list[int], hid: int, pid: int, joker: bool) -> tuple[int, ...]:
        """The canonical key: the row-card rows and the extra rows as multisets, the hand, parked cards, joker."""
        nf = self.nf
        if len(ids) == nf:
            k = sorted(ids)
        else:
            k = sorted(ids[:nf])
            k.extend(sorted(ids[nf:]))
        k.append(hid)
        k.append(pid)
        k.append(1 if joker else 0)
        return tuple(k)

    def settle(self, ids: list[int], r: int, rid: int) -> bool:
        """Put row ``rid`` at ``r``, completed if complete; drop empty extra rows. True if the joker left the table."""
        s = self.settled[rid]
        ids[r] = s
        nf = self.nf
        if len(ids) > nf:
            ids[nf:] = [x for x in ids[nf:] if x]
        return s != rid and self.joker_in[rid]

    def child(
        self,
        fr: Frontier,
        ids: list[int],
        hid: int,
        pid: int,
        joker: bool,
        reb: int,
        kind: int,
        a: int,
        b: int,
        c: int = 0,
        fs: bool = False,
    ) -> bool:
        """Add the child position if it is new; True if the search stops.

        The move that reaches it is stored as ``(kind, a, b, c, fs)`` (see :func:`_rows_move`); only the
        moves of the plan become :class:`~kbsim.engine.rows.moves.Move` objects.
        """
        key = self.key(ids, hid, pid, joker)
        if key in self.seen:
            return False
        hand = self.cards[hid]
        park = self.cards[pid]
        return fr.add(
            key,
            (tuple(ids), hid, pid, joker, reb),
            (kind, a, b, c, fs),
            self.total - len(hand) - len(park),
            won=self.win_possible and not hand and not park,
        )

    def expand(self, fr: Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int) -> bool:  # noqa: C901
        """Add the new children of a position, in the order the moves are listed; True if the search stops.

        The order: per row (once per row content), lays of hand then parked cards on its end (in the order
        of the steps), gap fills, or openings of an empty row; then the joker swap; then the rebuilds.
        """
        nr = len(cur)
        hand = self.cards[hid]
        park = self.cards[pid]
        rows = self.rows
        done: set[int] = set()
        for r in range(nr):
            rid = cur[r]
            if rid in done:
                continue
            done.add(rid)
            if rid:
                acc = self.acc[rid]
                for zone in (0, 1):
                    pool = hand if zone == 0 else park
                    if not pool:
                        continue
                    for c in acc:
                        if c in pool:
                            ids = list(cur)
                            gone = self.settle(ids, r, self.lay(rid, c))
                            jk = joker and not gone
                            if zone == 0:
                                stop = self.child(fr, ids, self.minus(hid, c), pid, jk, reb, _LAY, c, r)
                            else:
                                stop = self.child(fr, ids, hid, self.minus(pid, c), jk, reb, _LAY_PARKED, c, r)
                            if stop:
                                return True
                row = rows[rid]
                if (
                    hand and len(row) > 1 and self.fill
                ):  # gaps a hand card fills exactly (first gap per card, as the engine does)
                    gq = self.gaps(rid)
                    if gq:
                        arow = self.absr[rid]
                        filled: set[int] = set()
                        for q in gq:
                            c = arow[q - 1] + self.step
                            if c in hand and c not in filled:
                                filled.add(c)
                                ids = list(cur)
                                gone = self.settle(ids, r, self.intern(row[:q] + (c,) + row[q:]))
                                if self.child(
                                    fr, ids, self.minus(hid, c), pid, joker and not gone, reb, _FILL_GAP, c, r
                                ):
                                    return True
            else:
                for zone in (0, 1):
                    pool = hand if zone == 0 else park
                    for j in range(len(pool)):
                        c = pool[j]
                        if (j == 0 or c != pool[j - 1]) and self.may_open(c):
                            ids = list(cur)
                            gone = self.settle(ids, r, self.opened(c))
                            jk = joker and not gone
                            if zone == 0:
                                stop = self.child(fr, ids, self.minus(hid, c), pid, jk, reb, _LAY, c, r)
                            else:
                                stop = self.child(fr, ids, hid, self.minus(pid, c), jk, reb, _LAY_PARKED, c, r)
                            if stop:
                                return True
        if joker and self.swap:  # swap the exact hand card in for the joker
            for r in range(nr):
                row = rows[cur[r]]
                jq = -1
                for q in range(len(row)):
                    if row[q] < 0:
                        jq = q
                        break
                if jq >= 0 and -row[jq] in hand:
                    c = -row[jq]
                    ids = list(cur)
                    ids[r] = self.intern(row[:jq] + (c,) + row[jq + 1 :])
                    if self.child(fr, ids, self.minus(hid, c), pid, False, reb, _SWAP, c, 0):
                        return True
                    break
        if self.rebuild_ends and reb < self.reb_left:
            return self.rebuild_end_segments(fr, cur, hid, pid, joker, reb)
        if self.can_rebuild and reb < self.reb_left:
            return self.rebuild_any(fr, cur, hid, pid, joker, reb)
        return False

    def rebuild_end_segments(
        self, fr: Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int
    ) -> bool:
        """The rebuilds of end segments onto row ends (the default rules), in the order of :meth:`rebuild_any`.

        Sources are the first row of each content, targets the first other row of each content; the moves
        come by source, target, step and place (:meth:`cuts`).
        """
        nr = len(cur)
        firsts: list[int] = []  # the first row of each non-empty content, and its second row (or -1)
        seconds: list[int] = []
        for r in range(nr):
            rid = cur[r]
            if not rid:
                continue
            at = -1
            for i in range(len(firsts)):
                if cur[firsts[i]] == rid:
                    at = i
                    break
            if at < 0:
                firsts.append(r)
                seconds.append(-1)
            elif seconds[at] < 0:
                seconds[at] = r
        nc = len(firsts)
        vmask, amask = self.vmask, self.amask
        for i in range(nc):
            s = firsts[i]
            sid = cur[s]
            vm = vmask[sid]
            targets: list[tuple[int, int]] = []
            for j in range(nc):
                d = firsts[j] if j != i else seconds[j]
                if d >= 0:
                    tid = cur[firsts[j]]
                    if vm & amask[tid]:  # (else no value of the source continues the target's end)
                        targets.append((d, tid))
            if seconds[i] >= 0:
                targets.sort()
            for d, tid in targets:
                for count, stays, joined in self.cuts(sid, tid):
                    ids = list(cur)
                    ids[s] = stays
                    gone = self.settle(ids, d, joined)
                    if self.child(fr, ids, hid, pid, joker and not gone, reb + 1, _REBUILD, s, count, d, False):
                        return True
        return False

    def cuts(self, sid: int, tid: int) -> list[tuple[int, int, int]]:
        """The end segments of row ``sid`` that continue row ``tid``'s end, kept per pair of rows.

        Returns:
            ``(count, id of the row left, id of row tid with the segment)`` in the order of the steps, then of
            the places in ``sid``.
        """
        k = (sid << 32) | tid
        out = self.pair_cuts.get(k)
        if out is None:
            wh = self.where(sid)
            n = len(self.rows[sid])
            out = []
            for v in self.acc[tid]:
                qs = wh.get(v)
                if qs is not None:
                    for q in qs:
                        out.append((n - q, self.prefix(sid, q), self.join(tid, sid, q)))
            self.pair_cuts[k] = out
        return out

    def rebuild_any(self, fr: Frontier, cur: tuple[int, ...], hid: int, pid: int, joker: bool, reb: int) -> bool:
        """Every rebuild the rules allow: end or start segments onto row ends, splits into empty rows."""
        nr = len(cur)
        rows = self.rows
        gsteps = self.gsteps
        from_start, into_empty = self.from_start, self.into_empty
        done_src: set[int] = set()
        for s in range(nr):
            sid = cur[s]
            if not sid or sid in done_src:
                continue
            done_src.add(sid)
            src = rows[sid]
            n = len(src)
            asrc = self.absr[sid]
            wh = self.where(sid)
            done_dst: set[int] = set()
            for d in range(nr):
                did = cur[d]
                if d == s or did in done_dst:
                    continue
                done_dst.add(did)
                dst = rows[did]
                cuts: list[tuple[int, bool]] = []
                if did:
                    e = self.absr[did][-1]
                    for st in self.steps:
                        for q in wh.get(e + st, []):
                            cuts.append((n - q, False))
                    if from_start and asrc[0] - e in gsteps:
                        cuts.extend([(k, True) for k in range(1, n)])
                elif into_empty:
                    cuts.extend([(n - q, False) for q in range(1, n) if self.may_open(asrc[q])])
                    if from_start and self.may_open(asrc[0]):
                        cuts.extend([(k, True) for k in range(1, n)])
                for k, fs in cuts:
                    seg, rest = (src[:k], src[k:]) if fs else (src[n - k :], src[: n - k])
                    ids = list(cur)
                    ids[s] = self.intern(rest)
                    gone = self.settle(ids, d, self.intern(dst + seg))
                    if self.child(fr, ids, hid, pid, joker and not gone, reb + 1, _REBUILD, s, k, d, fs):
                        return True
        return False


_TABLE_LIMIT: Final = 10_000
"""Row contents (or card tuples, or row pairs) a :class:`_RowsSearch` keeps before it starts afresh."""

_SEARCHERS: list[_RowsSearch] = []
"""The rows searchers of the rules searched last (at most two: a barred seat's rules and the others',
:mod:`kbsim.engine.rows.restrict`; see :func:`rows_searcher`)."""


def rows_searcher(g: CompiledGame) -> _RowsSearch:
    """The :class:`_RowsSearch` for the rules ``g``: one kept from the last searches if it has the same rules.

    Its tables only speed the search up (a search's result never depends on the ids), so keeping them, or
    starting afresh once they are full, changes no plan.
    """
    for i in range(len(_SEARCHERS)):
        rs = _SEARCHERS[i]
        if rs.g is g:
            if not rs.full_tables():
                return rs
            del _SEARCHERS[i]
            break
    if len(_SEARCHERS) >= 2:
        del _SEARCHERS[0]
    rs = _RowsSearch(g)
    _SEARCHERS.append(rs)
    return rs


def search_rows(sb: Turn, needed: int, reb_left: int, budget: int, prune: bool) -> Plan:
    """Breadth-first search with rows kept as tuples of cards: any sequence rule, any marks on the table.

    Models everything a turn without an active modifier can do: lays on row
    ends and into empty row cards, rebuilds (end or start segments, splits,
    whatever the rules allow), completion, and in the complete game the marks
    powers leave behind: a joker (``-v`` stands for ``v``; the exact hand card
    may be swapped in), gaps (the exact hand card may fill one), duplicates,
    extra rows (they vanish once empty) and parked cards (laid on row ends).
    Positions are keyed by the row-card rows and the extra rows as multisets,
    the hand, the parked cards and whether the joker is still on the table
    (row contents and card tuples interned as ids, see :class:`_RowsSearch`).

    Args:
        sb: a sandbox copy of the turn (the plan is replayed on it).
        needed: cards the turn must still lay.
        reb_left: rebuilds still allowed.
        budget: positions the search may store.
        prune: stop at the first position that lays every hand and parked card.

    Returns:
        The best plan found (most cards laid, then :func:`evaluate`), already replayed on ``sb``.

    Raises:
        PlanError: replaying the plan on ``sb`` laid a different number of cards than the search expected.
    """
    rs = rows_searcher(sb.g)
    rs.start(sb, reb_left, prune)
    g = rs.g
    ids0 = rs.ids0
    key0 = rs.key(list(ids0), rs.hid0, rs.pid0, rs.joker0)
    root: _RowsState = (ids0, rs.hid0, rs.pid0, rs.joker0, 0)
    fr = Frontier(root, key0, needed=needed, full=rs.full, budget=budget, lays_first=prune)
    rs.seen = fr.seen
    for state in fr:
        pos: _RowsState = state
        if rs.expand(fr, pos[0], pos[1], pos[2], pos[3], pos[4]):
            break
    if not fr.cand:
        return no_plan(g, rs.rows0, rs.hand0, len(fr.seen), fr.truncated, "rows")
    states = fr.states
    cards = rs.cards
    best = fr.best(lambda k: rs.score(states[k][0], cards[states[k][1]]))
    seq = [_rows_move(m) for m in fr.path(best)]
    before = sb.laid
    replay(sb, seq)
    if sb.laid - before != fr.laids[best]:
        raise PlanError(f"replaying the plan laid {sb.laid - before} cards, the search expected {fr.laids[best]}")
    return Plan(
        moves=tuple(seq),
        laid=sb.laid - before,
        score=evaluate(g, sb.rows, sb.hand),
        rows=tuple(tuple(r) for r in sb.rows),
        hand=tuple(sorted(sb.hand)),
        won=sb.won,
        legal=True,
        nodes=len(fr.seen),
        exact=not fr.truncated,
        engine="rows",
    )
