"""The load `cuarenta bench scaling` measures: ``cuarenta serve`` child processes with all-bot
tables, and one measured window of it (``played``).

A host creates a table, watches four level-1 bots play it to the end (at machine speed, no
pacing), leaves and creates the next one, so the server is closed-loop and saturated and its
throughput is what one process can do on the CPU it gets. Extra watchers are lean sockets that
only count bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

from redis.asyncio import Redis

from bench.load.wire import WireConnection, open_connection
from bench.scaling_readings import (
    Load,
    Window,
    client_trips,
    finished_tables,
    proc_usage,
    read,
    redis_counters,
    window,
)
from bench.store import drain, new_table, servers
from clients.session import RequestRefused, SessionError
from protocol import PROTOCOL_VERSION, encode
from protocol import client_messages as c


# ---------------------------------------------------------------------- the load
async def watcher(url: str, key: str, load: Load, measuring: asyncio.Event) -> WireConnection:
    """A lean spectator: hello, watch, then only count the bytes it is sent."""

    def count(data: bytes) -> None:
        if measuring.is_set():
            load.viewer_bytes += len(data)

    connection = await open_connection(url, count)
    connection.send(encode(c.Hello(version=PROTOCOL_VERSION, name="watcher", rid=1)))
    connection.send(encode(c.Watch(key=key, rid=2)))
    return connection


async def bot_tables(
    url: str, stop: asyncio.Event, load: Load, watchers: int, measuring: asyncio.Event
) -> None:
    """Create an all-bot table, watch it to the end (with ``watchers`` more), again."""
    while not stop.is_set():
        lean: list[WireConnection] = []
        try:
            host, created = await new_table(url, seated=False)
            load.created += 1
            try:
                lean = [
                    await watcher(url, created.watch_key, load, measuring) for _ in range(watchers)
                ]
                while not stop.is_set():
                    snap = host.snapshot
                    if snap is not None and snap.info.stage == "finished":
                        load.games += 1
                        break
                    with contextlib.suppress(TimeoutError):
                        await host.next_snapshot(wait_s=1.0)
            finally:
                for connection in lean:
                    connection.close()
                await host.close()
        except (SessionError, RequestRefused, TimeoutError, OSError):
            load.errors += 1
            await asyncio.sleep(1.0)  # the server is busy or away: do not spin


def http_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        raise RuntimeError(f"server did not start: {line!r}")
    threading.Thread(target=drain, args=(process.stdout,), daemon=True).start()  # its logs
    return line.removeprefix("listening on ").strip().rstrip("/") + "/"


@contextlib.contextmanager
def started(stores: Sequence[str]) -> Iterator[Load]:
    with servers(stores, "--idle-unload", "5") as processes:
        yield Load([p.pid for p in processes], [http_url(p) for p in processes])


async def played(
    label: str,
    redis_url: str,
    processes: int,
    tables: int,
    args: argparse.Namespace,
    watchers: int = 0,
    monitor_s: float = 0.0,
) -> Window:
    """``tables`` all-bot tables over ``processes`` servers on ``redis_url``: one window."""
    client = Redis.from_url(redis_url)
    stop, measuring = asyncio.Event(), asyncio.Event()
    try:
        await client.flushall()
        empty_redis = (await redis_counters(client))["used_memory"]
        with started([redis_url] * processes) as load:
            ws = [u.replace("http://", "ws://") + "ws" for u in load.http_urls]
            tasks = [
                asyncio.create_task(bot_tables(ws[i % processes], stop, load, watchers, measuring))
                for i in range(tables)
            ]
            try:
                await asyncio.sleep(args.warmup)  # the measured window starts after the warm-up
                before = await read(load, client)
                measuring.set()
                await asyncio.sleep(args.seconds)
                measuring.clear()
                after = await read(load, client)
                if monitor_s:  # after the window: MONITOR slows Redis down
                    trips = await client_trips(redis_url, load, monitor_s)
                finished = await finished_tables(client)
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await client.aclose()
    result = window(label, load, tables, before, after, watchers, empty_redis)
    result = replace(
        result,
        redis_kib_per_finished_table=finished[0],
        redis_kib_per_record=finished[1],
        redis_kib_by_part=finished[2],
    )
    if monitor_s:
        result = replace(result, client_commands_per_move=trips)
    progress(
        f"{label}: {result.moves_per_s:.0f} moves/s, {result.server_cpu_ms_per_move:.3f} ms "
        f"server CPU per move, CPU supply {result.cpu_supply:.2f} "
        f"(load {result.load_cpu_supply:.2f})"
    )
    return result


async def idle_connection_kib(redis_url: str, connections: int) -> float:
    """RSS per connection that said hello and waits (one server process)."""
    with started([redis_url]) as load:
        url = load.http_urls[0].replace("http://", "ws://") + "ws"
        await asyncio.sleep(0.5)
        before = proc_usage(load.pids[0])[1]
        opened = []
        for i in range(connections):
            connection = await open_connection(url, lambda data: None)
            connection.send(encode(c.Hello(version=PROTOCOL_VERSION, name=f"idle{i}", rid=1)))
            opened.append(connection)
        await asyncio.sleep(1.0)  # let the server take the hellos (a settle, not a sync)
        after = proc_usage(load.pids[0])[1]
        for connection in opened:
            connection.close()
    return (after - before) * 1024 / max(connections, 1)


def progress(text: str) -> None:
    print(f"[scaling] {text}", file=sys.stderr, flush=True)
