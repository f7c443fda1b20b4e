"""The relayed path's cost: server CPU per table round when every person plays through a second
process (``cuarenta bench relay_cost --tables 20 --seconds 10``).

Two ``cuarenta serve`` processes share a private Redis. Each table is created on the first (its
owner) with the host seated and three level-1 bots, and started; its person then resumes the seat
through the second process, so every command is forwarded to the owner and every message relayed
back (``server.cluster``). The person plays its first legal card on each of its turns for the
window; a round is one person's play and what it causes. Printed: rounds, each process's CPU
seconds over the window (from ``/proc``), and their CPU milliseconds per round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time

from bench.store import new_table, person, private_redis, servers, ws_url
from clients.session import ClientSession

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def measure(tables: int, seconds: float) -> dict[str, float]:
    with private_redis() as redis_url, servers([redis_url, redis_url]) as processes:
        owner_url, relay_url = (ws_url(process) for process in processes)
        sessions = []
        for _ in range(tables):
            host, _created = await new_table(owner_url)
            token = host.token
            assert token is not None
            relayed = await ClientSession.connect(relay_url, "bench", resume=token, wait_s=60)
            await host.close()
            sessions.append(relayed)
        stop, latencies = asyncio.Event(), list[float]()
        before = [cpu_seconds(process.pid) for process in processes]
        started = time.perf_counter()
        players = [asyncio.create_task(person(session, stop, latencies)) for session in sessions]
        await asyncio.sleep(seconds)  # the measured window
        after = [cpu_seconds(process.pid) for process in processes]
        elapsed = time.perf_counter() - started
        stop.set()
        rounds = sum(await asyncio.gather(*players))
        for session in sessions:
            await session.close()
    owner_cpu, relay_cpu = (b - a for a, b in zip(before, after, strict=True))
    per_round = 1000 / max(rounds, 1)
    return {
        "tables": tables,
        "seconds": round(elapsed, 2),
        "rounds": rounds,
        "owner_cpu_s": round(owner_cpu, 3),
        "relay_cpu_s": round(relay_cpu, 3),
        "owner_ms_per_round": round(owner_cpu * per_round, 3),
        "relay_ms_per_round": round(relay_cpu * per_round, 3),
        "total_ms_per_round": round((owner_cpu + relay_cpu) * per_round, 3),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)


def run(args: argparse.Namespace) -> int:
    """Measure and print the figures as one JSON object."""
    if shutil.which("redis-server") is None:
        print("cuarenta bench relay_cost: redis-server is missing (apt-get install redis-server)")
        return 2
    print(json.dumps(asyncio.run(measure(args.tables, args.seconds))))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
