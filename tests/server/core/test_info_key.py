"""The table info's raw key (``server.core.info_key``) sees every change the info shows.

A change whose info is unchanged leaves the info out of every viewer's frame, and the info is
compared by its key: a key that missed a field would leave viewers with a stale lock, seat or
rematch list. Each field of ``TableInfo`` (and of each ``SeatInfo``) is changed on its own,
including the ones the table changes in place, and the info must be packed again.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocol import client_messages as c
from protocol import server_messages as s
from protocol.frames import pack
from server.config import Settings
from server.core.info_key import FIELDS, info_key
from server.core.referee import Referee
from server.core.table import Table
from tests.server.core.drive import attach, handle

T0 = 1_000_000.0

Change = Callable[[Table], object]


def seated() -> Referee:
    ref = Referee.create(
        "pagat-4p", {}, 0, Settings(bot_delay_s=0.0).referee_config(), seeds=lambda: 5
    )
    attach(ref, "p0", "P0", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    for seat in range(1, 4):
        attach(
            ref, f"p{seat}", f"P{seat}", c.Join(key=ref.table.keys["join"], seat=seat), "join", T0
        )
    attach(ref, "w1", "W1", c.Watch(key=ref.table.keys["watch"]), "watch", T0)
    handle(ref, "p0", c.Start(), T0)
    ref.table.casual = True  # hints are given at a casual table: the host's switch shows
    return ref


#: one change per ``TableInfo`` field
CHANGES: dict[str, Change] = {
    "table": lambda t: setattr(t, "table_id", "another"),
    "profile": lambda t: setattr(t, "profile", "heads-up"),
    "options": lambda t: setattr(t, "options", {**t.options, "special_claims": "off"}),
    "turn_timer": lambda t: setattr(t, "turn_timer", 60),
    "locked": lambda t: setattr(t, "locked", not t.locked),
    "stage": lambda t: setattr(t, "stage", "finished"),
    "game": lambda t: setattr(t, "game_no", t.game_no + 1),
    "seats": lambda t: setattr(t.seats[2], "name", "Someone else"),
    "spectators": lambda t: t.viewers.pop("w1"),
    "rematch_asked": lambda t: t.rematch.add(1),  # in place
    "casual": lambda t: setattr(t, "casual", not t.casual),
    "hints": lambda t: setattr(t, "hints", not t.hints),
    "move_deadline": lambda t: setattr(t, "move_deadline", 3600),
    "on_deadline": lambda t: setattr(t, "on_deadline", "forfeit"),
    "missed": lambda t: t.missed.__setitem__(1, t.missed[1] + 1),  # in place
    "ended": lambda t: setattr(t, "ended", {"by": "forfeit", "team": 0}),
}

#: one change per ``SeatInfo`` field but its number
SEAT_CHANGES: dict[str, Change] = {
    "occupant": lambda t: setattr(t.seats[1], "occupant", "bot"),
    "name": lambda t: setattr(t.seats[1], "name", "Other"),
    "bot_level": lambda t: setattr(t.seats[1], "bot_level", "hard"),
    "connected": lambda t: setattr(t.seats[1], "conn", None),
    "stand_in": lambda t: setattr(t.seats[1], "stand_in", not t.seats[1].stand_in),
    "player": lambda t: setattr(t.seats[1], "player", "pl-someone"),
}


def test_the_key_holds_every_field_of_the_table_info_in_order() -> None:
    ref = seated()
    assert tuple(s.TableInfo.model_fields) == FIELDS
    assert tuple(ref.publisher.info_fields()) == FIELDS
    assert len(info_key(ref.table, 1)) == len(FIELDS)
    assert set(CHANGES) == set(FIELDS)
    assert set(SEAT_CHANGES) == set(s.SeatInfo.model_fields) - {"seat"}


@pytest.mark.parametrize(
    "change", [*CHANGES.values(), *SEAT_CHANGES.values()], ids=[*CHANGES, *SEAT_CHANGES]
)
def test_a_change_of_any_info_field_packs_the_info_again(change: Change) -> None:
    ref = seated()
    publisher, table = ref.publisher, ref.table
    before = publisher.packed_info()
    fields_before = publisher.info_fields()
    change(table)
    assert publisher.info_fields() != fields_before  # a change the info shows
    after = publisher.packed_info()
    assert after != before
    assert after == pack(publisher.info_fields())


def test_an_unchanged_table_keeps_the_same_packed_info_object() -> None:
    ref = seated()
    first = ref.publisher.packed_info()
    assert ref.publisher.packed_info() is first
