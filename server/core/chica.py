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
from typing import TYPE_CHECKING

from protocol import client_messages as c
from server.core.commands import Attach, Command, Request
from server.core.outcome import Outcome, ReservedSeat

if TYPE_CHECKING:
    from server.core.referee import Referee

PERSON_SEAT = 0
BOT_SEAT = 1


def deal_chica(referee: Referee, name: str, level: int, now: float) -> Outcome:
    """Seat the bot and the person, start the game (the ``DealChica`` command); the outcome
    is the table's log to commit, and ``reserved`` the person's seat and its token.

    Raises ``Refused`` (nothing changed on the table) if the table is not a fresh two-seat one.
    """
    host = f"ladder-{secrets.token_hex(6)}"  # a connection id that no socket will ever have
    out = Outcome()
    steps: tuple[Command, ...] = (
        Attach(host, name, c.Watch(key=referee.keys["host"]), "host"),
        Request(host, c.AddBot(level=level, seat=BOT_SEAT)),
        Request(host, c.Sit(seat=PERSON_SEAT)),
        Request(host, c.Start()),
    )
    for step in steps:
        out.merge(referee.apply(step, now))
    referee.table.solo = True  # from now on the game waits for its person (invariant 5)
    seat = referee.seats[PERSON_SEAT]
    token = seat.token
    assert token is not None, "the person's seat holds a token once seated"
    seat.host = False  # sat down through the ladder's host key, but only the ladder hosts
    # Unplug the ladder's connection without a stand-in: the seat now waits for its person.
    referee.viewers.pop(host, None)
    seat.conn = None
    out.messages = [(conn, message) for conn, message in out.messages if conn != host]
    out.dirty = True
    out.reserved = ReservedSeat(PERSON_SEAT, token)
    return out
