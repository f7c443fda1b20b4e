"""Where turn-based tables wait between moves: their next due time and each one's card.

A waiting table is in no process's memory (the lobby unloads it), so what must outlive that
lives here, where every process sees it: the table's **due time** (when its clocks next have
something to do: a deadline, a reminder) in one sorted set that ``server.waiting.watch`` scans,
and its **card** (``server.waiting.card``: what ``/me`` shows of it) under each of its people,
also read by the table's id (a club night's page shows its round's tables from it).

Layout beside a Redis table store (data format 1)::

    cuarenta:{waiting}:due          sorted set  table id -> due time (epoch seconds)
    cuarenta:{waiting}:cards        hash        table id -> card (JSON)
    cuarenta:{waiting}:of:<player>  set         the table ids whose card names the person

The owner of a table writes its entry after each commit that changed it (``put``), so a crash
between the commit and the write leaves the previous entry: an earlier due time, which makes
the watch load the table, whose room writes the right one. Nothing is ever lost that way, only
a table loaded for nothing once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from redis.exceptions import RedisError

from server.store.base import Store, StoreUnavailable

DUE_KEY = "cuarenta:{waiting}:due"
CARDS_KEY = "cuarenta:{waiting}:cards"


def of_key(player: str) -> str:
    return f"cuarenta:{{waiting}}:of:{player}"


def players_of(card: bytes | None) -> set[str]:
    return set() if card is None else set(orjson.loads(card)["players"])


class WaitingBoard(Protocol):
    """The waiting tables' due times and cards (one process's, or Redis for all)."""

    async def put(self, table_id: str, card: bytes | None, due: float | None) -> None:
        """Keep the table's card (None: forget it) and its due time (None: nothing due)."""
        ...

    async def due(self, now: float, limit: int) -> list[str]:
        """Up to ``limit`` tables whose due time is ``now`` or earlier, the most overdue first."""
        ...

    async def cards_of(self, player: str) -> list[bytes]:
        """The cards of the tables the person sits at."""
        ...

    async def card(self, table_id: str) -> bytes | None:
        """The table's card (None: none kept), for a page that shows the table unloaded."""
        ...

    async def count(self) -> int:
        """How many tables have a due time (for the figures)."""
        ...


@dataclass
class MemoryWaiting:
    """The board of a single process (the memory store)."""

    due_at: dict[str, float] = field(default_factory=dict)
    cards: dict[str, bytes] = field(default_factory=dict)
    of: dict[str, set[str]] = field(default_factory=dict)

    async def put(self, table_id: str, card: bytes | None, due: float | None) -> None:
        old, new = players_of(self.cards.get(table_id)), players_of(card)
        for player in old - new:
            self.of.get(player, set()).discard(table_id)
        for player in new:
            self.of.setdefault(player, set()).add(table_id)
        if card is None:
            self.cards.pop(table_id, None)
        else:
            self.cards[table_id] = card
        if due is None:
            self.due_at.pop(table_id, None)
        else:
            self.due_at[table_id] = due

    async def due(self, now: float, limit: int) -> list[str]:
        passed = sorted((at, table_id) for table_id, at in self.due_at.items() if at <= now)
        return [table_id for _, table_id in passed[:limit]]

    async def cards_of(self, player: str) -> list[bytes]:
        ids = self.of.get(player, set())
        return [self.cards[table_id] for table_id in sorted(ids) if table_id in self.cards]

    async def card(self, table_id: str) -> bytes | None:
        return self.cards.get(table_id)

    async def count(self) -> int:
        return len(self.due_at)


class RedisWaiting:
    """The board in Redis, shared by every process of a deployment."""

    def __init__(self, client: Any) -> None:  # redis-py's stubs type async calls as sync too
        self.client = client

    async def put(self, table_id: str, card: bytes | None, due: float | None) -> None:
        try:
            old = players_of(await self.client.hget(CARDS_KEY, table_id))
            new = players_of(card)
            async with self.client.pipeline(transaction=True) as pipe:
                for player in old - new:
                    pipe.srem(of_key(player), table_id)
                for player in new:
                    pipe.sadd(of_key(player), table_id)
                if card is None:
                    pipe.hdel(CARDS_KEY, table_id)
                else:
                    pipe.hset(CARDS_KEY, table_id, card)
                if due is None:
                    pipe.zrem(DUE_KEY, table_id)
                else:
                    pipe.zadd(DUE_KEY, {table_id: due})
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc

    async def due(self, now: float, limit: int) -> list[str]:
        try:
            found = await self.client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc
        return [each.decode() if isinstance(each, bytes) else str(each) for each in found]

    async def cards_of(self, player: str) -> list[bytes]:
        try:
            ids: Sequence[bytes] = sorted(await self.client.smembers(of_key(player)))
            if not ids:
                return []
            cards = await self.client.hmget(CARDS_KEY, list(ids))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc
        return [card for card in cards if card is not None]

    async def card(self, table_id: str) -> bytes | None:
        try:
            found: bytes | None = await self.client.hget(CARDS_KEY, table_id)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc
        return found

    async def count(self) -> int:
        try:
            return int(await self.client.zcard(DUE_KEY))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc


def waiting_for(store: Store) -> WaitingBoard:
    """A Redis store's shared board, else one for this process."""
    client = getattr(store, "client", None)
    return MemoryWaiting() if client is None else RedisWaiting(client)
