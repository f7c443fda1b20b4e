"""Turn-based tables waiting, and the push that calls a person back (issue 41).

**Waiting tables.** ``--real`` turn-based tables are made through a server on a private
``redis-server`` (one person and three bots each, the person's decision awaited) and unloaded;
their keys are then copied under new ids up to ``--tables`` (the copies are byte for byte the
real ones', their due times spread over the next day). Printed: Redis memory per waiting table;
the resident memory of a ``cuarenta serve`` process on that Redis (nothing loaded) beside one on
an empty Redis; and the CPU the deadline watch costs that process a second while nothing is due.

**The call back.** Two people at a turn-based table (with two bots), both away: each move is made
by a fresh connection of the person awaited (as a notification's click makes it), and the next
person's push reaches a push service on loopback; printed: the time from the move's answer to
that push, p50 and p95 over ``--moves`` moves.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from dataclasses import replace
from typing import Any, Literal

from aiohttp import web
from redis.asyncio import Redis

from bench.store import private_redis
from clients.session import ClientSession
from protocol import away as a
from protocol import client_messages as c
from protocol import server_messages as s
from server import logs
from server.app import TableServer
from server.config import Settings
from server.store.redis import open_store
from server.waiting.board import DUE_KEY

HOUR: Literal[3600] = 3600


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=100_000, help="waiting tables in Redis")
    parser.add_argument("--real", type=int, default=50, help="of them made by a real server")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the scan is timed")
    parser.add_argument("--moves", type=int, default=100, help="moves whose push is timed")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    figures = asyncio.run(_main(args))
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:<44} {value}")
    return 0


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    logs.configure("console", "error")  # the in-process servers' logs would drown the figures
    figures: dict[str, Any] = {"tables": args.tables}
    with private_redis() as url:
        figures |= await waiting_tables(url, args.tables, min(args.real, args.tables))
        figures |= await _serving_costs(url, args.seconds)
    figures |= await call_back(args.moves)
    return figures


async def _one_waiting(server: TableServer) -> None:
    person = await ClientSession.connect(server.ws_url, "Ana", player_key=os.urandom(32).hex())
    created = await person.request(c.CreateTable(profile="pagat-4p", move_deadline=86400))
    assert isinstance(created, s.TableCreated)
    await person.request(c.Join(key=created.host_key))
    for _ in range(3):
        await person.request(c.AddBot(level=1))
    await person.request(c.Start())
    while True:
        snap = await person.next_snapshot(wait_s=30)
        if any(isinstance(x, c.Play | c.Announce) for x in snap.legal):
            break
    await person.close()


async def waiting_tables(url: str, tables: int, real: int) -> dict[str, Any]:
    """Memory per waiting table in Redis, from ``real`` made ones copied up to ``tables``."""
    client = Redis.from_url(url)
    settings = Settings(
        host="127.0.0.1",
        port=0,
        bot_delay_s=0,
        idle_unload_s=0,
        tables_per_min=0,
        connections_per_address=0,
    )
    server = TableServer(settings, store=await open_store(url))
    await server.start()
    before = int((await client.info("memory"))["used_memory"])
    for _ in range(real):
        await _one_waiting(server)
    unloaded: list[str] = []
    for _ in range(200):  # a bot may still be deciding at the last table: unload once it is done
        unloaded += await server.lobby.unload_idle()
        if len(unloaded) == real:
            break
        await asyncio.sleep(0.05)
    await server.close()
    made = int((await client.info("memory"))["used_memory"])
    keys = [key async for key in client.scan_iter("cuarenta:*") if b"{t:" in key or b":t:" in key]
    dumps = {key: await client.dump(key) for key in keys}
    table_ids = [member.decode() for member in await client.zrange(DUE_KEY, 0, -1)]
    copies, now = 0, time.time()
    while real + copies < tables:
        source = table_ids[copies % len(table_ids)]
        fresh = f"copy{copies:07d}"
        async with client.pipeline(transaction=False) as pipe:
            for key, dumped in dumps.items():
                name = key.decode()
                if source in name:
                    pipe.restore(name.replace(source, fresh), 0, dumped, replace=True)
            pipe.zadd(DUE_KEY, {fresh: now + random.uniform(60, 86400)})
            await pipe.execute()
        copies += 1
    after = int((await client.info("memory"))["used_memory"])
    await client.aclose()
    return {
        "real tables unloaded": len(unloaded),
        "redis bytes per waiting table (real)": round((made - before) / max(1, real)),
        "redis bytes per waiting table (all)": round((after - before) / max(1, tables)),
        "redis memory, all waiting (MB)": round((after - before) / 1e6, 1),
    }


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _serve(url: str) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--port", "0", "--store", url,
        "--log-level", "warning", stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    line = (await process.stdout.readline()).decode()
    assert line.startswith("listening on "), line
    return process


async def _serving_costs(url: str, seconds: float) -> dict[str, Any]:
    """A server on the Redis full of waiting tables: its memory, and its scan's CPU a second."""
    with private_redis() as empty_url:
        empty = await _serve(empty_url)
        full = await _serve(url)
        await asyncio.sleep(2.0)  # both settle past their start (a measuring window)
        cpu = {process.pid: _cpu_s(process.pid) for process in (empty, full)}
        await asyncio.sleep(seconds)  # the window the scan's CPU is measured over
        spent = {pid: _cpu_s(pid) - start for pid, start in cpu.items()}
        figures = {
            "server RSS, empty Redis (MB)": round(_rss_kb(empty.pid) / 1024, 1),
            "server RSS, all waiting, none loaded (MB)": round(_rss_kb(full.pid) / 1024, 1),
            "server CPU a second, empty (ms)": round(spent[empty.pid] / seconds * 1000, 2),
            "server CPU a second, all waiting (ms)": round(spent[full.pid] / seconds * 1000, 2),
        }
        for process in (empty, full):
            process.terminate()
            await process.wait()
    return figures


class _Service:
    """A push service on loopback: who each push was for, and when it came."""

    def __init__(self) -> None:
        self.arrived: asyncio.Queue[tuple[str, float]] = asyncio.Queue()

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        self.arrived.put_nowait((request.match_info["name"], time.monotonic()))
        return web.Response(status=201)


def _subscription(endpoint: str) -> a.PushSubscribe:
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from py_vapid import b64urlencode

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    return a.PushSubscribe(
        endpoint=endpoint, p256dh=b64urlencode(point), auth=b64urlencode(os.urandom(16))
    )


async def call_back(moves: int) -> dict[str, Any]:
    """Push latency: from a move's answer to the next person's push, over ``moves`` moves."""
    service = _Service()
    app = web.Application()
    app.router.add_post("/push/{name}", service.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    settings = replace(
        Settings(host="127.0.0.1", port=0, bot_delay_s=0, tables_per_min=0), push_loopback=1
    )
    server = TableServer(settings)
    await server.start()
    keys = {name: os.urandom(32).hex() for name in ("Ana", "Beto")}
    latencies: list[float] = []
    try:
        people = {}
        for name, key in keys.items():
            session = await ClientSession.connect(server.ws_url, name, player_key=key)
            await session.request(_subscription(f"http://127.0.0.1:{port}/push/{name}"))
            people[name] = session
        created = await people["Ana"].request(c.CreateTable(profile="pagat-4p", move_deadline=HOUR))
        assert isinstance(created, s.TableCreated)
        await people["Ana"].request(c.Join(key=created.host_key, seat=0))
        await people["Beto"].request(c.Join(key=created.join_key, seat=2))
        for seat in (1, 3):
            await people["Ana"].request(c.AddBot(level=1, seat=seat))
        await people["Ana"].request(c.Start())
        for session in people.values():
            await session.close()
        rng = random.Random(5)
        name = await _awaited(server, keys, created.table)  # told at the table: no push
        moved_at = await _move(server, name, keys[name], created, rng)
        while len(latencies) < moves and moved_at is not None:  # None: the game ended
            try:
                name, pushed = await asyncio.wait_for(service.arrived.get(), 5)
            except TimeoutError:  # the decision came while its person was still connected
                name = await _awaited(server, keys, created.table)
                moved_at = await _move(server, name, keys[name], created, rng)
                continue
            latencies.append(pushed - moved_at)
            moved_at = await _move(server, name, keys[name], created, rng)
    finally:
        await server.close()
        await runner.cleanup()
    latencies.sort()
    return {
        "pushes timed": len(latencies),
        "push after the move, p50 (ms)": _quantile_ms(latencies, 0.5),
        "push after the move, p95 (ms)": _quantile_ms(latencies, 0.95),
    }


def _quantile_ms(ordered: list[float], q: float) -> float | None:
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


async def _awaited(server: TableServer, keys: dict[str, str], table: str) -> str:
    """Who the table waits for, as their /me says it."""
    for name, key in keys.items():
        async with await ClientSession.connect(server.ws_url, name, player_key=key) as person:
            turns = await person.request(a.TurnsRequest())
            assert isinstance(turns, a.Turns)
            if any(line.table == table and line.your_turn for line in turns.tables):
                return name
    raise AssertionError("the table waits for nobody")


async def _move(
    server: TableServer, name: str, key: str, created: s.TableCreated, rng: random.Random
) -> float | None:
    """The person opens the table afresh, makes the move awaited, and leaves: when it was sent."""
    async with await ClientSession.connect(server.ws_url, name, player_key=key) as person:
        await person.request(c.Join(key=created.join_key))
        while True:
            snap = await person.next_snapshot(wait_s=30)
            if snap.info.stage != "playing":
                return None
            required = [x for x in snap.legal if isinstance(x, c.Play | c.Announce)]
            sent = time.monotonic()  # the push is timed from the move's sending
            if snap.view is not None and snap.view.phase == "claims":
                await person.request(c.NoClaim())
                return sent
            if required and snap.last_event == person.last_event:
                await person.act(rng.choice(required))
                return sent
