"""Per-game records: their columns per engine family, and building them from results.

One record (row) per game: the common columns, then the columns the game's engine
family declares (:attr:`kbsim.engine.families.Family.record_columns`), in the order
below. Family ``rows`` (Kingsbridge, King's Corners) and ``market`` (Continental
Express) columns are marked; the others are common. Documented in ``docs/guide/records.md``.

======================  ==============  ===================================================
column                  type            meaning
======================  ==============  ===================================================
run_id                  string          identifier of the run that produced the record
game_index              int64           index of the game in its run (0-based)
seed                    int64           the game's own seed (from run seed and index)
game                    string          rule set, e.g. ``kingsbridge``
variant                 string          ``base`` or variant names joined by ``+``
options                 string          JSON object: every option's effective value
players                 int8            number of seats
bots                    list<string>    bot name per seat
winners                 list<int8>      winning seats; several for a shared win; empty if none
end_reason              string          ``won``, ``stalemate`` or ``turn_limit``
turns                   int32           turns played, all seats together
cards_left              list<int16>     rows: cards held per seat at the end (hand + draw pile)
cards_laid              list<int16>     rows: hand cards laid per seat
exchanges               list<int16>     rows: exchange turns per seat
passes                  list<int16>     turns per seat in which the seat laid (rows) or took (market) no card
rebuilds                list<int16>     rows: rebuilds per seat
rows_completed          int16           rows: rows completed during the game
minus_cards             list<int16>     rows: cards put on the minus pile per seat (solo/cooperative)
score                   int16 (null)    rows: team score (solo/cooperative), null in a race
character_plays         list<struct>    ``{seat, character, plays}`` per seat and character played
penalties               list<int16>     rows: penalty totals per seat (games that score hands), else empty
hands                   int16           hands played (1 unless the rules play a match)
blocked_hands           int16           rows: hands that ended blocked (stalemate) within the game
scores                  list<int16>     final points per seat (games scored by points), else empty
cards_held              list<int16>     market: market cards (wagons and currency) held per seat at the end
wagons_spent            list<int16>     market: wagons spent on objectives per seat
objectives              list<int16>     market: objectives claimed per seat
characters_lost         int16           market: characters taken that could not act
deal_hash               string          16 hex digits identifying the deal(s) played: equal deals, equal hash
rule_usage              list<struct>    ``{rule, uses, legal_turns}``: how often an optional rule, option or power made
                                        a taken move legal (:mod:`kbsim.engine.rows.usage`); every counter the rules
                                        enable is listed, with 0 uses if never used; ``legal_turns``: for a variant's
                                        rebuilds (start segments, into an empty row) the turns at whose start such a
                                        rebuild was legal, else null; market games: empty
moves                   list<string>    the move log in move notation, one entry per turn (``SEAT: MOVE; MOVE``, a
                                        market game's contract choices first), for a game with a ``human`` seat (it
                                        cannot be replayed from its seed); empty for a game of bots only
forced_turns            list<int16>     turns per seat whose first move could be of one kind at most (rows: a
                                        character, a lay now, a rebuild, an exchange, ending without a card, the
                                        minus pile; market: one legal first move); :mod:`kbsim.engine.rows.experience`
bar_yields              list<int16>     turns per seat in which the seat's bar (restricted play, the bot spec's
                                        ``bar``) yielded because it left no legal way to finish the turn; 0 unbarred
lead_changes            int16 (null)    how often the leader changed, read after the deal, every round and the end
                                        (leader: the one seat strictly ahead by cards held, by penalty points in a
                                        match, by points in a market game); null in solo and cooperative games
winner_leads_from       int32 (null)    the turn from which the sole winner led to the end (0: from the deal; the
                                        game's turns: not even at the end); null without a sole winner
winner_behind_at_half   bool (null)     the sole winner was behind at half the game's turns
                                        (a comeback); null without a sole winner. See :mod:`kbsim.engine.course`
======================  ==============  ===================================================

The Parquet file's key-value metadata holds ``kbsim.version``, ``kbsim.run``
(the run's parameters as JSON), ``kbsim.records_schema``
(:data:`RECORDS_SCHEMA_VERSION`, bumped whenever the columns change or a seed gives other records) and
``kbsim.integrity`` (row count and key-column digest). The schema, the writer and the reader are in
:mod:`kbsim.records` (they need no engine); this module builds records from game results.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from kbsim.engine.families import FAMILIES
from kbsim.records import ALL_FIELDS, RECORDS_SCHEMA_VERSION, SCHEMA_CHANGES, encode_metadata

__all__ = [
    "ALL_FIELDS",
    "COLUMNS",
    "RECORDS_SCHEMA_VERSION",
    "SCHEMA",
    "SCHEMA_CHANGES",
    "empty_columns",
    "family_columns",
    "schema_for",
    "to_table",
]


def family_columns() -> dict[str, set[str]]:
    """Column name -> the engine families that declare it (the common columns are not listed)."""
    out: dict[str, set[str]] = {}
    for name, fam in FAMILIES.items():
        for col, _ in fam.record_columns:
            out.setdefault(col, set()).add(name)
    return out


def schema_for(family: str = "rows") -> pa.Schema:
    """The record schema of games of an engine family: the common columns and the family's own.

    Raises:
        KeyError: unknown family.
    """
    own = {c for c, _ in FAMILIES[family].record_columns}
    declared = family_columns()
    return pa.schema([f for f in ALL_FIELDS if f.name not in declared or f.name in own])


#: The record schema of the rows family (Kingsbridge, King's Corners).
SCHEMA = schema_for("rows")
COLUMNS = SCHEMA.names


def empty_columns(family: str = "rows") -> dict[str, list]:
    """A dict of empty lists, one per record column of ``family`` (the in-memory record batch)."""
    return {name: [] for name in schema_for(family).names}


def to_table(columns: dict[str, list], metadata: dict[str, Any] | None = None) -> pa.Table:
    """Build an Arrow table from column lists (the columns of one family, see :func:`schema_for`).

    ``metadata`` values are JSON-encoded (see :func:`kbsim.records.encode_metadata`).

    Raises:
        KeyError: a column that is not a record column.
    """
    fields = {f.name: f for f in ALL_FIELDS}
    schema = pa.schema([fields[name] for name in columns])
    return pa.Table.from_pydict(columns, schema=schema).replace_schema_metadata(encode_metadata(metadata))
