"""`cuarenta bench soak --tables N --minutes M [--store memory|redis]`: does memory level off?

One ``cuarenta serve`` child process (memory store, or a private ``redis-server`` on a free port
in a temporary directory, never the machine's own) and, from this process:

- ``--tables`` all-bot tables: a host creates a table, watches four level-1 bots play it to the
  end, leaves, and creates the next one (the finished table is unloaded ``--idle-unload`` seconds
  later, as the server does in production after its idle time);
- ``--reconnecting`` tables of one person and three bots: the person plays its first legal card
  or call (R6, R7) and every ``--reconnect-every`` seconds (jittered) drops the socket and takes
  the seat back with its token (``hello.resume``); a new table after each finished game.

Every ``--sample`` seconds: the server's RSS (``VmRSS`` of ``/proc/<pid>/status``), games
finished, reconnects and errors so far. The verdict: RSS growth per minute after the warm-up
(the first third of the run), by least squares over the samples, and the last sample over the
first sample after the warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from bench.machine import machine
from bench.store import new_table, private_redis, servers, ws_url
from clients.session import RequestRefused, SessionError
from protocol import client_messages as c

WAIT_S = 60.0
STARTED = time.monotonic()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=100, help="all-bot tables (default 100)")
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the run")
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument(
        "--reconnecting",
        type=int,
        default=None,
        help="tables of one reconnecting person and three bots "
        "(default: a tenth of --tables, at least one)",
    )
    parser.add_argument(
        "--reconnect-every",
        type=float,
        default=5.0,
        help="seconds between a person's drops, jittered (default 5)",
    )
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument(
        "--idle-unload",
        type=float,
        default=30.0,
        help="the server's --idle-unload: finished tables leave memory after it",
    )
    parser.add_argument(
        "--table-ttl",
        type=float,
        default=None,
        help="the server's --table-ttl (default its own: a week; the memory "
        "store keeps every table that long)",
    )
    parser.add_argument("--json", action="store_true", help="also print one JSON line per sample")


@dataclass
class Tally:
    games: int = 0
    reconnects: int = 0
    moves: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def error(self, exc: BaseException) -> None:
        self.errors[type(exc).__name__] += 1


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float
    rss_mib: float
    games: int
    reconnects: int
    errors: int


def rss_mib(pid: int) -> float:
    """The process's resident set, from the kernel's own count."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope_per_minute(samples: list[Sample]) -> float:
    """Least-squares RSS growth in MiB per minute (0 for fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    xs = [x.seconds / 60 for x in samples]
    ys = [x.rss_mib for x in samples]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0


# ---------------------------------------------------------------------- the load
async def bot_tables(url: str, stop: asyncio.Event, tally: Tally) -> None:
    """Create, watch to the end, leave; again (an all-bot table never waits for anyone)."""
    while not stop.is_set():
        try:
            host, _ = await new_table(url, seated=False)
            try:
                while not stop.is_set():
                    snap = host.snapshot
                    if snap is not None and snap.info.stage == "finished":
                        tally.games += 1
                        break
                    with contextlib.suppress(TimeoutError):
                        await host.next_snapshot(wait_s=1.0)
            finally:
                await host.close()
        except (SessionError, RequestRefused, TimeoutError, OSError) as exc:
            tally.error(exc)
            await asyncio.sleep(1.0)  # the server is busy or away: do not spin


async def reconnecting_tables(
    url: str, stop: asyncio.Event, tally: Tally, every: float, rng: random.Random
) -> None:
    """One person who plays and keeps dropping and resuming its seat, game after game."""
    while not stop.is_set():
        try:
            session, _ = await new_table(url, seated=True)
        except (SessionError, RequestRefused, TimeoutError, OSError) as exc:
            tally.error(exc)
            await asyncio.sleep(1.0)
            continue
        drop_at = time.monotonic() + every * rng.uniform(0.5, 1.5)
        try:
            while not stop.is_set():
                snap = session.snapshot
                if snap is not None and snap.info.stage == "finished":
                    tally.games += 1
                    break
                if time.monotonic() >= drop_at:
                    await session.close()
                    session = await session.reconnect(url, "soak", wait_s=WAIT_S)
                    tally.reconnects += 1
                    drop_at = time.monotonic() + every * rng.uniform(0.5, 1.5)
                    continue
                if snap is None:
                    await session.next_snapshot(wait_s=WAIT_S)
                    continue
                legal = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
                if legal and snap.last_event == session.last_event:
                    with contextlib.suppress(RequestRefused):  # stale: a stand-in moved first
                        await session.act(legal[0], wait_s=WAIT_S)
                        tally.moves += 1
                    continue
                with contextlib.suppress(TimeoutError):
                    await session.next_snapshot(wait_s=0.5)
        except (SessionError, RequestRefused, TimeoutError, OSError) as exc:
            tally.error(exc)
        finally:
            await session.close()


async def sampler(
    pid: int, stop: asyncio.Event, tally: Tally, every: float, samples: list[Sample], started: float
) -> None:
    while True:
        elapsed = time.monotonic() - started
        sample = Sample(
            round(elapsed, 1),
            round(rss_mib(pid), 2),
            tally.games,
            tally.reconnects,
            sum(tally.errors.values()),
        )
        samples.append(sample)
        progress(
            f"RSS {sample.rss_mib:.1f} MiB, {sample.games} games, "
            f"{sample.reconnects} reconnects, {sample.errors} errors"
        )
        if stop.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)


def progress(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:7.1f} s] {text}", file=sys.stderr, flush=True)


async def soak(url: str, pid: int, args: argparse.Namespace) -> tuple[list[Sample], Tally]:
    stop, tally, samples = asyncio.Event(), Tally(), list[Sample]()
    rng = random.Random(40)
    reconnecting = args.reconnecting if args.reconnecting is not None else max(1, args.tables // 10)
    started = time.monotonic()
    load = [asyncio.create_task(bot_tables(url, stop, tally)) for _ in range(args.tables)]
    load += [
        asyncio.create_task(reconnecting_tables(url, stop, tally, args.reconnect_every, rng))
        for _ in range(reconnecting)
    ]
    watch = asyncio.create_task(sampler(pid, stop, tally, args.sample, samples, started))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), args.minutes * 60)
    stop.set()
    await asyncio.gather(*load, return_exceptions=True)
    await watch
    return samples, tally


@contextlib.contextmanager
def store_spec(store: str) -> Iterator[str]:
    if store == "memory":
        yield "memory"
    else:
        with private_redis() as url:
            yield url


async def _main(args: argparse.Namespace) -> int:
    facts = machine()
    with (
        store_spec(args.store) as spec,
        servers([spec], "--idle-unload", str(args.idle_unload)) as processes,
    ):
        process: subprocess.Popen[str] = processes[0]
        url = ws_url(process)
        progress(f"soak: {args.tables} all-bot tables on {spec} for {args.minutes:g} min")
        samples, tally = await soak(url, process.pid, args)
    report(args, facts, samples, tally)
    return 0


def report(
    args: argparse.Namespace, facts: dict[str, object], samples: list[Sample], tally: Tally
) -> None:
    warm = samples[0].seconds + (samples[-1].seconds - samples[0].seconds) / 3
    after = [x for x in samples if x.seconds >= warm]
    slope = slope_per_minute(after)
    print(
        f"soak: {args.tables} all-bot tables + {args.reconnecting or max(1, args.tables // 10)}"
        f" reconnecting, {args.minutes:g} min, store {args.store}, idle unload "
        f"{args.idle_unload:g} s; {facts['nproc']} cores, load average "
        f"{facts['load_average_1m']} at the start"
    )
    print(f"{'seconds':>8}{'RSS MiB':>9}{'games':>8}{'reconn':>8}{'errors':>8}")
    for x in samples:
        print(f"{x.seconds:>8.0f}{x.rss_mib:>9.1f}{x.games:>8}{x.reconnects:>8}{x.errors:>8}")
    first, last = after[0], samples[-1]
    print(
        f"games finished {tally.games}, moves by people {tally.moves}, reconnects "
        f"{tally.reconnects}, errors {dict(tally.errors) or 0}"
    )
    print(
        f"after warm-up ({warm:.0f} s): RSS {first.rss_mib:.1f} -> {last.rss_mib:.1f} MiB, "
        f"growth {slope:+.2f} MiB/min"
    )
    if args.json:
        for x in samples:
            print(json.dumps({"bench": "soak", "result": "sample", **asdict(x)}))
        print(
            json.dumps(
                {
                    "bench": "soak",
                    "result": "summary",
                    "store": args.store,
                    "tables": args.tables,
                    "games": tally.games,
                    "moves": tally.moves,
                    "reconnects": tally.reconnects,
                    "errors": dict(tally.errors),
                    "growth_mib_per_min": round(slope, 3),
                    "machine": facts,
                }
            )
        )


def run(args: argparse.Namespace) -> int:
    if args.tables < 0 or args.minutes <= 0 or args.sample <= 0:
        print("cuarenta bench soak: --tables >= 0, --minutes and --sample > 0", file=sys.stderr)
        return 2
    if args.store == "redis" and shutil.which("redis-server") is None:
        print("cuarenta bench soak: redis-server is not installed (apt-get install redis-server)")
        return 2
    return asyncio.run(_main(args))


__all__ = ["add_arguments", "run"]
