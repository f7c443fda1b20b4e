"""The live processes and where each table belongs: rendezvous hashing over them.

Every process registers in one Redis sorted set, ``cuarenta:members``: the member is its address
as the proxy dials it and its process id, the score the time its registration lapses (renewed by
a heartbeat every third of the lease time). Each process reads the live set at each heartbeat.

A table's **place** is the live process whose address scores highest for it (rendezvous, or
highest-random-weight, hashing): ``fnv32a(table id + address)``. It is the function Caddy's
``header`` load-balancing policy applies to the same addresses (``deploy/Caddyfile`` hashes the
``t`` query parameter copied into a header), so the proxy sends a table's sockets to the process
that owns its lease, and a relay is needed only while the membership changes. When a process
joins or leaves, only the tables placed on it move (one in N), never the others.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

import structlog

from server.store.base import StoreError

log = structlog.get_logger("server.cluster")

MEMBERS_KEY = "cuarenta:members"
FNV_OFFSET, FNV_PRIME = 0x811C9DC5, 0x01000193


def fnv32a(text: str) -> int:
    """FNV-1a, 32 bits: the hash Caddy's hashing load-balancing policies use."""
    value = FNV_OFFSET
    for byte in text.encode():
        value = ((value ^ byte) * FNV_PRIME) & 0xFFFFFFFF
    return value


def place(table_id: str, addresses: Iterable[str]) -> str | None:
    """The address a table belongs on among ``addresses`` (None if there are none)."""
    best, best_score = None, -1
    for address in sorted(addresses):
        score = fnv32a(table_id + address)
        if score > best_score:
            best, best_score = address, score
    return best


class Membership:
    """This process's registration, and its view of the live processes (address -> id)."""

    def __init__(
        self, client: Any, address: str, process: str, ttl_s: float, hashed: bool = True
    ) -> None:
        self.client = client
        #: placing by the hash; if not, every table's place is the first process to open it
        self.hashed = hashed
        self.address = address
        self.process = process
        self.ttl_s = ttl_s
        self.live: dict[str, str] = {address: process}
        #: processes found gone (a relay nobody received) -> when: placed nowhere for one
        #: registration time (a dead one's registration lapses meanwhile)
        self.suspects: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def entry(self) -> str:
        return f"{self.address} {self.process}"

    async def start(self) -> None:
        await self.beat()
        self._task = asyncio.create_task(self._heartbeat(), name="membership")

    async def close(self) -> None:
        """Leave at once: the proxy's and the peers' placements move on without waiting."""
        if self._task is None:
            return  # never joined, or already left
        self._task.cancel()
        self._task = None
        try:
            await self.client.zrem(MEMBERS_KEY, self.entry)
        except Exception as exc:  # it lapses by itself
            log.warning("leaving the membership failed", error=str(exc))

    async def beat(self) -> None:
        """Renew this registration, drop lapsed ones, and read the live set: one round trip."""
        now = time.time()
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(MEMBERS_KEY, {self.entry: now + self.ttl_s})
            pipe.zremrangebyscore(MEMBERS_KEY, "-inf", now)
            pipe.zrangebyscore(MEMBERS_KEY, now, "+inf")
            *_, entries = await pipe.execute()
        live: dict[str, str] = {}
        for entry in entries:
            text = entry.decode() if isinstance(entry, bytes) else str(entry)
            address, _, process = text.partition(" ")
            live[address] = process
        live[self.address] = self.process
        if set(live.values()) != set(self.live.values()):
            log.info("membership changed", processes=sorted(live))
        self.live = live
        self.suspects = {p: at for p, at in self.suspects.items() if at > now - self.ttl_s}

    def suspect(self, process: str) -> None:
        """Nobody received a relay sent to ``process``: place nothing on it for a while."""
        if process != self.process:
            self.suspects[process] = time.time()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.ttl_s / 3)  # a heartbeat period, not a synchronisation
            try:
                await self.beat()
            except (StoreError, OSError, ConnectionError) as exc:
                log.warning("membership heartbeat failed", error=str(exc))
            except Exception:
                log.exception("membership heartbeat failed")

    def owner_of(self, table_id: str) -> str:
        """The process id a table belongs on (this one if it is alone, or not hashing)."""
        if not self.hashed:
            return self.process
        usable = {a: p for a, p in self.live.items() if p not in self.suspects}
        address = place(table_id, usable)
        return self.process if address is None else usable[address]

    def placed_here(self, table_id: str) -> bool:
        return self.owner_of(table_id) == self.process
