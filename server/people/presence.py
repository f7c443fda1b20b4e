"""Who is online, and at which table: person (public id) -> their connections.

A friend list shows each friend's online state and the table they are at, and an invitation
reaches a friend's connections. Each connection of a person is one entry: the connection id,
the table it is at (or none) and when it lapses. An entry is refreshed on activity
(``seen``), removed when its connection closes (``gone``) and, should its process die
without saying so, lapses ``PRESENCE_TTL_S`` after its last refresh.

In memory that is a dict of this process. Beside a Redis table store it is one hash a person
(``cuarenta:online:{<id>}``: connection id -> ``<lapse ms> <process> <table>``), so every
process agrees and knows which process serves a connection; the hash itself lapses with its
newest entry.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.store.base import StoreUnavailable

PRESENCE_TTL_S = 90.0
"""How long a connection counts as online after its last sign of life."""


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """A person's live connections now: connection id -> the table it is at (None: none), and
    the process each one is served by (where it is known: beside Redis)."""

    conns: dict[str, str | None]
    processes: dict[str, str] = field(default_factory=dict)

    @property
    def online(self) -> bool:
        return bool(self.conns)

    @property
    def table(self) -> str | None:
        """A table one of their connections is at (the first found), else None."""
        return next((table for table in self.conns.values() if table), None)


class Presence(Protocol):
    async def seen(self, player_id: str, conn: str, table: str | None) -> None:
        """``conn`` of ``player_id`` is alive, at ``table``; it lapses ``ttl`` from now."""
        ...

    async def gone(self, player_id: str, conn: str) -> None: ...

    async def where(self, player_ids: Sequence[str]) -> dict[str, Whereabouts]: ...


class MemoryPresence:
    """This process's connections only."""

    def __init__(
        self, ttl_s: float = PRESENCE_TTL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._at: dict[str, dict[str, tuple[float, str | None]]] = {}

    async def seen(self, player_id: str, conn: str, table: str | None) -> None:
        self._at.setdefault(player_id, {})[conn] = (self._clock() + self.ttl_s, table)

    async def gone(self, player_id: str, conn: str) -> None:
        conns = self._at.get(player_id)
        if conns is not None:
            conns.pop(conn, None)
            if not conns:
                del self._at[player_id]

    async def where(self, player_ids: Sequence[str]) -> dict[str, Whereabouts]:
        now = self._clock()
        return {
            player_id: Whereabouts(
                {
                    conn: table
                    for conn, (lapse, table) in self._at.get(player_id, {}).items()
                    if lapse > now
                }
            )
            for player_id in player_ids
        }


def online_key(player_id: str) -> str:
    return f"cuarenta:online:{{{player_id}}}"


class RedisPresence:
    """Shared by every process of one Redis (or Redis Cluster: one slot a person)."""

    def __init__(self, client: Redis, process: str, ttl_s: float = PRESENCE_TTL_S) -> None:
        self.client = client
        self.process = process  # this process (``server.cluster``): where its conns are served
        self.ttl_s = ttl_s

    async def seen(self, player_id: str, conn: str, table: str | None) -> None:
        lapse_ms = int((time.time() + self.ttl_s) * 1000)
        key = online_key(player_id)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hset(key, conn, f"{lapse_ms} {self.process} {table or ''}")
                pipe.pexpire(key, int(self.ttl_s * 1000))
                await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"presence: {exc}") from exc

    async def gone(self, player_id: str, conn: str) -> None:
        try:
            await self.client.hdel(online_key(player_id), conn)  # type: ignore[misc]
        except RedisError as exc:
            raise StoreUnavailable(f"presence: {exc}") from exc

    async def where(self, player_ids: Sequence[str]) -> dict[str, Whereabouts]:
        now_ms = time.time() * 1000
        found = {}
        try:
            for player_id in player_ids:
                raw = await self.client.hgetall(online_key(player_id))  # type: ignore[misc]
                conns: dict[str, str | None] = {}
                processes: dict[str, str] = {}
                for conn, value in raw.items():
                    lapse, process, table = _text(value).split(" ", 2)
                    if float(lapse) > now_ms:
                        conns[_text(conn)] = table or None
                        processes[_text(conn)] = process
                found[player_id] = Whereabouts(conns, processes)
        except RedisError as exc:
            raise StoreUnavailable(f"presence: {exc}") from exc
        return found


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
