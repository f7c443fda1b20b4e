"""The ladder in Redis, beside the tables: runs as versioned hashes, the board as a sorted set.

Keys (all under the tables' ``cuarenta`` prefix): ``cuarenta:ladder:run:<token>`` is a hash
``{version, run}`` (the run as JSON); ``cuarenta:{ladder}:board`` a sorted set of tokens by best
saved score; ``cuarenta:{ladder}:names`` a hash of the names shown. A save is one Lua script
(check the version, write), so two processes can never both deal a chica from one state. The
board and the names change in one transaction, so they share a hash tag: on a Redis Cluster
both live in one slot.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.ladder.rules import LadderRun
from server.ladder.store import BOARD_SIZE, BoardEntry, LadderConflict
from server.store.base import StoreUnavailable

PREFIX = "cuarenta:ladder"
BOARD_KEY = "cuarenta:{ladder}:board"
NAMES_KEY = "cuarenta:{ladder}:names"
RUN_TTL_S = 400 * 24 * 3600  # a ladder untouched for over a year is forgotten (the board stays)

_SAVE = """
local stored = redis.call('HGET', KEYS[1], 'version')
if (stored or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'run', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


def run_key(token: str) -> str:
    return f"{PREFIX}:run:{token}"


class RedisLadderStore:
    """``LadderStore`` on the Redis client the table store already holds."""

    def __init__(self, client: Redis) -> None:
        self.client = client
        self._save = client.register_script(_SAVE)

    async def load(self, token: str) -> LadderRun | None:
        try:
            stored: dict[Any, Any] = await self.client.hgetall(run_key(token))  # type: ignore[misc]
        except RedisError as exc:
            raise StoreUnavailable(f"ladder: Redis did not answer ({exc})") from None
        if not stored:
            return None
        fields = {_text(key): _text(value) for key, value in stored.items()}
        return LadderRun.from_json(json.loads(fields["run"]), version=int(fields["version"]))

    async def save(self, run: LadderRun) -> LadderRun:
        data = json.dumps(run.to_json(), separators=(",", ":"))
        try:
            done = await self._save(
                keys=[run_key(run.token)], args=[run.version, run.version + 1, data, RUN_TTL_S]
            )
        except RedisError as exc:
            raise StoreUnavailable(f"ladder: Redis did not answer ({exc})") from None
        if not done:
            raise LadderConflict(f"ladder run changed since version {run.version}")
        return LadderRun.from_json(run.to_json(), version=run.version + 1)

    async def offer_best(self, token: str, score: int, name: str | None) -> None:
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                if score > 0:
                    pipe.zadd(BOARD_KEY, {token: score}, gt=True)
                if name is None:
                    pipe.hdel(NAMES_KEY, token)
                else:
                    pipe.hset(NAMES_KEY, token, name)
                await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"ladder: Redis did not answer ({exc})") from None

    async def board(self, size: int = BOARD_SIZE) -> list[BoardEntry]:
        try:
            ranked = await self.client.zrange(BOARD_KEY, 0, size - 1, desc=True, withscores=True)
            tokens = [_text(token) for token, _ in ranked]
            names = await self.client.hmget(NAMES_KEY, tokens) if tokens else []  # type: ignore[misc]
        except RedisError as exc:
            raise StoreUnavailable(f"ladder: Redis did not answer ({exc})") from None
        return [
            BoardEntry(None if name is None else _text(name), int(score))
            for (_, score), name in zip(ranked, names, strict=True)
        ]

    async def close(self) -> None:
        return None  # the client belongs to the table store, which closes it


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
