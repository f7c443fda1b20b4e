"""`cuarenta bench routing`: one table, one process, one hop, measured behind the real proxy.

Debian's caddy runs the repository's ``deploy/Caddyfile`` (static upstreams) in front of one,
then three, ``cuarenta serve --placement rendezvous`` processes on a private redis-server, with
``--tables`` tables of three level-1 bots and one person: the person creates the table through
the proxy (it lands anywhere), takes the seat back on the table's route (``/ws?t=<table id>``)
and plays there game after game (rematches), as a club's table does. The process count
alternates ``--rounds`` times; per window:

- **relayed share**: relay envelopes (Redis ``PUBLISH`` calls) over the messages the viewers
  were sent (each move sends each of a table's viewers one message; here one viewer a table, the
  person);
- **server CPU per move** (``/proc``) with three processes over one: what the cluster costs.

A table created on another process than its place is relayed until it is handed over (after two
watcher rounds, a third of ``--lease`` each): the windows start after ``--warmup``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from bench.caddy import running
from bench.scaling_load import http_url
from bench.scaling_readings import Load, read, redis_counters, window
from bench.store import new_table, private_redis, servers
from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=30, help="all-bot tables (default 30)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window")
    parser.add_argument("--warmup", type=float, default=4.0, help="play before each window")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of 1 and 3 processes")
    parser.add_argument("--lease", type=float, default=3.0, help="the servers' lease (seconds)")
    parser.add_argument(
        "--placement", default="rendezvous", help="the servers' placement (first: no routing)"
    )
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")


async def routed_tables(proxy_ws: str, stop: asyncio.Event, load: Load) -> None:
    """A table of three bots and a person: created through the proxy (anywhere), then played on
    its route game after game (rematches), as a club's table is; a new one if it fails."""
    while not stop.is_set():
        try:
            host, created = await new_table(proxy_ws, seated=True)
            load.created += 1
            token, last = host.token, host.last_event
            await host.close()
            player = await ClientSession.connect(
                proxy_ws, "bench", resume=token, last_event=last, table=created.table, wait_s=60
            )
            try:
                while await play_game(player, stop):
                    load.games += 1
                    await player.request(c.Rematch(), wait_s=60)
            finally:
                await player.close()
        except (SessionError, RequestRefused, TimeoutError, OSError):
            load.errors += 1
            await asyncio.sleep(1.0)  # the server is busy or away: do not spin


async def play_game(session: ClientSession, stop: asyncio.Event) -> bool:
    """Play the first legal card or announcement on each turn until the game is over (a
    finished table after a game in play: after a rematch, the last one shows until then);
    False if stopped first."""
    playing = False
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await session.next_snapshot(wait_s=0.5)
        snap = session.snapshot
        if snap is None or (snap.info.stage == "finished" and not playing):
            continue
        if snap.info.stage == "finished":
            return True
        playing = playing or snap.info.stage == "playing"
        legal = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        if legal and snap.last_event == session.last_event:
            with contextlib.suppress(RequestRefused):
                await session.act(legal[0], wait_s=30)
    return False


async def one_window(
    redis_url: str, processes: int, args: argparse.Namespace, home: Path
) -> dict[str, Any]:
    client = Redis.from_url(redis_url)
    stop = asyncio.Event()
    extra = ("--idle-unload", "5", "--placement", args.placement, "--lease", str(args.lease))
    try:
        await client.flushall()
        empty = (await redis_counters(client))["used_memory"]
        with servers([redis_url] * processes, *extra) as started:
            load = Load([p.pid for p in started], [http_url(p) for p in started])
            upstreams = [u.removeprefix("http://").rstrip("/") for u in load.http_urls]
            with running(upstreams, home) as proxy:
                tasks = [
                    asyncio.create_task(routed_tables(proxy.ws_url, stop, load))
                    for _ in range(args.tables)
                ]
                try:
                    await asyncio.sleep(args.warmup)  # the window starts after the warm-up
                    before = await read(load, client)
                    await asyncio.sleep(args.seconds)
                    after = await read(load, client)
                finally:
                    stop.set()
                    await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await client.aclose()
    measured = window(f"{processes} behind caddy", load, args.tables, before, after, 0, empty)
    publishes = after.redis.get("cmd:publish", 0.0) - before.redis.get("cmd:publish", 0.0)
    return {
        "processes": processes,
        "moves": measured.moves,
        "moves_per_s": measured.moves_per_s,
        "server_cpu_ms_per_move": measured.server_cpu_ms_per_move,
        "relayed_share": round(publishes / max(measured.moves, 1), 4),
        "errors": load.errors,
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    windows: list[dict[str, Any]] = []
    with private_redis() as redis_url, tempfile.TemporaryDirectory() as home:
        for _ in range(args.rounds):
            for processes in (1, 3):
                result = await one_window(redis_url, processes, args, Path(home))
                print(f"  {result}", flush=True)
                windows.append(result)
    one = [w["server_cpu_ms_per_move"] for w in windows if w["processes"] == 1]
    three = [w for w in windows if w["processes"] == 3]
    return {
        "windows": windows,
        "relayed_share_3": max(w["relayed_share"] for w in three),
        "cpu_per_move_3_over_1": round(
            statistics.median(w["server_cpu_ms_per_move"] for w in three)
            / max(statistics.median(one), 1e-9),
            3,
        ),
    }


def run(args: argparse.Namespace) -> int:
    if shutil.which("caddy") is None:
        print("cuarenta bench routing: needs caddy (Debian's package) on the PATH")
        return 2
    report = asyncio.run(_main(args))
    print(
        f"relayed share with 3 processes: {report['relayed_share_3']:.2%} of viewer messages; "
        f"server CPU per move, 3 processes over 1: {report['cpu_per_move_3_over_1']:.3f}x"
    )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0
