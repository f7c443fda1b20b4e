"""The invitations a person has not answered yet: person (public id) -> {table, by, at}.

A friend who is away when invited is pushed a notice that carries no key (it leaves the
server); the page it opens (``/me?invite=<table>``) asks for the person's pending invitations
over their own socket, and only then are the tables' join keys sent, to that person only.
So the invitations are kept here, by table and inviter (never a key): at most
``MAX_INVITATIONS`` a person (the newest), each for ``INVITATION_TTL_S``; a second invitation
to the same table by the same friend replaces the first.

In memory that is a dict of this process. Beside a Redis table store it is one sorted set a
person (``cuarenta:invites:{<id>}``: ``<table> <inviter>`` scored by when, in epoch seconds),
lapsing with its newest entry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.store.base import StoreUnavailable

MAX_INVITATIONS = 20  # pending invitations a person keeps (the oldest go first)
INVITATION_TTL_S = 3 * 24 * 3600.0


@dataclass(frozen=True, slots=True)
class Invitation:
    """``by`` (a public id) invited the person to ``table`` at ``at`` (epoch seconds)."""

    table: str
    by: str
    at: float


class Invitations(Protocol):
    async def add(self, player_id: str, invitation: Invitation) -> None: ...

    async def pending(self, player_id: str) -> list[Invitation]:
        """The person's invitations not yet lapsed, the newest first."""
        ...

    async def drop(self, player_id: str, table: str) -> None:
        """Forget the person's invitations to ``table`` (they sat, or said no)."""
        ...


class MemoryInvitations:
    """This process's invitations only."""

    def __init__(
        self, ttl_s: float = INVITATION_TTL_S, clock: Callable[[], float] = time.time
    ) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._of: dict[str, dict[tuple[str, str], float]] = {}

    async def add(self, player_id: str, invitation: Invitation) -> None:
        kept = self._of.setdefault(player_id, {})
        kept.pop((invitation.table, invitation.by), None)
        kept[(invitation.table, invitation.by)] = invitation.at
        while len(kept) > MAX_INVITATIONS:
            kept.pop(min(kept, key=kept.__getitem__))

    async def pending(self, player_id: str) -> list[Invitation]:
        since = self._clock() - self.ttl_s
        kept = self._of.get(player_id, {})
        for pair in [pair for pair, at in kept.items() if at <= since]:
            del kept[pair]
        found = [Invitation(table, by, at) for (table, by), at in kept.items()]
        return sorted(found, key=lambda invitation: -invitation.at)

    async def drop(self, player_id: str, table: str) -> None:
        kept = self._of.get(player_id, {})
        for pair in [pair for pair in kept if pair[0] == table]:
            del kept[pair]


def invites_key(player_id: str) -> str:
    return f"cuarenta:invites:{{{player_id}}}"


class RedisInvitations:
    """Shared by every process of one Redis (or Redis Cluster: one slot a person)."""

    def __init__(
        self, client: Redis, ttl_s: float = INVITATION_TTL_S, clock: Callable[[], float] = time.time
    ) -> None:
        self.client = client
        self.ttl_s = ttl_s
        self._clock = clock

    async def add(self, player_id: str, invitation: Invitation) -> None:
        key = invites_key(player_id)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.zadd(key, {f"{invitation.table} {invitation.by}": invitation.at})
                pipe.zremrangebyrank(key, 0, -MAX_INVITATIONS - 1)
                pipe.expire(key, int(self.ttl_s))
                await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"invitations: {exc}") from exc

    async def pending(self, player_id: str) -> list[Invitation]:
        key, since = invites_key(player_id), self._clock() - self.ttl_s
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(key, "-inf", since)
                pipe.zrevrange(key, 0, -1, withscores=True)
                _, raw = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"invitations: {exc}") from exc
        found = []
        for member, at in raw:
            table, by = _text(member).split(" ", 1)
            found.append(Invitation(table, by, float(at)))
        return found

    async def drop(self, player_id: str, table: str) -> None:
        key = invites_key(player_id)
        try:
            members = await self.client.zrange(key, 0, -1)
            gone = [member for member in members if _text(member).split(" ", 1)[0] == table]
            if gone:
                await self.client.zrem(key, *gone)
        except RedisError as exc:
            raise StoreUnavailable(f"invitations: {exc}") from exc


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
