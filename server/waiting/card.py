"""A waiting table's card: what its people's ``/me`` shows of it, and when it is next due.

The card is written by the table's owner after each commit that changed it and read by any
process, without loading the table: who sits where, whose decision it waits for and until
when, the last play and the score. It carries the table's join key, and ``/me`` hands cards
only to the people seated there, who hold that link already.
"""

from __future__ import annotations

from typing import Any

import orjson

from server.core import clocks, turns
from server.core.table import Table


def card_of(table: Table) -> bytes | None:
    """The card of a turn-based table with people at it (None: nothing to list)."""
    players = sorted({seat.player for seat in table.seats if seat.player})
    if not table.move_deadline or not players:
        return None
    awaited = turns.awaited(table)
    deadlines = [clock.at for clock in clocks.due(table) if clock.level and clock.seat in awaited]
    game = table.game
    fields: dict[str, Any] = {
        "table": table.table_id,
        "profile": table.profile,
        "join_key": table.keys["join"],
        "stage": table.stage,
        "game": table.game_no,
        "players": players,
        "seats": [
            {"name": seat.name, "player": seat.player, "bot_level": seat.bot_level}
            for seat in table.seats
        ],
        "awaited": [table.seats[seat].player for seat in awaited],
        "deadline": min(deadlines) if deadlines else None,
        "last_play": turns.last_play(table),
        "scores": list(game.scores) if game is not None else [0, 0],
        "move_deadline": table.move_deadline,
        "on_deadline": table.on_deadline,
        "ended": table.ended,  # a forfeit: /me says who won by it
    }
    return orjson.dumps(fields)


def due_of(table: Table) -> float | None:
    """When the table's clocks next have something to do (None: nothing while it waits)."""
    if not table.move_deadline or not table.in_game:
        return None
    return clocks.next_wakeup(table)
