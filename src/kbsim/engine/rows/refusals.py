"""Why the engine refuses a move: the rule broken and the power or rule-file option that would allow it.

The turn (:class:`~kbsim.engine.rows.turn.Turn`) decides what is legal; when it refuses a move it asks this module
for the sentence of its :class:`~kbsim.engine.results.IllegalMove`, so that a refusal names the rule (and, where
one exists, the option of the rule file or the character power that would allow the move). Read only: nothing
here changes the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbsim.engine.rows.moves import DONE

if TYPE_CHECKING:  # (the turn calls this module: a type for the checker, no import at run time)
    from kbsim.engine.rows.compiled import CompiledGame
    from kbsim.engine.rows.turn import Turn


def power_hint(g: CompiledGame, kind: str, mod: str = "") -> str:
    """Which power of the rules allows a move the base rules refuse, as text appended to a refusal.

    Args:
        g: the compiled rules (their character roster and options).
        kind: the kind of power step that would allow the move (``modifier``, ...).
        mod: the modifier that would allow it (``lay_at_start``, ...); empty: any step of ``kind``.

    Returns:
        ``"; only the power of <characters> allows it"`` naming the characters whose power has such a
        step, plus the option or variant that puts characters into play when they are off; a sentence
        saying no power allows it when no character has such a step.
    """
    keys = [
        c.key for c in g.roster if any(st.kind == kind and (not mod or getattr(st, "mod", "") == mod) for st in c.steps)
    ]
    off = "" if g.chars_enabled else g.option_hint("characters.enabled")
    if not keys:
        if off:
            return "; only a character's power allows it, and characters are not in play in these rules" + off
        return "; no power in these rules allows it"
    when = ", for the rest of the turn in which it is played" if kind == "modifier" else ""
    text = f"; only the power of {', '.join(keys)} allows it{when}"
    if off:
        text += ", and characters are not in play in these rules" + off
    return text


def joint_hint(turn: Turn, lower: int, upper: int, rebuild: bool = False) -> str:
    """Why the joint ``lower`` -> ``upper`` is refused when a power could allow it (empty otherwise)."""
    d = abs(upper) - abs(lower)
    if d == 0:
        if turn.m_equal and rebuild and not turn.m_equal_rb:
            return "; the equal-value power in force does not apply to rebuilds"
        return "; an equal value is not in sequence" + power_hint(turn.g, "modifier", "equal_values")
    if d == 2 * turn.g.step:
        if turn.skips and rebuild and not turn.m_skip_rb:
            return "; the skip power in force does not apply to rebuilds"
        if turn.skips:
            return f"; the skip power in force skips only values from {turn.skip_lo} to {turn.skip_hi}"
        return "; a skipped value is not in sequence" + power_hint(turn.g, "modifier", "skip_value")
    return ""


def rebuild_refusal(
    turn: Turn, src: int, count: int, dst: int, from_start: bool = False, to_start: bool = False
) -> str:
    """Why ``Rebuild(src, count, dst, from_start, to_start)`` is refused now.

    Args:
        turn: the turn asked (read only).
        src: the source row (0-based).
        count: cards moved.
        dst: the target row (0-based).
        from_start: the segment is the row's first cards (else its last).
        to_start: the segment goes before the target row's first card (else after its last).

    Returns:
        The rule the rebuild breaks and, where a rule-file option would allow it, that option; an empty
        string if the rebuild is legal.
    """
    if turn.can_rebuild(src, count, dst, from_start, to_start):
        return ""
    return _rebuild_turn_refusal(turn, src, count, dst) or _rebuild_segment_refusal(
        turn, src, count, dst, from_start, to_start
    )


def _rebuild_turn_refusal(turn: Turn, src: int, count: int, dst: int) -> str:
    """The refusal of :func:`rebuild_refusal` from the turn, the rebuild count and the rows named (else "")."""
    g = turn.g
    base = "turn.lay_out.rebuild."
    rows = turn.rows
    if turn.phase == DONE:
        return "the turn is over"
    if not g.rebuild_allowed:
        return "rebuilding is not allowed in these rules" + g.option_hint(base + "allowed")
    if turn.rebuilds >= g.max_rebuilds:
        return f"at most {g.max_rebuilds} rebuild(s) per turn" + g.option_hint(base + "max_per_turn", allows=False)
    if not (0 <= src < len(rows) and 0 <= dst < len(rows)):
        return f"there are only {len(rows)} rows"
    if src == dst:
        return "a row cannot be rebuilt onto itself"
    s = rows[src]
    if not s:
        return f"row {src + 1} is empty"
    if count < 1 or count > len(s):
        return f"row {src + 1} holds {len(s)} card(s), not {count}"
    return ""


def _rebuild_segment_refusal(turn: Turn, src: int, count: int, dst: int, from_start: bool, to_start: bool) -> str:
    """The refusal of :func:`rebuild_refusal` from the segment and where it goes (rows already checked)."""
    g = turn.g
    base = "turn.lay_out.rebuild."
    s, d = turn.rows[src], turn.rows[dst]
    if g.rebuild_whole_only and count != len(s):
        return "only whole rows move, never part of one" + g.option_hint(base + "segments", allows=False)
    if from_start and not g.rebuild_from_start:
        return "only the last cards of a row move" + g.option_hint(base + "segments")
    if to_start:
        return f"cards may go before the start of row {dst + 1} only while a power allows it for rebuilds" + power_hint(
            turn.g, "modifier", "lay_at_start"
        )
    first = s[0] if from_start else s[len(s) - count]
    if d:
        return (
            f"the first moved card {g.card_text(first)} does not continue row {dst + 1} "
            f"(ends {g.card_text(d[-1])})" + joint_hint(turn, d[-1], first, rebuild=True)
        )
    if not g.rebuild_into_empty:
        return f"row {dst + 1} is empty and a rebuild may not go onto an empty row card" + g.option_hint(
            base + "into_empty_row"
        )
    if g.empty_targets is not None and dst not in g.empty_targets:
        return "a rebuild may go onto an empty row card only in these slots: rows " + ", ".join(
            str(r + 1) for r in sorted(g.empty_targets)
        )
    if not g.may_open(abs(first), dst):
        return f"{g.card_text(first)} may not open empty row {dst + 1} ({g.opening_text(dst)})"
    return "moving a whole row into an empty slot of its own kind would change nothing"


def play_refusal(turn: Turn, key: str, avail: list[str]) -> str:
    """Why character ``key`` is not playable now (the rule broken, and the option that would allow it)."""
    g = turn.g
    if not g.chars_enabled:
        return "characters are not in play in these rules" + g.option_hint("characters.enabled")
    if turn.phase == DONE:
        return "the turn is over"
    if turn.chars_played >= g.chars_per_turn:
        return f"at most {g.chars_per_turn} character(s) per turn"
    if not any(c.key == key for c in g.roster):
        return "no such character in these rules"
    now = f" (playable now: {', '.join(avail)})" if avail else " (none now)"
    if g.chars_display_mode:
        return "only the characters on display are playable, and it is not on display" + now
    return "only the top card of this seat's character pile is playable, and it is not on top" + now
