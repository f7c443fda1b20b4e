"""`cuarenta bench chaos --minutes N`: nothing lost when anything fails.

Three ``cuarenta serve`` processes behind Debian's caddy (the repository's ``deploy/Caddyfile``)
store their tables on Redis run as a primary, a replica and three sentinels, with the commit
waiting for the replica (``--store-wait 1``); every Redis link passes a lossy proxy
(``bench.chaos_redis``). People play through caddy with the client library, recording every
message (``bench.chaos_people``), beside tables of wire bots; meanwhile a seeded schedule of
faults (``bench.chaos_faults``) kills and stops servers, kills and stalls Redis, cuts its links,
and makes clients slow or vanish.

At the end one audit (``bench.log_audit``) judges every table the people sat at: no move a
client was told was made is missing from the stored log, no viewer was sent an event twice, out
of order, skipped, or unlike the stored one, and each finished game's record replays (by the
engine) to the scores its players were shown. It prints the faults by kind and the counts; the
exit status is 1 on any violation (the run's logs are then kept and their folder printed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.caddy import Caddy, free_port
from bench.chaos_faults import KINDS, Faults, ServerProcess
from bench.chaos_people import Crowd
from bench.chaos_redis import SentinelRedis
from bench.log_audit import KINDS as VIOLATIONS
from bench.log_audit import Audit, audit_table
from server.store import open_store

SERVE_ARGS = (
    *("--host", "127.0.0.1", "--placement", "rendezvous", "--lease", "3"),
    *("--store-wait", "1", "--store-wait-timeout", "1", "--store-timeout", "1"),
    *("--resolve", "30", "--claim-window", "0.1", "--bot-delay", "0", "--away-turn", "20"),
    *("--grace", "600", "--commands-per-s", "10000", "--connections-per-address", "0"),
    *("--tables-per-min", "0", "--send-queue", "64", "--log-format", "json"),
    *("--log-level", "warning"),
)
"""Short lease and timeouts, so each fault passes in seconds; seats kept through any absence."""
REUNITE_S = 60.0  # at the end: how long the keepers may take to bring everyone back


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--minutes", type=float, default=10.0, help="how long faults go on")
    parser.add_argument("--seed", type=int, default=40, help="the fault schedule's seed")
    parser.add_argument("--servers", type=int, default=3, help="cuarenta serve processes")
    parser.add_argument("--tables", type=int, default=4, help="tables of recording people")
    parser.add_argument("--bot-tables", type=int, default=2, help="tables of wire bots")
    parser.add_argument(
        "--gap", type=float, nargs=2, default=(2.0, 6.0), help="seconds between faults (range)"
    )
    parser.add_argument(
        "--faults",
        default=",".join(KINDS),
        help=f"the kinds to inject, comma-separated (default all: {', '.join(KINDS)})",
    )
    parser.add_argument("--dir", type=Path, help="keep the run's logs here (else a temp dir)")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")


async def main(args: argparse.Namespace, home: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    redis = SentinelRedis(home / "redis", random.Random(rng.random()))
    await redis.start()
    servers = [
        ServerProcess(free_port(), ("--store", redis.url, *SERVE_ARGS), home / f"serve-{i}.log")
        for i in range(args.servers)
    ]
    (home / "caddy").mkdir()
    caddy = Caddy([server.upstream for server in servers], home / "caddy")
    crowd: Crowd | None = None
    try:
        await asyncio.gather(*(asyncio.to_thread(server.start) for server in servers))
        await asyncio.to_thread(caddy.start)
        crowd = Crowd(caddy.ws_url, random.Random(rng.random()), args.tables, args.bot_tables)
        kinds = tuple(kind for kind in args.faults.split(",") if kind)
        faults = Faults(random.Random(rng.random()), servers, redis, crowd, tuple(args.gap), kinds)
        started = time.monotonic()
        playing = asyncio.create_task(crowd.run())
        try:
            await faults.run(args.minutes * 60)
        finally:
            crowd.halt.set()  # every fault is healed: play stops, everyone is brought back
            await playing
        minutes = (time.monotonic() - started) / 60
        await _reunite(crowd)
        audit = await _audit(redis.url, crowd)
        (home / "violations.txt").write_text(
            "".join(
                f"{kind}: {detail}\n" for kind in VIOLATIONS for detail in audit.violations[kind]
            )
        )
        (home / "faults.txt").write_text("".join(f"{line}\n" for line in faults.log))
        report = _report(minutes, faults, crowd, audit, redis.cuts)
        report["fault_log"] = faults.log
        return report
    finally:
        if crowd is not None:
            await crowd.close()
        caddy.stop()
        for server in servers:
            await asyncio.to_thread(server.stop)
        await redis.stop()


async def _reunite(crowd: Crowd) -> None:
    """Wait (bounded) until every person at an unfinished table is connected again."""
    deadline = time.monotonic() + REUNITE_S
    while any(p.session.closed.is_set() for table in crowd.live for p in table.people):
        if time.monotonic() > deadline:
            return  # the audit then counts what those people were not sent as they were away
        await asyncio.sleep(0.1)  # the keepers reconnect them; polled against a deadline


async def _audit(url: str, crowd: Crowd) -> Audit:
    store = await open_store(url)
    total = Audit()
    try:
        for table in crowd.done:
            total.merge(await audit_table(store, table, connected=False))
        for table in crowd.live:  # halted mid-game: every connected viewer catches up
            connected = not any(p.session.closed.is_set() for p in table.people)
            total.merge(await audit_table(store, table, connected=connected))
    finally:
        await store.close()
    return total


def _report(
    minutes: float, faults: Faults, crowd: Crowd, audit: Audit, cuts: int
) -> dict[str, Any]:
    return {
        "minutes": round(minutes, 2),
        "faults": {kind: faults.counts[kind] for kind in faults.kinds},
        "redis_links_cut": cuts,
        "server_starts_refused": faults.counts["server start refused for a minute"],
        "tables": len(crowd.done) + len(crowd.live),
        "events_checked": audit.counts["events"],
        "games_finished": audit.counts["finished"],
        "bot_games": crowd.stats["bot games"],
        "moves": {fate: audit.counts[fate] for fate in ("acked", "refused", "unknown")},
        "refusals": {k[8:]: n for k, n in sorted(audit.counts.items()) if k.startswith("refused ")},
        "stood_in": audit.counts["stood_in"],
        "connections": audit.counts["sessions"],
        "violations": {kind: len(audit.violations[kind]) for kind in VIOLATIONS},
        "examples": [detail for kind in VIOLATIONS for detail in audit.violations[kind][:3]],
        "client_stats": dict(crowd.stats),
    }


def _print(report: dict[str, Any]) -> None:
    faults = report["faults"]
    print(f"minutes of faults: {report['minutes']}")
    print(
        f"faults injected: {sum(faults.values())} "
        + ", ".join(f"{kind} {count}" for kind, count in faults.items())
        + f" (Redis links cut: {report['redis_links_cut']})"
    )
    moves = report["moves"]
    print(
        f"checked: {report['events_checked']} events at {report['tables']} tables over "
        f"{report['connections']} connections; games finished {report['games_finished']} "
        f"(bots: {report['bot_games']}); moves acked {moves['acked']}, refused "
        f"{moves['refused']}, unknown {moves['unknown']}; refused by code: "
        + ", ".join(f"{code} {n}" for code, n in report["refusals"].items())
        + f"; a stand-in's move where a refused one was: {report['stood_in']}"
    )
    print("clients: " + ", ".join(f"{k} {v}" for k, v in sorted(report["client_stats"].items())))
    counts = report["violations"]
    print("violations: " + ", ".join(f"{kind} {count}" for kind, count in counts.items()))
    for example in report["examples"]:
        print(f"  {example}")


def run(args: argparse.Namespace) -> int:
    missing = [
        name for name in ("caddy", "redis-server", "redis-sentinel") if not shutil.which(name)
    ]
    if missing:
        print(f"cuarenta bench chaos: needs {', '.join(missing)} on the PATH (make services)")
        return 2
    with contextlib.ExitStack() as stack:
        if args.dir is not None:
            args.dir.mkdir(parents=True, exist_ok=True)
            home = Path(tempfile.mkdtemp(prefix="chaos-", dir=args.dir))
        else:
            home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cuarenta-chaos-")))
        report = asyncio.run(main(args, home))
        failed = sum(report["violations"].values()) > 0
        if failed and args.dir is None:
            kept = Path(tempfile.mkdtemp(prefix="cuarenta-chaos-failed-"))
            shutil.copytree(home, kept, dirs_exist_ok=True)
            print(f"logs kept in {kept}")
    _print(report)
    if args.json:
        print(json.dumps(report, indent=2))
    return 1 if failed else 0
