"""What reaches a table's referee: plain, frozen commands (invariant 8).

Every change to a table is one of these values, applied by ``Referee.apply(command, now)``:
the same value is applied locally, forwarded to the table's owner as bytes (``encode`` and
``decode``, by ``server.cluster``) and built directly by tests. A reader follows a command by
name from the socket (``server.connection``) to the ``match`` in the referee that judges it.

- ``Attach``: a connection joins (takes a seat) or watches through a link key (a watch that
  knows its ``last_event``, a spectator moved between processes, resumes from it by events).
- ``Resume``: a connection takes a seat back with its seat token.
- ``Detach``: the connection went away.
- ``Request``: one table request of a connection (sit, play, chat ...).
- ``Tick``: the clock: deadlines that passed.
- ``BotAnswer``: a bot's decision for a seat at an event (None: it declines).
- ``Reattach``: put live connections back after the table was rebuilt from the store.
- ``DealChica``: lay out a solo-ladder chica on a fresh two-seat table (R14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

import msgpack

from engine.actions import Action, action_from_json
from protocol import client_messages as c
from protocol.codec import decode_client
from protocol.codec import encode as encode_message
from server.store.base import KeyRole


@dataclass(frozen=True, slots=True)
class Ticket:
    """How one live connection sits at a table (to put it back after a rebuild)."""

    conn: str
    name: str
    key: str | None  # the link key it came through (a watch falls back to it)
    role: KeyRole
    token: str | None = None  # the seat token while it holds a seat
    last_event: int | None = None  # the last event number it was sent
    player: str | None = None  # the person's public id
    version: int = 3  # the protocol the connection speaks

    def command(self, rid: int = 0) -> Resume | Attach | None:
        """The one request that seats this connection again (None: nothing to rejoin with);
        ``rid`` is its request id (what its answer carries)."""
        if self.token is not None:
            return Resume(self.conn, self.name, self.token, self.last_event, rid, self.version)
        if self.key is not None:
            watch = c.Watch(key=self.key, rid=rid)
            return Attach(
                self.conn, self.name, watch, self.role, self.last_event, self.player, self.version
            )
        return None


@dataclass(frozen=True, slots=True)
class Attach:
    conn: str
    name: str
    request: c.Join | c.Watch
    role: KeyRole
    last_event: int | None = None  # a watch's: the last event it was sent (None: a newcomer)
    player: str | None = None  # the connection's person (public id): it may sit as them
    version: int = 3  # the protocol the connection speaks


@dataclass(frozen=True, slots=True)
class Resume:
    conn: str
    name: str
    token: str
    last_event: int | None
    rid: int
    version: int = 3  # the protocol the connection speaks


@dataclass(frozen=True, slots=True)
class Detach:
    conn: str


@dataclass(frozen=True, slots=True)
class Request:
    conn: str
    message: c.ClientMessage


@dataclass(frozen=True, slots=True)
class Tick:
    pass


@dataclass(frozen=True, slots=True)
class BotAnswer:
    seat: int
    at: int  # the event the bot saw: a later table ignores the answer
    action: Action | None


@dataclass(frozen=True, slots=True)
class Reattach:
    tickets: tuple[Ticket, ...]


@dataclass(frozen=True, slots=True)
class DealChica:
    name: str  # the person's name
    level: int  # the ladder bot's level


Command = Attach | Resume | Detach | Request | Tick | BotAnswer | Reattach | DealChica
ConnectionCommand = Attach | Resume | Detach | Request
"""The commands a connection makes: the only ones another process may forward to an owner."""


def encode(command: Command) -> bytes:
    """The command as one msgpack array: its kind, then its fields (client messages as their
    own wire encoding)."""
    fields: list[Any]
    match command:
        case Attach(conn, name, request, role, last_event, player, version):
            fields = [
                "attach",
                conn,
                name,
                encode_message(request),
                role,
                last_event,
                player,
                version,
            ]
        case Resume(conn, name, token, last_event, rid, version):
            fields = ["resume", conn, name, token, last_event, rid, version]
        case Detach(conn):
            fields = ["detach", conn]
        case Request(conn, message):
            fields = ["request", conn, encode_message(message)]
        case Tick():
            fields = ["tick"]
        case BotAnswer(seat, at, action):
            fields = ["bot", seat, at, None if action is None else action.to_json()]
        case Reattach(tickets):
            fields = ["reattach", [_ticket_fields(ticket) for ticket in tickets]]
        case DealChica(name, level):
            fields = ["deal_chica", name, level]
        case _:
            assert_never(command)
    data: bytes = msgpack.packb(fields, use_bin_type=True)
    return data


def decode(data: bytes) -> Command:
    """The command ``encode`` wrote; ``ValueError`` for anything else."""
    fields = msgpack.unpackb(data, raw=False)
    match fields:
        case ["attach", str(conn), str(name), bytes(request), str(role), last_event, player, *more]:
            message = decode_client(request)
            if not isinstance(message, c.Join | c.Watch):
                raise ValueError("an attach carries a join or a watch")
            if last_event is not None and not isinstance(last_event, int):
                raise ValueError("an attach's last event is a number")
            if player is not None and not isinstance(player, str):
                raise ValueError("an attach's player is a public id")
            return Attach(conn, name, message, _role(role), last_event, player, _version(more))
        case ["resume", str(conn), str(name), str(token), last_event, int(rid), *more]:
            return Resume(conn, name, token, last_event, rid, _version(more))
        case ["detach", str(conn)]:
            return Detach(conn)
        case ["request", str(conn), bytes(message)]:
            return Request(conn, decode_client(message))
        case ["tick"]:
            return Tick()
        case ["bot", int(seat), int(at), action]:
            return BotAnswer(seat, at, None if action is None else action_from_json(action))
        case ["reattach", list(tickets)]:
            return Reattach(tuple(_ticket(each) for each in tickets))
        case ["deal_chica", str(name), int(level)]:
            return DealChica(name, level)
    raise ValueError(f"not a command: {fields!r:.80}")


def _ticket_fields(ticket: Ticket) -> list[Any]:
    return [
        ticket.conn,
        ticket.name,
        ticket.key,
        ticket.role,
        ticket.token,
        ticket.last_event,
        ticket.player,
        ticket.version,
    ]


def _ticket(fields: list[Any]) -> Ticket:
    conn, name, key, role, token, last_event, player, *more = fields
    return Ticket(conn, name, key, _role(role), token, last_event, player, _version(more))


def _version(more: list[Any]) -> int:
    """The protocol version a command's trailing field names (a command written before
    protocol 4 has none: 3)."""
    match more:
        case []:
            return 3
        case [int(version)]:
            return version
    raise ValueError(f"not a protocol version: {more!r:.40}")


def _role(role: str) -> KeyRole:
    if role not in ("join", "watch", "host", "club"):
        raise ValueError(f"not a key role: {role!r}")
    return role  # type: ignore[return-value]
