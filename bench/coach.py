"""`cuarenta bench coach`: a hint's latency as served, idle and while all-bot tables play.

One ``cuarenta serve`` child (memory store, the server's default bot workers and budgets). A
person at a casual heads-up table against a level-1 bot asks "what would you play?" at each of
their turns to play a card (``protocol.coach``), then plays the hinted card; the time from the
request to the answer is taken on the client (wall time: queueing for a bot worker included).
It asks `--hints` times with the server otherwise idle, then `--hints` times while `--tables`
all-bot tables of `--level` play (all-bot tables never wait: their searches keep the same worker
pool busy), and prints p50/p95 of each side by side. The issue's bar: p95 at most 1 s with 20
tables.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import time

from bench.machine import machine
from bench.store import servers, ws_url
from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.coach import Hint, HintRequest
from server.config import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=20, help="all-bot tables playing meanwhile")
    parser.add_argument("--level", type=int, default=5, help="the all-bot tables' bot level")
    parser.add_argument("--hints", type=int, default=60, help="hints asked in each phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before asking")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


async def bot_table(url: str, level: int, stop: asyncio.Event) -> int:
    """An all-bot table watched by its host, started again each time a game ends; games."""
    games = 0
    async with await ClientSession.connect(url, "bench", wait_s=60) as host:
        created = await host.request(c.CreateTable(profile="heads-up", casual=True), wait_s=60)
        assert isinstance(created, s.TableCreated)
        await host.request(c.Watch(key=created.host_key), wait_s=60)
        for _ in range(2):
            await host.request(c.AddBot(level=level), wait_s=60)
        await host.request(c.Start(), wait_s=60)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await host.next_snapshot(wait_s=0.5)
            snap = host.snapshot
            if snap is not None and snap.info.stage == "finished":
                games += 1
                await host.request(c.Start(), wait_s=60)
    return games


def _chosen(snap: s.Snapshot, hint: Hint | None) -> c.GameAction | None:
    """The hinted play if it is legal here, else a card or announcement, else any legal
    action (a claim, a missed take: the game waits for it); None: not this seat's turn."""
    legal = list(snap.legal)
    if hint is not None:
        wanted = (hint.play.card, sorted(hint.play.take))
        for action in legal:
            if isinstance(action, c.Play) and (action.card, sorted(action.take)) == wanted:
                return action
    plays = [a for a in legal if isinstance(a, c.Play | c.Announce)]
    return (plays or legal or [None])[0]


async def ask_hints(url: str, count: int) -> list[float]:
    """Seconds from each hint's request to its answer, ``count`` of them, one per decision
    (a game a connection: a session's event numbers are its table's)."""
    took: list[float] = []
    while len(took) < count:
        async with await ClientSession.connect(url, "Ana", wait_s=60) as ana:
            created = await ana.request(c.CreateTable(profile="heads-up", casual=True), wait_s=60)
            assert isinstance(created, s.TableCreated)
            await ana.request(c.Join(key=created.host_key), wait_s=60)
            await ana.request(c.AddBot(level=1), wait_s=60)
            await ana.request(c.Start(), wait_s=60)
            await _play_asking(ana, count, took)
            await ana.request(c.Leave(), wait_s=60)
    return took


async def _play_asking(ana: ClientSession, count: int, took: list[float]) -> None:
    while len(took) < count:
        with contextlib.suppress(TimeoutError):
            await ana.next_snapshot(wait_s=0.5)
        snap = ana.snapshot
        if snap is None or snap.info.stage == "finished":
            return
        if snap.last_event != ana.last_event or _chosen(snap, None) is None:
            continue
        hint = None
        if any(isinstance(a, c.Play) for a in snap.legal):
            sent = time.perf_counter()
            answer = await ana.request(HintRequest(), wait_s=60)
            took.append(time.perf_counter() - sent)
            hint = answer if isinstance(answer, Hint) else None
        action = _chosen(snap, hint)
        with contextlib.suppress(RequestRefused, SessionError, TimeoutError):
            if action is not None:
                await ana.act(action, wait_s=60)


def _figures(took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {
        "hints": len(ordered),
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


async def _main(args: argparse.Namespace) -> dict[str, object]:
    with servers(["memory"]) as processes:
        url = ws_url(processes[0])
        await ask_hints(url, 2)  # the worker pool starts (a live server's is warm)
        idle = await ask_hints(url, args.hints)
        stop = asyncio.Event()
        tables = [asyncio.create_task(bot_table(url, args.level, stop)) for _ in range(args.tables)]
        await asyncio.sleep(args.warmup)  # the tables are under way
        loaded = await ask_hints(url, args.hints)
        stop.set()
        games = sum(await asyncio.gather(*tables))
        processes[0].terminate()  # a clean stop: its review worker goes with it
        processes[0].wait(timeout=30)
    return {
        "machine": machine(),
        "bot_workers": Settings().bot_workers,
        "tables": args.tables,
        "level": args.level,
        "games_meanwhile": games,
        "idle": _figures(idle),
        "loaded": _figures(loaded),
    }


def run(args: argparse.Namespace) -> int:
    found = asyncio.run(_main(args))
    if args.json:
        print(json.dumps(found))
        return 0
    idle, loaded = found["idle"], found["loaded"]
    assert isinstance(idle, dict)
    assert isinstance(loaded, dict)
    print(
        f"hint latency as served (wall, request to answer), {found['bot_workers']} bot workers, "
        f"{found['machine']}"
    )
    print(f"{'':<34}{'hints':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    rows = (("idle server", idle), (f"{args.tables} all-bot tables of level {args.level}", loaded))
    for label, row in rows:
        print(f"{label:<34}{row['hints']:>6}{row['p50_ms']:>9}{row['p95_ms']:>9}{row['max_ms']:>9}")
    print(
        f"loaded / idle p95: {loaded['p95_ms'] / max(idle['p95_ms'], 0.1):.2f}x; "
        f"games finished meanwhile: {found['games_meanwhile']}"
    )
    return 0
