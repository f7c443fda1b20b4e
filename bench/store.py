"""``cuarenta bench store``: the memory store and the Redis store side by side in one run.

Each run starts a private ``redis-server`` (free port, temporary directory, append-only file with
``appendfsync everysec``) and ``cuarenta serve`` child processes, and plays ``--tables`` tables of
one person and three level-1 bots from this process: the person plays its first legal card the
moment its turn comes (closed loop), bots answer at once (``--bot-delay 0``).

Figures:
- throughput: events delivered to the people per second, and p99 action→delivery (a person's play
  sent → the event it caused received), for the memory store and the Redis store;
- Redis commands per game command: client commands seen by MONITOR while a few tables play
  (script-internal commands excluded), divided by the commits (EVALSHA calls);
- takeover: kill -9 the process owning a table; time until the other process delivers its next
  event (lease ``--lease`` seconds);
- two processes vs one: the Redis run again with the tables spread over two server processes;
- idle unload (``--idle-only`` runs just this): ``--idle-tables`` all-bot tables play to the end
  on an in-process server with the memory store, their watchers leave, and the lobby unloads
  them; Python heap (tracemalloc) held per finished table while loaded and after the unload, next
  to the bytes the store keeps for it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import IO

from bench.load.targets import server_env
from bench.redis_trips import client_commands
from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import server_messages as s

READY = "Ready to accept connections"


@dataclass(frozen=True, slots=True)
class LoadResult:
    label: str
    tables: int
    seconds: float
    events_per_s: float
    p50_ms: float
    p99_ms: float
    moves: int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=200, help="tables per run (default 200)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window per run")
    parser.add_argument("--lease", type=float, default=2.0, help="lease time for the takeover")
    parser.add_argument("--json", action="store_true", help="also print one JSON line per result")
    parser.add_argument(
        "--idle-tables",
        type=int,
        default=100,
        help="finished tables for the idle-unload figure (default 100)",
    )
    parser.add_argument("--idle-only", action="store_true", help="only the idle-unload figure")


def run(args: argparse.Namespace) -> int:
    if shutil.which("redis-server") is None:
        print("cuarenta bench store: redis-server is not installed (apt-get install redis-server)")
        return 2
    return asyncio.run(_main(args))


async def _main(args: argparse.Namespace) -> int:
    if args.idle_only:
        return _print_idle(await idle_memory(args.idle_tables), args.json)
    with private_redis() as redis_url:
        # Each Redis run gets an empty database of its own: tables left by an earlier run (whose
        # servers were killed) would otherwise be taken over by the next run's processes.
        base = redis_url.rsplit("/", 1)[0]
        one_db, two_db, trips_db, takeover_db = (f"{base}/{n}" for n in (1, 2, 3, 4))
        results = [
            await load_run("memory", ["memory"], args.tables, args.seconds),
            await load_run("redis, 1 process", [one_db], args.tables, args.seconds),
            await load_run("redis, 2 processes", [two_db, two_db], args.tables, args.seconds),
        ]
        trips = await round_trips(trips_db, min(args.tables, 10), min(args.seconds, 2.0))
        takeover_s = await takeover(takeover_db, args.lease)
    print(
        f"store benchmark: {args.tables} tables (1 person + 3 level-1 bots), "
        f"{args.seconds:g} s windows, closed loop"
    )
    print(f"{'run':<20} {'events/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'moves':>7}")
    for result in results:
        print(
            f"{result.label:<20} {result.events_per_s:>9.0f} {result.p50_ms:>8.1f} "
            f"{result.p99_ms:>8.1f} {result.moves:>7}"
        )
    memory, one, two = results
    print(
        f"redis/memory throughput: {one.events_per_s / max(memory.events_per_s, 1e-9):.2f}; "
        f"2 processes / 1 process: {two.events_per_s / max(one.events_per_s, 1e-9):.2f}"
    )
    print(f"redis client commands per commit: {trips['per_commit']:.2f} ({trips['commands']})")
    print(f"takeover after kill -9 of the owner (lease {args.lease:g} s): {takeover_s:.2f} s")
    if args.json:
        for result in results:
            print(json.dumps({"bench": "store", **asdict(result)}))
        print(json.dumps({"bench": "store", "round_trips": trips, "takeover_s": takeover_s}))
    return _print_idle(await idle_memory(args.idle_tables), args.json)


def _print_idle(figures: dict[str, float], as_json: bool) -> int:
    print(
        f"idle unload, {figures['tables']:.0f} finished tables: heap freed per table "
        f"{figures['freed_kib']:.1f} KiB (heap per table loaded {figures['loaded_kib']:.1f}, "
        f"after {figures['unloaded_kib']:.1f} KiB, process-wide caches included); the memory "
        f"store keeps {figures['stored_kib']:.1f} KiB per table (state, log, kept record)"
    )
    if as_json:
        print(json.dumps({"bench": "store", "idle_unload": figures}))
    return 0


async def idle_memory(tables: int) -> dict[str, float]:
    """Heap per finished table, loaded and after the idle unload (memory store, in process)."""
    from server import logs
    from server.app import TableServer
    from server.config import Settings

    settings = replace(
        Settings(),
        port=0,
        bot_delay_s=0.0,
        claim_window_s=0.05,
        commands_per_s=1000.0,
        log_level="error",
        log_format="json",
        idle_unload_s=0.0,  # 0: no idle timer; the unload is called below
        connections_per_address=0,  # the tables all come from here (`server_env`'s caps)
        tables_per_min=0.0,
    )
    logs.configure(settings.log_format, settings.log_level)
    tracemalloc.start()
    async with TableServer(settings) as server:
        gc.collect()
        empty = tracemalloc.get_traced_memory()[0]
        hosts = [(await new_table(server.ws_url, seated=False))[0] for _ in range(tables)]
        for host in hosts:  # all-bot games play to the end at machine speed
            await host.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=600)
            await host.close()
        hosts.clear()  # the client sessions' own copies of the events are not the server's
        async with asyncio.timeout(60):
            while True:
                if not any(room.referee.table.viewers for room in server.lobby.rooms.values()):
                    break
                await asyncio.sleep(0.05)  # the watchers' detaches are still being applied
        gc.collect()
        loaded = tracemalloc.get_traced_memory()[0]
        stored = 0
        for table_id in list(server.lobby.rooms):
            table = await server.lobby.store.load(table_id)
            assert table is not None
            events = await server.lobby.store.events_after(table_id, 0)
            record = await server.lobby.store.find_record(table_id)
            stored += len(table.state) + sum(len(event.data) for event in events)
            stored += len(record.record) if record is not None else 0
        server.lobby.idle_unload_s = 1e-9
        await server.lobby.unload_idle()  # the first look marks every table idle …
        unloaded_ids = await server.lobby.unload_idle()  # … the second unloads them
        assert len(unloaded_ids) == tables, (len(unloaded_ids), tables)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {
        "tables": tables,
        "loaded_kib": (loaded - empty) / tables / 1024,
        "unloaded_kib": (after - empty) / tables / 1024,
        "freed_kib": (loaded - after) / tables / 1024,
        "stored_kib": stored / tables / 1024,
    }


# ---------------------------------------------------------------------- processes
@contextlib.contextmanager
def private_redis(appendfsync: str = "everysec") -> Iterator[str]:
    """A redis-server on a free port in a temporary directory, append-only; its URL."""
    with tempfile.TemporaryDirectory(prefix="cuarenta-bench-redis-") as directory:
        port = _free_port()
        process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                directory,
                "--appendonly",
                "yes",
                "--appendfsync",
                appendfsync,
                "--save",
                "",
                "--logfile",
                "",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if READY in line:
                break
        # Keep reading its log: a full pipe blocks Redis in write() (the 500-table soak's Redis
        # stopped answering after 65 logged AOF rewrites).
        threading.Thread(target=drain, args=(process.stdout,), daemon=True).start()
        try:
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
            process.stdout.close()


def drain(stream: IO[str]) -> None:
    """Read a child's output to its end, so it never blocks writing to a full pipe."""
    with contextlib.suppress(ValueError, OSError):  # closed when the server is stopped
        for _ in stream:
            pass


@contextlib.contextmanager
def servers(stores: Sequence[str], *extra: str) -> Iterator[list[subprocess.Popen[str]]]:
    """``cuarenta serve`` per store spec; each one's ws URL is in ``.args[-1]`` after start."""
    started: list[subprocess.Popen[str]] = []
    try:
        for store in stores:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "serve",
                    "--port",
                    "0",
                    "--bot-delay",
                    "0",
                    "--claim-window",
                    "0.05",
                    "--log-level",
                    "error",
                    "--log-format",
                    "json",
                    "--commands-per-s",
                    "1000",
                    "--store",
                    store,
                    *extra,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=server_env(),
                start_new_session=True,  # its workers too are stopped with it (``killpg``)
            )
            started.append(process)
        yield started
    finally:
        for process in started:
            # The whole group: a worker the server started (a game's review) holds its stdout
            # open, and closing a pipe a drain thread still reads waits for that pipe's end.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def ws_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        raise RuntimeError(f"server did not start: {line!r}")
    threading.Thread(target=drain, args=(process.stdout,), daemon=True).start()  # its logs
    return line.removeprefix("listening on ").strip().replace("http://", "ws://") + "ws"


# ---------------------------------------------------------------------- load
async def new_table(url: str, seated: bool = True) -> tuple[ClientSession, s.TableCreated]:
    """A started table: the host (seated, or watching) and level-1 bots in the other seats.

    A setup that fails (a refused request while the store is away) closes its connection: a
    load that retries must not leave one open on the server per try."""
    host = await ClientSession.connect(url, "bench", wait_s=60)
    try:
        created = await host.request(c.CreateTable(), wait_s=60)
        assert isinstance(created, s.TableCreated)
        join = c.Join(key=created.host_key) if seated else c.Watch(key=created.host_key)
        await host.request(join, wait_s=60)
        for _ in range(3 if seated else 4):
            await host.request(c.AddBot(level=1), wait_s=60)
        await host.request(c.Start(), wait_s=60)
    except BaseException:
        await host.close()
        raise
    return host, created


async def person(session: ClientSession, stop: asyncio.Event, latencies: list[float]) -> int:
    """Play the first legal card on each turn until ``stop``; the number of moves made."""
    moves = 0
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await session.next_snapshot(wait_s=0.2)
        snap = session.snapshot
        if snap is None or snap.info.stage == "finished":
            continue
        legal = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        if not legal or snap.last_event != session.last_event:
            continue
        before, sent = session.last_event, time.perf_counter()

        def caused(event: s.Event, after: int = before) -> bool:
            return event.n > after

        try:
            await session.act(legal[0], wait_s=30)
            await session.next_of(s.Event, caused, wait_s=30)
        except (RequestRefused, SessionError, TimeoutError):
            continue
        latencies.append(time.perf_counter() - sent)
        moves += 1
    return moves


async def load_run(label: str, stores: Sequence[str], tables: int, seconds: float) -> LoadResult:
    with servers(stores) as processes:
        urls = [ws_url(process) for process in processes]
        sessions = []
        for index in range(tables):
            sessions.append((await new_table(urls[index % len(urls)]))[0])
        stop, latencies = asyncio.Event(), list[float]()
        first = [session.last_event for session in sessions]
        players = [asyncio.create_task(person(session, stop, latencies)) for session in sessions]
        started = time.perf_counter()
        await asyncio.sleep(seconds)  # the measured window
        stop.set()
        elapsed = time.perf_counter() - started
        moves = sum(await asyncio.gather(*players))
        events = sum(session.last_event - n for session, n in zip(sessions, first, strict=True))
        for session in sessions:
            await session.close()
    ordered = sorted(latencies) or [0.0]
    return LoadResult(
        label=label,
        tables=tables,
        seconds=round(elapsed, 2),
        events_per_s=events / elapsed,
        p50_ms=1000 * ordered[len(ordered) // 2],
        p99_ms=1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        moves=moves,
    )


async def round_trips(redis_url: str, tables: int = 10, seconds: float = 2.0) -> dict[str, object]:
    """Client commands Redis receives per commit while ``tables`` tables play (MONITOR)."""
    with servers([redis_url]) as processes:
        url = ws_url(processes[0])
        sessions = [(await new_table(url))[0] for _ in range(tables)]
        stop, latencies = asyncio.Event(), list[float]()
        players = [asyncio.create_task(person(x, stop, latencies)) for x in sessions]

        async def window() -> None:
            await asyncio.sleep(seconds)

        counts = await client_commands(redis_url, window)
        stop.set()
        await asyncio.gather(*players)
        for session in sessions:
            await session.close()
    commits = max(counts.get("EVALSHA", 0), 1)
    return {
        "commands": dict(counts),
        "commits": commits,
        "per_commit": sum(counts.values()) / commits,
    }


async def takeover(redis_url: str, lease_s: float) -> float:
    """Seconds from kill -9 of a table's owner to the next event delivered by the other process."""
    with servers([redis_url, redis_url], "--lease", str(lease_s), "--away-turn", "0") as processes:
        owner_url, other_url = (ws_url(process) for process in processes)
        watcher = await ClientSession.connect(other_url, "watcher", wait_s=60)
        # A person who never plays: the table waits at that turn until the owner dies; then the
        # new owner's stand-in bot plays at once (the person is away), which is the first event.
        host, created = await new_table(owner_url)
        await watcher.request(c.Watch(key=created.watch_key), wait_s=60)
        await host.next_snapshot(lambda snap: bool(snap.legal), wait_s=60)
        await watcher.next_snapshot(lambda snap: snap.last_event >= host.last_event, wait_s=60)
        processes[0].send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        processes[0].wait()
        last = watcher.last_event
        await watcher.next_snapshot(lambda snap: snap.last_event > last, wait_s=10 * lease_s + 30)
        took = time.perf_counter() - killed
        await watcher.close()
        await host.close()
    return took


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


__all__ = ["add_arguments", "run"]
