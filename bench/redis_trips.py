"""Count the commands clients send to Redis while some work runs, using MONITOR.

MONITOR shows every command Redis executes with its origin: ``tcp`` for a client's own command
(one round trip, or one pipelined command) and ``lua`` for commands a script runs inside Redis.
The store's target is one client command per game command on the write path.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis

SETTLE_TIMEOUT_S = 10.0


async def client_commands(url: str, work: Callable[[], Awaitable[object]]) -> Counter[str]:
    """Run ``work`` and return how many times clients sent each command meanwhile.

    A uniquely named ECHO after the work marks the end of the window, so the count waits for
    MONITOR to deliver everything up to it rather than sleeping.
    """
    marker = f"cuarenta-trips-{uuid.uuid4().hex}"
    counts: Counter[str] = Counter()
    watcher = Redis.from_url(url)
    sender = Redis.from_url(url)
    try:
        async with watcher.monitor() as monitor:
            done = asyncio.Event()
            started = asyncio.Event()

            async def read() -> None:
                async for entry in monitor.listen():
                    command = str(entry["command"])
                    if marker in command:
                        if started.is_set():
                            done.set()
                            return
                        started.set()
                        continue
                    if started.is_set() and entry.get("client_type") != "lua":
                        counts[command.split(" ", 1)[0].upper()] += 1

            reader = asyncio.create_task(read())
            await sender.echo(marker)
            async with asyncio.timeout(SETTLE_TIMEOUT_S):
                await started.wait()
            await work()
            await sender.echo(marker)
            async with asyncio.timeout(SETTLE_TIMEOUT_S):
                await done.wait()
            await reader
    finally:
        await watcher.aclose()
        await sender.aclose()
    return counts
