"""A waiting table's card: what its people's ``/me`` shows of it, and when it is next due.

The card is written by the table's owner after each commit that changed it and read by any
process, without loading the table: who sits where, whose decision it waits for and until
when, the last play and the score. It carries the table's join key, and ``/me`` hands cards
only to the people seated there, who hold that link already; a club night's page reads only
its public fields (``public_entry``: seats, stage, score), as the lobby shows a table.
"""

from __future__ import annotations

from typing import Any

import orjson

from server.core import clocks, turns
from server.core.table import Table


def card_of(table: Table) -> bytes | None:
    """The card of a turn-based table with anyone seated (None: nothing to show)."""
    players = sorted({seat.player for seat in table.seats if seat.player})
    if not table.move_deadline or all(seat.occupant == "empty" for seat in table.seats):
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
            for seat in table.seats  # a bot's has its level, an empty one no name
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


def public_entry(card: bytes) -> dict[str, Any]:
    """The card's public part in the shape the lobby lists a table (``server.listing.entry_of``):
    seats by name and occupant, stage, game and score; no key, no public id."""
    fields = orjson.loads(card)
    return {
        "table": fields["table"],
        "profile": fields["profile"],
        "stage": fields["stage"],
        "game": fields["game"],
        "seats": [
            {"name": seat["name"], "occupant": _occupant(seat), "bot_level": seat["bot_level"]}
            for seat in fields["seats"]
        ],
        "scores": fields["scores"],
        "move_deadline": fields["move_deadline"],
        "on_deadline": fields["on_deadline"],
    }


def _occupant(seat: dict[str, Any]) -> str:
    if seat["bot_level"] is not None:  # a person's seat has none, even with a stand-in playing
        return "bot"
    return "empty" if seat["name"] is None else "person"
