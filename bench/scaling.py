"""`cuarenta bench scaling`: the measured constants of docs/scaling.md's capacity model.

Every phase runs ``cuarenta serve`` child processes on a private ``redis-server`` (free port,
temporary directory on disk, never the machine's own Redis) with all-bot tables: a host creates a
table, watches four level-1 bots play it to the end (at machine speed, no pacing), leaves and
creates the next one, so the server is closed-loop and saturated and its throughput is what one
process can do on the CPU it gets. A *move* is a bot decision (the server's
``cuarenta_bot_moves_total``); each is one commit.

Phases (``--phases``, default all):

- ``cost``: one process, ``--tables`` tables, each watched by its host only. Per move: the
  server's CPU (``/proc``), Redis's CPU (``INFO cpu``), the commands clients sent Redis
  (``INFO commandstats``, this benchmark's own ``INFO`` excluded) and the bytes into and out of
  Redis (``INFO stats``); Redis memory per table created (``used_memory`` over tables created,
  those still playing included) and per finished game (``MEMORY USAGE`` of a finished table's
  keys, kept for the table TTL, and by key; its R15 record, kept for the record TTL, apart); the
  server's RSS while playing.
- ``viewers``: the same with ``--watchers`` more watchers per table (lean sockets that only
  count bytes): server CPU per extra viewer per move, bytes sent per viewer per move, and the
  RSS of an idle connection (``--idle-connections`` connections that said hello).
- ``scale``: one process against two (the tables split between them), same total tables, same
  private Redis, alternating ``--rounds`` times: total moves per second, two over one.
- ``fsync``: Redis with ``appendfsync always`` against ``everysec`` (one private server each):
  the latency of a commit-shaped script (an ``HSET`` of ``--state-bytes`` and an ``RPUSH`` of one
  event, one round trip at a time, ``--commits`` per batch, batches alternating), then the
  server's moves per second on each, alternating.

CPU per move is CPU time, so other processes on the machine change it little; rates (moves per
second, two over one) depend on the CPU the machine gives, printed beside them as the servers'
CPU seconds per second of wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from bench.load.targets import CLOCK_TICKS
from bench.load.wire import WireConnection, open_connection
from bench.server import machine
from bench.store import drain, new_table, private_redis, servers
from clients.session import RequestRefused, SessionError
from protocol import PROTOCOL_VERSION, encode
from protocol import client_messages as c

PHASES = ("cost", "viewers", "scale", "fsync")
WAIT_S = 60.0
MONITOR_LINE_LIMIT = 64 * 2**20
_MOVES = re.compile(r"^cuarenta_bot_moves_total\{[^}]*\} ([0-9.e+]+)$", re.MULTILINE)
#: Redis commands of this benchmark itself (its INFO polls), not of the servers.
_OWN_COMMANDS = frozenset({"info", "flushall", "config|get", "ping", "hello", "client|setinfo"})
_COMMIT_SCRIPT = """
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'version', ARGV[2])
return redis.call('RPUSH', KEYS[2], ARGV[3])
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated: %(default)s")
    parser.add_argument("--tables", type=int, default=40, help="all-bot tables (default 40)")
    parser.add_argument("--seconds", type=float, default=15.0, help="measurement window")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before each window")
    parser.add_argument("--watchers", type=int, default=4, help="extra watchers per table")
    parser.add_argument("--idle-connections", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2, help="alternations of scale and fsync")
    parser.add_argument("--commits", type=int, default=300, help="commits per fsync batch")
    parser.add_argument("--state-bytes", type=int, default=2000, help="state size of a commit")
    parser.add_argument("--monitor", type=float, default=3.0, help="seconds of MONITOR (cost)")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")


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


# ---------------------------------------------------------------------- fsync
async def commit_latencies(redis_url: str, commits: int, state_bytes: int) -> list[float]:
    """Milliseconds per commit-shaped script call, one at a time."""
    client = Redis.from_url(redis_url)
    try:
        script = client.register_script(_COMMIT_SCRIPT)
        state, event = b"s" * state_bytes, b"e" * 200
        out = []
        for n in range(commits):
            t0 = time.perf_counter()
            await script(keys=["{t}:meta", "{t}:log"], args=[state, n, event])
            out.append((time.perf_counter() - t0) * 1000)
        await client.delete("{t}:meta", "{t}:log")
        return out
    finally:
        await client.aclose()


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else 0.0


async def fsync_phase(args: argparse.Namespace) -> dict[str, Any]:
    settings = ("always", "everysec")
    latencies: dict[str, list[float]] = {s: [] for s in settings}
    windows: dict[str, list[Window]] = {s: [] for s in settings}
    with private_redis("always") as always, private_redis("everysec") as everysec:
        urls = {"always": always, "everysec": everysec}
        for _ in range(args.rounds * 2):
            for setting in settings:
                latencies[setting] += await commit_latencies(
                    urls[setting], args.commits, args.state_bytes
                )
        for _ in range(args.rounds):
            for setting in settings:
                windows[setting].append(
                    await played(f"appendfsync {setting}", urls[setting], 1, args.tables, args)
                )
    return {
        setting: {
            "commit_p50_ms": round(quantile(latencies[setting], 0.5), 3),
            "commit_p99_ms": round(quantile(latencies[setting], 0.99), 3),
            "commits": len(latencies[setting]),
            "moves_per_s": [w.moves_per_s for w in windows[setting]],
            "server_cpu_ms_per_move": [w.server_cpu_ms_per_move for w in windows[setting]],
        }
        for setting in settings
    }


# ---------------------------------------------------------------------- main
def progress(text: str) -> None:
    print(f"[scaling] {text}", file=sys.stderr, flush=True)


async def _main(args: argparse.Namespace, phases: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "tables": args.tables}
    with private_redis() as redis_url:
        if "cost" in phases:
            report["cost"] = asdict(
                await played("cost", redis_url, 1, args.tables, args, monitor_s=args.monitor)
            )
        if "viewers" in phases:
            pairs = []
            for _ in range(args.rounds):  # alternating: CPU per move drifts with the machine
                base = await played("viewers 0", redis_url, 1, args.tables, args)
                more = await played(
                    f"viewers +{args.watchers}", redis_url, 1, args.tables, args, args.watchers
                )
                pairs.append((base, more))
            extra = max(args.watchers, 1)
            deltas = [
                (more.server_cpu_ms_per_move - base.server_cpu_ms_per_move) / extra
                for base, more in pairs
            ]
            report["viewers"] = {
                "watchers_per_table": args.watchers,
                "cpu_ms_per_viewer_per_move": round(statistics.median(deltas), 4),
                "cpu_ms_per_viewer_per_move_runs": [round(d, 4) for d in deltas],
                "bytes_per_viewer_per_move": round(
                    statistics.median(more.viewer_bytes_per_move for _, more in pairs), 1
                ),
                "idle_connection_kib": round(
                    await idle_connection_kib(redis_url, args.idle_connections), 1
                ),
                "runs": [[asdict(base), asdict(more)] for base, more in pairs],
            }
        if "scale" in phases:
            pairs = []
            for _ in range(args.rounds):
                one = await played("1 process", redis_url, 1, args.tables, args)
                two = await played("2 processes", redis_url, 2, args.tables, args)
                pairs.append((one, two))
            ratios = [two.moves_per_s / max(one.moves_per_s, 1e-9) for one, two in pairs]
            report["scale"] = {
                "two_over_one": round(statistics.median(ratios), 3),
                "ratios": [round(r, 3) for r in ratios],
                "runs": [[asdict(one), asdict(two)] for one, two in pairs],
            }
    if "fsync" in phases:
        report["fsync"] = await fsync_phase(args)
    return report


def print_report(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(
        f"scaling: {report['tables']} all-bot tables, private Redis; {m['nproc']} cores "
        f"({m['cpu']}), Python {m['python']}, load average {m['load_average_1m']} at the start"
    )
    if "cost" in report:
        w = report["cost"]
        print(
            f"per move (1 process, {w['moves_per_s']:.0f} moves/s, CPU supply {w['cpu_supply']}): "
            f"server CPU {w['server_cpu_ms_per_move']:.3f} ms, Redis CPU "
            f"{w['redis_cpu_us_per_move']:.1f} us, {w['redis_commands_per_move']:.2f} Redis "
            f"calls inside Redis ({w['redis_commands_by_name']}), sent by the server "
            f"{w['client_commands_per_move']}, {w['redis_bytes_in_per_move']:.0f} B into Redis, "
            f"{w['redis_bytes_out_per_move']:.0f} B out; Redis memory "
            f"{w['redis_memory_kib_per_table']:.1f} KiB per table created, "
            f"{w['redis_kib_per_finished_table']:.1f} KiB per finished table "
            f"({w['redis_kib_by_part']}; its record "
            f"{w['redis_kib_per_record']:.1f} KiB apart); server RSS "
            f"{w['server_rss_mib']:.1f} MiB with {report['tables']} tables playing"
        )
    if "viewers" in report:
        v = report["viewers"]
        print(
            f"per viewer ({v['watchers_per_table']} more per table): "
            f"{v['cpu_ms_per_viewer_per_move']:.4f} ms server CPU (median of "
            f"{v['cpu_ms_per_viewer_per_move_runs']}) and "
            f"{v['bytes_per_viewer_per_move']:.0f} B sent per move; idle connection "
            f"{v['idle_connection_kib']:.1f} KiB RSS"
        )
    if "scale" in report:
        s = report["scale"]
        for one, two in s["runs"]:
            print(
                f"  1 process {one['moves_per_s']:.0f} moves/s (CPU {one['cpu_supply']}, load "
                f"{one['load_cpu_supply']}), 2 processes {two['moves_per_s']:.0f} (CPU "
                f"{two['cpu_supply']}, load {two['load_cpu_supply']})"
            )
        print(
            f"two processes over one, same tables: {s['two_over_one']:.2f} (median of "
            f"{len(s['ratios'])}: {s['ratios']})"
        )
    if "fsync" in report:
        for setting, f in report["fsync"].items():
            print(
                f"appendfsync {setting}: commit p50 {f['commit_p50_ms']:.3f} ms, p99 "
                f"{f['commit_p99_ms']:.3f} ms ({f['commits']} one at a time); server "
                f"moves/s {f['moves_per_s']}"
            )


def run(args: argparse.Namespace) -> int:
    phases = [p for p in args.phases.split(",") if p]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown or args.tables < 1 or args.seconds <= 0 or args.rounds < 1:
        print(
            f"cuarenta bench scaling: phases from {', '.join(PHASES)}; --tables, --seconds and "
            f"--rounds positive (unknown: {unknown})",
            file=sys.stderr,
        )
        return 2
    if shutil.which("redis-server") is None:
        print(
            "cuarenta bench scaling: redis-server is not installed (apt-get install redis-server)"
        )
        return 2
    report = asyncio.run(_main(args, phases))
    print_report(report)
    if args.json:
        print(json.dumps({"bench": "scaling", **report}))
    return 0


__all__ = ["add_arguments", "run"]
