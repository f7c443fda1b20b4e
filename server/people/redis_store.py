"""``RedisPlayerStore``: players beside the tables, in the same Redis (or Redis Cluster).

Layout. A person's keys share the hash tag of their public id, so a Cluster keeps them in one
slot and every script below touches one slot only::

    cuarenta:player:{<id>}:p        hash  key (digest), name, lang, first, last,
                                          mu:<class>, sigma:<class>, games:<class>
    cuarenta:player:{<id>}:history  list  GameSummary JSON, newest first (HISTORY_CAP)
    cuarenta:player:{<id>}:settled  zset  game ids taken (against a retried finish)
    cuarenta:player:{<id>}:accuracy hash  game id -> the review's accuracy of their play
    cuarenta:player:{<id>}:friends  set   public ids
    cuarenta:player:{<id>}:asked    zset  requests sent: id -> when (ms)
    cuarenta:player:{<id>}:askers   zset  requests received: id -> when (ms)
    cuarenta:player:{<id>}:blocked  set   public ids
    cuarenta:player:{<id>}:sent     zset  when each request of the last minute was sent
    cuarenta:playerkey:<digest>     str   public id (the key index: one key a person)
    cuarenta:{players}:board:<class> zset public id -> μ (people with enough rated games)
    cuarenta:settled:<table>#<game> str   the game's first settling (JSON), a week

Every key of a person lapses with their hash (``PLAYER_TTL_S`` after the last visit): a write
gives the keys it makes the hash's remaining time, and a visit renews them all. What spans two
people (a friendship) is two one-slot steps, ordered so that a step lost halfway leaves at worst
a one-sided link, which the next ``remove`` or ``forget`` clears.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, cast, get_args

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

from protocol.errors import ErrorCode
from protocol.players import Language, ProfileClass
from server.people.model import (
    BoardEntry,
    GameSummary,
    Outcome,
    Player,
    PlayerError,
    PlayerRef,
    Rating,
    Relations,
    SettledGame,
    UnknownPlayer,
    new_public_id,
)
from server.people.rating import BOARD_MIN_GAMES, NEWCOMER
from server.people.redis_scripts import SET_FIELD, SETTLE, SIDE, TOUCH
from server.people.store import (
    HISTORY_CAP,
    MAX_WAITING,
    PLAYER_TTL_S,
    REQUESTS_PER_MINUTE,
    SETTLED_CAP,
    SETTLED_TTL_S,
    check_request_limits,
)
from server.store.base import StoreUnavailable

PARTS = ("p", "history", "settled", "friends", "asked", "askers", "blocked", "sent", "accuracy")


def player_key(player_id: str, part: str) -> str:
    """The Redis key of one part of a person; all share the hash tag of the public id."""
    return f"cuarenta:player:{{{player_id}}}:{part}"


def index_key(key_digest: str) -> str:
    return f"cuarenta:playerkey:{key_digest}"


def board_key(cls: ProfileClass) -> str:
    return f"cuarenta:{{players}}:board:{cls}"


def settled_key(game_id: str) -> str:
    return f"cuarenta:settled:{game_id}"


def _keys(player_id: str) -> list[str]:
    return [player_key(player_id, part) for part in PARTS]


def _side_keys(player_id: str) -> list[str]:
    return [player_key(player_id, part) for part in PARTS if part not in ("history", "settled")]


class RedisPlayerStore:
    """``PlayerStore`` on the Redis client the table store holds (one Redis or a Cluster)."""

    def __init__(self, client: Redis | RedisCluster, ttl_s: float = PLAYER_TTL_S) -> None:
        self.client = cast(Redis, client)
        self.cluster = isinstance(client, RedisCluster)
        self.ttl_ms = int(ttl_s * 1000)
        self._touch = self.client.register_script(TOUCH)
        self._set_field = self.client.register_script(SET_FIELD)
        self._settle = self.client.register_script(SETTLE)
        self._side = self.client.register_script(SIDE)

    async def enter(self, key_digest: str, name: str, language: Language) -> Player:
        now = time.time()
        async with _unavailable("find a player"):
            for _ in range(3):  # another tab may make the same person at the same moment
                player = await self.by_key(key_digest)
                if player is not None:
                    await self._touch(keys=_keys(player.id), args=[now, self.ttl_ms])
                    await self.client.pexpire(index_key(key_digest), self.ttl_ms)
                    return replace(player, last_seen=now)
                player_id = new_public_id()
                fields = {"key": key_digest, "name": name, "lang": language}
                fields |= {"first": repr(now), "last": repr(now)}
                await self.client.hset(player_key(player_id, "p"), mapping=fields)  # type: ignore[misc]
                await self.client.pexpire(player_key(player_id, "p"), self.ttl_ms)
                made = await self.client.set(
                    index_key(key_digest), player_id, nx=True, px=self.ttl_ms
                )
                if made:
                    return Player(player_id, key_digest, name, language, now, now)
                await self.client.delete(player_key(player_id, "p"))
        raise StoreUnavailable("storage unavailable: could not make a player")

    async def by_key(self, key_digest: str) -> Player | None:
        async with _unavailable("find a player"):
            player_id = await self.client.get(index_key(key_digest))
        return None if player_id is None else await self.get(_text(player_id))

    async def get(self, player_id: str) -> Player | None:
        async with _unavailable("read a player"):
            raw: dict[Any, Any] = await self.client.hgetall(player_key(player_id, "p"))  # type: ignore[misc]
        if not raw:
            return None
        fields = {_text(name): _text(value) for name, value in raw.items()}
        ratings = {
            cast(ProfileClass, name[6:]): Rating(
                float(fields["mu:" + name[6:]]), float(fields["sigma:" + name[6:]]), int(value)
            )
            for name, value in fields.items()
            if name.startswith("games:")
        }
        return Player(
            player_id,
            fields["key"],
            fields["name"],
            cast(Language, fields["lang"]),
            float(fields["first"]),
            float(fields["last"]),
            ratings,
        )

    async def rename(self, player_id: str, name: str) -> Player:
        return await self._change(player_id, "name", name)

    async def set_language(self, player_id: str, language: Language) -> Player:
        return await self._change(player_id, "lang", language)

    async def _change(self, player_id: str, field: str, value: str) -> Player:
        async with _unavailable("change a player"):
            changed = await self._set_field(keys=[player_key(player_id, "p")], args=[field, value])
        player = await self.get(player_id) if changed else None
        if player is None:
            raise UnknownPlayer()
        return player

    async def history(self, player_id: str, skip: int, count: int) -> list[GameSummary]:
        async with _unavailable("read a history"):
            items = await self.client.lrange(  # type: ignore[misc]
                player_key(player_id, "history"), skip, skip + count - 1
            )
        games = [GameSummary.from_json(_json(item)) for item in items]
        if not games:
            return games
        async with _unavailable("read a history"):
            found = await self.client.hmget(  # type: ignore[misc]
                player_key(player_id, "accuracy"), [game.game_id for game in games]
            )
        return [
            game if figure is None else replace(game, accuracy=float(figure))
            for game, figure in zip(games, found, strict=True)
        ]

    async def record_accuracy(self, player_id: str, game_id: str, accuracy: float) -> None:
        key = player_key(player_id, "accuracy")
        async with _unavailable("note an accuracy"):
            if not await self.client.exists(player_key(player_id, "p")):
                return
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.hset(key, game_id, repr(accuracy))
                pipe.pexpire(key, self.ttl_ms)
                pipe.hlen(key)
                *_, held = await pipe.execute()
            if held > 2 * HISTORY_CAP:  # games gone from the history go too
                await self._trim_accuracy(player_id)

    async def _trim_accuracy(self, player_id: str) -> None:
        key = player_key(player_id, "accuracy")
        lines = await self.client.lrange(player_key(player_id, "history"), 0, -1)  # type: ignore[misc]
        shown = {GameSummary.from_json(_json(line)).game_id for line in lines}
        held = await self.client.hkeys(key)  # type: ignore[misc]
        gone = [_text(gid) for gid in held if _text(gid) not in shown]
        if gone:
            await self.client.hdel(key, *gone)  # type: ignore[misc]

    async def ratings(self, player_ids: Sequence[str], cls: ProfileClass) -> dict[str, Rating]:
        async with _unavailable("read ratings"), self.client.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hmget(player_key(player_id, "p"), ["key", f"mu:{cls}", f"sigma:{cls}"])
                pipe.hget(player_key(player_id, "p"), f"games:{cls}")
            replies = await pipe.execute()
        out: dict[str, Rating] = {}
        for i, player_id in enumerate(player_ids):
            (known, mu, sigma), games = replies[2 * i], replies[2 * i + 1]
            if known is not None:
                rated = games is not None
                out[player_id] = Rating(float(mu), float(sigma), int(games)) if rated else NEWCOMER
        return out

    async def settle(self, game: SettledGame) -> SettledGame:
        async with _unavailable("settle a game"):
            first = await self.client.set(
                settled_key(game.game_id), game.dumps(), nx=True, px=int(SETTLED_TTL_S * 1000)
            )
            if not first:
                stored = await self.client.get(settled_key(game.game_id))
                game = game if stored is None else SettledGame.loads(stored)
            results = await self._apply(game)
            for outcome, result in zip(game.outcomes, results, strict=True):
                if game.rated and result[0] == 1 and int(result[2]) >= BOARD_MIN_GAMES:
                    mu = float(_text(result[1]))
                    await self.client.zadd(board_key(game.profile_class), {outcome.player_id: mu})
        return game

    async def _apply(self, game: SettledGame) -> list[list[Any]]:
        """Each person's part in one pipeline (one round trip); a Cluster's pipeline takes no
        scripts, so there each part goes on its own, all at once."""
        calls = [
            (_keys(outcome.player_id)[:3], self._settle_args(game, outcome))
            for outcome in game.outcomes
        ]
        if self.cluster:
            return list(await asyncio.gather(*(self._settle(keys=k, args=a) for k, a in calls)))
        async with self.client.pipeline(transaction=True) as pipe:
            for keys, args in calls:
                await self._settle(keys=keys, args=args, client=pipe)
            return cast(list[list[Any]], await pipe.execute())

    @staticmethod
    def _settle_args(game: SettledGame, outcome: Outcome) -> list[Any]:
        return [
            game.game_id,
            game.profile_class,
            "1" if game.rated else "0",
            repr(outcome.mu_change),
            repr(outcome.sigma_change),
            outcome.summary.dumps(),
            repr(NEWCOMER.mu),
            repr(NEWCOMER.sigma),
            HISTORY_CAP,
            SETTLED_CAP,
            int(time.time() * 1000),
        ]

    async def board(self, cls: ProfileClass, size: int) -> list[BoardEntry]:
        async with _unavailable("read the leaderboard"):
            ranked = await self.client.zrange(board_key(cls), 0, 2 * size, desc=True)
            ids = [_text(player_id) for player_id in ranked]
            players = [await self.get(player_id) for player_id in ids]
            gone = [player_id for player_id, p in zip(ids, players, strict=True) if p is None]
            if gone:
                await self.client.zrem(board_key(cls), *gone)
        entries = [
            BoardEntry(PlayerRef(p.id, p.name), p.ratings[cls])
            for p in players
            if p is not None and cls in p.ratings
        ]
        entries.sort(key=lambda entry: (-entry.rating.mu, -entry.rating.games))
        return entries[:size]

    async def _on(self, player_id: str, op: str, other_id: str) -> int:
        args: list[str | int] = [op, other_id, int(time.time() * 1000)]
        args += [MAX_WAITING, REQUESTS_PER_MINUTE]
        async with _unavailable("change friends"):
            return int(await self._side(keys=_side_keys(player_id), args=args))

    async def _pair(self, player_id: str, other_id: str) -> None:
        if player_id == other_id:
            raise PlayerError(ErrorCode.INVALID_MESSAGE, "that is your own id")
        async with _unavailable("find a player"), self.client.pipeline(transaction=False) as pipe:
            pipe.exists(player_key(player_id, "p"))
            pipe.exists(player_key(other_id, "p"))
            if not all(await pipe.execute()):
                raise UnknownPlayer()

    async def request_friend(self, player_id: str, other_id: str) -> None:
        await self._pair(player_id, other_id)
        async with _unavailable("read friends"), self.client.pipeline(transaction=False) as pipe:
            pipe.sismember(player_key(player_id, "blocked"), other_id)
            pipe.sismember(player_key(player_id, "friends"), other_id)
            pipe.zscore(player_key(player_id, "asked"), other_id)
            pipe.zscore(player_key(player_id, "askers"), other_id)
            blocked, friends, asked, asker = await pipe.execute()
        if blocked:
            raise PlayerError(ErrorCode.FORBIDDEN, "you blocked this player: unblock them first")
        if friends or asked is not None:
            return
        if asker is not None:  # they asked first: the two are friends now
            await self.accept_friend(player_id, other_id)
            return
        done = await self._on(player_id, "ask", other_id)
        if done == -1:
            raise UnknownPlayer()
        if done < 0:  # -2: too many waiting, -3: too many this minute
            check_request_limits(MAX_WAITING if done == -2 else 0, REQUESTS_PER_MINUTE)
        await self._on(other_id, "asked", player_id)  # 0: blocked, dropped silently

    async def accept_friend(self, player_id: str, other_id: str) -> None:
        await self._pair(player_id, other_id)
        async with _unavailable("read friends"):
            asked = await self.client.zscore(player_key(player_id, "askers"), other_id)
        if asked is None:
            raise PlayerError(ErrorCode.NOT_FOUND, "no friend request from this player")
        await self._on(other_id, "befriend", player_id)
        await self._on(player_id, "befriend", other_id)

    async def refuse_friend(self, player_id: str, other_id: str) -> None:
        await self._pair(player_id, other_id)
        await self._on(player_id, "refuse", other_id)
        await self._on(other_id, "refused", player_id)

    async def remove_friend(self, player_id: str, other_id: str) -> None:
        await self._pair(player_id, other_id)
        await self._on(player_id, "unlink", other_id)
        await self._on(other_id, "unlink", player_id)

    async def block(self, player_id: str, other_id: str) -> None:
        await self._pair(player_id, other_id)
        await self._on(player_id, "block", other_id)
        await self._on(other_id, "unlink", player_id)

    async def unblock(self, player_id: str, other_id: str) -> None:
        """Unblock; a request they sent while blocked stays dropped (it leaves their list)."""
        if await self._on(player_id, "unblock", other_id) < 0:
            raise UnknownPlayer()
        await self._on(other_id, "refused", player_id)

    async def relations(self, player_id: str) -> Relations:
        async with _unavailable("read friends"), self.client.pipeline(transaction=False) as pipe:
            pipe.exists(player_key(player_id, "p"))
            pipe.smembers(player_key(player_id, "friends"))
            pipe.zrange(player_key(player_id, "askers"), 0, -1, desc=True)
            pipe.zrange(player_key(player_id, "asked"), 0, -1, desc=True)
            pipe.smembers(player_key(player_id, "blocked"))
            exists, friends, incoming, outgoing, blocked = await pipe.execute()
        if not exists:
            raise UnknownPlayer()
        by_name = sorted(await self._refs(friends), key=lambda ref: ref.name.casefold())
        return Relations(
            tuple(by_name),
            await self._refs(incoming),
            await self._refs(outgoing),
            await self._refs(blocked),
        )

    async def _refs(self, ids: Any) -> tuple[PlayerRef, ...]:
        ordered = [_text(player_id) for player_id in ids]
        if not ordered:
            return ()
        async with _unavailable("read names"), self.client.pipeline(transaction=False) as pipe:
            for player_id in ordered:
                pipe.hget(player_key(player_id, "p"), "name")
            names = await pipe.execute()
        return tuple(
            PlayerRef(player_id, _text(name))
            for player_id, name in zip(ordered, names, strict=True)
            if name is not None
        )

    async def forget(self, player_id: str) -> None:
        async with _unavailable("forget a player"):
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.hget(player_key(player_id, "p"), "key")
                pipe.smembers(player_key(player_id, "friends"))
                pipe.zrange(player_key(player_id, "asked"), 0, -1)
                pipe.zrange(player_key(player_id, "askers"), 0, -1)
                pipe.smembers(player_key(player_id, "blocked"))  # their requests were dropped
                digest, *linked = await pipe.execute()
            for other_id in {_text(other) for group in linked for other in group}:
                await self._on(other_id, "unlink", player_id)
            await self.client.delete(*_keys(player_id))
            if digest is not None:
                await self.client.delete(index_key(_text(digest)))
            for cls in get_args(ProfileClass):
                await self.client.zrem(board_key(cls), player_id)

    async def close(self) -> None:
        return None  # the client belongs to the table store, which closes it


@asynccontextmanager
async def _unavailable(doing: str) -> AsyncIterator[None]:
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"storage unavailable: could not {doing} ({exc})") from exc


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _json(value: object) -> Any:
    return json.loads(_text(value))
