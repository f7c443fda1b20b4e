"""Put live connections back at a table whose referee was just rebuilt from the store.

A referee is rebuilt in two situations: this process took a table over from a crashed or
departing owner (its connections were relayed until then), or a commit failed and the table was
reloaded (a Redis outage: memory may be ahead of the store and is thrown away). Either way the
stored state knows seats and tokens but not who is connected; a ``Ticket`` says how each live
connection sat at the table, and ``reattach`` replays it as a seat-token resume (a player) or a
watch (a spectator), so nobody has to reconnect and nobody sees an event twice (invariant 2).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.errors import Refused
from server.referee import Outcome, Referee
from server.store.base import KeyRole


@dataclass(frozen=True, slots=True)
class Ticket:
    """How one live connection sits at a table."""

    conn: str
    name: str
    key: str | None  # the link key it came through (a watch falls back to it)
    role: KeyRole
    token: str | None = None  # the seat token while it holds a seat
    last_event: int | None = None  # the last event number it was sent


def tickets_of(referee: Referee, live: set[str], last_event: int | None = None) -> list[Ticket]:
    """Tickets of the referee's viewers whose connections are in ``live``.

    ``last_event`` is what they have all been sent (the stored log's end, after a reload):
    each resume then also replays the events the resumes before it published.
    """
    tickets = []
    for viewer in referee.viewers.values():
        if viewer.conn not in live:
            continue
        role: KeyRole = "host" if viewer.host else "join" if viewer.can_sit else "watch"
        token = referee.seats[viewer.seat].token if viewer.seat is not None else None
        tickets.append(Ticket(viewer.conn, viewer.name, referee.keys.get(role), role, token,
                              last_event))
    return tickets


def reattach(referee: Referee, tickets: list[Ticket], now: float) -> Outcome:
    """Resume every ticket's seat (or watch) on ``referee``; one merged outcome to commit."""
    merged = Outcome()
    for ticket in tickets:
        try:
            part = _attach_one(referee, ticket, now)
        except Refused:
            merged.to(ticket.conn, s.Goodbye(reason="the table moved to another server: "
                                                    "join it again with its link"))
            merged.detached.append(ticket.conn)
            continue
        merged.entries.extend(part.entries)
        merged.messages.extend(part.messages)
        merged.detached.extend(part.detached)
        merged.dirty = merged.dirty or part.dirty
    return merged


def _attach_one(referee: Referee, ticket: Ticket, now: float) -> Outcome:
    if ticket.token is not None:
        try:
            return referee.resume(ticket.conn, ticket.name, ticket.token, ticket.last_event, 0, now)
        except Refused:
            if ticket.key is None:
                raise  # the seat is gone (stood up, kicked) and there is no link to watch by
    if ticket.key is None:
        raise Refused(ErrorCode.NOT_AT_TABLE, "no link to rejoin the table with")
    return referee.attach(ticket.conn, ticket.name, c.Watch(key=ticket.key), ticket.role, now)
