"""What people who come back cost: bytes a person in memory and in Redis, CPU a finished game.

``python -m bench.players [--people N] [--games G]`` (``measure`` is what ``cuarenta bench``
can call). Each person has a name, a rating, two friends and ``G`` games of history (four-player
rated games of two people with two bots, so every game writes two histories and two ratings).
Redis bytes are ``MEMORY USAGE`` summed over a person's keys and key index entry.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import tracemalloc
from typing import Any

from redis.asyncio import Redis

from bench.store import private_redis
from server.people import FinishedGame, MemoryPlayerStore, Players, PlayerStore, Seat
from server.people.model import key_digest
from server.people.redis_store import PARTS, RedisPlayerStore, index_key, player_key


async def populate(players: Players, people: int, games: int) -> tuple[list[str], float]:
    """Make ``people`` people with two friends and ``games`` games each; CPU s per game."""
    ids = [(await players.enter(f"{n:043d}", f"Person {n}")).id for n in range(people)]
    for n, player_id in enumerate(ids):
        for other in (ids[(n + 1) % people], ids[(n + 2) % people]):
            if other != player_id:
                await players.store.request_friend(player_id, other)
    cpu = 0.0
    for g in range(games):
        for n in range(0, people - 1, 2):
            game = _game(ids[n], ids[n + 1], g)
            started = time.process_time()
            await players.record_game(game)
            cpu += time.process_time() - started
    return ids, cpu / max(1, games * (people // 2))


def _game(ana: str, beto: str, g: int) -> FinishedGame:
    teams = (
        (Seat("Person A", ana), Seat("Bot 2", bot_level=2)),
        (Seat("Person B", beto), Seat("Bot 3", bot_level=3)),
    )
    return FinishedGame(f"T{ana}", g + 1, "pagat-4p", time.time(), False, teams, (40, 24), g % 2)


async def memory_figures(people: int, games: int) -> dict[str, float]:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = MemoryPlayerStore()
    _, cpu = await populate(Players(store), people, games)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    _, cpu = await populate(Players(MemoryPlayerStore()), people, games)  # CPU untraced
    return {"memory_bytes_per_person": used / people, "memory_cpu_ms_per_game": cpu * 1000}


async def redis_figures(url: str, people: int, games: int) -> dict[str, float]:
    client = Redis.from_url(url)
    try:
        store: PlayerStore = RedisPlayerStore(client)
        ids, cpu = await populate(Players(store), people, games)
        total = 0
        for n, player_id in enumerate(ids):
            keys = [player_key(player_id, part) for part in PARTS]
            keys.append(index_key(key_digest(f"{n:043d}")))
            for key in keys:
                total += await client.memory_usage(key, samples=0) or 0
        return {"redis_bytes_per_person": total / people, "redis_cpu_ms_per_game": cpu * 1000}
    finally:
        await client.aclose()


async def measure(people: int = 200, games: int = 20) -> dict[str, Any]:
    """The figures, in one run so they compare side by side."""
    figures: dict[str, Any] = {"people": people, "games_each": games}
    figures |= await memory_figures(people, games)
    with private_redis() as url:
        figures |= await redis_figures(url, people, games)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.players", description=__doc__)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    figures = asyncio.run(measure(args.people, args.games))
    print(json.dumps({k: round(v, 3) for k, v in figures.items()}, indent=1))


if __name__ == "__main__":
    main()
