"""The counters `cuarenta bench scaling` (and `bench routing`) read, and a window between two
readings as costs per move.

A *move* is a bot decision (the server's ``cuarenta_bot_moves_total``); each is one commit. Per
move: the servers' CPU and RSS (``/proc``), Redis's CPU (``INFO cpu``), the commands clients
sent Redis (``INFO commandstats``, this benchmark's own ``INFO`` excluded), the bytes into and out
of Redis (``INFO stats``), a finished table's ``MEMORY USAGE`` and what the servers sent Redis
(``MONITOR``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from redis.asyncio import Redis

from bench.load.targets import CLOCK_TICKS

MONITOR_LINE_LIMIT = 64 * 2**20
_MOVES = re.compile(r"^cuarenta_bot_moves_total\{[^}]*\} ([0-9.e+]+)$", re.MULTILINE)
#: Redis commands of this benchmark itself (its INFO polls), not of the servers.
_OWN_COMMANDS = frozenset({"info", "flushall", "config|get", "ping", "hello", "client|setinfo"})


# ---------------------------------------------------------------------- measuring
@dataclass(frozen=True, slots=True)
class Reading:
    """The counters at one moment: servers' CPU, RSS and moves; Redis's counters."""

    at: float
    cpu_s: float
    load_cpu_s: float  # this process's: the load's own share of the machine
    rss_mib: float
    moves: float
    games: int
    redis: dict[str, float]


@dataclass(frozen=True, slots=True)
class Window:
    """What happened between two readings, per move where it is a cost."""

    label: str
    processes: int
    tables: int
    seconds: float
    moves: int
    games: int
    moves_per_s: float
    cpu_supply: float  # servers' CPU seconds per wall second
    load_cpu_supply: float  # the load's (this process's), the same way
    server_cpu_ms_per_move: float
    redis_cpu_us_per_move: float
    redis_commands_per_move: float
    redis_commands_by_name: dict[str, float]  # per move
    redis_bytes_in_per_move: float
    redis_bytes_out_per_move: float
    redis_memory_kib_per_table: float  # every table created since the start, over their count
    server_rss_mib: float
    #: a finished table's keys (state, tail, event log) and, apart, its game's kept record
    redis_kib_per_finished_table: float = 0.0
    redis_kib_per_record: float = 0.0
    #: the finished table's KiB by key (``meta``, ``segs``, ``log``, ``lease`` …)
    redis_kib_by_part: dict[str, float] | None = None
    viewer_bytes_per_move: float = 0.0  # per extra viewer
    #: what the servers sent Redis per move (MONITOR; a script's inner calls not counted)
    client_commands_per_move: dict[str, float] | None = None


def proc_usage(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) and RSS in MiB of a process, from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    rss_pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return cpu, rss_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def bot_moves(http_url: str) -> float:
    """The server's ``cuarenta_bot_moves_total`` summed over levels."""
    with urllib.request.urlopen(http_url + "metrics", timeout=10) as reply:
        text = reply.read().decode()
    return sum(float(x) for x in _MOVES.findall(text))


async def redis_counters(client: Redis) -> dict[str, float]:
    """Redis's CPU, memory, network bytes and client commands so far."""
    info = await client.info("all")
    commands = sum(
        float(value["calls"])
        for name, value in info.items()
        if name.startswith("cmdstat_") and name[8:] not in _OWN_COMMANDS
    )
    by_name = {
        "cmd:" + name[8:]: float(value["calls"])
        for name, value in info.items()
        if name.startswith("cmdstat_") and name[8:] not in _OWN_COMMANDS
    }
    return {
        **by_name,
        "cpu_s": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
        "used_memory": float(info["used_memory"]),
        "net_in": float(info["total_net_input_bytes"]),
        "net_out": float(info["total_net_output_bytes"]),
        "commands": commands,
    }


@dataclass
class Load:
    """The servers under test and what their tables did."""

    pids: list[int]
    http_urls: list[str]
    games: int = 0
    created: int = 0
    errors: int = 0
    viewer_bytes: int = 0


async def read(load: Load, client: Redis) -> Reading:
    usages = [proc_usage(pid) for pid in load.pids]
    moves = await all_moves(load)
    return Reading(
        time.monotonic(),
        sum(u[0] for u in usages),
        time.process_time(),
        sum(u[1] for u in usages),
        moves,
        load.games,
        await redis_counters(client),
    )


def window(
    label: str, load: Load, tables: int, a: Reading, b: Reading, viewers: int, empty_redis: float
) -> Window:
    moves = max(b.moves - a.moves, 1.0)
    games = b.games - a.games
    seconds = b.at - a.at
    redis = {key: b.redis[key] - a.redis.get(key, 0.0) for key in b.redis}
    commands = {
        key[4:]: round(value / moves, 3)
        for key, value in sorted(redis.items(), key=lambda item: -item[1])
        if key.startswith("cmd:") and value > 0
    }
    return Window(
        label=label,
        processes=len(load.pids),
        tables=tables,
        seconds=round(seconds, 2),
        moves=int(b.moves - a.moves),
        games=games,
        moves_per_s=round((b.moves - a.moves) / seconds, 1),
        cpu_supply=round((b.cpu_s - a.cpu_s) / seconds, 3),
        load_cpu_supply=round((b.load_cpu_s - a.load_cpu_s) / seconds, 3),
        server_cpu_ms_per_move=round((b.cpu_s - a.cpu_s) * 1000 / moves, 4),
        redis_cpu_us_per_move=round(redis["cpu_s"] * 1e6 / moves, 2),
        redis_commands_per_move=round(redis["commands"] / moves, 3),
        redis_commands_by_name=commands,
        redis_bytes_in_per_move=round(redis["net_in"] / moves, 1),
        redis_bytes_out_per_move=round(redis["net_out"] / moves, 1),
        redis_memory_kib_per_table=round(
            (b.redis["used_memory"] - empty_redis) / 1024 / max(load.created, 1), 2
        ),
        server_rss_mib=round(b.rss_mib, 1),
        # each of a table's ``viewers`` extra watchers is sent what each of its moves caused
        viewer_bytes_per_move=round(load.viewer_bytes / moves / viewers, 1) if viewers else 0.0,
    )


async def finished_tables(
    client: Redis, sample: int = 200
) -> tuple[float, float, dict[str, float]]:
    """Mean ``MEMORY USAGE`` (KiB) of a finished table's keys, of its kept record, and of the
    table's keys by part (the key's last segment).

    A finished table is one with a kept record; its keys are every key of its hash tag but the
    record's (whatever the store's layout)."""
    tables: list[str] = []
    async for key in client.scan_iter(match="cuarenta:{t:*}:records", count=1000):
        tables.append(key.decode().removesuffix(":records"))
        if len(tables) >= sample:
            break
    record_bytes = 0
    parts: Counter[str] = Counter()
    for prefix in tables:
        async for key in client.scan_iter(match=prefix + ":*", count=100):
            name = key.decode()
            used = await client.memory_usage(name) or 0
            if name.startswith(prefix + ":record"):
                record_bytes += used
            else:
                parts[name.removeprefix(prefix + ":")] += used
    count = max(len(tables), 1)
    by_part = {part: round(used / 1024 / count, 2) for part, used in sorted(parts.items())}
    table_kib = round(sum(parts.values()) / 1024 / count, 2)
    return table_kib, round(record_bytes / 1024 / count, 2), by_part


async def client_trips(redis_url: str, load: Load, seconds: float) -> dict[str, float]:
    """Commands the servers sent Redis per move over ``seconds``, by name.

    Read from MONITOR on a raw socket (a commit's line holds the whole state: longer than
    redis-py's 64 KiB line limit); a script's own calls show as ``[db lua]`` and are skipped.
    """
    address = redis_url.removeprefix("redis://").split("/", 1)[0]
    host, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port), limit=MONITOR_LINE_LIMIT)
    counts: Counter[str] = Counter()

    async def consume() -> None:
        while True:
            line = await reader.readline()
            head, _, rest = line.partition(b"] ")
            if line.startswith(b"+") and rest and b" lua" not in head:
                counts[rest.split(b" ", 1)[0].strip(b'"\r\n').decode().lower()] += 1

    try:
        writer.write(b"MONITOR\r\n")
        await reader.readline()  # +OK
        first = await all_moves(load)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await consume()
        made = max(await all_moves(load) - first, 1.0)
    finally:
        writer.close()
    per = {name: round(n / made, 3) for name, n in counts.most_common()}
    return {"total": round(sum(per.values()), 3), **per}


async def all_moves(load: Load) -> float:
    return sum(await asyncio.gather(*(asyncio.to_thread(bot_moves, u) for u in load.http_urls)))
