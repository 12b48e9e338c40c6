"""Seat roles from the records: who deals and who plays first, as a seat number and in words.

The rules say who deals and who plays first (rule file: ``setup.deal.first_seat``, ``setup.deal.first_player``
counted from the dealer, and whether the deal moves on with each hand of a match). ``kbsim run`` and studies store
that in the records' metadata (``rules.seats``: ``dealer``, ``first_after_dealer``, ``dealer_moves``; see
:func:`kbsim.sim.run.rules_metadata`), so every label that names a seat's role comes from the rules without the
analysis reading a rule file. Records written before carry none: seat 0 is then taken to play first, as kbsim
assumed until then, and the words say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def seats_of(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The seat roles (``rules.seats``) of a records file's metadata, or None when it holds none."""
    rules = (meta or {}).get("rules")
    seats = rules.get("seats") if isinstance(rules, Mapping) else None
    if not isinstance(seats, Mapping) or not isinstance(seats.get("dealer"), int):
        return None
    return dict(seats)


def first_after_seat_0(seats: Mapping[str, Any] | None) -> int:
    """How many seats after seat 0 the first player sits (``dealer + first_after_dealer``; 0 when not said).

    The first seat of a game of ``P`` seats is this number modulo ``P`` (:func:`first_seat`).
    """
    if not seats:
        return 0
    return int(seats.get("dealer", 0)) + int(seats.get("first_after_dealer", 0))


def first_seat(seats: Mapping[str, Any] | None, players: int) -> int:
    """The seat that plays the first turn of a game of ``players`` seats (0 when the records do not say).

    Args:
        seats: the seat roles (:func:`seats_of`), or None.
        players: seats in the game (>= 1).

    Returns:
        ``(dealer + first_after_dealer) % players`` (the first hand's dealer, for a match).
    """
    return first_after_seat_0(seats) % players if players >= 1 else 0


def starts_text(seats: Mapping[str, Any] | None, players: int | None = None) -> str:
    """Who plays first, in words: ``"seat 1 plays first (seat 0 deals; the deal moves on each hand)"``.

    Args:
        seats: the seat roles (:func:`seats_of`), or None (older records).
        players: seats in the game; None for words true at every player count.

    Returns:
        A phrase naming the first player's seat (and the dealer's, where they differ).
    """
    if not seats:
        return "seat 0 plays first (assumed: these records do not say who starts)"
    dealer = int(seats.get("dealer", 0))
    after = int(seats.get("first_after_dealer", 0))
    moves = "; the deal moves on each hand" if seats.get("dealer_moves") else ""
    if after == 0:
        return f"seat {dealer} deals and plays first{moves}"
    if players is None:
        nth = "the next seat" if after == 1 else f"the seat {after} places after the dealer"
        return f"{nth} plays first (seat {dealer} deals{moves})"
    return f"seat {first_seat(seats, players)} plays first (seat {dealer} deals{moves})"
