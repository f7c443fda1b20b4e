"""From a link to a session at the table: create, join, watch — with human error messages.

The terminal client, the wire bot and the tests all start here rather than wiring ``hello``,
``create``, ``join`` and ``watch`` by hand. Every failure a user can cause (a server that is
not there, a link no table has, a full table, a server speaking another protocol version) is
a `SessionError` whose text says what happened in plain words, ready for a one-line message.

::

    links = await create_table("http://127.0.0.1:8765")
    ana = await take_seat(links.join, "Ana")        # a ClientSession holding a seat
    eve = await watch_table(links.watch, "Eve")     # a spectator's session
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.links import TableLink, server_root, socket_url
from clients.session import DEFAULT_TIMEOUT_S, ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode

T = TypeVar("T")

#: friendlier words for the refusals a person meets when opening a link (the server's own
#: message follows them); codes not listed keep the server's message alone.
REFUSALS: Mapping[ErrorCode, str] = {
    ErrorCode.NOT_FOUND: "no table has this link (mistyped, or the table is gone)",
    ErrorCode.NO_FREE_SEAT: "the table is full",
    ErrorCode.SEAT_TAKEN: "that seat is taken",
    ErrorCode.TABLE_LOCKED: "the host has locked the table",
    ErrorCode.FORBIDDEN: "this link cannot do that",
    ErrorCode.VERSION_MISMATCH: "the server speaks another protocol version",
    ErrorCode.BAD_TOKEN: "the seat is no longer yours",
}


class TableRefused(SessionError):
    """The server refused to seat or show us; ``code`` is the wire's stable reason."""

    def __init__(self, code: ErrorCode, server_message: str) -> None:
        lead = REFUSALS.get(code)
        if lead is None or lead.startswith(server_message):  # said once, not "x (why): x"
            text = lead or server_message
        else:
            text = f"{lead}: {server_message}"
        super().__init__(text)
        self.code = code


class Unreachable(SessionError):
    """No table server answered at the address."""


@dataclass(frozen=True, slots=True)
class TableLinks:
    """A new table's links; the host link is the creator's secret."""

    table: str
    join: TableLink
    watch: TableLink
    host: TableLink


async def guarded(step: Awaitable[T], where: str) -> T:
    """Await ``step``, turning transport failures and refusals into plain-worded errors."""
    try:
        return await step
    except RequestRefused as exc:
        raise TableRefused(exc.code, exc.error.message) from None
    except TimeoutError:  # before OSError, its base class
        raise Unreachable(f"the server at {where} did not answer in time") from None
    except (OSError, InvalidHandshake, InvalidURI) as exc:
        raise Unreachable(f"no table server answers at {where} ({exc})") from None
    except ConnectionClosed as exc:
        raise SessionError(f"the server at {where} closed the connection ({exc})") from None


async def connect(
    server: str, name: str, *, wait_s: float = DEFAULT_TIMEOUT_S, **kwargs: Any
) -> ClientSession:
    """Open a session to ``server`` (http(s)://, ws(s)://, or a link's server)."""
    root = server_root(server)
    return await guarded(
        ClientSession.connect(socket_url(root), name, wait_s=wait_s, **kwargs), root
    )


async def create_table(
    server: str,
    name: str = "host",
    *,
    profile: str = "pagat-4p",
    options: Mapping[str, str | int | bool] | None = None,
    turn_timer: int = 0,
) -> TableLinks:
    """Create a table and return its links (``TableRefused`` for bad options, R13)."""
    root = server_root(server)
    async with await connect(root, name) as session:
        request = c.CreateTable.model_validate(
            {"profile": profile, "options": dict(options or {}), "turn_timer": turn_timer}
        )
        created = await guarded(session.request(request), root)
    if not isinstance(created, s.TableCreated):
        raise SessionError(f"the server answered create with {created.type!r}")
    return TableLinks(
        created.table,
        TableLink.of(root, created.join_key),
        TableLink.of(root, created.watch_key),
        TableLink.of(root, created.host_key),
    )


async def take_seat(
    link: TableLink, name: str, seat: int | None = None, **kwargs: Any
) -> ClientSession:
    """Connect and sit down through ``link`` (join or host key); the session holds the token."""
    session = await connect(link.server, name, **kwargs)
    try:
        await guarded(session.request(c.Join(key=link.key, seat=seat)), link.server)
    except BaseException:
        await session.close()
        raise
    return session


async def watch_table(link: TableLink, name: str, **kwargs: Any) -> ClientSession:
    """Connect and look on through ``link`` (any of the table's keys): public information only."""
    session = await connect(link.server, name, **kwargs)
    try:
        await guarded(session.request(c.Watch(key=link.key)), link.server)
    except BaseException:
        await session.close()
        raise
    return session


async def resume_seat(
    server: str, token: str, name: str, last_event: int | None, **kwargs: Any
) -> ClientSession:
    """Take a seat back with its token, receiving exactly the events after ``last_event``."""
    return await connect(server, name, resume=token, last_event=last_event, **kwargs)


async def first_snapshot(session: ClientSession, wait_s: float = DEFAULT_TIMEOUT_S) -> s.Snapshot:
    """The snapshot the server sends on arrival (already received, or the next one)."""
    if session.snapshot is not None:
        return session.snapshot
    return await session.next_snapshot(wait_s=wait_s)
