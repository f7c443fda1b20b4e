"""Lay out one ladder chica on a fresh ``heads-up`` table (R14): a bot, a reserved seat, dealt.

The table is an ordinary two-seat table, built through the referee's own requests so it logs
and stores exactly what any table does: the ladder, as a host that never sits, seats the bot of
the ladder's level in seat 1, reserves seat 0 for the person (a seat token, no connection yet)
and starts the game. The table is marked *solo* (ARCHITECTURE invariant 5's exception): its
person has nobody to keep waiting, so the game waits for them — no stand-in ever plays for them,
no turn clock runs, the seat never opens to anyone else — and a seat token resumes it at any
time, also after a restart. The person does not hold the host's rights: the ladder is the host.
"""

from __future__ import annotations

import secrets

from protocol import client_messages as c
from server.core.commands import Attach, Command, Request
from server.core.outcome import Outcome, ReservedSeat
from server.core.table import Table

PERSON_SEAT = 0
BOT_SEAT = 1


def layout(table: Table, name: str, level: int) -> tuple[str, tuple[Command, ...]]:
    """The ladder's connection id (one no socket will ever have) and the requests it makes:
    watch as the host, seat the bot, sit the person down, start (``Referee.apply`` runs them;
    one refused raises ``Refused``, and the table is not a fresh two-seat one)."""
    host = f"ladder-{secrets.token_hex(6)}"
    return host, (
        Attach(host, name, c.Watch(key=table.keys["host"]), "host"),
        Request(host, c.AddBot(level=level, seat=BOT_SEAT)),
        Request(host, c.Sit(seat=PERSON_SEAT)),
        Request(host, c.Start()),
    )


def reserve(table: Table, host: str, out: Outcome) -> None:
    """After the layout: the table waits for its person (solo), who is not its host; the
    ladder's connection is unplugged without a stand-in; ``out.reserved`` names the seat."""
    table.solo = True  # from now on the game waits for its person (invariant 5's exception)
    seat = table.seats[PERSON_SEAT]
    token = seat.token
    assert token is not None, "the person's seat holds a token once seated"
    seat.host = False  # sat down through the ladder's host key, but only the ladder hosts
    table.viewers.pop(host, None)
    seat.conn = None
    out.messages = [(conn, message) for conn, message in out.messages if conn != host]
    out.dirty = True
    out.reserved = ReservedSeat(PERSON_SEAT, token)
