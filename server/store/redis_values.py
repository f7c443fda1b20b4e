"""The small pieces of ``server.store.redis`` its subclasses share: turning a Redis failure
into ``StoreUnavailable``, awaiting redis-py's maybe-awaitable replies, and how snapshots and
records are packed."""

from __future__ import annotations

import contextlib
import inspect
import time
import zlib
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from redis.exceptions import RedisError

from server.store.base import StoreUnavailable

T = TypeVar("T")


@contextlib.asynccontextmanager
async def _unavailable_on_error(doing: str) -> AsyncIterator[None]:
    """Turn any Redis or socket failure into ``StoreUnavailable`` naming what was attempted."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"storage unavailable: could not {doing} ({exc})") from exc


async def _result(reply: Awaitable[T] | T) -> T:
    """Await a redis-py command: its stubs type the async client's replies as maybe-awaitable."""
    return await reply if inspect.isawaitable(reply) else reply


def _text(reply: object) -> str:
    """A reply as text (the client returns bytes; its stubs say str)."""
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _packed(data: bytes) -> bytes:
    """A snapshot or a record as stored: compressed (a zlib stream never starts with ``{``)."""
    return zlib.compress(data)


def _unpacked(stored: bytes) -> bytes:
    """A stored snapshot's or record's JSON (one written uncompressed, before, as it is)."""
    return stored if stored.startswith(b"{") or not stored else zlib.decompress(stored)


def _now_ms() -> int:
    return int(time.time() * 1000)
