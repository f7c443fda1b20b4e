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
from collections.abc import Callable
from dataclasses import dataclass

from protocol import client_messages as c
from server.referee import Outcome, Referee

PERSON_SEAT = 0
BOT_SEAT = 1


@dataclass(frozen=True, slots=True)
class Dealt:
    """What the ladder keeps of the new table: the person's seat token."""

    seat: int
    seat_token: str


def deal_chica(referee: Referee, name: str, level: int, now: float) -> tuple[Outcome, Dealt]:
    """Seat the bot and the person, start the game; the outcome is the table's log to commit.

    Raises ``Refused`` (nothing changed on the table) if the table is not a fresh two-seat one.
    """
    host = f"ladder-{secrets.token_hex(6)}"  # a connection id that no socket will ever have
    out = Outcome()
    steps: tuple[Callable[[], Outcome], ...] = (
        lambda: referee.attach(host, name, c.Watch(key=referee.keys["host"]), "host", now),
        lambda: referee.handle(host, c.AddBot(level=level, seat=BOT_SEAT), now),
        lambda: referee.handle(host, c.Sit(seat=PERSON_SEAT), now),
        lambda: referee.handle(host, c.Start(), now),
    )
    for step in steps:
        _merge(out, step())
    referee.solo = True  # from now on the game waits for its person (invariant 5's exception)
    seat = referee.seats[PERSON_SEAT]
    token = seat.token
    assert token is not None, "the person's seat holds a token once seated"
    seat.host = False  # sat down through the ladder's host key, but only the ladder hosts
    # Unplug the ladder's connection without a stand-in: the seat now waits for its person.
    referee.viewers.pop(host, None)
    seat.conn = None
    out.messages = [(conn, message) for conn, message in out.messages if conn != host]
    out.dirty = True
    return out, Dealt(PERSON_SEAT, token)


def _merge(into: Outcome, part: Outcome) -> None:
    into.entries += part.entries
    into.messages += part.messages
    into.detached += part.detached
    into.dirty = into.dirty or part.dirty
