"""The laptop's lid closed: a ``cuarenta serve`` and its clients stopped (SIGSTOP), continued.

``python -m bench.lid [--tables N] [--lid S] [--turn-timer T] [--before S] [--after S]``
starts a server, ``N`` live pagat-4p tables (two connected people who never act, so their
turn clocks run out, and two bots), lets them play, then stops the server with its workers
and this process (its clients) for ``S`` seconds with a helper shell that sends SIGCONT
after. Each table's watcher records when each decision arrived; a decision for a person's
seat is their stand-in's. It prints the stand-in decisions per person seat in the first
``T - 1`` seconds after the wake (a storm would be more than one) and whether every table
played on. Nothing else stops: on a real laptop Redis would stop too (the memory store here).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections import Counter

from bench.store import servers
from bench.store import ws_url as server_url
from clients.session import ClientSession, ws_url
from clients.table import create_table, take_seat
from protocol import client_messages as c
from protocol import game_events as g
from protocol import server_messages as s

PEOPLE = (0, 2)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=4, help="live tables (default 4)")
    parser.add_argument("--lid", type=float, default=600.0, help="seconds stopped (default 600)")
    parser.add_argument("--turn-timer", type=int, default=15, choices=(15, 30, 60), help="s")
    parser.add_argument("--before", type=float, default=None, help="s of play before (2 turns)")
    parser.add_argument("--after", type=float, default=None, help="s watched after (a turn)")


async def _watch(watcher: ClientSession, seen: list[tuple[float, int]]) -> None:
    """Record (arrival, seat) of every announcement and play at the table."""
    with contextlib.suppress(Exception):
        async for message in watcher:
            if isinstance(message, s.Event) and isinstance(message.event, g.Played | g.Announced):
                seen.append((time.time(), message.event.seat))


async def measure(
    tables: int, lid_s: float, turn_s: int, before_s: float, after_s: float
) -> dict[str, object]:
    extra = ("--bot-delay", "0.3", "--connections-per-address", "0", "--tables-per-min", "0")
    with servers(["memory"], *extra) as (server,):
        url = server_url(server)
        sessions: list[ClientSession] = []
        try:
            seen: list[list[tuple[float, int]]] = [[] for _ in range(tables)]
            tasks = []
            for n in range(tables):
                links = await create_table(url, f"host {n}", turn_timer=turn_s)
                host = await ClientSession.connect(ws_url(url, links.table), name=f"Host {n}")
                await host.request(c.Watch(key=links.host.key))
                for seat in PEOPLE:
                    sessions.append(await take_seat(links.join, f"P{n}.{seat}", seat))
                for seat in (1, 3):
                    await host.request(c.AddBot(level=1, seat=seat))
                tasks.append(asyncio.create_task(_watch(host, seen[n])))
                await host.request(c.Start())
                sessions.append(host)
            await asyncio.sleep(before_s)
            stopped = time.time()
            # the server's whole group (its bot and review workers too) and this process
            pids = f"-{server.pid} {os.getpid()}"
            lid = f"kill -STOP {pids}; sleep {lid_s}; kill -CONT {pids}"  # dash: no "--"
            shell = await asyncio.create_subprocess_exec("sh", "-c", lid)
            await shell.wait()  # this process is stopped in here; the shell ends on the wake
            wake = time.time()
            await asyncio.sleep(after_s)
            per_seat: Counter[tuple[int, int]] = Counter()
            went_on = 0
            for n, decisions in enumerate(seen):
                after = [(at, seat) for at, seat in decisions if at >= wake]
                went_on += bool(after)
                for at, seat in after:
                    if seat in PEOPLE and at < wake + turn_s - 1:
                        per_seat[(n, seat)] += 1
            for task in tasks:
                task.cancel()
            return {
                "tables": tables,
                "lid_s": lid_s,
                "stopped_s": round(wake - stopped, 1),
                "turn_timer_s": turn_s,
                "stand_ins_on_wake_max_per_seat": max(per_seat.values(), default=0),
                "seats_with_a_stand_in_on_wake": len(per_seat),
                "person_seats": tables * len(PEOPLE),
                "tables_played_on": went_on,
            }
        finally:
            for session in sessions:
                with contextlib.suppress(Exception):
                    await session.close()


def run(args: argparse.Namespace) -> int:
    before = args.before if args.before is not None else 2.0 * args.turn_timer
    after = args.after if args.after is not None else args.turn_timer + 1.0
    figures = asyncio.run(measure(args.tables, args.lid, args.turn_timer, before, after))
    print(json.dumps(figures))
    # a table may wait a whole turn for a person: it must have played on once ``after`` covers one
    played_on = figures["tables_played_on"] == args.tables or after <= args.turn_timer
    return 0 if figures["stand_ins_on_wake_max_per_seat"] in (0, 1) and played_on else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
