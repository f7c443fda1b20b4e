"""A table's ``TableInfo`` as a raw key: what the info would say, without building it.

Every change asks whether the table info changed (``Publisher.packed_info``: an unchanged info
is left out of the frames and packed once). Most commands leave the info as it was, so
building its JSON form, seats and all, only to compare it is work wasted; the key holds the
values as the table holds them, in a flat tuple, and the info is built and packed only when
the key differs. ``FIELDS`` names each entry
after the ``TableInfo`` field it stands for (``tests/server/core/test_info_key.py`` fails when
the model gains a field the key does not hold, or the key misses a change the info shows).

What the key keeps must not change in place while it is kept: the rematch set and the missed
deadlines, which are changed in place, are copied; the options and ``ended`` are replaced
whole when they change (``server.core.hosting``, ``server.core.play``), never mutated.
"""

from __future__ import annotations

from typing import Any, Final

from server.core.coaching import hints_allowed
from server.core.table import Table

FIELDS: Final = (
    "table",
    "profile",
    "options",
    "turn_timer",
    "locked",
    "stage",
    "game",
    "seats",
    "spectators",
    "rematch_asked",
    "casual",
    "hints",
    "move_deadline",
    "on_deadline",
    "missed",
    "ended",
)


def info_key(table: Table, spectators: int) -> tuple[Any, ...]:
    """The values ``Publisher.info_fields`` is built from, entry by entry as ``FIELDS``: equal
    keys, equal infos."""
    return (
        table.table_id,
        table.profile,
        table.options,
        table.turn_timer,
        table.locked,
        table.stage,
        table.game_no,
        tuple(
            [
                (s.occupant, s.name, s.bot_level, s.connected, s.stand_in, s.player)
                for s in table.seats
            ]
        ),
        spectators,
        frozenset(table.rematch) if table.rematch else None,
        table.casual or table.solo,
        hints_allowed(table),
        table.move_deadline,
        table.on_deadline,
        tuple(table.missed),
        table.ended,
    )
