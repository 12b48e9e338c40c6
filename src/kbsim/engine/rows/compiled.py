"""Compile a validated rule file into plain Python values for the game loop.

The game loop and the bots never look at YAML, pydantic models or option
names: they read the attributes of a :class:`CompiledGame`, built once per run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from itertools import pairwise
from typing import Any

from kbsim.engine.families import family
from kbsim.engine.rows.powers import CompiledCharacter, compile_character
from kbsim.rules.loader import LoadedRules, RulesError
from kbsim.rules.schema import RuleFile


@dataclass(frozen=True)
class CompiledGame:
    """Everything the engine needs to play one game of a rule set.

    Cards are ints. Without suits a card is its value (copies are
    interchangeable). With suits a card is ``value * 16 + suit code`` (the
    code holds the colour in its upper bits), so that every sequence rule
    (value step, colour alternation) is still a set of allowed differences
    ``card - previous`` (:attr:`steps`), checked with one set lookup.
    Row indices are 0-based; seats are 0-based in turn order from the dealer.

    Compiled with mypyc (a native class: the engine and bots read its fields as C struct fields).
    """

    game: str
    title: str
    variant: str
    options: dict[str, Any]
    min_players: int
    max_players: int
    # cards
    value_min: int
    value_max: int
    copies: int
    deck: tuple[int, ...]
    # rows
    n_rows: int
    step: int
    steps: frozenset[int]  # allowed differences card - previous card along a row
    open_any: bool
    open_values: frozenset[int]
    complete_when_all: bool
    full_length: int  # number of distinct values a complete row holds
    # setup
    row_starts: int
    deal_rest: bool
    deal_count: int
    first_seat: int
    deal_one_at_a_time: bool
    hand_size: int
    # turn
    min_lay: int
    min_only_while_pile: bool
    rebuild_allowed: bool
    rebuild_from_start: bool
    rebuild_into_empty: bool
    max_rebuilds: int
    exchange_allowed: bool
    exchange_min: int
    exchange_requires_pile: bool
    pass_allowed: bool
    pass_requires_empty_pile: bool
    refill_up_to: bool
    refill_draw: int
    # end
    win_on_empty: bool
    stalemate_exact: bool  # exact reachability test instead of idle turns
    idle_extra_turns: int
    exact_search_limit: int
    stalemate_fewest_wins: bool
    turn_limit: int
    # solo / cooperative
    all_out: bool = False  # seats that are out are skipped; the game ends when all are out
    parked_count: bool = True  # parked (Wilwulf) cards must be laid before a seat is out
    minus_allowed: bool = False
    minus_cards: int = 1
    minus_only_when_stuck: bool = True
    score: tuple[int, int, int, int, int] | None = None  # per character, per empty row, per minus, win, expert
    # characters
    chars_enabled: bool = False
    chars_display_mode: bool = False
    chars_deal: tuple[tuple[int, int], ...] = ()  # (players, per player)
    chars_display: int = 3
    chars_per_turn: int = 1
    chars_any_turn: bool = True
    roster: tuple[CompiledCharacter, ...] = ()  # per character, in rule-file order
    # the roster by key (read on every character play; derived from ``roster``, so not compared)
    roster_by_key: dict[str, CompiledCharacter] = field(default_factory=dict, compare=False, repr=False)
    row_diffs: frozenset[int] = frozenset()  # differences an existing row may hold (steps + marks of powers)
    complete_by_set: bool = False  # completion counts distinct values (rows may hold duplicates/gaps)
    # card encoding, slot groups, shared stock, matches (piles-and-stock games)
    value_shift: int = 0  # value = card >> value_shift
    suit_codes: tuple[tuple[str, int, int], ...] = ()  # (symbol, code, colour index)
    value_names: tuple[tuple[int, str], ...] = ()
    fast_step: int | None = 1  # the single card difference of a plain deck (None: use `steps`)
    row_open: tuple = ()  # per row card: None (any card) or frozenset of cards that may open it
    row_group: tuple[int, ...] = ()  # per row card: index of its slot group
    row_starts_on: tuple[bool, ...] = ()  # per row card: gets a start card at setup
    relocate: tuple[frozenset, tuple[int, ...]] | None = None  # start cards to move, target rows
    rebuild_whole_only: bool = False
    shared_stock: bool = False
    refill_at_start: bool = False
    win_needs_pile: bool = True
    stalemate_needs_empty_piles: bool = False
    stalemate_powers: bool = True  # the exact stalemate test lets seats use the characters still in play
    exact_play_limit: int = 5000  # positions the exact test's search over staying character plays explores
    stalemate_counts_parked: bool = False  # parked cards count with hand and draw pile for a stalemate's winners
    first_player: int = 0  # who plays first, counted from the dealer
    provisional_moves: bool = True  # a turn that lays too few may still end as exchange/pass/minus, restored
    empty_targets: frozenset[int] | None = None  # row cards a rebuild may fill when empty (None: any)
    option_at: tuple[tuple[str, str], ...] = ()  # (rule-file path, option name): to name options in refusals
    variant_at: tuple[tuple[str, str, Any], ...] = ()  # (rule-file path, variant name, value the variant sets)
    must_lay: frozenset[int] = frozenset()
    must_lay_when_drawn: bool = False  # a must-lay card drawn at the end of a turn is laid at once
    penalty: tuple[tuple[int, int], ...] = ()  # (card, points) for every card kind, when hands are scored
    match_target: int = 0  # > 0: hands are played until a penalty total reaches it
    match_rotate: bool = True
    match_max_hands: int = 200
    match_scored_at_max: bool = False  # a match stopped by max_hands is won by the lowest total (else no winner)
    family: str = "rows"

    def __reduce__(self) -> tuple:
        """Pickle as the constructor and the fields in order (a frozen native class has no settable state)."""
        return (CompiledGame, tuple(getattr(self, f.name) for f in fields(self)))

    def fits(self, prev: int, card: int) -> bool:
        """True if ``card`` may follow ``prev`` along a row (sequence constraint)."""
        return card - prev in self.steps

    def may_open(self, card: int, r: int = -1) -> bool:
        """True if ``card`` may open the empty row ``r`` (``-1``: some row of the table)."""
        if 0 <= r < len(self.row_open):
            allowed = self.row_open[r]
            return allowed is None or card in allowed
        return self.open_any or card in self.open_values

    def option_hint(self, path: str, *, allows: bool = True) -> str:
        """``" (allowed with option `NAME`)"`` for the rule-file option that sets ``path``, or ``""`` if none.

        Used by refusals to name the option or variant that would allow the refused move.
        """
        variants = [
            v
            for p, v, value in self.variant_at
            if p == path and v != self.variant and (not allows or value is not False)
        ]
        also = f", e.g. variant `{variants[0]}`" if variants else ""
        for p, name in self.option_at:
            if p == path:
                return f" (allowed with option `{name}`{also})" if allows else f" (see option `{name}`{also})"
        if variants:
            return f" (allowed in variant `{variants[0]}`)" if allows else f" (see variant `{variants[0]}`)"
        return ""

    def opening_text(self, r: int) -> str:
        """Which cards may open empty row ``r``, in words (``any card`` or the list)."""
        allowed = self.row_open[r] if 0 <= r < len(self.row_open) else None
        if allowed is None:
            return "any card"
        values = sorted({self.value(c) for c in allowed})
        return "only " + ", ".join(self.card_text(v << self.value_shift) for v in values)

    def value(self, card: int) -> int:
        """The value of a card (a joker counts as the value it stands for)."""
        return abs(card) >> self.value_shift

    def card_text(self, card: int) -> str:
        """A card in the notation: ``7``, ``E7`` (joker as 7), ``10H``, ``KS``."""
        if card < 0:
            return f"E{self.card_text(-card)}"
        v = card >> self.value_shift
        name = dict(self.value_names).get(v, str(v)) if self.suit_codes else str(v)
        if not self.suit_codes:
            return name
        code = card & ((1 << self.value_shift) - 1)
        sym = next(sym for sym, c, _ in self.suit_codes if c == code)
        return f"{name}{sym}"

    def parse_card(self, token: str) -> int:
        """Inverse of :meth:`card_text`.

        Raises:
            ValueError: not a card of this deck.
        """
        if token[:1] in ("E", "e") and len(token) > 1 and (token[1:].isdigit() or self.suit_codes):
            return -self.parse_card(token[1:])
        if not self.suit_codes:
            v = int(token)
            return v
        sym = token[-1:].upper()
        code = next((c for s, c, _ in self.suit_codes if s == sym), None)
        names = {n.upper(): v for v, n in self.value_names}
        head = token[:-1].upper()
        named = names.get(head)
        v = named if named is not None else int(head)
        if code is None or not self.value_min <= v <= self.value_max:
            raise ValueError(token)
        return (v << self.value_shift) | code

    def is_complete(self, row: Sequence[int]) -> bool:
        """True if ``row`` holds every value of the deck's range (completion rule).

        A joker counts as the value it stands for; duplicates count once; an
        open gap means a value is missing, so the row is not complete.
        """
        if not self.complete_when_all or len(row) < self.full_length:
            return False
        if not self.complete_by_set:
            return len(row) == self.full_length
        return len({abs(c) >> self.value_shift for c in row}) == self.full_length

    def character(self, key: str) -> CompiledCharacter:
        """The compiled character ``key`` (rule-file key, e.g. ``ragna``).

        Raises:
            KeyError: no such character in these rules.
        """
        return self.roster_by_key[key]

    def row_is_legal(self, row: list[int]) -> bool:
        """True if ``row`` satisfies the sequence constraint (an empty row is legal).

        Jokers (negative: ``-v`` stands for value ``v``) count as their value;
        duplicates and single-value gaps are legal only where a power can make them.
        """
        if not row:
            return True
        vals = [abs(c) for c in row]
        shift = self.value_shift
        if min(vals) >> shift < self.value_min or max(vals) >> shift > self.value_max:
            return False
        diffs = self.row_diffs or self.steps
        return all(b - a in diffs for a, b in pairwise(vals))


def compile_rules(loaded: LoadedRules) -> Any:
    """Compile validated rules of any engine family (its compiler, from :mod:`kbsim.engine.families`).

    Args:
        loaded: rules from :func:`kbsim.rules.loader.load_rules`.

    Returns:
        The family's compiled game (a :class:`CompiledGame` for the rows family).
    """
    return family(loaded.model.family).compile(loaded)


def _variant_paths(m: Any) -> tuple[tuple[str, str, Any], ...]:
    """(rule-file path, variant name, value) for every path a variant of the rule file sets.

    A variant sets a path through an option or its overlay; the list lets refusals name the variant that would
    allow a refused move.
    """
    opt_path = {name: o.path for name, o in m.options.items()}
    out: list[tuple[str, str, Any]] = []

    def flat(node: Any, prefix: str, variant: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                flat(v, f"{prefix}.{k}" if prefix else str(k), variant)
        else:
            out.append((prefix, variant, node))

    for vname, v in (getattr(m, "variants", None) or {}).items():
        for oname, value in v.options.items():
            if oname in opt_path:
                out.append((opt_path[oname], vname, value))
        flat(v.overlay, "", vname)
    return tuple(out)


def compile_rows(loaded: LoadedRules) -> CompiledGame:
    """Turn validated rules of the rows family into a :class:`CompiledGame`.

    Args:
        loaded: rules from :func:`kbsim.rules.loader.load_rules`.

    Returns:
        The compiled game (immutable, picklable, cheap to share with workers).

    Raises:
        RulesError: the rules are not of the rows family, or their row sequence cannot be checked on this deck.
    """
    m = loaded.model
    if not isinstance(m, RuleFile):
        raise RulesError(f"{loaded.source}: a rule file of the {m.family!r} family, not of the rows family")
    vals = range(m.cards.values.min, m.cards.values.max + 1)
    seq = m.table.rows.sequence
    suits = m.cards.suits
    colours = sorted({su.colour for su in suits}, key=[su.colour for su in suits].index)
    suit_codes: list[tuple[str, int, int]] = []
    for su in suits:
        ci = colours.index(su.colour)
        k = sum(1 for x in suit_codes if x[2] == ci)
        suit_codes.append((su.symbol, ci * 4 + k, ci))
    shift = 4 if suits else 0
    kinds = [(v << shift) | code for v in vals for _, code, _ in suit_codes] if suits else list(vals)
    value_steps = {seq.step} | ({0} if seq.repeats else set())
    if suits:
        colour_of = {code: ci for _, code, ci in suit_codes}
        good: set[int] = set()
        bad: set[int] = set()
        for a in kinds:
            for b in kinds:
                ok = (b >> shift) - (a >> shift) in value_steps and (
                    not seq.alternate_colours or colour_of[a & 15] != colour_of[b & 15]
                )
                (good if ok else bad).add(b - a)
        if good & bad:
            raise RulesError(f"{loaded.source}: table.rows.sequence: this rule cannot be checked on this deck")
        steps = good
    else:
        steps = value_steps
    deck = tuple(c for c in kinds for _ in range(m.cards.copies))

    def cards_of(values) -> frozenset[int]:
        return frozenset(c for c in kinds if (c >> shift) in set(values))

    rows = m.table.rows
    if rows.groups:
        row_open = tuple(
            None if grp.open_with == "any" else cards_of(grp.open_with) for grp in rows.groups for _ in range(grp.count)
        )
        row_group = tuple(i for i, grp in enumerate(rows.groups) for _ in range(grp.count))
        starts_on = tuple(grp.starts for grp in rows.groups for _ in range(grp.count))
    else:
        one = None if seq.open_with == "any" else cards_of(seq.open_with)
        row_open = (one,) * rows.count
        row_group = (0,) * rows.count
        starts_on = (True,) * rows.count
    open_any = any(o is None for o in row_open)
    open_values = frozenset().union(*(o for o in row_open if o is not None)) if not open_any else frozenset()
    relocate = None
    if m.setup.relocate_starts:
        gi = [g.name for g in rows.groups].index(m.setup.relocate_starts.to_group)
        relocate = (cards_of(m.setup.relocate_starts.values), tuple(r for r, g in enumerate(row_group) if g == gi))
    pen = m.end.penalties
    penalty: tuple[tuple[int, int], ...] = ()
    if pen:
        penalty = tuple(
            (c, pen.values.get(c >> shift, (c >> shift) if pen.face_value else pen.per_card)) for c in kinds
        )
    lay = m.turn.lay_out
    ch = m.characters if (m.characters and m.characters.enabled) else None
    roster = tuple(compile_character(key, c, m) for key, c in ch.roster.items() if key not in ch.removed) if ch else ()
    row_diffs = set(steps)
    for c in roster:
        row_diffs |= c.row_diffs
    sc = m.end.score
    return CompiledGame(
        game=m.game,
        title=m.title,
        variant=loaded.variant_label,
        options=dict(loaded.options),
        min_players=m.players.min,
        max_players=m.players.max,
        value_min=m.cards.values.min,
        value_max=m.cards.values.max,
        copies=m.cards.copies,
        deck=deck,
        n_rows=m.table.rows.count,
        step=seq.step,
        steps=frozenset(steps),
        open_any=open_any,
        open_values=open_values,
        complete_when_all=m.table.rows.completion.holds_all_values,
        full_length=len(vals),
        row_starts=m.setup.row_starts,
        deal_rest=m.setup.deal.cards == "rest",
        deal_count=0 if m.setup.deal.cards == "rest" else int(m.setup.deal.cards),
        first_seat=m.setup.deal.first_seat,
        deal_one_at_a_time=m.setup.deal.one_at_a_time,
        hand_size=m.setup.hand_size,
        min_lay=lay.min_hand_cards,
        min_only_while_pile=lay.min_only_while_draw_pile,
        rebuild_allowed=lay.rebuild.allowed,
        rebuild_from_start=lay.rebuild.segments == "either",
        rebuild_whole_only=lay.rebuild.segments == "whole",
        rebuild_into_empty=lay.rebuild.into_empty_row,
        max_rebuilds=lay.rebuild.max_per_turn if lay.rebuild.allowed else 0,
        exchange_allowed=m.turn.exchange.allowed,
        exchange_min=m.turn.exchange.min_cards,
        exchange_requires_pile=m.turn.exchange.requires_draw_pile,
        pass_allowed=m.turn.pass_.allowed,
        pass_requires_empty_pile=m.turn.pass_.requires_empty_draw_pile,
        refill_up_to=m.turn.refill.up_to_hand_size,
        refill_draw=m.turn.refill.draw,
        win_on_empty=m.end.win.when_hand_and_draw_pile_empty,
        stalemate_exact=m.end.stalemate.test == "exact",
        idle_extra_turns=m.end.stalemate.idle_extra_turns,
        exact_search_limit=m.end.stalemate.exact_search_limit,
        stalemate_fewest_wins=m.end.stalemate.winners == "fewest_cards",
        turn_limit=m.end.turn_limit.turns,
        all_out=m.end.win.mode == "all_out",
        parked_count=m.end.win.parked_cards_count,
        minus_allowed=m.turn.minus.allowed,
        minus_cards=m.turn.minus.cards,
        minus_only_when_stuck=m.turn.minus.only_when_stuck,
        score=(sc.per_unplayed_character, sc.per_empty_row_card, sc.per_minus_card, sc.win_at, sc.expert_at)
        if sc
        else None,
        chars_enabled=ch is not None,
        chars_display_mode=bool(ch and ch.mode == "display"),
        chars_deal=tuple(sorted(ch.deal.items())) if ch else (),
        chars_display=ch.display if ch else 3,
        chars_per_turn=ch.per_turn if ch else 0,
        chars_any_turn=ch.on_any_turn if ch else True,
        roster=roster,
        roster_by_key={c.key: c for c in roster},
        row_diffs=frozenset(row_diffs),
        complete_by_set=bool(roster) or seq.repeats,
        value_shift=shift,
        suit_codes=tuple(suit_codes),
        value_names=tuple(sorted(m.cards.names.items())),
        fast_step=None if suits else seq.step,
        row_open=row_open,
        row_group=row_group,
        row_starts_on=starts_on,
        relocate=relocate,
        shared_stock=m.setup.draw_pile == "shared",
        refill_at_start=m.turn.refill.when == "start",
        win_needs_pile=m.end.win.draw_pile_counts,
        stalemate_needs_empty_piles=m.end.stalemate.requires_empty_draw_piles,
        stalemate_powers=m.end.stalemate.powers == "in_play",
        exact_play_limit=m.end.stalemate.exact_play_limit,
        stalemate_counts_parked=m.end.stalemate.counts_parked,
        first_player=m.setup.deal.first_player,
        provisional_moves=lay.provisional_until_laid,
        empty_targets=(
            None
            if lay.rebuild.into_empty_groups is None
            else frozenset(r for r, gi in enumerate(row_group) if rows.groups[gi].name in lay.rebuild.into_empty_groups)
        ),
        option_at=tuple((o.path, name) for name, o in m.options.items()),
        variant_at=_variant_paths(m),
        must_lay=cards_of(lay.must_lay) if lay.must_lay else frozenset(),
        must_lay_when_drawn=lay.must_lay_when_drawn,
        penalty=penalty,
        match_target=m.end.match.target if m.end.match else 0,
        match_rotate=m.end.match.rotate_dealer if m.end.match else True,
        match_max_hands=m.end.match.max_hands if m.end.match else 200,
        match_scored_at_max=bool(m.end.match and m.end.match.at_max_hands == "lowest_total"),
    )
