"""What a table shows outside itself: a frozen summary every outcome carries.

The public listing and the clubs' results (``server.listing``) read it rather than the live
table: the shell keeps the summary of the last outcome it stored, so a reader without the
room's lock sees a table as committed, never half-way through a command.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from server.core.seating import Occupant
from server.core.table import Table


class SeatSummary(NamedTuple):
    """Who sits in a seat: a person's or a bot's name (None: nobody)."""

    name: str | None
    occupant: Occupant
    bot_level: int | None


class TableSummary(NamedTuple):
    """A table's public facts (a spectator's), plus its watch key and its last finished game's
    R15 record (both for the listing's owner, which publishes only public tables' keys).

    Immutable values (named tuples: one is taken after every command, and built and compared
    in C), so an unchanged table keeps the same summary object."""

    table_id: str
    profile: str
    club: str | None
    public: bool
    solo: bool
    watch: str
    join: str | None  # offered to strangers: ``offered_join``
    stage: str
    game_no: int
    seats: tuple[SeatSummary, ...]
    scores: tuple[int, ...]
    piles: tuple[int, ...]
    spectators: int
    finished_record: Mapping[str, Any] | None  # the last finished game's (never changed)
    move_deadline: int = 0  # turn-based: each person's deadline per decision (0: live)
    on_deadline: str = "stand_in"  # what a passed deadline does (``Table.on_deadline``)
    forfeited: int | None = None  # the team that forfeited the last finished game (None: none)

    @property
    def in_game(self) -> bool:
        return self.stage == "playing"


def summarize(table: Table, last: TableSummary | None = None) -> TableSummary:
    """The table's summary now: ``last`` (the one before) itself if nothing changed, as after
    most commands, else a new one reusing ``last``'s seats if those did not change."""
    game = table.game
    free = any(seat.occupant == "empty" for seat in table.seats)
    seats = tuple([SeatSummary(seat.name, seat.occupant, seat.bot_level) for seat in table.seats])
    if last is not None and last.seats == seats:
        seats = last.seats
    summary = TableSummary(
        table.table_id,
        table.profile,
        table.keys.get("club"),
        table.public,
        table.solo,
        table.keys["watch"],
        offered_join(table, free),
        table.stage,
        table.game_no,
        seats,
        tuple(game.scores) if game is not None else (0, 0),
        tuple(game.pile_sizes) if game is not None else (0, 0),
        sum(1 for viewer in table.viewers.values() if viewer.seat is None),
        table.finished_record,
        table.move_deadline,
        table.on_deadline,
        table.ended["team"] if table.ended is not None else None,
    )
    return last if last is not None and last == summary else summary


def offered_join(table: Table, free: bool) -> str | None:
    """The join key of a public table still waiting for players with a chair free: its host
    listed it so strangers take the chair (the lobby's Sit button). A club's table, one being
    played, or a full one never offers it."""
    offered = table.public and not table.keys.get("club") and table.stage == "lobby" and free
    return table.keys["join"] if offered else None
