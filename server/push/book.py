"""Each person's push subscriptions and notice settings, and the notices already sent.

Layout beside a Redis table store (data format 1)::

    cuarenta:push:{<player>}:subs   hash    endpoint -> subscription (JSON: endpoint, p256dh, auth)
    cuarenta:push:{<player>}:prefs  string  notice settings (JSON: off, quiet_from, quiet_to,
                                            time_zone)
    cuarenta:push:sent:<key>        string  "1" while a notice of that key counts as sent
                                            (``SET NX`` with ``SENT_TTL_S``: one push per event
                                            and person, whichever process saw it)
    cuarenta:push:vapid             string  the server's VAPID private key (PEM), made once
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from redis.exceptions import RedisError

from server.store.base import Store, StoreUnavailable

MAX_SUBSCRIPTIONS = 10  # devices a person may have subscribed (the oldest go first)
SENT_TTL_S = 4 * 24 * 3600  # longer than the longest move deadline
VAPID_KEY = "cuarenta:push:vapid"


@dataclass(frozen=True, slots=True)
class Prefs:
    """Which notice kinds are off, and the quiet hours (minutes after midnight) in a zone."""

    off: tuple[str, ...] = ()
    quiet_from: int | None = None
    quiet_to: int | None = None
    time_zone: str = "UTC"

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "off": list(self.off),
                "quiet_from": self.quiet_from,
                "quiet_to": self.quiet_to,
                "time_zone": self.time_zone,
            }
        )

    @classmethod
    def from_json(cls, data: bytes | None) -> Prefs:
        if data is None:
            return cls()
        fields: dict[str, Any] = orjson.loads(data)
        return cls(
            tuple(fields["off"]), fields["quiet_from"], fields["quiet_to"], fields["time_zone"]
        )


def subs_key(player: str) -> str:
    return f"cuarenta:push:{{{player}}}:subs"


def prefs_key(player: str) -> str:
    return f"cuarenta:push:{{{player}}}:prefs"


class PushBook(Protocol):
    async def add(self, player: str, endpoint: str, subscription: bytes) -> None: ...
    async def remove(self, player: str, endpoint: str) -> None: ...
    async def subscriptions(self, player: str) -> list[bytes]: ...
    async def prefs(self, player: str) -> Prefs: ...
    async def set_prefs(self, player: str, prefs: Prefs) -> None: ...
    async def first_time(self, key: str) -> bool:
        """True once per notice key (the first caller, in any process, sends it)."""
        ...

    async def vapid_pem(self, made: bytes) -> bytes:
        """The kept VAPID private key; ``made`` is kept if there was none yet."""
        ...


@dataclass
class MemoryBook:
    """One process's book (the memory store)."""

    subs: dict[str, dict[str, bytes]] = field(default_factory=dict)
    settings: dict[str, Prefs] = field(default_factory=dict)
    sent: set[str] = field(default_factory=set)
    pem: bytes | None = None

    async def add(self, player: str, endpoint: str, subscription: bytes) -> None:
        kept = self.subs.setdefault(player, {})
        kept.pop(endpoint, None)
        kept[endpoint] = subscription
        while len(kept) > MAX_SUBSCRIPTIONS:
            kept.pop(next(iter(kept)))

    async def remove(self, player: str, endpoint: str) -> None:
        self.subs.get(player, {}).pop(endpoint, None)

    async def subscriptions(self, player: str) -> list[bytes]:
        return list(self.subs.get(player, {}).values())

    async def prefs(self, player: str) -> Prefs:
        return self.settings.get(player, Prefs())

    async def set_prefs(self, player: str, prefs: Prefs) -> None:
        self.settings[player] = prefs

    async def first_time(self, key: str) -> bool:
        if key in self.sent:
            return False
        self.sent.add(key)
        return True

    async def vapid_pem(self, made: bytes) -> bytes:
        self.pem = self.pem or made
        return self.pem


class RedisBook:
    """The book in Redis, shared by every process."""

    def __init__(self, client: Any) -> None:  # redis-py's stubs type async calls as sync too
        self.client = client

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await getattr(self.client, name)(*args, **kwargs)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"storage unavailable: {exc}") from exc

    async def add(self, player: str, endpoint: str, subscription: bytes) -> None:
        key = subs_key(player)
        await self._call("hset", key, endpoint, subscription)
        kept = await self._call("hkeys", key)
        if len(kept) > MAX_SUBSCRIPTIONS:  # a person with many devices: drop the extra
            extra = [name for name in kept if name != endpoint.encode()]
            await self._call("hdel", key, *extra[: len(kept) - MAX_SUBSCRIPTIONS])

    async def remove(self, player: str, endpoint: str) -> None:
        await self._call("hdel", subs_key(player), endpoint)

    async def subscriptions(self, player: str) -> list[bytes]:
        return list(await self._call("hvals", subs_key(player)))

    async def prefs(self, player: str) -> Prefs:
        return Prefs.from_json(await self._call("get", prefs_key(player)))

    async def set_prefs(self, player: str, prefs: Prefs) -> None:
        await self._call("set", prefs_key(player), prefs.to_json())

    async def first_time(self, key: str) -> bool:
        return bool(await self._call("set", f"cuarenta:push:sent:{key}", 1, nx=True, ex=SENT_TTL_S))

    async def vapid_pem(self, made: bytes) -> bytes:
        await self._call("set", VAPID_KEY, made, nx=True)
        kept: bytes = await self._call("get", VAPID_KEY)
        return kept


def book_for(store: Store) -> PushBook:
    client = getattr(store, "client", None)
    return MemoryBook() if client is None else RedisBook(client)
